//! The file record as the API shows it, the shape of a new record before the database
//! gives it an id, and the validation rules every stored record obeys (S3's key and bucket
//! rules, field lengths, the content's size and SHA-256), shared by `POST /files`, direct
//! uploads, `depot files import` and the repository.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, SubsecRound, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Longest `fileName` accepted, in characters.
pub const MAX_FILE_NAME_CHARS: usize = 1024;
/// Longest `description` accepted, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 4096;
/// Longest `fileType` accepted, in characters.
pub const MAX_FILE_TYPE_CHARS: usize = 255;
/// Longest key, in bytes of UTF-8 (S3's limit).
pub const MAX_KEY_BYTES: usize = 1024;

/// One stored file, serialised exactly as `GET /files` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRecord {
    pub id: i64,
    pub file_name: String,
    pub description: String,
    pub bucket: String,
    pub status: i64,
    pub file_type: String,
    pub permission: Permission,
    pub key: String,
    #[serde(with = "millis_utc")]
    pub created_at: DateTime<Utc>,
    /// Bytes of the content; null for records from before depot kept it (and imports
    /// that do not say).
    #[serde(default)]
    pub size: Option<u64>,
    /// Lowercase hex SHA-256 of the content, when known.
    #[serde(default)]
    pub sha256: Option<String>,
}

/// A record before insertion; `created_at: None` means "now".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFileRecord {
    pub file_name: String,
    pub description: String,
    pub bucket: String,
    pub status: i64,
    pub file_type: String,
    pub permission: Permission,
    pub key: String,
    pub created_at: Option<DateTime<Utc>>,
    pub size: Option<u64>,
    /// Lowercase hex (`validate` refuses anything else; `normalize_sha256` lowers it).
    pub sha256: Option<String>,
}

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Permission {
    /// What an upload that names no permission gets.
    #[default]
    Public,
    Private,
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Public => "public",
            Permission::Private => "private",
        }
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Only the exact lower-case words: the API always answers in lower case, and one
/// spelling per value keeps filters and imports unambiguous.
impl FromStr for Permission {
    type Err = RecordError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "public" => Ok(Permission::Public),
            "private" => Ok(Permission::Private),
            other => Err(RecordError::Permission {
                value: other.to_owned(),
            }),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("permission must be public or private, got '{value}'")]
    Permission { value: String },
    #[error("key must be at most {MAX_KEY_BYTES} bytes of UTF-8 (S3's limit), got {len}")]
    KeyTooLong { len: usize },
    #[error("{field} is required")]
    Required { field: &'static str },
    #[error("{field} must be at most {max} characters, got {len}")]
    TooLong {
        field: &'static str,
        max: usize,
        len: usize,
    },
    #[error("{field} must not contain control characters")]
    ControlChar { field: &'static str },
    #[error(
        "bucket must be 3 to 63 characters of lower-case letters, digits, '.' and '-', \
         starting and ending with a letter or digit (S3 bucket naming), got '{value}'"
    )]
    Bucket { value: String },
    #[error(
        "createdAt must be an ISO 8601 date-time with a time zone (e.g. 2026-11-21T09:05:03.120Z), got '{value}'"
    )]
    CreatedAt { value: String },
    #[error("sha256 must be 64 hexadecimal digits (the SHA-256 of the content), got '{value}'")]
    Sha256 { value: String },
    #[error("size must be a number of bytes from 0 to {MAX_SIZE}, got {value}")]
    Size { value: u64 },
}

/// Largest `size` a record holds (what both databases keep in a signed 64-bit integer).
pub const MAX_SIZE: u64 = i64::MAX as u64;

/// A SHA-256 as records keep it: 64 hex digits of either case in, lowercase out.
pub fn normalize_sha256(value: &str) -> Result<String, RecordError> {
    let trimmed = value.trim();
    crate::hex::decode::<32>(trimmed)
        .map(|bytes| crate::hex::encode(&bytes))
        .ok_or_else(|| RecordError::Sha256 {
            value: value.chars().take(80).collect(),
        })
}

/// The key rule is S3's, since a catalogue often describes objects that already exist:
/// 1 to 1024 bytes of UTF-8 without control characters. Anything else goes (spaces, `/`,
/// `%`, `+`, quotes, non-ASCII letters, ...); the embedded object store and the signer
/// each cope with every such key in their own way.
pub fn validate_key(key: &str) -> Result<(), RecordError> {
    if key.is_empty() {
        return Err(RecordError::Required { field: "key" });
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(RecordError::KeyTooLong { len: key.len() });
    }
    if key.chars().any(char::is_control) {
        return Err(RecordError::ControlChar { field: "key" });
    }
    Ok(())
}

/// S3's bucket naming rules (what AWS, MinIO and Garage enforce), so every stored record
/// can be presigned; they also keep bucket names safe as folder names in the embedded store.
pub fn validate_bucket(bucket: &str) -> Result<(), RecordError> {
    if bucket.is_empty() {
        return Err(RecordError::Required { field: "bucket" });
    }
    // One rule for the whole crate: the object store's, which also guards its folders.
    crate::objects::validate_bucket(bucket).map_err(|_| RecordError::Bucket {
        value: bucket.to_owned(),
    })
}

fn check_text(
    field: &'static str,
    value: &str,
    max: usize,
    required: bool,
) -> Result<(), RecordError> {
    if required && value.is_empty() {
        return Err(RecordError::Required { field });
    }
    let len = value.chars().count();
    if len > max {
        return Err(RecordError::TooLong { field, max, len });
    }
    // Descriptions may be multi-line; names and types end up in headers and must not.
    let allow_newlines = field == "description";
    if value
        .chars()
        .any(|c| c.is_control() && !(allow_newlines && matches!(c, '\n' | '\r' | '\t')))
    {
        return Err(RecordError::ControlChar { field });
    }
    Ok(())
}

impl NewFileRecord {
    /// The record as a backend stored it: under `id`, created at `created_at` (its own, or
    /// the backend's "now", truncated to milliseconds).
    pub fn stored(self, id: i64, created_at: DateTime<Utc>) -> FileRecord {
        FileRecord {
            id,
            file_name: self.file_name,
            description: self.description,
            bucket: self.bucket,
            status: self.status,
            file_type: self.file_type,
            permission: self.permission,
            key: self.key,
            created_at,
            size: self.size,
            sha256: self.sha256,
        }
    }

    /// Checks every field; the first problem found is reported.
    pub fn validate(&self) -> Result<(), RecordError> {
        check_text("fileName", &self.file_name, MAX_FILE_NAME_CHARS, true)?;
        check_text(
            "description",
            &self.description,
            MAX_DESCRIPTION_CHARS,
            false,
        )?;
        validate_bucket(&self.bucket)?;
        check_text("fileType", &self.file_type, MAX_FILE_TYPE_CHARS, false)?;
        validate_key(&self.key)?;
        if let Some(size) = self.size.filter(|s| *s > MAX_SIZE) {
            return Err(RecordError::Size { value: size });
        }
        match &self.sha256 {
            Some(hash) if normalize_sha256(hash).as_deref() != Ok(hash.as_str()) => {
                Err(RecordError::Sha256 {
                    value: hash.chars().take(80).collect(),
                })
            }
            _ => Ok(()),
        }
    }
}

/// Timestamps are stored as integer milliseconds, so anything finer is dropped on the way in.
pub fn truncate_to_millis(t: DateTime<Utc>) -> DateTime<Utc> {
    t.trunc_subsecs(3)
}

/// Any RFC 3339 date-time (any offset, any precision), converted to UTC and cut to milliseconds.
pub fn parse_created_at(value: &str) -> Result<DateTime<Utc>, RecordError> {
    DateTime::parse_from_rfc3339(value.trim())
        .map(|t| truncate_to_millis(t.with_timezone(&Utc)))
        .map_err(|_| RecordError::CreatedAt {
            value: value.to_owned(),
        })
}

pub(crate) mod millis_utc {
    use super::*;

    pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::time::iso_millis(*t))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let text = String::deserialize(d)?;
        parse_created_at(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    pub(crate) fn sample_new(key: &str) -> NewFileRecord {
        NewFileRecord {
            file_name: "report.pdf".into(),
            description: "Quarterly report".into(),
            bucket: "depot-files".into(),
            status: 1,
            file_type: "application/pdf".into(),
            permission: Permission::Public,
            key: key.into(),
            created_at: None,
            size: None,
            sha256: None,
        }
    }

    const KEY: &str = "0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e5f";

    #[test]
    fn record_serialises_with_camel_case_and_millisecond_utc() {
        let record = FileRecord {
            id: 7,
            file_name: "cat.png".into(),
            description: "a cat".into(),
            bucket: "pics".into(),
            status: 2,
            file_type: "image/png".into(),
            permission: Permission::Private,
            key: format!("{KEY}-original"),
            created_at: Utc.with_ymd_and_hms(2026, 11, 21, 9, 5, 3).unwrap()
                + chrono::Duration::milliseconds(120),
            size: Some(1234),
            sha256: Some("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824".into()),
        };
        let json = serde_json::to_string(&record).unwrap();
        assert_eq!(
            json,
            r#"{"id":7,"fileName":"cat.png","description":"a cat","bucket":"pics","status":2,"fileType":"image/png","permission":"private","key":"0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e5f-original","createdAt":"2026-11-21T09:05:03.120Z","size":1234,"sha256":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}"#
        );
        let back: FileRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back, record);
        // A record of before: the fields are null, and a document without them reads.
        let old = FileRecord {
            size: None,
            sha256: None,
            ..record
        };
        let json = serde_json::to_string(&old).unwrap();
        assert!(json.ends_with(r#""size":null,"sha256":null}"#), "{json}");
        let without: String = json.replace(r#","size":null,"sha256":null"#, "");
        assert_eq!(serde_json::from_str::<FileRecord>(&without).unwrap(), old);
    }

    #[test]
    fn sha256_is_64_hex_digits_kept_lowercase_and_size_fits_the_databases() {
        let upper = "2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824";
        assert_eq!(normalize_sha256(upper).unwrap(), upper.to_ascii_lowercase());
        for bad in [
            "",
            "abc",
            &upper[1..],
            &format!("{upper}0"),
            &upper.replace('2', "g"),
        ] {
            assert_eq!(
                normalize_sha256(bad).unwrap_err().to_string(),
                format!(
                    "sha256 must be 64 hexadecimal digits (the SHA-256 of the content), got '{bad}'"
                )
            );
        }
        let mut record = sample_new(KEY);
        record.sha256 = Some(upper.into());
        assert!(matches!(record.validate(), Err(RecordError::Sha256 { .. })));
        record.sha256 = Some(upper.to_ascii_lowercase());
        record.size = Some(MAX_SIZE);
        assert_eq!(record.validate(), Ok(()));
        record.size = Some(MAX_SIZE + 1);
        assert_eq!(
            record.validate().unwrap_err().to_string(),
            "size must be a number of bytes from 0 to 9223372036854775807, got 9223372036854775808"
        );
    }

    #[test]
    fn whole_seconds_still_show_three_fractional_digits() {
        let t = Utc.with_ymd_and_hms(2024, 1, 2, 3, 4, 5).unwrap();
        assert_eq!(crate::time::iso_millis(t), "2024-01-02T03:04:05.000Z");
    }

    #[test]
    fn created_at_accepts_offsets_and_cuts_to_millis() {
        let t = parse_created_at("2026-11-21T10:05:03.1209+01:00").unwrap();
        assert_eq!(crate::time::iso_millis(t), "2026-11-21T09:05:03.120Z");
        assert_eq!(
            parse_created_at("yesterday").unwrap_err().to_string(),
            "createdAt must be an ISO 8601 date-time with a time zone (e.g. 2026-11-21T09:05:03.120Z), got 'yesterday'"
        );
    }

    #[test]
    fn permission_parses_lower_case_words_only() {
        assert_eq!("public".parse::<Permission>(), Ok(Permission::Public));
        assert_eq!("private".parse::<Permission>(), Ok(Permission::Private));
        assert_eq!(
            "Public".parse::<Permission>().unwrap_err().to_string(),
            "permission must be public or private, got 'Public'"
        );
    }

    #[test]
    fn keys_are_what_s3_allows() {
        for good in [
            KEY.to_string(),
            format!("{KEY}-original"),
            "a".to_string(),
            "sp ace/+~'(!*;=&@$%/ünï 日本.png".to_string(),
            "a//b/./c/../d/".to_string(),
            "/leading".to_string(),
            "\u{2028}line separator".to_string(),
            "k".repeat(1024),
            "é".repeat(512),
        ] {
            assert_eq!(validate_key(&good), Ok(()), "{good}");
        }
        assert_eq!(
            validate_key(""),
            Err(RecordError::Required { field: "key" })
        );
        assert_eq!(
            validate_key(&"é".repeat(513)).unwrap_err().to_string(),
            "key must be at most 1024 bytes of UTF-8 (S3's limit), got 1026"
        );
        for control in ["a\0b", "a\nb", "tab\t", "\u{7f}", "\u{85}"] {
            assert_eq!(
                validate_key(control).unwrap_err().to_string(),
                "key must not contain control characters",
                "{control:?}"
            );
        }
    }

    #[test]
    fn validate_names_the_field_and_value() {
        assert_eq!(sample_new(KEY).validate(), Ok(()));
        let err = |f: fn(&mut NewFileRecord)| {
            let mut r = sample_new(KEY);
            f(&mut r);
            r.validate().unwrap_err().to_string()
        };
        assert_eq!(err(|r| r.file_name.clear()), "fileName is required");
        assert_eq!(
            err(|r| r.file_name = "a\nb".into()),
            "fileName must not contain control characters"
        );
        assert_eq!(
            err(|r| r.file_name = "x".repeat(1025)),
            "fileName must be at most 1024 characters, got 1025"
        );
        assert_eq!(err(|r| r.bucket.clear()), "bucket is required");
        assert_eq!(
            err(|r| r.bucket = "My_Bucket".into()),
            "bucket must be 3 to 63 characters of lower-case letters, digits, '.' and '-', starting and ending with a letter or digit (S3 bucket naming), got 'My_Bucket'"
        );
        assert_eq!(err(|r| r.key.clear()), "key is required");
        assert_eq!(
            err(|r| r.key = "a\u{1b}[2J".into()),
            "key must not contain control characters"
        );
        let mut multi_line = sample_new(KEY);
        multi_line.description = "line one\nline two".into();
        multi_line.file_type = String::new();
        assert_eq!(multi_line.validate(), Ok(()));
    }

    #[test]
    fn bucket_rules() {
        for good in ["abc", "depot-files", "a.b.c", "0bucket9"] {
            assert_eq!(validate_bucket(good), Ok(()), "{good}");
        }
        for bad in ["ab", "-abc", "abc-", "a..b", "ABC", "a_b", &"a".repeat(64)] {
            assert!(validate_bucket(bad).is_err(), "{bad}");
        }
    }
}
