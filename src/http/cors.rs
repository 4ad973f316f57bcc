//! Cross-origin requests (CORS), for browser apps that fetch translations or files from
//! another origin. Off unless `server.cors_origins` lists origins (or `*`); read per
//! request, so a reload applies at once.
//!
//! Preflights (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) on a known
//! path are answered here; every other response gets `Vary: Origin`, and, for an allowed
//! origin, `Access-Control-Allow-Origin` and the exposed headers.

use super::ApiError;
use super::routes::allowed_methods;
use warp::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use warp::reply::Response;

/// Request headers a cross-origin request may send (beyond the CORS-safelisted ones).
/// `x-amz-checksum-sha256`: the checksum a direct upload's PUT to the embedded store carries.
pub const ALLOWED_HEADERS: &[&str] = &[
    "authorization",
    "content-type",
    "if-none-match",
    "range",
    "x-amz-checksum-sha256",
];

/// Response headers a cross-origin script may read (beyond the safelisted ones).
pub const EXPOSED_HEADERS: &str = "ETag, Depot-Warnings, Content-Range";

/// How long a browser may cache a preflight answer, in seconds.
const MAX_AGE_SECS: &str = "600";

/// The origins `server.cors_origins` allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy<'a> {
    Off,
    Any,
    /// Serialized origins (`https://app.example`), as browsers send them.
    List(&'a [String]),
}

impl<'a> Policy<'a> {
    /// The policy of a validated `server.cors_origins` (`["*"]` means any origin).
    pub fn of(origins: &'a [String]) -> Policy<'a> {
        match origins {
            [] => Policy::Off,
            [only] if only == "*" => Policy::Any,
            list => Policy::List(list),
        }
    }

    /// The `Access-Control-Allow-Origin` value for `origin`, if it is allowed.
    fn allow_origin(&self, origin: &HeaderValue) -> Option<HeaderValue> {
        match self {
            Policy::Off => None,
            Policy::Any => Some(HeaderValue::from_static("*")),
            Policy::List(list) => {
                let origin = origin.to_str().ok()?;
                list.iter()
                    .any(|allowed| allowed.eq_ignore_ascii_case(origin))
                    .then(|| HeaderValue::from_str(origin).ok())
                    .flatten()
            }
        }
    }
}

/// A CORS preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`.
pub fn is_preflight(method: &Method, headers: &HeaderMap) -> bool {
    method == Method::OPTIONS
        && headers.contains_key(header::ORIGIN)
        && headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
}

/// The answer to a preflight for `path`, or `None` when CORS is off or no route has this
/// path (normal routing answers then: 405 or 404). A refused preflight is a 403 whose
/// message says what to change; it carries no CORS headers, so the browser stops there.
pub fn preflight(
    policy: Policy<'_>,
    path: &str,
    headers: &HeaderMap,
) -> Option<Result<Response, ApiError>> {
    if policy == Policy::Off {
        return None;
    }
    let methods = allowed_methods(path);
    if methods.is_empty() {
        return None;
    }
    let origin = headers.get(header::ORIGIN)?;
    Some(answer_preflight(policy, &methods, origin, headers))
}

fn answer_preflight(
    policy: Policy<'_>,
    methods: &[&str],
    origin: &HeaderValue,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let Some(allow_origin) = policy.allow_origin(origin) else {
        return Err(ApiError::Forbidden(format!(
            "origin '{}' may not make cross-origin requests: add it to server.cors_origins",
            String::from_utf8_lossy(origin.as_bytes())
        )));
    };
    let requested = headers
        .get(header::ACCESS_CONTROL_REQUEST_METHOD)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !methods.contains(&requested) {
        return Err(ApiError::Forbidden(format!(
            "method '{requested}' is not allowed on this path; allowed: {}",
            methods.join(", ")
        )));
    }
    let asked_headers = headers
        .get_all(header::ACCESS_CONTROL_REQUEST_HEADERS)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|h| !h.is_empty());
    for asked in asked_headers {
        if !ALLOWED_HEADERS
            .iter()
            .any(|h| h.eq_ignore_ascii_case(asked))
        {
            return Err(ApiError::Forbidden(format!(
                "request header '{asked}' is not allowed cross-origin; allowed: {}",
                ALLOWED_HEADERS.join(", ")
            )));
        }
    }
    let mut response = Response::new(Default::default());
    *response.status_mut() = StatusCode::NO_CONTENT;
    let out = response.headers_mut();
    out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, allow_origin);
    if let Ok(value) = HeaderValue::from_str(&methods.join(", ")) {
        out.insert(header::ACCESS_CONTROL_ALLOW_METHODS, value);
    }
    if let Ok(value) = HeaderValue::from_str(&ALLOWED_HEADERS.join(", ")) {
        out.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, value);
    }
    out.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static(MAX_AGE_SECS),
    );
    // The answer depends on what was asked, not only on the origin.
    out.append(
        header::VARY,
        HeaderValue::from_static("Access-Control-Request-Method, Access-Control-Request-Headers"),
    );
    Ok(response)
}

/// Adds the CORS headers to any response (preflight answers included): `Vary: Origin`
/// whenever CORS is on, so a cache never hands one origin's answer to another, and the
/// allow/expose headers for an allowed origin.
pub fn decorate(policy: Policy<'_>, origin: Option<&HeaderValue>, response: &mut Response) {
    if policy == Policy::Off {
        return;
    }
    let headers = response.headers_mut();
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
    let Some(allow_origin) = origin.and_then(|o| policy.allow_origin(o)) else {
        return;
    };
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, allow_origin);
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSED_HEADERS),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(origin: &str, method: &str, asked_headers: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
        h.insert(
            header::ACCESS_CONTROL_REQUEST_METHOD,
            HeaderValue::from_str(method).unwrap(),
        );
        if let Some(asked) = asked_headers {
            h.insert(
                header::ACCESS_CONTROL_REQUEST_HEADERS,
                HeaderValue::from_str(asked).unwrap(),
            );
        }
        h
    }

    fn header_of<'r>(response: &'r Response, name: &str) -> Vec<&'r str> {
        response
            .headers()
            .get_all(name)
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect()
    }

    #[test]
    fn off_answers_nothing_and_adds_nothing() {
        let policy = Policy::of(&[]);
        assert_eq!(policy, Policy::Off);
        assert!(
            preflight(
                policy,
                "/translations",
                &request("https://a.example", "GET", None)
            )
            .is_none()
        );
        let mut response = Response::new(Default::default());
        decorate(
            policy,
            Some(&HeaderValue::from_static("https://a.example")),
            &mut response,
        );
        assert!(response.headers().is_empty());
    }

    #[test]
    fn a_listed_origin_gets_the_preflight_and_its_own_origin_back() {
        let origins = vec!["https://app.example".to_owned()];
        let policy = Policy::of(&origins);
        let response = preflight(
            policy,
            "/translations",
            &request(
                "https://app.example",
                "GET",
                Some("Authorization, If-None-Match"),
            ),
        )
        .unwrap()
        .unwrap();
        assert_eq!(response.status(), 204);
        assert_eq!(
            header_of(&response, "access-control-allow-origin"),
            ["https://app.example"]
        );
        assert_eq!(
            header_of(&response, "access-control-allow-methods"),
            ["GET, HEAD"]
        );
        assert_eq!(
            header_of(&response, "access-control-allow-headers"),
            ["authorization, content-type, if-none-match, range, x-amz-checksum-sha256"]
        );
        assert_eq!(header_of(&response, "access-control-max-age"), ["600"]);
    }

    #[test]
    fn refusals_name_what_to_change() {
        let origins = vec!["https://app.example".to_owned()];
        let policy = Policy::of(&origins);
        let refused = |headers: HeaderMap| {
            preflight(policy, "/files", &headers)
                .unwrap()
                .unwrap_err()
                .to_string()
        };
        assert!(
            refused(request("https://evil.example", "GET", None)).contains("server.cors_origins")
        );
        assert!(
            refused(request("https://app.example", "PUT", None))
                .contains("allowed: GET, HEAD, POST")
        );
        assert!(
            refused(request("https://app.example", "GET", Some("X-Custom"))).contains("'X-Custom'")
        );
        // No route at this path: routing answers (404).
        assert!(
            preflight(
                policy,
                "/nope",
                &request("https://app.example", "GET", None)
            )
            .is_none()
        );
    }

    #[test]
    fn responses_vary_on_origin_and_expose_etag_and_warnings() {
        let origins = vec!["https://app.example".to_owned()];
        let policy = Policy::of(&origins);
        let mut allowed = Response::new(Default::default());
        allowed
            .headers_mut()
            .insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
        decorate(
            policy,
            Some(&HeaderValue::from_static("https://app.example")),
            &mut allowed,
        );
        assert_eq!(header_of(&allowed, "vary"), ["Accept-Encoding", "Origin"]);
        assert_eq!(
            header_of(&allowed, "access-control-allow-origin"),
            ["https://app.example"]
        );
        assert_eq!(
            header_of(&allowed, "access-control-expose-headers"),
            ["ETag, Depot-Warnings, Content-Range"]
        );

        let mut other = Response::new(Default::default());
        decorate(
            policy,
            Some(&HeaderValue::from_static("https://evil.example")),
            &mut other,
        );
        assert_eq!(header_of(&other, "vary"), ["Origin"]);
        assert!(other.headers().get("access-control-allow-origin").is_none());

        let any = vec!["*".to_owned()];
        let mut open = Response::new(Default::default());
        decorate(
            Policy::of(&any),
            Some(&HeaderValue::from_static("https://x.example")),
            &mut open,
        );
        assert_eq!(header_of(&open, "access-control-allow-origin"), ["*"]);
    }
}
