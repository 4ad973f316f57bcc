//! xlf: XLIFF 1.2, one `<file>` per locale. A unit's `id` is the dotted key path (unique,
//! and what translators recognise), `resname` the flat name; `<source>` holds the base
//! locale's text (the key path where it has none), `<target>` the locale's.

use crate::translations::formats::escape::{clean_comment, push_xml_str};
use crate::translations::formats::flatten::Flat;
use crate::translations::formats::{Format, RenderError, RenderOptions};

const CONTROL_REASON: &str = "XML 1.0 cannot hold control characters other than tab, line feed and carriage return, nor U+FFFE/U+FFFF, not even as &#N;";

pub(super) fn render<'a>(
    flat: &Flat<'a>,
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
        for key in flat.keys(pos, loc) {
            let key = &key;
            // errors build the path only when they happen
            let key_error = |character| RenderError::UnrepresentableKey {
                format: Format::Xlf,
                key: key.dotted_path(),
                character,
                reason: CONTROL_REASON,
            };
            let text_error = |locale: &'a str| {
                move |character| RenderError::UnrepresentableText {
                    format: Format::Xlf,
                    locale: locale.to_owned(),
                    key: key.dotted_path(),
                    character,
                    reason: CONTROL_REASON,
                }
            };
            let id = flat.dotted_path(key.index);
            out.extend_from_slice(b"      <trans-unit id=\"");
            push_xml_str(out, &id, true).map_err(key_error)?;
            out.extend_from_slice(b"\" resname=\"");
            push_xml_str(out, key.prefix, true).map_err(key_error)?;
            push_xml_str(out, key.base, true).map_err(key_error)?;
            out.extend_from_slice(b"\" xml:space=\"preserve\">\n        <source>");
            let base_text = opts
                .base_locale
                .and_then(|base| Some((base, flat.texts.get(key.index, base)?)));
            match base_text {
                Some((base, text)) => {
                    push_xml_str(out, text, false).map_err(text_error(&doc.locales[base]))?
                }
                None => push_xml_str(out, &id, false).map_err(key_error)?,
            }
            out.extend_from_slice(b"</source>\n        <target>");
            push_xml_str(out, key.text, false).map_err(text_error(loc.code))?;
            out.extend_from_slice(b"</target>\n");
            if opts.comments
                && let Some(comment) = &key.entry.comment
            {
                out.extend_from_slice(b"        <note>");
                // clean_comment leaves nothing XML refuses
                let _ = push_xml_str(out, &clean_comment(comment), false);
                out.extend_from_slice(b"</note>\n");
            }
            out.extend_from_slice(b"      </trans-unit>\n");
        }
        out.extend_from_slice(b"    </body>\n  </file>\n");
    }
    out.extend_from_slice(b"</xliff>\n");
    Ok(())
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
