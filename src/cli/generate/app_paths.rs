//! Where an app already keeps a locale's file under another spelling (SPEC §12.1: the app
//! comes back unchanged): `pt-br.lproj/` or `zh_hans/` stand for depot's `pt-BR.lproj/` and
//! `zh-Hans/`, so generate writes into the app's folder instead of beside it.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// The entries of the folders looked at, read once for all the files of a run.
#[derive(Default)]
pub(super) struct AppPaths {
    listed: HashMap<PathBuf, Vec<OsString>>,
}

impl AppPaths {
    /// `planned` (relative to `root`) as the app spells it: walking down from `root`, a
    /// component that does not exist is replaced by the one entry of its folder that is the
    /// same name in another case or with `_` for `-`; at the first component with no such
    /// entry, or with two, the rest stays as planned (a new file or folder).
    pub(super) fn spelled(&mut self, root: &Path, planned: &Path) -> PathBuf {
        let mut at = root.to_path_buf();
        let mut spelled = PathBuf::new();
        let mut components = planned.components();
        while let Some(component) = components.next() {
            let Component::Normal(name) = component else {
                spelled.push(component);
                at.push(component);
                continue;
            };
            let found = match at.join(name).exists() {
                true => Some(name.to_owned()),
                false => self.variant(&at, name),
            };
            let Some(found) = found else {
                spelled.push(name);
                spelled.extend(components);
                return spelled;
            };
            at.push(&found);
            spelled.push(found);
        }
        spelled
    }

    /// The one entry of `folder` that folds to what `name` folds to.
    fn variant(&mut self, folder: &Path, name: &OsStr) -> Option<OsString> {
        let want = fold(name.to_str()?);
        let entries = self.listed.entry(folder.to_path_buf()).or_insert_with(|| {
            std::fs::read_dir(folder)
                .map(|list| list.flatten().map(|e| e.file_name()).collect())
                .unwrap_or_default()
        });
        let mut same = entries
            .iter()
            .filter(|entry| entry.to_str().is_some_and(|e| fold(e) == want));
        match (same.next(), same.next()) {
            (Some(one), None) => Some(one.clone()),
            _ => None,
        }
    }
}

/// A name as locale spellings compare: ASCII case and `_`/`-` do not count (BCP 47 tags are
/// case-insensitive, and apps write `pt-br`, `pt_BR` and `pt-BR` for one locale).
fn fold(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '_' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(paths: &[&str]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        for path in paths {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        root
    }

    #[test]
    fn a_folder_the_app_spells_otherwise_is_the_apps() {
        let root = tree(&[
            "pt-br.lproj/Localizable.strings",
            "zh_hans/common.json",
            "values-en/strings.xml",
        ]);
        let mut paths = AppPaths::default();
        let mut spelled = |p: &str| paths.spelled(root.path(), Path::new(p));
        assert_eq!(
            spelled("pt-BR.lproj/Localizable.strings"),
            Path::new("pt-br.lproj/Localizable.strings")
        );
        // a file the app's folder lacks goes into that folder
        assert_eq!(
            spelled("pt-BR.lproj/InfoPlist.strings"),
            Path::new("pt-br.lproj/InfoPlist.strings")
        );
        assert_eq!(
            spelled("zh-Hans/common.json"),
            Path::new("zh_hans/common.json")
        );
        // what exists is taken as it is; what nothing resembles stays as planned
        assert_eq!(
            spelled("values-en/strings.xml"),
            Path::new("values-en/strings.xml")
        );
        assert_eq!(
            spelled("de.lproj/Localizable.strings"),
            Path::new("de.lproj/Localizable.strings")
        );
    }

    #[test]
    fn two_spellings_of_one_name_leave_the_planned_path() {
        let root = tree(&["pt-br/a.json", "pt_br/a.json"]);
        let mut paths = AppPaths::default();
        assert_eq!(
            paths.spelled(root.path(), Path::new("pt-BR/a.json")),
            Path::new("pt-BR/a.json")
        );
    }

    #[test]
    fn a_missing_root_plans_as_planned() {
        let mut paths = AppPaths::default();
        let root = Path::new("/nonexistent/depot/app_paths");
        assert_eq!(
            paths.spelled(root, Path::new("pt-BR.lproj/Localizable.strings")),
            Path::new("pt-BR.lproj/Localizable.strings")
        );
    }
}
