//! File content, wherever the settings keep it: the embedded object store (`objects`) or an
//! S3-compatible endpoint (`signing.endpoint`), behind one `ContentStore` trait. `choose` is
//! the one `match` that picks the backend; `ContentHandle` holds the daemon's choice for the
//! settings in force (chosen again when a reload changes the signing settings), and every
//! handler and task asks it for the store instead of asking which store there is. No records
//! here: pairing an object with its record is `files::writes` and `files::uploads`.

pub mod embedded;
pub mod s3;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;

use crate::config::settings::Signing;
use crate::config::{ConfigHandle, Settings};
use crate::objects::{KeyGate, ObjectError, ObjectStore, Pending, Spooled, Unfinished};
use crate::shutdown::Shutdown;
use crate::signing::{Credentials, Signer, SigningError};

pub use crate::objects::IntentOp;
use embedded::Embedded;
use s3::{S3Error, S3Objects};

/// The bucket of uploads that name none: the API's, the CLI's and the console form's
/// default, and the bucket the S3 endpoint's probe asks in.
pub const DEFAULT_BUCKET: &str = "depot";

/// Where uploads are spooled, inside the data folder, when no embedded store takes them
/// (its temp folder is used when it does, so that storing the upload is a rename).
pub const UPLOAD_SPOOL_DIR: &str = ".uploads";

/// Intents of writes to the S3 endpoint, inside the data folder: this node's own, resolved
/// at its next start (`files::writes::recover_unfinished`).
pub const S3_INTENTS_DIR: &str = ".pending-s3";

#[derive(Debug, thiserror::Error)]
pub enum ContentError {
    #[error("uploads need the embedded object store, which is off: set objects.enabled = true")]
    NoObjectStore,
    #[error(transparent)]
    S3(#[from] S3Error),
    #[error(transparent)]
    Object(#[from] ObjectError),
    #[error(transparent)]
    Signing(#[from] SigningError),
    /// The store refused a multipart completion's part list (`code` is S3's).
    #[error("the object store refused the parts: {code}: {message}")]
    PartsRefused { code: String, message: String },
    #[error("this command hands out no signed URLs of the embedded store")]
    Unsigned,
    #[error("the {0} task failed: {1}")]
    Task(&'static str, String),
}

impl ContentError {
    /// A failure of the S3 endpoint (refused, unreachable), rather than of this node. The
    /// delete of a record tells its client of such a failure to remove the object (the
    /// record is gone, the object stays until the next start); the embedded store's own
    /// failure there is only logged.
    pub fn is_endpoint(&self) -> bool {
        matches!(self, ContentError::S3(_))
    }
}

/// The content of a new record: an upload spooled to disk, or a local file to copy.
pub enum Content {
    Spooled(Spooled),
    File(PathBuf),
}

/// What a store holds at a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub len: u64,
    /// The whole object's SHA-256, when the store knows it.
    pub sha256: Option<[u8; 32]>,
    /// The store's ETag of it, when given: kept with a completed upload, so that the
    /// expiry sweep sees whether the object was written again since.
    pub etag: Option<String>,
}

/// What `/health` says of the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Health {
    Embedded,
    /// The endpoint named by its host, and what its last operation or probe found (`None`
    /// before the first).
    Endpoint {
        endpoint: String,
        reach: Option<s3::Reach>,
    },
}

/// A place that keeps file content. Every method answers for the backend chosen; callers
/// never ask which one it is. A key already gone is no error for `delete` and the aborts.
pub trait ContentStore: Send + Sync {
    /// How the logs name it ("the embedded store", "the S3 endpoint").
    fn name(&self) -> &'static str;
    fn health(&self) -> Health;
    /// Signs the URLs of its objects (the presigned reads of records and the URLs of
    /// direct uploads) for clients that reach depot at `base_url` (`Server::base_url`):
    /// the embedded store's URLs point there, the S3 endpoint's at the endpoint.
    fn signer(&self, base_url: &str) -> Result<Arc<Signer>, ContentError>;
    /// Refuses when the store takes no writes (the embedded store is off), so that an
    /// upload is refused before its body is read.
    fn writable(&self) -> Result<(), ContentError>;
    /// Where an upload's content is spooled before `put` takes it.
    fn spool_dir(&self) -> PathBuf;
    /// Whether `bucket`/`key` can be one of its objects (the embedded store's layout cannot
    /// hold every key a record may have; an embedded store that is off holds nothing).
    fn holds(&self, bucket: &str, key: &str) -> bool;
    /// Leaves an intent naming `bucket`/`key` until `Pending::finish` (see
    /// `objects::pending`), where this store's writes keep theirs.
    fn begin<'a>(
        &'a self,
        op: IntentOp,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Pending, ContentError>>;
    /// Stores `content` at `bucket`/`key` under an intent, given back held once the object
    /// is there. A failed put leaves the intent when the object may have arrived anyway.
    fn put<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        content: Content,
    ) -> BoxFuture<'a, Result<Pending, ContentError>>;
    fn delete<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<(), ContentError>>;
    /// The length and ETag of what is at `bucket`/`key` (and its SHA-256 when the store
    /// reports one without reading it); `None` when nothing is.
    fn stat<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Found>, ContentError>>;
    /// What has arrived at `bucket`/`key`, with its SHA-256 whenever the store can tell
    /// (the embedded store reads the object once); `None` when nothing has.
    fn check<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Found>, ContentError>>;
    /// The SHA-256 of the object's bytes, read back (for a store that reported none).
    fn sha256_of<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<[u8; 32], ContentError>>;
    /// Starts a multipart upload; its id.
    fn create_multipart<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        content_type: Option<&'a str>,
        now: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<String, ContentError>>;
    /// Completes a multipart upload with these `(part number, ETag)`, ascending: what it
    /// made when the store says so; `None` to `check` the key (the store says nothing of
    /// the object, or has no such upload because an earlier try completed it).
    fn complete_multipart<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        upload_id: &'a str,
        parts: &'a [(u32, String)],
    ) -> BoxFuture<'a, Result<Option<Found>, ContentError>>;
    fn abort_multipart<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        upload_id: &'a str,
    ) -> BoxFuture<'a, Result<(), ContentError>>;
    /// Holds `bucket`/`key` against the store's other writes of it, where the store lands
    /// presigned writes itself (see `objects::gate`); `None` elsewhere.
    fn gate<'a>(&'a self, bucket: &'a str, key: &'a str) -> BoxFuture<'a, Option<KeyGate>>;
    /// Removes the multipart uploads begun before `cutoff` that nobody keeps; how many.
    fn sweep_multipart(&self, cutoff: DateTime<Utc>) -> BoxFuture<'_, Result<usize, ContentError>>;
    /// The intents of writes cut short that are this store's to resolve after a restart
    /// (the embedded store resolves its own when it opens, `files::writes::recover`).
    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<Unfinished>, ContentError>>;
    /// Checks that the store answers and takes depot's credentials; `None` when there is
    /// nothing to check (the embedded store is this process).
    fn probe(&self) -> BoxFuture<'_, Option<Result<(), ContentError>>>;
}

/// What the choice needs besides the signing settings.
pub struct Local {
    /// The embedded store, when `objects.enabled`.
    pub embedded: Option<Arc<ObjectStore>>,
    /// The credentials of the embedded store's signed URLs; `None` for a command that
    /// hands out no URLs.
    pub credentials: Option<Credentials>,
    pub data_dir: PathBuf,
}

/// The store of these settings: the S3 endpoint when `signing.endpoint` is set (where
/// signed URLs point), else the embedded store (which may be off).
pub fn choose(signing: &Signing, local: Local) -> Result<Arc<dyn ContentStore>, ContentError> {
    let spool_dir = match &local.embedded {
        Some(store) => store.spool_dir(),
        None => local.data_dir.join(UPLOAD_SPOOL_DIR),
    };
    match signing.endpoint_signing() {
        Some((target, credentials)) => Ok(Arc::new(S3Objects::new(
            target,
            credentials,
            spool_dir,
            local.data_dir.join(S3_INTENTS_DIR),
        )?)),
        None => Ok(Arc::new(Embedded::new(
            local.embedded,
            local.credentials.map(|c| (c, signing.region.clone())),
            spool_dir,
        ))),
    }
}

/// The daemon's content store for the settings in force, shared by the handlers and the
/// background tasks (cheap to clone). It is chosen at the first use, and again when the
/// signing settings change; reloads in between keep it, as they keep the rest of the
/// settings (`ConfigHandle`).
#[derive(Clone)]
pub struct ContentHandle {
    inner: Arc<Inner>,
}

struct Inner {
    config: ConfigHandle,
    embedded: Option<Arc<ObjectStore>>,
    /// The embedded store's credentials (generated on first start).
    credentials: Credentials,
    current: Mutex<Chosen>,
}

/// The store chosen last, and the settings it was chosen for.
type Chosen = Option<(Arc<Settings>, Arc<dyn ContentStore>)>;

impl ContentHandle {
    pub fn new(
        config: ConfigHandle,
        embedded: Option<Arc<ObjectStore>>,
        credentials: Credentials,
    ) -> ContentHandle {
        ContentHandle {
            inner: Arc::new(Inner {
                config,
                embedded,
                credentials,
                current: Mutex::new(None),
            }),
        }
    }

    /// The store of the settings in force.
    pub fn current(&self) -> Result<Arc<dyn ContentStore>, ContentError> {
        let settings = self.inner.config.settings();
        let mut current = self.lock();
        if let Some((chosen_for, store)) = current.as_mut()
            && (Arc::ptr_eq(chosen_for, &settings) || chosen_for.signing == settings.signing)
        {
            *chosen_for = settings;
            return Ok(store.clone());
        }
        let store = choose(
            &settings.signing,
            Local {
                embedded: self.inner.embedded.clone(),
                credentials: Some(self.inner.credentials.clone()),
                data_dir: settings.server.data_dir.clone(),
            },
        )?;
        *current = Some((settings, store.clone()));
        Ok(store)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Chosen> {
        self.inner
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// How often `depot serve` probes the store (and at start, and when the settings change).
const PROBE_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// Probes the store while the daemon runs: at start, every `PROBE_EVERY`, and at once when
/// a reload changes the signing settings; a failure is logged when it starts.
pub fn spawn_probe(content: ContentHandle, shutdown: Shutdown) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let config = content.inner.config.clone();
        let mut changes = config.subscribe();
        let mut was_down = false;
        loop {
            let settings = config.settings();
            if let Ok(store) = content.current() {
                match store.probe().await {
                    Some(Ok(())) => was_down = false,
                    Some(Err(error)) if !was_down => {
                        was_down = true;
                        tracing::warn!(%error, "the S3 endpoint does not accept depot's requests");
                    }
                    Some(Err(_)) | None => {}
                }
            }
            tokio::select! {
                () = shutdown.wait() => return,
                () = tokio::time::sleep(PROBE_EVERY) => {}
                changed = changes.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    if changes.borrow_and_update().signing == settings.signing {
                        continue;
                    }
                }
            }
        }
    })
}

/// Runs blocking store work (disk, `flock`, hashing) off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    what: &'static str,
    work: impl FnOnce() -> Result<T, ContentError> + Send + 'static,
) -> Result<T, ContentError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ContentError::Task(what, e.to_string()))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signing(endpoint: Option<&str>) -> Signing {
        Signing {
            endpoint: endpoint.map(str::to_owned),
            region: "us-east-1".into(),
            access_key_id: "AKIA1".into(),
            secret_access_key: crate::secret::Secret::new("secret"),
            session_token: None,
            addressing: crate::config::settings::Addressing::Path,
            expires_secs: 900,
        }
    }

    #[test]
    fn uploads_are_refused_while_signing_points_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ObjectStore::open(dir.path().join("objects")).unwrap());
        let local = |embedded: Option<Arc<ObjectStore>>| Local {
            embedded,
            credentials: None,
            data_dir: dir.path().to_owned(),
        };
        // With an endpoint, uploads go there: no embedded store needed.
        let chosen = choose(&signing(Some("https://s3.example.com")), local(None)).unwrap();
        assert!(matches!(chosen.health(), Health::Endpoint { .. }));
        assert!(chosen.writable().is_ok());
        let chosen = choose(&signing(None), local(None)).unwrap();
        assert!(matches!(
            chosen.writable(),
            Err(ContentError::NoObjectStore)
        ));
        let chosen = choose(&signing(None), local(Some(store))).unwrap();
        assert!(chosen.writable().is_ok());
    }
}
