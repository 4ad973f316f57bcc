//! A grid built from cells the markup knows (`>>>`, `###`, `$$$`, locale codes, tags,
//! hostile texts from the fixtures, any text) → `convert` → filters made of the document's
//! own locales, names and tags → `select` → every format with the chosen options, read back.
#![no_main]

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use depot::model::filter::Filter;
use depot::formats::RenderOptions;
use depot::model::{Document, Selection};
use depot_fuzz::render;

#[derive(Debug, Arbitrary)]
enum Cell {
    Empty,
    Key,
    Tags,
    Comment,
    Locale(u8),
    /// A cell of the hostile fixture sheet (texts every format must escape).
    Hostile(u16),
    TagList(Vec<u8>),
    Text(String),
}

const LOCALES: [&str; 12] = [
    "en_US",
    "pl_PL",
    "en",
    "EN",
    "en-us",
    "de_DE",
    "pt_BR",
    "zh-Hant-TW",
    "x",
    "*",
    "en.US",
    "sr_Latn",
];
const TAGS: [&str; 4] = ["tag1", "tag2", "CORE", "*"];

#[derive(Debug, Arbitrary)]
enum Segment {
    Locale(u8),
    Name(u16),
    Tag(u8),
    Any,
    Raw(String),
}

#[derive(Debug, Arbitrary)]
struct Input {
    rows: Vec<Vec<Cell>>,
    filters: Vec<Vec<Segment>>,
    comments: bool,
    keep_locale: bool,
    base_locale: Option<u8>,
    /// Keep only this locale of the selection (a `depot generate` per-language file).
    one_locale: Option<u8>,
}

fn hostile_cells() -> &'static [String] {
    static CELLS: OnceLock<Vec<String>> = OnceLock::new();
    CELLS.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/sheets/hostile.sheet.json");
        let rows = depot::sheets::local::read_grid(&path, None).expect("hostile fixture");
        let mut cells: Vec<String> = rows
            .into_iter()
            .flatten()
            .filter(|c| !c.is_empty())
            .collect();
        cells.dedup();
        cells
    })
}

fn cell_text(cell: Cell) -> String {
    match cell {
        Cell::Empty => String::new(),
        Cell::Key => ">>>".into(),
        Cell::Tags => "###".into(),
        Cell::Comment => "$$$".into(),
        Cell::Locale(i) => LOCALES[usize::from(i) % LOCALES.len()].into(),
        Cell::Hostile(i) => {
            let cells = hostile_cells();
            cells[usize::from(i) % cells.len()].clone()
        }
        Cell::TagList(picks) => picks
            .iter()
            .map(|&p| TAGS[usize::from(p) % TAGS.len()])
            .collect::<Vec<_>>()
            .join(", "),
        Cell::Text(text) => text,
    }
}

fn filter_text(doc: &Document, segments: Vec<Segment>) -> String {
    let names: Vec<&String> = doc.entries.iter().flat_map(|e| &e.path).collect();
    let tags: Vec<&String> = doc.entries.iter().flat_map(|e| &e.tags).collect();
    let pick = |list: &[&String], i: usize| list.get(i % list.len().max(1)).map(|s| s.to_string());
    segments
        .into_iter()
        .map(|segment| match segment {
            Segment::Locale(i) => doc
                .locales
                .get(usize::from(i) % doc.locales.len().max(1))
                .cloned()
                .unwrap_or_default(),
            Segment::Name(i) => pick(&names, usize::from(i)).unwrap_or_default(),
            Segment::Tag(i) => pick(&tags, usize::from(i)).unwrap_or_default(),
            Segment::Any => "*".into(),
            Segment::Raw(text) => text,
        })
        .collect::<Vec<_>>()
        .join(".")
}

libfuzzer_sys::fuzz_target!(|input: Input| {
    let rows: Vec<Vec<String>> = (input.rows.into_iter())
        .map(|row| row.into_iter().map(cell_text).collect())
        .collect();
    let Ok(doc) = depot::markup::convert(rows) else {
        return;
    };
    render::check_document(&doc);
    let mut filters = Vec::new();
    for segments in input.filters {
        if let Ok(filter) = Filter::parse(&filter_text(&doc, segments)) {
            filters.push(filter);
        }
    }
    let Some(mut sel) = render::select(&doc, &filters) else {
        return;
    };
    if let Some(keep) = input.one_locale
        && !sel.locales.is_empty()
    {
        let one = sel
            .locales
            .swap_remove(usize::from(keep) % sel.locales.len());
        sel = Selection { locales: vec![one] };
    }
    let opts = RenderOptions {
        comments: input.comments,
        keep_locale: input.keep_locale,
        base_locale: input
            .base_locale
            .map(|b| usize::from(b) % doc.locales.len().max(1)),
    };
    render::check_renders(&doc, &sel, &opts);
});
