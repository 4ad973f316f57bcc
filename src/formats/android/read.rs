//! android `res/values*/*.xml`: `<string>` and `<plurals>` read as aapt2 compiles them
//! (trimmed, `"…"` keeping spaces, runs of spaces collapsed, `\n`, `\t`, `\'`, `\"`,
//! `\@`, `\uXXXX` undone), each with the comment aapt2 keeps (the last one before it).
//! Not carried, and listed: `<string-array>` and other arrays, `translatable="false"`
//! strings, strings for another `product`, references (`@string/x`), and markup (`<b>`,
//! `<xliff:g>`: the text is kept without its tags).

use quick_xml::events::{BytesStart, Event};

use crate::formats::reading::{Key, Reading, SyntaxError, Unit, Value};
use crate::formats::shared::syntax::{self, Printf};
use crate::formats::shared::utf16;
use crate::formats::shared::xml::{self, Lines};
use crate::model::PluralCategory;

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let mut reader = xml::reader(text);
    let mut lines = Lines::new(text);
    let mut comment: Option<String> = None;
    let mut depth = 0usize;
    loop {
        let (start, event) = xml::next(&mut reader, &mut lines)?;
        match event {
            Event::Comment(c) => comment = Some(c.xml10_content().trim().to_owned()),
            Event::Start(e) if depth == 0 => {
                if e.name().as_ref() != "resources" {
                    return Err(xml::error(
                        &reader,
                        &mut lines,
                        format!("<{}> where <resources> was expected", xml::name(&e)),
                    ));
                }
                depth = 1;
                // a comment before <resources> (a licence header) belongs to no string
                comment = None;
            }
            Event::Start(e) => {
                let line = lines.at(start);
                let comment = comment.take();
                match e.name().as_ref() {
                    "string" => string(&e, &mut reader, &mut lines, line, comment, r)?,
                    "plurals" => plurals(&e, &mut reader, &mut lines, line, comment, r)?,
                    "string-array" | "array" | "integer-array" => {
                        let name = xml::attr(&e, "name")
                            .unwrap_or_default()
                            .unwrap_or_default();
                        let what = xml::name(&e);
                        xml::skip(&mut reader, &mut lines)?;
                        r.note(
                            line,
                            &name,
                            format!(
                                "<{what}> is not carried: the sheet holds texts and plurals only"
                            ),
                        );
                    }
                    _ => xml::skip(&mut reader, &mut lines)?,
                }
            }
            Event::Empty(e) => {
                let line = lines.at(start);
                comment = None;
                if e.name().as_ref() == "string" {
                    let name = xml::attr(&e, "name")
                        .unwrap_or_default()
                        .unwrap_or_default();
                    r.note(
                        line,
                        &name,
                        "an empty text is not carried: an empty cell means no text",
                    );
                }
            }
            Event::End(_) => depth = 0,
            Event::Eof => return Ok(()),
            _ => {}
        }
    }
}

/// The `name` attribute, and whether the element is one to read; notes why not.
fn name_of(e: &BytesStart<'_>, line: usize, r: &mut Reading<'_>) -> Result<Option<String>, String> {
    let Some(name) = xml::attr(e, "name")? else {
        r.note(
            line,
            "",
            format!("<{}> without a name is skipped", xml::name(e)),
        );
        return Ok(None);
    };
    if xml::attr(e, "translatable")?.as_deref() == Some("false") {
        r.note(
            line,
            &name,
            "translatable=\"false\": not a text to translate, not carried",
        );
        return Ok(None);
    }
    if let Some(product) = xml::attr(e, "product")?
        && product != "default"
    {
        r.note(
            line,
            &name,
            format!("the text for product \"{product}\" is not carried (one text per locale)"),
        );
        return Ok(None);
    }
    Ok(Some(name))
}

fn string(
    e: &BytesStart<'_>,
    reader: &mut quick_xml::Reader<&[u8]>,
    lines: &mut Lines<'_>,
    line: usize,
    comment: Option<String>,
    r: &mut Reading<'_>,
) -> Result<(), SyntaxError> {
    let name = name_of(e, line, r).map_err(|m| SyntaxError::new(line, m))?;
    let content = xml::content(reader, lines)?;
    let Some(name) = name else {
        return Ok(());
    };
    let Some(text) = compiled(&content, &name, line, r)? else {
        return Ok(());
    };
    let converted = r.converted(text, |t| syntax::printf(t, Printf::Java, false));
    r.push(
        Unit {
            key: Key::Flat(name),
            value: Value::Text(converted.text),
            comment,
            locale: None,
            line,
        },
        converted.losses,
    );
    Ok(())
}

fn plurals(
    e: &BytesStart<'_>,
    reader: &mut quick_xml::Reader<&[u8]>,
    lines: &mut Lines<'_>,
    line: usize,
    comment: Option<String>,
    r: &mut Reading<'_>,
) -> Result<(), SyntaxError> {
    let name = name_of(e, line, r).map_err(|m| SyntaxError::new(line, m))?;
    let mut forms = Vec::new();
    let mut losses = Vec::new();
    loop {
        let (start, event) = xml::next(reader, lines)?;
        match event {
            Event::Start(item) if item.name().as_ref() == "item" => {
                let item_line = lines.at(start);
                let quantity =
                    xml::attr(&item, "quantity").map_err(|m| SyntaxError::new(item_line, m))?;
                let content = xml::content(reader, lines)?;
                let Some(name) = &name else { continue };
                let category = quantity.as_deref().and_then(PluralCategory::from_name);
                let Some(category) = category else {
                    r.note(
                        item_line,
                        name,
                        format!(
                            "an <item> of quantity {quantity:?} is not a CLDR category: not carried"
                        ),
                    );
                    continue;
                };
                let Some(text) = compiled(&content, name, item_line, r)? else {
                    continue;
                };
                let mut converted = r.converted(text, |t| syntax::printf(t, Printf::Java, true));
                losses.append(&mut converted.losses);
                forms.push((category, converted.text));
            }
            Event::Start(_) => xml::skip(reader, lines)?,
            Event::End(_) => break,
            Event::Eof => return Err(xml::error(reader, lines, "the file ends inside <plurals>")),
            _ => {}
        }
    }
    if let Some(name) = name
        && !forms.is_empty()
    {
        r.push(
            Unit {
                key: Key::Flat(name),
                value: Value::Plural(forms),
                comment,
                locale: None,
                line,
            },
            losses,
        );
    }
    Ok(())
}

/// The text aapt2 makes of an element's content; `None` (with a note) when it is no text
/// the sheet can hold.
fn compiled(
    content: &xml::Content,
    name: &str,
    line: usize,
    r: &mut Reading<'_>,
) -> Result<Option<String>, SyntaxError> {
    if !content.children.is_empty() {
        let mut tags: Vec<&str> = content.children.iter().map(String::as_str).collect();
        tags.dedup();
        r.note(
            line,
            name,
            format!(
                "markup <{}> is not carried: the text is kept without its tags",
                tags.join(">, <")
            ),
        );
    }
    let compiled = aapt2_text(&content.text).map_err(|m| SyntaxError::new(line, m).in_key(name))?;
    Ok(match compiled {
        Compiled::Text(text) if text.is_empty() => {
            r.note(
                line,
                name,
                "an empty text is not carried: an empty cell means no text",
            );
            None
        }
        Compiled::Text(text) => Some(text),
        Compiled::Reference(reference) => {
            r.note(
                line,
                name,
                format!(
                    "'{reference}' is a reference to another resource, not a text: not carried"
                ),
            );
            None
        }
    })
}

enum Compiled {
    Text(String),
    Reference(String),
}

fn aapt_space(c: char) -> bool {
    // C isspace() in the C locale
    matches!(c, ' ' | '\t' | '\n' | '\u{B}' | '\u{C}' | '\r')
}

/// aapt2's `ResourceParser` for a string's raw text: trimmed; `@…`/`?…` is a reference;
/// then quotes keep whitespace, runs of whitespace outside them become one space, and
/// backslash escapes are undone. A `\uXXXX` surrogate without its other half is refused
/// (aapt and aapt2 drop it silently).
fn aapt2_text(raw: &str) -> Result<Compiled, String> {
    let trimmed = raw.trim_matches(aapt_space);
    if (trimmed.starts_with('@') || trimmed.starts_with('?')) && trimmed.len() > 1 {
        return Ok(Compiled::Reference(trimmed.to_owned()));
    }
    // most texts hold no escape, quote or run of white space: taken as they are
    let plain = !trimmed
        .bytes()
        .any(|b| matches!(b, b'\\' | b'"' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C))
        && !trimmed.contains("  ");
    if plain {
        return Ok(Compiled::Text(trimmed.to_owned()));
    }
    let mut out = String::with_capacity(trimmed.len());
    let mut quote = false;
    let mut last_was_space = false;
    let mut chars = trimmed.chars();
    while let Some(c) = chars.next() {
        if !quote && aapt_space(c) {
            if !last_was_space {
                out.push(' ');
                last_was_space = true;
            }
            continue;
        }
        last_was_space = false;
        match c {
            '\\' => match chars.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some('u') => match hex_unit(chars.as_str()) {
                    Some(unit) => {
                        chars.nth(3);
                        // a character past U+FFFF comes as two escapes, its surrogate
                        // pair (joined, as aapt joins them)
                        let low = chars.as_str().strip_prefix("\\u").and_then(hex_unit);
                        match low.and_then(|low| utf16::pair(unit, low)) {
                            Some(c) => {
                                out.push(c);
                                chars.nth(5);
                            }
                            None => out.push(utf16::single(unit, "\\u")?),
                        }
                    }
                    None => out.push('u'),
                },
                Some(other) => out.push(other),
                None => {}
            },
            '"' => quote = !quote,
            c => out.push(c),
        }
    }
    Ok(Compiled::Text(out))
}

/// The UTF-16 unit of the four hex digits `text` starts with.
fn hex_unit(text: &str) -> Option<u16> {
    let hex = text.get(..4)?;
    hex.bytes()
        .all(|b| b.is_ascii_hexdigit())
        .then(|| u16::from_str_radix(hex, 16).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Options;

    fn units(xml: &str) -> (Vec<Unit>, Vec<(usize, String, String)>) {
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(xml, &mut r).unwrap();
        (r.units, r.notes)
    }

    #[test]
    fn strings_read_as_aapt2_compiles_them() {
        let (units, notes) = units(
            r#"<?xml version="1.0" encoding="utf-8"?>
<resources>
    <!-- Greeting -->
    <string name="hello">Hello, %1$s! It\'s \"here\" \\ \@ &amp; &lt;
      spaced</string>
    <string name="quoted">"  two  spaces "</string>
    <string name="uni">\u00e9\n\tx</string>
    <plurals name="files">
        <item quantity="one">%d file</item>
        <item quantity="other">%d files</item>
    </plurals>
    <string-array name="planets"><item>Mercury</item></string-array>
    <string name="fixed" translatable="false">v1</string>
    <string name="ref">@string/hello</string>
    <string name="bold">Hi <b>there</b> <xliff:g id="n">%1$d</xliff:g></string>
    <string name="empty"></string>
</resources>
"#,
        );
        let texts: Vec<(String, Value, Option<String>)> = units
            .into_iter()
            .map(|u| (u.key.display(), u.value, u.comment))
            .collect();
        let text = |s: &str| Value::Text(s.to_owned());
        assert_eq!(
            texts,
            vec![
                (
                    "hello".into(),
                    text("Hello, {arg1}! It's \"here\" \\ @ & < spaced"),
                    Some("Greeting".into())
                ),
                ("quoted".into(), text("  two  spaces "), None),
                ("uni".into(), text("é\n\tx"), None),
                (
                    "files".into(),
                    Value::Plural(vec![
                        (
                            PluralCategory::One,
                            "{count} files".replace("files", "file")
                        ),
                        (PluralCategory::Other, "{count} files".into())
                    ]),
                    None
                ),
                ("bold".into(), text("Hi there {arg1:int}"), None),
            ]
        );
        let noted: Vec<&str> = notes.iter().map(|(_, key, _)| key.as_str()).collect();
        assert_eq!(noted, ["planets", "fixed", "ref", "bold", "empty"]);
    }

    #[test]
    fn a_surrogate_without_its_other_half_is_refused_by_line_and_key_and_a_pair_decodes() {
        let options = Options::default();
        let refused = |xml: &str| {
            let mut r = Reading::new(&options);
            let e = read(xml, &mut r).unwrap_err();
            (e.line, e.message)
        };
        let (line, message) = refused(
            "<resources>\n<string name=\"a\">ok</string>\n<string name=\"b\">x\\uD800y</string>\n</resources>",
        );
        assert_eq!(line, 3);
        assert_eq!(
            message,
            "key \"b\": \\uD800 is the first half of a UTF-16 surrogate pair, and its second half \
             does not follow it: write the character itself, or both halves (\\uD83D\\uDE00 is \
             U+1F600)"
        );
        let (_, message) = refused(
            "<resources><plurals name=\"p\"><item quantity=\"other\">\\uDE00\\uD83D</item></plurals></resources>",
        );
        assert!(
            message.starts_with("key \"p\": \\uDE00 is the second half of a UTF-16"),
            "{message}"
        );
        let (units, _) =
            units("<resources><string name=\"e\">ok\\uD83D\\uDE00 \\u00e9</string></resources>");
        assert_eq!(units[0].value, Value::Text("ok😀 é".into()));
    }
}
