//! Where converted translation documents are kept: one trait, three backends (sled, a JSON
//! file, Redis shared by several nodes), chosen once at start-up.
//!
//! A store holds exactly one current document. `put` replaces it atomically, so a reader
//! sees the old or the new document, never a mix, and a crash mid-write leaves the old one.

mod file;
pub mod redis;
mod sled_store;

pub use file::FileMedium;
pub use redis::RedisStore;
pub use sled_store::SledMedium;

/// The sled backend (default).
pub type SledStore = CachedStore<SledMedium>;
/// The single-JSON-file backend.
pub type FileStore = CachedStore<FileMedium>;

use super::model::Document;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// The current document with its content hash and the time it was stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredDocument {
    /// Hex SHA-256 of the document's canonical JSON: equal content, equal version.
    pub version: String,
    pub updated_at: DateTime<Utc>,
    pub document: Document,
}

impl StoredDocument {
    /// Stamps a document with its version and the current time.
    pub fn new(document: Document) -> Result<StoredDocument, StoreError> {
        Ok(StoredDocument {
            version: version_of(&document)?,
            updated_at: Utc::now(),
            document,
        })
    }
}

/// The content hash of a document.
pub fn version_of(document: &Document) -> Result<String, StoreError> {
    let json = serde_json::to_vec(document).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    Ok(hex(&Sha256::digest(&json)))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// What `put` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PutOutcome {
    /// The document is now the current one.
    Stored,
    /// The current document already has this content; nothing was written.
    Unchanged,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the sheet yielded no translations; the last good document is kept")]
    EmptyDocument,
    #[error("cannot open the translations store at {path}: {reason}")]
    Open { path: String, reason: String },
    #[error("translations store I/O failed: {0}")]
    Io(String),
    #[error("the stored translations cannot be read ({0}); the next successful sync replaces them")]
    Corrupt(String),
    /// The shared store cannot be reached or refused a command; `store` names it with any
    /// password masked.
    #[error("the translations store {store} is unreachable: {reason}")]
    Unreachable { store: String, reason: String },
}

/// What `/health` shows of a store (SPEC §7 `stores.translations`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreHealth {
    /// `sled`, `file` or `redis`.
    pub kind: &'static str,
    pub reachable: bool,
    /// The error of the last failed operation while the store is failing.
    pub last_error: Option<String>,
}

impl StoreHealth {
    /// An embedded store: on this machine, so always reachable.
    pub fn local(kind: &'static str) -> StoreHealth {
        StoreHealth {
            kind,
            reachable: true,
            last_error: None,
        }
    }
}

/// A translations store. Methods block (disk I/O); async callers use `spawn_blocking`.
pub trait TranslationStore: Send + Sync {
    /// Makes `stored` the current document, atomically. Refuses a document without
    /// translations, so an empty sheet never replaces a good one.
    fn put(&self, stored: &StoredDocument) -> Result<PutOutcome, StoreError>;

    /// The current document, if one was ever stored.
    fn get(&self) -> Result<Option<Arc<StoredDocument>>, StoreError>;

    /// Makes every accepted write durable (called on shutdown).
    fn flush(&self) -> Result<(), StoreError>;

    /// The store's kind and state for `/health`.
    fn health(&self) -> StoreHealth;
}

/// Where a backend keeps the current document's bytes. Replacing them must be atomic: after
/// a crash, `load` returns the old bytes or the new ones, never a mix.
pub trait Medium: Send + Sync {
    fn load(&self) -> Result<Option<Vec<u8>>, StoreError>;
    fn save(&self, bytes: &[u8]) -> Result<(), StoreError>;
    fn flush(&self) -> Result<(), StoreError>;
    /// The store kind this medium makes (`sled`, `file`).
    fn kind(&self) -> &'static str;
}

/// A store over a medium: keeps the decoded current document in memory, so reads never
/// touch the disk, and serialises writers.
pub struct CachedStore<M> {
    medium: M,
    current: RwLock<Option<Arc<StoredDocument>>>,
    /// The compare-then-write in `put` must not interleave with another writer.
    write: Mutex<()>,
}

impl<M: Medium> CachedStore<M> {
    /// Reads the medium's current document, if any.
    pub fn new(medium: M) -> Result<CachedStore<M>, StoreError> {
        let current = match medium.load()? {
            Some(bytes) => Some(Arc::new(
                serde_json::from_slice(&bytes).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            )),
            None => None,
        };
        Ok(CachedStore {
            medium,
            current: RwLock::new(current),
            write: Mutex::new(()),
        })
    }
}

impl<M: Medium> TranslationStore for CachedStore<M> {
    fn put(&self, stored: &StoredDocument) -> Result<PutOutcome, StoreError> {
        if stored.document.is_empty() {
            return Err(StoreError::EmptyDocument);
        }
        let _writer = self.write.lock().unwrap_or_else(PoisonError::into_inner);
        if self.get()?.is_some_and(|c| c.version == stored.version) {
            return Ok(PutOutcome::Unchanged);
        }
        let bytes = serde_json::to_vec(stored).map_err(|e| StoreError::Io(e.to_string()))?;
        self.medium.save(&bytes)?;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) =
            Some(Arc::new(stored.clone()));
        Ok(PutOutcome::Stored)
    }

    fn get(&self) -> Result<Option<Arc<StoredDocument>>, StoreError> {
        Ok(self
            .current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone())
    }

    fn flush(&self) -> Result<(), StoreError> {
        self.medium.flush()
    }

    fn health(&self) -> StoreHealth {
        StoreHealth::local(self.medium.kind())
    }
}

#[cfg(test)]
pub(crate) mod suite {
    //! The one test suite every backend passes.

    use super::*;
    use crate::translations::model::{Entry, Warning};

    pub fn doc(text: &str) -> Document {
        Document {
            locales: vec!["en".into(), "pl".into()],
            entries: vec![Entry {
                path: vec!["CORE".into(), "YES".into()],
                texts: vec![Some(text.into()), None],
                tags: vec!["t1".into()],
                comment: Some("c".into()),
            }],
            warnings: vec![Warning {
                cell: "B2".into(),
                row: 2,
                message: "m".into(),
            }],
        }
    }

    pub fn starts_empty(store: &dyn TranslationStore) {
        assert_eq!(store.get().unwrap(), None);
    }

    pub fn put_then_get_returns_the_document_with_version_and_time(store: &dyn TranslationStore) {
        let stored = StoredDocument::new(doc("Yes")).unwrap();
        assert_eq!(store.put(&stored).unwrap(), PutOutcome::Stored);
        let got = store.get().unwrap().unwrap();
        assert_eq!(*got, stored);
        assert_eq!(got.version.len(), 64);
    }

    pub fn same_content_is_unchanged_new_content_replaces(store: &dyn TranslationStore) {
        let first = StoredDocument::new(doc("Yes")).unwrap();
        store.put(&first).unwrap();
        let again = StoredDocument::new(doc("Yes")).unwrap();
        assert_eq!(store.put(&again).unwrap(), PutOutcome::Unchanged);
        assert_eq!(store.get().unwrap().unwrap().updated_at, first.updated_at);
        let second = StoredDocument::new(doc("Yes!")).unwrap();
        assert_ne!(second.version, first.version);
        assert_eq!(store.put(&second).unwrap(), PutOutcome::Stored);
        assert_eq!(store.get().unwrap().unwrap().version, second.version);
    }

    pub fn an_empty_document_is_refused_and_the_old_one_kept(store: &dyn TranslationStore) {
        let good = StoredDocument::new(doc("Yes")).unwrap();
        store.put(&good).unwrap();
        let mut empty = doc("x");
        empty.entries[0].texts = vec![None, None];
        let empty = StoredDocument::new(empty).unwrap();
        assert!(matches!(store.put(&empty), Err(StoreError::EmptyDocument)));
        assert_eq!(store.get().unwrap().unwrap().version, good.version);
    }

    /// Readers racing a writer only ever see whole documents.
    pub fn readers_never_see_a_mix(store: Arc<dyn TranslationStore>) {
        let docs: Vec<_> = (0..20)
            .map(|i| StoredDocument::new(doc(&"x".repeat(1000 + i))).unwrap())
            .collect();
        let versions: std::collections::HashSet<_> =
            docs.iter().map(|d| d.version.clone()).collect();
        store.put(&docs[0]).unwrap();
        let reader = {
            let store = store.clone();
            std::thread::spawn(move || {
                for _ in 0..200 {
                    let got = store.get().unwrap().unwrap();
                    assert_eq!(version_of(&got.document).unwrap(), got.version);
                }
            })
        };
        for d in &docs {
            store.put(d).unwrap();
        }
        reader.join().unwrap();
        assert!(versions.contains(&store.get().unwrap().unwrap().version));
    }

    /// Runs the whole suite against fresh stores made by `open` in `dir`.
    pub fn run(open: impl Fn(&std::path::Path) -> Arc<dyn TranslationStore>) {
        let cases: [fn(&dyn TranslationStore); 4] = [
            starts_empty,
            put_then_get_returns_the_document_with_version_and_time,
            same_content_is_unchanged_new_content_replaces,
            an_empty_document_is_refused_and_the_old_one_kept,
        ];
        for case in cases {
            let dir = tempfile::tempdir().unwrap();
            case(open(dir.path()).as_ref());
        }
        let dir = tempfile::tempdir().unwrap();
        readers_never_see_a_mix(open(dir.path()));
        // What was stored survives reopening.
        let dir = tempfile::tempdir().unwrap();
        let stored = StoredDocument::new(doc("kept")).unwrap();
        {
            let store = open(dir.path());
            store.put(&stored).unwrap();
            store.flush().unwrap();
        }
        assert_eq!(*open(dir.path()).get().unwrap().unwrap(), stored);
    }
}
