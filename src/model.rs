//! The translation document: what one spreadsheet converts to.
//!
//! Kept flat on purpose: one `Entry` per key path, in sheet order, with one text slot per
//! locale (a plural entry also holds its forms, one text slot per locale each). The nested tree `locale -> SECTION -> ... -> KEY -> text` is a view over it that
//! the renderers build; filtering and flattening are simple scans over the flat list.

pub mod fallback;
pub mod filter;
pub mod langtag;
pub mod locale;
pub mod names;
pub mod placeholders;
pub mod plurals;

pub use names::Names;

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Most key levels a key may have (`>>>` columns that count). Deeper keys are refused at
/// conversion, naming their cell, and a stored document with one is not served: every walk
/// over the key tree and every nested output (json, yml) stays shallow and its cost bounded.
pub const MAX_KEY_DEPTH: usize = 32;

/// Most locale columns a document may have. Every locale costs a pass over the keys in
/// each all-locale render and a file in `depot generate`; far past any real app's
/// languages, this keeps one sheet from tying up the daemon or the command.
pub const MAX_LOCALES: usize = 1000;

/// The one namespace of a sheet with a single tab (SPEC §14): i18next's default namespace,
/// so an app that names none finds the texts where its library looks first.
pub const DEFAULT_NAMESPACE: &str = "translation";

/// A converted sheet: locales and keys in sheet order, plus the sync report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    /// Locale codes exactly as written in the header row, in column order.
    pub locales: Vec<String>,
    /// One entry per distinct key path, in the order the key first appeared in the sheet.
    pub entries: Vec<Entry>,
    /// Problems met while converting, each naming its sheet cell.
    pub warnings: Vec<Warning>,
    /// What the checks before publishing found (SPEC §9), each naming its sheet cell.
    /// Unlike `warnings`, `producer.strict` refuses to publish a document with any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Warning>,
    /// The namespaces of a sheet with several tabs (SPEC §14), in tab order. A namespace is
    /// then the first level of every key path (`["common", "CORE", "YES"]`), so filters,
    /// renders, versions and the console treat it as the top section without knowing of
    /// namespaces. Empty for a sheet of one tab: one namespace, `DEFAULT_NAMESPACE`, and
    /// paths start at the sheet's own first level. Left out of the stored JSON when empty,
    /// so a one-tab sheet keeps the version (content hash) it had before namespaces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<String>,
    /// What the sheet's settings cell says (`depot: placeholders=printf`, above the header
    /// row). Left out of the stored JSON when empty, so a sheet without the cell keeps
    /// the version it had before settings.
    #[serde(default, skip_serializing_if = "SheetSettings::is_empty")]
    pub settings: SheetSettings,
}

/// The settings cell of a sheet (SPEC §12.1): a cell above the header row whose text starts
/// with `depot:`, then `key=value` pairs. Import writes it; generate, serve and diff follow it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SheetSettings {
    /// `placeholders=SYNTAX`: the placeholder syntax the sheet's texts hold; `None`: depot's
    /// own `{name}` (as a sheet without the cell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholders: Option<placeholders::SheetSyntax>,
    /// `i18next=v3`: the app's i18next files name a plural's forms as JSON v3 does
    /// (`KEY` and `KEY_plural`; `KEY_0`, `KEY_1`, … in languages of one form or more than
    /// two), and generate writes them so; `v4` (the default):
    /// `KEY_one`, `KEY_other`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub i18next_v3: bool,
    /// `po=cldr`: the app's po files give a plural one `msgstr[N]` per CLDR category, in
    /// CLDR's order (Polish `nplurals=4`: one, few, many, other, as Weblate and Transifex
    /// write them), and generate writes them so; `gettext` (the default): gettext's own
    /// formula for the language (Polish `nplurals=3`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub po_cldr: bool,
    /// `arb=plain`: the app's gen-l10n runs without `use-escaping` (its default), so an
    /// apostrophe in an ARB text is text and every brace is syntax; generate writes texts
    /// as they are. `escaping` (the default, for sheets without the cell): ICU's quoting
    /// (`''`, `'{'`), as gen-l10n reads it with `use-escaping: true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub arb_plain: bool,
    /// `android=markup`: the texts hold Android's inline markup as the app's strings.xml
    /// writes it (`<b>`, `<font color="…">`, `<annotation>`, `<xliff:g>`), and the android
    /// writer writes those tags as markup; without it a `<b>` in a text is text.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub android_markup: bool,
}

impl SheetSettings {
    pub fn is_empty(&self) -> bool {
        self.placeholders.is_none()
            && !self.i18next_v3
            && !self.po_cldr
            && !self.arb_plain
            && !self.android_markup
    }

    /// Adds what one more file's shape asks for (`Reading::implies`).
    pub fn add(&mut self, other: &SheetSettings) {
        self.placeholders = self.placeholders.or(other.placeholders);
        self.i18next_v3 |= other.i18next_v3;
        self.po_cldr |= other.po_cldr;
        self.arb_plain |= other.arb_plain;
        self.android_markup |= other.android_markup;
    }

    /// The syntax the texts hold: the cell's, else depot's `{name}`.
    pub fn syntax(&self) -> placeholders::SheetSyntax {
        self.placeholders.unwrap_or_default()
    }
}

/// One key: its path below the locale, its text per locale, tags and translator comment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Section names then the key name, e.g. `["CORE", "LABELS", "YES"]`. Never empty.
    pub path: Vec<String>,
    /// `texts[i]` is the text for `Document::locales[i]`; `None` where the cell was empty.
    pub texts: Vec<Option<String>>,
    /// Effective tags: the row's own tags plus those of every enclosing section row,
    /// deduplicated, in first-seen order.
    pub tags: Vec<String>,
    /// The `$$$` column of the key's row, when present and non-empty.
    pub comment: Option<String>,
    /// The forms of a plural entry (`KEY[one]`, `KEY[other]` rows); `None` for a plain
    /// key. For a plural entry, `texts[i]` is `Some` exactly when some form has a text in
    /// locale `i` (it holds the `other` text, else the first form's), so everything that
    /// only asks "has this key a text here" (selection, filters, counts, name conflicts)
    /// treats both kinds alike; the renderers read the forms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plural: Option<Box<Plural>>,
    /// The key's name as the app has it (SPEC §12.1), from the sheet's name columns:
    /// `""` for `@@@` (every flat format), a format's `-f` name for `@@@<format>` (that
    /// format only, winning over `@@@`). Empty for a sheet without name columns, and left
    /// out of the stored JSON then, so such sheets keep their versions (content hashes).
    #[serde(default, skip_serializing_if = "Names::is_empty")]
    pub names: Names,
}

/// The CLDR plural categories, in CLDR order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PluralCategory {
    Zero,
    One,
    Two,
    Few,
    Many,
    Other,
}

impl PluralCategory {
    pub const ALL: [PluralCategory; 6] = [
        PluralCategory::Zero,
        PluralCategory::One,
        PluralCategory::Two,
        PluralCategory::Few,
        PluralCategory::Many,
        PluralCategory::Other,
    ];

    /// The name written in the sheet (`ITEMS[few]`) and in every format.
    pub fn name(self) -> &'static str {
        match self {
            PluralCategory::Zero => "zero",
            PluralCategory::One => "one",
            PluralCategory::Two => "two",
            PluralCategory::Few => "few",
            PluralCategory::Many => "many",
            PluralCategory::Other => "other",
        }
    }

    /// Exact, lower-case name only: the sheet is the contract, `[One]` is a typo to report.
    pub fn from_name(name: &str) -> Option<PluralCategory> {
        PluralCategory::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// The texts of a plural entry: one form per category the sheet wrote, in CLDR order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plural {
    pub forms: Vec<PluralForm>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluralForm {
    pub category: PluralCategory,
    /// `texts[i]` is this category's text for `Document::locales[i]`.
    pub texts: Vec<Option<String>>,
}

impl Plural {
    /// The (category, text) pairs locale `locale` has, in CLDR order.
    pub fn forms_in(&self, locale: usize) -> impl Iterator<Item = (PluralCategory, &str)> {
        self.forms.iter().filter_map(move |form| {
            let text = form.texts.get(locale)?.as_deref()?;
            Some((form.category, text))
        })
    }

    /// The text of `category` in `locale`, if the sheet has one.
    pub fn text(&self, category: PluralCategory, locale: usize) -> Option<&str> {
        self.forms
            .iter()
            .find(|f| f.category == category)?
            .texts
            .get(locale)?
            .as_deref()
    }
}

/// What an entry says in one locale: the equality-friendly view for comparing versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocaleContent<'a> {
    Text(&'a str),
    /// (category, text) in CLDR order; never empty.
    Plural(Vec<(PluralCategory, &'a str)>),
}

impl Entry {
    /// The entry's content in locale `locale`; `None` where it has no text there.
    pub fn locale_content(&self, locale: usize) -> Option<LocaleContent<'_>> {
        match &self.plural {
            None => Some(LocaleContent::Text(self.texts.get(locale)?.as_deref()?)),
            Some(plural) => {
                let forms: Vec<_> = plural.forms_in(locale).collect();
                (!forms.is_empty()).then_some(LocaleContent::Plural(forms))
            }
        }
    }

    /// The name of the key in the format whose name columns are `@@@<format>` (its `-f`
    /// name): that column's cell, else the `@@@` cell; `None` when the sheet names it
    /// neither way (the format then names it from the path).
    pub fn name_in(&self, format: &str) -> Option<&str> {
        if self.names.is_empty() {
            return None;
        }
        (self.names.get(format))
            .or_else(|| self.names.get(""))
            .map(String::as_str)
    }

    /// Every text of locale `locale`: the text, or each plural form's.
    pub fn texts_in(&self, locale: usize) -> Vec<&str> {
        match self.locale_content(locale) {
            None => Vec::new(),
            Some(LocaleContent::Text(text)) => vec![text],
            Some(LocaleContent::Plural(forms)) => forms.into_iter().map(|(_, t)| t).collect(),
        }
    }
}

/// A conversion problem, with the A1 cell it points at (e.g. `B9`) and its 1-based row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    pub cell: String,
    pub row: usize,
    pub message: String,
}

/// A1 name of a cell from 0-based column and 1-based row: `cell_name(27, 4)` is `AB4`.
pub fn cell_name(column: usize, row: usize) -> String {
    // Written into one string without `format!`: every finding names its cell, and a
    // large sheet has tens of thousands.
    let mut name = String::with_capacity(12);
    let mut n = column + 1;
    while n > 0 {
        // Bijective base 26: there is no zero digit, Z is followed by AA.
        let digit = u8::try_from((n - 1) % 26).unwrap_or(0);
        name.insert(0, char::from(b'A' + digit));
        n = (n - 1) / 26;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut r = row;
    loop {
        at -= 1;
        digits[at] = b'0' + u8::try_from(r % 10).unwrap_or(0);
        r /= 10;
        if r == 0 {
            break;
        }
    }
    name.extend(digits[at..].iter().map(|&d| char::from(d)));
    name
}

/// A document with its content hash and the time it was stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredDocument {
    /// Hex SHA-256 of the document's canonical JSON: equal content, equal version.
    pub version: String,
    pub updated_at: DateTime<Utc>,
    pub document: Document,
}

/// Why a document cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    #[error("the key '{key}' has {depth} levels; at most {MAX_KEY_DEPTH} are allowed")]
    TooDeep { key: String, depth: usize },
    #[error("an entry has an empty key path")]
    EmptyPath,
    #[error("the document has {count} locales; at most {MAX_LOCALES} are allowed")]
    TooManyLocales { count: usize },
}

impl Document {
    /// Checks what every render relies on: at most `MAX_LOCALES` locales and every key
    /// path 1 to `MAX_KEY_DEPTH` levels long. A document is stored and served only if
    /// this passes.
    pub fn check_limits(&self) -> Result<(), LimitError> {
        if self.locales.len() > MAX_LOCALES {
            return Err(LimitError::TooManyLocales {
                count: self.locales.len(),
            });
        }
        for entry in &self.entries {
            let depth = entry.path.len();
            if depth == 0 {
                return Err(LimitError::EmptyPath);
            }
            if depth > MAX_KEY_DEPTH {
                // The start is enough to find the key; the whole path can be huge.
                let mut key = entry.path[..3].join(".");
                key.push_str(".…");
                return Err(LimitError::TooDeep { key, depth });
            }
        }
        Ok(())
    }

    /// Leaves out, in each locale, a plural entry that has no `other` form there (a
    /// finding of the checks): ICU refuses a plural message without `other`, and Android,
    /// iOS and gettext fall back to it for every count no other form covers, so no format
    /// could carry the entry whole. An entry left with no text in any locale goes.
    pub fn drop_plurals_without_other(&mut self) {
        let locales = self.locales.len();
        self.entries.retain_mut(|entry| {
            let Some(plural) = entry.plural.as_deref_mut() else {
                return true;
            };
            for locale in 0..locales {
                if plural.text(PluralCategory::Other, locale).is_some() {
                    continue;
                }
                for form in &mut plural.forms {
                    if let Some(text) = form.texts.get_mut(locale) {
                        *text = None;
                    }
                }
                if let Some(text) = entry.texts.get_mut(locale) {
                    *text = None;
                }
            }
            plural.forms.retain(|f| f.texts.iter().any(Option::is_some));
            entry.texts.iter().any(Option::is_some)
        });
    }

    /// Number of non-empty texts per locale, in locale order.
    pub fn key_counts(&self) -> Vec<(String, usize)> {
        self.locales
            .iter()
            .enumerate()
            .map(|(i, locale)| {
                let count = self
                    .entries
                    .iter()
                    .filter(|e| e.texts.get(i).is_some_and(Option::is_some))
                    .count();
                (locale.clone(), count)
            })
            .collect()
    }

    /// True when no locale has a single text: such a document is never stored.
    pub fn is_empty(&self) -> bool {
        self.entries
            .iter()
            .all(|e| e.texts.iter().all(Option::is_none))
    }

    /// Index of a locale by exact code.
    pub fn locale_index(&self, code: &str) -> Option<usize> {
        self.locales.iter().position(|l| l == code)
    }

    /// The names of its namespaces, in tab order: `[DEFAULT_NAMESPACE]` for a one-tab sheet.
    pub fn namespace_names(&self) -> Vec<&str> {
        if self.namespaces.is_empty() {
            return vec![DEFAULT_NAMESPACE];
        }
        self.namespaces.iter().map(String::as_str).collect()
    }

    /// The document of one namespace, as if its tab were the whole sheet: its entries with
    /// the namespace level taken off their paths, and the warnings and findings of its tab
    /// (their cell names the tab: `common!B9`). A one-tab sheet is its own namespace and is
    /// borrowed as it is. `None` for a name that is not a namespace (exact case, as tab
    /// names are).
    pub fn namespace(&self, name: &str) -> Option<Cow<'_, Document>> {
        if self.namespaces.is_empty() {
            return (name == DEFAULT_NAMESPACE).then_some(Cow::Borrowed(self));
        }
        if !self.namespaces.iter().any(|n| n == name) {
            return None;
        }
        let entries = (self.entries.iter())
            .filter(|e| e.path.len() > 1 && e.path[0] == name)
            .map(|e| Entry {
                path: e.path[1..].to_vec(),
                ..e.clone()
            })
            .collect();
        let tab = format!("{name}!");
        let of_tab = |warnings: &[Warning]| -> Vec<Warning> {
            (warnings.iter())
                .filter(|w| w.cell.starts_with(&tab))
                .cloned()
                .collect()
        };
        Some(Cow::Owned(Document {
            locales: self.locales.clone(),
            entries,
            warnings: of_tab(&self.warnings),
            findings: of_tab(&self.findings),
            namespaces: Vec::new(),
            settings: self.settings,
        }))
    }
}

/// What a filter (or no filter) selected: for each chosen locale, in document locale order,
/// the indices of the entries chosen for it, in document entry order. Only entries that
/// have a text in that locale are listed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    pub locales: Vec<LocaleSelection>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocaleSelection {
    /// Index into `Document::locales`.
    pub locale: usize,
    /// Indices into `Document::entries`, ascending. Shared: a file per locale and format
    /// (`depot generate`) holds the locale's list, 122 copies of 50,000 indices for six
    /// formats, which cost the run 49 MB and a serial step as `Vec`s.
    pub entries: std::sync::Arc<[usize]>,
}

impl Selection {
    /// Everything: every locale with every entry that has a text in it.
    pub fn all(doc: &Document) -> Selection {
        // sized for every entry: most locales hold most keys, and growing 20 lists of
        // 50,000 indices a doubling at a time cost as much as filling them
        let mut by_locale: Vec<Vec<usize>> = (0..doc.locales.len())
            .map(|_| Vec::with_capacity(doc.entries.len()))
            .collect();
        // One pass over the entries (each entry's texts lie together), not one per locale.
        for (i, entry) in doc.entries.iter().enumerate() {
            for (entries, text) in by_locale.iter_mut().zip(&entry.texts) {
                if text.is_some() {
                    entries.push(i);
                }
            }
        }
        let locales = by_locale
            .into_iter()
            .enumerate()
            .filter(|(_, entries)| !entries.is_empty())
            .map(|(locale, entries)| LocaleSelection {
                locale,
                entries: entries.into(),
            })
            .collect();
        Selection { locales }
    }

    pub fn is_empty(&self) -> bool {
        self.locales.iter().all(|l| l.entries.is_empty())
    }

    /// For each of `entry_count` entries, whether some locale of the selection holds it
    /// (indices past `entry_count` are ignored).
    pub fn entries_in_any_locale(&self, entry_count: usize) -> Vec<bool> {
        let mut selected = vec![false; entry_count];
        for ls in &self.locales {
            for &e in ls.entries.iter() {
                if let Some(mark) = selected.get_mut(e) {
                    *mark = true;
                }
            }
        }
        selected
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The cell name written digit by digit is the one `format!` made before.
        #[test]
        fn cell_name_is_the_formatted_one(column in 0usize..20_000, row in any::<usize>()) {
            let mut letters = Vec::new();
            let mut n = column + 1;
            while n > 0 {
                letters.push(char::from(b'A' + ((n - 1) % 26) as u8));
                n = (n - 1) / 26;
            }
            let formatted = format!("{}{row}", letters.iter().rev().collect::<String>());
            prop_assert_eq!(cell_name(column, row), formatted);
        }
    }

    fn entry(path: &[&str], text: &str) -> Entry {
        Entry {
            path: path.iter().map(|s| (*s).to_owned()).collect(),
            texts: vec![Some(text.to_owned())],
            ..Entry::default()
        }
    }

    fn warning(cell: &str) -> Warning {
        Warning {
            cell: cell.to_owned(),
            row: 1,
            message: cell.to_owned(),
        }
    }

    #[test]
    fn a_one_tab_sheet_is_the_default_namespace_itself() {
        let doc = Document {
            locales: vec!["en".into()],
            entries: vec![entry(&["CORE", "YES"], "Yes")],
            ..Document::default()
        };
        assert_eq!(doc.namespace_names(), [DEFAULT_NAMESPACE]);
        assert!(matches!(
            doc.namespace(DEFAULT_NAMESPACE),
            Some(Cow::Borrowed(d)) if *d == doc
        ));
        assert!(doc.namespace("common").is_none());
    }

    #[test]
    fn a_namespace_is_its_tab_with_the_namespace_level_taken_off() {
        let doc = Document {
            settings: Default::default(),
            locales: vec!["en".into()],
            entries: vec![
                entry(&["common", "CORE", "YES"], "Yes"),
                entry(&["home", "TITLE"], "Home"),
                entry(&["common", "NO"], "No"),
            ],
            warnings: vec![warning("common!B3"), warning("home!C2")],
            findings: vec![warning("home!D4")],
            namespaces: vec!["common".into(), "home".into()],
        };
        assert_eq!(doc.namespace_names(), ["common", "home"]);
        let common = doc.namespace("common").unwrap();
        let paths: Vec<String> = common.entries.iter().map(|e| e.path.join(".")).collect();
        assert_eq!(paths, ["CORE.YES", "NO"]);
        assert_eq!(common.warnings, [warning("common!B3")]);
        assert!(common.findings.is_empty() && common.namespaces.is_empty());
        let home = doc.namespace("home").unwrap();
        assert_eq!(home.entries, [entry(&["TITLE"], "Home")]);
        assert_eq!(home.findings, [warning("home!D4")]);
        // tab names are exact, as the sheet writes them
        assert!(doc.namespace("Common").is_none());
        assert!(doc.namespace(DEFAULT_NAMESPACE).is_none());
    }

    #[test]
    fn an_unnamespaced_document_keeps_its_stored_json() {
        let doc = Document {
            locales: vec!["en".into()],
            entries: vec![entry(&["A"], "a")],
            ..Document::default()
        };
        let json = serde_json::to_string(&doc).unwrap();
        assert!(!json.contains("namespaces"), "{json}");
    }
}
