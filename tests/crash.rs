//! `kill -9` at the worst moments. Of `depot produce` while it stores: the next open of
//! the store must succeed and hold one whole version (its content hash matches), never a
//! mix or a broken store. Of `depot serve` during uploads and deletes: after the next
//! start every record has its object, no object is left without its record, and no temp
//! file or intent remains.
#![cfg(test)]

mod support;

use depot::objects::ObjectStore;
use depot::translations::store::{SledStore, TranslationStore, version_of};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A sheet big enough that storing it takes a noticeable time.
fn write_sheet(path: &Path, text_suffix: &str) {
    let mut csv = String::from("###,>>>,>>>,en,pl,de\n");
    for section in 0..40 {
        csv.push_str(&format!(",S{section}\n"));
        for key in 0..500 {
            csv.push_str(&format!(
                ",,K{key},English {section}-{key} {text_suffix},Polski {section}-{key},Deutsch {section}-{key}\n"
            ));
        }
    }
    std::fs::write(path, csv).unwrap();
}

fn produce(dir: &Path, sheet: &str) -> std::process::Child {
    support::depot(dir)
        .args(["produce", "--once", "--source", sheet])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Opens the store as the next start would and checks it holds one whole version.
fn check_store(dir: &Path) -> Option<String> {
    let store = SledStore::open(&dir.join("data/translations.sled"))
        .unwrap_or_else(|e| panic!("the store must open after a kill: {e}"));
    let current = store.load().unwrap()?;
    assert_eq!(
        version_of(&current.document).unwrap(),
        current.version,
        "the stored document must match its version (no mix)"
    );
    Some(current.version.clone())
}

#[test]
fn kill_9_while_storing_never_leaves_a_broken_or_mixed_store() {
    let dir = tempfile::tempdir().unwrap();
    write_sheet(&dir.path().join("a.csv"), "alpha");
    write_sheet(&dir.path().join("b.csv"), "beta");

    // One full run, to know how long storing takes here.
    let started = Instant::now();
    let status = produce(dir.path(), "a.csv").wait().unwrap();
    assert!(status.success());
    let full = started.elapsed();
    let first = check_store(dir.path()).expect("a stored version");

    let mut versions = vec![first];
    for round in 0..12u32 {
        let sheet = if round % 2 == 0 { "b.csv" } else { "a.csv" };
        let mut child = produce(dir.path(), sheet);
        // Spread the kills over the whole run: early (reading), middle (converting) and
        // late (writing and flushing).
        std::thread::sleep(full.mul_f64(f64::from(round) / 12.0));
        let _ = child.kill();
        let _ = child.wait();
        if let Some(version) = check_store(dir.path())
            && !versions.contains(&version)
        {
            versions.push(version);
        }
    }
    // Only the two sheets' versions can ever be current.
    assert!(versions.len() <= 2, "{versions:?}");
    // And a clean run afterwards still works.
    assert!(produce(dir.path(), "b.csv").wait().unwrap().success());
    assert!(check_store(dir.path()).is_some());
}

const ADMIN_KEY: &str = "admin-key-1";

/// Uploads (of 64 KiB to 1 MiB, so that writing and syncing take a while) and deletes of
/// earlier uploads, from `workers` clients at once, until the daemon goes away.
fn start_traffic(
    base: &str,
    workers: usize,
    done: &Arc<AtomicUsize>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let uploaded: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    (0..workers)
        .map(|worker| {
            let (base, done, uploaded) = (base.to_owned(), done.clone(), uploaded.clone());
            tokio::spawn(async move {
                let client = reqwest::Client::new();
                let auth = format!("Bearer {ADMIN_KEY}");
                for n in 0usize.. {
                    let to_delete = (n % 3 == 2)
                        .then(|| uploaded.lock().unwrap().pop())
                        .flatten();
                    let request = match &to_delete {
                        Some(key) => client
                            .delete(format!("{base}/file?{}", support::query(&[("key", key)]))),
                        None => {
                            let size = 64 * 1024 * (1 + (worker * 7 + n) % 16);
                            let part = reqwest::multipart::Part::bytes(vec![n as u8; size])
                                .file_name(format!("w{worker}-{n}.bin"));
                            client
                                .post(format!("{base}/files"))
                                .multipart(reqwest::multipart::Form::new().part("file", part))
                        }
                    };
                    let Ok(response) = request.header("Authorization", &auth).send().await else {
                        return;
                    };
                    let status = response.status().as_u16();
                    if to_delete.is_none() && status == 201 {
                        let Ok(record) = response.json::<serde_json::Value>().await else {
                            return;
                        };
                        if let Some(key) = record["key"].as_str() {
                            uploaded.lock().unwrap().push(key.to_owned());
                        }
                    }
                    done.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect()
}

/// Adds the counts of the start's recovery log line (`temp_files=`, `interrupted_writes=`,
/// `orphans_removed=`) to `sums`.
fn add_recovery_counts(log: &str, sums: &mut [usize; 3]) {
    let Some(line) = log
        .lines()
        .find(|l| l.contains("object store checked for writes cut short"))
    else {
        return;
    };
    for (sum, name) in
        sums.iter_mut()
            .zip(["temp_files=", "interrupted_writes=", "orphans_removed="])
    {
        *sum += line
            .split_once(name)
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0);
    }
}

/// Every file below `dir`.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_uploads_and_deletes_leaves_records_and_objects_paired() {
    let dir = tempfile::tempdir().unwrap();
    let env = [("DEPOT_ADMIN_KEYS", ADMIN_KEY)];
    const ROUNDS: usize = 15;
    let mut total_ops = 0;
    let mut found = [0usize; 3];
    for round in 0..ROUNDS {
        let mut daemon = support::Daemon::start(dir.path(), &[], &env).await;
        add_recovery_counts(&daemon.log(), &mut found);
        let done = Arc::new(AtomicUsize::new(0));
        let workers = start_traffic(&daemon.base, 6, &done);
        // Kill once some writes went through, with the others in flight.
        let wanted = 1 + round % 4;
        support::eventually(Duration::from_secs(10), || {
            let done = done.clone();
            async move { (done.load(Ordering::SeqCst) >= wanted).then_some(()) }
        })
        .await
        .expect("writes go through");
        daemon.child.kill().unwrap();
        daemon.child.wait().unwrap();
        total_ops += done.load(Ordering::SeqCst);
        for worker in workers {
            worker.abort();
        }
    }
    assert!(total_ops >= ROUNDS, "{total_ops}");

    // The next start resolves what the kills cut short, and says what it found.
    let mut daemon = support::Daemon::start(dir.path(), &[], &env).await;
    let log = daemon.log();
    assert!(
        log.contains("object store checked for writes cut short"),
        "{log}"
    );
    add_recovery_counts(&log, &mut found);
    // For the notes: what the starts after the kills found and removed.
    eprintln!(
        "after {ROUNDS} kills: {} temp files, {} interrupted writes, {} objects without record removed",
        found[0], found[1], found[2]
    );
    assert!(daemon.terminate(Duration::from_secs(10)).is_some());

    let db = rusqlite::Connection::open(dir.path().join("data/depot.sqlite3")).unwrap();
    let integrity: String = db
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    let records: Vec<(String, String)> = db
        .prepare("SELECT bucket, key FROM files")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(!records.is_empty());

    let root = dir.path().join("data/objects");
    let store = ObjectStore::open(root.clone()).unwrap();
    let expected: HashSet<PathBuf> = records
        .iter()
        .map(|(bucket, key)| store.path_of(bucket, key).unwrap())
        .collect();
    let on_disk: HashSet<PathBuf> = files_below(&root.join("depot")).into_iter().collect();
    let without_object: Vec<_> = expected.difference(&on_disk).collect();
    assert!(
        without_object.is_empty(),
        "records without object: {without_object:?}"
    );
    let orphans: Vec<_> = on_disk.difference(&expected).collect();
    assert!(orphans.is_empty(), "objects without record: {orphans:?}");
    assert_eq!(files_below(&root.join(".tmp")), Vec::<PathBuf>::new());
    assert_eq!(files_below(&root.join(".pending")), Vec::<PathBuf>::new());
}
