//! Raw query strings → `http::query::parse` (strict decoding) → the parameters of
//! `GET /files` (`ListQuery::from_params`), `GET /file` (`key_from_params`) and
//! `GET /translations` (`TranslationQuery::from_params`). Decoding round-trips: the
//! parameters, encoded again, decode to themselves.
#![no_main]

use depot::files::{ListQuery, key_from_params};
use depot::translations::query::TranslationQuery;

libfuzzer_sys::fuzz_target!(|raw: &str| {
    let Ok(params) = depot::http::query::parse(raw) else {
        return;
    };
    let again: String = params
        .iter()
        .map(|(n, v)| {
            format!(
                "{}={}",
                depot::signing::aws_encode(n, false),
                depot::signing::aws_encode(v, false)
            )
        })
        .collect::<Vec<_>>()
        .join("&");
    let reparsed = depot::http::query::parse(&again).expect("encoded parameters decode");
    // A name-only piece (`flag`) decodes as an empty value, as `flag=` does.
    assert_eq!(reparsed, params, "{again}");

    for max in [1, 100] {
        if let Ok(query) = ListQuery::from_params(&params, 25, max) {
            assert!((1..=max).contains(&query.limit), "{query:?}");
            assert!(query.page >= 1, "{query:?}");
            let _ = query.offset();
        }
    }
    if let Ok(key) = key_from_params(&params) {
        assert!(!key.is_empty());
        assert!(params.iter().any(|(n, v)| n == "key" && *v == key));
    }
    if let Ok(query) = TranslationQuery::from_params(&params) {
        assert_eq!(query.filters.len(), query.filter_texts.len());
        let _ = query.cache_key();
    }
});
