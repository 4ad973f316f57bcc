//! i18next files: `locales/{{lng}}/{{ns}}.json`.

use std::path::PathBuf;

use crate::formats::shared::files::{self, AppFile, Files, Located};
use crate::formats::shared::locale::Hint;

pub const FILES: Files = Files {
    read_extensions: &["json"],
    claims: Some(claims),
    locate,
    path,
    base: None,
    base_note: None,
    one_file: false,
    language_fallbacks: false,
};

/// `--filename` names the namespace.
fn path(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    Some(
        PathBuf::from(super::write::language(locale))
            .join(format!("{}.{ext}", stem.unwrap_or(super::write::NAMESPACE))),
    )
}

/// A `.json` in a folder named as a locale, its own name no locale (`en-US/translation.json`).
fn claims(file: &AppFile<'_>) -> bool {
    file.code(file.parent).is_some() && file.dotted_stem().is_none()
}

fn locate(file: &AppFile<'_>) -> Option<Located> {
    Some(
        match file.code(file.parent) {
            Some(code) => Hint::Code(code),
            None => files::code_or_none(file.dotted_stem()),
        }
        .into(),
    )
}
