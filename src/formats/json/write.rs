//! json: `{"en_US":{"CORE":{"LABELS":{"YES":"Yes"}}}}`, compact, in sheet order. Written
//! directly so no intermediate map reorders keys; strings escaped byte for byte as
//! serde_json escapes them.

use std::convert::Infallible;

use crate::formats::shared::convert::Converter;
use crate::formats::shared::escape::{Specials, escape_into, push_hex};
use crate::formats::shared::texts::Texts;
use crate::formats::shared::tree::{Leaf, Tree, TreeSink};
use crate::formats::writing::Job;
use crate::formats::{RenderError, RenderOptions};
use crate::model::Selection;
use crate::model::placeholders::Syntax;

struct Json<'o> {
    out: &'o mut Vec<u8>,
    /// Plain texts: ICU syntax with `placeholders=convert`, as they are with `keep`.
    plain: Converter,
    /// Plural forms: ICU syntax whatever the mode, since the whole value is a message.
    plural: Converter,
    scratch: String,
}

impl Json<'_> {
    fn key(&mut self, name: &str, first: bool) -> Result<(), RenderError> {
        if !first {
            self.out.push(b',');
        }
        push_json_str(self.out, name);
        self.out.push(b':');
        Ok(())
    }
}

impl TreeSink for Json<'_> {
    fn open(&mut self, name: &str, _depth: usize, first: bool) -> Result<(), RenderError> {
        self.key(name, first)?;
        self.out.push(b'{');
        Ok(())
    }

    fn leaf(&mut self, leaf: &Leaf<'_>, _depth: usize, first: bool) -> Result<(), RenderError> {
        self.key(leaf.name, first)?;
        match leaf.plural {
            None => push_json_str(self.out, &self.plain.text(leaf.entry, false, leaf.text)),
            Some(plural) => {
                // {count, plural, one {…} other {…}}
                self.scratch.clear();
                self.scratch.push_str("{count, plural,");
                for (category, text) in plural.forms_in(leaf.locale) {
                    self.scratch.push(' ');
                    self.scratch.push_str(category.name());
                    self.scratch.push_str(" {");
                    self.plural.push_form(&mut self.scratch, leaf.entry, text);
                    self.scratch.push('}');
                }
                self.scratch.push('}');
                push_json_str(self.out, &self.scratch);
            }
        }
        Ok(())
    }

    fn close(&mut self, _depth: usize) -> Result<(), RenderError> {
        self.out.push(b'}');
        Ok(())
    }
}

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    job.tree_body(render, out)
}

/// json has no comments, so `comments` is ignored. `without_locale` writes the single
/// locale's tree without its locale key.
pub(crate) fn render(
    tree: &Tree<'_>,
    sel: &Selection,
    texts: Texts<'_>,
    opts: &RenderOptions,
    without_locale: bool,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    out.push(b'{');
    let mut sink = Json {
        out: &mut *out,
        plain: Converter::new(opts, Syntax::Icu { in_plural: false }),
        plural: Converter::always(opts, Syntax::Icu { in_plural: true }),
        scratch: String::new(),
    };
    tree.walk_file(sel, texts, without_locale, &mut sink)?;
    out.push(b'}');
    Ok(())
}

const SPECIALS: Specials = Specials::new(b"\"\\", true, false);

/// `s` as a JSON string: `\"`, `\\`, the short escapes, other C0 controls as `\u00xx`
/// (lower-case hex, as serde_json writes them); everything else, DEL included, as is.
pub(crate) fn push_json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let done: Result<(), Infallible> = escape_into(out, s, &SPECIALS, |out, c, _| {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{C}' => out.extend_from_slice(b"\\f"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{0}'..='\u{1F}' => {
                out.extend_from_slice(b"\\u00");
                let start = out.len();
                push_hex(out, u32::from(c), 2);
                out[start..].make_ascii_lowercase();
            }
            c => out.push(c as u8), // DEL, the only other special
        }
        Ok(())
    });
    let Ok(()) = done;
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn strings_are_escaped_exactly_as_serde_json_escapes_them(s in "\\PC*|[\\x00-\\x7F]*") {
            let mut ours = Vec::new();
            push_json_str(&mut ours, &s);
            prop_assert_eq!(ours, serde_json::to_vec(&s).unwrap());
        }
    }
}
