//! Placeholders as each renderer writes them (SPEC §9): the sheet's text as it is with
//! `placeholders=keep`, the format's own syntax with `convert`, numbered by the base
//! locale's text of the same entry.

use std::borrow::Cow;

use crate::formats::{PlaceholderMode, RenderOptions};
use crate::model::Entry;
use crate::model::placeholders::{self, Order, Syntax};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Converter {
    /// `None`: keep texts as they are.
    syntax: Option<Syntax>,
    base: Option<usize>,
}

impl Converter {
    pub(crate) fn new(opts: &RenderOptions, syntax: Syntax) -> Converter {
        let convert = opts.placeholders == PlaceholderMode::Convert;
        Converter {
            syntax: convert.then_some(syntax),
            base: opts.base_locale,
        }
    }

    /// Converts whatever the mode: a json plural entry is an ICU message either way.
    pub(crate) fn always(opts: &RenderOptions, syntax: Syntax) -> Converter {
        Converter {
            syntax: Some(syntax),
            base: opts.base_locale,
        }
    }

    /// `text` (a plain entry's, or one form of a plural entry's) as the format writes it.
    /// `plural`: `text` is a form of a plural entry (the caller knows it without reading
    /// `entry`, which is only read when a placeholder needs numbering).
    pub(crate) fn text<'t>(&self, entry: &Entry, plural: bool, text: &'t str) -> Cow<'t, str> {
        let Some(syntax) = self.syntax else {
            return Cow::Borrowed(text);
        };
        placeholders::convert(text, syntax, self.order(entry, plural), plural)
    }

    /// A form of a plural entry as `text` gives it, appended to `out` (a json plural
    /// message is built from its forms this way, without a String per form).
    pub(crate) fn push_form(&self, out: &mut String, entry: &Entry, text: &str) {
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
        placeholders::convert_reporting(out, text, syntax, self.order(entry, plural), plural)
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
