//! Flutter ARB (`app_<locale>.arb`, SPEC §11), as gen-l10n (flutter_tools
//! `localizations/gen_l10n.dart`, `gen_l10n_types.dart`, `message_parser.dart`) reads it:
//! `"@@locale"` first, matching the file name's locale (`en_US`, `pl`, `zh_Hant`); one
//! message per key under its lowerCamelCase id (`dart`), in sheet order; texts as ICU
//! MessageFormat with ICU's apostrophe quoting, which Flutter reads with `use-escaping:
//! true` in l10n.yaml, or, for a sheet that says `arb=plain` (an app on gen-l10n's default,
//! no use-escaping, which reads an apostrophe as text and every brace as syntax), as they
//! are, a literal brace refused; a plural entry as
//! `{count, plural, one{…} other{…}}` with `{count}` inside (Flutter has no `#`). The
//! base locale's file, the template, describes every message that has a placeholder or
//! (with comments) a comment in `"@id"`: `description` and each placeholder's `type`
//! (`String`, `int`, `double`; the count `int`, as gen-l10n wants `num` or `int`).
//!
//! A body of several locales (or with `keepLocale`) is an object of ARB files keyed by
//! their `@@locale`.

use std::collections::HashMap;

use crate::formats::json::write::push_json_str;
use crate::formats::shared::convert::Converter;
use crate::formats::shared::flatten::NameStyle;
use crate::formats::shared::flatten::{Flat, FlatKey, FlatLocale};
use crate::formats::shared::icu::{self, Dialect};
use crate::formats::shared::syntax;
use crate::formats::shared::texts::Forms;
use crate::formats::writing::Job;
use crate::formats::{Format, RenderError, RenderOptions};
use crate::model::Entry;
use crate::model::langtag;
use crate::model::placeholders::{self, COUNT, Converted, Kind, Piece, Syntax};

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    let flat = job.flat_unprefixed(NameStyle::Arb);
    let escaping = !job.doc.settings.arb_plain;
    let left_out = render(&flat, job.keyed(), job.opts, escaping, out)?;
    Ok(flat.warnings.iter().cloned().chain(left_out).collect())
}

/// Writes `flat` (unprefixed ARB ids). `keyed`: an object of files keyed by locale, else
/// the one locale's file; `escaping`: ICU's quoting (gen-l10n's `use-escaping: true`),
/// else texts as they are. Returns what was left out besides `flat`'s own warnings.
pub(crate) fn render(
    flat: &Flat<'_>,
    keyed: bool,
    opts: &RenderOptions,
    escaping: bool,
    out: &mut Vec<u8>,
) -> Result<Vec<String>, RenderError> {
    let mut warnings = Vec::new();
    let mut seen: HashMap<String, &str> = HashMap::new();
    let mut files = Arb {
        out,
        plain: Converter::always(
            opts,
            Syntax::Arb {
                in_plural: false,
                escaping,
            },
        ),
        forms: Converter::always(
            opts,
            Syntax::Arb {
                in_plural: true,
                escaping,
            },
        ),
        message: String::new(),
        opts,
        escaping,
    };
    if keyed {
        files.out.push(b'{');
    }
    let mut first = true;
    for (pos, loc) in flat.locales.iter().enumerate() {
        let locale = match (&opts.declared_locale, keyed) {
            (Some(declared), false) => declared.clone(),
            _ => flutter_locale(loc.code)?,
        };
        if let Some(kept) = seen.get(&locale) {
            warnings.push(format!(
                "locales '{kept}' and '{}' are both the locale '{locale}' in arb; kept \
                 '{kept}', left out '{}'",
                loc.code, loc.code
            ));
            continue;
        }
        seen.insert(locale.clone(), loc.code);
        let indent = if keyed {
            if !first {
                files.out.push(b',');
            }
            files.out.extend_from_slice(b"\n  ");
            push_json_str(files.out, &locale);
            files.out.extend_from_slice(b": ");
            2
        } else {
            0
        };
        first = false;
        files.file(flat, pos, loc, &locale, indent)?;
    }
    if keyed || first {
        // an object of files, or no file at all: an empty object
        let end: &[u8] = if keyed && !first { b"\n}" } else { b"}" };
        if !keyed {
            files.out.push(b'{');
        }
        files.out.extend_from_slice(end);
    }
    files.out.push(b'\n');
    Ok(warnings)
}

/// A locale as Flutter names it in `@@locale` and in file names: BCP 47 in canonical case
/// with `_` (`en_US`, `zh_Hant_TW`), a region that only repeats the language dropped (`pl`).
pub(crate) fn flutter_locale(code: &str) -> Result<String, RenderError> {
    langtag::folded(code)
        .map(|tag| tag.to_string().replace('-', "_"))
        .ok_or_else(|| RenderError::NotALanguageTag {
            format: Format::Arb,
            locale: code.to_owned(),
        })
}

struct Arb<'o> {
    out: &'o mut Vec<u8>,
    plain: Converter,
    forms: Converter,
    /// The message being built, reused.
    message: String,
    opts: &'o RenderOptions,
    /// ICU's quoting (`use-escaping: true`), else texts as they are.
    escaping: bool,
}

impl Arb<'_> {
    /// One locale's ARB document, its lines indented by `indent` more spaces.
    fn file(
        &mut self,
        flat: &Flat<'_>,
        pos: usize,
        loc: &FlatLocale<'_>,
        locale: &str,
        indent: usize,
    ) -> Result<(), RenderError> {
        let template = self.opts.base_locale == Some(loc.locale);
        self.out.push(b'{');
        self.line(indent + 2);
        self.out.extend_from_slice(b"\"@@locale\": ");
        push_json_str(self.out, locale);
        for key in flat.keys(pos, loc) {
            // most texts hold nothing ICU reads specially: written as they are
            let as_is = key.plural.is_none() && !needs_quoting(key.text, false, self.escaping);
            if !as_is {
                self.message(&key, loc)?;
            }
            self.out.push(b',');
            self.line(indent + 2);
            push_json_str(self.out, key.base);
            self.out.extend_from_slice(b": ");
            push_json_str(self.out, if as_is { key.text } else { &self.message });
            if template {
                self.metadata(&key, indent + 2);
            }
        }
        self.line(indent);
        self.out.push(b'}');
        Ok(())
    }

    fn line(&mut self, indent: usize) {
        self.out.push(b'\n');
        self.out.extend(std::iter::repeat_n(b' ', indent));
    }

    /// The key's text (or plural forms) as one ICU message, into `self.message`.
    fn message(&mut self, key: &FlatKey<'_>, loc: &FlatLocale<'_>) -> Result<(), RenderError> {
        self.message.clear();
        let escaping = self.escaping;
        let met = match key.plural {
            None => push_text(
                &mut self.message,
                &self.plain,
                key.entry,
                false,
                key.text,
                escaping,
            ),
            Some(forms) => {
                self.message.push('{');
                self.message.push_str(COUNT);
                self.message.push_str(", plural,");
                let mut met = Converted::default();
                for (category, text) in forms.forms_in(loc.locale) {
                    self.message.push(' ');
                    self.message.push_str(category.name());
                    self.message.push('{');
                    let form = push_text(
                        &mut self.message,
                        &self.forms,
                        key.entry,
                        true,
                        text,
                        escaping,
                    );
                    met.flutter_misreads |= form.flutter_misreads;
                    met.literal_brace = met.literal_brace.or(form.literal_brace);
                    self.message.push('}');
                }
                self.message.push('}');
                met
            }
        };
        if met.flutter_misreads {
            return Err(RenderError::UnrepresentableText {
                format: Format::Arb,
                locale: loc.code.to_owned(),
                key: key.dotted_path(),
                character: '\'',
                reason: "Flutter's gen-l10n reads an apostrophe right before a literal '{', \
                         '}' or (in a plural) '#' as two",
            });
        }
        if let Some(brace) = met.literal_brace {
            return Err(RenderError::UnrepresentableText {
                format: Format::Arb,
                locale: loc.code.to_owned(),
                key: key.dotted_path(),
                character: brace,
                reason: "gen-l10n without use-escaping (the sheet's arb=plain) reads every \
                         brace as syntax",
            });
        }
        Ok(())
    }

    /// `"@id": {"description", "placeholders"}` when the message has either.
    fn metadata(&mut self, key: &FlatKey<'_>, indent: usize) {
        let description = self
            .opts
            .comments
            .then_some(key.entry.comment.as_deref())
            .flatten();
        let declared = declared_placeholders(key.entry, key.plural, self.opts.base_locale);
        if description.is_none() && declared.is_empty() {
            return;
        }
        self.out.push(b',');
        self.line(indent);
        if key.entry.names.is_empty() {
            self.out.extend_from_slice(b"\"@");
            // ids are ASCII identifiers: nothing to escape
            self.out.extend_from_slice(key.base.as_bytes());
            self.out.push(b'"');
        } else {
            // a name the sheet gives, as it is
            push_json_str(self.out, &format!("@{}", key.base));
        }
        self.out.extend_from_slice(b": {");
        if let Some(description) = description {
            self.line(indent + 2);
            self.out.extend_from_slice(b"\"description\": ");
            push_json_str(self.out, description);
            if !declared.is_empty() {
                self.out.push(b',');
            }
        }
        if !declared.is_empty() {
            self.line(indent + 2);
            self.out.extend_from_slice(b"\"placeholders\": {");
            for (i, (name, kind)) in declared.iter().enumerate() {
                if i > 0 {
                    self.out.push(b',');
                }
                self.line(indent + 4);
                push_json_str(self.out, name);
                self.out.extend_from_slice(b": {");
                self.line(indent + 6);
                self.out.extend_from_slice(b"\"type\": \"");
                self.out.extend_from_slice(dart_type(*kind).as_bytes());
                self.out.push(b'"');
                self.line(indent + 4);
                self.out.push(b'}');
            }
            self.line(indent + 2);
            self.out.push(b'}');
        }
        self.line(indent);
        self.out.push(b'}');
    }
}

/// A text as ARB writes it: converted to the ICU of `converter`, or, when its braces do
/// not parse (a finding of the checks), as literal text, which Flutter shows as it is
/// with `escaping` (and cannot be written without: `literal_brace`). Without `escaping`,
/// a text that is the literal form of a message the sheet cannot hold (import's, of a
/// plural inside a text, a select) is that message again, as the app had it.
fn push_text(
    out: &mut String,
    converter: &Converter,
    entry: &Entry,
    plural: bool,
    text: &str,
    escaping: bool,
) -> Converted {
    if !needs_quoting(text, plural, escaping) {
        out.push_str(text);
        return Converted::default();
    }
    let start = out.len();
    let mut met = converter
        .push_reporting(out, entry, plural, text)
        .unwrap_or_else(|| match escaping {
            true => placeholders::push_icu_literal_text(out, text, plural),
            false => Converted {
                literal_brace: text.chars().find(|c| matches!(c, '{' | '}')),
                ..Converted::default()
            },
        });
    if met.literal_brace.is_some() && !plural {
        let written = &out[start..];
        if syntax::literal(written) == text
            && icu::is_unheld_message(written, Dialect::GenL10nPlain)
        {
            met.literal_brace = None;
        }
    }
    met
}

/// Whether Flutter would read anything in `text` as syntax: braces, and with `escaping`
/// apostrophes and, in a plural form, `#`.
fn needs_quoting(text: &str, plural: bool, escaping: bool) -> bool {
    let bytes = text.as_bytes();
    if !escaping {
        return memchr::memchr2(b'{', b'}', bytes).is_some();
    }
    memchr::memchr3(b'{', b'}', b'\'', bytes).is_some()
        || (plural && memchr::memchr(b'#', bytes).is_some())
}

/// The placeholders a message declares: its base locale text's (or forms'), in order of
/// first appearance, the count first in a plural entry. The first type written wins.
fn declared_placeholders<'e>(
    entry: &'e Entry,
    plural: Option<Forms<'_>>,
    base: Option<usize>,
) -> Vec<(&'e str, Kind)> {
    let mut declared: Vec<(&str, Kind)> = Vec::new();
    if plural.is_some() {
        declared.push((COUNT, Kind::Int));
    }
    let Some(base) = base else {
        return declared;
    };
    for text in entry.texts_in(base) {
        if !placeholders::has_braces(text) {
            continue;
        }
        let _ = placeholders::scan(text, |piece| {
            if let Piece::Placeholder { name, kind } = piece
                && !declared.iter().any(|(n, _)| *n == name)
            {
                declared.push((name, kind));
            }
        });
    }
    declared
}

/// The Dart type gen-l10n gives a placeholder of `kind`.
fn dart_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Text => "String",
        Kind::Int => "int",
        Kind::Float => "double",
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::{Format, RenderError, RenderOptions, render};
    use crate::model::{Document, Selection};

    /// The sheet `rows` (a settings cell first, maybe) as the one locale's ARB file.
    fn arb(rows: &[&[&str]]) -> Result<String, RenderError> {
        let rows = rows
            .iter()
            .map(|row| row.iter().map(|c| (*c).to_owned()).collect())
            .collect();
        let doc: Document = crate::markup::convert(rows).unwrap();
        let opts = RenderOptions {
            base_locale: Some(0),
            ..RenderOptions::default()
        };
        let body = render(&doc, &Selection::all(&doc), Format::Arb, &opts)?.body;
        Ok(String::from_utf8(body).unwrap())
    }

    const SHEET: [&[&str]; 4] = [
        &[">>>", "ca"],
        &["dont", "Don't stop, {name}"],
        &["teams[one]", "Batalla d'{count} equip"],
        &["teams[other]", "Batalla de {count} equips #"],
    ];

    /// `arb=plain` (gen-l10n without use-escaping): texts as they are, an apostrophe
    /// right before a placeholder too; without the cell, ICU's quoting as before.
    #[test]
    fn a_plain_sheet_writes_apostrophes_as_they_are() {
        let plain = arb(&[
            &["depot: arb=plain"],
            SHEET[0],
            SHEET[1],
            SHEET[2],
            SHEET[3],
        ])
        .unwrap();
        assert!(
            plain.contains(r#""dont": "Don't stop, {name}","#),
            "{plain}"
        );
        assert!(
            plain.contains(
                r#""teams": "{count, plural, one{Batalla d'{count} equip} other{Batalla de {count} equips #}}""#
            ),
            "{plain}"
        );
        let escaping = arb(&[&["depot: arb=escaping"], SHEET[0], SHEET[1]]).unwrap();
        assert!(
            escaping.contains(r#""dont": "Don''t stop, {name}","#),
            "{escaping}"
        );
        assert_eq!(arb(&SHEET[..2]).unwrap(), escaping);
        let escaping = arb(&SHEET).unwrap();
        assert!(
            escaping.contains(
                r#""teams": "{count, plural, one{Batalla d''{count} equip} other{Batalla de {count} equips '#'}}""#
            ),
            "{escaping}"
        );
    }

    /// Without use-escaping gen-l10n reads every brace as syntax: a literal one (the
    /// sheet's `{{`, or a brace that is no placeholder) cannot be written.
    #[test]
    fn a_plain_sheet_refuses_a_literal_brace_naming_it() {
        for (text, brace) in [("Tap {{Edit}}", '{'), ("a } b", '}'), ("{ x", '{')] {
            let err = arb(&[&["depot: arb=plain"], &[">>>", "en"], &["tap", text]]).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "arb cannot carry the character U+{:04X} in the text of 'tap' for locale 'en': \
                     gen-l10n without use-escaping (the sheet's arb=plain) reads every brace as \
                     syntax; change that text in the sheet or choose another format",
                    u32::from(brace)
                ),
                "{text}"
            );
        }
        // a message import carries as literal text (a plural inside a text) is written
        // back as the app had it: braces are its syntax
        let message = "Forward {count, plural, =1{one message} other{{count} messages}}?";
        let literal = crate::formats::shared::syntax::literal(message);
        let plain = arb(&[&["depot: arb=plain"], &[">>>", "en"], &["fwd", &literal]]).unwrap();
        assert!(
            plain.contains(&format!("\"fwd\": \"{message}\"")),
            "{plain}"
        );
        let quoted = arb(&[&[">>>", "en"], &["tap", "Tap {{Edit}}"]]).unwrap();
        assert!(quoted.contains(r#""tap": "Tap '{'Edit'}'""#), "{quoted}");
    }
}
