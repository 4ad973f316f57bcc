//! i18next files: `locales/{{lng}}/{{ns}}.json`.

use crate::formats::reading::Key;
use crate::formats::shared::names::KeyNames;
use std::path::PathBuf;

use crate::formats::shared::files::{self, AppFile, Files, Located, Namespace};
use crate::formats::shared::locale::Hint;

pub const FILES: Files = Files {
    claims: Some(claims),
    namespace: Some(Namespace {
        of: namespace,
        main: super::write::NAMESPACE,
    }),
    ..Files::new(&["json"], locate, path)
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

/// `<lng>/<ns>.json`: the file's name (a file named by its locale holds the default one).
fn namespace(file: &AppFile<'_>) -> String {
    match file.code(file.parent) {
        Some(_) => file.stem.to_owned(),
        None => files::dotted_namespace(file, super::write::NAMESPACE),
    }
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

/// An app with `keySeparator: false` looks a key of one level up whole; deeper keys are
/// paths the file nests.
pub const KEY_NAMES: KeyNames = KeyNames {
    app: |key| match key {
        Key::Path(levels) if levels.len() == 1 => Some(levels[0].clone()),
        Key::Dotted(key) if !key.contains('.') => Some(key.clone()),
        _ => None,
    },
    // its one level, or one no key of one level could have (the levels joined with
    // U+001F, which no app's key holds)
    depot: |path, _| {
        Some(match path {
            [only] => only.clone(),
            _ => path.join("\u{1F}"),
        })
    },
};
