//! depot: file records with SigV4 signed URLs, and spreadsheet translations, in one daemon.
//!
//! The binary (`src/main.rs`) is a thin shell over `cli`; tests and benches use the
//! modules directly, and start the server with `server::serve` on port 0.
// No unsafe code but the prefetch hint of formats::shared::ahead (see Cargo.toml).
#![deny(unsafe_code)]
// stdout is the commands' output, written through `cli::output`, which ends quietly when the
// reader goes away (`depot config check | head -1`); `println!` would panic there.
#![deny(clippy::print_stdout)]

pub mod access;
pub mod atomic_file;
pub mod cli;
pub mod compression;
pub mod config;
pub mod console;
pub mod content;
pub mod error_chain;
pub mod fd_limit;
pub mod files;
pub mod formats;
pub mod hex;
pub mod http;
pub mod import;
pub mod layout;
pub mod logging;
pub mod markup;
pub mod memory_budget;
pub mod model;
pub mod naming;
pub mod objects;
pub mod parallel;
pub mod percent;
pub mod producer;
pub mod redact;
pub mod retry;
pub mod secret;
pub mod server;
pub mod sheets;
pub mod shutdown;
pub mod signing;
pub mod singleflight;
pub mod time;
pub mod tls;
pub mod translations;
pub mod webhooks;
