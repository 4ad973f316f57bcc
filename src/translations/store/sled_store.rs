//! The sled medium (default): the current document is one value under one key, and a
//! single-key insert is atomic in sled, so a crash leaves either version, never a mix.

use super::{CachedStore, Medium, StoreError};
use std::path::Path;

const CURRENT: &[u8] = b"current";

pub struct SledMedium {
    db: sled::Db,
}

impl CachedStore<SledMedium> {
    pub fn open(path: &Path) -> Result<CachedStore<SledMedium>, StoreError> {
        let db = sled::Config::new()
            .path(path)
            .open()
            .map_err(|e| StoreError::Open {
                path: path.display().to_string(),
                reason: e.to_string(),
            })?;
        CachedStore::new(SledMedium { db })
    }
}

fn io(e: sled::Error) -> StoreError {
    StoreError::Io(e.to_string())
}

impl Medium for SledMedium {
    fn load(&self) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.db.get(CURRENT).map_err(io)?.map(|v| v.to_vec()))
    }

    fn save(&self, bytes: &[u8]) -> Result<(), StoreError> {
        self.db.insert(CURRENT, bytes).map_err(io)?;
        self.flush()
    }

    fn flush(&self) -> Result<(), StoreError> {
        self.db.flush().map(|_| ()).map_err(io)
    }

    fn kind(&self) -> &'static str {
        "sled"
    }
}

#[cfg(test)]
mod tests {
    use super::super::SledStore;
    use std::sync::Arc;

    #[test]
    fn sled_store_passes_the_store_suite() {
        super::super::suite::run(|dir| Arc::new(SledStore::open(&dir.join("t.sled")).unwrap()));
    }
}
