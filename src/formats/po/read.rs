//! gettext po: the header's `Language` and `Plural-Forms`, then per entry `msgctxt`,
//! `msgid`, `msgstr` (the key is the context when it is the id, as depot writes them, else
//! id; a different context is a level above it), plural entries' `msgstr[N]` mapped to
//! CLDR categories by gettext's own formula for the locale (when the header states the same
//! number of forms; a formula without an `other` slot, as Polish's, gives its last slot's
//! text to `other` as well; a header with as many forms as CLDR has categories, as
//! Weblate's Polish `nplurals=4`, maps them in CLDR's order), `#.` comments. Texts are taken as they are: depot's po carries the
//! sheet's `{name}` syntax. Listed: fuzzy entries (msgfmt leaves them out), obsolete
//! `#~` entries, translator comments (`# `); untranslated messages (an empty msgstr) as
//! kept in the app.

use crate::formats::reading::{Key, Reading, SyntaxError, Unit, Value};
use crate::model::PluralCategory;
use crate::model::plurals;

#[derive(Default)]
struct Entry {
    line: usize,
    context: Option<String>,
    id: Option<String>,
    plural_id: Option<String>,
    strs: Vec<(usize, String)>,
    comment: Vec<String>,
    translator_comment: bool,
    fuzzy: bool,
    obsolete: bool,
}

/// Which string a continuation line `"…"` adds to.
#[derive(Clone, Copy)]
enum Field {
    None,
    Context,
    Id,
    PluralId,
    Str(usize),
}

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let mut entries = Vec::new();
    let mut entry = Entry::default();
    let mut field = Field::None;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let (line, obsolete) = match line.strip_prefix("#~") {
            // `#~| msgid "…"`: the previous msgid of an obsolete entry (msgmerge writes it),
            // a comment as `#|` is, not the entry's own msgid
            Some(rest) if rest.starts_with('|') => ("#|", true),
            Some(rest) => (rest.trim_start(), true),
            None => (line, false),
        };
        if let Some(comment) = line.strip_prefix('#') {
            // a comment after a string starts the next entry
            if entry.id.is_some() && !matches!(field, Field::None) {
                entries.push(std::mem::take(&mut entry));
                field = Field::None;
            }
            match comment.chars().next() {
                Some('.') => {
                    let text = &comment[1..];
                    entry
                        .comment
                        .push(text.strip_prefix(' ').unwrap_or(text).to_owned());
                }
                Some(',') => entry.fuzzy |= comment[1..].split(',').any(|f| f.trim() == "fuzzy"),
                Some(':' | '|') => {}
                _ => entry.translator_comment |= !comment.trim().is_empty(),
            }
            if entry.line == 0 {
                entry.line = line_no;
            }
            continue;
        }
        if line.starts_with('"') {
            let value = unquote(line).map_err(|m| SyntaxError::new(line_no, m))?;
            match field {
                Field::Context => push_to(&mut entry.context, &value),
                Field::Id => push_to(&mut entry.id, &value),
                Field::PluralId => push_to(&mut entry.plural_id, &value),
                Field::Str(i) => {
                    if let Some((_, s)) = entry.strs.iter_mut().find(|(n, _)| *n == i) {
                        s.push_str(&value);
                    }
                }
                Field::None => {
                    return Err(SyntaxError::new(
                        line_no,
                        "a string that follows no keyword",
                    ));
                }
            }
            continue;
        }
        let (keyword, rest) = line
            .split_once(|c: char| c.is_whitespace())
            .ok_or_else(|| {
                SyntaxError::new(
                    line_no,
                    format!("expected a keyword and a string, got {line:?}"),
                )
            })?;
        let value = unquote(rest.trim()).map_err(|m| SyntaxError::new(line_no, m))?;
        // msgctxt or msgid after a msgstr starts the next entry
        let starts_entry = matches!(keyword, "msgctxt" | "msgid");
        if starts_entry && !entry.strs.is_empty() {
            entries.push(std::mem::take(&mut entry));
        }
        if entry.line == 0 {
            entry.line = line_no;
        }
        entry.obsolete |= obsolete;
        field = match keyword {
            "msgctxt" => {
                entry.context = Some(value);
                Field::Context
            }
            "msgid" => {
                entry.id = Some(value);
                Field::Id
            }
            "msgid_plural" => {
                entry.plural_id = Some(value);
                Field::PluralId
            }
            "msgstr" => {
                entry.strs.push((0, value));
                Field::Str(0)
            }
            k => match k
                .strip_prefix("msgstr[")
                .and_then(|n| n.strip_suffix(']'))
                .and_then(|n| n.parse().ok())
            {
                Some(n) => {
                    entry.strs.push((n, value));
                    Field::Str(n)
                }
                None => return Err(SyntaxError::new(line_no, format!("unknown keyword {k:?}"))),
            },
        };
    }
    if entry.id.is_some() {
        entries.push(entry);
    }
    let mut header = Header::default();
    for entry in entries {
        if entry.id.as_deref() == Some("") && entry.context.is_none() {
            header = Header::parse(entry.strs.first().map_or("", |(_, s)| s.as_str()));
            r.locale = header.language.clone();
            continue;
        }
        add(entry, &header, r);
    }
    Ok(())
}

fn push_to(slot: &mut Option<String>, value: &str) {
    slot.get_or_insert_with(String::new).push_str(value);
}

#[derive(Default)]
struct Header {
    language: Option<String>,
    nplurals: Option<usize>,
}

impl Header {
    fn parse(text: &str) -> Header {
        let mut header = Header::default();
        for line in text.lines() {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match name.trim() {
                "Language" if !value.is_empty() => header.language = Some(value.to_owned()),
                "Plural-Forms" => {
                    header.nplurals = value
                        .split(';')
                        .find_map(|part| part.trim().strip_prefix("nplurals="))
                        .and_then(|n| n.trim().parse().ok());
                }
                _ => {}
            }
        }
        header
    }
}

/// What a message with an empty msgstr is: untranslated, which gettext answers with the
/// msgid (msgfmt leaves it out of the .mo). The sheet holds no text for it, and generate,
/// patching the app's file message by message, leaves it there as it is.
const UNTRANSLATED: &str = "untranslated message(s) (msgstr \"\")";

fn add(entry: Entry, header: &Header, r: &mut Reading<'_>) {
    let id = entry.id.clone().unwrap_or_default();
    let key = match &entry.context {
        Some(context) if *context != id => Key::Path(vec![context.clone(), id.clone()]),
        // depot's own files: msgctxt and msgid both the name
        Some(_) => Key::Flat(id.clone()),
        // an app's msgid alone, what its gettext() asks for: one level, told apart from
        // depot's own (import keeps it as the key's name, SPEC §12.1)
        None => Key::Path(vec![id.clone()]),
    };
    let shown = key.display();
    if entry.obsolete {
        r.note(entry.line, &shown, "an obsolete (#~) entry is not carried");
        return;
    }
    if entry.fuzzy {
        r.note(
            entry.line,
            &shown,
            "a fuzzy entry is not carried: msgfmt leaves it out too",
        );
        return;
    }
    if entry.translator_comment {
        r.note(
            entry.line,
            &shown,
            "a translator comment (# …) is not carried; #. comments are",
        );
    }
    let comment = (!entry.comment.is_empty()).then(|| entry.comment.join("\n"));
    let value = if entry.plural_id.is_some() {
        let locale = r.named.clone().or_else(|| header.language.clone());
        let rule = locale.as_deref().map(plurals::gettext);
        let cldr = locale.as_deref().and_then(plurals::categories);
        let slots: &[PluralCategory] = match (rule, header.nplurals) {
            (Some(rule), Some(n)) if rule.slots.len() == n => rule.slots,
            (Some(rule), None) => rule.slots,
            (_, Some(1)) => &[PluralCategory::Other],
            (_, Some(2)) => &[PluralCategory::One, PluralCategory::Other],
            // a slot per CLDR category, in CLDR's order (Weblate's and Transifex's Polish
            // nplurals=4): the sheet says so (po=cldr) and generate writes them so
            (_, Some(n)) if cldr.as_ref().is_some_and(|c| c.len() == n) => {
                r.implies.po_cldr = true;
                cldr.as_deref().unwrap_or_default()
            }
            (_, n) => {
                r.note(
                    entry.line,
                    &shown,
                    format!(
                        "the plural forms ({} of them) cannot be matched to CLDR categories without gettext's formula for the locale: not carried",
                        n.map_or("an unknown number".to_owned(), |n| n.to_string())
                    ),
                );
                return;
            }
        };
        let text_of = |slot: usize| {
            entry
                .strs
                .iter()
                .find(|(n, _)| *n == slot)
                .map(|(_, s)| s.as_str())
                .filter(|s| !s.is_empty())
        };
        let other = slots
            .iter()
            .position(|c| *c == PluralCategory::Other)
            .and_then(text_of);
        // a slot holding `other`'s text is depot filling a category the sheet lacks
        let forms: Vec<(PluralCategory, String)> = slots
            .iter()
            .enumerate()
            .filter_map(|(slot, &category)| {
                let text = text_of(slot)?;
                let filled = category != PluralCategory::Other && Some(text) == other;
                (!filled).then(|| (category, text.to_owned()))
            })
            .collect();
        if forms.is_empty() {
            r.keep(entry.line, &shown, UNTRANSLATED);
            return;
        }
        Value::Plural(with_other(forms, slots))
    } else {
        match entry.strs.first() {
            Some((_, text)) if !text.is_empty() => Value::Text(text.clone()),
            _ => {
                r.keep(entry.line, &shown, UNTRANSLATED);
                return;
            }
        }
    };
    r.units.push(Unit {
        key,
        value,
        comment,
        locale: None,
        line: entry.line,
    });
}

/// A sheet's plural needs `other` (every format falls back to it). Some gettext formulas
/// have no slot for it: Polish's three forms cover every whole number, and CLDR keeps
/// `other` for fractions, which gettext never counts. The formula's last slot is its
/// catch-all, so its text becomes `other`; the entry would otherwise be left out of every
/// format, po included. depot's po writes the same text back to that slot, so a round trip
/// gives the same sheet.
fn with_other(
    mut forms: Vec<(PluralCategory, String)>,
    slots: &[PluralCategory],
) -> Vec<(PluralCategory, String)> {
    if slots.contains(&PluralCategory::Other) {
        return forms;
    }
    let catch_all = slots
        .last()
        .and_then(|last| forms.iter().find(|(c, _)| c == last))
        .map(|(_, text)| text.clone());
    if let Some(text) = catch_all {
        forms.push((PluralCategory::Other, text));
    }
    forms
}

/// A po string literal `"…"` with C escapes undone.
fn unquote(s: &str) -> Result<String, String> {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .ok_or_else(|| format!("expected a quoted string, got {s:?}"))?;
    let mut out = Vec::with_capacity(inner.len());
    let b = inner.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let Some(&e) = b.get(i) else {
            return Err("a string ends with a backslash".to_owned());
        };
        i += 1;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(0x7),
            b'b' => out.push(0x8),
            b'f' => out.push(0xC),
            b'v' => out.push(0xB),
            b'0'..=b'7' => {
                let mut value = u32::from(e - b'0');
                for _ in 0..2 {
                    match b.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(
                    u8::try_from(value).map_err(|_| "an octal escape above \\377".to_owned())?,
                );
            }
            b'x' => {
                let digits = b[i..]
                    .iter()
                    .take(2)
                    .take_while(|d| d.is_ascii_hexdigit())
                    .count();
                let hex = std::str::from_utf8(&b[i..i + digits]).unwrap_or("0");
                out.push(
                    u8::from_str_radix(hex, 16)
                        .map_err(|_| "a \\x escape without digits".to_owned())?,
                );
                i += digits;
            }
            // not C's, and msgfmt refuses them ("invalid control sequence"): a \uD800 read as
            // `uD800` would change the text without a word
            b'u' | b'U' => {
                return Err(
                    "po strings have no \\u escape (msgfmt refuses it): write the character itself"
                        .to_owned(),
                );
            }
            other => out.push(other),
        }
    }
    String::from_utf8(out).map_err(|_| "an escape makes the string invalid UTF-8".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Options;

    #[test]
    fn four_polish_forms_are_cldrs_categories_in_order_and_the_reading_says_so() {
        let po = r#"msgid ""
msgstr ""
"Language: pl\n"
"Plural-Forms: nplurals=4; plural=(n==1 ? 0 : (n%10>=2 && n%10<=4) && (n%100<12 || n%100>14) ? 1 : n!=1 && (n%10>=0 && n%10<=1) || (n%10>=5 && n%10<=9) || (n%100>=12 && n%100<=14) ? 2 : 3);\n"

msgid "{count} torrent"
msgid_plural "{count} torrents"
msgstr[0] "{count} torrent"
msgstr[1] "{count} torrenty"
msgstr[2] "{count} torrentów"
msgstr[3] "{count} torrentu"
"#;
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(po, &mut r).unwrap();
        assert!(r.implies.po_cldr);
        assert!(r.notes.is_empty(), "{:?}", r.notes);
        assert_eq!(
            r.units[0].value,
            Value::Plural(vec![
                (PluralCategory::One, "{count} torrent".into()),
                (PluralCategory::Few, "{count} torrenty".into()),
                (PluralCategory::Many, "{count} torrentów".into()),
                (PluralCategory::Other, "{count} torrentu".into()),
            ])
        );
    }

    #[test]
    fn entries_plurals_comments_and_what_is_left_out() {
        let po = r#"# Translations
msgid ""
msgstr ""
"Language: pl_PL\n"
"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\n"

#. Greeting
#. two lines
msgctxt "hello"
msgid "hello"
msgstr "Cze\"ść\n"
"dalej \101"

msgctxt "files"
msgid "files"
msgid_plural "files"
msgstr[0] "{count} plik"
msgstr[1] "{count} pliki"
msgstr[2] "{count} pliki"

#, fuzzy
msgid "guess"
msgstr "zgadnij"

msgctxt "menu"
msgid "Open"
msgstr "Otwórz"

#~ msgid "old"
#~ msgstr "stary"
"#;
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(po, &mut r).unwrap();
        assert_eq!(r.locale.as_deref(), Some("pl_PL"));
        let got: Vec<(String, Value, Option<String>)> = r
            .units
            .into_iter()
            .map(|u| (u.key.display(), u.value, u.comment))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "hello".into(),
                    Value::Text("Cze\"ść\ndalej A".into()),
                    Some("Greeting\ntwo lines".into())
                ),
                (
                    "files".into(),
                    // Polish has no slot for `other` (CLDR's fractions): the formula's
                    // catch-all, `many`, gives it its text
                    Value::Plural(vec![
                        (PluralCategory::One, "{count} plik".into()),
                        (PluralCategory::Few, "{count} pliki".into()),
                        (PluralCategory::Many, "{count} pliki".into()),
                        (PluralCategory::Other, "{count} pliki".into()),
                    ]),
                    None
                ),
                ("menu.Open".into(), Value::Text("Otwórz".into()), None),
            ]
        );
        let noted: Vec<&str> = r.notes.iter().map(|(_, k, _)| k.as_str()).collect();
        assert_eq!(noted, ["guess", "old"]);
    }

    /// msgmerge keeps an obsolete entry's previous msgid as `#~| msgid "…"` (GNOME's
    /// gnome-clocks ar.po has one); the whole import failed on it ("expected a quoted
    /// string").
    #[test]
    fn an_obsolete_entrys_previous_msgid_is_a_comment() {
        let po = "msgid \"kept\"\nmsgstr \"zostaje\"\n\n#~| msgid \"Gnome Clocks\"\n#~ msgid \"org.gnome.clocks\"\n#~ msgstr \"org.gnome.clocks\"\n\n#~| msgctxt \"a\"\n#~| msgid \"b\"\n#~ msgid \"c\"\n#~ msgstr \"d\"\n";
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(po, &mut r).unwrap();
        let got: Vec<(String, Value)> = r
            .units
            .into_iter()
            .map(|u| (u.key.display(), u.value))
            .collect();
        assert_eq!(got, vec![("kept".into(), Value::Text("zostaje".into()))]);
        let noted: Vec<(usize, &str)> = r.notes.iter().map(|(l, k, _)| (*l, k.as_str())).collect();
        assert_eq!(noted, [(4, "org.gnome.clocks"), (8, "c")]);
    }

    #[test]
    fn a_u_escape_is_refused_as_msgfmt_refuses_it() {
        let options = Options::default();
        let mut r = Reading::new(&options);
        let e = read("msgid \"a\"\nmsgstr \"x\\uD800y\"\n", &mut r).unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (
                2,
                "po strings have no \\u escape (msgfmt refuses it): write the character itself"
            )
        );
    }
}
