//! Sheet conversion and filtering on a large sheet: 50 sections × 20 subsections × 50 keys
//! (50,000 keys) × 20 locales, with section and key tags; one key in ten is a plural entry
//! (`KEY[one]`, `KEY[few]`, `KEY[other]` rows, texts with `{count}`). Then the console's
//! search on the same sheet with half its locales' texts accented: folding it (once per
//! version) and a search of it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench stops at its first failure and prints its figures"
)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use depot::markup::convert;
use depot::model::filter::{Filter, FilterIndex, select};

const SECTIONS: usize = 50;
const SUBSECTIONS: usize = 20;
const KEYS: usize = 50;
const LOCALES: usize = 20;
/// Keys with `k % 10 == PLURAL` are plural entries: 10% of them.
const PLURAL: usize = 5;

fn locale(i: usize) -> String {
    format!("l{i:02}_R{i:02}")
}

fn grid() -> Vec<Vec<String>> {
    let mut header: Vec<String> = ["###", ">>>", ">>>", ">>>", "$$$"]
        .map(String::from)
        .to_vec();
    header.extend((0..LOCALES).map(locale));
    let mut rows = vec![vec!["Big sheet".to_owned()], Vec::new(), header];
    for s in 0..SECTIONS {
        rows.push(vec![format!("area{}", s % 3), format!("S{s:02}")]);
        for u in 0..SUBSECTIONS {
            rows.push(vec![String::new(), String::new(), format!("U{u:02}")]);
            for k in 0..KEYS {
                let tags = if k % 10 == 0 { "hot, t1" } else { "t1" };
                let forms: &[&str] = if k % 10 == PLURAL {
                    &["[one]", "[few]", "[other]"]
                } else {
                    &[""]
                };
                for form in forms {
                    let mut row = vec![
                        tags.to_owned(),
                        String::new(),
                        String::new(),
                        format!("K{k:02}{form}"),
                        "note".to_owned(),
                    ];
                    for l in 0..LOCALES {
                        // Some holes, so that per-locale filtering has work to do.
                        let text = if (k + l) % 13 == 0 {
                            String::new()
                        } else if form.is_empty() {
                            format!("Text {s}.{u}.{k} in {l}")
                        } else {
                            format!("{{count}} texts {s}.{u}.{k} in {l}")
                        };
                        row.push(text);
                    }
                    rows.push(row);
                }
            }
        }
    }
    rows
}

fn filters(list: &[&str]) -> Vec<Filter> {
    list.iter()
        .map(|f| Filter::parse(f).expect("bench filters are well-formed"))
        .collect()
}

fn bench(c: &mut Criterion) {
    let rows = grid();
    // The grid is given up to the conversion (its texts move into the document), so each
    // iteration gets a fresh copy, made outside the timing.
    c.bench_function("convert 50k keys x 20 locales", |b| {
        b.iter_batched(
            || rows.clone(),
            |rows| convert(black_box(rows)).expect("the bench sheet converts"),
            criterion::BatchSize::LargeInput,
        )
    });
    let doc = convert(rows).expect("the bench sheet converts");
    assert_eq!(doc.entries.len(), SECTIONS * SUBSECTIONS * KEYS);
    let cases = [
        ("select no filter", filters(&[])),
        ("select locale.SECTION", filters(&["l03_R03.S07"])),
        ("select locale.tag", filters(&["l03_R03.hot"])),
        (
            "select 5-filter union",
            filters(&[
                "l00_R00.S01",
                "l01_R01.S02.U03",
                "hot",
                "*.S10.area1",
                "l05-r05.S20.U05.K07",
            ]),
        ),
    ];
    c.bench_function("FilterIndex::new", |b| {
        b.iter_with_large_drop(|| FilterIndex::new(black_box(&doc)))
    });
    let index = FilterIndex::new(&doc);
    for (name, list) in &cases {
        c.bench_function(&format!("index.{name}"), |b| {
            b.iter_with_large_drop(|| {
                index
                    .select(black_box(list))
                    .expect("the bench filters match")
            })
        });
    }
    // The one-shot path (`depot generate`): index built on every call.
    c.bench_function("select() locale.SECTION, index included", |b| {
        b.iter_with_large_drop(|| select(black_box(&doc), &cases[1].1).expect("it matches"))
    });
    console_search(c, doc);
}

/// The console's search (`console::views`): every odd locale's texts accented (Polish), so
/// that folding does its full work on half the texts.
fn console_search(c: &mut Criterion, mut doc: depot::model::Document) {
    use depot::console::views::{Index, Search, search};
    for (i, entry) in doc.entries.iter_mut().enumerate() {
        for (l, text) in entry.texts.iter_mut().enumerate() {
            if l % 2 == 1
                && let Some(text) = text
            {
                *text = format!("Zażółć gęślą jaźń {i} w {l}");
            }
        }
    }
    c.bench_function("console Index::new (fold 50k keys x 20 locales)", |b| {
        b.iter_with_large_drop(|| Index::new(black_box(&doc)))
    });
    let index = Index::new(&doc);
    let base = Some(0);
    for (name, q) in [
        ("one key, accents folded", "ZAZOLC GESLA JAZN 49999 W 1"),
        ("one key, ascii", "text 49.19.49 in 4"),
        ("most keys (first page)", "jazn"),
        ("no key", "nothing like this"),
    ] {
        let asked = Search::from_params(&[("q".to_owned(), q.to_owned())]).expect("a search");
        let found = search(&doc, &index, &asked, base).expect("it runs");
        assert!(found.total > 0 || name == "no key", "{name}: {q}");
        c.bench_function(&format!("console search: {name}"), |b| {
            b.iter_with_large_drop(|| search(black_box(&doc), &index, &asked, base))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
