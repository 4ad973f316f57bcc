//! Named placeholders in sheet texts (SPEC §9): `{name}`, `{name:int}`, `{name:float}`, with
//! `{{` / `}}` for literal braces. Parsed once here; each format's syntax is written from
//! the parsed pieces (`placeholders=convert`), numbered by the base locale's order.

use std::borrow::Cow;
use std::fmt::Write as _;

/// The quantity of a plural entry: argument 1 in every printf-style format, `#` in ICU.
pub const COUNT: &str = "count";

/// The type a placeholder declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Int,
    Float,
}

/// One piece of a parsed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Text without braces.
    Literal(&'a str),
    /// A literal `{` or `}` (written doubled in the sheet).
    Brace(char),
    Placeholder {
        name: &'a str,
        kind: Kind,
    },
}

/// A brace that is neither doubled nor part of a placeholder, at byte `at`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unbalanced '{brace}' at character {}: write {{name}} for a placeholder, or '{brace}{brace}' \
     for a literal brace",
    .char_at + 1
)]
pub struct BraceError {
    pub brace: char,
    /// 0-based character position, for the message.
    pub char_at: usize,
}

/// Whether `text` may hold a placeholder or a brace at all (most texts do not). The checks
/// ask this of every text of a sheet, so it looks at 16 bytes per step in a form the
/// compiler turns into vector compares (a byte-at-a-time loop was a third of the checks).
pub fn has_braces(text: &str) -> bool {
    const LANES: usize = 16;
    let bytes = text.as_bytes();
    let is_brace = |b: u8| (b == b'{') | (b == b'}');
    let any_in = |chunk: &[u8; LANES]| chunk.iter().fold(0, |any, &b| any | u8::from(is_brace(b)));
    let (chunks, rest) = bytes.as_chunks::<LANES>();
    if chunks.iter().any(|chunk| any_in(chunk) != 0) {
        return true;
    }
    if rest.is_empty() {
        return false;
    }
    // The rest read as the text's last 16 bytes, overlapping the chunk before: one more
    // vector step instead of a byte at a time (most texts are a few chunks long, and the
    // rest was half the scan).
    match bytes.last_chunk::<LANES>() {
        Some(last) => any_in(last) != 0,
        None => rest.iter().any(|&b| is_brace(b)),
    }
}

/// Splits `text` into literals, literal braces and placeholders.
pub fn parse(text: &str) -> Result<Vec<Piece<'_>>, BraceError> {
    let mut pieces = Vec::new();
    scan(text, |piece| pieces.push(piece))?;
    Ok(pieces)
}

/// Hands each piece of `text` to `piece`, in order, without allocating (the checks scan
/// every text of a sheet); stops at the first brace that does not parse.
pub fn scan<'t>(text: &'t str, mut piece: impl FnMut(Piece<'t>)) -> Result<(), BraceError> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    let error = |brace: char, at: usize| BraceError {
        brace,
        char_at: text[..at].chars().count(),
    };
    while let Some(found) = memchr::memchr2(b'{', b'}', &bytes[i..]) {
        let at = i + found;
        if at > start {
            piece(Piece::Literal(&text[start..at]));
        }
        let brace = bytes[at];
        if bytes.get(at + 1) == Some(&brace) {
            piece(Piece::Brace(char::from(brace)));
            i = at + 2;
        } else if brace == b'}' {
            return Err(error('}', at));
        } else {
            let close = memchr::memchr(b'}', &bytes[at + 1..]).ok_or_else(|| error('{', at))?;
            let inner = &text[at + 1..at + 1 + close];
            // a byte search: `split_once(':')` went through the char searcher, a tenth of
            // the checks of a sheet whose texts hold placeholders
            let colon = inner.bytes().position(|b| b == b':');
            let (name, kind) = match colon.map(|c| (&inner[..c], &inner[c + 1..])) {
                None => (inner, Kind::Text),
                Some((name, "int")) => (name, Kind::Int),
                Some((name, "float")) => (name, Kind::Float),
                Some(_) => return Err(error('{', at)),
            };
            if !is_name(name) {
                return Err(error('{', at));
            }
            piece(Piece::Placeholder { name, kind });
            i = at + 1 + close + 1;
        }
        start = i;
    }
    if start < text.len() {
        piece(Piece::Literal(&text[start..]));
    }
    Ok(())
}

/// `[A-Za-z_][A-Za-z0-9_]*`: what every target syntax accepts as an argument name.
fn is_name(name: &str) -> bool {
    // bytes, not chars: every byte of a character past ASCII is past ASCII too, so such a
    // name fails either way, and nothing is decoded
    match name.as_bytes() {
        [first, rest @ ..] => {
            (first.is_ascii_alphabetic() || *first == b'_')
                && rest.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
        }
        [] => false,
    }
}

/// The placeholder names of `text` in order of first appearance (empty when it does not
/// parse: the brace check reports that text).
pub fn names(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    if !has_braces(text) {
        return names;
    }
    let scanned = scan(text, |piece| {
        if let Piece::Placeholder { name, .. } = piece
            && !names.contains(&name)
        {
            names.push(name);
        }
    });
    if scanned.is_err() {
        names.clear();
    }
    names
}

/// Each format's placeholder syntax (SPEC §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// `%1$s`, `%1$d`, `%1$f`
    Android,
    /// `%1$@`, `%1$ld`, `%1$f`
    Ios,
    /// `%{name}`
    Rails,
    /// ICU MessageFormat: `{name}`, `{name, number, integer}`, `{name, number}`; `'{'`.
    Icu {
        /// Inside a plural: `{count}` is `#`, and a literal `#` is quoted.
        in_plural: bool,
    },
    /// `java.text.MessageFormat` (properties): `{0}`, numbered from 0 by the base order; in
    /// a format string an apostrophe is doubled and a literal brace quoted (`'{'`).
    MessageFormat,
    /// .NET composite formatting (resx, `string.Format`): `{0}`; in a format string a
    /// literal brace is doubled.
    Composite,
    /// ICU MessageFormat as Flutter's gen-l10n reads it (ARB): `{name}` whatever its type
    /// (the type is the message's metadata), `{count}` also inside a plural (Flutter has no
    /// `#`), and `<` left as it is (Flutter knows no rich-text tags).
    Arb {
        /// Inside a plural: a literal `#` is quoted, as ICU readers take it for the count.
        in_plural: bool,
        /// ICU's quoting (`''`, `'{'`), which gen-l10n reads with `use-escaping: true`;
        /// without it literal text is written as it is, and a literal brace cannot be
        /// (`Converted::literal_brace`).
        escaping: bool,
    },
    /// i18next: `{{name}}` (the type dropped: i18next interpolates names only); literal
    /// braces are single ones.
    I18next,
}

impl Syntax {
    /// Numbered by the base locale's order (printf's `%1$s`, MessageFormat's `{0}`): such
    /// a text is a format string only when it has a placeholder or is a plural form, and
    /// only a format string gets the syntax's escapes.
    fn numbered(self) -> bool {
        matches!(
            self,
            Syntax::Android | Syntax::Ios | Syntax::MessageFormat | Syntax::Composite
        )
    }
}

/// The argument numbers of a printf-style conversion: the names of the base locale's
/// text(s) in order of first appearance; in a plural entry `count` is always 1.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Order<'a> {
    names: Vec<&'a str>,
    /// `argN` is argument N (`count` 1 in a plural): the names a text read from a
    /// numbered syntax (printf, `{0}`) got, which keep their numbers.
    positional: bool,
}

impl<'a> Order<'a> {
    /// From the base texts (for a plural entry, each of its forms), `count` first when
    /// `plural`.
    pub fn new<'t: 'a>(base_texts: impl IntoIterator<Item = &'t str>, plural: bool) -> Order<'a> {
        let mut names: Vec<&'a str> = Vec::new();
        if plural {
            names.push(COUNT);
        }
        for text in base_texts {
            for name in self::names(text) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        Order {
            names,
            positional: false,
        }
    }

    /// For texts read from a numbered syntax: `argN` keeps number N, `count` is 1 in a
    /// plural entry; other names follow in the order each text shows them.
    pub fn positional(plural: bool) -> Order<'a> {
        Order {
            names: if plural { vec![COUNT] } else { Vec::new() },
            positional: true,
        }
    }

    /// 1-based argument number of `name`; names the base lacks come after its own, in the
    /// order this text shows them (the checks report such a text).
    fn number(&self, name: &str, extra: &mut Vec<String>) -> usize {
        if let Some(i) = self.names.iter().position(|n| *n == name) {
            return i + 1;
        }
        if self.positional
            && let Some(n) = name
                .strip_prefix("arg")
                .and_then(|n| n.parse::<usize>().ok())
            && n > 0
        {
            return n;
        }
        let at = match extra.iter().position(|n| n == name) {
            Some(at) => at,
            None => {
                extra.push(name.to_owned());
                extra.len() - 1
            }
        };
        self.names.len() + at + 1
    }
}

/// `text` in `syntax`. A text whose braces do not parse is returned as it is (the checks
/// report it). In printf syntaxes a literal `%` becomes `%%` when the result is a format
/// string (it has a placeholder, or `always_format`: plural forms).
pub fn convert<'t, 'o>(
    text: &'t str,
    syntax: Syntax,
    order: impl FnOnce() -> Order<'o>,
    always_format: bool,
) -> Cow<'t, str> {
    let icu = matches!(syntax, Syntax::Icu { .. } | Syntax::Arb { .. });
    // what a plural form (always a format string) escapes besides braces
    let format_special = match syntax {
        Syntax::MessageFormat => b'\'',
        _ => b'%',
    };
    let needs_work = has_braces(text)
        || (icu && memchr::memchr3(b'\'', b'<', b'#', text.as_bytes()).is_some())
        || (always_format && memchr::memchr(format_special, text.as_bytes()).is_some());
    if !needs_work {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    if convert_into(&mut out, text, syntax, order, always_format) {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

/// `convert`, appended to `out`; false (and nothing appended) when the braces of `text`
/// do not parse, so the caller writes it as it is.
pub fn convert_into<'o>(
    out: &mut String,
    text: &str,
    syntax: Syntax,
    order: impl FnOnce() -> Order<'o>,
    always_format: bool,
) -> bool {
    convert_reporting(out, text, syntax, order, always_format).is_some()
}

/// What a conversion into an ICU syntax met on the way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Converted {
    /// A quoted section opens right after a doubled apostrophe (`'''{'`: an apostrophe,
    /// then a literal brace). ICU readers take that as written; Flutter's gen-l10n lexer
    /// reads one apostrophe too many there (see `IcuQuote`).
    pub flutter_misreads: bool,
    /// The first literal brace of a text written for gen-l10n without `use-escaping`,
    /// which reads every brace as syntax: such a text cannot be written.
    pub literal_brace: Option<char>,
}

/// `convert_into`, saying what the conversion met; `None` (and nothing appended) when the
/// braces of `text` do not parse.
pub fn convert_reporting<'o>(
    out: &mut String,
    text: &str,
    syntax: Syntax,
    order: impl FnOnce() -> Order<'o>,
    always_format: bool,
) -> Option<Converted> {
    // numbered syntaxes escape only in a format string, so they look for a placeholder
    // first; the others write in one scan
    let mut any_placeholder = false;
    if syntax.numbered() && !always_format {
        let scanned = scan(text, |piece| {
            any_placeholder |= matches!(piece, Piece::Placeholder { .. });
        });
        if scanned.is_err() {
            return None;
        }
    }
    let is_format = always_format || any_placeholder;
    let start = out.len();
    let mut extra = Vec::new();
    // The numbering reads the base text: only numbered placeholders need it.
    let mut order = Some(order);
    let mut numbers: Option<Order<'o>> = None;
    // 1-based argument number of a placeholder
    let mut number = |name: &str| {
        let numbers = numbers.get_or_insert_with(|| order.take().map(|f| f()).unwrap_or_default());
        numbers.number(name, &mut extra)
    };
    let mut quote = IcuQuote::default();
    let mut literal_brace = None;
    let scanned = scan(text, |piece| match (syntax, piece) {
        (Syntax::Android | Syntax::Ios, Piece::Literal(s)) if is_format => {
            push_replacing(out, s, "%", "%%")
        }
        (Syntax::Rails, Piece::Literal(s)) => push_replacing(out, s, "%{", "%%{"),
        (Syntax::Icu { in_plural }, Piece::Literal(s)) => {
            quote.push_literal(out, s, in_plural, true)
        }
        (
            Syntax::Arb {
                in_plural,
                escaping: true,
            },
            Piece::Literal(s),
        ) => quote.push_literal(out, s, in_plural, false),
        (
            Syntax::Arb {
                escaping: false, ..
            },
            Piece::Brace(c),
        ) => {
            literal_brace.get_or_insert(c);
            out.push(c);
        }
        // MessageFormat quotes as ICU does, a quoted run spanning braces and apostrophes:
        // `'{''{'` would read `{'{` (`''` inside a run is an apostrophe), `'}'''` `}'`
        (Syntax::MessageFormat, Piece::Literal(s)) if is_format => {
            quote.push_literal(out, s, false, false)
        }
        (_, Piece::Literal(s)) => out.push_str(s),
        (Syntax::Icu { .. } | Syntax::Arb { .. }, Piece::Brace(c)) => quote.push(out, c, true),
        (Syntax::MessageFormat, Piece::Brace(c)) if is_format => quote.push(out, c, true),
        (Syntax::Composite, Piece::Brace(c)) if is_format => {
            out.push(c);
            out.push(c);
        }
        (_, Piece::Brace(c)) => out.push(c),
        (Syntax::Android | Syntax::Ios, Piece::Placeholder { name, kind }) => {
            let n = number(name);
            let ios = syntax == Syntax::Ios;
            // the quantity (argument 1 when the order starts with it) is an integer whatever
            // the sheet says
            let quantity = name == COUNT && n == 1;
            let conversion = match (kind, ios) {
                _ if quantity || kind == Kind::Int => {
                    if ios {
                        "ld"
                    } else {
                        "d"
                    }
                }
                (Kind::Float, _) => "f",
                (_, true) => "@",
                (_, false) => "s",
            };
            let _ = write!(out, "%{n}${conversion}");
        }
        (Syntax::MessageFormat | Syntax::Composite, Piece::Placeholder { name, .. }) => {
            quote.close(out);
            // both count from 0; the type is the argument's own (MessageFormat formats a
            // number with the locale's NumberFormat, string.Format calls its ToString)
            let _ = write!(out, "{{{}}}", number(name) - 1);
        }
        (Syntax::Rails, Piece::Placeholder { name, .. }) => {
            let _ = write!(out, "%{{{name}}}");
        }
        (Syntax::Icu { in_plural }, Piece::Placeholder { name, kind }) => {
            quote.close(out);
            match kind {
                _ if in_plural && name == COUNT => out.push('#'),
                Kind::Text => {
                    let _ = write!(out, "{{{name}}}");
                }
                Kind::Int => {
                    let _ = write!(out, "{{{name}, number, integer}}");
                }
                Kind::Float => {
                    let _ = write!(out, "{{{name}, number}}");
                }
            }
        }
        (Syntax::Arb { .. }, Piece::Placeholder { name, .. }) => {
            quote.close(out);
            let _ = write!(out, "{{{name}}}");
        }
        (Syntax::I18next, Piece::Placeholder { name, .. }) => {
            let _ = write!(out, "{{{{{name}}}}}");
        }
    });
    if scanned.is_err() {
        // what was written of a text that does not parse goes: the caller writes it as is
        out.truncate(start);
        return None;
    }
    quote.close(out);
    Some(Converted {
        flutter_misreads: quote.flutter_misreads,
        literal_brace,
    })
}

/// `text` as ICU literal text through and through (every brace quoted, `#` too when
/// `in_plural`, `<` left as it is): what ARB writes for a text whose braces do not parse,
/// so that Flutter shows it as the sheet has it instead of failing on it.
pub fn push_icu_literal_text(out: &mut String, text: &str, in_plural: bool) -> Converted {
    let mut quote = IcuQuote::default();
    let mut rest = text;
    while let Some(at) = memchr::memchr2(b'{', b'}', rest.as_bytes()) {
        quote.push_literal(out, &rest[..at], in_plural, false);
        quote.push(out, char::from(rest.as_bytes()[at]), true);
        rest = &rest[at + 1..];
    }
    quote.push_literal(out, rest, in_plural, false);
    quote.close(out);
    Converted {
        flutter_misreads: quote.flutter_misreads,
        literal_brace: None,
    }
}

/// `s` with every `from` written as `to`, without a String of its own.
fn push_replacing(out: &mut String, s: &str, from: &str, to: &str) {
    let mut last = 0;
    for (at, _) in s.match_indices(from) {
        out.push_str(&s[last..at]);
        out.push_str(to);
        last = at + from.len();
    }
    out.push_str(&s[last..]);
}

/// ICU MessageFormat's quoting of literal text, as ICU4J's default mode (DOUBLE_OPTIONAL)
/// and formatjs read it: an apostrophe is always doubled (then it is a literal one,
/// inside or outside a quoted section); a character that would be syntax (`{`, `}`, `#`
/// inside a plural, `<` for formatjs's rich-text tags) opens a quoted section, which
/// stays open over further syntax characters and apostrophes and closes before any other
/// character, a placeholder or the end. So `<<` is `'<<'`: written as `'<''<'` (a
/// section per character) it reads `<'<`, since `''` inside a section is an apostrophe.
#[derive(Debug, Default)]
struct IcuQuote {
    open: bool,
    /// The last thing written is a doubled apostrophe outside any quoted section.
    after_apostrophe: bool,
    /// A section was opened right after such an apostrophe (`'''{'`). Flutter's gen-l10n
    /// (`use-escaping`) reads a quoted section that follows an apostrophe with that
    /// apostrophe again (its rule for `'a''b'`), so it shows one apostrophe too many.
    flutter_misreads: bool,
}

impl IcuQuote {
    /// One character: `'`, or one that is syntax (`special`) or not.
    fn push(&mut self, out: &mut String, c: char, special: bool) {
        if c == '\'' {
            out.push_str("''");
            self.after_apostrophe = !self.open;
            return;
        }
        if special && !self.open {
            self.flutter_misreads |= self.after_apostrophe;
            out.push('\'');
            self.open = true;
        } else if !special && self.open {
            out.push('\'');
            self.open = false;
        }
        self.after_apostrophe = false;
        out.push(c);
    }

    /// A run of literal text (no braces): `#` is syntax when `hash`, `<` when `tags`.
    fn push_literal(&mut self, out: &mut String, s: &str, hash: bool, tags: bool) {
        // By bytes, not chars: the three are ASCII, so every cut is a char boundary.
        let find = |rest: &str| match (hash, tags) {
            (true, true) => memchr::memchr3(b'\'', b'<', b'#', rest.as_bytes()),
            (true, false) => memchr::memchr2(b'\'', b'#', rest.as_bytes()),
            (false, true) => memchr::memchr2(b'\'', b'<', rest.as_bytes()),
            (false, false) => memchr::memchr(b'\'', rest.as_bytes()),
        };
        let mut rest = s;
        while let Some(at) = find(rest) {
            self.push_plain(out, &rest[..at]);
            let c = char::from(rest.as_bytes()[at]);
            self.push(out, c, c != '\'');
            rest = &rest[at + 1..];
        }
        self.push_plain(out, rest);
    }

    /// Text without any character this quoting treats specially.
    fn push_plain(&mut self, out: &mut String, s: &str) {
        if s.is_empty() {
            return;
        }
        self.close(out);
        out.push_str(s);
    }

    /// Ends an open quoted section (before a placeholder, at the end).
    fn close(&mut self, out: &mut String) {
        if self.open {
            out.push('\'');
            self.open = false;
        }
        self.after_apostrophe = false;
    }
}

/// The placeholder syntax a sheet's texts hold, as its settings cell names it
/// (`depot: placeholders=printf`, SPEC §12.1): what import found in the app's files, kept
/// as the app writes it so that generate gives it back.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SheetSyntax {
    /// `{name}`, `{name:int}`: depot's own (a sheet without the cell).
    #[default]
    Depot,
    /// Android's and Apple's printf: `%s`, `%1$s`, `%d`, `%@`, `%1$@`, `%ld`.
    Printf,
    /// ICU MessageFormat: `{name}`, `{n, number}`, `'{'` (json, arb).
    Icu,
    /// .NET composite formatting: `{0}` (resx).
    Dotnet,
    /// `java.text.MessageFormat`: `{0}`, `''` (properties).
    Java,
    /// `{{name}}`.
    I18next,
    /// `%{name}` (Rails yml).
    Ruby,
    /// gettext's printf (`%s`, `%d`, `%1$s`) as po files hold it.
    Gettext,
}

impl SheetSyntax {
    pub const ALL: [SheetSyntax; 8] = [
        SheetSyntax::Depot,
        SheetSyntax::Printf,
        SheetSyntax::Icu,
        SheetSyntax::Dotnet,
        SheetSyntax::Java,
        SheetSyntax::I18next,
        SheetSyntax::Ruby,
        SheetSyntax::Gettext,
    ];

    /// The name in the settings cell.
    pub fn name(self) -> &'static str {
        match self {
            SheetSyntax::Depot => "depot",
            SheetSyntax::Printf => "printf",
            SheetSyntax::Icu => "icu",
            SheetSyntax::Dotnet => "dotnet",
            SheetSyntax::Java => "java",
            SheetSyntax::I18next => "i18next",
            SheetSyntax::Ruby => "ruby",
            SheetSyntax::Gettext => "gettext",
        }
    }

    /// Exact, lower-case name only (as the sheet's other markup).
    pub fn from_name(name: &str) -> Option<SheetSyntax> {
        SheetSyntax::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The syntax a writer's `Syntax` belongs to.
    pub fn of(syntax: Syntax) -> SheetSyntax {
        match syntax {
            Syntax::Android | Syntax::Ios => SheetSyntax::Printf,
            Syntax::Rails => SheetSyntax::Ruby,
            Syntax::Icu { .. } | Syntax::Arb { .. } => SheetSyntax::Icu,
            Syntax::MessageFormat => SheetSyntax::Java,
            Syntax::Composite => SheetSyntax::Dotnet,
            Syntax::I18next => SheetSyntax::I18next,
        }
    }
}

/// `placeholders=keep` (the default: texts as the sheet writes them) or `convert` (each
/// format's own syntax).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum PlaceholderMode {
    #[default]
    Keep,
    Convert,
}

impl PlaceholderMode {
    pub const NAMES: [&'static str; 2] = ["keep", "convert"];

    pub fn name(self) -> &'static str {
        match self {
            PlaceholderMode::Keep => "keep",
            PlaceholderMode::Convert => "convert",
        }
    }
}

/// A `placeholders` value other than keep or convert.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("placeholders must be one of keep, convert; got '{value}'")]
pub struct UnknownPlaceholderMode {
    pub value: String,
}

impl std::str::FromStr for PlaceholderMode {
    type Err = UnknownPlaceholderMode;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        ([PlaceholderMode::Keep, PlaceholderMode::Convert].into_iter())
            .find(|m| m.name().eq_ignore_ascii_case(value))
            .ok_or_else(|| UnknownPlaceholderMode {
                value: value.to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn android(text: &str, base: &str) -> String {
        convert(text, Syntax::Android, || Order::new([base], false), false).into_owned()
    }

    #[test]
    fn parses_names_types_and_doubled_braces() {
        assert_eq!(
            parse("a {{b}} {n:int}{x}").unwrap(),
            vec![
                Piece::Literal("a "),
                Piece::Brace('{'),
                Piece::Literal("b"),
                Piece::Brace('}'),
                Piece::Literal(" "),
                Piece::Placeholder {
                    name: "n",
                    kind: Kind::Int
                },
                Piece::Placeholder {
                    name: "x",
                    kind: Kind::Text
                },
            ]
        );
    }

    #[test]
    fn unbalanced_braces_are_refused_with_their_position() {
        assert_eq!(
            parse("ab {x").unwrap_err(),
            BraceError {
                brace: '{',
                char_at: 3
            }
        );
        assert_eq!(
            parse("ł }").unwrap_err(),
            BraceError {
                brace: '}',
                char_at: 2
            }
        );
        assert!(parse("{a b}").is_err());
        assert!(parse("{x:date}").is_err());
        assert!(parse("{}").is_err());
    }

    #[test]
    fn printf_numbers_follow_the_base_order() {
        let base = "{name} has {n:int} items";
        assert_eq!(android(base, base), "%1$s has %2$d items");
        assert_eq!(
            android("{n:int} items for {name}", base),
            "%2$d items for %1$s"
        );
        let ios = convert(
            "{p:float}% of {name}",
            Syntax::Ios,
            || Order::new(["{name} {p:float}"], false),
            false,
        );
        assert_eq!(ios, "%2$f%% of %1$@");
        // no placeholder: not a format string, % stays
        assert_eq!(android("100%", base), "100%");
    }

    #[test]
    fn count_is_argument_one_in_plurals() {
        let order = || Order::new(["{count} files in {folder}"], true);
        assert_eq!(
            convert("{folder}: {count} files", Syntax::Ios, order, true),
            "%2$@: %1$ld files"
        );
        assert_eq!(
            convert("one file", Syntax::Android, order, true),
            "one file"
        );
    }

    #[test]
    fn icu_quotes_braces_apostrophes_and_hash() {
        let order = Order::default;
        assert_eq!(
            convert(
                "it's {{x}} <b> {n:int} {f:float} #{count}",
                Syntax::Icu { in_plural: true },
                order,
                false
            ),
            "it''s '{'x'}' '<'b> {n, number, integer} {f, number} '#'#"
        );
        // adjacent quoted characters share one quoted run: `'{''{'` would hold an apostrophe
        assert_eq!(
            convert("{{{{<#}}", Syntax::Icu { in_plural: true }, order, false),
            "'{{<#}'"
        );
        // an apostrophe right after a run goes inside it
        assert_eq!(
            convert("<'{{ it's", Syntax::Icu { in_plural: false }, order, false),
            "'<''{' it''s"
        );
        assert_eq!(
            convert("{count}", Syntax::Icu { in_plural: false }, order, false),
            "{count}"
        );
    }

    #[test]
    fn message_format_and_composite_number_from_zero_in_the_base_order() {
        let base = "{name} has {n:int} files";
        let order = || Order::new([base], false);
        let text = "it's {n:int} {{x}} for {name}";
        assert_eq!(
            convert(text, Syntax::MessageFormat, order, false),
            "it''s {1} '{'x'}' for {0}"
        );
        assert_eq!(
            convert(text, Syntax::Composite, order, false),
            "it's {1} {{x}} for {0}"
        );
        // braces and apostrophes side by side share one quoted run: written apart,
        // '{''{' would read {'{ and '}''''}' }''}
        assert_eq!(
            convert("{{{{{n:int}}}'}}", Syntax::MessageFormat, order, false),
            "'{{'{1}'}''}'"
        );
        // no placeholder: not a format string, nothing escaped, braces undoubled
        assert_eq!(
            convert("it's {{x}}", Syntax::MessageFormat, order, false),
            "it's {x}"
        );
        assert_eq!(convert("{{x}}", Syntax::Composite, order, false), "{x}");
        // a plural form is a format string even without a placeholder; count is {0}
        let plural = || Order::new(["{count} files in {folder}"], true);
        assert_eq!(
            convert("it's one", Syntax::MessageFormat, plural, true),
            "it''s one"
        );
        assert_eq!(
            convert("{folder}: {count} {{!}}", Syntax::Composite, plural, true),
            "{1}: {0} {{!}}"
        );
    }

    #[test]
    fn rails_keeps_names_only() {
        assert_eq!(
            convert("{n:int} of %{x} {{", Syntax::Rails, Order::default, false),
            "%{n} of %%{x} {"
        );
    }

    /// Reads the argument numbers back out of a printf-converted text.
    fn printf_numbers(text: &str) -> Vec<usize> {
        let mut found = Vec::new();
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' {
                if bytes.get(i + 1) == Some(&b'%') {
                    i += 2;
                    continue;
                }
                let digits: String = text[i + 1..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                found.push(digits.parse().unwrap());
                i += 1 + digits.len();
            } else {
                i += 1;
            }
        }
        found
    }

    proptest! {
        /// The chunked brace test agrees with the obvious one, whatever the length and
        /// wherever the brace falls (first chunk, later chunk, remainder).
        #[test]
        fn has_braces_finds_any_brace(text in "\\PC{0,70}|[ab{}]{0,40}|[a]{0,40}[{}][a]{0,40}") {
            prop_assert_eq!(has_braces(&text), text.contains(['{', '}']));
        }

        /// The byte test of a placeholder name agrees with the character test it replaced,
        /// names past ASCII included.
        #[test]
        fn is_name_by_bytes_is_is_name_by_chars(name in "\\PC{0,6}|[a-zA-Z0-9_:é]{0,6}") {
            let mut chars = name.chars();
            let by_chars = chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
            prop_assert_eq!(is_name(&name), by_chars);
        }

        /// Any order of a base's placeholders, converted, gives back each name's base
        /// number at each position; the ICU form names the same names in the same places.
        #[test]
        fn conversion_keeps_names_in_place(
            names in proptest::sample::subsequence(vec!["a", "b", "name", "n_2", "x", "count"], 1..6),
            order in any::<proptest::sample::Index>(),
            literal in "[^{}%']{0,5}",
            plural in any::<bool>(),
        ) {
            let base: String = names.iter().map(|n| format!("{literal}{{{n}}}")).collect();
            let mut shuffled = names.clone();
            let k = order.index(shuffled.len());
            shuffled.rotate_left(k);
            shuffled.reverse();
            let text: String = shuffled.iter().map(|n| format!("{{{n}}}{literal}")).collect();
            let order = Order::new([base.as_str()], plural);
            let expected: Vec<usize> = shuffled
                .iter()
                .map(|n| order.names.iter().position(|m| m == n).unwrap() + 1)
                .collect();
            for syntax in [Syntax::Android, Syntax::Ios] {
                let converted = convert(&text, syntax, || order.clone(), plural);
                prop_assert_eq!(printf_numbers(&converted), expected.clone());
            }
            // `{0}`: the same numbers, from 0
            for syntax in [Syntax::MessageFormat, Syntax::Composite] {
                let converted = convert(&text, syntax, || order.clone(), plural);
                let numbers: Vec<usize> = names_of_icu(&converted)
                    .iter()
                    .map(|n| n.parse::<usize>().unwrap() + 1)
                    .collect();
                prop_assert_eq!(numbers, expected.clone());
            }
            let icu = convert(&text, Syntax::Icu { in_plural: false }, || order.clone(), false);
            prop_assert_eq!(names_of_icu(&icu), shuffled.clone());
            let rails = convert(&text, Syntax::Rails, || order.clone(), false);
            let back: Vec<&str> = rails.split("%{").skip(1).map(|s| s.split('}').next().unwrap()).collect();
            prop_assert_eq!(back, shuffled);
        }
    }

    fn names_of_icu(text: &str) -> Vec<&str> {
        text.split('{')
            .skip(1)
            .map(|s| s.split(['}', ',']).next().unwrap())
            .collect()
    }
}
