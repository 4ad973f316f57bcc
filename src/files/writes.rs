//! Writes that touch both halves of a file, its record and its object: storing an upload,
//! deleting, and, at start, finishing what a killed process left half done. Each write
//! first leaves an intent in the object store (`objects::Pending`), so that "an object
//! exists exactly when its record does" can be restored after a `kill -9` at any point.
//! Used by the upload form (`upload_form`), `DELETE /file` and `depot files add`; no HTTP
//! here.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::s3::{S3Error, S3Objects};
use super::{FileRecord, FilesDb, NewFileRecord, Permission, RecordError, RepoError};
use crate::config::settings::Signing;
use crate::objects::{IntentOp, ObjectError, ObjectStore, Spool, Spooled, object_path};

pub use super::DEFAULT_BUCKET;

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    S3(#[from] S3Error),
    #[error("uploads need the embedded object store, which is off: set objects.enabled = true")]
    NoObjectStore,
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(transparent)]
    Object(#[from] ObjectError),
    #[error("no randomness for a new key: {0}")]
    Random(String),
    #[error("the {0} task failed: {1}")]
    Task(&'static str, String),
}

/// Where uploads are spooled, inside the data folder, when no embedded store takes them
/// (its temp folder is used when it does, so that storing the upload is a rename).
pub const UPLOAD_SPOOL_DIR: &str = ".uploads";

/// Intents of writes to the S3 endpoint, inside the data folder: this node's own, resolved
/// at its next start (`recover_s3`).
pub const S3_INTENTS_DIR: &str = ".pending-s3";

/// The content of a new record: an upload spooled to disk, or a local file to copy.
pub enum Content {
    Spooled(Spooled),
    File(PathBuf),
}

/// What an upload says about itself; the key and `fileType` are depot's to choose.
pub struct Upload {
    pub file_name: String,
    /// The media type the client sent with the content, if any.
    pub content_type: Option<String>,
    pub bucket: String,
    pub permission: Permission,
    pub description: String,
    pub status: i64,
}

impl Upload {
    /// The record of this upload under a new key, checked.
    pub fn into_record(self) -> Result<NewFileRecord, WriteError> {
        let record = NewFileRecord {
            file_type: file_type_of(&self.file_name, self.content_type.as_deref()),
            file_name: self.file_name,
            description: self.description,
            bucket: self.bucket,
            status: self.status,
            permission: self.permission,
            key: super::new_key().map_err(|e| WriteError::Random(e.to_string()))?,
            created_at: None,
            // Known once the content is: `Uploads::store` fills them in.
            size: None,
            sha256: None,
        };
        record.validate()?;
        Ok(record)
    }
}

/// Where uploads go: the S3 endpoint when `signing.endpoint` is set (where signed URLs
/// point), else the embedded object store. Made only when uploads can be honest, so a
/// refused upload is refused before its body is read.
pub struct Uploads {
    files: FilesDb,
    target: Target,
    spool_dir: PathBuf,
    intents_dir: PathBuf,
}

enum Target {
    Embedded(Arc<ObjectStore>),
    S3(S3Objects),
}

impl Uploads {
    pub fn new(
        files: FilesDb,
        objects: Option<Arc<ObjectStore>>,
        signing: &Signing,
        data_dir: &Path,
    ) -> Result<Uploads, WriteError> {
        let spool_dir = match &objects {
            Some(store) => store.spool_dir(),
            None => data_dir.join(UPLOAD_SPOOL_DIR),
        };
        let target = match S3Objects::from_settings(signing)? {
            Some(s3) => Target::S3(s3),
            None => Target::Embedded(objects.ok_or(WriteError::NoObjectStore)?),
        };
        Ok(Uploads {
            files,
            target,
            spool_dir,
            intents_dir: data_dir.join(S3_INTENTS_DIR),
        })
    }

    /// A spool for an upload's content, to pass to `store` as `Content::Spooled` once
    /// written.
    pub async fn spool(&self) -> Result<Spool, WriteError> {
        Ok(Spool::create(self.spool_dir.clone()).await?)
    }

    /// Writes the content, then the record. A failure removes the content again; a kill
    /// leaves the intent, and the next start removes an object that got no record.
    pub async fn store(
        &self,
        new: NewFileRecord,
        content: Content,
    ) -> Result<FileRecord, WriteError> {
        let (size, sha256) = measure(&content).await?;
        let new = NewFileRecord {
            size: Some(size),
            sha256: Some(crate::hex::encode(&sha256)),
            ..new
        };
        let store = match &self.target {
            Target::Embedded(store) => store.clone(),
            Target::S3(s3) => return self.store_s3(s3, new, content).await,
        };
        let (bucket, key) = (new.bucket.clone(), new.key.clone());
        let writer = store.clone();
        let pending = blocking("object write", move || {
            let store = writer;
            let pending = store.begin(IntentOp::Put, &bucket, &key)?;
            let put = match content {
                Content::Spooled(spooled) => store.put_spooled(&bucket, &key, spooled),
                Content::File(path) => store.put_file(&bucket, &key, &path),
            };
            match put {
                Ok(_) => Ok(pending),
                // A failed put leaves no object behind: nothing to resolve.
                Err(e) => {
                    pending.finish();
                    Err(e.into())
                }
            }
        })
        .await?;
        match self.files.insert(new.clone()).await {
            Ok(record) => {
                pending.finish();
                Ok(record)
            }
            Err(e) => {
                let removed = blocking("object delete", move || {
                    Ok(store.delete(&new.bucket, &new.key)?)
                })
                .await;
                match removed {
                    Ok(()) => pending.finish(),
                    // The intent stays; the next start removes the object.
                    Err(error) => {
                        tracing::warn!(%error, "record refused and its object not removed")
                    }
                }
                Err(e.into())
            }
        }
    }

    /// The object first, then the record; a refused record deletes the object again. An
    /// intent names the object until both halves agree, so that a kill in between is
    /// resolved at the next start.
    async fn store_s3(
        &self,
        s3: &S3Objects,
        new: NewFileRecord,
        content: Content,
    ) -> Result<FileRecord, WriteError> {
        let pending = begin_intent(&self.intents_dir, IntentOp::Put, &new.bucket, &new.key).await?;
        // The spool (removed when dropped) lives until the endpoint has the content.
        let (path, _spool) = match content {
            Content::Spooled(spooled) => (spooled.path().to_owned(), Some(spooled)),
            Content::File(path) => (path, None),
        };
        if let Err(e) = s3.put_file(&new.bucket, &new.key, &path).await {
            // The endpoint may have stored it before the error: the intent stays.
            drop(pending);
            return Err(e.into());
        }
        match self.files.insert(new.clone()).await {
            Ok(record) => {
                pending.finish();
                Ok(record)
            }
            Err(e) => {
                match s3.delete(&new.bucket, &new.key).await {
                    Ok(()) => pending.finish(),
                    Err(error) => {
                        tracing::warn!(error = %error, bucket = %new.bucket, key = %new.key,
                            "record refused and its object at the S3 endpoint not removed; the next start removes it")
                    }
                }
                Err(e.into())
            }
        }
    }
}

/// The size and SHA-256 of the content: computed while a spool was written, read from a
/// local file.
async fn measure(content: &Content) -> Result<(u64, [u8; 32]), WriteError> {
    match content {
        Content::Spooled(spooled) => Ok((spooled.len(), spooled.digests().sha256)),
        Content::File(path) => {
            let path = path.clone();
            blocking("hashing", move || {
                Ok(crate::objects::checksums::file_digest(&path)?)
            })
            .await
        }
    }
}

/// Removes the record of `key` and its object wherever the settings keep content: at the
/// S3 endpoint when `signing.endpoint` is set, else in the embedded store (the console's
/// delete; `DELETE /file` makes the same choice).
pub async fn delete_record(
    files: &FilesDb,
    objects: Option<Arc<ObjectStore>>,
    settings: &crate::config::Settings,
    key: String,
) -> Result<(), WriteError> {
    match S3Objects::from_settings(&settings.signing)? {
        Some(s3) => delete_s3(files, &s3, key, &settings.server.data_dir).await,
        None => delete(files, objects.as_ref(), key).await,
    }
}

/// Removes the record of `key`, then its object at the S3 endpoint. The record goes first:
/// the catalogue is what clients see. An intent names the object until it is gone, so an
/// object whose delete failed (or was cut by a kill) is removed at the next start.
pub async fn delete_s3(
    files: &FilesDb,
    s3: &S3Objects,
    key: String,
    data_dir: &Path,
) -> Result<(), WriteError> {
    let Some(record) = files.get_by_key(key.clone()).await? else {
        return Err(RepoError::NotFound { key }.into());
    };
    let intents = data_dir.join(S3_INTENTS_DIR);
    let pending = begin_intent(&intents, IntentOp::Delete, &record.bucket, &record.key).await?;
    files.delete_by_key(key).await?;
    if let Err(error) = s3.delete(&record.bucket, &record.key).await {
        tracing::warn!(error = %error, bucket = %record.bucket, key = %record.key,
            "record deleted but its object at the S3 endpoint not yet; the next start removes it");
        return Err(error.into());
    }
    pending.finish();
    Ok(())
}

/// Resolves the writes to the S3 endpoint that a killed process left half done (its
/// intents in `<data_dir>/.pending-s3`): an object whose record does not exist is deleted
/// at the endpoint. An endpoint that cannot be reached leaves the intent for the next start.
/// Returns how many intents were resolved.
pub async fn recover_s3(
    files: &FilesDb,
    s3: &S3Objects,
    data_dir: &Path,
) -> Result<usize, WriteError> {
    let dir = data_dir.join(S3_INTENTS_DIR);
    let unfinished = blocking("intent read", move || {
        Ok(crate::objects::unfinished_intents_in(&dir))
    })
    .await?;
    let mut resolved = 0;
    for note in unfinished {
        let Some(intent) = &note.intent else {
            // Killed before the intent was whole: nothing was sent yet.
            note.finish();
            continue;
        };
        let record = files.get_by_key(intent.key.clone()).await?;
        let has_record = record.is_some_and(|r| r.bucket == intent.bucket);
        if !has_record && let Err(error) = s3.delete(&intent.bucket, &intent.key).await {
            tracing::warn!(%error, bucket = %intent.bucket, key = %intent.key,
                "cannot remove an object left without its record at the S3 endpoint; trying again at the next start");
            continue;
        }
        resolved += 1;
        note.finish();
    }
    if resolved > 0 {
        tracing::info!(
            resolved,
            "writes to the S3 endpoint cut short were finished"
        );
    }
    Ok(resolved)
}

async fn begin_intent(
    dir: &Path,
    op: IntentOp,
    bucket: &str,
    key: &str,
) -> Result<crate::objects::Pending, WriteError> {
    let (dir, bucket, key) = (dir.to_owned(), bucket.to_owned(), key.to_owned());
    blocking("intent write", move || {
        Ok(crate::objects::begin_intent_in(&dir, op, &bucket, &key)?)
    })
    .await
}

/// Removes the record of `key` and, from the embedded store when it is on, its object.
/// The record goes first: the catalogue is what clients see. A kill in between leaves the
/// intent, and the next start removes the object.
pub async fn delete(
    files: &FilesDb,
    objects: Option<&Arc<ObjectStore>>,
    key: String,
) -> Result<(), WriteError> {
    let Some(store) = objects else {
        files.delete_by_key(key).await?;
        return Ok(());
    };
    let Some(record) = files.get_by_key(key.clone()).await? else {
        return Err(RepoError::NotFound { key }.into());
    };
    if object_path(&record.bucket, &record.key).is_err() {
        // A key the embedded store cannot hold (a record of an object kept elsewhere).
        files.delete_by_key(key).await?;
        return Ok(());
    }
    let pending = {
        let store = store.clone();
        let (bucket, key) = (record.bucket.clone(), record.key.clone());
        blocking("intent write", move || {
            Ok(store.begin(IntentOp::Delete, &bucket, &key)?)
        })
        .await?
    };
    files.delete_by_key(key).await?;
    let store = store.clone();
    let removed = blocking("object delete", move || {
        match store.delete(&record.bucket, &record.key) {
            // A record of an object that was never here (imported, or signed elsewhere).
            Ok(()) | Err(ObjectError::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    })
    .await;
    match removed {
        Ok(()) => pending.finish(),
        Err(error) => {
            tracing::warn!(%error, "record deleted but its object not yet; the next start removes it")
        }
    }
    Ok(())
}

/// What `recover` found and did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Temp files of puts cut short.
    pub temp_files: usize,
    /// Intents of writes cut short, resolved.
    pub interrupted_writes: usize,
    /// Objects removed because their record was never written, or was deleted.
    pub orphans_removed: usize,
}

/// Finishes the writes that killed processes left half done: removes their temp files,
/// and for each intent nobody holds, removes the object when no record of it exists. Live
/// writers (this daemon's or a `depot files add` beside it) hold their files locked and
/// are left alone, so this is safe at any time; the daemon runs it at start. `lookup`
/// finds a record by key in whichever backend holds the records.
pub fn recover(
    objects: &ObjectStore,
    mut lookup: impl FnMut(&str) -> Result<Option<FileRecord>, RepoError>,
) -> Result<Recovery, RepoError> {
    let mut recovery = Recovery {
        temp_files: objects.sweep_dead_temp_files(),
        ..Recovery::default()
    };
    for unfinished in objects.unfinished() {
        let Some(intent) = &unfinished.intent else {
            // Killed before the intent was whole: nothing else was written yet.
            unfinished.finish();
            continue;
        };
        let has_record = lookup(&intent.key)?.is_some_and(|record| record.bucket == intent.bucket);
        if !has_record {
            match objects.delete(&intent.bucket, &intent.key) {
                Ok(()) => recovery.orphans_removed += 1,
                // Nothing there, or nothing that could ever have been.
                Err(
                    ObjectError::NotFound { .. }
                    | ObjectError::InvalidKey { .. }
                    | ObjectError::InvalidBucket { .. },
                ) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "cannot remove an object left without its record");
                    continue;
                }
            }
        }
        recovery.interrupted_writes += 1;
        unfinished.finish();
    }
    tracing::info!(
        temp_files = recovery.temp_files,
        interrupted_writes = recovery.interrupted_writes,
        orphans_removed = recovery.orphans_removed,
        "object store checked for writes cut short"
    );
    Ok(recovery)
}

/// `fileType` of a new record: the file name's extension (lower-cased), else the media
/// type the client sent, else `application/octet-stream`.
pub fn file_type_of(file_name: &str, content_type: Option<&str>) -> String {
    std::path::Path::new(file_name)
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| !e.is_empty())
        .map(str::to_ascii_lowercase)
        .or_else(|| content_type.map(str::to_owned))
        .unwrap_or_else(|| "application/octet-stream".to_owned())
}

async fn blocking<T: Send + 'static>(
    what: &'static str,
    work: impl FnOnce() -> Result<T, WriteError> + Send + 'static,
) -> Result<T, WriteError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| WriteError::Task(what, e.to_string()))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(key: &str) -> NewFileRecord {
        NewFileRecord {
            file_name: "f.bin".into(),
            description: String::new(),
            bucket: "bkt".into(),
            status: 0,
            file_type: "bin".into(),
            permission: Permission::Public,
            key: key.into(),
            created_at: None,
            size: None,
            sha256: None,
        }
    }

    #[test]
    fn recovery_pairs_objects_with_records_and_leaves_the_rest_alone() {
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("files.sqlite3");
        let mut repo = crate::files::FilesRepo::open(&database).unwrap();
        let store = ObjectStore::open(dir.path().join("objects")).unwrap();

        // An upload killed after its object, before its record.
        drop(store.begin(IntentOp::Put, "bkt", "cut/upload").unwrap());
        store.put("bkt", "cut/upload", b"orphan").unwrap();
        // An upload killed after its record, before the intent went.
        drop(store.begin(IntentOp::Put, "bkt", "whole").unwrap());
        store.put("bkt", "whole", b"kept").unwrap();
        repo.insert(record("whole")).unwrap();
        // A delete killed after the record went, before the object.
        repo.insert(record("deleted")).unwrap();
        store.put("bkt", "deleted", b"orphan").unwrap();
        drop(store.begin(IntentOp::Delete, "bkt", "deleted").unwrap());
        repo.delete_by_key("deleted").unwrap();
        // A record of the same key in another bucket does not keep this object.
        repo.insert(NewFileRecord {
            bucket: "other".into(),
            ..record("elsewhere")
        })
        .unwrap();
        drop(store.begin(IntentOp::Put, "bkt", "elsewhere").unwrap());
        store.put("bkt", "elsewhere", b"orphan").unwrap();
        // A write under way (its intent held) and an object nobody wrote through depot.
        let live = store.begin(IntentOp::Put, "bkt", "in-flight").unwrap();
        store.put("bkt", "in-flight", b"live").unwrap();
        store.put("bkt", "placed/by/hand", b"operator's").unwrap();
        std::fs::write(dir.path().join("objects/.tmp/put-dead"), b"half").unwrap();

        let recovery = recover(&store, |k| repo.get_by_key(k)).unwrap();
        assert_eq!(
            recovery,
            Recovery {
                temp_files: 1,
                interrupted_writes: 4,
                orphans_removed: 3,
            }
        );
        for gone in ["cut/upload", "deleted", "elsewhere"] {
            assert!(
                matches!(store.stat("bkt", gone), Err(ObjectError::NotFound { .. })),
                "{gone}"
            );
        }
        for kept in ["whole", "in-flight", "placed/by/hand"] {
            assert!(store.stat("bkt", kept).is_ok(), "{kept}");
        }
        // Nothing is left to resolve but the live write, which finishes on its own.
        assert_eq!(
            recover(&store, |k| repo.get_by_key(k)).unwrap(),
            Recovery::default()
        );
        live.finish();
        assert!(store.unfinished().is_empty());
    }

    #[test]
    fn uploads_are_refused_while_signing_points_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let files = FilesDb::open(dir.path().join("files.sqlite3")).unwrap();
        let store = Arc::new(ObjectStore::open(dir.path().join("objects")).unwrap());
        let mut signing = Signing {
            endpoint: Some("https://s3.example.com".into()),
            region: "us-east-1".into(),
            access_key_id: "AKIA1".into(),
            secret_access_key: crate::secret::Secret::new("secret"),
            session_token: None,
            addressing: crate::config::settings::Addressing::Path,
            expires_secs: 900,
        };
        // With an endpoint, uploads go there: no embedded store needed.
        assert!(matches!(
            Uploads::new(files.clone(), None, &signing, dir.path()),
            Ok(Uploads {
                target: Target::S3(_),
                ..
            })
        ));
        signing.endpoint = None;
        assert!(matches!(
            Uploads::new(files.clone(), None, &signing, dir.path()),
            Err(WriteError::NoObjectStore)
        ));
        assert!(Uploads::new(files, Some(store), &signing, dir.path()).is_ok());
    }
}
