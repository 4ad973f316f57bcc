//! `FilesDb`: the handle the HTTP layer shares (Clone, Send, Sync). One writer connection
//! and a few reader connections (WAL lets reads run beside a write), each behind a std
//! mutex; every call runs on tokio's blocking pool so SQLite never stalls an async thread.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;
use tokio::sync::Semaphore;

use super::cache::ReadCache;

use super::query::ListQuery;
use super::record::{FileRecord, NewFileRecord, Permission};
use super::repo::{FilesRepo, Page, RepoError};

/// Upper bound on reader connections, whatever the core count.
const MAX_READERS: usize = 8;

#[derive(Clone)]
pub struct FilesDb {
    inner: Arc<Inner>,
}

/// How often the daemon asks SQLite whether another process wrote (`PRAGMA
/// data_version`): the longest a cached read can miss such a write.
pub const EXTERNAL_WRITE_POLL: Duration = Duration::from_millis(100);

struct Inner {
    writer: Mutex<FilesRepo>,
    readers: Vec<Mutex<FilesRepo>>,
    /// One permit per reader: a read waits here (asynchronously) until a connection is
    /// free, instead of parking a blocking-pool thread on a connection's mutex — under
    /// load that parking and waking costs more than the query.
    free_readers: Arc<Semaphore>,
    next_reader: AtomicUsize,
    /// Read results, once the daemon enables caching (see `enable_read_cache`).
    cache: OnceLock<Arc<ReadCache>>,
}

impl FilesDb {
    /// Opens and migrates the database, with one reader per core (at most 8).
    /// Blocking: call it at start-up, before serving.
    pub fn open(path: impl AsRef<Path>) -> Result<FilesDb, RepoError> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::open_with_readers(path, cores.min(MAX_READERS))
    }

    pub fn open_with_readers(path: impl AsRef<Path>, readers: usize) -> Result<FilesDb, RepoError> {
        let path = path.as_ref();
        // The writer migrates first, so readers always see the latest schema.
        let writer = FilesRepo::open(path)?;
        let readers = (0..readers.max(1))
            .map(|_| FilesRepo::open_reader(path).map(Mutex::new))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FilesDb {
            inner: Arc::new(Inner {
                cache: OnceLock::new(),
                writer: Mutex::new(writer),
                free_readers: Arc::new(Semaphore::new(readers.len())),
                readers,
                next_reader: AtomicUsize::new(0),
            }),
        })
    }

    /// Caches reads from now on, invalidated by this handle's writes at once and by other
    /// processes' writes within `EXTERNAL_WRITE_POLL` (a task polls until `shutdown`).
    /// Needs a tokio runtime; every clone of this handle shares the cache.
    pub fn enable_read_cache(
        &self,
        path: impl AsRef<Path>,
        shutdown: crate::shutdown::Shutdown,
    ) -> Result<(), RepoError> {
        let watcher = FilesRepo::open_reader(path.as_ref())?;
        // The baseline is read before anything is cached: a write landing between the
        // first cached read and the first poll must count as a change.
        let mut seen = watcher.data_version()?;
        let cache = Arc::new(ReadCache::default());
        if self.inner.cache.set(cache.clone()).is_err() {
            return Ok(());
        }
        tokio::spawn(async move {
            let watcher = Arc::new(Mutex::new(watcher));
            loop {
                tokio::select! {
                    _ = shutdown.wait() => return,
                    _ = tokio::time::sleep(EXTERNAL_WRITE_POLL) => {}
                }
                let conn = watcher.clone();
                let version = tokio::task::spawn_blocking(move || lock(&conn).data_version()).await;
                match version {
                    Ok(Ok(v)) => {
                        if v != seen {
                            cache.invalidate();
                            seen = v;
                        }
                    }
                    // Unknown state: serve nothing stale.
                    _ => cache.invalidate(),
                }
            }
        });
        Ok(())
    }

    fn cache(&self) -> Option<&Arc<ReadCache>> {
        self.inner.cache.get()
    }

    pub async fn insert(&self, record: NewFileRecord) -> Result<FileRecord, RepoError> {
        self.write(move |repo| repo.insert(record)).await
    }

    pub async fn insert_many(&self, records: Vec<NewFileRecord>) -> Result<usize, RepoError> {
        self.write(move |repo| repo.insert_many(records)).await
    }

    pub async fn delete_by_key(&self, key: String) -> Result<FileRecord, RepoError> {
        self.write(move |repo| repo.delete_by_key(&key)).await
    }

    pub async fn get_by_key(&self, key: String) -> Result<Option<FileRecord>, RepoError> {
        let Some(cache) = self.cache() else {
            return self.read(move |repo| repo.get_by_key(&key)).await;
        };
        if let Some(hit) = cache.record(&key) {
            return Ok(hit);
        }
        let generation = cache.generation();
        let lookup = key.clone();
        let record = cache
            .record_flight
            .run((generation, key.clone()), || {
                self.read(move |repo| repo.get_by_key(&lookup))
            })
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
            return self
                .read(move |repo| repo.list(&query, include_private))
                .await
                .map(Arc::new);
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
                || async move {
                    self.read(move |repo| repo.list(&asked, include_private))
                        .await
                        .map(Arc::new)
                },
            )
            .await?;
        cache.put_list(generation, query, include_private, page.clone());
        Ok(page)
    }

    pub async fn count(&self, permission: Option<Permission>) -> Result<u64, RepoError> {
        self.read(move |repo| repo.count(permission)).await
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
        let result = tokio::task::spawn_blocking(move || f(&mut lock(&inner.writer)))
            .await
            .map_err(|_| RepoError::Task)?;
        // Also after a failed write: it may have changed something before failing.
        if let Some(cache) = self.cache() {
            cache.invalidate();
        }
        result
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
        }
    }

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
            "the files database has schema version 0, expected 3; restart depot"
        );
    }
}
