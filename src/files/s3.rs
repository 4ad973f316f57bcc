//! File content at an S3-compatible endpoint (`signing.endpoint`): PUT and DELETE of one
//! object, signed in the `Authorization` header (SigV4, unsigned payload) and streamed
//! from a file. No HTTP server side here.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::io::AsyncReadExt;

use crate::config::settings::Signing;
use crate::signing::{Signer, SigningError, UNSIGNED_PAYLOAD};

/// A stuck endpoint must not hold a request forever; generous, since bodies may be large.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const CHUNK: usize = 256 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum S3Error {
    /// Display names the endpoint's role, not its URL or the cause (logged in `detail`).
    #[error("the S3 object store (signing.endpoint) is unreachable while {op}; try again")]
    Unreachable {
        op: &'static str,
        #[source]
        source: reqwest::Error,
    },
    #[error("the S3 object store refused {op}: HTTP {status} {code}")]
    Refused {
        op: &'static str,
        status: u16,
        code: String,
    },
    #[error(transparent)]
    Signing(#[from] SigningError),
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// The objects at one endpoint with one set of credentials.
#[derive(Clone)]
pub struct S3Objects {
    http: reqwest::Client,
    signer: Arc<Signer>,
}

impl S3Objects {
    /// For `signing.endpoint`; `None` when no endpoint is set.
    pub fn from_settings(signing: &Signing) -> Result<Option<S3Objects>, S3Error> {
        let Some((target, credentials)) = signing.endpoint_signing() else {
            return Ok(None);
        };
        let signer = Signer::new(target, credentials)?;
        crate::tls::install_tls_provider();
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|source| S3Error::Unreachable {
                op: "starting the HTTP client",
                source,
            })?;
        Ok(Some(S3Objects {
            http,
            signer: Arc::new(signer),
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
        self.send(op, self.http.put(&signed.url).body(body), signed.headers)
            .await
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
        self.send(
            "deleting an object",
            self.http.delete(&signed.url),
            signed.headers,
        )
        .await
    }

    async fn send(
        &self,
        op: &'static str,
        mut request: reqwest::RequestBuilder,
        headers: Vec<(String, String)>,
    ) -> Result<(), S3Error> {
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response = request
            .send()
            .await
            .map_err(|source| S3Error::Unreachable { op, source })?;
        let status = response.status();
        if status.is_success() || (op == "deleting an object" && status.as_u16() == 404) {
            return Ok(());
        }
        let text = response.text().await.unwrap_or_default();
        Err(S3Error::Refused {
            op,
            status: status.as_u16(),
            code: error_code(&text),
        })
    }
}

/// The `<Code>` of an S3 XML error body, or empty.
fn error_code(xml: &str) -> String {
    xml.split_once("<Code>")
        .and_then(|(_, rest)| rest.split_once("</Code>"))
        .map(|(code, _)| code.chars().take(64).collect())
        .unwrap_or_default()
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
