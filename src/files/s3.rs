//! File content at an S3-compatible endpoint (`signing.endpoint`): PUT, HEAD and DELETE of
//! one object and the multipart calls of direct uploads (create, complete, abort), signed
//! in the `Authorization` header (SigV4) and streamed from a file; and what the process
//! knows of the endpoint's health (its last operations and a periodic probe) for
//! `/health`. No HTTP server side here.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::AsyncReadExt;

use crate::config::ConfigHandle;
use crate::config::settings::Signing;
use crate::shutdown::Shutdown;
use crate::signing::{Signer, SigningError, UNSIGNED_PAYLOAD};

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

/// Per endpoint (as configured): every `S3Objects` of the process reports here, since
/// uploads build theirs per request from the live settings.
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
/// How often `depot serve` probes the endpoint (and at start, and when the settings change).
const PROBE_EVERY: Duration = Duration::from_secs(30);

/// The objects at one endpoint with one set of credentials.
#[derive(Clone)]
pub struct S3Objects {
    http: reqwest::Client,
    signer: Arc<Signer>,
    /// `signing.endpoint` as configured: the key of `REACH`.
    endpoint: String,
}

impl S3Objects {
    /// For `signing.endpoint`; `None` when no endpoint is set.
    pub fn from_settings(signing: &Signing) -> Result<Option<S3Objects>, S3Error> {
        let Some((target, credentials)) = signing.endpoint_signing() else {
            return Ok(None);
        };
        let endpoint = target.endpoint.clone();
        let signer = Signer::new(target, credentials)?;
        crate::tls::install_tls_provider();
        let http = shared_client().map_err(|e| S3Error::Unreachable {
            op: "starting the HTTP client",
            endpoint: crate::redact::url(&endpoint),
            reason: crate::redact::http_error(e, &endpoint),
        })?;
        Ok(Some(S3Objects {
            http,
            signer: Arc::new(signer),
            endpoint,
        }))
    }

    /// Stores the file at `path` as the object, streamed from disk in chunks (never whole
    /// in memory); done when the endpoint answered 2xx.
    pub async fn put_file(&self, bucket: &str, key: &str, path: &Path) -> Result<(), S3Error> {
        let op = "storing an object";
        let file = open(path).await?;
        let length = file
            .metadata()
            .await
            .map_err(|source| read_error(path, source))?
            .len()
            .to_string();
        let body = reqwest::Body::wrap_stream(stream_file(file));
        let signed = self.signer.sign_headers(
            "PUT",
            bucket,
            key,
            chrono::Utc::now(),
            UNSIGNED_PAYLOAD,
            &[("content-length", &length)],
        )?;
        let result = self
            .send(op, self.http.put(&signed.url).body(body), signed.headers)
            .await
            .map_err(|e| match e {
                S3Error::Refused { ref code, .. } if code == "NoSuchBucket" => {
                    S3Error::NoSuchBucket {
                        bucket: bucket.to_owned(),
                        endpoint: crate::redact::url(&self.endpoint),
                    }
                }
                other => other,
            });
        self.record(&result);
        result
    }

    /// What the endpoint holds at `bucket`/`key`: its length and, when the store keeps one,
    /// its SHA-256 checksum (`x-amz-checksum-sha256`, asked for with checksum mode; a
    /// multipart object's is a checksum of checksums, `…-N`); `None` when there is none.
    pub async fn head(&self, bucket: &str, key: &str) -> Result<Option<Head>, S3Error> {
        let signed = self.signer.sign_headers(
            "HEAD",
            bucket,
            key,
            chrono::Utc::now(),
            EMPTY_PAYLOAD,
            &[("x-amz-checksum-mode", "ENABLED")],
        )?;
        let result = self
            .send_for(
                "checking an object",
                self.http.head(&signed.url),
                signed.headers,
            )
            .await;
        let response = match result {
            Ok(response) => response,
            Err(S3Error::Refused { status: 404, .. }) => {
                self.record(&Ok(()));
                return Ok(None);
            }
            Err(e) => {
                let failed: Result<Option<Head>, S3Error> = Err(e);
                self.record(&failed);
                return failed;
            }
        };
        self.record(&Ok(()));
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
    }

    /// The SHA-256 of the object's bytes, read back in chunks (for a store that does not
    /// report one).
    pub async fn sha256_of(&self, bucket: &str, key: &str) -> Result<[u8; 32], S3Error> {
        use futures_util::TryStreamExt;
        let signed =
            self.signer
                .sign_headers("GET", bucket, key, chrono::Utc::now(), EMPTY_PAYLOAD, &[])?;
        let op = "reading an object back";
        let response = self
            .send_for(op, self.http.get(&signed.url), signed.headers)
            .await?;
        let mut digests = crate::objects::checksums::Digests::sha256();
        let mut body = response.bytes_stream();
        while let Some(chunk) = body.try_next().await.map_err(|e| S3Error::Unreachable {
            op,
            endpoint: crate::redact::url(&self.endpoint),
            reason: crate::redact::http_error(e, &self.endpoint),
        })? {
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
        let signed = self.signer.sign_request(
            "POST",
            bucket,
            key,
            &[("uploads", "")],
            chrono::Utc::now(),
            EMPTY_PAYLOAD,
            &headers,
        )?;
        let result = self
            .send_body(
                op,
                self.http.post(&signed.url),
                signed.headers,
                Bytes::new(),
            )
            .await;
        let result = result.and_then(|xml| {
            element(&xml, "UploadId").ok_or_else(|| self.refused(op, 200, "NoUploadId".into()))
        });
        self.record(&result);
        result
    }

    /// CompleteMultipartUpload with these `(part number, ETag)`, ascending.
    pub async fn complete_multipart(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        parts: &[(u32, String)],
    ) -> Result<(), S3Error> {
        let mut xml = String::from("<CompleteMultipartUpload>");
        for (number, etag) in parts {
            xml.push_str(&format!("<Part><PartNumber>{number}</PartNumber><ETag>"));
            xml.push_str(&xml_escape(etag));
            xml.push_str("</ETag></Part>");
        }
        xml.push_str("</CompleteMultipartUpload>");
        let body = Bytes::from(xml);
        let hash = crate::hex::encode(&crate::objects::checksums::sha256_of(&body));
        let signed = self.signer.sign_request(
            "POST",
            bucket,
            key,
            &[("uploadId", upload_id)],
            chrono::Utc::now(),
            &hash,
            &[("content-type", "application/xml")],
        )?;
        let result = self
            .send_body(
                "completing a multipart upload",
                self.http.post(&signed.url),
                signed.headers,
                body,
            )
            .await
            .map(|_| ());
        self.record(&result);
        result
    }

    /// AbortMultipartUpload; an upload already gone is no error.
    pub async fn abort_multipart(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> Result<(), S3Error> {
        let signed = self.signer.sign_request(
            "DELETE",
            bucket,
            key,
            &[("uploadId", upload_id)],
            chrono::Utc::now(),
            EMPTY_PAYLOAD,
            &[],
        )?;
        let result = match self
            .send(
                "aborting a multipart upload",
                self.http.delete(&signed.url),
                signed.headers,
            )
            .await
        {
            Err(S3Error::Refused { status: 404, .. }) => Ok(()),
            other => other,
        };
        self.record(&result);
        result
    }

    /// Deletes the object; an object already gone is no error (S3 answers 204 anyway).
    pub async fn delete(&self, bucket: &str, key: &str) -> Result<(), S3Error> {
        let signed = self.signer.sign_headers(
            "DELETE",
            bucket,
            key,
            chrono::Utc::now(),
            UNSIGNED_PAYLOAD,
            &[],
        )?;
        let result = match self
            .send(
                "deleting an object",
                self.http.delete(&signed.url),
                signed.headers,
            )
            .await
        {
            Err(S3Error::Refused { status: 404, .. }) => Ok(()),
            other => other,
        };
        self.record(&result);
        result
    }

    /// Checks that the endpoint answers and accepts depot's credentials, with a signed GET
    /// of a key nobody stores in the default bucket: "no such key", "no such bucket" and
    /// "access denied" (for credentials that may not read) all prove both. The outcome is
    /// what `/health` shows until the next operation.
    pub async fn probe(&self) -> Result<(), S3Error> {
        let signed = self.signer.sign_headers(
            "GET",
            super::DEFAULT_BUCKET,
            PROBE_KEY,
            chrono::Utc::now(),
            EMPTY_PAYLOAD,
            &[],
        )?;
        let result = match self
            .send(
                "checking the endpoint",
                self.http.get(&signed.url),
                signed.headers,
            )
            .await
        {
            Err(S3Error::Refused { status: 404, .. }) => Ok(()),
            Err(S3Error::Refused { ref code, .. }) if code == "AccessDenied" => Ok(()),
            other => other,
        };
        self.record(&result);
        result
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

    async fn send(
        &self,
        op: &'static str,
        request: reqwest::RequestBuilder,
        headers: Vec<(String, String)>,
    ) -> Result<(), S3Error> {
        self.send_for(op, request, headers).await.map(|_| ())
    }

    /// Sends `body` and reads the answer's body whole (small XML documents); S3 may answer
    /// a completion 200 with an error inside, which counts as the refusal it is.
    async fn send_body(
        &self,
        op: &'static str,
        request: reqwest::RequestBuilder,
        headers: Vec<(String, String)>,
        body: Bytes,
    ) -> Result<String, S3Error> {
        let response = self.send_for(op, request.body(body), headers).await?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(|e| S3Error::Unreachable {
            op,
            endpoint: crate::redact::url(&self.endpoint),
            reason: crate::redact::http_error(e, &self.endpoint),
        })?;
        if text.contains("<Error>") {
            return Err(self.refused(op, status, error_code(&text)));
        }
        Ok(text)
    }

    /// The answer of a request that the endpoint accepted (2xx); any other is `Refused`.
    async fn send_for(
        &self,
        op: &'static str,
        mut request: reqwest::RequestBuilder,
        headers: Vec<(String, String)>,
    ) -> Result<reqwest::Response, S3Error> {
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response = request.send().await.map_err(|e| S3Error::Unreachable {
            op,
            endpoint: crate::redact::url(&self.endpoint),
            reason: crate::redact::http_error(e, &self.endpoint),
        })?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let text = response.text().await.unwrap_or_default();
        Err(self.refused(op, status.as_u16(), error_code(&text)))
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

/// The process's one HTTP client for S3 endpoints. Requests build their `S3Objects` from
/// the live settings, and a client made per request would read the system's CA
/// certificates again (about half a megabyte) and open new connections every time; this one
/// keeps its connections, to whichever endpoint, between requests.
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

/// Probes `signing.endpoint` while the daemon runs: at start, every `PROBE_EVERY`, and at
/// once when a reload changes the signing settings; a failure is logged when it starts.
pub fn spawn_probe(config: ConfigHandle, shutdown: Shutdown) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut changes = config.subscribe();
        let mut was_down = false;
        loop {
            let settings = config.settings();
            if let Ok(Some(s3)) = S3Objects::from_settings(&settings.signing) {
                match s3.probe().await {
                    Ok(()) => was_down = false,
                    Err(error) if !was_down => {
                        was_down = true;
                        tracing::warn!(%error, "the S3 endpoint does not accept depot's requests");
                    }
                    Err(_) => {}
                }
            }
            tokio::select! {
                () = shutdown.wait() => return,
                () = tokio::time::sleep(PROBE_EVERY) => {}
                changed = changes.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    if changes.borrow_and_update().signing == settings.signing {
                        continue;
                    }
                }
            }
        }
    })
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

#[cfg(test)]
mod tests {
    #[test]
    fn error_code_is_read_from_the_xml_body() {
        assert_eq!(
            super::error_code("<Error><Code>SignatureDoesNotMatch</Code></Error>"),
            "SignatureDoesNotMatch"
        );
        assert_eq!(super::error_code("not xml"), "");
    }
}
