//! `depot serve`: load the configuration, install the logger, bind, run until a signal.

use super::{Failure, load_config};
use crate::config::{ConfigHandle, Sources};
use crate::shutdown::Shutdown;

pub fn run(sources: Sources) -> Result<(), Failure> {
    let loaded = load_config(&sources)?;
    let settings = loaded.settings.clone();
    crate::logging::init(&settings.log.level, settings.log.format);
    // Before the stores open: every descriptor they take comes out of the raised limit.
    let fds = crate::fd_limit::raise();
    let runtime = super::runtime()?;
    runtime.block_on(async move {
        let listen = settings.server.listen;
        let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| {
            let hint = if e.kind() == std::io::ErrorKind::AddrInUse {
                "; is another depot running? Stop it, or choose another address with --listen or server.listen"
            } else {
                ""
            };
            Failure(format!("cannot listen on {listen}: {e}{hint}"))
        })?;
        if settings.auth.api_keys.is_empty() {
            tracing::warn!("no auth.api_keys configured: private file records are readable by anyone");
        }
        if settings.auth.admin_keys.is_empty() {
            tracing::info!(
                "no auth.admin_keys configured: admin actions (Sync now, uploads) are off; \
                 `depot auth --admin-key` makes a key and saves it to the env file, which the \
                 daemon reloads by itself"
            );
        }
        let local = listener.local_addr().map_err(Failure::from)?;
        let capacity = crate::http::accept::capacity(&settings, fds.soft);
        if let Some(soft) = fds.soft
            && capacity.configured
            && capacity.cap > soft.saturating_sub(crate::fd_limit::RESERVED)
        {
            tracing::warn!(
                "limits.connections ({}) is above what the open-file limit {soft} leaves for \
                 connections ({}): accepts may fail with \"Too many open files\"; raise \
                 `ulimit -n` or lower limits.connections (0 derives it from the limit)",
                capacity.cap,
                soft.saturating_sub(crate::fd_limit::RESERVED)
            );
        }
        tracing::info!(
            address = %local,
            version = env!("CARGO_PKG_VERSION"),
            connections = capacity.cap,
            open_file_limit = %fds,
            "depot listening"
        );
        let shutdown = Shutdown::new();
        shutdown.on_signals();
        let handle = ConfigHandle::new(sources, loaded);
        crate::server::serve(handle, listener, shutdown).await?;
        Ok(())
    })
}
