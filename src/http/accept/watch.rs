//! Each connection's watch: whether a request is in progress, since when it has waited for
//! the next one, and the deadlines that close it while it waits; and the table of waiting
//! connections, longest-waiting first, from which the cap takes one to make room.
//!
//! A request is in progress from its head until its response body has been sent (or
//! dropped): an event stream, a download or an upload of any length is never cut. Only a
//! connection with nothing in progress is closed: when it has sent nothing for
//! `server.idle_timeout_secs`, or a request head is still incomplete
//! `server.header_timeout_secs` after the accept (first request) or after its first byte.

use hyper::body::{Body, Frame, SizeHint};
use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;
use tokio::time::Instant;

/// "Not set" for the millisecond marks below.
const NONE: u64 = u64::MAX;

/// The deadlines of a waiting connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub idle: Duration,
    pub header: Duration,
}

/// Why the watch closed a connection (logged at debug).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// A new connection sent nothing.
    Silent,
    /// A request head was not complete in time.
    SlowHead,
    /// A kept-alive connection waited too long for its next request.
    Idle,
    /// The cap was reached and this connection had waited longest.
    MadeRoom,
}

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Closed::Silent => "sent nothing in time",
            Closed::SlowHead => "request head not complete in time",
            Closed::Idle => "idle between requests too long",
            Closed::MadeRoom => "closed to make room under limits.connections",
        })
    }
}

/// Every open connection: how many, and those waiting for a request, by when they began to
/// wait (a sequence number, so the first key is the longest-waiting).
#[derive(Default)]
pub struct Connections {
    waiting: Mutex<BTreeMap<u64, Weak<Watch>>>,
    next: AtomicU64,
    open: AtomicUsize,
    closed: Notify,
}

impl Connections {
    pub fn new() -> Arc<Connections> {
        Arc::new(Connections::default())
    }

    /// Connections open now (accepted, and not yet closed).
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// Counts a new connection, waiting for its first request from now; the ticket is held
    /// by its task until the connection is closed.
    pub fn admit(self: &Arc<Self>, timeouts: Timeouts) -> Ticket {
        self.open.fetch_add(1, Ordering::AcqRel);
        let watch = Arc::new(Watch {
            table: self.clone(),
            born: Instant::now(),
            timeouts,
            in_flight: AtomicUsize::new(0),
            key: AtomicU64::new(NONE),
            idle_since: AtomicU64::new(0),
            // The first head's deadline runs from the accept, bytes or not.
            head_from: AtomicU64::new(0),
            heard: AtomicBool::new(false),
            first: AtomicBool::new(true),
            gone: AtomicBool::new(false),
            chosen: AtomicBool::new(false),
            look: Notify::new(),
        });
        let mut waiting = self.lock();
        self.wait(&mut waiting, &watch);
        Ticket(watch)
    }

    /// Asks the connection that has waited longest for a request to close; `false` when
    /// none is waiting (every connection is busy).
    pub fn make_room(&self) -> bool {
        let mut waiting = self.lock();
        while let Some((_, watch)) = waiting.pop_first() {
            if let Some(watch) = watch.upgrade() {
                watch.key.store(NONE, Ordering::Release);
                watch.chosen.store(true, Ordering::Release);
                watch.look.notify_one();
                return true;
            }
        }
        false
    }

    /// Resolves when a connection closes (or at once if one closed since the last call).
    pub async fn one_closed(&self) {
        self.closed.notified().await;
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<u64, Weak<Watch>>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait(&self, waiting: &mut BTreeMap<u64, Weak<Watch>>, watch: &Arc<Watch>) {
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        waiting.insert(key, Arc::downgrade(watch));
        watch.key.store(key, Ordering::Release);
    }
}

/// One connection's state, shared by its task, its socket and its requests.
pub struct Watch {
    table: Arc<Connections>,
    born: Instant,
    timeouts: Timeouts,
    /// Requests whose response is not yet sent; changed under the table's lock.
    in_flight: AtomicUsize,
    /// Its key among the waiting, `NONE` while busy (or taken to make room).
    key: AtomicU64,
    /// Milliseconds after `born` when the current wait began.
    idle_since: AtomicU64,
    /// Milliseconds after `born` from which the head's deadline runs, or `NONE`.
    head_from: AtomicU64,
    /// Bytes arrived since the wait began.
    heard: AtomicBool,
    /// Still waiting for its first request.
    first: AtomicBool,
    /// The connection is closed: it waits no more.
    gone: AtomicBool,
    /// Chosen to make room under the cap.
    chosen: AtomicBool,
    /// Wakes the task's watch to look at the deadlines again (or at `chosen`).
    look: Notify,
}

impl Watch {
    fn now(&self) -> u64 {
        u64::try_from(self.born.elapsed().as_millis()).unwrap_or(NONE - 1)
    }

    /// A request began (its head has arrived): the connection is busy until it ends.
    pub fn begin(self: &Arc<Self>) -> Busy {
        let mut waiting = self.table.lock();
        if self.in_flight.fetch_add(1, Ordering::AcqRel) == 0 {
            let key = self.key.swap(NONE, Ordering::AcqRel);
            if key != NONE {
                waiting.remove(&key);
            }
            self.first.store(false, Ordering::Release);
        }
        Busy(self.clone())
    }

    fn end(self: &Arc<Self>) {
        let mut waiting = self.table.lock();
        if self.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 && !self.gone.load(Ordering::Acquire)
        {
            self.idle_since.store(self.now(), Ordering::Release);
            self.head_from.store(NONE, Ordering::Release);
            self.heard.store(false, Ordering::Release);
            self.table.wait(&mut waiting, self);
        }
    }

    /// Bytes arrived; while waiting, the first ones start the next head's deadline.
    fn heard(&self) {
        if self.in_flight.load(Ordering::Acquire) == 0 && !self.heard.load(Ordering::Acquire) {
            self.heard.store(true, Ordering::Release);
            let _ = self.head_from.compare_exchange(
                NONE,
                self.now(),
                Ordering::AcqRel,
                Ordering::Acquire,
            );
            // The head's deadline may come before the idle one the watch sleeps towards.
            self.look.notify_one();
        }
    }

    /// When the wait ends and why, in milliseconds after `born`; `None` while busy.
    fn deadline(&self) -> Option<(u64, Closed)> {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return None;
        }
        let heard = self.heard.load(Ordering::Acquire);
        let head_from = self.head_from.load(Ordering::Acquire);
        let head =
            (head_from != NONE).then(|| head_from.saturating_add(millis(self.timeouts.header)));
        let idle = (!heard).then(|| {
            self.idle_since
                .load(Ordering::Acquire)
                .saturating_add(millis(self.timeouts.idle))
        });
        let at = match (head, idle) {
            (Some(h), Some(i)) => h.min(i),
            (Some(at), None) | (None, Some(at)) => at,
            (None, None) => return None,
        };
        let why = match (heard, self.first.load(Ordering::Acquire)) {
            (true, _) => Closed::SlowHead,
            (false, true) => Closed::Silent,
            (false, false) => Closed::Idle,
        };
        Some((at, why))
    }

    /// Resolves when the connection is to be closed: a deadline passed while it waited for
    /// a request, or the cap chose it to make room. Never while a request is in progress.
    pub async fn expired(&self) -> Closed {
        loop {
            let now = self.now();
            let at = match self.deadline() {
                Some((at, why)) if at <= now => return why,
                Some((at, _)) => at,
                // Busy: look again after an idle period (the wait that follows the request
                // has its own deadlines, from its start, so this is never late).
                None => now.saturating_add(millis(self.timeouts.idle)),
            };
            let wake = self.born + Duration::from_millis(at);
            tokio::select! {
                () = tokio::time::sleep_until(wake) => {}
                () = self.look.notified() => {
                    if self.chosen.swap(false, Ordering::AcqRel)
                        && self.in_flight.load(Ordering::Acquire) == 0
                    {
                        return Closed::MadeRoom;
                    }
                }
            }
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(NONE / 2)
}

/// Held by a connection's task: counts it open until the connection is closed.
pub struct Ticket(Arc<Watch>);

impl Ticket {
    pub fn watch(&self) -> &Arc<Watch> {
        &self.0
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let watch = &self.0;
        let mut waiting = watch.table.lock();
        watch.gone.store(true, Ordering::Release);
        let key = watch.key.swap(NONE, Ordering::AcqRel);
        if key != NONE {
            waiting.remove(&key);
        }
        drop(waiting);
        watch.table.open.fetch_sub(1, Ordering::AcqRel);
        watch.table.closed.notify_one();
    }
}

/// A request in progress; dropped with its response body (sent, or abandoned).
pub struct Busy(Arc<Watch>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// A response body that keeps its request in progress until it is dropped.
pub struct Tracked<B> {
    pub body: B,
    pub busy: Busy,
}

impl<B: Body + Unpin> Body for Tracked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A socket that tells its watch when bytes arrive.
pub struct Heard<T> {
    pub io: T,
    pub watch: Arc<Watch>,
}

impl<T: AsyncRead + Unpin> AsyncRead for Heard<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.watch.heard();
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Heard<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeouts(idle_ms: u64, header_ms: u64) -> Timeouts {
        Timeouts {
            idle: Duration::from_millis(idle_ms),
            header: Duration::from_millis(header_ms),
        }
    }

    /// Whether the watch closes its connection within `limit`, and why.
    async fn within(watch: &Watch, limit: u64) -> Option<Closed> {
        tokio::time::timeout(Duration::from_millis(limit), watch.expired())
            .await
            .ok()
    }

    #[tokio::test]
    async fn a_new_connection_that_sends_nothing_is_closed_at_the_shorter_timeout() {
        let table = Connections::new();
        for (idle, header) in [(5_000, 50), (50, 5_000)] {
            let ticket = table.admit(timeouts(idle, header));
            let start = Instant::now();
            assert_eq!(ticket.watch().expired().await, Closed::Silent);
            assert!(start.elapsed() >= Duration::from_millis(50));
        }
    }

    #[tokio::test]
    async fn a_request_in_progress_is_never_cut_and_the_wait_after_it_is_idle() {
        let table = Connections::new();
        let ticket = table.admit(timeouts(30, 30));
        let watch = ticket.watch();
        let busy = watch.begin();
        // Bytes of the request's own body do not start a head deadline.
        watch.heard();
        assert_eq!(within(watch, 200).await, None);
        drop(busy);
        let ended = Instant::now();
        assert_eq!(within(watch, 5_000).await, Some(Closed::Idle));
        assert!(ended.elapsed() >= Duration::from_millis(30));
    }

    #[tokio::test]
    async fn the_first_byte_of_the_next_head_starts_its_deadline() {
        let table = Connections::new();
        let ticket = table.admit(timeouts(60_000, 50));
        let watch = ticket.watch();
        drop(watch.begin());
        watch.heard();
        // Closed at the head's deadline, long before the idle one.
        assert_eq!(within(watch, 5_000).await, Some(Closed::SlowHead));
    }

    #[tokio::test]
    async fn room_is_made_from_the_longest_waiting_connection_never_a_busy_one() {
        let table = Connections::new();
        let [a, b, c] = [(); 3].map(|()| table.admit(timeouts(60_000, 60_000)));
        assert_eq!(table.open(), 3);
        let busy = a.watch().begin();
        assert!(table.make_room());
        assert_eq!(within(b.watch(), 5_000).await, Some(Closed::MadeRoom));
        assert!(table.make_room());
        assert_eq!(within(c.watch(), 5_000).await, Some(Closed::MadeRoom));
        assert!(!table.make_room(), "the busy connection was chosen");
        drop(busy);
        assert!(table.make_room());
        assert_eq!(within(a.watch(), 5_000).await, Some(Closed::MadeRoom));
        drop((a, b, c));
        assert_eq!(table.open(), 0);
        assert!(!table.make_room());
    }
}
