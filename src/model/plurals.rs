//! Plural rules per locale: which CLDR categories a language uses (from ICU4X's compiled
//! CLDR data, not a table of ours) and, for po, gettext's own `Plural-Forms` formula with
//! the CLDR category each of its slots stands for.

use icu_locale_core::Locale;
use icu_plurals::{PluralCategory as IcuCategory, PluralRules};

use super::PluralCategory;

/// The language subtag of a sheet locale code (`pt_BR` → `pt`), lower-cased.
fn language(locale: &str) -> String {
    locale
        .split(['_', '-'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

fn icu_rules(locale: &str) -> Option<PluralRules> {
    let tag = Locale::try_from_str(&locale.replace('_', "-"))
        .or_else(|_| Locale::try_from_str(&language(locale)))
        .ok()?;
    PluralRules::try_new_cardinal((&tag).into()).ok()
}

fn from_icu(category: IcuCategory) -> PluralCategory {
    match category {
        IcuCategory::Zero => PluralCategory::Zero,
        IcuCategory::One => PluralCategory::One,
        IcuCategory::Two => PluralCategory::Two,
        IcuCategory::Few => PluralCategory::Few,
        IcuCategory::Many => PluralCategory::Many,
        IcuCategory::Other => PluralCategory::Other,
    }
}

/// The CLDR cardinal categories `locale` uses, in CLDR order; `None` for a code CLDR
/// does not know (then no category is reported as unused).
pub fn categories(locale: &str) -> Option<Vec<PluralCategory>> {
    let rules = icu_rules(locale)?;
    let mut found: Vec<PluralCategory> = rules.categories().map(from_icu).collect();
    found.sort();
    Some(found)
}

/// The integers `required` looks at: every pattern of CLDR's integer rules (`n % 10`,
/// `n % 100`, the small numbers) shows within them.
const COUNTED: std::ops::RangeInclusive<u64> = 0..=1000;

/// A category a locale needs a form for, with the first numbers it stands for (for the
/// message that asks for it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Required {
    pub category: PluralCategory,
    /// Up to four numbers of `COUNTED` in this category, smallest first.
    pub examples: Vec<u64>,
}

/// The categories a plural entry of `locale` needs a form for: `other` (every format
/// falls back to it), and every category CLDR gives to some count from 0 to 1000 — the
/// numbers apps count. A category CLDR keeps for fractions (Polish `other`) or for
/// millions (the `many` of fr, es, it, pt, ca) is not required: for those numbers every
/// consumer takes `other`, and gettext has no slot for them either. `None` for a code
/// CLDR does not know.
pub fn required(locale: &str) -> Option<Vec<Required>> {
    let rules = icu_rules(locale)?;
    let mut found: Vec<Required> = Vec::new();
    for n in COUNTED {
        let category = from_icu(rules.category_for(n));
        match found.iter_mut().find(|r| r.category == category) {
            Some(r) if r.examples.len() < 4 => r.examples.push(n),
            Some(_) => {}
            None => found.push(Required {
                category,
                examples: vec![n],
            }),
        }
    }
    if !found.iter().any(|r| r.category == Other) {
        found.push(Required {
            category: Other,
            examples: Vec::new(),
        });
    }
    found.sort_by_key(|r| r.category);
    Some(found)
}

/// The CLDR category of the integer `n` in `locale` (tests compare gettext's formulas
/// with it).
pub fn category_for(locale: &str, n: u64) -> Option<PluralCategory> {
    Some(from_icu(icu_rules(locale)?.category_for(n)))
}

/// A gettext `Plural-Forms` rule: the header text, and the CLDR category of each slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GettextPlural {
    pub header: &'static str,
    pub slots: &'static [PluralCategory],
}

use PluralCategory::{Few, Many, One, Other, Two, Zero};

const ONLY_OTHER: GettextPlural = GettextPlural {
    header: "nplurals=1; plural=0;",
    slots: &[Other],
};
const NOT_ONE: GettextPlural = GettextPlural {
    header: "nplurals=2; plural=(n != 1);",
    slots: &[One, Other],
};
const ABOVE_ONE: GettextPlural = GettextPlural {
    header: "nplurals=2; plural=(n > 1);",
    slots: &[One, Other],
};
const EAST_SLAVIC: &str = "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);";

/// The formulas of gettext's own table (gettext-tools `plural-table.c`), by language;
/// `pt_BR` is looked up before `pt`. The slots were checked by hand against CLDR for en,
/// de, fr, pt_BR, pl, ru, uk, cs, ar and ja, and for every language here by the test
/// `gettext_slots_match_cldr_for_integers`, which compares each formula's slot with
/// ICU4X's category for 0..=1000.
fn gettext_table(key: &str) -> Option<GettextPlural> {
    Some(match key {
        "ja" | "ko" | "vi" | "zh" | "th" | "id" | "ms" => ONLY_OTHER,
        "en" | "de" | "nl" | "sv" | "da" | "no" | "nb" | "nn" | "fo" | "es" | "it" | "pt"
        | "bg" | "el" | "fi" | "et" | "he" | "eo" | "hu" | "tr" | "ca" => NOT_ONE,
        "fr" | "pt_br" => ABOVE_ONE,
        "ru" | "uk" | "be" => GettextPlural {
            header: EAST_SLAVIC,
            slots: &[One, Few, Many],
        },
        // Same formula; CLDR calls 5–20 `other` for these, not `many`.
        "sr" | "hr" | "bs" => GettextPlural {
            header: EAST_SLAVIC,
            slots: &[One, Few, Other],
        },
        "pl" => GettextPlural {
            header: "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
            slots: &[One, Few, Many],
        },
        "cs" | "sk" => GettextPlural {
            header: "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;",
            slots: &[One, Few, Other],
        },
        "lt" => GettextPlural {
            header: "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) ? 1 : 2);",
            slots: &[One, Few, Other],
        },
        "ro" => GettextPlural {
            header: "nplurals=3; plural=n==1 ? 0 : (n==0 || (n%100 > 0 && n%100 < 20)) ? 1 : 2;",
            slots: &[One, Few, Other],
        },
        "sl" => GettextPlural {
            header: "nplurals=4; plural=(n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3);",
            slots: &[One, Two, Few, Other],
        },
        "ar" => GettextPlural {
            header: "nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5;",
            slots: &[Zero, One, Two, Few, Many, Other],
        },
        _ => return None,
    })
}

/// The `Plural-Forms` of `locale`: gettext's formula where its table has the language;
/// otherwise `n != 1` when CLDR gives the language a `one`, else a single form.
pub fn gettext(locale: &str) -> GettextPlural {
    let full = locale.replace('-', "_").to_ascii_lowercase();
    gettext_table(&full)
        .or_else(|| gettext_table(&language(locale)))
        .unwrap_or_else(|| match categories(locale) {
            Some(found) if found.contains(&One) => NOT_ONE,
            _ => ONLY_OTHER,
        })
}

/// The `Plural-Forms` of `locale` with one slot per CLDR category, in CLDR's order, as
/// Weblate and Transifex write them (`po=cldr` in the settings cell): Polish, Russian and
/// Ukrainian get `nplurals=4` with `other` (fractions) last; a language whose gettext
/// formula already has CLDR's slots, that formula.
pub fn gettext_cldr(locale: &str) -> GettextPlural {
    const EAST_SLAVIC_CLDR: GettextPlural = GettextPlural {
        header: "nplurals=4; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : n%10==0 || (n%10>=5 && n%10<=9) || (n%100>=11 && n%100<=14) ? 2 : 3);",
        slots: &[One, Few, Many, Other],
    };
    match language(locale).as_str() {
        "pl" => GettextPlural {
            header: "nplurals=4; plural=(n==1 ? 0 : (n%10>=2 && n%10<=4) && (n%100<12 || n%100>14) ? 1 : n!=1 && (n%10>=0 && n%10<=1) || (n%10>=5 && n%10<=9) || (n%100>=12 && n%100<=14) ? 2 : 3);",
            slots: &[One, Few, Many, Other],
        },
        "ru" | "uk" => EAST_SLAVIC_CLDR,
        _ => gettext(locale),
    }
}

/// i18next JSON v3's numbered plural suffixes for `locale` (`KEY_0`, `KEY_1`, …, where a
/// language has other forms than one and other; else it has `KEY` and `KEY_plural`): the
/// CLDR category of each, that of the number i18next's own rule gives as the suffix's
/// example (i18next 20's `PluralResolver` sets, which 21–23 keep for
/// `compatibilityJSON: 'v3'`). A language of one form (ja, zh, ko, …) has `KEY_0` alone,
/// its `other` (whatever CLDR gives: i18next v3 asks for `KEY_0` at every count). `None`:
/// `KEY` and `KEY_plural`, or no rule.
pub fn i18next_numbered(locale: &str) -> Option<Vec<PluralCategory>> {
    let language = match language(locale).as_str() {
        "iw" => "he".to_owned(),
        other => other.to_owned(),
    };
    // i18next's set of `numbers: [1]`
    const ONE_FORM: [&str; 22] = [
        "ay", "bo", "cgg", "fa", "ht", "id", "ja", "jbo", "ka", "km", "ko", "ky", "lo", "ms",
        "sah", "su", "th", "tt", "ug", "vi", "wo", "zh",
    ];
    if ONE_FORM.contains(&language.as_str()) {
        return Some(vec![PluralCategory::Other]);
    }
    let examples: &[u64] = match language.as_str() {
        "be" | "bs" | "cnr" | "dz" | "hr" | "ru" | "sr" | "uk" | "cs" | "sk" | "csb" | "pl" => {
            &[1, 2, 5]
        }
        "ar" => &[0, 1, 2, 3, 11, 100],
        "cy" => &[1, 2, 3, 8],
        "ga" => &[1, 2, 3, 7, 11],
        "gd" => &[1, 2, 3, 20],
        "jv" => &[0, 1],
        "kw" => &[1, 2, 3, 4],
        "lt" => &[1, 2, 10],
        "lv" => &[1, 2, 0],
        "mnk" => &[0, 1, 2],
        "mt" => &[1, 2, 11, 20],
        "or" => &[2, 1],
        "ro" => &[1, 2, 20],
        "sl" => &[5, 1, 2, 3],
        "he" => &[1, 2, 20, 21],
        _ => return None,
    };
    (examples.iter())
        .map(|&n| category_for(&language, n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i18next_v3_numbers_are_the_categories_of_their_examples() {
        assert_eq!(i18next_numbered("pl_PL").unwrap(), [One, Few, Many]);
        assert_eq!(i18next_numbered("ru").unwrap(), [One, Few, Many]);
        // CLDR calls 5 `other` in Czech (`many` is for fractions)
        assert_eq!(i18next_numbered("cs").unwrap(), [One, Few, Other]);
        assert_eq!(
            i18next_numbered("ar").unwrap(),
            [Zero, One, Two, Few, Many, Other]
        );
        assert_eq!(i18next_numbered("sl").unwrap(), [Other, One, Two, Few]);
        // one form, `KEY_0`, whatever CLDR says (Persian has `one` there)
        for single in ["ja", "zh_Hant", "ko-KR", "fa", "vi"] {
            assert_eq!(i18next_numbered(single).unwrap(), [Other], "{single}");
        }
        for plural in ["en", "de", "fr", "pt_BR", "xx"] {
            assert_eq!(i18next_numbered(plural), None, "{plural}");
        }
    }

    #[test]
    fn cldr_ordered_slots_are_cldrs_categories() {
        for locale in ["pl", "ru", "uk_UA", "en", "ja", "ar"] {
            assert_eq!(
                gettext_cldr(locale).slots,
                categories(locale).unwrap().as_slice(),
                "{locale}"
            );
        }
    }

    #[test]
    fn categories_come_from_cldr() {
        assert_eq!(categories("en_US").unwrap(), vec![One, Other]);
        assert_eq!(categories("pl_PL").unwrap(), vec![One, Few, Many, Other]);
        assert_eq!(categories("ru").unwrap(), vec![One, Few, Many, Other]);
        assert_eq!(
            categories("ar").unwrap(),
            vec![Zero, One, Two, Few, Many, Other]
        );
        assert_eq!(categories("ja").unwrap(), vec![Other]);
        assert_eq!(category_for("pl", 22), Some(Few));
        assert_eq!(category_for("pl", 25), Some(Many));
    }

    #[test]
    fn required_categories_are_those_of_counts_and_other() {
        let names = |locale: &str| -> Vec<PluralCategory> {
            required(locale)
                .unwrap()
                .iter()
                .map(|r| r.category)
                .collect()
        };
        assert_eq!(names("en_US"), [One, Other]);
        assert_eq!(names("pl_PL"), [One, Few, Many, Other]);
        assert_eq!(names("ru"), [One, Few, Many, Other]);
        assert_eq!(names("ar"), [Zero, One, Two, Few, Many, Other]);
        assert_eq!(names("ja"), [Other]);
        // CLDR's `many` of French is for millions: `other` serves it everywhere
        assert_eq!(names("fr"), [One, Other]);
        assert!(categories("fr").unwrap().contains(&Many));
        let pl = required("pl").unwrap();
        assert_eq!(pl[1].examples, [2, 3, 4, 22]);
        assert_eq!(pl[3].examples, Vec::<u64>::new());
        assert_eq!(required("!!"), None);
    }

    #[test]
    fn gettext_counts_per_locale() {
        for (locale, n) in [("en_US", 2), ("pl_PL", 3), ("ru", 3), ("ar", 6), ("ja", 1)] {
            let rule = gettext(locale);
            assert_eq!(rule.slots.len(), n, "{locale}");
            assert!(
                rule.header.starts_with(&format!("nplurals={n};")),
                "{locale}"
            );
        }
        assert_eq!(gettext("pt_BR"), ABOVE_ONE);
        assert_eq!(gettext("pt_PT"), NOT_ONE);
    }

    /// Each formula, written out in Rust, slot by slot.
    fn slot(header: &str, n: u64) -> usize {
        let b = usize::from;
        match header {
            h if h == ONLY_OTHER.header => 0,
            h if h == NOT_ONE.header => b(n != 1),
            h if h == ABOVE_ONE.header => b(n > 1),
            h if h == EAST_SLAVIC => {
                if n % 10 == 1 && n % 100 != 11 {
                    0
                } else if (2..=4).contains(&(n % 10)) && (n % 100 < 10 || n % 100 >= 20) {
                    1
                } else {
                    2
                }
            }
            h if h.contains("plural=(n==1 ? 0 : n%10>=2") => {
                if n == 1 {
                    0
                } else if (2..=4).contains(&(n % 10)) && (n % 100 < 10 || n % 100 >= 20) {
                    1
                } else {
                    2
                }
            }
            h if h.contains("(n>=2 && n<=4)") => match n {
                1 => 0,
                2..=4 => 1,
                _ => 2,
            },
            h if h.contains("n%10>=2 && (n%100<10") => {
                if n % 10 == 1 && n % 100 != 11 {
                    0
                } else if n % 10 >= 2 && (n % 100 < 10 || n % 100 >= 20) {
                    1
                } else {
                    2
                }
            }
            h if h.contains("n%100 < 20") => {
                if n == 1 {
                    0
                } else if n == 0 || (1..20).contains(&(n % 100)) {
                    1
                } else {
                    2
                }
            }
            h if h.contains("n%100==3 || n%100==4") => match n % 100 {
                1 => 0,
                2 => 1,
                3 | 4 => 2,
                _ => 3,
            },
            h if h.starts_with("nplurals=6") => match (n, n % 100) {
                (0, _) => 0,
                (1, _) => 1,
                (2, _) => 2,
                (_, 3..=10) => 3,
                (_, 11..) => 4,
                _ => 5,
            },
            other => panic!("no Rust twin for {other}"),
        }
    }

    #[test]
    fn gettext_slots_match_cldr_for_integers() {
        let languages = [
            "ja", "ko", "vi", "zh", "th", "id", "ms", "en", "de", "nl", "sv", "da", "nb", "nn",
            "fo", "es", "it", "pt_PT", "bg", "el", "fi", "et", "he", "eo", "hu", "tr", "ca", "fr",
            "pt_BR", "ru", "uk", "be", "sr", "hr", "bs", "pl", "cs", "sk", "lt", "ro", "sl", "ar",
        ];
        for locale in languages {
            let rule = gettext(locale);
            for n in 0..=1000u64 {
                let cldr = category_for(locale, n).unwrap();
                let slot = slot(rule.header, n);
                // gettext has no slot for CLDR's `many` of millions (fr, es, it, pt, ca)
                // nor for Hebrew's `two`: those numbers take the slot of `other`. Its
                // Vietnamese has one form where CLDR 48 gives 0 and 1 a `one`.
                if rule.slots[slot] != cldr {
                    assert!(
                        rule.slots[slot] == Other
                            && (cldr == Two || (locale == "vi" && cldr == One)),
                        "{locale}: n={n} gettext slot {slot} ({:?}) but CLDR says {cldr:?}",
                        rule.slots[slot]
                    );
                }
            }
        }
    }
}
