//! ios `Localizable.strings`: `"name" = "text";` lines, UTF-8. Only escapes that Apple's
//! (CFPropertyList) and GNUstep's strings parsers both read the same way, never a raw line
//! break inside quotes. Plural entries are left to the `.stringsdict` beside it.

use std::convert::Infallible;

use crate::formats::shared::convert::Converter;
use crate::formats::shared::escape::{Specials, clean_comment, escape_into, push_char, push_hex};
use crate::formats::shared::flatten::Flat;
use crate::formats::shared::flatten::NameStyle;
use crate::formats::writing::Job;
use crate::formats::{RenderError, RenderOptions};
use crate::model::placeholders::Syntax;

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    job.flat_body(NameStyle::Plain, false, render, out)
}

pub(crate) fn render(
    flat: &Flat<'_>,
    opts: &RenderOptions,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    let converter = Converter::new(opts, Syntax::Ios);
    for (pos, loc) in flat.locales.iter().enumerate() {
        // plural entries live in the .stringsdict (`ios_dict`)
        for key in flat.keys(pos, loc).filter(|k| k.plural.is_none()) {
            if opts.comments
                && let Some(comment) = &key.entry.comment
            {
                out.extend_from_slice(b"/* ");
                // `*/` would end the comment early
                out.extend_from_slice(clean_comment(comment).replace("*/", "* /").as_bytes());
                out.extend_from_slice(b" */\n");
            }
            out.push(b'"');
            push_strings_escaped(out, key.prefix);
            push_strings_escaped(out, key.base);
            out.extend_from_slice(b"\" = \"");
            push_strings_escaped(out, &converter.text(key.entry, false, key.text));
            out.extend_from_slice(b"\";\n");
        }
    }
    Ok(())
}

const SPECIALS: Specials = Specials::new(b"\"\\", true, true);

/// `\"`, `\\`, `\n`, `\t`, `\r`; other controls (C0, DEL, C1), U+2028/U+2029 and U+FEFF,
/// U+FFFE, U+FFFF as `\UXXXX`, which both parsers read as four hex digits. U+0000 included:
/// NSString holds it.
pub(crate) fn push_strings_escaped(out: &mut Vec<u8>, s: &str) {
    let done: Result<(), Infallible> = escape_into(out, s, &SPECIALS, |out, c, _| {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\u{0}'..='\u{1F}'
            | '\u{7F}'..='\u{9F}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{FEFF}'
            | '\u{FFFE}'
            | '\u{FFFF}' => {
                out.extend_from_slice(b"\\U");
                push_hex(out, u32::from(c), 4);
            }
            c => push_char(out, c),
        }
        Ok(())
    });
    let Ok(()) = done;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_quotes_backslashes_and_every_control() {
        let mut out = Vec::new();
        push_strings_escaped(
            &mut out,
            "say \"hi\" \\ a\nb\tc\rd\0e\u{1B}\u{2028}/* x */ 🎉",
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"say \"hi\" \\ a\nb\tc\rd\U0000e\U001B\U2028/* x */ 🎉"#
        );
    }
}
