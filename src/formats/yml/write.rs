//! yml: nested like json, block style, every key and value double-quoted so no YAML 1.1 or
//! 1.2 parser reads a text as a boolean, null, number, date, anchor, tag or comment.
//! Comments go on `#` lines above their key.

use std::convert::Infallible;

use crate::formats::shared::convert::Converter;
use crate::formats::shared::escape::{Specials, clean_comment, escape_into, push_char, push_hex};
use crate::formats::shared::texts::Texts;
use crate::formats::shared::tree::{Leaf, Tree, TreeSink};
use crate::formats::writing::Job;
use crate::formats::{RenderError, RenderOptions};
use crate::model::Selection;
use crate::model::placeholders::Syntax;

/// PyYAML stops looking for a `:` after 1024 characters of an implicit key; longer keys are
/// written in the explicit `? key` form.
const IMPLICIT_KEY_MAX: usize = 1000;

struct Yml<'o> {
    out: &'o mut Vec<u8>,
    comments: bool,
    converter: Converter,
}

impl Yml<'_> {
    fn indent(&mut self, depth: usize) {
        self.out.resize(self.out.len() + 2 * depth, b' ');
    }

    /// Writes `"name":` and leaves the line open.
    fn key(&mut self, name: &str, depth: usize) {
        self.indent(depth);
        let start = self.out.len();
        push_double_quoted(self.out, name);
        if self.out.len() - start > IMPLICIT_KEY_MAX {
            self.out.splice(start..start, *b"? ");
            self.out.push(b'\n');
            self.indent(depth);
        }
        self.out.push(b':');
    }
}

impl TreeSink for Yml<'_> {
    fn open(&mut self, name: &str, depth: usize, _first: bool) -> Result<(), RenderError> {
        self.key(name, depth);
        self.out.push(b'\n');
        Ok(())
    }

    fn leaf(&mut self, leaf: &Leaf<'_>, depth: usize, _first: bool) -> Result<(), RenderError> {
        if self.comments
            && let Some(comment) = &leaf.entry.comment
        {
            for line in clean_comment(comment).split('\n') {
                self.indent(depth);
                self.out.push(b'#');
                if !line.is_empty() {
                    self.out.push(b' ');
                    self.out.extend_from_slice(line.as_bytes());
                }
                self.out.push(b'\n');
            }
        }
        self.key(leaf.name, depth);
        match leaf.plural {
            None => {
                self.out.push(b' ');
                push_double_quoted(self.out, &self.converter.text(leaf.entry, false, leaf.text));
                self.out.push(b'\n');
            }
            // Rails i18n: a map of categories under the key
            Some(plural) => {
                self.out.push(b'\n');
                for (category, text) in plural.forms_in(leaf.locale) {
                    self.key(category.name(), depth + 1);
                    self.out.push(b' ');
                    push_double_quoted(self.out, &self.converter.text(leaf.entry, true, text));
                    self.out.push(b'\n');
                }
            }
        }
        Ok(())
    }

    fn close(&mut self, _depth: usize) -> Result<(), RenderError> {
        Ok(())
    }
}

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    job.tree_body(render, out)
}

pub(crate) fn render(
    tree: &Tree<'_>,
    sel: &Selection,
    texts: Texts<'_>,
    opts: &RenderOptions,
    without_locale: bool,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    let start = out.len();
    let mut sink = Yml {
        out: &mut *out,
        comments: opts.comments,
        converter: Converter::new(opts, Syntax::Rails),
    };
    tree.walk_file(sel, texts, without_locale, &mut sink)?;
    if out.len() == start {
        out.extend_from_slice(b"{}\n");
    }
    Ok(())
}

/// `"`, `\`, every C0 control, DEL, C1 (NEL is a line break in YAML 1.1), U+2028/U+2029
/// (line breaks in YAML 1.1), BOM and the non-characters U+FFFE/U+FFFF.
const SPECIALS: Specials = Specials::new(b"\"\\", true, true);

/// A YAML double-quoted scalar using only the escapes every YAML 1.1 and 1.2 parser knows:
/// `\" \\ \0 \t \n \r`, `\xHH` and `\uHHHH`.
pub(crate) fn push_double_quoted(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let done: Result<(), Infallible> = escape_into(out, s, &SPECIALS, |out, c, _| {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\0' => out.extend_from_slice(b"\\0"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}' => {
                out.extend_from_slice(b"\\x");
                push_hex(out, u32::from(c), 2);
            }
            '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}' => {
                out.extend_from_slice(b"\\u");
                push_hex(out, u32::from(c), 4);
            }
            c => push_char(out, c),
        }
        Ok(())
    });
    let Ok(()) = done;
    out.push(b'"');
}
