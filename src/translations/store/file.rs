//! The file backend: one JSON document, written to a temporary file in the same folder,
//! synced, then renamed over the old one (rename is atomic on POSIX file systems).

use super::{PutOutcome, StoreError, StoredDocument, TranslationStore, check_put};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

pub struct FileStore {
    path: PathBuf,
    current: RwLock<Option<Arc<StoredDocument>>>,
    write: Mutex<()>,
}

impl FileStore {
    pub fn open(path: &Path) -> Result<FileStore, StoreError> {
        let current = match std::fs::read(path) {
            Ok(bytes) => Some(Arc::new(
                serde_json::from_slice(&bytes).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(StoreError::Open {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                });
            }
        };
        Ok(FileStore {
            path: path.to_path_buf(),
            current: RwLock::new(current),
            write: Mutex::new(()),
        })
    }
}

/// Writes `bytes` to `path` so that `path` holds either its old content or all of
/// `bytes`, even across a crash.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&folder)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = folder.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        // The rename itself is durable only once the folder is synced.
        std::fs::File::open(&folder)?.sync_all()
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

impl TranslationStore for FileStore {
    fn put(&self, stored: &StoredDocument) -> Result<PutOutcome, StoreError> {
        let _writer = self.write.lock().unwrap_or_else(PoisonError::into_inner);
        let current = self.get()?;
        if let Some(outcome) = check_put(current.as_deref(), stored)? {
            return Ok(outcome);
        }
        let bytes = serde_json::to_vec(stored).map_err(|e| StoreError::Io(e.to_string()))?;
        write_atomically(&self.path, &bytes).map_err(|e| StoreError::Io(e.to_string()))?;
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
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_store_passes_the_store_suite() {
        super::super::suite::run(|dir| Arc::new(FileStore::open(&dir.join("t.json")).unwrap()));
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file_and_the_old_content() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("doc.json");
        write_atomically(&target, b"old").unwrap();
        // A folder in the way makes the rename fail.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(blocked.join("x"), b"").unwrap();
        assert!(write_atomically(&blocked, b"new").is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}
