//! Kept versions: what each stored version changed against the one before it, and the
//! bounded list of them (newest first) that every store keeps beside the documents.
//!
//! The summary is computed once, when a version is stored, from the two documents in
//! memory; listing versions then reads summaries only, never documents.

use crate::model::{Document, Entry, LocaleContent, StoredDocument};
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
        let mut diff = Diff::default();
        walk(
            previous.map(|p| &p.document),
            &stored.document,
            |_, _, change, _| match change {
                Change::Added => diff.added += 1,
                Change::Removed => diff.removed += 1,
                Change::Changed => diff.changed += 1,
            },
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

/// What became of one (locale, key) text from one version to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Added,
    Removed,
    Changed,
}

/// The keys of one locale whose texts a version added, removed and changed (dotted key
/// paths, in sheet order: the new version's keys, then those it no longer has).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LocaleChanges {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
}

/// A kept version as `GET /translations/versions/{version}` answers it: its summary and,
/// per locale (in order), the keys behind its counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionChanges {
    #[serde(flatten)]
    pub summary: VersionSummary,
    /// `None` when the version before it is no longer kept: then only the counts, made
    /// when it was stored, are known.
    pub locales: Option<ChangesByLocale>,
}

/// Locale → its changes, serialised as a JSON object in locale order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangesByLocale(pub Vec<(String, LocaleChanges)>);

impl Serialize for ChangesByLocale {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (locale, changes) in &self.0 {
            map.serialize_entry(locale, changes)?;
        }
        map.end()
    }
}

/// Per locale, the keys whose texts changed from `old` (`None`: before the first version)
/// to `new`: every locale of `new` in its order, then those only `old` had.
pub fn changed_keys(old: Option<&Document>, new: &Document) -> Vec<(String, LocaleChanges)> {
    let (mut locales, at) = per_locale::<LocaleChanges>(old, new);
    walk(old, new, |locale, path, change, _| {
        let Some(&i) = at.get(locale) else { return };
        let changes = &mut locales[i].1;
        let list = match change {
            Change::Added => &mut changes.added,
            Change::Removed => &mut changes.removed,
            Change::Changed => &mut changes.changed,
        };
        list.push(path.join("."));
    });
    locales
}

/// An empty `T` for every locale of `new` in its order, then those only `old` had; and
/// where each locale is in that list.
#[allow(
    clippy::type_complexity,
    reason = "a list and its index, made together"
)]
fn per_locale<T: Default>(
    old: Option<&Document>,
    new: &Document,
) -> (Vec<(String, T)>, HashMap<String, usize>) {
    let mut locales: Vec<(String, T)> = Vec::new();
    let mut at = HashMap::new();
    for locale in new
        .locales
        .iter()
        .chain(old.iter().flat_map(|o| &o.locales))
    {
        if !at.contains_key(locale) {
            at.insert(locale.clone(), locales.len());
            locales.push((locale.clone(), T::default()));
        }
    }
    (locales, at)
}

/// One text a version added, removed or changed: its key and what it said before and
/// after (a plural entry's forms one a line, `one: …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextChange {
    pub key: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// The texts of one kind (added, removed, changed) in one locale: the first ones, up to the
/// limit asked for, and how many there are in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listed {
    pub first: Vec<TextChange>,
    pub total: usize,
}

/// The texts of one locale that a version added, removed and changed, with their words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocaleTexts {
    pub added: Listed,
    pub removed: Listed,
    pub changed: Listed,
}

/// A kept version with the words of what it changed, per locale in order; `None` when the
/// version before it is no longer kept (as `VersionChanges`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionTexts {
    pub summary: VersionSummary,
    pub locales: Option<Vec<(String, LocaleTexts)>>,
}

/// `changed_keys` with the texts before and after, at most `limit` of each kind per locale
/// (a version that rewrote a whole sheet need not copy it): for the console's version page.
pub fn changed_texts(
    old: Option<&Document>,
    new: &Document,
    limit: usize,
) -> Vec<(String, LocaleTexts)> {
    let (mut locales, at) = per_locale::<LocaleTexts>(old, new);
    walk(old, new, |locale, path, change, (before, after)| {
        let Some(&i) = at.get(locale) else { return };
        let texts = &mut locales[i].1;
        let list = match change {
            Change::Added => &mut texts.added,
            Change::Removed => &mut texts.removed,
            Change::Changed => &mut texts.changed,
        };
        list.total += 1;
        if list.first.len() < limit {
            list.first.push(TextChange {
                key: path.join("."),
                before: before.map(spelled),
                after: after.map(spelled),
            });
        }
    });
    locales
}

/// A locale's content as one text: the text, or each plural form on a line of its own
/// after its category.
fn spelled(content: LocaleContent<'_>) -> String {
    match content {
        LocaleContent::Text(text) => text.to_owned(),
        LocaleContent::Plural(forms) => (forms.iter())
            .map(|(category, text)| format!("{}: {text}", category.name()))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// A text's content before and after a change (`None`: none there).
type Texts<'a> = (Option<LocaleContent<'a>>, Option<LocaleContent<'a>>);

/// What `entry` says in the locale at `index`, as the diff compares it: its text, or every
/// form of a plural entry (a changed form is a changed text).
fn text_of(entry: &Entry, index: usize) -> Option<LocaleContent<'_>> {
    entry.locale_content(index)
}

/// Tells `seen` of every (locale, key) text added, removed or changed from `old` (`None`:
/// nothing before) to `new`, with the locale's code, the key's path and the content before
/// and after: first one pass
/// over `new`'s entries, then `old`'s texts that pass did not meet (keys and locales that
/// are gone). Keys are matched by path and locales by code: a column moved in the sheet
/// is no change.
fn walk(
    old: Option<&Document>,
    new: &Document,
    mut seen: impl FnMut(&str, &[String], Change, Texts<'_>),
) {
    let empty = Document::default();
    let old = old.unwrap_or(&empty);
    let old_by_path: HashMap<&[String], &Entry> =
        old.entries.iter().map(|e| (e.path.as_slice(), e)).collect();
    // For each locale of `new`, its column in `old`, if it had one.
    let old_column: Vec<Option<usize>> = new.locales.iter().map(|l| old.locale_index(l)).collect();
    for entry in &new.entries {
        let before = old_by_path.get(entry.path.as_slice());
        for (i, column) in old_column.iter().enumerate() {
            let now = text_of(entry, i);
            let was = before.zip(*column).and_then(|(b, c)| text_of(b, c));
            let change = match (&was, &now) {
                (None, Some(_)) => Change::Added,
                (Some(_), None) => Change::Removed,
                (Some(a), Some(b)) if a != b => Change::Changed,
                _ => continue,
            };
            seen(&new.locales[i], &entry.path, change, (was, now));
        }
    }
    let gone_locale: Vec<bool> = (old.locales.iter())
        .map(|l| new.locale_index(l).is_none())
        .collect();
    let new_paths: std::collections::HashSet<&[String]> =
        new.entries.iter().map(|e| e.path.as_slice()).collect();
    for entry in &old.entries {
        let gone_key = !new_paths.contains(entry.path.as_slice());
        for (c, locale) in old.locales.iter().enumerate() {
            if !(gone_key || gone_locale[c]) {
                continue;
            }
            if let Some(was) = text_of(entry, c) {
                seen(locale, &entry.path, Change::Removed, (Some(was), None));
            }
        }
    }
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
        self.push_protecting(summary, keep, &|_| false)
    }

    /// `push`, keeping past the newest `keep` the versions `protected` names (those a
    /// channel points at or can roll back to, SPEC §14): they stay listed, in their
    /// place, until no channel needs them and a later save prunes them.
    pub fn push_protecting(
        &mut self,
        summary: VersionSummary,
        keep: usize,
        protected: &dyn Fn(&str) -> bool,
    ) -> Vec<String> {
        self.versions.retain(|v| v.version != summary.version);
        self.versions.insert(0, summary);
        let keep = keep.max(1);
        let mut pruned = Vec::new();
        let mut seen = 0;
        self.versions.retain(|v| {
            seen += 1;
            let kept = seen <= keep || protected(&v.version);
            if !kept {
                pruned.push(v.version.clone());
            }
            kept
        });
        pruned
    }

    /// `push_protecting`, unless `summary`'s version is current already (another writer
    /// stored it): then nothing changes and `None` says so.
    pub fn admit(
        &mut self,
        summary: &VersionSummary,
        keep: usize,
        protected: &dyn Fn(&str) -> bool,
    ) -> Option<Vec<String>> {
        if self.current().is_some_and(|c| c.version == summary.version) {
            return None;
        }
        Some(self.push_protecting(summary.clone(), keep, protected))
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
    text.len() == 64 && is_lower_hex(text)
}

fn is_lower_hex(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The fewest characters of a version id that name it (as with git, shorter prefixes would
/// soon name several versions, and a typo another one).
pub const MIN_PREFIX: usize = 8;

/// Why a version a request names cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    #[error(
        "version '{0}' is too short: give the version id or at least {MIN_PREFIX} of its \
         first characters (GET /translations/versions lists the kept versions)"
    )]
    TooShort(String),
    #[error(
        "version '{prefix}' is the start of {count} kept versions: give more of its \
         characters (GET /translations/versions lists them)"
    )]
    Ambiguous { prefix: String, count: usize },
    #[error(
        "version '{0}' is not kept (only the last translations.keep_versions are); \
         GET /translations/versions lists the kept versions"
    )]
    NotKept(String),
    #[error(transparent)]
    Store(#[from] super::store::error::StoreError),
}

impl History {
    /// The id of the kept version that `asked` names: the id itself, or the start of one
    /// (at least `MIN_PREFIX` hex characters, in either case) that no other kept version
    /// starts with.
    pub fn resolve(&self, asked: &str) -> Result<&VersionSummary, VersionError> {
        let shown = || asked.chars().take(80).collect::<String>();
        let prefix = asked.to_ascii_lowercase();
        if !is_lower_hex(&prefix) || prefix.len() > 64 {
            return Err(VersionError::NotKept(shown()));
        }
        if prefix.len() < MIN_PREFIX {
            return Err(VersionError::TooShort(shown()));
        }
        let mut found = self
            .versions
            .iter()
            .filter(|v| v.version.starts_with(&prefix));
        match (found.next(), found.count()) {
            (None, _) => Err(VersionError::NotKept(shown())),
            (Some(one), 0) => Ok(one),
            (Some(_), more) => Err(VersionError::Ambiguous {
                prefix: shown(),
                count: more + 1,
            }),
        }
    }
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

    /// Two versions: pl and en swapped columns (no change), de dropped (2 removed), A.pl
    /// changed, B.pl added, GONE removed (2), NEW added (2).
    fn old_and_new() -> (StoredDocument, StoredDocument) {
        let old = doc(
            &["en", "pl", "de"],
            &[
                ("A", &[Some("a"), Some("pa"), Some("da")]),
                ("B", &[Some("b"), None, Some("db")]),
                ("GONE", &[Some("g"), Some("pg"), None]),
            ],
        );
        let new = doc(
            &["pl", "en"],
            &[
                ("A", &[Some("pa!"), Some("a")]),
                ("B", &[Some("pb"), Some("b")]),
                ("NEW", &[Some("pn"), Some("n")]),
            ],
        );
        (old, new)
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
        let (old, new) = old_and_new();
        let summary = VersionSummary::between(Some(&old), &new);
        assert_eq!(
            summary.previous_version.as_deref(),
            Some(old.version.as_str())
        );
        assert_eq!((summary.added, summary.removed, summary.changed), (3, 4, 1));
    }

    #[test]
    fn a_changed_plural_form_is_a_changed_text() {
        use crate::model::{Plural, PluralCategory, PluralForm};
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
        // its words before and after: every form, one a line
        let texts = changed_texts(Some(&old.document), &new.document, 10);
        assert_eq!(
            texts[0].1.changed.first,
            [TextChange {
                key: "ITEMS".into(),
                before: Some("one: {count} item\nother: {count} items".into()),
                after: Some("one: {count} item\nother: {count} things".into()),
            }]
        );
    }

    #[test]
    fn changed_texts_say_what_each_text_was_and_became_up_to_a_limit() {
        let (old, new) = old_and_new();
        let change = |key: &str, before: Option<&str>, after: Option<&str>| TextChange {
            key: key.into(),
            before: before.map(str::to_owned),
            after: after.map(str::to_owned),
        };
        let texts = changed_texts(Some(&old.document), &new.document, 1);
        let locales: Vec<&str> = texts.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(locales, ["pl", "en", "de"]);
        let pl = &texts[0].1;
        assert_eq!(pl.changed.first, [change("A", Some("pa"), Some("pa!"))]);
        assert_eq!(pl.removed.first, [change("GONE", Some("pg"), None)]);
        // two added, the first listed
        assert_eq!(pl.added.first, [change("B", None, Some("pb"))]);
        assert_eq!(pl.added.total, 2);
        // a locale that is gone: each of its texts removed, with its words
        let de = &texts[2].1;
        assert_eq!(de.removed.first, [change("A", Some("da"), None)]);
        assert_eq!(de.removed.total, 2);
        // the same keys and counts as changed_keys
        let keys = changed_keys(Some(&old.document), &new.document);
        for ((locale, k), (_, t)) in keys.iter().zip(&texts) {
            assert_eq!(k.added.len(), t.added.total, "{locale}");
            assert_eq!(k.removed.len(), t.removed.total, "{locale}");
            assert_eq!(k.changed.len(), t.changed.total, "{locale}");
        }
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
        // versions a channel needs stay, in their place, past the newest `keep`
        for v in ["f", "g", "h"] {
            history.push(summary(v), 5);
        }
        let pinned = |v: &str| v == "f" || v == "e";
        assert_eq!(
            history.push_protecting(summary("i"), 2, &pinned),
            vec!["g".to_owned()]
        );
        let order: Vec<_> = history
            .versions
            .iter()
            .map(|v| v.version.as_str())
            .collect();
        assert_eq!(order, ["i", "h", "f", "e"]);
        assert_eq!(
            history.push_protecting(summary("j"), 2, &|_| false),
            vec!["h".to_owned(), "f".to_owned(), "e".to_owned()]
        );
    }

    #[test]
    fn keys_are_listed_per_locale_as_added_removed_and_changed() {
        let (old, new) = old_and_new();
        let changes = changed_keys(Some(&old.document), &new.document);
        let keys = |v: &[&str]| v.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        assert_eq!(
            changes,
            [
                (
                    "pl".to_owned(),
                    LocaleChanges {
                        added: keys(&["B", "NEW"]),
                        removed: keys(&["GONE"]),
                        changed: keys(&["A"]),
                    }
                ),
                (
                    "en".to_owned(),
                    LocaleChanges {
                        added: keys(&["NEW"]),
                        removed: keys(&["GONE"]),
                        changed: vec![],
                    }
                ),
                (
                    "de".to_owned(),
                    LocaleChanges {
                        removed: keys(&["A", "B"]),
                        ..LocaleChanges::default()
                    }
                ),
            ]
        );
        // the counts of the summary are the lengths of these lists
        let summary = VersionSummary::between(Some(&old), &new);
        let total =
            |f: fn(&LocaleChanges) -> usize| changes.iter().map(|(_, c)| f(c)).sum::<usize>();
        assert_eq!(summary.added, total(|c| c.added.len()));
        assert_eq!(summary.removed, total(|c| c.removed.len()));
        assert_eq!(summary.changed, total(|c| c.changed.len()));
        // the first version adds everything
        let first = changed_keys(None, &old.document);
        assert_eq!(first[2].1.added, keys(&["A", "B"]));
    }

    #[test]
    fn a_version_is_named_by_its_id_or_a_unique_prefix_of_eight() {
        let summary = |v: String| VersionSummary {
            version: v,
            previous_version: None,
            updated_at: Utc::now(),
            key_counts: KeyCounts::default(),
            added: 0,
            removed: 0,
            changed: 0,
        };
        let ids = [
            format!("abcdef01{}", "0".repeat(56)),
            format!("abcdef01{}", "1".repeat(56)),
            format!("12345678{}", "2".repeat(56)),
        ];
        let history = History {
            versions: ids.iter().cloned().map(summary).collect(),
        };
        let found = |asked: &str| history.resolve(asked).map(|v| v.version.clone());
        assert_eq!(found(&ids[2]).unwrap(), ids[2]);
        assert_eq!(found("12345678").unwrap(), ids[2]);
        assert_eq!(found("ABCDEF011").unwrap(), ids[1]);
        let error = |asked: &str| found(asked).unwrap_err();
        assert!(matches!(
            error("abcdef01"),
            VersionError::Ambiguous { count: 2, .. }
        ));
        assert!(
            error("abcdef01")
                .to_string()
                .contains("is the start of 2 kept versions")
        );
        assert!(matches!(error("1234567"), VersionError::TooShort(_)));
        assert!(matches!(error("deadbeef"), VersionError::NotKept(_)));
        assert!(matches!(
            error("../../etc/passwd"),
            VersionError::NotKept(_)
        ));
        assert!(matches!(error(&"a".repeat(65)), VersionError::NotKept(_)));
    }

    #[test]
    fn only_hex_sha256_ids_are_version_ids() {
        assert!(is_version_id(&"a1".repeat(32)));
        assert!(!is_version_id(&"A1".repeat(32)));
        assert!(!is_version_id("../../etc/passwd"));
        assert!(!is_version_id(&"a".repeat(63)));
    }
}
