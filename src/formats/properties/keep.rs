//! Patching an existing `.properties` bundle (SPEC §12.1): each key the sheet has gets its
//! new logical line (continuations included) in place; comments, blank lines and keys the
//! sheet lacks stay as they are.

use crate::formats::Format;
use crate::formats::keeping::{self, Keep, KeepError, Piece, Split};

/// How properties files are patched.
pub(crate) const KEEP: Keep = Keep::Pieces {
    format: Format::Properties,
    split,
    swap: keeping::swap_body,
    wrap: (b"", b""),
    siblings: None,
};

fn split(bytes: &[u8]) -> Result<Split, KeepError> {
    let mut at = keeping::after_bom(bytes);
    let mut previous = at;
    let mut pieces = Vec::new();
    while at < bytes.len() {
        let line_end = end_of_line(bytes, at);
        let start = at
            + bytes[at..line_end]
                .iter()
                .take_while(|&&b| matches!(b, b' ' | b'\t' | 0x0C))
                .count();
        let blank_or_comment =
            start >= trimmed_end(bytes, at, line_end) || matches!(bytes[start], b'#' | b'!');
        if blank_or_comment {
            at = line_end + 1;
            continue;
        }
        // the logical line: a line ending in an odd number of backslashes goes on
        let mut end = line_end;
        while odd_backslashes(&bytes[start..trimmed_end(bytes, start, end)]) && end < bytes.len() {
            end = end_of_line(bytes, end + 1);
        }
        let end = trimmed_end(bytes, start, end);
        let logical = super::read::decode(&bytes[start..end]);
        let joined = join_continuations(&logical);
        let (key, _) = super::read::split(&joined)
            .map_err(|_| KeepError::new(start, "a key with a malformed escape"))?;
        let whole = start..end;
        pieces.push(Piece {
            name: Some(key),
            chunk: keeping::chunk_from(bytes, previous, &whole),
            body: value_start(bytes, start, end)..end,
            whole,
            fixed: false,
        });
        previous = end;
        at = end_of_line(bytes, end) + 1;
    }
    Ok(Split::of_lines(
        pieces,
        previous,
        bytes.len(),
        b"
",
    ))
}

/// Where the value of the logical line `start..end` starts: past the key (its escapes
/// skipped), the blanks, one `=` or `:`, and the blanks after it.
fn value_start(bytes: &[u8], start: usize, end: usize) -> usize {
    let blank = |b: u8| matches!(b, b' ' | b'\t' | 0x0C);
    let mut at = start;
    while at < end && !matches!(bytes[at], b'=' | b':') && !blank(bytes[at]) {
        at += if bytes[at] == b'\\' { 2 } else { 1 };
    }
    let mut at = at.min(end);
    while at < end && blank(bytes[at]) {
        at += 1;
    }
    if at < end && matches!(bytes[at], b'=' | b':') {
        at += 1;
    }
    while at < end && blank(bytes[at]) {
        at += 1;
    }
    at
}

/// The `\n` ending the line at `at`, or the end of the bytes.
fn end_of_line(bytes: &[u8], at: usize) -> usize {
    memchr::memchr(b'\n', &bytes[at.min(bytes.len())..]).map_or(bytes.len(), |p| at + p)
}

/// `end` without a `\r` before it.
fn trimmed_end(bytes: &[u8], start: usize, end: usize) -> usize {
    if end > start && bytes[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

fn odd_backslashes(line: &[u8]) -> bool {
    line.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// The physical lines of one logical line joined as `Properties.load` joins them.
fn join_continuations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line = match out.is_empty() {
            true => line,
            false => line.trim_start_matches([' ', '\t', '\u{C}']),
        };
        match odd_backslashes(line.as_bytes()) {
            true => out.push_str(&line[..line.len() - 1]),
            false => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn keys_change_in_place_and_comments_and_extra_keys_stay() {
        let app = "# JabRef\n\nExport\\ finished.=Export finished.\nlong=one \\\n    two\n! mine\nonly.app : x\n";
        let fresh = "Export\\ finished.=Exported.\nlong=one \\\n    two\nadded=A\n";
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        let want = app.replace("=Export finished.", "=Exported.") + "added=A\n";
        let p2 = KEEP
            .patch(app.as_bytes(), b"only.app=y\n", &HashSet::new())
            .unwrap();
        assert!(
            String::from_utf8(p2.body)
                .unwrap()
                .ends_with("only.app : y\n")
        );
        assert_eq!(String::from_utf8(p.body).unwrap(), want);
        assert_eq!((p.counts.changed, p.counts.added, p.counts.kept), (1, 1, 1));
    }
}
