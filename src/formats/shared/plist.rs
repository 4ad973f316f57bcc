//! XML property lists (`.stringsdict`, and `.strings` files saved as XML): dictionaries,
//! arrays, strings and the scalar types, with the comment before each dictionary key.

use quick_xml::events::Event;

use super::xml::{self, Lines};
use crate::formats::reading::SyntaxError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plist {
    Dict(Vec<Entry>),
    Array(Vec<Plist>),
    String(String),
    /// `<integer>`, `<real>`, `<true/>`, `<date>`, `<data>`: the element name.
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub key: String,
    pub value: Plist,
    pub line: usize,
    pub comment: Option<String>,
}

impl Plist {
    pub fn get(&self, key: &str) -> Option<&Plist> {
        match self {
            Plist::Dict(entries) => entries.iter().find(|e| e.key == key).map(|e| &e.value),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Plist::String(s) => Some(s),
            _ => None,
        }
    }
}

/// The top value of an XML property list.
pub fn parse(text: &str) -> Result<Plist, SyntaxError> {
    let mut reader = xml::reader(text);
    let mut lines = Lines::new(text);
    loop {
        let (_, event) = xml::next(&mut reader, &mut lines)?;
        match event {
            Event::Start(e) if e.name().as_ref() == "plist" => {
                let value = next_value(&mut reader, &mut lines, 0)?;
                return value.ok_or_else(|| xml::error(&reader, &mut lines, "an empty <plist>"));
            }
            Event::Start(e) | Event::Empty(e) => {
                return Err(xml::error(
                    &reader,
                    &mut lines,
                    format!("<{}> where <plist> was expected", xml::name(&e)),
                ));
            }
            Event::Eof => return Err(xml::error(&reader, &mut lines, "no <plist> element")),
            _ => {}
        }
    }
}

/// Deeper property lists are refused rather than overflowing the stack.
const MAX_DEPTH: usize = 64;

/// The next value, or `None` at the end of the enclosing element.
fn next_value(
    reader: &mut quick_xml::Reader<&[u8]>,
    lines: &mut Lines<'_>,
    depth: usize,
) -> Result<Option<Plist>, SyntaxError> {
    if depth > MAX_DEPTH {
        return Err(xml::error(
            reader,
            lines,
            "the property list is nested too deeply",
        ));
    }
    loop {
        let (_, event) = xml::next(reader, lines)?;
        return Ok(Some(match event {
            Event::Start(e) => match e.name().as_ref() {
                "dict" => dict(reader, lines, depth)?,
                "array" => {
                    let mut items = Vec::new();
                    while let Some(item) = next_value(reader, lines, depth + 1)? {
                        items.push(item);
                    }
                    Plist::Array(items)
                }
                "string" => Plist::String(xml::content(reader, lines)?.text),
                _ => {
                    let name = xml::name(&e);
                    xml::skip(reader, lines)?;
                    Plist::Other(name)
                }
            },
            Event::Empty(e) => match e.name().as_ref() {
                "string" => Plist::String(String::new()),
                "dict" => Plist::Dict(Vec::new()),
                "array" => Plist::Array(Vec::new()),
                _ => Plist::Other(xml::name(&e)),
            },
            Event::End(_) => return Ok(None),
            Event::Eof => {
                return Err(xml::error(
                    reader,
                    lines,
                    "the file ends inside the property list",
                ));
            }
            _ => continue,
        }));
    }
}

fn dict(
    reader: &mut quick_xml::Reader<&[u8]>,
    lines: &mut Lines<'_>,
    depth: usize,
) -> Result<Plist, SyntaxError> {
    let mut entries = Vec::new();
    let mut comment = None;
    loop {
        let (start, event) = xml::next(reader, lines)?;
        match event {
            Event::Comment(c) => comment = Some(c.xml10_content().trim().to_owned()),
            Event::Start(e) if e.name().as_ref() == "key" => {
                let line = lines.at(start);
                let key = xml::content(reader, lines)?.text;
                let value = next_value(reader, lines, depth + 1)?.ok_or_else(|| {
                    xml::error(reader, lines, format!("the key '{key}' has no value"))
                })?;
                entries.push(Entry {
                    key,
                    value,
                    line,
                    comment: comment.take(),
                });
            }
            Event::Start(e) => {
                return Err(xml::error(
                    reader,
                    lines,
                    format!("<{}> where a <key> was expected", xml::name(&e)),
                ));
            }
            Event::End(_) => return Ok(Plist::Dict(entries)),
            Event::Eof => return Err(xml::error(reader, lines, "the file ends inside a <dict>")),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionaries_keep_keys_values_and_comments() {
        let plist = parse(
            "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n  <!-- hi -->\n  <key>a &amp; b</key>\n  <string>x</string>\n  <key>n</key><integer>3</integer>\n  <key>d</key><dict><key>e</key><string/></dict>\n</dict>\n</plist>\n",
        )
        .unwrap();
        let Plist::Dict(entries) = &plist else {
            panic!()
        };
        assert_eq!(entries[0].key, "a & b");
        assert_eq!(entries[0].comment.as_deref(), Some("hi"));
        assert_eq!(entries[0].line, 5);
        assert_eq!(entries[1].value, Plist::Other("integer".into()));
        assert_eq!(
            plist.get("d").and_then(|d| d.get("e")),
            Some(&Plist::String(String::new()))
        );
    }
}
