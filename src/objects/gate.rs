//! One lock per object key, held while a write of the embedded store decides whether it may
//! land and lands (a presigned PUT checks that its upload is still under way), and while a
//! completion checks the object and ends the upload: so a PUT can never slip in between a
//! completion's check of the object and the record it writes. In-process only: the embedded
//! store is one daemon's folder, and `depot files add` never writes the keys of uploads.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// Past this many entries, the map drops those nobody holds any more.
const PRUNE_ABOVE: usize = 256;

/// The locks of the keys being written.
#[derive(Debug, Default)]
pub struct KeyGates {
    locks: Mutex<HashMap<String, Weak<AsyncMutex<()>>>>,
}

/// Held while a write of one key decides and lands; the key is free again when dropped.
pub type KeyGate = OwnedMutexGuard<()>;

impl KeyGates {
    /// Waits for the key `bucket`/`key` and holds it.
    pub async fn enter(&self, bucket: &str, key: &str) -> KeyGate {
        let lock = {
            let mut locks = self.locks.lock().unwrap_or_else(PoisonError::into_inner);
            if locks.len() > PRUNE_ABOVE {
                locks.retain(|_, lock| lock.strong_count() > 0);
            }
            // A bucket name has no '/', so the pair is one unambiguous string.
            let name = format!("{bucket}/{key}");
            match locks.get(&name).and_then(Weak::upgrade) {
                Some(lock) => lock,
                None => {
                    let lock = Arc::new(AsyncMutex::new(()));
                    locks.insert(name, Arc::downgrade(&lock));
                    lock
                }
            }
        };
        lock.lock_owned().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn one_key_is_held_once_and_other_keys_are_free() {
        let gates = Arc::new(KeyGates::default());
        let held = gates.enter("bkt", "a").await;
        // Another key is not held up.
        let other = tokio::time::timeout(Duration::from_secs(5), gates.enter("bkt", "b")).await;
        assert!(other.is_ok());
        // The same key waits until the first holder lets go.
        let waiting = {
            let gates = gates.clone();
            tokio::spawn(async move { gates.enter("bkt", "a").await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished());
        drop(held);
        let second = tokio::time::timeout(Duration::from_secs(5), waiting).await;
        assert!(second.is_ok());
    }

    #[tokio::test]
    async fn keys_nobody_holds_are_forgotten() {
        let gates = KeyGates::default();
        for i in 0..(PRUNE_ABOVE * 2) {
            drop(gates.enter("bkt", &i.to_string()).await);
        }
        let entries = gates.locks.lock().unwrap().len();
        assert!(entries <= PRUNE_ABOVE + 1, "{entries}");
    }
}
