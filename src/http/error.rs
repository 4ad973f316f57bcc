//! The one place that turns errors into HTTP responses.
//!
//! Every module has its own error enum; each is mapped to an `ApiError` here, and
//! `ApiError::into_response` writes the contract's JSON body:
//! `{"statusCode": 400, "error": "Bad Request", "message": "..."}`.
//! Internal details (SQL, paths, I/O errors) go to the log, never into a body.

use std::convert::Infallible;
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
    PayloadTooLarge(String),
    #[error("{0}")]
    Unavailable(String),
    /// Something failed on our side. The text is logged, the client sees a generic message.
    #[error("{0}")]
    Internal(String),
}

impl warp::reject::Reject for ApiError {}

/// The contract's error body, fields in the contract's order.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ErrorBody<'a> {
    status_code: u16,
    error: &'a str,
    message: &'a str,
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn into_response(self) -> Response {
        let status = self.status();
        let message = match &self {
            ApiError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                "internal error; the server log has the details".to_owned()
            }
            other => other.to_string(),
        };
        let body = ErrorBody {
            status_code: status.as_u16(),
            error: status.canonical_reason().unwrap_or("Error"),
            message: &message,
        };
        let mut response =
            warp::reply::with_status(warp::reply::json(&body), status).into_response();
        if let ApiError::Unauthorized(_) = self {
            response.headers_mut().insert(
                warp::http::header::WWW_AUTHENTICATE,
                warp::http::HeaderValue::from_static("Bearer"),
            );
        }
        response
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
    let error = if let Some(e) = rejection.find::<ApiError>() {
        e.clone()
    } else if rejection.is_not_found() {
        ApiError::NotFound("no such route; GET /openapi.json lists every route".into())
    } else if rejection.find::<reject::PayloadTooLarge>().is_some() {
        ApiError::PayloadTooLarge(
            "request body is larger than the limit (server.body_limit_bytes)".into(),
        )
    } else if rejection.find::<reject::InvalidQuery>().is_some() {
        ApiError::BadRequest("the query string is not valid URL encoding".into())
    } else if rejection.find::<reject::LengthRequired>().is_some() {
        ApiError::BadRequest("a Content-Length header is required".into())
    } else if let Some(e) = rejection.find::<reject::MissingHeader>() {
        ApiError::BadRequest(format!("header {} is required", e.name()))
    } else if let Some(e) = rejection.find::<reject::InvalidHeader>() {
        ApiError::BadRequest(format!("header {} is not valid", e.name()))
    } else if rejection.find::<reject::UnsupportedMediaType>().is_some() {
        ApiError::BadRequest("unsupported Content-Type for this route".into())
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
