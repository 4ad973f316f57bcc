//! .NET ResX 2.0 (SPEC §11), laid out byte for byte as Visual Studio writes a `.resx`: its
//! header (comment, schema, the four `resheader`s), then per name `<data name="…"
//! xml:space="preserve">` with `<value>` and `<comment>`. Names are C# identifiers
//! (`Core_Labels_Yes`); a plural entry is one name per category (`Items_One`). Texts are
//! escaped for what ResXResourceReader, resgen and MSBuild read back (docs/design.md).

use std::convert::Infallible;

use crate::translations::formats::convert::Converter;
use crate::translations::formats::escape::{
    Specials, clean_comment, escape_into, push_char, push_xml_str,
};
use crate::translations::formats::flatten::{Flat, FlatKey};
use crate::translations::formats::{RenderError, RenderOptions};
use crate::translations::model::PluralCategory;
use crate::translations::placeholders::Syntax;

/// What Visual Studio writes before the first `<data>` (the same in every `.resx` it
/// creates; copied from a Visual Studio project's `Resources.resx`), after a UTF-8 BOM.
const HEADER: &str = include_str!("resx_header.xml");

pub(super) fn render(
    flat: &Flat<'_>,
    opts: &RenderOptions,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    out.extend_from_slice("\u{FEFF}".as_bytes());
    out.extend_from_slice(HEADER.as_bytes());
    let converter = Converter::new(opts, Syntax::Composite);
    for (pos, loc) in flat.locales.iter().enumerate() {
        for key in flat.keys(pos, loc) {
            let comment = key.entry.comment.as_deref().filter(|_| opts.comments);
            match key.plural {
                None => {
                    let text = converter.text(key.entry, false, key.text);
                    push_data(out, &key, None, &text, comment);
                }
                Some(plural) => {
                    for (category, text) in plural.forms_in(loc.locale) {
                        let text = converter.text(key.entry, true, text);
                        push_data(out, &key, Some(category), &text, comment);
                    }
                }
            }
        }
    }
    // as Visual Studio ends the file: no line break after the root
    out.extend_from_slice(b"</root>");
    Ok(())
}

/// One `<data>` element, indented as Visual Studio indents it.
fn push_data(
    out: &mut Vec<u8>,
    key: &FlatKey<'_>,
    category: Option<PluralCategory>,
    text: &str,
    comment: Option<&str>,
) {
    // a C# identifier: nothing to escape
    out.extend_from_slice(b"  <data name=\"");
    out.extend_from_slice(key.prefix.as_bytes());
    out.extend_from_slice(key.base.as_bytes());
    if let Some(category) = category {
        out.push(b'_');
        let name = category.name().as_bytes();
        out.push(name[0].to_ascii_uppercase());
        out.extend_from_slice(&name[1..]);
    }
    out.extend_from_slice(b"\" xml:space=\"preserve\">\n    <value>");
    push_value(out, text);
    out.extend_from_slice(b"</value>\n");
    if let Some(comment) = comment {
        out.extend_from_slice(b"    <comment>");
        // cleaned of what XML cannot hold, so nothing is refused
        let _ = push_xml_str(out, &clean_comment(comment), false);
        out.extend_from_slice(b"</comment>\n");
    }
    out.extend_from_slice(b"  </data>\n");
}

const SPECIALS: Specials = Specials::new(b"&<>", true, true);

/// A `<value>`'s content, read back exactly by every reader of ResX. All of them read it
/// with `XmlTextReader`, whose `Normalization` is off: a character reference to any
/// character is taken (`&#1;`, `&#0;`, `&#65535;`; `ResXResourceWriter` itself writes
/// them, through `XmlTextWriter`), and a raw CR stays a CR there but becomes LF through
/// MSBuild's `XDocument`, so CR is a reference. MSBuild also reads with
/// `WhitespaceHandling.None`, which drops a text of only whitespace unless that comes
/// from decimal character references (legacy `XmlTextReader` counts those as text): such a
/// text is written as `&#32;`, `&#9;`, `&#10;`, `&#13;` throughout.
fn push_value(out: &mut Vec<u8>, text: &str) {
    let blank = !text.is_empty()
        && text
            .bytes()
            .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if blank {
        for b in text.bytes() {
            push_decimal_ref(out, u32::from(b));
        }
        return;
    }
    let done: Result<(), Infallible> = escape_into(out, text, &SPECIALS, |out, c, _| {
        match c {
            '&' => out.extend_from_slice(b"&amp;"),
            '<' => out.extend_from_slice(b"&lt;"),
            // `]]>` may not appear in text; escaping every `>` is simplest
            '>' => out.extend_from_slice(b"&gt;"),
            '\t' | '\n' => out.push(c as u8),
            // C0 (but tab and LF), CR, DEL, C1, U+FFFE and U+FFFF: a reference, also
            // where XML 1.0 could hold the character raw, so that it is seen
            '\0'..='\u{1F}' | '\u{7F}'..='\u{9F}' | '\u{FFFE}' | '\u{FFFF}' => {
                push_decimal_ref(out, u32::from(c))
            }
            c => push_char(out, c),
        }
        Ok(())
    });
    let Ok(()) = done;
}

fn push_decimal_ref(out: &mut Vec<u8>, code: u32) {
    out.extend_from_slice(b"&#");
    out.extend_from_slice(code.to_string().as_bytes());
    out.push(b';');
}

/// One key path segment as a piece of a C# identifier: letters and digits kept, anything
/// else `_` (each character as android's names lower-case it, so a resx name lower-cased
/// is the android name before its guard, and names meeting in resx meet in android); each
/// run between `_` starts upper-case, and a run written all in capitals continues lower
/// case (`CORE` → `Core`, `myKey` → `MyKey`, `LABELS_YES` → `Labels_Yes`).
pub(super) fn push_name_segment(out: &mut String, segment: &str) {
    // Most keys are ASCII letters, digits and `_`: each word copied whole, cased in place.
    if segment
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        for (i, word) in segment.split('_').enumerate() {
            if i > 0 {
                out.push('_');
            }
            let start = out.len();
            out.push_str(word);
            end_word(out, start, word.bytes().any(|b| b.is_ascii_lowercase()));
        }
        return;
    }
    let mut word = out.len();
    let mut word_has_lower = false;
    for c in segment.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
            word_has_lower |= c.is_ascii_lowercase();
            continue;
        }
        for lower in c.to_lowercase() {
            if lower.is_ascii_alphanumeric() {
                out.push(lower);
                word_has_lower |= lower.is_ascii_lowercase();
            } else {
                end_word(out, word, word_has_lower);
                out.push('_');
                word = out.len();
                word_has_lower = false;
            }
        }
    }
    end_word(out, word, word_has_lower);
}

/// Cases the word that starts at `out[start..]` (ASCII letters and digits).
fn end_word(out: &mut str, start: usize, has_lower: bool) {
    let Some(word) = out.get_mut(start..) else {
        return;
    };
    if !has_lower {
        word.make_ascii_lowercase();
    }
    if let Some(first) = word.get_mut(..1) {
        first.make_ascii_uppercase();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(segment: &str) -> String {
        let mut out = String::new();
        push_name_segment(&mut out, segment);
        out
    }

    fn value(text: &str) -> String {
        let mut out = Vec::new();
        push_value(&mut out, text);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn segments_become_pascal_case_identifier_pieces() {
        assert_eq!(name("CORE"), "Core");
        assert_eq!(name("LABELS_YES"), "Labels_Yes");
        assert_eq!(name("myKey"), "MyKey");
        assert_eq!(name("HTTPServer"), "HTTPServer");
        assert_eq!(name("a-b c"), "A_B_C");
        assert_eq!(name("1ST"), "1st");
        assert_eq!(name("Zażółć"), "Za____");
        assert_eq!(name("__x__"), "__X__");
        assert_eq!(name("SECTION_12_aB_"), "Section_12_AB_");
        // lower-cased, what android's names are
        for segment in [
            "CORE",
            "myKey",
            "a-b c",
            "Zażółć",
            "İx",
            "\u{212A}ey",
            "S_1_aB_",
        ] {
            let mut android = String::new();
            for c in segment.chars().flat_map(char::to_lowercase) {
                android.push(if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                });
            }
            assert_eq!(name(segment).to_ascii_lowercase(), android, "{segment}");
        }
    }

    #[test]
    fn values_keep_every_character_for_every_resx_reader() {
        assert_eq!(
            value("Tom & <b>\"x\"</b> 'y'"),
            "Tom &amp; &lt;b&gt;\"x\"&lt;/b&gt; 'y'"
        );
        assert_eq!(
            value("a\r\nb\tc\u{1}\0\u{85}\u{FFFF}é"),
            "a&#13;\nb\tc&#1;&#0;&#133;&#65535;é"
        );
        assert_eq!(value("  padded  "), "  padded  ");
        assert_eq!(value(" \t\n"), "&#32;&#9;&#10;");
        assert_eq!(value(""), "");
    }
}
