//! Delivery to running apps with the SDKs they already use (SPEC §14), through the real
//! binary and the real client libraries from npm: i18next with i18next-http-backend (one
//! namespace a request, and the multi-load form), i18next with i18next-locize-backend
//! (public and private channel, `/languages` and its 90% rule) and `@tolgee/web` with
//! `BackendFetch` and namespaces each load a three-tab sheet in two locales, every text
//! and plural form; a publish reaches an app that reloads, a rollback brings the old texts
//! back. tests/node/delivery.mjs is the app; the README's configuration of each library
//! ("Apps that fetch texts at run time") is run as written.
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
    daemon_with(dir, &[]).await
}

/// `daemon`, with more of the environment.
async fn daemon_with(dir: &std::path::Path, more: &[(&str, &str)]) -> Daemon {
    sdk_app::write_sheet(&dir.join("sheet"), "Yes");
    let mut env = vec![
        ("DEPOT_ADMIN_KEYS", ADMIN),
        ("DEPOT_API_KEYS", READER),
        ("DEPOT_DELIVERY_MAX_AGE_SECS", "1"),
        ("DEPOT_DELIVERY_PRIVATE_CHANNELS", "beta"),
    ];
    env.extend_from_slice(more);
    let daemon = Daemon::start(dir, &["--set", "producer.source=sheet"], &env).await;
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
/// texts back, each seen by the app when it reloads. `library` names the app `start`s
/// (given the daemon's base URL).
async fn an_app_loads_every_text_and_follows_publish_and_rollback(
    library: &str,
    start: impl Fn(&str) -> (App, Value),
) {
    let dir = tempfile::tempdir().unwrap();
    let daemon = daemon(dir.path()).await;
    let first = draft_version(&daemon, None).await;
    let (status, moved) = admin(&daemon, "production", "publish", json!({})).await;
    assert_eq!(
        (status, moved["version"].as_str()),
        (200, Some(first.as_str())),
        "{moved}"
    );

    let (mut app, loaded) = start(&daemon.base);
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

/// The README's configuration of a library ("Apps that fetch texts at run time"), run as
/// written but for its URL.
fn readme(package: &'static str) -> impl Fn(&str) -> (App, Value) {
    move |base| App::from_readme(package, base)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i18next_http_backend_as_the_readme_shows_loads_every_text_and_follows_the_channel() {
    let package = "i18next-http-backend";
    an_app_loads_every_text_and_follows_publish_and_rollback(package, readme(package)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i18next_http_backend_multi_loading_loads_every_text_and_follows_the_channel() {
    an_app_loads_every_text_and_follows_publish_and_rollback(LIBRARIES[1], |base| {
        App::start(LIBRARIES[1], base, "production", json!({}))
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i18next_locize_backend_as_the_readme_shows_loads_every_text_and_follows_the_channel() {
    let package = "i18next-locize-backend";
    an_app_loads_every_text_and_follows_publish_and_rollback(package, readme(package)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tolgee_web_as_the_readme_shows_loads_every_text_and_follows_the_channel() {
    let package = "@tolgee/web";
    an_app_loads_every_text_and_follows_publish_and_rollback(package, readme(package)).await;
}

/// The README shows one configuration per library, and nothing else in ```js blocks.
#[test]
fn the_readme_shows_one_configuration_per_library() {
    let imports: Vec<Vec<String>> = (sdk_app::readme_blocks().iter())
        .map(|block| {
            (block.lines())
                .filter_map(|l| {
                    l.strip_prefix("import ")?
                        .split_once(" from ")?
                        .1
                        .strip_suffix(';')
                })
                .map(|p| p.trim_matches('"').to_owned())
                .collect()
        })
        .collect();
    assert_eq!(
        imports,
        [
            vec!["i18next", "i18next-http-backend"],
            vec!["i18next", "i18next-locize-backend"],
            vec!["@tolgee/web", "@tolgee/format-icu"],
        ]
    );
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

/// Wrong keys sent to the SDK URLs, bare (as i18next-locize-backend sends its apiKey) or as
/// `Bearer`, go through the same throttle as every API key: after
/// `limits.api_key_attempts` of them the address waits (429 `too-many-key-failures` with
/// `Retry-After`, the right key too), and each wrong key is a WARN line without the key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_keys_on_sdk_urls_are_throttled_and_logged() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = daemon_with(
        dir.path(),
        &[
            ("DEPOT_API_KEY_ATTEMPTS", "3"),
            ("DEPOT_API_KEY_REFILL_SECS", "60"),
        ],
    )
    .await;
    let (status, _) = admin(&daemon, "beta", "publish", json!({})).await;
    assert_eq!(status, 200);
    let get = |path: &'static str, key: &'static str| {
        let request = reqwest::Client::new()
            .get(daemon.url(path))
            .header("authorization", key);
        async move { support::HttpReply::read(request.send().await.unwrap()).await }
    };
    let code = |reply: &support::HttpReply| {
        let body: Value = serde_json::from_slice(&reply.body).unwrap();
        (reply.status, body["code"].as_str().unwrap().to_owned())
    };
    for (path, key) in [
        ("/locize/private/depot/beta/en/common", "guess-1"),
        ("/i18next/beta/en/common.json", "Bearer guess-2"),
        ("/tolgee/beta/manifest.json", "guess-3"),
    ] {
        let reply = get(path, key).await;
        assert_eq!(code(&reply), (401, "invalid-api-key".into()), "{path}");
    }
    for (path, key) in [
        ("/locize/private/depot/beta/en/common", "guess-4"),
        ("/locize/private/depot/beta/en/common", READER),
        ("/i18next/beta?lng=en&ns=common", "Bearer guess-5"),
    ] {
        let reply = get(path, key).await;
        assert_eq!(
            code(&reply),
            (429, "too-many-key-failures".into()),
            "{path} {key}"
        );
        assert_eq!(reply.header("retry-after"), Some("60"), "{path}");
    }
    let warned = |log: &str| {
        (log.lines())
            .filter(|l| l.contains("WARN") && l.contains("API request refused: wrong API key"))
            .count()
    };
    eventually(Duration::from_secs(5), || async {
        (warned(&daemon.log()) >= 3).then_some(())
    })
    .await;
    let log = daemon.log();
    assert_eq!(warned(&log), 3, "{log}");
    assert!(!log.contains("guess-"), "{log}");
}

/// `translations.locales` names the locales of each SDK layout: Tolgee's manifest lists the
/// name and its URL answers to it (the sheet's code too), locize's languages keep their
/// own names; plain `/translations` uses its format's names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_urls_and_lists_use_the_locale_names_of_their_layout() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = daemon_with(
        dir.path(),
        &[("DEPOT_TRANSLATIONS_LOCALES", "tolgee:de=de-AT,*:fr=fr-CA")],
    )
    .await;
    let (status, manifest) = daemon.get_json("/tolgee/draft/manifest.json").await;
    assert_eq!(
        (status, manifest),
        (200, json!({"locales": ["en", "de-AT", "fr-CA"]}))
    );
    for path in [
        "/tolgee/draft/home/de-AT.json",
        "/tolgee/draft/home/de.json",
    ] {
        let (status, body) = daemon.get_json(path).await;
        assert_eq!((status, body), (200, json!({"TITLE": "Start"})), "{path}");
    }
    let (status, languages) = daemon.get_json("/locize/languages/depot").await;
    assert_eq!(status, 200);
    let order: Vec<&String> = languages.as_object().unwrap().keys().collect();
    assert_eq!(order, ["en", "de", "fr-CA"]);
    let (status, _) = daemon.get_json("/i18next/draft/de-AT/home.json").await;
    assert_eq!(status, 404);
    // plain /translations names the locales as its format does (filters keep the codes)
    let (status, body) = daemon.get_json("/translations?format=json").await;
    assert_eq!(status, 200, "{body}");
    let order: Vec<&String> = body.as_object().unwrap().keys().collect();
    assert_eq!(order, ["en", "de", "fr-CA"], "{body}");
    let (status, body) = daemon
        .get_json("/translations?format=json&filters[]=fr")
        .await;
    assert_eq!(status, 200, "{body}");
    let order: Vec<&String> = body.as_object().unwrap().keys().collect();
    assert_eq!(order, ["fr-CA"], "{body}");

    // the same version served with other names is another body: another ETag, so a
    // client (or a cache) holding the old one gets the new body, not a 304
    let other = tempfile::tempdir().unwrap();
    let plain = daemon_with(other.path(), &[]).await;
    let etag = |r: reqwest::Response| r.headers()["etag"].to_str().unwrap().to_owned();
    let named = etag(daemon.get("/translations?format=json").await);
    let unnamed = etag(plain.get("/translations?format=json").await);
    assert_eq!(
        draft_version(&daemon, None).await,
        draft_version(&plain, None).await
    );
    assert_ne!(named, unnamed);
}
