//! The errors of the embedded object store, as S3 reports them: a status, an S3 error code
//! and a message, written as S3's XML body by `http::objects`, so S3 clients and tools understand
//! them. Every error of the store's parts converts into one here.

use warp::http::StatusCode;

use crate::objects::{ObjectError, RangeError};
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
        let status = match e {
            VerifyError::QueryParameters(_) | VerifyError::InvalidUri => StatusCode::BAD_REQUEST,
            _ => StatusCode::FORBIDDEN,
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
