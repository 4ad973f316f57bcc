//! Apple String Catalogs (`.xcstrings`, Xcode 15+): every key's localizations, each a
//! `stringUnit` text or `variations.plural` forms, in the catalog's language codes; the
//! key's `comment`. A key Xcode extracted from code (no `extractionState`, or any but
//! `manual`) without a localization in the `sourceLanguage` has the key as its source
//! text, as Xcode reads it (`String(localized: "Cancel")`); a `manual` key (one added in
//! the catalog, and every key `generate` writes) is an identifier, not a text: without a
//! source localization its source text is missing, as in the sheet it came from. Not
//! carried, and listed: keys marked `shouldTranslate: false`, device variations and
//! substitutions.
//!
//! A catalog holds every locale in one file (hundreds of megabytes for a large app), so
//! it is read straight into the few fields used, its strings borrowed from the file where
//! they hold no escape, rather than into a tree of every value. Where a field has a value
//! of another kind than Xcode writes, it counts as absent.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::syntax::{self, Converted, Printf};
use super::{Key, Reading, SyntaxError, Unit, Value};
use crate::translations::model::PluralCategory;

#[derive(Deserialize)]
struct Catalog<'a> {
    #[serde(rename = "sourceLanguage", borrow, default)]
    source_language: Text<'a>,
    #[serde(borrow, default)]
    strings: Map<'a, Lenient<StringEntry<'a>>>,
}

#[derive(Deserialize, Default)]
struct StringEntry<'a> {
    #[serde(borrow, default)]
    comment: Text<'a>,
    #[serde(rename = "extractionState", borrow, default)]
    extraction_state: Text<'a>,
    #[serde(rename = "shouldTranslate", default)]
    should_translate: Flag,
    #[serde(borrow, default)]
    localizations: Map<'a, Lenient<Localization<'a>>>,
}

#[derive(Deserialize, Default)]
struct Localization<'a> {
    #[serde(rename = "stringUnit", borrow, default)]
    string_unit: Option<Lenient<StringUnit<'a>>>,
    #[serde(borrow, default)]
    variations: Option<Lenient<Variations<'a>>>,
    #[serde(default)]
    substitutions: Option<IgnoredAny>,
}

#[derive(Deserialize, Default)]
struct StringUnit<'a> {
    #[serde(borrow, default)]
    value: Text<'a>,
}

#[derive(Deserialize, Default)]
struct Variations<'a> {
    #[serde(borrow, default)]
    plural: Option<Map<'a, Lenient<PluralCase<'a>>>>,
}

#[derive(Deserialize, Default)]
struct PluralCase<'a> {
    #[serde(rename = "stringUnit", borrow, default)]
    string_unit: Option<Lenient<StringUnit<'a>>>,
}

pub(super) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let catalog = Catalog::deserialize(&mut deserializer)
        .and_then(|catalog| deserializer.end().map(|()| catalog))
        .map_err(|e| SyntaxError::new(e.line(), format!("not valid JSON: {e}")))?;
    let Some(source_language) = catalog.source_language.0 else {
        return Err(SyntaxError::new(1, "a catalog without sourceLanguage"));
    };
    let Some(strings) = catalog.strings.0 else {
        return Err(SyntaxError::new(
            1,
            "a catalog without its \"strings\" object",
        ));
    };
    r.units.reserve(strings.len());
    for (key, entry) in strings {
        let entry = entry.0.unwrap_or_default();
        if entry.should_translate.0 {
            r.note(0, &key, "shouldTranslate is false: not carried");
            continue;
        }
        let comment = entry.comment.0.map(Cow::into_owned);
        let mut source_seen = false;
        for (language, localization) in entry.localizations.0.unwrap_or_default() {
            let localization = localization.0.unwrap_or_default();
            source_seen |= language == source_language;
            let unit = |value| Unit {
                key: Key::Flat(key.clone().into_owned()),
                value,
                comment: comment.clone(),
                locale: Some(language.clone().into_owned()),
                line: 0,
            };
            if let Some(string_unit) = localization.string_unit {
                if let Some(text) = string_unit
                    .0
                    .and_then(|u| u.value.0)
                    .filter(|t| !t.is_empty())
                {
                    let converted = convert(text, false, r);
                    r.push(unit(Value::Text(converted.text)), converted.losses);
                }
            } else if let Some(variations) = localization.variations {
                match variations.0.and_then(|v| v.plural) {
                    // a plural that is no object: the language is left as it is
                    Some(Map(None)) => continue,
                    Some(Map(Some(cases))) => {
                        let mut forms = Vec::new();
                        let mut losses = Vec::new();
                        for (case, node) in cases {
                            let text = node
                                .0
                                .and_then(|c| c.string_unit)
                                .and_then(|u| u.0)
                                .and_then(|u| u.value.0);
                            match (PluralCategory::from_name(&case), text) {
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
                    }
                    None => r.note(
                        0,
                        &key,
                        format!("{language}: device variations are not carried"),
                    ),
                }
            }
            if localization.substitutions.is_some() {
                r.note(
                    0,
                    &key,
                    format!("{language}: substitutions are not carried"),
                );
            }
        }
        let manual = entry.extraction_state.0.as_deref() == Some("manual");
        if !source_seen && !manual && !key.is_empty() {
            // Xcode's reading of an extracted key: the key is the source text
            let converted = convert(key.clone(), false, r);
            r.push(
                Unit {
                    key: Key::Flat(key.into_owned()),
                    value: Value::Text(converted.text),
                    comment,
                    locale: Some(source_language.clone().into_owned()),
                    line: 0,
                },
                converted.losses,
            );
        }
    }
    Ok(())
}

fn convert(text: Cow<'_, str>, plural: bool, r: &Reading<'_>) -> Converted {
    if r.convert() {
        syntax::printf(&text, Printf::Apple, plural)
    } else {
        Converted {
            text: text.into_owned(),
            losses: Vec::new(),
        }
    }
}

/// A string value, borrowed when it holds no escape; `None` for a value of another kind.
#[derive(Default)]
struct Text<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TextVisitor).map(Text)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// `shouldTranslate`: true when the value is the boolean false.
#[derive(Default)]
struct Flag(bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FlagVisitor;
        impl<'de> Visitor<'de> for FlagVisitor {
            type Value = bool;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
                Ok(!v)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<bool, E> {
                Ok(false)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<bool, E> {
                Ok(false)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<bool, E> {
                Ok(false)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
                Ok(false)
            }
            fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
                Ok(false)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(false)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(false)
            }
        }
        deserializer.deserialize_any(FlagVisitor).map(Flag)
    }
}

/// An object's entries in file order, keys borrowed where they hold no escape; `None` for
/// a value that is no object.
struct Map<'a, V>(Option<Vec<(Cow<'a, str>, V)>>);

impl<V> Default for Map<'_, V> {
    fn default() -> Self {
        Map(None)
    }
}

impl<'de: 'a, 'a, V: Deserialize<'de>> Deserialize<'de> for Map<'a, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<'a, V>(PhantomData<(&'a (), V)>);
        impl<'de: 'a, 'a, V: Deserialize<'de>> Visitor<'de> for MapVisitor<'a, V> {
            type Value = Option<Vec<(Cow<'a, str>, V)>>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    let value = map.next_value::<V>()?;
                    entries.push((key.unwrap_or_default(), value));
                }
                Ok(Some(entries))
            }
            fn visit_borrowed_str<E: de::Error>(self, _: &'de str) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(None)
            }
        }
        deserializer
            .deserialize_any(MapVisitor(PhantomData))
            .map(Map)
    }
}

/// An object read as `T`; `None` for a value that is no object (present, but of another
/// kind than Xcode writes).
struct Lenient<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LenientVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for LenientVisitor<T> {
            type Value = Option<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(None)
            }
        }
        deserializer
            .deserialize_any(LenientVisitor(PhantomData))
            .map(Lenient)
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
