//! Log output through `tracing`: text or JSON lines on stderr (stdout is for command
//! output), with a level that a configuration reload can change.

use crate::config::settings::LogFormat;
use std::io::IsTerminal;
use std::sync::OnceLock;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::prelude::*;
use tracing_subscriber::{Registry, reload};

/// The level handle of the installed logger; the logger is process-wide, so is this.
static LEVEL: OnceLock<reload::Handle<LevelFilter, Registry>> = OnceLock::new();

/// Changes the level of the installed logger (no-op when none is installed).
pub fn set_level(level: &str) {
    if let Some(handle) = LEVEL.get() {
        let _ = handle.modify(|filter| *filter = parse_level(level));
    }
}

pub fn parse_level(level: &str) -> LevelFilter {
    level.parse().unwrap_or(LevelFilter::INFO)
}

/// Installs the global logger; does nothing when one is already installed (tests that
/// start several servers in one process).
pub fn init(level: &str, format: LogFormat) {
    let (filter, handle) = reload::Layer::new(parse_level(level));
    let output = match format {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_writer(std::io::stderr)
            .boxed(),
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_ansi(std::io::stderr().is_terminal())
            .with_writer(std::io::stderr)
            .boxed(),
    };
    if tracing_subscriber::registry()
        .with(filter)
        .with(output)
        .try_init()
        .is_ok()
    {
        let _ = LEVEL.set(handle);
    }
}
