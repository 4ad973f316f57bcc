//! The embedded object store's writes, as S3 has them: `PUT /objects/{bucket}/{key}`
//! (PutObject, or UploadPart with `uploadId` and `partNumber`), `POST` (CreateMultipartUpload
//! with `?uploads`, CompleteMultipartUpload with `?uploadId`) and `DELETE` with `?uploadId`
//! (AbortMultipartUpload). A request is signed with the store's credentials, in the query
//! (a presigned URL from `POST /files/uploads`) or in the `Authorization` header (an S3
//! client such as botocore); the body is spooled to disk as it arrives and held to
//! everything the request claims of it (`Content-Length`, the signed payload hash,
//! `Content-MD5`, `x-amz-checksum-*`). A write signed in its URL is taken only for an upload
//! still under way (`files::uploads::admits`): upload URLs are single-use. `If-None-Match:
//! *` is honoured as S3 does. Errors are S3's XML, so S3 clients understand them.

use std::sync::Arc;

use bytes::Buf;
use futures_util::{Stream, TryStreamExt};
use warp::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use warp::path::FullPath;
use warp::reply::Response;

use super::s3_error::S3Error;
use super::state::AppState;
use crate::files::FilesDb;
use crate::http::ApiError;
use crate::http::routes::PathParams;
use crate::objects::checksums::{ChecksumError, Claims, base64};
use crate::objects::multipart::{MAX_PUT_SIZE, MultipartError};
use crate::objects::{ObjectStore, Spool, Spooled};
use crate::percent;
use crate::signing::{IncomingRequest, Payload, Verifier};

/// Largest body of a POST (a CompleteMultipartUpload of 10,000 parts is about 1 MB).
const POST_BODY_LIMIT: u64 = 2 * 1024 * 1024;

/// A request body as it arrives.
type Body = std::pin::Pin<Box<dyn Stream<Item = Result<bytes::Bytes, String>> + Send>>;

/// One write request as received.
struct WriteRequest {
    method: Method,
    bucket: String,
    key: String,
    /// Raw path and query, as signed.
    path: String,
    query: String,
    /// Decoded query parameters.
    params: Vec<(String, String)>,
    headers: Vec<(String, String)>,
}

impl WriteRequest {
    fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn header_pairs(&self) -> Vec<(&str, &str)> {
        self.headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect()
    }
}

/// What a write needs of the daemon: the store, its verifier, and the uploads under way.
struct Writes<'a> {
    store: &'a Arc<ObjectStore>,
    verifier: &'a Verifier,
    files: &'a FilesDb,
}

/// How a write was signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Signature {
    /// In the `Authorization` header: an S3 client holding the store's credentials.
    Header,
    /// In the URL: whoever was handed it, so only while its upload is under way.
    Url,
}

impl Writes<'_> {
    async fn answer<B>(&self, request: WriteRequest, body: B) -> Result<Response, S3Error>
    where
        B: Stream<Item = Result<bytes::Bytes, String>> + Send + Unpin,
    {
        crate::objects::validate_bucket(&request.bucket)?;
        crate::objects::validate_key(&request.key)?;
        let headers = request.header_pairs();
        let payload = self.verifier.verify_request(
            &IncomingRequest {
                method: request.method.as_str(),
                path: &request.path,
                query: &request.query,
                headers: &headers,
            },
            chrono::Utc::now(),
        )?;
        let content_sha256 = match payload {
            Payload::Unsigned => None,
            Payload::Sha256(hash) => Some(hash),
            Payload::Streaming => {
                return Err(not_implemented(
                    "aws-chunked bodies (x-amz-content-sha256: STREAMING-…) are not supported by depot's embedded store: send UNSIGNED-PAYLOAD or the body's SHA-256",
                ));
            }
        };
        let claims = Claims::from_headers(&headers, content_sha256).map_err(checksum_error)?;
        let signature = if request.header("authorization").is_some() {
            Signature::Header
        } else {
            Signature::Url
        };
        // Refused before a byte of the body is read.
        self.admit(&request, signature).await?;
        match request.method {
            Method::PUT => self.put(&request, signature, claims, body).await,
            Method::POST => self.post(&request, signature, claims, body).await,
            _ => self.delete(&request).await,
        }
    }

    /// A write signed in its URL lands only while its upload is under way. Called before
    /// the body is read, and again (holding the key) right before the write lands, since
    /// the upload may be completed meanwhile.
    async fn admit(&self, request: &WriteRequest, signature: Signature) -> Result<(), S3Error> {
        if signature == Signature::Header {
            return Ok(());
        }
        // Depot starts multipart uploads itself: no URL of its own makes one.
        let admitted = request.param("uploads").is_none()
            && crate::files::uploads::admits(
                self.files,
                &request.bucket,
                &request.key,
                request.param("uploadId"),
                chrono::Utc::now(),
            )
            .await
            .map_err(|e| {
                S3Error::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "ServiceUnavailable",
                    format!("cannot look up the upload: {e}"),
                )
            })?;
        if admitted {
            return Ok(());
        }
        Err(S3Error::new(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            "This URL writes only while its upload is under way, and that upload is completed, aborted or expired (or was never begun with POST /files/uploads): upload URLs are single-use. Start a new upload with POST /files/uploads.",
        ))
    }

    /// PutObject, or UploadPart.
    async fn put<B>(
        &self,
        request: &WriteRequest,
        signature: Signature,
        claims: Claims,
        body: B,
    ) -> Result<Response, S3Error>
    where
        B: Stream<Item = Result<bytes::Bytes, String>> + Send + Unpin,
    {
        if request.header("x-amz-copy-source").is_some() {
            return Err(not_implemented(
                "CopyObject and UploadPartCopy are not supported by depot's embedded store",
            ));
        }
        let if_absent = only_if_absent(request)?;
        let part = match (request.param("uploadId"), request.param("partNumber")) {
            (None, None) => None,
            (Some(upload_id), Some(number)) => Some((upload_id.to_owned(), part_number(number)?)),
            _ => {
                return Err(S3Error::new(
                    StatusCode::BAD_REQUEST,
                    "InvalidRequest",
                    "UploadPart needs both uploadId and partNumber",
                ));
            }
        };
        let length = content_length(request)?;
        let spooled = spool(self.store, body, length, &claims, part.is_some()).await?;
        // Held until the write has landed: no completion checks the object meanwhile.
        let _gate = self.store.gate(&request.bucket, &request.key).await;
        self.admit(request, signature).await?;
        let store = self.store.clone();
        let (bucket, key) = (request.bucket.clone(), request.key.clone());
        let etag = blocking(move || match part {
            None if if_absent => store
                .put_spooled_if_absent(&bucket, &key, spooled)?
                .map(|meta| meta.etag)
                .ok_or_else(precondition_failed),
            None => Ok(store.put_spooled(&bucket, &key, spooled)?.etag),
            Some((upload_id, number)) => store
                .put_part(&bucket, &key, &upload_id, number, spooled)
                .map_err(multipart_error),
        })
        .await?;
        let mut response = Response::new(Default::default());
        let headers = response.headers_mut();
        insert(headers, header::ETAG, &etag);
        // S3 echoes the checksums it checked.
        if let Some(sha256) = claims.sha256 {
            insert(headers, "x-amz-checksum-sha256", &base64(&sha256));
        }
        if let Some(crc32) = claims.crc32 {
            insert(
                headers,
                "x-amz-checksum-crc32",
                &base64(&crc32.to_be_bytes()),
            );
        }
        Ok(response)
    }

    /// CreateMultipartUpload or CompleteMultipartUpload.
    async fn post<B>(
        &self,
        request: &WriteRequest,
        signature: Signature,
        claims: Claims,
        body: B,
    ) -> Result<Response, S3Error>
    where
        B: Stream<Item = Result<bytes::Bytes, String>> + Send + Unpin,
    {
        let if_absent = only_if_absent(request)?;
        let body = small_body(body, &claims).await?;
        let store = self.store.clone();
        let (bucket, key) = (request.bucket.clone(), request.key.clone());
        if request.param("uploads").is_some() {
            let xml = blocking(move || {
                let id = store.create_multipart(&bucket, &key, chrono::Utc::now())?;
                Ok(super::s3_xml::initiate_result_xml(&bucket, &key, &id))
            })
            .await?;
            return Ok(xml_response(xml));
        }
        let Some(upload_id) = request.param("uploadId").map(str::to_owned) else {
            return Err(not_implemented(
                "POST Object (browser form uploads) is not supported by depot's embedded store: PUT to a URL from POST /files/uploads",
            ));
        };
        let parts = std::str::from_utf8(&body)
            .ok()
            .and_then(super::s3_xml::parse_complete_xml)
            .ok_or_else(|| {
                S3Error::new(
                    StatusCode::BAD_REQUEST,
                    "MalformedXML",
                    "The XML you provided was not well-formed or did not validate against our published schema.",
                )
            })?;
        let location = request.path.clone();
        let _gate = self.store.gate(&request.bucket, &request.key).await;
        self.admit(request, signature).await?;
        let xml = blocking(move || {
            // Holding the key, nothing of this store lands between the check and the write.
            if if_absent && store.stat(&bucket, &key).is_ok() {
                return Err(precondition_failed());
            }
            let completed = store
                .complete_multipart(&bucket, &key, &upload_id, &parts)
                .map_err(multipart_error)?;
            Ok(super::s3_xml::complete_result_xml(
                &location,
                &bucket,
                &key,
                &completed.meta.etag,
            ))
        })
        .await?;
        Ok(xml_response(xml))
    }

    /// AbortMultipartUpload.
    async fn delete(&self, request: &WriteRequest) -> Result<Response, S3Error> {
        let Some(upload_id) = request.param("uploadId").map(str::to_owned) else {
            return Err(not_implemented(
                "DeleteObject is not supported by depot's embedded store: DELETE /file removes a record and its object together",
            ));
        };
        let store = self.store.clone();
        let (bucket, key) = (request.bucket.clone(), request.key.clone());
        blocking(move || {
            store
                .abort_multipart(&bucket, &key, &upload_id)
                .map_err(multipart_error)
        })
        .await?;
        let mut response = Response::new(Default::default());
        *response.status_mut() = StatusCode::NO_CONTENT;
        Ok(response)
    }
}

/// `Content-Length`, required for a PUT (S3 refuses chunked uploads without it) and at most
/// 5 GiB (S3's largest PUT and part).
fn content_length(request: &WriteRequest) -> Result<u64, S3Error> {
    let length = request
        .header("content-length")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .ok_or_else(|| {
            S3Error::new(
                StatusCode::LENGTH_REQUIRED,
                "MissingContentLength",
                "You must provide the Content-Length HTTP header.",
            )
        })?;
    if length > MAX_PUT_SIZE {
        return Err(S3Error::new(
            StatusCode::BAD_REQUEST,
            "EntityTooLarge",
            "Your proposed upload exceeds the maximum allowed size: 5 GiB in one PUT or part; larger objects take a multipart upload",
        ));
    }
    Ok(length)
}

/// Whether the write must not replace an object (`If-None-Match: *`, as S3 has it). S3
/// knows no other value there, nor `If-Match` on these writes here: refused rather than
/// ignored, since a client sending one counts on it.
fn only_if_absent(request: &WriteRequest) -> Result<bool, S3Error> {
    let part = request.method == Method::PUT && request.param("uploadId").is_some();
    if request.header("if-match").is_some() {
        return Err(not_implemented(
            "If-Match is not supported by depot's embedded store: a write that must not replace an object sends If-None-Match: *",
        ));
    }
    match request.header("if-none-match").map(str::trim) {
        None => Ok(false),
        Some(_) if part => Err(not_implemented(
            "UploadPart takes no If-None-Match: send it with the CompleteMultipartUpload",
        )),
        Some("*") => Ok(true),
        Some(_) => Err(not_implemented(
            "If-None-Match on a write takes only '*' (write only when no object is at the key)",
        )),
    }
}

/// S3's answer to a write refused by `If-None-Match: *`.
fn precondition_failed() -> S3Error {
    S3Error::new(
        StatusCode::PRECONDITION_FAILED,
        "PreconditionFailed",
        "At least one of the pre-conditions you specified did not hold: an object is already at this key (If-None-Match: *)",
    )
}

fn part_number(text: &str) -> Result<u32, S3Error> {
    text.parse::<u32>()
        .ok()
        .filter(|n| (1..=crate::objects::multipart::MAX_PARTS).contains(n))
        .ok_or_else(|| multipart_error(MultipartError::PartNumber))
}

/// The body, spooled to disk with the digests `claims` need, then held to them.
async fn spool<B>(
    store: &ObjectStore,
    mut body: B,
    length: u64,
    claims: &Claims,
    md5: bool,
) -> Result<Spooled, S3Error>
where
    B: Stream<Item = Result<bytes::Bytes, String>> + Send + Unpin,
{
    let incomplete = || {
        S3Error::new(
            StatusCode::BAD_REQUEST,
            "IncompleteBody",
            "You did not provide the number of bytes specified by the Content-Length HTTP header.",
        )
    };
    let mut spool = Spool::create_with(store.spool_dir(), claims.digests(md5)).await?;
    while let Some(chunk) = body.try_next().await.map_err(|_| incomplete())? {
        if spool.len() + chunk.len() as u64 > length {
            return Err(incomplete());
        }
        spool.write(&chunk).await?;
    }
    if spool.len() != length {
        return Err(incomplete());
    }
    let spooled = spool.finish().await?;
    claims.check(spooled.digests()).map_err(checksum_error)?;
    Ok(spooled)
}

/// A POST body, read whole (it is small) and held to its claims.
async fn small_body<B>(mut body: B, claims: &Claims) -> Result<Vec<u8>, S3Error>
where
    B: Stream<Item = Result<bytes::Bytes, String>> + Send + Unpin,
{
    let mut out = Vec::new();
    while let Some(chunk) = body.try_next().await.map_err(|_| {
        S3Error::new(
            StatusCode::BAD_REQUEST,
            "IncompleteBody",
            "The request body ended early.",
        )
    })? {
        if (out.len() + chunk.len()) as u64 > POST_BODY_LIMIT {
            return Err(S3Error::new(
                StatusCode::BAD_REQUEST,
                "MaxMessageLengthExceeded",
                "Your request was too big: the body of a POST is at most 2 MiB.",
            ));
        }
        out.extend_from_slice(&chunk);
    }
    let mut digests = claims.digests(false);
    digests.update(&out);
    claims.check(&digests.finish()).map_err(checksum_error)?;
    Ok(out)
}

fn checksum_error(e: ChecksumError) -> S3Error {
    S3Error::new(StatusCode::BAD_REQUEST, e.s3_code(), e.to_string())
}

fn multipart_error(e: MultipartError) -> S3Error {
    match e {
        MultipartError::Object(e) => e.into(),
        MultipartError::NoSuchUpload => {
            S3Error::new(StatusCode::NOT_FOUND, e.s3_code(), e.to_string())
        }
        other => S3Error::new(StatusCode::BAD_REQUEST, other.s3_code(), other.to_string()),
    }
}

fn not_implemented(message: &str) -> S3Error {
    S3Error::new(StatusCode::NOT_IMPLEMENTED, "NotImplemented", message)
}

fn insert(headers: &mut HeaderMap, name: impl header::IntoHeaderName, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(name, value);
    }
}

fn xml_response(xml: String) -> Response {
    let mut response = Response::new(xml.into());
    insert(
        response.headers_mut(),
        header::CONTENT_TYPE,
        "application/xml",
    );
    response
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, S3Error> + Send + 'static,
) -> Result<T, S3Error> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| S3Error::internal(e.to_string()))?
}

/// `PUT`, `POST` and `DELETE /objects/{bucket}/{key}`.
pub fn routes(state: Arc<AppState>) -> warp::filters::BoxedFilter<(Response,)> {
    use crate::http::filters::with_state;
    use crate::http::query;
    use crate::http::routes::{self as table, on};
    use warp::Filter;

    on(&table::OBJECT_PUT)
        .or(on(&table::OBJECT_POST))
        .unify()
        .or(on(&table::OBJECT_DELETE))
        .unify()
        .and(warp::method())
        .and(warp::path::full())
        .and(query::raw())
        .and(warp::header::headers_cloned())
        .and(warp::body::stream().map(boxed_body))
        .and(with_state(state))
        .then(
            |params: PathParams,
             method: Method,
             path: FullPath,
             query: String,
             headers: HeaderMap,
             body: Body,
             state: Arc<AppState>| async move {
                let Some(endpoint) = state.objects.clone() else {
                    return ApiError::NotFound(
                        "the embedded object store is off (objects.enabled = false)".into(),
                    )
                    .into_response();
                };
                let resource = path.as_str().to_owned();
                let request = match write_request(method, params, path, query, &headers) {
                    Ok(request) => request,
                    Err(error) => return error.at(&resource).into_response(false),
                };
                let writes = Writes {
                    store: &endpoint.store,
                    verifier: &endpoint.verifier,
                    files: &state.files,
                };
                match writes.answer(request, body).await {
                    Ok(response) => response,
                    Err(error) => error.at(&resource).into_response(false),
                }
            },
        )
        .boxed()
}

fn boxed_body<S, B>(body: S) -> Body
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf,
{
    Box::pin(
        body.map_ok(|mut chunk| chunk.copy_to_bytes(chunk.remaining()))
            .map_err(|e| e.to_string()),
    )
}

fn write_request(
    method: Method,
    params: PathParams,
    path: FullPath,
    query: String,
    headers: &HeaderMap,
) -> Result<WriteRequest, S3Error> {
    let invalid_uri = || {
        S3Error::new(
            StatusCode::BAD_REQUEST,
            "InvalidURI",
            "Couldn't parse the specified URI.",
        )
    };
    let (bucket, key) = match params.0.as_slice() {
        [bucket, key] => (
            percent::decode(bucket).ok_or_else(invalid_uri)?,
            percent::decode(key).ok_or_else(invalid_uri)?,
        ),
        _ => return Err(invalid_uri()),
    };
    let params = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|piece| {
            let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
            Some((percent::decode(name)?, percent::decode(value)?))
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(invalid_uri)?;
    let headers = headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect();
    Ok(WriteRequest {
        method,
        bucket,
        key,
        path: path.as_str().to_owned(),
        query,
        params,
        headers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: Method, query: &[(&str, &str)], headers: &[(&str, &str)]) -> WriteRequest {
        let own = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect()
        };
        WriteRequest {
            method,
            bucket: "depot".into(),
            key: "k".into(),
            path: "/objects/depot/k".into(),
            query: String::new(),
            params: own(query),
            headers: own(headers),
        }
    }

    #[test]
    fn only_if_none_match_star_makes_a_write_conditional_and_other_conditions_are_refused() {
        let answer = |method: Method, query: &[(&str, &str)], headers: &[(&str, &str)]| {
            only_if_absent(&request(method, query, headers)).map_err(|e| (e.status, e.code))
        };
        let part = [("uploadId", "u"), ("partNumber", "1")];
        assert_eq!(answer(Method::PUT, &[], &[]), Ok(false));
        assert_eq!(
            answer(Method::PUT, &[], &[("if-none-match", "*")]),
            Ok(true)
        );
        assert_eq!(
            answer(
                Method::POST,
                &[("uploadId", "u")],
                &[("if-none-match", " * ")]
            ),
            Ok(true)
        );
        assert_eq!(answer(Method::PUT, &part, &[]), Ok(false));
        let not_implemented = Err((StatusCode::NOT_IMPLEMENTED, "NotImplemented"));
        for (query, headers) in [
            (&[][..], &[("if-none-match", "\"abc\"")][..]),
            (&[], &[("if-match", "\"abc\"")]),
            (&part, &[("if-none-match", "*")]),
        ] {
            assert_eq!(
                answer(Method::PUT, query, headers),
                not_implemented,
                "{headers:?}"
            );
        }
    }
}
