//! Patching an existing `Localizable.strings` (SPEC §12.1): each `"key" = "text";` the
//! sheet has gets the new entry in place; comments, entries the sheet lacks and the spacing
//! between them stay as they are. A UTF-16 file is patched as text and stays UTF-16.

use std::collections::HashSet;

use crate::formats::Format;
use crate::formats::keeping::{self, KeepError, Patched, Piece, Split};

/// `keeping::Patcher` for ios `.strings`.
pub fn patch(
    existing: &[u8],
    fresh: &[u8],
    elsewhere: &HashSet<String>,
) -> Result<Patched, KeepError> {
    let little = match existing {
        [0xFF, 0xFE, ..] => true,
        [0xFE, 0xFF, ..] => false,
        _ => {
            return keeping::patch_pieces(
                existing,
                fresh,
                elsewhere,
                split,
                keeping::swap_body,
                same,
            );
        }
    };
    let text = super::read::decode(existing).map_err(|e| KeepError::new(0, e.message))?;
    let patched = keeping::patch_pieces(
        text.as_bytes(),
        fresh,
        elsewhere,
        split,
        keeping::swap_body,
        same,
    )?;
    let text = String::from_utf8_lossy(&patched.body);
    let mut body = existing[..2].to_vec();
    for unit in text.encode_utf16() {
        body.extend(match little {
            true => unit.to_le_bytes(),
            false => unit.to_be_bytes(),
        });
    }
    Ok(Patched {
        body,
        counts: patched.counts,
    })
}

/// `keeping::Same`: the two entries read by the strings reader give one key and text.
fn same(existing: &[u8], old: &Piece, fresh: &[u8], new: &Piece) -> bool {
    let wrap: (&[u8], &[u8]) = (b"", b"");
    keeping::entries_read_the_same(Format::Ios, wrap, (existing, old), (fresh, new))
}

fn split(bytes: &[u8]) -> Result<Split, KeepError> {
    let mut at = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
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
    let append_at = if pieces.is_empty() {
        bytes.len()
    } else {
        previous
    };
    Ok(Split {
        pieces,
        append_at,
        separator: b"\n",
    })
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

    #[test]
    fn entries_change_in_place_and_comments_and_extra_keys_stay() {
        let app = "/* Title of the home screen */\n\"home_title\" = \"Your basket\";\n// the app's own\n\"only.app\" = \"x\";\n\"a \\\"q\\\"\" = \"q\";\n";
        let fresh = "\"home_title\" = \"Your cart\";\n\"a \\\"q\\\"\" = \"q\";\n/* new */\n\"added\" = \"A\";\n";
        let p = patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new()).unwrap();
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
        let p = patch(&utf16(app), b"\"a\" = \"new\";\n", &HashSet::new()).unwrap();
        assert_eq!(p.body, utf16(&app.replace("old", "new")));
    }

    #[test]
    fn an_unfinished_entry_is_refused() {
        let e = split(b"\"a\" = \"b\"\n\"c\" = \"d\";").unwrap_err();
        assert_eq!(e.what, "expected ';' after an entry");
    }
}
