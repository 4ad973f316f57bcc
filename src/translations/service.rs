//! The translations the daemon serves: the one in-memory copy of the current document
//! (with its filter index), the store chosen at start-up that persists it, and a cache of
//! rendered bodies per (version, filters, format, options).
//!
//! A repeated request does no filtering or rendering. The cache belongs to one document
//! version: when a new version becomes current the cache is emptied, so old bodies are
//! freed once in-flight responses end.

use super::query::TranslationQuery;
use super::store::{
    FileStore, PutOutcome, RedisStore, SledStore, StoreError, StoredDocument, TranslationStore,
};
use super::versions::{
    ChangesByLocale, History, VersionChanges, VersionError, VersionSummary, VersionTexts,
    changed_keys, changed_texts, is_version_id,
};
use crate::compression::{Encoding, MIN_COMPRESS_LEN, compress};
use crate::config::settings::{Storage, Translations as TranslationSettings};
use crate::formats::{
    Format, PlaceholderMode, RenderError, RenderOptions, known_warnings, plurals_left_out, render,
};
use crate::model::Document;
use crate::model::fallback::Fallbacks;
use crate::model::filter::{FilterIndex, SelectError};
use crate::model::locale::base_locale;
use crate::naming::locale_names::LocaleNames;
use crate::singleflight::SingleFlight;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

/// Upper bound of cached body bytes, each body counted with its compressed variants;
/// past it the cache starts over. Keeps a client that sends endless filter combinations
/// from growing memory without limit.
const CACHE_BUDGET_BYTES: usize = 64 * 1024 * 1024;
/// Upper bound of cached bodies of versions other than the current one (`?version=`),
/// which apps pinned to a release ask for again and again.
const PINNED_CACHE_BUDGET_BYTES: usize = 16 * 1024 * 1024;
/// Older versions kept indexed in memory for `?version=`; each costs its document's size.
const PINNED_VERSIONS_IN_MEMORY: usize = 2;

/// One rendered body and its compressed variants, made on first demand.
#[derive(Debug)]
pub struct Rendition {
    pub etag: String,
    pub content_type: &'static str,
    pub identity: Bytes,
    gzip: OnceLock<Bytes>,
    br: OnceLock<Bytes>,
    /// Warnings of the render (flat-name conflicts), for the log.
    pub warnings: Vec<String>,
}

impl Rendition {
    /// A body to serve, its variants compressed on first demand.
    pub fn new(
        etag: String,
        content_type: &'static str,
        identity: Bytes,
        warnings: Vec<String>,
    ) -> Rendition {
        Rendition {
            etag,
            content_type,
            identity,
            gzip: OnceLock::new(),
            br: OnceLock::new(),
            warnings,
        }
    }

    /// The bytes held: the body and the variants made so far.
    pub fn held_bytes(&self) -> usize {
        self.identity.len()
            + self.gzip.get().map_or(0, Bytes::len)
            + self.br.get().map_or(0, Bytes::len)
    }

    /// The body in `encoding` (compressing it the first time); identity for small bodies.
    pub fn body(&self, encoding: Encoding) -> (Bytes, Encoding) {
        if self.identity.len() < MIN_COMPRESS_LEN {
            return (self.identity.clone(), Encoding::Identity);
        }
        let slot = match encoding {
            Encoding::Identity => return (self.identity.clone(), Encoding::Identity),
            Encoding::Gzip => &self.gzip,
            Encoding::Br => &self.br,
        };
        let bytes = slot.get_or_init(|| Bytes::from(compress(&self.identity, encoding)));
        (bytes.clone(), encoding)
    }

    /// Whether `encoding` still has to be computed (callers then move to a blocking thread).
    pub fn needs_compression(&self, encoding: Encoding) -> bool {
        self.identity.len() >= MIN_COMPRESS_LEN
            && match encoding {
                Encoding::Identity => false,
                Encoding::Gzip => self.gzip.get().is_none(),
                Encoding::Br => self.br.get().is_none(),
            }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ServeTranslationsError {
    #[error("translations have not been loaded yet: the producer has not completed a sync")]
    NotLoaded,
    /// Nothing loaded yet and the shared store cannot be reached (SPEC §7: 503 until loaded).
    #[error("translations have not been loaded yet: {0}")]
    StoreUnreachable(String),
    #[error(transparent)]
    Select(#[from] SelectError),
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    NoFallbackChain(#[from] crate::model::fallback::NoChain),
    #[error("the render task stopped: {0}")]
    Task(String),
}

/// Rendered bodies under a byte budget: past it, the next body starts the map over.
#[derive(Default)]
struct Bodies {
    entries: HashMap<String, Arc<Rendition>>,
    bytes: usize,
}

impl Bodies {
    fn keep(&mut self, key: String, rendition: &Arc<Rendition>, budget: usize) {
        if self.bytes > budget {
            *self = Bodies::default();
        }
        self.bytes += rendition.identity.len();
        self.entries.insert(key, rendition.clone());
    }
}

/// The current version's bodies, keyed by query.
#[derive(Default)]
struct Cache {
    version: String,
    bodies: Bodies,
}

fn pinned_key(version: &str, query: &TranslationQuery) -> String {
    format!("{version}|{}", query.cache_key())
}

/// A new current version, as `GET /translations/events` announces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionEvent {
    pub version: String,
    pub updated_at: DateTime<Utc>,
}

impl VersionEvent {
    fn of(stored: &StoredDocument) -> VersionEvent {
        VersionEvent {
            version: stored.version.clone(),
            updated_at: stored.updated_at,
        }
    }
}

/// A subscriber's view of the served versions (`GET /translations/events`).
pub struct Subscription {
    pub versions: tokio::sync::watch::Receiver<Option<VersionEvent>>,
    /// Turns true when the daemon shuts down: streams end so connections can close.
    pub closed: tokio::sync::watch::Receiver<bool>,
}

/// What `put` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PutReport {
    pub outcome: PutOutcome,
    /// The new version's summary, when this put stored one.
    pub summary: Option<VersionSummary>,
}

/// The current document with what serving it needs, built once per version.
pub struct Live {
    pub stored: StoredDocument,
    pub index: FilterIndex,
    /// Non-empty texts per locale, for `/health`.
    pub key_counts: Vec<(String, usize)>,
    /// Per format, the keys an unfiltered render of one locale leaves out (names that
    /// collide), for `/health`; formats without any are absent.
    pub render_warnings: Vec<(Format, Vec<String>)>,
}

impl Live {
    fn new(stored: StoredDocument) -> Live {
        Live {
            index: FilterIndex::new(&stored.document),
            key_counts: stored.document.key_counts(),
            render_warnings: known_warnings(&stored.document),
            stored,
        }
    }
}

/// A kept version's document, as served or as read from the store.
enum Held {
    Live(Arc<Live>),
    Loaded(StoredDocument),
}

impl Held {
    fn document(&self) -> &Document {
        match self {
            Held::Live(live) => &live.stored.document,
            Held::Loaded(stored) => &stored.document,
        }
    }
}

pub struct TranslationService {
    store: Arc<dyn TranslationStore>,
    /// The store again when other processes write to it (Redis): the node follows it
    /// (`translations/follow.rs`) and producers share a lease in it.
    shared: Option<Arc<RedisStore>>,
    live: RwLock<Option<Arc<Live>>>,
    /// Why the stored document was not loaded at start, until a sync replaces it.
    load_error: RwLock<Option<String>>,
    /// The compare-then-save of `put` must not interleave with another writer.
    write: Mutex<()>,
    cache: Mutex<Cache>,
    /// Bodies of versions other than the current one, keyed by version and query.
    pinned_cache: Mutex<Bodies>,
    /// Older versions indexed for `?version=`, most recently used last.
    pinned: Mutex<Vec<Arc<Live>>>,
    /// Concurrent misses of one (version, query, encoding) render once.
    flight: Arc<SingleFlight<String, Arc<Rendition>>>,
    /// The version served, for every subscriber of `/translations/events`.
    events: tokio::sync::watch::Sender<Option<VersionEvent>>,
    closed: tokio::sync::watch::Sender<bool>,
    /// `translations.fallback`, `translations.placeholders` (SPEC §9), `translations.locales`.
    texts: TextSettings,
    /// A digest of `texts`, made with them: every ETag covers it.
    texts_tag: [u8; 32],
}

/// How texts are served beyond the query: the fallback chains `fallback=true` follows
/// and the placeholder mode when the query names none. Fixed at start-up.
#[derive(Debug, Clone, Default)]
pub struct TextSettings {
    pub fallbacks: Fallbacks,
    pub placeholders: PlaceholderMode,
    /// `translations.locales`: each format's names for the sheet's locales.
    pub locale_names: LocaleNames,
}

impl TextSettings {
    /// What identifies them in an ETag (each is a list in the order configured, so their
    /// debug form is stable).
    fn tag(&self) -> [u8; 32] {
        Sha256::digest(format!("{self:?}").as_bytes()).into()
    }
}

impl TranslationService {
    /// Opens the backend named by the settings (the one place that chooses it).
    pub fn open(settings: &TranslationSettings) -> Result<TranslationService, StoreError> {
        let (store, shared): (Arc<dyn TranslationStore>, _) = match settings.storage {
            Storage::Sled => (Arc::new(SledStore::open(&settings.sled_path)?), None),
            Storage::File => (Arc::new(FileStore::open(&settings.file_path)?), None),
            Storage::Redis => {
                let redis = Arc::new(RedisStore::open(settings)?);
                (redis.clone(), Some(redis))
            }
        };
        let mut service = TranslationService::with_store(store);
        service.shared = shared;
        service.texts = TextSettings {
            fallbacks: settings.fallbacks.clone(),
            placeholders: settings.placeholders,
            locale_names: settings.locale_names.clone(),
        };
        service.texts_tag = service.texts.tag();
        Ok(service)
    }

    /// The store's kind and state, for `/health`.
    pub fn store_health(&self) -> super::store::StoreHealth {
        self.store.health()
    }

    /// The shared store other processes write to, if the backend is one.
    pub fn shared(&self) -> Option<&Arc<RedisStore>> {
        self.shared.as_ref()
    }

    /// The store itself (blocking methods), for the channels kept beside the versions.
    pub fn store(&self) -> &Arc<dyn TranslationStore> {
        &self.store
    }

    /// Runs `write` as the only writer of this process: a `put` (and the versions it
    /// prunes) waits for it, so what it checked in the store stays so until it is done.
    pub fn exclusive<T>(&self, write: impl FnOnce() -> T) -> T {
        let _writer = self.write.lock().unwrap_or_else(PoisonError::into_inner);
        write()
    }

    /// Wraps a store, loading and indexing its current document (blocking: the index of a
    /// big document takes tens of milliseconds). A stored document that cannot be read or
    /// served is logged and left out: the service starts without translations (503, and
    /// `/health` says why) until the next sync replaces it.
    pub fn with_store(store: Arc<dyn TranslationStore>) -> TranslationService {
        let (live, load_error) = match store.load() {
            Ok(stored) => (stored.map(|stored| Arc::new(Live::new(stored))), None),
            Err(e) => {
                tracing::error!(error = %e, "the stored translations are not served");
                (None, Some(e.to_string()))
            }
        };
        let event = live
            .as_ref()
            .map(|l: &Arc<Live>| VersionEvent::of(&l.stored));
        TranslationService {
            store,
            shared: None,
            live: RwLock::new(live),
            load_error: RwLock::new(load_error),
            write: Mutex::new(()),
            cache: Mutex::new(Cache::default()),
            pinned_cache: Mutex::new(Bodies::default()),
            pinned: Mutex::new(Vec::new()),
            flight: Arc::new(SingleFlight::default()),
            events: tokio::sync::watch::channel(event).0,
            closed: tokio::sync::watch::channel(false).0,
            texts: TextSettings::default(),
            texts_tag: TextSettings::default().tag(),
        }
    }

    /// The served version now and at every change (`GET /translations/events`).
    pub fn subscribe(&self) -> Subscription {
        Subscription {
            versions: self.events.subscribe(),
            closed: self.closed.subscribe(),
        }
    }

    /// Ends every event stream (shutdown), so their connections can close.
    pub fn close_events(&self) {
        self.closed.send_replace(true);
    }

    /// The kept versions, newest first (the store is read on a blocking thread).
    pub async fn versions(self: &Arc<Self>) -> Result<History, StoreError> {
        self.blocking(|service| service.store.history()).await
    }

    /// The kept version that `asked` names: its id, or a unique prefix of at least
    /// `versions::MIN_PREFIX` characters (on a blocking thread, as `kept`).
    pub async fn kept_named(self: &Arc<Self>, asked: &str) -> Result<Arc<Live>, VersionError> {
        let asked = asked.to_owned();
        self.blocking(move |service| service.kept_named_now(&asked))
            .await
    }

    /// What the kept version `asked` names changed, key by key, against the version
    /// before it (on a blocking thread: up to two documents are read from the store).
    pub async fn changes(self: &Arc<Self>, asked: &str) -> Result<VersionChanges, VersionError> {
        let asked = asked.to_owned();
        self.blocking(move |service| service.changes_now(&asked))
            .await
    }

    /// `changes` with the words: what each added, removed and changed text said before and
    /// after, at most `limit` texts of each kind per locale (the console's version page).
    pub async fn text_changes(
        self: &Arc<Self>,
        asked: &str,
        limit: usize,
    ) -> Result<VersionTexts, VersionError> {
        let asked = asked.to_owned();
        self.blocking(move |service| service.text_changes_now(&asked, limit))
            .await
    }

    /// Runs `read`, which reads the store, on a blocking thread: the one hop off the async
    /// threads of the reads above, so that their callers need not make it.
    async fn blocking<T, E>(
        self: &Arc<Self>,
        read: impl FnOnce(&TranslationService) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let service = self.clone();
        tokio::task::spawn_blocking(move || read(&service))
            .await
            .map_err(|e| StoreError::Task(e.to_string()))?
    }

    /// A kept version, indexed for serving (blocking: an older version is read from the
    /// store and indexed on first demand); `None` when the store does not keep it.
    pub fn kept(&self, version: &str) -> Result<Option<Arc<Live>>, StoreError> {
        if let Some(live) = self.current().filter(|l| l.stored.version == version) {
            return Ok(Some(live));
        }
        {
            let mut pinned = self.pinned.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(at) = pinned.iter().position(|l| l.stored.version == version) {
                let live = pinned.remove(at);
                pinned.push(live.clone());
                return Ok(Some(live));
            }
        }
        let Some(stored) = self.store.load_version(version)? else {
            return Ok(None);
        };
        let live = Arc::new(Live::new(stored));
        let mut pinned = self.pinned.lock().unwrap_or_else(PoisonError::into_inner);
        if pinned.len() >= PINNED_VERSIONS_IN_MEMORY {
            pinned.remove(0);
        }
        pinned.push(live.clone());
        Ok(Some(live))
    }

    /// `kept_named`, blocking.
    pub fn kept_named_now(&self, asked: &str) -> Result<Arc<Live>, VersionError> {
        // An id needs no look at the list of kept versions (nor does the current one).
        let id = match is_version_id(asked) {
            true => asked.to_owned(),
            false => self.store.history()?.resolve(asked)?.version.clone(),
        };
        self.kept(&id)?
            .ok_or_else(|| VersionError::NotKept(asked.chars().take(80).collect()))
    }

    /// `changes`, blocking.
    fn changes_now(&self, asked: &str) -> Result<VersionChanges, VersionError> {
        let (summary, locales) = self.compare(asked, changed_keys)?;
        Ok(VersionChanges {
            summary,
            locales: locales.map(ChangesByLocale),
        })
    }

    /// `text_changes`, blocking.
    fn text_changes_now(&self, asked: &str, limit: usize) -> Result<VersionTexts, VersionError> {
        let (summary, locales) = self.compare(asked, |old, new| changed_texts(old, new, limit))?;
        Ok(VersionTexts { summary, locales })
    }

    /// The summary of the kept version `asked` names, and `diff` of the version before it
    /// (`None` before the first) and it; `None` for the diff when the version before it is
    /// no longer kept.
    fn compare<T>(
        &self,
        asked: &str,
        diff: impl FnOnce(Option<&Document>, &Document) -> T,
    ) -> Result<(VersionSummary, Option<T>), VersionError> {
        let summary = self.store.history()?.resolve(asked)?.clone();
        let gone = || VersionError::NotKept(summary.version.clone());
        let this = self.held(&summary.version)?.ok_or_else(gone)?;
        let before = match &summary.previous_version {
            None => None,
            Some(previous) => match self.held(previous)? {
                Some(held) => Some(held),
                // fell out of the kept versions: the keys cannot be told any more
                None => return Ok((summary, None)),
            },
        };
        let diff = diff(before.as_ref().map(Held::document), this.document());
        Ok((summary, Some(diff)))
    }

    /// A kept version's document, from memory when it is held there, else from the store
    /// (without indexing it: a diff only reads it once).
    fn held(&self, version: &str) -> Result<Option<Held>, StoreError> {
        let pinned = || {
            let pinned = self.pinned.lock().unwrap_or_else(PoisonError::into_inner);
            pinned.iter().find(|l| l.stored.version == version).cloned()
        };
        if let Some(live) = self
            .current()
            .filter(|l| l.stored.version == version)
            .or_else(pinned)
        {
            return Ok(Some(Held::Live(live)));
        }
        Ok(self.store.load_version(version)?.map(Held::Loaded))
    }

    /// The current document and its index.
    pub fn current(&self) -> Option<Arc<Live>> {
        self.live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Why the stored document could not be loaded at start, while no sync replaced it.
    pub fn load_error(&self) -> Option<String> {
        self.load_error
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The document to serve, or why there is none yet.
    pub fn serving(&self) -> Result<Arc<Live>, ServeTranslationsError> {
        if let Some(live) = self.current() {
            return Ok(live);
        }
        let health = self.store.health();
        match health.last_error {
            Some(error) if !health.reachable => {
                Err(ServeTranslationsError::StoreUnreachable(error))
            }
            _ => Err(ServeTranslationsError::NotLoaded),
        }
    }

    /// Stores a new document, keeps it as a version beside at most `keep - 1` older ones
    /// and makes it current (blocking). Unchanged content is not written again; an empty
    /// document, or one past the limits of what can be served, is refused and the current
    /// one kept.
    pub fn put(&self, document: Document, keep: usize) -> Result<PutReport, StoreError> {
        if document.is_empty() {
            return Err(StoreError::EmptyDocument);
        }
        document.check_limits()?;
        let stored = StoredDocument::new(document)?;
        let _writer = self.write.lock().unwrap_or_else(PoisonError::into_inner);
        let previous = self.current();
        let unchanged = PutReport {
            outcome: PutOutcome::Unchanged,
            summary: None,
        };
        if previous
            .as_ref()
            .is_some_and(|live| live.stored.version == stored.version)
        {
            return Ok(unchanged);
        }
        let summary = VersionSummary::between(previous.as_ref().map(|l| &l.stored), &stored);
        if self.store.save(&stored, &summary, keep)? == PutOutcome::Unchanged {
            // Another node made this content current first; its follower brings it here.
            return Ok(unchanged);
        }
        // Index before swapping, so readers switch from one complete version to the next.
        let event = VersionEvent::of(&stored);
        self.make_current(Arc::new(Live::new(stored)));
        self.events.send_replace(Some(event));
        Ok(PutReport {
            outcome: PutOutcome::Stored,
            summary: Some(summary),
        })
    }

    /// Swaps in a new current version and lets go of what belonged to the old one.
    fn make_current(&self, live: Arc<Live>) {
        *self.live.write().unwrap_or_else(PoisonError::into_inner) = Some(live);
        *self
            .load_error
            .write()
            .unwrap_or_else(PoisonError::into_inner) = None;
        // The old version's bodies are of no more use.
        *self.cache.lock().unwrap_or_else(PoisonError::into_inner) = Cache::default();
    }

    /// Makes a version that another process stored current (blocking: it indexes the
    /// document), unless the served version is no longer `expected` (a put on this node
    /// made a newer one current meanwhile; the follower compares again on its next round).
    pub fn adopt(&self, stored: StoredDocument, expected: Option<&str>) -> bool {
        let event = VersionEvent::of(&stored);
        let live = Arc::new(Live::new(stored));
        {
            let _writer = self.write.lock().unwrap_or_else(PoisonError::into_inner);
            if self.current().as_ref().map(|l| l.stored.version.as_str()) != expected {
                return false;
            }
            self.make_current(live);
        }
        self.events.send_replace(Some(event));
        true
    }

    /// The ETag of `query` against document `version`, known without rendering, so that a
    /// revalidation (304) costs one hash.
    pub fn etag(&self, version: &str, query: &TranslationQuery) -> String {
        let mut hasher = Sha256::new();
        hasher.update(version.as_bytes());
        hasher.update([0]);
        hasher.update(query.cache_key().as_bytes());
        // The settings that shape a body beyond the query (placeholders, fallbacks, locale
        // names): a restart with others must not answer 304 for the old body.
        hasher.update([0]);
        hasher.update(self.texts_tag);
        let digest = hasher.finalize();
        let hex = crate::hex::encode(&digest[..16]);
        format!("\"{hex}\"")
    }

    /// The cached rendition, if `query` was rendered for `version` before.
    pub fn cached(&self, version: &str, query: &TranslationQuery) -> Option<Arc<Rendition>> {
        {
            let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            if cache.version == version {
                return cache.bodies.entries.get(query.cache_key()).cloned();
            }
        }
        let pinned = self
            .pinned_cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        pinned.entries.get(&pinned_key(version, query)).cloned()
    }

    /// The rendition of `query` with `wanted` ready: from the cache, or rendered (and
    /// compressed) once on a blocking thread however many clients ask at the same time.
    pub async fn rendition(
        self: &Arc<Self>,
        live: Arc<Live>,
        query: TranslationQuery,
        wanted: Encoding,
    ) -> Result<Arc<Rendition>, ServeTranslationsError> {
        let cached = self.cached(&live.stored.version, &query);
        if let Some(hit) = &cached
            && !hit.needs_compression(wanted)
        {
            return Ok(hit.clone());
        }
        let key = format!("{}|{}|{wanted:?}", live.stored.version, query.cache_key());
        let service = self.clone();
        // A task of its own: a client that goes away mid-render drops only its wait, so the
        // flight always completes and its entry leaves the in-flight map (a dropped wait
        // would have left it there for good, one per abandoned request).
        tokio::spawn(async move {
            let flight = service.flight.clone();
            flight
                .run(key, || async move {
                    tokio::task::spawn_blocking(move || {
                        let rendition = match cached {
                            Some(hit) => hit,
                            None => service.render(&live, &query)?,
                        };
                        rendition.body(wanted);
                        service.account(&live.stored.version, &rendition, wanted);
                        Ok(rendition)
                    })
                    .await
                    .map_err(|e| ServeTranslationsError::Task(e.to_string()))?
                })
                .await
        })
        .await
        .map_err(|e| ServeTranslationsError::Task(e.to_string()))?
    }

    /// Filters and renders (CPU work: call from a blocking thread for big documents),
    /// then caches the result under the document's version.
    pub fn render(
        &self,
        live: &Live,
        query: &TranslationQuery,
    ) -> Result<Arc<Rendition>, ServeTranslationsError> {
        let stored = &live.stored;
        // fallback=true renders a copy with the missing texts filled, indexed anew
        let fallbacks = match query.fallback {
            true => Some(self.texts.fallbacks.required("fallback=true")?),
            false => None,
        };
        let filled = fallbacks
            .and_then(|fallbacks| fallbacks.apply(&stored.document))
            .map(|doc| {
                let index = FilterIndex::new(&doc);
                (doc, index)
            });
        let (doc, index) = match &filled {
            Some((doc, index)) => (doc, index),
            None => (&stored.document, &live.index),
        };
        let selected = index.select(&query.filters)?;
        if !selected.unmatched.is_empty() {
            tracing::debug!(unmatched = ?selected.unmatched, "some filters matched nothing");
        }
        let selection = selected.selection;
        // the query's placeholders > the sheet's settings cell > translations.placeholders
        let (placeholders, follow) = crate::formats::resolve_placeholders(
            query.placeholders,
            &doc.settings,
            self.texts.placeholders,
        );
        let options = RenderOptions {
            comments: query.comments,
            keep_locale: query.keep_locale,
            base_locale: base_locale(doc),
            placeholders,
            declared_locale: None,
            follow,
        };
        // translations.locales: the format's names for the locales (filters keep the
        // sheet's codes); the entries are shared, only the names differ.
        let names = (self.texts.locale_names).renamed(query.format.name(), &doc.locales);
        let renamed;
        let doc = match names == doc.locales {
            true => doc,
            false => {
                renamed = Document {
                    locales: names,
                    ..doc.clone()
                };
                &renamed
            }
        };
        let rendered = render(doc, &selection, query.format, &options)?;
        let rendition = Arc::new(Rendition {
            etag: self.etag(&stored.version, query),
            content_type: query.format.content_type(),
            identity: Bytes::from(rendered.body),
            gzip: OnceLock::new(),
            br: OnceLock::new(),
            warnings: (rendered.warnings.iter().map(ToString::to_string))
                .chain(plurals_left_out(doc, &selection, query.format))
                .collect(),
        });
        // A render of a version that is not current (asked for with `?version=`, or a sync
        // landed meanwhile) goes to the cache of pinned versions: it must not push out the
        // current version's bodies.
        let is_current = self
            .current()
            .is_some_and(|current| current.stored.version == stored.version);
        if !is_current {
            self.pinned_cache
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .keep(
                    pinned_key(&stored.version, query),
                    &rendition,
                    PINNED_CACHE_BUDGET_BYTES,
                );
            return Ok(rendition);
        }
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.version != stored.version {
            *cache = Cache {
                version: stored.version.clone(),
                bodies: Bodies::default(),
            };
        }
        cache
            .bodies
            .keep(query.cache_key().to_owned(), &rendition, CACHE_BUDGET_BYTES);
        Ok(rendition)
    }

    /// Counts the variant in `encoding`, just made, against the cache budget.
    fn account(&self, version: &str, rendition: &Rendition, encoding: Encoding) {
        let compressed = match encoding {
            Encoding::Identity => return,
            Encoding::Gzip => rendition.gzip.get().map_or(0, Bytes::len),
            Encoding::Br => rendition.br.get().map_or(0, Bytes::len),
        };
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.version == version {
            cache.bodies.bytes += compressed;
            return;
        }
        drop(cache);
        self.pinned_cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .bytes += compressed;
    }

    /// Makes accepted writes durable (shutdown).
    pub fn flush(&self) -> Result<(), StoreError> {
        self.store.flush()
    }

    /// Keeps the producer's state in the store (blocking).
    pub fn save_sync_state(&self, state: &super::store::SyncState) -> Result<(), StoreError> {
        self.store.save_sync_state(state)
    }

    /// The producer's state as the store keeps it (blocking).
    pub fn load_sync_state(&self) -> Result<Option<super::store::SyncState>, StoreError> {
        self.store.load_sync_state()
    }
}
