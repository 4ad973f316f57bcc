//! What the commands print on stdout goes through here. A reader that went away (`depot
//! config check | head -1`) ends the output, not the command: the rest of the output is
//! dropped quietly and the command finishes what it does (stores flushed, files written)
//! and exits as it would have. `println!` would panic instead, so `lib.rs` denies it.

use super::Failure;
use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout's reader is gone: later output is not even tried.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// One line of output.
pub fn line(text: impl std::fmt::Display) -> Result<(), Failure> {
    write(|out| writeln!(out, "{text}"))
}

/// Bytes as they are (a rendered file for `generate --path -`).
pub fn bytes(data: &[u8]) -> Result<(), Failure> {
    write(|out| out.write_all(data))
}

fn write(
    print: impl FnOnce(&mut std::io::StdoutLock<'static>) -> std::io::Result<()>,
) -> Result<(), Failure> {
    if CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match print(&mut out).and_then(|()| out.flush()) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(Failure(format!("cannot write to stdout: {e}"))),
        Ok(()) => Ok(()),
    }
}
