//! yml files: `messages.<locale>.yml`; a walk takes `<locale>.yml` (Rails' `config/locales`).

use std::path::PathBuf;

use crate::formats::shared::files::{self, Files};

pub const FILES: Files = Files {
    read_extensions: &["yml", "yaml"],
    claims: None,
    locate: files::locate_dotted,
    path,
    base: None,
    base_note: None,
    one_file: false,
    language_fallbacks: false,
};

fn path(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    Some(files::dotted_path(locale, stem, "messages", ext))
}
