//! `GET`/`HEAD /objects/{bucket}/{key}`: the embedded object store over HTTP. A request
//! must carry a valid SigV4 query signature made with the embedded credentials; it may ask
//! for one byte range and, in signed `response-*` parameters, for other response headers.
//! Only types a browser shows by itself are served inline; every other object is an
//! attachment (SPEC §10). Errors are S3-style XML, so S3 tools understand them.

use crate::files::FilesDb;
use crate::http::routes::PathParams;
use crate::http::s3_error::S3Error;
use crate::objects::{OpenedObject, SignedRead, SignedStore};
use crate::percent;
use bytes::{Bytes, BytesMut};
use tokio::io::AsyncReadExt;
use warp::http::header::HeaderName;
use warp::http::{HeaderMap, HeaderValue, StatusCode, header};
use warp::reply::Response;

/// The query parameters that set a response header, as S3 has them (`GetObject`).
const RESPONSE_OVERRIDES: [(&str, HeaderName); 6] = [
    ("response-cache-control", header::CACHE_CONTROL),
    ("response-content-disposition", header::CONTENT_DISPOSITION),
    ("response-content-encoding", header::CONTENT_ENCODING),
    ("response-content-language", header::CONTENT_LANGUAGE),
    ("response-content-type", header::CONTENT_TYPE),
    ("response-expires", header::EXPIRES),
];

/// Size of the chunks a body is streamed in.
const CHUNK: usize = 64 * 1024;

/// One object request as received.
pub struct ObjectRequest {
    pub head: bool,
    pub params: PathParams,
    /// The raw (still percent-encoded) path, as signed.
    pub path: String,
    /// The raw query string, without `?`.
    pub query: String,
    pub headers: HeaderMap,
}

/// The answer to one object request: the object (or its range), or S3's error.
pub async fn answer(objects: &SignedStore, files: &FilesDb, request: ObjectRequest) -> Response {
    let head = request.head;
    let resource = request.path.clone();
    match try_answer(objects, files, request).await {
        Ok(response) => response,
        Err(error) => error.at(&resource).into_response(head),
    }
}

async fn try_answer(
    objects: &SignedStore,
    files: &FilesDb,
    request: ObjectRequest,
) -> Result<Response, S3Error> {
    let decode = |raw: &str| {
        percent::decode(raw).ok_or_else(|| {
            S3Error::new(
                StatusCode::BAD_REQUEST,
                "InvalidURI",
                "Couldn't parse the specified URI.",
            )
        })
    };
    let (bucket, key) = match request.params.0.as_slice() {
        [bucket, key] => (decode(bucket)?, decode(key)?),
        _ => {
            return Err(S3Error::new(
                StatusCode::BAD_REQUEST,
                "InvalidURI",
                "expected /objects/{bucket}/{key}",
            ));
        }
    };
    // A path that tries to leave the store is refused before anything else.
    crate::objects::validate_bucket(&bucket)?;
    crate::objects::validate_key(&key)?;
    let host = request
        .headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let signed = SignedRead {
        head: request.head,
        host,
        path: &request.path,
        query: &request.query,
    };
    objects.verify(&signed, chrono::Utc::now())?;
    // Signed with the rest of the query, so only the URL's maker chose them.
    let overrides = response_overrides(&request.query)?;
    let file_type = recorded_file_type(files, &bucket, &key).await;
    let range_header = request
        .headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let OpenedObject {
        file,
        length,
        range,
        meta,
        content_type,
    } = objects.open(bucket, key, range_header, file_type).await?;

    let mut response = if request.head {
        Response::new(Default::default())
    } else {
        warp::reply::Reply::into_response(warp::reply::stream(stream_file(file, length)))
    };
    *response.status_mut() = if range.is_some() {
        StatusCode::PARTIAL_CONTENT
    } else {
        StatusCode::OK
    };
    let headers = response.headers_mut();
    let mut set = |name, value: String| {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(name, v);
        }
    };
    set(header::CONTENT_TYPE, content_type);
    set(header::CONTENT_LENGTH, length.to_string());
    set(header::ETAG, meta.etag.clone());
    set(header::LAST_MODIFIED, meta.last_modified_http());
    set(header::ACCEPT_RANGES, "bytes".to_owned());
    if let Some(range) = range {
        set(header::CONTENT_RANGE, range.content_range(meta.len));
    }
    for (name, value) in overrides {
        headers.insert(name, value);
    }
    download_unless_shown_inline(headers);
    Ok(response)
}

/// Makes an object whose `Content-Type` (the record's, or a signed override) is not one a
/// browser shows by itself (`objects::display`: raster images, audio, video, plain text) an
/// attachment, so that a browser saves it instead of rendering it as a page of depot's
/// origin; a type that is not exactly one well-formed media type goes out as
/// `application/octet-stream`, never as written. An `attachment` disposition already there
/// (a download URL's, with its file name) is kept.
fn download_unless_shown_inline(headers: &mut HeaderMap) {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if crate::objects::display(content_type) != crate::objects::Display::Download {
        return;
    }
    if crate::objects::parse_media_type(content_type).is_none() {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/octet-stream"),
        );
    }
    let attachment = headers
        .get(header::CONTENT_DISPOSITION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(is_attachment);
    if !attachment {
        headers.insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment"),
        );
    }
}

/// Whether a `Content-Disposition` value is of the type `attachment` (RFC 6266: the type is
/// case-insensitive, parameters follow a `;`).
fn is_attachment(disposition: &str) -> bool {
    let disposition = disposition.trim_start();
    disposition
        .get(..10)
        .is_some_and(|kind| kind.eq_ignore_ascii_case("attachment"))
        && disposition[10..]
            .trim_start_matches([' ', '\t'])
            .chars()
            .next()
            .is_none_or(|c| c == ';')
}

/// The `fileType` the catalogue holds for this object, if it has a record of it.
async fn recorded_file_type(files: &FilesDb, bucket: &str, key: &str) -> Option<String> {
    let record = files.get_by_key(key.to_owned()).await.ok()??;
    (record.bucket == bucket).then_some(record.file_type)
}

/// The `response-*` parameters of a raw query, as the headers they set. A value that is
/// not a valid header value, or a parameter given twice, is refused.
fn response_overrides(query: &str) -> Result<Vec<(HeaderName, HeaderValue)>, S3Error> {
    let mut found: Vec<(HeaderName, HeaderValue)> = Vec::new();
    for piece in query.split('&') {
        let (raw_name, raw_value) = piece.split_once('=').unwrap_or((piece, ""));
        let Some((param, header)) = percent::decode(raw_name).and_then(|name| {
            RESPONSE_OVERRIDES
                .iter()
                .find(|(param, _)| *param == name)
                .cloned()
        }) else {
            continue;
        };
        if found.iter().any(|(h, _)| *h == header) {
            return Err(S3Error::invalid_argument(format!(
                "{param} must appear once"
            )));
        }
        let value = percent::decode(raw_value)
            .and_then(|v| HeaderValue::from_bytes(v.as_bytes()).ok())
            .ok_or_else(|| {
                S3Error::invalid_argument(format!(
                    "{param} must be a header value: UTF-8 text without control characters"
                ))
            })?;
        found.push((header, value));
    }
    Ok(found)
}

/// Streams `length` bytes of `file` from its current position, in chunks.
fn stream_file(
    file: std::fs::File,
    length: u64,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send + Sync + 'static {
    let reader = tokio::fs::File::from_std(file).take(length);
    futures_util::stream::unfold(Some(reader), |state| async move {
        let mut reader = state?;
        let mut buf = BytesMut::with_capacity(CHUNK);
        match reader.read_buf(&mut buf).await {
            Ok(0) => None,
            Ok(_) => Some((Ok(buf.freeze()), Some(reader))),
            // End the stream after an error instead of retrying forever.
            Err(e) => Some((Err(e), None)),
        }
    })
}

/// `GET` and `HEAD /objects/{bucket}/{key}`.
pub fn routes(
    state: std::sync::Arc<crate::http::state::AppState>,
) -> warp::filters::BoxedFilter<(Response,)> {
    use crate::http::ApiError;
    use crate::http::filters::with_state;
    use crate::http::query;
    use crate::http::routes::{self as table, on};
    use crate::http::state::AppState;
    use std::sync::Arc;
    use warp::Filter;
    use warp::path::FullPath;

    // HEAD first: `on(GET route)` answers HEAD too, and a HEAD must reach the handler
    // as one (it also accepts a URL signed for GET).
    on(&table::OBJECT_HEAD)
        .map(|p| (p, true))
        .or(on(&table::OBJECT_GET).map(|p| (p, false)))
        .unify()
        .untuple_one()
        .and(warp::path::full())
        .and(query::raw())
        .and(warp::header::headers_cloned())
        .and(with_state(state))
        .then(
            |params, head, path: FullPath, query, headers, state: Arc<AppState>| async move {
                let Some(objects) = state.objects.clone() else {
                    return ApiError::NotFound(
                        "the embedded object store is off (objects.enabled = false)".into(),
                    )
                    .into_response();
                };
                let request = ObjectRequest {
                    head,
                    params,
                    path: path.as_str().to_owned(),
                    query,
                    headers,
                };
                answer(&objects, &state.files, request).await
            },
        )
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `Content-Type` and `Content-Disposition` an object goes out with.
    fn sent(content_type: &str, disposition: Option<&str>) -> (String, Option<String>) {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(content_type).unwrap(),
        );
        if let Some(d) = disposition {
            headers.insert(
                header::CONTENT_DISPOSITION,
                HeaderValue::from_str(d).unwrap(),
            );
        }
        download_unless_shown_inline(&mut headers);
        let text = |name| {
            headers
                .get(name)
                .map(|v: &HeaderValue| v.to_str().unwrap().to_owned())
        };
        (
            text(header::CONTENT_TYPE).unwrap(),
            text(header::CONTENT_DISPOSITION),
        )
    }

    #[test]
    fn what_is_not_shown_inline_is_an_attachment_and_a_malformed_type_is_not_sent() {
        let inline = |t: &str| (t.to_owned(), None);
        let attachment = |t: &str| (t.to_owned(), Some("attachment".to_owned()));
        assert_eq!(sent("image/png", None), inline("image/png"));
        assert_eq!(sent("audio/wav", None), inline("audio/wav"));
        assert_eq!(
            sent("text/plain; charset=utf-8", None),
            inline("text/plain; charset=utf-8")
        );
        assert_eq!(sent("text/html", None), attachment("text/html"));
        assert_eq!(
            sent("image/svg+xml", Some("inline")),
            attachment("image/svg+xml")
        );
        assert_eq!(sent("application/pdf", None), attachment("application/pdf"));
        for malformed in [
            "video/mp4; a=b, text/html",
            "image/svg+xml;foo",
            "text/html, video/mp4",
        ] {
            assert_eq!(
                sent(malformed, None),
                attachment("application/octet-stream"),
                "{malformed}"
            );
        }
        // A download URL's disposition keeps its file name; an inline type may be downloaded.
        let named = "attachment; filename=\"a.html\"";
        assert_eq!(
            sent("text/html", Some(named)),
            ("text/html".into(), Some(named.into()))
        );
        assert_eq!(
            sent("image/png", Some(named)),
            ("image/png".into(), Some(named.into()))
        );
        assert_eq!(
            sent("text/html", Some("attachmentx")),
            attachment("text/html")
        );
        assert!(is_attachment(" ATTACHMENT ;filename=x") && is_attachment("attachment"));
        assert!(!is_attachment("inline; filename=attachment") && !is_attachment("attach"));
    }
}
