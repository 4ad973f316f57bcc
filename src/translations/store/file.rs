//! The file backend: one JSON document, written to a temporary file in the same folder,
//! synced, then renamed over the old one (rename is atomic on POSIX file systems).

use super::{CachedStore, Medium, StoreError};
use std::path::{Path, PathBuf};

pub struct FileMedium {
    path: PathBuf,
}

impl CachedStore<FileMedium> {
    pub fn open(path: &Path) -> Result<CachedStore<FileMedium>, StoreError> {
        CachedStore::new(FileMedium {
            path: path.to_path_buf(),
        })
    }
}

impl Medium for FileMedium {
    fn load(&self) -> Result<Option<Vec<u8>>, StoreError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::Open {
                path: self.path.display().to_string(),
                reason: e.to_string(),
            }),
        }
    }

    fn save(&self, bytes: &[u8]) -> Result<(), StoreError> {
        crate::atomic_file::write(&self.path, bytes).map_err(|e| StoreError::Io(e.to_string()))
    }

    /// Every save is already synced.
    fn flush(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn kind(&self) -> &'static str {
        "file"
    }
}

#[cfg(test)]
mod tests {
    use super::super::FileStore;
    use std::sync::Arc;

    #[test]
    fn file_store_passes_the_store_suite() {
        super::super::suite::run(|dir| Arc::new(FileStore::open(&dir.join("t.json")).unwrap()));
    }
}
