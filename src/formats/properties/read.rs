//! Java `.properties` (a `ResourceBundle`), read as `Properties.load` reads it: `key=value`,
//! `key: value` or `key value`, `#`/`!` comment lines (those right above a key are its
//! comment), a backslash at the end of a line continuing it, `\t \n \r \f \uXXXX` escapes.
//! UTF-8, or ISO-8859-1 when the bytes are not UTF-8 (as Java 9+ reads bundles). Dotted
//! keys are levels; keys `items.one` … `items.other` make the plural entry `items`; texts
//! with a numbered argument are `MessageFormat` patterns (`{0}` → `{arg1}`, `''` → `'`).

use std::borrow::Cow;
use std::collections::HashMap;

use crate::formats::reading::{EMPTY_TEXT, Key, Reading, SyntaxError, Unit, Value};
use crate::formats::shared::syntax;
use crate::formats::shared::utf16;
use crate::model::PluralCategory;
use rustc_hash::{FxHashMap, FxHashSet};

pub(crate) fn decode(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// `decode` in the shape of the table's decoders: it never fails (bytes that are not
/// UTF-8 are ISO-8859-1, as Java 9+ reads bundles).
pub(crate) fn decoder(bytes: &[u8]) -> Result<Cow<'_, str>, SyntaxError> {
    Ok(decode(bytes))
}

struct Property {
    /// The key as written: levels joined with `.`.
    key: String,
    text: String,
    comment: Option<String>,
    line: usize,
}

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut properties = Vec::with_capacity(lines.len());
    let mut comment: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line_no = i + 1;
        let line = lines[i].trim_start_matches([' ', '\t', '\u{C}']);
        i += 1;
        if line.is_empty() {
            comment.clear();
            continue;
        }
        if let Some(c) = line.strip_prefix(['#', '!']) {
            comment.push(c.strip_prefix(' ').unwrap_or(c).to_owned());
            continue;
        }
        let mut logical = Cow::Borrowed(line);
        while ends_in_odd_backslashes(&logical) {
            let joined = logical.to_mut();
            joined.pop();
            match lines.get(i) {
                Some(next) => {
                    joined.push_str(next.trim_start_matches([' ', '\t', '\u{C}']));
                    i += 1;
                }
                None => break,
            }
        }
        let (key, value) = split(&logical).map_err(|e| e.at(line_no))?;
        let comment = (!comment.is_empty()).then(|| std::mem::take(&mut comment).join("\n"));
        if value.is_empty() {
            // `key=` is "" to a ResourceBundle, not its parent's text; generate patches
            // the app's file line by line, so it stays
            r.keep(line_no, &key, EMPTY_TEXT);
            continue;
        }
        properties.push(Property {
            key,
            text: value,
            comment,
            line: line_no,
        });
    }
    add_all(properties, r);
    Ok(())
}

fn ends_in_odd_backslashes(s: &str) -> bool {
    s.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1
}

/// Why a logical line cannot be read: its key's escapes, or its value's (the key is known).
pub(crate) enum LineError {
    Key(String),
    Value { key: String, message: String },
}

impl LineError {
    fn at(self, line: usize) -> SyntaxError {
        match self {
            LineError::Key(message) => SyntaxError::new(line, message),
            LineError::Value { key, message } => SyntaxError::new(line, message).in_key(&key),
        }
    }
}

/// A logical line's key and value, escapes undone.
pub(crate) fn split(line: &str) -> Result<(String, String), LineError> {
    if memchr::memchr(b'\\', line.as_bytes()).is_none() {
        // no escape: the key runs to its first separator, the value from the next non-blank
        let blank = |c: char| matches!(c, ' ' | '\t' | '\u{C}');
        let end = line
            .find(|c: char| matches!(c, '=' | ':') || blank(c))
            .unwrap_or(line.len());
        let rest = line[end..].trim_start_matches(blank);
        let rest = rest.strip_prefix(['=', ':']).unwrap_or(rest);
        return Ok((
            line[..end].to_owned(),
            rest.trim_start_matches(blank).to_owned(),
        ));
    }
    let mut key = String::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            '=' | ':' | ' ' | '\t' | '\u{C}' => break,
            '\\' => {
                chars.next();
                unescape(&mut chars, &mut key).map_err(LineError::Key)?;
            }
            c => {
                chars.next();
                key.push(c);
            }
        }
    }
    while chars
        .peek()
        .is_some_and(|c| matches!(c, ' ' | '\t' | '\u{C}'))
    {
        chars.next();
    }
    if chars.peek().is_some_and(|c| matches!(c, '=' | ':')) {
        chars.next();
        while chars
            .peek()
            .is_some_and(|c| matches!(c, ' ' | '\t' | '\u{C}'))
        {
            chars.next();
        }
    }
    let mut value = String::new();
    while let Some(c) = chars.next() {
        if c == '\\' {
            unescape(&mut chars, &mut value).map_err(|message| LineError::Value {
                key: key.clone(),
                message,
            })?;
        } else {
            value.push(c);
        }
    }
    Ok((key, value))
}

fn unescape(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    out: &mut String,
) -> Result<(), String> {
    match chars.next() {
        Some('t') => out.push('\t'),
        Some('n') => out.push('\n'),
        Some('r') => out.push('\r'),
        Some('f') => out.push('\u{C}'),
        Some('u') => {
            let hex: String = chars.by_ref().take(4).collect();
            let unit = (hex.len() == 4)
                .then(|| u16::from_str_radix(&hex, 16).ok())
                .flatten()
                .ok_or_else(|| format!("a malformed \\uXXXX escape: \\u{hex}"))?;
            // a character past U+FFFF comes as two escapes, its surrogate pair
            if utf16::is_high(unit) {
                let rest: String = chars.clone().take(6).collect();
                if let Some(c) = rest
                    .strip_prefix("\\u")
                    .and_then(|h| u16::from_str_radix(h, 16).ok())
                    .and_then(|low| utf16::pair(unit, low))
                {
                    for _ in 0..6 {
                        chars.next();
                    }
                    out.push(c);
                    return Ok(());
                }
            }
            out.push(utf16::single(unit, "\\u")?);
        }
        Some(c) => out.push(c),
        None => {}
    }
    Ok(())
}

/// Units from the properties, in file order; `X.one` … `X.other` leaves as the plural `X`.
fn add_all(properties: Vec<Property>, r: &mut Reading<'_>) {
    let plurals = plural_parents(properties.iter().map(|p| p.key.as_str()));
    let mut pending: HashMap<String, usize> = HashMap::new();
    r.units.reserve(properties.len());
    for p in properties {
        let plural = p.key.rsplit_once('.').and_then(|(parent, last)| {
            let category = PluralCategory::from_name(last)?;
            plurals.contains(parent).then_some((parent, category))
        });
        if let Some((parent, category)) = plural {
            let converted = r.converted(p.text, |t| syntax::message_format(t, true));
            let key = Key::Dotted(parent.to_owned());
            r.push_form(&mut pending, key, category, converted, p.comment, p.line);
            continue;
        }
        let converted = r.converted(p.text, |t| syntax::message_format(t, false));
        r.push(
            Unit {
                key: Key::Dotted(p.key),
                value: Value::Text(converted.text),
                comment: p.comment,
                locale: None,
                line: p.line,
            },
            converted.losses,
        );
    }
}

/// The dotted keys whose children are all CLDR categories, `other` among them, and that
/// are not keys themselves nor hold deeper keys.
fn plural_parents<'k>(keys: impl Iterator<Item = &'k str> + Clone) -> FxHashSet<String> {
    // (every key below is a category right under it, one of them `other`), for the
    // parents of a key ending in a category: the only ones that can be plurals
    let mut candidates: FxHashMap<&str, (bool, bool)> = FxHashMap::default();
    for key in keys.clone() {
        if let Some((parent, last)) = key.rsplit_once('.')
            && PluralCategory::from_name(last).is_some()
        {
            candidates.entry(parent).or_insert((true, false)).1 |= last == "other";
        }
    }
    if candidates.is_empty() {
        return FxHashSet::default();
    }
    let mut is_key: FxHashSet<&str> = FxHashSet::default();
    for key in keys {
        is_key.insert(key);
        let last_dot = key.rfind('.');
        for (at, _) in key.match_indices('.') {
            if let Some((all, _)) = candidates.get_mut(&key[..at]) {
                let direct = Some(at) == last_dot;
                *all &= direct && PluralCategory::from_name(&key[at + 1..]).is_some();
            }
        }
    }
    candidates
        .into_iter()
        .filter(|(parent, (all, other))| *all && *other && !is_key.contains(parent))
        .map(|(parent, _)| parent.to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Options;

    #[test]
    fn plurals_are_parents_of_categories_only_with_other() {
        let keys = [
            "a.one",
            "a.other",
            "b.one",
            "b.other",
            "b.x",
            "c.one",
            "c.other",
            "c.one.deep",
            "d",
            "d.one",
            "d.other",
            "e.one",
            "f.other",
            "g.h.few",
            "g.h.other",
            "other",
        ];
        let mut found: Vec<String> = plural_parents(keys.iter().copied()).into_iter().collect();
        found.sort();
        assert_eq!(found, ["a", "f", "g.h"]);
    }

    #[test]
    fn reads_as_java_properties_load_reads() {
        let text = "# Greeting\n! second\nhello = Hi {0}, it''s {1,number,integer}\\\n    more\nplain: it's {x}\nkey\\ with\\:colon value\\u0105\\t\\uD83D\\uDE00\nitems.one={0} item\nitems.other={0} items\n\nempty=\n";
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(text, &mut r).unwrap();
        let got: Vec<(String, Value, Option<String>)> = r
            .units
            .into_iter()
            .map(|u| (u.key.display(), u.value, u.comment))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "hello".into(),
                    Value::Text("Hi {arg1}, it's {arg2:int}more".into()),
                    Some("Greeting\nsecond".into())
                ),
                ("plain".into(), Value::Text("it's {{x}}".into()), None),
                (
                    "key with:colon".into(),
                    Value::Text("valueą\t😀".into()),
                    None
                ),
                (
                    "items".into(),
                    Value::Plural(vec![
                        (PluralCategory::One, "{count} item".into()),
                        (PluralCategory::Other, "{count} items".into())
                    ]),
                    None
                ),
            ]
        );
        // `empty=` is "" to a ResourceBundle: generate leaves it in the app's file
        assert_eq!(r.notes, []);
        assert_eq!(
            r.kept,
            [(10, "empty".to_owned(), "empty text(s)".to_owned())]
        );
        assert_eq!(decode(b"caf\xe9"), "café");
    }

    #[test]
    fn a_surrogate_without_its_other_half_is_refused_by_line_and_key_and_a_pair_decodes() {
        let options = Options::default();
        let refused = |text: &str| {
            let mut r = Reading::new(&options);
            let e = read(text, &mut r).unwrap_err();
            (e.line, e.message)
        };
        let first = "is the first half of a UTF-16 surrogate pair, and its second half does not \
                     follow it: write the character itself, or both halves (\\uD83D\\uDE00 is \
                     U+1F600)";
        assert_eq!(
            refused("a=ok\nb=x\\uD800y\n"),
            (2, format!("key \"b\": \\uD800 {first}"))
        );
        assert_eq!(
            refused("end=x\\uD83D"),
            (1, format!("key \"end\": \\uD83D {first}"))
        );
        assert_eq!(refused("k\\uD800=v"), (1, format!("\\uD800 {first}")));
        let (line, message) = refused("# c\nreversed=\\uDE00\\uD83D\n");
        assert_eq!(line, 2);
        assert!(
            message.starts_with("key \"reversed\": \\uDE00 is the second half of a UTF-16"),
            "{message}"
        );
        let (_, message) = refused("two=\\uD83D\\uD83D\\uDE00");
        assert!(
            message.starts_with("key \"two\": \\uD83D is the first half"),
            "{message}"
        );
        let mut r = Reading::new(&options);
        read("e=\\uD83D\\uDE00 \\ud83d\\ude00\n", &mut r).unwrap();
        assert_eq!(r.units[0].value, Value::Text("😀 😀".into()));
    }
}
