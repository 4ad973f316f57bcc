//! .NET resources: `Strings.<culture>.resx`, the neutral resources as `Strings.resx`.

use std::path::PathBuf;

use crate::formats::shared::files::{self, AppFile, Files, Located, Namespace};
use crate::formats::shared::locale::{self, Hint};

/// The resources `generate` writes without `--filename`.
const STEM: &str = "Strings";

pub const FILES: Files = Files {
    base: Some(base),
    // `Resources.resx` and `Strings.de.resx` are two resource sets, each of its name
    namespace: Some(Namespace {
        of: namespace,
        main: STEM,
    }),
    base_note: Some("Strings.resx is written"),
    ..Files::new(&["resx"], locate, path)
};

/// .NET culture names are BCP 47 tags (`Strings.pl-PL.resx`, `Strings.zh-Hant.resx`).
fn path(locale: &str, stem: Option<&str>, ext: &str) -> Option<PathBuf> {
    let tag = crate::model::langtag::parse(locale)?;
    Some(PathBuf::from(format!(
        "{}.{tag}.{ext}",
        stem.unwrap_or(STEM)
    )))
}

fn base(stem: Option<&str>, ext: &str) -> PathBuf {
    PathBuf::from(format!("{}.{ext}", stem.unwrap_or(STEM)))
}

fn namespace(file: &AppFile<'_>) -> String {
    files::dotted_namespace(file, STEM)
}

fn locate(file: &AppFile<'_>) -> Option<Located> {
    Some(
        match locale::dotted_stem(file.stem) {
            // Strings.pl-PL.resx; Strings.resx is the base
            Some(code) if file.stem.contains('.') => Hint::Code(code),
            _ => Hint::Base,
        }
        .into(),
    )
}
