//! The file backend: one JSON document, written to a temporary file in the same folder,
//! synced, then renamed over the old one (rename is atomic on POSIX file systems).

use super::{CachedStore, Medium, StoreError};
use std::io::Write;
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
        write_atomically(&self.path, bytes).map_err(|e| StoreError::Io(e.to_string()))
    }

    /// Every save is already synced.
    fn flush(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::FileStore;
    use super::*;
    use std::sync::Arc;

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
