//! The errors of the embedded object store, as S3 reports them: a status, an S3 error code
//! and a message, answered as S3's XML body (`<Error><Code>…</Code><Message>…</Message>…
//! </Error>`), so S3 clients and tools understand them. Every error of the store's parts
//! converts into one here.

use warp::http::{HeaderValue, StatusCode, header};
use warp::reply::Response;

use super::s3_xml::s3_error_xml;
use crate::objects::{ObjectError, RangeError, ReadError};
use crate::signing::VerifyError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Error {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub resource: String,
    /// Extra header for 416 (`Content-Range: bytes */len`).
    pub content_range: Option<String>,
}

impl S3Error {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> S3Error {
        S3Error {
            status,
            code,
            message: message.into(),
            resource: String::new(),
            content_range: None,
        }
    }

    pub fn at(mut self, resource: &str) -> S3Error {
        self.resource = resource.to_owned();
        self
    }

    pub fn internal(detail: impl Into<String>) -> S3Error {
        S3Error::new(StatusCode::INTERNAL_SERVER_ERROR, "InternalError", detail)
    }

    pub fn invalid_argument(message: impl Into<String>) -> S3Error {
        S3Error::new(StatusCode::BAD_REQUEST, "InvalidArgument", message)
    }
}

impl From<ObjectError> for S3Error {
    fn from(e: ObjectError) -> S3Error {
        use ObjectError as E;
        let (status, code) = match &e {
            E::InvalidBucket { .. } => (StatusCode::BAD_REQUEST, "InvalidBucketName"),
            E::InvalidKey { .. } => (StatusCode::BAD_REQUEST, "InvalidArgument"),
            E::NotFound { .. } => (StatusCode::NOT_FOUND, "NoSuchKey"),
            E::KeyConflict { .. } => (StatusCode::CONFLICT, "InvalidArgument"),
            E::Io { .. } => (StatusCode::INTERNAL_SERVER_ERROR, "InternalError"),
        };
        S3Error::new(status, code, e.to_string())
    }
}

impl From<VerifyError> for S3Error {
    fn from(e: VerifyError) -> S3Error {
        let status = if e.is_malformed() {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::FORBIDDEN
        };
        S3Error::new(status, e.s3_code(), e.message())
    }
}

impl From<RangeError> for S3Error {
    fn from(e: RangeError) -> S3Error {
        let mut error = S3Error::new(
            StatusCode::RANGE_NOT_SATISFIABLE,
            "InvalidRange",
            "The requested range is not satisfiable",
        );
        error.content_range = Some(e.content_range());
        error
    }
}

impl From<ReadError> for S3Error {
    fn from(e: ReadError) -> S3Error {
        match e {
            ReadError::Object(e) => e.into(),
            ReadError::Range(e) => e.into(),
            ReadError::Internal(detail) => S3Error::internal(detail),
        }
    }
}

impl S3Error {
    /// The XML body of S3 (no body for HEAD); internal details go to the log only.
    pub fn into_response(self, head: bool) -> Response {
        if self.status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(detail = %self.message, resource = %self.resource, "object store error");
        }
        let message = if self.status == StatusCode::INTERNAL_SERVER_ERROR {
            "We encountered an internal error. Please try again."
        } else {
            &self.message
        };
        let request_id = format!("{:016x}", request_id());
        let xml = s3_error_xml(self.code, message, &self.resource, &request_id);
        let mut response = if head {
            // HEAD answers carry no body, only the status and headers.
            Response::new(Default::default())
        } else {
            Response::new(xml.into())
        };
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/xml"),
        );
        if let Some(range) = self
            .content_range
            .and_then(|r| HeaderValue::from_str(&r).ok())
        {
            headers.insert(header::CONTENT_RANGE, range);
        }
        response
    }
}

/// A request id for S3 error bodies: unique enough to find a request in the log.
fn request_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    start ^ NEXT.fetch_add(1, Ordering::Relaxed).rotate_left(48)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_problems_are_403_and_malformed_ones_400() {
        let cases = [
            (VerifyError::Anonymous, 403, "AccessDenied"),
            (VerifyError::Expired, 403, "AccessDenied"),
            (VerifyError::SignatureMismatch, 403, "SignatureDoesNotMatch"),
            (
                VerifyError::QueryParameters("missing X-Amz-Date".into()),
                400,
                "AuthorizationQueryParametersError",
            ),
            (VerifyError::InvalidUri, 400, "InvalidURI"),
        ];
        for (error, status, code) in cases {
            let s3 = S3Error::from(error);
            assert_eq!((s3.status.as_u16(), s3.code), (status, code));
        }
    }
}
