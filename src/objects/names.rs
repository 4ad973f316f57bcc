//! Bucket and key rules, and where a key lives on disk. Every key S3 allows maps to exactly
//! one path below the bucket's folder, and no key can reach outside it.
//!
//! Disk layout, `root/<bucket>/<name>/.../<name>`: a key's `/`-separated segments map one
//! to one to names. Every segment but the last is a folder named `<segment>%2F` (the
//! segment and the `/` after it); the last is the file `<segment>`. Inside a name `%` is
//! written `%25` and `\` `%5C`, so no other `%XX` ever comes from a key's text; the file of
//! an empty last segment (a key ending in `/`) is `%00`, and that of a last segment `.` is
//! `%2E`. A name over 255 bytes (a file system's limit) keeps its first 160 bytes plus
//! `%23` and the SHA-256 of the whole segment in hex. So `a` (file `a`) and `a/b` (folder
//! `a%2F`, file `b`) live side by side, as S3 allows; `a//b` is `a%2F/%2F/b`; and a key
//! without `/`, `%` or `\` (every key depot makes) is a file under its own name.

use std::path::PathBuf;

use sha2::{Digest, Sha256};

use super::ObjectError;

const MAX_KEY_BYTES: usize = 1024;
/// NAME_MAX of the common file systems.
const MAX_NAME_BYTES: usize = 255;
/// What a shortened name keeps of its segment; the rest of the 255 bytes is the hash.
const SHORTENED_PREFIX_BYTES: usize = 160;
/// Folder and file names of one key together, so that the whole path stays well below
/// PATH_MAX (4096) with room for the root and bucket. Only keys of hundreds of empty or
/// `%` segments come near it.
const MAX_RELATIVE_PATH_BYTES: usize = 3072;

const FOLDER_MARK: &str = "%2F";
const EMPTY_FILE: &str = "%00";
const DOT_FILE: &str = "%2E";
const HASH_MARK: &str = "%23";

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

/// The keys the embedded store takes: what S3 allows (1 to 1024 bytes, no control
/// characters) except a leading `/` and `..` segments, which would read as an escape from
/// the bucket to anyone who looks at the path, and which HTTP clients rewrite anyway.
pub fn validate_key(key: &str) -> Result<(), ObjectError> {
    key_path(key).map(|_| ())
}

/// The path of `bucket`/`key` below the store's root, after checking both names.
pub fn object_path(bucket: &str, key: &str) -> Result<PathBuf, ObjectError> {
    validate_bucket(bucket)?;
    let mut path = PathBuf::from(bucket);
    path.extend(key_path(key)?);
    Ok(path)
}

/// The names (folders, then the file) that `key` maps to.
fn key_path(key: &str) -> Result<Vec<String>, ObjectError> {
    let refuse = |reason| {
        Err(ObjectError::InvalidKey {
            key: echo(key),
            reason,
        })
    };
    if key.is_empty() {
        return refuse("must not be empty");
    }
    if key.len() > MAX_KEY_BYTES {
        return refuse("must be at most 1024 bytes");
    }
    if key.contains('\0') {
        return refuse("must not contain NUL");
    }
    if key.chars().any(char::is_control) {
        return refuse("must not contain control characters");
    }
    if key.starts_with('/') {
        return refuse("must not start with '/'");
    }
    let segments: Vec<&str> = key.split('/').collect();
    if segments.contains(&"..") {
        return refuse("must not have '..' segments");
    }
    let last = segments.len() - 1;
    let names: Vec<String> = segments
        .iter()
        .enumerate()
        .map(|(i, segment)| {
            if i < last {
                folder_name(segment)
            } else {
                file_name(segment)
            }
        })
        .collect();
    let total: usize = names.iter().map(|n| n.len() + 1).sum();
    if total > MAX_RELATIVE_PATH_BYTES {
        return refuse(
            "nests too deep for the embedded store (its folder and file names would pass 3072 bytes)",
        );
    }
    Ok(names)
}

fn folder_name(segment: &str) -> String {
    let mut name = fit(escape(segment), MAX_NAME_BYTES - FOLDER_MARK.len(), segment);
    name.push_str(FOLDER_MARK);
    name
}

fn file_name(segment: &str) -> String {
    match segment {
        "" => EMPTY_FILE.to_owned(),
        "." => DOT_FILE.to_owned(),
        _ => fit(escape(segment), MAX_NAME_BYTES, segment),
    }
}

fn escape(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len() + 8);
    for c in segment.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\\' => out.push_str("%5C"),
            c => out.push(c),
        }
    }
    out
}

/// `name` when it fits in `max` bytes, else its start plus `%23` and the segment's hash.
fn fit(name: String, max: usize, segment: &str) -> String {
    if name.len() <= max {
        return name;
    }
    let mut cut = SHORTENED_PREFIX_BYTES;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut short = String::with_capacity(cut + HASH_MARK.len() + 64);
    short.push_str(&name[..cut]);
    short.push_str(HASH_MARK);
    crate::hex::push(&mut short, &Sha256::digest(segment.as_bytes()));
    short
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
    use std::collections::HashSet;
    use std::path::{Component, Path};

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

    fn on_disk(key: &str) -> String {
        object_path("bkt", key)
            .expect("a valid key")
            .to_str()
            .expect("UTF-8")
            .to_owned()
    }

    #[test]
    fn escaping_keys_are_refused() {
        assert_eq!(key_reason(""), "must not be empty");
        assert_eq!(key_reason(".."), "must not have '..' segments");
        assert_eq!(
            key_reason("a/../../etc/passwd"),
            "must not have '..' segments"
        );
        assert_eq!(key_reason("a/.."), "must not have '..' segments");
        assert_eq!(key_reason("/etc/passwd"), "must not start with '/'");
        assert_eq!(key_reason("a\0b"), "must not contain NUL");
        assert_eq!(key_reason("a\nb"), "must not contain control characters");
        assert_eq!(key_reason("a\u{7f}"), "must not contain control characters");
        assert_eq!(key_reason(&"k".repeat(1025)), "must be at most 1024 bytes");
        assert_eq!(
            key_reason(&format!("a{}", "/".repeat(1000))),
            "nests too deep for the embedded store (its folder and file names would pass 3072 bytes)"
        );
    }

    #[test]
    fn every_s3_key_shape_has_its_own_path() {
        let long_segment = "s".repeat(300);
        let long_key = "k".repeat(1024);
        let cases = [
            (
                "0b7c9f0e-6a43-4f8e-9c2e-1d2f3a4b5c6d-original",
                "bkt/0b7c9f0e-6a43-4f8e-9c2e-1d2f3a4b5c6d-original",
            ),
            ("a", "bkt/a"),
            ("a/b", "bkt/a%2F/b"),
            ("a/", "bkt/a%2F/%00"),
            ("a//b", "bkt/a%2F/%2F/b"),
            ("a/./b", "bkt/a%2F/.%2F/b"),
            (".", "bkt/%2E"),
            ("a/.", "bkt/a%2F/%2E"),
            ("...", "bkt/..."),
            (".hidden", "bkt/.hidden"),
            ("100%", "bkt/100%25"),
            ("%2F", "bkt/%252F"),
            ("%00", "bkt/%2500"),
            ("..\\x", "bkt/..%5Cx"),
            ("a b+c~'(!*;=&@$)", "bkt/a b+c~'(!*;=&@$)"),
            ("ünï/日本.png", "bkt/ünï%2F/日本.png"),
        ];
        for (key, path) in cases {
            assert_eq!(on_disk(key), path, "{key:?}");
        }
        // Names that do not fit end in the hash of the whole segment.
        let short = on_disk(&format!("{long_segment}/x"));
        assert!(
            short.starts_with(&format!("bkt/{}%23", &long_segment[..160])),
            "{short}"
        );
        assert!(short.ends_with("%2F/x"), "{short}");
        let long = on_disk(&long_key);
        assert_eq!(long.len(), "bkt/".len() + 160 + 3 + 64);
        assert!(on_disk(&"é".repeat(200)).is_char_boundary(4 + 160));
    }

    #[test]
    fn different_keys_never_share_a_path_and_names_are_plain() {
        let long = "s".repeat(300);
        let keys = [
            "a", "a/", "a//", "a/b", "a//b", "a%2F", "a%2F/b", "a/%00", "a/%2E", "a/.", "a/..x",
            "%", "%25", "%2E", ".", "...", "a\\b", "a%5Cb", "", "b/", "/", "//",
        ];
        let mut seen = HashSet::new();
        let keys = keys.iter().map(|k| (*k).to_owned()).chain([
            long.clone(),
            format!("{long}x"),
            format!("{long}/a"),
            format!("{long}x/a"),
        ]);
        for key in keys {
            let Ok(path) = object_path("bkt", &key) else {
                continue;
            };
            assert!(
                path.components().all(|c| matches!(c, Component::Normal(_))),
                "{key:?}: {path:?}"
            );
            assert!(
                path.components()
                    .all(|c| c.as_os_str().len() <= MAX_NAME_BYTES),
                "{key:?}"
            );
            assert!(seen.insert(path.clone()), "{key:?} shares {path:?}");
        }
        // A folder never has the name of a file: an object and a folder of other objects
        // can share a key prefix.
        let file = object_path("bkt", "a").expect("valid");
        let folder = object_path("bkt", "a/b").expect("valid");
        assert_ne!(Some(file.as_path()), folder.parent());
        assert_eq!(folder.parent(), Some(Path::new("bkt/a%2F")));
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
            "object key must not contain control characters; got 'a/../b\\n'"
        );
        let error = validate_bucket("B").expect_err("refused");
        assert_eq!(
            error.to_string(),
            "bucket must be 3 to 63 characters of lowercase letters, digits, '-' and '.', starting and ending with a letter or digit; got 'B' (wrong length)"
        );
    }
}
