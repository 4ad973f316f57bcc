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
