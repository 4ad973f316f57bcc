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
/// being one) is replaced whole, `msgid_plural` with it.
fn swap(existing: &[u8], old: &Piece, fresh: &[u8], new: &Piece, out: &mut Vec<u8>) {
    let plural = |bytes: &[u8], piece: &Piece| bytes[piece.body.clone()].starts_with(b"msgstr[");
    if plural(existing, old) == plural(fresh, new) {
        out.extend_from_slice(&fresh[new.body.clone()]);
        return;
    }
    // the app's lines before its texts were copied just before: they go too
    out.truncate(out.len().saturating_sub(old.body.start - old.whole.start));
    out.extend_from_slice(&fresh[new.whole.clone()]);
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
