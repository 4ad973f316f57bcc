//! Shared parts of depot's fuzz targets: sheet bytes to a file the readers can open, the
//! render oracle (every body a format renders must read back in its consumer's reader and
//! carry every selected text), and one in-process daemon for the router targets.

pub mod app;
pub mod render;
pub mod workbook;

#[path = "../../tests/support/readback.rs"]
#[allow(dead_code)]
mod readback;

use std::path::PathBuf;
use std::sync::OnceLock;

/// A per-process folder for the sheet files and the daemon's stores: under
/// `DEPOT_FUZZ_SCRATCH` when set (`scripts/fuzz` sets it and removes it afterwards), else in
/// `/dev/shm` when it exists (the readers take a path, and a disk write per execution would
/// slow the fuzzer down), else in the temporary folder.
fn scratch_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let shm = PathBuf::from("/dev/shm");
        let base = match std::env::var_os("DEPOT_FUZZ_SCRATCH") {
            Some(dir) => PathBuf::from(dir),
            None if shm.is_dir() => shm,
            None => std::env::temp_dir(),
        };
        let dir = base.join(format!("depot-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch folder for sheet files");
        dir
    })
}

/// Writes `bytes` to `sheet.<extension>` in the scratch folder and returns its path.
pub fn sheet_file(bytes: &[u8], extension: &str) -> PathBuf {
    let path = scratch_dir().join(format!("sheet.{extension}"));
    std::fs::write(&path, bytes).expect("sheet file written");
    path
}

/// Reads a sheet file as the producer does, then converts and renders what it read.
pub fn read_convert_render(bytes: &[u8], extension: &str, sheet_name: Option<&str>) {
    let path = sheet_file(bytes, extension);
    if let Ok(rows) = depot::sheets::local::read_grid(&path, sheet_name) {
        render::convert_and_render(rows);
    }
}
