//! `depot import PATH... --to SHEET`: an app's translation files into a sheet in depot's
//! markup (SPEC §12), or merged into an existing sheet. The summary on stdout lists the
//! files read, the texts per locale and what was written; stderr lists every conflict of a
//! merge with its cell, and all that the sheet cannot carry (`cli::output`'s rule). The
//! sheet is written whole or not at all. An app whose files are several namespaces (SPEC
//! §14: `sidepanel_de.properties`, `de/common.json`) gets a tab per namespace, merged into
//! the existing sheet's tab of its name.

use std::path::PathBuf;

use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};

use super::output::Report;
use super::{Failure, Scope, load_config_with};
use crate::config::Sources;
use crate::config::settings::Settings;
use crate::formats::PlaceholderMode;
use crate::formats::{Format, TABLE};
use crate::import::grid::{self, Merged};
use crate::import::{self, Imported, Options};
use crate::model::Document;
use crate::model::locale::same_locale;
use crate::sheets::google::{GoogleError, GoogleSheets};
use crate::sheets::tabs::Tab;
use crate::sheets::write::{self, Target};

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The app's translation files or folders (an android res/, an iOS project, a folder
    /// of json, yml, po, xlf, arb, properties or resx files, an .xcstrings catalog, ...).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The sheet to write: a .csv, .xlsx or .ods file, a folder (DIR/: a .csv file per tab),
    /// or google:SPREADSHEET_ID[/TAB] (a new tab, "Translations" when no TAB is named). An
    /// app whose files are several namespaces gets a tab per namespace, named by it.
    #[arg(long, value_name = "SHEET", value_parser = clap::value_parser!(Target))]
    pub to: Target,
    /// Merge into this existing sheet (a .csv, .xlsx, .ods file, a folder of .csv files, or
    /// google:ID[/TAB]): keys and locales it lacks are added; its texts are kept (see
    /// --overwrite). Several namespaces merge each into the tab of its name.
    #[arg(long, value_name = "EXISTING")]
    pub merge_into: Option<String>,
    /// With --merge-into: the app's text replaces a different text of the sheet.
    #[arg(long, requires = "merge_into")]
    pub overwrite: bool,
    /// Split flat names into key levels at SEP (--split _ makes core_labels_yes
    /// core › labels › yes).
    #[arg(long, value_name = "SEP")]
    pub split: Option<String>,
    /// The locale of files whose names (and content) name none.
    #[arg(long, value_name = "LOCALE")]
    pub locale: Option<String>,
    /// The locale of base folders and files (values/, Base.lproj/, messages.properties,
    /// Strings.resx); the sheet's first locale column.
    #[arg(long, default_value = "en", value_name = "LOCALE")]
    pub base: String,
    /// Read every file as this format instead of telling it from its name.
    #[arg(long, value_name = "FORMAT", value_parser = format_values())]
    pub format: Option<Format>,
    /// Default: the app's placeholders stay as its files write them when all its files
    /// share one syntax (Android and iOS share printf), and the sheet's settings cell says
    /// which (depot: placeholders=printf); files of several syntaxes are converted.
    /// convert: each format's placeholders (%1$s, %1$@, {{name}}, %{name}, ICU, {0})
    /// become the sheet's {name} syntax; keep: texts as the files hold them, no cell.
    #[arg(
        long,
        value_name = "MODE",
        value_parser = PossibleValuesParser::new(PlaceholderMode::NAMES)
            .try_map(|name| name.parse::<PlaceholderMode>())
    )]
    pub placeholders: Option<PlaceholderMode>,
    /// Print nothing on success (errors only): no summary, no conflicts, no notes.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Name every key of a note that several keys share (not only the first eight).
    #[arg(short, long)]
    pub verbose: bool,
    #[command(flatten)]
    pub memory: super::MemoryArg,
}

/// `--format`'s values (import, diff): the formats' names.
pub(super) fn format_values() -> impl TypedValueParser<Value = Format> {
    PossibleValuesParser::new(TABLE.iter().map(|d| d.name)).try_map(|name| name.parse::<Format>())
}

pub fn run(sources: Sources, args: &ImportArgs) -> Result<(), Failure> {
    let settings = load_config_with(&sources, args.quiet)?.settings;
    // the sheet merged into, read first: the syntax its settings cell names is the one
    // the app's texts may stay in (its first tab's: the tabs of a sheet share one)
    let existing = match &args.merge_into {
        Some(existing) => Some(read_sheet_tabs(existing, &settings, &sources)?),
        None => None,
    };
    // the settings cell of the sheet merged into (its first tab's: the tabs share one)
    let merged_settings = existing.as_ref().map(|tabs| {
        let rows = first_translations(tabs).map_or(&[][..], |t| t.rows.as_slice());
        crate::markup::settings_of(rows)
    });
    let keep_syntax = match (args.placeholders, &merged_settings) {
        (Some(_), _) => import::KeepSyntax::No,
        (None, None) => import::KeepSyntax::Any,
        (None, Some(merged)) => import::KeepSyntax::Only(merged.syntax()),
    };
    let options = Options {
        split: args.split.clone(),
        locale: args.locale.clone(),
        base: args.base.clone(),
        placeholders: args.placeholders.unwrap_or(PlaceholderMode::Convert),
        keep_syntax,
        format: args.format,
        memory: settings.limits.input_memory,
        // each app's l10n.yaml says how its ARB apostrophes read
        arb_plain: None,
        // Android markup stays as tags (a new sheet says android=markup when the app has
        // any) unless the sheet merged into holds texts without them (no android=markup)
        markup: match &merged_settings {
            None => import::Markup::Detect,
            Some(merged) => import::Markup::of_sheet(merged.android_markup),
        },
        // a sheet of JSON v3 merged into: the app's `KEY_0` in a language of one form is
        // a plural (a new sheet: import reads the files again when they show v3)
        i18next_v3: merged_settings
            .as_ref()
            .is_some_and(|merged| merged.i18next_v3),
    };
    let report = Report::new(args.quiet);
    let mut imported = import::read_app(&args.paths, &options)?;
    let shown = if args.verbose { usize::MAX } else { KEYS_SHOWN };
    summarise_read(&imported, shown, &report);
    let keys: usize = (imported.documents().iter())
        .map(|(_, doc)| doc.entries.len())
        .sum();
    let locales = all_locales(&imported);
    let mut documents = take_documents(&mut imported);
    let tabs = match (&args.merge_into, existing) {
        (Some(name), Some(existing)) => {
            let into = MergeInto {
                existing: name,
                namespace: imported.namespace.as_deref(),
                overwrite: args.overwrite,
            };
            let (tabs, merged) = into.merge(existing, &documents)?;
            summarise_merge(&merged, name, &report);
            tabs
        }
        _ => (documents.iter_mut())
            .map(|(name, doc)| Tab {
                name: name.take().unwrap_or_else(|| write::SHEET_NAME.to_owned()),
                rows: grid::sheet(doc),
                gid: None,
            })
            .collect(),
    };
    let names: Vec<&str> = tabs.iter().map(|t| t.name.as_str()).collect();
    let in_tabs = match names.as_slice() {
        [_] => String::new(),
        several => format!(" in {} tabs ({})", several.len(), several.join(", ")),
    };
    match &args.to {
        Target::File { path, kind } => {
            write::write_tabs(path, &tabs, *kind)?;
            report.result(format_args!(
                "wrote {}: {keys} key(s){in_tabs}, locales {}",
                path.display(),
                locales.join(", ")
            ));
        }
        Target::Folder { path } => {
            let files = write::write_folder(path, &tabs)?;
            let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            report.result(format_args!(
                "wrote {}: {keys} key(s){in_tabs}, locales {}",
                files.join(", "),
                locales.join(", ")
            ));
        }
        Target::Google {
            spreadsheet_id,
            tab,
        } => {
            let titled: Vec<(&str, &[Vec<String>])> = match (tabs.as_slice(), tab.as_deref()) {
                ([one], tab) => vec![(tab.unwrap_or(write::DEFAULT_TAB), one.rows.as_slice())],
                (several, None) => (several.iter())
                    .map(|t| (t.name.as_str(), t.rows.as_slice()))
                    .collect(),
                (several, Some(tab)) => {
                    return Err(Failure(format!(
                        "--to google:{spreadsheet_id}/{tab} names one tab, and the sheet has {} \
                         ({}), one per namespace of the app's files: leave /{tab} out, and \
                         each becomes a tab named by its namespace",
                        several.len(),
                        names.join(", ")
                    )));
                }
            };
            write::check_tabs(&tabs, &write::Limits::GOOGLE)?;
            let runtime = super::runtime()?;
            runtime.block_on(add_google_tabs(
                &settings,
                &sources,
                spreadsheet_id,
                &titled,
            ))?;
            let titles: Vec<&str> = titled.iter().map(|(t, _)| *t).collect();
            let tabs = match titles.as_slice() {
                [one] => format!("the tab '{one}'"),
                several => format!("the tabs {}", quoted(several)),
            };
            report.result(format_args!(
                "wrote {tabs} of Google spreadsheet {spreadsheet_id}: {keys} key(s), locales {}",
                locales.join(", ")
            ));
        }
    }
    // The process ends right after this: freeing a million cells one by one would only
    // delay the exit (as generate does).
    std::mem::forget(tabs);
    std::mem::forget(documents);
    std::mem::forget(imported);
    Ok(())
}

fn quoted(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    quoted.join(", ")
}

/// The documents of `imported`, moved out: the one, unnamed, or each namespace's.
fn take_documents(imported: &mut Imported) -> Vec<(Option<String>, Document)> {
    match imported.namespaces.is_empty() {
        true => vec![(None, std::mem::take(&mut imported.doc))],
        false => (std::mem::take(&mut imported.namespaces).into_iter())
            .map(|(name, doc)| (Some(name), doc))
            .collect(),
    }
}

/// Every locale of the imported documents, each once, in the order met.
fn all_locales(imported: &Imported) -> Vec<String> {
    let mut locales: Vec<String> = Vec::new();
    for (_, doc) in imported.documents() {
        for locale in &doc.locales {
            if !locales.iter().any(|l| same_locale(l, locale)) {
                locales.push(locale.clone());
            }
        }
    }
    locales
}

/// The first tab that holds translations (a header row), as a sheet of tabs is read.
fn first_translations(tabs: &[Tab]) -> Option<&Tab> {
    tabs.iter().find(|t| has_header(t)).or(tabs.first())
}

/// What `--merge-into` merges into.
struct MergeInto<'a> {
    /// The sheet, as given.
    existing: &'a str,
    /// The name of the app's one namespace, when its files name one.
    namespace: Option<&'a str>,
    overwrite: bool,
}

impl MergeInto<'_> {
    /// `documents` merged into the existing sheet's `tabs`: each namespace into the tab of
    /// its name, else a new tab at the end, the other tabs kept as they are. An app of one
    /// namespace merges into the sheet's one tab of translations, which is written alone,
    /// as a sheet of one tab always was. A sheet whose single tab of translations no
    /// namespace names is refused for several: it holds the keys of several in one.
    fn merge(
        &self,
        mut tabs: Vec<Tab>,
        documents: &[(Option<String>, Document)],
    ) -> Result<(Vec<Tab>, Merged), Failure> {
        let translations: Vec<&str> = (tabs.iter())
            .filter(|t| has_header(t))
            .map(|t| t.name.as_str())
            .collect();
        let listed = |names: &[&str]| names.join(", ");
        if let [(None, doc)] = documents {
            if translations.len() < 2 {
                let first = tabs.iter().position(has_header).unwrap_or(0);
                if first >= tabs.len() {
                    return Err(Failure(format!("{} holds no tab", self.existing)));
                }
                let rows = tabs.swap_remove(first).rows;
                let mut merged = grid::merge(rows, doc, self.overwrite)?;
                let tab = Tab {
                    name: write::SHEET_NAME.to_owned(),
                    rows: std::mem::take(&mut merged.rows),
                    gid: None,
                };
                return Ok((vec![tab], merged));
            }
            let Some(name) = self.namespace.filter(|n| translations.contains(n)) else {
                return Err(Failure(format!(
                    "{} has a tab per namespace ({}), and the app's files name none of them: \
                     name the files as the app names a namespace's files, or merge into a \
                     sheet of one tab",
                    self.existing,
                    listed(&translations)
                )));
            };
            let documents = [(Some(name.to_owned()), doc.clone())];
            return self.merge(tabs, &documents);
        }
        let named = |name: &str| documents.iter().any(|(n, _)| n.as_deref() == Some(name));
        if let [only] = translations.as_slice()
            && !named(only)
        {
            let namespaces: Vec<&str> =
                documents.iter().filter_map(|(n, _)| n.as_deref()).collect();
            return Err(Failure(format!(
                "{} has one tab of translations ('{only}'), and the app's files hold {} \
                 namespaces ({}), a tab each: merge into a sheet with a tab per namespace, or \
                 import into a new sheet (--to NAME.xlsx)",
                self.existing,
                namespaces.len(),
                listed(&namespaces)
            )));
        }
        let mut all = Merged::default();
        for (name, doc) in documents {
            let name = name.clone().unwrap_or_default();
            let Some(tab) = tabs.iter_mut().find(|t| t.name == name) else {
                all.added_keys += doc.entries.len();
                all.added_texts += texts(doc);
                tabs.push(Tab {
                    rows: grid::sheet(&mut doc.clone()),
                    name,
                    gid: None,
                });
                continue;
            };
            let mut merged = grid::merge(std::mem::take(&mut tab.rows), doc, self.overwrite)?;
            tab.rows = std::mem::take(&mut merged.rows);
            for conflict in &mut merged.conflicts {
                if !conflict.cell.is_empty() {
                    conflict.cell = format!("{name}!{}", conflict.cell);
                }
                conflict.key = format!("{name}.{}", conflict.key);
            }
            all.conflicts.extend(merged.conflicts);
            all.added_keys += merged.added_keys;
            all.added_texts += merged.added_texts;
            for locale in merged.added_locales {
                if !all.added_locales.iter().any(|l| same_locale(l, &locale)) {
                    all.added_locales.push(locale);
                }
            }
        }
        Ok((tabs, all))
    }
}

/// Whether a tab holds translations: a header row.
fn has_header(tab: &Tab) -> bool {
    (tab.rows.iter().flatten()).any(|c| c.trim() == crate::markup::KEY_MARK)
}

/// How many texts a document holds (a plural form's each).
fn texts(doc: &Document) -> usize {
    let some = |texts: &[Option<String>]| texts.iter().flatten().count();
    (doc.entries.iter())
        .map(|e| match &e.plural {
            Some(plural) => plural.forms.iter().map(|f| some(&f.texts)).sum(),
            None => some(&e.texts),
        })
        .sum()
}

/// How many keys a note shared by several keys names without `--verbose`.
const KEYS_SHOWN: usize = 8;

/// The files read, the texts per locale (the summary), and what the sheet cannot carry
/// (notes).
fn summarise_read(imported: &Imported, keys_shown: usize, report: &Report) {
    let mut formats: Vec<(Format, usize)> = Vec::new();
    for (_, format) in &imported.files {
        match formats.iter_mut().find(|(f, _)| f == format) {
            Some((_, n)) => *n += 1,
            None => formats.push((*format, 1)),
        }
    }
    let formats: Vec<String> = formats.iter().map(|(f, n)| format!("{n} {f}")).collect();
    report.result(format_args!(
        "read {} file(s): {}",
        imported.files.len(),
        formats.join(", ")
    ));
    if !imported.skipped.is_empty() {
        let more = imported.skipped.len().saturating_sub(keys_shown);
        let shown: Vec<&str> = (imported.skipped.iter())
            .take(keys_shown)
            .map(String::as_str)
            .collect();
        report.result(format_args!(
            "skipped {} file(s) of other extensions (--format): {}{}",
            imported.skipped.len(),
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if let Some(line) = &imported.placeholders {
        report.result(format_args!("{line}"));
    }
    if !imported.namespaces.is_empty() {
        let each: Vec<String> = (imported.namespaces.iter())
            .map(|(name, doc)| format!("{name} ({} key(s))", doc.entries.len()))
            .collect();
        report.result(format_args!("namespaces: {}, a tab each", each.join(", ")));
    }
    for locale in all_locales(imported) {
        let count: usize = (imported.documents().iter())
            .filter_map(|(_, doc)| {
                let i = doc.locales.iter().position(|l| same_locale(l, &locale))?;
                let with_text = (doc.entries.iter())
                    .filter(|e| e.texts.get(i).is_some_and(Option::is_some))
                    .count();
                Some(with_text)
            })
            .sum();
        report.result(format_args!("{locale}: {count} key(s) with a text"));
    }
    let (kept, not_carried): (Vec<_>, Vec<_>) =
        imported.notes.iter().cloned().partition(|n| n.kept);
    for line in kept_lines(&kept, keys_shown) {
        report.note(format_args!(
            "depot: kept in the app, not the sheet's: {}",
            crate::import::one_line(&line)
        ));
    }
    for line in grouped_notes(&not_carried, keys_shown) {
        report.note(format_args!(
            "depot: not carried: {}",
            crate::import::one_line(&line)
        ));
    }
    if !not_carried.is_empty() {
        report.note(format_args!(
            "depot: {} item(s) of the app's files are not carried, or carried changed, as listed above",
            not_carried.len()
        ));
    }
}

/// What the sheet does not hold and generate leaves in the app's files, a line per kind
/// over every file (`36 translatable="false" string(s) (appName, …)`).
fn kept_lines(kept: &[crate::import::Note], keys_shown: usize) -> Vec<String> {
    let mut kinds: Vec<(&str, Vec<&str>)> = Vec::new();
    for note in kept {
        match kinds.iter_mut().find(|(what, _)| *what == note.what) {
            Some((_, keys)) => keys.push(&note.key),
            None => kinds.push((&note.what, vec![&note.key])),
        }
    }
    kinds
        .into_iter()
        .map(|(what, keys)| {
            let mut named: Vec<&str> = Vec::new();
            for key in &keys {
                if !named.contains(key) {
                    named.push(key);
                }
            }
            let more = named.len().saturating_sub(keys_shown);
            let shown: Vec<String> = (named.iter().take(keys_shown))
                .map(|k| crate::import::one_line(k))
                .collect();
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!(
                "{} {what} ({}{more}); generate leaves them in the app's files as they are",
                keys.len(),
                shown.join(", ")
            )
        })
        .collect()
}

/// Notes one a line; those of one file that say the same of several keys (markup in
/// every string of a file, say) share a line naming the keys.
fn grouped_notes(notes: &[crate::import::Note], keys_shown: usize) -> Vec<String> {
    let mut groups: Vec<(&str, &str, Vec<&crate::import::Note>)> = Vec::new();
    for note in notes {
        match groups
            .iter_mut()
            .find(|(file, what, _)| *file == note.file && *what == note.what)
        {
            Some((_, _, members)) => members.push(note),
            None => groups.push((&note.file, &note.what, vec![note])),
        }
    }
    groups
        .into_iter()
        .map(|(file, what, members)| match members.as_slice() {
            [one] => one.to_string(),
            many => {
                let mut keys: Vec<String> = many
                    .iter()
                    .take(keys_shown)
                    .map(|n| crate::import::one_line(&n.key))
                    .collect();
                keys.dedup();
                let more = many.len().saturating_sub(keys_shown);
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                let file = if file.is_empty() {
                    String::new()
                } else {
                    format!("{file} ")
                };
                format!(
                    "{file}{} keys ({}{more}): {what}",
                    many.len(),
                    keys.join(", ")
                )
            }
        })
        .collect()
}

fn summarise_merge(merged: &Merged, existing: &str, report: &Report) {
    for c in &merged.conflicts {
        let place = if c.cell.is_empty() {
            String::new()
        } else {
            format!("{} ", c.cell)
        };
        let locale = if c.locale.is_empty() {
            String::new()
        } else {
            format!(" ({})", c.locale)
        };
        let outcome = if c.overwritten {
            "replaced by the app's"
        } else {
            "kept (--overwrite replaces it)"
        };
        report.note(format_args!(
            "depot: conflict: {place}{}{locale}: the sheet has {:?}, the app {:?}; the sheet's is {outcome}",
            c.key, c.sheet, c.app
        ));
    }
    report.result(format_args!(
        "merged into {existing}: {} new key(s), {} text(s) added, {} new locale(s){}, {} conflict(s)",
        merged.added_keys,
        merged.added_texts,
        merged.added_locales.len(),
        if merged.added_locales.is_empty() {
            String::new()
        } else {
            format!(" ({})", merged.added_locales.join(", "))
        },
        merged.conflicts.len()
    ));
}

/// The tabs of an existing sheet: a local file (every worksheet of a workbook) or folder of
/// `.csv` files, `google:ID/TAB` (that tab) or `google:ID` (every tab).
pub(super) fn read_sheet_tabs(
    spec: &str,
    settings: &Settings,
    sources: &Sources,
) -> Result<Vec<Tab>, Failure> {
    if let Some(rest) = spec.strip_prefix("google:") {
        let (id, tab) = rest.split_once('/').unwrap_or((rest, ""));
        let mut settings = settings.clone();
        settings.service.spreadsheet_id = id.to_owned();
        settings.service.spreadsheet_name = tab.to_owned();
        let runtime = super::runtime()?;
        return runtime.block_on(async {
            let sheets = google_sheets(&mut settings, sources, Scope::Read).await?;
            let failed = |e: GoogleError| Failure(format!("cannot read the sheet {spec}: {e}"));
            match tab {
                "" => sheets.fetch_tabs().await.map_err(failed),
                tab => Ok(vec![Tab {
                    name: tab.to_owned(),
                    rows: sheets.fetch_grid().await.map_err(failed)?,
                    gid: None,
                }]),
            }
        });
    }
    crate::sheets::local::read_tabs(
        std::path::Path::new(spec),
        None,
        settings.limits.input_memory,
        crate::sheets::csv_dialect::CodePage::named(&settings.translations.sheet_encoding),
    )
    .map_err(|e| Failure(e.to_string()))
}

/// A Google client for `settings`' spreadsheet; without a refresh token, the consent flow
/// for `scope` first.
async fn google_sheets(
    settings: &mut Settings,
    sources: &Sources,
    scope: Scope,
) -> Result<GoogleSheets, Failure> {
    let made = match GoogleSheets::new(&settings.google, &settings.service) {
        Err(e) if e.needs_consent() => {
            consent(settings, sources, scope, "No Google refresh token yet.").await?;
            GoogleSheets::new(&settings.google, &settings.service)
        }
        other => other,
    };
    let sheets = made.map_err(|e| Failure(e.to_string()))?;
    Ok(match scope {
        Scope::Write => sheets.writing(),
        Scope::Read => sheets,
    })
}

async fn consent(
    settings: &mut Settings,
    sources: &Sources,
    scope: Scope,
    intro: &str,
) -> Result<(), Failure> {
    let browser = crate::sheets::consent::display_available();
    settings.service.refresh_token =
        super::consent_and_save_for(settings, sources, browser, intro, scope).await?;
    Ok(())
}

/// Adds the tabs; a refresh token that may only read gets a consent for writing first.
async fn add_google_tabs(
    settings: &Settings,
    sources: &Sources,
    spreadsheet_id: &str,
    tabs: &[(&str, &[Vec<String>])],
) -> Result<(), Failure> {
    let mut settings = settings.clone();
    settings.service.spreadsheet_id = spreadsheet_id.to_owned();
    let sheets = google_sheets(&mut settings, sources, Scope::Write).await?;
    let titles: Vec<&str> = tabs.iter().map(|(title, _)| *title).collect();
    let failed = |e: GoogleError| {
        let tabs = match titles.as_slice() {
            [one] => format!("the tab '{one}'"),
            several => format!("the tabs {}", quoted(several)),
        };
        Failure(format!(
            "cannot add {tabs} to Google spreadsheet {spreadsheet_id}: {e}"
        ))
    };
    match sheets.add_tabs(tabs).await {
        Err(e)
            if (e.needs_write_scope() || e.needs_consent())
                && settings.google.credentials_file.is_none() =>
        {
            let intro = "The refresh token may read the spreadsheet but not write to it.";
            consent(&mut settings, sources, Scope::Write, intro).await?;
            let sheets = google_sheets(&mut settings, sources, Scope::Write).await?;
            sheets.add_tabs(tabs).await.map_err(failed)
        }
        other => other.map_err(failed),
    }
}
