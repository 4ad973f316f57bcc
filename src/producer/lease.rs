//! The producer lease: on a shared store, the producers of several nodes (and `depot
//! produce`) take turns through one expiring key in Redis, renewed while held, so only
//! the holder syncs and the sheet is fetched once per interval whatever the number of
//! nodes. A holder that dies loses the lease when it expires. The time of the last sync is
//! kept in Redis too, so a new holder waits out the interval instead of fetching at once.

use crate::config::ConfigHandle;
use crate::shutdown::Shutdown;
use crate::translations::store::redis::COMMAND_TIMEOUT;
use crate::translations::store::{RedisStore, StoreError};
use chrono::{DateTime, TimeZone, Utc};
use redis::Script;
use std::sync::{Arc, LazyLock};
use std::time::Duration;
use tokio::sync::watch;

/// Takes the lease when it is free, renews it when this holder has it.
/// KEYS: the lease. ARGV: holder id, lifetime in ms.
static HOLD: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
",
    )
});

/// Gives the lease up, if this holder still has it.
static RELEASE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
",
    )
});

/// The last sync of any producer on the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncRecord {
    pub at: DateTime<Utc>,
    /// Consecutive failures up to and including that sync (0 after a success).
    pub failures: u32,
}

pub struct Lease {
    store: Arc<RedisStore>,
    /// Unique per process: host, process id and a random part.
    id: String,
    held: watch::Sender<bool>,
}

impl Lease {
    /// Starts taking and renewing the lease while `producer.enabled` (a node whose producer
    /// is off never blocks the others), every third of `producer.lease_secs`; gives it up
    /// when the producer is turned off or at shutdown.
    pub fn spawn(store: Arc<RedisStore>, config: ConfigHandle, shutdown: Shutdown) -> Arc<Lease> {
        let lease = Arc::new(Lease {
            store,
            id: holder_id(),
            held: watch::Sender::new(false),
        });
        tokio::spawn(lease.clone().keep(config, shutdown));
        lease
    }

    async fn keep(self: Arc<Self>, config: ConfigHandle, shutdown: Shutdown) {
        let mut changes = config.subscribe();
        loop {
            let settings = config.settings();
            let lifetime = Duration::from_secs(settings.producer.lease_secs);
            let held = if settings.producer.enabled {
                match self.hold(lifetime).await {
                    Ok(held) => held,
                    Err(e) => {
                        if self.held() {
                            tracing::warn!(error = %e, "the producer lease cannot be renewed; syncing stops until it is held again");
                        }
                        false
                    }
                }
            } else {
                self.release().await;
                false
            };
            self.held.send_if_modified(|was| {
                if *was != held {
                    tracing::info!(held, holder = %self.id, "producer lease changed hands");
                    *was = held;
                    true
                } else {
                    false
                }
            });
            tokio::select! {
                () = shutdown.wait() => {
                    self.release().await;
                    return;
                }
                () = tokio::time::sleep(lifetime / 3) => {}
                changed = changes.changed() => if changed.is_err() { return },
            }
        }
    }

    async fn hold(&self, lifetime: Duration) -> Result<bool, StoreError> {
        let millis = u64::try_from(lifetime.as_millis()).unwrap_or(u64::MAX);
        let held: i64 = self
            .store
            .invoke(
                HOLD.key(self.store.key("producer:lease"))
                    .arg(&self.id)
                    .arg(millis),
                COMMAND_TIMEOUT,
            )
            .await?;
        Ok(held == 1)
    }

    /// Gives the lease up at once (shutdown, producer turned off), so another node takes
    /// over without waiting for it to expire.
    pub async fn release(&self) {
        if !self.held() {
            return;
        }
        self.held.send_replace(false);
        let released = self
            .store
            .invoke::<i64>(
                RELEASE.key(self.store.key("producer:lease")).arg(&self.id),
                COMMAND_TIMEOUT,
            )
            .await;
        if let Err(e) = released {
            tracing::debug!(error = %e, "the producer lease is left to expire");
        }
    }

    /// Whether this process holds the lease.
    pub fn held(&self) -> bool {
        *self.held.borrow()
    }

    /// Wakes on every change of `held`.
    pub fn watch(&self) -> watch::Receiver<bool> {
        self.held.subscribe()
    }
}

/// The last sync any producer recorded on the store.
pub async fn last_sync(store: &RedisStore) -> Result<Option<SyncRecord>, StoreError> {
    let (at, failures): (Option<i64>, Option<u32>) = store
        .query(
            redis::cmd("HMGET")
                .arg(store.key("producer:sync"))
                .arg("lastSyncAt")
                .arg("failures"),
            COMMAND_TIMEOUT,
        )
        .await?;
    Ok(at
        .and_then(|ms| Utc.timestamp_millis_opt(ms).single())
        .map(|at| SyncRecord {
            at,
            failures: failures.unwrap_or(0),
        }))
}

/// `host:pid:random`, readable in Redis (`GET depot:producer:lease`) by an operator.
fn holder_id() -> String {
    let mut random = [0u8; 4];
    let _ = getrandom::fill(&mut random);
    format!(
        "{}:{}:{:08x}",
        host_name(),
        std::process::id(),
        u32::from_be_bytes(random)
    )
}

/// This machine's name, or `node`.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "node".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::translations::store::redis::engines::RedisServer;
    use crate::translations::store::redis::tests::settings;

    fn lease(store: &Arc<RedisStore>) -> Lease {
        Lease {
            store: store.clone(),
            id: holder_id(),
            held: watch::Sender::new(false),
        }
    }

    #[test]
    fn one_holder_at_a_time_a_release_or_an_expiry_hands_the_lease_over() {
        let server = RedisServer::start();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let _context = runtime.enter();
        let store = Arc::new(RedisStore::open(&settings(&server.url())).unwrap());
        let (a, b) = (lease(&store), lease(&store));
        assert_ne!(a.id, b.id);
        let long = Duration::from_secs(30);
        runtime.block_on(async {
            assert!(a.hold(long).await.unwrap());
            assert!(!b.hold(long).await.unwrap());
            // Renewing keeps it.
            assert!(a.hold(long).await.unwrap());
            assert!(!b.hold(long).await.unwrap());
            // Released at once on shutdown.
            a.held.send_replace(true);
            a.release().await;
            assert!(!a.held());
            assert!(b.hold(Duration::from_millis(300)).await.unwrap());
            assert!(!a.hold(long).await.unwrap());
            // A holder that stops renewing loses it when it expires.
            let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
            while !a.hold(long).await.unwrap() {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the lease never expired"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            assert!(!b.hold(long).await.unwrap());
        });
    }

    #[test]
    fn the_last_sync_is_shared_through_the_store() {
        use crate::translations::store::{SyncState, TranslationStore};
        let server = RedisServer::start();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let _context = runtime.enter();
        let store = Arc::new(RedisStore::open(&settings(&server.url())).unwrap());
        assert_eq!(runtime.block_on(last_sync(&store)).unwrap(), None);
        let at = Utc
            .timestamp_millis_opt(1_790_000_000_123)
            .single()
            .unwrap();
        let state = SyncState {
            last_sync_at: Some(at),
            consecutive_failures: 3,
            ..SyncState::default()
        };
        // The producer saves its state on a blocking thread, as here.
        let saver = store.clone();
        std::thread::spawn(move || saver.save_sync_state(&state).unwrap())
            .join()
            .unwrap();
        assert_eq!(
            runtime.block_on(last_sync(&store)).unwrap(),
            Some(SyncRecord { at, failures: 3 })
        );
    }
}
