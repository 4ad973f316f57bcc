//! `depot config check`: load, validate, print the effective values with secrets masked.
//! The listing opens with the files it read, or says that a file is missing (then built-in
//! defaults apply), and a local sheet named by `producer.source` must exist.

use super::{Failure, load_config_with, output};
use crate::config::layers::absolute;
use crate::config::settings::SheetSource;
use crate::config::{self, Settings, Sources};

pub fn check(sources: &Sources, quiet: bool) -> Result<(), Failure> {
    let loaded = load_config_with(sources, quiet)?;
    check_files(&loaded.settings)?;
    if quiet {
        return Ok(());
    }
    let read = |path: &std::path::Path, what: &str, missing: &str| {
        if path.exists() {
            format!("# {what}: {}", path.display())
        } else {
            format!("# no {what} at {}; {missing}", path.display())
        }
    };
    output::line(read(
        &sources.toml_path,
        "config file",
        "using the built-in defaults where the environment and the command line set nothing",
    ))?;
    output::line(read(&sources.env_file, "env file", "reading none"))?;
    output::line("# configuration is valid")?;
    for line in config::describe(&loaded) {
        output::line(line)?;
    }
    Ok(())
}

/// The files the configuration names that a command would read at once: a local sheet
/// must exist (a daemon would only log its absence at every sync).
fn check_files(settings: &Settings) -> Result<(), Failure> {
    if let SheetSource::LocalFile(path) = &settings.producer.source
        && !path.is_file()
    {
        return Err(Failure(format!(
            "producer.source (env DEPOT_PRODUCER_SOURCE) names {}, which is not a file: put \
             the sheet (.csv, .xlsx or .ods) there, or set producer.source to \"google\", \
             \"example\" or the http(s):// URL of a CSV",
            absolute(path.clone()).display()
        )));
    }
    Ok(())
}
