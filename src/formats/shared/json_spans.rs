//! A JSON file's objects as byte spans, and the patch of an existing file with a fresh
//! rendering member by member (`formats::keeping`, for i18next, json, arb, xcstrings): the
//! members of both take the fresh value (objects member by member, as each format's rules
//! say), members only in the fresh file are appended, every other byte stays.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::formats::Format;
use crate::formats::shared::spans::{Counts, KeepError, Patched};
use crate::model::SheetSettings;

/// Deeper than any translation file nests; past it a file is refused (no stack overflow).
const MAX_DEPTH: usize = 64;

/// An object: its braces' positions and its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Object {
    pub open: usize,
    pub close: usize,
    pub members: Vec<Member>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Member {
    pub key: String,
    /// After the `,` or `{` before it: the blanks that indent it.
    pub lead: usize,
    /// From the key's opening quote to the value's end.
    pub whole: Range<usize>,
    pub value: Range<usize>,
    pub object: Option<Object>,
}

/// The top-level object of `bytes` (a UTF-8 byte-order mark and blanks around it allowed).
pub(crate) fn parse(bytes: &[u8]) -> Result<Object, KeepError> {
    let start = crate::formats::shared::spans::after_bom(bytes);
    let mut p = Parser { bytes, at: start };
    p.blank();
    if p.peek() != Some(b'{') {
        return Err(p.error("expected a JSON object"));
    }
    let (_, object) = p.value(0)?;
    p.blank();
    if p.at != bytes.len() {
        return Err(p.error("text after the JSON object"));
    }
    object.ok_or_else(|| KeepError::new(start, "expected a JSON object"))
}

struct Parser<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn error(&self, what: &str) -> KeepError {
        KeepError::new(self.at, format!("not valid JSON: {what}"))
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), KeepError> {
        self.blank();
        if self.peek() != Some(byte) {
            return Err(self.error(&format!("expected '{}'", char::from(byte))));
        }
        self.at += 1;
        Ok(())
    }

    /// A value's span, and its members when it is an object.
    fn value(&mut self, depth: usize) -> Result<(Range<usize>, Option<Object>), KeepError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.blank();
        let start = self.at;
        match self.peek() {
            Some(b'{') => {
                self.at += 1;
                let mut members = Vec::new();
                let mut lead = self.at;
                self.blank();
                if self.peek() == Some(b'}') {
                    self.at += 1;
                    let object = Object {
                        open: start,
                        close: self.at - 1,
                        members,
                    };
                    return Ok((start..self.at, Some(object)));
                }
                loop {
                    self.blank();
                    let key_start = self.at;
                    let key = self.string()?;
                    self.expect(b':')?;
                    let (value, object) = self.value(depth + 1)?;
                    members.push(Member {
                        key,
                        lead,
                        whole: key_start..value.end,
                        value,
                        object,
                    });
                    self.blank();
                    match self.peek() {
                        Some(b',') => {
                            self.at += 1;
                            lead = self.at;
                        }
                        Some(b'}') => {
                            self.at += 1;
                            let object = Object {
                                open: start,
                                close: self.at - 1,
                                members,
                            };
                            return Ok((start..self.at, Some(object)));
                        }
                        _ => return Err(self.error("expected ',' or '}'")),
                    }
                }
            }
            Some(b'[') => {
                self.at += 1;
                self.blank();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Ok((start..self.at, None));
                }
                loop {
                    self.value(depth + 1)?;
                    self.blank();
                    match self.peek() {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok((start..self.at, None));
                        }
                        _ => return Err(self.error("expected ',' or ']'")),
                    }
                }
            }
            Some(b'"') => {
                self.string()?;
                Ok((start..self.at, None))
            }
            Some(_) => {
                while matches!(
                    self.peek(),
                    Some(b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z')
                ) {
                    self.at += 1;
                }
                if self.at == start {
                    return Err(self.error("expected a value"));
                }
                Ok((start..self.at, None))
            }
            None => Err(self.error("the file ends inside a value")),
        }
    }

    /// A string, its escapes undone.
    fn string(&mut self) -> Result<String, KeepError> {
        let start = self.at;
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a string"));
        }
        self.at += 1;
        let mut escaped = false;
        while let Some(b) = self.peek() {
            self.at += 1;
            match b {
                b'\\' => {
                    self.at += 1;
                    escaped = true;
                }
                b'"' => {
                    let raw = &self.bytes[start..self.at];
                    if !escaped {
                        return Ok(String::from_utf8_lossy(&raw[1..raw.len() - 1]).into_owned());
                    }
                    return serde_json::from_slice(raw)
                        .map_err(|e| KeepError::new(start, format!("not valid JSON: {e}")));
                }
                _ => {}
            }
        }
        Err(KeepError::new(
            start,
            "not valid JSON: a string without its closing quote",
        ))
    }
}

/// What a member is to the patch, by its path of keys (and the existing one's object).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// A level: objects in both files are patched member by member, and counted inside.
    Level,
    /// An entry the summary counts; objects in both are patched member by member.
    Entry,
    /// Not counted; objects in both are patched member by member.
    Meta,
    /// The app's own: kept as it is when the existing file has it, never added.
    Existing,
    /// What the app's file already implies (a String Catalog's source text that is its
    /// key): patched as `Meta` when the existing file has it, never added.
    Implied,
    /// An object whose `value` member decides: the same value keeps the app's object byte
    /// for byte (its `state` too); another value patches it member by member, as `Meta`.
    Unit,
}

/// A format's roles: the member's path of keys, and its object in the existing file (the
/// fresh one's when only that has it).
pub(crate) type Rules = fn(&[&str], Option<&Object>, &[u8]) -> Role;

/// A format's way of writing a fresh value as the app writes it, given the app's value
/// (arb: the app's `=1` selectors); `None`: the fresh value as it is.
pub(crate) type Restyle = fn(was: &[u8], is: &[u8]) -> Option<Vec<u8>>;

/// An order an app may keep its keys in (sorted by name, Xcode's order).
pub(crate) type Order = fn(&str, &str) -> Ordering;

/// How one format's JSON files are patched.
#[derive(Clone, Copy)]
pub(crate) struct JsonKeep {
    pub rules: Rules,
    /// Whose reader tells whether two values of one key read the same (the app's bytes
    /// then stay).
    pub same: Option<Format>,
    /// How a changed value is written.
    pub restyle: Option<Restyle>,
    /// The orders a file's objects may keep their keys in: the first one an object is in
    /// places the members it gains; in none, they go after its last member.
    pub orders: &'static [Order],
}

/// The orders of apps that sort their keys: by name, as bytes (i18next-parser's `sort`,
/// JavaScript's default sort) or without case.
pub(crate) const SORTED: &[Order] = &[Ord::cmp, without_case];

/// Two names compared without ASCII case, then as bytes.
pub(crate) fn without_case(a: &str, b: &str) -> Ordering {
    let lower = |b: u8| b.to_ascii_lowercase();
    (a.bytes().map(lower))
        .cmp(b.bytes().map(lower))
        .then_with(|| a.cmp(b))
}

/// Patches `existing` with `fresh` as `keep` says; `settings`: the sheet's, which say how
/// its files read (`arb=plain`) when `keep.same` tells whether two values read the same.
pub(crate) fn patch(
    existing: &[u8],
    fresh: &[u8],
    keep: &JsonKeep,
    settings: &SheetSettings,
) -> Result<Patched, KeepError> {
    let old = parse(existing)?;
    let new = parse(fresh)?;
    let mut patcher = Patcher {
        existing,
        fresh,
        keep: *keep,
        layout: Layout::of(existing, &old),
        settings: *settings,
        counts: Counts::default(),
        out: Vec::with_capacity(existing.len() + fresh.len() / 8),
        path: Vec::new(),
    };
    patcher.out.extend_from_slice(&existing[..old.open]);
    patcher.object(&old, &new, false);
    patcher.out.extend_from_slice(&existing[old.close + 1..]);
    Ok(Patched {
        body: patcher.out,
        counts: patcher.counts,
    })
}

/// How a file lays out its members, read from its first one on a line of its own: what
/// indents one level, what is between a key and its value, its line break.
#[derive(Clone, Copy)]
struct Layout<'b> {
    unit: &'b [u8],
    colon: &'b [u8],
    newline: &'b [u8],
}

impl<'b> Layout<'b> {
    /// `None`: a file on one line, or indented by neither spaces nor tabs alone.
    fn of(bytes: &'b [u8], top: &Object) -> Option<Layout<'b>> {
        let first = top.members.first()?;
        let lead = &bytes[first.lead..first.whole.start];
        let line = lead.iter().rposition(|&b| b == b'\n')?;
        let unit = &lead[line + 1..];
        let even = |c: u8| !unit.is_empty() && unit.iter().all(|&b| b == c);
        if !even(b' ') && !even(b'\t') {
            return None;
        }
        let newline: &[u8] = match line.checked_sub(1).map(|at| lead[at]) {
            Some(b'\r') => b"\r\n",
            _ => b"\n",
        };
        Some(Layout {
            unit,
            colon: colon(bytes, first),
            newline,
        })
    }
}

/// What is between a member's key and its value (`: `, ` : `).
fn colon<'b>(bytes: &'b [u8], member: &Member) -> &'b [u8] {
    let between = &bytes[member.whole.start + 1..member.value.start];
    let quote = between
        .iter()
        .rposition(|&b| b == b'"')
        .map_or(0, |q| q + 1);
    &between[quote..]
}

/// The indent of a member's line: its lead's blanks after the last line break; `None`: the
/// member shares its line with the one before (an object on one line).
fn indent_of(lead: &[u8]) -> Option<&[u8]> {
    let line = lead.iter().rposition(|&b| b == b'\n')?;
    Some(&lead[line + 1..])
}

struct Patcher<'b> {
    existing: &'b [u8],
    fresh: &'b [u8],
    keep: JsonKeep,
    layout: Option<Layout<'b>>,
    settings: SheetSettings,
    counts: Counts,
    out: Vec<u8>,
    path: Vec<&'b str>,
}

impl<'b> Patcher<'b> {
    /// `old` patched with `new`, from its `{` to its `}`; `inside_entry`: counted above.
    fn object(&mut self, old: &'b Object, new: &'b Object, inside_entry: bool) {
        let mut by_key: HashMap<&str, &Member> = HashMap::with_capacity(new.members.len());
        for m in &new.members {
            by_key.entry(m.key.as_str()).or_insert(m);
        }
        // what only the fresh object has, each counted or not
        let old_keys: HashSet<&str> = old.members.iter().map(|m| m.key.as_str()).collect();
        let mut gained = Vec::new();
        for n in &new.members {
            if old_keys.contains(n.key.as_str()) {
                continue;
            }
            self.path.push(&n.key);
            let role = (self.keep.rules)(&self.path, n.object.as_ref(), self.fresh);
            self.path.pop();
            if !matches!(role, Role::Existing | Role::Implied) {
                gained.push((
                    n,
                    !inside_entry && matches!(role, Role::Entry | Role::Level),
                ));
            }
        }
        let order = (!gained.is_empty()).then(|| self.order_of(old)).flatten();
        if let Some(order) = order {
            gained.sort_by(|(a, _), (b, _)| order(&a.key, &b.key));
        }
        let mut gained = gained.into_iter().peekable();
        let mut cursor = old.open;
        for m in &old.members {
            if let Some(order) = order.filter(|_| !m.key.starts_with("@@")) {
                // the members that go before it in the object's order, indented as it is
                while let Some((n, counted)) =
                    gained.next_if(|(n, _)| order(&n.key, &m.key) == Ordering::Less)
                {
                    self.out.extend_from_slice(&self.existing[cursor..m.lead]);
                    cursor = m.lead;
                    self.gain(old.open, Some(m), n, counted);
                    self.out.push(b',');
                }
            }
            self.path.push(&m.key);
            let role = (self.keep.rules)(&self.path, m.object.as_ref(), self.existing);
            let counted = !inside_entry && matches!(role, Role::Entry | Role::Level);
            match by_key.get(m.key.as_str()) {
                Some(n) if role != Role::Existing => {
                    self.out
                        .extend_from_slice(&self.existing[cursor..m.value.start]);
                    let at = self.out.len();
                    match (&m.object, &n.object) {
                        (Some(o), Some(_)) if role == Role::Unit && self.same_unit(o, n) => {
                            self.out.extend_from_slice(&self.existing[m.value.clone()]);
                        }
                        (Some(o), Some(f)) => self.object(
                            o,
                            f,
                            inside_entry
                                || matches!(
                                    role,
                                    Role::Entry | Role::Meta | Role::Implied | Role::Unit
                                ),
                        ),
                        _ => self.value(&m.key, &m.value, &n.value),
                    }
                    let changed = self.out[at..] != self.existing[m.value.clone()];
                    let level = role == Role::Level && m.object.is_some() && n.object.is_some();
                    if counted && changed && !level {
                        self.counts.changed += 1;
                    }
                    cursor = m.value.end;
                }
                _ if counted => self.counts.kept += 1,
                _ => {}
            }
            self.path.pop();
        }
        // the rest goes after the last member
        let end = old.members.last().map_or(old.open + 1, |m| m.value.end);
        self.out.extend_from_slice(&self.existing[cursor..end]);
        let mut has_members = !old.members.is_empty();
        let empty = !has_members;
        for (n, counted) in gained {
            if has_members {
                self.out.push(b',');
            }
            self.gain(old.open, old.members.last(), n, counted);
            has_members = true;
        }
        if empty
            && has_members
            && let Some(layout) = self.layout
            && self.existing[end..old.close].trim_ascii().is_empty()
        {
            // an empty object that gained members: its `}` on a line of its own
            self.out.extend_from_slice(layout.newline);
            self.out.extend_from_slice(self.line_indent(old.open));
            self.out.push(b'}');
            return;
        }
        self.out.extend_from_slice(&self.existing[end..=old.close]);
    }

    /// A leaf value of a key both files have: the fresh one, unless it reads the same as
    /// the app's (whose escapes, `\u00e9`, `\/`, then stay).
    fn value(&mut self, key: &str, was: &Range<usize>, is: &Range<usize>) {
        let (was, is) = (&self.existing[was.clone()], &self.fresh[is.clone()]);
        let same = same_value(was, is)
            || (self.keep.same)
                .is_some_and(|format| read_the_same((format, self.settings), key, was, is));
        let restyled = (!same)
            .then(|| self.keep.restyle.and_then(|restyle| restyle(was, is)))
            .flatten();
        match restyled {
            Some(restyled) => self.out.extend_from_slice(&restyled),
            None => self.out.extend_from_slice(if same { was } else { is }),
        }
    }

    /// The first of the format's orders `object`'s keys are in (file attributes, ARB's
    /// `@@locale`, aside); `None`: in none, or too few keys to tell.
    fn order_of(&self, object: &Object) -> Option<Order> {
        let keys: Vec<&str> = (object.members.iter())
            .map(|m| m.key.as_str())
            .filter(|k| !k.starts_with("@@"))
            .collect();
        if keys.len() < 2 {
            return None;
        }
        (self.keep.orders.iter().copied())
            .find(|order| keys.is_sorted_by(|a, b| order(a, b) != Ordering::Greater))
    }

    /// The blanks that start the line holding `at` in the existing file.
    fn line_indent(&self, at: usize) -> &'b [u8] {
        let start = super::spans::line_start(self.existing, at);
        let blanks = (self.existing[start..at].iter())
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        &self.existing[start..start + blanks]
    }

    /// `n`, a member only the fresh file has, written into the object opened at `open` as
    /// the app lays out its members: with the lead of its member `beside` (or one level
    /// deeper than the object's line when it has none), the file's colon, nested objects
    /// with the file's indent.
    fn gain(&mut self, open: usize, beside: Option<&Member>, n: &'b Member, counted: bool) {
        if counted {
            self.counts.added += 1;
        }
        let Some(layout) = self.layout else {
            self.out.extend_from_slice(&self.fresh[n.lead..n.whole.end]);
            return;
        };
        let Some(beside) = beside else {
            let indent = [self.line_indent(open), layout.unit].concat();
            self.out.extend_from_slice(layout.newline);
            self.out.extend_from_slice(&indent);
            self.laid_out(n, &indent, layout);
            return;
        };
        let lead = &self.existing[beside.lead..beside.whole.start];
        self.out.extend_from_slice(lead);
        match indent_of(lead) {
            Some(indent) => self.laid_out(n, indent, layout),
            // on one line with the others: as the fresh file writes it
            None => self.out.extend_from_slice(&self.fresh[n.whole.clone()]),
        }
    }

    /// A fresh member (key, colon, value) with `layout`'s colon and indent, at `indent`.
    fn laid_out(&mut self, n: &Member, indent: &[u8], layout: Layout<'_>) {
        let key_end = n.value.start - colon(self.fresh, n).len();
        self.out
            .extend_from_slice(&self.fresh[n.whole.start..key_end]);
        self.out.extend_from_slice(layout.colon);
        let Some(object) = n.object.as_ref().filter(|o| !o.members.is_empty()) else {
            self.out.extend_from_slice(&self.fresh[n.value.clone()]);
            return;
        };
        let inner = [indent, layout.unit].concat();
        self.out.push(b'{');
        for (i, member) in object.members.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.out.extend_from_slice(layout.newline);
            self.out.extend_from_slice(&inner);
            self.laid_out(member, &inner, layout);
        }
        self.out.extend_from_slice(layout.newline);
        self.out.extend_from_slice(indent);
        self.out.push(b'}');
    }
}

impl Patcher<'_> {
    /// Whether the app's object `old` and the fresh member `new` hold the same `value`.
    fn same_unit(&self, old: &Object, new: &Member) -> bool {
        let value = |object: &Object| {
            (object.members.iter())
                .find(|m| m.key == "value")
                .map(|m| m.value.clone())
        };
        match (value(old), new.object.as_ref().and_then(value)) {
            (Some(was), Some(is)) => same_value(&self.existing[was], &self.fresh[is]),
            _ => false,
        }
    }
}

/// Whether `{"key": a}` and `{"key": b}` read the same as files of `format` of a sheet with
/// `settings`.
fn read_the_same(
    (format, settings): (Format, SheetSettings),
    key: &str,
    a: &[u8],
    b: &[u8],
) -> bool {
    let Ok(key) = serde_json::to_vec(key) else {
        return false;
    };
    let wrap = |value: &[u8]| [b"{".as_slice(), &key, b":", value, b"}"].concat();
    crate::formats::shared::spans::read_the_same_as(format, &wrap(a), &wrap(b), &settings)
}

/// Whether two JSON values are one value, however escaped.
fn same_value(a: &[u8], b: &[u8]) -> bool {
    a == b
        || matches!(
            (serde_json::from_slice::<serde_json::Value>(a), serde_json::from_slice::<serde_json::Value>(b)),
            (Ok(a), Ok(b)) if a == b
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(_: &[&str], object: Option<&Object>, _: &[u8]) -> Role {
        match object {
            Some(_) => Role::Level,
            None => Role::Entry,
        }
    }

    const LEAVES: JsonKeep = JsonKeep {
        rules: leaves,
        same: None,
        restyle: None,
        orders: SORTED,
    };

    #[test]
    fn members_of_both_change_in_place_and_the_others_stay_or_are_appended() {
        let app = "{\n    \"a\": {\"x\": \"1\", \"only\": true},\n    \"b\\u0020c\": \"2\",\n    \"kept\": [1, {\"y\": null}]\n}\n";
        let fresh = "{\n  \"a\": {\n    \"x\": \"one\",\n    \"new\": \"n\"\n  },\n  \"b c\": \"2\",\n  \"z\": \"last\"\n}";
        let p = patch(
            app.as_bytes(),
            fresh.as_bytes(),
            &LEAVES,
            &SheetSettings::default(),
        )
        .unwrap();
        let want = "{\n    \"a\": {\"x\": \"one\", \"only\": true, \"new\": \"n\"},\n    \"b\\u0020c\": \"2\",\n    \"kept\": [1, {\"y\": null}],\n    \"z\": \"last\"\n}\n";
        assert_eq!(String::from_utf8(p.body).unwrap(), want);
        assert_eq!(
            p.counts,
            Counts {
                changed: 1,
                added: 2,
                kept: 2,
                elsewhere: 0
            }
        );
    }

    /// depot renders with two spaces; what a file gains is laid out as the file is.
    fn gained(app: &str, fresh: &str) -> String {
        String::from_utf8(
            patch(
                app.as_bytes(),
                fresh.as_bytes(),
                &LEAVES,
                &SheetSettings::default(),
            )
            .unwrap()
            .body,
        )
        .unwrap()
    }

    #[test]
    fn gained_members_take_the_files_indent_colon_and_line_breaks() {
        let fresh = "{\n  \"z\": \"1\",\n  \"b\": {\n    \"c\": \"2\"\n  },\n  \"n\": {\n    \"y\": \"2\",\n    \"x\": \"1\"\n  }\n}\n";
        assert_eq!(
            gained(
                "{\n\t\"z\": \"1\",\n\t\"n\": {\n\t\t\"x\": \"1\"\n\t}\n}\n",
                fresh
            ),
            "{\n\t\"z\": \"1\",\n\t\"n\": {\n\t\t\"x\": \"1\",\n\t\t\"y\": \"2\"\n\t},\n\t\"b\": {\n\t\t\"c\": \"2\"\n\t}\n}\n"
        );
        assert_eq!(
            gained("{\r\n    \"z\" : \"1\"\r\n}", fresh),
            "{\r\n    \"z\" : \"1\",\r\n    \"b\" : {\r\n        \"c\" : \"2\"\r\n    },\r\n    \"n\" : {\r\n        \"y\" : \"2\",\r\n        \"x\" : \"1\"\r\n    }\r\n}"
        );
        // an empty object that gains members opens onto lines of its own
        assert_eq!(
            gained("{\n   \"z\":\"1\",\n   \"n\":{}\n}", fresh),
            "{\n   \"z\":\"1\",\n   \"n\":{\n      \"y\":\"2\",\n      \"x\":\"1\"\n   },\n   \"b\":{\n      \"c\":\"2\"\n   }\n}"
        );
    }

    #[test]
    fn an_object_with_sorted_keys_gets_the_new_ones_in_their_place() {
        let fresh = "{\"b\": \"2\", \"a\": \"1\", \"d\": \"4\", \"C\": \"3\", \"e\": \"5\"}";
        // sorted as bytes
        assert_eq!(
            gained("{\n  \"C\": \"3\",\n  \"b\": \"2\"\n}", fresh),
            "{\n  \"C\": \"3\",\n  \"a\": \"1\",\n  \"b\": \"2\",\n  \"d\": \"4\",\n  \"e\": \"5\"\n}"
        );
        // sorted without case
        assert_eq!(
            gained("{\n  \"b\": \"2\",\n  \"C\": \"3\"\n}", fresh),
            "{\n  \"a\": \"1\",\n  \"b\": \"2\",\n  \"C\": \"3\",\n  \"d\": \"4\",\n  \"e\": \"5\"\n}"
        );
        // in no order: after the last
        assert_eq!(
            gained("{\n  \"d\": \"4\",\n  \"b\": \"2\"\n}", fresh),
            "{\n  \"d\": \"4\",\n  \"b\": \"2\",\n  \"a\": \"1\",\n  \"C\": \"3\",\n  \"e\": \"5\"\n}"
        );
    }

    #[test]
    fn an_empty_object_takes_the_fresh_members() {
        let p = patch(b"{}", b"{\"a\": \"1\"}", &LEAVES, &SheetSettings::default()).unwrap();
        assert_eq!(p.body, b"{\"a\": \"1\"}");
    }

    #[test]
    fn broken_json_is_refused_with_where() {
        let e = parse(b"{\"a\": \"1\",}").unwrap_err();
        assert_eq!(e.what, "not valid JSON: expected a string");
        assert_eq!(e.at, 10);
        assert!(parse(b"[1]").is_err());
    }
}
