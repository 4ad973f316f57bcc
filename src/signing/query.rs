//! The query of a presigned request: split into canonical (decoded then re-encoded) pairs,
//! the `X-Amz-*` authentication parameters picked out, and checked for shape with errors
//! that name the parameter.

use super::canonical::{canonical_query, encode_into};
use super::date::AmzDate;
use super::endpoint::check_region;
use super::{ALGORITHM, MAX_EXPIRES_SECS, MIN_EXPIRES_SECS, TERMINATOR, VerifyError};
use crate::percent;

/// Longest piece of a request that an error message echoes back.
const ECHO_MAX_CHARS: usize = 80;

/// The query parameters of SigV4 query authentication, which the signer writes itself.
pub(super) const AUTH_PARAMS: [&str; 7] = [
    "X-Amz-Algorithm",
    "X-Amz-Credential",
    "X-Amz-Date",
    "X-Amz-Expires",
    "X-Amz-Security-Token",
    "X-Amz-SignedHeaders",
    "X-Amz-Signature",
];

/// `text` as an error message may quote it: at most `ECHO_MAX_CHARS` characters.
pub(super) fn echo(text: &str) -> String {
    let mut out: String = text.chars().take(ECHO_MAX_CHARS).collect();
    if text.chars().nth(ECHO_MAX_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// A raw query split into canonical (decoded then re-encoded) pairs.
pub(super) struct ParsedQuery {
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
pub(super) struct Auth {
    pub(super) access_key_id: String,
    pub(super) region: String,
    pub(super) date: AmzDate,
    pub(super) expires_secs: u64,
    /// Lower-case, in order, `host` among them.
    pub(super) signed_headers: Vec<String>,
    pub(super) signature: [u8; 32],
}

const REQUIRED_PARAMS: &str = "query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders and X-Amz-Expires parameters";

impl ParsedQuery {
    pub(super) fn parse(raw: &str) -> Result<ParsedQuery, VerifyError> {
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
    pub(super) fn is_anonymous(&self) -> bool {
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

    pub(super) fn auth(&self) -> Result<Auth, VerifyError> {
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
        let (access_key_id, region) = parse_credential(&credential, &date).ok_or_else(|| {
            bad(format!(
                "X-Amz-Credential must be ACCESS_KEY_ID/YYYYMMDD/REGION/s3/aws4_request with the date of X-Amz-Date, got '{}'",
                echo(&credential)
            ))
        })?;
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
        let signed_headers = parse_signed_headers(&signed_headers).ok_or_else(|| {
            bad(format!(
                "X-Amz-SignedHeaders must be lower-case header names in order, separated by ';', host among them, got '{}'",
                echo(&signed_headers)
            ))
        })?;
        let signature = parse_signature(&signature).ok_or(VerifyError::SignatureMismatch)?;
        Ok(Auth {
            access_key_id,
            region,
            date,
            expires_secs,
            signed_headers,
            signature,
        })
    }

    /// The canonical query: every pair but the signature, sorted.
    pub(super) fn canonical(&self) -> String {
        canonical_query(
            self.pairs
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .collect(),
        )
    }
}

/// The access key id and region of `ACCESS_KEY_ID/YYYYMMDD/REGION/s3/aws4_request`, when its
/// date is `date`'s (query and `Authorization` header alike).
pub(super) fn parse_credential(credential: &str, date: &AmzDate) -> Option<(String, String)> {
    // The key id is whatever precedes the last four parts.
    let mut parts = credential.rsplitn(5, '/');
    let (terminator, service, region, scope_date, key_id) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    let valid = terminator == TERMINATOR
        && service == "s3"
        && scope_date == date.date()
        && check_region(region).is_ok()
        && !key_id.is_empty();
    valid.then(|| (key_id.to_owned(), region.to_owned()))
}

/// `content-length;host;x-amz-date`: lower-case names, each once and in order (as a signer
/// writes them, so the canonical request follows this list), `host` among them.
pub(super) fn parse_signed_headers(text: &str) -> Option<Vec<String>> {
    let names: Vec<String> = text.split(';').map(str::to_owned).collect();
    let well_formed = names.iter().all(|n| {
        !n.is_empty()
            && n.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
    });
    let ordered = names.windows(2).all(|pair| pair[0] < pair[1]);
    (well_formed && ordered && names.iter().any(|n| n == "host")).then_some(names)
}

/// The 32 bytes of a signature, from exactly the lowercase hex a signer writes (so that any
/// change to its text is a mismatch).
pub(super) fn parse_signature(text: &str) -> Option<[u8; 32]> {
    let lowercase = text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    crate::hex::decode(text).filter(|_| lowercase)
}
