//! The process's open-file limit (`RLIMIT_NOFILE`, `ulimit -n`): raised from its soft to its
//! hard value when the daemon starts, and the connection cap derived from it when
//! `limits.connections` is 0.
//!
//! Raising is what systemd's defaults expect of a server (soft 1024 for programs that still
//! use `select()`, hard 524288 for those that need more) and what Go does for every program:
//! depot polls with epoll only, so descriptors above 1024 are harmless.

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// Descriptors kept out of the connection cap for everything else: SQLite (database, WAL,
/// shared memory), sled's files, the log, the listener, the PostgreSQL pool (16 by
/// default), Redis, the config watcher, webhooks and the Google client.
pub const RESERVED: u64 = 256;

/// Highest automatic cap: past it memory, not descriptors, is what would run out (an idle
/// kept-alive connection costs ~20 KB, docs/performance.md: 330 MB at this cap).
pub const MOST_AUTOMATIC: u64 = 16_384;

/// Lowest automatic cap, for a limit so low that the formula leaves almost nothing.
pub const LEAST_AUTOMATIC: u64 = 32;

/// What `raise` found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdLimit {
    /// The soft limit in force now (`None`: unlimited).
    pub soft: Option<u64>,
    /// The soft limit before `raise`, when it raised it.
    pub raised_from: Option<u64>,
}

impl std::fmt::Display for FdLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.soft {
            Some(soft) => write!(f, "{soft}")?,
            None => f.write_str("unlimited")?,
        }
        match self.raised_from {
            Some(from) => write!(f, " (raised from {from})"),
            None => Ok(()),
        }
    }
}

/// Lifts the soft open-file limit to the hard one (or to the kernel's usual ceiling,
/// 1,048,576, when the hard limit is unlimited); keeps the soft limit when the kernel refuses.
pub fn raise() -> FdLimit {
    let Rlimit { current, maximum } = getrlimit(Resource::Nofile);
    let target = maximum.unwrap_or(1 << 20);
    match current {
        Some(soft) if soft < target => {
            let raised = Rlimit {
                current: Some(target),
                maximum,
            };
            match setrlimit(Resource::Nofile, raised) {
                Ok(()) => FdLimit {
                    soft: Some(target),
                    raised_from: Some(soft),
                },
                Err(e) => {
                    tracing::debug!(error = %e, soft, target, "cannot raise the open-file limit");
                    FdLimit {
                        soft: Some(soft),
                        raised_from: None,
                    }
                }
            }
        }
        _ => FdLimit {
            soft: current,
            raised_from: None,
        },
    }
}

/// The soft open-file limit in force (`None`: unlimited).
pub fn current() -> Option<u64> {
    getrlimit(Resource::Nofile).current
}

/// The connection cap for `limits.connections = 0`: half of what the limit leaves after
/// `RESERVED`, since a busy connection may hold a second descriptor (the object it streams,
/// the file an upload is written to); within `LEAST_AUTOMATIC..=MOST_AUTOMATIC`.
pub fn automatic_cap(soft: Option<u64>) -> u64 {
    soft.map_or(MOST_AUTOMATIC, |soft| {
        (soft.saturating_sub(RESERVED) / 2).clamp(LEAST_AUTOMATIC, MOST_AUTOMATIC)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_automatic_cap_leaves_room_for_the_stores_and_a_file_per_connection() {
        assert_eq!(automatic_cap(Some(1024)), 384);
        assert_eq!(automatic_cap(Some(20_000)), 9_872);
        assert_eq!(automatic_cap(Some(1_048_576)), MOST_AUTOMATIC);
        assert_eq!(automatic_cap(None), MOST_AUTOMATIC);
        assert_eq!(automatic_cap(Some(100)), LEAST_AUTOMATIC);
    }

    #[test]
    fn raising_reaches_the_hard_limit_and_is_idempotent() {
        let first = raise();
        let Rlimit { current, maximum } = getrlimit(Resource::Nofile);
        assert_eq!(first.soft, current);
        if let Some(hard) = maximum {
            assert_eq!(current, Some(hard));
        }
        assert_eq!(raise().raised_from, None);
    }
}
