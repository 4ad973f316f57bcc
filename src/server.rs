//! `serve(config, listener, shutdown)`: opens the stores, starts the background tasks,
//! assembles the routes and runs warp until the shutdown signal, then lets in-flight
//! requests finish and flushes the stores.

use crate::config::ConfigHandle;
use crate::http::error::recover;
use crate::http::metrics::Metrics;
use crate::http::routes::{self, on};
use crate::http::system;
use crate::shutdown::Shutdown;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

/// What every handler can reach.
pub struct AppState {
    pub config: ConfigHandle,
    pub metrics: Metrics,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot create the data folder {path}: {reason}")]
    DataDir { path: String, reason: String },
}

/// Runs the daemon on `listener` until `shutdown` is triggered.
pub async fn serve(
    config: ConfigHandle,
    listener: TcpListener,
    shutdown: Shutdown,
) -> Result<(), ServeError> {
    let settings = config.settings();
    let data_dir = &settings.server.data_dir;
    std::fs::create_dir_all(data_dir).map_err(|e| ServeError::DataDir {
        path: data_dir.display().to_string(),
        reason: e.to_string(),
    })?;

    let state = Arc::new(AppState {
        config: config.clone(),
        metrics: Metrics::default(),
    });

    let tasks = vec![
        crate::config::reload::spawn(config.clone(), shutdown.clone()),
        spawn_log_level_follower(&config, shutdown.clone()),
    ];

    let app = router(state.clone());
    let stop = shutdown.clone();
    let server = warp::serve(app)
        .incoming(listener)
        .graceful(async move { stop.wait().await })
        .run();
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
    tracing::info!("stopped");
    Ok(())
}

/// All routes, the request log and metrics, and the error recovery.
pub fn router(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let with_state = {
        let state = state.clone();
        warp::any().map(move || state.clone())
    };

    let health = on(&routes::HEALTH)
        .and(with_state.clone())
        .map(|_, state: Arc<AppState>| system::health(&state));
    let metrics = on(&routes::METRICS)
        .and(with_state.clone())
        .map(|_, state: Arc<AppState>| system::metrics(&state));
    let openapi = on(&routes::OPENAPI).map(|_| system::openapi());

    let metrics_sink = state.metrics.clone();
    let log = warp::log::custom(move |info: warp::log::Info<'_>| {
        let route = routes::label_of(info.path());
        let status = info.status().as_u16();
        metrics_sink.record(route, info.method().as_str(), status, info.elapsed());
        tracing::info!(
            target: "depot::http",
            method = %info.method(),
            path = info.path(),
            status,
            duration_ms = info.elapsed().as_secs_f64() * 1000.0,
            "request"
        );
    });

    health
        .or(metrics)
        .unify()
        .or(openapi)
        .unify()
        .recover(recover)
        .unify()
        .with(log)
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
