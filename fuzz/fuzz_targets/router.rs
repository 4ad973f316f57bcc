//! Any request to the whole router (every route, method, query, header and body), in
//! process: never a 500, never a panic, errors as the contract's JSON (S3 XML under
//! `/objects`). Part of the inputs follow a real signed URL of a seeded object, with the
//! request's `Range` and query additions, so the object store's answers are reached too.
#![no_main]

use arbitrary::Arbitrary;
use depot_fuzz::app::{self, ADMIN_KEY, API_KEY, HOST, Request};

#[derive(Debug, Arbitrary)]
enum Method {
    Get,
    Head,
    Post,
    Delete,
    Put,
    Options,
    Other(String),
}

#[derive(Debug, Arbitrary)]
enum Path {
    Health,
    Metrics,
    Openapi,
    Translations,
    Files,
    File,
    OauthCallback,
    Root,
    /// `/objects/` then the fuzzer's text.
    Objects(String),
    /// The signed URL of seeded record `n` (path and query), plus `extra` after the query.
    Signed {
        record: u8,
        extra: String,
    },
    Raw(String),
}

#[derive(Debug, Arbitrary)]
enum Name {
    Filters,
    FiltersBrackets,
    Format,
    KeepLocale,
    Comments,
    Page,
    Limit,
    Permission,
    FileName,
    Key,
    Download,
    State,
    Code,
    Other(String),
}

#[derive(Debug, Arbitrary)]
enum Value {
    /// A value encoded as a client library would (`aws_encode`).
    Encoded(String),
    /// The text as it is (often not a valid URI: then the request is not made).
    Raw(String),
    Number(i64),
    Word(u8),
}

const WORDS: [&str; 16] = [
    "true",
    "false",
    "json",
    "android",
    "ios",
    "yml",
    "xlf",
    "po",
    "public",
    "private",
    "en_US",
    "en_US.CORE",
    "*.tag1",
    "pl_PL.FRONT.HEADER",
    "0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e5f-original",
    "6f1d2c3b-4a59-4e8f-a7b6-c5d4e3f2a1b0-private_copy",
];

#[derive(Debug, Arbitrary)]
enum Header {
    Authorization(Auth),
    Range(String),
    IfNoneMatch(String),
    AcceptEncoding(String),
    ContentType(String),
    Host(String),
    Other(String, Vec<u8>),
}

#[derive(Debug, Arbitrary)]
enum Auth {
    Admin,
    Api,
    Raw(Vec<u8>),
}

#[derive(Debug, Arbitrary)]
struct Input {
    method: Method,
    path: Path,
    query: Vec<(Name, Value)>,
    headers: Vec<Header>,
    body: Vec<u8>,
}

fn query_text(pairs: Vec<(Name, Value)>) -> String {
    let encode = |s: &str| depot::signing::aws_encode(s, false);
    pairs
        .into_iter()
        .map(|(name, value)| {
            let name = match name {
                Name::Filters => "filters".to_owned(),
                Name::FiltersBrackets => "filters%5B%5D".to_owned(),
                Name::Format => "format".to_owned(),
                Name::KeepLocale => "keepLocale".to_owned(),
                Name::Comments => "comments".to_owned(),
                Name::Page => "page".to_owned(),
                Name::Limit => "limit".to_owned(),
                Name::Permission => "permission".to_owned(),
                Name::FileName => "fileName".to_owned(),
                Name::Key => "key".to_owned(),
                Name::Download => "download".to_owned(),
                Name::State => "state".to_owned(),
                Name::Code => "code".to_owned(),
                Name::Other(other) => encode(&other),
            };
            let value = match value {
                Value::Encoded(text) => encode(&text),
                Value::Raw(text) => text,
                Value::Number(n) => n.to_string(),
                Value::Word(w) => encode(WORDS[usize::from(w) % WORDS.len()]),
            };
            format!("{name}={value}")
        })
        .collect::<Vec<_>>()
        .join("&")
}

libfuzzer_sys::fuzz_target!(|input: Input| {
    let app = app::app();
    let method = match input.method {
        Method::Get => "GET".to_owned(),
        Method::Head => "HEAD".to_owned(),
        Method::Post => "POST".to_owned(),
        Method::Delete => "DELETE".to_owned(),
        Method::Put => "PUT".to_owned(),
        Method::Options => "OPTIONS".to_owned(),
        Method::Other(other) => other,
    };
    let query = query_text(input.query);
    let path_and_query = match input.path {
        Path::Signed { record, extra } => {
            let (key, _, _) = app::SEEDED[usize::from(record) % app::SEEDED.len()];
            let Some(url) = app.signed_url(key) else {
                return;
            };
            format!("{}{extra}", app::path_and_query(&url))
        }
        other => {
            let path = match other {
                Path::Health => "/health".to_owned(),
                Path::Metrics => "/metrics".to_owned(),
                Path::Openapi => "/openapi.json".to_owned(),
                Path::Translations => "/translations".to_owned(),
                Path::Files => "/files".to_owned(),
                Path::File => "/file".to_owned(),
                Path::OauthCallback => "/oauth2callback".to_owned(),
                Path::Root => "/".to_owned(),
                Path::Objects(rest) => format!("/objects/{rest}"),
                Path::Raw(raw) => raw,
                Path::Signed { .. } => unreachable!("handled above"),
            };
            format!("{path}?{query}")
        }
    };
    let mut headers = vec![("host".to_owned(), HOST.as_bytes().to_vec())];
    for header in input.headers {
        let (name, value) = match header {
            Header::Authorization(Auth::Admin) => ("authorization".into(), app::bearer(ADMIN_KEY)),
            Header::Authorization(Auth::Api) => ("authorization".into(), app::bearer(API_KEY)),
            Header::Authorization(Auth::Raw(raw)) => ("authorization".into(), raw),
            Header::Range(v) => ("range".into(), v.into_bytes()),
            Header::IfNoneMatch(v) => ("if-none-match".into(), v.into_bytes()),
            Header::AcceptEncoding(v) => ("accept-encoding".into(), v.into_bytes()),
            Header::ContentType(v) => ("content-type".into(), v.into_bytes()),
            Header::Host(v) => ("host".into(), v.into_bytes()),
            Header::Other(name, value) => (name, value),
        };
        headers.push((name, value));
    }
    let request = Request {
        method,
        path_and_query,
        headers,
        body: input.body,
    };
    let Some(reply) = app.send(&request) else {
        return;
    };
    if reply.status == 201
        && let Ok(record) = serde_json::from_slice::<serde_json::Value>(&reply.body)
        && let Some(key) = record["key"].as_str()
    {
        app.delete(key);
    }
    if reply.status >= 400 && request.method != "HEAD" {
        let under_objects = request.path_and_query.starts_with("/objects/");
        let content_type = reply
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if under_objects && content_type.contains("xml") {
            let body = String::from_utf8_lossy(&reply.body);
            assert!(
                body.contains("<Error>") && body.contains("<Code>"),
                "{body}"
            );
        } else {
            let body: serde_json::Value = serde_json::from_slice(&reply.body).unwrap_or_else(|e| {
                panic!(
                    "{} error body is not JSON ({e}): {:?}",
                    reply.status,
                    String::from_utf8_lossy(&reply.body)
                )
            });
            assert_eq!(body["statusCode"], reply.status, "{body}");
            assert!(
                body["message"].as_str().is_some_and(|m| !m.is_empty()),
                "{body}"
            );
        }
    }
});
