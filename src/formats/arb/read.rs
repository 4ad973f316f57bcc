//! Flutter ARB: `"@@locale"`, message ids (flat names), ICU MessageFormat texts (a plural
//! is one message), and each id's `"@id"` metadata: its `description` is the comment, its
//! `placeholders` types (`int`, `double`, `num`) type the sheet's placeholders — in every
//! locale, as gen-l10n types every locale's messages by its template's metadata (the
//! assembler applies them, the base locale's file winning). Messages are read as ICU with
//! `--placeholders keep` too: that is what they are to gen-l10n, whose reading of
//! plurals is the one taken (`=1` is `one`, `#` is text: `icu::Dialect::GenL10n`), and
//! its apostrophes read as the app's `use-escaping` says (`Options::arb_plain`, which
//! import takes from the app's l10n.yaml: without use-escaping, gen-l10n's default, an
//! apostrophe is text, `Dialect::GenL10nPlain`; unsaid, ICU's quoting as a sheet without
//! the settings cell writes it).

use std::collections::HashMap;

use crate::formats::reading::{Declared, EMPTY_TEXT, Key, Reading, SyntaxError, Unit, Value};
use crate::formats::shared::icu::{self, Dialect, Message};
use crate::formats::shared::nested::{Node, NodeValue};
use crate::formats::shared::syntax::{self, Kind};

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let root = crate::formats::json::read::parse(text)?;
    let NodeValue::Map(entries) = root.value else {
        return Err(SyntaxError::new(1, "an ARB file is a JSON object"));
    };
    let plain = r.options.arb_plain.unwrap_or(false);
    r.implies.arb_plain = plain;
    let dialect = if plain {
        Dialect::GenL10nPlain
    } else {
        Dialect::GenL10n
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
        let types = meta.map_or_else(Vec::new, |m| placeholder_types(m, key, r));
        let text = match &node.value {
            // generate patches the app's file message by message: it stays
            NodeValue::Text(text) if text.is_empty() => {
                r.keep(0, key, EMPTY_TEXT);
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
        let (value, losses) = match icu::to_sheet_as(text, dialect) {
            Ok(Message::Plural { forms, losses }) => (Value::Plural(forms), losses),
            // an ARB message is ICU whatever `--placeholders` says: gen-l10n reads it so,
            // and generate writes it so in either mode
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

/// The types `"@id": {"placeholders"}` declares that the sheet can say (`int` →
/// `{name:int}`, `double` → `{name:float}`); what it cannot say is noted: another type
/// (`num` becomes `double`, `DateTime` text), a number or date `format` and its
/// parameters.
fn placeholder_types(meta: &Node, id: &str, r: &mut Reading<'_>) -> Vec<(String, Kind)> {
    let Some(NodeValue::Map(names)) = field(meta, "placeholders").map(|p| &p.value) else {
        return Vec::new();
    };
    let mut types = Vec::new();
    for (name, spec) in names {
        let kind = match field(spec, "type").map(|t| &t.value) {
            Some(NodeValue::Text(t)) => match t.as_str() {
                "int" => Some(Kind::Int),
                "double" => Some(Kind::Float),
                "num" => {
                    r.note(
                        0,
                        id,
                        format!("the placeholder {{{name}}} of type num is {{{name}:float}} in the sheet: generate declares it double"),
                    );
                    Some(Kind::Float)
                }
                "String" | "Object" => None,
                other => {
                    r.note(
                        0,
                        id,
                        format!("the placeholder {{{name}}} of type {other} is text in the sheet: generate declares it String"),
                    );
                    None
                }
            },
            _ => None,
        };
        if let NodeValue::Map(attributes) = &spec.value {
            for (attribute, _) in attributes {
                if !matches!(attribute.as_str(), "type" | "example" | "description") {
                    r.note(
                        0,
                        id,
                        format!("the placeholder {{{name}}}'s {attribute} is not carried"),
                    );
                }
            }
        }
        if let Some(kind) = kind {
            types.push((name.clone(), kind));
        }
    }
    types
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
    use crate::model::PluralCategory;

    /// The same files read as gen-l10n reads them with and without `use-escaping`.
    #[test]
    fn apostrophes_read_as_the_apps_use_escaping_says() {
        let file = r#"{"a": "Don't stop, {name}", "b": "it''s '{'x'}'", "n": "{count, plural, =1{Batalla d'{count} equip} other{{count} equips}}"}"#;
        let read = |arb_plain| {
            let options = Options {
                arb_plain,
                ..Options::default()
            };
            let mut r = Reading::new(&options);
            read(file, &mut r).unwrap();
            let notes: Vec<String> = r
                .notes
                .iter()
                .map(|(_, k, w)| format!("{k}: {w}"))
                .collect();
            let values: Vec<Value> = r.units.into_iter().map(|u| u.value).collect();
            (values, notes, r.implies.arb_plain)
        };
        let (values, notes, plain) = read(Some(true));
        assert_eq!(
            values,
            [
                Value::Text("Don't stop, {name}".into()),
                Value::Text("it''s '{{'x'}}'".into()),
                Value::Plural(vec![
                    (PluralCategory::One, "Batalla d'{count} equip".into()),
                    (PluralCategory::Other, "{count} equips".into())
                ]),
            ]
        );
        // gen-l10n refuses `{'x'}` without use-escaping too
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("b: not an ICU message"), "{notes:?}");
        assert!(plain);
        let (values, notes, plain) = read(Some(false));
        assert_eq!(values[0], Value::Text("Don't stop, {name}".into()));
        assert_eq!(values[1], Value::Text("it's {{x}}".into()));
        assert!(notes[0].starts_with("n: not an ICU message"), "{notes:?}");
        assert!(!plain);
        // unsaid: as a sheet without the settings cell writes them
        assert_eq!(read(None).0, values);
    }

    #[test]
    fn messages_metadata_and_locale() {
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(
            r#"{
  "@@locale": "pl",
  "helloWorld": "Witaj {name}, masz {count}",
  "@helloWorld": {"description": "Greeting", "placeholders": {"name": {"type": "String", "example": "Ala"}, "count": {"type": "int", "format": "compact"}}},
  "saved": "Saved {when}",
  "@saved": {"placeholders": {"when": {"type": "DateTime", "format": "yMd"}}},
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
            r.units[2].value,
            Value::Plural(vec![
                (PluralCategory::Zero, "brak".into()),
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
        // =0 is gen-l10n's `zero`; listed: the number format, the date and its format
        let notes: Vec<String> = r
            .notes
            .iter()
            .map(|(_, k, w)| format!("{k}: {w}"))
            .collect();
        assert_eq!(
            notes,
            [
                "helloWorld: the placeholder {count}'s format is not carried",
                "saved: the placeholder {when} of type DateTime is text in the sheet: generate declares it String",
                "saved: the placeholder {when}'s format is not carried",
            ]
        );
    }
}
