//! xlf: XLIFF 1.2, one `<file>` per locale. A unit's `id` is the dotted key path (unique,
//! and what translators recognise), `resname` the flat name; `<source>` holds the base
//! locale's text (the key path where it has none), `<target>` the locale's.

use crate::translations::formats::escape::{XML_CONTROL_REASON, clean_comment, push_xml_str};
use crate::translations::formats::flatten::{Flat, FlatKey};
use crate::translations::formats::{Format, RenderError, RenderOptions};
use crate::translations::model::PluralCategory;

pub(super) fn render(
    flat: &Flat<'_>,
    opts: &RenderOptions,
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
    for (pos, loc) in flat.locales.iter().enumerate() {
        out.extend_from_slice(
            b"  <file original=\"translations\" datatype=\"plaintext\" source-language=\"",
        );
        out.extend_from_slice(source_language.as_bytes());
        out.extend_from_slice(b"\" target-language=\"");
        out.extend_from_slice(xsd_language(loc.code)?.as_bytes());
        out.extend_from_slice(b"\">\n    <body>\n");
        for key in flat.keys_with_sources(pos, loc, opts.base_locale) {
            let id = flat.dotted_path(key.index);
            let mut unit = Unit {
                flat,
                key: &key,
                locale: loc.code,
                id: &id,
                category: None,
                base_text: opts
                    .base_locale
                    .and_then(|base| Some((base, flat.texts.get(key.index, base)?))),
                text: key.text,
                comments: opts.comments,
            };
            let Some(plural) = key.plural else {
                unit.write::<false>(out)?;
                continue;
            };
            // gettext's convention for plural groups, which XLIFF 1.2 tools know
            out.extend_from_slice(b"      <group id=\"");
            push_xml_str(out, &id, true).map_err(|c| unit.key_error(c))?;
            out.extend_from_slice(b"\" restype=\"x-gettext-plurals\">\n");
            for (category, text) in plural.forms_in(loc.locale) {
                unit.category = Some(category);
                unit.text = text;
                unit.base_text = opts.base_locale.and_then(|base| {
                    let text = (plural.text(category, base))
                        .or_else(|| plural.text(PluralCategory::Other, base))?;
                    Some((base, text))
                });
                unit.write::<true>(out)?;
            }
            out.extend_from_slice(b"      </group>\n");
        }
        out.extend_from_slice(b"    </body>\n  </file>\n");
    }
    out.extend_from_slice(b"</xliff>\n");
    Ok(())
}

/// One `<trans-unit>`: a plain key, or one category of a plural entry (its id then ends
/// in `[category]`).
struct Unit<'u, 'a> {
    flat: &'u Flat<'a>,
    key: &'u FlatKey<'u>,
    locale: &'u str,
    id: &'u str,
    category: Option<PluralCategory>,
    /// The base locale and its text, for `<source>` (else the id).
    base_text: Option<(usize, &'u str)>,
    text: &'u str,
    comments: bool,
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
    fn key_error(&self, character: char) -> RenderError {
        RenderError::UnrepresentableKey {
            format: Format::Xlf,
            key: self.key.dotted_path(),
            character,
            reason: XML_CONTROL_REASON,
        }
    }

    fn text_error(&self, locale: &str, character: char) -> RenderError {
        RenderError::UnrepresentableText {
            format: Format::Xlf,
            locale: locale.to_owned(),
            key: self.key.dotted_path(),
            character,
            reason: XML_CONTROL_REASON,
        }
    }

    /// The unit; `IN_GROUP`: inside a plural group (a constant, so each piece of markup
    /// is one too).
    fn write<const IN_GROUP: bool>(&self, out: &mut Vec<u8>) -> Result<(), RenderError> {
        let tags = if IN_GROUP { &GROUPED_UNIT } else { &UNIT };
        out.extend_from_slice(tags.open);
        push_xml_str(out, self.id, true).map_err(|c| self.key_error(c))?;
        if let Some(category) = self.category {
            out.push(b'[');
            out.extend_from_slice(category.name().as_bytes());
            out.push(b']');
        }
        out.extend_from_slice(b"\" resname=\"");
        push_xml_str(out, self.key.prefix, true).map_err(|c| self.key_error(c))?;
        push_xml_str(out, self.key.base, true).map_err(|c| self.key_error(c))?;
        out.extend_from_slice(tags.source);
        match self.base_text {
            Some((base, text)) => push_xml_str(out, text, false)
                .map_err(|c| self.text_error(&self.flat.doc.locales[base], c))?,
            None => push_xml_str(out, self.id, false).map_err(|c| self.key_error(c))?,
        }
        out.extend_from_slice(tags.target);
        push_xml_str(out, self.text, false).map_err(|c| self.text_error(self.locale, c))?;
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
