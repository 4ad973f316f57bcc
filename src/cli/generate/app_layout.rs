//! Where an app keeps its files of a format when it names them otherwise than depot's
//! default layout (SPEC §12.1: an existing app comes back unchanged): Rails'
//! `config/locales/de.yml`, gettext's `locale/de/LC_MESSAGES/app.po`. The app's files under
//! `--path`, as `import` finds them, give one path template that generate writes by.

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

    /// The template the app's files of `format` follow, when it is one and depot's default
    /// layout would write elsewhere. `locales`: the sheet's, as the format names them;
    /// `namespaces`: the sheet's tabs. `None` (the default layout) when the format's files
    /// are more than one per locale and namespace (a base copy, a catalog, ARB's language
    /// files), the app has none, they follow several templates or depot's own, or the
    /// template cannot name a file for every locale of the sheet.
    pub(super) fn layout(
        &self,
        format: Format,
        locales: &[String],
        namespaces: &[String],
    ) -> Option<PathTemplate> {
        if !one_file_per_locale(format) {
            return None;
        }
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

/// Whether the format's default layout is one file per locale (and namespace), nothing
/// beside it: json, yml, po, xlf, i18next. The others keep their layout, which knows
/// their base copies (`values/`, `Base.lproj/`, `messages.properties`, `Strings.resx`),
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
    fn layout(paths: &[&str], format: Format, locales: &[&str], namespaces: &[&str]) -> String {
        let (_root, files) = app(paths);
        let template = files.layout(format, &strings(locales), &strings(namespaces));
        template.map_or_else(|| "default".to_owned(), |t| t.as_str().to_owned())
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
    fn formats_with_base_copies_catalogs_or_language_files_keep_their_layout() {
        let one: Vec<&str> = (Format::ALL.iter())
            .filter(|f| one_file_per_locale(**f))
            .map(|f| f.name())
            .collect();
        assert_eq!(one, ["json", "yml", "xlf", "po", "i18next"]);
        let bundles = ["src/Messages_de.properties", "src/Messages.properties"];
        assert_eq!(
            layout(&bundles, Format::Properties, &["en", "de"], &[]),
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
