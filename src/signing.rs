//! AWS Signature V4 for service `s3`: `Signer` makes the `signedUrl` of `GET /file`
//! (query-string form, `UNSIGNED-PAYLOAD`), the presigned PUTs of direct uploads (more
//! headers signed: `content-length`, `x-amz-checksum-sha256`) and signs calls to an S3
//! endpoint in the `Authorization` header (`sign_headers`, `sign_request`); `Verifier`
//! checks requests for the embedded object store, signed either way. Pure: time is a
//! parameter.
//!
//! In parts, as garage's `api/common/signature/` splits SigV4: this file holds what callers
//! name (targets, credentials, errors, limits); `signer` presigns and signs headers,
//! `verifier` checks, `query` parses a presigned query, `header_auth` an `Authorization`
//! header, `canonical` builds the canonical request, the string to sign and the (cached)
//! signing key that both sides share, `date` writes and reads `X-Amz-Date`, `endpoint`
//! turns an endpoint and addressing style into object URLs.

mod canonical;
mod date;
mod endpoint;
mod header_auth;
mod query;
mod signer;
mod verifier;

use chrono::{DateTime, TimeDelta, Utc};

use crate::secret::Secret;

pub use canonical::aws_encode;
pub(crate) use canonical::hmac;
pub use signer::{SignedRequest, Signer, presign_get};
pub use verifier::{
    IncomingRequest, MAX_REQUEST_SKEW, Payload, PresignedRequest, Verifier, verify_presigned,
};

/// Shortest and longest validity of a presigned URL, in seconds (SigV4 allows 7 days).
pub const MIN_EXPIRES_SECS: u64 = 1;
pub const MAX_EXPIRES_SECS: u64 = 604_800;
/// How far in the future an `X-Amz-Date` may be before the verifier refuses it.
pub const DEFAULT_MAX_CLOCK_SKEW: TimeDelta = TimeDelta::minutes(5);

/// The payload hash of a request whose body is not hashed (streamed uploads, presigned
/// URLs).
pub const UNSIGNED_PAYLOAD: &str = "UNSIGNED-PAYLOAD";

const ALGORITHM: &str = "AWS4-HMAC-SHA256";
const TERMINATOR: &str = "aws4_request";

/// How the bucket appears in the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addressing {
    /// `{endpoint}/{bucket}/{key}`: MinIO, Garage, the embedded store.
    Path,
    /// `{scheme}://{bucket}.{host}/{key}`: AWS S3's default.
    VirtualHost,
}

/// Where signed URLs point. `endpoint` is `http(s)://host[:port][/prefix]`; a trailing `/`
/// is ignored and a prefix (a reverse-proxy path, or `/objects` for the embedded store) is
/// kept in front of the bucket and signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningTarget {
    pub endpoint: String,
    pub addressing: Addressing,
    pub region: String,
}

/// An access key. `Debug` shows the key id only: the secrets are `Secret`s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: Secret,
    pub session_token: Option<Secret>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SigningError {
    #[error(
        "signing endpoint must look like http(s)://host[:port][/prefix], got '{endpoint}': {reason}"
    )]
    Endpoint {
        endpoint: String,
        reason: &'static str,
    },
    #[error("signing region must be letters, digits, '-', '_' or '.' (like us-east-1), got '{0}'")]
    Region(String),
    #[error(
        "signing access key id must be non-empty, without '/', spaces or control characters, got '{0}'"
    )]
    AccessKeyId(String),
    #[error("signing secret access key must not be empty")]
    EmptySecret,
    #[error("expiry must be from 1 to 604800 seconds (7 days), got {0}")]
    Expiry(u64),
    #[error("bucket must be non-empty and contain no '/', got '{0}'")]
    Bucket(String),
    #[error("object key must not be empty")]
    EmptyKey,
    #[error("query parameter '{0}' is written by the signer itself and cannot be added")]
    ReservedParam(String),
    #[error("signing time {0} is outside the years 0 to 9999")]
    Time(DateTime<Utc>),
    #[error(
        "header '{0}' cannot be signed: names are letters, digits and '-' (host is always signed), values have no control characters"
    )]
    Header(String),
}

/// Why a presigned request was refused; `s3_code` gives the S3 error code for the XML body.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// None of the signature parameters: an anonymous request, which S3 answers with
    /// `AccessDenied` for an object that is not public.
    #[error("Access Denied")]
    Anonymous,
    /// Some but not all signature parameters, or a repeated or malformed one (including
    /// a bad expiry).
    #[error("{0}")]
    QueryParameters(String),
    #[error("The access key id '{0}' does not exist in our records.")]
    UnknownAccessKey(String),
    #[error(
        "The request signature we calculated does not match the signature you provided. Check your key and signing method."
    )]
    SignatureMismatch,
    #[error("Request has expired")]
    Expired,
    /// `X-Amz-Date` is further in the future than the allowed clock skew.
    #[error("Request is not valid yet: X-Amz-Date is in the future")]
    NotYetValid,
    /// The path holds a `%` that is not followed by two hex digits.
    #[error("Couldn't parse the specified URI.")]
    InvalidUri,
    /// An `Authorization` header that is not SigV4's shape.
    #[error("The authorization header is malformed; {0}")]
    AuthorizationHeader(String),
    /// A header-signed request whose `x-amz-date` is more than 15 minutes off.
    #[error("The difference between the request time and the server's time is too large.")]
    TimeTooSkewed,
    #[error("Missing required header for this request: x-amz-content-sha256")]
    MissingContentSha256,
    #[error(
        "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-… or the hex SHA-256 of the body, got '{0}'"
    )]
    ContentSha256(String),
}

impl VerifyError {
    pub fn s3_code(&self) -> &'static str {
        match self {
            VerifyError::Anonymous => "AccessDenied",
            VerifyError::QueryParameters(_) => "AuthorizationQueryParametersError",
            VerifyError::UnknownAccessKey(_) => "InvalidAccessKeyId",
            VerifyError::SignatureMismatch => "SignatureDoesNotMatch",
            VerifyError::Expired | VerifyError::NotYetValid => "AccessDenied",
            VerifyError::InvalidUri => "InvalidURI",
            VerifyError::AuthorizationHeader(_) => "AuthorizationHeaderMalformed",
            VerifyError::TimeTooSkewed => "RequestTimeTooSkewed",
            VerifyError::MissingContentSha256 => "InvalidRequest",
            VerifyError::ContentSha256(_) => "InvalidArgument",
        }
    }

    /// Whether the request is malformed (S3 answers 400) rather than refused (403).
    pub fn is_malformed(&self) -> bool {
        matches!(
            self,
            VerifyError::QueryParameters(_)
                | VerifyError::InvalidUri
                | VerifyError::AuthorizationHeader(_)
                | VerifyError::MissingContentSha256
                | VerifyError::ContentSha256(_)
        )
    }

    /// The text for the `<Message>` of the S3 error body.
    pub fn message(&self) -> String {
        self.to_string()
    }
}

#[cfg(test)]
mod tests;
