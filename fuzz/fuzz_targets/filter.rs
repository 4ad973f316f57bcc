//! Filter strings, one per line → `Filter::parse` (a filter or a clean error; a filter keeps
//! its text and has 1 to 16 non-empty segments) → `select` on the hostile fixture sheet →
//! every format, read back.
#![no_main]

use std::sync::OnceLock;

use depot::model::filter::{Filter, FilterError, MAX_FILTER_CHARS, MAX_FILTER_SEGMENTS};
use depot::formats::RenderOptions;
use depot::model::Document;
use depot_fuzz::render;

fn document() -> &'static Document {
    static DOC: OnceLock<Document> = OnceLock::new();
    DOC.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/sheets/hostile.sheet.json");
        let rows = depot::sheets::local::read_grid(&path, None).expect("hostile fixture");
        depot::markup::convert(rows).expect("hostile fixture converts")
    })
}

libfuzzer_sys::fuzz_target!(|text: &str| {
    let mut filters = Vec::new();
    for line in text.split('\n') {
        match Filter::parse(line) {
            Ok(filter) => {
                assert_eq!(filter.as_str(), line);
                assert_eq!(filter.segments().join("."), line);
                let count = filter.segments().len();
                assert!(
                    (1..=MAX_FILTER_SEGMENTS).contains(&count),
                    "{count} segments"
                );
                assert!(filter.segments().iter().all(|s| !s.is_empty()));
                assert!(line.chars().count() <= MAX_FILTER_CHARS);
                filters.push(filter);
            }
            Err(FilterError::Empty) => assert!(line.is_empty()),
            Err(FilterError::EmptySegment { position, .. }) => {
                assert!(line.split('.').nth(position - 1) == Some(""), "{position}");
            }
            Err(FilterError::TooLong { chars, .. }) => assert!(chars > MAX_FILTER_CHARS),
            Err(FilterError::TooManySegments { segments, .. }) => {
                assert!(segments > MAX_FILTER_SEGMENTS)
            }
        }
    }
    let doc = document();
    if let Some(sel) = render::select(doc, &filters) {
        let opts = RenderOptions {
            comments: text.len() % 2 == 0,
            keep_locale: text.len() % 3 == 0,
            base_locale: Some(0),
        };
        render::check_renders(doc, &sel, &opts);
    }
});
