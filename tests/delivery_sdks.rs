//! Delivery to running apps with the SDKs they already use (SPEC §14), through the real
//! binary and the real client libraries from npm: i18next with i18next-http-backend (one
//! namespace a request, and the multi-load form), i18next with i18next-locize-backend
//! (public and private channel, `/languages` and its 90% rule) and `@tolgee/web` with
//! `BackendFetch` and namespaces each load a three-tab sheet in two locales, every text
//! and plural form; a publish reaches an app that reloads, a rollback brings the old texts
//! back (tests/node/delivery.mjs is the app, configured as the README shows).
#![cfg(test)]

mod support;

use serde_json::{Value, json};
use std::time::Duration;
use support::sdk_app::{self, App, LIBRARIES};
use support::{Daemon, eventually};

const ADMIN: &str = "admin-key-for-delivery";
const READER: &str = "reader-key-for-delivery";

/// A daemon serving the three-tab sheet of `sdk_app` from a folder of .csv files, with
/// channel URLs that live one second (so that a locize app's cache of them expires at once)
/// and `beta` a private channel.
async fn daemon(dir: &std::path::Path) -> Daemon {
    sdk_app::write_sheet(&dir.join("sheet"), "Yes");
    let daemon = Daemon::start(
        dir,
        &["--set", "producer.source=sheet"],
        &[
            ("DEPOT_ADMIN_KEYS", ADMIN),
            ("DEPOT_API_KEYS", READER),
            ("DEPOT_DELIVERY_MAX_AGE_SECS", "1"),
            ("DEPOT_DELIVERY_PRIVATE_CHANNELS", "beta"),
        ],
    )
    .await;
    draft_version(&daemon, None).await;
    daemon
}

/// The version draft serves, once it is not `other`.
async fn draft_version(daemon: &Daemon, other: Option<&str>) -> String {
    eventually(Duration::from_secs(20), || async {
        let (status, body) = daemon.get_json("/channels").await;
        let version = body["channels"][0]["version"].as_str()?.to_owned();
        (status == 200 && Some(version.as_str()) != other).then_some(version)
    })
    .await
    .unwrap_or_else(|| panic!("draft never moved from {other:?}\n{}", daemon.log()))
}

/// `POST /channels/{channel}/{verb}` with the admin key; the answer's body.
async fn admin(daemon: &Daemon, channel: &str, verb: &str, body: Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(daemon.url(&format!("/channels/{channel}/{verb}")))
        .bearer_auth(ADMIN)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// Each library loads every text of the sheet from `production`; a new version of the
/// sheet reaches them only when it is published there, and a rollback brings the old
/// texts back, each seen by the app when it reloads.
async fn an_app_loads_every_text_and_follows_publish_and_rollback(library: &str) {
    let dir = tempfile::tempdir().unwrap();
    let daemon = daemon(dir.path()).await;
    let first = draft_version(&daemon, None).await;
    let (status, moved) = admin(&daemon, "production", "publish", json!({})).await;
    assert_eq!(
        (status, moved["version"].as_str()),
        (200, Some(first.as_str())),
        "{moved}"
    );

    let (mut app, loaded) = App::start(library, &daemon.base, "production", json!({}));
    assert_eq!(loaded["texts"], sdk_app::expected("Yes"), "{library}");

    // the sheet changes: draft follows, production does not
    sdk_app::write_sheet(&dir.path().join("sheet"), "Yes!");
    let second = draft_version(&daemon, Some(&first)).await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(app.reload()["texts"], sdk_app::expected("Yes"), "{library}");

    let (status, moved) = admin(
        &daemon,
        "production",
        "publish",
        json!({"version": &second[..8]}),
    )
    .await;
    assert_eq!(status, 200, "{moved}");
    assert_eq!(
        (moved["previousVersion"].as_str(), moved["version"].as_str()),
        (Some(first.as_str()), Some(second.as_str()))
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(
        app.reload()["texts"],
        sdk_app::expected("Yes!"),
        "{library}"
    );

    let (status, back) = admin(&daemon, "production", "rollback", json!({})).await;
    assert_eq!(
        (status, back["version"].as_str()),
        (200, Some(first.as_str())),
        "{back}"
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(app.reload()["texts"], sdk_app::expected("Yes"), "{library}");
    // the moves were logged with who made them
    let log = daemon.log();
    assert!(
        log.contains("channel rolled back channel=\"production\""),
        "{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i18next_http_backend_loads_every_text_and_follows_the_channel() {
    an_app_loads_every_text_and_follows_publish_and_rollback(LIBRARIES[0]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i18next_http_backend_multi_loading_loads_every_text_and_follows_the_channel() {
    an_app_loads_every_text_and_follows_publish_and_rollback(LIBRARIES[1]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i18next_locize_backend_loads_every_text_and_follows_the_channel() {
    an_app_loads_every_text_and_follows_publish_and_rollback(LIBRARIES[2]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tolgee_web_backend_fetch_loads_every_text_and_follows_the_channel() {
    an_app_loads_every_text_and_follows_publish_and_rollback(LIBRARIES[3]).await;
}

/// `/languages` gives each locale its names and share per channel; the locize backend keeps
/// the languages at 90% or more (fr has a sixth of the keys) and takes the reference
/// language from it. A private channel is read through the private path with the key in
/// `Authorization` (as the backend sends its apiKey), and refused without one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn locize_languages_apply_the_90_percent_rule_and_private_channels_need_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = daemon(dir.path()).await;
    let (status, _) = admin(&daemon, "beta", "publish", json!({})).await;
    assert_eq!(status, 200);
    let (status, languages) = daemon.get_json("/locize/languages/depot").await;
    assert_eq!(status, 200);
    // in the sheet's order
    let order: Vec<&String> = languages.as_object().unwrap().keys().collect();
    assert_eq!(order, ["en", "de", "fr"]);
    assert_eq!(
        languages,
        json!({
            "de": {"name": "German", "nativeName": "Deutsch", "isReferenceLanguage": false,
                   "translated": {"draft": 1.0, "beta": 1.0}},
            "en": {"name": "English", "nativeName": "English", "isReferenceLanguage": true,
                   "translated": {"draft": 1.0, "beta": 1.0}},
            "fr": {"name": "French", "nativeName": "français", "isReferenceLanguage": false,
                   "translated": {"draft": 0.1666, "beta": 0.1666}},
        })
    );
    let (status, _) = daemon.get_json("/locize/languages/other-project").await;
    assert_eq!(status, 404);

    let (_app, loaded) = App::start(
        "locize",
        &daemon.base,
        "beta",
        json!({"private": true, "apiKey": READER}),
    );
    assert_eq!(loaded["texts"], sdk_app::expected("Yes"));
    assert_eq!(loaded["supportedLngs"], json!(["en", "de"]));
    assert_eq!(loaded["referenceLng"], "en");

    // without the key, or with another, a private channel is not served
    for (path, key) in [
        ("/locize/depot/beta/en/common", None),
        ("/locize/private/depot/beta/en/common", None),
        ("/i18next/beta/en/common.json", Some("Bearer nope")),
        ("/tolgee/beta/common/en.json", None),
    ] {
        let mut request = reqwest::Client::new().get(daemon.url(path));
        if let Some(key) = key {
            request = request.header("authorization", key);
        }
        let reply = support::HttpReply::read(request.send().await.unwrap()).await;
        assert_eq!(reply.status, 401, "{path}");
        reply.error_message();
    }
    // with it, privately cached
    let reply = support::HttpReply::read(
        reqwest::Client::new()
            .get(daemon.url("/i18next/beta/en/common.json"))
            .bearer_auth(READER)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("cache-control"), Some("private, max-age=1"));
}
