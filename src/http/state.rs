//! What every request handler can reach: the configuration, the stores, the producer and
//! the signer. Opened once by `depot serve` (or by a test), shared as `Arc<AppState>`.

use crate::config::ConfigHandle;
use crate::config::Settings;
use crate::files::{FilesDb, RepoError};
use crate::http::ApiError;
use crate::http::metrics::Metrics;
use crate::objects::{
    CredentialsError, EmbeddedCredentials, ObjectError, ObjectStore, SignedStore,
};
use crate::producer::Producer;
use crate::signing::{
    Addressing, Credentials, DEFAULT_MAX_CLOCK_SKEW, Signer, SigningTarget, Verifier,
};
use crate::translations::bundles::Bundles;
use crate::translations::channels::Channels;
use crate::translations::service::TranslationService;
use crate::translations::store::StoreError;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// What every handler can reach.
pub struct AppState {
    pub config: ConfigHandle,
    pub metrics: Metrics,
    pub translations: Arc<TranslationService>,
    pub producer: Arc<Producer>,
    /// Where each channel points (SPEC §14).
    pub channels: Arc<Channels>,
    /// The rendered bundles of the SDK layouts.
    pub bundles: Arc<Bundles>,
    /// The embedded object store, when `objects.enabled`.
    pub objects: Option<Arc<SignedStore>>,
    /// The embedded store's credentials (generated on first start).
    pub embedded_credentials: Credentials,
    pub files: FilesDb,
    /// The API keys' check, with the throttle of wrong ones.
    pub keys: crate::http::auth::KeyGuard,
    /// The signers for the settings in force (one per base URL of the embedded store), made
    /// again when a reload changes them.
    signers: Mutex<Option<(Arc<Settings>, Signers)>>,
    /// The address the server bound (known once serving starts), for embedded-store URLs.
    bound: OnceLock<SocketAddr>,
}

/// Signers by the endpoint they sign for.
type Signers = Vec<(String, Arc<Signer>)>;

/// Why the stores could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
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
}

impl AppState {
    /// Creates the data folder and opens every store the settings name (blocking: call it
    /// on a blocking thread of a tokio runtime, as `spawn_blocking` does).
    pub fn open(config: ConfigHandle) -> Result<AppState, OpenError> {
        let settings = config.settings();
        let data_dir = &settings.server.data_dir;
        std::fs::create_dir_all(data_dir).map_err(|e| OpenError::DataDir {
            path: data_dir.display().to_string(),
            reason: e.to_string(),
        })?;
        // Uploads a killed daemon was spooling (to the S3 endpoint) are of no use now.
        let swept = crate::objects::sweep_dead_spool_files(
            &data_dir.join(crate::files::writes::UPLOAD_SPOOL_DIR),
        );
        if swept > 0 {
            tracing::info!(
                files = swept,
                "removed uploads a killed process left spooled"
            );
        }
        let embedded_credentials = EmbeddedCredentials::load_or_create(data_dir)?;
        let files =
            tokio::runtime::Handle::current().block_on(FilesDb::open_for(&settings.database))?;
        let objects = if settings.objects.enabled {
            let store = ObjectStore::open(settings.objects.root.clone())?;
            // Writes a killed daemon left half done (the counts are logged).
            let runtime = tokio::runtime::Handle::current();
            crate::files::writes::recover(&store, |key| {
                runtime.block_on(files.get_by_key(key.to_owned()))
            })?;
            Some(Arc::new(SignedStore {
                store: Arc::new(store),
                verifier: Verifier::new(
                    embedded_credentials.access_key_id.clone(),
                    embedded_credentials.secret_access_key.clone(),
                    DEFAULT_MAX_CLOCK_SKEW,
                ),
            }))
        } else {
            None
        };
        // Writes to the S3 endpoint a killed process left half done (not fatal: an endpoint
        // that cannot be reached now is tried again at the next start).
        if let Ok(Some(s3)) = crate::files::s3::S3Objects::from_settings(&settings.signing) {
            let recovered = tokio::runtime::Handle::current()
                .block_on(crate::files::writes::recover_s3(&files, &s3, data_dir));
            if let Err(error) = recovered {
                tracing::warn!(%error, "cannot finish the writes to the S3 endpoint cut short");
            }
        }
        let translations = Arc::new(TranslationService::open(&settings.translations)?);
        let producer = Arc::new(Producer::new(
            config.clone(),
            translations.clone(),
            crate::http::consent_callback::server,
        ));
        Ok(AppState {
            channels: Arc::new(Channels::open(
                translations.clone(),
                producer.webhooks().clone(),
            )),
            bundles: Arc::new(Bundles::new(
                translations.clone(),
                settings.translations.locale_names.clone(),
            )),
            producer,
            translations,
            objects,
            embedded_credentials,
            files,
            config,
            metrics: Metrics::default(),
            keys: crate::http::auth::KeyGuard::default(),
            signers: Mutex::new(None),
            bound: OnceLock::new(),
        })
    }

    /// Records the address the server listens on (the first call wins).
    pub fn set_bound(&self, addr: SocketAddr) {
        let _ = self.bound.set(addr);
    }

    /// The base URL of links for a request that came in on `arrived_on`
    /// (`Server::base_url`).
    pub fn base_url(&self, arrived_on: Option<SocketAddr>) -> String {
        let settings = self.config.settings();
        let bound = self.bound.get().copied().unwrap_or(settings.server.listen);
        settings.server.base_url(bound, arrived_on)
    }

    /// The signer for the current settings and a request that came in on `arrived_on`: for
    /// `signing.endpoint` when set, else for the embedded store at `<base URL>/objects` with
    /// the embedded credentials.
    pub fn signer(&self, arrived_on: Option<SocketAddr>) -> Result<Arc<Signer>, ApiError> {
        /// Base URLs kept at most: one per address of this machine that clients reach.
        const KEPT: usize = 16;
        let settings = self.config.settings();
        let signing = &settings.signing;
        let endpoint = match signing.endpoint_signing() {
            Some((target, _)) => target.endpoint,
            None => format!("{}/objects", self.base_url(arrived_on)),
        };
        let mut cached = self.signers.lock().unwrap_or_else(PoisonError::into_inner);
        if !cached
            .as_ref()
            .is_some_and(|(for_settings, _)| Arc::ptr_eq(for_settings, &settings))
        {
            *cached = None;
        }
        let (_, signers) = cached.get_or_insert_with(|| (settings.clone(), Vec::new()));
        if let Some((_, signer)) = signers.iter().find(|(e, _)| *e == endpoint) {
            return Ok(signer.clone());
        }
        let (target, credentials) = signing.endpoint_signing().unwrap_or_else(|| {
            (
                SigningTarget {
                    endpoint: endpoint.clone(),
                    addressing: Addressing::Path,
                    region: signing.region.clone(),
                },
                self.embedded_credentials.clone(),
            )
        });
        let signer = Arc::new(Signer::new(target, credentials)?);
        if signers.len() >= KEPT {
            signers.clear();
        }
        signers.push((endpoint, signer.clone()));
        Ok(signer)
    }

    /// Makes every accepted write durable; called once the server has stopped.
    pub fn flush(&self) {
        if let Err(e) = self.translations.flush() {
            tracing::error!(error = %e, "flushing the translations store failed");
        }
    }
}
