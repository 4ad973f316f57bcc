//! An entry's name cells (SPEC §12.1): the key as the app names it, per format (`@@@<format>`)
//! or for all (`@@@`, the empty key). A handful at most per entry, so a sorted list: a
//! `BTreeMap` gave each of a sheet's 50,000 named entries a node of half a kilobyte.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Names by format key, sorted by key, each key once: serialised as the map a `BTreeMap`
/// made (the same JSON, so stored sheets keep their versions).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Names(Vec<(String, String)>);

impl Names {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&String> {
        self.find(key).ok().map(|at| &self.0[at].1)
    }

    /// Sets `key`'s name; the one it had, if any.
    pub fn insert(&mut self, key: String, name: String) -> Option<String> {
        match self.find(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.0[at].1, name)),
            Err(at) => {
                self.0.insert(at, (key, name));
                None
            }
        }
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn remove(&mut self, key: &str) -> Option<String> {
        self.find(key).ok().map(|at| self.0.remove(at).1)
    }

    /// The format keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }

    /// (format key, name), in the keys' order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.0.iter().map(|(k, n)| (k, n))
    }
}

impl Extend<(String, String)> for Names {
    fn extend<I: IntoIterator<Item = (String, String)>>(&mut self, pairs: I) {
        for (key, name) in pairs {
            self.insert(key, name);
        }
    }
}

impl IntoIterator for Names {
    type Item = (String, String);
    type IntoIter = std::vec::IntoIter<(String, String)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl Serialize for Names {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, name) in &self.0 {
            map.serialize_entry(key, name)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Names {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Names, D::Error> {
        struct NamesVisitor;
        impl<'de> Visitor<'de> for NamesVisitor {
            type Value = Names;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map of format keys to names")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Names, A::Error> {
                let mut names = Names::default();
                while let Some((key, name)) = map.next_entry::<String, String>()? {
                    names.insert(key, name);
                }
                Ok(names)
            }
        }
        deserializer.deserialize_map(NamesVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        /// Whatever is inserted and removed, the names read, list and serialise as a
        /// `BTreeMap` given the same would.
        #[test]
        fn names_behave_as_a_btree_map(
            steps in prop::collection::vec(
                (prop::sample::select(&["", "android", "ios", "po", "résx"][..]), "[a-z.]{0,4}", any::<bool>()),
                0..24,
            ),
        ) {
            let mut names = Names::default();
            let mut map: BTreeMap<String, String> = BTreeMap::new();
            for (key, name, insert) in steps {
                match insert {
                    true => prop_assert_eq!(
                        names.insert(key.to_owned(), name.clone()),
                        map.insert(key.to_owned(), name)
                    ),
                    false => prop_assert_eq!(names.remove(key), map.remove(key)),
                }
                prop_assert_eq!(names.get(key), map.get(key));
            }
            prop_assert_eq!(names.is_empty(), map.is_empty());
            prop_assert!(names.iter().eq(map.iter()));
            let json = serde_json::to_string(&names).unwrap();
            prop_assert_eq!(&json, &serde_json::to_string(&map).unwrap());
            prop_assert_eq!(serde_json::from_str::<Names>(&json).unwrap(), names);
        }
    }
}
