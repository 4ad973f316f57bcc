//! Android's inline markup in a `<string>` (SPEC §12.1, `android=markup`): `<b>`, `<i>`,
//! `<font color="…">`, `<annotation …>` are style spans to aapt2, `<xliff:g>` marks a part
//! not to translate. A sheet that says `android=markup` holds them as tags in its texts,
//! around text as aapt2 compiles it, where a `<` that is text is `&lt;` (so an app's
//! `&lt;b&gt;` for `Html.fromHtml` stays text: `escape`, `unescape`); this reads an
//! element's content into that form, and tells the tags of a sheet's text apart for the
//! writer.
//!
//! aapt2's rules (ResourceParser's `FlattenXmlSubtree`, seen in Debian's aapt2 2.19): a
//! string with a style span is not trimmed, and every span's start or end starts its
//! white space and quote state afresh (`a <b> b</b>` keeps both spaces); a string without
//! one (only `<xliff:g>`) is trimmed at both ends and read as one text.

use std::borrow::Cow;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::formats::reading::SyntaxError;
use crate::formats::shared::xml::{self, Lines};

/// The namespace of `<xliff:g>`, declared where generate writes one.
pub(crate) const XLIFF_NAMESPACE: &str = "urn:oasis:names:tc:xliff:document:1.2";

/// One piece of an element's content as the XML gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    /// Text, references resolved, CDATA as its text.
    Text(String),
    /// A start tag with its attributes (namespace declarations left out); `empty`: `<br/>`.
    Open {
        name: String,
        attrs: Vec<(String, String)>,
        empty: bool,
    },
    Close(String),
}

/// The content of the element just opened, up to its end.
pub(crate) fn content(
    reader: &mut Reader<&[u8]>,
    lines: &mut Lines<'_>,
) -> Result<Vec<Node>, SyntaxError> {
    fn text(nodes: &mut Vec<Node>, t: &str) {
        match nodes.last_mut() {
            Some(Node::Text(last)) => last.push_str(t),
            _ => nodes.push(Node::Text(t.to_owned())),
        }
    }
    let mut nodes = Vec::new();
    let mut depth = 0usize;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| xml::xml_error(reader, lines, &e))?;
        match event {
            Event::Text(t) => text(&mut nodes, &t.xml10_content()),
            Event::GeneralRef(r) => {
                let resolved = xml::resolve_ref(&r).map_err(|m| xml::error(reader, lines, m))?;
                text(&mut nodes, &resolved);
            }
            Event::CData(c) => text(&mut nodes, &c.xml10_content()),
            Event::Start(e) => {
                depth += 1;
                nodes.push(open(&e, false).map_err(|m| xml::error(reader, lines, m))?);
            }
            Event::Empty(e) => {
                nodes.push(open(&e, true).map_err(|m| xml::error(reader, lines, m))?);
            }
            Event::End(_) if depth == 0 => return Ok(nodes),
            Event::End(e) => {
                depth -= 1;
                nodes.push(Node::Close(e.name().as_ref().to_owned()));
            }
            Event::Eof => return Err(xml::error(reader, lines, "the file ends inside an element")),
            _ => {}
        }
    }
}

fn open(e: &BytesStart<'_>, empty: bool) -> Result<Node, String> {
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|err| format!("a malformed attribute: {err}"))?;
        let key = a.key.as_ref();
        if key == "xmlns" || key.starts_with("xmlns:") {
            continue;
        }
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|err| format!("the attribute {key}: {err}"))?;
        attrs.push((key.to_owned(), value.into_owned()));
    }
    Ok(Node::Open {
        name: xml::name(e),
        attrs,
        empty,
    })
}

/// The names of the elements in `nodes`, each once, in order.
pub(crate) fn element_names(nodes: &[Node]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for node in nodes {
        if let Node::Open { name, .. } = node
            && !names.contains(&name.as_str())
        {
            names.push(name);
        }
    }
    names
}

/// The text of `nodes` without their tags, as the XML gives it (before aapt2's escapes).
pub(crate) fn raw_text(nodes: &[Node]) -> String {
    let mut raw = String::new();
    for node in nodes {
        if let Node::Text(t) = node {
            raw.push_str(t);
        }
    }
    raw
}

/// A style span to aapt2: an element without a namespace prefix.
fn is_span(name: &str) -> bool {
    !name.contains(':')
}

fn is_xliff(name: &str) -> bool {
    name.starts_with("xliff:")
}

/// Whether `nodes` hold a style span (aapt2 then makes a styled string, not trimmed).
pub(crate) fn styled(nodes: &[Node]) -> bool {
    nodes
        .iter()
        .any(|n| matches!(n, Node::Open { name, .. } if is_span(name)))
}

/// Why markup cannot be carried as tags (the text is then kept without them), or a text
/// aapt2 itself refuses.
pub(crate) enum Refused {
    Markup(String),
    Text(String),
}

/// The sheet's text for `nodes` (which hold at least one element): aapt2's text with the
/// tags where the elements are. `compile` is aapt2's reading of a text run, with its white
/// space and quote state (`Run`).
pub(crate) fn tagged(nodes: &[Node]) -> Result<String, Refused> {
    if let Some(name) = (nodes.iter()).find_map(|n| match n {
        Node::Open { name, .. } if !is_span(name) && !is_xliff(name) => Some(name),
        _ => None,
    }) {
        return Err(Refused::Markup(format!(
            "<{name}> is of a namespace aapt2 leaves out"
        )));
    }
    let styled = styled(nodes);
    let first = nodes.iter().position(|n| matches!(n, Node::Text(_)));
    let last = nodes.iter().rposition(|n| matches!(n, Node::Text(_)));
    let mut run = Run::default();
    let mut text = String::new();
    // what the sheet's text must read back as: its texts and tags in order
    let mut expected: Vec<Node> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        match node {
            Node::Text(raw) => {
                let mut raw = raw.as_str();
                if !styled && Some(i) == first {
                    raw = raw.trim_start_matches(aapt_space);
                }
                if !styled && Some(i) == last {
                    raw = raw.trim_end_matches(aapt_space);
                }
                let mut piece = String::new();
                run.append(raw, &mut piece).map_err(Refused::Text)?;
                let piece = escape(&piece);
                if !piece.is_empty() {
                    text.push_str(&piece);
                    match expected.last_mut() {
                        Some(Node::Text(t)) => t.push_str(&piece),
                        _ => expected.push(Node::Text(piece.into_owned())),
                    }
                }
            }
            Node::Open { name, attrs, empty } => {
                if is_span(name) {
                    run = Run::default();
                }
                push_tag(&mut text, name, attrs, *empty).map_err(Refused::Markup)?;
                expected.push(Node::Open {
                    name: name.clone(),
                    attrs: attrs.clone(),
                    empty: *empty,
                });
            }
            Node::Close(name) => {
                if is_span(name) {
                    run = Run::default();
                }
                text.push_str("</");
                text.push_str(name);
                text.push('>');
                expected.push(Node::Close(name.clone()));
            }
        }
    }
    let again: Vec<Node> = tokens(&text).iter().map(Node::from).collect();
    if again != expected {
        return Err(Refused::Markup(
            "its text holds what would read as a tag".to_owned(),
        ));
    }
    Ok(text)
}

/// A text as a sheet of Android markup holds it: a `<` that is text is `&lt;` (and `>`
/// `&gt;` in a text holding one, so `&lt;b&gt;` reads as the app wrote it), and a `&`
/// that would read as one of those is `&amp;`; `unescape` undoes it.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    let angled = text.contains('<');
    let entity = |rest: &str| ["lt;", "gt;", "amp;"].iter().any(|e| rest.starts_with(e));
    let needs = angled
        || (text.contains('&') && text.match_indices('&').any(|(i, _)| entity(&text[i + 1..])));
    if !needs {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.char_indices() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' if angled => out.push_str("&gt;"),
            '&' if entity(&text[i + 1..]) => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The text a sheet of Android markup means by `text` (outside tags): `&lt;`, `&gt;` and
/// `&amp;` are `<`, `>` and `&`; any other `&` is itself.
pub(crate) fn unescape(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = [("&lt;", '<'), ("&gt;", '>'), ("&amp;", '&')]
            .into_iter()
            .find(|(name, _)| rest.starts_with(name));
        match entity {
            Some((name, c)) => {
                out.push(c);
                rest = &rest[name.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// `<name a="v">` in the sheet's text; `Err` when a value holds both kinds of quote, or a
/// `<` (which would not read back as one tag).
fn push_tag(
    text: &mut String,
    name: &str,
    attrs: &[(String, String)],
    empty: bool,
) -> Result<(), String> {
    text.push('<');
    text.push_str(name);
    for (key, value) in attrs {
        let quote = match (value.contains('"'), value.contains('\'')) {
            _ if value.contains('<') => None,
            (false, _) => Some('"'),
            (true, false) => Some('\''),
            (true, true) => None,
        };
        let Some(quote) = quote else {
            return Err(format!(
                "the attribute {key} of <{name}> holds what a tag in a text cannot"
            ));
        };
        text.push(' ');
        text.push_str(key);
        text.push('=');
        text.push(quote);
        text.push_str(value);
        text.push(quote);
    }
    text.push_str(if empty { "/>" } else { ">" });
    Ok(())
}

pub(crate) fn aapt_space(c: char) -> bool {
    // C isspace() in the C locale
    matches!(c, ' ' | '\t' | '\n' | '\u{B}' | '\u{C}' | '\r')
}

/// aapt2's `StringBuilder` over the raw text of a run: quotes keep white space, runs of
/// white space outside them become one space, backslash escapes are undone. Its state
/// goes on over several texts (a string without spans, `<xliff:g>` inside); a span's start
/// or end starts a new one.
#[derive(Debug, Default)]
pub(crate) struct Run {
    quote: bool,
    last_was_space: bool,
}

impl Run {
    /// A `\uXXXX` surrogate without its other half is refused (aapt and aapt2 drop it
    /// silently).
    pub(crate) fn append(&mut self, raw: &str, out: &mut String) -> Result<(), String> {
        use crate::formats::shared::utf16;
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if !self.quote && aapt_space(c) {
                if !self.last_was_space {
                    out.push(' ');
                    self.last_was_space = true;
                }
                continue;
            }
            self.last_was_space = false;
            match c {
                '\\' => match chars.next() {
                    Some('t') => out.push('\t'),
                    Some('n') => out.push('\n'),
                    Some('u') => match hex_unit(chars.as_str()) {
                        Some(unit) => {
                            chars.nth(3);
                            // a character past U+FFFF comes as two escapes, its surrogate
                            // pair (joined, as aapt joins them)
                            let low = chars.as_str().strip_prefix("\\u").and_then(hex_unit);
                            match low.and_then(|low| utf16::pair(unit, low)) {
                                Some(c) => {
                                    out.push(c);
                                    chars.nth(5);
                                }
                                None => out.push(utf16::single(unit, "\\u")?),
                            }
                        }
                        None => out.push('u'),
                    },
                    Some(other) => out.push(other),
                    None => {}
                },
                '"' => self.quote = !self.quote,
                c => out.push(c),
            }
        }
        Ok(())
    }
}

/// The UTF-16 unit of the four hex digits `text` starts with.
fn hex_unit(text: &str) -> Option<u16> {
    let hex = text.get(..4)?;
    hex.bytes()
        .all(|b| b.is_ascii_hexdigit())
        .then(|| u16::from_str_radix(hex, 16).ok())
        .flatten()
}

// ------------------------------------------------------------------ a sheet's text

/// A piece of a sheet's text: text, or something shaped as a tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token<'t> {
    Text(&'t str),
    Open {
        name: &'t str,
        attrs: Vec<(&'t str, &'t str)>,
        empty: bool,
    },
    Close(&'t str),
}

impl Token<'_> {
    fn name(&self) -> Option<&str> {
        match self {
            Token::Text(_) => None,
            Token::Open { name, .. } | Token::Close(name) => Some(name),
        }
    }
}

impl From<&Token<'_>> for Node {
    /// The node a token of a sheet's text stands for (what `tagged` compares with).
    fn from(token: &Token<'_>) -> Node {
        match token {
            Token::Text(t) => Node::Text((*t).to_owned()),
            Token::Open { name, attrs, empty } => Node::Open {
                name: (*name).to_owned(),
                attrs: (attrs.iter())
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
                empty: *empty,
            },
            Token::Close(name) => Node::Close((*name).to_owned()),
        }
    }
}

/// `text` cut into text and tags: `<name>`, `<name attr="value" …>`, `<name/>`,
/// `</name>` (names of letters, digits, `_`, `.`, `-`, one `:` prefix; values in `"` or
/// `'` without `<`). Anything else, a lone `<` included, is text.
pub(crate) fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut text_start = 0;
    let mut at = 0;
    while let Some(offset) = memchr::memchr(b'<', &text.as_bytes()[at..]) {
        let lt = at + offset;
        match tag_at(text, lt) {
            Some((token, end)) => {
                if lt > text_start {
                    out.push(Token::Text(&text[text_start..lt]));
                }
                out.push(token);
                at = end;
                text_start = end;
            }
            None => at = lt + 1,
        }
    }
    if text_start < text.len() {
        out.push(Token::Text(&text[text_start..]));
    }
    out
}

/// The tag starting at `lt` (a `<`) and the byte after it.
fn tag_at(text: &str, lt: usize) -> Option<(Token<'_>, usize)> {
    let b = text.as_bytes();
    let space = |i: usize| {
        (b[i..].iter())
            .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
            .count()
    };
    let mut i = lt + 1;
    let close = b.get(i) == Some(&b'/');
    if close {
        i += 1;
    }
    let end = name_end(b, i)?;
    let name = &text[i..end];
    i = end;
    if close {
        i += space(i);
        return (b.get(i) == Some(&b'>')).then_some((Token::Close(name), i + 1));
    }
    let mut attrs = Vec::new();
    loop {
        let gap = space(i);
        i += gap;
        match *b.get(i)? {
            b'>' => {
                let open = Token::Open {
                    name,
                    attrs,
                    empty: false,
                };
                return Some((open, i + 1));
            }
            b'/' => {
                let open = Token::Open {
                    name,
                    attrs,
                    empty: true,
                };
                return (b.get(i + 1) == Some(&b'>')).then_some((open, i + 2));
            }
            _ if gap > 0 => {
                let key_end = name_end(b, i)?;
                let key = &text[i..key_end];
                i = key_end + space(key_end);
                if b.get(i) != Some(&b'=') {
                    return None;
                }
                i += 1;
                i += space(i);
                let quote = *b.get(i)?;
                if quote != b'"' && quote != b'\'' {
                    return None;
                }
                let close = i + 1 + memchr::memchr(quote, &b[i + 1..])?;
                let value = &text[i + 1..close];
                if value.contains('<') {
                    return None;
                }
                attrs.push((key, value));
                i = close + 1;
            }
            _ => return None,
        }
    }
}

/// The end of the XML name starting at `i` (ASCII: a letter or `_`, then letters, digits,
/// `_`, `.`, `-`, and at most one `:` followed by a letter or `_`).
fn name_end(b: &[u8], i: usize) -> Option<usize> {
    let start = |c: &u8| c.is_ascii_alphabetic() || *c == b'_';
    let rest = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
    if !b.get(i).is_some_and(start) {
        return None;
    }
    let mut end = i + 1 + b[i + 1..].iter().take_while(|c| rest(c)).count();
    if b.get(end) == Some(&b':') && b.get(end + 1).is_some_and(start) {
        end += 2 + b[end + 2..].iter().take_while(|c| rest(c)).count();
    }
    Some(end)
}

/// The tokens of a sheet's text that is Android markup: at least one tag, every tag
/// closed in order, each a style span (no prefix) or `xliff:`; `None`: the text is text.
pub(crate) fn markup(text: &str) -> Option<Vec<Token<'_>>> {
    if !text.contains('<') {
        return None;
    }
    let tokens = tokens(text);
    let mut open: Vec<&str> = Vec::new();
    let mut tags = 0;
    for token in &tokens {
        let Some(name) = token.name() else { continue };
        if !is_span(name) && !is_xliff(name) {
            return None;
        }
        tags += 1;
        match token {
            Token::Open { empty: false, .. } => open.push(name),
            Token::Close(_) if open.pop() != Some(name) => return None,
            _ => {}
        }
    }
    (tags > 0 && open.is_empty()).then_some(tokens)
}

/// Whether `tokens` hold an `<xliff:…>` tag (whose namespace the file must declare).
pub(crate) fn uses_xliff(tokens: &[Token<'_>]) -> bool {
    tokens
        .iter()
        .any(|t| matches!(t, Token::Open { name, .. } if is_xliff(name)))
}

/// The text of `tokens` without the tags (what aapt2 makes of it).
pub(crate) fn plain(tokens: &[Token<'_>]) -> String {
    let mut out = String::new();
    for token in tokens {
        if let Token::Text(t) = token {
            out.push_str(&unescape(t));
        }
    }
    out
}

/// The element content for `tokens` (a text that is markup, `markup`): tags as tags,
/// texts escaped by `push_text` (its `quoted`: in `"…"`, where aapt2 would collapse or
/// trim a space). `Err` names a character Android cannot carry.
pub(crate) fn push(
    out: &mut Vec<u8>,
    tokens: &[Token<'_>],
    push_text: fn(&mut Vec<u8>, &str, bool) -> Result<(), char>,
) -> Result<(), char> {
    let styled = (tokens.iter()).any(|t| t.name().is_some_and(is_span));
    let is_boundary = |t: &Token<'_>| t.name().is_some_and(is_span);
    let mut at = 0;
    while at < tokens.len() {
        // a run: the tokens up to the next span tag, which aapt2 reads with one state
        let end = (at..tokens.len())
            .find(|&i| is_boundary(&tokens[i]))
            .unwrap_or(tokens.len());
        let run = plain(&tokens[at..end]);
        let risky = run.contains("  ") || (!styled && (run.starts_with(' ') || run.ends_with(' ')));
        for token in &tokens[at..end] {
            match token {
                Token::Text(t) => {
                    let t = unescape(t);
                    push_text(out, &t, risky && t.contains(' '))?;
                }
                tag => push_tag_xml(out, tag)?,
            }
        }
        if let Some(tag) = tokens.get(end) {
            push_tag_xml(out, tag)?;
        }
        at = end + 1;
    }
    Ok(())
}

fn push_tag_xml(out: &mut Vec<u8>, token: &Token<'_>) -> Result<(), char> {
    use crate::formats::shared::escape::push_xml_str;
    match token {
        Token::Text(_) => {}
        Token::Open { name, attrs, empty } => {
            out.push(b'<');
            out.extend_from_slice(name.as_bytes());
            for (key, value) in attrs {
                out.push(b' ');
                out.extend_from_slice(key.as_bytes());
                out.extend_from_slice(b"=\"");
                push_xml_str(out, value, true)?;
                out.push(b'"');
            }
            out.extend_from_slice(if *empty { b"/>" } else { b">" });
        }
        Token::Close(name) => {
            out.extend_from_slice(b"</");
            out.extend_from_slice(name.as_bytes());
            out.push(b'>');
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(xml: &str) -> Vec<Node> {
        let whole = format!("<string>{xml}</string>");
        let mut reader = xml::reader(&whole);
        let mut lines = Lines::new(&whole);
        let _ = reader.read_event().unwrap();
        content(&mut reader, &mut lines).unwrap()
    }

    fn read(xml: &str) -> Result<String, String> {
        tagged(&nodes(xml)).map_err(|e| match e {
            Refused::Markup(m) | Refused::Text(m) => m,
        })
    }

    /// Each as Debian's aapt2 2.19 reads it (`aapt2 dump resources`: the text and spans).
    #[test]
    fn markup_is_read_as_aapt2_compiles_it_with_its_tags() {
        assert_eq!(
            read("Protections are <b>ON</b> for this site").unwrap(),
            "Protections are <b>ON</b> for this site"
        );
        assert_eq!(
            read("Tap <font color='#678fff'>Always</font>.").unwrap(),
            "Tap <font color=\"#678fff\">Always</font>."
        );
        // a styled string is not trimmed; runs collapse within a span's bounds only
        assert_eq!(read("  a <b> x </b>  b  ").unwrap(), " a <b> x </b> b ");
        // a span's start or end ends a quote
        assert_eq!(
            read(r#"It\'s <i>"quoted  </i>  here""#).unwrap(),
            "It's <i>quoted  </i> here"
        );
        // <xliff:g> alone is no span: trimmed and read as one text
        assert_eq!(
            read("  a <xliff:g id=\"n\" example=\"3\">  %1$d</xliff:g>  ").unwrap(),
            "a <xliff:g id=\"n\" example=\"3\">%1$d</xliff:g>"
        );
        assert_eq!(
            read(r#"<annotation type="a" key='say "hi"'>x</annotation> &amp; 5"#).unwrap(),
            r#"<annotation type="a" key='say "hi"'>x</annotation> & 5"#
        );
        assert_eq!(read("x<br/>y").unwrap(), "x<br/>y");
        assert_eq!(
            read("a <b>b <i>c</i></b> d").unwrap(),
            "a <b>b <i>c</i></b> d"
        );
    }

    /// A `<` that is text (`&lt;b&gt;` for `Html.fromHtml`, CDATA) is `&lt;` in the sheet,
    /// and a `&` that would read as one of those `&amp;`.
    #[test]
    fn text_that_looks_like_a_tag_is_escaped_and_another_namespace_refused() {
        assert_eq!(
            read("&lt;i&gt;x&lt;/i&gt; <b>x</b>").unwrap(),
            "&lt;i&gt;x&lt;/i&gt; <b>x</b>"
        );
        assert_eq!(
            read("a<![CDATA[<br/>]]> <b>x</b>").unwrap(),
            "a&lt;br/&gt; <b>x</b>"
        );
        assert_eq!(
            read("1 &lt; 2 <b>&amp;lt;</b>").unwrap(),
            "1 &lt; 2 <b>&amp;lt;</b>"
        );
        assert_eq!(
            read("a > b &amp; c <b>x</b>").unwrap(),
            "a > b & c <b>x</b>"
        );
        assert!(read("a <foo:bar xmlns:foo=\"urn:x\">q</foo:bar>").is_err());
        assert!(read(r#"<b title="&quot;&apos;">x</b>"#).is_err());
    }

    #[test]
    fn unescape_undoes_escape() {
        for text in [
            "plain",
            "a < b",
            "<b>x</b> & y",
            "&lt; &amp;gt; &x; &",
            "a > b",
            "&&amp;lt;",
        ] {
            assert_eq!(unescape(&escape(text)), text, "{text}");
        }
        assert_eq!(escape("<b>x</b> & y"), "&lt;b&gt;x&lt;/b&gt; & y");
        assert_eq!(escape("a > b & c"), "a > b & c");
        assert_eq!(escape("&lt;"), "&amp;lt;");
        assert_eq!(unescape("a &gt; b &x &amp;"), "a > b &x &");
    }

    #[test]
    fn a_sheets_text_is_markup_when_its_tags_balance() {
        assert!(markup("Protections are <b>ON</b>").is_some());
        assert!(markup("x<br/>y").is_some());
        assert!(markup("<xliff:g id=\"n\">%1$d</xliff:g> files").is_some());
        for text in [
            "plain",
            "Hello, {name} & <tagged>",
            "<b>unclosed",
            "<b>x</i>",
            "a < b > c",
            "<foo:bar>x</foo:bar>",
            "<b title=\"x>y</b>",
        ] {
            assert!(markup(text).is_none(), "{text}");
        }
        let tokens = markup("a <font color=\"#f00\" face='x'>b</font>").unwrap();
        assert_eq!(
            tokens,
            [
                Token::Text("a "),
                Token::Open {
                    name: "font",
                    attrs: vec![("color", "#f00"), ("face", "x")],
                    empty: false
                },
                Token::Text("b"),
                Token::Close("font"),
            ]
        );
    }
}
