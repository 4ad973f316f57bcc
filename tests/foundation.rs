//! End to end through the real binary: zero-config start, configuration layers, live
//! reload, error bodies, signals, `config check`, the OpenAPI document.
#![cfg(test)]

mod support;

use std::time::Duration;
use support::{Daemon, eventually, run, save_like_an_editor};

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

#[tokio::test]
async fn fresh_start_without_config_answers_health() {
    let dir = temp();
    // Requests are logged at info only when asked (log.requests).
    let daemon = Daemon::start(dir.path(), &[], &[("DEPOT_LOG_REQUESTS", "true")]).await;
    let (status, body) = daemon.get_json("/health").await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(body["config"]["revision"], 1);
    assert_eq!(body["config"]["lastError"], serde_json::Value::Null);
    assert!(dir.path().join("data").is_dir(), "data folder created");

    // The request was logged, its duration rounded to two decimal places.
    let duration = eventually(Duration::from_secs(5), || async {
        let log = daemon.log();
        let at = log.find("duration_ms=")? + "duration_ms=".len();
        Some(log[at..].split_whitespace().next()?.to_owned())
    })
    .await
    .expect("the request is logged");
    let decimals = duration.split_once('.').map_or(0, |(_, d)| d.len());
    assert!(
        duration.parse::<f64>().is_ok() && decimals <= 2,
        "duration_ms={duration}"
    );
}

/// `config check` prints `key = value  # origin (env NAME)` for every key (commented out
/// for masked secrets and the `SERVICE_*` settings).
fn effective(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)], key: &str) -> String {
    let args: Vec<&str> = ["config", "check"].iter().chain(args).copied().collect();
    let output = support::run_ok(dir, &args, env.iter().copied());
    let stdout = String::from_utf8(output.stdout).unwrap();
    stdout
        .lines()
        .map(|l| l.strip_prefix("# ").unwrap_or(l))
        .find(|l| l.starts_with(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("{key} not printed:\n{stdout}"))
        .to_owned()
}

#[test]
fn config_file_overrides_defaults() {
    let dir = temp();
    assert!(
        effective(dir.path(), &[], &[], "files.max_limit")
            .starts_with("files.max_limit = 100  # default")
    );
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(
        dir.path().join("config/depot.toml"),
        "[files]\nmax_limit = 50\n",
    )
    .unwrap();
    assert!(
        effective(dir.path(), &[], &[], "files.max_limit")
            .starts_with("files.max_limit = 50  # config file")
    );
}

#[test]
fn env_file_overrides_config_file() {
    let dir = temp();
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(
        dir.path().join("config/depot.toml"),
        "[files]\nmax_limit = 50\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join(".env.service"),
        "DEPOT_FILES_MAX_LIMIT=60\n",
    )
    .unwrap();
    assert!(
        effective(dir.path(), &[], &[], "files.max_limit")
            .starts_with("files.max_limit = 60  # .env.service")
    );
}

#[test]
fn process_env_overrides_env_file() {
    let dir = temp();
    std::fs::write(
        dir.path().join(".env.service"),
        "SERVICE_SPREADSHEET_ID=from-file\n",
    )
    .unwrap();
    assert!(
        effective(dir.path(), &[], &[], "service.spreadsheet_id")
            .contains("\"from-file\"  # .env.service")
    );
    let line = effective(
        dir.path(),
        &[],
        &[("SERVICE_SPREADSHEET_ID", "from-env")],
        "service.spreadsheet_id",
    );
    assert!(line.contains("\"from-env\"  # environment"), "{line}");
}

#[test]
fn flags_override_process_env() {
    let dir = temp();
    let env = [("DEPOT_FILES_MAX_LIMIT", "70")];
    assert!(effective(dir.path(), &[], &env, "files.max_limit").contains(" 70  # environment"));
    let line = effective(
        dir.path(),
        &["--set", "files.max_limit=80"],
        &env,
        "files.max_limit",
    );
    assert!(line.contains(" 80  # command line"), "{line}");
}

#[test]
fn env_file_path_can_be_chosen() {
    let dir = temp();
    std::fs::write(dir.path().join("other.env"), "SERVICE_CLIENT_ID=abc\n").unwrap();
    let line = effective(
        dir.path(),
        &["--env-file", "other.env"],
        &[],
        "service.client_id",
    );
    assert!(line.contains("\"abc\""), "{line}");
}

/// The `name = value` part of each line that is not commented out.
fn assignments(check_output: &str) -> Vec<String> {
    check_output
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_once("  # ").map_or(l, |(a, _)| a).to_owned())
        .collect()
}

#[test]
fn config_check_prints_toml_that_reads_back_as_the_same_values() {
    let dir = temp();
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(
        dir.path().join("config/depot.toml"),
        "[files]\nmax_limit = 50\n[google]\ntoken_file = 'tokens \"west\" \\ 1.json'\n[auth]\nadmin_keys = [\"sekrit\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join(".env.service"),
        "DEPOT_LOG_LEVEL=debug\nSERVICE_CLIENT_ID=abc\nDEPOT_API_KEYS=\n",
    )
    .unwrap();
    let output = support::depot(dir.path())
        .args(["config", "check", "--set", "server.listen=127.0.0.1:4000"])
        .args(["--data-dir", "store", "--set", "producer.enabled=false"])
        .env("DEPOT_PRODUCER_INTERVAL_SECS", "77")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let printed = String::from_utf8(output.stdout).unwrap();

    let table: toml::Table = printed.parse().unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(table["files"]["max_limit"].as_integer(), Some(50));
    assert_eq!(
        table["google"]["token_file"].as_str(),
        Some("tokens \"west\" \\ 1.json")
    );
    assert_eq!(table["producer"]["interval_secs"].as_integer(), Some(77));
    assert_eq!(table["producer"]["enabled"].as_bool(), Some(false));
    assert_eq!(table["server"]["data_dir"].as_str(), Some("store"));
    assert_eq!(table["auth"]["api_keys"].as_array().map(Vec::len), Some(0));
    // Masked and environment-only settings stay out of the TOML.
    assert!(table["auth"].get("admin_keys").is_none(), "{printed}");
    assert!(table.get("service").is_none(), "{printed}");
    assert!(!printed.contains("sekrit"));

    // Fed back as the only configuration, it gives the same values, from the file.
    let again = temp();
    std::fs::create_dir(again.path().join("config")).unwrap();
    std::fs::write(again.path().join("config/depot.toml"), &printed).unwrap();
    let output = run(again.path(), &["config", "check"]);
    assert!(output.status.success(), "{output:?}");
    let reread = String::from_utf8(output.stdout).unwrap();
    let reread_assignments = assignments(&reread);
    for assignment in assignments(&printed) {
        assert!(
            reread_assignments.contains(&assignment),
            "{assignment} not read back:\n{reread}"
        );
        let line = reread
            .lines()
            .find(|l| l.starts_with(&format!("{assignment}  # ")))
            .unwrap();
        assert!(line.contains("  # config file"), "{line}");
    }
}

#[test]
fn config_check_masks_every_secret() {
    let dir = temp();
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(
        dir.path().join("config/depot.toml"),
        "[signing]\nsecret_access_key = \"sekrit-signing\"\nsession_token = \"sekrit-session\"\n[auth]\napi_keys = [\"sekrit-api\"]\nadmin_keys = [\"sekrit-admin\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join(".env.service"),
        "SERVICE_CLIENT_SECRET=sekrit-client\nSERVICE_REFRESH_TOKEN=sekrit-refresh\n",
    )
    .unwrap();
    let output = run(dir.path(), &["config", "check"]);
    assert!(output.status.success());
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!all.contains("sekrit"), "a secret leaked:\n{all}");
    for key in [
        "signing.secret_access_key",
        "signing.session_token",
        "auth.api_keys",
        "auth.admin_keys",
        "service.client_secret",
        "service.refresh_token",
    ] {
        assert!(
            all.contains(&format!("{key} = \"***\"")),
            "{key} not masked:\n{all}"
        );
    }
}

#[test]
fn config_check_names_the_invalid_key_and_exits_1() {
    let dir = temp();
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(
        dir.path().join("config/depot.toml"),
        "[signing]\nexpires_secs = 0\n",
    )
    .unwrap();
    let output = run(dir.path(), &["config", "check"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains("signing.expires_secs"), "{stderr}");
    assert!(stderr.contains("'0'"), "{stderr}");
    assert!(stderr.contains("from 1 to 604800"), "{stderr}");
}

/// Exit 1 and the one line on stderr.
fn one_line_failure(output: &std::process::Output) -> String {
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

#[test]
fn a_named_config_or_env_file_must_exist_but_the_default_ones_may_not() {
    let dir = temp();
    // Neither default file exists: built-in defaults.
    assert!(run(dir.path(), &["config", "check"]).status.success());
    for (flag, default) in [
        ("--config", "config/depot.toml"),
        ("--env-file", ".env.service"),
    ] {
        let output = run(dir.path(), &["config", "check", flag, "missing/file"]);
        assert_eq!(
            one_line_failure(&output),
            format!(
                "depot: error: the file {} given with {flag} does not exist; create it, or \
                 leave {flag} out to read {default} (missing means built-in defaults)\n",
                dir.path().join("missing/file").display()
            )
        );
        // The same for a command that would start something.
        let output = run(dir.path(), &["serve", flag, "missing/file"]);
        assert!(one_line_failure(&output).contains("does not exist"));
    }
}

#[test]
fn config_mistakes_are_explained() {
    let dir = temp();
    std::fs::create_dir(dir.path().join("config")).unwrap();
    let config = dir.path().join("config/depot.toml");
    let check = |toml: &str| {
        std::fs::write(&config, toml).unwrap();
        one_line_failure(&run(dir.path(), &["config", "check"]))
    };
    // Messages name the file by its absolute path.
    assert_eq!(
        check("[files]\ndefault_limit = \"30\"\n"),
        format!(
            "depot: error: invalid configuration: files.default_limit (env \
             DEPOT_FILES_DEFAULT_LIMIT) = '30' from {}: must be an integer from 1 to 10000, got \
             a string; write it without quotes\n",
            config.display()
        )
    );
    assert_eq!(
        check("[files]\ndefualt_limit = 30\n"),
        format!(
            "depot: error: unknown configuration key 'files.defualt_limit' in {}; did you mean \
             files.default_limit?; see config/depot.toml for every key\n",
            config.display()
        )
    );
    std::fs::write(&config, "").unwrap();
    let output = support::depot(dir.path())
        .args(["config", "check"])
        .env("DEPOT_FILES_MAX_LIMT", "5")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "depot: warning: unknown variable DEPOT_FILES_MAX_LIMT in the environment is ignored; \
         did you mean DEPOT_FILES_MAX_LIMIT?\n"
    );
}

#[test]
fn a_command_error_shows_its_causes_in_one_line() {
    let dir = temp();
    let output = run(dir.path(), &["files", "import", "absent.jsonl"]);
    assert_eq!(
        one_line_failure(&output),
        format!(
            "depot: error: cannot read {}: caused by No such file or directory (os error 2)\n",
            dir.path().join("absent.jsonl").display()
        )
    );
    // A message that already carries its cause's text does not repeat it.
    let output = run(
        dir.path(),
        &["generate", "--source", "absent.csv", "-p", "out"],
    );
    let line = one_line_failure(&output);
    assert_eq!(
        line.matches("No such file or directory").count(),
        1,
        "{line}"
    );
}

#[test]
fn every_command_that_touches_the_data_takes_data_dir() {
    let dir = temp();
    let line = effective(dir.path(), &["--data-dir", "d0"], &[], "server.data_dir");
    assert!(
        line.starts_with(&format!(
            "server.data_dir = \"d0\"  # command line (env DEPOT_DATA_DIR); resolves to {}",
            dir.path().join("d0").display()
        )),
        "{line}"
    );
    std::fs::write(dir.path().join("a.txt"), "content").unwrap();
    std::fs::write(
        dir.path().join("records.jsonl"),
        "{\"fileName\": \"a.png\", \"description\": \"\", \"bucket\": \"depot\", \"status\": 1, \
         \"fileType\": \"png\", \"permission\": \"public\", \"key\": \"0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e5f\", \
         \"createdAt\": \"2026-01-02T03:04:05.001Z\"}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("sheet.csv"), ">>>,en\nYES,Yes\n").unwrap();
    let commands: [(&[&str], &str); 4] = [
        (&["files", "add", "a.txt", "--data-dir", "d1"], "d1/objects"),
        (
            &["files", "import", "records.jsonl", "--data-dir", "d2"],
            "d2/depot.sqlite3",
        ),
        (
            &["files", "seed", "3", "--data-dir", "d3"],
            "d3/depot.sqlite3",
        ),
        (
            &[
                "produce",
                "--once",
                "--source",
                "sheet.csv",
                "--data-dir",
                "d4",
            ],
            "d4/translations.sled",
        ),
    ];
    for (args, made) in commands {
        let output = run(dir.path(), args);
        assert!(output.status.success(), "{args:?}: {output:?}");
        assert!(
            dir.path().join(made).exists(),
            "{args:?} did not make {made}"
        );
    }
    assert!(
        !dir.path().join("data").exists(),
        "the default data folder was used"
    );
}

#[test]
fn unknown_service_variable_is_warned_about() {
    let dir = temp();
    std::fs::write(dir.path().join(".env.service"), "SERVICE_SPREADSHEETID=x\n").unwrap();
    let output = run(dir.path(), &["config", "check"]);
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("warning") && stderr.contains("SERVICE_SPREADSHEETID"),
        "{stderr}"
    );
}

async fn config_status(daemon: &Daemon) -> serde_json::Value {
    daemon.get_json("/health").await.1["config"].clone()
}

/// Waits until `/health` shows `revision` with or without an error.
async fn wait_for(daemon: &Daemon, revision: u64, with_error: bool) -> serde_json::Value {
    eventually(Duration::from_secs(2), || async {
        let c = config_status(daemon).await;
        (c["revision"] == revision && c["lastError"].is_null() != with_error).then_some(c)
    })
    .await
    .unwrap_or_else(|| {
        panic!(
            "config did not reach revision {revision} (error: {with_error}) within 2 s; log:\n{}",
            daemon.log()
        )
    })
}

#[tokio::test]
async fn editing_the_config_file_reloads_it_live() {
    let dir = temp();
    let config = dir.path().join("config/depot.toml");
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(&config, "[log]\nlevel = \"info\"\n").unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    wait_for(&daemon, 1, false).await;

    save_like_an_editor(&config, "[log]\nlevel = \"debug\"\n");
    wait_for(&daemon, 2, false).await;

    save_like_an_editor(&config, "[log]\nlevel = \"chatty\"\n");
    let broken = wait_for(&daemon, 2, true).await;
    let error = broken["lastError"].as_str().unwrap();
    assert!(
        error.contains("log.level") && error.contains("chatty"),
        "{error}"
    );

    std::fs::write(&config, "[log]\nlevel = \"warn\"\n").unwrap();
    wait_for(&daemon, 3, false).await;
}

#[tokio::test]
async fn editing_the_env_file_reloads_it_live() {
    let dir = temp();
    let env_file = dir.path().join(".env.service");
    std::fs::write(&env_file, "# credentials\nSERVICE_CLIENT_ID=one\n").unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;

    save_like_an_editor(&env_file, "# credentials\nSERVICE_CLIENT_ID=two\n");
    wait_for(&daemon, 2, false).await;

    save_like_an_editor(
        &env_file,
        "SERVICE_CLIENT_ID=two\nthis line has no equals sign\n",
    );
    let broken = wait_for(&daemon, 2, true).await;
    assert!(
        broken["lastError"].as_str().unwrap().contains(":2:"),
        "{broken}"
    );

    save_like_an_editor(&env_file, "SERVICE_CLIENT_ID=three\n");
    wait_for(&daemon, 3, false).await;
}

/// Polls `/health` for `span` and returns the first revision other than `revision`, if any
/// (a bounded wait for something that must not happen).
async fn revision_moves_from(daemon: &Daemon, revision: u64, span: Duration) -> Option<u64> {
    eventually(span, || async {
        let now = config_status(daemon).await["revision"].as_u64();
        (now != Some(revision)).then_some(now.unwrap_or_default())
    })
    .await
}

/// The page size `GET /files` uses without `limit` (`files.default_limit`, a live key): shows
/// which content the daemon applied.
async fn default_limit(daemon: &Daemon) -> u64 {
    let (status, body) = daemon.get_json("/files").await;
    assert_eq!(status, 200, "{body}");
    body["meta"]["limit"].as_u64().expect("meta.limit")
}

#[tokio::test]
async fn reading_touching_or_resaving_the_files_unchanged_does_not_reload() {
    let dir = temp();
    let config = dir.path().join("config/depot.toml");
    let env_file = dir.path().join(".env.service");
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(&config, "[files]\ndefault_limit = 20\n").unwrap();
    std::fs::write(&env_file, "SERVICE_CLIENT_ID=one\n").unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;

    save_like_an_editor(&config, "[files]\ndefault_limit = 21\n");
    wait_for(&daemon, 2, false).await;
    assert_eq!(default_limit(&daemon).await, 21);

    // Reading, touching and saving the same bytes again change no content.
    for path in [&config, &env_file] {
        let bytes = std::fs::read(path).unwrap();
        for _ in 0..3 {
            assert_eq!(std::fs::read(path).unwrap(), bytes);
        }
        let touched = std::process::Command::new("touch").arg(path).status();
        assert!(
            touched.is_ok_and(|s| s.success()),
            "touch (coreutils) must be installed"
        );
        std::fs::write(path, &bytes).unwrap();
        save_like_an_editor(path, std::str::from_utf8(&bytes).unwrap());
    }
    let moved = revision_moves_from(&daemon, 2, Duration::from_millis(1500)).await;
    assert_eq!(
        moved,
        None,
        "reloaded without a change; log:\n{}",
        daemon.log()
    );
    assert_eq!(daemon.log().matches("configuration reloaded").count(), 1);

    // A real change still applies, exactly once.
    save_like_an_editor(&config, "[files]\ndefault_limit = 22\n");
    wait_for(&daemon, 3, false).await;
    assert_eq!(default_limit(&daemon).await, 22);
    let moved = revision_moves_from(&daemon, 3, Duration::from_millis(600)).await;
    assert_eq!(moved, None, "log:\n{}", daemon.log());
}

#[tokio::test]
async fn sighup_reloads_the_configuration_and_the_daemon_keeps_running() {
    let dir = temp();
    // No config/ folder at start: the watcher cannot watch it, so only SIGHUP can bring a
    // file created there later into force.
    let mut daemon = Daemon::start(dir.path(), &[], &[]).await;
    assert_eq!(default_limit(&daemon).await, 25);

    // Nothing changed: the daemon lives, logs the request, keeps revision 1.
    support::signal(daemon.child.id(), "HUP");
    let logged = eventually(Duration::from_secs(5), || async {
        daemon
            .log()
            .contains("reload requested by SIGHUP")
            .then_some(())
    })
    .await;
    assert!(logged.is_some(), "{}", daemon.log());
    let moved = revision_moves_from(&daemon, 1, Duration::from_millis(600)).await;
    assert_eq!(moved, None, "log:\n{}", daemon.log());
    assert_eq!(
        daemon.child.try_wait().unwrap(),
        None,
        "SIGHUP ended the daemon"
    );

    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(
        dir.path().join("config/depot.toml"),
        "[files]\ndefault_limit = 30\n",
    )
    .unwrap();
    support::signal(daemon.child.id(), "HUP");
    wait_for(&daemon, 2, false).await;
    assert_eq!(default_limit(&daemon).await, 30);
    assert_eq!(
        daemon.log().matches("reload requested by SIGHUP").count(),
        2
    );
    assert_eq!(daemon.child.try_wait().unwrap(), None);
}

#[tokio::test]
async fn a_restart_only_change_is_logged_and_not_applied() {
    let dir = temp();
    let config = dir.path().join("config/depot.toml");
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(&config, "").unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    save_like_an_editor(&config, "[server]\ndata_dir = \"elsewhere\"\n");
    wait_for(&daemon, 2, false).await;
    let logged = eventually(Duration::from_secs(2), || async {
        daemon.log().contains("needs restart").then_some(())
    })
    .await;
    assert!(logged.is_some(), "{}", daemon.log());
    assert!(daemon.log().contains("server.data_dir"));
}

const SECRETS: [(&str, &str); 4] = [
    ("DEPOT_API_KEYS", "sekrit-api-key"),
    ("DEPOT_ADMIN_KEYS", "sekrit-admin-key"),
    ("SERVICE_CLIENT_SECRET", "sekrit-client"),
    ("DEPOT_SIGNING_SECRET_ACCESS_KEY", "sekrit-signing"),
];

#[tokio::test]
async fn unknown_route_and_wrong_method_give_json_errors_without_secrets() {
    let dir = temp();
    let daemon = Daemon::start(dir.path(), &[], &SECRETS).await;

    let (status, body) = daemon.get_json("/no/such/route").await;
    assert_eq!(status, 404);
    assert_eq!(body["statusCode"], 404);
    assert_eq!(body["error"], "Not Found");
    assert!(body["message"].as_str().unwrap().contains("route"));

    let client = reqwest::Client::new();
    let response = client.post(daemon.url("/health")).send().await.unwrap();
    assert_eq!(response.status(), 405);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["statusCode"], 405);
    assert_eq!(body["error"], "Method Not Allowed");
    assert!(body["message"].as_str().unwrap().contains("GET"), "{body}");

    let mut seen = String::new();
    for path in [
        "/no/such/route",
        "/health",
        "/openapi.json",
        "/metrics",
        "/health?x=%zz",
    ] {
        seen.push_str(&daemon.get(path).await.text().await.unwrap());
    }
    for method in [
        reqwest::Method::DELETE,
        reqwest::Method::PUT,
        reqwest::Method::PATCH,
    ] {
        let r = client
            .request(method, daemon.url("/health"))
            .send()
            .await
            .unwrap();
        seen.push_str(&r.text().await.unwrap());
    }
    assert!(!seen.contains("sekrit"), "a secret leaked: {seen}");
}

#[tokio::test]
async fn a_refused_config_never_shows_its_secret() {
    let dir = temp();
    let config = dir.path().join("config/depot.toml");
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(&config, "").unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    // A string where a list is expected: refused, and the message must not echo it.
    save_like_an_editor(&config, "[auth]\napi_keys = \"sekrit-inline\"\n");
    let broken = wait_for(&daemon, 1, true).await;
    let error = broken["lastError"].as_str().unwrap();
    assert!(error.contains("auth.api_keys"), "{error}");
    assert!(!error.contains("sekrit"), "{error}");
    assert!(!daemon.log().contains("sekrit"), "{}", daemon.log());
}

#[tokio::test]
async fn sigterm_stops_the_daemon_with_exit_0() {
    let dir = temp();
    let mut daemon = Daemon::start(dir.path(), &[], &[]).await;
    let status = daemon
        .terminate(Duration::from_secs(5))
        .expect("exits within 5 s");
    assert_eq!(status.code(), Some(0), "{}", daemon.log());
}

#[tokio::test]
async fn sigint_stops_the_daemon_with_exit_0() {
    let dir = temp();
    let mut daemon = Daemon::start(dir.path(), &[], &[]).await;
    support::signal(daemon.child.id(), "INT");
    let status = support::wait_with_limit(&mut daemon.child, Duration::from_secs(5))
        .expect("exits within 5 s");
    assert_eq!(status.code(), Some(0));
}

#[tokio::test]
async fn a_second_daemon_on_the_same_port_exits_1_with_a_clear_message() {
    let dir = temp();
    let first = Daemon::start(dir.path(), &[], &[]).await;
    let second_dir = temp();
    let output = run(second_dir.path(), &["serve", "--listen", &first.addr]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("depot: error: cannot listen on"),
        "{stderr}"
    );
    assert!(last.contains("--listen"), "{stderr}");
}

#[tokio::test]
async fn every_route_in_the_openapi_document_is_served() {
    let dir = temp();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    let (status, doc) = daemon.get_json("/openapi.json").await;
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.0.3");
    let client = reqwest::Client::new();
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.contains_key("/health") && paths.contains_key("/metrics"));
    for (path, methods) in paths {
        for method in methods.as_object().unwrap().keys() {
            // Path parameters get a placeholder value; the route must exist (no 404 from
            // routing, no 405), whatever its handler answers to that value.
            let concrete = path.replace('{', "x").replace('}', "");
            let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let response = client
                .request(method.clone(), daemon.url(&concrete))
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            // An event stream never ends: its status and type are the answer.
            let streaming = response
                .headers()
                .get("content-type")
                .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
            let body = if streaming {
                String::new()
            } else {
                response.text().await.unwrap_or_default()
            };
            assert_ne!(status, 405, "{method} {path}");
            assert!(
                status != 404 || !body.contains("no such route"),
                "{method} {path} is not routed"
            );
        }
    }
}

#[tokio::test]
async fn metrics_count_requests_per_route_and_status() {
    let dir = temp();
    let daemon = Daemon::start(dir.path(), &[], &[]).await;
    daemon.get("/nope").await;
    let text = daemon.get("/metrics").await.text().await.unwrap();
    assert!(
        text.contains("depot_http_requests_total{route=\"/health\",method=\"GET\",status=\"200\"}"),
        "{text}"
    );
    assert!(
        text.contains(
            "depot_http_requests_total{route=\"unmatched\",method=\"GET\",status=\"404\"} 1"
        ),
        "{text}"
    );
    assert!(text.contains("# TYPE depot_http_request_duration_seconds histogram"));
}

#[test]
fn every_command_has_help() {
    let dir = temp();
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["generate", "--help"],
        vec!["produce", "--help"],
        vec!["auth", "--help"],
        vec!["files", "--help"],
        vec!["files", "add", "--help"],
        vec!["files", "import", "--help"],
        vec!["config", "check", "--help"],
    ] {
        let output = run(dir.path(), &args);
        assert!(output.status.success(), "{args:?}");
        assert!(
            String::from_utf8_lossy(&output.stdout).contains("Usage"),
            "{args:?}"
        );
    }
}

#[test]
fn a_usage_error_exits_2() {
    let dir = temp();
    let output = run(dir.path(), &["serve", "--no-such-flag"]);
    assert_eq!(output.status.code(), Some(2));
}

/// SIGTERM while a request is under way: the request still completes, then the daemon
/// exits 0. `Expect: 100-continue` tells us when the server has taken the request in (it
/// answers 100 when the handler starts reading the body), so no sleep is needed.
#[tokio::test]
async fn sigterm_lets_an_in_flight_request_finish() {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    let dir = temp();
    let mut daemon = Daemon::start(dir.path(), &[], &[("DEPOT_ADMIN_KEYS", "adm")]).await;

    let boundary = "depotboundary";
    let opening = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.txt\"\r\nContent-Type: text/plain\r\n\r\n"
    );
    let content = "still uploading when the signal came\n".repeat(100);
    let closing = format!("\r\n--{boundary}--\r\n");
    let length = opening.len() + content.len() + closing.len();
    let head = format!(
        "POST /files HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer adm\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
        daemon.addr
    );
    let stream = tokio::net::TcpStream::connect(&daemon.addr).await.unwrap();
    let (read_half, mut write_half) = stream.into_split();
    let mut reader = BufReader::new(read_half);
    write_half.write_all(head.as_bytes()).await.unwrap();
    let mut line = String::new();
    reader.read_line(&mut line).await.unwrap();
    assert!(line.starts_with("HTTP/1.1 100"), "{line}");
    reader.read_line(&mut line).await.unwrap();

    support::signal(daemon.child.id(), "TERM");
    for part in [opening.as_str(), content.as_str(), closing.as_str()] {
        write_half.write_all(part.as_bytes()).await.unwrap();
    }
    let mut response = String::new();
    reader.read_to_string(&mut response).await.unwrap();
    assert!(response.starts_with("HTTP/1.1 201"), "{response}");
    assert!(response.contains("\"fileName\":\"slow.txt\""), "{response}");

    let status = support::wait_with_limit(&mut daemon.child, Duration::from_secs(5))
        .expect("exits within 5 s");
    assert_eq!(status.code(), Some(0), "{}", daemon.log());
}
