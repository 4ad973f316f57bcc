//! `depot diff --source SHEET PATH...`: the app's translation files against the sheet, per
//! locale (SPEC §12). Exit 0 when they agree, 1 when anything differs (or the files or the
//! sheet cannot be read), 2 for usage errors. The report goes to stdout, as text or as
//! JSON (`--json`, shape in docs/cli.md); the sheet's warnings go to stderr.

use std::path::PathBuf;

use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};

use super::output;
use super::{Failure, load_config_with};
use crate::config::Sources;
use crate::formats::{Format, PlaceholderMode};
use crate::import::diff::{self, DiffOptions, Report};

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The sheet: a .csv, .xlsx, .ods file (or a .json values document), or
    /// google:SPREADSHEET_ID/TAB.
    #[arg(long, value_name = "SHEET")]
    pub source: String,
    /// The app's translation files or folders.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Base language, as `generate --base` takes it: its files are values/, Base.lproj/.
    #[arg(long, default_value = "EN", value_name = "LOCALE")]
    pub base: String,
    /// How the app's files were generated: keep or convert (default:
    /// translations.placeholders, as for generate).
    #[arg(
        long,
        value_name = "MODE",
        value_parser = PossibleValuesParser::new(PlaceholderMode::NAMES)
            .try_map(|name| name.parse::<PlaceholderMode>())
    )]
    pub placeholders: Option<PlaceholderMode>,
    /// Split flat names into key levels at SEP, as for import.
    #[arg(long, value_name = "SEP")]
    pub split: Option<String>,
    /// The locale of files whose names name none.
    #[arg(long, value_name = "LOCALE")]
    pub locale: Option<String>,
    /// Read the app's files as this format, as import does (a folder's files of other
    /// extensions are skipped).
    #[arg(long, value_name = "FORMAT", value_parser = super::import::format_values())]
    pub format: Option<Format>,
    /// Print no report and no warnings: the exit code says whether the files and the
    /// sheet agree (0) or differ (1, with its one line).
    #[arg(short, long, conflicts_with = "json")]
    pub quiet: bool,
    #[command(flatten)]
    pub memory: super::MemoryArg,
}

pub fn run(sources: Sources, args: &DiffArgs) -> Result<(), Failure> {
    let settings = load_config_with(&sources, args.quiet)?.settings;
    let tabs = super::import::read_sheet_tabs(&args.source, &settings, &sources)?;
    let doc = crate::producer::convert_fetched(tabs)?;
    let notes = output::Report::new(args.quiet);
    for w in &doc.warnings {
        notes.note(format_args!("depot: warning: {} {}", w.cell, w.message));
    }
    // as generate: --placeholders > the sheet's settings cell > translations.placeholders
    let (placeholders, follow) = crate::formats::resolve_placeholders(
        args.placeholders,
        &doc.settings,
        settings.translations.placeholders,
    );
    let options = DiffOptions {
        base: args.base.clone(),
        placeholders,
        follow,
        split: args.split.clone(),
        locale: args.locale.clone(),
        format: args.format,
        memory: settings.limits.input_memory,
    };
    let report = diff::diff(&doc, &args.paths, &options)?;
    // The process ends right after the report: freeing the sheet's million cells one by
    // one would only delay the exit (as import and generate do).
    std::mem::forget(doc);
    let out = if args.json {
        let mut json = serde_json::to_vec_pretty(&report).map_err(|e| Failure(e.to_string()))?;
        json.push(b'\n');
        json
    } else {
        text(&report).into_bytes()
    };
    if !args.quiet {
        output::bytes(&out)?;
    }
    if report.equal {
        return Ok(());
    }
    Err(Failure(format!(
        "{} difference(s) between the app's files and the sheet {}: update the files with \
         `depot generate`, or the sheet with `depot import --merge-into`",
        report.differences(),
        args.source
    )))
}

/// The plain-text report.
fn text(report: &Report) -> String {
    let mut out = String::new();
    if report.equal {
        out.push_str(&format!(
            "no differences: the {} file(s) ({}) match the sheet\n",
            report.files.len(),
            report.formats.join(", ")
        ));
        return out;
    }
    for locale in &report.locales {
        out.push_str(&format!(
            "{}: {} only in the app, {} only in the sheet, {} differ\n",
            locale.locale,
            locale.only_in_app.len(),
            locale.only_in_sheet.len(),
            locale.differ.len()
        ));
        for k in &locale.only_in_app {
            out.push_str(&format!("  only in the app:   {} = {:?}\n", k.key, k.text));
        }
        for k in &locale.only_in_sheet {
            out.push_str(&format!("  only in the sheet: {} = {:?}\n", k.key, k.text));
        }
        for d in &locale.differ {
            out.push_str(&format!(
                "  differs:           {}: app {:?}, sheet {:?}\n",
                d.key, d.app, d.sheet
            ));
        }
    }
    out
}
