//! Request counts and a latency histogram per route, method and status, written in the
//! Prometheus text format.
//!
//! Series are few (routes × statuses), so they live in a map behind a read-mostly lock
//! with atomic counters: recording a request takes a shared lock and a few atomic adds.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

type SeriesKey = (&'static str, &'static str, u16);

#[derive(Default)]
struct Series {
    count: AtomicU64,
    /// Sum of durations in microseconds (integer, so it can be atomic).
    sum_micros: AtomicU64,
    buckets: [AtomicU64; BUCKETS.len()],
}

#[derive(Default, Clone)]
pub struct Metrics {
    series: Arc<RwLock<BTreeMap<SeriesKey, Arc<Series>>>>,
}

impl Metrics {
    pub fn record(&self, route: &'static str, method: &str, status: u16, elapsed: Duration) {
        // A fixed label set keeps the hot path free of allocation and bounds the series
        // a client can create with made-up methods.
        let method = match method {
            "GET" => "GET",
            "HEAD" => "HEAD",
            "POST" => "POST",
            "PUT" => "PUT",
            "DELETE" => "DELETE",
            "PATCH" => "PATCH",
            "OPTIONS" => "OPTIONS",
            _ => "OTHER",
        };
        let key = (route, method, status);
        let found = self
            .series
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        let series = match found {
            Some(series) => series,
            None => self
                .series
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(key)
                .or_default()
                .clone(),
        };
        let seconds = elapsed.as_secs_f64();
        series.count.fetch_add(1, Ordering::Relaxed);
        series
            .sum_micros
            .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
        if let Some(i) = BUCKETS.iter().position(|b| seconds <= *b) {
            series.buckets[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The Prometheus text exposition (version 0.0.4).
    pub fn render(&self) -> String {
        let series = self.series.read().unwrap_or_else(PoisonError::into_inner);
        let mut out = String::with_capacity(256 + series.len() * 1024);
        out.push_str("# HELP depot_http_requests_total HTTP requests answered.\n");
        out.push_str("# TYPE depot_http_requests_total counter\n");
        for ((route, method, status), s) in series.iter() {
            let _ = writeln!(
                out,
                "depot_http_requests_total{{route=\"{route}\",method=\"{method}\",status=\"{status}\"}} {}",
                s.count.load(Ordering::Relaxed)
            );
        }
        out.push_str("# HELP depot_http_request_duration_seconds Time to answer a request.\n");
        out.push_str("# TYPE depot_http_request_duration_seconds histogram\n");
        for ((route, method, status), s) in series.iter() {
            let labels = format!("route=\"{route}\",method=\"{method}\",status=\"{status}\"");
            let mut cumulative = 0;
            for (bound, bucket) in BUCKETS.iter().zip(&s.buckets) {
                cumulative += bucket.load(Ordering::Relaxed);
                let _ = writeln!(
                    out,
                    "depot_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {cumulative}"
                );
            }
            let count = s.count.load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "depot_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {count}"
            );
            let _ = writeln!(
                out,
                "depot_http_request_duration_seconds_sum{{{labels}}} {}",
                s.sum_micros.load(Ordering::Relaxed) as f64 / 1e6
            );
            let _ = writeln!(
                out,
                "depot_http_request_duration_seconds_count{{{labels}}} {count}"
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_buckets_are_cumulative() {
        let m = Metrics::default();
        m.record("/health", "GET", 200, Duration::from_micros(300));
        m.record("/health", "GET", 200, Duration::from_millis(3));
        m.record("unmatched", "GET", 404, Duration::from_millis(20));
        let text = m.render();
        assert!(text.contains(
            "depot_http_requests_total{route=\"/health\",method=\"GET\",status=\"200\"} 2\n"
        ));
        assert!(text.contains("depot_http_request_duration_seconds_bucket{route=\"/health\",method=\"GET\",status=\"200\",le=\"0.0005\"} 1\n"));
        assert!(text.contains("depot_http_request_duration_seconds_bucket{route=\"/health\",method=\"GET\",status=\"200\",le=\"0.005\"} 2\n"));
        assert!(text.contains("depot_http_request_duration_seconds_bucket{route=\"/health\",method=\"GET\",status=\"200\",le=\"+Inf\"} 2\n"));
        assert!(text.contains("depot_http_request_duration_seconds_sum{route=\"/health\",method=\"GET\",status=\"200\"} 0.0033\n"));
        assert!(text.contains("status=\"404\"} 1\n"));
    }
}
