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
    match lc_messages(file) {
        Some(_) => file.stem.to_owned(),
        None => files::dotted_namespace(file, files::MESSAGES),
    }
}

/// gettext's tree `<locale>/LC_MESSAGES/<domain>.po`: the locale is the folder's, whatever
/// the domain is named (`app`, `gl`: names that are also language codes).
fn lc_messages(file: &AppFile<'_>) -> Option<String> {
    (file.parent == "LC_MESSAGES")
        .then(|| locale::code(file.grandparent))
        .flatten()
}

fn locate(file: &AppFile<'_>) -> Option<Located> {
    Some(
        // locale/pl/LC_MESSAGES/app.po, messages.pl.po
        match lc_messages(file).or_else(|| locale::dotted_stem(file.stem)) {
            Some(code) => Hint::Code(code),
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
