//! The translations routes. `GET /translations`: parse the query, answer 304 when the
//! client has this version, else serve the cached rendition (rendering it on first demand)
//! in the best encoding, with a `Depot-Warnings` header naming what the body left out.
//! Delivery (SPEC §8): `POST /translations/sync`, `GET /translations/versions` (and one
//! version's changed keys, `/translations/versions/{version}`), and the event stream of
//! `http/translation_events.rs`.

use crate::compression::{self, Encoding};
use crate::http::ApiError;
use crate::http::state::AppState;
use crate::translations::query::TranslationQuery;
use crate::translations::service::{Rendition, TranslationService};
use crate::translations::store::PutOutcome;
use std::sync::Arc;
use warp::Reply;
use warp::http::{HeaderMap, HeaderValue, StatusCode, header};
use warp::reply::Response;

/// Clients revalidate every time (content changes whenever the sheet does); a matching
/// `If-None-Match` costs one hash and no body.
const CACHE_CONTROL: &str = "no-cache";
/// A version asked for by its id (or a prefix that names it) never changes.
const CACHE_CONTROL_IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Names what a body left out (keys whose names collide in a flat format), so a response
/// never drops a text without a word. The value is a list of quoted strings (RFC 8941
/// style): printable ASCII as is; `%`, `"`, `\`, controls and every byte of non-ASCII
/// UTF-8 percent-encoded, so that the value is valid ASCII and decodes exactly.
pub const WARNINGS_HEADER: &str = "depot-warnings";
/// The longest `Depot-Warnings` value: past it, `"and N more"` ends the list (every
/// warning of the version is in `/health`). Proxies commonly allow 4 to 8 KiB per header.
pub const WARNINGS_HEADER_MAX: usize = 2048;
/// Room kept for the `, "and N more"` item.
const MORE_RESERVE: usize = 32;
/// The longest single item, cut with `...` past it.
const ITEM_MAX: usize = WARNINGS_HEADER_MAX - MORE_RESERVE - 8;

pub async fn get_translations(
    service: Arc<TranslationService>,
    params: Vec<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let query = TranslationQuery::from_params(&params)?;
    let cache_control = match query.version {
        Some(_) => CACHE_CONTROL_IMMUTABLE,
        None => CACHE_CONTROL,
    };
    let live = match &query.version {
        None => service.serving()?,
        Some(version) => service.kept_named(version).await?,
    };
    let etag = service.etag(&live.stored.version, &query);
    if client_has(&headers, &etag) {
        return Ok(not_modified(&etag, cache_control));
    }
    let wanted = compression::negotiate(
        headers
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok()),
    );
    let rendition = service.rendition(live, query, wanted).await?;
    Ok(respond(&rendition, wanted, cache_control))
}

/// `POST /translations/sync` (admin key): a sync now, or the result of the one under way.
pub async fn sync(
    state: Arc<AppState>,
    caller: crate::http::auth::Caller,
) -> Result<Response, ApiError> {
    let settings = state.config.settings();
    state
        .keys
        .require_admin(&caller, &settings.auth, &settings.limits)?;
    let report = state.producer.sync_now().await?;
    let body = serde_json::json!({
        "version": report.version,
        "changed": report.outcome == PutOutcome::Stored,
        "updatedAt": report.updated_at.map(crate::time::iso_millis),
        "warnings": report.warnings,
    });
    Ok(warp::reply::json(&body).into_response())
}

/// `GET /translations/versions`: the kept versions, newest first.
pub async fn versions(service: Arc<TranslationService>) -> Result<Response, ApiError> {
    let history = service.versions().await?;
    let body = serde_json::json!({ "versions": history.versions });
    Ok(warp::reply::json(&body).into_response())
}

/// `GET /translations/versions/{version}`: a kept version (its id or a unique prefix) with
/// the keys it added, removed and changed in each locale.
pub async fn version(service: Arc<TranslationService>, raw: String) -> Result<Response, ApiError> {
    let asked = crate::percent::decode(&raw).ok_or_else(|| {
        ApiError::BadRequest("the version in the path is not valid percent-encoded UTF-8".into())
    })?;
    let changes = service.changes(&asked).await?;
    Ok(warp::reply::json(&changes).into_response())
}

/// `If-None-Match` holds our ETag (or `*`), weak or strong.
fn client_has(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == etag || tag == "*")
}

fn not_modified(etag: &str, cache_control: &'static str) -> Response {
    let mut response = Response::new(Default::default());
    *response.status_mut() = StatusCode::NOT_MODIFIED;
    set_validators(response.headers_mut(), etag, cache_control);
    response
}

fn respond(rendition: &Rendition, wanted: Encoding, cache_control: &'static str) -> Response {
    let (body, used) = rendition.body(wanted);
    let mut response = Response::new(body.into());
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(rendition.content_type),
    );
    if let Some(name) = used.header() {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(name));
    }
    set_validators(headers, &rendition.etag, cache_control);
    if let Some(value) = warnings_header(&rendition.warnings) {
        headers.insert(WARNINGS_HEADER, value);
    }
    response
}

/// The `Depot-Warnings` value for `warnings`; `None` when there are none.
fn warnings_header(warnings: &[String]) -> Option<HeaderValue> {
    let mut value = String::new();
    for (i, warning) in warnings.iter().enumerate() {
        let item = percent_encode_text(warning, ITEM_MAX);
        let reserve = if i + 1 < warnings.len() {
            MORE_RESERVE
        } else {
            0
        };
        if !value.is_empty() && value.len() + item.len() + 4 + reserve > WARNINGS_HEADER_MAX {
            value.push_str(&format!(", \"and {} more\"", warnings.len() - i));
            break;
        }
        if !value.is_empty() {
            value.push_str(", ");
        }
        value.push('"');
        value.push_str(&item);
        value.push('"');
    }
    HeaderValue::from_str(&value)
        .ok()
        .filter(|_| !value.is_empty())
}

/// `text` encoded for the header, cut after whole characters with `...` when it would
/// pass `max` bytes (so that the item still decodes to UTF-8).
fn percent_encode_text(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max));
    let mut buf = [0u8; 4];
    for c in text.chars() {
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        let plain = c.is_ascii() && !c.is_ascii_control() && !matches!(c, '%' | '"' | '\\');
        let width = if plain { 1 } else { 3 * bytes.len() };
        if out.len() + width > max {
            out.push_str("...");
            break;
        }
        if plain {
            out.push(c);
            continue;
        }
        crate::percent::encode_into(&mut out, bytes, |_| false);
    }
    out
}

fn set_validators(headers: &mut HeaderMap, etag: &str, cache_control: &'static str) {
    if let Ok(value) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, value);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(cache_control),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
}

/// `GET /translations`, `POST /translations/sync`, `GET /translations/events`,
/// `GET /translations/versions`.
pub fn routes(state: Arc<AppState>) -> warp::filters::BoxedFilter<(Response,)> {
    use crate::http::error::respond;
    use crate::http::filters::with_state;
    use crate::http::query;
    use crate::http::routes::{self as table, on};
    use warp::Filter;

    let translations = on(&table::TRANSLATIONS)
        .and(with_state(state.clone()))
        .and(query::params())
        .and(warp::header::headers_cloned())
        .then(|_, state: Arc<AppState>, params, headers| async move {
            respond(get_translations(state.translations.clone(), params, headers).await)
        });
    let sync = on(&table::TRANSLATIONS_SYNC)
        .and(with_state(state.clone()))
        .and(crate::http::auth::caller())
        .then(|_, state: Arc<AppState>, caller| async move { respond(sync(state, caller).await) });
    let slots = Arc::new(crate::http::translation_events::Slots::default());
    let events = on(&table::TRANSLATIONS_EVENTS)
        .and(with_state(state.clone()))
        .and(warp::header::optional::<String>("last-event-id"))
        .and(crate::http::client::client())
        .map(
            move |_,
                  state: Arc<AppState>,
                  last: Option<String>,
                  client: crate::http::client::ClientAddr| {
                let settings = state.config.settings();
                let limits = &settings.limits;
                match slots.open(client.key(), limits.events_per_client, limits.events_total) {
                    Ok(slot) => crate::http::translation_events::stream(
                        &state.translations,
                        last,
                        std::time::Duration::from_secs(settings.translations.events_heartbeat_secs),
                        slot,
                    ),
                    Err(refused) => ApiError::from(refused).into_response(),
                }
            },
        );
    let versions = on(&table::TRANSLATIONS_VERSIONS)
        .and(with_state(state.clone()))
        .then(|_, state: Arc<AppState>| async move {
            respond(versions(state.translations.clone()).await)
        });
    let one_version = on(&table::TRANSLATIONS_VERSION)
        .and(with_state(state))
        .then(
            |params: table::PathParams, state: Arc<AppState>| async move {
                let raw = params.0.into_iter().next().unwrap_or_default();
                respond(version(state.translations.clone(), raw).await)
            },
        );
    translations
        .or(sync)
        .unify()
        .or(events)
        .unify()
        .or(versions)
        .unify()
        .or(one_version)
        .unify()
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(warnings: &[&str]) -> Option<String> {
        let warnings: Vec<String> = warnings.iter().map(|w| (*w).to_owned()).collect();
        warnings_header(&warnings).map(|v| v.to_str().unwrap().to_owned())
    }

    #[test]
    fn no_warnings_no_header() {
        assert_eq!(header(&[]), None);
    }

    #[test]
    fn warnings_are_quoted_and_percent_encoded_to_ascii() {
        assert_eq!(
            header(&[
                "keys 'X.A_B' and 'X_A.B' both become the name 'x_a_b'",
                "Zażółć \"100%\" \\ \n"
            ])
            .unwrap(),
            "\"keys 'X.A_B' and 'X_A.B' both become the name 'x_a_b'\", \
             \"Za%C5%BC%C3%B3%C5%82%C4%87 %22100%25%22 %5C %0A\""
        );
    }

    #[test]
    fn a_long_list_is_cut_with_the_count_of_the_rest() {
        let many: Vec<String> = (0..500).map(|i| format!("warning number {i}")).collect();
        let value = warnings_header(&many).unwrap();
        let value = value.to_str().unwrap();
        assert!(value.len() <= WARNINGS_HEADER_MAX, "{}", value.len());
        let shown = value.matches("\"warning number").count();
        assert!(shown > 50, "{shown}");
        assert!(
            value.ends_with(&format!(", \"and {} more\"", 500 - shown)),
            "{value}"
        );
        let huge = "é".repeat(5000);
        let value = warnings_header(&[huge.clone(), huge]).unwrap();
        let value = value.to_str().unwrap();
        assert!(value.len() <= WARNINGS_HEADER_MAX);
        assert!(value.ends_with("%A9...\", \"and 1 more\""), "{value}");
    }
}
