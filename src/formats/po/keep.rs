//! Patching an existing `.po` catalog (SPEC §12.1): each message the sheet has (by
//! `msgctxt` and `msgid`) gets its new `msgctxt`…`msgstr` lines in place; the header, the
//! app's comments (translator, extracted, references, flags), obsolete `#~` entries and the
//! messages the sheet lacks stay as they are.

use crate::formats::Format;
use crate::formats::keeping::{self, Keep, KeepError, Piece, Split};

/// How po files are patched.
pub(crate) const KEEP: Keep = Keep::Pieces {
    format: Format::Po,
    split,
    swap,
    wrap: (b"", b""),
    siblings: None,
};

/// Which string a keyword line starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Context,
    Id,
    Other,
}

/// One message being read: where its keyword lines start and end, its context and id.
struct Message {
    start: usize,
    /// Where its first `msgstr` line starts: the texts, what replacing swaps.
    texts: Option<usize>,
    end: usize,
    context: Option<Vec<u8>>,
    id: Vec<u8>,
    part: Part,
}

/// The new `msgstr` lines in place of the app's; a message that became plural (or stopped
/// being one) is replaced whole, `msgid_plural` with it. The text is the sheet's, reviewed:
/// a `fuzzy` flag goes (gettext's rule, as msgmerge and Poedit do), its `#|` lines with it.
fn swap(existing: &[u8], old: &Piece, fresh: &[u8], new: &Piece, out: &mut Vec<u8>) {
    // the app's comments were copied just before its keyword lines
    let comments = out.len().saturating_sub(old.body.start - old.chunk.start)
        ..out.len().saturating_sub(old.body.start - old.whole.start);
    let unflagged = not_fuzzy(&out[comments.clone()]);
    if let Some(unflagged) = unflagged {
        out.splice(comments, unflagged);
    }
    let plural = |bytes: &[u8], piece: &Piece| bytes[piece.body.clone()].starts_with(b"msgstr[");
    if plural(existing, old) == plural(fresh, new) {
        out.extend_from_slice(&fresh[new.body.clone()]);
        return;
    }
    // the app's lines before its texts were copied just before: they go too
    out.truncate(out.len().saturating_sub(old.body.start - old.whole.start));
    out.extend_from_slice(&fresh[new.whole.clone()]);
}

/// An entry's comment lines without the `fuzzy` flag (a `#,` line left with no flag goes
/// whole) and without the `#|` previous-message lines that go with it; `None`: not fuzzy.
fn not_fuzzy(comments: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(comments.len());
    let mut fuzzy = false;
    let mut previous = false;
    for line in comments.split_inclusive(|&b| b == b'\n') {
        let content = line.trim_ascii();
        if let Some(flags) = content.strip_prefix(b"#,") {
            let others: Vec<&[u8]> = (flags.split(|&b| b == b','))
                .map(<[u8]>::trim_ascii)
                .filter(|f| !f.is_empty())
                .collect();
            let kept: Vec<&[u8]> = others.iter().copied().filter(|f| *f != b"fuzzy").collect();
            if kept.len() < others.len() {
                fuzzy = true;
                if !kept.is_empty() {
                    let end = line.len() - line.trim_ascii_start().len();
                    out.extend_from_slice(&line[..end]);
                    out.extend_from_slice(b"#, ");
                    out.extend_from_slice(&kept.join(&b", "[..]));
                    out.extend_from_slice(&line[line.trim_ascii_end().len()..]);
                }
                continue;
            }
        }
        if content.starts_with(b"#|") {
            previous = true;
        }
        out.extend_from_slice(line);
    }
    if !fuzzy {
        return None;
    }
    if previous {
        out = (out.split_inclusive(|&b| b == b'\n'))
            .filter(|line| !line.trim_ascii().starts_with(b"#|"))
            .flatten()
            .copied()
            .collect();
    }
    Some(out)
}

fn split(bytes: &[u8]) -> Result<Split, KeepError> {
    let mut pieces = Vec::new();
    let mut previous = 0;
    let mut message: Option<Message> = None;
    let mut finish = |message: Option<Message>, previous: &mut usize| {
        if let Some(m) = message {
            let whole = m.start..m.end;
            let name = match (&m.context, m.id.is_empty()) {
                // the header: the app's, never the sheet's
                (None, true) => None,
                (None, false) => Some(String::from_utf8_lossy(&m.id).into_owned()),
                (Some(c), _) => Some(format!(
                    "{}\u{4}{}",
                    String::from_utf8_lossy(c),
                    String::from_utf8_lossy(&m.id)
                )),
            };
            pieces.push(Piece {
                name,
                chunk: keeping::chunk_from(bytes, *previous, &whole),
                body: m.texts.unwrap_or(m.start)..m.end,
                whole,
                fixed: false,
            });
            *previous = m.end;
        }
    };
    let mut at = keeping::after_bom(bytes);
    while at < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |p| at + p);
        let content_end = if end > at && bytes[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        let line = &bytes[at..content_end];
        let trimmed = line.trim_ascii_start();
        if trimmed.is_empty() || trimmed.starts_with(b"#") {
            // a blank or a comment line ends a message
            finish(message.take(), &mut previous);
        } else if trimmed.starts_with(b"\"") {
            let m = message
                .as_mut()
                .ok_or_else(|| KeepError::new(at, "a string line outside a message"))?;
            m.end = content_end;
            let text = unquote(trimmed, at)?;
            match m.part {
                Part::Context => m.context.get_or_insert_default().extend(text),
                Part::Id => m.id.extend(text),
                Part::Other => {}
            }
        } else {
            let keyword_end = trimmed
                .iter()
                .position(|&b| b == b' ' || b == b'\t' || b == b'"')
                .unwrap_or(trimmed.len());
            let keyword = &trimmed[..keyword_end];
            let part = match keyword {
                b"msgctxt" => Part::Context,
                b"msgid" => Part::Id,
                b"msgid_plural" | b"msgstr" => Part::Other,
                k if k.starts_with(b"msgstr[") => Part::Other,
                _ => return Err(KeepError::new(at, "a line that is no po keyword")),
            };
            // msgctxt or msgid after a msgstr starts the next message
            let starts = match &message {
                None => true,
                Some(m) => part != Part::Other && (m.part == Part::Other || part == Part::Context),
            };
            if starts {
                finish(message.take(), &mut previous);
                message = Some(Message {
                    start: at + (line.len() - trimmed.len()),
                    texts: None,
                    end: content_end,
                    context: None,
                    id: Vec::new(),
                    part,
                });
            }
            let m = message
                .as_mut()
                .ok_or_else(|| KeepError::new(at, "a po keyword outside a message"))?;
            m.part = part;
            m.end = content_end;
            if keyword.starts_with(b"msgstr") && m.texts.is_none() {
                m.texts = Some(at + (line.len() - trimmed.len()));
            }
            let text = unquote(trimmed[keyword_end..].trim_ascii(), at)?;
            match part {
                Part::Context => m.context = Some(text),
                Part::Id => m.id = text,
                Part::Other => {}
            }
        }
        at = end + 1;
    }
    finish(message.take(), &mut previous);
    Ok(Split::of_lines(
        pieces,
        previous,
        bytes.len(),
        b"

",
    ))
}

/// A quoted po string's bytes, the escapes that matter for matching names undone.
fn unquote(quoted: &[u8], at: usize) -> Result<Vec<u8>, KeepError> {
    let inner = quoted
        .strip_prefix(b"\"")
        .and_then(|s| s.strip_suffix(b"\""))
        .ok_or_else(|| KeepError::new(at, "expected a quoted string"))?;
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        match (inner[i], inner.get(i + 1)) {
            (b'\\', Some(b'n')) => out.push(b'\n'),
            (b'\\', Some(b't')) => out.push(b'\t'),
            (b'\\', Some(b'r')) => out.push(b'\r'),
            (b'\\', Some(&b)) => out.push(b),
            (b, _) => {
                out.push(b);
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const APP: &str = "# header comment\n#, fuzzy\nmsgid \"\"\nmsgstr \"\"\n\"Project-Id-Version: x\\n\"\n\n#: src/a.c:1\n#, c-format\nmsgid \"Adding %s\"\nmsgstr \"Hinzufügen %s\"\n\nmsgctxt \"Gerund\"\nmsgid \"Adding\"\nmsgstr \"Hinzufügen\"\n\n#~ msgid \"old\"\n#~ msgstr \"alt\"\n";

    #[test]
    fn messages_change_in_place_and_the_header_comments_and_the_rest_stay() {
        let fresh = "msgid \"\"\nmsgstr \"\"\n\"Language: de\\n\"\n\nmsgid \"Adding %s\"\nmsgstr \"\"\n\"Füge \"\n\"%s hinzu\"\n\nmsgid \"new\"\nmsgid_plural \"news\"\nmsgstr[0] \"neu\"\nmsgstr[1] \"neue\"\n";
        let p = KEEP
            .patch(APP.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        let want = APP
            .replace(
                "msgstr \"Hinzufügen %s\"",
                "msgstr \"\"\n\"Füge \"\n\"%s hinzu\"",
            )
            .replace(
                "msgstr \"Hinzufügen\"\n",
                "msgstr \"Hinzufügen\"\n\nmsgid \"new\"\nmsgid_plural \"news\"\nmsgstr[0] \"neu\"\nmsgstr[1] \"neue\"\n",
            );
        assert_eq!(String::from_utf8(p.body).unwrap(), want);
        assert_eq!((p.counts.changed, p.counts.added, p.counts.kept), (1, 1, 1));
    }

    #[test]
    fn a_fuzzy_entry_given_the_sheets_text_is_no_longer_fuzzy_and_an_unchanged_one_stays() {
        let app = "msgid \"\"\nmsgstr \"\"\n\"Language: de\\n\"\n\n#: a.c:1\n#, fuzzy, c-format\n#| msgid \"Old %s\"\nmsgid \"New %s\"\nmsgstr \"Alt %s\"\n\n#, fuzzy\r\n#| msgid \"Was\"\r\nmsgid \"Guess\"\r\nmsgstr \"Rate\"\r\n\n#, fuzzy\nmsgid \"Same\"\nmsgstr \"Gleich\"\n";
        let fresh = "msgid \"New %s\"\nmsgstr \"Neu %s\"\n\nmsgid \"Guess\"\nmsgid_plural \"Guesses\"\nmsgstr[0] \"Rate\"\nmsgstr[1] \"Raten\"\n\nmsgid \"Same\"\nmsgstr \"Gleich\"\n";
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        let want = app
            .replace(
                "#, fuzzy, c-format\n#| msgid \"Old %s\"\nmsgid \"New %s\"\nmsgstr \"Alt %s\"",
                "#, c-format\nmsgid \"New %s\"\nmsgstr \"Neu %s\"",
            )
            .replace(
                "#, fuzzy\r\n#| msgid \"Was\"\r\nmsgid \"Guess\"\r\nmsgstr \"Rate\"",
                "msgid \"Guess\"\nmsgid_plural \"Guesses\"\nmsgstr[0] \"Rate\"\nmsgstr[1] \"Raten\"",
            );
        assert_eq!(String::from_utf8(p.body).unwrap(), want);
        assert_eq!((p.counts.changed, p.counts.kept), (2, 0));
    }

    #[test]
    fn only_the_fuzzy_flag_goes() {
        let not = |s: &str| not_fuzzy(s.as_bytes()).map(|b| String::from_utf8(b).unwrap());
        assert_eq!(not("\n#: a.c:1\n#, c-format\n#| msgid \"x\"\n"), None);
        assert_eq!(
            not("\n# note\n#,c-format,fuzzy , no-wrap\n#| msgid \"x\"\n"),
            Some("\n# note\n#, c-format, no-wrap\n".into())
        );
        assert_eq!(not("#, fuzzy\n"), Some(String::new()));
    }

    #[test]
    fn a_context_is_part_of_the_name() {
        let names: Vec<_> = (split(APP.as_bytes()).unwrap().pieces.into_iter())
            .map(|p| p.name)
            .collect();
        assert_eq!(
            names,
            [
                None,
                Some("Adding %s".into()),
                Some("Gerund\u{4}Adding".into())
            ]
        );
    }
}
