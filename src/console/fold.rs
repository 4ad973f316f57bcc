//! Text folded for the console's search, so that `zaplac` and `ZAPLAC` find `Zapłać`: lower
//! case, compatibility decomposition (NFKD) without its combining marks, and the letters
//! NFKD leaves whole spelled in plain Latin (`ł` → `l`, `ß` → `ss`, `æ` → `ae`, …).

use icu_normalizer::DecomposingNormalizerBorrowed;
use icu_normalizer::properties::CanonicalCombiningClassMapBorrowed;

/// `text` folded: what the search compares, on both sides.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    fold_into(text, &mut out);
    out
}

/// Appends `text` folded to `out`.
pub fn fold_into(text: &str, out: &mut String) {
    if text.is_ascii() {
        out.extend(text.chars().map(|c| c.to_ascii_lowercase()));
        return;
    }
    // The whole text through NFKD at once (its fast paths skip what needs no change),
    // then each character lower-cased without its marks.
    let decomposed = DecomposingNormalizerBorrowed::new_nfkd().normalize(text);
    let marks = CanonicalCombiningClassMapBorrowed::new();
    for c in decomposed.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            plain_lower(c, &marks, out);
        }
    }
}

/// Appends `c` (already decomposed) lower-cased, its marks dropped and the letters NFKD
/// leaves whole spelled plainly.
fn plain_lower(c: char, marks: &CanonicalCombiningClassMapBorrowed<'_>, out: &mut String) {
    // İ lower-cases to i and a combining dot, so marks are dropped after lower-casing.
    for lower in c.to_lowercase() {
        if marks.get_u8(lower) != 0 {
            continue;
        }
        match plain(lower) {
            Some(spelled) => out.push_str(spelled),
            None => out.push(lower),
        }
    }
}

/// Appends the folding of `c` to `out` (nothing for a combining mark): `fold` one
/// character at a time, for `Mapped`.
fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    let marks = CanonicalCombiningClassMapBorrowed::new();
    for part in DecomposingNormalizerBorrowed::new_nfkd().normalize_iter(std::iter::once(c)) {
        plain_lower(part, &marks, out);
    }
}

/// How a lower-case letter that NFKD does not decompose is spelled without its stroke,
/// ligature or special form; `None` for the rest.
fn plain(c: char) -> Option<&'static str> {
    Some(match c {
        'ł' => "l",
        'đ' | 'ð' => "d",
        'ø' => "o",
        'æ' => "ae",
        'œ' => "oe",
        'ß' => "ss",
        'ħ' => "h",
        'ı' => "i",
        'ŧ' => "t",
        'þ' => "th",
        'ƀ' => "b",
        'ɨ' => "i",
        'ƶ' => "z",
        'ς' => "σ",
        _ => return None,
    })
}

/// A text folded, with where each folded byte came from in the original: to mark in the
/// original what a search found in the folded text.
pub struct Mapped {
    pub folded: String,
    /// For each byte of `folded`, the start of the original character it came from.
    origin: Vec<usize>,
}

impl Mapped {
    pub fn new(text: &str) -> Mapped {
        let mut folded = String::with_capacity(text.len());
        let mut origin = Vec::with_capacity(text.len());
        for (at, c) in text.char_indices() {
            fold_char(c, &mut folded);
            origin.resize(folded.len(), at);
        }
        Mapped { folded, origin }
    }

    /// The byte ranges of `text` (the text this was made from) where `needle` (folded)
    /// occurs, without overlaps, each widened to whole characters.
    pub fn find(&self, text: &str, needle: &str) -> Vec<std::ops::Range<usize>> {
        let mut found: Vec<std::ops::Range<usize>> = Vec::new();
        if needle.is_empty() {
            return found;
        }
        for (at, _) in self.folded.match_indices(needle) {
            let start = self.origin[at];
            let last = self.origin[at + needle.len() - 1];
            let end = last + text[last..].chars().next().map_or(0, char::len_utf8);
            match found.last_mut() {
                // two matches in one character (`s` twice in `ß`): one mark
                Some(previous) if previous.end > start => previous.end = previous.end.max(end),
                _ => found.push(start..end),
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_and_diacritics_fold_away() {
        assert_eq!(fold("Zapłać"), "zaplac");
        assert_eq!(fold("ZAPŁAĆ"), "zaplac");
        assert_eq!(fold("Straße STRASSE"), "strasse strasse");
        assert_eq!(fold("Ærø Œuvre"), "aero oeuvre");
        assert_eq!(fold("Đorđe Þór"), "dorde thor");
        assert_eq!(fold("İstanbul ılık"), "istanbul ilik");
        assert_eq!(fold("ﬁne Ｘ²"), "fine x2");
        assert_eq!(fold("Crème brûlée, Ångström"), "creme brulee, angstrom");
        // already decomposed: the marks alone fold to nothing
        assert_eq!(fold("e\u{301}te\u{301}"), "ete");
        assert_eq!(fold("Ελληνικός ΟΔΌΣ"), "ελληνικοσ οδοσ");
        assert_eq!(fold("Привет, Ёж"), "привет, еж");
        assert_eq!(fold("日本語"), "日本語");
    }

    #[test]
    fn a_text_folds_the_same_whole_or_a_character_at_a_time() {
        // the search finds by `fold`, the marks are placed by `Mapped`: they must agree
        for text in [
            "Zapłać teraz",
            "Straße ẞ İstanbul",
            "e\u{301}te\u{301} a\u{328}\u{301}",
            "ﬁne Ｘ² ½ ㎏",
            "Ελληνικός Привет Ёж 日本語 ﾊﾝｶｸ",
            "plain ASCII, Mixed Case",
        ] {
            assert_eq!(Mapped::new(text).folded, fold(text), "{text}");
        }
    }

    #[test]
    fn a_match_in_the_folded_text_marks_whole_characters_of_the_original() {
        let text = "Zapłać teraz, Straße";
        let mapped = Mapped::new(text);
        let marked = |needle: &str| -> Vec<&str> {
            (mapped.find(text, needle).into_iter())
                .map(|r| &text[r])
                .collect()
        };
        assert_eq!(marked("zaplac"), ["Zapłać"]);
        assert_eq!(marked("ac"), ["ać"]);
        assert_eq!(marked("a"), ["a", "a", "a", "a"]);
        assert_eq!(marked("s"), ["S", "ß"]);
        assert_eq!(marked("strasse"), ["Straße"]);
        assert!(marked("").is_empty());
        assert!(marked("x").is_empty());
    }
}
