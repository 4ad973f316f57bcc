//! SigV4 round trip: `Signer::new` (endpoint parsing), `presign_get`, then `Verifier::verify`
//! of the URL as a server receives it must accept within the expiry and refuse after it;
//! then the fuzzer changes the request, and a changed request that is still accepted must
//! name the same resource (method, host, decoded path), query and validity as the signed one.
#![no_main]

use arbitrary::Arbitrary;
use chrono::{DateTime, TimeDelta, Utc};
use depot::secret::Secret;
use depot::signing::{
    Addressing, Credentials, PresignedRequest, Signer, SigningTarget, Verifier, VerifyError,
};

#[derive(Debug, Arbitrary)]
enum Endpoint {
    Embedded,
    Aws,
    Minio,
    Ipv6,
    Raw(String),
}

#[derive(Debug, Arbitrary)]
enum Change {
    /// Replace the byte at `at` (of method + host + path + query, as one text) with `with`.
    Byte {
        at: u16,
        with: u8,
    },
    Insert {
        at: u16,
        text: String,
    },
    Remove {
        at: u16,
        len: u8,
    },
    /// Move a query parameter to the end (the canonical query sorts: still accepted).
    Reorder {
        index: u8,
    },
    /// Re-encode one query character as `%XX` (the same canonical query: still accepted).
    Escape {
        at: u16,
    },
}

#[derive(Debug, Arbitrary)]
struct Input {
    endpoint: Endpoint,
    virtual_host: bool,
    region: String,
    access_key_id: String,
    secret: String,
    token: Option<String>,
    bucket: String,
    key: String,
    expires: u32,
    /// Seconds since 1970, kept inside years 1970 to 9999.
    now: u64,
    /// Seconds after signing that the signed request is verified at.
    delay: u32,
    changes: Vec<Change>,
}

const MAX_NOW: u64 = 253_402_300_799 - 8 * 86_400;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Received {
    method: String,
    host: String,
    path: String,
    query: String,
}

impl Received {
    fn as_request(&self) -> PresignedRequest<'_> {
        PresignedRequest {
            method: &self.method,
            host: &self.host,
            path: &self.path,
            query: &self.query,
        }
    }

    /// What the request asks for, as the server sees it: method, host, each path segment's
    /// bytes, and the query's decoded pairs (sorted, signature aside). `None` when a part
    /// does not decode (the verifier refuses those).
    fn meaning(&self) -> Option<(String, String, Vec<Vec<u8>>, Vec<(Vec<u8>, Vec<u8>)>)> {
        let path = self
            .path
            .split('/')
            .map(decode)
            .collect::<Option<Vec<_>>>()?;
        let mut pairs = Vec::new();
        for piece in self.query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
            let (name, value) = (decode(name)?, decode(value)?);
            if name != b"X-Amz-Signature" {
                pairs.push((name, value));
            }
        }
        pairs.sort();
        Some((
            self.method.clone(),
            self.host.trim().to_owned(),
            path,
            pairs,
        ))
    }
}

fn decode(raw: &str) -> Option<Vec<u8>> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

fn received(url: &str) -> Received {
    let rest = url.split_once("://").expect("a scheme").1;
    let (host, path_and_query) = rest.split_at(rest.find('/').expect("a path"));
    let (path, query) = path_and_query.split_once('?').expect("a query");
    Received {
        method: "GET".into(),
        host: host.into(),
        path: path.into(),
        query: query.into(),
    }
}

/// Applies a change to the request; `None` when it leaves no valid UTF-8 text.
fn change(request: &Received, change: &Change) -> Option<Received> {
    const SEP: char = '\n';
    let mut whole = format!(
        "{}{SEP}{}{SEP}{}{SEP}{}",
        request.method, request.host, request.path, request.query
    )
    .into_bytes();
    let at = |at: &u16, len: usize| usize::from(*at) % (len + 1);
    match change {
        Change::Byte { at: i, with } => {
            let i = at(i, whole.len());
            if i < whole.len() {
                whole[i] = *with;
            }
        }
        Change::Insert { at: i, text } => {
            let i = at(i, whole.len());
            whole.splice(i..i, text.bytes());
        }
        Change::Remove { at: i, len } => {
            let i = at(i, whole.len());
            let end = (i + usize::from(*len)).min(whole.len());
            whole.drain(i..end);
        }
        Change::Reorder { index } => {
            let mut pieces: Vec<&str> = request.query.split('&').collect();
            let piece = pieces.remove(usize::from(*index) % pieces.len());
            pieces.push(piece);
            return Some(Received {
                query: pieces.join("&"),
                ..request.clone()
            });
        }
        Change::Escape { at: i } => {
            let query = request.query.as_bytes();
            let i = at(i, query.len());
            let c = *query.get(i)?;
            let in_escape = query[i.saturating_sub(2)..i].contains(&b'%');
            if c == b'%' || c == b'&' || c == b'=' || !c.is_ascii() || in_escape {
                return None;
            }
            let mut escaped = query[..i].to_vec();
            escaped.extend(format!("%{c:02X}").bytes());
            escaped.extend(&query[i + 1..]);
            return Some(Received {
                query: String::from_utf8(escaped).ok()?,
                ..request.clone()
            });
        }
    }
    let whole = String::from_utf8(whole).ok()?;
    let mut parts = whole.splitn(4, SEP);
    Some(Received {
        method: parts.next()?.into(),
        host: parts.next()?.into(),
        path: parts.next()?.into(),
        query: parts.next()?.into(),
    })
}

libfuzzer_sys::fuzz_target!(|input: Input| {
    let endpoint = match input.endpoint {
        Endpoint::Embedded => "http://127.0.0.1:3000/objects".to_owned(),
        Endpoint::Aws => "https://s3.amazonaws.com".to_owned(),
        Endpoint::Minio => "http://minio.local:9000/".to_owned(),
        Endpoint::Ipv6 => "http://[::1]:9000/proxy/s3".to_owned(),
        Endpoint::Raw(raw) => raw,
    };
    let addressing = if input.virtual_host {
        Addressing::VirtualHost
    } else {
        Addressing::Path
    };
    let target = SigningTarget {
        endpoint,
        addressing,
        region: input.region,
    };
    let credentials = Credentials {
        access_key_id: input.access_key_id.clone(),
        secret_access_key: Secret::new(input.secret.clone()),
        session_token: input.token.map(Secret::new),
    };
    let Ok(signer) = Signer::new(target, credentials) else {
        return;
    };
    let now_secs = i64::try_from(input.now % MAX_NOW).unwrap_or(0);
    let now = DateTime::<Utc>::from_timestamp(now_secs, 0).expect("in range");
    let expires = u64::from(input.expires);
    let Ok(url) = signer.presign_get(&input.bucket, &input.key, expires, now) else {
        return;
    };
    let signed = received(&url);
    let verifier = Verifier::new(
        input.access_key_id,
        Secret::new(input.secret),
        TimeDelta::minutes(5),
    );
    verifier
        .verify(&signed.as_request(), now)
        .unwrap_or_else(|e| panic!("a URL just signed is refused: {e:?}\n{url}"));
    let later = now + TimeDelta::seconds(i64::from(input.delay));
    let outcome = verifier.verify(&signed.as_request(), later);
    if u64::from(input.delay) < expires {
        assert_eq!(
            outcome,
            Ok(()),
            "refused {} s after signing\n{url}",
            input.delay
        );
    } else {
        assert_eq!(outcome, Err(VerifyError::Expired), "{url}");
    }

    let meaning = signed.meaning().expect("a signed URL decodes");
    let mut request = signed.clone();
    for c in &input.changes {
        let Some(changed) = change(&request, c) else {
            continue;
        };
        let was_accepted = verifier.verify(&request.as_request(), now).is_ok();
        request = changed;
        let accepted = verifier.verify(&request.as_request(), now).is_ok();
        if was_accepted && matches!(c, Change::Reorder { .. } | Change::Escape { .. }) {
            assert!(
                accepted,
                "{c:?} of an accepted request is refused: {request:?}"
            );
        }
        if accepted {
            assert_eq!(
                request.meaning().as_ref(),
                Some(&meaning),
                "a changed request is accepted: {request:?}\nsigned: {signed:?}"
            );
        }
    }
});
