//! Keeps a node's in-memory document in step with a shared store that other processes
//! write: a subscription announces each new version at once, a poll every second catches
//! what the subscription missed (pub/sub drops messages across reconnects). While the store
//! is unreachable the node keeps serving what it holds and retries with backoff.

use super::service::TranslationService;
use super::store::{RedisStore, StoreError};
use crate::shutdown::Shutdown;
use futures_util::StreamExt;
use redis::aio::PubSubStream;
use std::sync::Arc;
use std::time::Duration;

/// The poll that backs up the subscription.
const POLL: Duration = Duration::from_secs(1);
/// Retries after failures wait 1 s, 2 s, 4 s, then this at most, so a node picks up a
/// Redis that is back within a few seconds.
const MAX_RETRY: Duration = Duration::from_secs(5);

/// Starts following when the service's store is shared; `None` for an embedded store.
pub fn spawn(
    service: &Arc<TranslationService>,
    shutdown: Shutdown,
) -> Option<tokio::task::JoinHandle<()>> {
    let store = service.shared()?.clone();
    Some(tokio::spawn(run(store, service.clone(), shutdown)))
}

async fn run(store: Arc<RedisStore>, service: Arc<TranslationService>, shutdown: Shutdown) {
    let mut subscription: Option<PubSubStream> = None;
    let mut failures: u32 = 0;
    // A current version that failed to decode is not fetched again every second.
    let mut undecodable: Option<String> = None;
    loop {
        // Subscribe before reading the current id, so nothing falls between the two; a
        // failed subscription leaves the poll, which reports the store's state.
        if subscription.is_none() {
            match store.subscribe().await {
                Ok(stream) => subscription = Some(stream),
                Err(e) => tracing::debug!(error = %e, "no subscription to new versions; polling"),
            }
        }
        let result = catch_up(&store, &service, &mut undecodable).await;
        match result {
            Ok(()) => {
                if failures > 0 {
                    tracing::info!(
                        store = store.shown_url(),
                        "translations store reachable again"
                    );
                }
                failures = 0;
            }
            Err(e) => {
                failures = failures.saturating_add(1);
                if failures == 1 {
                    let serving = if service.current().is_some() {
                        "the version held is still served"
                    } else {
                        "translations answer 503 until a version is loaded"
                    };
                    tracing::warn!(error = %e, "cannot follow the translations store; {serving}; retrying with backoff");
                }
                // The subscription may be stale too; make a new one with the next try.
                subscription = None;
            }
        }
        let wait = if failures == 0 {
            POLL
        } else {
            crate::retry::backoff(failures, MAX_RETRY)
        };
        tokio::select! {
            () = shutdown.wait() => return,
            () = tokio::time::sleep(wait) => {}
            message = next_message(&mut subscription) => {
                if message.is_none() {
                    // The connection is gone; the next round subscribes again and polls.
                    subscription = None;
                }
            }
        }
    }
}

/// The next announcement, or never when there is no subscription.
async fn next_message(subscription: &mut Option<PubSubStream>) -> Option<redis::Msg> {
    match subscription {
        Some(stream) => stream.next().await,
        None => std::future::pending().await,
    }
}

/// Loads the store's current version when it differs from the one served.
async fn catch_up(
    store: &Arc<RedisStore>,
    service: &Arc<TranslationService>,
    undecodable: &mut Option<String>,
) -> Result<(), StoreError> {
    let held = service.current().map(|live| live.stored.version.clone());
    let Some(current) = store.current_version().await? else {
        // Nothing stored (a new or emptied Redis): keep serving what this node holds.
        return Ok(());
    };
    if held.as_ref() == Some(&current) || undecodable.as_ref() == Some(&current) {
        return Ok(());
    }
    let Some(bytes) = store.fetch(&current).await? else {
        // Replaced and trimmed since its id was read; the next round reads the new id.
        return Ok(());
    };
    let service = service.clone();
    let version = current.clone();
    let adopted = tokio::task::spawn_blocking(move || {
        let stored = RedisStore::decode(&version, &bytes)?;
        Ok::<_, StoreError>(service.adopt(stored, held.as_deref()))
    })
    .await
    .map_err(|e| StoreError::Io(format!("the load task stopped: {e}")))?;
    match adopted {
        Ok(true) => {
            tracing::info!(version = %current, "serving the store's new translations version")
        }
        Ok(false) => {}
        Err(e) => {
            tracing::warn!(error = %e, version = %current, "the store's current version cannot be read; the version held is still served");
            *undecodable = Some(current);
        }
    }
    Ok(())
}
