//! Patching an existing `Localizable.strings` (SPEC §12.1): each `"key" = "text";` the
//! sheet has gets the new entry in place; comments, entries the sheet lacks and the spacing
//! between them stay as they are. A UTF-16 file is patched as text and stays UTF-16.

use crate::formats::Format;
use crate::formats::keeping::{self, Keep, KeepError, Piece, Split};

/// How ios `.strings` files are patched.
pub(crate) const KEEP: Keep = Keep::Pieces {
    format: Format::Ios,
    split,
    swap: keeping::swap_body,
    wrap: (b"", b""),
    siblings: None,
};

fn split(bytes: &[u8]) -> Result<Split, KeepError> {
    let mut at = keeping::after_bom(bytes);
    let mut previous = at;
    let mut pieces = Vec::new();
    loop {
        at = skip_blank(bytes, at)?;
        if at >= bytes.len() {
            break;
        }
        let start = at;
        let (key, next) = token(bytes, at)?;
        at = skip_blank(bytes, next)?;
        let mut value = None;
        if bytes.get(at) == Some(&b'=') {
            at = skip_blank(bytes, at + 1)?;
            let from = at;
            at = token(bytes, at)?.1;
            value = Some(from..at);
            at = skip_blank(bytes, at)?;
        }
        if bytes.get(at) != Some(&b';') {
            return Err(KeepError::new(at, "expected ';' after an entry"));
        }
        at += 1;
        let whole = start..at;
        pieces.push(Piece {
            name: Some(key),
            chunk: keeping::chunk_from(bytes, previous, &whole),
            body: value.unwrap_or_else(|| whole.clone()),
            whole,
            fixed: false,
        });
        previous = at;
    }
    Ok(Split::of_lines(
        pieces,
        previous,
        bytes.len(),
        b"
",
    ))
}

/// Past blanks and comments.
fn skip_blank(bytes: &[u8], mut at: usize) -> Result<usize, KeepError> {
    loop {
        match (bytes.get(at), bytes.get(at + 1)) {
            (Some(b), _) if b.is_ascii_whitespace() => at += 1,
            (Some(b'/'), Some(b'*')) => {
                let end = memchr::memmem::find(&bytes[at + 2..], b"*/")
                    .ok_or_else(|| KeepError::new(at, "a comment without its */"))?;
                at += 2 + end + 2;
            }
            (Some(b'/'), Some(b'/')) => {
                at = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |p| at + p);
            }
            _ => return Ok(at),
        }
    }
}

/// A quoted string (escapes undone) or an unquoted word, and where it ends.
fn token(bytes: &[u8], at: usize) -> Result<(String, usize), KeepError> {
    if bytes.get(at) != Some(&b'"') {
        let end = (at..bytes.len())
            .find(|&i| !(bytes[i].is_ascii_alphanumeric() || b"_.-$:/".contains(&bytes[i])))
            .unwrap_or(bytes.len());
        if end == at {
            return Err(KeepError::new(at, "expected a quoted string"));
        }
        return Ok((String::from_utf8_lossy(&bytes[at..end]).into_owned(), end));
    }
    let mut out = Vec::new();
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Ok((String::from_utf8_lossy(&out).into_owned(), i + 1)),
            b'\\' => {
                i += 1;
                match bytes.get(i) {
                    Some(b'n') => out.push(b'\n'),
                    Some(b't') => out.push(b'\t'),
                    Some(b'r') => out.push(b'\r'),
                    Some(&b) => out.push(b),
                    None => break,
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    Err(KeepError::new(at, "a string without its closing quote"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn entries_change_in_place_and_comments_and_extra_keys_stay() {
        let app = "/* Title of the home screen */\n\"home_title\" = \"Your basket\";\n// the app's own\n\"only.app\" = \"x\";\n\"a \\\"q\\\"\" = \"q\";\n";
        let fresh = "\"home_title\" = \"Your cart\";\n\"a \\\"q\\\"\" = \"q\";\n/* new */\n\"added\" = \"A\";\n";
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        let want = app.replace("Your basket", "Your cart") + "/* new */\n\"added\" = \"A\";\n";
        assert_eq!(String::from_utf8(p.body).unwrap(), want);
        assert_eq!((p.counts.changed, p.counts.added, p.counts.kept), (1, 1, 1));
    }

    #[test]
    fn a_utf16_file_stays_utf16() {
        let utf16 = |text: &str| {
            let mut bytes = vec![0xFF, 0xFE];
            bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
            bytes
        };
        let app = "/* ż */\n\"a\" = \"old\";\n";
        let p = KEEP
            .patch(&utf16(app), b"\"a\" = \"new\";\n", &HashSet::new())
            .unwrap();
        assert_eq!(p.body, utf16(&app.replace("old", "new")));
    }

    #[test]
    fn an_unfinished_entry_is_refused() {
        let e = split(b"\"a\" = \"b\"\n\"c\" = \"d\";").unwrap_err();
        assert_eq!(e.what, "expected ';' after an entry");
    }
}
