//! The imported document as a sheet in depot's markup (SPEC §4): a header row of `>>>`
//! (one per key level), `###`, `$$$` and the locales (base first), then one row per key —
//! or per plural form, `KEY[category]` — its key cells written from the first level that
//! differs from the row above, as people write these sheets.
//!
//! `merge` puts it into an existing sheet instead, changing no text there unless asked:
//! texts it lacks fill empty cells; new locales (and `$$$`, and deeper `>>>` levels) become
//! new columns at the right; a new key goes right after the last row of its deepest section
//! that exists (so it inherits the section's tags), else at the end; a missing plural form
//! goes right after its entry's rows. Every cell whose text differs is a conflict, named
//! by its cell in the existing sheet (A1).

use std::collections::{BTreeSet, HashMap};

use crate::markup::{COMMENT_MARK, KEY_MARK, NAME_MARK, TAGS_MARK};
use crate::model::cell_name;
use crate::model::locale::same_locale;
use crate::model::{Document, Entry};

/// Joins key levels for lookups.
const SEPARATOR: &str = "\u{1F}";

/// A text of the app that differs from the existing sheet's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The existing sheet's cell (A1).
    pub cell: String,
    /// The key path, with `[category]` for a plural form.
    pub key: String,
    /// The locale, or `$$$` for a comment.
    pub locale: String,
    pub sheet: String,
    pub app: String,
    /// Whether `--overwrite` replaced the sheet's text.
    pub overwritten: bool,
}

/// What merging changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Merged {
    pub rows: Vec<Vec<String>>,
    pub conflicts: Vec<Conflict>,
    pub added_keys: usize,
    pub added_texts: usize,
    pub added_locales: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error(
        "the sheet to merge into has no header row (no cell holds '>>>'): it is not in depot's \
         markup; import into a new sheet instead"
    )]
    NoHeader,
}

/// The document as a new sheet: its texts, comments and names move into the cells, and
/// what is left of it (paths, the plural skeletons) is the caller's to free, or, for a
/// command about to exit, not to free at all.
pub fn sheet(doc: &mut Document) -> Vec<Vec<String>> {
    let depth = doc.entries.iter().map(|e| e.path.len()).max().unwrap_or(1);
    // name columns (`@@@`, then `@@@<format>`) only where some key has a name
    let names: BTreeSet<&str> = (doc.entries.iter())
        .flat_map(|e| e.names.keys().map(String::as_str))
        .collect();
    let names: Vec<String> = names.into_iter().map(str::to_owned).collect();
    let mut header: Vec<String> = vec![KEY_MARK.to_owned(); depth];
    header.extend(names.iter().map(|format| format!("{NAME_MARK}{format}")));
    header.push(TAGS_MARK.to_owned());
    header.push(COMMENT_MARK.to_owned());
    header.extend(doc.locales.iter().cloned());
    let first_text = depth + names.len() + 2;
    let layout = Layout {
        keys: (0..depth).collect(),
        names: (names.into_iter().enumerate())
            .map(|(i, format)| (format, depth + i))
            .collect(),
        comment: Some(first_text - 1),
        locales: (0..doc.locales.len())
            .map(|i| Some(first_text + i))
            .collect(),
        width: header.len(),
    };
    let rows_count: usize = doc
        .entries
        .iter()
        .map(|e| e.plural.as_ref().map_or(1, |p| p.forms.len()))
        .sum();
    let mut rows = Vec::with_capacity(rows_count + 2);
    // the syntax the texts hold, above the header row (which babelsheet ignores)
    if let Some(cell) = crate::markup::settings_cell(&doc.settings) {
        rows.push(vec![cell]);
    }
    rows.push(header);
    let mut state: Vec<String> = Vec::new();
    for entry in &mut doc.entries {
        layout.emit(entry, &mut state, &mut rows);
    }
    rows
}

/// Where things go in a sheet.
struct Layout {
    /// The column of each key level.
    keys: Vec<usize>,
    /// (format, column) of each name column (`""`: `@@@`).
    names: Vec<(String, usize)>,
    comment: Option<usize>,
    /// The column of each document locale.
    locales: Vec<Option<usize>>,
    width: usize,
}

impl Layout {
    /// Appends the rows of a new entry and returns how many texts they hold; `state` is
    /// the key levels in force (as the sheet reads them, a plural row's leaf cell
    /// included) before, and after, these rows. The texts are moved out of `entry`.
    fn emit(
        &self,
        entry: &mut Entry,
        state: &mut Vec<String>,
        rows: &mut Vec<Vec<String>>,
    ) -> usize {
        let leaf = entry.path.len() - 1;
        let forms: Vec<(Option<&str>, &mut Vec<Option<String>>)> = match &mut entry.plural {
            None => vec![(None, &mut entry.texts)],
            Some(plural) => plural
                .forms
                .iter_mut()
                .map(|f| (Some(f.category.name()), &mut f.texts))
                .collect(),
        };
        let mut written = 0;
        for (n, (category, texts)) in forms.into_iter().enumerate() {
            let mut row = vec![String::new(); self.width];
            // the row's levels: the path, a plural row's leaf `KEY[category]`
            let leaf_cell = category.map(|category| format!("{}[{category}]", entry.path[leaf]));
            let level_at = |level: usize| match &leaf_cell {
                Some(cell) if level == leaf => cell.as_str(),
                _ => entry.path[level].as_str(),
            };
            // the first level that differs from the rows above; the leaf always
            let first = if n == 0 {
                (0..entry.path.len())
                    .zip(state.iter())
                    .take_while(|&(level, above)| level_at(level) == above)
                    .count()
                    .min(leaf)
            } else {
                leaf
            };
            // the levels above `first` are the state's already
            state.truncate(first);
            for level in first..entry.path.len() {
                row[self.keys[level]] = level_at(level).to_owned();
                state.push(level_at(level).to_owned());
            }
            if n == 0
                && let (Some(column), Some(comment)) = (self.comment, entry.comment.take())
            {
                row[column] = comment;
            }
            if n == 0 {
                for (format, column) in &self.names {
                    if let Some(name) = entry.names.remove(format) {
                        row[*column] = name;
                    }
                }
            }
            for (locale, text) in texts.iter_mut().enumerate() {
                if let (Some(text), Some(Some(column))) = (text.take(), self.locales.get(locale)) {
                    row[*column] = text;
                    written += 1;
                }
            }
            rows.push(row);
        }
        written
    }
}

/// What the existing sheet's header says.
struct Header {
    row: usize,
    keys: Vec<usize>,
    /// (format, column) of each name column.
    names: Vec<(String, usize)>,
    comment: Option<usize>,
    locales: Vec<(usize, String)>,
}

fn header(rows: &[Vec<String>]) -> Option<Header> {
    let row = rows
        .iter()
        .position(|r| r.iter().any(|c| c.trim() == KEY_MARK))?;
    let mut header = Header {
        row,
        keys: Vec::new(),
        names: Vec::new(),
        comment: None,
        locales: Vec::new(),
    };
    for (column, cell) in rows[row].iter().enumerate() {
        match cell.trim() {
            KEY_MARK => header.keys.push(column),
            TAGS_MARK | "" | "*" => {}
            COMMENT_MARK => {
                header.comment.get_or_insert(column);
            }
            code if code.starts_with(NAME_MARK) => {
                header
                    .names
                    .push((code[NAME_MARK.len()..].to_owned(), column));
            }
            code if code.contains('.') => {}
            code => {
                if !header.locales.iter().any(|(_, c)| same_locale(c, code)) {
                    header.locales.push((column, code.to_owned()));
                }
            }
        }
    }
    Some(header)
}

/// Where an existing key's rows are.
#[derive(Default)]
struct Rows {
    plain: Option<usize>,
    forms: Vec<(String, usize)>,
    last: usize,
}

fn cell(rows: &[Vec<String>], row: usize, column: usize) -> &str {
    rows.get(row)
        .and_then(|r| r.get(column))
        .map_or("", String::as_str)
}

/// `NAME[word]` → (`NAME`, `word`) as the sheet reads plural rows.
fn split_plural(level: &str) -> Option<(&str, &str)> {
    let inner = level.strip_suffix(']')?;
    let open = inner.rfind('[')?;
    let (name, word) = (inner[..open].trim_end(), &inner[open + 1..]);
    (!name.is_empty() && !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphabetic()))
        .then_some((name, word))
}

/// Merges `doc` into the existing sheet `rows`.
pub fn merge(
    mut rows: Vec<Vec<String>>,
    doc: &Document,
    overwrite: bool,
) -> Result<Merged, MergeError> {
    let header = header(&rows).ok_or(MergeError::NoHeader)?;
    let mut merged = Merged::default();
    let mut width = rows.iter().map(Vec::len).max().unwrap_or(0);
    // the key level of each row as the sheet reads it, and where each key and section is
    let mut keys: HashMap<String, Rows> = HashMap::new();
    let mut section_end: HashMap<String, usize> = HashMap::new();
    let mut row_state: Vec<Vec<String>> = vec![Vec::new(); rows.len()];
    let mut state: Vec<String> = vec![String::new(); header.keys.len()];
    for (index, levels_of_row) in row_state.iter_mut().enumerate().skip(header.row + 1) {
        for (level, &column) in header.keys.iter().enumerate() {
            let key = cell(&rows, index, column).trim();
            if !key.is_empty() {
                state[level] = key.to_owned();
                for deeper in &mut state[level + 1..] {
                    deeper.clear();
                }
            }
        }
        let levels: Vec<String> = state.iter().filter(|l| !l.is_empty()).cloned().collect();
        *levels_of_row = levels.clone();
        let has_text = header
            .locales
            .iter()
            .any(|(c, _)| !cell(&rows, index, *c).is_empty());
        if levels.is_empty() || !has_text {
            continue;
        }
        let (path, form) = match split_plural(&levels[levels.len() - 1]) {
            Some((name, word)) => {
                let mut path = levels[..levels.len() - 1].to_vec();
                path.push(name.to_owned());
                (path, Some(word.to_owned()))
            }
            None => (levels.clone(), None),
        };
        for n in 1..path.len() {
            section_end.insert(path[..n].join(SEPARATOR), index);
        }
        let at = keys.entry(path.join(SEPARATOR)).or_default();
        match form {
            Some(word) => at.forms.push((word, index)),
            None => {
                at.plain.get_or_insert(index);
            }
        }
        at.last = index;
    }

    // columns for the locales, comments and key levels the sheet lacks, at the right
    let mut new_column = |header_cell: &str, rows: &mut Vec<Vec<String>>| {
        let column = width;
        width += 1;
        let header_row = &mut rows[header.row];
        header_row.resize(column + 1, String::new());
        header_row[column] = header_cell.to_owned();
        column
    };
    let locales: Vec<Option<usize>> = doc
        .locales
        .iter()
        .map(|code| {
            let existing = header
                .locales
                .iter()
                .find(|(_, c)| same_locale(c, code))
                .map(|(c, _)| *c);
            Some(existing.unwrap_or_else(|| {
                merged.added_locales.push(code.clone());
                new_column(code, &mut rows)
            }))
        })
        .collect();
    let has_comments = doc.entries.iter().any(|e| e.comment.is_some());
    let comment = match header.comment {
        Some(c) => Some(c),
        None if has_comments => Some(new_column(COMMENT_MARK, &mut rows)),
        None => None,
    };
    let depth = doc.entries.iter().map(|e| e.path.len()).max().unwrap_or(0);
    let mut key_columns = header.keys.clone();
    while key_columns.len() < depth {
        key_columns.push(new_column(KEY_MARK, &mut rows));
    }
    // the name columns new keys need (a name of a key the sheet has is not changed)
    let mut name_columns = header.names.clone();
    for entry in &doc.entries {
        for format in entry.names.keys() {
            if !name_columns.iter().any(|(f, _)| f == format) {
                let column = new_column(&format!("{NAME_MARK}{format}"), &mut rows);
                name_columns.push((format.clone(), column));
            }
        }
    }
    let layout = Layout {
        keys: key_columns,
        names: name_columns,
        comment,
        locales,
        width,
    };

    // rows to insert after an existing row (forms first, then new keys), and at the end
    let mut after: HashMap<usize, (Vec<Vec<String>>, Vec<&Entry>)> = HashMap::new();
    let mut at_end: Vec<&Entry> = Vec::new();
    for entry in &doc.entries {
        let joined = entry.path.join(SEPARATOR);
        let dotted = entry.path.join(".");
        if let Some(existing) = keys.get(&joined) {
            update(
                &mut rows,
                &layout,
                doc,
                entry,
                existing,
                &dotted,
                overwrite,
                &mut merged,
                &mut after,
            );
            continue;
        }
        let clash = if section_end.contains_key(&joined) {
            Some("the sheet has a section of that name, which keeps it from holding a text")
        } else if (1..entry.path.len()).any(|n| keys.contains_key(&entry.path[..n].join(SEPARATOR)))
        {
            Some("the sheet has a key where this key's section would be")
        } else {
            None
        };
        if let Some(why) = clash {
            merged.conflicts.push(Conflict {
                cell: String::new(),
                key: dotted,
                locale: String::new(),
                sheet: why.to_owned(),
                app: "a new key".to_owned(),
                overwritten: false,
            });
            continue;
        }
        merged.added_keys += 1;
        let anchor = (1..entry.path.len())
            .rev()
            .find_map(|n| section_end.get(&entry.path[..n].join(SEPARATOR)).copied());
        match anchor {
            Some(row) => after.entry(row).or_default().1.push(entry),
            None => at_end.push(entry),
        }
    }

    let mut out = Vec::with_capacity(rows.len() + at_end.len());
    for (index, mut row) in rows.into_iter().enumerate() {
        row.resize(row.len().max(width), String::new());
        out.push(row);
        if let Some((forms, entries)) = after.remove(&index) {
            let mut state = row_state[index].clone();
            for form in forms {
                out.push(form);
            }
            for entry in entries {
                merged.added_texts += layout.emit(&mut entry.clone(), &mut state, &mut out);
            }
        }
    }
    let mut state = Vec::new();
    for entry in at_end {
        merged.added_texts += layout.emit(&mut entry.clone(), &mut state, &mut out);
    }
    merged.rows = out;
    Ok(merged)
}

/// An existing key: fills the cells it lacks, lists every cell that differs.
#[allow(
    clippy::too_many_arguments,
    reason = "one merge step over the rows, the layout and the entry it updates; a struct of them would only name the same eight things again"
)]
fn update(
    rows: &mut [Vec<String>],
    layout: &Layout,
    doc: &Document,
    entry: &Entry,
    existing: &Rows,
    dotted: &str,
    overwrite: bool,
    merged: &mut Merged,
    after: &mut HashMap<usize, (Vec<Vec<String>>, Vec<&Entry>)>,
) {
    let put = |merged: &mut Merged,
               rows: &mut [Vec<String>],
               row: usize,
               column: usize,
               key: String,
               locale: &str,
               app: &str| {
        let line = &mut rows[row];
        if line.len() <= column {
            line.resize(column + 1, String::new());
        }
        let sheet = &line[column];
        if sheet.is_empty() {
            line[column] = app.to_owned();
            merged.added_texts += 1;
        } else if sheet != app {
            merged.conflicts.push(Conflict {
                cell: cell_name(column, row + 1),
                key,
                locale: locale.to_owned(),
                sheet: sheet.clone(),
                app: app.to_owned(),
                overwritten: overwrite,
            });
            if overwrite {
                line[column] = app.to_owned();
            }
        }
    };
    let first_row = existing
        .plain
        .or(existing.forms.first().map(|(_, r)| *r))
        .unwrap_or(existing.last);
    if let (Some(column), Some(comment)) = (layout.comment, &entry.comment) {
        put(
            merged,
            rows,
            first_row,
            column,
            dotted.to_owned(),
            COMMENT_MARK,
            comment,
        );
    }
    match (&entry.plural, existing.plain) {
        (None, Some(row)) => {
            for (locale, text) in entry.texts.iter().enumerate() {
                if let (Some(text), Some(Some(column))) = (text, layout.locales.get(locale)) {
                    put(
                        merged,
                        rows,
                        row,
                        *column,
                        dotted.to_owned(),
                        &doc.locales[locale],
                        text,
                    );
                }
            }
        }
        (Some(plural), None) => {
            for form in &plural.forms {
                let name = form.category.name();
                let key = format!("{dotted}[{name}]");
                match existing.forms.iter().find(|(word, _)| word == name) {
                    Some(&(_, row)) => {
                        for (locale, text) in form.texts.iter().enumerate() {
                            if let (Some(text), Some(Some(column))) =
                                (text, layout.locales.get(locale))
                            {
                                put(
                                    merged,
                                    rows,
                                    row,
                                    *column,
                                    key.clone(),
                                    &doc.locales[locale],
                                    text,
                                );
                            }
                        }
                    }
                    None => {
                        let mut row = vec![String::new(); layout.width];
                        let leaf = entry.path.len() - 1;
                        row[layout.keys[leaf]] = format!("{}[{name}]", entry.path[leaf]);
                        for (locale, text) in form.texts.iter().enumerate() {
                            if let (Some(text), Some(Some(column))) =
                                (text, layout.locales.get(locale))
                            {
                                row[*column] = text.clone();
                                merged.added_texts += 1;
                            }
                        }
                        after.entry(existing.last).or_default().0.push(row);
                    }
                }
            }
        }
        (plural, _) => merged.conflicts.push(Conflict {
            cell: cell_name(
                layout.keys[entry
                    .path
                    .len()
                    .saturating_sub(1)
                    .min(layout.keys.len() - 1)],
                first_row + 1,
            ),
            key: dotted.to_owned(),
            locale: String::new(),
            sheet: if plural.is_some() {
                "a text"
            } else {
                "a plural entry"
            }
            .to_owned(),
            app: if plural.is_some() {
                "a plural entry"
            } else {
                "a text"
            }
            .to_owned(),
            overwritten: false,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Plural, PluralCategory, PluralForm};

    fn entry(path: &str, texts: &[Option<&str>]) -> Entry {
        Entry {
            path: path.split('.').map(str::to_owned).collect(),
            texts: texts.iter().map(|t| t.map(str::to_owned)).collect(),
            ..Entry::default()
        }
    }

    fn plural(path: &str, forms: &[(PluralCategory, &[Option<&str>])]) -> Entry {
        let mut e = entry(path, &[]);
        e.plural = Some(Box::new(Plural {
            forms: forms
                .iter()
                .map(|(c, t)| PluralForm {
                    category: *c,
                    texts: t.iter().map(|t| t.map(str::to_owned)).collect(),
                })
                .collect(),
        }));
        e
    }

    fn grid(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect()
    }

    fn doc(locales: &[&str], entries: Vec<Entry>) -> Document {
        Document {
            locales: locales.iter().map(|l| l.to_string()).collect(),
            entries,
            ..Document::default()
        }
    }

    #[test]
    fn a_new_sheet_writes_levels_from_the_first_that_differs() {
        let mut commented = entry("CORE.LABELS.YES", &[Some("Yes"), Some("Tak")]);
        commented.comment = Some("A button".into());
        let d = doc(
            &["en", "pl"],
            vec![
                commented,
                entry("CORE.LABELS.NO", &[Some("No"), None]),
                plural(
                    "CORE.FILES",
                    &[
                        (PluralCategory::One, &[Some("a file"), None]),
                        (PluralCategory::Other, &[Some("files"), Some("pliki")]),
                    ],
                ),
                entry("TOP", &[Some("=1+1"), Some("'x")]),
            ],
        );
        let rows = sheet(&mut d.clone());
        assert_eq!(
            rows,
            grid(&[
                &[">>>", ">>>", ">>>", "###", "$$$", "en", "pl"],
                &["CORE", "LABELS", "YES", "", "A button", "Yes", "Tak"],
                &["", "", "NO", "", "", "No", ""],
                &["", "FILES[one]", "", "", "", "a file", ""],
                &["", "FILES[other]", "", "", "", "files", "pliki"],
                &["TOP", "", "", "", "", "=1+1", "'x"],
            ])
        );
        // the sheet reads back to the same document
        let back = crate::markup::convert(rows).unwrap();
        assert_eq!(back.locales, d.locales);
        let paths: Vec<String> = back.entries.iter().map(|e| e.path.join(".")).collect();
        assert_eq!(
            paths,
            ["CORE.LABELS.YES", "CORE.LABELS.NO", "CORE.FILES", "TOP"]
        );
        assert_eq!(back.entries[0].comment.as_deref(), Some("A button"));
        assert!(
            back.findings.iter().all(|f| !f.message.contains("twice")),
            "{:?}",
            back.findings
        );
    }

    #[test]
    fn merge_fills_gaps_lists_conflicts_and_places_new_keys_in_their_sections() {
        let existing = grid(&[
            &["my app"],
            &[">>>", ">>>", "###", "en"],
            &["CORE", "", "ui", ""],
            &["", "YES", "", "Yes"],
            &["", "NO", "", "Nope"],
            &["", "FILES[other]", "", "files"],
            &["OTHER", "X", "", "x"],
        ]);
        let d = doc(
            &["en", "pl"],
            vec![
                entry("CORE.YES", &[Some("Yes"), Some("Tak")]),
                entry("CORE.NO", &[Some("No"), Some("Nie")]),
                entry("CORE.NEW", &[Some("New"), None]),
                plural(
                    "CORE.FILES",
                    &[
                        (PluralCategory::One, &[Some("a file"), None]),
                        (PluralCategory::Other, &[Some("files"), Some("pliki")]),
                    ],
                ),
                entry("THIRD.DEEP.KEY", &[Some("deep"), None]),
            ],
        );
        let merged = merge(existing.clone(), &d, false).unwrap();
        assert_eq!(merged.added_locales, ["pl"]);
        assert_eq!(merged.added_keys, 2);
        assert_eq!(
            merged.conflicts,
            vec![Conflict {
                cell: "D5".into(),
                key: "CORE.NO".into(),
                locale: "en".into(),
                sheet: "Nope".into(),
                app: "No".into(),
                overwritten: false
            }]
        );
        assert_eq!(
            merged.rows,
            grid(&[
                &["my app", "", "", "", "", ""],
                &[">>>", ">>>", "###", "en", "pl", ">>>"],
                &["CORE", "", "ui", "", "", ""],
                &["", "YES", "", "Yes", "Tak", ""],
                &["", "NO", "", "Nope", "Nie", ""],
                &["", "FILES[other]", "", "files", "pliki", ""],
                &["", "FILES[one]", "", "a file", "", ""],
                &["", "NEW", "", "New", "", ""],
                &["OTHER", "X", "", "x", "", ""],
                &["THIRD", "DEEP", "", "deep", "", "KEY"],
            ])
        );
        let back = crate::markup::convert(merged.rows).unwrap();
        let new = back
            .entries
            .iter()
            .find(|e| e.path == ["CORE", "NEW"])
            .unwrap();
        assert_eq!(new.tags, ["ui"], "a new key inherits its section's tags");
        assert!(
            back.entries
                .iter()
                .any(|e| e.path == ["THIRD", "DEEP", "KEY"])
        );
        let overwritten = merge(existing, &d, true).unwrap();
        assert!(overwritten.conflicts[0].overwritten);
        assert_eq!(overwritten.rows[4][3], "No");
    }

    #[test]
    fn a_sheet_without_markup_is_refused() {
        assert_eq!(
            merge(grid(&[&["a", "b"]]), &doc(&["en"], vec![]), false),
            Err(MergeError::NoHeader)
        );
    }
}
