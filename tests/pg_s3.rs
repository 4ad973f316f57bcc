//! File content on a real S3-compatible server that verifies signatures (`s3s-fs`,
//! installed by scripts/test), records on PostgreSQL: an upload through one node is stored
//! at the endpoint and downloads through the other node's signed URL; a delete removes
//! both halves.
#![cfg(test)]

#[path = "support/pg.rs"]
mod pg;
mod support;

use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use support::{Daemon, eventually};

const ADMIN_KEY: &str = "admin-key-1";
use support::engines::{S3S_ACCESS_KEY as ACCESS_KEY, S3S_SECRET_KEY as SECRET_KEY, S3sFs};

/// `s3s-fs` on a free loopback port over `root` (tests/support/engines.rs); killed on drop.
async fn start_s3(root: &Path) -> S3sFs {
    // This process's reqwest clients need the TLS provider depot uses.
    depot::tls::install_tls_provider();
    S3sFs::start_in(root)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upload_through_one_node_is_in_s3_and_downloads_through_the_other() {
    let server = pg::Postgres::start();
    let url = server.url(&server.create_database());
    let s3_root = tempfile::tempdir().unwrap();
    // s3s-fs keeps a bucket as a folder of its root.
    std::fs::create_dir(s3_root.path().join("depot-files")).unwrap();
    let s3 = start_s3(s3_root.path()).await;
    let env = [
        ("DEPOT_DATABASE_URL", url.as_str()),
        ("DEPOT_ADMIN_KEYS", ADMIN_KEY),
        ("DEPOT_SIGNING_ENDPOINT", s3.endpoint.as_str()),
        ("DEPOT_SIGNING_ACCESS_KEY_ID", ACCESS_KEY),
        ("DEPOT_SIGNING_SECRET_ACCESS_KEY", SECRET_KEY),
    ];
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Daemon::start(dir_a.path(), &[], &env).await;
    let b = Daemon::start(dir_b.path(), &[], &env).await;

    let content: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(content.clone()).file_name("data.bin"),
        )
        .text("bucket", "depot-files")
        .text("permission", "public");
    let response = reqwest::Client::new()
        .post(a.url("/files"))
        .bearer_auth(ADMIN_KEY)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201, "{}", response.text().await.unwrap());
    let record: serde_json::Value = response.json().await.unwrap();
    let key = record["key"].as_str().unwrap().to_owned();
    // The object sits in the S3 server's folder; the spool it was streamed from is gone.
    assert_eq!(
        std::fs::read(s3_root.path().join("depot-files").join(&key)).unwrap(),
        content
    );
    // (In the embedded store's temp folder, which is on by default; else data/.uploads.)
    let spool: Vec<_> = ["data/objects/.tmp", "data/.uploads"]
        .iter()
        .filter_map(|d| std::fs::read_dir(dir_a.path().join(d)).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path()))
        .collect();
    assert!(spool.is_empty(), "{spool:?}");
    // Node B signs a URL that the S3 server accepts.
    let signed = eventually(Duration::from_secs(10), || async {
        let response = reqwest::get(b.url(&format!("/file?key={key}")))
            .await
            .ok()?;
        (response.status() == 200).then_some(())?;
        let body: serde_json::Value = response.json().await.ok()?;
        body["signedUrl"].as_str().map(str::to_owned)
    })
    .await
    .expect("node B sees the record");
    assert!(signed.starts_with(&s3.endpoint), "{signed}");
    let download = reqwest::get(&signed).await.unwrap();
    assert_eq!(download.status(), 200);
    assert_eq!(download.bytes().await.unwrap().to_vec(), content);

    // A delete through B removes both halves.
    let response = reqwest::Client::new()
        .delete(b.url(&format!("/file?key={key}")))
        .bearer_auth(ADMIN_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    assert!(!s3_root.path().join("depot-files").join(&key).exists());
    let gone = reqwest::get(a.url(&format!("/file?key={key}")))
        .await
        .unwrap();
    assert_eq!(gone.status(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_s3_endpoint_answers_503_and_writes_no_record() {
    let dir = tempfile::tempdir().unwrap();
    // A port nothing listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let env = [
        ("DEPOT_ADMIN_KEYS", ADMIN_KEY),
        ("DEPOT_SIGNING_ENDPOINT", endpoint.as_str()),
        ("DEPOT_SIGNING_ACCESS_KEY_ID", ACCESS_KEY),
        ("DEPOT_SIGNING_SECRET_ACCESS_KEY", SECRET_KEY),
    ];
    let node = Daemon::start(dir.path(), &[], &env).await;
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"hello".to_vec()).file_name("a.txt"),
        )
        .text("permission", "public");
    let response = reqwest::Client::new()
        .post(node.url("/files"))
        .bearer_auth(ADMIN_KEY)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    let body: serde_json::Value = response.json().await.unwrap();
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "the S3 object store at {endpoint} (signing.endpoint) is unreachable while storing \
             an object: error sending request"
        )) && message.ends_with("; try again"),
        "{message}"
    );
    // The endpoint is named by its host: the object's URL (bucket, key) stays out.
    assert!(!message.contains("/depot/"), "{message}");
    let (_, health) = node.get_json("/health").await;
    let objects = &health["stores"]["objects"];
    assert_eq!(objects["kind"], "s3");
    assert_eq!(objects["reachable"], false, "{objects}");
    let list: serde_json::Value = reqwest::get(node.url("/files"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["meta"]["total"], "0");
}

/// A kill between an upload's object and its record (or a delete's record and its object)
/// leaves an intent in `data/.pending-s3`; the next start removes the objects that have
/// no record at the endpoint and keeps the rest. (SQLite records: the rule is the same.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_cut_short_by_a_kill_are_finished_at_the_next_start() {
    let s3_root = tempfile::tempdir().unwrap();
    let bucket = s3_root.path().join("depot-files");
    std::fs::create_dir(&bucket).unwrap();
    let s3 = start_s3(s3_root.path()).await;
    let env = [
        ("DEPOT_ADMIN_KEYS", ADMIN_KEY),
        ("DEPOT_SIGNING_ENDPOINT", s3.endpoint.as_str()),
        ("DEPOT_SIGNING_ACCESS_KEY_ID", ACCESS_KEY),
        ("DEPOT_SIGNING_SECRET_ACCESS_KEY", SECRET_KEY),
    ];
    let dir = tempfile::tempdir().unwrap();
    // What the killed process left: three objects at the endpoint and their intents
    // (unlocked: their writer is gone); only "kept" got its record.
    let intents = dir.path().join("data/.pending-s3");
    std::fs::create_dir_all(&intents).unwrap();
    for (i, (op, key)) in [("put", "orphan"), ("put", "kept"), ("delete", "deleted")]
        .iter()
        .enumerate()
    {
        std::fs::write(bucket.join(key), b"content").unwrap();
        std::fs::write(
            intents.join(format!("{i}.json")),
            format!(r#"{{"op":"{op}","bucket":"depot-files","key":"{key}"}}"#),
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("kept.jsonl"),
        r#"{"fileName":"kept.bin","bucket":"depot-files","key":"kept","permission":"public","fileType":"bin"}"#,
    )
    .unwrap();
    support::run_ok(dir.path(), &["files", "import", "kept.jsonl"], env);

    let daemon = Daemon::start(dir.path(), &[], &env).await;
    assert!(
        !bucket.join("orphan").exists(),
        "an object without its record is removed"
    );
    assert!(
        !bucket.join("deleted").exists(),
        "a delete cut short is finished"
    );
    assert!(
        bucket.join("kept").exists(),
        "an object with its record stays"
    );
    let left: Vec<_> = std::fs::read_dir(&intents).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
    let (status, _) = daemon.get_json("/file?key=kept").await;
    assert_eq!(status, 200);
}

/// What the endpoint answers is the endpoint's: a wrong secret makes s3s-fs answer
/// `SignatureDoesNotMatch`, which `POST /files` and `DELETE /file` answer with 502 naming the
/// endpoint by its host and the S3 code (not "internal error"), `depot files add` with one
/// line and exit 1, and `/health` shows from the start (the probe) until a write succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_s3_refusal_is_a_502_naming_the_endpoint_and_its_code_and_shows_in_health() {
    let s3_root = tempfile::tempdir().unwrap();
    std::fs::create_dir(s3_root.path().join("depot")).unwrap();
    let s3 = start_s3(s3_root.path()).await;
    let wrong = [
        ("DEPOT_ADMIN_KEYS", ADMIN_KEY),
        ("DEPOT_SIGNING_ENDPOINT", s3.endpoint.as_str()),
        ("DEPOT_SIGNING_ACCESS_KEY_ID", ACCESS_KEY),
        ("DEPOT_SIGNING_SECRET_ACCESS_KEY", "not-the-secret"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let node = Daemon::start(dir.path(), &[], &wrong).await;
    let expected = |op: &str| {
        format!(
            "the S3 object store at {} (signing.endpoint) refused {op}: HTTP 403 \
             SignatureDoesNotMatch: check signing.access_key_id, signing.secret_access_key \
             and signing.region",
            s3.endpoint
        )
    };

    // At start the probe has found it out.
    let objects = eventually(Duration::from_secs(10), || async {
        let (_, health) = node.get_json("/health").await;
        let objects = health["stores"]["objects"].clone();
        (objects["reachable"] == false).then_some(objects)
    })
    .await
    .unwrap_or_else(|| panic!("/health never showed the refusal; log:\n{}", node.log()));
    assert_eq!(objects["endpoint"], s3.endpoint.as_str());
    assert_eq!(objects["lastError"], expected("checking the endpoint"));

    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(b"hello".to_vec()).file_name("a.txt"),
    );
    let response = reqwest::Client::new()
        .post(node.url("/files"))
        .bearer_auth(ADMIN_KEY)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 502);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["message"], expected("storing an object"));
    assert_eq!(body["error"], "Bad Gateway");

    // A record of an object at the endpoint, deleted: the record goes, the object's
    // delete is refused and said so.
    std::fs::write(
        dir.path().join("one.jsonl"),
        r#"{"fileName":"a.bin","bucket":"depot","key":"obj-1","permission":"public","fileType":"bin"}"#,
    )
    .unwrap();
    support::run_ok(dir.path(), &["files", "import", "one.jsonl"], wrong);
    let response = reqwest::Client::new()
        .delete(node.url("/file?key=obj-1"))
        .bearer_auth(ADMIN_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 502);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["message"], expected("deleting an object"));

    std::fs::write(dir.path().join("b.txt"), "hello").unwrap();
    let out = support::depot(dir.path())
        .args(["files", "add", "b.txt"])
        .envs(wrong)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        format!("depot: error: {}\n", expected("storing an object"))
    );
    assert!(out.stdout.is_empty());

    // With the right secret the probe and the writes go through.
    let right = [
        ("DEPOT_ADMIN_KEYS", ADMIN_KEY),
        ("DEPOT_SIGNING_ENDPOINT", s3.endpoint.as_str()),
        ("DEPOT_SIGNING_ACCESS_KEY_ID", ACCESS_KEY),
        ("DEPOT_SIGNING_SECRET_ACCESS_KEY", SECRET_KEY),
    ];
    let other = tempfile::tempdir().unwrap();
    let good = Daemon::start(other.path(), &[], &right).await;
    let objects = eventually(Duration::from_secs(10), || async {
        let (_, health) = good.get_json("/health").await;
        let objects = health["stores"]["objects"].clone();
        (objects["reachable"] == true).then_some(objects)
    })
    .await
    .unwrap_or_else(|| panic!("the endpoint never showed reachable; log:\n{}", good.log()));
    assert_eq!(objects["lastError"], serde_json::Value::Null, "{objects}");
}

/// A direct upload begun on one node completes on another (SPEC §13): the upload is kept in
/// PostgreSQL beside the records, the bytes go straight to the S3 endpoint, and the record
/// exists only once the completing node has checked the object.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_direct_upload_begun_on_one_node_completes_on_the_other() {
    let server = pg::Postgres::start();
    let url = server.url(&server.create_database());
    let s3_root = tempfile::tempdir().unwrap();
    std::fs::create_dir(s3_root.path().join("depot")).unwrap();
    let s3 = start_s3(s3_root.path()).await;
    let env = [
        ("DEPOT_DATABASE_URL", url.as_str()),
        ("DEPOT_ADMIN_KEYS", ADMIN_KEY),
        ("DEPOT_SIGNING_ENDPOINT", s3.endpoint.as_str()),
        ("DEPOT_SIGNING_ACCESS_KEY_ID", ACCESS_KEY),
        ("DEPOT_SIGNING_SECRET_ACCESS_KEY", SECRET_KEY),
    ];
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Daemon::start(dir_a.path(), &[], &env).await;
    let b = Daemon::start(dir_b.path(), &[], &env).await;
    let content = b"bytes that never pass through a node".to_vec();
    let plan: serde_json::Value = reqwest::Client::new()
        .post(a.url("/files/uploads"))
        .bearer_auth(ADMIN_KEY)
        .json(&serde_json::json!({"fileName": "direct.txt", "size": content.len()}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let key = plan["key"].as_str().unwrap().to_owned();
    let put = || {
        let mut request = reqwest::Client::new()
            .put(plan["upload"]["url"].as_str().unwrap())
            .body(content.clone());
        for (name, value) in plan["upload"]["headers"].as_object().unwrap() {
            request = request.header(name, value.as_str().unwrap());
        }
        request.send()
    };
    assert_eq!(
        plan["upload"]["headers"],
        serde_json::json!({"If-None-Match": "*"})
    );
    assert_eq!(put().await.unwrap().status(), 200);
    let completed = reqwest::Client::new()
        .post(b.url(&format!("/files/uploads/{key}/complete")))
        .bearer_auth(ADMIN_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(completed.status(), 201);
    let record: serde_json::Value = completed.json().await.unwrap();
    assert_eq!(record["size"], content.len());
    // Node A, which began it, sees the record and signs its URL; a completion there finds
    // the upload already completed.
    let signed = eventually(Duration::from_secs(10), || async {
        let response = reqwest::get(a.url(&format!("/file?key={key}")))
            .await
            .ok()?;
        (response.status() == 200).then_some(())?;
        let body: serde_json::Value = response.json().await.ok()?;
        body["signedUrl"].as_str().map(str::to_owned)
    })
    .await
    .expect("node A sees the record");
    assert_eq!(
        reqwest::get(&signed)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap()
            .to_vec(),
        content
    );
    let again = reqwest::Client::new()
        .post(a.url(&format!("/files/uploads/{key}/complete")))
        .bearer_auth(ADMIN_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 409);
    // The URL is single-use: the endpoint refuses it once an object is at the key.
    assert_eq!(put().await.unwrap().status(), 412);
}
