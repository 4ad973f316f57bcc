//! The files API end to end through the real binary: records added with `depot files add`
//! and `depot files import`, read back over HTTP (`GET /files`, `GET /file`), their content
//! downloaded through the signed URLs from the embedded object store, the bad-input matrix
//! of SPEC §3, API and admin keys, uploads and deletes.
#![cfg(test)]

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Daemon, HttpReply, run};

const READER_KEY: &str = "reader-key-1";
const OTHER_READER_KEY: &str = "reader-key-2";
const ADMIN_KEY: &str = "admin-key-1";
/// `DEPOT_API_KEYS` with two keys, so that the list form of the variable is exercised.
const API_KEYS: (&str, &str) = ("DEPOT_API_KEYS", "reader-key-1,reader-key-2");
const ADMIN_KEYS: (&str, &str) = ("DEPOT_ADMIN_KEYS", ADMIN_KEY);

/// Names of the record fields of SPEC §3 and §13 (size, sha256), sorted.
const RECORD_FIELDS: [&str; 11] = [
    "bucket",
    "createdAt",
    "description",
    "fileName",
    "fileType",
    "id",
    "key",
    "permission",
    "sha256",
    "size",
    "status",
];

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

// ------------------------------------------------------------------ HTTP

/// Sends one request; `headers` are `(name, value)` pairs. The body is read whole.
async fn send(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    form: Option<reqwest::multipart::Form>,
) -> HttpReply {
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("an HTTP method");
    let mut request = reqwest::Client::new().request(method, url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(form) = form {
        request = request.multipart(form);
    }
    let response = request
        .send()
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    HttpReply::read(response).await
}

async fn get(url: &str, headers: &[(&str, &str)]) -> HttpReply {
    send("GET", url, headers, None).await
}

fn bearer(key: &str) -> (&'static str, String) {
    ("Authorization", format!("Bearer {key}"))
}

/// `GET path` on the daemon, optionally with an API key; the status and the JSON body.
async fn get_json(daemon: &Daemon, path: &str, key: Option<&str>) -> (u16, Value) {
    let auth = key.map(bearer);
    let headers: Vec<(&str, &str)> = auth.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let reply = get(&daemon.url(path), &headers).await;
    let body = serde_json::from_slice(&reply.body)
        .unwrap_or_else(|e| panic!("GET {path}: body is not JSON ({e}): {:?}", reply.text()));
    (reply.status, body)
}

/// `GET /file?key=` with an API key, checked to be a 200; the record with its `signedUrl`,
/// which must point at this very daemon's object store.
async fn signed_record(daemon: &Daemon, key: &str, api_key: Option<&str>) -> Value {
    let (status, record) = get_json(
        daemon,
        &format!("/file?{}", support::query(&[("key", key)])),
        api_key,
    )
    .await;
    assert_eq!(status, 200, "{record}");
    let url = record["signedUrl"].as_str().expect("signedUrl is text");
    let expected_prefix = format!("{}/objects/", daemon.base);
    assert!(
        url.starts_with(&expected_prefix),
        "signedUrl must point at the daemon that answered ({expected_prefix}...), got {url}"
    );
    record
}

async fn signed_url(daemon: &Daemon, key: &str, api_key: Option<&str>) -> String {
    signed_record(daemon, key, api_key).await["signedUrl"]
        .as_str()
        .expect("signedUrl is text")
        .to_owned()
}

/// One request written by hand on a fresh connection, so that the target reaches the
/// server byte for byte (HTTP clients normalise `a/../b` away). Status and body.
async fn raw_get(daemon: &Daemon, target: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(&daemon.addr)
        .await
        .expect("connects");
    let request = format!(
        "GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        daemon.addr
    );
    stream
        .write_all(request.as_bytes())
        .await
        .expect("request sent");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("answer read");
    let answer = String::from_utf8(answer).expect("UTF-8 answer");
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// The S3 error code of an XML error body.
fn s3_code(body: &str) -> &str {
    body.split_once("<Code>")
        .and_then(|(_, rest)| rest.split_once("</Code>"))
        .map(|(code, _)| code)
        .unwrap_or_else(|| panic!("not an S3 error body: {body:?}"))
}

// ------------------------------------------------------------------ shapes

/// `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`
fn is_iso_millis(s: &str) -> bool {
    matches_shape(s, "dddd-dd-ddTdd:dd:dd.dddZ", |c, _| c.is_ascii_digit())
}

/// `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-original$`
fn is_uuid_v4_original(s: &str) -> bool {
    let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    s.strip_suffix("-original").is_some_and(|uuid| {
        matches_shape(
            uuid,
            "xxxxxxxx-xxxx-4xxx-vxxx-xxxxxxxxxxxx",
            |c, class| match class {
                'x' => hex(c),
                _ => "89ab".contains(c),
            },
        )
    })
}

/// `pattern` holds literal characters and classes (lower-case letters) that `class_ok`
/// decides; every character of `s` must match its place.
fn matches_shape(s: &str, pattern: &str, class_ok: impl Fn(char, char) -> bool) -> bool {
    s.chars().count() == pattern.chars().count()
        && s.chars().zip(pattern.chars()).all(|(c, p)| {
            if p.is_ascii_lowercase() {
                class_ok(c, p)
            } else {
                c == p
            }
        })
}

/// Checks one listed record against SPEC §3: exactly the record fields, each of its type.
fn assert_record_shape(record: &Value) {
    let fields = record.as_object().expect("a record is an object");
    let mut names: Vec<&str> = fields.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, RECORD_FIELDS, "{record}");
    assert!(record["id"].is_i64(), "id is an integer: {record}");
    assert!(record["status"].is_i64(), "status is an integer: {record}");
    for text in ["fileName", "description", "bucket", "fileType", "key"] {
        assert!(record[text].is_string(), "{text} is a string: {record}");
    }
    assert!(
        record["permission"] == "public" || record["permission"] == "private",
        "{record}"
    );
    let created = record["createdAt"].as_str().expect("createdAt is text");
    assert!(is_iso_millis(created), "createdAt {created:?}");
    // Known (a number, 64 lowercase hex digits) or not (null, as for records of before).
    assert!(
        record["size"].is_u64() || record["size"].is_null(),
        "{record}"
    );
    let sha256_ok = match &record["sha256"] {
        Value::Null => true,
        Value::String(hash) => {
            hash.len() == 64
                && hash
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        }
        _ => false,
    };
    assert!(sha256_ok, "{record}");
}

fn keys_of(list: &Value) -> Vec<String> {
    list["data"]
        .as_array()
        .expect("data is an array")
        .iter()
        .map(|r| r["key"].as_str().expect("key").to_owned())
        .collect()
}

// ------------------------------------------------------------------ the catalogue

/// A file the tests add, and its content.
struct Added {
    content: Vec<u8>,
    /// The record `depot files add` printed.
    record: Value,
}

impl Added {
    fn key(&self) -> &str {
        self.record["key"].as_str().expect("key")
    }
}

/// Writes `name` into `dir` and adds it with `depot files add` (plus `args`).
fn add_file(dir: &Path, name: &str, content: &[u8], args: &[&str]) -> Added {
    std::fs::write(dir.join(name), content).expect("file written");
    let mut all = vec!["files", "add", name];
    all.extend_from_slice(args);
    let output = run(dir, &all);
    assert!(
        output.status.success(),
        "files add {name}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one JSON line per file: {stdout}");
    let record: Value = serde_json::from_str(lines[0]).expect("a JSON record");
    assert_record_shape(&record);
    assert_eq!(record["fileName"], name);
    Added {
        content: content.to_vec(),
        record,
    }
}

const SPACED_NAME: &str = "my file ü+1.txt";

/// 200 000 bytes that are not text (a multiplicative hash of the offset, so no run of
/// the content repeats at a power-of-two distance and a misplaced chunk would show).
fn binary_content() -> Vec<u8> {
    (0..200_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}

/// The three files of SPEC §3's examples, added in this order (so listed in reverse): a
/// name with spaces, unicode and `+`; a binary of 200 000 bytes; a private text file.
fn three_files(dir: &Path) -> [Added; 3] {
    [
        add_file(
            dir,
            SPACED_NAME,
            "text with ü\n".as_bytes(),
            &["--description", "spaced"],
        ),
        add_file(dir, "blob.bin", &binary_content(), &[]),
        add_file(
            dir,
            "secret-notes.txt",
            b"for key holders only\n",
            &["--permission", "private"],
        ),
    ]
}

// ------------------------------------------------------------------ 1. list, page, filter, download

#[tokio::test]
async fn list_shows_the_added_records_newest_first_with_contract_types() {
    let dir = temp();
    let added = three_files(dir.path());
    let daemon = Daemon::start(dir.path(), &[], &[]).await;

    let (status, list) = get_json(&daemon, "/files", None).await;
    assert_eq!(status, 200, "{list}");
    let fields = list.as_object().expect("an object");
    let mut names: Vec<&str> = fields.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["data", "meta"], "{list}");
    assert_eq!(list["meta"], json!({"total": "3", "page": 1, "limit": 25}));
    let data = list["data"].as_array().expect("data is an array");
    for record in data {
        assert_record_shape(record);
    }
    let expected: Vec<&Value> = added.iter().rev().map(|a| &a.record).collect();
    assert_eq!(data.iter().collect::<Vec<_>>(), expected);
    assert_eq!(added[0].record["description"], "spaced");
    assert_eq!(added[0].record["fileType"], "txt");
    assert_eq!(added[0].record["bucket"], "depot");
    assert_eq!(added[0].record["status"], 0);
    assert_eq!(added[2].record["permission"], "private");
    for a in &added {
        assert!(is_uuid_v4_original(a.key()), "{}", a.key());
    }
}

#[tokio::test]
async fn pages_of_one_give_each_record_once_newest_first_and_past_the_end_is_empty() {
    let dir = temp();
    let added = three_files(dir.path());
    let daemon = Daemon::start(dir.path(), &[], &[]).await;

    let mut seen = Vec::new();
    for page in 1..=3 {
        let path = format!("/files?limit=1&page={page}");
        let (status, list) = get_json(&daemon, &path, None).await;
        assert_eq!(status, 200, "{list}");
        assert_eq!(
            list["meta"],
            json!({"total": "3", "page": page, "limit": 1})
        );
        seen.extend(keys_of(&list));
        // The same page asked again is the same page.
        assert_eq!(get_json(&daemon, &path, None).await.1, list);
    }
    let newest_first: Vec<String> = added.iter().rev().map(|a| a.key().to_owned()).collect();
    assert_eq!(seen, newest_first);

    let (status, past) = get_json(&daemon, "/files?limit=1&page=4", None).await;
    assert_eq!(status, 200);
    assert_eq!(
        past,
        json!({"data": [], "meta": {"total": "3", "page": 4, "limit": 1}})
    );
    let (_, far) = get_json(&daemon, "/files?page=999999", None).await;
    assert_eq!(
        far,
        json!({"data": [], "meta": {"total": "3", "page": 999999, "limit": 25}})
    );
}

#[tokio::test]
async fn filters_by_permission_and_by_file_name_case_insensitively_and_literally() {
    let dir = temp();
    let added = three_files(dir.path());
    let percent = add_file(dir.path(), "100%.txt", b"a", &[]);
    let zeros = add_file(dir.path(), "1000.txt", b"b", &[]);
    let underscore = add_file(dir.path(), "report_1.txt", b"c", &[]);
    let lookalike = add_file(dir.path(), "reportX1.txt", b"d", &[]);
    let daemon = Daemon::start(dir.path(), &[], &[]).await;

    // Query pairs, and the records expected, in list order.
    type Case<'a> = (&'a [(&'a str, &'a str)], Vec<&'a Added>);
    let cases: [Case<'_>; 9] = [
        (&[("permission", "private")], vec![&added[2]]),
        (
            &[("permission", "public")],
            vec![
                &lookalike,
                &underscore,
                &zeros,
                &percent,
                &added[1],
                &added[0],
            ],
        ),
        (&[("fileName", "MY FILE")], vec![&added[0]]),
        (&[("fileName", "Ü+1")], vec![&added[0]]),
        (&[("fileName", "BLOB.")], vec![&added[1]]),
        // `%` and `_` are not wildcards.
        (&[("fileName", "0%")], vec![&percent]),
        (&[("fileName", "t_1")], vec![&underscore]),
        (&[("fileName", "%")], vec![&percent]),
        (
            &[("fileName", ".txt"), ("permission", "private")],
            vec![&added[2]],
        ),
    ];
    for (pairs, expected) in cases {
        let path = format!("/files?{}", support::query(pairs));
        let (status, list) = get_json(&daemon, &path, None).await;
        assert_eq!(status, 200, "{path}: {list}");
        let want: Vec<String> = expected.iter().map(|a| a.key().to_owned()).collect();
        assert_eq!(keys_of(&list), want, "{path}");
        assert_eq!(list["meta"]["total"], want.len().to_string(), "{path}");
    }
    let (_, none) = get_json(&daemon, "/files?fileName=nothing-like-this", None).await;
    assert_eq!(
        none,
        json!({"data": [], "meta": {"total": "0", "page": 1, "limit": 25}})
    );
}

#[tokio::test]
async fn every_record_downloads_byte_for_byte_through_its_signed_url() {
    let dir = temp();
    let added = three_files(dir.path());
    // No API keys configured: the private record is readable too (open reads).
    let daemon = Daemon::start(dir.path(), &[], &[]).await;

    for a in &added {
        let record = signed_record(&daemon, a.key(), None).await;
        let mut without_url = record.clone();
        without_url
            .as_object_mut()
            .expect("object")
            .remove("signedUrl");
        assert_eq!(without_url, a.record);
        let url = record["signedUrl"].as_str().expect("signedUrl");
        let reply = get(url, &[]).await;
        assert_eq!(reply.status, 200, "{}: {}", a.key(), reply.text());
        assert_eq!(reply.body, a.content, "{}", a.key());
        assert_eq!(
            reply.header("content-length"),
            Some(a.content.len().to_string().as_str())
        );
        assert!(reply.header("etag").is_some_and(|e| e.starts_with('"')));
        assert!(reply.header("last-modified").is_some());
    }
    // `fileType` is an extension here, so the type is guessed from it.
    for (a, content_type) in [
        (&added[0], "text/plain"),
        (&added[1], "application/octet-stream"),
    ] {
        let reply = get(&signed_url(&daemon, a.key(), None).await, &[]).await;
        assert_eq!(
            reply.header("content-type"),
            Some(content_type),
            "{}",
            a.key()
        );
    }
}

#[tokio::test]
async fn signed_urls_serve_ranges_and_head() {
    let dir = temp();
    let blob = add_file(dir.path(), "blob.bin", &binary_content(), &[]);
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let url = signed_url(&daemon, blob.key(), None).await;

    let first = get(&url, &[("Range", "bytes=0-9")]).await;
    assert_eq!(
        first.status,
        206,
        "{}",
        String::from_utf8_lossy(&first.body)
    );
    assert_eq!(first.body, blob.content[..10]);
    assert_eq!(first.header("content-range"), Some("bytes 0-9/200000"));
    assert_eq!(first.header("content-length"), Some("10"));

    let tail = get(&url, &[("Range", "bytes=-5")]).await;
    assert_eq!(tail.status, 206);
    assert_eq!(tail.body, blob.content[199_995..]);
    assert_eq!(
        tail.header("content-range"),
        Some("bytes 199995-199999/200000")
    );

    let beyond = get(&url, &[("Range", "bytes=300000-")]).await;
    assert_eq!(beyond.status, 416, "{}", beyond.text());
    assert_eq!(beyond.header("content-range"), Some("bytes */200000"));
    assert_eq!(s3_code(&beyond.text()), "InvalidRange");

    let head = send("HEAD", &url, &[], None).await;
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-length"), Some("200000"));
    assert_eq!(head.header("accept-ranges"), Some("bytes"));
    assert!(head.header("etag").is_some());
    assert!(head.body.is_empty(), "HEAD has no body");
}

// ------------------------------------------------------------------ 2. refused URLs

#[tokio::test]
async fn a_changed_signature_digit_is_signature_does_not_match() {
    let dir = temp();
    let blob = add_file(dir.path(), "blob.bin", b"content", &[]);
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let url = signed_url(&daemon, blob.key(), None).await;

    let last = url.chars().last().expect("non-empty URL");
    assert!(
        last.is_ascii_hexdigit(),
        "URL ends with the signature: {url}"
    );
    let changed = if last == '0' { '1' } else { '0' };
    let tampered = format!("{}{changed}", &url[..url.len() - 1]);
    let reply = get(&tampered, &[]).await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    assert_eq!(reply.header("content-type"), Some("application/xml"));
    assert_eq!(s3_code(&reply.text()), "SignatureDoesNotMatch");
    // The untouched URL still works.
    assert_eq!(get(&url, &[]).await.status, 200);
}

#[tokio::test]
async fn an_expired_url_is_access_denied() {
    let dir = temp();
    let blob = add_file(dir.path(), "blob.bin", b"content", &[]);
    let daemon = Daemon::start(dir.path(), &["--set", "signing.expires_secs=1"], &[]).await;
    let url = signed_url(&daemon, blob.key(), None).await;
    assert!(url.contains("&X-Amz-Expires=1&"), "{url}");

    let stamp = url
        .split_once("X-Amz-Date=")
        .and_then(|(_, rest)| rest.get(..16))
        .expect("X-Amz-Date in the URL");
    let signed_at = chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%SZ")
        .expect("X-Amz-Date is YYYYMMDDTHHMMSSZ")
        .and_utc();
    let expires_at = signed_at + chrono::TimeDelta::seconds(1);
    let deadline = Instant::now() + Duration::from_secs(3);
    while chrono::Utc::now() < expires_at {
        assert!(Instant::now() < deadline, "URL never expired: {url}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }

    let reply = get(&url, &[]).await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    assert_eq!(s3_code(&reply.text()), "AccessDenied");
}

#[tokio::test]
async fn a_url_signed_with_another_secret_is_refused() {
    let dir = temp();
    let blob = add_file(dir.path(), "blob.bin", b"content", &[]);
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let stored: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("data/credentials.json")).expect("credentials.json"),
    )
    .expect("credentials are JSON");
    let access_key_id = stored["access_key_id"].as_str().expect("access_key_id");

    let forged = depot::signing::presign_get(
        &depot::signing::SigningTarget {
            endpoint: daemon.url("/objects"),
            addressing: depot::signing::Addressing::Path,
            region: "us-east-1".into(),
        },
        &depot::signing::Credentials {
            access_key_id: access_key_id.to_owned(),
            secret_access_key: depot::secret::Secret::new("not-the-embedded-secret"),
            session_token: None,
        },
        "depot",
        blob.key(),
        900,
        chrono::Utc::now(),
    )
    .expect("presigned");
    let reply = get(&forged, &[]).await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    assert_eq!(s3_code(&reply.text()), "SignatureDoesNotMatch");
}

#[tokio::test]
async fn object_keys_that_leave_the_root_are_bad_requests() {
    let dir = temp();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    for target in [
        "/objects/depot/..%2F..%2Fetc%2Fpasswd",
        "/objects/depot/a/../b",
        "/objects/depot/%2Fetc%2Fpasswd",
        "/objects/depot/a%00b",
    ] {
        let (status, body) = raw_get(&daemon, target).await;
        assert_eq!(status, 400, "{target}: {body}");
        assert_eq!(s3_code(&body), "InvalidArgument", "{target}");
    }
}

// ------------------------------------------------------------------ 3. bad input

/// What one case of the matrix expects.
enum Expect {
    /// This status, with the contract's error body whose message contains every piece.
    Error(u16, &'static [&'static str]),
    /// 200 with `meta.limit` at this value.
    Clamped(u64),
}

#[tokio::test]
async fn bad_input_matrix_answers_exact_statuses_naming_the_parameter() {
    let dir = temp();
    add_file(dir.path(), "blob.bin", b"content", &[]);
    let daemon = Daemon::start(
        dir.path(),
        &["--set", "server.body_limit_bytes=2048"],
        &[ADMIN_KEYS],
    )
    .await;
    let admin = format!("Bearer {ADMIN_KEY}");
    let long_name = "n".repeat(256);
    let long_query = format!("/files?fileName={long_name}");
    const UNKNOWN_KEY: &str = "0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e5f-original";
    let unknown_query = format!("/file?key={UNKNOWN_KEY}");

    type Case<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, bool, Expect);
    let cases: Vec<Case<'_>> = vec![
        ("GET", "/file", vec![], false, Expect::Error(400, &["key"])),
        (
            "GET",
            "/file?key=",
            vec![],
            false,
            Expect::Error(400, &["key"]),
        ),
        (
            "GET",
            "/files?page=0",
            vec![],
            false,
            Expect::Error(400, &["page", "'0'"]),
        ),
        (
            "GET",
            "/files?page=abc",
            vec![],
            false,
            Expect::Error(400, &["page", "'abc'"]),
        ),
        (
            "GET",
            "/files?page=-1",
            vec![],
            false,
            Expect::Error(400, &["page", "'-1'"]),
        ),
        (
            "GET",
            "/files?limit=0",
            vec![],
            false,
            Expect::Error(400, &["limit", "'0'"]),
        ),
        (
            "GET",
            "/files?limit=abc",
            vec![],
            false,
            Expect::Error(400, &["limit", "'abc'"]),
        ),
        (
            "GET",
            "/files?limit=1000",
            vec![],
            false,
            Expect::Clamped(100),
        ),
        (
            "GET",
            "/files?permission=secret",
            vec![],
            false,
            Expect::Error(400, &["permission", "public", "private", "'secret'"]),
        ),
        (
            "GET",
            &long_query,
            vec![],
            false,
            Expect::Error(400, &["fileName", "255"]),
        ),
        // A `%` not followed by two hex digits, and an escape that is not UTF-8.
        (
            "GET",
            "/files?fileName=%ZZ",
            vec![],
            false,
            Expect::Error(400, &["fileName"]),
        ),
        (
            "GET",
            "/files?fileName=%FF",
            vec![],
            false,
            Expect::Error(400, &["fileName"]),
        ),
        (
            "GET",
            &unknown_query,
            vec![],
            false,
            Expect::Error(404, &[UNKNOWN_KEY]),
        ),
        (
            "GET",
            "/no-such-route",
            vec![],
            false,
            Expect::Error(404, &[]),
        ),
        (
            "PUT",
            "/files",
            vec![],
            false,
            Expect::Error(405, &["PUT", "/files"]),
        ),
        (
            "POST",
            "/file",
            vec![],
            false,
            Expect::Error(405, &["POST", "/file"]),
        ),
        (
            "DELETE",
            "/file",
            vec![("Authorization", admin.as_str())],
            false,
            Expect::Error(400, &["key"]),
        ),
        (
            "POST",
            "/files",
            vec![("Authorization", admin.as_str())],
            true,
            Expect::Error(413, &["body_limit_bytes"]),
        ),
    ];

    let mut failures = Vec::new();
    for (method, path, headers, oversized, expect) in cases {
        let form = oversized.then(|| {
            let part = reqwest::multipart::Part::bytes(vec![b'x'; 8 * 1024]).file_name("big.bin");
            reqwest::multipart::Form::new().part("file", part)
        });
        let reply = send(method, &daemon.url(path), &headers, form).await;
        let case = format!("{method} {}", path.chars().take(60).collect::<String>());
        if reply.status >= 500 {
            failures.push(format!(
                "{case}: {} (a 5xx): {}",
                reply.status,
                reply.text()
            ));
            continue;
        }
        match expect {
            Expect::Clamped(limit) => {
                let body: Value = serde_json::from_slice(&reply.body).unwrap_or_default();
                if reply.status != 200 || body["meta"]["limit"] != limit {
                    failures.push(format!(
                        "{case}: expected 200 with meta.limit {limit}, got {} {}",
                        reply.status,
                        reply.text()
                    ));
                }
            }
            Expect::Error(status, pieces) => {
                if reply.status != status {
                    failures.push(format!(
                        "{case}: expected {status}, got {} {}",
                        reply.status,
                        reply.text()
                    ));
                    continue;
                }
                let message = reply.error_message();
                let missing: Vec<&&str> =
                    pieces.iter().filter(|p| !message.contains(**p)).collect();
                if !missing.is_empty() {
                    failures.push(format!("{case}: message {message:?} lacks {missing:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

// ------------------------------------------------------------------ 4. access control

#[tokio::test]
async fn with_api_keys_readers_without_a_key_see_public_records_only() {
    let dir = temp();
    let added = three_files(dir.path());
    let daemon = Daemon::start(dir.path(), &[], &[API_KEYS]).await;
    let private = &added[2];

    let (status, list) = get_json(&daemon, "/files", None).await;
    assert_eq!(status, 200);
    assert_eq!(keys_of(&list), [added[1].key(), added[0].key()]);
    assert_eq!(list["meta"]["total"], "2");

    let (status, body) = get_json(&daemon, "/files?permission=private", None).await;
    assert_eq!(status, 401, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("permission=private")
    );

    let (status, all) = get_json(&daemon, "/files", Some(READER_KEY)).await;
    assert_eq!(status, 200);
    assert_eq!(all["meta"]["total"], "3");
    let (status, only) =
        get_json(&daemon, "/files?permission=private", Some(OTHER_READER_KEY)).await;
    assert_eq!(status, 200);
    assert_eq!(keys_of(&only), [private.key()]);

    let file_path = format!("/file?key={}", private.key());
    let (status, body) = get_json(&daemon, &file_path, None).await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["statusCode"], 401);
    let url = signed_url(&daemon, private.key(), Some(READER_KEY)).await;
    assert_eq!(get(&url, &[]).await.body, private.content);
    // A public record needs no key.
    let (status, _) = get_json(&daemon, &format!("/file?key={}", added[0].key()), None).await;
    assert_eq!(status, 200);

    for path in ["/files", file_path.as_str(), "/files?permission=public"] {
        let (status, body) = get_json(&daemon, path, Some("not-a-key")).await;
        assert_eq!(status, 401, "{path}: {body}");
        assert_eq!(body["error"], "Unauthorized");
    }
}

#[tokio::test]
async fn without_api_keys_private_records_are_open() {
    let dir = temp();
    let added = three_files(dir.path());
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let (status, list) = get_json(&daemon, "/files?permission=private", None).await;
    assert_eq!(status, 200);
    assert_eq!(keys_of(&list), [added[2].key()]);
    let (_, all) = get_json(&daemon, "/files", None).await;
    assert_eq!(all["meta"]["total"], "3");
    let record = signed_record(&daemon, added[2].key(), None).await;
    assert_eq!(record["permission"], "private");
}

fn upload_form(name: &str, content: &[u8]) -> reqwest::multipart::Form {
    reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(content.to_vec()).file_name(name.to_owned()),
        )
        .text("bucket", "depot")
        .text("permission", "private")
        .text("description", "uploaded over HTTP")
        .text("status", "3")
}

#[tokio::test]
async fn writes_are_off_without_admin_keys() {
    let dir = temp();
    let blob = add_file(dir.path(), "blob.bin", b"content", &[]);
    let daemon = Daemon::start(dir.path(), &[], &[API_KEYS]).await;
    let delete = daemon.url(&format!("/file?key={}", blob.key()));
    let auth = format!("Bearer {READER_KEY}");
    for headers in [vec![], vec![("Authorization", auth.as_str())]] {
        let post = send(
            "POST",
            &daemon.url("/files"),
            &headers,
            Some(upload_form("a.txt", b"a")),
        )
        .await;
        assert_eq!(post.status, 403, "{}", post.text());
        assert!(post.error_message().contains("admin_keys"));
        let del = send("DELETE", &delete, &headers, None).await;
        assert_eq!(del.status, 403, "{}", del.text());
        assert!(del.error_message().contains("admin_keys"));
    }
    let (_, list) = get_json(&daemon, "/files", None).await;
    assert_eq!(keys_of(&list), [blob.key()]);
}

#[tokio::test]
async fn writes_need_the_admin_key() {
    let dir = temp();
    let blob = add_file(dir.path(), "blob.bin", b"content", &[]);
    let daemon = Daemon::start(dir.path(), &[], &[API_KEYS, ADMIN_KEYS]).await;
    let delete = daemon.url(&format!("/file?key={}", blob.key()));
    let reader = format!("Bearer {READER_KEY}");
    let wrong = "Bearer not-a-key".to_owned();
    for (headers, status) in [
        (vec![], 401),
        (vec![("Authorization", wrong.as_str())], 401),
        (vec![("Authorization", reader.as_str())], 403),
    ] {
        let post = send(
            "POST",
            &daemon.url("/files"),
            &headers,
            Some(upload_form("a.txt", b"a")),
        )
        .await;
        assert_eq!(post.status, status, "POST {headers:?}: {}", post.text());
        post.error_message();
        let del = send("DELETE", &delete, &headers, None).await;
        assert_eq!(del.status, status, "DELETE {headers:?}: {}", del.text());
        del.error_message();
    }
    let (_, list) = get_json(&daemon, "/files", Some(READER_KEY)).await;
    assert_eq!(keys_of(&list), [blob.key()]);
}

#[tokio::test]
async fn admin_uploads_then_deletes_record_and_object() {
    let dir = temp();
    let daemon = Daemon::start(dir.path(), &[], &[API_KEYS, ADMIN_KEYS]).await;
    let admin = format!("Bearer {ADMIN_KEY}");
    let content = binary_content();

    let reply = send(
        "POST",
        &daemon.url("/files"),
        &[("Authorization", admin.as_str())],
        Some(upload_form("up load ü.BIN", &content)),
    )
    .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let record: Value = serde_json::from_slice(&reply.body).expect("JSON record");
    assert_record_shape(&record);
    let key = record["key"].as_str().expect("key").to_owned();
    assert!(is_uuid_v4_original(&key), "{key}");
    let mut expected = record.clone();
    let fields = expected.as_object_mut().expect("object");
    for (name, value) in [
        ("fileName", json!("up load ü.BIN")),
        ("description", json!("uploaded over HTTP")),
        ("bucket", json!("depot")),
        ("status", json!(3)),
        ("fileType", json!("bin")),
        ("permission", json!("private")),
    ] {
        fields.insert(name.into(), value);
    }
    assert_eq!(record, expected);

    let (_, list) = get_json(&daemon, "/files", Some(READER_KEY)).await;
    assert_eq!(list["data"], json!([record]));
    let url = signed_url(&daemon, &key, Some(ADMIN_KEY)).await;
    let download = get(&url, &[]).await;
    assert_eq!(download.status, 200, "{}", download.text());
    assert_eq!(download.body, content);

    let path = format!("/file?key={key}");
    let deleted = send(
        "DELETE",
        &daemon.url(&path),
        &[("Authorization", admin.as_str())],
        None,
    )
    .await;
    assert_eq!(deleted.status, 204, "{}", deleted.text());
    assert!(deleted.body.is_empty());

    let (status, body) = get_json(&daemon, &path, Some(READER_KEY)).await;
    assert_eq!(status, 404, "{body}");
    assert!(body["message"].as_str().unwrap().contains(&key));
    let gone = get(&url, &[]).await;
    assert_eq!(gone.status, 404, "{}", gone.text());
    assert_eq!(s3_code(&gone.text()), "NoSuchKey");
    let (_, list) = get_json(&daemon, "/files", Some(READER_KEY)).await;
    assert_eq!(list["meta"]["total"], "0");
}

/// Files in the embedded store's temp folder, where uploads are spooled as they arrive.
fn spooled_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir.join("data/objects/.tmp"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn uploads_are_spooled_to_disk_and_leave_nothing_behind() {
    use tokio::io::AsyncWriteExt;

    let dir = temp();
    let daemon = Daemon::start(dir.path(), &[], &[API_KEYS, ADMIN_KEYS]).await;
    let admin = format!("Bearer {ADMIN_KEY}");
    let auth = [("Authorization", admin.as_str())];

    // A few MiB go to disk chunk by chunk and are renamed into place: no copy stays.
    let content: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let reply = send(
        "POST",
        &daemon.url("/files"),
        &auth,
        Some(upload_form("big.bin", &content)),
    )
    .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let key = serde_json::from_slice::<Value>(&reply.body).unwrap()["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let download = get(&signed_url(&daemon, &key, Some(ADMIN_KEY)).await, &[]).await;
    assert_eq!(download.body, content);
    assert_eq!(spooled_files(dir.path()), Vec::<String>::new());

    // Forms refused while read: their spool goes too, and no record is written.
    let two_files = upload_form("a.bin", b"first").part(
        "file",
        reqwest::multipart::Part::bytes(b"second".to_vec()).file_name("b.bin"),
    );
    let long_field = upload_form("a.bin", b"a").text("description", "d".repeat(70_000));
    for (form, expected) in [
        (two_files, "more than one 'file' field"),
        (long_field, "form field 'description' is longer than"),
    ] {
        let reply = send("POST", &daemon.url("/files"), &auth, Some(form)).await;
        assert_eq!(reply.status, 400, "{}", reply.text());
        assert!(reply.error_message().contains(expected), "{}", reply.text());
    }
    assert_eq!(spooled_files(dir.path()), Vec::<String>::new());

    // A client that goes away in the middle of its upload leaves no spool file either.
    let mut socket = tokio::net::TcpStream::connect(&daemon.addr).await.unwrap();
    let boundary = "depot-test-boundary";
    let head = format!(
        "POST /files HTTP/1.1\r\nHost: x\r\nAuthorization: {admin}\r\n\
         Content-Type: multipart/form-data; boundary={boundary}\r\n\
         Content-Length: 50000000\r\n\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"cut.bin\"\r\n\r\n"
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    socket.write_all(&vec![b'x'; 2_000_000]).await.unwrap();
    socket.flush().await.unwrap();
    let spooling = support::eventually(Duration::from_secs(10), || async {
        (!spooled_files(dir.path()).is_empty()).then_some(())
    })
    .await;
    assert!(spooling.is_some(), "the upload is spooled while it arrives");
    drop(socket);
    let cleaned = support::eventually(Duration::from_secs(10), || async {
        spooled_files(dir.path()).is_empty().then_some(())
    })
    .await;
    assert!(
        cleaned.is_some(),
        "left behind: {:?}",
        spooled_files(dir.path())
    );
    let (_, list) = get_json(&daemon, "/files", Some(READER_KEY)).await;
    assert_eq!(list["meta"]["total"], "1");
}

// ------------------------------------------------------------------ 5, 6. the command line

fn stderr_lines(output: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn import_of_json_lines_lists_every_record() {
    let dir = temp();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let records = [
        json!({"fileName": "a.png", "description": "first", "bucket": "depot", "status": 1,
               "fileType": "image/png", "permission": "public",
               "key": "11111111-2222-4333-8444-555555555551-original",
               "createdAt": "2026-01-02T03:04:05.001Z", "size": 48213,
               "sha256": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}),
        json!({"fileName": "b.pdf", "description": "", "bucket": "archive", "status": 0,
               "fileType": "pdf", "permission": "private",
               "key": "11111111-2222-4333-8444-555555555552",
               "createdAt": "2026-01-02T03:04:05.002Z"}),
        json!({"fileName": "c d.txt", "description": "third\nline", "bucket": "depot",
               "status": 7, "fileType": "text/plain", "permission": "public",
               "key": "11111111-2222-4333-8444-555555555553-thumb_200",
               "createdAt": "2026-01-02T04:04:05.003+01:00"}),
    ];
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(dir.path().join("records.jsonl"), text).expect("written");

    let output = run(dir.path(), &["files", "import", "records.jsonl"]);
    assert!(output.status.success(), "{:?}", stderr_lines(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "imported 3 records from records.jsonl\n"
    );

    let (status, list) = get_json(&daemon, "/files", None).await;
    assert_eq!(status, 200);
    assert_eq!(list["meta"]["total"], "3");
    let data = list["data"].as_array().expect("data");
    // Newest first; the third is 03:04:05.003 UTC once its offset is applied.
    let order = [2, 1, 0];
    for (record, &i) in data.iter().zip(&order) {
        assert_record_shape(record);
        let mut expected = records[i].clone();
        expected["id"] = record["id"].clone();
        // Rows without size and sha256 import with them unknown.
        for optional in ["size", "sha256"] {
            if expected.get(optional).is_none() {
                expected[optional] = Value::Null;
            }
        }
        if i == 2 {
            expected["createdAt"] = json!("2026-01-02T03:04:05.003Z");
        }
        assert_eq!(record, &expected);
    }
}

#[tokio::test]
async fn import_of_csv_with_a_bad_row_fails_naming_the_line_and_imports_nothing() {
    let dir = temp();
    let kept = add_file(dir.path(), "kept.txt", b"kept", &[]);
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let csv = "\
fileName,description,bucket,status,fileType,permission,key,createdAt
a.png,first,depot,1,image/png,public,21111111-2222-4333-8444-555555555551,2026-01-02T03:04:05.678Z
b.png,second,depot,2,image/png,secret,21111111-2222-4333-8444-555555555552,2026-01-02T03:04:05.678Z
c.png,third,depot,3,image/png,public,21111111-2222-4333-8444-555555555553,2026-01-02T03:04:05.678Z
";
    std::fs::write(dir.path().join("records.csv"), csv).expect("written");

    let output = run(dir.path(), &["files", "import", "records.csv"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "{:?}", output.stdout);
    let lines = stderr_lines(&output);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("line 3"), "{lines:?}");
    assert!(lines[0].contains("permission"), "{lines:?}");
    assert!(lines[0].contains("'secret'"), "{lines:?}");

    let (_, list) = get_json(&daemon, "/files", None).await;
    assert_eq!(keys_of(&list), [kept.key()]);
    assert_eq!(list["meta"]["total"], "1");
}

#[tokio::test]
async fn adding_a_missing_file_fails_and_adds_nothing() {
    let dir = temp();
    std::fs::write(dir.path().join("present.txt"), "here").expect("written");
    for args in [
        &["files", "add", "missing.txt"][..],
        &["files", "add", "present.txt", "missing.txt"][..],
    ] {
        let output = run(dir.path(), args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let lines = stderr_lines(&output);
        assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
        assert!(lines[0].contains("missing.txt"), "{lines:?}");
    }
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let (_, list) = get_json(&daemon, "/files", None).await;
    assert_eq!(
        list,
        json!({"data": [], "meta": {"total": "0", "page": 1, "limit": 25}})
    );
}

/// The daemon caches list pages and records; a record added by another process (the CLI
/// beside the daemon) must still show up, within the poll interval of the cache.
#[tokio::test]
async fn records_added_by_the_cli_beside_a_running_daemon_show_up() {
    let dir = temp();
    let first = add_file(dir.path(), "first.txt", b"one", &[]);
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let (_, list) = get_json(&daemon, "/files", None).await;
    assert_eq!(list["meta"]["total"], "1");
    let (status, _) = get_json(&daemon, &format!("/file?key={}", first.key()), None).await;
    assert_eq!(status, 200);

    let second = add_file(dir.path(), "second.txt", b"two", &[]);
    let seen = support::eventually(std::time::Duration::from_secs(2), || async {
        let (_, list) = get_json(&daemon, "/files", None).await;
        (list["meta"]["total"] == "2").then_some(list)
    })
    .await
    .expect("the new record is listed within 2 s");
    assert_eq!(
        keys_of(&seen),
        vec![second.key().to_owned(), first.key().to_owned()]
    );
    let (status, record) = get_json(&daemon, &format!("/file?key={}", second.key()), None).await;
    assert_eq!(status, 200, "{record}");
}

/// With `signing.endpoint` set, `signedUrl` is a presigned URL for that S3-compatible
/// service (path style here, as MinIO and Garage use), made with the configured
/// credentials and session token: it verifies with them and with nothing else.
#[tokio::test]
async fn with_an_s3_endpoint_urls_are_signed_for_that_service() {
    use depot::secret::Secret;
    use depot::signing::{Credentials, PresignedRequest, verify_presigned};
    let dir = temp();
    let added = add_file(dir.path(), "report.pdf", b"%PDF", &["--bucket", "media"]);
    let env = [
        ("DEPOT_SIGNING_ENDPOINT", "http://127.0.0.1:9000"),
        ("DEPOT_SIGNING_REGION", "eu-central-1"),
        ("DEPOT_SIGNING_ACCESS_KEY_ID", "AKIAMINIOEXAMPLE0001"),
        ("DEPOT_SIGNING_SECRET_ACCESS_KEY", "minio/secret/EXAMPLE"),
        ("DEPOT_SIGNING_SESSION_TOKEN", "session-token-1"),
    ];
    let daemon = Daemon::start(dir.path(), &[], &env).await;
    let (status, record) = get_json(&daemon, &format!("/file?key={}", added.key()), None).await;
    assert_eq!(status, 200, "{record}");
    let url = record["signedUrl"].as_str().expect("signedUrl is text");
    let prefix = format!("http://127.0.0.1:9000/media/{}?", added.key());
    assert!(url.starts_with(&prefix), "{url}");
    assert!(
        url.contains("X-Amz-Credential=AKIAMINIOEXAMPLE0001%2F"),
        "{url}"
    );
    assert!(url.contains("%2Feu-central-1%2Fs3%2Faws4_request"), "{url}");
    assert!(
        url.contains("X-Amz-Security-Token=session-token-1"),
        "{url}"
    );

    let (path, query) = url["http://127.0.0.1:9000".len()..]
        .split_once('?')
        .expect("a query");
    let request = PresignedRequest {
        method: "GET",
        host: "127.0.0.1:9000",
        path,
        query,
    };
    let credentials = |secret: &str| Credentials {
        access_key_id: "AKIAMINIOEXAMPLE0001".into(),
        secret_access_key: Secret::new(secret),
        session_token: Some(Secret::new("session-token-1")),
    };
    let now = chrono::Utc::now();
    let skew = depot::signing::DEFAULT_MAX_CLOCK_SKEW;
    assert_eq!(
        verify_presigned(&request, &credentials("minio/secret/EXAMPLE"), now, skew),
        Ok(())
    );
    assert!(verify_presigned(&request, &credentials("another secret"), now, skew).is_err());
}

const S3_ENDPOINT_ENV: [(&str, &str); 3] = [
    ("DEPOT_SIGNING_ENDPOINT", "http://127.0.0.1:9000"),
    ("DEPOT_SIGNING_ACCESS_KEY_ID", "AKIAMINIOEXAMPLE0001"),
    ("DEPOT_SIGNING_SECRET_ACCESS_KEY", "minio/secret/EXAMPLE"),
];

/// Files under the object store's buckets (its own `.tmp` and `.pending` left out).
fn stored_objects(dir: &Path) -> Vec<std::path::PathBuf> {
    fn walk(path: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir.join("data/objects"))
        .into_iter()
        .flatten()
        .flatten()
    {
        if !entry.file_name().to_string_lossy().starts_with('.') {
            walk(&entry.path(), &mut out);
        }
    }
    out
}

/// With `signing.endpoint` set, uploads go to that endpoint (tests/pg_s3.rs has a real
/// one); when nothing answers there, the upload is refused as unavailable, saying what is
/// down, over HTTP (503 with the contract's body) and on the command line (one line,
/// exit 1), and nothing is recorded or kept in the embedded store.
#[tokio::test]
async fn uploads_to_an_unreachable_s3_endpoint_are_refused_whole() {
    let dir = temp();
    let mut env = S3_ENDPOINT_ENV.to_vec();
    env.push(ADMIN_KEYS);
    let daemon = Daemon::start(dir.path(), &[], &env).await;
    let admin = format!("Bearer {ADMIN_KEY}");
    let reply = send(
        "POST",
        &daemon.url("/files"),
        &[("Authorization", admin.as_str())],
        Some(upload_form("a.txt", b"a")),
    )
    .await;
    assert_eq!(reply.status, 503, "{}", reply.text());
    let message = reply.error_message();
    assert!(
        message.starts_with(
            "the S3 object store at http://127.0.0.1:9000 (signing.endpoint) is unreachable while \
             storing an object: "
        ) && message.ends_with("; try again"),
        "{message}"
    );

    std::fs::write(dir.path().join("b.txt"), "b").expect("written");
    let output = support::depot(dir.path())
        .envs(S3_ENDPOINT_ENV)
        .args(["files", "add", "b.txt"])
        .output()
        .expect("depot runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let lines = stderr_lines(&output);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains(
            "the S3 object store at http://127.0.0.1:9000 (signing.endpoint) is unreachable"
        ),
        "{lines:?}"
    );

    let (_, list) = get_json(&daemon, "/files", None).await;
    assert_eq!(list["meta"]["total"], "0");
    assert_eq!(stored_objects(dir.path()), Vec::<std::path::PathBuf>::new());
}

/// An endpoint without its credentials cannot sign anything: a configuration error at
/// load naming the keys, not a 500 on every `GET /file`.
#[test]
fn an_s3_endpoint_without_credentials_is_a_configuration_error() {
    let dir = temp();
    let endpoint = [("DEPOT_SIGNING_ENDPOINT", "http://127.0.0.1:9000")];
    let output = support::depot(dir.path())
        .envs(endpoint)
        .args(["config", "check"])
        .output()
        .expect("depot runs");
    assert_eq!(output.status.code(), Some(1));
    let lines = stderr_lines(&output);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains(
            "signing.endpoint is set (http://127.0.0.1:9000) but signing.access_key_id and signing.secret_access_key are empty"
        ),
        "{lines:?}"
    );

    let mut serve = support::depot(dir.path())
        .envs(endpoint)
        .env("DEPOT_SIGNING_ACCESS_KEY_ID", "AKIAMINIOEXAMPLE0001")
        .args(["serve", "--listen", "127.0.0.1:0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("depot starts");
    let status =
        support::wait_with_limit(&mut serve, Duration::from_secs(20)).expect("serve exits at once");
    assert_eq!(status.code(), Some(1));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut serve.stderr.take().expect("piped"), &mut stderr)
        .expect("stderr");
    assert!(
        stderr.contains("but signing.secret_access_key is empty"),
        "{stderr}"
    );
}
