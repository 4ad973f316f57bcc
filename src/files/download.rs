//! The name a browser saves a download under: `Content-Disposition: attachment` carrying a
//! record's `fileName` (RFC 6266), which `GET /file?download=true` signs into the URL as
//! `response-content-disposition`. Pure text work.

/// `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded name>`.
///
/// The fallback is for clients that do not read `filename*` (RFC 6266 §4.3): every
/// character outside printable ASCII, and `"`, `\` and `%`, becomes `_` (a quoted string
/// cannot hold a raw `"` or `\` reliably, and some clients decode `%XX` in it, which
/// RFC 6266 appendix D advises against). `filename*` carries the exact name: its UTF-8
/// bytes, each outside RFC 5987's `attr-char` as `%XX`. Only ASCII comes out, so the
/// value is always a valid header value.
pub fn attachment(file_name: &str) -> String {
    let mut out = String::with_capacity(40 + 4 * file_name.len());
    out.push_str("attachment; filename=\"");
    out.extend(file_name.chars().map(|c| {
        if (' '..='~').contains(&c) && !matches!(c, '"' | '\\' | '%') {
            c
        } else {
            '_'
        }
    }));
    out.push_str("\"; filename*=UTF-8''");
    crate::percent::encode_into(&mut out, file_name.as_bytes(), is_attr_char);
    out
}

/// RFC 5987 `attr-char`: ALPHA, DIGIT and `!#$&+-.^_`|~`.
fn is_attr_char(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'!' | b'#' | b'$' | b'&' | b'+' | b'-' | b'.' | b'^' | b'_' | b'`' | b'|' | b'~'
        )
}

#[cfg(test)]
mod tests {
    use super::attachment;

    #[test]
    fn plain_names_appear_in_both_forms() {
        assert_eq!(
            attachment("report.pdf"),
            "attachment; filename=\"report.pdf\"; filename*=UTF-8''report.pdf"
        );
    }

    #[test]
    fn fallback_replaces_what_a_quoted_string_cannot_carry() {
        assert_eq!(
            attachment("Ünï \"q\" a\\b 100%\t\u{7f}😀.txt"),
            "attachment; filename=\"_n_ _q_ a_b 100____.txt\"; \
             filename*=UTF-8''%C3%9Cn%C3%AF%20%22q%22%20a%5Cb%20100%25%09%7F%F0%9F%98%80.txt"
        );
    }

    #[test]
    fn attr_chars_stay_and_separators_are_encoded() {
        assert_eq!(
            attachment("a!#$&+-.^_`|~b;c,d=e'f(g)*h/i"),
            "attachment; filename=\"a!#$&+-.^_`|~b;c,d=e'f(g)*h/i\"; \
             filename*=UTF-8''a!#$&+-.^_`|~b%3Bc%2Cd%3De%27f%28g%29%2Ah%2Fi"
        );
    }
}
