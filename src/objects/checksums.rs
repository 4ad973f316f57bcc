//! The digests of a body computed while it streams to disk (its SHA-256 always: records
//! keep it; MD5 and CRC32 when asked), and the checks S3 makes against what a request
//! claims of its body: `x-amz-content-sha256` (a header-signed request), `Content-MD5`,
//! `x-amz-checksum-sha256` and `x-amz-checksum-crc32`, each with S3's error code.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use md5::Md5;
use sha2::{Digest, Sha256};

/// The checksum headers S3 defines; the embedded store checks the ones it can compute and
/// refuses the others rather than store a body it has not checked.
const UNSUPPORTED: [&str; 3] = [
    "x-amz-checksum-crc32c",
    "x-amz-checksum-sha1",
    "x-amz-checksum-crc64nvme",
];

/// Hashers fed with every chunk of a body.
pub struct Digests {
    sha256: Sha256,
    md5: Option<Md5>,
    crc32: Option<crc32fast::Hasher>,
}

/// A whole body's digests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digested {
    pub sha256: [u8; 32],
    pub md5: Option<[u8; 16]>,
    pub crc32: Option<u32>,
}

impl Digests {
    /// SHA-256 alone.
    pub fn sha256() -> Digests {
        Digests::with(false, false)
    }

    pub fn with(md5: bool, crc32: bool) -> Digests {
        Digests {
            sha256: Sha256::new(),
            md5: md5.then(Md5::new),
            crc32: crc32.then(crc32fast::Hasher::new),
        }
    }

    pub fn update(&mut self, chunk: &[u8]) {
        self.sha256.update(chunk);
        if let Some(md5) = &mut self.md5 {
            md5.update(chunk);
        }
        if let Some(crc32) = &mut self.crc32 {
            crc32.update(chunk);
        }
    }

    pub fn finish(self) -> Digested {
        Digested {
            sha256: self.sha256.finalize().into(),
            md5: self.md5.map(|m| m.finalize().into()),
            crc32: self.crc32.map(crc32fast::Hasher::finalize),
        }
    }
}

/// What a request says its body is, from its headers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claims {
    /// The signed `x-amz-content-sha256` of a header-signed request.
    pub content_sha256: Option<[u8; 32]>,
    pub content_md5: Option<[u8; 16]>,
    pub sha256: Option<[u8; 32]>,
    pub crc32: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChecksumError {
    #[error("The Content-MD5 you specified was not valid.")]
    InvalidDigest,
    #[error("Value for {0} header is invalid.")]
    InvalidChecksum(&'static str),
    #[error(
        "{0} is not checked by depot's embedded store, which checks x-amz-checksum-sha256 and x-amz-checksum-crc32"
    )]
    Unsupported(&'static str),
    #[error("The provided 'x-amz-content-sha256' header does not match what was computed.")]
    ContentSha256Mismatch,
    #[error("The {0} you specified did not match the calculated checksum.")]
    BadDigest(&'static str),
}

impl ChecksumError {
    /// The S3 error code (every one is a 400).
    pub fn s3_code(&self) -> &'static str {
        match self {
            ChecksumError::InvalidDigest => "InvalidDigest",
            ChecksumError::InvalidChecksum(_) | ChecksumError::Unsupported(_) => "InvalidRequest",
            ChecksumError::ContentSha256Mismatch => "XAmzContentSHA256Mismatch",
            ChecksumError::BadDigest(_) => "BadDigest",
        }
    }
}

impl Claims {
    /// The claims of `headers` (lower-case names); `content_sha256` from the signature.
    pub fn from_headers(
        headers: &[(&str, &str)],
        content_sha256: Option<[u8; 32]>,
    ) -> Result<Claims, ChecksumError> {
        let value = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.trim())
        };
        if let Some(name) = UNSUPPORTED.into_iter().find(|n| value(n).is_some()) {
            return Err(ChecksumError::Unsupported(name));
        }
        let content_md5 = value("content-md5")
            .map(|v| decode::<16>(v).ok_or(ChecksumError::InvalidDigest))
            .transpose()?;
        let sha256 = value("x-amz-checksum-sha256")
            .map(|v| decode::<32>(v).ok_or(ChecksumError::InvalidChecksum("x-amz-checksum-sha256")))
            .transpose()?;
        let crc32 = value("x-amz-checksum-crc32")
            .map(|v| {
                decode::<4>(v)
                    .map(u32::from_be_bytes)
                    .ok_or(ChecksumError::InvalidChecksum("x-amz-checksum-crc32"))
            })
            .transpose()?;
        Ok(Claims {
            content_sha256,
            content_md5,
            sha256,
            crc32,
        })
    }

    /// The hashers that can check these claims (MD5 also when `md5` is wanted anyway: a
    /// part's ETag).
    pub fn digests(&self, md5: bool) -> Digests {
        Digests::with(md5 || self.content_md5.is_some(), self.crc32.is_some())
    }

    /// Compares every claim with what the body gave, in S3's order: the signed hash first.
    pub fn check(&self, got: &Digested) -> Result<(), ChecksumError> {
        if self.content_sha256.is_some_and(|h| h != got.sha256) {
            return Err(ChecksumError::ContentSha256Mismatch);
        }
        if self.content_md5.is_some() && self.content_md5 != got.md5 {
            return Err(ChecksumError::BadDigest("Content-MD5"));
        }
        if self.sha256.is_some_and(|h| h != got.sha256) {
            return Err(ChecksumError::BadDigest("SHA256"));
        }
        if self.crc32.is_some() && self.crc32 != got.crc32 {
            return Err(ChecksumError::BadDigest("CRC32"));
        }
        Ok(())
    }
}

/// The SHA-256 of `bytes`.
pub fn sha256_of(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The length and SHA-256 of the file at `path`, read in chunks.
pub fn file_digest(path: &std::path::Path) -> Result<(u64, [u8; 32]), super::ObjectError> {
    let file = std::fs::File::open(path).map_err(super::ObjectError::io("open", path))?;
    reader_digest(file, path)
}

/// The length and SHA-256 of what `file` (opened from `path`, named in errors) reads from
/// where it stands to its end, in chunks.
pub fn reader_digest(
    mut file: impl std::io::Read,
    path: &std::path::Path,
) -> Result<(u64, [u8; 32]), super::ObjectError> {
    let read_error = super::ObjectError::io("read", path);
    let mut digests = Digests::sha256();
    let mut buf = vec![0u8; 256 * 1024];
    let mut len = 0u64;
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok((len, digests.finish().sha256)),
            Ok(n) => {
                digests.update(&buf[..n]);
                len += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(read_error(e)),
        }
    }
}

/// Base64 of exactly `N` bytes.
fn decode<const N: usize>(text: &str) -> Option<[u8; N]> {
    BASE64.decode(text).ok()?.try_into().ok()
}

/// `bytes` in base64, as S3's checksum headers carry them.
pub fn base64(bytes: &[u8]) -> String {
    BASE64.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digested(body: &[u8]) -> Digested {
        let mut digests = Digests::with(true, true);
        digests.update(&body[..2]);
        digests.update(&body[2..]);
        digests.finish()
    }

    #[test]
    fn digests_are_the_known_ones() {
        let got = digested(b"hello");
        assert_eq!(
            crate::hex::encode(&got.sha256),
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        assert_eq!(
            got.md5.map(|m| crate::hex::encode(&m)).as_deref(),
            Some("5d41402abc4b2a76b9719d911017c592")
        );
        assert_eq!(got.crc32, Some(0x3610_a686));
        assert_eq!(
            base64(&got.sha256),
            "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="
        );
    }

    #[test]
    fn each_claim_is_checked_with_its_s3_code() {
        let got = digested(b"hello");
        let claims = |headers: &[(&str, &str)]| Claims::from_headers(headers, None);
        let good = claims(&[
            ("content-md5", "XUFAKrxLKna5cZ2REBfFkg=="),
            (
                "x-amz-checksum-sha256",
                "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=",
            ),
            ("x-amz-checksum-crc32", "NhCmhg=="),
        ])
        .unwrap();
        assert_eq!(good.check(&got), Ok(()));
        let code = |headers: &[(&str, &str)]| claims(headers).unwrap().check(&got).unwrap_err();
        assert_eq!(
            code(&[("x-amz-checksum-sha256", &base64(&[0; 32]))]).to_string(),
            "The SHA256 you specified did not match the calculated checksum."
        );
        assert_eq!(
            code(&[("content-md5", &base64(&[0; 16]))]).s3_code(),
            "BadDigest"
        );
        assert_eq!(
            code(&[("x-amz-checksum-crc32", "AAAAAA==")]).s3_code(),
            "BadDigest"
        );
        let signed = Claims::from_headers(&[], Some([7; 32])).unwrap();
        assert_eq!(
            signed.check(&got).unwrap_err().s3_code(),
            "XAmzContentSHA256Mismatch"
        );
        for (headers, s3_code) in [
            (&[("content-md5", "short")][..], "InvalidDigest"),
            (
                &[("x-amz-checksum-sha256", "NhCmhg==")][..],
                "InvalidRequest",
            ),
            (
                &[("x-amz-checksum-crc32c", "NhCmhg==")][..],
                "InvalidRequest",
            ),
        ] {
            assert_eq!(
                claims(headers).unwrap_err().s3_code(),
                s3_code,
                "{headers:?}"
            );
        }
    }
}
