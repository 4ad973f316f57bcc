//! The console over plain HTTP: login and session cookie, CSRF and admin refusals, clear
//! errors for bad input, and the API routes left as they were.
#![cfg(test)]

mod support;

use reqwest::StatusCode;
use reqwest::redirect::Policy;
use support::Daemon;

const READER: &str = "reader-key-1";
const ADMIN: &str = "admin-key-1";

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(Policy::none())
        .build()
        .unwrap()
}

async fn keyed_daemon(dir: &std::path::Path) -> Daemon {
    Daemon::start(
        dir,
        &[],
        &[("DEPOT_API_KEYS", READER), ("DEPOT_ADMIN_KEYS", ADMIN)],
    )
    .await
}

/// Logs in with `key`; the session cookie (`name=value`).
async fn login(daemon: &Daemon, key: &str) -> String {
    let response = client()
        .post(daemon.url("/console/login"))
        .form(&[("key", key), ("next", "/console/files")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()["location"], "/console/files");
    let cookie = response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_owned();
    cookie.split(';').next().unwrap().to_owned()
}

/// The page at `path` for the session of `cookie`.
async fn page(daemon: &Daemon, path: &str, cookie: &str) -> String {
    client()
        .get(daemon.url(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Posts a url-encoded form with the session of `cookie`.
async fn post<T: serde::Serialize + ?Sized>(
    daemon: &Daemon,
    path: &str,
    cookie: &str,
    form: &T,
) -> reqwest::Response {
    client()
        .post(daemon.url(path))
        .header("cookie", cookie)
        .form(form)
        .send()
        .await
        .unwrap()
}

/// The CSRF token on a page of this session.
async fn csrf(daemon: &Daemon, cookie: &str) -> String {
    let html = page(daemon, "/", cookie).await;
    let at = html.find("name=\"csrf\" value=\"").expect("a csrf field") + 19;
    html[at..at + 64].to_owned()
}

#[tokio::test]
async fn with_keys_the_console_asks_for_one_and_the_cookie_is_http_only_and_strict() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = keyed_daemon(dir.path()).await;
    let response = client()
        .get(daemon.url("/console/files?page=2"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        response.headers()["location"],
        "/console/login?next=%2Fconsole%2Ffiles%3Fpage%3D2"
    );

    let wrong = client()
        .post(daemon.url("/console/login"))
        .form(&[("key", "nope")])
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert!(
        wrong
            .text()
            .await
            .unwrap()
            .contains("The API key is not valid.")
    );

    let response = client()
        .post(daemon.url("/console/login"))
        .form(&[("key", READER)])
        .send()
        .await
        .unwrap();
    let set_cookie = response.headers()["set-cookie"].to_str().unwrap();
    assert!(set_cookie.starts_with("depot_session="), "{set_cookie}");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=28800"] {
        assert!(set_cookie.contains(attribute), "{attribute}: {set_cookie}");
    }
    // An open redirect is not possible through `next`.
    let response = client()
        .post(daemon.url("/console/login"))
        .form(&[("key", READER), ("next", "//evil.example/")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["location"], "/");
}

#[tokio::test]
async fn forms_without_the_sessions_csrf_token_are_refused_with_403() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = keyed_daemon(dir.path()).await;
    let cookie = login(&daemon, ADMIN).await;
    let token = csrf(&daemon, &cookie).await;
    for (form, why) in [
        (vec![("note", "no token")], "carries no CSRF token"),
        (vec![("csrf", "forged")], "CSRF token is not this session"),
    ] {
        let response = post(&daemon, "/console/sync", &cookie, &form).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        let page = response.text().await.unwrap();
        assert!(page.contains(why), "{page}");
    }
    // The same form with the session's token goes through.
    let response = post(
        &daemon,
        "/console/sync",
        &cookie,
        &[("csrf", token.as_str())],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()["location"], "/?synced=1");
    // Another session's token is not this one's.
    let other = login(&daemon, ADMIN).await;
    let response = post(
        &daemon,
        "/console/logout",
        &other,
        &[("csrf", token.as_str())],
    )
    .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn admin_actions_are_hidden_from_readers_and_refused_to_them() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = keyed_daemon(dir.path()).await;
    let cookie = login(&daemon, READER).await;
    let overview = page(&daemon, "/", &cookie).await;
    assert!(!overview.contains("Sync now"));
    let token = csrf(&daemon, &cookie).await;
    let response = post(
        &daemon,
        "/console/sync",
        &cookie,
        &[("csrf", token.as_str())],
    )
    .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert!(response.text().await.unwrap().contains("admin key"));
    let files = page(&daemon, "/console/files", &cookie).await;
    assert!(!files.contains("enctype=\"multipart/form-data\""));
    // Uploads without an admin session are refused before the body is read.
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(b"x".to_vec()).file_name("x.txt"),
    );
    let response = client()
        .post(daemon.url("/console/upload"))
        .header("cookie", &cookie)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    // Logged out, the session no longer works.
    post(
        &daemon,
        "/console/logout",
        &cookie,
        &[("csrf", token.as_str())],
    )
    .await;
    let response = client()
        .get(daemon.url("/"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
}

/// The upload form suggests the bucket that `POST /files` and `depot files add` use when
/// none is named, so an upload lands in the same place whichever way it comes.
#[tokio::test]
async fn the_upload_forms_bucket_is_the_apis_default() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = keyed_daemon(dir.path()).await;
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(b"x".to_vec()).file_name("x.txt"),
    );
    let response = client()
        .post(daemon.url("/files"))
        .bearer_auth(ADMIN)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let record: serde_json::Value = response.json().await.unwrap();
    let api_default = record["bucket"].as_str().unwrap().to_owned();
    let cookie = login(&daemon, ADMIN).await;
    let files = page(&daemon, "/console/files", &cookie).await;
    assert!(
        files.contains(&format!(
            r#"<input id="bucket" name="bucket" value="{api_default}">"#
        )),
        "{files}"
    );
}

#[tokio::test]
async fn bad_input_gets_a_page_naming_the_problem_never_a_500() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    support::eventually(std::time::Duration::from_secs(10), || async {
        let (_, health) = daemon.get_json("/health").await;
        (health["translations"]["loaded"] == true).then_some(())
    })
    .await
    .expect("the example sheet loads");
    for (target, status, message) in [
        (
            "/console/translations?page=0",
            400,
            "page must be an integer from 1 to 1000000, got &#39;0&#39;",
        ),
        (
            "/console/translations?page=abc",
            400,
            "page must be an integer",
        ),
        (
            "/console/translations?show=odd",
            400,
            "show must be all, missing or placeholders",
        ),
        (
            "/console/translations?locale=xx",
            400,
            "locale &#39;xx&#39; is not in the sheet; its locales: en_US, pl_PL, de_DE",
        ),
        (
            "/console/translations?bogus=1",
            400,
            "unknown parameter &#39;bogus&#39;",
        ),
        ("/console/translations?q=%FF", 400, "not valid URL encoding"),
        ("/console/files?page=-1", 400, "page must be an integer"),
        (
            "/console/files?permission=secret",
            400,
            "permission must be public or private",
        ),
        (
            "/console/files?page=1&page=2",
            400,
            "page is given more than once",
        ),
        ("/console/file", 400, "key is required"),
        (
            "/console/file?key=nope",
            404,
            "no file record has key &#39;nope&#39;",
        ),
        ("/console/preview?format=xml", 400, "format must be one of"),
        ("/console/preview?filters=a..b", 400, "filter"),
        ("/console/preview?filters=xx_XX", 404, "xx_XX"),
        (
            "/console/preview?placeholders=printf",
            400,
            "placeholders must be one of keep, convert, got &#39;printf&#39;",
        ),
        (
            "/console/preview?comments=yes",
            400,
            "comments must be true or false",
        ),
        ("/?what=1", 400, "unknown parameter &#39;what&#39;"),
    ] {
        let response = client().get(daemon.url(target)).send().await.unwrap();
        assert_eq!(response.status().as_u16(), status, "{target}");
        assert_eq!(
            response.headers()["content-type"],
            "text/html; charset=utf-8",
            "{target}"
        );
        let page = response.text().await.unwrap();
        assert!(page.contains(message), "{target}: {page}");
    }
    // Without keys there is nobody to log in: writes are off and say how to turn them on.
    let response = client()
        .post(daemon.url("/console/sync"))
        .form(&[("csrf", "x")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert!(response.text().await.unwrap().contains("auth.admin_keys"));
    assert!(!daemon.log().contains("panicked"));
}

#[tokio::test]
async fn the_api_routes_answer_as_before_beside_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let page = client().get(daemon.url("/")).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let headers = page.headers().clone();
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    assert_eq!(headers["cache-control"], "no-store");
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .starts_with("default-src 'none'")
    );
    let body = page.text().await.unwrap();
    for label in [">Translations</a>", ">Files</a>", ">Overview</a>"] {
        assert!(body.contains(label), "{label}");
    }
    // Nothing is fetched from outside the daemon.
    assert!(!body.contains("http://") && !body.contains("https://"));

    let (status, health) = daemon.get_json("/health").await;
    assert_eq!(status, 200);
    assert_eq!(health["status"], "ok");
    assert_eq!(daemon.get("/files").await.status(), 200);
    assert_eq!(daemon.get("/openapi.json").await.status(), 200);
    let unknown = daemon.get("/no/such/route").await;
    assert_eq!(unknown.status(), 404);
    let body: serde_json::Value = unknown.json().await.unwrap();
    assert_eq!(body["statusCode"], 404);
    let wrong = client().delete(daemon.url("/")).send().await.unwrap();
    assert_eq!(wrong.status(), 405);
}

#[tokio::test]
async fn the_overview_lists_the_sheets_findings_by_cell() {
    let dir = tempfile::tempdir().unwrap();
    // Row 3 repeats the key of row 2; row 4 has texts but no key.
    std::fs::write(
        dir.path().join("sheet.csv"),
        ">>>,en,pl\nHELLO,Hello,Cześć\nHELLO,Hi,\n,orphan,sierota\nBYE,Bye,\n",
    )
    .unwrap();
    let daemon = Daemon::start(dir.path(), &["--set", "producer.source=sheet.csv"], &[]).await;
    let health = support::eventually(std::time::Duration::from_secs(10), || async {
        let (_, health) = daemon.get_json("/health").await;
        (health["translations"]["loaded"] == true).then_some(health)
    })
    .await
    .expect("the sheet loads");
    let listed = |name: &str| health["translations"][name].as_array().unwrap().clone();
    let (findings, warnings) = (listed("findings"), listed("warnings"));
    // the repeated key is a finding (and a warning); the keyless row a warning only
    assert_eq!(findings.len(), 1, "{health}");
    assert_eq!(warnings.len(), 2, "{health}");
    let page = daemon.get("/").await.text().await.unwrap();
    assert!(page.contains("Findings (1)"), "{page}");
    assert!(page.contains("Sheet warnings (1)"), "{page}");
    for warning in findings.iter().chain(&warnings) {
        let cell = warning["cell"].as_str().unwrap();
        assert!(
            page.contains(&format!("<strong>{cell}</strong>")),
            "{cell}: {page}"
        );
    }
    // A local sheet has no Google cell to link to.
    assert!(!page.contains("docs.google.com"));
    assert!(page.contains("local file"), "{page}");
    // pl lacks BYE: one of the base locale's two keys.
    assert!(page.contains("1 / 2 (50 %)"), "{page}");
}

/// First run without any key: the log and the overview say how to get one; `depot auth
/// --admin-key` makes one (printed once, saved to `.env.service` beside its other lines,
/// the file kept private), the running daemon takes it up, and a console login with it
/// reaches "Sync now", which syncs. A second key keeps the first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_admin_key_makes_a_key_the_console_takes_for_sync_now() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = dir.path().join("sheet.csv");
    std::fs::write(&sheet, ">>>,en\nHELLO,Hello\n").unwrap();
    let env_file = dir.path().join(".env.service");
    std::fs::write(
        &env_file,
        "# the sheet's tab\nSERVICE_SPREADSHEET_NAME=Tab\n",
    )
    .unwrap();
    // the interval is a day: only "Sync now" reads the sheet again
    let args = ["--set", "producer.interval_secs=86400"];
    let env = [("DEPOT_PRODUCER_SOURCE", "sheet.csv")];
    let daemon = Daemon::start(dir.path(), &args, &env).await;
    assert!(
        daemon.log().contains(
            "are off; `depot auth --admin-key` makes a key and saves it to the env file, which \
             the daemon reloads by itself"
        ),
        "{}",
        daemon.log()
    );
    let overview = client()
        .get(daemon.url("/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        overview.contains("id=\"no-admin-key\"") && overview.contains("depot auth --admin-key"),
        "{overview}"
    );
    assert!(!overview.contains("action=\"/console/sync\""));

    let make_key = || {
        let out = support::run(dir.path(), &["auth", "--admin-key"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let key = String::from_utf8(out.stdout).unwrap().trim_end().to_owned();
        assert!(
            key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit()),
            "{key}"
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("DEPOT_ADMIN_KEYS"));
        key
    };
    let before = revision(&daemon).await;
    let first = make_key();
    assert_eq!(
        std::fs::read_to_string(&env_file).unwrap(),
        format!("# the sheet's tab\nSERVICE_SPREADSHEET_NAME=Tab\nDEPOT_ADMIN_KEYS={first}\n")
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&env_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o007, 0, "{mode:o}: the file holds keys");
    }

    // The daemon reloads the file by itself; the key then logs in.
    let cookie = logged_in(&daemon, &first, &before).await;
    let overview = page(&daemon, "/", &cookie).await;
    assert!(overview.contains("Sync now</button>"), "{overview}");
    std::fs::write(&sheet, ">>>,en\nHELLO,Hello again\n").unwrap();
    let token = csrf(&daemon, &cookie).await;
    let synced = post(
        &daemon,
        "/console/sync",
        &cookie,
        &[("csrf", token.as_str())],
    )
    .await;
    assert_eq!(synced.status(), StatusCode::SEE_OTHER);
    assert_eq!(synced.headers()["location"], "/?synced=1");
    let body = daemon.get("/translations").await.text().await.unwrap();
    assert_eq!(body, r#"{"en":{"HELLO":"Hello again"}}"#);

    // A second key is added beside the first, which keeps working.
    let before = revision(&daemon).await;
    let second = make_key();
    assert!(
        std::fs::read_to_string(&env_file)
            .unwrap()
            .contains(&format!("DEPOT_ADMIN_KEYS={first},{second}\n"))
    );
    logged_in(&daemon, &second, &before).await;
    logged_in(&daemon, &first, &before).await;
}

/// The configuration revision the daemon runs on (`/health`), which a reload changes.
async fn revision(daemon: &Daemon) -> serde_json::Value {
    daemon.get_json("/health").await.1["config"]["revision"].clone()
}

/// Logs in with `key` once the daemon has reloaded past revision `before` (a key just saved
/// to the env file is taken up by the reload); the session cookie. It waits for the reload
/// rather than retrying the login: wrong keys are throttled per client address.
async fn logged_in(daemon: &Daemon, key: &str, before: &serde_json::Value) -> String {
    support::eventually(std::time::Duration::from_secs(10), || async {
        (revision(daemon).await != *before).then_some(())
    })
    .await
    .expect("the daemon reloads the env file");
    let response = client()
        .post(daemon.url("/console/login"))
        .form(&[("key", key), ("next", "/")])
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::SEE_OTHER,
        "the new key logs in"
    );
    let cookie = response.headers()["set-cookie"].to_str().unwrap();
    cookie.split(';').next().unwrap().to_owned()
}

/// The files page shows each record's size; an admin deletes a file from it (record and
/// object, with the session's CSRF token) after a question, and the list then says what
/// was deleted; a reader sees no delete and is refused one.
#[tokio::test]
async fn the_files_page_shows_sizes_and_admins_delete_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = keyed_daemon(dir.path()).await;
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(vec![7u8; 1536]).file_name("sized.bin"),
    );
    let record: serde_json::Value = client()
        .post(daemon.url("/files"))
        .bearer_auth(ADMIN)
        .multipart(form)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let key = record["key"].as_str().unwrap().to_owned();
    let object = dir.path().join("data/objects/depot").join(&key);
    assert!(object.exists());

    let reader = login(&daemon, READER).await;
    let files = page(&daemon, "/console/files", &reader).await;
    assert!(
        files.contains(r#"<td data-label="Size">1.5 KiB</td>"#),
        "{files}"
    );
    assert!(!files.contains("/console/delete"), "{files}");
    let token = csrf(&daemon, &reader).await;
    let refused = post(
        &daemon,
        "/console/delete",
        &reader,
        &[("csrf", token.as_str()), ("key", key.as_str())],
    )
    .await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);

    let admin = login(&daemon, ADMIN).await;
    let files = page(&daemon, "/console/files", &admin).await;
    assert!(files.contains(r#"action="/console/delete""#), "{files}");
    let details = page(&daemon, &format!("/console/file?key={key}"), &admin).await;
    assert!(
        details.contains(&format!(
            "<code>{}</code>",
            record["sha256"].as_str().unwrap()
        )),
        "{details}"
    );
    let no_token = post(&daemon, "/console/delete", &admin, &[("key", key.as_str())]).await;
    assert_eq!(no_token.status(), StatusCode::FORBIDDEN);
    assert!(object.exists());
    let token = csrf(&daemon, &admin).await;
    // The Delete button asks first: a page naming the record, which deletes nothing.
    let asked = post(
        &daemon,
        "/console/delete",
        &admin,
        &[("csrf", token.as_str()), ("key", key.as_str())],
    )
    .await;
    assert_eq!(asked.status(), StatusCode::OK);
    let question = asked.text().await.unwrap();
    assert!(
        question.contains("<h1>Delete sized.bin?</h1>"),
        "{question}"
    );
    assert!(
        question.contains(r#"<input type="hidden" name="confirm" value="yes">"#),
        "{question}"
    );
    assert!(object.exists());
    let delete = |confirm: &'static str| {
        let form = [
            ("csrf", token.clone()),
            ("key", key.clone()),
            ("confirm", confirm.to_owned()),
        ];
        let (daemon, admin) = (&daemon, &admin);
        async move { post(daemon, "/console/delete", admin, &form).await }
    };
    let odd = delete("sure").await;
    assert_eq!(odd.status(), StatusCode::BAD_REQUEST);
    assert!(
        odd.text()
            .await
            .unwrap()
            .contains("confirm must be yes (or absent, to be asked), got &#39;sure&#39;")
    );
    let deleted = delete("yes").await;
    assert_eq!(deleted.status(), StatusCode::SEE_OTHER);
    assert_eq!(deleted.headers()["location"], "/console/files");
    assert!(!object.exists());
    // The page it lands on says what was deleted, once.
    let files = page(&daemon, "/console/files", &admin).await;
    assert!(
        files.contains(&format!(
            r#"<p class="notice" role="status" id="notice">Deleted sized.bin (key {key}).</p>"#
        )),
        "{files}"
    );
    let again = page(&daemon, "/console/files", &admin).await;
    assert!(!again.contains("Deleted sized.bin"), "{again}");
    let gone = client()
        .get(daemon.url(&format!("/file?key={key}")))
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
}
