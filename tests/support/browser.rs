//! A real browser for console tests: Debian's `chromium`, headless, driven over WebDriver
//! through the distribution's `chromedriver`, started by the test on a free loopback port
//! and stopped when dropped. A missing browser or driver fails the test with the install
//! command; it never skips.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use thirtyfour::prelude::*;

/// How to get what these tests need (also what `scripts/test` installs).
pub const INSTALL_HINT: &str = "the console browser tests need Debian's chromium and chromium-driver: apt-get install -y chromium chromium-driver (scripts/test installs them)";

/// A running chromedriver with one browser session; both end when dropped or `quit`.
pub struct Browser {
    pub driver: WebDriver,
    chromedriver: Child,
    _profile: tempfile::TempDir,
}

fn find(program: &str) -> PathBuf {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file());
    found.unwrap_or_else(|| panic!("`{program}` is not installed: {INSTALL_HINT}"))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Starts chromedriver on a free port and waits until it answers. The port is free when
/// picked but may be taken before chromedriver binds it (tests start engines in parallel),
/// and a first start on a fresh machine can be slow: a driver that exited is started again
/// on another port, and a driver that never answers fails with what it printed.
async fn start_chromedriver() -> (Child, String) {
    let program = find("chromedriver");
    let mut last_words = String::new();
    for _attempt in 0..3 {
        let port = free_port();
        let log = tempfile::NamedTempFile::new().expect("chromedriver log file");
        let mut child = Command::new(&program)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdout(
                log.reopen()
                    .map(Stdio::from)
                    .unwrap_or_else(|_| Stdio::null()),
            )
            .stderr(
                log.reopen()
                    .map(Stdio::from)
                    .unwrap_or_else(|_| Stdio::null()),
            )
            .spawn()
            .unwrap_or_else(|e| panic!("chromedriver does not start ({e}): {INSTALL_HINT}"));
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let ready = reqwest::get(format!("{url}/status"))
                .await
                .is_ok_and(|r| r.status().is_success());
            if ready {
                return (child, url);
            }
            let exited = matches!(child.try_wait(), Ok(Some(_)));
            if exited || Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                last_words = std::fs::read_to_string(log.path()).unwrap_or_default();
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    panic!("chromedriver never answered (three starts); it printed:\n{last_words}\n{INSTALL_HINT}")
}

impl Browser {
    /// Starts chromedriver and a headless chromium with a fresh profile and `downloads` as
    /// the download folder.
    pub async fn start(downloads: &Path) -> Browser {
        let chromium = find("chromium");
        let (chromedriver, url) = start_chromedriver().await;
        let profile = tempfile::tempdir().expect("profile folder");
        let mut caps = DesiredCapabilities::chrome();
        caps.set_binary(&chromium.display().to_string())
            .expect("binary");
        // What chromium needs to run as root in a container, with no traffic of its own.
        for arg in [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1280,900",
        ] {
            caps.add_arg(arg).expect("argument");
        }
        caps.add_arg(&format!("--user-data-dir={}", profile.path().display()))
            .expect("argument");
        caps.add_experimental_option(
            "prefs",
            serde_json::json!({
                "download.default_directory": downloads.display().to_string(),
                "download.prompt_for_download": false,
            }),
        )
        .expect("prefs");
        let driver = WebDriver::new(&url, caps).await.unwrap_or_else(|e| {
            panic!("chromium does not start under chromedriver ({e}): {INSTALL_HINT}")
        });
        Browser {
            driver,
            chromedriver,
            _profile: profile,
        }
    }

    /// Ends the session and the driver.
    pub async fn quit(mut self) {
        let driver = self.driver.clone();
        let _ = driver.quit().await;
        let _ = self.chromedriver.kill();
        let _ = self.chromedriver.wait();
    }

    /// Saves a screenshot of the page as `<dir>/<name>.png`.
    pub async fn screenshot(&self, dir: &Path, name: &str) {
        std::fs::create_dir_all(dir).expect("screenshot folder");
        self.driver
            .screenshot(&dir.join(format!("{name}.png")))
            .await
            .expect("screenshot");
    }

    /// The text of the page's body; empty while a page is still loading.
    pub async fn text(&self) -> String {
        match self.driver.find(By::Tag("body")).await {
            Ok(body) => body.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// Waits until the page shows `wanted` (at most 10 s); the page's text.
    pub async fn wait_for_text(&self, wanted: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = self.text().await;
            if text.contains(wanted) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "the page never showed {wanted:?}; it shows:\n{text}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.chromedriver.kill();
        let _ = self.chromedriver.wait();
    }
}
