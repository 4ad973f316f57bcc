//! The one trait every backend of the file records implements (SQLite, PostgreSQL), the
//! one place that picks the backend from the settings, and `FilesDb`: the handle the HTTP
//! layer shares (Clone, Send, Sync), holding the node's read cache above the backend.

use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use futures_util::future::BoxFuture;
use tokio::sync::Notify;

use super::cache::ReadCache;
use super::pool::{EXTERNAL_WRITE_POLL, SqliteStore};
use super::postgres::PgStore;
use super::query::ListQuery;
use super::record::{FileRecord, NewFileRecord, Permission};
use super::repo::{Page, RepoError};
use crate::config::settings::Database;
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
    fn count(&self, permission: Option<Permission>) -> BoxFuture<'_, Result<u64, RepoError>>;
    fn list(
        &self,
        query: ListQuery,
        include_private: bool,
    ) -> BoxFuture<'_, Result<Page, RepoError>>;
    /// A value that changes whenever anyone (this process or another) commits a write.
    fn change_marker(&self) -> BoxFuture<'_, Result<i64, RepoError>>;
    /// Wakes `wake` as soon as another process may have written, until `shutdown`
    /// (PostgreSQL's LISTEN); the change marker's poll is the fallback, and all SQLite has.
    fn watch(&self, wake: Arc<Notify>, shutdown: Shutdown) {
        let _ = (wake, shutdown);
    }
}

#[derive(Clone)]
pub struct FilesDb {
    store: Arc<dyn RecordStore>,
    /// Read results, once the daemon enables caching (see `enable_read_cache`).
    cache: Arc<OnceLock<Arc<ReadCache>>>,
    /// The last error of the change watch (None: the backend answered), for `/health`.
    last_error: Arc<Mutex<Option<String>>>,
}

impl FilesDb {
    /// The backend the settings name: PostgreSQL when `database.url` is set, else SQLite
    /// at `database.path`. The only place that chooses. Needs a tokio runtime; blocks on
    /// SQLite's open, so call it at start-up.
    pub async fn open_for(database: &Database) -> Result<FilesDb, RepoError> {
        if database.url.is_empty() {
            return Self::open(&database.path);
        }
        let size = usize::try_from(database.pool_size).unwrap_or(usize::MAX);
        let store = PgStore::connect(database.url.expose(), size).await?;
        Ok(Self::from_store(Arc::new(store)))
    }

    /// SQLite at `path`, opened and migrated, with one reader per core (at most 8).
    pub fn open(path: impl AsRef<Path>) -> Result<FilesDb, RepoError> {
        Ok(Self::from_store(Arc::new(SqliteStore::open(path)?)))
    }

    pub fn open_with_readers(path: impl AsRef<Path>, readers: usize) -> Result<FilesDb, RepoError> {
        Ok(Self::from_store(Arc::new(SqliteStore::open_with_readers(
            path, readers,
        )?)))
    }

    pub fn from_store(store: Arc<dyn RecordStore>) -> FilesDb {
        FilesDb {
            store,
            cache: Arc::new(OnceLock::new()),
            last_error: Arc::new(Mutex::new(None)),
        }
    }

    pub fn kind(&self) -> &'static str {
        self.store.kind()
    }

    /// The error of the last look at the backend, None when it answered (`/health`;
    /// refreshed every `EXTERNAL_WRITE_POLL` once the read cache runs).
    pub fn last_error(&self) -> Option<String> {
        self.last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_last_error(&self, error: Option<String>) {
        *self
            .last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = error;
    }

    /// Caches reads from now on, invalidated by this handle's writes at once and by other
    /// processes' writes within `EXTERNAL_WRITE_POLL` (a task polls the backend's change
    /// marker until `shutdown`). Every clone of this handle shares the cache.
    pub async fn enable_read_cache(&self, shutdown: Shutdown) -> Result<(), RepoError> {
        // The baseline is read before anything is cached: a write landing between the
        // first cached read and the first poll must count as a change.
        let mut seen = self.store.change_marker().await?;
        let cache = Arc::new(ReadCache::default());
        if self.cache.set(cache.clone()).is_err() {
            return Ok(());
        }
        let wake = Arc::new(Notify::new());
        self.store.watch(wake.clone(), shutdown.clone());
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = shutdown.wait() => return,
                    _ = tokio::time::sleep(EXTERNAL_WRITE_POLL) => {}
                    _ = wake.notified() => {}
                }
                match this.store.change_marker().await {
                    Ok(v) => {
                        this.set_last_error(None);
                        if v != seen {
                            cache.invalidate();
                            seen = v;
                        }
                    }
                    // Unknown state: serve nothing stale.
                    Err(e) => {
                        this.set_last_error(Some(e.to_string()));
                        cache.invalidate();
                    }
                }
            }
        });
        Ok(())
    }

    fn cache(&self) -> Option<&Arc<ReadCache>> {
        self.cache.get()
    }

    pub async fn insert(&self, record: NewFileRecord) -> Result<FileRecord, RepoError> {
        let result = self.store.insert(record).await;
        self.wrote();
        result
    }

    pub async fn insert_many(&self, records: Vec<NewFileRecord>) -> Result<usize, RepoError> {
        let result = self.store.insert_many(records).await;
        self.wrote();
        result
    }

    pub async fn bulk_insert(&self, records: Vec<NewFileRecord>) -> Result<usize, RepoError> {
        let result = self.store.bulk_insert(records).await;
        self.wrote();
        result
    }

    pub async fn delete_by_key(&self, key: String) -> Result<FileRecord, RepoError> {
        let result = self.store.delete_by_key(key).await;
        self.wrote();
        result
    }

    /// Also after a failed write: it may have changed something before failing.
    fn wrote(&self) {
        if let Some(cache) = self.cache() {
            cache.invalidate();
        }
    }

    pub async fn get_by_key(&self, key: String) -> Result<Option<FileRecord>, RepoError> {
        let Some(cache) = self.cache() else {
            return self.store.get_by_key(key).await;
        };
        if let Some(hit) = cache.record(&key) {
            return Ok(hit);
        }
        let generation = cache.generation();
        let lookup = key.clone();
        let record = cache
            .record_flight
            .run((generation, key.clone()), || self.store.get_by_key(lookup))
            .await?;
        cache.put_record(generation, key, record.clone());
        Ok(record)
    }

    pub async fn list(
        &self,
        query: ListQuery,
        include_private: bool,
    ) -> Result<Arc<Page>, RepoError> {
        let Some(cache) = self.cache() else {
            return self.store.list(query, include_private).await.map(Arc::new);
        };
        if let Some(hit) = cache.list(&query, include_private) {
            return Ok(hit);
        }
        let generation = cache.generation();
        let asked = query.clone();
        let page = cache
            .list_flight
            .run(
                (generation, query.clone(), include_private),
                || async move { self.store.list(asked, include_private).await.map(Arc::new) },
            )
            .await?;
        cache.put_list(generation, query, include_private, page.clone());
        Ok(page)
    }

    pub async fn count(&self, permission: Option<Permission>) -> Result<u64, RepoError> {
        self.store.count(permission).await
    }
}
