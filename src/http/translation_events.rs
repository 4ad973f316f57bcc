//! `GET /translations/events`: Server-Sent Events, one `version` event for every new
//! version served on this node (a sync here, or one another node stored in a shared
//! store), `id:` the version, and a comment line when the stream has been idle for the
//! heartbeat interval so that proxies keep it open. On connect the current version is sent
//! at once, unless `Last-Event-ID` already names it.
//!
//! A stream is a watch receiver and a timer: idle subscribers cost no task and no buffer
//! of their own beyond the connection's. Streams are counted (`Slots`): at most
//! `limits.events_per_client` from one client address and `limits.events_total` in all, so
//! one client cannot hold the node's memory and file descriptors; past either, 429.

use crate::http::client::ClientKey;
use crate::translations::service::{Subscription, TranslationService, VersionEvent};
use futures_util::StreamExt;
use futures_util::stream::{self, Stream};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use warp::reply::Response;
use warp::sse::Event;

/// The SSE response for one subscriber; it holds `slot` until the stream ends.
pub fn stream(
    service: &Arc<TranslationService>,
    last_event_id: Option<String>,
    heartbeat: Duration,
    slot: Slot,
) -> Response {
    let events = versions(service.subscribe(), last_event_id).map(move |event| {
        let _held = &slot;
        Ok::<_, Infallible>(to_sse(&event))
    });
    let body = warp::sse::keep_alive()
        .interval(heartbeat)
        .text("heartbeat")
        .stream(events);
    let mut response = warp::reply::Reply::into_response(warp::sse::reply(body));
    // Tells nginx not to buffer the stream (it would hold events back).
    response.headers_mut().insert(
        "x-accel-buffering",
        warp::http::HeaderValue::from_static("no"),
    );
    response
}

/// The versions a subscriber is told of: the current one unless it already has it, then
/// each new one. It ends when the service closes its events (shutdown).
pub fn versions(
    subscription: Subscription,
    last_event_id: Option<String>,
) -> impl Stream<Item = VersionEvent> + Send + 'static {
    let state = State {
        subscription,
        last: last_event_id.map(|id| id.trim().to_owned()),
        first: true,
    };
    stream::unfold(state, |mut state| async move {
        loop {
            if !state.first {
                let Subscription { versions, closed } = &mut state.subscription;
                tokio::select! {
                    changed = versions.changed() => changed.ok()?,
                    _ = closed.wait_for(|closed| *closed) => return None,
                }
            }
            state.first = false;
            if *state.subscription.closed.borrow() {
                return None;
            }
            let current = state.subscription.versions.borrow_and_update().clone();
            if let Some(event) = current
                && state.last.as_deref() != Some(event.version.as_str())
            {
                state.last = Some(event.version.clone());
                return Some((event, state));
            }
        }
    })
}

/// The open streams, per client and in all.
#[derive(Default)]
pub struct Slots {
    counts: Arc<Mutex<Counts>>,
}

#[derive(Default)]
struct Counts {
    total: u64,
    per_client: HashMap<ClientKey, u64>,
}

/// One open stream's place; given back when dropped (the stream ended: the client went
/// away, or the daemon shuts down).
pub struct Slot {
    counts: Arc<Mutex<Counts>>,
    client: ClientKey,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SlotError {
    #[error(
        "too many event streams from your address ({client}): at most {limit} \
         (limits.events_per_client); close one first"
    )]
    PerClient { client: ClientKey, limit: u64 },
    #[error(
        "too many event streams open on this node: at most {limit} (limits.events_total); \
         try again later"
    )]
    Total { limit: u64 },
}

impl Slots {
    /// A place for one more stream of `client`, within the caps.
    pub fn open(&self, client: ClientKey, per_client: u64, total: u64) -> Result<Slot, SlotError> {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let mine = counts.per_client.get(&client).copied().unwrap_or(0);
        if mine >= per_client {
            return Err(SlotError::PerClient {
                client,
                limit: per_client,
            });
        }
        if counts.total >= total {
            return Err(SlotError::Total { limit: total });
        }
        counts.total += 1;
        counts.per_client.insert(client, mine + 1);
        Ok(Slot {
            counts: self.counts.clone(),
            client,
        })
    }

    /// Streams open now.
    pub fn open_count(&self) -> u64 {
        self.counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .total
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        counts.total = counts.total.saturating_sub(1);
        if let Some(mine) = counts.per_client.get_mut(&self.client) {
            *mine = mine.saturating_sub(1);
            if *mine == 0 {
                counts.per_client.remove(&self.client);
            }
        }
    }
}

struct State {
    subscription: Subscription,
    /// The version the subscriber has.
    last: Option<String>,
    first: bool,
}

fn to_sse(event: &VersionEvent) -> Event {
    let data = serde_json::json!({
        "version": event.version,
        "updatedAt": crate::time::iso_millis(event.updated_at),
    });
    Event::default()
        .event("version")
        .id(event.version.clone())
        .data(data.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::client::ClientAddr;

    fn client(addr: &str) -> ClientKey {
        ClientAddr(addr.parse().unwrap()).key()
    }

    #[test]
    fn streams_are_capped_per_client_and_in_all_and_closing_frees_a_place() {
        let slots = Slots::default();
        let a = client("192.0.2.1:1");
        let held: Vec<Slot> = (0..2).map(|_| slots.open(a, 2, 3).unwrap()).collect();
        assert_eq!(
            slots.open(a, 2, 3).err(),
            Some(SlotError::PerClient {
                client: a,
                limit: 2
            })
        );
        let b = slots.open(client("192.0.2.2:1"), 2, 3).unwrap();
        assert_eq!(
            slots.open(client("192.0.2.3:1"), 2, 3).err(),
            Some(SlotError::Total { limit: 3 })
        );
        assert_eq!(slots.open_count(), 3);
        drop(b);
        let again = slots.open(client("192.0.2.3:1"), 2, 3).unwrap();
        drop(held);
        drop(again);
        assert_eq!(slots.open_count(), 0);
        assert!(slots.counts.lock().unwrap().per_client.is_empty());
    }

    #[test]
    fn the_refusals_name_the_cap_and_its_key() {
        let per_client = SlotError::PerClient {
            client: client("192.0.2.1:1"),
            limit: 16,
        };
        assert_eq!(
            per_client.to_string(),
            "too many event streams from your address (192.0.2.1): at most 16 \
             (limits.events_per_client); close one first"
        );
        assert!(
            SlotError::Total { limit: 10_000 }
                .to_string()
                .contains("at most 10000 (limits.events_total)")
        );
    }
}
