//! po files: `messages.<locale>.po`; import also reads gettext's `<locale>/LC_MESSAGES/`.

use crate::formats::reading::Key;
use crate::formats::shared::files::{self, AppFile, Files, Located, Namespace};
use crate::formats::shared::flatten::{NameStyle, unprefixed_name};
use crate::formats::shared::locale::{self, Hint};
use crate::formats::shared::names::KeyNames;

pub const FILES: Files = Files {
    // a gettext domain (`LC_MESSAGES/app.po`, `errors.po`; `messages.pl.po`)
    namespace: Some(Namespace {
        of: namespace,
        main: files::MESSAGES,
    }),
    ..Files::new(&["po"], locate, files::messages_path)
};

fn namespace(file: &AppFile<'_>) -> String {
    files::dotted_namespace(file, files::MESSAGES)
}

fn locate(file: &AppFile<'_>) -> Option<Located> {
    Some(
        match locale::dotted_stem(file.stem) {
            Some(code) => Hint::Code(code),
            // locale/pl/LC_MESSAGES/app.po
            None if file.parent == "LC_MESSAGES" => {
                files::code_or_none(locale::code(file.grandparent))
            }
            None => Hint::None,
        }
        .into(),
    )
}

/// gettext keys a catalog by `msgctxt\u{4}msgid`.
pub const KEY_NAMES: KeyNames = KeyNames {
    app: |key| match key {
        Key::Path(levels) => Some(levels.join("\u{4}")),
        // depot's own po: msgctxt and msgid both the name
        Key::Flat(name) => Some(format!("{name}\u{4}{name}")),
        Key::Dotted(name) => Some(name.clone()),
    },
    // po writes the name as msgctxt and msgid (the name a sheet gives is written so)
    depot: |path, _| {
        let name = unprefixed_name(path, NameStyle::Plain);
        Some(format!("{name}\u{4}{name}"))
    },
};
