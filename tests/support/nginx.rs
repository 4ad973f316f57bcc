//! nginx as the reverse-proxy cache a deployment puts in front of depot (SPEC §14): on a
//! free loopback port, with its own prefix, configuration and cache in a temporary folder,
//! caching as depot's headers say (`proxy_cache` with no lifetime of its own, revalidation
//! with `If-None-Match`), each request's cache status in its access log. A missing nginx
//! fails the test with the package that brings it.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Nginx {
    child: Child,
    pub base: String,
    dir: tempfile::TempDir,
}

impl Nginx {
    /// nginx in front of `upstream` (`127.0.0.1:PORT`).
    pub fn start(upstream: &str) -> Nginx {
        let program = super::engines::require("nginx", "nginx");
        let dir = tempfile::tempdir().expect("a temporary folder for nginx");
        let port = super::engines::free_port();
        let at = |name: &str| dir.path().join(name).display().to_string();
        // One process, as the user running the test: as root a master would start its
        // workers as `nobody` (who cannot write the cache folder), and a killed master
        // would leave them behind.
        let conf = format!(
            r#"master_process off;
pid {pid};
error_log {error} warn;
events {{ worker_connections 256; }}
http {{
  log_format cache '$request_uri $upstream_cache_status $status';
  access_log {access} cache;
  client_body_temp_path {tmp}/body;
  proxy_temp_path {tmp}/proxy;
  fastcgi_temp_path {tmp}/fastcgi;
  uwsgi_temp_path {tmp}/uwsgi;
  scgi_temp_path {tmp}/scgi;
  proxy_cache_path {cache} levels=1:2 keys_zone=depot:10m max_size=100m inactive=1h use_temp_path=off;
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://{upstream};
      proxy_http_version 1.1;
      proxy_cache depot;
      proxy_cache_revalidate on;
      proxy_cache_lock on;
      add_header X-Cache-Status $upstream_cache_status always;
    }}
  }}
}}
"#,
            pid = at("nginx.pid"),
            error = at("error.log"),
            access = at("access.log"),
            tmp = dir.path().display(),
            cache = at("cache"),
        );
        std::fs::write(dir.path().join("nginx.conf"), conf).expect("nginx.conf written");
        let child = Command::new(&program)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(dir.path().join("nginx.conf"))
            .args(["-g", "daemon off;"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
        let nginx = Nginx {
            child,
            base: format!("http://127.0.0.1:{port}"),
            dir,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "nginx did not start: {}",
                nginx.error_log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        nginx
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.path("error.log")).unwrap_or_default()
    }

    /// Each request nginx answered so far: (request URI, cache status, status).
    pub fn requests(&self) -> Vec<(String, String, String)> {
        std::fs::read_to_string(self.path("access.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| {
                let mut parts = line.split(' ');
                Some((
                    parts.next()?.to_owned(),
                    parts.next()?.to_owned(),
                    parts.next()?.to_owned(),
                ))
            })
            .collect()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
