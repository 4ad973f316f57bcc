//! The verifying side: checks a signed request for the embedded object store (one access
//! key, any region in the credential scope), signed in the query (a presigned URL) or in
//! the `Authorization` header (an S3 client with the store's credentials), and says why it
//! refuses one.

use chrono::{DateTime, TimeDelta, Utc};
use hmac::Mac;

use super::canonical::{
    KeyCache, canonical_header_value, canonical_path, canonical_request_hash, string_to_sign_mac,
};
use super::date::AmzDate;
use super::header_auth::HeaderAuth;
use super::query::{ParsedQuery, echo};
use super::{Credentials, UNSIGNED_PAYLOAD, VerifyError};
use crate::secret::Secret;

/// How far the time of a header-signed request may be from the store's, either way (S3's
/// `RequestTimeTooSkewed` limit).
pub const MAX_REQUEST_SKEW: TimeDelta = TimeDelta::minutes(15);

/// A presigned GET or HEAD as the embedded store received it: `path` and `query` raw (still
/// percent-encoded, query without the `?`), `host` the `Host` header value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresignedRequest<'a> {
    pub method: &'a str,
    pub host: &'a str,
    pub path: &'a str,
    pub query: &'a str,
}

/// Any request as the embedded store received it: `path` and `query` raw, `headers` with
/// lower-case names as sent (a name may repeat).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IncomingRequest<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub headers: &'a [(&'a str, &'a str)],
}

/// What a valid signature says of the body, for the store to hold the body to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// Not signed (`UNSIGNED-PAYLOAD`, and every presigned URL).
    Unsigned,
    /// `x-amz-content-sha256` named the body's SHA-256: the store must compare.
    Sha256([u8; 32]),
    /// `STREAMING-…`: the body is in aws-chunked framing.
    Streaming,
}

/// Checks requests signed with one access key (the embedded store's). Any region in the
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

    /// A presigned GET/HEAD, whose only header the store hands over is `host`.
    pub fn verify(
        &self,
        request: &PresignedRequest<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), VerifyError> {
        let headers = [("host", request.host)];
        self.verify_request(
            &IncomingRequest {
                method: request.method,
                path: request.path,
                query: request.query,
                headers: &headers,
            },
            now,
        )
        .map(|_| ())
    }

    /// Any request: signed in the `Authorization` header when it has one, else in the
    /// query (a request with neither is anonymous).
    pub fn verify_request(
        &self,
        request: &IncomingRequest<'_>,
        now: DateTime<Utc>,
    ) -> Result<Payload, VerifyError> {
        let query = ParsedQuery::parse(request.query)?;
        if let Some(authorization) = header(request.headers, "authorization") {
            if !query.is_anonymous() {
                return Err(VerifyError::QueryParameters(
                    "a request is signed in the Authorization header or in the query, not both"
                        .into(),
                ));
            }
            return self.verify_header_signed(request, authorization, &query, now);
        }
        if query.is_anonymous() {
            return Err(VerifyError::Anonymous);
        }
        let auth = query.auth()?;
        self.check_key(&auth.access_key_id)?;
        let signed_at = auth.date.time();
        if signed_at > now + self.max_clock_skew {
            return Err(VerifyError::NotYetValid);
        }
        // `expires` is at most 7 days, far from overflowing.
        if now >= signed_at + TimeDelta::seconds(auth.expires_secs as i64) {
            return Err(VerifyError::Expired);
        }
        let signed = Signed {
            date: &auth.date,
            region: &auth.region,
            signed_headers: &auth.signed_headers,
            signature: &auth.signature,
        };
        self.check_signature(request, &query, &signed, UNSIGNED_PAYLOAD)?;
        Ok(Payload::Unsigned)
    }

    fn verify_header_signed(
        &self,
        request: &IncomingRequest<'_>,
        authorization: &str,
        query: &ParsedQuery,
        now: DateTime<Utc>,
    ) -> Result<Payload, VerifyError> {
        let auth = HeaderAuth::parse(authorization, header(request.headers, "x-amz-date"))?;
        self.check_key(&auth.access_key_id)?;
        let signed_at = auth.date.time();
        if signed_at > now + MAX_REQUEST_SKEW || signed_at + MAX_REQUEST_SKEW < now {
            return Err(VerifyError::TimeTooSkewed);
        }
        let claim = header(request.headers, "x-amz-content-sha256")
            .map(str::trim)
            .ok_or(VerifyError::MissingContentSha256)?;
        let payload = payload_of(claim)?;
        let signed = Signed {
            date: &auth.date,
            region: &auth.region,
            signed_headers: &auth.signed_headers,
            signature: &auth.signature,
        };
        self.check_signature(request, query, &signed, claim)?;
        Ok(payload)
    }

    fn check_key(&self, access_key_id: &str) -> Result<(), VerifyError> {
        if access_key_id == self.access_key_id {
            Ok(())
        } else {
            Err(VerifyError::UnknownAccessKey(echo(access_key_id)))
        }
    }

    /// The canonical request rebuilt from what arrived, hashed, and its signature compared
    /// in constant time.
    fn check_signature(
        &self,
        request: &IncomingRequest<'_>,
        query: &ParsedQuery,
        signed: &Signed<'_>,
        payload: &str,
    ) -> Result<(), VerifyError> {
        // Decoding then re-encoding every segment makes `~` and `%7E`, or `%c3` and `%C3`,
        // the same path, as the signer wrote it.
        let mut path = String::with_capacity(request.path.len() + 16);
        canonical_path(request.path, &mut path)?;
        let values: Vec<String> = signed
            .signed_headers
            .iter()
            .map(|name| joined_values(request.headers, name))
            .collect::<Option<_>>()
            // A signed header that did not come cannot have been signed with this value.
            .ok_or(VerifyError::SignatureMismatch)?;
        let headers: Vec<(&str, &str)> = signed
            .signed_headers
            .iter()
            .zip(&values)
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let request_hash =
            canonical_request_hash(request.method, &path, &query.canonical(), &headers, payload);
        let mac = self.keys.signing_mac(
            self.secret_access_key.expose(),
            signed.date.date(),
            signed.region,
        );
        let mac = string_to_sign_mac(mac, signed.date, signed.region, &request_hash);
        mac.verify_slice(signed.signature)
            .map_err(|_| VerifyError::SignatureMismatch)
    }
}

/// What the two ways of signing share once parsed.
struct Signed<'a> {
    date: &'a AmzDate,
    region: &'a str,
    signed_headers: &'a [String],
    signature: &'a [u8; 32],
}

/// The first value of header `name`.
fn header<'a>(headers: &[(&str, &'a str)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// Every value of header `name`, each in canonical form, joined with `,` (SigV4's rule for
/// a repeated header); `None` when the request has none.
fn joined_values(headers: &[(&str, &str)], name: &str) -> Option<String> {
    let mut values = headers
        .iter()
        .filter(|(n, _)| *n == name)
        .map(|(_, v)| canonical_header_value(v))
        .peekable();
    values.peek()?;
    Some(values.collect::<Vec<_>>().join(","))
}

/// The `x-amz-content-sha256` claim: unsigned, streaming, or a body hash.
fn payload_of(claim: &str) -> Result<Payload, VerifyError> {
    if claim == UNSIGNED_PAYLOAD {
        return Ok(Payload::Unsigned);
    }
    if claim.starts_with("STREAMING-") {
        return Ok(Payload::Streaming);
    }
    crate::hex::decode(claim)
        .map(Payload::Sha256)
        .ok_or_else(|| VerifyError::ContentSha256(echo(claim)))
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
