//! The nested formats (json, yml, i18next) as one tree walk: maps are levels, strings are
//! texts. A file whose name gives a locale may still hold it as its one top-level key
//! (Rails' `pl:`); a file without one whose top-level keys are all locale codes holds
//! several locales (`generate --merge`). Plurals: an ICU plural message (json), a map of
//! CLDR categories with `other` (yml, Rails i18n), `key_one`/`key_other` siblings
//! (i18next v4).

use super::icu::{self, Message};
use super::locale;
use super::syntax::{self, Converted};
use crate::formats::reading::{EMPTY_TEXT, Key, Reading, SyntaxError, Unit, Value};
use crate::model::PluralCategory;
use crate::model::locale::same_locale;
use crate::model::plurals;
use rustc_hash::{FxHashMap, FxHashSet};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub value: NodeValue,
    /// 1-based, 0 when the parser gives none (json).
    pub line: usize,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeValue {
    Map(Vec<(String, Node)>),
    Text(String),
    /// Anything else, described for the note ("an array", "a number").
    Other(String),
}

impl Node {
    pub fn new(value: NodeValue) -> Node {
        Node {
            value,
            line: 0,
            comment: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// depot's json: ICU MessageFormat.
    Json,
    /// Rails i18n: `%{name}`, plural maps.
    Yml,
    /// i18next v4: `{{name}}`, `_one`/`_other` suffixes.
    I18next,
}

pub(crate) fn read(root: Node, style: Style, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let NodeValue::Map(entries) = root.value else {
        return Err(SyntaxError::new(
            root.line,
            "the top level is not a map of keys",
        ));
    };
    let mut path = Vec::new();
    if let Some(named) = r.named.clone()
        && let [(key, node)] = entries.as_slice()
        && same_locale(key, &named)
        && matches!(node.value, NodeValue::Map(_))
    {
        let [(_, node)] =
            <[_; 1]>::try_from(entries).map_err(|_| SyntaxError::new(0, "one entry"))?;
        if let NodeValue::Map(children) = node.value {
            walk(children, &mut path, None, style, r);
        }
        return Ok(());
    }
    let by_locale = r.named.is_none()
        && !entries.is_empty()
        && entries.iter().all(|(key, node)| {
            locale::code(key).is_some() && matches!(node.value, NodeValue::Map(_))
        });
    if by_locale {
        for (code, node) in entries {
            if let NodeValue::Map(children) = node.value {
                walk(children, &mut path, Some(&code), style, r);
            }
        }
    } else {
        walk(entries, &mut path, None, style, r);
    }
    Ok(())
}

/// One key of a map, or (i18next) the siblings that make a plural.
enum Item {
    One(String, Node),
    Plural(String, Vec<(PluralCategory, Node)>),
}

fn walk(
    entries: Vec<(String, Node)>,
    path: &mut Vec<String>,
    locale: Option<&str>,
    style: Style,
    r: &mut Reading<'_>,
) {
    let items = if style == Style::I18next {
        i18next_items(entries, path, r)
    } else {
        entries.into_iter().map(|(k, n)| Item::One(k, n)).collect()
    };
    for item in items {
        match item {
            Item::Plural(key, forms) => {
                path.push(key);
                let line = forms.first().map_or(0, |(_, n)| n.line);
                let comment = forms.iter().find_map(|(_, n)| n.comment.clone());
                let texts = forms
                    .into_iter()
                    .filter_map(|(category, node)| match node.value {
                        NodeValue::Text(text) => Some((category, text)),
                        _ => None,
                    })
                    .collect();
                plural(path, texts, line, comment, locale, style, r);
                path.pop();
            }
            Item::One(key, node) => {
                path.push(key);
                match node.value {
                    NodeValue::Map(children) if style == Style::Yml && is_plural_map(&children) => {
                        let texts = children
                            .into_iter()
                            .filter_map(|(k, n)| match n.value {
                                NodeValue::Text(t) => Some((PluralCategory::from_name(&k)?, t)),
                                _ => None,
                            })
                            .collect();
                        plural(path, texts, node.line, node.comment, locale, style, r);
                    }
                    NodeValue::Map(children) => walk(children, path, locale, style, r),
                    NodeValue::Text(text) => {
                        leaf(path, text, node.line, node.comment, locale, style, r)
                    }
                    NodeValue::Other(what) => {
                        r.note(
                            node.line,
                            &path.join("."),
                            format!("{what} is not a text: not carried"),
                        );
                    }
                }
                path.pop();
            }
        }
    }
}

/// A Rails plural: every key a CLDR category, `other` among them, every value a text.
fn is_plural_map(children: &[(String, Node)]) -> bool {
    children.iter().any(|(k, _)| k == "other")
        && children.iter().all(|(k, n)| {
            PluralCategory::from_name(k).is_some() && matches!(n.value, NodeValue::Text(_))
        })
}

/// The suffix of a plural's other form in i18next JSON v3 (`KEY`, `KEY_plural`).
pub(crate) const V3_PLURAL: &str = "_plural";

/// How an i18next key ends after its last `_` (a base before it): `KEY_one`, `KEY_3`,
/// `KEY_plural`. Told once per key, for every use the object makes of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Suffix {
    None,
    /// A CLDR category (`KEY_other`); the base's length.
    Category(usize, PluralCategory),
    /// A number written plainly (`KEY_0`, `KEY_12`, not `KEY_01`); the base's length.
    Numbered(usize, usize),
    /// JSON v3's `_plural`; the base's length.
    Plural(usize),
}

impl Suffix {
    fn of(key: &str) -> Suffix {
        let Some((base, end)) = key.rsplit_once('_') else {
            return Suffix::None;
        };
        if base.is_empty() {
            return Suffix::None;
        }
        if let Some(category) = PluralCategory::from_name(end) {
            return Suffix::Category(base.len(), category);
        }
        if end == &V3_PLURAL[1..] {
            return Suffix::Plural(base.len());
        }
        let plain =
            end.bytes().all(|b| b.is_ascii_digit()) && (end == "0" || !end.starts_with('0'));
        match end.parse() {
            Ok(index) if plain => Suffix::Numbered(base.len(), index),
            _ => Suffix::None,
        }
    }
}

/// i18next's `key_one`, `key_other`, ... siblings as plurals (when `key_other` is there),
/// and JSON v3's `key`, `key_plural` and numbered `key_0`, `key_1`, … (the reading says
/// so: `Reading::implies`).
fn i18next_items(entries: Vec<(String, Node)>, path: &[String], r: &mut Reading<'_>) -> Vec<Item> {
    let suffixes: Vec<Suffix> = entries.iter().map(|(k, _)| Suffix::of(k)).collect();
    let text = |node: &Node| matches!(node.value, NodeValue::Text(_));
    // Fx hashing: sets of every object's keys, and a nested file has thousands of objects
    let plural_bases: FxHashSet<String> = (entries.iter().zip(&suffixes))
        .filter_map(|((k, n), suffix)| match suffix {
            Suffix::Category(base, PluralCategory::Other) if text(n) => Some(k[..*base].to_owned()),
            _ => None,
        })
        .collect();
    // JSON v3 (i18next before v21): `KEY` is the one form, `KEY_plural` the other, when
    // both are texts and KEY is no v4 plural
    // (the set of the object's keys only when some key ends so: most objects have none)
    let mut v3_bases: FxHashSet<String> = FxHashSet::default();
    if suffixes.iter().any(|s| matches!(s, Suffix::Plural(_))) {
        let text_keys: FxHashSet<&str> = (entries.iter())
            .filter(|(_, n)| text(n))
            .map(|(k, _)| k.as_str())
            .collect();
        v3_bases = (entries.iter().zip(&suffixes))
            .filter_map(|((k, n), suffix)| match suffix {
                Suffix::Plural(base) if text(n) => Some(&k[..*base]),
                _ => None,
            })
            .filter(|base| text_keys.contains(base) && !plural_bases.contains(*base))
            .map(str::to_owned)
            .collect();
    }
    // the language's numbered forms, looked up only for an object with a `KEY_0`-like key;
    // a language of one form numbers it `KEY_0`: read so only in an app known to be v3
    let numbered = match suffixes.iter().any(|s| matches!(s, Suffix::Numbered(..))) {
        true => (r.named.as_deref().or(r.locale.as_deref())).and_then(plurals::i18next_numbered),
        false => None,
    }
    .filter(|categories| categories.len() > 1 || r.options.i18next_v3);
    let numbered_bases = match &numbered {
        Some(categories) => numbered_bases(&entries, &suffixes, categories.len(), |base| {
            !plural_bases.contains(base) && !v3_bases.contains(base)
        }),
        None => FxHashSet::default(),
    };
    if !v3_bases.is_empty() || !numbered_bases.is_empty() {
        r.implies.i18next_v3 = true;
    }
    r.v3_numbered |= !numbered_bases.is_empty();
    let categories = numbered.unwrap_or_default();
    let mut items: Vec<Item> = Vec::new();
    // each plural's item by its base, so a form finds it without a scan of the items
    // (a flat file of 50,000 keys has thousands of plurals)
    let mut plural_at: FxHashMap<String, usize> = FxHashMap::default();
    for ((key, node), suffix) in entries.into_iter().zip(suffixes) {
        let v3 = match suffix {
            Suffix::Plural(base) if v3_bases.contains(&key[..base]) => {
                Some((base, PluralCategory::Other))
            }
            _ if v3_bases.contains(&key) => Some((key.len(), PluralCategory::One)),
            _ => None,
        };
        // a plural's form (its base's length and category), or why it is not carried
        let form = match (v3, suffix) {
            (Some(form), _) => Ok(form),
            (None, Suffix::Numbered(base, index)) if numbered_bases.contains(&key[..base]) => {
                let category = categories[index];
                match categories[..index].contains(&category) {
                    true => Err(format!(
                        "a JSON v3 plural form that is the {} form again for the language: not carried",
                        category.name()
                    )),
                    false => Ok((base, category)),
                }
            }
            (None, Suffix::Category(base, category))
                if text(&node) && plural_bases.contains(&key[..base]) =>
            {
                match key[..base].ends_with("_ordinal") {
                    true => Err("an ordinal plural form is not carried".to_owned()),
                    false => Ok((base, category)),
                }
            }
            _ => {
                items.push(Item::One(key, node));
                continue;
            }
        };
        match form {
            Ok((base, category)) => {
                add_form(
                    &mut items,
                    &mut plural_at,
                    truncated(key, base),
                    category,
                    node,
                );
            }
            Err(why) => {
                let mut full = path.to_vec();
                full.push(key);
                r.note(node.line, &full.join("."), why);
            }
        }
    }
    // a sheet's plural needs `other`; where the language's numbered forms have none
    // (Polish, Russian: CLDR keeps it for fractions) the last, the rule's catch-all, gives
    // its text (written back only as that form)
    if let Some(&last) = categories.last()
        && !categories.contains(&PluralCategory::Other)
    {
        for item in &mut items {
            if let Item::Plural(base, forms) = item
                && numbered_bases.contains(base.as_str())
                && let Some((_, node)) = forms.iter().find(|(c, _)| *c == last)
            {
                let node = node.clone();
                forms.push((PluralCategory::Other, node));
            }
        }
    }
    items
}

/// `key` cut to its first `len` bytes (its base), in the string it is.
fn truncated(mut key: String, len: usize) -> String {
    key.truncate(len);
    key
}

/// The keys that are JSON v3 numbered plurals (`KEY_0` … `KEY_n`): those `open` leaves,
/// whose texts have exactly the language's `count` suffixes, no more (so that `step_1`,
/// `step_2`, `step_3` stay keys).
fn numbered_bases(
    entries: &[(String, Node)],
    suffixes: &[Suffix],
    count: usize,
    open: impl Fn(&str) -> bool,
) -> FxHashSet<String> {
    let mut seen: FxHashMap<&str, Vec<bool>> = FxHashMap::default();
    for ((key, node), suffix) in entries.iter().zip(suffixes) {
        let Suffix::Numbered(base, index) = *suffix else {
            continue;
        };
        let indices = seen
            .entry(&key[..base])
            .or_insert_with(|| vec![false; count]);
        match (indices.get_mut(index), &node.value) {
            (Some(slot), NodeValue::Text(_)) => *slot = true,
            // a suffix the language has not, or a form that is no text: no plural
            _ => indices.clear(),
        }
    }
    (seen.into_iter())
        .filter(|(base, indices)| !indices.is_empty() && indices.iter().all(|&s| s) && open(base))
        .map(|(base, _)| base.to_owned())
        .collect()
}

/// One form of the plural `base`: added to its item (found in `plural_at`, each plural
/// item's index by its base), or the item started where the first form stands.
fn add_form(
    items: &mut Vec<Item>,
    plural_at: &mut FxHashMap<String, usize>,
    base: String,
    category: PluralCategory,
    node: Node,
) {
    if let Some(&at) = plural_at.get(&base)
        && let Some(Item::Plural(_, forms)) = items.get_mut(at)
    {
        forms.push((category, node));
        return;
    }
    plural_at.insert(base.clone(), items.len());
    items.push(Item::Plural(base, vec![(category, node)]));
}

fn convert_text(text: &str, style: Style, plural: bool, r: &Reading<'_>) -> Converted {
    if !r.convert() {
        // kept verbatim, and named: the sheet holds the reference, not the nested text
        let nesting = style == Style::I18next && text.contains("$t(");
        return Converted {
            text: text.to_owned(),
            losses: nesting
                .then(|| "nesting $t(...) is kept as text".to_owned())
                .into_iter()
                .collect(),
        };
    }
    match style {
        Style::Yml => syntax::rails(text),
        Style::I18next => syntax::i18next(text),
        Style::Json if plural => syntax::Converted {
            text: text.to_owned(),
            losses: Vec::new(),
        },
        Style::Json => match icu::to_sheet(text) {
            Ok(Message::Text(converted)) => converted,
            // a plural inside a text, said by the caller
            Ok(Message::Plural { .. }) => Converted::default(),
            Err(why) => Converted {
                text: syntax::literal(text),
                losses: vec![format!("not an ICU message ({why}): read as plain text")],
            },
        },
    }
}

fn leaf(
    path: &[String],
    text: String,
    line: usize,
    comment: Option<String>,
    locale: Option<&str>,
    style: Style,
    r: &mut Reading<'_>,
) {
    let key = path.join(".");
    if text.is_empty() {
        // generate patches json, i18next and yml files member by member: the app's empty
        // text stays, read as the app's runtime reads it (i18next: "", or missing with its
        // `returnEmptyString: false`; Rails: "")
        r.keep(line, &key, EMPTY_TEXT);
        return;
    }
    // json plurals are ICU messages whether or not placeholders are converted
    if style == Style::Json
        && icu::may_be_plural(&text)
        && let Ok(Message::Plural { forms, losses }) = icu::to_sheet(&text)
    {
        let unit = Unit {
            key: Key::nested(path),
            value: Value::Plural(forms),
            comment,
            locale: locale.map(str::to_owned),
            line,
        };
        r.push(unit, losses);
        return;
    }
    let converted = convert_text(&text, style, false, r);
    let unit = Unit {
        key: Key::nested(path),
        value: Value::Text(converted.text),
        comment,
        locale: locale.map(str::to_owned),
        line,
    };
    r.push(unit, converted.losses);
}

fn plural(
    path: &[String],
    texts: Vec<(PluralCategory, String)>,
    line: usize,
    comment: Option<String>,
    locale: Option<&str>,
    style: Style,
    r: &mut Reading<'_>,
) {
    let mut losses = Vec::new();
    let mut forms = Vec::new();
    for (category, text) in texts {
        if text.is_empty() {
            losses.push(format!("the empty {} form is not carried", category.name()));
            continue;
        }
        let mut converted = convert_text(&text, style, true, r);
        losses.append(&mut converted.losses);
        forms.push((category, converted.text));
    }
    let unit = Unit {
        key: Key::nested(path),
        value: Value::Plural(forms),
        comment,
        locale: locale.map(str::to_owned),
        line,
    };
    r.push(unit, losses);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::reading::Options;
    use proptest::prelude::*;

    /// An empty text stays in a json or i18next file generate patches (kept); a yml file is
    /// written whole, so there it is not carried.
    #[test]
    fn an_empty_text_is_kept_where_generate_patches_the_file() {
        let options = Options::default();
        for style in [Style::Json, Style::I18next, Style::Yml] {
            let mut r = Reading::new(&options);
            let root = crate::formats::json::read::parse(r#"{"a": {"b": ""}, "c": "C"}"#);
            read(root.unwrap(), style, &mut r).unwrap();
            assert_eq!(r.units.len(), 1, "{style:?}");
            let kept: Vec<_> = (r.kept.iter())
                .map(|(_, k, what)| (k.as_str(), what.as_str()))
                .collect();
            let noted: Vec<_> = r.notes.iter().map(|(_, k, _)| k.as_str()).collect();
            assert_eq!(
                (kept, noted),
                (vec![("a.b", EMPTY_TEXT)], vec![]),
                "{style:?}"
            );
        }
    }

    /// `add_form` as it was: the plural's item found by a scan of every item so far.
    fn add_form_by_scan(items: &mut Vec<Item>, base: String, category: PluralCategory, node: Node) {
        let existing = items.iter_mut().find_map(|item| match item {
            Item::Plural(b, forms) if *b == base => Some(forms),
            _ => None,
        });
        match existing {
            Some(forms) => forms.push((category, node)),
            None => items.push(Item::Plural(base, vec![(category, node)])),
        }
    }

    /// Items as (plural, key, the lines of its nodes).
    /// An item as (plural, key, the lines of its nodes).
    type Shown = (bool, String, Vec<(PluralCategory, usize)>);

    fn shown(items: &[Item]) -> Vec<Shown> {
        (items.iter())
            .map(|item| match item {
                Item::One(key, node) => {
                    (false, key.clone(), vec![(PluralCategory::Other, node.line)])
                }
                Item::Plural(key, forms) => {
                    let forms = forms.iter().map(|(c, n)| (*c, n.line)).collect();
                    (true, key.clone(), forms)
                }
            })
            .collect()
    }

    proptest! {
        #[test]
        fn forms_find_their_plural_by_its_base_as_the_scan_did(
            // None: a key of its own (which may share a plural's base); Some: a form
            steps in prop::collection::vec(
                (prop::option::of(0..3usize), prop::sample::select(&["k", "K", "k_one", "x"][..])),
                0..40,
            )
        ) {
            let (mut indexed, mut scanned) = (Vec::new(), Vec::new());
            let mut plural_at = FxHashMap::default();
            for (line, (form, key)) in steps.into_iter().enumerate() {
                let mut node = Node::new(NodeValue::Text(String::new()));
                node.line = line;
                let Some(form) = form else {
                    indexed.push(Item::One(key.to_owned(), node.clone()));
                    scanned.push(Item::One(key.to_owned(), node));
                    continue;
                };
                let category = PluralCategory::ALL[form];
                add_form(&mut indexed, &mut plural_at, key.to_owned(), category, node.clone());
                add_form_by_scan(&mut scanned, key.to_owned(), category, node);
            }
            prop_assert_eq!(shown(&indexed), shown(&scanned));
        }
    }
}
