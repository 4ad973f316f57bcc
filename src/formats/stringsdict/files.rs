//! `.stringsdict` files: beside ios's `.strings`, in the same `.lproj` folders.

use crate::formats::shared::files::{self, Files};

pub const FILES: Files = Files {
    read_extensions: &["stringsdict"],
    claims: None,
    locate: files::locate_lproj,
    path: files::lproj_path,
    base: Some(files::lproj_base),
    // said once, by ios, whose plural side it is
    base_note: None,
    one_file: false,
    language_fallbacks: false,
};
