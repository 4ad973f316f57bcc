//! yml files: `messages.<locale>.yml`; a walk takes `<locale>.yml` (Rails' `config/locales`).

use crate::formats::shared::files::{self, Files};

pub const FILES: Files = Files::new(&["yml", "yaml"], files::locate_dotted, files::messages_path);
