//! Percent coding (RFC 3986 §2.1), written once: SigV4 canonical paths and queries, signed
//! URLs, query strings, Google Sheets URL segments, `filename*` of downloads and the
//! `Depot-Warnings` header all escape and unescape through here. Callers differ only in
//! which ASCII bytes they leave as they are.

use crate::hex::{UPPER_DIGITS, digit_value};

/// RFC 3986 unreserved characters (`A-Za-z0-9-._~`), which SigV4 and URL segments keep.
pub fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Appends `bytes` to `out`, each ASCII byte for which `keep` holds as it is and every
/// other byte as `%XX` (uppercase). Bytes past ASCII are always escaped, so the output is
/// ASCII whatever `keep` says.
pub fn encode_into(out: &mut String, bytes: &[u8], keep: impl Fn(u8) -> bool) {
    for &b in bytes {
        if b.is_ascii() && keep(b) {
            out.push(char::from(b));
        } else {
            push_escape(out, b);
        }
    }
}

/// `text` escaped as `encode_into` does.
pub fn encode(text: &str, keep: impl Fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    encode_into(&mut out, text.as_bytes(), keep);
    out
}

/// Appends one byte as `%XX`.
pub fn push_escape(out: &mut String, b: u8) {
    out.push('%');
    out.push(char::from(UPPER_DIGITS[usize::from(b >> 4)]));
    out.push(char::from(UPPER_DIGITS[usize::from(b & 0x0f)]));
}

/// A `%` not followed by two hex digits.
#[derive(Debug, PartialEq, Eq)]
pub struct MalformedEscape;

/// Appends `raw` to `out` with every `%XX` replaced by its byte; everything else (`+`
/// included: only query strings read it as a space) is copied.
pub fn decode_into(raw: &[u8], out: &mut Vec<u8>) -> Result<(), MalformedEscape> {
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' {
            let high = raw.get(i + 1).copied().and_then(digit_value);
            let low = raw.get(i + 2).copied().and_then(digit_value);
            let (Some(high), Some(low)) = (high, low) else {
                return Err(MalformedEscape);
            };
            out.push(high << 4 | low);
            i += 3;
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    Ok(())
}

/// `raw` unescaped; `None` when an escape is malformed or the bytes are not UTF-8.
pub fn decode(raw: &str) -> Option<String> {
    let mut out = Vec::with_capacity(raw.len());
    decode_into(raw.as_bytes(), &mut out).ok()?;
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn keeps_what_the_caller_keeps_and_escapes_the_rest_in_uppercase() {
        assert_eq!(encode("a b/c~ü", is_unreserved), "a%20b%2Fc~%C3%BC");
        assert_eq!(
            encode("a b/c~ü", |b| is_unreserved(b) || b == b'/'),
            "a%20b/c~%C3%BC"
        );
        // Past ASCII is escaped even when the predicate would keep everything.
        assert_eq!(encode("é", |_| true), "%C3%A9");
    }

    #[test]
    fn decodes_either_case_and_refuses_broken_escapes_and_non_utf8() {
        assert_eq!(decode("a%20b/c~%c3%BC+").as_deref(), Some("a b/c~ü+"));
        assert_eq!(decode("a%2"), None);
        assert_eq!(decode("%zz"), None);
        assert_eq!(decode("%FF"), None);
        let mut bytes = Vec::new();
        assert_eq!(decode_into(b"%FF%00", &mut bytes), Ok(()));
        assert_eq!(bytes, [0xff, 0x00]);
    }

    proptest! {
        #[test]
        fn decoding_an_encoding_gives_the_text_back(text in any::<String>(), keep_all in any::<bool>()) {
            let encoded = encode(&text, |b| keep_all && b != b'%' || is_unreserved(b));
            prop_assert!(encoded.is_ascii());
            prop_assert_eq!(decode(&encoded), Some(text));
        }
    }
}
