//! Helpers for end-to-end tests: run the real `depot` binary in a temporary folder, find
//! the port it bound (it is started on port 0), talk to it over loopback HTTP.
//! reqwest is built without a default TLS provider (depot installs ring's), so the start
//! functions below install it before any client is made.
#![allow(
    dead_code,
    reason = "each test crate uses only some of the shared helpers"
)]

pub mod android;
pub mod csv_server;
pub mod engines;
pub mod fake_google;
pub mod gnustep;
pub mod jvm_mono;
pub mod nginx;
pub mod real_apps;
pub mod sdk_app;
pub mod service_account;
pub mod webhook_receiver;
pub mod xliff_schema;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_depot");

/// A `depot` command in `dir` with an environment free of the caller's DEPOT_*/SERVICE_*
/// variables, so that tests do not depend on the machine they run on.
pub fn depot(dir: &Path) -> Command {
    isolated(Command::new(BIN), dir)
}

/// `cmd` run in `dir` without the caller's DEPOT_*/SERVICE_* variables or display.
fn isolated(mut cmd: Command, dir: &Path) -> Command {
    cmd.current_dir(dir);
    // No browser pops up from a consent flow under test.
    cmd.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    for (name, _) in std::env::vars() {
        if name.starts_with("DEPOT_") || name.starts_with("SERVICE_") {
            cmd.env_remove(name);
        }
    }
    cmd
}

/// Runs a depot command to completion.
pub fn run(dir: &Path, args: &[&str]) -> Output {
    depot(dir).args(args).output().expect("depot runs")
}

/// Runs a depot command with extra environment variables and asserts that it succeeded,
/// showing its stderr when it did not.
pub fn run_ok<K, V>(dir: &Path, args: &[&str], env: impl IntoIterator<Item = (K, V)>) -> Output
where
    K: AsRef<std::ffi::OsStr>,
    V: AsRef<std::ffi::OsStr>,
{
    let output = depot(dir)
        .args(args)
        .envs(env)
        .output()
        .expect("depot runs");
    assert!(
        output.status.success(),
        "depot {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Serves `routes` on a free loopback port until the returned sender fires or is dropped
/// (the in-process servers the tests talk to: fake Google, CSV host, webhook receiver).
pub async fn serve_on_loopback(
    routes: warp::filters::BoxedFilter<(warp::reply::Response,)>,
) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    serve_on("127.0.0.1", routes).await
}

/// Like `serve_on_loopback`, on a free port of `ip` (127.0.0.2 is another site to a
/// browser than depot's 127.0.0.1).
pub async fn serve_on(
    ip: &str,
    routes: warp::filters::BoxedFilter<(warp::reply::Response,)>,
) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind((ip, 0))
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("the bound address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(
        warp::serve(routes)
            .incoming(listener)
            .graceful(async move {
                let _ = stopped.await;
            })
            .run(),
    );
    (addr, stop)
}

/// A running `depot serve`; killed when dropped.
pub struct Daemon {
    pub child: Child,
    pub base: String,
    pub addr: String,
    pub dir: PathBuf,
    log: Arc<Mutex<Vec<String>>>,
}

impl Daemon {
    /// Starts `depot serve --listen 127.0.0.1:0 <extra>` in `dir` and waits until
    /// `/health` answers.
    pub async fn start(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Daemon {
        Daemon::start_on(dir, "127.0.0.1:0", extra, env).await
    }

    /// Like `start`, on a given address.
    pub async fn start_on(
        dir: &Path,
        listen: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Daemon {
        let mut cmd = depot(dir);
        cmd.args(["serve", "--listen", listen]).args(extra);
        Daemon::spawn(cmd, dir, env).await
    }

    /// Like `start`, under an open-file limit (`ulimit -n`, soft and hard) of `fd_limit`;
    /// the daemon keeps the shell's process id (`exec`).
    pub async fn start_with_fd_limit(
        dir: &Path,
        fd_limit: u64,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Daemon {
        let mut cmd = isolated(Command::new("sh"), dir);
        cmd.arg("-c")
            .arg(format!("ulimit -n {fd_limit} && exec \"$0\" \"$@\""))
            .args([BIN, "serve", "--listen", "127.0.0.1:0"])
            .args(extra);
        Daemon::spawn(cmd, dir, env).await
    }

    /// Runs `cmd` (a `depot serve`) and waits until `/health` answers.
    async fn spawn(mut cmd: Command, dir: &Path, env: &[(&str, &str)]) -> Daemon {
        depot::tls::install_tls_provider();
        cmd.envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("depot serve starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        {
            let log = log.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if let Some(addr) = listening_address(&line) {
                        let _ = tx.send(addr);
                    }
                    log.lock().unwrap().push(line);
                }
            });
        }
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("depot did not start: {:?}", log.lock().unwrap()));
        let daemon = Daemon {
            child,
            base: format!("http://{addr}"),
            addr,
            dir: dir.to_path_buf(),
            log,
        };
        daemon.wait_healthy().await;
        daemon
    }

    pub async fn wait_healthy(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(r) = reqwest::get(self.url("/health")).await
                && r.status() == 200
            {
                return;
            }
            assert!(Instant::now() < deadline, "depot never became healthy");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        reqwest::get(self.url(path))
            .await
            .expect("request succeeds")
    }

    pub async fn get_json(&self, path: &str) -> (u16, serde_json::Value) {
        let response = self.get(path).await;
        let status = response.status().as_u16();
        (status, response.json().await.expect("JSON body"))
    }

    /// The `signedUrl` that `GET /file?key=` gives for `key` with `api_key`.
    pub async fn signed_url(&self, key: &str, api_key: &str) -> String {
        let record: serde_json::Value = reqwest::Client::new()
            .get(self.url(&format!("/file?{}", query(&[("key", key)]))))
            .bearer_auth(api_key)
            .send()
            .await
            .expect("request succeeds")
            .json()
            .await
            .expect("JSON body");
        record["signedUrl"]
            .as_str()
            .unwrap_or_else(|| panic!("no signedUrl for {key}: {record}"))
            .to_owned()
    }

    /// Uploads `content` as a record named `file_name` with the `fileType` given, through
    /// the direct upload API (`POST /files/uploads`, the presigned PUT, the completion), with
    /// `admin_key`; the record's key. The API takes any `fileType` as written.
    pub async fn upload(
        &self,
        admin_key: &str,
        file_name: &str,
        file_type: &str,
        content: &[u8],
    ) -> String {
        let client = reqwest::Client::new();
        let begin = serde_json::json!({
            "fileName": file_name, "size": content.len(), "fileType": file_type,
        });
        let plan: serde_json::Value = client
            .post(self.url("/files/uploads"))
            .bearer_auth(admin_key)
            .json(&begin)
            .send()
            .await
            .expect("request succeeds")
            .json()
            .await
            .expect("JSON body");
        let key = plan["key"]
            .as_str()
            .unwrap_or_else(|| panic!("no upload planned: {plan}"))
            .to_owned();
        let upload = &plan["upload"];
        let mut put = client
            .put(upload["url"].as_str().expect("an upload URL"))
            .body(content.to_vec());
        for (name, value) in upload["headers"].as_object().expect("upload headers") {
            put = put.header(name, value.as_str().expect("a header value"));
        }
        let put = put.send().await.expect("request succeeds");
        assert_eq!(put.status(), 200, "{:?}", put.text().await);
        let done = client
            .post(self.url(&format!("/files/uploads/{key}/complete")))
            .bearer_auth(admin_key)
            .send()
            .await
            .expect("request succeeds");
        assert_eq!(done.status(), 201, "{:?}", done.text().await);
        key
    }

    /// Everything the daemon logged so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    /// Sends SIGTERM and waits for the exit, at most `limit`.
    pub fn terminate(&mut self, limit: Duration) -> Option<ExitStatus> {
        signal(self.child.id(), "TERM");
        wait_with_limit(&mut self.child, limit)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The address in the daemon's `depot listening address=…` log line, if `line` is it.
pub fn listening_address(line: &str) -> Option<String> {
    if !line.contains("depot listening") {
        return None;
    }
    let start = line.find("address=")? + "address=".len();
    let rest = &line[start..];
    Some(rest.split_whitespace().next()?.trim_matches('"').to_owned())
}

pub fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([format!("-{name}"), pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

pub fn wait_with_limit(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls `check` until it returns `Some`, for at most `limit`.
pub async fn eventually<T, F, Fut>(limit: Duration, mut check: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = check().await {
            return Some(v);
        }
        if Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Writes a file by writing a sibling and renaming it over, as editors do.
pub fn save_like_an_editor(path: &Path, text: &str) {
    let tmp = path.with_extension("swp-depot-test");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// A server run in-process over stores the test holds, in its own temporary folder, for
/// tests that put translation documents in directly (what the producer will do). Stops
/// when dropped.
pub struct TestServer {
    pub state: Arc<depot::server::AppState>,
    pub base: String,
    pub client: reqwest::Client,
    shutdown: depot::shutdown::Shutdown,
    _dir: tempfile::TempDir,
}

impl TestServer {
    /// Opens the stores in a new temporary folder and serves them on a loopback port. The
    /// listener is bound before this returns, so requests can follow at once.
    pub async fn start() -> TestServer {
        depot::tls::install_tls_provider();
        let dir = tempfile::tempdir().expect("temp dir");
        let sources = depot::config::Sources {
            toml_path: dir.path().join("depot.toml"),
            env_file: dir.path().join(".env.service"),
            process_env: vec![],
            flags: vec![
                (
                    "server.data_dir".into(),
                    dir.path().join("data").display().to_string(),
                ),
                ("server.listen".into(), "127.0.0.1:0".into()),
                // The tests store their own sheets (`put_sheet`); a producer would serve
                // the built-in example sheet meanwhile (no spreadsheet is configured).
                ("producer.enabled".into(), "false".into()),
            ],
        };
        let loaded = depot::config::load(&sources).expect("configuration loads");
        let handle = depot::config::ConfigHandle::new(sources, loaded);
        let state = tokio::task::spawn_blocking(move || depot::server::AppState::open(handle))
            .await
            .expect("open task runs")
            .expect("stores open");
        let state = Arc::new(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("loopback port");
        let base = format!("http://{}", listener.local_addr().expect("bound address"));
        let shutdown = depot::shutdown::Shutdown::new();
        tokio::spawn(depot::server::serve_state(
            state.clone(),
            listener,
            shutdown.clone(),
        ));
        TestServer {
            state,
            base,
            client: reqwest::Client::new(),
            shutdown,
            _dir: dir,
        }
    }

    /// Converts sheet rows and stores the document, as the producer does after a fetch.
    pub async fn put_sheet(
        &self,
        rows: Vec<Vec<String>>,
    ) -> depot::translations::store::PutOutcome {
        let state = self.state.clone();
        tokio::task::spawn_blocking(move || {
            let document = depot::markup::convert(rows).expect("sheet converts");
            state
                .translations
                .put(document, 10)
                .expect("document stored")
                .outcome
        })
        .await
        .expect("put task runs")
    }

    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{}", self.base, path_and_query)
    }

    /// GET with extra request headers; the body is read whole, without decompression.
    pub async fn get(&self, path_and_query: &str, headers: &[(&str, &str)]) -> HttpReply {
        let mut request = self.client.get(self.url(path_and_query));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.expect("request succeeds");
        HttpReply::read(response).await
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.shutdown.trigger();
    }
}

/// A response as a test looks at it.
#[derive(Debug)]
pub struct HttpReply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

impl HttpReply {
    /// Status, headers and the whole body (not decompressed) of `response`.
    pub async fn read(response: reqwest::Response) -> HttpReply {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.bytes().await.expect("body").to_vec();
        HttpReply {
            status,
            headers,
            body,
        }
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("UTF-8 body")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("ASCII header"))
    }

    /// The contract's error body `{"statusCode", "error", "code", "message"}` (and nothing
    /// else), checked against the status line, its code one of the listed codes with that
    /// status; returns the message.
    pub fn error_message(&self) -> String {
        let body: serde_json::Value = serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("error body is not JSON ({e}): {:?}", self.text()));
        let fields = body.as_object().expect("error body is an object");
        let mut names: Vec<&str> = fields.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, ["code", "error", "message", "statusCode"], "{body}");
        assert_eq!(body["statusCode"], self.status, "{body}");
        let code = depot::http::error::ErrorCode::ALL
            .iter()
            .find(|c| body["code"] == c.as_str())
            .unwrap_or_else(|| panic!("not a listed code: {body}"));
        assert_eq!(code.status(), self.status, "{body}");
        let reason = reqwest::StatusCode::from_u16(self.status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .expect("a standard status");
        assert_eq!(body["error"], reason, "{body}");
        body["message"]
            .as_str()
            .expect("message is text")
            .to_owned()
    }
}

/// The text of `tests/fixtures/<path>`.
pub fn fixture_text(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The `values` of `tests/fixtures/sheets/<name>.sheet.json`: the rows the Sheets API gives.
pub fn sheet_rows(name: &str) -> Vec<Vec<String>> {
    let sheet: serde_json::Value =
        serde_json::from_str(&fixture_text(&format!("sheets/{name}.sheet.json")))
            .expect("sheet fixture is JSON");
    serde_json::from_value(sheet["values"].clone()).expect("values are rows of strings")
}

/// A query string from `(name, value)` pairs, both percent-encoded (RFC 3986 unreserved
/// characters stay as they are).
pub fn query(pairs: &[(&str, &str)]) -> String {
    fn encode(s: &str) -> String {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect()
    }
    pairs
        .iter()
        .map(|(name, value)| format!("{}={}", encode(name), encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}
