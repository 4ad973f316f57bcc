//! The verifying side: checks a presigned request for the embedded object store (one access
//! key, any region in the credential scope) and says why it refuses one.

use chrono::{DateTime, TimeDelta, Utc};
use hmac::Mac;

use super::canonical::{KeyCache, canonical_path, canonical_request_hash, string_to_sign_mac};
use super::query::{ParsedQuery, echo};
use super::{Credentials, UNSIGNED_PAYLOAD, VerifyError};
use crate::secret::Secret;

/// A request as the embedded store received it: `path` and `query` raw (still
/// percent-encoded, query without the `?`), `host` the `Host` header value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresignedRequest<'a> {
    pub method: &'a str,
    pub host: &'a str,
    pub path: &'a str,
    pub query: &'a str,
}

/// Checks presigned URLs made with one access key (the embedded store's). Any region in the
/// credential scope is accepted: the region is only a key-derivation input here.
#[derive(Debug)]
pub struct Verifier {
    access_key_id: String,
    secret_access_key: Secret,
    max_clock_skew: TimeDelta,
    keys: KeyCache,
}

impl Verifier {
    pub fn new(
        access_key_id: impl Into<String>,
        secret_access_key: Secret,
        max_clock_skew: TimeDelta,
    ) -> Verifier {
        Verifier {
            access_key_id: access_key_id.into(),
            secret_access_key,
            max_clock_skew,
            keys: KeyCache::default(),
        }
    }

    pub fn verify(
        &self,
        request: &PresignedRequest<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), VerifyError> {
        let query = ParsedQuery::parse(request.query)?;
        if query.is_anonymous() {
            return Err(VerifyError::Anonymous);
        }
        let auth = query.auth()?;
        if auth.access_key_id != self.access_key_id {
            return Err(VerifyError::UnknownAccessKey(echo(&auth.access_key_id)));
        }
        let signed_at = auth.date.time();
        if signed_at > now + self.max_clock_skew {
            return Err(VerifyError::NotYetValid);
        }
        // `expires` is at most 7 days, far from overflowing.
        if now >= signed_at + TimeDelta::seconds(auth.expires_secs as i64) {
            return Err(VerifyError::Expired);
        }
        // Decoding then re-encoding every segment makes `~` and `%7E`, or `%c3` and `%C3`,
        // the same path, as the signer wrote it.
        let mut path = String::with_capacity(request.path.len() + 16);
        canonical_path(request.path, &mut path)?;
        let request_hash = canonical_request_hash(
            request.method,
            &path,
            &query.canonical(),
            &[("host", request.host.trim())],
            UNSIGNED_PAYLOAD,
        );
        let mac = self.keys.signing_mac(
            self.secret_access_key.expose(),
            auth.date.date(),
            &auth.region,
        );
        let mac = string_to_sign_mac(mac, &auth.date, &auth.region, &request_hash);
        mac.verify_slice(&auth.signature)
            .map_err(|_| VerifyError::SignatureMismatch)
    }
}

/// One-off form of `Verifier::verify` (the session token, if any, is not consulted: a
/// token in the URL is checked only as a signed parameter).
pub fn verify_presigned(
    request: &PresignedRequest<'_>,
    credentials: &Credentials,
    now: DateTime<Utc>,
    max_clock_skew: TimeDelta,
) -> Result<(), VerifyError> {
    Verifier::new(
        credentials.access_key_id.clone(),
        credentials.secret_access_key.clone(),
        max_clock_skew,
    )
    .verify(request, now)
}
