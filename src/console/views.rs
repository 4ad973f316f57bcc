//! What the console pages show, computed from plain data without I/O: completeness per
//! locale, findings and warnings with links to their sheet cells, the translation search
//! with its highlights (every form of a plural entry), the paging of both lists, and file
//! sizes as people read them.

use super::fold::{Mapped, fold, fold_into};
use crate::config::settings::SheetSource;
use crate::model::{Document, Entry, Warning};
use crate::translations::versions::{History, Listed, TextChange, VersionTexts};

/// Rows per page of the translations search.
pub const ROWS_PER_PAGE: usize = 25;
/// Longest search text accepted, in characters.
const MAX_SEARCH_CHARS: usize = 200;

/// One locale's bar on the overview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocaleProgress {
    pub locale: String,
    /// Keys of the base locale that this locale has a text for.
    pub done: usize,
    /// Keys of the base locale.
    pub of: usize,
    pub percent: u32,
    pub is_base: bool,
}

/// Completeness of every locale against the base locale, in sheet order.
pub fn completeness(doc: &Document, base: Option<usize>) -> Vec<LocaleProgress> {
    let Some(base) = base else {
        return Vec::new();
    };
    let mut done = vec![0usize; doc.locales.len()];
    let mut of = 0;
    for entry in &doc.entries {
        if entry.texts.get(base).is_none_or(Option::is_none) {
            continue;
        }
        of += 1;
        for (count, text) in done.iter_mut().zip(&entry.texts) {
            if text.is_some() {
                *count += 1;
            }
        }
    }
    doc.locales
        .iter()
        .zip(done)
        .enumerate()
        .map(|(i, (locale, done))| LocaleProgress {
            locale: locale.clone(),
            done,
            of,
            percent: percent(done, of),
            is_base: i == base,
        })
        .collect()
}

fn percent(part: usize, whole: usize) -> u32 {
    if whole == 0 {
        return 100;
    }
    // Rounded down, so 100 % means every key.
    u32::try_from(part.min(whole) * 100 / whole).unwrap_or(100)
}

/// A problem to show, with where it is in the sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub cell: String,
    pub message: String,
    /// The cell in the Google sheet, when the source is one.
    pub link: Option<String>,
}

/// The most findings (and warnings) the overview lists; past it the page says how many
/// more there are (`/health` lists them all). A sheet with tens of thousands of them
/// would otherwise make a page of megabytes.
pub const LISTED: usize = 1000;

/// What the overview reports about the served document: the findings of the checks
/// before publishing (SPEC §9, the list `/health` shows as `translations.findings`) and
/// the sheet's other warnings (rows skipped while reading it; a duplicate key is both,
/// and listed once, as a finding).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reported {
    /// The first `LISTED` findings.
    pub findings: Vec<Finding>,
    /// How many findings there are, listed or not: the count `/health` gives.
    pub finding_count: usize,
    pub warnings: Vec<Finding>,
    pub warning_count: usize,
}

/// The findings and warnings of `doc`, each with its cell and, for a Google sheet, the
/// link to it.
pub fn reported(doc: &Document, link: &SheetLink) -> Reported {
    let shown = |w: &Warning| Finding {
        cell: w.cell.clone(),
        message: w.message.clone(),
        link: link.to(&w.cell),
    };
    let findings: std::collections::HashSet<(&str, &str)> = (doc.findings.iter())
        .map(|f| (f.cell.as_str(), f.message.as_str()))
        .collect();
    let warnings: Vec<&Warning> = (doc.warnings.iter())
        .filter(|w| !findings.contains(&(w.cell.as_str(), w.message.as_str())))
        .collect();
    Reported {
        findings: doc.findings.iter().take(LISTED).map(shown).collect(),
        finding_count: doc.findings.len(),
        warning_count: warnings.len(),
        warnings: warnings.into_iter().take(LISTED).map(shown).collect(),
    }
}

/// Where the cells of the served sheet open in a browser: a Google spreadsheet's tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetLink {
    /// `https://docs.google.com/spreadsheets/d/<id>/edit`, when the source is Google.
    edit: Option<String>,
    /// The tab's sheet id (the URL's `gid`), when known.
    gid: Option<i64>,
    /// Each tab's sheet id, for the cells of a sheet of several tabs (`common!B9`).
    tabs: Vec<(String, i64)>,
}

impl SheetLink {
    /// Links for `source`; `gid` is the tab the producer read (see `sheets::google`).
    pub fn new(source: &SheetSource, spreadsheet_id: &str, gid: Option<i64>) -> SheetLink {
        let edit =
            (matches!(source, SheetSource::Google) && !spreadsheet_id.is_empty()).then(|| {
                format!(
                    "https://docs.google.com/spreadsheets/d/{}/edit",
                    crate::percent::encode(spreadsheet_id, crate::percent::is_unreserved)
                )
            });
        SheetLink {
            edit,
            gid,
            tabs: Vec::new(),
        }
    }

    /// With the sheet ids of the tabs read (SPEC §14: a cell `TAB!B9` opens in its tab).
    pub fn with_tabs(mut self, tabs: Vec<(String, i64)>) -> SheetLink {
        self.tabs = tabs;
        self
    }

    /// The URL that opens the sheet at `cell` (A1, or `TAB!A1` in a sheet of several tabs),
    /// selected; none for other sources. The `gid` picks the tab (without it Google opens
    /// the first); `range` selects the cell.
    pub fn to(&self, cell: &str) -> Option<String> {
        let edit = self.edit.as_ref()?;
        let (gid, cell) = match cell.rsplit_once('!') {
            Some((tab, cell)) => {
                let gid = self.tabs.iter().find(|(name, _)| name == tab)?.1;
                (Some(gid), cell)
            }
            None => (self.gid, cell),
        };
        let plain_cell = !cell.is_empty() && cell.bytes().all(|b| b.is_ascii_alphanumeric());
        plain_cell.then(|| match gid {
            Some(gid) => format!("{edit}#gid={gid}&range={cell}"),
            None => format!("{edit}#range={cell}"),
        })
    }
}

/// What the translations page was asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    /// Case-insensitive text looked for in keys and in every locale's texts.
    pub text: String,
    pub locale: Option<String>,
    /// A section path (`COMMON` or `COMMON.BUTTONS`): keys under it.
    pub section: Option<String>,
    pub tag: Option<String>,
    pub problems: Problems,
    pub page: usize,
}

/// Which rows to list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Problems {
    #[default]
    All,
    /// A locale lacks a text the base locale has.
    Missing,
    /// A text's placeholders differ from the base locale's.
    Placeholders,
}

impl Problems {
    pub fn name(self) -> &'static str {
        match self {
            Problems::All => "all",
            Problems::Missing => "missing",
            Problems::Placeholders => "placeholders",
        }
    }
}

/// Why a search cannot run; each message names the parameter and what it takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    #[error("unknown parameter '{0}'; allowed: q, locale, section, tag, show, page")]
    Unknown(String),
    #[error("{0} is given more than once")]
    Repeated(String),
    #[error("q must be at most {MAX_SEARCH_CHARS} characters, got {0}")]
    TooLong(usize),
    #[error("show must be all, missing or placeholders, got '{0}'")]
    Show(String),
    #[error("page must be an integer from 1 to 1000000, got '{0}'")]
    Page(String),
    #[error("locale '{asked}' is not in the sheet; its locales: {known}")]
    Locale { asked: String, known: String },
}

impl Search {
    /// Reads `q`, `locale`, `section`, `tag`, `show`, `page` (empty values mean "any").
    pub fn from_params(params: &[(String, String)]) -> Result<Search, SearchError> {
        let mut search = Search {
            page: 1,
            ..Search::default()
        };
        let mut seen: Vec<&str> = Vec::new();
        for (name, value) in params {
            if seen.contains(&name.as_str()) {
                return Err(SearchError::Repeated(name.clone()));
            }
            let value = value.trim();
            let some = || (!value.is_empty()).then(|| value.to_owned());
            match name.as_str() {
                "q" => {
                    let len = value.chars().count();
                    if len > MAX_SEARCH_CHARS {
                        return Err(SearchError::TooLong(len));
                    }
                    search.text = value.to_owned();
                }
                "locale" => search.locale = some(),
                "section" => search.section = some(),
                "tag" => search.tag = some(),
                "show" => {
                    search.problems = match value {
                        "" | "all" => Problems::All,
                        "missing" => Problems::Missing,
                        "placeholders" => Problems::Placeholders,
                        other => return Err(SearchError::Show(other.to_owned())),
                    }
                }
                "page" => {
                    search.page = match value.parse::<usize>() {
                        Ok(p) if (1..=1_000_000).contains(&p) => p,
                        _ => return Err(SearchError::Page(value.to_owned())),
                    }
                }
                other => return Err(SearchError::Unknown(other.to_owned())),
            }
            seen.push(name);
        }
        Ok(search)
    }
}

/// One text of a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub locale: String,
    /// The text, cut where the search text occurs in it.
    pub text: Option<Vec<Piece>>,
    /// The base locale has a text and this one has none.
    pub missing: bool,
    /// Its placeholders differ from the base locale's.
    pub mismatch: bool,
    /// Every form of a plural entry in this locale (category, text), in CLDR order;
    /// empty for a plain key (its text is `text`).
    pub forms: Vec<(&'static str, Vec<Piece>)>,
}

/// A piece of a text as a row shows it: the search text found there (highlighted), or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub text: String,
    pub found: bool,
}

impl Piece {
    fn plain(text: &str) -> Piece {
        Piece {
            text: text.to_owned(),
            found: false,
        }
    }
}

/// One key of the search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub key: String,
    /// The key, cut where the search text occurs in it.
    pub key_pieces: Vec<Piece>,
    pub tags: Vec<String>,
    pub comment: Option<String>,
    pub cells: Vec<Cell>,
}

/// A page of the search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub rows: Vec<Row>,
    pub total: usize,
    pub pages: usize,
}

/// Runs `search` over `doc` (whose folded texts `index` holds); `base` is the locale that
/// missing texts and placeholders are compared with. What the search text matches is
/// marked in the rows shown.
pub fn search(
    doc: &Document,
    index: &Index,
    search: &Search,
    base: Option<usize>,
) -> Result<Found, SearchError> {
    let locale = match &search.locale {
        None => None,
        Some(asked) => Some(
            doc.locales
                .iter()
                .position(|l| l.eq_ignore_ascii_case(asked))
                .ok_or_else(|| SearchError::Locale {
                    asked: asked.clone(),
                    known: doc.locales.join(", "),
                })?,
        ),
    };
    // The columns shown: the base and the chosen locale, or every locale.
    let shown: Vec<usize> = match locale {
        Some(l) => base
            .filter(|&b| b != l)
            .into_iter()
            .chain(std::iter::once(l))
            .collect(),
        None => (0..doc.locales.len()).collect(),
    };
    let needle = fold_needle(&search.text);
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let section: Option<Vec<&str>> = search.section.as_deref().map(|s| s.split('.').collect());
    let mut total = 0;
    let first = (search.page - 1).saturating_mul(ROWS_PER_PAGE);
    let mut rows = Vec::new();
    for (at, entry) in doc.entries.iter().enumerate() {
        if let Some(section) = &section
            && (entry.path.len() <= section.len()
                || !entry.path.iter().zip(section).all(|(a, b)| a == b))
        {
            continue;
        }
        if let Some(tag) = &search.tag
            && !entry.tags.iter().any(|t| t == tag)
        {
            continue;
        }
        // Cheap checks first, on borrowed texts: most entries of a big sheet are skipped.
        let text = |i: usize| entry.texts.get(i).and_then(Option::as_deref);
        let base_text = base.and_then(text);
        let base_marks = std::cell::OnceCell::new();
        let missing = |i: usize| text(i).is_none() && base_text.is_some();
        let mismatch = |i: usize| match (text(i), base) {
            (Some(_), Some(b)) if base_text.is_some() => {
                marks(entry, i) != *base_marks.get_or_init(|| marks(entry, b))
            }
            _ => false,
        };
        let wanted = match search.problems {
            Problems::All => true,
            Problems::Missing => shown.iter().any(|&i| missing(i)),
            Problems::Placeholders => shown.iter().any(|&i| mismatch(i)),
        };
        if !wanted {
            continue;
        }
        if !needle.is_empty() && !index.holds(at, &finder) {
            continue;
        }
        if total >= first && rows.len() < ROWS_PER_PAGE {
            let key = entry.path.join(".");
            rows.push(Row {
                key_pieces: pieces(&key, &needle),
                key,
                tags: entry.tags.clone(),
                comment: entry.comment.clone(),
                cells: shown
                    .iter()
                    .map(|&i| Cell {
                        locale: doc.locales[i].clone(),
                        text: text(i).map(|t| pieces(t, &needle)),
                        missing: missing(i),
                        mismatch: mismatch(i),
                        forms: (entry.plural.iter())
                            .flat_map(|p| p.forms_in(i))
                            .map(|(category, text)| (category.name(), pieces(text, &needle)))
                            .collect(),
                    })
                    .collect(),
            });
        }
        total += 1;
    }
    Ok(Found {
        rows,
        total,
        pages: total.div_ceil(ROWS_PER_PAGE).max(1),
    })
}

/// Every text an entry holds in any locale: its texts, or each form of a plural entry.
fn all_texts(entry: &Entry) -> Box<dyn Iterator<Item = &String> + '_> {
    match &entry.plural {
        None => Box::new(entry.texts.iter().flatten()),
        Some(plural) => Box::new(plural.forms.iter().flat_map(|f| f.texts.iter().flatten())),
    }
}

/// What the search looks through, folded (`fold`) once per version: for each entry of the
/// document, its dotted key and every text of every locale, one after the other.
pub struct Index {
    haystacks: Vec<Box<str>>,
}

/// Between the key and the texts of an entry in its haystack: a match across it is no
/// match of one text, and a needle never holds it (`fold_needle`).
const APART: char = '\n';

impl Index {
    /// Folds every key and text of `doc`: a pass over the whole sheet, made once per
    /// version and kept (`console::SearchIndex`), on every core for a large sheet.
    pub fn new(doc: &Document) -> Index {
        let parts = crate::parallel::ranges(doc.entries.len(), doc.entries.len() >= 4096);
        let built = crate::parallel::map(parts.len(), &parts, |part| {
            (doc.entries[part.clone()].iter())
                .map(haystack)
                .collect::<Vec<_>>()
        });
        Index {
            haystacks: built.into_iter().flatten().collect(),
        }
    }

    /// Whether the entry at `at` holds `finder`'s needle in its key or a text.
    fn holds(&self, at: usize, finder: &memchr::memmem::Finder<'_>) -> bool {
        (self.haystacks.get(at)).is_some_and(|h| finder.find(h.as_bytes()).is_some())
    }
}

/// One entry as the index holds it: its dotted key and each text, folded, a line each.
fn haystack(entry: &Entry) -> Box<str> {
    let mut all = fold(&entry.path.join("."));
    for text in all_texts(entry) {
        all.push(APART);
        fold_into(text, &mut all);
    }
    all.into_boxed_str()
}

/// The search text as the index compares it: folded, without line breaks.
fn fold_needle(text: &str) -> String {
    fold(text).replace(APART, " ")
}

/// `text` cut where `needle` (folded) occurs in it, each piece marked found or not.
fn pieces(text: &str, needle: &str) -> Vec<Piece> {
    if needle.is_empty() {
        return vec![Piece::plain(text)];
    }
    let mapped = Mapped::new(text);
    let mut out = Vec::new();
    let mut at = 0;
    for found in mapped.find(text, needle) {
        if found.start > at {
            out.push(Piece::plain(&text[at..found.start]));
        }
        out.push(Piece {
            text: text[found.clone()].to_owned(),
            found: true,
        });
        at = found.end;
    }
    if at < text.len() || out.is_empty() {
        out.push(Piece::plain(&text[at..]));
    }
    out
}

/// The placeholders of an entry's text in `locale` (see `placeholders`); of a plural
/// entry, those of all its forms together, `{count}` aside ("One item" rightly omits the
/// quantity), each once.
fn marks(entry: &Entry, locale: usize) -> Vec<&str> {
    let Some(plural) = &entry.plural else {
        return entry
            .texts
            .get(locale)
            .and_then(Option::as_deref)
            .map(placeholders)
            .unwrap_or_default();
    };
    let mut all: Vec<&str> = (plural.forms_in(locale))
        .flat_map(|(_, text)| placeholders(text))
        .filter(|name| *name != crate::model::placeholders::COUNT)
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// The placeholders of a text, sorted: the name of `{name}` / `{name:type}`, and printf-style
/// `%s`, `%d`, `%1$s`, `%@` whole (a literal `%%` is not one). Borrowed from the text: the
/// search compares them for every text of a sheet.
pub fn placeholders(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                if let Some(end) = text[i + 1..].find('}') {
                    let inner = &text[i + 1..i + 1 + end];
                    let name = inner.split(':').next().unwrap_or_default();
                    if !name.is_empty()
                        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    {
                        found.push(name);
                    }
                    i += end + 2;
                    continue;
                }
            }
            b'%' => {
                let rest = &bytes[i + 1..];
                if rest.first() == Some(&b'%') {
                    i += 2;
                    continue;
                }
                let digits = rest
                    .iter()
                    .take_while(|b| b.is_ascii_digit() || **b == b'$')
                    .count();
                if let Some(&conv) = rest.get(digits)
                    && b"sdif@lu".contains(&conv)
                {
                    found.push(&text[i..i + 2 + digits]);
                    i += 2 + digits;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    found.sort_unstable();
    found
}

/// The top-level sections of a document, in sheet order, offered by the section filter
/// (deeper ones are typed: `COMMON.BUTTONS`); a few hundred at most in real sheets.
pub fn sections(doc: &Document) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for entry in doc.entries.iter().filter(|e| e.path.len() > 1) {
        if seen.insert(entry.path[0].as_str()) {
            out.push(entry.path[0].clone());
        }
    }
    out
}

/// The tags of a document, in first-seen order.
pub fn tags(doc: &Document) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for tag in doc.entries.iter().flat_map(|e| &e.tags) {
        if seen.insert(tag.as_str()) {
            out.push(tag.clone());
        }
    }
    out
}

/// The most keys of one kind (added, removed, changed) the versions page lists per locale;
/// `/translations/versions/{version}` has them all.
pub const KEYS_LISTED: usize = 200;

/// A kept version as the versions page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionRow {
    pub version: String,
    /// The first 12 characters, which name it in links and in `?version=`.
    pub short: String,
    pub updated_at: String,
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub current: bool,
}

/// The kept versions, newest first.
pub fn version_rows(history: &History) -> Vec<VersionRow> {
    (history.versions.iter().enumerate())
        .map(|(i, v)| VersionRow {
            version: v.version.clone(),
            short: v.version.chars().take(12).collect(),
            updated_at: crate::time::iso_millis(v.updated_at),
            added: v.added,
            removed: v.removed,
            changed: v.changed,
            current: i == 0,
        })
        .collect()
}

/// One locale's changed texts on the versions page: the first `KEYS_LISTED` of each kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocaleKeys {
    pub locale: String,
    pub lists: Vec<KeyList>,
}

/// The texts of one kind, each with its words before and after, and how many more there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyList {
    /// `added`, `removed` or `changed`.
    pub kind: &'static str,
    pub texts: Vec<TextChange>,
    pub total: usize,
    pub more: usize,
}

/// What a version changed, per locale, locales without a change left out; `None` when
/// the version before it is no longer kept.
pub fn version_keys(changes: &VersionTexts) -> Option<Vec<LocaleKeys>> {
    let locales = changes.locales.as_ref()?;
    let list = |kind, listed: &Listed| KeyList {
        kind,
        texts: listed.first.iter().take(KEYS_LISTED).cloned().collect(),
        total: listed.total,
        more: listed
            .total
            .saturating_sub(listed.first.len().min(KEYS_LISTED)),
    };
    Some(
        (locales.iter())
            .map(|(locale, c)| LocaleKeys {
                locale: locale.clone(),
                // changed first: what a reviewer reads for
                lists: [
                    list("changed", &c.changed),
                    list("added", &c.added),
                    list("removed", &c.removed),
                ]
                .into_iter()
                .filter(|l| l.total > 0)
                .collect(),
            })
            .filter(|l| !l.lists.is_empty())
            .collect(),
    )
}

/// "3 minutes ago" for a duration in seconds.
pub fn age(seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        0..60 => format!("{s} s ago"),
        60..3600 => format!("{} min ago", s / 60),
        3600..86_400 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}

/// A file's size for people: bytes below 1 KiB, else KiB, MiB, GiB or TiB with one decimal
/// (`1.5 MiB`); a dash when the record does not know it.
pub fn size(bytes: Option<u64>) -> String {
    bytes.map_or_else(|| "—".to_owned(), crate::memory_budget::human)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(super::size(None), "—");
        assert_eq!(super::size(Some(0)), "0 B");
        assert_eq!(super::size(Some(1023)), "1023 B");
        assert_eq!(super::size(Some(1536)), "1.5 KiB");
        assert_eq!(super::size(Some(5 * 1024 * 1024)), "5.0 MiB");
        assert_eq!(super::size(Some(1 << 30)), "1.0 GiB");
        assert_eq!(super::size(Some(3 << 40)), "3.0 TiB");
        assert_eq!(super::size(Some(u64::MAX)), "16777216.0 TiB");
    }

    use super::*;

    fn doc() -> Document {
        let entry = |path: &[&str], texts: &[Option<&str>], tags: &[&str]| Entry {
            path: path.iter().map(|s| s.to_string()).collect(),
            texts: texts.iter().map(|t| t.map(str::to_owned)).collect(),
            tags: tags.iter().map(|s| s.to_string()).collect(),
            ..Entry::default()
        };
        Document {
            locales: vec!["en".into(), "pl".into()],
            entries: vec![
                entry(&["CORE", "YES"], &[Some("Yes"), Some("Tak")], &["core"]),
                entry(&["CORE", "HI"], &[Some("Hi {name}"), Some("Cześć")], &[]),
                entry(&["HOME", "TITLE"], &[Some("Home"), None], &["home"]),
            ],
            ..Document::default()
        }
    }

    #[test]
    fn completeness_counts_the_base_keys_each_locale_has() {
        let bars = completeness(&doc(), Some(0));
        assert_eq!((bars[0].done, bars[0].of, bars[0].percent), (3, 3, 100));
        assert_eq!((bars[1].done, bars[1].of, bars[1].percent), (2, 3, 66));
        assert!(bars[0].is_base && !bars[1].is_base);
    }

    #[test]
    fn findings_link_to_the_google_cell_only_for_google_sheets() {
        let w = |cell: &str, message: &str| Warning {
            cell: cell.into(),
            row: 9,
            message: message.into(),
        };
        let doc = Document {
            // a duplicate key is a warning and a finding: listed once, as a finding
            warnings: vec![w("B9", "duplicate key"), w("A3", "row skipped")],
            findings: vec![w("B9", "duplicate key"), w("C4", "unbalanced '{'")],
            ..doc()
        };
        let google = reported(&doc, &SheetLink::new(&SheetSource::Google, "abc", Some(77)));
        assert_eq!(google.finding_count, 2);
        assert_eq!(google.findings[1].cell, "C4");
        assert_eq!(
            google.findings[1].link.as_deref(),
            Some("https://docs.google.com/spreadsheets/d/abc/edit#gid=77&range=C4")
        );
        assert_eq!(google.warning_count, 1);
        assert_eq!(google.warnings[0].cell, "A3");
        let unknown_tab = SheetLink::new(&SheetSource::Google, "abc", None);
        assert_eq!(
            unknown_tab.to("B9").as_deref(),
            Some("https://docs.google.com/spreadsheets/d/abc/edit#range=B9")
        );
        assert_eq!(unknown_tab.to("B9 x"), None);
        let example = SheetLink::new(&SheetSource::Example, "abc", Some(0));
        assert_eq!(reported(&doc, &example).findings[0].link, None);
        // a sheet of several tabs: each cell opens in its own tab; an unknown tab, nowhere
        let tabs = SheetLink::new(&SheetSource::Google, "abc", Some(5))
            .with_tabs(vec![("common".into(), 5), ("Sign up".into(), 901)]);
        assert_eq!(
            tabs.to("Sign up!C4").as_deref(),
            Some("https://docs.google.com/spreadsheets/d/abc/edit#gid=901&range=C4")
        );
        assert_eq!(
            tabs.to("common!B9").as_deref(),
            Some("https://docs.google.com/spreadsheets/d/abc/edit#gid=5&range=B9")
        );
        assert_eq!(tabs.to("gone!B9"), None);
    }

    #[test]
    fn search_finds_keys_and_texts_in_any_locale_and_flags_problems() {
        let d = doc();
        let run = |params: &[(&str, &str)]| {
            let params: Vec<(String, String)> = params
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
            search(
                &d,
                &Index::new(&d),
                &Search::from_params(&params).unwrap(),
                Some(0),
            )
            .unwrap()
        };
        assert_eq!(run(&[("q", "tak")]).rows[0].key, "CORE.YES");
        assert_eq!(run(&[("q", "home.t")]).rows[0].key, "HOME.TITLE");
        assert_eq!(run(&[("section", "CORE")]).total, 2);
        assert_eq!(run(&[("tag", "home")]).total, 1);
        let missing = run(&[("show", "missing")]);
        assert_eq!(missing.total, 1);
        assert!(missing.rows[0].cells[1].missing);
        let mismatch = run(&[("show", "placeholders"), ("locale", "PL")]);
        assert_eq!(mismatch.rows[0].key, "CORE.HI");
        assert!(mismatch.rows[0].cells[1].mismatch);
        assert_eq!(run(&[("page", "2")]).rows.len(), 0);
    }

    #[test]
    fn a_plural_entry_shows_every_form_and_is_found_by_any() {
        use crate::model::{Plural, PluralCategory, PluralForm};
        let form = |category, en: &str, pl: Option<&str>| PluralForm {
            category,
            texts: vec![Some(en.into()), pl.map(str::to_owned)],
        };
        let mut d = doc();
        d.entries.push(Entry {
            path: vec!["CART".into(), "ITEMS".into()],
            texts: vec![Some("{count} items".into()), Some("{count} rzeczy".into())],
            plural: Some(Box::new(Plural {
                forms: vec![
                    form(
                        PluralCategory::One,
                        "One item",
                        Some("{count} rzecz {where}"),
                    ),
                    form(
                        PluralCategory::Other,
                        "{count} items",
                        Some("{count} rzeczy"),
                    ),
                ],
            })),
            ..Entry::default()
        });
        let params = |q: &str| Search::from_params(&[("q".to_owned(), q.to_owned())]).unwrap();
        // found by the text of its `one` form, which `texts` does not hold
        let index = Index::new(&d);
        let found = search(&d, &index, &params("rzecz {where"), Some(0)).unwrap();
        assert_eq!(found.rows.len(), 1);
        let pl = &found.rows[0].cells[1];
        let forms: Vec<(&str, String)> = (pl.forms.iter())
            .map(|(category, pieces)| (*category, marked(pieces)))
            .collect();
        assert_eq!(
            forms,
            [
                ("one", "{count} [rzecz {where]}".to_owned()),
                ("other", "{count} rzeczy".to_owned())
            ]
        );
        // {count} aside, every form counts: pl has {where}, en has nothing
        assert!(pl.mismatch && !found.rows[0].cells[0].mismatch);
        assert!(
            search(&d, &index, &params("yes"), Some(0)).unwrap().rows[0].cells[0]
                .forms
                .is_empty()
        );
    }

    /// The pieces of a text with the found ones in brackets.
    fn marked(pieces: &[Piece]) -> String {
        (pieces.iter())
            .map(|p| match p.found {
                true => format!("[{}]", p.text),
                false => p.text.clone(),
            })
            .collect()
    }

    #[test]
    fn search_is_blind_to_case_and_accents_on_both_sides_and_marks_what_it_found() {
        let mut d = doc();
        d.entries.push(Entry {
            path: vec!["PAY".into(), "NOW".into()],
            texts: vec![Some("Pay now".into()), Some("Zapłać teraz".into())],
            ..Entry::default()
        });
        d.entries.push(Entry {
            path: vec!["ADDRESS".into(), "STREET".into()],
            texts: vec![Some("Street".into()), Some("Straße".into())],
            ..Entry::default()
        });
        let index = Index::new(&d);
        let run = |q: &str| {
            let params = [("q".to_owned(), q.to_owned())];
            search(&d, &index, &Search::from_params(&params).unwrap(), Some(0)).unwrap()
        };
        for q in ["zaplac", "ZAPLAC", "Zapłać", "zapłac", "ZAPŁAĆ", "Zaplać"] {
            let found = run(q);
            assert_eq!(found.total, 1, "{q}");
            assert_eq!(found.rows[0].key, "PAY.NOW", "{q}");
            let pl = found.rows[0].cells[1].text.as_deref().unwrap();
            assert_eq!(marked(pl), "[Zapłać] teraz", "{q}");
        }
        assert_eq!(
            marked(run("strasse").rows[0].cells[1].text.as_ref().unwrap()),
            "[Straße]"
        );
        assert_eq!(run("STRAßE").rows[0].key, "ADDRESS.STREET");
        // keys too, folded, and a dotted path across segments
        assert_eq!(marked(&run("pay.n").rows[0].key_pieces), "[PAY.N]OW");
        assert_eq!(run("cześc").rows[0].key, "CORE.HI");
        // a text is not matched across the key and the text beside it
        assert_eq!(run("now\nzap").total, 0);
        assert_eq!(run("nowzap").total, 0);
        // nothing asked: every row, nothing marked
        let all = run("");
        assert_eq!(all.total, 5);
        assert!(
            all.rows
                .iter()
                .all(|r| r.key_pieces.iter().all(|p| !p.found))
        );
    }

    #[test]
    fn bad_search_parameters_name_what_is_allowed() {
        let err = |params: &[(&str, &str)]| {
            let params: Vec<(String, String)> = params
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
            match Search::from_params(&params) {
                Err(e) => e.to_string(),
                Ok(s) => {
                    let d = doc();
                    search(&d, &Index::new(&d), &s, Some(0))
                        .unwrap_err()
                        .to_string()
                }
            }
        };
        assert_eq!(
            err(&[("page", "0")]),
            "page must be an integer from 1 to 1000000, got '0'"
        );
        assert_eq!(
            err(&[("show", "x")]),
            "show must be all, missing or placeholders, got 'x'"
        );
        assert_eq!(
            err(&[("locale", "xx")]),
            "locale 'xx' is not in the sheet; its locales: en, pl"
        );
        assert!(err(&[("bogus", "1")]).starts_with("unknown parameter 'bogus'"));
    }

    #[test]
    fn placeholders_of_both_styles_are_found() {
        assert_eq!(
            placeholders("Hi {name}, %1$s and %d, 100%%"),
            ["%1$s", "%d", "name"]
        );
        assert_eq!(placeholders("{count:int} {{x"), ["count"]);
        assert!(placeholders("plain").is_empty());
    }
}
