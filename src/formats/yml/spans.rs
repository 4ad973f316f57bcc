//! A yml file's block maps as byte spans (`yml::keep`): each key with its value's bytes,
//! the comment lines above it and where its last line ends, so that a patch cuts and
//! splices the app's file and leaves every other byte as it is. What a Rails locale file
//! holds is scanned: block maps, comments, plain, quoted and block scalars, anchors and
//! tags before a value, lists, aliases and flow collections (as values that are no text).

use std::ops::Range;

use saphyr_parser::{Event, Parser};

use crate::formats::shared::spans::{KeepError, after_bom, line_start};

/// Deeper than any locale file nests; past it a file is refused (no stack overflow).
const MAX_DEPTH: usize = 64;

/// A block map (or `{}`, an empty one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Map {
    /// The column of its keys.
    pub indent: usize,
    pub entries: Vec<Entry>,
    /// The `{}` written for it when it is empty.
    pub empty: Option<Range<usize>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub key: String,
    /// Where the comment lines right above its key start (the key's line when none).
    pub lead: usize,
    /// The start of the key's line.
    pub line: usize,
    /// The key as written (quotes included).
    pub key_span: Range<usize>,
    /// Just after its `:`.
    pub colon: usize,
    pub value: Value,
    /// Where its value ends (a map: where its last entry ends).
    pub value_end: usize,
    /// The end of its last line: after a trailing comment, before the line break.
    pub end: usize,
}

impl Entry {
    /// The column of its key.
    pub fn column(&self) -> usize {
        self.key_span.start - self.line
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// A scalar after its anchor and tag, if any: from quote to quote, from its first to
    /// its last character, or from `|`/`>` to the end of its last line.
    Scalar {
        span: Range<usize>,
        style: Style,
    },
    Map(Map),
    /// No text: a list, an alias, a flow collection, nothing (null).
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Plain,
    Single,
    Double,
    Literal,
    Folded,
}

/// The top-level map of `bytes`, a yml file that reads as YAML (the reader says why not
/// first): refused with where when it is laid out in a way this does not scan.
pub(crate) fn parse(bytes: &[u8]) -> Result<Map, KeepError> {
    let s = Scanner { b: bytes };
    let mut at = after_bom(bytes);
    // directives, `---`, comments and blank lines before the content
    let first = loop {
        let Some(line) = s.content_line(at) else {
            return Ok(Map {
                indent: 0,
                entries: Vec::new(),
                empty: None,
            });
        };
        let start = line + s.indent(line);
        let text = &bytes[start..s.text_end(line)];
        let marker = text.starts_with(b"---") && s.blank_or_comment_from(start + 3);
        if text.starts_with(b"%") || marker {
            at = s.next_line(line);
            continue;
        }
        break line;
    };
    let col = s.indent(first);
    let (map, next) = match bytes[first + col] {
        b'{' if bytes[first + col..].starts_with(b"{}") => {
            let empty = first + col..first + col + 2;
            let map = Map {
                indent: col,
                entries: Vec::new(),
                empty: Some(empty.clone()),
            };
            (map, s.next_line(first))
        }
        b'{' | b'[' | b'-' | b'"' | b'\'' if !s.is_key_line(first) => {
            return Err(s.error(first + col, "the top level is not a block map of keys"));
        }
        _ => s.map(at, col, 0)?,
    };
    // what may follow: the end of the document
    if let Some(line) = s.content_line(next) {
        let start = line + s.indent(line);
        let done = bytes[start..].starts_with(b"...") && s.blank_or_comment_from(start + 3);
        if !done || s.content_line(s.next_line(line)).is_some() {
            return Err(s.error(
                line,
                "text after the top-level map (a second YAML document?): not patched",
            ));
        }
    }
    Ok(map)
}

/// The text of one YAML scalar written alone (a quoted key or value), as YAML reads it.
pub(crate) fn scalar_text(snippet: &[u8]) -> Option<String> {
    let snippet = std::str::from_utf8(snippet).ok()?;
    let mut events = Parser::new_from_str(snippet);
    while let Some(Ok((event, _))) = events.next() {
        match event {
            Event::StreamStart | Event::DocumentStart(_) => {}
            Event::Scalar(value, ..) => return Some(value.into_owned()),
            _ => return None,
        }
    }
    None
}

struct Scanner<'b> {
    b: &'b [u8],
}

impl Scanner<'_> {
    fn error(&self, at: usize, what: &str) -> KeepError {
        KeepError::new(at, format!("a YAML layout depot does not patch: {what}"))
    }

    /// The line break ending the line of `at`, or the file's end.
    fn eol(&self, at: usize) -> usize {
        memchr::memchr(b'\n', &self.b[at.min(self.b.len())..]).map_or(self.b.len(), |p| at + p)
    }

    fn next_line(&self, at: usize) -> usize {
        (self.eol(at) + 1).min(self.b.len())
    }

    /// The end of the line of `at`, before its `\r\n` or `\n`.
    fn text_end(&self, at: usize) -> usize {
        let eol = self.eol(at);
        match eol > at && self.b.get(eol - 1) == Some(&b'\r') {
            true => eol - 1,
            false => eol,
        }
    }

    /// The spaces that indent the line starting at `line`.
    fn indent(&self, line: usize) -> usize {
        (self.b[line..].iter()).take_while(|&&b| b == b' ').count()
    }

    fn skip_blanks(&self, mut at: usize) -> usize {
        while matches!(self.b.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        at
    }

    /// Whether nothing but blanks and a comment follows `at` on its line.
    fn blank_or_comment_from(&self, at: usize) -> bool {
        let p = self.skip_blanks(at);
        p >= self.text_end(at) || self.b[p] == b'#'
    }

    /// The first line from `at` on that holds more than blanks and a comment.
    fn content_line(&self, mut at: usize) -> Option<usize> {
        while at < self.b.len() {
            if !self.blank_or_comment_from(at) {
                return Some(at);
            }
            at = self.next_line(at);
        }
        None
    }

    /// Whether the line is a list item (`- `).
    fn item(&self, line: usize) -> bool {
        let p = line + self.indent(line);
        self.b.get(p) == Some(&b'-')
            && matches!(self.b.get(p + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
    }

    /// Whether the line's content starts with a quoted key (`"a": …`).
    fn is_key_line(&self, line: usize) -> bool {
        let p = line + self.indent(line);
        let end = match self.b[p] {
            b'"' => self.double(p),
            b'\'' => self.single(p),
            _ => return false,
        };
        end.is_ok_and(|end| self.b.get(self.skip_blanks(end)) == Some(&b':'))
    }

    /// Where the comment lines right above `line` start (not before `from`).
    fn lead(&self, from: usize, line: usize) -> usize {
        let mut lead = line;
        while lead > from {
            let above = line_start(self.b, lead - 1).max(from);
            let p = self.skip_blanks(above);
            if p >= self.text_end(above) || self.b[p] != b'#' {
                break;
            }
            lead = above;
        }
        lead
    }

    /// The map whose keys are at column `col` from the line at `from` on (comment lines
    /// first), and the line after it.
    fn map(&self, from: usize, col: usize, depth: usize) -> Result<(Map, usize), KeepError> {
        if depth > MAX_DEPTH {
            return Err(self.error(from, "nested too deeply"));
        }
        let mut entries = Vec::new();
        let mut at = from;
        while let Some(line) = self.content_line(at) {
            let indent = self.indent(line);
            if indent < col {
                break;
            }
            if indent > col {
                return Err(self.error(line + indent, "a line indented deeper than its map"));
            }
            let (entry, next) = self.entry(self.lead(at, line), line, col, depth)?;
            entries.push(entry);
            at = next;
        }
        let map = Map {
            indent: col,
            entries,
            empty: None,
        };
        Ok((map, at))
    }

    /// The entry whose key is on `line` at column `col`, and the line after it.
    fn entry(
        &self,
        lead: usize,
        line: usize,
        col: usize,
        depth: usize,
    ) -> Result<(Entry, usize), KeepError> {
        let b = self.b;
        let start = line + col;
        let text_end = self.text_end(line);
        let (key, key_end) = match b[start] {
            b'"' => {
                let end = self.double(start)?;
                (scalar_text(&b[start..end]), end)
            }
            b'\'' => {
                let end = self.single(start)?;
                (scalar_text(&b[start..end]), end)
            }
            b'?' | b'-'
                if matches!(b.get(start + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n')) =>
            {
                return Err(self.error(start, "an explicit key (`? `) or a list where a key is"));
            }
            _ => {
                let colon = (start..text_end).find(|&p| {
                    b[p] == b':'
                        && matches!(b.get(p + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
                });
                let Some(colon) = colon else {
                    return Err(self.error(start, "a line that is no `key: value`"));
                };
                let end = start + b[start..colon].trim_ascii_end().len();
                (String::from_utf8(b[start..end].to_vec()).ok(), end)
            }
        };
        let key = key.ok_or_else(|| self.error(start, "a key that does not read"))?;
        let colon = self.skip_blanks(key_end);
        if b.get(colon) != Some(&b':') {
            return Err(self.error(colon, "a key without its `:`"));
        }
        let colon = colon + 1;
        // an anchor and a tag stay before the value
        let mut p = self.skip_blanks(colon);
        while p < text_end && matches!(b[p], b'&' | b'!') {
            p = (p..text_end)
                .find(|&q| matches!(b[q], b' ' | b'\t'))
                .unwrap_or(text_end);
            p = self.skip_blanks(p);
        }
        let (value, value_end, last_line) = match b.get(p).filter(|_| p < text_end) {
            None | Some(b'#') => self.nested(line, col, colon, depth)?,
            Some(b'|' | b'>') => {
                let style = if b[p] == b'|' {
                    Style::Literal
                } else {
                    Style::Folded
                };
                let last = self.block_end(line, col);
                let end = self.text_end(last);
                (
                    Value::Scalar {
                        span: p..end,
                        style,
                    },
                    end,
                    last,
                )
            }
            Some(b'"' | b'\'') => {
                let (end, style) = match b[p] {
                    b'"' => (self.double(p)?, Style::Double),
                    _ => (self.single(p)?, Style::Single),
                };
                if !self.blank_or_comment_from(end) {
                    return Err(self.error(end, "text after a quoted value"));
                }
                (
                    Value::Scalar {
                        span: p..end,
                        style,
                    },
                    end,
                    line_start(b, end),
                )
            }
            Some(b'*') => {
                let end = (p..text_end)
                    .find(|&q| matches!(b[q], b' ' | b'\t'))
                    .unwrap_or(text_end);
                (Value::Other, end, line)
            }
            Some(b'{') if b[p..].starts_with(b"{}") && self.blank_or_comment_from(p + 2) => {
                let map = Map {
                    indent: col,
                    entries: Vec::new(),
                    empty: Some(p..p + 2),
                };
                (Value::Map(map), p + 2, line)
            }
            Some(b'[' | b'{') => {
                let end = self.flow(p)?;
                (Value::Other, end, line_start(b, end))
            }
            Some(_) => {
                let (end, last) = self.plain(p, line, col);
                (
                    Value::Scalar {
                        span: p..end,
                        style: Style::Plain,
                    },
                    end,
                    last,
                )
            }
        };
        let entry = Entry {
            key,
            lead,
            line,
            key_span: start..key_end,
            colon,
            value,
            value_end,
            end: self.text_end(last_line),
        };
        Ok((entry, self.next_line(last_line)))
    }

    /// A value on the lines below its key (`key:`): a map, a list, or nothing; with where
    /// it ends and its last line.
    fn nested(
        &self,
        line: usize,
        col: usize,
        colon: usize,
        depth: usize,
    ) -> Result<(Value, usize, usize), KeepError> {
        let Some(next) = self.content_line(self.next_line(line)) else {
            return Ok((Value::Other, colon, line));
        };
        let indent = self.indent(next);
        if indent > col && !self.item(next) {
            let (map, _) = self.map(self.next_line(line), indent, depth + 1)?;
            let last = map
                .entries
                .last()
                .map_or(line, |e| line_start(self.b, e.end));
            let end = map.entries.last().map_or(colon, |e| e.end);
            return Ok((Value::Map(map), end, last));
        }
        if indent >= col && self.item(next) {
            // a list, at the key's column or deeper: its lines up to the next key
            let mut last = next;
            let mut at = self.next_line(next);
            while let Some(l) = self.content_line(at) {
                let i = self.indent(l);
                if i < col || (i == col && !self.item(l)) {
                    break;
                }
                last = l;
                at = self.next_line(l);
            }
            return Ok((Value::Other, self.text_end(last), last));
        }
        Ok((Value::Other, colon, line))
    }

    /// The last line of a block scalar whose key is at column `col` on `line`: the last
    /// line below it indented deeper that holds more than blanks.
    fn block_end(&self, line: usize, col: usize) -> usize {
        let mut last = line;
        let mut at = self.next_line(line);
        while at < self.b.len() {
            let p = self.skip_blanks(at);
            if p < self.text_end(at) {
                if self.indent(at) <= col {
                    break;
                }
                last = at;
            }
            at = self.next_line(at);
        }
        last
    }

    /// The end of a plain scalar starting at `p` on `line` (its key at `col`), and its
    /// last line: it goes on over the lines below indented deeper.
    fn plain(&self, p: usize, line: usize, col: usize) -> (usize, usize) {
        let content_end = |from: usize, line: usize| {
            let text_end = self.text_end(line);
            let comment = (from..text_end)
                .find(|&q| self.b[q] == b'#' && q > from && matches!(self.b[q - 1], b' ' | b'\t'))
                .unwrap_or(text_end);
            from + self.b[from..comment].trim_ascii_end().len()
        };
        let mut end = content_end(p, line);
        let mut last = line;
        let mut at = self.next_line(line);
        while let Some(l) = self.content_line(at) {
            if self.indent(l) <= col {
                break;
            }
            end = content_end(self.skip_blanks(l), l);
            last = l;
            at = self.next_line(l);
        }
        (end, last)
    }

    /// The end of the double-quoted scalar opening at `p` (after its closing quote).
    fn double(&self, p: usize) -> Result<usize, KeepError> {
        let mut i = p + 1;
        loop {
            match self.b.get(i) {
                None => return Err(self.error(p, "a \"…\" text without its closing quote")),
                Some(b'\\') => i += 2,
                Some(b'"') => return Ok(i + 1),
                Some(_) => i += 1,
            }
        }
    }

    /// The end of the single-quoted scalar opening at `p` (`''` is a quote inside).
    fn single(&self, p: usize) -> Result<usize, KeepError> {
        let mut i = p + 1;
        loop {
            match self.b.get(i) {
                None => return Err(self.error(p, "a '…' text without its closing quote")),
                Some(b'\'') if self.b.get(i + 1) == Some(&b'\'') => i += 2,
                Some(b'\'') => return Ok(i + 1),
                Some(_) => i += 1,
            }
        }
    }

    /// The end of the flow collection (`[…]`, `{…}`) opening at `p`.
    fn flow(&self, p: usize) -> Result<usize, KeepError> {
        let mut open = 0usize;
        let mut i = p;
        while let Some(&c) = self.b.get(i) {
            match c {
                b'[' | b'{' => open += 1,
                b']' | b'}' => {
                    open = open.saturating_sub(1);
                    if open == 0 {
                        return Ok(i + 1);
                    }
                }
                b'"' => i = self.double(i)? - 1,
                b'\'' => i = self.single(i)? - 1,
                b'#' if matches!(self.b[i - 1], b' ' | b'\t' | b'\n') => i = self.eol(i) - 1,
                _ => {}
            }
            i += 1;
        }
        Err(self.error(p, "a flow collection without its end"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(map: &Map, out: &mut Vec<String>, path: &str) {
        for e in &map.entries {
            let path = format!("{path}/{}", e.key);
            out.push(path.clone());
            if let Value::Map(m) = &e.value {
                keys(m, out, &path);
            }
        }
    }

    #[test]
    fn a_rails_file_scans_into_keys_values_and_lines() {
        let yml = "---\n# the app's\nde:\n  # greets\n  hello: \"Hallo %{name}\" # said first\n  'it''s': plain text\n    over two lines\n  block: |\n    one\n\n    two\n  folded: >-\n    a\n    b\n  items:\n    one: eins\n    other: '%{count} Dinge'\n  list:\n  - a\n  - b\n  alias: *x\n  anchored: &a !!str yes\n  flow: [a, {b: c}]\n  empty: {}\n  null:\n";
        let map = parse(yml.as_bytes()).unwrap();
        let mut all = Vec::new();
        keys(&map, &mut all, "");
        assert_eq!(
            all,
            [
                "/de",
                "/de/hello",
                "/de/it's",
                "/de/block",
                "/de/folded",
                "/de/items",
                "/de/items/one",
                "/de/items/other",
                "/de/list",
                "/de/alias",
                "/de/anchored",
                "/de/flow",
                "/de/empty",
                "/de/null"
            ]
        );
        let Value::Map(de) = &map.entries[0].value else {
            panic!("{map:?}")
        };
        let value = |i: usize| match &de.entries[i].value {
            Value::Scalar { span, style } => (&yml[span.clone()], *style),
            other => panic!("{other:?}"),
        };
        assert_eq!(value(0), ("\"Hallo %{name}\"", Style::Double));
        assert_eq!(value(1), ("plain text\n    over two lines", Style::Plain));
        assert_eq!(value(2), ("|\n    one\n\n    two", Style::Literal));
        assert_eq!(value(3), (">-\n    a\n    b", Style::Folded));
        assert_eq!(value(7), ("yes", Style::Plain));
        let hello = &de.entries[0];
        assert_eq!(&yml[hello.lead..hello.line], "  # greets\n");
        assert_eq!(
            &yml[hello.line..hello.end],
            "  hello: \"Hallo %{name}\" # said first"
        );
        assert_eq!(
            &yml[de.entries[5].line..de.entries[5].end],
            "  list:\n  - a\n  - b"
        );
        assert_eq!(
            de.entries[9].value,
            Value::Map(Map {
                indent: 2,
                entries: vec![],
                empty: Some(yml.find("{}").unwrap()..yml.find("{}").unwrap() + 2)
            })
        );
        assert_eq!(map.entries[0].end, yml.len() - 1);
    }

    #[test]
    fn what_is_not_scanned_is_refused_with_where() {
        for (yml, at) in [
            ("a: b\n---\nc: d\n", 5),
            ("- a\n", 0),
            ("a:\n  ? b\n  : c\n", 5),
        ] {
            let e = parse(yml.as_bytes()).unwrap_err();
            assert_eq!(e.at, at, "{yml}: {e}");
        }
        assert_eq!(parse(b"{}\n").unwrap().empty, Some(0..2));
        assert!(parse(b"# nothing\n").unwrap().entries.is_empty());
    }
}
