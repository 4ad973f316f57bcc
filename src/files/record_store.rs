//! The one trait every backend of the file records implements (SQLite in `sqlite`,
//! PostgreSQL in `postgres`), alone: the backends import it, and `store` picks among them,
//! so no import runs both ways.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use tokio::sync::Notify;

use super::error::RepoError;
use super::names::NameIndex;
use super::pending::{CompletedUpload, PendingUpload};
use super::query::{ListQuery, Page};
use super::record::{FileRecord, NewFileRecord, Permission};
use crate::shutdown::Shutdown;

/// What a backend of the file records answers. Every backend gives the same answers to
/// the same calls: the shared suite in `repo/tests.rs` runs against each.
pub trait RecordStore: Send + Sync + 'static {
    /// For `/health`: `sqlite` or `postgres`.
    fn kind(&self) -> &'static str;
    fn insert(&self, new: NewFileRecord) -> BoxFuture<'_, Result<FileRecord, RepoError>>;
    /// All or nothing.
    fn insert_many(&self, records: Vec<NewFileRecord>) -> BoxFuture<'_, Result<usize, RepoError>>;
    fn get_by_key(&self, key: String) -> BoxFuture<'_, Result<Option<FileRecord>, RepoError>>;
    /// All or nothing, for `depot files import`: the backend's fastest load (COPY on
    /// PostgreSQL); by default `insert_many`.
    fn bulk_insert(&self, records: Vec<NewFileRecord>) -> BoxFuture<'_, Result<usize, RepoError>> {
        self.insert_many(records)
    }
    fn delete_by_key(&self, key: String) -> BoxFuture<'_, Result<FileRecord, RepoError>>;
    /// Every record's id, permission and name, in list order (see `names`).
    fn name_index(&self) -> BoxFuture<'_, Result<NameIndex, RepoError>>;
    /// The records with these ids, in this order (ids of no record are left out).
    fn get_by_ids(&self, ids: Vec<i64>) -> BoxFuture<'_, Result<Vec<FileRecord>, RepoError>>;
    fn count(&self, permission: Option<Permission>) -> BoxFuture<'_, Result<u64, RepoError>>;
    fn list(
        &self,
        query: ListQuery,
        include_private: bool,
    ) -> BoxFuture<'_, Result<Page, RepoError>>;
    /// Keeps an upload handed out (SPEC §13); its key already under way is a `Conflict`.
    fn open_upload(&self, upload: PendingUpload) -> BoxFuture<'_, Result<(), RepoError>>;
    /// The upload of `key` not completed yet (expired or not).
    fn pending_upload(
        &self,
        key: String,
    ) -> BoxFuture<'_, Result<Option<PendingUpload>, RepoError>>;
    /// In one transaction: ends the upload of `key` if it is under way and not expired at
    /// `now` (else `UploadGone`), keeps it as completed with the `etag` of the object
    /// checked until it expires, and writes `record`.
    fn complete_upload(
        &self,
        key: String,
        record: NewFileRecord,
        etag: Option<String>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> BoxFuture<'_, Result<FileRecord, RepoError>>;
    /// Uploads under way that expired at or before `before`, oldest first, at most `limit`.
    fn expired_uploads(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<PendingUpload>, RepoError>>;
    /// Completed uploads that expired at or before `before`, oldest first, at most `limit`.
    fn expired_completions(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<CompletedUpload>, RepoError>>;
    /// Forgets an upload, under way or completed; whether there was one.
    fn drop_upload(&self, key: String) -> BoxFuture<'_, Result<bool, RepoError>>;
    /// A value that changes whenever anyone (this process or another) commits a write.
    fn change_marker(&self) -> BoxFuture<'_, Result<i64, RepoError>>;
    /// Wakes `wake` as soon as another process may have written, until `shutdown`
    /// (PostgreSQL's LISTEN); the change marker's poll is the fallback, and all SQLite has.
    fn watch(&self, wake: Arc<Notify>, shutdown: Shutdown) {
        let _ = (wake, shutdown);
    }
}
