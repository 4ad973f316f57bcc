//! A JSON value that keeps object keys in document order, for tests that compare bodies
//! key order included. Shared by the unit tests of `src/translations/formats` and the
//! HTTP tests, each of which uses a part of it.
#![allow(
    dead_code,
    reason = "each test crate uses only some of the shared helpers"
)]

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// A JSON value that keeps object keys in document order (serde_json's map sorts them
/// without `preserve_order`), so bodies can be compared key order included.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    Text(String),
    List(Vec<Json>),
    Map(Vec<(String, Json)>),
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Json, E> {
                serde_json::Number::from_f64(v)
                    .map(Json::Number)
                    .ok_or_else(|| E::custom("not a JSON number"))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::Text(v.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Json, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = s.next_element()? {
                    out.push(v);
                }
                Ok(Json::List(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Json, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = m.next_entry::<String, Json>()? {
                    out.push(entry);
                }
                Ok(Json::Map(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::Text(t) => s.serialize_str(t),
            Json::List(items) => items.serialize(s),
            Json::Map(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl Json {
    pub fn parse(text: &str) -> Json {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }

    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Map(m) => m
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .unwrap_or_else(|| panic!("no key {key:?}")),
            other => panic!("{other:?} is not an object"),
        }
    }

    pub fn list(&self) -> &[Json] {
        match self {
            Json::List(items) => items,
            other => panic!("{other:?} is not a list"),
        }
    }

    pub fn text(&self) -> &str {
        match self {
            Json::Text(t) => t,
            other => panic!("{other:?} is not a string"),
        }
    }

    pub fn keys(&self) -> Vec<&str> {
        match self {
            Json::Map(m) => m.iter().map(|(k, _)| k.as_str()).collect(),
            other => panic!("{other:?} is not an object"),
        }
    }

    /// The compact text, keys in order: what the json format must send.
    pub fn compact(&self) -> String {
        serde_json::to_string(self).expect("serialisable")
    }

    /// `(path, text)` of every string leaf, in document order.
    pub fn leaves(&self) -> Vec<(Vec<String>, String)> {
        fn walk(n: &Json, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
            match n {
                Json::Text(t) => out.push((path.clone(), t.clone())),
                Json::Map(m) => {
                    for (k, v) in m {
                        path.push(k.clone());
                        walk(v, path, out);
                        path.pop();
                    }
                }
                other => panic!("unexpected {other:?} at {path:?}"),
            }
        }
        let mut out = Vec::new();
        walk(self, &mut Vec::new(), &mut out);
        out
    }

    /// The same object with only `keys`, in their order here.
    pub fn only(&self, keys: &[&str]) -> Json {
        Json::Map(
            keys.iter()
                .map(|k| ((*k).to_owned(), self.get(k).clone()))
                .collect(),
        )
    }
}
