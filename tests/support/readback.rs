//! Test-only readers, one per format, each modelled on the consumer the SPEC names (aapt2,
//! Apple's/GNUstep's strings parser, an XLIFF 1.2 reader, YAML parsers, msgfmt) so the
//! round-trip tests check what apps really read, not what our own writer meant.
//!
//! Shared by the unit tests of `src/translations/formats` and the HTTP tests in `tests/`,
//! so it uses only std and external crates: the consumers' rules below are written from
//! the consumers, never imported from the writers they check.

use std::collections::HashSet;

use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use saphyr::{LoadableYamlNode, Scalar, Yaml};

/// A flat `name -> text` pair with the comment written before it, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unit {
    pub(super) name: String,
    pub(super) text: String,
    pub(super) comment: Option<String>,
}

// ---------------------------------------------------------------- XML (android, xlf)

fn attr(e: &BytesStart<'_>, name: &str) -> Result<Option<String>, String> {
    for a in e.attributes() {
        let a = a.map_err(|err| format!("bad attribute: {err}"))?;
        if a.key.as_ref() == name {
            let v = a
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|err| format!("bad attribute value: {err}"))?;
            check_xml_chars(&v)?;
            return Ok(Some(v.into_owned()));
        }
    }
    Ok(None)
}

fn required(e: &BytesStart<'_>, name: &str) -> Result<String, String> {
    attr(e, name)?.ok_or_else(|| {
        format!(
            "<{}> lacks the required attribute {name}",
            e.name().as_ref()
        )
    })
}

/// XML 1.0's `Char` production (section 2.2): any other character cannot appear in a
/// document at all, not even as `&#N;`.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// quick-xml does not enforce XML 1.0's character set; expat and libxml2 do.
fn check_xml_chars(s: &str) -> Result<(), String> {
    match s.chars().find(|&c| !xml_char(c)) {
        Some(c) => Err(format!("XML 1.0 forbids U+{:04X}", u32::from(c))),
        None => Ok(()),
    }
}

fn resolve_ref(r: &BytesRef<'_>) -> Result<String, String> {
    if let Some(c) = r
        .resolve_char_ref()
        .map_err(|e| format!("bad character reference: {e}"))?
    {
        if !xml_char(c) {
            return Err(format!("XML 1.0 forbids &#x{:X};", u32::from(c)));
        }
        return Ok(c.to_string());
    }
    quick_xml::escape::resolve_predefined_entity(r)
        .map(str::to_owned)
        .ok_or_else(|| format!("undeclared entity &{};", &**r))
}

/// Reads events up to the end of the element just opened, returning its text content with
/// end-of-line normalisation and references resolved. Child elements are refused (the
/// writers never emit markup inside a text: `<b>` must stay text).
fn element_text(reader: &mut Reader<&[u8]>) -> Result<String, String> {
    let mut text = String::new();
    loop {
        match reader.read_event().map_err(|e| format!("XML error: {e}"))? {
            Event::Text(t) => {
                let content = t.xml10_content();
                check_xml_chars(&content)?;
                text.push_str(&content);
            }
            Event::GeneralRef(r) => text.push_str(&resolve_ref(&r)?),
            Event::CData(c) => text.push_str(&c.xml10_content()),
            Event::End(_) => return Ok(text),
            Event::Comment(_) => {}
            Event::Start(e) | Event::Empty(e) => {
                return Err(format!("markup <{}> inside a text", e.name().as_ref()));
            }
            other => return Err(format!("unexpected {other:?} inside a text")),
        }
    }
}

fn xml_reader<'a>(body: &'a str, declaration: &str) -> Result<Reader<&'a [u8]>, String> {
    check_xml_chars(body)?;
    if !body.starts_with(declaration) {
        return Err(format!("the body does not start with {declaration}"));
    }
    let mut reader = Reader::from_reader(body.as_bytes());
    reader.config_mut().check_end_names = true;
    reader.config_mut().check_comments = true;
    Ok(reader)
}

fn only_whitespace(t: &quick_xml::events::BytesText<'_>) -> Result<(), String> {
    if t.xml10_content().trim().is_empty() {
        Ok(())
    } else {
        Err(format!("stray text {:?}", t.xml10_content()))
    }
}

// ---------------------------------------------------------------- android (aapt2)

/// Reads a `strings.xml` the way aapt2 compiles it.
pub(super) fn read_android(body: &str) -> Result<Vec<Unit>, String> {
    let mut reader = xml_reader(body, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n")?;
    let mut units = Vec::new();
    let mut names = HashSet::new();
    let mut comment = None;
    let mut in_resources = false;
    loop {
        match reader.read_event().map_err(|e| format!("XML error: {e}"))? {
            Event::Decl(_) => {}
            Event::Start(e) if !in_resources && e.name().as_ref() == "resources" => {
                in_resources = true;
            }
            Event::Start(e) if in_resources && e.name().as_ref() == "string" => {
                let name = required(&e, "name")?;
                if !android_name_ok(&name) {
                    return Err(format!("invalid resource name '{name}'"));
                }
                if !names.insert(name.clone()) {
                    return Err(format!("duplicate resource '{name}'"));
                }
                let formatted = attr(&e, "formatted")?.is_none_or(|v| v != "false");
                let raw = element_text(&mut reader)?;
                let text = aapt2_compile(&raw, formatted).map_err(|e| format!("{name}: {e}"))?;
                units.push(Unit {
                    name,
                    text,
                    comment: comment.take(),
                });
            }
            Event::Comment(c) => {
                // aapt2 keeps the last comment before a resource, trimmed
                comment = Some(c.xml10_content().trim().to_owned());
            }
            Event::Text(t) => only_whitespace(&t)?,
            Event::End(e) if e.name().as_ref() == "resources" => in_resources = false,
            Event::Eof => return Ok(units),
            other => return Err(format!("unexpected {other:?}")),
        }
    }
}

fn aapt_space(c: char) -> bool {
    // C isspace() in the C locale
    matches!(c, ' ' | '\t' | '\n' | '\u{B}' | '\u{C}' | '\r')
}

/// aapt2's `ResourceParser::ParseXml` for a `<string>` without spans: trim the raw text,
/// refuse what would parse as a reference, then `StringBuilder::AppendText`, then the
/// `formatted` check. Plus the SPEC's rule that U+0000 corrupts the string.
pub(super) fn aapt2_compile(raw: &str, formatted: bool) -> Result<String, String> {
    let trimmed = raw.trim_matches(aapt_space);
    if trimmed.starts_with('@') || trimmed.starts_with('?') {
        return Err(format!("'{trimmed}' compiles to a reference, not a string"));
    }
    let mut out = String::new();
    let mut quote = false;
    let mut last_was_space = false;
    let mut chars = trimmed.chars();
    while let Some(c) = chars.next() {
        if !quote && aapt_space(c) {
            if !last_was_space {
                out.push(' ');
                last_was_space = true;
            }
            continue;
        }
        last_was_space = false;
        match c {
            '\\' => match chars.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(c @ ('#' | '@' | '?' | '"' | '\'' | '\\')) => out.push(c),
                Some('u') => {
                    let mut code = 0u32;
                    for _ in 0..4 {
                        let Some(d) = chars.next() else { break };
                        let Some(v) = d.to_digit(16) else {
                            return Err("invalid unicode escape sequence".into());
                        };
                        code = code << 4 | v;
                    }
                    let c = char::from_u32(code)
                        .ok_or_else(|| format!("invalid unicode code point U+{code:04X}"))?;
                    out.push(c);
                }
                Some(other) => out.push(other),
                None => {}
            },
            '"' => quote = !quote,
            '\'' if !quote => return Err("unescaped apostrophe".into()),
            c => out.push(c),
        }
    }
    if out.contains('\0') {
        return Err("U+0000 in a string".into());
    }
    if formatted && !aapt2_verify_java_string_format(&out) {
        return Err("multiple substitutions specified in non-positional format".into());
    }
    Ok(out)
}

/// aapt2 takes an entry name of ASCII letters, digits and `_` that does not start with a
/// digit (lower case is all the writers use); javac then refuses a Java keyword or literal
/// as a field of `R` (`_` included: a keyword since Java 9).
fn android_name_ok(name: &str) -> bool {
    const JAVA_KEYWORDS: &str = "_ abstract assert boolean break byte case catch char class \
        const continue default do double else enum extends false final finally float for \
        goto if implements import instanceof int interface long native new null package \
        private protected public return short static strictfp super switch synchronized \
        this throw throws transient true try void volatile while";
    name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !JAVA_KEYWORDS.split_ascii_whitespace().any(|k| k == name)
}

/// aapt2's `util::VerifyJavaStringFormat`, step by step: with two or more format
/// arguments, one that is not positional (`%s`, `%<s`, a width like `%5s`) makes the
/// string invalid unless it has `formatted="false"`; a conversion only `Time.format()`
/// knows makes aapt2 stop checking.
fn aapt2_verify_java_string_format(s: &str) -> bool {
    const TIME_ONLY: &[u8] = b"DFKMWZkmwyz";
    const FLAGS_AND_WIDTH: &[u8] = b"-#+ ,(0123456789";
    let b = s.as_bytes();
    let at = |i: usize| b.get(i).copied();
    let (mut c, mut args, mut nonpositional) = (0, 0, false);
    while c < b.len() {
        if b[c] == b'%' && c + 1 < b.len() {
            c += 1;
            if matches!(b[c], b'%' | b'n') {
                c += 1;
                continue;
            }
            args += 1;
            let digits = b[c..].iter().take_while(|d| d.is_ascii_digit()).count();
            if digits > 0 {
                c += digits;
                // digits not followed by `$` were a width
                nonpositional |= at(c).is_some_and(|d| d != b'$');
            } else if b[c] == b'<' {
                nonpositional = true;
                c += 1;
                c += usize::from(at(c) == Some(b'$'));
            } else {
                nonpositional = true;
            }
            c += b[c..]
                .iter()
                .take_while(|d| FLAGS_AND_WIDTH.contains(d))
                .count();
            if at(c).is_some_and(|d| TIME_ONLY.contains(&d)) {
                return true;
            }
        }
        c += 1;
    }
    !(args > 1 && nonpositional)
}

// ---------------------------------------------------------------- ios (.strings)

/// Reads a `.strings` file like Apple's CFPropertyList strings parser and GNUstep's
/// `GSPropertyListFromStringsFormat` agree to: `//` and `/* */` comments, quoted keys and
/// values, `=`, `;`. Stricter than both on one point: a raw line break inside quotes is an
/// error, since the parsers disagree on it.
pub(super) fn read_strings(body: &str) -> Result<Vec<Unit>, String> {
    let b = body.as_bytes();
    let mut pos = 0;
    let mut units = Vec::new();
    let mut names = HashSet::new();
    loop {
        let comment = skip_space_and_comments(b, &mut pos)?;
        if pos == b.len() {
            return Ok(units);
        }
        let name = quoted(b, &mut pos)?;
        skip_space_and_comments(b, &mut pos)?;
        expect(b, &mut pos, b'=')?;
        skip_space_and_comments(b, &mut pos)?;
        let text = quoted(b, &mut pos)?;
        skip_space_and_comments(b, &mut pos)?;
        expect(b, &mut pos, b';')?;
        if !names.insert(name.clone()) {
            return Err(format!("duplicate key '{name}'"));
        }
        units.push(Unit {
            name,
            text,
            comment,
        });
    }
}

fn expect(b: &[u8], pos: &mut usize, want: u8) -> Result<(), String> {
    if b.get(*pos) == Some(&want) {
        *pos += 1;
        Ok(())
    } else {
        Err(format!("expected '{}' at byte {}", want as char, *pos))
    }
}

/// Returns the last `/* */` comment skipped, as written.
fn skip_space_and_comments(b: &[u8], pos: &mut usize) -> Result<Option<String>, String> {
    let mut comment = None;
    while *pos < b.len() {
        match b[*pos] {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C => *pos += 1,
            b'/' if b.get(*pos + 1) == Some(&b'/') => {
                while *pos < b.len() && b[*pos] != b'\n' {
                    *pos += 1;
                }
            }
            b'/' if b.get(*pos + 1) == Some(&b'*') => {
                let start = *pos + 2;
                let Some(len) = b[start..].windows(2).position(|w| w == b"*/") else {
                    return Err("unterminated comment".into());
                };
                comment = Some(String::from_utf8_lossy(&b[start..start + len]).into_owned());
                *pos = start + len + 2;
            }
            _ => break,
        }
    }
    Ok(comment)
}

fn quoted(b: &[u8], pos: &mut usize) -> Result<String, String> {
    expect(b, pos, b'"')?;
    let mut units: Vec<u16> = Vec::new();
    let mut raw_start = *pos;
    let flush = |units: &mut Vec<u16>, raw: &[u8]| -> Result<(), String> {
        let s = std::str::from_utf8(raw).map_err(|e| format!("invalid UTF-8: {e}"))?;
        units.extend(s.encode_utf16());
        Ok(())
    };
    loop {
        let Some(&c) = b.get(*pos) else {
            return Err("unterminated quoted string".into());
        };
        match c {
            b'"' => {
                flush(&mut units, &b[raw_start..*pos])?;
                *pos += 1;
                return String::from_utf16(&units).map_err(|e| format!("bad UTF-16: {e}"));
            }
            b'\n' | b'\r' => return Err("raw line break inside a quoted string".into()),
            b'\\' => {
                flush(&mut units, &b[raw_start..*pos])?;
                *pos += 1;
                let Some(&e) = b.get(*pos) else {
                    return Err("dangling backslash".into());
                };
                *pos += 1;
                match e {
                    b'a' => units.push(0x07),
                    b'b' => units.push(0x08),
                    b'f' => units.push(0x0C),
                    b'n' => units.push(0x0A),
                    b'r' => units.push(0x0D),
                    b't' => units.push(0x09),
                    b'v' => units.push(0x0B),
                    // Apple reads only `\U`; GNUstep reads both cases: we accept only `\U`
                    b'U' => {
                        let mut v = 0u16;
                        for _ in 0..4 {
                            match b.get(*pos).and_then(|d| (*d as char).to_digit(16)) {
                                Some(d) => {
                                    v = v << 4 | d as u16;
                                    *pos += 1;
                                }
                                None => break,
                            }
                        }
                        units.push(v);
                    }
                    b'0'..=b'7' => {
                        let mut v = u16::from(e - b'0');
                        for _ in 0..2 {
                            match b.get(*pos) {
                                Some(d @ b'0'..=b'7') => {
                                    v = v << 3 | u16::from(d - b'0');
                                    *pos += 1;
                                }
                                _ => break,
                            }
                        }
                        units.push(v);
                    }
                    // both parsers: any other escaped character stands for itself
                    _ => {
                        *pos -= 1;
                        let rest = std::str::from_utf8(&b[*pos..]).map_err(|e| e.to_string())?;
                        let Some(ch) = rest.chars().next() else {
                            return Err("dangling backslash".into());
                        };
                        let mut buf = [0u16; 2];
                        units.extend_from_slice(ch.encode_utf16(&mut buf));
                        *pos += ch.len_utf8();
                    }
                }
                raw_start = *pos;
            }
            _ => *pos += 1,
        }
    }
}

// ---------------------------------------------------------------- xlf (XLIFF 1.2)

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct XlfFile {
    pub(super) source_language: String,
    pub(super) target_language: String,
    pub(super) units: Vec<XlfUnit>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct XlfUnit {
    pub(super) id: String,
    pub(super) resname: Option<String>,
    pub(super) source: String,
    pub(super) target: Option<String>,
    pub(super) note: Option<String>,
}

const XLIFF_NS: &str = "urn:oasis:names:tc:xliff:document:1.2";

/// Reads XLIFF 1.2, checking what the strict schema requires of what we write: the
/// namespace and version, `original`, `datatype`, `source-language` and `id`, unique ids per
/// file, `source` before `target` before `note`.
pub(super) fn read_xlf(body: &str) -> Result<Vec<XlfFile>, String> {
    let mut reader = xml_reader(body, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")?;
    let mut files = Vec::new();
    let mut ids = HashSet::new();
    let mut unit: Option<XlfUnit> = None;
    let mut depth = 0;
    loop {
        match reader.read_event().map_err(|e| format!("XML error: {e}"))? {
            Event::Decl(_) => {}
            Event::Start(e) => {
                depth += 1;
                match (depth, e.name().as_ref()) {
                    (1, "xliff") => {
                        if required(&e, "xmlns")? != XLIFF_NS || required(&e, "version")? != "1.2" {
                            return Err("not an XLIFF 1.2 document".into());
                        }
                    }
                    (2, "file") => {
                        required(&e, "original")?;
                        if required(&e, "datatype")?.is_empty() {
                            return Err("empty datatype".into());
                        }
                        files.push(XlfFile {
                            source_language: required(&e, "source-language")?,
                            target_language: required(&e, "target-language")?,
                            units: Vec::new(),
                        });
                        ids.clear();
                    }
                    (3, "body") => {}
                    (4, "trans-unit") => {
                        let id = required(&e, "id")?;
                        if !ids.insert(id.clone()) {
                            return Err(format!("duplicate trans-unit id '{id}'"));
                        }
                        unit = Some(XlfUnit {
                            id,
                            resname: attr(&e, "resname")?,
                            source: String::new(),
                            target: None,
                            note: None,
                        });
                    }
                    (5, name) => {
                        let text = element_text(&mut reader)?;
                        depth -= 1;
                        let Some(u) = unit.as_mut() else {
                            return Err("element outside a trans-unit".into());
                        };
                        match name {
                            "source" if u.target.is_none() && u.note.is_none() => u.source = text,
                            "target" if u.target.is_none() && u.note.is_none() => {
                                u.target = Some(text)
                            }
                            "note" => u.note = Some(text),
                            other => {
                                return Err(format!("unexpected <{}> in a trans-unit", other));
                            }
                        }
                    }
                    (_, other) => {
                        return Err(format!("unexpected <{}>", other));
                    }
                }
            }
            Event::End(e) => {
                if depth == 4
                    && let Some(u) = unit.take()
                    && let Some(file) = files.last_mut()
                {
                    if e.name().as_ref() != "trans-unit" {
                        return Err("unbalanced trans-unit".into());
                    }
                    file.units.push(u);
                }
                depth -= 1;
            }
            Event::Text(t) => only_whitespace(&t)?,
            Event::Eof => return Ok(files),
            other => return Err(format!("unexpected {other:?}")),
        }
    }
}

// ---------------------------------------------------------------- yml

/// Every escape that YAML 1.1 (PyYAML, Psych) and 1.2 (js-yaml, ruamel, saphyr) read alike.
const COMMON_ESCAPES: &[u8] = b"\"\\0tnrxu";

/// Parses with saphyr (YAML 1.2), requiring one mapping of mappings whose keys and leaves
/// are all strings; also checks that the body stays inside what YAML 1.1 parsers read the
/// same way: only the common escapes, no raw NEL/U+2028/U+2029 (line breaks in 1.1) or CR.
/// Returns `(path from the locale down, text)` in document order.
pub(super) fn read_yml(body: &str) -> Result<Vec<(Vec<String>, String)>, String> {
    for line in body
        .split('\n')
        .filter(|l| !l.trim_start().starts_with('#'))
    {
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some(e) if e.is_ascii() && COMMON_ESCAPES.contains(&(e as u8)) => {}
                    other => {
                        return Err(format!(
                            "escape \\{other:?} is not read alike by YAML 1.1 and 1.2"
                        ));
                    }
                },
                '\u{85}' | '\u{2028}' | '\u{2029}' | '\r' => {
                    return Err(format!(
                        "raw U+{:04X} is read differently by YAML 1.1",
                        u32::from(c)
                    ));
                }
                _ => {}
            }
        }
    }
    for line in body.split('\n').filter(|l| l.trim_start().starts_with('#')) {
        if line.contains(['\u{85}', '\u{2028}', '\u{2029}', '\r']) {
            return Err("a comment holds a YAML 1.1 line break".into());
        }
    }
    let docs = Yaml::load_from_str(body).map_err(|e| format!("YAML error: {e}"))?;
    let [doc] = docs.as_slice() else {
        return Err(format!("expected one document, got {}", docs.len()));
    };
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk_yml(doc, &mut path, &mut out)?;
    Ok(out)
}

fn yml_string<'a>(node: &'a Yaml<'_>) -> Result<&'a str, String> {
    match node {
        Yaml::Value(Scalar::String(s)) => Ok(s),
        other => Err(format!("{other:?} is not read as a string")),
    }
}

fn walk_yml(
    node: &Yaml<'_>,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String)>,
) -> Result<(), String> {
    let Yaml::Mapping(map) = node else {
        return Err(format!("expected a mapping at {path:?}, got {node:?}"));
    };
    for (k, v) in map {
        path.push(yml_string(k)?.to_owned());
        match v {
            Yaml::Mapping(_) => walk_yml(v, path, out)?,
            leaf => out.push((path.clone(), yml_string(leaf)?.to_owned())),
        }
        path.pop();
    }
    Ok(())
}

// ---------------------------------------------------------------- po (msgfmt)

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Po {
    pub(super) header: String,
    pub(super) units: Vec<PoUnit>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PoUnit {
    pub(super) msgctxt: Option<String>,
    pub(super) msgid: String,
    pub(super) msgstr: String,
    /// `#.` lines, joined with `\n`.
    pub(super) comment: Option<String>,
}

/// The raw bytes of an entry being read: msgctxt, msgid, msgstr.
type Pending = (Option<Vec<u8>>, Option<Vec<u8>>, Option<Vec<u8>>);

/// Reads a po file like msgfmt's lexer and grammar: comments, `msgctxt`/`msgid`/`msgstr`
/// each with one or more adjacent string literals, C escapes as `po-lex.c` knows them
/// (`\n \t \b \r \f \v \a \\ \"`, octal up to three digits, `\x` hex; anything else is
/// "invalid control sequence"), strings decoded as UTF-8 per the header's charset.
pub(super) fn read_po(body: &str) -> Result<Po, String> {
    #[derive(PartialEq)]
    enum Field {
        None,
        Ctxt,
        Id,
        Str,
    }
    let mut units: Vec<PoUnit> = Vec::new();
    let mut comment: Vec<String> = Vec::new();
    let mut cur: Option<Pending> = None;
    let mut field = Field::None;
    let mut keys = HashSet::new();
    let mut header = None;
    let mut finish = |cur: &mut Option<Pending>,
                      comment: &mut Vec<String>,
                      units: &mut Vec<PoUnit>|
     -> Result<(), String> {
        let Some((ctxt, id, msgstr)) = cur.take() else {
            return Ok(());
        };
        let (Some(id), Some(msgstr)) = (id, msgstr) else {
            return Err("entry without msgid or msgstr".into());
        };
        let utf8 = |b: Vec<u8>| String::from_utf8(b).map_err(|e| format!("invalid UTF-8: {e}"));
        let ctxt = ctxt.map(utf8).transpose()?;
        let (id, msgstr) = (utf8(id)?, utf8(msgstr)?);
        if msgstr.contains('\0') {
            return Err("U+0000 in msgstr".into());
        }
        if !keys.insert((ctxt.clone(), id.clone())) {
            return Err(format!("duplicate message definition {ctxt:?} {id:?}"));
        }
        if ctxt.is_none() && id.is_empty() {
            if header.is_some() || !units.is_empty() {
                return Err("the header must come first".into());
            }
            header = Some(msgstr);
        } else {
            units.push(PoUnit {
                msgctxt: ctxt,
                msgid: id,
                msgstr,
                comment: (!comment.is_empty()).then(|| comment.join("\n")),
            });
        }
        comment.clear();
        Ok(())
    };
    for (n, line) in body.split('\n').enumerate() {
        let line_no = n + 1;
        let trimmed = line.trim_start();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix('#') {
            finish(&mut cur, &mut comment, &mut units)?;
            field = Field::None;
            if let Some(extracted) = rest.strip_prefix('.') {
                comment.push(extracted.strip_prefix(' ').unwrap_or(extracted).to_owned());
            }
            continue;
        }
        let (keyword, rest) = match trimmed.split_once(' ') {
            Some((k, r)) if !k.starts_with('"') => (k, r.trim_start()),
            _ => ("", trimmed),
        };
        let literal = po_literal(rest).map_err(|e| format!("line {line_no}: {e}"))?;
        match keyword {
            "msgctxt" => {
                finish(&mut cur, &mut comment, &mut units)?;
                cur = Some((Some(literal), None, None));
                field = Field::Ctxt;
            }
            "msgid" => {
                match &mut cur {
                    Some((_, None, None)) => {}
                    _ => {
                        finish(&mut cur, &mut comment, &mut units)?;
                        cur = Some((None, None, None));
                    }
                }
                if let Some(c) = cur.as_mut() {
                    c.1 = Some(literal);
                }
                field = Field::Id;
            }
            "msgstr" => {
                match cur.as_mut() {
                    Some((_, Some(_), s @ None)) => *s = Some(literal),
                    _ => return Err(format!("line {line_no}: msgstr without msgid")),
                }
                field = Field::Str;
            }
            "" => {
                let slot = match (&field, cur.as_mut()) {
                    (Field::Ctxt, Some((Some(s), _, _)))
                    | (Field::Id, Some((_, Some(s), _)))
                    | (Field::Str, Some((_, _, Some(s)))) => s,
                    _ => return Err(format!("line {line_no}: string without a keyword")),
                };
                slot.extend_from_slice(&literal);
            }
            other => return Err(format!("line {line_no}: unknown keyword '{other}'")),
        }
    }
    finish(&mut cur, &mut comment, &mut units)?;
    let header = header.ok_or("no header entry")?;
    if !header.contains("Content-Type: text/plain; charset=UTF-8\n") {
        return Err("the header does not declare charset=UTF-8".into());
    }
    Ok(Po { header, units })
}

/// One `"..."` literal taking the whole rest of the line.
fn po_literal(s: &str) -> Result<Vec<u8>, String> {
    let inner = s
        .trim_end()
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| format!("not a string literal: {s:?}"))?;
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => return Err("unescaped '\"' inside a string".into()),
            b'\\' => {
                i += 1;
                let Some(&e) = b.get(i) else {
                    return Err("a string ends with a backslash".into());
                };
                i += 1;
                match e {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'b' => out.push(0x08),
                    b'r' => out.push(b'\r'),
                    b'f' => out.push(0x0C),
                    b'v' => out.push(0x0B),
                    b'a' => out.push(0x07),
                    b'\\' | b'"' => out.push(e),
                    b'0'..=b'7' => {
                        let mut v = u32::from(e - b'0');
                        for _ in 0..2 {
                            match b.get(i) {
                                Some(d @ b'0'..=b'7') => {
                                    v = v * 8 + u32::from(d - b'0');
                                    i += 1;
                                }
                                _ => break,
                            }
                        }
                        out.push(v as u8);
                    }
                    b'x' => {
                        let digits = b[i..].iter().take_while(|d| d.is_ascii_hexdigit()).count();
                        if digits == 0 {
                            return Err("invalid control sequence \\x".into());
                        }
                        let hex =
                            std::str::from_utf8(&b[i..i + digits]).map_err(|e| e.to_string())?;
                        let v = u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                        out.push(v as u8);
                        i += digits;
                    }
                    other => {
                        return Err(format!("invalid control sequence \\{}", other as char));
                    }
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aapt2_model_applies_its_rules() {
        assert_eq!(aapt2_compile("  a   b  ", true).unwrap(), "a b");
        assert_eq!(aapt2_compile("\"  a   b  \"", true).unwrap(), "  a   b  ");
        assert_eq!(aapt2_compile("say \"it's\"", true).unwrap(), "say it's");
        assert_eq!(aapt2_compile(r"\u0041\@\n", true).unwrap(), "A@\n");
        assert!(aapt2_compile("don't", true).is_err());
        assert!(aapt2_compile("@string/x", true).is_err());
        assert!(aapt2_compile(" ?attr", true).is_err());
        assert!(aapt2_compile("%s %d", true).is_err());
        assert_eq!(aapt2_compile("%s %d", false).unwrap(), "%s %d");
        assert!(aapt2_compile(r"\u00zz", true).is_err());
    }

    #[test]
    fn consumer_rules_follow_aapt2_javac_and_xml() {
        let java_format = aapt2_verify_java_string_format;
        assert!(java_format("%1$s and %2$s") && java_format("%2$d%% of %1$s %n"));
        assert!(java_format("100% sure") && java_format("%s at %H:%M"));
        assert!(!java_format("%s of %d") && !java_format("%1$s and %s"));
        assert!(!java_format("%<s %s") && !java_format("%5s %1$s"));
        assert!(android_name_ok("core_labels_yes") && android_name_ok("_new"));
        for bad in ["", "1st", "new", "_", "a-b", "Caps"] {
            assert!(!android_name_ok(bad), "{bad}");
        }
        assert!(xml_char('\t') && xml_char('\u{10FFFF}') && xml_char('\u{85}'));
        assert!(!xml_char('\0') && !xml_char('\u{1F}') && !xml_char('\u{FFFE}'));
    }

    #[test]
    fn strings_reader_follows_the_apple_grammar() {
        let units =
            read_strings("// line\n/* c */ \"a\" = \"x\\U0041\\101\\q\\\"\"; \"b\"=\"\";").unwrap();
        assert_eq!(units[0].text, "xAAq\"");
        assert_eq!(units[0].comment.as_deref(), Some(" c "));
        assert_eq!(units[1].name, "b");
        assert!(read_strings("\"a\" = \"x\ny\";").is_err());
        assert!(read_strings("\"a\" = \"x\"").is_err());
    }

    #[test]
    fn po_reader_follows_msgfmt() {
        let po = read_po(
            "msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n\n\
             #. note\nmsgctxt \"k\"\nmsgid \"k\"\nmsgstr \"\"\n\"a\\n\"\n\"\\101\\x42\"\n",
        )
        .unwrap();
        assert_eq!(po.units[0].msgstr, "a\nAB");
        assert_eq!(po.units[0].comment.as_deref(), Some("note"));
        assert!(read_po("msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\nmsgid \"a\"\nmsgstr \"\\'\"\n").is_err());
    }

    #[test]
    fn yml_reader_refuses_non_strings() {
        assert!(read_yml("\"en\":\n  \"a\": true\n").is_err());
        assert!(read_yml("\"en\":\n  \"a\": 012\n").is_err());
        assert!(read_yml("\"en\":\n  \"a\": \"\\e\"\n").is_err());
        assert_eq!(
            read_yml("\"en\":\n  \"a\": \"yes\"\n").unwrap(),
            [(vec!["en".to_owned(), "a".to_owned()], "yes".to_owned())]
        );
    }
}
