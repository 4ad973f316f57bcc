//! json: nested objects of strings, in file order — depot's own files (ICU MessageFormat
//! texts, a plural as one `{count, plural, …}` message), per-locale files, a file of all
//! locales, and any plain nested json. Arrays, numbers, booleans and nulls are listed as
//! not carried.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::formats::reading::{Reading, SyntaxError};
use crate::formats::shared::nested::{self, Node, NodeValue, Style};

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    nested::read(parse(text)?, Style::Json, r)
}

/// The document as an ordered tree (serde_json's own maps would sort the keys).
pub(crate) fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    // room for a flat file's every key (the stack holds one map's entries at a time): a
    // stack grown by doubling copied itself at each step, 2% of a flat i18next import's
    // instructions (callgrind); a nested file leaves address space it never touches
    let entries = RefCell::new(Vec::with_capacity(text.len() / 64));
    let node = deserializer
        .deserialize_any(NodeVisitor { entries: &entries })
        .and_then(|node| deserializer.end().map(|()| node))
        .map_err(|e| syntax_error(&e))?;
    Ok(node)
}

/// The one key of the JSON object `text` when it holds nothing else and an object under
/// it (`{"en": {…}}`, as many web apps keep a locale's file). The values are skipped, not
/// built: a large file costs a scan.
pub(crate) fn top_key(text: &str) -> Option<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let key = deserializer.deserialize_map(TopKey).ok()?;
    deserializer.end().ok()?;
    key
}

/// The top object's one key over an object (`top_key`); a second key is an error of the
/// map, which ends the scan.
struct TopKey;

impl<'de> Visitor<'de> for TopKey {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<String>, A::Error> {
        let Some(key) = map.next_key::<String>()? else {
            return Ok(None);
        };
        let object = map.next_value::<IsObject>()?.0;
        match map.next_key::<de::IgnoredAny>()? {
            None => Ok(object.then_some(key)),
            Some(_) => Ok(None),
        }
    }
}

/// Whether a value is an object, its members skipped.
struct IsObject(bool);

impl<'de> de::Deserialize<'de> for IsObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<IsObject, D::Error> {
        deserializer.deserialize_any(IsObjectVisitor)
    }
}

struct IsObjectVisitor;

impl<'de> Visitor<'de> for IsObjectVisitor {
    type Value = IsObject;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<IsObject, A::Error> {
        while map
            .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
            .is_some()
        {}
        Ok(IsObject(true))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<IsObject, A::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(IsObject(false))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }

    fn visit_unit<E: de::Error>(self) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }
}

/// serde_json's error as a reader's; a surrogate escape without its other half (which
/// serde_json refuses, rightly: a sheet cell cannot hold it) says what to write instead.
pub(crate) fn syntax_error(e: &serde_json::Error) -> SyntaxError {
    let mut message = format!("not valid JSON: {e}");
    // serde_json's only errors of a \u escape with four hex digits: a lone surrogate
    if message.contains("hex escape") {
        message.push_str(
            " (a \\uD800-\\uDFFF escape is half of a UTF-16 surrogate pair and needs its other \
             half: write the character itself, or both halves, \\uD83D\\uDE00 for U+1F600)",
        );
    }
    SyntaxError::new(e.line(), message)
}

/// How a JSON boolean reads in a note (and to readers that need the value).
pub(crate) const TRUE: &str = "the boolean true";
pub(crate) const FALSE: &str = "the boolean false";

/// Builds a `Node`. Every map's entries are gathered on one stack shared by the whole
/// parse, then moved into a list of their exact size: a list per map that grew as it was
/// filled cost a reallocation per doubling (a tenth of reading a json file).
struct NodeVisitor<'s> {
    entries: &'s RefCell<Vec<(String, Node)>>,
}

impl<'de> Visitor<'de> for NodeVisitor<'_> {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        Ok(Node::new(NodeValue::Text(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Node, E> {
        Ok(Node::new(NodeValue::Text(v)))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node, E> {
        Ok(other(if v { TRUE } else { FALSE }))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Node, E> {
        Ok(other("a number"))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Node, E> {
        Ok(other("a number"))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Node, E> {
        Ok(other("a number"))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(other("null"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(other("an array"))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let start = self.entries.borrow().len();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Seed {
                entries: self.entries,
            })?;
            self.entries.borrow_mut().push((key, value));
        }
        let entries: Vec<(String, Node)> = self.entries.borrow_mut().drain(start..).collect();
        Ok(Node::new(NodeValue::Map(entries)))
    }
}

struct Seed<'s> {
    entries: &'s RefCell<Vec<(String, Node)>>,
}

impl<'de> de::DeserializeSeed<'de> for Seed<'_> {
    type Value = Node;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(NodeVisitor {
            entries: self.entries,
        })
    }
}

fn other(what: &str) -> Node {
    Node::new(NodeValue::Other(what.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::reading::{Options, Unit, Value};
    use crate::model::PluralCategory;

    fn units(text: &str, named: Option<&str>) -> (Vec<Unit>, usize) {
        let options = Options::default();
        let mut r = Reading::new(&options);
        r.named = named.map(str::to_owned);
        read(text, &mut r).unwrap();
        (r.units, r.notes.len())
    }

    #[test]
    fn nested_objects_keep_order_levels_and_plurals() {
        let (units, notes) = units(
            r#"{"Z":{"B":"it''s {name}","A":"{count, plural, one {# file} other {# files}}"},"N":3,"L":["x"]}"#,
            Some("en"),
        );
        let keys: Vec<String> = units.iter().map(|u| u.key.display()).collect();
        assert_eq!(keys, ["Z.B", "Z.A"]);
        assert_eq!(units[0].value, Value::Text("it's {name}".into()));
        assert_eq!(
            units[1].value,
            Value::Plural(vec![
                (PluralCategory::One, "{count} file".into()),
                (PluralCategory::Other, "{count} files".into())
            ])
        );
        assert_eq!(notes, 2);
    }

    #[test]
    fn a_locale_level_is_recognised() {
        let (one, _) = units(r#"{"pl":{"A":"a"}}"#, Some("pl"));
        assert_eq!(one[0].key.display(), "A");
        assert_eq!(one[0].locale, None);
        let (all, _) = units(r#"{"en_US":{"A":"a"},"pl":{"A":"b"}}"#, None);
        assert_eq!(all[1].locale.as_deref(), Some("pl"));
        let (other, _) = units(r#"{"en_US":{"A":"a"}}"#, Some("pl"));
        assert_eq!(other[0].key.display(), "en_US.A");
    }

    #[test]
    fn a_file_of_one_locale_may_hold_it_as_the_one_top_key() {
        assert_eq!(
            top_key("\u{feff}{\n  \"pt-BR\": {\"nav\": {\"home\": \"Início\"}, \"n\": [1]}\n}\n")
                .as_deref(),
            Some("pt-BR")
        );
        assert_eq!(top_key(r#"{"en": {}}"#).as_deref(), Some("en"));
        // depot's own files: the keys at the top; several locales; a text under the key
        assert_eq!(top_key(r#"{"nav": {"home": "Home"}, "title": "T"}"#), None);
        assert_eq!(top_key(r#"{"en": {"a": "b"}, "de": {"a": "c"}}"#), None);
        assert_eq!(top_key(r#"{"en": "text"}"#), None);
        assert_eq!(top_key(r#"{"en": ["a"]}"#), None);
        assert_eq!(top_key("{}"), None);
        assert_eq!(top_key(r#"["en"]"#), None);
        assert_eq!(top_key(r#"{"en": {"a": "b"}} x"#), None);
        assert_eq!(top_key(r#"{"en": {"a": "#), None);
    }

    #[test]
    fn a_surrogate_without_its_other_half_is_refused_with_what_to_write_and_a_pair_decodes() {
        let options = Options::default();
        let hint = " (a \\uD800-\\uDFFF escape is half of a UTF-16 surrogate pair and needs its \
                    other half: write the character itself, or both halves, \\uD83D\\uDE00 for \
                    U+1F600)";
        // json, and arb and i18next, which read their files with it
        for text in [
            "{\n\"a\": \"x\\uD800y\"}",
            "{\n\"a\": \"x\\uDE00\\uD83D\"}",
            "{\n\"a\": \"\\uD83D\"}",
        ] {
            for reader in [
                read,
                crate::formats::arb::read::read,
                crate::formats::i18next::read::read,
            ] {
                let mut r = Reading::new(&options);
                let e = reader(text, &mut r).unwrap_err();
                assert_eq!(e.line, 2, "{text}");
                assert!(
                    e.message.starts_with("not valid JSON: ") && e.message.ends_with(hint),
                    "{text}: {}",
                    e.message
                );
            }
        }
        let (units, _) = units("{\"e\": \"\\uD83D\\uDE00\"}", Some("en"));
        assert_eq!(units[0].value, Value::Text("😀".into()));
    }
}
