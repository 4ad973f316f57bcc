//! The file backend: each kept version is one JSON document in a folder beside the
//! configured file (`translations.json` → `translations.versions/<version>.json`) with the
//! list of kept versions in `history.json` there (the producer's state in `sync.json`, the
//! channels in `channels.json`);
//! every file is written to a temporary file
//! in the same folder, synced, then renamed over the old one (atomic on POSIX file
//! systems). The list is the truth; the configured file is rewritten last with the current
//! document, for tools and people that read it.

use super::{
    ChannelBook, PutOutcome, StoreError, StoredDocument, Swap, TranslationStore, decode,
    decode_channels, decode_history, encode, encode_history, load_current,
};
use crate::translations::versions::{History, VersionSummary, is_version_id};
use std::path::{Path, PathBuf};

pub struct FileStore {
    /// The current document, as stores written before versions were kept have it.
    path: PathBuf,
    /// The kept versions and their list.
    versions: PathBuf,
    /// A channel swap's compare and write, one at a time in this process.
    channels: std::sync::Mutex<()>,
}

impl FileStore {
    /// Nothing is read yet: `load` does, so that a bad file does not stop the start.
    pub fn open(path: &Path) -> Result<FileStore, StoreError> {
        Ok(FileStore {
            path: path.to_path_buf(),
            versions: path.with_extension("versions"),
            channels: std::sync::Mutex::new(()),
        })
    }

    fn version_path(&self, version: &str) -> PathBuf {
        self.versions.join(format!("{version}.json"))
    }

    fn history_path(&self) -> PathBuf {
        self.versions.join("history.json")
    }

    fn sync_state_path(&self) -> PathBuf {
        self.versions.join("sync.json")
    }

    fn channels_path(&self) -> PathBuf {
        self.versions.join("channels.json")
    }

    fn create_folder(&self) -> Result<(), StoreError> {
        std::fs::create_dir_all(&self.versions).map_err(|e| StoreError::Open {
            path: self.versions.display().to_string(),
            reason: e.to_string(),
        })
    }

    fn read(&self, path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
        match std::fs::read(path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::Open {
                path: path.display().to_string(),
                reason: e.to_string(),
            }),
        }
    }

    fn read_history(&self) -> Result<Option<History>, StoreError> {
        self.read(&self.history_path())?
            .map(|bytes| decode_history(&bytes))
            .transpose()
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        crate::atomic_file::write(path, bytes)
            .map_err(|e| StoreError::Io(format!("{}: {e}", path.display())))
    }
}

impl TranslationStore for FileStore {
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
        self.create_folder()?;
        let bytes = encode(stored)?;
        // The document first: the list names only versions whose document is there.
        self.write(&self.version_path(&stored.version), &bytes)?;
        self.write(&self.history_path(), &encode_history(&history)?)?;
        self.write(&self.path, &bytes)?;
        for version in pruned.iter().filter(|v| is_version_id(v)) {
            // A file already gone is what we wanted.
            let _ = std::fs::remove_file(self.version_path(version));
        }
        Ok(PutOutcome::Stored)
    }

    fn load(&self) -> Result<Option<StoredDocument>, StoreError> {
        load_current(
            || self.read_history(),
            |version| self.load_version(version),
            || {
                self.read(&self.path)?
                    .map(|bytes| decode(&bytes))
                    .transpose()
            },
        )
    }

    fn load_version(&self, version: &str) -> Result<Option<StoredDocument>, StoreError> {
        if !is_version_id(version) {
            return Ok(None);
        }
        self.read(&self.version_path(version))?
            .map(|bytes| decode(&bytes))
            .transpose()
    }

    fn history(&self) -> Result<History, StoreError> {
        Ok(self.read_history()?.unwrap_or_default())
    }

    /// Every save is already synced.
    fn flush(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn health(&self) -> super::StoreHealth {
        super::StoreHealth::local("file")
    }

    fn save_sync_state(&self, state: &super::SyncState) -> Result<(), StoreError> {
        self.create_folder()?;
        self.write(&self.sync_state_path(), &super::encode_sync_state(state)?)
    }

    fn load_sync_state(&self) -> Result<Option<super::SyncState>, StoreError> {
        self.read(&self.sync_state_path())?
            .map(|bytes| super::decode_sync_state(&bytes))
            .transpose()
    }

    fn channels(&self) -> Result<ChannelBook, StoreError> {
        match self.read(&self.channels_path())? {
            Some(bytes) => decode_channels(&bytes),
            None => Ok(ChannelBook::default()),
        }
    }

    /// Compared and written under a lock of this process: the file store is one process's
    /// (`depot publish` asks a running daemon rather than write beside it).
    fn swap_channels(&self, expected: u64, next: &ChannelBook) -> Result<Swap, StoreError> {
        let _one_at_a_time = self
            .channels
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.channels()?.rev != expected {
            return Ok(Swap::Stale);
        }
        for version in next.pinned() {
            if !is_version_id(&version) || !self.version_path(&version).is_file() {
                return Ok(Swap::Missing(version));
            }
        }
        self.create_folder()?;
        let bytes = crate::translations::channels::book::encode(next);
        self.write(&self.channels_path(), &bytes)?;
        Ok(Swap::Done)
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
