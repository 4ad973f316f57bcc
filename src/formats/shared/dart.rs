//! ARB message ids: a key path as one lowerCamelCase Dart identifier (`CORE.LABELS.YES` →
//! `coreLabelsYes`), which is what Flutter's gen-l10n makes a getter or method of. Its
//! rule (`_isValidGetterAndMethodName` in flutter_tools `gen_l10n.dart`): not empty, only
//! `[a-zA-Z0-9_$]`, not starting with `_`, an upper-case letter or a digit; and the
//! generated Dart must compile, so no reserved word and no member the generated class
//! already has.

/// Appends `path`'s message id to `out`. Words are split at anything that is not an ASCII
/// letter or digit (so `_`, `-`, spaces and non-ASCII letters are dropped) and where the
/// case changes (`userName`, `HTTPServer` → `http`, `Server`); the first word is written
/// in lower case, every other one capitalised. An id that would be empty, start with a
/// digit or be a reserved name gets the prefix `key` (`1ST` → `key1st`, `NEW` → `keyNew`).
pub(crate) fn push_message_id<S: AsRef<str>>(out: &mut String, path: &[S]) {
    let start = out.len();
    let mut first = true;
    for segment in path {
        push_words(out, segment.as_ref().as_bytes(), &mut first);
    }
    let id = &out[start..];
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) || is_reserved(id) {
        let mut rest = out.split_off(start);
        out.push_str("key");
        if let Some(first) = rest.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        out.push_str(&rest);
    }
}

/// The words of one segment, each lower-cased and (but for the very first) capitalised.
fn push_words(out: &mut String, segment: &[u8], first: &mut bool) {
    let mut i = 0;
    while i < segment.len() {
        if !segment[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < segment.len() && segment[i].is_ascii_alphanumeric() && !word_starts(segment, i) {
            i += 1;
        }
        for (k, &b) in segment[start..i].iter().enumerate() {
            let capital = k == 0 && !*first;
            out.push(char::from(if capital {
                b.to_ascii_uppercase()
            } else {
                b.to_ascii_lowercase()
            }));
        }
        *first = false;
    }
}

/// Whether a new word starts at `i` (inside a run of ASCII letters and digits): at a
/// capital after a lower-case letter (`userName`), or at a capital followed by a
/// lower-case letter after a capital or a digit (`HTTPServer`, `page2Title`; but `1ST`
/// stays one word).
fn word_starts(s: &[u8], i: usize) -> bool {
    let (prev, here) = (s[i - 1], s[i]);
    if !here.is_ascii_uppercase() {
        return false;
    }
    prev.is_ascii_lowercase()
        || ((prev.is_ascii_uppercase() || prev.is_ascii_digit())
            && s.get(i + 1).is_some_and(u8::is_ascii_lowercase))
}

fn is_reserved(id: &str) -> bool {
    RESERVED.binary_search(&id).is_ok()
}

/// Dart's reserved words (they cannot name a getter) and the members every class that
/// gen-l10n generates already has (`localeName`, and the statics `delegate`,
/// `localizationsDelegates`, `of`, `supportedLocales`), sorted for `binary_search`.
const RESERVED: [&str; 38] = [
    "assert",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "default",
    "delegate",
    "do",
    "else",
    "enum",
    "extends",
    "false",
    "final",
    "finally",
    "for",
    "if",
    "in",
    "is",
    "localeName",
    "localizationsDelegates",
    "new",
    "null",
    "of",
    "rethrow",
    "return",
    "super",
    "supportedLocales",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "var",
    "void",
    "while",
    "with",
];

/// gen-l10n's own test of a message id, and a Dart compiler's (no reserved name).
#[cfg(test)]
pub(crate) fn is_valid_message_id(id: &str) -> bool {
    let mut chars = id.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '$');
    first_ok
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !is_reserved(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn id(path: &str) -> String {
        let path: Vec<String> = path.split('.').map(str::to_owned).collect();
        let mut out = String::from("keep ");
        push_message_id(&mut out, &path);
        out.split_off("keep ".len())
    }

    #[test]
    fn reserved_names_are_sorted_for_binary_search() {
        assert!(RESERVED.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn key_paths_become_lower_camel_case_dart_identifiers() {
        assert_eq!(id("CORE.LABELS.YES"), "coreLabelsYes");
        assert_eq!(id("APP.FILES_COUNT"), "appFilesCount");
        assert_eq!(id("settings.userName"), "settingsUserName");
        assert_eq!(id("HTTPServer.url"), "httpServerUrl");
        assert_eq!(id("page2Title.K01"), "page2TitleK01");
        assert_eq!(id("a-b c.ZAŻÓŁĆ"), "aBCZa");
        assert_eq!(id("1ST.A"), "key1stA");
        assert_eq!(id("NEW"), "keyNew");
        assert_eq!(id("of"), "keyOf");
        assert_eq!(id("_"), "key");
        assert_eq!(id("Ünïcode"), "nCode");
    }

    proptest! {
        #[test]
        fn every_path_gives_an_id_gen_l10n_accepts(
            path in prop::collection::vec("\\PC{0,8}|[A-Za-z0-9_ -]{0,8}", 1..4)
        ) {
            let mut out = String::new();
            push_message_id(&mut out, &path);
            prop_assert!(is_valid_message_id(&out), "{:?} -> {}", path, out);
        }
    }
}
