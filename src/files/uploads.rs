//! Direct uploads (SPEC §13): the bytes go from the client straight to the object store
//! (the S3 endpoint, or the embedded store), never through a node. `begin` keeps the upload
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
use super::s3::{S3Error, S3Objects};
use super::writes::file_type_of;
use super::{DEFAULT_BUCKET, FilesDb, NewFileRecord, RepoError};
use crate::config::ConfigHandle;
use crate::config::settings::{Files, Signing};
use crate::objects::checksums::{base64, reader_digest};
use crate::objects::multipart::{MAX_PARTS, MultipartError};
use crate::objects::{ObjectError, ObjectStore};
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
    #[error("the object store refused the parts: {code}: {message}")]
    PartsRefused { code: String, message: String },
    #[error("uploads need the embedded object store, which is off: set objects.enabled = true")]
    NoObjectStore,
    #[error(transparent)]
    S3(#[from] S3Error),
    #[error(transparent)]
    Object(#[from] ObjectError),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(transparent)]
    Signing(#[from] SigningError),
    #[error("no randomness for a new key: {0}")]
    Random(String),
    #[error("the {0} task failed: {1}")]
    Task(&'static str, String),
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

/// Where the objects of uploads go: the S3 endpoint when `signing.endpoint` is set (where
/// signed URLs point), else the embedded store.
#[derive(Clone)]
pub enum Destination {
    Embedded(Arc<ObjectStore>),
    S3(S3Objects),
}

impl Destination {
    pub fn from_settings(
        objects: Option<Arc<ObjectStore>>,
        signing: &Signing,
    ) -> Result<Destination, UploadError> {
        match S3Objects::from_settings(signing)? {
            Some(s3) => Ok(Destination::S3(s3)),
            None => objects
                .map(Destination::Embedded)
                .ok_or(UploadError::NoObjectStore),
        }
    }
}

/// Direct uploads under one configuration.
pub struct DirectUploads {
    files: FilesDb,
    destination: Destination,
    /// Signs for the destination (the daemon's signer of the settings in force).
    signer: Arc<Signer>,
    limits: Files,
}

impl DirectUploads {
    pub fn new(
        files: FilesDb,
        destination: Destination,
        signer: Arc<Signer>,
        limits: &Files,
    ) -> DirectUploads {
        DirectUploads {
            files,
            destination,
            signer,
            limits: limits.clone(),
        }
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
        let upload_id = match &self.destination {
            Destination::S3(s3) => {
                s3.create_multipart(&upload.bucket, &upload.key, upload.content_type.as_deref())
                    .await?
            }
            Destination::Embedded(store) => {
                let (store, bucket, key) =
                    (store.clone(), upload.bucket.clone(), upload.key.clone());
                blocking("multipart upload", move || {
                    Ok(store.create_multipart(&bucket, &key, now)?)
                })
                .await?
            }
        };
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
            if let Err(error) = abort_at(&self.destination, &upload).await {
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
        let _gate = match &self.destination {
            Destination::Embedded(store) => Some(store.gate(&upload.bucket, &upload.key).await),
            Destination::S3(_) => None,
        };
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
        match &self.destination {
            Destination::S3(s3) => {
                let head = s3.head(&upload.bucket, &upload.key).await?;
                let head = head.ok_or_else(|| not_arrived(upload))?;
                Ok(Found {
                    len: head.len,
                    sha256: head.sha256.as_deref().and_then(full_object_sha256),
                    etag: head.etag,
                })
            }
            Destination::Embedded(store) => {
                let (store, bucket, key) =
                    (store.clone(), upload.bucket.clone(), upload.key.clone());
                let digest = blocking("object check", move || {
                    // The file opened once: its ETag and its bytes are of the same object.
                    let object = match store.open_object(&bucket, &key) {
                        Ok(object) => object,
                        Err(ObjectError::NotFound { .. }) => return Ok(None),
                        Err(e) => return Err(e.into()),
                    };
                    let path = store.path_of(&bucket, &key)?;
                    let (len, sha256) = reader_digest(object.file, &path)?;
                    Ok(Some((len, sha256, object.meta.etag)))
                })
                .await?;
                let (len, sha256, etag) = digest.ok_or_else(|| not_arrived(upload))?;
                Ok(Found {
                    len,
                    sha256: Some(sha256),
                    etag: Some(etag),
                })
            }
        }
    }

    /// Completes the multipart upload at the store; what it made.
    async fn assemble(
        &self,
        upload: &PendingUpload,
        upload_id: &str,
        parts: &[(u32, String)],
    ) -> Result<Found, UploadError> {
        match &self.destination {
            Destination::S3(s3) => {
                match s3
                    .complete_multipart(&upload.bucket, &upload.key, upload_id, parts)
                    .await
                {
                    Ok(()) => {}
                    // Completed by an earlier try whose record was not written: the
                    // object is there to be checked.
                    Err(S3Error::Refused { ref code, .. }) if code == "NoSuchUpload" => {}
                    Err(S3Error::Refused { code, .. }) if is_parts_code(&code) => {
                        return Err(UploadError::PartsRefused {
                            message: parts_message(&code).into(),
                            code,
                        });
                    }
                    Err(e) => return Err(e.into()),
                }
                self.arrived(upload).await
            }
            Destination::Embedded(store) => {
                let (store, bucket, key, id, list) = (
                    store.clone(),
                    upload.bucket.clone(),
                    upload.key.clone(),
                    upload_id.to_owned(),
                    parts.to_vec(),
                );
                let completed = blocking("multipart completion", move || {
                    match store.complete_multipart(&bucket, &key, &id, &list) {
                        Ok(completed) => Ok(Some(completed)),
                        Err(MultipartError::NoSuchUpload) => Ok(None),
                        Err(MultipartError::Object(e)) => Err(e.into()),
                        Err(e) => Err(UploadError::PartsRefused {
                            code: e.s3_code().to_owned(),
                            message: e.to_string(),
                        }),
                    }
                })
                .await?;
                match completed {
                    Some(completed) => Ok(Found {
                        len: completed.meta.len,
                        sha256: Some(completed.sha256),
                        etag: Some(completed.meta.etag),
                    }),
                    None => self.arrived(upload).await,
                }
            }
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
        let actual = match (found.sha256, &self.destination) {
            (Some(hash), _) => hash,
            // The store keeps no whole-object SHA-256 (a multipart object, or a store that
            // does not report checksums): the object is read back once to know.
            (None, Destination::S3(s3)) => s3.sha256_of(&upload.bucket, &upload.key).await?,
            // The embedded store hashes every object it checks (`arrived`, `assemble`).
            (None, Destination::Embedded(_)) => {
                return Err(UploadError::Task(
                    "object check",
                    "the embedded store gave no SHA-256".into(),
                ));
            }
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
        if let Err(error) = delete_at(&self.destination, &upload.bucket, &upload.key).await {
            tracing::warn!(%error, key = %upload.key, "cannot delete an object that does not match its upload; it goes when the upload expires");
        }
    }
}

/// What the store holds at an upload's place.
struct Found {
    len: u64,
    /// The whole object's SHA-256, when the store knows it.
    sha256: Option<[u8; 32]>,
    /// The store's ETag of it, when given: kept with the completed upload, so that the
    /// expiry sweep sees whether the object was written again since.
    etag: Option<String>,
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

/// A store's `x-amz-checksum-sha256` when it is the whole object's (a multipart one's is a
/// checksum of the parts' checksums, `…-N`).
fn full_object_sha256(value: &str) -> Option<[u8; 32]> {
    use base64::Engine as _;
    if value.contains('-') {
        return None;
    }
    base64::engine::general_purpose::STANDARD
        .decode(value.trim())
        .ok()?
        .try_into()
        .ok()
}

fn is_parts_code(code: &str) -> bool {
    matches!(
        code,
        "InvalidPart" | "InvalidPartOrder" | "EntityTooSmall" | "MalformedXML"
    )
}

fn parts_message(code: &str) -> &'static str {
    match code {
        "InvalidPart" => {
            "a part is missing or its ETag is not the one its PUT answered: send every part, then complete with their ETags"
        }
        "EntityTooSmall" => "every part but the last must be at least 5 MiB",
        _ => "the part list was not accepted",
    }
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

async fn delete_at(destination: &Destination, bucket: &str, key: &str) -> Result<(), UploadError> {
    match destination {
        Destination::S3(s3) => Ok(s3.delete(bucket, key).await?),
        Destination::Embedded(store) => {
            let (store, bucket, key) = (store.clone(), bucket.to_owned(), key.to_owned());
            blocking("object delete", move || match store.delete(&bucket, &key) {
                Ok(()) | Err(ObjectError::NotFound { .. }) => Ok(()),
                Err(e) => Err(e.into()),
            })
            .await
        }
    }
}

async fn abort_at(destination: &Destination, upload: &PendingUpload) -> Result<(), UploadError> {
    let Some(upload_id) = &upload.upload_id else {
        return Ok(());
    };
    match destination {
        Destination::S3(s3) => Ok(s3
            .abort_multipart(&upload.bucket, &upload.key, upload_id)
            .await?),
        Destination::Embedded(store) => {
            let (store, bucket, key, id) = (
                store.clone(),
                upload.bucket.clone(),
                upload.key.clone(),
                upload_id.clone(),
            );
            blocking("multipart abort", move || {
                match store.abort_multipart(&bucket, &key, &id) {
                    Ok(()) | Err(MultipartError::NoSuchUpload) => Ok(()),
                    Err(MultipartError::Object(e)) => Err(e.into()),
                    Err(e) => Err(UploadError::Task("multipart abort", e.to_string())),
                }
            })
            .await
        }
    }
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
    destination: &Destination,
    ttl: Duration,
    now: DateTime<Utc>,
) -> Result<Expiry, UploadError> {
    let grace = EXPIRY_GRACE.min(TimeDelta::from_std(ttl).unwrap_or(EXPIRY_GRACE));
    let mut expiry = Expiry::default();
    for upload in files.expired_uploads(now - grace, EXPIRY_BATCH).await? {
        let removed = match abort_at(destination, &upload).await {
            Ok(()) => delete_at(destination, &upload.bucket, &upload.key).await,
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
        match aftermath(files, destination, &completed).await {
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
    if let Destination::Embedded(store) = destination {
        let store = store.clone();
        let cutoff = now - TimeDelta::from_std(ttl).unwrap_or(TimeDelta::MAX) - grace;
        expiry.store_uploads = blocking("multipart sweep", move || {
            Ok(store.abort_multipart_older_than(cutoff))
        })
        .await?;
    }
    Ok(expiry)
}

/// Checks the key of a completed upload whose URL has expired (see `expire`). Deleting the
/// object of a record is never done here: an object written again is the user's data now
/// (perhaps the same file sent twice), and the record keeps the SHA-256 its completion
/// checked, so a client that verifies a download against it notices; the log says which
/// key, and the operator decides.
async fn aftermath(
    files: &FilesDb,
    destination: &Destination,
    upload: &CompletedUpload,
) -> Result<Aftermath, UploadError> {
    let record = files
        .get_by_key_uncached(upload.key.clone())
        .await?
        .filter(|record| record.bucket == upload.bucket);
    let Some((len, etag)) = head_at(destination, &upload.bucket, &upload.key).await? else {
        return Ok(Aftermath::Clean);
    };
    let Some(record) = record else {
        delete_at(destination, &upload.bucket, &upload.key).await?;
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

/// The length and ETag of what is at `bucket`/`key`; `None` when nothing is.
async fn head_at(
    destination: &Destination,
    bucket: &str,
    key: &str,
) -> Result<Option<(u64, Option<String>)>, UploadError> {
    match destination {
        Destination::S3(s3) => Ok(s3
            .head(bucket, key)
            .await?
            .map(|head| (head.len, head.etag))),
        Destination::Embedded(store) => {
            let (store, bucket, key) = (store.clone(), bucket.to_owned(), key.to_owned());
            blocking("object check", move || match store.stat(&bucket, &key) {
                Ok(meta) => Ok(Some((meta.len, Some(meta.etag)))),
                Err(ObjectError::NotFound { .. }) => Ok(None),
                Err(e) => Err(e.into()),
            })
            .await
        }
    }
}

/// Sweeps expired uploads while the daemon runs: at start, then every half lifetime (at
/// least every second, at most every minute), with the settings in force.
pub fn spawn_expiry(
    files: FilesDb,
    objects: Option<Arc<ObjectStore>>,
    config: ConfigHandle,
    shutdown: Shutdown,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let settings = config.settings();
            let ttl = Duration::from_secs(settings.files.upload_ttl_secs);
            // With no store to upload to, no upload can have begun.
            if let Ok(destination) = Destination::from_settings(objects.clone(), &settings.signing)
            {
                match expire(&files, &destination, ttl, Utc::now()).await {
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

async fn blocking<T: Send + 'static>(
    what: &'static str,
    work: impl FnOnce() -> Result<T, UploadError> + Send + 'static,
) -> Result<T, UploadError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| UploadError::Task(what, e.to_string()))?
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

    #[test]
    fn only_a_whole_object_checksum_is_taken() {
        let hello = "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=";
        assert!(full_object_sha256(hello).is_some());
        assert_eq!(full_object_sha256(&format!("{hello}-3")), None);
        assert_eq!(full_object_sha256("short"), None);
    }
}
