//! i18next JSON v4 (`locales/<lng>/<ns>.json`): nested keys, `{{name}}` placeholders,
//! plurals as `key_one`/`key_other` siblings (`key_ordinal_*` forms are not carried).

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

    #[test]
    fn suffixes_make_plurals_and_double_braces_placeholders() {
        let options = Options::default();
        let mut r = Reading::new(&options);
        r.named = Some("en-US".into());
        read(
            r#"{"app":{"files_one":"{{count}} file","title":"Hi {{name}}","files_other":"{{count}} files","rank_ordinal_one":"1st"}}"#,
            &mut r,
        )
        .unwrap();
        let got: Vec<(String, Value)> = r
            .units
            .into_iter()
            .map(|u| (u.key.display(), u.value))
            .collect();
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
}
