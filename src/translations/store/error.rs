//! `StoreError`: what every translations store fails with. Apart from the trait so that
//! the kept versions (`translations::versions`), which the trait returns, can name it
//! without importing the trait back.

use crate::model::LimitError;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the sheet yielded no translations; the last good document is kept")]
    EmptyDocument,
    #[error("the document cannot be served ({0}); the last good document is kept")]
    Unservable(#[from] LimitError),
    #[error("cannot open the translations store at {path}: {reason}")]
    Open { path: String, reason: String },
    #[error("translations store I/O failed: {0}")]
    Io(String),
    #[error(
        "the stored translations cannot be read ({0}); they are not served, and the next \
         successful sync replaces them"
    )]
    Corrupt(String),
    /// The shared store cannot be reached or refused a command; `store` names it by its
    /// host (`redact::url`).
    #[error("the translations store {store} is unreachable: {reason}")]
    Unreachable { store: String, reason: String },
    /// The blocking thread that read the store stopped (it panicked).
    #[error("the read of the translations store stopped: {0}")]
    Task(String),
}
