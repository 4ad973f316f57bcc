//! The accept loop: hyper 1 connections (HTTP/1.1, and HTTP/2 with prior knowledge) over
//! accepted TCP sockets, until the shutdown signal; then in-flight requests finish.
//!
//! Sockets get `TCP_NODELAY`: a response whose body follows its headers in a second write
//! (a streamed object) would otherwise wait for the client's delayed ACK (~40 ms) on a
//! kept-alive connection. Connection-level failures (garbage instead of HTTP, a client
//! that hangs up) are the client's business and logged at debug, never at error. Every
//! request carries its connection's peer address (`http::client::ClientAddr`) and the
//! address it came in on (`http::client::ArrivedOn`).

use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use warp::http::Request;
use warp::reply::Response;

/// How long a client may take to send a request's head; then the connection is closed
/// (a half-sent request holds a connection, not a worker).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Pause after an accept error that is about us (out of file descriptors), so the loop does
/// not spin while connections close.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(100);

/// Serves `service` on every connection `listener` accepts until `shutdown` completes, then
/// stops accepting and waits for the open connections to finish their requests.
pub async fn serve<S>(listener: TcpListener, service: S, shutdown: impl Future<Output = ()>)
where
    S: hyper::service::Service<Request<Incoming>, Response = Response, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = accept(&listener) => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    accept_failed(&e).await;
                    continue;
                }
            },
        };
        let from_peer = FromPeer {
            service: service.clone(),
            peer,
            local: stream.local_addr().ok(),
        };
        let connection = builder
            .serve_connection(TokioIo::new(stream), from_peer)
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(target: "depot::http", %peer, error = %e, "connection ended with an error");
            }
        });
    }
    // Closing the listener refuses new connections; idle kept-alive ones close now, busy
    // ones after their response.
    drop(listener);
    graceful.shutdown().await;
}

/// A connection's service: the daemon's, with the peer address (and the connection's own
/// address) put on every request.
#[derive(Clone)]
struct FromPeer<S> {
    service: S,
    peer: SocketAddr,
    local: Option<SocketAddr>,
}

impl<S> hyper::service::Service<Request<Incoming>> for FromPeer<S>
where
    S: hyper::service::Service<Request<Incoming>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn call(&self, mut request: Request<Incoming>) -> S::Future {
        request
            .extensions_mut()
            .insert(super::client::ClientAddr(self.peer));
        if let Some(local) = self.local {
            request
                .extensions_mut()
                .insert(super::client::ArrivedOn(local));
        }
        self.service.call(request)
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

async fn accept_failed(e: &std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        // The client gave up between SYN and accept: nothing to do.
        tracing::debug!(target: "depot::http", error = %e, "accept failed");
        return;
    }
    tracing::error!(target: "depot::http", error = %e, "cannot accept connections; retrying");
    tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
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
