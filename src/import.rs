//! Import (SPEC §12): an app's translation files, in any format depot writes, read back into
//! a `Document` — the same model a sheet converts to — so it can be written as a sheet
//! (`grid`), merged into an existing one, or compared with one (`diff`).
//!
//! Each format has its reader (one file each below), which turns a file into `Unit`s: a key
//! (a path for nested formats, a flat name for the others), a text or plural forms, a
//! comment, and notes on what the sheet cannot carry. `discover` finds the files and what
//! their names say about locale and format; `assemble` builds the document.

pub mod assemble;
pub mod diff;
pub mod discover;
pub mod grid;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::formats::Format;
pub use crate::formats::reading::{
    Declared, KeepSyntax, Key, Markup, Options, Reading, SyntaxError, Unit, Value, line_of,
    one_line,
};
pub use crate::formats::shared::locale;
use crate::memory_budget::{Budget, OverBudget};
use crate::model::Document;
use crate::model::placeholders::{PlaceholderMode, SheetSyntax};

/// Something in the app's files the sheet cannot carry, or carries changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub file: String,
    /// 1-based, 0 when unknown.
    pub line: usize,
    pub key: String,
    pub what: String,
    /// Not in the sheet, but left in the app's own file by generate (`Reading::keep`):
    /// `what` names its kind.
    pub kept: bool,
}

impl fmt::Display for Note {
    /// `file:line key: what` on one line (a note of no file — a key that is also a
    /// section — starts with the key).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut place = self.file.clone();
        if self.line > 0 {
            place.push_str(&format!(":{}", self.line));
        }
        if !self.key.is_empty() {
            if !place.is_empty() {
                place.push(' ');
            }
            place.push_str(&one_line(&self.key));
        }
        write!(f, "{place}: {}", self.what)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}{}: {message}", line_suffix(*.line))]
    Syntax {
        path: String,
        line: usize,
        message: String,
    },
    #[error(
        "{path}: its name and content name no locale; name it as depot does (values-pl/, \
         pl.lproj/, messages.pl.po, pl/translation.json, app_pl.arb, messages_pl.properties, \
         Strings.pl.resx, ...) or pass --locale"
    )]
    NoLocale { path: String },
    #[error(
        "{path} is not a file depot imports: {what}; give --format (android, ios, stringsdict, \
         json, yml, po, xlf, xcstrings, arb, i18next, properties, resx)"
    )]
    UnknownFormat { path: String, what: String },
    #[error("{path} does not exist")]
    Missing { path: String },
    #[error(
        "no translation files in {paths}: depot imports android res/ folders, *.lproj folders, \
         .xcstrings, and json, i18next, arb, yml, po, xlf, properties and resx files named by \
         locale"
    )]
    NothingFound { paths: String },
    #[error("the files hold no text to import{}", notes_hint(*.notes))]
    Empty { notes: usize },
    #[error(
        "locale '{locale}' (from {path}) cannot be a sheet column: {why}; name the file with \
         a language code or pass --locale"
    )]
    BadLocale {
        path: String,
        locale: String,
        why: &'static str,
    },
    #[error(
        "{path}: its namespace '{namespace}' cannot be a tab of the sheet ({why}), and the \
         app's files hold {count} namespaces, a tab each; import that namespace's files on \
         their own"
    )]
    BadNamespace {
        path: String,
        namespace: String,
        count: usize,
        why: &'static str,
    },
    #[error(transparent)]
    OverBudget(#[from] OverBudget),
    /// Reading stopped before this file: an earlier one failed (never reported).
    #[error("reading stopped")]
    Stopped,
}

fn line_suffix(line: usize) -> String {
    if line > 0 {
        format!(":{line}")
    } else {
        String::new()
    }
}

fn notes_hint(notes: usize) -> String {
    if notes > 0 {
        format!(" ({notes} item(s) the sheet cannot carry were left out)")
    } else {
        String::new()
    }
}

/// The app's strings: the document, and everything left out or changed on the way.
#[derive(Debug, Clone, Default)]
pub struct Imported {
    /// The app's strings, when its files are one namespace (`namespaces` is empty).
    pub doc: Document,
    /// When the app's files are several namespaces (SPEC §14: a tab each; `Files::namespace`
    /// tells a file's), each one's document by name, in name order; `doc` is then empty.
    pub namespaces: Vec<(String, Document)>,
    /// The name of the one namespace of `doc`, when the app's files name one.
    pub namespace: Option<String>,
    pub notes: Vec<Note>,
    /// The files read, with their format, in the order read.
    pub files: Vec<(String, Format)>,
    /// How the placeholders were taken, for the summary, when import chose
    /// (`Options::keep_syntax`).
    pub placeholders: Option<String>,
    /// The files of a folder not read because `--format` names another format.
    pub skipped: Vec<String>,
    /// Some file names plural forms as JSON v3's `KEY_0`, `KEY_1`, … (for the summary).
    pub v3_numbered: bool,
    /// The Android files were read with their markup as tags already (`Markup::Detect`
    /// found some as `read_files` read them): `read_app` need not read them again so.
    pub tags_read: bool,
}

/// The placeholder syntax import keeps for a format's files when the app's files share
/// it (SPEC §12.1); `Depot`: the format's placeholders become depot's `{name}` (json, arb
/// and xlf, whose ICU or plain texts are depot's already).
pub fn syntax_of(format: Format) -> SheetSyntax {
    format.descriptor().syntax
}

/// How `files` are read under `keep`: the options to read them with, the syntax the sheet
/// holds, and the summary's line.
fn choose_syntax(
    files: &[discover::Found],
    options: &Options,
) -> (Options, SheetSyntax, Option<String>) {
    let mut syntaxes: Vec<(SheetSyntax, Format)> = Vec::new();
    for file in files {
        let syntax = syntax_of(file.format);
        if !syntaxes.iter().any(|(s, _)| *s == syntax) {
            syntaxes.push((syntax, file.format));
        }
    }
    let mut chosen = options.clone();
    let keep = |chosen: &mut Options, syntax: SheetSyntax| {
        chosen.placeholders = PlaceholderMode::Keep;
        let line = format!(
            "placeholders: kept as the app writes them ({0}); the sheet's settings cell \
             says so (depot: placeholders={0}), and generate, serve and diff follow it",
            syntax.name()
        );
        (syntax, Some(line))
    };
    let convert = |chosen: &mut Options, why: String| {
        chosen.placeholders = PlaceholderMode::Convert;
        (SheetSyntax::Depot, Some(why))
    };
    let (syntax, line) = match (options.keep_syntax, syntaxes.as_slice()) {
        (KeepSyntax::No, _) => return (chosen, SheetSyntax::Depot, None),
        // json, arb, xlf: as before, nothing to say
        (_, [(SheetSyntax::Depot, _)] | []) => {
            chosen.placeholders = PlaceholderMode::Convert;
            (SheetSyntax::Depot, None)
        }
        (KeepSyntax::Any, [(syntax, _)]) => keep(&mut chosen, *syntax),
        (KeepSyntax::Only(wanted), [(syntax, _)]) if wanted == *syntax => {
            keep(&mut chosen, *syntax)
        }
        (KeepSyntax::Only(wanted), [(syntax, format)]) => convert(
            &mut chosen,
            format!(
                "placeholders: converted to depot's {{name}}: the sheet merged into holds {}, \
                 the app's {format} files {}",
                wanted.name(),
                syntax.name()
            ),
        ),
        (_, several) => {
            let named: Vec<String> = (several.iter())
                .map(|(syntax, format)| format!("{format} ({})", syntax.name()))
                .collect();
            convert(
                &mut chosen,
                format!(
                    "placeholders: converted to depot's {{name}}: the files mix syntaxes ({}) \
                     and one sheet holds one; --placeholders keep keeps them as they are",
                    named.join(", ")
                ),
            )
        }
    };
    (chosen, syntax, line)
}

impl Imported {
    /// Its documents: the one, unnamed, or each namespace's with its name.
    pub fn documents(&self) -> Vec<(Option<&str>, &Document)> {
        match self.namespaces.is_empty() {
            true => vec![(None, &self.doc)],
            false => (self.namespaces.iter())
                .map(|(name, doc)| (Some(name.as_str()), doc))
                .collect(),
        }
    }

    fn documents_mut(&mut self) -> Vec<&mut Document> {
        match self.namespaces.is_empty() {
            true => vec![&mut self.doc],
            false => self.namespaces.iter_mut().map(|(_, doc)| doc).collect(),
        }
    }
}

/// A namespace's name (`None`: the app's files are one namespace) and its files.
pub type Namespace<'f> = (Option<String>, Vec<&'f discover::Found>);

/// The files of each namespace (SPEC §14), in name order, the name of each: one group of
/// every file, unnamed, when the files name at most one namespace (as an app of one
/// namespace always was imported). Files of a format without namespaces (android, arb,
/// json, ...) go to the app's main namespace (`Localizable`, `translation`, ...) when its
/// files name it, else to the first.
pub fn by_namespace(files: &[discover::Found]) -> Result<Vec<Namespace<'_>>, ImportError> {
    let names = discover::namespace_names(files);
    if names.len() < 2 {
        return Ok(vec![(None, files.iter().collect())]);
    }
    for file in files {
        let Some(name) = file.namespace.as_deref() else {
            continue;
        };
        let why = if name.is_empty() {
            Some("it is empty")
        } else if name.contains('.') {
            Some("a tab's name may not hold '.', which separates filters and key paths")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(ImportError::BadNamespace {
                path: file.shown.clone(),
                namespace: name.to_owned(),
                count: names.len(),
                why,
            });
        }
    }
    let mains: Vec<&str> = (files.iter())
        .filter(|f| f.namespace.is_some())
        .filter_map(|f| Some(f.format.descriptor().files.namespace?.main))
        .collect();
    let main = (names.iter())
        .find(|name| mains.contains(name))
        .unwrap_or(&names[0]);
    Ok(names
        .iter()
        .map(|name| {
            let of_name = (files.iter())
                .filter(|f| f.namespace.as_deref().unwrap_or(main) == *name)
                .collect();
            (Some((*name).to_owned()), of_name)
        })
        .collect())
}

/// What a document takes in memory once assembled, estimated as the assembler counts it
/// (`Assembler::held`): the files of the next namespace are read beside it.
fn held(doc: &Document) -> u64 {
    let texts = |texts: &[Option<String>]| -> u64 {
        (texts.iter().flatten()).map(|t| 64 + t.len() as u64).sum()
    };
    let entries: u64 = (doc.entries.iter())
        .map(|e| {
            let forms = e
                .plural
                .as_ref()
                .map_or(0, |p| p.forms.iter().map(|f| texts(&f.texts)).sum::<u64>());
            200 + 2 * e.path.iter().map(|l| l.len() as u64).sum::<u64>() + texts(&e.texts) + forms
        })
        .sum();
    entries.saturating_mul(2)
}

/// The files found read into one document, or one per namespace when they are several
/// (`by_namespace`), each namespace's with the budget the ones before it left.
fn read_namespaces(found: &[discover::Found], options: &Options) -> Result<Imported, ImportError> {
    let mut groups = by_namespace(found)?;
    Ok(match groups.as_slice() {
        [(None, _)] => Imported {
            namespace: found.iter().find_map(|f| f.namespace.clone()),
            ..read_files(&groups.remove(0).1, options)?
        },
        _ => {
            let mut imported = Imported::default();
            let mut taken = 0u64;
            // read as tags when every group's Android files were
            let mut tags_read = true;
            for (name, files) in groups {
                // what the namespaces read before take is held beside this one's files
                let options = Options {
                    memory: Budget::new(options.memory.bytes().saturating_sub(taken)),
                    ..options.clone()
                };
                let one = read_files(&files, &options)?;
                if files.iter().any(|f| f.format == Format::Android) {
                    tags_read &= one.tags_read;
                }
                imported.v3_numbered |= one.v3_numbered;
                imported.notes.extend(one.notes);
                imported.files.extend(one.files);
                if !one.doc.entries.is_empty() {
                    taken = taken.saturating_add(held(&one.doc));
                    imported
                        .namespaces
                        .push((name.unwrap_or_default(), one.doc));
                }
            }
            imported.tags_read = tags_read;
            if imported.namespaces.len() == 1 {
                let (name, doc) = imported.namespaces.remove(0);
                (imported.doc, imported.namespace) = (doc, Some(name));
            }
            // one settings cell on every tab: what the files of any namespace ask
            let mut settings = crate::model::SheetSettings::default();
            for doc in imported.documents_mut() {
                settings.add(&doc.settings);
            }
            for doc in imported.documents_mut() {
                doc.settings = settings;
            }
            imported
        }
    })
}

/// Reads every translation file under `paths` (files or folders): one document, or one
/// per namespace when the files are several (`by_namespace`).
pub fn read_app(paths: &[PathBuf], options: &Options) -> Result<Imported, ImportError> {
    let (found, skipped) = discover::discover_counting(paths, options)?;
    let (options, syntax, line) = choose_syntax(&found, options);
    let mut imported = read_namespaces(&found, &options)?;
    let mut again = options.clone();
    let markup = options.markup == Markup::Detect
        && (imported.documents().iter()).any(|(_, doc)| doc.settings.android_markup);
    if markup {
        // the Android files hold markup (read as text first: most apps have none): read
        // with it as tags (a `<` that is text then `&lt;`), as the new sheet will say
        // (`android=markup`); `read_files` mostly did so once it met the markup
        again.markup = Markup::Tags;
    }
    if !options.i18next_v3
        && (imported.documents().iter()).any(|(_, doc)| doc.settings.i18next_v3)
        && found.iter().any(|f| one_form_i18next(f, &options))
    {
        // the app's i18next files are JSON v3: its files of a language of one form name
        // their plurals' form `KEY_0` (read again so, as plurals)
        again.i18next_v3 = true;
    }
    if again.i18next_v3 != options.i18next_v3 || (markup && !imported.tags_read) {
        imported = read_namespaces(&found, &again)?;
    }
    for doc in imported.documents_mut() {
        if syntax != SheetSyntax::Depot {
            doc.settings.placeholders = Some(syntax);
        }
    }
    imported.placeholders = line;
    let mut settings = crate::model::SheetSettings::default();
    for (_, doc) in imported.documents().iter() {
        settings.add(&doc.settings);
    }
    for said in [
        settings.i18next_v3.then_some(match imported.v3_numbered {
            false => {
                "plurals: named as i18next JSON v3 names them (KEY, KEY_plural); the \
                 settings cell says so (i18next=v3), and generate writes them so"
            }
            true => {
                "plurals: named as i18next JSON v3 names them (KEY, KEY_plural; KEY_0, \
                 KEY_1, … in languages of one form or of more than two); the settings cell \
                 says so (i18next=v3), and generate writes them so"
            }
        }),
        settings.arb_plain.then_some(
            "arb: apostrophes are text, as gen-l10n reads them without use-escaping \
             (l10n.yaml); the settings cell says so (arb=plain), and generate writes them so",
        ),
        settings.android_markup.then_some(
            "markup: Android's tags in strings (<b>, <font>, <annotation>, <xliff:g>) stay in \
             the texts; the settings cell says so (android=markup), and generate writes them \
             as markup",
        ),
    ]
    .into_iter()
    .flatten()
    {
        imported.placeholders = Some(match imported.placeholders.take() {
            Some(line) => format!("{line}\n{said}"),
            None => said.to_owned(),
        });
    }
    imported.skipped = skipped;
    if (imported.documents().iter()).all(|(_, doc)| doc.entries.is_empty()) {
        return Err(ImportError::Empty {
            notes: imported.notes.len(),
        });
    }
    Ok(imported)
}

/// Whether `file` is an i18next file of a language of one plural form, whose JSON v3
/// plurals are `KEY_0` alone (`Options::i18next_v3`).
fn one_form_i18next(file: &discover::Found, options: &Options) -> bool {
    let locale = match &file.hint {
        locale::Hint::Code(code) => code.as_str(),
        locale::Hint::Base => options.base.as_str(),
        locale::Hint::None => return false,
    };
    file.format == Format::I18next
        && crate::model::plurals::i18next_numbered(locale).is_some_and(|forms| forms.len() == 1)
}

/// `files` read on every core and assembled into one document, each file as soon as it
/// and those before it are read (the assembly runs beside the reading). What the files
/// being read and the document assembled so far take stays within the budget
/// (`options.memory`): a file waits for its turn until it fits beside them, and one that
/// does not fit when nothing else is being read is refused, as is a document past it.
pub fn read_files(files: &[&discover::Found], options: &Options) -> Result<Imported, ImportError> {
    // `read_detecting` gives `None` when something failed once the files were read as
    // tags: read as before (as text, `read_app` then as tags), for the error that gives
    if options.markup == Markup::Detect
        && files.iter().any(|f| f.format == Format::Android)
        && let Some(imported) = read_detecting(files, options)?
    {
        return Ok(imported);
    }
    read_each(files, options)
}

/// `files` read with `options` as they are (`read_files`).
fn read_each(files: &[&discover::Found], options: &Options) -> Result<Imported, ImportError> {
    let mut assembler = assemble::Assembler::new(options).expecting_locales(files.len());
    let gate = Gate::new(options.memory);
    let numbered: Vec<(usize, &&discover::Found)> = files.iter().enumerate().collect();
    let mut order = files.iter();
    crate::parallel::for_each_in_order(
        crate::parallel::cores(),
        &numbered,
        |(index, file)| gate.read(*index, file, |bytes| read_found(&bytes, file, options)),
        |(reserved, read)| {
            let Some(file) = order.next() else {
                return Ok(());
            };
            add_read(&mut assembler, &gate, reserved, file, read, options)
        },
    )?;
    Ok(assembler.finish())
}

/// `read` (the next file's) added to the document; the gate learns what the document
/// takes now, and lets no file in any more when it failed or does not fit.
fn add_read(
    assembler: &mut assemble::Assembler<'_>,
    gate: &Gate,
    reserved: u64,
    file: &discover::Found,
    read: Result<FileRead, ImportError>,
    options: &Options,
) -> Result<(), ImportError> {
    let added = read.and_then(|read| assembler.add(file, read));
    let held = assembler.held();
    gate.release(reserved, held);
    let fits = added.and_then(|()| fits(file, held, options));
    if fits.is_err() {
        gate.close();
    }
    fits
}

/// Whether the document, `held` once `file` is in it, fits the budget.
fn fits(file: &discover::Found, held: u64, options: &Options) -> Result<(), ImportError> {
    let what = || "the texts of the files read up to this one".to_owned();
    (options.memory)
        .admit(&file.shown, what, 0, held)
        .map_err(ImportError::from)
}

/// Why `read_detecting` stopped.
enum Stop {
    /// As reading the files as text would have: the error is the one of `Markup::Detect`.
    Failed(ImportError),
    /// Something failed once the files were read as tags: which error `Detect` gives,
    /// only reading as it does tells.
    Again,
}

/// `read_files` for `Markup::Detect` in one reading of most files: read as text until a
/// file shows markup `Tags` would carry (`Markup::Probe`, which stops there), then as
/// tags (`Markup::Checked`) from that file on, and the files read before it again so. The
/// document is `Tags`' (`tags_read`) when some file holds markup, else `Detect`'s, as
/// reading every file as text and then again as tags would give; `None` when a file
/// failed once read as tags (`Stop::Again`).
fn read_detecting(
    files: &[&discover::Found],
    options: &Options,
) -> Result<Option<Imported>, ImportError> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let probe = Options {
        markup: Markup::Probe,
        ..options.clone()
    };
    let checked = Options {
        markup: Markup::Checked,
        ..options.clone()
    };
    // some file showed markup: the readers read as tags from then on
    let switched = AtomicBool::new(false);
    let read_one = |bytes: &[u8], file: &discover::Found| {
        if switched.load(Ordering::Relaxed) {
            return (Markup::Checked, read_found(bytes, file, &checked));
        }
        let read = read_found(bytes, file, &probe);
        if matches!(&read, Ok(read) if read.implies.android_markup) {
            switched.store(true, Ordering::Relaxed);
        }
        // read as text while this file or another showed markup: again as tags, here,
        // beside the other readers rather than on the assembling thread
        if read.is_ok() && file.format == Format::Android && switched.load(Ordering::Relaxed) {
            return (Markup::Checked, read_found(bytes, file, &checked));
        }
        (Markup::Probe, read)
    };
    let mut assembler = assemble::Assembler::new(options).expecting_locales(files.len());
    // the document holds readings as tags
    let mut tags = false;
    let gate = Gate::new(options.memory);
    let numbered: Vec<(usize, &&discover::Found)> = files.iter().enumerate().collect();
    let mut order = files.iter().enumerate();
    let done = crate::parallel::for_each_in_order(
        crate::parallel::cores(),
        &numbered,
        |(index, file)| gate.read(*index, file, |bytes| Ok(read_one(&bytes, file))),
        |(reserved, got)| {
            let Some((at, file)) = order.next() else {
                return Ok(());
            };
            let (mode, read) = got.unwrap_or_else(|e| (Markup::Probe, Err(e)));
            if mode == Markup::Checked && !tags && read.is_ok() {
                // the first file read as tags: a new document, the files before it read
                // again so
                assembler = assemble::Assembler::new(options).expecting_locales(files.len());
                tags = true;
                let earlier = (files[..at].iter()).try_for_each(|earlier| {
                    let read = read_path(earlier, assembler.held(), &checked)?;
                    assembler.add(earlier, read)?;
                    fits(earlier, assembler.held(), options)
                });
                if earlier.is_err() {
                    gate.release(reserved, assembler.held());
                    gate.close();
                    return Err(Stop::Again);
                }
            }
            let read = match read {
                // read as text before the readers knew
                Ok(_) if tags && mode == Markup::Probe && file.format == Format::Android => {
                    read_path(file, assembler.held(), &checked)
                }
                read => read,
            };
            // up to the first file read as tags, this is what reading as text does
            let as_text = !tags && mode == Markup::Probe;
            add_read(&mut assembler, &gate, reserved, file, read, options).map_err(|e| {
                if as_text {
                    Stop::Failed(e)
                } else {
                    Stop::Again
                }
            })
        },
    );
    match done {
        Ok(()) => Ok(Some(Imported {
            tags_read: tags,
            ..assembler.finish()
        })),
        Err(Stop::Failed(e)) => Err(e),
        Err(Stop::Again) => Ok(None),
    }
}

/// `file` read from its path with `options`, the document taking `held` beside it.
fn read_path(
    file: &discover::Found,
    held: u64,
    options: &Options,
) -> Result<FileRead, ImportError> {
    let io = |source| ImportError::Io {
        path: file.shown.clone(),
        source,
    };
    let opened = std::fs::File::open(&file.path).map_err(io)?;
    let size = opened.metadata().map_err(io)?.len();
    (options.memory).admit_file(&file.shown, size, file.format.input(), held)?;
    read_found(
        &bytes_of(opened, file, size, options.memory)?,
        file,
        options,
    )
}

/// Lets files be read in their order while what they take fits beside the document.
struct Gate {
    budget: Budget,
    state: std::sync::Mutex<GateState>,
    changed: std::sync::Condvar,
}

#[derive(Default)]
struct GateState {
    /// The next file to let in.
    next: usize,
    /// What the files let in and not yet assembled take, estimated.
    reserved: u64,
    /// What the document assembled so far takes, estimated.
    held: u64,
    /// Reading stopped (a file failed or did not fit).
    closed: bool,
}

impl Gate {
    fn new(budget: Budget) -> Gate {
        Gate {
            budget,
            state: std::sync::Mutex::new(GateState::default()),
            changed: std::sync::Condvar::new(),
        }
    }

    /// Reads file number `index` once its turn comes and it fits, and gives its bytes to
    /// `read`; returns what it was let in with, for `release`.
    fn read<R>(
        &self,
        index: usize,
        file: &discover::Found,
        read: impl FnOnce(Vec<u8>) -> Result<R, ImportError>,
    ) -> (u64, Result<R, ImportError>) {
        let input = file.format.input();
        let opened = std::fs::File::open(&file.path)
            .and_then(|f| f.metadata().map(|m| (f, m.len())))
            .map_err(|source| ImportError::Io {
                path: file.shown.clone(),
                source,
            });
        let (opened, size) = match opened {
            Ok((f, size)) => (Ok(f), size),
            Err(e) => (Err(e), 0),
        };
        let needs = Budget::estimate(size, input);
        let Ok(mut state) = self.state.lock() else {
            return (0, Err(ImportError::Stopped));
        };
        loop {
            if state.closed {
                return (0, Err(ImportError::Stopped));
            }
            if state.next == index {
                if state.reserved == 0 {
                    // alone: it fits beside the document, or never will
                    if let Err(e) = self.budget.admit_file(&file.shown, size, input, state.held) {
                        state.closed = true;
                        self.changed.notify_all();
                        return (0, Err(e.into()));
                    }
                }
                let fits = state
                    .held
                    .saturating_add(state.reserved)
                    .saturating_add(needs)
                    <= self.budget.bytes();
                if state.reserved == 0 || fits {
                    state.next += 1;
                    state.reserved += needs;
                    self.changed.notify_all();
                    break;
                }
            }
            state = match self.changed.wait(state) {
                Ok(state) => state,
                Err(_) => return (0, Err(ImportError::Stopped)),
            };
        }
        drop(state);
        let bytes = opened.and_then(|f| bytes_of(f, file, size, self.budget));
        (needs, bytes.and_then(read))
    }

    /// A file let in with `reserved` is assembled; the document now takes `held`.
    fn release(&self, reserved: u64, held: u64) {
        if let Ok(mut state) = self.state.lock() {
            state.reserved = state.reserved.saturating_sub(reserved);
            state.held = held;
        }
        self.changed.notify_all();
    }

    /// No file is let in any more.
    fn close(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.closed = true;
        }
        self.changed.notify_all();
    }
}

/// The bytes of one file, from `opened`, `size` bytes when let in: a file that grew past
/// what the budget (`memory`) allows meanwhile is refused.
fn bytes_of(
    opened: std::fs::File,
    file: &discover::Found,
    size: u64,
    memory: Budget,
) -> Result<Vec<u8>, ImportError> {
    use std::io::Read;
    let input = file.format.input();
    let largest = memory.largest(input).max(size);
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    opened
        .take(largest.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| ImportError::Io {
            path: file.shown.clone(),
            source,
        })?;
    if bytes.len() as u64 > largest {
        memory.admit_file(&file.shown, bytes.len() as u64, input, 0)?;
    }
    Ok(bytes)
}

/// One file's bytes, read by its format's reader.
fn read_found(
    bytes: &[u8],
    file: &discover::Found,
    options: &Options,
) -> Result<FileRead, ImportError> {
    let named = match &file.hint {
        locale::Hint::Code(code) => Some(code.as_str()),
        locale::Hint::Base => Some(options.base.as_str()),
        locale::Hint::None => None,
    };
    if file.format == Format::Arb && options.arb_plain.is_none() {
        // each app's gen-l10n reads its apostrophes as its l10n.yaml says
        let folder = file.path.parent().unwrap_or(Path::new("."));
        let options = Options {
            arb_plain: Some(crate::formats::arb::files::reads_plain(folder)),
            ..options.clone()
        };
        return read_bytes(bytes, file.format, &file.shown, named, &options);
    }
    read_bytes(bytes, file.format, &file.shown, named, options)
}

/// What one file gave: its units and notes, and the locale its content names.
#[derive(Debug, Default)]
pub struct FileRead {
    pub units: Vec<Unit>,
    pub notes: Vec<(usize, String, String)>,
    pub kept: Vec<(usize, String, String)>,
    pub locale: Option<String>,
    pub types: Vec<Declared>,
    /// What the file's shape asks of the settings cell (`Reading::implies`).
    pub implies: crate::model::SheetSettings,
    /// The file names plural forms as JSON v3's `KEY_0`, `KEY_1`, … (`Reading::v3_numbered`).
    pub v3_numbered: bool,
}

/// About what the densest formats spend on a key and its text (a `.strings` line of a
/// 26-character key and a 45-character text is 85 bytes, an xcstrings unit 200): a denser
/// file grows its list once more, a sparser one leaves address space it never touches.
const BYTES_PER_UNIT_AT_LEAST: usize = 64;

/// Reads `bytes` as `format`; `shown` names the file in errors, `named` is the locale its
/// name gives.
pub fn read_bytes(
    bytes: &[u8],
    format: Format,
    shown: &str,
    named: Option<&str>,
    options: &Options,
) -> Result<FileRead, ImportError> {
    let syntax = |e: SyntaxError| ImportError::Syntax {
        path: shown.to_owned(),
        line: e.line,
        message: e.message,
    };
    let descriptor = format.descriptor();
    let text = (descriptor.decode)(bytes).map_err(syntax)?;
    let mut reading = Reading::new(options);
    reading.named = named.map(str::to_owned);
    // Room for the units a file of this size holds: a list grown by doubling copied
    // itself at each step (2% of an i18next import's instructions, callgrind). Only the
    // pages filled are used; the rest is address space.
    reading.units.reserve(text.len() / BYTES_PER_UNIT_AT_LEAST);
    (descriptor.read)(&text, &mut reading).map_err(syntax)?;
    Ok(FileRead {
        units: reading.units,
        notes: reading.notes,
        kept: reading.kept,
        locale: reading.locale,
        types: reading.types,
        implies: reading.implies,
        v3_numbered: reading.v3_numbered,
    })
}

/// `path` for messages: as given, relative to the working folder when under it.
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::shared::locale::Hint;

    fn found(path: &str, format: Format, namespace: Option<&str>) -> discover::Found {
        discover::Found {
            path: PathBuf::from(path),
            shown: path.to_owned(),
            format,
            hint: Hint::None,
            configuration: None,
            namespace: namespace.map(str::to_owned),
        }
    }

    fn groups(files: &[discover::Found]) -> Vec<(Option<String>, Vec<String>)> {
        (by_namespace(files).unwrap().into_iter())
            .map(|(name, files)| (name, files.iter().map(|f| f.shown.clone()).collect()))
            .collect()
    }

    /// One namespace (or none) is one group, unnamed, as an app always was; several are a
    /// group each in name order, the files of formats without namespaces in the app's
    /// main one (the table `Localizable`, not the first by name).
    #[test]
    fn files_are_grouped_by_namespace_with_the_others_in_the_main_one() {
        let android = found("values/strings.xml", Format::Android, None);
        let table =
            |name: &str| found(&format!("en.lproj/{name}.strings"), Format::Ios, Some(name));
        assert_eq!(
            groups(&[android.clone(), table("Localizable")]),
            [(
                None,
                vec![
                    "values/strings.xml".to_owned(),
                    "en.lproj/Localizable.strings".to_owned()
                ]
            )]
        );
        assert_eq!(
            groups(&[android.clone(), table("Localizable"), table("InfoPlist")]),
            [
                (
                    Some("InfoPlist".to_owned()),
                    vec!["en.lproj/InfoPlist.strings".to_owned()]
                ),
                (
                    Some("Localizable".to_owned()),
                    vec![
                        "values/strings.xml".to_owned(),
                        "en.lproj/Localizable.strings".to_owned()
                    ]
                ),
            ]
        );
        // a tab's name may not hold '.'
        let err = by_namespace(&[table("Main"), table("Main.storyboard")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "en.lproj/Main.storyboard.strings: its namespace 'Main.storyboard' cannot be a tab \
             of the sheet (a tab's name may not hold '.', which separates filters and key \
             paths), and the app's files hold 2 namespaces, a tab each; import that \
             namespace's files on their own"
        );
    }

    /// An Android app of six locales whose files hold, besides texts that only look like
    /// markup, what `extra` gives file n: markup, or a string one reading refuses.
    fn android_app(extra: &[(usize, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (n, folder) in [
            "values",
            "values-de",
            "values-fr",
            "values-it",
            "values-pl",
            "values-es",
        ]
        .into_iter()
        .enumerate()
        {
            let mut xml = String::from("<resources>\n");
            for k in 0..40 {
                xml.push_str(&format!(
                    "<string name=\"k{k}\">{folder} {k} &lt;b&gt;x&lt;/b&gt; &amp; %1$s</string>\n"
                ));
            }
            for (at, text) in extra.iter().filter(|(at, _)| *at == n) {
                xml.push_str(&format!("<string name=\"extra{at}\">{text}</string>\n"));
            }
            xml.push_str(
                "<plurals name=\"p\"><item quantity=\"other\">%d &lt;i&gt;</item></plurals>\n",
            );
            xml.push_str("</resources>\n");
            let folder = dir.path().join(folder);
            std::fs::create_dir(&folder).unwrap();
            std::fs::write(folder.join("strings.xml"), xml).unwrap();
        }
        dir
    }

    /// `read_files` as `read_app` takes it: again as tags when it found markup and did
    /// not read the files so; the document, notes and files, or the error.
    fn read_detected(files: &[&discover::Found], options: &Options) -> String {
        let tags = Options {
            markup: Markup::Tags,
            ..options.clone()
        };
        let got = read_files(files, options).and_then(|got| {
            match got.doc.settings.android_markup && !got.tags_read {
                true => read_files(files, &tags),
                false => Ok(got),
            }
        });
        match got {
            Ok(got) => format!("{:?}", (got.doc, got.notes, got.files)),
            Err(e) => e.to_string(),
        }
    }

    /// As import read an app before: every file as text, and every file again as tags
    /// when some held markup.
    fn read_twice(files: &[&discover::Found], options: &Options) -> String {
        let tags = Options {
            markup: Markup::Tags,
            ..options.clone()
        };
        let got = read_each(files, options).and_then(|got| match got.doc.settings.android_markup {
            true => read_each(files, &tags),
            false => Ok(got),
        });
        match got {
            Ok(got) => format!("{:?}", (got.doc, got.notes, got.files)),
            Err(e) => e.to_string(),
        }
    }

    /// `Markup::Detect` reads the files as text until one shows markup, and as tags from
    /// there (those before again): the document (or error) is the one of reading every
    /// file as text and then again as tags, wherever the markup and the strings that one
    /// reading refuses are.
    #[test]
    fn detecting_markup_reads_as_reading_as_text_and_then_again_as_tags() {
        let markup = "Tap <b>here</b> &lt;i&gt;";
        // refused by the reading as tags (a pair's halves in two spans), by the one as
        // text (an escape a span cuts, a lone half to the text alone)
        let tags_refuse = "\\uD83D<b>\\uDE00</b>";
        let text_refuses = "\\<b>uD83D</b>";
        let cases: Vec<Vec<(usize, &str)>> = vec![
            vec![],
            vec![(0, markup)],
            vec![(5, markup)],
            vec![(2, markup), (4, markup)],
            vec![(1, markup), (3, tags_refuse)],
            vec![(0, markup), (4, text_refuses)],
            vec![(3, markup), (0, text_refuses)],
            vec![(3, markup), (3, tags_refuse)],
            vec![(0, tags_refuse)],
            vec![(5, text_refuses)],
        ];
        for extra in cases {
            let app = android_app(&extra);
            let options = Options {
                markup: Markup::Detect,
                ..Options::default()
            };
            let (found, _) =
                discover::discover_counting(&[app.path().to_owned()], &options).unwrap();
            let files: Vec<&discover::Found> = found.iter().collect();
            assert_eq!(files.len(), 6);
            let before = read_twice(&files, &options);
            // the readers race: which file's reading shows the markup first varies
            for _ in 0..3 {
                assert_eq!(read_detected(&files, &options), before, "{extra:?}");
            }
        }
    }
}
