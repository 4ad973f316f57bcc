//! The sync loop: read the sheet, convert it, store it when its content changed; then wait
//! `producer.interval_secs` (counted from the end of the cycle, re-read from the live
//! configuration), or until a local sheet is saved (`sheets/watch.rs`), and repeat. Cycles
//! never overlap. A failure keeps the last good document, is logged with its reason and
//! retried with backoff capped by the interval; `/health` shows the state. On a shared store (Redis) producers on several nodes take turns through
//! a lease (`producer/lease.rs`): only the holder syncs, at the pace recorded in the store.

pub mod lease;

use crate::config::ConfigHandle;
use crate::config::settings::{Google, Service, Settings, SheetSource as SourceSetting};
use crate::markup::{self, SheetError};
use crate::model::Document;
use crate::retry::{FIRST_RETRY, backoff};
use crate::sheets::consent;
use crate::sheets::{Fetched, SheetSource, SourceError, source_for};
use crate::shutdown::Shutdown;
use crate::singleflight::SingleFlight;
use crate::translations::service::TranslationService;
use crate::translations::store::{PutOutcome, StoreError, SyncState};
use crate::translations::versions::VersionSummary;
use crate::webhooks::Announcer;
use chrono::{DateTime, Utc};
use lease::Lease;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum CycleError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Sheet(#[from] ConvertError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "producer.strict refuses to publish this sheet: the checks found {count} problem(s), \
         the first at {first}; fix them in the sheet (all are listed by `depot generate`), or \
         set producer.strict = false"
    )]
    Findings { count: usize, first: String },
    #[error("the sync task stopped: {0}")]
    Task(String),
    #[error(
        "the source answered that the sheet is unchanged, but no translations are loaded; \
         the next sync reads it whole"
    )]
    UnchangedWithoutDocument,
}

impl CycleError {
    /// True when the sheet's source failed or gave something unusable or refused by
    /// `producer.strict` (as opposed to the store): `POST /translations/sync` answers 502.
    pub fn is_source(&self) -> bool {
        matches!(
            self,
            CycleError::Source(_)
                | CycleError::Sheet(_)
                | CycleError::Findings { .. }
                | CycleError::UnchangedWithoutDocument
        )
    }
}

/// Why a sheet gives nothing to publish or to write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    #[error("the sheet cannot be converted: {0}")]
    Sheet(#[from] SheetError),
    #[error("the sheet has a header row (row {header_row}) but no row with a key and a text{why}")]
    NoTranslations { header_row: usize, why: String },
    #[error("the spreadsheet cannot be converted: {0}")]
    Tabs(#[from] crate::translations::tabs::TabsError),
    #[error(
        "no tab of the spreadsheet has a row with a key and a text (tabs with a header row: \
         {})",
        .tabs.join(", ")
    )]
    NoTabTranslations { tabs: Vec<String> },
}

/// Converts what a source fetched: one sheet, or a spreadsheet of several tabs (SPEC §14:
/// every tab a namespace). `depot produce`, `depot serve` and `depot generate` all convert
/// through it.
pub fn convert_fetched(tabs: Vec<crate::sheets::tabs::Tab>) -> Result<Document, ConvertError> {
    use crate::translations::tabs::{Split, TabsError, merge, split};
    if let [_] = tabs.as_slice() {
        let rows = tabs.into_iter().next().map(|t| t.rows).unwrap_or_default();
        return convert(rows);
    }
    let names: Vec<String> = tabs.iter().map(|t| t.name.clone()).collect();
    let Split {
        mut translations,
        skipped,
    } = split(tabs);
    match translations.len() {
        0 => Err(TabsError::NoHeader { tabs: names }.into()),
        1 => {
            // One tab of translations: a sheet as it always was, unnamespaced.
            let tab = translations.remove(0);
            let mut document = convert(tab.rows)?;
            document.warnings.extend(skipped);
            Ok(document)
        }
        _ => {
            let tabs: Vec<String> = translations.iter().map(|t| t.name.clone()).collect();
            let document = merge(translations, skipped)?;
            match document.is_empty() {
                true => Err(ConvertError::NoTabTranslations { tabs }),
                false => Ok(document),
            }
        }
    }
}

/// Converts a fetched sheet and refuses one without a single text, saying why. The one
/// place that decides what a usable sheet is: `depot produce`, the producer inside
/// `depot serve` and `depot generate` all convert through it, so a sheet that one refuses
/// the others refuse too, with the same words.
pub fn convert(grid: Vec<Vec<String>>) -> Result<Document, ConvertError> {
    convert_rows(markup::Rows::from(grid))
}

/// `convert` of rows given one by one as a sheet is read (`markup::Rows`).
pub fn convert_rows(rows: markup::Rows) -> Result<Document, ConvertError> {
    let header = rows.header_index();
    let rows_below = rows.rows_below();
    let document = markup::convert_rows(rows)?;
    if !document.is_empty() {
        return Ok(document);
    }
    let why = if rows_below == 0 {
        ": the header is the sheet's last row; add rows below it with a key in a '>>>' column \
         and a text in a locale column"
            .to_owned()
    } else if let Some(first) = document.warnings.first() {
        let more = match document.warnings.len() - 1 {
            0 => String::new(),
            n => format!(" ({n} more warning(s) like it)"),
        };
        format!("; {} {}{more}", first.cell, first.message)
    } else {
        format!(
            "; every text cell under the locale columns ({}) is empty",
            document.locales.join(", ")
        )
    };
    Err(ConvertError::NoTranslations {
        header_row: header.map_or(0, |h| h + 1),
        why,
    })
}

/// With `producer.strict`, a sheet with findings of the checks (SPEC §9) is not
/// published: the last good version stays served and `/health` shows this error.
fn refuse_findings(document: &Document, strict: bool) -> Result<(), CycleError> {
    match document.findings.first() {
        Some(first) if strict => Err(CycleError::Findings {
            count: document.findings.len(),
            first: format!("{} ({})", first.cell, first.message),
        }),
        _ => Ok(()),
    }
}

/// What one successful cycle did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CycleReport {
    pub outcome: PutOutcome,
    pub version: String,
    /// When the current version was stored.
    pub updated_at: Option<DateTime<Utc>>,
    pub keys: usize,
    pub locales: usize,
    /// The sheet's warnings as `CELL message`.
    pub warnings: Vec<String>,
    /// The new version's summary, when this cycle stored one.
    pub summary: Option<VersionSummary>,
}

/// The producer's state for `/health` and the console; kept in the store too.
pub type ProducerStatus = SyncState;

/// How often a node that does not sync reads the syncing producer's state from a shared
/// store (an embedded one is read once: no other process writes it while this one runs).
const STATE_POLL: Duration = Duration::from_secs(2);

pub struct Producer {
    config: ConfigHandle,
    translations: Arc<TranslationService>,
    /// This producer's own syncs.
    status: Mutex<ProducerStatus>,
    /// The state the store holds: the last sync of whichever producer made it (another
    /// node, `depot produce`, or an earlier run), read by `follow_stored`.
    stored: Mutex<Option<SyncState>>,
    /// The source of the last cycle, kept while the settings that made it are unchanged
    /// (a Google source holds its access token and connections).
    source: Mutex<Option<(SourceKey, Arc<dyn SheetSource>)>>,
    /// The consent flow started because the refresh token is missing or revoked, while it
    /// waits for the browser.
    consent: Mutex<Option<Arc<consent::Session>>>,
    /// The daemon's address, when the producer runs inside `depot serve`: a redirect URI on
    /// it is answered by the daemon's own route instead of a second listener.
    daemon: OnceLock<SocketAddr>,
    /// The lease shared with the producers of other nodes, on a shared store (made by `run`).
    lease: OnceLock<Arc<Lease>>,
    /// The cycle under way, which `sync_now` joins instead of starting another.
    flight: SingleFlight<(), CycleReport>,
    /// Announces each version this producer stores to `webhooks.urls`.
    webhooks: Arc<Announcer>,
    /// Serves the consent callback when the daemon does not listen on its address.
    callback_server: consent::CallbackServer,
}

/// The settings a source is made from.
/// (`translations.sheet_encoding` too: a local `.csv` is read in its code page).
type SourceKey = (SourceSetting, Google, Service, String);

impl Producer {
    /// A producer of `translations` for the settings of `config`; `callback_server` answers
    /// the browser when a consent flow starts and the daemon is not on its address.
    pub fn new(
        config: ConfigHandle,
        translations: Arc<TranslationService>,
        callback_server: consent::CallbackServer,
    ) -> Producer {
        Producer {
            webhooks: Arc::new(Announcer::new(config.clone())),
            config,
            translations,
            status: Mutex::new(ProducerStatus::default()),
            stored: Mutex::new(None),
            source: Mutex::new(None),
            consent: Mutex::new(None),
            daemon: OnceLock::new(),
            lease: OnceLock::new(),
            flight: SingleFlight::default(),
            callback_server,
        }
    }

    /// The webhook announcer (its deliveries are shown in `/health`).
    pub fn webhooks(&self) -> &Arc<Announcer> {
        &self.webhooks
    }

    /// `POST /translations/sync`: a cycle now, or the result of the one under way. It runs
    /// as a task of its own, so a client that hangs up does not cut a sync short.
    pub async fn sync_now(self: &Arc<Self>) -> Result<CycleReport, CycleError> {
        let this = self.clone();
        let result = tokio::spawn(async move { this.cycle().await })
            .await
            .map_err(|e| CycleError::Task(e.to_string()))?;
        match &result {
            Ok(report) => log_success(report),
            Err(e) => tracing::warn!(error = %e, "translations sync asked for now failed"),
        }
        result
    }

    /// When producers share a lease (a shared store), for `/health`: `held`, `standby`
    /// (another node syncs), or `off` (`producer.enabled = false`).
    pub fn lease_state(&self) -> Option<&'static str> {
        let lease = self.lease.get()?;
        Some(if !self.config.settings().producer.enabled {
            "off"
        } else if lease.held() {
            "held"
        } else {
            "standby"
        })
    }

    /// Tells the producer the address `depot serve` listens on.
    pub fn set_daemon_address(&self, addr: SocketAddr) {
        let _ = self.daemon.set(addr);
    }

    /// The daemon's OAuth callback route: answered by the consent flow under way, if any.
    pub fn answer_consent(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> Option<consent::CallbackPage> {
        let pending = self
            .consent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        pending.map(|session| session.answer(path, query))
    }

    /// Starts the consent flow (once at a time) when a cycle failed for want of a valid
    /// refresh token; the token is saved where `google.token_store` says and the
    /// configuration reloaded, which wakes the loop.
    fn begin_consent(self: &Arc<Self>, settings: &Arc<Settings>) {
        let mut pending = self.consent.lock().unwrap_or_else(PoisonError::into_inner);
        if pending.is_some() {
            return;
        }
        let (session, answers) = match consent::Session::start(settings) {
            Ok(started) => started,
            Err(e) => {
                tracing::warn!(error = %e, "cannot start the consent flow; run `depot auth`");
                return;
            }
        };
        let session = Arc::new(session);
        let on_daemon = self.daemon.get().is_some_and(|daemon| {
            daemon.port() == session.callback.bind.port()
                && (daemon.ip() == session.callback.bind.ip() || daemon.ip().is_unspecified())
        });
        tracing::warn!(
            url = %session.url,
            "the Google refresh token is missing or revoked: open this URL in a browser to authorise depot"
        );
        if consent::display_available() {
            consent::try_open_browser(&session.url);
        }
        *pending = Some(session.clone());
        drop(pending);
        let this = self.clone();
        let settings = settings.clone();
        tokio::spawn(async move {
            let stop = Shutdown::new();
            if !on_daemon {
                match consent::bind_callback(&session.callback).await {
                    Ok(listener) => {
                        tokio::spawn((this.callback_server)(
                            session.clone(),
                            listener,
                            stop.clone(),
                        ));
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "the consent callback cannot be served; run `depot auth`")
                    }
                }
            }
            let result = consent::finish(&settings, answers).await;
            stop.trigger();
            *this.consent.lock().unwrap_or_else(PoisonError::into_inner) = None;
            match result.and_then(|token| {
                consent::save_refresh_token(&settings, this.config.sources(), &token)
            }) {
                Ok(place) => {
                    tracing::info!(%place, "refresh token saved; syncing again");
                    let config = this.config.clone();
                    let _ = tokio::task::spawn_blocking(move || config.reload()).await;
                }
                Err(e) => tracing::warn!(error = %e, "the consent flow did not complete"),
            }
        });
    }

    /// The consent URL while a flow waits for the browser.
    fn consent_url(&self) -> Option<String> {
        self.consent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|s| s.url.clone())
    }

    /// The source this producer reads: inside `depot serve` the example sheet stands in
    /// while no spreadsheet is configured (SPEC §10 "First run").
    pub fn chosen_source(&self, settings: &Settings) -> SourceSetting {
        match self.daemon.get() {
            Some(_) => settings.producer.source.for_daemon(&settings.service),
            None => settings.producer.source.clone(),
        }
    }

    /// The kind of source read now (`google`, `local`, `example`), for `/health` and the
    /// console.
    pub fn source_kind(&self) -> &'static str {
        self.chosen_source(&self.config.settings()).kind()
    }

    fn source(&self, settings: &Settings) -> Result<Arc<dyn SheetSource>, SourceError> {
        let chosen = self.chosen_source(settings);
        let key = (
            chosen.clone(),
            settings.google.clone(),
            settings.service.clone(),
            settings.translations.sheet_encoding.clone(),
        );
        let mut cached = self.source.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((made_for, source)) = cached.as_ref()
            && *made_for == key
        {
            return Ok(source.clone());
        }
        let source = if chosen == settings.producer.source {
            source_for(settings)?
        } else {
            tracing::info!(
                source = crate::sheets::example::EXAMPLE_NAME,
                "no spreadsheet is configured: serving the example sheet; set SERVICE_SPREADSHEET_ID \
                 (with the other SERVICE_* values) or producer.source to serve your own"
            );
            let mut settings = settings.clone();
            settings.producer.source = chosen;
            source_for(&settings)?
        };
        *cached = Some((key, source.clone()));
        Ok(source)
    }

    /// The Google tab (`gid`) the last sync read, for the console's links to cells.
    pub fn sheet_gid(&self) -> Option<i64> {
        let cached = self.source.lock().unwrap_or_else(PoisonError::into_inner);
        cached.as_ref().and_then(|(_, source)| source.sheet_gid())
    }

    /// The gid of each Google tab the last sync read, by name, for links to `TAB!B9`.
    pub fn tab_gids(&self) -> Vec<(String, i64)> {
        let cached = self.source.lock().unwrap_or_else(PoisonError::into_inner);
        cached
            .as_ref()
            .map(|(_, source)| source.tab_gids())
            .unwrap_or_default()
    }

    /// The state to show (`/health`, the console): the newer of this producer's own and
    /// the one the store holds, so that a node that does not sync shows the state of the
    /// producer that does (SPEC §7, §10).
    pub fn status(&self) -> ProducerStatus {
        let own = self.own_status();
        let stored = self
            .stored
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match stored {
            Some(stored) if stored.last_sync_at > own.last_sync_at => stored,
            _ => own,
        }
    }

    fn own_status(&self) -> ProducerStatus {
        self.status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Writes this producer's state to the store (and takes it as the store's), so that
    /// the other nodes show it and, on a shared store, a producer that takes the lease next
    /// keeps the pace instead of fetching at once.
    async fn save_state(&self) {
        let mut state = self.own_status();
        state.by = self.process_label();
        {
            let mut stored = self.stored.lock().unwrap_or_else(PoisonError::into_inner);
            // A node whose loop is off (a sync asked for over HTTP) keeps the next run of
            // the producer whose loop it is.
            if state.next_sync_at.is_none() {
                state.next_sync_at = stored
                    .as_ref()
                    .and_then(|s| s.next_sync_at)
                    .filter(|next| *next > Utc::now());
            }
            *stored = Some(state.clone());
        }
        let translations = self.translations.clone();
        let saved = tokio::task::spawn_blocking(move || translations.save_sync_state(&state)).await;
        match saved {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "the sync state cannot be kept in the store"),
            Err(e) => tracing::warn!(error = %e, "the sync state task stopped"),
        }
    }

    /// Reads the state the store holds: every `STATE_POLL` from a shared store, once from
    /// an embedded one.
    async fn follow_stored(self: Arc<Self>, shutdown: Shutdown) {
        loop {
            let translations = self.translations.clone();
            match tokio::task::spawn_blocking(move || translations.load_sync_state()).await {
                Ok(Ok(state)) => {
                    *self.stored.lock().unwrap_or_else(PoisonError::into_inner) = state;
                }
                Ok(Err(e)) => tracing::debug!(error = %e, "the sync state cannot be read"),
                Err(_) => return,
            }
            if self.translations.shared().is_none() {
                return;
            }
            tokio::select! {
                () = shutdown.wait() => return,
                () = tokio::time::sleep(STATE_POLL) => {}
            }
        }
    }

    /// Names this process in the state it keeps: `depot serve on host (pid 12)`.
    fn process_label(&self) -> String {
        let command = if self.daemon.get().is_some() {
            "depot serve"
        } else {
            "depot produce"
        };
        format!(
            "{command} on {} (pid {})",
            lease::host_name(),
            std::process::id()
        )
    }

    /// One sync with the current settings: fetch, convert, store if changed, announce a
    /// new version. A cycle asked for while one runs shares that one's result.
    pub async fn cycle(&self) -> Result<CycleReport, CycleError> {
        self.flight.run((), || self.cycle_once()).await
    }

    async fn cycle_once(&self) -> Result<CycleReport, CycleError> {
        let settings = self.config.settings();
        let result = match self.source(&settings) {
            Ok(source) => {
                let result = self.cycle_with(source.as_ref(), &settings).await;
                if result.is_err() {
                    source.not_stored();
                }
                result
            }
            Err(e) => Err(e.into()),
        };
        self.record(&result);
        self.save_state().await;
        if let Ok(CycleReport {
            summary: Some(summary),
            ..
        }) = &result
        {
            self.webhooks.announce(summary);
        }
        result
    }

    /// With a lease: how long to wait before this producer may sync, or `None` when it may
    /// sync now. It waits while another node holds the lease, and until the interval (or the
    /// backoff after failures) since the last sync recorded in the store is over.
    async fn wait_for_turn(&self, settings: &Settings) -> Option<Duration> {
        let (Some(lease), Some(store)) = (self.lease.get(), self.translations.shared()) else {
            return None;
        };
        if !lease.held() {
            return Some(Duration::MAX);
        }
        match lease::last_sync(store).await {
            Ok(None) => None,
            Ok(Some(last)) => {
                let pause = match last.failures {
                    0 => interval(settings),
                    n => backoff(n, interval(settings)),
                };
                let due =
                    last.at + chrono::Duration::from_std(pause).unwrap_or(chrono::TimeDelta::MAX);
                (due - Utc::now())
                    .to_std()
                    .ok()
                    .filter(|wait| !wait.is_zero())
            }
            Err(e) => {
                tracing::debug!(error = %e, "the last sync time cannot be read; waiting");
                Some(FIRST_RETRY)
            }
        }
    }

    async fn cycle_with(
        &self,
        source: &dyn SheetSource,
        settings: &Settings,
    ) -> Result<CycleReport, CycleError> {
        let fetched = match source.fetch().await? {
            Fetched::Unchanged => return self.unchanged(),
            fetched => fetched,
        };
        let translations = self.translations.clone();
        let keep = settings.translations.keep_versions;
        let strict = settings.producer.strict;
        tokio::task::spawn_blocking(move || {
            let document = convert_fetched(fetched.into_tabs())?;
            refuse_findings(&document, strict)?;
            let warnings = warning_lines(&document);
            let (keys, locales) = (document.entries.len(), document.locales.len());
            let put = translations.put(document, keep)?;
            let current = translations.current();
            Ok(CycleReport {
                outcome: put.outcome,
                version: current
                    .as_ref()
                    .map(|live| live.stored.version.clone())
                    .unwrap_or_default(),
                updated_at: current.map(|live| live.stored.updated_at),
                keys,
                locales,
                warnings,
                summary: put.summary,
            })
        })
        .await
        .map_err(|e| CycleError::Task(e.to_string()))?
    }

    /// The report of a cycle whose source said the sheet has not changed: the current
    /// version stays, nothing is converted.
    fn unchanged(&self) -> Result<CycleReport, CycleError> {
        let live = self
            .translations
            .current()
            .ok_or(CycleError::UnchangedWithoutDocument)?;
        let document = &live.stored.document;
        Ok(CycleReport {
            outcome: PutOutcome::Unchanged,
            version: live.stored.version.clone(),
            updated_at: Some(live.stored.updated_at),
            keys: document.entries.len(),
            locales: document.locales.len(),
            warnings: warning_lines(document),
            summary: None,
        })
    }

    fn record(&self, result: &Result<CycleReport, CycleError>) {
        let mut status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Utc::now();
        status.last_sync_at = Some(now);
        match result {
            Ok(_) => {
                status.last_success_at = Some(now);
                status.last_error = None;
                status.consecutive_failures = 0;
            }
            Err(e) => {
                status.last_error = Some(e.to_string());
                status.consecutive_failures = status.consecutive_failures.saturating_add(1);
            }
        }
    }

    /// Runs cycles until `shutdown`. The wait after a cycle follows configuration changes:
    /// a new interval (or re-enabling) applies without waiting out the old one.
    pub async fn run(self: Arc<Self>, shutdown: Shutdown) {
        let mut changes = self.config.subscribe();
        if let Some(store) = self.translations.shared() {
            let _ = self.lease.set(Lease::spawn(
                store.clone(),
                self.config.clone(),
                shutdown.clone(),
            ));
        }
        let mut lease_changes = self.lease.get().map(|lease| lease.watch());
        tokio::spawn(self.clone().follow_stored(shutdown.clone()));
        let mut saves = crate::sheets::watch::LocalWatch::default();
        loop {
            let settings = self.config.settings();
            // A local sheet is synced as soon as it is saved, the interval aside.
            saves.follow(
                match self.chosen_source(&settings) {
                    SourceSetting::LocalFile(path) if settings.producer.enabled => Some(path),
                    _ => None,
                }
                .as_deref(),
            );
            let turn = if settings.producer.enabled {
                self.wait_for_turn(&settings).await
            } else {
                None
            };
            let synced = turn.is_none() && settings.producer.enabled;
            let wait = if let Some(wait) = turn {
                wait
            } else if settings.producer.enabled {
                match self.cycle().await {
                    Ok(report) => {
                        log_success(&report);
                        interval(&settings)
                    }
                    Err(e) => {
                        if let CycleError::Source(SourceError::Google(g)) = &e
                            && g.needs_consent()
                        {
                            self.begin_consent(&settings);
                            if let Some(url) = self.consent_url() {
                                let mut status =
                                    self.status.lock().unwrap_or_else(PoisonError::into_inner);
                                status.last_error =
                                    Some(format!("{e}; to authorise depot, open {url}"));
                            }
                        }
                        let failures = self.own_status().consecutive_failures;
                        let retry = backoff(failures, interval(&settings));
                        let serving = if self.translations.current().is_some() {
                            "the last good document is still served"
                        } else {
                            "no translations are served until a sync succeeds"
                        };
                        tracing::warn!(
                            error = %e, failures, retry_in_secs = retry.as_secs_f64(),
                            "translations sync failed; {serving}"
                        );
                        retry
                    }
                }
            } else {
                Duration::MAX
            };
            let deadline = tokio::time::Instant::now()
                .checked_add(wait)
                .unwrap_or_else(far_future);
            self.status
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .next_sync_at = chrono::Duration::from_std(wait)
                .ok()
                .and_then(|wait| Utc::now().checked_add_signed(wait));
            if synced {
                // Now with the next run, for the nodes that show this producer's state.
                self.save_state().await;
            }
            loop {
                tokio::select! {
                    _ = shutdown.wait() => {
                        if let Some(lease) = self.lease.get() {
                            lease.release().await;
                        }
                        return;
                    }
                    _ = tokio::time::sleep_until(deadline) => break,
                    // The lease changed hands: take the turn, or stop waiting for one.
                    _ = lease_changed(&mut lease_changes) => break,
                    () = saves.saved() => break,
                    changed = changes.changed() => {
                        if changed.is_err() {
                            return;
                        }
                        let fresh = changes.borrow_and_update().clone();
                        if producer_changed(&settings, &fresh) {
                            break;
                        }
                    }
                }
            }
        }
    }
}

/// Resolves when the lease is taken or lost; never without a lease.
async fn lease_changed(changes: &mut Option<tokio::sync::watch::Receiver<bool>>) {
    let Some(rx) = changes else {
        return std::future::pending().await;
    };
    if rx.changed().await.is_err() {
        // The lease task ended (shutdown); the shutdown branch ends the loop.
        std::future::pending::<()>().await;
    }
}

/// A document's warnings as `CELL message` lines.
fn warning_lines(document: &Document) -> Vec<String> {
    document
        .warnings
        .iter()
        .map(|w| format!("{} {}", w.cell, w.message))
        .collect()
}

fn far_future() -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs(86_400 * 365)
}

fn interval(settings: &Settings) -> Duration {
    Duration::from_secs(settings.producer.interval_secs)
}

/// Whether a reload changed what the producer does (then the wait is cut short).
fn producer_changed(old: &Settings, new: &Settings) -> bool {
    old.producer != new.producer || old.service != new.service || old.google != new.google
}

fn log_success(report: &CycleReport) {
    match report.outcome {
        PutOutcome::Stored => tracing::info!(
            version = %report.version, keys = report.keys, locales = report.locales,
            warnings = report.warnings.len(), "translations stored"
        ),
        PutOutcome::Unchanged => {
            tracing::debug!(version = %report.version, "translations unchanged")
        }
    }
    for warning in &report.warnings {
        tracing::debug!(%warning, "sheet warning");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> Vec<Vec<String>> {
        text.lines()
            .map(|line| line.split(',').map(str::to_owned).collect())
            .collect()
    }

    #[test]
    fn a_sheet_without_a_text_is_refused_with_the_reason() {
        let reason = |text: &str| convert(grid(text)).unwrap_err().to_string();
        assert_eq!(
            reason("title\n>>>,en\n"),
            "the sheet has a header row (row 2) but no row with a key and a text: the header is \
             the sheet's last row; add rows below it with a key in a '>>>' column and a text in \
             a locale column"
        );
        assert_eq!(
            reason(">>>,en,pl\nA,,\nB\n"),
            "the sheet has a header row (row 1) but no row with a key and a text; every text \
             cell under the locale columns (en, pl) is empty"
        );
        assert!(
            reason(">>>,,en\n,A,a\n,B,b\n,C,c\n").ends_with("(2 more warning(s) like it)"),
            "{}",
            reason(">>>,,en\n,A,a\n")
        );
        assert_eq!(
            convert(grid("en\nA")).unwrap_err(),
            ConvertError::Sheet(SheetError::NoHeaderRow)
        );
        assert_eq!(convert(grid(">>>,en\nA,a\n")).unwrap().entries.len(), 1);
    }
}
