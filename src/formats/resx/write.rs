//! .NET ResX 2.0 (SPEC §11), laid out byte for byte as Visual Studio writes a `.resx`: its
//! header (comment, schema, the four `resheader`s), then per name `<data name="…"
//! xml:space="preserve">` with `<value>` and `<comment>`. Names are C# identifiers
//! (`Core_Labels_Yes`); a plural entry is one name per category (`Items_One`). Texts are
//! escaped for what ResXResourceReader, resgen and MSBuild read back (docs/design.md).

use crate::formats::Format;
use crate::formats::shared::escape::XML_CONTROL_REASON;
use std::convert::Infallible;

use crate::formats::shared::convert::Converter;
use crate::formats::shared::escape::{
    Specials, clean_comment, escape_into, push_char, push_xml_str,
};
use crate::formats::shared::flatten::NameStyle;
use crate::formats::shared::flatten::{Flat, FlatKey};
use crate::formats::writing::Job;
use crate::formats::{RenderError, RenderOptions};
use crate::model::PluralCategory;
use crate::model::placeholders::Syntax;

/// What Visual Studio writes before the first `<data>` (the same in every `.resx` it
/// creates; copied from a Visual Studio project's `Resources.resx`), after a UTF-8 BOM.
const HEADER: &str = include_str!("header.xml");

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    job.flat_body(NameStyle::CSharp, false, render, out)
}

pub(crate) fn render(
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
                    push_data(out, &key, None, &text, comment).map_err(|c| bad_name(&key, c))?;
                }
                Some(plural) => {
                    for (category, text) in plural.forms_in(loc.locale) {
                        let text = converter.text(key.entry, true, text);
                        push_data(out, &key, Some(category), &text, comment)
                            .map_err(|c| bad_name(&key, c))?;
                    }
                }
            }
        }
    }
    // as Visual Studio ends the file: no line break after the root
    out.extend_from_slice(b"</root>");
    Ok(())
}

fn bad_name(key: &FlatKey<'_>, character: char) -> RenderError {
    RenderError::UnrepresentableKey {
        format: Format::Resx,
        key: key.dotted_path(),
        character,
        reason: XML_CONTROL_REASON,
    }
}

/// One `<data>` element, indented as Visual Studio indents it.
fn push_data(
    out: &mut Vec<u8>,
    key: &FlatKey<'_>,
    category: Option<PluralCategory>,
    text: &str,
    comment: Option<&str>,
) -> Result<(), char> {
    out.extend_from_slice(b"  <data name=\"");
    out.extend_from_slice(key.prefix.as_bytes());
    if key.entry.names.is_empty() {
        // a C# identifier: nothing to escape
        out.extend_from_slice(key.base.as_bytes());
    } else {
        // a name the sheet gives, as it is
        push_xml_str(out, key.base, true)?;
    }
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
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> String {
        let mut out = Vec::new();
        push_value(&mut out, text);
        String::from_utf8(out).unwrap()
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
