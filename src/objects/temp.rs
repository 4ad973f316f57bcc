//! Temp files of puts under way. Each holds an exclusive lock (`flock`) on its file while
//! it is written; the kernel drops the lock when the process dies, however it dies, so a
//! temp file nobody holds is a leftover of a killed put and may go. This holds across
//! processes: `depot files add` may write beside a running daemon.

use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use super::ObjectError;

/// A fresh temp file's path, removed on drop unless `disarm`ed after the rename.
pub(super) struct TempFile {
    pub(super) path: PathBuf,
    armed: bool,
}

impl TempFile {
    /// A new, locked temp file in `dir` (made by `atomic_file::create_temp`, as every
    /// temporary file of depot: exclusively, under an unpredictable name).
    pub(super) fn create(dir: &Path) -> Result<(TempFile, File), ObjectError> {
        loop {
            let (path, file) = crate::atomic_file::create_temp(dir, "put", None)
                .map_err(ObjectError::io("create a temporary file in", dir))?;
            let guard = TempFile { path, armed: true };
            file.lock().map_err(ObjectError::io("lock", &guard.path))?;
            // A sweep may have taken the file for a dead one in the instant between its
            // creation and the lock; then it is gone, and another name is tried.
            if still_linked(&guard.path, &file) {
                return Ok((guard, file));
            }
            guard.disarm();
        }
    }

    pub(super) fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.armed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Removes every file in `dir` that no live process holds; returns how many.
pub(super) fn sweep_dead(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|entry| remove_if_unheld(&entry.path()))
        .count()
}

/// Takes the file's lock; when that succeeds nobody holds it, so it is removed (while the
/// lock is still ours, so a late owner notices through `still_linked`).
pub(super) fn remove_if_unheld(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    match file.try_lock() {
        Ok(()) => fs::remove_file(path).is_ok(),
        Err(TryLockError::WouldBlock) => false,
        Err(TryLockError::Error(e)) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot lock a leftover file");
            false
        }
    }
}

/// Whether `path` still names the file `file` has open.
pub(super) fn still_linked(path: &Path, file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(path), file.metadata()) {
            (Ok(named), Ok(open)) => named.dev() == open.dev() && named.ino() == open.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        path.exists()
    }
}

/// 16 random hex digits for a file name.
pub(super) fn random_name(dir: &Path) -> Result<String, ObjectError> {
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).map_err(|e| ObjectError::Io {
        action: "pick a file name in",
        path: dir.to_owned(),
        source: io::Error::other(e),
    })?;
    Ok(crate::hex::encode(&random))
}
