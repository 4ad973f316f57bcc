//! AWS Signature V4 for service `s3`: `Signer` makes the `signedUrl` of `GET /file`
//! (query-string form, `UNSIGNED-PAYLOAD`) and signs object writes in the `Authorization`
//! header (`sign_headers`, for PUT/DELETE at an S3 endpoint); `Verifier` checks presigned
//! URLs for the embedded object store. Pure: time is a parameter.

use std::fmt::{self, Write as _};
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, Datelike, NaiveDate, TimeDelta, Timelike, Utc};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::percent;
use crate::secret::Secret;

type HmacSha256 = Hmac<Sha256>;

/// Shortest and longest validity of a presigned URL, in seconds (SigV4 allows 7 days).
pub const MIN_EXPIRES_SECS: u64 = 1;
pub const MAX_EXPIRES_SECS: u64 = 604_800;
/// How far in the future an `X-Amz-Date` may be before the verifier refuses it.
pub const DEFAULT_MAX_CLOCK_SKEW: TimeDelta = TimeDelta::minutes(5);

const ALGORITHM: &str = "AWS4-HMAC-SHA256";
const TERMINATOR: &str = "aws4_request";
/// Longest piece of a request that an error message echoes back.
const ECHO_MAX_CHARS: usize = 80;

/// How the bucket appears in the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addressing {
    /// `{endpoint}/{bucket}/{key}`: MinIO, Garage, the embedded store.
    Path,
    /// `{scheme}://{bucket}.{host}/{key}`: AWS S3's default.
    VirtualHost,
}

/// Where signed URLs point. `endpoint` is `http(s)://host[:port][/prefix]`; a trailing `/`
/// is ignored and a prefix (a reverse-proxy path, or `/objects` for the embedded store) is
/// kept in front of the bucket and signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningTarget {
    pub endpoint: String,
    pub addressing: Addressing,
    pub region: String,
}

/// An access key. `Debug` shows the key id only: the secrets are `Secret`s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: Secret,
    pub session_token: Option<Secret>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SigningError {
    #[error(
        "signing endpoint must look like http(s)://host[:port][/prefix], got '{endpoint}': {reason}"
    )]
    Endpoint {
        endpoint: String,
        reason: &'static str,
    },
    #[error("signing region must be letters, digits, '-', '_' or '.' (like us-east-1), got '{0}'")]
    Region(String),
    #[error(
        "signing access key id must be non-empty, without '/', spaces or control characters, got '{0}'"
    )]
    AccessKeyId(String),
    #[error("signing secret access key must not be empty")]
    EmptySecret,
    #[error("expiry must be from 1 to 604800 seconds (7 days), got {0}")]
    Expiry(u64),
    #[error("bucket must be non-empty and contain no '/', got '{0}'")]
    Bucket(String),
    #[error("object key must not be empty")]
    EmptyKey,
    #[error("query parameter '{0}' is written by the signer itself and cannot be added")]
    ReservedParam(String),
    #[error("signing time {0} is outside the years 0 to 9999")]
    Time(DateTime<Utc>),
}

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
        self.presign_get_with(bucket, key, expires_secs, now, &[])
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
        } = self.object_url(bucket, key, extra)?;
        if let Some((name, _)) = params.iter().find(|(name, _)| is_auth_param(name)) {
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
        let canonical_query = if params.is_empty() {
            &url[auth_start..query_end]
        } else {
            sorted = sorted_query(&url[path_end + 1..query_end]);
            sorted.as_str()
        };
        let request_hash = canonical_request_hash(
            "GET",
            &url[path_start..path_end],
            canonical_query,
            &url[host_start..path_start],
        );
        let mac = self.keys.signing_mac(
            self.credentials.secret_access_key.expose(),
            stamp.date(),
            &self.region,
        );
        let signature = string_to_sign_mac(mac, &stamp, &self.region, &request_hash).finalize();
        url.push_str("&X-Amz-Signature=");
        crate::hex::push(&mut url, &signature.into_bytes());
        Ok(url)
    }
}

/// Where an object is: its URL (scheme, host, path; nothing after) and the offsets of the
/// host and the path in it.
struct ObjectUrl {
    url: String,
    host_start: usize,
    path_start: usize,
}

/// A request signed in its `Authorization` header: send `headers` with it as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedRequest {
    pub url: String,
    /// Lower-case names: `authorization`, `x-amz-content-sha256`, `x-amz-date`, and
    /// `x-amz-security-token` with temporary credentials (`host` is the URL's).
    pub headers: Vec<(String, String)>,
}

/// The payload hash of a request whose body is not hashed (streamed uploads).
pub const UNSIGNED_PAYLOAD: &str = "UNSIGNED-PAYLOAD";

impl Signer {
    /// The URL of `bucket`/`key`, path-style or virtual-host as configured (botocore's
    /// rule: a bucket that cannot be a host name goes in the path), with room for `extra`
    /// more bytes.
    fn object_url(&self, bucket: &str, key: &str, extra: usize) -> Result<ObjectUrl, SigningError> {
        if bucket.is_empty() || bucket.contains('/') {
            return Err(SigningError::Bucket(bucket.to_owned()));
        }
        if key.is_empty() {
            return Err(SigningError::EmptyKey);
        }
        let virtual_host = self.addressing == Addressing::VirtualHost
            && is_virtual_hostable(bucket, self.endpoint.scheme == "http");
        let mut url = String::with_capacity(
            extra
                + self.endpoint.host.len()
                + self.endpoint.prefix.len()
                + bucket.len()
                + 3 * key.len(),
        );
        url.push_str(self.endpoint.scheme);
        url.push_str("://");
        let host_start = url.len();
        if virtual_host {
            url.push_str(bucket);
            url.push('.');
        }
        url.push_str(&self.endpoint.host);
        let path_start = url.len();
        url.push_str(&self.endpoint.prefix);
        if !virtual_host {
            url.push('/');
            encode_into(&mut url, bucket.as_bytes(), false);
        }
        url.push('/');
        encode_into(&mut url, key.as_bytes(), true);
        Ok(ObjectUrl {
            url,
            host_start,
            path_start,
        })
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
        } = self.object_url(bucket, key, 0)?;
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
        let signed_names = headers
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(";");
        let mut hash = Sha256::new();
        for part in [method, "\n", &url[path_start..], "\n\n"] {
            hash.update(part.as_bytes());
        }
        for (name, value) in &headers {
            hash.update(name.as_bytes());
            hash.update(b":");
            hash.update(value.as_bytes());
            hash.update(b"\n");
        }
        for part in ["\n", &signed_names, "\n", payload_sha256] {
            hash.update(part.as_bytes());
        }
        let request_hash = crate::hex::encode(&hash.finalize());
        let mac = self.keys.signing_mac(
            self.credentials.secret_access_key.expose(),
            stamp.date(),
            &self.region,
        );
        let signature = string_to_sign_mac(mac, &stamp, &self.region, &request_hash).finalize();
        let authorization = format!(
            "{ALGORITHM} Credential={}/{}/{}/s3/{TERMINATOR},SignedHeaders={signed_names},Signature={}",
            self.credentials.access_key_id,
            stamp.date(),
            self.region,
            crate::hex::encode(&signature.into_bytes())
        );
        headers.retain(|(n, _)| n != "host");
        headers.push(("authorization".to_owned(), authorization));
        Ok(SignedRequest { url, headers })
    }
}

/// An already canonically encoded query, its pairs sorted (by name, then value).
fn sorted_query(query: &str) -> String {
    let mut pairs: Vec<(&str, &str)> = query
        .split('&')
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .collect();
    pairs.sort_unstable();
    let mut out = String::with_capacity(query.len());
    for (i, (name, value)) in pairs.into_iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(name);
        out.push('=');
        out.push_str(value);
    }
    out
}

/// The query parameters of SigV4 query authentication, which the signer writes itself.
const AUTH_PARAMS: [&str; 7] = [
    "X-Amz-Algorithm",
    "X-Amz-Credential",
    "X-Amz-Date",
    "X-Amz-Expires",
    "X-Amz-Security-Token",
    "X-Amz-SignedHeaders",
    "X-Amz-Signature",
];

fn is_auth_param(name: &str) -> bool {
    AUTH_PARAMS.contains(&name)
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

/// A request as the embedded store received it: `path` and `query` raw (still
/// percent-encoded, query without the `?`), `host` the `Host` header value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresignedRequest<'a> {
    pub method: &'a str,
    pub host: &'a str,
    pub path: &'a str,
    pub query: &'a str,
}

/// Why a presigned request was refused; `s3_code` gives the S3 error code for the XML body.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// None of the signature parameters: an anonymous request, which S3 answers with
    /// `AccessDenied` for an object that is not public.
    #[error("Access Denied")]
    Anonymous,
    /// Some but not all signature parameters, or a repeated or malformed one (including
    /// a bad expiry).
    #[error("{0}")]
    QueryParameters(String),
    #[error("The access key id '{0}' does not exist in our records.")]
    UnknownAccessKey(String),
    #[error(
        "The request signature we calculated does not match the signature you provided. Check your key and signing method."
    )]
    SignatureMismatch,
    #[error("Request has expired")]
    Expired,
    /// `X-Amz-Date` is further in the future than the allowed clock skew.
    #[error("Request is not valid yet: X-Amz-Date is in the future")]
    NotYetValid,
    /// The path holds a `%` that is not followed by two hex digits.
    #[error("Couldn't parse the specified URI.")]
    InvalidUri,
}

impl VerifyError {
    pub fn s3_code(&self) -> &'static str {
        match self {
            VerifyError::Anonymous => "AccessDenied",
            VerifyError::QueryParameters(_) => "AuthorizationQueryParametersError",
            VerifyError::UnknownAccessKey(_) => "InvalidAccessKeyId",
            VerifyError::SignatureMismatch => "SignatureDoesNotMatch",
            VerifyError::Expired | VerifyError::NotYetValid => "AccessDenied",
            VerifyError::InvalidUri => "InvalidURI",
        }
    }

    /// The text for the `<Message>` of the S3 error body.
    pub fn message(&self) -> String {
        self.to_string()
    }
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
            request.host.trim(),
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

/// Percent-encodes `input` the SigV4 way: every byte except `A-Za-z0-9-._~` as `%XX` with
/// uppercase hex; `/` is kept when `keep_slash` (paths), encoded otherwise (query values).
pub fn aws_encode(input: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(input.len() * 3);
    encode_into(&mut out, input.as_bytes(), keep_slash);
    out
}

fn encode_into(out: &mut String, bytes: &[u8], keep_slash: bool) {
    percent::encode_into(out, bytes, |b| {
        percent::is_unreserved(b) || (keep_slash && b == b'/')
    });
}

fn canonical_path(raw: &str, out: &mut String) -> Result<(), VerifyError> {
    if !raw.starts_with('/') {
        return Err(VerifyError::InvalidUri);
    }
    let mut segment = Vec::new();
    for (i, raw_segment) in raw.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        segment.clear();
        percent::decode_into(raw_segment.as_bytes(), &mut segment)
            .map_err(|_| VerifyError::InvalidUri)?;
        encode_into(out, &segment, false);
    }
    Ok(())
}

fn canonical_request_hash(method: &str, path: &str, query: &str, host: &str) -> String {
    let mut hash = Sha256::new();
    for part in [
        method,
        "\n",
        path,
        "\n",
        query,
        "\nhost:",
        host,
        "\n\nhost\nUNSIGNED-PAYLOAD",
    ] {
        hash.update(part.as_bytes());
    }
    crate::hex::encode(&hash.finalize())
}

fn string_to_sign_mac(
    mut mac: HmacSha256,
    stamp: &AmzDate,
    region: &str,
    request_hash: &str,
) -> HmacSha256 {
    for part in [
        ALGORITHM,
        "\n",
        stamp.as_str(),
        "\n",
        stamp.date(),
        "/",
        region,
        "/s3/",
        TERMINATOR,
        "\n",
        request_hash,
    ] {
        mac.update(part.as_bytes());
    }
    mac
}

fn new_mac(key: &[u8]) -> HmacSha256 {
    match HmacSha256::new_from_slice(key) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC takes keys of any length"),
    }
}

/// HMAC-SHA256 of `data` under `key` (also the console's key fingerprints).
pub(crate) fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    let mut mac = new_mac(key);
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// The derived key of the last (date, region) seen, kept as an HMAC already keyed with it:
/// the four derivation HMACs and the keying of the fifth happen once a day, not per URL.
/// The secret is fixed per `Signer`/`Verifier`, so it is not part of the cache key.
#[derive(Default)]
struct KeyCache(Mutex<Option<CachedKey>>);

struct CachedKey {
    date: String,
    region: String,
    mac: HmacSha256,
}

impl fmt::Debug for KeyCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyCache(***)")
    }
}

impl KeyCache {
    fn signing_mac(&self, secret: &str, date: &str, region: &str) -> HmacSha256 {
        // A panic elsewhere cannot leave the slot half-written: reuse it after poisoning.
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(cached) = slot.as_ref()
            && cached.date == date
            && cached.region == region
        {
            return cached.mac.clone();
        }
        let mac = derive_signing_mac(secret, date, region);
        *slot = Some(CachedKey {
            date: date.to_owned(),
            region: region.to_owned(),
            mac: mac.clone(),
        });
        mac
    }
}

fn derive_signing_mac(secret: &str, date: &str, region: &str) -> HmacSha256 {
    let mut first_key = Vec::with_capacity(4 + secret.len());
    first_key.extend_from_slice(b"AWS4");
    first_key.extend_from_slice(secret.as_bytes());
    let date_key = hmac(&first_key, date.as_bytes());
    let region_key = hmac(&date_key, region.as_bytes());
    let service_key = hmac(&region_key, b"s3");
    new_mac(&hmac(&service_key, TERMINATOR.as_bytes()))
}

/// `YYYYMMDDTHHMMSSZ`; its first 8 bytes are the credential-scope date.
struct AmzDate([u8; 16]);

impl AmzDate {
    fn from_time(time: DateTime<Utc>) -> Option<AmzDate> {
        let year = u32::try_from(time.year()).ok().filter(|y| *y <= 9999)?;
        let mut out = *b"00000000T000000Z";
        let mut put = |at: usize, width: usize, mut value: u32| {
            for i in (at..at + width).rev() {
                // `value % 10` is a single digit.
                out[i] = b'0' + (value % 10) as u8;
                value /= 10;
            }
        };
        put(0, 4, year);
        put(4, 2, time.month());
        put(6, 2, time.day());
        put(9, 2, time.hour());
        put(11, 2, time.minute());
        put(13, 2, time.second());
        Some(AmzDate(out))
    }

    fn parse(text: &str) -> Option<AmzDate> {
        let bytes: [u8; 16] = text.as_bytes().try_into().ok()?;
        let digits_ok = bytes
            .iter()
            .enumerate()
            .all(|(i, b)| matches!(i, 8 | 15) || b.is_ascii_digit());
        if !digits_ok || bytes[8] != b'T' || bytes[15] != b'Z' {
            return None;
        }
        let stamp = AmzDate(bytes);
        stamp.checked_time().map(|_| stamp)
    }

    fn number(&self, range: std::ops::Range<usize>) -> u32 {
        self.0[range]
            .iter()
            .fold(0, |n, b| n * 10 + u32::from(b.wrapping_sub(b'0')))
    }

    fn checked_time(&self) -> Option<DateTime<Utc>> {
        let year = i32::try_from(self.number(0..4)).ok()?;
        NaiveDate::from_ymd_opt(year, self.number(4..6), self.number(6..8))?
            .and_hms_opt(self.number(9..11), self.number(11..13), self.number(13..15))
            .map(|t| t.and_utc())
    }

    /// Only built from checked text, so the fallback is never taken.
    fn time(&self) -> DateTime<Utc> {
        self.checked_time().unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or_default()
    }

    fn date(&self) -> &str {
        &self.as_str()[..8]
    }
}

/// The endpoint split once at construction. `host` is what both the URL and the `Host`
/// header carry: lowercased, with the port unless it is the scheme's default.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Endpoint {
    scheme: &'static str,
    host: String,
    is_ip: bool,
    /// `""` or `/seg/seg`, canonically encoded.
    prefix: String,
}

impl Endpoint {
    fn parse(endpoint: &str) -> Result<Endpoint, SigningError> {
        // Shown by its host alone: a refused endpoint may hold a password or a token.
        let fail = |reason| SigningError::Endpoint {
            endpoint: crate::redact::url(endpoint),
            reason,
        };
        let trimmed = endpoint.trim();
        let (scheme, rest, default_port) = match trimmed.split_once("://") {
            Some((s, rest)) if s.eq_ignore_ascii_case("https") => ("https", rest, "443"),
            Some((s, rest)) if s.eq_ignore_ascii_case("http") => ("http", rest, "80"),
            _ => return Err(fail("the scheme must be http:// or https://")),
        };
        if rest.contains(['?', '#']) {
            return Err(fail("no query or fragment allowed"));
        }
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.contains('@') {
            return Err(fail("no user name or password allowed"));
        }
        let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
            let (inside, after) = bracketed
                .split_once(']')
                .ok_or_else(|| fail("an IPv6 address needs a closing ']'"))?;
            let port = match after {
                "" => None,
                _ => Some(after.strip_prefix(':').ok_or_else(|| fail("bad port"))?),
            };
            if inside.is_empty() || !inside.chars().all(|c| c.is_ascii_hexdigit() || c == ':') {
                return Err(fail("bad IPv6 address"));
            }
            (&authority[..inside.len() + 2], port)
        } else {
            match authority.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            }
        };
        let is_ip = host.starts_with('[') || host.parse::<std::net::Ipv4Addr>().is_ok();
        if !is_ip
            && (host.is_empty()
                || !host
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_')))
        {
            return Err(fail("the host must be a name or an IP address"));
        }
        let mut host = host.to_ascii_lowercase();
        if let Some(port) = port {
            if port.is_empty() || port.len() > 5 || port.parse::<u16>().is_err() {
                return Err(fail("the port must be a number from 0 to 65535"));
            }
            if port != default_port {
                host.push(':');
                host.push_str(port);
            }
        }
        let mut prefix = String::new();
        let path = path.trim_matches('/');
        if !path.is_empty() {
            if path.contains("//") {
                return Err(fail("the path prefix has an empty segment"));
            }
            canonical_path(&format!("/{path}"), &mut prefix)
                .map_err(|_| fail("the path prefix has a malformed %-escape"))?;
        }
        Ok(Endpoint {
            scheme,
            host,
            is_ip,
            prefix,
        })
    }
}

fn check_region(region: &str) -> Result<(), ()> {
    let ok = !region.is_empty()
        && region
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok { Ok(()) } else { Err(()) }
}

fn is_valid_access_key_id(id: &str) -> bool {
    !id.is_empty()
        && !id
            .chars()
            .any(|c| c == '/' || c.is_whitespace() || c.is_control())
}

/// Whether virtual-host addressing puts `bucket` in the host name: botocore's
/// `isVirtualHostableS3Bucket` (at least 3 characters, no uppercase, not an IPv4 address,
/// host labels of 1 to 63 letters, digits and `-` not at either end). Over HTTPS a bucket
/// with dots is not (it would break the endpoint's wildcard certificate), over HTTP it is.
fn is_virtual_hostable(bucket: &str, allow_dots: bool) -> bool {
    let valid_label = |label: &str| {
        (1..=63).contains(&label.len())
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    let looks_ipv4 = {
        let parts: Vec<&str> = bucket.split('.').collect();
        parts.len() == 4
            && parts
                .iter()
                .all(|p| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
    };
    let labels_ok = if allow_dots {
        bucket.split('.').all(valid_label)
    } else {
        valid_label(bucket)
    };
    bucket.len() >= 3 && !bucket.bytes().any(|b| b.is_ascii_uppercase()) && !looks_ipv4 && labels_ok
}

fn echo(text: &str) -> String {
    let mut out: String = text.chars().take(ECHO_MAX_CHARS).collect();
    if text.chars().nth(ECHO_MAX_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// A raw query split into canonical (decoded then re-encoded) pairs.
struct ParsedQuery {
    /// Every pair but `X-Amz-Signature`, in canonical encoding.
    pairs: Vec<(String, String)>,
    algorithm: Option<String>,
    credential: Option<String>,
    date: Option<String>,
    expires: Option<String>,
    signed_headers: Option<String>,
    signature: Option<String>,
}

/// The authentication parameters, checked for shape.
struct Auth {
    access_key_id: String,
    region: String,
    date: AmzDate,
    expires_secs: u64,
    signature: [u8; 32],
}

const REQUIRED_PARAMS: &str = "query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders and X-Amz-Expires parameters";

impl ParsedQuery {
    fn parse(raw: &str) -> Result<ParsedQuery, VerifyError> {
        let mut query = ParsedQuery {
            pairs: Vec::new(),
            algorithm: None,
            credential: None,
            date: None,
            expires: None,
            signed_headers: None,
            signature: None,
        };
        let mut buf = Vec::new();
        for piece in raw.split('&').filter(|p| !p.is_empty()) {
            let (raw_name, raw_value) = piece.split_once('=').unwrap_or((piece, ""));
            let malformed = || {
                VerifyError::QueryParameters(format!(
                    "query parameter '{}' has a malformed %-escape",
                    echo(raw_name)
                ))
            };
            buf.clear();
            percent::decode_into(raw_name.as_bytes(), &mut buf).map_err(|_| malformed())?;
            let mut encoded_name = String::with_capacity(buf.len());
            encode_into(&mut encoded_name, &buf, false);
            buf.clear();
            percent::decode_into(raw_value.as_bytes(), &mut buf).map_err(|_| malformed())?;
            // X-Amz-* names are all unreserved characters: their canonical form is the name.
            let slot = match encoded_name.as_str() {
                "X-Amz-Algorithm" => Some(&mut query.algorithm),
                "X-Amz-Credential" => Some(&mut query.credential),
                "X-Amz-Date" => Some(&mut query.date),
                "X-Amz-Expires" => Some(&mut query.expires),
                "X-Amz-SignedHeaders" => Some(&mut query.signed_headers),
                "X-Amz-Signature" => Some(&mut query.signature),
                _ => None,
            };
            if let Some(slot) = slot {
                if slot.is_some() {
                    return Err(VerifyError::QueryParameters(format!(
                        "{encoded_name} must appear once"
                    )));
                }
                *slot = Some(String::from_utf8_lossy(&buf).into_owned());
                if encoded_name == "X-Amz-Signature" {
                    continue;
                }
            }
            let mut encoded_value = String::with_capacity(buf.len());
            encode_into(&mut encoded_value, &buf, false);
            query.pairs.push((encoded_name, encoded_value));
        }
        Ok(query)
    }

    /// No signature parameter at all (`X-Amz-Security-Token` alone signs nothing either).
    fn is_anonymous(&self) -> bool {
        [
            &self.algorithm,
            &self.credential,
            &self.date,
            &self.expires,
            &self.signed_headers,
            &self.signature,
        ]
        .iter()
        .all(|value| value.is_none())
    }

    fn auth(&self) -> Result<Auth, VerifyError> {
        let bad = |message: String| VerifyError::QueryParameters(message);
        let require = |value: &Option<String>, name: &str| {
            value
                .clone()
                .ok_or_else(|| bad(format!("missing {name}: {REQUIRED_PARAMS}")))
        };
        let algorithm = require(&self.algorithm, "X-Amz-Algorithm")?;
        let credential = require(&self.credential, "X-Amz-Credential")?;
        let date = require(&self.date, "X-Amz-Date")?;
        let expires = require(&self.expires, "X-Amz-Expires")?;
        let signed_headers = require(&self.signed_headers, "X-Amz-SignedHeaders")?;
        let signature = require(&self.signature, "X-Amz-Signature")?;

        if algorithm != ALGORITHM {
            return Err(bad(format!(
                "X-Amz-Algorithm must be {ALGORITHM}, got '{}'",
                echo(&algorithm)
            )));
        }
        let date = AmzDate::parse(&date).ok_or_else(|| {
            bad(format!(
                "X-Amz-Date must be a UTC time like 20240315T120000Z, got '{}'",
                echo(&date)
            ))
        })?;
        let bad_credential = || {
            bad(format!(
                "X-Amz-Credential must be ACCESS_KEY_ID/YYYYMMDD/REGION/s3/aws4_request with the date of X-Amz-Date, got '{}'",
                echo(&credential)
            ))
        };
        // The key id is whatever precedes the last four parts.
        let mut parts = credential.rsplitn(5, '/');
        let (Some(terminator), Some(service), Some(region), Some(scope_date), Some(key_id)) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return Err(bad_credential());
        };
        if terminator != TERMINATOR
            || service != "s3"
            || scope_date != date.date()
            || check_region(region).is_err()
            || key_id.is_empty()
        {
            return Err(bad_credential());
        }
        let expires_secs = Some(expires.as_str())
            .filter(|e| !e.is_empty() && e.len() <= 7 && e.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|e| e.parse::<u64>().ok())
            .filter(|e| (MIN_EXPIRES_SECS..=MAX_EXPIRES_SECS).contains(e))
            .ok_or_else(|| {
                bad(format!(
                    "X-Amz-Expires must be an integer from 1 to 604800 (7 days), got '{}'",
                    echo(&expires)
                ))
            })?;
        if signed_headers != "host" {
            return Err(bad(format!(
                "X-Amz-SignedHeaders must be 'host' (presigned GET signs no other header), got '{}'",
                echo(&signed_headers)
            )));
        }
        // Only the exact lowercase form a signer writes is accepted, so any change to the
        // text of the signature is a mismatch.
        let mut decoded = [0u8; 32];
        let bytes = signature.as_bytes();
        if bytes.len() != 64 || !bytes.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(VerifyError::SignatureMismatch);
        }
        for (i, pair) in bytes.chunks_exact(2).enumerate() {
            let high = crate::hex::digit_value(pair[0]).unwrap_or(0);
            let low = crate::hex::digit_value(pair[1]).unwrap_or(0);
            decoded[i] = high << 4 | low;
        }
        Ok(Auth {
            access_key_id: key_id.to_owned(),
            region: region.to_owned(),
            date,
            expires_secs,
            signature: decoded,
        })
    }

    fn canonical(&self) -> String {
        let mut pairs: Vec<&(String, String)> = self.pairs.iter().collect();
        pairs.sort_unstable();
        let mut out = String::with_capacity(
            pairs
                .iter()
                .map(|(n, v)| n.len() + v.len() + 2)
                .sum::<usize>(),
        );
        for (i, (name, value)) in pairs.into_iter().enumerate() {
            if i > 0 {
                out.push('&');
            }
            out.push_str(name);
            out.push('=');
            out.push_str(value);
        }
        out
    }
}

#[cfg(test)]
mod tests;
