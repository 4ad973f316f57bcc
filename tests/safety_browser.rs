//! Safety of the console in a real browser (headless Chromium over WebDriver, SPEC §10):
//! hostile HTML and SVG objects opened through their signed URLs by a logged-in admin are
//! saved, run nothing and reach nothing of the console, while images, audio and text still
//! show; an object whose type is not one media type (`video/mp4; a=b, text/html`) is never
//! shown as a page of depot's origin; a login form on another site does not log the
//! browser in; `next=` cannot lead off-site. Screenshots go to `target/console-screenshots/`.
#![cfg(test)]

#[path = "support/browser.rs"]
mod browser;
mod support;

use browser::Browser;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::{Daemon, eventually};
use thirtyfour::prelude::*;

const READER: &str = "reader-key-1";
const ADMIN: &str = "admin-key-1";

fn screenshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/console-screenshots")
}

/// What a hostile object's script does with an admin's session on depot's origin: read the
/// console (its CSRF token), sync, upload, and mark the page at each step.
const ATTACK: &str = r#"
var root = document.documentElement;
root.setAttribute('data-pwned', 'ran');
fetch('/').then(function (r) { return r.text(); }).then(function (html) {
  var m = html.match(/name="csrf" value="([0-9a-f]{64})"/);
  root.setAttribute('data-pwned', m ? 'read the CSRF token' : 'read the console');
  if (!m) { return; }
  var upload = new FormData();
  upload.append('csrf', m[1]);
  upload.append('bucket', 'depot');
  upload.append('permission', 'public');
  upload.append('file', new Blob(['planted']), 'planted.html');
  return Promise.all([
    fetch('/console/sync', { method: 'POST', body: new URLSearchParams({ csrf: m[1] }) }),
    fetch('/console/upload', { method: 'POST', body: upload })
  ]).then(function (answers) {
    root.setAttribute('data-pwned', 'posted ' + answers.map(function (a) { return a.status; }).join(','));
  });
}).catch(function (e) { root.setAttribute('data-pwned', 'failed: ' + e); });
"#;

fn hostile_html() -> String {
    format!("<!doctype html><title>hostile</title><p>hostile page</p><script>{ATTACK}</script>")
}

fn hostile_svg() -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"50\" \
         onload=\"document.documentElement.setAttribute('data-onload', 'ran')\">\
         <text x=\"10\" y=\"30\">hostile drawing</text>\
         <script><![CDATA[{ATTACK}]]></script></svg>"
    )
}

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0x60, 0xf8, 0x5f,
    0x0f, 0x00, 0x02, 0x87, 0x01, 0x80, 0xeb, 0x47, 0xba, 0x92, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// One second of a 440 Hz tone: 8 kHz, 16-bit mono PCM in a WAV file.
fn wav() -> Vec<u8> {
    let samples: Vec<u8> = (0..8000)
        .flat_map(|i| {
            {
                let t = f64::from(i) / 8000.0;
                ((t * 440.0 * std::f64::consts::TAU).sin() * 8000.0) as i16
            }
            .to_le_bytes()
        })
        .collect();
    let mut out = Vec::new();
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    for field in [16u32, 1 | (1 << 16), 8000, 16000, 2 | (16 << 16)] {
        out.extend_from_slice(&field.to_le_bytes());
    }
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    out.extend_from_slice(&samples);
    out
}

/// Adds the files to the catalogue and the object store (before the daemon starts); their
/// keys, in order.
fn add_files(dir: &Path, files: &[(&str, &[u8])]) -> Vec<String> {
    for (name, content) in files {
        std::fs::write(dir.join(name), content).unwrap();
    }
    let mut args = vec!["files", "add"];
    args.extend(files.iter().map(|(name, _)| *name));
    let output = support::run_ok(dir, &args, [("X", "")]);
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            record["key"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// Opens the object `key` through its signed URL, as the admin would from the console.
async fn open(browser: &Browser, daemon: &Daemon, key: &str) {
    let url = daemon.signed_url(key, ADMIN).await;
    browser.driver.goto(url).await.unwrap();
}

/// Whether a file with `content` lands in `folder` (which held `before` files), within a
/// few seconds: a download finished.
async fn downloaded(folder: &Path, before: usize, content: &[u8]) -> bool {
    eventually(Duration::from_secs(10), || async {
        let files: Vec<PathBuf> = std::fs::read_dir(folder)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        (files.len() > before
            && files
                .iter()
                .any(|file| std::fs::read(file).is_ok_and(|bytes| bytes == content)))
        .then_some(())
    })
    .await
    .is_some()
}

/// Runs `script` in the page until `done` holds of its value, for at most `limit`: the
/// value then, or `None`.
async fn poll(
    browser: &Browser,
    script: &str,
    limit: Duration,
    done: impl Fn(&serde_json::Value) -> bool,
) -> Option<serde_json::Value> {
    eventually(limit, || async {
        let value = browser.driver.execute(script, vec![]).await.unwrap();
        let value = value.json().clone();
        done(&value).then_some(value)
    })
    .await
}

/// Logs in through the console's form with `key`.
async fn log_in(browser: &Browser, key: &str) {
    let input = browser.driver.find(By::Id("key")).await.unwrap();
    input.send_keys(key).await.unwrap();
    browser
        .driver
        .find(By::XPath("//button[normalize-space(.)='Log in']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// What the console's sync and catalogue look like now: the last sync and the record count.
async fn console_state(daemon: &Daemon) -> (serde_json::Value, serde_json::Value) {
    let (_, health) = daemon.get_json("/health").await;
    let files: serde_json::Value = reqwest::Client::new()
        .get(daemon.url("/files"))
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (
        health["translations"]["lastSyncAt"].clone(),
        files["meta"]["total"].clone(),
    )
}

#[tokio::test]
async fn hostile_objects_opened_by_an_admin_run_nothing_and_reach_nothing_of_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let (html, svg, wav) = (hostile_html(), hostile_svg(), wav());
    let keys = add_files(
        dir.path(),
        &[
            ("hostile.html", html.as_bytes()),
            ("hostile.svg", svg.as_bytes()),
            ("picture.png", PNG),
            ("tone.wav", &wav),
            ("notes.txt", b"plain notes <b>not bold</b>"),
        ],
    );
    // Every request is logged (log.requests): the log shows that no form was sent.
    let daemon = Daemon::start(
        dir.path(),
        &[],
        &[
            ("DEPOT_API_KEYS", READER),
            ("DEPOT_ADMIN_KEYS", ADMIN),
            ("DEPOT_LOG_REQUESTS", "true"),
        ],
    )
    .await;
    // The start-up sync is done before anything is compared with it.
    eventually(Duration::from_secs(10), || async {
        let (_, health) = daemon.get_json("/health").await;
        (!health["translations"]["lastSyncAt"].is_null()).then_some(())
    })
    .await
    .expect("the start-up sync runs");
    let before = console_state(&daemon).await;

    let downloads = dir.path().join("downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    let browser = Browser::start(&downloads).await;
    browser
        .driver
        .goto(daemon.url("/console/login"))
        .await
        .unwrap();
    log_in(&browser, ADMIN).await;
    browser.wait_for_text("Sync now").await;

    for (key, name, content) in [
        (&keys[0], "hostile-html", html.as_bytes()),
        (&keys[1], "hostile-svg", svg.as_bytes()),
    ] {
        let saved = std::fs::read_dir(&downloads).unwrap().count();
        open(&browser, &daemon, key).await;
        // Not a type a browser shows by itself: saved, not rendered.
        assert!(
            downloaded(&downloads, saved, content).await,
            "{name} was not saved"
        );
        // Given the time the script would need (it needs a few milliseconds), no step of it
        // ever marks the page.
        let marked = poll(
            &browser,
            "var r = document.documentElement; \
             return [r.getAttribute('data-pwned'), r.getAttribute('data-onload')];",
            Duration::from_secs(3),
            |marks| *marks != serde_json::json!([null, null]),
        )
        .await;
        browser.screenshot(&screenshots(), name).await;
        assert_eq!(marked, None, "{name} ran script on depot's origin");
    }
    // Nothing reached the console: no sync, no upload, no request to its forms.
    assert_eq!(console_state(&daemon).await, before);
    let log = daemon.log();
    for path in ["path=/console/sync", "path=/console/upload"] {
        assert!(!log.contains(path), "{path} was requested:\n{log}");
    }

    // What objects are for still shows: an image, audio (its player loads it), text as text.
    open(&browser, &daemon, &keys[2]).await;
    let shown = poll(
        &browser,
        "var i = document.images[0]; return i && i.complete ? i.naturalWidth : 0;",
        Duration::from_secs(5),
        |width| *width == 1,
    )
    .await;
    assert!(shown.is_some(), "the PNG does not show");
    open(&browser, &daemon, &keys[3]).await;
    let playable = poll(
        &browser,
        "var m = document.querySelector('video, audio'); return m ? m.readyState : -1;",
        Duration::from_secs(5),
        |state| state.as_i64().unwrap_or(-1) >= 1,
    )
    .await;
    assert!(playable.is_some(), "the WAV does not load in the player");
    open(&browser, &daemon, &keys[4]).await;
    let text = browser.wait_for_text("plain notes").await;
    assert!(text.contains("<b>not bold</b>"), "{text}");

    // The admin's session is intact.
    browser.driver.goto(daemon.url("/")).await.unwrap();
    browser.wait_for_text("Sync now").await;
    browser.quit().await;
}

#[tokio::test]
async fn an_object_whose_type_is_not_one_media_type_is_never_shown_with_depots_origin() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(
        dir.path(),
        &[],
        &[
            ("DEPOT_API_KEYS", READER),
            ("DEPOT_ADMIN_KEYS", ADMIN),
            ("DEPOT_PRODUCER_ENABLED", "false"),
        ],
    )
    .await;
    // The reported type and its variants: a second type after a comma (which Chromium takes
    // as the type), in capitals, with blanks, behind a quoted comma; an SVG type with a
    // parameter that is not one.
    let types = [
        "video/mp4; a=b, text/html",
        "text/html, video/mp4",
        "video/mp4;x=\"a,b\", text/html",
        "VIDEO/MP4; A=B, TEXT/HTML",
        " video/mp4 ,  text/html ",
        "image/svg+xml;foo",
    ];
    let mut objects = Vec::new();
    for (i, file_type) in types.iter().enumerate() {
        let page = format!(
            "<!doctype html><title>hostile</title><p>hostile page {i}</p>\
             <svg xmlns=\"http://www.w3.org/2000/svg\"><text>hostile drawing {i}</text></svg>"
        );
        let key = daemon
            .upload(ADMIN, "object", file_type, page.as_bytes())
            .await;
        objects.push((file_type, key, page));
    }
    let downloads = dir.path().join("downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    let browser = Browser::start(&downloads).await;
    for (i, (file_type, key, page)) in objects.iter().enumerate() {
        browser
            .driver
            .goto(daemon.url("/console/login"))
            .await
            .unwrap();
        browser.wait_for_text("API key").await;
        let saved = std::fs::read_dir(&downloads).unwrap().count();
        open(&browser, &daemon, key).await;
        // Shown as a page of depot's origin: the page's text, and an origin that is not the
        // sandbox's opaque one.
        let shown = poll(
            &browser,
            &format!(
                "return [window.origin, document.documentElement.textContent.includes('hostile page {i}')];"
            ),
            Duration::from_secs(3),
            |seen| seen[1] == true,
        )
        .await;
        browser
            .screenshot(&screenshots(), &format!("object-type-{i}"))
            .await;
        assert_eq!(shown, None, "{file_type:?} was shown as a page");
        assert!(
            downloaded(&downloads, saved, page.as_bytes()).await,
            "{file_type:?} was not saved"
        );
    }
    browser.quit().await;
}

/// Serves `page` at `/page.html` and a landing page at `/landed` from another loopback
/// origin (127.0.0.2, another site to the browser than depot's 127.0.0.1).
async fn other_site(page: String) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    use warp::Filter;
    let page = warp::path!("page.html").map(move || warp::reply::html(page.clone()));
    let landed = warp::path!("landed").map(|| warp::reply::html("you left depot"));
    let routes = page.or(landed).map(warp::Reply::into_response).boxed();
    support::serve_on("127.0.0.2", routes).await
}

#[tokio::test]
async fn another_site_can_neither_log_the_browser_in_nor_be_the_redirect_after_login() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(
        dir.path(),
        &[],
        &[("DEPOT_API_KEYS", READER), ("DEPOT_ADMIN_KEYS", ADMIN)],
    )
    .await;
    // A page on another site that posts the console's login form as soon as it loads.
    let form = format!(
        "<!doctype html><form method=post action=\"{}\">\
         <input name=key value=\"{ADMIN}\"><input name=next value=\"/\"></form>\
         <script>document.forms[0].submit();</script>",
        daemon.url("/console/login")
    );
    let (other, _stop) = other_site(form).await;
    let downloads = dir.path().join("downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    let browser = Browser::start(&downloads).await;

    browser
        .driver
        .goto(format!("http://{other}/page.html"))
        .await
        .unwrap();
    let text = browser.wait_for_text("403").await;
    assert!(text.contains("sent from another site"), "{text}");
    browser.screenshot(&screenshots(), "cross-site-login").await;
    // Not logged in: the console still asks for a key.
    browser.driver.goto(daemon.url("/")).await.unwrap();
    let text = browser.wait_for_text("API key").await;
    assert!(!text.contains("Sync now"), "{text}");

    // Links whose next= names the other site, as written or once a browser has read it
    // (`/%09/host` was the reported one; Chromium itself refuses to follow a Location with
    // a tab, which other browsers strip): after login the browser stays on the console.
    for next in [
        format!("/%09/{other}/landed"),
        format!("//{other}/landed"),
        format!("/%5C{other}/landed"),
        format!("http://{other}/landed"),
    ] {
        browser
            .driver
            .goto(daemon.url(&format!("/console/login?next={next}")))
            .await
            .unwrap();
        browser.wait_for_text("API key").await;
        log_in(&browser, ADMIN).await;
        let text = browser.wait_for_text("Sync now").await;
        assert!(!text.contains("you left depot"), "{next}: {text}");
        let url = browser.driver.current_url().await.unwrap();
        assert_eq!(
            url.as_str().strip_suffix('/'),
            Some(daemon.base.as_str()),
            "{next}: {url}"
        );
    }
    browser.quit().await;
}
