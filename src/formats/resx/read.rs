//! .NET ResX: each `<data name>` string resource with its `<value>` and `<comment>`.
//! Resources of another type (`type=`, `mimetype=`: images, files) and empty texts are
//! listed as left in the app's files (generate keeps every `<data>` the sheet lacks). Names
//! `Items_One` … `Items_Other` make the plural entry `Items`; texts with a numbered
//! argument are composite formats (`{0}` → `{arg1}`, `{{` a literal brace).

use std::collections::HashMap;

use quick_xml::events::Event;

use crate::formats::reading::{EMPTY_TEXT, Key, Reading, SyntaxError, Unit, Value};
use crate::formats::shared::syntax;
use crate::formats::shared::xml::{self, Lines};
use crate::model::PluralCategory;

struct Data {
    name: String,
    value: String,
    comment: Option<String>,
    line: usize,
}

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let mut reader = xml::reader(text);
    let mut lines = Lines::new(text);
    let mut data = Vec::new();
    loop {
        let (start, event) = xml::next(&mut reader, &mut lines)?;
        match event {
            Event::Start(e) if e.name().as_ref() == "data" => {
                let line = lines.at(start);
                let get = |name| xml::attr(&e, name).map_err(|m| SyntaxError::new(line, m));
                let name = get("name")?.unwrap_or_default();
                let typed = get("type")?.or(get("mimetype")?);
                let mut value = None;
                let mut comment = None;
                loop {
                    match reader
                        .read_event()
                        .map_err(|e| xml::xml_error(&reader, &mut lines, &e))?
                    {
                        Event::Start(child) => {
                            let which = child.name().as_ref().to_owned();
                            let content = xml::content(&mut reader, &mut lines)?;
                            match which.as_str() {
                                "value" => value = Some(content.text),
                                "comment" => comment = Some(content.text).filter(|c| !c.is_empty()),
                                _ => {}
                            }
                        }
                        Event::End(_) => break,
                        Event::Eof => {
                            return Err(xml::error(
                                &reader,
                                &mut lines,
                                "the file ends inside <data>",
                            ));
                        }
                        _ => {}
                    }
                }
                // what the sheet cannot hold, generate leaves in the app's file
                if let Some(kind) = typed
                    && !kind.starts_with("System.String")
                {
                    let kind = kind.split(',').next().unwrap_or_default();
                    r.keep(
                        line,
                        &name,
                        format!("resource(s) of type {kind}, not texts"),
                    );
                    continue;
                }
                match value {
                    Some(value) if !value.is_empty() => data.push(Data {
                        name,
                        value,
                        comment,
                        line,
                    }),
                    // an empty cell means no text
                    _ => r.keep(line, &name, EMPTY_TEXT),
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    add_all(data, r);
    Ok(())
}

/// `Items_One` → (`Items`, one), any case of the category.
fn plural_name(name: &str) -> Option<(&str, PluralCategory)> {
    let (base, suffix) = name.rsplit_once('_')?;
    let category = PluralCategory::from_name(&suffix.to_ascii_lowercase())?;
    (!base.is_empty()).then_some((base, category))
}

fn add_all(data: Vec<Data>, r: &mut Reading<'_>) {
    let with_other: std::collections::HashSet<&str> = data
        .iter()
        .filter_map(|d| plural_name(&d.name))
        .filter(|(_, c)| *c == PluralCategory::Other)
        .map(|(base, _)| base)
        .collect();
    let plain: std::collections::HashSet<&str> = data.iter().map(|d| d.name.as_str()).collect();
    let plurals: std::collections::HashSet<String> = with_other
        .into_iter()
        .filter(|base| !plain.contains(base))
        .map(str::to_owned)
        .collect();
    let mut pending: HashMap<String, usize> = HashMap::new();
    for d in data {
        if let Some((base, category)) = plural_name(&d.name)
            && plurals.contains(base)
        {
            let converted = r.converted(d.value, |t| syntax::composite(t, true));
            let key = Key::Flat(base.to_owned());
            r.push_form(&mut pending, key, category, converted, d.comment, d.line);
            continue;
        }
        let converted = r.converted(d.value, |t| syntax::composite(t, false));
        r.push(
            Unit {
                key: Key::Flat(d.name),
                value: Value::Text(converted.text),
                comment: d.comment,
                locale: None,
                line: d.line,
            },
            converted.losses,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Options;

    #[test]
    fn data_values_comments_and_plurals() {
        let resx = r#"<?xml version="1.0" encoding="utf-8"?>
<root>
  <resheader name="resmimetype"><value>text/microsoft-resx</value></resheader>
  <data name="Core_Labels_Yes" xml:space="preserve"><value>Yes {0} {{x}}</value><comment>A button</comment></data>
  <data name="Items_One" xml:space="preserve"><value>{0} item</value></data>
  <data name="Items_Other" xml:space="preserve"><value>{0} items</value></data>
  <data name="Logo" type="System.Resources.ResXFileRef, System.Windows.Forms"><value>logo.png</value></data>
  <data name="Blank" xml:space="preserve"><value></value></data>
</root>
"#;
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(resx, &mut r).unwrap();
        let got: Vec<(String, Value, Option<String>)> = r
            .units
            .into_iter()
            .map(|u| (u.key.display(), u.value, u.comment))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "Core_Labels_Yes".into(),
                    Value::Text("Yes {arg1} {{x}}".into()),
                    Some("A button".into())
                ),
                (
                    "Items".into(),
                    Value::Plural(vec![
                        (PluralCategory::One, "{count} item".into()),
                        (PluralCategory::Other, "{count} items".into())
                    ]),
                    None
                ),
            ]
        );
        assert_eq!(r.notes, []);
        // generate leaves the file reference and the empty text in the app's file
        let kept: Vec<(&str, &str)> = (r.kept.iter())
            .map(|(_, key, what)| (key.as_str(), what.as_str()))
            .collect();
        assert_eq!(
            kept,
            [
                (
                    "Logo",
                    "resource(s) of type System.Resources.ResXFileRef, not texts"
                ),
                ("Blank", "empty text(s)"),
            ]
        );
    }
}
