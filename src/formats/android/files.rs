//! android's files: `values-<qualifiers>/strings.xml`, the base locale again in `values/`.

use std::path::PathBuf;

use icu_locale_core::LanguageIdentifier;

use crate::formats::shared::files::{AppFile, Files, Located};
use crate::formats::shared::locale::{self, AndroidFolder, Hint};

pub const FILES: Files = Files {
    base: Some(base),
    base_note: Some("values/ folder is written"),
    ..Files::new(&["xml"], locate, path)
};

fn path(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    let tag = crate::model::langtag::folded(locale)?;
    Some(PathBuf::from(folder(&tag)).join(format!("{}.{ext}", stem.unwrap_or("strings"))))
}

fn base(stem: Option<&str>, ext: &str) -> PathBuf {
    PathBuf::from("values").join(format!("{}.{ext}", stem.unwrap_or("strings")))
}

/// `en_US` → `values-en-rUS`, `pl_PL` → `values-pl`, `en` → `values-en`. The `-r` form
/// holds only a language and a two-letter region: a script, a numeric (UN M.49) region
/// or a variant takes Android's BCP 47 form, `values-b+zh+Hant`, `values-b+es+419`
/// (aapt2 refuses `values-zh-rHANT` and `values-es-r419` as invalid configurations).
pub fn folder(tag: &LanguageIdentifier) -> String {
    let language = tag.language.as_str();
    let plain_region = tag
        .region
        .filter(|r| r.as_str().bytes().all(|b| b.is_ascii_alphabetic()));
    if tag.script.is_none() && tag.variants.is_empty() && plain_region == tag.region {
        return match plain_region {
            None => format!("values-{language}"),
            Some(region) => format!("values-{language}-r{}", region.as_str()),
        };
    }
    let mut folder = format!("values-b+{language}");
    let subtags = (tag.script.iter().map(|s| s.as_str()))
        .chain(tag.region.iter().map(|r| r.as_str()))
        .chain(tag.variants.iter().map(|v| v.as_str()));
    for subtag in subtags {
        folder.push('+');
        folder.push_str(subtag);
    }
    folder
}

/// A file in a `values*` folder; a walk leaves out the others (`layout/main.xml`).
fn locate(file: &AppFile<'_>) -> Option<Located> {
    match locale::android_folder(file.parent) {
        AndroidFolder::Locale(hint) => Some(hint.into()),
        AndroidFolder::Configuration(qualifiers) => Some(Located {
            hint: Hint::None,
            configuration: Some(qualifiers),
        }),
        AndroidFolder::NotValues if file.explicit() => Some(Hint::None.into()),
        AndroidFolder::NotValues => None,
    }
}

/// Whether aapt2 takes `name` as a resource name: a Java identifier start, then
/// identifier characters or `.` (the `R` class writes `.` as `_`).
pub fn resource_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}
