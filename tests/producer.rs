//! The producer inside `depot serve`, end to end with a local sheet: new content is served
//! within a few seconds, a failing source keeps the last good document and shows in
//! `/health`, and the next good cycle recovers.
#![cfg(test)]

mod support;

use std::time::Duration;
use support::{Daemon, eventually, run};

const BASIC: &str = include_str!("fixtures/sheets/basic.csv");

async fn translations(daemon: &Daemon, query: &str) -> (u16, String, Option<String>) {
    let response = daemon.get(&format!("/translations{query}")).await;
    let status = response.status().as_u16();
    let etag = response
        .headers()
        .get("etag")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, response.text().await.unwrap(), etag)
}

async fn health_translations(daemon: &Daemon) -> serde_json::Value {
    daemon.get_json("/health").await.1["translations"].clone()
}

#[tokio::test]
async fn the_producer_follows_the_sheet_and_keeps_the_last_good_document_on_failure() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = dir.path().join("sheet.csv");
    std::fs::write(&sheet, BASIC).unwrap();
    let args = [
        "--set",
        "producer.source=sheet.csv",
        "--set",
        "producer.interval_secs=1",
    ];
    let daemon = Daemon::start(dir.path(), &args, &[]).await;
    let filter = "?filters%5B%5D=pl.CORE";
    let first = eventually(Duration::from_secs(5), || async {
        let (status, body, etag) = translations(&daemon, filter).await;
        (status == 200).then_some((body, etag))
    })
    .await
    .expect("the first sync is served");
    assert_eq!(
        first.0,
        r#"{"pl":{"CORE":{"LABELS":{"YES":"Tak","NO":"Nie"}}}}"#
    );

    // The sheet changes: the new content is served, with a new ETag.
    std::fs::write(&sheet, BASIC.replace("Tak", "Tak!")).unwrap();
    let second = eventually(Duration::from_secs(5), || async {
        let (_, body, etag) = translations(&daemon, filter).await;
        body.contains("Tak!").then_some(etag)
    })
    .await
    .expect("the changed sheet is served within 5 s");
    assert_ne!(second, first.1);

    // The source fails: the last good document stays, /health shows the failure.
    std::fs::remove_file(&sheet).unwrap();
    let failing = eventually(Duration::from_secs(5), || async {
        let t = health_translations(&daemon).await;
        (t["consecutiveFailures"].as_u64() >= Some(1)).then_some(t)
    })
    .await
    .expect("the failure shows in /health");
    assert!(
        failing["lastError"].as_str().unwrap().contains("sheet.csv"),
        "{failing}"
    );
    assert!(failing["lastSuccessAt"].is_string());
    let (status, body, _) = translations(&daemon, filter).await;
    assert_eq!((status, body.contains("Tak!")), (200, true));

    // A sheet without any text never replaces the good document either.
    std::fs::write(&sheet, "###,>>>,en,pl\n,ONLY_A_SECTION\n").unwrap();
    let refused = eventually(Duration::from_secs(5), || async {
        let t = health_translations(&daemon).await;
        t["lastError"]
            .as_str()
            .is_some_and(|e| e.contains("no row with a key and a text"))
            .then_some(t)
    })
    .await
    .expect("the empty sheet is refused");
    assert!(refused["consecutiveFailures"].as_u64() >= Some(1));
    let (_, body, _) = translations(&daemon, filter).await;
    assert!(body.contains("Tak!"), "{body}");

    // Recovery: the next good cycle succeeds and clears the error.
    std::fs::write(&sheet, BASIC).unwrap();
    let recovered = eventually(Duration::from_secs(5), || async {
        let t = health_translations(&daemon).await;
        (t["lastError"].is_null() && t["consecutiveFailures"] == 0).then_some(())
    })
    .await;
    assert!(recovered.is_some(), "{}", daemon.log());
    let (_, body, _) = translations(&daemon, filter).await;
    assert_eq!(
        body,
        r#"{"pl":{"CORE":{"LABELS":{"YES":"Tak","NO":"Nie"}}}}"#
    );
}

#[test]
fn produce_once_stores_a_local_sheet_and_reports_unchanged_content() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sheet.csv"), BASIC).unwrap();
    let first = run(dir.path(), &["produce", "--once", "--source", "sheet.csv"]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(stdout.starts_with("stored version "), "{stdout}");
    assert!(stdout.contains("(3 keys, 2 locales)"), "{stdout}");
    let again = run(dir.path(), &["produce", "--once", "--source", "sheet.csv"]);
    assert!(String::from_utf8_lossy(&again.stdout).starts_with("unchanged: version "));
    let missing = run(dir.path(), &["produce", "--once", "--source", "nope.csv"]);
    assert_eq!(missing.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("nope.csv"), "{stderr}");
}

#[tokio::test]
async fn produce_beside_a_running_daemon_says_the_store_is_in_use_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sheet.csv"), BASIC).unwrap();
    let _daemon = Daemon::start(dir.path(), &["--set", "producer.enabled=false"], &[]).await;

    let out = run(dir.path(), &["produce", "--once", "--source", "sheet.csv"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let store = dir.path().join("data/translations.sled");
    assert_eq!(
        stderr,
        format!(
            "depot: error: cannot open the translations store at {}: it is in use by another \
             depot process (a running `depot serve`?); stop that process, or give this command \
             another store with --data-dir\n",
            store.display()
        )
    );

    // Another data folder is another store: that works beside the daemon.
    let out = run(
        dir.path(),
        &[
            "produce",
            "--once",
            "--source",
            "sheet.csv",
            "--data-dir",
            "other",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    assert!(dir.path().join("other/translations.sled").is_dir());
}

/// On an embedded store the producer's state is kept with the documents: a daemon whose
/// producer is off, started after `depot produce --once` (cron), shows that sync.
#[tokio::test]
async fn a_daemon_without_a_producer_shows_the_last_sync_kept_in_the_store() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sheet.csv"), BASIC).unwrap();
    let off = [("DEPOT_PRODUCER_ENABLED", "false")];
    let out = support::run_ok(
        dir.path(),
        &["produce", "--once", "--source", "sheet.csv"],
        off,
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("stored version "),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let daemon = Daemon::start(dir.path(), &[], &off).await;
    let part = eventually(Duration::from_secs(5), || async {
        let part = health_translations(&daemon).await;
        part["lastSuccessAt"].is_string().then_some(part)
    })
    .await
    .unwrap_or_else(|| panic!("the kept sync is not shown; log:\n{}", daemon.log()));
    assert_eq!(part["lastSyncAt"], part["lastSuccessAt"], "{part}");
    assert_eq!(part["nextSyncAt"], serde_json::Value::Null, "{part}");
    assert!(
        part["syncedBy"]
            .as_str()
            .is_some_and(|by| by.starts_with("depot produce on ")),
        "{part}"
    );
    assert_eq!(part["loaded"], true);
}

/// `workbook` (an .xlsx or .ods fixture) with the text `Something` replaced by `text`, as a
/// spreadsheet program would save the edit.
fn edited_workbook(workbook: &[u8], text: &str) -> Vec<u8> {
    use std::io::{Cursor, Read, Write};
    let mut archive = zip::ZipArchive::new(Cursor::new(workbook)).unwrap();
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let mut edited = false;
    for index in 0..archive.len() {
        let mut part = archive.by_index(index).unwrap();
        let name = part.name().unwrap().into_owned();
        let mut data = Vec::new();
        part.read_to_end(&mut data).unwrap();
        if name == "xl/worksheets/sheet1.xml" || name == "content.xml" {
            let xml = String::from_utf8(data).unwrap();
            edited |= xml.contains(">Something<");
            data = xml
                .replace(">Something<", &format!(">{text}<"))
                .into_bytes();
        }
        writer
            .start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(&data).unwrap();
    }
    assert!(edited, "the fixture holds the text Something");
    writer.finish().unwrap().into_inner()
}

/// Writes `bytes` beside `path` and renames it over `path`, as editors save.
fn save_by_rename(path: &std::path::Path, bytes: &[u8]) {
    let tmp = path.with_extension("saving");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// With the interval at its default (5 minutes), a save of a local .csv, .xlsx or .ods is
/// served at once: the folder is watched. Saves by rename (editors, spreadsheet programs)
/// and in place both count. No timing is asserted; the wait for the new ETag is bounded
/// only so that a missed save fails the test instead of hanging it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_local_sheet_is_served_without_waiting_for_the_interval() {
    let fixture = |name: &str| {
        std::fs::read(
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sheets/").to_owned() + name,
        )
        .unwrap()
    };
    for extension in ["csv", "xlsx", "ods"] {
        let dir = tempfile::tempdir().unwrap();
        let sheet = dir.path().join(format!("sheet.{extension}"));
        let version = |n: u32| -> Vec<u8> {
            let text = format!("Something {n}");
            match extension {
                "csv" => BASIC.replace("Something", &text).into_bytes(),
                _ => edited_workbook(&fixture(&format!("basic.{extension}")), &text),
            }
        };
        std::fs::write(&sheet, version(0)).unwrap();
        let source = format!("producer.source=sheet.{extension}");
        let daemon = Daemon::start(dir.path(), &["--set", &source], &[]).await;
        let filter = "?filters%5B%5D=en.FRONT";
        let mut etag = eventually(Duration::from_secs(10), || async {
            let (status, body, etag) = translations(&daemon, filter).await;
            (status == 200 && body.contains("Something 0")).then_some(etag)
        })
        .await
        .expect("the first sync is served");
        for n in 1..=3 {
            // by rename, and the last one in place
            if n < 3 {
                save_by_rename(&sheet, &version(n));
            } else {
                std::fs::write(&sheet, version(n)).unwrap();
            }
            etag = eventually(Duration::from_secs(10), || async {
                let (_, body, new) = translations(&daemon, filter).await;
                (new != etag && body.contains(&format!("Something {n}"))).then_some(new)
            })
            .await
            .unwrap_or_else(|| {
                panic!(
                    "{extension}: save {n} is not served; log:\n{}",
                    daemon.log()
                )
            });
        }
        assert!(
            health_translations(&daemon).await["nextSyncAt"].is_string(),
            "the interval stays as the fallback"
        );
    }
}
