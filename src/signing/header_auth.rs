//! The `Authorization` header of a request signed the way S3 clients sign their calls
//! (`AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`), with its `x-amz-date`,
//! read and checked for shape; the verifier checks the signature.

use super::date::AmzDate;
use super::query::{echo, parse_credential, parse_signature, parse_signed_headers};
use super::{ALGORITHM, VerifyError};

/// The parts of a well-formed `Authorization` header.
pub(super) struct HeaderAuth {
    pub(super) access_key_id: String,
    pub(super) region: String,
    pub(super) date: AmzDate,
    pub(super) signed_headers: Vec<String>,
    pub(super) signature: [u8; 32],
}

impl HeaderAuth {
    /// `authorization` is the header's value, `amz_date` the `x-amz-date` header's.
    pub(super) fn parse(
        authorization: &str,
        amz_date: Option<&str>,
    ) -> Result<HeaderAuth, VerifyError> {
        let malformed = |detail: String| VerifyError::AuthorizationHeader(detail);
        let rest = authorization
            .trim()
            .strip_prefix(ALGORITHM)
            .filter(|rest| rest.starts_with(' '))
            .ok_or_else(|| {
                malformed(format!(
                    "it must start with {ALGORITHM}, got '{}'",
                    echo(authorization)
                ))
            })?;
        let (mut credential, mut signed_headers, mut signature) = (None, None, None);
        for part in rest.split(',').map(str::trim) {
            let (name, value) = part.split_once('=').unwrap_or((part, ""));
            let slot = match name {
                "Credential" => &mut credential,
                "SignedHeaders" => &mut signed_headers,
                "Signature" => &mut signature,
                other => {
                    return Err(malformed(format!(
                        "unknown part '{}'; expected Credential, SignedHeaders and Signature",
                        echo(other)
                    )));
                }
            };
            if slot.replace(value).is_some() {
                return Err(malformed(format!("{name} must appear once")));
            }
        }
        let missing = |name: &str| malformed(format!("{name} is missing"));
        let credential = credential.ok_or_else(|| missing("Credential"))?;
        let signed_headers = signed_headers.ok_or_else(|| missing("SignedHeaders"))?;
        let signature = signature.ok_or_else(|| missing("Signature"))?;
        let date_text = amz_date.ok_or_else(|| {
            malformed("the request needs an x-amz-date header (the signing time)".into())
        })?;
        let date = AmzDate::parse(date_text.trim()).ok_or_else(|| {
            malformed(format!(
                "x-amz-date must be a UTC time like 20240315T120000Z, got '{}'",
                echo(date_text)
            ))
        })?;
        let (access_key_id, region) = parse_credential(credential, &date).ok_or_else(|| {
            malformed(format!(
                "Credential must be ACCESS_KEY_ID/YYYYMMDD/REGION/s3/aws4_request with the date of x-amz-date, got '{}'",
                echo(credential)
            ))
        })?;
        let signed_headers = parse_signed_headers(signed_headers).ok_or_else(|| {
            malformed(format!(
                "SignedHeaders must be lower-case header names in order, separated by ';', host among them, got '{}'",
                echo(signed_headers)
            ))
        })?;
        let signature = parse_signature(signature).ok_or(VerifyError::SignatureMismatch)?;
        Ok(HeaderAuth {
            access_key_id,
            region,
            date,
            signed_headers,
            signature,
        })
    }
}
