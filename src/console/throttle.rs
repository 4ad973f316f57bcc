//! The login throttle (SPEC §10): a token bucket per client address. An address may try
//! `limits.login_attempts` keys in a row; each attempt takes a token, a successful login
//! gives it back, and one token comes back every `limits.login_refill_secs`. With none
//! left the login answers 429 with `Retry-After` and the key is not even compared. The
//! API's Bearer keys are throttled the same way, in buckets of their own
//! (`limits.api_key_*`, `http::auth`).
//!
//! The token is taken before the key is checked, so a burst of parallel attempts cannot
//! all pass a check made before any of them failed.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Most addresses tracked at once; past it the one idle longest is forgotten, so spraying
/// addresses cannot fill memory (an address forgotten gets a full bucket, as it would
/// after waiting).
const MAX_CLIENTS: usize = 100_000;

/// How many attempts an address has, and how fast they come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub attempts: u64,
    pub refill: Duration,
}

impl Rate {
    /// The console login's.
    pub fn of(limits: &crate::config::settings::Limits) -> Rate {
        Rate {
            attempts: limits.login_attempts,
            refill: Duration::from_secs(limits.login_refill_secs),
        }
    }

    /// The API keys'.
    pub fn of_api_keys(limits: &crate::config::settings::Limits) -> Rate {
        Rate {
            attempts: limits.api_key_attempts,
            refill: Duration::from_secs(limits.api_key_refill_secs),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: u64,
    /// When `tokens` was counted: refills are due from here.
    since: Instant,
}

impl Bucket {
    /// The bucket at `now`, with the refills due since it was counted.
    fn at(self, rate: Rate, now: Instant) -> Bucket {
        let elapsed = now.saturating_duration_since(self.since);
        let refill_nanos = rate.refill.as_nanos().max(1);
        let due = u64::try_from(elapsed.as_nanos() / refill_nanos).unwrap_or(u64::MAX);
        let tokens = self.tokens.saturating_add(due).min(rate.attempts);
        // Not full: fewer than `attempts` refills were due, and the part of the next one
        // already waited for is kept.
        let since = (tokens < rate.attempts)
            .then(|| {
                let waited = rate.refill.checked_mul(u32::try_from(due).ok()?)?;
                self.since.checked_add(waited)
            })
            .flatten()
            .unwrap_or(now);
        Bucket { tokens, since }
    }
}

/// The buckets, one per client: `K` is what the HTTP side counts a client by (its address,
/// `http::client::ClientKey`).
pub struct LoginThrottle<K> {
    buckets: Mutex<HashMap<K, Bucket>>,
}

impl<K> Default for LoginThrottle<K> {
    fn default() -> Self {
        LoginThrottle {
            buckets: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Copy + Eq + Hash> LoginThrottle<K> {
    /// Takes one attempt of `client`: how many it has left then, or with none left, how
    /// long until the next one.
    pub fn take(&self, client: K, rate: Rate, now: Instant) -> Result<u64, Duration> {
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        let full = Bucket {
            tokens: rate.attempts,
            since: now,
        };
        let bucket = buckets.get(&client).map_or(full, |b| b.at(rate, now));
        if bucket.tokens == 0 {
            buckets.insert(client, bucket);
            return Err((bucket.since + rate.refill).saturating_duration_since(now));
        }
        if !buckets.contains_key(&client) && buckets.len() >= MAX_CLIENTS {
            forget_one(&mut buckets, rate, now);
        }
        let left = bucket.tokens - 1;
        buckets.insert(
            client,
            Bucket {
                tokens: left,
                since: bucket.since,
            },
        );
        Ok(left)
    }

    /// Gives back the attempt of a login that succeeded.
    pub fn give_back(&self, client: K, rate: Rate, now: Instant) {
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(bucket) = buckets.get(&client).copied() {
            let bucket = bucket.at(rate, now);
            if bucket.tokens + 1 >= rate.attempts {
                buckets.remove(&client);
            } else {
                buckets.insert(
                    client,
                    Bucket {
                        tokens: bucket.tokens + 1,
                        since: bucket.since,
                    },
                );
            }
        }
    }
}

/// Forgets a full bucket (as good as none), else the one counted longest ago.
fn forget_one<K: Copy + Eq + Hash>(buckets: &mut HashMap<K, Bucket>, rate: Rate, now: Instant) {
    buckets.retain(|_, b| b.at(rate, now).tokens < rate.attempts);
    if buckets.len() >= MAX_CLIENTS
        && let Some(oldest) = buckets.iter().min_by_key(|(_, b)| b.since).map(|(k, _)| *k)
    {
        buckets.remove(&oldest);
    }
}

/// Whole seconds to wait, at least one (`Retry-After`).
pub fn retry_after_secs(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::client::{ClientAddr, ClientKey};

    fn client(addr: &str) -> ClientKey {
        ClientAddr(addr.parse().unwrap()).key()
    }

    const RATE: Rate = Rate {
        attempts: 3,
        refill: Duration::from_secs(10),
    };

    #[test]
    fn a_few_attempts_are_free_then_one_per_refill() {
        let throttle = LoginThrottle::default();
        let me = client("192.0.2.1:1000");
        let t0 = Instant::now();
        for left in [2, 1, 0] {
            assert_eq!(throttle.take(me, RATE, t0), Ok(left));
        }
        assert_eq!(throttle.take(me, RATE, t0), Err(Duration::from_secs(10)));
        let t4 = t0 + Duration::from_secs(4);
        assert_eq!(throttle.take(me, RATE, t4), Err(Duration::from_secs(6)));
        let t10 = t0 + Duration::from_secs(10);
        assert_eq!(throttle.take(me, RATE, t10), Ok(0));
        assert_eq!(throttle.take(me, RATE, t10), Err(Duration::from_secs(10)));
        // A long wait fills the bucket, never past its size.
        let later = t0 + Duration::from_secs(3600);
        for left in [2, 1, 0] {
            assert_eq!(throttle.take(me, RATE, later), Ok(left));
        }
        assert!(throttle.take(me, RATE, later).is_err());
    }

    #[test]
    fn each_address_has_its_own_bucket() {
        let throttle = LoginThrottle::default();
        let now = Instant::now();
        for _ in 0..3 {
            throttle.take(client("192.0.2.1:1"), RATE, now).unwrap();
        }
        assert!(throttle.take(client("192.0.2.1:2"), RATE, now).is_err());
        assert!(throttle.take(client("192.0.2.2:1"), RATE, now).is_ok());
        // IPv6: the whole /64 is one client.
        for _ in 0..3 {
            throttle.take(client("[2001:db8::1]:1"), RATE, now).unwrap();
        }
        assert!(throttle.take(client("[2001:db8::2]:1"), RATE, now).is_err());
    }

    #[test]
    fn a_successful_login_gives_its_attempt_back() {
        let throttle = LoginThrottle::default();
        let me = client("192.0.2.1:1");
        let now = Instant::now();
        for _ in 0..3 {
            throttle.take(me, RATE, now).unwrap();
            throttle.give_back(me, RATE, now);
        }
        assert!(throttle.buckets.lock().unwrap().is_empty());
        for _ in 0..3 {
            throttle.take(me, RATE, now).unwrap();
        }
        throttle.give_back(me, RATE, now);
        assert_eq!(throttle.take(me, RATE, now), Ok(0));
        assert!(throttle.take(me, RATE, now).is_err());
    }

    #[test]
    fn memory_stays_bounded_under_many_addresses() {
        let throttle = LoginThrottle::default();
        let now = Instant::now();
        for i in 0..(MAX_CLIENTS as u32 + 50) {
            let addr = std::net::SocketAddr::from((std::net::Ipv4Addr::from(i), 1));
            throttle.take(ClientAddr(addr).key(), RATE, now).unwrap();
        }
        assert!(throttle.buckets.lock().unwrap().len() <= MAX_CLIENTS);
    }

    #[test]
    fn retry_after_is_whole_seconds_rounded_up_and_never_zero() {
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1500)), 2);
        assert_eq!(retry_after_secs(Duration::from_secs(20)), 20);
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
    }
}
