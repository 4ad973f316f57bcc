//! File records on PostgreSQL end to end through the real binary and a real server
//! (tests/support/pg.rs): the same import answers byte for byte as on SQLite, nodes on
//! one database see each other's writes, and a server that goes away answers 503 and
//! comes back by itself.
#![cfg(test)]

#[path = "support/pg.rs"]
mod pg;
mod support;

use std::path::Path;
use std::time::Duration;

use support::{Daemon, eventually};

const READER_KEY: &str = "reader-key-1";
const ADMIN_KEY: &str = "admin-key-1";

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// Records whose names exercise case folding, wildcards and ties in `createdAt`.
fn records_jsonl() -> String {
    let names = [
        "Holiday Photo.png",
        "holiday-plan.pdf",
        "HOLIDAY.jpg",
        "100% done.txt",
        "a_b.txt",
        "axb.txt",
        "ÄBC-report.txt",
        "äbc.txt",
        "ОТЧЁТ за год.pdf",
        "notes.md",
        "say \"hi\".txt",
        "tab\\slash.txt",
    ];
    let mut out = String::new();
    for i in 0..60usize {
        let name = format!("{}-{}", i % 7, names[i % names.len()]);
        let permission = if i % 3 == 0 { "private" } else { "public" };
        // Several records share a timestamp, so the id decides their order.
        let created = format!("2026-11-{:02}T09:05:03.{:03}Z", 1 + i % 5, (i / 4) * 7);
        out.push_str(
            &serde_json::json!({
                "fileName": name,
                "description": format!("record {i}"),
                "bucket": "depot-files",
                "status": i % 2,
                "fileType": "txt",
                "permission": permission,
                "key": format!("00000000-0000-4000-8000-{i:012}-original"),
                "createdAt": created,
            })
            .to_string(),
        );
        out.push('\n');
    }
    out
}

fn import(dir: &Path, env: &[(&str, &str)]) {
    std::fs::write(dir.join("records.jsonl"), records_jsonl()).unwrap();
    let output = support::run_ok(
        dir,
        &["files", "import", "records.jsonl"],
        env.iter().copied(),
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "imported 60 records from records.jsonl\n"
    );
}

async fn get(daemon: &Daemon, path: &str, key: Option<&str>) -> (u16, String) {
    let mut request = reqwest::Client::new().get(daemon.url(path));
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_and_postgres_nodes_answer_list_and_search_identically() {
    let server = pg::Postgres::start();
    let url = server.url(&server.create_database());
    let keys = ("DEPOT_API_KEYS", READER_KEY);
    let lite_dir = temp();
    let pg_dir = temp();
    import(lite_dir.path(), &[]);
    import(pg_dir.path(), &[("DEPOT_DATABASE_URL", &url)]);
    let lite = Daemon::start(lite_dir.path(), &[], &[keys]).await;
    let post = Daemon::start(pg_dir.path(), &[], &[keys, ("DEPOT_DATABASE_URL", &url)]).await;
    let queries = [
        "/files",
        "/files?page=2&limit=7",
        "/files?page=9&limit=7",
        "/files?page=1000",
        "/files?limit=500",
        "/files?permission=public",
        "/files?permission=private&limit=4&page=2",
        "/files?fileName=holiday",
        "/files?fileName=HOLIDAY&permission=private",
        "/files?fileName=%25",
        "/files?fileName=_",
        "/files?fileName=a_b",
        "/files?fileName=0%25%20d",
        "/files?fileName=%C3%A4bc",
        "/files?fileName=%C3%84B",
        "/files?fileName=%D0%BE%D1%82%D1%87%D1%91%D1%82",
        "/files?fileName=%22hi%22",
        "/files?fileName=%5C",
        "/files?fileName=x&limit=3&page=2",
        "/files?fileName=nothing-like-this",
        "/files?fileName=.txt&page=3&limit=5",
        "/files?page=0",
        "/files?permission=secret",
    ];
    for query in queries {
        for key in [None, Some(READER_KEY)] {
            let a = get(&lite, query, key).await;
            let b = get(&post, query, key).await;
            assert_eq!(a, b, "{query} with key {key:?}");
        }
    }
    // The matrix is not vacuous: searches find records and totals are strings.
    let (status, body) = get(&post, "/files?fileName=holiday", Some(READER_KEY)).await;
    assert_eq!(status, 200);
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["meta"]["total"], "15");
    let (_, health) = get(&post, "/health", None).await;
    let health: serde_json::Value = serde_json::from_str(&health).unwrap();
    assert_eq!(
        health["stores"]["records"],
        serde_json::json!({"kind": "postgres", "reachable": true, "lastError": null})
    );
}

async fn total(daemon: &Daemon) -> String {
    let (status, body) = get(daemon, "/files", Some(READER_KEY)).await;
    assert_eq!(status, 200, "{body}");
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    body["meta"]["total"].as_str().unwrap().to_owned()
}

async fn wait_total(daemon: &Daemon, expected: &str) {
    let seen = eventually(Duration::from_secs(10), || async {
        (total(daemon).await == expected).then_some(())
    })
    .await;
    assert!(
        seen.is_some(),
        "{} never showed total {expected}",
        daemon.base
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_nodes_see_each_others_writes_and_the_cli_s() {
    let server = pg::Postgres::start();
    let url = server.url(&server.create_database());
    let env = [
        ("DEPOT_DATABASE_URL", url.as_str()),
        ("DEPOT_API_KEYS", READER_KEY),
        ("DEPOT_ADMIN_KEYS", ADMIN_KEY),
    ];
    let (dir_a, dir_b) = (temp(), temp());
    let a = Daemon::start(dir_a.path(), &[], &env).await;
    let b = Daemon::start(dir_b.path(), &[], &env).await;
    // Both have cached the empty catalogue.
    assert_eq!(total(&a).await, "0");
    assert_eq!(total(&b).await, "0");

    // An upload through node A.
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"hello".to_vec()).file_name("hello.txt"),
        )
        .text("permission", "public");
    let response = reqwest::Client::new()
        .post(a.url("/files"))
        .bearer_auth(ADMIN_KEY)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let record: serde_json::Value = response.json().await.unwrap();
    wait_total(&b, "1").await;
    let key = record["key"].as_str().unwrap();
    let (status, body) = get(&b, &format!("/file?key={key}"), Some(READER_KEY)).await;
    assert_eq!(status, 200, "{body}");

    // An import by the CLI against the same database reaches both.
    import(dir_a.path(), &env);
    wait_total(&a, "61").await;
    wait_total(&b, "61").await;

    // A delete through A disappears from B.
    let response = reqwest::Client::new()
        .delete(a.url(&format!("/file?key={key}")))
        .bearer_auth(ADMIN_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    wait_total(&b, "60").await;

    // A node started later migrates nothing and sees the same.
    let c = Daemon::start(temp().path(), &[], &env).await;
    assert_eq!(total(&c).await, "60");

    // `files seed` loads PostgreSQL through COPY, in batches (here three).
    let output = support::run_ok(dir_a.path(), &["files", "seed", "100001"], env);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with("seeded 100001 records in "), "{stdout}");
    wait_total(&c, "100061").await;
    let mut by_permission = 0;
    for permission in ["public", "private"] {
        let (status, body) = get(
            &c,
            &format!("/files?permission={permission}"),
            Some(READER_KEY),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let body: serde_json::Value = serde_json::from_str(&body).unwrap();
        by_permission += body["meta"]["total"]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .unwrap();
        assert_eq!(body["data"].as_array().unwrap().len(), 25);
    }
    assert_eq!(by_permission, 100_061);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_going_away_answers_503_and_recovers_by_itself() {
    let mut server = pg::Postgres::start();
    let url = server.url(&server.create_database());
    let env = [("DEPOT_DATABASE_URL", url.as_str())];
    let dir = temp();
    import(dir.path(), &env);
    let node = Daemon::start(dir.path(), &[], &env).await;
    assert_eq!(get(&node, "/files?limit=1", None).await.0, 200);

    server.stop();
    let down = eventually(Duration::from_secs(10), || async {
        let (status, body) = get(&node, "/files?limit=2", None).await;
        (status != 200).then_some((status, body))
    })
    .await
    .expect("requests fail while PostgreSQL is down");
    assert_eq!(down.0, 503, "{}", down.1);
    let body: serde_json::Value = serde_json::from_str(&down.1).unwrap();
    assert_eq!(body["statusCode"], 503);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("the files database (PostgreSQL) is unreachable"),
        "{body}"
    );
    // /health learns it from the change watch, within one poll.
    let health = eventually(Duration::from_secs(5), || async {
        let (_, health) = get(&node, "/health", None).await;
        let health: serde_json::Value = serde_json::from_str(&health).unwrap();
        (health["stores"]["records"]["reachable"] == false).then_some(health)
    })
    .await
    .expect("/health shows the database unreachable");
    assert_eq!(health["stores"]["records"]["kind"], "postgres");
    assert!(
        health["stores"]["records"]["lastError"]
            .as_str()
            .unwrap()
            .starts_with("the files database (PostgreSQL) is unreachable"),
        "{health}"
    );

    server.start_again();
    let back = eventually(Duration::from_secs(20), || async {
        let (status, body) = get(&node, "/files?limit=2", None).await;
        (status == 200).then_some(body)
    })
    .await
    .expect("requests succeed again once PostgreSQL is back");
    let back: serde_json::Value = serde_json::from_str(&back).unwrap();
    // No API keys configured: reads are open, private records included.
    assert_eq!(back["meta"]["total"], "60");
    let healthy = eventually(Duration::from_secs(5), || async {
        let (_, health) = get(&node, "/health", None).await;
        let health: serde_json::Value = serde_json::from_str(&health).unwrap();
        (health["stores"]["records"]["reachable"] == true).then_some(())
    })
    .await;
    assert!(healthy.is_some());
}
