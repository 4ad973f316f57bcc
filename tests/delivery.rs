//! Delivery end to end through the real binary (SPEC §8): sync now, the event stream, kept
//! versions served immutable, signed webhooks, a published CSV fetched conditionally, and a
//! Google service account; with their failures. Runs on a multi-threaded runtime: the
//! in-process servers (CSV host, webhook receiver, fake Google) keep answering while a test
//! waits on a child process.
#![cfg(test)]

mod support;

use futures_util::StreamExt;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};
use support::csv_server::{CsvServer, Validators};
use support::engines::RedisServer;
use support::fake_google::{FakeConfig, FakeGoogle};
use support::webhook_receiver::{Receiver, SECRET, verified};
use support::{Daemon, eventually};

const ADMIN: &str = "admin-key-for-tests";
const READER: &str = "reader-key-for-tests";

/// A sheet with two locales; `yes` is the English text of `CORE.YES`.
fn sheet(yes: &str) -> String {
    format!(">>>,>>>,en,pl\nCORE,,,\n,YES,{yes},Tak\n,NO,No,Nie\n")
}

/// The environment of a node that syncs `source` only when asked (and once at start).
fn node_env(source: &str) -> Vec<(String, String)> {
    [
        ("DEPOT_PRODUCER_SOURCE", source),
        ("DEPOT_PRODUCER_INTERVAL_SECS", "86400"),
        ("DEPOT_ADMIN_KEYS", ADMIN),
        ("DEPOT_API_KEYS", READER),
        ("DEPOT_TRANSLATIONS_EVENTS_HEARTBEAT_SECS", "1"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect()
}

fn refs(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

async fn start(dir: &Path, env: &[(String, String)]) -> Daemon {
    let daemon = Daemon::start(dir, &[], &refs(env)).await;
    wait_loaded(&daemon).await;
    daemon
}

async fn wait_loaded(daemon: &Daemon) -> String {
    eventually(Duration::from_secs(15), || async {
        let (_, health) = daemon.get_json("/health").await;
        health["translations"]["version"]
            .as_str()
            .map(str::to_owned)
    })
    .await
    .unwrap_or_else(|| panic!("translations never loaded; log:\n{}", daemon.log()))
}

async fn post_sync(daemon: &Daemon, key: Option<&str>) -> (u16, Value) {
    let mut request = reqwest::Client::new().post(daemon.url("/translations/sync"));
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.expect("the sync request is answered");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

async fn text(daemon: &Daemon, path: &str) -> (u16, String) {
    let response = daemon.get(path).await;
    (response.status().as_u16(), response.text().await.unwrap())
}

async fn versions(daemon: &Daemon) -> Vec<Value> {
    let (status, body) = daemon.get_json("/translations/versions").await;
    assert_eq!(status, 200, "{body}");
    body["versions"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_needs_the_admin_key_and_stores_what_changed() {
    // A sheet at a URL: a local file is also watched, and a sync started by its save could
    // end before the POST arrives (then rightly "changed": false).
    let host = CsvServer::start(&sheet("Yes"), Validators::ETag).await;
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path(), &node_env(&host.url)).await;
    let first = wait_loaded(&daemon).await;

    let (status, body) = post_sync(&daemon, None).await;
    assert_eq!(status, 401, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("admin key"),
        "{body}"
    );
    let (status, body) = post_sync(&daemon, Some(READER)).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["statusCode"], 403);

    // Nothing changed in the sheet: the sync says so and keeps the version.
    let (status, body) = post_sync(&daemon, Some(ADMIN)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["version"], first.as_str());
    assert_eq!(body["changed"], false);
    assert_eq!(body["warnings"], json!([]));
    assert!(body["updatedAt"].as_str().unwrap().ends_with('Z'), "{body}");

    // A translator's fix is served as soon as the sync returns.
    host.set_csv(&sheet("Yes!"));
    let (status, body) = post_sync(&daemon, Some(ADMIN)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["changed"], true);
    assert_ne!(body["version"], first.as_str());
    let (_, served) = text(&daemon, "/translations?filters[]=en.CORE.YES").await;
    assert_eq!(served, r#"{"en":{"CORE":{"YES":"Yes!"}}}"#);

    // A sheet that converts to nothing is the source's fault (502); the version stays.
    host.set_csv("no header here\n");
    let (status, body) = post_sync(&daemon, Some(ADMIN)).await;
    assert_eq!(status, 502, "{body}");
    assert!(body["message"].as_str().unwrap().contains(">>>"), "{body}");
    let (status, served) = text(&daemon, "/translations?filters[]=en.CORE.YES").await;
    assert_eq!(
        (status, served.as_str()),
        (200, r#"{"en":{"CORE":{"YES":"Yes!"}}}"#)
    );

    // Without any admin key configured, syncing over HTTP is off.
    let other = tempfile::tempdir().unwrap();
    let mut env = node_env(&host.url);
    env.retain(|(k, _)| k != "DEPOT_ADMIN_KEYS");
    host.set_csv(&sheet("Yes"));
    let open = start(other.path(), &env).await;
    let (status, body) = post_sync(&open, Some(ADMIN)).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("auth.admin_keys"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_source_down_during_a_sync_is_a_502_and_the_last_version_stays_served() {
    let host = CsvServer::start(&sheet("Yes"), Validators::ETag).await;
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path(), &node_env(&host.url)).await;
    let (_, before) = text(&daemon, "/translations").await;

    host.fail_with(503);
    let (status, body) = post_sync(&daemon, Some(ADMIN)).await;
    assert_eq!(status, 502, "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("answered 503"), "{message}");
    assert!(
        message.contains("last good version is still served"),
        "{message}"
    );
    // The link's query (a token, often) stays out of messages.
    assert!(!message.contains("output=csv"), "{message}");
    let (status, served) = text(&daemon, "/translations").await;
    assert_eq!((status, served), (200, before));
    let (_, health) = daemon.get_json("/health").await;
    assert!(
        health["translations"]["lastError"]
            .as_str()
            .unwrap()
            .contains("503"),
        "{health}"
    );

    host.recover();
    host.set_csv(&sheet("Yes, back"));
    let (status, body) = post_sync(&daemon, Some(ADMIN)).await;
    assert_eq!(
        (status, body["changed"].clone()),
        (200, json!(true)),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_published_csv_costs_a_304_and_no_new_version() {
    for validators in [Validators::ETag, Validators::LastModified] {
        let host = CsvServer::start(&sheet("Yes"), validators).await;
        let dir = tempfile::tempdir().unwrap();
        let daemon = start(dir.path(), &node_env(&host.url)).await;
        let first = wait_loaded(&daemon).await;

        let (status, body) = post_sync(&daemon, Some(ADMIN)).await;
        assert_eq!(status, 200, "{validators:?}: {body}");
        assert_eq!(body["changed"], false, "{validators:?}");
        assert_eq!(body["version"], first.as_str());
        assert_eq!(
            host.not_modified(),
            1,
            "{validators:?}: no conditional request"
        );
        assert_eq!(versions(&daemon).await.len(), 1, "{validators:?}");

        host.set_csv(&sheet("Yes again"));
        let (_, body) = post_sync(&daemon, Some(ADMIN)).await;
        assert_eq!(body["changed"], true, "{validators:?}: {body}");
        assert_eq!(host.not_modified(), 1, "{validators:?}");
        assert_eq!(versions(&daemon).await.len(), 2, "{validators:?}");
    }
}

/// One frame of an event stream: an event, or a comment line.
#[derive(Debug, Default)]
struct Frame {
    event: Option<String>,
    id: Option<String>,
    data: Option<String>,
    comment: Option<String>,
}

/// A `GET /translations/events` stream read frame by frame.
struct Events {
    body: std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buffer: String,
}

impl Events {
    async fn open(daemon: &Daemon, last_event_id: Option<&str>) -> Events {
        let mut request = reqwest::Client::new().get(daemon.url("/translations/events"));
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        let response = request.send().await.expect("the stream opens");
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        Events {
            body: Box::pin(response.bytes_stream()),
            buffer: String::new(),
        }
    }

    async fn frame(&mut self, limit: Duration) -> Frame {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let raw: String = self.buffer.drain(..end + 2).collect();
                let mut frame = Frame::default();
                for line in raw.lines() {
                    let (field, value) = line.split_once(':').unwrap_or((line, ""));
                    let value = value.strip_prefix(' ').unwrap_or(value).to_owned();
                    match field {
                        "" => frame.comment = Some(value),
                        "event" => frame.event = Some(value),
                        "id" => frame.id = Some(value),
                        "data" => frame.data = Some(value),
                        _ => {}
                    }
                }
                return frame;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let chunk = tokio::time::timeout(left, self.body.next())
                .await
                .expect("a frame within the limit")
                .expect("the stream stays open")
                .expect("the stream reads");
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// The next event, skipping heartbeat comments.
    async fn event(&mut self, limit: Duration) -> Frame {
        let deadline = Instant::now() + limit;
        loop {
            let frame = self
                .frame(deadline.saturating_duration_since(Instant::now()))
                .await;
            if frame.event.is_some() {
                return frame;
            }
        }
    }
}

fn assert_version_event(frame: &Frame, version: &str) {
    assert_eq!(frame.event.as_deref(), Some("version"), "{frame:?}");
    assert_eq!(frame.id.as_deref(), Some(version), "{frame:?}");
    let data: Value = serde_json::from_str(frame.data.as_deref().unwrap()).unwrap();
    assert_eq!(data["version"], version);
    assert!(data["updatedAt"].as_str().unwrap().ends_with('Z'), "{data}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_announce_each_new_version_with_heartbeats_and_last_event_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sheet.csv");
    std::fs::write(&path, sheet("Yes")).unwrap();
    let daemon = start(dir.path(), &node_env(path.to_str().unwrap())).await;
    let first = wait_loaded(&daemon).await;

    // On connect: the current version at once, then heartbeats while nothing happens.
    let mut events = Events::open(&daemon, None).await;
    assert_version_event(&events.event(Duration::from_secs(5)).await, &first);
    let idle = events.frame(Duration::from_secs(5)).await;
    assert!(idle.event.is_none() && idle.comment.is_some(), "{idle:?}");

    std::fs::write(&path, sheet("Yes!")).unwrap();
    let (_, body) = post_sync(&daemon, Some(ADMIN)).await;
    let second = body["version"].as_str().unwrap().to_owned();
    assert_version_event(&events.event(Duration::from_secs(5)).await, &second);

    // A client that already has the current version gets only heartbeats...
    let mut caught_up = Events::open(&daemon, Some(&second)).await;
    let frame = caught_up.frame(Duration::from_secs(5)).await;
    assert!(frame.event.is_none(), "{frame:?}");
    // ... and one that saw an older version catches up at once.
    let mut behind = Events::open(&daemon, Some(&first)).await;
    assert_version_event(&behind.event(Duration::from_secs(5)).await, &second);

    // An unchanged sync announces nothing: the next event is the next version.
    post_sync(&daemon, Some(ADMIN)).await;
    std::fs::write(&path, sheet("Yes!!")).unwrap();
    let (_, body) = post_sync(&daemon, Some(ADMIN)).await;
    let third = body["version"].as_str().unwrap();
    assert_version_event(&events.event(Duration::from_secs(5)).await, third);
    assert_version_event(&caught_up.event(Duration::from_secs(5)).await, third);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_versions_are_listed_and_served_immutable_across_a_restart() {
    for storage in ["sled", "file"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sheet.csv");
        std::fs::write(&path, ">>>,en,pl\nA,a,pa\nB,b,pb\n").unwrap();
        let mut env = node_env(path.to_str().unwrap());
        env.push(("DEPOT_TRANSLATIONS_STORAGE".into(), storage.into()));
        env.push(("DEPOT_TRANSLATIONS_KEEP_VERSIONS".into(), "2".into()));
        let mut daemon = start(dir.path(), &env).await;
        let v1 = wait_loaded(&daemon).await;

        // v2: A.en changed, B.pl removed, C added in both locales.
        std::fs::write(&path, ">>>,en,pl\nA,a2,pa\nB,b,\nC,c,pc\n").unwrap();
        let (_, body) = post_sync(&daemon, Some(ADMIN)).await;
        let v2 = body["version"].as_str().unwrap().to_owned();
        let pinned_query = "filters%5B%5D=pl&format=android";
        let (_, v2_android) = text(&daemon, &format!("/translations?{pinned_query}")).await;
        // v3: a new locale column.
        std::fs::write(&path, ">>>,en,pl,de\nA,a2,pa,da\nB,b,,\nC,c,pc,\n").unwrap();
        let (_, body) = post_sync(&daemon, Some(ADMIN)).await;
        let v3 = body["version"].as_str().unwrap().to_owned();

        let listed = versions(&daemon).await;
        let ids: Vec<&str> = listed
            .iter()
            .map(|v| v["version"].as_str().unwrap())
            .collect();
        assert_eq!(
            ids,
            [v3.as_str(), v2.as_str()],
            "{storage}: only the last 2 are kept"
        );
        assert_eq!(listed[0]["previousVersion"], v2.as_str());
        assert_eq!(
            (
                &listed[0]["added"],
                &listed[0]["removed"],
                &listed[0]["changed"]
            ),
            (&json!(1), &json!(0), &json!(0)),
            "{storage}: {}",
            listed[0]
        );
        assert_eq!(listed[0]["keyCounts"], json!({"en": 3, "pl": 2, "de": 1}));
        assert_eq!(listed[1]["previousVersion"], v1.as_str());
        assert_eq!(
            (
                &listed[1]["added"],
                &listed[1]["removed"],
                &listed[1]["changed"]
            ),
            (&json!(2), &json!(1), &json!(1)),
            "{storage}: {}",
            listed[1]
        );

        for round in ["before", "after"] {
            if round == "after" {
                assert!(daemon.terminate(Duration::from_secs(10)).is_some());
                daemon = Daemon::start(dir.path(), &[], &refs(&env)).await;
            }
            // An older kept version, with its filters and format, exactly as it was served.
            let pinned = daemon
                .get(&format!("/translations?version={v2}&{pinned_query}"))
                .await;
            assert_eq!(pinned.status(), 200, "{storage} {round}");
            assert_eq!(
                pinned.headers()["cache-control"],
                "public, max-age=31536000, immutable"
            );
            let etag = pinned.headers()["etag"].to_str().unwrap().to_owned();
            assert_eq!(
                pinned.text().await.unwrap(),
                v2_android,
                "{storage} {round}"
            );
            let revalidated = reqwest::Client::new()
                .get(daemon.url(&format!("/translations?version={v2}&{pinned_query}")))
                .header("If-None-Match", &etag)
                .send()
                .await
                .unwrap();
            assert_eq!(revalidated.status(), 304);
            assert_eq!(
                revalidated.headers()["cache-control"],
                "public, max-age=31536000, immutable"
            );
            // The current version by its id is immutable too; unpinned stays no-cache.
            let current = daemon.get(&format!("/translations?version={v3}")).await;
            assert_eq!(current.status(), 200);
            let (_, latest) = text(&daemon, "/translations").await;
            assert_eq!(current.text().await.unwrap(), latest);
            assert_eq!(
                daemon.get("/translations").await.headers()["cache-control"],
                "no-cache"
            );
            assert_eq!(versions(&daemon).await.len(), 2, "{storage} {round}");

            for unknown in [v1.as_str(), "deadbeef", "../../etc/passwd"] {
                let (status, body) = daemon
                    .get_json(&format!("/translations?version={unknown}"))
                    .await;
                assert_eq!(status, 404, "{storage} {round} {unknown}: {body}");
                assert!(
                    body["message"]
                        .as_str()
                        .unwrap()
                        .contains("/translations/versions")
                );
            }
            let (status, body) = daemon.get_json("/translations?version=").await;
            assert_eq!(status, 400, "{body}");
            assert!(
                body["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("version must be")
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_are_signed_retried_until_delivered_and_shown_in_health() {
    let receiver = Receiver::start(2).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sheet.csv");
    std::fs::write(&path, sheet("Yes")).unwrap();
    let mut env = node_env(path.to_str().unwrap());
    env.push(("DEPOT_WEBHOOKS_URLS".into(), receiver.url.clone()));
    env.push(("DEPOT_WEBHOOKS_SECRET".into(), SECRET.into()));
    let daemon = start(dir.path(), &env).await;
    let first = wait_loaded(&daemon).await;

    // The first version ever stored is announced too; two failures, then delivered.
    let health = eventually(Duration::from_secs(30), || async {
        let (_, health) = daemon.get_json("/health").await;
        (health["webhooks"][0]["delivered"] == true).then_some(health)
    })
    .await
    .unwrap_or_else(|| panic!("never delivered; log:\n{}", daemon.log()));
    let delivery = &health["webhooks"][0];
    assert_eq!(delivery["attempts"], 3, "{delivery}");
    assert_eq!(delivery["status"], 200);
    assert_eq!(delivery["version"], first.as_str());
    let url = delivery["url"].as_str().unwrap();
    assert!(url.ends_with("/***") && !url.contains("t0k3n"), "{url}");
    let seen = receiver.deliveries();
    assert_eq!(seen.len(), 3);
    for (signature, body) in &seen {
        let body = verified(signature, body);
        assert_eq!(body["event"], "translations.published");
        assert_eq!(body["version"], first.as_str());
        assert_eq!(body["previousVersion"], Value::Null);
        assert_eq!(body["keyCounts"], json!({"en": 2, "pl": 2}));
        assert_eq!(
            (&body["added"], &body["removed"], &body["changed"]),
            (&json!(4), &json!(0), &json!(0))
        );
    }

    std::fs::write(&path, sheet("Yes!")).unwrap();
    let (_, synced) = post_sync(&daemon, Some(ADMIN)).await;
    let announced = eventually(Duration::from_secs(10), || async {
        receiver.deliveries().get(3).cloned()
    })
    .await
    .expect("the second version is announced");
    let body = verified(&announced.0, &announced.1);
    assert_eq!(body["version"], synced["version"]);
    assert_eq!(body["previousVersion"], first.as_str());
    assert_eq!(body["changed"], 1);
    // An unchanged sync announces nothing.
    post_sync(&daemon, Some(ADMIN)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.deliveries().len(), 4);
}

/// Hook URLs carry their receiver's token (in the query, in the path): a delivery that
/// fails names the receiver by its host alone, in `/health` and in every log line, DEBUG
/// included, whatever the library or the receiver said (SPEC §10).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_webhook_never_shows_the_secrets_of_its_url() {
    use warp::Filter;
    // A receiver that refuses every delivery and quotes the URL it was called with.
    let echo = warp::post()
        .and(warp::path::full())
        .and(warp::query::raw())
        .map(|path: warp::path::FullPath, query: String| {
            warp::Reply::into_response(warp::reply::with_status(
                format!("no hook at {}?{query}", path.as_str()),
                warp::http::StatusCode::NOT_FOUND,
            ))
        })
        .boxed();
    let (echo_addr, _stop) = support::serve_on_loopback(echo).await;
    // Nothing listens here; without a path a parser writes the URL with a `/` added.
    let closed = support::engines::free_port();
    let urls = [
        format!("http://127.0.0.1:{closed}?token=t0k3n-in-the-query"),
        format!("http://hook-user:pa55word-in-url@127.0.0.1:{closed}/hooks/s3cr3t-path"),
        format!(
            "http://127.0.0.1:{}/hooks/echo-s3cr3t?token=t0k3n-echoed",
            echo_addr.port()
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sheet.csv");
    std::fs::write(&path, sheet("Yes")).unwrap();
    let mut env = node_env(path.to_str().unwrap());
    env.push(("DEPOT_WEBHOOKS_URLS".into(), urls.join(",")));
    env.push(("DEPOT_WEBHOOKS_SECRET".into(), SECRET.into()));
    env.push(("DEPOT_LOG_LEVEL".into(), "debug".into()));
    let daemon = start(dir.path(), &env).await;
    // Two tries of each: the first failure is logged at DEBUG before the retry.
    let health = eventually(Duration::from_secs(30), || async {
        let (_, health) = daemon.get_json("/health").await;
        let hooks = health["webhooks"].as_array()?;
        (hooks.len() == 3 && hooks.iter().all(|h| h["attempts"].as_u64() >= Some(2)))
            .then_some(health)
    })
    .await
    .unwrap_or_else(|| {
        panic!(
            "the deliveries were not tried twice; log:\n{}",
            daemon.log()
        )
    });
    let hooks = health["webhooks"].as_array().unwrap();
    assert_eq!(hooks[0]["url"], format!("http://127.0.0.1:{closed}/***"));
    assert_eq!(hooks[1]["url"], format!("http://127.0.0.1:{closed}/***"));
    assert_eq!(hooks[2]["status"], 404, "{}", hooks[2]);
    for hook in hooks {
        assert!(
            hook["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{hook}"
        );
    }
    let log = daemon.log();
    assert!(
        log.contains("webhook delivery failed; trying again"),
        "{log}"
    );
    for secret in ["t0k3n", "s3cr3t", "pa55word", "hook-user"] {
        assert!(!health.to_string().contains(secret), "{secret} in {health}");
        assert!(!log.contains(secret), "{secret} in the log:\n{log}");
    }
}

#[test]
fn webhook_urls_without_a_secret_or_not_http_are_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    for (urls, secret, expected) in [
        ("http://127.0.0.1:9/hook", "", "webhooks.secret is empty"),
        (
            "ftp://example.com/hook",
            "s",
            "webhooks.urls: item 1 is not an http:// or https:// URL",
        ),
    ] {
        let output = support::depot(dir.path())
            .args(["config", "check"])
            .env("DEPOT_WEBHOOKS_URLS", urls)
            .env("DEPOT_WEBHOOKS_SECRET", secret)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{urls}");
        assert!(stderr.contains(expected), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            !stderr.contains(urls) || urls.starts_with("ftp"),
            "{stderr}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_redis_every_node_streams_each_version_and_it_is_announced_once() {
    let redis = RedisServer::start();
    let receiver = Receiver::start(0).await;
    let shared = tempfile::tempdir().unwrap();
    let path = shared.path().join("sheet.csv");
    std::fs::write(&path, sheet("Yes")).unwrap();
    let mut env = node_env(path.to_str().unwrap());
    env.extend([
        ("DEPOT_TRANSLATIONS_STORAGE".to_owned(), "redis".to_owned()),
        ("DEPOT_TRANSLATIONS_REDIS_URL".to_owned(), redis.url()),
        ("DEPOT_WEBHOOKS_URLS".to_owned(), receiver.url.clone()),
        ("DEPOT_WEBHOOKS_SECRET".to_owned(), SECRET.to_owned()),
    ]);
    // Both nodes run a producer: they share the lease, and whichever stores a version
    // announces it.
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = start(dir_a.path(), &env).await;
    let b = start(dir_b.path(), &env).await;
    let first = wait_loaded(&a).await;
    assert_eq!(wait_loaded(&b).await, first);

    let mut on_b = Events::open(&b, Some(&first)).await;
    std::fs::write(&path, sheet("Yes!")).unwrap();
    let (status, body) = post_sync(&a, Some(ADMIN)).await;
    assert_eq!(status, 200, "{body}");
    let second = body["version"].as_str().unwrap().to_owned();
    assert_version_event(&on_b.event(Duration::from_secs(5)).await, &second);
    // The same sheet synced on the other node stores nothing and announces nothing.
    let (_, again) = post_sync(&b, Some(ADMIN)).await;
    assert_eq!(
        (again["changed"].clone(), again["version"].clone()),
        (json!(false), json!(second))
    );
    // Versions are shared: both nodes list the same ones.
    assert_eq!(versions(&a).await, versions(&b).await);

    tokio::time::sleep(Duration::from_secs(2)).await;
    let announced: Vec<String> = receiver
        .deliveries()
        .iter()
        .map(|(signature, body)| {
            verified(signature, body)["version"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(announced, [first, second], "each version once");
}

/// The environment of a node that reads the fake Google's sheet as a service account.
fn service_account_env(fake: &FakeGoogle, key: &Path) -> Vec<(String, String)> {
    let c = fake.config();
    let mut env = node_env("google");
    env.extend([
        ("DEPOT_GOOGLE_TOKEN_URL".to_owned(), fake.token_url()),
        ("DEPOT_GOOGLE_AUTH_URL".to_owned(), fake.auth_url()),
        ("DEPOT_GOOGLE_SHEETS_URL".to_owned(), fake.sheets_url()),
        ("DEPOT_GOOGLE_TIMEOUT_SECS".to_owned(), "2".to_owned()),
        (
            "DEPOT_GOOGLE_CREDENTIALS_FILE".to_owned(),
            key.display().to_string(),
        ),
        (
            "SERVICE_SPREADSHEET_ID".to_owned(),
            c.spreadsheet_id.clone(),
        ),
        ("SERVICE_SPREADSHEET_NAME".to_owned(), c.sheet_name.clone()),
    ]);
    env
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_account_reads_the_sheet_and_a_tampered_key_is_refused() {
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    let dir = tempfile::tempdir().unwrap();
    let key = support::service_account::new_key(dir.path(), "service-account.json");
    fake.add_service_account(
        support::service_account::CLIENT_EMAIL,
        key.public_key.clone(),
    );
    let env = service_account_env(&fake, &key.file);
    let mut daemon = start(dir.path(), &env).await;
    let (status, body) = daemon.get_json("/translations").await;
    assert_eq!(status, 200);
    let expected: Value =
        serde_json::from_str(&support::fixture_text("sheets/basic.expected.json")).unwrap();
    assert_eq!(body, expected["all"]);
    assert!(fake.token_requests() >= 1);
    let (_, before) = text(&daemon, "/translations").await;

    // Another key with the same account name: its signature does not verify.
    assert!(daemon.terminate(Duration::from_secs(10)).is_some());
    let tampered = support::service_account::new_key(dir.path(), "service-account.json");
    assert_ne!(tampered.public_key, key.public_key);
    let daemon = Daemon::start(dir.path(), &[], &refs(&env)).await;
    let (status, body) = post_sync(&daemon, Some(ADMIN)).await;
    assert_eq!(status, 502, "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("Invalid JWT Signature"), "{message}");
    assert!(message.contains("google.credentials_file"), "{message}");
    assert!(!message.contains("PRIVATE KEY"), "{message}");
    let (status, served) = text(&daemon, "/translations").await;
    assert_eq!(
        (status, served),
        (200, before),
        "the last good version stays"
    );

    // The same from the command line: one line, exit code 1.
    let output = support::depot(dir.path())
        .args(["produce", "--once", "--data-dir", "other-data"])
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Invalid JWT Signature"), "{stderr}");

    // A file that is not a service account key is named, without its content.
    std::fs::write(
        &key.file,
        r#"{"type": "authorized_user", "client_email": "x"}"#,
    )
    .unwrap();
    let output = support::depot(dir.path())
        .args(["produce", "--once", "--data-dir", "other-data"])
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is not a service account key"), "{stderr}");
    assert!(stderr.contains("service-account.json"), "{stderr}");
}

/// Two sheets whose versions start with the same 8 characters (a birthday search over
/// versions computed as the daemon computes them), so that a prefix can be ambiguous.
fn sheets_sharing_a_prefix() -> (String, String) {
    let sheet = |n: u32| format!(">>>,en\nA,text {n}\n");
    let version = |n: u32| {
        let grid = depot::sheets::local::csv_bytes_grid(sheet(n).as_bytes(), "sheet.csv").unwrap();
        let document = depot::producer::convert(grid).unwrap();
        depot::translations::store::version_of(&document).unwrap()
    };
    let mut seen = std::collections::HashMap::new();
    for n in 0..2_000_000 {
        let prefix = version(n)[..8].to_owned();
        if let Some(before) = seen.insert(prefix, n) {
            return (sheet(before), sheet(n));
        }
    }
    panic!("no two versions share 8 characters")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_lists_its_changed_keys_and_is_named_by_a_unique_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sheet.csv");
    std::fs::write(&path, ">>>,en,pl\nA,a,pa\nB,b,pb\n").unwrap();
    let mut env = node_env(path.to_str().unwrap());
    env.retain(|(name, _)| name != "DEPOT_API_KEYS");
    env.push(("DEPOT_TRANSLATIONS_KEEP_VERSIONS".into(), "3".into()));
    let daemon = start(dir.path(), &env).await;
    let v1 = wait_loaded(&daemon).await;
    // v2: A.en changed, B.pl removed, C added in both locales.
    std::fs::write(&path, ">>>,en,pl\nA,a2,pa\nB,b,\nC,c,pc\n").unwrap();
    let (_, body) = post_sync(&daemon, Some(ADMIN)).await;
    let v2 = body["version"].as_str().unwrap().to_owned();

    let (status, by_id) = daemon
        .get_json(&format!("/translations/versions/{v2}"))
        .await;
    assert_eq!(status, 200, "{by_id}");
    assert_eq!(by_id["previousVersion"], v1.as_str());
    assert_eq!(
        (&by_id["added"], &by_id["removed"], &by_id["changed"]),
        (&json!(2), &json!(1), &json!(1))
    );
    assert_eq!(
        by_id["locales"],
        json!({
            "en": {"added": ["C"], "removed": [], "changed": ["A"]},
            "pl": {"added": ["C"], "removed": ["B"], "changed": []},
        })
    );
    // the counts stay in the list; the keys are only here
    assert!(versions(&daemon).await[0].get("locales").is_none());
    // a prefix of 8 or more characters names the version, in either case
    for prefix in [&v2[..8], &v2[..20].to_ascii_uppercase()] {
        let (status, body) = daemon
            .get_json(&format!("/translations/versions/{prefix}"))
            .await;
        assert_eq!((status, &body), (200, &by_id), "{prefix}");
    }
    let (_, first) = daemon
        .get_json(&format!("/translations/versions/{}", &v1[..8]))
        .await;
    assert_eq!(first["previousVersion"], Value::Null);
    assert_eq!(first["locales"]["pl"]["added"], json!(["A", "B"]));

    // ?version= takes the prefix too, with the full version's ETag and immutability
    let pinned = daemon
        .get(&format!("/translations?version={}&filters[]=en", &v2[..8]))
        .await;
    assert_eq!(pinned.status(), 200);
    assert_eq!(
        pinned.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let by_full = daemon
        .get(&format!("/translations?version={v2}&filters[]=en"))
        .await;
    assert_eq!(pinned.headers()["etag"], by_full.headers()["etag"]);
    assert_eq!(
        pinned.text().await.unwrap(),
        r#"{"en":{"A":"a2","B":"b","C":"c"}}"#
    );

    // too short: 400; unknown: 404; each names what to do
    for path in ["/translations/versions/", "/translations?version="] {
        let (status, body) = daemon.get_json(&format!("{path}{}", &v2[..7])).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(
            body["message"].as_str().unwrap().contains("at least 8"),
            "{body}"
        );
        let (status, body) = daemon.get_json(&format!("{path}0000000000")).await;
        assert_eq!(status, 404, "{path}: {body}");
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("/translations/versions"),
            "{body}"
        );
    }

    // v3 and v4 share their first 8 characters: that prefix is ambiguous
    let (third, fourth) = sheets_sharing_a_prefix();
    let mut shared = Vec::new();
    for sheet in [third, fourth] {
        std::fs::write(&path, sheet).unwrap();
        let (_, body) = post_sync(&daemon, Some(ADMIN)).await;
        shared.push(body["version"].as_str().unwrap().to_owned());
    }
    assert_eq!(shared[0][..8], shared[1][..8]);
    for path in ["/translations/versions/", "/translations?version="] {
        let (status, body) = daemon.get_json(&format!("{path}{}", &shared[0][..8])).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("is the start of 2 kept versions"),
            "{body}"
        );
    }
    // keep_versions = 3: v1 fell out, so v2's keys can no longer be told, only its counts
    let (status, body) = daemon
        .get_json(&format!("/translations/versions/{}", &v2[..8]))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["locales"], Value::Null);
    assert_eq!(body["added"], 2);

    // The console's versions page lists them, and a version's keys per locale.
    let page = daemon.get("/console/versions").await.text().await.unwrap();
    for v in [&v2, &shared[0], &shared[1]] {
        assert!(page.contains(&format!("?version={v}\"")), "{v}: {page}");
    }
    let page = daemon
        .get(&format!("/console/versions?version={}", &shared[1][..12]))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(&format!("<code>{}</code></h2>", shared[1])),
        "{page}"
    );
    // the one changed key, with its old and new text
    let changed = page
        .split_once("<h4 id=\"changed-en-h\">changed (1)</h4>")
        .map(|(_, after)| after)
        .unwrap_or_else(|| panic!("no changed list: {page}"));
    assert!(
        changed.contains("<tr><td data-label=\"Key\"><code>A</code></td><td data-label=\"Before\" class=\"text\"><del>text "),
        "{page}"
    );
    let ambiguous = daemon
        .get(&format!("/console/versions?version={}", &shared[0][..8]))
        .await;
    assert_eq!(ambiguous.status(), 400);
    assert!(
        ambiguous
            .text()
            .await
            .unwrap()
            .contains("is the start of 2 kept versions")
    );
}
