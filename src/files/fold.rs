//! Case folding of file names, written once: the SQLite search function, the PostgreSQL
//! query's needle and the in-memory name index all compare names through here, so every
//! backend finds the same records for the same `fileName`.

/// Simple case folding of one character, as the trigram tokenizer does it: the lower-case
/// form when it is a single character, else the character itself.
pub fn fold_char(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

pub fn fold(s: &str) -> String {
    s.chars().map(fold_char).collect()
}

/// Whether `haystack` contains `folded_needle` (already folded) ignoring case.
pub fn contains_folded(haystack: &str, folded_needle: &str) -> bool {
    if folded_needle.is_empty() {
        return true;
    }
    if haystack.is_ascii() {
        // Fast path without allocating: an ASCII haystack folds to ASCII lower case.
        let needle = folded_needle.as_bytes();
        return folded_needle.is_ascii()
            && haystack.as_bytes().windows(needle.len()).any(|w| {
                w.iter()
                    .zip(needle)
                    .all(|(h, n)| h.to_ascii_lowercase() == *n)
            });
    }
    fold(haystack).contains(folded_needle)
}
