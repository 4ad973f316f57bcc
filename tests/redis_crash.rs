//! `kill -9` of `depot produce` at many points of a store into Redis: the current version
//! must always load whole and match its content hash (a version is written under its own
//! key and made current in one step, so a writer killed half-way changes nothing).
#![cfg(test)]

mod support;

use depot::config::settings::{Storage, Translations};
use depot::secret::Secret;
use depot::translations::store::{RedisStore, TranslationStore, version_of};
use std::path::Path;
use std::process::Stdio;
use std::time::Instant;
use support::engines::RedisServer;

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

fn produce(dir: &Path, redis: &RedisServer, sheet: &str) -> std::process::Child {
    support::depot(dir)
        .args(["produce", "--once", "--source", sheet])
        .env("DEPOT_TRANSLATIONS_STORAGE", "redis")
        .env("DEPOT_TRANSLATIONS_REDIS_URL", redis.url())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Reads the store as a starting node would and checks it holds one whole version.
fn check_store(store: &RedisStore) -> Option<String> {
    let current = store
        .load()
        .unwrap_or_else(|e| panic!("the current version must load after a kill: {e}"))?;
    assert_eq!(
        version_of(&current.document).unwrap(),
        current.version,
        "the stored document must match its version (no mix)"
    );
    Some(current.version.clone())
}

#[test]
fn kill_9_while_storing_into_redis_never_leaves_a_current_version_that_fails_to_load() {
    let redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    write_sheet(&dir.path().join("a.csv"), "alpha");
    write_sheet(&dir.path().join("b.csv"), "beta");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _context = runtime.enter();
    let store = RedisStore::open(&Translations {
        storage: Storage::Redis,
        sled_path: "unused".into(),
        file_path: "unused".into(),
        redis_url: Secret::new(redis.url()),
        redis_prefix: "depot:".into(),
        keep_versions: 10,
        events_heartbeat_secs: 15,
        fallbacks: Default::default(),
        locale_names: Default::default(),
        layouts: Default::default(),
        placeholders: Default::default(),
        sheet_encoding: "utf-8".into(),
    })
    .unwrap();

    // One full run, to know how long storing takes here.
    let started = Instant::now();
    assert!(
        produce(dir.path(), &redis, "a.csv")
            .wait()
            .unwrap()
            .success()
    );
    let full = started.elapsed();
    let first = check_store(&store).expect("a stored version");

    let mut versions = vec![first];
    for round in 0..16u32 {
        let sheet = if round % 2 == 0 { "b.csv" } else { "a.csv" };
        let mut child = produce(dir.path(), &redis, sheet);
        // Spread the kills over the whole run: reading, converting, writing the document,
        // making it current.
        std::thread::sleep(full.mul_f64(f64::from(round) / 16.0));
        let _ = child.kill();
        let _ = child.wait();
        if let Some(version) = check_store(&store)
            && !versions.contains(&version)
        {
            versions.push(version);
        }
    }
    // Only the two sheets' versions can ever be current.
    assert!(versions.len() <= 2, "{versions:?}");
    // And a clean run afterwards still works.
    assert!(
        produce(dir.path(), &redis, "b.csv")
            .wait()
            .unwrap()
            .success()
    );
    assert!(check_store(&store).is_some());
}
