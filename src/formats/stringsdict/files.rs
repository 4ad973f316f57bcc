//! `.stringsdict` files: beside ios's `.strings`, in the same `.lproj` folders.

use crate::formats::shared::files::{self, Files};

pub const FILES: Files = Files {
    base: Some(files::lproj_base),
    // the plural entries of a table sit in a file of its name
    namespace: Some(crate::formats::strings::files::TABLES),
    ..Files::new(&["stringsdict"], files::locate_lproj, files::lproj_path)
};
