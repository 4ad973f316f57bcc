//! The OAuth consent callback over HTTP: the page the consent flow answers, as a response,
//! and the callback served on a listener of its own when the daemon does not listen on
//! `SERVICE_REDIRECT_URI`'s port (or `depot auth` runs without a daemon). The flow itself
//! (`sheets::consent`) knows no HTTP framework.

use crate::sheets::consent::{CallbackPage, Session};
use crate::shutdown::Shutdown;
use std::sync::Arc;
use warp::Filter;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

pub fn into_response(page: CallbackPage) -> Response {
    let status = StatusCode::from_u16(page.status).unwrap_or(StatusCode::BAD_REQUEST);
    warp::reply::with_status(warp::reply::html(page.html), status).into_response()
}

/// `serve` as the producer takes it (`sheets::consent::CallbackServer`).
pub fn server(
    session: Arc<Session>,
    listener: tokio::net::TcpListener,
    stop: Shutdown,
) -> futures_util::future::BoxFuture<'static, ()> {
    Box::pin(serve(session, listener, stop))
}

/// Serves the callback on `listener` until `stop` (the flow ends when the browser answered).
pub async fn serve(session: Arc<Session>, listener: tokio::net::TcpListener, stop: Shutdown) {
    let route = warp::path::full()
        .and(warp::query::<Vec<(String, String)>>())
        .map(
            move |full: warp::path::FullPath, query: Vec<(String, String)>| {
                into_response(session.answer(full.as_str(), &query))
            },
        );
    warp::serve(route)
        .incoming(listener)
        .graceful(async move { stop.wait().await })
        .run()
        .await;
}
