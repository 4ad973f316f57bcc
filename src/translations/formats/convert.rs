//! Placeholders as each renderer writes them (SPEC §9): the sheet's text as it is with
//! `placeholders=keep`, the format's own syntax with `convert`, numbered by the base
//! locale's text of the same entry.

use std::borrow::Cow;

use crate::translations::formats::{PlaceholderMode, RenderOptions};
use crate::translations::model::Entry;
use crate::translations::placeholders::{self, Order, Syntax};

#[derive(Debug, Clone, Copy)]
pub(super) struct Converter {
    /// `None`: keep texts as they are.
    syntax: Option<Syntax>,
    base: Option<usize>,
}

impl Converter {
    pub(super) fn new(opts: &RenderOptions, syntax: Syntax) -> Converter {
        let convert = opts.placeholders == PlaceholderMode::Convert;
        Converter {
            syntax: convert.then_some(syntax),
            base: opts.base_locale,
        }
    }

    /// Converts whatever the mode: a json plural entry is an ICU message either way.
    pub(super) fn always(opts: &RenderOptions, syntax: Syntax) -> Converter {
        Converter {
            syntax: Some(syntax),
            base: opts.base_locale,
        }
    }

    /// `text` (a plain entry's, or one form of a plural entry's) as the format writes it.
    pub(super) fn text<'t>(&self, entry: &Entry, text: &'t str) -> Cow<'t, str> {
        let Some(syntax) = self.syntax else {
            return Cow::Borrowed(text);
        };
        placeholders::convert(text, syntax, self.order(entry), entry.plural.is_some())
    }

    /// `text` as `text` gives it, appended to `out` (a json plural message is built
    /// from its forms this way, without a String per form).
    pub(super) fn push_text(&self, out: &mut String, entry: &Entry, text: &str) {
        let converted = self.syntax.is_some_and(|syntax| {
            let plural = entry.plural.is_some();
            placeholders::convert_into(out, text, syntax, self.order(entry), plural)
        });
        if !converted {
            out.push_str(text);
        }
    }

    /// The argument numbers of `entry`'s placeholders, from its base locale text(s).
    fn order<'e>(&self, entry: &'e Entry) -> impl FnOnce() -> Order<'e> {
        let base = self.base;
        move || {
            let plural = entry.plural.is_some();
            match base {
                Some(base) => Order::new(entry.texts_in(base), plural),
                None => Order::new([], plural),
            }
        }
    }
}
