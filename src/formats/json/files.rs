//! json files: `<locale>.json`, or `<stem>.<locale>.json` with `--filename`.

use std::path::PathBuf;

use crate::formats::shared::files::{self, Files};

pub const FILES: Files = Files::new(&["json"], files::locate_dotted, path);

/// `--filename` replaces the `<locale>` stem; the locale stays in the name (as for
/// yml/xlf/po) so that several locales do not overwrite one file.
fn path(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    Some(PathBuf::from(match stem {
        Some(stem) => format!("{stem}.{locale}.{ext}"),
        None => format!("{locale}.{ext}"),
    }))
}
