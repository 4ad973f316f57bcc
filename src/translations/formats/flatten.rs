//! Flat names for android, ios, xlf and po: the key path joined with `_` and lower-cased,
//! prefixed with the lower-cased locale and `_` when the output holds several locales (or
//! `keep_locale`). Conflicts are settled here once, so every flat format drops the same keys.

use crate::translations::formats::fxhash::{FxHashMap, FxHashSet};

use crate::translations::model::{Document, Entry, Selection};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NameStyle {
    /// Lower-cased only (ios, xlf, po escape whatever remains).
    Plain,
    /// Also anything outside `[a-z0-9_]` becomes `_`, and a name that aapt2 or the
    /// generated `R` class would refuse (empty, leading digit, Java keyword, `_`) gets a
    /// leading `_`.
    Android,
}

/// One locale of the flat output.
pub(super) struct FlatLocale<'a> {
    pub(super) locale: usize,
    pub(super) code: &'a str,
    /// Empty, or e.g. `en_us_`.
    pub(super) prefix: String,
    entries: &'a [usize],
}

/// One key of one locale, in output order.
pub(super) struct FlatKey<'a> {
    pub(super) entry: &'a Entry,
    pub(super) prefix: &'a str,
    pub(super) base: &'a str,
    pub(super) text: &'a str,
}

impl FlatKey<'_> {
    /// The key path as the sheet writes it, for messages and xlf ids.
    pub(super) fn dotted_path(&self) -> String {
        self.entry.path.join(".")
    }
}

pub(super) struct Flat<'a> {
    pub(super) doc: &'a Document,
    pub(super) locales: Vec<FlatLocale<'a>>,
    /// Every selected entry's name without prefix, back to back; `spans[e]` is entry `e`'s.
    names: String,
    spans: Vec<(usize, usize)>,
    /// (position in `locales`, entry) pairs that lost a name conflict.
    dropped: FxHashSet<(usize, usize)>,
    pub(super) warnings: Vec<String>,
}

impl<'a> Flat<'a> {
    pub(super) fn build(
        doc: &'a Document,
        sel: &'a Selection,
        style: NameStyle,
        keep_locale: bool,
    ) -> Flat<'a> {
        let mut locales: Vec<FlatLocale<'a>> = sel
            .locales
            .iter()
            .filter(|ls| !ls.entries.is_empty())
            .map(|ls| FlatLocale {
                locale: ls.locale,
                code: &doc.locales[ls.locale],
                prefix: String::new(),
                entries: &ls.entries,
            })
            .collect();
        let prefixed = keep_locale || locales.len() > 1;
        if prefixed {
            for loc in &mut locales {
                let mut prefix = String::with_capacity(loc.code.len() + 1);
                push_lowered(&mut prefix, loc.code, style);
                prefix.push('_');
                if style == NameStyle::Android {
                    guard_java_name(&mut prefix);
                }
                loc.prefix = prefix;
            }
        }

        let mut wanted = vec![false; doc.entries.len()];
        for loc in &locales {
            for &e in loc.entries {
                wanted[e] = true;
            }
        }
        let mut names = String::new();
        let mut spans = vec![(0, 0); doc.entries.len()];
        let mut scratch = String::new();
        for (e, entry) in doc.entries.iter().enumerate() {
            if !wanted[e] {
                continue;
            }
            let start = names.len();
            if style == NameStyle::Android && !prefixed {
                // The guard depends on the whole name, so build it apart first.
                scratch.clear();
                push_path_name(&mut scratch, &entry.path, style);
                guard_java_name(&mut scratch);
                names.push_str(&scratch);
            } else {
                push_path_name(&mut names, &entry.path, style);
            }
            spans[e] = (start, names.len());
        }

        let mut flat = Flat {
            doc,
            locales,
            names,
            spans,
            dropped: FxHashSet::default(),
            warnings: Vec::new(),
        };
        flat.find_conflicts(&wanted);
        flat
    }

    fn base(&self, entry: usize) -> &str {
        let (start, end) = self.spans[entry];
        &self.names[start..end]
    }

    /// The selected keys of one locale that have a text, conflict losers left out.
    pub(super) fn keys<'s>(
        &'s self,
        pos: usize,
        loc: &'s FlatLocale<'a>,
    ) -> impl Iterator<Item = FlatKey<'s>> + 's {
        loc.entries.iter().filter_map(move |&e| {
            if !self.dropped.is_empty() && self.dropped.contains(&(pos, e)) {
                return None;
            }
            let entry = &self.doc.entries[e];
            let text = entry.texts.get(loc.locale)?.as_deref()?;
            Some(FlatKey {
                entry,
                prefix: &loc.prefix,
                base: self.base(e),
                text,
            })
        })
    }

    /// Names are prefix + base. When no prefix is a prefix of another (always, unless two
    /// locale codes clash like `en` and `en_core`), names of different locales cannot
    /// meet, so it is enough to compare bases within each locale, by group ids computed
    /// once. Otherwise every full name is compared.
    fn find_conflicts(&mut self, wanted: &[bool]) {
        let prefix_free = self.locales.iter().enumerate().all(|(i, a)| {
            self.locales
                .iter()
                .enumerate()
                .all(|(j, b)| i == j || !b.prefix.starts_with(a.prefix.as_str()))
        });
        let mut reported = FxHashSet::default();
        let mut dropped = Vec::new();
        if prefix_free {
            // group[e]: the first selected entry with the same base name
            let mut first_by_name: FxHashMap<&str, usize> =
                FxHashMap::with_capacity_and_hasher(self.spans.len(), Default::default());
            let mut group: Vec<usize> = (0..self.doc.entries.len()).collect();
            let mut any_shared = false;
            for (e, _) in wanted.iter().enumerate().filter(|(_, w)| **w) {
                let first = *first_by_name.entry(self.base(e)).or_insert(e);
                group[e] = first;
                any_shared |= first != e;
            }
            if !any_shared {
                return;
            }
            let mut stamp = vec![usize::MAX; self.doc.entries.len()];
            let mut kept_by = vec![0usize; self.doc.entries.len()];
            for (pos, loc) in self.locales.iter().enumerate() {
                for &e in loc.entries {
                    if !has_text(self.doc, e, loc.locale) {
                        continue;
                    }
                    let g = group[e];
                    if stamp[g] == pos {
                        dropped.push((pos, kept_by[g], e));
                    } else {
                        stamp[g] = pos;
                        kept_by[g] = e;
                    }
                }
            }
        } else {
            let mut seen: FxHashMap<String, usize> = FxHashMap::default();
            for (pos, loc) in self.locales.iter().enumerate() {
                for &e in loc.entries {
                    if !has_text(self.doc, e, loc.locale) {
                        continue;
                    }
                    let name = format!("{}{}", loc.prefix, self.base(e));
                    match seen.get(&name) {
                        Some(&kept) => dropped.push((pos, kept, e)),
                        None => {
                            seen.insert(name, e);
                        }
                    }
                }
            }
        }
        for (pos, kept, lost) in dropped {
            self.dropped.insert((pos, lost));
            if reported.insert((kept, lost)) {
                let loc = &self.locales[pos];
                self.warnings.push(format!(
                    "keys '{}' and '{}' both become the name '{}{}'; kept '{}', left out '{}'",
                    self.doc.entries[kept].path.join("."),
                    self.doc.entries[lost].path.join("."),
                    loc.prefix,
                    self.base(lost),
                    self.doc.entries[kept].path.join("."),
                    self.doc.entries[lost].path.join("."),
                ));
            }
        }
    }
}

fn has_text(doc: &Document, entry: usize, locale: usize) -> bool {
    doc.entries[entry]
        .texts
        .get(locale)
        .is_some_and(Option::is_some)
}

fn push_path_name(out: &mut String, path: &[String], style: NameStyle) {
    for (i, segment) in path.iter().enumerate() {
        if i > 0 {
            out.push('_');
        }
        push_lowered(out, segment, style);
    }
}

fn push_lowered(out: &mut String, s: &str, style: NameStyle) {
    // Most keys are ASCII letters, digits and `_`: one copy, lower-cased in place.
    let plain = match style {
        NameStyle::Plain => s.is_ascii(),
        NameStyle::Android => s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
    };
    if plain {
        let start = out.len();
        out.push_str(s);
        out[start..].make_ascii_lowercase();
        return;
    }
    let keep = |c: char| match style {
        NameStyle::Plain => c,
        NameStyle::Android if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' => c,
        NameStyle::Android => '_',
    };
    for c in s.chars() {
        out.extend(c.to_lowercase().map(keep));
    }
}

/// aapt2 refuses an entry name that is empty or starts with a digit; the generated `R`
/// class cannot hold a Java keyword (nor `_`, a keyword since Java 9). A leading `_`
/// fixes all of these and is itself allowed by aapt2.
fn guard_java_name(name: &mut String) {
    while name.is_empty()
        || name.starts_with(|c: char| c.is_ascii_digit())
        || JAVA_RESERVED.binary_search(&name.as_str()).is_ok()
    {
        name.insert(0, '_');
    }
}

/// Java keywords and literals, sorted for `binary_search`.
const JAVA_RESERVED: [&str; 54] = [
    "_",
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "false",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "true",
    "try",
    "void",
    "volatile",
    "while",
];

/// What aapt2 accepts as a resource entry name, restricted to the ASCII this module
/// writes, and what javac accepts in `R`.
#[cfg(test)]
pub(super) fn is_valid_android_name(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
    first_ok
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && JAVA_RESERVED.binary_search(&name).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::translations::model::LocaleSelection;

    fn doc(locales: &[&str], paths: &[&str]) -> Document {
        Document {
            locales: locales.iter().map(|l| l.to_string()).collect(),
            entries: paths
                .iter()
                .map(|p| Entry {
                    path: p.split('.').map(str::to_owned).collect(),
                    texts: locales.iter().map(|_| Some(format!("text {p}"))).collect(),
                    ..Entry::default()
                })
                .collect(),
            warnings: Vec::new(),
        }
    }

    fn names(flat: &Flat<'_>) -> Vec<String> {
        let mut out = Vec::new();
        for (pos, loc) in flat.locales.iter().enumerate() {
            for key in flat.keys(pos, loc) {
                out.push(format!("{}{}", key.prefix, key.base));
            }
        }
        out
    }

    #[test]
    fn java_reserved_is_sorted_for_binary_search() {
        assert!(JAVA_RESERVED.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn single_locale_names_have_no_prefix_and_keep_locale_adds_it() {
        let d = doc(&["en_US", "pl"], &["CORE.LABELS.YES"]);
        let all = Selection::all(&d);
        let sel = Selection {
            locales: vec![LocaleSelection {
                locale: 0,
                entries: vec![0],
            }],
        };
        let flat = Flat::build(&d, &sel, NameStyle::Plain, false);
        assert_eq!(names(&flat), ["core_labels_yes"]);
        let flat = Flat::build(&d, &sel, NameStyle::Plain, true);
        assert_eq!(names(&flat), ["en_us_core_labels_yes"]);
        let flat = Flat::build(&d, &all, NameStyle::Plain, false);
        assert_eq!(
            names(&flat),
            ["en_us_core_labels_yes", "pl_core_labels_yes"]
        );
    }

    #[test]
    fn android_names_map_to_a_z_0_9_and_get_guarded() {
        let d = doc(&["en-GB"], &["Ünïcode key.x-y", "1ST.A", "NEW", "_"]);
        let all = Selection::all(&d);
        let flat = Flat::build(&d, &all, NameStyle::Android, false);
        assert_eq!(names(&flat), ["_n_code_key_x_y", "_1st_a", "_new", "__"]);
        let flat = Flat::build(&d, &all, NameStyle::Android, true);
        assert_eq!(
            names(&flat),
            [
                "en_gb__n_code_key_x_y",
                "en_gb_1st_a",
                "en_gb_new",
                "en_gb__"
            ]
        );
        assert!(names(&flat).iter().all(|n| is_valid_android_name(n)));
    }

    #[test]
    fn plain_names_keep_unicode_lower_cased() {
        let d = doc(&["pl"], &["ZAŻÓŁĆ.Gęślą"]);
        let all = Selection::all(&d);
        let flat = Flat::build(&d, &all, NameStyle::Plain, false);
        assert_eq!(names(&flat), ["zażółć_gęślą"]);
    }

    #[test]
    fn conflicting_names_keep_the_first_and_warn_once() {
        let d = doc(&["en", "pl"], &["A.B_C", "A_B.C", "X", "a.b.c"]);
        let all = Selection::all(&d);
        let flat = Flat::build(&d, &all, NameStyle::Plain, false);
        assert_eq!(
            names(&flat),
            ["en_a_b_c", "en_x", "pl_a_b_c", "pl_x"],
            "the second and fourth keys lose in both locales"
        );
        assert_eq!(
            flat.warnings,
            [
                "keys 'A.B_C' and 'A_B.C' both become the name 'en_a_b_c'; kept 'A.B_C', left out 'A_B.C'",
                "keys 'A.B_C' and 'a.b.c' both become the name 'en_a_b_c'; kept 'A.B_C', left out 'a.b.c'",
            ]
        );
    }

    #[test]
    fn first_kept_is_relative_to_what_the_locale_selected() {
        let d = doc(&["en"], &["A.B", "A_B"]);
        let sel = Selection {
            locales: vec![LocaleSelection {
                locale: 0,
                entries: vec![1],
            }],
        };
        let flat = Flat::build(&d, &sel, NameStyle::Plain, false);
        assert_eq!(names(&flat), ["a_b"]);
        assert!(flat.warnings.is_empty());
    }

    #[test]
    fn clashing_locale_prefixes_are_compared_by_full_name() {
        // `en` + `core_x` and `en_core` + `x` meet at `en_core_x`.
        let d = doc(&["en", "en_core"], &["CORE.X", "X"]);
        let all = Selection::all(&d);
        let flat = Flat::build(&d, &all, NameStyle::Plain, false);
        assert_eq!(names(&flat), ["en_core_x", "en_x", "en_core_core_x"]);
        assert_eq!(
            flat.warnings,
            ["keys 'CORE.X' and 'X' both become the name 'en_core_x'; kept 'CORE.X', left out 'X'"]
        );
    }
}
