//! The tabs of a spreadsheet (SPEC §14): every source can give several, each a namespace of
//! the translations. A Google spreadsheet's tabs, a workbook's worksheets, and a folder of
//! `.csv` files, one file a tab (named by its stem, read in name order) — the last read
//! here.

use super::csv_dialect::CodePage;
use super::local::{LocalSheetError, read_grid};
use crate::memory_budget::Budget;
use std::path::Path;

/// One tab: its name, its value grid (as `values.get` gives it) and, for a Google tab, its
/// sheet id (the `gid` of its URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tab {
    pub name: String,
    pub rows: Vec<Vec<String>>,
    pub gid: Option<i64>,
}

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
