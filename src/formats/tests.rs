//! Round trips through the readers in `readback`, golden files for the basic sheet, and
//! property tests over arbitrary texts and keys.

use proptest::prelude::*;

use super::ordered_json::Json;
use super::readback::{read_android, read_po, read_strings, read_xlf, read_yml};
use super::readback_properties_resx::{csharp_name, read_properties, read_resx};
use super::*;
use crate::formats::shared::escape::xml_forbidden;
use crate::model::{Entry, LocaleSelection, Plural, PluralCategory, PluralForm};

// ------------------------------------------------------------------ fixtures

pub(crate) fn fixture(name: &str) -> Json {
    let path = format!(
        "{}/tests/fixtures/sheets/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The document a `locale -> ... -> text` tree stands for: keys in first-appearance order.
pub(crate) fn doc_from_tree(all: &Json) -> Document {
    let Json::Map(locales) = all else {
        panic!("not a map")
    };
    let mut doc = Document {
        locales: locales.iter().map(|(l, _)| l.clone()).collect(),
        ..Document::default()
    };
    for (li, (_, tree)) in locales.iter().enumerate() {
        for (path, text) in tree.leaves() {
            let e = match doc.entries.iter().position(|e| e.path == path) {
                Some(e) => e,
                None => {
                    doc.entries.push(Entry {
                        path,
                        texts: vec![None; locales.len()],
                        ..Entry::default()
                    });
                    doc.entries.len() - 1
                }
            };
            doc.entries[e].texts[li] = Some(text);
        }
    }
    doc
}

pub(crate) fn hostile() -> Document {
    doc_from_tree(&fixture("hostile.expected.json"))
}

fn basic() -> Document {
    doc_from_tree(fixture("basic.expected.json").get("all"))
}

pub(crate) fn only(doc: &Document, locale: usize) -> Selection {
    let mut sel = Selection::all(doc);
    sel.locales.retain(|l| l.locale == locale);
    sel
}

pub(crate) fn render_str(
    doc: &Document,
    sel: &Selection,
    format: Format,
    opts: &RenderOptions,
) -> String {
    let rendered = render(doc, sel, format, opts).unwrap();
    String::from_utf8(rendered.body).unwrap()
}

// ------------------------------------------------------------------ expectations

/// What a flat format must hold: `(name, text)` in output order, names built here
/// independently of `flatten`.
fn expected_flat(
    doc: &Document,
    sel: &Selection,
    format: Format,
    keep_locale: bool,
) -> Vec<(String, String)> {
    let lower = |s: &str| {
        if format == Format::Resx {
            return csharp_name(s);
        }
        let l: String = s.chars().flat_map(char::to_lowercase).collect();
        if format == Format::Android {
            l.chars()
                .map(|c| {
                    if c.is_ascii_lowercase() || c.is_ascii_digit() {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        } else {
            l
        }
    };
    let locales: Vec<_> = sel
        .locales
        .iter()
        .filter(|l| !l.entries.is_empty())
        .collect();
    let prefixed = keep_locale || locales.len() > 1;
    let mut out = Vec::new();
    for ls in locales {
        for &e in ls.entries.iter() {
            let entry = &doc.entries[e];
            let Some(text) = &entry.texts[ls.locale] else {
                continue;
            };
            let separator = if format == Format::Properties {
                "."
            } else {
                "_"
            };
            let mut name = entry
                .path
                .iter()
                .map(|p| lower(p))
                .collect::<Vec<_>>()
                .join(separator);
            if format == Format::Resx && name.starts_with(|c: char| c.is_ascii_digit()) {
                name.insert(0, '_');
            }
            if prefixed {
                let mut prefix = lower(&doc.locales[ls.locale]);
                if format == Format::Resx && prefix.starts_with(|c: char| c.is_ascii_digit()) {
                    prefix.insert(0, '_');
                }
                name = format!("{prefix}{separator}{name}");
            } else if format == Format::Android && name.starts_with(|c: char| c.is_ascii_digit()) {
                name.insert(0, '_');
            }
            out.push((name, text.clone()));
        }
    }
    out
}

/// What a tree format must hold, in its order: sections in order of first appearance
/// among all selected keys (sheet order), then keys in sheet order within a section.
fn expected_tree(doc: &Document, sel: &Selection) -> Vec<(Vec<String>, String)> {
    let mut union: Vec<usize> = sel
        .locales
        .iter()
        .flat_map(|l| l.entries.iter().copied())
        .collect();
    union.sort_unstable();
    union.dedup();
    let mut first_seen: std::collections::HashMap<&[String], usize> = Default::default();
    for &e in &union {
        let path = &doc.entries[e].path;
        for len in 1..=path.len() {
            let next = first_seen.len();
            first_seen.entry(&path[..len]).or_insert(next);
        }
    }
    let order = |e: usize| -> Vec<usize> {
        let path = &doc.entries[e].path;
        (1..=path.len())
            .map(|len| first_seen[&path[..len]])
            .collect()
    };
    let mut out = Vec::new();
    for ls in &sel.locales {
        let mut entries: Vec<usize> = ls
            .entries
            .iter()
            .copied()
            .filter(|&e| doc.entries[e].texts[ls.locale].is_some())
            .collect();
        entries.sort_by_key(|&e| order(e));
        for e in entries {
            let mut path = vec![doc.locales[ls.locale].clone()];
            path.extend(doc.entries[e].path.iter().cloned());
            out.push((
                path,
                doc.entries[e].texts[ls.locale].clone().unwrap_or_default(),
            ));
        }
    }
    out
}

/// Reads a flat body back to `(name, text)` with the consumer's reader, checking the
/// format's own invariants on the way (po: ctxt = id = name; xlf: id, languages, source).
fn read_flat(
    doc: &Document,
    sel: &Selection,
    format: Format,
    opts: &RenderOptions,
    body: &str,
) -> Result<Vec<(String, String)>, String> {
    let pairs = match format {
        Format::Android => read_android(body)?
            .into_iter()
            .map(|u| (u.name, u.text))
            .collect(),
        Format::Ios => read_strings(body)?
            .into_iter()
            .map(|u| (u.name, u.text))
            .collect(),
        Format::Po => {
            let po = read_po(body)?;
            let locales: Vec<_> = sel
                .locales
                .iter()
                .filter(|l| !l.entries.is_empty())
                .collect();
            if let [one] = locales.as_slice() {
                let language = doc.locales[one.locale].replace('-', "_");
                assert!(
                    po.header.starts_with(&format!("Language: {language}\n")),
                    "{}",
                    po.header
                );
            } else {
                assert!(!po.header.contains("Language:"));
            }
            po.units
                .into_iter()
                .map(|u| {
                    assert_eq!(u.msgctxt.as_deref(), Some(u.msgid.as_str()));
                    (u.msgid, u.msgstr)
                })
                .collect()
        }
        Format::Xlf => {
            let files = read_xlf(body)?;
            let locales: Vec<_> = sel
                .locales
                .iter()
                .filter(|l| !l.entries.is_empty())
                .collect();
            assert_eq!(files.len(), locales.len());
            let source_language = opts
                .base_locale
                .map_or("en".to_owned(), |b| doc.locales[b].replace('_', "-"));
            let mut pairs = Vec::new();
            for (file, ls) in files.into_iter().zip(locales) {
                assert_eq!(file.source_language, source_language);
                assert_eq!(
                    file.target_language,
                    doc.locales[ls.locale].replace('_', "-")
                );
                for unit in file.units {
                    let entry = doc
                        .entries
                        .iter()
                        .find(|e| e.path.join(".") == unit.id)
                        .unwrap_or_else(|| panic!("no key for id {}", unit.id));
                    let base_text = opts.base_locale.and_then(|b| entry.texts[b].clone());
                    assert_eq!(unit.source, base_text.unwrap_or_else(|| unit.id.clone()));
                    pairs.push((
                        unit.resname.unwrap_or_default(),
                        unit.target.unwrap_or_default(),
                    ));
                }
            }
            pairs
        }
        Format::Properties => read_properties(body)?
            .into_iter()
            .map(|p| (p.name, p.text))
            .collect(),
        Format::Resx => read_resx(body)?
            .pairs
            .into_iter()
            .map(|p| (p.name, p.text))
            .collect(),
        Format::Json | Format::Yml | Format::Stringsdict => unreachable!("not a flat format"),
        _ => unreachable!("not a plain format: see app_tests"),
    };
    Ok(pairs)
}

fn read_tree(format: Format, body: &str) -> Result<Vec<(Vec<String>, String)>, String> {
    match format {
        Format::Json => {
            let node: Json = serde_json::from_str(body).map_err(|e| e.to_string())?;
            Ok(node.leaves())
        }
        Format::Yml => read_yml(body),
        _ => unreachable!("flat formats"),
    }
}

fn is_flat(format: Format) -> bool {
    !matches!(format, Format::Json | Format::Yml)
}

/// Renders and reads back; panics with the body when the reader disagrees.
/// The formats that write every selected key (stringsdict holds plural entries only;
/// tests/plurals.rs and `plurals` below read it), but for the formats of SPEC §11, whose
/// names, order and nesting differ from these: `app_tests` reads them. Named, so that a
/// format added with its own tests in its folder is not read back here.
fn plain_formats() -> impl Iterator<Item = Format> {
    use Format::*;
    [Json, Android, Ios, Yml, Xlf, Po, Properties, Resx].into_iter()
}

fn assert_round_trip(doc: &Document, sel: &Selection, format: Format, opts: &RenderOptions) {
    let body = render_str(doc, sel, format, opts);
    if is_flat(format) {
        let read = read_flat(doc, sel, format, opts, &body)
            .unwrap_or_else(|e| panic!("{format}: {e}\n{body}"));
        assert_eq!(
            read,
            expected_flat(doc, sel, format, opts.keep_locale),
            "{format}\n{body}"
        );
    } else {
        let read = read_tree(format, &body).unwrap_or_else(|e| panic!("{format}: {e}\n{body}"));
        assert_eq!(read, expected_tree(doc, sel), "{format}\n{body}");
    }
}

// ------------------------------------------------------------------ hostile texts

#[test]
fn every_hostile_text_reads_back_exactly_in_every_format() {
    let doc = hostile();
    assert_eq!(doc.locales, ["en_US", "pl_PL"]);
    assert_eq!(doc.entries.len(), 45);
    let opts = RenderOptions {
        base_locale: Some(0),
        ..RenderOptions::default()
    };
    for format in plain_formats() {
        // single locale: no prefix
        assert_round_trip(&doc, &only(&doc, 0), format, &opts);
        assert_round_trip(&doc, &only(&doc, 1), format, &opts);
        // several locales: prefixed
        assert_round_trip(&doc, &Selection::all(&doc), format, &opts);
        // one locale, keepLocale
        let keep = RenderOptions {
            keep_locale: true,
            ..opts.clone()
        };
        assert_round_trip(&doc, &only(&doc, 1), format, &keep);
    }
}

#[test]
fn hostile_texts_render_without_warnings() {
    let doc = hostile();
    for format in plain_formats() {
        let r = render(
            &doc,
            &Selection::all(&doc),
            format,
            &RenderOptions::default(),
        )
        .unwrap();
        assert!(r.warnings.is_empty(), "{format}: {:?}", r.warnings);
    }
}

#[test]
fn android_writes_the_hostile_texts_as_aapt2_wants_them() {
    let doc = hostile();
    let body = render_str(
        &doc,
        &only(&doc, 0),
        Format::Android,
        &RenderOptions::default(),
    );
    for line in [
        r#"<string name="hostile_k01">Don\'t stop</string>"#,
        r#"<string name="hostile_k04">\@string/not_a_ref</string>"#,
        r#"<string name="hostile_k05">\?attr/not_an_attr</string>"#,
        r#"<string name="hostile_k06">100% sure</string>"#,
        r#"<string name="hostile_k07" formatted="false">%s of %d</string>"#,
        r#"<string name="hostile_k08">%1$s and %2$s</string>"#,
        r#"<string name="hostile_k09">Tom &amp; Jerry</string>"#,
        r#"<string name="hostile_k10">&lt;b&gt;bold&lt;/b&gt; &lt;i&gt;x&lt;/i&gt;</string>"#,
        r#"<string name="hostile_k11">line1\nline2</string>"#,
        r#"<string name="hostile_k13">"  padded  "</string>"#,
        r#"<string name="hostile_k45">trailing backslash\\</string>"#,
    ] {
        assert!(body.contains(line), "missing {line}\n{body}");
    }
}

// ------------------------------------------------------------------ basic sheet

#[test]
fn json_of_the_basic_sheet_equals_the_expected_fixture_in_order() {
    let doc = basic();
    let body = render_str(
        &doc,
        &Selection::all(&doc),
        Format::Json,
        &RenderOptions::default(),
    );
    let got: Json = serde_json::from_str(&body).unwrap();
    assert_eq!(&got, fixture("basic.expected.json").get("all"));
    assert_eq!(
        body,
        r#"{"en":{"CORE":{"LABELS":{"YES":"Yes","NO":"No"}},"FRONT":{"HEADER":{"TITLE":"Something"}}},"pl":{"CORE":{"LABELS":{"YES":"Tak","NO":"Nie"}},"FRONT":{"HEADER":{"TITLE":"Coś"}}}}"#
    );
}

/// The names the fixture lists, for a selection built by hand like its filters would
/// (the filter parser is another module's).
#[test]
fn android_names_match_the_basic_fixture() {
    let doc = basic();
    let path = format!(
        "{}/tests/fixtures/sheets/basic.expected.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let core = |locale| LocaleSelection {
        locale,
        entries: vec![0, 1].into(),
    };
    for (case, sel) in [
        (
            "android_single_locale_names",
            Selection {
                locales: vec![core(0)],
            },
        ),
        (
            "android_multi_locale_names",
            Selection {
                locales: vec![core(0), core(1)],
            },
        ),
    ] {
        let body = render_str(&doc, &sel, Format::Android, &RenderOptions::default());
        let names: Vec<String> = read_android(&body)
            .unwrap()
            .into_iter()
            .map(|u| u.name)
            .collect();
        let want: Vec<String> = serde_json::from_value(raw[case]["names"].clone()).unwrap();
        assert_eq!(names, want, "{case}");
    }
}

#[test]
fn golden_files_of_the_basic_sheet() {
    let doc = basic();
    let opts = RenderOptions {
        base_locale: Some(0),
        ..RenderOptions::default()
    };
    for format in Format::ALL {
        let body = render_str(&doc, &Selection::all(&doc), format, &opts);
        // i18next's extension is json's
        let ext = match format {
            Format::I18next => "i18next.json",
            _ => format.extension(),
        };
        let path = format!("{}/tests/golden/basic.{ext}", env!("CARGO_MANIFEST_DIR"));
        if std::env::var_os("DEPOT_UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &body).unwrap();
        }
        let golden = std::fs::read_to_string(&path).unwrap();
        assert_eq!(body, golden, "{path}");
    }
}

// ------------------------------------------------------------------ comments

fn commented_doc() -> Document {
    let nasty = "a -- b */ c\nsecond # line\r\n-->\u{1}\u{2028}end-";
    Document {
        settings: Default::default(),
        namespaces: Vec::new(),
        findings: Vec::new(),
        locales: vec!["en".into()],
        entries: vec![
            Entry {
                path: vec!["A".into(), "X".into()],
                texts: vec![Some("x".into())],
                comment: Some(nasty.into()),
                ..Entry::default()
            },
            Entry {
                path: vec!["A".into(), "Y".into()],
                texts: vec![Some("y".into())],
                comment: Some("just a note".into()),
                ..Entry::default()
            },
        ],
        warnings: Vec::new(),
    }
}

#[test]
fn comments_are_written_only_on_request_and_never_break_the_file() {
    let doc = commented_doc();
    let sel = Selection::all(&doc);
    let with = RenderOptions {
        comments: true,
        ..RenderOptions::default()
    };
    for format in plain_formats() {
        assert_round_trip(&doc, &sel, format, &with);
        let without = render_str(&doc, &sel, format, &RenderOptions::default());
        assert!(
            !without.contains("just a note"),
            "{format}: comment written without request"
        );
    }
    let cleaned = "a -- b */ c\nsecond # line\n-->\u{FFFD}\nend-";

    let android = read_android(&render_str(&doc, &sel, Format::Android, &with)).unwrap();
    assert_eq!(
        android[0].comment.as_deref(),
        Some("a - - b */ c\nsecond # line\n- ->\u{FFFD}\nend-")
    );
    assert_eq!(android[1].comment.as_deref(), Some("just a note"));

    let ios = read_strings(&render_str(&doc, &sel, Format::Ios, &with)).unwrap();
    assert_eq!(
        ios[0].comment.as_deref(),
        Some(&*format!(" {} ", cleaned.replace("*/", "* /")))
    );

    let xlf = read_xlf(&render_str(&doc, &sel, Format::Xlf, &with)).unwrap();
    assert_eq!(xlf[0].units[0].note.as_deref(), Some(cleaned));

    let po = read_po(&render_str(&doc, &sel, Format::Po, &with)).unwrap();
    assert_eq!(po.units[0].comment.as_deref(), Some(cleaned));

    let yml = render_str(&doc, &sel, Format::Yml, &with);
    assert_eq!(
        yml,
        "\"en\":\n  \"A\":\n    # a -- b */ c\n    # second # line\n    # -->\u{FFFD}\n    # end-\n    \"X\": \"x\"\n    # just a note\n    \"Y\": \"y\"\n"
    );
}

// ------------------------------------------------------------------ refusals and errors

fn one_text(text: &str) -> Document {
    Document {
        settings: Default::default(),
        namespaces: Vec::new(),
        findings: Vec::new(),
        locales: vec!["en".into(), "pl".into()],
        entries: vec![Entry {
            path: vec!["S".into(), "K".into()],
            texts: vec![Some(text.into()), Some("ok".into())],
            ..Entry::default()
        }],
        warnings: Vec::new(),
    }
}

#[test]
fn xlf_refuses_control_characters_naming_key_and_locale() {
    let doc = one_text("bell\u{7}");
    let err = render(
        &doc,
        &Selection::all(&doc),
        Format::Xlf,
        &RenderOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "xlf cannot carry the character U+0007 in the text of 'S.K' for locale 'en': XML 1.0 \
         cannot hold control characters other than tab, line feed and carriage return, nor \
         U+FFFE/U+FFFF, not even as &#N;; change that text in the sheet or choose another format"
    );
    // the same text as the base locale's <source> of another locale's unit
    let opts = RenderOptions {
        base_locale: Some(0),
        ..RenderOptions::default()
    };
    let err = render(&doc, &only(&doc, 1), Format::Xlf, &opts).unwrap_err();
    assert!(
        matches!(err, RenderError::UnrepresentableText { ref locale, .. } if locale == "en"),
        "{err}"
    );
    // every other format carries it
    for format in [
        Format::Json,
        Format::Android,
        Format::Ios,
        Format::Yml,
        Format::Po,
    ] {
        assert_round_trip(
            &doc,
            &Selection::all(&doc),
            format,
            &RenderOptions::default(),
        );
    }
}

#[test]
fn nul_is_refused_where_the_consumer_would_cut_the_string() {
    let doc = one_text("a\0b");
    for format in [Format::Android, Format::Po, Format::Xlf] {
        let err = render(
            &doc,
            &Selection::all(&doc),
            format,
            &RenderOptions::default(),
        )
        .unwrap_err();
        assert!(
            matches!(err, RenderError::UnrepresentableText { character: '\0', ref key, .. } if key == "S.K"),
            "{format}: {err}"
        );
    }
    for format in [Format::Json, Format::Ios, Format::Yml] {
        assert_round_trip(
            &doc,
            &Selection::all(&doc),
            format,
            &RenderOptions::default(),
        );
    }
}

#[test]
fn xlf_without_base_uses_en_and_the_key_path_as_source() {
    let doc = basic();
    let body = render_str(&doc, &only(&doc, 1), Format::Xlf, &RenderOptions::default());
    let files = read_xlf(&body).unwrap();
    assert_eq!(files[0].source_language, "en");
    assert_eq!(files[0].target_language, "pl");
    assert_eq!(files[0].units[0].id, "CORE.LABELS.YES");
    assert_eq!(
        files[0].units[0].resname.as_deref(),
        Some("core_labels_yes")
    );
    assert_eq!(files[0].units[0].source, "CORE.LABELS.YES");
    assert_eq!(files[0].units[0].target.as_deref(), Some("Tak"));
}

#[test]
fn xlf_refuses_a_locale_that_is_no_language_code() {
    let mut doc = basic();
    doc.locales[1] = "Polish (PL)".into();
    let err = render(
        &doc,
        &Selection::all(&doc),
        Format::Xlf,
        &RenderOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, RenderError::InvalidLanguage { ref locale } if locale == "Polish (PL)"));
}

#[test]
fn bad_indices_are_errors_not_panics() {
    let doc = basic();
    let bad_base = RenderOptions {
        base_locale: Some(2),
        ..RenderOptions::default()
    };
    let err = render(&doc, &Selection::all(&doc), Format::Xlf, &bad_base).unwrap_err();
    assert_eq!(
        err.to_string(),
        "base locale index 2 is out of range: the document has 2 locales"
    );
    let sel = Selection {
        locales: vec![LocaleSelection {
            locale: 0,
            entries: vec![0, 7].into(),
        }],
    };
    let err = render(&doc, &sel, Format::Json, &RenderOptions::default()).unwrap_err();
    assert!(matches!(
        err,
        RenderError::SelectionOutOfRange {
            what: "entry",
            index: 7,
            count: 3
        }
    ));
}

#[test]
fn empty_selection_renders_an_empty_but_valid_body() {
    let doc = basic();
    let sel = Selection::default();
    let bodies: Vec<String> = Format::ALL
        .iter()
        .map(|&f| render_str(&doc, &sel, f, &RenderOptions::default()))
        .collect();
    assert_eq!(bodies[0], "{}");
    assert_eq!(read_android(&bodies[1]).unwrap(), []);
    assert_eq!(bodies[2], "");
    assert_eq!(read_yml(&bodies[3]).unwrap(), []);
    assert_eq!(read_xlf(&bodies[4]).unwrap(), []);
    assert_eq!(read_po(&bodies[5]).unwrap().units, []);
    let at = |format| Format::ALL.iter().position(|&f| f == format).unwrap();
    assert_eq!(bodies[at(Format::Properties)], "");
    assert_eq!(read_resx(&bodies[at(Format::Resx)]).unwrap().pairs, []);
}

#[test]
fn format_names_parse_case_insensitively_and_list_the_choices_on_error() {
    assert_eq!("json".parse::<Format>().unwrap(), Format::Json);
    assert_eq!("XLF".parse::<Format>().unwrap(), Format::Xlf);
    for f in Format::ALL {
        assert_eq!(f.name().parse::<Format>().unwrap(), f);
    }
    assert_eq!(
        "yaml".parse::<Format>().unwrap_err().to_string(),
        "format must be one of json, android, ios, yml, xlf, po, stringsdict, xcstrings, arb, \
         i18next, properties, resx; got 'yaml'"
    );
    let exts: Vec<_> = Format::ALL.iter().map(|f| f.extension()).collect();
    assert_eq!(
        exts,
        [
            "json",
            "xml",
            "strings",
            "yml",
            "xlf",
            "po",
            "stringsdict",
            "xcstrings",
            "arb",
            "json",
            "properties",
            "resx"
        ]
    );
    assert_eq!(
        Format::Properties.content_type(),
        "text/x-java-properties; charset=iso-8859-1"
    );
    assert_eq!(
        Format::Po.content_type(),
        "text/x-gettext-translation; charset=utf-8"
    );
}

// ------------------------------------------------------------------ properties

/// Characters that break naive escaping, plus any Unicode scalar.
pub(crate) fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => any::<char>(),
        2 => prop::sample::select(vec![
            '\'', '"', '\\', '@', '?', '%', '&', '<', '>', ' ', '\n', '\t', '\r', '#', ':', '-',
            '*', '/', ';', '=', '$', '{', '[', '!', '~', '\u{85}', '\u{2028}', '\u{FEFF}',
            '\u{FFFE}', '\u{FFFF}', '\u{7F}', '\u{A0}', 'ł', '🎉',
        ]),
        1 => (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap_or(' ')),
        4 => prop::char::range('a', 'z'),
    ]
}

pub(crate) fn hostile_string(min: usize, max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(hostile_char(), min..max).prop_map(|v| v.into_iter().collect())
}

/// 1–3 locales, up to 8 keys `[section, K<i>]` (unique, so no name conflicts), texts
/// present or not.
pub(crate) fn arbitrary_doc() -> impl Strategy<Value = Document> {
    let pool = ["en_US", "pl", "de-DE"];
    (1usize..=3, 1usize..=8).prop_flat_map(move |(n_locales, n_entries)| {
        let entry = (
            hostile_string(1, 6),
            prop::collection::vec(
                prop::option::weighted(0.8, hostile_string(1, 24)),
                n_locales,
            ),
            prop::option::of(hostile_string(0, 20)),
        );
        prop::collection::vec(entry, n_entries).prop_map(move |entries| Document {
            settings: Default::default(),
            namespaces: Vec::new(),
            findings: Vec::new(),
            locales: pool[..n_locales].iter().map(|s| s.to_string()).collect(),
            entries: entries
                .into_iter()
                .enumerate()
                .map(|(i, (section, texts, comment))| Entry {
                    path: vec![section, format!("K{i}")],
                    texts,
                    comment,
                    ..Entry::default()
                })
                .collect(),
            warnings: Vec::new(),
        })
    })
}

/// Whether `format` must refuse this selection, from the documented rules alone.
fn must_refuse(doc: &Document, sel: &Selection, format: Format, opts: &RenderOptions) -> bool {
    let mut texts: Vec<&str> = Vec::new();
    let mut keys: Vec<&str> = Vec::new();
    for ls in &sel.locales {
        for &e in ls.entries.iter() {
            let entry = &doc.entries[e];
            let Some(text) = &entry.texts[ls.locale] else {
                continue;
            };
            texts.push(text);
            keys.extend(entry.path.iter().map(String::as_str));
            if format == Format::Xlf
                && let Some(Some(base)) = opts.base_locale.map(|b| &entry.texts[b])
            {
                texts.push(base);
            }
        }
    }
    match format {
        Format::Xlf => texts
            .iter()
            .chain(&keys)
            .any(|s| s.chars().any(xml_forbidden)),
        Format::Android => texts.iter().any(|s| s.contains('\0')),
        Format::Po => texts.iter().chain(&keys).any(|s| s.contains('\0')),
        Format::Json
        | Format::Ios
        | Format::Yml
        | Format::Stringsdict
        | Format::Properties
        | Format::Resx => false,
        _ => unreachable!("not a plain format: see app_tests"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_text_round_trips_or_is_refused_with_a_clear_error(
        doc in arbitrary_doc(),
        single in any::<bool>(),
        comments in any::<bool>(),
        keep_locale in any::<bool>(),
        base in prop::option::of(0usize..1),
    ) {
        let sel = if single { only(&doc, 0) } else { Selection::all(&doc) };
        let opts = RenderOptions { comments, keep_locale, base_locale: base, ..RenderOptions::default() };
        for format in plain_formats() {
            let refuse = must_refuse(&doc, &sel, format, &opts);
            match render(&doc, &sel, format, &opts) {
                Ok(rendered) => {
                    prop_assert!(!refuse, "{} should have refused", format);
                    prop_assert!(rendered.warnings.is_empty());
                    assert_round_trip(&doc, &sel, format, &opts);
                }
                Err(err) => {
                    prop_assert!(refuse, "{} refused: {}", format, err);
                    let named = matches!(
                        &err,
                        RenderError::UnrepresentableText { format: f, key, .. }
                            | RenderError::UnrepresentableKey { format: f, key, .. }
                            if *f == format && !key.is_empty()
                    );
                    prop_assert!(named, "{}", err);
                }
            }
        }
    }

    #[test]
    fn names_are_valid_unique_and_every_loser_is_reported(
        paths in prop::collection::vec(
            prop::collection::vec(
                prop::sample::select(vec!["a", "A", "a_b", "b", "1", "new", "É", "a-b", "_"]),
                1..4,
            ),
            1..10,
        ),
        keep_locale in any::<bool>(),
    ) {
        let doc = Document { settings: Default::default(), namespaces: Vec::new(), findings: Vec::new(),
            locales: vec!["en".into(), "EN".into()],
            entries: paths
                .iter()
                .enumerate()
                .map(|(i, p)| Entry {
                    path: p.iter().map(|s| s.to_string()).collect(),
                    texts: vec![Some(format!("t{i}")), Some(format!("u{i}"))],
                    ..Entry::default()
                })
                .collect(),
            warnings: Vec::new(),
        };
        for sel in [only(&doc, 0), Selection::all(&doc)] {
            for format in plain_formats() {
                let opts = RenderOptions { keep_locale, ..RenderOptions::default() };
                let rendered = render(&doc, &sel, format, &opts).unwrap();
                let body = String::from_utf8(rendered.body).unwrap();
                // the readers refuse duplicate names and (android) invalid ones
                let texts: Vec<String> = if is_flat(format) {
                    read_flat(&doc, &sel, format, &opts, &body)
                        .unwrap_or_else(|e| panic!("{format}: {e}\n{body}"))
                        .into_iter()
                        .map(|(_, t)| t)
                        .collect()
                } else {
                    read_tree(format, &body)
                        .unwrap_or_else(|e| panic!("{format}: {e}\n{body}"))
                        .into_iter()
                        .map(|(_, t)| t)
                        .collect()
                };
                for ls in &sel.locales {
                    for &e in ls.entries.iter() {
                        let text = doc.entries[e].texts[ls.locale].as_ref().unwrap();
                        let path = doc.entries[e].path.join(".");
                        let shown = texts.contains(text);
                        let reported = rendered.warnings.iter().any(|w| w.contains(&format!("'{path}'")));
                        prop_assert!(shown || reported, "{}: {} lost silently\n{}", format, path, body);
                    }
                }
            }
        }
    }
}

/// Short paths from a few segments, so keys clash (same name, key under key, flat names
/// meeting), sections come back after others, and locale prefixes clash (`en`, `en_core`).
pub(crate) fn clashing_doc() -> impl Strategy<Value = Document> {
    let segment = prop::sample::select(vec!["a", "A", "b", "core", "x", "a_b", "1"]);
    let entry = (
        prop::collection::vec(segment, 1..4),
        prop::collection::vec(prop::option::weighted(0.7, "[a-z\"&]{1,6}"), 3),
        prop::option::of("[a-z]{0,5}"),
    );
    prop::collection::vec(entry, 1..14).prop_map(|entries| Document {
        settings: Default::default(),
        namespaces: Vec::new(),
        findings: Vec::new(),
        locales: vec!["en".into(), "en_core".into(), "pl".into()],
        entries: entries
            .into_iter()
            .map(|(path, texts, comment)| Entry {
                path: path.into_iter().map(str::to_owned).collect(),
                texts,
                comment,
                ..Entry::default()
            })
            .collect(),
        warnings: Vec::new(),
    })
}

/// Some of each locale's entries that have a text there, as a filter would pick them.
pub(crate) fn some_of(doc: &Document, locales: &[usize], keep: &[bool]) -> Selection {
    Selection {
        locales: locales
            .iter()
            .map(|&locale| LocaleSelection {
                locale,
                entries: (0..doc.entries.len())
                    .filter(|&e| doc.entries[e].texts[locale].is_some())
                    .filter(|&e| keep[(e + locale) % keep.len()])
                    .collect(),
            })
            .filter(|ls| !ls.entries.is_empty())
            .collect(),
    }
}

proptest! {
    #[test]
    fn prepared_renders_equal_one_off_renders(
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
            some_of(&doc, &[0], &[true]),
            some_of(&doc, &[1], &keep),
            some_of(&doc, &[2], &[true]),
        ];
        let opts = RenderOptions { comments, keep_locale, base_locale: Some(2), ..RenderOptions::default() };
        let outcome = |r: Result<Rendered, RenderError>| r.map_err(|e| e.to_string());
        // one buffer for every body, as `depot generate` renders (what it held is dropped)
        let mut body = b"left by the body before".to_vec();
        for sel in &selections {
            for format in plain_formats() {
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
                for locale_tree in [false, true] {
                    let into = prepared.render_into(sel, format, &opts, locale_tree, &mut body);
                    let into = into.map(|warnings| Rendered { body: body.clone(), warnings });
                    let alone = match locale_tree {
                        true => render_locale_tree(&doc, sel, format, &opts),
                        false => render(&doc, sel, format, &opts),
                    };
                    prop_assert_eq!(outcome(into), outcome(alone), "{} into a used buffer", format);
                }
            }
        }
    }
}

/// xlf's ids, names and sources are escaped once for all the files of a document; an
/// entry XML cannot carry fails the files that hold it, and only them, as before.
#[test]
fn xlf_files_sharing_escaped_pieces_fail_only_where_a_file_alone_fails() {
    let bad_base = Entry {
        path: vec!["a".into(), "bad".into()],
        texts: vec![Some("Bad\u{1}".into()), Some("Zle".into())],
        ..Entry::default()
    };
    let doc = Document {
        locales: vec!["en".into(), "pl".into()],
        entries: vec![
            entry("a.one", &["One & <b>", "Jeden \"x\""]),
            bad_base,
            entry("a.two", &["Two", "Dwa"]),
        ],
        ..Document::default()
    };
    let prepared = Prepared::new(&doc);
    let opts = RenderOptions {
        base_locale: Some(0),
        ..RenderOptions::default()
    };
    let pl = |entries: Vec<usize>| Selection {
        locales: vec![LocaleSelection {
            locale: 1,
            entries: entries.into(),
        }],
    };
    let outcome = |r: Result<Rendered, RenderError>| r.map_err(|e| e.to_string());
    let mut body = Vec::new();
    for (sel, fails) in [
        (pl(vec![0, 2]), false),
        (pl(vec![0, 1, 2]), true),
        (Selection::all(&doc), true),
    ] {
        let alone = outcome(render_locale_tree(&doc, &sel, Format::Xlf, &opts));
        assert_eq!(alone.is_err(), fails, "{sel:?}: {alone:?}");
        assert_eq!(
            outcome(prepared.render_locale_tree(&sel, Format::Xlf, &opts)),
            alone,
            "{sel:?}"
        );
        let into = prepared.render_into(&sel, Format::Xlf, &opts, true, &mut body);
        let into = into.map(|warnings| Rendered {
            body: body.clone(),
            warnings,
        });
        assert_eq!(outcome(into), alone, "{sel:?}");
    }
}

#[test]
fn xlf_pieces_escaped_on_several_cores_give_the_bodies_of_a_file_alone() {
    // Over the size where `xlf::write::Shared` escapes its pieces in parts; keys whose
    // base text XML cannot carry in both halves, each failing only the files holding it.
    let entries: Vec<Entry> = (0..12_000)
        .map(|i| Entry {
            path: vec![format!("s{}", i / 100), format!("k{i}")],
            texts: vec![
                Some(match i % 5_000 {
                    7 => format!("bad {i}\u{1}"),
                    _ => format!("Text {i} & <b>\"{i}\"</b>"),
                }),
                Some(format!("Tekst {i} & ok")),
            ],
            ..Entry::default()
        })
        .collect();
    let doc = Document {
        locales: vec!["en".into(), "pl".into()],
        entries,
        ..Document::default()
    };
    let prepared = Prepared::new(&doc);
    let opts = RenderOptions {
        base_locale: Some(0),
        ..RenderOptions::default()
    };
    let bad = [7, 5_007, 10_007];
    let pl = |entries: Vec<usize>| Selection {
        locales: vec![LocaleSelection {
            locale: 1,
            entries: entries.into(),
        }],
    };
    let outcome = |r: Result<Rendered, RenderError>| r.map_err(|e| e.to_string());
    let good: Vec<usize> = (0..12_000).filter(|i| !bad.contains(i)).collect();
    for (sel, fails) in [
        (pl(good), false),
        (pl(vec![0, 10_007, 11_999]), true),
        (Selection::all(&doc), true),
    ] {
        let alone = outcome(render_locale_tree(&doc, &sel, Format::Xlf, &opts));
        assert_eq!(alone.is_err(), fails);
        assert_eq!(
            outcome(prepared.render_locale_tree(&sel, Format::Xlf, &opts)),
            alone
        );
    }
}

#[test]
fn a_large_selection_renders_through_prepared_with_the_same_bodies() {
    // 12,000 texts: over the size where `render` prepares the document itself.
    // Valid language codes (xlf checks them): `aa`, `ab`, ...
    let locales: Vec<String> = (0..60u8)
        .map(|i| format!("{}{}", char::from(b'a' + i / 26), char::from(b'a' + i % 26)))
        .collect();
    let doc = Document {
        settings: Default::default(),
        namespaces: Vec::new(),
        findings: Vec::new(),
        entries: (0..200)
            .map(|k| Entry {
                path: vec![format!("S{}", k / 20), format!("K{k}")],
                texts: (0..locales.len())
                    .map(|l| Some(format!("text {k} \"{l}\" & more")))
                    .collect(),
                comment: (k % 7 == 0).then(|| "note".to_owned()),
                ..Entry::default()
            })
            .collect(),
        locales,
        warnings: Vec::new(),
    };
    let all = Selection::all(&doc);
    let opts = RenderOptions {
        comments: true,
        ..RenderOptions::default()
    };
    for format in plain_formats() {
        let one_off = render_with(&doc, None, &all, format, &opts, false).unwrap();
        assert_eq!(
            render(&doc, &all, format, &opts).unwrap(),
            one_off,
            "{format}"
        );
    }
}

#[test]
fn a_locale_tree_file_drops_the_locale_level_in_json_and_yml_only() {
    let doc = basic();
    let mut one = Selection::all(&doc);
    one.locales.truncate(1);
    let opts = RenderOptions::default();
    let body = |format| {
        String::from_utf8(render_locale_tree(&doc, &one, format, &opts).unwrap().body).unwrap()
    };
    assert_eq!(
        body(Format::Json),
        r#"{"CORE":{"LABELS":{"YES":"Yes","NO":"No"}},"FRONT":{"HEADER":{"TITLE":"Something"}}}"#
    );
    assert!(
        body(Format::Yml).starts_with("\"CORE\":\n  \"LABELS\":\n"),
        "{}",
        body(Format::Yml)
    );
    // Flat formats are the same either way.
    let plain = render(&doc, &one, Format::Po, &opts).unwrap().body;
    assert_eq!(
        render_locale_tree(&doc, &one, Format::Po, &opts)
            .unwrap()
            .body,
        plain
    );
    // With several locales the locale level stays (keys of two locales cannot share one tree).
    let all = Selection::all(&doc);
    assert_eq!(
        render_locale_tree(&doc, &all, Format::Json, &opts)
            .unwrap()
            .body,
        render(&doc, &all, Format::Json, &opts).unwrap().body
    );
}

#[test]
fn known_warnings_list_each_collision_once_per_format_and_are_bounded() {
    let pairs = KNOWN_WARNINGS_MAX + 50;
    let entry = |path: &[String]| Entry {
        path: path.to_vec(),
        texts: vec![Some("a".into()), Some("b".into())],
        ..Entry::default()
    };
    let mut entries = Vec::new();
    for i in 0..pairs {
        entries.push(entry(&[format!("X{i}"), "A_B".into()]));
        entries.push(entry(&[format!("X{i}_A"), "B".into()]));
    }
    entries.push(entry(&["ÜN".into()]));
    entries.push(entry(&["_N".into()]));
    let doc = Document {
        settings: Default::default(),
        namespaces: Vec::new(),
        findings: Vec::new(),
        locales: vec!["en".into(), "pl".into()],
        entries,
        warnings: Vec::new(),
    };
    let known = known_warnings(&doc);
    let formats: Vec<Format> = known.iter().map(|(f, _)| *f).collect();
    // properties keeps the two apart (`x0.a_b`, `x0_a.b`); resx folds them as android
    assert_eq!(
        formats,
        [
            Format::Android,
            Format::Ios,
            Format::Xlf,
            Format::Po,
            Format::Xcstrings,
            Format::Arb,
            Format::Resx
        ]
    );
    for (format, warnings) in &known {
        assert_eq!(warnings.len(), KNOWN_WARNINGS_MAX + 1, "{format}");
        let name = match format {
            Format::Arb => "x0AB",
            Format::Resx => "X0_A_B",
            _ => "x0_a_b",
        };
        assert_eq!(
            warnings[0],
            format!(
                "keys 'X0.A_B' and 'X0_A.B' both become the name '{name}'; kept 'X0.A_B', left \
                 out 'X0_A.B'"
            )
        );
        let more = if matches!(format, Format::Android | Format::Arb | Format::Resx) {
            51
        } else {
            50
        };
        assert_eq!(warnings[KNOWN_WARNINGS_MAX], format!("and {more} more"));
    }
}

/// 1–3 locales, up to 6 keys, some of them plural entries (`one`, `few`, `other` forms,
/// each present or not per locale), hostile texts and section names.
pub(crate) fn plural_doc() -> impl Strategy<Value = Document> {
    let pool = ["en_US", "pl", "de-DE"];
    (1usize..=3, 1usize..=6).prop_flat_map(move |(n_locales, n_entries)| {
        let texts = move || {
            prop::collection::vec(
                prop::option::weighted(0.8, hostile_string(1, 16)),
                n_locales,
            )
        };
        let forms = prop::option::weighted(0.5, (texts(), texts(), texts()));
        let entry = (hostile_string(1, 6), texts(), forms);
        prop::collection::vec(entry, n_entries).prop_map(move |entries| {
            let entries =
                (entries.into_iter()).map(|(section, texts, forms)| (section, texts, forms, None));
            entries_doc(&pool[..n_locales], entries)
        })
    })
}

/// Texts per locale, as the generators make them.
pub(crate) type Texts = Vec<Option<String>>;

/// A document of `locales` whose entries are (section, texts, `one`/`few`/`other` forms,
/// comment): key `K<i>` in its section; a plural entry's texts are its `other` form's,
/// else its first form's.
pub(crate) fn entries_doc(
    locales: &[&str],
    entries: impl IntoIterator<Item = (String, Texts, Option<(Texts, Texts, Texts)>, Option<String>)>,
) -> Document {
    let n_locales = locales.len();
    Document {
        locales: locales.iter().map(|s| s.to_string()).collect(),
        entries: (entries.into_iter().enumerate())
            .map(|(i, (section, texts, forms, comment))| {
                let plural = forms.map(|(one, few, other)| {
                    let form = |category, texts| PluralForm { category, texts };
                    Box::new(Plural {
                        forms: vec![
                            form(PluralCategory::One, one),
                            form(PluralCategory::Few, few),
                            form(PluralCategory::Other, other),
                        ],
                    })
                });
                let texts = match &plural {
                    None => texts,
                    Some(plural) => (0..n_locales)
                        .map(|l| {
                            let other = plural.text(PluralCategory::Other, l);
                            let first = plural.forms_in(l).next().map(|(_, t)| t);
                            other.or(first).map(str::to_owned)
                        })
                        .collect(),
                };
                Entry {
                    path: vec![section, format!("K{i}")],
                    texts,
                    plural,
                    comment,
                    ..Entry::default()
                }
            })
            .collect(),
        ..Document::default()
    }
}

proptest! {
    /// xlf escapes a key's id, name and source once per body and copies them into every
    /// locale after the first (`Repeated`): each locale's `<file>` in a body of all locales
    /// is the one a body of that locale alone holds (names prefixed in both), and a body
    /// that cannot be written fails as the first locale that cannot be written alone.
    #[test]
    fn an_xlf_file_of_many_locales_holds_what_each_locale_alone_holds(
        doc in plural_doc(),
        base in prop::option::of(0usize..1),
        comments in any::<bool>(),
    ) {
        let opts = RenderOptions {
            comments,
            keep_locale: true,
            base_locale: base,
            ..RenderOptions::default()
        };
        let files = |body: Vec<u8>| -> Vec<String> {
            let body = String::from_utf8(body).unwrap();
            let files = body.strip_suffix("</xliff>\n").unwrap_or(&body);
            files.split("  <file ").skip(1).map(str::to_owned).collect()
        };
        let all = Selection::all(&doc);
        let alone: Vec<Result<Vec<String>, String>> = all
            .locales
            .iter()
            .map(|ls| {
                let rendered = render(&doc, &only(&doc, ls.locale), Format::Xlf, &opts);
                rendered.map(|r| files(r.body)).map_err(|e| e.to_string())
            })
            .collect();
        match render(&doc, &all, Format::Xlf, &opts) {
            Ok(rendered) => {
                let together = files(rendered.body);
                let alone: Result<Vec<Vec<String>>, String> = alone.into_iter().collect();
                prop_assert_eq!(Ok(together), alone.map(|files| files.concat()));
            }
            Err(error) => {
                let first_error = alone.into_iter().find_map(Result::err);
                prop_assert_eq!(Some(error.to_string()), first_error);
            }
        }
    }
}

// ------------------------------------------------------------------ properties and resx

/// `plural_doc` with an `other` form wherever a plural entry has a form (the sheet's rule),
/// so every plural entry is written.
fn plural_doc_with_other() -> impl Strategy<Value = Document> {
    plural_doc().prop_map(|mut doc| {
        for entry in &mut doc.entries {
            let Some(plural) = entry.plural.as_deref_mut() else {
                continue;
            };
            for locale in 0..doc.locales.len() {
                let first = plural.forms_in(locale).next().map(|(_, t)| t.to_owned());
                let other = plural
                    .forms
                    .iter_mut()
                    .find(|f| f.category == PluralCategory::Other);
                if let (Some(first), Some(other)) = (first, other)
                    && other.texts[locale].is_none()
                {
                    other.texts[locale] = Some(first);
                }
            }
        }
        doc
    })
}

/// `(name, text)` a properties or resx body must hold: a plain key's name, a plural
/// entry's name once per form the locale has, with the category (`.one`, `_One`).
fn expected_with_forms(doc: &Document, sel: &Selection, format: Format) -> Vec<(String, String)> {
    let plain = expected_flat(doc, sel, format, false);
    let mut plain = plain.into_iter();
    let mut out = Vec::new();
    for ls in sel.locales.iter().filter(|l| !l.entries.is_empty()) {
        for &e in ls.entries.iter() {
            if doc.entries[e].texts[ls.locale].is_none() {
                continue;
            }
            let (name, text) = plain.next().unwrap();
            match &doc.entries[e].plural {
                None => out.push((name, text)),
                Some(plural) => {
                    for (category, form) in plural.forms_in(ls.locale) {
                        let suffix = match format {
                            Format::Properties => format!(".{}", category.name()),
                            _ => format!("_{}", csharp_name(category.name())),
                        };
                        out.push((format!("{name}{suffix}"), form.to_owned()));
                    }
                }
            }
        }
    }
    out
}

proptest! {
    /// Any text of the sheet, plain or a plural form, in one locale or several, comes back
    /// from a properties body through `Properties.load`'s rules and from a resx body
    /// through ResXResourceReader's and MSBuild's, under the name the SPEC gives it.
    #[test]
    fn any_text_and_plural_form_survives_properties_and_resx(
        doc in plural_doc_with_other(),
        single in any::<bool>(),
        comments in any::<bool>(),
    ) {
        let sel = if single { only(&doc, 0) } else { Selection::all(&doc) };
        let opts = RenderOptions { comments, base_locale: Some(0), ..RenderOptions::default() };
        let prepared = Prepared::new(&doc);
        for format in [Format::Properties, Format::Resx] {
            let rendered = render(&doc, &sel, format, &opts).unwrap();
            prop_assert!(rendered.warnings.is_empty(), "{:?}", rendered.warnings);
            // from the columns a prepared document lays out, the same body
            prop_assert_eq!(&prepared.render(&sel, format, &opts).unwrap(), &rendered);
            let body = String::from_utf8(rendered.body).unwrap();
            let read = read_flat(&doc, &sel, format, &opts, &body)
                .unwrap_or_else(|e| panic!("{format}: {e}\n{body}"));
            prop_assert_eq!(read, expected_with_forms(&doc, &sel, format), "{}\n{}", format, body);
        }
    }
}

fn entry(path: &str, texts: &[&str]) -> Entry {
    Entry {
        path: path.split('.').map(str::to_owned).collect(),
        texts: texts.iter().map(|t| Some(t.to_string())).collect(),
        ..Entry::default()
    }
}

fn plural_entry(path: &str, forms: &[(PluralCategory, &str)]) -> Entry {
    let plural = Plural {
        forms: (forms.iter())
            .map(|&(category, text)| PluralForm {
                category,
                texts: vec![Some(text.to_owned())],
            })
            .collect(),
    };
    Entry {
        texts: vec![plural.text(PluralCategory::Other, 0).map(str::to_owned)],
        plural: Some(Box::new(plural)),
        ..entry(path, &[])
    }
}

#[test]
fn properties_and_resx_write_a_plural_entry_as_one_name_per_category() {
    let doc = Document {
        locales: vec!["en".into()],
        entries: vec![
            entry("CORE.LABELS.YES", &["Yes"]),
            plural_entry(
                "CART.ITEMS",
                &[
                    (PluralCategory::One, "{count} item"),
                    (PluralCategory::Other, "{count} items"),
                ],
            ),
        ],
        ..Document::default()
    };
    let opts = RenderOptions::default();
    let properties = render_str(&doc, &Selection::all(&doc), Format::Properties, &opts);
    assert_eq!(
        properties,
        "core.labels.yes=Yes\ncart.items.one={count} item\ncart.items.other={count} items\n"
    );
    let resx = render_str(&doc, &Selection::all(&doc), Format::Resx, &opts);
    let names: Vec<String> = read_resx(&resx)
        .unwrap()
        .pairs
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(
        names,
        ["Core_Labels_Yes", "Cart_Items_One", "Cart_Items_Other"]
    );
}

/// A plural form's name meets a key's (`ITEMS[one]` and `ITEMS_ONE` in resx, `items.ONE`
/// in properties), and names that differ only in case meet (properties lower-cases them,
/// resgen refuses them in resx): the render keeps the
/// first and says so, `/health`'s list and the checks name the same pairs.
#[test]
fn names_of_plural_forms_and_of_other_case_clash_where_their_format_writes_them() {
    let doc = Document {
        locales: vec!["en".into()],
        entries: vec![
            plural_entry(
                "ITEMS",
                &[
                    (PluralCategory::One, "one item"),
                    (PluralCategory::Other, "items"),
                ],
            ),
            entry("ITEMS_ONE", &["resx loses this"]),
            entry("items.ONE", &["properties loses this"]),
            entry("A.myKey", &["kept"]),
            entry("A.MYKEY", &["resx loses this too"]),
        ],
        ..Document::default()
    };
    let all = Selection::all(&doc);
    let opts = RenderOptions::default();
    let properties = render(&doc, &all, Format::Properties, &opts).unwrap();
    assert_eq!(
        properties.warnings,
        [
            "keys 'ITEMS' and 'items.ONE' both become the name 'items.one'; kept 'ITEMS', left \
             out 'items.ONE'",
            "keys 'A.myKey' and 'A.MYKEY' both become the name 'a.mykey'; kept 'A.myKey', left \
             out 'A.MYKEY'",
        ]
    );
    let read = read_properties(std::str::from_utf8(&properties.body).unwrap()).unwrap();
    let names: Vec<&str> = read.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["items.one", "items.other", "items_one", "a.mykey"]);

    let resx = render(&doc, &all, Format::Resx, &opts).unwrap();
    assert_eq!(
        resx.warnings,
        [
            "keys 'ITEMS' and 'ITEMS_ONE' both become the name 'Items_One'; kept 'ITEMS', left \
             out 'ITEMS_ONE'",
            "keys 'ITEMS' and 'items.ONE' both become the name 'Items_One'; kept 'ITEMS', left \
             out 'items.ONE'",
            "keys 'A.myKey' and 'A.MYKEY' both become the name 'A_Mykey'; kept 'A.myKey', left \
             out 'A.MYKEY'",
        ]
    );
    let read = read_resx(std::str::from_utf8(&resx.body).unwrap()).unwrap();
    let names: Vec<&str> = read.pairs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Items_One", "Items_Other", "A_MyKey"]);

    // several locales: the prefix does not hide a clash
    let two = Document {
        locales: vec!["en".into(), "pl".into()],
        entries: (doc.entries.iter())
            .map(|e| {
                let mut e = e.clone();
                e.texts.push(e.texts[0].clone());
                if let Some(plural) = e.plural.as_deref_mut() {
                    for form in &mut plural.forms {
                        form.texts.push(form.texts[0].clone());
                    }
                }
                e
            })
            .collect(),
        ..Document::default()
    };
    let both = render(&two, &Selection::all(&two), Format::Resx, &opts).unwrap();
    assert_eq!(both.warnings.len(), 3, "{:?}", both.warnings);
    assert!(
        both.warnings[0].contains("'En_Items_One'"),
        "{:?}",
        both.warnings
    );

    // what /health lists for a whole locale
    let known: std::collections::HashMap<Format, Vec<String>> =
        known_warnings(&doc).into_iter().collect();
    assert_eq!(known[&Format::Properties], properties.warnings);
    assert_eq!(known[&Format::Resx], resx.warnings);

    // the checks: one finding per pair and format family, in the later key's order
    let mut scratch = String::new();
    let hashes: Vec<u64> = (doc.entries.iter())
        .map(|e| android_name_hash(&e.path, &mut scratch))
        .collect();
    let clashes: Vec<(&str, usize, usize, String)> = (name_clashes(&doc, |e| hashes[e])
        .into_iter())
    .map(|(formats, kept, lost, name)| (&*formats.into_owned().leak(), kept, lost, name))
    .collect();
    assert_eq!(
        clashes,
        [
            ("resx", 0, 1, "Items_One".to_owned()),
            (
                "android, ios, stringsdict, xcstrings, xlf and po",
                1,
                2,
                "items_one".to_owned()
            ),
            ("properties", 0, 2, "items.one".to_owned()),
            ("resx", 0, 2, "Items_One".to_owned()),
            ("arb", 1, 2, "itemsOne".to_owned()),
            (
                "android, ios, stringsdict, xcstrings, xlf and po",
                3,
                4,
                "a_mykey".to_owned()
            ),
            ("properties", 3, 4, "a.mykey".to_owned()),
            ("resx", 3, 4, "A_Mykey".to_owned()),
        ]
    );
}

#[test]
fn converted_placeholders_are_message_format_and_composite_format_items() {
    let doc = Document {
        locales: vec!["en".into(), "pl".into()],
        entries: vec![
            entry(
                "TITLE",
                &["{name} has {n:int} files", "{n:int} plików ma {name}"],
            ),
            entry("QUOTE", &["It's {{quoted}}", "To {{cytat}}, {name}'s"]),
            Entry {
                plural: Some(Box::new(Plural {
                    forms: vec![PluralForm {
                        category: PluralCategory::Other,
                        texts: vec![
                            Some("{count} files in '{folder}'".into()),
                            Some("{folder}: {count} plików".into()),
                        ],
                    }],
                })),
                ..entry("FILES", &["x", "y"])
            },
        ],
        ..Document::default()
    };
    let opts = RenderOptions {
        base_locale: Some(0),
        placeholders: PlaceholderMode::Convert,
        ..RenderOptions::default()
    };
    let texts = |format, locale| -> Vec<String> {
        let body = render_str(&doc, &only(&doc, locale), format, &opts);
        read_flat(&doc, &only(&doc, locale), format, &opts, &body)
            .unwrap()
            .into_iter()
            .map(|(_, text)| text)
            .collect()
    };
    // MessageFormat: `'` doubled and braces quoted only where MessageFormat reads the text
    assert_eq!(
        texts(Format::Properties, 0),
        ["{0} has {1} files", "It's {quoted}", "{0} files in ''{1}''"]
    );
    assert_eq!(
        texts(Format::Properties, 1),
        [
            "{1} plików ma {0}",
            "To '{'cytat'}', {0}''s",
            "{1}: {0} plików"
        ]
    );
    assert_eq!(
        texts(Format::Resx, 1),
        [
            "{1} plików ma {0}",
            "To {{cytat}}, {0}'s",
            "{1}: {0} plików"
        ]
    );
}

/// Two plural entries whose forms meet (`X.A_B[one]` and `X_A.B[one]` both become
/// `X_A_B_One` in resx) are found by the checks and settled by the render like two keys.
#[test]
fn plural_forms_that_meet_each_other_are_a_clash() {
    let forms = [
        (PluralCategory::One, "one"),
        (PluralCategory::Other, "other"),
    ];
    let doc = Document {
        locales: vec!["en".into()],
        entries: vec![plural_entry("X.A_B", &forms), plural_entry("X_A.B", &forms)],
        ..Document::default()
    };
    let mut scratch = String::new();
    let hashes: Vec<u64> = (doc.entries.iter())
        .map(|e| android_name_hash(&e.path, &mut scratch))
        .collect();
    let clashes: Vec<(&str, usize, usize, String)> = (name_clashes(&doc, |e| hashes[e])
        .into_iter())
    .map(|(formats, kept, lost, name)| (&*formats.into_owned().leak(), kept, lost, name))
    .collect();
    assert_eq!(
        clashes,
        [
            (
                "android, ios, stringsdict, xcstrings, xlf and po",
                0,
                1,
                "x_a_b".to_owned()
            ),
            ("resx", 0, 1, "X_A_B_One".to_owned()),
            ("arb", 0, 1, "xAB".to_owned()),
        ]
    );
    let resx = render(
        &doc,
        &Selection::all(&doc),
        Format::Resx,
        &RenderOptions::default(),
    );
    let resx = resx.unwrap();
    assert_eq!(resx.warnings.len(), 1, "{:?}", resx.warnings);
    let properties = render(
        &doc,
        &Selection::all(&doc),
        Format::Properties,
        &RenderOptions::default(),
    );
    assert!(properties.unwrap().warnings.is_empty());
}

// ------------------------------------------------------------------ names shared by formats

/// Name cells a sheet may give a key: `@@@` and the own columns of formats that share a
/// name style (and android's, which refuses some `@@@` names), with names that meet,
/// differ only in case, or are refused by aapt2.
fn name_cells() -> impl Strategy<Value = Vec<(&'static str, &'static str)>> {
    let column = prop::sample::select(
        &[
            "",
            "",
            "",
            "ios",
            "stringsdict",
            "po",
            "xlf",
            "xcstrings",
            "android",
            "resx",
        ][..],
    );
    let name = prop::sample::select(&["Home.Title", "home.title", "Key", "key", "1 bad", "x"][..]);
    prop::collection::vec((column, name), 0..3)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// `names_like` only ever stands a format for one that names every key alike, so
    /// `Prepared` and the checks may build the names once for both.
    #[test]
    fn formats_named_alike_share_their_names(
        cells in prop::collection::vec(name_cells(), 1..8),
        plural in prop::collection::vec(any::<bool>(), 8),
    ) {
        let mut doc = Document {
            locales: vec!["en".into()],
            ..Document::default()
        };
        for (k, cells) in cells.into_iter().enumerate() {
            let mut entry = Entry {
                path: vec![format!("K{k}")],
                texts: vec![Some("t".into())],
                ..Entry::default()
            };
            for (column, name) in cells {
                entry.names.insert(column.to_owned(), name.to_owned());
            }
            if plural[k] {
                entry.plural = Some(Box::new(Plural {
                    forms: vec![PluralForm {
                        category: PluralCategory::Other,
                        texts: vec![Some("t".into())],
                    }],
                }));
            }
            doc.entries.push(entry);
        }
        let own = own_name_columns(&doc);
        for format in Format::ALL {
            let Some(style) = format.descriptor().name_style else {
                continue;
            };
            let like = names_like(format, own);
            prop_assert_eq!(like.descriptor().name_style, Some(style));
            for entry in &doc.entries {
                prop_assert_eq!(format.name_of(entry), like.name_of(entry), "{:?} {:?}", format, like);
            }
            let names = flatten::Names::build(&doc, style, Some(format), true, None);
            let shared = flatten::Names::build(&doc, style, Some(like), true, None);
            for e in 0..doc.entries.len() {
                prop_assert_eq!(names.name(e), shared.name(e));
                prop_assert_eq!(names.named_by_sheet(e), shared.named_by_sheet(e));
            }
        }
    }
}
