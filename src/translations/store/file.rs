//! The file backend: one JSON document, written to a temporary file in the same folder,
//! synced, then renamed over the old one (rename is atomic on POSIX file systems).

use super::{StoreError, StoredDocument, TranslationStore, decode, encode};
use std::path::{Path, PathBuf};

pub struct FileStore {
    path: PathBuf,
}

impl FileStore {
    /// Nothing is read yet: `load` does, so that a bad file does not stop the start.
    pub fn open(path: &Path) -> Result<FileStore, StoreError> {
        Ok(FileStore {
            path: path.to_path_buf(),
        })
    }
}

impl TranslationStore for FileStore {
    fn save(&self, stored: &StoredDocument) -> Result<(), StoreError> {
        crate::atomic_file::write(&self.path, &encode(stored)?)
            .map_err(|e| StoreError::Io(e.to_string()))
    }

    fn load(&self) -> Result<Option<StoredDocument>, StoreError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => decode(&bytes).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::Open {
                path: self.path.display().to_string(),
                reason: e.to_string(),
            }),
        }
    }

    /// Every save is already synced.
    fn flush(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn health(&self) -> super::StoreHealth {
        super::StoreHealth::local("file")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn file_store_passes_the_store_suite() {
        super::super::suite::run(
            |dir| Arc::new(FileStore::open(&dir.join("t.json")).unwrap()),
            |dir, bytes| std::fs::write(dir.join("t.json"), bytes).unwrap(),
        );
    }
}
