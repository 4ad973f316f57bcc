//! A JSON file's objects as byte spans, and the patch of an existing file with a fresh
//! rendering member by member (`formats::keeping`, for i18next, json, arb, xcstrings): the
//! members of both take the fresh value (objects member by member, as each format's rules
//! say), members only in the fresh file are appended, every other byte stays.

use std::collections::HashMap;
use std::ops::Range;

use crate::formats::Format;
use crate::formats::shared::spans::{Counts, KeepError, Patched};

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
}

/// A format's roles: the member's path of keys, and its object in the existing file (the
/// fresh one's when only that has it).
pub(crate) type Rules = fn(&[&str], Option<&Object>, &[u8]) -> Role;

/// A format's way of writing a fresh value as the app writes it, given the app's value
/// (arb: the app's `=1` selectors); `None`: the fresh value as it is.
pub(crate) type Restyle = fn(was: &[u8], is: &[u8]) -> Option<Vec<u8>>;

/// Patches `existing` with `fresh` as `rules` say.
/// `same`: whether two values of one key read the same (the app's bytes then stay);
/// `restyle`: how a changed value is written.
pub(crate) fn patch(
    existing: &[u8],
    fresh: &[u8],
    rules: Rules,
    same: Option<Format>,
    restyle: Option<Restyle>,
) -> Result<Patched, KeepError> {
    let old = parse(existing)?;
    let new = parse(fresh)?;
    let mut patcher = Patcher {
        existing,
        fresh,
        rules,
        same,
        restyle,
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

struct Patcher<'b> {
    existing: &'b [u8],
    fresh: &'b [u8],
    rules: Rules,
    same: Option<Format>,
    restyle: Option<Restyle>,
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
        let mut cursor = old.open;
        for m in &old.members {
            self.path.push(&m.key);
            let role = (self.rules)(&self.path, m.object.as_ref(), self.existing);
            let counted = !inside_entry && matches!(role, Role::Entry | Role::Level);
            match by_key.get(m.key.as_str()) {
                Some(n) if role != Role::Existing => {
                    self.out
                        .extend_from_slice(&self.existing[cursor..m.value.start]);
                    let at = self.out.len();
                    match (&m.object, &n.object) {
                        (Some(o), Some(f)) => self.object(
                            o,
                            f,
                            inside_entry || matches!(role, Role::Entry | Role::Meta),
                        ),
                        _ => {
                            let (was, is) = (
                                &self.existing[m.value.clone()],
                                &self.fresh[n.value.clone()],
                            );
                            // the app's escapes (`\u00e9`, `\/`) stay when the text is the same
                            let same = same_value(was, is)
                                || self
                                    .same
                                    .is_some_and(|format| read_the_same(format, &m.key, was, is));
                            let restyled = (!same)
                                .then(|| self.restyle.and_then(|restyle| restyle(was, is)))
                                .flatten();
                            match restyled {
                                Some(restyled) => self.out.extend_from_slice(&restyled),
                                None => self.out.extend_from_slice(if same { was } else { is }),
                            }
                        }
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
        // what only the fresh object has goes after the last member, indented as there
        let end = old.members.last().map_or(old.open + 1, |m| m.value.end);
        self.out.extend_from_slice(&self.existing[cursor..end]);
        let mut has_members = !old.members.is_empty();
        let old_keys: std::collections::HashSet<&str> =
            old.members.iter().map(|m| m.key.as_str()).collect();
        for n in &new.members {
            if old_keys.contains(n.key.as_str()) {
                continue;
            }
            self.path.push(&n.key);
            let role = (self.rules)(&self.path, n.object.as_ref(), self.fresh);
            self.path.pop();
            if role == Role::Existing {
                continue;
            }
            if has_members {
                self.out.push(b',');
            }
            self.out.extend_from_slice(&self.fresh[n.lead..n.whole.end]);
            has_members = true;
            if !inside_entry && matches!(role, Role::Entry | Role::Level) {
                self.counts.added += 1;
            }
        }
        self.out.extend_from_slice(&self.existing[end..=old.close]);
    }
}

/// Whether `{"key": a}` and `{"key": b}` read the same as files of `format`.
fn read_the_same(format: Format, key: &str, a: &[u8], b: &[u8]) -> bool {
    let Ok(key) = serde_json::to_vec(key) else {
        return false;
    };
    let wrap = |value: &[u8]| [b"{".as_slice(), &key, b":", value, b"}"].concat();
    crate::formats::shared::spans::read_the_same(format, &wrap(a), &wrap(b))
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

    #[test]
    fn members_of_both_change_in_place_and_the_others_stay_or_are_appended() {
        let app = "{\n    \"a\": {\"x\": \"1\", \"only\": true},\n    \"b\\u0020c\": \"2\",\n    \"kept\": [1, {\"y\": null}]\n}\n";
        let fresh = "{\n  \"a\": {\n    \"x\": \"one\",\n    \"new\": \"n\"\n  },\n  \"b c\": \"2\",\n  \"z\": \"last\"\n}";
        let p = patch(app.as_bytes(), fresh.as_bytes(), leaves, None, None).unwrap();
        let want = "{\n    \"a\": {\"x\": \"one\", \"only\": true,\n    \"new\": \"n\"},\n    \"b\\u0020c\": \"2\",\n    \"kept\": [1, {\"y\": null}],\n  \"z\": \"last\"\n}\n";
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

    #[test]
    fn an_empty_object_takes_the_fresh_members() {
        let p = patch(b"{}", b"{\"a\": \"1\"}", leaves, None, None).unwrap();
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
