//! Intents: a write that touches an object and its record (an upload, a delete) first
//! leaves a note here naming the object, and removes it once both halves agree. The note
//! is locked (`flock`) by its writer for as long as the write runs, so a note nobody holds
//! is one whose process was killed mid-way; the daemon resolves those at start (the object
//! must exist exactly when its record does, see `files::writes::recover`). The files are
//! `root/.pending/<random>.json`, `{"op": "put"|"delete", "bucket": ..., "key": ...}`.

use std::fs::{self, File, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::temp::{random_name, still_linked};
use super::{ObjectError, sync_dir};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IntentOp {
    Put,
    Delete,
}

/// What a note says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Intent {
    pub op: IntentOp,
    pub bucket: String,
    pub key: String,
}

/// A note of a write under way, locked while this value lives. `finish` removes it; a
/// dropped one stays on disk (unlocked) for the next start to resolve, so an error path
/// that forgets to clean up, or a panic, still ends in a consistent store.
#[derive(Debug)]
pub struct Pending {
    path: PathBuf,
    _lock: File,
}

impl Pending {
    pub(super) fn begin(
        dir: &Path,
        op: IntentOp,
        bucket: &str,
        key: &str,
    ) -> Result<Pending, ObjectError> {
        let intent = Intent {
            op,
            bucket: bucket.to_owned(),
            key: key.to_owned(),
        };
        // Serialising three strings cannot fail.
        let body = serde_json::to_vec(&intent).unwrap_or_default();
        loop {
            let path = dir.join(format!("{}.json", random_name(dir)?));
            let mut file = File::options()
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(ObjectError::io("create", &path))?;
            file.lock().map_err(ObjectError::io("lock", &path))?;
            if !still_linked(&path, &file) {
                // Swept as an empty leftover between creation and lock: try another name.
                continue;
            }
            let written = file
                .write_all(&body)
                .and_then(|()| file.sync_all())
                .map_err(ObjectError::io("write", &path));
            if let Err(e) = written {
                let _ = fs::remove_file(&path);
                return Err(e);
            }
            // The note must be on disk before the object it announces.
            sync_dir(dir);
            return Ok(Pending { path, _lock: file });
        }
    }

    /// Both halves agree: the note goes.
    pub fn finish(self) {
        if let Err(e) = fs::remove_file(&self.path) {
            tracing::warn!(path = %self.path.display(), error = %e, "cannot remove a finished intent");
        }
    }
}

/// A note whose writer is gone, locked by the caller until it is finished or dropped.
#[derive(Debug)]
pub struct Unfinished {
    path: PathBuf,
    _lock: File,
    /// `None` when the writer died before the note was whole: nothing was written yet.
    pub intent: Option<Intent>,
}

impl Unfinished {
    /// The note is resolved: it goes.
    pub fn finish(self) {
        if let Err(e) = fs::remove_file(&self.path) {
            tracing::warn!(path = %self.path.display(), error = %e, "cannot remove a resolved intent");
        }
    }
}

/// Notes kept outside an embedded store: writes to an S3 endpoint keep theirs in a folder
/// of the data folder (see `files::writes`). The folder is created when missing.
pub fn begin_in(dir: &Path, op: IntentOp, bucket: &str, key: &str) -> Result<Pending, ObjectError> {
    fs::create_dir_all(dir).map_err(ObjectError::io("create folder", dir))?;
    Pending::begin(dir, op, bucket, key)
}

/// The notes in `dir` that no live process holds.
pub fn unfinished(dir: &Path) -> Vec<Unfinished> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(mut file) = File::options().read(true).open(&path) else {
            continue;
        };
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => continue,
            Err(TryLockError::Error(e)) => {
                tracing::warn!(path = %path.display(), error = %e, "cannot lock an intent");
                continue;
            }
        }
        // Another sweep may have resolved and removed it meanwhile.
        if !still_linked(&path, &file) {
            continue;
        }
        let mut body = Vec::new();
        let intent = file
            .read_to_end(&mut body)
            .ok()
            .and_then(|_| serde_json::from_slice(&body).ok());
        found.push(Unfinished {
            path,
            _lock: file,
            intent,
        });
    }
    found
}
