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

use crate::translations::formats::convert::Converter;
use crate::translations::formats::json::push_json_str;
use crate::translations::formats::texts::Texts;
use crate::translations::formats::tree::{Leaf, Tree, TreeSink};
use crate::translations::formats::{Format, PlaceholderMode, RenderError, RenderOptions};
use crate::translations::langtag;
use crate::translations::model::{Document, PluralCategory, Selection};
use crate::translations::placeholders::Syntax;

/// The namespace i18next loads by default, and the folder file's stem.
pub(crate) const NAMESPACE: &str = "translation";

/// Writes `sel` over `tree`. `keyed`: i18next's `resources` object of every locale, else
/// the single locale's own tree. Returns what was left out besides the tree's warnings.
pub(super) fn render(
    tree: &Tree<'_>,
    sel: &Selection,
    texts: Texts<'_>,
    opts: &RenderOptions,
    keyed: bool,
    out: &mut Vec<u8>,
) -> Result<Vec<String>, RenderError> {
    let mut sink = I18next {
        out,
        converter: Converter::new(opts, Syntax::I18next),
        checked: opts.placeholders == PlaceholderMode::Convert,
        keyed,
        levels: vec![Level::default()],
        skipping: None,
        path: Vec::new(),
        languages: HashMap::new(),
        locale: String::new(),
        warnings: Vec::new(),
    };
    sink.out.push(b'{');
    tree.walk(sel, texts, &mut sink)?;
    sink.out.push(b'}');
    Ok(sink.warnings)
}

/// A locale as i18next names a language: BCP 47 in canonical case (`en-US`, `pl-PL`,
/// `zh-Hant`); a code that is no such tag, as written.
pub(crate) fn language(code: &str) -> String {
    langtag::parse(code).map_or_else(|| code.to_owned(), |tag| tag.to_string())
}

/// What an open object has written: whether anything yet (for the commas), and the names
/// that a plural entry's forms could meet (its forms' names, and names ending in a
/// category suffix), with the key path that took each.
#[derive(Default)]
struct Level {
    wrote: bool,
    taken: Vec<(String, String)>,
}

struct I18next<'o> {
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
    warnings: Vec<String>,
}

impl I18next<'_> {
    /// Whether something at `depth` is written: the locale level only when keyed.
    fn writes(&self, depth: usize) -> bool {
        self.keyed || depth > 0
    }

    /// Starts `"name":` in the current object.
    fn key(&mut self, name: &str) {
        let level = self
            .levels
            .last_mut()
            .map(|l| std::mem::replace(&mut l.wrote, true));
        if level == Some(true) {
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

    /// The path that already took `name` in the current object, if a clash can be there.
    fn taken_by(&self, name: &str) -> Option<&str> {
        let level = self.levels.last()?;
        (level.taken.iter())
            .find(|(taken, _)| taken == name)
            .map(|(_, path)| path.as_str())
    }

    fn take(&mut self, name: &str, path: String) {
        if let Some(level) = self.levels.last_mut() {
            level.taken.push((name.to_owned(), path));
        }
    }

    /// A plain text or one form, converted and (with `convert`) checked.
    fn value(&mut self, leaf: &Leaf<'_>, plural: bool, text: &str) -> Result<(), RenderError> {
        let text = self.converter.text(leaf.entry, plural, text);
        if self.checked
            && let Some((character, reason)) = misread(&text)
        {
            return Err(RenderError::UnrepresentableText {
                format: Format::I18next,
                locale: self.locale.clone(),
                key: leaf.entry.path.join("."),
                character,
                reason,
            });
        }
        push_json_str(self.out, &text);
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
        if suffixed(name) {
            let path = self.dotted(name);
            if let Some(kept) = self.taken_by(name) {
                self.warnings.push(clash_message(kept, &path, name));
                self.skipping = Some(depth);
                return Ok(());
            }
            self.take(name, path);
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
        match leaf.plural {
            None => {
                if suffixed(leaf.name) {
                    let path = self.dotted(leaf.name);
                    if let Some(kept) = self.taken_by(leaf.name) {
                        self.warnings.push(clash_message(kept, &path, leaf.name));
                        return Ok(());
                    }
                    self.take(leaf.name, path);
                }
                self.key(leaf.name);
                self.value(leaf, false, leaf.text)
            }
            Some(forms) => {
                let path = self.dotted(leaf.name);
                let names: Vec<(String, &str)> = (forms.forms_in(leaf.locale))
                    .map(|(category, text)| (form_name(leaf.name, category), text))
                    .collect();
                if let Some((name, kept)) = (names.iter())
                    .find_map(|(name, _)| self.taken_by(name).map(|kept| (name, kept)))
                {
                    self.warnings.push(clash_message(kept, &path, name));
                    return Ok(());
                }
                for (name, text) in names {
                    self.take(&name, path.clone());
                    self.key(&name);
                    self.value(leaf, true, text)?;
                }
                Ok(())
            }
        }
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

/// Whether `name` ends in a plural suffix, so a plural entry's form could take it.
fn suffixed(name: &str) -> bool {
    (PluralCategory::ALL.iter()).any(|c| {
        name.strip_suffix(c.name())
            .is_some_and(|s| s.ends_with('_'))
    })
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
fn misread(text: &str) -> Option<(char, &'static str)> {
    let line_end = |c: char| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}');
    let mut from = 0;
    while let Some(found) = text[from..].find("{{") {
        let start = from + found;
        let Some(end) = text.get(start + 3..).and_then(|rest| rest.find("}}")) else {
            break;
        };
        let inner = &text[start + 2..start + 3 + end];
        if inner.contains(line_end) {
            from = start + 1;
            continue;
        }
        if !is_placeholder_name(inner) {
            return Some((
                '{',
                "i18next reads '{{' up to the next '}}' as an interpolation, and has no escape \
                 for it",
            ));
        }
        from = start + 3 + end + 2;
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
pub(super) struct Clash {
    /// The first entry at (or under) the node that comes first in sheet order, which
    /// keeps the name, and the other's.
    pub(super) kept: usize,
    pub(super) lost: usize,
    pub(super) name: String,
    /// What `render` reports for it.
    pub(super) message: String,
}

/// Plural entries whose form names meet a sibling key or section somewhere in `doc`: a
/// render of one locale keeps the first in sheet order and leaves the other out wherever
/// that locale has the form.
pub(super) fn clashes(doc: &Document) -> Vec<Clash> {
    if doc.entries.iter().all(|e| e.plural.is_none()) {
        return Vec::new();
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
pub(super) fn namespace_separators(doc: &Document) -> Vec<usize> {
    (doc.entries.iter().enumerate())
        .filter(|(_, entry)| entry.path.iter().any(|segment| segment.contains(':')))
        .map(|(e, _)| e)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misread_finds_what_i18next_would_interpolate_or_nest() {
        assert_eq!(misread("a {{name}} b {x} }}"), None);
        assert_eq!(misread("{{name}}} and {"), None);
        assert_eq!(misread("{{\n}} {{a}}"), None);
        assert_eq!(misread("only {{ opening"), None);
        assert_eq!(misread("$t( without closing"), None);
        assert!(misread("{{{name}}").is_some());
        assert!(misread("literal {{x y}}").is_some());
        assert!(misread("see $t(other.key)").is_some());
    }

    #[test]
    fn only_names_ending_in_a_category_can_meet_a_form() {
        assert!(suffixed("ITEMS_one"));
        assert!(suffixed("a_other"));
        assert!(!suffixed("ITEMSone"));
        assert!(!suffixed("one"));
        assert_eq!(form_name("ITEMS", PluralCategory::Few), "ITEMS_few");
    }
}
