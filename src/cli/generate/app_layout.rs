//! Where an app keeps its files of a format when it names them otherwise than depot's
//! default layout (SPEC §12.1: an existing app comes back unchanged): Rails'
//! `config/locales/de.yml`, gettext's `locale/de/LC_MESSAGES/app.po`, a Java bundle
//! `src/main/resources/Messages.properties` with its `Messages_de.properties`. The app's
//! files under `--path`, as `import` finds them, give one path template that generate
//! writes by, or for a format of bundles (a base copy beside its locales' files) each
//! bundle's folder and name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::formats::Format;
use crate::formats::shared::locale::Hint;
use crate::import::discover::{self, Found};
use crate::model::locale::{locale_key, same_locale};
use crate::model::{DEFAULT_NAMESPACE, langtag};
use crate::naming::path_template::{PathTemplate, Values};

/// How a locale may be spelled in an app's paths, in the order preferred when several
/// give every path: the sheet's own name first (import took it from the app's name).
const LOCALE_PLACEHOLDERS: [&str; 2] = ["locale", "lang"];

/// The app's translation files under `--path`, found once for every format of a run, on
/// first use (a run of formats that keep their own layout walks nothing).
pub(super) struct AppFiles {
    root: PathBuf,
    found: std::cell::OnceCell<Vec<Found>>,
}

impl AppFiles {
    pub(super) fn new(root: &Path) -> AppFiles {
        AppFiles {
            root: root.to_path_buf(),
            found: std::cell::OnceCell::new(),
        }
    }

    /// The files `import` would read under the root; none when it is no folder or cannot
    /// be walked (generate then writes as without an app).
    fn found(&self) -> &[Found] {
        self.found.get_or_init(|| match self.root.is_dir() {
            true => discover::discover(std::slice::from_ref(&self.root), &Default::default())
                .unwrap_or_default(),
            false => Vec::new(),
        })
    }

    /// How the app keeps its files of `format`, when depot's default layout would write
    /// elsewhere. `locales`: the sheet's, as the format names them; `namespaces`: the
    /// sheet's tabs. `None`: the default layout.
    pub(super) fn layout(
        &self,
        format: Format,
        locales: &[String],
        namespaces: &[String],
    ) -> Option<AppLayout> {
        if one_file_per_locale(format) {
            self.template(format, locales, namespaces)
                .map(AppLayout::Template)
        } else if bundled(format) {
            self.bundles(format, namespaces).map(AppLayout::Bundles)
        } else {
            None
        }
    }

    /// The template the app's files of a format of one file per locale follow. `None`
    /// when the app has none, they follow several templates or depot's own, or the
    /// template cannot name a file for every locale of the sheet.
    fn template(
        &self,
        format: Format,
        locales: &[String],
        namespaces: &[String],
    ) -> Option<PathTemplate> {
        let mut common: Option<Vec<String>> = None;
        let mut elsewhere = false;
        // a file naming no locale (Angular's source `messages.xlf`) tells no template
        let located = (self.found().iter()).filter_map(|f| match &f.hint {
            Hint::Code(code) if f.format == format => Some((f, code)),
            _ => None,
        });
        for (file, code) in located {
            let rel = file.path.strip_prefix(&self.root).ok()?.to_str()?;
            let locale = sheet_name(locales, code);
            // the namespace is named in the path only where the sheet has several
            let namespace = file.namespace.as_deref().filter(|_| !namespaces.is_empty());
            let file = AppFile {
                rel,
                locale,
                namespace,
                format,
            };
            let theirs = file.templates();
            let kept: Vec<String> = match common {
                None => theirs,
                Some(common) => common.into_iter().filter(|t| theirs.contains(t)).collect(),
            };
            if kept.is_empty() {
                return None;
            }
            common = Some(kept);
            elsewhere |= !file.in_default_layout();
        }
        if !elsewhere {
            return None;
        }
        let template = PathTemplate::parse(common?.first()?).ok()?;
        if template.check_namespaces(namespaces).is_err() {
            return None;
        }
        writes_each_locale_apart(&template, format, locales, namespaces).then_some(template)
    }

    /// The folder and name of each bundle of the sheet (a tab each, or the one of a sheet
    /// without tabs) where the app keeps its files of a format of bundles. `None` when
    /// the app has none, a file is not named as the format names a bundle's, a bundle's
    /// files are in several folders, a sheet without tabs meets several bundles (depot's
    /// `messages_de.properties` beside the app's `Messages_de.properties`: which one is
    /// the sheet's cannot be told) or no bundle of the app is a tab of the sheet, or the
    /// bundles are where depot's default layout writes them.
    fn bundles(&self, format: Format, namespaces: &[String]) -> Option<Bundles> {
        let files = format.descriptor().files;
        let (base, main) = (files.base?, files.namespace?.main);
        let ext = format.extension();
        // each bundle of the app (its name) in its folder
        let mut folders: BTreeMap<&str, &Path> = BTreeMap::new();
        for file in self.found().iter().filter(|f| f.format == format) {
            let stem = file.namespace.as_deref()?;
            let rel = file.path.strip_prefix(&self.root).ok()?;
            let own = match &file.hint {
                Hint::Base => base(Some(stem), ext),
                Hint::Code(code) => (files.path)(code, Some(stem), ext)?,
                Hint::None => return None,
            };
            if !same_path(rel.file_name()?.to_str()?, own.to_str()?) {
                return None;
            }
            let folder = rel.parent()?;
            if *folders.entry(stem).or_insert(folder) != folder {
                return None;
            }
        }
        let bundle = |stem: &str, folder: &Path| Bundle {
            folder: folder.to_path_buf(),
            stem: stem.to_owned(),
        };
        let list: Vec<(Option<String>, Bundle)> = match namespaces {
            [] => {
                let mut apps = folders.iter();
                let (Some((stem, folder)), None) = (apps.next(), apps.next()) else {
                    return None;
                };
                vec![(None, bundle(stem, folder))]
            }
            _ => {
                if !namespaces.iter().any(|n| folders.contains_key(n.as_str())) {
                    return None;
                }
                // a tab the app has no bundle of yet: in the folder of all the others
                let mut all = folders.values();
                let first = all.next().copied().unwrap_or(Path::new(""));
                let shared = match all.all(|f| *f == first) {
                    true => first,
                    false => Path::new(""),
                };
                (namespaces.iter())
                    .map(|n| {
                        let folder = folders.get(n.as_str()).copied().unwrap_or(shared);
                        (Some(n.clone()), bundle(n, folder))
                    })
                    .collect()
            }
        };
        let default = |(namespace, b): &(Option<String>, Bundle)| {
            b.folder.as_os_str().is_empty() && b.stem == namespace.as_deref().unwrap_or(main)
        };
        match list.iter().all(default) {
            true => None,
            false => Some(Bundles { list, format }),
        }
    }
}

/// Where generate writes an app's files of one format (`AppFiles::layout`).
pub(super) enum AppLayout {
    /// Each file where a path template says (one file per locale and namespace).
    Template(PathTemplate),
    /// The format's own names (a bundle's base copy beside its locales' files) under the
    /// folder of each of the app's bundles.
    Bundles(Bundles),
}

/// The app's bundles (Java `.properties`, .NET `.resx`), one for each tab of the sheet.
pub(super) struct Bundles {
    /// (the tab, `None` for a sheet without tabs; where its files go)
    list: Vec<(Option<String>, Bundle)>,
    format: Format,
}

/// One bundle: its files are named by the format with `stem` (`Messages`,
/// `Messages_de`), in `folder` under `--path`.
pub(super) struct Bundle {
    pub folder: PathBuf,
    pub stem: String,
}

impl Bundles {
    /// The bundle of the sheet's tab `namespace` (`None`: a sheet without tabs).
    pub(super) fn of(&self, namespace: Option<&str>) -> Option<&Bundle> {
        (self.list.iter())
            .find(|(n, _)| n.as_deref() == namespace)
            .map(|(_, bundle)| bundle)
    }

    /// Each bundle's base copy, as the note names where the files go:
    /// `src/main/resources/Messages.properties and its locales' files`.
    pub(super) fn shown(&self) -> String {
        let files = self.format.descriptor().files;
        let base = |stem: &str| (files.base).map(|base| base(Some(stem), self.format.extension()));
        let bases: Vec<String> = (self.list.iter())
            .filter_map(|(_, b)| Some(path_text(&b.folder.join(base(&b.stem)?))))
            .collect();
        match bases.as_slice() {
            [one] => format!("{one} and its locales' files"),
            more => format!("{} and their locales' files", more.join(", ")),
        }
    }
}

/// The top key each of the files `files` (a path under `root` and the sheet's name of its
/// locale) is written with, when the app's files of `format` that they write over hold
/// their locale as their one top-level key (Rails' yml `en:`, a web app's json
/// `{"en": {…}}`), as the app's code reads them: an existing file's key as the file spells
/// it, a new locale's as the app spells its locales (`Spelling`). `None` (each file holds
/// the texts alone, as depot's own do) when the format has no such key, none of the files
/// is there yet, or one of them holds its texts at the top.
pub(super) fn locales_at_top<'f>(
    root: &Path,
    format: Format,
    files: impl IntoIterator<Item = (&'f Path, &'f str)>,
) -> Option<Vec<String>> {
    let top_key = format.descriptor().top_key?;
    let mut keys = Vec::new();
    let mut theirs = Vec::new();
    for (path, locale) in files {
        let Ok(text) = std::fs::read_to_string(root.join(path)) else {
            keys.push((locale, None));
            continue;
        };
        let key = top_key(&text).filter(|key| same_locale(key, locale))?;
        theirs.push((locale, key.clone()));
        keys.push((locale, Some(key)));
    }
    if theirs.is_empty() {
        return None;
    }
    let spelling = Spelling::of(&theirs);
    let keys = keys.into_iter().map(|(locale, key)| match key {
        Some(key) => key,
        None => spelling.spell(locale),
    });
    Some(keys.collect())
}

/// How an app's top keys spell the sheet's locale names: as they are, or in lower case or
/// BCP 47's case (`zh-Hant-TW`), with `-` or `_` between the subtags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Spelling {
    case: Case,
    separator: Option<char>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    AsIs,
    Lower,
    Tag,
}

impl Spelling {
    /// The first spelling that gives every one of `theirs` (the sheet's name, the app's
    /// key) from the sheet's name: the sheet's names, else a rule of the app's own (BCP 47's
    /// case, lower case) before the sheet's case with another separator; the sheet's names
    /// when none does.
    fn of(theirs: &[(&str, String)]) -> Spelling {
        let with =
            |case| [None, Some('-'), Some('_')].map(|separator| Spelling { case, separator });
        let [as_is, as_is_dashed, as_is_underscored] = with(Case::AsIs);
        let spellings = std::iter::once(as_is)
            .chain(with(Case::Tag))
            .chain(with(Case::Lower))
            .chain([as_is_dashed, as_is_underscored]);
        (spellings.into_iter())
            .find(|s| theirs.iter().all(|(locale, key)| s.spell(locale) == *key))
            .unwrap_or(as_is)
    }

    fn spell(self, locale: &str) -> String {
        let mut spelled = String::with_capacity(locale.len());
        // the separator the name has there, unless the app has one of its own
        let separators = (locale.chars())
            .filter(|c| matches!(c, '-' | '_'))
            .map(|c| self.separator.unwrap_or(c));
        let before = std::iter::once(None).chain(separators.map(Some));
        for (i, (subtag, separator)) in locale.split(['-', '_']).zip(before).enumerate() {
            spelled.extend(separator);
            match self.case {
                Case::AsIs => spelled.push_str(subtag),
                Case::Lower => spelled.push_str(&subtag.to_ascii_lowercase()),
                Case::Tag => spelled.push_str(&tag_case(subtag, i)),
            }
        }
        spelled
    }
}

/// A subtag in BCP 47's case: the language in lower case, a script (four letters) in title
/// case, a region (two letters) in upper case, the rest in lower case.
fn tag_case(subtag: &str, at: usize) -> String {
    let letters = subtag.bytes().all(|b| b.is_ascii_alphabetic());
    match (at, subtag.len()) {
        (1.., 4) if letters => {
            let mut title = subtag.to_ascii_lowercase();
            title[..1].make_ascii_uppercase();
            title
        }
        (1.., 2) if letters => subtag.to_ascii_uppercase(),
        _ => subtag.to_ascii_lowercase(),
    }
}

/// The sheet's name of the locale an app's file names `code`: the same locale, else the
/// one locale of the sheet of that language where the app names languages alone
/// (`po/de.po` for `de_DE`); for a locale the sheet lacks, the app's name.
fn sheet_name<'a>(locales: &'a [String], code: &'a str) -> &'a str {
    if let Some(same) = locales.iter().find(|l| same_locale(l, code)) {
        return same;
    }
    let bare = langtag::parse(code)
        .filter(|t| t.script.is_none() && t.region.is_none() && t.variants.is_empty());
    if let Some(bare) = bare {
        let mut of_language = (locales.iter())
            .filter(|l| langtag::parse(l).is_some_and(|t| t.language == bare.language));
        if let (Some(one), None) = (of_language.next(), of_language.next()) {
            return one;
        }
    }
    code
}

/// Whether the format's files are bundles: a base copy named by the bundle alone beside
/// its locales' files named by the bundle and the locale, in one folder (Java's
/// `Messages.properties` and `Messages_de.properties`, .NET's `Strings.resx` and
/// `Strings.de.resx`; not Android's `values/` nor Apple's `Base.lproj/`, folders of
/// their own).
fn bundled(format: Format) -> bool {
    let files = format.descriptor().files;
    let ext = format.extension();
    let alone = |path: &Path| path.components().count() == 1;
    match (files.base, files.namespace) {
        (Some(base), Some(_)) if !files.one_file && !files.language_fallbacks => {
            alone(&base(None, ext)) && (files.path)("de", None, ext).is_some_and(|p| alone(&p))
        }
        _ => false,
    }
}

/// Whether the format's default layout is one file per locale (and namespace), nothing
/// beside it: json, yml, po, xlf, i18next. Bundles (`bundled`) are told apart; the
/// others keep their layout, which knows their base folders (`values/`, `Base.lproj/`),
/// ARB's language files or the one catalog.
fn one_file_per_locale(format: Format) -> bool {
    let files = format.descriptor().files;
    !files.one_file && !files.language_fallbacks && files.base.is_none()
}

/// Every locale of the sheet gets a file of its own by `template` (`{lang}` gives `pt_BR`
/// and `pt_PT` one file; a locale that is no language tag has no `{lang}`).
fn writes_each_locale_apart(
    template: &PathTemplate,
    format: Format,
    locales: &[String],
    namespaces: &[String],
) -> bool {
    let mut seen = std::collections::HashSet::new();
    let namespace = namespaces.first().map_or(DEFAULT_NAMESPACE, String::as_str);
    locales.iter().all(|locale| {
        let values = Values {
            locale,
            namespace,
            format,
        };
        (template.expand(&values)).is_ok_and(|path| seen.insert(locale_key(&path_text(&path))))
    })
}

fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// One file of the app: its path under `--path` and what it holds.
struct AppFile<'a> {
    rel: &'a str,
    /// The sheet's name of its locale (or the app's, for a locale the sheet lacks).
    locale: &'a str,
    /// Its namespace, when the sheet has several.
    namespace: Option<&'a str>,
    format: Format,
}

impl AppFile<'_> {
    /// The templates that give this file's path for its locale (and namespace), the
    /// preferred first: its path with the locale, spelled as each placeholder spells it,
    /// replaced by the placeholder (and the namespace in its name by `{namespace}`).
    fn templates(&self) -> Vec<String> {
        if self.rel.contains(['{', '}', '\\']) {
            return Vec::new();
        }
        let named = match self.namespace {
            Some(namespace) => in_file_name(self.rel, namespace, "{namespace}"),
            None => self.rel.to_owned(),
        };
        let mut templates: Vec<String> = Vec::new();
        for placeholder in LOCALE_PLACEHOLDERS {
            let Some(value) = self.expand(&format!("{{{placeholder}}}")) else {
                continue;
            };
            for template in spelled_as(&named, &value, placeholder) {
                if !templates.contains(&template)
                    && self
                        .expand(&template)
                        .is_some_and(|p| same_path(&p, self.rel))
                {
                    templates.push(template);
                }
            }
        }
        templates
    }

    /// `template` for this file's locale and namespace.
    fn expand(&self, template: &str) -> Option<String> {
        let values = Values {
            locale: self.locale,
            namespace: self.namespace.unwrap_or(DEFAULT_NAMESPACE),
            format: self.format,
        };
        let path = PathTemplate::parse(template).ok()?.expand(&values).ok()?;
        Some(path_text(&path))
    }

    /// Whether depot's default layout writes this file where it is.
    fn in_default_layout(&self) -> bool {
        let files = self.format.descriptor().files;
        let default = (files.path)(self.locale, self.namespace, self.format.extension());
        default.is_some_and(|path| same_path(&path_text(&path), self.rel))
    }
}

/// Paths the same but for the spelling of a locale (case, `_` or `-`), as `app_paths`
/// finds the app's folder for depot's.
fn same_path(a: &str, b: &str) -> bool {
    locale_key(a) == locale_key(b)
}

/// `path` with the first `name` that is a whole word of its file name replaced by `by`.
fn in_file_name(path: &str, name: &str, by: &str) -> String {
    if name.is_empty() {
        return path.to_owned();
    }
    let start = path.rfind('/').map_or(0, |slash| slash + 1);
    let bytes = path.as_bytes();
    let found = (path[start..].match_indices(name))
        .map(|(at, _)| start + at)
        .find(|&at| word(bytes, at, at + name.len()));
    match found {
        Some(at) => format!("{}{by}{}", &path[..at], &path[at + name.len()..]),
        None => path.to_owned(),
    }
}

/// `path` with the locale `value` (any case, `_` or `-`) replaced by `{placeholder}`:
/// everywhere it is a whole word, then at each such place alone (`de/LC_MESSAGES/de.po`
/// may be either).
fn spelled_as(path: &str, value: &str, placeholder: &str) -> Vec<String> {
    let (hay, needle) = (locale_key(path), locale_key(value));
    if needle.is_empty() || needle.len() > hay.len() {
        return Vec::new();
    }
    let mut at = Vec::new();
    let mut from = 0;
    while from + needle.len() <= hay.len() {
        let end = from + needle.len();
        if hay[from..end] == needle[..] && word(&hay, from, end) {
            at.push(from);
            from = end;
        } else {
            from += 1;
        }
    }
    let with = |places: &[usize]| {
        let mut out = String::with_capacity(path.len());
        let mut last = 0;
        for &place in places {
            // the locale is ASCII: its bytes are whole characters of `path`
            out.push_str(&path[last..place]);
            out.push('{');
            out.push_str(placeholder);
            out.push('}');
            last = place + needle.len();
        }
        out.push_str(&path[last..]);
        out
    };
    let mut spelled = Vec::new();
    if !at.is_empty() {
        spelled.push(with(at.as_slice()));
    }
    if at.len() > 1 {
        spelled.extend(at.iter().map(|one| with(std::slice::from_ref(one))));
    }
    spelled
}

/// Whether `bytes[start..end]` is a whole word: no letter or digit right before or after
/// (`de` in `de.yml`, `locale/de/`, `app_de`, not in `code.yml`).
fn word(bytes: &[u8], start: usize, end: usize) -> bool {
    let apart = |b: &u8| b.is_ascii() && !b.is_ascii_alphanumeric();
    (start == 0 || bytes.get(start - 1).is_some_and(apart))
        && (end == bytes.len() || bytes.get(end).is_some_and(apart))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(paths: &[&str]) -> (tempfile::TempDir, AppFiles) {
        let root = tempfile::tempdir().unwrap();
        for path in paths {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let files = AppFiles::new(root.path());
        (root, files)
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    /// The template of `format` for an app of `paths` and a sheet of `locales` (and
    /// `namespaces`), as text.
    /// Bundles as `folder/stem` each, after `tab: ` for a sheet of tabs.
    fn layout(paths: &[&str], format: Format, locales: &[&str], namespaces: &[&str]) -> String {
        let (_root, files) = app(paths);
        match files.layout(format, &strings(locales), &strings(namespaces)) {
            None => "default".to_owned(),
            Some(AppLayout::Template(t)) => t.as_str().to_owned(),
            Some(AppLayout::Bundles(bundles)) => (bundles.list.iter())
                .map(|(tab, b)| {
                    let at = path_text(&b.folder.join(&b.stem));
                    tab.as_ref()
                        .map_or(at.clone(), |tab| format!("{tab}: {at}"))
                })
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    #[test]
    fn an_apps_files_give_the_template_they_follow() {
        type Case<'a> = (&'a [&'a str], Format, &'a [&'a str], &'a [&'a str], &'a str);
        let cases: [Case<'_>; 7] = [
            (
                &["config/locales/en.yml", "config/locales/de.yml"],
                Format::Yml,
                &["en", "de"],
                &[],
                "config/locales/{locale}.yml",
            ),
            // gettext's tree, one domain: its name stays in the template
            (
                &[
                    "locale/de/LC_MESSAGES/app.po",
                    "locale/pt_BR/LC_MESSAGES/app.po",
                ],
                Format::Po,
                &["de", "pt_BR"],
                &[],
                "locale/{locale}/LC_MESSAGES/app.po",
            ),
            // several domains, a tab each in the sheet
            (
                &[
                    "locale/de/LC_MESSAGES/app.po",
                    "locale/de/LC_MESSAGES/errors.po",
                    "locale/pl/LC_MESSAGES/app.po",
                ],
                Format::Po,
                &["de", "pl"],
                &["app", "errors"],
                "locale/{locale}/LC_MESSAGES/{namespace}.po",
            ),
            // gnome-clocks' po/ with its template file beside
            (
                &["po/de.po", "po/fr.po", "po/gnome-clocks.pot"],
                Format::Po,
                &["de", "fr"],
                &[],
                "po/{locale}.po",
            ),
            (
                &["src/locale/de.xlf", "src/locale/fr.xlf"],
                Format::Xlf,
                &["de", "fr"],
                &[],
                "src/locale/{locale}.xlf",
            ),
            // Angular: the source file names no locale; the others are depot's names in a
            // folder
            (
                &[
                    "src/locale/messages.xlf",
                    "src/locale/messages.de.xlf",
                    "src/locale/messages.fr.xlf",
                ],
                Format::Xlf,
                &["en", "de", "fr"],
                &[],
                "src/locale/messages.{locale}.xlf",
            ),
            (
                &[
                    "public/locales/de/common.json",
                    "public/locales/en/common.json",
                    "public/locales/en/settings.json",
                ],
                Format::I18next,
                &["en", "de"],
                &["common", "settings"],
                "public/locales/{locale}/{namespace}.json",
            ),
        ];
        for (paths, format, locales, namespaces, template) in cases {
            assert_eq!(layout(paths, format, locales, namespaces), template);
        }
    }

    #[test]
    fn locales_are_matched_in_any_spelling_and_the_sheets_name_is_preferred() {
        // the sheet says pt-BR, the app pt_BR: one template, the app's folder found again
        // by app_paths when written
        let folders = [
            "locales/pt_BR/translation.json",
            "locales/de/translation.json",
        ];
        assert_eq!(
            layout(&folders, Format::I18next, &["pt-BR", "de"], &[]),
            "locales/{locale}/translation.json"
        );
        let lower = ["i18n/pt-br.json", "i18n/zh_hans.json", "i18n/de.json"];
        assert_eq!(
            layout(&lower, Format::Json, &["pt-BR", "zh-Hans", "de"], &[]),
            "i18n/{locale}.json"
        );
        // only the language in the names: {lang}
        let languages = ["po/de.po", "po/pt.po"];
        assert_eq!(
            layout(&languages, Format::Po, &["de_DE", "pt_BR"], &[]),
            "po/{lang}.po"
        );
        // a locale the sheet lacks is spelled as the app spells it
        assert_eq!(
            layout(&["config/locales/de.yml"], Format::Yml, &["en"], &[]),
            "config/locales/{locale}.yml"
        );
    }

    #[test]
    fn the_default_layout_several_templates_or_no_files_leave_the_default() {
        let default = "default";
        // depot's own names already
        let own = ["messages.de.po", "messages.pl.po"];
        assert_eq!(layout(&own, Format::Po, &["de", "pl"], &[]), default);
        // depot's names beside the app's (an earlier generate): two templates
        let both = ["loc/de.yml", "loc/messages.de.yml", "loc/pl.yml"];
        assert_eq!(layout(&both, Format::Yml, &["de", "pl"], &[]), default);
        let rails = ["config/locales/de.yml", "config/locales/devise.de.yml"];
        assert_eq!(layout(&rails, Format::Yml, &["de"], &[]), default);
        assert_eq!(layout(&[], Format::Yml, &["de"], &[]), default);
        // the app's files are of another format
        assert_eq!(layout(&["po/de.po"], Format::Yml, &["de"], &[]), default);
        // a sheet of several tabs and files whose names do not tell their namespace
        let one = ["po/de.po", "po/pl.po"];
        assert_eq!(
            layout(&one, Format::Po, &["de", "pl"], &["a", "b"]),
            default
        );
        // {lang} cannot tell pt_BR from pt_PT, nor name a locale that is no tag
        let languages = ["po/de.po", "po/pt.po"];
        assert_eq!(
            layout(&languages, Format::Po, &["de_DE", "pt_BR", "pt_PT"], &[]),
            default
        );
        assert_eq!(
            layout(&languages, Format::Po, &["de_DE", "pt_BR", "English"], &[]),
            default
        );
    }

    #[test]
    fn formats_with_base_folders_catalogs_or_language_files_keep_their_layout() {
        let one: Vec<&str> = (Format::ALL.iter())
            .filter(|f| one_file_per_locale(**f))
            .map(|f| f.name())
            .collect();
        assert_eq!(one, ["json", "yml", "xlf", "po", "i18next"]);
        let bundles: Vec<&str> = (Format::ALL.iter())
            .filter(|f| bundled(**f))
            .map(|f| f.name())
            .collect();
        assert_eq!(bundles, ["properties", "resx"]);
        assert_eq!(
            layout(
                &["App/Base.lproj/Main.strings", "App/de.lproj/Main.strings"],
                Format::Ios,
                &["en", "de"],
                &[]
            ),
            "default"
        );
        assert_eq!(
            layout(
                &["res/values-de/strings.xml"],
                Format::Android,
                &["de"],
                &[]
            ),
            "default"
        );
    }

    #[test]
    fn a_bundle_the_app_keeps_elsewhere_is_its_folder_and_name() {
        let java = [
            "src/main/resources/Messages.properties",
            "src/main/resources/Messages_de.properties",
            "src/main/resources/Messages_pt_BR.properties",
        ];
        let locales = ["en", "de", "pt-BR"];
        assert_eq!(
            layout(&java, Format::Properties, &locales, &[]),
            "src/main/resources/Messages"
        );
        let dotnet = [
            "Resources/MiscResources.resx",
            "Resources/MiscResources.de.resx",
            "Resources/MiscResources.pt-BR.resx",
        ];
        assert_eq!(
            layout(&dotnet, Format::Resx, &locales, &[]),
            "Resources/MiscResources"
        );
        // at the root, another name than depot's
        let root = ["Messages.properties", "Messages_de.properties"];
        assert_eq!(
            layout(&root, Format::Properties, &["en", "de"], &[]),
            "Messages"
        );
        // depot's name, in a folder
        let folder = ["res/messages.properties", "res/messages_de.properties"];
        assert_eq!(
            layout(&folder, Format::Properties, &["en", "de"], &[]),
            "res/messages"
        );
        // the files of the app's other format are not its bundles
        let mixed = [
            "Resources/MiscResources.resx",
            "Resources/MiscResources.de.resx",
            "res/Messages.properties",
            "res/Messages_de.properties",
        ];
        assert_eq!(
            layout(&mixed, Format::Resx, &["en", "de"], &[]),
            "Resources/MiscResources"
        );
    }

    #[test]
    fn each_tab_of_the_sheet_is_the_apps_bundle_of_its_name() {
        let apart = [
            "app/src/main/resources/Messages.properties",
            "app/src/main/resources/Messages_de.properties",
            "lib/src/main/resources/Errors.properties",
            "lib/src/main/resources/Errors_de.properties",
        ];
        // a tab the app has no bundle of: at the root, the bundles being in two folders
        assert_eq!(
            layout(
                &apart,
                Format::Properties,
                &["en", "de"],
                &["Errors", "Help", "Messages"]
            ),
            "Errors: lib/src/main/resources/Errors, Help: Help, \
             Messages: app/src/main/resources/Messages"
        );
        // ... else in their one folder
        let together = [
            "Resources/MiscResources.resx",
            "Resources/MiscResources.de.resx",
            "Resources/Errors.de.resx",
        ];
        assert_eq!(
            layout(
                &together,
                Format::Resx,
                &["en", "de"],
                &["Errors", "Help", "MiscResources"]
            ),
            "Errors: Resources/Errors, Help: Resources/Help, MiscResources: Resources/MiscResources"
        );
    }

    #[test]
    fn bundles_in_depots_layout_or_that_cannot_be_told_leave_the_default() {
        let default = "default";
        let de = ["en", "de"];
        // depot's own names at the root, one bundle or a tab each
        let own = ["messages.properties", "messages_de.properties"];
        assert_eq!(layout(&own, Format::Properties, &de, &[]), default);
        let tabs = [
            "Errors.properties",
            "Errors_de.properties",
            "Messages.properties",
            "Messages_de.properties",
        ];
        let both = ["Errors", "Messages"];
        assert_eq!(layout(&tabs, Format::Properties, &de, &both), default);
        let own = ["Strings.resx", "Strings.de.resx"];
        assert_eq!(layout(&own, Format::Resx, &de, &[]), default);
        // depot's files of an earlier run beside the app's, a sheet without tabs: which
        // bundle is the sheet's cannot be told
        let beside = [
            "res/Messages.properties",
            "res/Messages_de.properties",
            "res/messages.properties",
            "res/messages_de.properties",
        ];
        assert_eq!(layout(&beside, Format::Properties, &de, &[]), default);
        let beside = [
            "Resources/MiscResources.resx",
            "Resources/MiscResources.de.resx",
            "Resources/Strings.de.resx",
        ];
        assert_eq!(layout(&beside, Format::Resx, &de, &[]), default);
        // two bundles, a sheet without tabs
        let two = ["res/Errors_de.properties", "res/Messages_de.properties"];
        assert_eq!(layout(&two, Format::Properties, &de, &[]), default);
        // one bundle in two folders
        let spread = ["a/Messages_de.properties", "b/Messages_pl.properties"];
        assert_eq!(layout(&spread, Format::Properties, &de, &[]), default);
        // no tab of the sheet is a bundle of the app
        let other = ["res/Messages_de.properties"];
        assert_eq!(layout(&other, Format::Properties, &de, &both[..1]), default);
        assert_eq!(layout(&[], Format::Properties, &de, &[]), default);
        // a base alone is no bundle (gradle.properties)
        let base = ["res/Messages.properties", "gradle.properties"];
        assert_eq!(layout(&base, Format::Properties, &de, &[]), default);
    }

    #[test]
    fn files_that_hold_their_locale_as_the_top_key_are_written_so_a_new_locales_too() {
        let (root, _) = app(&[]);
        let write = |path: &str, text: &str| std::fs::write(root.path().join(path), text).unwrap();
        write("en.yml", "en:\n  a: b\n");
        write("messages.de.yml", "a: c\n");
        write("en.json", r#"{"en": {"a": "b"}}"#);
        write("pt_BR.json", r#"{"pt-BR": {"a": "c"}}"#);
        write("de.json", r#"{"a": "c"}"#);
        write("pl.json", r#"{"de": {"a": "c"}}"#);
        let at_top = |format, files: &[(&str, &str)]| {
            let files: Vec<(&Path, &str)> =
                files.iter().map(|(p, l)| (Path::new(*p), *l)).collect();
            locales_at_top(root.path(), format, files)
        };
        let keys = |keys: &[&str]| Some(keys.iter().map(|k| k.to_string()).collect::<Vec<_>>());
        assert_eq!(
            at_top(Format::Yml, &[("en.yml", "en"), ("fr.yml", "fr")]),
            keys(&["en", "fr"])
        );
        assert_eq!(
            at_top(Format::Yml, &[("en.yml", "en"), ("messages.de.yml", "de")]),
            None
        );
        assert_eq!(at_top(Format::Yml, &[("fr.yml", "fr")]), None);
        // the app's spelling of its key, and of a new locale's
        assert_eq!(
            at_top(
                Format::Json,
                &[
                    ("en.json", "en"),
                    ("pt_BR.json", "pt_BR"),
                    ("zh_hant_tw.json", "zh_hant_tw")
                ]
            ),
            keys(&["en", "pt-BR", "zh-Hant-TW"])
        );
        assert_eq!(
            at_top(Format::Json, &[("en.json", "en"), ("de.json", "de")]),
            None
        );
        // a top key that is another locale is a key of the texts
        assert_eq!(at_top(Format::Json, &[("pl.json", "pl")]), None);
        // formats whose files have no such key
        assert_eq!(at_top(Format::Po, &[("en.json", "en")]), None);
    }

    #[test]
    fn a_new_locale_is_spelled_as_the_apps_keys_spell_the_sheets_names() {
        let spelled = |theirs: &[(&str, &str)], locale: &str| {
            let theirs: Vec<(&str, String)> =
                theirs.iter().map(|(l, k)| (*l, k.to_string())).collect();
            Spelling::of(&theirs).spell(locale)
        };
        assert_eq!(spelled(&[("en", "en")], "pt_BR"), "pt_BR");
        assert_eq!(spelled(&[("pt_BR", "pt_BR")], "zh-Hant"), "zh-Hant");
        assert_eq!(spelled(&[("pt_BR", "pt-BR")], "zh_hant_tw"), "zh-Hant-TW");
        assert_eq!(spelled(&[("pt-br", "pt_br")], "zh-Hant"), "zh_hant");
        assert_eq!(spelled(&[("Pt-bR", "Pt_bR")], "zh-TW"), "zh_TW");
        assert_eq!(spelled(&[("pt-br", "pt-BR")], "zh-hant-tw"), "zh-Hant-TW");
        assert_eq!(spelled(&[("pt-BR", "pt_br")], "zh-TW"), "zh_tw");
        // no one spelling gives the app's keys: the sheet's names
        assert_eq!(
            spelled(&[("pt-BR", "pt_br"), ("zh-TW", "zh-TW")], "es-MX"),
            "es-MX"
        );
    }

    #[test]
    fn a_locale_is_replaced_where_it_is_a_whole_word() {
        assert_eq!(
            spelled_as("code/de.yml", "de", "locale"),
            ["code/{locale}.yml"]
        );
        assert_eq!(
            spelled_as("de/LC_MESSAGES/de.po", "de", "lang"),
            [
                "{lang}/LC_MESSAGES/{lang}.po",
                "{lang}/LC_MESSAGES/de.po",
                "de/LC_MESSAGES/{lang}.po"
            ]
        );
        assert_eq!(
            spelled_as("pt_br.json", "pt-BR", "locale"),
            ["{locale}.json"]
        );
        assert!(spelled_as("index.json", "de", "locale").is_empty());
        assert_eq!(
            in_file_name("common/de/common.json", "common", "{namespace}"),
            "common/de/{namespace}.json"
        );
        assert_eq!(in_file_name("de/app.po", "ap", "{namespace}"), "de/app.po");
    }
}
