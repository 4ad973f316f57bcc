//! The one redaction of the URLs depot prints (SPEC §10: a URL's path, query and
//! credentials never appear in `/health`, logs or error messages). Hook URLs, published
//! sheets and database URLs carry their secrets in every part but the host: a token in the
//! query (`?token=`), a path (`/services/T0/B0/secret`), a password (`user:pw@`).
//!
//! Two forms, written once here: `url` for everything the daemon and the commands say
//! (`scheme://host[:port]`, then `/***` when something was hidden), and `for_config` for
//! `depot config check`, the operator's own listing of what they configured, which keeps
//! the user, host and path and masks the password, every query value and the fragment.

use crate::error_chain::error_chain;

/// What stands for a hidden part.
pub const MARK: &str = "***";

/// Pieces of a URL shorter than this are not searched for in free text (`scrub`): they
/// would match ordinary words of the message, and are no secret worth the name.
const MIN_PIECE: usize = 4;

/// A URL as `/health`, logs, error messages and the console show it: `scheme://host[:port]`,
/// followed by `/***` when it had anything more (credentials, a path other than `/`, a
/// query, a fragment). Text that is not `scheme://host...` is `***` whole.
pub fn url(text: &str) -> String {
    let Some(parts) = split(text) else {
        return MARK.to_owned();
    };
    let hidden = parts.userinfo.is_some() || !matches!(parts.rest, "" | "/");
    // Both are case-insensitive: written as parsers write them.
    let mut shown = format!("{}://{}", parts.scheme, parts.host).to_ascii_lowercase();
    if hidden {
        shown.push('/');
        shown.push_str(MARK);
    }
    shown
}

/// Whether `text` looks like a URL rather than a path or a word: a scheme of two letters or
/// more before `:/` (`https://`, a mistyped `htps://`, `s3:/`), credentials before a host
/// (`user:pass@host`), or a query with a value (`sheet?token=...`). Such text is shown only
/// as `url` shows it, whatever its scheme, and is never read as a file name.
pub fn looks_like_url(text: &str) -> bool {
    let text = text.trim();
    let first_segment = text.split('/').next().unwrap_or(text);
    let credentials = first_segment
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.contains(':'));
    let query = text.split_once('?').is_some_and(|(_, query)| {
        query.split('&').any(|pair| {
            pair.split_once('=')
                .is_some_and(|(name, _)| !name.is_empty())
        })
    });
    scheme(text).is_some() || credentials || query
}

/// The scheme of text that starts like a URL (`scheme:/`): letters first, then letters,
/// digits, `+`, `-` or `.`, two characters at least (`C:/` is a drive, not a scheme).
pub fn scheme(text: &str) -> Option<&str> {
    let (scheme, _) = text.trim().split_once(":/")?;
    let mut chars = scheme.chars();
    let ok = scheme.len() >= 2
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then_some(scheme)
}

/// A URL as `depot config check` shows it (SPEC §7: `redis://user:***@host:6379/0`):
/// everything but the password, the query's values and the fragment, so that the operator
/// recognises what they configured. A user part without a password is masked whole (some
/// clients read a lone user part as the password). Text that is not a URL is `***`.
pub fn for_config(text: &str) -> String {
    let Some(parts) = split(text) else {
        return MARK.to_owned();
    };
    let mut shown = format!("{}://", parts.scheme);
    if let Some(userinfo) = parts.userinfo {
        match userinfo.split_once(':') {
            Some((user, _password)) => {
                shown.push_str(user);
                shown.push(':');
                shown.push_str(MARK);
            }
            None => shown.push_str(MARK),
        }
        shown.push('@');
    }
    shown.push_str(parts.host);
    let (before_fragment, fragment) = match parts.rest.split_once('#') {
        Some((before, _)) => (before, true),
        None => (parts.rest, false),
    };
    let (path, query) = match before_fragment.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (before_fragment, None),
    };
    shown.push_str(path);
    if let Some(query) = query {
        shown.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _value)) => format!("{name}={MARK}"),
                None if pair.is_empty() => String::new(),
                None => MARK.to_owned(),
            })
            .collect();
        shown.push_str(&pairs.join("&"));
    }
    if fragment {
        shown.push('#');
        shown.push_str(MARK);
    }
    shown
}

/// `text` (a library's error message, a receiver's answer) with `url` in it replaced by
/// its shown form, as written or as a URL parser rewrites it (`http://h?q` becomes
/// `http://h/?q`), and then every secret piece of it that still appears on its own (the
/// password, the path, the query and each of its values, the fragment) by `***`.
pub fn scrub(text: &str, url: &str) -> String {
    let url = url.trim();
    let mut text = text.to_owned();
    if url.is_empty() {
        return text;
    }
    let shown = self::url(url);
    let parsed = url::Url::parse(url).ok();
    let mut wholes = vec![url.to_owned()];
    wholes.extend(parsed.as_ref().map(|p| p.as_str().to_owned()));
    for whole in wholes {
        text = text.replace(&whole, &shown);
    }
    let mut pieces = secret_pieces(url);
    pieces.sort_by_key(|piece| std::cmp::Reverse(piece.len()));
    for piece in pieces {
        if piece.len() >= MIN_PIECE {
            text = text.replace(&piece, MARK);
        }
    }
    text
}

/// The cause chain of a failed HTTP call to `url`, without the URL: reqwest writes the
/// whole URL into its message ("error sending request for url (...)").
pub fn http_error(error: reqwest::Error, url: &str) -> String {
    scrub(&error_chain(&error.without_url()), url)
}

/// A URL cut where `url` and `for_config` need it.
struct Parts<'a> {
    scheme: &'a str,
    /// Everything before the last `@` of the authority.
    userinfo: Option<&'a str>,
    /// `host[:port]`, checked to hold nothing else.
    host: &'a str,
    /// From the first `/`, `?`, `#` or `\` after the authority on.
    rest: &'a str,
}

fn split(text: &str) -> Option<Parts<'_>> {
    let (scheme, after) = text.trim().split_once("://")?;
    let mut chars = scheme.chars();
    let scheme_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return None;
    }
    // WHATWG parsers end the authority at a backslash too (`http://h\path`).
    let end = after.find(['/', '?', '#', '\\']).unwrap_or(after.len());
    let (authority, rest) = after.split_at(end);
    let (userinfo, host) = match authority.rsplit_once('@') {
        Some((userinfo, host)) => (Some(userinfo), host),
        None => (None, authority),
    };
    is_host_and_port(host).then_some(Parts {
        scheme,
        userinfo,
        host,
        rest,
    })
}

/// `name`, `name:port`, `[v6]` or `[v6]:port`: a host part that holds anything else (a
/// password whose `/` cut the authority short, say) is not shown at all.
fn is_host_and_port(text: &str) -> bool {
    let (host_ok, port) = match text.strip_prefix('[') {
        Some(bracketed) => match bracketed.split_once(']') {
            Some((v6, after)) => (
                v6.chars()
                    .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.')),
                after,
            ),
            None => return false,
        },
        None => {
            let (name, port) = text.split_at(text.find(':').unwrap_or(text.len()));
            let name_ok = name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
            (name_ok, port)
        }
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| digits.chars().all(|c| c.is_ascii_digit()));
    host_ok && port_ok
}

/// The parts of `url` that may be secret, as written and as a parser reads them.
fn secret_pieces(url: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    if let Some(parts) = split(url) {
        if let Some(userinfo) = parts.userinfo {
            pieces.push(userinfo.to_owned());
            if let Some((_, password)) = userinfo.split_once(':') {
                pieces.push(password.to_owned());
            }
        }
        pieces.push(parts.rest.to_owned());
        let (before_fragment, fragment) = parts.rest.split_once('#').unwrap_or((parts.rest, ""));
        pieces.push(fragment.to_owned());
        let (path, query) = before_fragment
            .split_once('?')
            .unwrap_or((before_fragment, ""));
        pieces.push(path.to_owned());
        pieces.push(query.to_owned());
        for pair in query.split('&') {
            pieces.push(
                pair.split_once('=')
                    .map_or(pair, |(_, value)| value)
                    .to_owned(),
            );
        }
    }
    if let Ok(parsed) = url::Url::parse(url) {
        pieces.extend(parsed.password().map(str::to_owned));
        pieces.extend(parsed.query().map(str::to_owned));
        pieces.extend(parsed.fragment().map(str::to_owned));
        pieces.push(parsed.path().to_owned());
        for (_, value) in parsed.query_pairs() {
            pieces.push(value.into_owned());
        }
    }
    let decoded: Vec<String> = pieces
        .iter()
        .filter_map(|piece| crate::percent::decode(piece))
        .collect();
    pieces.extend(decoded);
    pieces.retain(|piece| !matches!(piece.as_str(), "" | "/"));
    pieces.sort();
    pieces.dedup();
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shown_urls_keep_the_scheme_host_and_port_only() {
        let cases = [
            (
                "https://hooks.example.com/services/T0/B0/secret",
                "https://hooks.example.com/***",
            ),
            ("http://127.0.0.1:9000/", "http://127.0.0.1:9000"),
            ("http://127.0.0.1:9000", "http://127.0.0.1:9000"),
            ("http://h:1/hook?token=T0K", "http://h:1/***"),
            ("http://h:1?token=T0K", "http://h:1/***"),
            ("redis://u:hunter2@cache:6379/0", "redis://cache:6379/***"),
            ("redis://cache/0?password=hunter2", "redis://cache/***"),
            ("rediss://:pw@[::1]:6380", "rediss://[::1]:6380/***"),
            (
                "postgres://depot:pw@db:5432/depot",
                "postgres://db:5432/***",
            ),
            ("https://u:p@ss@h.example/x", "https://h.example/***"),
            ("http://h.example\\secret", "http://h.example/***"),
            // The password's `/` ends the authority early: no host can be trusted.
            ("redis://user:pa/ss@host/0", "***"),
            ("not a url hunter2", "***"),
            ("", "***"),
        ];
        for (url, shown) in cases {
            assert_eq!(super::url(url), shown, "{url}");
        }
    }

    #[test]
    fn text_looks_like_a_url_by_a_scheme_credentials_or_a_query_whatever_the_scheme() {
        for text in [
            "https://sheets.example/pub",
            "htps://user:pass@sheets.example/pub?key=K",
            "HTTPS:/sheets.example",
            "s3://bucket/sheet.csv",
            "file:///tmp/sheet.csv",
            "user:pass@sheets.example/pub",
            "sheets.example/pub?key=K",
            " sheet.csv?token=abc ",
        ] {
            assert!(looks_like_url(text), "{text}");
        }
        for text in [
            "sheet.csv",
            "data/sheets/translations.xlsx",
            "/srv/sheets/team@example.csv",
            "team@example/sheet.csv",
            "C:/sheets/sheet.csv",
            "what?.csv",
            "google",
            "",
        ] {
            assert!(!looks_like_url(text), "{text}");
        }
        assert_eq!(scheme("htps://u:p@h/x"), Some("htps"));
        assert_eq!(scheme("C:/x"), None);
        assert_eq!(scheme("9p://x"), None);
        // Shown by its host whatever its scheme; without a scheme, not at all.
        assert_eq!(
            super::url("htps://user:pass@sheets.example/pub?key=K"),
            "htps://sheets.example/***"
        );
        assert_eq!(super::url("user:pass@sheets.example/pub?key=K"), "***");
    }

    #[test]
    fn config_check_keeps_all_but_the_password_and_query_values() {
        let cases = [
            (
                "postgres://depot:hunter2@db:5432/depot",
                "postgres://depot:***@db:5432/depot",
            ),
            (
                "redis://user:hunter2@host:6379/0",
                "redis://user:***@host:6379/0",
            ),
            ("rediss://:hunter2@host:6380", "rediss://:***@host:6380"),
            ("redis://hunter2@host/1", "redis://***@host/1"),
            ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
            (
                "redis://cache/0?password=hunter2&protocol=resp3",
                "redis://cache/0?password=***&protocol=***",
            ),
            ("redis://u:p@ss@host/0?x=@", "redis://u:***@host/0?x=***"),
            (
                "https://h.example/pub?hunter2#frag",
                "https://h.example/pub?***#***",
            ),
            ("not a url hunter2", "***"),
        ];
        for (url, shown) in cases {
            assert_eq!(for_config(url), shown, "{url}");
        }
    }

    #[test]
    fn scrub_replaces_the_url_as_a_parser_rewrote_it_and_its_pieces() {
        let url = "HTTP://127.0.0.1:9?token=t0k3n-secret";
        // reqwest writes the URL as parsed: scheme lower-cased, a `/` added.
        let text = "error sending request for url (http://127.0.0.1:9/?token=t0k3n-secret): \
                    and the receiver said t0k3n-secret";
        let scrubbed = scrub(text, url);
        assert!(!scrubbed.contains("t0k3n"), "{scrubbed}");
        assert_eq!(
            scrubbed,
            "error sending request for url (http://127.0.0.1:9/***): and the receiver said ***"
        );
        // Short pieces are left alone: they would eat ordinary words.
        assert_eq!(scrub("a b /0", "redis://h/0"), "a b /0");
    }

    /// A piece no host, scheme or port can contain: it starts with `Z` and holds a digit.
    fn secret() -> impl Strategy<Value = String> {
        "Z[0-9][A-Za-z0-9]{6,14}"
    }

    /// A generated URL's parts: all but the scheme, host and port are secret.
    #[derive(Debug, Clone)]
    struct Pieces {
        scheme: &'static str,
        /// User and password.
        user: Option<(String, String)>,
        host: String,
        port: Option<u16>,
        path: Vec<String>,
        query: Vec<(String, String)>,
        fragment: Option<String>,
    }

    impl Pieces {
        fn authority(&self) -> String {
            match self.port {
                Some(port) => format!("{}:{port}", self.host),
                None => self.host.clone(),
            }
        }

        fn url(&self) -> String {
            let mut url = format!("{}://", self.scheme);
            if let Some((user, password)) = &self.user {
                url.push_str(&format!("{user}:{password}@"));
            }
            url.push_str(&self.authority());
            for segment in &self.path {
                url.push('/');
                url.push_str(segment);
            }
            let pairs: Vec<String> = self.query.iter().map(|(n, v)| format!("{n}={v}")).collect();
            if !pairs.is_empty() {
                url.push('?');
                url.push_str(&pairs.join("&"));
            }
            if let Some(fragment) = &self.fragment {
                url.push('#');
                url.push_str(fragment);
            }
            url
        }

        fn has_more_than_a_host(&self) -> bool {
            self.user.is_some()
                || !self.path.is_empty()
                || !self.query.is_empty()
                || self.fragment.is_some()
        }
    }

    fn pieces() -> impl Strategy<Value = Pieces> {
        (
            prop::sample::select(vec!["http", "https", "redis", "rediss", "postgres"]),
            prop::option::of((secret(), secret())),
            "[a-z]{1,10}(\\.[a-z]{2,6}){0,2}",
            prop::option::of(1u16..),
            prop::collection::vec(secret(), 0..3),
            prop::collection::vec(("[a-z]{1,6}", secret()), 0..3),
            prop::option::of(secret()),
        )
            .prop_map(|(scheme, user, host, port, path, query, fragment)| Pieces {
                scheme,
                user,
                host,
                port,
                path,
                query,
                fragment,
            })
    }

    proptest! {
        /// No secret piece of any URL survives the shown form, which is exactly
        /// `scheme://host[:port]` and the marker; nor free text scrubbed of it; nor
        /// `config check`'s form, which keeps the user and the path only.
        #[test]
        fn no_secret_piece_survives(pieces in pieces()) {
            let url = pieces.url();
            let shown = super::url(&url);
            let marker = if pieces.has_more_than_a_host() { "/***" } else { "" };
            prop_assert_eq!(&shown, &format!("{}://{}{marker}", pieces.scheme, pieces.authority()));
            // As written and as a parser rewrites it.
            let parsed = url::Url::parse(&url).map(|u| u.to_string()).unwrap_or_default();
            let scrubbed = scrub(&format!("failed: {url} ({parsed})"), &url);
            let configured = for_config(&url);
            let mut hidden: Vec<&String> = pieces.query.iter().map(|(_, value)| value).collect();
            hidden.extend(&pieces.fragment);
            if let Some((_, password)) = &pieces.user {
                hidden.push(password);
            }
            for secret in hidden {
                prop_assert!(!shown.contains(secret.as_str()), "{} in {}", secret, shown);
                prop_assert!(!scrubbed.contains(secret.as_str()), "{} in {}", secret, scrubbed);
                prop_assert!(!configured.contains(secret.as_str()), "{} in {}", secret, configured);
            }
            let mut kept_by_config: Vec<&String> = pieces.path.iter().collect();
            kept_by_config.extend(pieces.user.as_ref().map(|(user, _)| user));
            for piece in kept_by_config {
                prop_assert!(!shown.contains(piece.as_str()), "{} in {}", piece, shown);
                prop_assert!(!scrubbed.contains(piece.as_str()), "{} in {}", piece, scrubbed);
                prop_assert!(configured.contains(piece.as_str()), "{} not in {}", piece, configured);
            }
        }

        /// Whatever the text, the shown form holds no user part, query or fragment, and
        /// nothing after the host but the marker.
        #[test]
        fn any_text_is_shown_as_a_host_or_not_at_all(text in "\\PC{0,60}") {
            let shown = super::url(&text);
            prop_assert!(!shown.contains(['@', '?', '#', '\\', ' ']), "{}", shown);
            if shown != MARK {
                let (_, after) = shown.split_once("://").unwrap();
                let rest = after.find('/').map_or("", |i| &after[i..]);
                prop_assert!(rest.is_empty() || rest == "/***", "{}", shown);
            }
        }
    }
}
