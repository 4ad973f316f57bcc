//! ARB files: Flutter's `lib/l10n/app_<locale>.arb`, and a file for each bare language a
//! locale falls back to.

use std::path::PathBuf;

use crate::formats::shared::files::{self, AppFile, Files, Located};
use crate::formats::shared::locale;

pub const FILES: Files = Files {
    language_fallbacks: true,
    ..Files::new(&["arb"], locate, path)
};

/// The locale after the stem's last `_`, as gen-l10n reads it from the file name (and
/// `@@locale` says again).
fn path(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    let locale = crate::model::langtag::folded(locale)?
        .to_string()
        .replace('-', "_");
    Some(PathBuf::from(format!(
        "{}_{locale}.{ext}",
        stem.unwrap_or("app")
    )))
}

fn locate(file: &AppFile<'_>) -> Option<Located> {
    Some(files::code_or_none(locale::underscored_suffix(file.stem)).into())
}
