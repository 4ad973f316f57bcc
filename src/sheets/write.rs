//! Writing a sheet (`depot import --to`): a value grid into a `.csv`, `.xlsx` or `.ods`
//! file, written whole or not at all (staged beside the file, then renamed), or into a new
//! tab of a Google spreadsheet (`google.rs`). Every cell is a text, as typed: `=1+1` and
//! `'x` stay texts in every target.

mod csv;
mod ods;
mod xlsx;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::model::cell_name;

/// Where `depot import` writes the sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    File {
        path: PathBuf,
        kind: FileKind,
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
#[error("--to must be a .csv, .xlsx or .ods file, or google:SPREADSHEET_ID[/TAB]; got '{0}'")]
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

/// The bytes of the file.
pub fn encode(rows: &[Vec<String>], kind: FileKind) -> Result<Vec<u8>, WriteError> {
    check(rows, &Limits::of(kind))?;
    match kind {
        FileKind::Csv => csv::encode(rows),
        FileKind::Xlsx => xlsx::encode(rows),
        FileKind::Ods => ods::encode(rows),
    }
}

/// Writes the grid to `path`: the old file stays whole until the new one is.
pub fn write_file(path: &Path, rows: &[Vec<String>], kind: FileKind) -> Result<(), WriteError> {
    let bytes = encode(rows, kind)?;
    crate::atomic_file::write(path, &bytes).map_err(|source| {
        WriteError::Write(crate::atomic_file::WriteError {
            path: path.to_owned(),
            source,
        })
    })
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
