//! Whole-file writes that are atomic: a reader, or the next start after a crash, sees the
//! old content or all of the new, never part of it. New content is staged in a file of
//! its own beside its target, created exclusively under an unpredictable name
//! (`.<name>.<pid>.<16 hex digits>.tmp`), then renamed over the target, which keeps its
//! permissions. What a killed process left staged is swept by the next writer of that
//! folder once the process is gone. Every temporary file depot makes comes from
//! `create_temp`.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` so that `path` holds either its old content or all of
/// `bytes`, even across a crash.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
        sweep_folder(&folder_of(path), Some(name));
    }
    let staged = stage(path, bytes, Durability::Synced).map_err(|e| e.source)?;
    commit(&[staged]).map_err(|e| e.source)
}

/// `write` for a file that holds secrets (`.env.service`): the new file gets the
/// permissions of the one it replaces less any for others (a group the service reads it
/// through keeps its), or owner-only (0600) when there was none, so a save never leaves
/// secrets readable by every user of the machine (unix; elsewhere as `write`).
pub fn write_secret(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
        sweep_folder(&folder_of(path), Some(name));
    }
    let mode = Permissions::of(path).map_or(0o600, |kept| kept.mode & 0o770);
    let staged = stage_with(path, bytes, Durability::Synced, Some(mode)).map_err(|e| e.source)?;
    commit(&[staged]).map_err(|e| e.source)
}

/// A file that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// How far a write goes before it counts as done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Content and rename synced to disk: survives a power loss. For state (stores,
    /// tokens, settings).
    Synced,
    /// Atomic only: readers and an interrupted run see the old or the new content, never
    /// a part, but a power loss soon after may lose the new content. For output that is
    /// made again by running the command again, as compilers write theirs.
    Atomic,
}

/// New content safely on disk beside its file, waiting for `commit` (or `discard`).
/// Several files staged first and committed together change all at once or not at all,
/// short of a failed rename.
#[derive(Debug)]
pub struct Staged {
    path: PathBuf,
    /// `None`: the file already holds this content; nothing to do.
    tmp: Option<PathBuf>,
    durability: Durability,
}

impl Staged {
    /// The file at `path`, known to hold its new content already (`holds`): committing
    /// leaves it untouched.
    pub fn unchanged(path: &Path, durability: Durability) -> Staged {
        Staged {
            path: path.to_path_buf(),
            tmp: None,
            durability,
        }
    }

    /// False when the file already held the content, so committing leaves it untouched
    /// (its modification time included).
    pub fn changes_the_file(&self) -> bool {
        self.tmp.is_some()
    }
}

/// The most a single `write` passes to the kernel. A write of megabytes at once has the
/// page cache look for pages as large as the write (up to 2 MiB on ext4): where free
/// memory is scattered, as it is once the page cache fills it, each such look costs a
/// compaction of memory, which took more CPU than copying the bytes did
/// (docs/performance.md, issue 31); pieces of 256 KiB cost a system call each and none.
const WRITE_PIECE: usize = 1 << 18;

/// Writes `bytes` to a temporary file beside `path` (its folder created), synced when
/// `durability` says so.
pub fn stage(path: &Path, bytes: &[u8], durability: Durability) -> Result<Staged, WriteError> {
    stage_with(path, bytes, durability, None)
}

/// `stage`, the staged file given `mode` (unix permissions) when given, else the
/// permissions of the file it replaces, else (a new file) the umask's default.
fn stage_with(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
    mode: Option<u32>,
) -> Result<Staged, WriteError> {
    let failed = |source| WriteError {
        path: path.to_path_buf(),
        source,
    };
    let folder = folder_of(path);
    std::fs::create_dir_all(&folder).map_err(failed)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kept = Permissions::of(path);
    let mode = mode.or(kept.as_ref().map(|k| k.mode));
    let (tmp, mut file) = create_temp(&folder, &name, mode).map_err(failed)?;
    let result = (|| {
        if let Some(kept) = &kept {
            kept.owner_onto(&file);
        }
        for piece in bytes.chunks(WRITE_PIECE) {
            file.write_all(piece)?;
        }
        match durability {
            Durability::Synced => file.sync_all(),
            Durability::Atomic => Ok(()),
        }
    })();
    match result {
        Ok(()) => Ok(Staged {
            path: path.to_path_buf(),
            tmp: Some(tmp),
            durability,
        }),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(failed(e))
        }
    }
}

/// A new, empty file in `folder`, named for `name` (`.<name>.<pid>.<16 hex digits>.tmp`),
/// open for writing. It is created exclusively (`O_CREAT|O_EXCL`): a file or a symbolic
/// link already at that name, planted or left over, is never opened or followed; the
/// name's random part is drawn again then. With `mode` the file gets exactly those
/// permissions (unix), whatever the umask; without, the umask's default for a new file.
pub fn create_temp(
    folder: &Path,
    name: &str,
    mode: Option<u32>,
) -> std::io::Result<(PathBuf, File)> {
    /// A name taken this often in a row is no coincidence: something fills the folder.
    const ATTEMPTS: usize = 64;
    let pid = std::process::id();
    for _ in 0..ATTEMPTS {
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).map_err(std::io::Error::other)?;
        let path = folder.join(temp_name(name, pid, &crate::hex::encode(&random)));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if mode.is_some() {
            use std::os::unix::fs::OpenOptionsExt;
            // Private until the final permissions are set below.
            options.mode(0o600);
        }
        let file = match options.open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        // On the open file (fchmod), never through the name; the umask takes nothing away.
        #[cfg(unix)]
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt;
            if let Err(e) = file.set_permissions(std::fs::Permissions::from_mode(mode)) {
                let _ = std::fs::remove_file(&path);
                return Err(e);
            }
        }
        #[cfg(not(unix))]
        let _ = mode;
        return Ok((path, file));
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!(
            "{ATTEMPTS} temporary file names in a row were taken in {}",
            folder.display()
        ),
    ))
}

/// What a replaced file's new content keeps of it: its permission bits, and its owner and
/// group where the process may give them.
#[derive(Debug, Clone, Copy)]
struct Permissions {
    mode: u32,
    #[cfg(unix)]
    owner: (u32, u32),
}

impl Permissions {
    /// Those of the regular file at `path`; `None` when there is none (a symbolic link
    /// there is replaced, not followed, so it passes on nothing).
    fn of(path: &Path) -> Option<Permissions> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(Permissions {
                mode: meta.mode() & 0o777,
                owner: (meta.uid(), meta.gid()),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            Some(Permissions { mode: 0 })
        }
    }

    /// Gives `file` the old file's owner and group, or its group alone, when the process
    /// may (a group that reads the file keeps reading it); as it was otherwise.
    fn owner_onto(&self, file: &File) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::{MetadataExt, PermissionsExt};
            let (uid, gid) = self.owner;
            let Ok(now) = file.metadata() else {
                return;
            };
            if (now.uid(), now.gid()) == (uid, gid) {
                return;
            }
            if std::os::unix::fs::fchown(file, Some(uid), Some(gid)).is_err() {
                let _ = std::os::unix::fs::fchown(file, None, Some(gid));
            }
            // A change of owner may clear permission bits: set them again.
            let _ = file.set_permissions(std::fs::Permissions::from_mode(self.mode));
        }
        #[cfg(not(unix))]
        let _ = file;
    }
}

/// Like `stage`, but a file that already holds exactly `bytes` is left alone: generated
/// files that did not change keep their modification time, so builds that depend on
/// them are not redone, and nothing is written.
pub fn stage_if_changed(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
) -> Result<Staged, WriteError> {
    if holds(path, bytes) {
        return Ok(Staged::unchanged(path, durability));
    }
    stage(path, bytes, durability)
}

/// Whether the file at `path` holds exactly `bytes` (false when it cannot be read).
pub fn holds(path: &Path, bytes: &[u8]) -> bool {
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if !file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
    {
        return false;
    }
    // In pieces, so a difference early on stops the reading.
    let mut piece = vec![0u8; 1 << 20];
    let mut rest = bytes;
    loop {
        match file.read(&mut piece) {
            Ok(0) => return rest.is_empty(),
            Ok(n) if n <= rest.len() && piece[..n] == rest[..n] => rest = &rest[n..],
            Ok(_) => return false,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// Renames every staged file into place, then syncs each folder of a `Synced` file once
/// (a rename is durable only once its folder is). On a failed rename the files not yet
/// renamed are discarded.
pub fn commit(staged: &[Staged]) -> Result<(), WriteError> {
    let mut folders = BTreeSet::new();
    for (i, file) in staged.iter().enumerate() {
        let Some(tmp) = &file.tmp else {
            continue;
        };
        if let Err(source) = std::fs::rename(tmp, &file.path) {
            discard(&staged[i..]);
            return Err(WriteError {
                path: file.path.clone(),
                source,
            });
        }
        if file.durability == Durability::Synced {
            folders.insert(folder_of(&file.path));
        }
    }
    for folder in folders {
        std::fs::File::open(&folder)
            .and_then(|f| f.sync_all())
            .map_err(|source| WriteError {
                path: folder.clone(),
                source,
            })?;
    }
    Ok(())
}

/// Removes the temporary files of staged writes that will not be committed.
pub fn discard(staged: &[Staged]) {
    for tmp in staged.iter().filter_map(|s| s.tmp.as_ref()) {
        let _ = std::fs::remove_file(tmp);
    }
}

/// The temporary file that stages `name` for process `pid`, `random` making it
/// unpredictable.
fn temp_name(name: &str, pid: u32, random: &str) -> String {
    format!(".{name}.{pid}.{random}.tmp")
}

/// The target name and the process of a file named by `temp_name` (or by the
/// `.<name>.<pid>.tmp` of earlier versions, so their leftovers go too); `None` for any other
/// name, so a file that is not depot's is never taken for one.
fn staged_by(file_name: &str) -> Option<(&str, u32)> {
    let inner = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let inner = match inner.rsplit_once('.') {
        Some((rest, random))
            if random.len() == 16 && random.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            rest
        }
        _ => inner,
    };
    let (target, pid) = inner.rsplit_once('.')?;
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    if target.is_empty() || !digits {
        return None;
    }
    Some((target, pid.parse().ok()?))
}

/// Whether process `pid` still runs, as /proc tells; `None` where there is no /proc to ask
/// (then nothing counts as stale).
fn process_alive(pid: u32) -> Option<bool> {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return None;
    }
    Some(proc.join(pid.to_string()).exists())
}

/// Removes the temporary files in `folders` that a process now gone left staged (a run
/// killed between staging and commit). A file of a running process (this one included)
/// and any file not named like depot's temporary files stay. Returns how many were removed.
pub fn sweep_stale<'a>(folders: impl IntoIterator<Item = &'a Path>) -> usize {
    folders
        .into_iter()
        .map(|folder| sweep_folder(folder, None))
        .sum()
}

/// `sweep_stale` of one folder; with `only`, just the temporary files of that target.
fn sweep_folder(folder: &Path, only: Option<&str>) -> usize {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((target, pid)) = name.to_str().and_then(staged_by) else {
            continue;
        };
        let stale = only.is_none_or(|only| only == target)
            && process_alive(pid) == Some(false)
            && entry.file_type().is_ok_and(|t| t.is_file());
        // A file that vanished meanwhile was swept by another run: fine either way.
        if stale && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
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

    /// The random part of a temporary file's name, in tests.
    const R: &str = "0123456789abcdef";

    #[cfg(unix)]
    #[test]
    fn a_secret_file_is_private_and_keeps_its_owner_and_group_access() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".env.service");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        write_secret(&path, b"A=1\n").unwrap();
        assert_eq!(mode(&path), 0o600);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_secret(&path, b"A=2\n").unwrap();
        assert_eq!(
            (mode(&path), std::fs::read(&path).unwrap()),
            (0o640, b"A=2\n".to_vec())
        );
        // readable by every user before: no longer
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_secret(&path, b"A=3\n").unwrap();
        assert_eq!(mode(&path), 0o640);
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file_and_the_old_content() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("doc.json");
        write(&target, b"old").unwrap();
        // A folder in the way makes the rename fail.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(blocked.join("x"), b"").unwrap();
        assert!(write(&blocked, b"new").is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        let mut found = Vec::new();
        for entry in walk(dir) {
            let name = entry.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".tmp") {
                found.push(name);
            }
        }
        found
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut all = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                all.extend(walk(&path));
            }
            all.push(path);
        }
        all
    }

    /// The id of a process that has ended.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn only_depot_temp_names_are_read_as_staged_files() {
        assert_eq!(staged_by(".en.json.42.tmp"), Some(("en.json", 42)));
        assert_eq!(
            staged_by(".en.json.42.0123456789abcdef.tmp"),
            Some(("en.json", 42))
        );
        assert_eq!(staged_by(".a.b.7.fedcba9876543210.tmp"), Some(("a.b", 7)));
        assert_eq!(staged_by(".env.service.7.tmp"), Some(("env.service", 7)));
        for other in [
            "en.json.42.tmp",
            "..42.tmp",
            ".en.json.tmp",
            ".en.json.4x2.tmp",
            ".en.json.-1.tmp",
            ".en.json.42.tmp~",
            ".en.json.99999999999.tmp",
            ".en.json.0123456789abcdef.tmp",
            ".en.json.42.0123456789abcdeg.tmp",
        ] {
            assert_eq!(staged_by(other), None, "{other}");
        }
    }

    #[test]
    fn sweeping_removes_files_of_ended_processes_only() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dead_pid();
        let live = std::process::id();
        let names = [
            temp_name("a.json", dead, R),
            temp_name("b.json", dead, R),
            temp_name("a.json", live, R),
            format!("a.json.{dead}.tmp"),
            format!(".a.json.{dead}.tmp.bak"),
        ];
        for name in &names {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        std::fs::create_dir(dir.path().join(temp_name("folder", dead, R))).unwrap();
        assert_eq!(sweep_stale([dir.path()]), 2);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut expected = vec![
            names[2].clone(),
            names[3].clone(),
            names[4].clone(),
            temp_name("folder", dead, R),
        ];
        expected.sort();
        assert_eq!(left, expected);
    }

    #[test]
    fn a_single_file_write_sweeps_its_own_stale_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join(".env.service");
        let dead = dead_pid();
        let own = dir.path().join(temp_name(".env.service", dead, R));
        let other = dir.path().join(temp_name("data.json", dead, R));
        std::fs::write(&own, b"half").unwrap();
        std::fs::write(&other, b"half").unwrap();
        write(&target, b"A=1\n").unwrap();
        assert!(!own.exists());
        assert!(
            other.exists(),
            "another target's file is its writer's to sweep"
        );
    }

    #[test]
    fn staged_files_change_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let b = dir.path().join("deep/er/b.txt");
        std::fs::write(&a, b"old").unwrap();
        let staged = [
            stage(&a, b"one", Durability::Synced).unwrap(),
            stage(&b, b"two", Durability::Atomic).unwrap(),
        ];
        assert_eq!(std::fs::read(&a).unwrap(), b"old");
        assert!(!b.exists());
        commit(&staged).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"one");
        assert_eq!(std::fs::read(&b).unwrap(), b"two");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn discarded_stages_leave_every_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        std::fs::write(&a, b"old").unwrap();
        let staged = [stage(&a, b"new", Durability::Synced).unwrap()];
        // A file where a folder should be: the second file cannot be staged.
        let blocker = dir.path().join("blocker");
        std::fs::write(&blocker, b"").unwrap();
        let err = stage(&blocker.join("b.txt"), b"x", Durability::Atomic).unwrap_err();
        assert_eq!(err.path, blocker.join("b.txt"));
        assert!(err.to_string().starts_with("cannot write "), "{err}");
        discard(&staged);
        assert_eq!(std::fs::read(&a).unwrap(), b"old");
        assert!(
            leftovers(dir.path()).is_empty(),
            "{:?}",
            leftovers(dir.path())
        );
    }

    #[test]
    fn unchanged_content_is_not_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        std::fs::write(&a, b"same").unwrap();
        let before = std::fs::metadata(&a).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let same = stage_if_changed(&a, b"same", Durability::Atomic).unwrap();
        assert!(!same.changes_the_file());
        commit(&[same]).unwrap();
        assert_eq!(std::fs::metadata(&a).unwrap().modified().unwrap(), before);
        // Same length, other bytes; then another length.
        for content in [&b"sane"[..], b"longer"] {
            let staged = stage_if_changed(&a, content, Durability::Atomic).unwrap();
            assert!(staged.changes_the_file());
            commit(&[staged]).unwrap();
            assert_eq!(std::fs::read(&a).unwrap(), content);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_planted_at_a_temporary_name_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"victim").unwrap();
        // Whatever name comes up, it is created anew: fill the old scheme's and a range of
        // guesses with links, then stage many files.
        let pid = std::process::id();
        for name in [
            format!(".a.json.{pid}.tmp"),
            format!(".a.json.{pid}.{R}.tmp"),
        ] {
            std::os::unix::fs::symlink(&victim, dir.path().join(name)).unwrap();
        }
        for _ in 0..50 {
            write(&dir.path().join("a.json"), b"new").unwrap();
        }
        assert_eq!(std::fs::read(&victim).unwrap(), b"victim");
        assert_eq!(std::fs::read(dir.path().join("a.json")).unwrap(), b"new");
        assert!(
            !std::fs::symlink_metadata(dir.path().join("a.json"))
                .unwrap()
                .is_symlink()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permissions_and_a_new_one_gets_the_umask_default() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        for kept in [0o600, 0o640, 0o604, 0o755] {
            let path = dir.path().join(format!("kept-{kept:o}"));
            std::fs::write(&path, b"old").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(kept)).unwrap();
            write(&path, b"new").unwrap();
            let staged = stage(&path, b"newer", Durability::Atomic).unwrap();
            commit(&[staged]).unwrap();
            assert_eq!(
                (mode(&path), std::fs::read(&path).unwrap()),
                (kept, b"newer".to_vec())
            );
        }
        let fresh = dir.path().join("fresh");
        write(&fresh, b"x").unwrap();
        let reference = dir.path().join("reference");
        std::fs::File::create(&reference).unwrap();
        assert_eq!(mode(&fresh), mode(&reference));
    }

    #[test]
    fn temporary_names_are_unpredictable_and_taken_names_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let (a, _) = create_temp(dir.path(), "x.json", None).unwrap();
        let (b, _) = create_temp(dir.path(), "x.json", None).unwrap();
        assert_ne!(a, b);
        for path in [&a, &b] {
            let name = path.file_name().unwrap().to_str().unwrap();
            assert_eq!(
                staged_by(name),
                Some(("x.json", std::process::id())),
                "{name}"
            );
        }
    }
}
