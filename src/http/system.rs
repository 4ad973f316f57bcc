//! `/health`, `/metrics` and `/openapi.json`.

use super::consent_callback;
use crate::http::state::AppState;
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
            "translations": state.translations.store_health(),
            "records": records(state),
            "objects": objects(state),
        },
        // The last delivery to each of webhooks.urls (URLs shown without path or query).
        "webhooks": state.producer.webhooks().deliveries(),
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

/// The document depends only on the route table, so it is serialised once per process.
pub fn openapi() -> Response {
    static BODY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let body = BODY.get_or_init(|| super::openapi::document().to_string());
    warp::reply::with_header(body.as_str(), "content-type", "application/json").into_response()
}

/// Where the file records live and whether the last look at them succeeded.
fn records(state: &Arc<AppState>) -> serde_json::Value {
    let last_error = state.files.last_error();
    serde_json::json!({
        "kind": state.files.kind(),
        "reachable": last_error.is_none(),
        "lastError": last_error,
    })
}

/// Where file content lives: an S3-compatible endpoint, named by its host, with what its
/// last operation or probe found (`reachable` null before the first), or the embedded store.
fn objects(state: &Arc<AppState>) -> serde_json::Value {
    use crate::content::Health;
    let health = match state.content.current() {
        Ok(store) => store.health(),
        Err(error) => {
            return serde_json::json!({ "kind": null, "reachable": false, "lastError": error.to_string() });
        }
    };
    match health {
        Health::Endpoint { endpoint, reach } => {
            serde_json::json!({
                "kind": "s3",
                "endpoint": endpoint,
                "reachable": reach.as_ref().map(|r| r.reachable),
                "lastError": reach.as_ref().and_then(|r| r.last_error.clone()),
                "checkedAt": reach.map(|r| crate::time::iso_millis(r.checked_at)),
            })
        }
        Health::Embedded => {
            serde_json::json!({ "kind": "embedded", "reachable": true, "lastError": null })
        }
    }
}

/// The translations part of `/health`: the served version, its key counts and warnings,
/// and how the producer's syncs went.
fn translations(state: &Arc<AppState>) -> serde_json::Value {
    let sync = state.producer.status();
    let service = &state.translations;
    let mut part = match service.current() {
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
                // The checks before publishing (SPEC §9), each naming its cell.
                "findings": live.stored.document.findings,
                // What a whole-locale render of each format leaves out (name collisions).
                "renderWarnings": live
                    .render_warnings
                    .iter()
                    .map(|(format, warnings)| (format.name().to_owned(), serde_json::json!(warnings)))
                    .collect::<serde_json::Map<_, _>>(),
            })
        }
    };
    // Where the translations come from: `google`, `local`, or `example` (the sheet built
    // into depot, read while no spreadsheet is configured).
    part["source"] = state.producer.source_kind().into();
    // Why the stored document is not served, until a sync replaces it.
    part["loadError"] = service.load_error().into();
    part["lastSyncAt"] = sync.last_sync_at.map(crate::time::iso_millis).into();
    part["lastSuccessAt"] = sync.last_success_at.map(crate::time::iso_millis).into();
    part["lastError"] = sync.last_error.into();
    part["consecutiveFailures"] = sync.consecutive_failures.into();
    part["nextSyncAt"] = sync.next_sync_at.map(crate::time::iso_millis).into();
    // The process whose sync this is: this node, another node or `depot produce` (the state
    // is kept in the store, so a node that does not sync shows the one that does).
    part["syncedBy"] = Some(sync.by).filter(|by| !by.is_empty()).into();
    // With a shared store: whether this node's producer holds the lease (`held`), waits for
    // it (`standby`) or is off (`off`); null on an embedded store.
    part["lease"] = state.producer.lease_state().into();
    part
}

/// `GET /health`, `GET /metrics`, `GET /openapi.json` and the OAuth consent callback.
pub fn routes(state: Arc<AppState>) -> warp::filters::BoxedFilter<(Response,)> {
    use super::ApiError;
    use super::filters::with_state;
    use super::query;
    use super::routes::{self as table, on};
    use warp::Filter;
    use warp::path::FullPath;

    let health = on(&table::HEALTH)
        .and(with_state(state.clone()))
        .map(|_, state: Arc<AppState>| health(&state));
    let metrics = on(&table::METRICS)
        .and(with_state(state.clone()))
        .map(|_, state: Arc<AppState>| metrics(&state));
    let openapi = on(&table::OPENAPI).map(|_| openapi());
    let oauth_callback = on(&table::OAUTH_CALLBACK)
        .and(warp::path::full())
        .and(query::params())
        .and(with_state(state))
        .map(
            |_, path: FullPath, params: Vec<(String, String)>, state: Arc<AppState>| {
                state
                    .producer
                    .answer_consent(path.as_str(), &params)
                    .map(consent_callback::into_response)
                    .unwrap_or_else(|| {
                        ApiError::NotFound(
                            "no consent flow is under way; run `depot auth` to start one".into(),
                        )
                        .into_response()
                    })
            },
        );
    health
        .or(metrics)
        .unify()
        .or(openapi)
        .unify()
        .or(oauth_callback)
        .unify()
        .boxed()
}
