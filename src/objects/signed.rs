//! Signed reads of the embedded store: the store with the verifier of its own credentials.
//! A request is checked against its presigned query (a HEAD also accepts a URL signed for
//! GET, so that `curl -I` works on the `signedUrl` that `GET /file` hands out), then its
//! object is opened for one byte range on a blocking thread. The answer (headers, S3 error
//! bodies) is `http::objects`'.

use super::{ByteRange, ObjectError, ObjectMeta, ObjectStore, RangeError, parse_range};
use crate::signing::{PresignedRequest, Verifier, VerifyError};
use chrono::{DateTime, Utc};
use std::fs::File;
use std::sync::Arc;

/// The embedded store as its signed URLs reach it.
pub struct SignedStore {
    pub store: Arc<ObjectStore>,
    pub verifier: Verifier,
}

/// One request's signed parts, as received: the raw (still percent-encoded) path and query.
pub struct SignedRead<'a> {
    pub head: bool,
    pub host: &'a str,
    pub path: &'a str,
    pub query: &'a str,
}

/// An object opened for one answer: the file positioned at the range's start, how many
/// bytes to send from there, the range (`None`: the whole object) and what the headers say.
#[derive(Debug)]
pub struct OpenedObject {
    pub file: File,
    pub length: u64,
    pub range: Option<ByteRange>,
    pub meta: ObjectMeta,
    pub content_type: String,
}

/// Why an object cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    Object(#[from] ObjectError),
    #[error(transparent)]
    Range(#[from] RangeError),
    /// The file could not be positioned, or the blocking task stopped.
    #[error("{0}")]
    Internal(String),
}

impl SignedStore {
    /// Checks the signature of `request` at `now`.
    pub fn verify(&self, request: &SignedRead<'_>, now: DateTime<Utc>) -> Result<(), VerifyError> {
        let signed = |method| PresignedRequest {
            method,
            host: request.host,
            path: request.path,
            query: request.query,
        };
        match self
            .verifier
            .verify(&signed(if request.head { "HEAD" } else { "GET" }), now)
        {
            Err(VerifyError::SignatureMismatch) if request.head => {
                self.verifier.verify(&signed("GET"), now)
            }
            other => other,
        }
    }

    /// Opens `key` of `bucket` for the byte range `range_header` asks for, on a blocking
    /// thread. Its `Content-Type` comes from `file_type` (the record's) or the key.
    pub async fn open(
        &self,
        bucket: String,
        key: String,
        range_header: Option<String>,
        file_type: Option<String>,
    ) -> Result<OpenedObject, ReadError> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || {
            let object = store.open_object(&bucket, &key)?;
            let range = match &range_header {
                Some(h) => parse_range(h, object.meta.len)?,
                None => None,
            };
            let meta = object.meta.clone();
            let (file, length) = object
                .into_range(range)
                .map_err(|e| ReadError::Internal(e.to_string()))?;
            let content_type = super::content_type(&file_type.unwrap_or_default(), &key);
            Ok(OpenedObject {
                file,
                length,
                range,
                meta,
                content_type,
            })
        })
        .await
        .map_err(|e| ReadError::Internal(e.to_string()))?
    }
}
