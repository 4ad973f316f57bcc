//! What every format's reader makes of one file (the one shape of `read` in the table of
//! `formats`): units (a key, a text or plural forms, a comment), notes on what the sheet
//! cannot carry, the locale the content names; and the options of reading.

use std::borrow::Cow;

use crate::formats::Format;
use crate::formats::shared::syntax;
use crate::memory_budget::Budget;
use crate::model::PluralCategory;
use crate::model::placeholders::PlaceholderMode;

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
    /// `depot import` without `--placeholders` (SPEC §12.1): the app's texts stay in its
    /// own syntax when all its files share one, and the sheet says which; this overrides
    /// `placeholders` then.
    pub keep_syntax: KeepSyntax,
    /// `--format`: read every file as this format instead of telling it from the name.
    pub format: Option<Format>,
    /// What reading the files may take (`limits.input_memory_bytes`, `--max-memory`).
    pub memory: Budget,
    /// How ARB texts' apostrophes read (gen-l10n's `use-escaping`): `Some(true)` as text
    /// (its default, the sheet's `arb=plain`), `Some(false)` as ICU quoting (`arb=escaping`);
    /// `None`: as each app's `l10n.yaml` says where import reads an app's folders, else as
    /// ICU quoting (what a sheet without the settings cell writes).
    pub arb_plain: Option<bool>,
    /// How Android texts are read: as a sheet with `android=markup` holds them, or as one
    /// without it holds them (`Markup`).
    pub markup: Markup,
    /// The app's i18next files are JSON v3 (a sheet with `i18next=v3`, or import found
    /// `KEY_plural` or numbered forms in them): in a language of one plural form (ja, zh,
    /// ko, …) `KEY_0` is then its plural's one form. Alone a `_0` is too weak a sign of
    /// v3 to read a key so (`import::read_app` reads the files again when the others
    /// show it).
    pub i18next_v3: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            split: None,
            locale: None,
            base: "en".to_owned(),
            placeholders: PlaceholderMode::Convert,
            keep_syntax: KeepSyntax::No,
            format: None,
            memory: Budget::default(),
            arb_plain: None,
            markup: Markup::Text,
            i18next_v3: false,
        }
    }
}

/// How Android texts are read (`Options::markup`; SPEC §12.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Markup {
    /// The text as it is, without its inline markup (noted as not carried): what a sheet
    /// without `android=markup` holds (the default).
    #[default]
    Text,
    /// As a sheet with `android=markup` holds them: inline markup (`<b>`, `<font>`,
    /// `<annotation>`, `<xliff:g>`) as its tags, a `<` of the text as `&lt;`.
    Tags,
    /// `Tags` when the app's files hold any markup (the new sheet then says
    /// `android=markup`), else `Text`: read as `Text`, saying in `Reading::implies` whether
    /// `Tags` would carry markup (`import::read_files` then reads them so).
    Detect,
    /// `Detect` that stops at the first markup `Tags` would carry (`Reading::implies` then
    /// says so, and the units are only some): `import::read_files` reads that file as
    /// `Checked` at once. A file without such markup reads as with `Detect`.
    Probe,
    /// `Tags` that also fails wherever `Detect` fails (a tagged text whose text alone
    /// aapt2 refuses): read so, a file needs no reading as text to tell that `Detect`
    /// would have read it (`import::read_files`).
    Checked,
}

impl Markup {
    pub fn tags(self) -> bool {
        matches!(self, Markup::Tags | Markup::Checked)
    }

    /// Whether a reading says that `Tags` would carry markup (`Reading::implies`).
    pub fn detects(self) -> bool {
        matches!(self, Markup::Detect | Markup::Probe)
    }

    /// For a sheet that says `android=markup` (`markup`) or not.
    pub fn of_sheet(markup: bool) -> Markup {
        if markup { Markup::Tags } else { Markup::Text }
    }
}

/// Whether import keeps the app's own placeholder syntax (`Options::keep_syntax`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KeepSyntax {
    /// As `placeholders` says.
    #[default]
    No,
    /// Whichever syntax the app's files share (a new sheet).
    Any,
    /// Only this one (merging into a sheet whose settings cell names it; `Depot`: a sheet
    /// without the cell, so the app's texts are converted as before).
    Only(crate::model::placeholders::SheetSyntax),
}

/// What an empty text of the app's is named as where generate leaves it in the app's file
/// (`Reading::keep`): the sheet cannot hold one, an empty cell being no text.
pub const EMPTY_TEXT: &str = "empty text(s)";

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
    /// What the sheet does not hold but generate, writing into the app's own file, leaves
    /// there as it is (a `translatable="false"` string, a resx file reference): (line, key,
    /// what it is, as a plural noun such as `translatable="false" string(s)`).
    pub kept: Vec<(usize, String, String)>,
    /// The locale the content names for the whole file (po `Language`, arb `@@locale`).
    pub locale: Option<String>,
    /// The locale the file's name gives, if any: a json or yml file whose one top-level
    /// key is that locale holds it as a level (Rails), one without holds its tree.
    pub named: Option<String>,
    /// Placeholder types a file declares apart from its texts (ARB's `"@id"` metadata).
    pub types: Vec<Declared>,
    /// What the file's shape asks the sheet's settings cell to say, so that generate
    /// writes the shape back: i18next JSON v3 plurals (`KEY`, `KEY_plural`), po plural
    /// slots in CLDR's order (`nplurals=4` for Polish).
    pub implies: crate::model::SheetSettings,
    /// The file names plural forms as JSON v3's numbered `KEY_0`, `KEY_1`, … (languages of
    /// one form or of more than two), for the summary.
    pub v3_numbered: bool,
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
            kept: Vec::new(),
            locale: None,
            named: None,
            types: Vec::new(),
            implies: Default::default(),
            v3_numbered: false,
            options,
        }
    }

    pub fn convert(&self) -> bool {
        self.options.placeholders == PlaceholderMode::Convert
    }

    /// `text` as the sheet gets it: through `convert` (the reader's placeholder syntax into
    /// depot's) when the import converts, else as it is, with no loss.
    pub fn converted<T: AsRef<str> + Into<String>>(
        &self,
        text: T,
        convert: impl FnOnce(&str) -> syntax::Converted,
    ) -> syntax::Converted {
        if self.convert() {
            convert(text.as_ref())
        } else {
            syntax::Converted {
                text: text.into(),
                losses: Vec::new(),
            }
        }
    }

    pub fn note(&mut self, line: usize, key: &str, what: impl Into<String>) {
        self.notes.push((line, key.to_owned(), what.into()));
    }

    /// Something of the app's the sheet does not hold and generate leaves in the app's
    /// file (`kept`); `what` names its kind as a plural noun (`empty text(s)`).
    pub fn keep(&mut self, line: usize, key: &str, what: impl Into<String>) {
        self.kept.push((line, key.to_owned(), what.into()));
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

/// UTF-8 text without its byte-order mark.
pub fn utf8(bytes: &[u8]) -> Result<Cow<'_, str>, SyntaxError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(Cow::Borrowed(text)),
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
