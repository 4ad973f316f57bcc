//! Bundles (SPEC §14): what an SDK loads in one request, one namespace in one locale of one
//! version, in the layout its library reads: i18next JSON v4 (i18next-http-backend and
//! i18next-locize-backend: `{{name}}` placeholders, plural keys `KEY_one`, `KEY_other`) or
//! Tolgee's (nested json with ICU messages: `{count, plural, one {# item} other {…}}`).
//! A version never changes, so neither do its bundles: each is rendered once, named by the
//! SHA-256 of its bytes, and kept in a cache bounded by bytes; a channel that moves just
//! names other bundles, so nothing served is ever stale.
//!
//! Locale codes in URLs go through `locale_in` and lists through `public_name`: the one
//! place that maps them, so per-target names (`translations.locales`) can plug in there.

use super::service::{Rendition, TranslationService};
use super::store::StoreError;
use crate::formats::{Format, PlaceholderMode, RenderError, RenderOptions, render_locale_tree};
use crate::model::locale::base_locale;
use crate::model::{Document, LocaleSelection, Selection};
use crate::naming::locale_names::LocaleNames;
use crate::singleflight::SingleFlight;
use bytes::Bytes;
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

/// Bytes of bundles held (bodies, counted twice for their compressed variants); past it
/// the least recently used go.
const CACHE_BUDGET_BYTES: usize = 64 * 1024 * 1024;
/// Bundle names remembered (to answer `/bundles/{hash}` after the body left the cache).
const MAX_NAMES: usize = 200_000;

/// The layouts a bundle is rendered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layout {
    /// i18next JSON v4, for i18next-http-backend and i18next-locize-backend.
    I18next,
    /// Tolgee's content-delivery JSON with ICU messages, for `@tolgee/web`.
    Tolgee,
}

impl Layout {
    pub const ALL: [Layout; 2] = [Layout::I18next, Layout::Tolgee];

    fn format(self) -> Format {
        match self {
            Layout::I18next => Format::I18next,
            Layout::Tolgee => Format::Json,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Layout::I18next => "i18next",
            Layout::Tolgee => "tolgee",
        }
    }
}

/// A rendered bundle: its body (and compressed variants) and its name.
#[derive(Debug)]
pub struct Bundle {
    /// Lower-case hex SHA-256 of the body: `/bundles/<hash>.json`.
    pub hash: String,
    /// The body, its ETag the quoted hash.
    pub rendition: Rendition,
}

#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("no namespace '{namespace}' in this version; namespaces: {}", .known.join(", "))]
    UnknownNamespace {
        namespace: String,
        known: Vec<String>,
    },
    #[error(
        "no locale '{locale}' in this version (a locale is named by its sheet code or its \
         BCP 47 tag, e.g. pt_BR or pt-BR); locales: {}",
        .known.join(", ")
    )]
    UnknownLocale { locale: String, known: Vec<String> },
    #[error("version {0} is no longer kept")]
    NotKept(String),
    #[error("{0}")]
    Render(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the render task stopped: {0}")]
    Task(String),
}

/// The locale of `doc` that `asked` names in a URL of `layout`: its name there
/// (`translations.locales`), its sheet code or its BCP 47 form (`pt_BR`, `pt-BR`), in any
/// case.
pub fn locale_in(
    names: &LocaleNames,
    layout: Layout,
    doc: &Document,
    asked: &str,
) -> Option<usize> {
    names.position(layout.name(), &doc.locales, asked)
}

/// The name depot gives the locale `code` in what `target` lists: its name there
/// (`translations.locales`), else its BCP 47 tag in canonical case (`pt_BR` → `pt-BR`), as
/// the libraries name languages; a code that is no tag, as written.
pub fn public_name(names: &LocaleNames, target: &str, code: &str) -> String {
    match names.name(target, code) {
        Some(name) => name.to_owned(),
        None => crate::model::langtag::parse(code)
            .map_or_else(|| code.to_owned(), |tag| tag.to_string()),
    }
}

/// The body of one bundle, rendered (CPU work: call from a blocking thread for big
/// documents).
pub fn render(
    names: &LocaleNames,
    doc: &Document,
    layout: Layout,
    namespace: &str,
    asked_locale: &str,
) -> Result<Vec<u8>, BundleError> {
    let known_namespaces = || {
        (doc.namespace_names().into_iter())
            .map(str::to_owned)
            .collect()
    };
    let ns = doc
        .namespace(namespace)
        .ok_or_else(|| BundleError::UnknownNamespace {
            namespace: namespace.to_owned(),
            known: known_namespaces(),
        })?;
    let locale =
        locale_in(names, layout, &ns, asked_locale).ok_or_else(|| BundleError::UnknownLocale {
            locale: asked_locale.to_owned(),
            known: (doc.locales.iter())
                .map(|c| public_name(names, layout.name(), c))
                .collect(),
        })?;
    let entries = (ns.entries.iter().enumerate())
        .filter(|(_, e)| e.texts.get(locale).is_some_and(Option::is_some))
        .map(|(i, _)| i)
        .collect();
    let selection = Selection {
        locales: vec![LocaleSelection { locale, entries }],
    };
    let options = RenderOptions {
        comments: false,
        keep_locale: false,
        base_locale: base_locale(&ns),
        // What the libraries interpolate: `{{name}}` for i18next, ICU for Tolgee.
        placeholders: PlaceholderMode::Convert,
        declared_locale: None,
        // a sheet holding another syntax (its settings cell) is read through it
        follow: ns.settings.placeholders,
    };
    render_locale_tree(&ns, &selection, layout.format(), &options)
        .map(|rendered| rendered.body)
        .map_err(|e: RenderError| BundleError::Render(e.to_string()))
}

/// A bundle of bytes: named by their hash.
pub fn named(body: Vec<u8>) -> Bundle {
    let hash = crate::hex::encode(&Sha256::digest(&body));
    Bundle {
        rendition: Rendition::new(
            format!("\"{hash}\""),
            "application/json",
            Bytes::from(body),
            Vec::new(),
        ),
        hash,
    }
}

/// Which bundle: the version, the layout, the namespace and the locale as asked (folded).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    version: String,
    layout: Layout,
    namespace: String,
    locale: String,
}

#[derive(Default)]
struct Cache {
    bundles: HashMap<Key, (Arc<Bundle>, u64)>,
    bytes: usize,
    tick: u64,
    /// Every bundle rendered, by hash: the key to render it again.
    names: HashMap<String, Key>,
    /// The versions `warm` rendered every bundle of.
    warmed: BTreeSet<String>,
}

/// The bundles this process serves.
pub struct Bundles {
    service: Arc<TranslationService>,
    /// `translations.locales` (read at start: the key needs a restart).
    names: LocaleNames,
    cache: Mutex<Cache>,
    flight: SingleFlight<Key, Arc<Bundle>>,
}

impl Bundles {
    pub fn new(service: Arc<TranslationService>, names: LocaleNames) -> Bundles {
        Bundles {
            service,
            names,
            cache: Mutex::new(Cache::default()),
            flight: SingleFlight::default(),
        }
    }

    /// The locale names per target the bundles are named by.
    pub fn names(&self) -> &LocaleNames {
        &self.names
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The bundle of `namespace` in `locale` (as a URL names it) of `version`: from the
    /// cache, or rendered once on a blocking thread however many clients ask at once.
    pub async fn get(
        self: &Arc<Self>,
        version: &str,
        layout: Layout,
        namespace: &str,
        locale: &str,
    ) -> Result<Arc<Bundle>, BundleError> {
        let key = Key {
            version: version.to_owned(),
            layout,
            namespace: namespace.to_owned(),
            locale: String::from_utf8_lossy(&crate::model::locale::locale_key(locale)).into_owned(),
        };
        if let Some(hit) = self.cached(&key) {
            return Ok(hit);
        }
        let this = self.clone();
        let asked = locale.to_owned();
        // A task of its own, so that a client that hangs up does not cut the render short.
        tokio::spawn(async move {
            let flight_key = key.clone();
            let renderer = this.clone();
            this.flight
                .run(flight_key, || async move {
                    tokio::task::spawn_blocking(move || renderer.render_now(key, &asked))
                        .await
                        .map_err(|e| BundleError::Task(e.to_string()))?
                })
                .await
        })
        .await
        .map_err(|e| BundleError::Task(e.to_string()))?
    }

    fn cached(&self, key: &Key) -> Option<Arc<Bundle>> {
        let mut cache = self.lock();
        cache.tick += 1;
        let tick = cache.tick;
        let (bundle, used) = cache.bundles.get_mut(key)?;
        *used = tick;
        Some(bundle.clone())
    }

    /// Renders a bundle and keeps it (blocking).
    fn render_now(&self, key: Key, asked: &str) -> Result<Arc<Bundle>, BundleError> {
        if let Some(hit) = self.cached(&key) {
            return Ok(hit);
        }
        let live = self
            .service
            .kept(&key.version)?
            .ok_or_else(|| BundleError::NotKept(key.version.clone()))?;
        let body = render(
            &self.names,
            &live.stored.document,
            key.layout,
            &key.namespace,
            asked,
        )?;
        let bundle = Arc::new(named(body));
        self.keep(key, &bundle);
        Ok(bundle)
    }

    fn keep(&self, key: Key, bundle: &Arc<Bundle>) {
        let mut cache = self.lock();
        if cache.names.len() >= MAX_NAMES {
            cache.names.clear();
            cache.warmed.clear();
        }
        cache.names.insert(bundle.hash.clone(), key.clone());
        cache.tick += 1;
        let tick = cache.tick;
        cache.bytes += 2 * bundle.rendition.identity.len();
        if let Some((old, _)) = cache.bundles.insert(key, (bundle.clone(), tick)) {
            cache.bytes -= 2 * old.rendition.identity.len();
        }
        if cache.bytes > CACHE_BUDGET_BYTES {
            // the least recently used out, until a quarter of the budget is free
            let mut by_use: Vec<(u64, Key)> = (cache.bundles.iter())
                .map(|(k, (_, used))| (*used, k.clone()))
                .collect();
            by_use.sort_unstable_by_key(|(used, _)| *used);
            for (_, key) in by_use {
                if cache.bytes <= CACHE_BUDGET_BYTES / 4 * 3 {
                    break;
                }
                if let Some((gone, _)) = cache.bundles.remove(&key) {
                    cache.bytes -= 2 * gone.rendition.identity.len();
                }
            }
        }
    }

    /// The bundle named `hash`, if this process rendered it (rendered again when it left
    /// the cache since). A node that never did can `warm` the versions served first.
    pub async fn by_hash(self: &Arc<Self>, hash: &str) -> Result<Option<Arc<Bundle>>, BundleError> {
        let key = self.lock().names.get(hash).cloned();
        let Some(key) = key else { return Ok(None) };
        let locale = key.locale.clone();
        let bundle = self
            .get(&key.version, key.layout, &key.namespace, &locale)
            .await?;
        Ok((bundle.hash == hash).then_some(bundle))
    }

    /// Renders every bundle of `versions` not rendered yet (blocking on its own thread):
    /// after it, `by_hash` knows every bundle those versions have.
    pub async fn warm(self: &Arc<Self>, versions: Vec<String>) -> Result<(), BundleError> {
        for version in versions {
            if self.lock().warmed.contains(&version) {
                continue;
            }
            let service = self.service.clone();
            let wanted = version.clone();
            let live = tokio::task::spawn_blocking(move || service.kept(&wanted))
                .await
                .map_err(|e| BundleError::Task(e.to_string()))??;
            let Some(live) = live else { continue };
            let doc = &live.stored.document;
            for namespace in doc.namespace_names() {
                for code in &doc.locales {
                    for layout in Layout::ALL {
                        match self.get(&version, layout, namespace, code).await {
                            Ok(_) | Err(BundleError::Render(_)) => {}
                            Err(e) => return Err(e),
                        }
                    }
                }
            }
            self.lock().warmed.insert(version);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Entry, Plural, PluralCategory, PluralForm};
    use proptest::prelude::*;

    fn doc() -> Document {
        let entry = |path: &[&str], en: &str, pt: Option<&str>| Entry {
            path: path.iter().map(|s| (*s).to_owned()).collect(),
            texts: vec![Some(en.into()), pt.map(Into::into)],
            ..Entry::default()
        };
        let mut items = entry(&["common", "ITEMS"], "{count} items", Some("{count} itens"));
        items.plural = Some(Box::new(Plural {
            forms: vec![
                PluralForm {
                    category: PluralCategory::One,
                    texts: vec![Some("One item".into()), Some("Um item".into())],
                },
                PluralForm {
                    category: PluralCategory::Other,
                    texts: vec![Some("{count} items".into()), Some("{count} itens".into())],
                },
            ],
        }));
        Document {
            locales: vec!["en".into(), "pt_BR".into()],
            entries: vec![
                entry(&["common", "HELLO"], "Hello {name}", Some("Olá {name}")),
                items,
                entry(&["home", "TITLE"], "Home", None),
            ],
            namespaces: vec!["common".into(), "home".into()],
            ..Document::default()
        }
    }

    fn text(body: Vec<u8>) -> String {
        String::from_utf8(body).unwrap()
    }

    #[test]
    fn each_layout_renders_one_namespace_in_one_locale() {
        let d = doc();
        assert_eq!(
            text(render(&none(), &d, Layout::I18next, "common", "pt-br").unwrap()),
            r#"{"HELLO":"Olá {{name}}","ITEMS_one":"Um item","ITEMS_other":"{{count}} itens"}"#
        );
        assert_eq!(
            text(render(&none(), &d, Layout::Tolgee, "common", "en").unwrap()),
            r#"{"HELLO":"Hello {name}","ITEMS":"{count, plural, one {One item} other {# items}}"}"#
        );
        // a locale without texts in a namespace: an empty object
        assert_eq!(
            text(render(&none(), &d, Layout::I18next, "home", "pt_BR").unwrap()),
            "{}"
        );
        let err = render(&none(), &d, Layout::I18next, "shop", "en").unwrap_err();
        assert_eq!(
            err.to_string(),
            "no namespace 'shop' in this version; namespaces: common, home"
        );
        let err = render(&none(), &d, Layout::Tolgee, "home", "de").unwrap_err();
        assert!(err.to_string().ends_with("locales: en, pt-BR"), "{err}");
        // a sheet of one tab is the namespace `translation`
        let one = Document {
            namespaces: Vec::new(),
            entries: vec![d.entries[0].clone()],
            ..d.clone()
        };
        assert!(render(&none(), &one, Layout::I18next, "translation", "en").is_ok());
        assert_eq!(public_name(&none(), "i18next", "pt_BR"), "pt-BR");
        assert_eq!(public_name(&none(), "i18next", "English"), "English");
    }

    fn none() -> LocaleNames {
        LocaleNames::default()
    }

    /// `translations.locales` names a locale per layout: URLs ask for it by that name (or
    /// the sheet's code), and the lists give it.
    #[test]
    fn a_layout_names_locales_as_translations_locales_says() {
        let d = doc();
        let names = LocaleNames::parse(&["tolgee:pt_BR=pt".to_owned()]).unwrap();
        let tolgee = |asked| render(&names, &d, Layout::Tolgee, "common", asked).map(text);
        assert_eq!(tolgee("pt").unwrap(), tolgee("pt_BR").unwrap());
        assert!(render(&names, &d, Layout::I18next, "common", "pt").is_err());
        let err = render(&names, &d, Layout::Tolgee, "home", "de").unwrap_err();
        assert!(err.to_string().ends_with("locales: en, pt"), "{err}");
        assert_eq!(public_name(&names, "tolgee", "pt_BR"), "pt");
        assert_eq!(public_name(&names, "i18next", "pt_BR"), "pt-BR");
    }

    proptest! {
        /// A bundle's name is the SHA-256 of its bytes, whatever they are, and its ETag
        /// the quoted name: equal bodies share a name, different ones do not.
        #[test]
        fn a_bundle_is_named_by_the_hash_of_its_content(a in any::<Vec<u8>>(), b in any::<Vec<u8>>()) {
            let (x, y) = (named(a.clone()), named(b.clone()));
            prop_assert_eq!(&x.hash, &crate::hex::encode(&Sha256::digest(&a)));
            prop_assert_eq!(x.hash.len(), 64);
            prop_assert_eq!(&x.rendition.etag, &format!("\"{}\"", x.hash));
            prop_assert_eq!(x.rendition.identity.as_ref(), a.as_slice());
            prop_assert_eq!(x.hash == y.hash, a == b);
        }
    }
}
