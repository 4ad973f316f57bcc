//! `depot diff`: an app's files against its sheet, per locale — keys only in the app, keys
//! only in the sheet, texts that differ.
//!
//! The sheet's side is what `generate` would write for each format the app's files are in:
//! rendered by the same renderers to the same paths, then read back by the same readers as
//! the app's files, so both sides name keys and locales alike (`core_labels_yes` in
//! `values-pl/`) and texts are compared as the format holds them (read without
//! converting placeholders: `%1$s` and `%s` differ). A format depot cannot write is
//! compared by key path with the sheet's texts.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use super::{AppFormat, ImportError, Options, assemble::Assembler, discover};
use crate::translations::filter::same_locale;
use crate::translations::formats::{Format, PlaceholderMode, Prepared, RenderError};
use crate::translations::layout::{self, LayoutError, LayoutOptions};
use crate::translations::model::{Document, Selection};

#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error("cannot lay out the sheet's files: {0}")]
    Layout(#[from] LayoutError),
    #[error("cannot render the sheet as {format}: {source}")]
    Render {
        format: Format,
        #[source]
        source: RenderError,
    },
}

/// How to compare.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// `--base`, as `generate` takes it (`EN` matches `en_US`).
    pub base: String,
    /// How `generate` writes placeholders for this app (`--placeholders`).
    pub placeholders: PlaceholderMode,
    pub split: Option<String>,
    pub locale: Option<String>,
}

/// One key's text on one side (a plural form is `key[category]`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeyText {
    pub key: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Differs {
    pub key: String,
    pub app: String,
    pub sheet: String,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LocaleReport {
    pub locale: String,
    pub only_in_app: Vec<KeyText>,
    pub only_in_sheet: Vec<KeyText>,
    pub differ: Vec<Differs>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// True when nothing differs.
    pub equal: bool,
    /// The formats compared, and the files read.
    pub formats: Vec<String>,
    pub files: Vec<String>,
    /// Per locale with a difference, in the sheet's locale order then the app's.
    pub locales: Vec<LocaleReport>,
}

impl Report {
    pub fn differences(&self) -> usize {
        self.locales
            .iter()
            .map(|l| l.only_in_app.len() + l.only_in_sheet.len() + l.differ.len())
            .sum()
    }
}

/// Compares the app's files under `paths` with the sheet `sheet`.
pub fn diff(
    sheet: &Document,
    paths: &[PathBuf],
    options: &DiffOptions,
) -> Result<Report, DiffError> {
    let base = layout::find_base(sheet, &options.base);
    let read_options = Options {
        split: options.split.clone(),
        locale: options.locale.clone(),
        // a base folder holds the sheet's base locale, named as the sheet names it
        base: base.map_or_else(|| options.base.clone(), |b| sheet.locales[b].clone()),
        placeholders: PlaceholderMode::Keep,
        format: None,
    };
    let found = discover::discover(paths, &read_options)?;
    let mut families: BTreeMap<AppFormat, Vec<&discover::Found>> = BTreeMap::new();
    for file in &found {
        families.entry(family(file.format)).or_default().push(file);
    }
    let mut report = Report {
        files: found.iter().map(|f| f.shown.clone()).collect(),
        ..Report::default()
    };
    let mut by_locale: Vec<LocaleReport> = Vec::new();
    for (format, files) in families {
        report.formats.push(format.name().to_owned());
        let mut app = Assembler::new(&read_options);
        for file in files {
            let read = super::read_file(file, &read_options)?;
            app.add(file, read)?;
        }
        let app = app.finish().doc;
        let rendered = sheet_side(sheet, format, base, options, &read_options)?;
        compare(&app, rendered.as_ref().unwrap_or(sheet), &mut by_locale);
    }
    by_locale.retain(|l| {
        !(l.only_in_app.is_empty() && l.only_in_sheet.is_empty() && l.differ.is_empty())
    });
    report.equal = by_locale.is_empty();
    report.locales = by_locale;
    Ok(report)
}

/// `.strings` and `.stringsdict` are one app format: `generate -f ios` writes both.
fn family(format: AppFormat) -> AppFormat {
    match format {
        AppFormat::Stringsdict => AppFormat::Ios,
        f => f,
    }
}

/// What `generate` writes of the sheet in `format`, read back; `None` when depot has no
/// writer for it.
fn sheet_side(
    sheet: &Document,
    format: AppFormat,
    base: Option<usize>,
    options: &DiffOptions,
    read_options: &Options,
) -> Result<Option<Document>, DiffError> {
    let Ok(written) = format.name().parse::<Format>() else {
        return Ok(None);
    };
    let mut formats = vec![written];
    if written == Format::Ios {
        formats.push(Format::Stringsdict);
    }
    let selection = Selection::all(sheet);
    let prepared = Prepared::new(sheet);
    let mut assembler = Assembler::new(read_options);
    for format in formats {
        let planned = layout::plan(
            sheet,
            &selection,
            &LayoutOptions {
                format,
                language: None,
                merge: false,
                filename: None,
                base,
                comments: false,
                placeholders: options.placeholders,
            },
        )?;
        let read_as = if format == Format::Stringsdict {
            AppFormat::Stringsdict
        } else {
            family_of(format)
        };
        for file in planned {
            let rendered = if file.locale_tree {
                prepared.render_locale_tree(&file.selection, format, &file.options)
            } else {
                prepared.render(&file.selection, format, &file.options)
            }
            .map_err(|source| DiffError::Render { format, source })?;
            let found = discover::virtual_file(&file.path, read_as);
            let named = match &found.hint {
                super::locale::Hint::Code(code) => Some(code.clone()),
                super::locale::Hint::Base => Some(read_options.base.clone()),
                super::locale::Hint::None => None,
            };
            let read = super::read_bytes(
                &rendered.body,
                read_as,
                &found.shown,
                named.as_deref(),
                read_options,
            )?;
            assembler.add(&found, read)?;
        }
    }
    Ok(Some(assembler.finish().doc))
}

fn family_of(format: Format) -> AppFormat {
    format.name().parse().unwrap_or(AppFormat::Json)
}

/// Every (key, text) of one locale: plural forms as `key[category]`.
fn texts(doc: &Document, locale: usize) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in &doc.entries {
        let key = entry.path.join(".");
        match &entry.plural {
            None => {
                if let Some(Some(text)) = entry.texts.get(locale) {
                    out.push((key, text.clone()));
                }
            }
            Some(plural) => {
                for (category, text) in plural.forms_in(locale) {
                    out.push((format!("{key}[{}]", category.name()), text.to_owned()));
                }
            }
        }
    }
    out
}

fn compare(app: &Document, sheet: &Document, reports: &mut Vec<LocaleReport>) {
    let report_for = |code: &str, reports: &mut Vec<LocaleReport>| -> usize {
        match reports.iter().position(|r| same_locale(&r.locale, code)) {
            Some(at) => at,
            None => {
                reports.push(LocaleReport {
                    locale: code.to_owned(),
                    only_in_app: Vec::new(),
                    only_in_sheet: Vec::new(),
                    differ: Vec::new(),
                });
                reports.len() - 1
            }
        }
    };
    for (s, code) in sheet.locales.iter().enumerate() {
        let at = report_for(code, reports);
        let sheet_texts = texts(sheet, s);
        let app_texts = match app.locales.iter().position(|l| same_locale(l, code)) {
            Some(a) => texts(app, a),
            None => Vec::new(),
        };
        let app_map: HashMap<&str, &str> = app_texts
            .iter()
            .map(|(k, t)| (k.as_str(), t.as_str()))
            .collect();
        let sheet_map: HashMap<&str, &str> = sheet_texts
            .iter()
            .map(|(k, t)| (k.as_str(), t.as_str()))
            .collect();
        let report = &mut reports[at];
        for (key, text) in &sheet_texts {
            match app_map.get(key.as_str()) {
                None => report.only_in_sheet.push(KeyText {
                    key: key.clone(),
                    text: text.clone(),
                }),
                Some(app_text) if app_text != text => report.differ.push(Differs {
                    key: key.clone(),
                    app: (*app_text).to_owned(),
                    sheet: text.clone(),
                }),
                Some(_) => {}
            }
        }
        for (key, text) in &app_texts {
            if !sheet_map.contains_key(key.as_str()) {
                report.only_in_app.push(KeyText {
                    key: key.clone(),
                    text: text.clone(),
                });
            }
        }
    }
    for (a, code) in app.locales.iter().enumerate() {
        if sheet.locales.iter().any(|l| same_locale(l, code)) {
            continue;
        }
        let at = report_for(code, reports);
        reports[at].only_in_app.extend(
            texts(app, a)
                .into_iter()
                .map(|(key, text)| KeyText { key, text }),
        );
    }
}
