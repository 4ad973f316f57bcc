//! `depot files import FILE`: reads file records from JSON lines or CSV, checks every row
//! (fields, values, duplicate keys) before writing anything, then inserts them all in one
//! transaction. Errors name the line and the field.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::error::RepoError;
use super::record::{
    NewFileRecord, Permission, RecordError, normalize_sha256, parse_created_at, truncate_to_millis,
};
use super::repo::FilesRepo;

/// Every field a row may carry, as in the API.
pub const FIELDS: &[&str] = &[
    "fileName",
    "description",
    "bucket",
    "status",
    "fileType",
    "permission",
    "key",
    "createdAt",
    "size",
    "sha256",
];
/// Fields a row must carry; the others default (description "", status 0, createdAt now,
/// size and sha256 unknown).
pub const REQUIRED: &[&str] = &["fileName", "bucket", "fileType", "permission", "key"];
/// Accepted and ignored, so records saved from the API can be loaded back: the database
/// assigns ids, and signed URLs are made on request.
pub const IGNORED: &[&str] = &["id", "signedUrl"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportFormat {
    JsonLines,
    Csv,
}

impl ImportFormat {
    /// `.jsonl`, `.ndjson` and `.json` are JSON lines, `.csv` is CSV (any letter case);
    /// any other name is sniffed: a first non-blank character `{` means JSON lines,
    /// anything else CSV.
    pub fn detect(path: &Path, text: &str) -> ImportFormat {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("jsonl" | "ndjson" | "json") => ImportFormat::JsonLines,
            Some("csv") => ImportFormat::Csv,
            _ if text.trim_start().starts_with('{') => ImportFormat::JsonLines,
            _ => ImportFormat::Csv,
        }
    }
}

/// A checked record and the line it came from (the first line of a CSV record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRow {
    pub line: u64,
    pub record: NewFileRecord,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not UTF-8 text; save it as UTF-8 and import again")]
    NotUtf8 { path: String },
    #[error(
        "the file holds a JSON array; import reads JSON lines: one record object per line (jq -c '.[]' converts)"
    )]
    JsonArray,
    #[error("line {line}: {message}")]
    Line { line: u64, message: String },
    #[error("line {line}: {source}")]
    Record {
        line: u64,
        #[source]
        source: RecordError,
    },
    #[error("line {line}: key '{key}' appears again (first on line {first_line})")]
    DuplicateKey {
        line: u64,
        key: String,
        first_line: u64,
    },
    #[error("line {line}: key '{key}' already exists in the database")]
    KeyExists { line: u64, key: String },
    #[error(transparent)]
    Repo(RepoError),
}

/// Reads, checks and inserts every record of `path`, or none. Returns how many were added.
pub fn import_file(repo: &mut FilesRepo, path: &Path) -> Result<usize, ImportError> {
    insert_rows(repo, read_rows(path)?)
}

/// Reads and checks every record of `path` (JSON lines or CSV).
pub fn read_rows(path: &Path) -> Result<Vec<ImportRow>, ImportError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| ImportError::Read {
        path: shown.clone(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|_| ImportError::NotUtf8 { path: shown })?;
    let format = ImportFormat::detect(path, &text);
    parse_records(&text, format, Utc::now())
}

/// One transaction for all rows; a key already in the database names its line.
pub fn insert_rows(repo: &mut FilesRepo, rows: Vec<ImportRow>) -> Result<usize, ImportError> {
    insert_rows_with(rows, |records| repo.insert_many(records))
}

/// `insert_rows` through any all-or-nothing bulk insert (`FilesDb::bulk_insert` for the
/// backend in use): a key already in the database names its line.
pub fn insert_rows_with(
    rows: Vec<ImportRow>,
    insert_all: impl FnOnce(Vec<NewFileRecord>) -> Result<usize, RepoError>,
) -> Result<usize, ImportError> {
    let lines: HashMap<String, u64> = rows
        .iter()
        .map(|r| (r.record.key.clone(), r.line))
        .collect();
    insert_all(rows.into_iter().map(|r| r.record).collect()).map_err(|e| match e {
        RepoError::Conflict { key } => ImportError::KeyExists {
            line: lines.get(&key).copied().unwrap_or(0),
            key,
        },
        other => ImportError::Repo(other),
    })
}

/// Parses and checks every row; `now` is the creation time of rows without `createdAt`.
pub fn parse_records(
    text: &str,
    format: ImportFormat,
    now: DateTime<Utc>,
) -> Result<Vec<ImportRow>, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let raw = match format {
        ImportFormat::JsonLines => json_lines(text)?,
        ImportFormat::Csv => csv_rows(text)?,
    };
    let now = truncate_to_millis(now);
    let mut first_line_of_key: HashMap<String, u64> = HashMap::with_capacity(raw.len());
    raw.into_iter()
        .map(|(line, fields)| {
            let record = fields
                .into_record(now)
                .map_err(|source| ImportError::Record { line, source })?;
            if let Some(&first_line) = first_line_of_key.get(&record.key) {
                return Err(ImportError::DuplicateKey {
                    line,
                    key: record.key,
                    first_line,
                });
            }
            first_line_of_key.insert(record.key.clone(), line);
            Ok(ImportRow { line, record })
        })
        .collect()
}

/// A row's fields as text, before checking; `None` is absent (or JSON null, or an empty
/// CSV cell for an optional field).
#[derive(Debug, Default)]
struct RawFields {
    file_name: Option<String>,
    description: Option<String>,
    bucket: Option<String>,
    status: Option<i64>,
    file_type: Option<String>,
    permission: Option<String>,
    key: Option<String>,
    created_at: Option<String>,
    size: Option<u64>,
    sha256: Option<String>,
}

impl RawFields {
    /// Stores one field; `Err` is the message for a value of the wrong kind.
    fn set(&mut self, name: &str, value: FieldValue) -> Result<(), String> {
        let text = |v: FieldValue| match v {
            FieldValue::Text(s) => Ok(Some(s)),
            FieldValue::Null => Ok(None),
            FieldValue::Json(other) => Err(format!("{name} must be a string, got {other}")),
        };
        match name {
            "fileName" => self.file_name = text(value)?,
            "description" => self.description = text(value)?,
            "bucket" => self.bucket = text(value)?,
            "fileType" => self.file_type = text(value)?,
            "permission" => self.permission = text(value)?,
            "key" => self.key = text(value)?,
            "createdAt" => self.created_at = text(value)?.filter(|s| !s.is_empty()),
            "sha256" => self.sha256 = text(value)?.filter(|s| !s.is_empty()),
            "size" => {
                let bad = |v: &dyn std::fmt::Display| {
                    format!("size must be a number of bytes (0 or more), got {v}")
                };
                self.size = match value {
                    FieldValue::Null => None,
                    FieldValue::Text(s) if s.is_empty() => None,
                    FieldValue::Text(s) => {
                        Some(s.parse::<u64>().map_err(|_| bad(&format!("'{s}'")))?)
                    }
                    FieldValue::Json(v) => Some(v.as_u64().ok_or_else(|| bad(&v))?),
                }
            }
            "status" => {
                self.status = match value {
                    FieldValue::Null => None,
                    FieldValue::Text(s) if s.is_empty() => None,
                    FieldValue::Text(s) => Some(
                        s.parse::<i64>()
                            .map_err(|_| format!("status must be an integer, got '{s}'"))?,
                    ),
                    FieldValue::Json(v) => Some(
                        v.as_i64()
                            .ok_or_else(|| format!("status must be an integer, got {v}"))?,
                    ),
                }
            }
            _ if IGNORED.contains(&name) => {}
            _ => return Err(unknown_field(name)),
        }
        Ok(())
    }

    fn into_record(self, now: DateTime<Utc>) -> Result<NewFileRecord, RecordError> {
        let required = |v: Option<String>, field| v.ok_or(RecordError::Required { field });
        let permission: Permission = required(self.permission, "permission")?.parse()?;
        let created_at = match self.created_at {
            Some(s) => parse_created_at(&s)?,
            None => now,
        };
        let record = NewFileRecord {
            file_name: required(self.file_name, "fileName")?,
            description: self.description.unwrap_or_default(),
            bucket: required(self.bucket, "bucket")?,
            status: self.status.unwrap_or(0),
            file_type: required(self.file_type, "fileType")?,
            permission,
            key: required(self.key, "key")?,
            created_at: Some(created_at),
            size: self.size,
            sha256: self.sha256.as_deref().map(normalize_sha256).transpose()?,
        };
        record.validate()?;
        Ok(record)
    }
}

enum FieldValue {
    Text(String),
    Null,
    /// Any other JSON value (number, bool, array, object).
    Json(Value),
}

fn unknown_field(name: &str) -> String {
    format!("unknown field '{name}'; allowed: {}", FIELDS.join(", "))
}

fn json_lines(text: &str) -> Result<Vec<(u64, RawFields)>, ImportError> {
    if text.trim_start().starts_with('[') {
        return Err(ImportError::JsonArray);
    }
    let mut rows = Vec::new();
    for (index, raw_line) in text.lines().enumerate() {
        let line = index as u64 + 1;
        if raw_line.trim().is_empty() {
            continue;
        }
        let object: serde_json::Map<String, Value> =
            serde_json::from_str(raw_line).map_err(|e| ImportError::Line {
                line,
                message: json_message(&e),
            })?;
        let mut fields = RawFields::default();
        for (name, value) in object {
            let value = match value {
                Value::String(s) => FieldValue::Text(s),
                Value::Null => FieldValue::Null,
                other => FieldValue::Json(other),
            };
            fields
                .set(&name, value)
                .map_err(|message| ImportError::Line { line, message })?;
        }
        rows.push((line, fields));
    }
    Ok(rows)
}

/// serde_json's message without its "at line 1 column N" (always line 1 here).
fn json_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let message = full
        .rsplit_once(" at line ")
        .map_or(full.as_str(), |(m, _)| m);
    if e.is_data() {
        // Valid JSON, wrong shape: a number, string or array instead of an object.
        "each line must be one JSON object with the record's fields".to_owned()
    } else {
        format!("invalid JSON at column {}: {message}", e.column())
    }
}

fn csv_rows(text: &str) -> Result<Vec<(u64, RawFields)>, ImportError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let header_line = |message: String| ImportError::Line { line: 1, message };
    let headers = reader
        .headers()
        .map_err(|e| csv_error(&e))?
        .iter()
        .map(|h| h.trim().to_owned())
        .collect::<Vec<_>>();
    for (i, h) in headers.iter().enumerate() {
        if !FIELDS.contains(&h.as_str()) && !IGNORED.contains(&h.as_str()) {
            return Err(header_line(format!(
                "unknown column '{h}'; allowed: {}",
                FIELDS.join(", ")
            )));
        }
        if headers[..i].contains(h) {
            return Err(header_line(format!("column '{h}' appears twice")));
        }
    }
    let missing: Vec<&str> = REQUIRED
        .iter()
        .copied()
        .filter(|r| !headers.iter().any(|h| h == r))
        .collect();
    if !missing.is_empty() {
        return Err(header_line(format!(
            "missing column(s) {}; required: {}",
            missing.join(", "),
            REQUIRED.join(", ")
        )));
    }
    let mut rows = Vec::new();
    for result in reader.records() {
        let record = result.map_err(|e| csv_error(&e))?;
        let line = record.position().map_or(0, |p| p.line());
        let mut fields = RawFields::default();
        for (name, cell) in headers.iter().zip(record.iter()) {
            fields
                .set(name, FieldValue::Text(cell.to_owned()))
                .map_err(|message| ImportError::Line { line, message })?;
        }
        rows.push((line, fields));
    }
    Ok(rows)
}

fn csv_error(e: &csv::Error) -> ImportError {
    let line = e.position().map_or(0, |p| p.line());
    let message = match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("expected {expected_len} fields like the header, got {len}"),
        _ => format!("unreadable CSV: {e}"),
    };
    ImportError::Line { line, message }
}

#[cfg(test)]
mod tests;
