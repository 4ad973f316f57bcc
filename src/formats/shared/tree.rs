//! The nested view `locale -> SECTION -> ... -> KEY -> text` for json and yml, built over
//! the selected entries (or over all of them, once, for many renders: `build_all`):
//! sections in order of first appearance, a key that would also be a section (or a
//! repeated path) reported and left out, the first one kept. A key's levels are its path,
//! or what a format names it (`LevelsOf`: i18next's names, SPEC §12.1), read in place.

use rustc_hash::FxHashMap;

use crate::formats::shared::arena::StrArena;
use crate::formats::shared::texts::{Forms, Texts};
use crate::formats::{RenderError, shared::ahead};
use crate::model::{Document, Entry, Selection};

const NONE: usize = usize::MAX;
const ROOT: usize = 0;

struct Node {
    parent: usize,
    first_child: usize,
    last_child: usize,
    next_sibling: usize,
    /// The entry of a key node; `NONE` for a section.
    entry: usize,
}

/// A leaf as the sinks see it.
pub(crate) struct Leaf<'a> {
    pub(crate) name: &'a str,
    pub(crate) entry: &'a Entry,
    pub(crate) text: &'a str,
    /// Index in `Document::locales`, for the forms of a plural entry.
    pub(crate) locale: usize,
    /// The forms of a plural entry (read through `Texts::plural`, not `entry`).
    pub(crate) plural: Option<Forms<'a>>,
}

/// Forwards a walk without its locale level, for a file that holds one locale's tree.
/// Only meaningful when the tree holds a single locale.
struct WithoutLocale<'s, S>(&'s mut S);

impl<S: TreeSink> TreeSink for WithoutLocale<'_, S> {
    fn open(&mut self, name: &str, depth: usize, first: bool) -> Result<(), RenderError> {
        match depth {
            0 => Ok(()),
            d => self.0.open(name, d - 1, first),
        }
    }

    fn leaf(&mut self, leaf: &Leaf<'_>, depth: usize, first: bool) -> Result<(), RenderError> {
        self.0.leaf(leaf, depth.saturating_sub(1), first)
    }

    fn close(&mut self, depth: usize) -> Result<(), RenderError> {
        match depth {
            0 => Ok(()),
            d => self.0.close(d - 1),
        }
    }
}

/// What json and yml write for each step of the walk. `depth` is 0 for locales.
pub(crate) trait TreeSink {
    fn open(&mut self, name: &str, depth: usize, first: bool) -> Result<(), RenderError>;
    fn leaf(&mut self, leaf: &Leaf<'_>, depth: usize, first: bool) -> Result<(), RenderError>;
    fn close(&mut self, depth: usize) -> Result<(), RenderError>;
}

/// A key's levels as a tree places it: the sections, then the key's own name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Levels<'a> {
    pub(crate) sections: &'a [String],
    pub(crate) key: &'a str,
}

impl Levels<'_> {
    /// The levels joined with `.` (for messages).
    pub(crate) fn dotted(&self) -> String {
        let mut dotted = self.sections.join(".");
        if !self.sections.is_empty() {
            dotted.push('.');
        }
        dotted.push_str(self.key);
        dotted
    }
}

/// Where a tree reads an entry's levels: `sheet_levels`, or a format's own names of the
/// keys, borrowed from the entry (no document is copied to rename its keys). `None`: the
/// entry has no key (an empty path) and is not in the tree.
pub(crate) type LevelsOf = for<'x> fn(&'x Document, &'x Entry) -> Option<Levels<'x>>;

/// The entry's key path as the sheet has it.
pub(crate) fn sheet_levels<'x>(_: &'x Document, entry: &'x Entry) -> Option<Levels<'x>> {
    let (key, sections) = entry.path.split_last()?;
    Some(Levels { sections, key })
}

pub(crate) struct Tree<'a> {
    doc: &'a Document,
    /// Where each entry's levels come from.
    levels: LevelsOf,
    nodes: Vec<Node>,
    /// Node `n`'s name at `n`, side by side for the walks (see `arena`).
    names: StrArena,
    /// The key node of each entry, `NONE` where the entry is not in the tree.
    leaf_of: Vec<usize>,
    /// A section came back after other keys (e.g. `A.X`, `B.Y`, `A.Z`), so a subset of
    /// the keys may order sections differently.
    reopened: bool,
    pub(crate) warnings: Vec<String>,
}

impl<'a> Tree<'a> {
    /// The tree of the entries `sel` selects, in any of its locales.
    pub(crate) fn build(doc: &'a Document, sel: &Selection) -> Tree<'a> {
        Tree::build_with(doc, sel, sheet_levels)
    }

    /// The tree of every entry of `doc`. It can stand in for the tree of any selection
    /// when `fits_every_selection`.
    pub(crate) fn build_all(doc: &'a Document) -> Tree<'a> {
        Tree::build_all_with(doc, sheet_levels)
    }

    /// `build` with each entry's levels read by `levels`.
    pub(crate) fn build_with(doc: &'a Document, sel: &Selection, levels: LevelsOf) -> Tree<'a> {
        let wanted = sel.entries_in_any_locale(doc.entries.len());
        Tree::build_over(doc, levels, |e| wanted[e])
    }

    /// `build_all` with each entry's levels read by `levels`.
    pub(crate) fn build_all_with(doc: &'a Document, levels: LevelsOf) -> Tree<'a> {
        Tree::build_over(doc, levels, |_| true)
    }

    /// Whether walking this tree for a selection gives what the tree built for that
    /// selection gives: true when it has no conflicts (a subset has none either) and no
    /// section comes back (so sections of a subset appear in the same order).
    pub(crate) fn fits_every_selection(&self) -> bool {
        self.warnings.is_empty() && !self.reopened
    }

    fn build_over(doc: &'a Document, levels: LevelsOf, wanted: impl Fn(usize) -> bool) -> Tree<'a> {
        let keys = doc.entries.len();
        let mut tree = Tree {
            doc,
            levels,
            nodes: Vec::with_capacity(keys + keys / 4 + 1),
            names: StrArena::with_capacity(keys + keys / 4 + 1, 0),
            leaf_of: vec![NONE; doc.entries.len()],
            reopened: false,
            warnings: Vec::new(),
        };
        tree.names.push(Some(""));
        tree.nodes.push(Node {
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            entry: NONE,
        });
        let mut children: FxHashMap<(usize, &'a str), usize> =
            FxHashMap::with_capacity_and_hasher(keys + keys / 4, Default::default());
        // Consecutive keys usually share their sections: reuse the previous chain of
        // section nodes and only look names up from the first difference on.
        let mut prev_path: &[String] = &[];
        let mut prev_chain: Vec<usize> = Vec::new();
        let mut chain: Vec<usize> = Vec::new();
        for (e, entry) in doc.entries.iter().enumerate() {
            ahead::path(doc, |k| Some(e + k).filter(|&e| e < keys && wanted(e)));
            if !wanted(e) {
                continue;
            }
            let Some(Levels { sections, key }) = levels(doc, entry) else {
                continue;
            };
            let shared = sections
                .iter()
                .zip(prev_path.iter())
                .take_while(|(a, b)| a == b)
                .count()
                .min(prev_chain.len());
            chain.clear();
            chain.extend_from_slice(&prev_chain[..shared]);
            let mut parent = chain.last().copied().unwrap_or(ROOT);
            let mut blocked = None;
            for (depth, name) in sections.iter().enumerate().skip(shared) {
                let node = match children.get(&(parent, name.as_str())) {
                    Some(&node) => {
                        // Below the sections shared with the previous key, a section
                        // that exists already was left before.
                        tree.reopened = true;
                        node
                    }
                    None => tree.add(&mut children, parent, name, NONE),
                };
                if tree.nodes[node].entry != NONE {
                    blocked = Some((tree.nodes[node].entry, depth));
                    break;
                }
                chain.push(node);
                parent = node;
            }
            if let Some((other, _)) = blocked {
                tree.warn_conflict(other, e);
                continue;
            }
            match children.get(&(parent, key)) {
                Some(&node) => {
                    let other = tree.nodes[node].entry;
                    let other = if other == NONE {
                        tree.first_key_under(node)
                    } else {
                        other
                    };
                    tree.warn_conflict(other, e);
                }
                None => {
                    let node = tree.add(&mut children, parent, key, e);
                    tree.leaf_of[e] = node;
                }
            }
            prev_path = sections;
            std::mem::swap(&mut prev_chain, &mut chain);
        }
        tree
    }

    fn add(
        &mut self,
        children: &mut FxHashMap<(usize, &'a str), usize>,
        parent: usize,
        name: &'a str,
        entry: usize,
    ) -> usize {
        let node = self.nodes.len();
        self.names.push(Some(name));
        self.nodes.push(Node {
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            entry,
        });
        let p = &mut self.nodes[parent];
        if p.last_child == NONE {
            p.first_child = node;
        } else {
            let last = p.last_child;
            self.nodes[last].next_sibling = node;
        }
        self.nodes[parent].last_child = node;
        children.insert((parent, name), node);
        node
    }

    /// Any key inside section `node`: names the other side of a key/section conflict.
    fn first_key_under(&self, mut node: usize) -> usize {
        while self.nodes[node].entry == NONE && self.nodes[node].first_child != NONE {
            node = self.nodes[node].first_child;
        }
        self.nodes[node].entry
    }

    fn warn_conflict(&mut self, kept: usize, lost: usize) {
        let path = |e: usize| {
            (self.doc.entries.get(e))
                .and_then(|entry| (self.levels)(self.doc, entry))
                .map(|levels| levels.dotted())
                .unwrap_or_default()
        };
        let (kept, lost) = (path(kept), path(lost));
        let message = if kept == lost {
            format!("key '{lost}' appears twice; kept the first")
        } else {
            format!(
                "key '{lost}' clashes with key '{kept}' (a key cannot also be a section); kept '{kept}', left out '{lost}'"
            )
        };
        self.warnings.push(message);
    }

    /// `walk`, without the locale level when `without_locale` (a file of one locale's
    /// tree: `WithoutLocale`).
    pub(crate) fn walk_file(
        &self,
        sel: &Selection,
        texts: Texts<'_>,
        without_locale: bool,
        sink: &mut impl TreeSink,
    ) -> Result<(), RenderError> {
        match without_locale {
            true => self.walk(sel, texts, &mut WithoutLocale(sink)),
            false => self.walk(sel, texts, sink),
        }
    }

    /// Walks every selected locale in selection order, and within it the sections and keys
    /// that have a text there, in tree order.
    pub(crate) fn walk(
        &self,
        sel: &Selection,
        texts: Texts<'_>,
        sink: &mut impl TreeSink,
    ) -> Result<(), RenderError> {
        // live[node] == stamp: the node has a key selected in the current locale, whose
        // text is kept in text[node] so the walk does not chase the entry again
        let mut live = vec![usize::MAX; self.nodes.len()];
        let mut text: Vec<&str> = vec![""; self.nodes.len()];
        let mut first_locale = true;
        for (stamp, ls) in sel.locales.iter().enumerate() {
            let mut any = false;
            for (i, &e) in ls.entries.iter().enumerate() {
                texts.read_slots_ahead(ls.locale, |k| ls.entries.get(i + k).copied());
                let mut node = self.leaf_of[e];
                let Some(leaf_text) = texts.get(e, ls.locale) else {
                    continue;
                };
                if node == NONE {
                    continue;
                }
                text[node] = leaf_text;
                any = true;
                while node != ROOT && live[node] != stamp {
                    live[node] = stamp;
                    node = self.nodes[node].parent;
                }
            }
            if !any {
                continue;
            }
            sink.open(&self.doc.locales[ls.locale], 0, first_locale)?;
            first_locale = false;
            self.walk_children(stamp, ls.locale, texts, &live, &text, sink)?;
            sink.close(0)?;
        }
        Ok(())
    }

    /// The sections and keys below the root that are live for `stamp`, depth first, with
    /// an explicit stack rather than recursion: a stored document deeper than the sheet
    /// conversion allows must still not overflow the thread's stack.
    fn walk_children(
        &self,
        stamp: usize,
        locale: usize,
        texts: Texts<'_>,
        live: &[usize],
        text: &[&str],
        sink: &mut impl TreeSink,
    ) -> Result<(), RenderError> {
        // Per open level: the next child to look at, the depth of the children, and
        // whether none of them was written yet.
        let mut stack = vec![(self.nodes[ROOT].first_child, 1usize, true)];
        while let Some(top) = stack.last_mut() {
            let (child, depth) = (top.0, top.1);
            if child == NONE {
                stack.pop();
                if depth > 1 {
                    sink.close(depth - 1)?;
                }
                continue;
            }
            let node = &self.nodes[child];
            // Nodes are numbered in the order they were added, which is about the order
            // the walk meets them: the nodes after this one are the leaves to come.
            texts.read_ahead(locale, |k| {
                let node = self.nodes.get(child + k)?;
                (node.entry != NONE && live[child + k] == stamp).then_some(node.entry)
            });
            top.0 = node.next_sibling;
            if live[child] != stamp {
                continue;
            }
            let first = std::mem::replace(&mut top.2, false);
            let name = self.names.get(child).unwrap_or_default();
            if node.entry == NONE {
                sink.open(name, depth, first)?;
                stack.push((node.first_child, depth + 1, true));
            } else {
                let leaf = Leaf {
                    name,
                    entry: &self.doc.entries[node.entry],
                    text: text[child],
                    locale,
                    plural: texts.plural(node.entry),
                };
                sink.leaf(&leaf, depth, first)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes the walk as `name{...}` / `name=text` to check structure and order.
    struct Trace(String);

    impl TreeSink for Trace {
        fn open(&mut self, name: &str, _: usize, first: bool) -> Result<(), RenderError> {
            if !first {
                self.0.push(' ');
            }
            self.0.push_str(name);
            self.0.push('{');
            Ok(())
        }
        fn leaf(&mut self, leaf: &Leaf<'_>, _: usize, first: bool) -> Result<(), RenderError> {
            if !first {
                self.0.push(' ');
            }
            self.0.push_str(&format!("{}={}", leaf.name, leaf.text));
            Ok(())
        }
        fn close(&mut self, _: usize) -> Result<(), RenderError> {
            self.0.push('}');
            Ok(())
        }
    }

    fn doc(rows: &[(&str, Option<&str>, Option<&str>)]) -> Document {
        Document {
            settings: Default::default(),
            namespaces: Vec::new(),
            findings: Vec::new(),
            locales: vec!["en".into(), "pl".into()],
            entries: rows
                .iter()
                .map(|(path, en, pl)| Entry {
                    path: path.split('.').map(str::to_owned).collect(),
                    texts: vec![en.map(str::to_owned), pl.map(str::to_owned)],
                    ..Entry::default()
                })
                .collect(),
            warnings: Vec::new(),
        }
    }

    fn trace(d: &Document) -> (String, Vec<String>) {
        let sel = Selection::all(d);
        let tree = Tree::build(d, &sel);
        let mut sink = Trace(String::new());
        tree.walk(&sel, Texts::Rows(d), &mut sink).unwrap();
        (sink.0, tree.warnings)
    }

    #[test]
    fn sections_keep_first_appearance_order_and_empty_ones_vanish() {
        let d = doc(&[
            ("A.X", Some("1"), None),
            ("B.Y", Some("2"), Some("3")),
            ("A.Z", None, Some("4")),
            ("C", Some("5"), None),
        ]);
        let (walk, warnings) = trace(&d);
        assert_eq!(walk, "en{A{X=1} B{Y=2} C=5} pl{A{Z=4} B{Y=3}}");
        assert!(warnings.is_empty());
    }

    #[test]
    fn key_that_is_also_a_section_keeps_the_first() {
        let d = doc(&[
            ("A.B", Some("key"), None),
            ("A.B.C", Some("under"), None),
            ("D.E", Some("under"), None),
            ("D", Some("key"), None),
            ("F", Some("1"), None),
            ("F", Some("2"), None),
        ]);
        let (walk, warnings) = trace(&d);
        assert_eq!(walk, "en{A{B=key} D{E=under} F=1}");
        assert_eq!(
            warnings,
            [
                "key 'A.B.C' clashes with key 'A.B' (a key cannot also be a section); kept 'A.B', left out 'A.B.C'",
                "key 'D' clashes with key 'D.E' (a key cannot also be a section); kept 'D.E', left out 'D'",
                "key 'F' appears twice; kept the first",
            ]
        );
    }
}
