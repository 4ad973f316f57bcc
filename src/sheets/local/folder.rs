//! A folder of `.csv` files as one sheet (SPEC §14): one file a tab, named by its stem,
//! read in name order.

use std::path::Path;

use super::{LocalSheetError, read_grid};
use crate::memory_budget::Budget;
use crate::sheets::csv_dialect::CodePage;
use crate::sheets::tabs::Tab;

/// Every `.csv` file of `folder` (not its sub-folders, nor the hidden and lock files that
/// editors leave: names starting with `.` or `~`), in name order.
pub fn read_folder(
    folder: &Path,
    memory: Budget,
    code_page: CodePage,
) -> Result<Vec<Tab>, LocalSheetError> {
    let shown = folder.display().to_string();
    let unreadable = |e: std::io::Error| LocalSheetError::Read {
        path: shown.clone(),
        reason: e.to_string(),
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).map_err(unreadable)? {
        let path = entry.map_err(unreadable)?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let is_csv = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        if is_csv && !name.starts_with(['.', '~']) && path.is_file() {
            files.push(path);
        }
    }
    if files.is_empty() {
        return Err(LocalSheetError::EmptyFolder { path: shown });
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok(Tab {
                rows: read_grid(&path, None, memory, code_page)?,
                name,
                gid: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_its_csv_files_in_name_order_without_hidden_or_lock_files() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("settings.csv", ">>>,en\nTITLE,Settings\n");
        write("common.csv", ">>>,en\nYES,Yes\n");
        write("home.CSV", ">>>,en\nTITLE,Home\n");
        write(".~lock.common.csv#", "x");
        write(".hidden.csv", "x");
        write("~draft.csv", "x");
        write("notes.txt", "x");
        std::fs::create_dir(dir.path().join("old.csv")).unwrap();
        let tabs = read_folder(dir.path(), Budget::default(), CodePage::default()).unwrap();
        let names: Vec<&str> = tabs.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["common", "home", "settings"]);
        assert_eq!(tabs[0].rows, [vec![">>>", "en"], vec!["YES", "Yes"]]);
        let empty = tempfile::tempdir().unwrap();
        let err = read_folder(empty.path(), Budget::default(), CodePage::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("holds no .csv file"), "{err}");
    }
}
