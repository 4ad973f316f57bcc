//! The String Catalog: one `Localizable.xcstrings` holds every language.

use std::path::PathBuf;

use crate::formats::shared::files::{self, AppFile, Files, Located, Namespace};
use crate::formats::shared::locale::Hint;

pub const FILES: Files = Files {
    one_file: true,
    // a catalog is a table (`Localizable.xcstrings`, `InfoPlist.xcstrings`)
    namespace: Some(Namespace {
        of: files::stem_namespace,
        main: "Localizable",
    }),
    ..Files::new(&["xcstrings"], locate, path)
};

fn path(_locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    Some(PathBuf::from(format!(
        "{}.{ext}",
        stem.unwrap_or("Localizable")
    )))
}

/// The catalog names its languages itself.
fn locate(_file: &AppFile<'_>) -> Option<Located> {
    Some(Hint::None.into())
}
