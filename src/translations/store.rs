//! Where converted translation documents are persisted: one trait, one implementation per
//! backend (sled, a JSON file, Redis shared by several nodes), chosen once at start-up by
//! the service. A store only saves
//! and loads; the service above it holds the one in-memory copy that requests are served from.

pub mod error;
mod file;
pub mod redis;
mod sled_store;

pub use error::StoreError;
pub use file::FileStore;
pub use redis::RedisStore;
pub use sled_store::SledStore;

pub use super::channels::book::ChannelBook;
pub use crate::model::StoredDocument;

use super::versions::{History, VersionSummary};
use crate::model::Document;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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
    Ok(crate::hex::encode(&Sha256::digest(&json)))
}

/// What storing a document did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PutOutcome {
    /// The document is now the current one.
    Stored,
    /// The current document already has this content; nothing was written.
    Unchanged,
}

/// The producer's last sync as the store keeps it (SPEC §10: last attempt, last success,
/// error, next run), so that nodes that do not sync, and runs that come later, show the
/// state of the producer that does.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncState {
    pub last_sync_at: Option<DateTime<Utc>>,
    pub last_success_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub consecutive_failures: u32,
    /// When the producer that made this sync syncs next; `None` when it does not plan to
    /// (`depot produce --once`, a node whose loop is off).
    pub next_sync_at: Option<DateTime<Utc>>,
    /// The process that synced: command, host and process id (`depot produce on h (pid 7)`).
    #[serde(default)]
    pub by: String,
}

pub(crate) fn encode_sync_state(state: &SyncState) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(state).map_err(|e| StoreError::Io(e.to_string()))
}

pub(crate) fn decode_sync_state(bytes: &[u8]) -> Result<SyncState, StoreError> {
    serde_json::from_slice(bytes)
        .map_err(|e| StoreError::Corrupt(format!("the producer's sync state: {e}")))
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

/// What `swap_channels` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Swap {
    /// The new book is the store's.
    Done,
    /// The store's book is no longer at the revision the new one was made from (another
    /// writer moved a channel meanwhile): nothing was written; read it again and retry.
    Stale,
    /// The new book points at a version the store does not keep: nothing was written.
    Missing(String),
}

/// A translations backend. Methods block (disk or network I/O); async callers use
/// `spawn_blocking`. Writers are serialised by the caller.
pub trait TranslationStore: Send + Sync {
    /// Makes `stored` the current document, atomically, and keeps it as a version with
    /// `summary`, beside at most `keep - 1` older ones: after a crash, `load` returns the
    /// old document or the new one, never a mix. `Unchanged` when the store's current
    /// version already is this one (another node stored it first).
    fn save(
        &self,
        stored: &StoredDocument,
        summary: &VersionSummary,
        keep: usize,
    ) -> Result<PutOutcome, StoreError>;

    /// The current document as last saved, if one ever was. A document that does not
    /// decode, or that no longer fits the limits of what can be served, is `Corrupt`.
    fn load(&self) -> Result<Option<StoredDocument>, StoreError>;

    /// A kept version's document; `None` when the store does not keep that version.
    fn load_version(&self, version: &str) -> Result<Option<StoredDocument>, StoreError>;

    /// The kept versions, newest (the current one) first.
    fn history(&self) -> Result<History, StoreError>;

    /// Makes every accepted write durable (called on shutdown).
    fn flush(&self) -> Result<(), StoreError>;

    /// The store's kind and state for `/health`.
    fn health(&self) -> StoreHealth;

    /// Keeps the producer's state (one record, replaced by each save).
    fn save_sync_state(&self, state: &SyncState) -> Result<(), StoreError>;

    /// The producer's state last saved, if one ever was.
    fn load_sync_state(&self) -> Result<Option<SyncState>, StoreError>;

    /// The channels (SPEC §14); an empty book (revision 0) when none was ever saved.
    fn channels(&self) -> Result<ChannelBook, StoreError>;

    /// Makes `next` the channels, atomically, if the store's book is still at revision
    /// `expected` and it keeps every version `next` pins. From then on `save` keeps the
    /// pinned versions past `keep`, so a channel never points at a pruned version.
    fn swap_channels(&self, expected: u64, next: &ChannelBook) -> Result<Swap, StoreError>;
}

/// A channels record that does not decode is `Corrupt`.
pub(crate) fn decode_channels(bytes: &[u8]) -> Result<ChannelBook, StoreError> {
    super::channels::book::decode(bytes).map_err(StoreError::Corrupt)
}

/// The bytes every backend keeps for a document.
pub(crate) fn encode(stored: &StoredDocument) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(stored).map_err(|e| StoreError::Io(e.to_string()))
}

/// The document of `bytes`, checked against the limits of what can be served, so that a
/// document stored by an older version or edited by hand cannot take the daemon down.
/// The model is flat (a key path is a list, not a nesting), so decoding it never nests
/// deeper than a few levels whatever the key depth; serde_json's own nesting limit
/// refuses anything else.
pub(crate) fn decode(bytes: &[u8]) -> Result<StoredDocument, StoreError> {
    let stored: StoredDocument =
        serde_json::from_slice(bytes).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    stored
        .document
        .check_limits()
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    Ok(stored)
}

/// The bytes every backend keeps for the list of kept versions.
pub(crate) fn encode_history(history: &History) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(history).map_err(|e| StoreError::Io(e.to_string()))
}

pub(crate) fn encode_summary(summary: &VersionSummary) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(summary).map_err(|e| StoreError::Io(e.to_string()))
}

pub(crate) fn decode_summary(bytes: &[u8]) -> Result<VersionSummary, StoreError> {
    serde_json::from_slice(bytes)
        .map_err(|e| StoreError::Corrupt(format!("a kept version's summary: {e}")))
}

pub(crate) fn decode_history(bytes: &[u8]) -> Result<History, StoreError> {
    serde_json::from_slice(bytes)
        .map_err(|e| StoreError::Corrupt(format!("the list of kept versions: {e}")))
}

/// The current document of a store that keeps a history beside its documents: the
/// newest version's document, read again when a save made a newer one current (and pruned
/// the one just read) between the two reads; the legacy single document while no history
/// exists.
pub(crate) fn load_current(
    history: impl Fn() -> Result<Option<History>, StoreError>,
    version: impl Fn(&str) -> Result<Option<StoredDocument>, StoreError>,
    legacy: impl FnOnce() -> Result<Option<StoredDocument>, StoreError>,
) -> Result<Option<StoredDocument>, StoreError> {
    for _ in 0..10 {
        let Some(history) = history()? else {
            return legacy();
        };
        let Some(current) = history.current() else {
            return Ok(None);
        };
        if let Some(stored) = version(&current.version)? {
            return Ok(Some(stored));
        }
    }
    Err(StoreError::Corrupt(
        "the current version's document is missing from the store".into(),
    ))
}

#[cfg(test)]
pub(crate) mod suite {
    //! The one test suite every backend passes.

    use super::*;
    use crate::model::{Entry, Warning};
    use std::sync::Arc;

    pub fn doc(text: &str) -> Document {
        Document {
            settings: Default::default(),
            namespaces: Vec::new(),
            findings: Vec::new(),
            locales: vec!["en".into(), "pl".into()],
            entries: vec![Entry {
                plural: None,
                path: vec!["CORE".into(), "YES".into()],
                texts: vec![Some(text.into()), None],
                tags: vec!["t1".into()],
                comment: Some("c".into()),
                names: Default::default(),
            }],
            warnings: vec![Warning {
                cell: "B2".into(),
                row: 2,
                message: "m".into(),
            }],
        }
    }

    /// Saves `stored` as the service does: summarised against the store's current version.
    pub fn save(store: &dyn TranslationStore, stored: &StoredDocument, keep: usize) -> PutOutcome {
        let previous = store.load().ok().flatten();
        let summary = VersionSummary::between(previous.as_ref(), stored);
        store.save(stored, &summary, keep).unwrap()
    }

    /// The ids of the kept versions, newest first.
    fn kept_ids(store: &dyn TranslationStore) -> Vec<String> {
        let history = store.history().unwrap();
        history.versions.into_iter().map(|v| v.version).collect()
    }

    pub fn starts_empty(store: &dyn TranslationStore) {
        assert_eq!(store.load().unwrap(), None);
        assert_eq!(store.history().unwrap(), History::default());
        assert_eq!(store.load_version(&"0".repeat(64)).unwrap(), None);
    }

    /// The last `keep` versions stay loadable, newest first, each with its summary; older
    /// ones are gone, and a version stored again moves up instead of appearing twice.
    pub fn kept_versions_are_listed_newest_first_and_pruned(store: &dyn TranslationStore) {
        let versions: Vec<_> = (0..5)
            .map(|i| StoredDocument::new(doc(&format!("v{i}"))).unwrap())
            .collect();
        for v in &versions {
            assert_eq!(save(store, v, 3), PutOutcome::Stored);
        }
        let listed = kept_ids(store);
        let newest: Vec<String> = versions
            .iter()
            .rev()
            .take(3)
            .map(|v| v.version.clone())
            .collect();
        assert_eq!(listed, newest);
        let head = store.history().unwrap().versions[0].clone();
        assert_eq!(
            head.previous_version.as_deref(),
            Some(versions[3].version.as_str())
        );
        assert_eq!((head.added, head.removed, head.changed), (0, 0, 1));
        for (i, v) in versions.iter().enumerate() {
            let kept = store.load_version(&v.version).unwrap();
            assert_eq!(kept.as_ref(), (i >= 2).then_some(v), "version {i}");
        }
        // An older kept version made current again.
        assert_eq!(save(store, &versions[2], 3), PutOutcome::Stored);
        assert_eq!(store.load().unwrap().unwrap(), versions[2]);
        let listed = kept_ids(store);
        assert_eq!(
            listed,
            [
                versions[2].version.clone(),
                versions[4].version.clone(),
                versions[3].version.clone()
            ]
        );
        assert_eq!(
            store.load_version(&versions[3].version).unwrap().as_ref(),
            Some(&versions[3])
        );
    }

    pub fn save_then_load_returns_the_document_with_version_and_time(store: &dyn TranslationStore) {
        let stored = StoredDocument::new(doc("Yes")).unwrap();
        assert_eq!(save(store, &stored, 10), PutOutcome::Stored);
        let got = store.load().unwrap().unwrap();
        assert_eq!(got, stored);
        assert_eq!(got.version.len(), 64);
    }

    pub fn a_new_save_replaces_the_old_document(store: &dyn TranslationStore) {
        let first = StoredDocument::new(doc("Yes")).unwrap();
        save(store, &first, 10);
        let second = StoredDocument::new(doc("Yes!")).unwrap();
        assert_ne!(second.version, first.version);
        save(store, &second, 10);
        assert_eq!(store.load().unwrap().unwrap(), second);
    }

    /// A reader racing a writer only ever loads whole documents.
    pub fn readers_never_see_a_mix(store: Arc<dyn TranslationStore>) {
        let docs: Vec<_> = (0..20)
            .map(|i| StoredDocument::new(doc(&"x".repeat(1000 + i))).unwrap())
            .collect();
        let versions: std::collections::HashSet<_> =
            docs.iter().map(|d| d.version.clone()).collect();
        save(store.as_ref(), &docs[0], 3);
        let reader = {
            let store = store.clone();
            std::thread::spawn(move || {
                for _ in 0..50 {
                    let got = store.load().unwrap().unwrap();
                    assert_eq!(version_of(&got.document).unwrap(), got.version);
                }
            })
        };
        for d in &docs {
            save(store.as_ref(), d, 3);
        }
        reader.join().unwrap();
        assert!(versions.contains(&store.load().unwrap().unwrap().version));
    }

    /// Channels swap only over the revision they were read at and only to kept versions;
    /// the versions they pin outlive `keep` until no channel needs them.
    pub fn channels_swap_over_their_revision_and_pin_their_versions(store: &dyn TranslationStore) {
        use crate::translations::channels::book::ChannelBook;
        let now = Utc::now();
        assert_eq!(store.channels().unwrap(), ChannelBook::default());
        let v: Vec<_> = (0..5)
            .map(|i| StoredDocument::new(doc(&format!("pin{i}"))).unwrap())
            .collect();
        save(store, &v[0], 2);
        save(store, &v[1], 2);
        let mut book = ChannelBook::default();
        book.publish("production", &v[0].version, "t", now, 2)
            .unwrap();
        assert_eq!(store.swap_channels(0, &book).unwrap(), Swap::Done);
        assert_eq!(store.channels().unwrap(), book);
        // made from revision 0 again: another writer got there first
        assert_eq!(store.swap_channels(0, &book).unwrap(), Swap::Stale);
        let mut never = book.clone();
        let unknown = "f".repeat(64);
        never.publish("beta", &unknown, "t", now, 2).unwrap();
        assert_eq!(
            store.swap_channels(1, &never).unwrap(),
            Swap::Missing(unknown)
        );
        assert_eq!(store.channels().unwrap(), book);
        // v0 is pinned: it outlives keep = 2, v1 does not
        save(store, &v[2], 2);
        save(store, &v[3], 2);
        assert_eq!(
            kept_ids(store),
            [
                v[3].version.clone(),
                v[2].version.clone(),
                v[0].version.clone()
            ]
        );
        assert_eq!(
            store.load_version(&v[0].version).unwrap().as_ref(),
            Some(&v[0])
        );
        assert_eq!(store.load_version(&v[1].version).unwrap(), None);
        // moved on twice (depth 2): v0 is no longer needed and the next save prunes it
        let mut next = store.channels().unwrap();
        next.publish("production", &v[3].version, "t", now, 2)
            .unwrap();
        next.publish("production", &v[2].version, "t", now, 2)
            .unwrap();
        assert_eq!(store.swap_channels(1, &next).unwrap(), Swap::Done);
        save(store, &v[4], 2);
        assert_eq!(
            kept_ids(store),
            [
                v[4].version.clone(),
                v[3].version.clone(),
                v[2].version.clone()
            ]
        );
        assert_eq!(store.load_version(&v[0].version).unwrap(), None);
    }

    /// Runs the whole suite against fresh stores made by `open` in `dir`; `plant` writes
    /// raw bytes where the store keeps its document, as an old version or a hand edit would.
    pub fn run(
        open: impl Fn(&std::path::Path) -> Arc<dyn TranslationStore>,
        plant: impl Fn(&std::path::Path, &[u8]),
    ) {
        let cases: [fn(&dyn TranslationStore); 5] = [
            starts_empty,
            save_then_load_returns_the_document_with_version_and_time,
            a_new_save_replaces_the_old_document,
            kept_versions_are_listed_newest_first_and_pruned,
            channels_swap_over_their_revision_and_pin_their_versions,
        ];
        for case in cases {
            let dir = tempfile::tempdir().unwrap();
            case(open(dir.path()).as_ref());
        }
        let dir = tempfile::tempdir().unwrap();
        readers_never_see_a_mix(open(dir.path()));
        // The producer's state: none at first, then the last saved, also after reopening.
        let dir = tempfile::tempdir().unwrap();
        let state = SyncState {
            last_sync_at: Some(Utc::now()),
            last_success_at: None,
            last_error: Some("the sheet is gone".into()),
            consecutive_failures: 2,
            next_sync_at: Some(Utc::now()),
            by: "depot produce on test (pid 1)".into(),
        };
        {
            let store = open(dir.path());
            assert_eq!(store.load_sync_state().unwrap(), None);
            store.save_sync_state(&SyncState::default()).unwrap();
            store.save_sync_state(&state).unwrap();
            store.flush().unwrap();
        }
        assert_eq!(open(dir.path()).load_sync_state().unwrap(), Some(state));
        // What was saved survives reopening.
        let dir = tempfile::tempdir().unwrap();
        let stored = StoredDocument::new(doc("kept")).unwrap();
        let older = StoredDocument::new(doc("older")).unwrap();
        {
            let store = open(dir.path());
            save(store.as_ref(), &older, 10);
            save(store.as_ref(), &stored, 10);
            store.flush().unwrap();
        }
        // ... and so do the kept versions and their summaries, and the channels.
        {
            let store = open(dir.path());
            let mut book = store.channels().unwrap();
            book.publish("beta", &older.version, "t", Utc::now(), 10)
                .unwrap();
            assert_eq!(store.swap_channels(0, &book).unwrap(), Swap::Done);
            store.flush().unwrap();
        }
        let reopened = open(dir.path());
        assert_eq!(
            reopened.channels().unwrap().version("beta"),
            Some(older.version.as_str())
        );
        assert_eq!(reopened.load().unwrap().unwrap(), stored);
        assert_eq!(
            reopened.load_version(&older.version).unwrap().unwrap(),
            older
        );
        assert_eq!(reopened.history().unwrap().versions.len(), 2);
        // Bytes that are not a document, or a document past the limits, load as Corrupt
        // (the store still opens, so a sync can replace them).
        let mut deep = StoredDocument::new(doc("deep")).unwrap();
        deep.document.entries[0].path = (0..5000).map(|i| format!("K{i}")).collect();
        for bad in [
            b"{not json".to_vec(),
            "[".repeat(100_000).into_bytes(),
            encode(&deep).unwrap(),
        ] {
            let dir = tempfile::tempdir().unwrap();
            plant(dir.path(), &bad);
            let store = open(dir.path());
            assert!(
                matches!(store.load(), Err(StoreError::Corrupt(_))),
                "{:?}",
                store.load()
            );
            save(store.as_ref(), &stored, 10);
            assert_eq!(store.load().unwrap().unwrap(), stored);
        }
    }
}
