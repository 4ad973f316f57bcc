//! The children of an XML file's root element as byte spans (android `<resources>`, resx
//! `<root>`, stringsdict `<plist>`), with their names and their own children's spans, and
//! any file's events with theirs (xlf's units, deeper down): what patching an existing
//! file in place (`formats::keeping`) cuts and splices, every other byte left as it is.

use std::ops::Range;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::formats::shared::spans::KeepError;

/// One element under the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Element {
    /// Its tag, as written.
    pub tag: String,
    /// Its `name` attribute, references resolved.
    pub name: Option<String>,
    /// Whether it has a `type` or `mimetype` attribute (resx: not a text).
    pub typed: bool,
    /// From `<` of the start tag to `>` of the end tag.
    pub whole: Range<usize>,
    /// Between the start and the end tag; `None` for an empty element (`<x/>`).
    pub inner: Option<Range<usize>>,
    /// Its own child elements.
    pub children: Vec<Child>,
}

/// An element of an element under the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Child {
    pub tag: String,
    pub whole: Range<usize>,
    /// `None`: an empty element (`<x/>`).
    pub inner: Option<Range<usize>>,
}

/// Every event of `bytes`, an XML file (perhaps after a UTF-8 byte-order mark), to `each`
/// with its byte span, the end of the file last; `each` stops the walk with an error.
pub(crate) fn walk(
    bytes: &[u8],
    mut each: impl FnMut(Event<'_>, Range<usize>) -> Result<(), KeepError>,
) -> Result<(), KeepError> {
    let bom = crate::formats::shared::spans::after_bom(bytes);
    let text = std::str::from_utf8(&bytes[bom..])
        .map_err(|e| KeepError::new(bom + e.valid_up_to(), "not UTF-8"))?;
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    loop {
        let start = bom + usize::try_from(reader.buffer_position()).unwrap_or(0);
        let event = reader.read_event().map_err(|e| {
            let at = usize::try_from(reader.error_position()).unwrap_or(0);
            KeepError::new(bom + at, format!("not well-formed XML: {e}"))
        })?;
        let end = bom + usize::try_from(reader.buffer_position()).unwrap_or(0);
        let eof = matches!(event, Event::Eof);
        each(event, start..end)?;
        if eof {
            return Ok(());
        }
    }
}

/// The root's children, and the end of the root's start tag (where the first child goes
/// when it has none). `bytes` may start with a UTF-8 byte-order mark.
pub(crate) fn children(bytes: &[u8]) -> Result<(Vec<Element>, usize), KeepError> {
    let mut depth = 0usize;
    let mut root_open = None;
    let mut elements = Vec::new();
    let mut open: Option<Element> = None;
    let mut child: Option<(String, usize, usize)> = None;
    walk(bytes, |event, Range { start, end }| {
        match event {
            Event::Start(e) => {
                depth += 1;
                match depth {
                    1 => root_open = Some(end),
                    2 => open = Some(element(&e, start..end, Some(end..end))?),
                    3 => child = Some((tag(&e), start, end)),
                    _ => {}
                }
            }
            Event::Empty(e) => match depth {
                0 => return Err(KeepError::new(start, "the root element is empty")),
                1 => elements.push(element(&e, start..end, None)?),
                2 => {
                    if let Some(el) = open.as_mut() {
                        el.children.push(Child {
                            tag: tag(&e),
                            whole: start..end,
                            inner: None,
                        });
                    }
                }
                _ => {}
            },
            Event::End(_) => {
                match depth {
                    2 => {
                        if let Some(mut el) = open.take() {
                            el.whole.end = end;
                            if let Some(inner) = el.inner.as_mut() {
                                inner.end = start;
                            }
                            elements.push(el);
                        }
                    }
                    3 => {
                        if let (Some(el), Some((tag, from, inner))) = (open.as_mut(), child.take())
                        {
                            el.children.push(Child {
                                tag,
                                whole: from..end,
                                inner: Some(inner..start),
                            });
                        }
                    }
                    _ => {}
                }
                depth = depth.saturating_sub(1);
            }
            Event::Eof if depth > 0 => {
                return Err(KeepError::new(
                    start,
                    "not well-formed XML: the file ends inside an element",
                ));
            }
            _ => {}
        }
        Ok(())
    })?;
    let root_open = root_open.ok_or_else(|| KeepError::new(0, "no root element"))?;
    Ok((elements, root_open))
}

fn tag(e: &BytesStart<'_>) -> String {
    e.name().into_inner().to_owned()
}

fn element(
    e: &BytesStart<'_>,
    whole: Range<usize>,
    inner: Option<Range<usize>>,
) -> Result<Element, KeepError> {
    let attr =
        |name: &str| super::xml::attr(e, name).map_err(|what| KeepError::new(whole.start, what));
    Ok(Element {
        tag: tag(e),
        name: attr("name")?,
        typed: attr("type")?.is_some() || attr("mimetype")?.is_some(),
        whole: whole.clone(),
        inner,
        children: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roots_children_with_their_spans() {
        let xml = "\u{feff}<?xml version=\"1.0\"?>\n<r>\n <!-- c -->\n <a name=\"x&amp;y\">t<b/></a>\n <data name=\"d\" type=\"T\"><value>v</value></data>\n <e/>\n</r>\n";
        let bytes = xml.as_bytes();
        let (els, open) = children(bytes).unwrap();
        assert_eq!(&xml[open - 3..open], "<r>");
        assert_eq!(els.len(), 3);
        assert_eq!(els[0].name.as_deref(), Some("x&y"));
        assert_eq!(&xml[els[0].whole.clone()], "<a name=\"x&amp;y\">t<b/></a>");
        assert_eq!(&xml[els[0].inner.clone().unwrap()], "t<b/>");
        assert!(els[1].typed);
        let value = &els[1].children[0];
        assert_eq!(value.tag, "value");
        assert_eq!(&xml[value.inner.clone().unwrap()], "v");
        assert_eq!(&xml[value.whole.clone()], "<value>v</value>");
        assert_eq!((els[2].tag.as_str(), els[2].inner.clone()), ("e", None));
    }

    #[test]
    fn a_file_that_is_not_xml_is_refused_with_where() {
        let e = children(b"<r><a></b></r>").unwrap_err();
        assert!(e.what.contains("not well-formed XML"), "{e}");
    }
}
