//! po (gettext): a header entry, then per key `msgctxt` and `msgid` = the flat name and
//! `msgstr` = the text, with the C escapes msgfmt reads. Several locales in one body:
//! names carry the locale prefix and the header has no `Language`.

use crate::formats::shared::escape::{Specials, clean_comment, escape_into, push_char};
use crate::formats::shared::flatten::NameStyle;
use crate::formats::shared::flatten::{Flat, FlatKey};
use crate::formats::writing::Job;
use crate::formats::{Format, RenderError, RenderOptions};
use crate::model::plurals;

/// The one shape of a writer (`formats::Writer`). A sheet that says `po=cldr` gets a
/// plural slot per CLDR category (`plurals::gettext_cldr`), else gettext's formula.
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    let rule = match job.doc.settings.po_cldr {
        true => plurals::gettext_cldr,
        false => plurals::gettext,
    };
    let flat = job.flat(NameStyle::Plain, false);
    render(&flat, job.opts, rule, out)?;
    Ok(flat.warnings)
}

pub(crate) fn render(
    flat: &Flat<'_>,
    opts: &RenderOptions,
    rule: fn(&str) -> plurals::GettextPlural,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    out.extend_from_slice(b"msgid \"\"\nmsgstr \"\"\n");
    if let [only] = flat.locales.as_slice() {
        out.extend_from_slice(b"\"Language: ");
        // gettext writes ll_CC
        let language = only.code.replace('-', "_");
        push_po_escaped(out, &language).map_err(|character| RenderError::UnrepresentableKey {
            format: Format::Po,
            key: only.code.to_owned(),
            character,
            reason: NUL_REASON,
        })?;
        out.extend_from_slice(b"\\n\"\n");
        // msgfmt needs it for msgid_plural; with several locales no one rule fits
        out.extend_from_slice(b"\"Plural-Forms: ");
        out.extend_from_slice(rule(only.code).header.as_bytes());
        out.extend_from_slice(b"\\n\"\n");
    }
    out.extend_from_slice(
        b"\"MIME-Version: 1.0\\n\"\n\
          \"Content-Type: text/plain; charset=UTF-8\\n\"\n\
          \"Content-Transfer-Encoding: 8bit\\n\"\n",
    );
    for (pos, loc) in flat.locales.iter().enumerate() {
        // the locale's Plural-Forms, looked up at its first plural entry
        let mut gettext = None;
        for key in flat.keys(pos, loc) {
            out.push(b'\n');
            if opts.comments
                && let Some(comment) = &key.entry.comment
            {
                for line in clean_comment(comment).split('\n') {
                    out.extend_from_slice(b"#.");
                    if !line.is_empty() {
                        out.push(b' ');
                        out.extend_from_slice(line.as_bytes());
                    }
                    out.push(b'\n');
                }
            }
            let key_error = |character| RenderError::UnrepresentableKey {
                format: Format::Po,
                key: key.dotted_path(),
                character,
                reason: NUL_REASON,
            };
            let text_error = |character| RenderError::UnrepresentableText {
                format: Format::Po,
                locale: loc.code.to_owned(),
                key: key.dotted_path(),
                character,
                reason: NUL_REASON,
            };
            // the app's own msgid (the key's name then: `Format::name_of`), with gettext's
            // `msgctxt\u{4}msgid` for a context
            let named = flat.named_by_sheet(key.index).then(|| {
                (key.base.split_once(CONTEXT_END))
                    .map_or((None, key.base), |(context, id)| (Some(context), id))
            });
            match named {
                Some((context, id)) => {
                    if let Some(context) = context {
                        push_po_string(out, b"msgctxt ", &[key.prefix, context])
                            .map_err(key_error)?;
                    }
                    push_po_string(out, b"msgid ", &[key.prefix, id]).map_err(key_error)?;
                }
                None => {
                    push_name_string(out, b"msgctxt ", &key).map_err(key_error)?;
                    push_name_string(out, b"msgid ", &key).map_err(key_error)?;
                }
            }
            let Some(plural) = key.plural else {
                push_po_string(out, b"msgstr ", &[key.text]).map_err(text_error)?;
                continue;
            };
            let id = named.map_or(key.base, |(_, id)| id);
            push_po_string(out, b"msgid_plural ", &[key.prefix, id]).map_err(key_error)?;
            // One msgstr per slot of the locale's Plural-Forms, each holding the text of
            // the category that slot stands for (`other`'s where the sheet has none).
            let slots = *gettext.get_or_insert_with(|| rule(loc.code).slots);
            for (slot, &category) in slots.iter().enumerate() {
                let text = plural.text(category, loc.locale).unwrap_or(key.text);
                let keyword = format!("msgstr[{slot}] ");
                push_po_string(out, keyword.as_bytes(), &[text]).map_err(text_error)?;
            }
        }
    }
    Ok(())
}

/// Ends the context in a name: `msgctxt` then this then `msgid`, as gettext keys its
/// catalogs (`pgettext`).
pub(crate) const CONTEXT_END: char = '\u{4}';

const NUL_REASON: &str = "a .mo file ends strings at U+0000 (and uses it to separate plural forms)";

fn push_name_string(out: &mut Vec<u8>, keyword: &[u8], key: &FlatKey<'_>) -> Result<(), char> {
    push_po_string(out, keyword, &[key.prefix, key.base])
}

/// `keyword "…"` for the concatenation of `parts`; a text with a line break inside is
/// written as msgcat does: `""`, then one quoted line per `\n`.
fn push_po_string(out: &mut Vec<u8>, keyword: &[u8], parts: &[&str]) -> Result<(), char> {
    out.extend_from_slice(keyword);
    if !parts.iter().any(|p| p.as_bytes().contains(&b'\n')) {
        // The usual case: one line.
        out.push(b'"');
        for part in parts {
            push_po_escaped(out, part)?;
        }
        out.extend_from_slice(b"\"\n");
        return Ok(());
    }
    // a line break that is not the very last character of the concatenation
    let last = parts.iter().rposition(|p| !p.is_empty());
    let inner_break = parts.iter().enumerate().any(|(i, p)| match last {
        Some(l) if i == l => p.strip_suffix('\n').unwrap_or(p).contains('\n'),
        _ => p.contains('\n'),
    });
    out.push(b'"');
    let mut pending_break = false;
    if inner_break {
        out.extend_from_slice(b"\"\n\"");
    }
    for part in parts {
        for line in part.split_inclusive('\n') {
            if pending_break {
                out.extend_from_slice(b"\"\n\"");
            }
            push_po_escaped(out, line)?;
            pending_break = inner_break && line.ends_with('\n');
        }
    }
    out.extend_from_slice(b"\"\n");
    Ok(())
}

const SPECIALS: Specials = Specials::new(b"\"\\", true, false);

/// msgfmt's escapes: `\" \\ \n \t \r`, other controls as three-digit octal (msgfmt reads
/// up to three digits, so a following digit is safe). U+0000 is refused.
fn push_po_escaped(out: &mut Vec<u8>, s: &str) -> Result<(), char> {
    escape_into(out, s, &SPECIALS, |out, c, _| {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\0' => return Err(c),
            '\u{1}'..='\u{1F}' | '\u{7F}' => {
                let v = u32::from(c);
                out.push(b'\\');
                for shift in [6, 3, 0] {
                    out.push(b'0' + ((v >> shift) & 7) as u8);
                }
            }
            c => push_char(out, c),
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn po_string(parts: &[&str]) -> String {
        let mut out = Vec::new();
        push_po_string(&mut out, b"msgstr ", parts).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn single_line_texts_stay_on_one_line() {
        assert_eq!(
            po_string(&["Say \"hi\"\\\t"]),
            "msgstr \"Say \\\"hi\\\"\\\\\\t\"\n"
        );
        assert_eq!(
            po_string(&["ends with break\n"]),
            "msgstr \"ends with break\\n\"\n"
        );
        assert_eq!(po_string(&["a\u{1}7\u{7F}"]), "msgstr \"a\\0017\\177\"\n");
    }

    #[test]
    fn inner_line_breaks_split_the_string_like_msgcat() {
        assert_eq!(
            po_string(&["line1\nline2\n\nend"]),
            "msgstr \"\"\n\"line1\\n\"\n\"line2\\n\"\n\"\\n\"\n\"end\"\n"
        );
        assert_eq!(
            po_string(&["pre_", "a\nb"]),
            "msgstr \"\"\n\"pre_a\\n\"\n\"b\"\n"
        );
    }

    #[test]
    fn refuses_nul() {
        assert_eq!(
            push_po_string(&mut Vec::new(), b"msgstr ", &["a\0"]),
            Err('\0')
        );
    }
}
