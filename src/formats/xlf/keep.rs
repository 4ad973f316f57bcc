//! Patching an existing XLIFF 1.2 file (SPEC §12.1): the `<target>` of each unit the sheet
//! has gets the new text (a unit without one gets one after its `<source>`); the unit's
//! attributes (`approved`), its `<source>`, `<note>`s and `<context-group>`s,
//! `translate="no"` units and every unit the sheet lacks stay as they are. A target whose
//! text the sheet changes says so: its `state` becomes `translated` (`restated`).

use std::ops::Range;

use quick_xml::events::{BytesStart, Event};

use crate::formats::Format;
use crate::formats::keeping::{self, Keep, KeepError, Piece, Split, line_start, read_the_same};
use crate::formats::shared::{xml, xml_spans};

/// What a unit goes between to be read alone.
const OPEN: &[u8] = b"<xliff version=\"1.2\"><file><body>";
const CLOSE: &[u8] = b"</body></file></xliff>";

/// How xlf files are patched.
pub(crate) const KEEP: Keep = Keep::Pieces {
    format: Format::Xlf,
    split,
    swap,
    wrap: (OPEN, CLOSE),
    siblings: None,
};

/// Before the key of a plural `<group>`'s piece: a text and a plural of one key are two
/// entries, as they are two elements.
const PLURAL: &str = "plural:";

/// A `<trans-unit>`, or a plural `<group>` of them, as found.
#[derive(Debug, Default)]
struct Found {
    id: String,
    resname: Option<String>,
    whole: Range<usize>,
    /// The `<target>`'s content; the `<target/>` element; with no `<target>`, where one
    /// goes (after `</source>`); a group's content.
    body: Range<usize>,
    fixed: bool,
    /// A plural group's forms.
    forms: Vec<Found>,
}

impl Found {
    fn piece(self, chunk: Range<usize>) -> Piece {
        let name = match self.forms.first() {
            Some(form) => {
                let key = super::read::key_of(&self.id, form.resname.as_deref());
                format!("{PLURAL}{}", key.display())
            }
            None => super::read::key_of(&self.id, self.resname.as_deref()).display(),
        };
        Piece {
            name: Some(name),
            chunk,
            whole: self.whole,
            body: self.body,
            fixed: self.fixed,
        }
    }

    /// Its id's `[category]` (a plural form's).
    fn category(&self) -> Option<&str> {
        let (_, category) = self.id.strip_suffix(']')?.rsplit_once('[')?;
        Some(category)
    }
}

/// What a walk over the file finds.
#[derive(Default)]
struct Scan {
    depth: usize,
    body_depth: Option<usize>,
    files: usize,
    found: Vec<Found>,
    /// The plural group open, at its depth.
    group: Option<(Found, usize)>,
    /// The unit open, at its depth, and whether it has a `<target>`.
    unit: Option<(Found, usize, bool)>,
    /// Where the content of the unit's open `<target>` starts.
    target_at: Option<usize>,
    body_open: Option<usize>,
    last_in_body: Option<usize>,
}

/// The units of `bytes` in order (a plural group's inside its piece).
fn scan(bytes: &[u8]) -> Result<Scan, KeepError> {
    let mut scan = Scan::default();
    xml_spans::walk(bytes, |event, span| match event {
        Event::Start(e) => scan.start(&e, span, false),
        Event::Empty(e) => scan.start(&e, span, true),
        Event::End(e) => {
            scan.end(e.local_name().as_ref(), span);
            Ok(())
        }
        _ => Ok(()),
    })?;
    Ok(scan)
}

impl Scan {
    fn start(
        &mut self,
        e: &BytesStart<'_>,
        span: Range<usize>,
        empty: bool,
    ) -> Result<(), KeepError> {
        let attr = |name: &str| xml::attr(e, name).map_err(|what| KeepError::new(span.start, what));
        let depth = self.depth + 1;
        let in_unit = self.unit.as_ref().is_some_and(|(_, at, _)| depth == at + 1);
        match e.local_name().as_ref() {
            "xliff" if attr("version")?.is_some_and(|v| v.starts_with('2')) => {
                return Err(KeepError::new(
                    span.start,
                    "XLIFF 2 is not patched (depot writes XLIFF 1.2)",
                ));
            }
            "file" => {
                self.files += 1;
                if self.files > 1 {
                    return Err(KeepError::new(
                        span.start,
                        "a second <file>: depot patches a file of one <file>, one locale",
                    ));
                }
            }
            "body" if !empty => {
                self.body_open = Some(span.end);
                self.body_depth = Some(depth);
            }
            "group"
                if !empty
                    && self.unit.is_none()
                    && self.group.is_none()
                    && attr("restype")?.as_deref() == Some("x-gettext-plurals") =>
            {
                let group = Found {
                    id: attr("id")?.unwrap_or_default(),
                    whole: span.clone(),
                    body: span.end..span.end,
                    ..Found::default()
                };
                self.group = Some((group, depth));
            }
            "trans-unit" if self.unit.is_none() => {
                let unit = Found {
                    id: attr("id")?.unwrap_or_default(),
                    resname: attr("resname")?,
                    whole: span.clone(),
                    body: span.clone(),
                    fixed: empty || attr("translate")?.as_deref() == Some("no"),
                    forms: Vec::new(),
                };
                match empty {
                    true => self.add(unit),
                    false => self.unit = Some((unit, depth, false)),
                }
            }
            "target" if in_unit => match (empty, self.unit.as_mut()) {
                (true, Some((unit, _, target))) => {
                    unit.body = span.clone();
                    *target = true;
                }
                _ => self.target_at = Some(span.end),
            },
            _ => {}
        }
        if empty {
            if self.body_depth == Some(depth - 1) {
                self.last_in_body = Some(span.end);
            }
        } else {
            self.depth = depth;
        }
        Ok(())
    }

    fn end(&mut self, name: &str, span: Range<usize>) {
        let depth = self.depth;
        let in_unit = self.unit.as_ref().is_some_and(|(_, at, _)| depth == at + 1);
        match name {
            "source" if in_unit => {
                if let Some((unit, _, false)) = self.unit.as_mut() {
                    unit.body = span.end..span.end;
                }
            }
            "target" if in_unit => {
                if let (Some((unit, _, target)), Some(at)) =
                    (self.unit.as_mut(), self.target_at.take())
                {
                    unit.body = at..span.start;
                    *target = true;
                }
            }
            "trans-unit" if self.unit.as_ref().is_some_and(|(_, at, _)| *at == depth) => {
                if let Some((mut unit, ..)) = self.unit.take() {
                    unit.whole.end = span.end;
                    // neither a source nor a target: nothing to swap
                    unit.fixed |= unit.body.start == unit.whole.start;
                    self.add(unit);
                }
            }
            "group" if self.group.as_ref().is_some_and(|(_, at)| *at == depth) => {
                if let Some((mut group, _)) = self.group.take() {
                    group.whole.end = span.end;
                    group.body.end = span.start;
                    self.found.push(group);
                }
            }
            "body" => self.body_depth = None,
            _ => {}
        }
        if self.body_depth.is_some_and(|at| at + 1 == depth) {
            self.last_in_body = Some(span.end);
        }
        self.depth = depth.saturating_sub(1);
    }

    fn add(&mut self, unit: Found) {
        match self.group.as_mut() {
            Some((group, _)) => group.forms.push(unit),
            None => self.found.push(unit),
        }
    }
}

fn split(bytes: &[u8]) -> Result<Split, KeepError> {
    let scan = scan(bytes)?;
    let body_open = (scan.body_open).ok_or_else(|| KeepError::new(0, "no <body> in its <file>"))?;
    let mut previous = body_open;
    let mut pieces = Vec::with_capacity(scan.found.len());
    for found in scan.found {
        let chunk = keeping::chunk_from(bytes, previous, &found.whole);
        previous = found.whole.end;
        pieces.push(found.piece(chunk));
    }
    Ok(Split {
        pieces,
        append_at: scan.last_in_body.unwrap_or(body_open),
        separator: b"\n",
    })
}

/// The fresh target in place of the app's (a plural group's, form by form).
fn swap(existing: &[u8], old: &Piece, fresh: &[u8], new: &Piece, out: &mut Vec<u8>) {
    if old.name.as_deref().is_some_and(|n| n.starts_with(PLURAL)) {
        forms(existing, old, fresh, new, out);
        return;
    }
    target(existing, old, fresh, &new.body, out);
}

/// The unit `old`'s target with the fresh `<target>` content at `content`: the app's bytes
/// where both read the same; in place of an empty `<target/>`; after `</source>` where the
/// unit has none, on a line of its own as the source is.
fn target(existing: &[u8], old: &Piece, fresh: &[u8], content: &Range<usize>, out: &mut Vec<u8>) {
    let body = &existing[old.body.clone()];
    let is = &fresh[content.clone()];
    if is_content(existing, old.body.start) {
        let same = body == is || read_the_same(Format::Xlf, &alone(body), &alone(is));
        if !same {
            restate_written(existing, old.body.start, out);
        }
        out.extend_from_slice(if same { body } else { is });
        return;
    }
    if body.starts_with(b"<") {
        // the app's empty `<target …/>`, filled: its start tag kept, restated
        let tag = restated(body);
        let Some(open) = tag.strip_suffix(b"/>") else {
            out.extend_from_slice(body);
            return;
        };
        let open = open.trim_ascii_end();
        out.extend_from_slice(open);
        out.push(b'>');
        out.extend_from_slice(is);
        out.extend_from_slice(b"</");
        out.extend_from_slice(&open[1..tag_name_end(open)]);
        out.push(b'>');
        return;
    }
    // the fresh `<target>…</target>` whole
    let open = fresh[..content.start]
        .iter()
        .rposition(|&b| b == b'<')
        .unwrap_or(content.start);
    let close = (fresh[content.end..].iter())
        .position(|&b| b == b'>')
        .map_or(content.end, |p| content.end + p + 1);
    if body.is_empty() {
        let line = line_start(existing, old.body.start);
        let blanks = (existing[line..].iter())
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        if line > old.whole.start && existing.get(line + blanks) == Some(&b'<') {
            let newline: &[u8] = match line.checked_sub(2).map(|at| existing[at]) {
                Some(b'\r') => b"\r\n",
                _ => b"\n",
            };
            out.extend_from_slice(newline);
            out.extend_from_slice(&existing[line..line + blanks]);
        }
    }
    out.extend_from_slice(&fresh[open..close]);
}

/// The app's `<target …>` start tag that ends at `at`, just written as the last bytes of
/// `out` (the pieces' patcher writes the app's bytes up to a target's content, then swaps
/// the content), restated for a text the sheet changed.
fn restate_written(existing: &[u8], at: usize, out: &mut Vec<u8>) {
    let Some(open) = existing[..at].iter().rposition(|&b| b == b'<') else {
        return;
    };
    let tag = &existing[open..at];
    if !out.ends_with(tag) {
        return;
    }
    if let std::borrow::Cow::Owned(restated) = restated(tag) {
        out.truncate(out.len() - tag.len());
        out.extend_from_slice(&restated);
    }
}

/// A `<target …>` start tag of the app's for a text the sheet changed. Its `state` (XLIFF
/// 1.2: the state of this translation) becomes `translated` ("the item has been
/// translated"), what Xcode exports for a translated string and the Translate Toolkit sets
/// on a target given a text: `final` or `signed-off` ("changes are reviewed and approved")
/// would claim a review that never saw the new text, `new` or `needs-translation` that
/// there is none yet. Its `state-qualifier` (how the old text came about: `mt-suggestion`,
/// `rejected-spelling`) is about the old text and goes. A tag without either stays as the
/// app wrote it (no state is added); every other attribute, and its quotes, stays.
fn restated(tag: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    const TRANSLATED: &[u8] = b"translated";
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    for attribute in attributes(tag) {
        let (keep, value): (Range<usize>, &[u8]) = match &tag[attribute.name.clone()] {
            b"state" if tag[attribute.value.clone()] != *TRANSLATED => {
                (attribute.value.clone(), TRANSLATED)
            }
            b"state-qualifier" => (attribute.spaced.clone(), b""),
            _ => continue,
        };
        let out = out.get_or_insert_with(|| Vec::with_capacity(tag.len() + TRANSLATED.len()));
        out.extend_from_slice(&tag[copied..keep.start]);
        out.extend_from_slice(value);
        copied = keep.end;
    }
    match out {
        Some(mut out) => {
            out.extend_from_slice(&tag[copied..]);
            std::borrow::Cow::Owned(out)
        }
        None => std::borrow::Cow::Borrowed(tag),
    }
}

/// Where an attribute of a start tag is.
struct Attribute {
    name: Range<usize>,
    /// Its value, inside the quotes.
    value: Range<usize>,
    /// The whole attribute with the white space before it.
    spaced: Range<usize>,
}

/// The attributes of the well-formed start tag `tag` (`<name a="v" b='w'>`, `/>` too), in
/// order. The tag was read as XML already: a value holds no quote of its own kind.
fn attributes(tag: &[u8]) -> Vec<Attribute> {
    let mut found = Vec::new();
    let mut at = tag_name_end(tag);
    loop {
        let spaced = at;
        while tag.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        let name = at;
        while tag
            .get(at)
            .is_some_and(|&b| !(b == b'=' || b.is_ascii_whitespace() || b == b'>' || b == b'/'))
        {
            at += 1;
        }
        let name = name..at;
        while tag
            .get(at)
            .is_some_and(|&b| b == b'=' || b.is_ascii_whitespace())
        {
            at += 1;
        }
        let Some(&quote @ (b'"' | b'\'')) = tag.get(at) else {
            return found;
        };
        let start = at + 1;
        let Some(length) = tag[start..].iter().position(|&b| b == quote) else {
            return found;
        };
        at = start + length + 1;
        found.push(Attribute {
            name,
            value: start..start + length,
            spaced: spaced..at,
        });
    }
}

/// Where the name of the tag `tag` (`<name …`) ends.
fn tag_name_end(tag: &[u8]) -> usize {
    (tag.iter().skip(1))
        .position(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'>' | b'/'))
        .map_or(tag.len(), |p| p + 1)
}

/// Whether `at` is just after a `<target …>` start tag (the target's content starts there).
fn is_content(bytes: &[u8], at: usize) -> bool {
    let Some(open) = bytes[..at].iter().rposition(|&b| b == b'<') else {
        return false;
    };
    let tag = &bytes[open + 1..at];
    let name_end = tag_name_end(&bytes[open..at]) - 1;
    let name = &tag[..name_end];
    let local = name.rsplit(|&b| b == b':').next().unwrap_or(name);
    bytes[..at].ends_with(b">")
        && !tag.starts_with(b"/")
        && !tag.ends_with(b"/>")
        && local == b"target"
}

/// A target's content as a file of its own, to be read.
fn alone(content: &[u8]) -> Vec<u8> {
    [
        OPEN,
        b"<trans-unit id=\"k\"><target>",
        content,
        b"</target></trans-unit>",
        CLOSE,
    ]
    .concat()
}

/// A plural group patched form by form (matched by their ids' `[category]`): the forms of
/// both get the fresh target, the fresh forms it lacks go after its last.
fn forms(existing: &[u8], old: &Piece, fresh: &[u8], new: &Piece, out: &mut Vec<u8>) {
    let forms_of = |bytes: &[u8], whole: &Range<usize>| {
        let group = scan(&bytes[whole.clone()]).ok()?.found.into_iter().next()?;
        let at = |r: Range<usize>| r.start + whole.start..r.end + whole.start;
        let forms: Vec<Found> = (group.forms.into_iter())
            .map(|f| Found {
                whole: at(f.whole),
                body: at(f.body),
                ..f
            })
            .collect();
        Some(forms)
    };
    let (Some(was), Some(is)) = (forms_of(existing, &old.whole), forms_of(fresh, &new.whole))
    else {
        out.extend_from_slice(&fresh[new.body.clone()]);
        return;
    };
    let mut cursor = old.body.start;
    for form in was.iter().filter(|f| !f.fixed) {
        let Some(fresh_form) = is.iter().find(|n| n.category() == form.category()) else {
            continue;
        };
        out.extend_from_slice(&existing[cursor..form.body.start]);
        let piece = Piece {
            name: None,
            chunk: form.whole.clone(),
            whole: form.whole.clone(),
            body: form.body.clone(),
            fixed: false,
        };
        target(existing, &piece, fresh, &fresh_form.body, out);
        cursor = form.body.end;
    }
    let last = was
        .last()
        .map_or(old.body.start, |f| f.whole.end)
        .max(cursor);
    out.extend_from_slice(&existing[cursor..last]);
    let mut previous = new.body.start;
    for form in &is {
        let chunk = keeping::chunk_from(fresh, previous, &form.whole);
        previous = form.whole.end;
        if !was.iter().any(|f| f.category() == form.category()) {
            out.extend_from_slice(&fresh[chunk]);
        }
    }
    out.extend_from_slice(&existing[last..old.body.end]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const APP: &str = r#"<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
  <file original="app" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="home.title" approved="yes">
        <source>Your basket</source>
        <target state="translated">Ihr Korb</target>
        <context-group purpose="location">
          <context context-type="sourcefile">src/app/home.html</context>
          <context context-type="linenumber">4</context>
        </context-group>
        <note priority="1" from="description">The home screen's title</note>
      </trans-unit>
      <trans-unit id="greeting">
        <source>Hello <x id="INTERPOLATION" equiv-text="{{ name }}"/></source>
        <target state="final">Hallo <x id="INTERPOLATION" equiv-text="{{ name }}"/></target>
      </trans-unit>
      <trans-unit id="untranslated">
        <source>Not yet</source>
      </trans-unit>
      <trans-unit id="legacy" translate="no">
        <source>Legacy</source>
        <target>Alt</target>
      </trans-unit>
      <trans-unit id="app.only">
        <source>Mine</source>
        <target>Meins</target>
      </trans-unit>
      <group id="files" restype="x-gettext-plurals">
        <trans-unit id="files[one]"><source>one file</source><target>eine Datei</target><note>kept</note></trans-unit>
        <trans-unit id="files[other]"><source>files</source><target>Dateien</target></trans-unit>
      </group>
    </body>
  </file>
</xliff>
"#;

    /// depot's rendering of `units` (id, source, target) and a plural `files` of `forms`.
    fn rendering(units: &[(&str, &str, &str)], forms: &[(&str, &str)]) -> String {
        let mut out = String::from(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xliff xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" version=\"1.2\">\n  <file original=\"translations\" datatype=\"plaintext\" source-language=\"en\" target-language=\"de\">\n    <body>\n",
        );
        for (id, source, target) in units {
            out.push_str(&format!("      <trans-unit id=\"{id}\" resname=\"{id}\" xml:space=\"preserve\">\n        <source>{source}</source>\n        <target>{target}</target>\n      </trans-unit>\n"));
        }
        if !forms.is_empty() {
            out.push_str("      <group id=\"files\" restype=\"x-gettext-plurals\">\n");
            for (category, target) in forms {
                out.push_str(&format!("        <trans-unit id=\"files[{category}]\" resname=\"files\" xml:space=\"preserve\">\n          <source>files</source>\n          <target>{target}</target>\n        </trans-unit>\n"));
            }
            out.push_str("      </group>\n");
        }
        out.push_str("    </body>\n  </file>\n</xliff>\n");
        out
    }

    fn patched(fresh: &str) -> (String, keeping::Counts) {
        let p = KEEP
            .patch(APP.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        (String::from_utf8(p.body).unwrap(), p.counts)
    }

    #[test]
    fn targets_that_read_the_same_stay_with_their_notes_states_and_inline_elements() {
        let fresh = rendering(
            &[
                ("home.title", "Your basket", "Ihr Korb"),
                ("greeting", "Hello ", "Hallo "),
            ],
            &[("one", "eine Datei"), ("other", "Dateien")],
        );
        let (body, counts) = patched(&fresh);
        assert_eq!(body, APP);
        assert_eq!(
            counts,
            keeping::Counts {
                changed: 0,
                added: 0,
                kept: 3,
                elsewhere: 0
            }
        );
    }

    #[test]
    fn only_targets_change_and_new_units_and_forms_are_added() {
        let fresh = rendering(
            &[
                ("home.title", "Your cart", "Ihr Warenkorb"),
                ("untranslated", "Not yet", "Noch nicht"),
                ("new", "New", "Neu &amp; frisch"),
            ],
            &[("other", "Dateien!"), ("many", "viele Dateien")],
        );
        let (body, counts) = patched(&fresh);
        let want = APP
            .replace(
                "<target state=\"translated\">Ihr Korb</target>",
                "<target state=\"translated\">Ihr Warenkorb</target>",
            )
            .replace(
                "<source>Not yet</source>\n",
                "<source>Not yet</source>\n        <target>Noch nicht</target>\n",
            )
            .replace(
                "<target>Dateien</target></trans-unit>\n",
                "<target>Dateien!</target></trans-unit>\n        <trans-unit id=\"files[many]\" resname=\"files\" xml:space=\"preserve\">\n          <source>files</source>\n          <target>viele Dateien</target>\n        </trans-unit>\n",
            )
            .replace(
                "      </group>\n",
                "      </group>\n      <trans-unit id=\"new\" resname=\"new\" xml:space=\"preserve\">\n        <source>New</source>\n        <target>Neu &amp; frisch</target>\n      </trans-unit>\n",
            );
        assert_eq!(body, want);
        assert_eq!(
            counts,
            keeping::Counts {
                changed: 3,
                added: 1,
                kept: 3,
                elsewhere: 0
            }
        );
    }

    #[test]
    fn a_target_the_sheet_changes_says_translated_and_the_others_keep_their_state() {
        let app = APP
            .replace(
                "<target>Dateien</target>",
                "<target state=\"signed-off\"\n          state-qualifier='leveraged-tm'>Dateien</target>",
            )
            .replace(
                "<source>Not yet</source>\n",
                "<source>Not yet</source>\n        <target state=\"needs-translation\" xml:lang=\"de\"/>\n",
            );
        let fresh = rendering(
            &[
                ("home.title", "Your basket", "Ihr Korb"),
                ("greeting", "Hello ", "Hallo, "),
                ("untranslated", "Not yet", "Noch nicht"),
            ],
            &[("one", "eine Datei"), ("other", "Dateien!")],
        );
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        let want = app
            .replace(
                "<target state=\"final\">Hallo <x id=\"INTERPOLATION\" equiv-text=\"{{ name }}\"/></target>",
                "<target state=\"translated\">Hallo, </target>",
            )
            .replace(
                "<target state=\"signed-off\"\n          state-qualifier='leveraged-tm'>Dateien</target>",
                "<target state=\"translated\">Dateien!</target>",
            )
            .replace(
                "<target state=\"needs-translation\" xml:lang=\"de\"/>",
                "<target state=\"translated\" xml:lang=\"de\">Noch nicht</target>",
            );
        assert_eq!(String::from_utf8(p.body).unwrap(), want);
        assert_eq!(p.counts.changed, 3);
    }

    #[test]
    fn a_restated_tag_changes_only_its_state_and_state_qualifier() {
        let restated =
            |tag: &str| String::from_utf8(restated(tag.as_bytes()).into_owned()).unwrap();
        assert_eq!(restated("<target>"), "<target>");
        assert_eq!(
            restated("<target state=\"translated\">"),
            "<target state=\"translated\">"
        );
        assert_eq!(
            restated(
                "<x:target  state = 'final' id=\"state\"\tstate-qualifier=\"mt-suggestion\" >"
            ),
            "<x:target  state = 'translated' id=\"state\" >"
        );
        assert_eq!(
            restated("<target state-qualifier=\"exact-match\"/>"),
            "<target/>"
        );
        assert!(matches!(
            restated_cow("<target approved-state=\"final\">"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    fn restated_cow(tag: &str) -> std::borrow::Cow<'_, [u8]> {
        restated(tag.as_bytes())
    }

    #[test]
    fn an_empty_target_is_replaced_and_xliff_2_is_refused() {
        let app = "<xliff version=\"1.2\"><file><body><trans-unit id=\"a\"><source>A</source><target/></trans-unit></body></file></xliff>";
        let fresh = rendering(&[("a", "A", "Ä")], &[]);
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        assert_eq!(
            String::from_utf8(p.body).unwrap(),
            app.replace("<target/>", "<target>Ä</target>")
        );
        let two = "<xliff version=\"2.0\"><file><unit id=\"a\"/></file></xliff>";
        let e = KEEP
            .patch(two.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap_err();
        assert!(e.what.starts_with("XLIFF 2 is not patched"), "{e}");
    }
}
