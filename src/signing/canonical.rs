//! What signer and verifier compute alike (AWS's tasks 1 to 3): the canonical encoding of
//! paths and queries, the hash of the canonical request, the string to sign, and the
//! signing key, derived once a day and cached.

use std::fmt;
use std::sync::{Mutex, PoisonError};

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use super::date::AmzDate;
use super::{ALGORITHM, TERMINATOR, VerifyError};
use crate::percent;

pub(super) type HmacSha256 = Hmac<Sha256>;

/// Percent-encodes `input` the SigV4 way: every byte except `A-Za-z0-9-._~` as `%XX` with
/// uppercase hex; `/` is kept when `keep_slash` (paths), encoded otherwise (query values).
pub fn aws_encode(input: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(input.len() * 3);
    encode_into(&mut out, input.as_bytes(), keep_slash);
    out
}

pub(super) fn encode_into(out: &mut String, bytes: &[u8], keep_slash: bool) {
    percent::encode_into(out, bytes, |b| {
        percent::is_unreserved(b) || (keep_slash && b == b'/')
    });
}

/// A raw path (starting with `/`) with every segment decoded then re-encoded, so that `~`
/// and `%7E`, or `%c3` and `%C3`, give the same canonical path.
pub(super) fn canonical_path(raw: &str, out: &mut String) -> Result<(), VerifyError> {
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

/// The canonical query of already canonically encoded pairs: sorted by name, then value.
pub(super) fn canonical_query(mut pairs: Vec<(&str, &str)>) -> String {
    pairs.sort_unstable();
    let mut out = String::with_capacity(pairs.iter().map(|(n, v)| n.len() + v.len() + 2).sum());
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

/// A header value as the canonical request holds it: trimmed, every run of spaces inside
/// one space (SigV4's "trimall").
pub(super) fn canonical_header_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for word in value.split(' ').filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The hex SHA-256 of the canonical request. `headers` are the signed headers: lower-case
/// names sorted, values trimmed (a presigned URL signs `host` alone).
pub(super) fn canonical_request_hash(
    method: &str,
    path: &str,
    query: &str,
    headers: &[(&str, &str)],
    payload_sha256: &str,
) -> String {
    let mut hash = Sha256::new();
    for part in [method, "\n", path, "\n", query, "\n"] {
        hash.update(part.as_bytes());
    }
    for (name, value) in headers {
        for part in [name, ":", value, "\n"] {
            hash.update(part.as_bytes());
        }
    }
    hash.update(b"\n");
    for (i, (name, _)) in headers.iter().enumerate() {
        if i > 0 {
            hash.update(b";");
        }
        hash.update(name.as_bytes());
    }
    hash.update(b"\n");
    hash.update(payload_sha256.as_bytes());
    crate::hex::encode(&hash.finalize())
}

/// The signing key's HMAC fed with the string to sign: finalizing it gives the signature.
pub(super) fn string_to_sign_mac(
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
pub(super) struct KeyCache(Mutex<Option<CachedKey>>);

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
    pub(super) fn signing_mac(&self, secret: &str, date: &str, region: &str) -> HmacSha256 {
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
