//! resx names: a key path segment as a piece of a C# identifier (`Core_Labels_Yes`), which
//! is what Visual Studio's resource designer makes a property of. Its own file because
//! `flatten` builds every flat name with it while the resx renderer reads `flatten`'s names.

/// One key path segment as a piece of a C# identifier: letters and digits kept, anything
/// else `_` (each character as android's names lower-case it, so a resx name lower-cased
/// is the android name before its guard, and names meeting in resx meet in android); each
/// run between `_` starts upper-case, and a run written all in capitals continues lower
/// case (`CORE` → `Core`, `myKey` → `MyKey`, `LABELS_YES` → `Labels_Yes`).
pub(crate) fn push_name_segment(out: &mut String, segment: &str) {
    // Most keys are ASCII letters, digits and `_`: each word copied whole, cased in place.
    if segment
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        for (i, word) in segment.split('_').enumerate() {
            if i > 0 {
                out.push('_');
            }
            let start = out.len();
            out.push_str(word);
            end_word(out, start, word.bytes().any(|b| b.is_ascii_lowercase()));
        }
        return;
    }
    let mut word = out.len();
    let mut word_has_lower = false;
    for c in segment.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
            word_has_lower |= c.is_ascii_lowercase();
            continue;
        }
        for lower in c.to_lowercase() {
            if lower.is_ascii_alphanumeric() {
                out.push(lower);
                word_has_lower |= lower.is_ascii_lowercase();
            } else {
                end_word(out, word, word_has_lower);
                out.push('_');
                word = out.len();
                word_has_lower = false;
            }
        }
    }
    end_word(out, word, word_has_lower);
}

/// Cases the word that starts at `out[start..]` (ASCII letters and digits).
fn end_word(out: &mut str, start: usize, has_lower: bool) {
    let Some(word) = out.get_mut(start..) else {
        return;
    };
    if !has_lower {
        word.make_ascii_lowercase();
    }
    if let Some(first) = word.get_mut(..1) {
        first.make_ascii_uppercase();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(segment: &str) -> String {
        let mut out = String::new();
        push_name_segment(&mut out, segment);
        out
    }

    #[test]
    fn segments_become_pascal_case_identifier_pieces() {
        assert_eq!(name("CORE"), "Core");
        assert_eq!(name("LABELS_YES"), "Labels_Yes");
        assert_eq!(name("myKey"), "MyKey");
        assert_eq!(name("HTTPServer"), "HTTPServer");
        assert_eq!(name("a-b c"), "A_B_C");
        assert_eq!(name("1ST"), "1st");
        assert_eq!(name("Zażółć"), "Za____");
        assert_eq!(name("__x__"), "__X__");
        assert_eq!(name("SECTION_12_aB_"), "Section_12_AB_");
        // lower-cased, what android's names are
        for segment in [
            "CORE",
            "myKey",
            "a-b c",
            "Zażółć",
            "İx",
            "\u{212A}ey",
            "S_1_aB_",
        ] {
            let mut android = String::new();
            for c in segment.chars().flat_map(char::to_lowercase) {
                android.push(if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                });
            }
            assert_eq!(name(segment).to_ascii_lowercase(), android, "{segment}");
        }
    }
}
