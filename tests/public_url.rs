//! The base URL of the links depot gives clients (issue 30): signed URLs of the embedded
//! store and upload URLs start with `server.public_url` when it is set (`signing.public_url`
//! is its old name, still read, with a note to rename it); without it, on a wildcard listen
//! address, with the address of this machine the request came in on (never loopback for a
//! client on the LAN, and never what the client's `Host` header says).
#![cfg(test)]

mod support;

use std::net::{IpAddr, Ipv4Addr, UdpSocket};
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use support::{Daemon, query};

const ADMIN: &str = "admin-key-for-public-urls";

/// An address of this machine that is not loopback (the one its default route leaves
/// from: connecting a UDP socket sends nothing), else 127.0.0.2, another address of the
/// loopback network that is not 127.0.0.1.
fn address_of_this_machine() -> IpAddr {
    let routed = UdpSocket::bind("0.0.0.0:0")
        .and_then(|socket| {
            socket.connect("192.0.2.1:9")?;
            socket.local_addr()
        })
        .map(|addr| addr.ip())
        .ok()
        .filter(|ip| !ip.is_loopback() && !ip.is_unspecified());
    routed.unwrap_or(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)))
}

/// Records `a.txt` with `depot files add`; its key.
fn add_file(dir: &Path) -> String {
    std::fs::write(dir.join("a.txt"), "hello").unwrap();
    let out = support::run_ok(
        dir,
        &["files", "add", "a.txt"],
        std::iter::empty::<(&str, &str)>(),
    );
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    record["key"].as_str().unwrap().to_owned()
}

async fn signed_url(base: &str, key: &str, host: Option<&str>) -> String {
    let mut request = reqwest::Client::new().get(format!("{base}/file?{}", query(&[("key", key)])));
    if let Some(host) = host {
        request = request.header("host", host);
    }
    let record: Value = request.send().await.unwrap().json().await.unwrap();
    record["signedUrl"]
        .as_str()
        .unwrap_or_else(|| panic!("no signedUrl: {record}"))
        .to_owned()
}

async fn upload_url(daemon: &Daemon) -> String {
    let plan: Value = reqwest::Client::new()
        .post(daemon.url("/files/uploads"))
        .bearer_auth(ADMIN)
        .header("content-type", "application/json")
        .body(json!({"fileName": "b.txt", "size": 5}).to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    plan["upload"]["url"]
        .as_str()
        .unwrap_or_else(|| panic!("no upload URL: {plan}"))
        .to_owned()
}

async fn wait_for_log(daemon: &Daemon, text: &str) -> String {
    support::eventually(Duration::from_secs(5), || async {
        daemon
            .log()
            .lines()
            .find(|l| l.contains(text))
            .map(str::to_owned)
    })
    .await
    .unwrap_or_else(|| panic!("no line with {text:?}:\n{}", daemon.log()))
}

/// On 0.0.0.0 with no public URL, a client that reached depot at an address of the
/// machine gets links at that address (they used to be 127.0.0.1, useless on a phone), and
/// they work; a `Host` header of its choosing changes nothing.
#[tokio::test]
async fn on_a_wildcard_address_links_use_the_address_the_request_came_in_on() {
    let dir = tempfile::tempdir().unwrap();
    let key = add_file(dir.path());
    let daemon = Daemon::start_on(
        dir.path(),
        "0.0.0.0:0",
        &[],
        &[
            ("DEPOT_ADMIN_KEYS", ADMIN),
            ("DEPOT_PRODUCER_ENABLED", "false"),
        ],
    )
    .await;
    let port = daemon.addr.rsplit(':').next().unwrap().to_owned();
    let ip = address_of_this_machine();
    let base = format!("http://{ip}:{port}");
    let url = signed_url(&base, &key, None).await;
    assert!(
        url.starts_with(&format!("{base}/objects/")),
        "{url} is not at {base}"
    );
    let content = reqwest::get(&url).await.unwrap();
    assert_eq!(content.status(), 200, "{url}");
    assert_eq!(content.text().await.unwrap(), "hello");
    let forged = signed_url(&base, &key, Some("evil.example")).await;
    assert!(forged.starts_with(&format!("{base}/objects/")), "{forged}");
    // the same server, reached on loopback, gives loopback links
    let local = signed_url(&format!("http://127.0.0.1:{port}"), &key, None).await;
    assert!(
        local.starts_with(&format!("http://127.0.0.1:{port}/objects/")),
        "{local}"
    );
    let line = wait_for_log(&daemon, "public base URL").await;
    assert!(
        line.contains(" INFO ") && line.contains("the address each request came in on"),
        "{line}"
    );
}

/// `server.public_url` is the base of every link: the signed URL of GET /file and the
/// upload URL of POST /files/uploads, whatever address the request came in on.
#[tokio::test]
async fn server_public_url_is_the_base_of_signed_and_upload_urls() {
    let dir = tempfile::tempdir().unwrap();
    let key = add_file(dir.path());
    let daemon = Daemon::start(
        dir.path(),
        &["--set", "server.public_url=https://depot.example/"],
        &[
            ("DEPOT_ADMIN_KEYS", ADMIN),
            ("DEPOT_PRODUCER_ENABLED", "false"),
        ],
    )
    .await;
    let url = signed_url(&daemon.base, &key, None).await;
    assert!(
        url.starts_with("https://depot.example/objects/depot/"),
        "{url}"
    );
    let upload = upload_url(&daemon).await;
    assert!(
        upload.starts_with("https://depot.example/objects/depot/"),
        "{upload}"
    );
    let line = wait_for_log(&daemon, "public base URL").await;
    assert!(
        line.contains("url=https://depot.example key=\"server.public_url\""),
        "{line}"
    );
}

/// `signing.public_url`, the old name, still works; `config check` (every command) says to
/// rename it, and `server.public_url` wins when both are set.
#[tokio::test]
async fn signing_public_url_is_still_read_with_a_note_to_rename_it() {
    let dir = tempfile::tempdir().unwrap();
    let key = add_file(dir.path());
    let old = [("DEPOT_SIGNING_PUBLIC_URL", "https://old.example")];
    let check = support::run_ok(dir.path(), &["config", "check"], old);
    assert_eq!(
        String::from_utf8_lossy(&check.stderr),
        "depot: warning: signing.public_url (env DEPOT_SIGNING_PUBLIC_URL, set in the \
         environment) is the old name of server.public_url (env DEPOT_PUBLIC_URL), the base URL \
         clients reach depot at: it still works; rename it\n"
    );
    let daemon = Daemon::start(dir.path(), &[], &old).await;
    let url = signed_url(&daemon.base, &key, None).await;
    assert!(url.starts_with("https://old.example/objects/"), "{url}");
    drop(daemon);

    let both = [
        ("DEPOT_SIGNING_PUBLIC_URL", "https://old.example"),
        ("DEPOT_PUBLIC_URL", "https://new.example"),
    ];
    let check = support::run_ok(dir.path(), &["config", "check"], both);
    assert!(
        String::from_utf8_lossy(&check.stderr).ends_with("server.public_url is set too and wins\n"),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let daemon = Daemon::start(dir.path(), &[], &both).await;
    let url = signed_url(&daemon.base, &key, None).await;
    assert!(url.starts_with("https://new.example/objects/"), "{url}");
}
