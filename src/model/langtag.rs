//! Sheet locale codes read as BCP 47 language tags, for the outputs that name languages the
//! way their platform does: android and ios folders, String Catalog languages, ARB files,
//! i18next folders. One reading, so a locale is the same language in every one of them.

use icu_locale_core::LanguageIdentifier;

/// `locale` as a BCP 47 tag (`_` read as `-`) in its canonical case (`zh_hant_tw` →
/// `zh-Hant-TW`), when it is one whose language has 2 or 3 letters (what every platform
/// here wants; `English` or `x-klingon` are not).
pub fn parse(locale: &str) -> Option<LanguageIdentifier> {
    let tag = LanguageIdentifier::try_from_str(&locale.replace('_', "-")).ok()?;
    (2..=3)
        .contains(&tag.language.as_str().len())
        .then_some(tag)
}

/// `parse`, with a region that only repeats the language dropped (`pl_PL` → `pl`), as
/// Android and Apple folders (and Flutter's ARB files) name a language.
pub fn folded(locale: &str) -> Option<LanguageIdentifier> {
    let mut tag = parse(locale)?;
    let repeats_language = tag.script.is_none()
        && tag.variants.is_empty()
        && tag
            .region
            .is_some_and(|r| r.as_str().eq_ignore_ascii_case(tag.language.as_str()));
    if repeats_language {
        tag.region = None;
    }
    Some(tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_come_out_in_canonical_case_and_folded_drops_a_repeated_region() {
        let shown = |t: Option<LanguageIdentifier>| t.map(|t| t.to_string());
        assert_eq!(shown(parse("zh_hant_tw")).as_deref(), Some("zh-Hant-TW"));
        assert_eq!(shown(parse("pl_PL")).as_deref(), Some("pl-PL"));
        assert_eq!(shown(folded("pl_PL")).as_deref(), Some("pl"));
        assert_eq!(shown(folded("en_US")).as_deref(), Some("en-US"));
        assert_eq!(shown(folded("es_419")).as_deref(), Some("es-419"));
        assert_eq!(parse("English"), None);
        assert_eq!(parse("x-klingon"), None);
        assert_eq!(parse("en_US_u_ca_buddhist"), None);
    }
}
