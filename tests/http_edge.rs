//! The HTTP edge through the real binary and raw sockets: every request gets an answer
//! (targets that are not a path, mutated signed object requests, a panicking handler),
//! HEAD on every GET route, the Bearer scheme in any case, CORS, the OpenAPI document
//! checked by a real validator against real answers, and no ERROR lines for a client's
//! garbage.
#![cfg(test)]

mod support;

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use support::{Daemon, run};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Longest wait for one answer: far above any honest answer, far below a hang.
const ANSWER_LIMIT: Duration = Duration::from_secs(10);

/// Sends `request` as it is on a new connection and reads until the server closes it.
/// `None` when no complete answer came within `ANSWER_LIMIT`.
async fn raw(addr: &str, request: &[u8]) -> Option<Vec<u8>> {
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await.ok()?;
        stream.write_all(request).await.ok()?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.ok()?;
        Some(answer)
    };
    tokio::time::timeout(ANSWER_LIMIT, exchange)
        .await
        .ok()
        .flatten()
}

/// A parsed raw answer: status, lower-cased header names with values, body bytes.
struct RawAnswer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl RawAnswer {
    fn parse(bytes: &[u8]) -> RawAnswer {
        let end = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no end of head in {:?}", String::from_utf8_lossy(bytes)));
        let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or_default();
        assert!(status_line.starts_with("HTTP/1.1 "), "{status_line}");
        let status = status_line[9..12].parse().expect("a status code");
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        RawAnswer {
            status,
            headers,
            body: bytes[end + 4..].to_vec(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }
}

/// One request line plus `Host` and `Connection: close`, and `extra` header lines.
fn request(method: &str, target: &str, host: &str, extra: &str) -> Vec<u8> {
    format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n")
        .into_bytes()
}

async fn ask(daemon: &Daemon, method: &str, target: &str, extra: &str) -> RawAnswer {
    let bytes = raw(&daemon.addr, &request(method, target, &daemon.addr, extra))
        .await
        .unwrap_or_else(|| panic!("{method} {target}: no answer within {ANSWER_LIMIT:?}"));
    RawAnswer::parse(&bytes)
}

/// Adds `name` with `depot files add` and returns its key.
fn add_file(dir: &Path, name: &str, content: &[u8], args: &[&str]) -> String {
    std::fs::write(dir.join(name), content).unwrap();
    let mut all = vec!["files", "add", name];
    all.extend_from_slice(args);
    let output = run(dir, &all);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let record: Value = serde_json::from_slice(&output.stdout).expect("one JSON record");
    record["key"].as_str().unwrap().to_owned()
}

/// The path and query of the record's signed URL (the embedded store on the daemon).
async fn signed_target(daemon: &Daemon, key: &str) -> String {
    let (status, record) = daemon
        .get_json(&format!("/file?{}", support::query(&[("key", key)])))
        .await;
    assert_eq!(status, 200, "{record}");
    let url = record["signedUrl"].as_str().unwrap();
    let (_, rest) = url.split_once(&daemon.addr).expect("signed for the daemon");
    rest.to_owned()
}

/// A daemon with one public file record and the basic sheet loaded.
async fn daemon_with_content(dir: &Path, env: &[(&str, &str)]) -> (Daemon, String) {
    let key = add_file(dir, "hello.txt", b"hello, small object\n", &[]);
    std::fs::write(
        dir.join("sheet.csv"),
        support::fixture_text("sheets/basic.csv"),
    )
    .unwrap();
    let daemon = Daemon::start(dir, &["--set", "producer.source=sheet.csv"], env).await;
    support::eventually(Duration::from_secs(10), || async {
        (daemon.get("/translations").await.status() == 200).then_some(())
    })
    .await
    .expect("the sheet is loaded");
    (daemon, key)
}

#[tokio::test]
async fn targets_that_are_not_a_path_get_a_json_400_and_options_star_the_methods() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let host = daemon.addr.clone();

    // Asterisk-form with more after the `*` used to panic a worker and drop the connection.
    for (method, target, says) in [
        ("POST", "*x=1", "'*x=1' is not a path"),
        ("GET", "*x", "'*x' is not a path"),
        ("GET", "*", "only allowed with OPTIONS"),
        (
            "CONNECT",
            "example.com:443",
            "'example.com:443' is not a path",
        ),
        (
            "GET",
            "http://evil.example/health",
            "names host 'evil.example'",
        ),
    ] {
        let answer = ask(&daemon, method, target, "").await;
        assert_eq!(answer.status, 400, "{method} {target}");
        let body = answer.json();
        assert_eq!(body["statusCode"], 400);
        assert_eq!(body["error"], "Bad Request");
        let message = body["message"].as_str().unwrap();
        assert!(message.contains(says), "{method} {target}: {message}");
        assert!(message.contains("send a path such as /health"), "{message}");
    }

    let options = ask(&daemon, "OPTIONS", "*", "").await;
    assert_eq!(options.status, 204);
    assert_eq!(
        options.header("allow"),
        Some("GET, HEAD, POST, DELETE, OPTIONS")
    );

    // Absolute-form naming this host is the same request as its path.
    let absolute = ask(&daemon, "GET", &format!("http://{host}/health"), "").await;
    assert_eq!(absolute.status, 200);
    assert_eq!(absolute.json()["status"], "ok");

    // Nothing panicked, and the daemon still answers.
    assert_eq!(daemon.get_json("/health").await.0, 200);
    assert!(!daemon.log().contains("panicked"), "{}", daemon.log());
}

#[tokio::test]
async fn mutated_signed_object_requests_with_a_range_are_all_answered() {
    let dir = tempfile::tempdir().unwrap();
    let key = add_file(dir.path(), "small.txt", b"hello, small object\n", &[]);
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let target = signed_target(&daemon, &key).await;

    let intact = ask(&daemon, "GET", &target, "Range: bytes=0-4\r\n").await;
    assert_eq!(intact.status, 206);
    assert_eq!(intact.body, b"hello");
    assert_eq!(intact.header("content-range"), Some("bytes 0-4/20"));

    let ranges = [
        "bytes=0-4",
        "bytes=-3",
        "bytes=5-",
        "bytes=100-",
        "bytes=-0",
        "bytes=4-2",
        "bytes=0-1,3-4",
        "bytes=99999999999999999999999-",
        "items=0-1",
        "bytes=\u{7f}-1",
    ];
    // Every position of the target deleted, replaced and given an extra byte: signature,
    // credential, date, expiry, path and separators all get broken in turn.
    let chars: Vec<char> = target.chars().collect();
    let mut mutations = Vec::new();
    for i in 0..chars.len() {
        let mut deleted = chars.clone();
        deleted.remove(i);
        let mut replaced = chars.clone();
        replaced[i] = if replaced[i] == '0' { '1' } else { '0' };
        let mut inserted = chars.clone();
        inserted.insert(i, ['%', '&', '=', '/', '*'][i % 5]);
        mutations.extend([deleted, replaced, inserted]);
    }
    let mut statuses = std::collections::BTreeMap::new();
    for (n, mutated) in mutations.iter().enumerate() {
        let mutated: String = mutated.iter().collect();
        let method = if n % 4 == 3 { "HEAD" } else { "GET" };
        let range = ranges[n % ranges.len()];
        let bytes = raw(
            &daemon.addr,
            &request(
                method,
                &mutated,
                &daemon.addr,
                &format!("Range: {range}\r\n"),
            ),
        )
        .await
        .unwrap_or_else(|| {
            panic!("{method} {mutated} with Range {range}: no answer within {ANSWER_LIMIT:?}")
        });
        let status = RawAnswer::parse(&bytes).status;
        assert!(
            status < 500,
            "{method} {mutated} with Range {range}: {status}"
        );
        *statuses.entry(status).or_insert(0) += 1;
    }
    // The mutations reach the signature check (403) and the request parser (400).
    assert!(statuses.contains_key(&403), "{statuses:?}");
    assert!(statuses.contains_key(&400), "{statuses:?}");
    assert!(!daemon.log().contains("panicked"), "{}", daemon.log());
}

/// The routes of the OpenAPI document that answer GET, made concrete.
fn get_targets(key: &str, object: &str) -> Vec<String> {
    let key = support::query(&[("key", key)]);
    vec![
        "/health".into(),
        "/openapi.json".into(),
        "/files".into(),
        "/files?page=0".into(),
        format!("/file?{key}"),
        "/file?key=no-such-key".into(),
        "/translations".into(),
        "/translations?format=android".into(),
        "/translations?format=nope".into(),
        "/translations?version=nope".into(),
        "/translations/versions".into(),
        "/translations/versions/deadbeef".into(),
        "/oauth2callback".into(),
        object.into(),
        "/no/such/route".into(),
        // The console's pages ("/" shows ages in seconds, so its length may change
        // between two requests; every target covers its path).
        "/console/translations".into(),
        "/console/translations?page=0".into(),
        "/console/preview?format=android".into(),
        "/console/versions".into(),
        "/console/files".into(),
        format!("/console/file?{key}"),
        "/console/login".into(),
        "/console/channels".into(),
        // the delivery routes (SPEC §14) on the draft channel
        "/channels".into(),
        "/i18next/draft/en/translation.json".into(),
        "/i18next/draft?lng=en&ns=translation".into(),
        "/locize/languages/depot".into(),
        "/locize/depot/draft/en/translation".into(),
        "/locize/private/depot/draft/en/translation".into(),
        "/tolgee/draft/manifest.json".into(),
        "/tolgee/draft/en.json".into(),
        "/bundles/nope.json".into(),
    ]
}

#[tokio::test]
async fn head_answers_every_get_route_with_the_get_headers_and_no_body() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, key) = daemon_with_content(dir.path(), &[]).await;
    let object = signed_target(&daemon, &key).await;

    // Every GET route of the document is covered below.
    let doc = daemon.get_json("/openapi.json").await.1;
    for (path, methods) in doc["paths"].as_object().unwrap() {
        if methods.get("get").is_some() && path != "/metrics" && path != "/translations/events" {
            let literal = path.split('{').next().unwrap();
            assert!(
                get_targets(&key, &object)
                    .iter()
                    .any(|t| t.starts_with(literal)),
                "{path} is not covered"
            );
        }
    }

    for target in get_targets(&key, &object) {
        for encoding in ["", "Accept-Encoding: gzip\r\n"] {
            let get = ask(&daemon, "GET", &target, encoding).await;
            let head = ask(&daemon, "HEAD", &target, encoding).await;
            assert_eq!(head.status, get.status, "HEAD {target}");
            assert!(head.body.is_empty(), "HEAD {target} sent a body");
            let length = get.header("content-length").map(str::to_owned);
            assert_eq!(
                length.as_deref(),
                Some(get.body.len().to_string().as_str()),
                "GET {target}"
            );
            assert_eq!(
                head.header("content-length"),
                length.as_deref(),
                "HEAD {target}"
            );
            for name in [
                "content-type",
                "content-encoding",
                "etag",
                "cache-control",
                "vary",
                "last-modified",
                "accept-ranges",
                "allow",
            ] {
                assert_eq!(
                    head.header(name),
                    get.header(name),
                    "{name} of HEAD {target}"
                );
            }
        }
    }

    // /metrics changes with every request: HEAD has its headers and no body.
    let head = ask(&daemon, "HEAD", "/metrics", "").await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert!(head.header("content-length").is_some());

    // An event stream never ends, so GET cannot be compared byte for byte: HEAD answers
    // its headers at once, with no body.
    let head = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        ask(&daemon, "HEAD", "/translations/events", ""),
    )
    .await
    .expect("HEAD of the event stream answers at once");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("content-type"), Some("text/event-stream"));

    // A path's 405 lists HEAD with GET, in the Allow header too.
    let wrong = ask(&daemon, "PUT", "/health", "").await;
    assert_eq!(wrong.status, 405);
    assert_eq!(wrong.header("allow"), Some("GET, HEAD"));
    assert!(
        wrong.json()["message"]
            .as_str()
            .unwrap()
            .contains("allowed: GET, HEAD")
    );
}

#[tokio::test]
async fn the_bearer_scheme_is_accepted_in_any_case() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[("DEPOT_API_KEYS", "k1")]).await;
    let client = reqwest::Client::new();
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let response = client
            .get(daemon.url("/files?permission=private"))
            .header("Authorization", format!("{scheme} k1"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{scheme}");
    }
    let response = client
        .get(daemon.url("/files?permission=private"))
        .header("Authorization", "Basic k1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn cors_is_off_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let preflight = ask(
        &daemon,
        "OPTIONS",
        "/health",
        "Origin: https://app.example\r\nAccess-Control-Request-Method: GET\r\n",
    )
    .await;
    assert_eq!(preflight.status, 405);
    assert_eq!(preflight.header("allow"), Some("GET, HEAD"));
    assert_eq!(preflight.header("access-control-allow-origin"), None);
    let get = ask(&daemon, "GET", "/health", "Origin: https://app.example\r\n").await;
    assert_eq!(get.status, 200);
    assert_eq!(get.header("access-control-allow-origin"), None);
    assert_eq!(get.header("vary"), None);
}

#[tokio::test]
async fn cors_answers_preflights_and_marks_answers_for_listed_origins() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, _) = daemon_with_content(
        dir.path(),
        &[(
            "DEPOT_CORS_ORIGINS",
            "HTTPS://App.Example:443/, http://localhost:8080",
        )],
    )
    .await;

    let preflight = ask(
        &daemon,
        "OPTIONS",
        "/translations?format=json",
        "Origin: https://app.example\r\nAccess-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: authorization, if-none-match\r\n",
    )
    .await;
    assert_eq!(preflight.status, 204);
    assert!(preflight.body.is_empty());
    assert_eq!(
        preflight.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    assert_eq!(
        preflight.header("access-control-allow-methods"),
        Some("GET, HEAD")
    );
    assert_eq!(
        preflight.header("access-control-allow-headers"),
        Some("authorization, content-type, if-none-match, range, x-amz-checksum-sha256")
    );
    assert_eq!(preflight.header("access-control-max-age"), Some("600"));

    let get = ask(
        &daemon,
        "GET",
        "/translations",
        "Origin: http://localhost:8080\r\n",
    )
    .await;
    assert_eq!(get.status, 200);
    assert_eq!(
        get.header("access-control-allow-origin"),
        Some("http://localhost:8080")
    );
    assert_eq!(
        get.header("access-control-expose-headers"),
        Some("ETag, Depot-Warnings, Content-Range")
    );
    let vary: Vec<&str> = get
        .headers
        .iter()
        .filter(|(n, _)| n == "vary")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(vary, ["Accept-Encoding", "Origin"]);

    // Errors carry the headers too, so a script can read the message.
    let error = ask(
        &daemon,
        "GET",
        "/files?page=0",
        "Origin: https://app.example\r\n",
    )
    .await;
    assert_eq!(error.status, 400);
    assert_eq!(
        error.header("access-control-allow-origin"),
        Some("https://app.example")
    );

    // Another origin: served (CORS is the browser's check), unmarked, varied.
    let other = ask(
        &daemon,
        "GET",
        "/health",
        "Origin: https://evil.example\r\n",
    )
    .await;
    assert_eq!(other.status, 200);
    assert_eq!(other.header("access-control-allow-origin"), None);
    assert_eq!(other.header("vary"), Some("Origin"));
    let refused = ask(
        &daemon,
        "OPTIONS",
        "/health",
        "Origin: https://evil.example\r\nAccess-Control-Request-Method: GET\r\n",
    )
    .await;
    assert_eq!(refused.status, 403);
    assert!(
        refused.json()["message"]
            .as_str()
            .unwrap()
            .contains("server.cors_origins")
    );
    assert_eq!(refused.header("access-control-allow-origin"), None);
}

#[test]
fn cors_origins_that_are_not_origins_are_refused_with_the_key_named() {
    let dir = tempfile::tempdir().unwrap();
    for value in [
        "app.example",
        "https://app.example/path",
        "*,https://app.example",
        "https://user@app.example",
    ] {
        let output = support::depot(dir.path())
            .args(["config", "check"])
            .env("DEPOT_CORS_ORIGINS", value)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{value}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("server.cors_origins") && stderr.contains("must be * alone"),
            "{value}: {stderr}"
        );
    }
}

/// Python with openapi-spec-validator (which brings openapi-schema-validator), or a
/// failure that says how to install it.
fn python_with_validator() -> &'static str {
    let found = std::process::Command::new("python3")
        .args([
            "-c",
            "import openapi_spec_validator, openapi_schema_validator",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "this test needs python3 with openapi-spec-validator: pip install openapi-spec-validator"
    );
    "python3"
}

/// Checks the document with openapi-spec-validator, then each `(path, method, status,
/// body)` sample against the schema the document gives that answer.
const VALIDATE: &str = r#"
import json, sys
from openapi_spec_validator import validate
from openapi_schema_validator import OAS30Validator
spec = json.load(open(sys.argv[1]))
validate(spec)
failures = []
for path, method, status, body in json.load(open(sys.argv[2])):
    responses = spec["paths"][path][method]["responses"]
    answer = responses.get(str(status), responses.get("default"))
    schema = answer["content"]["application/json"]["schema"]
    validator = OAS30Validator(dict(schema, components=spec["components"]))
    for error in validator.iter_errors(body):
        failures.append(f"{method.upper()} {path} {status}: {error.message} at {list(error.absolute_path)}")
print("\n".join(failures))
sys.exit(1 if failures else 0)
"#;

#[tokio::test]
async fn the_openapi_document_is_valid_and_describes_the_real_answers() {
    let python = python_with_validator();
    let dir = tempfile::tempdir().unwrap();
    let (daemon, key) = daemon_with_content(dir.path(), &[("DEPOT_ADMIN_KEYS", "adm")]).await;
    let doc = daemon.get_json("/openapi.json").await.1;

    let key_query = support::query(&[("key", &key)]);
    let mut samples = Vec::new();
    for (path, target) in [
        ("/health", "/health".to_owned()),
        ("/openapi.json", "/openapi.json".to_owned()),
        ("/files", "/files".to_owned()),
        ("/files", "/files?page=0".to_owned()),
        ("/files", "/files?permission=secret".to_owned()),
        ("/file", format!("/file?{key_query}")),
        ("/file", "/file?key=no-such-key".to_owned()),
        ("/file", "/file".to_owned()),
        ("/translations", "/translations".to_owned()),
        ("/translations", "/translations?format=nope".to_owned()),
        ("/translations", "/translations?filters[]=xx".to_owned()),
        ("/oauth2callback", "/oauth2callback".to_owned()),
    ] {
        let (status, body) = daemon.get_json(&target).await;
        samples.push(json!([path, "get", status, body]));
    }
    let client = reqwest::Client::new();
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"uploaded".to_vec()).file_name("up.txt"),
        )
        .text("permission", "private");
    let created = client
        .post(daemon.url("/files"))
        .bearer_auth("adm")
        .multipart(form)
        .send()
        .await
        .unwrap();
    samples.push(json!([
        "/files",
        "post",
        created.status().as_u16(),
        created.json::<Value>().await.unwrap()
    ]));
    let unauthorized = client.post(daemon.url("/files")).send().await.unwrap();
    samples.push(json!([
        "/files",
        "post",
        unauthorized.status().as_u16(),
        unauthorized.json::<Value>().await.unwrap()
    ]));
    let wrong_method = client.put(daemon.url("/health")).send().await.unwrap();
    samples.push(json!([
        "/health",
        "get",
        wrong_method.status().as_u16(),
        wrong_method.json::<Value>().await.unwrap()
    ]));

    let spec_file = dir.path().join("openapi.json");
    let samples_file = dir.path().join("samples.json");
    std::fs::write(&spec_file, doc.to_string()).unwrap();
    std::fs::write(&samples_file, Value::Array(samples).to_string()).unwrap();
    let output = std::process::Command::new(python)
        .args(["-c", VALIDATE])
        .arg(&spec_file)
        .arg(&samples_file)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn a_clients_garbage_is_not_logged_as_an_error() {
    let dir = tempfile::tempdir().unwrap();
    // Every request logged at info (log.requests), so the log shows how each was taken.
    let daemon = Daemon::start(dir.path(), &[], &[("DEPOT_LOG_REQUESTS", "true")]).await;
    let garbage: [&[u8]; 6] = [
        b"\x00\x01\x02 not http\r\n\r\n",
        b"GET /health HTTP/9.9\r\n\r\n",
        b"GET /he alth HTTP/1.1\r\nHost: x\r\n\r\n",
        b"G@T /health HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /health HTTP/1.1\r\nBad Header\r\n\r\n",
        b"POST *x=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ];
    for bytes in garbage {
        let answer = raw(&daemon.addr, bytes)
            .await
            .expect("an answer or a close");
        assert!(
            answer.is_empty() || answer.starts_with(b"HTTP/1.1 4"),
            "{:?}",
            String::from_utf8_lossy(&answer)
        );
    }
    for target in ["/no/such/route", "/files?page=x", "/file"] {
        assert!(daemon.get(target).await.status().is_client_error());
    }
    // The log is written by another thread: wait for the last request's line.
    support::eventually(Duration::from_secs(5), || async {
        daemon.log().contains("path=/file ").then_some(())
    })
    .await
    .expect("the request log has the last request");
    let log = daemon.log();
    assert!(
        !log.lines().any(|l| l.contains(" ERROR ")),
        "a client's mistake was logged as an error:\n{log}"
    );
}

#[tokio::test]
async fn a_panicking_handler_is_answered_500_and_the_connection_serves_on() {
    use warp::Filter;
    let server = support::TestServer::start().await;
    // Routes that panic on /boom: no route of depot's may, but whatever one does, the
    // edge around the routes must answer.
    let routes = warp::path::full()
        .map(|path: warp::path::FullPath| {
            assert!(path.as_str() != "/boom", "a handler bug");
            "fine"
        })
        .map(warp::Reply::into_response)
        .boxed();
    let edge = depot::http::service::Edge::new(
        hyper_util::service::TowerToHyperService::new(warp::service(routes)),
        server.state.clone(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let stop = depot::shutdown::Shutdown::new();
    let waiting = stop.clone();
    tokio::spawn(depot::http::accept::serve(
        listener,
        edge,
        server.state.config.clone(),
        async move { waiting.wait().await },
    ));

    // Both requests on one connection: the panic does not close it.
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let pipelined = format!(
        "GET /boom HTTP/1.1\r\nHost: {addr}\r\n\r\nGET /after HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(pipelined.as_bytes()).await.unwrap();
    let mut answers = Vec::new();
    tokio::time::timeout(ANSWER_LIMIT, stream.read_to_end(&mut answers))
        .await
        .expect("answered in time")
        .unwrap();
    let text = String::from_utf8_lossy(&answers);
    let second = text
        .find("HTTP/1.1 200")
        .expect("the second request is answered");
    let first = RawAnswer::parse(text[..second].as_bytes());
    assert_eq!(first.status, 500);
    let body = first.json();
    assert_eq!(body["statusCode"], 500);
    assert_eq!(
        body["message"],
        "internal error; the server log has the details"
    );
    assert!(!text.contains("a handler bug"), "the panic leaked: {text}");
    assert!(text[second..].ends_with("fine"), "{text}");
    stop.trigger();
}
