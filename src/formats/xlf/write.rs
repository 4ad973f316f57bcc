//! xlf: XLIFF 1.2, one `<file>` per locale. A unit's `id` is the dotted key path (unique,
//! and what translators recognise), `resname` the flat name; `<source>` holds the base
//! locale's text (the key path where it has none), `<target>` the locale's.

use std::borrow::Cow;

use crate::formats::shared::arena::StrArena;
use crate::formats::shared::escape::{XML_CONTROL_REASON, clean_comment, push_xml_str};
use crate::formats::shared::flatten::NameStyle;
use crate::formats::shared::flatten::{Flat, FlatKey, Names};
use crate::formats::shared::texts::Texts;
use crate::formats::writing::Job;
use crate::formats::{Format, RenderError, RenderOptions};
use crate::model::{Document, PluralCategory};

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    let flat = job.flat(NameStyle::Plain, true);
    let shared = (job.prepared).and_then(|prepared| prepared.xlf_pieces(job.opts.base_locale));
    render(&flat, job.opts, shared, out)?;
    Ok(flat.warnings)
}

/// The body; `shared`: the repeated pieces escaped once for every body of the document.
fn render(
    flat: &Flat<'_>,
    opts: &RenderOptions,
    shared: Option<&Shared>,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    let doc = flat.doc;
    let source_language = match opts.base_locale {
        Some(base) => xsd_language(&doc.locales[base])?,
        None => "en".to_owned(),
    };
    out.extend_from_slice(
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
          <xliff xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" version=\"1.2\">\n",
    );
    let mut repeated = Repeated::new(doc.entries.len(), flat.locales.len() > 1);
    let mut prefix = Vec::new();
    for (pos, loc) in flat.locales.iter().enumerate() {
        out.extend_from_slice(
            b"  <file original=\"translations\" datatype=\"plaintext\" source-language=\"",
        );
        out.extend_from_slice(source_language.as_bytes());
        out.extend_from_slice(b"\" target-language=\"");
        out.extend_from_slice(xsd_language(loc.code)?.as_bytes());
        out.extend_from_slice(b"\">\n    <body>\n");
        // the locale's part of every resname, escaped once (a bad character in it is
        // reported at the first key, which it spoils)
        prefix.clear();
        let prefix_valid = push_xml_str(&mut prefix, &loc.prefix, true);
        for key in flat.keys_with_sources(pos, loc, opts.base_locale) {
            prefix_valid.map_err(|c| key_error(&key, c))?;
            let escaped = match shared.and_then(|shared| shared.pieces.get(key.index)) {
                Some(escaped) => escaped,
                None => repeated.escaped(flat, &key, opts.base_locale)?,
            };
            let mut unit = Unit {
                flat,
                key: &key,
                locale: loc.code,
                escaped: &escaped,
                prefix: &prefix,
                category: None,
                source: Source::Escaped(escaped.source),
                text: key.text,
                comments: opts.comments,
            };
            let Some(plural) = key.plural else {
                unit.write::<false>(out)?;
                continue;
            };
            // gettext's convention for plural groups, which XLIFF 1.2 tools know
            out.extend_from_slice(b"      <group id=\"");
            out.extend_from_slice(escaped.id);
            out.extend_from_slice(b"\" restype=\"x-gettext-plurals\">\n");
            for (category, text) in plural.forms_in(loc.locale) {
                unit.category = Some(category);
                unit.text = text;
                let base_form = opts.base_locale.and_then(|base| {
                    let text = (plural.text(category, base))
                        .or_else(|| plural.text(PluralCategory::Other, base))?;
                    Some((base, text))
                });
                unit.source = match base_form {
                    Some((base, text)) => Source::Text { base, text },
                    None => Source::Id,
                };
                unit.write::<true>(out)?;
            }
            out.extend_from_slice(b"      </group>\n");
        }
        out.extend_from_slice(b"    </body>\n  </file>\n");
    }
    out.extend_from_slice(b"</xliff>\n");
    Ok(())
}

/// What every locale of a body writes again for a key, XML-escaped once: its unit id, its
/// `resname` without the locale prefix, and its `<source>` (the base locale's text, else
/// the id). A body of 20 locales writes each of them 20 times: escaping was a third of
/// such a render, and two thirds of the bytes it escaped were these repeats
/// (docs/performance.md); from here they are copied.
struct Repeated {
    /// The escaped pieces, back to back.
    bytes: Vec<u8>,
    /// Per entry, where its pieces start and end in `bytes` (`[start, id end, name end,
    /// source end]`), once escaped; empty when nothing is kept (a body of one locale,
    /// where each key is written once: `bytes` then holds the current key's only).
    spans: Vec<Option<[usize; 4]>>,
}

/// `Repeated`'s pieces of every entry of a document, escaped once for all the bodies
/// rendered from it (`formats::Prepared`): `depot generate` writes a file per locale,
/// and each escaped the same ids, names and base texts again (with 20 locales, three of
/// the four strings a unit escapes). An entry whose pieces do not escape has none here:
/// a body holding it escapes them itself, and fails there as it did.
pub(crate) struct Shared {
    /// The base locale the sources are in.
    pub(crate) base: Option<usize>,
    pieces: Pieces,
}

/// Escaped pieces, each entry's at its index.
struct Pieces {
    bytes: Vec<u8>,
    spans: Vec<Option<[usize; 4]>>,
}

impl Pieces {
    fn get(&self, entry: usize) -> Option<Escaped<'_>> {
        let [start, id_end, name_end, source_end] = (*self.spans.get(entry)?)?;
        Some(Escaped {
            id: &self.bytes[start..id_end],
            name: &self.bytes[id_end..name_end],
            source: &self.bytes[name_end..source_end],
        })
    }
}

impl Shared {
    /// The pieces of every entry of `doc`: `names` the flat names xlf writes, `paths`
    /// the dotted key paths, the sources `base`'s texts in `texts`.
    pub(crate) fn build(
        doc: &Document,
        names: &Names,
        paths: &StrArena,
        texts: Texts<'_>,
        base: Option<usize>,
    ) -> Shared {
        // Half the entries on each core (it held up the first xlf file, the other core
        // waiting for it), the halves' pieces then put back to back.
        let entries = doc.entries.len();
        let parts = crate::parallel::ranges(entries, entries >= PARALLEL_FROM_ENTRIES);
        let built = crate::parallel::map(parts.len(), &parts, |part| {
            let mut bytes = Vec::new();
            let spans: Vec<_> = (part.clone())
                .map(|index| {
                    let start = bytes.len();
                    let id = Format::Xlf
                        .name_of(&doc.entries[index])
                        .or_else(|| paths.get(index))
                        .unwrap_or_default();
                    let mut push = || -> Result<[usize; 4], char> {
                        push_xml_str(&mut bytes, id, true)?;
                        let id_end = bytes.len();
                        push_xml_str(&mut bytes, names.name(index), true)?;
                        let name_end = bytes.len();
                        let source = base.and_then(|base| texts.get(index, base)).unwrap_or(id);
                        push_xml_str(&mut bytes, source, false)?;
                        Ok([start, id_end, name_end, bytes.len()])
                    };
                    let span = push().ok();
                    if span.is_none() {
                        bytes.truncate(start);
                    }
                    span
                })
                .collect();
            (bytes, spans)
        });
        let mut bytes = Vec::with_capacity(built.iter().map(|(b, _)| b.len()).sum());
        let mut spans = Vec::with_capacity(entries);
        for (part_bytes, part_spans) in built {
            let offset = bytes.len();
            bytes.extend_from_slice(&part_bytes);
            spans
                .extend((part_spans.into_iter()).map(|span| span.map(|s| s.map(|at| at + offset))));
        }
        Shared {
            base,
            pieces: Pieces { bytes, spans },
        }
    }
}

/// Below this many entries the pieces are escaped on the calling thread alone.
const PARALLEL_FROM_ENTRIES: usize = 10_000;

/// One key's escaped pieces (`Repeated`).
struct Escaped<'r> {
    id: &'r [u8],
    name: &'r [u8],
    source: &'r [u8],
}

impl Repeated {
    fn new(entries: usize, keep: bool) -> Repeated {
        Repeated {
            bytes: Vec::new(),
            spans: if keep {
                vec![None; entries]
            } else {
                Vec::new()
            },
        }
    }

    /// The pieces of `key`, escaped on first use (only then is its text in the base
    /// locale `base` looked up).
    fn escaped(
        &mut self,
        flat: &Flat<'_>,
        key: &FlatKey<'_>,
        base: Option<usize>,
    ) -> Result<Escaped<'_>, RenderError> {
        let kept = self.spans.get(key.index).copied().flatten();
        let [start, id_end, name_end, source_end] = match kept {
            Some(span) => span,
            None => {
                if self.spans.is_empty() {
                    self.bytes.clear();
                }
                let start = self.bytes.len();
                // a name the sheet gives is the app's id too
                let id = match Format::Xlf.name_of(key.entry) {
                    Some(name) => Cow::Borrowed(name),
                    None => flat.dotted_path(key.index),
                };
                let bytes = &mut self.bytes;
                push_xml_str(bytes, &id, true).map_err(|c| key_error(key, c))?;
                let id_end = bytes.len();
                push_xml_str(bytes, key.base, true).map_err(|c| key_error(key, c))?;
                let name_end = bytes.len();
                let base_text =
                    base.and_then(|base| Some((base, flat.texts.get(key.index, base)?)));
                match base_text {
                    Some((base, text)) => push_xml_str(bytes, text, false)
                        .map_err(|c| text_error(key, &flat.doc.locales[base], c))?,
                    None => push_xml_str(bytes, &id, false).map_err(|c| key_error(key, c))?,
                }
                let span = [start, id_end, name_end, bytes.len()];
                if let Some(slot) = self.spans.get_mut(key.index) {
                    *slot = Some(span);
                }
                span
            }
        };
        Ok(Escaped {
            id: &self.bytes[start..id_end],
            name: &self.bytes[id_end..name_end],
            source: &self.bytes[name_end..source_end],
        })
    }
}

/// What a unit's `<source>` holds.
#[derive(Clone, Copy)]
enum Source<'u> {
    /// Escaped already (`Repeated`).
    Escaped(&'u [u8]),
    /// A plural form's text in the base locale `base`.
    Text { base: usize, text: &'u str },
    /// The key's id, for a plural form the base locale has no text for.
    Id,
}

/// One `<trans-unit>`: a plain key, or one category of a plural entry (its id then ends
/// in `[category]`).
struct Unit<'u, 'a> {
    flat: &'u Flat<'a>,
    key: &'u FlatKey<'u>,
    locale: &'u str,
    escaped: &'u Escaped<'u>,
    /// The locale's prefix of the resname, escaped.
    prefix: &'u [u8],
    category: Option<PluralCategory>,
    source: Source<'u>,
    text: &'u str,
    comments: bool,
}

fn key_error(key: &FlatKey<'_>, character: char) -> RenderError {
    RenderError::UnrepresentableKey {
        format: Format::Xlf,
        key: key.dotted_path(),
        character,
        reason: XML_CONTROL_REASON,
    }
}

fn text_error(key: &FlatKey<'_>, locale: &str, character: char) -> RenderError {
    RenderError::UnrepresentableText {
        format: Format::Xlf,
        locale: locale.to_owned(),
        key: key.dotted_path(),
        character,
        reason: XML_CONTROL_REASON,
    }
}

/// The markup of a `<trans-unit>` around its id, resname and texts, whole lines at a time:
/// a render copies each as one piece of known length (this runs for every text).
struct UnitTags {
    open: &'static [u8],
    source: &'static [u8],
    target: &'static [u8],
    target_end: &'static [u8],
    note: &'static [u8],
    note_end: &'static [u8],
    close: &'static [u8],
}

const UNIT: UnitTags = UnitTags {
    open: b"      <trans-unit id=\"",
    source: b"\" xml:space=\"preserve\">\n        <source>",
    target: b"</source>\n        <target>",
    target_end: b"</target>\n",
    note: b"        <note>",
    note_end: b"</note>\n",
    close: b"      </trans-unit>\n",
};

/// A unit inside a plural `<group>`: one level deeper.
const GROUPED_UNIT: UnitTags = UnitTags {
    open: b"        <trans-unit id=\"",
    source: b"\" xml:space=\"preserve\">\n          <source>",
    target: b"</source>\n          <target>",
    target_end: b"</target>\n",
    note: b"          <note>",
    note_end: b"</note>\n",
    close: b"        </trans-unit>\n",
};

impl Unit<'_, '_> {
    /// The unit; `IN_GROUP`: inside a plural group (a constant, so each piece of markup
    /// is one too).
    fn write<const IN_GROUP: bool>(&self, out: &mut Vec<u8>) -> Result<(), RenderError> {
        let tags = if IN_GROUP { &GROUPED_UNIT } else { &UNIT };
        out.extend_from_slice(tags.open);
        out.extend_from_slice(self.escaped.id);
        if let Some(category) = self.category {
            out.push(b'[');
            out.extend_from_slice(category.name().as_bytes());
            out.push(b']');
        }
        out.extend_from_slice(b"\" resname=\"");
        out.extend_from_slice(self.prefix);
        out.extend_from_slice(self.escaped.name);
        out.extend_from_slice(tags.source);
        match self.source {
            Source::Escaped(source) => out.extend_from_slice(source),
            Source::Text { base, text } => push_xml_str(out, text, false)
                .map_err(|c| text_error(self.key, &self.flat.doc.locales[base], c))?,
            Source::Id => {
                let id = self.flat.dotted_path(self.key.index);
                push_xml_str(out, &id, false).map_err(|c| key_error(self.key, c))?;
            }
        }
        out.extend_from_slice(tags.target);
        push_xml_str(out, self.text, false).map_err(|c| text_error(self.key, self.locale, c))?;
        out.extend_from_slice(tags.target_end);
        if self.comments
            && let Some(comment) = &self.key.entry.comment
        {
            out.extend_from_slice(tags.note);
            // clean_comment leaves nothing XML refuses
            let _ = push_xml_str(out, &clean_comment(comment), false);
            out.extend_from_slice(tags.note_end);
        }
        out.extend_from_slice(tags.close);
        Ok(())
    }
}

/// The strict schema types `source-language`/`target-language` as `xsd:language`
/// (`[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*`); sheets write `en_US`, so `_` becomes `-`.
fn xsd_language(locale: &str) -> Result<String, RenderError> {
    let tag = locale.replace('_', "-");
    let valid = tag.split('-').enumerate().all(|(i, part)| {
        (1..=8).contains(&part.len())
            && if i == 0 {
                part.bytes().all(|b| b.is_ascii_alphabetic())
            } else {
                part.bytes().all(|b| b.is_ascii_alphanumeric())
            }
    });
    if valid {
        Ok(tag)
    } else {
        Err(RenderError::InvalidLanguage {
            locale: locale.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_codes_become_xsd_language() {
        assert_eq!(xsd_language("en_US").unwrap(), "en-US");
        assert_eq!(xsd_language("pl").unwrap(), "pl");
        assert_eq!(xsd_language("zh-Hant-TW").unwrap(), "zh-Hant-TW");
        for bad in ["", "en US", "en__US", "1en", "englishman"] {
            assert!(xsd_language(bad).is_err(), "{bad}");
        }
    }
}
