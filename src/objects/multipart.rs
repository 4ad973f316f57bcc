//! S3's multipart uploads in the embedded store, with S3's rules: an upload is created for
//! a bucket and key and named by a random id; parts 1 to 10,000 arrive in any order (a part
//! sent again replaces the one before) and are answered with the MD5 of their bytes as
//! ETag; completing lists parts in ascending order with their ETags, every part but the
//! last at least 5 MiB, and puts their bytes together as the object; aborting drops the
//! parts. An upload lives in `root/.multipart/<id>/` (`upload.json` and one file per
//! part); uploads older than a cut-off are swept (`abort_older_than`).

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use md5::Md5;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::temp::{TempFile, random_name};
use super::{ObjectError, ObjectMeta, ObjectStore, Spooled, TEMP_DIR, is_absent, sync_dir};

/// Uploads under way, inside the root, under a name no bucket can have.
const MULTIPART_DIR: &str = ".multipart";
const INFO_FILE: &str = "upload.json";
/// What a folder of an upload being completed is renamed to, so that only one completion
/// (and no new part) can take it.
const COMPLETING: &str = ".completing";

/// Smallest part but the last (S3's `EntityTooSmall`).
pub const MIN_PART_SIZE: u64 = 5 * 1024 * 1024;
/// Largest part number (S3's).
pub const MAX_PARTS: u32 = 10_000;
/// Largest body of one PUT or one part (S3's 5 GiB).
pub const MAX_PUT_SIZE: u64 = 5 * 1024 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum MultipartError {
    #[error(
        "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed."
    )]
    NoSuchUpload,
    #[error("Part number must be an integer between 1 and 10000, inclusive")]
    PartNumber,
    #[error(
        "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag. (part {0})"
    )]
    InvalidPart(u32),
    #[error(
        "The list of parts was not in ascending order. The parts list must be specified in order by part number."
    )]
    InvalidPartOrder,
    #[error(
        "Your proposed upload is smaller than the minimum allowed size: every part but the last must be at least 5 MiB (part {0})"
    )]
    EntityTooSmall(u32),
    #[error("You must specify at least one part")]
    NoParts,
    #[error(transparent)]
    Object(#[from] ObjectError),
}

impl MultipartError {
    /// The S3 error code; `NoSuchUpload` is a 404, the object's own errors keep theirs,
    /// the rest are 400.
    pub fn s3_code(&self) -> &'static str {
        match self {
            MultipartError::NoSuchUpload => "NoSuchUpload",
            MultipartError::PartNumber => "InvalidArgument",
            MultipartError::InvalidPart(_) => "InvalidPart",
            MultipartError::InvalidPartOrder => "InvalidPartOrder",
            MultipartError::EntityTooSmall(_) => "EntityTooSmall",
            MultipartError::NoParts => "MalformedXML",
            MultipartError::Object(_) => "InternalError",
        }
    }
}

/// What `upload.json` holds.
#[derive(Debug, Serialize, Deserialize)]
struct UploadInfo {
    bucket: String,
    key: String,
    #[serde(rename = "initiatedMs")]
    initiated_ms: i64,
}

/// A completed upload: the object and what its bytes were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completed {
    pub meta: ObjectMeta,
    pub sha256: [u8; 32],
}

impl ObjectStore {
    fn uploads_dir(&self) -> PathBuf {
        self.root.join(MULTIPART_DIR)
    }

    /// Starts an upload of `bucket`/`key` (both checked now) and gives its id.
    pub fn create_multipart(
        &self,
        bucket: &str,
        key: &str,
        now: DateTime<Utc>,
    ) -> Result<String, ObjectError> {
        self.path_of(bucket, key)?;
        let uploads = self.uploads_dir();
        fs::create_dir_all(&uploads).map_err(ObjectError::io("create folder", &uploads))?;
        let info = serde_json::to_vec(&UploadInfo {
            bucket: bucket.to_owned(),
            key: key.to_owned(),
            initiated_ms: now.timestamp_millis(),
        })
        .map_err(|e| ObjectError::Io {
            action: "write",
            path: uploads.clone(),
            source: io::Error::other(e),
        })?;
        loop {
            // 32 hex digits: the ids S3 gives are opaque, ours only need to be unguessable.
            let id = format!("{}{}", random_name(&uploads)?, random_name(&uploads)?);
            let dir = uploads.join(&id);
            match fs::create_dir(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(ObjectError::io("create folder", &dir)(e)),
            }
            let info_path = dir.join(INFO_FILE);
            let mut file =
                File::create_new(&info_path).map_err(ObjectError::io("create", &info_path))?;
            file.write_all(&info)
                .and_then(|()| file.sync_all())
                .map_err(ObjectError::io("write", &info_path))?;
            sync_dir(&dir);
            sync_dir(&uploads);
            return Ok(id);
        }
    }

    /// Takes a spooled part (spooled in `spool_dir`, with its MD5) as part `number` of the
    /// upload, replacing one sent before; gives its ETag (the quoted MD5 of its bytes).
    pub fn put_part(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        number: u32,
        spooled: Spooled,
    ) -> Result<String, MultipartError> {
        check_part_number(number)?;
        let dir = self.upload_dir(upload_id, bucket, key)?;
        let etag = match spooled.digests().md5 {
            Some(md5) => quoted(&md5),
            // Spooled without MD5: computed from the file (not the way the store spools).
            None => quoted(&file_md5(spooled.path())?),
        };
        let dest = dir.join(part_name(number));
        let Spooled { temp, file, .. } = spooled;
        drop(file);
        match fs::rename(&temp.path, &dest) {
            Ok(()) => temp.disarm(),
            // Aborted or completed meanwhile.
            Err(e) if is_absent(&e) => return Err(MultipartError::NoSuchUpload),
            Err(e) => return Err(ObjectError::io("move into place", &dest)(e).into()),
        }
        sync_dir(&dir);
        Ok(etag)
    }

    /// Puts the listed parts together as `bucket`/`key` (each part's MD5 checked against
    /// its ETag while it is copied) and ends the upload. A refused list leaves the upload
    /// as it was, for the client to send a right one.
    pub fn complete_multipart(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        parts: &[(u32, String)],
    ) -> Result<Completed, MultipartError> {
        if parts.is_empty() {
            return Err(MultipartError::NoParts);
        }
        for (number, _) in parts {
            check_part_number(*number)?;
        }
        if parts.windows(2).any(|pair| pair[0].0 >= pair[1].0) {
            return Err(MultipartError::InvalidPartOrder);
        }
        let dir = self.upload_dir(upload_id, bucket, key)?;
        let claimed = self.uploads_dir().join(format!("{upload_id}{COMPLETING}"));
        match fs::rename(&dir, &claimed) {
            Ok(()) => {}
            Err(e) if is_absent(&e) => return Err(MultipartError::NoSuchUpload),
            Err(e) => return Err(ObjectError::io("claim", &dir)(e).into()),
        }
        match self.assemble(&claimed, bucket, key, parts) {
            Ok(completed) => {
                if let Err(error) = fs::remove_dir_all(&claimed) {
                    // The object is whole; the leftover parts go with the next sweep.
                    tracing::warn!(%error, upload_id, "cannot remove the parts of a completed upload");
                }
                Ok(completed)
            }
            Err(error) => {
                let _ = fs::rename(&claimed, &dir);
                Err(error)
            }
        }
    }

    fn assemble(
        &self,
        dir: &Path,
        bucket: &str,
        key: &str,
        parts: &[(u32, String)],
    ) -> Result<Completed, MultipartError> {
        let mut files = Vec::with_capacity(parts.len());
        for (i, (number, _)) in parts.iter().enumerate() {
            let path = dir.join(part_name(*number));
            let file = match File::open(&path) {
                Ok(file) => file,
                Err(e) if is_absent(&e) => return Err(MultipartError::InvalidPart(*number)),
                Err(e) => return Err(ObjectError::io("open", &path)(e).into()),
            };
            let len = file
                .metadata()
                .map_err(ObjectError::io("read metadata of", &path))?
                .len();
            if len < MIN_PART_SIZE && i + 1 < parts.len() {
                return Err(MultipartError::EntityTooSmall(*number));
            }
            files.push((file, path));
        }
        let (temp, mut out) = TempFile::create(&self.root.join(TEMP_DIR))?;
        let mut whole = Sha256::new();
        let mut buf = vec![0u8; 256 * 1024];
        for ((number, etag), (mut file, path)) in parts.iter().zip(files) {
            let mut md5 = Md5::new();
            loop {
                let n = file
                    .read(&mut buf)
                    .map_err(ObjectError::io("read", &path))?;
                if n == 0 {
                    break;
                }
                md5.update(&buf[..n]);
                whole.update(&buf[..n]);
                out.write_all(&buf[..n])
                    .map_err(ObjectError::io("write", &temp.path))?;
            }
            if !etag_matches(etag, &md5.finalize().into()) {
                return Err(MultipartError::InvalidPart(*number));
            }
        }
        out.flush().map_err(ObjectError::io("write", &temp.path))?;
        out.sync_all()
            .map_err(ObjectError::io("flush to disk", &temp.path))?;
        let meta = self.install(temp, out, bucket, key)?;
        Ok(Completed {
            meta,
            sha256: whole.finalize().into(),
        })
    }

    /// Drops the upload and its parts.
    pub fn abort_multipart(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> Result<(), MultipartError> {
        let dir = self.upload_dir(upload_id, bucket, key)?;
        let doomed = self
            .uploads_dir()
            .join(format!("{upload_id}.aborted-{}", random_name(&dir)?));
        match fs::rename(&dir, &doomed) {
            Ok(()) => {}
            Err(e) if is_absent(&e) => return Err(MultipartError::NoSuchUpload),
            Err(e) => return Err(ObjectError::io("abort", &dir)(e).into()),
        }
        fs::remove_dir_all(&doomed).map_err(ObjectError::io("remove", &doomed))?;
        Ok(())
    }

    /// Removes every upload started before `cutoff` (also what a completion or an abort cut
    /// short by a kill left); returns how many.
    pub fn abort_multipart_older_than(&self, cutoff: DateTime<Utc>) -> usize {
        let Ok(entries) = fs::read_dir(self.uploads_dir()) else {
            return 0;
        };
        let mut removed = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            let started = read_info(&path).map(|info| info.initiated_ms).or_else(|| {
                // An abort cut short removed the info first: its folder's time says.
                let modified = entry.metadata().ok()?.modified().ok()?;
                Some(DateTime::<Utc>::from(modified).timestamp_millis())
            });
            if started.is_some_and(|ms| ms < cutoff.timestamp_millis())
                && fs::remove_dir_all(&path).is_ok()
            {
                removed += 1;
            }
        }
        removed
    }

    /// The folder of an upload under way for exactly this bucket and key.
    fn upload_dir(
        &self,
        upload_id: &str,
        bucket: &str,
        key: &str,
    ) -> Result<PathBuf, MultipartError> {
        // Ids are ours: 32 lowercase hex digits, so never a path of their own.
        let well_formed = upload_id.len() == 32
            && upload_id
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !well_formed {
            return Err(MultipartError::NoSuchUpload);
        }
        let dir = self.uploads_dir().join(upload_id);
        match read_info(&dir) {
            Some(info) if info.bucket == bucket && info.key == key => Ok(dir),
            _ => Err(MultipartError::NoSuchUpload),
        }
    }
}

fn read_info(dir: &Path) -> Option<UploadInfo> {
    let text = fs::read(dir.join(INFO_FILE)).ok()?;
    serde_json::from_slice(&text).ok()
}

fn check_part_number(number: u32) -> Result<(), MultipartError> {
    if (1..=MAX_PARTS).contains(&number) {
        Ok(())
    } else {
        Err(MultipartError::PartNumber)
    }
}

fn part_name(number: u32) -> String {
    format!("part-{number:05}")
}

fn quoted(md5: &[u8; 16]) -> String {
    format!("\"{}\"", crate::hex::encode(md5))
}

/// An ETag as clients send it back: quoted or not, either case.
fn etag_matches(sent: &str, md5: &[u8; 16]) -> bool {
    let bare = sent.trim().trim_matches('"');
    bare.eq_ignore_ascii_case(&crate::hex::encode(md5))
}

fn file_md5(path: &Path) -> Result<[u8; 16], ObjectError> {
    let mut file = File::open(path).map_err(ObjectError::io("open", path))?;
    let mut md5 = Md5::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf).map_err(ObjectError::io("read", path))? {
            0 => return Ok(md5.finalize().into()),
            n => md5.update(&buf[..n]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objects::Spool;
    use crate::objects::checksums::Digests;

    async fn spooled(store: &ObjectStore, bytes: &[u8]) -> Spooled {
        let mut spool = Spool::create_with(store.spool_dir(), Digests::with(true, false))
            .await
            .unwrap();
        spool.write(bytes).await.unwrap();
        spool.finish().await.unwrap()
    }

    fn md5_etag(bytes: &[u8]) -> String {
        quoted(&Md5::digest(bytes).into())
    }

    #[tokio::test]
    async fn parts_in_any_order_become_one_object_as_s3_puts_them_together() {
        let dir = tempfile::tempdir().unwrap();
        let store = ObjectStore::open(dir.path().join("objects")).unwrap();
        let id = store
            .create_multipart("bkt", "a/b.bin", Utc::now())
            .unwrap();
        let first = vec![1u8; MIN_PART_SIZE as usize];
        let second = b"tail".to_vec();
        // The second arrives first; the first is sent twice (the last one counts).
        let tail_etag = store
            .put_part("bkt", "a/b.bin", &id, 2, spooled(&store, &second).await)
            .unwrap();
        store
            .put_part("bkt", "a/b.bin", &id, 1, spooled(&store, b"stale").await)
            .unwrap();
        let head_etag = store
            .put_part("bkt", "a/b.bin", &id, 1, spooled(&store, &first).await)
            .unwrap();
        assert_eq!(head_etag, md5_etag(&first));
        assert_eq!(tail_etag, md5_etag(&second));

        // Refused lists leave the upload as it was.
        let refused = |parts: &[(u32, String)]| {
            store
                .complete_multipart("bkt", "a/b.bin", &id, parts)
                .unwrap_err()
                .s3_code()
        };
        assert_eq!(
            refused(&[(2, tail_etag.clone()), (1, head_etag.clone())]),
            "InvalidPartOrder"
        );
        assert_eq!(
            refused(&[(1, head_etag.clone()), (2, md5_etag(b"other"))]),
            "InvalidPart"
        );
        assert_eq!(
            refused(&[(1, head_etag.clone()), (3, tail_etag.clone())]),
            "InvalidPart"
        );
        assert_eq!(
            refused(&[(2, tail_etag.clone()), (3, head_etag.clone())]),
            "EntityTooSmall"
        );
        assert_eq!(refused(&[(0, head_etag.clone())]), "InvalidArgument");
        assert_eq!(
            store
                .complete_multipart("bkt", "other-key", &id, &[(1, head_etag.clone())])
                .unwrap_err()
                .s3_code(),
            "NoSuchUpload"
        );

        // ETags as clients send them back: unquoted or in capitals too.
        let completed = store
            .complete_multipart(
                "bkt",
                "a/b.bin",
                &id,
                &[
                    (1, head_etag.trim_matches('"').to_ascii_uppercase()),
                    (2, tail_etag),
                ],
            )
            .unwrap();
        let mut whole = first.clone();
        whole.extend_from_slice(&second);
        assert_eq!(completed.meta.len, whole.len() as u64);
        assert_eq!(completed.sha256, <[u8; 32]>::from(Sha256::digest(&whole)));
        let mut read = Vec::new();
        store
            .open_object("bkt", "a/b.bin")
            .unwrap()
            .file
            .read_to_end(&mut read)
            .unwrap();
        assert_eq!(read, whole);
        // Completed: gone, as are its parts.
        assert_eq!(
            store
                .complete_multipart("bkt", "a/b.bin", &id, &[(1, head_etag)])
                .unwrap_err()
                .s3_code(),
            "NoSuchUpload"
        );
        assert_eq!(fs::read_dir(store.uploads_dir()).unwrap().count(), 0);
        assert_eq!(fs::read_dir(store.spool_dir()).unwrap().count(), 0);
    }

    #[tokio::test]
    async fn small_parts_but_the_last_are_refused_and_aborts_drop_everything() {
        let dir = tempfile::tempdir().unwrap();
        let store = ObjectStore::open(dir.path().join("objects")).unwrap();
        let id = store.create_multipart("bkt", "k", Utc::now()).unwrap();
        let small = store
            .put_part("bkt", "k", &id, 1, spooled(&store, b"small").await)
            .unwrap();
        let last = store
            .put_part("bkt", "k", &id, 2, spooled(&store, b"last").await)
            .unwrap();
        assert_eq!(
            store
                .complete_multipart("bkt", "k", &id, &[(1, small.clone()), (2, last)])
                .unwrap_err()
                .s3_code(),
            "EntityTooSmall"
        );
        // One small part is a whole (small) object, as in S3.
        assert_eq!(
            store
                .put_part("bkt", "k", &id, 10_001, spooled(&store, b"x").await)
                .unwrap_err()
                .s3_code(),
            "InvalidArgument"
        );
        store.abort_multipart("bkt", "k", &id).unwrap();
        assert_eq!(
            store
                .abort_multipart("bkt", "k", &id)
                .unwrap_err()
                .s3_code(),
            "NoSuchUpload"
        );
        assert_eq!(
            store
                .put_part("bkt", "k", &id, 1, spooled(&store, b"late").await)
                .unwrap_err()
                .s3_code(),
            "NoSuchUpload"
        );
        assert!(matches!(
            store.stat("bkt", "k"),
            Err(ObjectError::NotFound { .. })
        ));
        for bad in ["../../etc", "", "0123456789abcdef0123456789ABCDEF"] {
            assert_eq!(
                store
                    .abort_multipart("bkt", "k", bad)
                    .unwrap_err()
                    .s3_code(),
                "NoSuchUpload"
            );
        }
        let single = store.create_multipart("bkt", "one", Utc::now()).unwrap();
        let etag = store
            .put_part("bkt", "one", &single, 1, spooled(&store, b"tiny").await)
            .unwrap();
        let completed = store
            .complete_multipart("bkt", "one", &single, &[(1, etag)])
            .unwrap();
        assert_eq!(completed.meta.len, 4);
    }

    #[test]
    fn old_uploads_are_swept_and_new_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = ObjectStore::open(dir.path().join("objects")).unwrap();
        let now = Utc::now();
        store
            .create_multipart("bkt", "old", now - chrono::TimeDelta::hours(2))
            .unwrap();
        let fresh = store.create_multipart("bkt", "new", now).unwrap();
        assert_eq!(
            store.abort_multipart_older_than(now - chrono::TimeDelta::hours(1)),
            1
        );
        assert!(store.upload_dir(&fresh, "bkt", "new").is_ok());
    }
}
