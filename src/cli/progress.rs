//! Progress of long commands (`files import`, `files seed`, `generate`): a bar or spinner
//! on a terminal (indicatif), a plain count line every few seconds of a long run when
//! stderr is not a terminal (logs, CI), nothing with `--quiet`. Always on stderr: stdout
//! keeps the command's output.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a plain line is written at most.
const PLAIN_EVERY: Duration = Duration::from_secs(2);

pub struct Progress {
    mode: Mode,
}

enum Mode {
    Quiet,
    Bar(ProgressBar),
    Plain {
        what: String,
        total: Option<u64>,
        state: Mutex<Plain>,
    },
}

struct Plain {
    done: u64,
    last: Instant,
}

impl Progress {
    /// Progress of `what` (e.g. "seeding records"), out of `total` when known.
    pub fn new(quiet: bool, what: &str, total: Option<u64>) -> Progress {
        let mode = if quiet {
            Mode::Quiet
        } else if std::io::stderr().is_terminal() {
            Mode::Bar(bar(what, total))
        } else {
            Mode::Plain {
                what: what.to_owned(),
                total,
                state: Mutex::new(Plain {
                    done: 0,
                    last: Instant::now(),
                }),
            }
        };
        Progress { mode }
    }

    /// Names the step under way on a terminal. Plain output leaves steps out: a short run
    /// prints nothing there, so logs and scripts see only what the command itself says.
    pub fn step(&self, text: &str) {
        if let Mode::Bar(bar) = &self.mode {
            bar.set_message(text.to_owned());
        }
    }

    /// `n` more units done.
    pub fn add(&self, n: u64) {
        match &self.mode {
            Mode::Quiet => {}
            Mode::Bar(bar) => bar.inc(n),
            Mode::Plain { what, total, state } => {
                let mut state = state
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                state.done += n;
                if state.last.elapsed() >= PLAIN_EVERY {
                    state.last = Instant::now();
                    eprintln!("depot: {what}: {}", count(state.done, *total));
                }
            }
        }
    }

    /// Clears the bar (the command's own summary follows).
    pub fn finish(&self) {
        match &self.mode {
            Mode::Bar(bar) => bar.finish_and_clear(),
            Mode::Quiet | Mode::Plain { .. } => {}
        }
    }
}

fn count(done: u64, total: Option<u64>) -> String {
    match total {
        Some(total) if total > 0 => format!("{done} of {total} ({} %)", done * 100 / total),
        _ => done.to_string(),
    }
}

fn bar(what: &str, total: Option<u64>) -> ProgressBar {
    let bar = match total {
        Some(total) => ProgressBar::new(total).with_style(
            ProgressStyle::with_template(
                "{prefix} [{bar:24}] {percent:>3}% {human_pos}/{human_len} {msg} ({eta} left)",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {prefix} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    bar.set_prefix(what.to_owned());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_counts_show_the_share_when_the_total_is_known() {
        assert_eq!(count(250, Some(1000)), "250 of 1000 (25 %)");
        assert_eq!(count(7, None), "7");
        assert_eq!(count(0, Some(0)), "0");
    }
}
