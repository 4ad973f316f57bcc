//! A reverse-proxy cache in front of depot (SPEC §14 "Caching as CDNs expect"): nginx from
//! apt caching as depot's headers say, and the four client libraries loading through it.
//! After their first round of loads, a second round is answered by the cache (depot sees
//! only revalidations of channel URLs and manifests, never a bundle asked twice), a
//! hash-named bundle is cached for good, and a publish reaches an app that reloads through
//! the cache within the channel URLs' lifetime.
#![cfg(test)]

mod support;

use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use support::nginx::Nginx;
use support::sdk_app::{self, App, LIBRARIES};
use support::{Daemon, eventually};

const ADMIN: &str = "admin-key-for-cdn";
/// The channel URLs' and manifests' lifetime in the test.
const MAX_AGE: u64 = 10;

/// Requests depot answered, per (route, status), from its /metrics.
async fn requests(daemon: &Daemon) -> BTreeMap<(String, String), u64> {
    let text = daemon.get("/metrics").await.text().await.unwrap();
    text.lines()
        .filter_map(|line| line.strip_prefix("depot_http_requests_total{"))
        .filter_map(|rest| {
            let (labels, count) = rest.split_once("} ")?;
            let label = |name: &str| {
                let start = labels.find(&format!("{name}=\""))? + name.len() + 2;
                Some(labels[start..].split('"').next()?.to_owned())
            };
            Some((
                (label("route")?, label("status")?),
                count.trim().parse().ok()?,
            ))
        })
        .filter(|((route, _), _)| route != "/metrics")
        .collect()
}

/// What depot answered between two readings of `requests`.
fn since(
    before: &BTreeMap<(String, String), u64>,
    after: &BTreeMap<(String, String), u64>,
) -> BTreeMap<(String, String), u64> {
    (after.iter())
        .map(|(k, n)| (k.clone(), n - before.get(k).copied().unwrap_or(0)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// Every library loads the sheet through `base`, at the same time (as many apps do).
fn round(base: &str) -> Vec<App> {
    let starts: Vec<_> = LIBRARIES
        .iter()
        .map(|library| {
            let base = base.to_owned();
            std::thread::spawn(move || App::start(library, &base, "production", json!({})))
        })
        .collect();
    starts
        .into_iter()
        .zip(LIBRARIES)
        .map(|(start, library)| {
            let (app, loaded) = start.join().unwrap();
            assert_eq!(loaded["texts"], sdk_app::expected("Yes"), "{library}");
            app
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_proxy_cache_depot_sees_only_channel_revalidations_and_a_publish_shows_within_max_age()
 {
    let dir = tempfile::tempdir().unwrap();
    sdk_app::write_sheet(&dir.path().join("sheet"), "Yes");
    let max_age = MAX_AGE.to_string();
    let daemon = Daemon::start(
        dir.path(),
        &["--set", "producer.source=sheet"],
        &[
            ("DEPOT_ADMIN_KEYS", ADMIN),
            ("DEPOT_DELIVERY_MAX_AGE_SECS", &max_age),
        ],
    )
    .await;
    let publish = || async {
        let response = reqwest::Client::new()
            .post(daemon.url("/channels/production/publish"))
            .bearer_auth(ADMIN)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        response.json::<serde_json::Value>().await.unwrap()
    };
    let first = eventually(Duration::from_secs(20), || async {
        let (status, _) = daemon.get_json("/i18next/draft/en/common.json").await;
        (status == 200).then_some(())
    })
    .await;
    assert!(first.is_some(), "{}", daemon.log());
    publish().await;
    let nginx = Nginx::start(&daemon.addr);

    let before_first = requests(&daemon).await;
    let _first_round = round(&nginx.base);
    let first_round = since(&before_first, &requests(&daemon).await);
    assert!(!first_round.is_empty());

    // the second round comes from the cache: depot sees no bundle again, only (after
    // max-age) a revalidation of a channel URL or manifest, answered 304
    let seen = nginx.requests().len();
    let before = requests(&daemon).await;
    let _second_round = round(&nginx.base);
    let second_round = since(&before, &requests(&daemon).await);
    for ((route, status), n) in &second_round {
        assert_eq!(
            status, "304",
            "depot answered {n} × {status} on {route} in the second round"
        );
        assert_ne!(route, "/bundles/{bundle}");
    }
    let cached: Vec<_> = nginx.requests().split_off(seen);
    assert!(!cached.is_empty());
    for (uri, cache, status) in &cached {
        assert!(
            matches!(cache.as_str(), "HIT" | "REVALIDATED"),
            "{uri}: {cache} {status} in the second round\n{}",
            nginx.error_log()
        );
    }

    println!(
        "second round: {} requests to the cache, depot answered {second_round:?}",
        cached.len()
    );

    // the headers a CDN keys on, and a hash-named bundle cached for good
    let through = reqwest::get(format!("{}/i18next/production/de/common.json", nginx.base))
        .await
        .unwrap();
    let header = |name: &str| {
        through
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    assert_eq!(
        header("cache-control").as_deref(),
        Some("public, max-age=10")
    );
    let location = header("content-location").unwrap();
    let etag = header("etag").unwrap();
    assert_eq!(
        etag,
        format!("\"{}\"", &location["/bundles/".len()..location.len() - 5])
    );
    for expected in ["MISS", "HIT"] {
        let response = reqwest::get(format!("{}{location}", nginx.base))
            .await
            .unwrap();
        assert_eq!(
            response.headers()["cache-control"],
            "public, max-age=31536000, immutable"
        );
        assert_eq!(response.headers()["x-cache-status"], expected);
    }

    // a new version published: an app reloading through the cache gets it within max-age
    let (mut app, _) = App::start("i18next-http", &nginx.base, "production", json!({}));
    sdk_app::write_sheet(&dir.path().join("sheet"), "Yes!");
    let draft = eventually(Duration::from_secs(20), || async {
        let (_, body) = daemon.get_json("/i18next/draft/en/common.json").await;
        (body["CORE"]["YES"] == "Yes!").then_some(())
    })
    .await;
    assert!(draft.is_some(), "{}", daemon.log());
    publish().await;
    let published = Instant::now();
    let deadline = Duration::from_secs(MAX_AGE + 3);
    loop {
        let texts = app.reload()["texts"].clone();
        if texts == sdk_app::expected("Yes!") {
            break;
        }
        assert_eq!(texts, sdk_app::expected("Yes"));
        assert!(
            published.elapsed() < deadline,
            "the publish was not seen through the cache within {deadline:?}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    println!(
        "publish seen through the cache after {:?} (max-age {MAX_AGE} s)",
        published.elapsed()
    );
}
