//! ios `Localizable.stringsdict` (SPEC §9): the plural entries as an XML property list,
//! one dictionary per name whose `NSStringLocalizedFormatKey` is `%#@value@` and whose
//! `value` rule (`NSStringPluralRuleType`, integer `ld`) holds a string per category.
//! Plain keys stay in `Localizable.strings`.

use crate::formats::android::write::push_xml_comment;
use crate::formats::shared::convert::Converter;
use crate::formats::shared::escape::{XML_CONTROL_REASON, push_xml_str};
use crate::formats::shared::flatten::Flat;
use crate::formats::shared::flatten::NameStyle;
use crate::formats::writing::Job;
use crate::formats::{Format, RenderError, RenderOptions};
use crate::model::placeholders::Syntax;

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    job.flat_body(NameStyle::Plain, false, render, out)
}

pub(crate) fn render(
    flat: &Flat<'_>,
    opts: &RenderOptions,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    out.extend_from_slice(
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
          <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \
          \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
          <plist version=\"1.0\">\n<dict>\n",
    );
    let converter = Converter::new(opts, Syntax::Ios);
    for (pos, loc) in flat.locales.iter().enumerate() {
        for key in flat.keys(pos, loc) {
            let Some(plural) = key.plural else {
                continue;
            };
            let key = &key;
            let key_error = |character| RenderError::UnrepresentableKey {
                format: Format::Stringsdict,
                key: key.dotted_path(),
                character,
                reason: XML_CONTROL_REASON,
            };
            if opts.comments
                && let Some(comment) = &key.entry.comment
            {
                out.extend_from_slice(b"  <!-- ");
                push_xml_comment(out, comment);
                out.extend_from_slice(b" -->\n");
            }
            out.extend_from_slice(b"  <key>");
            push_xml_str(out, key.prefix, false).map_err(key_error)?;
            push_xml_str(out, key.base, false).map_err(key_error)?;
            out.extend_from_slice(
                b"</key>\n  <dict>\n\
                  \x20   <key>NSStringLocalizedFormatKey</key>\n\
                  \x20   <string>%#@value@</string>\n\
                  \x20   <key>value</key>\n\
                  \x20   <dict>\n\
                  \x20     <key>NSStringFormatSpecTypeKey</key>\n\
                  \x20     <string>NSStringPluralRuleType</string>\n\
                  \x20     <key>NSStringFormatValueTypeKey</key>\n\
                  \x20     <string>ld</string>\n",
            );
            for (category, text) in plural.forms_in(loc.locale) {
                out.extend_from_slice(b"      <key>");
                out.extend_from_slice(category.name().as_bytes());
                out.extend_from_slice(b"</key>\n      <string>");
                push_xml_str(out, &converter.text(key.entry, true, text), false).map_err(
                    |character| RenderError::UnrepresentableText {
                        format: Format::Stringsdict,
                        locale: loc.code.to_owned(),
                        key: key.dotted_path(),
                        character,
                        reason: XML_CONTROL_REASON,
                    },
                )?;
                out.extend_from_slice(b"</string>\n");
            }
            out.extend_from_slice(b"    </dict>\n  </dict>\n");
        }
    }
    out.extend_from_slice(b"</dict>\n</plist>\n");
    Ok(())
}
