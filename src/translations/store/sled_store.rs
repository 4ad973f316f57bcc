//! The sled backend (default): the current document is one value under one key, and a
//! single-key insert is atomic in sled, so a crash leaves either version, never a mix.

use super::{StoreError, StoredDocument, TranslationStore, decode, encode};
use std::path::Path;

const CURRENT: &[u8] = b"current";

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

impl TranslationStore for SledStore {
    fn save(&self, stored: &StoredDocument) -> Result<(), StoreError> {
        self.db.insert(CURRENT, encode(stored)?).map_err(io)?;
        self.flush()?;
        release_replaced_values();
        Ok(())
    }

    fn load(&self) -> Result<Option<StoredDocument>, StoreError> {
        match self.db.get(CURRENT).map_err(io)? {
            Some(bytes) => decode(&bytes).map(Some),
            None => Ok(None),
        }
    }

    fn flush(&self) -> Result<(), StoreError> {
        self.db.flush().map(|_| ()).map_err(io)
    }

    fn health(&self) -> super::StoreHealth {
        super::StoreHealth::local("sled")
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
                store.db.insert(CURRENT, bytes).unwrap();
                store.flush().unwrap();
            },
        );
    }
}
