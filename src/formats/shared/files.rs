//! Where a format's files sit: the file `generate` writes for a locale and its base copy,
//! and, the other way, what an app file's name says of its locale (`import`). Each
//! format's `files.rs` fills one `Files` for its line in the table; the shapes several
//! formats share are here.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::locale::{self, Hint};

/// A format's file names, both ways.
pub struct Files {
    /// The extensions `import` reads as this format: lowercase, without the dot.
    pub read_extensions: &'static [&'static str],
    /// For a format that shares its extension with another: whether a file is this
    /// format's by its name (i18next's `<lng>/<ns>.json`). Tried before the formats that
    /// take every file of the extension.
    pub claims: Option<fn(&AppFile<'_>) -> bool>,
    /// What a file's name says of its locale; `None`: a walk leaves the file out.
    pub locate: fn(&AppFile<'_>) -> Option<Located>,
    /// The file of one locale (`stem`: `--filename`; `ext`: the format's extension);
    /// `None` when the locale is not a language tag this format's names can hold (every
    /// platform with locale file or folder names wants an ISO 639 language of 2 or 3
    /// letters; extensions, `-u-…`, are refused by aapt2, and Java and .NET names have no
    /// place for them).
    pub path: fn(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf>,
    /// The base locale's extra copy, the one the platform falls back to (`values/`).
    pub base: Option<fn(stem: Option<&str>, ext: &str) -> PathBuf>,
    /// What is not written when there is no base locale (`generate`'s note).
    pub base_note: Option<&'static str>,
    /// Every locale in one file (`path` of any locale names it).
    pub one_file: bool,
    /// A file of each bare language a locale of it falls back to (ARB, gen-l10n).
    pub language_fallbacks: bool,
    /// For a format whose apps keep several namespaces in files of their own names (Java
    /// bundles, .NET resources, Apple string tables, i18next namespaces, gettext domains):
    /// the namespace of a file (SPEC §14: a tab each), the name `path` takes as its stem
    /// to write it back. `None`: an app's files of the format are one namespace.
    pub namespace: Option<Namespace>,
}

/// How a format's file names tell their namespace.
#[derive(Clone, Copy)]
pub struct Namespace {
    /// The namespace of a file, by its name.
    pub of: fn(&AppFile<'_>) -> String,
    /// The name of the files `generate` writes without `--filename`: the app's main one.
    pub main: &'static str,
}

impl Files {
    /// A format whose files are one a locale, with no base copy, none claimed by name:
    /// the other fields are for the formats that have more.
    pub const fn new(
        read_extensions: &'static [&'static str],
        locate: fn(&AppFile<'_>) -> Option<Located>,
        path: fn(&str, Option<&str>, &str) -> Option<PathBuf>,
    ) -> Files {
        Files {
            read_extensions,
            claims: None,
            locate,
            path,
            base: None,
            base_note: None,
            one_file: false,
            language_fallbacks: false,
            namespace: None,
        }
    }
}

/// A file `import` may read, by its name.
pub struct AppFile<'a> {
    pub path: &'a Path,
    pub stem: &'a str,
    /// The name of its folder, and of that folder's folder.
    pub parent: &'a str,
    pub grandparent: &'a str,
    /// Every file of the walk; `None`: named on the command line, so read whatever its name.
    pub walked: Option<&'a HashSet<PathBuf>>,
}

impl AppFile<'_> {
    /// Named on the command line rather than found by a walk.
    pub fn explicit(&self) -> bool {
        self.walked.is_none()
    }

    /// The locale code `text` is; in a walk, names like `web` or `app` are not taken for
    /// locales.
    pub fn code(&self, text: &str) -> Option<String> {
        if self.explicit() {
            locale::code(text)
        } else {
            locale::likely_code(text)
        }
    }

    /// The code after the stem's last `.` (`messages.pl`), or the whole stem (`pl`).
    pub fn dotted_stem(&self) -> Option<String> {
        self.stem.rsplit('.').next().and_then(|s| self.code(s))
    }
}

/// What a file's name says of its locale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub hint: Hint,
    /// For an android folder of another configuration (`values-land`): its qualifiers.
    pub configuration: Option<String>,
}

impl From<Hint> for Located {
    fn from(hint: Hint) -> Located {
        Located {
            hint,
            configuration: None,
        }
    }
}

/// A code, or no hint.
pub fn code_or_none(code: Option<String>) -> Hint {
    code.map_or(Hint::None, Hint::Code)
}

/// The stem of `messages_path` without `--filename`.
pub const MESSAGES: &str = "messages";

/// `messages.<locale>.<ext>`, `<stem>.<locale>.<ext>` with `--filename` (yml, xlf, po).
pub fn messages_path(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    Some(PathBuf::from(format!(
        "{}.{locale}.{ext}",
        stem.unwrap_or(MESSAGES)
    )))
}

/// A file named `<locale>.<ext>` or `<stem>.<locale>.<ext>` (json, yml): the locale from
/// the name; a walk leaves out a file whose name holds none.
pub fn locate_dotted(file: &AppFile<'_>) -> Option<Located> {
    match file.dotted_stem() {
        Some(code) => Some(Hint::Code(code).into()),
        None if file.explicit() => Some(Hint::None.into()),
        None => None,
    }
}

/// Apple's `<locale>.lproj/<stem>.<ext>` (ios, stringsdict): the folder's tag with the
/// region dropped when it only repeats the language (`pl_PL` → `pl.lproj`).
pub fn lproj_path(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    let tag = crate::model::langtag::folded(locale)?;
    Some(
        PathBuf::from(format!("{tag}.lproj"))
            .join(format!("{}.{ext}", stem.unwrap_or("Localizable"))),
    )
}

/// `Base.lproj/`: the development language's copy.
pub fn lproj_base(stem: Option<&str>, ext: &str) -> PathBuf {
    PathBuf::from("Base.lproj").join(format!("{}.{ext}", stem.unwrap_or("Localizable")))
}

/// A file in a `<locale>.lproj` folder; a walk leaves out the others.
pub fn locate_lproj(file: &AppFile<'_>) -> Option<Located> {
    match locale::lproj(file.parent) {
        Some(hint) => Some(hint.into()),
        None if file.explicit() => Some(Hint::None.into()),
        None => None,
    }
}

/// The namespace of a file named `<namespace>.<ext>` (Apple's string tables: `InfoPlist` in
/// `de.lproj/InfoPlist.strings`; String Catalogs).
pub fn stem_namespace(file: &AppFile<'_>) -> String {
    file.stem.to_owned()
}

/// The namespace of a file named `<namespace>.<locale>` or `<namespace>` (`messages.pl`,
/// `Strings.pl-PL`, gettext's `LC_MESSAGES/app`), `main` for a stem that is a locale alone
/// (`pl.po`).
pub fn dotted_namespace(file: &AppFile<'_>, main: &str) -> String {
    match locale::dotted_stem(file.stem) {
        Some(_) => match file.stem.rsplit_once('.') {
            Some((name, _)) => name.to_owned(),
            None => main.to_owned(),
        },
        None => file.stem.to_owned(),
    }
}
