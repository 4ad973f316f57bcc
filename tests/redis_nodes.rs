//! Translations on Redis end to end through the real binary against a real redis-server:
//! `depot produce` beside two `depot serve` nodes, every sheet change served by both with
//! the same bodies and ETags; Redis lost and back; a node started while Redis is down;
//! `config check` masking the password. The tests run on a multi-threaded runtime because
//! they wait for child processes with blocking calls.
#![cfg(test)]

mod support;

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;
use support::engines::RedisServer;
use support::{Daemon, eventually};

const BASIC: &str = include_str!("fixtures/sheets/basic.csv");
const PL_CORE: &str = "/translations?filters%5B%5D=pl.CORE";

/// The environment that puts a depot command on `redis`.
fn on_redis(redis: &RedisServer) -> Vec<(&'static str, String)> {
    vec![
        ("DEPOT_TRANSLATIONS_STORAGE", "redis".to_owned()),
        ("DEPOT_TRANSLATIONS_REDIS_URL", redis.url()),
    ]
}

fn refs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'a str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// A `depot serve` node on Redis without a producer of its own.
async fn node(redis: &RedisServer) -> (tempfile::TempDir, Daemon) {
    let dir = tempfile::tempdir().unwrap();
    let env = on_redis(redis);
    let daemon = Daemon::start(
        dir.path(),
        &["--set", "producer.enabled=false"],
        &refs(&env),
    )
    .await;
    (dir, daemon)
}

/// `depot produce --once` of the sheet text `csv`; panics unless it stored or found it.
fn produce_once(dir: &Path, redis: &RedisServer, csv: &str) {
    std::fs::write(dir.join("sheet.csv"), csv).unwrap();
    support::run_ok(
        dir,
        &["produce", "--once", "--source", "sheet.csv"],
        on_redis(redis),
    );
}

/// A `depot produce` loop, killed when dropped.
struct Producer(Child);

impl Drop for Producer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn get(daemon: &Daemon, path: &str) -> (u16, String, Option<String>) {
    let response = daemon.get(path).await;
    let status = response.status().as_u16();
    let etag = response
        .headers()
        .get("etag")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, response.text().await.unwrap(), etag)
}

async fn wait_for_body(daemon: &Daemon, path: &str, expected: &str) {
    let served = eventually(Duration::from_secs(10), || async {
        let (status, body, _) = get(daemon, path).await;
        (status == 200 && body == expected).then_some(())
    })
    .await;
    assert!(
        served.is_some(),
        "{} never served {expected}; it serves {:?}\n{}",
        daemon.base,
        get(daemon, path).await,
        daemon.log()
    );
}

async fn store_health(daemon: &Daemon) -> serde_json::Value {
    daemon.get_json("/health").await.1["stores"]["translations"].clone()
}

fn pl_core(yes: &str) -> String {
    format!(r#"{{"pl":{{"CORE":{{"LABELS":{{"YES":"{yes}","NO":"Nie"}}}}}}}}"#)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_producer_and_two_nodes_serve_the_same_bodies_and_etags_after_every_sheet_change() {
    let redis = RedisServer::start();
    let producer_dir = tempfile::tempdir().unwrap();
    let sheet = producer_dir.path().join("sheet.csv");
    std::fs::write(&sheet, BASIC).unwrap();
    let _producer = Producer(
        support::depot(producer_dir.path())
            .args(["produce", "--source", "sheet.csv"])
            .env("DEPOT_PRODUCER_INTERVAL_SECS", "1")
            .envs(on_redis(&redis))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let (_d1, one) = node(&redis).await;
    let (_d2, two) = node(&redis).await;

    let queries = [
        "/translations",
        PL_CORE,
        "/translations?format=android&filters%5B%5D=en",
        "/translations?format=ios",
        "/translations?format=po&filters%5B%5D=pl.FRONT",
    ];
    for (round, yes) in ["Tak", "Tak 1", "Tak 2", "Tak 3"].iter().enumerate() {
        if round > 0 {
            support::save_like_an_editor(&sheet, &BASIC.replace("Tak", yes));
        }
        for daemon in [&one, &two] {
            wait_for_body(daemon, PL_CORE, &pl_core(yes)).await;
        }
        for query in queries {
            let a = get(&one, query).await;
            let b = get(&two, query).await;
            assert_eq!(a.0, 200, "{query}: {}", a.1);
            assert!(a.2.is_some(), "{query} has an ETag");
            assert_eq!(a, b, "{query} differs between the nodes in round {round}");
        }
    }
    // Both report the same version, loaded from the store.
    let version = |h: serde_json::Value| h["translations"]["version"].clone();
    assert_eq!(
        version(one.get_json("/health").await.1),
        version(two.get_json("/health").await.1)
    );
    assert_eq!(
        store_health(&one).await,
        serde_json::json!({"kind": "redis", "reachable": true, "lastError": null})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_lost_while_running_keeps_the_version_served_shows_in_health_and_recovers() {
    let mut redis = RedisServer::start();
    let work = tempfile::tempdir().unwrap();
    produce_once(work.path(), &redis, BASIC);
    let (_dir, daemon) = node(&redis).await;
    let before = get(&daemon, PL_CORE).await;
    assert_eq!(before.0, 200, "{}", before.1);
    assert_eq!(before.1, pl_core("Tak"));

    redis.kill();
    let lost = eventually(Duration::from_secs(10), || async {
        let health = store_health(&daemon).await;
        (health["reachable"] == false).then_some(health)
    })
    .await
    .expect("/health shows the store unreachable");
    assert_eq!(lost["kind"], "redis");
    let error = lost["lastError"].as_str().expect("the error is shown");
    assert!(!error.is_empty());
    // The version held is still served, byte for byte, with its ETag.
    assert_eq!(get(&daemon, PL_CORE).await, before);
    assert_eq!(daemon.get("/files").await.status(), 200);

    redis.restart();
    produce_once(work.path(), &redis, &BASIC.replace("Tak", "Tak!"));
    wait_for_body(&daemon, PL_CORE, &pl_core("Tak!")).await;
    let back = eventually(Duration::from_secs(10), || async {
        let health = store_health(&daemon).await;
        (health["reachable"] == true).then_some(health)
    })
    .await
    .expect("/health shows the store reachable again");
    assert_eq!(back["lastError"], serde_json::Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_started_while_redis_is_down_answers_503_then_serves_once_it_loads() {
    let mut redis = RedisServer::start();
    redis.kill();
    let (_dir, daemon) = node(&redis).await;

    let response = daemon.get(PL_CORE).await;
    assert_eq!(response.status().as_u16(), 503);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["statusCode"], 503);
    let message = body["message"].as_str().unwrap();
    let expected = format!(
        "translations have not been loaded yet: the translations store Redis at {} is unreachable: ",
        // By its host alone: the database number is part of the URL's path (SPEC §10).
        depot::redact::url(&redis.url())
    );
    assert!(message.starts_with(&expected), "{message}");
    // The rest of the daemon works.
    assert_eq!(daemon.get("/files").await.status(), 200);
    assert_eq!(store_health(&daemon).await["reachable"], false);

    redis.restart();
    let work = tempfile::tempdir().unwrap();
    produce_once(work.path(), &redis, BASIC);
    wait_for_body(&daemon, PL_CORE, &pl_core("Tak")).await;
}

#[test]
fn config_check_masks_the_redis_password_and_refuses_other_schemes() {
    let dir = tempfile::tempdir().unwrap();
    let check = |url: &str| {
        support::depot(dir.path())
            .args(["config", "check"])
            .env("DEPOT_TRANSLATIONS_STORAGE", "redis")
            .env("DEPOT_TRANSLATIONS_REDIS_URL", url)
            .output()
            .unwrap()
    };
    let output = check("redis://app:hunter2@cache.internal:6379/0");
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(
            "translations.redis_url = \"redis://app:***@cache.internal:6379/0\"  # environment"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("translations.storage = \"redis\""),
        "{stdout}"
    );
    assert!(!stdout.contains("hunter2"), "{stdout}");

    let output = check("http://app:hunter2@cache.internal:6379/0");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("translations.redis_url")
            && stderr.contains("'http://cache.internal:6379/***'")
            && stderr.contains("must be a redis:// or rediss:// URL"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
}

/// With one environment for every process (`producer.enabled = false`, for the serving
/// nodes), `depot produce` syncs anyway (it is asked for by name), and a serving node shows
/// its sync state, read from Redis, in `/health` and on the console: last attempt, last
/// success, error, next run, and which process synced (SPEC §7, §10).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_serving_node_shows_the_sync_state_of_the_producer_on_the_store() {
    let redis = RedisServer::start();
    let producer_dir = tempfile::tempdir().unwrap();
    let sheet = producer_dir.path().join("sheet.csv");
    std::fs::write(&sheet, BASIC).unwrap();
    let mut env = on_redis(&redis);
    env.push(("DEPOT_PRODUCER_ENABLED", "false".to_owned()));
    env.push(("DEPOT_PRODUCER_INTERVAL_SECS", "2".to_owned()));
    env.push(("DEPOT_PRODUCER_SOURCE", sheet.display().to_string()));
    let node_dir = tempfile::tempdir().unwrap();
    let node = Daemon::start(node_dir.path(), &[], &refs(&env)).await;
    let (_, health) = node.get_json("/health").await;
    assert_eq!(
        health["translations"]["lastSyncAt"],
        serde_json::Value::Null
    );

    let _producer = Producer(
        support::depot(producer_dir.path())
            .arg("produce")
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let synced = eventually(Duration::from_secs(15), || async {
        let (_, health) = node.get_json("/health").await;
        let part = health["translations"].clone();
        (part["lastSuccessAt"].is_string() && part["nextSyncAt"].is_string()).then_some(part)
    })
    .await
    .unwrap_or_else(|| {
        panic!(
            "the producer's state never reached the node; log:\n{}",
            node.log()
        )
    });
    assert!(
        synced["syncedBy"]
            .as_str()
            .is_some_and(|by| by.starts_with("depot produce on ")),
        "{synced}"
    );
    assert_eq!(synced["lease"], "off", "{synced}");
    assert_eq!(synced["lastError"], serde_json::Value::Null, "{synced}");
    assert!(
        synced["nextSyncAt"].as_str() > synced["lastSyncAt"].as_str(),
        "{synced}"
    );
    assert!(synced["loaded"] == true, "{synced}");

    // The sheet goes away: the producer's failures show on the node.
    std::fs::remove_file(&sheet).unwrap();
    let failed = eventually(Duration::from_secs(15), || async {
        let (_, health) = node.get_json("/health").await;
        let part = health["translations"].clone();
        part["lastError"].is_string().then_some(part)
    })
    .await
    .unwrap_or_else(|| {
        panic!(
            "the producer's failure never reached the node; log:\n{}",
            node.log()
        )
    });
    assert_eq!(failed["lastSuccessAt"], synced["lastSuccessAt"], "{failed}");
    assert!(
        failed["consecutiveFailures"].as_u64() >= Some(1),
        "{failed}"
    );
    let error = failed["lastError"].as_str().unwrap();
    assert!(error.contains("No such file or directory"), "{error}");
    let overview = node.get("/").await.text().await.unwrap();
    assert!(overview.contains("No such file or directory"), "{overview}");
    assert!(!overview.contains("<dd>never</dd>"), "{overview}");
}

/// A password in a Redis URL, in its user part or its query, is shown nowhere: `config
/// check` masks it (and every query value), and a node that Redis refuses (a password the
/// server has none for) names Redis by its host in `/health` and in every log line, DEBUG
/// included (SPEC §10).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_password_is_never_in_config_check_health_or_the_log() {
    let redis = RedisServer::start();
    let port = redis.engine.port;
    let url = format!("redis://app:hunter2-user@127.0.0.1:{port}/0?password=hunter2-query");
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("DEPOT_TRANSLATIONS_STORAGE", "redis"),
        ("DEPOT_TRANSLATIONS_REDIS_URL", url.as_str()),
        ("DEPOT_LOG_LEVEL", "debug"),
    ];
    let output = support::run_ok(dir.path(), &["config", "check"], env);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!(
            "# translations.redis_url = \"redis://app:***@127.0.0.1:{port}/0?password=***\""
        )),
        "{stdout}"
    );
    assert!(!stdout.contains("hunter2"), "{stdout}");

    let daemon = Daemon::start(dir.path(), &[], &env).await;
    let store = eventually(Duration::from_secs(15), || async {
        let (_, health) = daemon.get_json("/health").await;
        let store = health["stores"]["translations"].clone();
        (store["reachable"] == false).then_some(health)
    })
    .await
    .unwrap_or_else(|| panic!("Redis never refused the node; log:\n{}", daemon.log()));
    let error = store["stores"]["translations"]["lastError"]
        .as_str()
        .unwrap();
    assert!(
        error.starts_with(&format!(
            "the translations store Redis at redis://127.0.0.1:{port}/*** is unreachable: "
        )),
        "{error}"
    );
    let log = daemon.log();
    assert!(
        log.contains(&format!("redis://127.0.0.1:{port}/***")),
        "{log}"
    );
    for shown in [store.to_string(), log] {
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(!shown.contains("app:"), "{shown}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_made_current_without_an_announcement_is_found_by_the_poll() {
    let redis = RedisServer::start();
    let work = tempfile::tempdir().unwrap();
    produce_once(work.path(), &redis, BASIC);
    let (_dir, daemon) = node(&redis).await;
    let first: serde_json::Value =
        daemon.get_json("/health").await.1["translations"]["version"].clone();
    produce_once(work.path(), &redis, &BASIC.replace("Tak", "Tak!"));
    wait_for_body(&daemon, PL_CORE, &pl_core("Tak!")).await;

    // Pub/sub loses messages (a reconnect, a subscriber that was busy): an operator rolls
    // back to the kept previous version by hand, with no message on the channel.
    let mut conn = redis::Client::open(redis.url())
        .unwrap()
        .get_connection()
        .unwrap();
    redis::cmd("SET")
        .arg("depot:current")
        .arg(first.as_str().unwrap())
        .exec(&mut conn)
        .unwrap();
    wait_for_body(&daemon, PL_CORE, &pl_core("Tak")).await;
}
