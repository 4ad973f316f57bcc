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

use crate::formats::json::write::push_json_str;
use crate::formats::shared::convert::Converter;
use crate::formats::shared::nested::V3_PLURAL;
use crate::formats::shared::tree::{Leaf, Tree, TreeSink};
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
    if let Some(renamed) = renamed(job.doc) {
        let tree = Tree::build(&renamed, job.sel);
        let left_out = render(&tree, job, out)?;
        return Ok(tree.warnings.iter().cloned().chain(left_out).collect());
    }
    let tree = job.tree();
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

/// The document as i18next names its keys when the sheet names some (SPEC §12.1): an
/// entry with a name is a key of its own at the top of its namespace's file, the name one
/// level (the app sets `keySeparator: false`); `None` when the sheet names none, and the
/// document's own paths are i18next's. The entries stay in their places, so selections
/// and texts of the document serve this one alike.
fn renamed(doc: &Document) -> Option<Document> {
    let named = |e: &Entry| Format::I18next.name_of(e).is_some();
    if !doc.entries.iter().any(named) {
        return None;
    }
    let mut renamed = doc.clone();
    let namespaced = !doc.namespaces.is_empty();
    for entry in &mut renamed.entries {
        if let Some(name) = Format::I18next.name_of(entry).map(str::to_owned) {
            let keep = usize::from(namespaced).min(entry.path.len());
            entry.path.truncate(keep);
            entry.path.push(name);
        }
        // renamed once: its paths are i18next's now
        entry.names.clear();
    }
    Some(renamed)
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
    match renamed(doc) {
        Some(renamed) => Tree::build_all(&renamed).warnings,
        None => Tree::build_all(doc).warnings,
    }
}

/// Entries the sheet gives one i18next name in one namespace: (the first, a later one,
/// the name). The render keeps the first.
pub(crate) fn named_clashes(doc: &Document) -> Vec<(usize, usize, String)> {
    let mut first: HashMap<(&str, &str), usize> = HashMap::new();
    let mut found = Vec::new();
    for (e, entry) in doc.entries.iter().enumerate() {
        let Some(name) = Format::I18next.name_of(entry) else {
            continue;
        };
        let namespace = match doc.namespaces.is_empty() {
            true => "",
            false => entry.path.first().map_or("", String::as_str),
        };
        match first.get(&(namespace, name)) {
            Some(&kept) => found.push((kept, e, name.to_owned())),
            None => {
                first.insert((namespace, name), e);
            }
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
                key: leaf.entry.path.join("."),
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
    if let Some(renamed) = renamed(doc) {
        return clashes(&renamed);
    }
    // every node (key or section) by its path, with the first entry at or under it
    let mut first_under: HashMap<&[String], usize> = HashMap::new();
    for (e, entry) in doc.entries.iter().enumerate() {
        for len in 1..=entry.path.len() {
            first_under.entry(&entry.path[..len]).or_insert(e);
        }
    }
    let mut found = Vec::new();
    let mut sibling = Vec::new();
    for (e, entry) in doc.entries.iter().enumerate() {
        let (Some(plural), Some((key, parent))) = (&entry.plural, entry.path.split_last()) else {
            continue;
        };
        for form in plural
            .forms
            .iter()
            .filter(|f| f.texts.iter().any(Option::is_some))
        {
            let name = form_name(key, form.category);
            sibling.clear();
            sibling.extend_from_slice(parent);
            sibling.push(name.clone());
            let Some(&other) = first_under.get(sibling.as_slice()) else {
                continue;
            };
            let (plural_path, other_path) = (entry.path.join("."), sibling.join("."));
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
}
