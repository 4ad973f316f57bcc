//! Live reload: watch the folders of `config/depot.toml` and `.env.service` (and listen
//! for SIGHUP), wait until the writes settle, then reload the whole configuration.
//!
//! Folders, not files, are watched because editors save by writing a new file and renaming
//! it over the old one, which a watch on the old file would miss. A folder that does not
//! exist yet (a fresh folder has no `config/`: zero configuration) is waited for through
//! its nearest existing ancestor, and watched once it is created. Only events that can
//! change content count (opening or reading a file is no change, and the reload itself
//! opens both files), and `ConfigHandle::reload` applies nothing when the bytes are the ones
//! in force, so a touch or an unchanged save neither logs nor bumps the revision.

use super::{ConfigHandle, ReloadOutcome};
use crate::shutdown::Shutdown;
use notify::event::{EventKind, ModifyKind};
use notify::{RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::mpsc;

/// Quiet time after the last file event before reloading: one save is often several events.
const SETTLE: Duration = Duration::from_millis(200);

/// Why a reload runs, for the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    FileEvent,
    Hangup,
}

/// What the watcher saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wake {
    /// A configuration file may have changed.
    File,
    /// Something was created or renamed in a watched folder: maybe a folder waited for.
    Tree,
}

/// Starts watching; the returned task ends on shutdown. The daemon starts with zero
/// configuration: a missing file is the normal case (one info line), and a missing folder is
/// waited for. SIGHUP reloads too (the habit of daemons), instead of ending the process.
pub fn spawn(handle: ConfigHandle, shutdown: Shutdown) -> tokio::task::JoinHandle<()> {
    let sources = handle.sources().clone();
    let names: BTreeSet<OsString> = [&sources.toml_path, &sources.env_file]
        .iter()
        .filter_map(|p| p.file_name().map(OsString::from))
        .collect();
    let folders: BTreeSet<PathBuf> = [&sources.toml_path, &sources.env_file]
        .iter()
        .map(|p| folder_of(p))
        .collect();

    let (tx, mut rx) = mpsc::unbounded_channel::<Wake>();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            let ours = event
                .paths
                .iter()
                .any(|p| p.file_name().is_some_and(|n| names.contains(n)));
            // A rescan means events were lost: one of them may have been a change.
            if (ours && can_change_content(&event.kind)) || event.need_rescan() {
                let _ = tx.send(Wake::File);
            } else if matches!(
                event.kind,
                EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_))
            ) {
                let _ = tx.send(Wake::Tree);
            }
        }
    });
    let mut watcher = match watcher {
        Ok(w) => Some(w),
        Err(e) => {
            tracing::warn!(error = %e, "cannot watch the configuration files; live reload is off");
            None
        }
    };
    // Folders that do not exist yet, watched for through an ancestor.
    let mut pending = Vec::new();
    if let Some(w) = watcher.as_mut() {
        for folder in &folders {
            match w.watch(folder, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    tracing::debug!(folder = %folder.display(), "watching for configuration changes")
                }
                Err(_) if !folder.exists() => {
                    watch_nearest_ancestor(w, folder);
                    pending.push(folder.clone());
                }
                Err(e) => tracing::warn!(
                    folder = %folder.display(), error = %e,
                    "cannot watch this folder; changes in it need a restart"
                ),
            }
        }
    }
    if !sources.toml_path.exists() {
        // Absolute already (`Sources::new`).
        let path = &sources.toml_path;
        if watcher.is_some() {
            tracing::info!(path = %path.display(), "no configuration file: using the built-in defaults; watching for it");
        } else {
            tracing::info!(path = %path.display(), "no configuration file: using the built-in defaults");
        }
    }
    // Registered before the task starts, so a SIGHUP right after start-up is not fatal.
    let mut hangups = hangup_signals();

    tokio::spawn(async move {
        // The watcher lives as long as the task, which adds the folders that appear.
        let mut watcher = watcher;
        loop {
            let trigger = tokio::select! {
                _ = shutdown.wait() => return,
                event = rx.recv() => match event {
                    Some(Wake::File) => Trigger::FileEvent,
                    Some(Wake::Tree) => {
                        // A folder waited for is there: watch it, and read what it may
                        // already hold.
                        match watcher.as_mut().map(|w| watch_created(w, &mut pending)) {
                            Some(true) => Trigger::FileEvent,
                            _ => continue,
                        }
                    }
                    None => return,
                },
                () = next_hangup(&mut hangups) => Trigger::Hangup,
            };
            if trigger == Trigger::FileEvent {
                while let Ok(Some(wake)) = tokio::time::timeout(SETTLE, rx.recv()).await {
                    if wake == Wake::Tree
                        && let Some(w) = watcher.as_mut()
                    {
                        watch_created(w, &mut pending);
                    }
                }
            } else {
                tracing::info!("reload requested by SIGHUP");
            }
            let handle = handle.clone();
            let outcome = tokio::task::spawn_blocking(move || {
                let outcome = handle.reload();
                (outcome, handle.status().revision)
            })
            .await;
            log_outcome(outcome, trigger);
        }
    })
}

/// Watches the nearest existing ancestor of `folder`, so that its creation is seen.
fn watch_nearest_ancestor(watcher: &mut impl Watcher, folder: &Path) {
    // A relative path's last ancestor is the empty path: the working directory.
    let nearest = (folder.ancestors().skip(1))
        .map(|a| {
            if a.as_os_str().is_empty() {
                Path::new(".")
            } else {
                a
            }
        })
        .find(|a| a.is_dir());
    if let Some(ancestor) = nearest
        && let Err(e) = watcher.watch(ancestor, RecursiveMode::NonRecursive)
    {
        tracing::debug!(folder = %ancestor.display(), error = %e, "cannot watch for a configuration folder");
    }
}

/// Watches the folders of `pending` that exist now (dropping them from it); for the others,
/// the nearest ancestor that exists now. Whether any folder was added.
fn watch_created(watcher: &mut impl Watcher, pending: &mut Vec<PathBuf>) -> bool {
    let before = pending.len();
    pending.retain(|folder| {
        if !folder.is_dir() {
            watch_nearest_ancestor(watcher, folder);
            return true;
        }
        match watcher.watch(folder, RecursiveMode::NonRecursive) {
            Ok(()) => {
                tracing::info!(folder = %folder.display(), "configuration folder created; watching it");
                false
            }
            Err(e) => {
                tracing::warn!(folder = %folder.display(), error = %e, "cannot watch this folder; changes in it need a restart");
                false
            }
        }
    });
    pending.len() < before
}

/// Whether a file event may have changed what a file holds: creation, a write, a rename,
/// a removal. Opening, reading, closing and metadata changes (touch, chmod) cannot. (The
/// watch of a local sheet, `sheets/watch.rs`, asks the same.)
pub(crate) fn can_change_content(kind: &EventKind) -> bool {
    // Events a backend cannot classify (`Any`, `Other`) count: the content comparison
    // in `reload` keeps them from applying anything when nothing changed.
    !matches!(
        kind,
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_))
    )
}

fn log_outcome(outcome: Result<(ReloadOutcome, u64), tokio::task::JoinError>, trigger: Trigger) {
    match outcome {
        Ok((ReloadOutcome::Applied { needs_restart }, revision)) => {
            tracing::info!(revision, "configuration reloaded");
            for key in needs_restart {
                tracing::warn!(
                    key,
                    "configuration change needs restart; the running value is kept"
                );
            }
        }
        Ok((ReloadOutcome::Unchanged, revision)) => match trigger {
            Trigger::Hangup => {
                tracing::info!(revision, "configuration unchanged; nothing to apply")
            }
            Trigger::FileEvent => {
                tracing::debug!(revision, "configuration files saved without a change")
            }
        },
        Ok((ReloadOutcome::Rejected(reason), _)) => {
            tracing::error!(%reason, "configuration change refused; the previous configuration stays in force");
        }
        Err(e) => tracing::error!(error = %e, "configuration reload task failed"),
    }
}

#[cfg(unix)]
type Hangups = Option<tokio::signal::unix::Signal>;
#[cfg(not(unix))]
type Hangups = ();

#[cfg(unix)]
fn hangup_signals() -> Hangups {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::hangup()) {
        Ok(signals) => Some(signals),
        Err(e) => {
            tracing::warn!(error = %e, "cannot listen for SIGHUP; edit the files to reload");
            None
        }
    }
}

#[cfg(not(unix))]
fn hangup_signals() -> Hangups {}

/// Resolves at the next SIGHUP; never when there is no signal stream.
#[cfg(unix)]
async fn next_hangup(hangups: &mut Hangups) {
    if let Some(signals) = hangups
        && signals.recv().await.is_some()
    {
        return;
    }
    // No stream, or it ended: SIGHUP cannot be told apart any more.
    *hangups = None;
    std::future::pending().await
}

#[cfg(not(unix))]
async fn next_hangup(_: &mut Hangups) {
    std::future::pending().await
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, AccessMode, CreateKind, DataChange, MetadataKind, RenameMode};

    #[test]
    fn only_events_that_can_change_content_count() {
        let counted = [
            EventKind::Create(CreateKind::File),
            EventKind::Modify(ModifyKind::Data(DataChange::Content)),
            EventKind::Modify(ModifyKind::Name(RenameMode::To)),
            EventKind::Remove(notify::event::RemoveKind::File),
        ];
        let ignored = [
            EventKind::Access(AccessKind::Open(AccessMode::Any)),
            EventKind::Access(AccessKind::Close(AccessMode::Write)),
            EventKind::Access(AccessKind::Read),
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::WriteTime)),
        ];
        assert!(counted.iter().all(can_change_content));
        assert!(!ignored.iter().any(can_change_content));
    }
}
