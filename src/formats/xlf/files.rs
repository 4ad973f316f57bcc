//! xlf files: `messages.<locale>.xlf`.

use std::path::PathBuf;

use crate::formats::shared::files::{self, AppFile, Files, Located};
use crate::formats::shared::locale;

pub const FILES: Files = Files {
    read_extensions: &["xlf", "xliff"],
    claims: None,
    locate,
    path,
    base: None,
    base_note: None,
    one_file: false,
    language_fallbacks: false,
};

fn path(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    Some(files::dotted_path(locale, stem, "messages", ext))
}

fn locate(file: &AppFile<'_>) -> Option<Located> {
    Some(files::code_or_none(locale::dotted_stem(file.stem)).into())
}
