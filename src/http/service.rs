//! The edge every request passes before and after the routes: the request-target rule,
//! CORS, HEAD without a body, a panic turned into a logged 500, the headers that keep any
//! answer from running as a page of depot (`http::sandbox`), the request log and the
//! metrics. Whatever happens inside a handler, the client gets an answer.

use super::ApiError;
use super::cors::{self, Policy};
use super::routes;
use super::target::{self, Form};
use crate::http::state::AppState;
use futures_util::FutureExt;
use hyper::body::{Body as _, Incoming};
use std::convert::Infallible;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;
use warp::http::{HeaderValue, Method, Request, StatusCode, Uri, header};
use warp::reply::Response;

/// The methods the server as a whole answers (`OPTIONS *`).
const SERVER_METHODS: &str = "GET, HEAD, POST, DELETE, OPTIONS";

/// Wraps the routes (`app`, warp's filters as a hyper service) with the edge behaviour.
#[derive(Clone)]
pub struct Edge<A> {
    app: A,
    state: Arc<AppState>,
}

impl<A> Edge<A> {
    pub fn new(app: A, state: Arc<AppState>) -> Edge<A> {
        Edge { app, state }
    }
}

type Answer = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

impl<A> hyper::service::Service<Request<Incoming>> for Edge<A>
where
    A: hyper::service::Service<Request<Incoming>, Response = Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    A::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Answer;

    fn call(&self, request: Request<Incoming>) -> Answer {
        let app = self.app.clone();
        let state = self.state.clone();
        Box::pin(async move { Ok(answer(app, state, request).await) })
    }
}

/// What the log and the metrics keep of a request.
struct Seen {
    method: Method,
    path: String,
    route: &'static str,
}

async fn answer<A>(app: A, state: Arc<AppState>, mut request: Request<Incoming>) -> Response
where
    A: hyper::service::Service<Request<Incoming>, Response = Response, Error = Infallible>,
{
    let started = Instant::now();
    let method = request.method().clone();
    let head = method == Method::HEAD;
    let origin = request.headers().get(header::ORIGIN).cloned();
    let settings = state.config.settings();
    let policy = Policy::of(&settings.server.cors_origins);

    let form = target::classify(&method, request.uri(), request.headers().get(header::HOST));
    let seen = Seen {
        method: method.clone(),
        path: match &form {
            Ok(_) => request.uri().path().to_owned(),
            Err(_) => String::from("(not a path)"),
        },
        route: match &form {
            Ok(_) => routes::label_of(request.uri().path()),
            Err(_) => "unmatched",
        },
    };
    let mut response = match form {
        Err(e) => e.into_response(),
        Ok(Form::ServerWide) => server_options(),
        Ok(form) => {
            if let Form::Absolute {
                authority,
                path_and_query,
            } = form
            {
                to_origin_form(&mut request, authority, path_and_query);
            }
            match cors::is_preflight(&method, request.headers())
                .then(|| cors::preflight(policy, request.uri().path(), request.headers()))
                .flatten()
            {
                Some(preflight) => super::error::respond(preflight),
                None => call_caught(app, request, &seen).await,
            }
        }
    };
    if head {
        strip_body(&mut response);
    }
    cors::decorate(policy, origin.as_ref(), &mut response);
    super::sandbox::protect(&mut response);
    record(&state, &seen, &response, started, settings.log.requests);
    response
}

/// Calls the routes; a panic anywhere in them is logged with the request and answered
/// 500 instead of dropping the connection.
async fn call_caught<A>(app: A, request: Request<Incoming>, seen: &Seen) -> Response
where
    A: hyper::service::Service<Request<Incoming>, Response = Response, Error = Infallible>,
{
    // The call itself runs inside the caught future: warp does work when it is made.
    let routed = AssertUnwindSafe(async move { app.call(request).await }).catch_unwind();
    match routed.await {
        Ok(Ok(response)) => response,
        Ok(Err(never)) => match never {},
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".to_owned());
            // One error line with the request; the client sees the generic 500 body.
            ApiError::Internal(format!(
                "{} {}: the request handler panicked: {message}",
                seen.method, seen.path
            ))
            .into_response()
        }
    }
}

/// Routes an accepted absolute-form request as its origin-form; `Host` is filled from the
/// target when missing (HTTP/2), so signature checks see the host the client named.
fn to_origin_form(
    request: &mut Request<Incoming>,
    authority: warp::http::uri::Authority,
    path_and_query: warp::http::uri::PathAndQuery,
) {
    if !request.headers().contains_key(header::HOST)
        && let Ok(host) = HeaderValue::from_str(authority.as_str())
    {
        request.headers_mut().insert(header::HOST, host);
    }
    *request.uri_mut() = Uri::from(path_and_query);
}

/// `OPTIONS *`: what the server as a whole answers.
fn server_options() -> Response {
    let mut response = Response::new(Default::default());
    *response.status_mut() = StatusCode::NO_CONTENT;
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(SERVER_METHODS));
    response
}

/// A HEAD answer is the GET answer without its body: `Content-Length` stays the length of
/// the body GET would send (when known), and no body byte is produced or read.
fn strip_body(response: &mut Response) {
    if !response.headers().contains_key(header::CONTENT_LENGTH)
        && let Some(length) = response.body().size_hint().exact()
        && response.status() != StatusCode::NO_CONTENT
        && response.status() != StatusCode::NOT_MODIFIED
    {
        response
            .headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    }
    *response.body_mut() = Default::default();
}

/// The request log and the metrics. An answered request is logged at debug, or at info with
/// `log.requests` (an access log), so that the info log keeps what an operator reads:
/// start-up, syncs, reloads, refusals. A client's mistake (4xx) is not the server's error
/// and is logged like any answered request; 5xx at error, always.
fn record(state: &AppState, seen: &Seen, response: &Response, started: Instant, at_info: bool) {
    let status = response.status().as_u16();
    let elapsed = started.elapsed();
    state
        .metrics
        .record(seen.route, seen.method.as_str(), status, elapsed);
    let duration_ms = elapsed.as_secs_f64() * 1000.0;
    if status >= 500 {
        tracing::error!(target: "depot::http", method = %seen.method, path = %seen.path, status, duration_ms, "request");
    } else if at_info {
        tracing::info!(target: "depot::http", method = %seen.method, path = %seen.path, status, duration_ms, "request");
    } else {
        tracing::debug!(target: "depot::http", method = %seen.method, path = %seen.path, status, duration_ms, "request");
    }
}
