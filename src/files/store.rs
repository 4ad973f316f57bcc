//! The one place that picks the backend of the file records from the settings (the trait
//! they implement is `record_store`), and `FilesDb`: the handle the HTTP layer shares
//! (Clone, Send, Sync), holding the node's read cache above the backend.

use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;

use super::cache::ReadCache;
use super::error::RepoError;
use super::fold::fold;
use super::names::NameIndexSlot;
use super::pending::{CompletedUpload, PendingUpload};
use super::postgres::PgStore;
use super::query::{ListQuery, Page, effective_permission};
use super::record::{FileRecord, NewFileRecord, Permission};
pub use super::record_store::RecordStore;
use super::sqlite::SqliteStore;
use crate::config::settings::Database;
use crate::shutdown::Shutdown;

/// How often the daemon asks the database whether another process wrote: the longest a
/// cached read can miss such a write (SQLite's `PRAGMA data_version`, PostgreSQL's change
/// counter as the fallback of its notifications).
pub const EXTERNAL_WRITE_POLL: Duration = Duration::from_millis(100);

#[derive(Clone)]
pub struct FilesDb {
    store: Arc<dyn RecordStore>,
    /// Read results, once the daemon enables caching (see `enable_read_cache`).
    cache: Arc<OnceLock<Arc<ReadCache>>>,
    /// The last error of the change watch (None: the backend answered), for `/health`.
    last_error: Arc<Mutex<Option<String>>>,
    /// File names in memory for uncached `fileName` searches (with the read cache only:
    /// its generation says when the index is current).
    names: Arc<NameIndexSlot>,
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
            names: Arc::new(NameIndexSlot::default()),
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
        // The name index is built at once, so that the first searches do not wait for the
        // database's slower trigram query (seconds on PostgreSQL at 1,000,000 records).
        self.rebuild_names_when_due(cache.generation());
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

    /// The database's answer, never the node's cache: for a decision that must not rest on
    /// a record another node has just deleted (the expiry sweep's).
    pub async fn get_by_key_uncached(&self, key: String) -> Result<Option<FileRecord>, RepoError> {
        self.store.get_by_key(key).await
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
                || async move { self.list_uncached(asked, include_private, generation).await },
            )
            .await?;
        cache.put_list(generation, query, include_private, page.clone());
        Ok(page)
    }

    /// A name search from the name index when it is current, else from the backend (and
    /// the index rebuilt in the background, when due).
    async fn list_uncached(
        &self,
        query: ListQuery,
        include_private: bool,
        generation: u64,
    ) -> Result<Arc<Page>, RepoError> {
        match self
            .search_name_index(&query, include_private, generation)
            .await?
        {
            Some(page) => Ok(Arc::new(page)),
            None => self.store.list(query, include_private).await.map(Arc::new),
        }
    }

    /// The page of a `fileName` search from the name index; `None` when the index cannot
    /// answer it (no name filter, no current index, a needle it cannot hold, or a record
    /// deleted since the index was built, which would make the page short).
    async fn search_name_index(
        &self,
        query: &ListQuery,
        include_private: bool,
        generation: u64,
    ) -> Result<Option<Page>, RepoError> {
        let Some(needle) = query.file_name.as_deref().filter(|n| !n.is_empty()) else {
            return Ok(None);
        };
        let Some(index) = self.names.at(generation) else {
            self.rebuild_names_when_due(generation);
            return Ok(None);
        };
        let Some(permission) = effective_permission(query, include_private) else {
            return Ok(Some(Page {
                records: Vec::new(),
                total: 0,
            }));
        };
        let folded = fold(needle);
        let Some(hits) = index.search(&folded, permission, query.offset(), query.limit) else {
            return Ok(None);
        };
        let wanted = hits.ids.len();
        let records = if wanted == 0 {
            Vec::new()
        } else {
            self.store.get_by_ids(hits.ids).await?
        };
        Ok((records.len() == wanted).then_some(Page {
            records,
            total: hits.total,
        }))
    }

    fn rebuild_names_when_due(&self, generation: u64) {
        if !self.names.begin_rebuild() {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            let started = std::time::Instant::now();
            match this.store.name_index().await {
                Ok(index) => {
                    tracing::debug!(
                        records = index.len(),
                        bytes = index.heap_bytes(),
                        took_ms = started.elapsed().as_millis() as u64,
                        "file name index rebuilt"
                    );
                    this.names.built(generation, index, started.elapsed());
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot build the file name index; searching the database");
                    this.names.failed(started.elapsed());
                }
            }
        });
    }

    pub async fn count(&self, permission: Option<Permission>) -> Result<u64, RepoError> {
        self.store.count(permission).await
    }

    pub async fn open_upload(&self, upload: PendingUpload) -> Result<(), RepoError> {
        self.store.open_upload(upload).await
    }

    pub async fn pending_upload(&self, key: String) -> Result<Option<PendingUpload>, RepoError> {
        self.store.pending_upload(key).await
    }

    pub async fn complete_upload(
        &self,
        key: String,
        record: NewFileRecord,
        etag: Option<String>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<FileRecord, RepoError> {
        let result = self.store.complete_upload(key, record, etag, now).await;
        self.wrote();
        result
    }

    pub async fn expired_uploads(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> Result<Vec<PendingUpload>, RepoError> {
        self.store.expired_uploads(before, limit).await
    }

    pub async fn expired_completions(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> Result<Vec<CompletedUpload>, RepoError> {
        self.store.expired_completions(before, limit).await
    }

    pub async fn drop_upload(&self, key: String) -> Result<bool, RepoError> {
        self.store.drop_upload(key).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Searches answered from the name index give exactly what the backend's own query
    /// gives, for needles dense and sparse, folded and literal, in every scope and page.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn name_index_answers_as_the_database_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("files.sqlite3");
        super::super::seed::seed_with(&path, 3000, 7).unwrap();
        let db = FilesDb::open(&path).unwrap();
        let mut tricky = Vec::new();
        for (i, name) in [
            "100% done.txt",
            "a_b.txt",
            "ÄBC-report.txt",
            "STRASSE straße.txt",
            "x",
        ]
        .iter()
        .enumerate()
        {
            tricky.push(NewFileRecord {
                file_name: (*name).to_owned(),
                description: String::new(),
                bucket: "bkt".into(),
                status: 0,
                file_type: "txt".into(),
                permission: if i % 2 == 0 {
                    Permission::Private
                } else {
                    Permission::Public
                },
                key: format!("tricky-{i}"),
                created_at: None,
                size: None,
                sha256: None,
            });
        }
        db.insert_many(tricky).await.unwrap();
        db.enable_read_cache(Shutdown::new()).await.unwrap();

        // The first search finds no index, is answered by the database and starts one.
        let first = ListQuery {
            file_name: Some("report".into()),
            ..ListQuery::default()
        };
        db.list(first, true).await.unwrap();
        let generation = db.cache().unwrap().generation();
        for _ in 0..200 {
            if db.names.at(generation).is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(db.names.at(generation).is_some(), "the index was built");

        let needles = [
            "e", "re", "rep", "REPORT", "img_1", "ä", "äbc", "strasse", "ß", "%", "_", "a_b",
            "100%", "фото", "café", "zzz-none", ".",
        ];
        for needle in needles {
            for permission in [None, Some(Permission::Public), Some(Permission::Private)] {
                for include_private in [true, false] {
                    for (page, limit) in [(1, 25), (2, 7), (40, 100), (100_000, 25)] {
                        let query = ListQuery {
                            permission,
                            file_name: Some(needle.into()),
                            page,
                            limit,
                        };
                        let from_index = db.list(query.clone(), include_private).await.unwrap();
                        let from_database =
                            db.store.list(query.clone(), include_private).await.unwrap();
                        assert_eq!(
                            *from_index, from_database,
                            "{query:?} private: {include_private}"
                        );
                    }
                }
            }
        }
    }
}
