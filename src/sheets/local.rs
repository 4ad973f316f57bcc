//! Local sheets: `.csv` files (and `.json` files holding a Sheets API `values.get`
//! response, which is what the test fixtures are).

use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum LocalSheetError {
    #[error("cannot read the sheet {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{path} line {line}: {reason}")]
    Csv {
        path: String,
        line: u64,
        reason: String,
    },
    #[error("{path} is not a Sheets API values document ({{\"values\": [[...]]}}): {reason}")]
    Json { path: String, reason: String },
    #[error("{path}: unsupported sheet type; use a .csv file (or a .json values.get document)")]
    Unsupported { path: String },
}

/// Reads the value grid of a local sheet file, chosen by its extension.
pub fn read_grid(path: &Path) -> Result<Vec<Vec<String>>, LocalSheetError> {
    let shown = path.display().to_string();
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let bytes = std::fs::read(path).map_err(|e| LocalSheetError::Read {
        path: shown.clone(),
        reason: e.to_string(),
    })?;
    let rows = match extension.as_str() {
        "csv" => csv_grid(&bytes, &shown)?,
        "json" => json_grid(&bytes, &shown)?,
        _ => return Err(LocalSheetError::Unsupported { path: shown }),
    };
    Ok(super::normalise(rows))
}

fn csv_grid(bytes: &[u8], path: &str) -> Result<Vec<Vec<String>>, LocalSheetError> {
    // A UTF-8 byte-order mark (spreadsheet exports often write one) is not part of A1.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    reader
        .records()
        .map(|record| {
            let record = record.map_err(|e| LocalSheetError::Csv {
                path: path.to_owned(),
                line: e.position().map_or(0, |p| p.line()),
                reason: e.to_string(),
            })?;
            Ok(record.iter().map(str::to_owned).collect())
        })
        .collect()
}

fn json_grid(bytes: &[u8], path: &str) -> Result<Vec<Vec<String>>, LocalSheetError> {
    #[derive(serde::Deserialize)]
    struct Values {
        #[serde(default)]
        values: Vec<Vec<String>>,
    }
    serde_json::from_slice::<Values>(bytes)
        .map(|v| v.values)
        .map_err(|e| LocalSheetError::Json {
            path: path.to_owned(),
            reason: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sheets")
            .join(name)
    }

    #[test]
    fn csv_and_values_json_of_the_same_sheet_give_the_same_grid() {
        let csv = read_grid(&fixture("basic.csv")).unwrap();
        let json = read_grid(&fixture("basic.sheet.json")).unwrap();
        assert_eq!(csv, json);
        assert_eq!(csv[3], vec!["tag1, tag2", "", "", "YES", "Yes", "Tak"]);
    }

    #[test]
    fn unsupported_and_missing_files_are_named() {
        let err = read_grid(Path::new("sheet.txt")).unwrap_err().to_string();
        assert!(err.contains("sheet.txt"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("odd.xyz");
        std::fs::write(&odd, "x").unwrap();
        assert!(matches!(
            read_grid(&odd),
            Err(LocalSheetError::Unsupported { .. })
        ));
    }
}
