//! The layouts the i18n libraries apps already use request (SPEC §14), each under a
//! channel: i18next-http-backend (`/i18next/{channel}/{lng}/{ns}.json`, and its multi-load
//! form `/i18next/{channel}?lng=en+de&ns=a+b`), i18next-locize-backend
//! (`/locize/{projectId}/{channel}/{lng}/{ns}`, its private path, `/locize/languages/…`),
//! and Tolgee's content delivery (`/tolgee/{channel}/{lang}.json`, `/{ns}/{lang}.json`,
//! `manifest.json`). Every bundle is also served by its hash (`/bundles/<sha256>.json`).
//!
//! Caching as CDNs expect: a channel URL answers the bundle itself (one round trip for an
//! app's cold start) with `Cache-Control: public, max-age=delivery.max_age_secs`, its hash
//! as a strong `ETag` (a warm start is 304s) and as `Content-Location`; the hash-named URL
//! is immutable for a year. A cache in front of depot therefore asks depot only for channel
//! URLs and manifests, once per max-age, and a publish shows within it.

use crate::compression;
use crate::config::Settings;
use crate::http::ApiError;
use crate::http::auth::{Caller, KeyGuard};
use crate::http::error::ErrorCode;
use crate::http::routes::PathParams;
use crate::http::state::AppState;
use crate::model::DEFAULT_NAMESPACE;
use crate::model::locale::{base_locale, same_locale};
use crate::translations::bundles::{self, Bundle, BundleError, Layout, public_name};
use crate::translations::channels::book::DRAFT;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use warp::http::{HeaderMap, HeaderValue, StatusCode, header};
use warp::reply::Response;

/// Hash-named bundles never change.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Manifests kept rendered, per version (a few channels' worth).
const MANIFESTS_KEPT: usize = 64;
/// Multi-load bodies kept assembled (and compressed once), per (version, languages,
/// namespaces): an app asks the same few combinations on every start.
const MULTI_KEPT: usize = 256;
/// And at most this many bytes of either (identity bodies; the compressed ones are smaller).
const MULTI_BUDGET_BYTES: usize = 32 << 20;

/// Bodies made on request and kept by key, cleared whole when a bound is reached (the
/// keys hold the version, so an old version's bodies just stop being asked for).
struct Made {
    bodies: Mutex<HashMap<String, Arc<Bundle>>>,
    max_entries: usize,
    max_bytes: usize,
}

impl Made {
    fn new(max_entries: usize, max_bytes: usize) -> Made {
        Made {
            bodies: Mutex::new(HashMap::new()),
            max_entries,
            max_bytes,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Bundle>>> {
        self.bodies.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn get(&self, key: &str) -> Option<Arc<Bundle>> {
        self.lock().get(key).cloned()
    }

    fn keep(&self, key: String, bundle: &Arc<Bundle>) {
        let size = bundle.rendition.identity.len();
        let mut bodies = self.lock();
        let held: usize = (bodies.values()).map(|b| b.rendition.identity.len()).sum();
        if bodies.len() >= self.max_entries || held + size > self.max_bytes {
            bodies.clear();
        }
        if size <= self.max_bytes {
            bodies.insert(key, bundle.clone());
        }
    }
}

/// What the handlers share: the state, and the manifests made per version.
struct Sdk {
    state: Arc<AppState>,
    manifests: Made,
    /// Multi-load bodies by (version, languages, namespaces).
    multi: Made,
    /// The locize languages of (current version, channels' revision).
    languages: Mutex<Option<(String, Arc<Bundle>)>>,
}

/// `public, max-age=N` (private for a private channel).
fn cache_control(settings: &Settings, private: bool) -> String {
    let scope = if private { "private" } else { "public" };
    format!("{scope}, max-age={}", settings.delivery.max_age_secs)
}

/// Checks the key a request for `channel` presents: `Bearer <key>` or the bare key (as
/// i18next-locize-backend sends its apiKey), through the key guard every API key passes
/// (wrong ones throttled per address and logged). A private channel (or `required`) needs
/// one; a key presented that is not one is refused wherever it is sent. Whether the channel
/// is private.
fn admit(
    keys: &KeyGuard,
    caller: &Caller,
    settings: &Settings,
    channel: &str,
    required: bool,
) -> Result<bool, ApiError> {
    let private = settings.delivery.is_private(channel);
    let presented =
        (caller.headers.get(header::AUTHORIZATION)).map(|v| v.to_str().unwrap_or_default().trim());
    match presented {
        None if private || required => Err(ApiError::Unauthorized(format!(
            "channel '{channel}' is private: send a key of auth.api_keys as \
             'Authorization: Bearer <key>' (or the bare key, as i18next-locize-backend's \
             apiKey)"
        ))),
        None => Ok(private),
        Some(value) => {
            let key = match value.split_once(' ') {
                Some((scheme, key)) if scheme.eq_ignore_ascii_case("bearer") => key.trim(),
                _ => value,
            };
            keys.check_key(key, caller.client, &settings.auth, &settings.limits)?;
            Ok(private)
        }
    }
}

/// A path parameter, percent-decoded.
fn segment(params: &PathParams, at: usize, what: &str) -> Result<String, ApiError> {
    let raw = params.0.get(at).map(String::as_str).unwrap_or_default();
    crate::percent::decode(raw).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "the {what} in the path is not valid percent-encoded UTF-8"
        ))
        .with_code(ErrorCode::InvalidParameter)
    })
}

/// `name` without its `.json`.
fn json_file(name: &str, what: &str) -> Result<String, ApiError> {
    name.strip_suffix(".json")
        .map(str::to_owned)
        .ok_or_else(|| ApiError::NotFound(format!("the {what} must be a .json file: {what}.json")))
}

/// `If-None-Match` holds `etag` (or `*`).
fn client_has(headers: &HeaderMap, etag: &str) -> bool {
    (headers.get_all(header::IF_NONE_MATCH).iter())
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == etag || tag == "*")
}

/// The answer of a bundle (or manifest): 304 while the client holds it, else the body in
/// the best encoding the client takes.
async fn serve(
    bundle: Arc<Bundle>,
    headers: &HeaderMap,
    cache_control: &str,
    named: bool,
) -> Result<Response, ApiError> {
    let mut response = if client_has(headers, &bundle.rendition.etag) {
        let mut response = Response::new(Default::default());
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        response
    } else {
        let wanted = compression::negotiate(
            (headers.get(header::ACCEPT_ENCODING)).and_then(|v| v.to_str().ok()),
        );
        let (body, used) = if bundle.rendition.needs_compression(wanted) {
            let held = bundle.clone();
            tokio::task::spawn_blocking(move || held.rendition.body(wanted))
                .await
                .map_err(|e| ApiError::Internal(e.to_string()))?
        } else {
            bundle.rendition.body(wanted)
        };
        let mut response = Response::new(body.into());
        let out = response.headers_mut();
        out.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(bundle.rendition.content_type),
        );
        if let Some(name) = used.header() {
            out.insert(header::CONTENT_ENCODING, HeaderValue::from_static(name));
        }
        response
    };
    let out = response.headers_mut();
    if let Ok(etag) = HeaderValue::from_str(&bundle.rendition.etag) {
        out.insert(header::ETAG, etag);
    }
    if let Ok(value) = HeaderValue::from_str(cache_control) {
        out.insert(header::CACHE_CONTROL, value);
    }
    out.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if named && let Ok(value) = HeaderValue::from_str(&format!("/bundles/{}.json", bundle.hash)) {
        out.insert(header::CONTENT_LOCATION, value);
    }
    Ok(response)
}

impl Sdk {
    /// One bundle under a channel.
    async fn bundle(
        &self,
        channel: &str,
        layout: Layout,
        namespace: &str,
        locale: &str,
        caller: &Caller,
        key_required: bool,
    ) -> Result<Response, ApiError> {
        let settings = self.state.config.settings();
        let private = admit(&self.state.keys, caller, &settings, channel, key_required)?;
        let version = self.state.channels.version_of(channel)?;
        let bundle = (self.state.bundles)
            .get(&version, layout, namespace, locale)
            .await?;
        let cache = cache_control(&settings, private);
        serve(bundle, &caller.headers, &cache, true).await
    }

    /// `GET /i18next/{channel}?lng=en+de&ns=a+b`: `{lng: {ns: bundle}}` for each pair the
    /// channel's version has (i18next-multiload-backend-adapter gives the others `{}`).
    async fn multi(
        &self,
        channel: &str,
        params: &[(String, String)],
        caller: &Caller,
    ) -> Result<Response, ApiError> {
        let settings = self.state.config.settings();
        let private = admit(&self.state.keys, caller, &settings, channel, false)?;
        let version = self.state.channels.version_of(channel)?;
        // `+` joins them; the query's decoding already made it a space.
        let list = |name: &str| -> Result<Vec<String>, ApiError> {
            let values: Vec<String> = (params.iter())
                .filter(|(n, _)| n == name)
                .flat_map(|(_, v)| v.split([' ', '+']))
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
                .collect();
            match values.is_empty() {
                true => Err(ApiError::BadRequest(format!(
                    "{name} is required: the {} joined by + (e.g. {name}={})",
                    if name == "lng" {
                        "languages"
                    } else {
                        "namespaces"
                    },
                    if name == "lng" {
                        "en+de"
                    } else {
                        "common+home"
                    }
                ))
                .with_code(ErrorCode::InvalidParameter)),
                false => Ok(values),
            }
        };
        let (lngs, namespaces) = (list("lng")?, list("ns")?);
        // The body depends on the version and the two lists as asked (their order is the
        // body's order): the same request is assembled and compressed once.
        let key = format!("{version}\n{}\n{}", lngs.join("+"), namespaces.join("+"));
        let cache = cache_control(&settings, private);
        let held = self.multi.get(&key);
        if let Some(bundle) = held {
            return serve(bundle, &caller.headers, &cache, false).await;
        }
        let mut body = Vec::from(&b"{"[..]);
        let mut first_lng = true;
        for lng in &lngs {
            let mut parts = Vec::new();
            for ns in &namespaces {
                match self
                    .state
                    .bundles
                    .get(&version, Layout::I18next, ns, lng)
                    .await
                {
                    Ok(bundle) => parts.push((ns, bundle)),
                    Err(
                        BundleError::UnknownLocale { .. } | BundleError::UnknownNamespace { .. },
                    ) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            if parts.is_empty() {
                continue;
            }
            if !first_lng {
                body.push(b',');
            }
            first_lng = false;
            body.extend_from_slice(json!(lng).to_string().as_bytes());
            body.extend_from_slice(b":{");
            for (i, (ns, bundle)) in parts.iter().enumerate() {
                if i > 0 {
                    body.push(b',');
                }
                body.extend_from_slice(json!(ns).to_string().as_bytes());
                body.push(b':');
                body.extend_from_slice(&bundle.rendition.identity);
            }
            body.push(b'}');
        }
        body.push(b'}');
        let bundle = Arc::new(bundles::named(body));
        self.multi.keep(key, &bundle);
        serve(bundle, &caller.headers, &cache, false).await
    }

    /// `GET /tolgee/{channel}/manifest.json`: `{"locales": [...]}`.
    async fn manifest(&self, channel: &str, caller: &Caller) -> Result<Response, ApiError> {
        let settings = self.state.config.settings();
        let private = admit(&self.state.keys, caller, &settings, channel, false)?;
        let version = self.state.channels.version_of(channel)?;
        let held = self.manifests.get(&version);
        let bundle = match held {
            Some(bundle) => bundle,
            None => {
                let translations = self.state.translations.clone();
                let wanted = version.clone();
                let live = tokio::task::spawn_blocking(move || translations.kept(&wanted))
                    .await
                    .map_err(|e| ApiError::Internal(e.to_string()))??
                    .ok_or_else(|| BundleError::NotKept(version.clone()))?;
                let locales: Vec<String> = live
                    .stored
                    .document
                    .locales
                    .iter()
                    .map(|c| public_name(self.state.bundles.names(), Layout::Tolgee.name(), c))
                    .collect();
                let body = json!({ "locales": locales }).to_string().into_bytes();
                let bundle = Arc::new(bundles::named(body));
                self.manifests.keep(version, &bundle);
                bundle
            }
        };
        let cache = cache_control(&settings, private);
        serve(bundle, &caller.headers, &cache, false).await
    }

    /// `GET /locize/languages/{projectId}`: every locale with its names, whether it is the
    /// reference language (the base locale: the first English one, else the first), and
    /// its share of the reference language's keys in each channel, which
    /// i18next-locize-backend compares with its `translatedPercentageThreshold`.
    async fn languages(&self, project: &str, headers: &HeaderMap) -> Result<Response, ApiError> {
        let settings = self.state.config.settings();
        check_project(&settings, project)?;
        let current = self.state.translations.serving()?;
        let book = self.state.channels.book();
        let key = format!("{}|{}", current.stored.version, book.rev);
        let held = (self
            .languages
            .lock()
            .unwrap_or_else(PoisonError::into_inner))
        .as_ref()
        .filter(|(k, _)| *k == key)
        .map(|(_, b)| b.clone());
        let bundle = match held {
            Some(bundle) => bundle,
            None => {
                let history = self.state.translations.versions().await?;
                let counts_of = |version: &str| -> Option<Vec<(String, usize)>> {
                    if version == current.stored.version {
                        return Some(current.key_counts.clone());
                    }
                    (history.versions.iter())
                        .find(|v| v.version == version)
                        .map(|v| v.key_counts.0.clone())
                };
                let doc = &current.stored.document;
                let reference = base_locale(doc).map(|i| doc.locales[i].clone());
                let mut channels = vec![(DRAFT.to_owned(), current.stored.version.clone())];
                for (name, channel) in &book.channels {
                    if let Some(version) = channel.version() {
                        channels.push((name.clone(), version.to_owned()));
                    }
                }
                let counted: Vec<(String, Vec<(String, usize)>)> = (channels.into_iter())
                    .filter_map(|(name, version)| Some((name, counts_of(&version)?)))
                    .collect();
                let mut locales: Vec<String> = doc.locales.clone();
                for (_, counts) in &counted {
                    for (code, _) in counts {
                        if !locales.iter().any(|l| same_locale(l, code)) {
                            locales.push(code.clone());
                        }
                    }
                }
                // in the sheet's order (a map's order depends on serde_json's features)
                let mut body = Vec::from(&b"{"[..]);
                for code in &locales {
                    let tag = public_name(self.state.bundles.names(), Layout::I18next.name(), code);
                    let (name, native) = crate::translations::language_names::names(&tag);
                    let translated: Map<String, Value> = (counted.iter())
                        .map(|(channel, counts)| {
                            (
                                channel.clone(),
                                json!(share(counts, code, reference.as_deref())),
                            )
                        })
                        .collect();
                    let is_reference = reference.as_deref().is_some_and(|r| same_locale(r, code));
                    if body.len() > 1 {
                        body.push(b',');
                    }
                    body.extend_from_slice(json!(tag).to_string().as_bytes());
                    body.push(b':');
                    let language = json!({
                        "name": name,
                        "nativeName": native,
                        "isReferenceLanguage": is_reference,
                        "translated": translated,
                    });
                    body.extend_from_slice(language.to_string().as_bytes());
                }
                body.push(b'}');
                let bundle = Arc::new(bundles::named(body));
                *self
                    .languages
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Some((key, bundle.clone()));
                bundle
            }
        };
        serve(bundle, headers, &cache_control(&settings, false), false).await
    }

    /// `GET /bundles/{hash}.json`: a bundle this node rendered, or one of the versions the
    /// channels serve (rendered now, once, when another node served it first).
    async fn by_hash(&self, file: &str, headers: &HeaderMap) -> Result<Response, ApiError> {
        let unknown = || {
            ApiError::NotFound(format!(
                "no bundle of a version served is named '{}' (a bundle's name is the \
                 SHA-256 of its bytes, as the Content-Location of a channel URL gives it)",
                file.chars().take(80).collect::<String>()
            ))
            .with_code(ErrorCode::UnknownBundle)
        };
        let hash = file.strip_suffix(".json").unwrap_or(file);
        if !crate::translations::versions::is_version_id(hash) {
            return Err(unknown());
        }
        let bundles = &self.state.bundles;
        let mut found = bundles.by_hash(hash).await?;
        if found.is_none() {
            let mut versions: Vec<String> = self
                .state
                .translations
                .current()
                .map(|l| l.stored.version.clone())
                .into_iter()
                .collect();
            let book = self.state.channels.book();
            versions.extend(
                book.channels
                    .values()
                    .filter_map(|c| c.version().map(str::to_owned)),
            );
            versions.dedup();
            bundles.warm(versions).await?;
            found = bundles.by_hash(hash).await?;
        }
        let bundle = found.ok_or_else(unknown)?;
        serve(bundle, headers, IMMUTABLE, false).await
    }
}

fn check_project(settings: &Settings, project: &str) -> Result<(), ApiError> {
    match project == settings.delivery.project_id {
        true => Ok(()),
        false => Err(ApiError::NotFound(format!(
            "no project '{}' here: the locize layout's projectId is delivery.project_id",
            project.chars().take(80).collect::<String>()
        ))
        .with_code(ErrorCode::UnknownProject)),
    }
}

/// The share of `reference`'s keys `code` has in `counts`, 0 to 1, rounded down to four
/// places (so that 0.89996 never passes a 0.9 threshold).
fn share(counts: &[(String, usize)], code: &str, reference: Option<&str>) -> f64 {
    let count = |wanted: &str| {
        (counts.iter())
            .find(|(c, _)| same_locale(c, wanted))
            .map_or(0, |(_, n)| *n)
    };
    let of = match reference {
        Some(r) => count(r),
        None => counts.iter().map(|(_, n)| *n).max().unwrap_or(0),
    };
    if of == 0 {
        return 0.0;
    }
    let share = (count(code) as f64 / of as f64).min(1.0);
    (share * 10_000.0).floor() / 10_000.0
}

/// Every SDK route.
pub fn routes(state: Arc<AppState>) -> warp::filters::BoxedFilter<(Response,)> {
    use crate::http::error::respond;
    use crate::http::routes::{self as table, on};
    use warp::Filter;

    let sdk = Arc::new(Sdk {
        state,
        manifests: Made::new(MANIFESTS_KEPT, usize::MAX),
        multi: Made::new(MULTI_KEPT, MULTI_BUDGET_BYTES),
        languages: Mutex::new(None),
    });
    let with = move || {
        let sdk = sdk.clone();
        warp::any().map(move || sdk.clone())
    };
    let route = |r: &'static table::Route| on(r).and(with()).and(crate::http::auth::caller());
    let i18next = route(&table::I18NEXT_BUNDLE).then(
        |p: PathParams, sdk: Arc<Sdk>, caller: Caller| async move {
            respond(
                async {
                    let channel = segment(&p, 0, "channel")?;
                    let lng = segment(&p, 1, "language")?;
                    let ns = json_file(&segment(&p, 2, "namespace")?, "namespace")?;
                    sdk.bundle(&channel, Layout::I18next, &ns, &lng, &caller, false)
                        .await
                }
                .await,
            )
        },
    );
    let multi =
        route(&table::I18NEXT_MULTI)
            .and(crate::http::query::params())
            .then(
                |p: PathParams,
                 sdk: Arc<Sdk>,
                 caller: Caller,
                 params: Vec<(String, String)>| async move {
                    respond(
                        async {
                            let channel = segment(&p, 0, "channel")?;
                            sdk.multi(&channel, &params, &caller).await
                        }
                        .await,
                    )
                },
            );
    let languages = route(&table::LOCIZE_LANGUAGES).then(
        |p: PathParams, sdk: Arc<Sdk>, caller: Caller| async move {
            respond(
                async {
                    let project = segment(&p, 0, "projectId")?;
                    sdk.languages(&project, &caller.headers).await
                }
                .await,
            )
        },
    );
    let locize = |r: &'static table::Route, private: bool| {
        route(r).then(
            move |p: PathParams, sdk: Arc<Sdk>, caller: Caller| async move {
                respond(
                    async {
                        let project = segment(&p, 0, "projectId")?;
                        let channel = segment(&p, 1, "channel")?;
                        let lng = segment(&p, 2, "language")?;
                        let ns = segment(&p, 3, "namespace")?;
                        check_project(&sdk.state.config.settings(), &project)?;
                        sdk.bundle(&channel, Layout::I18next, &ns, &lng, &caller, private)
                            .await
                    }
                    .await,
                )
            },
        )
    };
    let manifest = route(&table::TOLGEE_MANIFEST).then(
        |p: PathParams, sdk: Arc<Sdk>, caller: Caller| async move {
            respond(
                async {
                    let channel = segment(&p, 0, "channel")?;
                    sdk.manifest(&channel, &caller).await
                }
                .await,
            )
        },
    );
    let tolgee_default = route(&table::TOLGEE_DEFAULT).then(
        |p: PathParams, sdk: Arc<Sdk>, caller: Caller| async move {
            respond(
                async {
                    let channel = segment(&p, 0, "channel")?;
                    let lang = json_file(&segment(&p, 1, "language")?, "language")?;
                    sdk.bundle(
                        &channel,
                        Layout::Tolgee,
                        DEFAULT_NAMESPACE,
                        &lang,
                        &caller,
                        false,
                    )
                    .await
                }
                .await,
            )
        },
    );
    let tolgee_namespace = route(&table::TOLGEE_NAMESPACE).then(
        |p: PathParams, sdk: Arc<Sdk>, caller: Caller| async move {
            respond(
                async {
                    let channel = segment(&p, 0, "channel")?;
                    let ns = segment(&p, 1, "namespace")?;
                    let lang = json_file(&segment(&p, 2, "language")?, "language")?;
                    sdk.bundle(&channel, Layout::Tolgee, &ns, &lang, &caller, false)
                        .await
                }
                .await,
            )
        },
    );
    let by_hash =
        route(&table::BUNDLE).then(|p: PathParams, sdk: Arc<Sdk>, caller: Caller| async move {
            respond(
                async {
                    let file = segment(&p, 0, "bundle")?;
                    sdk.by_hash(&file, &caller.headers).await
                }
                .await,
            )
        });
    i18next
        .or(multi)
        .unify()
        .or(languages)
        .unify()
        .or(locize(&table::LOCIZE_PRIVATE, true))
        .unify()
        .or(locize(&table::LOCIZE_BUNDLE, false))
        .unify()
        .or(manifest)
        .unify()
        .or(tolgee_default)
        .unify()
        .or(tolgee_namespace)
        .unify()
        .or(by_hash)
        .unify()
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_of_the_reference_locale_and_never_round_up() {
        let counts = vec![
            ("en".to_owned(), 100_000),
            ("de".to_owned(), 89_999),
            ("pt_BR".to_owned(), 100_000),
            ("fr".to_owned(), 0),
        ];
        assert_eq!(share(&counts, "de", Some("en")), 0.8999);
        assert_eq!(share(&counts, "pt-BR", Some("en")), 1.0);
        assert_eq!(share(&counts, "fr", Some("en")), 0.0);
        assert_eq!(share(&counts, "xx", Some("en")), 0.0);
        assert_eq!(share(&[], "en", None), 0.0);
    }
}
