//! Filters (SPEC §6.2): `locale.SECTION.SUB`, `locale.tag`, `SECTION.tag`, `*.SECTION`, ...
//! `Filter::parse` checks the shape only; `select` (or `FilterIndex::select`, for many requests
//! on one document) resolves filters against a `Document` and returns the union of what they
//! name, per locale, as a `Selection`.

use std::fmt;
use std::str::FromStr;

use rustc_hash::FxHashMap;
use thiserror::Error;

use super::locale::same_locale;
use super::{Document, LocaleSelection, Selection};

/// Longest filter accepted, in characters.
pub const MAX_FILTER_CHARS: usize = 256;
/// Most segments a filter may have.
pub const MAX_FILTER_SEGMENTS: usize = 16;
/// First segment that stands for every locale.
pub const ANY_LOCALE: &str = "*";

/// A well-formed filter: one or more non-empty segments separated by `.`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Filter {
    text: String,
    segments: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FilterError {
    #[error(
        "a filter is empty: a filter is segments separated by '.', such as 'en_US', \
         'en_US.CORE' or 'tag1'"
    )]
    Empty,
    #[error(
        "filter {filter:?} has an empty segment (number {position}): segments are separated by \
         single dots and may not be empty, e.g. 'en_US.CORE.LABELS'"
    )]
    EmptySegment { filter: String, position: usize },
    #[error("filter {filter:?} has {chars} characters: at most {MAX_FILTER_CHARS} are allowed")]
    TooLong { filter: String, chars: usize },
    #[error("filter {filter:?} has {segments} segments: at most {MAX_FILTER_SEGMENTS} are allowed")]
    TooManySegments { filter: String, segments: usize },
}

/// Why a non-empty list of filters selected nothing.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SelectError {
    #[error(
        "no translation matched the filter(s) {} (sections, keys and tags are case-sensitive); \
         known locales: {}",
        quote_list(.unmatched),
        if .known_locales.is_empty() { "none".to_owned() } else { .known_locales.join(", ") }
    )]
    NothingMatched {
        unmatched: Vec<String>,
        known_locales: Vec<String>,
    },
}

/// What `FilterIndex::select` found: the union, and the filters that added nothing to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    pub selection: Selection,
    /// Filters (as written, deduplicated, in the order given) that matched no text.
    pub unmatched: Vec<String>,
}

impl Filter {
    pub fn parse(text: &str) -> Result<Filter, FilterError> {
        if text.is_empty() {
            return Err(FilterError::Empty);
        }
        let chars = text.chars().count();
        if chars > MAX_FILTER_CHARS {
            // The message carries the start only: the whole string is what was too long.
            let start: String = text.chars().take(40).collect();
            return Err(FilterError::TooLong {
                filter: start + "…",
                chars,
            });
        }
        let segments: Vec<&str> = text.split('.').collect();
        if segments.len() > MAX_FILTER_SEGMENTS {
            return Err(FilterError::TooManySegments {
                filter: text.to_owned(),
                segments: segments.len(),
            });
        }
        if let Some(position) = segments.iter().position(|s| s.is_empty()) {
            return Err(FilterError::EmptySegment {
                filter: text.to_owned(),
                position: position + 1,
            });
        }
        Ok(Filter {
            text: text.to_owned(),
            segments: segments.into_iter().map(str::to_owned).collect(),
        })
    }

    /// The filter as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The segments, never empty, none of them empty.
    pub fn segments(&self) -> &[String] {
        &self.segments
    }
}

impl FromStr for Filter {
    type Err = FilterError;

    fn from_str(text: &str) -> Result<Filter, FilterError> {
        Filter::parse(text)
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The union of what `filters` select; no filters select everything.
///
/// Builds a `FilterIndex` first: a server that answers many requests from one document
/// should keep the index next to the document and call `FilterIndex::select`.
pub fn select(doc: &Document, filters: &[Filter]) -> Result<Selection, SelectError> {
    // No filter selects everything; building the index for that is wasted work.
    if filters.is_empty() {
        return Ok(Selection::all(doc));
    }
    FilterIndex::new(doc)
        .select(filters)
        .map(|selected| selected.selection)
}

/// What filtering needs from a `Document`, laid out for scans: key names and tags as small
/// integers in flat arrays, and one locale bit set per entry. Scanning the document itself
/// chases a pointer per string compared and per text looked at, which made one filter over
/// 50,000 keys cost milliseconds. The `Selection`s it returns index the document it was
/// built from. Its maps hash with Fx, as the renderers' do: their keys come from the
/// operator's sheet (a request only looks names up), so SipHash's flooding resistance
/// buys nothing.
#[derive(Debug, Clone)]
pub struct FilterIndex {
    locales: Vec<String>,
    /// Every key name and tag of the document, as an id.
    names: FxHashMap<String, usize>,
    /// Entry `e`'s path is `paths[path_starts[e]..path_starts[e + 1]]`, as name ids.
    path_starts: Vec<usize>,
    paths: Vec<usize>,
    /// Entry `e`'s tags are `tags[tag_starts[e]..tag_starts[e + 1]]`, as name ids.
    tag_starts: Vec<usize>,
    tags: Vec<usize>,
    /// Name id → the entries whose path starts with it, ascending: the first step of a walk.
    firsts: FxHashMap<usize, Vec<usize>>,
    /// Tag id → the entries carrying it, ascending: a tag filter on the whole document.
    tagged: FxHashMap<usize, Vec<usize>>,
    /// u64 words per locale bit set.
    words: usize,
    /// Entry `e` has a text in locale `l` when bit `l` of `texts[e * words..][..words]` is set.
    texts: Vec<u64>,
}

impl FilterIndex {
    pub fn new(doc: &Document) -> FilterIndex {
        let words = doc.locales.len().div_ceil(64).max(1);
        let mut index = FilterIndex {
            locales: doc.locales.clone(),
            names: FxHashMap::default(),
            path_starts: vec![0],
            paths: Vec::new(),
            tag_starts: vec![0],
            tags: Vec::new(),
            firsts: FxHashMap::default(),
            tagged: FxHashMap::default(),
            words,
            texts: Vec::with_capacity(doc.entries.len() * words),
        };
        for (position, entry) in doc.entries.iter().enumerate() {
            for (depth, name) in entry.path.iter().enumerate() {
                let id = index.id(name);
                index.paths.push(id);
                if depth == 0 {
                    index.firsts.entry(id).or_default().push(position);
                }
            }
            index.path_starts.push(index.paths.len());
            for tag in &entry.tags {
                let id = index.id(tag);
                index.tags.push(id);
                index.tagged.entry(id).or_default().push(position);
            }
            index.tag_starts.push(index.tags.len());
            let start = index.texts.len();
            index.texts.resize(start + words, 0);
            for (locale, text) in entry.texts.iter().enumerate().take(doc.locales.len()) {
                if text.is_some() {
                    index.texts[start + locale / 64] |= 1 << (locale % 64);
                }
            }
        }
        index
    }

    fn id(&mut self, name: &str) -> usize {
        let next = self.names.len();
        match self.names.get(name) {
            Some(&id) => id,
            None => *self.names.entry(name.to_owned()).or_insert(next),
        }
    }

    fn entry_count(&self) -> usize {
        // `path_starts` opens with the start of the first entry.
        self.path_starts.len() - 1
    }

    fn path(&self, entry: usize) -> &[usize] {
        &self.paths[self.path_starts[entry]..self.path_starts[entry + 1]]
    }

    fn entry_tags(&self, entry: usize) -> &[usize] {
        &self.tags[self.tag_starts[entry]..self.tag_starts[entry + 1]]
    }

    fn text_bits(&self, entry: usize) -> &[u64] {
        &self.texts[entry * self.words..(entry + 1) * self.words]
    }

    /// The union of what `filters` select (no filters: everything), and the filters that
    /// matched nothing when others did, for a warning.
    pub fn select(&self, filters: &[Filter]) -> Result<Selected, SelectError> {
        let resolved: Vec<Resolved> = if filters.is_empty() {
            vec![Resolved {
                locales: self.locale_bits(0..self.locales.len()),
                entries: Entries::All,
            }]
        } else {
            filters.iter().map(|f| self.resolve(f)).collect()
        };
        let mut unmatched: Vec<String> = Vec::new();
        for (filter, resolved) in filters.iter().zip(&resolved) {
            if !self.matches_any_text(resolved) && !unmatched.iter().any(|u| u == filter.as_str()) {
                unmatched.push(filter.as_str().to_owned());
            }
        }
        let selection = self.union(&resolved);
        if selection.locales.is_empty() && !filters.is_empty() {
            return Err(SelectError::NothingMatched {
                unmatched,
                known_locales: self.locales.clone(),
            });
        }
        Ok(Selected {
            selection,
            unmatched,
        })
    }

    fn locale_bits(&self, locales: impl IntoIterator<Item = usize>) -> Vec<u64> {
        let mut bits = vec![0u64; self.words];
        for locale in locales {
            bits[locale / 64] |= 1 << (locale % 64);
        }
        bits
    }

    fn resolve(&self, filter: &Filter) -> Resolved {
        let Some((first, rest)) = filter.segments.split_first() else {
            // Unreachable through `Filter::parse`; an empty filter names nothing.
            return Resolved {
                locales: vec![0; self.words],
                entries: Entries::Some(Vec::new()),
            };
        };
        let (locales, path) = if first == ANY_LOCALE {
            (self.locale_bits(0..self.locales.len()), rest)
        } else {
            let named = (self.locales.iter().enumerate())
                .filter(|(_, code)| same_locale(code, first))
                .map(|(i, _)| i);
            let bits = self.locale_bits(named);
            if bits.iter().all(|&b| b == 0) {
                (
                    self.locale_bits(0..self.locales.len()),
                    &filter.segments[..],
                )
            } else {
                (bits, rest)
            }
        };
        Resolved {
            locales,
            entries: self.walk(path),
        }
    }

    /// Follows `segments` down the key tree. Each segment names a child (section or key) of
    /// the current node; failing that, a tag of keys inside the current node (the node itself
    /// included), which must then be the last segment: a tag is a set of keys, not a node,
    /// so nothing lies below it.
    fn walk(&self, segments: &[String]) -> Entries {
        // `None` stands for every entry: the whole document before the first step.
        let mut current: Option<Vec<usize>> = None;
        for (depth, segment) in segments.iter().enumerate() {
            // A name the document never uses is neither a child nor a tag.
            let Some(&id) = self.names.get(segment.as_str()) else {
                return Entries::Some(Vec::new());
            };
            let children = match &current {
                None => self.firsts.get(&id).cloned().unwrap_or_default(),
                Some(within) => self.narrow(within, |e| self.path(e).get(depth) == Some(&id)),
            };
            if !children.is_empty() {
                current = Some(children);
                continue;
            }
            if depth + 1 < segments.len() {
                return Entries::Some(Vec::new());
            }
            let tagged = match &current {
                None => self.tagged.get(&id).cloned().unwrap_or_default(),
                Some(within) => self.narrow(within, |e| self.entry_tags(e).contains(&id)),
            };
            return Entries::Some(tagged);
        }
        current.map_or(Entries::All, Entries::Some)
    }

    fn narrow(&self, within: &[usize], keep: impl Fn(usize) -> bool) -> Vec<usize> {
        within.iter().copied().filter(|&e| keep(e)).collect()
    }

    fn matches_any_text(&self, resolved: &Resolved) -> bool {
        let has_text = |entry: usize| {
            (self.text_bits(entry).iter())
                .zip(&resolved.locales)
                .any(|(text, wanted)| text & wanted != 0)
        };
        match &resolved.entries {
            Entries::All => (0..self.entry_count()).any(has_text),
            Entries::Some(entries) => entries.iter().copied().any(has_text),
        }
    }

    /// The union of the resolved filters, keeping only entries with a text in the locale.
    fn union(&self, resolved: &[Resolved]) -> Selection {
        let words = self.words;
        let mut chosen: Vec<Vec<usize>> = vec![Vec::new(); self.locales.len()];
        let mut emit = |entry: usize, marked: &[u64]| {
            for (word, (&marked, &texts)) in marked.iter().zip(self.text_bits(entry)).enumerate() {
                let mut bits = marked & texts;
                while bits != 0 {
                    let locale = word * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    chosen[locale].push(entry);
                }
            }
        };
        let everything = resolved.iter().any(|r| matches!(r.entries, Entries::All));
        if everything {
            // Per entry, the locales for which some filter names it.
            let mut marks = vec![0u64; self.entry_count() * words];
            for r in resolved {
                let mut mark = |entry: usize| {
                    let slot = &mut marks[entry * words..(entry + 1) * words];
                    slot.iter_mut().zip(&r.locales).for_each(|(m, b)| *m |= b);
                };
                match &r.entries {
                    Entries::All => (0..self.entry_count()).for_each(&mut mark),
                    Entries::Some(entries) => entries.iter().copied().for_each(&mut mark),
                }
            }
            for (entry, marked) in marks.chunks(words).enumerate() {
                emit(entry, marked);
            }
        } else {
            // Filters usually name few entries: sorting what they name beats a pass over all.
            let mut named: Vec<(usize, usize)> = (resolved.iter().enumerate())
                .flat_map(|(filter, r)| r.entries.listed().iter().map(move |&e| (e, filter)))
                .collect();
            named.sort_unstable();
            let mut marked = vec![0u64; words];
            for (i, &(entry, filter)) in named.iter().enumerate() {
                marked
                    .iter_mut()
                    .zip(&resolved[filter].locales)
                    .for_each(|(m, b)| *m |= b);
                if named.get(i + 1).is_none_or(|next| next.0 != entry) {
                    emit(entry, &marked);
                    marked.fill(0);
                }
            }
        }
        let locales = (chosen.into_iter().enumerate())
            .filter(|(_, entries)| !entries.is_empty())
            .map(|(locale, entries)| LocaleSelection {
                locale,
                entries: entries.into(),
            })
            .collect();
        Selection { locales }
    }
}

/// A filter resolved against a document: the locales it applies to and the entries it names.
struct Resolved {
    /// Locale bit set, `FilterIndex::words` long.
    locales: Vec<u64>,
    entries: Entries,
}

enum Entries {
    All,
    /// Ascending entry indices.
    Some(Vec<usize>),
}

impl Entries {
    /// The listed entries; none for `All`, which callers handle first.
    fn listed(&self) -> &[usize] {
        match self {
            Entries::All => &[],
            Entries::Some(entries) => entries,
        }
    }
}

fn quote_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("{i:?}")).collect();
    quoted.join(", ")
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde::Deserialize;

    use super::*;
    use crate::markup::test_support::{FilterCase, Tree, document, fixture, tree};
    use crate::model::Entry;

    fn parse_all(list: &[&str]) -> Vec<Filter> {
        list.iter().map(|f| Filter::parse(f).unwrap()).collect()
    }

    /// The fixture answer for a list of filters: 200 with its tree, 400 or 404.
    fn outcome(doc: &Document, list: &[String]) -> (u16, Option<Tree>) {
        let filters: Result<Vec<Filter>, FilterError> =
            list.iter().map(|f| Filter::parse(f)).collect();
        let Ok(filters) = filters else {
            return (400, None);
        };
        match select(doc, &filters) {
            Ok(selection) => (200, Some(tree(doc, &selection))),
            Err(SelectError::NothingMatched { .. }) => (404, None),
        }
    }

    fn check_fixture_cases(name: &str) {
        #[derive(Deserialize)]
        struct Expected {
            filters: Vec<FilterCase>,
        }
        let doc = document(name);
        let expected: Expected =
            serde_json::from_str(&fixture(&format!("{name}.expected.json"))).unwrap();
        assert!(!expected.filters.is_empty());
        for case in expected.filters {
            assert_eq!(
                outcome(&doc, &case.filters),
                (case.status, case.json),
                "{name}: filters {:?}",
                case.filters
            );
        }
    }

    #[test]
    fn basic_fixture_filter_cases() {
        check_fixture_cases("basic");
    }

    #[test]
    fn edge_fixture_filter_cases() {
        check_fixture_cases("edge");
    }

    fn paths(doc: &Document, selection: &Selection) -> Vec<(String, String)> {
        selection
            .locales
            .iter()
            .flat_map(|l| {
                l.entries
                    .iter()
                    .map(|&i| (doc.locales[l.locale].clone(), doc.entries[i].path.join(".")))
            })
            .collect()
    }

    fn selected(name: &str, list: &[&str]) -> Vec<(String, String)> {
        let doc = document(name);
        paths(&doc, &select(&doc, &parse_all(list)).unwrap())
    }

    fn pair(locale: &str, path: &str) -> (String, String) {
        (locale.to_owned(), path.to_owned())
    }

    #[test]
    fn malformed_filters_are_refused_naming_the_rule() {
        assert_eq!(Filter::parse(""), Err(FilterError::Empty));
        for (text, position) in [("en..CORE", 2), (".en", 1), ("en.", 2), (".", 1)] {
            assert_eq!(
                Filter::parse(text),
                Err(FilterError::EmptySegment {
                    filter: text.to_owned(),
                    position
                })
            );
        }
        assert_eq!(
            Filter::parse("en..CORE").unwrap_err().to_string(),
            "filter \"en..CORE\" has an empty segment (number 2): segments are separated by \
             single dots and may not be empty, e.g. 'en_US.CORE.LABELS'"
        );
        let long = "é".repeat(257);
        assert_eq!(
            Filter::parse(&long),
            Err(FilterError::TooLong {
                filter: "é".repeat(40) + "…",
                chars: 257
            })
        );
        assert!(Filter::parse(&"é".repeat(256)).is_ok());
        let seventeen = vec!["a"; 17].join(".");
        assert_eq!(
            Filter::parse(&seventeen).unwrap_err().to_string(),
            format!("filter {seventeen:?} has 17 segments: at most 16 are allowed")
        );
        assert_eq!(
            Filter::parse(&vec!["a"; 16].join("."))
                .unwrap()
                .segments()
                .len(),
            16
        );
    }

    #[test]
    fn filter_keeps_its_text_and_segments() {
        let filter: Filter = "en_US.CORE.tag1".parse().unwrap();
        assert_eq!(filter.as_str(), "en_US.CORE.tag1");
        assert_eq!(filter.to_string(), "en_US.CORE.tag1");
        assert_eq!(filter.segments(), ["en_US", "CORE", "tag1"]);
    }

    #[test]
    fn locales_match_ignoring_case_and_dash_or_underscore() {
        assert!(same_locale("en_US", "EN-us"));
        assert!(same_locale("pl", "PL"));
        assert!(!same_locale("en", "en_US"));
        assert!(!same_locale("en_US", "en.US"));
    }

    #[test]
    fn tag_followed_by_more_segments_matches_nothing() {
        let doc = document("basic");
        let err = select(&doc, &parse_all(&["en.tag1.LABELS"])).unwrap_err();
        assert_eq!(
            err,
            SelectError::NothingMatched {
                unmatched: vec!["en.tag1.LABELS".into()],
                known_locales: vec!["en".into(), "pl".into()],
            }
        );
    }

    #[test]
    fn nothing_matched_names_the_filters_and_the_locales() {
        let doc = document("basic");
        let err = select(&doc, &parse_all(&["en.core", "de", "en.core"])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no translation matched the filter(s) \"en.core\", \"de\" (sections, keys and tags \
             are case-sensitive); known locales: en, pl"
        );
        let empty = Document::default();
        assert_eq!(
            select(&empty, &parse_all(&["en"])).unwrap_err().to_string(),
            "no translation matched the filter(s) \"en\" (sections, keys and tags are \
             case-sensitive); known locales: none"
        );
    }

    #[test]
    fn unmatched_filters_are_reported_when_others_match() {
        let doc = document("basic");
        let outcome = FilterIndex::new(&doc)
            .select(&parse_all(&["en.CORE", "de", "pl.NOPE"]))
            .unwrap();
        assert_eq!(outcome.unmatched, ["de", "pl.NOPE"]);
        assert_eq!(outcome.selection.locales.len(), 1);
        let all = FilterIndex::new(&doc).select(&[]).unwrap();
        assert_eq!(all.selection, Selection::all(&doc));
        assert_eq!(all.unmatched, Vec::<String>::new());
    }

    #[test]
    fn a_filter_on_keys_without_text_in_its_locale_matches_nothing() {
        // de_DE has no text for COMMON.CANCEL in the edge sheet.
        let doc = document("edge");
        let outcome = FilterIndex::new(&doc).select(&parse_all(&["de_DE.COMMON.CANCEL", "en_US"]));
        assert_eq!(outcome.unwrap().unmatched, ["de_DE.COMMON.CANCEL"]);
    }

    #[test]
    fn tag_after_a_key_keeps_the_key_when_it_carries_the_tag() {
        assert_eq!(
            selected("basic", &["en.CORE.LABELS.YES.tag2"]),
            [pair("en", "CORE.LABELS.YES")]
        );
    }

    #[test]
    fn a_child_name_wins_over_a_tag_of_the_same_name() {
        let doc = crate::markup::convert(
            vec![
                vec!["###", ">>>", ">>>", "en"],
                vec!["", "tag1"],
                vec!["", "", "A", "a"],
                vec!["tag1", "B", "", "b"],
            ]
            .into_iter()
            .map(|row| row.into_iter().map(String::from).collect())
            .collect(),
        )
        .unwrap();
        let selection = select(&doc, &parse_all(&["tag1"])).unwrap();
        assert_eq!(paths(&doc, &selection), [pair("en", "tag1.A")]);
    }

    #[test]
    fn a_locale_name_wins_over_a_section_of_the_same_name() {
        let doc = crate::markup::convert(
            vec![
                vec![">>>", ">>>", "en", "pl"],
                vec!["pl", "A", "a", "pa"],
                vec!["B", "", "b", "pb"],
            ]
            .into_iter()
            .map(|row| row.into_iter().map(String::from).collect())
            .collect(),
        )
        .unwrap();
        let selection = select(&doc, &parse_all(&["pl"])).unwrap();
        assert_eq!(
            paths(&doc, &selection),
            [pair("pl", "pl.A"), pair("pl", "B")]
        );
        let selection = select(&doc, &parse_all(&["*.pl"])).unwrap();
        assert_eq!(
            paths(&doc, &selection),
            [pair("en", "pl.A"), pair("pl", "pl.A")]
        );
    }

    #[test]
    fn overlapping_filters_keep_document_order() {
        assert_eq!(
            selected(
                "basic",
                &["*.FRONT", "en.CORE.LABELS.NO", "tag2", "en.tag1"]
            ),
            [
                pair("en", "CORE.LABELS.YES"),
                pair("en", "CORE.LABELS.NO"),
                pair("en", "FRONT.HEADER.TITLE"),
                pair("pl", "CORE.LABELS.YES"),
                pair("pl", "FRONT.HEADER.TITLE"),
            ]
        );
    }

    #[test]
    fn more_than_64_locales_are_selected() {
        let locales: Vec<String> = (0..70).map(|i| format!("l{i}")).collect();
        let texts = (0..70)
            .map(|i| [0, 63, 64, 69].contains(&i).then(|| format!("t{i}")))
            .collect();
        let doc = Document {
            settings: Default::default(),
            namespaces: Vec::new(),
            findings: Vec::new(),
            locales,
            entries: vec![Entry {
                plural: None,
                path: vec!["K".into()],
                texts,
                tags: vec!["tag".into()],
                comment: None,
                names: Default::default(),
            }],
            warnings: Vec::new(),
        };
        let chosen = |list: &[&str]| -> Vec<usize> {
            let selection = select(&doc, &parse_all(list)).unwrap();
            selection.locales.iter().map(|l| l.locale).collect()
        };
        assert_eq!(chosen(&["*"]), [0, 63, 64, 69]);
        assert_eq!(chosen(&["tag"]), [0, 63, 64, 69]);
        assert_eq!(chosen(&["L64.K"]), [64]);
        assert_eq!(chosen(&["l69", "l0.tag"]), [0, 69]);
        assert_eq!(select(&doc, &[]).unwrap(), Selection::all(&doc));
    }

    #[test]
    fn a_reopened_section_is_selected_in_sheet_order() {
        let doc = crate::markup::convert(
            vec![
                vec![">>>", ">>>", "en"],
                vec!["A", "X", "ax"],
                vec!["B", "Y", "by"],
                vec!["A", "Z", "az"],
            ]
            .into_iter()
            .map(|row| row.into_iter().map(String::from).collect())
            .collect(),
        )
        .unwrap();
        let selection = select(&doc, &parse_all(&["A", "en.B.Y"])).unwrap();
        assert_eq!(
            paths(&doc, &selection),
            [pair("en", "A.X"), pair("en", "B.Y"), pair("en", "A.Z")]
        );
    }

    const LOCALES: [&str; 4] = ["en", "pl_PL", "de-DE", "fr"];
    const NAMES: [&str; 4] = ["A", "B", "t1", "en"];

    fn arb_document() -> impl Strategy<Value = Document> {
        (1..=LOCALES.len()).prop_flat_map(|locales| {
            let entry = (
                prop::collection::vec(prop::sample::select(NAMES.to_vec()), 1..4),
                prop::collection::vec(prop::option::of(Just("x".to_owned())), locales),
                prop::sample::subsequence(vec!["t1", "t2"], 0..=2),
            );
            prop::collection::vec(entry, 0..12).prop_map(move |raw| {
                let mut entries: Vec<Entry> = Vec::new();
                for (path, texts, tags) in raw {
                    let path: Vec<String> = path.into_iter().map(String::from).collect();
                    if entries.iter().any(|e| e.path == path) {
                        continue;
                    }
                    entries.push(Entry {
                        plural: None,
                        path,
                        texts,
                        tags: tags.into_iter().map(String::from).collect(),
                        comment: None,
                        names: Default::default(),
                    });
                }
                Document {
                    settings: Default::default(),
                    namespaces: Vec::new(),
                    findings: Vec::new(),
                    locales: LOCALES[..locales].iter().map(|l| (*l).to_owned()).collect(),
                    entries,
                    warnings: Vec::new(),
                }
            })
        })
    }

    fn arb_filter() -> impl Strategy<Value = Filter> {
        let segment = prop::sample::select(vec![
            "en", "EN", "pl-pl", "de_de", "fr", "*", "A", "B", "t1", "t2", "zz",
        ]);
        prop::collection::vec(segment, 1..4)
            .prop_map(|segments| Filter::parse(&segments.join(".")).unwrap())
    }

    fn as_set(selection: &Selection) -> Vec<(usize, usize)> {
        selection
            .locales
            .iter()
            .flat_map(|l| l.entries.iter().map(move |&e| (l.locale, e)))
            .collect()
    }

    proptest! {
        #[test]
        fn any_string_parses_or_gives_a_clean_error(text in any::<String>()) {
            match Filter::parse(&text) {
                Ok(filter) => {
                    prop_assert_eq!(filter.segments().join("."), text);
                    prop_assert!(filter.segments().iter().all(|s| !s.is_empty()));
                }
                Err(err) => prop_assert!(!err.to_string().is_empty()),
            }
        }

        #[test]
        fn dotted_strings_parse_or_give_a_clean_error(text in "[a.]{0,40}") {
            let _ = Filter::parse(&text).map_err(|e| e.to_string());
        }

        #[test]
        fn no_filter_is_everything(doc in arb_document()) {
            prop_assert_eq!(select(&doc, &[]), Ok(Selection::all(&doc)));
        }

        #[test]
        fn a_locale_filter_is_everything_in_that_locale(doc in arb_document()) {
            let all = Selection::all(&doc);
            for (index, code) in doc.locales.iter().enumerate() {
                let expected: Vec<LocaleSelection> =
                    all.locales.iter().filter(|l| l.locale == index).cloned().collect();
                let filter = Filter::parse(code).unwrap();
                match select(&doc, &[filter]) {
                    Ok(selection) => prop_assert_eq!(selection.locales, expected),
                    Err(_) => prop_assert!(expected.is_empty()),
                }
            }
        }

        #[test]
        fn union_is_independent_of_order_and_equals_the_single_selections(
            doc in arb_document(),
            filters in prop::collection::vec(arb_filter(), 1..5),
        ) {
            let mut reversed = filters.clone();
            reversed.reverse();
            let forward = select(&doc, &filters).map(|s| as_set(&s));
            let backward = select(&doc, &reversed).map(|s| as_set(&s));
            prop_assert_eq!(forward.is_ok(), backward.is_ok());
            let mut singles: Vec<(usize, usize)> = filters
                .iter()
                .flat_map(|f| select(&doc, std::slice::from_ref(f)).map(|s| as_set(&s)).unwrap_or_default())
                .collect();
            singles.sort_unstable();
            singles.dedup();
            prop_assert_eq!(forward.clone().unwrap_or_default(), singles);
            prop_assert_eq!(forward.unwrap_or_default(), backward.unwrap_or_default());
        }
    }
}
