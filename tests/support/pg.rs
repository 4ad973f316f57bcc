//! A real PostgreSQL server for tests: `initdb` in a temporary folder, `postgres` on a
//! free loopback port, stopped on drop (and, through a watchdog, when the test process
//! dies without dropping it). PostgreSQL refuses to run as root, so as root it runs as
//! the system user `depot-pg`, created with `useradd` when missing.
//! Also included by the library's unit tests (`src/files/repo/tests.rs`), so it only uses
//! std and `tempfile`.
#![allow(
    dead_code,
    reason = "each test crate uses only some of the shared helpers"
)]

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

const INSTALL_HINT: &str = "PostgreSQL is needed for this test: install it with `apt-get install -y postgresql` \
     (Debian keeps initdb in /usr/lib/postgresql/<version>/bin, which is searched too), \
     or run scripts/test, which installs what is missing";
/// The system user the server runs as when the tests run as root.
pub const PG_USER: &str = "depot-pg";
/// The database role the tests connect as (trust authentication on loopback).
pub const ROLE: &str = "depot";

pub struct Postgres {
    pub port: u16,
    bin: PathBuf,
    dir: PathBuf,
    /// Some((uid, gid)) when started as root.
    user: Option<(u32, u32)>,
    child: Option<Child>,
    _keep: Option<tempfile::TempDir>,
}

/// The folder holding `initdb`, `postgres`, `pg_ctl`, `pg_isready` and `createdb`: the
/// folder `initdb` on PATH really lives in (links resolved: a machine may link only some
/// programs onto PATH), else the newest `/usr/lib/postgresql/*/bin` (Debian's place).
pub fn bin_dir() -> Option<PathBuf> {
    let complete = |dir: &Path| {
        [
            "initdb",
            "postgres",
            "pg_ctl",
            "pg_isready",
            "createdb",
            "dropdb",
        ]
        .iter()
        .all(|p| dir.join(p).is_file())
    };
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .filter_map(|p| std::fs::canonicalize(p.join("initdb")).ok())
            .filter_map(|initdb| initdb.parent().map(Path::to_path_buf))
            .find(|dir| complete(dir))
    });
    if on_path.is_some() {
        return on_path;
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            complete(&bin).then_some((v, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn run_ok(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// (uid, gid) of the user to run PostgreSQL as, creating it when missing; None when the
/// tests do not run as root (then the server runs as the current user).
fn server_user() -> Option<(u32, u32)> {
    let me = run_ok(Command::new("id").arg("-u"), "id -u");
    if me != "0" {
        return None;
    }
    let exists = Command::new("id")
        .arg("-u")
        .arg(PG_USER)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !exists {
        // Two test processes may race here; the loser's "already exists" is fine.
        let _ = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                PG_USER,
            ])
            .status();
    }
    let uid = run_ok(Command::new("id").arg("-u").arg(PG_USER), "id -u depot-pg");
    let gid = run_ok(Command::new("id").arg("-g").arg(PG_USER), "id -g depot-pg");
    Some((uid.parse().expect("uid"), gid.parse().expect("gid")))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl Postgres {
    /// initdb + start; panics with the install hint when PostgreSQL is missing.
    pub fn start() -> Postgres {
        let bin = bin_dir().unwrap_or_else(|| panic!("{INSTALL_HINT}"));
        let user = server_user();
        let keep = tempfile::Builder::new()
            .prefix("depot-pg-")
            .tempdir()
            .expect("temp dir");
        let dir = keep.path().to_owned();
        if let Some((uid, gid)) = user {
            run_ok(
                Command::new("chown").arg(format!("{uid}:{gid}")).arg(&dir),
                "chown",
            );
        }
        let mut pg = Postgres {
            port: free_port(),
            bin,
            dir,
            user,
            child: None,
            _keep: Some(keep),
        };
        let mut initdb = pg.command("initdb");
        initdb.arg("-D").arg(pg.data()).args([
            "-U",
            ROLE,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        ]);
        run_ok(&mut initdb, "initdb");
        pg.start_again();
        pg
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(self.bin.join(program));
        if let Some((uid, gid)) = self.user {
            cmd.uid(uid).gid(gid);
        }
        // Its own folder as home and working directory: the user has no home.
        cmd.current_dir(&self.dir).env("HOME", &self.dir);
        cmd
    }

    /// Starts the server on its port (again, after `stop`) and waits until it answers.
    pub fn start_again(&mut self) {
        assert!(self.child.is_none(), "already running");
        // The watchdog stops the server when this process is gone, so a test that panics
        // while holding it in a static leaves nothing running.
        let script = r#"
            "$0" "$@" >>"$DEPOT_TEST_DIR/server.log" 2>&1 &
            pg=$!
            while [ -d "/proc/$DEPOT_TEST_PARENT" ] && kill -0 "$pg" 2>/dev/null; do sleep 0.2; done
            if [ ! -d "/proc/$DEPOT_TEST_PARENT" ]; then
                kill -INT "$pg" 2>/dev/null
                wait "$pg"
                rm -rf "$DEPOT_TEST_DIR"
            fi
        "#;
        let program = self.bin.join("postgres");
        let mut sh = Command::new("sh");
        if let Some((uid, gid)) = self.user {
            sh.uid(uid).gid(gid);
        }
        sh.current_dir(&self.dir)
            .env("HOME", &self.dir)
            .env("DEPOT_TEST_PARENT", std::process::id().to_string())
            .env("DEPOT_TEST_DIR", &self.dir)
            .arg("-c")
            .arg(script)
            .arg(program)
            .arg("-D")
            .arg(self.data())
            .args(["-p", &self.port.to_string()])
            .arg("-k")
            .arg(&self.dir)
            .args([
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=300",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        self.child = Some(sh.spawn().expect("start postgres"));
        self.wait_ready();
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let ready = self
                .command("pg_isready")
                .args([
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &self.port.to_string(),
                    "-U",
                    ROLE,
                    "-q",
                ])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "postgres did not start on port {}",
                self.port
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server (fast shutdown) and waits until it is gone.
    pub fn stop(&mut self) {
        if self.child.is_none() {
            return;
        }
        let _ = self
            .command("pg_ctl")
            .arg("stop")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "fast", "-w"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if let Some(mut child) = self.child.take() {
            let _ = child.wait();
        }
    }

    /// A new empty database; its name (`url(name)` connects to it).
    pub fn create_database(&self) -> String {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "t{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        run_ok(
            self.command("createdb")
                .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", ROLE])
                .arg(&name),
            "createdb",
        );
        name
    }

    /// Drops a database (closing its connections): each is a few MB on disk.
    pub fn drop_database(&self, name: &str) {
        run_ok(
            self.command("dropdb")
                .args([
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &self.port.to_string(),
                    "-U",
                    ROLE,
                    "--force",
                ])
                .arg(name),
            "dropdb",
        );
    }

    pub fn url(&self, database: &str) -> String {
        format!("postgres://{ROLE}@127.0.0.1:{}/{database}", self.port)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.stop();
    }
}
