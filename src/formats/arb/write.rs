//! Flutter ARB (`app_<locale>.arb`, SPEC §11), as gen-l10n (flutter_tools
//! `localizations/gen_l10n.dart`, `gen_l10n_types.dart`, `message_parser.dart`) reads it:
//! `"@@locale"` first, matching the file name's locale (`en_US`, `pl`, `zh_Hant`); one
//! message per key under its lowerCamelCase id (`dart`), in sheet order; texts as ICU
//! MessageFormat with ICU's apostrophe quoting, which Flutter reads with `use-escaping:
//! true` in l10n.yaml (without it, an apostrophe shows doubled); a plural entry as
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
use crate::formats::shared::texts::Forms;
use crate::formats::writing::Job;
use crate::formats::{Format, RenderError, RenderOptions};
use crate::model::Entry;
use crate::model::langtag;
use crate::model::placeholders::{self, COUNT, Converted, Kind, Piece, Syntax};

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    let flat = job.flat_unprefixed(NameStyle::Arb);
    let left_out = render(&flat, job.keyed(), job.opts, out)?;
    Ok(flat.warnings.iter().cloned().chain(left_out).collect())
}

/// Writes `flat` (unprefixed ARB ids). `keyed`: an object of files keyed by locale, else
/// the one locale's file. Returns what was left out besides `flat`'s own warnings.
pub(crate) fn render(
    flat: &Flat<'_>,
    keyed: bool,
    opts: &RenderOptions,
    out: &mut Vec<u8>,
) -> Result<Vec<String>, RenderError> {
    let mut warnings = Vec::new();
    let mut seen: HashMap<String, &str> = HashMap::new();
    let mut files = Arb {
        out,
        plain: Converter::always(opts, Syntax::Arb { in_plural: false }),
        forms: Converter::always(opts, Syntax::Arb { in_plural: true }),
        message: String::new(),
        opts,
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
            let as_is = key.plural.is_none() && !needs_quoting(key.text, false);
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
        let met = match key.plural {
            None => push_text(&mut self.message, &self.plain, key.entry, false, key.text),
            Some(forms) => {
                self.message.push('{');
                self.message.push_str(COUNT);
                self.message.push_str(", plural,");
                let mut met = Converted::default();
                for (category, text) in forms.forms_in(loc.locale) {
                    self.message.push(' ');
                    self.message.push_str(category.name());
                    self.message.push('{');
                    let form = push_text(&mut self.message, &self.forms, key.entry, true, text);
                    met.flutter_misreads |= form.flutter_misreads;
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
/// not parse (a finding of the checks), as literal text, which Flutter shows as it is.
fn push_text(
    out: &mut String,
    converter: &Converter,
    entry: &Entry,
    plural: bool,
    text: &str,
) -> Converted {
    if !needs_quoting(text, plural) {
        out.push_str(text);
        return Converted::default();
    }
    converter
        .push_reporting(out, entry, plural, text)
        .unwrap_or_else(|| placeholders::push_icu_literal_text(out, text, plural))
}

/// Whether ICU (and Flutter) would read anything in `text` as syntax: braces, apostrophes
/// and, in a plural form, `#`.
fn needs_quoting(text: &str, plural: bool) -> bool {
    let bytes = text.as_bytes();
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
