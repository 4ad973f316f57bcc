//! Flutter ARB: `"@@locale"`, message ids (flat names), ICU MessageFormat texts (a plural
//! is one message), and each id's `"@id"` metadata: its `description` is the comment, its
//! `placeholders` types (`int`, `double`, `num`) type the sheet's placeholders — in every
//! locale, as gen-l10n types every locale's messages by its template's metadata (the
//! assembler applies them, the base locale's file winning). Messages are read as ICU with
//! `--placeholders keep` too: that is what they are to gen-l10n.

use std::collections::HashMap;

use super::icu::{self, Message};
use super::syntax::{self, Kind};
use super::tree::{Node, NodeValue};
use super::{Declared, Key, Reading, SyntaxError, Unit, Value};

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
        let types: Vec<(String, Kind)> = meta
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
                _ => Vec::new(),
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
        // typed in the sheet by the assembler, with the template's types (gen-l10n's)
        if !types.is_empty() {
            r.types.push(Declared {
                key: Key::Flat(key.clone()),
                types,
            });
        }
        let (value, losses) = match icu::to_sheet(text) {
            Ok(Message::Plural { forms, losses }) => (Value::Plural(forms), losses),
            // an ARB message is ICU whatever `--placeholders` says: gen-l10n reads it so,
            // and generate writes it so in either mode (`'{'` is a literal brace)
            Ok(Message::Text(converted)) => (Value::Text(converted.text), converted.losses),
            Err(why) => (
                Value::Text(syntax::literal(text)),
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
            Value::Text("Witaj {name}, masz {count}".into())
        );
        assert_eq!(r.units[0].comment.as_deref(), Some("Greeting"));
        assert_eq!(
            r.units[1].value,
            Value::Plural(vec![
                (PluralCategory::One, "{count} plik".into()),
                (PluralCategory::Other, "{count} plików".into())
            ])
        );
        // the types, for the assembler to apply in every locale
        assert_eq!(
            r.types,
            vec![
                Declared {
                    key: Key::Flat("helloWorld".into()),
                    types: vec![("count".into(), Kind::Int)]
                },
                Declared {
                    key: Key::Flat("nFiles".into()),
                    types: vec![("count".into(), Kind::Int)]
                },
            ]
        );
        assert_eq!(r.notes.len(), 1, "the =0 case: {:?}", r.notes);
    }
}
