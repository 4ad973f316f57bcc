//! The embedded object store as a `ContentStore`: the disk work of `objects` (atomic puts,
//! intents, multipart uploads, the per-key gate) on blocking threads, and the signers of the
//! URLs that reach it at `<base URL>/objects`. Off (`objects.enabled = false`), it takes
//! no writes and holds nothing.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;

use super::{Content, ContentError, ContentStore, Found, Health, IntentOp, blocking};
use crate::objects::checksums::reader_digest;
use crate::objects::multipart::MultipartError;
use crate::objects::{KeyGate, ObjectError, ObjectStore, Pending, Unfinished, object_path};
use crate::signing::{Addressing, Credentials, Signer, SigningTarget};

/// Base URLs whose signers are kept at most: one per address of this machine that clients
/// reach.
const SIGNERS_KEPT: usize = 16;

pub struct Embedded {
    /// `None` when `objects.enabled` is off.
    store: Option<Arc<ObjectStore>>,
    /// The credentials and region its URLs are signed with; `None` in a command that hands
    /// out no URLs.
    signing: Option<(Credentials, String)>,
    /// Signers made so far, by the endpoint they sign for (`<base URL>/objects`).
    signers: Mutex<Vec<(String, Arc<Signer>)>>,
    spool_dir: PathBuf,
}

impl Embedded {
    pub fn new(
        store: Option<Arc<ObjectStore>>,
        signing: Option<(Credentials, String)>,
        spool_dir: PathBuf,
    ) -> Embedded {
        Embedded {
            store,
            signing,
            signers: Mutex::default(),
            spool_dir,
        }
    }

    fn store(&self) -> Result<Arc<ObjectStore>, ContentError> {
        self.store.clone().ok_or(ContentError::NoObjectStore)
    }

    /// Runs `work` on a blocking thread with the store and owned copies of the names.
    async fn with_store<T: Send + 'static>(
        &self,
        what: &'static str,
        bucket: &str,
        key: &str,
        work: impl FnOnce(&ObjectStore, &str, &str) -> Result<T, ContentError> + Send + 'static,
    ) -> Result<T, ContentError> {
        let store = self.store()?;
        let (bucket, key) = (bucket.to_owned(), key.to_owned());
        blocking(what, move || work(&store, &bucket, &key)).await
    }
}

impl ContentStore for Embedded {
    fn name(&self) -> &'static str {
        "the embedded store"
    }

    fn health(&self) -> Health {
        Health::Embedded
    }

    fn signer(&self, base_url: &str) -> Result<Arc<Signer>, ContentError> {
        let Some((credentials, region)) = &self.signing else {
            return Err(ContentError::Unsigned);
        };
        let endpoint = format!("{base_url}/objects");
        let mut signers = self.signers.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, signer)) = signers.iter().find(|(e, _)| *e == endpoint) {
            return Ok(signer.clone());
        }
        let target = SigningTarget {
            endpoint: endpoint.clone(),
            addressing: Addressing::Path,
            region: region.clone(),
        };
        let signer = Arc::new(Signer::new(target, credentials.clone())?);
        if signers.len() >= SIGNERS_KEPT {
            signers.clear();
        }
        signers.push((endpoint, signer.clone()));
        Ok(signer)
    }

    fn writable(&self) -> Result<(), ContentError> {
        self.store().map(|_| ())
    }

    fn spool_dir(&self) -> PathBuf {
        self.spool_dir.clone()
    }

    fn holds(&self, bucket: &str, key: &str) -> bool {
        self.store.is_some() && object_path(bucket, key).is_ok()
    }

    fn begin<'a>(
        &'a self,
        op: IntentOp,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Pending, ContentError>> {
        Box::pin(
            self.with_store("intent write", bucket, key, move |store, bucket, key| {
                Ok(store.begin(op, bucket, key)?)
            }),
        )
    }

    fn put<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        content: Content,
    ) -> BoxFuture<'a, Result<Pending, ContentError>> {
        Box::pin(
            self.with_store("object write", bucket, key, move |store, bucket, key| {
                let pending = store.begin(IntentOp::Put, bucket, key)?;
                let put = match content {
                    Content::Spooled(spooled) => store.put_spooled(bucket, key, spooled),
                    Content::File(path) => store.put_file(bucket, key, &path),
                };
                match put {
                    Ok(_) => Ok(pending),
                    // A failed put leaves no object behind: nothing to resolve.
                    Err(e) => {
                        pending.finish();
                        Err(e.into())
                    }
                }
            }),
        )
    }

    fn delete<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<(), ContentError>> {
        Box::pin(
            self.with_store("object delete", bucket, key, |store, bucket, key| {
                match store.delete(bucket, key) {
                    // A record of an object that was never here (imported, or signed elsewhere).
                    Ok(()) | Err(ObjectError::NotFound { .. }) => Ok(()),
                    Err(e) => Err(e.into()),
                }
            }),
        )
    }

    fn stat<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Found>, ContentError>> {
        Box::pin(
            self.with_store(
                "object check",
                bucket,
                key,
                |store, bucket, key| match store.stat(bucket, key) {
                    Ok(meta) => Ok(Some(Found {
                        len: meta.len,
                        sha256: None,
                        etag: Some(meta.etag),
                    })),
                    Err(ObjectError::NotFound { .. }) => Ok(None),
                    Err(e) => Err(e.into()),
                },
            ),
        )
    }

    fn check<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Found>, ContentError>> {
        Box::pin(
            self.with_store("object check", bucket, key, |store, bucket, key| {
                // The file opened once: its ETag and its bytes are of the same object.
                let object = match store.open_object(bucket, key) {
                    Ok(object) => object,
                    Err(ObjectError::NotFound { .. }) => return Ok(None),
                    Err(e) => return Err(e.into()),
                };
                let path = store.path_of(bucket, key)?;
                let (len, sha256) = reader_digest(object.file, &path)?;
                Ok(Some(Found {
                    len,
                    sha256: Some(sha256),
                    etag: Some(object.meta.etag),
                }))
            }),
        )
    }

    fn sha256_of<'a>(
        &'a self,
        _bucket: &'a str,
        _key: &'a str,
    ) -> BoxFuture<'a, Result<[u8; 32], ContentError>> {
        // The embedded store hashes every object it checks (`check`, `complete_multipart`).
        Box::pin(async {
            Err(ContentError::Task(
                "object check",
                "the embedded store gave no SHA-256".into(),
            ))
        })
    }

    fn create_multipart<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        _content_type: Option<&'a str>,
        now: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<String, ContentError>> {
        Box::pin(self.with_store(
            "multipart upload",
            bucket,
            key,
            move |store, bucket, key| Ok(store.create_multipart(bucket, key, now)?),
        ))
    }

    fn complete_multipart<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        upload_id: &'a str,
        parts: &'a [(u32, String)],
    ) -> BoxFuture<'a, Result<Option<Found>, ContentError>> {
        let (id, parts) = (upload_id.to_owned(), parts.to_vec());
        Box::pin(self.with_store(
            "multipart completion",
            bucket,
            key,
            move |store, bucket, key| match store.complete_multipart(bucket, key, &id, &parts) {
                Ok(completed) => Ok(Some(Found {
                    len: completed.meta.len,
                    sha256: Some(completed.sha256),
                    etag: Some(completed.meta.etag),
                })),
                // Completed by an earlier try whose record was not written.
                Err(MultipartError::NoSuchUpload) => Ok(None),
                Err(MultipartError::Object(e)) => Err(e.into()),
                Err(e) => Err(ContentError::PartsRefused {
                    code: e.s3_code().to_owned(),
                    message: e.to_string(),
                }),
            },
        ))
    }

    fn abort_multipart<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        upload_id: &'a str,
    ) -> BoxFuture<'a, Result<(), ContentError>> {
        let id = upload_id.to_owned();
        Box::pin(
            self.with_store(
                "multipart abort",
                bucket,
                key,
                move |store, bucket, key| match store.abort_multipart(bucket, key, &id) {
                    Ok(()) | Err(MultipartError::NoSuchUpload) => Ok(()),
                    Err(MultipartError::Object(e)) => Err(e.into()),
                    Err(e) => Err(ContentError::Task("multipart abort", e.to_string())),
                },
            ),
        )
    }

    fn gate<'a>(&'a self, bucket: &'a str, key: &'a str) -> BoxFuture<'a, Option<KeyGate>> {
        Box::pin(async move {
            match &self.store {
                Some(store) => Some(store.gate(bucket, key).await),
                None => None,
            }
        })
    }

    fn sweep_multipart(&self, cutoff: DateTime<Utc>) -> BoxFuture<'_, Result<usize, ContentError>> {
        Box::pin(async move {
            let store = self.store()?;
            blocking("multipart sweep", move || {
                Ok(store.abort_multipart_older_than(cutoff))
            })
            .await
        })
    }

    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<Unfinished>, ContentError>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    fn probe(&self) -> BoxFuture<'_, Option<Result<(), ContentError>>> {
        Box::pin(async { None })
    }
}
