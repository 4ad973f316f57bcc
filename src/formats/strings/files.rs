//! ios `.strings` files: `<locale>.lproj/Localizable.strings`, the base again in `Base.lproj/`.

use crate::formats::shared::files::{self, Files, Namespace};

/// A table's name (`Localizable`, `InfoPlist`, `Main`) is its namespace.
pub const TABLES: Namespace = Namespace {
    of: files::stem_namespace,
    main: "Localizable",
};

pub const FILES: Files = Files {
    base: Some(files::lproj_base),
    base_note: Some("Base.lproj/ folder is written"),
    namespace: Some(TABLES),
    ..Files::new(&["strings"], files::locate_lproj, files::lproj_path)
};
