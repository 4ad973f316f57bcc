//! Helpers for end-to-end tests: run the real `depot` binary in a temporary folder, find
//! the port it bound (it is started on port 0), talk to it over loopback HTTP.
#![allow(dead_code)]

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
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir);
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
        let mut cmd = depot(dir);
        cmd.args(["serve", "--listen", "127.0.0.1:0"])
            .args(extra)
            .envs(env.iter().copied())
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

fn listening_address(line: &str) -> Option<String> {
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
