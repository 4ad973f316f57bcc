//! A cache of read results (list pages and records by key), valid for one "data
//! generation". Any write through this process bumps the generation at once; writes by
//! other processes (`depot files add` beside a running daemon) are noticed by polling
//! SQLite's `PRAGMA data_version`, so they show within one poll interval.
//!
//! Why: a cached answer needs no hop to a blocking thread, and that hop (two context
//! switches) was the largest cost of `GET /files` under load.

use super::query::ListQuery;
use super::query::Page;
use super::record::FileRecord;
use crate::singleflight::SingleFlight;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Entries kept per generation; past it the map starts over (a client walking every page
/// of a million records must not grow memory without bound).
const MAX_ENTRIES: usize = 4096;

#[derive(Default)]
pub struct ReadCache {
    generation: AtomicU64,
    lists: Map<(ListQuery, bool), Arc<Page>>,
    records: Map<String, Option<FileRecord>>,
    /// Concurrent misses of one list query run it once (keyed with the generation).
    pub list_flight: SingleFlight<(u64, ListQuery, bool), Arc<Page>>,
    pub record_flight: SingleFlight<(u64, String), Option<FileRecord>>,
}

struct Map<K, V> {
    inner: Mutex<(u64, HashMap<K, V>)>,
}

impl<K, V> Default for Map<K, V> {
    fn default() -> Self {
        Map {
            inner: Mutex::new((0, HashMap::new())),
        }
    }
}

impl<K: Hash + Eq, V: Clone> Map<K, V> {
    fn get(&self, generation: u64, key: &K) -> Option<V> {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        (inner.0 == generation)
            .then(|| inner.1.get(key).cloned())
            .flatten()
    }

    fn put(&self, generation: u64, key: K, value: V) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        // A result computed before the entries already here (a slow query that raced a
        // write) is stale: storing it would also throw away the newer entries.
        if generation < inner.0 {
            return;
        }
        if inner.0 != generation || inner.1.len() >= MAX_ENTRIES {
            inner.0 = generation;
            inner.1.clear();
        }
        inner.1.insert(key, value);
    }
}

impl ReadCache {
    /// The generation to read under: take it before querying, and store the result with
    /// it, so a result that raced a write is never served as current.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Every cached answer is stale from now on.
    pub fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    pub fn list(&self, query: &ListQuery, include_private: bool) -> Option<Arc<Page>> {
        self.lists
            .get(self.generation(), &(query.clone(), include_private))
    }

    pub fn put_list(
        &self,
        generation: u64,
        query: ListQuery,
        include_private: bool,
        page: Arc<Page>,
    ) {
        self.lists.put(generation, (query, include_private), page);
    }

    pub fn record(&self, key: &str) -> Option<Option<FileRecord>> {
        self.records.get(self.generation(), &key.to_owned())
    }

    pub fn put_record(&self, generation: u64, key: String, record: Option<FileRecord>) {
        self.records.put(generation, key, record);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_live_for_one_generation_only() {
        let cache = ReadCache::default();
        let g = cache.generation();
        let page = Arc::new(Page {
            records: vec![],
            total: 7,
        });
        cache.put_list(g, ListQuery::default(), true, page.clone());
        assert_eq!(cache.list(&ListQuery::default(), true), Some(page.clone()));
        assert_eq!(cache.list(&ListQuery::default(), false), None);
        cache.invalidate();
        assert_eq!(cache.list(&ListQuery::default(), true), None);
        // A result computed before the write is not stored as current.
        cache.put_list(g, ListQuery::default(), true, page);
        assert_eq!(cache.list(&ListQuery::default(), true), None);
    }

    #[test]
    fn a_late_result_of_an_older_generation_keeps_the_newer_entries() {
        let cache = ReadCache::default();
        let old = cache.generation();
        cache.invalidate();
        let current = cache.generation();
        let page = Arc::new(Page {
            records: vec![],
            total: 1,
        });
        cache.put_list(current, ListQuery::default(), true, page.clone());
        cache.put_list(old, ListQuery::default(), false, page.clone());
        assert_eq!(cache.list(&ListQuery::default(), true), Some(page));
        assert_eq!(cache.list(&ListQuery::default(), false), None);
    }
}
