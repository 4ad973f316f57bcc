//! Connections through the real binary and raw sockets: ones that send nothing are closed
//! after the idle timeout, a head dribbled byte by byte at the header deadline, a
//! kept-alive one once idle; under a lowered open-file limit 2,000 silent connections keep
//! descriptors under the cap, `/health` answering and the log to a line or two; event
//! streams and slow uploads outlive both timeouts.
#![cfg(test)]

mod support;

use futures_util::StreamExt;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::Daemon;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The daemon's open-file limit in the cap test: as low as many machines' default.
const FD_LIMIT: u64 = 1024;
const SILENT: usize = 2_000;
const ADMIN_KEY: &str = "admin-key-for-connections";

fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(Iterator::count)
        .unwrap_or(0)
}

/// When the server ends `stream` (end of file or reset), waiting at most `limit`; `None`
/// while it stays open. Bytes the server sent before are returned with it.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<(Instant, Vec<u8>)> {
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some((Instant::now(), received)),
            Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
        }
    }
}

/// Error and warning lines of the daemon's log.
fn loud_lines(daemon: &Daemon) -> Vec<String> {
    daemon
        .log()
        .lines()
        .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_silent_connections_keep_descriptors_capped_health_answering_and_close_when_idle()
 {
    // The test holds the client ends: it needs more descriptors than the daemon gets.
    let own = depot::fd_limit::raise();
    assert!(
        own.soft.is_none_or(|soft| soft >= SILENT as u64 + 256),
        "this test holds {SILENT} sockets: raise the hard open-file limit (ulimit -Hn) to at \
         least {}; it is {own}",
        SILENT + 256
    );
    let dir = tempfile::tempdir().unwrap();
    let idle = Duration::from_secs(4);
    let daemon = Daemon::start_with_fd_limit(
        dir.path(),
        FD_LIMIT,
        &[],
        &[("DEPOT_IDLE_TIMEOUT_SECS", "4")],
    )
    .await;
    let pid = daemon.child.id();
    let cap = usize::try_from(depot::fd_limit::automatic_cap(Some(FD_LIMIT))).unwrap();
    assert!(
        cap < 512,
        "the automatic cap {cap} leaves the stores no room"
    );
    let baseline = open_fds(pid);

    // The daemon's descriptors, sampled while the connections come and stay.
    let most = Arc::new(AtomicUsize::new(0));
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (most, sampling) = (most.clone(), sampling.clone());
        tokio::spawn(async move {
            while sampling.load(Ordering::Relaxed) {
                most.fetch_max(open_fds(pid), Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };

    // A daemon that stops accepting leaves the rest in its listen queue, then unanswered:
    // give up connecting after 20 s and see how /health fares.
    let mut silent = Vec::with_capacity(SILENT);
    let connecting = async {
        for _ in 0..SILENT {
            silent.push(TcpStream::connect(&daemon.addr).await.unwrap());
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(20), connecting).await;
    let last_opened = Instant::now();

    // While they are held, /health answers on a new connection, within 1 s, five times.
    for _ in 0..5 {
        let asked = Instant::now();
        let answer =
            tokio::time::timeout(Duration::from_secs(1), reqwest::get(daemon.url("/health"))).await;
        let answer = answer
            .unwrap_or_else(|_| {
                panic!(
                    "/health took more than 1 s; log:\n{}",
                    loud_lines(&daemon).join("\n")
                )
            })
            .expect("/health answers");
        assert_eq!(answer.status(), 200);
        assert!(asked.elapsed() < Duration::from_secs(1));
    }
    assert_eq!(silent.len(), SILENT, "connections opened within 20 s");
    sampling.store(false, Ordering::Relaxed);
    sampler.await.unwrap();
    let most = most.load(Ordering::Relaxed);
    assert!(
        most <= baseline + cap + 24,
        "the daemon held {most} descriptors: {baseline} at rest + the cap {cap} + 24 at most"
    );

    // The newest connections, not needed to make room, stay open until the idle timeout,
    // then every one is closed by the daemon.
    let newest = silent.last_mut().unwrap();
    assert_eq!(
        closed_within(newest, idle / 2).await.map(|c| c.1),
        None,
        "the newest connection was closed before the idle timeout"
    );
    let mut last_close = last_opened;
    for (i, stream) in silent.iter_mut().enumerate() {
        let left =
            (last_opened + idle + Duration::from_secs(3)).saturating_duration_since(Instant::now());
        let (at, received) = closed_within(stream, left)
            .await
            .unwrap_or_else(|| panic!("silent connection {i} still open after the idle timeout"));
        assert!(received.is_empty(), "a silent connection got {received:?}");
        last_close = last_close.max(at);
    }
    assert!(
        last_close >= last_opened + idle - Duration::from_millis(500),
        "the last silent connection closed before the idle timeout"
    );
    assert!(
        open_fds(pid) <= baseline + 2,
        "descriptors left: {}",
        open_fds(pid)
    );

    // One warning for the burst (perhaps a summary), no line per connection, and no
    // accept failure.
    let loud = loud_lines(&daemon);
    let cap_lines: Vec<_> = loud
        .iter()
        .filter(|l| l.contains("connection cap"))
        .collect();
    assert!(
        (1..=2).contains(&cap_lines.len()) && cap_lines[0].contains("limits.connections"),
        "{loud:#?}"
    );
    assert!(
        !loud.iter().any(|l| l.contains("Too many open files")),
        "{loud:#?}"
    );
    assert!(loud.len() <= 4, "{loud:#?}");
}

#[tokio::test]
async fn a_head_dribbled_byte_by_byte_is_cut_at_the_header_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(
        dir.path(),
        &[],
        &[
            ("DEPOT_HEADER_TIMEOUT_SECS", "2"),
            ("DEPOT_IDLE_TIMEOUT_SECS", "60"),
        ],
    )
    .await;
    let head = format!(
        "GET /health HTTP/1.1\r\nHost: {}\r\nX-Slow: {}",
        daemon.addr,
        "a".repeat(200)
    );

    // On a new connection, the deadline runs from the accept.
    let stream = TcpStream::connect(&daemon.addr).await.unwrap();
    let opened = Instant::now();
    let (mut reader, mut writer) = stream.into_split();
    let dribble = {
        let head = head.clone();
        tokio::spawn(async move {
            for byte in head.bytes() {
                if writer.write_all(&[byte]).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), reader.read_to_end(&mut answer)).await;
    let closed = opened.elapsed();
    dribble.abort();
    assert!(
        read.is_ok(),
        "the slow head still held its connection after 5 s"
    );
    assert!(answer.is_empty(), "{:?}", String::from_utf8_lossy(&answer));
    assert!(
        closed >= Duration::from_millis(1900) && closed < Duration::from_secs(4),
        "closed after {closed:?}, not at the 2 s deadline"
    );

    // On a kept-alive connection, from the first byte of the next head.
    let mut stream = TcpStream::connect(&daemon.addr).await.unwrap();
    stream
        .write_all(format!("GET /health HTTP/1.1\r\nHost: {}\r\n\r\n", daemon.addr).as_bytes())
        .await
        .unwrap();
    let mut first = vec![0u8; 4096];
    let n = stream.read(&mut first).await.unwrap();
    assert!(first[..n].starts_with(b"HTTP/1.1 200"));
    tokio::time::sleep(Duration::from_secs(3)).await;
    stream.write_all(b"GET /he").await.unwrap();
    let started = Instant::now();
    let (at, received) = closed_within(&mut stream, Duration::from_secs(5))
        .await
        .expect("the kept-alive slow head is cut");
    assert!(received.is_empty());
    let took = at - started;
    assert!(
        took >= Duration::from_millis(1900) && took < Duration::from_secs(4),
        "cut {took:?} after its first byte, not at the 2 s deadline"
    );
}

#[tokio::test]
async fn a_kept_alive_connection_lives_while_it_asks_and_closes_once_idle() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(dir.path(), &[], &[("DEPOT_IDLE_TIMEOUT_SECS", "2")]).await;
    let mut stream = TcpStream::connect(&daemon.addr).await.unwrap();
    let request = format!("GET /health HTTP/1.1\r\nHost: {}\r\n\r\n", daemon.addr);
    // Five requests a second apart: 5 s on one connection, each gap under the timeout.
    for _ in 0..5 {
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = vec![0u8; 8192];
        let n = stream.read(&mut answer).await.unwrap();
        assert!(answer[..n].starts_with(b"HTTP/1.1 200"), "{n} bytes");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let idle_from = Instant::now() - Duration::from_secs(1);
    let (at, received) = closed_within(&mut stream, Duration::from_secs(4))
        .await
        .expect("the idle connection is closed");
    assert!(received.is_empty());
    let idle = at - idle_from;
    assert!(
        idle >= Duration::from_millis(1900) && idle < Duration::from_secs(4),
        "closed after {idle:?} idle, not at the 2 s timeout"
    );
}

fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_streams_and_slow_uploads_outlive_the_idle_and_header_timeouts() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(
        dir.path(),
        &[],
        &[
            ("DEPOT_IDLE_TIMEOUT_SECS", "1"),
            ("DEPOT_HEADER_TIMEOUT_SECS", "1"),
            ("DEPOT_TRANSLATIONS_EVENTS_HEARTBEAT_SECS", "3"),
            ("DEPOT_ADMIN_KEYS", ADMIN_KEY),
        ],
    )
    .await;

    // An event stream silent for 3 s between heartbeats, three times the idle timeout.
    let events = reqwest::get(daemon.url("/translations/events"))
        .await
        .unwrap();
    assert_eq!(events.status(), 200);
    let mut body = events.bytes_stream();
    let mut text = String::new();
    let started = Instant::now();
    while text.matches("heartbeat\n\n").count() < 2 {
        let chunk = tokio::time::timeout(Duration::from_secs(5), body.next())
            .await
            .expect("a heartbeat within 5 s")
            .unwrap_or_else(|| {
                panic!(
                    "the stream was closed after {:?}: {text}",
                    started.elapsed()
                )
            })
            .expect("the stream reads");
        text.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    assert!(text.starts_with("event:"), "{text}");

    // An upload whose bytes come in three parts 1.5 s apart.
    let bytes: Vec<u8> = (0..3 * 64 * 1024).map(|i| (i % 251) as u8).collect();
    let plan: Value = reqwest::Client::new()
        .post(daemon.url("/files/uploads"))
        .bearer_auth(ADMIN_KEY)
        .json(&json!({"fileName": "slow.bin", "size": bytes.len(),
                      "contentType": "application/octet-stream",
                      "sha256": hex_sha256(&bytes), "permission": "private"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let upload = &plan["upload"];
    let parts: Vec<Result<Vec<u8>, std::io::Error>> =
        bytes.chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
    let slow = futures_util::stream::iter(parts).then(|part| async move {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        part
    });
    let mut put = reqwest::Client::new()
        .put(upload["url"].as_str().expect("a PUT URL in the plan"))
        .header("content-length", bytes.len())
        .body(reqwest::Body::wrap_stream(slow));
    for (name, value) in upload["headers"].as_object().unwrap() {
        put = put.header(name, value.as_str().unwrap());
    }
    let put = put.send().await.expect("the slow upload is not cut");
    assert_eq!(put.status(), 200, "{}", put.text().await.unwrap());
    let key = plan["key"].as_str().unwrap();
    let completed = reqwest::Client::new()
        .post(daemon.url(&format!("/files/uploads/{key}/complete")))
        .bearer_auth(ADMIN_KEY)
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(completed.status(), 201);

    // The stream outlived all of it.
    let more = tokio::time::timeout(Duration::from_secs(5), body.next())
        .await
        .expect("another heartbeat")
        .expect("the stream is still open");
    let more = String::from_utf8(more.unwrap().to_vec()).unwrap();
    assert!(more.ends_with("heartbeat\n\n"), "{more}");
}
