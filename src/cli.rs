//! The command line: parse, dispatch to one module per subcommand, map errors to exit codes
//! (0 success, 1 runtime error, 2 usage error — clap's own), one line on stderr.

mod auth;
mod config_cmd;
mod files;
mod generate;
mod produce;
mod serve;

use crate::config::{self, Loaded, Sources};
use clap::{Args, Parser, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;

pub use generate::GenerateArgs;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "depot",
    version,
    about = "File records with signed URLs, and spreadsheet translations, in one daemon"
)]
pub struct Cli {
    /// Configuration file (a missing file means built-in defaults).
    #[arg(
        long,
        global = true,
        default_value = "config/depot.toml",
        value_name = "PATH"
    )]
    pub config: PathBuf,
    /// Environment file with the SERVICE_* settings.
    #[arg(
        long,
        global = true,
        default_value = ".env.service",
        value_name = "PATH"
    )]
    pub env_file: PathBuf,
    /// Where the refresh token is read and saved: env (.env.service) or json (google.token_file).
    #[arg(long, global = true, value_name = "FORMAT", value_parser = ["env", "json"])]
    pub config_format: Option<String>,
    /// Set any configuration key, above every other source (repeatable): --set files.max_limit=200
    #[arg(long = "set", global = true, value_name = "KEY=VALUE", value_parser = parse_assignment)]
    pub set: Vec<(String, String)>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP daemon, with the translations producer inside it.
    Serve(ServeArgs),
    /// Write translation files for an app's source tree.
    Generate(GenerateArgs),
    /// Sync the spreadsheet into the translations store (loop, or once with --once).
    Produce(ProduceArgs),
    /// Run the browser consent flow and save the refresh token.
    Auth(AuthArgs),
    /// Manage file records.
    #[command(subcommand)]
    Files(FilesCommand),
    /// Inspect the configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (server.listen).
    #[arg(long, value_name = "IP:PORT")]
    pub listen: Option<String>,
    /// Data folder (server.data_dir).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<String>,
    /// Log level (log.level): error, warn, info, debug, trace.
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,
}

#[derive(Debug, Args)]
pub struct ProduceArgs {
    /// One sync, then exit (for cron).
    #[arg(long)]
    pub once: bool,
    /// Read this local sheet (.csv, or a .json values.get document) instead of producer.source.
    #[arg(long, value_name = "FILE")]
    pub source: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct AuthArgs {
    /// Only print the consent URL; do not try to open a browser.
    #[arg(long)]
    pub no_browser: bool,
}

#[derive(Debug, Subcommand)]
pub enum FilesCommand {
    /// Copy files into the object store and record them (prints each record as JSON).
    Add(AddArgs),
    /// Bulk-load file records from JSON lines (.jsonl) or CSV: all rows or none.
    Import {
        /// The records file.
        file: PathBuf,
    },
    /// Add generated records, for benchmarks and load tests.
    #[command(hide = true)]
    Seed {
        /// How many records.
        count: u64,
    },
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// Files to add.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Bucket of the new records.
    #[arg(long, default_value = crate::files::writes::DEFAULT_BUCKET)]
    pub bucket: String,
    /// Who may read the records.
    #[arg(long, default_value = "public", value_parser = ["public", "private"])]
    pub permission: String,
    /// Description of the new records.
    #[arg(long, default_value = "")]
    pub description: String,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Load and validate the configuration; print the effective values, secrets masked.
    Check,
}

fn parse_assignment(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_owned(), v.to_owned()))
        .ok_or_else(|| format!("expected KEY=VALUE, got '{s}'"))
}

/// A runtime failure: the one line printed before exiting with code 1.
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure(e.to_string())
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse_from(short_config_format(std::env::args_os()));
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message)) => {
            eprintln!("depot: error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    // Subcommand flags come after `--set`, so they win over it.
    let token_store = cli
        .config_format
        .clone()
        .map(|format| ("google.token_store".to_owned(), format));
    let sources = |extra: Vec<(String, String)>| {
        let flags = cli
            .set
            .iter()
            .cloned()
            .chain(token_store.clone())
            .chain(extra)
            .collect();
        Sources::new(cli.config.clone(), cli.env_file.clone(), flags)
    };
    match cli.command {
        Command::Serve(ref args) => serve::run(sources(args.flags())),
        Command::Config(ConfigCommand::Check) => config_cmd::check(&sources(vec![])),
        Command::Generate(ref args) => {
            if let Err(usage) = args.check_usage() {
                usage.exit();
            }
            generate::run(sources(args.flags()), args)
        }
        Command::Produce(ref args) => {
            let source = args
                .source
                .as_ref()
                .map(|path| ("producer.source".to_owned(), path.display().to_string()));
            produce::run(sources(source.into_iter().collect()), args.once)
        }
        Command::Auth(ref args) => auth::run(sources(vec![]), !args.no_browser),
        Command::Files(FilesCommand::Add(ref args)) => files::add(
            &sources(vec![]),
            files::AddOptions {
                paths: args.paths.clone(),
                bucket: args.bucket.clone(),
                permission: args.permission.parse().map_err(Failure::from)?,
                description: args.description.clone(),
            },
        ),
        Command::Files(FilesCommand::Import { ref file }) => {
            files::import(&sources(vec![]), file.clone())
        }
        Command::Files(FilesCommand::Seed { count }) => files::seed(&sources(vec![]), count),
    }
}

impl ServeArgs {
    fn flags(&self) -> Vec<(String, String)> {
        [
            ("server.listen", &self.listen),
            ("server.data_dir", &self.data_dir),
            ("log.level", &self.log_level),
        ]
        .into_iter()
        .filter_map(|(key, value)| value.clone().map(|v| (key.to_owned(), v)))
        .collect()
    }
}

/// `-cf` (SPEC §5's alias of `--config-format`) has two letters, which clap's short options
/// cannot: the raw arguments are rewritten before parsing. After `--` nothing is touched.
fn short_config_format(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut rest_is_positional = false;
    args.into_iter()
        .map(|arg| {
            if rest_is_positional {
                return arg;
            }
            match arg.to_str() {
                Some("--") => {
                    rest_is_positional = true;
                    arg
                }
                Some("-cf") => OsString::from("--config-format"),
                Some(text) => match text.strip_prefix("-cf=") {
                    Some(value) => OsString::from(format!("--config-format={value}")),
                    None => arg,
                },
                None => arg,
            }
        })
        .collect()
}

/// Runs the consent flow on the terminal (the URL on stderr, a browser when asked) and
/// saves the refresh token where `google.token_store` says.
async fn consent_and_save(
    settings: &crate::config::Settings,
    sources: &Sources,
    open_browser: bool,
    intro: &str,
) -> Result<crate::config::Secret, Failure> {
    let token = crate::sheets::consent::obtain_refresh_token(settings, open_browser, |url| {
        let lead = if intro.is_empty() {
            String::new()
        } else {
            format!("{intro} ")
        };
        eprintln!("{lead}Open this URL in a browser to let depot read the spreadsheet:\n{url}");
    })
    .await?;
    let place = crate::sheets::consent::save_refresh_token(settings, sources, &token)?;
    eprintln!("depot: the refresh token was saved to {place}");
    Ok(token)
}

/// The async runtime a command runs on.
fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure(format!("cannot start the async runtime: {e}")))
}

/// Loads the configuration, printing its warnings; the common first step of a command.
fn load_config(sources: &Sources) -> Result<Loaded, Failure> {
    let loaded = config::load(sources)?;
    for warning in &loaded.resolved.warnings {
        eprintln!("depot: warning: {warning}");
    }
    Ok(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(args: &[&str]) -> Vec<String> {
        short_config_format(args.iter().map(OsString::from))
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn cf_is_read_as_config_format() {
        assert_eq!(
            rewrite(&["depot", "generate", "-cf", "json", "-cf=env", "--", "-cf"]),
            [
                "depot",
                "generate",
                "--config-format",
                "json",
                "--config-format=env",
                "--",
                "-cf"
            ]
        );
        let cli = Cli::try_parse_from(rewrite(&["depot", "generate", "-cf", "json"])).unwrap();
        assert_eq!(cli.config_format.as_deref(), Some("json"));
    }
}
