//! po files: `messages.<locale>.po`; import also reads gettext's `<locale>/LC_MESSAGES/`.

use std::path::PathBuf;

use crate::formats::shared::files::{self, AppFile, Files, Located};
use crate::formats::shared::locale::{self, Hint};

pub const FILES: Files = Files {
    read_extensions: &["po"],
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
    Some(
        match locale::dotted_stem(file.stem) {
            Some(code) => Hint::Code(code),
            // locale/pl/LC_MESSAGES/app.po
            None if file.parent == "LC_MESSAGES" => {
                files::code_or_none(locale::code(file.grandparent))
            }
            None => Hint::None,
        }
        .into(),
    )
}
