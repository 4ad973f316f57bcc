//! Fallback chains (SPEC §9): `translations.fallback` maps a locale to the locale whose text
//! it borrows where it has none (`pt_BR = "pt_PT"`, `"*" = "en_US"` for every other
//! locale). With `fallback=true` / `--fallback`, a render is made from a copy of the
//! document whose missing texts are taken along each locale's chain.

use super::locale::same_locale;
use super::{Document, Entry};

/// The rule for locales no entry names.
pub const ANY_LOCALE: &str = "*";

/// `from → to` pairs, as configured. Locale codes match as filters match them
/// (case-insensitively, `-` and `_` alike).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fallbacks {
    pairs: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FallbackError {
    #[error(
        "translations.fallback entry {0:?} must be LOCALE=LOCALE (e.g. pt_BR=pt_PT, or *=en_US \
         for every other locale)"
    )]
    Malformed(String),
    #[error("translations.fallback names {0:?} twice; keep one entry per locale")]
    Repeated(String),
}

/// `fallback=true` (or `--fallback`) asked for while `translations.fallback` names no chain:
/// refused rather than answered without the texts it asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{asked} takes missing texts along the chains of translations.fallback, and none is \
     configured: set one under [translations] in config/depot.toml, e.g. fallback = \
     {{ pt_BR = \"pt_PT\", \"*\" = \"en_US\" }} (or DEPOT_TRANSLATIONS_FALLBACK=pt_BR=pt_PT,*=en_US), \
     and restart depot; or leave {asked} out"
)]
pub struct NoChain {
    /// How it was asked for: `fallback=true`, `--fallback`.
    pub asked: &'static str,
}

impl Fallbacks {
    /// The chains, for a render that `asked` for them; none configured is an error.
    pub fn required(&self, asked: &'static str) -> Result<&Fallbacks, NoChain> {
        if self.pairs.is_empty() {
            return Err(NoChain { asked });
        }
        Ok(self)
    }

    /// From `from=to` items (the configuration keeps the TOML table in that form).
    pub fn parse<S: AsRef<str>>(items: &[S]) -> Result<Fallbacks, FallbackError> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for item in items {
            let item = item.as_ref();
            let (from, to) = item
                .split_once('=')
                .map(|(f, t)| (f.trim(), t.trim()))
                .filter(|(f, t)| !f.is_empty() && !t.is_empty() && *t != ANY_LOCALE)
                .ok_or_else(|| FallbackError::Malformed(item.to_owned()))?;
            if pairs.iter().any(|(f, _)| same_locale(f, from)) {
                return Err(FallbackError::Repeated(from.to_owned()));
            }
            pairs.push((from.to_owned(), to.to_owned()));
        }
        Ok(Fallbacks { pairs })
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The locale `from` falls back to, if any.
    fn next(&self, from: &str) -> Option<&str> {
        let find = |name: &str| {
            (self.pairs.iter())
                .find(|(f, _)| f == name || (name != ANY_LOCALE && same_locale(f, name)))
                .map(|(_, t)| t.as_str())
        };
        find(from)
            .or_else(|| find(ANY_LOCALE))
            .filter(|to| !same_locale(to, from))
    }

    /// For each locale of `doc`, the indices of the locales it falls back to, in order
    /// (a cycle ends the chain where it would come back).
    pub fn chains(&self, doc: &Document) -> Vec<Vec<usize>> {
        (0..doc.locales.len())
            .map(|start| {
                let mut chain = Vec::new();
                let mut at = doc.locales[start].as_str();
                while let Some(to) = self.next(at) {
                    let Some(index) = doc.locales.iter().position(|l| same_locale(l, to)) else {
                        break;
                    };
                    if index == start || chain.contains(&index) {
                        break;
                    }
                    chain.push(index);
                    at = &doc.locales[index];
                }
                chain
            })
            .collect()
    }

    /// `doc` with every missing text taken from the first locale along its chain that
    /// has one (a plural entry's forms move together); `None` when nothing is missing
    /// along any chain, so the caller renders `doc` itself.
    pub fn apply(&self, doc: &Document) -> Option<Document> {
        let chains = self.chains(doc);
        if chains.iter().all(Vec::is_empty) {
            return None;
        }
        let mut filled = doc.clone();
        let mut changed = false;
        for entry in &mut filled.entries {
            for (locale, chain) in chains.iter().enumerate() {
                if entry.texts.get(locale).is_some_and(Option::is_some) {
                    continue;
                }
                let Some(&from) = chain
                    .iter()
                    .find(|&&l| entry.texts.get(l).is_some_and(Option::is_some))
                else {
                    continue;
                };
                copy_locale(entry, from, locale);
                changed = true;
            }
        }
        changed.then_some(filled)
    }
}

fn copy_locale(entry: &mut Entry, from: usize, to: usize) {
    let copy = |texts: &mut Vec<Option<String>>| {
        if texts.len() <= to {
            texts.resize(to + 1, None);
        }
        texts[to] = texts.get(from).cloned().flatten();
    };
    copy(&mut entry.texts);
    if let Some(plural) = &mut entry.plural {
        for form in &mut plural.forms {
            copy(&mut form.texts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Plural, PluralCategory, PluralForm};

    fn doc() -> Document {
        let t = |s: &str| Some(s.to_owned());
        Document {
            locales: vec!["en_US".into(), "pt_PT".into(), "pt_BR".into(), "pl".into()],
            entries: vec![
                Entry {
                    path: vec!["A".into()],
                    texts: vec![t("a"), t("a-pt"), None, None],
                    ..Entry::default()
                },
                Entry {
                    path: vec!["B".into()],
                    texts: vec![t("b"), None, None, t("b-pl")],
                    ..Entry::default()
                },
                Entry {
                    path: vec!["N".into()],
                    texts: vec![t("n"), None, None, None],
                    plural: Some(Box::new(Plural {
                        forms: vec![
                            PluralForm {
                                category: PluralCategory::One,
                                texts: vec![t("one"), None, None, None],
                            },
                            PluralForm {
                                category: PluralCategory::Other,
                                texts: vec![t("n"), None, None, None],
                            },
                        ],
                    })),
                    ..Entry::default()
                },
            ],
            ..Document::default()
        }
    }

    #[test]
    fn missing_texts_follow_the_chain() {
        let fallbacks = Fallbacks::parse(&["pt-br=pt_PT", "*=en_US"]).unwrap();
        let filled = fallbacks.apply(&doc()).unwrap();
        let texts = |e: usize| filled.entries[e].texts.clone();
        let t = |s: &str| Some(s.to_owned());
        assert_eq!(texts(0), [t("a"), t("a-pt"), t("a-pt"), t("a")]);
        // pt_BR → pt_PT (none) → en_US
        assert_eq!(texts(1), [t("b"), t("b"), t("b"), t("b-pl")]);
        let plural = filled.entries[2].plural.as_ref().unwrap();
        assert_eq!(plural.text(PluralCategory::One, 3), Some("one"));
        assert_eq!(plural.text(PluralCategory::Other, 2), Some("n"));
    }

    #[test]
    fn off_or_cyclic_chains_change_nothing_they_cannot() {
        assert_eq!(Fallbacks::default().apply(&doc()), None);
        let cyclic = Fallbacks::parse(&["pt_PT=pt_BR", "pt_BR=pt_PT"]).unwrap();
        let filled = cyclic.apply(&doc()).unwrap();
        assert_eq!(filled.entries[1].texts[1], None);
        assert_eq!(filled.entries[0].texts[2].as_deref(), Some("a-pt"));
    }

    #[test]
    fn malformed_entries_are_refused_by_name() {
        assert_eq!(
            Fallbacks::parse(&["pt_BR"]).unwrap_err(),
            FallbackError::Malformed("pt_BR".into())
        );
        assert!(Fallbacks::parse(&["a=*"]).is_err());
        assert_eq!(
            Fallbacks::parse(&["pt_BR=en", "pt-br=de"]).unwrap_err(),
            FallbackError::Repeated("pt-br".into())
        );
    }
}
