//! `/health`, `/metrics` and `/openapi.json`.

use crate::server::AppState;
use std::sync::Arc;
use warp::Reply;
use warp::reply::Response;

pub fn health(state: &Arc<AppState>) -> Response {
    let config = state.config.status();
    let body = serde_json::json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "config": {
            "revision": config.revision,
            "loadedAt": crate::time::iso_millis(config.loaded_at),
            "lastError": config.last_error,
        },
        "translations": translations(state),
        "stores": {
            "translations": state.translations.store().health(),
        },
    });
    warp::reply::json(&body).into_response()
}

pub fn metrics(state: &Arc<AppState>) -> Response {
    warp::reply::with_header(
        state.metrics.render(),
        "content-type",
        "text/plain; version=0.0.4; charset=utf-8",
    )
    .into_response()
}

pub fn openapi() -> Response {
    warp::reply::json(&super::routes::openapi()).into_response()
}

/// The translations part of `/health`: the served version, its key counts and warnings,
/// and how the producer's syncs went.
fn translations(state: &Arc<AppState>) -> serde_json::Value {
    let sync = state.producer.status();
    let mut part = match state.translations.current() {
        None => serde_json::json!({ "loaded": false, "version": null }),
        Some(live) => {
            let counts: serde_json::Map<_, _> = live
                .key_counts
                .iter()
                .map(|(locale, n)| (locale.clone(), serde_json::json!(n)))
                .collect();
            serde_json::json!({
                "loaded": true,
                "version": live.stored.version,
                "updatedAt": crate::time::iso_millis(live.stored.updated_at),
                "keyCounts": counts,
                "warnings": live.stored.document.warnings,
            })
        }
    };
    part["lastSyncAt"] = sync.last_sync_at.map(crate::time::iso_millis).into();
    part["lastSuccessAt"] = sync.last_success_at.map(crate::time::iso_millis).into();
    part["lastError"] = sync.last_error.into();
    part["consecutiveFailures"] = sync.consecutive_failures.into();
    part["nextSyncAt"] = sync.next_sync_at.map(crate::time::iso_millis).into();
    // With a shared store: whether this node's producer holds the lease (`held`), waits for
    // it (`standby`) or is off (`off`); null on an embedded store.
    part["lease"] = state.producer.lease_state().into();
    part
}
