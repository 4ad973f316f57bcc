//! Direct uploads (SPEC §13): the bytes go from the client straight to the content store
//! (`content`: the S3 endpoint, or the embedded store), never through a node. `begin` keeps the upload
//! and hands out a presigned PUT bound to the declared size (and SHA-256) and to
//! `If-None-Match: *`, or above `files.single_put_max` a multipart plan of presigned
//! UploadPart URLs; `complete` checks what arrived (size, checksum) and only then writes the
//! record, in the same transaction that ends the upload. Upload URLs are single-use: the
//! embedded store takes a presigned write only while `admits` says its upload is under way,
//! S3 refuses a second PUT by `If-None-Match`, and `expire` aborts what was never completed
//! and, once a completed upload's URL has expired, removes what a replay left at its key.
//! No HTTP here: `http::uploads` parses and answers.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};

use super::pending::{CompletedUpload, PendingUpload};
use super::record::{FileRecord, MAX_SIZE, Permission, RecordError, normalize_sha256};
use super::writes::file_type_of;
use super::{DEFAULT_BUCKET, FilesDb, NewFileRecord, RepoError};
use crate::config::ConfigHandle;
use crate::config::settings::Files;
use crate::content::{ContentError, ContentHandle, ContentStore, Found};
use crate::objects::checksums::base64;
use crate::objects::multipart::MAX_PARTS;
use crate::shutdown::Shutdown;
use crate::signing::{Signer, SigningError};

/// S3's largest object (5 TiB): the most a declared `size` may be.
pub const MAX_OBJECT_SIZE: u64 = 5 * 1024 * 1024 * 1024 * 1024;
/// Longest `contentType` accepted, in characters.
const MAX_CONTENT_TYPE_CHARS: usize = 255;
/// An upload is removed this long after it expired, so that a node whose clock is a little
/// ahead never removes one that a node a little behind is completing.
const EXPIRY_GRACE: TimeDelta = TimeDelta::seconds(5);
/// Expired uploads removed per sweep (the next sweep takes the rest).
const EXPIRY_BATCH: u32 = 1000;

#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("size must be at most {MAX_OBJECT_SIZE} bytes (5 TiB, S3's largest object), got {0}")]
    TooLarge(u64),
    #[error("no upload under way has key '{0}': start one with POST /files/uploads")]
    NoSuchUpload(String),
    #[error("the upload of key '{key}' expired at {at}: start a new one with POST /files/uploads")]
    Expired { key: String, at: String },
    #[error("the upload of key '{0}' is already completed: GET /file?key= gives its record")]
    AlreadyCompleted(String),
    #[error(
        "no object has arrived at {bucket}/{key} yet: send the bytes to the upload's URL, then complete it"
    )]
    NotArrived { bucket: String, key: String },
    #[error(
        "the object at {bucket}/{key} has {found}, the upload declared {declared}; the object was deleted: {retry}"
    )]
    Mismatch {
        bucket: String,
        key: String,
        found: String,
        declared: String,
        retry: &'static str,
    },
    #[error("{0}")]
    Parts(String),
    #[error(transparent)]
    Content(#[from] ContentError),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(transparent)]
    Signing(#[from] SigningError),
    #[error("no randomness for a new key: {0}")]
    Random(String),
}

/// What a client declares of the file it is about to send.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UploadRequest {
    pub file_name: String,
    pub size: u64,
    /// The media type the PUT will carry (signed), and the record's `fileType` when that
    /// is not given and the name has no extension.
    pub content_type: Option<String>,
    pub bucket: Option<String>,
    pub permission: Option<Permission>,
    pub description: Option<String>,
    pub status: Option<i64>,
    pub file_type: Option<String>,
    /// Hex SHA-256 of the content, either case.
    pub sha256: Option<String>,
}

/// How the client sends the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// One presigned PUT; `headers` are the ones the client must send as given (they are
    /// signed). The body must be exactly the declared size: its length is signed too.
    Single {
        key: String,
        url: String,
        headers: Vec<(String, String)>,
        expires_at: DateTime<Utc>,
    },
    /// A multipart upload: part `n` is the bytes from `(n - 1) * part_size`, PUT to its
    /// URL; its ETag goes into the completion.
    Multipart {
        key: String,
        upload_id: String,
        part_size: u64,
        parts: Vec<(u32, String)>,
        expires_at: DateTime<Utc>,
    },
}

/// Direct uploads into the content store of one configuration.
pub struct DirectUploads {
    files: FilesDb,
    content: Arc<dyn ContentStore>,
    /// Signs for the store (the daemon's signer of the settings in force).
    signer: Arc<Signer>,
    limits: Files,
}

impl DirectUploads {
    /// Refused when the store takes no writes (the embedded store is off). `signer` is
    /// the store's, for the base URL of the request (`ContentStore::signer`).
    pub fn new(
        files: FilesDb,
        content: Arc<dyn ContentStore>,
        signer: Arc<Signer>,
        limits: &Files,
    ) -> Result<DirectUploads, UploadError> {
        content.writable()?;
        Ok(DirectUploads {
            files,
            signer,
            content,
            limits: limits.clone(),
        })
    }

    /// Keeps the upload and gives the way to send its bytes.
    pub async fn begin(
        &self,
        request: UploadRequest,
        now: DateTime<Utc>,
    ) -> Result<Plan, UploadError> {
        let record = checked_record(&request)?;
        let ttl = self.limits.upload_ttl_secs;
        let expires_at = now + TimeDelta::seconds(i64::try_from(ttl).unwrap_or(i64::MAX));
        let mut upload = PendingUpload {
            key: record.key.clone(),
            bucket: record.bucket.clone(),
            file_name: record.file_name,
            description: record.description,
            status: record.status,
            file_type: record.file_type,
            permission: record.permission,
            size: request.size,
            sha256: record.sha256,
            content_type: request.content_type,
            upload_id: None,
            part_size: None,
            created_at: now,
            expires_at,
        };
        if request.size <= self.limits.single_put_max {
            // Signed, so every PUT to the URL carries it: the store (AWS, MinIO, R2, s3s-fs
            // and the embedded one) refuses the PUT once an object is at the key, so a
            // replay of the URL after its upload completed cannot replace the object.
            let mut headers = vec![("If-None-Match".to_owned(), "*".to_owned())];
            if let Some(content_type) = &upload.content_type {
                headers.push(("Content-Type".to_owned(), content_type.clone()));
            }
            if let Some(hash) = upload.sha256.as_deref().and_then(crate::hex::decode::<32>) {
                headers.push(("x-amz-checksum-sha256".to_owned(), base64(&hash)));
            }
            let length = request.size.to_string();
            let mut signed: Vec<(&str, &str)> = vec![("content-length", &length)];
            signed.extend(headers.iter().map(|(n, v)| (n.as_str(), v.as_str())));
            let url = self.signer.presign_with_headers(
                "PUT",
                &upload.bucket,
                &upload.key,
                ttl,
                now,
                &[],
                &signed,
            )?;
            // Kept before the URL is handed out: whatever arrives at it has an owner.
            self.files.open_upload(upload.clone()).await?;
            return Ok(Plan::Single {
                key: upload.key,
                url,
                headers,
                expires_at,
            });
        }
        let part_size = part_size_for(request.size, self.limits.part_size);
        let upload_id = self
            .content
            .create_multipart(
                &upload.bucket,
                &upload.key,
                upload.content_type.as_deref(),
                now,
            )
            .await?;
        let count = request.size.div_ceil(part_size);
        let mut parts = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
        for number in 1..=count {
            let len = part_size.min(request.size - (number - 1) * part_size);
            let url = self.signer.presign_with_headers(
                "PUT",
                &upload.bucket,
                &upload.key,
                ttl,
                now,
                &[
                    ("uploadId", &upload_id),
                    ("partNumber", &number.to_string()),
                ],
                &[("content-length", &len.to_string())],
            )?;
            parts.push((u32::try_from(number).unwrap_or(MAX_PARTS), url));
        }
        upload.upload_id = Some(upload_id.clone());
        upload.part_size = Some(part_size);
        if let Err(e) = self.files.open_upload(upload.clone()).await {
            // Nobody will know of this upload: drop it at the store at once.
            if let Err(error) = abort(&*self.content, &upload).await {
                tracing::warn!(%error, key = %upload.key, "cannot abort a multipart upload nobody keeps");
            }
            return Err(e.into());
        }
        Ok(Plan::Multipart {
            key: upload.key,
            upload_id,
            part_size,
            parts,
            expires_at,
        })
    }

    /// Checks the object of upload `key` and writes its record. `parts` are the
    /// `(part number, ETag)` of a multipart upload, in any order.
    pub async fn complete(
        &self,
        key: &str,
        parts: Option<Vec<(u32, String)>>,
        now: DateTime<Utc>,
    ) -> Result<FileRecord, UploadError> {
        let Some(upload) = self.files.pending_upload(key.to_owned()).await? else {
            return Err(self.gone(key).await);
        };
        if upload.expires_at <= now {
            return Err(expired(&upload));
        }
        // The embedded store lands a presigned PUT only while holding its key and seeing the
        // upload under way: held from the check of the object to the end of the upload, no
        // PUT lands between them.
        let _gate = self.content.gate(&upload.bucket, &upload.key).await;
        let found = match (&upload.upload_id, parts) {
            (None, Some(parts)) if !parts.is_empty() => {
                return Err(UploadError::Parts(
                    "this upload is one PUT: complete it without parts".into(),
                ));
            }
            (None, _) => self.arrived(&upload).await?,
            (Some(_), None) => {
                return Err(UploadError::Parts(
                    "this upload is multipart: complete it with parts, [{\"partNumber\", \"etag\"}] for every part".into(),
                ));
            }
            (Some(upload_id), Some(parts)) => {
                let parts = checked_parts(&upload, parts)?;
                self.assemble(&upload, upload_id, &parts).await?
            }
        };
        let etag = found.etag.clone();
        let sha256 = self.verify(&upload, found).await?;
        let record = upload.record(upload.size, sha256);
        match self
            .files
            .complete_upload(key.to_owned(), record, etag, now)
            .await
        {
            Err(RepoError::UploadGone { .. }) => Err(self.gone(key).await),
            other => Ok(other?),
        }
    }

    /// Why there is no upload under way with this key.
    async fn gone(&self, key: &str) -> UploadError {
        match self.files.get_by_key(key.to_owned()).await {
            Ok(Some(_)) => UploadError::AlreadyCompleted(key.to_owned()),
            Ok(None) => UploadError::NoSuchUpload(key.to_owned()),
            Err(e) => e.into(),
        }
    }

    /// What is at the upload's place after one PUT.
    async fn arrived(&self, upload: &PendingUpload) -> Result<Found, UploadError> {
        let found = self.content.check(&upload.bucket, &upload.key).await?;
        found.ok_or_else(|| not_arrived(upload))
    }

    /// Completes the multipart upload at the store; what it made.
    async fn assemble(
        &self,
        upload: &PendingUpload,
        upload_id: &str,
        parts: &[(u32, String)],
    ) -> Result<Found, UploadError> {
        let completed = self
            .content
            .complete_multipart(&upload.bucket, &upload.key, upload_id, parts)
            .await?;
        match completed {
            Some(found) => Ok(found),
            None => self.arrived(upload).await,
        }
    }

    /// Holds what arrived to what was declared; the hex SHA-256 to record. An object that
    /// does not match is deleted.
    async fn verify(
        &self,
        upload: &PendingUpload,
        found: Found,
    ) -> Result<Option<String>, UploadError> {
        let retry = if upload.upload_id.is_some() {
            "start a new upload"
        } else {
            "PUT the file again to the same URL until the upload expires, then complete it"
        };
        let mismatch = |found: String, declared: String| UploadError::Mismatch {
            bucket: upload.bucket.clone(),
            key: upload.key.clone(),
            found,
            declared,
            retry,
        };
        if found.len != upload.size {
            self.delete_object(upload).await;
            return Err(mismatch(
                format!("{} bytes", found.len),
                format!("{} bytes", upload.size),
            ));
        }
        let Some(declared) = &upload.sha256 else {
            return Ok(found.sha256.map(|h| crate::hex::encode(&h)));
        };
        let actual = match found.sha256 {
            Some(hash) => hash,
            // The store keeps no whole-object SHA-256 (a multipart object, or a store that
            // does not report checksums): the object is read back once to know.
            None => self.content.sha256_of(&upload.bucket, &upload.key).await?,
        };
        let actual = crate::hex::encode(&actual);
        if &actual != declared {
            self.delete_object(upload).await;
            return Err(mismatch(
                format!("SHA-256 {actual}"),
                format!("SHA-256 {declared}"),
            ));
        }
        Ok(Some(actual))
    }

    async fn delete_object(&self, upload: &PendingUpload) {
        if let Err(error) = self.content.delete(&upload.bucket, &upload.key).await {
            tracing::warn!(%error, key = %upload.key, "cannot delete an object that does not match its upload; it goes when the upload expires");
        }
    }
}

/// Whether a write signed in its URL may land at the embedded store's `bucket`/`key`: only
/// while an upload begun by `POST /files/uploads` is under way there (not completed, not
/// expired), and a part (`upload_id`) only of that upload's own multipart upload. Whoever
/// holds an upload's URL can do nothing else with it, and nothing once it is done.
pub async fn admits(
    files: &FilesDb,
    bucket: &str,
    key: &str,
    upload_id: Option<&str>,
    now: DateTime<Utc>,
) -> Result<bool, RepoError> {
    let upload = files.pending_upload(key.to_owned()).await?;
    Ok(upload.is_some_and(|upload| {
        upload.bucket == bucket
            && upload.upload_id.as_deref() == upload_id
            && upload.expires_at > now
    }))
}

/// The record the request describes, under a new key, checked.
fn checked_record(request: &UploadRequest) -> Result<NewFileRecord, UploadError> {
    if request.size > MAX_OBJECT_SIZE || request.size > MAX_SIZE {
        return Err(UploadError::TooLarge(request.size));
    }
    if let Some(content_type) = &request.content_type {
        let valid = !content_type.trim().is_empty()
            && content_type.chars().count() <= MAX_CONTENT_TYPE_CHARS
            && content_type
                .chars()
                .all(|c| c.is_ascii() && !c.is_control());
        if !valid {
            return Err(UploadError::Invalid(format!(
                "contentType must be a media type like image/png: printable ASCII, at most {MAX_CONTENT_TYPE_CHARS} characters, got '{}'",
                content_type.chars().take(80).collect::<String>()
            )));
        }
    }
    let sha256 = request
        .sha256
        .as_deref()
        .map(normalize_sha256)
        .transpose()?;
    let record = NewFileRecord {
        file_type: request
            .file_type
            .clone()
            .unwrap_or_else(|| file_type_of(&request.file_name, request.content_type.as_deref())),
        file_name: request.file_name.clone(),
        description: request.description.clone().unwrap_or_default(),
        bucket: request
            .bucket
            .clone()
            .unwrap_or_else(|| DEFAULT_BUCKET.to_owned()),
        status: request.status.unwrap_or(0),
        permission: request.permission.unwrap_or_default(),
        key: super::new_key().map_err(|e| UploadError::Random(e.to_string()))?,
        created_at: None,
        size: Some(request.size),
        sha256,
    };
    record.validate()?;
    Ok(record)
}

/// `configured`, raised (in whole MiB) when a file of `size` would need more than 10,000
/// parts of it.
fn part_size_for(size: u64, configured: u64) -> u64 {
    const MIB: u64 = 1024 * 1024;
    let least = size.div_ceil(u64::from(MAX_PARTS)).div_ceil(MIB) * MIB;
    configured.max(least)
}

/// Every part from 1 to the plan's count, once, sorted.
fn checked_parts(
    upload: &PendingUpload,
    mut parts: Vec<(u32, String)>,
) -> Result<Vec<(u32, String)>, UploadError> {
    let part_size = upload.part_size.unwrap_or(u64::MAX).max(1);
    let count = upload.size.div_ceil(part_size).max(1);
    parts.sort_by_key(|(n, _)| *n);
    let numbers_ok = parts.len() as u64 == count
        && parts
            .iter()
            .enumerate()
            .all(|(i, (n, etag))| u64::from(*n) == i as u64 + 1 && !etag.trim().is_empty());
    if !numbers_ok {
        return Err(UploadError::Parts(format!(
            "parts must list every part from 1 to {count} once, each with the ETag its PUT answered; got {} part(s)",
            parts.len()
        )));
    }
    Ok(parts)
}

fn not_arrived(upload: &PendingUpload) -> UploadError {
    UploadError::NotArrived {
        bucket: upload.bucket.clone(),
        key: upload.key.clone(),
    }
}

fn expired(upload: &PendingUpload) -> UploadError {
    UploadError::Expired {
        key: upload.key.clone(),
        at: crate::time::iso_millis(upload.expires_at),
    }
}

/// Aborts the upload's multipart upload at the store, if it has one.
async fn abort(content: &dyn ContentStore, upload: &PendingUpload) -> Result<(), UploadError> {
    let Some(upload_id) = &upload.upload_id else {
        return Ok(());
    };
    Ok(content
        .abort_multipart(&upload.bucket, &upload.key, upload_id)
        .await?)
}

/// What one expiry sweep removed or found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Expiry {
    /// Uploads never completed, aborted with their object or parts.
    pub uploads: usize,
    /// Multipart uploads of the embedded store that nobody kept (an S3 client's, or one
    /// whose keeping failed), older than the upload lifetime.
    pub store_uploads: usize,
    /// Objects found at the key of a completed upload whose record is gone (a replay of
    /// its URL after `DELETE /file`), deleted.
    pub orphans: usize,
    /// Objects of completed uploads written again since their completion (a replay of the
    /// URL at a store that ignored `If-None-Match`), reported and left in place.
    pub changed: usize,
}

/// What became of a completed upload's key while its URL was valid.
enum Aftermath {
    Clean,
    Orphan,
    Changed,
}

/// Sweeps the uploads that expired before `now` (minus a grace for other nodes' clocks).
/// One never completed has its multipart upload and its object removed at the store. A
/// completed one's URL has expired with it, so what is at its key now stays as it is: an
/// object there without a record (the record was deleted, and a replay of the URL brought
/// the object back) is deleted; an object written again since the completion (its ETag
/// changed) is reported. Then the upload is forgotten. One whose store cannot be reached
/// now stays for the next sweep.
pub async fn expire(
    files: &FilesDb,
    content: &dyn ContentStore,
    ttl: Duration,
    now: DateTime<Utc>,
) -> Result<Expiry, UploadError> {
    let grace = EXPIRY_GRACE.min(TimeDelta::from_std(ttl).unwrap_or(EXPIRY_GRACE));
    let mut expiry = Expiry::default();
    for upload in files.expired_uploads(now - grace, EXPIRY_BATCH).await? {
        let removed = match abort(content, &upload).await {
            Ok(()) => Ok(content.delete(&upload.bucket, &upload.key).await?),
            Err(e) => Err(e),
        };
        match removed {
            Ok(()) => {
                files.drop_upload(upload.key).await?;
                expiry.uploads += 1;
            }
            Err(error) => {
                tracing::warn!(%error, key = %upload.key, "cannot remove an expired upload; trying again at the next sweep")
            }
        }
    }
    for completed in files.expired_completions(now - grace, EXPIRY_BATCH).await? {
        match aftermath(files, content, &completed).await {
            Ok(found) => {
                files.drop_upload(completed.key).await?;
                match found {
                    Aftermath::Clean => {}
                    Aftermath::Orphan => expiry.orphans += 1,
                    Aftermath::Changed => expiry.changed += 1,
                }
            }
            Err(error) => {
                tracing::warn!(%error, key = %completed.key, "cannot check the key of a completed upload whose URL expired; trying again at the next sweep")
            }
        }
    }
    let cutoff = now - TimeDelta::from_std(ttl).unwrap_or(TimeDelta::MAX) - grace;
    expiry.store_uploads = content.sweep_multipart(cutoff).await?;
    Ok(expiry)
}

/// Checks the key of a completed upload whose URL has expired (see `expire`). Deleting the
/// object of a record is never done here: an object written again is the user's data now
/// (perhaps the same file sent twice), and the record keeps the SHA-256 its completion
/// checked, so a client that verifies a download against it notices; the log says which
/// key, and the operator decides.
async fn aftermath(
    files: &FilesDb,
    content: &dyn ContentStore,
    upload: &CompletedUpload,
) -> Result<Aftermath, UploadError> {
    let record = files
        .get_by_key_uncached(upload.key.clone())
        .await?
        .filter(|record| record.bucket == upload.bucket);
    let Some(Found { len, etag, .. }) = content.stat(&upload.bucket, &upload.key).await? else {
        return Ok(Aftermath::Clean);
    };
    let Some(record) = record else {
        content.delete(&upload.bucket, &upload.key).await?;
        tracing::warn!(
            bucket = %upload.bucket,
            key = %upload.key,
            "deleted an object that came back without a record after its upload completed (a replay of the upload's URL after DELETE /file)"
        );
        return Ok(Aftermath::Orphan);
    };
    let other_size = record.size.is_some_and(|size| size != len);
    let other_etag = matches!((&upload.etag, &etag), (Some(then), Some(now)) if then != now);
    if !(other_size || other_etag) {
        return Ok(Aftermath::Clean);
    }
    tracing::error!(
        bucket = %upload.bucket,
        key = %upload.key,
        size = len,
        record_size = record.size,
        etag = etag.as_deref().unwrap_or(""),
        completed_etag = upload.etag.as_deref().unwrap_or(""),
        record_sha256 = record.sha256.as_deref().unwrap_or(""),
        "the object of a record was written again after its upload completed (a replay of the upload's URL at a store that ignores If-None-Match?): the record keeps the SHA-256 its completion checked; the object is left in place, check it"
    );
    Ok(Aftermath::Changed)
}

/// Sweeps expired uploads while the daemon runs: at start, then every half lifetime (at
/// least every second, at most every minute), with the settings in force.
pub fn spawn_expiry(
    files: FilesDb,
    content: ContentHandle,
    config: ConfigHandle,
    shutdown: Shutdown,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let settings = config.settings();
            let ttl = Duration::from_secs(settings.files.upload_ttl_secs);
            // With no store to upload to, no upload can have begun.
            if let Ok(store) = content.current()
                && store.writable().is_ok()
            {
                match expire(&files, &*store, ttl, Utc::now()).await {
                    Ok(expiry) if expiry.uploads + expiry.store_uploads > 0 => tracing::info!(
                        uploads = expiry.uploads,
                        store_uploads = expiry.store_uploads,
                        orphans = expiry.orphans,
                        "expired uploads removed"
                    ),
                    Ok(_) => {}
                    Err(error) => tracing::warn!(%error, "cannot sweep expired uploads"),
                }
            }
            let every = (ttl / 2).clamp(Duration::from_secs(1), Duration::from_secs(60));
            tokio::select! {
                () = shutdown.wait() => return,
                () = tokio::time::sleep(every) => {}
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_size_grows_only_when_ten_thousand_parts_would_not_do() {
        const MIB: u64 = 1024 * 1024;
        assert_eq!(part_size_for(6 * 1024 * MIB, 64 * MIB), 64 * MIB);
        assert_eq!(part_size_for(10_000 * 64 * MIB, 64 * MIB), 64 * MIB);
        let size = 10_000 * 64 * MIB + 1;
        let grown = part_size_for(size, 64 * MIB);
        assert_eq!(grown, 65 * MIB);
        assert!(size.div_ceil(grown) <= 10_000);
        let most = part_size_for(MAX_OBJECT_SIZE, 5 * MIB);
        assert!(MAX_OBJECT_SIZE.div_ceil(most) <= 10_000);
        assert!(most <= 5 * 1024 * MIB);
    }

    fn pending(size: u64, part_size: u64) -> PendingUpload {
        PendingUpload {
            key: "k".into(),
            bucket: "bkt".into(),
            file_name: "f".into(),
            description: String::new(),
            status: 0,
            file_type: "bin".into(),
            permission: Permission::Public,
            size,
            sha256: None,
            content_type: None,
            upload_id: Some("id".into()),
            part_size: Some(part_size),
            created_at: Utc::now(),
            expires_at: Utc::now(),
        }
    }

    #[test]
    fn parts_must_cover_the_plan_once() {
        let upload = pending(25, 10);
        let parts = |numbers: &[u32]| -> Vec<(u32, String)> {
            numbers.iter().map(|n| (*n, format!("e{n}"))).collect()
        };
        assert_eq!(
            checked_parts(&upload, parts(&[3, 1, 2])).unwrap(),
            parts(&[1, 2, 3])
        );
        for bad in [
            &[1, 2][..],
            &[1, 2, 3, 4],
            &[1, 1, 3],
            &[0, 1, 2],
            &[2, 3, 4],
        ] {
            assert_eq!(
                checked_parts(&upload, parts(bad)).unwrap_err().to_string(),
                format!(
                    "parts must list every part from 1 to 3 once, each with the ETag its PUT answered; got {} part(s)",
                    bad.len()
                )
            );
        }
        assert!(
            checked_parts(
                &upload,
                vec![(1, "a".into()), (2, " ".into()), (3, "c".into())]
            )
            .is_err()
        );
    }

    #[test]
    fn requests_are_checked_and_name_the_field() {
        let request = UploadRequest {
            file_name: "photo.JPG".into(),
            size: 5,
            ..UploadRequest::default()
        };
        let record = checked_record(&request).unwrap();
        assert_eq!(
            (
                record.bucket.as_str(),
                record.file_type.as_str(),
                record.size
            ),
            (DEFAULT_BUCKET, "jpg", Some(5))
        );
        assert!(super::super::is_new_key_shape(&record.key));
        let error = |change: fn(&mut UploadRequest)| {
            let mut r = request.clone();
            change(&mut r);
            checked_record(&r).unwrap_err().to_string()
        };
        assert_eq!(
            error(|r| r.size = MAX_OBJECT_SIZE + 1),
            "size must be at most 5497558138880 bytes (5 TiB, S3's largest object), got 5497558138881"
        );
        assert_eq!(error(|r| r.file_name.clear()), "fileName is required");
        assert_eq!(
            error(|r| r.sha256 = Some("xyz".into())),
            "sha256 must be 64 hexadecimal digits (the SHA-256 of the content), got 'xyz'"
        );
        assert!(
            error(|r| r.content_type = Some("text/plain\r\nX: y".into()))
                .starts_with("contentType must be")
        );
        assert!(error(|r| r.bucket = Some("No_Such".into())).starts_with("bucket must be"));
    }
}
