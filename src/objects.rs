//! The embedded object store's disk side: objects live below `root/{bucket}/` (the key's
//! layout is in `names`), are written atomically (temp file, fsync, rename), and are read
//! whole or by byte range. No HTTP here: `http::objects` answers with `S3Error` bodies.

pub mod checksums;
mod content_type;
mod credentials;
mod gate;
pub mod multipart;
mod names;
mod pending;
mod range;
mod signed;
mod spool;
mod temp;

use std::fs::{self, File, Metadata};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

pub use content_type::{Display, MediaType, content_type, display, parse as parse_media_type};
pub use credentials::{CredentialsError, EmbeddedCredentials};
pub use gate::KeyGate;
pub use names::{object_path, validate_bucket, validate_key};
pub use pending::{Intent, IntentOp, Pending, Unfinished};
/// Intents in a folder of their own (writes to an S3 endpoint).
pub use pending::{begin_in as begin_intent_in, unfinished as unfinished_intents_in};
pub use range::{ByteRange, RangeError, parse_range};
pub use signed::{OpenedObject, ReadError, SignedRead, SignedStore};
pub use spool::{Spool, Spooled, sweep_dead as sweep_dead_spool_files};

use gate::KeyGates;
use temp::TempFile;

/// Temp files live here, inside the root (so a rename never crosses file systems) and
/// under a name no bucket can have (bucket names start with a letter or digit).
const TEMP_DIR: &str = ".tmp";
/// The intents of writes under way (see `pending`), under a name no bucket can have.
const PENDING_DIR: &str = ".pending";

#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    #[error(
        "bucket must be 3 to 63 characters of lowercase letters, digits, '-' and '.', starting and ending with a letter or digit; got '{bucket}' ({reason})"
    )]
    InvalidBucket {
        bucket: String,
        reason: &'static str,
    },
    #[error("object key {reason}; got '{key}'")]
    InvalidKey { key: String, reason: &'static str },
    #[error("no object '{key}' in bucket '{bucket}'")]
    NotFound { bucket: String, key: String },
    /// Keys never clash in depot's layout; a file or folder put there by other means can.
    #[error(
        "object key '{key}' in bucket '{bucket}' cannot be written: something that is not one of depot's objects is in its place in the store's folder"
    )]
    KeyConflict { bucket: String, key: String },
    #[error("cannot {action} '{}': {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
}

impl ObjectError {
    fn io(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> ObjectError {
        let path = path.to_owned();
        move |source| ObjectError::Io {
            action,
            path,
            source,
        }
    }
}

/// What the handlers put in `Content-Length`, `Last-Modified` and `ETag`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectMeta {
    pub len: u64,
    pub modified: DateTime<Utc>,
    /// Strong, quoted (`"…"`), ready for the header.
    pub etag: String,
}

impl ObjectMeta {
    /// `Last-Modified` value (IMF-fixdate), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    pub fn last_modified_http(&self) -> String {
        self.modified
            .format("%a, %d %b %Y %H:%M:%S GMT")
            .to_string()
    }
}

/// An object opened for reading; `meta` describes this very file even if a put replaces the
/// key meanwhile, so the range is checked against the length being served.
#[derive(Debug)]
pub struct ObjectFile {
    pub file: File,
    pub meta: ObjectMeta,
}

impl ObjectFile {
    /// The file positioned at the range start, and how many bytes to send from there.
    pub fn into_range(mut self, range: Option<ByteRange>) -> Result<(File, u64), io::Error> {
        let Some(range) = range else {
            return Ok((self.file, self.meta.len));
        };
        let last = self.meta.len.saturating_sub(1);
        let end = range.end.min(last);
        if range.start > end {
            return Ok((self.file, 0));
        }
        self.file.seek(SeekFrom::Start(range.start))?;
        Ok((self.file, end - range.start + 1))
    }
}

/// Blocking file I/O: call it from `spawn_blocking` (`gate` is the one async call).
#[derive(Debug, Clone)]
pub struct ObjectStore {
    root: PathBuf,
    /// Shared by the clones of one opened store (see `gate`).
    gates: Arc<KeyGates>,
}

impl ObjectStore {
    /// Creates the root (and its temp and intent folders) when missing. Leftovers of
    /// killed processes are removed by `sweep_dead_temp_files` and `unfinished`, which the
    /// daemon calls at start.
    pub fn open(root: PathBuf) -> Result<ObjectStore, ObjectError> {
        for dir in [TEMP_DIR, PENDING_DIR] {
            let dir = root.join(dir);
            fs::create_dir_all(&dir).map_err(ObjectError::io("create folder", &dir))?;
        }
        Ok(ObjectStore {
            root,
            gates: Arc::default(),
        })
    }

    /// Holds `bucket`/`key` against the other writes of this store that take it: a write
    /// that must decide whether it may land (a presigned PUT, whose upload must still be
    /// under way) and land in one step, and a completion that checks the object and ends
    /// its upload in one step.
    pub async fn gate(&self, bucket: &str, key: &str) -> KeyGate {
        self.gates.enter(bucket, key).await
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where `bucket`/`key` lives on disk, after checking both names.
    pub fn path_of(&self, bucket: &str, key: &str) -> Result<PathBuf, ObjectError> {
        Ok(self.root.join(object_path(bucket, key)?))
    }

    pub fn put(&self, bucket: &str, key: &str, bytes: &[u8]) -> Result<ObjectMeta, ObjectError> {
        self.put_reader(bucket, key, &mut &*bytes)
    }

    /// Copies the file at `src` in (content only; the object gets its own mtime).
    pub fn put_file(&self, bucket: &str, key: &str, src: &Path) -> Result<ObjectMeta, ObjectError> {
        let mut file = File::open(src).map_err(ObjectError::io("open", src))?;
        self.put_reader(bucket, key, &mut file)
    }

    /// Streams `reader` into the object. Readers see the old object or the new one, never
    /// a part; a failed put leaves the old object and no temp file.
    pub fn put_reader(
        &self,
        bucket: &str,
        key: &str,
        reader: &mut impl Read,
    ) -> Result<ObjectMeta, ObjectError> {
        // Names checked before anything is written.
        self.path_of(bucket, key)?;
        let (temp, mut file) = TempFile::create(&self.root.join(TEMP_DIR))?;
        io::copy(reader, &mut file).map_err(ObjectError::io("write", &temp.path))?;
        file.flush().map_err(ObjectError::io("write", &temp.path))?;
        file.sync_all()
            .map_err(ObjectError::io("flush to disk", &temp.path))?;
        self.install(temp, file, bucket, key)
    }

    /// Where uploads are spooled so that `put_spooled` takes them with a rename.
    pub fn spool_dir(&self) -> PathBuf {
        self.root.join(TEMP_DIR)
    }

    /// Takes a spooled upload as the object: moved into place when it was spooled in
    /// `spool_dir` (no copy of a large upload), copied otherwise.
    pub fn put_spooled(
        &self,
        bucket: &str,
        key: &str,
        spooled: Spooled,
    ) -> Result<ObjectMeta, ObjectError> {
        if spooled.path().parent() != Some(self.spool_dir().as_path()) {
            return self.put_file(bucket, key, spooled.path());
        }
        let Spooled { temp, file, .. } = spooled;
        self.install(temp, file, bucket, key)
    }

    /// `put_spooled` only when nothing is at `bucket`/`key` (S3's `If-None-Match: *`):
    /// `None`, and nothing written, when an object is there. The check and the write are one
    /// step (a hard link fails when the name exists), so two such puts never both land.
    pub fn put_spooled_if_absent(
        &self,
        bucket: &str,
        key: &str,
        spooled: Spooled,
    ) -> Result<Option<ObjectMeta>, ObjectError> {
        let dest = self.path_of(bucket, key)?;
        let parent = dest.parent().unwrap_or(&self.root).to_owned();
        self.make_parent(&parent, bucket, key)?;
        let Spooled { temp, file, .. } = spooled;
        if temp.path.parent() != Some(self.spool_dir().as_path()) {
            // Spooled elsewhere (another file system): copied next to the store first.
            let (copy, mut out) = TempFile::create(&self.root.join(TEMP_DIR))?;
            let mut from = File::open(&temp.path).map_err(ObjectError::io("open", &temp.path))?;
            io::copy(&mut from, &mut out).map_err(ObjectError::io("write", &copy.path))?;
            out.sync_all()
                .map_err(ObjectError::io("flush to disk", &copy.path))?;
            return self.link_new(copy, out, &dest, bucket, key);
        }
        self.link_new(temp, file, &dest, bucket, key)
    }

    /// Gives the flushed temp file the name `dest` unless that name exists; the temp name
    /// goes either way (dropping `temp` removes it).
    fn link_new(
        &self,
        temp: TempFile,
        file: File,
        dest: &Path,
        bucket: &str,
        key: &str,
    ) -> Result<Option<ObjectMeta>, ObjectError> {
        match fs::hard_link(&temp.path, dest) {
            Ok(()) => {}
            // A folder in its place is no object: the key cannot be written, as `install`.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && !dest.is_dir() => {
                return Ok(None);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::AlreadyExists | io::ErrorKind::NotADirectory
                ) =>
            {
                return Err(ObjectError::KeyConflict {
                    bucket: bucket.to_owned(),
                    key: key.to_owned(),
                });
            }
            Err(e) => return Err(ObjectError::io("move into place", dest)(e)),
        }
        drop(temp);
        let parent = dest.parent().unwrap_or(&self.root);
        sync_dir(parent);
        // Taken once the temp name is gone: the link count, and so the ctime the ETag
        // includes, no longer changes.
        let metadata = file
            .metadata()
            .map_err(ObjectError::io("read metadata of", dest))?;
        meta_from(&metadata, dest).map(Some)
    }

    fn make_parent(&self, parent: &Path, bucket: &str, key: &str) -> Result<(), ObjectError> {
        fs::create_dir_all(parent).map_err(|e| match e.kind() {
            io::ErrorKind::NotADirectory | io::ErrorKind::AlreadyExists => {
                ObjectError::KeyConflict {
                    bucket: bucket.to_owned(),
                    key: key.to_owned(),
                }
            }
            _ => ObjectError::io("create folder", parent)(e),
        })
    }

    /// Moves a written and flushed temp file into place as `bucket`/`key`.
    fn install(
        &self,
        temp: TempFile,
        file: File,
        bucket: &str,
        key: &str,
    ) -> Result<ObjectMeta, ObjectError> {
        let dest = self.path_of(bucket, key)?;
        let conflict = || ObjectError::KeyConflict {
            bucket: bucket.to_owned(),
            key: key.to_owned(),
        };
        let parent = dest.parent().unwrap_or(&self.root);
        self.make_parent(parent, bucket, key)?;
        fs::rename(&temp.path, &dest).map_err(|e| match e.kind() {
            io::ErrorKind::IsADirectory
            | io::ErrorKind::DirectoryNotEmpty
            | io::ErrorKind::NotADirectory => conflict(),
            _ => ObjectError::io("move into place", &dest)(e),
        })?;
        temp.disarm();
        sync_dir(parent);
        // Taken after the rename, which changes the inode's ctime that the ETag includes.
        let metadata = file
            .metadata()
            .map_err(ObjectError::io("read metadata of", &dest))?;
        meta_from(&metadata, &dest)
    }

    /// Removes the object; `NotFound` when there is none. Emptied folders are left: they
    /// are harmless and removing them would race with a put into the same folder.
    pub fn delete(&self, bucket: &str, key: &str) -> Result<(), ObjectError> {
        let path = self.path_of(bucket, key)?;
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if is_absent(&e) => Err(self.not_found(bucket, key)),
            Err(e) => Err(ObjectError::io("delete", &path)(e)),
        }
    }

    pub fn stat(&self, bucket: &str, key: &str) -> Result<ObjectMeta, ObjectError> {
        Ok(self.open_object(bucket, key)?.meta)
    }

    /// Opens the object for reading; parse the `Range` header against `meta.len`, then
    /// `into_range` gives the positioned file and the byte count to stream.
    pub fn open_object(&self, bucket: &str, key: &str) -> Result<ObjectFile, ObjectError> {
        let path = self.path_of(bucket, key)?;
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if is_absent(&e) => return Err(self.not_found(bucket, key)),
            Err(e) => return Err(ObjectError::io("open", &path)(e)),
        };
        let metadata = file
            .metadata()
            .map_err(ObjectError::io("read metadata of", &path))?;
        if !metadata.is_file() {
            return Err(self.not_found(bucket, key));
        }
        let meta = meta_from(&metadata, &path)?;
        Ok(ObjectFile { file, meta })
    }

    fn not_found(&self, bucket: &str, key: &str) -> ObjectError {
        ObjectError::NotFound {
            bucket: bucket.to_owned(),
            key: key.to_owned(),
        }
    }

    /// Removes the temp files of puts whose process is gone (killed mid-write); a put
    /// under way, in this process or another, holds a lock on its file and is left alone.
    /// Returns how many were removed.
    pub fn sweep_dead_temp_files(&self) -> usize {
        temp::sweep_dead(&self.root.join(TEMP_DIR))
    }

    /// Records that a write of `bucket`/`key` starts; see `pending`.
    pub fn begin(&self, op: IntentOp, bucket: &str, key: &str) -> Result<Pending, ObjectError> {
        Pending::begin(&self.root.join(PENDING_DIR), op, bucket, key)
    }

    /// The intents whose process is gone, each locked for the caller to resolve.
    pub fn unfinished(&self) -> Vec<Unfinished> {
        pending::unfinished(&self.root.join(PENDING_DIR))
    }
}

fn is_absent(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory | io::ErrorKind::IsADirectory
    )
}

/// Makes the rename itself durable; best effort, since some file systems refuse to open
/// or sync a directory and the data is already safe.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

fn meta_from(metadata: &Metadata, path: &Path) -> Result<ObjectMeta, ObjectError> {
    let modified = metadata
        .modified()
        .map_err(ObjectError::io("read the modification time of", path))?;
    Ok(ObjectMeta {
        len: metadata.len(),
        modified: DateTime::<Utc>::from(modified),
        etag: etag(metadata, modified),
    })
}

/// A strong ETag from the file's identity rather than its content, so that it costs no read.
/// Every write goes through a rename (new inode, new mtime and ctime), and an in-place edit by
/// hand changes mtime and ctime; ctime cannot be set back by tools, unlike mtime. 24 hex
/// digits on purpose: S3 tools take a 32-digit ETag for the content's MD5.
fn etag(metadata: &Metadata, modified: SystemTime) -> String {
    let mut hash = Sha256::new();
    hash.update(metadata.len().to_le_bytes());
    let nanos = modified
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hash.update(nanos.to_le_bytes());
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        hash.update(metadata.ino().to_le_bytes());
        hash.update(metadata.ctime().to_le_bytes());
        hash.update(metadata.ctime_nsec().to_le_bytes());
    }
    let digest = hash.finalize();
    let mut etag = String::with_capacity(26);
    etag.push('"');
    crate::hex::push(&mut etag, &digest[..12]);
    etag.push('"');
    etag
}

#[cfg(test)]
mod tests;
