//! yml (Rails i18n): nested maps of texts, the locale as the top key (`pl:`) or in the file
//! name (depot's per-locale files), `%{name}` placeholders, plurals as maps of CLDR
//! categories, and the `#` comment lines right above a key as its comment. Read through
//! saphyr's YAML 1.2 parser; a plain scalar that YAML 1.1 readers (Ruby's Psych, PyYAML)
//! take for a boolean, null or number is no text for Rails, so it is listed, as are
//! lists and aliases.

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

use crate::formats::reading::{Reading, SyntaxError};
use crate::formats::shared::nested::{self, Node, NodeValue, Style};

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let root = parse(text)?;
    nested::read(root, Style::Yml, r)
}

type Events<'t> = Parser<'t, saphyr_parser::StrInput<'t>>;

fn scan_error(e: &saphyr_parser::ScanError) -> SyntaxError {
    let mut message = format!("not valid YAML: {}", e.info());
    // a surrogate escape, alone or in a pair (YAML escapes are code points, as libyaml and
    // so Rails read them too)
    if message.ends_with("invalid Unicode character escape code") {
        message.push_str(
            " (YAML writes a character past U+FFFF as \\U0001F600, not as a UTF-16 surrogate \
             pair, and a surrogate alone not at all)",
        );
    }
    SyntaxError::new(e.marker().line(), message)
}

fn next<'t>(events: &mut Events<'t>) -> Result<(Event<'t>, Span), SyntaxError> {
    match events.next() {
        Some(Ok(event)) => Ok(event),
        Some(Err(e)) => Err(scan_error(&e)),
        None => Err(SyntaxError::new(0, "the YAML ends early")),
    }
}

fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut events = Parser::new_from_str(text);
    let comments = Comments::new(text);
    loop {
        let (event, span) = next(&mut events)?;
        match event {
            Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => {}
            Event::StreamEnd => return Ok(Node::new(NodeValue::Map(Vec::new()))),
            event => return node(&mut events, event, span, &comments, 0),
        }
    }
}

/// Most nesting of maps and lists (a deeper file is refused rather than overflowing the
/// stack).
const MAX_DEPTH: usize = 64;

fn node<'t>(
    events: &mut Events<'t>,
    event: Event<'t>,
    span: Span,
    comments: &Comments<'_>,
    depth: usize,
) -> Result<Node, SyntaxError> {
    let line = span.start.line();
    if depth > MAX_DEPTH {
        return Err(SyntaxError::new(line, "nested too deeply"));
    }
    let value = match event {
        Event::Scalar(value, style, _, tag) => {
            let tagged_str = tag.as_ref().is_some_and(|t| t.suffix == "str");
            if style == ScalarStyle::Plain
                && !tagged_str
                && let Some(what) = not_a_text(&value)
            {
                NodeValue::Other(what.to_owned())
            } else {
                NodeValue::Text(value.into_owned())
            }
        }
        Event::MappingStart(..) => {
            let mut entries = Vec::new();
            loop {
                let (event, span) = next(events)?;
                if matches!(event, Event::MappingEnd) {
                    break;
                }
                let key_line = span.start.line();
                // a key is a name as written (`no:`, Norwegian, is false to Psych as a value)
                let Event::Scalar(key, ..) = event else {
                    return Err(SyntaxError::new(
                        key_line,
                        "a map key that is not a plain text",
                    ));
                };
                let key = key.into_owned();
                let (event, span) = next(events)?;
                let mut value = node(events, event, span, comments, depth + 1)?;
                value.line = key_line;
                value.comment = comments.above(key_line);
                entries.push((key, value));
            }
            NodeValue::Map(entries)
        }
        Event::SequenceStart(..) => {
            let mut open = 1usize;
            while open > 0 {
                match next(events)?.0 {
                    Event::SequenceStart(..) | Event::MappingStart(..) => open += 1,
                    Event::SequenceEnd | Event::MappingEnd => open -= 1,
                    _ => {}
                }
            }
            NodeValue::Other("a list".to_owned())
        }
        Event::Alias(_) => NodeValue::Other("an alias (*name)".to_owned()),
        other => return Err(SyntaxError::new(line, format!("unexpected YAML {other:?}"))),
    };
    Ok(Node {
        value,
        line,
        comment: None,
    })
}

/// What a plain scalar is to a YAML 1.1 or 1.2 reader when it is not a string.
pub(crate) fn not_a_text(s: &str) -> Option<&'static str> {
    const NULLS: [&str; 5] = ["", "~", "null", "Null", "NULL"];
    const BOOLS: [&str; 22] = [
        "true", "True", "TRUE", "false", "False", "FALSE", "yes", "Yes", "YES", "no", "No", "NO",
        "on", "On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N",
    ];
    if NULLS.contains(&s) {
        return Some("null");
    }
    if BOOLS.contains(&s) {
        return Some("a YAML 1.1 boolean");
    }
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    let digits =
        |t: &str, radix: u32| !t.is_empty() && t.chars().all(|c| c.is_digit(radix) || c == '_');
    let integer = digits(unsigned, 10)
        || unsigned.strip_prefix("0x").is_some_and(|t| digits(t, 16))
        || unsigned.strip_prefix("0o").is_some_and(|t| digits(t, 8))
        || unsigned.strip_prefix("0b").is_some_and(|t| digits(t, 2));
    let float = {
        let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
            Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
            None => (unsigned, None),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let mantissa_ok = (digits(whole, 10) || whole.is_empty())
            && (fraction.is_empty() || digits(fraction, 10))
            && !(whole.is_empty() && fraction.is_empty())
            && mantissa.contains('.');
        let exponent_ok =
            exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e), 10));
        (mantissa_ok && exponent_ok)
            || matches!(unsigned, ".inf" | ".Inf" | ".INF")
            || matches!(s, ".nan" | ".NaN" | ".NAN")
    };
    (integer || float).then_some("a YAML 1.1 number")
}

/// The one top-level key of the YAML `text` when it holds nothing else and a map under
/// it (Rails' `en:` above the texts), as written in the file. A scan of the lines that
/// start at the left margin, so a large file is not parsed for it.
pub(crate) fn top_key(text: &str) -> Option<String> {
    let mut top = (text.lines())
        .map(|line| line.trim_start_matches('\u{feff}'))
        .filter(|line| {
            let significant = line.trim_start();
            !(significant.is_empty()
                || significant.starts_with('#')
                || line.starts_with("---")
                || line.starts_with('%'))
        })
        .filter(|line| !line.starts_with([' ', '\t']));
    let (Some(first), None) = (top.next(), top.next()) else {
        return None;
    };
    let (key, rest) = first.split_once(':')?;
    let rest = rest.trim();
    let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
    (rest.is_empty() || rest.starts_with('#')).then(|| key.to_owned())
}

/// The source's lines, to find the comment lines above a key.
struct Comments<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Comments<'t> {
    fn new(text: &'t str) -> Comments<'t> {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1));
        Comments { text, starts }
    }

    fn line(&self, n: usize) -> Option<&'t str> {
        let start = *self.starts.get(n.checked_sub(1)?)?;
        let end = self.starts.get(n).map_or(self.text.len(), |&e| e - 1);
        self.text.get(start..end).map(|l| l.trim_end_matches('\r'))
    }

    /// The `#` lines right above line `line`, without their `#` and one space, joined.
    fn above(&self, line: usize) -> Option<String> {
        let mut found = Vec::new();
        let mut n = line.checked_sub(1)?;
        while let Some(text) = self.line(n) {
            let Some(comment) = text.trim_start().strip_prefix('#') else {
                break;
            };
            found.push(comment.strip_prefix(' ').unwrap_or(comment));
            n -= 1;
        }
        if found.is_empty() {
            return None;
        }
        found.reverse();
        Some(found.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::reading::{Options, Unit, Value};
    use crate::model::PluralCategory;

    #[test]
    fn a_rails_file_holds_its_locale_as_the_one_top_key() {
        assert_eq!(top_key("en:\n  hello: Hello\n").as_deref(), Some("en"));
        assert_eq!(
            top_key("\u{feff}# Copyright\n---\n\"pt-BR\": # Brazil\n  a: \"b\"\n").as_deref(),
            Some("pt-BR")
        );
        // depot's own files: the keys at the top
        assert_eq!(top_key("\"hello\": \"Hello\"\n"), None);
        assert_eq!(top_key("en:\n  a: b\nde:\n  a: c\n"), None);
        assert_eq!(top_key("en: text\n"), None);
    }

    fn units(text: &str, named: Option<&str>) -> (Vec<Unit>, Vec<(usize, String, String)>) {
        let options = Options::default();
        let mut r = Reading::new(&options);
        r.named = named.map(str::to_owned);
        read(text, &mut r).unwrap();
        (r.units, r.notes)
    }

    #[test]
    fn rails_files_read_with_levels_plurals_and_comments() {
        let (units, notes) = units(
            "pl:\n  # Greeting\n  # twice\n  hello: \"Cześć %{name}\"\n  items:\n    one: \"%{count} rzecz\"\n    other: '%{count} rzeczy'\n  flag: yes\n  n: 10\n  list: [a, b]\n  no: \"Nie\"\n  plain: Hello there\n",
            Some("pl"),
        );
        let got: Vec<(String, Value, Option<String>, usize)> = units
            .into_iter()
            .map(|u| (u.key.display(), u.value, u.comment, u.line))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "hello".into(),
                    Value::Text("Cześć {name}".into()),
                    Some("Greeting\ntwice".into()),
                    4
                ),
                (
                    "items".into(),
                    Value::Plural(vec![
                        (PluralCategory::One, "{count} rzecz".into()),
                        (PluralCategory::Other, "{count} rzeczy".into())
                    ]),
                    None,
                    5
                ),
                ("no".into(), Value::Text("Nie".into()), None, 11),
                ("plain".into(), Value::Text("Hello there".into()), None, 12),
            ]
        );
        let keys: Vec<&str> = notes.iter().map(|(_, k, _)| k.as_str()).collect();
        assert_eq!(keys, ["flag", "n", "list"]);
    }

    #[test]
    fn depot_files_without_the_locale_level_and_errors_with_lines() {
        let (units, _) = units("\"A\":\n  \"B\": \"yes\"\n", Some("en_US"));
        assert_eq!(units[0].key.display(), "A.B");
        let options = Options::default();
        let mut r = Reading::new(&options);
        let err = read("a: \"x\n", &mut r).unwrap_err();
        assert!(err.line >= 1, "{err:?}");
    }

    #[test]
    fn a_surrogate_escape_is_refused_with_what_to_write() {
        let options = Options::default();
        for text in [
            "en:\n  a: \"x\\uD800y\"\n",
            "en:\n  a: \"\\uD83D\\uDE00\"\n",
        ] {
            let mut r = Reading::new(&options);
            let e = read(text, &mut r).unwrap_err();
            assert_eq!(e.line, 2, "{text}");
            assert!(
                e.message
                    .ends_with("not as a UTF-16 surrogate pair, and a surrogate alone not at all)"),
                "{}",
                e.message
            );
        }
        let (units, _) = units("en:\n  a: \"\\U0001F600\"\n", Some("en"));
        assert_eq!(units[0].value, Value::Text("😀".into()));
    }
}
