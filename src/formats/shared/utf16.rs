//! The UTF-16 code units that `\uXXXX` escapes write (.properties, .strings, Android
//! resources): a surrogate pair is one character, and a surrogate without its other half is
//! refused, naming the line and the key, instead of becoming U+FFFD (a sheet cell cannot
//! hold it, and a replacement character would ship to the app's users as the text).

/// A first (high) surrogate: a second one must follow it.
pub fn is_high(unit: u16) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

/// A second (low) surrogate: it must follow a first one.
pub fn is_low(unit: u16) -> bool {
    (0xDC00..0xE000).contains(&unit)
}

/// The character a first and a second surrogate make.
pub fn pair(high: u16, low: u16) -> Option<char> {
    char::decode_utf16([high, low]).next()?.ok()
}

/// The character of a unit that is no surrogate, or why a surrogate alone is none;
/// `escape` is how the file writes it (`\u`, `\U`).
pub fn single(unit: u16, escape: &str) -> Result<char, String> {
    char::from_u32(u32::from(unit)).ok_or_else(|| lone(unit, escape))
}

/// Why the surrogate `unit`, written with `escape`, is refused alone.
pub fn lone(unit: u16, escape: &str) -> String {
    let which = if is_high(unit) {
        "the first half of a UTF-16 surrogate pair, and its second half does not follow it"
    } else {
        "the second half of a UTF-16 surrogate pair, and its first half does not come before it"
    };
    format!(
        "{escape}{unit:04X} is {which}: write the character itself, or both halves \
         ({escape}D83D{escape}DE00 is U+1F600)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_make_one_character_and_halves_alone_are_refused_by_name() {
        assert_eq!(pair(0xD83D, 0xDE00), Some('\u{1F600}'));
        assert_eq!(pair(0xDE00, 0xD83D), None);
        assert_eq!(pair(0xD83D, 0x0041), None);
        assert_eq!(single(0x0105, "\\u"), Ok('ą'));
        assert_eq!(
            single(0xD800, "\\u"),
            Err(
                "\\uD800 is the first half of a UTF-16 surrogate pair, and its second half does \
                 not follow it: write the character itself, or both halves (\\uD83D\\uDE00 is \
                 U+1F600)"
                    .to_owned()
            )
        );
        assert!(single(0xDFFF, "\\U").unwrap_err().starts_with(
            "\\UDFFF is the second half of a UTF-16 surrogate pair, and its first half does not"
        ));
        assert!(is_high(0xDBFF) && !is_high(0xDC00) && is_low(0xDC00) && !is_low(0xE000));
    }
}
