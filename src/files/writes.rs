//! Writes that touch both halves of a file, its record and its object in the content store
//! (`content`): storing an upload, deleting, and, at start, finishing what a killed process
//! left half done. Each write first leaves an intent where its store keeps them
//! (`objects::Pending`), so that "an object exists exactly when its record does" can be
//! restored after a `kill -9` at any point. Used by the upload form (`upload_form`),
//! `DELETE /file`, the console and `depot files add`; no HTTP here.

use std::sync::Arc;

use super::{FileRecord, FilesDb, NewFileRecord, Permission, RecordError, RepoError};
use crate::content::{Content, ContentError, ContentStore, IntentOp};
use crate::objects::{ObjectError, ObjectStore, Spool};

pub use super::DEFAULT_BUCKET;

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Content(#[from] ContentError),
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(transparent)]
    Object(#[from] ObjectError),
    #[error("no randomness for a new key: {0}")]
    Random(String),
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

/// Uploads into the content store of the settings in force. Made only when the store takes
/// writes, so a refused upload is refused before its body is read.
pub struct Uploads {
    files: FilesDb,
    content: Arc<dyn ContentStore>,
}

impl Uploads {
    pub fn new(files: FilesDb, content: Arc<dyn ContentStore>) -> Result<Uploads, WriteError> {
        content.writable()?;
        Ok(Uploads { files, content })
    }

    /// A spool for an upload's content, to pass to `store` as `Content::Spooled` once
    /// written.
    pub async fn spool(&self) -> Result<Spool, WriteError> {
        Ok(Spool::create(self.content.spool_dir()).await?)
    }

    /// Writes the content, then the record; a refused record deletes the content again. An
    /// intent names the object until both halves agree, so that a kill in between is
    /// resolved at the next start.
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
        let pending = self.content.put(&new.bucket, &new.key, content).await?;
        match self.files.insert(new.clone()).await {
            Ok(record) => {
                pending.finish();
                Ok(record)
            }
            Err(e) => {
                match self.content.delete(&new.bucket, &new.key).await {
                    Ok(()) => pending.finish(),
                    // The intent stays; the next start removes the object.
                    Err(error) => {
                        tracing::warn!(%error, bucket = %new.bucket, key = %new.key, store = self.content.name(),
                            "record refused and its object not removed; the next start removes it")
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
            let digest = crate::content::blocking("hashing", move || {
                Ok(crate::objects::checksums::file_digest(&path)?)
            });
            Ok(digest.await?)
        }
    }
}

/// Removes the record of `key`, then its object from the content store. The record goes
/// first: the catalogue is what clients see. An intent names the object until it is gone,
/// so an object whose delete failed (or was cut by a kill) is removed at the next start.
/// The S3 endpoint's failure to remove it is the client's error too; the embedded store's
/// is only logged.
pub async fn delete_record(
    files: &FilesDb,
    content: &dyn ContentStore,
    key: String,
) -> Result<(), WriteError> {
    let Some(record) = files.get_by_key(key.clone()).await? else {
        return Err(RepoError::NotFound { key }.into());
    };
    if !content.holds(&record.bucket, &record.key) {
        // No store is on, or a key it cannot hold (a record of an object kept elsewhere).
        files.delete_by_key(key).await?;
        return Ok(());
    }
    let pending = content
        .begin(IntentOp::Delete, &record.bucket, &record.key)
        .await?;
    files.delete_by_key(key).await?;
    match content.delete(&record.bucket, &record.key).await {
        Ok(()) => pending.finish(),
        Err(error) => {
            tracing::warn!(%error, bucket = %record.bucket, key = %record.key, store = content.name(),
                "record deleted but its object not yet; the next start removes it");
            if error.is_endpoint() {
                return Err(error.into());
            }
        }
    }
    Ok(())
}

/// Resolves the writes a killed process left half done whose intents the content store
/// keeps (the S3 endpoint's, in `<data_dir>/.pending-s3`): an object whose record does not
/// exist is deleted. A store that cannot be reached leaves the intent for the next start.
/// Returns how many intents were resolved.
pub async fn recover_unfinished(
    files: &FilesDb,
    content: &dyn ContentStore,
) -> Result<usize, WriteError> {
    let unfinished = content.unfinished().await?;
    let mut resolved = 0;
    for note in unfinished {
        let Some(intent) = &note.intent else {
            // Killed before the intent was whole: nothing was sent yet.
            note.finish();
            continue;
        };
        let record = files.get_by_key(intent.key.clone()).await?;
        let has_record = record.is_some_and(|r| r.bucket == intent.bucket);
        if !has_record && let Err(error) = content.delete(&intent.bucket, &intent.key).await {
            tracing::warn!(%error, bucket = %intent.bucket, key = %intent.key, store = content.name(),
                "cannot remove an object left without its record; trying again at the next start");
            continue;
        }
        resolved += 1;
        note.finish();
    }
    if resolved > 0 {
        tracing::info!(
            resolved,
            store = content.name(),
            "writes to the store cut short were finished"
        );
    }
    Ok(resolved)
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
}
