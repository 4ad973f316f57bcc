//! Locale names per target (SPEC §14, `translations.locales`): the name a format's files and
//! locale fields, or an SDK layout's URLs and lists, give a locale of the sheet (`zh_Hant` →
//! `zh-TW`), for one target or for every one (`"*"`). A target derives its own names from
//! it as from a sheet code (`zh-TW` is Android's `values-zh-rTW`, Apple's `zh-TW.lproj`).

use crate::formats::Format;
use crate::model::locale::same_locale;
use thiserror::Error;

/// The target of names every target takes (a target's own entry wins).
pub const EVERY: &str = "*";
/// The SDK layouts' targets; `i18next` is also the format's (the same library reads both).
pub const LAYOUTS: [&str; 2] = ["i18next", "tolgee"];

/// `translations.locales`, as `target:locale=name` items.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocaleNames {
    /// (target, the sheet's locale, its name there), in the order written.
    entries: Vec<(String, String, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LocaleNamesError {
    #[error("'{0}' is not TARGET:LOCALE=NAME (e.g. *:zh_Hant=zh-TW or android:pt_BR=pt-BR)")]
    Malformed(String),
    #[error("unknown target '{target}': one of {}", targets().join(", "))]
    UnknownTarget { target: String },
    #[error(
        "the name '{name}' of {locale} (target {target}) cannot name a file: it is empty or \
         holds '/', '\\', '..', a space or a control character"
    )]
    UnsafeName {
        target: String,
        locale: String,
        name: String,
    },
    #[error("target {target}: {locale} is named twice")]
    Twice { target: String, locale: String },
}

/// Every target name: `*`, the formats and the SDK layouts.
pub fn targets() -> Vec<&'static str> {
    let mut all = vec![EVERY];
    all.extend(Format::ALL.map(Format::name));
    for layout in LAYOUTS {
        if !all.contains(&layout) {
            all.push(layout);
        }
    }
    all
}

impl LocaleNames {
    /// Reads `target:locale=name` items (what the configuration layers keep).
    pub fn parse(items: &[String]) -> Result<LocaleNames, LocaleNamesError> {
        let mut entries: Vec<(String, String, String)> = Vec::with_capacity(items.len());
        for item in items {
            let malformed = || LocaleNamesError::Malformed(item.clone());
            let (target, rest) = item.split_once(':').ok_or_else(malformed)?;
            let (locale, name) = rest.split_once('=').ok_or_else(malformed)?;
            let (target, locale, name) = (target.trim(), locale.trim(), name.trim());
            if locale.is_empty() {
                return Err(malformed());
            }
            if !targets().contains(&target) {
                return Err(LocaleNamesError::UnknownTarget {
                    target: target.to_owned(),
                });
            }
            let unsafe_name = name.is_empty()
                || name.contains("..")
                || (name.chars())
                    .any(|c| matches!(c, '/' | '\\') || c.is_whitespace() || c.is_control());
            if unsafe_name {
                return Err(LocaleNamesError::UnsafeName {
                    target: target.to_owned(),
                    locale: locale.to_owned(),
                    name: name.to_owned(),
                });
            }
            if (entries.iter()).any(|(t, l, _)| t == target && same_locale(l, locale)) {
                return Err(LocaleNamesError::Twice {
                    target: target.to_owned(),
                    locale: locale.to_owned(),
                });
            }
            entries.push((target.to_owned(), locale.to_owned(), name.to_owned()));
        }
        Ok(LocaleNames { entries })
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The name `target` gives the sheet's locale `code`: its own entry, else `*`'s.
    pub fn name(&self, target: &str, code: &str) -> Option<&str> {
        let of = |wanted: &str| {
            (self.entries.iter())
                .find(|(t, l, _)| t == wanted && same_locale(l, code))
                .map(|(_, _, name)| name.as_str())
        };
        of(target).or_else(|| of(EVERY))
    }

    /// `locales` as `target` names them (a locale without a name as it is).
    pub fn renamed(&self, target: &str, locales: &[String]) -> Vec<String> {
        (locales.iter())
            .map(|code| self.name(target, code).unwrap_or(code).to_owned())
            .collect()
    }

    /// The locale of `locales` that `asked` names for `target`: by its name there, else by
    /// its sheet code or BCP 47 form (`pt_BR`, `pt-BR`), in any case.
    pub fn position(&self, target: &str, locales: &[String], asked: &str) -> Option<usize> {
        (locales.iter())
            .position(|code| {
                self.name(target, code)
                    .is_some_and(|n| same_locale(n, asked))
            })
            .or_else(|| locales.iter().position(|code| same_locale(code, asked)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(items: &[&str]) -> Result<LocaleNames, LocaleNamesError> {
        LocaleNames::parse(&items.iter().map(|i| i.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn a_target_takes_its_own_name_else_every_targets() {
        let n = names(&["*:zh_Hant=zh-TW", "*:pt_BR=pt-BR", "ios:zh_Hant=zh-Hant"]).unwrap();
        assert_eq!(n.name("android", "zh_Hant"), Some("zh-TW"));
        assert_eq!(n.name("ios", "zh-hant"), Some("zh-Hant"));
        assert_eq!(n.name("tolgee", "pt_BR"), Some("pt-BR"));
        assert_eq!(n.name("tolgee", "de"), None);
        let locales = ["en".to_owned(), "zh_Hant".to_owned()];
        assert_eq!(n.renamed("json", &locales), ["en", "zh-TW"]);
        // a URL names a locale by its name there, or by the sheet's code
        assert_eq!(n.position("i18next", &locales, "zh-tw"), Some(1));
        assert_eq!(n.position("i18next", &locales, "zh_Hant"), Some(1));
        assert_eq!(n.position("ios", &locales, "zh-TW"), None);
        assert_eq!(n.position("ios", &locales, "EN"), Some(0));
    }

    #[test]
    fn bad_items_are_refused_naming_what_is_wrong() {
        for (items, message) in [
            (
                &["zh_Hant=zh-TW"][..],
                "'zh_Hant=zh-TW' is not TARGET:LOCALE=NAME",
            ),
            (
                &["web:zh_Hant=zh-TW"][..],
                "unknown target 'web': one of *, json, ",
            ),
            (
                &["*:zh_Hant=../x"][..],
                "the name '../x' of zh_Hant (target *) cannot",
            ),
            (&["*:zh_Hant="][..], "the name '' of zh_Hant"),
            (
                &["*:pt_BR=pt-BR", "*:pt-br=pt"][..],
                "target *: pt-br is named twice",
            ),
        ] {
            let error = names(items).unwrap_err().to_string();
            assert!(error.starts_with(message), "{error}");
        }
        assert!(names(&["tolgee:pt_BR=pt", "locize:x=y"]).is_err());
        assert!(names(&["tolgee:pt_BR=pt", "i18next:pt_BR=pt-BR"]).is_ok());
    }
}
