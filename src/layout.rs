//! Which files `depot generate` writes (SPEC §6.4): for a document, what the filters
//! selected, a format and the command's options, the relative path of each file with the
//! part of the selection and the render options it gets. Pure: the command renders and
//! writes what this plans, through the same renderers as the HTTP route.

use std::collections::HashMap;
use std::path::PathBuf;

use icu_locale_core::LanguageIdentifier;
use thiserror::Error;

use crate::formats::{Format, PlaceholderMode, RenderOptions};
use crate::model::langtag;
use crate::model::locale::same_locale;
use crate::model::{Document, Entry, Selection};

/// File stem used by `--merge` and `--language` when no `--filename` is given.
pub const DEFAULT_FILENAME: &str = "translations";

/// The options of `depot generate` that shape the files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutOptions {
    pub format: Format,
    /// `--language`: the index of the one locale to write, in one file.
    pub language: Option<usize>,
    /// `--merge`: every selected locale in one file.
    pub merge: bool,
    /// `--filename`: replaces the format's file stem.
    pub filename: Option<String>,
    /// `--base` as resolved by `find_base`.
    pub base: Option<usize>,
    pub comments: bool,
    /// `--placeholders`.
    pub placeholders: PlaceholderMode,
    /// The syntax the sheet's settings cell names, when followed (`RenderOptions::follow`).
    pub follow: Option<crate::formats::SheetSyntax>,
}

/// One file to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// Relative to the output folder.
    pub path: PathBuf,
    pub selection: Selection,
    pub options: RenderOptions,
    /// The file holds one locale's tree (json/yml without the locale level, SPEC §6.4:
    /// "`--language` writes that locale's tree"); `--merge` files keep the locale level.
    pub locale_tree: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutError {
    #[error("no locale '{asked}' in the sheet; the locales present are: {}", list(.present))]
    UnknownLanguage { asked: String, present: Vec<String> },
    #[error("nothing to write for locale '{locale}': it has no text{}", if *.filtered { " that the filters select" } else { "" })]
    NothingForLanguage { locale: String, filtered: bool },
    #[error(
        "locale '{locale}' cannot name a file or folder (it holds '/', '\\' or a control \
         character): rename the locale column in the sheet, or use --merge or --language"
    )]
    UnsafeLocale { locale: String },
    #[error(
        "locale '{locale}' is not a language tag, which {format} file and folder names need: \
         write it as BCP 47, a 2- or 3-letter language with an optional script, region and variants \
         ('_' or '-' between them), such as en, en_US, zh_Hant, sr_Latn_RS or es_419; rename \
         the locale column in the sheet, or use --merge or --language"
    )]
    NotALanguageTag { locale: String, format: Format },
    #[error(
        "locales '{first}' and '{second}' would both be written to {path}: rename one locale \
         column in the sheet, or use --language or --merge"
    )]
    SamePath {
        first: String,
        second: String,
        path: String,
    },
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

/// The locale `--language` names (case-insensitive, `-` and `_` equivalent).
pub fn find_language(doc: &Document, asked: &str) -> Result<usize, LayoutError> {
    doc.locales
        .iter()
        .position(|l| same_locale(l, asked))
        .ok_or_else(|| LayoutError::UnknownLanguage {
            asked: asked.to_owned(),
            present: doc.locales.clone(),
        })
}

/// The first locale, in sheet order, whose code or language part equals `base`
/// case-insensitively (`EN` → `en_US`).
pub fn find_base(doc: &Document, base: &str) -> Option<usize> {
    doc.locales.iter().position(|locale| {
        same_locale(locale, base) || language_part(locale).eq_ignore_ascii_case(base)
    })
}

fn language_part(locale: &str) -> &str {
    locale.split(['_', '-']).next().unwrap_or(locale)
}

/// The files to write, in the order they should be reported.
pub fn plan(
    doc: &Document,
    selection: &Selection,
    opts: &LayoutOptions,
) -> Result<Vec<PlannedFile>, LayoutError> {
    let format = opts.format;
    let options = RenderOptions {
        comments: opts.comments,
        keep_locale: false,
        base_locale: opts.base,
        placeholders: opts.placeholders,
        declared_locale: None,
        follow: opts.follow,
    };
    let ext = format.extension();
    if let Some(language) = opts.language {
        let locales: Vec<_> = selection
            .locales
            .iter()
            .filter(|l| l.locale == language && !l.entries.is_empty())
            .cloned()
            .collect();
        if locales.is_empty() {
            return Err(LayoutError::NothingForLanguage {
                locale: doc.locales.get(language).cloned().unwrap_or_default(),
                filtered: selection.locales.len() < doc.locales.len(),
            });
        }
        return Ok(vec![PlannedFile {
            path: PathBuf::from(format!("{}.{ext}", merged_stem(opts))),
            selection: Selection { locales },
            options,
            locale_tree: true,
        }]);
    }
    if opts.merge {
        return Ok(vec![PlannedFile {
            path: PathBuf::from(format!("{}.{ext}", merged_stem(opts))),
            selection: selection.clone(),
            options,
            locale_tree: false,
        }]);
    }
    if format.descriptor().files.one_file {
        // a String Catalog holds every language in one file
        return Ok(vec![PlannedFile {
            path: per_locale_path("", opts)?,
            selection: selection.clone(),
            options,
            locale_tree: false,
        }]);
    }
    let mut files = Vec::new();
    let mut taken: HashMap<PathBuf, usize> = HashMap::new();
    for ls in selection.locales.iter().filter(|l| !l.entries.is_empty()) {
        let locale = &doc.locales[ls.locale];
        if locale
            .chars()
            .any(|c| c == '/' || c == '\\' || c.is_control())
        {
            return Err(LayoutError::UnsafeLocale {
                locale: locale.clone(),
            });
        }
        let one = Selection {
            locales: vec![ls.clone()],
        };
        let mut paths = vec![per_locale_path(locale, opts)?];
        if opts.base == Some(ls.locale) {
            paths.extend(base_path(opts));
        }
        for path in paths {
            if let Some(&other) = taken.get(&path) {
                return Err(LayoutError::SamePath {
                    first: doc.locales[other].clone(),
                    second: locale.clone(),
                    path: path.display().to_string(),
                });
            }
            taken.insert(path.clone(), ls.locale);
            files.push(PlannedFile {
                path,
                selection: one.clone(),
                options: options.clone(),
                locale_tree: true,
            });
        }
    }
    if format.descriptor().files.language_fallbacks {
        for (language, ls) in language_fallbacks(doc, selection, opts.base) {
            let path = per_locale_path(&language, opts)?;
            // a file of that name is a locale's own only when the language is there alone
            if taken.contains_key(&path) {
                continue;
            }
            taken.insert(path.clone(), ls.locale);
            files.push(PlannedFile {
                path,
                selection: Selection {
                    locales: vec![ls.clone()],
                },
                options: RenderOptions {
                    declared_locale: Some(language),
                    ..options.clone()
                },
                locale_tree: true,
            });
        }
    }
    Ok(files)
}

/// gen-l10n refuses a set of ARB files where a locale with a region or script has no file
/// of its bare language ("Arb file for a fallback, en, does not exist"; the app falls
/// back to it): for each such language, the locale whose texts it gets, and the language.
/// The base locale when it is of that language, else the first one in sheet order.
fn language_fallbacks<'s>(
    doc: &Document,
    selection: &'s Selection,
    base: Option<usize>,
) -> Vec<(String, &'s crate::model::LocaleSelection)> {
    let selected: Vec<_> = (selection.locales.iter())
        .filter(|l| !l.entries.is_empty())
        .filter_map(|ls| Some((langtag::folded(&doc.locales[ls.locale])?, ls)))
        .collect();
    let mut fallbacks: Vec<(String, &crate::model::LocaleSelection)> = Vec::new();
    for (tag, ls) in &selected {
        let language = tag.language.as_str();
        let bare = |t: &LanguageIdentifier| {
            t.language == tag.language
                && t.script.is_none()
                && t.region.is_none()
                && t.variants.is_empty()
        };
        if selected.iter().any(|(t, _)| bare(t)) {
            continue;
        }
        let is_base = base == Some(ls.locale);
        match fallbacks.iter_mut().find(|(l, _)| l == language) {
            Some(chosen) if is_base => chosen.1 = ls,
            Some(_) => {}
            None => fallbacks.push((language.to_owned(), ls)),
        }
    }
    fallbacks
}

fn merged_stem(opts: &LayoutOptions) -> &str {
    opts.filename.as_deref().unwrap_or(DEFAULT_FILENAME)
}

/// The file of one locale in the per-language layout.
fn per_locale_path(locale: &str, opts: &LayoutOptions) -> Result<PathBuf, LayoutError> {
    let files = opts.format.descriptor().files;
    let path = (files.path)(locale, opts.filename.as_deref(), opts.format.extension());
    path.ok_or_else(|| LayoutError::NotALanguageTag {
        locale: locale.to_owned(),
        format: opts.format,
    })
}

/// The base locale's own file and its extra copy (`base_path`), in the per-language layout.
pub fn base_copies(
    doc: &Document,
    base: usize,
    opts: &LayoutOptions,
) -> Option<(PathBuf, PathBuf)> {
    let locale = doc.locales.get(base)?;
    Some((per_locale_path(locale, opts).ok()?, base_path(opts)?))
}

/// The base locale's extra copy: `values/` (android), `Base.lproj/` (ios), the bundle
/// without a locale (properties: `messages.properties`, the one `ResourceBundle` falls
/// back to; resx: `Strings.resx`, the neutral resources); none elsewhere.
fn base_path(opts: &LayoutOptions) -> Option<PathBuf> {
    let base = opts.format.descriptor().files.base?;
    Some(base(opts.filename.as_deref(), opts.format.extension()))
}

/// Per selected locale, the keys (entry indices, in sheet order) that have a text in the
/// base locale but none in it, over the keys the selection holds in any locale.
pub fn missing_vs_base(
    doc: &Document,
    selection: &Selection,
    base: usize,
) -> Vec<(String, Vec<usize>)> {
    let selected = selection.entries_in_any_locale(doc.entries.len());
    let has_text =
        |entry: &Entry, locale: usize| entry.texts.get(locale).is_some_and(Option::is_some);
    // One pass over the entries, each looked at for every locale at once.
    let mut missing = vec![Vec::new(); selection.locales.len()];
    for (e, (entry, _)) in (doc.entries.iter().zip(&selected).enumerate()).filter(|(_, (_, s))| **s)
    {
        if !has_text(entry, base) {
            continue;
        }
        for (keys, ls) in missing.iter_mut().zip(&selection.locales) {
            if !has_text(entry, ls.locale) {
                keys.push(e);
            }
        }
    }
    selection
        .locales
        .iter()
        .zip(missing)
        .map(|(ls, missing)| (doc.locales[ls.locale].clone(), missing))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Entry;

    fn doc(locales: &[&str], rows: &[(&str, &[Option<&str>])]) -> Document {
        Document {
            settings: Default::default(),
            namespaces: Vec::new(),
            findings: Vec::new(),
            locales: locales.iter().map(|l| l.to_string()).collect(),
            entries: rows
                .iter()
                .map(|(path, texts)| Entry {
                    path: path.split('.').map(str::to_owned).collect(),
                    texts: texts.iter().map(|t| t.map(str::to_owned)).collect(),
                    ..Entry::default()
                })
                .collect(),
            warnings: Vec::new(),
        }
    }

    fn sample() -> Document {
        doc(
            &["en_US", "pl_PL", "de"],
            &[
                ("A.X", &[Some("x"), Some("x"), None]),
                ("A.Y", &[Some("y"), None, None]),
                ("B", &[Some("b"), Some("b"), Some("b")]),
            ],
        )
    }

    fn opts(format: Format) -> LayoutOptions {
        LayoutOptions {
            format,
            language: None,
            merge: false,
            filename: None,
            base: None,
            comments: false,
            placeholders: PlaceholderMode::Keep,
            follow: None,
        }
    }

    fn paths(doc: &Document, o: &LayoutOptions) -> Vec<String> {
        plan(doc, &Selection::all(doc), o)
            .unwrap()
            .iter()
            .map(|f| f.path.display().to_string())
            .collect()
    }

    #[test]
    fn per_language_paths_follow_each_format() {
        let d = sample();
        let base = find_base(&d, "EN");
        assert_eq!(base, Some(0));
        let with_base = |f| LayoutOptions { base, ..opts(f) };
        assert_eq!(
            paths(&d, &with_base(Format::Json)),
            ["en_US.json", "pl_PL.json", "de.json"]
        );
        assert_eq!(
            paths(&d, &with_base(Format::Android)),
            [
                "values-en-rUS/strings.xml",
                "values/strings.xml",
                "values-pl/strings.xml",
                "values-de/strings.xml"
            ]
        );
        assert_eq!(
            paths(&d, &with_base(Format::Ios)),
            [
                "en-US.lproj/Localizable.strings",
                "Base.lproj/Localizable.strings",
                "pl.lproj/Localizable.strings",
                "de.lproj/Localizable.strings"
            ]
        );
        for (format, ext) in [
            (Format::Yml, "yml"),
            (Format::Xlf, "xlf"),
            (Format::Po, "po"),
        ] {
            assert_eq!(
                paths(&d, &with_base(format)),
                [
                    format!("messages.en_US.{ext}"),
                    format!("messages.pl_PL.{ext}"),
                    format!("messages.de.{ext}")
                ]
            );
        }
    }

    #[test]
    fn properties_and_resx_are_named_as_resource_bundle_and_resource_manager_look_them_up() {
        let d = doc(
            &[
                "en_US",
                "pl_PL",
                "zh_hant_tw",
                "sr-Latn",
                "es_419",
                "ca_ES_valencia",
                "de",
            ],
            &[("A", &[Some("a"); 7])],
        );
        let base = Some(0);
        assert_eq!(
            paths(
                &d,
                &LayoutOptions {
                    base,
                    ..opts(Format::Properties)
                }
            ),
            [
                "messages_en_US.properties",
                "messages.properties",
                "messages_pl_PL.properties",
                "messages_zh_Hant_TW.properties",
                "messages_sr_Latn.properties",
                "messages_es_419.properties",
                "messages_ca_ES_valencia.properties",
                "messages_de.properties",
            ]
        );
        assert_eq!(
            paths(
                &d,
                &LayoutOptions {
                    base,
                    ..opts(Format::Resx)
                }
            ),
            [
                "Strings.en-US.resx",
                "Strings.resx",
                "Strings.pl-PL.resx",
                "Strings.zh-Hant-TW.resx",
                "Strings.sr-Latn.resx",
                "Strings.es-419.resx",
                "Strings.ca-ES-valencia.resx",
                "Strings.de.resx",
            ]
        );
        let named = |format| LayoutOptions {
            filename: Some("app".into()),
            base,
            ..opts(format)
        };
        assert_eq!(
            paths(&d, &named(Format::Properties))[..2],
            ["app_en_US.properties", "app.properties"]
        );
        assert_eq!(
            paths(&d, &named(Format::Resx))[..2],
            ["app.en-US.resx", "app.resx"]
        );
        // without a base locale, no bundle without a locale
        assert!(!paths(&d, &opts(Format::Resx)).contains(&"Strings.resx".to_owned()));
    }

    #[test]
    fn each_per_language_file_holds_one_locale_and_xlf_gets_the_base() {
        let d = sample();
        let o = LayoutOptions {
            base: Some(0),
            ..opts(Format::Xlf)
        };
        let files = plan(&d, &Selection::all(&d), &o).unwrap();
        for f in &files {
            assert_eq!(f.selection.locales.len(), 1);
            assert_eq!(f.options.base_locale, Some(0));
            assert!(!f.options.keep_locale);
        }
        assert_eq!(*files[1].selection.locales[0].entries, [0, 2]);
    }

    #[test]
    fn filename_replaces_the_stem() {
        let d = sample();
        let named = |f| LayoutOptions {
            filename: Some("app".into()),
            base: Some(0),
            ..opts(f)
        };
        assert_eq!(paths(&d, &named(Format::Android))[1], "values/app.xml");
        assert_eq!(paths(&d, &named(Format::Ios))[0], "en-US.lproj/app.strings");
        assert_eq!(paths(&d, &named(Format::Po))[2], "app.de.po");
        assert_eq!(paths(&d, &named(Format::Json))[0], "app.en_US.json");
    }

    #[test]
    fn merge_and_language_write_one_file() {
        let d = sample();
        let merged = LayoutOptions {
            merge: true,
            ..opts(Format::Yml)
        };
        let files = plan(&d, &Selection::all(&d), &merged).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path, PathBuf::from("translations.yml"));
        assert_eq!(files[0].selection, Selection::all(&d));

        let one = LayoutOptions {
            language: Some(find_language(&d, "pl-pl").unwrap()),
            filename: Some("my-pl".into()),
            ..opts(Format::Json)
        };
        let files = plan(&d, &Selection::all(&d), &one).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path, PathBuf::from("my-pl.json"));
        assert_eq!(files[0].selection.locales.len(), 1);
        assert_eq!(files[0].selection.locales[0].locale, 1);
    }

    #[test]
    fn unknown_language_names_the_locales_present() {
        let err = find_language(&sample(), "fr").unwrap_err();
        assert_eq!(
            err.to_string(),
            "no locale 'fr' in the sheet; the locales present are: en_US, pl_PL, de"
        );
    }

    #[test]
    fn base_matches_code_or_language_part_first_in_sheet_order() {
        let d = doc(&["pl", "en_GB", "en_US"], &[]);
        assert_eq!(find_base(&d, "EN"), Some(1));
        assert_eq!(find_base(&d, "en-us"), Some(2));
        assert_eq!(find_base(&d, "xx"), None);
    }

    #[test]
    fn locales_that_map_to_one_folder_or_unsafe_names_are_refused() {
        let d = doc(&["pl", "pl_PL"], &[("A", &[Some("a"), Some("a")])]);
        let err = plan(&d, &Selection::all(&d), &opts(Format::Android)).unwrap_err();
        assert!(matches!(err, LayoutError::SamePath { .. }), "{err}");
        let d = doc(&["../x"], &[("A", &[Some("a")])]);
        let err = plan(&d, &Selection::all(&d), &opts(Format::Json)).unwrap_err();
        assert!(matches!(err, LayoutError::UnsafeLocale { .. }), "{err}");
    }

    #[test]
    fn folders_are_named_from_the_bcp47_tag_of_each_locale() {
        let cases = [
            ("en_US", "values-en-rUS", "en-US"),
            ("pl_PL", "values-pl", "pl"),
            ("de", "values-de", "de"),
            ("zh_Hant", "values-b+zh+Hant", "zh-Hant"),
            ("zh_hant_tw", "values-b+zh+Hant+TW", "zh-Hant-TW"),
            ("uz_Cyrl", "values-b+uz+Cyrl", "uz-Cyrl"),
            ("es_419", "values-b+es+419", "es-419"),
            ("sr-latn-rs", "values-b+sr+Latn+RS", "sr-Latn-RS"),
            ("fil_PH", "values-fil-rPH", "fil-PH"),
            (
                "ca_ES_valencia",
                "values-b+ca+ES+valencia",
                "ca-ES-valencia",
            ),
        ];
        for (locale, android, ios) in cases {
            let d = doc(&[locale], &[("A", &[Some("a")])]);
            let all = Selection::all(&d);
            let folder = |format| {
                let files = plan(&d, &all, &opts(format)).unwrap();
                files[0].path.parent().unwrap().display().to_string()
            };
            assert_eq!(folder(Format::Android), android, "{locale}");
            assert_eq!(folder(Format::Ios), format!("{ios}.lproj"), "{locale}");
        }
    }

    #[test]
    fn locales_that_are_no_language_tag_are_refused_for_folders_only() {
        for locale in ["English", "e", "en_US_u_ca_buddhist", "en__US", "x-klingon"] {
            let d = doc(&[locale], &[("A", &[Some("a")])]);
            let all = Selection::all(&d);
            for format in [
                Format::Android,
                Format::Ios,
                Format::Properties,
                Format::Resx,
            ] {
                let err = plan(&d, &all, &opts(format)).unwrap_err();
                assert_eq!(
                    err,
                    LayoutError::NotALanguageTag {
                        locale: locale.into(),
                        format
                    }
                );
            }
            assert!(plan(&d, &all, &opts(Format::Json)).is_ok());
        }
    }

    #[test]
    fn app_formats_write_a_catalog_arb_files_and_i18next_folders() {
        let d = doc(
            &["en_GB", "en_US", "pl_PL", "zh_hant"],
            &[("A", &[Some("a"), Some("b"), Some("c"), Some("d")])],
        );
        let with_base = |format| LayoutOptions {
            base: Some(1),
            ..opts(format)
        };
        assert_eq!(
            paths(&d, &with_base(Format::Xcstrings)),
            ["Localizable.xcstrings"]
        );
        assert_eq!(
            paths(&d, &with_base(Format::I18next)),
            [
                "en-GB/translation.json",
                "en-US/translation.json",
                "pl-PL/translation.json",
                "zh-Hant/translation.json"
            ]
        );
        let arb = plan(&d, &Selection::all(&d), &with_base(Format::Arb)).unwrap();
        let shown: Vec<(String, usize, Option<&str>)> = (arb.iter())
            .map(|f| {
                let locale = f.selection.locales[0].locale;
                let declared = f.options.declared_locale.as_deref();
                (f.path.display().to_string(), locale, declared)
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("app_en_GB.arb".to_owned(), 0, None),
                ("app_en_US.arb".to_owned(), 1, None),
                ("app_pl.arb".to_owned(), 2, None),
                ("app_zh_Hant.arb".to_owned(), 3, None),
                // the language files gen-l10n falls back to: the base locale's for en
                ("app_en.arb".to_owned(), 1, Some("en")),
                ("app_zh.arb".to_owned(), 3, Some("zh")),
            ]
        );
        let err = plan(
            &doc(&["English"], &[("A", &[Some("a")])]),
            &Selection::all(&doc(&["English"], &[("A", &[Some("a")])])),
            &opts(Format::Arb),
        )
        .unwrap_err();
        assert!(matches!(err, LayoutError::NotALanguageTag { .. }), "{err}");
    }

    #[test]
    fn missing_lists_keys_with_a_base_text_only() {
        let d = sample();
        let missing = missing_vs_base(&d, &Selection::all(&d), 0);
        let counts: Vec<(&str, usize)> = (missing.iter())
            .map(|(locale, keys)| (locale.as_str(), keys.len()))
            .collect();
        assert_eq!(counts, [("en_US", 0), ("pl_PL", 1), ("de", 2)]);
        let de: Vec<String> = missing[2]
            .1
            .iter()
            .map(|&e| d.entries[e].path.join("."))
            .collect();
        assert_eq!(de, ["A.X", "A.Y"]);
    }
}
