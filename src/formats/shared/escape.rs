//! Escaping pieces shared by the renderers: a byte scanner that copies safe runs in one go
//! and hands each special character to the format, XML escaping (android and xlf), and the
//! clean-up every format's comments need.

use std::borrow::Cow;

/// The characters a format must rewrite: a table for ASCII and, when `non_ascii` is set,
/// the non-ASCII code points whose UTF-8 starts with C2 (C1 controls), E2 (U+2028/U+2029)
/// or EF (U+FEFF, U+FFFE, U+FFFF), or every non-ASCII code point (`every_non_ascii`). The
/// format's callback writes other such characters as is.
pub(crate) struct Specials {
    ascii: [bool; 128],
    non_ascii: bool,
    every_non_ascii: bool,
    /// The same set for the word-at-a-time scan: whether C0 controls and DEL are special,
    /// and the other special ASCII bytes.
    controls: bool,
    others: [u8; 16],
    other_count: usize,
}

impl Specials {
    /// `chars` plus, when `controls`, every C0 control and DEL.
    pub(crate) const fn new(chars: &[u8], controls: bool, non_ascii: bool) -> Specials {
        let mut ascii = [false; 128];
        let mut others = [0u8; 16];
        let mut other_count = 0;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            ascii[c as usize] = true;
            if !(controls && (c < 0x20 || c == 0x7F)) {
                others[other_count] = c;
                other_count += 1;
            }
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
        Specials {
            ascii,
            non_ascii,
            every_non_ascii: false,
            controls,
            others,
            other_count,
        }
    }

    /// These specials and every non-ASCII character (a format written in ASCII).
    pub(crate) const fn and_every_non_ascii(mut self) -> Specials {
        self.non_ascii = true;
        self.every_non_ascii = true;
        self
    }

    fn is_special(&self, byte: u8) -> bool {
        if byte < 0x80 {
            self.ascii[usize::from(byte)]
        } else {
            self.every_non_ascii || (self.non_ascii && matches!(byte, 0xC2 | 0xE2 | 0xEF))
        }
    }

    /// The high bit of each byte of `word` that may be special; zero when none can be,
    /// so the scan skips all eight at once (texts are mostly plain). The lowest flagged
    /// byte is a true candidate (the tests below only err above a true hit); candidates
    /// are confirmed with `is_special`.
    fn candidates(&self, word: u64) -> u64 {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGHS: u64 = 0x8080_8080_8080_8080;
        // The classic tests for a byte below n (n <= 128) and for a zero byte.
        let below = |n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS;
        let equal = |b: u8| {
            let x = word ^ (ONES * u64::from(b));
            x.wrapping_sub(ONES) & !x & HIGHS
        };
        let mut hit = 0;
        if self.controls {
            hit |= below(0x20) | equal(0x7F);
        }
        if self.non_ascii {
            hit |= word & HIGHS;
        }
        for &b in &self.others[..self.other_count] {
            hit |= equal(b);
        }
        hit
    }
}

/// Copies `s` to `out`, calling `write(out, c, byte_offset)` for each special character.
pub(crate) fn escape_into<E>(
    out: &mut Vec<u8>,
    s: &str,
    specials: &Specials,
    mut write: impl FnMut(&mut Vec<u8>, char, usize) -> Result<(), E>,
) -> Result<(), E> {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time up to the first candidate; the last few one by one.
        if let Some(word) = bytes.get(i..i + 8) {
            let word = u64::from_le_bytes([
                word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
            ]);
            let hits = specials.candidates(word);
            if hits == 0 {
                i += 8;
                continue;
            }
            i += hits.trailing_zeros() as usize / 8;
        }
        let b = bytes[i];
        if !specials.is_special(b) {
            i += 1;
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        // `i` is on an ASCII byte or a lead byte (C2, E2, EF), so a char boundary.
        let c = if b < 0x80 {
            char::from(b)
        } else {
            match s[i..].chars().next() {
                Some(c) => c,
                None => break,
            }
        };
        write(out, c, i)?;
        i += c.len_utf8();
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    Ok(())
}

pub(crate) fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// `value` as exactly `digits` upper-case hex digits.
pub(crate) fn push_hex(out: &mut Vec<u8>, value: u32, digits: u32) {
    for shift in (0..digits).rev() {
        out.push(crate::hex::UPPER_DIGITS[((value >> (shift * 4)) & 0xF) as usize]);
    }
}

/// Characters XML 1.0 cannot carry at all, not even as `&#N;`.
pub(crate) fn xml_forbidden(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}')
}

/// Why an XML format (xlf, stringsdict) refuses a character.
pub(crate) const XML_CONTROL_REASON: &str = "XML 1.0 cannot hold control characters other than tab, line feed and carriage return, nor U+FFFE/U+FFFF, not even as &#N;";

/// Specials for XML attributes: markup, the quote, whitespace that attribute-value and
/// end-of-line normalisation would change, and C1 controls (written as references).
const XML_ATTRIBUTE_SPECIALS: Specials = Specials::new(b"&<>\"", true, true);

/// The same for XML text, where a quote is written as it is: leaving it out of the set
/// keeps a quoted word inside one copied run (UI texts quote often).
const XML_TEXT_SPECIALS: Specials = Specials::new(b"&<>", true, true);

/// Writes `c` XML-escaped. `attribute` also protects `"` and the whitespace that attribute
/// normalisation turns into spaces. Returns false for a character XML cannot carry.
pub(crate) fn push_xml_char(out: &mut Vec<u8>, c: char, attribute: bool) -> bool {
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
pub(crate) fn push_xml_str(out: &mut Vec<u8>, s: &str, attribute: bool) -> Result<(), char> {
    let specials = if attribute {
        &XML_ATTRIBUTE_SPECIALS
    } else {
        &XML_TEXT_SPECIALS
    };
    escape_into(out, s, specials, |out, c, _| {
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
pub(crate) fn clean_comment(comment: &str) -> Cow<'_, str> {
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
    use proptest::prelude::*;

    /// The plain byte-by-byte scan the word-at-a-time one must agree with.
    fn escape_slowly(s: &str, specials: &Specials) -> Vec<u8> {
        let mut out = Vec::new();
        for c in s.chars() {
            let mut buf = [0u8; 4];
            let encoded = c.encode_utf8(&mut buf);
            if specials.is_special(encoded.as_bytes()[0]) {
                out.extend_from_slice(format!("<{:X}>", u32::from(c)).as_bytes());
            } else {
                out.extend_from_slice(encoded.as_bytes());
            }
        }
        out
    }

    fn escape_marked(s: &str, specials: &Specials) -> Vec<u8> {
        let mut out = Vec::new();
        let done: Result<(), ()> = escape_into(&mut out, s, specials, |out, c, at| {
            assert!(s.is_char_boundary(at) && s[at..].starts_with(c));
            out.extend_from_slice(format!("<{:X}>", u32::from(c)).as_bytes());
            Ok(())
        });
        done.unwrap();
        out
    }

    const SETS: [Specials; 5] = [
        Specials::new(b"\"\\", true, true),
        Specials::new(b"\"\\", true, false),
        Specials::new(b"&<>'\"\\@?", true, true),
        Specials::new(b"\t~", false, false),
        Specials::new(b" =\\", true, false).and_every_non_ascii(),
    ];

    proptest! {
        #[test]
        fn the_word_scan_finds_exactly_what_a_byte_scan_finds(
            s in "(\\PC|[\\x00-\\x1F\\x7F\"\\\\&<>'@?~\u{85}\u{2028}\u{FEFF}\u{FFFF}]){0,40}"
        ) {
            for set in &SETS {
                prop_assert_eq!(escape_marked(&s, set), escape_slowly(&s, set));
            }
        }
    }

    proptest! {
        /// The sets of specials leave out only what `push_xml_char` writes as it is: a
        /// string escaped whole equals it escaped character by character, in text and in
        /// attributes.
        #[test]
        fn xml_strings_escape_as_their_characters_do(
            s in "(\\PC|[\\x00-\\x1F\\x7F\"&<>'\u{85}\u{9F}\u{2028}\u{FEFF}\u{FFFE}\u{FFFF}]){0,40}",
            attribute in any::<bool>(),
        ) {
            let mut whole = Vec::new();
            let whole_result = push_xml_str(&mut whole, &s, attribute);
            let mut by_char = Vec::new();
            let mut by_char_result = Ok(());
            for c in s.chars() {
                if !push_xml_char(&mut by_char, c, attribute) {
                    by_char_result = Err(c);
                    break;
                }
            }
            prop_assert_eq!(whole_result, by_char_result);
            if by_char_result.is_ok() {
                prop_assert_eq!(whole, by_char);
            }
        }
    }

    #[test]
    fn specials_are_found_at_every_offset_of_a_word() {
        for set in &SETS {
            for at in 0..20 {
                for special in ["\"", "\u{1}", "\u{7F}", "~", "\u{2028}", "é"] {
                    let s = format!("{}{special}{}", "a".repeat(at), "b".repeat(9));
                    assert_eq!(escape_marked(&s, set), escape_slowly(&s, set), "{s:?}");
                }
            }
        }
    }

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
