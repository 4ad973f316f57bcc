//! `RepoError`: what any backend of the file records (SQLite, PostgreSQL) and the store
//! above them fail with. Messages are safe to show; SQL text, paths and URLs stay in the
//! source for the logs.

use std::path::PathBuf;

use rusqlite::ErrorCode;

use super::record::RecordError;

#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    #[error("no file record has key '{key}'")]
    NotFound { key: String },
    #[error("a file record with key '{key}' already exists")]
    Conflict { key: String },
    /// No upload under way with this key: completed, expired or never begun.
    #[error("no upload under way has key '{key}'")]
    UploadGone { key: String },
    #[error(transparent)]
    Invalid(#[from] RecordError),
    #[error(
        "the files database has schema version {found} but this depot knows up to {supported}; upgrade depot"
    )]
    SchemaTooNew { found: u32, supported: u32 },
    /// Start-up only (never reaches an HTTP body), so it may name the path.
    #[error("cannot open the files database at {}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A reader found another version than the writer just migrated to (another depot
    /// changed the file meanwhile).
    #[error("the files database has schema version {found}, expected {expected}; restart depot")]
    SchemaMismatch { found: u32, expected: u32 },
    #[error("the files database is busy while {op}; try again")]
    Busy {
        op: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    /// Display is only the operation: SQL text and paths stay in `source` for the logs.
    #[error("database error while {op}")]
    Database {
        op: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    #[error("the database task stopped unexpectedly")]
    Task,
    /// Display is only the operation: SQL text stays in `source` for the logs.
    #[error("database error while {op}")]
    Postgres {
        op: &'static str,
        #[source]
        source: tokio_postgres::Error,
    },
    /// The server is down, refusing or restarting: answered 503 and passes by itself.
    #[error("the files database (PostgreSQL) is unreachable while {op}; try again")]
    Unreachable {
        op: &'static str,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The URL holds a password, so the parse error is not repeated.
    #[error("database.url is not a valid postgres://user:password@host:port/db URL")]
    BadUrl,
    #[error("the files database holds an invalid value: {what}")]
    Corrupt { what: &'static str },
}

impl RepoError {
    /// Wraps a rusqlite error with the operation that failed: `.map_err(RepoError::db("..."))`.
    pub(crate) fn db(op: &'static str) -> impl FnOnce(rusqlite::Error) -> RepoError {
        move |source| match source.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
                RepoError::Busy { op, source }
            }
            _ => RepoError::Database { op, source },
        }
    }

    /// The full cause chain, for a log line (may contain SQL and paths: never for users).
    pub fn detail(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(c) = cause {
            text.push_str(": ");
            text.push_str(&c.to_string());
            cause = c.source();
        }
        text
    }
}
