//! json: `{"en_US":{"CORE":{"LABELS":{"YES":"Yes"}}}}`, compact, in sheet order. Written
//! directly (serde_json only escapes the strings) so no intermediate map reorders keys.

use crate::translations::formats::RenderError;
use crate::translations::formats::tree::{Leaf, Tree, TreeSink, WithoutLocale};

struct Json<'o> {
    out: &'o mut Vec<u8>,
}

impl Json<'_> {
    fn key(&mut self, name: &str, first: bool) -> Result<(), RenderError> {
        if !first {
            self.out.push(b',');
        }
        serde_json::to_writer(&mut *self.out, name)?;
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
        serde_json::to_writer(&mut *self.out, leaf.text)?;
        Ok(())
    }

    fn close(&mut self, _depth: usize) -> Result<(), RenderError> {
        self.out.push(b'}');
        Ok(())
    }
}

/// json has no comments, so `comments` is ignored. `without_locale` writes the single
/// locale's tree without its locale key.
pub(super) fn render(
    tree: &Tree<'_>,
    without_locale: bool,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    out.push(b'{');
    let mut sink = Json { out: &mut *out };
    if without_locale {
        tree.walk(&mut WithoutLocale(&mut sink))?;
    } else {
        tree.walk(&mut sink)?;
    }
    out.push(b'}');
    Ok(())
}
