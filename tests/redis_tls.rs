//! `rediss://` with a password: `depot produce` stores over TLS, a node loads and serves
//! it, `/health` and `config check` never show the password.
#![cfg(test)]

mod support;

use support::Daemon;
use support::engines::TlsRedisServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rediss_with_a_password_stores_and_serves_without_showing_the_password() {
    let redis = TlsRedisServer::start();
    let ca = redis.ca_file().display().to_string();
    let env = [
        ("DEPOT_TRANSLATIONS_STORAGE", "redis".to_owned()),
        ("DEPOT_TRANSLATIONS_REDIS_URL", redis.url()),
        // rustls reads the CA to trust from here (the test CA is not a system one).
        ("SSL_CERT_FILE", ca),
    ];
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        work.path().join("sheet.csv"),
        include_str!("fixtures/sheets/basic.csv"),
    )
    .unwrap();
    let output = support::depot(work.path())
        .args(["produce", "--once", "--source", "sheet.csv"])
        .envs(env.clone())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let dir = tempfile::tempdir().unwrap();
    let refs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let daemon = Daemon::start(dir.path(), &["--set", "producer.enabled=false"], &refs).await;
    let response = daemon.get("/translations?filters%5B%5D=pl.CORE").await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.text().await.unwrap(),
        r#"{"pl":{"CORE":{"LABELS":{"YES":"Tak","NO":"Nie"}}}}"#
    );
    let health = daemon.get("/health").await.text().await.unwrap();
    assert!(
        !health.contains(support::engines::TLS_REDIS_PASSWORD),
        "{health}"
    );

    let output = support::depot(dir.path())
        .args(["config", "check"])
        .envs(env.clone())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let masked = format!(
        "translations.redis_url = \"rediss://:***@localhost:{}/0\"",
        redis.engine.port
    );
    assert!(stdout.contains(&masked), "{stdout}");
    assert!(!stdout.contains(support::engines::TLS_REDIS_PASSWORD));
    assert!(!daemon.log().contains(support::engines::TLS_REDIS_PASSWORD));
}
