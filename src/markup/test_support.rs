//! Test helpers shared by the translation modules: fixture loading and an order-keeping view
//! of a selection as the nested json tree of the contract (the real renderer lives elsewhere).

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};

use crate::markup::convert;
use crate::model::{Document, Selection};

/// A json tree whose objects keep their key order, so that tests check order too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tree {
    Text(String),
    Node(Vec<(String, Tree)>),
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Tree, D::Error> {
        struct TreeVisitor;
        impl<'de> Visitor<'de> for TreeVisitor {
            type Value = Tree;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an object of trees")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Tree, E> {
                Ok(Tree::Text(text.to_owned()))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Tree, M::Error> {
                let mut children = Vec::new();
                while let Some(child) = map.next_entry::<String, Tree>()? {
                    children.push(child);
                }
                Ok(Tree::Node(children))
            }
        }
        deserializer.deserialize_any(TreeVisitor)
    }
}

/// `locale -> SECTION -> ... -> KEY -> text` for what `selection` holds, in its order.
pub fn tree(doc: &Document, selection: &Selection) -> Tree {
    let mut root = Vec::new();
    for chosen in &selection.locales {
        let mut locale = Tree::Node(Vec::new());
        for &index in chosen.entries.iter() {
            let entry = &doc.entries[index];
            let text = entry.texts[chosen.locale]
                .clone()
                .expect("selected entries have a text");
            insert(&mut locale, &entry.path, text);
        }
        root.push((doc.locales[chosen.locale].clone(), locale));
    }
    Tree::Node(root)
}

fn insert(node: &mut Tree, path: &[String], text: String) {
    let Tree::Node(children) = node else {
        panic!("a key is also a section")
    };
    let (name, rest) = path.split_first().expect("paths are never empty");
    if rest.is_empty() {
        children.push((name.clone(), Tree::Text(text)));
        return;
    }
    let position = match children.iter().position(|(n, _)| n == name) {
        Some(position) => position,
        None => {
            children.push((name.clone(), Tree::Node(Vec::new())));
            children.len() - 1
        }
    };
    insert(&mut children[position].1, rest, text);
}

pub fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/sheets/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `values` grid of a `*.sheet.json` fixture.
pub fn sheet_rows(name: &str) -> Vec<Vec<String>> {
    #[derive(Deserialize)]
    struct ValueRange {
        values: Vec<Vec<String>>,
    }
    let range: ValueRange =
        serde_json::from_str(&fixture(&format!("{name}.sheet.json"))).expect("sheet json");
    range.values
}

pub fn document(name: &str) -> Document {
    convert(sheet_rows(name)).expect("fixture sheets convert")
}

/// One `filters` case of a `*.expected.json` fixture.
#[derive(Debug, Deserialize)]
pub struct FilterCase {
    pub filters: Vec<String>,
    pub status: u16,
    pub json: Option<Tree>,
}
