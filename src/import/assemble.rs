//! The units of every file into one `Document`: keys made into sheet key paths (flat names
//! split at `--split`, any `.` a level since the sheet refuses it in a key cell), locales
//! matched as the sheet matches them (`en-US` is `en_US`), the base locale first, texts of
//! one key and locale from two files compared (the first is kept, a difference listed),
//! and what a sheet cannot hold listed: empty texts, key cells it would read otherwise
//! (surrounding spaces, `NAME[word]`, control characters), a key that is also a section.
//! Placeholder types a file declares apart from its texts (ARB metadata) type the key's
//! texts in every locale, the base locale's file's declaration winning.

use std::collections::{HashMap, HashSet};

use super::discover::Found;
use super::{FileRead, Format, ImportError, Imported, Key, Note, Options, Value};
use crate::formats::shared::locale::Hint;
use crate::formats::shared::syntax::{self, Kind};
use crate::model::locale::{locale_key, same_locale};
use crate::model::placeholders::COUNT;
use crate::model::{Document, Entry, MAX_KEY_DEPTH, Plural, PluralCategory, PluralForm};
use rustc_hash::{FxHashMap, FxHashSet};

/// Joins key levels for lookups (a character no key cell holds: they refuse controls).
const SEPARATOR: char = '\u{1F}';
/// The same, as the byte the joined paths hold (they are bytes, so that a `.` becomes a
/// separator by a store to one byte; UTF-8 in, UTF-8 out: both are ASCII).
const SEPARATOR_BYTE: u8 = SEPARATOR as u8;

/// A key's placeholders with the types its file declares for them.
type PlaceholderTypes = Vec<(String, Kind)>;

pub struct Assembler<'o> {
    options: &'o Options,
    locales: Vec<String>,
    locale_index: HashMap<Vec<u8>, usize>,
    /// Whether each locale is the base one.
    is_base: Vec<bool>,
    /// The keys of units that found their entry, dropped with the assembler: freed while
    /// files are still being read, on another thread than the one that allocated them,
    /// they cost glibc's allocator a third more time in all (its arenas' locks and
    /// consolidation, measured with `perf` on `import` of json).
    spent_keys: Vec<Key>,
    /// The entry the last unit went to.
    last_put: Option<usize>,
    entries: Vec<Entry>,
    /// Whether an entry's comment came from a base-locale file (which wins).
    comment_from_base: Vec<bool>,
    /// Keys by joined path; Fx hashing, as the renderers' name maps (the keys come from the
    /// user's own files, so SipHash's flooding resistance buys nothing here).
    index: FxHashMap<Vec<u8>, usize>,
    /// Reused for each unit's joined key path (an allocation only for a new key).
    scratch: Vec<u8>,
    /// Every entry's path joined as `index` keys it, back to back in entry order, and
    /// where each ends: the next entry's path is read from memory the files' order walks
    /// in sequence, where an entry's own levels lie wherever they were allocated (a
    /// cache miss per level per unit, a tenth of a large import's time).
    joined_paths: Vec<u8>,
    joined_ends: Vec<usize>,
    /// How many locales the texts of a new key make room for at once.
    locales_hint: usize,
    notes: Vec<Note>,
    files: Vec<(String, Format)>,
    /// Declared placeholder types by joined key path, and whether a base-locale file
    /// declared them.
    types: FxHashMap<Vec<u8>, (bool, PlaceholderTypes)>,
    /// What the document, notes and spent keys take so far, estimated (`held`).
    held: u64,
    /// The printf of the file being added, when texts are kept as the app writes them:
    /// Android's and Apple's text of one key are then one text when they mean the same.
    printf: Option<syntax::Printf>,
    /// What the files' shapes ask of the settings cell (`FileRead::implies`).
    implies: crate::model::SheetSettings,
    /// Some file names JSON v3's numbered plural forms (`FileRead::v3_numbered`).
    v3_numbered: bool,
    /// The app's names (SPEC §12.1): per entry, the formats (bits of `Format as usize`)
    /// whose key was compared with the name depot would give it.
    compared: Vec<u16>,
    /// The entries whose key some format names otherwise than depot would, with those
    /// names (`apply_names` makes them the entry's name cells).
    app_names: FxHashMap<usize, Vec<(Format, String)>>,
    /// The entries whose path was made for them (a key a key cell cannot hold), by the
    /// app's name: found by that name, and never the entry of another key.
    renamed: FxHashMap<String, usize>,
    renamed_entries: HashSet<usize>,
}

/// Estimated bytes of memory behind each thing the assembler keeps, beside the bytes of
/// its strings (measured: `import` of a million one-word json keys, and of 50,000 keys x
/// 20 locales, peaks at about twice what these add up to, the sheet made of the document
/// and its encoded bytes coming on top; docs/design.md "Memory budget").
const ENTRY_COST: u64 = 200;
const TEXT_COST: u64 = 64;
const NOTE_COST: u64 = 160;

impl<'o> Assembler<'o> {
    pub fn new(options: &'o Options) -> Assembler<'o> {
        Assembler {
            options,
            locales: Vec::new(),
            locale_index: HashMap::new(),
            is_base: Vec::new(),
            spent_keys: Vec::new(),
            last_put: None,
            entries: Vec::new(),
            comment_from_base: Vec::new(),
            index: FxHashMap::default(),
            scratch: Vec::new(),
            joined_paths: Vec::new(),
            joined_ends: Vec::new(),
            locales_hint: 1,
            notes: Vec::new(),
            files: Vec::new(),
            types: FxHashMap::default(),
            held: 0,
            printf: None,
            implies: Default::default(),
            v3_numbered: false,
            compared: Vec::new(),
            app_names: FxHashMap::default(),
            renamed: FxHashMap::default(),
            renamed_entries: HashSet::new(),
        }
    }

    /// The memory the assembled document will have taken by the time its sheet is written
    /// (the document, the sheet made of it and the sheet's bytes), estimated.
    pub fn held(&self) -> u64 {
        self.held.saturating_mul(2)
    }

    /// Counts what one file added: its units' texts, and the entries and notes made since
    /// `entries` and `notes` (their numbers before the file).
    fn account(&mut self, units: u64, entries: usize, notes: usize) {
        let mut added = units;
        for entry in &self.entries[entries.min(self.entries.len())..] {
            let key: usize = entry.path.iter().map(String::len).sum();
            added += ENTRY_COST + 2 * key as u64;
        }
        for note in &self.notes[notes.min(self.notes.len())..] {
            added += NOTE_COST + (note.file.len() + note.key.len() + note.what.len()) as u64;
        }
        self.held = self.held.saturating_add(added);
    }

    /// Room for about `locales` locales in each key's texts from the start: files come one
    /// locale after another, so a key's texts would otherwise grow with every file.
    pub fn expecting_locales(mut self, locales: usize) -> Assembler<'o> {
        self.locales_hint = locales.clamp(1, 64);
        self
    }

    fn note(&mut self, file: &str, line: usize, key: &str, what: impl Into<String>) {
        self.notes.push(Note {
            file: file.to_owned(),
            line,
            key: key.to_owned(),
            what: what.into(),
            kept: false,
        });
    }

    /// Adds what one file gave.
    pub fn add(&mut self, found: &Found, read: FileRead) -> Result<(), ImportError> {
        let (entries, notes) = (self.entries.len(), self.notes.len());
        let units: u64 = read.units.iter().map(unit_cost).sum();
        let added = self.add_units(found, read);
        self.account(units, entries, notes);
        added
    }

    fn add_units(&mut self, found: &Found, read: FileRead) -> Result<(), ImportError> {
        let file = found.shown.as_str();
        self.files.push((file.to_owned(), found.format));
        self.implies.add(&read.implies);
        self.v3_numbered |= read.v3_numbered;
        let kept = self.options.placeholders == crate::formats::PlaceholderMode::Keep;
        self.printf = found.format.descriptor().printf.filter(|_| kept);
        if let Some(qualifiers) = &found.configuration {
            if !read.units.is_empty() {
                let what = format!(
                    "{} text(s) for the configuration '-{qualifiers}' are not carried: the sheet holds one text per locale",
                    read.units.len()
                );
                self.note(file, 0, "", what);
            }
            return Ok(());
        }
        for (line, key, what) in read.notes {
            self.note(file, line, &key, what);
        }
        for (line, key, what) in read.kept {
            self.note(file, line, &key, what);
            if let Some(note) = self.notes.last_mut() {
                note.kept = true;
            }
        }
        let named = match &found.hint {
            Hint::Code(code) => Some(code.clone()),
            Hint::Base => Some(self.options.base.clone()),
            Hint::None => None,
        };
        // ARB's @@locale is what gen-l10n goes by; elsewhere the name is generate's inverse
        let file_locale = match found.format.descriptor().declares_locale {
            true => read.locale.or(named),
            false => named.or(read.locale),
        }
        .or_else(|| self.options.locale.clone());
        let from_base = file_locale
            .as_deref()
            .is_some_and(|l| same_locale(l, &self.options.base));
        for declared in read.types {
            let Ok(path) = self.path(declared.key, &mut (0, String::new())) else {
                continue;
            };
            let key = joined(&path);
            match self.types.get(&key) {
                Some((true, _)) => {}
                Some((false, _)) if !from_base => {}
                _ => {
                    self.types.insert(key, (from_base, declared.types));
                }
            }
        }
        let mut dotted = (0usize, String::new());
        // the file's locale column, and those its units name, each found once
        let mut file_column = None;
        let mut named_columns: Vec<(String, usize)> = Vec::new();
        for unit in read.units {
            let locale = match (&unit.locale, file_column) {
                (None, Some(column)) => column,
                (None, None) => {
                    let Some(code) = &file_locale else {
                        return Err(ImportError::NoLocale {
                            path: file.to_owned(),
                        });
                    };
                    let column = self.locale(code, file)?;
                    file_column = Some(column);
                    column
                }
                // a catalog names every unit's locale, a few codes over and over: each
                // found by its spelling, not by its normalised key (an allocation)
                (Some(code), _) => match named_columns.iter().find(|(known, _)| known == code) {
                    Some((_, column)) => *column,
                    None => {
                        let column = self.locale(code, file)?;
                        // a list, scanned: as long as a sheet's locales, not a file's whim
                        if named_columns.len() < 64 {
                            named_columns.push((code.clone(), column));
                        }
                        column
                    }
                },
            };
            // a key met before (in another locale's file, mostly) is found without
            // building its path: it was a valid one then
            if let Some(index) = self.known(&unit.key)
                && !self.renamed_entries.contains(&index)
            {
                if key_has_dot(&unit.key) {
                    dotted.0 += 1;
                    if dotted.1.is_empty() {
                        let levels = &self.entries[index].path;
                        dotted.1 = format!("{} → {}", unit.key.display(), levels.join(" › "));
                    }
                }
                self.put_at(index, file, unit.line, locale, unit.value, unit.comment);
                self.compare_name(index, found.format, &unit.key);
                self.spent_keys.push(unit.key);
                continue;
            }
            let shown = unit.key.display();
            let app_name = app_name(found.format, &unit.key);
            if let Some(&index) = app_name.as_ref().and_then(|n| self.renamed.get(n)) {
                self.put_at(index, file, unit.line, locale, unit.value, unit.comment);
                self.compare_name(index, found.format, &unit.key);
                continue;
            }
            let key = unit.key.clone();
            let (path, made) = match (self.path(unit.key, &mut dotted), app_name) {
                (Ok(path), Some(name)) if self.taken_by_renamed(&path) => {
                    (self.renamed_path(&path.join("_")), Some(name))
                }
                (Ok(path), _) => (path, None),
                // what a key cell cannot hold, the name column carries (SPEC §12.1)
                (Err(_), Some(name)) => (self.renamed_path(&name), Some(name)),
                (Err(why), None) => {
                    self.note(file, unit.line, &shown, why);
                    continue;
                }
            };
            if let Some(index) = self.put(file, unit.line, path, locale, unit.value, unit.comment) {
                if let Some(name) = made {
                    self.renamed.insert(name, index);
                    self.renamed_entries.insert(index);
                }
                self.compare_name(index, found.format, &key);
            }
        }
        if dotted.0 > 0 && !found.format.takes_names() {
            let what = format!(
                "{} key(s) hold '.', which the sheet reads as a level separator: read as levels (e.g. {}); flat formats write them joined with '_'",
                dotted.0, dotted.1
            );
            self.note(file, 0, "", what);
        }
        Ok(())
    }

    /// The column of locale `code`, added when new.
    fn locale(&mut self, code: &str, file: &str) -> Result<usize, ImportError> {
        let key = locale_key(code);
        if let Some(&index) = self.locale_index.get(&key) {
            return Ok(index);
        }
        let why = if code.trim().is_empty() {
            Some("it is empty")
        } else if code.contains('.') {
            Some("it holds '.', which separates filter segments")
        } else if code.trim() != code || code.chars().any(char::is_control) {
            Some("it holds spaces or control characters at its ends")
        } else if matches!(code, "*" | ">>>" | "###" | "$$$") {
            Some("it is one of the sheet's marks")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(ImportError::BadLocale {
                path: file.to_owned(),
                locale: code.to_owned(),
                why,
            });
        }
        self.locales.push(code.to_owned());
        self.is_base.push(same_locale(code, &self.options.base));
        self.locale_index.insert(key, self.locales.len() - 1);
        Ok(self.locales.len() - 1)
    }

    /// The sheet key path of a file's key, or why it has none.
    fn path(&self, key: Key, dotted: &mut (usize, String)) -> Result<Vec<String>, String> {
        let levels: Vec<String> = match key {
            Key::Flat(name) => match &self.options.split {
                Some(sep) if !sep.is_empty() => {
                    name.split(sep.as_str()).map(str::to_owned).collect()
                }
                _ => vec![name],
            },
            Key::Path(path) => path,
            // a dotted path: each `.` ends a level, as the format writes it (no note)
            Key::Dotted(path) => path.split('.').map(str::to_owned).collect(),
        };
        let path: Vec<String> = if levels.iter().any(|l| l.contains('.')) {
            let path: Vec<String> = levels
                .iter()
                .flat_map(|l| l.split('.'))
                .map(str::to_owned)
                .collect();
            dotted.0 += 1;
            if dotted.1.is_empty() {
                dotted.1 = format!("{} → {}", levels.join("."), path.join(" › "));
            }
            path
        } else {
            levels
        };
        if path.len() > MAX_KEY_DEPTH {
            return Err(format!(
                "the key has {} levels; the sheet holds at most {MAX_KEY_DEPTH}: not carried",
                path.len()
            ));
        }
        for level in &path {
            if level.is_empty() {
                return Err("the key has an empty level (two separators in a row, or one at an end): not carried".to_owned());
            }
            if level.trim() != level {
                return Err("the key starts or ends with a space, which the sheet trims from key cells: not carried".to_owned());
            }
            if level.chars().any(char::is_control) {
                return Err(
                    "the key holds a control character, which a key cell cannot: not carried"
                        .to_owned(),
                );
            }
            if looks_plural(level) {
                return Err(format!(
                    "the key '{level}' reads as a plural row (NAME[category]) in the sheet: not carried"
                ));
            }
        }
        Ok(path)
    }

    /// The entry a key already has, looked up by the path `path` would make of it (flat
    /// names split at `--split`, every `.` a level). The files of one app list their keys
    /// in one order, so the entry after the last one given a text is tried first: its
    /// joined path lies next to the last one's (`joined_paths`), where a lookup in the
    /// index waits for memory twice (the bucket, then the key it holds).
    fn known(&mut self, key: &Key) -> Option<usize> {
        let split = self.options.split.as_deref().filter(|s| !s.is_empty());
        if !join_key(&mut self.scratch, key, split) {
            return None;
        }
        let next = self.last_put.map_or(0, |last| last + 1);
        if self.joined_path(next) == Some(self.scratch.as_slice()) {
            return Some(next);
        }
        self.index.get(self.scratch.as_slice()).copied()
    }

    /// Entry `index`'s path joined as `index` keys it, as it was made.
    fn joined_path(&self, index: usize) -> Option<&[u8]> {
        let end = *self.joined_ends.get(index)?;
        let start = index
            .checked_sub(1)
            .map_or(0, |before| self.joined_ends[before]);
        self.joined_paths.get(start..end)
    }

    fn put(
        &mut self,
        file: &str,
        line: usize,
        path: Vec<String>,
        locale: usize,
        value: Value,
        comment: Option<String>,
    ) -> Option<usize> {
        if matches!(&value, Value::Text(text) if text.is_empty()) {
            let shown = path.join(".");
            self.note(
                file,
                line,
                &shown,
                "an empty text is not carried: an empty cell means no text",
            );
            return None;
        }
        if let Value::Plural(forms) = &value
            && forms.iter().all(|(_, t)| t.is_empty())
        {
            return None;
        }
        join_into(&mut self.scratch, &path);
        let index = match self.index.get(self.scratch.as_slice()) {
            Some(&index) => index,
            None => {
                let index = self.entries.len();
                self.index.insert(self.scratch.clone(), index);
                self.joined_paths.extend_from_slice(&self.scratch);
                self.joined_ends.push(self.joined_paths.len());
                self.entries.push(Entry {
                    path,
                    texts: Vec::with_capacity(self.locales_hint.max(locale + 1)),
                    tags: Vec::new(),
                    comment: None,
                    plural: matches!(value, Value::Plural(_)).then(|| Box::new(Plural::default())),
                    names: Default::default(),
                });
                self.comment_from_base.push(false);
                self.compared.push(0);
                index
            }
        };
        self.put_at(index, file, line, locale, value, comment);
        Some(index)
    }

    /// Whether `path` is the path of an entry made for a key a key cell cannot hold.
    fn taken_by_renamed(&self, path: &[String]) -> bool {
        !self.renamed_entries.is_empty()
            && (self.index.get(&joined(path))).is_some_and(|i| self.renamed_entries.contains(i))
    }

    /// A one-level path for the key the app names `name`, made of `from` as a key cell
    /// holds it (`.` and control characters as `_`, no spaces at its ends, no `NAME[word]`)
    /// and numbered (`_2`, `_3`, …) past every path taken; the name column keeps the key.
    fn renamed_path(&self, from: &str) -> Vec<String> {
        let mut level: String = (from.chars())
            .map(|c| if c == '.' || c.is_control() { '_' } else { c })
            .collect::<String>()
            .trim()
            .to_owned();
        if looks_plural(&level) {
            level = level.replace('[', "(").replace(']', ")");
        }
        if level.is_empty() {
            level.push('_');
        }
        let mut candidate = level.clone();
        let mut n = 1;
        while self.index.contains_key(candidate.as_bytes()) {
            n += 1;
            candidate = format!("{level}_{n}");
        }
        vec![candidate]
    }

    /// Compares the app's key of entry `index` in `format` with the name depot would give
    /// its path there (once per entry and format), keeping the app's where they differ.
    fn compare_name(&mut self, index: usize, format: Format, key: &Key) {
        let bit = 1u16 << (format as usize);
        let Some(compared) = self.compared.get_mut(index) else {
            return;
        };
        if *compared & bit != 0 {
            return;
        }
        *compared |= bit;
        let Some(name) = app_name(format, key) else {
            return;
        };
        let path = &self.entries[index].path;
        let depot = (format.descriptor().key_names.depot)(path, Some(key));
        if depot.is_some_and(|depot| depot != name) {
            self.app_names
                .entry(index)
                .or_default()
                .push((format, name));
        }
    }

    /// The app's names into the entries' name cells: one for every format (`@@@`) when
    /// every format the key was read in names it alike, else one per format that names it
    /// otherwise than depot would (`@@@<format>`).
    fn apply_names(&mut self) {
        for (index, named) in std::mem::take(&mut self.app_names) {
            let (Some(entry), Some(&compared)) =
                (self.entries.get_mut(index), self.compared.get(index))
            else {
                continue;
            };
            let depot_named = (Format::ALL.into_iter())
                .filter(|&f| compared & (1u16 << (f as usize)) != 0)
                .filter(|f| !named.iter().any(|(n, _)| n == f))
                .filter_map(|f| depot_name(f, &entry.path));
            let first = &named[0].1;
            let alike = named.iter().all(|(_, n)| n == first);
            if alike && depot_named.into_iter().all(|n| n == *first) {
                entry.names.insert(String::new(), first.clone());
                continue;
            }
            for (format, name) in named {
                entry.names.insert(format.names_key().to_owned(), name);
            }
        }
    }

    /// A unit's text (or forms) and comment into entry `index`.
    fn put_at(
        &mut self,
        index: usize,
        file: &str,
        line: usize,
        locale: usize,
        value: Value,
        comment: Option<String>,
    ) {
        let value = match value {
            Value::Text(text) if text.is_empty() => {
                let shown = self.entries[index].path.join(".");
                self.note(
                    file,
                    line,
                    &shown,
                    "an empty text is not carried: an empty cell means no text",
                );
                return;
            }
            Value::Plural(mut forms) => {
                forms.retain(|(_, t)| !t.is_empty());
                if forms.is_empty() {
                    return;
                }
                Value::Plural(forms)
            }
            v => v,
        };
        self.last_put = Some(index);
        let is_base = self.is_base[locale];
        let entry = &mut self.entries[index];
        if let Some(comment) = comment.filter(|c| !c.is_empty())
            && (entry.comment.is_none() || (is_base && !self.comment_from_base[index]))
        {
            entry.comment = Some(comment);
            self.comment_from_base[index] = is_base;
        }
        let mut differs = None;
        match (value, &mut entry.plural) {
            (Value::Text(text), None) => {
                if entry.texts.len() <= locale {
                    entry.texts.resize(locale + 1, None);
                }
                match &entry.texts[locale] {
                    None => entry.texts[locale] = Some(text),
                    Some(first) if *first == text => {}
                    Some(first) => match self.printf.and_then(|p| same_printf(first, &text, p)) {
                        Some(one) => entry.texts[locale] = Some(one),
                        None => differs = Some("its text"),
                    },
                }
            }
            (Value::Plural(forms), Some(plural)) => {
                for (category, text) in forms {
                    let at = match plural.forms.iter().position(|f| f.category == category) {
                        Some(at) => at,
                        None => {
                            plural.forms.push(PluralForm {
                                category,
                                texts: Vec::with_capacity(self.locales_hint.max(locale + 1)),
                            });
                            plural.forms.len() - 1
                        }
                    };
                    let texts = &mut plural.forms[at].texts;
                    if texts.len() <= locale {
                        texts.resize(locale + 1, None);
                    }
                    match &texts[locale] {
                        None => texts[locale] = Some(text),
                        Some(first) if *first == text => {}
                        Some(first) => {
                            match self.printf.and_then(|p| same_printf(first, &text, p)) {
                                Some(one) => texts[locale] = Some(one),
                                None => differs = Some("a plural form"),
                            }
                        }
                    }
                }
            }
            (Value::Text(_), Some(_)) => differs = Some("a text where a plural was read before"),
            (Value::Plural(_), None) => differs = Some("a plural where a text was read before"),
        }
        if let Some(what) = differs {
            let locale = self.locales[locale].clone();
            let shown = self.entries[index].path.join(".");
            self.note(
                file,
                line,
                &shown,
                format!("{what} for {locale} differs from the one read before from another file: the first is kept"),
            );
        }
    }

    /// The document: locales with the base first, keys in first-read order.
    pub fn finish(mut self) -> Imported {
        // which paths are sections, found once: again only when some path changed
        let mut sections = self.are_sections();
        if self.repath_sections(sections.as_deref()) {
            sections = self.are_sections();
        }
        self.apply_names();
        self.drop_keys_that_are_sections(sections);
        self.apply_types();
        let count = self.locales.len();
        let base = self
            .locales
            .iter()
            .position(|l| same_locale(l, &self.options.base))
            .or_else(|| {
                self.locales.iter().position(|l| {
                    l.split(['_', '-'])
                        .next()
                        .is_some_and(|lang| lang.eq_ignore_ascii_case(&self.options.base))
                })
            });
        // base first, then the others in the order they were met
        let order: Vec<usize> = base
            .into_iter()
            .chain((0..count).filter(|&i| Some(i) != base))
            .collect();
        let reorder = |texts: &mut Vec<Option<String>>| {
            texts.resize(count, None);
            if base.is_some_and(|b| b != 0) {
                let mut old = std::mem::take(texts);
                *texts = order.iter().map(|&i| old[i].take()).collect();
            }
        };
        for entry in &mut self.entries {
            reorder(&mut entry.texts);
            if let Some(plural) = &mut entry.plural {
                plural.forms.sort_by_key(|f| f.category);
                for form in &mut plural.forms {
                    reorder(&mut form.texts);
                }
                // the model's rule: a plural entry's text slot holds `other`'s text, else
                // the first form's, where some form has one
                entry.texts = (0..count)
                    .map(|l| {
                        plural
                            .text(PluralCategory::Other, l)
                            .or_else(|| plural.forms_in(l).next().map(|(_, t)| t))
                            .map(str::to_owned)
                    })
                    .collect();
            }
        }
        let locales = order.iter().map(|&i| self.locales[i].clone()).collect();
        // the keys of a million units and the index, freed beside what the caller does
        // next (the sheet's grid, a comparison) rather than before it, on its one thread
        crate::parallel::free_beside((
            std::mem::take(&mut self.spent_keys),
            std::mem::take(&mut self.index),
        ));
        Imported {
            placeholders: None,
            doc: Document {
                settings: self.implies,
                namespaces: Vec::new(),
                locales,
                entries: self.entries,
                warnings: Vec::new(),
                findings: Vec::new(),
            },
            notes: self.notes,
            files: self.files,
            skipped: Vec::new(),
            namespaces: Vec::new(),
            namespace: None,
            v3_numbered: self.v3_numbered,
            tags_read: false,
        }
    }

    /// Types each declared placeholder in every locale's text of its key (`{n}` →
    /// `{n:int}`); in a plural form the quantity stays `{count}`, the sheet's plain way.
    fn apply_types(&mut self) {
        if self.types.is_empty() {
            return;
        }
        let mut joined = Vec::new();
        for entry in &mut self.entries {
            join_into(&mut joined, &entry.path);
            let Some((_, types)) = self.types.get(joined.as_slice()) else {
                continue;
            };
            let kind = |name: &str| types.iter().find(|(n, _)| n == name).map(|(_, k)| *k);
            for text in entry.texts.iter_mut().flatten() {
                *text = syntax::retype(text, kind);
            }
            if let Some(plural) = &mut entry.plural {
                let form_kind = |name: &str| (name != COUNT).then(|| kind(name)).flatten();
                for form in &mut plural.forms {
                    for text in form.texts.iter_mut().flatten() {
                        *text = syntax::retype(text, form_kind);
                    }
                }
            }
        }
    }

    /// A key whose path is also a section, read only from formats whose keys the name
    /// columns name: a path of its own (one level, as `renamed_path` makes it), its names
    /// kept, rather than left out (the levels were the sheet's reading of its dots).
    /// `sections`: `are_sections`. Whether some path changed.
    fn repath_sections(&mut self, sections: Option<&[bool]>) -> bool {
        let Some(sections) = sections else {
            return false;
        };
        let mut changed = false;
        let named = |mask: u16| {
            mask != 0
                && (Format::ALL.into_iter())
                    .filter(|&f| mask & (1u16 << (f as usize)) != 0)
                    // formats whose keys are flat names
                    .all(|f| f.descriptor().name_style.is_some())
        };
        let repathed =
            (sections.iter().enumerate()).filter_map(|(index, &section)| section.then_some(index));
        for index in repathed {
            let mask = self.compared.get(index).copied().unwrap_or(0);
            let Some(old) = self.entries.get(index).map(|e| &e.path) else {
                continue;
            };
            if !named(mask) {
                continue;
            }
            // every format's name, as the app has it, before the path changes
            let had = self.app_names.remove(&index).unwrap_or_default();
            let names: Vec<(Format, String)> = (Format::ALL.into_iter())
                .filter(|&f| mask & (1u16 << (f as usize)) != 0)
                .filter_map(|f| match had.iter().find(|(g, _)| *g == f) {
                    Some((_, name)) => Some((f, name.clone())),
                    None => Some((f, depot_name(f, old)?)),
                })
                .collect();
            let path = self.renamed_path(&old.join("_"));
            self.index.remove(&joined(old));
            self.index.insert(joined(&path), index);
            self.entries[index].path = path;
            self.renamed_entries.insert(index);
            changed = true;
            if !names.is_empty() {
                self.app_names.insert(index, names);
            }
        }
        changed
    }

    /// A path that is a key and also holds keys: the sheet keeps the section (SPEC §6.1),
    /// so the key is listed and left out. `sections`: `are_sections`.
    fn drop_keys_that_are_sections(&mut self, sections: Option<Vec<bool>>) {
        let Some(sections) = sections else {
            return;
        };
        let mut kept = Vec::with_capacity(self.entries.len());
        for (entry, section) in std::mem::take(&mut self.entries).into_iter().zip(sections) {
            if section {
                let what = "the key is also a section (other keys lie below it), which the sheet keeps instead of the text: not carried";
                self.note("", 0, &entry.path.join("."), what);
            } else {
                kept.push(entry);
            }
        }
        self.entries = kept;
    }

    /// Whether each entry's path is also a section (the start of another entry's path);
    /// `None` when no path has sections at all. Paths are compared level by level, in
    /// place: equal exactly when joined as `index` keys them (no level holds
    /// `SEPARATOR`: a key cell refuses control characters, and `renamed_path` replaces
    /// them).
    fn are_sections(&self) -> Option<Vec<bool>> {
        let sections: FxHashSet<&[String]> = (self.entries.iter())
            .flat_map(|e| (1..e.path.len()).map(|n| &e.path[..n]))
            .collect();
        if sections.is_empty() {
            return None;
        }
        let is_section = |e: &Entry| sections.contains(e.path.as_slice());
        Some(self.entries.iter().map(is_section).collect())
    }
}

/// A key path's levels joined as `index` keys them.
fn joined(path: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    join_into(&mut out, path);
    out
}

/// `joined` into `out` (cleared first), for the lookups made per unit or entry.
fn join_into(out: &mut Vec<u8>, path: &[String]) {
    out.clear();
    for (n, level) in path.iter().enumerate() {
        if n > 0 {
            out.push(SEPARATOR_BYTE);
        }
        out.extend_from_slice(level.as_bytes());
    }
}

/// The key as the app's code names it in `format`, for the name columns: `None` for the
/// formats whose keys are nested paths (json, yml; i18next but for a key of one level,
/// which an app with `keySeparator: false` looks up whole).
fn app_name(format: Format, key: &Key) -> Option<String> {
    (format.descriptor().key_names.app)(key)
}

/// The name depot gives `path` in `format` (`Format::depot_name`).
fn depot_name(format: Format, path: &[String]) -> Option<String> {
    format.depot_name(path)
}

/// The one text that gives back both `first` (read before, from the other platform's
/// file) and `text` (read now, from a file of `printf`) when generate maps it to each
/// platform's printf (`syntax::printf_as`): `Pay %1$s` and `Pay %1$@`, `%s` and `%@`,
/// `%d` and `%ld` mean the same. `None`: they really differ.
fn same_printf(first: &str, text: &str, printf: syntax::Printf) -> Option<String> {
    let (android, apple) = match printf {
        syntax::Printf::Java => (text, first),
        syntax::Printf::Apple => (first, text),
    };
    [apple, android]
        .into_iter()
        .find(|one| {
            syntax::printf_as(one, syntax::Printf::Java) == android
                && syntax::printf_as(one, syntax::Printf::Apple) == apple
        })
        .map(str::to_owned)
}

/// The path `known` looks `key` up by, joined as the index's keys are, into `scratch`
/// (cleared first): its levels (a flat name one, split at `--split`'s separator `split`),
/// each split at every `.`. False when a level holds the separator itself, which would
/// join like another key's levels.
fn join_key(scratch: &mut Vec<u8>, key: &Key, split: Option<&str>) -> bool {
    scratch.clear();
    let push = |scratch: &mut Vec<u8>, level: &str, split: Option<&str>| {
        if memchr::memchr(SEPARATOR_BYTE, level.as_bytes()).is_some() {
            return false;
        }
        let start = scratch.len();
        scratch.extend_from_slice(level.as_bytes());
        if let Some(sep) = split {
            replace_in_place(scratch, start, sep);
        }
        replace_in_place(scratch, start, ".");
        true
    };
    match key {
        Key::Flat(name) => push(scratch, name, split),
        // only flat names are split at --split
        Key::Path(path) => path.iter().enumerate().all(|(n, level)| {
            if n > 0 {
                scratch.push(SEPARATOR_BYTE);
            }
            push(scratch, level, None)
        }),
        Key::Dotted(path) => push(scratch, path, None),
    }
}

/// What a unit's text, forms and comment take once assembled (`held`).
fn unit_cost(unit: &super::Unit) -> u64 {
    let texts = match &unit.value {
        Value::Text(text) => TEXT_COST + text.len() as u64,
        Value::Plural(forms) => forms
            .iter()
            .map(|(_, text)| TEXT_COST + text.len() as u64)
            .sum(),
    };
    texts + unit.comment.as_ref().map_or(0, |c| c.len() as u64)
}

/// Whether any level of `key` holds a `.` (read as a level separator).
fn key_has_dot(key: &Key) -> bool {
    match key {
        Key::Flat(name) => name.contains('.'),
        Key::Path(path) => path.iter().any(|l| l.contains('.')),
        Key::Dotted(_) => false,
    }
}

/// `s[start..]` with every `from` replaced by `SEPARATOR`, in place (most keys hold none).
/// A one-byte `from` (`.`, the usual case, once per key read) is a store to each byte that
/// holds it, with no search; the UTF-8 stays valid, both bytes being ASCII, and a longer
/// `from` (valid UTF-8 too) can only match at a character's start, as in `str::replace`.
fn replace_in_place(s: &mut Vec<u8>, start: usize, from: &str) {
    if let &[byte] = from.as_bytes() {
        for b in &mut s[start..] {
            if *b == byte {
                *b = SEPARATOR_BYTE;
            }
        }
        return;
    }
    let finder = memchr::memmem::Finder::new(from.as_bytes());
    if finder.find(&s[start..]).is_none() {
        return;
    }
    let mut replaced = Vec::with_capacity(s.len() - start);
    let mut rest = start;
    for found in finder.find_iter(&s[start..]) {
        replaced.extend_from_slice(&s[rest..start + found]);
        replaced.push(SEPARATOR_BYTE);
        rest = start + found + from.len();
    }
    replaced.extend_from_slice(&s[rest..]);
    s.truncate(start);
    s.extend_from_slice(&replaced);
}

/// `NAME[word]`, which the sheet reads as a plural row.
fn looks_plural(level: &str) -> bool {
    level
        .strip_suffix(']')
        .and_then(|l| l.rfind('[').map(|at| (&l[..at], &l[at + 1..])))
        .is_some_and(|(name, word)| {
            !name.trim_end().is_empty()
                && !word.is_empty()
                && word.bytes().all(|b| b.is_ascii_alphabetic())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{FileRead, Unit};
    use std::path::PathBuf;

    fn found(name: &str, hint: Hint) -> Found {
        Found {
            path: PathBuf::from(name),
            shown: name.to_owned(),
            format: Format::Android,
            hint,
            configuration: None,
            namespace: None,
        }
    }

    fn unit(key: &str, text: &str) -> Unit {
        Unit {
            key: Key::Flat(key.to_owned()),
            value: Value::Text(text.to_owned()),
            comment: None,
            locale: None,
            line: 1,
        }
    }

    fn read(units: Vec<Unit>) -> FileRead {
        FileRead {
            units,
            ..FileRead::default()
        }
    }

    #[test]
    fn files_make_one_document_with_the_base_first() {
        let options = Options {
            split: Some("_".into()),
            ..Options::default()
        };
        let mut a = Assembler::new(&options);
        a.add(
            &found("values-pl/strings.xml", Hint::Code("pl".into())),
            read(vec![unit("core_yes", "Tak"), unit("a.b", "x")]),
        )
        .unwrap();
        a.add(
            &found("values/strings.xml", Hint::Base),
            read(vec![
                unit("core_yes", "Yes"),
                unit("core", "section clash"),
                unit("bad[one]", "x"),
                unit("e", ""),
            ]),
        )
        .unwrap();
        a.add(
            &found("values-en/strings.xml", Hint::Code("EN".into())),
            read(vec![unit("core_yes", "Different")]),
        )
        .unwrap();
        let imported = a.finish();
        assert_eq!(imported.doc.locales, ["en", "pl"]);
        let entries: Vec<(String, Vec<Option<String>>)> = imported
            .doc
            .entries
            .iter()
            .map(|e| (e.path.join("."), e.texts.clone()))
            .collect();
        assert_eq!(
            entries,
            vec![
                (
                    "core.yes".into(),
                    vec![Some("Yes".into()), Some("Tak".into())]
                ),
                ("a.b".into(), vec![None, Some("x".into())]),
                // `core` is also a section: a path of its own, the name kept
                ("core_2".into(), vec![Some("section clash".into()), None]),
                // a key cell cannot hold `bad[one]`: a path of its own, the name kept
                ("bad(one)".into(), vec![Some("x".into()), None]),
            ]
        );
        let names: Vec<Vec<(&str, &str)>> = (imported.doc.entries.iter())
            .map(|e| {
                (e.names.iter())
                    .map(|(f, n)| (f.as_str(), n.as_str()))
                    .collect()
            })
            .collect();
        assert_eq!(
            names,
            [
                vec![],
                vec![("", "a.b")],
                vec![("", "core")],
                vec![("", "bad[one]")]
            ]
        );
        let notes: Vec<String> = imported.notes.iter().map(|n| n.what.clone()).collect();
        // the empty text, the differing text
        assert_eq!(notes.len(), 2, "{notes:#?}");
    }

    fn ios(name: &str, hint: Hint) -> Found {
        Found {
            format: Format::Ios,
            ..found(name, hint)
        }
    }

    fn paths_and_names(imported: &Imported) -> Vec<(String, Vec<(String, String)>)> {
        (imported.doc.entries.iter())
            .map(|e| (e.path.join("."), e.names.clone().into_iter().collect()))
            .collect()
    }

    #[test]
    fn keys_depot_would_name_otherwise_keep_their_names_and_get_safe_paths() {
        let options = Options::default();
        let mut a = Assembler::new(&options);
        let keys = [
            "Export finished.",
            "Export finished_",
            " spaced ",
            "Title",
            "title",
            "line\nbreak",
            "settings.account.title",
            "plain_key",
        ];
        for (file, hint) in [
            ("en.lproj/Localizable.strings", Hint::Code("en".into())),
            ("pl.lproj/Localizable.strings", Hint::Code("pl".into())),
        ] {
            let units = keys.iter().map(|k| unit(k, "t")).collect();
            a.add(&ios(file, hint), read(units)).unwrap();
        }
        let imported = a.finish();
        let named = |name: &str| vec![(String::new(), name.to_owned())];
        assert_eq!(
            paths_and_names(&imported),
            [
                ("Export finished_".to_owned(), named("Export finished.")),
                // the path the first key took is not this key's, however it is written
                ("Export finished__2".to_owned(), named("Export finished_")),
                ("spaced".to_owned(), named(" spaced ")),
                ("Title".to_owned(), named("Title")),
                ("title".to_owned(), vec![]),
                ("line_break".to_owned(), named("line\nbreak")),
                (
                    "settings.account.title".to_owned(),
                    named("settings.account.title")
                ),
                ("plain_key".to_owned(), vec![]),
            ]
        );
        assert!(
            (imported.doc.entries.iter()).all(|e| e.texts == [Some("t".into()), Some("t".into())]),
            "every key has both locales' texts: {:?}",
            imported.doc.entries
        );
        assert!(imported.notes.is_empty(), "{:?}", imported.notes);
    }

    #[test]
    fn formats_that_name_one_key_apart_get_a_name_column_each() {
        let options = Options::default();
        let mut a = Assembler::new(&options);
        let android = found("values/strings.xml", Hint::Base);
        a.add(&android, read(vec![unit("Welcome", "Hi")])).unwrap();
        let properties = Found {
            format: Format::Properties,
            ..found("messages.properties", Hint::Base)
        };
        let dotted = Unit {
            key: Key::Dotted("Welcome".into()),
            ..unit("", "Hi")
        };
        a.add(&properties, read(vec![dotted])).unwrap();
        let apple = ios("en.lproj/Localizable.strings", Hint::Base);
        a.add(&apple, read(vec![unit("Welcome", "Hi")])).unwrap();
        let imported = a.finish();
        // one key, named alike by every format: one `@@@`
        assert_eq!(
            paths_and_names(&imported),
            [(
                "Welcome".to_owned(),
                vec![("".to_owned(), "Welcome".to_owned())]
            )]
        );

        // one path, named apart: a name column per format
        let split = Options {
            split: Some("_".into()),
            ..Options::default()
        };
        let mut a = Assembler::new(&split);
        a.add(&android, read(vec![unit("Core_Yes", "Yes")]))
            .unwrap();
        let properties_key = Unit {
            key: Key::Dotted("Core.Yes".into()),
            ..unit("", "Yes")
        };
        a.add(&properties, read(vec![properties_key])).unwrap();
        let imported = a.finish();
        let names = vec![
            ("android".to_owned(), "Core_Yes".to_owned()),
            ("properties".to_owned(), "Core.Yes".to_owned()),
        ];
        assert_eq!(paths_and_names(&imported), [("Core.Yes".to_owned(), names)]);
    }

    #[test]
    fn a_file_without_a_locale_is_an_error_naming_it() {
        let options = Options::default();
        let mut a = Assembler::new(&options);
        let err = a
            .add(
                &found("strings.xml", Hint::None),
                read(vec![unit("a", "b")]),
            )
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("strings.xml: its name and content name no locale"),
            "{err}"
        );
    }

    mod paths_compared_in_place {
        use super::*;
        use proptest::prelude::*;

        /// Levels as entries hold them (no `.`, no control character); keys are made of
        /// them or of pieces that split at `.`, at `--split`'s separators or hold the
        /// index's separator.
        const LEVELS: [&str; 5] = ["a", "A", "a_b", "b-c", "x y"];
        const PIECES: [&str; 8] = ["a", "A", "a_b", "b", ".", "_", "-", "\u{1F}"];
        const JOINERS: [&str; 4] = [".", "_", "-", "a."];

        /// A key of `levels` joined as a format might write them (a flat name joined with
        /// `joiner`, nested levels some of which hold `.` where bit n of `dots` says, a
        /// dotted path), one of its levels maybe replaced by pieces.
        /// How `key_of` writes a key: shape, joiner, dots, and a level replaced by pieces.
        type Writing<'p> = (u8, &'p str, u8, Option<(usize, Vec<&'p str>)>);

        fn key_of(mut levels: Vec<String>, (shape, joiner, dots, changed): Writing<'_>) -> Key {
            if let Some((at, piece)) = changed
                && !levels.is_empty()
            {
                let at = at % levels.len();
                levels[at] = piece.concat();
            }
            match shape {
                0 => Key::Flat(levels.join(joiner)),
                1 => {
                    let mut nested: Vec<String> = Vec::new();
                    for (n, level) in levels.into_iter().enumerate() {
                        match nested.last_mut() {
                            Some(last) if dots & (1 << n) != 0 => {
                                last.push('.');
                                last.push_str(&level);
                            }
                            _ => nested.push(level),
                        }
                    }
                    Key::Path(nested)
                }
                _ => Key::Dotted(levels.join(".")),
            }
        }

        fn levels() -> impl Strategy<Value = Vec<String>> {
            prop::collection::vec(
                prop::sample::select(&LEVELS[..]).prop_map(str::to_owned),
                1..4,
            )
        }

        /// Whether each entry's path is a section, as it was found: every section joined
        /// into a set of strings, and each path joined to look it up.
        fn sections_by_joining(entries: &[Entry]) -> Option<Vec<bool>> {
            let sections: HashSet<Vec<u8>> = (entries.iter())
                .flat_map(|e| (1..e.path.len()).map(|n| joined(&e.path[..n])))
                .collect();
            (!sections.is_empty()).then(|| {
                (entries.iter())
                    .map(|e| sections.contains(&joined(&e.path)))
                    .collect()
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4096))]

            #[test]
            fn sections_compared_in_place_are_the_joined_ones(
                paths in prop::collection::vec(
                    prop::collection::vec(prop::sample::select(&["a", "A", "a_b", "b"][..]), 1..4),
                    0..8,
                ),
            ) {
                let options = Options::default();
                let mut assembler = Assembler::new(&options);
                assembler.entries = (paths.into_iter())
                    .map(|path| Entry {
                        path: path.into_iter().map(str::to_owned).collect(),
                        ..Entry::default()
                    })
                    .collect();
                prop_assert_eq!(
                    assembler.are_sections(),
                    sections_by_joining(&assembler.entries)
                );
            }

            #[test]
            fn replaced_in_place_as_str_replace_would(
                head in "[a.é]{0,3}",
                tail in "[a.\\-é]{0,12}",
                from in prop::sample::select(&[".", "-", "a.", "é", ".."][..]),
            ) {
                let mut s = format!("{head}{tail}").into_bytes();
                replace_in_place(&mut s, head.len(), from);
                let expected = format!("{head}{}", tail.replace(from, &SEPARATOR.to_string()));
                prop_assert_eq!(s, expected.into_bytes());
            }

            #[test]
            fn a_key_is_the_next_entry_s_exactly_when_the_index_would_say_so(
                path in levels(),
                // the key of the entry's own levels, or of others
                others in prop::option::of(levels()),
                how in (
                    0..3u8,
                    prop::sample::select(&JOINERS[..]),
                    any::<u8>(),
                    prop::option::weighted(
                        0.3,
                        (any::<usize>(), prop::collection::vec(prop::sample::select(&PIECES[..]), 0..4)),
                    ),
                ),
                split in prop::sample::select(&[None, Some("_"), Some("-"), Some("a."), Some(".")][..]),
            ) {
                let key = key_of(others.unwrap_or_else(|| path.clone()), how);
                let mut scratch = b"left from before".to_vec();
                let looked_up = join_key(&mut scratch, &key, split) && scratch == joined(&path);
                let options = Options {
                    split: split.map(str::to_owned),
                    ..Options::default()
                };
                let mut assembler = Assembler::new(&options);
                let text = Value::Text("text".to_owned());
                let column = assembler.locale("en", "f").unwrap();
                prop_assert_eq!(assembler.put("f", 1, path, column, text, None), Some(0));
                // the next entry, then the index
                for last_put in [None, Some(0)] {
                    assembler.last_put = last_put;
                    prop_assert_eq!(assembler.known(&key), looked_up.then_some(0));
                }
            }
        }
    }
}
