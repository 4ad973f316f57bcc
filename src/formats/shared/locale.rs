//! Locales from file and folder names: the inverse of `generate`'s naming
//! (`layout`), up to what that naming drops (`pl_PL` is written `values-pl`
//! and `pl.lproj`, so it reads back as `pl`). Folder names give codes with `_`
//! (`values-b+zh+Hant+TW` → `zh_Hant_TW`, `pt-BR.lproj` → `pt_BR`); a code in a file name
//! is taken as written (`messages.pl_PL.po` → `pl_PL`, `en-US/translation.json` → `en-US`).

use icu_locale_core::LanguageIdentifier;

/// What a name says about the locale of what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// A locale code.
    Code(String),
    /// The base folder or file (`values/`, `Base.lproj/`, `messages.properties`): `--base`.
    Base,
    /// Nothing: the content names it, or `--locale` does.
    None,
}

/// An android `values*` folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AndroidFolder {
    /// `values`, `values-pl`, `values-en-rUS`, `values-b+zh+Hant+TW`.
    Locale(Hint),
    /// A folder for another configuration too (`values-land`, `values-pl-night`): the sheet
    /// holds one text per locale, so its strings are not carried.
    Configuration(String),
    /// Not a `values` folder at all.
    NotValues,
}

/// The locale code `text` is, if it is one: a BCP 47 language tag (`_` or `-` between the
/// parts) whose language has 2 or 3 letters, as both platforms' folders need. Returned as
/// written.
pub fn code(text: &str) -> Option<String> {
    parse(text).map(|_| text.to_owned())
}

/// `code`, for names met in a walk, where a folder or file named `web` or `app` is more
/// likely no locale: a 2-letter language, or a tag with more than a language.
pub fn likely_code(text: &str) -> Option<String> {
    let tag = parse(text)?;
    let more = tag.script.is_some() || tag.region.is_some() || !tag.variants.is_empty();
    (tag.language.as_str().len() == 2 || more).then(|| text.to_owned())
}

fn parse(text: &str) -> Option<LanguageIdentifier> {
    if text.is_empty() || text.contains('.') {
        return None;
    }
    let tag = LanguageIdentifier::try_from_str(&text.replace('_', "-")).ok()?;
    let language = tag.language.as_str();
    let letters = (2..=3).contains(&language.len());
    // `und` (ICU's "no language") is what an empty or odd tag parses to
    (letters && language != "und").then_some(tag)
}

/// A tag in its canonical case, with `_` between the parts (`zh-hant-tw` → `zh_Hant_TW`).
fn underscored(tag: &LanguageIdentifier) -> String {
    tag.to_string().replace('-', "_")
}

/// `values`, `values-pl`, `values-en-rUS`, `values-b+sr+Latn`, `values-mcc310-en`; anything
/// after the locale (`-land`, `-night`, `-v21`) makes it a configuration folder.
pub fn android_folder(name: &str) -> AndroidFolder {
    let Some(rest) = name.strip_prefix("values") else {
        return AndroidFolder::NotValues;
    };
    if rest.is_empty() {
        return AndroidFolder::Locale(Hint::Base);
    }
    let Some(rest) = rest.strip_prefix('-') else {
        return AndroidFolder::NotValues;
    };
    let mut parts = rest.split('-').peekable();
    // mobile country and network codes come before the locale
    while parts
        .peek()
        .is_some_and(|p| p.starts_with("mcc") || p.starts_with("mnc"))
    {
        parts.next();
    }
    let mut locale = None;
    if let Some(first) = parts.peek().copied() {
        if let Some(subtags) = first.strip_prefix("b+") {
            if let Some(tag) = parse(&subtags.replace('+', "-")) {
                locale = Some(underscored(&tag));
                parts.next();
            }
        } else if (2..=3).contains(&first.len()) && first.bytes().all(|b| b.is_ascii_lowercase()) {
            parts.next();
            let region = parts.peek().and_then(|p| p.strip_prefix('r')).filter(|r| {
                (r.len() == 2 && r.bytes().all(|b| b.is_ascii_uppercase()))
                    || (r.len() == 3 && r.bytes().all(|b| b.is_ascii_digit()))
            });
            locale = Some(match region {
                Some(region) => {
                    let code = format!("{first}_{region}");
                    parts.next();
                    code
                }
                None => first.to_owned(),
            });
        }
    }
    let rest: Vec<&str> = parts.collect();
    match (locale, rest.is_empty()) {
        (Some(code), true) => AndroidFolder::Locale(Hint::Code(code)),
        (None, true) => AndroidFolder::Locale(Hint::Base),
        (_, false) => AndroidFolder::Configuration(rest.join("-")),
    }
}

/// `pl.lproj` → `pl`, `zh-Hans.lproj` → `zh_Hans`, `Base.lproj` → the base; `None` for a
/// folder that is not an `.lproj` or names no locale.
pub fn lproj(name: &str) -> Option<Hint> {
    let stem = name.strip_suffix(".lproj")?;
    if stem == "Base" {
        return Some(Hint::Base);
    }
    // Old projects use English names (English.lproj, German.lproj).
    let legacy = match stem {
        "English" => Some("en"),
        "German" => Some("de"),
        "French" => Some("fr"),
        "Spanish" => Some("es"),
        "Italian" => Some("it"),
        "Japanese" => Some("ja"),
        "Dutch" => Some("nl"),
        _ => None,
    };
    if let Some(code) = legacy {
        return Some(Hint::Code(code.to_owned()));
    }
    parse(stem).map(|tag| Hint::Code(underscored(&tag)))
}

/// The locale of a file named `<locale>.<ext>` or `<stem>.<locale>.<ext>` (json, yml, po,
/// xlf, resx: `stem` is the name without its extension).
pub fn dotted_stem(stem: &str) -> Option<String> {
    let last = stem.rsplit('.').next()?;
    code(last)
}

/// The locale of a Java bundle or ARB file named `<name>_<locale>` (`messages_pl_PL`,
/// `app_en`): the shortest tail of `_`-separated parts that is a locale with a lower-case
/// language, leaving a name before it (`my_app_en` is `en`, not `app_en`).
pub fn underscored_suffix(stem: &str) -> Option<String> {
    let parts: Vec<&str> = stem.split('_').collect();
    (1..parts.len())
        .rev()
        .filter(|&start| parts.len() - start <= 3)
        .find_map(|start| {
            let tail = parts[start..].join("_");
            // the language part must be lower-case (a bundle named `Messages_Extra` is no locale)
            let language_lower = parts[start].bytes().all(|b| b.is_ascii_lowercase());
            (language_lower && parse(&tail).is_some()).then_some(tail)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(folder: &str) -> AndroidFolder {
        android_folder(folder)
    }

    #[test]
    fn android_folders_read_back_as_generate_names_them() {
        let cases = [
            ("values", Hint::Base),
            ("values-pl", Hint::Code("pl".into())),
            ("values-en-rUS", Hint::Code("en_US".into())),
            ("values-b+zh+Hant+TW", Hint::Code("zh_Hant_TW".into())),
            ("values-b+es+419", Hint::Code("es_419".into())),
            ("values-fil-rPH", Hint::Code("fil_PH".into())),
            ("values-mcc310-en", Hint::Code("en".into())),
        ];
        for (folder, hint) in cases {
            assert_eq!(code_of(folder), AndroidFolder::Locale(hint), "{folder}");
        }
        assert_eq!(
            code_of("values-land"),
            AndroidFolder::Configuration("land".into())
        );
        assert_eq!(
            code_of("values-pl-night"),
            AndroidFolder::Configuration("night".into())
        );
        assert_eq!(
            code_of("values-v21"),
            AndroidFolder::Configuration("v21".into())
        );
        assert_eq!(code_of("layout"), AndroidFolder::NotValues);
        assert_eq!(code_of("valuesx"), AndroidFolder::NotValues);
    }

    #[test]
    fn lproj_folders_and_file_names_give_their_codes() {
        assert_eq!(lproj("pl.lproj"), Some(Hint::Code("pl".into())));
        assert_eq!(lproj("zh-Hans.lproj"), Some(Hint::Code("zh_Hans".into())));
        assert_eq!(lproj("pt-BR.lproj"), Some(Hint::Code("pt_BR".into())));
        assert_eq!(lproj("Base.lproj"), Some(Hint::Base));
        assert_eq!(lproj("English.lproj"), Some(Hint::Code("en".into())));
        assert_eq!(lproj("Resources"), None);
        assert_eq!(dotted_stem("messages.pl_PL"), Some("pl_PL".into()));
        assert_eq!(dotted_stem("en-US"), Some("en-US".into()));
        assert_eq!(dotted_stem("Strings"), None);
        assert_eq!(dotted_stem("translations"), None);
        assert_eq!(dotted_stem("package"), None);
        assert_eq!(underscored_suffix("messages_pl_PL"), Some("pl_PL".into()));
        assert_eq!(underscored_suffix("app_en"), Some("en".into()));
        assert_eq!(
            underscored_suffix("my_app_zh_Hant_TW"),
            Some("zh_Hant_TW".into())
        );
        assert_eq!(underscored_suffix("my_app_en"), Some("en".into()));
        assert_eq!(underscored_suffix("messages"), None);
        assert_eq!(underscored_suffix("Messages_Extra"), None);
    }
}
