//! Where the renderers read texts from: the document itself, or its texts copied locale
//! by locale (`Columns`) when many files are rendered from one document. A file per
//! locale reads one locale's texts in entry order; in the document they lie row by row
//! (a sheet row holds every locale's text), so each is a cache miss; in a column they
//! lie side by side.

use std::iter::once;
use std::ops::Range;

use crate::formats::shared::ahead;
use crate::formats::shared::arena::StrArena;
use crate::model::{Document, Entry, Plural, PluralCategory};

/// Every text of a document, one buffer per locale, indexed by entry; the forms of plural
/// entries likewise, one buffer per locale indexed by form slot, so a plural text costs
/// what a plain one does (read from `Plural` it is three dependent loads, each a cache
/// miss on a large sheet).
pub(crate) struct Columns {
    by_locale: Vec<StrArena>,
    /// Per entry: its first form slot and its number of forms; 0 forms for a plain entry.
    plural: Vec<(u32, u8)>,
    /// The category of each form slot.
    categories: Vec<PluralCategory>,
    /// `forms_by_locale[l]` holds slot `s`'s text in locale `l` at `s`.
    forms_by_locale: Vec<StrArena>,
}

impl Columns {
    pub(crate) fn build(doc: &Document) -> Columns {
        let mut plural = Vec::with_capacity(doc.entries.len());
        let mut categories = Vec::new();
        for entry in &doc.entries {
            let forms = entry.plural.as_deref().map_or(&[][..], |p| &p.forms[..]);
            // u8: at most the six categories; u32: a slot per form of a document that
            // fits in memory
            plural.push((categories.len() as u32, forms.len() as u8));
            categories.extend(forms.iter().map(|form| form.category));
        }
        // Copying every text is a good part of a one-off render of a large selection:
        // the locales are split between the cores, each reading the rows for its own.
        let locales = doc.locales.len();
        let large = doc.entries.len().saturating_mul(locales) >= PARALLEL_FROM_TEXTS;
        let parts = crate::parallel::ranges(locales, large);
        let built = crate::parallel::map(parts.len(), &parts, |part| {
            let entries = doc.entries.len();
            let texts = lay_out(doc, part.clone(), entries, |entry| once(&entry.texts[..]));
            let forms = lay_out(doc, part.clone(), categories.len(), |entry| {
                let forms = entry.plural.iter().flat_map(|plural| &plural.forms);
                forms.map(|form| &form.texts[..])
            });
            (texts, forms)
        });
        let (mut by_locale, mut forms_by_locale) = (Vec::new(), Vec::new());
        for (texts, forms) in built {
            by_locale.extend(texts);
            forms_by_locale.extend(forms);
        }
        Columns {
            by_locale,
            plural,
            categories,
            forms_by_locale,
        }
    }
}

/// Below this many texts, the columns are laid out on the calling thread alone.
const PARALLEL_FROM_TEXTS: usize = 200_000;

/// One column for each locale in `locales`, of the rows of texts (one text per locale)
/// that `rows_of` gives for each entry, `count` rows in all; read row by row, the order
/// the document lies in memory.
fn lay_out<'d, Rows>(
    doc: &'d Document,
    locales: Range<usize>,
    count: usize,
    rows_of: impl Fn(&'d Entry) -> Rows,
) -> Vec<StrArena>
where
    Rows: Iterator<Item = &'d [Option<String>]>,
{
    let rows = || doc.entries.iter().flat_map(&rows_of);
    let mut bytes = vec![0usize; locales.len()];
    for row in rows() {
        // a row may be shorter than the locales (the rest has no text)
        let texts = &row[locales.start.min(row.len())..locales.end.min(row.len())];
        for (total, text) in bytes.iter_mut().zip(texts) {
            *total += text.as_ref().map_or(0, String::len);
        }
    }
    let mut columns: Vec<StrArena> = (bytes.iter())
        .map(|&bytes| StrArena::with_capacity(count, bytes))
        .collect();
    for row in rows() {
        for (locale, column) in locales.clone().zip(&mut columns) {
            column.push(row.get(locale).and_then(Option::as_deref));
        }
    }
    columns
}

/// A text source for one render.
#[derive(Clone, Copy)]
pub(crate) enum Texts<'a> {
    Rows(&'a Document),
    Columns(&'a Columns),
}

impl<'a> Texts<'a> {
    /// The plural forms of `entry` when it is a plural entry. From columns, the entry
    /// itself is not visited (a cache miss per text on a large sheet).
    pub(crate) fn plural(self, entry: usize) -> Option<Forms<'a>> {
        match self {
            Texts::Rows(doc) => doc.entries.get(entry)?.plural.as_deref().map(Forms::Rows),
            Texts::Columns(columns) => {
                let &(first, count) = columns.plural.get(entry)?;
                (count > 0).then(|| Forms::Columns {
                    columns,
                    first: first as usize,
                    count: usize::from(count),
                })
            }
        }
    }

    /// For a loop over entries in `locale` at `at(0)` (`at(k)`: the entry `k` iterations
    /// on), starts loading what `get`, `plural` and the texts they give will read
    /// (`ahead`). Columns are read in order, which the processor foresees by itself.
    pub(crate) fn read_ahead(self, locale: usize, at: impl Fn(usize) -> Option<usize>) {
        if let Texts::Rows(doc) = self {
            ahead::texts(doc, locale, at);
        }
    }

    /// `read_ahead` for a loop that only asks whether each entry has a text (`get`
    /// without reading the text).
    pub(crate) fn read_slots_ahead(self, locale: usize, at: impl Fn(usize) -> Option<usize>) {
        if let Texts::Rows(doc) = self {
            ahead::text_slots(doc, locale, at);
        }
    }

    /// The text of `entry` in `locale`; `None` when it has none.
    pub(crate) fn get(self, entry: usize, locale: usize) -> Option<&'a str> {
        match self {
            Texts::Rows(doc) => doc.entries.get(entry)?.texts.get(locale)?.as_deref(),
            Texts::Columns(columns) => columns.by_locale.get(locale)?.get(entry),
        }
    }
}

/// The forms of one plural entry, from wherever the render reads texts.
#[derive(Clone, Copy)]
pub(crate) enum Forms<'a> {
    Rows(&'a Plural),
    Columns {
        columns: &'a Columns,
        first: usize,
        count: usize,
    },
}

impl<'a> Forms<'a> {
    /// The (category, text) pairs locale `locale` has, in CLDR order.
    pub(crate) fn forms_in(self, locale: usize) -> FormsIn<'a> {
        FormsIn {
            forms: self,
            locale,
            next: 0,
        }
    }

    /// The text of `category` in `locale`, if the sheet has one.
    pub(crate) fn text(self, category: PluralCategory, locale: usize) -> Option<&'a str> {
        self.forms_in(locale)
            .find(|&(c, _)| c == category)
            .map(|(_, text)| text)
    }
}

/// The forms of one plural entry that one locale has (`Forms::forms_in`).
pub(crate) struct FormsIn<'a> {
    forms: Forms<'a>,
    locale: usize,
    /// The next form to look at, counted from the entry's first.
    next: usize,
}

impl<'a> Iterator for FormsIn<'a> {
    type Item = (PluralCategory, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let at = self.next;
            self.next += 1;
            let found = match self.forms {
                Forms::Rows(plural) => {
                    let form = plural.forms.get(at)?;
                    let text = form.texts.get(self.locale).and_then(Option::as_deref);
                    text.map(|text| (form.category, text))
                }
                Forms::Columns {
                    columns,
                    first,
                    count,
                } => {
                    if at >= count {
                        return None;
                    }
                    let slot = first + at;
                    let text = columns.forms_by_locale.get(self.locale)?.get(slot);
                    text.zip(columns.categories.get(slot).copied())
                        .map(|(text, category)| (category, text))
                }
            };
            if found.is_some() {
                return found;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Entry, PluralForm};

    #[test]
    fn columns_give_what_the_rows_give() {
        let doc = Document {
            settings: Default::default(),
            namespaces: Vec::new(),
            findings: Vec::new(),
            locales: vec!["en".into(), "pl".into(), "de".into()],
            entries: vec![
                Entry {
                    path: vec!["A".into()],
                    texts: vec![Some("a".into()), None, Some("".into())],
                    ..Entry::default()
                },
                Entry {
                    path: vec!["B".into()],
                    // shorter than the locales: the rest has no text
                    texts: vec![None, Some("b ł".into())],
                    ..Entry::default()
                },
                Entry {
                    path: vec!["C".into()],
                    texts: vec![Some("cs".into()), Some("c2".into()), None],
                    plural: Some(Box::new(Plural {
                        forms: vec![
                            PluralForm {
                                category: PluralCategory::One,
                                texts: vec![Some("c".into()), None, None],
                            },
                            PluralForm {
                                category: PluralCategory::Few,
                                // shorter than the locales
                                texts: vec![None, Some("c2".into())],
                            },
                            PluralForm {
                                category: PluralCategory::Other,
                                texts: vec![Some("cs".into()), None, Some("".into())],
                            },
                        ],
                    })),
                    ..Entry::default()
                },
            ],
            warnings: Vec::new(),
        };
        let columns = Columns::build(&doc);
        /// An entry's forms in a locale, and its `other` text there.
        type Seen<'t> = (Vec<(PluralCategory, &'t str)>, Option<&'t str>);
        fn forms(texts: Texts<'_>, entry: usize, locale: usize) -> Option<Seen<'_>> {
            let forms = texts.plural(entry)?;
            let all: Vec<_> = forms.forms_in(locale).collect();
            let other = forms.text(PluralCategory::Other, locale);
            Some((all, other))
        }
        for entry in 0..4 {
            for locale in 0..4 {
                let (columns, rows) = (Texts::Columns(&columns), Texts::Rows(&doc));
                let at = format!("entry {entry} locale {locale}");
                assert_eq!(columns.get(entry, locale), rows.get(entry, locale), "{at}");
                assert_eq!(
                    forms(columns, entry, locale),
                    forms(rows, entry, locale),
                    "{at}"
                );
            }
        }
        assert_eq!(
            forms(Texts::Columns(&columns), 2, 1),
            Some((vec![(PluralCategory::Few, "c2")], None))
        );
    }

    /// A document large enough to be laid out on several threads gives what the rows
    /// give, for every locale of every part.
    #[test]
    fn columns_laid_out_in_parts_give_what_the_rows_give() {
        let locales = 12;
        let entries = PARALLEL_FROM_TEXTS / locales + 3;
        let text = |e: usize, l: usize| (!(e + l).is_multiple_of(5)).then(|| format!("{e}/{l}"));
        let doc = Document {
            locales: (0..locales).map(|l| format!("l{l}")).collect(),
            entries: (0..entries)
                .map(|e| Entry {
                    path: vec![format!("K{e}")],
                    // some rows stop short of the last locales
                    texts: (0..locales - e % 3).map(|l| text(e, l)).collect(),
                    plural: (e % 10 == 0).then(|| {
                        let form = |category, n: usize| PluralForm {
                            category,
                            texts: (0..locales).map(|l| text(e + n, l)).collect(),
                        };
                        Box::new(Plural {
                            forms: vec![
                                form(PluralCategory::One, 1),
                                form(PluralCategory::Other, 2),
                            ],
                        })
                    }),
                    ..Entry::default()
                })
                .collect(),
            ..Document::default()
        };
        let columns = Columns::build(&doc);
        let (columns, rows) = (Texts::Columns(&columns), Texts::Rows(&doc));
        for entry in (0..entries).step_by(7) {
            for locale in 0..locales {
                assert_eq!(columns.get(entry, locale), rows.get(entry, locale));
                let forms = |texts: Texts<'_>| -> Vec<(PluralCategory, String)> {
                    let forms = texts.plural(entry).into_iter();
                    let all = forms.flat_map(|f| f.forms_in(locale));
                    all.map(|(c, t)| (c, t.to_owned())).collect()
                };
                assert_eq!(forms(columns), forms(rows), "entry {entry} locale {locale}");
            }
        }
    }
}
