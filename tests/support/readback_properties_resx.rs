//! Test-only readers for Java `.properties` and .NET `.resx`, each modelled on its
//! consumer (`java.util.Properties.load`; `ResXResourceReader` and MSBuild's resx reader,
//! both over `XmlTextReader`), so the round-trip tests check what apps read, not what our
//! writer meant. The integration tests (`tests/properties_resx.rs`) hold these models
//! against the JDK and mono themselves.
//!
//! Shared by the unit tests of `src/translations/formats` and the tests in `tests/`, so it
//! uses only std and external crates, never the writers it checks.

use std::collections::HashSet;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

/// A `name -> text` pair with the comment written before it (properties: the `#` lines
/// right above, each without its `# `; resx: `<comment>`), in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Pair {
    pub(super) name: String,
    pub(super) text: String,
    pub(super) comment: Option<String>,
}

// ---------------------------------------------------------------- properties

/// Reads a `.properties` body as `Properties.load(InputStream)` does (the file must be
/// ASCII, which ISO-8859-1 and UTF-8 readers read alike): natural lines end at LF, CR or
/// CR LF; blanks (space, tab, form feed) at a line's start are skipped; a line whose first
/// non-blank is `#` or `!` is a comment, never continued; an odd number of backslashes at
/// a line's end continues it on the next, whose leading blanks are skipped; the key ends
/// at the first unescaped `=`, `:` or blank, then blanks, at most one `=` or `:`, and
/// blanks again come before the value; escapes are `\t \n \r \f`, `\uXXXX` (exactly four
/// hex digits, else `load` throws) and `\` before any other character standing for it.
/// A key given twice is an error here (`load` would keep the last).
pub(super) fn read_properties(body: &str) -> Result<Vec<Pair>, String> {
    if let Some(c) = body.chars().find(|c| !c.is_ascii()) {
        return Err(format!("U+{:04X} is not ASCII", u32::from(c)));
    }
    let chars: Vec<char> = body.chars().collect();
    let mut at = 0;
    let mut pairs = Vec::new();
    let mut names = HashSet::new();
    let mut comment: Vec<String> = Vec::new();
    while let Some((line, is_comment)) = logical_line(&chars, &mut at) {
        if is_comment {
            let text: String = line.iter().collect();
            let text = text.trim_start_matches([' ', '\t', '\u{c}']);
            let text = &text[1..];
            comment.push(text.strip_prefix(' ').unwrap_or(text).to_owned());
            continue;
        }
        let (key, value) = split_key_value(&line);
        let name = load_convert(key)?;
        let text = load_convert(value)?;
        if !names.insert(name.clone()) {
            return Err(format!("key '{name}' given twice"));
        }
        pairs.push(Pair {
            name,
            text,
            comment: (!comment.is_empty()).then(|| comment.join("\n")),
        });
        comment.clear();
    }
    Ok(pairs)
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\u{c}')
}

/// The next logical line from `at` (continuations joined, their backslash and break
/// dropped), and whether it is a comment; `None` at the end. Blank lines are skipped.
fn logical_line(chars: &[char], at: &mut usize) -> Option<(Vec<char>, bool)> {
    while *at < chars.len() && (is_blank(chars[*at]) || matches!(chars[*at], '\n' | '\r')) {
        *at += 1;
    }
    if *at >= chars.len() {
        return None;
    }
    let is_comment = matches!(chars[*at], '#' | '!');
    let mut line = Vec::new();
    let mut backslashes = 0usize;
    loop {
        let Some(&c) = chars.get(*at) else {
            // the last line: a dangling backslash is dropped
            if !is_comment && !backslashes.is_multiple_of(2) {
                line.pop();
            }
            return Some((line, is_comment));
        };
        *at += 1;
        if c == '\n' || c == '\r' {
            if c == '\r' && chars.get(*at) == Some(&'\n') {
                *at += 1;
            }
            if is_comment || backslashes.is_multiple_of(2) {
                return Some((line, is_comment));
            }
            // continued: drop the backslash and the next line's leading blanks
            line.pop();
            backslashes = 0;
            while chars.get(*at).is_some_and(|&c| is_blank(c)) {
                *at += 1;
            }
            continue;
        }
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
        line.push(c);
    }
}

fn split_key_value(line: &[char]) -> (&[char], &[char]) {
    let mut key_len = 0;
    let mut value_start = line.len();
    let mut has_separator = false;
    let mut preceding_backslash = false;
    while key_len < line.len() {
        let c = line[key_len];
        if !preceding_backslash && matches!(c, '=' | ':') {
            value_start = key_len + 1;
            has_separator = true;
            break;
        }
        if !preceding_backslash && is_blank(c) {
            value_start = key_len + 1;
            break;
        }
        preceding_backslash = c == '\\' && !preceding_backslash;
        key_len += 1;
    }
    while value_start < line.len() {
        let c = line[value_start];
        if !is_blank(c) {
            if !has_separator && matches!(c, '=' | ':') {
                has_separator = true;
            } else {
                break;
            }
        }
        value_start += 1;
    }
    (&line[..key_len], &line[value_start.min(line.len())..])
}

/// `Properties.loadConvert`: the escapes, to UTF-16 units, then a string.
fn load_convert(s: &[char]) -> Result<String, String> {
    let mut units: Vec<u16> = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        i += 1;
        if c != '\\' {
            units.push(c as u16);
            continue;
        }
        let Some(&e) = s.get(i) else {
            break;
        };
        i += 1;
        match e {
            'u' => {
                let hex: String = s.get(i..i + 4).unwrap_or_default().iter().collect();
                let unit = (hex.len() == 4)
                    .then(|| u16::from_str_radix(&hex, 16).ok())
                    .flatten()
                    .ok_or_else(|| format!("Malformed \\uxxxx encoding at {hex:?}"))?;
                units.push(unit);
                i += 4;
            }
            't' => units.push(0x09),
            'n' => units.push(0x0A),
            'r' => units.push(0x0D),
            'f' => units.push(0x0C),
            other => units.push(other as u16),
        }
    }
    String::from_utf16(&units).map_err(|e| format!("not UTF-16: {e}"))
}

// ---------------------------------------------------------------- resx

/// A `.resx` read back: each `<data>` as ResXResourceReader reads it, and its `<value>`
/// as MSBuild reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Resx {
    pub(super) pairs: Vec<Pair>,
    pub(super) msbuild: Vec<String>,
}

/// Reads a `.resx` as resgen / `ResXResourceReader` and MSBuild's reader do, and refuses
/// what they would read differently from each other or from the text meant:
/// - the `resheader`s ResXResourceReader checks: `resmimetype` = `text/microsoft-resx`,
///   `reader` and `writer` naming `System.Resources.ResXResourceReader` /
///   `System.Resources.ResXResourceWriter` before their first comma; and `version` 2.0;
/// - every `<data>` with a `name` that is a C# identifier, unique whatever its case
///   (resgen: "An item with the same key has already been added"), `xml:space="preserve"`
///   and one `<value>`, optionally one `<comment>`;
/// - `XmlTextReader` without normalization: a character reference may name any character
///   (`&#0;`, `&#1;`, `&#65535;`); a raw CR would stay CR for ResXResourceReader but turn
///   into LF through MSBuild's `XDocument`: refused;
/// - MSBuild reads with `WhitespaceHandling.None`: a value whose text is only whitespace
///   is dropped, unless some of it is a decimal character reference (legacy
///   `XmlTextReader` counts those as text): such a value, read as "" there, is refused.
pub(super) fn read_resx(body: &str) -> Result<Resx, String> {
    let resx = read_resx_as_each_reader(body)?;
    for (pair, msbuild) in resx.pairs.iter().zip(&resx.msbuild) {
        if *msbuild != pair.text {
            return Err(format!(
                "'{}': MSBuild reads {msbuild:?} where ResXResourceReader reads {:?}",
                pair.name, pair.text
            ));
        }
    }
    Ok(resx)
}

/// `read_resx` without requiring that both readers read the same (to hold each against
/// the real one).
pub(super) fn read_resx_as_each_reader(body: &str) -> Result<Resx, String> {
    let body = body
        .strip_prefix('\u{FEFF}')
        .ok_or("no UTF-8 byte order mark (Visual Studio writes one)")?;
    if !body.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root>") {
        return Err("the body does not start with the XML declaration and <root>".into());
    }
    let mut reader = Reader::from_reader(body.as_bytes());
    reader.config_mut().check_end_names = true;
    reader.config_mut().check_comments = true;
    let mut pairs = Vec::new();
    let mut msbuild_texts = Vec::new();
    let mut names = HashSet::new();
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut depth = 0usize;
    let mut schema = false;
    loop {
        match reader.read_event().map_err(|e| format!("XML error: {e}"))? {
            Event::Decl(_) | Event::Comment(_) => {}
            Event::Start(e) if depth == 0 && e.name().as_ref() == "root" => depth = 1,
            Event::Start(e) if depth == 1 && e.name().as_ref() == "xsd:schema" => {
                schema = true;
                reader
                    .read_to_end(e.name())
                    .map_err(|e| format!("XML error: {e}"))?;
            }
            Event::Start(e) if depth == 1 && e.name().as_ref() == "resheader" => {
                let name = attr(&e, "name")?.ok_or("a resheader without name")?;
                let (value, _) = read_data_body(&mut reader, "resheader")?;
                headers.push((name, value.ok_or("a resheader without value")?.0));
            }
            Event::Start(e) if depth == 1 && e.name().as_ref() == "data" => {
                let name = attr(&e, "name")?.ok_or("a <data> without name")?;
                if !csharp_identifier(&name) {
                    return Err(format!("'{name}' is not a C# identifier"));
                }
                if !names.insert(name.to_ascii_lowercase()) {
                    return Err(format!("'{name}' is given twice (whatever its case)"));
                }
                if attr(&e, "xml:space")?.as_deref() != Some("preserve") {
                    return Err(format!(
                        "<data name=\"{name}\"> lacks xml:space=\"preserve\""
                    ));
                }
                if attr(&e, "type")?.is_some() || attr(&e, "mimetype")?.is_some() {
                    return Err(format!("<data name=\"{name}\"> is not a plain string"));
                }
                let (value, comment) = read_data_body(&mut reader, "data")?;
                let (text, msbuild) = value.ok_or_else(|| format!("'{name}' has no <value>"))?;
                msbuild_texts.push(msbuild);
                pairs.push(Pair {
                    name,
                    text,
                    comment: comment.map(|(c, _)| c),
                });
            }
            Event::Text(t) if t.chars().all(|c| c.is_ascii_whitespace()) => {}
            Event::End(e) if depth == 1 && e.name().as_ref() == "root" => depth = 0,
            Event::Eof if depth == 0 => break,
            other => return Err(format!("unexpected {other:?}")),
        }
    }
    let header = |name: &str| {
        (headers.iter())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .ok_or_else(|| format!("no resheader {name}"))
    };
    let type_name = |name: &str| header(name).map(|v| v.split(',').next().unwrap_or("").trim());
    if header("resmimetype")? != "text/microsoft-resx"
        || header("version")? != "2.0"
        || type_name("reader")? != "System.Resources.ResXResourceReader"
        || type_name("writer")? != "System.Resources.ResXResourceWriter"
        || !schema
    {
        return Err(format!("not the ResX 2.0 headers: {headers:?}"));
    }
    Ok(Resx {
        pairs,
        msbuild: msbuild_texts,
    })
}

fn attr(e: &BytesStart<'_>, name: &str) -> Result<Option<String>, String> {
    for a in e.attributes() {
        let a = a.map_err(|err| format!("bad attribute: {err}"))?;
        if a.key.as_ref() == name {
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|err| format!("bad attribute value: {err}"))?;
            return Ok(Some(v.into_owned()));
        }
    }
    Ok(None)
}

/// `[A-Za-z_][A-Za-z0-9_]*`, the ASCII part of C#'s identifiers (and all a writer of
/// portable names should use).
fn csharp_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// (as ResXResourceReader reads it, as MSBuild reads it)
type Readings = (String, String);

/// The `<value>` and `<comment>` of the element just opened, up to its end.
fn read_data_body(
    reader: &mut Reader<&[u8]>,
    end: &str,
) -> Result<(Option<Readings>, Option<Readings>), String> {
    let (mut value, mut comment) = (None, None);
    loop {
        match reader.read_event().map_err(|e| format!("XML error: {e}"))? {
            Event::Start(e) if e.name().as_ref() == "value" && value.is_none() => {
                value = Some(element_text(reader)?);
            }
            Event::Start(e) if e.name().as_ref() == "comment" && comment.is_none() => {
                comment = Some(element_text(reader)?);
            }
            Event::Empty(e) if e.name().as_ref() == "value" && value.is_none() => {
                value = Some((String::new(), String::new()));
            }
            Event::Text(t) if t.chars().all(|c| c.is_ascii_whitespace()) => {}
            Event::End(e) if e.name().as_ref() == end => return Ok((value, comment)),
            other => return Err(format!("unexpected {other:?} in a <data>")),
        }
    }
}

/// An element's text with references resolved as `XmlTextReader` (no normalization)
/// does, as read by ResXResourceReader and by MSBuild (see `read_resx`).
fn element_text(reader: &mut Reader<&[u8]>) -> Result<Readings, String> {
    let mut text = String::new();
    // MSBuild's view: whether the text is only whitespace from raw characters or hex
    // references
    let mut blank = true;
    loop {
        match reader.read_event().map_err(|e| format!("XML error: {e}"))? {
            Event::Text(t) => {
                let raw = t.into_inner();
                if raw.contains('\r') {
                    return Err("a raw CR, which MSBuild reads as LF".into());
                }
                blank &= raw.chars().all(|c| matches!(c, ' ' | '\t' | '\n'));
                text.push_str(&raw);
            }
            Event::GeneralRef(r) => {
                let name: &str = &r;
                let c = match name.strip_prefix('#') {
                    Some(number) => {
                        let (digits, radix) = match number.strip_prefix('x') {
                            Some(hex) => (hex, 16),
                            None => (number, 10),
                        };
                        let code = u32::from_str_radix(digits, radix)
                            .map_err(|e| format!("bad character reference &{name};: {e}"))?;
                        let c =
                            char::from_u32(code).ok_or_else(|| format!("no character &{name};"))?;
                        let whitespace = matches!(c, ' ' | '\t' | '\n' | '\r');
                        blank &= whitespace && radix == 16;
                        c
                    }
                    None => {
                        blank = false;
                        match name {
                            "amp" => '&',
                            "lt" => '<',
                            "gt" => '>',
                            "quot" => '"',
                            "apos" => '\'',
                            other => return Err(format!("undeclared entity &{other};")),
                        }
                    }
                };
                text.push(c);
            }
            Event::CData(c) => {
                blank = false;
                text.push_str(&c.into_inner());
            }
            Event::End(_) => {
                let msbuild = if blank { String::new() } else { text.clone() };
                return Ok((text, msbuild));
            }
            other => return Err(format!("unexpected {other:?} inside a text")),
        }
    }
}

// ---------------------------------------------------------------- names

/// A key path segment as resx names it (SPEC §11: C# identifiers), written apart from
/// the writer: every character outside `[A-Za-z0-9]` (lower-cased first, as android names
/// do) is `_`, and each run between them is capitalised, lower case after its first letter
/// when it was written all in capitals (`CORE` → `Core`, `myKey` → `MyKey`).
pub(super) fn csharp_name(segment: &str) -> String {
    let mut mapped = String::new();
    for c in segment.chars() {
        if c.is_ascii_alphanumeric() {
            mapped.push(c);
        } else {
            for l in c.to_lowercase() {
                mapped.push(if l.is_ascii_alphanumeric() { l } else { '_' });
            }
        }
    }
    let words: Vec<String> = mapped
        .split('_')
        .map(|word| {
            let all_caps = !word.chars().any(|c| c.is_ascii_lowercase());
            word.chars()
                .enumerate()
                .map(|(i, c)| match (i, all_caps) {
                    (0, _) => c.to_ascii_uppercase(),
                    (_, true) => c.to_ascii_lowercase(),
                    (_, false) => c,
                })
                .collect()
        })
        .collect();
    words.join("_")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(body: &str) -> Vec<(String, String)> {
        read_properties(body)
            .unwrap()
            .into_iter()
            .map(|p| (p.name, p.text))
            .collect()
    }

    #[test]
    fn properties_reader_follows_properties_load() {
        let body = "# c\n  ! also c \\\nkey = value\\\n    continued\na\\ b:c\\:d\ne\t\tf\n\
                    g\n h=\\u0041\\t\\\\x\\q\r\nlast=\\ \\ kept  ";
        assert_eq!(
            pairs(body),
            [
                ("key", "valuecontinued"),
                ("a b", "c:d"),
                ("e", "f"),
                ("g", ""),
                ("h", "A\t\\xq"),
                ("last", "  kept  ")
            ]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
        assert_eq!(pairs("k=\\uD83C\\uDF89")[0].1, "🎉");
        assert!(read_properties("k=\\u00G1").is_err());
        assert!(read_properties("k=é").is_err());
        assert!(read_properties("k=1\nk=2").is_err());
        let commented = read_properties("# one\n#\n# two\nk=v\n").unwrap();
        assert_eq!(commented[0].comment.as_deref(), Some("one\n\ntwo"));
    }

    const HEAD: &str = "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root>\n\
        <xsd:schema id=\"root\"><xsd:element name=\"root\"/></xsd:schema>\n\
        <resheader name=\"resmimetype\"><value>text/microsoft-resx</value></resheader>\n\
        <resheader name=\"version\"><value>2.0</value></resheader>\n\
        <resheader name=\"reader\"><value>System.Resources.ResXResourceReader, System.Windows.Forms</value></resheader>\n\
        <resheader name=\"writer\"><value>System.Resources.ResXResourceWriter, System.Windows.Forms</value></resheader>\n";

    fn resx(data: &str) -> Result<Vec<(String, String)>, String> {
        let body = format!("{HEAD}{data}</root>");
        Ok(read_resx(&body)?
            .pairs
            .into_iter()
            .map(|p| (p.name, p.text))
            .collect())
    }

    #[test]
    fn resx_reader_follows_xml_text_reader_and_msbuild() {
        let data = |name: &str, value: &str| {
            format!("<data name=\"{name}\" xml:space=\"preserve\"><value>{value}</value></data>\n")
        };
        assert_eq!(
            resx(
                &(data("A", "x &amp; &#1;&#0;&#x41;")
                    + data("B", "&#32;").as_str()
                    + data("C", "").as_str())
            )
            .unwrap(),
            [("A", "x & \u{1}\0A"), ("B", " "), ("C", "")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
        assert!(resx(&data("A", " ")).is_err(), "MSBuild drops it");
        assert!(resx(&data("A", "&#x20;")).is_err(), "MSBuild drops it");
        assert!(resx(&data("A", "a\rb")).is_err());
        assert!(resx(&data("1a", "x")).is_err());
        assert!(resx(&(data("Ab", "x") + data("AB", "y").as_str())).is_err());
        assert!(resx("<data name=\"A\"><value>x</value></data>").is_err());
    }
}
