//! The one place that turns errors into HTTP responses.
//!
//! Every module has its own error enum; each is mapped to an `ApiError` here, and
//! `ApiError::into_response` writes the contract's JSON body:
//! `{"statusCode": 400, "error": "Bad Request", "code": "invalid-parameter", "message": "..."}`.
//! The `code` is stable (`error_code.rs`): each variant has a general one, and a mapping that
//! knows more names the case with `with_code`.
//! Internal details (SQL, paths, I/O errors) go to the log, never into a body.

use std::convert::Infallible;

pub use super::error_code::ErrorCode;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Rejection, Reply};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("method {method} is not allowed on {path}; allowed: {allowed}")]
    MethodNotAllowed {
        method: String,
        path: String,
        allowed: String,
    },
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    /// The request is well-formed but its content cannot be expressed (a text a format
    /// cannot carry).
    #[error("{0}")]
    Unprocessable(String),
    /// One client (or all together) asked too often; `retry_after` is when it may again,
    /// in whole seconds, when that is known (`Retry-After`).
    #[error("{message}")]
    TooManyRequests {
        message: String,
        retry_after: Option<u64>,
    },
    /// The upstream the request depended on (the sheet's source, the S3 endpoint) failed.
    #[error("{0}")]
    BadGateway(String),
    #[error("{0}")]
    Unavailable(String),
    /// Something failed on our side. The text is logged, the client sees a generic message.
    #[error("{0}")]
    Internal(String),
    /// `error` with a code that says more than its variant's (`with_code`).
    #[error("{error}")]
    Coded {
        code: ErrorCode,
        error: Box<ApiError>,
    },
}

impl warp::reject::Reject for ApiError {}

/// A known path with another method. Its own type, not a plain `ApiError` rejection, so
/// that what a matching route found (a bad query, an oversized body) outranks it.
#[derive(Debug)]
pub struct WrongMethod(pub ApiError);

impl warp::reject::Reject for WrongMethod {}

/// The contract's error body, fields in the contract's order.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ErrorBody<'a> {
    status_code: u16,
    error: &'a str,
    code: &'a str,
    message: &'a str,
}

impl ApiError {
    /// This error with `code` in its body.
    pub fn with_code(self, code: ErrorCode) -> ApiError {
        let error = match self {
            ApiError::Coded { error, .. } => error,
            other => Box::new(other),
        };
        ApiError::Coded { code, error }
    }

    /// The error under any code given to it.
    fn plain(&self) -> &ApiError {
        match self {
            ApiError::Coded { error, .. } => error.plain(),
            other => other,
        }
    }

    /// The code of the body: the one given, or the variant's own.
    pub fn code(&self) -> ErrorCode {
        match self {
            ApiError::Coded { code, .. } => *code,
            ApiError::BadRequest(_) => ErrorCode::InvalidRequest,
            ApiError::Unauthorized(_) => ErrorCode::MissingApiKey,
            ApiError::Forbidden(_) => ErrorCode::Forbidden,
            ApiError::NotFound(_) => ErrorCode::NotFound,
            ApiError::MethodNotAllowed { .. } => ErrorCode::MethodNotAllowed,
            ApiError::Conflict(_) => ErrorCode::Conflict,
            ApiError::PayloadTooLarge(_) => ErrorCode::PayloadTooLarge,
            ApiError::Unprocessable(_) => ErrorCode::CannotRender,
            ApiError::TooManyRequests { .. } => ErrorCode::TooManyRequests,
            ApiError::BadGateway(_) => ErrorCode::UpstreamFailed,
            ApiError::Unavailable(_) => ErrorCode::Unavailable,
            ApiError::Internal(_) => ErrorCode::Internal,
        }
    }

    pub fn status(&self) -> StatusCode {
        match self.plain() {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::BadGateway(_) => StatusCode::BAD_GATEWAY,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) | ApiError::Coded { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The message a client may see; an internal error is logged and answered generically.
    pub fn public_message(&self) -> String {
        match self.plain() {
            ApiError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                "internal error; the server log has the details".to_owned()
            }
            other => other.to_string(),
        }
    }

    pub fn into_response(self) -> Response {
        let status = self.status();
        let code = self.code();
        // A code's status is part of its contract (the API description lists it).
        debug_assert_eq!(code.status(), status.as_u16(), "{code} answered {status}");
        let message = self.public_message();
        let body = ErrorBody {
            status_code: status.as_u16(),
            error: status.canonical_reason().unwrap_or("Error"),
            code: code.as_str(),
            message: &message,
        };
        let mut response =
            warp::reply::with_status(warp::reply::json(&body), status).into_response();
        match self.plain() {
            ApiError::Unauthorized(_) => {
                response.headers_mut().insert(
                    warp::http::header::WWW_AUTHENTICATE,
                    warp::http::HeaderValue::from_static("Bearer"),
                );
            }
            // RFC 9110 §15.5.6: a 405 names the methods the resource has.
            ApiError::MethodNotAllowed { allowed, .. } => {
                if let Ok(value) = warp::http::HeaderValue::from_str(allowed) {
                    response
                        .headers_mut()
                        .insert(warp::http::header::ALLOW, value);
                }
            }
            ApiError::TooManyRequests { .. } => self.add_retry_after(&mut response),
            _ => {}
        }
        response
    }

    /// `Retry-After` on `response` when this error knows when to retry (also on the
    /// console's error pages).
    pub fn add_retry_after(&self, response: &mut Response) {
        if let ApiError::TooManyRequests {
            retry_after: Some(secs),
            ..
        } = self.plain()
        {
            response.headers_mut().insert(
                warp::http::header::RETRY_AFTER,
                warp::http::HeaderValue::from(*secs),
            );
        }
    }
}

impl From<crate::translations::query::QueryError> for ApiError {
    fn from(e: crate::translations::query::QueryError) -> ApiError {
        ApiError::BadRequest(e.to_string()).with_code(ErrorCode::InvalidParameter)
    }
}

impl From<crate::translations::service::ServeTranslationsError> for ApiError {
    fn from(e: crate::translations::service::ServeTranslationsError) -> ApiError {
        use crate::formats::RenderError as R;
        use crate::translations::service::ServeTranslationsError as E;
        match e {
            E::NotLoaded => {
                ApiError::Unavailable(e.to_string()).with_code(ErrorCode::TranslationsNotLoaded)
            }
            E::StoreUnreachable(_) => {
                ApiError::Unavailable(e.to_string()).with_code(ErrorCode::StoreUnreachable)
            }
            E::Select(e) => ApiError::NotFound(e.to_string()).with_code(ErrorCode::NoTranslations),
            E::Render(
                e @ (R::UnrepresentableText { .. }
                | R::UnrepresentableKey { .. }
                | R::InvalidLanguage { .. }
                | R::NotALanguageTag { .. }),
            ) => ApiError::Unprocessable(e.to_string()),
            E::Render(e) => ApiError::Internal(e.to_string()),
            E::NoFallbackChain(_) => {
                ApiError::BadRequest(e.to_string()).with_code(ErrorCode::FallbackNotConfigured)
            }
            E::Task(e) => ApiError::Internal(e),
        }
    }
}

impl From<crate::translations::store::StoreError> for ApiError {
    fn from(e: crate::translations::store::StoreError) -> ApiError {
        use crate::translations::store::StoreError as E;
        match e {
            E::Unreachable { .. } => {
                ApiError::Unavailable(e.to_string()).with_code(ErrorCode::StoreUnreachable)
            }
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl From<crate::translations::versions::VersionError> for ApiError {
    fn from(e: crate::translations::versions::VersionError) -> ApiError {
        use crate::translations::versions::VersionError as E;
        match e {
            E::TooShort(_) => {
                ApiError::BadRequest(e.to_string()).with_code(ErrorCode::InvalidVersion)
            }
            E::Ambiguous { .. } => {
                ApiError::BadRequest(e.to_string()).with_code(ErrorCode::AmbiguousVersion)
            }
            E::NotKept(_) => ApiError::NotFound(e.to_string()).with_code(ErrorCode::UnknownVersion),
            E::Store(e) => e.into(),
        }
    }
}

/// A channel named or moved (SPEC §14).
impl From<crate::translations::channels::ChannelError> for ApiError {
    fn from(e: crate::translations::channels::ChannelError) -> ApiError {
        use crate::translations::channels::ChannelError as E;
        use crate::translations::channels::book::BookError as B;
        match e {
            E::Book(B::InvalidName(_) | B::Draft) => {
                ApiError::BadRequest(e.to_string()).with_code(ErrorCode::InvalidChannel)
            }
            E::Book(B::Unknown { .. }) => {
                ApiError::NotFound(e.to_string()).with_code(ErrorCode::UnknownChannel)
            }
            E::Book(B::NothingToRollBack { .. }) => {
                ApiError::Conflict(e.to_string()).with_code(ErrorCode::NothingToRollBack)
            }
            E::Findings { .. } => {
                ApiError::Conflict(e.to_string()).with_code(ErrorCode::VersionHasFindings)
            }
            E::NothingLoaded => {
                ApiError::Unavailable(e.to_string()).with_code(ErrorCode::TranslationsNotLoaded)
            }
            E::Busy(_) => ApiError::Conflict(e.to_string()),
            E::Version(e) => e.into(),
            E::Store(e) => e.into(),
        }
    }
}

/// A bundle of an SDK layout (SPEC §14).
impl From<crate::translations::bundles::BundleError> for ApiError {
    fn from(e: crate::translations::bundles::BundleError) -> ApiError {
        use crate::translations::bundles::BundleError as E;
        match e {
            E::UnknownNamespace { .. } => {
                ApiError::NotFound(e.to_string()).with_code(ErrorCode::UnknownNamespace)
            }
            E::UnknownLocale { .. } => {
                ApiError::NotFound(e.to_string()).with_code(ErrorCode::UnknownLocale)
            }
            E::NotKept(_) => ApiError::NotFound(e.to_string()).with_code(ErrorCode::UnknownVersion),
            E::Render(message) => ApiError::Unprocessable(message),
            E::Store(e) => e.into(),
            E::Task(message) => ApiError::Internal(message),
        }
    }
}

/// A sync asked for over HTTP: the source's failures are the upstream's (502, with the
/// source's error, which never holds a secret); the store's are ours.
impl From<crate::producer::CycleError> for ApiError {
    fn from(e: crate::producer::CycleError) -> ApiError {
        use crate::producer::CycleError as E;
        use crate::translations::store::StoreError as S;
        match e {
            e if e.is_source() => ApiError::BadGateway(format!(
                "the sync failed: {e}; the last good version is still served"
            ))
            .with_code(ErrorCode::SyncFailed),
            E::Store(e @ (S::EmptyDocument | S::Unservable(_))) => {
                ApiError::BadGateway(format!("the sync failed: {e}"))
                    .with_code(ErrorCode::SyncFailed)
            }
            E::Store(e) => e.into(),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

/// Past a cap of `/translations/events` streams: 429; no `Retry-After`, since nobody knows
/// when a stream will close.
impl From<crate::http::translation_events::SlotError> for ApiError {
    fn from(e: crate::http::translation_events::SlotError) -> ApiError {
        ApiError::TooManyRequests {
            message: e.to_string(),
            retry_after: None,
        }
        .with_code(ErrorCode::TooManyStreams)
    }
}

impl From<crate::files::QueryError> for ApiError {
    fn from(e: crate::files::QueryError) -> ApiError {
        ApiError::BadRequest(e.to_string()).with_code(ErrorCode::InvalidParameter)
    }
}

impl From<crate::files::RecordError> for ApiError {
    fn from(e: crate::files::RecordError) -> ApiError {
        ApiError::BadRequest(e.to_string()).with_code(ErrorCode::InvalidRecord)
    }
}

impl From<crate::files::RepoError> for ApiError {
    fn from(e: crate::files::RepoError) -> ApiError {
        use crate::files::RepoError as E;
        match e {
            E::NotFound { .. } => {
                ApiError::NotFound(e.to_string()).with_code(ErrorCode::UnknownFile)
            }
            E::UploadGone { .. } => {
                ApiError::NotFound(e.to_string()).with_code(ErrorCode::UnknownUpload)
            }
            E::Conflict { .. } => {
                ApiError::Conflict(e.to_string()).with_code(ErrorCode::FileExists)
            }
            E::Invalid(e) => e.into(),
            E::Busy { .. } | E::Unreachable { .. } => {
                ApiError::Unavailable(e.to_string()).with_code(ErrorCode::DatabaseUnreachable)
            }
            other => ApiError::Internal(other.detail()),
        }
    }
}

impl From<crate::objects::ObjectError> for ApiError {
    fn from(e: crate::objects::ObjectError) -> ApiError {
        use crate::objects::ObjectError as E;
        match e {
            E::InvalidBucket { .. } | E::InvalidKey { .. } => {
                ApiError::BadRequest(e.to_string()).with_code(ErrorCode::InvalidObjectKey)
            }
            E::NotFound { .. } => {
                ApiError::NotFound(e.to_string()).with_code(ErrorCode::UnknownObject)
            }
            E::KeyConflict { .. } => {
                ApiError::Conflict(e.to_string()).with_code(ErrorCode::FileExists)
            }
            E::Io { .. } => ApiError::Internal(e.to_string()),
        }
    }
}

/// The S3 endpoint's failures: unreachable is 503; its own answer (SignatureDoesNotMatch,
/// AccessDenied, ...) is 502, named with the endpoint's host and the S3 code, never a URL.
impl From<crate::content::s3::S3Error> for ApiError {
    fn from(e: crate::content::s3::S3Error) -> ApiError {
        use crate::content::s3::S3Error as E;
        match e {
            E::Unreachable { .. } => {
                ApiError::Unavailable(e.to_string()).with_code(ErrorCode::ObjectStoreUnreachable)
            }
            E::Refused { .. } => {
                ApiError::BadGateway(e.to_string()).with_code(ErrorCode::ObjectStoreRefused)
            }
            E::NoSuchBucket { .. } => {
                ApiError::BadRequest(e.to_string()).with_code(ErrorCode::NoSuchBucket)
            }
            E::Signing(_) | E::Read { .. } => ApiError::Internal(e.to_string()),
        }
    }
}

/// An upload form that cannot be read is the client's, unless its content could not be
/// spooled (ours).
impl From<crate::files::upload_form::FormError> for ApiError {
    fn from(e: crate::files::upload_form::FormError) -> ApiError {
        use crate::files::upload_form::FormError as E;
        match e {
            E::Write(e) => e.into(),
            other => ApiError::BadRequest(other.to_string()),
        }
    }
}

/// The content store's failures: the S3 endpoint's and the embedded store's as theirs; no
/// store to write to, or a part list it refused, are the request's.
impl From<crate::content::ContentError> for ApiError {
    fn from(e: crate::content::ContentError) -> ApiError {
        use crate::content::ContentError as E;
        match e {
            // The configuration in force cannot take uploads: nothing the request can fix.
            E::NoObjectStore => {
                ApiError::Conflict(e.to_string()).with_code(ErrorCode::UploadsNotConfigured)
            }
            E::PartsRefused { .. } => {
                ApiError::BadRequest(e.to_string()).with_code(ErrorCode::InvalidParts)
            }
            E::S3(e) => e.into(),
            E::Object(e) => e.into(),
            E::Signing(e) => e.into(),
            E::Unsigned | E::Task(..) => ApiError::Internal(e.to_string()),
        }
    }
}

impl From<crate::files::writes::WriteError> for ApiError {
    fn from(e: crate::files::writes::WriteError) -> ApiError {
        use crate::files::writes::WriteError as E;
        match e {
            E::Content(e) => e.into(),
            E::Record(e) => e.into(),
            E::Repo(e) => e.into(),
            E::Object(e) => e.into(),
            E::Random(_) => ApiError::Internal(e.to_string()),
        }
    }
}

/// Direct uploads (SPEC §13): what the client declared or sent is 400 (a bad field or part
/// list), 404 (no such upload, or expired), 409 (completed already, or no object yet) or
/// 422 (the object is not what was declared).
impl From<crate::files::uploads::UploadError> for ApiError {
    fn from(e: crate::files::uploads::UploadError) -> ApiError {
        use crate::files::uploads::UploadError as E;
        match e {
            E::Invalid(_) | E::TooLarge(_) => {
                ApiError::BadRequest(e.to_string()).with_code(ErrorCode::InvalidUpload)
            }
            E::Parts(_) => ApiError::BadRequest(e.to_string()).with_code(ErrorCode::InvalidParts),
            E::Record(e) => e.into(),
            E::NoSuchUpload(_) | E::Expired { .. } => {
                ApiError::NotFound(e.to_string()).with_code(ErrorCode::UnknownUpload)
            }
            E::AlreadyCompleted(_) => {
                ApiError::Conflict(e.to_string()).with_code(ErrorCode::UploadCompleted)
            }
            E::NotArrived { .. } => {
                ApiError::Conflict(e.to_string()).with_code(ErrorCode::UploadNotArrived)
            }
            E::Mismatch { .. } => {
                ApiError::Unprocessable(e.to_string()).with_code(ErrorCode::UploadMismatch)
            }
            E::Content(e) => e.into(),
            E::Repo(e) => e.into(),
            E::Signing(e) => e.into(),
            E::Random(_) => ApiError::Internal(e.to_string()),
        }
    }
}

/// A record that cannot be signed is a configuration problem (endpoint, credentials), not
/// the client's: logged in full, answered generically.
impl From<crate::signing::SigningError> for ApiError {
    fn from(e: crate::signing::SigningError) -> ApiError {
        ApiError::Internal(format!("cannot sign the URL: {e}"))
    }
}

/// Turns a handler's result into a response, errors included.
pub fn respond<R: Reply>(result: Result<R, ApiError>) -> Response {
    match result {
        Ok(reply) => reply.into_response(),
        Err(e) => e.into_response(),
    }
}

/// Last stop for requests no route answered: unknown paths, wrong methods, oversized
/// bodies, malformed query strings.
pub async fn recover(rejection: Rejection) -> Result<Response, Infallible> {
    use warp::reject;
    // Several routes may have rejected one request: a route that matched the path says
    // more than one that did not, and a 405 from a sibling route (same path, other method)
    // says less than what the matching route found (an oversized body, a bad query).
    let error = if let Some(e) = rejection.find::<ApiError>() {
        e.clone()
    } else if rejection.find::<reject::PayloadTooLarge>().is_some() {
        ApiError::PayloadTooLarge(
            "request body is larger than the limit (server.body_limit_bytes)".into(),
        )
    } else if rejection.find::<reject::InvalidQuery>().is_some() {
        ApiError::BadRequest("the query string is not valid URL encoding".into())
            .with_code(ErrorCode::InvalidParameter)
    } else if rejection.find::<reject::LengthRequired>().is_some() {
        ApiError::BadRequest("a Content-Length header is required".into())
            .with_code(ErrorCode::LengthRequired)
    } else if let Some(e) = rejection.find::<reject::MissingHeader>() {
        ApiError::BadRequest(format!("header {} is required", e.name()))
            .with_code(ErrorCode::MissingHeader)
    } else if let Some(e) = rejection.find::<reject::InvalidHeader>() {
        ApiError::BadRequest(format!("header {} is not valid", e.name()))
            .with_code(ErrorCode::InvalidHeader)
    } else if rejection.find::<reject::UnsupportedMediaType>().is_some() {
        ApiError::BadRequest(
            "unsupported Content-Type for this route (POST /files takes multipart/form-data)"
                .into(),
        )
        .with_code(ErrorCode::UnsupportedMediaType)
    } else if let Some(WrongMethod(e)) = rejection.find() {
        e.clone()
    } else if rejection.is_not_found() {
        ApiError::NotFound("no such route; GET /openapi.json lists every route".into())
            .with_code(ErrorCode::UnknownRoute)
    } else {
        ApiError::Internal(format!("unhandled rejection: {rejection:?}"))
    };
    Ok(error.into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_the_contract() {
        let cases = [
            (ApiError::BadRequest(String::new()), 400),
            (ApiError::Unauthorized(String::new()), 401),
            (ApiError::Forbidden(String::new()), 403),
            (ApiError::NotFound(String::new()), 404),
            (ApiError::PayloadTooLarge(String::new()), 413),
            (ApiError::Unavailable(String::new()), 503),
            (ApiError::Internal(String::new()), 500),
        ];
        for (error, status) in cases {
            assert_eq!(error.into_response().status(), status);
        }
    }
}
