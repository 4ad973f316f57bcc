//! The producer and the consent flow end to end through the real binary, against the fake
//! Google server of tests/support (real HTTP on loopback, reached only through the
//! configured URLs). The tests run on a multi-threaded runtime: they wait for child
//! processes with blocking calls while the in-process fake must keep answering.
#![cfg(test)]

mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use support::fake_google::{Endpoint, FakeConfig, FakeGoogle, Fault, Times};
use support::{Daemon, eventually};

/// The environment that points depot at the fake with its credentials.
fn google_env(fake: &FakeGoogle) -> Vec<(String, String)> {
    let c = fake.config();
    vec![
        ("DEPOT_GOOGLE_TOKEN_URL".into(), fake.token_url()),
        ("DEPOT_GOOGLE_AUTH_URL".into(), fake.auth_url()),
        ("DEPOT_GOOGLE_SHEETS_URL".into(), fake.sheets_url()),
        ("DEPOT_GOOGLE_TIMEOUT_SECS".into(), "1".into()),
        ("SERVICE_CLIENT_ID".into(), c.client_id.clone()),
        ("SERVICE_CLIENT_SECRET".into(), c.client_secret.clone()),
        ("SERVICE_REFRESH_TOKEN".into(), c.refresh_token.clone()),
        ("SERVICE_SPREADSHEET_ID".into(), c.spreadsheet_id.clone()),
        ("SERVICE_SPREADSHEET_NAME".into(), c.sheet_name.clone()),
    ]
}

fn as_refs(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
}

fn expected_all(name: &str) -> serde_json::Value {
    let text = support::fixture_text(&format!("sheets/{name}.expected.json"));
    serde_json::from_str::<serde_json::Value>(&text).unwrap()["all"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn produce_once_against_google_stores_the_sheet_that_serve_then_answers() {
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    let dir = tempfile::tempdir().unwrap();
    let env = google_env(&fake);
    let output = run_ok(dir.path(), &["produce", "--once"], &env);
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("stored version "));

    let daemon = Daemon::start(
        dir.path(),
        &["--set", "producer.enabled=false"],
        &as_refs(&env),
    )
    .await;
    let (status, body) = daemon.get_json("/translations").await;
    assert_eq!(status, 200);
    assert_eq!(body, expected_all("basic"));
}

/// Asks `/translations` for the pl.CORE labels until `check` accepts the body.
async fn wait_for_body(daemon: &Daemon, check: impl Fn(&str) -> bool) -> (String, String) {
    eventually(Duration::from_secs(8), || async {
        let response = daemon.get("/translations?filters%5B%5D=pl.CORE").await;
        let etag = response.headers().get("etag")?.to_str().ok()?.to_owned();
        let body = response.text().await.ok()?;
        check(&body).then_some((body, etag))
    })
    .await
    .unwrap_or_else(|| panic!("the expected body never came; log:\n{}", daemon.log()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_follows_the_sheet_and_rides_out_every_fault() {
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    let dir = tempfile::tempdir().unwrap();
    let env = google_env(&fake);
    let daemon = Daemon::start(
        dir.path(),
        &["--set", "producer.interval_secs=1"],
        &as_refs(&env),
    )
    .await;
    let (_, first_etag) = wait_for_body(&daemon, |b| b.contains("\"Tak\"")).await;

    // The sheet changes: new content and a new ETag within a few seconds.
    let mut rows = support::sheet_rows("basic");
    rows[3][5] = "Tak!".into();
    fake.set_rows(rows);
    let (_, second_etag) = wait_for_body(&daemon, |b| b.contains("\"Tak!\"")).await;
    assert_ne!(first_etag, second_etag);

    let faults = [
        (Endpoint::Values, Fault::ServerError, "500"),
        (
            Endpoint::Values,
            Fault::TooManyRequests {
                retry_after_secs: 1,
            },
            "429",
        ),
        (
            Endpoint::Values,
            Fault::Slow(Duration::from_secs(3)),
            "did not answer within 1 s",
        ),
        (Endpoint::Values, Fault::InvalidJson, "JSON"),
        (Endpoint::Token, Fault::InvalidGrant, "depot auth"),
        (Endpoint::Values, Fault::PermissionDenied, "share the sheet"),
        (Endpoint::Values, Fault::NotFound, "no spreadsheet"),
    ];
    for (endpoint, fault, expected) in faults {
        fake.clear_faults();
        fake.expire_tokens();
        fake.inject(endpoint, fault.clone(), Times::UntilCleared);
        let failing = eventually(Duration::from_secs(8), || async {
            let t = daemon.get_json("/health").await.1["translations"].clone();
            let error = t["lastError"].as_str().unwrap_or_default().to_owned();
            (t["consecutiveFailures"].as_u64() >= Some(1)
                && error.to_lowercase().contains(&expected.to_lowercase()))
            .then_some(error)
        })
        .await;
        assert!(
            failing.is_some(),
            "{fault:?}: /health never showed '{expected}'; last: {}",
            daemon.get_json("/health").await.1["translations"]
        );
        // The last good document is still served, with its ETag.
        let response = daemon.get("/translations?filters%5B%5D=pl.CORE").await;
        assert_eq!(response.status(), 200, "{fault:?}");
        assert_eq!(response.headers()["etag"].to_str().unwrap(), second_etag);
        assert!(response.text().await.unwrap().contains("\"Tak!\""));
    }

    // Recovery: the next cycle succeeds and clears the failure.
    fake.clear_faults();
    fake.expire_tokens();
    let recovered = eventually(Duration::from_secs(8), || async {
        let t = daemon.get_json("/health").await.1["translations"].clone();
        (t["lastError"].is_null() && t["consecutiveFailures"] == 0).then_some(())
    })
    .await;
    assert!(recovered.is_some(), "{}", daemon.log());
}

/// A free loopback port for the OAuth callback.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `depot auth --no-browser` and returns it with the consent URL it printed.
fn start_auth(
    dir: &Path,
    fake: &FakeGoogle,
    extra: &[&str],
) -> (std::process::Child, String, String) {
    let mut env = google_env(fake);
    env.retain(|(k, _)| k != "SERVICE_REFRESH_TOKEN");
    let redirect = with_free_redirect_uri(&mut env);
    let mut args = vec!["auth", "--no-browser"];
    args.extend_from_slice(extra);
    let (child, url) = spawn_for_consent(dir, &args, &env);
    (child, url, redirect)
}

/// Points `SERVICE_REDIRECT_URI` at a free loopback port; returns the URI.
fn with_free_redirect_uri(env: &mut Vec<(String, String)>) -> String {
    let redirect = format!("http://127.0.0.1:{}/oauth2callback", free_port());
    env.push(("SERVICE_REDIRECT_URI".into(), redirect.clone()));
    redirect
}

/// Starts a depot command that runs the consent flow; returns it with the consent URL it
/// printed on stderr.
fn spawn_for_consent(
    dir: &Path,
    args: &[&str],
    env: &[(String, String)],
) -> (std::process::Child, String) {
    let mut child = support::depot(dir)
        .args(args)
        .envs(as_refs(env))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.starts_with("http"))
        .expect("the consent URL is printed");
    // Keep draining stderr so the child never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, url)
}

/// Runs a depot command to completion and checks it succeeded.
fn run_ok(dir: &Path, args: &[&str], env: &[(String, String)]) -> std::process::Output {
    let output = support::depot(dir)
        .args(args)
        .envs(as_refs(env))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Plays the browser: open the consent URL, follow Google's redirect to depot.
async fn consent_in_browser(url: &str) -> reqwest::StatusCode {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let consent = client.get(url).send().await.unwrap();
    assert_eq!(consent.status(), 302);
    let location = consent.headers()["location"].to_str().unwrap().to_owned();
    client.get(location).send().await.unwrap().status()
}

fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    support::wait_with_limit(child, Duration::from_secs(10)).expect("depot auth exits")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_consent_flow_saves_the_token_in_env_service_keeping_every_line() {
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    let dir = tempfile::tempdir().unwrap();
    let before = "# depot credentials\nSERVICE_CLIENT_ID=kept # trailing comment\n\nSERVICE_REFRESH_TOKEN=old\n# the end\n";
    std::fs::write(dir.path().join(".env.service"), before).unwrap();
    let (mut child, url, redirect) = start_auth(dir.path(), &fake, &[]);

    // A callback with another state is refused, and the flow keeps waiting.
    let forged = reqwest::get(format!("{redirect}?state=forged&code=4/evil"))
        .await
        .unwrap();
    assert_eq!(forged.status(), 400);

    assert_eq!(consent_in_browser(&url).await, 200);
    assert!(wait_exit(&mut child).success());
    let token = fake
        .issued_refresh_tokens()
        .last()
        .cloned()
        .expect("a token was issued");
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".env.service")).unwrap(),
        before.replace(
            "SERVICE_REFRESH_TOKEN=old",
            &format!("SERVICE_REFRESH_TOKEN={token}")
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_consent_flow_saves_the_token_in_the_json_file_with_config_format_json() {
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.json"), r#"{"other": 1}"#).unwrap();
    let (mut child, url, _) = start_auth(dir.path(), &fake, &["--config-format", "json"]);
    assert_eq!(consent_in_browser(&url).await, 200);
    assert!(wait_exit(&mut child).success());
    let token = fake.issued_refresh_tokens().last().cloned().unwrap();
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("data.json")).unwrap())
            .unwrap();
    assert_eq!(saved["SERVICE_REFRESH_TOKEN"], token);
    assert_eq!(saved["other"], 1);
    assert!(!dir.path().join(".env.service").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_consent_is_reported_not_taken_for_success() {
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    fake.set_consent_denied(true);
    let dir = tempfile::tempdir().unwrap();
    let (mut child, url, _) = start_auth(dir.path(), &fake, &[]);
    assert_eq!(consent_in_browser(&url).await, 400);
    assert_eq!(wait_exit(&mut child).code(), Some(1));
    assert!(!dir.path().join(".env.service").exists());
}

/// The version printed by `depot produce --once` (the content hash of the document).
fn produced_version(dir: &Path, env: &[(String, String)], args: &[&str]) -> String {
    let mut all = vec!["produce", "--once"];
    all.extend_from_slice(args);
    let output = run_ok(dir, &all, env);
    let stdout = String::from_utf8(output.stdout).unwrap();
    stdout
        .strip_prefix("stored version ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("{args:?}: {stdout}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_csv_xlsx_and_ods_give_the_same_document_as_google() {
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    let google = produced_version(tempfile::tempdir().unwrap().path(), &google_env(&fake), &[]);
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sheets");
    for file in ["basic.csv", "basic.xlsx", "basic.ods", "basic.sheet.json"] {
        let dir = tempfile::tempdir().unwrap();
        let source = fixtures.join(file);
        let version = produced_version(dir.path(), &[], &["--source", source.to_str().unwrap()]);
        assert_eq!(version, google, "{file} differs from the Google sheet");
    }
}

/// No refresh token: the producer inside `depot serve` starts the consent flow itself, the
/// daemon answers the callback on its own address, saves the token and syncs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_without_a_token_runs_the_consent_flow_on_its_own_route_then_syncs() {
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".env.service"), "# written by depot\n").unwrap();
    let port = free_port();
    let mut env = google_env(&fake);
    env.retain(|(k, _)| k != "SERVICE_REFRESH_TOKEN");
    env.push((
        "SERVICE_REDIRECT_URI".into(),
        format!("http://127.0.0.1:{port}/oauth2callback"),
    ));
    let daemon = Daemon::start_on(
        dir.path(),
        &format!("127.0.0.1:{port}"),
        &["--set", "producer.interval_secs=1"],
        &as_refs(&env),
    )
    .await;
    let url = eventually(Duration::from_secs(8), || async {
        let t = daemon.get_json("/health").await.1["translations"].clone();
        let error = t["lastError"].as_str()?.to_owned();
        error.split("open ").nth(1).map(str::to_owned)
    })
    .await
    .unwrap_or_else(|| panic!("no consent URL in /health; log:\n{}", daemon.log()));
    assert!(url.starts_with(&fake.auth_url()), "{url}");

    assert_eq!(consent_in_browser(&url).await, 200);
    let (body, _) = wait_for_body(&daemon, |b| b.contains("\"Tak\"")).await;
    assert_eq!(
        body,
        r#"{"pl":{"CORE":{"LABELS":{"YES":"Tak","NO":"Nie"}}}}"#
    );
    let token = fake.issued_refresh_tokens().last().cloned().unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".env.service")).unwrap(),
        format!("# written by depot\nSERVICE_REFRESH_TOKEN={token}\n")
    );
}

/// `depot generate` with `-cf json`: reads the refresh token from the JSON data file; with
/// none anywhere, runs the consent flow and saves the token there, then writes the files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_reads_and_writes_the_token_where_config_format_says() {
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    let mut env = google_env(&fake);
    let token = fake.config().refresh_token.clone();
    env.retain(|(k, _)| k != "SERVICE_REFRESH_TOKEN");

    // -cf json: the token comes from data.json.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("data.json"),
        format!(r#"{{"SERVICE_REFRESH_TOKEN": "{token}"}}"#),
    )
    .unwrap();
    run_ok(
        dir.path(),
        &["generate", "-cf", "json", "-f", "json", "-p", "out", "-q"],
        &env,
    );
    assert!(dir.path().join("out/en.json").is_file());

    // -cf env: the token comes from .env.service.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".env.service"),
        format!("SERVICE_REFRESH_TOKEN={token}\n"),
    )
    .unwrap();
    run_ok(
        dir.path(),
        &["generate", "-cf", "env", "-f", "yml", "-p", "out", "-q"],
        &env,
    );
    assert!(dir.path().join("out/messages.pl.yml").is_file());

    // No token anywhere: the consent flow runs, the token lands in data.json, files follow.
    let dir = tempfile::tempdir().unwrap();
    with_free_redirect_uri(&mut env);
    let (mut child, url) = spawn_for_consent(
        dir.path(),
        &["generate", "-cf", "json", "-f", "po", "-p", "out"],
        &env,
    );
    assert_eq!(consent_in_browser(&url).await, 200);
    assert!(wait_exit(&mut child).success());
    let issued = fake.issued_refresh_tokens().last().cloned().unwrap();
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("data.json")).unwrap())
            .unwrap();
    assert_eq!(saved["SERVICE_REFRESH_TOKEN"], issued);
    assert!(dir.path().join("out/messages.en.po").is_file());
}
