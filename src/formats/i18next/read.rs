//! i18next JSON v4 (`locales/<lng>/<ns>.json`): nested keys, `{{name}}` placeholders,
//! plurals as `key_one`/`key_other` siblings (`key_ordinal_*` forms are not carried); JSON
//! v3's `key`/`key_plural` pair is a plural too, and so are its numbered `key_0`, `key_1`,
//! … in languages with other forms than one and other, when the file has every suffix
//! i18next v3 gives the language (the reading says so); `key_0` alone in a language of one
//! form (ja, zh, ko, …) only in an app known to be v3 (`Options::i18next_v3`). Context
//! suffixes (`key_male`) are keys of their own. An empty text is left in the app's file
//! (`Reading::keep`).

use crate::formats::reading::{Reading, SyntaxError};
use crate::formats::shared::nested::{self, Style};

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    nested::read(crate::formats::json::read::parse(text)?, Style::I18next, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::reading::{Options, Value};
    use crate::model::PluralCategory;

    /// `json` read as the file of `locale`.
    fn read_in<'o>(options: &'o Options, locale: &str, json: &str) -> Reading<'o> {
        let mut r = Reading::new(options);
        r.named = Some(locale.into());
        read(json, &mut r).unwrap();
        r
    }

    fn units(r: Reading<'_>) -> Vec<(String, Value)> {
        (r.units.into_iter())
            .map(|u| (u.key.display(), u.value))
            .collect()
    }

    #[test]
    fn suffixes_make_plurals_and_double_braces_placeholders() {
        let options = Options::default();
        let r = read_in(
            &options,
            "en-US",
            r#"{"app":{"files_one":"{{count}} file","title":"Hi {{name}}","files_other":"{{count}} files","rank_ordinal_one":"1st"}}"#,
        );
        let got = units(r);
        assert_eq!(
            got,
            vec![
                (
                    "app.files".into(),
                    Value::Plural(vec![
                        (PluralCategory::One, "{count} file".into()),
                        (PluralCategory::Other, "{count} files".into())
                    ])
                ),
                ("app.title".into(), Value::Text("Hi {name}".into())),
                ("app.rank_ordinal_one".into(), Value::Text("1st".into())),
            ]
        );
    }

    #[test]
    fn json_v3_plural_pairs_are_plurals_and_contexts_keys() {
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(
            r#"{"item_plural":"{{count}} items","item":"{{count}} item","friend_male":"He","friend_female":"She","lone_plural":"x"}"#,
            &mut r,
        )
        .unwrap();
        assert!(r.implies.i18next_v3);
        let got = units(r);
        assert_eq!(
            got,
            vec![
                (
                    "item".into(),
                    Value::Plural(vec![
                        (PluralCategory::Other, "{count} items".into()),
                        (PluralCategory::One, "{count} item".into())
                    ])
                ),
                ("friend_male".into(), Value::Text("He".into())),
                ("friend_female".into(), Value::Text("She".into())),
                ("lone_plural".into(), Value::Text("x".into())),
            ]
        );
        let mut v4 = Reading::new(&options);
        read(r#"{"a_one":"1","a_other":"n","a":"x"}"#, &mut v4).unwrap();
        assert!(!v4.implies.i18next_v3);
    }

    #[test]
    fn json_v3_numbered_forms_are_the_languages_categories() {
        let options = Options::default();
        let read_as = |locale: &str, json: &str| {
            let r = read_in(&options, locale, json);
            (r.implies.i18next_v3, units(r))
        };
        let forms = |pairs: &[(PluralCategory, &str)]| {
            Value::Plural(pairs.iter().map(|(c, t)| (*c, (*t).to_owned())).collect())
        };
        use PluralCategory::{Few, Many, One, Other};
        // Polish: one, few, many; `other` (fractions) takes the catch-all's text
        assert_eq!(
            read_as(
                "pl",
                r#"{"a_0":"1","a_1":"2","a_2":"5","s_1":"x","s_2":"y","s_3":"z"}"#
            ),
            (
                true,
                vec![
                    (
                        "a".into(),
                        forms(&[(One, "1"), (Few, "2"), (Many, "5"), (Other, "5")])
                    ),
                    ("s_1".into(), Value::Text("x".into())),
                    ("s_2".into(), Value::Text("y".into())),
                    ("s_3".into(), Value::Text("z".into())),
                ]
            )
        );
        // Czech: the third is `other`
        assert_eq!(
            read_as("cs", r#"{"a_0":"1","a_1":"2","a_2":"5"}"#).1,
            vec![("a".into(), forms(&[(One, "1"), (Few, "2"), (Other, "5")]))]
        );
        // not every form, or a language with `KEY_plural`: keys
        assert!(!read_as("pl", r#"{"a_0":"1","a_1":"2"}"#).0);
        assert!(!read_as("en", r#"{"a_0":"1","a_1":"2"}"#).0);
        // one form (Japanese): `KEY_0` is its plural only in an app known to be v3
        let json = r#"{"a_0":"n","b_0":"x","b_1":"y"}"#;
        let keys = vec![
            ("a_0".into(), Value::Text("n".into())),
            ("b_0".into(), Value::Text("x".into())),
            ("b_1".into(), Value::Text("y".into())),
        ];
        assert_eq!(read_as("ja", json), (false, keys));
        let v3 = Options {
            i18next_v3: true,
            ..Options::default()
        };
        let r = read_in(&v3, "ja_JP", json);
        assert!(r.implies.i18next_v3 && r.v3_numbered);
        assert_eq!(
            units(r),
            vec![
                ("a".into(), forms(&[(Other, "n")])),
                ("b_0".into(), Value::Text("x".into())),
                ("b_1".into(), Value::Text("y".into())),
            ]
        );
    }

    /// A key's suffix is told by its last `_`: a base must precede it, a number is one
    /// written plainly, a form must be a text; keys that are none of these stay keys.
    #[test]
    fn keys_whose_suffix_only_looks_plural_stay_keys() {
        let options = Options::default();
        let r = read_in(
            &options,
            "pl",
            r#"{"_plural":"a","x_":"c","n_01":"d","a__plural":"e","a_":"f","m_0":"1","m_1":"2","m_2":"5","m_3":"9","k_0":"1","k_1":"2","k_2":"3","o_other":{"k":"v"},"o_one":"w"}"#,
        );
        assert!(r.implies.i18next_v3 && r.v3_numbered);
        use PluralCategory::{Few, Many, One, Other};
        let text = |t: &str| Value::Text(t.into());
        let forms = |pairs: &[(PluralCategory, &str)]| {
            Value::Plural(pairs.iter().map(|(c, t)| (*c, (*t).to_owned())).collect())
        };
        assert_eq!(
            units(r),
            vec![
                ("_plural".into(), text("a")),
                ("x_".into(), text("c")),
                ("n_01".into(), text("d")),
                ("a_".into(), forms(&[(Other, "e"), (One, "f")])),
                ("m_0".into(), text("1")),
                ("m_1".into(), text("2")),
                ("m_2".into(), text("5")),
                ("m_3".into(), text("9")),
                (
                    "k".into(),
                    forms(&[(One, "1"), (Few, "2"), (Many, "3"), (Other, "3")])
                ),
                ("o_other.k".into(), text("v")),
                ("o_one".into(), text("w")),
            ]
        );
    }
}
