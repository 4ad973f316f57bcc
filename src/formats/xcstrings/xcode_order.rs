//! The order Xcode writes a String Catalog's dictionaries in (keys, languages, plural
//! categories), so that a catalog depot writes diffs cleanly after an edit in Xcode.
//!
//! Xcode writes catalogs with NSJSONSerialization's sorted keys, which compares keys as
//! `compare(_:options: [.numeric, .caseInsensitive, .forcedOrdering], locale:
//! NSLocale.system)` (swift-corelibs-foundation `JSONSerialization.swift` spells the same
//! options out): the CLDR root collation, numbers by value, case only when nothing else
//! differs (lower case first). Checked on real catalogs (tests/fixtures/xcstrings, and
//! seven more from public apps): every one is in exactly the order of ICU's root collator
//! at tertiary strength with numeric ordering, ties broken by code point.
//!
//! A collator compares slowly (sorting 50,000 names one comparison at a time took 0.4 s),
//! so names are sorted by byte keys: for names made only of the ASCII a flat name usually
//! holds (ios names are lower-cased; names the sheet gives, SPEC §12.1, keep their
//! capitals), a key built here from the root collation's order of those characters; for
//! any other set of names, ICU4X's sort keys (three times slower to build). Both give the
//! collator's order (`fast_keys_order_as_the_collator` checks it).

use std::cmp::Ordering;
use std::sync::OnceLock;

use icu_collator::options::CollatorOptions;
use icu_collator::preferences::CollationNumericOrdering;
use icu_collator::{Collator, CollatorBorrowed, CollatorPreferences};

/// The root collator with numeric ordering, made once.
fn collator() -> Option<&'static CollatorBorrowed<'static>> {
    static COLLATOR: OnceLock<Option<CollatorBorrowed<'static>>> = OnceLock::new();
    COLLATOR
        .get_or_init(|| {
            let mut prefs = CollatorPreferences::default();
            prefs.numeric_ordering = Some(CollationNumericOrdering::True);
            Collator::try_new(prefs, CollatorOptions::default()).ok()
        })
        .as_ref()
}

/// Xcode's order of two keys.
pub(crate) fn compare(a: &str, b: &str) -> Ordering {
    let collated = collator().map_or(Ordering::Equal, |c| c.compare(a, b));
    collated.then_with(|| a.cmp(b))
}

/// Sorts `items` into Xcode's order of `name(item)`; equal names keep their order.
pub(crate) fn sort_by_name<'n, T: Copy>(items: &mut [T], name: impl Fn(T) -> &'n str) {
    let mut keys = Vec::with_capacity(items.len() * 24);
    let mut spans = Vec::with_capacity(items.len());
    let fast = items.iter().all(|&item| fits_fast_key(name(item)));
    for &item in items.iter() {
        let start = keys.len();
        if fast {
            push_fast_key(&mut keys, name(item));
        } else if let Some(collator) = collator() {
            let Ok(()) = collator.write_sort_key_to(name(item), &mut keys);
        }
        spans.push(start..keys.len());
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&x, &y| {
        let key = |i: usize| &keys[spans[i].clone()];
        key(x)
            .cmp(key(y))
            .then_with(|| name(items[x]).cmp(name(items[y])))
    });
    let sorted: Vec<T> = order.into_iter().map(|i| items[i]).collect();
    items.copy_from_slice(&sorted);
}

/// The ASCII characters other than digits and letters that a fast key handles, in the root
/// collation's order (each its own primary weight; digits come after them, letters last).
const PUNCTUATION_ORDER: &[u8] = b"\t\n\x0B\x0C\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// Weight of each byte in a fast key (0: not allowed in one).
const WEIGHTS: [u8; 128] = {
    let mut weights = [0u8; 128];
    let mut i = 0;
    while i < PUNCTUATION_ORDER.len() {
        weights[PUNCTUATION_ORDER[i] as usize] = 1 + i as u8;
        i += 1;
    }
    let mut letter = b'a';
    while letter <= b'z' {
        weights[letter as usize] = DIGITS + 1 + (letter - b'a');
        letter += 1;
    }
    weights
};

/// The weight that starts a number (a run of digits) in a fast key.
const DIGITS: u8 = PUNCTUATION_ORDER.len() as u8 + 1;

/// Most digits of one number a fast key holds (the root collator splits longer ones).
const MAX_DIGITS: usize = 200;

/// Whether `name` can be keyed without the collator: only the characters of `WEIGHTS`,
/// capitals and digits, no number longer than `MAX_DIGITS`. Other control characters (the
/// collator ignores those entirely) and anything non-ASCII take ICU's keys.
fn fits_fast_key(name: &str) -> bool {
    let mut run = 0;
    name.bytes().all(|b| {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        let weight = WEIGHTS.get(usize::from(b.to_ascii_lowercase()));
        run <= MAX_DIGITS && (b.is_ascii_digit() || weight.is_some_and(|&w| w != 0))
    })
}

/// A key whose byte order is the collator's order for names that `fits_fast_key`: each
/// character's weight, a capital its letter's; a number as `DIGITS`, its count of
/// significant digits, then those digits (leading zeros do not count, as in ICU's numeric
/// ordering), so numbers order by value and before any letter. Case counts only between
/// names equal but for it, letter by letter, lower case first (the collator's tertiary
/// level): a name with capitals ends in 0 (below every weight, so a longer name still
/// sorts after) and a byte per letter, 1 for lower case and 2 for a capital; a name
/// without ends where its weights do, as low as that.
fn push_fast_key(keys: &mut Vec<u8>, name: &str) {
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !b.is_ascii_digit() {
            keys.push(WEIGHTS[usize::from(b.to_ascii_lowercase() & 0x7F)]);
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let digits = &bytes[start..i];
        let significant = &digits[digits.iter().take_while(|&&d| d == b'0').count()..];
        keys.push(DIGITS);
        keys.push(significant.len() as u8);
        keys.extend_from_slice(significant);
    }
    if bytes.iter().any(u8::is_ascii_uppercase) {
        keys.push(0);
        let case = |b: &u8| 1 + u8::from(b.is_ascii_uppercase());
        keys.extend(bytes.iter().filter(|b| b.is_ascii_alphabetic()).map(case));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn collated(a: &str, b: &str) -> Ordering {
        let collator = collator().unwrap();
        collator.compare(a, b).then_with(|| a.cmp(b))
    }

    #[test]
    fn the_punctuation_order_is_the_root_collators() {
        let mut chars: Vec<String> = PUNCTUATION_ORDER
            .iter()
            .map(|&b| char::from(b).to_string())
            .collect();
        let written = chars.clone();
        chars.sort_by(|a, b| collated(a, b));
        assert_eq!(chars, written);
        for pair in written.windows(2) {
            assert_eq!(
                collator().unwrap().compare(&pair[0], &pair[1]),
                Ordering::Less
            );
        }
        assert_eq!(collated("$", "0"), Ordering::Less);
        assert_eq!(collated("9", "a"), Ordering::Less);
    }

    #[test]
    fn xcode_orders_numbers_by_value_case_last_and_symbols_first() {
        let mut names = vec![
            "x16", "X2", "Comment", "COMMENT", "•x", "_x", "a b", "ab", "10", "9",
        ];
        sort_by_name(&mut names, |n| n);
        assert_eq!(
            names,
            [
                "_x", "•x", "9", "10", "a b", "ab", "Comment", "COMMENT", "X2", "x16"
            ]
        );
    }

    /// Real catalogs (tests/fixtures/xcstrings): their keys, languages and every other
    /// object's keys are in the order `sort_by_name` gives.
    #[test]
    fn catalogs_xcode_wrote_are_in_this_order() {
        use crate::formats::ordered_json::Json;
        fn check(json: &Json, checked: &mut usize) {
            if let Json::Map(entries) = json {
                let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
                let mut sorted = keys.clone();
                sort_by_name(&mut sorted, |k| k);
                assert_eq!(sorted, keys);
                *checked += keys.len();
                entries.iter().for_each(|(_, v)| check(v, checked));
            }
        }
        let dir = format!("{}/tests/fixtures/xcstrings", env!("CARGO_MANIFEST_DIR"));
        let mut catalogs = 0;
        for file in std::fs::read_dir(dir).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_none_or(|e| e != "xcstrings") {
                continue;
            }
            let json: Json =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let mut checked = 0;
            check(&json, &mut checked);
            assert!(checked > 100, "{}", path.display());
            catalogs += 1;
        }
        assert!(catalogs >= 2);
    }

    fn fast_name() -> impl Strategy<Value = String> {
        let alphabet: Vec<char> = PUNCTUATION_ORDER
            .iter()
            .map(|&b| char::from(b))
            .chain('a'..='z')
            .chain("abcABCxyzXYZ".chars())
            .chain("0000123456789".chars())
            .collect();
        prop::collection::vec(prop::sample::select(alphabet), 0..12)
            .prop_map(|chars| chars.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn fast_keys_order_as_the_collator(a in fast_name(), b in fast_name()) {
            prop_assert!(fits_fast_key(&a) && fits_fast_key(&b));
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            push_fast_key(&mut ka, &a);
            push_fast_key(&mut kb, &b);
            prop_assert_eq!(ka.cmp(&kb).then_with(|| a.cmp(&b)), collated(&a, &b), "{:?} {:?}", a, b);
        }

        #[test]
        fn names_equal_but_for_case_order_as_the_collator(
            a in fast_name(),
            flips in prop::collection::vec(any::<bool>(), 12),
            digits in prop::sample::select(&["", "0", "1", "01"][..]),
        ) {
            // the same letters, some in the other case, maybe a number that only differs
            // in its leading zeros
            let flip = |(c, flip): (char, &bool)| match flip {
                true if c.is_ascii_lowercase() => c.to_ascii_uppercase(),
                true => c.to_ascii_lowercase(),
                false => c,
            };
            let b: String = a.chars().zip(flips.iter().cycle()).map(flip).collect();
            let b = format!("{b}{digits}");
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            push_fast_key(&mut ka, &a);
            push_fast_key(&mut kb, &b);
            prop_assert_eq!(ka.cmp(&kb).then_with(|| a.cmp(&b)), collated(&a, &b), "{:?} {:?}", a, b);
        }

        #[test]
        fn sorting_by_keys_is_sorting_by_the_collator(
            names in prop::collection::vec(fast_name(), 0..20),
            other in "\\PC{0,6}",
        ) {
            for names in [names.clone(), [names, vec![other]].concat()] {
                let mut sorted: Vec<&str> = names.iter().map(String::as_str).collect();
                sort_by_name(&mut sorted, |n| n);
                let mut expected: Vec<&str> = names.iter().map(String::as_str).collect();
                expected.sort_by(|a, b| collated(a, b));
                prop_assert_eq!(sorted, expected);
            }
        }
    }
}
