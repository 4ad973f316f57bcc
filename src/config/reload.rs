//! Live reload: watch the folders of `config/depot.toml` and `.env.service`, wait until
//! the writes settle, then reload the whole configuration.
//!
//! Folders, not files, are watched because editors save by writing a new file and renaming
//! it over the old one, which a watch on the old file would miss.

use super::{ConfigHandle, ReloadOutcome};
use crate::shutdown::Shutdown;
use notify::{RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::mpsc;

/// Quiet time after the last file event before reloading: one save is often several events.
const SETTLE: Duration = Duration::from_millis(200);

/// Starts watching; the returned task ends on shutdown. A folder that does not exist yet is
/// not watched (logged), since the daemon must start with zero configuration.
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

    let (tx, mut rx) = mpsc::unbounded_channel::<()>();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            let ours = event
                .paths
                .iter()
                .any(|p| p.file_name().is_some_and(|n| names.contains(n)));
            if ours {
                let _ = tx.send(());
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
    if let Some(w) = watcher.as_mut() {
        for folder in &folders {
            match w.watch(folder, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    tracing::debug!(folder = %folder.display(), "watching for configuration changes")
                }
                Err(e) if !folder.exists() => tracing::info!(
                    folder = %folder.display(), error = %e,
                    "configuration folder does not exist; files created in it later apply after a restart"
                ),
                Err(e) => tracing::warn!(
                    folder = %folder.display(), error = %e,
                    "cannot watch this folder; changes in it need a restart"
                ),
            }
        }
    }

    tokio::spawn(async move {
        // Keeps the watcher alive for as long as the task runs.
        let _watcher = watcher;
        loop {
            tokio::select! {
                _ = shutdown.wait() => return,
                event = rx.recv() => if event.is_none() { return },
            }
            while let Ok(Some(())) = tokio::time::timeout(SETTLE, rx.recv()).await {}
            let handle = handle.clone();
            let outcome = tokio::task::spawn_blocking(move || {
                let outcome = handle.reload();
                (outcome, handle.status().revision)
            })
            .await;
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
                Ok((ReloadOutcome::Rejected(reason), _)) => {
                    tracing::error!(%reason, "configuration change refused; the previous configuration stays in force");
                }
                Err(e) => tracing::error!(error = %e, "configuration reload task failed"),
            }
        }
    })
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
