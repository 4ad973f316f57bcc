//! Renders what a filter selected from a translation document in one of the formats.
//!
//! Every renderer goes through one of two shared views — `flatten` (flat names: android,
//! ios, xlf, po, xcstrings, arb, properties, resx) or `tree` (the nested locale tree: json,
//! yml, i18next) — and only adds its own escaping. The rule for all of them: the text a
//! real consumer reads back is the sheet's text.

// One folder per format: its reader (`read`: the app's file to units), its writer
// (`write`: a selection of the document to a body) and where its files sit (`files`).
pub mod android {
    pub mod files;
    pub mod keep;
    pub(crate) mod markup;
    pub mod read;
    pub mod write;
}
pub mod arb {
    pub mod files;
    pub mod keep;
    pub mod read;
    pub mod write;
}
pub mod i18next {
    pub mod files;
    pub mod keep;
    pub mod read;
    pub mod write;
}
pub mod json {
    pub mod files;
    pub mod keep;
    pub mod read;
    pub mod write;
}
pub mod po {
    pub mod files;
    pub mod keep;
    pub mod read;
    pub mod write;
}
pub mod properties {
    pub mod files;
    pub mod keep;
    pub mod read;
    pub mod write;
}
pub mod resx {
    pub mod files;
    pub mod keep;
    pub mod read;
    pub mod write;
}
pub mod strings {
    pub mod files;
    pub mod keep;
    pub mod read;
    pub mod write;
}
pub mod stringsdict {
    pub mod files;
    pub mod keep;
    pub mod read;
    pub mod write;
}
pub mod xcstrings {
    pub mod files;
    pub mod keep;
    pub mod read;
    pub mod write;
    mod xcode_order;
}
pub mod xlf {
    pub mod files;
    pub mod keep;
    pub mod read;
    pub mod write;
}
pub mod yml {
    pub mod files;
    pub mod keep;
    pub mod read;
    pub(crate) mod spans;
    pub mod write;
}
/// What the formats share one floor below them: the flat and nested views of a
/// selection, escaping, placeholder syntaxes, and the XML, plist and JSON readers' pieces.
pub mod shared {
    pub mod ahead;
    pub mod arena;
    pub mod convert;
    pub mod csharp;
    pub mod dart;
    pub mod escape;
    pub mod files;
    pub mod flatten;
    pub mod icu;
    pub mod json_spans;
    pub mod locale;
    pub mod names;
    pub mod nested;
    pub mod plist;
    pub mod spans;
    pub mod syntax;
    pub mod texts;
    pub mod tree;
    pub mod utf16;
    pub mod xml;
    pub mod xml_spans;
}

// Shared with the HTTP tests in `tests/`, so they live there.
#[cfg(test)]
#[path = "../tests/support/app_readback.rs"]
mod app_readback;
#[cfg(test)]
mod app_tests;
#[cfg(test)]
#[path = "../tests/support/ordered_json.rs"]
mod ordered_json;
#[cfg(test)]
#[path = "../tests/support/readback.rs"]
mod readback;
#[cfg(test)]
#[path = "../tests/support/readback_properties_resx.rs"]
mod readback_properties_resx;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

pub use crate::model::placeholders::{PlaceholderMode, SheetSyntax, UnknownPlaceholderMode};
use crate::model::{Document, Entry, Selection};
use flatten::NameStyle;
use reading::{Reading, SyntaxError};
use shared::syntax::Printf;
use shared::texts::{self, Texts};
use shared::{arena, flatten, names, tree};

pub mod keeping;
pub mod reading;
pub mod writing;

/// The formats of the whole program: what `format=`, `--format`, import and diff name.
/// Declared in the order import and diff list an app's files; `ALL` is the order the help
/// text and /health list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Android,
    Ios,
    /// The plural entries of ios, as `Localizable.stringsdict` (SPEC §9).
    Stringsdict,
    Json,
    Yml,
    Po,
    Xlf,
    /// Apple String Catalog (SPEC §11): every locale in one file.
    Xcstrings,
    /// Flutter ARB (SPEC §11).
    Arb,
    /// i18next JSON v4 (SPEC §11).
    I18next,
    /// Java `ResourceBundle` `.properties` (SPEC §11).
    Properties,
    /// .NET ResX 2.0 (SPEC §11).
    Resx,
}

/// How one format's files read in: bytes to text (`decode`), then text to units (`read`).
pub type Reader = fn(&str, &mut Reading<'_>) -> Result<(), SyntaxError>;
/// Bytes to text: UTF-8 without its byte-order mark, unless a format reads otherwise.
pub type Decoder = fn(&[u8]) -> Result<Cow<'_, str>, SyntaxError>;
/// One shape for every writer: the job (document, selection, options, shared views) to a
/// body, returning what the body leaves out and reports.
pub type Writer = fn(&writing::Job<'_, '_>, &mut Vec<u8>) -> Result<Vec<String>, RenderError>;

/// Everything the rest of the program asks about a format: adding a format is its folder
/// and one line in `TABLE`.
pub struct Descriptor {
    pub format: Format,
    /// The name used in `format=`, `--format` and messages.
    pub name: &'static str,
    /// The extension of the files `generate` writes, without the dot.
    pub extension: &'static str,
    pub content_type: &'static str,
    /// Whether its keys are flat names (split into levels only with `--split`), as opposed
    /// to paths whose levels the file itself nests.
    pub flat_keys: bool,
    pub decode: Decoder,
    pub read: Reader,
    pub write: Writer,
    /// Peak memory per byte of input while reading, measured on the densest files (a
    /// million one-word keys), release build (docs/design.md "Memory budget"). Rounded up.
    pub read_memory_per_byte: u64,
    /// A body's bytes per text beyond the text itself: the markup around it and a typical
    /// name; xlf writes the base text again as `<source>` (`repeats_text`).
    pub body_per_text: usize,
    pub body_repeats_text: bool,
    /// What a body holds before its first text.
    pub body_header: usize,
    /// Where its files sit, both ways (`generate`'s paths, `import`'s discovery).
    pub files: &'static shared::files::Files,
    /// How it names a key path when the sheet does not (`None`: its keys are paths the
    /// file nests).
    pub name_style: Option<NameStyle>,
    /// What a render of one whole locale leaves out and reports (`known_warnings`).
    pub warnings: Warnings,
    /// The placeholder syntax import keeps for its files when the app's files share it
    /// (SPEC §12.1); `Depot`: its placeholders are depot's `{name}` already.
    pub syntax: SheetSyntax,
    /// Whose printf its texts hold.
    pub printf: Option<Printf>,
    /// The format whose plural entries this one holds, beside it (the stringsdict: ios):
    /// written with it, compared with it, named by its name column.
    pub plural_side_of: Option<Format>,
    /// Which names of the sheet's own name column (`@@@`) it takes (`None`: every one).
    pub sheet_names: Option<fn(&str) -> bool>,
    /// How the app's code names a key (the sheet's name columns).
    pub key_names: &'static names::KeyNames,
    /// Whether the sheet's name columns name its keys (all but json and yml, whose keys
    /// are paths).
    pub takes_names: bool,
    /// Whether a file's own locale declaration wins over the locale its name says
    /// (ARB's `@@locale`, which gen-l10n goes by).
    pub declares_locale: bool,
    /// How an existing file of the app is patched instead of replaced (`keep.rs`, SPEC
    /// §12.1); `None`: written whole.
    pub(crate) keep: Option<&'static keeping::Keep>,
    /// For a format whose file of one locale may hold that locale as its one top-level
    /// key (Rails' `en:`, many web apps' `{"en": {…}}`): the one key of a file's text when
    /// it holds nothing else and a map under it (generate writes the app's files so again).
    pub top_key: Option<fn(&str) -> Option<String>>,
}

/// What a render of one whole locale of a format leaves out and reports.
#[derive(Clone, Copy)]
pub enum Warnings {
    /// The nested tree's: a key that is also a section.
    Tree,
    /// Keys whose flat names (`name_style`) meet.
    Names,
    /// The format's own.
    Own(fn(&Document) -> Vec<String>),
    /// Nothing to report here (the stringsdict holds plural entries only; their
    /// collisions are findings, `checks`).
    None,
}

/// The formats a name column may name (`@@@android`, …): all but json and yml.
pub const NAMED: [&str; 10] = [
    "android",
    "ios",
    "stringsdict",
    "xcstrings",
    "po",
    "xlf",
    "properties",
    "resx",
    "arb",
    "i18next",
];

/// Whether some entry of `doc` has a name from the sheet's name columns.
pub fn has_names(doc: &Document) -> bool {
    doc.entries.iter().any(|e| !e.names.is_empty())
}

/// The formats (bits of `Format as usize`) whose own name column (`@@@po`) some key of
/// `doc` fills, for `names_like`.
fn own_name_columns(doc: &Document) -> u16 {
    let mut own = 0;
    for key in doc.entries.iter().flat_map(|e| e.names.keys()) {
        if let Some(format) = Format::ALL.into_iter().find(|f| f.name() == key) {
            own |= 1 << format as usize;
        }
    }
    own
}

/// The format whose flat names stand for `format`'s in a sheet whose own name columns are
/// `own` (`own_name_columns`): the first format of `format`'s name style that the sheet,
/// as it does `format`, names by `@@@` only (`Format::name_of` then gives every key the
/// same name in both, so one build of the names serves both: the `@@@` sheet names ios,
/// stringsdict, xcstrings, xlf and po alike); else `format` itself.
fn names_like(format: Format, own: u16) -> Format {
    let has = |f: Format| own & (1 << f as usize) != 0;
    let by_all_only = |f: Format| {
        let d = f.descriptor();
        d.takes_names && d.sheet_names.is_none() && !has(f) && !d.plural_side_of.is_some_and(has)
    };
    if !by_all_only(format) {
        return format;
    }
    let style = format.descriptor().name_style;
    (Format::ALL.into_iter())
        .find(|&f| f.descriptor().name_style == style && by_all_only(f))
        .unwrap_or(format)
}

/// The table, in `Format`'s declaration order (`Format::descriptor` indexes it).
#[rustfmt::skip]
pub const TABLE: [Descriptor; 12] = [
    Descriptor { format: Format::Android, name: "android", extension: "xml", content_type: "application/xml; charset=utf-8", flat_keys: true, decode: reading::utf8, read: android::read::read, write: android::write::write, read_memory_per_byte: 13, body_per_text: 64, body_repeats_text: false, body_header: 256, files: &android::files::FILES, name_style: Some(NameStyle::Android), warnings: Warnings::Names, syntax: SheetSyntax::Printf, printf: Some(Printf::Java), plural_side_of: None, sheet_names: Some(android::files::resource_name), declares_locale: false, key_names: &names::ANDROID, takes_names: true, keep: Some(&android::keep::KEEP), top_key: None },
    Descriptor { format: Format::Ios, name: "ios", extension: "strings", content_type: "text/plain; charset=utf-8", flat_keys: true, decode: strings::read::decode, read: strings::read::read, write: strings::write::write, read_memory_per_byte: 24, body_per_text: 40, body_repeats_text: false, body_header: 256, files: &strings::files::FILES, name_style: Some(NameStyle::Plain), warnings: Warnings::Names, syntax: SheetSyntax::Printf, printf: Some(Printf::Apple), plural_side_of: None, sheet_names: None, declares_locale: false, key_names: &names::PLAIN, takes_names: true, keep: Some(&strings::keep::KEEP), top_key: None },
    Descriptor { format: Format::Stringsdict, name: "stringsdict", extension: "stringsdict", content_type: "application/x-plist", flat_keys: true, decode: reading::utf8, read: stringsdict::read::read, write: stringsdict::write::write, read_memory_per_byte: 13, body_per_text: 400, body_repeats_text: false, body_header: 256, files: &stringsdict::files::FILES, name_style: Some(NameStyle::Plain), warnings: Warnings::None, syntax: SheetSyntax::Printf, printf: Some(Printf::Apple), plural_side_of: Some(Format::Ios), sheet_names: None, declares_locale: false, key_names: &names::PLAIN, takes_names: true, keep: Some(&stringsdict::keep::KEEP), top_key: None },
    Descriptor { format: Format::Json, name: "json", extension: "json", content_type: "application/json", flat_keys: false, decode: reading::utf8, read: json::read::read, write: json::write::write, read_memory_per_byte: 32, body_per_text: 16, body_repeats_text: false, body_header: 256, files: &json::files::FILES, name_style: None, warnings: Warnings::Tree, syntax: SheetSyntax::Depot, printf: None, plural_side_of: None, sheet_names: None, declares_locale: false, key_names: &names::PATHS, takes_names: false, keep: Some(&json::keep::KEEP), top_key: Some(json::read::top_key) },
    Descriptor { format: Format::Yml, name: "yml", extension: "yml", content_type: "application/yaml; charset=utf-8", flat_keys: false, decode: reading::utf8, read: yml::read::read, write: yml::write::write, read_memory_per_byte: 30, body_per_text: 24, body_repeats_text: false, body_header: 256, files: &yml::files::FILES, name_style: None, warnings: Warnings::Tree, syntax: SheetSyntax::Ruby, printf: None, plural_side_of: None, sheet_names: None, declares_locale: false, key_names: &names::PATHS, takes_names: false, keep: Some(&yml::keep::KEEP), top_key: Some(yml::read::top_key) },
    Descriptor { format: Format::Po, name: "po", extension: "po", content_type: "text/x-gettext-translation; charset=utf-8", flat_keys: true, decode: reading::utf8, read: po::read::read, write: po::write::write, read_memory_per_byte: 13, body_per_text: 96, body_repeats_text: false, body_header: 256, files: &po::files::FILES, name_style: Some(NameStyle::Plain), warnings: Warnings::Names, syntax: SheetSyntax::Gettext, printf: None, plural_side_of: None, sheet_names: None, declares_locale: false, key_names: &po::files::KEY_NAMES, takes_names: true, keep: Some(&po::keep::KEEP), top_key: None },
    // the base text is written again as <source> in every locale: `estimate_len` adds it
    Descriptor { format: Format::Xlf, name: "xlf", extension: "xlf", content_type: "application/xliff+xml; charset=utf-8", flat_keys: false, decode: reading::utf8, read: xlf::read::read, write: xlf::write::write, read_memory_per_byte: 6, body_per_text: 160, body_repeats_text: true, body_header: 256, files: &xlf::files::FILES, name_style: Some(NameStyle::Plain), warnings: Warnings::Names, syntax: SheetSyntax::Depot, printf: None, plural_side_of: None, sheet_names: None, declares_locale: false, key_names: &xlf::files::KEY_NAMES, takes_names: true, keep: Some(&xlf::keep::KEEP), top_key: None },
    // each language's text sits in ten lines of indented JSON
    Descriptor { format: Format::Xcstrings, name: "xcstrings", extension: "xcstrings", content_type: "application/json", flat_keys: true, decode: reading::utf8, read: xcstrings::read::read, write: xcstrings::write::write, read_memory_per_byte: 3, body_per_text: 200, body_repeats_text: false, body_header: 256, files: &xcstrings::files::FILES, name_style: Some(NameStyle::Plain), warnings: Warnings::Names, syntax: SheetSyntax::Printf, printf: Some(Printf::Apple), plural_side_of: None, sheet_names: None, declares_locale: false, key_names: &names::PLAIN, takes_names: true, keep: Some(&xcstrings::keep::KEEP), top_key: None },
    Descriptor { format: Format::Arb, name: "arb", extension: "arb", content_type: "application/json", flat_keys: true, decode: reading::utf8, read: arb::read::read, write: arb::write::write, read_memory_per_byte: 24, body_per_text: 40, body_repeats_text: false, body_header: 256, files: &arb::files::FILES, name_style: Some(NameStyle::Arb), warnings: Warnings::Names, syntax: SheetSyntax::Depot, printf: None, plural_side_of: None, sheet_names: None, declares_locale: true, key_names: &names::ARB, takes_names: true, keep: Some(&arb::keep::KEEP), top_key: None },
    Descriptor { format: Format::I18next, name: "i18next", extension: "json", content_type: "application/json", flat_keys: false, decode: reading::utf8, read: i18next::read::read, write: i18next::write::write, read_memory_per_byte: 32, body_per_text: 16, body_repeats_text: false, body_header: 256, files: &i18next::files::FILES, name_style: None, warnings: Warnings::Own(i18next::write::known_warnings), syntax: SheetSyntax::I18next, printf: None, plural_side_of: None, sheet_names: None, declares_locale: false, key_names: &i18next::files::KEY_NAMES, takes_names: true, keep: Some(&i18next::keep::KEEP), top_key: None },
    // ASCII with \uXXXX escapes, which ISO-8859-1 readers read alike; `name=`, a few escapes;
    // read as ISO-8859-1 when not UTF-8, as Java 9+ reads bundles
    Descriptor { format: Format::Properties, name: "properties", extension: "properties", content_type: "text/x-java-properties; charset=iso-8859-1", flat_keys: false, decode: properties::read::decoder, read: properties::read::read, write: properties::write::write, read_memory_per_byte: 40, body_per_text: 48, body_repeats_text: false, body_header: 256, files: &properties::files::FILES, name_style: Some(NameStyle::Dotted), warnings: Warnings::Names, syntax: SheetSyntax::Java, printf: None, plural_side_of: None, sheet_names: None, declares_locale: false, key_names: &names::DOTTED, takes_names: true, keep: Some(&properties::keep::KEEP), top_key: None },
    // the <data> and <value> tags around the name
    Descriptor { format: Format::Resx, name: "resx", extension: "resx", content_type: "application/xml; charset=utf-8", flat_keys: true, decode: reading::utf8, read: resx::read::read, write: resx::write::write, read_memory_per_byte: 7, body_per_text: 96, body_repeats_text: false, body_header: 6144, files: &resx::files::FILES, name_style: Some(NameStyle::CSharp), warnings: Warnings::Names, syntax: SheetSyntax::Dotnet, printf: None, plural_side_of: None, sheet_names: None, declares_locale: false, key_names: &names::CSHARP, takes_names: true, keep: Some(&resx::keep::KEEP), top_key: None },
];

impl Format {
    /// In the order the help text lists them.
    pub const ALL: [Format; 12] = [
        Format::Json,
        Format::Android,
        Format::Ios,
        Format::Yml,
        Format::Xlf,
        Format::Po,
        Format::Stringsdict,
        Format::Xcstrings,
        Format::Arb,
        Format::I18next,
        Format::Properties,
        Format::Resx,
    ];

    /// Its line in `TABLE`.
    pub fn descriptor(self) -> &'static Descriptor {
        &TABLE[self as usize]
    }

    /// The name used in `format=` and `--format`.
    pub fn name(self) -> &'static str {
        self.descriptor().name
    }

    /// Every format's name, comma-separated, for messages that list the choices.
    pub fn names() -> String {
        Format::ALL.map(Format::name).join(", ")
    }

    pub fn content_type(self) -> &'static str {
        self.descriptor().content_type
    }

    /// File extension without the dot.
    pub fn extension(self) -> &'static str {
        self.descriptor().extension
    }

    /// Whether its keys are flat names (split into levels only with `--split`), as opposed
    /// to paths whose levels the file itself nests.
    pub fn flat_keys(self) -> bool {
        self.descriptor().flat_keys
    }

    /// The name the sheet gives an entry in this format (`@@@<format>`, else `@@@`; the
    /// stringsdict, ios's plural side, also takes `@@@ios`); `None` for json and yml,
    /// whose keys are paths, and for an entry the sheet names neither way.
    pub fn name_of(self, entry: &Entry) -> Option<&str> {
        if entry.names.is_empty() || !self.takes_names() {
            return None;
        }
        let d = self.descriptor();
        let own = || entry.names.get(d.name).map(String::as_str);
        match (d.plural_side_of, d.sheet_names) {
            (Some(side), _) => own().or_else(|| entry.name_in(side.name())),
            // `@@@` is the name of an app on another platform when the format would refuse
            // it (no Android app has a name aapt2 refuses): it names that key its own way
            (None, Some(takes)) => own()
                .or_else(|| (entry.names.get("").map(String::as_str)).filter(|name| takes(name))),
            (None, None) => entry.name_in(self.name()),
        }
    }

    /// The name depot gives a key path in a file of this format and one locale when the
    /// sheet names it no other way (SPEC §6.3), as the app's code names it; `None` for the
    /// formats whose keys are paths the file nests (json, yml).
    pub fn depot_name(self, path: &[String]) -> Option<String> {
        (self.descriptor().key_names.depot)(path, None)
    }

    /// The key of its name column (`@@@<format>`): the stringsdict shares ios's.
    pub fn names_key(self) -> &'static str {
        self.plural_side_of().unwrap_or(self).name()
    }

    /// The format whose plural entries this one holds beside it (`Descriptor::plural_side_of`).
    pub fn plural_side_of(self) -> Option<Format> {
        self.descriptor().plural_side_of
    }

    /// The format that holds this one's plural entries beside it (ios: the stringsdict).
    pub fn plurals_beside(self) -> Option<Format> {
        (TABLE.iter())
            .find(|d| d.plural_side_of == Some(self))
            .map(|d| d.format)
    }

    /// Whether a sheet's name columns name its keys (every format but json and yml).
    pub fn takes_names(self) -> bool {
        self.descriptor().takes_names
    }

    /// What reading a file of this format takes, for the memory budget.
    pub fn input(self) -> crate::memory_budget::Input {
        crate::memory_budget::Input::App {
            name: self.name(),
            per_byte: self.descriptor().read_memory_per_byte,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `format` value that names none of the formats.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("format must be one of {}; got '{value}'", Format::names())]
pub struct UnknownFormat {
    pub value: String,
}

impl FromStr for Format {
    type Err = UnknownFormat;

    /// Case-insensitive, so `--format JSON` works as users type it.
    fn from_str(value: &str) -> Result<Self, Self::Err> {
        (Format::ALL.into_iter())
            .find(|f| f.name().eq_ignore_ascii_case(value))
            .ok_or_else(|| UnknownFormat {
                value: value.to_owned(),
            })
    }
}

/// How to render, beyond the format itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Write each key's `$$$` comment as the format's comment (json has none: ignored).
    pub comments: bool,
    /// Prefix flat names with the locale even when the output holds a single locale.
    pub keep_locale: bool,
    /// Index in `Document::locales` of the base locale: xlf's `source-language` and
    /// `<source>`. `None`: `source-language="en"` and every `<source>` holds the key path.
    pub base_locale: Option<usize>,
    /// How `{name}` placeholders are written (SPEC §9).
    pub placeholders: PlaceholderMode,
    /// The locale a file of one locale declares instead of its own: an ARB file written as
    /// a language's fallback (`app_en.arb` holding en_US) says `"@@locale": "en"`.
    pub declared_locale: Option<String>,
    /// The syntax the sheet's settings cell says its texts hold, when generate, serve or
    /// diff follow it (no explicit `placeholders`; `resolve_placeholders`): a format of
    /// that syntax gets the texts as they are, any other its own syntax. Overrides
    /// `placeholders`.
    pub follow: Option<SheetSyntax>,
}

/// How placeholders are written when the caller says `explicit` (a flag, a query
/// parameter), the sheet's settings cell says `sheet`, and the configuration
/// `configured` (`translations.placeholders`): flag or query > sheet cell > config >
/// built-in (keep). Returns the mode and the syntax to follow (`RenderOptions::follow`).
pub fn resolve_placeholders(
    explicit: Option<PlaceholderMode>,
    sheet: &crate::model::SheetSettings,
    configured: PlaceholderMode,
) -> (PlaceholderMode, Option<SheetSyntax>) {
    match (explicit, sheet.placeholders) {
        (Some(mode), _) => (mode, None),
        (None, Some(syntax)) if syntax != SheetSyntax::Depot => (configured, Some(syntax)),
        (None, _) => (configured, None),
    }
}

/// A rendered body plus what the caller should report (name conflicts, first key kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub body: Vec<u8>,
    pub warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(
        "{format} cannot carry the character {} in the text of '{key}' for locale '{locale}': \
         {reason}; change that text in the sheet or choose another format",
        CodePoint(*character)
    )]
    UnrepresentableText {
        format: Format,
        locale: String,
        key: String,
        character: char,
        reason: &'static str,
    },
    #[error(
        "{format} cannot carry the character {} in the key '{key}': {reason}; \
         rename the key in the sheet",
        CodePoint(*character)
    )]
    UnrepresentableKey {
        format: Format,
        key: String,
        character: char,
        reason: &'static str,
    },
    #[error(
        "xlf needs language codes like 'en' or 'pt-BR' (xsd:language); locale '{locale}' \
         is not one, even with '_' read as '-'; rename the locale column in the sheet"
    )]
    InvalidLanguage { locale: String },
    #[error(
        "{format} needs language codes like 'en', 'pt-BR' or 'zh-Hans' (BCP 47); locale \
         '{locale}' is not one, even with '_' read as '-'; rename the locale column in the sheet"
    )]
    NotALanguageTag { format: Format, locale: String },
    #[error("base locale index {index} is out of range: the document has {count} locales")]
    BaseLocaleOutOfRange { index: usize, count: usize },
    #[error(
        "the selection does not fit the document: {what} index {index} is out of range \
         (the document has {count})"
    )]
    SelectionOutOfRange {
        what: &'static str,
        index: usize,
        count: usize,
    },
}

/// `U+0000` style, since the characters in question are usually invisible.
struct CodePoint(char);

impl fmt::Display for CodePoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "U+{:04X}", u32::from(self.0))
    }
}

/// Renders `sel` of `doc` as `format`.
pub fn render(
    doc: &Document,
    sel: &Selection,
    format: Format,
    opts: &RenderOptions,
) -> Result<Rendered, RenderError> {
    render_alone(doc, sel, format, opts, false)
}

/// Like `render`, for a file that holds one locale: json and yml write that locale's tree
/// without the locale level (`depot generate` per-language and `--language` files).
pub fn render_locale_tree(
    doc: &Document,
    sel: &Selection,
    format: Format,
    opts: &RenderOptions,
) -> Result<Rendered, RenderError> {
    render_alone(doc, sel, format, opts, sel.locales.len() == 1)
}

/// One render without a `Prepared` from the caller. A selection of most of the document
/// (an unfiltered request) still goes through one: laying the texts out per locale costs
/// a pass over them and halves the render, which otherwise takes a cache miss per text.
/// A small selection is rendered from the document as it is.
fn render_alone(
    doc: &Document,
    sel: &Selection,
    format: Format,
    opts: &RenderOptions,
    without_locale: bool,
) -> Result<Rendered, RenderError> {
    let selected: usize = sel.locales.iter().map(|ls| ls.entries.len()).sum();
    let texts = doc.entries.len().saturating_mul(doc.locales.len());
    if selected >= PREPARE_FROM_TEXTS && selected.saturating_mul(2) >= texts {
        let prepared = Prepared::new(doc);
        return render_with(doc, Some(&prepared), sel, format, opts, without_locale);
    }
    render_with(doc, None, sel, format, opts, without_locale)
}

/// Most warnings per format that `known_warnings` lists.
pub const KNOWN_WARNINGS_MAX: usize = 100;

/// Per format, what a render of one whole locale of `doc` leaves out and reports (keys
/// whose flat names collide; in json and yml, a key that is also a section), over every
/// locale; formats with nothing to report are absent. Known once per document version,
/// for `/health`, at most `KNOWN_WARNINGS_MAX` per format (then `and N more`).
pub fn known_warnings(doc: &Document) -> Vec<(Format, Vec<String>)> {
    // With names from the sheet each format names its own way; without, the formats of
    // one style name alike and their collisions are found once.
    let named = has_names(doc);
    let mut tree: Option<Vec<String>> = None;
    let mut of_style: Vec<(NameStyle, Vec<String>)> = Vec::new();
    let mut known = Vec::new();
    for format in Format::ALL {
        let descriptor = format.descriptor();
        let own;
        let warnings: &[String] = match (descriptor.warnings, descriptor.name_style) {
            (Warnings::Tree, _) => tree.get_or_insert_with(|| tree::Tree::build_all(doc).warnings),
            (Warnings::Own(warnings), _) => {
                own = warnings(doc);
                &own
            }
            (Warnings::Names, Some(style)) if named => {
                own = flatten::collisions(doc, style, Some(format));
                &own
            }
            (Warnings::Names, Some(style)) => {
                let at = match of_style.iter().position(|(s, _)| *s == style) {
                    Some(at) => at,
                    None => {
                        of_style.push((style, flatten::collisions(doc, style, None)));
                        of_style.len() - 1
                    }
                };
                &of_style[at].1
            }
            (Warnings::Names, None) | (Warnings::None, _) => continue,
        };
        let mut shown: Vec<String> = warnings.iter().take(KNOWN_WARNINGS_MAX).cloned().collect();
        if warnings.len() > KNOWN_WARNINGS_MAX {
            shown.push(format!("and {} more", warnings.len() - KNOWN_WARNINGS_MAX));
        }
        if !shown.is_empty() {
            known.push((format, shown));
        }
    }
    known
}

/// Keys whose flat names meet, per family of formats: (formats, first entry, later entry,
/// name), in the later entry's order. Those renders keep the first and report the later
/// one. `name_hash(e)` is `android_name_hash` of entry `e`'s path.
pub fn name_clashes(
    doc: &Document,
    name_hash: impl Fn(usize) -> u64,
) -> Vec<(Cow<'static, str>, usize, usize, String)> {
    if has_names(doc) {
        return named_clashes(doc);
    }
    // Keys whose plain names meet have equal android names too (android only folds
    // more), so looking at the android names finds both kinds.
    let android = flatten::name_clashes(doc, &name_hash);
    let mut clashes: Vec<_> = (android.iter())
        .map(|(kept, lost, name)| {
            let plain = |e: usize| flatten::plain_name(&doc.entries[e].path);
            let formats = if plain(*kept) == plain(*lost) {
                "android, ios, stringsdict, xcstrings, xlf and po"
            } else {
                "android"
            };
            (Cow::Borrowed(formats), *kept, *lost, name.clone())
        })
        .collect();
    // properties and resx name their own way, and a plural entry's forms too
    let styles = [flatten::NameStyle::Dotted, flatten::NameStyle::CSharp];
    let found = flatten::suffixed_name_clashes(doc, &name_hash, &android, &styles);
    clashes.extend(found.into_iter().map(|(style, kept, lost, name)| {
        let formats = match style {
            flatten::NameStyle::Dotted => "properties",
            _ => "resx",
        };
        (Cow::Borrowed(formats), kept, lost, name)
    }));
    clashes.extend(
        (flatten::same_names(doc, flatten::NameStyle::Arb, None).into_iter())
            .map(|(kept, lost, name)| (Cow::Borrowed("arb"), kept, lost, name)),
    );
    clashes.extend(i18next_clashes(doc));
    clashes.sort_by_key(|&(_, _, lost, _)| lost);
    clashes
}

fn i18next_clashes(
    doc: &Document,
) -> impl Iterator<Item = (Cow<'static, str>, usize, usize, String)> {
    (i18next::write::clashes(doc).into_iter()).map(|c| {
        (
            Cow::Borrowed("i18next (plural names)"),
            c.kept,
            c.lost,
            c.name,
        )
    })
}

/// `name_clashes` of a sheet that names some keys (`@@@`): each format names its keys
/// its own way, so each is looked at apart (a name the sheet gives is written as it is,
/// so two entries given one name meet), and a pair met in several formats is one clash
/// listing them.
fn named_clashes(doc: &Document) -> Vec<(Cow<'static, str>, usize, usize, String)> {
    use flatten::NameStyle;
    let formats = [
        (Format::Android, NameStyle::Android),
        (Format::Ios, NameStyle::Plain),
        (Format::Stringsdict, NameStyle::Plain),
        (Format::Xcstrings, NameStyle::Plain),
        (Format::Xlf, NameStyle::Plain),
        (Format::Po, NameStyle::Plain),
        (Format::Properties, NameStyle::Dotted),
        (Format::Resx, NameStyle::CSharp),
        (Format::Arb, NameStyle::Arb),
    ];
    // (kept, lost, name) → the formats it is met in, in first-met order
    let mut met: Vec<(Met, Vec<&'static str>)> = Vec::new();
    let mut at: std::collections::HashMap<(usize, usize, String), usize> = Default::default();
    // the names met of each format whose names stand for others' too (`names_like`)
    let own = own_name_columns(doc);
    let mut same: Vec<(Format, Vec<Met>)> = Vec::new();
    for (format, style) in formats {
        let like = names_like(format, own);
        let same_names = match same.iter().position(|(f, _)| *f == like) {
            Some(known) => &same[known].1,
            None => {
                let found = match style.suffixed() {
                    true => flatten::suffixed_same_names(doc, style, Some(like)),
                    false => flatten::same_names(doc, style, Some(like)),
                };
                same.push((like, found));
                &same[same.len() - 1].1
            }
        };
        let found: Vec<Met> = match format.plural_side_of() {
            // the stringsdict holds plural entries only
            Some(_) => {
                let plural = |e: usize| doc.entries[e].plural.is_some();
                (same_names.iter())
                    .filter(|(kept, lost, _)| plural(*kept) && plural(*lost))
                    .cloned()
                    .collect()
            }
            None => same_names.clone(),
        };
        for clash in found {
            match at.get(&clash) {
                Some(&i) => met[i].1.push(format.name()),
                None => {
                    at.insert(clash.clone(), met.len());
                    met.push((clash, vec![format.name()]));
                }
            }
        }
    }
    for clash in i18next::write::named_clashes(doc) {
        match at.get(&clash) {
            Some(&i) => met[i].1.push(Format::I18next.name()),
            None => met.push((clash, vec![Format::I18next.name()])),
        }
    }
    let mut clashes: Vec<_> = (met.into_iter())
        .map(|((kept, lost, name), formats)| (Cow::Owned(and_list(&formats)), kept, lost, name))
        .chain(i18next_clashes(doc))
        .collect();
    clashes.sort_by_key(|&(_, _, lost, _)| lost);
    clashes
}

/// Two entries meeting at a name: (kept, lost, the name).
type Met = (usize, usize, String);

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Keys whose names a format cannot look up as written, with why: i18next reads `:` in
/// `t('A:B')` as its namespace separator.
pub fn name_problems(doc: &Document) -> Vec<(usize, String)> {
    (i18next::write::namespace_separators(doc).into_iter())
        .map(|e| {
            let message = format!(
                "{:?}: i18next reads ':' in a key as its namespace separator (t('A:B') looks \
                 in namespace 'A'), so an app cannot look this key up by its path; rename it",
                doc.entries[e].path.join(".")
            );
            (e, message)
        })
        .collect()
}

/// A hash of a key path's flat name, for `name_clashes` (the same paths, the same hash;
/// `scratch` is reused between calls).
pub fn android_name_hash(path: &[String], scratch: &mut String) -> u64 {
    flatten::android_name_hash(path, scratch)
}

/// Below this many selected texts, preparing costs more than it saves.
const PREPARE_FROM_TEXTS: usize = 10_000;

/// What the renders of one document can share, built on first use: the flat names of
/// each style and the tree of all its keys. `render` builds them for its own selection
/// each time, which suits one body per request; a caller writing many bodies from one
/// document (`depot generate`: a file per locale, several formats) pays for them once
/// here. The bodies are the same either way. `Sync`, so bodies can be rendered on
/// several threads.
pub struct Prepared<'a> {
    doc: &'a Document,
    columns: OnceLock<texts::Columns>,
    dotted_paths: OnceLock<arena::StrArena>,
    plain_names: OnceLock<flatten::Names>,
    android_names: OnceLock<flatten::Names>,
    android_prefixed_names: OnceLock<flatten::Names>,
    dotted_names: OnceLock<flatten::Names>,
    csharp_names: OnceLock<flatten::Names>,
    arb_names: OnceLock<flatten::Names>,
    /// Whether the sheet names some key (`has_names`): the names are then per format,
    /// in `named` (at `Format as usize` of `names_like` the format, which `own_columns`
    /// gives; android with the locale prefix at the end).
    has_names: OnceLock<bool>,
    own_columns: OnceLock<u16>,
    named: [OnceLock<flatten::Names>; TABLE.len() + 1],
    /// Every entry in Xcode's order of its plain name (the String Catalog's key order).
    xcode_order: OnceLock<Vec<usize>>,
    tree: OnceLock<tree::Tree<'a>>,
    /// The tree of all keys as i18next names them (`i18next::write::levels`), for a sheet
    /// that names some.
    i18next_tree: OnceLock<tree::Tree<'a>>,
    /// What every xlf body repeats, escaped once (for the base locale of the first).
    xlf: OnceLock<xlf::write::Shared>,
}

impl<'a> Prepared<'a> {
    pub fn new(doc: &'a Document) -> Prepared<'a> {
        Prepared {
            doc,
            columns: OnceLock::new(),
            dotted_paths: OnceLock::new(),
            plain_names: OnceLock::new(),
            android_names: OnceLock::new(),
            android_prefixed_names: OnceLock::new(),
            dotted_names: OnceLock::new(),
            csharp_names: OnceLock::new(),
            arb_names: OnceLock::new(),
            has_names: OnceLock::new(),
            own_columns: OnceLock::new(),
            named: std::array::from_fn(|_| OnceLock::new()),
            xcode_order: OnceLock::new(),
            tree: OnceLock::new(),
            i18next_tree: OnceLock::new(),
            xlf: OnceLock::new(),
        }
    }

    /// `render` of this document.
    pub fn render(
        &self,
        sel: &Selection,
        format: Format,
        opts: &RenderOptions,
    ) -> Result<Rendered, RenderError> {
        render_with(self.doc, Some(self), sel, format, opts, false)
    }

    /// `render_locale_tree` of this document.
    pub fn render_locale_tree(
        &self,
        sel: &Selection,
        format: Format,
        opts: &RenderOptions,
    ) -> Result<Rendered, RenderError> {
        render_with(
            self.doc,
            Some(self),
            sel,
            format,
            opts,
            sel.locales.len() == 1,
        )
    }

    /// `render` (`render_locale_tree` when `locale_tree`) into `body`, emptied first; the
    /// warnings are returned. For a caller writing many bodies one after another
    /// (`depot generate`): a buffer used again keeps its pages, where a new one for each
    /// body of megabytes costs page faults, and its write to a file is cheaper too.
    pub fn render_into(
        &self,
        sel: &Selection,
        format: Format,
        opts: &RenderOptions,
        locale_tree: bool,
        body: &mut Vec<u8>,
    ) -> Result<Vec<String>, RenderError> {
        let without_locale = locale_tree && sel.locales.len() == 1;
        body.clear();
        render_into(
            self.doc,
            Some(self),
            sel,
            format,
            opts,
            without_locale,
            body,
        )
    }

    /// About how long the body `render_into` writes for `sel` in `format` is (from a
    /// sample of its texts), to start the largest first.
    pub fn estimated_len(&self, sel: &Selection, format: Format) -> usize {
        estimate_len(self.doc, sel, format)
    }

    fn names(&self, style: flatten::NameStyle, prefixed: bool, format: Format) -> &flatten::Names {
        if *self.has_names.get_or_init(|| has_names(self.doc)) {
            let own = *self.own_columns.get_or_init(|| own_name_columns(self.doc));
            let format = names_like(format, own);
            let prefixed = prefixed && style == flatten::NameStyle::Android;
            let at = if prefixed {
                TABLE.len()
            } else {
                format as usize
            };
            return self.named[at].get_or_init(|| {
                flatten::Names::build(self.doc, style, Some(format), !prefixed, None)
            });
        }
        let (cell, unprefixed) = match style {
            // Plain names do not depend on the prefix.
            flatten::NameStyle::Plain => (&self.plain_names, true),
            flatten::NameStyle::Android if prefixed => (&self.android_prefixed_names, false),
            flatten::NameStyle::Android => (&self.android_names, true),
            // guarded the same with a prefix or without
            flatten::NameStyle::Dotted => (&self.dotted_names, true),
            flatten::NameStyle::CSharp => (&self.csharp_names, true),
            flatten::NameStyle::Arb => (&self.arb_names, true),
        };
        cell.get_or_init(|| flatten::Names::build(self.doc, style, None, unprefixed, None))
    }

    /// Every entry in Xcode's order of its plain name.
    fn xcode_order(&self) -> &[usize] {
        self.xcode_order.get_or_init(|| {
            let names = self.names(flatten::NameStyle::Plain, false, Format::Xcstrings);
            xcstrings::write::order_all(self.doc, |e| names.name(e))
        })
    }

    /// xlf's pieces of every entry with sources in `base`, when they were built for it.
    fn xlf_pieces(&self, base: Option<usize>) -> Option<&xlf::write::Shared> {
        let shared = self.xlf.get_or_init(|| {
            let names = self.names(flatten::NameStyle::Plain, false, Format::Xlf);
            let paths = (self.dotted_paths).get_or_init(|| flatten::dotted_paths(self.doc));
            xlf::write::Shared::build(self.doc, names, paths, self.texts(), base)
        });
        (shared.base == base).then_some(shared)
    }

    fn texts(&self) -> Texts<'_> {
        Texts::Columns(self.columns.get_or_init(|| texts::Columns::build(self.doc)))
    }

    /// The tree of all keys, when it can stand in for any selection's own tree.
    fn tree(&self) -> Option<&tree::Tree<'a>> {
        let tree = self.tree.get_or_init(|| tree::Tree::build_all(self.doc));
        tree.fits_every_selection().then_some(tree)
    }

    /// `tree` of the keys as i18next names them.
    fn i18next_tree(&self) -> Option<&tree::Tree<'a>> {
        let tree = self
            .i18next_tree
            .get_or_init(|| tree::Tree::build_all_with(self.doc, i18next::write::levels));
        tree.fits_every_selection().then_some(tree)
    }
}

fn render_with<'d>(
    doc: &'d Document,
    prepared: Option<&Prepared<'d>>,
    sel: &Selection,
    format: Format,
    opts: &RenderOptions,
    without_locale: bool,
) -> Result<Rendered, RenderError> {
    let mut body = Vec::new();
    let warnings = render_into(doc, prepared, sel, format, opts, without_locale, &mut body)?;
    Ok(Rendered { body, warnings })
}

/// `render_with` into `body` (empty), sized for the body first.
fn render_into<'d>(
    doc: &'d Document,
    prepared: Option<&Prepared<'d>>,
    sel: &Selection,
    format: Format,
    opts: &RenderOptions,
    without_locale: bool,
    body: &mut Vec<u8>,
) -> Result<Vec<String>, RenderError> {
    check_selection(doc, sel)?;
    if let Some(index) = opts.base_locale
        && index >= doc.locales.len()
    {
        return Err(RenderError::BaseLocaleOutOfRange {
            index,
            count: doc.locales.len(),
        });
    }
    body.reserve(estimate_len(doc, sel, format));
    let job = writing::Job {
        doc,
        prepared,
        sel,
        opts,
        without_locale,
        format,
    };
    (format.descriptor().write)(&job, body)
}

/// What a flat body over HTTP says about plural entries it cannot hold, for
/// `Depot-Warnings`: ios `.strings` leaves them to the `.stringsdict` (which `generate`
/// writes beside it, so it does not say this); a po body of several locales states no
/// `Plural-Forms`, which msgfmt needs for them.
pub fn plurals_left_out(doc: &Document, sel: &Selection, format: Format) -> Option<String> {
    let several_locales = sel.locales.iter().filter(|l| !l.entries.is_empty()).count() > 1;
    if format != Format::Ios && !(format == Format::Po && several_locales) {
        return None;
    }
    let selected = sel.entries_in_any_locale(doc.entries.len());
    let mut plural = (doc.entries.iter().zip(selected))
        .filter(|(entry, selected)| *selected && entry.plural.is_some())
        .map(|(entry, _)| entry);
    let first = plural.next()?.path.join(".");
    let count = 1 + plural.count();
    Some(match format {
        Format::Ios => format!(
            "{count} plural entr{} (first: {first}) are not in .strings: ask format=stringsdict for them",
            if count == 1 { "y" } else { "ies" }
        ),
        _ => format!(
            "po with several locales states no Plural-Forms, which msgfmt needs for its {count} \
             plural entr{} (first: {first}): ask one locale per file",
            if count == 1 { "y" } else { "ies" }
        ),
    })
}

/// The renderers index freely after this, so a selection built for another document
/// becomes an error rather than a panic.
fn check_selection(doc: &Document, sel: &Selection) -> Result<(), RenderError> {
    for ls in &sel.locales {
        if ls.locale >= doc.locales.len() {
            return Err(RenderError::SelectionOutOfRange {
                what: "locale",
                index: ls.locale,
                count: doc.locales.len(),
            });
        }
        if let Some(&index) = ls.entries.iter().find(|&&e| e >= doc.entries.len()) {
            return Err(RenderError::SelectionOutOfRange {
                what: "entry",
                index,
                count: doc.entries.len(),
            });
        }
    }
    Ok(())
}

/// Sized from a sample of the selected texts, so the body is allocated once without a
/// pass over every text (on a large sheet that pass costs a cache miss per key); the
/// per-key overhead is each format's markup around a text plus a typical name. A plural
/// entry counts as its forms (each with the markup of a text), so a sheet with many of
/// them is not reallocated and copied half-way through its body.
fn estimate_len(doc: &Document, sel: &Selection, format: Format) -> usize {
    const SAMPLES: usize = 256;
    let units: usize = sel.locales.iter().map(|l| l.entries.len()).sum();
    let step = (units / SAMPLES).max(1);
    // sampled units, the texts in them, their bytes
    let (mut sampled, mut sampled_texts, mut sampled_bytes) = (0usize, 0usize, 0usize);
    let mut seen = 0usize;
    for ls in &sel.locales {
        let mut next = (step - seen % step) % step;
        while next < ls.entries.len() {
            let entry = doc.entries.get(ls.entries[next]);
            let text = entry.and_then(|e| e.texts.get(ls.locale)?.as_deref());
            if let (Some(entry), Some(text)) = (entry, text) {
                sampled += 1;
                match &entry.plural {
                    None => {
                        sampled_texts += 1;
                        sampled_bytes += text.len();
                    }
                    Some(plural) => {
                        for (_, form) in plural.forms_in(ls.locale) {
                            sampled_texts += 1;
                            sampled_bytes += form.len();
                        }
                    }
                }
            }
            next += step;
        }
        seen += ls.entries.len();
    }
    let avg_text = sampled_bytes / sampled_texts.max(1);
    let texts_per_unit = (sampled_texts * 16 / sampled.max(1)).max(16);
    let descriptor = format.descriptor();
    let per_text = descriptor.body_per_text
        + if descriptor.body_repeats_text {
            avg_text
        } else {
            0
        };
    let texts = units * texts_per_unit / 16;
    let header = descriptor.body_header;
    texts * (avg_text + avg_text / 16 + per_text) + header
}
