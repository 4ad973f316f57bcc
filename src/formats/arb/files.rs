//! ARB files: Flutter's `lib/l10n/app_<locale>.arb`, and a file for each bare language a
//! locale falls back to; the app's `l10n.yaml`, which says how its apostrophes read.

use std::path::{Path, PathBuf};

use crate::formats::shared::files::{self, AppFile, Files, Located};
use crate::formats::shared::locale;

pub const FILES: Files = Files {
    language_fallbacks: true,
    ..Files::new(&["arb"], locate, path)
};

/// The locale after the stem's last `_`, as gen-l10n reads it from the file name (and
/// `@@locale` says again).
fn path(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    let locale = crate::model::langtag::folded(locale)?
        .to_string()
        .replace('-', "_");
    Some(PathBuf::from(format!(
        "{}_{locale}.{ext}",
        stem.unwrap_or("app")
    )))
}

fn locate(file: &AppFile<'_>) -> Option<Located> {
    Some(files::code_or_none(locale::underscored_suffix(file.stem)).into())
}

/// Whether gen-l10n reads the ARB files of `folder` without `use-escaping` (apostrophes as
/// text): what the `l10n.yaml` nearest above says, gen-l10n reading it from the project
/// root. The walk stops at the project root (the folder with `pubspec.yaml`); no
/// `l10n.yaml`, or one without the key, is gen-l10n's default: plain.
pub(crate) fn reads_plain(folder: &Path) -> bool {
    for dir in folder.ancestors() {
        if let Ok(yaml) = std::fs::read_to_string(dir.join("l10n.yaml")) {
            return !use_escaping(&yaml);
        }
        if dir.join("pubspec.yaml").is_file() {
            break;
        }
    }
    true
}

/// The top-level `use-escaping:` of an `l10n.yaml` is true (a line parse: the file is a
/// flat map of options).
fn use_escaping(yaml: &str) -> bool {
    yaml.lines().any(|line| {
        let Some(value) = line.strip_prefix("use-escaping") else {
            return false;
        };
        let Some(value) = value.trim_start().strip_prefix(':') else {
            return false;
        };
        let value = value.split(" #").next().unwrap_or_default().trim();
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        matches!(value, "true" | "True" | "TRUE")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l10n_yaml_says_whether_apostrophes_are_text() {
        assert!(use_escaping("arb-dir: lib/l10n\nuse-escaping: true\n"));
        assert!(use_escaping("use-escaping : true # quotes\r\n"));
        assert!(!use_escaping("use-escaping: false\n"));
        assert!(!use_escaping("arb-dir: lib/l10n\n# use-escaping: true\n"));
        assert!(!use_escaping("nested:\n  use-escaping: true\n"));
        let app = tempfile::tempdir().unwrap();
        let arb = app.path().join("lib/l10n");
        std::fs::create_dir_all(&arb).unwrap();
        // no l10n.yaml up to the project root: gen-l10n's default
        std::fs::write(app.path().join("pubspec.yaml"), "name: app\n").unwrap();
        assert!(reads_plain(&arb));
        std::fs::write(app.path().join("l10n.yaml"), "use-escaping: true\n").unwrap();
        assert!(!reads_plain(&arb));
        std::fs::write(app.path().join("l10n.yaml"), "arb-dir: lib/l10n\n").unwrap();
        assert!(reads_plain(&arb));
    }
}
