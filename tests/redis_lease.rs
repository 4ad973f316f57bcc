//! Three `depot serve` nodes with the producer on share one Redis: they take turns by the
//! producer lease, so the fake Google server sees one sheet read per interval whatever the
//! number of nodes; a holder killed with `kill -9` is replaced when its lease expires, and
//! the new holder keeps the pace recorded in Redis instead of fetching at once.
#![cfg(test)]

mod support;

use std::time::{Duration, Instant};
use support::engines::RedisServer;
use support::fake_google::{Endpoint, FakeConfig, FakeGoogle};
use support::{Daemon, eventually};

fn env(fake: &FakeGoogle, redis: &RedisServer) -> Vec<(String, String)> {
    let c = fake.config();
    [
        ("DEPOT_GOOGLE_TOKEN_URL", fake.token_url()),
        ("DEPOT_GOOGLE_AUTH_URL", fake.auth_url()),
        ("DEPOT_GOOGLE_SHEETS_URL", fake.sheets_url()),
        ("SERVICE_CLIENT_ID", c.client_id.clone()),
        ("SERVICE_CLIENT_SECRET", c.client_secret.clone()),
        ("SERVICE_REFRESH_TOKEN", c.refresh_token.clone()),
        ("SERVICE_SPREADSHEET_ID", c.spreadsheet_id.clone()),
        ("SERVICE_SPREADSHEET_NAME", c.sheet_name.clone()),
        ("DEPOT_TRANSLATIONS_STORAGE", "redis".into()),
        ("DEPOT_TRANSLATIONS_REDIS_URL", redis.url()),
        ("DEPOT_PRODUCER_LEASE_SECS", "2".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

/// The producer interval, in the node's config file (which the daemon reloads live).
fn set_interval(dir: &std::path::Path, secs: u64) {
    let config = dir.join("config");
    std::fs::create_dir_all(&config).unwrap();
    support::save_like_an_editor(
        &config.join("depot.toml"),
        &format!("[producer]\ninterval_secs = {secs}\n"),
    );
}

async fn lease(daemon: &Daemon) -> serde_json::Value {
    daemon.get_json("/health").await.1["translations"]["lease"].clone()
}

async fn serves(daemon: &Daemon, yes: &str) -> bool {
    let response = daemon.get("/translations?filters%5B%5D=pl.CORE").await;
    response.status() == 200 && response.text().await.unwrap().contains(yes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn producer_nodes_share_one_sheet_read_per_interval_and_a_dead_holder_is_replaced() {
    let redis = RedisServer::start();
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    let env = env(&fake, &redis);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut dirs = Vec::new();
    let mut nodes = Vec::new();
    for _ in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        set_interval(dir.path(), 3600);
        nodes.push(Daemon::start(dir.path(), &[], &env).await);
        dirs.push(dir);
    }

    // All three serve the sheet; one holds the lease, the other two wait for it.
    let holder = eventually(Duration::from_secs(15), || async {
        let mut held = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            if !serves(node, "\"Tak\"").await {
                return None;
            }
            match lease(node).await.as_str() {
                Some("held") => held.push(i),
                Some("standby") => {}
                _ => return None,
            }
        }
        (held.len() == 1).then(|| held[0])
    })
    .await
    .expect("every node serves the sheet and exactly one holds the lease");
    assert_eq!(
        fake.requests(Endpoint::Values),
        1,
        "one read for three nodes"
    );

    // The holder dies without giving the lease up; another node takes it once it expires
    // and waits out the hour recorded in Redis instead of reading the sheet again.
    nodes[holder].child.kill().unwrap();
    let _ = nodes[holder].child.wait();
    let dead = nodes.remove(holder);
    dirs.remove(holder);
    let next_sync = eventually(Duration::from_secs(10), || async {
        for node in &nodes {
            let t = node.get_json("/health").await.1["translations"].clone();
            if t["lease"] == "held"
                && let Some(next) = t["nextSyncAt"].as_str()
            {
                return Some(next.to_owned());
            }
        }
        None
    })
    .await
    .expect("another node takes the lease");
    let next_sync = chrono::DateTime::parse_from_rfc3339(&next_sync).unwrap();
    let minutes_ahead = (next_sync.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_minutes();
    assert!(
        minutes_ahead > 55,
        "the new holder waits out the interval since the last sync: {next_sync}"
    );
    assert_eq!(fake.requests(Endpoint::Values), 1);
    drop(dead);

    // A shorter interval applies live; the holder syncs the changed sheet and both nodes
    // serve it.
    let mut rows = support::sheet_rows("basic");
    rows[3][5] = "Tak!".into();
    fake.set_rows(rows);
    for dir in &dirs {
        set_interval(dir.path(), 1);
    }
    for node in &nodes {
        let served = eventually(Duration::from_secs(10), || serves_async(node)).await;
        assert!(served.is_some(), "{}", node.log());
    }

    // One read per interval: the interval is counted from the end of one sync to the start
    // of the next, so four more reads by one producer span at least four intervals (two
    // producers syncing on their own would make them in half that time). This bound only
    // grows on a slow machine; it cannot fail by slowness.
    let count = || fake.requests(Endpoint::Values);
    let first = count() + 1;
    let observed = |n: usize| async move {
        eventually(Duration::from_secs(15), || async {
            (count() >= n).then(Instant::now)
        })
        .await
        .expect("the holder keeps syncing")
    };
    let start = observed(first).await;
    let end = observed(first + 4).await;
    assert!(
        end - start >= Duration::from_millis(3_800),
        "4 reads in {:?}: more than one producer syncs",
        end - start
    );
}

async fn serves_async(node: &Daemon) -> Option<()> {
    serves(node, "\"Tak!\"").await.then_some(())
}
