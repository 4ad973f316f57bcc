//! Placeholders as each renderer writes them (SPEC §9, §12.1): the sheet's text as it is with
//! `placeholders=keep`, the format's own syntax with `convert`, numbered by the base
//! locale's text of the same entry. A sheet whose settings cell names the syntax its texts
//! hold (`follow`) gives a format of that syntax its texts as they are (printf: Android's
//! and Apple's mapped to each other), and any other format its own syntax, read through
//! depot's `{name}` model.

use std::borrow::Cow;

use crate::formats::shared::{icu, syntax};
use crate::formats::{PlaceholderMode, RenderOptions};
use crate::model::Entry;
use crate::model::placeholders::{self, Order, SheetSyntax, Syntax};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Converter {
    /// `None`: keep texts as they are.
    syntax: Option<Syntax>,
    base: Option<usize>,
    /// What the sheet's texts hold, when it is not depot's `{name}`.
    from: Source,
}

/// What a text of the sheet is read as before it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// depot's `{name}` (a sheet without settings cell, or an explicit mode).
    Depot,
    /// The format's own syntax: as it is (printf: mapped to this platform's printf).
    Same(Option<syntax::Printf>),
    /// Another syntax: read into `{name}`, then written as `syntax`.
    Other(SheetSyntax),
}

impl Converter {
    pub(crate) fn new(opts: &RenderOptions, syntax: Syntax) -> Converter {
        let from = Source::of(opts.follow, syntax);
        let convert = match from {
            Source::Depot => opts.placeholders == PlaceholderMode::Convert,
            Source::Same(_) => false,
            Source::Other(_) => true,
        };
        Converter {
            syntax: convert.then_some(syntax),
            base: opts.base_locale,
            from,
        }
    }

    /// Converts whatever the mode: a json plural entry is an ICU message either way.
    pub(crate) fn always(opts: &RenderOptions, syntax: Syntax) -> Converter {
        let from = Source::of(opts.follow, syntax);
        Converter {
            syntax: (!matches!(from, Source::Same(_))).then_some(syntax),
            base: opts.base_locale,
            from,
        }
    }

    /// `text` (a plain entry's, or one form of a plural entry's) as the format writes it.
    /// `plural`: `text` is a form of a plural entry (the caller knows it without reading
    /// `entry`, which is only read when a placeholder needs numbering).
    pub(crate) fn text<'t>(&self, entry: &Entry, plural: bool, text: &'t str) -> Cow<'t, str> {
        match self.from {
            Source::Same(Some(flavor)) => return syntax::printf_as(text, flavor),
            Source::Other(from) => {
                let Some(syntax) = self.syntax else {
                    return Cow::Borrowed(text);
                };
                let read = to_depot(text, from, plural);
                let written =
                    placeholders::convert(&read, syntax, || Order::positional(plural), plural);
                return Cow::Owned(written.into_owned());
            }
            Source::Same(None) | Source::Depot => {}
        }
        let Some(syntax) = self.syntax else {
            return Cow::Borrowed(text);
        };
        placeholders::convert(text, syntax, self.order(entry, plural), plural)
    }

    /// A form of a plural entry as `text` gives it, appended to `out` (a json plural
    /// message is built from its forms this way, without a String per form).
    pub(crate) fn push_form(&self, out: &mut String, entry: &Entry, text: &str) {
        if self.from != Source::Depot {
            out.push_str(&self.text(entry, true, text));
            return;
        }
        let converted = self.syntax.is_some_and(|syntax| {
            placeholders::convert_into(out, text, syntax, self.order(entry, true), true)
        });
        if !converted {
            out.push_str(text);
        }
    }

    /// `push_form` for a plain text (`plural` false) or a form, saying what the conversion
    /// met; `None` (and nothing appended) when the text's braces do not parse, or when
    /// the mode keeps texts as they are.
    pub(crate) fn push_reporting(
        &self,
        out: &mut String,
        entry: &Entry,
        plural: bool,
        text: &str,
    ) -> Option<placeholders::Converted> {
        let syntax = self.syntax?;
        match self.from {
            Source::Other(from) => {
                let read = to_depot(text, from, plural);
                placeholders::convert_reporting(
                    out,
                    &read,
                    syntax,
                    || Order::positional(plural),
                    plural,
                )
            }
            _ => placeholders::convert_reporting(
                out,
                text,
                syntax,
                self.order(entry, plural),
                plural,
            ),
        }
    }

    /// The argument numbers of `entry`'s placeholders, from its base locale text(s).
    fn order<'e>(&self, entry: &'e Entry, plural: bool) -> impl FnOnce() -> Order<'e> {
        let base = self.base;
        move || match base {
            Some(base) => Order::new(entry.texts_in(base), plural),
            None => Order::new([], plural),
        }
    }
}

impl Source {
    /// How a sheet holding `follow` is written in `syntax`.
    fn of(follow: Option<SheetSyntax>, syntax: Syntax) -> Source {
        match follow {
            None | Some(SheetSyntax::Depot) => Source::Depot,
            // ICU's quoting is not gen-l10n's without use-escaping: read, then written
            Some(SheetSyntax::Icu)
                if matches!(
                    syntax,
                    Syntax::Arb {
                        escaping: false,
                        ..
                    }
                ) =>
            {
                Source::Other(SheetSyntax::Icu)
            }
            Some(sheet) if sheet == SheetSyntax::of(syntax) => Source::Same(match syntax {
                Syntax::Android => Some(syntax::Printf::Java),
                Syntax::Ios => Some(syntax::Printf::Apple),
                _ => None,
            }),
            Some(sheet) => Source::Other(sheet),
        }
    }
}

/// A text of a sheet holding `from` in depot's `{name}` syntax, read as import reads the
/// format of that syntax (numbered arguments become `{argN}`, `{count}` in a plural).
pub(crate) fn to_depot(text: &str, from: SheetSyntax, plural: bool) -> Cow<'_, str> {
    let quoting = matches!(from, SheetSyntax::Java | SheetSyntax::Icu);
    let special = memchr::memchr3(b'%', b'{', b'}', text.as_bytes()).is_some()
        || (quoting && memchr::memchr(b'\'', text.as_bytes()).is_some());
    if !special && !plural {
        return Cow::Borrowed(text);
    }
    Cow::Owned(match from {
        SheetSyntax::Depot => return Cow::Borrowed(text),
        SheetSyntax::Printf | SheetSyntax::Gettext => {
            syntax::printf(text, syntax::Printf::Apple, plural).text
        }
        SheetSyntax::Icu => match icu::to_sheet(text) {
            Ok(icu::Message::Text(read)) => read.text,
            _ => syntax::literal(text),
        },
        SheetSyntax::Dotnet => syntax::composite(text, plural).text,
        SheetSyntax::Java => syntax::message_format(text, plural).text,
        SheetSyntax::I18next => syntax::i18next(text).text,
        SheetSyntax::Ruby => syntax::rails(text).text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(follow: SheetSyntax, syntax: Syntax, plural: bool, text: &str) -> String {
        let opts = RenderOptions {
            follow: Some(follow),
            base_locale: Some(0),
            ..RenderOptions::default()
        };
        let entry = Entry {
            path: vec!["k".to_owned()],
            texts: vec![Some(text.to_owned())],
            ..Entry::default()
        };
        Converter::new(&opts, syntax)
            .text(&entry, plural, text)
            .into_owned()
    }

    #[test]
    fn a_printf_sheet_is_verbatim_for_printf_formats_and_converted_for_the_others() {
        let p = SheetSyntax::Printf;
        let text = "Hi %2$s, %1$d left";
        assert_eq!(written(p, Syntax::Android, false, text), text);
        assert_eq!(written(p, Syntax::Ios, false, text), "Hi %2$@, %1$d left");
        assert_eq!(
            written(p, Syntax::Composite, false, text),
            "Hi {1}, {0} left"
        );
        assert_eq!(
            written(p, Syntax::MessageFormat, false, text),
            "Hi {1}, {0} left"
        );
        assert_eq!(
            written(p, Syntax::I18next, false, text),
            "Hi {{arg2}}, {{arg1}} left"
        );
        assert_eq!(
            written(p, Syntax::Icu { in_plural: false }, false, text),
            "Hi {arg2}, {arg1, number, integer} left"
        );
        assert_eq!(written(p, Syntax::Rails, false, "%d%% {x}"), "%{arg1}% {x}");
    }

    #[test]
    fn other_sheet_syntaxes_are_read_as_their_formats_read_them() {
        assert_eq!(
            written(
                SheetSyntax::Dotnet,
                Syntax::Composite,
                false,
                "{0:0.0} {{x}}"
            ),
            "{0:0.0} {{x}}"
        );
        assert_eq!(
            written(SheetSyntax::Dotnet, Syntax::Android, false, "{0} of {1}"),
            "%1$s of %2$s"
        );
        assert_eq!(
            written(SheetSyntax::Java, Syntax::Ios, false, "it''s {0}"),
            "it's %1$@"
        );
        assert_eq!(
            written(SheetSyntax::I18next, Syntax::Rails, false, "Hi {{ name }}"),
            "Hi %{name}"
        );
        assert_eq!(
            written(SheetSyntax::Ruby, Syntax::I18next, false, "Hi %{name}"),
            "Hi {{name}}"
        );
    }
}
