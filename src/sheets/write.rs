//! Writing a sheet (`depot import --to`): a value grid into a `.csv`, `.xlsx` or `.ods`
//! file, written whole or not at all (staged beside the file, then renamed), or into a new
//! tab of a Google spreadsheet (`google.rs`). Every cell is a text, as typed: `=1+1` and
//! `'x` stay texts in every target. A sheet of several tabs (SPEC §14: a namespace each)
//! goes to a workbook's worksheets or to a folder of `.csv` files, one a tab, as the
//! sources read them back; a `.csv` file holds one.

mod csv;
mod ods;
mod xlsx;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::model::cell_name;
use crate::sheets::tabs::Tab;

/// Where `depot import` writes the sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    File {
        path: PathBuf,
        kind: FileKind,
    },
    /// A folder (named with a trailing `/`, or one that exists): a `.csv` file per tab.
    Folder {
        path: PathBuf,
    },
    /// `google:SPREADSHEET_ID[/TAB]`: a new tab (named `TAB`, else `DEFAULT_TAB`).
    Google {
        spreadsheet_id: String,
        tab: Option<String>,
    },
}

/// The tab `google:ID` writes when no name follows.
pub const DEFAULT_TAB: &str = "Translations";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Csv,
    Xlsx,
    Ods,
}

impl FileKind {
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Csv => "csv",
            FileKind::Xlsx => "xlsx",
            FileKind::Ods => "ods",
        }
    }
}

/// A `--to` that names no sheet depot writes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--to must be a .csv, .xlsx or .ods file, a folder ending in '/' (a .csv file per tab), \
     or google:SPREADSHEET_ID[/TAB]; got '{0}'"
)]
pub struct UnknownTarget(pub String);

impl FromStr for Target {
    type Err = UnknownTarget;

    fn from_str(value: &str) -> Result<Target, UnknownTarget> {
        if let Some(rest) = value.strip_prefix("google:") {
            let (id, tab) = match rest.split_once('/') {
                Some((id, tab)) => (id, Some(tab.to_owned())),
                None => (rest, None),
            };
            let id_ok = !id.is_empty()
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            let tab_ok = tab.as_deref().is_none_or(|t| !t.trim().is_empty());
            if !(id_ok && tab_ok) {
                return Err(UnknownTarget(value.to_owned()));
            }
            return Ok(Target::Google {
                spreadsheet_id: id.to_owned(),
                tab,
            });
        }
        let path = PathBuf::from(value);
        if value.ends_with('/') || value.ends_with(std::path::MAIN_SEPARATOR) || path.is_dir() {
            return Ok(Target::Folder { path });
        }
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let kind = match extension.as_deref() {
            Some("csv") => FileKind::Csv,
            Some("xlsx") => FileKind::Xlsx,
            Some("ods") => FileKind::Ods,
            _ => return Err(UnknownTarget(value.to_owned())),
        };
        Ok(Target::File { path, kind })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(
        "cell {cell} holds {chars} characters; {target} holds at most {limit} in a cell: \
         shorten the text, or write a .csv"
    )]
    TooLong {
        cell: String,
        chars: usize,
        target: &'static str,
        limit: usize,
    },
    #[error(
        "cell {cell} holds U+{code:04X}, which {target} cannot store (XML 1.0 has no such \
         character); write a .csv or .xlsx instead"
    )]
    Unrepresentable {
        cell: String,
        code: u32,
        target: &'static str,
    },
    #[error(
        "the sheet has {rows} rows and {columns} columns; {target} holds at most {limit}: \
         import fewer files at a time"
    )]
    TooBig {
        rows: usize,
        columns: usize,
        target: &'static str,
        limit: String,
    },
    #[error("cannot make the {kind} file: {reason}")]
    Encode { kind: &'static str, reason: String },
    #[error(
        "a .csv file holds one tab, and the sheet has {} ({}), one per namespace of the \
         app's files: write --to NAME.xlsx (or .ods), or --to NAME/ (a folder of .csv files, \
         one a tab)",
        .tabs.len(),
        .tabs.join(", ")
    )]
    OneTab { tabs: Vec<String> },
    #[error("the tab '{tab}' cannot be named so in {target}: {why}")]
    TabName {
        tab: String,
        target: &'static str,
        why: &'static str,
    },
    #[error(
        "{folder} holds {file}, which is no tab of this sheet and would be read as one: \
         remove it, or write to another folder"
    )]
    OtherFile { folder: String, file: String },
    #[error(transparent)]
    Write(#[from] crate::atomic_file::WriteError),
}

/// What a target holds at most.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub name: &'static str,
    pub cell_chars: usize,
    pub rows: usize,
    pub columns: usize,
    /// Rows × columns of the whole sheet (Google's is per spreadsheet).
    pub cells: usize,
    /// XML 1.0's characters only.
    pub xml_chars: bool,
}

impl Limits {
    pub const CSV: Limits = Limits {
        name: "a .csv file",
        cell_chars: usize::MAX,
        rows: usize::MAX,
        columns: usize::MAX,
        cells: usize::MAX,
        xml_chars: false,
    };
    /// Excel's: 32,767 characters a cell, 1,048,576 rows, 16,384 columns (rust_xlsxwriter
    /// writes other characters as Excel's `_xHHHH_` escapes).
    pub const XLSX: Limits = Limits {
        name: "an .xlsx file",
        cell_chars: 32_767,
        rows: 1_048_576,
        columns: 16_384,
        cells: usize::MAX,
        xml_chars: false,
    };
    /// LibreOffice's sheet size (1,048,576 × 16,384); ODF text is XML 1.0, where controls
    /// other than tab and line feed, a carriage return kept as such, and U+FFFE/U+FFFF
    /// cannot appear.
    pub const ODS: Limits = Limits {
        name: "an .ods file",
        cell_chars: usize::MAX,
        rows: 1_048_576,
        columns: 16_384,
        cells: usize::MAX,
        xml_chars: true,
    };
    /// Google Sheets: 50,000 characters a cell, 10 million cells a spreadsheet, 18,278
    /// columns.
    pub const GOOGLE: Limits = Limits {
        name: "a Google spreadsheet",
        cell_chars: 50_000,
        rows: usize::MAX,
        columns: 18_278,
        cells: 10_000_000,
        xml_chars: false,
    };

    pub fn of(kind: FileKind) -> Limits {
        match kind {
            FileKind::Csv => Limits::CSV,
            FileKind::Xlsx => Limits::XLSX,
            FileKind::Ods => Limits::ODS,
        }
    }
}

/// Whether XML 1.0 can hold `c` in ODF text (a carriage return would be read as a line
/// break's whitespace, so it cannot be kept either).
pub fn xml_text_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Checks the grid against what `limits` holds, naming the first cell that does not fit.
pub fn check(rows: &[Vec<String>], limits: &Limits) -> Result<(), WriteError> {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    if rows.len() > limits.rows
        || columns > limits.columns
        || rows.len().saturating_mul(columns) > limits.cells
    {
        let limit = if rows.len().saturating_mul(columns) > limits.cells {
            format!("{} cells", limits.cells)
        } else {
            format!("{} rows and {} columns", limits.rows, limits.columns)
        };
        return Err(WriteError::TooBig {
            rows: rows.len(),
            columns,
            target: limits.name,
            limit,
        });
    }
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            if limits.cell_chars != usize::MAX && cell.len() > limits.cell_chars {
                let chars = cell.chars().count();
                if chars > limits.cell_chars {
                    return Err(WriteError::TooLong {
                        cell: cell_name(c, r + 1),
                        chars,
                        target: limits.name,
                        limit: limits.cell_chars,
                    });
                }
            }
            if limits.xml_chars
                && let Some(bad) = cell.chars().find(|&ch| !xml_text_char(ch))
            {
                return Err(WriteError::Unrepresentable {
                    cell: cell_name(c, r + 1),
                    code: u32::from(bad),
                    target: limits.name,
                });
            }
        }
    }
    Ok(())
}

/// `check` of each tab; a cell of a sheet of several tabs is named in its tab
/// (`common!B3`), as the sheet's readers name it.
pub fn check_tabs(tabs: &[Tab], limits: &Limits) -> Result<(), WriteError> {
    for tab in tabs {
        check(&tab.rows, limits).map_err(|e| match e {
            WriteError::TooLong {
                cell,
                chars,
                target,
                limit,
            } if tabs.len() > 1 => WriteError::TooLong {
                cell: format!("{}!{cell}", tab.name),
                chars,
                target,
                limit,
            },
            WriteError::Unrepresentable { cell, code, target } if tabs.len() > 1 => {
                WriteError::Unrepresentable {
                    cell: format!("{}!{cell}", tab.name),
                    code,
                    target,
                }
            }
            e => e,
        })?;
    }
    Ok(())
}

/// Refuses tab names a target cannot hold (Excel's and LibreOffice's rules for worksheet
/// names; file names for a folder, where a name the folder reader skips is refused too),
/// and two that would be one (the applications, like macOS's file names, ignore case).
fn check_names(tabs: &[Tab], target: &'static str, file_names: bool) -> Result<(), WriteError> {
    let refused = |tab: &Tab, why| WriteError::TabName {
        tab: tab.name.clone(),
        target,
        why,
    };
    for (i, tab) in tabs.iter().enumerate() {
        let name = tab.name.as_str();
        if name.is_empty() {
            return Err(refused(tab, "a tab needs a name"));
        }
        if file_names {
            if name.contains(['/', '\\']) || name.chars().any(char::is_control) {
                return Err(refused(
                    tab,
                    "a file name may not hold '/', '\\' or controls",
                ));
            }
            if name.starts_with(['.', '~']) {
                return Err(refused(
                    tab,
                    "a .csv file whose name starts with '.' or '~' is not read as a tab",
                ));
            }
        } else {
            if name.contains(['[', ']', ':', '*', '?', '/', '\\']) {
                return Err(refused(
                    tab,
                    "a worksheet's name may not hold [ ] : * ? / \\",
                ));
            }
            if name.chars().count() > 31 {
                return Err(refused(
                    tab,
                    "a worksheet's name holds at most 31 characters",
                ));
            }
            if name.starts_with('\'') || name.ends_with('\'') {
                return Err(refused(
                    tab,
                    "a worksheet's name may not start or end with an apostrophe",
                ));
            }
        }
        let lower = name.to_lowercase();
        if tabs[..i].iter().any(|t| t.name.to_lowercase() == lower) {
            return Err(refused(tab, "another tab has that name in other case"));
        }
    }
    Ok(())
}

/// The bytes of the file.
pub fn encode(rows: &[Vec<String>], kind: FileKind) -> Result<Vec<u8>, WriteError> {
    check(rows, &Limits::of(kind))?;
    match kind {
        FileKind::Csv => csv::encode(rows),
        FileKind::Xlsx => xlsx::encode(&[(SHEET_NAME, rows)]),
        FileKind::Ods => ods::encode(&[(SHEET_NAME, rows)]),
    }
}

/// The bytes of a file of `tabs`: one tab is the sheet as `encode` writes it (named
/// `SHEET_NAME` in a workbook); several are a workbook's worksheets, in order.
pub fn encode_tabs(tabs: &[Tab], kind: FileKind) -> Result<Vec<u8>, WriteError> {
    if let [one] = tabs {
        return encode(&one.rows, kind);
    }
    if kind == FileKind::Csv {
        return Err(WriteError::OneTab {
            tabs: tabs.iter().map(|t| t.name.clone()).collect(),
        });
    }
    let limits = Limits::of(kind);
    check_tabs(tabs, &limits)?;
    check_names(tabs, limits.name, false)?;
    let sheets: Vec<(&str, &[Vec<String>])> = (tabs.iter())
        .map(|t| (t.name.as_str(), t.rows.as_slice()))
        .collect();
    match kind {
        FileKind::Xlsx => xlsx::encode(&sheets),
        _ => ods::encode(&sheets),
    }
}

/// Writes the grid to `path`: the old file stays whole until the new one is.
pub fn write_file(path: &Path, rows: &[Vec<String>], kind: FileKind) -> Result<(), WriteError> {
    let bytes = encode(rows, kind)?;
    write_bytes(path, &bytes)
}

fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    crate::atomic_file::write(path, bytes).map_err(|source| {
        WriteError::Write(crate::atomic_file::WriteError {
            path: path.to_owned(),
            source,
        })
    })
}

/// Writes `tabs` to `path` as `encode_tabs` makes them.
pub fn write_tabs(path: &Path, tabs: &[Tab], kind: FileKind) -> Result<(), WriteError> {
    let bytes = encode_tabs(tabs, kind)?;
    write_bytes(path, &bytes)
}

/// Writes each tab to `<folder>/<tab>.csv` (the folder made if missing), all or none: each
/// file is staged first, and none replaces its file until every one is. A `.csv` file of
/// the folder that is no tab is refused, since the folder's reader would take it for one.
pub fn write_folder(folder: &Path, tabs: &[Tab]) -> Result<Vec<PathBuf>, WriteError> {
    let shown = folder.display().to_string();
    check_tabs(tabs, &Limits::CSV)?;
    check_names(tabs, "a folder of .csv files", true)?;
    let failed = |path: &Path, source| {
        WriteError::Write(crate::atomic_file::WriteError {
            path: path.to_owned(),
            source,
        })
    };
    std::fs::create_dir_all(folder).map_err(|e| failed(folder, e))?;
    let names: Vec<String> = tabs.iter().map(|t| format!("{}.csv", t.name)).collect();
    for entry in std::fs::read_dir(folder).map_err(|e| failed(folder, e))? {
        let name = entry.map_err(|e| failed(folder, e))?.file_name();
        let name = name.to_string_lossy();
        let csv = Path::new(name.as_ref())
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        if csv && !name.starts_with(['.', '~']) && !names.iter().any(|n| *n == name) {
            return Err(WriteError::OtherFile {
                folder: shown,
                file: name.into_owned(),
            });
        }
    }
    let mut staged = Vec::with_capacity(tabs.len());
    for (tab, name) in tabs.iter().zip(&names) {
        let path = folder.join(name);
        let bytes = csv::encode(&tab.rows)?;
        match crate::atomic_file::stage(&path, &bytes, crate::atomic_file::Durability::Atomic) {
            Ok(file) => staged.push(file),
            Err(e) => {
                crate::atomic_file::discard(&staged);
                return Err(WriteError::Write(e));
            }
        }
    }
    crate::atomic_file::commit(&staged)?;
    Ok(names.iter().map(|n| folder.join(n)).collect())
}

/// The name of the one sheet of a written workbook.
pub const SHEET_NAME: &str = "Translations";

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect()
    }

    #[test]
    fn targets_are_files_by_extension_or_google_tabs() {
        assert_eq!(
            "out/s.XLSX".parse::<Target>().unwrap(),
            Target::File {
                path: "out/s.XLSX".into(),
                kind: FileKind::Xlsx
            }
        );
        assert_eq!(
            "google:1AbC-d_E/My tab".parse::<Target>().unwrap(),
            Target::Google {
                spreadsheet_id: "1AbC-d_E".into(),
                tab: Some("My tab".into())
            }
        );
        for bad in ["s.txt", "google:", "google:a b", "google:x/ ", "noext"] {
            assert!(bad.parse::<Target>().is_err(), "{bad}");
        }
    }

    /// Every file kind reads back, through the readers `generate --source` uses, as the
    /// grid written: texts exactly, formulas and apostrophes as texts.
    #[test]
    fn every_file_kind_reads_back_as_written() {
        let rows = grid(&[
            &[">>>", ">>>", "###", "$$$", "en", "pl"],
            &["A", "B", "", "note", "  two  spaces ", "=1+1"],
            &["", "C", "t", "", "'x", "line\nbreak\ttab"],
            &["", "D", "", "", "010", "_x0041_ & <b>"],
            &["", "E", "", "", "TRUE", "1.50"],
        ]);
        let dir = tempfile::tempdir().unwrap();
        for kind in [FileKind::Csv, FileKind::Xlsx, FileKind::Ods] {
            let path = dir.path().join(format!("sheet.{}", kind.name()));
            write_file(&path, &rows, kind).unwrap();
            let back = crate::sheets::local::read_grid(
                &path,
                None,
                Default::default(),
                Default::default(),
            )
            .unwrap();
            assert_eq!(back, rows, "{kind:?}");
        }
    }

    /// Several tabs: a workbook's worksheets or a folder's `.csv` files, read back by the
    /// sources as the tabs written; a `.csv` file refuses them; names a target cannot hold
    /// are refused, naming the tab; a cell too long is named in its tab.
    #[test]
    fn tabs_go_to_worksheets_or_a_folder_and_read_back_as_written() {
        let tab = |name: &str, rows: &[&[&str]]| Tab {
            name: name.to_owned(),
            rows: grid(rows),
            gid: None,
        };
        let tabs = [
            tab("common", &[&[">>>", "en"], &["title", "Home"]]),
            tab(
                "settings",
                &[&[">>>", "en", "de"], &["dark", "Dark", "Dunkel"]],
            ),
        ];
        let dir = tempfile::tempdir().unwrap();
        let back = |path: &Path| {
            crate::sheets::local::read_tabs(path, None, Default::default(), Default::default())
                .unwrap()
        };
        for kind in [FileKind::Xlsx, FileKind::Ods] {
            let path = dir.path().join(format!("book.{}", kind.name()));
            write_tabs(&path, &tabs, kind).unwrap();
            assert_eq!(back(&path), tabs, "{kind:?}");
        }
        let folder = dir.path().join("tabs");
        let written = write_folder(&folder, &tabs).unwrap();
        assert_eq!(
            written,
            [folder.join("common.csv"), folder.join("settings.csv")]
        );
        assert_eq!(back(&folder), tabs);
        std::fs::write(folder.join("old.csv"), ">>>,en\n").unwrap();
        let err = write_folder(&folder, &tabs).unwrap_err().to_string();
        assert!(err.ends_with("holds old.csv, which is no tab of this sheet and would be read as one: remove it, or write to another folder"), "{err}");

        let err = encode_tabs(&tabs, FileKind::Csv).unwrap_err().to_string();
        assert!(
            err.starts_with("a .csv file holds one tab, and the sheet has 2 (common, settings)"),
            "{err}"
        );
        for (name, why) in [
            ("a/b", "a worksheet's name may not hold [ ] : * ? / \\"),
            (
                &"x".repeat(32),
                "a worksheet's name holds at most 31 characters",
            ),
            ("Common", "another tab has that name in other case"),
        ] {
            let bad = [
                tabs[0].clone(),
                Tab {
                    name: name.to_owned(),
                    ..tabs[1].clone()
                },
            ];
            let err = encode_tabs(&bad, FileKind::Xlsx).unwrap_err().to_string();
            assert_eq!(
                err,
                format!("the tab '{name}' cannot be named so in an .xlsx file: {why}")
            );
        }
        let long = [tabs[0].clone(), tab("big", &[&["a", &"x".repeat(32_768)]])];
        let err = encode_tabs(&long, FileKind::Xlsx).unwrap_err().to_string();
        assert!(
            err.starts_with("cell big!B1 holds 32768 characters"),
            "{err}"
        );
        // a target ending in '/' is a folder
        assert_eq!(
            "out/".parse::<Target>().unwrap(),
            Target::Folder {
                path: "out/".into()
            }
        );
    }

    #[test]
    fn limits_name_the_cell() {
        let long = "x".repeat(32_768);
        let err = check(&grid(&[&["a", &long]]), &Limits::XLSX).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cell B1 holds 32768 characters"),
            "{err}"
        );
        let err = check(&grid(&[&["a"], &["b\u{1}"]]), &Limits::ODS).unwrap_err();
        assert!(err.to_string().starts_with("cell A2 holds U+0001"), "{err}");
        assert!(check(&grid(&[&["b\u{1}\r"]]), &Limits::CSV).is_ok());
    }
}
