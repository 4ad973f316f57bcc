//! Direct uploads (SPEC §13) through the real binary and real clients: presigned PUTs and
//! multipart plans sent with plain HTTP (reqwest) to the embedded store and to s3s-fs (an
//! S3 server that verifies signatures, tests/support/engines.rs), botocore running S3's
//! multipart calls against the embedded store with depot's credentials, and every way an
//! upload can go wrong (more bytes than declared, another checksum, an expired URL, a
//! completion before the bytes, a second completion) refused with S3's or depot's errors,
//! leaving no record. Uploads never completed expire with their objects and parts.
#![cfg(test)]

mod support;

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use support::engines::{S3S_ACCESS_KEY, S3S_SECRET_KEY, S3sFs};
use support::{Daemon, eventually, query};

const ADMIN_KEY: &str = "admin-key-for-uploads";
const MIB: usize = 1024 * 1024;
/// Multipart plans above 6 MiB, in parts of 5 MiB (S3's smallest), so tests stay small.
const SMALL_PARTS: [(&str, &str); 2] = [
    ("DEPOT_FILES_SINGLE_PUT_MAX", "6291456"),
    ("DEPOT_FILES_PART_SIZE", "5242880"),
];

fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Bytes that differ at every offset, so a part out of place shows.
fn content(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i % 251) as u8 ^ seed ^ ((i / 251) % 256) as u8)
        .collect()
}

async fn start(dir: &Path, env: &[(&str, &str)]) -> Daemon {
    let mut all = vec![
        ("DEPOT_ADMIN_KEYS", ADMIN_KEY),
        ("DEPOT_PRODUCER_ENABLED", "false"),
    ];
    all.extend_from_slice(env);
    Daemon::start(dir, &[], &all).await
}

async fn post(daemon: &Daemon, path: &str, body: &str) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(daemon.url(path))
        .bearer_auth(ADMIN_KEY)
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn begin(daemon: &Daemon, body: Value) -> Value {
    let (status, plan) = post(daemon, "/files/uploads", &body.to_string()).await;
    assert_eq!(status, 201, "{plan}");
    plan
}

async fn complete(daemon: &Daemon, key: &str, body: Value) -> (u16, Value) {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    post(daemon, &format!("/files/uploads/{key}/complete"), &body).await
}

/// A PUT of `body` to a plan's `upload`, with the headers it names (and `extra`).
async fn put(upload: &Value, body: Vec<u8>, extra: &[(&str, &str)]) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .put(upload["url"].as_str().unwrap())
        .body(body);
    for (name, value) in upload["headers"].as_object().unwrap() {
        request = request.header(name, value.as_str().unwrap());
    }
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

async fn s3_code(response: reqwest::Response) -> (u16, String) {
    let (status, code, _) = s3_error(response).await;
    (status, code)
}

/// The status, and the `Code` and `Message` of an S3 XML error.
async fn s3_error(response: reqwest::Response) -> (u16, String, String) {
    let status = response.status().as_u16();
    let body = response.text().await.unwrap();
    let element = |name: &str| {
        body.split_once(&format!("<{name}>"))
            .and_then(|(_, rest)| rest.split_once(&format!("</{name}>")))
            .map(|(text, _)| text.to_owned())
            .unwrap_or_else(|| format!("no {name} of an S3 error in {body:?}"))
    };
    (status, element("Code"), element("Message"))
}

/// A request with the admin key, without a body.
async fn as_admin(daemon: &Daemon, method: reqwest::Method, path: &str) -> reqwest::Response {
    reqwest::Client::new()
        .request(method, daemon.url(path))
        .bearer_auth(ADMIN_KEY)
        .send()
        .await
        .unwrap()
}

/// `/file?key=KEY`.
fn file_path(key: &str) -> String {
    format!("/file?{}", query(&[("key", key)]))
}

/// How many records `GET /files` lists, and whether `GET /file` knows `key`.
async fn records(daemon: &Daemon, key: &str) -> (String, u16) {
    let list: Value = as_admin(daemon, reqwest::Method::GET, "/files")
        .await
        .json()
        .await
        .unwrap();
    let one = as_admin(daemon, reqwest::Method::GET, &file_path(key))
        .await
        .status()
        .as_u16();
    (list["meta"]["total"].as_str().unwrap().to_owned(), one)
}

async fn download(daemon: &Daemon, key: &str) -> Vec<u8> {
    let url = daemon.signed_url(key, ADMIN_KEY).await;
    let response = reqwest::get(&url).await.unwrap();
    assert_eq!(response.status(), 200, "{url}");
    response.bytes().await.unwrap().to_vec()
}

/// Files left in a folder and its subfolders.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_direct_upload_to_the_embedded_store_becomes_a_record_once_checked() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path(), &[]).await;
    let bytes = content(300_000, 7);
    let plan = begin(
        &daemon,
        json!({"fileName": "photo.png", "size": bytes.len(), "contentType": "image/png",
               "sha256": hex_sha256(&bytes).to_uppercase(), "permission": "private",
               "description": "straight to the store", "status": 3}),
    )
    .await;
    let key = plan["key"].as_str().unwrap().to_owned();
    assert!(key.ends_with("-original"), "{plan}");
    let upload = &plan["upload"];
    assert_eq!(upload["method"], "PUT");
    let url = upload["url"].as_str().unwrap();
    assert!(
        url.starts_with(&format!("{}/objects/depot/{key}?", daemon.base)),
        "{url}"
    );
    assert!(
        url.contains(
            "X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost%3Bif-none-match%3Bx-amz-checksum-sha256"
        ),
        "{url}"
    );
    assert_eq!(upload["headers"]["Content-Type"], "image/png");
    assert_eq!(upload["headers"]["If-None-Match"], "*");
    assert_eq!(upload["headers"].as_object().unwrap().len(), 3, "{upload}");
    // Nothing is recorded before the bytes are there and checked.
    assert_eq!(records(&daemon, &key).await, ("0".into(), 404));
    let (status, body) = complete(&daemon, &key, Value::Null).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("upload-not-arrived")),
        "{body}"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("no object has arrived at depot/{key} yet")),
        "{body}"
    );
    assert_eq!(records(&daemon, &key).await, ("0".into(), 404));

    let response = put(upload, bytes.clone(), &[]).await;
    assert_eq!(response.status(), 200, "{:?}", response.text().await);
    assert_eq!(records(&daemon, &key).await, ("0".into(), 404));
    let (status, record) = complete(&daemon, &key, json!({})).await;
    assert_eq!(status, 201, "{record}");
    assert_eq!(record["key"], key.as_str());
    assert_eq!(record["size"], bytes.len());
    assert_eq!(record["sha256"], hex_sha256(&bytes));
    assert_eq!(
        (
            record["fileType"].as_str(),
            record["permission"].as_str(),
            record["status"].as_i64()
        ),
        (Some("png"), Some("private"), Some(3))
    );
    assert_eq!(records(&daemon, &key).await, ("1".into(), 200));
    let listed: Value = reqwest::Client::new()
        .get(daemon.url("/files"))
        .bearer_auth(ADMIN_KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["data"][0]["size"], bytes.len());
    assert_eq!(listed["data"][0]["sha256"], hex_sha256(&bytes));
    assert_eq!(download(&daemon, &key).await, bytes);

    // A second completion is refused and writes nothing.
    let (status, body) = complete(&daemon, &key, Value::Null).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("upload-completed")),
        "{body}"
    );
    assert_eq!(
        body["message"],
        format!("the upload of key '{key}' is already completed: GET /file?key= gives its record")
    );
    assert_eq!(records(&daemon, &key).await, ("1".into(), 200));
    // An upload nobody began.
    let (status, body) = complete(&daemon, "no-such-upload", Value::Null).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("unknown-upload"))
    );

    // POST /files computes the same two facts while it spools.
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(bytes.clone()).file_name("via-node.png"),
    );
    let posted: Value = reqwest::Client::new()
        .post(daemon.url("/files"))
        .bearer_auth(ADMIN_KEY)
        .multipart(form)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (posted["size"].as_u64(), posted["sha256"].as_str()),
        (Some(bytes.len() as u64), Some(hex_sha256(&bytes).as_str()))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn puts_that_break_what_was_declared_are_refused_and_leave_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path(), &[("DEPOT_FILES_UPLOAD_TTL_SECS", "3")]).await;
    let bytes = content(10_000, 1);
    let plan = begin(
        &daemon,
        json!({"fileName": "a.bin", "size": bytes.len(), "sha256": hex_sha256(&bytes)}),
    )
    .await;
    let (key, upload) = (plan["key"].as_str().unwrap().to_owned(), &plan["upload"]);

    // More bytes than declared: the signed Content-Length no longer matches.
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        s3_code(put(upload, longer, &[]).await).await,
        (403, "SignatureDoesNotMatch".into())
    );
    // The declared length with other bytes: the signed checksum does not match the body.
    let mut other = bytes.clone();
    other[0] ^= 1;
    assert_eq!(
        s3_code(put(upload, other, &[]).await).await,
        (400, "BadDigest".into())
    );
    // Without the checksum header it was signed with.
    let bare = reqwest::Client::new()
        .put(upload["url"].as_str().unwrap())
        .body(bytes.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(s3_code(bare).await, (403, "SignatureDoesNotMatch".into()));
    // Nothing arrived, so nothing can complete.
    assert_eq!(complete(&daemon, &key, Value::Null).await.0, 409);
    assert_eq!(records(&daemon, &key).await, ("0".into(), 404));
    assert!(
        files_under(&dir.path().join("data/objects/depot")).is_empty(),
        "{:?}",
        files_under(&dir.path().join("data/objects"))
    );

    // Once expired, the URL is refused as S3 refuses it, and so is the completion.
    tokio::time::sleep(Duration::from_millis(3200)).await;
    assert_eq!(
        s3_code(put(upload, bytes.clone(), &[]).await).await,
        (403, "AccessDenied".into())
    );
    let (status, body) = complete(&daemon, &key, Value::Null).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("unknown-upload")),
        "{body}"
    );
    assert_eq!(records(&daemon, &key).await, ("0".into(), 404));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_above_single_put_max_is_multipart_through_presigned_parts() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path(), &SMALL_PARTS).await;
    let bytes = content(12 * MIB + 123, 3);
    let plan = begin(
        &daemon,
        json!({"fileName": "big.iso", "size": bytes.len(), "sha256": hex_sha256(&bytes)}),
    )
    .await;
    let key = plan["key"].as_str().unwrap().to_owned();
    assert_eq!(plan["partSize"], 5 * MIB);
    assert!(plan["upload"].is_null(), "{plan}");
    let parts = plan["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 3);
    // Parts in any order; each is bound to its own length.
    let mut etags = Vec::new();
    for (i, part) in parts.iter().enumerate().rev() {
        let number = part["partNumber"].as_u64().unwrap();
        assert_eq!(number, i as u64 + 1);
        let start = i * 5 * MIB;
        let end = (start + 5 * MIB).min(bytes.len());
        let url = part["url"].as_str().unwrap();
        if i == 2 {
            // The last part with a byte too many: refused.
            let longer = reqwest::Client::new()
                .put(url)
                .body(bytes[start - 1..end].to_vec())
                .send()
                .await
                .unwrap();
            assert_eq!(s3_code(longer).await, (403, "SignatureDoesNotMatch".into()));
        }
        let response = reqwest::Client::new()
            .put(url)
            .body(bytes[start..end].to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let etag = response.headers()["etag"].to_str().unwrap().to_owned();
        assert_eq!(
            etag,
            format!("\"{:x}\"", md5_of(&bytes[start..end])),
            "a part's ETag is its MD5, as in S3"
        );
        etags.push(json!({"partNumber": number, "etag": etag}));
    }
    // A completion that leaves a part out, or has none, is refused.
    let (status, body) = complete(&daemon, &key, json!({"parts": &etags[..2]})).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("invalid-parts")),
        "{body}"
    );
    assert_eq!(complete(&daemon, &key, Value::Null).await.0, 400);
    assert_eq!(records(&daemon, &key).await, ("0".into(), 404));

    let (status, record) = complete(&daemon, &key, json!({"parts": etags})).await;
    assert_eq!(status, 201, "{record}");
    assert_eq!(record["size"], bytes.len());
    assert_eq!(record["sha256"], hex_sha256(&bytes));
    assert_eq!(download(&daemon, &key).await, bytes);
    // The parts are gone once put together.
    assert!(files_under(&dir.path().join("data/objects/.multipart")).is_empty());
    assert_eq!(
        complete(&daemon, &key, json!({"parts": etags})).await.0,
        409
    );
}

/// Sends every part of a multipart `plan` of `bytes`, in order; the completion's parts.
async fn send_parts(plan: &Value, bytes: &[u8]) -> Vec<Value> {
    let part_size = plan["partSize"].as_u64().unwrap() as usize;
    let mut etags = Vec::new();
    for (i, part) in plan["parts"].as_array().unwrap().iter().enumerate() {
        let range = i * part_size..((i + 1) * part_size).min(bytes.len());
        let sent = reqwest::Client::new()
            .put(part["url"].as_str().unwrap())
            .body(bytes[range].to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(sent.status(), 200);
        let etag = sent.headers()["etag"].to_str().unwrap();
        etags.push(json!({"partNumber": i + 1, "etag": etag}));
    }
    etags
}

/// The last part of a multipart `plan` of `bytes` sent again to its URL: the S3 error.
async fn resend_last_part(plan: &Value, bytes: &[u8]) -> (u16, String) {
    let part_size = plan["partSize"].as_u64().unwrap() as usize;
    let parts = plan["parts"].as_array().unwrap();
    let start = (parts.len() - 1) * part_size;
    let sent = reqwest::Client::new()
        .put(parts[parts.len() - 1]["url"].as_str().unwrap())
        .body(bytes[start..].to_vec())
        .send()
        .await
        .unwrap();
    s3_code(sent).await
}

fn md5_of(bytes: &[u8]) -> Md5Hex {
    use md5::Digest as _;
    Md5Hex(md5::Md5::digest(bytes).into())
}

struct Md5Hex([u8; 16]);

impl std::fmt::LowerHex for Md5Hex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_never_completed_expire_with_their_objects_and_parts() {
    let dir = tempfile::tempdir().unwrap();
    let env = [
        SMALL_PARTS[0],
        SMALL_PARTS[1],
        ("DEPOT_FILES_UPLOAD_TTL_SECS", "2"),
    ];
    let daemon = start(dir.path(), &env).await;
    let small = content(1000, 9);
    let single = begin(&daemon, json!({"fileName": "s.bin", "size": small.len()})).await;
    assert_eq!(
        put(&single["upload"], small.clone(), &[]).await.status(),
        200
    );
    let big = content(7 * MIB, 5);
    let multi = begin(&daemon, json!({"fileName": "m.bin", "size": big.len()})).await;
    let first = &multi["parts"][0]["url"];
    let sent = reqwest::Client::new()
        .put(first.as_str().unwrap())
        .body(big[..5 * MIB].to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 200);
    let objects = dir.path().join("data/objects");
    assert_eq!(files_under(&objects.join("depot")).len(), 1);
    assert!(!files_under(&objects.join(".multipart")).is_empty());

    // Gone from the store, and the sweep said so (its log line follows the deletes).
    let swept = eventually(Duration::from_secs(15), || async {
        let left: Vec<String> = [
            objects.join("depot"),
            objects.join(".multipart"),
            objects.join(".tmp"),
        ]
        .iter()
        .flat_map(|d| files_under(d))
        .collect();
        (left.is_empty() && daemon.log().contains("expired uploads removed")).then_some(())
    })
    .await;
    assert!(
        swept.is_some(),
        "left behind: {:?}\n{}",
        files_under(&objects),
        daemon.log()
    );
    for plan in [&single, &multi] {
        let key = plan["key"].as_str().unwrap();
        let (status, body) = complete(&daemon, key, Value::Null).await;
        assert_eq!(status, 404, "{body}");
        assert_eq!(
            body["message"],
            format!("no upload under way has key '{key}': start one with POST /files/uploads")
        );
        assert_eq!(records(&daemon, key).await, ("0".into(), 404));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upload_requests_name_what_is_wrong_and_need_an_admin_key() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path(), &[]).await;
    for (body, message) in [
        (
            json!({"size": 1}),
            "fileName is required: the file's name, e.g. \"photo.png\"",
        ),
        (
            json!({"fileName": "a", "size": 5_497_558_138_881_u64}),
            "size must be at most 5497558138880 bytes (5 TiB, S3's largest object), got 5497558138881",
        ),
        (
            json!({"fileName": "a", "size": 1, "sha256": "abc"}),
            "sha256 must be 64 hexadecimal digits (the SHA-256 of the content), got 'abc'",
        ),
        (
            json!({"fileName": "a", "size": 1, "bucket": "No_Such"}),
            "bucket must be 3 to 63 characters of lower-case letters, digits, '.' and '-', starting and ending with a letter or digit (S3 bucket naming), got 'No_Such'",
        ),
    ] {
        let (status, answer) = post(&daemon, "/files/uploads", &body.to_string()).await;
        assert_eq!(
            (status, answer["message"].as_str()),
            (400, Some(message)),
            "{body}"
        );
        let code = answer["code"].as_str().unwrap();
        assert!(
            ["invalid-upload", "invalid-record"].contains(&code),
            "{answer}"
        );
    }
    let anonymous = reqwest::Client::new()
        .post(daemon.url("/files/uploads"))
        .body(r#"{"fileName":"a","size":1}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    let wrong_method = reqwest::get(daemon.url("/files/uploads")).await.unwrap();
    assert_eq!(wrong_method.status(), 405);
    assert_eq!(wrong_method.headers()["allow"], "POST");
    assert_eq!(records(&daemon, "x").await.0, "0");
}

/// The botocore script: S3's multipart calls, a PUT, an abort and the errors S3 clients
/// branch on, against the embedded store with depot's own credentials. It prints `ok`.
const BOTOCORE_SCRIPT: &str = r#"
import os, sys, urllib.request
import botocore.session
from botocore.config import Config
from botocore.exceptions import ClientError

def client(secret):
    return botocore.session.get_session().create_client(
        "s3", endpoint_url=os.environ["ENDPOINT"], region_name="us-east-1",
        aws_access_key_id=os.environ["ACCESS_KEY"], aws_secret_access_key=secret,
        config=Config(s3={"addressing_style": "path"}, signature_version="s3v4",
                      retries={"max_attempts": 1}))

def code(call):
    try:
        call()
    except ClientError as e:
        return e.response["Error"]["Code"]
    sys.exit("expected an S3 error")

s3 = client(os.environ["SECRET_KEY"])
bucket, key = "depot", "botocore/multi part ünï.bin"
first = bytes(range(256)) * (5 * 1024 * 1024 // 256)
tail = b"the tail of the object"
upload = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
etag2 = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=2, Body=tail)["ETag"]
etag1 = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=1, Body=first)["ETag"]
assert code(lambda: s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload,
    MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag2}, {"PartNumber": 2, "ETag": etag2}]})) == "InvalidPart"
done = s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload,
    MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag1}, {"PartNumber": 2, "ETag": etag2}]})
assert done["Key"] == key, done
url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=60)
assert urllib.request.urlopen(url).read() == first + tail
assert code(lambda: s3.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=3, Body=b"x")) == "NoSuchUpload"

s3.put_object(Bucket=bucket, Key="botocore/one.txt", Body=b"hello", ContentType="text/plain")
url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "botocore/one.txt"}, ExpiresIn=60)
assert urllib.request.urlopen(url).read() == b"hello"
assert code(lambda: s3.put_object(Bucket=bucket, Key="botocore/one.txt", Body=b"again", IfNoneMatch="*")) == "PreconditionFailed"
s3.put_object(Bucket=bucket, Key="botocore/new.txt", Body=b"new", IfNoneMatch="*")
assert urllib.request.urlopen(url).read() == b"hello"

aborted = s3.create_multipart_upload(Bucket=bucket, Key="botocore/aborted")["UploadId"]
s3.upload_part(Bucket=bucket, Key="botocore/aborted", UploadId=aborted, PartNumber=1, Body=b"x")
s3.abort_multipart_upload(Bucket=bucket, Key="botocore/aborted", UploadId=aborted)
assert code(lambda: s3.abort_multipart_upload(Bucket=bucket, Key="botocore/aborted", UploadId=aborted)) == "NoSuchUpload"
assert code(lambda: client("not-the-secret").put_object(Bucket=bucket, Key="x", Body=b"x")) == "SignatureDoesNotMatch"
print("ok")
"#;

/// Runs a botocore `script` with `env`; it must print `ok`.
fn botocore(script: &str, env: &[(&str, &str)], daemon: &Daemon) {
    let output = std::process::Command::new("python3")
        .args(["-c", script])
        .envs(env.iter().copied())
        .output()
        .expect("python3 runs (scripts/test installs botocore)");
    assert!(
        output.status.success() && String::from_utf8_lossy(&output.stdout).trim() == "ok",
        "botocore failed (pip install botocore, or run scripts/test):\n{}\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        daemon.log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn botocore_runs_s3_multipart_calls_against_the_embedded_store() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path(), &[]).await;
    let credentials: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("data/credentials.json")).unwrap(),
    )
    .unwrap();
    let endpoint = daemon.url("/objects");
    let env = [
        ("ENDPOINT", endpoint.as_str()),
        ("ACCESS_KEY", credentials["access_key_id"].as_str().unwrap()),
        (
            "SECRET_KEY",
            credentials["secret_access_key"].as_str().unwrap(),
        ),
    ];
    botocore(BOTOCORE_SCRIPT, &env, &daemon);
    let objects = dir.path().join("data/objects");
    assert!(files_under(&objects.join(".multipart")).is_empty());
    assert!(files_under(&objects.join(".tmp")).is_empty());
}

/// s3s-fs over a folder with the bucket `depot`, and depot uploading to it.
struct AtS3sFs {
    /// s3s-fs's folder: `depot/<key>` is an object.
    root: tempfile::TempDir,
    s3: S3sFs,
    _dir: tempfile::TempDir,
    daemon: Daemon,
}

async fn start_at_s3s_fs(env: &[(&str, &str)]) -> AtS3sFs {
    depot::tls::install_tls_provider();
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("depot")).unwrap();
    let s3 = S3sFs::start_in(root.path());
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec![
        ("DEPOT_SIGNING_ENDPOINT", s3.endpoint.as_str()),
        ("DEPOT_SIGNING_ACCESS_KEY_ID", S3S_ACCESS_KEY),
        ("DEPOT_SIGNING_SECRET_ACCESS_KEY", S3S_SECRET_KEY),
    ];
    all.extend_from_slice(env);
    let daemon = start(dir.path(), &all).await;
    AtS3sFs {
        root,
        s3,
        _dir: dir,
        daemon,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direct_uploads_to_s3s_fs_are_checked_before_their_record() {
    let AtS3sFs {
        root, s3, daemon, ..
    } = start_at_s3s_fs(&[
        SMALL_PARTS[0],
        SMALL_PARTS[1],
        ("DEPOT_FILES_UPLOAD_TTL_SECS", "4"),
    ])
    .await;

    // One PUT, bound to the size and the checksum.
    let bytes = content(200_000, 11);
    let plan = begin(
        &daemon,
        json!({"fileName": "s3.bin", "size": bytes.len(), "sha256": hex_sha256(&bytes), "contentType": "application/x-test"}),
    )
    .await;
    let (key, upload) = (plan["key"].as_str().unwrap().to_owned(), &plan["upload"]);
    assert!(upload["url"].as_str().unwrap().starts_with(&s3.endpoint));
    assert_eq!(complete(&daemon, &key, Value::Null).await.0, 409);
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"more");
    assert_eq!(
        s3_code(put(upload, longer, &[]).await).await,
        (403, "SignatureDoesNotMatch".into())
    );
    let mut other = bytes.clone();
    other[100] ^= 0xff;
    assert_eq!(
        s3_code(put(upload, other, &[]).await).await,
        (400, "BadDigest".into())
    );
    assert_eq!(records(&daemon, &key).await, ("0".into(), 404));
    // s3s-fs refused that body but kept it in place (AWS keeps nothing): the completion
    // reads it back, finds another SHA-256, deletes it and writes no record.
    assert!(root.path().join("depot").join(&key).exists());
    let (status, body) = complete(&daemon, &key, Value::Null).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("upload-mismatch")),
        "{body}"
    );
    assert!(
        body["message"].as_str().unwrap().contains(&format!(
            "the upload declared SHA-256 {}",
            hex_sha256(&bytes)
        )),
        "{body}"
    );
    assert!(!root.path().join("depot").join(&key).exists());
    assert_eq!(records(&daemon, &key).await, ("0".into(), 404));
    let response = put(upload, bytes.clone(), &[]).await;
    assert_eq!(response.status(), 200, "{:?}", response.text().await);
    let (status, record) = complete(&daemon, &key, Value::Null).await;
    assert_eq!(status, 201, "{record}");
    assert_eq!(
        (record["size"].as_u64(), record["sha256"].as_str()),
        (Some(bytes.len() as u64), Some(hex_sha256(&bytes).as_str()))
    );
    assert_eq!(download(&daemon, &key).await, bytes);
    assert_eq!(complete(&daemon, &key, Value::Null).await.0, 409);

    // A multipart plan: S3's parts, completed by depot at the endpoint.
    let big = content(11 * MIB, 13);
    let plan = begin(
        &daemon,
        json!({"fileName": "big.bin", "size": big.len(), "sha256": hex_sha256(&big)}),
    )
    .await;
    let big_key = plan["key"].as_str().unwrap().to_owned();
    let etags = send_parts(&plan, &big).await;
    assert_eq!(etags.len(), 3);
    let (status, record) = complete(&daemon, &big_key, json!({"parts": etags})).await;
    assert_eq!(status, 201, "{record}");
    assert_eq!(record["sha256"], hex_sha256(&big));
    assert_eq!(download(&daemon, &big_key).await, big);
    // A part's URL once its upload is completed: the upload is gone at the endpoint (AWS
    // answers 404 NoSuchUpload; s3s-fs 403 AccessDenied).
    assert_eq!(
        resend_last_part(&plan, &big).await,
        (403, "AccessDenied".into())
    );
    assert_eq!(download(&daemon, &big_key).await, big);

    // Uploads never completed: the object of one and the parts of the other are removed
    // at the endpoint when they expire.
    let forgotten = begin(&daemon, json!({"fileName": "f.bin", "size": 10})).await;
    let forgotten_key = forgotten["key"].as_str().unwrap().to_owned();
    assert_eq!(
        put(&forgotten["upload"], vec![1; 10], &[]).await.status(),
        200
    );
    let parted = begin(&daemon, json!({"fileName": "p.bin", "size": 7 * MIB})).await;
    let sent = reqwest::Client::new()
        .put(parted["parts"][0]["url"].as_str().unwrap())
        .body(vec![2u8; 5 * MIB])
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 200);
    assert!(root.path().join("depot").join(&forgotten_key).exists());
    let gone = eventually(Duration::from_secs(20), || async {
        let object_gone = !root.path().join("depot").join(&forgotten_key).exists();
        let status = complete(&daemon, parted["key"].as_str().unwrap(), Value::Null)
            .await
            .0;
        (object_gone && status == 404).then_some(())
    })
    .await;
    assert!(gone.is_some(), "{}", daemon.log());
    // The expired multipart upload was aborted at the endpoint: s3s-fs keeps an upload and
    // its parts as `.upload-<id>.json` and `.upload_id-<id>.part-<n>` files in its root.
    let uploads_left: Vec<String> = std::fs::read_dir(root.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".upload"))
        .collect();
    assert!(uploads_left.is_empty(), "{uploads_left:?}");
    assert_eq!(records(&daemon, &forgotten_key).await, ("2".into(), 404));
}

/// The record `GET /file` gives for `key` (admin), without its signed URL (made anew each
/// time).
async fn record_of(daemon: &Daemon, key: &str) -> Value {
    let mut record: Value = as_admin(daemon, reqwest::Method::GET, &file_path(key))
        .await
        .json()
        .await
        .unwrap();
    record.as_object_mut().unwrap().remove("signedUrl");
    record
}

async fn delete_file(daemon: &Daemon, key: &str) -> u16 {
    as_admin(daemon, reqwest::Method::DELETE, &file_path(key))
        .await
        .status()
        .as_u16()
}

/// The URL of a single PUT signs `If-None-Match: *` beside its length, and the answer lists
/// it among the headers to send.
fn assert_put_is_conditional(upload: &Value) {
    assert_eq!(upload["headers"], json!({"If-None-Match": "*"}), "{upload}");
    let url = upload["url"].as_str().unwrap();
    assert!(
        url.contains("&X-Amz-SignedHeaders=content-length%3Bhost%3Bif-none-match&"),
        "{url}"
    );
}

/// Upload URLs are single-use (issue 30): once its upload is completed, the embedded store
/// refuses the PUT URL whatever the bytes, leaving the object and its record as completed;
/// after `DELETE /file` the URL does not bring the object back, nor after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_store_refuses_an_upload_url_once_its_upload_is_completed_or_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = start(dir.path(), &[]).await;
    let bytes = content(50_000, 21);
    let plan = begin(
        &daemon,
        json!({"fileName": "once.bin", "size": bytes.len()}),
    )
    .await;
    let (key, upload) = (plan["key"].as_str().unwrap().to_owned(), &plan["upload"]);
    assert_eq!(put(upload, bytes.clone(), &[]).await.status(), 200);
    let (status, record) = complete(&daemon, &key, Value::Null).await;
    assert_eq!(status, 201, "{record}");
    let object = dir.path().join("data/objects/depot").join(&key);
    let refused = || async {
        // The same bytes, or others of the declared length.
        for body in [bytes.clone(), content(bytes.len(), 22)] {
            let (status, code, message) = s3_error(put(upload, body, &[]).await).await;
            assert_eq!((status, code.as_str()), (403, "AccessDenied"), "{message}");
            assert!(message.contains("upload URLs are single-use"), "{message}");
        }
    };
    refused().await;
    assert_eq!(std::fs::read(&object).unwrap(), bytes);
    assert_eq!(download(&daemon, &key).await, bytes);
    assert_eq!(record_of(&daemon, &key).await["sha256"], hex_sha256(&bytes));

    // Deleted with its record: the URL brings nothing back.
    assert_eq!(delete_file(&daemon, &key).await, 204);
    refused().await;
    assert!(!object.exists());
    assert_eq!(records(&daemon, &key).await, ("0".into(), 404));

    // Nor once the daemon has restarted, on the same address (the URL names it).
    let addr = daemon.addr.clone();
    daemon.terminate(Duration::from_secs(10)).unwrap();
    let env = [
        ("DEPOT_ADMIN_KEYS", ADMIN_KEY),
        ("DEPOT_PRODUCER_ENABLED", "false"),
    ];
    let daemon = Daemon::start_on(dir.path(), &addr, &[], &env).await;
    refused().await;
    assert!(files_under(&dir.path().join("data/objects/depot")).is_empty());
    assert_eq!(records(&daemon, &key).await, ("0".into(), 404));
    assert_put_is_conditional(upload);
}

/// A write signed in its URL lands only for an upload under way: a PUT or a
/// CreateMultipartUpload presigned with the store's own credentials for a key no upload was
/// begun for, and a part's URL once its upload is completed, are refused and write nothing.
/// (The same credentials in the `Authorization` header, an S3 client's, still write: see
/// `botocore_runs_s3_multipart_calls_against_the_embedded_store`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presigned_writes_to_the_embedded_store_need_an_upload_under_way() {
    use depot::secret::Secret;
    use depot::signing::{Addressing, Credentials, Signer, SigningTarget};

    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path(), &SMALL_PARTS).await;
    let credentials: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("data/credentials.json")).unwrap(),
    )
    .unwrap();
    let signer = Signer::new(
        SigningTarget {
            endpoint: daemon.url("/objects"),
            addressing: Addressing::Path,
            region: "us-east-1".into(),
        },
        Credentials {
            access_key_id: credentials["access_key_id"].as_str().unwrap().into(),
            secret_access_key: Secret::new(credentials["secret_access_key"].as_str().unwrap()),
            session_token: None,
        },
    )
    .unwrap();
    let now = chrono::Utc::now();
    let client = reqwest::Client::new();
    let url = signer
        .presign_with_headers(
            "PUT",
            "depot",
            "never-begun.bin",
            300,
            now,
            &[],
            &[("content-length", "5")],
        )
        .unwrap();
    let sent = client.put(&url).body("hello").send().await.unwrap();
    assert_eq!(s3_code(sent).await, (403, "AccessDenied".into()));
    // A URL presigned for GET is no PUT.
    let get = signer
        .presign_get("depot", "never-begun.bin", 300, now)
        .unwrap();
    let sent = client.put(&get).body("hello").send().await.unwrap();
    assert_eq!(s3_code(sent).await, (403, "SignatureDoesNotMatch".into()));
    let create = signer
        .presign_with_headers(
            "POST",
            "depot",
            "never-begun.bin",
            300,
            now,
            &[("uploads", "")],
            &[],
        )
        .unwrap();
    let sent = client.post(&create).send().await.unwrap();
    assert_eq!(s3_code(sent).await, (403, "AccessDenied".into()));
    let objects = dir.path().join("data/objects");
    assert!(files_under(&objects.join("depot")).is_empty());
    assert!(files_under(&objects.join(".multipart")).is_empty());

    // A multipart plan: its parts' URLs write until it is completed, then never again.
    let bytes = content(7 * MIB, 23);
    let plan = begin(
        &daemon,
        json!({"fileName": "parts.bin", "size": bytes.len()}),
    )
    .await;
    let key = plan["key"].as_str().unwrap().to_owned();
    let etags = send_parts(&plan, &bytes).await;
    let (status, record) = complete(&daemon, &key, json!({"parts": etags})).await;
    assert_eq!(status, 201, "{record}");
    assert_eq!(
        resend_last_part(&plan, &bytes).await,
        (403, "AccessDenied".into())
    );
    assert_eq!(download(&daemon, &key).await, bytes);
    assert!(files_under(&objects.join(".multipart")).is_empty());
}

/// At an S3 endpoint (s3s-fs, which honours `If-None-Match` as AWS, MinIO and R2 do) the PUT
/// URL carries `If-None-Match: *` in its signature: a PUT without it is refused by the
/// signature, and a replay once the upload is completed by the store itself (412). After
/// `DELETE /file` nothing is at the key, so a replay within the URL's life lands; the expiry
/// sweep deletes it once the URL has expired. An object written again behind depot's back
/// (a store that ignored the header) is reported with its key and left in place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_an_s3_endpoint_a_replayed_put_is_refused_by_if_none_match_and_swept_after_delete() {
    let AtS3sFs {
        root, s3, daemon, ..
    } = start_at_s3s_fs(&[("DEPOT_FILES_UPLOAD_TTL_SECS", "8")]).await;
    let bytes = content(40_000, 31);
    let plan = begin(
        &daemon,
        json!({"fileName": "once.bin", "size": bytes.len()}),
    )
    .await;
    let (key, upload) = (plan["key"].as_str().unwrap().to_owned(), &plan["upload"]);
    assert_put_is_conditional(upload);
    let bare = reqwest::Client::new()
        .put(upload["url"].as_str().unwrap())
        .body(bytes.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(s3_code(bare).await, (403, "SignatureDoesNotMatch".into()));
    assert_eq!(put(upload, bytes.clone(), &[]).await.status(), 200);
    let (status, record) = complete(&daemon, &key, Value::Null).await;
    assert_eq!(status, 201, "{record}");
    let object = root.path().join("depot").join(&key);
    assert_eq!(
        s3_code(put(upload, content(bytes.len(), 32), &[]).await).await,
        (412, "PreconditionFailed".into())
    );
    assert_eq!(std::fs::read(&object).unwrap(), bytes);
    assert_eq!(record_of(&daemon, &key).await, record);

    assert_eq!(delete_file(&daemon, &key).await, 204);
    assert!(!object.exists());
    assert_eq!(put(upload, bytes.clone(), &[]).await.status(), 200);
    assert!(
        object.exists(),
        "s3s-fs took the replay: nothing was at the key"
    );
    assert_eq!(records(&daemon, &key).await, ("0".into(), 404));

    // Another upload, completed, then its object written again with the endpoint's own
    // credentials (as a store that ignored If-None-Match would take a replay).
    let kept = content(30_000, 33);
    let plan = begin(
        &daemon,
        json!({"fileName": "kept.bin", "size": kept.len(), "sha256": hex_sha256(&kept)}),
    )
    .await;
    let kept_key = plan["key"].as_str().unwrap().to_owned();
    assert_eq!(put(&plan["upload"], kept.clone(), &[]).await.status(), 200);
    let (status, kept_record) = complete(&daemon, &kept_key, Value::Null).await;
    assert_eq!(status, 201, "{kept_record}");
    let script = r#"
import os, botocore.session
from botocore.config import Config
s3 = botocore.session.get_session().create_client(
    "s3", endpoint_url=os.environ["ENDPOINT"], region_name="us-east-1",
    aws_access_key_id=os.environ["ACCESS_KEY"], aws_secret_access_key=os.environ["SECRET_KEY"],
    config=Config(s3={"addressing_style": "path"}, signature_version="s3v4"))
s3.put_object(Bucket="depot", Key=os.environ["KEY"], Body=b"written again behind depot's back")
print("ok")
"#;
    let env = [
        ("ENDPOINT", s3.endpoint.as_str()),
        ("ACCESS_KEY", S3S_ACCESS_KEY),
        ("SECRET_KEY", S3S_SECRET_KEY),
        ("KEY", kept_key.as_str()),
    ];
    botocore(script, &env, &daemon);

    // Once the URLs have expired, the sweep deletes the object without a record and reports
    // the one written again.
    let orphan_line = "deleted an object that came back without a record";
    let changed_line = "the object of a record was written again after its upload completed";
    let swept = eventually(Duration::from_secs(40), || async {
        let log = daemon.log();
        (!object.exists() && log.contains(orphan_line) && log.contains(changed_line)).then_some(log)
    })
    .await;
    let log = swept.unwrap_or_else(|| panic!("{}", daemon.log()));
    let line = |text: &str| log.lines().filter(|l| l.contains(text)).collect::<Vec<_>>();
    assert_eq!(line(orphan_line).len(), 1, "{log}");
    assert!(line(orphan_line)[0].contains(&key), "{log}");
    assert_eq!(line(changed_line).len(), 1, "{log}");
    assert!(line(changed_line)[0].contains(&kept_key), "{log}");
    assert_eq!(
        std::fs::read(root.path().join("depot").join(&kept_key)).unwrap(),
        b"written again behind depot's back"
    );
    assert_eq!(record_of(&daemon, &kept_key).await, kept_record);
    assert_eq!(kept_record["sha256"], hex_sha256(&kept));
}
