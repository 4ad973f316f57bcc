//! The command line: parse, dispatch to one module per subcommand, map errors to exit codes
//! (0 success, 1 runtime error, 2 usage error — clap's own), one line on stderr.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the command line answers on the terminal; the daemon logs through tracing"
)]

mod auth;
mod channels;
mod config_cmd;
mod diff;
mod files;
mod generate;
mod import;
mod output;
mod produce;
mod progress;
mod serve;

use crate::config::{self, Loaded, Sources};
use clap::{Args, Parser, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;

pub use diff::DiffArgs;
pub use generate::GenerateArgs;
pub use import::ImportArgs;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "depot",
    version,
    about = "File records with signed URLs, and spreadsheet translations, in one daemon"
)]
pub struct Cli {
    /// Configuration file [default: config/depot.toml; missing means built-in defaults].
    /// A file named here must exist.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Environment file with the SERVICE_* settings [default: .env.service; missing means
    /// none]. A file named here must exist.
    #[arg(long, global = true, value_name = "PATH")]
    pub env_file: Option<PathBuf>,
    /// Where the refresh token is read and saved: env (.env.service) or json
    /// (google.token_file). Short form: -cf FORMAT.
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
    /// Run the browser consent flow and save the refresh token; or, with --admin-key, make
    /// an admin key.
    Auth(AuthArgs),
    /// Manage file records.
    #[command(subcommand)]
    Files(FilesCommand),
    /// Inspect the configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Turn an app's translation files into a sheet (or merge them into one).
    Import(ImportArgs),
    /// Compare an app's translation files with the sheet; exit 1 on any difference.
    Diff(DiffArgs),
    /// Point a channel (production, beta, ...) at a kept version: the current one unless
    /// VERSION names another. Apps reading the channel get it within delivery.max_age_secs.
    Publish(channels::PublishArgs),
    /// Point a channel back at the version it pointed at before its last publish.
    Rollback(channels::RollbackArgs),
    /// Print shell completions: depot completions bash > /etc/bash_completion.d/depot
    Completions {
        /// The shell.
        #[arg(value_parser = ["bash", "zsh", "fish"])]
        shell: String,
    },
}

/// `--data-dir`, for every command that reads or writes the data folder.
#[derive(Debug, Args)]
pub struct DataDirArg {
    /// Data folder: database, stores, embedded credentials (server.data_dir).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<String>,
}

impl DataDirArg {
    fn flags(&self) -> Vec<(String, String)> {
        self.data_dir
            .iter()
            .map(|dir| ("server.data_dir".to_owned(), dir.clone()))
            .collect()
    }
}

/// `--max-memory` and `--encoding`, for the commands that read input files (import, diff,
/// generate).
#[derive(Debug, Args)]
pub struct MemoryArg {
    /// Memory that reading the input files may take (limits.input_memory_bytes, default
    /// 1G): bytes, or a number with K, M, G or T (3G). A file that would take more is
    /// refused before it is read.
    #[arg(long, value_name = "SIZE", value_parser = crate::memory_budget::parse_size)]
    pub max_memory: Option<u64>,
    /// The code page of a .csv sheet that is not UTF-8 (translations.sheet_encoding):
    /// windows-1250 ... windows-1258, as Excel's "CSV (Comma delimited)" writes them.
    /// UTF-8 and UTF-16 files (with their byte-order mark) are read whatever this says.
    #[arg(long, value_name = "CODEPAGE")]
    pub encoding: Option<String>,
}

impl MemoryArg {
    fn flags(&self) -> Vec<(String, String)> {
        let memory = (self.max_memory.iter())
            .map(|bytes| (crate::memory_budget::KEY.to_owned(), bytes.to_string()));
        let encoding = (self.encoding.iter())
            .map(|name| ("translations.sheet_encoding".to_owned(), name.clone()));
        memory.chain(encoding).collect()
    }
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (server.listen).
    #[arg(long, value_name = "IP:PORT")]
    pub listen: Option<String>,
    #[command(flatten)]
    pub data: DataDirArg,
    /// Log level (log.level): error, warn, info, debug, trace.
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,
}

#[derive(Debug, Args)]
pub struct ProduceArgs {
    /// One sync, then exit (for cron).
    #[arg(long)]
    pub once: bool,
    /// Print nothing on success (errors only): no summary of --once, no warnings. The
    /// loop's log follows log.level.
    #[arg(short, long)]
    pub quiet: bool,
    /// Read this sheet instead of producer.source: a local .csv, .xlsx, .ods (or .json
    /// values document), an http(s):// URL of a CSV, or `example` (the sheet built into depot).
    #[arg(long, value_name = "FILE")]
    pub source: Option<PathBuf>,
    #[command(flatten)]
    pub data: DataDirArg,
}

#[derive(Debug, Args)]
pub struct AuthArgs {
    /// Only print the consent URL; do not try to open a browser.
    #[arg(long)]
    pub no_browser: bool,
    /// Instead of the consent flow: make a new admin key (for "Sync now" and uploads),
    /// print it once and add it to the env file (.env.service) as DEPOT_ADMIN_KEYS.
    #[arg(long, conflicts_with = "no_browser")]
    pub admin_key: bool,
}

#[derive(Debug, Subcommand)]
pub enum FilesCommand {
    /// Copy files into the object store and record them (prints each record as JSON).
    Add(AddArgs),
    /// Bulk-load file records from JSON lines (.jsonl) or CSV: all rows or none.
    Import {
        /// The records file.
        file: PathBuf,
        /// Print nothing on success (no progress, no result line); errors only.
        #[arg(short, long)]
        quiet: bool,
        #[command(flatten)]
        data: DataDirArg,
    },
    /// Add generated records, for benchmarks and load tests.
    #[command(hide = true)]
    Seed {
        /// How many records.
        count: u64,
        /// Print nothing on success (no progress, no result line); errors only.
        #[arg(short, long)]
        quiet: bool,
        #[command(flatten)]
        data: DataDirArg,
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
    /// Print nothing on success (errors only): not the records added.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub data: DataDirArg,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Load and validate the configuration; print the effective values as TOML that pastes
    /// back into a config file (secrets masked, in comments).
    Check {
        /// Print nothing when the configuration is valid (errors only): the exit code says.
        #[arg(short, long)]
        quiet: bool,
        #[command(flatten)]
        data: DataDirArg,
    },
}

fn parse_assignment(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_owned(), v.to_owned()))
        .ok_or_else(|| format!("expected KEY=VALUE, got '{s}'"))
}

/// A runtime failure: the one line printed before exiting with code 1.
#[derive(Debug)]
pub struct Failure(pub String);

/// An error becomes its message followed by its causes, so the reason at the bottom of the
/// chain (the OS error under "cannot read X", say) is never dropped.
impl<E: std::error::Error> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure(with_causes(&e))
    }
}

/// `message: caused by cause: caused by deeper cause`, on one line. A cause whose text the
/// message already holds is not repeated: many messages embed their source's text.
pub fn with_causes(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let text = e.to_string();
        if !text.is_empty() && !line.contains(&text) {
            line.push_str(": caused by ");
            line.push_str(&text);
        }
        cause = e.source();
    }
    line
}

/// Why a command ended without success: its exit code and one line.
#[derive(Debug)]
enum Exit {
    /// 1: the command could not do its work.
    Failure(Failure),
    /// 2: the command line itself is wrong (clap's own usage errors exit 2 too).
    Usage(String),
}

impl From<Failure> for Exit {
    fn from(failure: Failure) -> Exit {
        Exit::Failure(failure)
    }
}

pub fn main() -> ExitCode {
    let args = short_config_format(std::env::args_os());
    let parsed = Cli::try_parse_from(&args);
    let usage = |error| usage(error, &args);
    let (code, message) = match parsed.map_err(usage).and_then(|cli| run(cli, usage)) {
        Ok(()) => return ExitCode::SUCCESS,
        Err(Exit::Failure(Failure(message))) => (ExitCode::FAILURE, message),
        Err(Exit::Usage(message)) => (ExitCode::from(2), message),
    };
    // One line, whatever a message or a cause holds.
    let message = message.replace('\n', " ");
    eprintln!("depot: error: {message}");
    code
}

/// A usage error of clap's as one line: its first paragraph, clap's suggestion for a
/// slip (a subcommand, a flag or a value it knows that is close to what was typed), and the
/// command whose `--help` tells more (the subcommand the arguments name, not the one clap
/// was parsing when the error came up). `--help` and `--version` are printed as clap
/// prints them, exit 0.
fn usage(error: clap::Error, args: &[OsString]) -> Exit {
    if error.exit_code() == 0 {
        error.exit();
    }
    let message =
        if error.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            // The help itself would be printed: name what is missing instead.
            "a command is missing".to_owned()
        } else {
            // The first paragraph of clap's text (the tips and the usage follow it).
            let text = error.render().to_string();
            let first = text.split("\n\n").next().unwrap_or_default();
            let message = first.split_whitespace().collect::<Vec<_>>().join(" ");
            message
                .strip_prefix("error: ")
                .map(str::to_owned)
                .unwrap_or(message)
        };
    let hint = suggestion(&error).map_or_else(String::new, |s| format!(" ({s})"));
    Exit::Usage(format!(
        "{message}{hint}; see {} --help",
        command_path(args)
    ))
}

/// What clap suggests for a slip, as `did you mean '--format'?` (its tips otherwise shown
/// below the usage, which the one-line message leaves out).
fn suggestion(error: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    let text = |value: &ContextValue| match value {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(list) => list.first().cloned(),
        _ => None,
    };
    let named = [
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedArg,
        ContextKind::SuggestedValue,
    ]
    .into_iter()
    .find_map(|kind| error.get(kind).and_then(text));
    if let Some(name) = named {
        return Some(format!("did you mean '{name}'?"));
    }
    // Tips in words: "'generate --format' exists", "to pass '-x' as a value, use '-- -x'".
    match error.get(ContextKind::Suggested) {
        Some(ContextValue::StyledStrs(tips)) if !tips.is_empty() => Some(
            tips.iter()
                .map(|tip| tip.to_string())
                .collect::<Vec<_>>()
                .join("; "),
        ),
        _ => None,
    }
}

/// The command the arguments name (`depot`, `depot generate`, `depot files add`): the
/// subcommand words among them, skipping the values of options.
fn command_path(args: &[OsString]) -> String {
    use clap::CommandFactory;
    let mut root = Cli::command();
    // Built, so that the global options are known to every subcommand.
    root.build();
    let mut words = vec![root.get_name().to_owned()];
    let mut command = &root;
    let mut rest = args.iter().skip(1).filter_map(|arg| arg.to_str());
    while let Some(arg) = rest.next() {
        if arg == "--" {
            break;
        }
        let takes_value = if let Some(long) = arg.strip_prefix("--") {
            !long.contains('=')
                && command.get_arguments().any(|a| {
                    a.get_action().takes_values()
                        && (a.get_long() == Some(long)
                            || a.get_all_aliases().unwrap_or_default().contains(&long))
                })
        } else if let Some(shorts) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            // `-qf json`: the first short option that takes a value takes the rest of the
            // word, or the next word when it ends the cluster.
            let mut takes = false;
            for (at, short) in shorts.char_indices() {
                let valued = command
                    .get_arguments()
                    .any(|a| a.get_short() == Some(short) && a.get_action().takes_values());
                if valued {
                    takes = at + short.len_utf8() == shorts.len();
                    break;
                }
            }
            takes
        } else {
            if let Some(sub) = command.find_subcommand(arg) {
                words.push(sub.get_name().to_owned());
                command = sub;
            }
            false
        };
        if takes_value {
            rest.next();
        }
    }
    words.join(" ")
}

/// The file named by `--config`/`--env-file`, which must exist, or the default path,
/// which may be missing (zero configuration).
fn chosen_file(given: Option<&PathBuf>, default: &str, flag: &str) -> Result<PathBuf, Failure> {
    match given {
        None => Ok(PathBuf::from(default)),
        Some(path) if path.exists() => Ok(path.clone()),
        Some(path) => Err(Failure(format!(
            "the file {} given with {flag} does not exist; create it, or leave {flag} out \
             to read {default} (missing means built-in defaults)",
            config::layers::absolute(path.clone()).display()
        ))),
    }
}

fn run(cli: Cli, usage: impl Fn(clap::Error) -> Exit) -> Result<(), Exit> {
    if let Command::Generate(args) = &cli.command {
        args.check_usage().map_err(usage)?;
    }
    let toml_path = chosen_file(cli.config.as_ref(), "config/depot.toml", "--config")?;
    let env_file = chosen_file(cli.env_file.as_ref(), ".env.service", "--env-file")?;
    // Subcommand flags come after `--set`, so they win over it.
    let token_store = cli
        .config_format
        .clone()
        .map(|format| ("google.token_store".to_owned(), format));
    let flags: Vec<(String, String)> = cli
        .set
        .iter()
        .cloned()
        .chain(token_store)
        .chain(command_flags(&cli.command))
        .collect();
    // A setting the command line gets wrong on its own is a usage error, found before
    // anything is read or opened.
    config::layers::check_flags(&flags).map_err(|e| Exit::Usage(e.to_string()))?;
    let sources = Sources::new(toml_path, env_file, flags);
    Ok(run_command(cli.command, sources)?)
}

/// The configuration flags of a command's own options (`--listen`, `--source`, ...).
fn command_flags(command: &Command) -> Vec<(String, String)> {
    match command {
        Command::Serve(args) => args.flags(),
        Command::Generate(args) => args
            .flags()
            .into_iter()
            .chain(args.memory.flags())
            .collect(),
        Command::Import(args) => args.memory.flags(),
        Command::Diff(args) => args.memory.flags(),
        Command::Produce(args) => {
            let source = args
                .source
                .as_ref()
                .map(|path| ("producer.source".to_owned(), path.display().to_string()));
            args.data.flags().into_iter().chain(source).collect()
        }
        Command::Config(ConfigCommand::Check { data, .. })
        | Command::Files(
            FilesCommand::Add(AddArgs { data, .. })
            | FilesCommand::Import { data, .. }
            | FilesCommand::Seed { data, .. },
        ) => data.flags(),
        Command::Publish(channels::PublishArgs { data, .. })
        | Command::Rollback(channels::RollbackArgs { data, .. }) => data.flags(),
        Command::Auth(_) | Command::Completions { .. } => Vec::new(),
    }
}

fn run_command(command: Command, sources: Sources) -> Result<(), Failure> {
    match command {
        Command::Serve(_) => serve::run(sources),
        Command::Config(ConfigCommand::Check { quiet, .. }) => config_cmd::check(&sources, quiet),
        Command::Generate(ref args) => generate::run(sources, args),
        Command::Produce(ref args) => produce::run(sources, args.once, args.quiet),
        Command::Auth(ref args) if args.admin_key => auth::create_admin_key(&sources),
        Command::Auth(ref args) => auth::run(sources, !args.no_browser),
        Command::Files(FilesCommand::Add(args)) => files::add(
            &sources,
            files::AddOptions {
                permission: args.permission.parse().map_err(Failure::from)?,
                paths: args.paths,
                bucket: args.bucket,
                description: args.description,
                quiet: args.quiet,
            },
        ),
        Command::Files(FilesCommand::Import { file, quiet, .. }) => {
            files::import(&sources, file, quiet)
        }
        Command::Files(FilesCommand::Seed { count, quiet, .. }) => {
            files::seed(&sources, count, quiet)
        }
        Command::Import(ref args) => import::run(sources, args),
        Command::Diff(ref args) => diff::run(sources, args),
        Command::Publish(ref args) => channels::publish(sources, args),
        Command::Rollback(ref args) => channels::rollback(sources, args),
        Command::Completions { ref shell } => completions(shell),
    }
}

/// `depot completions bash|zsh|fish`: the completion script of the whole command line.
fn completions(shell: &str) -> Result<(), Failure> {
    use clap::CommandFactory;
    use clap_complete::Shell;
    let shell = match shell {
        "zsh" => Shell::Zsh,
        "fish" => Shell::Fish,
        _ => Shell::Bash,
    };
    // Written to a buffer first: clap_complete panics on a write error (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "depot", &mut script);
    output::bytes(&script)
}

impl ServeArgs {
    fn flags(&self) -> Vec<(String, String)> {
        [
            ("server.listen", &self.listen),
            ("server.data_dir", &self.data.data_dir),
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
) -> Result<crate::secret::Secret, Failure> {
    consent_and_save_for(settings, sources, open_browser, intro, Scope::Read).await
}

/// What a consent lets depot do with the spreadsheets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Read,
    /// `depot import --to google:…` adds a tab.
    Write,
}

/// `consent_and_save`, asking for `scope`.
async fn consent_and_save_for(
    settings: &crate::config::Settings,
    sources: &Sources,
    open_browser: bool,
    intro: &str,
    scope: Scope,
) -> Result<crate::secret::Secret, Failure> {
    let (scope, verb) = match scope {
        Scope::Read => (crate::sheets::consent::SCOPE, "read"),
        Scope::Write => (crate::sheets::consent::WRITE_SCOPE, "write to"),
    };
    let token = crate::sheets::consent::obtain_refresh_token(
        settings,
        scope,
        open_browser,
        crate::http::consent_callback::serve,
        |url| {
            let lead = if intro.is_empty() {
                String::new()
            } else {
                format!("{intro} ")
            };
            eprintln!(
                "{lead}Open this URL in a browser to let depot {verb} the spreadsheet:\n{url}"
            );
        },
    )
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
    load_config_with(sources, false)
}

/// `load_config`, silent with `--quiet` (which prints nothing on success).
fn load_config_with(sources: &Sources, quiet: bool) -> Result<Loaded, Failure> {
    let loaded = config::load(sources)?;
    if !quiet {
        for warning in &loaded.resolved.warnings {
            eprintln!("depot: warning: {warning}");
        }
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

    #[derive(Debug, thiserror::Error)]
    enum Outer {
        #[error("cannot open the store")]
        Quiet(#[source] std::io::Error),
        #[error("cannot open the store: {0}")]
        Telling(#[source] std::io::Error),
    }

    #[test]
    fn a_failure_keeps_every_cause_once() {
        let io = || std::io::Error::other("disk on fire");
        assert_eq!(
            Failure::from(Outer::Quiet(io())).0,
            "cannot open the store: caused by disk on fire"
        );
        assert_eq!(
            Failure::from(Outer::Telling(io())).0,
            "cannot open the store: disk on fire"
        );
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
