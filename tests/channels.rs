//! Channels (SPEC §14) through the real binary: the admin API (list, publish, rollback, the
//! errors with their codes), a version with findings refused unless forced, every move a
//! signed webhook and a log line naming who, a version a channel needs outliving
//! `translations.keep_versions`, `depot publish` / `depot rollback` with and without a
//! daemon on the same store, and on Redis a move on one node served by the other.
#![cfg(test)]

mod support;

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use support::engines::{RedisServer, free_port};
use support::webhook_receiver::{Receiver, SECRET, verified};
use support::{Daemon, HttpReply, eventually};

const ADMIN: &str = "admin-key-for-channels";
const READER: &str = "reader-key-for-channels";

/// A one-tab sheet; `yes` is the English text of `CORE.YES`.
fn sheet(yes: &str) -> String {
    format!(">>>,>>>,en,de\nCORE,,,\n,YES,{yes},Ja\n,NO,No,Nein\n")
}

fn env(extra: &[(&str, &str)]) -> Vec<(String, String)> {
    [
        ("DEPOT_PRODUCER_SOURCE", "sheet.csv"),
        ("DEPOT_ADMIN_KEYS", ADMIN),
        ("DEPOT_API_KEYS", READER),
    ]
    .iter()
    .chain(extra)
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect()
}

fn refs(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

/// The version draft serves, once it is not `other`.
async fn draft(daemon: &Daemon, other: Option<&str>) -> String {
    eventually(Duration::from_secs(20), || async {
        let (_, body) = daemon.get_json("/channels").await;
        let version = body["channels"][0]["version"].as_str()?.to_owned();
        (Some(version.as_str()) != other).then_some(version)
    })
    .await
    .unwrap_or_else(|| panic!("draft never moved from {other:?}\n{}", daemon.log()))
}

/// Saves the sheet and waits for draft to serve its new version.
async fn save(daemon: &Daemon, yes: &str) -> String {
    let before = draft(daemon, None).await;
    support::save_like_an_editor(&daemon.dir.join("sheet.csv"), &sheet(yes));
    // a sync now: on Redis a save is synced at the lease holder's pace
    let reply = post(daemon, "/translations/sync", Some(ADMIN), "").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    draft(daemon, Some(&before)).await
}

async fn post(daemon: &Daemon, path: &str, key: Option<&str>, body: &str) -> HttpReply {
    let mut request = reqwest::Client::new()
        .post(daemon.url(path))
        .header("content-type", "application/json")
        .body(body.to_owned());
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    HttpReply::read(request.send().await.unwrap()).await
}

fn json_of(reply: &HttpReply) -> Value {
    serde_json::from_slice(&reply.body).unwrap()
}

/// The code of an error body (checked against the contract).
fn code(reply: &HttpReply) -> String {
    reply.error_message();
    json_of(reply)["code"].as_str().unwrap().to_owned()
}

async fn served(daemon: &Daemon, channel: &str) -> Value {
    let (status, body) = daemon
        .get_json(&format!("/i18next/{channel}/en/translation.json"))
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn channels_are_published_rolled_back_listed_announced_and_logged() {
    let receiver = Receiver::start(0).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sheet.csv"), sheet("Yes")).unwrap();
    let env = env(&[
        ("DEPOT_WEBHOOKS_URLS", &receiver.url),
        ("DEPOT_WEBHOOKS_SECRET", SECRET),
    ]);
    let daemon = Daemon::start(dir.path(), &[], &refs(&env)).await;
    let first = draft(&daemon, None).await;

    // who may move a channel, and which names and versions
    let cases = [
        (
            "/channels/production/publish",
            None,
            "{}",
            401,
            "missing-api-key",
        ),
        (
            "/channels/production/publish",
            Some(READER),
            "{}",
            403,
            "forbidden",
        ),
        (
            "/channels/draft/publish",
            Some(ADMIN),
            "{}",
            400,
            "invalid-channel",
        ),
        (
            "/channels/Prod/publish",
            Some(ADMIN),
            "{}",
            400,
            "invalid-channel",
        ),
        (
            "/channels/production/publish",
            Some(ADMIN),
            r#"{"version":"1234"}"#,
            400,
            "invalid-version",
        ),
        (
            "/channels/production/publish",
            Some(ADMIN),
            r#"{"version":"deadbeef"}"#,
            404,
            "unknown-version",
        ),
        (
            "/channels/production/publish",
            Some(ADMIN),
            r#"{"vresion":"x"}"#,
            400,
            "invalid-request",
        ),
        (
            "/channels/production/rollback",
            Some(ADMIN),
            "",
            404,
            "unknown-channel",
        ),
        (
            "/channels/draft/rollback",
            Some(ADMIN),
            "",
            400,
            "invalid-channel",
        ),
    ];
    for (path, key, body, status, expected) in cases {
        let reply = post(&daemon, path, key, body).await;
        assert_eq!(
            (reply.status, code(&reply)),
            (status, expected.to_owned()),
            "{path} {body}"
        );
    }
    let (status, _) = daemon
        .get_json("/i18next/production/en/translation.json")
        .await;
    assert_eq!(status, 404);

    // the first publish, of the current version
    let reply = post(&daemon, "/channels/production/publish", Some(ADMIN), "").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let moved = json_of(&reply);
    assert_eq!(
        (
            &moved["channel"],
            &moved["version"],
            &moved["previousVersion"],
            &moved["changed"]
        ),
        (
            &json!("production"),
            &json!(first),
            &Value::Null,
            &json!(true)
        )
    );
    let fingerprint = depot::access::fingerprint(ADMIN);
    assert_eq!(moved["by"], fingerprint);
    // again: nothing changes
    let again = json_of(&post(&daemon, "/channels/production/publish", Some(ADMIN), "{}").await);
    assert_eq!(
        (&again["changed"], &again["version"]),
        (&json!(false), &json!(first))
    );
    let reply = post(&daemon, "/channels/production/rollback", Some(ADMIN), "").await;
    assert_eq!(
        (reply.status, code(&reply)),
        (409, "nothing-to-roll-back".to_owned())
    );

    // a new version of the sheet: draft serves it, production does not until published
    let second = save(&daemon, "Yes!").await;
    assert_eq!(served(&daemon, "draft").await["CORE"]["YES"], "Yes!");
    assert_eq!(served(&daemon, "production").await["CORE"]["YES"], "Yes");
    let body = format!(r#"{{"version":"{}"}}"#, &second[..8].to_uppercase());
    let reply = post(&daemon, "/channels/production/publish", Some(ADMIN), &body).await;
    assert_eq!(
        json_of(&reply)["previousVersion"],
        json!(first),
        "{}",
        reply.text()
    );
    assert_eq!(served(&daemon, "production").await["CORE"]["YES"], "Yes!");
    let reply = post(&daemon, "/channels/production/rollback", Some(ADMIN), "").await;
    let back = json_of(&reply);
    assert_eq!(
        (&back["version"], &back["previousVersion"]),
        (&json!(first), &json!(second))
    );
    assert_eq!(served(&daemon, "production").await["CORE"]["YES"], "Yes");

    // the list: draft, then each channel with its history (newest first) and moves
    let (status, list) = daemon.get_json("/channels").await;
    assert_eq!(status, 200);
    let channels = list["channels"].as_array().unwrap();
    assert_eq!(channels[0]["name"], "draft");
    assert_eq!(channels[0]["version"], json!(second));
    assert_eq!(channels[1]["name"], "production");
    assert_eq!(channels[1]["version"], json!(first));
    let history: Vec<&Value> = (channels[1]["history"].as_array().unwrap().iter())
        .map(|p| &p["version"])
        .collect();
    assert_eq!(history, [&json!(first)]);
    let kinds: Vec<&Value> = (channels[1]["moves"].as_array().unwrap().iter())
        .map(|m| &m["kind"])
        .collect();
    assert_eq!(
        kinds,
        [&json!("rollback"), &json!("publish"), &json!("publish")]
    );

    // every move is a signed webhook and a log line naming who
    let events = eventually(Duration::from_secs(10), || async {
        let events: Vec<Value> = (receiver.deliveries().iter())
            .map(|(signature, body)| verified(signature, body))
            .filter(|body| {
                body["event"]
                    .as_str()
                    .is_some_and(|e| e.starts_with("channel."))
            })
            .collect();
        (events.len() == 3).then_some(events)
    })
    .await
    .unwrap_or_else(|| panic!("{:?}", receiver.deliveries()));
    let rolled = events
        .iter()
        .find(|e| e["event"] == "channel.rolledback")
        .unwrap();
    assert_eq!(
        (
            &rolled["channel"],
            &rolled["version"],
            &rolled["previousVersion"],
            &rolled["by"]
        ),
        (
            &json!("production"),
            &json!(first),
            &json!(second),
            &json!(fingerprint)
        )
    );
    let log = daemon.log();
    let line = format!(
        "channel published channel=\"production\" from=\"(none)\" to=\"{}\" by={fingerprint}",
        &first[..8]
    );
    assert!(log.contains(&line), "{line}\n{log}");
    assert!(!log.contains(ADMIN), "the key itself is never logged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_with_findings_is_refused_unless_forced_and_a_pinned_version_outlives_keep_versions()
 {
    let dir = tempfile::tempdir().unwrap();
    // de names another placeholder than en: a finding of the checks
    std::fs::write(
        dir.path().join("sheet.csv"),
        ">>>,en,de\nHELLO,Hello {name},Hallo {nom}\n",
    )
    .unwrap();
    let env = env(&[("DEPOT_TRANSLATIONS_KEEP_VERSIONS", "2")]);
    let daemon = Daemon::start(dir.path(), &[], &refs(&env)).await;
    let flawed = draft(&daemon, None).await;
    let reply = post(&daemon, "/channels/production/publish", Some(ADMIN), "").await;
    assert_eq!(
        (reply.status, code(&reply)),
        (409, "version-has-findings".to_owned())
    );
    let message = reply.error_message();
    assert!(
        message.starts_with(&format!("version {flawed} has 1 finding(s) of the checks")),
        "{message}"
    );
    assert!(
        message.contains("B2") || message.contains("C2"),
        "{message}"
    );
    let reply = post(
        &daemon,
        "/channels/production/publish",
        Some(ADMIN),
        r#"{"force":true}"#,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());

    // three more versions with keep_versions = 2: the one production points at stays
    for yes in ["a", "b", "c"] {
        save(&daemon, yes).await;
    }
    let (_, versions) = daemon.get_json("/translations/versions").await;
    let kept: Vec<&str> = (versions["versions"].as_array().unwrap().iter())
        .map(|v| v["version"].as_str().unwrap())
        .collect();
    assert_eq!(kept.len(), 3, "{kept:?}");
    assert_eq!(kept[2], flawed);
    assert_eq!(
        served(&daemon, "production").await["HELLO"],
        "Hello {{name}}"
    );
}

/// `depot publish` asks the daemon running on the store (sled holds a lock), and writes
/// the store itself when no daemon runs; the daemon started later serves what it wrote.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn depot_publish_asks_the_running_daemon_and_writes_the_store_when_none_runs() {
    for storage in ["sled", "file"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sheet.csv"), sheet("Yes")).unwrap();
        let listen = format!("127.0.0.1:{}", free_port());
        let mut env = env(&[("DEPOT_TRANSLATIONS_STORAGE", storage)]);
        env.push(("DEPOT_LISTEN".into(), listen.clone()));
        let cli = |args: &[&str], env: &[(String, String)]| {
            support::depot(dir.path())
                .args(args)
                .envs(env.iter().cloned())
                .output()
                .unwrap()
        };
        let mut daemon = Daemon::start_on(dir.path(), &listen, &[], &refs(&env)).await;
        let first = draft(&daemon, None).await;
        let out = cli(&["publish", "production"], &env);
        assert!(
            out.status.success(),
            "{storage}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("production: published {first} (a new channel)\n")
        );
        assert!(
            daemon
                .log()
                .contains("channel published channel=\"production\"")
        );
        // without an admin key it cannot ask, and says so
        let no_key: Vec<(String, String)> = env
            .iter()
            .filter(|(k, _)| k != "DEPOT_ADMIN_KEYS")
            .cloned()
            .collect();
        let out = cli(&["rollback", "production"], &no_key);
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("needs an admin key: set auth.admin_keys"),
            "{stderr}"
        );
        // a bad name is a usage error
        let out = cli(&["publish", "draft"], &env);
        assert_eq!(out.status.code(), Some(2));

        let second = save(&daemon, "Yes!").await;
        assert!(daemon.terminate(Duration::from_secs(20)).is_some());
        // no daemon: the command writes the store itself
        let out = cli(&["publish", "production", &second[..10]], &env);
        assert!(
            out.status.success(),
            "{storage}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("production: published {second} (was {first})\n")
        );
        let out = cli(&["rollback", "production"], &env);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = cli(&["publish", "production"], &env);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let daemon = Daemon::start_on(dir.path(), &listen, &[], &refs(&env)).await;
        assert_eq!(
            served(&daemon, "production").await["CORE"]["YES"],
            "Yes!",
            "{storage}"
        );
        let (_, list) = daemon.get_json("/channels").await;
        let moves = list["channels"][1]["moves"].as_array().unwrap().len();
        assert_eq!(moves, 4, "{storage}: {list}");
        assert_eq!(list["channels"][1]["moves"][0]["by"], "cli");
    }
}

/// The environment that puts a depot command on `redis`.
fn on_redis(redis: &RedisServer, source: &str) -> Vec<(String, String)> {
    let mut env = env(&[("DEPOT_TRANSLATIONS_STORAGE", "redis")]);
    env.push(("DEPOT_TRANSLATIONS_REDIS_URL".into(), redis.url()));
    env.push(("DEPOT_PRODUCER_SOURCE".into(), source.into()));
    env
}

/// On Redis a move on one node is served by the other at once (a subscription to the
/// channels' revisions), and so is one `depot publish` made in Redis itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_redis_a_move_on_one_node_is_served_by_the_other() {
    let redis = RedisServer::start();
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(dir_a.path().join("sheet.csv"), sheet("Yes")).unwrap();
    let env_a = on_redis(&redis, "sheet.csv");
    let mut env_b = on_redis(&redis, "sheet.csv");
    env_b.push(("DEPOT_PRODUCER_ENABLED".into(), "false".into()));
    let a = Daemon::start(dir_a.path(), &[], &refs(&env_a)).await;
    let b = Daemon::start(dir_b.path(), &[], &refs(&env_b)).await;
    let first = draft(&a, None).await;
    assert_eq!(draft(&b, None).await, first);

    let seen_on = |daemon: &Daemon, yes: &'static str| {
        let url = daemon.url("/i18next/production/en/translation.json");
        async move {
            let start = Instant::now();
            eventually(Duration::from_secs(5), || async {
                let body: Value = reqwest::get(&url).await.ok()?.json().await.ok()?;
                (body["CORE"]["YES"] == yes).then_some(())
            })
            .await
            .map(|()| start.elapsed())
        }
    };
    let reply = post(&a, "/channels/production/publish", Some(ADMIN), "").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(seen_on(&b, "Yes").await.is_some(), "{}", b.log());
    let second = save(&a, "Yes!").await;
    let reply = post(&b, "/channels/production/publish", Some(ADMIN), "").await;
    assert_eq!(
        json_of(&reply)["version"],
        json!(second),
        "{}",
        reply.text()
    );
    assert!(seen_on(&a, "Yes!").await.is_some(), "{}", a.log());
    // the node that did not move it logs what it saw
    assert!(
        a.log()
            .contains("channel published (on another node or process) channel=\"production\""),
        "{}",
        a.log()
    );
    // depot publish writes Redis itself; both nodes follow
    let out = support::depot(dir_a.path())
        .args(["rollback", "production"])
        .envs(env_a.iter().cloned())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(seen_on(&a, "Yes").await.is_some());
    assert!(seen_on(&b, "Yes").await.is_some());
}

#[test]
fn private_channels_need_keys_to_read_them_and_valid_names() {
    let dir = tempfile::tempdir().unwrap();
    let check = |env: &[(&str, &str)]| {
        let out = support::depot(dir.path())
            .args(["config", "check"])
            .envs(env.iter().copied())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = check(&[("DEPOT_DELIVERY_PRIVATE_CHANNELS", "beta")]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no key could read them"), "{stderr}");
    let (code, stderr) = check(&[
        ("DEPOT_DELIVERY_PRIVATE_CHANNELS", "Beta"),
        ("DEPOT_API_KEYS", "k"),
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("delivery.private_channels: channel 'Beta' is not a channel name"),
        "{stderr}"
    );
}

/// The console's channels page: every channel with its version; for an admin, a publish and
/// a rollback each confirmed on a page of its own before the form sends it (CSRF token as
/// every console form), the move made with the session's key as who; a reader sees no form.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_publishes_and_rolls_back_after_a_confirmation() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sheet.csv"), sheet("Yes")).unwrap();
    let env = env(&[]);
    let daemon = Daemon::start(dir.path(), &[], &refs(&env)).await;
    let first = draft(&daemon, None).await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let login = |key: &'static str| {
        let client = client.clone();
        let url = daemon.url("/console/login");
        async move {
            let response = client.post(url).form(&[("key", key)]).send().await.unwrap();
            assert_eq!(response.status(), 303);
            let cookie = response.headers()["set-cookie"]
                .to_str()
                .unwrap()
                .to_owned();
            cookie.split(';').next().unwrap().to_owned()
        }
    };
    let page = |path: String, cookie: String| {
        let client = client.clone();
        let url = daemon.url(&path);
        async move {
            let response = client
                .get(url)
                .header("cookie", cookie)
                .send()
                .await
                .unwrap();
            (response.status().as_u16(), response.text().await.unwrap())
        }
    };
    // a reader sees the channels, no form
    let reader = login(READER).await;
    let (status, html) = page("/console/channels".into(), reader.clone()).await;
    assert_eq!(status, 200);
    assert!(
        html.contains("<strong>draft</strong>") && html.contains(&first[..8]),
        "{html}"
    );
    assert!(!html.contains("Publish…"), "{html}");
    let (status, _) = page(
        "/console/channels?confirm=publish&channel=production".into(),
        reader,
    )
    .await;
    assert_eq!(status, 403);

    // an admin confirms, then publishes
    let admin = login(ADMIN).await;
    let (status, html) = page(
        format!(
            "/console/channels?confirm=publish&channel=production&version={}",
            &first[..8]
        ),
        admin.clone(),
    )
    .await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("Publish to production?"), "{html}");
    assert!(
        html.contains(&format!("name=\"version\" value=\"{first}\"")),
        "{html}"
    );
    let at = html.find("name=\"csrf\" value=\"").unwrap() + 19;
    let csrf = html[at..at + 64].to_owned();
    let send = |fields: Vec<(&'static str, String)>| {
        let client = client.clone();
        let url = daemon.url("/console/channels");
        let cookie = admin.clone();
        async move {
            let response = client
                .post(url)
                .header("cookie", cookie)
                .form(&fields)
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            let location = response
                .headers()
                .get("location")
                .map(|l| l.to_str().unwrap().to_owned());
            (status, location)
        }
    };
    let without_csrf = vec![
        ("action", "publish".to_owned()),
        ("channel", "production".to_owned()),
        ("version", first.clone()),
    ];
    assert_eq!(send(without_csrf.clone()).await.0, 403);
    let mut fields = without_csrf;
    fields.push(("csrf", csrf.clone()));
    assert_eq!(
        send(fields).await,
        (303, Some("/console/channels?moved=production".to_owned()))
    );
    assert_eq!(served(&daemon, "production").await["CORE"]["YES"], "Yes");
    let second = save(&daemon, "Yes!").await;
    let fields = vec![
        ("action", "publish".to_owned()),
        ("channel", "production".to_owned()),
        ("version", second.clone()),
        ("csrf", csrf.clone()),
    ];
    assert_eq!(send(fields).await.0, 303);
    // the rollback, confirmed
    let (status, html) = page(
        "/console/channels?confirm=rollback&channel=production".into(),
        admin.clone(),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        html.contains("Roll back production?") && html.contains(&first),
        "{html}"
    );
    let fields = vec![
        ("action", "rollback".to_owned()),
        ("channel", "production".to_owned()),
        ("csrf", csrf),
    ];
    assert_eq!(send(fields).await.0, 303);
    assert_eq!(served(&daemon, "production").await["CORE"]["YES"], "Yes");
    let (_, html) = page("/console/channels?moved=production".into(), admin).await;
    assert!(html.contains("production now points at"), "{html}");
    let who = format!("console, {}", depot::access::fingerprint(ADMIN));
    assert!(
        html.contains(&format!("rolled back <code>{}</code>", &second[..8])),
        "{html}"
    );
    assert!(html.contains(&who), "{html}");
}
