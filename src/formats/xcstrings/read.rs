//! Apple String Catalogs (`.xcstrings`, Xcode 15+): every key's localizations, each a
//! `stringUnit` text or `variations.plural` forms, in the catalog's language codes; the
//! key's `comment`. A key Xcode extracted from code (no `extractionState`, or any but
//! `manual`) without a localization in the `sourceLanguage` has the key as its source
//! text, as Xcode reads it (`String(localized: "Cancel")`); a `manual` key (one added in
//! the catalog, and every key `generate` writes) is an identifier, not a text: without a
//! source localization its source text is missing, as in the sheet it came from. Not
//! carried, and listed: keys marked `shouldTranslate: false`. Listed as left in the app's
//! catalog (generate keeps a localization with them as the app has it): device variations
//! and substitutions.
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

use crate::formats::reading::{Key, Reading, SyntaxError, Unit, Value};
use crate::formats::shared::syntax::{self, Printf};
use crate::model::PluralCategory;

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

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    // a large catalog: its strings cut into parts read on every core; anything the cutting
    // does not expect is read whole, which also says where the JSON breaks
    let threads = crate::parallel::cores();
    if text.len() >= PARALLEL_FROM
        && threads > 1
        && let Some(cut) = cut(text, threads * 2)
        && read_parts(&cut, r).is_ok()
    {
        return Ok(());
    }
    r.units.clear();
    r.notes.clear();
    r.kept.clear();
    read_whole(text, r)
}

/// Below this many bytes a catalog is read whole: cutting it costs more than it saves.
const PARALLEL_FROM: usize = 4 << 20;

fn read_whole(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let catalog = Catalog::deserialize(&mut deserializer)
        .and_then(|catalog| deserializer.end().map(|()| catalog))
        .map_err(|e| crate::formats::json::read::syntax_error(&e))?;
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
        add(key, entry, &source_language, r);
    }
    Ok(())
}

/// The catalog cut by `cut`, each part's keys and values parsed and read on its own
/// thread, then joined in order; `Err` when one does not parse (`read` then reads the
/// whole file).
fn read_parts(cut: &Cut<'_>, r: &mut Reading<'_>) -> Result<(), serde_json::Error> {
    let source_language: Text<'_> = serde_json::from_str(cut.source_language)?;
    let Some(source_language) = source_language.0 else {
        return Err(serde::de::Error::custom("no sourceLanguage"));
    };
    let options = r.options;
    let parts = crate::parallel::map(crate::parallel::cores(), &cut.parts, |part| {
        let mut reading = Reading::new(options);
        for &(key, value) in &cut.entries[part.clone()] {
            let key: Text<'_> = serde_json::from_str(key)?;
            let entry: Lenient<StringEntry<'_>> = serde_json::from_str(value)?;
            add(
                key.0.unwrap_or_default(),
                entry,
                &source_language,
                &mut reading,
            );
        }
        Ok::<_, serde_json::Error>((reading.units, reading.notes, reading.kept))
    });
    for part in parts {
        let (units, notes, kept) = part?;
        r.units.extend(units);
        r.notes.extend(notes);
        r.kept.extend(kept);
    }
    Ok(())
}

/// One key of the catalog: a unit per language (plural forms as one), and what is not
/// carried.
fn add(
    key: Cow<'_, str>,
    entry: Lenient<StringEntry<'_>>,
    source_language: &str,
    r: &mut Reading<'_>,
) {
    let entry = entry.0.unwrap_or_default();
    if entry.should_translate.0 {
        r.note(0, &key, "shouldTranslate is false: not carried");
        return;
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
                let converted = r.converted(text, |t| syntax::printf(t, Printf::Apple, false));
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
                                let mut converted =
                                    r.converted(text, |t| syntax::printf(t, Printf::Apple, true));
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
                // the sheet holds one text per locale
                None => r.keep(0, &key, "localization(s) with device variations"),
            }
        }
        if localization.substitutions.is_some() {
            // the sheet holds the format string (`%#@count@`), not the variables'
            // variations: the app's localization stays as it is
            r.keep(0, &key, "localization(s) with substitutions");
        }
    }
    let manual = entry.extraction_state.0.as_deref() == Some("manual");
    if !source_seen && !manual && !key.is_empty() {
        // Xcode's reading of an extracted key: the key is the source text
        let converted = r.converted(key.clone(), |t| syntax::printf(t, Printf::Apple, false));
        r.push(
            Unit {
                key: Key::Flat(key.into_owned()),
                value: Value::Text(converted.text),
                comment,
                locale: Some(source_language.to_owned()),
                line: 0,
            },
            converted.losses,
        );
    }
}

/// A catalog's `sourceLanguage` value and each of its `strings` entries (the key's JSON
/// string and the value's JSON), with the ranges of entries of each part.
struct Cut<'t> {
    source_language: &'t str,
    entries: Vec<(&'t str, &'t str)>,
    parts: Vec<std::ops::Range<usize>>,
}

/// Cuts a catalog for `read_parts` by scanning its JSON (strings, escapes, nesting) without
/// parsing it; `None` when it is not the shape expected (the whole read says why).
fn cut(text: &str, parts: usize) -> Option<Cut<'_>> {
    let mut scan = Scan {
        bytes: text.as_bytes(),
        at: 0,
    };
    scan.expect(b'{')?;
    let mut source_language = None;
    let mut entries = Vec::new();
    loop {
        scan.space();
        if scan.peek()? == b'}' {
            break;
        }
        let key = scan.string()?;
        scan.expect(b':')?;
        scan.space();
        let value = scan.at;
        match &text[key.0 + 1..key.1 - 1] {
            "strings" => {
                scan.expect(b'{')?;
                loop {
                    scan.space();
                    if scan.peek()? == b'}' {
                        scan.at += 1;
                        break;
                    }
                    let key = scan.string()?;
                    scan.expect(b':')?;
                    scan.space();
                    let value = scan.at;
                    scan.value()?;
                    entries.push((&text[key.0..key.1], &text[value..scan.at]));
                    scan.space();
                    match scan.peek()? {
                        b',' => scan.at += 1,
                        b'}' => {}
                        _ => return None,
                    }
                }
            }
            "sourceLanguage" => {
                scan.value()?;
                source_language = Some(&text[value..scan.at]);
            }
            _ => scan.value()?,
        }
        scan.space();
        match scan.peek()? {
            b',' => scan.at += 1,
            b'}' => {}
            _ => return None,
        }
    }
    if entries.is_empty() {
        return None;
    }
    Some(Cut {
        source_language: source_language?,
        parts: crate::parallel::chunks(entries.len(), entries.len().div_ceil(parts.max(1))),
        entries,
    })
}

/// A cursor over JSON text that skips values without reading them.
struct Scan<'t> {
    bytes: &'t [u8],
    at: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn space(&mut self) {
        while self
            .peek()
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.space();
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// A string, from its opening quote (after blanks): its span, quotes included.
    fn string(&mut self) -> Option<(usize, usize)> {
        self.space();
        let start = self.at;
        if self.peek()? != b'"' {
            return None;
        }
        self.at += 1;
        loop {
            let found = memchr::memchr2(b'"', b'\\', &self.bytes[self.at..])?;
            self.at += found + 1;
            if self.bytes[self.at - 1] == b'"' {
                return Some((start, self.at));
            }
            // an escape: the next byte is part of it
            self.at += 1;
        }
    }

    /// Any value (after blanks), to its end.
    fn value(&mut self) -> Option<()> {
        self.space();
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                // a number, true, false or null: up to what ends it
                while self.peek().is_some_and(|b| {
                    !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    self.at += 1;
                }
                Some(())
            }
        }
    }
}

/// A string value, borrowed when it holds no escape; `None` for a value of another kind.
#[derive(Default)]
struct Text<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(OrNone::<Cow<'de, str>>(PhantomData))
            .map(Text)
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
        let entries = deserializer.deserialize_any(OrNone::<Entries<'a, V>>(PhantomData))?;
        Ok(Map(entries.map(|e| e.0)))
    }
}

/// An object read as `T`; `None` for a value that is no object (present, but of another
/// kind than Xcode writes).
struct Lenient<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let whole = deserializer.deserialize_any(OrNone::<Whole<T>>(PhantomData))?;
        Ok(Lenient(whole.map(|w| w.0)))
    }
}

/// A value of the kind a field wants, for `OrNone`; by default neither an object nor a
/// string is.
trait Wanted<'de>: Sized {
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Option<Self>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn from_str(_: Cow<'de, str>) -> Option<Self> {
        None
    }
}

/// A string (`Text`).
impl<'de> Wanted<'de> for Cow<'de, str> {
    fn from_str(text: Cow<'de, str>) -> Option<Self> {
        Some(text)
    }
}

/// An object's entries in file order (`Map`).
struct Entries<'a, V>(Vec<(Cow<'a, str>, V)>);

impl<'de: 'a, 'a, V: Deserialize<'de>> Wanted<'de> for Entries<'a, V> {
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Option<Self>, A::Error> {
        let mut entries = Vec::new();
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            let value = map.next_value::<V>()?;
            entries.push((key.unwrap_or_default(), value));
        }
        Ok(Some(Entries(entries)))
    }
}

/// An object read whole as `T` (`Lenient`).
struct Whole<T>(T);

impl<'de, T: Deserialize<'de>> Wanted<'de> for Whole<T> {
    fn from_map<A: MapAccess<'de>>(map: A) -> Result<Option<Self>, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| Some(Whole(t)))
    }
}

/// A value of the kind `T` wants; any other kind is skipped as `None` (present, but not
/// what Xcode writes there).
struct OrNone<T>(PhantomData<T>);

impl<'de, T: Wanted<'de>> Visitor<'de> for OrNone<T> {
    type Value = Option<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::from_map(map)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(T::from_str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(T::from_str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(T::from_str(Cow::Owned(v)))
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

    /// A catalog read in parts on several threads gives what it gives read whole: units,
    /// their order and every note, whatever its strings hold (escaped quotes, braces,
    /// backslashes) and whatever values it has that are not read.
    #[test]
    fn a_catalog_read_in_parts_is_the_catalog_read_whole() {
        let entry = |n: usize| {
            format!(
                r#""key \"{n}\" {{x}} \\ é" : {{ "comment" : "c{n} \\\" }}", "version" : [1, {{"a" : null}}], "localizations" : {{
      "en" : {{ "stringUnit" : {{ "state" : "translated", "value" : "%@ {n} \u00e9 \"q\"" }} }},
      "pl" : {{ "variations" : {{ "plural" : {{ "one" : {{ "stringUnit" : {{ "value" : "%lld {n}" }} }}, "other" : {{ "stringUnit" : {{ "value" : "%lld {n}s" }} }}, "=5" : 3 }} }} }},
      "de" : {{ "variations" : {{ "device" : {{ "iphone" : {{}} }} }}, "substitutions" : {{}} }}
    }} }}"#
            )
        };
        let mut strings: Vec<String> = (0..40).map(entry).collect();
        strings.push(r#""skip" : { "shouldTranslate" : false }"#.to_owned());
        strings.push(r#""Extracted" : { "localizations" : { "pl" : { "stringUnit" : { "value" : "Wyciągnięty" } } } }"#.to_owned());
        strings.push(r#""odd" : 12"#.to_owned());
        let catalog = format!(
            "{{\n  \"version\" : 1.0,\n  \"strings\" : {{\n    {}\n  }},\n  \"sourceLanguage\" : \"en\"\n}}",
            strings.join(",\n    ")
        );
        let options = Options::default();
        let mut whole = Reading::new(&options);
        read_whole(&catalog, &mut whole).unwrap();
        for parts in [1, 2, 3, 7, 100] {
            let cut = cut(&catalog, parts).unwrap();
            assert!(cut.parts.len() <= parts, "{parts}");
            let mut parted = Reading::new(&options);
            read_parts(&cut, &mut parted).unwrap();
            assert_eq!(parted.units, whole.units, "{parts}");
            assert_eq!(parted.notes, whole.notes, "{parts}");
            assert_eq!(parted.kept, whole.kept, "{parts}");
        }
        // each key's de localization, with device variations and substitutions, stays the
        // app's: generate leaves it in the catalog as it is
        let kept: Vec<&str> = (whole.kept.iter().take(2))
            .map(|(_, _, what)| what.as_str())
            .collect();
        assert_eq!(
            kept,
            [
                "localization(s) with device variations",
                "localization(s) with substitutions"
            ]
        );
        assert_eq!(whole.kept.len(), 40 * 2);
        assert!(
            (whole.notes.iter()).all(|(_, _, what)| !what.contains("variations")
                && !what.contains("substitutions")),
            "{:?}",
            whole.notes
        );
        // 40 keys of a text and a plural; `Extracted` in pl and (its key) en; `odd`, an
        // extracted key without localizations, in en
        assert_eq!(whole.units.len(), 40 * 2 + 3);
        // what the cutting does not expect is left to the whole read
        for odd in [
            "[]",
            "{\"strings\" : {\"a\" : {}",
            "{\"strings\" : 1}",
            "{\"a\" : 1}",
        ] {
            assert!(cut(odd, 2).is_none(), "{odd}");
        }
    }

    #[test]
    fn a_surrogate_without_its_other_half_is_refused_and_a_pair_decodes() {
        let options = Options::default();
        let catalog = |value: &str| {
            format!(
                "{{\"sourceLanguage\":\"en\",\"strings\":{{\"a\":{{\"localizations\":{{\"en\":\
                 {{\"stringUnit\":{{\"state\":\"translated\",\"value\":\"{value}\"}}}}}}}}}},\
                 \"version\":\"1.0\"}}"
            )
        };
        let mut r = Reading::new(&options);
        let e = read(&catalog("x\\uD800y"), &mut r).unwrap_err();
        assert!(
            e.message
                .starts_with("not valid JSON: unexpected end of hex escape")
                && e.message.contains("needs its other half"),
            "{}",
            e.message
        );
        let mut r = Reading::new(&options);
        read(&catalog("\\uD83D\\uDE00"), &mut r).unwrap();
        assert_eq!(r.units[0].value, Value::Text("😀".into()));
    }
}
