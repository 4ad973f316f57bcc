//! The signing side: presigned URLs (query-string authentication, `UNSIGNED-PAYLOAD`;
//! `host` signed, and for writes the headers that bind the body: `content-length`,
//! `content-type`, `x-amz-checksum-sha256`) and requests signed in their `Authorization`
//! header. One `Signer` per configuration (credentials, target) keeps the day's derived key.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use hmac::Mac;

use super::canonical::{
    KeyCache, canonical_header_value, canonical_query, canonical_request_hash, encode_into,
    string_to_sign_mac,
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
        self.presign("GET", bucket, key, expires_secs, now, &[], &[])
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
        self.presign("GET", bucket, key, expires_secs, now, params, &[])
    }

    /// A presigned URL for `method` (a PUT of an object, an UploadPart with `uploadId` and
    /// `partNumber` in `params`) that also signs `headers` (`(name, value)`, any case): the
    /// request must carry each with exactly this value. Byte for byte what botocore's
    /// `generate_presigned_url` makes for the same inputs (`ContentLength`, `ContentType`,
    /// `ChecksumSHA256` become signed headers there too).
    #[expect(
        clippy::too_many_arguments,
        reason = "the inputs of one SigV4 presign, each distinct; a struct would only rename them"
    )]
    pub fn presign_with_headers(
        &self,
        method: &str,
        bucket: &str,
        key: &str,
        expires_secs: u64,
        now: DateTime<Utc>,
        params: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Result<String, SigningError> {
        self.presign(method, bucket, key, expires_secs, now, params, headers)
    }

    /// A presigned URL for `method`: `host` and `headers` signed, the payload unsigned.
    #[expect(
        clippy::too_many_arguments,
        reason = "the inputs of one SigV4 presign, each distinct; a struct would only rename them"
    )]
    fn presign(
        &self,
        method: &str,
        bucket: &str,
        key: &str,
        expires_secs: u64,
        now: DateTime<Utc>,
        params: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Result<String, SigningError> {
        if !(MIN_EXPIRES_SECS..=MAX_EXPIRES_SECS).contains(&expires_secs) {
            return Err(SigningError::Expiry(expires_secs));
        }
        let mut signed_headers = signable(headers)?;
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
        signed_headers.push(("host".to_owned(), url[host_start..path_start].to_owned()));
        signed_headers.sort();
        url.push_str("&X-Amz-SignedHeaders=");
        for (i, (name, _)) in signed_headers.iter().enumerate() {
            if i > 0 {
                url.push_str("%3B");
            }
            url.push_str(name);
        }
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
        let headers: Vec<(&str, &str)> = signed_headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let request_hash = canonical_request_hash(
            method,
            &url[path_start..path_end],
            canonical,
            &headers,
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
        self.sign_request(method, bucket, key, &[], now, payload_sha256, extra_headers)
    }

    /// `sign_headers` for a call with a query (`?uploads`, `?uploadId=…`, `(name, value)`
    /// unencoded, written in this order; an empty value is written `name=`).
    #[expect(
        clippy::too_many_arguments,
        reason = "the inputs of one SigV4 signature, each distinct; a struct would only rename them"
    )]
    pub fn sign_request(
        &self,
        method: &str,
        bucket: &str,
        key: &str,
        query: &[(&str, &str)],
        now: DateTime<Utc>,
        payload_sha256: &str,
        extra_headers: &[(&str, &str)],
    ) -> Result<SignedRequest, SigningError> {
        let ObjectUrl {
            mut url,
            host_start,
            path_start,
        } = self.endpoint.object_url(self.addressing, bucket, key, 0)?;
        let path_end = url.len();
        let mut pairs = Vec::with_capacity(query.len());
        for (i, (name, value)) in query.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            let (mut n, mut v) = (String::new(), String::new());
            encode_into(&mut n, name.as_bytes(), false);
            encode_into(&mut v, value.as_bytes(), false);
            url.push_str(&n);
            url.push('=');
            url.push_str(&v);
            pairs.push((n, v));
        }
        let canonical = canonical_query(
            pairs
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .collect(),
        );
        let stamp = AmzDate::from_time(now).ok_or(SigningError::Time(now))?;
        let mut headers: Vec<(String, String)> = vec![
            ("host".to_owned(), url[host_start..path_start].to_owned()),
            ("x-amz-content-sha256".to_owned(), payload_sha256.to_owned()),
            ("x-amz-date".to_owned(), stamp.as_str().to_owned()),
        ];
        if let Some(token) = &self.credentials.session_token {
            headers.push(("x-amz-security-token".to_owned(), token.expose().to_owned()));
        }
        headers.extend(signable(extra_headers)?);
        headers.sort();
        let signed: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let request_hash = canonical_request_hash(
            method,
            &url[path_start..path_end],
            &canonical,
            &signed,
            payload_sha256,
        );
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

/// Headers to sign besides `host`: names lower-cased and checked (letters, digits, `-`;
/// never `host`, which the URL gives), values in canonical form.
fn signable(headers: &[(&str, &str)]) -> Result<Vec<(String, String)>, SigningError> {
    headers
        .iter()
        .map(|(name, value)| {
            let name = name.to_ascii_lowercase();
            let name_ok = !name.is_empty()
                && name != "host"
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !name_ok || value.chars().any(|c| c.is_control() && c != '\t') {
                return Err(SigningError::Header(name));
            }
            Ok((name, canonical_header_value(value)))
        })
        .collect()
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
