//! Sheet → model (SPEC §4 "Spreadsheet markup", §6.1): turns the value grid of a spreadsheet
//! written in babelsheet markup into a `Document`. A faulty row never stops the conversion: it
//! becomes a warning naming its cell. Only a sheet without a usable header row is an error.

pub mod checks;
#[cfg(test)]
pub(crate) mod test_support;

use std::collections::HashMap;

use thiserror::Error;

use self::checks::EntryCells;
use crate::formats;
use crate::model::locale::locale_key;
use crate::model::placeholders;
use crate::model::{
    Document, Entry, MAX_KEY_DEPTH, MAX_LOCALES, Plural, PluralCategory, PluralForm, SheetSettings,
    Warning, cell_name,
};
use crate::parallel;

/// Header cell of a key column; the n-th one from the left is nesting level n.
pub const KEY_MARK: &str = ">>>";
/// Header cell of a tags column (comma-separated tags for the whole row).
pub const TAGS_MARK: &str = "###";
/// Header cell of the translator-comment column.
pub const COMMENT_MARK: &str = "$$$";
/// How the settings cell starts: a cell above the header row (which babelsheet ignores)
/// holding `depot: key=value ...` (SPEC §12.1).
pub const SETTINGS_MARK: &str = "depot:";
/// Header cell of a name column (SPEC §12.1): the key's name as the app has it, for every
/// format that names keys flat; `@@@<format>` (`@@@android`, `@@@ios`, …) for one format.
pub const NAME_MARK: &str = "@@@";

/// Why a sheet cannot be converted at all. Everything less serious is a `Warning`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SheetError {
    #[error(
        "the sheet has no header row: no cell holds '>>>'. Mark the header row with '>>>' above \
         each key column (one per nesting level) and a locale code such as en_US above each \
         column of texts"
    )]
    NoHeaderRow,
    #[error(
        "the header row (row {row}) has no locale column: write a locale code such as en_US above \
         each column of texts (a code may not contain '.'){}",
        ignored_columns(.ignored)
    )]
    NoLocaleColumn {
        row: usize,
        /// The header cells refused as locale codes, e.g. `B1 "en.US"`.
        ignored: Vec<String>,
    },
    #[error(
        "the header row (row {row}) has {count} locale columns; at most {MAX_LOCALES} are \
         allowed: split the sheet, or remove the columns of languages the apps do not ship"
    )]
    TooManyLocales { row: usize, count: usize },
}

/// Converts the grid exactly as the Sheets API `values.get` returns it (rows of cells, trailing
/// empty cells dropped, empty rows `[]`). Takes the grid so that the texts move into the
/// document instead of being copied.
pub fn convert(rows: Vec<Vec<String>>) -> Result<Document, SheetError> {
    convert_rows(Rows::from(rows))
}

/// `convert` of the rows given one by one (`Rows::push`).
pub fn convert_rows(rows: Rows) -> Result<Document, SheetError> {
    convert_keyed(rows, false).map(|(doc, _)| doc)
}

/// `convert`, with the cell of each entry's key (parallel to `entries`): a sheet of
/// several tabs (`translations::tabs`) checks the names its tabs make together, and a
/// finding names the cell of the key it is about.
pub fn convert_with_key_cells(
    rows: Vec<Vec<String>>,
) -> Result<(Document, Vec<String>), SheetError> {
    convert_keyed(Rows::from(rows), true)
}

fn convert_keyed(rows: Rows, key_cells: bool) -> Result<(Document, Vec<String>), SheetError> {
    let Built {
        mut doc,
        cells,
        text_columns,
        rest,
    } = rows.build()?;
    // What is left of the grid (the row lists, key and tag cells; texts and comments
    // moved out) is freed by this thread while the others start on the checks
    // before publishing; then it checks too. Freed row by row as they are read, the cells
    // cost half as much (they are still in the cache), but the document's own strings then
    // land in the freed cells all over the heap, and every later pass over its key paths
    // (the filter index, flat names, the tree) ran 1.8x slower; freed by another thread
    // (while this one goes on allocating), both were slower.
    let threads = if checks::worth_threads(&doc) {
        parallel::cores()
    } else {
        1
    };
    let found = checks::check(threads, &doc, &cells, &text_columns, move || drop(rest));
    doc.findings.extend(found);
    // Each key's cell by its path (paths are unique), to follow the entries the drop
    // below leaves.
    let located: HashMap<Vec<String>, String> = match key_cells {
        true => (doc.entries.iter().zip(&cells))
            .map(|(e, c)| (e.path.clone(), cell_name(c.key_column, c.first.1)))
            .collect(),
        false => HashMap::new(),
    };
    // Reported above; what no format can carry is not published.
    doc.drop_plurals_without_other();
    let key_cells = match key_cells {
        true => (doc.entries.iter())
            .map(|e| located.get(&e.path).cloned().unwrap_or_default())
            .collect(),
        false => Vec::new(),
    };
    Ok((doc, key_cells))
}

/// A converted sheet before its checks, with what they need.
struct Built {
    /// Its findings so far: keys defined twice.
    doc: Document,
    cells: Vec<EntryCells>,
    /// Each locale's column.
    text_columns: Vec<usize>,
    /// What is left of the grid.
    rest: Vec<Vec<String>>,
}

/// A sheet's rows as they come, each taken by the conversion at once: a sheet read from a
/// file is converted on one core while the next rows are still being read on the others
/// (`depot generate`: the conversion took a tenth of the run with a core idle).
#[derive(Default)]
pub struct Rows {
    /// Every row so far; those below the header without their texts and comments (moved
    /// into the document).
    rows: Vec<Vec<String>>,
    /// From the header row on: the builder, or why the header is not usable.
    header: Option<Result<Builder, SheetError>>,
    /// The header row's index.
    header_index: usize,
    /// The rows below the header that hold a cell.
    rows_below: usize,
}

impl From<Vec<Vec<String>>> for Rows {
    fn from(grid: Vec<Vec<String>>) -> Rows {
        let mut rows = Rows::default();
        rows.rows.reserve_exact(grid.len());
        for row in grid {
            rows.push(row);
        }
        rows
    }
}

impl Rows {
    /// The next row (trailing empty cells dropped, as `values.get` gives them). The
    /// first holding `>>>` is the header.
    pub fn push(&mut self, mut row: Vec<String>) {
        let index = self.rows.len();
        match &mut self.header {
            None if row.iter().any(|cell| cell.trim() == KEY_MARK) => {
                self.header = Some(start_builder(&row, index));
                self.header_index = index;
            }
            None => {}
            Some(builder) => {
                self.rows_below += usize::from(!row.is_empty());
                if let Ok(builder) = builder {
                    builder.row(&mut row, index + 1);
                }
            }
        }
        self.rows.push(row);
    }

    /// The header row's index, once it came.
    pub fn header_index(&self) -> Option<usize> {
        self.header.is_some().then_some(self.header_index)
    }

    /// How many rows below the header hold a cell.
    pub fn rows_below(&self) -> usize {
        self.rows_below
    }

    fn build(self) -> Result<Built, SheetError> {
        let Rows {
            rows,
            header,
            header_index,
            ..
        } = self;
        let builder = header.ok_or(SheetError::NoHeaderRow)??;
        let (mut doc, mut cells, text_columns) = builder.finish();
        doc.settings = settings_above(&rows[..header_index], &mut doc.warnings);
        if doc.settings.syntax() != placeholders::SheetSyntax::Depot {
            // braces are not depot's placeholders in these texts: nothing for the brace and
            // placeholder checks to read
            for cell in &mut cells {
                cell.braces = false;
            }
        }
        Ok(Built {
            doc,
            cells,
            text_columns,
            rest: rows,
        })
    }
}

/// The builder of the rows below the header row `cells` (at `header_index`), or why the
/// header is not usable.
fn start_builder(cells: &[String], header_index: usize) -> Result<Builder, SheetError> {
    let mut warnings = Vec::new();
    let header = Header::parse(cells, header_index + 1, &mut warnings);
    if header.locales.is_empty() {
        let row = header_index + 1;
        let ignored = (header.refused.iter())
            .map(|(column, code)| format!("{} {code:?}", cell_name(*column, row)))
            .collect();
        return Err(SheetError::NoLocaleColumn { row, ignored });
    }
    if header.locales.len() > MAX_LOCALES {
        return Err(SheetError::TooManyLocales {
            row: header_index + 1,
            count: header.locales.len(),
        });
    }
    Ok(Builder::new(header, warnings))
}

/// The settings cell among the rows above the header (the first cell starting with
/// `depot:`); what it says that depot does not know is a warning naming the cell.
fn settings_above(rows: &[Vec<String>], warnings: &mut Vec<Warning>) -> SheetSettings {
    let mut settings = SheetSettings::default();
    let found = (rows.iter().enumerate())
        .flat_map(|(r, row)| row.iter().enumerate().map(move |(c, cell)| (r, c, cell)))
        .find_map(|(r, c, cell)| {
            let rest = cell.trim_start().strip_prefix(SETTINGS_MARK)?;
            Some((r + 1, c, rest))
        });
    let Some((row, column, rest)) = found else {
        return settings;
    };
    for pair in rest.split([' ', ';', '\t']).filter(|p| !p.is_empty()) {
        let known = || {
            let names: Vec<&str> = placeholders::SheetSyntax::ALL
                .iter()
                .map(|s| s.name())
                .collect();
            names.join(", ")
        };
        match pair.split_once('=') {
            Some(("placeholders", value)) => match placeholders::SheetSyntax::from_name(value) {
                Some(syntax) => settings.placeholders = Some(syntax),
                None => warn(
                    warnings,
                    column,
                    row,
                    format!(
                        "the settings cell names the placeholder syntax '{value}', which \
                             depot does not know (one of {}): the texts are read as depot's {{name}}",
                        known()
                    ),
                ),
            },
            Some(("po", "cldr")) => settings.po_cldr = true,
            Some(("po", "gettext")) => settings.po_cldr = false,
            Some(("po", value)) => warn(
                warnings,
                column,
                row,
                format!(
                    "the settings cell says po={value}, which depot does not know (cldr: \
                     plural slots in CLDR's order, gettext: gettext's formula): read as gettext"
                ),
            ),
            Some(("arb", "plain")) => settings.arb_plain = true,
            Some(("arb", "escaping")) => settings.arb_plain = false,
            Some(("arb", value)) => warn(
                warnings,
                column,
                row,
                format!(
                    "the settings cell says arb={value}, which depot does not know (plain: \
                     apostrophes are text, as gen-l10n reads them without use-escaping; \
                     escaping: ICU quoting, use-escaping: true): read as escaping"
                ),
            ),
            Some(("i18next", "v3")) => settings.i18next_v3 = true,
            Some(("i18next", "v4")) => settings.i18next_v3 = false,
            Some(("i18next", value)) => warn(
                warnings,
                column,
                row,
                format!(
                    "the settings cell says i18next={value}, which depot does not know (v3: \
                     plurals as KEY and KEY_plural, v4: KEY_one, KEY_other): read as v4"
                ),
            ),
            Some(("android", "markup")) => settings.android_markup = true,
            Some(("android", "text")) => settings.android_markup = false,
            Some(("android", value)) => warn(
                warnings,
                column,
                row,
                format!(
                    "the settings cell says android={value}, which depot does not know \
                     (markup: <b>, <font>, <xliff:g> in texts are Android markup, text: they \
                     are text): read as text"
                ),
            ),
            Some((key, _)) => warn(
                warnings,
                column,
                row,
                format!(
                    "the settings cell has the setting '{key}', which depot does not know \
                     (known: placeholders, i18next, po, arb, android): ignored"
                ),
            ),
            None => warn(
                warnings,
                column,
                row,
                format!(
                    "the settings cell has '{pair}', which is no key=value pair (such as \
                     placeholders=printf): ignored"
                ),
            ),
        }
    }
    settings
}

/// What the settings cell of a grid says (default when it has no header row or no cell),
/// without converting the sheet: `depot import --merge-into` asks it of the sheet it adds to.
pub fn settings_of(rows: &[Vec<String>]) -> SheetSettings {
    let header = rows
        .iter()
        .position(|row| row.iter().any(|cell| cell.trim() == KEY_MARK));
    header.map_or_else(SheetSettings::default, |at| {
        settings_above(&rows[..at], &mut Vec::new())
    })
}

/// The settings cell that says `settings` (`depot: placeholders=printf`); `None` when
/// there is nothing to say (a sheet in depot's own syntax needs no cell).
pub fn settings_cell(settings: &SheetSettings) -> Option<String> {
    let mut pairs = Vec::new();
    if let Some(syntax) = settings.placeholders {
        pairs.push(format!("placeholders={}", syntax.name()));
    }
    if settings.i18next_v3 {
        pairs.push("i18next=v3".to_owned());
    }
    if settings.po_cldr {
        pairs.push("po=cldr".to_owned());
    }
    if settings.arb_plain {
        pairs.push("arb=plain".to_owned());
    }
    if settings.android_markup {
        pairs.push("android=markup".to_owned());
    }
    (!pairs.is_empty()).then(|| format!("{SETTINGS_MARK} {}", pairs.join(" ")))
}

fn ignored_columns(ignored: &[String]) -> String {
    if ignored.is_empty() {
        String::new()
    } else {
        format!("; ignored header cells: {}", ignored.join(", "))
    }
}

fn warn(warnings: &mut Vec<Warning>, column: usize, row: usize, message: String) {
    warnings.push(cell_warning(column, row, message));
}

/// The cell at `column` of `row`, trimmed ("" past the row's end).
fn trimmed_cell(row: &[String], column: usize) -> &str {
    row.get(column).map_or("", |cell| cell.trim())
}

/// (column, tag) of every non-empty tag in the row's tag cells (comma-separated, trimmed),
/// in column order; repeats and tags refused for a `.` included.
fn tag_cells<'a>(
    columns: &'a [usize],
    row: &'a [String],
) -> impl Iterator<Item = (usize, &'a str)> + 'a {
    (columns.iter()).flat_map(move |&column| {
        (trimmed_cell(row, column).split(','))
            .map(str::trim)
            .filter(|tag| !tag.is_empty())
            .map(move |tag| (column, tag))
    })
}

/// The row's tags that are kept: those without a `.` (repeats included).
fn kept_tags<'a>(columns: &'a [usize], row: &'a [String]) -> impl Iterator<Item = &'a str> + 'a {
    tag_cells(columns, row)
        .filter(|(_, tag)| !tag.contains('.'))
        .map(|(_, tag)| tag)
}

/// What each column of the header means.
struct Header {
    /// Column of each key level, level 1 first; at most `MAX_KEY_DEPTH`.
    keys: Vec<usize>,
    /// The key columns past `MAX_KEY_DEPTH`: a row with a key there is skipped.
    too_deep: Vec<usize>,
    tags: Vec<usize>,
    comments: Vec<usize>,
    /// (column, format) of each name column: `""` for `@@@`, else the format's name.
    names: Vec<(usize, String)>,
    /// (column, code) of each accepted locale, in column order.
    locales: Vec<(usize, String)>,
    /// (column, code) of each header cell refused as a locale code.
    refused: Vec<(usize, String)>,
}

impl Header {
    fn parse(cells: &[String], row: usize, warnings: &mut Vec<Warning>) -> Header {
        let mut header = Header {
            keys: Vec::new(),
            too_deep: Vec::new(),
            tags: Vec::new(),
            comments: Vec::new(),
            names: Vec::new(),
            locales: Vec::new(),
            refused: Vec::new(),
        };
        // Locale codes folded as `same_locale` compares them, to find a repeated one in one
        // lookup (a sheet may have thousands of columns).
        let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
        for (column, cell) in cells.iter().enumerate() {
            let code = cell.trim();
            let refusal = match code {
                KEY_MARK if header.keys.len() == MAX_KEY_DEPTH => {
                    header.too_deep.push(column);
                    continue;
                }
                KEY_MARK => {
                    header.keys.push(column);
                    continue;
                }
                TAGS_MARK => {
                    header.tags.push(column);
                    continue;
                }
                COMMENT_MARK => {
                    header.comments.push(column);
                    continue;
                }
                "" => continue,
                _ if code.starts_with(NAME_MARK) => {
                    header.name_column(column, &code[NAME_MARK.len()..], row, warnings);
                    continue;
                }
                "*" => "'*' cannot be a locale code, it means every locale in filters: column \
                        ignored"
                    .to_owned(),
                _ if code.contains('.') => format!(
                    "locale code {code:?} contains '.', which separates filter segments: column \
                     ignored; write the code without '.' (e.g. en_US)"
                ),
                _ => match seen.get(&locale_key(code)) {
                    Some(&first) => format!(
                        "locale code {code:?} repeats the locale {:?} of cell {}: column \
                         ignored; keep one column per locale",
                        header.locales[first].1,
                        cell_name(header.locales[first].0, row)
                    ),
                    None => {
                        seen.insert(locale_key(code), header.locales.len());
                        header.locales.push((column, code.to_owned()));
                        continue;
                    }
                },
            };
            warn(warnings, column, row, refusal);
            header.refused.push((column, code.to_owned()));
        }
        if let Some(&first) = header.too_deep.first() {
            let message = format!(
                "{} key columns ('>>>') after the first {MAX_KEY_DEPTH}, from this one on, were \
                 ignored: keys may have at most {MAX_KEY_DEPTH} levels, and rows with a key \
                 in those columns are skipped",
                header.too_deep.len()
            );
            warn(warnings, first, row, message);
        }
        header
    }

    /// A `@@@` or `@@@<format>` column, unless it names no format with flat names or
    /// repeats one (then a warning and the column is ignored).
    fn name_column(
        &mut self,
        column: usize,
        format: &str,
        row: usize,
        warnings: &mut Vec<Warning>,
    ) {
        let refusal = if !format.is_empty() && !formats::NAMED.contains(&format) {
            format!(
                "name column {:?} names no format whose keys are names: column ignored; write \
                 {NAME_MARK} (every format) or {NAME_MARK} followed by one of {}",
                format!("{NAME_MARK}{format}"),
                formats::NAMED.join(", ")
            )
        } else if let Some((first, _)) = self.names.iter().find(|(_, f)| f == format) {
            format!(
                "name column {:?} repeats cell {}: column ignored; keep one column per format",
                format!("{NAME_MARK}{format}"),
                cell_name(*first, row)
            )
        } else {
            self.names.push((column, format.to_owned()));
            return;
        };
        warn(warnings, column, row, refusal);
    }
}

/// One level of the current key path.
#[derive(Clone)]
enum Level {
    Empty,
    Name {
        name: String,
        node: usize,
    },
    /// A key cell refused for holding a `.`: rows below it are skipped too, rather than
    /// silently landing in the enclosing section.
    Refused {
        key: String,
        cell: String,
    },
}

/// A node of the key tree (a section, a key, or both for a while until the conflict is
/// settled). Nodes let a row find its path with one lookup per key cell it sets, instead
/// of hashing whole paths.
struct Node {
    parent: Option<usize>,
    /// Index in `Builder::entries` of the live key at this node.
    entry: Option<usize>,
    /// Whether a live key lies below: the node is then a section and cannot hold a text.
    holds_keys: bool,
    /// Tags of the rows naming this node; they apply to every key at or below it.
    tags: Vec<String>,
}

const ROOT: usize = 0;

struct Builder {
    header: Header,
    warnings: Vec<Warning>,
    /// Findings met while reading rows (keys defined twice); `checks` adds the rest.
    findings: Vec<Warning>,
    levels: Vec<Level>,
    nodes: Vec<Node>,
    /// Distinct key names, so that `children` is keyed by two integers.
    names: HashMap<String, usize>,
    /// (parent node, name id) → child node.
    children: HashMap<(usize, usize), usize>,
    /// Every entry in first-appearance order, including those that lost their texts to a
    /// section; those are dropped at the end.
    entries: Vec<Slot>,
    /// Reused for each new entry's flat name (`EntryCells::name_hash`).
    scratch: String,
}

struct Slot {
    entry: Entry,
    node: usize,
    live: bool,
    /// The rows that gave it texts, and whether one of those held a brace
    /// (`RowTexts::braces`), for the checks.
    cells: EntryCells,
}

/// Splits a plural key cell `ITEMS[few]` into `ITEMS` and its category; `Err` holds a
/// bracketed word that is no category. A key without a trailing `[word]` is returned as
/// it is (`LIST[0]` stays a plain key).
fn plural_key(key: &str) -> (&str, Option<Result<PluralCategory, &str>>) {
    let Some(open) = key.strip_suffix(']').and_then(|k| k.rfind('[')) else {
        return (key, None);
    };
    let (name, word) = (key[..open].trim_end(), &key[open + 1..key.len() - 1]);
    if name.is_empty() || word.is_empty() || !word.bytes().all(|b| b.is_ascii_alphabetic()) {
        return (key, None);
    }
    (name, Some(PluralCategory::from_name(word).ok_or(word)))
}

/// What a key row gives its entry.
struct KeyRow {
    /// The key cell.
    at: Place,
    category: Option<PluralCategory>,
    texts: RowTexts,
    comment: Option<String>,
    /// The row's name cells (`Entry::names`).
    names: crate::model::Names,
}

/// The texts of one row, moved out of their cells.
struct RowTexts {
    /// One per locale; `None` for an empty cell.
    texts: Vec<Option<String>>,
    first_column: Option<usize>,
    /// Whether some text holds `{` or `}`. Found while the row is read, its cells still
    /// in the cache: the checks before publishing then read only the texts of entries
    /// that may hold a placeholder, instead of every text of the sheet a second time.
    braces: bool,
}

impl Builder {
    fn new(header: Header, warnings: Vec<Warning>) -> Builder {
        let depth = header.keys.len();
        Builder {
            header,
            warnings,
            findings: Vec::new(),
            levels: vec![Level::Empty; depth],
            nodes: vec![Node {
                parent: None,
                entry: None,
                holds_keys: false,
                tags: Vec::new(),
            }],
            names: HashMap::new(),
            children: HashMap::new(),
            entries: Vec::new(),
            scratch: String::new(),
        }
    }

    /// Moves the row's texts out of their cells, one per locale.
    fn take_texts(&self, row: &mut [String]) -> RowTexts {
        let mut first_column = None;
        let mut braces = false;
        let texts = (self.header.locales.iter())
            .map(|&(column, _)| {
                let text = row.get_mut(column).map(std::mem::take).unwrap_or_default();
                if text.is_empty() {
                    return None;
                }
                first_column.get_or_insert(column);
                braces = braces || placeholders::has_braces(&text);
                Some(text)
            })
            .collect();
        RowTexts {
            texts,
            first_column,
            braces,
        }
    }

    /// Moves the row's translator comment out of its cell (comment columns that hold
    /// text, trimmed, joined by line breaks): the document keeps the sheet's own string,
    /// not a copy, and the grid has one string less to free.
    fn take_comment(&self, row: &mut [String]) -> Option<String> {
        let mut comment: Option<String> = None;
        for &column in &self.header.comments {
            let Some(cell) = row.get_mut(column) else {
                continue;
            };
            let trimmed = cell.trim();
            if trimmed.is_empty() {
                continue;
            }
            match &mut comment {
                None if trimmed.len() == cell.len() => comment = Some(std::mem::take(cell)),
                None => comment = Some(trimmed.to_owned()),
                Some(joined) => {
                    joined.push('\n');
                    joined.push_str(trimmed);
                }
            }
        }
        comment
    }

    /// Moves the row's name cells out, read exactly (an empty cell gives no name).
    fn take_names(&self, row: &mut [String]) -> crate::model::Names {
        let mut names = crate::model::Names::default();
        for (column, format) in &self.header.names {
            if let Some(cell) = row.get_mut(*column).filter(|c| !c.is_empty()) {
                names.insert(format.clone(), std::mem::take(cell));
            }
        }
        names
    }

    /// The node named `name` below `parent`, created when new.
    fn child(&mut self, parent: usize, name: &str) -> usize {
        let next_name = self.names.len();
        let name = match self.names.get(name) {
            Some(&id) => id,
            None => *self.names.entry(name.to_owned()).or_insert(next_name),
        };
        let next_node = self.nodes.len();
        let node = *self.children.entry((parent, name)).or_insert(next_node);
        if node == next_node {
            self.nodes.push(Node {
                parent: Some(parent),
                entry: None,
                holds_keys: false,
                tags: Vec::new(),
            });
        }
        node
    }

    fn row(&mut self, row: &mut [String], number: usize) {
        let too_deep = (self.header.too_deep.iter().enumerate())
            .take_while(|&(_, &column)| column < row.len())
            .find(|&(_, &column)| !row[column].trim().is_empty());
        if let Some((past, &column)) = too_deep {
            let message = format!(
                "key {:?} is at level {}, deeper than the {MAX_KEY_DEPTH} levels allowed: row \
                 skipped; move the key up, or join levels into one key",
                row[column].trim(),
                MAX_KEY_DEPTH + past + 1
            );
            warn(&mut self.warnings, column, number, message);
            return;
        }
        let texts = self.take_texts(row);
        let comment = self.take_comment(row);
        let names = self.take_names(row);
        for (column, tag) in tag_cells(&self.header.tags, row).filter(|(_, t)| t.contains('.')) {
            let message = format!(
                "tag {tag:?} contains '.', which separates filter segments: tag ignored; rename \
                 it (e.g. {:?})",
                tag.replace('.', "_")
            );
            warn(&mut self.warnings, column, number, message);
        }
        // Levels by index rather than a list of the row's key cells: this runs for every
        // row, and nothing here allocates but what the document keeps.
        let key_columns = self.header.keys.len();
        let key_at = |level: usize| trimmed_cell(row, self.header.keys[level]);
        let Some(deepest) = (0..key_columns)
            .rev()
            .find(|&level| !key_at(level).is_empty())
        else {
            self.row_without_key(&texts, row, number);
            return;
        };
        let key_column = self.header.keys[deepest];
        let deepest_key = key_at(deepest);
        let (deepest_key, category) = match plural_key(deepest_key) {
            (key, None) => (key, None),
            (key, Some(Ok(category))) => (key, Some(category)),
            (_, Some(Err(word))) => {
                let message = format!(
                    "{word:?} in {deepest_key:?} is not a plural category: row skipped; write \
                     one of zero, one, two, few, many, other (lower case), e.g. \"ITEMS[one]\""
                );
                warn(&mut self.warnings, key_column, number, message);
                return;
            }
        };
        for level in 0..=deepest {
            let column = self.header.keys[level];
            let key = match trimmed_cell(row, column) {
                "" => continue,
                _ if level == deepest => deepest_key,
                key => key,
            };
            self.levels[level + 1..].fill(Level::Empty);
            if key.contains('.') {
                self.levels[level] = Level::Refused {
                    key: key.to_owned(),
                    cell: cell_name(column, number),
                };
                let message = format!(
                    "key {key:?} contains '.', which separates filter segments: row skipped; \
                     rename the key (e.g. {:?})",
                    key.replace('.', "_")
                );
                warn(&mut self.warnings, column, number, message);
                return;
            }
            let mut parent = ROOT;
            for above in self.levels[..level].iter().rev() {
                match above {
                    Level::Empty => continue,
                    Level::Name { node, .. } => parent = *node,
                    Level::Refused { key: refused, cell } => {
                        let message = format!(
                            "key {deepest_key:?} lies under the refused key {refused:?} (cell \
                             {cell}): row skipped"
                        );
                        warn(&mut self.warnings, key_column, number, message);
                        self.levels[level] = Level::Empty;
                        return;
                    }
                }
                break;
            }
            let node = self.child(parent, key);
            // the level's string is reused: a new key row replaces the last one's name
            match &mut self.levels[level] {
                Level::Name { name, node: at } => {
                    name.clear();
                    name.push_str(key);
                    *at = node;
                }
                level => {
                    *level = Level::Name {
                        name: key.to_owned(),
                        node,
                    }
                }
            }
        }
        let Level::Name { node, .. } = self.levels[deepest] else {
            return;
        };
        let known = &mut self.nodes[node].tags;
        for tag in kept_tags(&self.header.tags, row) {
            if !known.iter().any(|k| k == tag) {
                known.push(tag.to_owned());
            }
        }
        if texts.first_column.is_some() {
            let key_row = KeyRow {
                at: Place {
                    column: key_column,
                    row: number,
                },
                category,
                texts,
                comment,
                names,
            };
            self.define(node, deepest, key_row);
        }
    }

    fn row_without_key(&mut self, texts: &RowTexts, row: &[String], number: usize) {
        if let Some(column) = texts.first_column {
            warn(
                &mut self.warnings,
                column,
                number,
                "texts without a key: no '>>>' column of this row holds a key, so its texts \
                 were skipped; write the key name in a '>>>' column"
                    .to_owned(),
            );
            return;
        }
        let mut tags: Vec<&str> = Vec::new();
        for tag in kept_tags(&self.header.tags, row) {
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
        if !tags.is_empty() {
            let column = (self.header.tags.iter())
                .copied()
                .find(|&c| row.get(c).is_some_and(|t| !t.trim().is_empty()))
                .unwrap_or_default();
            let message = format!(
                "tags without a key: no '>>>' column of this row holds a key, so its tags {:?} \
                 were ignored",
                tags.join(", ")
            );
            warn(&mut self.warnings, column, number, message);
        }
    }

    /// The names and nodes of the current path down to `deepest`, outermost first.
    fn current_path(&self, deepest: usize) -> impl Iterator<Item = (&String, usize)> {
        self.levels[..=deepest]
            .iter()
            .filter_map(|level| match level {
                Level::Name { name, node } => Some((name, *node)),
                _ => None,
            })
    }

    fn dotted_path(&self, deepest: usize, node: usize) -> String {
        let mut names: Vec<&str> = Vec::new();
        for (name, at) in self.current_path(deepest) {
            names.push(name);
            if at == node {
                break;
            }
        }
        names.join(".")
    }

    /// Records the texts of the key row at `node` (level `deepest`), settling clashes with
    /// earlier rows.
    fn define(&mut self, node: usize, deepest: usize, row: KeyRow) {
        let KeyRow {
            at,
            category,
            texts: RowTexts { texts, braces, .. },
            comment,
            names,
        } = row;
        if self.nodes[node].holds_keys {
            let message = format!(
                "{:?} is already a section with keys below it, so the texts of this row were \
                 dropped; give them a key of their own inside the section",
                self.dotted_path(deepest, node)
            );
            warn(&mut self.warnings, at.column, at.row, message);
            return;
        }
        for level in 0..=deepest {
            let ancestor = match &self.levels[level] {
                Level::Name { node: at, .. } if *at != node => *at,
                _ => continue,
            };
            self.nodes[ancestor].holds_keys = true;
            if let Some(index) = self.nodes[ancestor].entry.take() {
                let slot = &mut self.entries[index];
                slot.live = false;
                let message = format!(
                    "{:?} was a key (row {}) and is now also a section: its texts were dropped \
                     and the section kept; move them to a key inside the section",
                    slot.entry.path.join("."),
                    slot.cells.first.1
                );
                warn(&mut self.warnings, at.column, at.row, message);
            }
        }
        if let Some(index) = self.nodes[node].entry {
            let slot = &mut self.entries[index];
            // like texts: a later row's name replaces an earlier one
            slot.entry.names.extend(names);
            // kept even when this row's texts replace those that had the brace: the
            // checks then look at texts that need not be looked at, never the reverse
            slot.cells.braces |= braces;
            let dotted = slot.entry.path.join(".");
            let message = match (&mut slot.entry.plural, category) {
                (Some(plural), Some(category)) => {
                    let known = plural.forms.iter().any(|f| f.category == category);
                    merge_form(plural, category, texts);
                    slot.cells.later.push((Some(category), at.row));
                    if !known {
                        if comment.is_some() {
                            slot.entry.comment = comment;
                        }
                        return;
                    }
                    format!(
                        "duplicate plural form \"{dotted}[{}]\" (entry first on row {}): its \
                         non-empty texts on this row replace the earlier ones",
                        category.name(),
                        slot.cells.first.1
                    )
                }
                (None, None) => {
                    for (kept, new) in slot.entry.texts.iter_mut().zip(texts) {
                        if new.is_some() {
                            *kept = new;
                        }
                    }
                    slot.cells.later.push((None, at.row));
                    format!(
                        "duplicate key {dotted:?} (first on row {}): its non-empty texts on this \
                         row replace the earlier ones",
                        slot.cells.first.1
                    )
                }
                (Some(_), None) | (None, Some(_)) => {
                    let (was, is) = match category {
                        Some(_) => ("a plain key", "a plural form"),
                        None => ("a plural entry", "a plain key"),
                    };
                    let message = format!(
                        "{dotted:?} is {was} (row {}) and {is} on this row: this row was \
                         skipped; write every row of a plural entry as KEY[category]",
                        slot.cells.first.1
                    );
                    self.findings
                        .push(cell_warning(at.column, at.row, message.clone()));
                    warn(&mut self.warnings, at.column, at.row, message);
                    return;
                }
            };
            if comment.is_some() {
                slot.entry.comment = comment;
            }
            // A key defined twice is also a finding: strict mode refuses it.
            self.findings
                .push(cell_warning(at.column, at.row, message.clone()));
            warn(&mut self.warnings, at.column, at.row, message);
            return;
        }
        // Copied, not moved out of the key cell: a key path's strings are then made
        // together, and every later pass over the paths (the filter index, flat names)
        // reads them without a cache miss apiece (moved, the filter index took 1.2-1.4x
        // as long).
        let path: Vec<String> = (self.current_path(deepest))
            .map(|(name, _)| name.clone())
            .collect();
        let name_hash = formats::android_name_hash(&path, &mut self.scratch);
        let (texts, plural) = match category {
            None => (texts, None),
            Some(category) => {
                let mut plural = Plural::default();
                merge_form(&mut plural, category, texts);
                // filled in by `finish`, once every form is known
                (Vec::new(), Some(Box::new(plural)))
            }
        };
        self.nodes[node].entry = Some(self.entries.len());
        self.entries.push(Slot {
            entry: Entry {
                path,
                texts,
                tags: Vec::new(),
                comment,
                plural,
                names,
            },
            node,
            live: true,
            cells: EntryCells {
                key_column: at.column,
                first: (category, at.row),
                later: Vec::new(),
                braces,
                name_hash,
            },
        });
    }

    /// The document (its findings so far: keys defined twice), where each entry's
    /// cells are, and each locale's column: what the checks need.
    fn finish(self) -> (Document, Vec<EntryCells>, Vec<usize>) {
        let nodes = self.nodes;
        let locale_count = self.header.locales.len();
        let mut chain = Vec::new();
        let mut cells = Vec::with_capacity(self.entries.len());
        let entries = (self.entries.into_iter())
            .filter(|slot| slot.live)
            .map(|slot| {
                let mut entry = slot.entry;
                if let Some(plural) = &mut entry.plural {
                    plural.forms.sort_by_key(|f| f.category);
                    entry.texts = (0..locale_count)
                        .map(|locale| {
                            let other = plural.text(PluralCategory::Other, locale);
                            let any = || plural.forms_in(locale).next().map(|(_, t)| t);
                            other.or_else(any).map(str::to_owned)
                        })
                        .collect();
                }
                cells.push(slot.cells);
                chain.clear();
                let mut at = Some(slot.node);
                while let Some(node) = at {
                    chain.push(node);
                    at = nodes[node].parent;
                }
                for &node in chain.iter().rev() {
                    for tag in &nodes[node].tags {
                        if !entry.tags.contains(tag) {
                            entry.tags.push(tag.clone());
                        }
                    }
                }
                entry
            })
            .collect();
        let text_columns: Vec<usize> = self.header.locales.iter().map(|(c, _)| *c).collect();
        let doc = Document {
            namespaces: Vec::new(),
            locales: self.header.locales.into_iter().map(|(_, l)| l).collect(),
            entries,
            warnings: self.warnings,
            findings: self.findings,
            settings: SheetSettings::default(),
        };
        (doc, cells, text_columns)
    }
}

/// Adds `texts` as the form `category` (replacing the non-empty ones of an earlier row).
fn merge_form(plural: &mut Plural, category: PluralCategory, texts: Vec<Option<String>>) {
    match plural.forms.iter_mut().find(|f| f.category == category) {
        Some(form) => {
            for (kept, new) in form.texts.iter_mut().zip(texts) {
                if new.is_some() {
                    *kept = new;
                }
            }
        }
        None => plural.forms.push(PluralForm { category, texts }),
    }
}

fn cell_warning(column: usize, row: usize, message: String) -> Warning {
    Warning {
        cell: cell_name(column, row),
        row,
        message,
    }
}

/// The cell a warning points at.
#[derive(Clone, Copy)]
struct Place {
    column: usize,
    row: usize,
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;
    use serde::Deserialize;

    use super::*;
    use crate::markup::test_support::{Tree, document, fixture, tree};
    use crate::model::{LocaleContent, Selection};

    #[test]
    fn the_settings_cell_above_the_header_names_the_placeholder_syntax() {
        let doc = convert(grid(&[
            &["", "depot: placeholders=printf"],
            &[">>>", "en"],
            &["pay", "Pay %1$s {"],
        ]))
        .unwrap();
        assert_eq!(
            doc.settings.placeholders,
            Some(placeholders::SheetSyntax::Printf)
        );
        // braces are no placeholders in printf texts: nothing for the brace check
        assert_eq!(doc.findings, []);
        assert_eq!(doc.warnings, []);
        assert_eq!(
            settings_cell(&doc.settings).unwrap(),
            "depot: placeholders=printf"
        );
        // `;` separates pairs too
        let doc = convert(grid(&[&["depot:placeholders=dotnet;"], &[">>>", "en"]])).unwrap();
        assert_eq!(
            doc.settings.placeholders,
            Some(placeholders::SheetSyntax::Dotnet)
        );
    }

    #[test]
    fn android_markup_in_the_settings_cell_is_read_and_written() {
        let doc = convert(grid(&[
            &["depot: placeholders=printf android=markup"],
            &[">>>", "en"],
            &["on", "Protections are <b>ON</b>"],
        ]))
        .unwrap();
        assert!(doc.settings.android_markup);
        assert_eq!(doc.warnings, []);
        assert_eq!(
            settings_cell(&doc.settings).unwrap(),
            "depot: placeholders=printf android=markup"
        );
        let doc = convert(grid(&[&["depot: android=bold"], &[">>>", "en"]])).unwrap();
        assert!(!doc.settings.android_markup);
        assert_eq!(doc.warnings.len(), 1, "{:?}", doc.warnings);
    }

    #[test]
    fn a_sheet_without_the_settings_cell_keeps_its_stored_form() {
        let doc = convert(grid(&[&[">>>", "en"], &["pay", "Pay {amount}"]])).unwrap();
        assert!(doc.settings.is_empty());
        let json = serde_json::to_string(&doc).unwrap();
        assert!(!json.contains("settings"), "{json}");
        assert_eq!(settings_cell(&doc.settings), None);
    }

    #[test]
    fn an_unknown_setting_or_syntax_is_a_warning_naming_the_cell() {
        let doc = convert(grid(&[
            &["note", "", "depot: placeholders=python colour=red x"],
            &[">>>", "en"],
            &["pay", "Pay"],
        ]))
        .unwrap();
        assert!(doc.settings.is_empty());
        let said: Vec<(&str, &str)> = (doc.warnings.iter())
            .map(|w| (w.cell.as_str(), w.message.as_str()))
            .collect();
        assert_eq!(
            said,
            [
                (
                    "C1",
                    "the settings cell names the placeholder syntax 'python', which depot \
                     does not know (one of depot, printf, icu, dotnet, java, i18next, ruby, \
                     gettext): the texts are read as depot's {name}"
                ),
                (
                    "C1",
                    "the settings cell has the setting 'colour', which depot does not know \
                     (known: placeholders, i18next, po, arb, android): ignored"
                ),
                (
                    "C1",
                    "the settings cell has 'x', which is no key=value pair (such as \
                     placeholders=printf): ignored"
                ),
            ]
        );
    }

    /// `arb=plain` says the app's gen-l10n reads apostrophes as text; `escaping` (or no
    /// cell) is ICU's quoting; another value is a warning and reads as escaping.
    #[test]
    fn the_settings_cell_says_how_arb_reads_apostrophes() {
        let doc = convert(grid(&[&["depot: arb=plain"], &[">>>", "en"]])).unwrap();
        assert!(doc.settings.arb_plain);
        assert_eq!(doc.warnings, []);
        assert_eq!(settings_cell(&doc.settings).unwrap(), "depot: arb=plain");
        let doc = convert(grid(&[&["depot: arb=escaping"], &[">>>", "en"]])).unwrap();
        assert!(!doc.settings.arb_plain);
        assert_eq!(settings_cell(&doc.settings), None);
        let doc = convert(grid(&[&["depot: arb=quoted"], &[">>>", "en"]])).unwrap();
        assert!(!doc.settings.arb_plain);
        let said: Vec<&str> = doc.warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(
            said,
            [
                "the settings cell says arb=quoted, which depot does not know (plain: apostrophes \
              are text, as gen-l10n reads them without use-escaping; escaping: ICU quoting, \
              use-escaping: true): read as escaping"
            ]
        );
    }

    fn grid(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|row| row.iter().map(|cell| (*cell).to_owned()).collect())
            .collect()
    }

    fn entry<'a>(doc: &'a Document, path: &str) -> &'a Entry {
        doc.entries
            .iter()
            .find(|e| e.path.join(".") == path)
            .unwrap_or_else(|| panic!("no entry {path}"))
    }

    fn paths(doc: &Document) -> Vec<String> {
        doc.entries.iter().map(|e| e.path.join(".")).collect()
    }

    fn warning(cell: &str, row: usize, message: &str) -> Warning {
        Warning {
            cell: cell.to_owned(),
            row,
            message: message.to_owned(),
        }
    }

    #[derive(Deserialize)]
    struct Expected {
        all: Tree,
        #[serde(default)]
        warning_rows: Vec<usize>,
        #[serde(default)]
        comments: HashMap<String, String>,
    }

    fn expected(name: &str) -> Expected {
        serde_json::from_str(&fixture(&format!("{name}.expected.json"))).expect("expected json")
    }

    #[test]
    fn basic_sheet_converts_to_the_expected_tree() {
        let doc = document("basic");
        assert_eq!(tree(&doc, &Selection::all(&doc)), expected("basic").all);
        assert_eq!(doc.locales, ["en", "pl"]);
        assert_eq!(doc.warnings, []);
    }

    #[test]
    fn basic_sheet_tags_follow_their_rows() {
        let doc = document("basic");
        assert_eq!(entry(&doc, "CORE.LABELS.YES").tags, ["tag1", "tag2"]);
        assert_eq!(entry(&doc, "CORE.LABELS.NO").tags, ["tag1"]);
        assert_eq!(entry(&doc, "FRONT.HEADER.TITLE").tags, Vec::<String>::new());
    }

    #[test]
    fn edge_sheet_converts_to_the_expected_tree() {
        let doc = document("edge");
        assert_eq!(tree(&doc, &Selection::all(&doc)), expected("edge").all);
        assert_eq!(doc.locales, ["en_US", "de_DE"]);
        assert_eq!(
            paths(&doc),
            ["COMMON.OK", "COMMON.CANCEL", "HOME.TITLE", "LEAF.CHILD"]
        );
    }

    #[test]
    fn edge_sheet_warns_on_each_faulty_row_naming_its_cell() {
        let doc = document("edge");
        let rows: Vec<usize> = doc.warnings.iter().map(|w| w.row).collect();
        assert_eq!(rows, expected("edge").warning_rows);
        assert_eq!(
            doc.warnings,
            [
                warning(
                    "B9",
                    9,
                    "duplicate key \"HOME.TITLE\" (first on row 8): its non-empty texts on this \
                     row replace the earlier ones"
                ),
                warning(
                    "E10",
                    10,
                    "texts without a key: no '>>>' column of this row holds a key, so its texts \
                     were skipped; write the key name in a '>>>' column"
                ),
                warning(
                    "A11",
                    11,
                    "key \"BAD.KEY\" contains '.', which separates filter segments: row \
                     skipped; rename the key (e.g. \"BAD_KEY\")"
                ),
                warning(
                    "B13",
                    13,
                    "\"LEAF\" was a key (row 12) and is now also a section: its texts were \
                     dropped and the section kept; move them to a key inside the section"
                ),
            ]
        );
    }

    #[test]
    fn edge_sheet_keeps_comments_and_section_tags() {
        let doc = document("edge");
        for (path, comment) in expected("edge").comments {
            assert_eq!(
                entry(&doc, &path).comment.as_deref(),
                Some(comment.as_str())
            );
        }
        assert_eq!(entry(&doc, "COMMON.CANCEL").comment, None);
        assert_eq!(entry(&doc, "COMMON.OK").tags, ["t1"]);
        assert_eq!(entry(&doc, "COMMON.CANCEL").tags, Vec::<String>::new());
        assert_eq!(entry(&doc, "HOME.TITLE").tags, ["t1", "t2"]);
        assert_eq!(entry(&doc, "LEAF.CHILD").tags, Vec::<String>::new());
    }

    #[test]
    fn hostile_texts_are_kept_byte_for_byte() {
        let doc = document("hostile");
        let expected: Tree =
            serde_json::from_str(&fixture("hostile.expected.json")).expect("expected json");
        assert_eq!(tree(&doc, &Selection::all(&doc)), expected);
        assert_eq!(doc.warnings, []);
    }

    #[test]
    fn cell_names_go_past_z() {
        assert_eq!(cell_name(0, 1), "A1");
        assert_eq!(cell_name(25, 3), "Z3");
        assert_eq!(cell_name(26, 4), "AA4");
        assert_eq!(cell_name(27, 10), "AB10");
        assert_eq!(cell_name(701, 2), "ZZ2");
        assert_eq!(cell_name(702, 2), "AAA2");
    }

    #[test]
    fn sheet_without_key_marker_is_an_error() {
        let err = convert(grid(&[&["KEY", "en"], &["A", "a"]])).unwrap_err();
        assert_eq!(err, SheetError::NoHeaderRow);
        assert!(
            err.to_string()
                .starts_with("the sheet has no header row: no cell holds '>>>'")
        );
        assert_eq!(convert(Vec::new()).unwrap_err(), SheetError::NoHeaderRow);
    }

    #[test]
    fn header_without_locale_is_an_error_naming_its_row() {
        let err = convert(grid(&[&[], &[">>>", "###", "", "$$$"], &["A"]])).unwrap_err();
        assert_eq!(
            err,
            SheetError::NoLocaleColumn {
                row: 2,
                ignored: vec![]
            }
        );
        assert_eq!(
            err.to_string(),
            "the header row (row 2) has no locale column: write a locale code such as en_US \
             above each column of texts (a code may not contain '.')"
        );
        let only_refused = grid(&[&[">>>", "en.US", " * "], &["A", "a"]]);
        let err = convert(only_refused).unwrap_err();
        assert_eq!(
            err,
            SheetError::NoLocaleColumn {
                row: 1,
                ignored: vec!["B1 \"en.US\"".into(), "C1 \"*\"".into()]
            }
        );
        assert!(err.to_string().ends_with(
            "(a code may not contain '.'); ignored header cells: B1 \"en.US\", C1 \"*\""
        ));
    }

    #[test]
    fn refused_and_repeated_locale_columns_are_ignored_with_a_warning() {
        let doc = convert(grid(&[
            &[" >>> ", " en ", "pl.PL", "EN", "*", "de"],
            &["A", "a", "x", "y", "z", "d"],
        ]))
        .unwrap();
        assert_eq!(doc.locales, ["en", "de"]);
        assert_eq!(doc.entries[0].texts, [Some("a".into()), Some("d".into())]);
        assert_eq!(
            doc.warnings,
            [
                warning(
                    "C1",
                    1,
                    "locale code \"pl.PL\" contains '.', which separates filter segments: \
                     column ignored; write the code without '.' (e.g. en_US)"
                ),
                warning(
                    "D1",
                    1,
                    "locale code \"EN\" repeats the locale \"en\" of cell B1: column ignored; \
                     keep one column per locale"
                ),
                warning(
                    "E1",
                    1,
                    "'*' cannot be a locale code, it means every locale in filters: column \
                     ignored"
                ),
            ]
        );
    }

    #[test]
    fn skipped_level_is_absent_from_the_path() {
        let doc = convert(grid(&[
            &[">>>", ">>>", ">>>", "en"],
            &["A"],
            &["", "", "C", "c"],
            &["", "", "D", "d"],
        ]))
        .unwrap();
        assert_eq!(paths(&doc), ["A.C", "A.D"]);
    }

    #[test]
    fn keys_and_tags_are_trimmed_but_texts_kept_exactly() {
        let doc = convert(grid(&[
            &["###", ">>>", "en", "$$$"],
            &[" a , ,b,a ", "  KEY ", "  spaced  ", "  why  "],
            &["", "   ", " "],
        ]))
        .unwrap();
        assert_eq!(paths(&doc), ["KEY"]);
        assert_eq!(doc.entries[0].texts, [Some("  spaced  ".into())]);
        assert_eq!(doc.entries[0].tags, ["a", "b"]);
        assert_eq!(doc.entries[0].comment.as_deref(), Some("why"));
        assert_eq!(
            doc.warnings.len(),
            1,
            "the blank key with a space text warns"
        );
        assert_eq!(doc.warnings[0].cell, "C3");
    }

    #[test]
    fn name_columns_are_read_exactly_per_format() {
        let doc = convert(grid(&[
            &[
                ">>>",
                "@@@",
                " @@@android ",
                "en",
                "@@@json",
                "@@@ios",
                "@@@",
            ],
            &["export", " Export finished.\n", "", "Done", "x", "", "y"],
            &["title", "", "title_android", "Title"],
            &["plain", "", "", "Plain"],
            &["ITEMS[one]", "%d items", "", "one"],
            &["ITEMS[other]", "", "", "many"],
        ]))
        .unwrap();
        let names = |path: &str| {
            let entry = entry(&doc, path);
            (entry.names.iter())
                .map(|(f, n)| (f.as_str(), n.as_str()))
                .collect::<Vec<_>>()
        };
        assert_eq!(names("export"), [("", " Export finished.\n")]);
        assert_eq!(names("title"), [("android", "title_android")]);
        assert!(names("plain").is_empty());
        assert_eq!(names("ITEMS"), [("", "%d items")]);
        let export = entry(&doc, "export");
        assert_eq!(export.name_in("android"), Some(" Export finished.\n"));
        assert_eq!(entry(&doc, "title").name_in("ios"), None);
        let messages: Vec<(&str, &str)> = (doc.warnings.iter())
            .map(|w| (w.cell.as_str(), w.message.as_str()))
            .collect();
        assert_eq!(
            messages,
            [
                (
                    "E1",
                    "name column \"@@@json\" names no format whose keys are names: column \
                     ignored; write @@@ (every format) or @@@ followed by one of android, ios, \
                     stringsdict, xcstrings, po, xlf, properties, resx, arb, i18next"
                ),
                (
                    "G1",
                    "name column \"@@@\" repeats cell B1: column ignored; keep one column per \
                     format"
                ),
            ]
        );
    }

    #[test]
    fn two_keys_given_one_name_in_a_format_are_a_finding_naming_both() {
        let doc = convert(grid(&[
            &[">>>", "@@@", "@@@android", "en"],
            &["a", "Same", "", "x"],
            &["b", "Same", "b_android", "y"],
            &["c", "", "", "z"],
        ]))
        .unwrap();
        let findings: Vec<(&str, &str)> = (doc.findings.iter())
            .map(|w| (w.cell.as_str(), w.message.as_str()))
            .collect();
        assert_eq!(
            findings,
            [(
                "A3",
                "\"b\" and \"a\" (row 2) both become the name \"Same\" in ios, xcstrings, xlf, \
                 po, properties, resx, arb and i18next: those formats keep the first and leave \
                 this one out; rename one of them"
            )]
        );
    }

    #[test]
    fn a_sheet_without_name_columns_stores_no_names() {
        let doc = convert(grid(&[&[">>>", "en"], &["A", "a"]])).unwrap();
        let json = serde_json::to_string(&doc.entries[0]).unwrap();
        assert!(!json.contains("names"), "{json}");
    }

    #[test]
    fn one_row_may_set_several_levels() {
        let doc = convert(grid(&[
            &[">>>", ">>>", "en"],
            &["A", "B", "ab"],
            &["", "C", "ac"],
        ]))
        .unwrap();
        assert_eq!(paths(&doc), ["A.B", "A.C"]);
    }

    #[test]
    fn key_rows_without_text_give_no_entry_and_no_error() {
        let doc = convert(grid(&[&[">>>", ">>>", "en", "pl"], &["A"], &["", "B"]])).unwrap();
        assert!(doc.is_empty());
        assert_eq!(doc.entries, []);
        assert_eq!(doc.warnings, []);
    }

    #[test]
    fn empty_text_cells_give_no_text_for_that_locale() {
        let doc = convert(grid(&[&[">>>", "en", "pl", "de"], &["A", "", "p"]])).unwrap();
        assert_eq!(doc.entries[0].texts, [None, Some("p".into()), None]);
    }

    #[test]
    fn section_tags_reach_every_key_below_even_when_the_section_is_reopened() {
        let doc = convert(grid(&[
            &["###", ">>>", ">>>", "en"],
            &["s1", "S"],
            &["k1", "", "A", "a"],
            &["", "T"],
            &["", "", "B", "b"],
            &["s2, s1", "S"],
            &["", "", "C", "c"],
        ]))
        .unwrap();
        assert_eq!(entry(&doc, "S.A").tags, ["s1", "s2", "k1"]);
        assert_eq!(entry(&doc, "T.B").tags, Vec::<String>::new());
        assert_eq!(entry(&doc, "S.C").tags, ["s1", "s2"]);
    }

    #[test]
    fn duplicate_key_merges_texts_tags_and_comment() {
        let doc = convert(grid(&[
            &["###", ">>>", "$$$", "en", "pl"],
            &["a", "K", "first", "e1", "p1"],
            &["b", "K", "", "e2"],
            &["", "K", "last", "", "p3"],
        ]))
        .unwrap();
        assert_eq!(paths(&doc), ["K"]);
        let k = &doc.entries[0];
        assert_eq!(k.texts, [Some("e2".into()), Some("p3".into())]);
        assert_eq!(k.tags, ["a", "b"]);
        assert_eq!(k.comment.as_deref(), Some("last"));
        let cells: Vec<&str> = doc.warnings.iter().map(|w| w.cell.as_str()).collect();
        assert_eq!(cells, ["B3", "B4"]);
    }

    #[test]
    fn key_over_an_existing_section_drops_the_text() {
        let doc = convert(grid(&[
            &[">>>", ">>>", "en"],
            &["S"],
            &["", "A", "a"],
            &["S", "", "s"],
            &["", "B", "b"],
        ]))
        .unwrap();
        assert_eq!(paths(&doc), ["S.A", "S.B"]);
        assert_eq!(
            doc.warnings,
            [warning(
                "A4",
                4,
                "\"S\" is already a section with keys below it, so the texts of this row were \
                 dropped; give them a key of their own inside the section"
            )]
        );
    }

    #[test]
    fn a_key_that_becomes_a_section_can_not_come_back() {
        let doc = convert(grid(&[
            &[">>>", ">>>", "en"],
            &["L", "", "leaf"],
            &["", "C", "child"],
            &["L", "", "again"],
        ]))
        .unwrap();
        assert_eq!(paths(&doc), ["L.C"]);
        let rows: Vec<usize> = doc.warnings.iter().map(|w| w.row).collect();
        assert_eq!(rows, [3, 4]);
    }

    #[test]
    fn rows_below_a_refused_key_are_skipped_too() {
        let doc = convert(grid(&[
            &[">>>", ">>>", "en"],
            &["OK"],
            &["", "A", "a"],
            &["BAD.S"],
            &["", "B", "b"],
            &["NEXT", "C", "c"],
        ]))
        .unwrap();
        assert_eq!(paths(&doc), ["OK.A", "NEXT.C"]);
        assert_eq!(
            doc.warnings[1],
            warning(
                "B5",
                5,
                "key \"B\" lies under the refused key \"BAD.S\" (cell A4): row skipped"
            )
        );
    }

    #[test]
    fn dotted_tags_are_refused_and_the_row_kept() {
        let doc = convert(grid(&[&["###", ">>>", "en"], &["ok, v1.2", "K", "k"]])).unwrap();
        assert_eq!(paths(&doc), ["K"]);
        assert_eq!(doc.entries[0].tags, ["ok"]);
        assert_eq!(
            doc.warnings,
            [warning(
                "A2",
                2,
                "tag \"v1.2\" contains '.', which separates filter segments: tag ignored; \
                 rename it (e.g. \"v1_2\")"
            )]
        );
    }

    #[test]
    fn tags_without_a_key_are_reported() {
        let doc = convert(grid(&[
            &[">>>", "###", "en"],
            &["", "x, y"],
            &["", "", ""],
            &["K", "", "k"],
        ]))
        .unwrap();
        assert_eq!(
            doc.warnings,
            [warning(
                "B2",
                2,
                "tags without a key: no '>>>' column of this row holds a key, so its tags \"x, \
                 y\" were ignored"
            )]
        );
    }

    #[test]
    fn rows_above_the_header_and_columns_without_header_are_ignored() {
        let doc = convert(grid(&[
            &["Title", ">>", "en"],
            &["", ">>>", "", "en"],
            &["", "K", "junk", "k", "", "", "more"],
        ]))
        .unwrap();
        assert_eq!(paths(&doc), ["K"]);
        assert_eq!(doc.locales, ["en"]);
        assert_eq!(doc.entries[0].texts, [Some("k".into())]);
        assert_eq!(doc.warnings, []);
    }

    #[test]
    fn key_columns_past_the_depth_limit_are_ignored_and_rows_using_them_skipped() {
        let levels = MAX_KEY_DEPTH + 3;
        let mut header: Vec<String> = vec![KEY_MARK.to_owned(); levels];
        header.push("en".into());
        let mut shallow: Vec<String> = (0..MAX_KEY_DEPTH).map(|i| format!("K{i}")).collect();
        shallow.resize(levels, String::new());
        shallow.push("fits".into());
        let mut deep: Vec<String> = vec![String::new(); levels];
        deep[MAX_KEY_DEPTH + 1] = "TOO_DEEP".into();
        deep.push("lost".into());
        let doc = convert(vec![header, shallow, deep]).unwrap();
        assert_eq!(doc.entries.len(), 1);
        assert_eq!(doc.entries[0].path.len(), MAX_KEY_DEPTH);
        assert_eq!(doc.entries[0].texts, [Some("fits".into())]);
        assert_eq!(
            doc.warnings,
            [
                warning(
                    "AG1",
                    1,
                    "3 key columns ('>>>') after the first 32, from this one on, were ignored: keys \
                     may have at most 32 levels, and rows with a key in those columns are skipped"
                ),
                warning(
                    "AH3",
                    3,
                    "key \"TOO_DEEP\" is at level 34, deeper than the 32 levels allowed: row \
                     skipped; move the key up, or join levels into one key"
                ),
            ]
        );
        assert_eq!(doc.check_limits(), Ok(()));
    }

    #[test]
    fn more_locale_columns_than_allowed_is_an_error() {
        let mut header = vec![KEY_MARK.to_owned()];
        header.extend((0..=MAX_LOCALES).map(|i| format!("l{i}")));
        let err = convert(vec![header, vec!["K".into(), "k".into()]]).unwrap_err();
        assert_eq!(
            err,
            SheetError::TooManyLocales {
                row: 1,
                count: MAX_LOCALES + 1
            }
        );
        assert!(err.to_string().starts_with(
            "the header row (row 1) has 1001 locale columns; at most 1000 are allowed"
        ));
    }

    fn cell() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "", "", "", ">>>", "###", "$$$", "en", "pl", "A", "B", " C ", "a.b", "t1, t2", "x",
            " ", "*",
        ])
        .prop_map(String::from)
    }

    /// Cells for the checks: keys that meet in flat names, plural rows, and texts with
    /// placeholders, counts and stray braces.
    fn checked_cell() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "",
            "",
            ">>>",
            "$$$",
            "en",
            "pl",
            "ru",
            "A",
            "a",
            "B",
            "a_b",
            "A[one]",
            "A[other]",
            "A[many]",
            "B[few]",
            "{n}",
            "{n} {m}",
            "{count} x",
            "{m}",
            "{",
            "a}b",
            "{{x}}",
            "plain",
            "1",
        ])
        .prop_map(String::from)
    }

    #[test]
    fn plural_rows_make_one_entry_with_forms_in_cldr_order() {
        let doc = convert(grid(&[
            &[">>>", ">>>", "###", "en", "pl"],
            &["CART", "", "shop"],
            &["", "ITEMS[other]", "a", "{count} items", "{count} rzeczy"],
            &["", "ITEMS[one]", "b", "One item", "{count} rzecz"],
            &["", "ITEMS[few]", "", "", "{count} rzeczy"],
            &["", "LIST[0]", "", "zero", ""],
        ]))
        .unwrap();
        assert_eq!(paths(&doc), ["CART.ITEMS", "CART.LIST[0]"]);
        let items = entry(&doc, "CART.ITEMS");
        assert_eq!(items.tags, ["shop", "a", "b"]);
        let plural = items.plural.as_ref().unwrap();
        let categories: Vec<_> = plural.forms.iter().map(|f| f.category).collect();
        assert_eq!(
            categories,
            [
                PluralCategory::One,
                PluralCategory::Few,
                PluralCategory::Other
            ]
        );
        // texts stand for the entry: its `other` text
        assert_eq!(
            items.texts,
            [Some("{count} items".into()), Some("{count} rzeczy".into())]
        );
        assert_eq!(plural.text(PluralCategory::Few, 0), None);
        assert_eq!(doc.key_counts(), [("en".into(), 2), ("pl".into(), 1)]);
        assert_eq!(
            items.locale_content(1),
            Some(LocaleContent::Plural(vec![
                (PluralCategory::One, "{count} rzecz"),
                (PluralCategory::Few, "{count} rzeczy"),
                (PluralCategory::Other, "{count} rzeczy"),
            ]))
        );
        assert_eq!(doc.warnings, []);
        // English needs no `few`; Polish uses it, and also needs `many` (0, 5, 6, …),
        // which this sheet lacks: one finding, at the Polish cell of the entry's first form
        assert_eq!(doc.findings.len(), 1, "{:?}", doc.findings);
        assert_eq!(doc.findings[0].cell, "E4");
        assert!(
            doc.findings[0]
                .message
                .contains("(pl) has no 'many' (0, 5, 6, 7, …) form")
                && doc.findings[0].message.ends_with("add ITEMS[many]"),
            "{}",
            doc.findings[0].message
        );
    }

    #[test]
    fn a_plural_without_other_is_a_finding_and_no_text_of_that_locale() {
        let doc = convert(grid(&[
            &[">>>", "en", "pl"],
            &["ITEMS[one]", "One item", "{count} rzecz"],
            &["ITEMS[other]", "{count} items", ""],
            &["ONLY_ONE[one]", "One", ""],
            &["KEPT", "k", "k"],
        ]))
        .unwrap();
        let cells: Vec<&str> = doc.findings.iter().map(|f| f.cell.as_str()).collect();
        assert_eq!(cells, ["C2", "B4"], "{:?}", doc.findings);
        assert!(
            doc.findings
                .iter()
                .all(|f| f.message.contains("has no 'other' form"))
        );
        // ITEMS stays for English only; ONLY_ONE had no `other` anywhere and is gone
        assert_eq!(paths(&doc), ["ITEMS", "KEPT"]);
        let items = entry(&doc, "ITEMS");
        assert_eq!(items.texts, [Some("{count} items".into()), None]);
        assert_eq!(items.locale_content(1), None);
        let plural = items.plural.as_ref().unwrap();
        assert!(plural.forms.iter().all(|f| f.texts[1].is_none()));
        assert_eq!(doc.key_counts(), [("en".into(), 2), ("pl".into(), 1)]);
    }

    #[test]
    fn a_word_in_brackets_that_is_no_category_skips_the_row() {
        let doc = convert(grid(&[
            &[">>>", "en"],
            &["ITEMS[One]", "x"],
            &["ITEMS[other]", "y"],
            &["ITEMS", "z"],
        ]))
        .unwrap();
        assert_eq!(paths(&doc), ["ITEMS"]);
        assert_eq!(doc.warnings[0].cell, "A2");
        assert!(
            doc.warnings[0]
                .message
                .contains("\"One\" in \"ITEMS[One]\" is not a plural category")
        );
        // a plain row for a plural entry is refused, and a finding
        assert_eq!(doc.warnings[1].cell, "A4");
        assert!(
            doc.findings.iter().any(|f| f.cell == "A4"),
            "{:?}",
            doc.findings
        );
        assert_eq!(entry(&doc, "ITEMS").texts, [Some("y".into())]);
    }

    proptest! {
        #[test]
        fn any_grid_converts_or_errors_and_the_result_is_consistent(
            rows in prop::collection::vec(prop::collection::vec(cell(), 0..7), 0..14)
        ) {
            let Ok(doc) = convert(rows.clone()) else { return Ok(()) };
            let mut seen = std::collections::HashSet::new();
            for entry in &doc.entries {
                prop_assert!(!entry.path.is_empty());
                prop_assert!(entry.path.iter().all(|p| !p.is_empty() && !p.contains('.')));
                prop_assert_eq!(entry.texts.len(), doc.locales.len());
                prop_assert!(entry.texts.iter().any(Option::is_some));
                prop_assert!(seen.insert(entry.path.clone()), "duplicate path");
            }
            for a in &doc.entries {
                for b in &doc.entries {
                    prop_assert!(a.path == b.path || !b.path.starts_with(&a.path));
                }
            }
            for w in &doc.warnings {
                prop_assert!(w.row >= 1 && w.row <= rows.len());
                prop_assert!(w.cell.ends_with(&w.row.to_string()));
            }
        }

        /// The checks skip the texts of entries that had no brace when their rows were
        /// read, and build only the names of entries whose name hashes meet: they find
        /// what checking every text and every name finds.
        #[test]
        fn the_checks_find_what_checking_everything_finds(
            rows in prop::collection::vec(prop::collection::vec(checked_cell(), 0..7), 0..14)
        ) {
            let Ok(doc) = convert(rows.clone()) else { return Ok(()) };
            let Ok(mut built) = Rows::from(rows).build() else { return Ok(()) };
            for cells in &mut built.cells {
                cells.braces = true;
                cells.name_hash = 0;
            }
            let mut everything = built.doc.findings.clone();
            everything.extend(checks::check(2, &built.doc, &built.cells, &built.text_columns, || ()));
            prop_assert_eq!(doc.findings, everything);
        }
    }
}
