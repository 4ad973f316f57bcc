//! Which files to read, in which format, and what their names say about their locale.
//! A file named on the command line is read whatever its name (its format from its
//! extension, or `--format`); a folder is walked for files named as apps name their
//! translations (android `values*/`, `*.lproj/`, `<locale>.json`, `<lng>/<ns>.json`,
//! `*.po`, `*.xlf`, `<locale>.yml`, bundles `name_<locale>.properties`, `*.resx`, `*.arb`,
//! `*.xcstrings`), skipping build output, dependencies and hidden folders. With
//! `--format`, a walk takes the files of that format's extensions only (a LICENSE or a
//! README beside the translations is skipped, and counted).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{ImportError, Options};
use crate::formats::shared::files::AppFile;
use crate::formats::shared::locale::Hint;
use crate::formats::{Format, TABLE};

/// A file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    /// How messages name it.
    pub shown: String,
    pub format: Format,
    pub hint: Hint,
    /// For an android folder of another configuration (`values-land`): its qualifiers.
    pub configuration: Option<String>,
    /// Its namespace, for a format whose files name one (`Files::namespace`: the bundle
    /// `sidepanel` of `sidepanel_de.properties`); `None` for the others.
    pub namespace: Option<String>,
}

/// The namespaces `files` name (`Found::namespace`), each once, in name order.
pub fn namespace_names<'f>(files: impl IntoIterator<Item = &'f Found>) -> Vec<&'f str> {
    let mut names: Vec<&str> = (files.into_iter())
        .filter_map(|f| f.namespace.as_deref())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Folders never walked into: build output, dependencies, version control.
const SKIPPED_FOLDERS: [&str; 7] = [
    "node_modules",
    "build",
    "target",
    "Pods",
    "DerivedData",
    "Carthage",
    "vendor",
];

/// Every file to read under `paths`, in path order within each argument.
pub fn discover(paths: &[PathBuf], options: &Options) -> Result<Vec<Found>, ImportError> {
    Ok(discover_counting(paths, options)?.0)
}

/// The extensions of `format`'s files, for a walk told the format (`--format`).
fn extensions(format: Format) -> &'static [&'static str] {
    match format {
        Format::Android => &["xml"],
        // the plural entries beside the .strings files: read as what they are
        Format::Ios => &["strings", "stringsdict"],
        Format::Stringsdict => &["stringsdict"],
        Format::Json | Format::I18next => &["json"],
        Format::Yml => &["yml", "yaml"],
        Format::Po => &["po"],
        Format::Xlf => &["xlf", "xliff"],
        Format::Xcstrings => &["xcstrings"],
        Format::Arb => &["arb"],
        Format::Properties => &["properties"],
        Format::Resx => &["resx"],
    }
}

/// As `discover`, with the files (as messages name them) a walk told the format
/// (`--format`) skipped because their extension is another format's, or none.
pub fn discover_counting(
    paths: &[PathBuf],
    options: &Options,
) -> Result<(Vec<Found>, Vec<String>), ImportError> {
    let mut skipped = Vec::new();
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    for path in paths {
        let shown = super::shown(path);
        let meta = std::fs::metadata(path).map_err(|_| ImportError::Missing {
            path: shown.clone(),
        })?;
        let before = found.len();
        if meta.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files).map_err(|source| ImportError::Io {
                path: shown.clone(),
                source,
            })?;
            files.sort();
            let names: HashSet<PathBuf> = files.iter().cloned().collect();
            for file in files {
                let forced = match options.format {
                    Some(format) if !extensions(format).contains(&extension(&file).as_str()) => {
                        skipped.push(super::shown(&file));
                        continue;
                    }
                    Some(Format::Ios) if extension(&file) == "stringsdict" => {
                        Some(Format::Stringsdict)
                    }
                    forced => forced,
                };
                if let Some(f) = classify(&file, forced, Some(&names)) {
                    found.push(f);
                }
            }
        } else {
            match classify(path, options.format, None) {
                Some(f) => found.push(f),
                None => {
                    return Err(ImportError::UnknownFormat {
                        path: shown,
                        what: unknown_reason(path),
                    });
                }
            }
        }
        // the same file named twice (a folder and a file in it) is read once
        let mut index = before;
        while index < found.len() {
            if seen.insert(found[index].path.clone()) {
                index += 1;
            } else {
                found.remove(index);
            }
        }
    }
    if found.is_empty() {
        let paths = paths
            .iter()
            .map(|p| super::shown(p))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(ImportError::NothingFound { paths });
    }
    Ok((found, skipped))
}

fn unknown_reason(path: &Path) -> String {
    match extension(path).as_str() {
        "pot" => "a .pot template holds no translations".to_owned(),
        "" => "it has no extension".to_owned(),
        ext => format!("the extension .{ext} is not a translation format"),
    }
}

fn walk(folder: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        // no symbolic links to folders: a link back up would never end
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if !SKIPPED_FOLDERS.contains(&name.as_ref()) {
                walk(&entry.path(), files)?;
            }
        } else if kind.is_file() || (kind.is_symlink() && entry.path().is_file()) {
            files.push(entry.path());
        }
    }
    Ok(())
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

fn name_of(path: Option<&Path>) -> &str {
    path.and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("")
}

/// The format and locale hint of `path`; `walked` holds every file of the walk (`None`:
/// the file was named on the command line, so it is read whatever its name). `None` when
/// the file is not one to read. Each format's `files` says which names are its own.
fn classify(
    path: &Path,
    forced: Option<Format>,
    walked: Option<&HashSet<PathBuf>>,
) -> Option<Found> {
    let ext = extension(path);
    let file = AppFile {
        path,
        stem: path.file_stem().and_then(|s| s.to_str()).unwrap_or(""),
        parent: name_of(path.parent()),
        grandparent: name_of(path.parent().and_then(Path::parent)),
        walked,
    };
    let format = match forced {
        Some(format) => format,
        None => format_of(&ext, &file)?,
    };
    let files = format.descriptor().files;
    let located = (files.locate)(&file)?;
    Some(Found {
        path: path.to_owned(),
        shown: super::shown(path),
        format,
        hint: located.hint,
        configuration: located.configuration,
        namespace: files.namespace.map(|namespace| (namespace.of)(&file)),
    })
}

/// The format whose files have extension `ext`: one that claims `file` by its name
/// (i18next's `<lng>/<ns>.json`), else the one that takes every file of it.
fn format_of(ext: &str, file: &AppFile<'_>) -> Option<Format> {
    let of_ext = || (TABLE.iter()).filter(|d| d.files.read_extensions.contains(&ext));
    (of_ext().find(|d| d.files.claims.is_some_and(|claims| claims(file))))
        .or_else(|| of_ext().find(|d| d.files.claims.is_none()))
        .map(|d| d.format)
}

/// A file that is not on disk (`diff`'s rendering of the sheet), told by the path
/// `generate` gives it.
pub fn virtual_file(path: &Path, format: Format) -> Found {
    classify(path, Some(format), None).unwrap_or_else(|| Found {
        path: path.to_owned(),
        shown: super::shown(path),
        format,
        hint: Hint::None,
        configuration: None,
        namespace: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(root: &Path, files: &[&str]) {
        for file in files {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
    }

    #[test]
    fn a_walk_finds_translation_files_by_their_names_only() {
        let dir = tempfile::tempdir().unwrap();
        touch(
            dir.path(),
            &[
                "app/src/main/res/values/strings.xml",
                "app/src/main/res/values-pl/strings.xml",
                "app/src/main/res/values-land/strings.xml",
                "app/src/main/res/layout/main.xml",
                "app/build/intermediates/values/strings.xml",
                "ios/pl.lproj/Localizable.strings",
                "ios/Base.lproj/Localizable.stringsdict",
                "web/package.json",
                "web/locales/en-US/translation.json",
                "web/i18n/pl_PL.json",
                "config/locales/pl.yml",
                ".github/workflows/ci.yml",
                "po/messages.de.po",
                "java/messages.properties",
                "java/messages_pl.properties",
                "gradle.properties",
                "node_modules/x/en.json",
            ],
        );
        let found = discover(&[dir.path().to_owned()], &Options::default()).unwrap();
        let got: Vec<(String, Format, Hint, Option<String>)> = found
            .iter()
            .map(|f| {
                let rel = f
                    .path
                    .strip_prefix(dir.path())
                    .unwrap()
                    .display()
                    .to_string();
                (rel, f.format, f.hint.clone(), f.configuration.clone())
            })
            .collect();
        let code = |c: &str| Hint::Code(c.to_owned());
        assert_eq!(
            got,
            vec![
                (
                    "app/src/main/res/values/strings.xml".into(),
                    Format::Android,
                    Hint::Base,
                    None
                ),
                (
                    "app/src/main/res/values-land/strings.xml".into(),
                    Format::Android,
                    Hint::None,
                    Some("land".into())
                ),
                (
                    "app/src/main/res/values-pl/strings.xml".into(),
                    Format::Android,
                    code("pl"),
                    None
                ),
                (
                    "config/locales/pl.yml".into(),
                    Format::Yml,
                    code("pl"),
                    None
                ),
                (
                    "ios/Base.lproj/Localizable.stringsdict".into(),
                    Format::Stringsdict,
                    Hint::Base,
                    None
                ),
                (
                    "ios/pl.lproj/Localizable.strings".into(),
                    Format::Ios,
                    code("pl"),
                    None
                ),
                (
                    "java/messages.properties".into(),
                    Format::Properties,
                    Hint::Base,
                    None
                ),
                (
                    "java/messages_pl.properties".into(),
                    Format::Properties,
                    code("pl"),
                    None
                ),
                ("po/messages.de.po".into(), Format::Po, code("de"), None),
                (
                    "web/i18n/pl_PL.json".into(),
                    Format::Json,
                    code("pl_PL"),
                    None
                ),
                (
                    "web/locales/en-US/translation.json".into(),
                    Format::I18next,
                    code("en-US"),
                    None
                ),
            ]
        );
    }

    /// A file's namespace as its format's apps name it: a bundle, a resource set, a string
    /// table, an i18next namespace, a gettext domain; none for the formats whose files are
    /// one namespace.
    #[test]
    fn the_namespace_of_a_file_is_told_by_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("java/sidepanel_pt_BR.properties", Some("sidepanel")),
            ("java/sidepanel.properties", Some("sidepanel")),
            ("java/my_app_de.properties", Some("my_app")),
            ("dotnet/Resources.de-DE.resx", Some("Resources")),
            ("dotnet/Strings.resx", Some("Strings")),
            ("ios/de.lproj/InfoPlist.strings", Some("InfoPlist")),
            (
                "ios/Base.lproj/Localizable.stringsdict",
                Some("Localizable"),
            ),
            ("ios/Settings.xcstrings", Some("Settings")),
            ("locales/en-US/common.json", Some("common")),
            ("locale/de/LC_MESSAGES/errors.po", Some("errors")),
            // a domain that is also a language code: the folder names the locale
            ("locale/pl/LC_MESSAGES/app.po", Some("app")),
            ("po/messages.de.po", Some("messages")),
            ("po2/de.po", Some("messages")),
            ("res/values-de/strings.xml", None),
            ("web/de.json", None),
            ("l10n/app_de.arb", None),
        ];
        touch(dir.path(), &files.map(|(f, _)| f));
        let found = discover(&[dir.path().to_owned()], &Options::default()).unwrap();
        for (file, namespace) in files {
            let f = (found.iter())
                .find(|f| f.path.ends_with(file))
                .unwrap_or_else(|| panic!("{file} not found"));
            assert_eq!(f.namespace.as_deref(), namespace, "{file}");
        }
    }

    #[test]
    fn named_files_are_read_whatever_their_names() {
        let dir = tempfile::tempdir().unwrap();
        touch(dir.path(), &["strings.xml", "notes.txt", "app.pot"]);
        let one = |name: &str| discover(&[dir.path().join(name)], &Options::default());
        let found = one("strings.xml").unwrap();
        assert_eq!(
            (found[0].format, &found[0].hint),
            (Format::Android, &Hint::None)
        );
        assert!(matches!(
            one("notes.txt"),
            Err(ImportError::UnknownFormat { .. })
        ));
        let err = one("app.pot").unwrap_err().to_string();
        assert!(
            err.contains("a .pot template holds no translations"),
            "{err}"
        );
        assert!(matches!(
            one("missing.xml"),
            Err(ImportError::Missing { .. })
        ));
    }
}
