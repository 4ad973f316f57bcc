//! `depot produce`: the producer alone — one sync with `--once` (for cron), else the loop
//! until SIGINT/SIGTERM, whatever `producer.enabled` (which is for `depot serve`) says. It opens the translations store itself, so it cannot run beside a
//! `depot serve` that holds the same sled store (the daemon runs its own producer); on
//! Redis it runs beside any number of nodes, the loop taking turns with them by the lease.

use super::output::Report;
use super::{Failure, load_config_with};
use crate::config::{ConfigHandle, Sources};
use crate::producer::Producer;
use crate::shutdown::Shutdown;
use crate::translations::service::TranslationService;
use crate::translations::store::PutOutcome;
use std::sync::Arc;

/// How long `--once` waits for webhook deliveries: their five tries end within a minute.
const WEBHOOK_DRAIN: std::time::Duration = std::time::Duration::from_secs(90);

pub fn run(mut sources: Sources, once: bool, quiet: bool) -> Result<(), Failure> {
    let report = Report::new(quiet);
    let mut loaded = load_config_with(&sources, quiet)?;
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
            let cycle = producer.cycle().await?;
            for warning in &cycle.warnings {
                report.note(format_args!("depot: warning: {warning}"));
            }
            match cycle.outcome {
                PutOutcome::Stored => report.result(format_args!(
                    "stored version {} ({} keys, {} locales)",
                    cycle.version, cycle.keys, cycle.locales
                )),
                PutOutcome::Unchanged => report.result(format_args!(
                    "unchanged: version {} is current",
                    cycle.version
                )),
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
