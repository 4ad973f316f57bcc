//! Safety of the console and the edge (SPEC §10), over plain HTTP through the real binary:
//! a session dies with its key on a config reload; logins are throttled per client address
//! with 429 and `Retry-After`; forms from another site and redirects off-site are refused;
//! event streams are capped per client and in all; every answer is `nosniff` and every
//! object answer sandboxed. The browser half is `tests/safety_browser.rs`.
#![cfg(test)]

mod support;

use reqwest::StatusCode;
use reqwest::redirect::Policy;
use std::net::IpAddr;
use std::path::Path;
use std::time::{Duration, Instant};
use support::{Daemon, eventually, save_like_an_editor};

const READER: &str = "reader-key-1";
const ADMIN: &str = "admin-key-1";
const OTHER_ADMIN: &str = "admin-key-2";

/// The sandbox policy of objects that are not audio or video (`http::sandbox`).
const OBJECT_POLICY: &str =
    "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'";
const MEDIA_POLICY: &str =
    "sandbox allow-same-origin; default-src 'none'; media-src 'self'; style-src 'unsafe-inline'";

fn client() -> reqwest::Client {
    client_from("127.0.0.1".parse().unwrap())
}

/// A client whose connections come from `address` (any 127.x address reaches loopback).
fn client_from(address: IpAddr) -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(Policy::none())
        .local_address(address)
        .build()
        .unwrap()
}

async fn keyed_daemon(dir: &Path, env: &[(&str, &str)]) -> Daemon {
    let mut all = vec![("DEPOT_API_KEYS", READER), ("DEPOT_ADMIN_KEYS", ADMIN)];
    all.extend_from_slice(env);
    Daemon::start(dir, &[], &all).await
}

async fn try_login(client: &reqwest::Client, daemon: &Daemon, key: &str) -> reqwest::Response {
    client
        .post(daemon.url("/console/login"))
        .form(&[("key", key), ("next", "/console/files")])
        .send()
        .await
        .unwrap()
}

/// Logs in with `key`; the session cookie (`name=value`).
async fn login(daemon: &Daemon, key: &str) -> String {
    let response = try_login(&client(), daemon, key).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let cookie = response.headers()["set-cookie"].to_str().unwrap();
    cookie.split(';').next().unwrap().to_owned()
}

/// GET `path` with the session of `cookie`.
async fn get(daemon: &Daemon, path: &str, cookie: &str) -> reqwest::Response {
    client()
        .get(daemon.url(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
}

/// The CSRF token on the overview of this session.
async fn csrf(daemon: &Daemon, cookie: &str) -> String {
    let html = get(daemon, "/", cookie).await.text().await.unwrap();
    let at = html.find("name=\"csrf\" value=\"").expect("a csrf field") + 19;
    html[at..at + 64].to_owned()
}

/// POSTs a url-encoded form with the session of `cookie` and extra headers.
async fn post_form(
    daemon: &Daemon,
    path: &str,
    cookie: &str,
    headers: &[(&str, &str)],
    form: &[(&str, &str)],
) -> reqwest::Response {
    let mut request = client()
        .post(daemon.url(path))
        .header("cookie", cookie)
        .form(form);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

/// Uploads a small file through the console's form.
async fn upload(daemon: &Daemon, cookie: &str, csrf: &str, headers: &[(&str, &str)]) -> u16 {
    let form = reqwest::multipart::Form::new()
        .text("csrf", csrf.to_owned())
        .text("bucket", "depot")
        .text("permission", "public")
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"uploaded".to_vec()).file_name("up.txt"),
        );
    let mut request = client()
        .post(daemon.url("/console/upload"))
        .header("cookie", cookie)
        .multipart(form);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap().status().as_u16()
}

async fn config_revision(daemon: &Daemon) -> u64 {
    daemon.get_json("/health").await.1["config"]["revision"]
        .as_u64()
        .unwrap()
}

#[tokio::test]
async fn a_session_stops_working_at_once_when_a_reload_removes_its_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("config")).unwrap();
    let config = dir.path().join("config/depot.toml");
    let keys =
        |admins: &str| format!("[auth]\napi_keys = [\"{READER}\"]\nadmin_keys = [{admins}]\n");
    std::fs::write(&config, keys(&format!("\"{ADMIN}\", \"{OTHER_ADMIN}\""))).unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let removed = login(&daemon, ADMIN).await;
    let kept = login(&daemon, OTHER_ADMIN).await;
    let token = csrf(&daemon, &removed).await;

    // Before the reload the session syncs and uploads.
    let sync = post_form(&daemon, "/console/sync", &removed, &[], &[("csrf", &token)]).await;
    assert_eq!(sync.status(), StatusCode::SEE_OTHER);
    assert_eq!(sync.headers()["location"], "/?synced=1");
    assert_eq!(upload(&daemon, &removed, &token, &[]).await, 303);

    let revision = config_revision(&daemon).await;
    save_like_an_editor(&config, &keys(&format!("\"{OTHER_ADMIN}\"")));
    eventually(Duration::from_secs(5), || async {
        (config_revision(&daemon).await > revision).then_some(())
    })
    .await
    .expect("the edited config is reloaded");

    // The very next request of the removed key's session finds no session: pages send it
    // to the login form, the admin forms are refused.
    let page = get(&daemon, "/console/files", &removed).await;
    assert_eq!(page.status(), StatusCode::SEE_OTHER);
    assert!(
        page.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("/console/login?next="),
    );
    let sync = post_form(&daemon, "/console/sync", &removed, &[], &[("csrf", &token)]).await;
    assert_eq!(sync.status(), StatusCode::UNAUTHORIZED);
    assert!(sync.text().await.unwrap().contains("needs a login"));
    assert_eq!(upload(&daemon, &removed, &token, &[]).await, 401);
    let last_sync = daemon.get_json("/health").await.1["translations"]["lastSyncAt"].clone();

    // A session of a key still configured goes on.
    let other_token = csrf(&daemon, &kept).await;
    let sync = post_form(
        &daemon,
        "/console/sync",
        &kept,
        &[],
        &[("csrf", &other_token)],
    )
    .await;
    assert_eq!(sync.status(), StatusCode::SEE_OTHER);
    assert_ne!(
        daemon.get_json("/health").await.1["translations"]["lastSyncAt"],
        last_sync,
        "the kept session's sync ran"
    );
    // The removed key itself no longer logs in.
    let again = try_login(&client(), &daemon, ADMIN).await;
    assert_eq!(again.status(), StatusCode::UNAUTHORIZED);
}

/// The daemon's log and its WARN lines that hold `what`, once `count` of them are there (the
/// log is read as the daemon writes it) or after a few seconds.
async fn warnings(daemon: &Daemon, what: &str, count: usize) -> (String, Vec<String>) {
    let lines = |log: &str| {
        log.lines()
            .filter(|l| l.contains("WARN") && l.contains(what))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    eventually(Duration::from_secs(5), || async {
        (lines(&daemon.log()).len() >= count).then_some(())
    })
    .await;
    let log = daemon.log();
    let found = lines(&log);
    (log, found)
}

#[tokio::test]
async fn wrong_keys_are_throttled_per_client_address_with_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = keyed_daemon(
        dir.path(),
        &[
            ("DEPOT_LOGIN_ATTEMPTS", "3"),
            ("DEPOT_LOGIN_REFILL_SECS", "2"),
        ],
    )
    .await;
    let me = client();
    for _ in 0..3 {
        let wrong = try_login(&me, &daemon, "guess-123").await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    }
    // Out of attempts: refused before the key is even compared, the right one too.
    for key in ["guess-123", ADMIN] {
        let refused = try_login(&me, &daemon, key).await;
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        let retry: u64 = refused.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=2).contains(&retry), "Retry-After: {retry}");
        assert!(refused.headers().get("set-cookie").is_none());
        let page = refused.text().await.unwrap();
        assert!(
            page.contains("too many wrong keys from your address (127.0.0.1)"),
            "{page}"
        );
    }
    // Another address has attempts of its own.
    let neighbour = client_from("127.0.0.2".parse().unwrap());
    let wrong = try_login(&neighbour, &daemon, "guess-456").await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);

    // Each wrong key was logged at WARN with the address, never the key.
    let (log, warnings) = warnings(&daemon, "console login refused", 4).await;
    assert_eq!(warnings.len(), 4, "{log}");
    assert_eq!(
        warnings.iter().filter(|l| l.contains("127.0.0.1")).count(),
        3
    );
    assert!(warnings[3].contains("127.0.0.2"), "{log}");
    assert!(!log.contains("guess-123") && !log.contains(ADMIN), "{log}");

    // After the window, one more attempt: the right key logs in.
    let started = Instant::now();
    let logged_in = eventually(Duration::from_secs(5), || async {
        let response = try_login(&me, &daemon, ADMIN).await;
        (response.status() == StatusCode::SEE_OTHER).then_some(response)
    })
    .await
    .expect("the login works again after Retry-After");
    assert!(logged_in.headers().get("set-cookie").is_some());
    assert!(started.elapsed() <= Duration::from_secs(3));
}

#[tokio::test]
async fn forms_sent_from_another_site_are_refused_with_a_page_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = keyed_daemon(dir.path(), &[]).await;
    let ours = daemon.base.clone();

    // Login: a form on another site does not log the browser in.
    for (name, value) in [
        ("origin", "http://127.0.0.2:8000"),
        ("origin", "null"),
        ("referer", "http://evil.example/login.html"),
        ("sec-fetch-site", "cross-site"),
    ] {
        let response = client()
            .post(daemon.url("/console/login"))
            .header(name, value)
            .form(&[("key", ADMIN)])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{name}: {value}");
        assert!(response.headers().get("set-cookie").is_none());
        let page = response.text().await.unwrap();
        assert!(page.contains("sent from another site"), "{page}");
    }
    // The console's own login form (browsers send Origin with every POST).
    let response = client()
        .post(daemon.url("/console/login"))
        .header("origin", &ours)
        .header("sec-fetch-site", "same-origin")
        .form(&[("key", ADMIN)])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);

    // Every form that changes something: sync, upload, logout.
    let cookie = login(&daemon, ADMIN).await;
    let token = csrf(&daemon, &cookie).await;
    let evil = [("origin", "http://127.0.0.2:8000")];
    let sync = post_form(
        &daemon,
        "/console/sync",
        &cookie,
        &evil,
        &[("csrf", &token)],
    )
    .await;
    assert_eq!(sync.status(), StatusCode::FORBIDDEN);
    assert!(sync.text().await.unwrap().contains("another site"));
    assert_eq!(upload(&daemon, &cookie, &token, &evil).await, 403);
    let logout = post_form(
        &daemon,
        "/console/logout",
        &cookie,
        &evil,
        &[("csrf", &token)],
    )
    .await;
    assert_eq!(logout.status(), StatusCode::FORBIDDEN);
    // Still logged in, and the same forms from the console itself work.
    let own = [("origin", ours.as_str())];
    let sync = post_form(&daemon, "/console/sync", &cookie, &own, &[("csrf", &token)]).await;
    assert_eq!(sync.status(), StatusCode::SEE_OTHER);
    assert_eq!(upload(&daemon, &cookie, &token, &own).await, 303);
}

#[tokio::test]
async fn after_login_only_console_pages_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = keyed_daemon(dir.path(), &[]).await;
    for (next, location) in [
        ("/console/files?page=2", "/console/files?page=2"),
        (
            "/console/translations?q=save",
            "/console/translations?q=save",
        ),
        ("/%09/evil.example", "/"),
        ("/\t/evil.example", "/"),
        ("//evil.example", "/"),
        ("/\\evil.example", "/"),
        ("%2F%2Fevil.example", "/"),
        ("/%2F/evil.example", "/"),
        ("https://evil.example/", "/"),
        ("/objects/depot/page.html", "/"),
    ] {
        let response = client()
            .post(daemon.url("/console/login"))
            .form(&[("key", READER), ("next", next)])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{next:?}");
        assert_eq!(response.headers()["location"], location, "{next:?}");
        // The login form carries only a safe `next` on to its POST.
        let form = client()
            .get(daemon.url(&format!(
                "/console/login?{}",
                support::query(&[("next", next)])
            )))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let field = format!("name=\"next\" value=\"{}\"", location.replace('&', "&amp;"));
        assert!(form.contains(&field), "{next:?}: {form}");
    }
}

/// Opens a `/translations/events` stream from `from`; the open response, or the refusal.
async fn open_stream(daemon: &Daemon, from: &reqwest::Client) -> reqwest::Response {
    from.get(daemon.url("/translations/events"))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn event_streams_are_capped_per_client_and_in_all_and_closing_frees_a_place() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(
        dir.path(),
        &[],
        &[
            ("DEPOT_EVENTS_PER_CLIENT", "3"),
            ("DEPOT_EVENTS_TOTAL", "4"),
            ("DEPOT_TRANSLATIONS_EVENTS_HEARTBEAT_SECS", "1"),
        ],
    )
    .await;
    let me = client();
    let mut mine = Vec::new();
    for _ in 0..3 {
        let stream = open_stream(&daemon, &me).await;
        assert_eq!(stream.status(), StatusCode::OK);
        mine.push(stream);
    }
    let refused = open_stream(&daemon, &me).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(body["statusCode"], 429);
    assert_eq!(
        body["message"],
        "too many event streams from your address (127.0.0.1): at most 3 \
         (limits.events_per_client); close one first"
    );

    // Another address gets the last place of the node; a third finds none.
    let other = client_from("127.0.0.2".parse().unwrap());
    let theirs = open_stream(&daemon, &other).await;
    assert_eq!(theirs.status(), StatusCode::OK);
    let third = open_stream(&daemon, &client_from("127.0.0.3".parse().unwrap())).await;
    assert_eq!(third.status(), StatusCode::TOO_MANY_REQUESTS);
    let body: serde_json::Value = third.json().await.unwrap();
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("at most 4 (limits.events_total)"),
        "{body}"
    );

    // Closing one of mine gives its place back (once the daemon sees the connection gone).
    drop(mine.pop());
    let reopened = eventually(Duration::from_secs(10), || async {
        let stream = open_stream(&daemon, &me).await;
        (stream.status() == StatusCode::OK).then_some(stream)
    })
    .await
    .expect("a closed stream frees its place");
    mine.push(reopened);
    assert_eq!(
        open_stream(&daemon, &me).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    // The rest of the API is not capped.
    assert_eq!(daemon.get("/health").await.status(), StatusCode::OK);
    drop(theirs);
}

/// Adds `name` with `content` to the catalogue and the object store; its key, and the
/// object's file in the store.
fn add_file(dir: &Path, name: &str, content: &[u8]) -> (String, std::path::PathBuf) {
    std::fs::write(dir.join(name), content).unwrap();
    let output = support::run_ok(dir, &["files", "add", name], [("X", "")]);
    let record: serde_json::Value = serde_json::from_slice(output.stdout.trim_ascii_end()).unwrap();
    let key = record["key"].as_str().unwrap().to_owned();
    let bucket = record["bucket"].as_str().unwrap();
    let file = dir.join("data/objects").join(bucket).join(&key);
    assert!(file.is_file(), "{}", file.display());
    (key, file)
}

fn assert_protected(response: &reqwest::Response, policy: &str, what: &str) {
    let headers = response.headers();
    assert_eq!(
        headers
            .get("x-content-type-options")
            .map(|v| v.to_str().unwrap()),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(
        headers
            .get("content-security-policy")
            .map(|v| v.to_str().unwrap()),
        Some(policy),
        "{what}"
    );
}

#[tokio::test]
async fn every_object_answer_is_nosniff_and_sandboxed_and_every_other_answer_nosniff() {
    let dir = tempfile::tempdir().unwrap();
    let (page, _) = add_file(dir.path(), "page.html", b"<script>alert(1)</script>");
    let (image, _) = add_file(
        dir.path(),
        "drawing.svg",
        b"<svg xmlns='http://www.w3.org/2000/svg'/>",
    );
    let (sound, _) = add_file(dir.path(), "sound.wav", b"RIFF....WAVE");
    let (gone, gone_file) = add_file(dir.path(), "gone.html", b"<p>soon gone</p>");
    let daemon = keyed_daemon(dir.path(), &[]).await;
    let http = client();
    let send = |method: &str, url: &str, range: Option<&str>| {
        let mut request = http.request(method.parse().unwrap(), url);
        if let Some(range) = range {
            request = request.header("range", range);
        }
        request.send()
    };

    for key in [&page, &image] {
        let url = daemon.signed_url(key, ADMIN).await;
        for (method, range, status) in [
            ("GET", None, 200),
            ("HEAD", None, 200),
            ("GET", Some("bytes=0-3"), 206),
            ("GET", Some("bytes=9999-"), 416),
        ] {
            let response = send(method, &url, range).await.unwrap();
            assert_eq!(
                response.status().as_u16(),
                status,
                "{method} {range:?} {url}"
            );
            assert_protected(
                &response,
                OBJECT_POLICY,
                &format!("{method} {range:?} {key}"),
            );
        }
        // S3 XML errors: a changed signature, an unsigned request.
        let tampered = url.replace("X-Amz-Signature=", "X-Amz-Signature=0");
        for (url, status) in [
            (tampered.as_str(), 403),
            (url.split('?').next().unwrap(), 403),
        ] {
            for method in ["GET", "HEAD"] {
                let response = send(method, url, None).await.unwrap();
                assert_eq!(response.status().as_u16(), status, "{method} {url}");
                assert_protected(&response, OBJECT_POLICY, &format!("{method} {url}"));
            }
        }
    }
    // An object whose file is gone: S3's 404 NoSuchKey.
    let url = daemon.signed_url(&gone, ADMIN).await;
    std::fs::remove_file(&gone_file).unwrap();
    for method in ["GET", "HEAD"] {
        let response = send(method, &url, None).await.unwrap();
        assert_eq!(response.status().as_u16(), 404, "{method}");
        assert_protected(&response, OBJECT_POLICY, &format!("{method} gone"));
    }
    let url = daemon.signed_url(&sound, ADMIN).await;
    let response = send("GET", &url, None).await.unwrap();
    assert_eq!(response.headers()["content-type"], "audio/wav");
    assert_protected(&response, MEDIA_POLICY, "audio");

    // The API's answers and errors carry nosniff too; console pages keep their own policy.
    for path in [
        "/health",
        "/files",
        "/no/such/route",
        "/translations?format=nope",
    ] {
        let response = http.get(daemon.url(path)).send().await.unwrap();
        assert_protected(&response, OBJECT_POLICY, path);
    }
    let login_page = http.get(daemon.url("/console/login")).send().await.unwrap();
    assert_eq!(login_page.headers()["x-content-type-options"], "nosniff");
    assert!(
        login_page.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
}

/// The headers an object answer goes out with: `Content-Type`, `Content-Disposition`,
/// `Content-Security-Policy`.
fn object_headers(response: &reqwest::Response) -> (String, Option<String>, String) {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    (
        header("content-type").unwrap_or_default(),
        header("content-disposition"),
        header("content-security-policy").unwrap_or_default(),
    )
}

#[tokio::test]
async fn objects_show_inline_only_as_one_type_browsers_show_and_download_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = keyed_daemon(dir.path(), &[("DEPOT_PRODUCER_ENABLED", "false")]).await;
    let page = b"<!doctype html><p>hostile page</p>";
    let attachment = Some("attachment".to_owned());
    let octets = "application/octet-stream";
    // (fileType as recorded, Content-Type, Content-Disposition, policy)
    let cases: &[(&str, &str, Option<String>, &str)] = &[
        // Not one media type: served as bytes to save, never as written.
        (
            "video/mp4; a=b, text/html",
            octets,
            attachment.clone(),
            OBJECT_POLICY,
        ),
        (
            "text/html, video/mp4",
            octets,
            attachment.clone(),
            OBJECT_POLICY,
        ),
        (
            "video/mp4;x=\"a,b\", text/html",
            octets,
            attachment.clone(),
            OBJECT_POLICY,
        ),
        (
            "VIDEO/MP4; A=B, TEXT/HTML",
            octets,
            attachment.clone(),
            OBJECT_POLICY,
        ),
        (
            " video/mp4 ,  text/html ",
            octets,
            attachment.clone(),
            OBJECT_POLICY,
        ),
        (
            "image/svg+xml;foo",
            octets,
            attachment.clone(),
            OBJECT_POLICY,
        ),
        // One media type, but not one a browser shows by itself: kept, and saved.
        ("text/html", "text/html", attachment.clone(), OBJECT_POLICY),
        (
            "image/svg+xml",
            "image/svg+xml",
            attachment.clone(),
            OBJECT_POLICY,
        ),
        (
            "application/pdf",
            "application/pdf",
            attachment.clone(),
            OBJECT_POLICY,
        ),
        (
            "video/x+xml",
            "video/x+xml",
            attachment.clone(),
            OBJECT_POLICY,
        ),
        // Shown inline: audio and video in the player, images and plain text as they are.
        ("VIDEO/MP4", "video/mp4", None, MEDIA_POLICY),
        ("audio/wav", "audio/wav", None, MEDIA_POLICY),
        ("png", "image/png", None, OBJECT_POLICY),
        (
            "text/plain; charset=utf-8",
            "text/plain; charset=utf-8",
            None,
            OBJECT_POLICY,
        ),
    ];
    let http = client();
    for (file_type, content_type, disposition, policy) in cases {
        let key = daemon.upload(ADMIN, "object", file_type, page).await;
        let url = daemon.signed_url(&key, ADMIN).await;
        for method in ["GET", "HEAD"] {
            let response = http
                .request(method.parse().unwrap(), &url)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{method} {file_type:?}");
            assert_eq!(
                object_headers(&response),
                (
                    (*content_type).to_owned(),
                    disposition.clone(),
                    (*policy).to_owned()
                ),
                "{method} {file_type:?}"
            );
            assert_eq!(response.headers()["x-content-type-options"], "nosniff");
        }
    }
    // A download URL's disposition, with its file name, is kept for any type.
    let key = daemon.upload(ADMIN, "page.html", "text/html", page).await;
    let record: serde_json::Value = http
        .get(daemon.url(&format!(
            "/file?{}",
            support::query(&[("key", &key), ("download", "true")])
        )))
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let response = http
        .get(record["signedUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        object_headers(&response),
        (
            "text/html".to_owned(),
            Some("attachment; filename=\"page.html\"; filename*=UTF-8''page.html".to_owned()),
            OBJECT_POLICY.to_owned()
        )
    );
}

#[tokio::test]
async fn wrong_api_keys_are_throttled_per_client_address_and_logged_without_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = keyed_daemon(
        dir.path(),
        &[
            ("DEPOT_API_KEY_ATTEMPTS", "3"),
            ("DEPOT_API_KEY_REFILL_SECS", "2"),
            ("DEPOT_PRODUCER_ENABLED", "false"),
        ],
    )
    .await;
    let me = client();
    let send = |from: &reqwest::Client, method: &str, path: &str, key: &str| {
        from.request(method.parse().unwrap(), daemon.url(path))
            .bearer_auth(key)
            .send()
    };
    // Right keys cost nothing, however many.
    for _ in 0..5 {
        let read = send(&me, "GET", "/files", READER).await.unwrap();
        assert_eq!(read.status(), StatusCode::OK);
    }
    // Wrong keys on any route that takes one: refused, each counted.
    for (method, path) in [
        ("GET", "/files"),
        ("POST", "/translations/sync"),
        ("DELETE", "/file?key=nothing"),
    ] {
        let wrong = send(&me, method, path, "guess-123").await.unwrap();
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "{method} {path}");
    }
    // Out of attempts: every request with a key waits before its key is compared, the
    // right key too (telling them apart would tell a guess that hit); one without a key
    // is served.
    for (method, path, key) in [
        ("GET", "/files", "guess-123"),
        ("GET", "/files", READER),
        ("POST", "/translations/sync", ADMIN),
        ("GET", "/file?key=nothing", READER),
    ] {
        let refused = send(&me, method, path, key).await.unwrap();
        assert_eq!(
            refused.status(),
            StatusCode::TOO_MANY_REQUESTS,
            "{method} {path}"
        );
        let retry: u64 = refused.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=2).contains(&retry), "Retry-After: {retry}");
        let body: serde_json::Value = refused.json().await.unwrap();
        assert_eq!(body["code"], "too-many-key-failures", "{body}");
        assert_eq!(
            body["message"],
            format!(
                "too many wrong API keys from your address (127.0.0.1): try again in {retry} s"
            )
        );
    }
    let anonymous = me.get(daemon.url("/files")).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::OK);
    // Another address is not concerned: its right key works, its wrong key is its own.
    let neighbour = client_from("127.0.0.2".parse().unwrap());
    let read = send(&neighbour, "GET", "/files", READER).await.unwrap();
    assert_eq!(read.status(), StatusCode::OK);
    let wrong = send(&neighbour, "GET", "/files", "guess-456")
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);

    // Each wrong key is a WARN line with the address, never the key.
    let (log, warnings) = warnings(&daemon, "API request refused: wrong API key", 4).await;
    assert_eq!(warnings.len(), 4, "{log}");
    assert_eq!(
        warnings
            .iter()
            .filter(|l| l.contains("client=127.0.0.1"))
            .count(),
        3,
        "{log}"
    );
    assert!(warnings[3].contains("client=127.0.0.2"), "{log}");
    for key in ["guess-123", "guess-456", READER, ADMIN] {
        assert!(!log.contains(key), "{key} in the log:\n{log}");
    }

    // After the window, one more attempt: the right key is served again.
    let served = eventually(Duration::from_secs(5), || async {
        let response = send(&me, "GET", "/files", READER).await.unwrap();
        (response.status() == StatusCode::OK).then_some(())
    })
    .await;
    assert!(
        served.is_some(),
        "the right key works again after Retry-After"
    );
}

/// A mistyped source URL, with a user, a password and a key in it.
const MISTYPED: &str = "htps://someuser:hunter2pass@sheets.example/pub?key=K3YSECRET";

/// Whether `text` holds any secret piece of `MISTYPED`.
fn leaks(text: &str) -> bool {
    ["someuser", "hunter2pass", "K3YSECRET", "/pub"]
        .iter()
        .any(|secret| text.contains(secret))
}

#[tokio::test]
async fn a_mistyped_source_url_is_refused_naming_the_setting_and_its_secrets_shown_nowhere() {
    let dir = tempfile::tempdir().unwrap();
    // `config check` and a command's --source: refused, named, the URL shown by its host.
    let check = support::depot(dir.path())
        .args(["config", "check"])
        .env("DEPOT_PRODUCER_SOURCE", MISTYPED)
        .output()
        .unwrap();
    let generate = support::depot(dir.path())
        .args(["generate", "--source", MISTYPED, "-p", "out"])
        .output()
        .unwrap();
    // A daemon that does start is stopped after a while: what it printed until then.
    let mut daemon = support::depot(dir.path())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("DEPOT_PRODUCER_SOURCE", MISTYPED)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    if support::wait_with_limit(&mut daemon, Duration::from_secs(10)).is_none() {
        daemon.kill().unwrap();
    }
    let serve = daemon.wait_with_output().unwrap();
    for (what, output, exit, from) in [
        ("config check", &check, 1, "from environment"),
        ("generate --source", &generate, 2, "from command line"),
        ("serve", &serve, 1, "from environment"),
    ] {
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(exit), "{what}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "producer.source (env DEPOT_PRODUCER_SOURCE) = 'htps://sheets.example/***' {from}: \
                 must be \"google\", \"example\", the path of a local .csv, .xlsx or .ods sheet, \
                 or the http:// or https:// URL of a CSV; depot reads no htps:// source (did you \
                 mean https://?)"
            )),
            "{what}: {stderr}"
        );
        assert!(
            !leaks(&stdout) && !leaks(&stderr),
            "{what}: {stdout}{stderr}"
        );
    }
    // Credentials or a query without a scheme are a URL too: not a file name.
    let bare = support::depot(dir.path())
        .args(["config", "check"])
        .env(
            "DEPOT_PRODUCER_SOURCE",
            "someuser:hunter2pass@sheets.example/pub",
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&bare.stderr);
    assert_eq!(bare.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "producer.source (env DEPOT_PRODUCER_SOURCE) = '***' from environment: must be"
        ) && stderr.contains("this looks like a URL (credentials or a query)"),
        "{stderr}"
    );
    assert!(!leaks(&stderr), "{stderr}");

    // A running daemon refuses the reload that brings it: /health names the setting, and
    // neither /health nor the log holds a secret.
    std::fs::create_dir(dir.path().join("config")).unwrap();
    let config = dir.path().join("config/depot.toml");
    std::fs::write(&config, "[producer]\nsource = \"example\"\n").unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    save_like_an_editor(&config, &format!("[producer]\nsource = \"{MISTYPED}\"\n"));
    let refused = eventually(Duration::from_secs(5), || async {
        let (_, health) = daemon.get_json("/health").await;
        health["config"]["lastError"].as_str().map(str::to_owned)
    })
    .await
    .expect("the reload is refused");
    assert!(
        refused
            .contains("producer.source (env DEPOT_PRODUCER_SOURCE) = 'htps://sheets.example/***'"),
        "{refused}"
    );
    let health = daemon.get("/health").await.text().await.unwrap();
    assert!(!leaks(&health), "{health}");
    assert!(health.contains("\"source\":\"example\""), "{health}");
    let log = daemon.log();
    assert!(log.contains("producer.source"), "{log}");
    assert!(!leaks(&log), "{log}");
}
