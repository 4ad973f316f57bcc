//! ios `.strings`: the old-style property list strings syntax as Apple's CFPropertyList and
//! GNUstep read it — `"key" = "value";` (unquoted words too, and `"key";` meaning the key
//! is its own value), `/* */` and `//` comments (the one right before an entry is its
//! comment), the escapes `\n \t \r \" \\ \a \b \f \v`, octal `\NNN` and `\UXXXX` (UTF-16
//! units, surrogate pairs joined). Files come in UTF-8 or UTF-16 (with a byte-order mark,
//! or without one as Xcode once wrote them); XML property lists are read too. A key given
//! twice keeps its last value, as Apple's parser does.

use rustc_hash::FxHashMap;
use std::borrow::Cow;

use crate::formats::reading::{EMPTY_TEXT, Key, Reading, SyntaxError, Unit, Value, line_of};
use crate::formats::shared::plist::{self, Plist};
use crate::formats::shared::syntax::{self, Printf};
use crate::formats::shared::utf16;

/// The file's text: UTF-16 by its byte-order mark (or by its zero bytes when it has none),
/// else UTF-8.
pub(crate) fn decode(bytes: &[u8]) -> Result<Cow<'_, str>, SyntaxError> {
    let utf16 = |body: &[u8], little: bool| -> Result<Cow<'_, str>, SyntaxError> {
        if !body.len().is_multiple_of(2) {
            return Err(SyntaxError::new(
                0,
                "the UTF-16 text has an odd number of bytes",
            ));
        }
        let units = body.chunks_exact(2).map(|p| {
            if little {
                u16::from_le_bytes([p[0], p[1]])
            } else {
                u16::from_be_bytes([p[0], p[1]])
            }
        });
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .map(Cow::Owned)
            .map_err(|_| SyntaxError::new(0, "the UTF-16 text holds a lone surrogate"))
    };
    if let Some(body) = bytes.strip_prefix(b"\xFF\xFE") {
        return utf16(body, true);
    }
    if let Some(body) = bytes.strip_prefix(b"\xFE\xFF") {
        return utf16(body, false);
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Ok(text) = std::str::from_utf8(body) {
        // UTF-16 of ASCII text is valid UTF-8 too, full of NULs: look at where they are
        let zeros_at = |parity: usize| {
            body.iter()
                .skip(parity)
                .step_by(2)
                .filter(|&&b| b == 0)
                .count()
        };
        let half = body.len() / 2;
        if half > 0 && zeros_at(1) * 2 > half {
            return utf16(body, true);
        }
        if half > 0 && zeros_at(0) * 2 > half {
            return utf16(body, false);
        }
        return Ok(Cow::Borrowed(text));
    }
    Err(SyntaxError::new(
        0,
        "the file is neither UTF-8 nor UTF-16 with a byte-order mark",
    ))
}

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let start = text.trim_start();
    if start.starts_with("<?xml") || start.starts_with("<plist") || start.starts_with("<!DOCTYPE") {
        return read_xml(text, r);
    }
    if start.starts_with("bplist") {
        return Err(SyntaxError::new(
            1,
            "a binary property list: convert it to text first (plutil -convert xml1)",
        ));
    }
    let mut p = Parser { text, at: 0 };
    let mut seen = Seen::default();
    // counted as the parser moves on (a count from the start per entry is quadratic)
    let mut lines = crate::formats::shared::xml::Lines::new(text);
    loop {
        let comment = p.space_and_comments()?;
        if p.at >= text.len() {
            seen.give_keys(r);
            return Ok(());
        }
        let line = lines.at(p.at);
        let key = p.string()?;
        p.space_and_comments()?;
        let value = match p.peek() {
            Some(';') => key.clone(),
            Some('=') => {
                p.at += 1;
                p.space_and_comments()?;
                let value = p.string().map_err(|e| e.in_key(&key))?;
                p.space_and_comments()?;
                value
            }
            _ => return Err(p.error("expected '=' or ';' after the key")),
        };
        if p.peek() != Some(';') {
            return Err(p.error("expected ';' after the value"));
        }
        p.at += 1;
        if value.is_empty() {
            // "" to NSLocalizedString, not the key; generate patches the app's file entry
            // by entry, so it stays (an XML property list is written whole: below)
            r.keep(line, &key, EMPTY_TEXT);
            continue;
        }
        push(r, key, value, comment, line, &mut seen);
    }
}

/// The keys of a file's units, by key: a key given twice is found, and each unit gets its
/// key once the file is read (`give_keys`), so that a key is not copied for the lookup.
#[derive(Default)]
struct Seen {
    units: FxHashMap<String, usize>,
}

impl Seen {
    fn give_keys(self, r: &mut Reading<'_>) {
        for (key, at) in self.units {
            if let Some(unit) = r.units.get_mut(at) {
                unit.key = Key::Flat(key);
            }
        }
    }
}

fn push(
    r: &mut Reading<'_>,
    key: String,
    value: String,
    comment: Option<String>,
    line: usize,
    seen: &mut Seen,
) {
    let converted = r.converted(value, |t| syntax::printf(t, Printf::Apple, false));
    for loss in converted.losses {
        r.note(line, &key, loss);
    }
    let unit = Unit {
        // given by `Seen::give_keys`
        key: Key::Flat(String::new()),
        value: Value::Text(converted.text),
        comment,
        locale: None,
        line,
    };
    if let Some(&earlier) = seen.units.get(&key) {
        r.note(line, &key, format!("the key is given twice (also line {}): the last text is kept, as Apple's parser does", r.units[earlier].line));
        r.units[earlier] = unit;
        return;
    }
    seen.units.insert(key, r.units.len());
    r.units.push(unit);
}

/// A `.strings` file saved as an XML property list: one dictionary of strings.
fn read_xml(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let Plist::Dict(entries) = plist::parse(text)? else {
        return Err(SyntaxError::new(
            1,
            "the property list is not a dictionary of strings",
        ));
    };
    let mut seen = Seen::default();
    for entry in entries {
        match entry.value {
            Plist::String(value) if value.is_empty() => {
                r.note(
                    entry.line,
                    &entry.key,
                    "an empty text is not carried: an empty cell means no text",
                );
            }
            Plist::String(value) => push(r, entry.key, value, entry.comment, entry.line, &mut seen),
            _ => r.note(
                entry.line,
                &entry.key,
                "a value that is not a string is not carried",
            ),
        }
    }
    seen.give_keys(r);
    Ok(())
}

struct Parser<'t> {
    text: &'t str,
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn error(&self, what: &str) -> SyntaxError {
        SyntaxError::new(line_of(self.text, self.at), what)
    }

    /// Skips whitespace and comments; the text of the last comment when only whitespace
    /// follows it.
    fn space_and_comments(&mut self) -> Result<Option<String>, SyntaxError> {
        let mut comment = None;
        loop {
            let rest = &self.text[self.at..];
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            if let Some(body) = trimmed.strip_prefix("/*") {
                let end = body
                    .find("*/")
                    .ok_or_else(|| self.error("a comment that is never closed"))?;
                comment = Some(body[..end].trim().to_owned());
                self.at += 2 + end + 2;
            } else if let Some(body) = trimmed.strip_prefix("//") {
                let end = body.find('\n').unwrap_or(body.len());
                comment = Some(body[..end].trim().to_owned());
                self.at += 2 + end;
            } else {
                return Ok(comment);
            }
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        match self.peek() {
            Some('"') => {
                self.at += 1;
                self.quoted()
            }
            Some(c) if unquoted(c) => {
                let len = self.text[self.at..]
                    .find(|c: char| !unquoted(c))
                    .unwrap_or(self.text.len() - self.at);
                let word = self.text[self.at..self.at + len].to_owned();
                self.at += len;
                Ok(word)
            }
            _ => Err(self.error("expected a quoted string")),
        }
    }

    /// After the opening quote: the string up to and with its closing quote.
    fn quoted(&mut self) -> Result<String, SyntaxError> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        // most strings hold no escape: one search, one copy
        if let Some(end) = memchr::memchr2(b'"', b'\\', &bytes[start..])
            && bytes[start + end] == b'"'
        {
            let text = self.text[start..start + end].to_owned();
            self.at = start + end + 1;
            return Ok(text);
        }
        // the others: the runs between escapes copied whole
        let mut out = String::with_capacity(64);
        // a first surrogate, waiting for its second (and where its escape was)
        let mut pending_high: Option<(u16, usize)> = None;
        let mut at = start;
        while let Some(found) = memchr::memchr2(b'"', b'\\', &bytes[at..]) {
            let run = &self.text[at..at + found];
            if !run.is_empty() {
                self.no_pending(pending_high)?;
                out.push_str(run);
            }
            at += found;
            if bytes[at] == b'"' {
                self.no_pending(pending_high)?;
                self.at = at + 1;
                return Ok(out);
            }
            let escape_at = at;
            at += 1;
            let Some(e) = self.text[at..].chars().next() else {
                break;
            };
            at += e.len_utf8();
            let unit = match e {
                'a' => Some(0x7),
                'b' => Some(0x8),
                'f' => Some(0xC),
                'n' => Some(0xA),
                'r' => Some(0xD),
                't' => Some(0x9),
                'v' => Some(0xB),
                'U' | 'u' => {
                    let digits = bytes[at..]
                        .iter()
                        .take(4)
                        .take_while(|b| b.is_ascii_hexdigit())
                        .count();
                    let unit = u16::from_str_radix(&self.text[at..at + digits], 16).unwrap_or(0);
                    at += digits;
                    Some(unit)
                }
                '0'..='7' => {
                    let mut value = e.to_digit(8).unwrap_or(0);
                    for _ in 0..2 {
                        match bytes.get(at) {
                            Some(&d @ b'0'..=b'7') => {
                                value = value * 8 + u32::from(d - b'0');
                                at += 1;
                            }
                            _ => break,
                        }
                    }
                    u16::try_from(value).ok()
                }
                other => {
                    self.no_pending(pending_high)?;
                    out.push(other);
                    None
                }
            };
            let Some(unit) = unit else { continue };
            match pending_high.take() {
                Some((high, _)) if utf16::is_low(unit) => {
                    out.push(
                        utf16::pair(high, unit)
                            .ok_or_else(|| self.error_at(escape_at, &utf16::lone(high, "\\U")))?,
                    );
                }
                Some(waiting) => return Err(self.lone_at(waiting)),
                None if utf16::is_high(unit) => pending_high = Some((unit, escape_at)),
                None => {
                    out.push(utf16::single(unit, "\\U").map_err(|m| self.error_at(escape_at, &m))?)
                }
            }
        }
        self.at = start;
        Err(self.error("a quoted string that is never closed"))
    }

    fn error_at(&self, at: usize, what: &str) -> SyntaxError {
        SyntaxError::new(line_of(self.text, at), what)
    }

    /// The error of a first surrogate (at its escape) whose second does not follow.
    fn lone_at(&self, (high, at): (u16, usize)) -> SyntaxError {
        self.error_at(at, &utf16::lone(high, "\\U"))
    }

    /// Refuses a first surrogate still waiting when something else than its second comes.
    fn no_pending(&self, pending: Option<(u16, usize)>) -> Result<(), SyntaxError> {
        pending.map_or(Ok(()), |waiting| Err(self.lone_at(waiting)))
    }
}

/// The characters of an unquoted string (CFPropertyList's `isValidUnquotedStringCharacter`).
fn unquoted(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '/' | ':' | '.' | '-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Options;

    fn read_all(text: &str) -> Vec<(String, String, Option<String>)> {
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(text, &mut r).unwrap();
        r.units
            .into_iter()
            .map(|u| {
                let Value::Text(t) = u.value else { panic!() };
                (u.key.display(), t, u.comment)
            })
            .collect()
    }

    #[test]
    fn reads_what_apple_and_gnustep_read() {
        let got = read_all(
            "/* Greeting */\n\"hello\" = \"Hi \\\"%@\\\"\\n\\t\\\\ \\U00e9\\UD83D\\UDE00 \\101\";\n// line comment\nbare_key = bare.value;\n\"self\";\n\"dup\" = \"a\";\n\"dup\" = \"b\";\n\"multi\nline\" = \"x\";\n",
        );
        assert_eq!(
            got,
            vec![
                (
                    "hello".into(),
                    "Hi \"{arg1}\"\n\t\\ é😀 A".into(),
                    Some("Greeting".into())
                ),
                (
                    "bare_key".into(),
                    "bare.value".into(),
                    Some("line comment".into())
                ),
                ("self".into(), "self".into(), None),
                ("dup".into(), "b".into(), None),
                ("multi\nline".into(), "x".into(), None),
            ]
        );
    }

    #[test]
    fn utf16_with_and_without_bom_and_errors_name_the_line() {
        let text = "\"a\" = \"ł\";\n";
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(decode(&le).unwrap(), text);
        assert_eq!(decode(&be).unwrap(), text);
        let options = Options::default();
        let mut r = Reading::new(&options);
        let err = read("\"a\" = \"b\";\n\"c\" = \"d\"\n\"e\" = \"f\";", &mut r).unwrap_err();
        assert_eq!(err.line, 3, "{err:?}");
    }

    #[test]
    fn a_surrogate_without_its_other_half_is_refused_by_line_and_key_and_a_pair_decodes() {
        let options = Options::default();
        let refused = |text: &str| {
            let mut r = Reading::new(&options);
            let e = read(text, &mut r).unwrap_err();
            (e.line, e.message)
        };
        let first = "is the first half of a UTF-16 surrogate pair, and its second half does not \
                     follow it: write the character itself, or both halves (\\UD83D\\UDE00 is \
                     U+1F600)";
        for (text, line, message) in [
            (
                "\"a\" = \"ok\";\n\"b\" = \"x\\UD800y\";",
                2,
                format!("key \"b\": \\UD800 {first}"),
            ),
            (
                "\"end\" = \"x\\UD83D\";",
                1,
                format!("key \"end\": \\UD83D {first}"),
            ),
            (
                "\"esc\" = \"\\UD83D\\n\";",
                1,
                format!("key \"esc\": \\UD83D {first}"),
            ),
            (
                "\"two\" = \"\\UD83D\\UD83D\\UDE00\";",
                1,
                format!("key \"two\": \\UD83D {first}"),
            ),
            ("\"k\\UD800\" = \"v\";", 1, format!("\\UD800 {first}")),
        ] {
            assert_eq!(refused(text), (line, message), "{text}");
        }
        let (line, message) = refused("\"r\" =\n\"\\UDE00\\UD83D\";");
        assert_eq!(line, 2);
        assert!(
            message.starts_with("key \"r\": \\UDE00 is the second half of a UTF-16"),
            "{message}"
        );
        assert_eq!(
            read_all("\"e\" = \"\\UD83D\\UDE00 \\ud83d\\ude00\";"),
            [("e".to_owned(), "😀 😀".to_owned(), None)]
        );
    }
}
