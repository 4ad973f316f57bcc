//! Patching an existing yml file (SPEC §12.1): a key of the sheet the file has gets its new
//! text in place, written as the app wrote that value (plain, quoted, `|` or `>`) where the
//! text allows; keys the file lacks are added to their map, indented and quoted as the file
//! is; comments, anchors, lists, aliases and every key the sheet does not own stay.

use std::collections::{HashMap, HashSet};

use super::spans::{self, Entry, Map, Style, Value};
use crate::formats::Format;
use crate::formats::keeping::{Counts, Keep, KeepError, Patched, read_the_same};
use crate::formats::reading::Value as Text;
use crate::formats::shared::spans::units_as;
use crate::model::{PluralCategory, SheetSettings};

/// How yml files are patched.
pub(crate) const KEEP: Keep = Keep::Tree(patch);

/// `existing` patched with `fresh`, depot's rendering of the same locale (its keys without
/// the locale level a Rails file has: `de:`).
pub(crate) fn patch(existing: &[u8], fresh: &[u8]) -> Result<Patched, KeepError> {
    let settings = SheetSettings::default();
    units_as(Format::Yml, existing, &settings)
        .map_err(|e| KeepError::new(line_offset(existing, e.line), e.message))?;
    let old = spans::parse(existing)?;
    let new = spans::parse(fresh)?;
    if old.entries.is_empty() && old.empty.is_some() {
        // `{}`: nothing of the app's to keep
        let added = new.entries.iter().map(|e| entries(&e.value)).sum();
        let counts = Counts {
            added,
            ..Counts::default()
        };
        return Ok(Patched {
            body: fresh.to_vec(),
            counts,
        });
    }
    let layout = Layout::of(existing, &old);
    // Rails: the locale is the one top-level key, which the rendering of a locale's file
    // leaves out
    let nothing = Map {
        indent: 0,
        entries: Vec::new(),
        empty: None,
    };
    let (top, indent) = match old.entries.as_slice() {
        [only]
            if crate::formats::shared::locale::code(&only.key).is_some()
                && !new.entries.iter().any(|e| e.key == only.key) =>
        {
            let indent = only.column() + layout.unit;
            match &only.value {
                Value::Map(map) => (map, indent),
                // `de:` and nothing under it: what it gains goes under it
                Value::Other if only.value_end == only.colon => (&nothing, indent),
                _ => (&old, 0),
            }
        }
        _ => (&old, 0),
    };
    let mut patcher = Patcher {
        existing,
        fresh,
        layout,
        counts: Counts::default(),
        out: Vec::with_capacity(existing.len() + fresh.len() / 8),
    };
    let cursor = patcher.map(top, &new, 0, true, indent);
    patcher.out.extend_from_slice(&existing[cursor..]);
    check(&patcher.out, fresh)?;
    Ok(Patched {
        body: patcher.out,
        counts: patcher.counts,
    })
}

/// The byte where 1-based `line` starts.
fn line_offset(bytes: &[u8], line: usize) -> usize {
    match line.checked_sub(2) {
        None => 0,
        Some(breaks) => memchr::memchr_iter(b'\n', bytes)
            .nth(breaks)
            .map_or(bytes.len(), |at| at + 1),
    }
}

/// The entries a value holds to the summary: a text, a plural or what is no text is one,
/// a map of keys the sum of its own.
fn entries(value: &Value) -> usize {
    match value {
        Value::Map(map) if !is_plural(map) => map.entries.iter().map(|e| entries(&e.value)).sum(),
        _ => 1,
    }
}

/// A Rails plural: every key a CLDR category, `other` among them, every value a text.
fn is_plural(map: &Map) -> bool {
    map.entries.iter().any(|e| e.key == "other")
        && (map.entries.iter()).all(|e| {
            PluralCategory::from_name(&e.key).is_some() && matches!(e.value, Value::Scalar { .. })
        })
}

/// How the file lays out what it gains: the spaces one level indents, the style most of
/// its texts are written in, whether its keys are quoted, its line break.
struct Layout {
    unit: usize,
    style: Style,
    quoted_keys: bool,
    newline: &'static [u8],
}

impl Layout {
    fn of(bytes: &[u8], top: &Map) -> Layout {
        let mut tally = Tally::default();
        tally.map(bytes, top);
        // most texts' style; on a tie the one that quotes more
        let styles = [Style::Plain, Style::Single, Style::Double];
        let style = (styles.into_iter().zip(tally.styles).enumerate())
            .filter(|(_, (_, n))| *n > 0)
            .max_by_key(|&(rank, (_, n))| (n, rank))
            .map_or(Style::Double, |(_, (style, _))| style);
        let newline: &[u8] = match memchr::memchr(b'\n', bytes) {
            Some(at) if at > 0 && bytes[at - 1] == b'\r' => b"\r\n",
            _ => b"\n",
        };
        Layout {
            unit: tally.unit.unwrap_or(2),
            style,
            quoted_keys: tally.quoted > tally.plain,
            newline,
        }
    }
}

#[derive(Default)]
struct Tally {
    unit: Option<usize>,
    /// Plain, single- and double-quoted texts.
    styles: [usize; 3],
    quoted: usize,
    plain: usize,
}

impl Tally {
    fn map(&mut self, bytes: &[u8], map: &Map) {
        for e in &map.entries {
            match bytes[e.key_span.start] {
                b'"' | b'\'' => self.quoted += 1,
                _ => self.plain += 1,
            }
            match &e.value {
                Value::Scalar { style, .. } => match style {
                    Style::Plain => self.styles[0] += 1,
                    Style::Single => self.styles[1] += 1,
                    Style::Double => self.styles[2] += 1,
                    Style::Literal | Style::Folded => {}
                },
                Value::Map(inner) => {
                    if self.unit.is_none() && !inner.entries.is_empty() {
                        self.unit =
                            Some(inner.indent.saturating_sub(e.column())).filter(|&u| u > 0);
                    }
                    self.map(bytes, inner);
                }
                Value::Other => {}
            }
        }
    }
}

struct Patcher<'b> {
    existing: &'b [u8],
    fresh: &'b [u8],
    layout: Layout,
    counts: Counts,
    out: Vec<u8>,
}

impl Patcher<'_> {
    /// `old` patched with `new`: what the existing file holds from `cursor` (already in
    /// `out` before it) is written up to the point returned; `counted`: the summary
    /// counts its entries (not inside a plural); `indent`: its keys' column when it is `{}`
    /// or nothing.
    fn map(
        &mut self,
        old: &Map,
        new: &Map,
        mut cursor: usize,
        counted: bool,
        indent: usize,
    ) -> usize {
        let mut by_key: HashMap<&str, &Entry> = HashMap::with_capacity(new.entries.len());
        for n in &new.entries {
            by_key.entry(n.key.as_str()).or_insert(n);
        }
        for e in &old.entries {
            match by_key.get(e.key.as_str()) {
                Some(n) => cursor = self.entry(e, n, cursor, counted),
                None if counted => self.counts.kept += entries(&e.value),
                None => {}
            }
        }
        let had: HashSet<&str> = old.entries.iter().map(|e| e.key.as_str()).collect();
        let mut block = Vec::new();
        let indent = match old.entries.is_empty() {
            true => indent,
            false => old.indent,
        };
        for n in new.entries.iter().filter(|n| !had.contains(n.key.as_str())) {
            if counted {
                self.counts.added += entries(&n.value);
            }
            self.gain(n, indent, &mut block);
        }
        if block.is_empty() {
            return cursor;
        }
        // after the last entry's line; in place of `{}`; at the end of a file of none
        let at = match (old.entries.last(), &old.empty) {
            (Some(last), _) => last.end,
            (None, Some(empty)) => empty.start,
            (None, None) => self.existing.len(),
        };
        self.out.extend_from_slice(&self.existing[cursor..at]);
        match &old.empty {
            Some(empty) if old.entries.is_empty() => {
                let kept = self.out.trim_ascii_end().len();
                self.out.truncate(kept);
                cursor = empty.end;
            }
            _ => cursor = at,
        }
        match self.out.last() {
            // at the start of a line: the block's first line break would leave a blank one
            None | Some(b'\n') => {
                self.out
                    .extend_from_slice(&block[self.layout.newline.len()..]);
                self.out.extend_from_slice(self.layout.newline);
            }
            Some(_) => self.out.extend_from_slice(&block),
        }
        cursor
    }

    /// The existing entry `e` patched with the fresh `n` of the same key.
    fn entry(&mut self, e: &Entry, n: &Entry, cursor: usize, counted: bool) -> usize {
        match (&e.value, &n.value) {
            (Value::Scalar { span, style }, Value::Scalar { span: fresh, .. }) => {
                let (was, is) = (&self.existing[span.clone()], &self.fresh[fresh.clone()]);
                if same(was, is) {
                    return cursor;
                }
                self.out
                    .extend_from_slice(&self.existing[cursor..span.start]);
                let styled = self.styled(*style, e.column(), is);
                self.out.extend_from_slice(&styled);
                if counted {
                    self.counts.changed += 1;
                }
                span.end
            }
            (Value::Map(old), Value::Map(new)) => {
                // a plural is one entry: changed when any of its forms is
                let plural = is_plural(old) || is_plural(new);
                let at = self.out.len();
                let indent = e.column() + self.layout.unit;
                let end = self.map(old, new, cursor, counted && !plural, indent);
                if counted && plural && self.out[at..] != self.existing[cursor..end] {
                    self.counts.changed += 1;
                }
                end
            }
            // the sheet's value is of another kind: it replaces the app's
            _ => {
                self.out.extend_from_slice(&self.existing[cursor..e.colon]);
                let mut value = Vec::new();
                self.value(n, e.column(), &mut value);
                self.out.extend_from_slice(&value);
                if counted {
                    self.counts.changed += 1;
                }
                e.value_end
            }
        }
    }

    /// A fresh entry the file lacks, at column `indent`, into `block`: each line after a
    /// line break, its comment lines first.
    fn gain(&self, n: &Entry, indent: usize, block: &mut Vec<u8>) {
        let comments = self.fresh[n.lead..n.line].split(|&b| b == b'\n');
        for comment in comments.map(<[u8]>::trim_ascii).filter(|c| !c.is_empty()) {
            self.line(indent, block);
            block.extend_from_slice(comment);
        }
        self.line(indent, block);
        let key = &self.fresh[n.key_span.clone()];
        match !self.layout.quoted_keys && plain_key(&n.key) {
            true => block.extend_from_slice(n.key.as_bytes()),
            false => block.extend_from_slice(key),
        }
        block.push(b':');
        self.value(n, indent, block);
    }

    /// A line break and `indent` spaces.
    fn line(&self, indent: usize, block: &mut Vec<u8>) {
        block.extend_from_slice(self.layout.newline);
        block.resize(block.len() + indent, b' ');
    }

    /// The fresh entry `n`'s value after its `:`, its key at column `column`.
    fn value(&self, n: &Entry, column: usize, block: &mut Vec<u8>) {
        match &n.value {
            Value::Scalar { span, .. } => {
                block.push(b' ');
                let styled = self.styled(self.layout.style, column, &self.fresh[span.clone()]);
                block.extend_from_slice(&styled);
            }
            Value::Map(map) if !map.entries.is_empty() => {
                for child in &map.entries {
                    self.gain(child, column + self.layout.unit, block);
                }
            }
            _ => block.extend_from_slice(&self.fresh[n.colon..n.value_end]),
        }
    }

    /// The fresh scalar `fresh` written in `style` for a key at `column`, where its text
    /// reads back the same so; else as the rendering writes it (double-quoted).
    fn styled(&self, style: Style, column: usize, fresh: &[u8]) -> Vec<u8> {
        let Some(text) = spans::scalar_text(fresh) else {
            return fresh.to_vec();
        };
        let indent = column + self.layout.unit;
        let styled = match style {
            Style::Plain => plain(&text),
            Style::Single => single(&text),
            Style::Double => None,
            Style::Literal => block(&text, false, indent, self.layout.newline),
            Style::Folded => block(&text, true, indent, self.layout.newline),
        };
        match styled {
            Some(styled) if same(&styled, fresh) => styled,
            _ => fresh.to_vec(),
        }
    }
}

/// Whether two values read as the same text (the yml reader's: `read_the_same`).
fn same(was: &[u8], is: &[u8]) -> bool {
    if was == is || same_on_one_line(was, is) {
        return true;
    }
    let wrap = |value: &[u8]| [b"k: ".as_slice(), value, b"\n"].concat();
    read_the_same(Format::Yml, &wrap(was), &wrap(is))
}

/// The usual case told without a reader (a file of thousands of keys read each of them
/// twice): the app's plain or single-quoted text on one line is the rendering's
/// double-quoted one, which has no escape.
fn same_on_one_line(was: &[u8], is: &[u8]) -> bool {
    let Some(text) = unescaped_inside(is, b'"') else {
        return false;
    };
    if unescaped_inside(was, b'\'') == Some(text) {
        return true;
    }
    // a plain scalar is its bytes, unless YAML takes it for a boolean, null or number
    let plain = was.first().is_some_and(|b| !b"'\"|>&*![{".contains(b)) && !was.contains(&b'\n');
    plain
        && was == text
        && std::str::from_utf8(was).is_ok_and(|t| super::read::not_a_text(t).is_none())
}

/// What is between `quote`s on one line, when it holds neither that quote nor `\`.
fn unescaped_inside(value: &[u8], quote: u8) -> Option<&[u8]> {
    let inside = value.strip_prefix(&[quote])?.strip_suffix(&[quote])?;
    let plain = !inside.contains(&quote) && !inside.contains(&b'\\') && !inside.contains(&b'\n');
    plain.then_some(inside)
}

/// A character no plain or single-quoted scalar holds as it is.
fn special(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}'
        )
}

/// `text` as a plain scalar, when no YAML 1.1 or 1.2 reader could take it for anything
/// else (a boolean, a number, a date, an indicator, a comment).
fn plain(text: &str) -> Option<Vec<u8>> {
    let first = text.chars().next()?;
    let starts_badly = "-?:,[]{}#&*!|>'\"%@`=<~+.0123456789 ".contains(first);
    let ends_badly = text.ends_with([':', ' ']);
    let inside = text.contains(": ") || text.contains(" #") || text.chars().any(special);
    let plain = !starts_badly && !ends_badly && !inside && super::read::not_a_text(text).is_none();
    plain.then(|| text.as_bytes().to_vec())
}

/// `text` single-quoted, when it is one line of printable characters.
fn single(text: &str) -> Option<Vec<u8>> {
    if text.chars().any(special) {
        return None;
    }
    Some(format!("'{}'", text.replace('\'', "''")).into_bytes())
}

/// `text` as a literal (`|`) or folded (`>`) block scalar whose lines are indented by
/// `indent`, when its lines allow it.
fn block(text: &str, folded: bool, indent: usize, newline: &[u8]) -> Option<Vec<u8>> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let lines_ok = (body.split('\n')).all(|line| !(folded && line.starts_with([' ', '\t'])));
    let fits = !body.is_empty()
        && !body.ends_with('\n')
        && !body.starts_with([' ', '\t'])
        && !body.chars().any(|c| c != '\n' && c != '\t' && special(c))
        && lines_ok;
    if !fits {
        return None;
    }
    let mut out = vec![if folded { b'>' } else { b'|' }];
    if !text.ends_with('\n') {
        out.push(b'-');
    }
    for (i, line) in body.split('\n').enumerate() {
        // a folded line break between two lines is a space; an empty line keeps one
        if folded && i > 0 {
            out.extend_from_slice(newline);
            if line.is_empty() {
                continue;
            }
        }
        out.extend_from_slice(newline);
        if !line.is_empty() {
            out.resize(out.len() + indent, b' ');
            out.extend_from_slice(line.as_bytes());
        }
    }
    Some(out)
}

/// Whether a key can be written plain (Rails' `hello:`): a name no YAML 1.1 reader takes
/// for a boolean or a number (`no:`, Norwegian, would be `false` to Psych).
fn plain_key(key: &str) -> bool {
    let name = key
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    name && !key.starts_with('-') && !key.is_empty() && super::read::not_a_text(key).is_none()
}

/// The patched file must read back every text of the rendering (a plural with at least its
/// forms): a layout the scan took wrongly is refused rather than written.
fn check(patched: &[u8], fresh: &[u8]) -> Result<(), KeepError> {
    let settings = SheetSettings::default();
    let refused =
        |what: String| KeepError::new(0, format!("depot cannot patch this layout: {what}"));
    let got = units_as(Format::Yml, patched, &settings)
        .map_err(|e| refused(format!("the patched file would not read ({})", e.message)))?;
    let want = units_as(Format::Yml, fresh, &settings)
        .map_err(|e| refused(format!("the rendering does not read ({})", e.message)))?;
    let got: HashMap<String, Text> = (got.into_iter()).map(|(k, v)| (k.display(), v)).collect();
    for (key, text) in want {
        let key = key.display();
        let back = match (&text, got.get(&key)) {
            (Text::Plural(forms), Some(Text::Plural(have))) => {
                forms.iter().all(|f| have.contains(f))
            }
            (text, Some(have)) => text == have,
            (_, None) => false,
        };
        if !back {
            return Err(refused(format!(
                "the patched file would not give {key} the sheet's text"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patched(app: &str, fresh: &str) -> (String, Counts) {
        let p = patch(app.as_bytes(), fresh.as_bytes()).unwrap();
        (String::from_utf8(p.body).unwrap(), p.counts)
    }

    const APP: &str = "# Diaspora's German texts\nde:\n  # the greeting\n  hello: \"Hallo %{name}\" # shown first\n  plain: Einfacher Text\n  single: 'Ein ''Zitat'''\n  about: |\n    Zeile eins\n    Zeile zwei\n  folded: >-\n    Ein langer\n    Satz\n  items:\n    one: \"ein Ding\"\n    other: \"%{count} Dinge\"\n  app_only: Nur hier\n  defaults: &defaults\n    title: Titel\n  list:\n    - a\n    - b\n";

    #[test]
    fn texts_that_read_the_same_keep_the_apps_bytes() {
        let fresh = "\"hello\": \"Hallo %{name}\"\n\"plain\": \"Einfacher Text\"\n\"single\": \"Ein 'Zitat'\"\n\"about\": \"Zeile eins\\nZeile zwei\\n\"\n\"folded\": \"Ein langer Satz\"\n\"items\":\n  \"one\": \"ein Ding\"\n  \"other\": \"%{count} Dinge\"\n\"defaults\":\n  \"title\": \"Titel\"\n";
        let (body, counts) = patched(APP, fresh);
        assert_eq!(body, APP);
        assert_eq!(
            counts,
            Counts {
                changed: 0,
                added: 0,
                kept: 2,
                elsewhere: 0
            }
        );
    }

    #[test]
    fn changed_texts_are_written_in_the_values_own_style() {
        let fresh = "\"hello\": \"Hallo, %{name}!\"\n\"plain\": \"Neuer Text\"\n\"single\": \"It's new\"\n\"about\": \"Eins\\n\\nZwei\\n\"\n\"folded\": \"Kurz\\nund gut\"\n\"items\":\n  \"one\": \"ein Ding\"\n  \"other\": \"%{count} Sachen\"\n\"defaults\":\n  \"title\": \"yes\"\n";
        let (body, counts) = patched(APP, fresh);
        let want = APP
            .replace("\"Hallo %{name}\"", "\"Hallo, %{name}!\"")
            .replace("Einfacher Text", "Neuer Text")
            .replace("'Ein ''Zitat'''", "'It''s new'")
            .replace(
                "|\n    Zeile eins\n    Zeile zwei",
                "|\n    Eins\n\n    Zwei",
            )
            .replace(
                ">-\n    Ein langer\n    Satz",
                ">-\n    Kurz\n\n    und gut",
            )
            .replace("\"%{count} Dinge\"", "\"%{count} Sachen\"")
            // a plain `yes` would read as a boolean: quoted as the rendering quotes it
            .replace("title: Titel", "title: \"yes\"");
        assert_eq!(body, want);
        assert_eq!(
            counts,
            Counts {
                changed: 7,
                added: 0,
                kept: 2,
                elsewhere: 0
            }
        );
    }

    #[test]
    fn new_keys_go_into_their_map_as_the_file_writes_keys() {
        let app = "de:\n    greeting: Hallo\n    menu:\n        open: Öffnen # the menu\n    last: Ende\n";
        let fresh = "\"greeting\": \"Hallo\"\n\"menu\":\n  \"open\": \"Öffnen\"\n  \"close\": \"Schließen\"\n  \"no\": \"Nein\"\n# A new section\n\"new\":\n  \"items\":\n    \"one\": \"ein Ding\"\n    \"other\": \"%{count} Dinge\"\n";
        let (body, counts) = patched(app, fresh);
        assert_eq!(
            body,
            "de:\n    greeting: Hallo\n    menu:\n        open: Öffnen # the menu\n        close: Schließen\n        \"no\": Nein\n    last: Ende\n    # A new section\n    new:\n        items:\n            one: ein Ding\n            other: \"%{count} Dinge\"\n"
        );
        assert_eq!((counts.added, counts.kept), (3, 1));
    }

    #[test]
    fn an_empty_file_or_map_takes_the_rendering() {
        let fresh = "\"a\": \"A\"\n\"b\":\n  \"c\": \"C\"\n";
        // no text to follow: quoted as the rendering quotes
        assert_eq!(
            patched("# only a comment\n", fresh).0,
            "# only a comment\na: \"A\"\nb:\n  c: \"C\"\n"
        );
        assert_eq!(patched("{}\n", fresh).0, fresh);
        assert_eq!(
            patched("de:\n  b: {}\n", fresh).0,
            "de:\n  b:\n    c: \"C\"\n  a: \"A\"\n"
        );
        assert_eq!(
            patched("de:\n", fresh).0,
            "de:\n  a: \"A\"\n  b:\n    c: \"C\"\n"
        );
    }

    #[test]
    fn a_value_of_another_kind_is_replaced() {
        let app = "de:\n  x: &x Ex\n  a: *x\n  b: [1, 2]\n  c: Text\n";
        let (body, counts) = patched(app, "\"a\": \"A\"\n\"c\":\n  \"d\": \"D\"\n");
        assert_eq!(
            body,
            "de:\n  x: &x Ex\n  a: A\n  b: [1, 2]\n  c:\n    d: D\n"
        );
        assert_eq!((counts.changed, counts.kept), (2, 2));
    }

    #[test]
    fn a_file_that_is_not_yaml_is_refused_with_where() {
        let e = patch(b"de:\n  a: \"x\n", b"\"a\": \"b\"\n").unwrap_err();
        assert!(e.what.starts_with("not valid YAML"), "{e}");
    }

    use proptest::prelude::*;

    /// A Rails file of `entries` (key, text, style) under `de:`, each value in its style.
    fn rails(entries: &[(String, String, u8)]) -> String {
        let mut out = String::from("de:\n");
        for (key, text, style) in entries {
            let value = match style {
                0 => plain(text).map(|v| String::from_utf8(v).unwrap()),
                1 => single(text).map(|v| String::from_utf8(v).unwrap()),
                _ => None,
            };
            let value = value.unwrap_or_else(|| {
                let mut quoted = Vec::new();
                super::super::write::push_double_quoted(&mut quoted, text);
                String::from_utf8(quoted).unwrap()
            });
            out.push_str(&format!("  # about {key}\n  {key}: {value}\n"));
        }
        out
    }

    /// depot's rendering of `entries` (key, text).
    fn rendering(entries: &[(String, String)]) -> String {
        let mut out = String::new();
        for (key, text) in entries {
            let mut quoted = Vec::new();
            super::super::write::push_double_quoted(&mut quoted, key);
            quoted.extend_from_slice(b": ");
            super::super::write::push_double_quoted(&mut quoted, text);
            out.push_str(&String::from_utf8(quoted).unwrap());
            out.push('\n');
        }
        if out.is_empty() {
            out.push_str("{}\n");
        }
        out
    }

    proptest! {
        #[test]
        fn a_file_patched_with_its_own_texts_stays_byte_for_byte(
            entries in prop::collection::btree_map("k[a-z0-9_]{0,6}", ("[A-Za-z0-9 '#:%{}-]{1,12}", 0u8..3), 0..8)
        ) {
            let entries: Vec<_> = entries.into_iter().map(|(k, (t, s))| (k, t, s)).collect();
            let app = rails(&entries);
            let texts: Vec<_> = entries.iter().map(|(k, t, _)| (k.clone(), t.clone())).collect();
            let p = patch(app.as_bytes(), rendering(&texts).as_bytes()).unwrap();
            prop_assert_eq!(String::from_utf8(p.body).unwrap(), app);
            prop_assert_eq!((p.counts.changed, p.counts.added), (0, 0));
        }

        #[test]
        fn the_sheet_wins_its_keys_and_the_apps_own_stay(
            entries in prop::collection::btree_map(
                "k[a-z0-9_]{0,6}",
                ("[A-Za-z0-9 '#:%{}-]{1,12}", "[A-Za-z0-9 '#:%{}-]{1,12}", 0u8..3, 0u8..3),
                0..8,
            )
        ) {
            let app: Vec<_> = (entries.iter()).filter(|e| e.1.3 < 2).map(|(k, (a, _, s, _))| (k.clone(), a.clone(), *s)).collect();
            let sheet: Vec<_> = (entries.iter()).filter(|e| e.1.3 > 0).map(|(k, (_, b, _, _))| (k.clone(), b.clone())).collect();
            let p = patch(rails(&app).as_bytes(), rendering(&sheet).as_bytes()).unwrap();
            let got = units_as(Format::Yml, &p.body, &SheetSettings::default()).unwrap();
            let got: Vec<(String, Text)> = got.into_iter().map(|(k, v)| (k.display(), v)).collect();
            // the app's keys in their order, then the sheet's new ones
            let mut want: Vec<(String, Text)> = (entries.iter())
                .filter(|e| e.1.3 < 2)
                .map(|(k, (a, b, _, who))| (k.clone(), Text::Text(if *who > 0 { b.clone() } else { a.clone() })))
                .collect();
            want.extend((entries.iter()).filter(|e| e.1.3 == 2).map(|(k, (_, b, _, _))| (k.clone(), Text::Text(b.clone()))));
            prop_assert_eq!(got, want);
            prop_assert_eq!(p.counts.kept, entries.values().filter(|e| e.3 == 0).count());
        }
    }
}
