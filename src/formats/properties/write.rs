//! Java `.properties` (SPEC §11): `key=text` lines as `java.util.Properties.load` reads
//! them, in ASCII with `\uXXXX` escapes, so that every Java version reads the same text
//! (`Properties.load(InputStream)` decodes ISO-8859-1, `ResourceBundle` since Java 9
//! UTF-8 first: ASCII is both). Names are the key path lower-cased and dotted; a plural
//! entry is one key per category (`items.one`, `items.other`).

use std::convert::Infallible;

use crate::formats::shared::convert::Converter;
use crate::formats::shared::escape::{Specials, clean_comment, escape_into, push_hex};
use crate::formats::shared::flatten::NameStyle;
use crate::formats::shared::flatten::{Flat, FlatKey};
use crate::formats::writing::Job;
use crate::formats::{RenderError, RenderOptions};
use crate::model::placeholders::Syntax;

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    job.flat_body(NameStyle::Dotted, false, render, out)
}

pub(crate) fn render(
    flat: &Flat<'_>,
    opts: &RenderOptions,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    let converter = Converter::new(opts, Syntax::MessageFormat);
    for (pos, loc) in flat.locales.iter().enumerate() {
        for key in flat.keys(pos, loc) {
            let comment = key.entry.comment.as_deref().filter(|_| opts.comments);
            match key.plural {
                None => {
                    push_line(
                        out,
                        &key,
                        None,
                        comment,
                        &converter.text(key.entry, false, key.text),
                    );
                }
                Some(plural) => {
                    for (category, text) in plural.forms_in(loc.locale) {
                        let text = converter.text(key.entry, true, text);
                        push_line(out, &key, Some(category.name()), comment, &text);
                    }
                }
            }
        }
    }
    Ok(())
}

/// The comment lines, then `name[.category]=text`.
fn push_line(
    out: &mut Vec<u8>,
    key: &FlatKey<'_>,
    category: Option<&str>,
    comment: Option<&str>,
    text: &str,
) {
    if let Some(comment) = comment {
        push_comment(out, comment);
    }
    push_escaped(out, key.prefix, Part::Key);
    push_escaped(out, key.base, Part::Key);
    if let Some(category) = category {
        out.push(b'.');
        out.extend_from_slice(category.as_bytes());
    }
    out.push(b'=');
    push_escaped(out, text, Part::Value);
    out.push(b'\n');
}

/// `# ` lines; `Properties.load` skips a line whose first non-blank character is `#` and
/// never continues one, so each line of the comment gets its own. Non-ASCII as
/// `\uXXXX`, as `Properties.store` writes comments, to keep the file ASCII.
fn push_comment(out: &mut Vec<u8>, comment: &str) {
    for line in clean_comment(comment).split('\n') {
        out.push(b'#');
        if !line.is_empty() {
            out.push(b' ');
            for c in line.chars() {
                if c.is_ascii() {
                    out.push(c as u8);
                } else {
                    push_utf16_escapes(out, c);
                }
            }
        }
        out.push(b'\n');
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Key,
    Value,
}

/// What needs more than a copy: controls and DEL, `\`, every non-ASCII character, what
/// ends a key (`=`, `:`) or starts a comment (`#`, `!`; only at the start of a line, but
/// escaped everywhere, in keys and values, as `Properties.store` and SPEC §11 do); in a
/// key also a space. A value's leading space is handled apart.
const KEY_SPECIALS: Specials = Specials::new(b"\\ =:#!", true, false).and_every_non_ascii();
const VALUE_SPECIALS: Specials = Specials::new(b"\\=:#!", true, false).and_every_non_ascii();

/// `s` as `Properties.load` reads it back in `part`: `\\`, `\t`, `\n`, `\r`, `\f`,
/// `\ `, `\=`, `\:`, `\#`, `\!`, every other control and every non-ASCII character as
/// `\uXXXX` (UTF-16: a character beyond U+FFFF as its surrogate pair, which is what a
/// Java string holds).
fn push_escaped(out: &mut Vec<u8>, s: &str, part: Part) {
    let specials = match part {
        Part::Key => &KEY_SPECIALS,
        Part::Value => &VALUE_SPECIALS,
    };
    let mut rest = s;
    if part == Part::Value
        && let Some(after) = s.strip_prefix(' ')
    {
        // load skips the blanks before a value
        out.extend_from_slice(b"\\ ");
        rest = after;
    }
    let done: Result<(), Infallible> = escape_into(out, rest, specials, |out, c, _| {
        match c {
            '\t' => out.extend_from_slice(b"\\t"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            '\\' | ' ' | '=' | ':' | '#' | '!' => out.extend_from_slice(&[b'\\', c as u8]),
            c => push_utf16_escapes(out, c),
        }
        Ok(())
    });
    let Ok(()) = done;
}

/// `\uXXXX` for each UTF-16 unit of `c`.
fn push_utf16_escapes(out: &mut Vec<u8>, c: char) {
    let mut units = [0u16; 2];
    for &unit in c.encode_utf16(&mut units).iter() {
        out.extend_from_slice(b"\\u");
        push_hex(out, u32::from(unit), 4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(s: &str, part: Part) -> String {
        let mut out = Vec::new();
        push_escaped(&mut out, s, part);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn values_escape_backslashes_controls_a_leading_space_and_everything_beyond_ascii() {
        assert_eq!(
            escaped(r"C:\path a=b:c #d !e", Part::Value),
            r"C\:\\path a\=b\:c \#d \!e"
        );
        assert_eq!(
            escaped("  lead\ttab\nnl\rcr\u{c}ff\u{1}\u{7f}", Part::Value),
            r"\  lead\ttab\nnl\rcr\fff\u0001\u007F"
        );
        assert_eq!(
            escaped("zażółć 🎉", Part::Value),
            r"za\u017C\u00F3\u0142\u0107 \uD83C\uDF89"
        );
        assert_eq!(escaped("trailing ", Part::Value), "trailing ");
        assert_eq!(escaped("", Part::Value), "");
    }

    #[test]
    fn keys_escape_what_ends_a_key_or_starts_a_comment() {
        assert_eq!(escaped("a b=c:d#e!f\\g", Part::Key), r"a\ b\=c\:d\#e\!f\\g");
        assert_eq!(escaped("#x", Part::Key), r"\#x");
        assert_eq!(escaped("ключ", Part::Key), r"\u043A\u043B\u044E\u0447");
    }

    #[test]
    fn comments_are_ascii_lines_each_with_its_own_mark() {
        let mut out = Vec::new();
        push_comment(&mut out, "first\r\nsecond é\n\nlast \\");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "# first\n# second \\u00E9\n#\n# last \\\n"
        );
    }
}
