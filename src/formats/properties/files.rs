//! Java bundles: `messages_<locale>.properties`, the base again as `messages.properties`.

use std::path::PathBuf;

use crate::formats::shared::files::{AppFile, Files, Located, Namespace};
use crate::formats::shared::locale::{self, Hint};

/// The bundle `generate` writes without `--filename`.
const STEM: &str = "messages";

pub const FILES: Files = Files {
    base: Some(base),
    namespace: Some(Namespace {
        of: namespace,
        main: STEM,
    }),
    base_note: Some("messages.properties is written"),
    ..Files::new(&["properties"], locate, path)
};

/// Java's `ResourceBundle.Control.toBundleName`: language, script, country and variants
/// joined with `_` (`messages_en_US`, `messages_zh_Hant_TW`).
fn path(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    let tag = crate::model::langtag::parse(locale)?;
    let subtags = std::iter::once(tag.language.as_str())
        .chain(tag.script.iter().map(|s| s.as_str()))
        .chain(tag.region.iter().map(|r| r.as_str()))
        .chain(tag.variants.iter().map(|v| v.as_str()));
    let mut name = stem.unwrap_or(STEM).to_owned();
    for subtag in subtags {
        name.push('_');
        name.push_str(subtag);
    }
    Some(PathBuf::from(format!("{name}.{ext}")))
}

/// The bundle without a locale, the one `ResourceBundle` falls back to.
fn base(stem: Option<&str>, ext: &str) -> PathBuf {
    PathBuf::from(format!("{}.{ext}", stem.unwrap_or(STEM)))
}

/// A bundle's base name is its namespace (`sidepanel` of `sidepanel_de.properties`).
fn namespace(file: &AppFile<'_>) -> String {
    match locale::underscored_suffix(file.stem) {
        Some(code) => file.stem[..file.stem.len() - code.len() - 1].to_owned(),
        None => file.stem.to_owned(),
    }
}

fn locate(file: &AppFile<'_>) -> Option<Located> {
    if let Some(code) = locale::underscored_suffix(file.stem) {
        return Some(Hint::Code(code).into());
    }
    // in a walk, messages.properties is a bundle's base only beside a
    // messages_<locale>.properties (gradle.properties is no bundle)
    let Some(all) = file.walked else {
        return Some(Hint::Base.into());
    };
    let folder = std::fs::read_dir(file.path.parent()?).ok()?;
    let prefix = format!("{}_", file.stem);
    let has_locales = folder.flatten().any(|e| {
        let other = e.path();
        all.contains(&other)
            && (other.extension().and_then(|e| e.to_str()))
                .is_some_and(|e| e.eq_ignore_ascii_case("properties"))
            && (other.file_stem().and_then(|s| s.to_str()))
                .and_then(|s| s.strip_prefix(&prefix))
                .is_some_and(|rest| locale::code(rest).is_some())
    });
    has_locales.then(|| Hint::Base.into())
}
