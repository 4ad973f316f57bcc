//! xlf files: `messages.<locale>.xlf`.

use crate::formats::reading::Key;
use crate::formats::shared::files::{self, AppFile, Files, Located};
use crate::formats::shared::flatten::{NameStyle, unprefixed_name};
use crate::formats::shared::locale;
use crate::formats::shared::names;

pub const FILES: Files = Files::new(&["xlf", "xliff"], locate, files::messages_path);

fn locate(file: &AppFile<'_>) -> Option<Located> {
    Some(files::code_or_none(locale::dotted_stem(file.stem)).into())
}

/// An id read as a dotted path is depot's path joined with `.`; others are plain names.
pub const KEY_NAMES: names::KeyNames = names::flat(|path, key| match key {
    Some(Key::Dotted(_)) => Some(path.join(".")),
    _ => Some(unprefixed_name(path, NameStyle::Plain)),
});
