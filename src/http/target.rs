//! The request-target rule (RFC 9112 §3.2), applied before any route sees a request.
//!
//! depot is an origin server, not a proxy: it answers origin-form targets (`/health?x=1`),
//! absolute-form targets that name the host the request was sent to (what HTTP/2 requests
//! and some HTTP/1.1 clients use), and `OPTIONS *`. Anything else (asterisk-form with
//! another method or more after the `*`, authority-form, absolute-form for another host)
//! is a 400, answered before warp's path filters, which assume a path.

use super::ApiError;
use warp::http::uri::{Authority, PathAndQuery, Scheme};
use warp::http::{HeaderValue, Method, Uri};

/// What a request's target is, once accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// `/path?query`: routed as it is.
    Origin,
    /// `http://host/path?query` for this host: routed as its origin-form, with `Host` set to
    /// the target's authority when the request had none (HTTP/2 sends `:authority` only).
    Absolute {
        authority: Authority,
        path_and_query: PathAndQuery,
    },
    /// `OPTIONS *`: a question about the server as a whole.
    ServerWide,
}

/// Longest part of a refused target echoed back in the error message.
const ECHO_LIMIT: usize = 64;

/// Classifies `uri`; a target depot does not answer is a 400 that says what is accepted.
pub fn classify(method: &Method, uri: &Uri, host: Option<&HeaderValue>) -> Result<Form, ApiError> {
    match (uri.scheme(), uri.authority(), uri.path_and_query()) {
        (None, None, Some(pq)) if pq.path().starts_with('/') => Ok(Form::Origin),
        (None, None, Some(pq)) if pq.as_str() == "*" => {
            if method == Method::OPTIONS {
                Ok(Form::ServerWide)
            } else {
                Err(ApiError::BadRequest(format!(
                    "the request target * is only allowed with OPTIONS, not {method}; send a path such as /health"
                )))
            }
        }
        (Some(scheme), Some(authority), pq) if is_http(scheme) => {
            if let Some(host) = host
                && !same_host(host, authority, scheme)
            {
                return Err(ApiError::BadRequest(format!(
                    "the request target names host '{}' but the Host header says '{}'; depot is not a proxy: send a path such as /health",
                    echo(authority.as_str()),
                    echo(&String::from_utf8_lossy(host.as_bytes())),
                )));
            }
            Ok(Form::Absolute {
                authority: authority.clone(),
                path_and_query: pq
                    .cloned()
                    .unwrap_or_else(|| PathAndQuery::from_static("/")),
            })
        }
        _ => Err(ApiError::BadRequest(format!(
            "the request target '{}' is not a path; depot is not a proxy: send a path such as /health (origin-form, RFC 9112 section 3.2)",
            echo(&uri.to_string())
        ))),
    }
}

fn is_http(scheme: &Scheme) -> bool {
    *scheme == Scheme::HTTP || *scheme == Scheme::HTTPS
}

/// `Host` and the target's authority name the same host and port (default ports filled in).
fn same_host(host: &HeaderValue, authority: &Authority, scheme: &Scheme) -> bool {
    let Ok(host) = host
        .to_str()
        .map(str::trim)
        .unwrap_or_default()
        .parse::<Authority>()
    else {
        return false;
    };
    let default = if *scheme == Scheme::HTTPS { 443 } else { 80 };
    host.host().eq_ignore_ascii_case(authority.host())
        && host.port_u16().unwrap_or(default) == authority.port_u16().unwrap_or(default)
}

fn echo(text: &str) -> String {
    let mut out: String = text
        .chars()
        .filter(|c| !c.is_control())
        .take(ECHO_LIMIT)
        .collect();
    if text.chars().count() > ECHO_LIMIT {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify_raw(method: &str, target: &str, host: Option<&str>) -> Result<Form, String> {
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let uri: Uri = target.parse().unwrap();
        let host = host.map(|h| HeaderValue::from_str(h).unwrap());
        classify(&method, &uri, host.as_ref()).map_err(|e| e.to_string())
    }

    #[test]
    fn origin_form_passes() {
        assert_eq!(
            classify_raw("GET", "/health?x=1", Some("a")),
            Ok(Form::Origin)
        );
        assert_eq!(classify_raw("GET", "/", None), Ok(Form::Origin));
    }

    #[test]
    fn options_star_is_server_wide_and_other_asterisks_are_refused() {
        assert_eq!(classify_raw("OPTIONS", "*", None), Ok(Form::ServerWide));
        let err = classify_raw("GET", "*", None).unwrap_err();
        assert!(err.contains("only allowed with OPTIONS"), "{err}");
        for target in ["*x=1", "*x", "**"] {
            for method in ["POST", "OPTIONS", "GET"] {
                let err = classify_raw(method, target, None).unwrap_err();
                assert!(err.contains("not a path"), "{method} {target}: {err}");
            }
        }
    }

    #[test]
    fn absolute_form_is_accepted_for_this_host_only() {
        let this = classify_raw(
            "GET",
            "http://127.0.0.1:3000/health?x=1",
            Some("127.0.0.1:3000"),
        );
        assert_eq!(
            this,
            Ok(Form::Absolute {
                authority: Authority::from_static("127.0.0.1:3000"),
                path_and_query: PathAndQuery::from_static("/health?x=1"),
            })
        );
        // Host names compare without case, and a default port equals none.
        assert!(
            classify_raw(
                "GET",
                "http://Depot.Example:80/health",
                Some("depot.example")
            )
            .is_ok()
        );
        assert!(classify_raw("GET", "https://depot.example/", Some("depot.example:443")).is_ok());
        // HTTP/2 requests carry the authority only.
        assert!(classify_raw("GET", "http://depot.example/health", None).is_ok());
        let err =
            classify_raw("GET", "http://evil.example/health", Some("127.0.0.1:3000")).unwrap_err();
        assert!(
            err.contains("'evil.example'") && err.contains("not a proxy"),
            "{err}"
        );
        let err = classify_raw("GET", "http://a.example:81/", Some("a.example")).unwrap_err();
        assert!(err.contains("not a proxy"), "{err}");
    }

    #[test]
    fn authority_form_and_other_schemes_are_refused() {
        let err = classify_raw("CONNECT", "example.com:443", Some("example.com:443")).unwrap_err();
        assert!(err.contains("'example.com:443' is not a path"), "{err}");
        let err = classify_raw("GET", "ftp://example.com/x", None).unwrap_err();
        assert!(err.contains("not a path"), "{err}");
    }

    #[test]
    fn long_targets_are_cut_in_the_message() {
        let target = format!("http://{}.example/", "a".repeat(200));
        let err = classify_raw("GET", &target, Some("depot")).unwrap_err();
        assert!(err.contains("...'"), "{err}");
        assert!(err.len() < 300, "{err}");
    }
}
