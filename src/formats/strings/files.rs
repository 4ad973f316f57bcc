//! ios `.strings` files: `<locale>.lproj/Localizable.strings`, the base again in `Base.lproj/`.

use crate::formats::shared::files::{self, Files};

pub const FILES: Files = Files {
    read_extensions: &["strings"],
    claims: None,
    locate: files::locate_lproj,
    path: files::lproj_path,
    base: Some(files::lproj_base),
    base_note: Some("Base.lproj/ folder is written"),
    one_file: false,
    language_fallbacks: false,
};
