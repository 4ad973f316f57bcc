//! File content at an S3-compatible endpoint (`signing.endpoint`) as a `ContentStore`: PUT,
//! HEAD, GET and DELETE of one object and the multipart calls of direct uploads (create,
//! complete, abort), each signed in the `Authorization` header (SigV4) and sent by `call`,
//! bodies streamed from a file; writes leave their intents in this node's data folder; and
//! what the process knows of the endpoint's health (its last operations and the probe) for
//! `/health`. No HTTP server side here.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use reqwest::Method;
use tokio::io::AsyncReadExt;

use super::{Content, ContentError, ContentStore, Found, Health, IntentOp, blocking};
use crate::objects::{KeyGate, Pending, Unfinished};
use crate::signing::{Credentials, Signer, SigningError, SigningTarget, UNSIGNED_PAYLOAD};

/// The SHA-256 of an empty body (the probe's GET).
const EMPTY_PAYLOAD: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// A stuck endpoint must not hold a request forever; generous, since bodies may be large.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const CHUNK: usize = 256 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum S3Error {
    /// The endpoint is named by its host (`redact::url`), the cause without the URL.
    #[error(
        "the S3 object store at {endpoint} (signing.endpoint) is unreachable while {op}: \
         {reason}; try again"
    )]
    Unreachable {
        op: &'static str,
        endpoint: String,
        reason: String,
    },
    /// The endpoint answered with an S3 error (`code`, e.g. `SignatureDoesNotMatch`).
    #[error(
        "the S3 object store at {endpoint} (signing.endpoint) refused {op}: HTTP {status} \
         {code}{hint}"
    )]
    Refused {
        op: &'static str,
        endpoint: String,
        status: u16,
        code: String,
        hint: &'static str,
    },
    #[error(
        "bucket '{bucket}' does not exist at the S3 object store {endpoint} \
         (signing.endpoint): create it there, or choose another bucket"
    )]
    NoSuchBucket { bucket: String, endpoint: String },
    #[error(transparent)]
    Signing(#[from] SigningError),
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl S3Error {
    /// Whether the endpoint refused depot's credentials or could not be reached, rather
    /// than this one request (`/health` shows the endpoint unreachable then).
    fn endpoint_down(&self) -> bool {
        match self {
            S3Error::Unreachable { .. } => true,
            S3Error::Refused { code, .. } => is_credentials_code(code),
            _ => false,
        }
    }
}

/// S3 error codes that say the request's credentials or signature were not accepted.
fn is_credentials_code(code: &str) -> bool {
    matches!(
        code,
        "SignatureDoesNotMatch"
            | "InvalidAccessKeyId"
            | "InvalidToken"
            | "ExpiredToken"
            | "TokenRefreshRequired"
            | "AuthorizationHeaderMalformed"
            | "InvalidSecurity"
            | "RequestTimeTooSkewed"
    )
}

/// What this process last learned about an endpoint, from its writes and probes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    /// The endpoint answered and accepted depot's credentials.
    pub reachable: bool,
    /// The last failure, until an operation succeeds.
    pub last_error: Option<String>,
    pub checked_at: chrono::DateTime<chrono::Utc>,
}

/// Per endpoint (as configured): every `S3Objects` of the process reports here, since a
/// reload that changes the signing settings chooses a new one.
static REACH: std::sync::LazyLock<Mutex<HashMap<String, Reach>>> =
    std::sync::LazyLock::new(Mutex::default);

/// What is known about `endpoint`, for `/health`; `None` before the first operation or
/// probe.
pub fn reach_of(endpoint: &str) -> Option<Reach> {
    REACH
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(endpoint)
        .cloned()
}

/// Probe key: a GET of an object nobody stores is the cheapest signed request that every
/// S3 (AWS, MinIO, s3s-fs, Garage, R2) checks the signature of and answers with a code.
const PROBE_KEY: &str = ".depot-health-probe";

/// The objects at one endpoint with one set of credentials.
#[derive(Clone)]
pub struct S3Objects {
    http: reqwest::Client,
    signer: Arc<Signer>,
    /// `signing.endpoint` as configured: the key of `REACH`.
    endpoint: String,
    /// Where uploads are spooled before they are sent.
    spool_dir: PathBuf,
    /// This node's intents of writes to the endpoint (`content::S3_INTENTS_DIR`).
    intents_dir: PathBuf,
}

/// One request of depot's to the endpoint, as it is signed.
struct Call<'a> {
    /// What depot was doing, for the error ("storing an object").
    op: &'static str,
    method: Method,
    bucket: &'a str,
    key: &'a str,
    query: &'a [(&'a str, &'a str)],
    /// The body's SHA-256 as signed (`UNSIGNED_PAYLOAD` for a streamed one).
    payload: &'a str,
    headers: &'a [(&'a str, &'a str)],
    body: Option<reqwest::Body>,
}

impl<'a> Call<'a> {
    /// A call without query, extra headers or body, whose payload is empty.
    fn new(op: &'static str, method: Method, bucket: &'a str, key: &'a str) -> Call<'a> {
        Call {
            op,
            method,
            bucket,
            key,
            query: &[],
            payload: EMPTY_PAYLOAD,
            headers: &[],
            body: None,
        }
    }
}

/// What an answer other than 2xx means, besides the call's failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// Nothing else: every refusal is a failure.
    Fails,
    /// A 404 says that nothing is there (an object or an upload already gone): no failure.
    Absent,
    /// `NoSuchBucket` names the caller's bucket (`S3Error::NoSuchBucket`), which says nothing
    /// of the endpoint's health.
    NamesBucket,
    /// The probe's: a 404 and `AccessDenied` both prove that the endpoint answers and checks
    /// depot's signature.
    Probe,
}

impl S3Objects {
    /// For the endpoint of `target`; uploads spool in `spool_dir`, intents go to
    /// `intents_dir`.
    pub fn new(
        target: SigningTarget,
        credentials: Credentials,
        spool_dir: PathBuf,
        intents_dir: PathBuf,
    ) -> Result<S3Objects, ContentError> {
        let endpoint = target.endpoint.clone();
        let signer = Signer::new(target, credentials)?;
        crate::tls::install_tls_provider();
        let http = shared_client().map_err(|e| S3Error::Unreachable {
            op: "starting the HTTP client",
            endpoint: crate::redact::url(&endpoint),
            reason: crate::redact::http_error(e, &endpoint),
        })?;
        Ok(S3Objects {
            http,
            signer: Arc::new(signer),
            endpoint,
            spool_dir,
            intents_dir,
        })
    }

    /// Stores the file at `path` as the object, streamed from disk in chunks (never whole
    /// in memory); done when the endpoint answered 2xx.
    pub async fn put_file(&self, bucket: &str, key: &str, path: &Path) -> Result<(), S3Error> {
        let file = open(path).await?;
        let length = file
            .metadata()
            .await
            .map_err(|source| read_error(path, source))?
            .len()
            .to_string();
        let call = Call {
            payload: UNSIGNED_PAYLOAD,
            headers: &[("content-length", &length)],
            body: Some(reqwest::Body::wrap_stream(stream_file(file))),
            ..Call::new("storing an object", Method::PUT, bucket, key)
        };
        self.call(call, Refusal::NamesBucket, |_| async { Ok(()) })
            .await
    }

    /// What the endpoint holds at `bucket`/`key`: its length and, when the store keeps one,
    /// its SHA-256 checksum (`x-amz-checksum-sha256`, asked for with checksum mode; a
    /// multipart object's is a checksum of checksums, `…-N`); `None` when there is none.
    pub async fn head(&self, bucket: &str, key: &str) -> Result<Option<Head>, S3Error> {
        let call = Call {
            headers: &[("x-amz-checksum-mode", "ENABLED")],
            ..Call::new("checking an object", Method::HEAD, bucket, key)
        };
        self.call(call, Refusal::Absent, |response| async move {
            let Some(response) = response else {
                return Ok(None);
            };
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            Ok(Some(Head {
                len: header("content-length")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0),
                sha256: header("x-amz-checksum-sha256"),
                etag: header("etag"),
            }))
        })
        .await
    }

    /// The SHA-256 of the object's bytes, read back in chunks (for a store that does not
    /// report one). Not recorded for `/health`: the HEAD just before it was.
    pub async fn sha256_of(&self, bucket: &str, key: &str) -> Result<[u8; 32], S3Error> {
        use futures_util::TryStreamExt;
        let op = "reading an object back";
        let response = self
            .exchange(Call::new(op, Method::GET, bucket, key))
            .await?;
        let mut digests = crate::objects::checksums::Digests::sha256();
        let mut body = response.bytes_stream();
        while let Some(chunk) = body.try_next().await.map_err(|e| self.unreachable(op, e))? {
            digests.update(&chunk);
        }
        Ok(digests.finish().sha256)
    }

    /// CreateMultipartUpload: the new upload's id.
    pub async fn create_multipart(
        &self,
        bucket: &str,
        key: &str,
        content_type: Option<&str>,
    ) -> Result<String, S3Error> {
        let op = "starting a multipart upload";
        let headers: Vec<(&str, &str)> = content_type
            .map(|t| ("content-type", t))
            .into_iter()
            .collect();
        let call = Call {
            query: &[("uploads", "")],
            headers: &headers,
            body: Some(Bytes::new().into()),
            ..Call::new(op, Method::POST, bucket, key)
        };
        self.call(call, Refusal::Fails, |response| async move {
            let xml = self.xml_answer(op, response).await?;
            element(&xml, "UploadId").ok_or_else(|| self.refused(op, 200, "NoUploadId".into()))
        })
        .await
    }

    /// CompleteMultipartUpload with these `(part number, ETag)`, ascending.
    pub async fn complete_multipart(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        parts: &[(u32, String)],
    ) -> Result<(), S3Error> {
        let op = "completing a multipart upload";
        let mut xml = String::from("<CompleteMultipartUpload>");
        for (number, etag) in parts {
            xml.push_str(&format!("<Part><PartNumber>{number}</PartNumber><ETag>"));
            xml.push_str(&xml_escape(etag));
            xml.push_str("</ETag></Part>");
        }
        xml.push_str("</CompleteMultipartUpload>");
        let body = Bytes::from(xml);
        let hash = crate::hex::encode(&crate::objects::checksums::sha256_of(&body));
        let call = Call {
            query: &[("uploadId", upload_id)],
            payload: &hash,
            headers: &[("content-type", "application/xml")],
            body: Some(body.into()),
            ..Call::new(op, Method::POST, bucket, key)
        };
        self.call(call, Refusal::Fails, |response| async move {
            self.xml_answer(op, response).await.map(|_| ())
        })
        .await
    }

    /// AbortMultipartUpload; an upload already gone is no error.
    pub async fn abort_multipart(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> Result<(), S3Error> {
        let call = Call {
            query: &[("uploadId", upload_id)],
            ..Call::new("aborting a multipart upload", Method::DELETE, bucket, key)
        };
        self.call(call, Refusal::Absent, |_| async { Ok(()) }).await
    }

    /// Deletes the object; an object already gone is no error (S3 answers 204 anyway).
    pub async fn delete(&self, bucket: &str, key: &str) -> Result<(), S3Error> {
        let call = Call {
            payload: UNSIGNED_PAYLOAD,
            ..Call::new("deleting an object", Method::DELETE, bucket, key)
        };
        self.call(call, Refusal::Absent, |_| async { Ok(()) }).await
    }

    /// Checks that the endpoint answers and accepts depot's credentials, with a signed GET
    /// of a key nobody stores in the default bucket: "no such key", "no such bucket" and
    /// "access denied" (for credentials that may not read) all prove both. The outcome is
    /// what `/health` shows until the next operation.
    pub async fn probe(&self) -> Result<(), S3Error> {
        let call = Call::new(
            "checking the endpoint",
            Method::GET,
            super::DEFAULT_BUCKET,
            PROBE_KEY,
        );
        self.call(call, Refusal::Probe, |_| async { Ok(()) }).await
    }

    /// Signs and sends `call` and reads the answer with `read`: the response when the
    /// endpoint accepted it (2xx), `None` when `refusal` says its refusal means that nothing
    /// is there. Then keeps what the outcome says of the endpoint for `/health`.
    async fn call<T, F, Fut>(&self, call: Call<'_>, refusal: Refusal, read: F) -> Result<T, S3Error>
    where
        F: FnOnce(Option<reqwest::Response>) -> Fut,
        Fut: Future<Output = Result<T, S3Error>>,
    {
        let bucket = call.bucket;
        let result = match self.exchange(call).await {
            Ok(response) => read(Some(response)).await,
            Err(S3Error::Refused { status: 404, .. })
                if matches!(refusal, Refusal::Absent | Refusal::Probe) =>
            {
                read(None).await
            }
            Err(S3Error::Refused { ref code, .. })
                if refusal == Refusal::Probe && code == "AccessDenied" =>
            {
                read(None).await
            }
            Err(S3Error::Refused { ref code, .. })
                if refusal == Refusal::NamesBucket && code == "NoSuchBucket" =>
            {
                Err(S3Error::NoSuchBucket {
                    bucket: bucket.to_owned(),
                    endpoint: crate::redact::url(&self.endpoint),
                })
            }
            Err(e) => Err(e),
        };
        self.record(&result);
        result
    }

    /// Signs `call` and sends it: the answer when the endpoint accepted it (2xx); any other
    /// is `Refused`.
    async fn exchange(&self, call: Call<'_>) -> Result<reqwest::Response, S3Error> {
        let signed = self.signer.sign_request(
            call.method.as_str(),
            call.bucket,
            call.key,
            call.query,
            Utc::now(),
            call.payload,
            call.headers,
        )?;
        let mut request = self.http.request(call.method, &signed.url);
        for (name, value) in signed.headers {
            request = request.header(name, value);
        }
        if let Some(body) = call.body {
            request = request.body(body);
        }
        let op = call.op;
        let response = request.send().await.map_err(|e| self.unreachable(op, e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let text = response.text().await.unwrap_or_default();
        Err(self.refused(op, status.as_u16(), error_code(&text)))
    }

    /// The answer's body whole (small XML documents); S3 may answer a completion 200 with
    /// an error inside, which counts as the refusal it is.
    async fn xml_answer(
        &self,
        op: &'static str,
        response: Option<reqwest::Response>,
    ) -> Result<String, S3Error> {
        let Some(response) = response else {
            return Ok(String::new());
        };
        let status = response.status().as_u16();
        let text = response.text().await.map_err(|e| self.unreachable(op, e))?;
        if text.contains("<Error>") {
            return Err(self.refused(op, status, error_code(&text)));
        }
        Ok(text)
    }

    /// Keeps what an operation learned about the endpoint for `/health`. A refusal of the
    /// request alone (a missing bucket, a bad file) says nothing about the endpoint.
    fn record<T>(&self, result: &Result<T, S3Error>) {
        let reach = match result {
            Ok(_) => Reach {
                reachable: true,
                last_error: None,
                checked_at: chrono::Utc::now(),
            },
            Err(e @ (S3Error::Unreachable { .. } | S3Error::Refused { .. })) => Reach {
                reachable: !e.endpoint_down(),
                last_error: Some(e.to_string()),
                checked_at: chrono::Utc::now(),
            },
            Err(_) => return,
        };
        REACH
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(self.endpoint.clone(), reach);
    }

    fn unreachable(&self, op: &'static str, e: reqwest::Error) -> S3Error {
        S3Error::Unreachable {
            op,
            endpoint: crate::redact::url(&self.endpoint),
            reason: crate::redact::http_error(e, &self.endpoint),
        }
    }

    fn refused(&self, op: &'static str, status: u16, code: String) -> S3Error {
        S3Error::Refused {
            op,
            endpoint: crate::redact::url(&self.endpoint),
            status,
            hint: if is_credentials_code(&code) {
                ": check signing.access_key_id, signing.secret_access_key and signing.region"
            } else {
                ""
            },
            code,
        }
    }
}

impl ContentStore for S3Objects {
    fn name(&self) -> &'static str {
        "the S3 endpoint"
    }

    fn health(&self) -> Health {
        Health::Endpoint {
            endpoint: crate::redact::url(&self.endpoint),
            reach: reach_of(&self.endpoint),
        }
    }

    fn signer(&self, _base_url: &str) -> Result<Arc<Signer>, ContentError> {
        Ok(self.signer.clone())
    }

    fn writable(&self) -> Result<(), ContentError> {
        Ok(())
    }

    fn spool_dir(&self) -> PathBuf {
        self.spool_dir.clone()
    }

    fn holds(&self, _bucket: &str, _key: &str) -> bool {
        true
    }

    fn begin<'a>(
        &'a self,
        op: IntentOp,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Pending, ContentError>> {
        let (dir, bucket, key) = (self.intents_dir.clone(), bucket.to_owned(), key.to_owned());
        Box::pin(blocking("intent write", move || {
            Ok(crate::objects::begin_intent_in(&dir, op, &bucket, &key)?)
        }))
    }

    /// The object first; its intent names it until the record agrees, so that a kill in
    /// between is resolved at the next start.
    fn put<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        content: Content,
    ) -> BoxFuture<'a, Result<Pending, ContentError>> {
        Box::pin(async move {
            let pending = self.begin(IntentOp::Put, bucket, key).await?;
            // The spool (removed when dropped) lives until the endpoint has the content.
            let (path, _spool) = match content {
                Content::Spooled(spooled) => (spooled.path().to_owned(), Some(spooled)),
                Content::File(path) => (path, None),
            };
            if let Err(e) = self.put_file(bucket, key, &path).await {
                // The endpoint may have stored it before the error: the intent stays.
                drop(pending);
                return Err(e.into());
            }
            Ok(pending)
        })
    }

    fn delete<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<(), ContentError>> {
        Box::pin(async move { Ok(S3Objects::delete(self, bucket, key).await?) })
    }

    fn stat<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Found>, ContentError>> {
        self.check(bucket, key)
    }

    fn check<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Found>, ContentError>> {
        Box::pin(async move {
            Ok(self.head(bucket, key).await?.map(|head| Found {
                len: head.len,
                sha256: head.sha256.as_deref().and_then(full_object_sha256),
                etag: head.etag,
            }))
        })
    }

    fn sha256_of<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<[u8; 32], ContentError>> {
        Box::pin(async move { Ok(S3Objects::sha256_of(self, bucket, key).await?) })
    }

    fn create_multipart<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        content_type: Option<&'a str>,
        _now: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<String, ContentError>> {
        Box::pin(
            async move { Ok(S3Objects::create_multipart(self, bucket, key, content_type).await?) },
        )
    }

    fn complete_multipart<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        upload_id: &'a str,
        parts: &'a [(u32, String)],
    ) -> BoxFuture<'a, Result<Option<Found>, ContentError>> {
        Box::pin(async move {
            match S3Objects::complete_multipart(self, bucket, key, upload_id, parts).await {
                Ok(()) => {}
                // Completed by an earlier try whose record was not written: the object is
                // there to be checked.
                Err(S3Error::Refused { ref code, .. }) if code == "NoSuchUpload" => {}
                Err(S3Error::Refused { code, .. }) if is_parts_code(&code) => {
                    return Err(ContentError::PartsRefused {
                        message: parts_message(&code).into(),
                        code,
                    });
                }
                Err(e) => return Err(e.into()),
            }
            // S3 says nothing of the object it made: `check` looks.
            Ok(None)
        })
    }

    fn abort_multipart<'a>(
        &'a self,
        bucket: &'a str,
        key: &'a str,
        upload_id: &'a str,
    ) -> BoxFuture<'a, Result<(), ContentError>> {
        Box::pin(async move { Ok(S3Objects::abort_multipart(self, bucket, key, upload_id).await?) })
    }

    fn gate<'a>(&'a self, _bucket: &'a str, _key: &'a str) -> BoxFuture<'a, Option<KeyGate>> {
        // The endpoint lands presigned PUTs itself; `If-None-Match` keeps them single.
        Box::pin(async { None })
    }

    fn sweep_multipart(
        &self,
        _cutoff: DateTime<Utc>,
    ) -> BoxFuture<'_, Result<usize, ContentError>> {
        // Uploads nobody keeps are the endpoint's to expire (its lifecycle rules); those
        // depot keeps are aborted by `files::uploads::expire`.
        Box::pin(async { Ok(0) })
    }

    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<Unfinished>, ContentError>> {
        let dir = self.intents_dir.clone();
        Box::pin(blocking("intent read", move || {
            Ok(crate::objects::unfinished_intents_in(&dir))
        }))
    }

    fn probe(&self) -> BoxFuture<'_, Option<Result<(), ContentError>>> {
        Box::pin(async move { Some(S3Objects::probe(self).await.map_err(ContentError::from)) })
    }
}

/// The process's one HTTP client for S3 endpoints. A reload that changes the signing
/// settings makes a new `S3Objects`, and a client made with each would read the system's CA
/// certificates again (about half a megabyte) and open new connections; this one keeps its
/// connections, to whichever endpoint, between them.
fn shared_client() -> Result<reqwest::Client, reqwest::Error> {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    if let Some(client) = CLIENT.get() {
        return Ok(client.clone());
    }
    let client = reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .build()?;
    Ok(CLIENT.get_or_init(|| client).clone())
}

/// The `<Code>` of an S3 XML error body, or empty.
fn error_code(xml: &str) -> String {
    element(xml, "Code")
        .map(|code| code.chars().take(64).collect())
        .unwrap_or_default()
}

/// The text of the first `<name>` element of a small S3 answer (names, ids and codes:
/// never escaped in practice).
fn element(xml: &str, name: &str) -> Option<String> {
    let (_, rest) = xml.split_once(&format!("<{name}>"))?;
    let (text, _) = rest.split_once(&format!("</{name}>"))?;
    Some(text.trim().to_owned())
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// What HEAD tells of an object at the endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub len: u64,
    /// Base64, as the header carries it.
    pub sha256: Option<String>,
    /// As the header carries it (quoted); it changes whenever the object is written again.
    pub etag: Option<String>,
}

async fn open(path: &Path) -> Result<tokio::fs::File, S3Error> {
    tokio::fs::File::open(path)
        .await
        .map_err(|source| read_error(path, source))
}

fn read_error(path: &Path, source: std::io::Error) -> S3Error {
    S3Error::Read {
        path: path.display().to_string(),
        source,
    }
}

fn stream_file(
    file: tokio::fs::File,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send + Sync + 'static {
    futures_util::stream::unfold(Some(file), |state| async move {
        let mut file = state?;
        let mut buf = bytes::BytesMut::with_capacity(CHUNK);
        match file.read_buf(&mut buf).await {
            Ok(0) => None,
            Ok(_) => Some((Ok(buf.freeze()), Some(file))),
            Err(e) => Some((Err(e), None)),
        }
    })
}

/// A store's `x-amz-checksum-sha256` when it is the whole object's (a multipart one's is a
/// checksum of the parts' checksums, `…-N`).
fn full_object_sha256(value: &str) -> Option<[u8; 32]> {
    use base64::Engine as _;
    if value.contains('-') {
        return None;
    }
    base64::engine::general_purpose::STANDARD
        .decode(value.trim())
        .ok()?
        .try_into()
        .ok()
}

fn is_parts_code(code: &str) -> bool {
    matches!(
        code,
        "InvalidPart" | "InvalidPartOrder" | "EntityTooSmall" | "MalformedXML"
    )
}

fn parts_message(code: &str) -> &'static str {
    match code {
        "InvalidPart" => {
            "a part is missing or its ETag is not the one its PUT answered: send every part, then complete with their ETags"
        }
        "EntityTooSmall" => "every part but the last must be at least 5 MiB",
        _ => "the part list was not accepted",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_whole_object_checksum_is_taken() {
        let hello = "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=";
        assert!(full_object_sha256(hello).is_some());
        assert_eq!(full_object_sha256(&format!("{hello}-3")), None);
        assert_eq!(full_object_sha256("short"), None);
    }

    #[test]
    fn error_code_is_read_from_the_xml_body() {
        assert_eq!(
            super::error_code("<Error><Code>SignatureDoesNotMatch</Code></Error>"),
            "SignatureDoesNotMatch"
        );
        assert_eq!(super::error_code("not xml"), "");
    }
}
