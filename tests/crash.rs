//! `kill -9` of `depot produce` while it stores: the next open of the store must succeed
//! and hold one whole version (its content hash matches), never a mix or a broken store.

mod support;

use depot::translations::store::{SledStore, TranslationStore, version_of};
use std::path::Path;
use std::process::Stdio;
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
    let _ = Duration::ZERO;
}
