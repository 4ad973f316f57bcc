//! `depot produce --once`: one sync of the spreadsheet into the translations store.

use super::{Failure, load_config};
use crate::config::Sources;
use crate::config::settings::SheetSource;
use crate::translations::service::TranslationService;
use crate::translations::sheet;
use crate::translations::store::PutOutcome;
use std::path::PathBuf;

pub fn run(sources: &Sources, once: bool, source: Option<PathBuf>) -> Result<(), Failure> {
    if !once {
        return Err(Failure(
            "the sync loop is not implemented yet in this version; run `depot produce --once` (e.g. from cron)".into(),
        ));
    }
    let settings = load_config(sources)?.settings;
    let path = match (source, &settings.producer.source) {
        (Some(path), _) => path,
        (None, SheetSource::LocalFile(path)) => path.clone(),
        (None, SheetSource::Google) => {
            return Err(Failure(
                "the Google Sheets source is not implemented yet in this version; pass --source FILE.csv or set producer.source to a local sheet".into(),
            ));
        }
    };
    let grid = crate::sheets::local::read_grid(&path)?;
    let document = sheet::convert(&grid)?;
    for warning in &document.warnings {
        eprintln!("depot: warning: {} {}", warning.cell, warning.message);
    }
    let keys = document.entries.len();
    let locales = document.locales.len();
    let service = TranslationService::open(&settings.translations).map_err(|e| {
        Failure(format!(
            "{e} (a running `depot serve` holds the sled store: stop it, or let its producer sync)"
        ))
    })?;
    let outcome = service.put(document)?;
    service.flush()?;
    let version = service
        .current()
        .map(|live| live.stored.version.clone())
        .unwrap_or_default();
    match outcome {
        PutOutcome::Stored => println!(
            "stored version {version} ({keys} keys, {locales} locales) from {}",
            path.display()
        ),
        PutOutcome::Unchanged => println!("unchanged: version {version} is current"),
    }
    Ok(())
}
