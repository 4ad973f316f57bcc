//! `SqliteStore`: the SQLite backend of the file records. One writer connection and a few
//! reader connections (WAL lets reads run beside a write), each behind a std mutex; every
//! call runs on tokio's blocking pool so SQLite never stalls an async thread.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::future::BoxFuture;
use tokio::sync::Semaphore;

use super::names::NameIndex;
use super::record_store::RecordStore;

use super::error::RepoError;
use super::pending::{CompletedUpload, PendingUpload};
use super::query::{ListQuery, Page};
use super::record::{FileRecord, NewFileRecord, Permission};
use super::repo::FilesRepo;

/// Upper bound on reader connections, whatever the core count.
const MAX_READERS: usize = 8;

/// The SQLite backend: one writer, a few readers and a watcher connection.
pub struct SqliteStore {
    inner: Arc<Inner>,
}

struct Inner {
    writer: Mutex<FilesRepo>,
    readers: Vec<Mutex<FilesRepo>>,
    /// One permit per reader: a read waits here (asynchronously) until a connection is
    /// free, instead of parking a blocking-pool thread on a connection's mutex — under
    /// load that parking and waking costs more than the query.
    free_readers: Arc<Semaphore>,
    next_reader: AtomicUsize,
    /// Its own connection: `data_version` changes when *another* connection commits, so
    /// it must never be one of the readers (or the writer).
    watcher: Arc<Mutex<FilesRepo>>,
}

impl SqliteStore {
    /// Opens and migrates the database, with one reader per core (at most 8).
    /// Blocking: call it at start-up, before serving.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, RepoError> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::open_with_readers(path, cores.min(MAX_READERS))
    }

    pub fn open_with_readers(
        path: impl AsRef<Path>,
        readers: usize,
    ) -> Result<SqliteStore, RepoError> {
        let path = path.as_ref();
        // The writer migrates first, so readers always see the latest schema.
        let writer = FilesRepo::open(path)?;
        let readers = (0..readers.max(1))
            .map(|_| FilesRepo::open_reader(path).map(Mutex::new))
            .collect::<Result<Vec<_>, _>>()?;
        let watcher = Arc::new(Mutex::new(FilesRepo::open_reader(path)?));
        Ok(SqliteStore {
            inner: Arc::new(Inner {
                writer: Mutex::new(writer),
                free_readers: Arc::new(Semaphore::new(readers.len())),
                readers,
                next_reader: AtomicUsize::new(0),
                watcher,
            }),
        })
    }

    async fn read<T, F>(&self, f: F) -> Result<T, RepoError>
    where
        T: Send + 'static,
        F: FnOnce(&mut FilesRepo) -> Result<T, RepoError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        let permit = Arc::clone(&inner.free_readers)
            .acquire_owned()
            .await
            .map_err(|_| RepoError::Task)?;
        tokio::task::spawn_blocking(move || {
            let result = f(&mut inner.reader());
            drop(permit);
            result
        })
        .await
        .map_err(|_| RepoError::Task)?
    }

    async fn write<T, F>(&self, f: F) -> Result<T, RepoError>
    where
        T: Send + 'static,
        F: FnOnce(&mut FilesRepo) -> Result<T, RepoError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || f(&mut lock(&inner.writer)))
            .await
            .map_err(|_| RepoError::Task)?
    }
}

impl RecordStore for SqliteStore {
    fn kind(&self) -> &'static str {
        "sqlite"
    }

    fn insert(&self, new: NewFileRecord) -> BoxFuture<'_, Result<FileRecord, RepoError>> {
        Box::pin(self.write(move |repo| repo.insert(new)))
    }

    fn insert_many(&self, records: Vec<NewFileRecord>) -> BoxFuture<'_, Result<usize, RepoError>> {
        Box::pin(self.write(move |repo| repo.insert_many(records)))
    }

    fn get_by_key(&self, key: String) -> BoxFuture<'_, Result<Option<FileRecord>, RepoError>> {
        Box::pin(self.read(move |repo| repo.get_by_key(&key)))
    }

    fn delete_by_key(&self, key: String) -> BoxFuture<'_, Result<FileRecord, RepoError>> {
        Box::pin(self.write(move |repo| repo.delete_by_key(&key)))
    }

    fn name_index(&self) -> BoxFuture<'_, Result<NameIndex, RepoError>> {
        Box::pin(self.read(|repo| repo.name_index()))
    }

    fn get_by_ids(&self, ids: Vec<i64>) -> BoxFuture<'_, Result<Vec<FileRecord>, RepoError>> {
        Box::pin(self.read(move |repo| repo.get_by_ids(&ids)))
    }

    fn count(&self, permission: Option<Permission>) -> BoxFuture<'_, Result<u64, RepoError>> {
        Box::pin(self.read(move |repo| repo.count(permission)))
    }

    fn list(
        &self,
        query: ListQuery,
        include_private: bool,
    ) -> BoxFuture<'_, Result<Page, RepoError>> {
        Box::pin(self.read(move |repo| repo.list(&query, include_private)))
    }

    fn open_upload(&self, upload: PendingUpload) -> BoxFuture<'_, Result<(), RepoError>> {
        Box::pin(self.write(move |repo| repo.open_upload(&upload)))
    }

    fn pending_upload(
        &self,
        key: String,
    ) -> BoxFuture<'_, Result<Option<PendingUpload>, RepoError>> {
        Box::pin(self.read(move |repo| repo.pending_upload(&key)))
    }

    fn complete_upload(
        &self,
        key: String,
        record: NewFileRecord,
        etag: Option<String>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> BoxFuture<'_, Result<FileRecord, RepoError>> {
        Box::pin(self.write(move |repo| repo.complete_upload(&key, record, etag.as_deref(), now)))
    }

    fn expired_uploads(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<PendingUpload>, RepoError>> {
        Box::pin(self.read(move |repo| repo.expired_uploads(before, limit)))
    }

    fn expired_completions(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<CompletedUpload>, RepoError>> {
        Box::pin(self.read(move |repo| repo.expired_completions(before, limit)))
    }

    fn drop_upload(&self, key: String) -> BoxFuture<'_, Result<bool, RepoError>> {
        Box::pin(self.write(move |repo| repo.drop_upload(&key)))
    }

    fn change_marker(&self) -> BoxFuture<'_, Result<i64, RepoError>> {
        let watcher = Arc::clone(&self.inner.watcher);
        Box::pin(async move {
            tokio::task::spawn_blocking(move || lock(&watcher).data_version())
                .await
                .map_err(|_| RepoError::Task)?
        })
    }
}

impl Inner {
    /// The first free reader starting from a rotating position; if all are busy, wait
    /// for the one at that position.
    fn reader(&self) -> MutexGuard<'_, FilesRepo> {
        let n = self.readers.len();
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed) % n;
        for i in 0..n {
            if let Ok(guard) = self.readers[(start + i) % n].try_lock() {
                return guard;
            }
        }
        lock(&self.readers[start])
    }
}

/// A panic while a connection was held rolled its transaction back (the guard dropped
/// it), so the connection is still sound: keep using it rather than failing forever.
fn lock(m: &Mutex<FilesRepo>) -> MutexGuard<'_, FilesRepo> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::record::Permission;

    fn new_record(i: u32, permission: Permission) -> NewFileRecord {
        NewFileRecord {
            file_name: format!("file-{i}.txt"),
            description: String::new(),
            bucket: "depot-files".into(),
            status: 0,
            file_type: "txt".into(),
            permission,
            key: format!("00000000-0000-4000-8000-{i:012}"),
            created_at: None,
            size: None,
            sha256: None,
        }
    }

    use crate::files::FilesDb;

    fn assert_send_sync_clone<T: Send + Sync + Clone>() {}

    #[test]
    fn handle_is_send_sync_clone() {
        assert_send_sync_clone::<FilesDb>();
    }

    #[tokio::test(flavor = "current_thread")]
    async fn async_methods_mirror_the_repo() {
        let dir = tempfile::tempdir().unwrap();
        let db = FilesDb::open_with_readers(dir.path().join("sub/files.sqlite3"), 2).unwrap();
        let first = db.insert(new_record(1, Permission::Public)).await.unwrap();
        assert_eq!(first.id, 1);
        assert_eq!(
            db.insert_many(vec![
                new_record(2, Permission::Private),
                new_record(3, Permission::Public)
            ])
            .await
            .unwrap(),
            2
        );
        assert_eq!(db.count(None).await.unwrap(), 3);
        assert_eq!(db.count(Some(Permission::Private)).await.unwrap(), 1);
        let page = db.list(ListQuery::default(), false).await.unwrap();
        assert_eq!(page.total, 2);
        assert_eq!(
            page.records.iter().map(|r| r.id).collect::<Vec<_>>(),
            vec![3, 1]
        );
        let got = db.get_by_key(first.key.clone()).await.unwrap();
        assert_eq!(got, Some(first.clone()));
        assert_eq!(db.delete_by_key(first.key.clone()).await.unwrap(), first);
        assert_eq!(db.get_by_key(first.key.clone()).await.unwrap(), None);
        assert_eq!(
            db.delete_by_key(first.key.clone())
                .await
                .unwrap_err()
                .to_string(),
            format!("no file record has key '{}'", first.key)
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn readers_see_writes_from_the_writer_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let db = FilesDb::open_with_readers(dir.path().join("files.sqlite3"), 3).unwrap();
        for i in 0..6 {
            db.insert(new_record(i, Permission::Public)).await.unwrap();
            // Each call may land on another reader; all must see every committed write.
            assert_eq!(db.count(None).await.unwrap(), u64::from(i) + 1);
        }
    }

    #[test]
    fn readers_refuse_a_database_that_is_not_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("files.sqlite3");
        rusqlite::Connection::open(&path).unwrap();
        let err = FilesRepo::open_reader(&path).err().unwrap();
        assert_eq!(
            err.to_string(),
            "the files database has schema version 0, expected 5; restart depot"
        );
    }
}
