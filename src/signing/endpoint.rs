//! Where signed URLs point: the endpoint of a `SigningTarget` checked and split once, and
//! the URL of an object under it, path-style or virtual-host as the addressing says.

use super::canonical::{canonical_path, encode_into};
use super::{Addressing, SigningError};

/// The endpoint split once at construction. `host` is what both the URL and the `Host`
/// header carry: lowercased, with the port unless it is the scheme's default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Endpoint {
    scheme: &'static str,
    host: String,
    pub(super) is_ip: bool,
    /// `""` or `/seg/seg`, canonically encoded.
    prefix: String,
}

/// Where an object is: its URL (scheme, host, path; nothing after) and the offsets of the
/// host and the path in it.
pub(super) struct ObjectUrl {
    pub(super) url: String,
    pub(super) host_start: usize,
    pub(super) path_start: usize,
}

impl Endpoint {
    pub(super) fn parse(endpoint: &str) -> Result<Endpoint, SigningError> {
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

    /// The URL of `bucket`/`key`, path-style or virtual-host as `addressing` says
    /// (botocore's rule: a bucket that cannot be a host name goes in the path), with room
    /// for `extra` more bytes.
    pub(super) fn object_url(
        &self,
        addressing: Addressing,
        bucket: &str,
        key: &str,
        extra: usize,
    ) -> Result<ObjectUrl, SigningError> {
        if bucket.is_empty() || bucket.contains('/') {
            return Err(SigningError::Bucket(bucket.to_owned()));
        }
        if key.is_empty() {
            return Err(SigningError::EmptyKey);
        }
        let virtual_host = addressing == Addressing::VirtualHost
            && is_virtual_hostable(bucket, self.scheme == "http");
        let mut url = String::with_capacity(
            extra + self.host.len() + self.prefix.len() + bucket.len() + 3 * key.len(),
        );
        url.push_str(self.scheme);
        url.push_str("://");
        let host_start = url.len();
        if virtual_host {
            url.push_str(bucket);
            url.push('.');
        }
        url.push_str(&self.host);
        let path_start = url.len();
        url.push_str(&self.prefix);
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
}

/// A region is a key-derivation input and part of the credential scope: letters, digits,
/// `-`, `_` and `.`.
pub(super) fn check_region(region: &str) -> Result<(), ()> {
    let ok = !region.is_empty()
        && region
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok { Ok(()) } else { Err(()) }
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
