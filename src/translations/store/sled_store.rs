//! The sled backend (default): the current document is one value under one key, and a
//! single-key insert is atomic in sled, so a crash leaves either version, never a mix.

use super::{PutOutcome, StoreError, StoredDocument, TranslationStore, check_put};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

const CURRENT: &[u8] = b"current";

pub struct SledStore {
    db: sled::Db,
    /// The decoded current document, so reads never touch the disk.
    current: RwLock<Option<Arc<StoredDocument>>>,
    /// Serialises writers: the compare-then-write in `put` must not interleave.
    write: Mutex<()>,
}

impl SledStore {
    pub fn open(path: &Path) -> Result<SledStore, StoreError> {
        let db = sled::Config::new()
            .path(path)
            .open()
            .map_err(|e| StoreError::Open {
                path: path.display().to_string(),
                reason: e.to_string(),
            })?;
        let current = match db.get(CURRENT).map_err(|e| StoreError::Io(e.to_string()))? {
            Some(bytes) => Some(Arc::new(
                serde_json::from_slice(&bytes).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            )),
            None => None,
        };
        Ok(SledStore {
            db,
            current: RwLock::new(current),
            write: Mutex::new(()),
        })
    }
}

impl TranslationStore for SledStore {
    fn put(&self, stored: &StoredDocument) -> Result<PutOutcome, StoreError> {
        let _writer = self.write.lock().unwrap_or_else(PoisonError::into_inner);
        let current = self.get()?;
        if let Some(outcome) = check_put(current.as_deref(), stored)? {
            return Ok(outcome);
        }
        let bytes = serde_json::to_vec(stored).map_err(|e| StoreError::Io(e.to_string()))?;
        self.db
            .insert(CURRENT, bytes)
            .map_err(|e| StoreError::Io(e.to_string()))?;
        self.db.flush().map_err(|e| StoreError::Io(e.to_string()))?;
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
        self.db
            .flush()
            .map(|_| ())
            .map_err(|e| StoreError::Io(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sled_store_passes_the_store_suite() {
        super::super::suite::run(|dir| Arc::new(SledStore::open(&dir.join("t.sled")).unwrap()));
    }
}
