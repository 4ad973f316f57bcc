//! A web server for a sheet published as CSV, over real HTTP on loopback: it answers
//! `If-None-Match` / `If-Modified-Since` with 304 as Google's published links and any
//! static host do, counts what it was asked, and can be told to fail.
#![allow(
    dead_code,
    reason = "each test crate uses only some of the shared helpers"
)]

use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::oneshot;
use warp::Filter;
use warp::http::{HeaderMap, Response, StatusCode};

/// What the server sends for the sheet's validators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validators {
    ETag,
    LastModified,
}

#[derive(Default)]
struct Inner {
    csv: String,
    /// Bumped by every change: the ETag and the Last-Modified date follow it.
    generation: u64,
    failing: Option<u16>,
    requests: usize,
    not_modified: usize,
}

pub struct CsvServer {
    inner: Arc<Mutex<Inner>>,
    pub url: String,
    stop: Option<oneshot::Sender<()>>,
}

impl CsvServer {
    pub async fn start(csv: &str, validators: Validators) -> CsvServer {
        let inner = Arc::new(Mutex::new(Inner {
            csv: csv.to_owned(),
            generation: 1,
            ..Inner::default()
        }));
        let state = inner.clone();
        let route = warp::path!("pub" / "sheet.csv")
            .and(warp::header::headers_cloned())
            .map(move |headers: HeaderMap| {
                warp::Reply::into_response(answer(&state, &headers, validators))
            })
            .boxed();
        let (addr, stop) = super::serve_on_loopback(route).await;
        CsvServer {
            inner,
            url: format!("http://{addr}/pub/sheet.csv?output=csv"),
            stop: Some(stop),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn set_csv(&self, csv: &str) {
        let mut inner = self.lock();
        inner.csv = csv.to_owned();
        inner.generation += 1;
    }

    /// Answers every request with `status` until `recover`.
    pub fn fail_with(&self, status: u16) {
        self.lock().failing = Some(status);
    }

    pub fn recover(&self) {
        self.lock().failing = None;
    }

    pub fn requests(&self) -> usize {
        self.lock().requests
    }

    pub fn not_modified(&self) -> usize {
        self.lock().not_modified
    }
}

impl Drop for CsvServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

fn answer(state: &Mutex<Inner>, headers: &HeaderMap, validators: Validators) -> Response<String> {
    let mut inner = state.lock().unwrap_or_else(PoisonError::into_inner);
    inner.requests += 1;
    if let Some(status) = inner.failing {
        return Response::builder()
            .status(status)
            .body("the sheet host is down".to_owned())
            .unwrap();
    }
    let etag = format!("\"sheet-{}\"", inner.generation);
    // One day apart per generation, so dates never collide within a second.
    let modified = httpdate(inner.generation);
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let unchanged = match validators {
        Validators::ETag => header("if-none-match") == Some(etag.as_str()),
        Validators::LastModified => header("if-modified-since") == Some(modified.as_str()),
    };
    if unchanged {
        inner.not_modified += 1;
        return Response::builder()
            .status(StatusCode::NOT_MODIFIED)
            .body(String::new())
            .unwrap();
    }
    let builder = Response::builder().header("content-type", "text/csv; charset=utf-8");
    let builder = match validators {
        Validators::ETag => builder.header("etag", etag),
        Validators::LastModified => builder.header("last-modified", modified),
    };
    builder.body(inner.csv.clone()).unwrap()
}

/// An HTTP date `generation` days after 2026-01-01.
fn httpdate(generation: u64) -> String {
    let day = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()
        + chrono::Duration::days(generation as i64);
    day.format("%a, %d %b %Y 00:00:00 GMT").to_string()
}
