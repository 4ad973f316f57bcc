//! Saves of a local sheet (`producer.source` a .csv/.xlsx/.ods path, or a folder of .csv
//! tabs), so that the producer
//! syncs within a second of a save instead of at its next interval (which stays, as the
//! fallback for a missed event). The file's folder is watched, not the file: editors and
//! spreadsheet programs save by writing a new file and renaming it over the old one, which
//! a watch on the old file would miss. One save is a burst of events; it wakes the
//! producer once, when they settle.

use crate::config::reload::can_change_content;
use notify::event::{AccessKind, AccessMode, EventKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Quiet time after the last event of a save before the producer reads the file.
const SETTLE: Duration = Duration::from_millis(50);
/// A burst that does not settle (a program writing for long) is read this long after it
/// began; its later events bring another read.
const LONGEST_BURST: Duration = Duration::from_millis(400);

/// Watches the folder of one local sheet, or nothing.
pub struct LocalWatch {
    /// The file watched, and the watcher of its folder (dropping it stops the watch).
    watching: Option<(PathBuf, RecommendedWatcher)>,
    /// Events of the file's name, from the watcher's thread.
    events: mpsc::UnboundedReceiver<()>,
    sender: mpsc::UnboundedSender<()>,
}

impl Default for LocalWatch {
    fn default() -> LocalWatch {
        let (sender, events) = mpsc::unbounded_channel();
        LocalWatch {
            watching: None,
            events,
            sender,
        }
    }
}

impl LocalWatch {
    /// Watches `file` from now on (nothing with `None`); the file already watched is kept
    /// as it is. A folder that cannot be watched is logged: its sheet is then read at the
    /// interval only.
    pub fn follow(&mut self, file: Option<&Path>) {
        if self.watching.as_ref().map(|(f, _)| f.as_path()) == file {
            return;
        }
        self.watching = None;
        // Events of the file watched before are of no interest any more.
        while self.events.try_recv().is_ok() {}
        let Some(file) = file else { return };
        match watch(file, self.sender.clone()) {
            Ok(watcher) => {
                tracing::debug!(file = %file.display(), "watching the local sheet for saves");
                self.watching = Some((file.to_path_buf(), watcher));
            }
            Err(e) => tracing::warn!(
                file = %file.display(), error = %e,
                "cannot watch the local sheet: a save is read at the next producer.interval_secs"
            ),
        }
    }

    /// Resolves when the file was saved and its events settled; never while nothing is
    /// watched.
    pub async fn saved(&mut self) {
        if self.watching.is_none() || self.events.recv().await.is_none() {
            return std::future::pending().await;
        }
        let last_read = Instant::now() + LONGEST_BURST;
        loop {
            let until = (Instant::now() + SETTLE).min(last_read);
            match tokio::time::timeout_at(until, self.events.recv()).await {
                Ok(Some(())) if Instant::now() < last_read => continue,
                _ => return,
            }
        }
    }
}

/// A watcher of `file`'s folder that sends on `sender` for each event of the file's name
/// that can change what it holds; for a folder of `.csv` tabs (SPEC §14), a watcher of the
/// folder itself and the events of its `.csv` files.
fn watch(file: &Path, sender: mpsc::UnboundedSender<()>) -> notify::Result<RecommendedWatcher> {
    let tabs = file.is_dir();
    let name: Option<OsString> = file.file_name().map(OsString::from);
    let folder = match file.parent() {
        _ if tabs => file.to_path_buf(),
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let is_ours = move |p: &Path| match tabs {
        true => p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")),
        false => p.file_name().map(OsString::from) == name,
    };
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        let ours = event.paths.iter().any(|p| is_ours(p));
        // A rescan means events were lost: one of them may have been a save.
        if (ours && is_save(&event.kind)) || event.need_rescan() {
            let _ = sender.send(());
        }
    })?;
    watcher.watch(&folder, RecursiveMode::NonRecursive)?;
    Ok(watcher)
}

/// Whether an event may be (part of) a save: whatever can change the content, and the
/// close of a file written in place (the end of the write).
fn is_save(kind: &EventKind) -> bool {
    can_change_content(kind)
        || matches!(
            kind,
            EventKind::Access(AccessKind::Close(AccessMode::Write))
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Saves by rename and in place each wake the watch once their events settle; the
    /// events of other files in the folder do not; nothing is watched after `follow(None)`.
    #[tokio::test]
    async fn saves_of_the_file_wake_it_and_other_files_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sheet.csv");
        std::fs::write(&file, "a").unwrap();
        let mut watch = LocalWatch::default();
        watch.follow(Some(&file));
        // waits long for a wake that should come, a second for one that should not
        let woken = |watch: &mut LocalWatch, expected: bool| {
            let mut watch = std::mem::take(watch);
            let wait = Duration::from_secs(if expected { 10 } else { 1 });
            async move {
                let woke = tokio::time::timeout(wait, watch.saved()).await.is_ok();
                (woke, watch)
            }
        };
        // another file of the folder
        std::fs::write(dir.path().join("other.csv"), "x").unwrap();
        let (woke, mut watch) = woken(&mut watch, false).await;
        assert!(!woke, "another file woke it");
        // saved like an editor: a new file renamed over the old one
        std::fs::write(dir.path().join(".sheet.csv.tmp"), "b").unwrap();
        std::fs::rename(dir.path().join(".sheet.csv.tmp"), &file).unwrap();
        let (woke, mut watch) = woken(&mut watch, true).await;
        assert!(woke, "a rename over it");
        // written in place
        std::fs::write(&file, "c").unwrap();
        let (woke, mut watch) = woken(&mut watch, true).await;
        assert!(woke, "a write in place");
        watch.follow(None);
        std::fs::write(&file, "d").unwrap();
        let (woke, mut watch) = woken(&mut watch, false).await;
        assert!(!woke, "followed nothing");
        // a folder of tabs: a save of any of its .csv files, not of other files
        let tabs = dir.path().join("tabs");
        std::fs::create_dir(&tabs).unwrap();
        std::fs::write(tabs.join("common.csv"), "a").unwrap();
        watch.follow(Some(&tabs));
        std::fs::write(tabs.join("notes.txt"), "x").unwrap();
        let (woke, mut watch) = woken(&mut watch, false).await;
        assert!(!woke, "another file of the folder woke it");
        std::fs::write(tabs.join(".home.csv.tmp"), "b").unwrap();
        std::fs::rename(tabs.join(".home.csv.tmp"), tabs.join("home.csv")).unwrap();
        let (woke, _) = woken(&mut watch, true).await;
        assert!(woke, "a tab saved by rename");
    }
}
