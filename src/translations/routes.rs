//! `GET /translations`: parse the query, answer 304 when the client has this version,
//! else serve the cached rendition (rendering it on first demand) in the best encoding.

use super::query::TranslationQuery;
use super::service::{Rendition, TranslationService};
use crate::http::ApiError;
use crate::http::encoding::{self, Encoding};
use std::sync::Arc;
use warp::http::{HeaderMap, HeaderValue, StatusCode, header};
use warp::reply::Response;

/// Clients revalidate every time (content changes whenever the sheet does); a matching
/// `If-None-Match` costs one hash and no body.
const CACHE_CONTROL: &str = "no-cache";

pub async fn get_translations(
    service: Arc<TranslationService>,
    params: Vec<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let query = TranslationQuery::from_params(&params)?;
    let live = service.serving()?;
    let etag = TranslationService::etag(&live.stored.version, &query);
    if client_has(&headers, &etag) {
        return Ok(not_modified(&etag));
    }
    let wanted = encoding::negotiate(
        headers
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok()),
    );
    let rendition = service.rendition(live, query, wanted).await?;
    Ok(respond(&rendition, wanted))
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

fn not_modified(etag: &str) -> Response {
    let mut response = Response::new(Default::default());
    *response.status_mut() = StatusCode::NOT_MODIFIED;
    set_validators(response.headers_mut(), etag);
    response
}

fn respond(rendition: &Rendition, wanted: Encoding) -> Response {
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
    set_validators(headers, &rendition.etag);
    response
}

fn set_validators(headers: &mut HeaderMap, etag: &str) {
    if let Ok(value) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, value);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
}
