//! ios `.strings` files: `<locale>.lproj/Localizable.strings`, the base again in `Base.lproj/`.

use crate::formats::shared::files::{self, Files};

pub const FILES: Files = Files {
    base: Some(files::lproj_base),
    base_note: Some("Base.lproj/ folder is written"),
    ..Files::new(&["strings"], files::locate_lproj, files::lproj_path)
};
