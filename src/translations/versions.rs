//! Kept versions: what each stored version changed against the one before it, and the
//! bounded list of them (newest first) that every store keeps beside the documents.
//!
//! The summary is computed once, when a version is stored, from the two documents in
//! memory; listing versions then reads summaries only, never documents.

use super::model::{Document, Entry, LocaleContent, StoredDocument};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One kept version as `GET /translations/versions` and the webhooks describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionSummary {
    pub version: String,
    /// The version that was current when this one was stored; `None` for the first.
    pub previous_version: Option<String>,
    #[serde(with = "crate::time::millis")]
    pub updated_at: DateTime<Utc>,
    /// Non-empty texts per locale, in the document's locale order.
    pub key_counts: KeyCounts,
    /// (locale, key) texts present now and not in the previous version.
    pub added: usize,
    /// (locale, key) texts of the previous version that are gone.
    pub removed: usize,
    /// (locale, key) texts present in both with a different text.
    pub changed: usize,
}

/// Locale → count, serialised as a JSON object in locale order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyCounts(pub Vec<(String, usize)>);

impl Serialize for KeyCounts {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (locale, count) in &self.0 {
            map.serialize_entry(locale, count)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for KeyCounts {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = KeyCounts;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of locale to count")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<KeyCounts, A::Error> {
                let mut counts = Vec::new();
                while let Some(entry) = map.next_entry::<String, usize>()? {
                    counts.push(entry);
                }
                Ok(KeyCounts(counts))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

impl VersionSummary {
    /// What `stored` changed against `previous` (the version current before it).
    pub fn between(previous: Option<&StoredDocument>, stored: &StoredDocument) -> VersionSummary {
        let diff = previous.map_or_else(
            || Diff {
                added: count_texts(&stored.document),
                ..Diff::default()
            },
            |previous| diff(&previous.document, &stored.document),
        );
        VersionSummary {
            version: stored.version.clone(),
            previous_version: previous.map(|p| p.version.clone()),
            updated_at: stored.updated_at,
            key_counts: KeyCounts(stored.document.key_counts()),
            added: diff.added,
            removed: diff.removed,
            changed: diff.changed,
        }
    }
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Diff {
    added: usize,
    removed: usize,
    changed: usize,
}

/// What `entry` says in the locale at `index`, as the diff compares it: its text, or every
/// form of a plural entry (a changed form is a changed text).
fn text_of(entry: &Entry, index: usize) -> Option<LocaleContent<'_>> {
    entry.locale_content(index)
}

fn count_texts(document: &Document) -> usize {
    document
        .entries
        .iter()
        .map(|e| {
            (0..document.locales.len())
                .filter(|&i| text_of(e, i).is_some())
                .count()
        })
        .sum()
}

/// Counts (locale, key) texts added, removed and changed from `old` to `new`: one pass
/// over each document's entries, keys matched by path and locales by code (a column
/// moved in the sheet is no change).
fn diff(old: &Document, new: &Document) -> Diff {
    let old_by_path: HashMap<&[String], &Entry> =
        old.entries.iter().map(|e| (e.path.as_slice(), e)).collect();
    // For each locale of `new`, its column in `old`, if it had one.
    let old_column: Vec<Option<usize>> = new.locales.iter().map(|l| old.locale_index(l)).collect();
    let mut diff = Diff::default();
    let mut old_seen = 0usize;
    for entry in &new.entries {
        let before = old_by_path.get(entry.path.as_slice());
        for (i, column) in old_column.iter().enumerate() {
            let now = text_of(entry, i);
            let was = before.zip(*column).and_then(|(b, c)| text_of(b, c));
            if was.is_some() {
                old_seen += 1;
            }
            match (was, now) {
                (None, Some(_)) => diff.added += 1,
                (Some(_), None) => diff.removed += 1,
                (Some(a), Some(b)) if a != b => diff.changed += 1,
                _ => {}
            }
        }
    }
    // Whatever the old document held that the pass above did not meet (keys and locales
    // that are gone) was removed.
    diff.removed += count_texts(old) - old_seen;
    diff
}

/// The kept versions, newest (the current one) first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    pub versions: Vec<VersionSummary>,
}

impl History {
    /// Puts `summary` first (a version stored again moves up rather than appearing twice)
    /// and keeps at most `keep`; returns the versions that fell out, whose documents the
    /// store deletes.
    pub fn push(&mut self, summary: VersionSummary, keep: usize) -> Vec<String> {
        self.versions.retain(|v| v.version != summary.version);
        self.versions.insert(0, summary);
        let keep = keep.max(1);
        if self.versions.len() <= keep {
            return Vec::new();
        }
        self.versions
            .split_off(keep)
            .into_iter()
            .map(|v| v.version)
            .collect()
    }

    /// `push`, unless `summary`'s version is current already (another writer stored it):
    /// then nothing changes and `None` says so.
    pub fn admit(&mut self, summary: &VersionSummary, keep: usize) -> Option<Vec<String>> {
        if self.current().is_some_and(|c| c.version == summary.version) {
            return None;
        }
        Some(self.push(summary.clone(), keep))
    }

    pub fn current(&self) -> Option<&VersionSummary> {
        self.versions.first()
    }

    pub fn contains(&self, version: &str) -> bool {
        self.versions.iter().any(|v| v.version == version)
    }
}

/// Whether `text` can be a version id (a hex SHA-256), so that no other text reaches a
/// store's key space or a file name.
pub fn is_version_id(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(locales: &[&str], rows: &[(&str, &[Option<&str>])]) -> StoredDocument {
        StoredDocument::new(Document {
            locales: locales.iter().map(|l| (*l).to_owned()).collect(),
            entries: rows
                .iter()
                .map(|(key, texts)| Entry {
                    path: key.split('.').map(str::to_owned).collect(),
                    texts: texts.iter().map(|t| t.map(str::to_owned)).collect(),
                    ..Entry::default()
                })
                .collect(),
            ..Document::default()
        })
        .unwrap()
    }

    #[test]
    fn the_first_version_adds_every_text() {
        let first = doc(
            &["en", "pl"],
            &[("A.B", &[Some("b"), Some("bb")]), ("C", &[Some("c"), None])],
        );
        let summary = VersionSummary::between(None, &first);
        assert_eq!((summary.added, summary.removed, summary.changed), (3, 0, 0));
        assert_eq!(summary.previous_version, None);
        assert_eq!(
            serde_json::to_value(&summary.key_counts).unwrap(),
            serde_json::json!({"en": 2, "pl": 1})
        );
    }

    #[test]
    fn texts_are_compared_by_key_and_locale_code() {
        let old = doc(
            &["en", "pl", "de"],
            &[
                ("A", &[Some("a"), Some("pa"), Some("da")]),
                ("B", &[Some("b"), None, Some("db")]),
                ("GONE", &[Some("g"), Some("pg"), None]),
            ],
        );
        // pl and en swapped columns (no change), de dropped (2 removed), A.pl changed,
        // B.pl added, GONE removed (2), NEW added (2).
        let new = doc(
            &["pl", "en"],
            &[
                ("A", &[Some("pa!"), Some("a")]),
                ("B", &[Some("pb"), Some("b")]),
                ("NEW", &[Some("pn"), Some("n")]),
            ],
        );
        let summary = VersionSummary::between(Some(&old), &new);
        assert_eq!(
            summary.previous_version.as_deref(),
            Some(old.version.as_str())
        );
        assert_eq!((summary.added, summary.removed, summary.changed), (3, 4, 1));
    }

    #[test]
    fn a_changed_plural_form_is_a_changed_text() {
        use crate::translations::model::{Plural, PluralCategory, PluralForm};
        let plural = |other: &str| {
            let mut stored = doc(&["en"], &[("ITEMS", &[Some(other)])]);
            stored.document.entries[0].plural = Some(Box::new(Plural {
                forms: vec![
                    PluralForm {
                        category: PluralCategory::One,
                        texts: vec![Some("{count} item".into())],
                    },
                    PluralForm {
                        category: PluralCategory::Other,
                        texts: vec![Some(other.into())],
                    },
                ],
            }));
            stored
        };
        let (old, new) = (plural("{count} items"), plural("{count} things"));
        let summary = VersionSummary::between(Some(&old), &new);
        assert_eq!((summary.added, summary.removed, summary.changed), (0, 0, 1));
        let same = VersionSummary::between(Some(&old), &plural("{count} items"));
        assert_eq!((same.added, same.removed, same.changed), (0, 0, 0));
    }

    #[test]
    fn history_keeps_the_newest_and_moves_a_repeated_version_up() {
        let summary = |v: &str| VersionSummary {
            version: v.into(),
            previous_version: None,
            updated_at: Utc::now(),
            key_counts: KeyCounts::default(),
            added: 0,
            removed: 0,
            changed: 0,
        };
        let mut history = History::default();
        assert!(history.push(summary("a"), 3).is_empty());
        assert!(history.push(summary("b"), 3).is_empty());
        assert!(history.push(summary("c"), 3).is_empty());
        assert_eq!(history.push(summary("d"), 3), vec!["a".to_owned()]);
        assert_eq!(history.push(summary("b"), 3), Vec::<String>::new());
        let order: Vec<_> = history
            .versions
            .iter()
            .map(|v| v.version.as_str())
            .collect();
        assert_eq!(order, ["b", "d", "c"]);
        assert_eq!(
            history.push(summary("e"), 1),
            vec!["b".to_owned(), "d".to_owned(), "c".to_owned()]
        );
    }

    #[test]
    fn only_hex_sha256_ids_are_version_ids() {
        assert!(is_version_id(&"a1".repeat(32)));
        assert!(!is_version_id(&"A1".repeat(32)));
        assert!(!is_version_id("../../etc/passwd"));
        assert!(!is_version_id(&"a".repeat(63)));
    }
}
