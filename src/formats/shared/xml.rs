//! What the XML readers (android, stringsdict, xlf, resx) share, on quick-xml: attribute
//! values, references, an element's text with the markup inside it flattened (and named,
//! so the reader can say what it left out), and line numbers.

use quick_xml::Reader;
use quick_xml::events::{BytesRef, BytesStart, Event};

use crate::formats::reading::SyntaxError;

/// A reader over `text` that checks end names (a file whose tags do not match is refused,
/// as every XML consumer refuses it).
pub fn reader(text: &str) -> Reader<&[u8]> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    reader
}

/// Line numbers of byte offsets that only grow (one pass over the text in all).
#[derive(Debug)]
pub struct Lines<'t> {
    text: &'t [u8],
    at: usize,
    line: usize,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Lines<'t> {
        Lines {
            text: text.as_bytes(),
            at: 0,
            line: 1,
        }
    }

    /// The 1-based line of byte `offset` (offsets before the last one asked give that line).
    pub fn at(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        if offset > self.at {
            self.line += memchr::memchr_iter(b'\n', &self.text[self.at..offset]).count();
            self.at = offset;
        }
        self.line
    }
}

/// An error at the reader's position.
pub fn error(
    reader: &Reader<&[u8]>,
    lines: &mut Lines<'_>,
    message: impl Into<String>,
) -> SyntaxError {
    let at = usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
    SyntaxError::new(lines.at(at), message)
}

/// A quick-xml error at the reader's position.
pub fn xml_error(
    reader: &Reader<&[u8]>,
    lines: &mut Lines<'_>,
    e: &quick_xml::Error,
) -> SyntaxError {
    error(reader, lines, format!("not well-formed XML: {e}"))
}

/// The next event, with the byte offset where it starts.
pub fn next<'t>(
    reader: &mut Reader<&'t [u8]>,
    lines: &mut Lines<'_>,
) -> Result<(usize, Event<'t>), SyntaxError> {
    let start = usize::try_from(reader.buffer_position()).unwrap_or(0);
    let event = reader
        .read_event()
        .map_err(|e| xml_error(reader, lines, &e))?;
    Ok((start, event))
}

/// The value of attribute `name` (qualified name as written), references resolved.
pub fn attr(e: &BytesStart<'_>, name: &str) -> Result<Option<String>, String> {
    for a in e.attributes() {
        let a = a.map_err(|err| format!("a malformed attribute: {err}"))?;
        if a.key.as_ref() == name {
            let value = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|err| format!("the attribute {name}: {err}"))?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

/// `&amp;`, `&#x41;` and the other predefined and character references.
pub fn resolve_ref(r: &BytesRef<'_>) -> Result<String, String> {
    if let Some(c) = r
        .resolve_char_ref()
        .map_err(|e| format!("a bad character reference: {e}"))?
    {
        return Ok(c.to_string());
    }
    quick_xml::escape::resolve_predefined_entity(r)
        .map(str::to_owned)
        .ok_or_else(|| format!("the entity &{}; is not declared", &**r))
}

/// The content of the element just opened, up to its end: its text, with the text of any
/// child elements in place (their tags dropped), and the names of those children.
#[derive(Debug, Default)]
pub struct Content {
    pub text: String,
    pub children: Vec<String>,
}

pub fn content(reader: &mut Reader<&[u8]>, lines: &mut Lines<'_>) -> Result<Content, SyntaxError> {
    let mut content = Content::default();
    let mut depth = 0usize;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| xml_error(reader, lines, &e))?;
        match event {
            Event::Text(t) => content.text.push_str(&t.xml10_content()),
            Event::GeneralRef(r) => {
                let resolved = resolve_ref(&r).map_err(|m| error(reader, lines, m))?;
                content.text.push_str(&resolved);
            }
            Event::CData(c) => content.text.push_str(&c.xml10_content()),
            Event::Start(e) => {
                depth += 1;
                content.children.push(name(&e));
            }
            Event::Empty(e) => content.children.push(name(&e)),
            Event::End(_) if depth == 0 => return Ok(content),
            Event::End(_) => depth -= 1,
            Event::Eof => return Err(error(reader, lines, "the file ends inside an element")),
            _ => {}
        }
    }
}

/// Skips the element just opened, up to its end.
pub fn skip(reader: &mut Reader<&[u8]>, lines: &mut Lines<'_>) -> Result<(), SyntaxError> {
    content(reader, lines).map(|_| ())
}

pub fn name(e: &BytesStart<'_>) -> String {
    e.name().as_ref().to_owned()
}
