//! `GET /translations/events`: Server-Sent Events, one `version` event for every new
//! version served on this node (a sync here, or one another node stored in a shared
//! store), `id:` the version, and a comment line when the stream has been idle for the
//! heartbeat interval so that proxies keep it open. On connect the current version is sent
//! at once, unless `Last-Event-ID` already names it.
//!
//! A stream is a watch receiver and a timer: idle subscribers cost no task and no buffer
//! of their own beyond the connection's.

use super::service::{Subscription, TranslationService, VersionEvent};
use futures_util::StreamExt;
use futures_util::stream::{self, Stream};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use warp::reply::Response;
use warp::sse::Event;

/// The SSE response for one subscriber.
pub fn stream(
    service: &Arc<TranslationService>,
    last_event_id: Option<String>,
    heartbeat: Duration,
) -> Response {
    let events = versions(service.subscribe(), last_event_id)
        .map(|event| Ok::<_, Infallible>(to_sse(&event)));
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
