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
pub mod locale;
pub mod syntax;

mod android;
mod arb;
mod i18next;
mod icu;
mod json;
mod plist;
mod po;
mod properties;
mod resx;
mod strings;
mod stringsdict;
mod tree;
mod utf16;
mod xcstrings;
mod xlf;
mod xml;
mod yml;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::memory_budget::{Budget, Input, OverBudget};
use crate::translations::formats::PlaceholderMode;
use crate::translations::model::{Document, PluralCategory};

/// The formats an app's files come in: the six depot writes (ios as `.strings` and
/// `.stringsdict`) and the five of SPEC §11. Names are `generate --format` names, so
/// `diff` can ask the renderers for the same format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AppFormat {
    Android,
    Ios,
    Stringsdict,
    Json,
    Yml,
    Po,
    Xlf,
    Xcstrings,
    Arb,
    I18next,
    Properties,
    Resx,
}

impl AppFormat {
    pub const ALL: [AppFormat; 12] = [
        AppFormat::Android,
        AppFormat::Ios,
        AppFormat::Stringsdict,
        AppFormat::Json,
        AppFormat::Yml,
        AppFormat::Po,
        AppFormat::Xlf,
        AppFormat::Xcstrings,
        AppFormat::Arb,
        AppFormat::I18next,
        AppFormat::Properties,
        AppFormat::Resx,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AppFormat::Android => "android",
            AppFormat::Ios => "ios",
            AppFormat::Stringsdict => "stringsdict",
            AppFormat::Json => "json",
            AppFormat::Yml => "yml",
            AppFormat::Po => "po",
            AppFormat::Xlf => "xlf",
            AppFormat::Xcstrings => "xcstrings",
            AppFormat::Arb => "arb",
            AppFormat::I18next => "i18next",
            AppFormat::Properties => "properties",
            AppFormat::Resx => "resx",
        }
    }

    /// Whether its keys are flat names (split into levels only with `--split`), as opposed
    /// to paths whose levels the file itself nests.
    pub fn flat_keys(self) -> bool {
        !matches!(
            self,
            AppFormat::Json
                | AppFormat::Yml
                | AppFormat::I18next
                | AppFormat::Xlf
                | AppFormat::Properties
        )
    }
}

impl fmt::Display for AppFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "format must be one of android, ios, stringsdict, json, yml, po, xlf, xcstrings, arb, \
     i18next, properties, resx; got '{0}'"
)]
pub struct UnknownAppFormat(pub String);

impl FromStr for AppFormat {
    type Err = UnknownAppFormat;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        AppFormat::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(value))
            .ok_or_else(|| UnknownAppFormat(value.to_owned()))
    }
}

/// How to read the files (the options of `depot import` and `depot diff`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// `--split SEP`: flat names become levels at SEP.
    pub split: Option<String>,
    /// `--locale L`: the locale of files whose names and content name none.
    pub locale: Option<String>,
    /// `--base L`: the locale of base folders (`values/`, `Base.lproj/`, `messages.properties`,
    /// `Strings.resx`), and the sheet's first locale column.
    pub base: String,
    /// `convert` (the default): each format's placeholders become the sheet's `{name}`
    /// syntax; `keep`: texts are taken as they are.
    pub placeholders: PlaceholderMode,
    /// `--format`: read every file as this format instead of telling it from the name.
    pub format: Option<AppFormat>,
    /// What reading the files may take (`limits.input_memory_bytes`, `--max-memory`).
    pub memory: Budget,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            split: None,
            locale: None,
            base: "en".to_owned(),
            placeholders: PlaceholderMode::Convert,
            format: None,
            memory: Budget::default(),
        }
    }
}

/// A key as a file writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// Levels the file nests (json, yml, i18next) or writes with dots (xlf ids, properties).
    Path(Vec<String>),
    /// Levels joined with `.`, each `.` a level's end: a dotted path as xlf ids and
    /// properties keys write it, or a nested one whose names hold no `.` (one string for
    /// the key, where `Path` takes one per level and a list: import makes a million).
    Dotted(String),
    /// One flat name (android, ios, po, resx, arb, ...).
    Flat(String),
}

impl Key {
    /// A nested key: `Dotted` when no level holds a `.` (which would read as a level's end).
    pub fn nested(path: &[String]) -> Key {
        if path.iter().any(|level| level.contains('.')) {
            Key::Path(path.to_vec())
        } else {
            Key::Dotted(path.join("."))
        }
    }
}

impl Key {
    /// For notes.
    pub fn display(&self) -> String {
        match self {
            Key::Path(path) => path.join("."),
            Key::Dotted(path) | Key::Flat(path) => path.clone(),
        }
    }
}

/// A text as the sheet writes it, or the forms of a plural entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Text(String),
    /// (category, text) in the order the file gives them.
    Plural(Vec<(PluralCategory, String)>),
}

/// One translation read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub key: Key,
    pub value: Value,
    pub comment: Option<String>,
    /// The locale, for files whose content holds several (xlf, xcstrings, a json or yml
    /// file with a locale level); `None`: the file's locale.
    pub locale: Option<String>,
    /// 1-based line in the file (0 when unknown).
    pub line: usize,
}

/// Something in the app's files the sheet cannot carry, or carries changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub file: String,
    /// 1-based, 0 when unknown.
    pub line: usize,
    pub key: String,
    pub what: String,
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

/// `text` with its control characters escaped (`\n`), for one-line messages.
pub fn one_line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_owned();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// What a reader collects from one file.
#[derive(Debug)]
pub struct Reading<'o> {
    pub units: Vec<Unit>,
    /// Notes without their file (the pipeline knows it).
    pub notes: Vec<(usize, String, String)>,
    /// The locale the content names for the whole file (po `Language`, arb `@@locale`).
    pub locale: Option<String>,
    /// The locale the file's name gives, if any: a json or yml file whose one top-level
    /// key is that locale holds it as a level (Rails), one without holds its tree.
    pub named: Option<String>,
    /// Placeholder types a file declares apart from its texts (ARB's `"@id"` metadata).
    pub types: Vec<Declared>,
    pub options: &'o Options,
}

/// The placeholder types one key's metadata declares (ARB: `{"type": "int"}`), which
/// apply to the key's texts in every locale, as gen-l10n applies its template's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub key: Key,
    /// (name, type) of every placeholder typed other than as text.
    pub types: Vec<(String, syntax::Kind)>,
}

impl<'o> Reading<'o> {
    pub fn new(options: &'o Options) -> Reading<'o> {
        Reading {
            units: Vec::new(),
            notes: Vec::new(),
            locale: None,
            named: None,
            types: Vec::new(),
            options,
        }
    }

    pub fn convert(&self) -> bool {
        self.options.placeholders == PlaceholderMode::Convert
    }

    pub fn note(&mut self, line: usize, key: &str, what: impl Into<String>) {
        self.notes.push((line, key.to_owned(), what.into()));
    }

    /// One form of a plural that a format writes as a key per category (properties'
    /// `items.one`, resx's `Items_One`): the first form read makes the unit, in its place
    /// in the file; later ones join it. `pending` maps each such plural to its unit.
    pub fn push_form(
        &mut self,
        pending: &mut std::collections::HashMap<String, usize>,
        key: Key,
        category: PluralCategory,
        converted: syntax::Converted,
        comment: Option<String>,
        line: usize,
    ) {
        let shown = key.display();
        match pending.get(&shown) {
            Some(&at) => {
                if let Value::Plural(forms) = &mut self.units[at].value {
                    forms.push((category, converted.text));
                }
                for loss in converted.losses {
                    self.note(line, &shown, loss);
                }
            }
            None => {
                pending.insert(shown, self.units.len());
                let unit = Unit {
                    key,
                    value: Value::Plural(vec![(category, converted.text)]),
                    comment,
                    locale: None,
                    line,
                };
                self.push(unit, converted.losses);
            }
        }
    }

    /// A unit, with the notes of its conversion (`losses`) under its key.
    pub fn push(&mut self, unit: Unit, losses: Vec<String>) {
        for loss in losses {
            self.note(unit.line, &unit.key.display(), loss);
        }
        self.units.push(unit);
    }
}

/// Where a reader stopped: the file does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based, 0 when unknown.
    pub line: usize,
    pub message: String,
}

impl SyntaxError {
    pub fn new(line: usize, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            line,
            message: message.into(),
        }
    }

    /// The error, naming the key it was found in.
    pub fn in_key(self, key: &str) -> SyntaxError {
        let message = format!("key \"{}\": {}", one_line(key), self.message);
        SyntaxError::new(self.line, message)
    }
}

/// 1-based line of byte offset `at` in `text`.
pub fn line_of(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count()
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
    pub doc: Document,
    pub notes: Vec<Note>,
    /// The files read, with their format, in the order read.
    pub files: Vec<(String, AppFormat)>,
}

/// Reads every translation file under `paths` (files or folders).
pub fn read_app(paths: &[PathBuf], options: &Options) -> Result<Imported, ImportError> {
    let found = discover::discover(paths, options)?;
    let files: Vec<&discover::Found> = found.iter().collect();
    let imported = read_files(&files, options)?;
    if imported.doc.entries.is_empty() {
        return Err(ImportError::Empty {
            notes: imported.notes.len(),
        });
    }
    Ok(imported)
}

/// `files` read on every core and assembled into one document, each file as soon as it
/// and those before it are read (the assembly runs beside the reading). What the files
/// being read and the document assembled so far take stays within the budget
/// (`options.memory`): a file waits for its turn until it fits beside them, and one that
/// does not fit when nothing else is being read is refused, as is a document past it.
pub fn read_files(files: &[&discover::Found], options: &Options) -> Result<Imported, ImportError> {
    let mut assembler = assemble::Assembler::new(options).expecting_locales(files.len());
    let gate = Gate::new(options.memory);
    let numbered: Vec<(usize, &&discover::Found)> = files.iter().enumerate().collect();
    let mut order = files.iter();
    crate::parallel::for_each_in_order(
        crate::parallel::cores(),
        &numbered,
        |(index, file)| gate.read(*index, file, options),
        |(reserved, read)| {
            let Some(file) = order.next() else {
                return Ok(());
            };
            let added = read.and_then(|read| assembler.add(file, read));
            let held = assembler.held();
            gate.release(reserved, held);
            let fits = added.and_then(|()| {
                let what = || "the texts of the files read up to this one".to_owned();
                options
                    .memory
                    .admit(&file.shown, what, 0, held)
                    .map_err(ImportError::from)
            });
            if fits.is_err() {
                gate.close();
            }
            fits
        },
    )?;
    Ok(assembler.finish())
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

    /// Reads file number `index` once its turn comes and it fits; returns what it was
    /// let in with, for `release`.
    fn read(
        &self,
        index: usize,
        file: &discover::Found,
        options: &Options,
    ) -> (u64, Result<FileRead, ImportError>) {
        let input = Input::App(file.format);
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
        let read = opened.and_then(|f| read_opened(f, file, size, options));
        (needs, read)
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

/// One file, read by its format's reader from `opened`, `size` bytes when let in: a file
/// that grew past what the budget allows meanwhile is refused.
fn read_opened(
    opened: std::fs::File,
    file: &discover::Found,
    size: u64,
    options: &Options,
) -> Result<FileRead, ImportError> {
    use std::io::Read;
    let input = Input::App(file.format);
    let largest = options.memory.largest(input).max(size);
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    opened
        .take(largest.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| ImportError::Io {
            path: file.shown.clone(),
            source,
        })?;
    if bytes.len() as u64 > largest {
        options
            .memory
            .admit_file(&file.shown, bytes.len() as u64, input, 0)?;
    }
    read_found(&bytes, file, options)
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
    read_bytes(bytes, file.format, &file.shown, named, options)
}

/// What one file gave: its units and notes, and the locale its content names.
#[derive(Debug, Default)]
pub struct FileRead {
    pub units: Vec<Unit>,
    pub notes: Vec<(usize, String, String)>,
    pub locale: Option<String>,
    pub types: Vec<Declared>,
}

/// Reads `bytes` as `format`; `shown` names the file in errors, `named` is the locale its
/// name gives.
pub fn read_bytes(
    bytes: &[u8],
    format: AppFormat,
    shown: &str,
    named: Option<&str>,
    options: &Options,
) -> Result<FileRead, ImportError> {
    let syntax = |e: SyntaxError| ImportError::Syntax {
        path: shown.to_owned(),
        line: e.line,
        message: e.message,
    };
    let text = match format {
        // .strings files are often UTF-16 (Xcode's default for years); .properties are
        // ISO-8859-1 when not UTF-8, as Java 9+ reads them.
        AppFormat::Ios => strings::decode(bytes).map_err(syntax)?,
        AppFormat::Properties => properties::decode(bytes),
        _ => utf8(bytes).map_err(syntax)?,
    };
    let mut reading = Reading::new(options);
    reading.named = named.map(str::to_owned);
    let done = match format {
        AppFormat::Android => android::read(&text, &mut reading),
        AppFormat::Ios => strings::read(&text, &mut reading),
        AppFormat::Stringsdict => stringsdict::read(&text, &mut reading),
        AppFormat::Json => json::read(&text, &mut reading),
        AppFormat::Yml => yml::read(&text, &mut reading),
        AppFormat::Po => po::read(&text, &mut reading),
        AppFormat::Xlf => xlf::read(&text, &mut reading),
        AppFormat::Xcstrings => xcstrings::read(&text, &mut reading),
        AppFormat::Arb => arb::read(&text, &mut reading),
        AppFormat::I18next => i18next::read(&text, &mut reading),
        AppFormat::Properties => properties::read(&text, &mut reading),
        AppFormat::Resx => resx::read(&text, &mut reading),
    };
    done.map_err(syntax)?;
    Ok(FileRead {
        units: reading.units,
        notes: reading.notes,
        locale: reading.locale,
        types: reading.types,
    })
}

/// UTF-8 text without its byte-order mark.
fn utf8(bytes: &[u8]) -> Result<std::borrow::Cow<'_, str>, SyntaxError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(std::borrow::Cow::Borrowed(text)),
        Err(e) => {
            let at = e.valid_up_to();
            let line = 1 + memchr::memchr_iter(b'\n', &bytes[..at]).count();
            Err(SyntaxError::new(
                line,
                "the file is not UTF-8: save it as UTF-8",
            ))
        }
    }
}

/// `path` for messages: as given, relative to the working folder when under it.
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}
