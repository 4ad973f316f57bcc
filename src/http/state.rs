//! What every request handler can reach: the configuration, the stores (records, content,
//! translations), the producer and the signer. Opened once by `depot serve` (or by a
//! test), shared as `Arc<AppState>`.

use crate::config::ConfigHandle;
use crate::content::{ContentHandle, ContentStore};
use crate::files::{FilesDb, RepoError};
use crate::http::ApiError;
use crate::http::metrics::Metrics;
use crate::objects::{
    CredentialsError, EmbeddedCredentials, ObjectError, ObjectStore, SignedStore,
};
use crate::producer::Producer;
use crate::signing::{DEFAULT_MAX_CLOCK_SKEW, Signer, Verifier};
use crate::translations::bundles::Bundles;
use crate::translations::channels::Channels;
use crate::translations::service::TranslationService;
use crate::translations::store::StoreError;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

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
    /// Where file content goes: the content store of the settings in force.
    pub content: ContentHandle,
    pub files: FilesDb,
    /// The API keys' check, with the throttle of wrong ones.
    pub keys: crate::http::auth::KeyGuard,
    /// The address the server bound (known once serving starts), for the links of requests.
    bound: OnceLock<SocketAddr>,
}

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
            &data_dir.join(crate::content::UPLOAD_SPOOL_DIR),
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
        let content = ContentHandle::new(
            config.clone(),
            objects.as_ref().map(|o| o.store.clone()),
            embedded_credentials,
        );
        // Writes a killed process left half done whose intents the chosen store keeps (the
        // S3 endpoint's; not fatal: an endpoint that cannot be reached now is tried again
        // at the next start).
        if let Ok(store) = content.current() {
            let recovered = tokio::runtime::Handle::current()
                .block_on(crate::files::writes::recover_unfinished(&files, &*store));
            if let Err(error) = recovered {
                tracing::warn!(%error, store = store.name(), "cannot finish the writes to the store cut short");
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
            content,
            files,
            config,
            metrics: Metrics::default(),
            keys: crate::http::auth::KeyGuard::default(),
            bound: OnceLock::new(),
        })
    }

    /// Records the address the server listens on (the first call wins).
    pub fn set_bound(&self, addr: SocketAddr) {
        let _ = self.bound.set(addr);
    }

    /// The content store of the settings in force.
    pub fn store(&self) -> Result<Arc<dyn ContentStore>, ApiError> {
        Ok(self.content.current()?)
    }

    /// The base URL of links for a request that came in on `arrived_on`
    /// (`Server::base_url`).
    pub fn base_url(&self, arrived_on: Option<SocketAddr>) -> String {
        let settings = self.config.settings();
        let bound = self.bound.get().copied().unwrap_or(settings.server.listen);
        settings.server.base_url(bound, arrived_on)
    }

    /// The signer of the content store in force, for a request that came in on
    /// `arrived_on`: for `signing.endpoint` when set, else for the embedded store at
    /// `<base URL>/objects` with the embedded credentials.
    pub fn signer(&self, arrived_on: Option<SocketAddr>) -> Result<Arc<Signer>, ApiError> {
        Ok(self.store()?.signer(&self.base_url(arrived_on))?)
    }

    /// Makes every accepted write durable; called once the server has stopped.
    pub fn flush(&self) {
        if let Err(e) = self.translations.flush() {
            tracing::error!(error = %e, "flushing the translations store failed");
        }
    }
}
