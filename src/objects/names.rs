//! Bucket and key rules: every name that reaches the disk maps to exactly one path below the
//! root, whatever the request held (`..`, absolute paths, NUL, backslashes are refused).

use std::path::{Component, Path};

use super::ObjectError;

const MAX_KEY_BYTES: usize = 1024;
/// NAME_MAX of the common file systems.
const MAX_SEGMENT_BYTES: usize = 255;

/// S3's bucket rules, minus the ones about AWS host names: 3 to 63 characters of `a-z`, `0-9`,
/// `-`, `.`, starting and ending with a letter or digit, no `..`, not an IPv4 address.
pub fn validate_bucket(bucket: &str) -> Result<(), ObjectError> {
    let reason = if !(3..=63).contains(&bucket.len()) {
        Some("wrong length")
    } else if !bucket
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'.'))
    {
        Some("a character outside a-z, 0-9, '-', '.'")
    } else if !bucket.starts_with(|c: char| c.is_ascii_alphanumeric())
        || !bucket.ends_with(|c: char| c.is_ascii_alphanumeric())
    {
        Some("must start and end with a letter or digit")
    } else if bucket.contains("..") {
        Some("two dots in a row")
    } else if bucket.parse::<std::net::Ipv4Addr>().is_ok() {
        Some("looks like an IP address")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(ObjectError::InvalidBucket {
            bucket: echo(bucket),
            reason,
        }),
        None => Ok(()),
    }
}

/// A key is `/`-separated segments, each a plain file or folder name: no empty, `.` or `..`
/// segment (so no leading or trailing `/`), no NUL, no `\` (a separator on Windows, and an
/// alias risk everywhere), at most 1024 bytes (S3's limit) and 255 bytes per segment.
pub fn validate_key(key: &str) -> Result<(), ObjectError> {
    let reason = if key.is_empty() {
        Some("must not be empty")
    } else if key.len() > MAX_KEY_BYTES {
        Some("must be at most 1024 bytes")
    } else if key.contains('\0') {
        Some("must not contain NUL")
    } else if key.contains('\\') {
        Some("must not contain '\\'")
    } else if key.starts_with('/') {
        Some("must not start with '/'")
    } else {
        key.split('/').find_map(|segment| match segment {
            "" => Some("must not have empty segments ('//' or a trailing '/')"),
            "." | ".." => Some("must not have '.' or '..' segments"),
            s if s.len() > MAX_SEGMENT_BYTES => Some("segments must be at most 255 bytes"),
            // What the platform itself would read as a root, drive or parent.
            s if !matches!(Path::new(s).components().next(), Some(Component::Normal(_))) => {
                Some("segments must be plain names")
            }
            _ => None,
        })
    };
    match reason {
        Some(reason) => Err(ObjectError::InvalidKey {
            key: echo(key),
            reason,
        }),
        None => Ok(()),
    }
}

/// Error messages quote the refused name, shortened, with control characters escaped.
fn echo(name: &str) -> String {
    const MAX_CHARS: usize = 120;
    let mut out = String::with_capacity(name.len().min(4 * MAX_CHARS));
    for c in name.chars().take(MAX_CHARS) {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if name.chars().nth(MAX_CHARS).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_reason(key: &str) -> &'static str {
        match validate_key(key) {
            Err(ObjectError::InvalidKey { reason, .. }) => reason,
            other => panic!("{key:?}: {other:?}"),
        }
    }

    fn bucket_reason(bucket: &str) -> &'static str {
        match validate_bucket(bucket) {
            Err(ObjectError::InvalidBucket { reason, .. }) => reason,
            other => panic!("{bucket:?}: {other:?}"),
        }
    }

    #[test]
    fn escaping_keys_are_refused() {
        assert_eq!(key_reason(""), "must not be empty");
        assert_eq!(key_reason(".."), "must not have '.' or '..' segments");
        assert_eq!(
            key_reason("a/../../etc/passwd"),
            "must not have '.' or '..' segments"
        );
        assert_eq!(key_reason("a/./b"), "must not have '.' or '..' segments");
        assert_eq!(key_reason("/etc/passwd"), "must not start with '/'");
        assert_eq!(key_reason("a\0b"), "must not contain NUL");
        assert_eq!(key_reason("..\\..\\x"), "must not contain '\\'");
        assert_eq!(
            key_reason("a//b"),
            "must not have empty segments ('//' or a trailing '/')"
        );
        assert_eq!(
            key_reason("a/"),
            "must not have empty segments ('//' or a trailing '/')"
        );
        assert_eq!(key_reason(&"k".repeat(1025)), "must be at most 1024 bytes");
        assert_eq!(
            key_reason(&format!("a/{}", "s".repeat(256))),
            "segments must be at most 255 bytes"
        );
    }

    #[test]
    fn ordinary_keys_pass() {
        for key in [
            "0b7c9f0e-6a43-4f8e-9c2e-1d2f3a4b5c6d-original",
            "dir/sub/file.txt",
            "...",
            ".hidden",
            "a b+c%d~e",
            "ünï/日本.png",
        ] {
            assert!(validate_key(key).is_ok(), "{key}");
        }
    }

    #[test]
    fn bucket_rules() {
        for bucket in ["abc", "my-bucket", "a.b.c", "0day", &"a".repeat(63)] {
            assert!(validate_bucket(bucket).is_ok(), "{bucket}");
        }
        assert_eq!(bucket_reason("ab"), "wrong length");
        assert_eq!(bucket_reason(&"a".repeat(64)), "wrong length");
        assert_eq!(
            bucket_reason("My-Bucket"),
            "a character outside a-z, 0-9, '-', '.'"
        );
        assert_eq!(
            bucket_reason("a/b"),
            "a character outside a-z, 0-9, '-', '.'"
        );
        assert_eq!(
            bucket_reason(".tmp"),
            "must start and end with a letter or digit"
        );
        assert_eq!(
            bucket_reason("abc-"),
            "must start and end with a letter or digit"
        );
        assert_eq!(bucket_reason("a..b"), "two dots in a row");
        assert_eq!(bucket_reason("10.0.0.1"), "looks like an IP address");
    }

    #[test]
    fn messages_name_the_value_and_the_rule() {
        let error = validate_key("a/../b\n").expect_err("refused");
        assert_eq!(
            error.to_string(),
            "object key must not have '.' or '..' segments; got 'a/../b\\n'"
        );
        let error = validate_bucket("B").expect_err("refused");
        assert_eq!(
            error.to_string(),
            "bucket must be 3 to 63 characters of lowercase letters, digits, '-' and '.', starting and ending with a letter or digit; got 'B' (wrong length)"
        );
    }
}
