//! What the accept loop logs when it is short of room (the connection cap reached, accept
//! failing for want of file descriptors): one line at the start of a burst, then at most
//! one every `REPORT_EVERY` counting what followed, never a line per connection.

use std::fmt;
use std::time::{Duration, Instant};

/// Shortest time between two lines of one kind.
pub const REPORT_EVERY: Duration = Duration::from_secs(10);

/// The cap in force and where it comes from, as the log lines name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    pub cap: u64,
    /// `limits.connections` was set (else the cap comes from the open-file limit).
    pub configured: bool,
    /// The soft open-file limit (`None`: unlimited).
    pub fd_limit: Option<u64>,
}

impl fmt::Display for Capacity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.configured {
            write!(f, "limits.connections = {}", self.cap)
        } else {
            write!(
                f,
                "{}, derived from the open-file limit {} as limits.connections = 0",
                self.cap,
                Soft(self.fd_limit)
            )
        }
    }
}

struct Soft(Option<u64>);

impl fmt::Display for Soft {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("unlimited"),
        }
    }
}

/// When the lines of one kind were written, and whether events wait for the next one.
#[derive(Debug, Default)]
struct Window {
    last: Option<Instant>,
    pending: bool,
}

impl Window {
    /// Notes one event: `true` when it opens a burst and is logged at once.
    fn note(&mut self, now: Instant) -> bool {
        if self
            .last
            .is_none_or(|last| now.duration_since(last) >= REPORT_EVERY)
        {
            self.last = Some(now);
            self.pending = false;
            true
        } else {
            self.pending = true;
            false
        }
    }

    fn due(&self) -> Option<Instant> {
        match (self.pending, self.last) {
            (true, Some(last)) => Some(last + REPORT_EVERY),
            _ => None,
        }
    }

    /// Whether the summary is due at `now`; if so, a new window starts.
    fn take(&mut self, now: Instant) -> bool {
        if self.due().is_some_and(|due| due <= now) {
            self.last = Some(now);
            self.pending = false;
            true
        } else {
            false
        }
    }
}

/// The accept loop's reports.
#[derive(Debug, Default)]
pub struct Reports {
    full: Window,
    /// Idle connections closed to make room, and new ones refused, since the last line.
    made_room: u64,
    refused: u64,
    capacity: Option<Capacity>,
    failing: Window,
    failures: u64,
    last_error: String,
}

impl Reports {
    /// The cap was reached; the longest-waiting connection was closed for the new one
    /// (`made_room`), or every connection was busy and the new one was refused.
    pub fn cap_reached(&mut self, capacity: Capacity, made_room: bool) {
        if made_room {
            self.made_room += 1;
        } else {
            self.refused += 1;
        }
        self.capacity = Some(capacity);
        if self.full.note(Instant::now()) {
            tracing::warn!(
                target: "depot::http",
                "connection cap reached ({capacity}): closing the connections that have waited \
                 longest for a request to make room for new ones, and refusing new ones while \
                 every connection is busy; to hold more at once, raise limits.connections \
                 (env DEPOT_CONNECTIONS) together with `ulimit -n`"
            );
            self.made_room = 0;
            self.refused = 0;
        }
    }

    /// `accept` failed for a reason of ours (no file descriptor left, no memory).
    pub fn accept_failed(&mut self, error: &std::io::Error, capacity: Capacity) {
        self.failures += 1;
        self.last_error = error.to_string();
        self.capacity = Some(capacity);
        if self.failing.note(Instant::now()) {
            self.log_failures(capacity);
        }
    }

    fn log_failures(&mut self, capacity: Capacity) {
        tracing::error!(
            target: "depot::http",
            failures = self.failures,
            "cannot accept connections: {}; retrying with a pause; raise `ulimit -n` (now {}) \
             or lower the connection cap ({capacity})",
            self.last_error,
            Soft(capacity.fd_limit),
        );
        self.failures = 0;
    }

    /// When the next summary line is due, if events wait for one.
    pub fn due(&self) -> Option<Instant> {
        match (self.full.due(), self.failing.due()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Writes the summaries that are due.
    pub fn flush(&mut self) {
        let now = Instant::now();
        let Some(capacity) = self.capacity else {
            return;
        };
        if self.full.take(now) {
            tracing::warn!(
                target: "depot::http",
                made_room = self.made_room,
                refused = self.refused,
                "connection cap ({capacity}) still reached in the last {} s: closed {} waiting \
                 connections to make room and refused {} new ones; raise limits.connections \
                 (env DEPOT_CONNECTIONS) together with `ulimit -n` to hold more",
                REPORT_EVERY.as_secs(),
                self.made_room,
                self.refused,
            );
            self.made_room = 0;
            self.refused = 0;
        }
        if self.failing.take(now) {
            self.log_failures(capacity);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_logged_once_at_its_start_and_summed_up_once_per_window() {
        let mut window = Window::default();
        let start = Instant::now();
        assert!(window.note(start));
        assert_eq!(window.due(), None);
        for i in 1..1000 {
            assert!(!window.note(start + Duration::from_millis(i)));
        }
        assert_eq!(window.due(), Some(start + REPORT_EVERY));
        assert!(!window.take(start + REPORT_EVERY - Duration::from_millis(1)));
        assert!(window.take(start + REPORT_EVERY));
        assert_eq!(window.due(), None);
        // Quiet for a window: the next event opens a new burst at once.
        assert!(window.note(start + 3 * REPORT_EVERY));
    }

    #[test]
    fn the_capacity_names_where_the_cap_comes_from() {
        let automatic = Capacity {
            cap: 384,
            configured: false,
            fd_limit: Some(1024),
        };
        assert_eq!(
            automatic.to_string(),
            "384, derived from the open-file limit 1024 as limits.connections = 0"
        );
        let configured = Capacity {
            cap: 500,
            configured: true,
            fd_limit: None,
        };
        assert_eq!(configured.to_string(), "limits.connections = 500");
    }
}
