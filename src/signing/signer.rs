//! The signing side: presigned URLs (query-string authentication, `UNSIGNED-PAYLOAD`, only
//! `host` signed) and requests signed in their `Authorization` header. One `Signer` per
//! configuration (credentials, target) keeps the day's derived key.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use hmac::Mac;

use super::canonical::{
    KeyCache, canonical_query, canonical_request_hash, encode_into, string_to_sign_mac,
};
use super::date::AmzDate;
use super::endpoint::{Endpoint, ObjectUrl, check_region};
use super::query::AUTH_PARAMS;
use super::{
    ALGORITHM, Addressing, Credentials, MAX_EXPIRES_SECS, MIN_EXPIRES_SECS, SigningError,
    SigningTarget, TERMINATOR, UNSIGNED_PAYLOAD,
};
use crate::secret::Secret;

/// Makes presigned GET URLs. Holds the derived signing key of the current day, so build one
/// per configuration (credentials, target) and share it; `presign_get` takes `&self`.
#[derive(Debug)]
pub struct Signer {
    endpoint: Endpoint,
    addressing: Addressing,
    region: String,
    credentials: Credentials,
    keys: KeyCache,
}

/// A request signed in its `Authorization` header: send `headers` with it as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedRequest {
    pub url: String,
    /// Lower-case names: `authorization`, `x-amz-content-sha256`, `x-amz-date`, and
    /// `x-amz-security-token` with temporary credentials (`host` is the URL's).
    pub headers: Vec<(String, String)>,
}

impl Signer {
    pub fn new(target: SigningTarget, credentials: Credentials) -> Result<Signer, SigningError> {
        let endpoint = Endpoint::parse(&target.endpoint)?;
        if target.addressing == Addressing::VirtualHost && endpoint.is_ip {
            return Err(SigningError::Endpoint {
                endpoint: crate::redact::url(&target.endpoint),
                reason: "virtual-host addressing needs a host name, not an IP address",
            });
        }
        check_region(&target.region).map_err(|()| SigningError::Region(target.region.clone()))?;
        if !is_valid_access_key_id(&credentials.access_key_id) {
            return Err(SigningError::AccessKeyId(credentials.access_key_id));
        }
        if credentials.secret_access_key.is_empty() {
            return Err(SigningError::EmptySecret);
        }
        Ok(Signer {
            endpoint,
            addressing: target.addressing,
            region: target.region,
            credentials,
            keys: KeyCache::default(),
        })
    }

    /// A URL that lets its holder GET `bucket`/`key` for `expires_secs` seconds from `now`:
    /// byte for byte what botocore's `generate_presigned_url('get_object', ...)` makes.
    pub fn presign_get(
        &self,
        bucket: &str,
        key: &str,
        expires_secs: u64,
        now: DateTime<Utc>,
    ) -> Result<String, SigningError> {
        self.presign("GET", bucket, key, expires_secs, now, &[])
    }

    /// `presign_get` with extra signed query parameters (`response-content-disposition`,
    /// ...), `(name, value)` unencoded. As botocore does, they come first in the URL, in the
    /// order given, before the `X-Amz-*` ones; the signature covers them in sorted order.
    pub fn presign_get_with(
        &self,
        bucket: &str,
        key: &str,
        expires_secs: u64,
        now: DateTime<Utc>,
        params: &[(&str, &str)],
    ) -> Result<String, SigningError> {
        self.presign("GET", bucket, key, expires_secs, now, params)
    }

    /// A presigned URL for `method`, signing `host` alone and an unsigned payload.
    fn presign(
        &self,
        method: &str,
        bucket: &str,
        key: &str,
        expires_secs: u64,
        now: DateTime<Utc>,
        params: &[(&str, &str)],
    ) -> Result<String, SigningError> {
        if !(MIN_EXPIRES_SECS..=MAX_EXPIRES_SECS).contains(&expires_secs) {
            return Err(SigningError::Expiry(expires_secs));
        }
        let token = self.credentials.session_token.as_ref().map(Secret::expose);
        let extra = 256
            + self.credentials.access_key_id.len()
            + token.map_or(0, |t| 3 * t.len())
            + params
                .iter()
                .map(|(n, v)| 3 * (n.len() + v.len()) + 2)
                .sum::<usize>();
        let ObjectUrl {
            mut url,
            host_start,
            path_start,
        } = self
            .endpoint
            .object_url(self.addressing, bucket, key, extra)?;
        if let Some((name, _)) = params.iter().find(|(name, _)| AUTH_PARAMS.contains(name)) {
            return Err(SigningError::ReservedParam((*name).to_owned()));
        }
        let stamp = AmzDate::from_time(now).ok_or(SigningError::Time(now))?;
        let path_end = url.len();
        url.push('?');
        for (name, value) in params {
            encode_into(&mut url, name.as_bytes(), false);
            url.push('=');
            encode_into(&mut url, value.as_bytes(), false);
            url.push('&');
        }
        let auth_start = url.len();
        // Written in canonical (sorted) order, so without extra parameters the query
        // doubles as the canonical query.
        url.push_str("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=");
        encode_into(&mut url, self.credentials.access_key_id.as_bytes(), false);
        url.push_str("%2F");
        url.push_str(stamp.date());
        url.push_str("%2F");
        encode_into(&mut url, self.region.as_bytes(), false);
        url.push_str("%2Fs3%2Faws4_request&X-Amz-Date=");
        url.push_str(stamp.as_str());
        url.push_str("&X-Amz-Expires=");
        let _ = write!(url, "{expires_secs}");
        if let Some(token) = token {
            url.push_str("&X-Amz-Security-Token=");
            encode_into(&mut url, token.as_bytes(), false);
        }
        url.push_str("&X-Amz-SignedHeaders=host");
        let query_end = url.len();

        let sorted;
        let canonical = if params.is_empty() {
            &url[auth_start..query_end]
        } else {
            sorted = canonical_query(
                url[path_end + 1..query_end]
                    .split('&')
                    .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
                    .collect(),
            );
            sorted.as_str()
        };
        let request_hash = canonical_request_hash(
            method,
            &url[path_start..path_end],
            canonical,
            &[("host", &url[host_start..path_start])],
            UNSIGNED_PAYLOAD,
        );
        let signature = self.signature(&stamp, &request_hash);
        url.push_str("&X-Amz-Signature=");
        crate::hex::push(&mut url, &signature);
        Ok(url)
    }

    /// Signs `method` on `bucket`/`key` (no query) in the `Authorization` header, as S3's
    /// PUT/DELETE object calls are. `payload_sha256` is the hex SHA-256 of the body, or
    /// `UNSIGNED_PAYLOAD` for a streamed one. `extra_headers` (lower-case names, values as
    /// sent) are signed too; the caller sends them.
    pub fn sign_headers(
        &self,
        method: &str,
        bucket: &str,
        key: &str,
        now: DateTime<Utc>,
        payload_sha256: &str,
        extra_headers: &[(&str, &str)],
    ) -> Result<SignedRequest, SigningError> {
        let ObjectUrl {
            url,
            host_start,
            path_start,
        } = self.endpoint.object_url(self.addressing, bucket, key, 0)?;
        let stamp = AmzDate::from_time(now).ok_or(SigningError::Time(now))?;
        let mut headers: Vec<(String, String)> = vec![
            ("host".to_owned(), url[host_start..path_start].to_owned()),
            ("x-amz-content-sha256".to_owned(), payload_sha256.to_owned()),
            ("x-amz-date".to_owned(), stamp.as_str().to_owned()),
        ];
        if let Some(token) = &self.credentials.session_token {
            headers.push(("x-amz-security-token".to_owned(), token.expose().to_owned()));
        }
        headers.extend(
            extra_headers
                .iter()
                .map(|(n, v)| (n.to_ascii_lowercase(), (*v).trim().to_owned())),
        );
        headers.sort();
        let signed: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let request_hash =
            canonical_request_hash(method, &url[path_start..], "", &signed, payload_sha256);
        let signed_names = signed.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(";");
        let signature = self.signature(&stamp, &request_hash);
        let authorization = format!(
            "{ALGORITHM} Credential={}/{}/{}/s3/{TERMINATOR},SignedHeaders={signed_names},Signature={}",
            self.credentials.access_key_id,
            stamp.date(),
            self.region,
            crate::hex::encode(&signature)
        );
        headers.retain(|(n, _)| n != "host");
        headers.push(("authorization".to_owned(), authorization));
        Ok(SignedRequest { url, headers })
    }

    /// The signature of a canonical request signed at `stamp`, with the day's key.
    fn signature(&self, stamp: &AmzDate, request_hash: &str) -> [u8; 32] {
        let mac = self.keys.signing_mac(
            self.credentials.secret_access_key.expose(),
            stamp.date(),
            &self.region,
        );
        string_to_sign_mac(mac, stamp, &self.region, request_hash)
            .finalize()
            .into_bytes()
            .into()
    }
}

fn is_valid_access_key_id(id: &str) -> bool {
    !id.is_empty()
        && !id
            .chars()
            .any(|c| c == '/' || c.is_whitespace() || c.is_control())
}

/// One-off form of `Signer::presign_get`; a long-lived `Signer` reuses the derived key.
pub fn presign_get(
    target: &SigningTarget,
    credentials: &Credentials,
    bucket: &str,
    key: &str,
    expires_secs: u64,
    now: DateTime<Utc>,
) -> Result<String, SigningError> {
    Signer::new(target.clone(), credentials.clone())?.presign_get(bucket, key, expires_secs, now)
}
