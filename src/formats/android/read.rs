//! android `res/values*/*.xml`: `<string>` and `<plurals>` read as aapt2 compiles them
//! (trimmed, `"…"` keeping spaces, runs of spaces collapsed, `\n`, `\t`, `\'`, `\"`,
//! `\@`, `\uXXXX` undone), each with the comment aapt2 keeps (the last one before it).
//! Markup inside a string (`<b>`, `<font>`, `<annotation>`, `<xliff:g>`) stays in the
//! text as its tags (`markup`), unless the options say the sheet holds texts without them.
//! Left in the app's files by generate, and listed as such: `<string-array>` and other
//! arrays, `translatable="false"` strings, references (`@string/x`), empty strings. Not
//! carried, and listed: strings for another `product`.

use std::borrow::Cow;

use quick_xml::events::{BytesStart, Event};

use super::markup::{self, Node, Refused};
use crate::formats::reading::Markup;
use crate::formats::reading::{Key, Reading, SyntaxError, Unit, Value};
use crate::formats::shared::syntax::{self, Printf};
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
                        // the sheet holds texts and plurals only
                        r.keep(line, &name, format!("<{what}> element(s)"));
                    }
                    _ => xml::skip(&mut reader, &mut lines)?,
                }
                if r.options.markup == Markup::Probe && r.implies.android_markup {
                    // the file is read again as tags: the rest of this reading is not taken
                    return Ok(());
                }
            }
            Event::Empty(e) => {
                let line = lines.at(start);
                comment = None;
                if e.name().as_ref() == "string" {
                    let name = xml::attr(&e, "name")
                        .unwrap_or_default()
                        .unwrap_or_default();
                    r.keep(line, &name, EMPTY);
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
        r.keep(line, &name, "translatable=\"false\" string(s)");
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
    let content = markup::content(reader, lines)?;
    let Some(name) = name else {
        return Ok(());
    };
    let Some(text) = compiled(&content, &name, line, false, r)? else {
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
                let content = markup::content(reader, lines)?;
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
                let Some(text) = compiled(&content, name, item_line, true, r)? else {
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

/// What an empty string is, kept in the app's file (an empty cell means no text).
const EMPTY: &str = "empty string(s)";

/// The text aapt2 makes of an element's content (its markup as tags, `markup`); `None`
/// (with a note) when it is no text the sheet can hold. A `<string>` the sheet does not
/// hold is left in the app's file by generate; a plural's `<item>` (`item`) is not: the
/// sheet's forms replace the app's.
fn compiled(
    content: &[Node],
    name: &str,
    line: usize,
    item: bool,
    r: &mut Reading<'_>,
) -> Result<Option<String>, SyntaxError> {
    let syntax = |m: String| SyntaxError::new(line, m).in_key(name);
    let elements = markup::element_names(content);
    let mut tagged = None;
    if !elements.is_empty() {
        let without = |why: &str| {
            format!(
                "markup <{}> is not carried{why}: the text is kept without its tags",
                elements.join(">, <")
            )
        };
        let raw = markup::raw_text(content);
        let reference =
            !markup::styled(content) && matches!(aapt2_text(&raw), Ok(Compiled::Reference(_)));
        if !r.options.markup.tags() {
            // read as text first (most apps have no markup): markup that `Tags` would carry
            // asks import to read the files so (once the file is known to hold some, its
            // other strings need not be tagged to tell)
            if r.options.markup.detects()
                && !r.implies.android_markup
                && !reference
                && markup::tagged(content).is_ok()
            {
                r.implies.android_markup = true;
            }
            r.note(line, name, without(""));
        } else if !reference {
            match markup::tagged(content) {
                Ok(text) => {
                    if r.options.markup == Markup::Checked {
                        // where the text reading stops, so does this one
                        aapt2_text(&raw).map_err(syntax)?;
                    }
                    tagged = Some(text);
                }
                Err(Refused::Text(m)) => return Err(syntax(m)),
                Err(Refused::Markup(why)) => r.note(line, name, without(&format!(" ({why})"))),
            }
        }
    }
    let compiled = match tagged {
        Some(text) => {
            let empty = markup::markup(&text).is_some_and(|t| markup::plain(&t).is_empty());
            r.implies.android_markup = true;
            Compiled::Text(if empty { String::new() } else { text })
        }
        None => match aapt2_text(&markup::raw_text(content)).map_err(syntax)? {
            // as a sheet of markup holds text: a `<` of the text is `&lt;`
            Compiled::Text(text) if r.options.markup.tags() => match markup::escape(&text) {
                Cow::Borrowed(_) => Compiled::Text(text),
                Cow::Owned(escaped) => Compiled::Text(escaped),
            },
            compiled => compiled,
        },
    };
    Ok(match compiled {
        Compiled::Text(text) if text.is_empty() && item => {
            r.note(
                line,
                name,
                "an empty text is not carried: an empty cell means no text",
            );
            None
        }
        Compiled::Text(text) if text.is_empty() => {
            r.keep(line, name, EMPTY);
            None
        }
        Compiled::Text(text) => Some(text),
        Compiled::Reference(reference) if item => {
            r.note(
                line,
                name,
                format!(
                    "'{reference}' is a reference to another resource, not a text: not carried"
                ),
            );
            None
        }
        Compiled::Reference(_) => {
            // a reference to another resource, not a text
            r.keep(line, name, "reference(s) to another resource (@string/…)");
            None
        }
    })
}

enum Compiled {
    Text(String),
    Reference(String),
}

/// aapt2's `ResourceParser` for a string's raw text: trimmed; `@…`/`?…` is a reference;
/// then quotes keep whitespace, runs of whitespace outside them become one space, and
/// backslash escapes are undone (`markup::Run`).
fn aapt2_text(raw: &str) -> Result<Compiled, String> {
    let trimmed = raw.trim_matches(markup::aapt_space);
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
    markup::Run::default().append(trimmed, &mut out)?;
    Ok(Compiled::Text(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Options;

    fn units(xml: &str) -> (Vec<Unit>, Vec<(usize, String, String)>) {
        let (units, mut notes, kept) = read_as(xml, true);
        notes.extend(kept);
        notes.sort();
        (units, notes)
    }

    /// The units, the notes and what is kept in the app (`markup`: `Options::markup`).
    type Read = (
        Vec<Unit>,
        Vec<(usize, String, String)>,
        Vec<(usize, String, String)>,
    );

    fn read_as(xml: &str, markup: bool) -> Read {
        let options = Options {
            markup: crate::formats::reading::Markup::of_sheet(markup),
            ..Options::default()
        };
        let mut r = Reading::new(&options);
        read(xml, &mut r).unwrap();
        (r.units, r.notes, r.kept)
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
                    // as a sheet of markup holds it: a `<` that is text is `&lt;`
                    text("Hello, {arg1}! It's \"here\" \\ @ & &lt; spaced"),
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
                (
                    "bold".into(),
                    text("Hi <b>there</b> <xliff:g id=\"n\">{arg1:int}</xliff:g>"),
                    None
                ),
            ]
        );
        let noted: Vec<&str> = notes.iter().map(|(_, key, _)| key.as_str()).collect();
        assert_eq!(noted, ["planets", "fixed", "ref", "empty"]);
    }

    const KEPT: &str = r#"<resources>
    <string-array name="planets"><item>Mercury</item></string-array>
    <string name="fixed" translatable="false">v1</string>
    <string name="ref">@string/hello</string>
    <string name="empty"></string>
    <string name="none"/>
    <string name="tablet" product="tablet">Big</string>
    <plurals name="files">
        <item quantity="one"></item>
        <item quantity="other">%d files</item>
    </plurals>
</resources>"#;

    /// What generate leaves in the app's file (every `<string>` and array the sheet lacks)
    /// is kept, not "not carried"; a plural's empty form is not (the sheet's forms replace
    /// the app's), nor a text for another product.
    #[test]
    fn what_generate_leaves_in_the_app_is_kept_and_named_by_kind() {
        let (_, notes, kept) = read_as(KEPT, true);
        let kept: Vec<(&str, &str)> = (kept.iter())
            .map(|(_, key, what)| (key.as_str(), what.as_str()))
            .collect();
        assert_eq!(
            kept,
            [
                ("planets", "<string-array> element(s)"),
                ("fixed", "translatable=\"false\" string(s)"),
                ("ref", "reference(s) to another resource (@string/…)"),
                ("empty", "empty string(s)"),
                ("none", "empty string(s)"),
            ]
        );
        let noted: Vec<&str> = notes.iter().map(|(_, key, _)| key.as_str()).collect();
        assert_eq!(noted, ["tablet", "files"]);
    }

    /// `android=markup` (SPEC §12.1): the tags stay in the text, and the sheet is told to
    /// say so; a `<` that is text is `&lt;`; without it (a sheet that holds texts alone),
    /// the text without its tags.
    #[test]
    fn markup_stays_in_the_text_as_tags_unless_the_sheet_holds_texts_alone() {
        let xml = r#"<resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
    <string name="on">Protections are <b>ON</b> for this site</string>
    <string name="tap">Tap <font color='#678fff'>Always</font>.</string>
    <string name="why">That\'s why <annotation type="chart">people choose us</annotation>.</string>
    <plurals name="n"><item quantity="other"><xliff:g id="n">%d</xliff:g> <i>items</i></item></plurals>
    <string name="literal">&lt;b&gt;not bold&lt;/b&gt;</string>
</resources>"#;
        let options = Options {
            markup: crate::formats::reading::Markup::Tags,
            ..Options::default()
        };
        let mut r = Reading::new(&options);
        read(xml, &mut r).unwrap();
        assert!(r.implies.android_markup);
        let texts: Vec<String> = (r.units.iter())
            .map(|u| match &u.value {
                Value::Text(t) => t.clone(),
                Value::Plural(forms) => forms[0].1.clone(),
            })
            .collect();
        assert_eq!(
            texts,
            [
                "Protections are <b>ON</b> for this site",
                "Tap <font color=\"#678fff\">Always</font>.",
                "That's why <annotation type=\"chart\">people choose us</annotation>.",
                "<xliff:g id=\"n\">{count}</xliff:g> <i>items</i>",
                // text that looks like a tag (for Html.fromHtml) stays text: `&lt;`
                "&lt;b&gt;not bold&lt;/b&gt;",
            ]
        );
        assert_eq!(r.notes, []);

        let (units, notes, _) = read_as(xml, false);
        assert_eq!(
            units[0].value,
            Value::Text("Protections are ON for this site".into())
        );
        assert_eq!(
            notes[0].2,
            "markup <b> is not carried: the text is kept without its tags"
        );
        assert_eq!(notes.len(), 4, "{notes:?}");
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

    mod modes {
        use super::*;
        use crate::formats::reading::Markup;
        use proptest::prelude::*;

        /// What a reading gives, or its error.
        type Got = Result<(Read, bool), (usize, String)>;

        fn read_in(xml: &str, markup: Markup) -> Got {
            let options = Options {
                markup,
                ..Options::default()
            };
            let mut r = Reading::new(&options);
            match read(xml, &mut r) {
                Ok(()) => Ok(((r.units, r.notes, r.kept), r.implies.android_markup)),
                Err(e) => Err((e.line, e.message)),
            }
        }

        /// Pieces of a string's content: text, escapes aapt2 takes or refuses (a `\u`
        /// cut short, a surrogate half), quotes, a `<` that is text, references, style
        /// spans, `<xliff:g>`, an element of a namespace aapt2 leaves out.
        const PIECES: [&str; 23] = [
            "a",
            " ",
            "  ",
            "\\n",
            "\\\"",
            "\"",
            "\\",
            "\\u00e9",
            "\\u00",
            "\\uD83D",
            "\\uDE00",
            "uD83D",
            "&lt;b&gt;",
            "&amp;lt;",
            "%1$s",
            "@string/x",
            "<b>",
            "</b>",
            "<i>x</i>",
            "<b/>",
            "<xliff:g id=\"n\">%d</xliff:g>",
            "<font color='#fff'>c</font>",
            "<x:y>z</x:y>",
        ];

        /// A `<resources>` file of strings (and a plural) made of pieces; unbalanced
        /// tags make XML errors, which every reading gives alike.
        fn file() -> impl Strategy<Value = String> {
            let content = prop::collection::vec(prop::sample::select(&PIECES[..]), 0..6)
                .prop_map(|pieces| pieces.concat());
            prop::collection::vec(content, 1..5).prop_map(|texts| {
                let mut xml = String::from(
                    "<resources xmlns:xliff=\"urn:oasis:names:tc:xliff:document:1.2\" xmlns:x=\"urn:x\">\n",
                );
                for (n, text) in texts.iter().enumerate() {
                    if n == 2 {
                        xml.push_str(&format!(
                            "<plurals name=\"p\"><item quantity=\"other\">{text}</item></plurals>\n"
                        ));
                    } else {
                        xml.push_str(&format!("<string name=\"s{n}\">{text}</string>\n"));
                    }
                }
                xml.push_str("</resources>\n");
                xml
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2048))]

            /// `import::read_files` reads a file as `Checked` in place of `Detect` and then
            /// `Tags`: it fails where either does, and else reads as `Tags`.
            #[test]
            fn checked_reads_as_tags_and_fails_where_detect_or_tags_does(xml in file()) {
                let detect = read_in(&xml, Markup::Detect);
                let tags = read_in(&xml, Markup::Tags);
                let checked = read_in(&xml, Markup::Checked);
                prop_assert_eq!(checked.is_ok(), detect.is_ok() && tags.is_ok(), "{:?}", xml);
                if let Ok(checked) = checked {
                    prop_assert_eq!(Ok(checked), tags);
                }
            }

            /// `Probe` reads a file as `Detect`, stopping at the first markup `Tags` would
            /// carry: it says so where `Detect` does, gives `Detect`'s reading of a file
            /// without such markup, and `Detect`'s error where it fails.
            #[test]
            fn probe_reads_as_detect_up_to_the_first_markup(xml in file()) {
                let detect = read_in(&xml, Markup::Detect);
                let probe = read_in(&xml, Markup::Probe);
                match (&probe, &detect) {
                    (Ok((_, true)), Ok((_, markup))) => prop_assert!(*markup),
                    // stopped at the markup, before what fails
                    (Ok((_, true)), Err(_)) => {}
                    _ => prop_assert_eq!(probe, detect),
                }
            }
        }

        /// Where `Detect` and `Tags` part (a tagged text whose text alone aapt2 refuses,
        /// and the other way round), `Checked` fails.
        #[test]
        fn where_detect_or_tags_fails_checked_fails() {
            let file =
                |text: &str| format!("<resources><string name=\"s\">{text}</string></resources>");
            // the halves of a pair in two spans: tags refuse, the text alone holds the pair
            let apart = file("\\uD83D<b>\\uDE00</b>");
            // an escape cut by a span: the text alone is a lone half, the tags hold none
            let cut = file("\\<b>uD83D</b>");
            for (xml, detect, tags) in [(apart, true, false), (cut, false, true)] {
                assert_eq!(read_in(&xml, Markup::Detect).is_ok(), detect, "{xml}");
                assert_eq!(read_in(&xml, Markup::Tags).is_ok(), tags, "{xml}");
                assert!(read_in(&xml, Markup::Checked).is_err(), "{xml}");
            }
        }
    }
}
