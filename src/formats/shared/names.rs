//! How an app's code names a key, for the sheet's name columns (`import`): from a unit
//! read (`app`), and from a key path as depot names it (`depot`). Each format's line in
//! the table holds one `KeyNames`; the shapes most formats share are here.

use super::flatten::{NameStyle, unprefixed_name};
use crate::formats::reading::Key;

/// A format's key names, both ways.
pub struct KeyNames {
    /// The key as the app's code names it; `None`: the file nests it as a path.
    pub app: fn(&Key) -> Option<String>,
    /// The name depot gives `path` when the sheet names it no other way, as `app` reads
    /// it back (`key`: the unit read, when there is one); `None`: none.
    pub depot: fn(&[String], Option<&Key>) -> Option<String>,
}

/// json and yml: keys are paths the file nests, which no name column names.
pub const PATHS: KeyNames = KeyNames {
    app: |_| None,
    depot: |_, _| None,
};
/// Flat names, lower-cased (ios, stringsdict, xcstrings).
pub const PLAIN: KeyNames = flat(|path, _| Some(unprefixed_name(path, NameStyle::Plain)));
pub const ANDROID: KeyNames = flat(|path, _| Some(unprefixed_name(path, NameStyle::Android)));
pub const DOTTED: KeyNames = flat(|path, _| Some(unprefixed_name(path, NameStyle::Dotted)));
pub const CSHARP: KeyNames = flat(|path, _| Some(unprefixed_name(path, NameStyle::CSharp)));
pub const ARB: KeyNames = flat(|path, _| Some(unprefixed_name(path, NameStyle::Arb)));

/// Names as the file writes them, depot's from `depot`.
pub const fn flat(depot: fn(&[String], Option<&Key>) -> Option<String>) -> KeyNames {
    KeyNames {
        app: written_name,
        depot,
    }
}

/// The name as the file writes it: a flat or dotted name, or levels joined with `.`.
pub fn written_name(key: &Key) -> Option<String> {
    Some(match key {
        Key::Flat(name) | Key::Dotted(name) => name.clone(),
        Key::Path(levels) => levels.join("."),
    })
}
