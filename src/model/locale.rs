//! Which locale is which: locale codes compare ignoring ASCII case with `-` and `_` the
//! same, and the base locale of a document. Filters, fallbacks, the sheet's header checks
//! and the renderers all ask here.

use super::Document;

/// Locale codes are equal ignoring ASCII case, with `-` and `_` equivalent (`en-us` = `en_US`).
pub fn same_locale(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && (a.bytes().zip(b.bytes())).all(|(x, y)| fold_locale_byte(x) == fold_locale_byte(y))
}

/// `same_locale` as a key: two codes are the same locale exactly when their keys are equal.
pub fn locale_key(code: &str) -> Vec<u8> {
    code.bytes().map(fold_locale_byte).collect()
}

fn fold_locale_byte(c: u8) -> u8 {
    if c == b'-' {
        b'_'
    } else {
        c.to_ascii_lowercase()
    }
}

/// The base locale over HTTP (xlf `source-language`): the first locale whose language is
/// English, else the first locale. `depot generate --base` chooses it explicitly.
pub fn base_locale(doc: &Document) -> Option<usize> {
    doc.locales
        .iter()
        .position(|l| {
            l.split(['_', '-'])
                .next()
                .is_some_and(|lang| lang.eq_ignore_ascii_case("en"))
        })
        .or((!doc.locales.is_empty()).then_some(0))
}
