//! The formats apps ship today (xcstrings, arb, i18next) read back with the readers of
//! `app_readback` (Xcode's layout, ICU as formatjs reads it and Flutter's gen-l10n lexer,
//! i18next's interpolation): the hostile sheet, arbitrary texts and plural entries, name
//! clashes, and a real String Catalog rendered back byte for byte.

use proptest::prelude::*;

use super::app_readback::{
    Catalog, Message, Part, XcString, XcValue, gen_l10n_accepts_id, i18next_parts, read_arb,
    read_arb_message, read_i18next, read_xcstrings, xcode_compare,
};
use super::ordered_json::Json;
use super::tests::{
    arbitrary_doc, clashing_doc, entries_doc, hostile, hostile_string, only, plural_doc,
    render_str, some_of,
};
use super::*;
use crate::model::placeholders::{self, Piece};
use crate::model::{Entry, LocaleSelection, Plural, PluralCategory, PluralForm};

/// The formats of SPEC §11 this module reads (the generic round trips of `tests` read the
/// others).
pub(crate) const APP_FORMATS: [Format; 3] = [Format::Xcstrings, Format::Arb, Format::I18next];

// ------------------------------------------------------------------ expectations

/// A test locale's language as Apple and Flutter name it: `en_US` → `en-US`, a region
/// that repeats the language dropped (`de-DE` → `de`).
fn language(code: &str) -> String {
    match code.split(['_', '-']).collect::<Vec<_>>().as_slice() {
        [language, region] if language.eq_ignore_ascii_case(region) => language.to_string(),
        parts => parts.join("-"),
    }
}

/// A test locale as i18next names it: `pl_PL` → `pl-PL`.
fn lng(code: &str) -> String {
    code.replace('_', "-")
}

/// The entries a locale of `sel` shows (selected, with a text there).
fn shown(doc: &Document, ls: &LocaleSelection) -> Vec<usize> {
    (ls.entries.iter().copied())
        .filter(|&e| doc.entries[e].texts[ls.locale].is_some())
        .collect()
}

fn locales_shown<'s>(doc: &Document, sel: &'s Selection) -> Vec<&'s LocaleSelection> {
    (sel.locales.iter())
        .filter(|ls| !shown(doc, ls).is_empty())
        .collect()
}

/// The (category, text) forms of entry `e` in `locale`, or its text.
fn content(doc: &Document, e: usize, locale: usize) -> Result<&str, Vec<(PluralCategory, &str)>> {
    let entry = &doc.entries[e];
    match &entry.plural {
        None => Ok(entry.texts[locale].as_deref().unwrap_or_default()),
        Some(plural) => Err(plural.forms_in(locale).collect()),
    }
}

/// The catalog a String Catalog of `sel` must hold, with texts as the sheet has them
/// (`placeholders=keep`): names as ios lower-cases them, everything in Xcode's order.
fn expected_catalog(doc: &Document, sel: &Selection, opts: &RenderOptions) -> Catalog {
    let mut strings: Vec<XcString> = Vec::new();
    for ls in locales_shown(doc, sel) {
        for e in shown(doc, ls) {
            let entry = &doc.entries[e];
            let name: String = entry
                .path
                .join("_")
                .chars()
                .flat_map(char::to_lowercase)
                .collect();
            let value = match content(doc, e, ls.locale) {
                Ok(text) => XcValue::Text(text.to_owned()),
                Err(forms) => {
                    let mut forms: Vec<(String, String)> = (forms.into_iter())
                        .map(|(c, t)| (c.name().to_owned(), t.to_owned()))
                        .collect();
                    forms.sort_by(|a, b| xcode_compare(&a.0, &b.0));
                    XcValue::Plural(forms)
                }
            };
            let string = match strings.iter_mut().find(|s| s.name == name) {
                Some(string) => string,
                None => {
                    strings.push(XcString {
                        name,
                        comment: entry.comment.clone().filter(|_| opts.comments),
                        localizations: Vec::new(),
                    });
                    strings.last_mut().unwrap()
                }
            };
            string
                .localizations
                .push((language(&doc.locales[ls.locale]), value));
        }
    }
    for string in &mut strings {
        string
            .localizations
            .sort_by(|a, b| xcode_compare(&a.0, &b.0));
    }
    strings.sort_by(|a, b| xcode_compare(&a.name, &b.name));
    Catalog {
        source_language: opts
            .base_locale
            .map_or("en".to_owned(), |b| language(&doc.locales[b])),
        strings,
    }
}

/// What the sheet's text means: literal text (doubled braces as one) and placeholders by
/// name; a text whose braces do not parse is all literal.
fn meaning(text: &str) -> Vec<Part> {
    let Ok(pieces) = placeholders::parse(text) else {
        return vec![Part::Text(text.to_owned())]
            .into_iter()
            .filter(|_| !text.is_empty())
            .collect();
    };
    let mut parts: Vec<Part> = Vec::new();
    for piece in pieces {
        let literal = match piece {
            Piece::Literal(s) => s.to_owned(),
            Piece::Brace(c) => c.to_string(),
            Piece::Placeholder { name, .. } => {
                parts.push(Part::Arg(name.to_owned()));
                continue;
            }
        };
        match parts.last_mut() {
            Some(Part::Text(last)) => last.push_str(&literal),
            _ => parts.push(Part::Text(literal)),
        }
    }
    parts
}

/// The meaning of entry `e` in `locale` as an ARB message.
fn expected_message(doc: &Document, e: usize, locale: usize) -> Message {
    match content(doc, e, locale) {
        Ok(text) => Message::Plain(meaning(text)),
        Err(forms) => Message::Plural {
            arg: "count".into(),
            forms: (forms.into_iter())
                .map(|(c, t)| (c.name().to_owned(), meaning(t)))
                .collect(),
        },
    }
}

/// Whether Flutter's lexer cannot read a text ARB must write (the renderer refuses it):
/// an apostrophe right before a literal brace (or, in a plural form, `#`) that does not
/// follow another such character.
fn flutter_cannot_read(text: &str, plural: bool) -> bool {
    let chars: Vec<(char, bool)> = match placeholders::parse(text) {
        Ok(pieces) => pieces
            .into_iter()
            .flat_map(|piece| match piece {
                Piece::Literal(s) => s.chars().map(|c| (c, c == '#' && plural)).collect(),
                Piece::Brace(c) => vec![(c, true)],
                // a placeholder ends a run of literal text
                Piece::Placeholder { .. } => vec![('\0', false)],
            })
            .collect(),
        Err(_) => text
            .chars()
            .map(|c| (c, "{}".contains(c) || (c == '#' && plural)))
            .collect(),
    };
    let mut quoted = false;
    let mut after_apostrophe = false;
    for (c, special) in chars {
        if c == '\'' {
            after_apostrophe = !quoted;
            continue;
        }
        if special && !quoted && after_apostrophe {
            return true;
        }
        quoted = special || (quoted && c == '\'');
        after_apostrophe = false;
    }
    false
}

/// The leaves an i18next body of one locale must hold, in tree order (sections by first
/// appearance), a plural entry as one leaf per form.
/// The leaves i18next must read for `ls`, in the order of the render's one tree for every
/// shown locale (as json's): a section sits where its first key with a text in any of
/// `all` does, so every locale's file lists the sections alike.
fn expected_i18next(
    doc: &Document,
    all: &[&LocaleSelection],
    ls: &LocaleSelection,
) -> Vec<(Vec<String>, String)> {
    let mut entries = shown(doc, ls);
    let first_of = |e: usize| {
        let section = &doc.entries[e].path[..doc.entries[e].path.len() - 1];
        (0..doc.entries.len())
            .find(|&o| {
                all.iter().any(|ls| entries_contains(doc, ls, o))
                    && doc.entries[o].path.starts_with(section)
            })
            .unwrap_or(e)
    };
    entries.sort_by_key(|&e| (first_of(e), e));
    let mut leaves = Vec::new();
    for e in entries {
        let path = &doc.entries[e].path;
        match content(doc, e, ls.locale) {
            Ok(text) => leaves.push((path.clone(), text.to_owned())),
            Err(forms) => {
                for (category, text) in forms {
                    let mut path = path.clone();
                    let last = path.pop().unwrap_or_default();
                    path.push(format!("{last}_{}", category.name()));
                    leaves.push((path, text.to_owned()));
                }
            }
        }
    }
    leaves
}

fn entries_contains(doc: &Document, ls: &LocaleSelection, e: usize) -> bool {
    ls.entries.contains(&e) && doc.entries[e].texts[ls.locale].is_some()
}

/// What i18next must read in a text `placeholders=convert` wrote: its meaning, `{{name}}`
/// for each placeholder; `None` when i18next cannot read it so (the renderer refuses it).
fn i18next_reading(text: &str) -> Option<Vec<Part>> {
    let meaning = meaning(text);
    // the conversion, written out here: literal text as it is, placeholders as {{name}}
    let written: String = match placeholders::parse(text) {
        Ok(pieces) => (pieces.into_iter())
            .map(|piece| match piece {
                Piece::Literal(s) => s.to_owned(),
                Piece::Brace(c) => c.to_string(),
                Piece::Placeholder { name, .. } => format!("{{{{{name}}}}}"),
            })
            .collect(),
        Err(_) => text.to_owned(),
    };
    (i18next_parts(&written).ok() == Some(meaning.clone())).then_some(meaning)
}

// ------------------------------------------------------------------ reading back

/// Renders `sel` in `format` and checks what the format's consumer reads: every shown text
/// exactly (or, for a refusal, that the consumer indeed could not read one of them).
fn assert_app_round_trip(doc: &Document, sel: &Selection, format: Format, opts: &RenderOptions) {
    let rendered = render(doc, sel, format, opts);
    let shown_locales = locales_shown(doc, sel);
    let keyed = opts.keep_locale || shown_locales.len() > 1;
    let convert = opts.placeholders == PlaceholderMode::Convert;
    let texts = || {
        (shown_locales.iter()).flat_map(|ls| {
            shown(doc, ls)
                .into_iter()
                .flat_map(move |e| match content(doc, e, ls.locale) {
                    Ok(text) => vec![(text, false)],
                    Err(forms) => forms.into_iter().map(|(_, t)| (t, true)).collect(),
                })
        })
    };
    let rendered = match rendered {
        Ok(rendered) => rendered,
        Err(err) => {
            let justified = match format {
                Format::Arb => texts().any(|(t, plural)| flutter_cannot_read(t, plural)),
                Format::I18next => convert && texts().any(|(t, _)| i18next_reading(t).is_none()),
                _ => false,
            };
            assert!(justified, "{format} refused: {err}");
            assert!(
                matches!(&err, RenderError::UnrepresentableText { format: f, .. } if *f == format),
                "{err}"
            );
            return;
        }
    };
    let body = String::from_utf8(rendered.body).unwrap();
    let fail = |e: String| -> ! { panic!("{format}: {e}\n{body}") };
    if shown_locales.is_empty() && format != Format::Xcstrings {
        assert_eq!(body.trim_end(), "{}");
        return;
    }
    match format {
        Format::Xcstrings => {
            let read = read_xcstrings(&body).unwrap_or_else(|e| fail(e));
            assert_eq!(read, expected_catalog(doc, sel, opts), "{body}");
        }
        Format::Arb => {
            let json = Json::parse(&body);
            let files: Vec<(String, Json)> = if keyed {
                let Json::Map(files) = json else {
                    fail("not an object".into())
                };
                files
            } else {
                vec![(String::new(), json)]
            };
            assert_eq!(files.len(), shown_locales.len(), "{body}");
            for ((key, file), ls) in files.iter().zip(&shown_locales) {
                let arb = read_arb(file).unwrap_or_else(|e| fail(e));
                assert_eq!(
                    arb.locale,
                    language(&doc.locales[ls.locale]).replace('-', "_")
                );
                if keyed {
                    assert_eq!(key, &arb.locale);
                }
                let entries = shown(doc, ls);
                assert_eq!(arb.messages.len(), entries.len(), "{body}");
                for ((id, message), e) in arb.messages.iter().zip(entries) {
                    assert!(gen_l10n_accepts_id(id), "{id}");
                    let read = read_arb_message(message).unwrap_or_else(|e| fail(e));
                    assert_eq!(read, expected_message(doc, e, ls.locale), "{id}");
                }
            }
        }
        Format::I18next => {
            let json = Json::parse(&body);
            let resources: Vec<(String, Json)> = if keyed {
                let Json::Map(files) = json else {
                    fail("not an object".into())
                };
                files
            } else {
                vec![(String::new(), Json::Map(vec![("translation".into(), json)]))]
            };
            assert_eq!(resources.len(), shown_locales.len(), "{body}");
            for ((lng, namespaces), ls) in resources.iter().zip(&shown_locales) {
                if keyed {
                    assert_eq!(lng, &self::lng(&doc.locales[ls.locale]));
                }
                assert_eq!(namespaces.keys(), ["translation"]);
                let tree = serde_json::to_string(namespaces.get("translation")).unwrap();
                let leaves = read_i18next(&tree).unwrap_or_else(|e| fail(e));
                let want = expected_i18next(doc, &shown_locales, ls);
                let paths = |l: &[(Vec<String>, String)]| -> Vec<Vec<String>> {
                    l.iter().map(|(p, _)| p.clone()).collect()
                };
                assert_eq!(paths(&leaves), paths(&want), "{body}");
                for ((path, got), (_, text)) in leaves.iter().zip(&want) {
                    if convert {
                        let read = i18next_parts(got).unwrap_or_else(|e| fail(e));
                        assert_eq!(Some(read), i18next_reading(text), "{path:?}");
                    } else {
                        assert_eq!(got, text, "{path:?}");
                    }
                }
            }
        }
        other => unreachable!("{other}"),
    }
}

fn modes() -> [PlaceholderMode; 2] {
    [PlaceholderMode::Keep, PlaceholderMode::Convert]
}

#[test]
fn hostile_texts_read_back_exactly_in_xcstrings_arb_and_i18next() {
    let doc = hostile();
    for format in APP_FORMATS {
        for placeholders in modes() {
            let opts = RenderOptions {
                base_locale: Some(0),
                placeholders,
                ..RenderOptions::default()
            };
            if format == Format::Xcstrings && placeholders == PlaceholderMode::Convert {
                // ios conversion; tests/app_formats.rs reads it back
                continue;
            }
            assert_app_round_trip(&doc, &only(&doc, 0), format, &opts);
            assert_app_round_trip(&doc, &only(&doc, 1), format, &opts);
            assert_app_round_trip(&doc, &Selection::all(&doc), format, &opts);
            let keep = RenderOptions {
                keep_locale: true,
                ..opts.clone()
            };
            assert_app_round_trip(&doc, &only(&doc, 1), format, &keep);
            let all = render(&doc, &Selection::all(&doc), format, &opts).unwrap();
            assert!(all.warnings.is_empty(), "{format}: {:?}", all.warnings);
        }
    }
}

/// Sheet texts made of what the formats quote: placeholders, doubled braces, apostrophes,
/// `#`, `$t(` and `)`, line ends, quotes, and any character.
fn sheet_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        3 => hostile_string(1, 4),
        1 => prop::sample::select(vec![
            "{name}", "{n:int}", "{count}", "{x:float}", "{{", "}}", "'", "''", "#", "$t(", ")",
            "<b>", "\n", "{{{{", "{", "}",
        ])
        .prop_map(str::to_owned),
    ];
    prop::collection::vec(token, 0..8).prop_map(|tokens| tokens.concat())
}

/// `plural_doc`, with texts from `sheet_text`.
fn app_doc() -> impl Strategy<Value = Document> {
    let pool = ["en_US", "pl", "de-DE"];
    (1usize..=3, 1usize..=5).prop_flat_map(move |(n_locales, n_entries)| {
        let texts =
            move || prop::collection::vec(prop::option::weighted(0.8, sheet_text()), n_locales);
        let forms = prop::option::weighted(0.4, (texts(), texts(), texts()));
        let entry = (
            hostile_string(1, 5),
            texts(),
            forms,
            prop::option::of(hostile_string(0, 8)),
        );
        prop::collection::vec(entry, n_entries)
            .prop_map(move |entries| entries_doc(&pool[..n_locales], entries))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Any text of the sheet survives write-then-read in each format, or is refused for
    /// exactly what its consumer cannot read (ARB: Flutter's apostrophe rule; i18next with
    /// `convert`: `{{…}}` and `$t(…)` it would interpolate or nest).
    #[test]
    fn any_text_survives_or_is_refused_for_what_the_consumer_cannot_read(
        doc in prop_oneof![app_doc(), arbitrary_doc(), plural_doc()],
        single in any::<bool>(),
        keep_locale in any::<bool>(),
        comments in any::<bool>(),
        convert in any::<bool>(),
        base in prop::option::of(0usize..1),
    ) {
        let sel = if single { only(&doc, 0) } else { Selection::all(&doc) };
        let placeholders = if convert { PlaceholderMode::Convert } else { PlaceholderMode::Keep };
        let opts = RenderOptions { comments, keep_locale, base_locale: base, placeholders, ..RenderOptions::default() };
        for format in APP_FORMATS {
            if format == Format::Xcstrings && convert {
                continue;
            }
            assert_app_round_trip(&doc, &sel, format, &opts);
        }
    }

    #[test]
    fn prepared_renders_equal_one_off_renders_in_the_app_formats(
        doc in clashing_doc(),
        keep in prop::collection::vec(any::<bool>(), 1..8),
        keep_locale in any::<bool>(),
        comments in any::<bool>(),
    ) {
        let prepared = Prepared::new(&doc);
        let selections = [
            Selection::all(&doc),
            some_of(&doc, &[0, 1, 2], &keep),
            some_of(&doc, &[0, 2], &keep),
            some_of(&doc, &[1], &keep),
        ];
        let opts = RenderOptions { comments, keep_locale, base_locale: Some(2), ..RenderOptions::default() };
        let outcome = |r: Result<Rendered, RenderError>| r.map_err(|e| e.to_string());
        for sel in &selections {
            for format in APP_FORMATS {
                prop_assert_eq!(
                    outcome(prepared.render(sel, format, &opts)),
                    outcome(render(&doc, sel, format, &opts)),
                    "{} of {:?}", format, sel
                );
                prop_assert_eq!(
                    outcome(prepared.render_locale_tree(sel, format, &opts)),
                    outcome(render_locale_tree(&doc, sel, format, &opts)),
                    "{} locale tree of {:?}", format, sel
                );
            }
        }
    }
}

// ------------------------------------------------------------------ shapes and names

fn doc(locales: &[&str], rows: &[(&str, &[&str])]) -> Document {
    Document {
        locales: locales.iter().map(|l| l.to_string()).collect(),
        entries: (rows.iter())
            .map(|(path, texts)| Entry {
                path: path.split('.').map(str::to_owned).collect(),
                texts: texts
                    .iter()
                    .map(|t| (!t.is_empty()).then(|| t.to_string()))
                    .collect(),
                ..Entry::default()
            })
            .collect(),
        ..Document::default()
    }
}

fn plural(category: PluralCategory, texts: &[&str]) -> PluralForm {
    PluralForm {
        category,
        texts: texts.iter().map(|t| Some(t.to_string())).collect(),
    }
}

#[test]
fn several_locales_are_keyed_by_language_and_one_locale_is_the_file_itself() {
    let d = doc(&["en_US", "pl_PL"], &[("CORE.YES", &["Yes", "Tak"])]);
    let opts = RenderOptions::default();
    let body = |sel: &Selection, format, opts: &RenderOptions| render_str(&d, sel, format, opts);
    assert_eq!(
        body(&only(&d, 1), Format::Arb, &opts),
        "{\n  \"@@locale\": \"pl\",\n  \"coreYes\": \"Tak\"\n}\n"
    );
    assert_eq!(
        body(&Selection::all(&d), Format::Arb, &opts),
        "{\n  \"en_US\": {\n    \"@@locale\": \"en_US\",\n    \"coreYes\": \"Yes\"\n  },\n  \
         \"pl\": {\n    \"@@locale\": \"pl\",\n    \"coreYes\": \"Tak\"\n  }\n}\n"
    );
    assert_eq!(
        body(&only(&d, 0), Format::I18next, &opts),
        r#"{"CORE":{"YES":"Yes"}}"#
    );
    let keep = RenderOptions {
        keep_locale: true,
        ..RenderOptions::default()
    };
    assert_eq!(
        body(&only(&d, 0), Format::I18next, &keep),
        r#"{"en-US":{"translation":{"CORE":{"YES":"Yes"}}}}"#
    );
    assert_eq!(
        body(&Selection::all(&d), Format::I18next, &opts),
        r#"{"en-US":{"translation":{"CORE":{"YES":"Yes"}}},"pl-PL":{"translation":{"CORE":{"YES":"Tak"}}}}"#
    );
    // a catalog holds its languages whatever keepLocale says
    assert_eq!(
        body(&only(&d, 1), Format::Xcstrings, &keep),
        body(&only(&d, 1), Format::Xcstrings, &opts)
    );
}

#[test]
fn empty_selections_render_valid_empty_documents() {
    let d = doc(&["en"], &[("A", &["a"])]);
    let none = Selection::default();
    let opts = RenderOptions::default();
    assert_eq!(render_str(&d, &none, Format::Arb, &opts), "{}\n");
    assert_eq!(render_str(&d, &none, Format::I18next, &opts), "{}");
    let catalog = render_str(&d, &none, Format::Xcstrings, &opts);
    assert_eq!(
        catalog,
        "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n\n  },\n  \"version\" : \"1.0\"\n}"
    );
    assert_eq!(read_xcstrings(&catalog).unwrap().strings, []);
}

#[test]
fn arb_ids_that_meet_keep_the_first_and_report_the_other() {
    let d = doc(
        &["en"],
        &[("X.A_B", &["first"]), ("X_A.B", &["second"]), ("Y", &["y"])],
    );
    let rendered = render(
        &d,
        &Selection::all(&d),
        Format::Arb,
        &RenderOptions::default(),
    )
    .unwrap();
    let body = String::from_utf8(rendered.body).unwrap();
    assert_eq!(
        body,
        "{\n  \"@@locale\": \"en\",\n  \"xAB\": \"first\",\n  \"y\": \"y\"\n}\n"
    );
    assert_eq!(
        rendered.warnings,
        ["keys 'X.A_B' and 'X_A.B' both become the name 'xAB'; kept 'X.A_B', left out 'X_A.B'"]
    );
    let clashes = name_clashes(&d, |_| 0);
    assert!(
        clashes.contains(&("arb".into(), 0, 1, "xAB".to_owned())),
        "{clashes:?}"
    );
}

#[test]
fn i18next_plural_names_that_meet_a_sibling_keep_the_first_in_sheet_order() {
    let mut d = doc(
        &["en"],
        &[
            ("A.ITEMS_one", &["plain one"]),
            ("A.ITEMS", &["n"]),
            ("B.N", &["n"]),
            ("B.N_other", &["late"]),
        ],
    );
    for e in [1, 2] {
        d.entries[e].plural = Some(Box::new(Plural {
            forms: vec![
                plural(PluralCategory::One, &["one"]),
                plural(PluralCategory::Other, &["other"]),
            ],
        }));
    }
    let rendered = render(
        &d,
        &Selection::all(&d),
        Format::I18next,
        &RenderOptions::default(),
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(rendered.body).unwrap(),
        r#"{"A":{"ITEMS_one":"plain one"},"B":{"N_one":"one","N_other":"other"}}"#
    );
    let message = |kept: &str, lost: &str, name: &str| {
        format!(
            "'{kept}' and '{lost}' both take the name '{name}' in i18next (a plural entry's \
             forms are named KEY_one, KEY_other, …); kept '{kept}', left out '{lost}'"
        )
    };
    assert_eq!(
        rendered.warnings,
        [
            message("A.ITEMS_one", "A.ITEMS", "ITEMS_one"),
            message("B.N", "B.N_other", "N_other")
        ]
    );
    let known = known_warnings(&d);
    let i18next = known.iter().find(|(f, _)| *f == Format::I18next).unwrap();
    assert_eq!(i18next.1, rendered.warnings);
    let clashes = name_clashes(&d, |e| e as u64);
    assert!(clashes.contains(&(
        "i18next (plural names)".into(),
        0,
        1,
        "ITEMS_one".to_owned()
    )));
    assert!(clashes.contains(&("i18next (plural names)".into(), 2, 3, "N_other".to_owned())));
}

#[test]
fn a_locale_that_repeats_another_language_is_left_out_and_reported() {
    let d = doc(&["pl", "pl_PL", "en"], &[("A", &["a", "b", "c"])]);
    let all = Selection::all(&d);
    for (format, word) in [(Format::Xcstrings, "language"), (Format::Arb, "locale")] {
        let rendered = render(&d, &all, format, &RenderOptions::default()).unwrap();
        assert_eq!(
            rendered.warnings,
            [format!(
                "locales 'pl' and 'pl_PL' are both the {word} 'pl' in {format}; kept 'pl', left \
                 out 'pl_PL'"
            )]
        );
        assert!(!String::from_utf8(rendered.body).unwrap().contains("\"b\""));
    }
}

#[test]
fn a_locale_that_is_no_language_tag_is_refused_where_the_format_keys_by_language() {
    let d = doc(&["English"], &[("A", &["a"])]);
    for format in [Format::Xcstrings, Format::Arb] {
        let err = render(&d, &Selection::all(&d), format, &RenderOptions::default()).unwrap_err();
        assert!(
            matches!(&err, RenderError::NotALanguageTag { format: f, locale } if *f == format && locale == "English"),
            "{err}"
        );
    }
    // i18next takes the code as written
    let body = render_str(
        &d,
        &Selection::all(&d),
        Format::I18next,
        &RenderOptions {
            keep_locale: true,
            ..RenderOptions::default()
        },
    );
    assert_eq!(body, r#"{"English":{"translation":{"A":"a"}}}"#);
}

#[test]
fn the_arb_template_declares_each_placeholder_with_its_dart_type_and_the_comment() {
    let mut d = doc(
        &["en", "pl"],
        &[
            (
                "MSG.TITLE",
                &[
                    "{name} has {n:int} of {p:float}",
                    "{n:int} z {p:float}: {name}",
                ],
            ),
            ("FILES", &["", ""]),
        ],
    );
    d.entries[0].comment = Some("Shown \"above\" the list".into());
    d.entries[1].plural = Some(Box::new(Plural {
        forms: vec![
            plural(
                PluralCategory::One,
                &["One file in {folder}", "{count} plik"],
            ),
            plural(
                PluralCategory::Other,
                &["{count} files in {folder}", "{count} plików"],
            ),
        ],
    }));
    d.entries[1].texts = vec![Some("x".into()), Some("y".into())];
    let opts = RenderOptions {
        comments: true,
        base_locale: Some(0),
        ..RenderOptions::default()
    };
    assert_eq!(
        render_str(&d, &only(&d, 0), Format::Arb, &opts),
        r#"{
  "@@locale": "en",
  "msgTitle": "{name} has {n} of {p}",
  "@msgTitle": {
    "description": "Shown \"above\" the list",
    "placeholders": {
      "name": {
        "type": "String"
      },
      "n": {
        "type": "int"
      },
      "p": {
        "type": "double"
      }
    }
  },
  "files": "{count, plural, one{One file in {folder}} other{{count} files in {folder}}}",
  "@files": {
    "placeholders": {
      "count": {
        "type": "int"
      },
      "folder": {
        "type": "String"
      }
    }
  }
}
"#
    );
    // other locales' files carry no metadata
    let pl = render_str(&d, &only(&d, 1), Format::Arb, &opts);
    assert!(
        !pl.contains("\"@msgTitle\"") && !pl.contains("\"@files\""),
        "{pl}"
    );
    // a file declaring another locale (a language's fallback) says so
    let fallback = RenderOptions {
        declared_locale: Some("en".into()),
        ..opts
    };
    let mut d2 = d.clone();
    d2.locales[0] = "en_US".into();
    assert!(
        render_str(&d2, &only(&d2, 0), Format::Arb, &fallback)
            .starts_with("{\n  \"@@locale\": \"en\",\n")
    );
}

#[test]
fn an_apostrophe_right_before_a_literal_brace_is_refused_for_arb_alone() {
    let d = doc(
        &["en"],
        &[("A", &["it's '{{x}}'"]), ("B", &["{{'{{ and it's"])],
    );
    let err = render(&d, &only(&d, 0), Format::Arb, &RenderOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "arb cannot carry the character U+0027 in the text of 'A' for locale 'en': Flutter's \
         gen-l10n reads an apostrophe right before a literal '{', '}' or (in a plural) '#' as \
         two; change that text in the sheet or choose another format"
    );
    // a quoted section already open carries it
    let d = doc(&["en"], &[("B", &["{{'{{ and it's"])]);
    let body = render_str(&d, &only(&d, 0), Format::Arb, &RenderOptions::default());
    assert!(body.contains(r#""b": "'{''{' and it''s""#), "{body}");
    assert_eq!(
        read_arb_message("'{''{' and it''s").unwrap(),
        Message::Plain(vec![Part::Text("{'{ and it's".into())])
    );
}

#[test]
fn i18next_convert_refuses_what_it_would_interpolate_and_keep_writes_it_as_is() {
    let d = doc(&["en"], &[("A", &["{{{name}"]), ("B", &["see $t(other)"])]);
    let convert = RenderOptions {
        placeholders: PlaceholderMode::Convert,
        ..RenderOptions::default()
    };
    let err = render(&d, &only(&d, 0), Format::I18next, &convert).unwrap_err();
    assert!(
        err.to_string().contains("'A'") && err.to_string().contains("interpolation"),
        "{err}"
    );
    let keep = render_str(&d, &only(&d, 0), Format::I18next, &RenderOptions::default());
    assert_eq!(keep, r#"{"A":"{{{name}","B":"see $t(other)"}"#);
    let d = doc(&["en"], &[("A", &["{{x}} {name} {{{{"])]);
    assert_eq!(
        render_str(&d, &only(&d, 0), Format::I18next, &convert),
        r#"{"A":"{x} {{name}} {{"}"#
    );
}

#[test]
fn i18next_keys_with_a_namespace_separator_are_named_as_problems() {
    let d = doc(&["en"], &[("A.B:C", &["x"]), ("D", &["y"])]);
    let problems = name_problems(&d);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].0, 0);
    assert!(
        problems[0].1.contains("namespace separator"),
        "{}",
        problems[0].1
    );
}

#[test]
fn a_catalog_xcode_wrote_is_rendered_back_byte_for_byte() {
    let path = format!(
        "{}/tests/fixtures/xcstrings/maccy.xcstrings",
        env!("CARGO_MANIFEST_DIR")
    );
    let written = std::fs::read_to_string(path).unwrap();
    let catalog: Json = serde_json::from_str(&written).unwrap();
    // the catalog's texts as a sheet: a key per string, a locale per language
    let mut d = Document::default();
    for (name, string) in match catalog.get("strings") {
        Json::Map(strings) => strings,
        _ => unreachable!(),
    } {
        let mut texts = vec![None; d.locales.len()];
        for (language, localization) in match string.get("localizations") {
            Json::Map(l) => l,
            _ => unreachable!(),
        } {
            let locale = match d.locales.iter().position(|l| l == language) {
                Some(at) => at,
                None => {
                    d.locales.push(language.clone());
                    d.entries.iter_mut().for_each(|e| e.texts.push(None));
                    texts.push(None);
                    d.locales.len() - 1
                }
            };
            texts[locale] = Some(
                localization
                    .get("stringUnit")
                    .get("value")
                    .text()
                    .to_owned(),
            );
        }
        d.entries.push(Entry {
            path: vec![name.clone()],
            texts,
            ..Entry::default()
        });
    }
    assert_eq!(d.entries.len(), 34);
    assert_eq!(d.locales.len(), 19);
    let opts = RenderOptions {
        base_locale: d.locale_index("en"),
        ..RenderOptions::default()
    };
    let body = render_str(&d, &Selection::all(&d), Format::Xcstrings, &opts);
    assert_eq!(body, written.replace("\"migrated\"", "\"manual\""));
    // and through `Prepared`, as `generate` renders
    let prepared = Prepared::new(&d);
    let again = prepared
        .render(&Selection::all(&d), Format::Xcstrings, &opts)
        .unwrap();
    assert_eq!(String::from_utf8(again.body).unwrap(), body);
}
