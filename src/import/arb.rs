//! Flutter ARB: `"@@locale"`, message ids (flat names), ICU MessageFormat texts (a plural
//! is one message), and each id's `"@id"` metadata: its `description` is the comment, its
//! `placeholders` types (`int`, `double`, `num`) type the sheet's placeholders.

use std::collections::HashMap;

use super::icu::{self, Message};
use super::syntax::{self, Kind};
use super::tree::{Node, NodeValue};
use super::{Key, Reading, SyntaxError, Unit, Value};
use crate::translations::placeholders::COUNT;

pub(super) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let root = super::json::parse(text)?;
    let NodeValue::Map(entries) = root.value else {
        return Err(SyntaxError::new(1, "an ARB file is a JSON object"));
    };
    let mut metadata: HashMap<&str, &Node> = HashMap::new();
    for (key, node) in &entries {
        if let Some(id) = key.strip_prefix('@')
            && !id.starts_with('@')
        {
            metadata.insert(id, node);
        }
        if key == "@@locale"
            && let NodeValue::Text(locale) = &node.value
        {
            r.locale = Some(locale.clone());
        }
    }
    for (key, node) in &entries {
        if key.starts_with('@') {
            continue;
        }
        let meta = metadata.get(key.as_str());
        let description = meta
            .and_then(|m| field(m, "description"))
            .and_then(|d| match &d.value {
                NodeValue::Text(t) if !t.is_empty() => Some(t.clone()),
                _ => None,
            });
        let types: HashMap<String, Kind> = meta
            .and_then(|m| field(m, "placeholders"))
            .map(|p| match &p.value {
                NodeValue::Map(names) => names
                    .iter()
                    .filter_map(|(name, spec)| {
                        let NodeValue::Text(t) = &field(spec, "type")?.value else {
                            return None;
                        };
                        let kind = match t.as_str() {
                            "int" => Kind::Int,
                            "double" | "num" => Kind::Float,
                            _ => return None,
                        };
                        Some((name.clone(), kind))
                    })
                    .collect(),
                _ => HashMap::new(),
            })
            .unwrap_or_default();
        let text = match &node.value {
            NodeValue::Text(text) if text.is_empty() => {
                r.note(
                    0,
                    key,
                    "an empty text is not carried: an empty cell means no text",
                );
                continue;
            }
            NodeValue::Text(text) => text,
            _ => {
                r.note(0, key, "a message that is not a string is not carried");
                continue;
            }
        };
        let typed = |t: &str| syntax::retype(t, |name| types.get(name).copied());
        // in a plural form the quantity is {count} whatever its declared type
        let typed_form = |t: &str| {
            syntax::retype(t, |name| {
                (name != COUNT).then(|| types.get(name).copied()).flatten()
            })
        };
        let (value, losses) = match icu::to_sheet(text) {
            Ok(Message::Plural { forms, losses }) => (
                Value::Plural(
                    forms
                        .into_iter()
                        .map(|(c, t)| (c, typed_form(&t)))
                        .collect(),
                ),
                losses,
            ),
            Ok(Message::Text(_)) if !r.convert() => (Value::Text(text.clone()), Vec::new()),
            Ok(Message::Text(converted)) => (Value::Text(typed(&converted.text)), converted.losses),
            Err(why) => (
                Value::Text(if r.convert() {
                    syntax::literal(text)
                } else {
                    text.clone()
                }),
                vec![format!("not an ICU message ({why}): read as plain text")],
            ),
        };
        r.push(
            Unit {
                key: Key::Flat(key.clone()),
                value,
                comment: description,
                locale: None,
                line: 0,
            },
            losses,
        );
    }
    Ok(())
}

fn field<'n>(node: &'n Node, name: &str) -> Option<&'n Node> {
    match &node.value {
        NodeValue::Map(entries) => entries.iter().find(|(k, _)| k == name).map(|(_, v)| v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Options;
    use crate::translations::model::PluralCategory;

    #[test]
    fn messages_metadata_and_locale() {
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(
            r#"{
  "@@locale": "pl",
  "helloWorld": "Witaj {name}, masz {count}",
  "@helloWorld": {"description": "Greeting", "placeholders": {"name": {"type": "String"}, "count": {"type": "int"}}},
  "nFiles": "{count, plural, =0{brak} one{{count} plik} other{{count} plików}}",
  "@nFiles": {"placeholders": {"count": {"type": "int"}}}
}"#,
            &mut r,
        )
        .unwrap();
        assert_eq!(r.locale.as_deref(), Some("pl"));
        assert_eq!(
            r.units[0].value,
            Value::Text("Witaj {name}, masz {count:int}".into())
        );
        assert_eq!(r.units[0].comment.as_deref(), Some("Greeting"));
        assert_eq!(
            r.units[1].value,
            Value::Plural(vec![
                (PluralCategory::One, "{count} plik".into()),
                (PluralCategory::Other, "{count} plików".into())
            ])
        );
        assert_eq!(r.notes.len(), 1, "the =0 case: {:?}", r.notes);
    }
}
