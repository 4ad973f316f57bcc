//! `serve(config, listener, shutdown)`: opens the stores, starts the background tasks,
//! composes each module's routes and runs them on the accept loop until the shutdown
//! signal, then lets in-flight requests finish and flushes the stores.

use crate::config::ConfigHandle;
use crate::http::error::recover;
pub use crate::http::state::{AppState, OpenError};
use crate::http::{accept, service::Edge, system};
use crate::shutdown::Shutdown;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error("start-up task failed: {0}")]
    Task(String),
}

/// Opens the stores and runs the daemon on `listener` until `shutdown` is triggered.
pub async fn serve(
    config: ConfigHandle,
    listener: TcpListener,
    shutdown: Shutdown,
) -> Result<(), ServeError> {
    let state = tokio::task::spawn_blocking(move || AppState::open(config))
        .await
        .map_err(|e| ServeError::Task(e.to_string()))??;
    serve_state(Arc::new(state), listener, shutdown).await
}

/// Runs the daemon over already opened stores (tests keep a handle on them).
pub async fn serve_state(
    state: Arc<AppState>,
    listener: TcpListener,
    shutdown: Shutdown,
) -> Result<(), ServeError> {
    let config = state.config.clone();
    if let Err(e) = state.files.enable_read_cache(shutdown.clone()).await {
        tracing::warn!(error = %e.detail(), "file record reads are not cached");
    }
    if let Ok(addr) = listener.local_addr() {
        state.set_bound(addr);
        state.producer.set_daemon_address(addr);
        log_base_url(&config.settings().server, addr);
    }

    // The background tasks, all stopped by the same shutdown signal as the server.
    let mut tasks = vec![
        crate::config::reload::spawn(config.clone(), shutdown.clone()),
        spawn_log_level_follower(&config, shutdown.clone()),
        tokio::spawn(state.producer.clone().run(shutdown.clone())),
        crate::content::spawn_probe(state.content.clone(), shutdown.clone()),
        crate::files::uploads::spawn_expiry(
            state.files.clone(),
            state.content.clone(),
            config.clone(),
            shutdown.clone(),
        ),
    ];
    // Event streams never end by themselves: end them when the shutdown starts.
    let closing = (state.clone(), shutdown.clone());
    tasks.push(tokio::spawn(async move {
        closing.1.wait().await;
        closing.0.translations.close_events();
    }));
    // A shared store changes under this node: follow it.
    tasks.extend(crate::translations::follow::spawn(
        &state.translations,
        shutdown.clone(),
    ));
    tasks.extend(state.channels.follow(shutdown.clone()));

    let edge = Edge::new(
        hyper_util::service::TowerToHyperService::new(warp::service(router(state.clone()))),
        state.clone(),
    );
    let stop = shutdown.clone();
    let server = accept::serve(
        listener,
        edge,
        config.clone(),
        async move { stop.wait().await },
    );
    tokio::pin!(server);

    // In-flight requests get `shutdown_grace_secs` after the signal; then we stop anyway.
    tokio::select! {
        () = &mut server => {}
        () = async {
            shutdown.wait().await;
            tokio::time::sleep(Duration::from_secs(config.settings().server.shutdown_grace_secs)).await;
        } => tracing::warn!("grace period over; closing the connections still open"),
    }
    for task in tasks {
        task.abort();
    }
    let flushing = state.clone();
    let _ = tokio::task::spawn_blocking(move || flushing.flush()).await;
    tracing::info!("stopped");
    Ok(())
}

/// Says at start where the links depot gives clients (signed URLs of the embedded store,
/// upload URLs) point.
fn log_base_url(server: &crate::config::settings::Server, bound: std::net::SocketAddr) {
    match &server.public_url {
        Some(public) => tracing::info!(url = %public.url, key = public.key, "public base URL"),
        None if bound.ip().is_unspecified() => tracing::info!(
            "public base URL: the address each request came in on (depot listens on every \
             address and server.public_url is not set); set server.public_url when clients \
             reach depot through a proxy, NAT or a port mapping"
        ),
        None => tracing::info!(
            url = %server.base_url(bound, None),
            "public base URL: the listen address; set server.public_url when clients reach \
             depot under another address"
        ),
    }
}

/// Every module's routes, and the recovery that turns what none answered into the
/// contract's error body. The request log, metrics, CORS and HEAD live in `http::service`.
pub fn router(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    system::routes(state.clone())
        .or(crate::http::files::routes(state.clone()))
        .unify()
        .or(crate::http::uploads::routes(state.clone()))
        .unify()
        .or(crate::http::translations::routes(state.clone()))
        .unify()
        .or(crate::http::channels::routes(state.clone()))
        .unify()
        .or(crate::http::sdk::routes(state.clone()))
        .unify()
        .or(crate::http::objects::routes(state.clone()))
        .unify()
        .or(crate::http::object_writes::routes(state.clone()))
        .unify()
        .or(crate::http::console::routes(state))
        .unify()
        .recover(recover)
        .unify()
        .map(warp::Reply::into_response)
        .boxed()
}

fn spawn_log_level_follower(
    config: &ConfigHandle,
    shutdown: Shutdown,
) -> tokio::task::JoinHandle<()> {
    let mut changes = config.subscribe();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = shutdown.wait() => return,
                changed = changes.changed() => if changed.is_err() { return },
            }
            let level = changes.borrow_and_update().log.level.clone();
            crate::logging::set_level(&level);
        }
    })
}
