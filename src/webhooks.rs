//! Webhooks: every new translations version (and every move of a channel, SPEC §14) is
//! announced to each URL of `webhooks.urls` with a JSON `POST` signed the way Stripe-style
//! receivers verify (SPEC §8):
//! `Depot-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
//! A failed delivery is tried again with backoff, 5 tries within about a minute; the last
//! delivery per URL is kept for `/health`. The producer that stored the version announces
//! it, so a version is announced once however many nodes run.

use crate::config::ConfigHandle;
use crate::redact;
use crate::secret::Secret;
use crate::translations::channels::book::Move;
use crate::translations::versions::VersionSummary;
use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use serde::Serialize;
use sha2::Sha256;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The header that carries the signature.
pub const SIGNATURE_HEADER: &str = "Depot-Signature";
/// The event name in every body.
pub const EVENT: &str = "translations.published";
/// Waits before the 2nd, 3rd, 4th and 5th try: with the tries' own time limits, every
/// delivery has ended within about a minute.
const RETRY_AFTER: [Duration; 4] = [
    Duration::from_secs(2),
    Duration::from_secs(4),
    Duration::from_secs(8),
    Duration::from_secs(16),
];
/// One try's time limit: a receiver should answer at once and work afterwards.
const TRY_TIMEOUT: Duration = Duration::from_secs(5);
/// Receiver texts kept in `/health` are cut to this many characters.
const QUOTE_LIMIT: usize = 200;

/// The body of a delivery.
#[derive(Serialize)]
struct Body<'a> {
    event: &'static str,
    #[serde(flatten)]
    summary: &'a VersionSummary,
}

/// The body of a channel's move.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MoveBody<'a> {
    event: &'static str,
    channel: &'a str,
    version: &'a str,
    previous_version: Option<&'a str>,
    #[serde(with = "crate::time::millis")]
    at: DateTime<Utc>,
    by: &'a str,
}

/// How the last delivery to one URL went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    /// The URL as `redact::url` shows it: its path, query and credentials often carry the
    /// receiver's token.
    pub url: String,
    pub version: String,
    /// When the last try was made.
    #[serde(with = "crate::time::millis")]
    pub at: DateTime<Utc>,
    pub attempts: u32,
    pub delivered: bool,
    /// The receiver's HTTP status of the last try, when it answered.
    pub status: Option<u16>,
    pub error: Option<String>,
}

pub struct Announcer {
    config: ConfigHandle,
    http: reqwest::Client,
    /// Keyed by the full URL (never shown).
    last: Mutex<BTreeMap<String, Delivery>>,
    running: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl Announcer {
    pub fn new(config: ConfigHandle) -> Announcer {
        // Building a client without a custom TLS root or proxy setting does not fail; if
        // it ever did, deliveries would report the default client's errors.
        let http = crate::sheets::http_client(TRY_TIMEOUT).unwrap_or_default();
        Announcer {
            config,
            http,
            last: Mutex::new(BTreeMap::new()),
            running: Mutex::new(Vec::new()),
        }
    }

    /// Sends `summary` to every configured URL in the background.
    pub fn announce(self: &Arc<Self>, summary: &VersionSummary) {
        let body = serde_json::to_vec(&Body {
            event: EVENT,
            summary,
        });
        self.send_all(body, &summary.version);
    }

    /// Sends a channel's move (SPEC §14) to every configured URL in the background:
    /// `{"event": "channel.published" | "channel.rolledback", "channel", "version",
    /// "previousVersion", "at", "by"}`, signed as every delivery.
    pub fn announce_move(self: &Arc<Self>, channel: &str, moved: &Move) {
        let body = serde_json::to_vec(&MoveBody {
            event: moved.kind.event(),
            channel,
            version: &moved.to,
            previous_version: moved.from.as_deref(),
            at: moved.at,
            by: &moved.by,
        });
        self.send_all(body, &moved.to);
    }

    fn send_all(self: &Arc<Self>, body: serde_json::Result<Vec<u8>>, version: &str) {
        let settings = self.config.settings();
        let hooks = &settings.webhooks;
        if hooks.urls.is_empty() {
            return;
        }
        let body = match body {
            Ok(body) => body,
            Err(e) => {
                tracing::error!(error = %e, "the webhook body cannot be written");
                return;
            }
        };
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running.retain(|task| !task.is_finished());
        for url in &hooks.urls {
            let this = self.clone();
            let (url, secret, body) = (url.clone(), hooks.secret.clone(), body.clone());
            let version = version.to_owned();
            running.push(tokio::spawn(async move {
                this.deliver(url, secret, body, version).await;
            }));
        }
    }

    /// How the last delivery to each configured URL went, in configuration order.
    pub fn deliveries(&self) -> Vec<Delivery> {
        let settings = self.config.settings();
        let last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        settings
            .webhooks
            .urls
            .iter()
            .filter_map(|url| last.get(url.expose()).cloned())
            .collect()
    }

    /// Waits until the deliveries under way have ended, at most `limit` (`depot produce
    /// --once` exits only then).
    pub async fn drain(&self, limit: Duration) {
        let tasks: Vec<_> =
            std::mem::take(&mut *self.running.lock().unwrap_or_else(PoisonError::into_inner));
        let all = futures_util::future::join_all(tasks);
        if tokio::time::timeout(limit, all).await.is_err() {
            tracing::warn!("webhook deliveries still under way are abandoned");
        }
    }

    async fn deliver(&self, url: Secret, secret: Secret, body: Vec<u8>, version: String) {
        let shown = redact::url(url.expose());
        for attempt in 1..=(RETRY_AFTER.len() as u32 + 1) {
            let t = Utc::now().timestamp();
            let result = self
                .http
                .post(url.expose())
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .header(SIGNATURE_HEADER, signature_header(&secret, t, &body))
                .body(body.clone())
                .send()
                .await;
            let (status, error) = match result {
                Ok(response) if response.status().is_success() => {
                    (Some(response.status().as_u16()), None)
                }
                Ok(response) => {
                    let status = response.status().as_u16();
                    // A receiver may quote the URL it was called with, token and all.
                    let text =
                        redact::scrub(&response.text().await.unwrap_or_default(), url.expose());
                    let text: String = text.chars().take(QUOTE_LIMIT).collect();
                    (
                        Some(status),
                        Some(format!("the receiver answered {status} {}", text.trim())),
                    )
                }
                Err(e) if e.is_timeout() => (
                    None,
                    Some(format!("no answer within {} s", TRY_TIMEOUT.as_secs())),
                ),
                Err(e) => (None, Some(redact::http_error(e, url.expose()))),
            };
            let delivered = error.is_none();
            self.last
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(
                    url.expose().to_owned(),
                    Delivery {
                        url: shown.clone(),
                        version: version.clone(),
                        at: Utc::now(),
                        attempts: attempt,
                        delivered,
                        status,
                        error: error.clone(),
                    },
                );
            if delivered {
                tracing::info!(url = %shown, %version, attempt, "webhook delivered");
                return;
            }
            let Some(wait) = RETRY_AFTER.get(attempt as usize - 1) else {
                tracing::warn!(url = %shown, %version, error = error.as_deref().unwrap_or(""), "webhook not delivered after {attempt} tries; giving up");
                return;
            };
            tracing::debug!(url = %shown, %version, attempt, error = error.as_deref().unwrap_or(""), "webhook delivery failed; trying again");
            tokio::time::sleep(*wait).await;
        }
    }
}

/// The `Depot-Signature` value for `body` sent at `t` (unix seconds).
pub fn signature_header(secret: &Secret, t: i64, body: &[u8]) -> String {
    format!("t={t},v1={}", crate::hex::encode(&sign(secret, t, body)))
}

fn sign(secret: &Secret, t: i64, body: &[u8]) -> Vec<u8> {
    // HMAC takes keys of any length.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.expose().as_bytes()) else {
        unreachable!("HMAC takes keys of any length")
    };
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_hmac_sha256_of_time_dot_body() {
        // Checked against Python: hmac.new(b"whsec", b"1700000000.{}", "sha256").hexdigest()
        let header = signature_header(&Secret::new("whsec"), 1_700_000_000, b"{}");
        assert_eq!(
            header,
            "t=1700000000,v1=7d44587dddbaf4c7f70fef20f48cd594834ffea1641e3ac227b84408298738af"
        );
    }
}
