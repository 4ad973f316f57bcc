//! What the commands print on stdout goes through here. A reader that went away (`depot
//! config check | head -1`) ends the output, not the command: the rest of the output is
//! dropped quietly and the command finishes what it does (stores flushed, files written)
//! and exits as it would have. `println!` would panic instead, so `lib.rs` denies it.
//!
//! The rule of every command (`Report`): stdout carries the result, either what was asked
//! for (records, a listing, a rendered file, a diff report) or, for a command that writes
//! elsewhere, the summary of what it did (`wrote …`, `imported …`, `stored version …`);
//! stderr carries the rest, as `depot: …` lines (warnings, findings, notes, progress) and
//! the error line. `--quiet` prints nothing on success, on either stream.

#![allow(
    clippy::print_stderr,
    reason = "a command's notes go to the terminal, on stderr by the rule above"
)]

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

/// Where a command says what it did, by the rule of the module comment.
pub struct Report {
    quiet: bool,
    /// stdout carries a body (`generate --path -`): the summary goes to stderr too.
    body_on_stdout: bool,
}

impl Report {
    /// A command whose stdout is free for its summary.
    pub fn new(quiet: bool) -> Report {
        Report {
            quiet,
            body_on_stdout: false,
        }
    }

    /// A command whose stdout may carry a body: then its summary goes to stderr.
    pub fn beside_body(quiet: bool, body_on_stdout: bool) -> Report {
        Report {
            quiet,
            body_on_stdout,
        }
    }

    /// A line of the summary, on stdout (stderr when stdout carries a body).
    pub fn result(&self, text: impl std::fmt::Display) {
        if self.quiet {
            return;
        }
        if self.body_on_stdout {
            eprintln!("{text}");
            return;
        }
        // A reader that stopped reading (`| head`) ends the output quietly; any other
        // write error costs a line of the summary, not the work the command did.
        let _ = line(text);
    }

    /// A warning or another note for the person running the command, on stderr.
    pub fn note(&self, text: impl std::fmt::Display) {
        if !self.quiet {
            eprintln!("{text}");
        }
    }
}
