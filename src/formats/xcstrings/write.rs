//! Apple String Catalog (`Localizable.xcstrings`, Xcode 15+, SPEC §11): every selected
//! locale in one JSON file, laid out byte for byte as Xcode writes it, so that a committed
//! catalog diffs cleanly after Xcode touches it: NSJSONSerialization's pretty printing
//! (two spaces per level, `"key" : value`, an empty object as `{` blank line `}`, no
//! newline at the end, `/` not escaped) with every object's keys in Xcode's order
//! (`xcode_order`). Names are the ios `.strings` names; languages the `.lproj` ones.

use std::collections::HashMap;

use crate::formats::json::write::push_json_str;
use crate::formats::shared::convert::Converter;
use crate::formats::shared::flatten::Flat;
use crate::formats::shared::flatten::NameStyle;
use crate::formats::shared::texts::Forms;
use crate::formats::writing::Job;
use crate::formats::{Format, RenderError, RenderOptions, xcstrings::xcode_order};
use crate::model::langtag;
use crate::model::placeholders::Syntax;
use crate::model::{Document, Entry};

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    let flat = job.flat_unprefixed(NameStyle::Plain);
    let sorted = job.prepared.map(crate::formats::Prepared::xcode_order);
    let left_out = render(&flat, sorted, job.opts, out)?;
    Ok(flat.warnings.iter().cloned().chain(left_out).collect())
}

/// Writes the catalog of `flat` (unprefixed plain names). `sorted`: every entry of the
/// document in Xcode's order of its name, when prepared beforehand; else the selected
/// entries are sorted here. Returns what was left out besides `flat`'s own warnings.
pub(crate) fn render(
    flat: &Flat<'_>,
    sorted: Option<&[usize]>,
    opts: &RenderOptions,
    out: &mut Vec<u8>,
) -> Result<Vec<String>, RenderError> {
    let doc = flat.doc;
    let (languages, warnings) = languages(flat)?;
    let source = match opts.base_locale {
        Some(base) => language_of(doc, base)?,
        None => "en".to_owned(),
    };
    let entries = entries_in_order(flat, sorted);
    // `selected[pos][e]`: locale `pos` of `flat` selected entry `e`
    let selected: Vec<Vec<bool>> = (flat.locales.iter())
        .map(|loc| {
            let mut marks = vec![false; doc.entries.len()];
            for &e in loc.entries() {
                marks[e] = true;
            }
            marks
        })
        .collect();
    let converter = Converter::new(opts, Syntax::Ios);
    let mut catalog = Catalog {
        out,
        converter,
        comments: opts.comments,
    };
    catalog.out.extend_from_slice(b"{\n  \"sourceLanguage\" : ");
    push_json_str(catalog.out, &source);
    catalog.out.extend_from_slice(b",\n  \"strings\" : {\n");
    let mut first_name = true;
    let mut texts = Vec::with_capacity(languages.len());
    let mut at = 0;
    while at < entries.len() {
        // entries with one name follow each other; in each language the one that kept the
        // name there speaks for it
        let name = flat.name(entries[at]);
        let mut end = at + 1;
        while end < entries.len() && flat.name(entries[end]) == name {
            end += 1;
        }
        let group = &entries[at..end];
        at = end;
        texts.clear();
        for language in &languages {
            let pos = language.pos;
            let locale = flat.locales[pos].locale;
            let found = group.iter().find_map(|&e| {
                let text = flat.texts.get(e, locale)?;
                (selected[pos][e] && !flat.lost_name(pos, e)).then_some((e, text))
            });
            if let Some((e, text)) = found {
                texts.push((language, e, text));
            }
        }
        let Some(&(_, first, _)) = texts.first() else {
            continue;
        };
        if !first_name {
            catalog.out.extend_from_slice(b",\n");
        }
        first_name = false;
        catalog.string(name, &doc.entries[first], flat, &texts);
    }
    // after the last string; for none, NSJSONSerialization's empty object (`{`, a blank
    // line, `}`)
    catalog.out.push(b'\n');
    catalog
        .out
        .extend_from_slice(b"  },\n  \"version\" : \"1.0\"\n}");
    Ok(warnings)
}

/// One language of the catalog: its `.lproj` name and the locale's position in `flat`.
struct Language {
    name: String,
    pos: usize,
}

/// The selected locales as catalog languages, in Xcode's order; a locale whose language
/// an earlier one already is (`pl` and `pl_PL`) is left out and reported.
fn languages(flat: &Flat<'_>) -> Result<(Vec<Language>, Vec<String>), RenderError> {
    let mut languages = Vec::with_capacity(flat.locales.len());
    let mut seen: HashMap<String, &str> = HashMap::new();
    let mut warnings = Vec::new();
    for (pos, loc) in flat.locales.iter().enumerate() {
        let name = language_of(flat.doc, loc.locale)?;
        match seen.get(name.as_str()) {
            Some(kept) => warnings.push(format!(
                "locales '{kept}' and '{}' are both the language '{name}' in xcstrings; kept \
                 '{kept}', left out '{}'",
                loc.code, loc.code
            )),
            None => {
                seen.insert(name.clone(), loc.code);
                languages.push(Language { name, pos });
            }
        }
    }
    languages.sort_by(|a, b| xcode_order::compare(&a.name, &b.name));
    Ok((languages, warnings))
}

/// A locale's `.lproj` language (`en_US` → `en-US`, `pl_PL` → `pl`, `zh_Hans` → `zh-Hans`).
fn language_of(doc: &Document, locale: usize) -> Result<String, RenderError> {
    let code = doc.locales.get(locale).map_or("", String::as_str);
    langtag::folded(code)
        .map(|tag| tag.to_string())
        .ok_or_else(|| RenderError::NotALanguageTag {
            format: Format::Xcstrings,
            locale: code.to_owned(),
        })
}

/// The selected entries, in Xcode's order of their names (equal names in sheet order).
fn entries_in_order(flat: &Flat<'_>, sorted: Option<&[usize]>) -> Vec<usize> {
    let doc = flat.doc;
    let mut wanted = vec![false; doc.entries.len()];
    for loc in &flat.locales {
        for &e in loc.entries() {
            wanted[e] = true;
        }
    }
    match sorted {
        Some(sorted) => sorted.iter().copied().filter(|&e| wanted[e]).collect(),
        None => {
            let mut entries: Vec<usize> = (0..doc.entries.len()).filter(|&e| wanted[e]).collect();
            xcode_order::sort_by_name(&mut entries, |e| flat.name(e));
            entries
        }
    }
}

/// Every entry of `doc` in Xcode's order of `name(e)`, for `Prepared`.
pub(crate) fn order_all<'n>(doc: &Document, name: impl Fn(usize) -> &'n str) -> Vec<usize> {
    let mut entries: Vec<usize> = (0..doc.entries.len()).collect();
    xcode_order::sort_by_name(&mut entries, name);
    entries
}

struct Catalog<'o> {
    out: &'o mut Vec<u8>,
    converter: Converter,
    comments: bool,
}

impl Catalog<'_> {
    /// One string: its comment, extraction state and a localization per language.
    fn string(
        &mut self,
        name: &str,
        entry: &Entry,
        flat: &Flat<'_>,
        texts: &[(&Language, usize, &str)],
    ) {
        self.out.extend_from_slice(b"    ");
        push_json_str(self.out, name);
        self.out.extend_from_slice(b" : {\n");
        if self.comments
            && let Some(comment) = &entry.comment
        {
            self.out.extend_from_slice(b"      \"comment\" : ");
            push_json_str(self.out, comment);
            self.out.extend_from_slice(b",\n");
        }
        self.out.extend_from_slice(
            b"      \"extractionState\" : \"manual\",\n      \"localizations\" : {\n",
        );
        for (i, &(language, e, text)) in texts.iter().enumerate() {
            if i > 0 {
                self.out.extend_from_slice(b",\n");
            }
            let entry = &flat.doc.entries[e];
            let locale = flat.locales[language.pos].locale;
            self.out.extend_from_slice(b"        ");
            push_json_str(self.out, &language.name);
            self.out.extend_from_slice(b" : {\n");
            match flat.texts.plural(e) {
                None => {
                    let text = self.converter.text(entry, false, text);
                    self.string_unit(10, &text);
                }
                Some(forms) => self.plural(entry, forms, locale),
            }
            self.out.extend_from_slice(b"\n        }");
        }
        self.out.extend_from_slice(b"\n      }\n    }");
    }

    /// `"variations" : { "plural" : { CATEGORY : { "stringUnit" … } } }`, the categories
    /// in Xcode's (alphabetical) order.
    fn plural(&mut self, entry: &Entry, forms: Forms<'_>, locale: usize) {
        let mut categories: Vec<_> = forms.forms_in(locale).collect();
        categories.sort_by(|a, b| xcode_order::compare(a.0.name(), b.0.name()));
        self.out
            .extend_from_slice(b"          \"variations\" : {\n            \"plural\" : {\n");
        for (i, (category, text)) in categories.into_iter().enumerate() {
            if i > 0 {
                self.out.extend_from_slice(b",\n");
            }
            self.out.extend_from_slice(b"              \"");
            self.out.extend_from_slice(category.name().as_bytes());
            self.out.extend_from_slice(b"\" : {\n");
            let text = self.converter.text(entry, true, text);
            self.string_unit(16, &text);
            self.out.extend_from_slice(b"\n              }");
        }
        self.out.extend_from_slice(b"\n            }\n          }");
    }

    /// `"stringUnit" : { "state" : "translated", "value" : TEXT }` at `indent` spaces,
    /// without the newline after it.
    fn string_unit(&mut self, indent: usize, value: &str) {
        let pad = |out: &mut Vec<u8>, n: usize| out.extend(std::iter::repeat_n(b' ', n));
        pad(self.out, indent);
        self.out.extend_from_slice(b"\"stringUnit\" : {\n");
        pad(self.out, indent + 2);
        self.out.extend_from_slice(b"\"state\" : \"translated\",\n");
        pad(self.out, indent + 2);
        self.out.extend_from_slice(b"\"value\" : ");
        push_json_str(self.out, value);
        self.out.push(b'\n');
        pad(self.out, indent);
        self.out.push(b'}');
    }
}
