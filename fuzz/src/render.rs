//! The oracle for everything downstream of a sheet: a converted document is consistent, a
//! selection indexes it, and every body a format renders reads back in that format's
//! consumer (the readers of tests/support/readback.rs) with every selected text in it,
//! unless a warning names the key that was left out.

use depot::model::filter::{Filter, FilterIndex};
use depot::formats::{self, Format, Prepared, RenderOptions, Rendered};
use depot::model::{Document, Selection};
use depot::markup;

use crate::readback::{read_android, read_po, read_strings, read_xlf, read_yml};

/// Converts a grid; a document that converts is checked and rendered in every format.
pub fn convert_and_render(rows: Vec<Vec<String>>) -> Option<Document> {
    let doc = sheet::convert(rows).ok()?;
    check_document(&doc);
    let opts = RenderOptions {
        comments: true,
        keep_locale: false,
        base_locale: (!doc.locales.is_empty()).then_some(0),
    };
    check_renders(&doc, &Selection::all(&doc), &opts);
    Some(doc)
}

/// What `convert` promises about its output.
pub fn check_document(doc: &Document) {
    for entry in &doc.entries {
        assert!(!entry.path.is_empty(), "an entry without a path: {entry:?}");
        assert_eq!(entry.texts.len(), doc.locales.len(), "{entry:?}");
    }
}

/// Selects with `filters` through the index, and checks the selection against the document.
pub fn select(doc: &Document, filters: &[Filter]) -> Option<Selection> {
    let selected = FilterIndex::new(doc).select(filters).ok()?;
    let sel = selected.selection;
    let mut last_locale = None;
    for ls in &sel.locales {
        assert!(ls.locale < doc.locales.len(), "{sel:?}");
        assert!(
            last_locale < Some(ls.locale),
            "locales out of order: {sel:?}"
        );
        last_locale = Some(ls.locale);
        assert!(ls.entries.windows(2).all(|w| w[0] < w[1]), "{sel:?}");
        for &e in &ls.entries {
            let text = doc
                .entries
                .get(e)
                .and_then(|entry| entry.texts[ls.locale].as_ref());
            assert!(
                text.is_some(),
                "entry {e} has no text in locale {}",
                ls.locale
            );
        }
    }
    // The one-off `select` resolves the same filters to the same selection.
    assert_eq!(
        depot::model::filter::select(doc, filters)
            .ok()
            .as_ref(),
        Some(&sel)
    );
    Some(sel)
}

/// Renders `sel` in every format, one-off and through `Prepared` (which must agree), as a
/// whole and as a locale tree, and reads back every body.
pub fn check_renders(doc: &Document, sel: &Selection, opts: &RenderOptions) {
    let prepared = Prepared::new(doc);
    let outcome = |r: Result<Rendered, formats::RenderError>| r.map_err(|e| e.to_string());
    for format in Format::ALL {
        let one_off = formats::render(doc, sel, format, opts);
        if let Ok(rendered) = &one_off {
            check_body(doc, sel, format, rendered);
        }
        assert_eq!(
            outcome(one_off),
            outcome(prepared.render(sel, format, opts)),
            "{format}: Prepared::render differs from render"
        );
        let tree = formats::render_locale_tree(doc, sel, format, opts);
        if let Ok(rendered) = &tree
            && !(sel.locales.len() == 1 && matches!(format, Format::Json | Format::Yml))
        {
            check_body(doc, sel, format, rendered);
        }
        assert_eq!(
            outcome(tree),
            outcome(prepared.render_locale_tree(sel, format, opts)),
            "{format}: Prepared::render_locale_tree differs from render_locale_tree"
        );
    }
}

/// The body reads back in the consumer's reader, and holds every selected text unless a
/// warning names its key.
fn check_body(doc: &Document, sel: &Selection, format: Format, rendered: &Rendered) {
    let Ok(body) = std::str::from_utf8(&rendered.body) else {
        panic!("{format}: the body is not UTF-8");
    };
    let texts = read_texts(format, body).unwrap_or_else(|e| panic!("{format}: {e}\n{body}"));
    for ls in &sel.locales {
        for &e in &ls.entries {
            let entry = &doc.entries[e];
            let Some(text) = entry.texts[ls.locale].as_ref() else {
                continue;
            };
            let path = entry.path.join(".");
            let reported = (rendered.warnings.iter()).any(|w| w.contains(&format!("'{path}'")));
            assert!(
                reported || texts.iter().any(|t| t == text),
                "{format}: the text {text:?} of '{path}' ({}) is lost without a warning\n{body}",
                doc.locales[ls.locale]
            );
        }
    }
}

/// Every text the consumer reads from `body`.
fn read_texts(format: Format, body: &str) -> Result<Vec<String>, String> {
    Ok(match format {
        Format::Json => {
            let value: serde_json::Value = serde_json::from_str(body).map_err(|e| e.to_string())?;
            let mut texts = Vec::new();
            json_leaves(&value, &mut texts)?;
            texts
        }
        Format::Android => read_android(body)?.into_iter().map(|u| u.text).collect(),
        Format::Ios => read_strings(body)?.into_iter().map(|u| u.text).collect(),
        Format::Yml => read_yml(body)?.into_iter().map(|(_, t)| t).collect(),
        Format::Xlf => read_xlf(body)?
            .into_iter()
            .flat_map(|file| file.units)
            .map(|unit| unit.target.unwrap_or_default())
            .collect(),
        Format::Po => read_po(body)?.units.into_iter().map(|u| u.msgstr).collect(),
    })
}

fn json_leaves(value: &serde_json::Value, out: &mut Vec<String>) -> Result<(), String> {
    match value {
        serde_json::Value::String(text) => out.push(text.clone()),
        serde_json::Value::Object(map) => {
            for child in map.values() {
                json_leaves(child, out)?;
            }
        }
        other => return Err(format!("a json leaf that is not a string: {other}")),
    }
    Ok(())
}
