//! Every HTTP route in one table. The router matches requests through `on(&ROUTE)`, the
//! OpenAPI document and the metrics labels are generated from the same table, so the
//! documentation cannot drift from what is served.

use super::error::ApiError;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::Method;
use warp::path::FullPath;

/// A query, path or header parameter, for the OpenAPI document.
#[derive(Debug)]
pub struct Param {
    pub name: &'static str,
    pub location: &'static str,
    pub required: bool,
    pub description: &'static str,
}

/// One method on one path template. Templates use `{name}` for one segment and
/// `{name+}` for the rest of the path (slashes included).
#[derive(Debug)]
pub struct Route {
    pub method: &'static str,
    pub path: &'static str,
    pub summary: &'static str,
    pub params: &'static [Param],
    pub responses: &'static [(u16, &'static str)],
}

pub const HEALTH: Route = Route {
    method: "GET",
    path: "/health",
    summary: "Liveness, version, configuration revision and translations status",
    params: &[],
    responses: &[(200, "status document")],
};

pub const METRICS: Route = Route {
    method: "GET",
    path: "/metrics",
    summary: "Prometheus metrics: requests and latency per route and status",
    params: &[],
    responses: &[(200, "Prometheus text format 0.0.4")],
};

pub const OPENAPI: Route = Route {
    method: "GET",
    path: "/openapi.json",
    summary: "This API description",
    params: &[],
    responses: &[(200, "OpenAPI 3.0 document")],
};

const fn query(name: &'static str, description: &'static str) -> Param {
    Param {
        name,
        location: "query",
        required: false,
        description,
    }
}

pub const TRANSLATIONS: Route = Route {
    method: "GET",
    path: "/translations",
    summary: "The current translations, filtered, in one of six formats",
    params: &[
        query(
            "filters[]",
            "repeatable: locale, locale.SECTION[.SUB...], locale.tag, locale.SECTION.tag, or * / no locale for every locale; the union is served",
        ),
        query("format", "json (default), android, ios, yml, xlf, po"),
        query(
            "keepLocale",
            "true: flat formats prefix names with the locale even for one locale",
        ),
        query(
            "comments",
            "true: write the $$$ column as the format's comments",
        ),
    ],
    responses: &[
        (
            200,
            "the translations; ETag, Cache-Control, gzip/br on request",
        ),
        (304, "If-None-Match matched"),
        (400, "unknown parameter, malformed filter or unknown format"),
        (404, "no filter matched anything"),
        (422, "a text the chosen format cannot carry"),
        (503, "no translations loaded yet"),
    ],
};

pub const FILES_LIST: Route = Route {
    method: "GET",
    path: "/files",
    summary: "File records, newest first, paginated",
    params: &[
        query(
            "permission",
            "public or private (private needs an API key when keys are configured)",
        ),
        query(
            "fileName",
            "case-insensitive substring of the file name; % and _ match themselves",
        ),
        query("page", "integer >= 1, default 1"),
        query(
            "limit",
            "integer >= 1, default files.default_limit (25), clamped to files.max_limit (100)",
        ),
    ],
    responses: &[
        (
            200,
            "{data: [record], meta: {total: \"digits\", page, limit}}",
        ),
        (400, "a bad page, limit, permission or fileName"),
        (
            401,
            "permission=private without a valid API key, or an unknown key",
        ),
    ],
};

pub const FILE_GET: Route = Route {
    method: "GET",
    path: "/file",
    summary: "One file record with a presigned GET URL (signedUrl)",
    params: &[
        Param {
            name: "key",
            location: "query",
            required: true,
            description: "the record's key, URL-encoded (any S3 key: 1 to 1024 bytes of UTF-8)",
        },
        query(
            "download",
            "true or false (default): true signs response-content-disposition = attachment with the record's fileName (RFC 6266)",
        ),
    ],
    responses: &[
        (200, "the record plus signedUrl"),
        (400, "key missing, or download neither true nor false"),
        (401, "a private record without a valid API key"),
        (404, "no record has this key"),
    ],
};

pub const FILES_CREATE: Route = Route {
    method: "POST",
    path: "/files",
    summary: "Upload a file (multipart: file, bucket, permission, description, status); admin key",
    params: &[],
    responses: &[
        (201, "the new record"),
        (400, "a bad form field"),
        (401, "no admin key"),
        (
            403,
            "not an admin key, or writes are off (no auth.admin_keys)",
        ),
        (
            409,
            "uploads refused: signing.endpoint is set (content would not reach it), or objects.enabled is false",
        ),
        (413, "body over server.body_limit_bytes"),
    ],
};

pub const FILE_DELETE: Route = Route {
    method: "DELETE",
    path: "/file",
    summary: "Delete a record and its object; admin key",
    params: &[Param {
        name: "key",
        location: "query",
        required: true,
        description: "the record's key",
    }],
    responses: &[
        (204, "deleted"),
        (401, "no admin key"),
        (403, "not an admin key, or writes are off"),
        (404, "no record has this key"),
    ],
};

pub const OAUTH_CALLBACK: Route = Route {
    method: "GET",
    path: "/oauth2callback",
    summary: "OAuth consent callback, answered while the producer waits for a consent (SERVICE_REDIRECT_URI on the daemon's own address)",
    params: &[
        query("code", "authorization code"),
        query("state", "must match the flow under way"),
        query("error", "set when the consent was refused"),
    ],
    responses: &[
        (200, "consent received (HTML page)"),
        (400, "state mismatch, or the consent was refused"),
        (404, "no consent flow is under way"),
    ],
};

const OBJECT_RESPONSES: &[(u16, &str)] = &[
    (200, "the object"),
    (206, "the requested byte range"),
    (
        400,
        "a key that leaves the store (.., absolute, NUL), some but not all signature parameters (AuthorizationQueryParametersError), or a bad response-* override",
    ),
    (
        403,
        "SignatureDoesNotMatch, or AccessDenied for an expired URL or an anonymous request (S3 XML body)",
    ),
    (404, "NoSuchKey"),
    (416, "range not satisfiable"),
];

const OBJECT_PARAMS: &[Param] = &[
    query(
        "X-Amz-Signature",
        "SigV4 query signature made with the embedded credentials (with the other X-Amz-* parameters)",
    ),
    query(
        "response-content-disposition",
        "signed override of Content-Disposition (also response-content-type, -cache-control, -content-encoding, -content-language, -expires)",
    ),
    Param {
        name: "Range",
        location: "header",
        required: false,
        description: "one byte range, e.g. bytes=0-99",
    },
];

pub const OBJECT_GET: Route = Route {
    method: "GET",
    path: "/objects/{bucket}/{key+}",
    summary: "Embedded object store: download an object with a presigned URL",
    params: OBJECT_PARAMS,
    responses: OBJECT_RESPONSES,
};

pub const OBJECT_HEAD: Route = Route {
    method: "HEAD",
    path: "/objects/{bucket}/{key+}",
    summary: "Embedded object store: an object's headers (a GET-signed URL is accepted)",
    params: OBJECT_PARAMS,
    responses: OBJECT_RESPONSES,
};

/// Every route the server answers, in the order of the OpenAPI document.
pub const ROUTES: &[&Route] = &[
    &HEALTH,
    &METRICS,
    &OPENAPI,
    &FILES_LIST,
    &FILES_CREATE,
    &FILE_GET,
    &FILE_DELETE,
    &TRANSLATIONS,
    &OAUTH_CALLBACK,
    &OBJECT_GET,
    &OBJECT_HEAD,
];

/// Raw (still percent-encoded) values of a template's `{...}` segments, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PathParams(pub Vec<String>);

/// A known path with another method. Its own type, not a plain `ApiError` rejection, so
/// that what a matching route found (a bad query, an oversized body) outranks it.
#[derive(Debug)]
pub struct WrongMethod(pub ApiError);

impl warp::reject::Reject for WrongMethod {}

/// Matches `path` against `template`; `Some(params)` on a match.
pub fn match_template(template: &str, path: &str) -> Option<PathParams> {
    let mut params = Vec::new();
    let mut rest = path.strip_prefix('/')?;
    let mut parts = template.trim_start_matches('/').split('/').peekable();
    while let Some(part) = parts.next() {
        if part.starts_with('{') && part.ends_with("+}") {
            if rest.is_empty() || parts.peek().is_some() {
                return None;
            }
            params.push(rest.to_owned());
            return Some(PathParams(params));
        }
        let (segment, tail) = match rest.split_once('/') {
            Some((segment, tail)) => (segment, Some(tail)),
            None => (rest, None),
        };
        if part.starts_with('{') {
            if segment.is_empty() {
                return None;
            }
            params.push(segment.to_owned());
        } else if part != segment {
            return None;
        }
        match (tail, parts.peek()) {
            (Some(tail), Some(_)) => rest = tail,
            (None, None) => return Some(PathParams(params)),
            _ => return None,
        }
    }
    None
}

/// The metrics label of a request path: its route template, or `unmatched`.
pub fn label_of(path: &str) -> &'static str {
    ROUTES
        .iter()
        .find(|r| match_template(r.path, path).is_some())
        .map_or("unmatched", |r| r.path)
}

/// A filter that accepts exactly this route's method and path and extracts its path
/// parameters. A known path with another method is a 405 that lists the allowed methods.
pub fn on(route: &'static Route) -> BoxedFilter<(PathParams,)> {
    warp::method()
        .and(warp::path::full())
        .and_then(move |method: Method, full: FullPath| async move {
            let Some(params) = match_template(route.path, full.as_str()) else {
                return Err(warp::reject::not_found());
            };
            if method.as_str() == route.method {
                return Ok(params);
            }
            let allowed: Vec<&str> = ROUTES
                .iter()
                .filter(|r| match_template(r.path, full.as_str()).is_some())
                .map(|r| r.method)
                .collect();
            Err(warp::reject::custom(WrongMethod(
                ApiError::MethodNotAllowed {
                    method: method.to_string(),
                    path: route.path.to_owned(),
                    allowed: allowed.join(", "),
                },
            )))
        })
        .boxed()
}

/// The OpenAPI 3.0 document of `ROUTES`.
pub fn openapi() -> serde_json::Value {
    let mut paths = serde_json::Map::new();
    for route in ROUTES {
        let path = route.path.replace("+}", "}");
        let parameters: Vec<_> = route
            .params
            .iter()
            .map(|p| {
                serde_json::json!({
                    "name": p.name, "in": p.location, "required": p.required,
                    "description": p.description, "schema": {"type": "string"},
                })
            })
            .chain(template_params(route.path).map(|name| {
                serde_json::json!({
                    "name": name, "in": "path", "required": true, "schema": {"type": "string"},
                })
            }))
            .collect();
        let responses: serde_json::Map<_, _> = route
            .responses
            .iter()
            .map(|(status, description)| {
                (
                    status.to_string(),
                    serde_json::json!({ "description": description }),
                )
            })
            .collect();
        let entry = paths.entry(path).or_insert_with(|| serde_json::json!({}));
        entry[route.method.to_ascii_lowercase()] = serde_json::json!({
            "summary": route.summary,
            "parameters": parameters,
            "responses": responses,
        });
    }
    serde_json::json!({
        "openapi": "3.0.3",
        "info": {
            "title": "depot",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "File records with signed URLs, and spreadsheet translations",
        },
        "paths": paths,
    })
}

fn template_params(template: &str) -> impl Iterator<Item = &str> {
    template.split('/').filter_map(|part| {
        part.strip_prefix('{')
            .and_then(|p| p.strip_suffix('}'))
            .map(|p| p.trim_end_matches('+'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_literals_segments_and_tails() {
        assert_eq!(
            match_template("/health", "/health"),
            Some(PathParams(vec![]))
        );
        assert_eq!(match_template("/health", "/health/"), None);
        assert_eq!(match_template("/health", "/healthz"), None);
        assert_eq!(
            match_template("/objects/{bucket}/{key+}", "/objects/b/dir/a%20b.txt"),
            Some(PathParams(vec!["b".into(), "dir/a%20b.txt".into()]))
        );
        assert_eq!(
            match_template("/objects/{bucket}/{key+}", "/objects/b/"),
            None
        );
        assert_eq!(
            match_template("/objects/{bucket}/{key+}", "/objects/b"),
            None
        );
        assert_eq!(match_template("/a/{x}", "/a/"), None);
        assert_eq!(
            match_template("/a/{x}", "/a/1"),
            Some(PathParams(vec!["1".into()]))
        );
    }

    #[test]
    fn openapi_lists_every_route_with_its_method() {
        let doc = openapi();
        for route in ROUTES {
            let path = route.path.replace("+}", "}");
            assert!(
                doc["paths"][&path][route.method.to_ascii_lowercase()].is_object(),
                "{} {} missing",
                route.method,
                route.path
            );
        }
    }

    #[test]
    fn routes_are_only_declared_in_this_table() {
        // Every route must go through `on(&ROUTE)`, so that the table (and the OpenAPI
        // document made from it) is complete: no other warp path filter anywhere.
        let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        let mut offenders = Vec::new();
        let mut stack = vec![std::path::PathBuf::from(src)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let needle = ["path!", "path("].map(|s| format!("warp::{s}"));
                    if needle.iter().any(|n| text.contains(n.as_str())) {
                        offenders.push(path.display().to_string());
                    }
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "path filters outside the route table: {offenders:?}"
        );
    }
}
