//! `depot generate`: fetch the sheet (Google or a local file), convert it, select what the
//! filters and `--language` ask for, and write translation files in the layout of SPEC §6.4
//! (planned by `crate::layout`, rendered by the same renderers as the HTTP route).
//! Everything is rendered before the first file is written, so an error writes nothing.
//! `--format` may name several formats: one fetch and one conversion serve all of them,
//! and the files of every format are rendered and written on all cores.

mod app_layout;
mod app_paths;

use super::Failure;
use super::output::Report;
use super::progress::Progress;
use crate::config::Sources;
use crate::config::settings::{Settings, SheetSource as SourceSetting};
use crate::secret::Secret;

use crate::atomic_file::Durability;
use crate::formats::{self, Format, PlaceholderMode, Prepared, keeping};
use crate::layout::{self, LayoutOptions};
use crate::memory_budget::Budget;
use crate::model::filter::{self, Filter};
use crate::model::{DEFAULT_NAMESPACE, Document, LocaleSelection, Selection};
use crate::naming::path_template::{PathTemplate, Values};
use crate::producer::ConvertError;
use crate::sheets::csv_dialect::CodePage;
use crate::sheets::local::LocalSheetError;
use crate::sheets::tabs::Tab;
use crate::sheets::{Fetched, SourceError, consent, source_for};
use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// `--path -`: the translations go to stdout.
const STDOUT: &str = "-";

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Output format; several (comma-separated or repeated) write each one's files from
    /// the same sheet.
    #[arg(
        short,
        long,
        default_value = "json",
        value_delimiter = ',',
        value_parser = PossibleValuesParser::new(Format::ALL.map(Format::name))
            .try_map(|name| name.parse::<Format>())
    )]
    pub format: Vec<Format>,
    /// Output folder, created if missing; `-` writes to stdout (needs --merge or --language).
    #[arg(short, long, default_value = ".", value_name = "DIR")]
    pub path: PathBuf,
    /// Only this locale, in one file <filename>.<ext> holding that locale's tree.
    #[arg(short, long, value_name = "LOCALE")]
    pub language: Option<String>,
    /// Base name of the output file(s) (default: translations with --merge/--language,
    /// else the format's usual name).
    #[arg(short = 'n', long, value_name = "NAME")]
    pub filename: Option<String>,
    /// Base language: its files also go to Base.lproj (ios) / values (android).
    #[arg(long, default_value = "EN", value_name = "LOCALE")]
    pub base: String,
    /// One file with all languages.
    #[arg(long)]
    pub merge: bool,
    /// Where each file goes, a path template under --path: {namespace}, {locale}, {lang},
    /// {region}, {android} (values-pl-rBR), {apple} (pl.lproj), {ext}; e.g.
    /// '{namespace}/{lang}.json' (one file per namespace and locale). Default:
    /// translations.layouts of the format, else the format's own layout.
    #[arg(long, value_name = "TEMPLATE", conflicts_with = "merge")]
    pub layout: Option<String>,
    /// Overrides SERVICE_CLIENT_ID.
    #[arg(long = "client_id", alias = "client-id", value_name = "ID")]
    pub client_id: Option<String>,
    /// Overrides SERVICE_CLIENT_SECRET.
    #[arg(long = "client_secret", alias = "client-secret", value_name = "SECRET")]
    pub client_secret: Option<String>,
    /// Overrides SERVICE_SPREADSHEET_ID.
    #[arg(long = "spreadsheet_id", alias = "spreadsheet-id", value_name = "ID")]
    pub spreadsheet_id: Option<String>,
    /// Overrides SERVICE_SPREADSHEET_NAME.
    #[arg(
        long = "spreadsheet_name",
        alias = "spreadsheet-name",
        value_name = "NAME"
    )]
    pub spreadsheet_name: Option<String>,
    /// Overrides SERVICE_REDIRECT_URI.
    #[arg(long = "redirect_uri", alias = "redirect-uri", value_name = "URL")]
    pub redirect_uri: Option<String>,
    /// Read this sheet instead of producer.source (Google): a local .csv, .xlsx, .ods (or .json
    /// values document), an http(s):// URL of a CSV, or `example` (the sheet built into depot).
    #[arg(long, value_name = "FILE")]
    pub source: Option<String>,
    /// Only what these filters select (comma-separated or repeated): en_US.CORE, tag1, ...
    #[arg(long, value_delimiter = ',', value_name = "FILTER")]
    pub filters: Vec<String>,
    /// Write the sheet's $$$ column as the format's comments.
    #[arg(long)]
    pub comments: bool,
    /// {name} placeholders: keep writes texts as they are, convert writes each format's
    /// syntax (%1$s, %1$@, %{name}, ICU). Default: translations.placeholders (keep).
    #[arg(
        long,
        value_name = "MODE",
        value_parser = PossibleValuesParser::new(PlaceholderMode::NAMES)
            .try_map(|name| name.parse::<PlaceholderMode>())
    )]
    pub placeholders: Option<PlaceholderMode>,
    /// Take a missing text along the fallback chain of translations.fallback.
    #[arg(long)]
    pub fallback: bool,
    /// Print nothing on success (errors only): no files, no summary, no warnings, no progress.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Name every key a locale lacks in the summary (not only the first ten).
    #[arg(short, long)]
    pub verbose: bool,
    /// Fail (exit 1, no file written) when the sheet's checks find anything: placeholders,
    /// plurals, braces, duplicate keys, name collisions (the findings are listed).
    #[arg(long)]
    pub strict: bool,
    /// Sync every file to disk before returning (survives a power loss right after).
    /// Without it files are still replaced atomically, as compilers write their output.
    #[arg(long)]
    pub sync: bool,
    /// Write every file whole from the sheet. Without it a file already there is patched
    /// (SPEC §12.1): the sheet's keys change in place, whatever else it holds stays, and
    /// no base-locale folder the app does not have (values-en/, Base.lproj/) is added.
    #[arg(long)]
    pub replace: bool,
    #[command(flatten)]
    pub memory: super::MemoryArg,
}

impl GenerateArgs {
    /// Configuration flags these options set, above every other source.
    pub fn flags(&self) -> Vec<(String, String)> {
        [
            ("service.client_id", &self.client_id),
            ("service.client_secret", &self.client_secret),
            ("service.spreadsheet_id", &self.spreadsheet_id),
            ("service.spreadsheet_name", &self.spreadsheet_name),
            ("service.redirect_uri", &self.redirect_uri),
            ("producer.source", &self.source),
        ]
        .into_iter()
        .filter_map(|(key, value)| value.clone().map(|v| (key.to_owned(), v)))
        .collect()
    }

    /// Combinations clap cannot express: a usage error (exit 2).
    pub fn check_usage(&self) -> Result<(), clap::Error> {
        // The message names `depot generate --help` (cli::usage finds the subcommand).
        let usage_error = |kind, message| {
            use clap::CommandFactory;
            Err(super::Cli::command().error(kind, message))
        };
        if self.to_stdout() && !self.merge && self.language.is_none() {
            return usage_error(
                clap::error::ErrorKind::MissingRequiredArgument,
                "--path - writes one file to stdout: add --merge or --language LOCALE",
            );
        }
        if let Some(template) = &self.layout {
            if self.to_stdout() {
                return usage_error(
                    clap::error::ErrorKind::ArgumentConflict,
                    "--path - writes one file to stdout: --layout names files under a folder",
                );
            }
            if let Err(e) = PathTemplate::parse(template) {
                return usage_error(
                    clap::error::ErrorKind::ValueValidation,
                    &format!("--layout: {e}"),
                );
            }
        }
        if self.to_stdout() && self.formats().len() > 1 {
            return usage_error(
                clap::error::ErrorKind::ArgumentConflict,
                "--path - writes one file to stdout: name one --format",
            );
        }
        Ok(())
    }

    /// The formats asked for, each once, in the order given.
    fn formats(&self) -> Vec<Format> {
        let mut formats = Vec::with_capacity(self.format.len());
        for &format in &self.format {
            if !formats.contains(&format) {
                formats.push(format);
            }
        }
        formats
    }

    fn to_stdout(&self) -> bool {
        self.path.as_os_str() == STDOUT
    }
}

/// A file to render: its format and where it goes.
struct Job {
    format: Format,
    file: layout::PlannedFile,
    /// The document (its locales named for the format) the file is rendered from.
    group: usize,
}

/// The most keys a locale lacks that the summary names without `--verbose`.
const MISSING_NAMED: usize = 10;

pub fn run(sources: Sources, args: &GenerateArgs) -> Result<(), Failure> {
    // Filters are checked before anything is fetched.
    let filters = args
        .filters
        .iter()
        .map(|f| Filter::parse(f.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    let settings = super::load_config_with(&sources, args.quiet)?.settings;
    // Refused before the sheet is fetched, as a bad filter is.
    let fallbacks = args
        .fallback
        .then(|| settings.translations.fallbacks.required("--fallback"))
        .transpose()?;
    let progress = Progress::new(args.quiet, "generate", None);
    let doc = match local_csv(&settings) {
        Some(path) => {
            progress.step("reading and converting the sheet");
            let code_page = CodePage::named(&settings.translations.sheet_encoding);
            match read_and_convert_csv(path, settings.limits.input_memory, code_page) {
                // The reader's message names the file, as the budget's does (`fetch`).
                Err(e) => Err(Failure(e.to_string())),
                Ok(converted) => converted.map_err(Failure::from),
            }
        }
        None => {
            let runtime = super::runtime()?;
            progress.step("reading the sheet");
            let grid = runtime.block_on(fetch(&settings, &sources));
            progress.step("converting the sheet");
            grid.and_then(|tabs| Ok(crate::producer::convert_fetched(tabs)?))
        }
    };
    progress.finish();
    let doc = doc?;
    // The files written and the keys each locale lacks are the summary (stderr when
    // stdout carries the translations: `--path -`).
    let report = Report::beside_body(args.quiet, args.to_stdout());
    for w in &doc.warnings {
        report.note(format!("depot: warning: {} {}", w.cell, w.message));
    }
    if args.strict && !doc.findings.is_empty() {
        // The reason of the failure: listed whatever --quiet says.
        list_findings(&doc, &|line| eprintln!("{line}"));
        return Err(Failure(format!(
            "--strict: the sheet's checks found {} finding(s), listed above; no file was \
             written. Fix them in the sheet, or leave --strict out to write the files anyway",
            doc.findings.len()
        )));
    }
    list_findings(&doc, &|line| report.note(line));
    if !doc.findings.is_empty() {
        report.note(format!(
            "depot: {} finding(s) in the sheet's checks (placeholders, plurals, braces, duplicate keys, name collisions); the files are written anyway (--strict refuses them); a producer with producer.strict would refuse this sheet",
            doc.findings.len()
        ));
    }
    let doc = match fallbacks.and_then(|fallbacks| fallbacks.apply(&doc)) {
        Some(filled) => filled,
        None => doc,
    };

    let selection = filter::select(&doc, &filters)?;
    let language = args
        .language
        .as_deref()
        .map(|l| layout::find_language(&doc, l))
        .transpose()?;
    let base = layout::find_base(&doc, &args.base);
    let per_language = language.is_none() && !args.merge;
    let mut formats = args.formats();
    // ios plural entries go to Localizable.stringsdict beside Localizable.strings (stdout
    // takes one body: `-f stringsdict` asks for that one)
    let beside = (formats.iter().enumerate()).find_map(|(at, f)| Some((at, f.plurals_beside()?)));
    if let Some((at, plurals)) = beside
        && !args.to_stdout()
        && !formats.contains(&plurals)
        && has_plurals(&doc, &selection)
    {
        formats.insert(at + 1, plurals);
    }
    if per_language {
        warn_about_base(&doc, &selection, base, &args.base, &formats, &report);
    }
    // Each format's locale names (translations.locales), and each namespace a template
    // names: the documents the files are rendered from.
    let names = &settings.translations.locale_names;
    let mut docs = Docs::new(&doc);
    // --placeholders > the sheet's settings cell > translations.placeholders > keep
    let (placeholders, follow) = formats::resolve_placeholders(
        args.placeholders,
        &doc.settings,
        settings.translations.placeholders,
    );
    let mut jobs = Vec::new();
    let mut templated = std::collections::HashMap::new();
    // the app's files under --path, found when a format has no layout named (SPEC §12.1)
    let app_files = app_layout::AppFiles::new(&args.path);
    for &format in &formats {
        let renamed = names.renamed(format.name(), &doc.locales);
        let template = match &args.layout {
            Some(template) => Some(PathTemplate::parse(template)?),
            None if args.merge => None,
            None => settings.translations.layouts.of(format).cloned(),
        };
        let mut bundles = None;
        let template = match template {
            None if per_language && args.filename.is_none() && !args.to_stdout() => {
                let (found, shown) = match app_files.layout(format, &renamed, &doc.namespaces) {
                    None => (None, None),
                    Some(app_layout::AppLayout::Template(found)) => {
                        let shown = format!("{} (--layout to choose another)", found.as_str());
                        (Some(found), Some(shown))
                    }
                    Some(app_layout::AppLayout::Bundles(found)) => {
                        let shown = format!(
                            "{} (--filename or --layout to choose another)",
                            found.shown()
                        );
                        bundles = Some(found);
                        (None, Some(shown))
                    }
                };
                if let Some(shown) = shown {
                    report.note(format!(
                        "depot: {format} files written where the app keeps them: {shown}"
                    ));
                }
                found
            }
            other => other,
        };
        if let Some(template) = template {
            let options = formats::RenderOptions {
                comments: args.comments,
                keep_locale: false,
                base_locale: base,
                placeholders,
                declared_locale: None,
                follow,
            };
            let plan = TemplatePlan {
                template: &template,
                format,
                language,
                options: &options,
            };
            plan.jobs(&mut docs, &selection, renamed, &mut templated, &mut jobs)?;
            continue;
        }
        // a sheet of tabs: each namespace in files of its name, as the app keeps them
        // (`sidepanel_de.properties`, `de/common.json`), unless a name is given
        let per_namespace = per_language
            && args.filename.is_none()
            && format.descriptor().files.namespace.is_some();
        let namespaces: Vec<Option<&str>> = match per_namespace {
            true if !doc.namespaces.is_empty() => {
                doc.namespaces.iter().map(|n| Some(n.as_str())).collect()
            }
            _ => vec![None],
        };
        for namespace in namespaces {
            let group = docs.group(renamed.clone(), namespace);
            let selected = match namespace {
                Some(ns) => std::borrow::Cow::Owned(namespace_selection(&doc, &selection, ns)),
                None => std::borrow::Cow::Borrowed(&selection),
            };
            // the app's bundle: the format's names for its name, in its folder
            let bundle = bundles.as_ref().and_then(|b| b.of(namespace));
            let folder = bundle.map_or(std::path::Path::new(""), |b| b.folder.as_path());
            // a table's plural entries beside it only where it has some
            let plurals_only = format.plural_side_of().is_some() && namespace.is_some();
            if plurals_only && !has_plurals(docs.get(group), &selected) {
                continue;
            }
            let options = LayoutOptions {
                format,
                language,
                merge: args.merge,
                filename: (bundle.map(|b| b.stem.clone()))
                    .or_else(|| namespace.map(str::to_owned))
                    .or_else(|| args.filename.clone()),
                base,
                comments: args.comments,
                placeholders,
                follow,
            };
            let mut files = layout::plan(docs.get(group), &selected, &options)?;
            if !args.replace && !args.to_stdout() {
                let root = args.path.join(folder);
                drop_base_copy_the_app_lacks(&root, docs.get(group), &options, &mut files);
            }
            jobs.extend(files.into_iter().map(|mut file| {
                file.path = folder.join(&file.path);
                Job {
                    format,
                    file,
                    group,
                }
            }));
        }
    }

    if !args.to_stdout() {
        spell_as_the_app(&args.path, &mut jobs);
        locale_on_top_as_the_app(&args.path, &mut docs, &mut jobs);
    }
    let prepared: Vec<Prepared<'_>> = docs.list.iter().map(|(_, _, d)| Prepared::new(d)).collect();
    let render = |job: &Job, body: &mut Vec<u8>| {
        let file = &job.file;
        let prepared = &prepared[job.group];
        prepared.render_into(
            &file.selection,
            job.format,
            &file.options,
            file.locale_tree,
            body,
        )
    };
    if args.to_stdout() {
        write_to_stdout(&jobs, render, &report)?;
    } else {
        let sizes: Vec<usize> = (jobs.iter())
            .map(|job| prepared[job.group].estimated_len(&job.file.selection, job.format))
            .collect();
        write_files(args, &jobs, &sizes, render, &doc.settings, &report)?;
    }
    // --quiet prints no summary: the keys each locale lacks are not even counted
    if let Some(base) = base.filter(|_| !args.quiet) {
        let named = if args.verbose {
            usize::MAX
        } else {
            MISSING_NAMED
        };
        summarise_missing(&doc, &selection, language, base, named, &report);
    }
    // The process ends right after this: freeing the document's million strings (and
    // the prepared copies) one by one would only delay the exit, by about 60 ms.
    std::mem::forget(prepared);
    std::mem::forget(docs);
    std::mem::forget(doc);
    Ok(())
}

/// The documents files are rendered from: the sheet's, and copies with a format's locale
/// names (`translations.locales`) or one namespace's entries (a layout naming
/// `{namespace}`).
struct Docs<'d> {
    sheet: &'d Document,
    /// (locale names, namespace, the document).
    list: Vec<(Vec<String>, Option<String>, std::borrow::Cow<'d, Document>)>,
}

impl<'d> Docs<'d> {
    fn new(sheet: &'d Document) -> Docs<'d> {
        Docs {
            sheet,
            list: vec![(
                sheet.locales.clone(),
                None,
                std::borrow::Cow::Borrowed(sheet),
            )],
        }
    }

    /// The index of the document with these locale names (and only `namespace`'s
    /// entries), made on first use.
    fn group(&mut self, locales: Vec<String>, namespace: Option<&str>) -> usize {
        let found =
            (self.list.iter()).position(|(l, n, _)| *l == locales && n.as_deref() == namespace);
        if let Some(group) = found {
            return group;
        }
        let mut doc = match namespace.and_then(|ns| self.sheet.namespace(ns)) {
            Some(one) => one.into_owned(),
            None => self.sheet.clone(),
        };
        doc.locales.clone_from(&locales);
        let namespace = namespace.map(str::to_owned);
        self.list
            .push((locales, namespace, std::borrow::Cow::Owned(doc)));
        self.list.len() - 1
    }

    fn get(&self, group: usize) -> &Document {
        &self.list[group].2
    }
}

/// The files of one format written where a path template says.
struct TemplatePlan<'a> {
    template: &'a PathTemplate,
    format: Format,
    language: Option<usize>,
    options: &'a formats::RenderOptions,
}

impl TemplatePlan<'_> {
    /// One file per selected locale (and per namespace when the template names it), each
    /// path once across formats (`taken`: path → locale).
    fn jobs(
        &self,
        docs: &mut Docs<'_>,
        selection: &Selection,
        locales: Vec<String>,
        taken: &mut std::collections::HashMap<PathBuf, String>,
        jobs: &mut Vec<Job>,
    ) -> Result<(), Failure> {
        let sheet = docs.sheet;
        self.template.check_namespaces(&sheet.namespaces)?;
        let namespaces: Vec<Option<&str>> =
            match self.template.names_namespace() && !sheet.namespaces.is_empty() {
                true => sheet.namespaces.iter().map(|n| Some(n.as_str())).collect(),
                false => vec![None],
            };
        for namespace in namespaces {
            let group = docs.group(locales.clone(), namespace);
            let selected = match namespace {
                Some(ns) => namespace_selection(sheet, selection, ns),
                None => selection.clone(),
            };
            let wanted = (selected.locales.iter())
                .filter(|ls| !ls.entries.is_empty())
                .filter(|ls| self.language.is_none_or(|l| l == ls.locale));
            for ls in wanted {
                let locale = &locales[ls.locale];
                let path = self.template.expand(&Values {
                    locale,
                    namespace: namespace.unwrap_or(DEFAULT_NAMESPACE),
                    format: self.format,
                })?;
                if let Some(first) = taken.insert(path.clone(), locale.clone()) {
                    return Err(layout::LayoutError::SamePath {
                        first,
                        second: locale.clone(),
                        path: path.display().to_string(),
                    }
                    .into());
                }
                jobs.push(Job {
                    format: self.format,
                    file: layout::PlannedFile {
                        path,
                        selection: Selection {
                            locales: vec![ls.clone()],
                        },
                        options: self.options.clone(),
                        locale_tree: true,
                    },
                    group,
                });
            }
        }
        Ok(())
    }
}

/// `selection` over the entries of namespace `ns` of `sheet`, as indices of the namespace's
/// document (`Document::namespace`: its entries in sheet order).
fn namespace_selection(sheet: &Document, selection: &Selection, ns: &str) -> Selection {
    let mut rank = vec![None; sheet.entries.len()];
    let of_ns =
        (sheet.entries.iter().enumerate()).filter(|(_, e)| e.path.len() > 1 && e.path[0] == ns);
    for (next, (i, _)) in of_ns.enumerate() {
        rank[i] = Some(next);
    }
    Selection {
        locales: (selection.locales.iter())
            .map(|ls| LocaleSelection {
                locale: ls.locale,
                entries: ls
                    .entries
                    .iter()
                    .filter_map(|&e| rank.get(e).copied().flatten())
                    .collect(),
            })
            .collect(),
    }
}

/// Whether a selected entry is a plural one.
fn has_plurals(doc: &Document, selection: &Selection) -> bool {
    let selected = selection.entries_in_any_locale(doc.entries.len());
    (doc.entries.iter().zip(selected)).any(|(entry, selected)| selected && entry.plural.is_some())
}

/// The findings of the checks before publishing (SPEC §9), each with its cell.
fn list_findings(doc: &Document, say: &dyn Fn(String)) {
    for finding in &doc.findings {
        say(format!(
            "depot: finding: {} {}",
            finding.cell, finding.message
        ));
    }
}

/// Renders and writes every planned file under `--path`: each is staged as soon as it is
/// rendered (so bodies do not pile up in memory), and none replaces its file until every
/// one is staged. With --sync, twice as many threads as cores: while some wait for the
/// disk, the others render. `settings`: the sheet's, which say how the app's files read
/// (`arb=plain`) when an existing one is patched.
fn write_files(
    args: &GenerateArgs,
    jobs: &[Job],
    sizes: &[usize],
    render: impl Fn(&Job, &mut Vec<u8>) -> Result<Vec<String>, formats::RenderError> + Sync,
    settings: &crate::model::SheetSettings,
    report: &Report,
) -> Result<(), Failure> {
    // Errors name files by absolute path; the list of files written keeps `--path` as given.
    let root = crate::config::layers::absolute(args.path.clone());
    std::fs::create_dir_all(&root)
        .map_err(|e| Failure(format!("cannot create the folder {}: {e}", root.display())))?;
    // A run killed between staging and committing left its temporary files beside the
    // targets; this run's folders are swept of them before anything is staged.
    let folders: std::collections::BTreeSet<PathBuf> = jobs
        .iter()
        .filter_map(|job| root.join(&job.file.path).parent().map(PathBuf::from))
        .collect();
    let swept = crate::atomic_file::sweep_stale(folders.iter().map(PathBuf::as_path));
    if swept > 0 {
        report.note(format!(
            "depot: removed {swept} temporary file(s) left by an interrupted run"
        ));
    }
    let (durability, threads) = if args.sync {
        (Durability::Synced, 2 * crate::parallel::cores())
    } else {
        (Durability::Atomic, crate::parallel::cores())
    };
    // After a failure the files not started yet are skipped (`None`): the run fails anyway.
    let failed = AtomicBool::new(false);
    let progress = Progress::new(args.quiet, "writing files", Some(jobs.len() as u64));
    // Bodies are rendered into buffers that go round (one per thread at a time): a new
    // buffer of megabytes for each file cost page faults, and its copy into the file
    // (docs/performance.md, "generate").
    let buffers = std::sync::Mutex::new(Vec::<Vec<u8>>::new());
    // The largest files first (xlf's are five times json's): the last to finish are then
    // small ones, and the cores end together instead of one rendering the last xlf alone.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes.get(i).copied().unwrap_or(0)));
    let staged = crate::parallel::map(threads, &order, |&i| -> Result<_, Failure> {
        let job = &jobs[i];
        if failed.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let mut body = (buffers.lock().ok())
            .and_then(|mut free| free.pop())
            .unwrap_or_default();
        let outcome = render(job, &mut body)
            .map_err(Failure::from)
            .and_then(|warnings| {
                let path = root.join(&job.file.path);
                let stage = |path: &std::path::Path, body: &[u8]| {
                    crate::atomic_file::stage_if_changed(path, body, durability)
                        .map_err(|e| Failure(e.to_string()))
                };
                // an existing file is patched (SPEC §12.1) unless --replace; the other
                // files of its folder that define some of the sheet's names get their texts
                let (counts, beside, unchanged) = match args.replace {
                    true => (None, Vec::new(), false),
                    false => {
                        let fresh = std::mem::take(&mut body);
                        let kept = keeping::keep_at(job.format, &path, fresh, settings)
                            .map_err(|e| Failure(e.to_string()))?;
                        body = kept.body;
                        (kept.counts, kept.beside, kept.unchanged)
                    }
                };
                let first = match unchanged {
                    // read and compared while patching: not read again
                    true => crate::atomic_file::Staged::unchanged(&path, durability),
                    false => stage(&path, &body)?,
                };
                let mut staged = vec![(first, job.file.path.clone(), counts)];
                for other in beside {
                    let shown = job
                        .file
                        .path
                        .with_file_name(other.path.file_name().unwrap_or_default());
                    staged.push((stage(&other.path, &other.body)?, shown, Some(other.counts)));
                }
                Ok(Some((staged, warnings)))
            });
        if let Ok(mut free) = buffers.lock() {
            free.push(body);
        }
        if outcome.is_err() {
            failed.store(true, Ordering::Relaxed);
        }
        progress.add(1);
        outcome
    });
    progress.finish();
    // back in the order of the jobs
    let mut staged: Vec<_> = order.into_iter().zip(staged).collect();
    staged.sort_unstable_by_key(|(i, _)| *i);
    let staged = staged.into_iter().map(|(_, outcome)| outcome);
    let mut files = Vec::with_capacity(jobs.len());
    let mut kept = Vec::with_capacity(jobs.len());
    let mut warnings = Vec::new();
    let mut failure = None;
    for (job, outcome) in jobs.iter().zip(staged) {
        match outcome {
            Ok(Some((staged, file_warnings))) => {
                for (staged, shown, counts) in staged {
                    files.push(staged);
                    kept.push((shown, counts));
                }
                warnings.extend(file_warnings.into_iter().map(|w| (job, w)));
            }
            Ok(None) => {}
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
    }
    if let Some(failure) = failure {
        crate::atomic_file::discard(&files);
        return Err(failure);
    }
    for (job, w) in warnings {
        report.note(format!("depot: warning: {} ({w})", job.file.path.display()));
    }
    crate::atomic_file::commit(&files).map_err(|e| Failure(e.to_string()))?;
    for (file, (shown, counts)) in files.iter().zip(kept) {
        let done = if file.changes_the_file() {
            "wrote"
        } else {
            "unchanged"
        };
        let path = args.path.join(shown);
        let what = counts.map(|c| said_kept(&c, &path)).unwrap_or_default();
        report.result(format!("{done} {}{what}", path.display()));
    }
    Ok(())
}

/// What patching a file did, for its summary line (docs/cli.md).
fn said_kept(counts: &keeping::Counts, path: &std::path::Path) -> String {
    let mut said = format!(
        ": {} changed, {} added, {} kept that the sheet does not own",
        counts.changed, counts.added, counts.kept
    );
    if counts.elsewhere > 0 {
        let folder = path.parent().unwrap_or(path).display();
        said.push_str(&format!(
            ", {} left to the other files of {folder} that define them (aapt2 refuses a name defined twice)",
            counts.elsewhere
        ));
    }
    said
}

/// Each file into the folder or file the app already has for its locale under another
/// spelling (`pt-br.lproj/` for `pt-BR.lproj/`): an app that comes back gets no second
/// folder for a locale. A path another file of the run plans, or two files would share,
/// stays as planned.
fn spell_as_the_app(root: &std::path::Path, jobs: &mut [Job]) {
    let planned: std::collections::HashSet<PathBuf> =
        jobs.iter().map(|job| job.file.path.clone()).collect();
    let mut taken = std::collections::HashSet::new();
    let mut app = app_paths::AppPaths::default();
    for job in jobs {
        let spelled = app.spelled(root, &job.file.path);
        if spelled != job.file.path && !planned.contains(&spelled) && taken.insert(spelled.clone())
        {
            job.file.path = spelled;
        }
    }
}

/// Each locale's file of a format whose files may hold their locale as the one top-level
/// key (yml, json) with that key, when the app's files it writes over have it, as Rails
/// and web apps read them (`en:`, `{"en": {…}}`); depot's own files hold the texts alone.
/// The key is spelled as the app spells it: a file whose key the sheet names otherwise
/// (`zh-Hant` for the sheet's `zh-hant`) is rendered from a document of the app's names.
fn locale_on_top_as_the_app(root: &std::path::Path, docs: &mut Docs<'_>, jobs: &mut [Job]) {
    let formats = (Format::ALL.into_iter()).filter(|f| f.descriptor().top_key.is_some());
    for format in formats {
        let one_locale = |job: &Job| match job.file.selection.locales.as_slice() {
            [one] if job.format == format && job.file.locale_tree => Some(one.locale),
            _ => None,
        };
        let ours: Vec<(usize, usize)> = (jobs.iter().enumerate())
            .filter_map(|(at, job)| Some((at, one_locale(job)?)))
            .collect();
        let files = ours.iter().map(|&(at, locale)| {
            let job = &jobs[at];
            let name = &docs.get(job.group).locales[locale];
            (job.file.path.as_path(), name.as_str())
        });
        let Some(keys) = app_layout::locales_at_top(root, format, files) else {
            continue;
        };
        for ((at, locale), key) in ours.into_iter().zip(keys) {
            let job = &mut jobs[at];
            job.file.locale_tree = false;
            let (names, namespace, _) = &docs.list[job.group];
            if names.get(locale) != Some(&key) {
                let mut names = names.clone();
                names[locale] = key;
                job.group = docs.group(names, namespace.clone().as_deref());
            }
        }
    }
}

/// Writing into an app's tree (no `--replace`): the base locale's own copy (`values-en/`,
/// `messages_en.properties`, `Strings.en.resx`; ios: `en.lproj/` or `Base.lproj/`) is left
/// out when the tree has the other copy and not this one, as the app keeps its base texts.
fn drop_base_copy_the_app_lacks(
    root: &std::path::Path,
    doc: &Document,
    options: &LayoutOptions,
    files: &mut Vec<layout::PlannedFile>,
) {
    let Some(base) = options.base else { return };
    let Some((own, copy)) = layout::base_copies(doc, base, options) else {
        return;
    };
    let has = |path: &std::path::Path| match options.format {
        // the folder tells: the app's other files may be there, not this one yet
        Format::Android | Format::Ios | Format::Stringsdict => path
            .parent()
            .is_some_and(|folder| root.join(folder).is_dir()),
        _ => root.join(path).is_file(),
    };
    let (has_own, has_copy) = (has(&own), has(&copy));
    let dropped = match options.format {
        // values/ is Android's default configuration: always written
        Format::Ios | Format::Stringsdict if has_own && !has_copy => copy,
        _ if has_copy && !has_own => own,
        _ => return,
    };
    files.retain(|f| f.path != dropped);
}

/// `--path -`: the one planned file's body on stdout.
fn write_to_stdout(
    jobs: &[Job],
    render: impl Fn(&Job, &mut Vec<u8>) -> Result<Vec<String>, formats::RenderError>,
    report: &Report,
) -> Result<(), Failure> {
    let mut bodies = Vec::with_capacity(jobs.len());
    for job in jobs {
        let mut body = Vec::new();
        let warnings = render(job, &mut body)?;
        for w in &warnings {
            report.note(format!("depot: warning: {} ({w})", job.file.path.display()));
        }
        bodies.push(body);
    }
    for body in &bodies {
        super::output::bytes(body)?;
    }
    Ok(())
}

/// Per-language files and no usable base: say which base copies are not written.
fn warn_about_base(
    doc: &Document,
    selection: &Selection,
    base: Option<usize>,
    asked: &str,
    formats: &[Format],
    report: &Report,
) {
    let say = |line| report.note(line);
    match base {
        None => {
            let missing: Vec<&str> = formats
                .iter()
                .map(|format| {
                    (format.descriptor().files.base_note)
                        .unwrap_or("locale for the missing-key counts")
                })
                .fold(Vec::new(), |mut all, what| {
                    if !all.contains(&what) {
                        all.push(what);
                    }
                    all
                });
            say(format!(
                "depot: warning: no locale matches --base {asked} (locales: {}): no base {}",
                doc.locales.join(", "),
                missing.join(", no base ")
            ))
        }
        Some(b) if !selection.locales.iter().any(|l| l.locale == b) => say(format!(
            "depot: warning: the base locale {} is not among the selected locales: no base folder is written",
            doc.locales[b]
        )),
        Some(_) => {}
    }
}

/// The sheet when it is a local `.csv` file (what `LocalSource` reads as one tab).
fn local_csv(settings: &Settings) -> Option<&std::path::Path> {
    let SourceSetting::LocalFile(path) = &settings.producer.source else {
        return None;
    };
    let csv = (path.extension()).is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    (csv && !path.is_dir()).then_some(path.as_path())
}

/// The document of the local `.csv` file at `path`, its rows converted on a thread of
/// their own as they are read: the conversion (a tenth of a run of six formats, with a
/// core idle) then overlaps the reading. The same document and errors as reading it
/// whole (`LocalSource`) and converting it (`producer::convert_fetched`: one tab).
fn read_and_convert_csv(
    path: &std::path::Path,
    memory: Budget,
    code_page: CodePage,
) -> Result<Result<Document, ConvertError>, LocalSheetError> {
    let convert = |rows: &mut dyn Iterator<Item = Vec<String>>| {
        let mut converted = crate::markup::Rows::default();
        for mut row in rows {
            // as `values.get` gives rows (`sheets::normalise`)
            while row.last().is_some_and(String::is_empty) {
                row.pop();
            }
            converted.push(row);
        }
        crate::producer::convert_rows(converted)
    };
    crate::sheets::local::read_csv_with(path, memory, code_page, &convert)
}

/// Reads the configured sheet. With Google and no refresh token yet, runs the consent flow
/// first, saves the token where `--config-format` says, and goes on with it.
async fn fetch(settings: &Settings, sources: &Sources) -> Result<Vec<Tab>, Failure> {
    let mut settings = settings.clone();
    let source = match source_for(&settings) {
        Err(SourceError::Google(e)) if e.needs_consent() => {
            // Other missing settings are reported before a browser is asked for anything.
            let mut probe = settings.clone();
            probe.service.refresh_token = Secret::new("probe");
            source_for(&probe)?;
            settings.service.refresh_token = consent_token(&settings, sources).await?;
            source_for(&settings)?
        }
        other => other?,
    };
    let describe = source.describe();
    let grid = source.fetch().await;
    let grid = match grid {
        Err(SourceError::Google(e))
            if e.needs_consent() && settings.producer.source == SourceSetting::Google =>
        {
            settings.service.refresh_token = consent_token(&settings, sources).await?;
            source_for(&settings)?.fetch().await
        }
        other => other,
    };
    // A source built for this run has no validators to send, so it always gives a grid.
    grid.map(Fetched::into_tabs).map_err(|e| match e {
        // The local reader's message already names the file, as the budget's does.
        SourceError::Local(e) => Failure(e.to_string()),
        SourceError::OverBudget(e) => Failure(e.to_string()),
        e => Failure(format!("cannot read the sheet {describe}: {e}")),
    })
}

async fn consent_token(settings: &Settings, sources: &Sources) -> Result<Secret, Failure> {
    let intro = "No Google refresh token yet.";
    super::consent_and_save(settings, sources, consent::display_available(), intro).await
}

/// Per locale, the keys it lacks against the base locale: how many, and the first `named`
/// of them by path.
fn summarise_missing(
    doc: &Document,
    selection: &Selection,
    language: Option<usize>,
    base: usize,
    named: usize,
    report: &Report,
) {
    let base_name = &doc.locales[base];
    for (locale, missing) in layout::missing_vs_base(doc, selection, base) {
        if language.is_some_and(|l| doc.locales[l] != locale) || &locale == base_name {
            continue;
        }
        let mut line = format!(
            "{locale}: {} key(s) without a text compared with the base locale {base_name}",
            missing.len()
        );
        if !missing.is_empty() {
            let keys: Vec<String> = (missing.iter().take(named))
                .map(|&e| doc.entries[e].path.join("."))
                .collect();
            line.push_str(": ");
            line.push_str(&keys.join(", "));
            if missing.len() > keys.len() {
                line.push_str(&format!(
                    " and {} more (--verbose names them all)",
                    missing.len() - keys.len()
                ));
            }
        }
        report.result(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `fetch` and `producer::convert_fetched` make of a local sheet file.
    fn read_whole(
        path: &std::path::Path,
        memory: Budget,
        code_page: CodePage,
    ) -> Result<Result<Document, ConvertError>, LocalSheetError> {
        let tabs = crate::sheets::local::read_tabs(path, Some(""), memory, code_page)?;
        Ok(crate::producer::convert_fetched(tabs))
    }

    #[test]
    fn a_csv_converted_as_it_is_read_gives_the_document_and_errors_of_a_whole_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut long = String::from(
            "\u{feff}depot: placeholders=printf\r\n\r\n###,>>>,>>>,$$$,en_US,pl_PL,,\r\n",
        );
        for k in 0..3_000 {
            long.push_str(&format!("t{},SEC{},,,,,,\r\n", k % 3, k / 100));
            long.push_str(&format!(
                ",,K{k},note {k},\"en \"\"{k}\"\"\nline\",pl {k},,\r\n"
            ));
            if k % 500 == 0 {
                long.push_str(&format!(",,K{k},,again,,\r\n,,P{k}[one],,one %d,,\r\n,,P{k}[other],,%d,,\r\n,,P{k}[bad],,x,,\r\n"));
            }
        }
        long.push_str(",,,,,,\r\n\r\n");
        let sheets: Vec<(&str, Vec<u8>)> = vec![
            (
                "basic.csv",
                std::fs::read("tests/fixtures/sheets/basic.csv").unwrap(),
            ),
            ("long.csv", long.into_bytes()),
            ("no_header.csv", b"a,b\nc,d\n".to_vec()),
            ("no_locale.csv", b">>>,en.US\nA,x\n".to_vec()),
            ("no_texts.csv", b">>>,en_US\nA,\nB\n".to_vec()),
            ("header_last.csv", b"x\n>>>,en_US\n".to_vec()),
            ("open_quote.csv", b">>>,en_US\nA,\"x\nB,y\n".to_vec()),
            ("cp1250.csv", b">>>,pl_PL\nA,\xB9\xE6\n".to_vec()),
            ("empty.csv", Vec::new()),
        ];
        let pages = [CodePage::default(), CodePage::named("windows-1250")];
        let budgets = [Budget::default(), Budget::new(2_000)];
        for (name, bytes) in &sheets {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            for (page, memory) in pages
                .iter()
                .flat_map(|p| budgets.iter().map(move |b| (p, b)))
            {
                let streamed = read_and_convert_csv(&path, *memory, *page);
                let whole = read_whole(&path, *memory, *page);
                let shown = |r: &Result<Result<Document, ConvertError>, LocalSheetError>| match r {
                    Ok(Ok(doc)) => Ok(Ok(doc.clone())),
                    Ok(Err(e)) => Ok(Err(e.to_string())),
                    Err(e) => Err(e.to_string()),
                };
                assert_eq!(shown(&streamed), shown(&whole), "{name}");
            }
        }
        // the long sheet converts, with warnings and findings to compare
        let long = read_whole(&dir.path().join("long.csv"), Budget::default(), pages[0]);
        let doc = long.unwrap().unwrap();
        assert_eq!(doc.entries.len(), 3_000 + 6);
        assert!(!doc.warnings.is_empty() && !doc.findings.is_empty());
    }
}
