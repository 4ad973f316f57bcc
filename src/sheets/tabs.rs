//! The tabs of a spreadsheet (SPEC §14): every source can give several, each a namespace of
//! the translations. A Google spreadsheet's tabs, a workbook's worksheets, and a folder of
//! `.csv` files, one file a tab (`local::folder`).

/// One tab: its name, its value grid (as `values.get` gives it) and, for a Google tab, its
/// sheet id (the `gid` of its URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tab {
    pub name: String,
    pub rows: Vec<Vec<String>>,
    pub gid: Option<i64>,
}
