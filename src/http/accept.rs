//! The accept loop: hyper 1 connections (HTTP/1.1, and HTTP/2 with prior knowledge) over
//! accepted TCP sockets, until the shutdown signal; then in-flight requests finish.
//!
//! Sockets get `TCP_NODELAY`: a response whose body follows its headers in a second write
//! (a streamed object) would otherwise wait for the client's delayed ACK (~40 ms) on a
//! kept-alive connection. Connection-level failures (garbage instead of HTTP, a client
//! that hangs up) are the client's business and logged at debug, never at error. Every
//! request carries its connection's peer address (`http::client::ClientAddr`) and the
//! address it came in on (`http::client::ArrivedOn`).
//!
//! Each connection has a watch (`accept/watch.rs`) that closes it when it waits for a
//! request too long (nothing sent within `server.idle_timeout_secs`, a head incomplete
//! `server.header_timeout_secs` after the accept or its first byte), never while a request
//! is in progress. At `limits.connections` open connections, the one that has waited
//! longest is closed to make room, or the new one refused when every one is busy; that,
//! and accept failing for want of descriptors (paused with backoff), is logged once per
//! burst (`accept/pressure.rs`).

use crate::config::{ConfigHandle, Settings};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use pressure::{Capacity, Reports};
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use warp::http::Request;
use warp::reply::Response;
use watch::{Busy, Connections, Heard, Timeouts, Tracked, Watch};

pub mod pressure;
pub mod watch;

/// First pause after an accept error that is about us (out of file descriptors), doubled
/// at each failure in a row up to `LONGEST_PAUSE`: the loop neither spins nor stalls long
/// once descriptors are free again.
const FIRST_PAUSE: Duration = Duration::from_millis(10);
const LONGEST_PAUSE: Duration = Duration::from_secs(1);

/// Connections over the cap while the ones chosen to make room are closing; past it new
/// connections are refused until they have closed, so descriptors stay bounded.
const ROOM_SLACK: u64 = 16;

/// Longest wait for one of them to close before a new connection is refused.
const ROOM_WAIT: Duration = Duration::from_millis(50);

/// The connection cap in force: `limits.connections`, or derived from `fd_limit` (the soft
/// open-file limit) when it is 0.
pub fn capacity(settings: &Settings, fd_limit: Option<u64>) -> Capacity {
    match settings.limits.connections {
        0 => Capacity {
            cap: crate::fd_limit::automatic_cap(fd_limit),
            configured: false,
            fd_limit,
        },
        cap => Capacity {
            cap,
            configured: true,
            fd_limit,
        },
    }
}

fn timeouts(settings: &Settings) -> Timeouts {
    Timeouts {
        idle: Duration::from_secs(settings.server.idle_timeout_secs),
        header: Duration::from_secs(settings.server.header_timeout_secs),
    }
}

/// Serves `service` on every connection `listener` accepts until `shutdown` completes, then
/// stops accepting and waits for the open connections to finish their requests. The
/// timeouts and the cap are read from `config` at each accept.
pub async fn serve<S>(
    listener: TcpListener,
    service: S,
    config: ConfigHandle,
    shutdown: impl Future<Output = ()>,
) where
    S: hyper::service::Service<Request<Incoming>, Response = Response, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    let mut builder = auto::Builder::new(TokioExecutor::new());
    // hyper's own head timeout would start only after the first bytes (hyper-util reads
    // them to tell HTTP/1 from HTTP/2) and would also end kept-alive connections; each
    // connection's watch keeps both deadlines instead.
    builder.http1().header_read_timeout(None);
    let graceful = GracefulShutdown::new();
    let connections = Connections::new();
    let fd_limit = crate::fd_limit::current();
    let mut reports = Reports::default();
    let mut pause = FIRST_PAUSE;
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            () = until(reports.due()) => {
                reports.flush();
                continue;
            }
            accepted = accept(&listener) => accepted,
        };
        let settings = config.settings();
        let capacity = capacity(&settings, fd_limit);
        let (stream, peer) = match accepted {
            Ok(pair) => {
                pause = FIRST_PAUSE;
                pair
            }
            Err(e) if client_gone(&e) => continue,
            Err(e) => {
                reports.accept_failed(&e, capacity);
                // A connection waiting for a request is the cheapest descriptor to free.
                connections.make_room();
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(LONGEST_PAUSE);
                continue;
            }
        };
        let mut open = u64::try_from(connections.open()).unwrap_or(u64::MAX);
        // The connections asked to make room may still be closing (their tasks wait for a
        // worker): give them a moment rather than refuse one that would fit.
        let waited = tokio::time::Instant::now() + ROOM_WAIT;
        while open >= capacity.cap + ROOM_SLACK
            && tokio::time::timeout_at(waited, connections.one_closed())
                .await
                .is_ok()
        {
            open = u64::try_from(connections.open()).unwrap_or(u64::MAX);
        }
        if open >= capacity.cap {
            let made_room = open < capacity.cap + ROOM_SLACK && connections.make_room();
            reports.cap_reached(capacity, made_room);
            if !made_room {
                // Closed at once: the client sees the connection end, the descriptor is free.
                drop(stream);
                continue;
            }
        }
        let ticket = connections.admit(timeouts(&settings));
        let watch = ticket.watch().clone();
        let from_peer = FromPeer {
            service: service.clone(),
            peer,
            local: stream.local_addr().ok(),
            watch: watch.clone(),
        };
        let io = TokioIo::new(Heard { io: stream, watch });
        let connection = builder.serve_connection(io, from_peer).into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            tokio::select! {
                ended = connection => if let Err(e) = ended {
                    tracing::debug!(target: "depot::http", %peer, error = %e, "connection ended with an error");
                },
                why = ticket.watch().expired() => {
                    tracing::debug!(target: "depot::http", %peer, reason = %why, "connection closed");
                }
            }
            // The connection (its socket) is dropped by now: the ticket stops counting it.
            drop(ticket);
        });
    }
    // Closing the listener refuses new connections; idle kept-alive ones close now, busy
    // ones after their response.
    drop(listener);
    graceful.shutdown().await;
}

async fn until(due: Option<Instant>) {
    match due {
        Some(due) => tokio::time::sleep_until(due.into()).await,
        None => std::future::pending().await,
    }
}

/// A connection's service: the daemon's, with the peer address (and the connection's own
/// address) put on every request, and each request counted in progress until its response
/// body is sent.
#[derive(Clone)]
struct FromPeer<S> {
    service: S,
    peer: SocketAddr,
    local: Option<SocketAddr>,
    watch: Arc<Watch>,
}

type Answer<B, E> =
    Pin<Box<dyn Future<Output = Result<warp::http::Response<Tracked<B>>, E>> + Send>>;

impl<S, B> hyper::service::Service<Request<Incoming>> for FromPeer<S>
where
    S: hyper::service::Service<Request<Incoming>, Response = warp::http::Response<B>>,
    S::Future: Send + 'static,
{
    type Response = warp::http::Response<Tracked<B>>;
    type Error = S::Error;
    type Future = Answer<B, S::Error>;

    fn call(&self, mut request: Request<Incoming>) -> Self::Future {
        let busy: Busy = self.watch.begin();
        request
            .extensions_mut()
            .insert(super::client::ClientAddr(self.peer));
        if let Some(local) = self.local {
            request
                .extensions_mut()
                .insert(super::client::ArrivedOn(local));
        }
        let answer = self.service.call(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| Tracked { body, busy }))
        })
    }
}

/// Accepts one connection and prepares its socket.
pub async fn accept(listener: &TcpListener) -> std::io::Result<(TcpStream, SocketAddr)> {
    let (stream, peer) = listener.accept().await?;
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(target: "depot::http", %peer, error = %e, "cannot set TCP_NODELAY");
    }
    Ok((stream, peer))
}

/// The client gave up between SYN and accept: nothing to do, nothing to log.
fn client_gone(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_sockets_have_tcp_nodelay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (accepted, peer) = accept(&listener).await.unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
        assert!(accepted.nodelay().unwrap(), "TCP_NODELAY is not set");
    }
}
