//! An upload written to disk as it arrives, so that a request body of any size never sits
//! whole in memory: `POST /files` streams the file part into a spool, then the spool goes
//! into the embedded store (a rename, when it lies in the store's temp folder) or is
//! streamed from disk to the S3 endpoint; a PUT to the embedded store, or a part of a
//! multipart upload, is spooled the same way. Its digests (`checksums`) are computed as it
//! is written. The file is locked while it exists (see `temp`), so a sweep at start
//! removes what a killed process left, and nothing else.

use std::fs::File;
use std::path::{Path, PathBuf};

use tokio::io::AsyncWriteExt;

use super::ObjectError;
use super::checksums::{Digested, Digests};
use super::temp::{self, TempFile};

/// A spool being written.
pub struct Spool {
    temp: TempFile,
    file: tokio::fs::File,
    len: u64,
    digests: Digests,
}

/// A spool written whole and flushed to disk: its content is `len` bytes at `path()`,
/// removed when this is dropped unless the store took it.
pub struct Spooled {
    pub(super) temp: TempFile,
    pub(super) file: File,
    len: u64,
    digests: Digested,
}

impl Spool {
    /// A new, empty spool file in `dir` (created when missing) whose SHA-256 is computed.
    pub async fn create(dir: PathBuf) -> Result<Spool, ObjectError> {
        Self::create_with(dir, Digests::sha256()).await
    }

    /// `create`, computing `digests`.
    pub async fn create_with(dir: PathBuf, digests: Digests) -> Result<Spool, ObjectError> {
        let (temp, file) = tokio::task::spawn_blocking(move || {
            std::fs::create_dir_all(&dir).map_err(ObjectError::io("create folder", &dir))?;
            TempFile::create(&dir)
        })
        .await
        .map_err(|e| ObjectError::Io {
            action: "create a spool file in",
            path: PathBuf::new(),
            source: std::io::Error::other(e.to_string()),
        })??;
        Ok(Spool {
            temp,
            file: tokio::fs::File::from_std(file),
            len: 0,
            digests,
        })
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub async fn write(&mut self, chunk: &[u8]) -> Result<(), ObjectError> {
        self.file
            .write_all(chunk)
            .await
            .map_err(ObjectError::io("write", &self.temp.path))?;
        self.len += chunk.len() as u64;
        self.digests.update(chunk);
        Ok(())
    }

    /// Flushes the content to disk (fsync), as the store does for every object.
    pub async fn finish(mut self) -> Result<Spooled, ObjectError> {
        let path = self.temp.path.clone();
        self.file
            .flush()
            .await
            .map_err(ObjectError::io("write", &path))?;
        self.file
            .sync_all()
            .await
            .map_err(ObjectError::io("flush to disk", &path))?;
        Ok(Spooled {
            temp: self.temp,
            file: self.file.into_std().await,
            len: self.len,
            digests: self.digests.finish(),
        })
    }
}

impl Spooled {
    pub fn path(&self) -> &Path {
        &self.temp.path
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The content's digests (SHA-256 always).
    pub fn digests(&self) -> &Digested {
        &self.digests
    }
}

/// Removes the spool files in `dir` that no live process holds (killed uploads); returns
/// how many.
pub fn sweep_dead(dir: &Path) -> usize {
    temp::sweep_dead(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_spool_holds_what_was_written_and_goes_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let spool_dir = dir.path().join("spool");
        let mut spool = Spool::create(spool_dir.clone()).await.unwrap();
        spool.write(b"hello ").await.unwrap();
        spool.write(b"world").await.unwrap();
        // Held while written: a sweep leaves it.
        assert_eq!(sweep_dead(&spool_dir), 0);
        let spooled = spool.finish().await.unwrap();
        assert_eq!(spooled.len(), 11);
        assert_eq!(
            crate::hex::encode(&spooled.digests().sha256),
            "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"
        );
        assert_eq!(std::fs::read(spooled.path()).unwrap(), b"hello world");
        let path = spooled.path().to_owned();
        drop(spooled);
        assert!(!path.exists());
    }
}
