//! How long to wait before retrying after consecutive failures: the producer's sync loop
//! and the translations follower both back off this way.

use std::time::Duration;

/// The first retry after a failure waits this long; each further failure doubles it, up to
/// the configured interval.
pub const FIRST_RETRY: Duration = Duration::from_secs(1);

/// 1 s, 2 s, 4 s, ... after consecutive failures, never longer than the interval.
pub fn backoff(failures: u32, interval: Duration) -> Duration {
    let exponent = failures.saturating_sub(1).min(20);
    FIRST_RETRY.saturating_mul(1 << exponent).min(interval)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn backoff_doubles_from_one_second_up_to_the_interval() {
        let interval = Duration::from_secs(300);
        let waits: Vec<u64> = (1..=10).map(|n| backoff(n, interval).as_secs()).collect();
        assert_eq!(waits, vec![1, 2, 4, 8, 16, 32, 64, 128, 256, 300]);
        assert_eq!(
            backoff(1, Duration::from_millis(500)),
            Duration::from_millis(500)
        );
        assert_eq!(backoff(u32::MAX, interval), interval);
    }
}
