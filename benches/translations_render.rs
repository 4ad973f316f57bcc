//! Rendering speed of the formats on a large sheet: 50,000 keys × 20 locales, three-level
//! paths, ~50-character texts with some quotes and ampersands; one key in ten is a plural
//! entry with `one`, `few` and `other` forms. `NO_PLURALS=1` makes them plain keys, to
//! measure what the plural entries themselves cost.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench stops at its first failure and prints its figures"
)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use depot::formats::{Format, Prepared, RenderOptions, render};
use depot::model::{
    Document, Entry, LocaleSelection, Plural, PluralCategory, PluralForm, Selection,
};

const KEYS: usize = 50_000;
const LOCALES: usize = 20;

fn document() -> Document {
    // language tags (`aa_XA`, `ba_XB`, …): the String Catalog and ARB key by language
    let locales: Vec<String> = (0..LOCALES)
        .map(|i| {
            format!(
                "{}{}_X{}",
                ['a', 'b', 'c', 'd'][i % 4],
                (b'a' + (i / 4) as u8) as char,
                (b'A' + i as u8) as char
            )
        })
        .collect();
    let words = [
        "Save",
        "the",
        "file",
        "before",
        "closing",
        "Tom's",
        "\"draft\"",
        "&",
        "settings",
        "now",
    ];
    let text = |k: usize, l: usize| {
        let mut text = String::with_capacity(64);
        let mut i = k * 7 + l * 3;
        while text.len() < 50 {
            text.push_str(words[i % words.len()]);
            text.push(' ');
            i = i * 31 + 17;
        }
        text.pop();
        Some(text)
    };
    let no_plurals = std::env::var_os("NO_PLURALS").is_some();
    let entries = (0..KEYS)
        .map(|k| {
            let mut texts: Vec<Option<String>> = (0..LOCALES).map(|l| text(k, l)).collect();
            let plural = (k % 10 == 5 && !no_plurals).then(|| {
                let forms = [
                    PluralCategory::One,
                    PluralCategory::Few,
                    PluralCategory::Other,
                ]
                .into_iter()
                .enumerate()
                .map(|(n, category)| PluralForm {
                    category,
                    texts: (0..LOCALES)
                        .map(|l| text(k + n, l).map(|t| format!("{{count}} {t}")))
                        .collect(),
                })
                .collect();
                Box::new(Plural { forms })
            });
            if let Some(plural) = &plural {
                // a plural entry's texts are its `other` forms (see `Entry::plural`)
                texts = plural.forms[2].texts.clone();
            }
            Entry {
                path: vec![
                    format!("SECTION_{}", k / 2_000),
                    format!("GROUP_{}", (k / 50) % 40),
                    format!("KEY_{k}"),
                ],
                texts,
                tags: Vec::new(),
                comment: (k % 10 == 0).then(|| "Shown on the save dialog".to_owned()),
                plural,
                names: Default::default(),
            }
        })
        .collect();
    Document {
        settings: Default::default(),
        namespaces: Vec::new(),
        locales,
        entries,
        warnings: Vec::new(),
        findings: Vec::new(),
    }
}

fn bench(c: &mut Criterion) {
    let doc = document();
    let all = Selection::all(&doc);
    let one = Selection {
        locales: vec![LocaleSelection {
            locale: 3,
            entries: (0..KEYS).collect(),
        }],
    };
    let opts = RenderOptions {
        base_locale: Some(0),
        ..RenderOptions::default()
    };
    for (label, sel, keys) in [
        ("all_locales", &all, KEYS * LOCALES),
        ("one_locale", &one, KEYS),
    ] {
        bench_formats(c, &format!("render_{label}"), keys, |format| {
            let rendered = render(&doc, sel, format, &opts).expect("bench document renders");
            rendered.body.len()
        });
    }

    // What `depot generate` does for one format: a file per locale, from one document
    // whose names, tree and locale columns are prepared once (and shared by the files).
    let per_locale: Vec<Selection> = all
        .locales
        .iter()
        .map(|ls| Selection {
            locales: vec![ls.clone()],
        })
        .collect();
    bench_formats(c, "render_file_per_locale", KEYS * LOCALES, |format| {
        let prepared = Prepared::new(&doc);
        let mut bytes = 0;
        for sel in &per_locale {
            let rendered = prepared
                .render_locale_tree(sel, format, &opts)
                .expect("bench document renders");
            bytes += rendered.body.len();
        }
        bytes
    });
    // The same into one buffer used again for every file, as `depot generate` renders
    // (`Prepared::render_into`): no new pages for each body.
    bench_formats(c, "render_file_per_locale_into", KEYS * LOCALES, |format| {
        let prepared = Prepared::new(&doc);
        let (mut bytes, mut body) = (0, Vec::new());
        for sel in &per_locale {
            prepared
                .render_into(sel, format, &opts, true, &mut body)
                .expect("bench document renders");
            bytes += body.len();
        }
        bytes
    });
}

/// One group timing `render_one` for each format; it returns the bytes it rendered.
fn bench_formats(
    c: &mut Criterion,
    group: &str,
    elements: usize,
    render_one: impl Fn(Format) -> usize,
) {
    let mut group = c.benchmark_group(group);
    group.sample_size(10);
    group.throughput(Throughput::Elements(elements as u64));
    for format in Format::ALL {
        group.bench_with_input(
            BenchmarkId::from_parameter(format),
            &format,
            |b, &format| b.iter(|| black_box(render_one(format))),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
