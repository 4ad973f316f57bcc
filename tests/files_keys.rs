//! Keys as S3 allows them, end to end through the real binary: a catalogue of hostile keys
//! is imported, listed, looked up URL-encoded, downloaded through its signed URLs from the
//! embedded store byte for byte, and deleted; download names (`download=true`) and the
//! embedded store's S3 manners (response overrides, anonymous and half-signed requests).
#![cfg(test)]

mod support;

use std::path::Path;

use depot::files::download::attachment;
use depot::objects::{EmbeddedCredentials, ObjectStore};
use depot::signing::{Addressing, Signer, SigningTarget, aws_encode};
use serde_json::{Value, json};
use support::{Daemon, HttpReply, query, run};

const ADMIN_KEY: &str = "admin-key-1";
const BUCKET: &str = "depot";

/// What the embedded store does with a key.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Served {
    /// Any HTTP client fetches it through the signed URL.
    Yes,
    /// Served, but the URL holds a `.` segment that HTTP clients (reqwest, browsers)
    /// rewrite away, as they would for S3; a client that sends the path as signed
    /// (botocore, `curl --path-as-is`) gets it.
    AsSigned,
    /// Refused with 400 (a `..` segment or a leading `/` would read as leaving the bucket).
    Refused,
}

fn hostile_keys() -> Vec<(String, Served)> {
    use Served::*;
    let mut keys: Vec<(String, Served)> = [
        ("sp ace.txt", Yes),
        ("a+b=c&d.txt", Yes),
        ("~tilde/'quote'(paren)!bang*star;semi", Yes),
        ("at@dollar$percent%25.txt", Yes),
        ("100%", Yes),
        ("question?hash#frag", Yes),
        ("colon:comma,brackets[]{}", Yes),
        ("caret^pipe|backtick`", Yes),
        ("double\"quote<lt>gt", Yes),
        ("back\\slash", Yes),
        ("ünï/日本語/файл.txt", Yes),
        ("emoji 😀.png", Yes),
        ("nbsp\u{a0}and\u{2028}line-separator", Yes),
        ("Photos/2024/IMG 0001 (1).JPG", Yes),
        // One key is an object and the folder of others, as S3 allows.
        ("folder", Yes),
        ("folder/", Yes),
        ("folder/inner", Yes),
        ("folder//double", Yes),
        ("a/./b", AsSigned),
        (".", AsSigned),
        ("a/../b", Refused),
        ("..", Refused),
        ("/leading-slash", Refused),
    ]
    .iter()
    .map(|(k, s)| ((*k).to_owned(), *s))
    .collect();
    keys.push((format!("{}/long-segment", "s".repeat(300)), Yes));
    keys.push(("k".repeat(1024), Yes));
    keys
}

/// The content stored for a key: its own bytes, so a mix-up shows.
fn content_of(key: &str) -> Vec<u8> {
    format!("content of {key}").into_bytes()
}

/// Imports a record per key and puts the content of every key the store takes in place,
/// as an operator whose objects already exist would.
fn catalogue(dir: &Path) -> Vec<(String, Served)> {
    let keys = hostile_keys();
    let lines: String = keys
        .iter()
        .enumerate()
        .map(|(i, (key, _))| {
            let record = json!({
                "fileName": format!("name {i} ü.txt"), "bucket": BUCKET, "fileType": "text/plain",
                "permission": "public", "key": key,
                "createdAt": format!("2026-01-01T00:00:{:02}.000Z", i % 60),
            });
            format!("{record}\n")
        })
        .collect();
    std::fs::write(dir.join("records.jsonl"), lines).expect("written");
    let output = run(dir, &["files", "import", "records.jsonl"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("imported {} records from records.jsonl\n", keys.len())
    );
    let store = ObjectStore::open(dir.join("data/objects")).expect("store opens");
    for (key, served) in &keys {
        if *served != Served::Refused {
            store.put(BUCKET, key, &content_of(key)).expect(key);
        }
    }
    keys
}

async fn send(method: &str, url: &str, headers: &[(&str, &str)]) -> HttpReply {
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
    let mut request = reqwest::Client::new().request(method, url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    HttpReply::read(
        request
            .send()
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}")),
    )
    .await
}

async fn file_record(daemon: &Daemon, key: &str, extra: &[(&str, &str)]) -> (u16, Value) {
    let mut pairs = vec![("key", key)];
    pairs.extend_from_slice(extra);
    let reply = send("GET", &daemon.url(&format!("/file?{}", query(&pairs))), &[]).await;
    let body = serde_json::from_slice(&reply.body).expect("JSON body");
    (reply.status, body)
}

/// One request written by hand, so that the target reaches the server byte for byte.
async fn raw_get(daemon: &Daemon, target: &str) -> (u16, String, Vec<u8>) {
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
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8(answer[..split].to_vec()).expect("ASCII head");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, head, answer[split + 4..].to_vec())
}

fn s3_code(body: &[u8]) -> String {
    let body = String::from_utf8_lossy(body);
    body.split_once("<Code>")
        .and_then(|(_, rest)| rest.split_once("</Code>"))
        .map(|(code, _)| code.to_owned())
        .unwrap_or_else(|| panic!("not an S3 error body: {body:?}"))
}

#[tokio::test]
async fn hostile_keys_are_imported_listed_looked_up_downloaded_and_deleted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let keys = catalogue(dir.path());
    let daemon = Daemon::start(dir.path(), &[], &[("DEPOT_ADMIN_KEYS", ADMIN_KEY)]).await;

    // Listed, every key exactly as imported.
    let list = send("GET", &daemon.url("/files?limit=100"), &[]).await;
    assert_eq!(list.status, 200, "{}", list.text());
    let list: Value = serde_json::from_slice(&list.body).expect("JSON");
    assert_eq!(list["meta"]["total"], keys.len().to_string());
    let mut listed: Vec<&str> = list["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|r| r["key"].as_str().expect("key"))
        .collect();
    let mut expected: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
    listed.sort_unstable();
    expected.sort_unstable();
    assert_eq!(listed, expected);

    let prefix = format!("{}/objects/{BUCKET}/", daemon.base);
    for (key, served) in &keys {
        // Looked up URL-encoded; signed over the key's bytes, as S3 has them.
        let (status, record) = file_record(&daemon, key, &[]).await;
        assert_eq!(status, 200, "{key:?}: {record}");
        assert_eq!(record["key"], key.as_str());
        let url = record["signedUrl"].as_str().expect("signedUrl");
        let path = format!("{prefix}{}?", aws_encode(key, true));
        assert!(url.starts_with(&path), "{key:?}: {url}");
        assert!(!url.contains("response-content-disposition"), "{url}");

        let target = &url[daemon.base.len()..];
        match served {
            Served::Yes => {
                let reply = send("GET", url, &[]).await;
                assert_eq!(reply.status, 200, "{key:?}: {}", reply.text());
                assert_eq!(reply.body, content_of(key), "{key:?}");
                let (status, _, body) = raw_get(&daemon, target).await;
                assert_eq!((status, body), (200, content_of(key)), "{key:?}");
            }
            Served::AsSigned => {
                let (status, _, body) = raw_get(&daemon, target).await;
                assert_eq!((status, body), (200, content_of(key)), "{key:?}");
            }
            Served::Refused => {
                let (status, _, body) = raw_get(&daemon, target).await;
                assert_eq!(status, 400, "{key:?}");
                assert_eq!(s3_code(&body), "InvalidArgument", "{key:?}");
            }
        }
    }

    // Deleted by their URL-encoded key: record and object go, the neighbours stay.
    let store = ObjectStore::open(dir.path().join("data/objects")).expect("store");
    let admin = format!("Bearer {ADMIN_KEY}");
    for key in [
        "folder",
        "folder/",
        "100%",
        "ünï/日本語/файл.txt",
        "/leading-slash",
    ] {
        let url = daemon.url(&format!("/file?{}", query(&[("key", key)])));
        let reply = send("DELETE", &url, &[("Authorization", &admin)]).await;
        assert_eq!(reply.status, 204, "{key:?}: {}", reply.text());
        let (status, body) = file_record(&daemon, key, &[]).await;
        assert_eq!(status, 404, "{key:?}: {body}");
        if key != "/leading-slash" {
            assert!(store.stat(BUCKET, key).is_err(), "{key:?} still on disk");
        }
    }
    for key in ["folder/inner", "folder//double", "at@dollar$percent%25.txt"] {
        assert!(store.stat(BUCKET, key).is_ok(), "{key:?} was deleted too");
    }
    let (status, record) = file_record(&daemon, "folder/inner", &[]).await;
    assert_eq!(status, 200, "{record}");
}

#[tokio::test]
async fn download_true_signs_the_record_name_and_the_store_sends_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("Résumé \"final\" 100%.pdf"), b"%PDF-1.7").expect("file");
    let output = run(dir.path(), &["files", "add", "Résumé \"final\" 100%.pdf"]);
    assert!(output.status.success(), "{output:?}");
    let added: Value = serde_json::from_slice(&output.stdout).expect("record");
    let key = added["key"].as_str().expect("key").to_owned();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;

    let (status, plain) = file_record(&daemon, &key, &[("download", "false")]).await;
    assert_eq!(status, 200, "{plain}");
    let plain_url = plain["signedUrl"].as_str().expect("url");
    assert!(
        !plain_url.contains("response-content-disposition"),
        "{plain_url}"
    );
    let reply = send("GET", plain_url, &[]).await;
    assert_eq!(reply.status, 200);
    // A PDF is no type shown inline (SPEC §10): a plain attachment, without a name.
    assert_eq!(reply.header("content-disposition"), Some("attachment"));

    let (status, record) = file_record(&daemon, &key, &[("download", "true")]).await;
    assert_eq!(status, 200, "{record}");
    let url = record["signedUrl"].as_str().expect("url");
    let disposition = "attachment; filename=\"R_sum_ _final_ 100_.pdf\"; \
                       filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22%20100%25.pdf";
    assert_eq!(attachment("Résumé \"final\" 100%.pdf"), disposition);
    assert!(
        url.contains(&format!(
            "?response-content-disposition={}&X-Amz-Algorithm=",
            aws_encode(disposition, false)
        )),
        "{url}"
    );
    let reply = send("GET", url, &[]).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.header("content-disposition"), Some(disposition));
    assert_eq!(reply.header("content-type"), Some("application/pdf"));
    assert_eq!(reply.body, b"%PDF-1.7");
    // HEAD answers with the same headers.
    let head = send("HEAD", url, &[]).await;
    assert_eq!(head.header("content-disposition"), Some(disposition));
    // The name is signed: changed, the URL is refused.
    let forged = url.replace("attachment", "inline");
    let reply = send("GET", &forged, &[]).await;
    assert_eq!(reply.status, 403);
    assert_eq!(s3_code(&reply.body), "SignatureDoesNotMatch");

    for value in ["1", "yes", "TRUE", ""] {
        let reply = send(
            "GET",
            &daemon.url(&format!(
                "/file?{}",
                query(&[("key", &key), ("download", value)])
            )),
            &[],
        )
        .await;
        assert_eq!(reply.status, 400, "{value:?}");
        assert_eq!(
            reply.error_message(),
            format!("download must be true or false, got '{value}'")
        );
    }
}

#[tokio::test]
async fn the_store_honours_signed_overrides_and_answers_like_s3_without_a_signature() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("data.bin"), b"0123456789").expect("file");
    let output = run(dir.path(), &["files", "add", "data.bin"]);
    assert!(output.status.success(), "{output:?}");
    let added: Value = serde_json::from_slice(&output.stdout).expect("record");
    let key = added["key"].as_str().expect("key").to_owned();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;

    let signer = Signer::new(
        SigningTarget {
            endpoint: daemon.url("/objects"),
            addressing: Addressing::Path,
            region: "us-east-1".into(),
        },
        EmbeddedCredentials::load_or_create(&dir.path().join("data")).expect("credentials"),
    )
    .expect("signer");
    let url = signer
        .presign_get_with(
            BUCKET,
            &key,
            60,
            chrono::Utc::now(),
            &[
                ("response-content-type", "text/plain; charset=utf-8"),
                ("response-cache-control", "no-store"),
                ("response-content-disposition", "inline"),
            ],
        )
        .expect("signs");
    let reply = send("GET", &url, &[("Range", "bytes=2-4")]).await;
    assert_eq!(reply.status, 206, "{}", reply.text());
    assert_eq!(reply.body, b"234");
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    assert_eq!(reply.header("content-disposition"), Some("inline"));
    // A type no browser shows by itself stays an attachment, whatever the override says
    // (SPEC §10); one that is not one media type is not sent as written.
    for (content_type, sent) in [
        ("text/csv; charset=utf-8", "text/csv; charset=utf-8"),
        ("text/html, image/png", "application/octet-stream"),
    ] {
        let url = signer
            .presign_get_with(
                BUCKET,
                &key,
                60,
                chrono::Utc::now(),
                &[
                    ("response-content-type", content_type),
                    ("response-content-disposition", "inline"),
                ],
            )
            .expect("signs");
        let reply = send("GET", &url, &[]).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_eq!(reply.header("content-type"), Some(sent));
        assert_eq!(reply.header("content-disposition"), Some("attachment"));
    }

    let bad = signer
        .presign_get_with(
            BUCKET,
            &key,
            60,
            chrono::Utc::now(),
            &[("response-content-type", "a\u{1}b")],
        )
        .expect("signs");
    let reply = send("GET", &bad, &[]).await;
    assert_eq!(reply.status, 400, "{}", reply.text());
    assert_eq!(s3_code(&reply.body), "InvalidArgument");

    // No signature parameter at all: anonymous, refused as S3 refuses a private object.
    let path = format!("/objects/{BUCKET}/{key}");
    let reply = send("GET", &daemon.url(&path), &[]).await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    assert_eq!(s3_code(&reply.body), "AccessDenied");
    assert_eq!(reply.header("content-type"), Some("application/xml"));
    let reply = send("GET", &daemon.url(&format!("{path}?versionId=1")), &[]).await;
    assert_eq!(s3_code(&reply.body), "AccessDenied");
    // Some of them: a malformed request.
    let half = url.split("&X-Amz-Signature=").next().expect("query");
    let reply = send("GET", half, &[]).await;
    assert_eq!(reply.status, 400, "{}", reply.text());
    assert_eq!(s3_code(&reply.body), "AuthorizationQueryParametersError");
}
