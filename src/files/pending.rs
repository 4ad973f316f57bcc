//! An upload handed out by `POST /files/uploads` and not completed yet: what the record will
//! say once its object has arrived and been checked, where the object goes, and when the
//! upload (and its URL) expires. Every backend keeps these beside the records (table
//! `uploads`), so that any node can complete an upload another node began, and expiry finds
//! every one. A completed upload is kept until it expires as a `CompletedUpload` (table
//! `completed_uploads`): its URL is valid until then, so the expiry sweep checks what a
//! replay of it may have left at the key (see `files::uploads::expire`).

use chrono::{DateTime, Utc};

use super::record::{NewFileRecord, Permission};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingUpload {
    /// The record's key to be, and the object's.
    pub key: String,
    pub bucket: String,
    pub file_name: String,
    pub description: String,
    pub status: i64,
    pub file_type: String,
    pub permission: Permission,
    /// Declared bytes; the object must have exactly these.
    pub size: u64,
    /// Declared lowercase hex SHA-256, when the client gave one.
    pub sha256: Option<String>,
    /// The `Content-Type` the PUT must carry (signed), when the client gave one.
    pub content_type: Option<String>,
    /// The multipart upload's id at the store; `None` for one PUT.
    pub upload_id: Option<String>,
    /// The size of every part but the last, for a multipart upload.
    pub part_size: Option<u64>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// An upload completed into its record, kept until its URL expires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletedUpload {
    pub key: String,
    pub bucket: String,
    /// The store's ETag of the object the completion checked, when the store gave one.
    pub etag: Option<String>,
    pub completed_at: DateTime<Utc>,
    /// The upload's, and so its URL's, expiry.
    pub expires_at: DateTime<Utc>,
}

impl PendingUpload {
    /// The record this upload becomes, with what the check of its object found.
    pub fn record(&self, size: u64, sha256: Option<String>) -> NewFileRecord {
        NewFileRecord {
            file_name: self.file_name.clone(),
            description: self.description.clone(),
            bucket: self.bucket.clone(),
            status: self.status,
            file_type: self.file_type.clone(),
            permission: self.permission,
            key: self.key.clone(),
            created_at: None,
            size: Some(size),
            sha256,
        }
    }
}
