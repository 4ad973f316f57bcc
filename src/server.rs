//! `serve(config, listener, shutdown)`: opens the stores, starts the background tasks,
//! assembles the routes and runs warp until the shutdown signal, then lets in-flight
//! requests finish and flushes the stores.

use crate::config::ConfigHandle;
use crate::config::Settings;
use crate::files::{self, FilesDb, RepoError};
use crate::http::error::{recover, respond};
use crate::http::metrics::Metrics;
use crate::http::routes::{self, on};
use crate::http::{ApiError, system};
use crate::http::{auth, query};
use crate::objects::routes::{ObjectRequest, ObjectsEndpoint};
use crate::objects::{CredentialsError, EmbeddedCredentials, ObjectError, ObjectStore};
use crate::producer::Producer;
use crate::shutdown::Shutdown;
use crate::signing::{
    Addressing, Credentials, DEFAULT_MAX_CLOCK_SKEW, Signer, SigningTarget, Verifier,
};
use crate::translations::routes::get_translations;
use crate::translations::service::TranslationService;
use crate::translations::store::StoreError;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;
use tokio::net::TcpListener;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::HeaderMap;
use warp::path::FullPath;
use warp::reply::Response;

/// What every handler can reach.
pub struct AppState {
    pub config: ConfigHandle,
    pub metrics: Metrics,
    pub translations: Arc<TranslationService>,
    pub producer: Arc<Producer>,
    /// The embedded object store, when `objects.enabled`.
    pub objects: Option<Arc<ObjectsEndpoint>>,
    /// The embedded store's credentials (generated on first start).
    pub embedded_credentials: Credentials,
    pub files: FilesDb,
    /// The signer for the settings in force, rebuilt when a reload changes them.
    signer: Mutex<Option<(Arc<Settings>, Arc<Signer>)>>,
    /// The address the server bound (known once serving starts), for embedded-store URLs.
    bound: OnceLock<SocketAddr>,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot create the data folder {path}: {reason}")]
    DataDir { path: String, reason: String },
    #[error(transparent)]
    Translations(#[from] StoreError),
    #[error(transparent)]
    Objects(#[from] ObjectError),
    #[error(transparent)]
    Credentials(#[from] CredentialsError),
    #[error(transparent)]
    Files(#[from] RepoError),
    #[error("start-up task failed: {0}")]
    Task(String),
}

impl AppState {
    /// Creates the data folder and opens every store the settings name (blocking).
    pub fn open(config: ConfigHandle) -> Result<AppState, ServeError> {
        let settings = config.settings();
        let data_dir = &settings.server.data_dir;
        std::fs::create_dir_all(data_dir).map_err(|e| ServeError::DataDir {
            path: data_dir.display().to_string(),
            reason: e.to_string(),
        })?;
        let embedded_credentials = EmbeddedCredentials::load_or_create(data_dir)?;
        let files = FilesDb::open(&settings.database.path)?;
        let objects = if settings.objects.enabled {
            Some(Arc::new(ObjectsEndpoint {
                store: Arc::new(ObjectStore::open(settings.objects.root.clone())?),
                verifier: Verifier::new(
                    embedded_credentials.access_key_id.clone(),
                    embedded_credentials.secret_access_key.clone(),
                    DEFAULT_MAX_CLOCK_SKEW,
                ),
                files: Some(files.clone()),
            }))
        } else {
            None
        };
        let translations = Arc::new(TranslationService::open(&settings.translations)?);
        Ok(AppState {
            producer: Arc::new(Producer::new(config.clone(), translations.clone())),
            translations,
            objects,
            embedded_credentials,
            files,
            config,
            metrics: Metrics::default(),
            signer: Mutex::new(None),
            bound: OnceLock::new(),
        })
    }

    /// The signer for the current settings: for `signing.endpoint` when set, else for the
    /// embedded store at `<public_url>/objects` with the embedded credentials.
    pub fn signer(&self) -> Result<Arc<Signer>, ApiError> {
        let settings = self.config.settings();
        let mut cached = self.signer.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((for_settings, signer)) = cached.as_ref()
            && Arc::ptr_eq(for_settings, &settings)
        {
            return Ok(signer.clone());
        }
        let signing = &settings.signing;
        let (target, credentials) = match &signing.endpoint {
            Some(endpoint) => (
                SigningTarget {
                    endpoint: endpoint.clone(),
                    addressing: signing.addressing,
                    region: signing.region.clone(),
                },
                Credentials {
                    access_key_id: signing.access_key_id.clone(),
                    secret_access_key: signing.secret_access_key.clone(),
                    session_token: signing.session_token.clone(),
                },
            ),
            None => (
                SigningTarget {
                    endpoint: format!(
                        "{}/objects",
                        signing.public_url_for(
                            self.bound.get().copied().unwrap_or(settings.server.listen)
                        )
                    ),
                    addressing: Addressing::Path,
                    region: signing.region.clone(),
                },
                self.embedded_credentials.clone(),
            ),
        };
        let signer = Arc::new(Signer::new(target, credentials)?);
        *cached = Some((settings, signer.clone()));
        Ok(signer)
    }

    /// Makes every accepted write durable; called once the server has stopped.
    pub fn flush(&self) {
        if let Err(e) = self.translations.flush() {
            tracing::error!(error = %e, "flushing the translations store failed");
        }
    }
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
    if let Err(e) = state
        .files
        .enable_read_cache(&config.settings().database.path, shutdown.clone())
    {
        tracing::warn!(error = %e.detail(), "file record reads are not cached");
    }
    if let Ok(addr) = listener.local_addr() {
        let _ = state.bound.set(addr);
        state.producer.set_daemon_address(addr);
        if config.settings().signing.endpoint.is_none() && addr.ip().is_unspecified() {
            tracing::warn!(
                url = %config.settings().signing.public_url_for(addr),
                "signing.public_url is not set: signed URLs point at loopback; set it to the address clients use"
            );
        }
    }

    // The background tasks, all stopped by the same shutdown signal as the server.
    let mut tasks = vec![
        crate::config::reload::spawn(config.clone(), shutdown.clone()),
        spawn_log_level_follower(&config, shutdown.clone()),
        tokio::spawn(state.producer.clone().run(shutdown.clone())),
    ];
    // A shared store changes under this node: follow it.
    tasks.extend(crate::translations::follow::spawn(
        &state.translations,
        shutdown.clone(),
    ));

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
    let flushing = state.clone();
    let _ = tokio::task::spawn_blocking(move || flushing.flush()).await;
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
    let translations = on(&routes::TRANSLATIONS)
        .and(with_state.clone())
        .and(query::params())
        .and(warp::header::headers_cloned())
        .then(|_, state: Arc<AppState>, params, headers| async move {
            respond(get_translations(state.translations.clone(), params, headers).await)
        });
    let oauth_callback = on(&routes::OAUTH_CALLBACK)
        .and(warp::path::full())
        .and(query::params())
        .and(with_state.clone())
        .map(
            |_, path: FullPath, params: Vec<(String, String)>, state: Arc<AppState>| {
                state
                    .producer
                    .answer_consent(path.as_str(), &params)
                    .unwrap_or_else(|| {
                        ApiError::NotFound(
                            "no consent flow is under way; run `depot auth` to start one".into(),
                        )
                        .into_response()
                    })
            },
        );
    let list_files = on(&routes::FILES_LIST)
        .and(with_state.clone())
        .and(query::params())
        .and(warp::header::headers_cloned())
        .then(|_, state: Arc<AppState>, params, headers| async move {
            let settings = state.config.settings();
            respond(files::routes::list_files(state.files.clone(), settings, params, headers).await)
        });
    let get_file = on(&routes::FILE_GET)
        .and(with_state.clone())
        .and(query::params())
        .and(warp::header::headers_cloned())
        .then(|_, state: Arc<AppState>, params, headers| async move {
            let settings = state.config.settings();
            let signer = match state.signer() {
                Ok(signer) => signer,
                Err(e) => return e.into_response(),
            };
            respond(
                files::routes::get_file(state.files.clone(), settings, signer, params, headers)
                    .await,
            )
        });
    let body_limit = state.config.settings().server.body_limit_bytes;
    let create_file = on(&routes::FILES_CREATE)
        .and(with_state.clone())
        .and(warp::header::headers_cloned())
        // The key is checked before the body is read.
        .and_then(|_, state: Arc<AppState>, headers: HeaderMap| async move {
            match auth::require_admin(&headers, &state.config.settings().auth) {
                Ok(()) => Ok((state, headers)),
                Err(e) => Err(warp::reject::custom(e)),
            }
        })
        .untuple_one()
        .and(warp::body::content_length_limit(body_limit))
        .and(warp::multipart::form().max_length(body_limit))
        .then(|state: Arc<AppState>, headers, form| async move {
            let settings = state.config.settings();
            let store = state.objects.as_ref().map(|o| o.store.clone());
            respond(
                files::routes::create_file(state.files.clone(), store, settings, headers, form)
                    .await,
            )
        });
    let delete_file = on(&routes::FILE_DELETE)
        .and(with_state.clone())
        .and(query::params())
        .and(warp::header::headers_cloned())
        .then(|_, state: Arc<AppState>, params, headers| async move {
            let settings = state.config.settings();
            let store = state.objects.as_ref().map(|o| o.store.clone());
            respond(
                files::routes::delete_file(state.files.clone(), store, settings, params, headers)
                    .await,
            )
        });
    let objects = on(&routes::OBJECT_GET)
        .map(|p| (p, false))
        .or(on(&routes::OBJECT_HEAD).map(|p| (p, true)))
        .unify()
        .untuple_one()
        .and(warp::path::full())
        .and(query::raw())
        .and(warp::header::headers_cloned())
        .and(with_state.clone())
        .then(
            |params, head, path: FullPath, query, headers, state: Arc<AppState>| async move {
                let Some(endpoint) = state.objects.clone() else {
                    return ApiError::NotFound(
                        "the embedded object store is off (objects.enabled = false)".into(),
                    )
                    .into_response();
                };
                let request = ObjectRequest {
                    head,
                    params,
                    path: path.as_str().to_owned(),
                    query,
                    headers,
                };
                endpoint.answer(request).await
            },
        );

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
        .or(list_files)
        .unify()
        .or(get_file)
        .unify()
        .or(create_file)
        .unify()
        .or(delete_file)
        .unify()
        .or(translations)
        .unify()
        .or(oauth_callback)
        .unify()
        .or(objects)
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
