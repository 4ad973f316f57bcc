//! `depot produce`: the producer alone — one sync with `--once` (for cron), else the loop
//! until SIGINT/SIGTERM, whatever `producer.enabled` (which is for `depot serve`) says. It opens the translations store itself, so it cannot run beside a
//! `depot serve` that holds the same sled store (the daemon runs its own producer); on
//! Redis it runs beside any number of nodes, the loop taking turns with them by the lease.

use super::{Failure, load_config, output};
use crate::config::{ConfigHandle, Sources};
use crate::producer::Producer;
use crate::shutdown::Shutdown;
use crate::translations::service::TranslationService;
use crate::translations::store::PutOutcome;
use std::sync::Arc;

/// How long `--once` waits for webhook deliveries: their five tries end within a minute.
const WEBHOOK_DRAIN: std::time::Duration = std::time::Duration::from_secs(90);

pub fn run(mut sources: Sources, once: bool) -> Result<(), Failure> {
    let mut loaded = load_config(&sources)?;
    // `producer.enabled` is for `depot serve`: this command is asked for by name, so it
    // syncs (and keeps syncing through reloads) whatever the setting says.
    let disabled = !loaded.settings.producer.enabled;
    if disabled {
        sources
            .flags
            .push(("producer.enabled".to_owned(), "true".to_owned()));
        loaded = crate::config::load(&sources)?;
    }
    let settings = loaded.settings.clone();
    crate::logging::init(&settings.log.level, settings.log.format);
    if disabled {
        tracing::info!(
            "producer.enabled = false turns the producer of `depot serve` off; `depot produce` syncs as asked"
        );
    }
    let runtime = super::runtime()?;
    // A Redis store runs its I/O on this runtime. A sled store held by a running daemon is
    // named as such by the store's own error.
    let _context = runtime.enter();
    let service = Arc::new(TranslationService::open(&settings.translations)?);
    let config = ConfigHandle::new(sources, loaded);
    let producer = Arc::new(Producer::new(
        config.clone(),
        service.clone(),
        crate::http::consent_callback::server,
    ));
    let result = runtime.block_on(async {
        if once {
            let report = producer.cycle().await?;
            for warning in &report.warnings {
                eprintln!("depot: warning: {warning}");
            }
            match report.outcome {
                PutOutcome::Stored => output::line(format_args!(
                    "stored version {} ({} keys, {} locales)",
                    report.version, report.keys, report.locales
                ))?,
                PutOutcome::Unchanged => output::line(format_args!(
                    "unchanged: version {} is current",
                    report.version
                ))?,
            }
            // The new version's webhooks are delivered (or given up) before the exit.
            producer.webhooks().drain(WEBHOOK_DRAIN).await;
            Ok(())
        } else {
            let shutdown = Shutdown::new();
            shutdown.on_signals();
            // The loop follows the files (and SIGHUP) as the daemon does.
            let reload = crate::config::reload::spawn(config, shutdown.clone());
            producer.run(shutdown).await;
            reload.abort();
            Ok::<(), Failure>(())
        }
    });
    service.flush()?;
    result
}
