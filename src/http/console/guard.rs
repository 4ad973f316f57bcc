//! What the console refuses from other sites (SPEC §10 "Safety of the console"): a redirect
//! after login goes only to a console page, and a form that changes something (the login
//! included) is accepted only from the console's own pages.

use crate::http::ApiError;
use crate::http::routes::{self as table, Route};
use warp::http::uri::Authority;
use warp::http::{HeaderMap, header};

/// Where to go after login: `next` when it is a page of the console (a GET route of the
/// table under `/` or `/console/`, the login form aside), else the overview.
///
/// `next` is matched as the router matches a request path, without decoding, and only
/// printable ASCII without `\` passes: the `Location` sent is then a console path exactly,
/// with nothing in it a browser could decode or strip (tabs, newlines, `\`, `%2F`) into a
/// path that starts with `//`, i.e. into another origin.
pub fn safe_next(next: Option<&str>) -> String {
    next.filter(|n| is_console_page(n))
        .map_or_else(|| "/".to_owned(), str::to_owned)
}

fn is_console_page(next: &str) -> bool {
    if !next.bytes().all(|b| b.is_ascii_graphic() && b != b'\\') {
        return false;
    }
    let path = next.split(['?', '#']).next().unwrap_or_default();
    table::ROUTES
        .iter()
        .any(|route| is_page(route) && table::match_template(route.path, path).is_some())
}

fn is_page(route: &Route) -> bool {
    route.method == "GET"
        && (route.path == "/" || route.path.starts_with("/console/"))
        && route.path != table::CONSOLE_LOGIN_FORM.path
}

/// Refuses a form another site made the browser send. Browsers say where a request comes
/// from in `Sec-Fetch-Site`, `Origin` (every POST) and `Referer`; whichever of them is
/// present must name this console (its `Host`, or `server.public_url`, the address clients
/// use behind a proxy). A request with none of them does not come from a browser (curl, a
/// script): no other site can make it.
pub fn same_origin(headers: &HeaderMap, public_url: Option<&str>) -> Result<(), ApiError> {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let ours = |origin: &str| {
        let host = text(header::HOST);
        host.is_some_and(|host| same_authority(origin, host))
            || public_url.is_some_and(|public| same_origin_url(origin, public))
    };
    let refuse = |what: String| {
        Err(ApiError::Forbidden(format!(
            "this form was sent from another site ({what}): the console takes forms only \
             from its own pages; open the console's address and submit the form there"
        )))
    };
    if let Some(site) = text(header::HeaderName::from_static("sec-fetch-site"))
        && !matches!(site, "same-origin" | "none")
    {
        return refuse(format!("Sec-Fetch-Site: {site}"));
    }
    match (text(header::ORIGIN), text(header::REFERER)) {
        (Some(origin), _) if !ours(origin) => refuse(format!("Origin: {origin}")),
        (None, Some(referer)) if !ours(referer) => refuse(format!(
            "Referer of {}",
            origin_of(referer).unwrap_or_else(|| "an unreadable address".to_owned())
        )),
        // Headers that are not text are not a browser's.
        _ if headers.get(header::ORIGIN).is_some() && text(header::ORIGIN).is_none() => {
            refuse("an unreadable Origin".to_owned())
        }
        _ => Ok(()),
    }
}

/// `scheme://host[:port]` of a URL, for messages.
fn origin_of(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    Some(url.origin().ascii_serialization()).filter(|o| o != "null")
}

/// Whether the origin of `url` (an `Origin` or `Referer` value) is `host` (a `Host`
/// header): the same host and port, the port of a URL without one being its scheme's.
fn same_authority(url: &str, host: &str) -> bool {
    let (Ok(url), Ok(host)) = (url::Url::parse(url), host.parse::<Authority>()) else {
        return false;
    };
    let Some(url_host) = url.host_str() else {
        return false;
    };
    url_host.eq_ignore_ascii_case(host.host())
        && url.port_or_known_default() == host.port_u16().or(url.port_or_known_default())
        && matches!(url.scheme(), "http" | "https")
}

/// Whether two URLs have the same origin (scheme, host and port).
fn same_origin_url(a: &str, b: &str) -> bool {
    matches!((origin_of(a), origin_of(b)), (Some(a), Some(b)) if a == b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warp::http::HeaderValue;

    #[test]
    fn after_login_only_console_pages_are_followed() {
        for good in [
            "/",
            "/console/files?page=2",
            "/console/file?key=a%2Fb",
            "/console/translations?q=x&locale=pl_PL",
            "/console/preview",
        ] {
            assert_eq!(safe_next(Some(good)), good);
        }
        for bad in [
            "//evil.example",
            "///evil.example",
            "/\\evil.example",
            "/%09/evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "%2F%2Fevil.example",
            "/%2F/evil.example",
            "/%5Cevil.example",
            "https://evil.example/",
            "http:evil.example",
            "javascript:alert(1)",
            "evil.example",
            "/console/files\t",
            "/console/../..//evil.example",
            "/console/login",
            "/console/nothing",
            "/health",
            "/objects/b/k.html",
            "",
        ] {
            assert_eq!(safe_next(Some(bad)), "/", "{bad:?}");
        }
        assert_eq!(safe_next(None), "/");
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(
                header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    #[test]
    fn forms_from_the_console_itself_or_from_no_browser_pass() {
        let host = ("host", "127.0.0.1:3000");
        for pairs in [
            vec![host],
            vec![host, ("origin", "http://127.0.0.1:3000")],
            vec![host, ("origin", "https://127.0.0.1:3000")],
            vec![
                host,
                ("referer", "http://127.0.0.1:3000/console/login?next=/"),
            ],
            vec![
                host,
                ("sec-fetch-site", "same-origin"),
                ("origin", "http://127.0.0.1:3000"),
            ],
            vec![host, ("sec-fetch-site", "none")],
            vec![
                ("host", "Depot.Example"),
                ("origin", "https://depot.example"),
            ],
            vec![
                ("host", "depot.example:443"),
                ("origin", "https://depot.example"),
            ],
            vec![("host", "[::1]:3000"), ("origin", "http://[::1]:3000")],
        ] {
            assert!(same_origin(&headers(&pairs), None).is_ok(), "{pairs:?}");
        }
        // Behind a proxy that passes its own Host on: the public URL.
        let proxied = headers(&[
            ("host", "127.0.0.1:3000"),
            ("origin", "https://depot.example"),
        ]);
        assert!(same_origin(&proxied, Some("https://depot.example")).is_ok());
    }

    #[test]
    fn forms_from_another_site_are_refused_naming_why() {
        let host = ("host", "127.0.0.1:3000");
        for (pairs, named) in [
            (
                vec![host, ("origin", "http://127.0.0.2:3000")],
                "Origin: http://127.0.0.2:3000",
            ),
            (
                vec![host, ("origin", "http://127.0.0.1:3001")],
                "Origin: http://127.0.0.1:3001",
            ),
            (vec![host, ("origin", "null")], "Origin: null"),
            (vec![("origin", "http://127.0.0.1:3000")], "Origin"),
            (
                vec![host, ("referer", "http://evil.example/form.html")],
                "Referer of http://evil.example",
            ),
            (
                vec![host, ("sec-fetch-site", "cross-site")],
                "Sec-Fetch-Site: cross-site",
            ),
            (
                vec![
                    host,
                    ("sec-fetch-site", "same-site"),
                    ("origin", "http://127.0.0.1:3000"),
                ],
                "Sec-Fetch-Site: same-site",
            ),
            (vec![host, ("origin", "ftp://127.0.0.1:3000")], "Origin"),
        ] {
            let error = same_origin(&headers(&pairs), None).unwrap_err();
            assert_eq!(error.status(), warp::http::StatusCode::FORBIDDEN);
            assert!(error.to_string().contains(named), "{pairs:?}: {error}");
        }
        let evil = headers(&[host, ("origin", "https://evil.example")]);
        assert!(same_origin(&evil, Some("https://depot.example")).is_err());
    }
}
