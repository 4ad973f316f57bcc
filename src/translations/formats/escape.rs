//! Escaping pieces shared by the renderers: a byte scanner that copies safe runs in one go
//! and hands each special character to the format, XML escaping (android and xlf), and the
//! clean-up every format's comments need.

use std::borrow::Cow;

/// The characters a format must rewrite: a table for ASCII and, when `non_ascii` is set,
/// the non-ASCII code points whose UTF-8 starts with C2 (C1 controls), E2 (U+2028/U+2029)
/// or EF (U+FEFF, U+FFFE, U+FFFF). The format's callback writes other such characters as is.
pub(super) struct Specials {
    ascii: [bool; 128],
    non_ascii: bool,
}

impl Specials {
    /// `chars` plus, when `controls`, every C0 control and DEL.
    pub(super) const fn new(chars: &[u8], controls: bool, non_ascii: bool) -> Specials {
        let mut ascii = [false; 128];
        let mut i = 0;
        while i < chars.len() {
            ascii[chars[i] as usize] = true;
            i += 1;
        }
        if controls {
            let mut c = 0;
            while c < 0x20 {
                ascii[c] = true;
                c += 1;
            }
            ascii[0x7F] = true;
        }
        Specials { ascii, non_ascii }
    }
}

/// Copies `s` to `out`, calling `write(out, c, byte_offset)` for each special character.
pub(super) fn escape_into<E>(
    out: &mut Vec<u8>,
    s: &str,
    specials: &Specials,
    mut write: impl FnMut(&mut Vec<u8>, char, usize) -> Result<(), E>,
) -> Result<(), E> {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let special = if b < 0x80 {
            specials.ascii[usize::from(b)]
        } else {
            specials.non_ascii && matches!(b, 0xC2 | 0xE2 | 0xEF)
        };
        if !special {
            i += 1;
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        // `i` is on an ASCII byte or a lead byte, so a char boundary.
        let Some(c) = s[i..].chars().next() else {
            break;
        };
        write(out, c, i)?;
        i += c.len_utf8();
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    Ok(())
}

pub(super) fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// `value` as exactly `digits` upper-case hex digits.
pub(super) fn push_hex(out: &mut Vec<u8>, value: u32, digits: u32) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for shift in (0..digits).rev() {
        out.push(HEX[((value >> (shift * 4)) & 0xF) as usize]);
    }
}

/// Characters XML 1.0 cannot carry at all, not even as `&#N;`.
pub(super) fn xml_forbidden(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}')
}

/// Specials for XML text and attributes: markup, whitespace that attribute-value and
/// end-of-line normalisation would change, and C1 controls (written as references).
pub(super) const XML_SPECIALS: Specials = Specials::new(b"&<>\"", true, true);

/// Writes `c` XML-escaped. `attribute` also protects `"` and the whitespace that attribute
/// normalisation turns into spaces. Returns false for a character XML cannot carry.
pub(super) fn push_xml_char(out: &mut Vec<u8>, c: char, attribute: bool) -> bool {
    match c {
        '&' => out.extend_from_slice(b"&amp;"),
        '<' => out.extend_from_slice(b"&lt;"),
        // `]]>` is forbidden in text; escaping every `>` is simplest.
        '>' => out.extend_from_slice(b"&gt;"),
        '"' if attribute => out.extend_from_slice(b"&quot;"),
        '\t' | '\n' if attribute => push_char_ref(out, c),
        // A raw CR would be read back as LF (end-of-line normalisation).
        '\r' | '\u{7F}'..='\u{9F}' => push_char_ref(out, c),
        c if xml_forbidden(c) => return false,
        c => push_char(out, c),
    }
    true
}

fn push_char_ref(out: &mut Vec<u8>, c: char) {
    out.extend_from_slice(b"&#x");
    push_hex(out, u32::from(c), if u32::from(c) > 0xFF { 4 } else { 2 });
    out.push(b';');
}

/// XML-escapes a whole string; `Err(c)` names the first character XML cannot carry.
pub(super) fn push_xml_str(out: &mut Vec<u8>, s: &str, attribute: bool) -> Result<(), char> {
    escape_into(out, s, &XML_SPECIALS, |out, c, _| {
        if push_xml_char(out, c, attribute) {
            Ok(())
        } else {
            Err(c)
        }
    })
}

/// Comments are informational, so instead of refusing a render they are cleaned: line
/// breaks (CR LF, CR, NEL, U+2028, U+2029 — YAML 1.1 reads the last three as breaks too)
/// become `\n`, and what no format's comment may hold (C0 controls but tab, DEL, C1,
/// U+FEFF, U+FFFE, U+FFFF) becomes U+FFFD.
pub(super) fn clean_comment(comment: &str) -> Cow<'_, str> {
    let needs = |c: char| {
        matches!(c, '\0'..='\u{8}' | '\u{B}'..='\u{1F}' | '\u{7F}'..='\u{9F}')
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}'
            )
    };
    if !comment.chars().any(needs) {
        return Cow::Borrowed(comment);
    }
    let mut out = String::with_capacity(comment.len());
    let mut chars = comment.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push('\n');
            }
            '\u{85}' | '\u{2028}' | '\u{2029}' => out.push('\n'),
            c if needs(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_text_escapes_markup_cr_and_c1_and_refuses_c0() {
        let mut out = Vec::new();
        assert_eq!(
            push_xml_str(&mut out, "a&b<c>\"d\"\r\u{85}\té\n", false),
            Ok(())
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a&amp;b&lt;c&gt;\"d\"&#x0D;&#x85;\té\n"
        );
        assert_eq!(
            push_xml_str(&mut Vec::new(), "ok\u{1}", false),
            Err('\u{1}')
        );
        assert_eq!(
            push_xml_str(&mut Vec::new(), "\u{FFFF}", true),
            Err('\u{FFFF}')
        );
    }

    #[test]
    fn xml_attribute_protects_quotes_and_whitespace() {
        let mut out = Vec::new();
        assert_eq!(push_xml_str(&mut out, "a\"b\tc\nd", true), Ok(()));
        assert_eq!(String::from_utf8(out).unwrap(), "a&quot;b&#x09;c&#x0A;d");
    }

    #[test]
    fn comments_get_line_breaks_unified_and_controls_replaced() {
        assert_eq!(clean_comment("plain\ttext"), "plain\ttext");
        assert_eq!(
            clean_comment("a\r\nb\rc\u{2028}d\u{1}e\u{7F}"),
            "a\nb\nc\nd\u{FFFD}e\u{FFFD}"
        );
    }
}
