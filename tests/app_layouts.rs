//! `depot generate` writes where an existing app keeps its files (issue 32, SPEC §12.1: the
//! app comes back unchanged): an app whose files follow another layout than depot's default
//! (Rails' `config/locales/de.yml`, gettext's `locale/de/LC_MESSAGES/app.po`, `po/de.po`)
//! is imported, and generate with no flags but the format and the app's folder writes into
//! those files, not a second set beside them; a new locale of the sheet gets its file in the
//! app's layout, and `depot diff` finds the app and its sheet equal. Java bundles and .NET
//! resource sets of the app's own name and folder (`src/main/resources/Messages.properties`,
//! `Resources/MiscResources.resx`) come back the same way, read by the JDK's
//! `ResourceBundle` and mono's `ResourceManager`.
#![cfg(test)]

mod support;

use std::path::Path;

use support::real_apps::{RESX_HEAD, files_under, plain_text as plain, properties, resx};

/// An app's files (path under the temporary folder, text).
type Files<'a> = &'a [(&'a str, &'a str)];

fn ok(dir: &Path, args: &[&str]) -> std::process::Output {
    support::run_ok(dir, args, std::iter::empty::<(&str, &str)>())
}

fn write(dir: &Path, files: Files<'_>) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// Every file under `dir` but the sheet, sorted.
fn listed(dir: &Path) -> Vec<String> {
    (files_under(dir).into_iter())
        .map(|p| p.to_str().unwrap().to_owned())
        .filter(|p| p != "s.csv")
        .collect()
}

fn sorted(files: Files<'_>, more: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = (files.iter().map(|(p, _)| *p))
        .chain(more.iter().copied())
        .map(str::to_owned)
        .collect();
    all.sort();
    all
}

/// `depot generate --source s.csv ARGS`: (stdout, stderr).
fn generate(dir: &Path, args: &[&str]) -> (String, String) {
    let mut all = vec!["generate", "--source", "s.csv"];
    all.extend_from_slice(args);
    let out = ok(dir, &all);
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The sheet with `old` (once in it) replaced by `new`.
fn edit_sheet(dir: &Path, old: &str, new: &str) {
    let sheet = std::fs::read_to_string(dir.join("s.csv")).unwrap();
    assert_eq!(sheet.matches(old).count(), 1, "{old}: {sheet}");
    std::fs::write(dir.join("s.csv"), sheet.replace(old, new)).unwrap();
}

/// The sheet with a column for `locale`, holding `text` in the row that holds `beside`.
fn add_locale(dir: &Path, locale: &str, beside: &str, text: &str) {
    let sheet = std::fs::read_to_string(dir.join("s.csv")).unwrap();
    let header = (sheet.lines())
        .find(|l| l.starts_with(">>>"))
        .unwrap()
        .to_owned();
    let columns = header.split(',').count();
    let lines: Vec<String> = (sheet.lines())
        .map(|line| {
            let cells = line.split(',').count();
            if line == header {
                format!("{line},{locale}")
            } else if line.split(',').any(|cell| cell == beside) {
                format!("{line}{},{text}", ",".repeat(columns - cells))
            } else {
                line.to_owned()
            }
        })
        .collect();
    assert!(lines.iter().any(|l| l.ends_with(text)), "{beside}: {sheet}");
    std::fs::write(dir.join("s.csv"), lines.join("\n") + "\n").unwrap();
}

/// `depot diff` of the app's folder against the sheet exits 0: they agree.
fn diff_agrees(dir: &Path, app: &str) {
    let out = support::depot(dir)
        .args(["diff", "--source", "s.csv", app])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "diff: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The file at `path` under `dir`.
fn read(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).unwrap()
}

/// Import `app`, then `generate -f FORMAT -p app`: the app's files are written, unchanged
/// (byte for byte) and no other file appears; then `old` → `new` in the sheet changes
/// exactly that text of `edited`, and diff finds the app and the sheet equal before and
/// after. The folder, for more runs.
fn comes_back(
    files: Files<'_>,
    format: &str,
    edited: &str,
    old: &str,
    new: &str,
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), files);
    ok(dir.path(), &["import", "app", "--to", "s.csv"]);
    diff_agrees(dir.path(), "app");
    let (said, notes) = generate(dir.path(), &["-f", format, "-p", "app"]);
    assert_eq!(listed(dir.path()), sorted(files, &[]), "{said}{notes}");
    for (path, text) in files {
        assert_eq!(read(dir.path(), path), *text, "{path}\n{said}");
    }
    for (path, _) in files
        .iter()
        .filter(|(p, _)| !p.ends_with(".pot") && !p.contains("config/database"))
    {
        assert!(
            said.contains(&format!("unchanged {path}")),
            "{path}: {said}"
        );
    }
    assert!(!said.contains("wrote"), "{said}");

    edit_sheet(dir.path(), old, new);
    let (said, notes) = generate(dir.path(), &["-f", format, "-p", "app"]);
    assert_eq!(listed(dir.path()), sorted(files, &[]), "{said}{notes}");
    for (path, text) in files {
        let expected = match *path == edited {
            true => text.replace(old, new),
            false => (*text).to_owned(),
        };
        assert_eq!(read(dir.path(), path), expected, "{path}\n{said}");
    }
    assert_eq!(said.matches("wrote").count(), 1, "{said}");
    assert!(said.contains(&format!("wrote {edited}")), "{said}");
    diff_agrees(dir.path(), "app");
    dir
}

const RAILS_EN: &str = r#""en":
  "greeting": "Hello"
  "home":
    "title": "Your basket"
"#;

const RAILS_DE: &str = r#""de":
  "greeting": "Hallo"
  "home":
    "title": "Ihr Korb"
"#;

/// Rails keeps `config/locales/<locale>.yml`, each with its locale as the top key: generate
/// writes those (not `messages.<locale>.yml` beside them), and a new locale's file is
/// `config/locales/fr.yml` with `fr:` at the top, as Rails reads it.
#[test]
fn rails_locale_files_are_written_where_the_app_keeps_them() {
    let files: Files<'_> = &[
        ("app/config/locales/en.yml", RAILS_EN),
        ("app/config/locales/de.yml", RAILS_DE),
        (
            "app/config/database.yml",
            "development:\n  adapter: sqlite3\n",
        ),
    ];
    let dir = comes_back(
        files,
        "yml",
        "app/config/locales/de.yml",
        "Ihr Korb",
        "Ihr Warenkorb",
    );
    add_locale(dir.path(), "fr", "Hello", "Bonjour");
    let (said, notes) = generate(dir.path(), &["-f", "yml", "-p", "app"]);
    assert_eq!(
        listed(dir.path()),
        sorted(files, &["app/config/locales/fr.yml"]),
        "{said}"
    );
    assert_eq!(
        read(dir.path(), "app/config/locales/fr.yml"),
        "\"fr\":\n  \"greeting\": \"Bonjour\"\n"
    );
    assert!(said.contains("wrote app/config/locales/fr.yml"), "{said}");
    assert!(
        notes.contains(
            "depot: yml files written where the app keeps them: config/locales/{locale}.yml (--layout to choose another)"
        ),
        "{notes}"
    );
}

const PO_DE: &str = r#"msgid ""
msgstr ""
"Language: de\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#: src/main.c:12
msgid "Your basket"
msgstr "Ihr Korb"

#: src/main.c:20
msgid "Checkout"
msgstr "Zur Kasse"
"#;

const PO_PL: &str = r#"msgid ""
msgstr ""
"Language: pl\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\n"

#: src/main.c:12
msgid "Your basket"
msgstr "Twój koszyk"

#: src/main.c:20
msgid "Checkout"
msgstr "Do kasy"
"#;

/// gettext's tree `locale/<locale>/LC_MESSAGES/<domain>.po` (the domain `app`, also a
/// language code): generate patches those files in place, and a new locale gets
/// `locale/fr/LC_MESSAGES/app.po`.
#[test]
fn gettext_lc_messages_files_are_written_where_the_app_keeps_them() {
    let files: Files<'_> = &[
        ("app/locale/de/LC_MESSAGES/app.po", PO_DE),
        ("app/locale/pl/LC_MESSAGES/app.po", PO_PL),
        ("app/locale/app.pot", "msgid \"\"\nmsgstr \"\"\n"),
    ];
    let dir = comes_back(
        files,
        "po",
        "app/locale/pl/LC_MESSAGES/app.po",
        "Do kasy",
        "Przejdź do kasy",
    );
    add_locale(dir.path(), "fr", "Ihr Korb", "Votre panier");
    let (said, notes) = generate(dir.path(), &["-f", "po", "-p", "app"]);
    let new = "app/locale/fr/LC_MESSAGES/app.po";
    assert_eq!(listed(dir.path()), sorted(files, &[new]), "{said}");
    let fr = read(dir.path(), new);
    assert!(fr.contains("msgstr \"Votre panier\""), "{fr}");
    assert!(said.contains(&format!("wrote {new}")), "{said}");
    assert!(
        notes.contains(
            "depot: po files written where the app keeps them: locale/{locale}/LC_MESSAGES/app.po (--layout to choose another)"
        ),
        "{notes}"
    );
}

/// gnome-clocks' `po/<locale>.po` beside its template `po/gnome-clocks.pot`, generated into
/// the app's folder: `po/fr.po`, not `messages.fr.po`.
#[test]
fn po_files_named_by_their_locale_alone_are_written_where_the_app_keeps_them() {
    let files: Files<'_> = &[
        ("app/po/de.po", PO_DE),
        ("app/po/pl.po", PO_PL),
        ("app/po/gnome-clocks.pot", "msgid \"\"\nmsgstr \"\"\n"),
    ];
    let dir = comes_back(files, "po", "app/po/de.po", "Zur Kasse", "Kasse");
    add_locale(dir.path(), "fr", "Ihr Korb", "Votre panier");
    let (said, _) = generate(dir.path(), &["-f", "po", "-p", "app"]);
    assert_eq!(
        listed(dir.path()),
        sorted(files, &["app/po/fr.po"]),
        "{said}"
    );
}

/// A column `fr` added to the sheet ("Votre panier" beside "Your basket"): generate of
/// `format` into `app` writes the one file `new` beside the app's, and diff agrees. The
/// notes (stderr).
fn french_comes(dir: &Path, files: Files<'_>, format: &str, new: &str) -> String {
    add_locale(dir, "fr", "Your basket", "Votre panier");
    let (said, notes) = generate(dir, &["-f", format, "-p", "app"]);
    assert_eq!(listed(dir), sorted(files, &[new]), "{said}");
    assert!(said.contains(&format!("wrote {new}")), "{said}");
    assert_eq!(said.matches("wrote").count(), 1, "{said}");
    diff_agrees(dir, "app");
    notes
}

const MESSAGES: &str = "# Basket's texts\n\
home.title = Your basket\n\
Export\\ finished. = Export finished.\n\
Saved\\ to\\ {0}. = Saved to {0}.\n";

const MESSAGES_DE: &str = "home.title = Ihr Korb\n\
Export\\ finished. = Export abgeschlossen.\n\
Saved\\ to\\ {0}. = Gespeichert in {0}.\n";

const MESSAGES_PT_BR: &str = "home.title = Sua cesta\n\
Export\\ finished. = Exporta\\u00e7\\u00e3o conclu\\u00edda.\n";

/// A Java app's bundle `Messages` in `src/main/resources` (not depot's `messages` at the
/// root), keys that are sentences with escaped spaces: generate with no flags patches the
/// app's own files in place (the base `Messages.properties` stays the base), writes no
/// `messages_*.properties` beside them, and a new locale gets `Messages_fr.properties`;
/// `ResourceBundle.getBundle("Messages", …)` reads the sheet's texts.
#[test]
fn java_bundles_of_the_apps_name_are_written_where_the_app_keeps_them() {
    let files: Files<'_> = &[
        ("app/src/main/resources/Messages.properties", MESSAGES),
        ("app/src/main/resources/Messages_de.properties", MESSAGES_DE),
        (
            "app/src/main/resources/Messages_pt_BR.properties",
            MESSAGES_PT_BR,
        ),
    ];
    let dir = comes_back(
        files,
        "properties",
        "app/src/main/resources/Messages_de.properties",
        "Export abgeschlossen.",
        "Export fertig.",
    );
    let new = "app/src/main/resources/Messages_fr.properties";
    let notes = french_comes(dir.path(), files, "properties", new);
    assert_eq!(read(dir.path(), new), "home.title=Votre panier\n");
    assert!(
        notes.contains(
            "depot: properties files written where the app keeps them: \
             src/main/resources/Messages.properties and its locales' files \
             (--filename or --layout to choose another)"
        ),
        "{notes}"
    );
    let root = dir.path().join("app/src/main/resources");
    let texts = properties(&root, "Messages", &["", "de", "pt-BR", "fr"]).unwrap();
    assert_eq!(plain(&texts, "", "Export finished."), "Export finished.");
    assert_eq!(plain(&texts, "de", "Export finished."), "Export fertig.");
    assert_eq!(plain(&texts, "de", "Saved to {0}."), "Gespeichert in {0}.");
    assert_eq!(
        plain(&texts, "pt-BR", "Export finished."),
        "Exportação concluída."
    );
    assert_eq!(plain(&texts, "fr", "home.title"), "Votre panier");
}

/// A resx file of `RESX_HEAD` and `(name, text)` strings.
fn resx_file(strings: &[(&str, &str)]) -> String {
    let mut file = RESX_HEAD.to_owned();
    for (name, text) in strings {
        file.push_str(&format!(
            "  <data name=\"{name}\" xml:space=\"preserve\">\n    <value>{text}</value>\n  </data>\n"
        ));
    }
    file + "</root>\n"
}

/// A .NET app's resource set `MiscResources` in `Resources/` (not depot's `Strings` at the
/// root): generate with no flags patches the app's own files in place, writes no
/// `Strings.*.resx` beside them, and a new locale gets `MiscResources.fr.resx`; mono's
/// ResourceManager reads the sheet's texts.
#[test]
fn dotnet_resources_of_the_apps_name_are_written_where_the_app_keeps_them() {
    let neutral = resx_file(&[("Basket_Title", "Your basket"), ("Checkout", "Checkout")]);
    let de = resx_file(&[("Basket_Title", "Ihr Korb"), ("Checkout", "Zur Kasse")]);
    let pt_br = resx_file(&[("Basket_Title", "Sua cesta"), ("Checkout", "Finalizar")]);
    let files: Files<'_> = &[
        ("app/Resources/MiscResources.resx", &neutral),
        ("app/Resources/MiscResources.de.resx", &de),
        ("app/Resources/MiscResources.pt-BR.resx", &pt_br),
    ];
    let dir = comes_back(
        files,
        "resx",
        "app/Resources/MiscResources.de.resx",
        "Zur Kasse",
        "Zur Kasse gehen",
    );
    let new = "app/Resources/MiscResources.fr.resx";
    let notes = french_comes(dir.path(), files, "resx", new);
    assert!(
        notes.contains(
            "depot: resx files written where the app keeps them: \
             Resources/MiscResources.resx and its locales' files \
             (--filename or --layout to choose another)"
        ),
        "{notes}"
    );
    let folder = dir.path().join("app/Resources");
    let texts = resx(&folder, "MiscResources", &["", "de", "pt-BR", "fr"]).unwrap();
    assert_eq!(plain(&texts, "", "Checkout"), "Checkout");
    assert_eq!(plain(&texts, "de", "Checkout"), "Zur Kasse gehen");
    assert_eq!(plain(&texts, "pt-BR", "Basket_Title"), "Sua cesta");
    assert_eq!(plain(&texts, "fr", "Basket_Title"), "Votre panier");
}

/// A Java app of two bundles in two modules' folders, imported as a sheet of two tabs
/// (a folder of `.csv` files): each bundle's files get their own tab's texts, in their own
/// folder, and an edit of one tab changes that bundle's file alone.
#[test]
fn each_java_bundle_gets_its_own_tabs_texts_in_its_own_folder() {
    let files: Files<'_> = &[
        ("app/web/src/main/resources/Messages.properties", MESSAGES),
        (
            "app/web/src/main/resources/Messages_de.properties",
            MESSAGES_DE,
        ),
        (
            "app/core/src/main/resources/Errors.properties",
            "disk.full = The disk is full.\n",
        ),
        (
            "app/core/src/main/resources/Errors_de.properties",
            "disk.full = Die Platte ist voll.\n",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), files);
    ok(dir.path(), &["import", "app", "--to", "s/"]);
    let tab = dir.path().join("s/Errors.csv");
    let sheet = std::fs::read_to_string(&tab).unwrap();
    std::fs::write(&tab, sheet.replace("Die Platte ist voll.", "Platte voll.")).unwrap();
    let out = ok(
        dir.path(),
        &["generate", "--source", "s", "-f", "properties", "-p", "app"],
    );
    let said = String::from_utf8(out.stdout).unwrap();
    let app: Vec<String> = (listed(dir.path()).into_iter())
        .filter(|p| !p.starts_with("s/"))
        .collect();
    assert_eq!(app, sorted(files, &[]), "{said}");
    for (path, text) in files {
        let expected = match path.ends_with("Errors_de.properties") {
            true => text.replace("Die Platte ist voll.", "Platte voll."),
            false => (*text).to_owned(),
        };
        assert_eq!(read(dir.path(), path), expected, "{path}\n{said}");
    }
    assert_eq!(said.matches("wrote").count(), 1, "{said}");
    assert!(
        said.contains("wrote app/core/src/main/resources/Errors_de.properties"),
        "{said}"
    );
    let diff = ok(dir.path(), &["diff", "--source", "s", "app"]);
    assert_eq!(
        String::from_utf8(diff.stdout).unwrap(),
        "no differences: the 4 file(s) (properties) match the sheet\n"
    );
    let errors = dir.path().join("app/core/src/main/resources");
    let texts = properties(&errors, "Errors", &["de"]).unwrap();
    assert_eq!(plain(&texts, "de", "disk.full"), "Platte voll.");
}

const WEB_EN: &str = r#"{
  "en": {
    "nav": {
      "home": "Home",
      "basket": "Your basket"
    },
    "greeting": "Hello {name}"
  }
}
"#;

const WEB_DE: &str = r#"{
  "de": {
    "nav": {
      "home": "Startseite",
      "basket": "Ihr Korb"
    },
    "greeting": "Hallo {name}"
  }
}
"#;

/// The app names its files in lower case and its keys as BCP 47 tags.
const WEB_ZH: &str = r#"{
  "zh-Hant": {
    "nav": {
      "home": "首頁",
      "basket": "購物車"
    },
    "greeting": "你好 {name}"
  }
}
"#;

/// Web apps (vue-i18n, ember, rails-i18n-js) keep `locales/<locale>.json` with the locale
/// as the one top key (`{"en": {...}}`): the sheet holds the keys below it (`nav.home`, one
/// row for every locale), generate gives each file back with its key as the app spells it
/// (`zh-Hant` in `zh-hant.json`), a new locale's file gets its own, spelled as the app
/// spells its locales, and the app's code (JSON.parse, then a lookup of the locale's tree)
/// reads every text.
#[test]
fn web_app_json_files_holding_their_locale_as_the_top_key_come_back_with_it() {
    let files: Files<'_> = &[
        ("app/locales/en.json", WEB_EN),
        ("app/locales/de.json", WEB_DE),
        ("app/locales/zh-hant.json", WEB_ZH),
    ];
    let dir = comes_back(
        files,
        "json",
        "app/locales/de.json",
        "Ihr Korb",
        "Ihr Warenkorb",
    );
    let sheet = read(dir.path(), "s.csv");
    assert_eq!(
        sheet,
        ">>>,>>>,###,$$$,en,de,zh-hant\n\
         nav,home,,,Home,Startseite,首頁\n\
         ,basket,,,Your basket,Ihr Warenkorb,購物車\n\
         greeting,,,,Hello {name},Hallo {name},你好 {name}\n"
    );
    add_locale(dir.path(), "pt-br", "Your basket", "Seu carrinho");
    let (said, _) = generate(dir.path(), &["-f", "json", "-p", "app"]);
    let new = "app/locales/pt-br.json";
    assert_eq!(listed(dir.path()), sorted(files, &[new]), "{said}");
    assert_eq!(
        read(dir.path(), new),
        r#"{"pt-BR":{"nav":{"basket":"Seu carrinho"}}}"#
    );
    let texts: Vec<String> = (files.iter().map(|(p, _)| *p))
        .chain([new])
        .map(|path| read(dir.path(), path))
        .collect();
    let calls = [
        ("en", "nav.home"),
        ("de", "nav.basket"),
        ("zh-Hant", "greeting"),
        ("pt-BR", "nav.basket"),
        ("pt-BR", "nav.home"),
    ];
    let read_by_the_app = support::real_apps::node(
        "locale-files",
        &serde_json::json!({ "files": texts, "calls": calls }),
    )
    .unwrap();
    assert_eq!(
        read_by_the_app,
        serde_json::json!(["Home", "Ihr Warenkorb", "你好 {name}", "Seu carrinho", null])
    );
    diff_agrees(dir.path(), "app");
}
