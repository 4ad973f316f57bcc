//! What every format's writer gets (the one shape of `write` in the table of `formats`):
//! the document, the selection, the options, and the views the renders of one document
//! share (`Prepared`) when the caller built them; each writer asks for the view it needs.

use std::borrow::Cow;
use std::ops::Deref;

use super::shared::flatten::{self, Flat, NameStyle};
use super::shared::texts::Texts;
use super::shared::tree::Tree;
use super::{Format, Prepared, RenderError, RenderOptions};
use crate::model::{Document, Selection};

/// A writer of flat names that reports nothing beyond the names' warnings.
pub(crate) type FlatRender = fn(&Flat<'_>, &RenderOptions, &mut Vec<u8>) -> Result<(), RenderError>;
/// A writer of the nested view (the selection, its texts, without the locale level?).
pub(crate) type TreeRender = fn(
    &Tree<'_>,
    &Selection,
    Texts<'_>,
    &RenderOptions,
    bool,
    &mut Vec<u8>,
) -> Result<(), RenderError>;

pub struct Job<'j, 'd> {
    pub doc: &'d Document,
    pub prepared: Option<&'j Prepared<'d>>,
    pub sel: &'j Selection,
    pub opts: &'j RenderOptions,
    /// A file of one locale whose tree is written without the locale level.
    pub without_locale: bool,
    /// The format written: the sheet's name columns name its keys (`Format::name_of`).
    pub format: Format,
}

/// The nested view: the prepared one when it fits the selection, else built for it.
pub(crate) enum TreeView<'j, 'd> {
    Shared(&'j Tree<'d>),
    Own(Tree<'d>),
}

impl<'d> Deref for TreeView<'_, 'd> {
    type Target = Tree<'d>;

    fn deref(&self) -> &Tree<'d> {
        match self {
            TreeView::Shared(tree) => tree,
            TreeView::Own(tree) => tree,
        }
    }
}

impl<'j, 'd> Job<'j, 'd> {
    pub(crate) fn tree(&self) -> TreeView<'j, 'd> {
        match self.prepared.and_then(Prepared::tree) {
            Some(shared) => TreeView::Shared(shared),
            None => TreeView::Own(Tree::build(self.doc, self.sel)),
        }
    }

    /// `tree` of the keys as i18next names them: `levels` is `i18next::write::levels`,
    /// passed in so that this shared module names no format.
    pub(crate) fn i18next_tree(
        &self,
        levels: crate::formats::shared::tree::LevelsOf,
    ) -> TreeView<'j, 'd> {
        match self.prepared.and_then(Prepared::i18next_tree) {
            Some(shared) => TreeView::Shared(shared),
            None => TreeView::Own(Tree::build_with(self.doc, self.sel, levels)),
        }
    }

    pub(crate) fn texts(&self) -> Texts<'j> {
        self.prepared.map_or(Texts::Rows(self.doc), Prepared::texts)
    }

    /// Whether a body of flat names keyed by locale holds several (or `keep_locale`).
    pub(crate) fn keyed(&self) -> bool {
        !self.without_locale && Flat::prefixed(self.sel, self.opts.keep_locale)
    }

    /// Flat names in `style`, prefixed with the locale when the body holds several;
    /// `dotted_paths`: the writer reads each key's dotted path too (xlf ids).
    pub(crate) fn flat(&self, style: NameStyle, dotted_paths: bool) -> Flat<'j> {
        match self.prepared {
            Some(prepared) => {
                let prefixed = Flat::prefixed(self.sel, self.opts.keep_locale);
                let shared = flatten::Shared {
                    names: Cow::Borrowed(prepared.names(style, prefixed, self.format)),
                    texts: prepared.texts(),
                    dotted_paths: dotted_paths.then(|| {
                        prepared
                            .dotted_paths
                            .get_or_init(|| flatten::dotted_paths(prepared.doc))
                    }),
                };
                Flat::with_shared(self.doc, self.sel, style, self.opts.keep_locale, shared)
            }
            None => Flat::build(
                self.doc,
                self.sel,
                style,
                Some(self.format),
                self.opts.keep_locale,
            ),
        }
    }

    /// Flat names in `style` without the locale prefix (xcstrings, arb: the locale is
    /// a level of the body or the file).
    pub(crate) fn flat_unprefixed(&self, style: NameStyle) -> Flat<'j> {
        match self.prepared {
            Some(prepared) => {
                let shared = flatten::Shared {
                    names: Cow::Borrowed(prepared.names(style, false, self.format)),
                    texts: prepared.texts(),
                    dotted_paths: None,
                };
                Flat::with_shared_unprefixed(self.doc, self.sel, style, shared)
            }
            None => Flat::build_unprefixed(self.doc, self.sel, style, Some(self.format)),
        }
    }

    /// A body of flat names in `style` (see `flat`); its warnings are the names'.
    pub(crate) fn flat_body(
        &self,
        style: NameStyle,
        dotted_paths: bool,
        render: FlatRender,
        out: &mut Vec<u8>,
    ) -> Result<Vec<String>, RenderError> {
        let flat = self.flat(style, dotted_paths);
        render(&flat, self.opts, out)?;
        Ok(flat.warnings)
    }

    /// A body of the nested view; its warnings are the tree's.
    pub(crate) fn tree_body(
        &self,
        render: TreeRender,
        out: &mut Vec<u8>,
    ) -> Result<Vec<String>, RenderError> {
        let tree = self.tree();
        render(
            &tree,
            self.sel,
            self.texts(),
            self.opts,
            self.without_locale,
            out,
        )?;
        Ok(tree.warnings.clone())
    }
}
