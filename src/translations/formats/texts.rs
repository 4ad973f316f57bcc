//! Where the renderers read texts from: the document itself, or its texts copied locale
//! by locale (`Columns`) when many files are rendered from one document. A file per
//! locale reads one locale's texts in entry order; in the document they lie row by row
//! (a sheet row holds every locale's text), so each is a cache miss; in a column they
//! lie side by side.

use crate::translations::formats::arena::StrArena;
use crate::translations::model::{Document, Plural};

/// Every text of a document, one buffer per locale, indexed by entry.
pub(super) struct Columns {
    by_locale: Vec<StrArena>,
    /// Which entries are plural, so a render need not visit each entry to learn it.
    plural: Vec<bool>,
}

impl Columns {
    pub(super) fn build(doc: &Document) -> Columns {
        let locales = doc.locales.len();
        let mut bytes = vec![0usize; locales];
        for entry in &doc.entries {
            for (total, text) in bytes.iter_mut().zip(&entry.texts) {
                *total += text.as_ref().map_or(0, String::len);
            }
        }
        let mut by_locale: Vec<StrArena> = bytes
            .iter()
            .map(|&bytes| StrArena::with_capacity(doc.entries.len(), bytes))
            .collect();
        // Row by row, the order the document lies in memory.
        for entry in &doc.entries {
            for (locale, column) in by_locale.iter_mut().enumerate() {
                column.push(entry.texts.get(locale).and_then(Option::as_deref));
            }
        }
        let plural = doc.entries.iter().map(|e| e.plural.is_some()).collect();
        Columns { by_locale, plural }
    }
}

/// A text source for one render.
#[derive(Clone, Copy)]
pub(super) enum Texts<'a> {
    Rows(&'a Document),
    Columns(&'a Columns),
}

impl<'a> Texts<'a> {
    /// The plural forms of `entry` when it is a plural entry. From columns, a plain entry
    /// is told apart without visiting it (a cache miss per text on a large sheet).
    pub(super) fn plural(self, doc: &'a Document, entry: usize) -> Option<&'a Plural> {
        if let Texts::Columns(columns) = self
            && !columns.plural.get(entry).copied().unwrap_or(false)
        {
            return None;
        }
        doc.entries.get(entry)?.plural.as_deref()
    }

    /// The text of `entry` in `locale`; `None` when it has none.
    pub(super) fn get(self, entry: usize, locale: usize) -> Option<&'a str> {
        match self {
            Texts::Rows(doc) => doc.entries.get(entry)?.texts.get(locale)?.as_deref(),
            Texts::Columns(columns) => columns.by_locale.get(locale)?.get(entry),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::translations::model::Entry;

    #[test]
    fn columns_give_what_the_rows_give() {
        let doc = Document {
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
            ],
            warnings: Vec::new(),
        };
        let columns = Columns::build(&doc);
        for entry in 0..3 {
            for locale in 0..4 {
                assert_eq!(
                    Texts::Columns(&columns).get(entry, locale),
                    Texts::Rows(&doc).get(entry, locale),
                    "entry {entry} locale {locale}"
                );
            }
        }
    }
}
