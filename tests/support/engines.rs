//! Real engines for tests (redis-server, and s3s-fs: an S3 server that verifies signatures):
//! each runs on a free loopback port in its own temporary folder, is waited for until it
//! answers, and is stopped when dropped. A missing engine fails the test with the package
//! that brings it, so a test never passes silently without its engine.
//! Also compiled into the library's unit tests (the Redis store suite), so std only.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long an engine may take to answer after it was started.
const READY_WITHIN: Duration = Duration::from_secs(20);

/// How to run one engine.
#[derive(Clone, Copy)]
pub struct EngineSpec {
    /// The program, looked up on `PATH` and in the Debian folders that are not on it.
    pub program: &'static str,
    /// The Debian package that installs it (for the failure message).
    pub package: &'static str,
    /// Command-line arguments for a port and a data folder.
    pub args: fn(port: u16, dir: &Path) -> Vec<String>,
    /// Whether the engine answers on `port` yet.
    pub ready: fn(port: u16) -> bool,
}

/// A running engine; killed when dropped. Its folder lives as long as the value, so a
/// restart finds its data again.
pub struct Engine {
    spec: EngineSpec,
    program: PathBuf,
    child: Option<Child>,
    pub port: u16,
    pub dir: tempfile::TempDir,
}

/// The absolute path of `program`, or a panic that says how to install it.
pub fn require(program: &str, package: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/local/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "{program} is not installed; this test runs the real engine. \
                 Install it with `apt-get install -y {package}` (scripts/test does this)"
            )
        })
}

/// A port that was free a moment ago on 127.0.0.1.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl Engine {
    /// Starts the engine on a free port in a new temporary folder and waits until it
    /// answers. Another process may take the port between the look-up and the start, so
    /// a start that dies is tried again on another port.
    pub fn start(spec: EngineSpec) -> Engine {
        let program = require(spec.program, spec.package);
        let dir = tempfile::tempdir().expect("a temporary folder for the engine");
        let mut engine = Engine {
            spec,
            program,
            child: None,
            port: 0,
            dir,
        };
        for _ in 0..5 {
            engine.port = free_port();
            if engine.launch() {
                return engine;
            }
        }
        panic!(
            "{} did not start; its folder was {}",
            spec.program,
            engine.dir.path().display()
        );
    }

    /// Runs the program and waits for it to answer; false when it exited first.
    fn launch(&mut self) -> bool {
        let child = Command::new(&self.program)
            .args((self.spec.args)(self.port, self.dir.path()))
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.program.display()));
        self.child = Some(child);
        let deadline = Instant::now() + READY_WITHIN;
        while Instant::now() < deadline {
            if (self.spec.ready)(self.port) {
                return true;
            }
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(_)) = child.try_wait()
            {
                self.child = None;
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "{} did not answer within {READY_WITHIN:?}",
            self.spec.program
        );
    }

    /// `kill -9`: the engine stops at once, as in a crash or a lost machine.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the engine again on the same port with the same folder.
    pub fn restart(&mut self) {
        self.kill();
        assert!(
            self.launch(),
            "{} did not start again on port {}",
            self.spec.program,
            self.port
        );
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A real `redis-server`, with an append-only file so that data survives a restart as
/// in a real deployment.
pub struct RedisServer {
    pub engine: Engine,
}

pub const REDIS: EngineSpec = EngineSpec {
    program: "redis-server",
    package: "redis-server",
    args: |port, dir| {
        [
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--dir",
            &dir.display().to_string(),
            "--save",
            "",
            "--appendonly",
            "yes",
            "--protected-mode",
            "no",
            "--logfile",
            "redis.log",
        ]
        .map(str::to_owned)
        .to_vec()
    },
    ready: |port| redis_answers(port, "PING\r\n", "+PONG"),
};

impl RedisServer {
    pub fn start() -> RedisServer {
        RedisServer {
            engine: Engine::start(REDIS),
        }
    }

    /// `redis://127.0.0.1:<port>/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.engine.port)
    }

    pub fn kill(&mut self) {
        self.engine.kill();
    }

    pub fn restart(&mut self) {
        self.engine.restart();
    }
}

/// Sends one inline command and checks the start of the reply.
fn redis_answers(port: u16, command: &str, expected: &str) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    if stream.write_all(command.as_bytes()).is_err() {
        return false;
    }
    let mut reply = [0u8; 16];
    match stream.read(&mut reply) {
        Ok(n) => reply[..n].starts_with(expected.as_bytes()),
        Err(_) => false,
    }
}

/// A `redis-server` that speaks only TLS (`rediss://`) and wants a password, with a
/// certificate for `localhost` signed by a test CA made with the `openssl` command; clients
/// trust the CA through `SSL_CERT_FILE`.
pub struct TlsRedisServer {
    pub engine: Engine,
}

/// The password a `TlsRedisServer` wants.
pub const TLS_REDIS_PASSWORD: &str = "s3cret-pw";

pub const TLS_REDIS: EngineSpec = EngineSpec {
    program: "redis-server",
    package: "redis-server",
    args: |port, dir| {
        make_test_certificates(dir);
        let file = |name: &str| dir.join(name).display().to_string();
        [
            "--port",
            "0",
            "--tls-port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--tls-cert-file",
            &file("server.pem"),
            "--tls-key-file",
            &file("server.key"),
            "--tls-ca-cert-file",
            &file("ca.pem"),
            "--tls-auth-clients",
            "no",
            "--requirepass",
            TLS_REDIS_PASSWORD,
            "--dir",
            &dir.display().to_string(),
            "--save",
            "",
            "--logfile",
            "redis.log",
        ]
        .map(str::to_owned)
        .to_vec()
    },
    // Without a TLS client at hand: the port accepts connections once Redis is up.
    ready: |port| TcpStream::connect(("127.0.0.1", port)).is_ok(),
};

impl TlsRedisServer {
    pub fn start() -> TlsRedisServer {
        TlsRedisServer {
            engine: Engine::start(TLS_REDIS),
        }
    }

    /// `rediss://:<password>@localhost:<port>/0`.
    pub fn url(&self) -> String {
        format!(
            "rediss://:{TLS_REDIS_PASSWORD}@localhost:{}/0",
            self.engine.port
        )
    }

    /// The CA file clients must trust.
    pub fn ca_file(&self) -> PathBuf {
        self.engine.dir.path().join("ca.pem")
    }
}

/// A CA and a certificate for `localhost`/127.0.0.1 in `dir`, once.
fn make_test_certificates(dir: &Path) {
    if dir.join("server.pem").is_file() {
        return;
    }
    let openssl = require("openssl", "openssl");
    let run = |args: &[&str]| {
        let status = Command::new(&openssl)
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("openssl runs");
        assert!(status.success(), "openssl {args:?} failed");
    };
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .expect("extension file");
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=depot test CA",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ]);
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "ext.cnf",
    ]);
}

/// The credentials `S3sFs` accepts.
pub const S3S_ACCESS_KEY: &str = "AKIADEPOTTESTS3FS001";
pub const S3S_SECRET_KEY: &str = "s3s-fs-secret-for-depot-tests";
const S3S_INSTALL_HINT: &str = "s3s-fs is needed for this test: install it with \
     `cargo install s3s-fs --version 0.14.1 --locked --features binary`, or run scripts/test";

/// `s3s-fs` (installed by scripts/test), an S3 server over a folder that verifies SigV4
/// signatures, checksums and multipart uploads; killed when dropped. A bucket is a folder
/// of its root.
pub struct S3sFs {
    child: Child,
    pub endpoint: String,
    pub port: u16,
}

impl S3sFs {
    /// Serves `root` with `S3S_ACCESS_KEY`/`S3S_SECRET_KEY` and waits until it answers.
    pub fn start_in(root: &Path) -> S3sFs {
        let on_path = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|p| p.join("s3s-fs"))
                .find(|p| p.is_file())
        });
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
            .map(|home| home.join("bin/s3s-fs"))
            .filter(|p| p.is_file());
        let program = on_path
            .or(cargo_home)
            .unwrap_or_else(|| panic!("{S3S_INSTALL_HINT}"));
        let port = free_port();
        let child = Command::new(program)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args([
                "--access-key",
                S3S_ACCESS_KEY,
                "--secret-key",
                S3S_SECRET_KEY,
            ])
            .arg(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start s3s-fs ({e}): {S3S_INSTALL_HINT}"));
        let server = S3sFs {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
            port,
        };
        let deadline = Instant::now() + READY_WITHIN;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "s3s-fs did not start on port {port}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for S3sFs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
