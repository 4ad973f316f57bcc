//! The sled backend (default): each kept version's document is one value under its own
//! key, and the list of kept versions (newest, the current one, first) one more. A save
//! writes the document, the new list and the removal of pruned documents in one atomic
//! batch, so a crash leaves the old state or the new one, never a mix.

use super::{
    ChannelBook, PutOutcome, StoreError, StoredDocument, Swap, TranslationStore, decode,
    decode_channels, decode_history, encode, load_current,
};
use crate::translations::versions::{History, VersionSummary};
use std::path::Path;

/// Where stores written before versions were kept hold their one document; read while no
/// history exists, removed by the first save.
const LEGACY_CURRENT: &[u8] = b"current";
const HISTORY: &[u8] = b"history";
const SYNC_STATE: &[u8] = b"producer:sync";
const CHANNELS: &[u8] = b"channels";

fn doc_key(version: &str) -> Vec<u8> {
    format!("doc:{version}").into_bytes()
}

/// sled's page cache defaults to 1 GiB and keeps the pages of every version written in
/// it, which showed as resident memory growing with each sync. The service holds the
/// document it serves, so the store only needs a cache for its own bookkeeping.
const CACHE_BYTES: u64 = 4 * 1024 * 1024;

pub struct SledStore {
    db: sled::Db,
}

impl SledStore {
    pub fn open(path: &Path) -> Result<SledStore, StoreError> {
        let db = sled::Config::new()
            .path(path)
            .cache_capacity(CACHE_BYTES)
            .open()
            .map_err(|e| StoreError::Open {
                path: path.display().to_string(),
                reason: match &e {
                    // sled tells a lock held by another process only in its message.
                    sled::Error::Io(io) if io.to_string().starts_with("could not acquire lock") => {
                        "it is in use by another depot process (a running `depot serve`?); \
                         stop that process, or give this command another store with --data-dir"
                            .to_owned()
                    }
                    _ => e.to_string(),
                },
            })?;
        Ok(SledStore { db })
    }
}

/// sled frees a replaced value only once crossbeam-epoch collects the garbage it deferred,
/// which the collector does every 128 pins of a thread. The store is touched a few times
/// per save, from whichever blocking thread runs it, so replaced documents piled up: every
/// version synced stayed in memory (measured with heaptrack in the soak: 101 documents of
/// 156 KB alive after 139 syncs). Flushing the thread's garbage and collecting a few times
/// after each save frees them (a test program saving from four threads: 21 MB kept
/// without it, 2.3 MB with it).
fn release_replaced_values() {
    for _ in 0..4 {
        crossbeam_epoch::pin().flush();
    }
}

fn io(e: sled::Error) -> StoreError {
    StoreError::Io(e.to_string())
}

impl SledStore {
    fn read_history(&self) -> Result<Option<History>, StoreError> {
        self.db
            .get(HISTORY)
            .map_err(io)?
            .map(|bytes| decode_history(&bytes))
            .transpose()
    }
}

impl TranslationStore for SledStore {
    fn save(
        &self,
        stored: &StoredDocument,
        summary: &VersionSummary,
        keep: usize,
    ) -> Result<PutOutcome, StoreError> {
        let mut history = self.read_history()?.unwrap_or_default();
        let pinned = self.channels()?.pinned();
        let Some(pruned) = history.admit(summary, keep, &|v| pinned.contains(v)) else {
            return Ok(PutOutcome::Unchanged);
        };
        let mut batch = sled::Batch::default();
        batch.insert(doc_key(&stored.version), encode(stored)?);
        batch.insert(HISTORY, super::encode_history(&history)?);
        for version in &pruned {
            batch.remove(doc_key(version));
        }
        batch.remove(LEGACY_CURRENT);
        self.db.apply_batch(batch).map_err(io)?;
        self.flush()?;
        release_replaced_values();
        Ok(PutOutcome::Stored)
    }

    fn load(&self) -> Result<Option<StoredDocument>, StoreError> {
        load_current(
            || self.read_history(),
            |version| self.load_version(version),
            || match self.db.get(LEGACY_CURRENT).map_err(io)? {
                Some(bytes) => decode(&bytes).map(Some),
                None => Ok(None),
            },
        )
    }

    fn load_version(&self, version: &str) -> Result<Option<StoredDocument>, StoreError> {
        match self.db.get(doc_key(version)).map_err(io)? {
            Some(bytes) => decode(&bytes).map(Some),
            None => Ok(None),
        }
    }

    fn history(&self) -> Result<History, StoreError> {
        Ok(self.read_history()?.unwrap_or_default())
    }

    fn flush(&self) -> Result<(), StoreError> {
        self.db.flush().map(|_| ()).map_err(io)
    }

    fn health(&self) -> super::StoreHealth {
        super::StoreHealth::local("sled")
    }

    fn save_sync_state(&self, state: &super::SyncState) -> Result<(), StoreError> {
        self.db
            .insert(SYNC_STATE, super::encode_sync_state(state)?)
            .map_err(io)?;
        Ok(())
    }

    fn load_sync_state(&self) -> Result<Option<super::SyncState>, StoreError> {
        self.db
            .get(SYNC_STATE)
            .map_err(io)?
            .map(|bytes| super::decode_sync_state(&bytes))
            .transpose()
    }

    fn channels(&self) -> Result<ChannelBook, StoreError> {
        match self.db.get(CHANNELS).map_err(io)? {
            Some(bytes) => decode_channels(&bytes),
            None => Ok(ChannelBook::default()),
        }
    }

    /// A compare-and-swap of the record's bytes. sled is one process's (its lock), whose
    /// writers the service serialises, so the versions checked here stay until the swap.
    fn swap_channels(&self, expected: u64, next: &ChannelBook) -> Result<Swap, StoreError> {
        let old = self.db.get(CHANNELS).map_err(io)?;
        let rev = match &old {
            Some(bytes) => decode_channels(bytes)?.rev,
            None => 0,
        };
        if rev != expected {
            return Ok(Swap::Stale);
        }
        for version in next.pinned() {
            if !self.db.contains_key(doc_key(&version)).map_err(io)? {
                return Ok(Swap::Missing(version));
            }
        }
        let new = crate::translations::channels::book::encode(next);
        match self
            .db
            .compare_and_swap(CHANNELS, old, Some(new))
            .map_err(io)?
        {
            Ok(()) => {
                self.flush()?;
                Ok(Swap::Done)
            }
            Err(_) => Ok(Swap::Stale),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn sled_store_passes_the_store_suite() {
        super::super::suite::run(
            |dir| Arc::new(SledStore::open(&dir.join("t.sled")).unwrap()),
            |dir, bytes| {
                let store = SledStore::open(&dir.join("t.sled")).unwrap();
                store.db.insert(LEGACY_CURRENT, bytes).unwrap();
                store.flush().unwrap();
            },
        );
    }
}
