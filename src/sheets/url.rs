//! A CSV sheet at an `http(s)://` URL, such as a Google sheet published to the web as CSV.
//! Each fetch is conditional (`If-None-Match` / `If-Modified-Since` with the validators of
//! the last answer that was converted and stored), so an unchanged sheet costs one small
//! request and no conversion.

use super::{Fetched, SourceError};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum UrlSheetError {
    #[error("{url} did not answer within {secs} s (google.timeout_secs); will retry")]
    Timeout { url: String, secs: u64 },
    #[error("cannot reach {url}: {reason}; will retry")]
    Connection { url: String, reason: String },
    #[error("{url} answered {status}{hint}")]
    Status {
        url: String,
        status: u16,
        hint: &'static str,
    },
    #[error(
        "{url} answered with {content_type}, not CSV: publish the sheet as CSV (File > Share > \
         Publish to web > Comma-separated values) and use that link"
    )]
    NotCsv { url: String, content_type: String },
    #[error("cannot set up the HTTP client: {0}")]
    Client(String),
}

/// The validators of the last answer, and whether its content reached the store.
#[derive(Debug, Default, Clone)]
struct Validators {
    etag: Option<String>,
    last_modified: Option<String>,
}

pub struct UrlSheet {
    url: String,
    /// The URL as shown in messages and logs (`redact::url`): a query may hold a token.
    shown: String,
    timeout_secs: u64,
    /// What the CSV may take once read (`limits.input_memory_bytes`): a body past it is
    /// refused as it arrives.
    memory: crate::memory_budget::Budget,
    http: reqwest::Client,
    /// Sent with the next fetch; cleared when a fetched sheet was not stored, so that the
    /// next fetch reads it whole again.
    validators: Mutex<Validators>,
}

impl UrlSheet {
    pub fn new(
        url: &str,
        timeout_secs: u64,
        memory: crate::memory_budget::Budget,
    ) -> Result<UrlSheet, UrlSheetError> {
        let http = super::http_client(Duration::from_secs(timeout_secs))
            .map_err(|e| UrlSheetError::Client(e.to_string()))?;
        Ok(UrlSheet {
            url: url.to_owned(),
            shown: crate::redact::url(url),
            timeout_secs,
            memory,
            http,
            validators: Mutex::new(Validators::default()),
        })
    }

    pub fn describe(&self) -> String {
        format!("CSV at {}", self.shown)
    }

    /// Forgets the validators, so that the next fetch is unconditional.
    pub fn forget(&self) {
        *self.lock() = Validators::default();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Validators> {
        self.validators
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub async fn fetch(&self) -> Result<Fetched, SourceError> {
        let known = self.lock().clone();
        let mut request = self.http.get(&self.url);
        if let Some(etag) = &known.etag {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        if let Some(date) = &known.last_modified {
            request = request.header(reqwest::header::IF_MODIFIED_SINCE, date);
        }
        let mut response = request.send().await.map_err(|e| self.transport(e))?;
        let status = response.status().as_u16();
        if status == 304 {
            return Ok(Fetched::Unchanged);
        }
        if !(200..300).contains(&status) {
            return Err(UrlSheetError::Status {
                url: self.shown.clone(),
                status,
                hint: match status {
                    401 | 403 => ": the sheet is not public; publish it to the web as CSV",
                    404 => ": no sheet at that link; check producer.source",
                    429 | 500.. => "; will retry",
                    _ => "",
                },
            }
            .into());
        }
        let header = |name: reqwest::header::HeaderName| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let fresh = Validators {
            etag: header(reqwest::header::ETAG),
            last_modified: header(reqwest::header::LAST_MODIFIED),
        };
        // An HTML page (a login wall, an "open in Sheets" page) is not a sheet to convert.
        if let Some(content_type) = header(reqwest::header::CONTENT_TYPE)
            && content_type.to_ascii_lowercase().starts_with("text/html")
        {
            return Err(UrlSheetError::NotCsv {
                url: self.shown.clone(),
                content_type,
            }
            .into());
        }
        let csv = crate::memory_budget::Input::Csv;
        if let Some(length) = response.content_length() {
            self.memory.admit_file(&self.shown, length, csv, 0)?;
        }
        let largest = self.memory.largest(csv);
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| self.transport(e))? {
            body.extend_from_slice(&chunk);
            if body.len() as u64 > largest {
                self.memory
                    .admit_file(&self.shown, body.len() as u64, csv, 0)?;
            }
        }
        let shown = self.shown.clone();
        let grid = tokio::task::spawn_blocking(move || super::local::csv_bytes_grid(&body, &shown))
            .await
            .map_err(|e| SourceError::Task(e.to_string()))??;
        *self.lock() = fresh;
        Ok(Fetched::Grid(grid))
    }

    fn transport(&self, error: reqwest::Error) -> SourceError {
        if error.is_timeout() {
            UrlSheetError::Timeout {
                url: self.shown.clone(),
                secs: self.timeout_secs,
            }
        } else {
            UrlSheetError::Connection {
                url: self.shown.clone(),
                reason: crate::redact::http_error(error, &self.url),
            }
        }
        .into()
    }
}
