//! Flat names for android, ios, xlf and po: the key path joined with `_` and lower-cased,
//! prefixed with the lower-cased locale and `_` when the output holds several locales (or
//! `keep_locale`); properties joins with `.`, resx writes C# identifiers, and both write a
//! plural entry as one name per category. Conflicts are settled here once, so every flat
//! format drops the same keys. The String Catalog (ios names) and ARB (Dart identifiers,
//! `dart`) key each locale's names apart and never prefix them.

use std::borrow::Cow;
use std::collections::hash_map::Entry as Slot;
use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};

use crate::formats::shared::arena::StrArena;
use crate::formats::shared::csharp;
use crate::formats::shared::texts::{Forms, Texts};
use crate::formats::{Format, shared::ahead, shared::dart};

use crate::model::{Document, Entry, PluralCategory, Selection};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameStyle {
    /// Lower-cased only (ios, xlf, po escape whatever remains).
    Plain,
    /// Also anything outside `[a-z0-9_]` becomes `_`, and a name that aapt2 or the
    /// generated `R` class would refuse (empty, leading digit, Java keyword, `_`) gets a
    /// leading `_`.
    Android,
    /// properties: lower-cased like `Plain`, the segments joined with `.`
    /// (`core.labels.yes`); a plural entry's forms are `name.one`, `name.other`.
    Dotted,
    /// resx: a C# identifier, `Core_Labels_Yes` (`csharp::push_name_segment`), a leading `_`
    /// before a digit; a plural entry's forms are `Name_One`, `Name_Other`. Names that
    /// differ only in ASCII case meet: resgen refuses them as one resource added twice.
    CSharp,
    /// ARB message ids: the path as one lowerCamelCase Dart identifier (`dart`).
    Arb,
}

impl NameStyle {
    fn separator(self) -> char {
        match self {
            NameStyle::Dotted => '.',
            _ => '_',
        }
    }

    /// A plural entry is written as one name per category, its own name never.
    pub(crate) fn suffixed(self) -> bool {
        matches!(self, NameStyle::Dotted | NameStyle::CSharp)
    }

    /// Names meet whatever their ASCII case.
    fn folds_case(self) -> bool {
        self == NameStyle::CSharp
    }
}

/// The name of a plural entry's `category` form, from the entry's `name`: `items.one`
/// (properties), `Items_One` (resx).
pub(crate) fn push_form_name(
    out: &mut String,
    name: &str,
    category: PluralCategory,
    style: NameStyle,
) {
    out.push_str(name);
    out.push(style.separator());
    let start = out.len();
    out.push_str(category.name());
    if style == NameStyle::CSharp {
        out[start..start + 1].make_ascii_uppercase();
    }
}

/// A written name as names meet in one style: exactly, or whatever their ASCII case
/// (resx). Built without a copy of the name.
#[derive(Debug, Clone)]
struct NameKey<'a> {
    name: Cow<'a, str>,
    fold: bool,
}

impl NameKey<'_> {
    fn new(name: Cow<'_, str>, style: NameStyle) -> NameKey<'_> {
        NameKey {
            name,
            fold: style.folds_case(),
        }
    }
}

impl PartialEq for NameKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        if self.fold {
            self.name.eq_ignore_ascii_case(&other.name)
        } else {
            self.name == other.name
        }
    }
}

impl Eq for NameKey<'_> {}

impl Hash for NameKey<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        if !self.fold {
            return self.name.hash(state);
        }
        let mut buf = [0u8; 32];
        for chunk in self.name.as_bytes().chunks(buf.len()) {
            let lowered = &mut buf[..chunk.len()];
            lowered.copy_from_slice(chunk);
            lowered.make_ascii_lowercase();
            state.write(lowered);
        }
        state.write_u8(0xFF);
    }
}

/// One locale of the flat output.
pub(crate) struct FlatLocale<'a> {
    pub(crate) locale: usize,
    pub(crate) code: &'a str,
    /// Empty, or e.g. `en_us_`.
    pub(crate) prefix: String,
    entries: &'a [usize],
}

impl FlatLocale<'_> {
    /// The entries selected in this locale, ascending (some may have no text here).
    pub(crate) fn entries(&self) -> &[usize] {
        self.entries
    }
}

/// One key of one locale, in output order.
pub(crate) struct FlatKey<'a> {
    /// Index in `Document::entries`.
    pub(crate) index: usize,
    pub(crate) entry: &'a Entry,
    pub(crate) prefix: &'a str,
    pub(crate) base: &'a str,
    pub(crate) text: &'a str,
    /// The forms of a plural entry (read through `Texts::plural`, not `entry`).
    pub(crate) plural: Option<Forms<'a>>,
}

impl FlatKey<'_> {
    /// The key path as the sheet writes it, for messages and xlf ids.
    pub(crate) fn dotted_path(&self) -> String {
        self.entry.path.join(".")
    }
}

/// Flat names without the locale prefix, and which entries share one: everything about
/// flat names that does not depend on the selected locales. Built once, it serves every
/// render of a document (`Prepared`); a one-off render builds it for its selection only.
#[derive(Clone)]
pub(crate) struct Names {
    /// Entry `e`'s name at `e` (absent for an entry not built).
    names: StrArena,
    /// `from_sheet[e]`: entry `e`'s name is the one the sheet gives it for the format
    /// (`Format::name_of`); empty when the sheet gives none.
    from_sheet: Vec<bool>,
    /// `group[e]`: the first built entry with the same name as `e`.
    group: Vec<usize>,
    /// Some built entry shares its name with an earlier one.
    any_shared: bool,
    /// For a suffixed style (`NameStyle::suffixed`), where a plural entry has several
    /// names and `group` cannot say who meets whom: the entries that share a name they
    /// may write (their own, or a plural form's) with another; empty for the others.
    suspects: Vec<bool>,
    style: NameStyle,
}

impl Names {
    /// Names of the entries `wanted` says (all when `None`). `unprefixed`: the names are
    /// used without a locale prefix, so for android the whole name must be a valid Java
    /// name (with a prefix, the prefix is guarded instead). `format`: the format written,
    /// whose name the sheet's name columns may give an entry (SPEC §12.1), taken verbatim
    /// (`None`: names from the paths only).
    pub(crate) fn build(
        doc: &Document,
        style: NameStyle,
        format: Option<Format>,
        unprefixed: bool,
        wanted: Option<&[bool]>,
    ) -> Names {
        // Reading each key's path segments is a cache miss apiece on a large sheet: the
        // entries are split between the cores, each naming its own part.
        let entries = doc.entries.len();
        let parts = crate::parallel::ranges(entries, entries >= PARALLEL_FROM_ENTRIES);
        let built = crate::parallel::map(parts.len(), &parts, |part| {
            let is_wanted = |e: usize| wanted.is_none_or(|w| w[e]);
            let mut names = StrArena::with_capacity(part.len(), 0);
            let mut from_sheet = Vec::new();
            let mut scratch = String::new();
            for (e, entry) in part.clone().zip(&doc.entries[part.clone()]) {
                ahead::path(doc, |k| {
                    Some(e + k).filter(|&e| e < entries && is_wanted(e))
                });
                if !is_wanted(e) {
                    names.push(None);
                } else if let Some(name) = format.and_then(|f| f.name_of(entry)) {
                    names.push(Some(name));
                    from_sheet.resize(e - part.start, false);
                    from_sheet.push(true);
                } else if style == NameStyle::Android && unprefixed {
                    // The guard depends on the whole name, so build it apart first.
                    android_name_into(&mut scratch, &entry.path);
                    names.push(Some(&scratch));
                } else {
                    names.push_built(|out| push_path_name(out, &entry.path, style));
                }
            }
            (names, from_sheet)
        });
        let mut names: Option<StrArena> = None;
        let mut from_sheet = Vec::new();
        for ((part_names, part_from_sheet), part) in built.into_iter().zip(&parts) {
            match &mut names {
                None => names = Some(part_names),
                Some(names) => names.append(part_names),
            }
            if !part_from_sheet.is_empty() {
                from_sheet.resize(part.start, false);
                from_sheet.extend(part_from_sheet);
            }
        }
        let names = names.unwrap_or_default();
        let mut group: Vec<usize> = (0..doc.entries.len()).collect();
        if style.suffixed() {
            let suspects = suffixed_suspects(doc, &names, style);
            return Names {
                any_shared: suspects.contains(&true),
                names,
                from_sheet,
                group,
                suspects,
                style,
            };
        }
        let mut any_shared = false;
        let mut first_by_name: FxHashMap<&str, usize> =
            FxHashMap::with_capacity_and_hasher(doc.entries.len(), Default::default());
        for (e, group) in group.iter_mut().enumerate() {
            let Some(name) = names.get(e) else {
                continue;
            };
            let first = *first_by_name.entry(name).or_insert(e);
            *group = first;
            any_shared |= first != e;
        }
        Names {
            names,
            from_sheet,
            group,
            any_shared,
            suspects: Vec::new(),
            style,
        }
    }

    fn base(&self, entry: usize) -> &str {
        self.names.get(entry).unwrap_or_default()
    }

    /// Entry `entry`'s name ("" for an entry not built).
    pub(crate) fn name(&self, entry: usize) -> &str {
        self.base(entry)
    }

    /// Whether entry `entry`'s name is the one the sheet gives it for the format the
    /// names were built for (`Format::name_of`): a writer that treats such names apart
    /// asks here, not the entry's name cells again for every locale.
    pub(crate) fn named_by_sheet(&self, entry: usize) -> bool {
        self.from_sheet.get(entry).is_some_and(|&named| named)
    }
}

/// For a suffixed style: which built entries may share a name they write (a plain entry
/// its own, a plural entry each of its forms' in any locale) with another entry, by a
/// hash of the name as names meet (`NameKey`): a hash shared by chance only makes two
/// more suspects, which the renders compare by name.
fn suffixed_suspects(doc: &Document, names: &StrArena, style: NameStyle) -> Vec<bool> {
    let mut suspects = vec![false; doc.entries.len()];
    let mut first_by_hash: FxHashMap<u64, usize> =
        FxHashMap::with_capacity_and_hasher(doc.entries.len(), Default::default());
    let mut meet = |name: &str, e: usize, suspects: &mut [bool]| {
        let mut hasher = FxHasher::default();
        NameKey::new(Cow::Borrowed(name), style).hash(&mut hasher);
        match first_by_hash.entry(hasher.finish()) {
            Slot::Occupied(first) if *first.get() != e => {
                suspects[*first.get()] = true;
                suspects[e] = true;
            }
            Slot::Occupied(_) => {}
            Slot::Vacant(slot) => {
                slot.insert(e);
            }
        }
    };
    let mut form_name = String::new();
    for (e, entry) in doc.entries.iter().enumerate() {
        let Some(name) = names.get(e) else {
            continue;
        };
        match &entry.plural {
            None => meet(name, e, &mut suspects),
            Some(plural) => {
                for form in &plural.forms {
                    form_name.clear();
                    push_form_name(&mut form_name, name, form.category, style);
                    meet(&form_name, e, &mut suspects);
                }
            }
        }
    }
    suspects
}

/// Below this many entries, names are built on the calling thread alone.
const PARALLEL_FROM_ENTRIES: usize = 20_000;

/// Every entry's key path joined with `.`, as xlf writes unit ids: built once per
/// document, so the renders do not chase each entry's path segments again.
pub(crate) fn dotted_paths(doc: &Document) -> StrArena {
    let mut paths = StrArena::with_capacity(doc.entries.len(), 0);
    for entry in &doc.entries {
        paths.push_built(|out| {
            for (i, segment) in entry.path.iter().enumerate() {
                if i > 0 {
                    out.push('.');
                }
                out.push_str(segment);
            }
        });
    }
    paths
}

/// What a flattening can take from `Prepared` instead of building it.
pub(crate) struct Shared<'a> {
    pub(crate) names: Cow<'a, Names>,
    pub(crate) texts: Texts<'a>,
    pub(crate) dotted_paths: Option<&'a StrArena>,
}

pub(crate) struct Flat<'a> {
    pub(crate) doc: &'a Document,
    style: NameStyle,
    pub(crate) texts: Texts<'a>,
    /// Built beforehand (`Prepared`), else `None`: see `dotted_paths`.
    dotted_paths: Option<&'a StrArena>,
    pub(crate) locales: Vec<FlatLocale<'a>>,
    names: Cow<'a, Names>,
    /// (position in `locales`, entry) pairs that lost a name conflict.
    dropped: FxHashSet<(usize, usize)>,
    pub(crate) warnings: Vec<String>,
}

impl<'a> Flat<'a> {
    /// Flattens `sel` on its own: names are built for the selected entries only.
    pub(crate) fn build(
        doc: &'a Document,
        sel: &'a Selection,
        style: NameStyle,
        format: Option<Format>,
        keep_locale: bool,
    ) -> Flat<'a> {
        let wanted = sel.entries_in_any_locale(doc.entries.len());
        let unprefixed = !Flat::prefixed(sel, keep_locale);
        let names = Names::build(doc, style, format, unprefixed, Some(&wanted));
        let shared = Shared {
            names: Cow::Owned(names),
            texts: Texts::Rows(doc),
            dotted_paths: None,
        };
        Flat::with_shared(doc, sel, style, keep_locale, shared)
    }

    /// Whether names carry the locale prefix: several locales, or `keep_locale`.
    pub(crate) fn prefixed(sel: &Selection, keep_locale: bool) -> bool {
        keep_locale
            || sel
                .locales
                .iter()
                .filter(|ls| !ls.entries.is_empty())
                .count()
                > 1
    }

    /// `build` for the formats that key each locale apart (String Catalog languages, ARB
    /// files): names never carry the locale, and they meet only within one locale.
    pub(crate) fn build_unprefixed(
        doc: &'a Document,
        sel: &'a Selection,
        style: NameStyle,
        format: Option<Format>,
    ) -> Flat<'a> {
        let wanted = sel.entries_in_any_locale(doc.entries.len());
        let names = Names::build(doc, style, format, true, Some(&wanted));
        let shared = Shared {
            names: Cow::Owned(names),
            texts: Texts::Rows(doc),
            dotted_paths: None,
        };
        Flat::assemble(doc, sel, style, false, shared)
    }

    /// `with_shared` for the formats of `build_unprefixed`.
    pub(crate) fn with_shared_unprefixed(
        doc: &'a Document,
        sel: &'a Selection,
        style: NameStyle,
        shared: Shared<'a>,
    ) -> Flat<'a> {
        Flat::assemble(doc, sel, style, false, shared)
    }

    /// Flattens `sel` with names built beforehand (for all entries, or at least the selected
    /// ones, with the style and prefixing `prefixed` gives for this selection).
    pub(crate) fn with_shared(
        doc: &'a Document,
        sel: &'a Selection,
        style: NameStyle,
        keep_locale: bool,
        shared: Shared<'a>,
    ) -> Flat<'a> {
        let prefixed = Flat::prefixed(sel, keep_locale);
        Flat::assemble(doc, sel, style, prefixed, shared)
    }

    fn assemble(
        doc: &'a Document,
        sel: &'a Selection,
        style: NameStyle,
        prefixed: bool,
        shared: Shared<'a>,
    ) -> Flat<'a> {
        let mut locales: Vec<FlatLocale<'a>> = sel
            .locales
            .iter()
            .filter(|ls| !ls.entries.is_empty())
            .map(|ls| FlatLocale {
                locale: ls.locale,
                code: &doc.locales[ls.locale],
                prefix: String::new(),
                entries: &ls.entries,
            })
            .collect();
        if prefixed {
            for loc in &mut locales {
                let mut prefix = String::with_capacity(loc.code.len() + 1);
                push_path_name(&mut prefix, &[loc.code], style);
                prefix.push(style.separator());
                if style == NameStyle::Android {
                    guard_java_name(&mut prefix);
                }
                loc.prefix = prefix;
            }
        }
        let mut flat = Flat {
            doc,
            style,
            texts: shared.texts,
            dotted_paths: shared.dotted_paths,
            locales,
            names: shared.names,
            dropped: FxHashSet::default(),
            warnings: Vec::new(),
        };
        flat.find_conflicts();
        flat
    }

    fn base(&self, entry: usize) -> &str {
        self.names.base(entry)
    }

    /// Entry `entry`'s name without the locale prefix.
    pub(crate) fn name(&self, entry: usize) -> &str {
        self.base(entry)
    }

    /// `Names::from_sheet`.
    pub(crate) fn named_by_sheet(&self, entry: usize) -> bool {
        self.names.named_by_sheet(entry)
    }

    /// Whether entry `entry` lost its name in the locale at `pos` (another one kept it).
    pub(crate) fn lost_name(&self, pos: usize, entry: usize) -> bool {
        !self.dropped.is_empty() && self.dropped.contains(&(pos, entry))
    }

    /// Entry `index`'s key path joined with `.`.
    pub(crate) fn dotted_path(&self, index: usize) -> Cow<'_, str> {
        match self.dotted_paths.and_then(|paths| paths.get(index)) {
            Some(path) => Cow::Borrowed(path),
            None => Cow::Owned(
                self.doc
                    .entries
                    .get(index)
                    .map(|e| e.path.join("."))
                    .unwrap_or_default(),
            ),
        }
    }

    /// The selected keys of one locale that have a text, conflict losers left out.
    pub(crate) fn keys<'s>(
        &'s self,
        pos: usize,
        loc: &'s FlatLocale<'a>,
    ) -> impl Iterator<Item = FlatKey<'s>> + 's {
        self.keys_reading_ahead(pos, loc, None, false)
    }

    /// `keys`, for xlf: it also reads each key's texts in the base locale `base` and its
    /// dotted path (`<source>` and the unit id), so those are read ahead too (`ahead`).
    pub(crate) fn keys_with_sources<'s>(
        &'s self,
        pos: usize,
        loc: &'s FlatLocale<'a>,
        base: Option<usize>,
    ) -> impl Iterator<Item = FlatKey<'s>> + 's {
        self.keys_reading_ahead(pos, loc, base, self.dotted_paths.is_none())
    }

    /// `keys`, reading ahead the texts in `loc`'s locale and in `base`, and the key paths
    /// when `paths`.
    fn keys_reading_ahead<'s>(
        &'s self,
        pos: usize,
        loc: &'s FlatLocale<'a>,
        base: Option<usize>,
        paths: bool,
    ) -> impl Iterator<Item = FlatKey<'s>> + 's {
        loc.entries.iter().enumerate().filter_map(move |(i, &e)| {
            let at = |k: usize| loc.entries.get(i + k).copied();
            self.texts.read_ahead(loc.locale, at);
            if let Some(base) = base {
                self.texts.read_ahead(base, at);
            }
            if paths {
                ahead::path(self.doc, at);
            }
            if !self.dropped.is_empty() && self.dropped.contains(&(pos, e)) {
                return None;
            }
            let text = self.texts.get(e, loc.locale)?;
            Some(FlatKey {
                index: e,
                entry: &self.doc.entries[e],
                prefix: &loc.prefix,
                base: self.base(e),
                text,
                plural: self.texts.plural(e),
            })
        })
    }

    /// Names are prefix + base. When no prefix is a prefix of another (always, unless two
    /// locale codes clash like `en` and `en_core`), names of different locales cannot
    /// meet, so it is enough to compare bases within each locale, by the group ids of
    /// `Names` (for a suffixed style, only the entries `Names` suspects). Otherwise every
    /// full name is compared.
    fn find_conflicts(&mut self) {
        let fold = self.style.folds_case();
        let starts_with = |name: &str, prefix: &str| {
            name.get(..prefix.len()).is_some_and(|head| {
                if fold {
                    head.eq_ignore_ascii_case(prefix)
                } else {
                    head == prefix
                }
            })
        };
        // Without any prefix each locale's names are apart (a catalog language, a file).
        let unprefixed = self.locales.iter().all(|l| l.prefix.is_empty());
        let prefix_free = unprefixed
            || self.locales.iter().enumerate().all(|(i, a)| {
                (self.locales.iter().enumerate())
                    .all(|(j, b)| i == j || !starts_with(&b.prefix, &a.prefix))
            });
        let mut reported = FxHashSet::default();
        let mut dropped = Vec::new();
        if prefix_free && !self.names.any_shared {
            return;
        }
        if prefix_free && !self.style.suffixed() {
            let group = &self.names.group;
            let mut stamp = vec![usize::MAX; self.doc.entries.len()];
            let mut kept_by = vec![0usize; self.doc.entries.len()];
            for (pos, loc) in self.locales.iter().enumerate() {
                for &e in loc.entries {
                    if self.texts.get(e, loc.locale).is_none() {
                        continue;
                    }
                    let g = group[e];
                    if stamp[g] == pos {
                        dropped.push((pos, kept_by[g], e, None));
                    } else {
                        stamp[g] = pos;
                        kept_by[g] = e;
                    }
                }
            }
        } else {
            // by full written names: of every entry, or (prefix-free, suffixed) of the
            // suspects of each locale
            let mut seen = FxHashMap::default();
            for (pos, loc) in self.locales.iter().enumerate() {
                if prefix_free {
                    seen.clear();
                }
                let entries = loc.entries.iter().copied().filter(|&e| {
                    let suspect = !prefix_free || self.names.suspects.get(e) == Some(&true);
                    suspect && self.texts.get(e, loc.locale).is_some()
                });
                let names_of = |e: usize| {
                    let (base, locale) = (self.base(e), loc.locale);
                    written_names(self.texts, &loc.prefix, base, e, locale, self.style)
                };
                for (kept, lost, name) in settle_by_names(&mut seen, self.style, entries, names_of)
                {
                    dropped.push((pos, kept, lost, Some(name)));
                }
            }
        }
        for (pos, kept, lost, name) in dropped {
            self.dropped.insert((pos, lost));
            if reported.insert((kept, lost)) {
                let name = name
                    .unwrap_or_else(|| format!("{}{}", self.locales[pos].prefix, self.base(lost)));
                self.warnings
                    .push(collision_message(self.doc, kept, lost, &name));
            }
        }
    }
}

/// The names entry `e` is written under in `locale`: `prefix` + `base`, or for a plural
/// entry in a suffixed style, one per form the locale has.
fn written_names(
    texts: Texts<'_>,
    prefix: &str,
    base: &str,
    e: usize,
    locale: usize,
    style: NameStyle,
) -> Vec<String> {
    let name = format!("{prefix}{base}");
    match texts.plural(e).filter(|_| style.suffixed()) {
        None => vec![name],
        Some(forms) => (forms.forms_in(locale))
            .map(|(category, _)| {
                let mut full = String::with_capacity(name.len() + 6);
                push_form_name(&mut full, &name, category, style);
                full
            })
            .collect(),
    }
}

/// Goes through `entries` in order, each written under `names_of(e)`: an entry one of
/// whose names an earlier one took (in `seen`) loses, the first is kept. Gives (kept,
/// lost, the name they meet at).
fn settle_by_names(
    seen: &mut FxHashMap<NameKey<'static>, usize>,
    style: NameStyle,
    entries: impl Iterator<Item = usize>,
    names_of: impl Fn(usize) -> Vec<String>,
) -> Vec<(usize, usize, String)> {
    let mut lost = Vec::new();
    for e in entries {
        let keys: Vec<NameKey<'static>> = (names_of(e).into_iter())
            .map(|name| NameKey::new(Cow::Owned(name), style))
            .collect();
        let met = (keys.iter()).find_map(|key| Some((*seen.get(key)?, key.name.to_string())));
        match met {
            Some((kept, name)) => lost.push((kept, e, name)),
            None => {
                for key in keys {
                    seen.insert(key, e);
                }
            }
        }
    }
    lost
}

fn collision_message(doc: &Document, kept: usize, lost: usize, name: &str) -> String {
    let path = |e: usize| {
        doc.entries
            .get(e)
            .map(|e| e.path.join("."))
            .unwrap_or_default()
    };
    let (kept, lost) = (path(kept), path(lost));
    format!(
        "keys '{kept}' and '{lost}' both become the name '{name}'; kept '{kept}', left out '{lost}'"
    )
}

/// The name collisions of `style` that a render of one whole locale (a `generate` file, an
/// unfiltered request for that locale) reports, over every locale, each pair once. Names
/// are built once for the document; only entries whose name is shared are looked at per
/// locale, so a document without collisions costs one pass over its keys.
pub(crate) fn collisions(doc: &Document, style: NameStyle, format: Option<Format>) -> Vec<String> {
    let names = Names::build(doc, style, format, true, None);
    if !names.any_shared {
        return Vec::new();
    }
    if style.suffixed() {
        return suffixed_collisions(doc, &names);
    }
    let mut members = vec![0usize; doc.entries.len()];
    for &g in &names.group {
        members[g] += 1;
    }
    let shared: Vec<usize> = (0..doc.entries.len())
        .filter(|&e| members[names.group[e]] > 1)
        .collect();
    let mut reported = FxHashSet::default();
    let mut warnings = Vec::new();
    let mut kept_in_locale: FxHashMap<usize, usize> = FxHashMap::default();
    for locale in 0..doc.locales.len() {
        kept_in_locale.clear();
        for &e in &shared {
            if Texts::Rows(doc).get(e, locale).is_none() {
                continue;
            }
            let kept = *kept_in_locale.entry(names.group[e]).or_insert(e);
            if kept != e && reported.insert((kept, e)) {
                warnings.push(collision_message(doc, kept, e, names.base(e)));
            }
        }
    }
    warnings
}

/// `collisions` of a suffixed style: per locale, the written names of the entries `names`
/// suspects, in entry order.
fn suffixed_collisions(doc: &Document, names: &Names) -> Vec<String> {
    (suffixed_met(doc, names).into_iter())
        .map(|(kept, lost, name)| collision_message(doc, kept, lost, &name))
        .collect()
}

/// The pairs of `suffixed_collisions`: (kept, lost, the name they meet at), each pair once.
fn suffixed_met(doc: &Document, names: &Names) -> Vec<(usize, usize, String)> {
    let suspects: Vec<usize> = (0..doc.entries.len())
        .filter(|&e| names.suspects.get(e) == Some(&true))
        .collect();
    let texts = Texts::Rows(doc);
    let mut reported = FxHashSet::default();
    let mut met = Vec::new();
    let mut seen = FxHashMap::default();
    for locale in 0..doc.locales.len() {
        seen.clear();
        let entries = (suspects.iter().copied()).filter(|&e| texts.get(e, locale).is_some());
        let names_of = |e| written_names(texts, "", names.base(e), e, locale, names.style);
        for (kept, lost, name) in settle_by_names(&mut seen, names.style, entries, names_of) {
            if reported.insert((kept, lost)) {
                met.push((kept, lost, name));
            }
        }
    }
    met
}

/// `same_names` for a suffixed style (properties, resx), a plural entry's forms included:
/// every pair of entries that meet at a name they write in some locale.
pub(crate) fn suffixed_same_names(
    doc: &Document,
    style: NameStyle,
    format: Option<Format>,
) -> Vec<(usize, usize, String)> {
    let names = Names::build(doc, style, format, true, None);
    if !names.any_shared {
        return Vec::new();
    }
    let mut met = suffixed_met(doc, &names);
    met.sort_by_key(|&(_, lost, _)| lost);
    met
}

/// Every entry whose unprefixed name of `style` an earlier entry has, as (that first
/// entry, this one, name), in entry order: the checks' findings for the formats that key
/// each locale apart.
pub(crate) fn same_names(
    doc: &Document,
    style: NameStyle,
    format: Option<Format>,
) -> Vec<(usize, usize, String)> {
    let names = Names::build(doc, style, format, true, None);
    if !names.any_shared {
        return Vec::new();
    }
    (names.group.iter().enumerate())
        .filter(|&(e, &first)| first != e)
        .map(|(e, &first)| (first, e, names.base(e).to_owned()))
        .collect()
}

/// The unprefixed plain name of a key path (ios, xlf, po).
pub(crate) fn plain_name(path: &[String]) -> String {
    let mut name = String::new();
    push_path_name(&mut name, path, NameStyle::Plain);
    name
}

/// The unprefixed name of a key path in `style`, as a file of one locale writes it.
pub(crate) fn unprefixed_name(path: &[String], style: NameStyle) -> String {
    let mut name = String::new();
    match style {
        NameStyle::Android => android_name_into(&mut name, path),
        _ => push_path_name(&mut name, path, style),
    }
    name
}

/// The unprefixed android name of a key path into `out` (cleared first).
fn android_name_into(out: &mut String, path: &[String]) {
    out.clear();
    push_path_name(out, path, NameStyle::Android);
    guard_java_name(out);
}

/// A hash of the unprefixed android name of a key path, for `name_clashes`: taken where
/// the path is at hand (the sheet builder makes it), so that finding clashes need not
/// read every key path again. `scratch` is reused between calls.
pub(crate) fn android_name_hash(path: &[String], scratch: &mut String) -> u64 {
    android_name_into(scratch, path);
    let mut hasher = FxHasher::default();
    std::hash::Hasher::write(&mut hasher, scratch.as_bytes());
    std::hash::Hasher::finish(&hasher)
}

/// Every pair of entries whose unprefixed android names are equal, as (first entry,
/// later entry, name), in the later entry's order, for the checks before publishing.
/// `hash_of(e)` is `android_name_hash` of entry `e`: only entries whose hash another
/// entry shares can clash, and only their names are built and compared (a hash shared by
/// chance costs a comparison, never a finding).
pub(crate) fn name_clashes(
    doc: &Document,
    hash_of: impl Fn(usize) -> u64,
) -> Vec<(usize, usize, String)> {
    let entries = doc.entries.len();
    let mut first_by_hash: FxHashMap<u64, usize> =
        FxHashMap::with_capacity_and_hasher(entries, Default::default());
    let mut suspects = Vec::new();
    for e in 0..entries {
        let first = *first_by_hash.entry(hash_of(e)).or_insert(e);
        if first != e {
            suspects.extend([first, e]);
        }
    }
    suspects.sort_unstable();
    suspects.dedup();
    let mut first_by_name: FxHashMap<String, usize> = FxHashMap::default();
    let mut clashes = Vec::new();
    let mut name = String::new();
    for e in suspects {
        android_name_into(&mut name, &doc.entries[e].path);
        match first_by_name.get(&name) {
            Some(&kept) => clashes.push((kept, e, name.clone())),
            None => {
                first_by_name.insert(name.clone(), e);
            }
        }
    }
    clashes
}

/// The android name hash (`android_name_hash`) of the key a plural entry's `category`
/// form would be if it were a key of its own: `ITEMS[one]` as `ITEMS.one`.
fn android_form_hash(path: &[String], category: PluralCategory, scratch: &mut String) -> u64 {
    scratch.clear();
    push_path_name(scratch, path, NameStyle::Android);
    scratch.push('_');
    scratch.push_str(category.name());
    guard_java_name(scratch);
    let mut hasher = FxHasher::default();
    std::hash::Hasher::write(&mut hasher, scratch.as_bytes());
    std::hash::Hasher::finish(&hasher)
}

/// The clashes of each suffixed style in `styles` (properties, resx), for the checks:
/// among `android` (what `name_clashes` found), the pairs of plain keys whose names meet in
/// the style too (names equal there are equal in android); and the clashes of plural
/// forms, which android names do not show (`ITEMS[one]` and a key `ITEMS_ONE` both become
/// `Items_One`): a form is hashed as android would name a key `ITEMS.one` (forms equal in
/// either style are equal there too), so only forms and keys whose hashes meet are named.
/// (style, first entry, later entry, name), per style in the later entry's order.
pub(crate) fn suffixed_name_clashes(
    doc: &Document,
    hash_of: impl Fn(usize) -> u64,
    android: &[(usize, usize, String)],
    styles: &[NameStyle],
) -> Vec<(NameStyle, usize, usize, String)> {
    let is_plural = |e: usize| {
        doc.entries
            .get(e)
            .is_some_and(|entry| entry.plural.is_some())
    };
    let mut scratch = String::new();
    // every plural form, by hash (sorted: forms sharing a hash lie together)
    let mut forms: Vec<(u64, usize, PluralCategory)> = Vec::new();
    for (e, entry) in doc.entries.iter().enumerate() {
        for form in entry.plural.iter().flat_map(|plural| &plural.forms) {
            let hash = android_form_hash(&entry.path, form.category, &mut scratch);
            forms.push((hash, e, form.category));
        }
    }
    forms.sort_unstable();
    let with_hash = |hash: u64| {
        let start = forms.partition_point(|f| f.0 < hash);
        let end = start + forms[start..].partition_point(|f| f.0 == hash);
        &forms[start..end]
    };
    // (entry, its form; None for a plain key's own name)
    let mut suspects: Vec<(usize, Option<PluralCategory>)> = Vec::new();
    for &(kept, lost, _) in android {
        if !is_plural(kept) && !is_plural(lost) {
            suspects.extend([(kept, None), (lost, None)]);
        }
    }
    if !forms.is_empty() {
        let hashes: FxHashSet<u64> = forms.iter().map(|f| f.0).collect();
        for e in 0..doc.entries.len() {
            // the precomputed hash first: most entries are not read at all
            let hash = hash_of(e);
            if hashes.contains(&hash) && !is_plural(e) {
                suspects.push((e, None));
                suspects.extend(
                    with_hash(hash)
                        .iter()
                        .map(|&(_, f, category)| (f, Some(category))),
                );
            }
        }
    }
    for same in forms.chunk_by(|a, b| a.0 == b.0) {
        if same.iter().any(|&(_, e, _)| e != same[0].1) {
            suspects.extend(same.iter().map(|&(_, e, category)| (e, Some(category))));
        }
    }
    suspects.sort_unstable();
    suspects.dedup();
    let mut clashes = Vec::new();
    for &style in styles {
        let mut first_by_name: FxHashMap<NameKey<'static>, usize> = FxHashMap::default();
        let mut reported = FxHashSet::default();
        for &(e, form) in &suspects {
            let mut name = String::new();
            push_path_name(&mut name, &doc.entries[e].path, style);
            if let Some(category) = form {
                let base = std::mem::take(&mut name);
                push_form_name(&mut name, &base, category, style);
            }
            match first_by_name.entry(NameKey::new(Cow::Owned(name.clone()), style)) {
                Slot::Occupied(first) => {
                    let kept = *first.get();
                    if kept != e && reported.insert((kept, e)) {
                        clashes.push((style, kept, e, name));
                    }
                }
                Slot::Vacant(slot) => {
                    slot.insert(e);
                }
            }
        }
    }
    clashes
}

fn push_path_name<S: AsRef<str>>(out: &mut String, path: &[S], style: NameStyle) {
    if style == NameStyle::Arb {
        dart::push_message_id(out, path);
        return;
    }
    let first = path.first().map_or("", AsRef::as_ref);
    if style == NameStyle::CSharp && first.starts_with(|c: char| c.is_ascii_digit()) {
        // a C# identifier cannot start with a digit (and only an ASCII digit there
        // gives one: `push_name_segment` writes anything else as a letter or `_`)
        out.push('_');
    }
    for (i, segment) in path.iter().enumerate() {
        if i > 0 {
            out.push(style.separator());
        }
        match style {
            NameStyle::CSharp => csharp::push_name_segment(out, segment.as_ref()),
            _ => push_lowered(out, segment.as_ref(), style),
        }
    }
}

fn push_lowered(out: &mut String, s: &str, style: NameStyle) {
    // Most keys are ASCII letters, digits and `_`: one copy, lower-cased in place.
    let plain = match style {
        NameStyle::Plain | NameStyle::Dotted | NameStyle::Arb => s.is_ascii(),
        NameStyle::Android | NameStyle::CSharp => {
            s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        }
    };
    if plain {
        let start = out.len();
        out.push_str(s);
        out[start..].make_ascii_lowercase();
        return;
    }
    let keep = |c: char| match style {
        NameStyle::Plain | NameStyle::Dotted | NameStyle::Arb => c,
        _ if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' => c,
        NameStyle::Android | NameStyle::CSharp => '_',
    };
    for c in s.chars() {
        out.extend(c.to_lowercase().map(keep));
    }
}

/// aapt2 refuses an entry name that is empty or starts with a digit; the generated `R`
/// class cannot hold a Java keyword (nor `_`, a keyword since Java 9). A leading `_`
/// fixes all of these and is itself allowed by aapt2.
fn guard_java_name(name: &mut String) {
    while name.is_empty()
        || name.starts_with(|c: char| c.is_ascii_digit())
        || (could_be_reserved(name) && JAVA_RESERVED.binary_search(&name.as_str()).is_ok())
    {
        name.insert(0, '_');
    }
}

/// Whether `name` can be in `JAVA_RESERVED` at all (only lower-case letters, or `_`): the
/// usual name (`section_key`) is told apart without the search.
fn could_be_reserved(name: &str) -> bool {
    name == "_" || name.bytes().all(|b| b.is_ascii_lowercase())
}

/// Java keywords and literals, sorted for `binary_search`.
const JAVA_RESERVED: [&str; 54] = [
    "_",
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "false",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "true",
    "try",
    "void",
    "volatile",
    "while",
];

/// What aapt2 accepts as a resource entry name, restricted to the ASCII this module
/// writes, and what javac accepts in `R`.
#[cfg(test)]
pub(crate) fn is_valid_android_name(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
    first_ok
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && JAVA_RESERVED.binary_search(&name).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LocaleSelection;

    fn doc(locales: &[&str], paths: &[&str]) -> Document {
        Document {
            settings: Default::default(),
            namespaces: Vec::new(),
            findings: Vec::new(),
            locales: locales.iter().map(|l| l.to_string()).collect(),
            entries: paths
                .iter()
                .map(|p| Entry {
                    path: p.split('.').map(str::to_owned).collect(),
                    texts: locales.iter().map(|_| Some(format!("text {p}"))).collect(),
                    ..Entry::default()
                })
                .collect(),
            warnings: Vec::new(),
        }
    }

    fn names(flat: &Flat<'_>) -> Vec<String> {
        let mut out = Vec::new();
        for (pos, loc) in flat.locales.iter().enumerate() {
            for key in flat.keys(pos, loc) {
                out.push(format!("{}{}", key.prefix, key.base));
            }
        }
        out
    }

    #[test]
    fn java_reserved_is_sorted_for_binary_search() {
        assert!(JAVA_RESERVED.iter().all(|word| could_be_reserved(word)));
        assert!(JAVA_RESERVED.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn single_locale_names_have_no_prefix_and_keep_locale_adds_it() {
        let d = doc(&["en_US", "pl"], &["CORE.LABELS.YES"]);
        let all = Selection::all(&d);
        let sel = Selection {
            locales: vec![LocaleSelection {
                locale: 0,
                entries: vec![0].into(),
            }],
        };
        let flat = Flat::build(&d, &sel, NameStyle::Plain, None, false);
        assert_eq!(names(&flat), ["core_labels_yes"]);
        let flat = Flat::build(&d, &sel, NameStyle::Plain, None, true);
        assert_eq!(names(&flat), ["en_us_core_labels_yes"]);
        let flat = Flat::build(&d, &all, NameStyle::Plain, None, false);
        assert_eq!(
            names(&flat),
            ["en_us_core_labels_yes", "pl_core_labels_yes"]
        );
    }

    #[test]
    fn android_names_map_to_a_z_0_9_and_get_guarded() {
        let d = doc(&["en-GB"], &["Ünïcode key.x-y", "1ST.A", "NEW", "_"]);
        let all = Selection::all(&d);
        let flat = Flat::build(&d, &all, NameStyle::Android, None, false);
        assert_eq!(names(&flat), ["_n_code_key_x_y", "_1st_a", "_new", "__"]);
        let flat = Flat::build(&d, &all, NameStyle::Android, None, true);
        assert_eq!(
            names(&flat),
            [
                "en_gb__n_code_key_x_y",
                "en_gb_1st_a",
                "en_gb_new",
                "en_gb__"
            ]
        );
        assert!(names(&flat).iter().all(|n| is_valid_android_name(n)));
    }

    #[test]
    fn plain_names_keep_unicode_lower_cased() {
        let d = doc(&["pl"], &["ZAŻÓŁĆ.Gęślą"]);
        let all = Selection::all(&d);
        let flat = Flat::build(&d, &all, NameStyle::Plain, None, false);
        assert_eq!(names(&flat), ["zażółć_gęślą"]);
    }

    #[test]
    fn conflicting_names_keep_the_first_and_warn_once() {
        let d = doc(&["en", "pl"], &["A.B_C", "A_B.C", "X", "a.b.c"]);
        let all = Selection::all(&d);
        let flat = Flat::build(&d, &all, NameStyle::Plain, None, false);
        assert_eq!(
            names(&flat),
            ["en_a_b_c", "en_x", "pl_a_b_c", "pl_x"],
            "the second and fourth keys lose in both locales"
        );
        assert_eq!(
            flat.warnings,
            [
                "keys 'A.B_C' and 'A_B.C' both become the name 'en_a_b_c'; kept 'A.B_C', left out 'A_B.C'",
                "keys 'A.B_C' and 'a.b.c' both become the name 'en_a_b_c'; kept 'A.B_C', left out 'a.b.c'",
            ]
        );
    }

    /// A sheet large enough to be named on several threads gives the names and clashes
    /// one thread gives, clashes across the parts' boundaries included.
    #[test]
    fn names_built_in_parts_are_the_names_built_at_once() {
        let count = 2 * PARALLEL_FROM_ENTRIES + 7;
        let mut paths: Vec<String> = (0..count).map(|i| format!("S{}.K{i}", i % 7)).collect();
        // the last key clashes with the first, a middle one with a later one
        paths[count - 1] = "s0_k0".to_owned();
        paths[count / 2] = format!("S{}.k{}", (count / 2 + 1) % 7, count / 2 + 1);
        let d = doc(
            &["en"],
            &paths.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        let names = Names::build(&d, NameStyle::Android, None, true, None);
        for (e, path) in paths.iter().enumerate() {
            let mut expected = String::new();
            push_path_name(&mut expected, &d.entries[e].path, NameStyle::Android);
            guard_java_name(&mut expected);
            assert_eq!(names.base(e), expected, "{path}");
        }
        let mut scratch = String::new();
        let hashes: Vec<u64> = (d.entries.iter())
            .map(|e| android_name_hash(&e.path, &mut scratch))
            .collect();
        let clashes = name_clashes(&d, |e| hashes[e]);
        // hashes that all meet (the worst chance can do) find the same clashes
        assert_eq!(name_clashes(&d, |_| 7), clashes);
        assert_eq!(
            clashes,
            [
                (
                    count / 2,
                    count / 2 + 1,
                    format!("s{}_k{}", (count / 2 + 1) % 7, count / 2 + 1)
                ),
                (0, count - 1, "s0_k0".to_owned()),
            ]
        );
    }

    #[test]
    fn first_kept_is_relative_to_what_the_locale_selected() {
        let d = doc(&["en"], &["A.B", "A_B"]);
        let sel = Selection {
            locales: vec![LocaleSelection {
                locale: 0,
                entries: vec![1].into(),
            }],
        };
        let flat = Flat::build(&d, &sel, NameStyle::Plain, None, false);
        assert_eq!(names(&flat), ["a_b"]);
        assert!(flat.warnings.is_empty());
    }

    #[test]
    fn clashing_locale_prefixes_are_compared_by_full_name() {
        // `en` + `core_x` and `en_core` + `x` meet at `en_core_x`.
        let d = doc(&["en", "en_core"], &["CORE.X", "X"]);
        let all = Selection::all(&d);
        let flat = Flat::build(&d, &all, NameStyle::Plain, None, false);
        assert_eq!(names(&flat), ["en_core_x", "en_x", "en_core_core_x"]);
        assert_eq!(
            flat.warnings,
            ["keys 'CORE.X' and 'X' both become the name 'en_core_x'; kept 'CORE.X', left out 'X'"]
        );
    }
    /// A sheet of `keys` keys, some named for po, some for every format (`@@@`), some
    /// for another format only, some not at all.
    fn named_doc(keys: usize) -> Document {
        let mut d = doc(&["en"], &[]);
        for k in 0..keys {
            let mut entry = Entry {
                path: vec![format!("K{k}")],
                texts: vec![Some("t".to_owned())],
                ..Entry::default()
            };
            match k % 5 {
                0 => {}
                1 => drop(entry.names.insert("po".into(), format!("ctx\u{4}Key {k}"))),
                2 => drop(entry.names.insert(String::new(), format!("Key.{k}"))),
                3 => drop(entry.names.insert("android".into(), format!("key_{k}"))),
                _ => drop(entry.names.insert("ios".into(), format!("Key {k}"))),
            }
            d.entries.push(entry);
        }
        d
    }

    #[test]
    fn names_say_which_the_sheet_gave_as_the_entries_name_cells_do() {
        // several parts built side by side (`PARALLEL_FROM_ENTRIES`), and one
        for keys in [PARALLEL_FROM_ENTRIES + 7, 23] {
            let d = named_doc(keys);
            let some: Vec<bool> = (0..keys).map(|e| e % 3 != 0).collect();
            for format in [
                Format::Po,
                Format::Ios,
                Format::Android,
                Format::Stringsdict,
            ] {
                for wanted in [None, Some(some.as_slice())] {
                    let names = Names::build(&d, NameStyle::Plain, Some(format), true, wanted);
                    for (e, entry) in d.entries.iter().enumerate() {
                        let built = wanted.is_none_or(|w| w[e]);
                        let given = format.name_of(entry).filter(|_| built);
                        assert_eq!(names.named_by_sheet(e), given.is_some(), "{format:?} {e}");
                        if let Some(given) = given {
                            assert_eq!(names.name(e), given);
                        }
                    }
                }
            }
            let unnamed = Names::build(&d, NameStyle::Plain, None, true, None);
            assert!((0..keys).all(|e| !unnamed.named_by_sheet(e)));
        }
    }
}
