//! Apple String Catalogs (`.xcstrings`, Xcode 15+): every key's localizations, each a
//! `stringUnit` text or `variations.plural` forms, in the catalog's language codes; the
//! key's `comment`. A key Xcode extracted from code (no `extractionState`, or any but
//! `manual`) without a localization in the `sourceLanguage` has the key as its source
//! text, as Xcode reads it (`String(localized: "Cancel")`); a `manual` key (one added in
//! the catalog, and every key `generate` writes) is an identifier, not a text: without a
//! source localization its source text is missing, as in the sheet it came from. Not
//! carried, and listed: keys marked `shouldTranslate: false`, device variations and
//! substitutions.

use super::syntax::{self, Converted, Printf};
use super::tree::{Node, NodeValue};
use super::{Key, Reading, SyntaxError, Unit, Value};
use crate::translations::model::PluralCategory;

pub(super) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let root = super::json::parse(text)?;
    let source_language = field(&root, "sourceLanguage")
        .and_then(text_of)
        .ok_or_else(|| SyntaxError::new(1, "a catalog without sourceLanguage"))?
        .to_owned();
    let Some(NodeValue::Map(strings)) = field(&root, "strings").map(|s| &s.value) else {
        return Err(SyntaxError::new(
            1,
            "a catalog without its \"strings\" object",
        ));
    };
    for (key, entry) in strings {
        if field(entry, "shouldTranslate")
            .is_some_and(|n| matches!(&n.value, NodeValue::Other(w) if w == super::json::FALSE))
        {
            r.note(0, key, "shouldTranslate is false: not carried");
            continue;
        }
        let comment = field(entry, "comment").and_then(text_of).map(str::to_owned);
        let mut source_seen = false;
        if let Some(Node {
            value: NodeValue::Map(localizations),
            ..
        }) = field(entry, "localizations")
        {
            for (language, localization) in localizations {
                source_seen |= *language == source_language;
                let unit = |value| Unit {
                    key: Key::Flat(key.clone()),
                    value,
                    comment: comment.clone(),
                    locale: Some(language.clone()),
                    line: 0,
                };
                if let Some(string_unit) = field(localization, "stringUnit") {
                    if let Some(text) = field(string_unit, "value")
                        .and_then(text_of)
                        .filter(|t| !t.is_empty())
                    {
                        let converted = convert(text, false, r);
                        r.push(unit(Value::Text(converted.text)), converted.losses);
                    }
                } else if let Some(plural) =
                    field(localization, "variations").and_then(|v| field(v, "plural"))
                {
                    let NodeValue::Map(cases) = &plural.value else {
                        continue;
                    };
                    let mut forms = Vec::new();
                    let mut losses = Vec::new();
                    for (case, node) in cases {
                        let text = field(node, "stringUnit")
                            .and_then(|u| field(u, "value"))
                            .and_then(text_of);
                        match (PluralCategory::from_name(case), text) {
                            (Some(category), Some(text)) if !text.is_empty() => {
                                let mut converted = convert(text, true, r);
                                losses.append(&mut converted.losses);
                                forms.push((category, converted.text));
                            }
                            _ => losses.push(format!("the plural case {case} is not carried")),
                        }
                    }
                    if !forms.is_empty() {
                        r.push(unit(Value::Plural(forms)), losses);
                    }
                } else if field(localization, "variations").is_some() {
                    r.note(
                        0,
                        key,
                        format!("{language}: device variations are not carried"),
                    );
                }
                if field(localization, "substitutions").is_some() {
                    r.note(0, key, format!("{language}: substitutions are not carried"));
                }
            }
        }
        let manual = field(entry, "extractionState")
            .and_then(text_of)
            .is_some_and(|state| state == "manual");
        if !source_seen && !manual && !key.is_empty() {
            // Xcode's reading of an extracted key: the key is the source text
            let converted = convert(key, false, r);
            r.push(
                Unit {
                    key: Key::Flat(key.clone()),
                    value: Value::Text(converted.text),
                    comment,
                    locale: Some(source_language.clone()),
                    line: 0,
                },
                converted.losses,
            );
        }
    }
    Ok(())
}

fn convert(text: &str, plural: bool, r: &Reading<'_>) -> Converted {
    if r.convert() {
        syntax::printf(text, Printf::Apple, plural)
    } else {
        Converted {
            text: text.to_owned(),
            losses: Vec::new(),
        }
    }
}

fn field<'n>(node: &'n Node, name: &str) -> Option<&'n Node> {
    match &node.value {
        NodeValue::Map(entries) => entries.iter().find(|(k, _)| k == name).map(|(_, v)| v),
        _ => None,
    }
}

fn text_of(node: &Node) -> Option<&str> {
    match &node.value {
        NodeValue::Text(t) => Some(t),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Options;

    #[test]
    fn catalog_texts_plurals_and_extracted_keys_as_source_texts() {
        let catalog = r#"{
  "sourceLanguage" : "en",
  "strings" : {
    "app_files" : {
      "comment" : "Files",
      "extractionState" : "manual",
      "localizations" : {
        "en" : { "variations" : { "plural" : {
          "one" : { "stringUnit" : { "state" : "translated", "value" : "%lld file" } },
          "other" : { "stringUnit" : { "state" : "translated", "value" : "%lld files" } } } } },
        "pl" : { "stringUnit" : { "state" : "translated", "value" : "Pliki %1$@" } }
      }
    },
    "Cancel" : { "localizations" : { "pl" : { "stringUnit" : { "state" : "translated", "value" : "Anuluj" } } } },
    "settings_title" : { "extractionState" : "manual", "localizations" : { "pl" : { "stringUnit" : { "state" : "translated", "value" : "Ustawienia" } } } }
  },
  "version" : "1.0"
}"#;
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(catalog, &mut r).unwrap();
        let got: Vec<(String, Option<String>, Value)> = r
            .units
            .into_iter()
            .map(|u| (u.key.display(), u.locale, u.value))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "app_files".into(),
                    Some("en".into()),
                    Value::Plural(vec![
                        (PluralCategory::One, "{count} file".into()),
                        (PluralCategory::Other, "{count} files".into())
                    ])
                ),
                (
                    "app_files".into(),
                    Some("pl".into()),
                    Value::Text("Pliki {arg1}".into())
                ),
                (
                    "Cancel".into(),
                    Some("pl".into()),
                    Value::Text("Anuluj".into())
                ),
                (
                    "Cancel".into(),
                    Some("en".into()),
                    Value::Text("Cancel".into())
                ),
                // a manual key is an identifier: no English text of its own
                (
                    "settings_title".into(),
                    Some("pl".into()),
                    Value::Text("Ustawienia".into())
                ),
            ]
        );
    }
}
