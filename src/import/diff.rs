//! `depot diff`: an app's files against its sheet, per locale — keys only in the app, keys
//! only in the sheet, texts that differ.
//!
//! The sheet's side is what `generate` would write for each format the app's files are in:
//! rendered by the same renderers to the same paths, then read back by the same readers as
//! the app's files, so both sides name keys and locales alike (`core_labels_yes` in
//! `values-pl/`) and texts are compared as the format holds them (read without
//! converting placeholders), by meaning (SPEC §12.1): what a reader of the app would see
//! differently. `%d` is `%1$d`, Apple's `%@` is Android's `%s` (the spellings the settings
//! cell maps), `{{ name }}` is `{{name}}`; the order of a file's keys is no difference,
//! and a key that differs alike in two formats (an Android and an iOS app) is reported
//! once. A format depot cannot write is compared by key path with the sheet's texts.
//!
//! Namespaces (SPEC §14) pair by name: the app's files of a namespace (`Files::namespace`:
//! `de/settings.json`, `sidepanel_de.properties`) with the sheet's tab of that name, each
//! key named with its namespace first (`settings.title`), as in the sheet's document. A
//! sheet of one tab holds every namespace of such an app: each namespace is compared with
//! it, and a key is only in the sheet when no namespace has it.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use rustc_hash::FxHashMap;
use std::path::PathBuf;

use super::{ImportError, Options, assemble::Assembler, discover};
use crate::formats::{Format, PlaceholderMode, Prepared, RenderError};
use crate::layout::{self, LayoutError, LayoutOptions};
use crate::model::locale::same_locale;
use crate::model::{Document, Entry, Selection};

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
    /// The syntax of the sheet's settings cell, when followed (`RenderOptions::follow`).
    pub follow: Option<crate::formats::SheetSyntax>,
    pub split: Option<String>,
    pub locale: Option<String>,
    /// `--format`: the app's files are of this format (a folder's other files are skipped).
    pub format: Option<Format>,
    /// What reading the app's files may take.
    pub memory: crate::memory_budget::Budget,
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

impl LocaleReport {
    fn empty(locale: String) -> LocaleReport {
        LocaleReport {
            locale,
            only_in_app: Vec::new(),
            only_in_sheet: Vec::new(),
            differ: Vec::new(),
        }
    }
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
        keep_syntax: super::KeepSyntax::No,
        format: options.format,
        memory: options.memory,
        // the app's ARB files as the sheet says its gen-l10n reads them (arb=plain)
        arb_plain: Some(sheet.settings.arb_plain),
        // the app's Android markup is compared when the sheet carries it; else the texts
        // alone, as a sheet without `android=markup` holds them
        markup: crate::formats::reading::Markup::of_sheet(sheet.settings.android_markup),
        // a sheet of JSON v3 (`i18next=v3`) holds `KEY_0` of a language of one form as
        // its plural, as import read it
        i18next_v3: sheet.settings.i18next_v3,
    };
    let found = discover::discover(paths, &read_options)?;
    let mut families: BTreeMap<Format, Vec<&discover::Found>> = BTreeMap::new();
    for file in &found {
        families.entry(family(file.format)).or_default().push(file);
    }
    let mut report = Report {
        files: found.iter().map(|f| f.shown.clone()).collect(),
        ..Report::default()
    };
    let mut by_locale: Vec<LocaleReport> = Vec::new();
    let mut seen = Seen::default();
    for (format, files) in families {
        report.formats.push(format.name().to_owned());
        let pairing = Pairing::of(sheet, format, &files);
        let mut union: Vec<(String, Vec<LocaleReport>)> = Vec::new();
        for pair in pairing.pairs {
            let side = Side {
                format,
                base,
                namespace: pair.name.as_deref(),
                options,
                read_options: &read_options,
            };
            let sheet_doc = pair.sheet.as_ref().unwrap_or(sheet);
            // the two sides at once: each assembles what it read on one thread, which the
            // other side's reading keeps the cores busy beside
            let (app, rendered) = std::thread::scope(|scope| {
                let sheet_side = scope.spawn(|| sheet_side(sheet_doc, &side));
                let app = super::read_files(&pair.files, &read_options);
                let rendered = match sheet_side.join() {
                    Ok(rendered) => rendered,
                    Err(panic) => std::panic::resume_unwind(panic),
                };
                (app, rendered)
            });
            let (mut app, rendered) = (app?.doc, rendered?);
            let mut rendered = rendered.unwrap_or_else(|| sheet_doc.clone());
            if let Some(name) = &pair.name {
                for doc in [&mut app, &mut rendered] {
                    for entry in &mut doc.entries {
                        entry.path.insert(0, name.clone());
                    }
                }
            }
            match (pairing.union, pair.name) {
                (true, Some(name)) => {
                    let mut part = Vec::new();
                    compare(&app, &rendered, format, &mut part, &mut Seen::default());
                    union.push((name, part));
                }
                _ => compare(&app, &rendered, format, &mut by_locale, &mut seen),
            }
            // both documents freed beside the next comparison, not before it
            crate::parallel::free_beside((app, rendered));
        }
        for (at, part) in in_no_namespace(union) {
            let at = match by_locale.iter().position(|r| same_locale(&r.locale, &at)) {
                Some(at) => at,
                None => {
                    by_locale.push(LocaleReport::empty(at));
                    by_locale.len() - 1
                }
            };
            seen.add(at, format, part, &mut by_locale[at]);
        }
    }
    by_locale.retain(|l| {
        !(l.only_in_app.is_empty() && l.only_in_sheet.is_empty() && l.differ.is_empty())
    });
    report.equal = by_locale.is_empty();
    report.locales = by_locale;
    Ok(report)
}

/// `.strings` and `.stringsdict` are one app format: `generate -f ios` writes both.
fn family(format: Format) -> Format {
    format.plural_side_of().unwrap_or(format)
}

/// The app's files of one namespace and the sheet's document they are compared with.
struct Pair<'f> {
    /// The namespace; `None`: the app's files are one (or their format knows none).
    name: Option<String>,
    files: Vec<&'f discover::Found>,
    /// The sheet's tab of that name (`None`: the whole sheet).
    sheet: Option<Document>,
}

/// How a format's files pair with the sheet.
struct Pairing<'f> {
    pairs: Vec<Pair<'f>>,
    /// The namespaces are each compared with a sheet of one tab, which holds them all.
    union: bool,
}

impl<'f> Pairing<'f> {
    fn of(sheet: &Document, format: Format, files: &[&'f discover::Found]) -> Pairing<'f> {
        let whole = || Pairing {
            pairs: vec![Pair {
                name: None,
                files: files.to_vec(),
                sheet: None,
            }],
            union: false,
        };
        if format.descriptor().files.namespace.is_none() {
            return whole();
        }
        let names = discover::namespace_names(files.iter().copied());
        let of_name = |name: &str| -> Vec<&'f discover::Found> {
            (files.iter().copied())
                .filter(|f| f.namespace.as_deref() == Some(name))
                .collect()
        };
        if sheet.namespaces.is_empty() {
            if names.len() < 2 {
                return whole();
            }
            return Pairing {
                pairs: (names.iter())
                    .map(|name| Pair {
                        name: Some((*name).to_owned()),
                        files: of_name(name),
                        sheet: None,
                    })
                    .collect(),
                union: true,
            };
        }
        // the sheet's tabs in their order, then the app's namespaces the sheet lacks
        let mut all: Vec<&str> = sheet.namespaces.iter().map(String::as_str).collect();
        all.extend(
            names
                .iter()
                .filter(|n| !sheet.namespaces.iter().any(|s| s == *n)),
        );
        Pairing {
            pairs: (all.into_iter())
                .map(|name| Pair {
                    name: Some(name.to_owned()),
                    files: of_name(name),
                    sheet: Some(sheet.namespace(name).map_or_else(
                        || Document {
                            locales: sheet.locales.clone(),
                            settings: sheet.settings,
                            ..Document::default()
                        },
                        std::borrow::Cow::into_owned,
                    )),
                })
                .collect(),
            union: false,
        }
    }
}

/// Per locale, what the namespaces compared with a sheet of one tab found: every
/// difference, and the keys only in the sheet that no namespace has (under their own
/// name: the sheet has no namespaces).
fn in_no_namespace(parts: Vec<(String, Vec<LocaleReport>)>) -> Vec<(String, LocaleReport)> {
    let count = parts.len();
    let mut out: Vec<(String, LocaleReport)> = Vec::new();
    // per locale, each key only in the sheet (in the order met) and how many namespaces
    // lack it
    let mut lacking: Vec<(Vec<KeyText>, FxHashMap<String, usize>)> = Vec::new();
    for (name, reports) in parts {
        let prefix = format!("{name}.");
        for report in reports {
            let locale = report.locale.clone();
            let at = match out.iter().position(|(l, _)| same_locale(l, &locale)) {
                Some(at) => at,
                None => {
                    out.push((locale.clone(), LocaleReport::empty(locale)));
                    lacking.push(Default::default());
                    out.len() - 1
                }
            };
            out[at].1.only_in_app.extend(report.only_in_app);
            out[at].1.differ.extend(report.differ);
            let (keys, lacks) = &mut lacking[at];
            for mut key in report.only_in_sheet {
                if let Some(bare) = key.key.strip_prefix(&prefix) {
                    key.key = bare.to_owned();
                }
                let n = lacks.entry(key.key.clone()).or_default();
                *n += 1;
                if *n == 1 {
                    keys.push(key);
                }
            }
        }
    }
    for ((_, report), (keys, lacks)) in out.iter_mut().zip(lacking) {
        let in_none = keys
            .into_iter()
            .filter(|k| lacks.get(&k.key) == Some(&count));
        report.only_in_sheet.extend(in_none);
    }
    out
}

/// The sheet's side of one format (and namespace) of the app.
struct Side<'a> {
    format: Format,
    base: Option<usize>,
    /// The namespace whose files `generate` names so.
    namespace: Option<&'a str>,
    options: &'a DiffOptions,
    read_options: &'a Options,
}

/// What `generate` writes of `sheet` in `side.format`, read back; `None` when depot has
/// no writer for it.
fn sheet_side(sheet: &Document, side: &Side<'_>) -> Result<Option<Document>, DiffError> {
    let (format, read_options) = (side.format, side.read_options);
    let mut formats = vec![format];
    formats.extend(format.plurals_beside());
    let selection = Selection::all(sheet);
    let prepared = Prepared::new(sheet);
    let mut jobs = Vec::new();
    for format in formats {
        let planned = layout::plan(
            sheet,
            &selection,
            &LayoutOptions {
                format,
                language: None,
                merge: false,
                filename: side.namespace.map(str::to_owned),
                base: side.base,
                comments: false,
                placeholders: side.options.placeholders,
                follow: side.options.follow,
            },
        )?;
        jobs.extend(planned.into_iter().map(|file| (format, file)));
    }
    // rendered and read on every core, as generate renders and import reads; each file
    // assembled as soon as it and those before it are read
    let mut assembler = Assembler::new(read_options).expecting_locales(jobs.len());
    crate::parallel::for_each_in_order(
        crate::parallel::cores(),
        &jobs,
        |(format, file)| {
            let rendered = if file.locale_tree {
                prepared.render_locale_tree(&file.selection, *format, &file.options)
            } else {
                prepared.render(&file.selection, *format, &file.options)
            }
            .map_err(|source| DiffError::Render {
                format: *format,
                source,
            })?;
            let found = discover::virtual_file(&file.path, *format);
            let named = match &found.hint {
                crate::formats::shared::locale::Hint::Code(code) => Some(code.clone()),
                crate::formats::shared::locale::Hint::Base => Some(read_options.base.clone()),
                crate::formats::shared::locale::Hint::None => None,
            };
            let read = super::read_bytes(
                &rendered.body,
                *format,
                &found.shown,
                named.as_deref(),
                read_options,
            )?;
            Ok::<_, DiffError>((found, read))
        },
        |read| {
            let (found, read) = read?;
            assembler.add(&found, read)?;
            Ok::<_, DiffError>(())
        },
    )?;
    Ok(Some(assembler.finish().doc))
}

/// A text as its reader sees it in `format` (`family`'s): one spelling for what reads
/// alike (SPEC §12.1 "Diff by meaning").
fn meaning(format: Format, text: &str) -> Cow<'_, str> {
    use crate::formats::shared::syntax;
    match format {
        Format::Android | Format::Ios | Format::Stringsdict | Format::Xcstrings | Format::Po => {
            syntax::printf_meaning(text)
        }
        Format::I18next => syntax::i18next_meaning(text),
        Format::Arb => untyped(text),
        _ => Cow::Borrowed(text),
    }
}

/// An ARB text read back without its placeholders' types: ARB keeps them in the
/// metadata, not in the message (`{count:int}` is `{count}` to a reader), and the
/// metadata follows the template's texts, which the sheet may lack for a key.
fn untyped(text: &str) -> Cow<'_, str> {
    use crate::model::placeholders::{self, Piece};
    if !text.contains(":int}") && !text.contains(":float}") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let scanned = placeholders::scan(text, |piece| match piece {
        Piece::Literal(s) => out.push_str(s),
        Piece::Brace(c) => {
            out.push(c);
            out.push(c);
        }
        Piece::Placeholder { name, .. } => {
            out.push('{');
            out.push_str(name);
            out.push('}');
        }
    });
    match scanned {
        Ok(()) => Cow::Owned(out),
        Err(_) => Cow::Borrowed(text),
    }
}

fn same_meaning(format: Format, a: &str, b: &str) -> bool {
    a == b || meaning(format, a) == meaning(format, b)
}

/// The differences already reported, by meaning: (the locale's report, what kind, key,
/// the app's text, the sheet's text), so a key that differs alike in a second format
/// (iOS after Android) is not reported twice.
#[derive(Default)]
struct Seen(HashSet<(usize, u8, String, String, String)>);

impl Seen {
    /// Adds what `part` found to `report` (at `at` in the reports), each once.
    fn add(&mut self, at: usize, format: Format, part: LocaleReport, report: &mut LocaleReport) {
        let mut first = |kind: u8, key: &str, app: &str, sheet: &str| {
            self.0.insert((
                at,
                kind,
                key.to_owned(),
                meaning(format, app).into_owned(),
                meaning(format, sheet).into_owned(),
            ))
        };
        for k in part.only_in_app {
            if first(0, &k.key, &k.text, "") {
                report.only_in_app.push(k);
            }
        }
        for k in part.only_in_sheet {
            if first(1, &k.key, "", &k.text) {
                report.only_in_sheet.push(k);
            }
        }
        for d in part.differ {
            if first(2, &d.key, &d.app, &d.sheet) {
                report.differ.push(d);
            }
        }
    }
}

/// Every (key, text) of one locale of one entry: plural forms as `key[category]`.
fn entry_texts<'d>(entry: &'d Entry, locale: usize, out: &mut Vec<(String, &'d str)>) {
    out.clear();
    match &entry.plural {
        None => {
            if let Some(Some(text)) = entry.texts.get(locale) {
                out.push((entry.path.join("."), text));
            }
        }
        Some(plural) => {
            for (category, text) in plural.forms_in(locale) {
                out.push((
                    format!("{}[{}]", entry.path.join("."), category.name()),
                    text,
                ));
            }
        }
    }
}

/// Whether two entries say the same in two locales (no allocation: most do).
fn same(a: &Entry, la: usize, b: &Entry, lb: usize) -> bool {
    a.locale_content(la) == b.locale_content(lb)
}

fn compare(
    app: &Document,
    sheet: &Document,
    format: Format,
    reports: &mut Vec<LocaleReport>,
    seen: &mut Seen,
) {
    let report_for = |code: &str, reports: &mut Vec<LocaleReport>| -> usize {
        match reports.iter().position(|r| same_locale(&r.locale, code)) {
            Some(at) => at,
            None => {
                reports.push(LocaleReport::empty(code.to_owned()));
                reports.len() - 1
            }
        }
    };
    let app_index: FxHashMap<&[String], usize> = app
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.path.as_slice(), i))
        .collect();
    let sheet_index: FxHashMap<&[String], usize> = sheet
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.path.as_slice(), i))
        .collect();
    // each sheet entry's app entry, looked up once for every locale
    let pairs: Vec<Option<usize>> = sheet
        .entries
        .iter()
        .map(|e| app_index.get(e.path.as_slice()).copied())
        .collect();
    // the app's entries the sheet lacks, found once for every locale
    let app_only: Vec<&Entry> = (app.entries.iter())
        .filter(|e| !sheet_index.contains_key(e.path.as_slice()))
        .collect();
    // each of the sheet's locales on its own, on every core
    let columns: Vec<usize> = (0..sheet.locales.len()).collect();
    let parts = crate::parallel::map(crate::parallel::cores(), &columns, |&s| {
        let code = &sheet.locales[s];
        let mut report = LocaleReport::empty(code.clone());
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let a = app.locales.iter().position(|l| same_locale(l, code));
        for (entry, pair) in sheet.entries.iter().zip(&pairs) {
            let other = a.and_then(|a| Some((&app.entries[(*pair)?], a)));
            if let Some((other, a)) = other
                && same(entry, s, other, a)
            {
                continue;
            }
            entry_texts(entry, s, &mut theirs);
            match other {
                Some((other, a)) => entry_texts(other, a, &mut ours),
                None => ours.clear(),
            }
            for (key, text) in &theirs {
                match ours.iter().find(|(k, _)| k == key) {
                    None => report.only_in_sheet.push(KeyText {
                        key: key.clone(),
                        text: (*text).to_owned(),
                    }),
                    Some((_, app_text)) if !same_meaning(format, app_text, text) => {
                        report.differ.push(Differs {
                            key: key.clone(),
                            app: (*app_text).to_owned(),
                            sheet: (*text).to_owned(),
                        })
                    }
                    Some(_) => {}
                }
            }
            for (key, text) in &ours {
                if !theirs.iter().any(|(k, _)| k == key) {
                    report.only_in_app.push(KeyText {
                        key: key.clone(),
                        text: (*text).to_owned(),
                    });
                }
            }
        }
        // keys the sheet does not have at all
        if let Some(a) = a {
            for entry in &app_only {
                entry_texts(entry, a, &mut ours);
                report
                    .only_in_app
                    .extend(ours.drain(..).map(|(key, text)| KeyText {
                        key,
                        text: text.to_owned(),
                    }));
            }
        }
        report
    });
    for part in parts {
        let at = report_for(&part.locale, reports);
        seen.add(at, format, part, &mut reports[at]);
    }
    let mut ours = Vec::new();
    for (a, code) in app.locales.iter().enumerate() {
        if sheet.locales.iter().any(|l| same_locale(l, code)) {
            continue;
        }
        let at = report_for(code, reports);
        let mut part = LocaleReport::empty(code.clone());
        for entry in &app.entries {
            entry_texts(entry, a, &mut ours);
            part.only_in_app
                .extend(ours.drain(..).map(|(key, text)| KeyText {
                    key,
                    text: text.to_owned(),
                }));
        }
        seen.add(at, format, part, &mut reports[at]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_mean_the_same_as_their_formats_read_them() {
        for (format, a, b) in [
            (Format::Android, "%d items", "%1$d items"),
            (Format::Ios, "Pay %@", "Pay %1$@"),
            (Format::Stringsdict, "%ld pliki", "%1$ld pliki"),
            (Format::I18next, "Hi {{ name }}", "Hi {{name}}"),
            (Format::Arb, "{count:int} Mitglieder", "{count} Mitglieder"),
        ] {
            assert!(same_meaning(format, a, b), "{format}: {a} and {b}");
        }
        for (format, a, b) in [
            (Format::Android, "%1$s %2$d", "%2$s %1$d"),
            (Format::Json, "%d items", "%1$d items"),
            (Format::Arb, "{count:int} Mitglieder", "{count} Mitglied"),
            (Format::Resx, "{0}", "{0:0.0}"),
        ] {
            assert!(!same_meaning(format, a, b), "{format}: {a} and {b}");
        }
    }
}
