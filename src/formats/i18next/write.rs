//! i18next JSON v4 (`<lng>/translation.json`, SPEC §11), as i18next 21+ reads it: nested
//! by key path (its `keySeparator` is `.`, like the sheet's), a plural entry as one key
//! per category (`KEY_one`, `KEY_few`, `KEY_other`: the v4 suffixes, which i18next picks
//! with `Intl.PluralRules` for `t(key, {count})`); with `placeholders=convert`,
//! placeholders as `{{name}}` and the count as `{{count}}`.
//!
//! i18next has no escape. It reads `{{…}}` as an interpolation wherever it stands and
//! `$t(…)` as the text of another key, so with `convert` a text that would come out
//! holding either (a literal `{` right before a placeholder, literal `{{…}}`, `$t(` with a
//! `)` after it) is refused, naming it; with `keep` texts are i18next syntax as written.
//! A plural entry's names can meet a sibling key or section (`ITEMS` and `ITEMS_one`):
//! the first in sheet order keeps the name, the other is left out and reported.
//!
//! A body of one locale is that locale's `translation.json`; of several (or with
//! `keepLocale`), i18next's `resources` object: `{"en-US": {"translation": {…}}, …}`.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use crate::formats::json::write::push_json_str;
use crate::formats::shared::convert::Converter;
use crate::formats::shared::nested::V3_PLURAL;
use crate::formats::shared::tree::{Leaf, Levels, Tree, TreeSink, sheet_levels};
use crate::formats::writing::Job;
use crate::formats::{Format, PlaceholderMode, RenderError};
use crate::model::langtag;
use crate::model::placeholders;
use crate::model::placeholders::Syntax;
use crate::model::plurals;
use crate::model::{Document, Entry, PluralCategory};

/// The namespace i18next loads by default, and the folder file's stem.
pub(crate) const NAMESPACE: &str = "translation";

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    let tree = match names_some(job.doc) {
        true => job.i18next_tree(levels),
        false => job.tree(),
    };
    let left_out = render(&tree, job, out)?;
    Ok(tree.warnings.iter().cloned().chain(left_out).collect())
}

/// Writes the job's selection over `tree`: i18next's `resources` object of every locale
/// (`Job::keyed`), else the single locale's own tree. Returns what was left out besides
/// the tree's warnings.
fn render(
    tree: &Tree<'_>,
    job: &Job<'_, '_>,
    out: &mut Vec<u8>,
) -> Result<Vec<String>, RenderError> {
    let (sel, texts, opts, keyed) = (job.sel, job.texts(), job.opts, job.keyed());
    let mut sink = I18next {
        v3: job.doc.settings.i18next_v3,
        numbered: None,
        out,
        converter: Converter::new(opts, Syntax::I18next),
        checked: opts.placeholders == PlaceholderMode::Convert,
        keyed,
        levels: vec![Level::default()],
        skipping: None,
        path: Vec::new(),
        languages: HashMap::new(),
        locale: String::new(),
        scratch: String::new(),
        warnings: Vec::new(),
    };
    sink.out.push(b'{');
    tree.walk(sel, texts, &mut sink)?;
    sink.out.push(b'}');
    Ok(sink.warnings)
}

/// Whether the sheet names some key for i18next: its keys are then `levels`, else the
/// document's own paths.
fn names_some(doc: &Document) -> bool {
    (doc.entries.iter()).any(|e| Format::I18next.name_of(e).is_some())
}

/// An entry's levels as i18next names its key (SPEC §12.1): an entry with a name is a key
/// of its own at the top of its namespace's file, the name one level (the app sets
/// `keySeparator: false`); an entry without one, its path. Borrowed from the entry, so
/// the tree and the clashes of i18next's names copy nothing of the document, and the
/// entries stay in their places (selections and texts serve them alike).
pub(crate) fn levels<'x>(doc: &'x Document, entry: &'x Entry) -> Option<Levels<'x>> {
    match Format::I18next.name_of(entry) {
        Some(key) => {
            let keep = usize::from(!doc.namespaces.is_empty()).min(entry.path.len());
            let sections = &entry.path[..keep];
            Some(Levels { sections, key })
        }
        None => sheet_levels(doc, entry),
    }
}

/// What a render of one whole locale leaves out and reports (`formats::known_warnings`):
/// the tree's, then the plural names that meet.
pub(crate) fn known_warnings(doc: &Document) -> Vec<String> {
    (tree_warnings(doc).into_iter())
        .chain(clashes(doc).into_iter().map(|c| c.message))
        .collect()
}

/// What a render of every key leaves out as the tree has it (a key that is also a
/// section), over the keys as i18next names them.
pub(crate) fn tree_warnings(doc: &Document) -> Vec<String> {
    Tree::build_all_with(doc, levels).warnings
}

/// Entries the sheet gives one i18next name in one namespace: (the first, a later one,
/// the name). The render keeps the first.
pub(crate) fn named_clashes(doc: &Document) -> Vec<(usize, usize, String)> {
    // Fx-hashed, sized once, one lookup an entry: with SipHash, a lookup and an insert
    // apiece and growing from empty, this was a quarter of the name checks of a sheet
    // that names every key
    let mut first: FxHashMap<(&str, &str), usize> =
        FxHashMap::with_capacity_and_hasher(doc.entries.len(), Default::default());
    let mut found = Vec::new();
    for (e, entry) in doc.entries.iter().enumerate() {
        let Some(name) = Format::I18next.name_of(entry) else {
            continue;
        };
        let namespace = match doc.namespaces.is_empty() {
            true => "",
            false => entry.path.first().map_or("", String::as_str),
        };
        let kept = *first.entry((namespace, name)).or_insert(e);
        if kept != e {
            found.push((kept, e, name.to_owned()));
        }
    }
    found
}

/// A locale as i18next names a language: BCP 47 in canonical case (`en-US`, `pl-PL`,
/// `zh-Hant`); a code that is no such tag, as written.
pub(crate) fn language(code: &str) -> String {
    langtag::parse(code).map_or_else(|| code.to_owned(), |tag| tag.to_string())
}

/// What an open object has written: whether anything yet (for the commas), and what a
/// plural entry's form names could meet there: the names ending in a category suffix, and
/// each plural entry's key with the categories it wrote (most objects have neither, and
/// checking costs nothing then).
#[derive(Default)]
struct Level {
    wrote: bool,
    suffixed: Vec<String>,
    plurals: Vec<(String, Vec<PluralCategory>)>,
}

struct I18next<'o> {
    /// The sheet says the app's files are JSON v3 (`i18next=v3`): a plural of the one and
    /// other forms only is `KEY` and `KEY_plural`.
    v3: bool,
    /// With `v3`, the CLDR category of each numbered form (`KEY_0`, `KEY_1`, …) of the
    /// locale being written, where its language has them (`plurals::i18next_numbered`).
    numbered: Option<Vec<PluralCategory>>,
    out: &'o mut Vec<u8>,
    converter: Converter,
    /// `placeholders=convert`: texts must read back as written.
    checked: bool,
    keyed: bool,
    levels: Vec<Level>,
    /// The depth of the section (or locale) being left out, with everything under it.
    skipping: Option<usize>,
    /// The open sections' names (for messages).
    path: Vec<String>,
    /// Each language written, with the locale that took it.
    languages: HashMap<String, String>,
    locale: String,
    /// A form's name, reused.
    scratch: String,
    warnings: Vec<String>,
}

impl I18next<'_> {
    /// Whether something at `depth` is written: the locale level only when keyed.
    fn writes(&self, depth: usize) -> bool {
        self.keyed || depth > 0
    }

    fn level(&mut self) -> &mut Level {
        if self.levels.is_empty() {
            self.levels.push(Level::default());
        }
        let last = self.levels.len() - 1;
        &mut self.levels[last]
    }

    /// Starts `"name":` in the current object.
    fn key(&mut self, name: &str) {
        if std::mem::replace(&mut self.level().wrote, true) {
            self.out.push(b',');
        }
        push_json_str(self.out, name);
        self.out.push(b':');
    }

    fn dotted(&self, name: &str) -> String {
        let mut path = self.path.join(".");
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(name);
        path
    }

    /// For a key or section named `name`: reports it and returns true when an earlier
    /// plural entry's form took the name; else notes the name if a later one could.
    fn suffixed_taken(&mut self, name: &str) -> bool {
        let Some((key, category)) = split_suffix(name) else {
            return false;
        };
        let level = self.level();
        let taken = (level.plurals.iter())
            .any(|(plural, categories)| plural == key && categories.contains(&category));
        if !taken {
            level.suffixed.push(name.to_owned());
            return false;
        }
        let message = clash_message(&self.dotted(key), &self.dotted(name), name);
        self.warnings.push(message);
        true
    }

    /// A plain text or one form, converted and (with `convert`) checked.
    fn value(&mut self, leaf: &Leaf<'_>, plural: bool, text: &str) -> Result<(), RenderError> {
        let written = self.converter.text(leaf.entry, plural, text);
        // A text whose braces do not parse is written as it is: an `{{name}}` in it is the
        // sheet's, not a placeholder conversion wrote.
        let ours = || !written.contains("{{") || placeholders::parse(text).is_ok();
        if self.checked
            && let Some((character, reason)) = misread(&written, ours())
        {
            return Err(RenderError::UnrepresentableText {
                format: Format::I18next,
                locale: self.locale.clone(),
                // the key as i18next names it: the open sections and the leaf
                key: self.dotted(leaf.name),
                character,
                reason,
            });
        }
        push_json_str(self.out, &written);
        Ok(())
    }
}

impl I18next<'_> {
    /// A plural entry as JSON v3's numbered forms: `KEY_N` the text of the N-th form's
    /// category, or `other`'s where the sheet has none for it.
    fn numbered_forms(
        &mut self,
        leaf: &Leaf<'_>,
        numbered: &[PluralCategory],
    ) -> Result<(), RenderError> {
        let Some(forms) = leaf.plural else {
            return Ok(());
        };
        for (index, &category) in numbered.iter().enumerate() {
            let text = (forms.text(category, leaf.locale))
                .or_else(|| forms.text(PluralCategory::Other, leaf.locale));
            let Some(text) = text else { continue };
            self.key(&format!("{}_{index}", leaf.name));
            self.value(leaf, true, text)?;
        }
        self.level()
            .plurals
            .push((leaf.name.to_owned(), numbered.to_vec()));
        Ok(())
    }
}

impl TreeSink for I18next<'_> {
    fn open(&mut self, name: &str, depth: usize, _first: bool) -> Result<(), RenderError> {
        if self.skipping.is_some() {
            return Ok(());
        }
        if depth == 0 {
            self.locale = name.to_owned();
            self.numbered = self.v3.then(|| plurals::i18next_numbered(name)).flatten();
            self.path.clear();
            if !self.keyed {
                return Ok(());
            }
            let lng = language(name);
            if let Some(kept) = self.languages.get(&lng) {
                self.warnings.push(format!(
                    "locales '{kept}' and '{name}' are both the language '{lng}' in i18next; kept \
                     '{kept}', left out '{name}'"
                ));
                self.skipping = Some(0);
                return Ok(());
            }
            self.languages.insert(lng.clone(), name.to_owned());
            self.key(&lng);
            self.out.push(b'{');
            push_json_str(self.out, NAMESPACE);
            self.out.extend_from_slice(b":{");
            self.levels.push(Level::default());
            return Ok(());
        }
        if self.suffixed_taken(name) {
            self.skipping = Some(depth);
            return Ok(());
        }
        self.key(name);
        self.out.push(b'{');
        self.levels.push(Level::default());
        self.path.push(name.to_owned());
        Ok(())
    }

    fn leaf(&mut self, leaf: &Leaf<'_>, _depth: usize, _first: bool) -> Result<(), RenderError> {
        if self.skipping.is_some() {
            return Ok(());
        }
        let Some(forms) = leaf.plural else {
            if self.suffixed_taken(leaf.name) {
                return Ok(());
            }
            self.key(leaf.name);
            return self.value(leaf, false, leaf.text);
        };
        // a form whose name a key or section before it has: the entry is left out whole
        let level = self.level();
        if !level.suffixed.is_empty() {
            let taken = forms.forms_in(leaf.locale).find_map(|(category, _)| {
                let name = form_name(leaf.name, category);
                level.suffixed.contains(&name).then_some(name)
            });
            if let Some(name) = taken {
                let message = clash_message(&self.dotted(&name), &self.dotted(leaf.name), &name);
                self.warnings.push(message);
                return Ok(());
            }
        }
        if let Some(numbered) = self.numbered.take() {
            let written = self.numbered_forms(leaf, &numbered);
            self.numbered = Some(numbered);
            return written;
        }
        let v3 = self.v3
            && (forms.forms_in(leaf.locale))
                .all(|(c, _)| matches!(c, PluralCategory::One | PluralCategory::Other));
        let mut categories = Vec::new();
        for (category, text) in forms.forms_in(leaf.locale) {
            categories.push(category);
            let mut name = std::mem::take(&mut self.scratch);
            name.clear();
            name.push_str(leaf.name);
            match category {
                PluralCategory::One if v3 => {}
                PluralCategory::Other if v3 => name.push_str(V3_PLURAL),
                _ => {
                    name.push('_');
                    name.push_str(category.name());
                }
            }
            self.key(&name);
            self.scratch = name;
            self.value(leaf, true, text)?;
        }
        self.level()
            .plurals
            .push((leaf.name.to_owned(), categories));
        Ok(())
    }

    fn close(&mut self, depth: usize) -> Result<(), RenderError> {
        match self.skipping {
            Some(skipped) if skipped == depth => {
                self.skipping = None;
                return Ok(());
            }
            Some(_) => return Ok(()),
            None => {}
        }
        if !self.writes(depth) {
            return Ok(());
        }
        self.levels.pop();
        if depth == 0 {
            self.out.extend_from_slice(b"}}");
        } else {
            self.path.pop();
            self.out.push(b'}');
        }
        Ok(())
    }
}

/// `KEY_category`, the v4 plural suffix.
fn form_name(key: &str, category: PluralCategory) -> String {
    let mut name = String::with_capacity(key.len() + 6);
    name.push_str(key);
    name.push('_');
    name.push_str(category.name());
    name
}

/// `KEY_category` split into the key and the category, when `name` ends in a plural
/// suffix (a plural entry's form could take the name).
fn split_suffix(name: &str) -> Option<(&str, PluralCategory)> {
    let (key, suffix) = name.rsplit_once('_')?;
    Some((key, PluralCategory::from_name(suffix)?))
}

fn clash_message(kept: &str, lost: &str, name: &str) -> String {
    format!(
        "'{kept}' and '{lost}' both take the name '{name}' in i18next (a plural entry's forms \
         are named KEY_one, KEY_other, …); kept '{kept}', left out '{lost}'"
    )
}

/// Why i18next would not show `text` as it is written, if it would not: an `{{…}}` that
/// is not exactly one of the placeholders conversion wrote (its interpolation pattern is
/// `{{(.+?)}}`, leftmost first, `.` not crossing a line end), or `$t(` with a `)` after
/// it (its nesting pattern; checked more strictly than i18next matches).
/// `placeholders_are_ours`: the text went through conversion, so an `{{name}}` in it is
/// a placeholder it wrote; otherwise every `{{…}}` is a misreading.
fn misread(text: &str, placeholders_are_ours: bool) -> Option<(char, &'static str)> {
    let line_end = |c: char| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}');
    let mut from = 0;
    while let Some(found) = text[from..].find("{{") {
        let start = from + found;
        let after = start + 2;
        // `.+?` takes at least one character, which may be several bytes long
        let Some(first) = text[after..].chars().next() else {
            break;
        };
        let inner_from = after + first.len_utf8();
        let Some(end) = text[inner_from..].find("}}") else {
            break;
        };
        let inner = &text[after..inner_from + end];
        if inner.contains(line_end) {
            from = start + 1;
            continue;
        }
        if !placeholders_are_ours || !is_placeholder_name(inner) {
            return Some((
                '{',
                "i18next reads '{{' up to the next '}}' as an interpolation, and has no escape \
                 for it",
            ));
        }
        from = inner_from + end + 2;
    }
    if let Some(at) = text.find("$t(")
        && text[at + 3..].contains(')')
    {
        return Some((
            '$',
            "i18next reads '$t(…)' as the text of another key, and has no escape for it",
        ));
    }
    None
}

/// What conversion writes as a placeholder's name (`placeholders::parse`'s names).
fn is_placeholder_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A plural entry's form name that a sibling key or section also has.
pub(crate) struct Clash {
    /// The first entry at (or under) the node that comes first in sheet order, which
    /// keeps the name, and the other's.
    pub(crate) kept: usize,
    pub(crate) lost: usize,
    pub(crate) name: String,
    /// What `render` reports for it.
    pub(crate) message: String,
}

/// Plural entries whose form names meet a sibling key or section somewhere in `doc`: a
/// render of one locale keeps the first in sheet order and leaves the other out wherever
/// that locale has the form.
pub(crate) fn clashes(doc: &Document) -> Vec<Clash> {
    if doc.entries.iter().all(|e| e.plural.is_none()) {
        return Vec::new();
    }
    // every node (key or section) of i18next's names as a trie: a node by its parent and
    // name, with the first entry at or under it (the root is node 0); and the node of
    // each entry's sections
    let mut nodes: FxHashMap<(usize, &str), usize> = FxHashMap::default();
    let mut first_under: Vec<usize> = vec![usize::MAX];
    let mut parent_of: Vec<Option<(usize, Levels<'_>)>> = Vec::with_capacity(doc.entries.len());
    for (e, entry) in doc.entries.iter().enumerate() {
        let Some(levels) = levels(doc, entry) else {
            parent_of.push(None);
            continue;
        };
        let mut node = 0;
        let names = (levels.sections.iter().map(String::as_str)).chain([levels.key]);
        for (depth, name) in names.enumerate() {
            if depth == levels.sections.len() {
                parent_of.push(Some((node, levels)));
            }
            node = *nodes.entry((node, name)).or_insert_with(|| {
                first_under.push(e);
                first_under.len() - 1
            });
        }
    }
    let mut found = Vec::new();
    for (e, entry) in doc.entries.iter().enumerate() {
        let (Some(plural), Some(Some((parent, levels)))) = (&entry.plural, parent_of.get(e)) else {
            continue;
        };
        for form in plural
            .forms
            .iter()
            .filter(|f| f.texts.iter().any(Option::is_some))
        {
            let name = form_name(levels.key, form.category);
            let Some(&sibling) = nodes.get(&(*parent, name.as_str())) else {
                continue;
            };
            let other = first_under[sibling];
            let sibling = Levels {
                sections: levels.sections,
                key: &name,
            };
            let (plural_path, other_path) = (levels.dotted(), sibling.dotted());
            let (kept, lost, message) = if e < other {
                (e, other, clash_message(&plural_path, &other_path, &name))
            } else {
                (other, e, clash_message(&other_path, &plural_path, &name))
            };
            found.push(Clash {
                kept,
                lost,
                name,
                message,
            });
        }
    }
    found.sort_by(|a, b| (a.lost, a.kept, &a.name).cmp(&(b.lost, b.kept, &b.name)));
    found
}

/// Keys whose path holds `:`: i18next's `t('A:B')` reads `A` as a namespace (its
/// `nsSeparator`), so the app cannot look such a key up by its path.
pub(crate) fn namespace_separators(doc: &Document) -> Vec<usize> {
    (doc.entries.iter().enumerate())
        // a name the sheet gives is the app's own (its nsSeparator is its business)
        .filter(|(_, entry)| Format::I18next.name_of(entry).is_none())
        .filter(|(_, entry)| entry.path.iter().any(|segment| segment.contains(':')))
        .map(|(e, _)| e)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misread_finds_what_i18next_would_interpolate_or_nest() {
        assert_eq!(misread("a {{name}} b {x} }}", true), None);
        assert_eq!(misread("{{name}}} and {", true), None);
        assert_eq!(misread("{{\n}} {{a}}", true), None);
        assert_eq!(misread("only {{ opening", true), None);
        assert_eq!(misread("$t( without closing", true), None);
        // the character after `{{` may be several bytes long
        assert!(misread("{{¡{{name}}", true).is_some());
        assert!(misread("{{é}}", true).is_some());
        // the sheet's own `{{name}}` in a text written as it is
        assert!(misread("{{count}}}", false).is_some());
        assert!(misread("{{count}}}", true).is_none());
        assert!(misread("{{{name}}", true).is_some());
        assert!(misread("literal {{x y}}", true).is_some());
        assert!(misread("see $t(other.key)", true).is_some());
    }

    #[test]
    fn only_names_ending_in_a_category_can_meet_a_form() {
        assert_eq!(
            split_suffix("ITEMS_one"),
            Some(("ITEMS", PluralCategory::One))
        );
        assert_eq!(
            split_suffix("a_b_other"),
            Some(("a_b", PluralCategory::Other))
        );
        assert_eq!(split_suffix("ITEMSone"), None);
        assert_eq!(split_suffix("one"), None);
        assert_eq!(split_suffix("ITEMS_One"), None);
        assert_eq!(form_name("ITEMS", PluralCategory::Few), "ITEMS_few");
    }

    /// What `levels` stands for, as it was computed before: a copy of the document with
    /// each named entry's path made its i18next name, and no names left.
    fn renamed_copy(doc: &Document) -> Document {
        let mut renamed = doc.clone();
        let namespaced = !doc.namespaces.is_empty();
        for entry in &mut renamed.entries {
            if let Some(name) = Format::I18next.name_of(entry).map(str::to_owned) {
                let keep = usize::from(namespaced).min(entry.path.len());
                entry.path.truncate(keep);
                entry.path.push(name);
            }
            entry.names.clear();
        }
        renamed
    }

    /// `clashes` as it was: every path prefix of the renamed copy as a map key.
    fn clashes_of_copy(doc: &Document) -> Vec<(usize, usize, String, String)> {
        let doc = &renamed_copy(doc);
        let mut first_under: HashMap<&[String], usize> = HashMap::new();
        for (e, entry) in doc.entries.iter().enumerate() {
            for len in 1..=entry.path.len() {
                first_under.entry(&entry.path[..len]).or_insert(e);
            }
        }
        let mut found = Vec::new();
        for (e, entry) in doc.entries.iter().enumerate() {
            let (Some(plural), Some((key, parent))) = (&entry.plural, entry.path.split_last())
            else {
                continue;
            };
            for form in (plural.forms.iter()).filter(|f| f.texts.iter().any(Option::is_some)) {
                let name = form_name(key, form.category);
                let mut sibling = parent.to_vec();
                sibling.push(name.clone());
                let Some(&other) = first_under.get(sibling.as_slice()) else {
                    continue;
                };
                let (plural_path, other_path) = (entry.path.join("."), sibling.join("."));
                found.push(match e < other {
                    true => (
                        e,
                        other,
                        name.clone(),
                        clash_message(&plural_path, &other_path, &name),
                    ),
                    false => (
                        other,
                        e,
                        name.clone(),
                        clash_message(&other_path, &plural_path, &name),
                    ),
                });
            }
        }
        found.sort_by(|a, b| (a.1, a.0, &a.2).cmp(&(b.1, b.0, &b.2)));
        found
    }

    mod against_a_renamed_copy {
        use super::*;
        use crate::formats::{Prepared, RenderOptions, render};
        use crate::model::{LocaleSelection, Plural, PluralForm, Selection};
        use proptest::prelude::*;

        /// Levels and names that meet: case-only pairs, plural form names, a name that is
        /// also a section, `:` and `.` in names.
        const WORDS: [&str; 10] = [
            "A", "a", "K", "k", "k_one", "k_other", "K_other", "x", "a.b", "n:s",
        ];
        const TEXTS: [&str; 5] = ["t", "{count} t", "{{x}} t", "$t(k) t", "{x} t"];

        fn entry() -> impl Strategy<Value = Entry> {
            let path = prop::collection::vec(prop::sample::select(&WORDS[..]), 1..4);
            let name = prop::option::of(prop::sample::select(&WORDS[..]));
            let names = (
                name,
                prop::option::of(prop::sample::select(&WORDS[..])),
                any::<bool>(),
            );
            let texts =
                prop::collection::vec(prop::option::of(prop::sample::select(&TEXTS[..])), 2);
            let plural = prop::option::of(prop::collection::vec(
                prop::option::of(prop::sample::select(&TEXTS[..])),
                4,
            ));
            (path, names, texts, plural).prop_map(
                |(path, (all, own, other_format), texts, plural)| {
                    let mut entry = Entry {
                        path: path.into_iter().map(str::to_owned).collect(),
                        texts: texts.into_iter().map(|t| t.map(str::to_owned)).collect(),
                        ..Entry::default()
                    };
                    if let Some(name) = all {
                        entry.names.insert(String::new(), name.to_owned());
                    }
                    if let Some(name) = own {
                        let format = if other_format { "android" } else { "i18next" };
                        entry.names.insert(format.to_owned(), name.to_owned());
                    }
                    if let Some(forms) = plural {
                        // one and other in each locale (forms[0..2] en, forms[2..4] pl)
                        let form = |category, en: Option<&str>, pl: Option<&str>| PluralForm {
                            category,
                            texts: vec![en.map(str::to_owned), pl.map(str::to_owned)],
                        };
                        let plural = Plural {
                            forms: vec![
                                form(PluralCategory::One, forms[0], forms[2]),
                                form(PluralCategory::Other, forms[1], forms[3]),
                            ],
                        };
                        entry.texts = (0..2)
                            .map(|l| plural.text(PluralCategory::Other, l).map(str::to_owned))
                            .collect();
                        entry.plural = Some(Box::new(plural));
                    }
                    entry
                },
            )
        }

        fn document() -> impl Strategy<Value = Document> {
            (
                prop::collection::vec(entry(), 0..14),
                any::<bool>(),
                any::<bool>(),
            )
                .prop_map(|(entries, namespaced, v3)| {
                    let mut doc = Document {
                        locales: vec!["en".into(), "pl".into()],
                        entries,
                        warnings: Vec::new(),
                        findings: Vec::new(),
                        namespaces: Vec::new(),
                        settings: Default::default(),
                    };
                    doc.settings.i18next_v3 = v3;
                    if namespaced {
                        doc.namespaces = vec!["A".into(), "a".into()];
                    }
                    doc
                })
        }

        /// Every locale, each locale alone (generate's files), and every other entry.
        fn selections(doc: &Document) -> Vec<Selection> {
            let all = Selection::all(doc);
            let mut selections = vec![all.clone()];
            for ls in &all.locales {
                selections.push(Selection {
                    locales: vec![ls.clone()],
                });
                selections.push(Selection {
                    locales: vec![LocaleSelection {
                        locale: ls.locale,
                        entries: ls.entries.iter().copied().step_by(2).collect(),
                    }],
                });
            }
            selections
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            #[test]
            fn i18next_names_read_in_place_give_what_the_renamed_copy_gave(doc in document()) {
                let copy = renamed_copy(&doc);
                let found: Vec<_> = (clashes(&doc).into_iter())
                    .map(|c| (c.kept, c.lost, c.name, c.message))
                    .collect();
                prop_assert_eq!(found, clashes_of_copy(&doc));
                prop_assert_eq!(tree_warnings(&doc), Tree::build_all(&copy).warnings);
                prop_assert_eq!(known_warnings(&doc), known_warnings(&copy));
                let prepared = Prepared::new(&doc);
                for sel in selections(&doc) {
                    for placeholders in [PlaceholderMode::Keep, PlaceholderMode::Convert] {
                        for keep_locale in [false, true] {
                            let opts = RenderOptions {
                                placeholders,
                                keep_locale,
                                base_locale: Some(0),
                                ..RenderOptions::default()
                            };
                            let shown = |r: Result<crate::formats::Rendered, RenderError>| {
                                r.map_err(|e| e.to_string())
                            };
                            let before = shown(render(&copy, &sel, Format::I18next, &opts));
                            let alone = shown(render(&doc, &sel, Format::I18next, &opts));
                            prop_assert_eq!(&alone, &before);
                            let shared = shown(prepared.render(&sel, Format::I18next, &opts));
                            prop_assert_eq!(&shared, &before);
                        }
                    }
                }
            }
        }
    }
}
