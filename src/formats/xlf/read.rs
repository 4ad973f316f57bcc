//! XLIFF 1.2: every `<file>`'s `<target>` texts in its `target-language`, and its
//! `<source>` texts in its `source-language` (unless a source is only the unit's id, which
//! depot writes where the base locale has no text). A unit's key is its `id` split at
//! dots (depot's ids are key paths), or its `resname` when that is a name of its own
//! (Symfony and other tools number their ids). A `<group restype="x-gettext-plurals">` of
//! units whose ids end in `[category]` is a plural entry. `<note>` is the comment. Texts
//! are taken as they are (depot's xlf carries the sheet's `{name}` syntax); inline
//! elements (`<g>`, `<x/>`, `<ph>`) and `translate="no"` units are listed.

use quick_xml::events::{BytesStart, Event};

use crate::formats::reading::{Key, Reading, SyntaxError, Unit, Value};
use crate::formats::shared::xml::{self, Lines};
use crate::model::PluralCategory;

#[derive(Default)]
struct FileLanguages {
    source: Option<String>,
    target: Option<String>,
}

/// One `<trans-unit>` as read.
#[derive(Default)]
struct TransUnit {
    id: String,
    resname: Option<String>,
    source: Option<String>,
    target: Option<String>,
    note: Option<String>,
    line: usize,
    skip: bool,
    inline: Vec<String>,
}

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let mut reader = xml::reader(text);
    let mut lines = Lines::new(text);
    let mut languages = FileLanguages::default();
    // the plural group being read: its id and its units
    let mut group: Option<(String, usize, Vec<TransUnit>)> = None;
    loop {
        let (start, event) = xml::next(&mut reader, &mut lines)?;
        match event {
            Event::Start(e) => match e.local_name().as_ref() {
                "xliff" => {
                    let version = xml::attr(&e, "version")
                        .map_err(|m| SyntaxError::new(lines.at(start), m))?;
                    if version.as_deref().is_some_and(|v| v.starts_with('2')) {
                        return Err(SyntaxError::new(
                            lines.at(start),
                            "XLIFF 2 is not read: export XLIFF 1.2",
                        ));
                    }
                }
                "file" => {
                    let line = lines.at(start);
                    let get = |name| xml::attr(&e, name).map_err(|m| SyntaxError::new(line, m));
                    languages = FileLanguages {
                        source: get("source-language")?,
                        target: get("target-language")?,
                    };
                }
                "group" => {
                    let line = lines.at(start);
                    let get = |name| xml::attr(&e, name).map_err(|m| SyntaxError::new(line, m));
                    if get("restype")?.as_deref() == Some("x-gettext-plurals") {
                        group = Some((get("id")?.unwrap_or_default(), line, Vec::new()));
                    }
                }
                "trans-unit" => {
                    let line = lines.at(start);
                    let unit = trans_unit(&e, &mut reader, &mut lines, line)?;
                    match &mut group {
                        Some((_, _, units)) => units.push(unit),
                        None => add(unit, &languages, r),
                    }
                }
                _ => {}
            },
            Event::End(e) if e.local_name().as_ref() == "group" => {
                if let Some((id, line, units)) = group.take() {
                    add_plural(id, line, units, &languages, r);
                }
            }
            Event::Eof => return Ok(()),
            _ => {}
        }
    }
}

fn trans_unit(
    e: &BytesStart<'_>,
    reader: &mut quick_xml::Reader<&[u8]>,
    lines: &mut Lines<'_>,
    line: usize,
) -> Result<TransUnit, SyntaxError> {
    let get = |name| xml::attr(e, name).map_err(|m| SyntaxError::new(line, m));
    let mut unit = TransUnit {
        id: get("id")?.unwrap_or_default(),
        resname: get("resname")?,
        line,
        skip: get("translate")?.as_deref() == Some("no"),
        ..TransUnit::default()
    };
    loop {
        let (_, event) = xml::next(reader, lines)?;
        match event {
            Event::Start(child) => {
                let which = child.local_name().as_ref().to_owned();
                let content = xml::content(reader, lines)?;
                unit.inline.extend(content.children);
                match which.as_str() {
                    "source" => unit.source = Some(content.text),
                    "target" => unit.target = Some(content.text),
                    "note" => unit.note = Some(content.text),
                    _ => {}
                }
            }
            Event::End(_) => return Ok(unit),
            Event::Eof => {
                return Err(xml::error(
                    reader,
                    lines,
                    "the file ends inside a <trans-unit>",
                ));
            }
            _ => {}
        }
    }
}

/// The key of a unit: its id as a path, or its resname when that is no flat form of it.
pub(crate) fn key_of(id: &str, resname: Option<&str>) -> Key {
    match resname {
        Some(name) if !name.is_empty() && name != id && !ends_with_flat_form(name, id) => {
            Key::Flat(name.to_owned())
        }
        _ => Key::Dotted(id.to_owned()),
    }
}

/// Whether `name` is the flat form of `id` (`.` as `_`, lower-cased), alone or after a
/// `_` (a locale prefix): what generate writes as a resname.
fn ends_with_flat_form(name: &str, id: &str) -> bool {
    let flat = |b: u8| {
        if b == b'.' {
            b'_'
        } else {
            b.to_ascii_lowercase()
        }
    };
    let (name, id) = (name.as_bytes(), id.as_bytes());
    // a non-ASCII id lower-cases beyond bytes: compared as strings
    if !id.is_ascii() {
        let flat = String::from_utf8_lossy(id).replace('.', "_").to_lowercase();
        let name = String::from_utf8_lossy(name);
        return name == flat || name.ends_with(&format!("_{flat}"));
    }
    let Some(start) = name.len().checked_sub(id.len()) else {
        return false;
    };
    let tail_is_flat = name[start..].iter().zip(id).all(|(&n, &i)| n == flat(i));
    tail_is_flat && (start == 0 || name[start - 1] == b'_')
}

fn add(unit: TransUnit, languages: &FileLanguages, r: &mut Reading<'_>) {
    let key = key_of(&unit.id, unit.resname.as_deref());
    let shown = key.display();
    if unit.skip {
        r.note(unit.line, &shown, "translate=\"no\": not carried");
        return;
    }
    if !unit.inline.is_empty() {
        r.note(
            unit.line,
            &shown,
            format!(
                "inline elements <{}> are not carried: the text is kept without them",
                unit.inline.join(">, <")
            ),
        );
    }
    let mut texts = Vec::new();
    if let Some(source) = unit.source.filter(|s| !s.is_empty() && *s != unit.id) {
        texts.push((languages.source.clone(), source));
    }
    if let Some(target) = unit.target.filter(|t| !t.is_empty()) {
        texts.push((languages.target.clone(), target));
    }
    for (locale, text) in texts {
        r.units.push(Unit {
            key: key.clone(),
            value: Value::Text(text),
            comment: unit.note.clone(),
            locale,
            line: unit.line,
        });
    }
}

fn add_plural(
    id: String,
    line: usize,
    units: Vec<TransUnit>,
    languages: &FileLanguages,
    r: &mut Reading<'_>,
) {
    let mut sources = Vec::new();
    let mut targets = Vec::new();
    let mut comment = None;
    let mut resname = None;
    for unit in units {
        let category = unit
            .id
            .strip_suffix(']')
            .and_then(|u| u.rsplit_once('['))
            .and_then(|(_, c)| PluralCategory::from_name(c));
        let Some(category) = category else {
            r.note(
                unit.line,
                &unit.id,
                "a plural form whose id names no CLDR category ([one], [other]…): not carried",
            );
            continue;
        };
        resname = resname.or(unit.resname.clone());
        comment = comment.or(unit.note.clone());
        if let Some(source) = unit.source.filter(|s| !s.is_empty() && *s != id) {
            sources.push((category, source));
        }
        if let Some(target) = unit.target.filter(|t| !t.is_empty()) {
            targets.push((category, target));
        }
    }
    // a source form that repeats `other`'s is the writer's stand-in for a category the
    // base locale lacks (depot writes `other`'s text there)
    let other = sources
        .iter()
        .find(|(c, _)| *c == PluralCategory::Other)
        .map(|(_, t)| t.clone());
    if let Some(other) = other {
        sources.retain(|(c, t)| *c == PluralCategory::Other || *t != other);
    }
    let key = key_of(&id, resname.as_deref());
    for (locale, forms) in [
        (languages.source.clone(), sources),
        (languages.target.clone(), targets),
    ] {
        if !forms.is_empty() {
            r.units.push(Unit {
                key: key.clone(),
                value: Value::Plural(forms),
                comment: comment.clone(),
                locale,
                line,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Options;

    #[test]
    fn units_groups_and_keys() {
        let xlf = r#"<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
  <file original="translations" datatype="plaintext" source-language="en" target-language="pl">
    <body>
      <trans-unit id="CORE.YES" resname="core_yes" xml:space="preserve">
        <source>Yes &amp; {name}</source>
        <target>Tak &amp; {name}</target>
        <note>A button</note>
      </trans-unit>
      <trans-unit id="CORE.ONLY_PL" resname="core_only_pl">
        <source>CORE.ONLY_PL</source>
        <target>Tylko</target>
      </trans-unit>
      <trans-unit id="7" resname="form.title"><source>Title</source><target>Tytuł <x id="1"/></target></trans-unit>
      <group id="APP.FILES" restype="x-gettext-plurals">
        <trans-unit id="APP.FILES[one]" resname="app_files"><source>one file</source><target>plik</target></trans-unit>
        <trans-unit id="APP.FILES[other]" resname="app_files"><source>files</source><target>pliki</target></trans-unit>
      </group>
    </body>
  </file>
</xliff>
"#;
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(xlf, &mut r).unwrap();
        let got: Vec<(String, Option<String>, Value)> = r
            .units
            .iter()
            .map(|u| (u.key.display(), u.locale.clone(), u.value.clone()))
            .collect();
        let en = Some("en".to_owned());
        let pl = Some("pl".to_owned());
        assert_eq!(
            got,
            vec![
                (
                    "CORE.YES".into(),
                    en.clone(),
                    Value::Text("Yes & {name}".into())
                ),
                (
                    "CORE.YES".into(),
                    pl.clone(),
                    Value::Text("Tak & {name}".into())
                ),
                (
                    "CORE.ONLY_PL".into(),
                    pl.clone(),
                    Value::Text("Tylko".into())
                ),
                ("form.title".into(), en.clone(), Value::Text("Title".into())),
                (
                    "form.title".into(),
                    pl.clone(),
                    Value::Text("Tytuł ".into())
                ),
                (
                    "APP.FILES".into(),
                    en,
                    Value::Plural(vec![
                        (PluralCategory::One, "one file".into()),
                        (PluralCategory::Other, "files".into())
                    ])
                ),
                (
                    "APP.FILES".into(),
                    pl,
                    Value::Plural(vec![
                        (PluralCategory::One, "plik".into()),
                        (PluralCategory::Other, "pliki".into())
                    ])
                ),
            ]
        );
        assert_eq!(r.units[0].comment.as_deref(), Some("A button"));
        assert_eq!(r.notes.len(), 1);
        assert!(matches!(r.units[3].key, Key::Flat(_)));
    }
}
