//! Coalesces concurrent identical work: while one caller computes the value for a key,
//! the others wait for that result instead of computing it again. Without this, a cold
//! cache under load runs the same expensive query or render once per waiting client.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::OnceCell;

pub struct SingleFlight<K, V> {
    in_flight: Mutex<HashMap<K, Arc<OnceCell<V>>>>,
}

impl<K, V> Default for SingleFlight<K, V> {
    fn default() -> Self {
        SingleFlight {
            in_flight: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Hash + Eq + Clone, V: Clone> SingleFlight<K, V> {
    /// Runs `work` for `key` unless a run for it is under way, in which case its result is
    /// shared. A failed run shares nothing: the next waiter tries again.
    pub async fn run<E, F, Fut>(&self, key: K, work: F) -> Result<V, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<V, E>>,
    {
        let cell = self
            .lock()
            .entry(key.clone())
            .or_insert_with(|| Arc::new(OnceCell::new()))
            .clone();
        // Removes the entry when this caller finishes *or is dropped* (a client that hangs
        // up cancels its request future): otherwise an abandoned key stays in the map for
        // good, and keys that name a version are never asked for again.
        let _leave = Leave {
            flight: self,
            key,
            cell: cell.clone(),
        };
        cell.get_or_try_init(work).await.cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Arc<OnceCell<V>>>> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Takes a caller's entry out of the map when the caller is done with it, however it ends.
struct Leave<'a, K: Hash + Eq + Clone, V: Clone> {
    flight: &'a SingleFlight<K, V>,
    key: K,
    cell: Arc<OnceCell<V>>,
}

impl<K: Hash + Eq + Clone, V: Clone> Drop for Leave<'_, K, V> {
    fn drop(&mut self) {
        let mut in_flight = self.flight.lock();
        if in_flight
            .get(&self.key)
            .is_some_and(|c| Arc::ptr_eq(c, &self.cell))
        {
            in_flight.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn concurrent_callers_share_one_run() {
        let flight = Arc::new(SingleFlight::<&str, usize>::default());
        let runs = Arc::new(AtomicUsize::new(0));
        let (release, gate) = tokio::sync::watch::channel(false);
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let (flight, runs, mut gate) = (flight.clone(), runs.clone(), gate.clone());
            tasks.push(tokio::spawn(async move {
                flight
                    .run("k", || async move {
                        runs.fetch_add(1, Ordering::SeqCst);
                        let _ = gate.wait_for(|open| *open).await;
                        Ok::<_, ()>(42)
                    })
                    .await
            }));
        }
        tokio::task::yield_now().await;
        release.send_replace(true);
        for task in tasks {
            assert_eq!(task.await.unwrap(), Ok(42));
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        // Once finished, a new call runs again (results are not kept here).
        let again = flight.run("k", || async { Ok::<_, ()>(7) }).await;
        assert_eq!(again, Ok(7));
    }

    #[tokio::test]
    async fn a_failed_run_lets_the_next_caller_try() {
        let flight = SingleFlight::<u8, u8>::default();
        assert_eq!(
            flight.run(1, || async { Err::<u8, &str>("no") }).await,
            Err("no")
        );
        assert_eq!(flight.run(1, || async { Ok::<u8, &str>(3) }).await, Ok(3));
    }

    #[tokio::test]
    async fn a_caller_dropped_mid_run_leaves_no_entry_behind() {
        let flight = SingleFlight::<u32, u32>::default();
        let never = flight.run(7, std::future::pending::<Result<u32, ()>>);
        // Polled once (the entry exists), then dropped, as a request whose client hung up.
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(10), never)
                .await
                .is_err()
        );
        assert!(
            flight.lock().is_empty(),
            "the abandoned key is still in flight"
        );
        assert_eq!(flight.run(7, || async { Ok::<_, ()>(1) }).await, Ok(1));
        assert!(flight.lock().is_empty());
    }
}
