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
    let mut chunks = bytes.chunks_exact(LANES);
    for chunk in &mut chunks {
        let mut any = 0u8;
        for &b in chunk {
            any |= u8::from(is_brace(b));
        }
        if any != 0 {
            return true;
        }
    }
    chunks.remainder().iter().any(|&b| is_brace(b))
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
            let (name, kind) = match inner.split_once(':') {
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
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
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
}

/// The argument numbers of a printf-style conversion: the names of the base locale's
/// text(s) in order of first appearance; in a plural entry `count` is always 1.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Order<'a> {
    names: Vec<&'a str>,
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
        Order { names }
    }

    /// 1-based argument number of `name`; names the base lacks come after its own, in the
    /// order this text shows them (the checks report such a text).
    fn number(&self, name: &str, extra: &mut Vec<String>) -> usize {
        if let Some(i) = self.names.iter().position(|n| *n == name) {
            return i + 1;
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
    let icu = matches!(syntax, Syntax::Icu { .. });
    let needs_work = has_braces(text)
        || (icu && memchr::memchr3(b'\'', b'<', b'#', text.as_bytes()).is_some())
        || (always_format && text.contains('%'));
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
    // printf syntaxes escape `%` only in a format string, so they look for a placeholder
    // first; the others write in one scan
    let printf = matches!(syntax, Syntax::Android | Syntax::Ios);
    let mut any_placeholder = false;
    if printf && !always_format {
        let scanned = scan(text, |piece| {
            any_placeholder |= matches!(piece, Piece::Placeholder { .. });
        });
        if scanned.is_err() {
            return false;
        }
    }
    let is_format = always_format || any_placeholder;
    let start = out.len();
    let mut extra = Vec::new();
    // where the last ICU quoted run ends (its closing quote), to extend it
    let mut run_end = None;
    // The numbering reads the base text: only printf placeholders need it.
    let mut order = Some(order);
    let mut numbers: Option<Order<'o>> = None;
    let scanned = scan(text, |piece| match (syntax, piece) {
        (Syntax::Android | Syntax::Ios, Piece::Literal(s)) if is_format => {
            push_replacing(out, s, "%", "%%")
        }
        (Syntax::Rails, Piece::Literal(s)) => push_replacing(out, s, "%{", "%%{"),
        (Syntax::Icu { in_plural }, Piece::Literal(s)) => {
            push_icu_literal(out, s, in_plural, &mut run_end)
        }
        (_, Piece::Literal(s)) => out.push_str(s),
        (Syntax::Icu { .. }, Piece::Brace(c)) => push_icu_quoted(out, c, &mut run_end),
        (_, Piece::Brace(c)) => out.push(c),
        (Syntax::Android | Syntax::Ios, Piece::Placeholder { name, kind }) => {
            let numbers =
                numbers.get_or_insert_with(|| order.take().map(|f| f()).unwrap_or_default());
            let n = numbers.number(name, &mut extra);
            let ios = syntax == Syntax::Ios;
            // the quantity is an integer whatever the sheet says
            let quantity = name == COUNT && numbers.names.first() == Some(&COUNT);
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
        (Syntax::Rails, Piece::Placeholder { name, .. }) => {
            let _ = write!(out, "%{{{name}}}");
        }
        (Syntax::Icu { in_plural }, Piece::Placeholder { name, kind }) => match kind {
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
        },
    });
    if scanned.is_err() {
        // what was written of a text that does not parse goes: the caller writes it as is
        out.truncate(start);
        return false;
    }
    true
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

/// ICU quoting: an apostrophe is doubled (then it is always a literal one), `#` inside a
/// plural is quoted, and so is `<`, which formatjs reads as the start of a rich-text tag.
fn push_icu_literal(out: &mut String, s: &str, in_plural: bool, run_end: &mut Option<usize>) {
    // By bytes, not chars: the three are ASCII, so every cut is a char boundary.
    let find = |rest: &str| {
        if in_plural {
            memchr::memchr3(b'\'', b'<', b'#', rest.as_bytes())
        } else {
            memchr::memchr2(b'\'', b'<', rest.as_bytes())
        }
    };
    let mut rest = s;
    while let Some(at) = find(rest) {
        out.push_str(&rest[..at]);
        match rest.as_bytes()[at] {
            // right after a quoted run it goes inside the run: `''` there would
            // otherwise be read as that run's apostrophe and its closing quote
            b'\'' if *run_end == Some(out.len()) => {
                out.pop();
                out.push_str("'''");
                *run_end = Some(out.len());
            }
            b'\'' => out.push_str("''"),
            special => push_icu_quoted(out, char::from(special), run_end),
        }
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// `c` quoted (`'{'`). Right after another quoted run the run is extended (`'{{'`):
/// closed and reopened, `'{''{'`, the `''` would be an apostrophe inside one quoted run,
/// as ICU and formatjs read it.
fn push_icu_quoted(out: &mut String, c: char, run_end: &mut Option<usize>) {
    if *run_end == Some(out.len()) {
        out.pop();
    } else {
        out.push('\'');
    }
    out.push(c);
    out.push('\'');
    *run_end = Some(out.len());
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
            for syntax in [Syntax::Android, Syntax::Ios] {
                let converted = convert(&text, syntax, || order.clone(), plural);
                let expected: Vec<usize> = shuffled
                    .iter()
                    .map(|n| order.names.iter().position(|m| m == n).unwrap() + 1)
                    .collect();
                prop_assert_eq!(printf_numbers(&converted), expected);
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
