//! Checks before publishing (SPEC §9): what would make an app show a wrong text or crash on
//! a format string. Run on every converted sheet; each finding names its sheet cell.
//! Keys defined twice are found while the rows are read (`sheet`); the rest is here.

use std::ops::Range;

use crate::formats::{name_clashes, name_problems};
use crate::model::placeholders::{self, COUNT, Piece};
use crate::model::plurals;
use crate::model::{Document, Entry, PluralCategory, Warning, cell_name};
use crate::parallel;

/// Where an entry's cells are: its key column and the rows that gave it texts (with the
/// plural category of each), in sheet order. Parallel to `Document::entries`.
#[derive(Debug, Clone)]
pub struct EntryCells {
    pub key_column: usize,
    /// The row that made the entry.
    pub first: (Option<PluralCategory>, usize),
    /// The rows after it that wrote to it (a plural entry's other forms, a repeated key):
    /// most entries have none, and an empty list costs no allocation.
    pub later: Vec<(Option<PluralCategory>, usize)>,
    /// Whether any text the entry was given holds `{` or `}` (true when unsure). An entry
    /// without one has no placeholder and no brace to check, so its texts are not read:
    /// most entries of a sheet, and reading every text was most of the checks' time.
    pub braces: bool,
    /// `formats::android_name_hash` of the entry's path, taken when the path was made:
    /// finding name clashes then reads only the paths of entries whose hashes meet.
    pub name_hash: u64,
}

impl EntryCells {
    /// The last row that wrote `category` (the row whose texts are kept), else the first.
    fn row_of(&self, category: Option<PluralCategory>) -> usize {
        (self.later.iter().rev())
            .chain(std::iter::once(&self.first))
            .find(|(c, _)| *c == category)
            .map_or(self.first.1, |(_, row)| *row)
    }
}

/// The base locale the placeholders of the other locales are compared with: the first
/// English locale, else the first (the same base as xlf's `source-language` over HTTP).
pub fn base_locale(doc: &Document) -> Option<usize> {
    crate::model::locale::base_locale(doc)
}

/// Whether `doc` is large enough for its checks to be worth spreading over threads.
pub fn worth_threads(doc: &Document) -> bool {
    doc.entries.len().saturating_mul(doc.locales.len()) >= PARALLEL_FROM_TEXTS
}

/// Every finding of `doc`, on up to `threads` threads (the calling one included, which
/// first does `beside`: a job of the caller's that can run while the others check).
/// `cells[e]` locates entry `e`; `text_columns[l]` is locale `l`'s column. A large sheet
/// is checked in parts (the name clashes, which need the whole document, being one
/// part): the findings are the same, in the same order, whatever the threads.
pub fn check(
    threads: usize,
    doc: &Document,
    cells: &[EntryCells],
    text_columns: &[usize],
    beside: impl FnOnce(),
) -> Vec<Warning> {
    enum Part {
        Texts(Range<usize>),
        NameClashes,
    }
    let base = base_locale(doc);
    // Per locale: the CLDR categories it uses and needs (unknown to CLDR: not checked);
    // looked up only for a sheet with a plural entry.
    let has_plurals = doc.entries.iter().any(|e| e.plural.is_some());
    let rules: Vec<PluralRules> = (doc.locales.iter())
        .map(|l| match has_plurals {
            true => PluralRules {
                used: plurals::categories(l),
                required: plurals::required(l),
            },
            false => PluralRules::default(),
        })
        .collect();
    let texts = parallel::chunks(doc.entries.len(), ENTRIES_PER_PART);
    // the longest part first, so that it is not the one left running at the end
    let parts: Vec<Part> = std::iter::once(Part::NameClashes)
        .chain(texts.into_iter().map(Part::Texts))
        .collect();
    let check_part = |part: &Part| match part {
        Part::Texts(range) => {
            let checks = TextChecks {
                doc,
                cells,
                text_columns,
                base,
                rules: &rules,
            };
            checks.findings(range.clone())
        }
        Part::NameClashes => name_clash_findings(doc, cells),
    };
    let mut found = parallel::map_after(threads, &parts, check_part, beside);
    let clashes = found.remove(0);
    let mut findings = found.concat();
    findings.extend(clashes);
    findings
}

/// Below this many texts a sheet is checked on one thread.
const PARALLEL_FROM_TEXTS: usize = 100_000;
/// Entries per part of a parallel check: parts small enough to even out the cores.
const ENTRIES_PER_PART: usize = 4096;

/// What CLDR says of one locale's plurals; `None` where it does not know the locale.
#[derive(Debug, Default)]
struct PluralRules {
    /// The categories the locale uses at all.
    used: Option<Vec<PluralCategory>>,
    /// The categories a plural entry needs a form for (`plurals::required`).
    required: Option<Vec<plurals::Required>>,
}

/// What the text checks of one part share.
struct TextChecks<'d> {
    doc: &'d Document,
    cells: &'d [EntryCells],
    text_columns: &'d [usize],
    base: Option<usize>,
    rules: &'d [PluralRules],
}

impl TextChecks<'_> {
    /// The findings in the texts of the entries in `range`: braces, placeholders, plurals.
    fn findings(&self, range: Range<usize>) -> Vec<Warning> {
        let TextChecks {
            doc,
            cells,
            text_columns,
            base,
            rules,
        } = *self;
        let mut findings = Vec::new();
        let mut found = |column: usize, row: usize, message: String| {
            findings.push(finding(column, row, message));
        };
        // reused for every entry: the placeholder names of the base text and of another's
        let (mut base_names, mut here) = (Vec::new(), Vec::new());
        let entries = doc.entries.get(range.clone()).unwrap_or_default();
        for (e, entry) in range.zip(entries) {
            let Some(at) = cells.get(e) else { break };
            if !at.braces && entry.plural.is_none() {
                continue;
            }
            let path = || entry.path.join(".");
            let plural = entry.plural.is_some();
            // This runs for every text of the sheet: nothing here allocates unless a text has
            // a brace.
            let mut buffer: TextsBuffer<'_> = [(None, ""); PluralCategory::ALL.len()];
            // Without a brace (a plural entry's own checks still to do), no text is read
            // for names: every locale's set is the base's, empty.
            let read_names = at.braces;
            base_names.clear();
            if let Some(b) = base
                && read_names
            {
                let n = texts_of(entry, b, &mut buffer);
                let _ = names_of(&buffer[..n], plural, &mut base_names);
            }
            let base_has_text =
                base.is_some_and(|b| entry.texts.get(b).is_some_and(Option::is_some));
            for (locale, code) in doc.locales.iter().enumerate() {
                let column = text_columns.get(locale).copied().unwrap_or(at.key_column);
                let n = texts_of(entry, locale, &mut buffer);
                let texts = &buffer[..n];
                if texts.is_empty() {
                    continue;
                }
                // the brace check and the names in one scan of each text
                here.clear();
                if read_names {
                    for &(category, text) in texts {
                        if let Err(error) = push_names(text, plural, &mut here) {
                            let message = format!("{} ({code}): {error}", path());
                            found(column, at.row_of(category), message);
                        }
                    }
                }
                here.sort_unstable();
                here.dedup();
                if let Some(plural) = &entry.plural {
                    let first_row = at.row_of(texts[0].0);
                    let rules = rules.get(locale);
                    let key = entry.path.last().map_or("", String::as_str);
                    if plural.text(PluralCategory::Other, locale).is_none() {
                        let message = format!(
                            "plural {:?} ({code}) has no 'other' form, so every format leaves it \
                             out for {code}: add a row {key}[other]; every locale needs one",
                            path(),
                        );
                        found(column, first_row, message);
                    } else if let Some(Some(required)) = rules.map(|r| &r.required) {
                        let lacking: Vec<&plurals::Required> = (required.iter())
                            .filter(|r| plural.text(r.category, locale).is_none())
                            .collect();
                        if !lacking.is_empty() {
                            found(
                                column,
                                first_row,
                                lacking_forms(&path(), key, code, &lacking),
                            );
                        }
                    }
                    if let Some(Some(used)) = rules.map(|r| &r.used) {
                        for &(category, _) in texts {
                            let Some(category) = category.filter(|c| !used.contains(c)) else {
                                continue;
                            };
                            let message = format!(
                                "plural {:?}: {code} does not use the category '{}' (CLDR: {}), so \
                                 no app shows this text; remove it or move it to a category {code} \
                                 uses",
                                path(),
                                category.name(),
                                used.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")
                            );
                            found(column, at.row_of(Some(category)), message);
                        }
                    }
                }
                if Some(locale) != base
                    && base_has_text
                    && let Some(base) = base
                    && here != base_names
                {
                    let missing: Vec<_> = (base_names.iter())
                        .filter(|n| !here.contains(n))
                        .map(|n| format!("{{{n}}}"))
                        .collect();
                    let extra: Vec<_> = (here.iter())
                        .filter(|n| !base_names.contains(n))
                        .map(|n| format!("{{{n}}}"))
                        .collect();
                    let mut message = format!(
                        "{:?} ({code}): placeholders differ from the base locale {}:",
                        path(),
                        doc.locales[base]
                    );
                    if !missing.is_empty() {
                        message.push_str(&format!(" missing {}", missing.join(", ")));
                    }
                    if !extra.is_empty() {
                        message.push_str(&format!(" extra {}", extra.join(", ")));
                    }
                    found(column, at.row_of(texts[0].0), message);
                }
            }
        }
        findings
    }
}

/// The finding of a plural entry that lacks forms its locale needs (`plurals::required`).
fn lacking_forms(path: &str, key: &str, code: &str, lacking: &[&plurals::Required]) -> String {
    let forms: Vec<String> = (lacking.iter())
        .map(|r| {
            let examples: Vec<String> = r.examples.iter().map(u64::to_string).collect();
            format!("'{}' ({}, …)", r.category.name(), examples.join(", "))
        })
        .collect();
    let rows: Vec<String> = (lacking.iter())
        .map(|r| format!("{key}[{}]", r.category.name()))
        .collect();
    format!(
        "plural {path:?} ({code}) has no {} form, which {code} needs for the counts shown: \
         apps show the 'other' text for them; add {}",
        forms.join(" and no "),
        rows.join(", ")
    )
}

/// The findings of keys whose flat names meet in some format.
fn name_clash_findings(doc: &Document, cells: &[EntryCells]) -> Vec<Warning> {
    let mut findings = Vec::new();
    for (formats, kept, lost, name) in name_clashes(doc, |e| cells[e].name_hash) {
        let (Some(kept_entry), Some(at)) = (doc.entries.get(kept), cells.get(lost)) else {
            continue;
        };
        let message = format!(
            "{:?} and {:?} (row {}) both become the name {name:?} in {formats}: those formats \
             keep the first and leave this one out; rename one of them",
            doc.entries[lost].path.join("."),
            kept_entry.path.join("."),
            cells.get(kept).map_or(0, |c| c.first.1),
        );
        findings.push(finding(at.key_column, at.first.1, message));
    }
    for (e, message) in name_problems(doc) {
        if let Some(at) = cells.get(e) {
            findings.push(finding(at.key_column, at.first.1, message));
        }
    }
    findings
}

fn finding(column: usize, row: usize, message: String) -> Warning {
    Warning {
        cell: cell_name(column, row),
        row,
        message,
    }
}

/// Room for an entry's texts in one locale: one, or a plural entry's forms.
type TextsBuffer<'e> = [(Option<PluralCategory>, &'e str); PluralCategory::ALL.len()];

/// Puts `entry`'s texts of `locale` in `buffer` (without allocating: this runs for every
/// text of the sheet) and gives their number.
fn texts_of<'e>(entry: &'e Entry, locale: usize, buffer: &mut TextsBuffer<'e>) -> usize {
    match &entry.plural {
        None => match entry.texts.get(locale).and_then(Option::as_deref) {
            Some(text) => {
                buffer[0] = (None, text);
                1
            }
            None => 0,
        },
        Some(plural) => {
            let mut n = 0;
            for (slot, form) in buffer.iter_mut().zip(plural.forms_in(locale)) {
                *slot = (Some(form.0), form.1);
                n += 1;
            }
            n
        }
    }
}

/// The placeholder names of some texts (a plural entry's forms together, `count` left
/// out there: a form like "One file" rightly omits the quantity) into `names`, sorted,
/// each once; the first brace error, if any. Allocates only for a text with a brace.
fn names_of<'t>(
    texts: &[(Option<PluralCategory>, &'t str)],
    plural: bool,
    names: &mut Vec<&'t str>,
) -> Result<(), placeholders::BraceError> {
    names.clear();
    let mut result = Ok(());
    for &(_, text) in texts {
        result = result.and(push_names(text, plural, names));
    }
    names.sort_unstable();
    names.dedup();
    result
}

/// Appends the placeholder names of `text` (see `names_of`); its brace error, if any.
fn push_names<'t>(
    text: &'t str,
    plural: bool,
    names: &mut Vec<&'t str>,
) -> Result<(), placeholders::BraceError> {
    if !placeholders::has_braces(text) {
        return Ok(());
    }
    placeholders::scan(text, |piece| {
        if let Piece::Placeholder { name, .. } = piece
            && !(plural && name == COUNT)
        {
            names.push(name);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::android_name_hash;
    use crate::model::{Entry, Plural, PluralForm};

    /// Checked in parts on several threads, a sheet gives the findings one thread gives,
    /// in the same order: texts by entry, then name clashes.
    #[test]
    fn findings_in_parts_are_the_findings_at_once() {
        let locales = ["en", "pl", "de"];
        let entries: Vec<Entry> = (0..3 * ENTRIES_PER_PART + 11)
            .map(|e| {
                let text = |l: usize| match (e % 997, l) {
                    (0, 1) => "unbalanced { brace".to_owned(),
                    (1, 2) => "{other} placeholder".to_owned(),
                    _ => format!("{{name}} text {e}"),
                };
                let plural = (e % 1499 == 0).then(|| {
                    let texts = (0..locales.len()).map(|l| Some(text(l))).collect();
                    let forms = vec![PluralForm {
                        category: PluralCategory::Few,
                        texts,
                    }];
                    Box::new(Plural { forms })
                });
                Entry {
                    // every 2000th key meets the one before it in flat names
                    path: match e % 2000 {
                        1 => vec![format!("S.K{}", e - 1)],
                        _ => vec!["S".to_owned(), format!("K{e}")],
                    },
                    texts: (0..locales.len()).map(|l| Some(text(l))).collect(),
                    plural,
                    ..Entry::default()
                }
            })
            .collect();
        let mut scratch = String::new();
        let cells: Vec<EntryCells> = (entries.iter().enumerate())
            .map(|(e, entry)| EntryCells {
                key_column: 1,
                first: (None, e + 2),
                later: Vec::new(),
                braces: true,
                name_hash: android_name_hash(&entry.path, &mut scratch),
            })
            .collect();
        let doc = Document {
            locales: locales.map(str::to_owned).to_vec(),
            entries,
            ..Document::default()
        };
        let columns = [2, 3, 4];
        let at_once = check(1, &doc, &cells, &columns, || ());
        assert!(at_once.len() > 20, "{}", at_once.len());
        assert!(at_once.iter().any(|f| f.message.contains("unbalanced")));
        assert!(at_once.iter().any(|f| f.message.contains("both become")));
        assert!(at_once.iter().any(|f| f.message.contains("'few'")));
        assert_eq!(check(4, &doc, &cells, &columns, || ()), at_once);
    }
}
