//! ICU MessageFormat (json, arb) back to the sheet's syntax, read as the formatjs parser
//! reads it (apostrophe mode DOUBLE_OPTIONAL: `''` is an apostrophe, and `'` quotes only
//! before `{`, `}`, `<`, or `#` inside a plural), or as gen-l10n reads it without
//! `use-escaping` (an apostrophe is text). A message that is one plural argument
//! becomes a plural entry (`#` is `{count}`); `{name}`, `{name, number}` and
//! `{name, number, integer}` become sheet placeholders; what the sheet cannot say (select,
//! a plural inside a text, dates, styles, `=0` cases) is reported.

use super::syntax::{Converted, Kind, arg_name, is_identifier, push_literal, push_placeholder};
use crate::model::PluralCategory;
use crate::model::placeholders::COUNT;

/// What a message is in the sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Text(Converted),
    Plural {
        forms: Vec<(PluralCategory, String)>,
        losses: Vec<String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
enum Element {
    Literal(String),
    Argument {
        name: String,
        kind: Option<Kind>,
        /// The type and style as written, when the sheet cannot say them.
        written: String,
    },
    Pound,
    /// plural, selectordinal or select
    Choice {
        name: String,
        kind: String,
        offset: bool,
        options: Vec<(String, Vec<Element>)>,
    },
}

/// Whose reading of a message: where gen-l10n (Flutter's ARB reader, flutter_tools
/// `message_parser.dart` and `gen_l10n.dart`) differs from ICU and formatjs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// ICU and formatjs: `#` in a plural is the quantity, `=N` an exact value the sheet's
    /// categories cannot say.
    Formatjs,
    /// gen-l10n: `#` and `<b>` are text (its lexer has no such tokens), and `=0`, `=1`, `=2` are the
    /// `zero`, `one`, `two` arguments of `Intl.pluralLogic` (its `pluralCases`), exactly
    /// what a `zero`, `one`, `two` case is; of two cases that name one argument the later
    /// wins (gen-l10n warns that the earlier is overridden). Apostrophes quote as ICU's do
    /// (`use-escaping: true` in the app's l10n.yaml).
    GenL10n,
    /// gen-l10n without `use-escaping` (its default): as `GenL10n`, but an apostrophe is
    /// text wherever it stands (its lexer's `normalString`, `[^{}]+`), and every brace is
    /// syntax.
    GenL10nPlain,
}

impl Dialect {
    /// gen-l10n's reading (plurals' `=N`, `#` and tags as text), with or without escaping.
    fn gen_l10n(self) -> bool {
        matches!(self, Dialect::GenL10n | Dialect::GenL10nPlain)
    }
}

struct Parser<'t> {
    text: &'t str,
    at: usize,
    tags: bool,
    /// `#` in a plural is the quantity (not in gen-l10n).
    pound: bool,
    /// An apostrophe quotes (not in gen-l10n without `use-escaping`).
    quoting: bool,
    /// Where the selectors of the choices at the message's top level are.
    selectors: Vec<std::ops::Range<usize>>,
}

/// Nesting deeper than this is refused (a message is text, not a program).
const MAX_DEPTH: usize = 16;

impl<'t> Parser<'t> {
    /// A parser of `text` as `dialect` reads ICU messages (tags are text).
    fn of(text: &'t str, dialect: Dialect) -> Parser<'t> {
        Parser {
            text,
            at: 0,
            tags: false,
            pound: dialect == Dialect::Formatjs,
            quoting: dialect != Dialect::GenL10nPlain,
            selectors: Vec::new(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn error(&self, what: &str) -> String {
        let at = self.text[..self.at].chars().count() + 1;
        format!("{what} at character {at}")
    }

    /// Elements up to the `}` closing an option (not consumed) or the end.
    fn message(&mut self, in_plural: bool, depth: usize) -> Result<Vec<Element>, String> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let mut elements = Vec::new();
        let mut literal = String::new();
        while let Some(c) = self.peek() {
            match c {
                '}' => {
                    if depth == 0 {
                        return Err(self.error("a '}' that closes nothing"));
                    }
                    break;
                }
                '{' => {
                    if !literal.is_empty() {
                        elements.push(Element::Literal(std::mem::take(&mut literal)));
                    }
                    self.bump();
                    elements.push(self.argument(depth)?);
                }
                '#' if in_plural && self.pound => {
                    self.bump();
                    if !literal.is_empty() {
                        elements.push(Element::Literal(std::mem::take(&mut literal)));
                    }
                    elements.push(Element::Pound);
                }
                '\'' if self.quoting => {
                    self.bump();
                    match self.peek() {
                        Some('\'') => {
                            self.bump();
                            literal.push('\'');
                        }
                        Some(n)
                            if matches!(n, '{' | '}' | '<' | '>') || (n == '#' && in_plural) =>
                        {
                            // quoted until the next lone apostrophe
                            while let Some(q) = self.bump() {
                                if q == '\'' {
                                    if self.peek() == Some('\'') {
                                        self.bump();
                                        literal.push('\'');
                                    } else {
                                        break;
                                    }
                                } else {
                                    literal.push(q);
                                }
                            }
                        }
                        _ => literal.push('\''),
                    }
                }
                '<' => {
                    self.bump();
                    if self
                        .peek()
                        .is_some_and(|n| n.is_ascii_alphabetic() || n == '/')
                    {
                        self.tags = true;
                    }
                    literal.push('<');
                }
                c => {
                    self.bump();
                    literal.push(c);
                }
            }
        }
        if !literal.is_empty() {
            elements.push(Element::Literal(literal));
        }
        Ok(elements)
    }

    fn word(&mut self) -> String {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| !c.is_whitespace() && !matches!(c, ',' | '{' | '}' | '\'' | '#'))
        {
            self.bump();
        }
        self.text[start..self.at].to_owned()
    }

    /// After `{`: an argument up to and with its `}`.
    fn argument(&mut self, depth: usize) -> Result<Element, String> {
        self.skip_ws();
        let name = self.word();
        if name.is_empty() {
            return Err(self.error("an argument without a name"));
        }
        self.skip_ws();
        match self.bump() {
            Some('}') => {
                return Ok(Element::Argument {
                    name,
                    kind: Some(Kind::Text),
                    written: String::new(),
                });
            }
            Some(',') => {}
            _ => return Err(self.error("an argument that is not closed")),
        }
        self.skip_ws();
        let kind = self.word();
        self.skip_ws();
        if matches!(kind.as_str(), "plural" | "selectordinal" | "select") {
            if self.bump() != Some(',') {
                return Err(self.error("a choice without options"));
            }
            return self.choice(name, kind, depth);
        }
        let mut style = String::new();
        match self.bump() {
            Some('}') => {}
            Some(',') => {
                // a style runs to the closing brace (it may hold quoted braces: skeletons)
                let start = self.at;
                let mut open = 0usize;
                loop {
                    match self.bump() {
                        Some('{') => open += 1,
                        Some('}') if open == 0 => break,
                        Some('}') => open -= 1,
                        Some(_) => {}
                        None => return Err(self.error("an argument that is not closed")),
                    }
                }
                style = self.text[start..self.at - 1].trim().to_owned();
            }
            _ => return Err(self.error("an argument that is not closed")),
        }
        let sheet_kind = match (kind.as_str(), style.as_str()) {
            ("number", "") => Some(Kind::Float),
            ("number", "integer") => Some(Kind::Int),
            _ => None,
        };
        let written = if style.is_empty() {
            kind
        } else {
            format!("{kind}, {style}")
        };
        Ok(Element::Argument {
            name,
            kind: sheet_kind,
            written,
        })
    }

    fn choice(&mut self, name: String, kind: String, depth: usize) -> Result<Element, String> {
        let mut options = Vec::new();
        let mut offset = false;
        loop {
            self.skip_ws();
            if self.peek() == Some('}') {
                self.bump();
                break;
            }
            let start = self.at;
            let selector = self.word();
            if depth == 0 {
                self.selectors.push(start..self.at);
            }
            if selector.is_empty() {
                return Err(self.error("an option without a selector"));
            }
            if let Some(rest) = selector.strip_prefix("offset:") {
                offset = true;
                if rest.is_empty() {
                    self.skip_ws();
                    self.word();
                }
                continue;
            }
            self.skip_ws();
            if self.bump() != Some('{') {
                return Err(self.error("an option without its '{'"));
            }
            let message = self.message(kind != "select", depth + 1)?;
            if self.bump() != Some('}') {
                return Err(self.error("an option that is not closed"));
            }
            options.push((selector, message));
        }
        Ok(Element::Choice {
            name,
            kind,
            offset,
            options,
        })
    }
}

/// The sheet name of an ICU argument: its own name, or `{0}` → `arg1`.
fn sheet_name(name: &str) -> Option<String> {
    if is_identifier(name) {
        return Some(name.to_owned());
    }
    name.parse::<usize>().ok().map(|n| arg_name(n + 1, false))
}

/// Elements as sheet text; `quantity`: the plural variable whose value `{count}` is.
fn write(elements: &[Element], quantity: Option<&str>, out: &mut Converted) -> Result<(), String> {
    for element in elements {
        match element {
            Element::Literal(text) => push_literal(&mut out.text, text),
            Element::Pound => push_placeholder(&mut out.text, COUNT, Kind::Text),
            Element::Argument {
                name,
                kind,
                written,
            } => {
                if quantity == Some(name.as_str()) {
                    push_placeholder(&mut out.text, COUNT, Kind::Text);
                    continue;
                }
                let Some(sheet) = sheet_name(name) else {
                    return Err(format!(
                        "the argument name '{name}' cannot be a sheet placeholder"
                    ));
                };
                match kind {
                    Some(kind) => push_placeholder(&mut out.text, &sheet, *kind),
                    None => {
                        push_placeholder(&mut out.text, &sheet, Kind::Text);
                        out.losses
                            .push(format!("{{{name}, {written}}} read as {{{sheet}}}: its type and style are not carried"));
                    }
                }
            }
            Element::Choice { kind, .. } => {
                return Err(format!(
                    "a {kind} inside a text, which the sheet cannot hold"
                ));
            }
        }
    }
    Ok(())
}

/// `text` as the sheet holds it. `Err`: not a message formatjs reads, or one the sheet
/// cannot hold (why).
pub fn to_sheet(text: &str) -> Result<Message, String> {
    to_sheet_as(text, Dialect::Formatjs)
}

/// Whether `text` holds nothing ICU reads specially but `{name}` arguments (most
/// messages): then the sheet's text is the message as it is, without parsing it.
/// `quoting`: an apostrophe is special.
fn is_plain(text: &str, quoting: bool) -> bool {
    let bytes = text.as_bytes();
    let apostrophe = if quoting { b'\'' } else { b'{' };
    let mut at = 0;
    while let Some(found) = memchr::memchr3(b'{', b'}', apostrophe, &bytes[at..]) {
        let brace = at + found;
        if bytes[brace] != b'{' {
            return false;
        }
        let Some(close) = memchr::memchr(b'}', &bytes[brace + 1..]) else {
            return false;
        };
        if !is_identifier(&text[brace + 1..brace + 1 + close]) {
            return false;
        }
        at = brace + close + 2;
    }
    true
}

/// Whether formatjs would read a rich-text tag in `text` (`<b>`, `</b>`).
fn has_tag(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'<', bytes).any(|at| {
        bytes
            .get(at + 1)
            .is_some_and(|&n| n.is_ascii_alphabetic() || n == b'/')
    })
}

/// `to_sheet` as `dialect` reads the message.
pub fn to_sheet_as(text: &str, dialect: Dialect) -> Result<Message, String> {
    let quoting = dialect != Dialect::GenL10nPlain;
    if is_plain(text, quoting) {
        let mut losses = Vec::new();
        if dialect == Dialect::Formatjs && has_tag(text) {
            losses.push("rich-text tags (<b>…</b>) are kept as text".to_owned());
        }
        return Ok(Message::Text(Converted {
            text: text.to_owned(),
            losses,
        }));
    }
    let mut parser = Parser::of(text, dialect);
    let elements = parser.message(false, 0)?;
    let mut losses = Vec::new();
    // gen-l10n knows no tags: `<b>` is text to Flutter, as to the sheet
    if parser.tags && dialect == Dialect::Formatjs {
        losses.push("rich-text tags (<b>…</b>) are kept as text".to_owned());
    }
    if let [
        Element::Choice {
            name,
            kind,
            offset,
            options,
        },
    ] = elements.as_slice()
        && kind == "plural"
    {
        if name != COUNT {
            losses.push(format!("the quantity {{{name}}} is {{count}} in the sheet"));
        }
        if *offset {
            losses.push("the plural's offset is not carried".to_owned());
        }
        let mut forms: Vec<(PluralCategory, String)> = Vec::new();
        let mut selectors: Vec<&str> = Vec::new();
        for (selector, message) in options {
            let exact = match (dialect.gen_l10n(), selector.as_str()) {
                (true, "=0") => Some(PluralCategory::Zero),
                (true, "=1") => Some(PluralCategory::One),
                (true, "=2") => Some(PluralCategory::Two),
                _ => None,
            };
            let Some(category) = exact.or_else(|| PluralCategory::from_name(selector)) else {
                losses.push(format!(
                    "the plural case {selector} is not carried (the sheet has CLDR categories only)"
                ));
                continue;
            };
            let mut form = Converted::default();
            write(message, Some(name), &mut form)?;
            losses.append(&mut form.losses);
            if dialect.gen_l10n()
                && let Some(at) = forms.iter().position(|(c, _)| *c == category)
            {
                losses.push(format!(
                    "the plural case {} is overridden by the later {selector}, as gen-l10n reads it",
                    selectors[at]
                ));
                forms.remove(at);
                selectors.remove(at);
            }
            forms.push((category, form.text));
            selectors.push(selector);
        }
        return Ok(Message::Plural { forms, losses });
    }
    let mut out = Converted {
        text: String::new(),
        losses,
    };
    write(&elements, None, &mut out)?;
    Ok(Message::Text(out))
}

/// Whether `dialect` reads `text` as a message whose syntax the sheet cannot hold (a plural
/// inside a text, a select): import carries such a message as literal text, which a writer
/// that cannot quote (gen-l10n without use-escaping) can only give back as it was.
pub fn is_unheld_message(text: &str, dialect: Dialect) -> bool {
    let mut parser = Parser::of(text, dialect);
    parser.message(false, 0).is_ok() && to_sheet_as(text, dialect).is_err()
}

/// Where the selectors of `text` are (`one`, `=1`, …) when it is one plural message as
/// `dialect` reads it, in order; `None`: not one plural message.
pub fn plural_selectors(text: &str, dialect: Dialect) -> Option<Vec<std::ops::Range<usize>>> {
    let mut parser = Parser::of(text, dialect);
    let elements = parser.message(false, 0).ok()?;
    match elements.as_slice() {
        [Element::Choice { kind, .. }] if kind == "plural" => Some(parser.selectors),
        _ => None,
    }
}

/// Whether `text` may be an ICU plural message at all (cheap test before parsing).
pub fn may_be_plural(text: &str) -> bool {
    text.contains("plural")
}

#[cfg(test)]
mod tests {
    use super::*;
    use PluralCategory::{One, Other};

    fn text(t: &str) -> String {
        match to_sheet(t).unwrap() {
            Message::Text(c) => c.text,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn quoting_and_arguments_read_as_formatjs_reads_them() {
        assert_eq!(
            text("it''s '{'x'}' '<'b> {n, number, integer} {f, number} '#'"),
            "it's {{x}} <b> {n:int} {f:float} '#'"
        );
        assert_eq!(text("it's {name}"), "it's {name}");
        assert_eq!(text("{0} of {1}"), "{arg1} of {arg2}");
        assert!(to_sheet("{a, select, x {1} other {2}} left").is_err());
        assert!(to_sheet("a { b").is_err());
        assert!(to_sheet("a } b").is_err());
    }

    #[test]
    fn a_plural_message_becomes_forms_with_count() {
        let Message::Plural { forms, losses } =
            to_sheet("{count, plural, one {# file in {folder}} other {# files '#' in {folder}}}")
                .unwrap()
        else {
            panic!()
        };
        assert!(losses.is_empty(), "{losses:?}");
        assert_eq!(
            forms,
            vec![
                (One, "{count} file in {folder}".to_owned()),
                (Other, "{count} files # in {folder}".to_owned())
            ]
        );
        let Message::Plural { losses, .. } =
            to_sheet("{n, plural, =0 {none} other {# of {n}}}").unwrap()
        else {
            panic!()
        };
        assert_eq!(losses.len(), 2, "{losses:?}");
    }

    /// The shortcut for plain messages gives what the parser gives.
    #[test]
    fn plain_messages_read_as_the_parser_reads_them() {
        for message in [
            "Hello {name}, {n} <b>x</b> # = 100%",
            "no braces",
            "{a}{b_2}",
            "",
            "<a",
        ] {
            assert!(is_plain(message, true), "{message}");
            for dialect in [Dialect::Formatjs, Dialect::GenL10n, Dialect::GenL10nPlain] {
                let mut parser = Parser::of(message, dialect);
                let elements = parser.message(false, 0).unwrap();
                let mut parsed = Converted::default();
                write(&elements, None, &mut parsed).unwrap();
                if parser.tags && dialect == Dialect::Formatjs {
                    parsed
                        .losses
                        .push("rich-text tags (<b>…</b>) are kept as text".to_owned());
                }
                assert_eq!(
                    to_sheet_as(message, dialect).unwrap(),
                    Message::Text(parsed),
                    "{message}"
                );
            }
        }
        for message in [
            "it's",
            "{ name }",
            "{n, number}",
            "a } b",
            "{1}",
            "{a",
            "{}",
        ] {
            assert!(!is_plain(message, true), "{message}");
        }
        // without use-escaping an apostrophe is text: nothing to parse
        assert!(is_plain("it's {name}", false));
        assert!(!is_plain("it's {name", false));
    }

    #[test]
    fn gen_l10n_reads_exact_cases_as_categories_and_pound_as_text() {
        let Message::Plural { forms, losses } = to_sheet_as(
            "{n, plural, =0{none} =1{just {n} #1} one{one {n}} other{{n} of #}}",
            Dialect::GenL10n,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            forms,
            vec![
                (PluralCategory::Zero, "none".to_owned()),
                (One, "one {count}".to_owned()),
                (Other, "{count} of #".to_owned())
            ]
        );
        // the quantity's name, and =1 given way to the later `one`
        assert_eq!(losses.len(), 2, "{losses:?}");
        assert!(
            losses[1].contains("=1 is overridden by the later one"),
            "{losses:?}"
        );
    }

    /// Without `use-escaping` (gen-l10n's default) an apostrophe is text wherever it
    /// stands, also right before an argument and doubled; with it, ICU's quoting.
    #[test]
    fn gen_l10n_without_escaping_reads_apostrophes_as_text() {
        let plain = |t: &str| to_sheet_as(t, Dialect::GenL10nPlain).unwrap();
        assert_eq!(
            plain("{count, plural, =1{Batalla d'{count} equip} other{Batalla de {count} equips}}"),
            Message::Plural {
                forms: vec![
                    (One, "Batalla d'{count} equip".to_owned()),
                    (Other, "Batalla de {count} equips".to_owned())
                ],
                losses: Vec::new()
            }
        );
        for (message, sheet) in [
            ("Don't stop, {name}", "Don't stop, {name}"),
            ("it''s '{name}'", "it''s '{name}'"),
            ("'#' <b>", "'#' <b>"),
        ] {
            assert_eq!(
                plain(message),
                Message::Text(Converted {
                    text: sheet.to_owned(),
                    losses: Vec::new()
                }),
                "{message}"
            );
        }
        // braces are always syntax: a quoted one is not a literal brace
        assert!(to_sheet_as("Tap '{'Edit'}'", Dialect::GenL10nPlain).is_err());
        // with use-escaping the same texts are ICU's quoting
        assert!(
            to_sheet_as(
                "{count, plural, =1{Batalla d'{count} equip} other{x}}",
                Dialect::GenL10n
            )
            .is_err()
        );
        assert_eq!(
            to_sheet_as("it''s '{name}'", Dialect::GenL10n).unwrap(),
            Message::Text(Converted {
                text: "it's {{name}}".to_owned(),
                losses: Vec::new()
            })
        );
    }
}
