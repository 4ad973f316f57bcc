//! Apps whose translations are several namespaces, each in files of its own name (SPEC
//! §12.1, §14), through the real binary: i18next namespaces (`locales/en/common.json`,
//! `locales/en/settings.json`), Java bundles in one folder (`index_de.properties`,
//! `sidepanel_de.properties`, as Jenkins keeps them), Apple string tables
//! (`Localizable.strings`, `InfoPlist.strings` and a table of the app's own in each
//! `.lproj`). `depot import` gives a tab per namespace, `depot generate` with no other
//! flag than `-f`/`-p` writes each namespace back into its own files (byte for byte the
//! app's, no file the app never had), the app's own runtime reads them as it read the
//! originals, `depot diff` pairs each namespace with its tab: exit 0 on the round trip,
//! exactly an edited text otherwise. A key in two namespaces with two texts is no
//! conflict: each tab holds its own.
#![cfg(test)]

mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::real_apps::{copy_tree, files_under};

fn write(root: &Path, files: &[(&str, &str)]) {
    for (name, body) in files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
}

/// Runs depot in `dir`, which must succeed; its stdout and stderr.
fn ok(dir: &Path, args: &[&str]) -> String {
    let out = support::run(dir, args);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "depot {}: {said}", args.join(" "));
    said
}

/// `depot generate --source sheet -f format -p path`, which must succeed.
fn generate(dir: &Path, sheet: &str, format: &str, path: &str) {
    ok(
        dir,
        &["generate", "--source", sheet, "-f", format, "-p", path],
    );
}

/// `depot diff`: its exit code and stdout.
fn diff(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["diff"];
    all.extend_from_slice(args);
    let out = support::run(dir, &all);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Every file under `root` with its bytes.
fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    (files_under(root).into_iter())
        .map(|file| {
            let bytes = std::fs::read(root.join(&file)).unwrap();
            (file.display().to_string(), bytes)
        })
        .collect()
}

/// The lines of `after` that are not the same line of `before`, with both texts.
fn changed_lines(before: &Path, after: &Path) -> Vec<(String, String, String)> {
    let (before, after) = (tree(before), tree(after));
    assert_eq!(
        before.iter().map(|(f, _)| f).collect::<Vec<_>>(),
        after.iter().map(|(f, _)| f).collect::<Vec<_>>(),
        "the same files"
    );
    let mut changed = Vec::new();
    for ((file, a), (_, b)) in before.iter().zip(&after) {
        let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
        assert_eq!(a.lines().count(), b.lines().count(), "{file}");
        for (x, y) in a.lines().zip(b.lines()) {
            if x != y {
                changed.push((file.clone(), x.to_owned(), y.to_owned()));
            }
        }
    }
    changed
}

/// `depot diff` of `app` against `sheet` agrees: exit 0, `files` files of `format`.
fn agrees(dir: &Path, app: &str, sheet: &str, files: usize, format: &str) {
    assert_eq!(
        diff(dir, &[app, "--source", sheet]),
        (
            Some(0),
            format!("no differences: the {files} file(s) ({format}) match the sheet\n")
        )
    );
}

/// `depot diff` with `args` reports exactly one text of `locale` that differs: `key`,
/// `app`'s text and the sheet's.
fn differs_once(dir: &Path, args: &[&str], locale: &str, (key, app, sheet): (&str, &str, &str)) {
    assert_eq!(
        diff(dir, args),
        (
            Some(1),
            format!(
                "{locale}: 0 only in the app, 0 only in the sheet, 1 differ\n  differs:           \
                 {key}: app {app:?}, sheet {sheet:?}\n"
            )
        )
    );
}

/// The app under `app` with `file` edited to `body`, merged into `sheet` (`--overwrite`),
/// written to `to`; what import said.
fn merge_edit(dir: &Path, (file, body): (&str, &str), sheet: &str, to: &str) -> String {
    let edited = dir.join("edited");
    copy_tree(&dir.join("app"), &edited);
    write(&edited, &[(file, body)]);
    ok(
        dir,
        &[
            "import",
            "edited",
            "--merge-into",
            sheet,
            "--overwrite",
            "--to",
            to,
        ],
    )
}

/// The sheet's document as generate reads it: json of every locale, namespaces first.
fn sheet_json(dir: &Path, sheet: &str) -> Value {
    let out = support::run_ok(
        dir,
        &[
            "generate", "--source", sheet, "-f", "json", "--merge", "-p", "-",
        ],
        [("DEPOT_LOG_LEVEL", "warn")],
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

// ------------------------------------------------------------------ i18next

const COMMON_EN: &str = "{\n  \"title\": \"Home\",\n  \"save\": \"Save\"\n}\n";
const SETTINGS_EN: &str = "{\n  \"title\": \"Settings\",\n  \"dark\": \"Dark mode\"\n}\n";
const COMMON_DE: &str = "{\n  \"title\": \"Start\",\n  \"save\": \"Speichern\"\n}\n";
const SETTINGS_DE: &str = "{\n  \"title\": \"Einstellungen\",\n  \"dark\": \"Dunkelmodus\"\n}\n";

/// i18next initialised as the app initialises it (`ns: ['common', 'settings']`) over the
/// files of `locales`: `t(key, {ns})` of every key of both namespaces in both languages.
fn i18next_reads(locales: &Path) -> Vec<Value> {
    let mut resources = serde_json::Map::new();
    for lng in ["en", "de"] {
        let mut namespaces = serde_json::Map::new();
        for ns in ["common", "settings"] {
            let body = std::fs::read_to_string(locales.join(lng).join(format!("{ns}.json")));
            namespaces.insert(ns.to_owned(), serde_json::from_str(&body.unwrap()).unwrap());
        }
        resources.insert(lng.to_owned(), Value::Object(namespaces));
    }
    let mut calls = Vec::new();
    for lng in ["en", "de"] {
        for (ns, key) in [
            ("common", "title"),
            ("common", "save"),
            ("settings", "title"),
            ("settings", "dark"),
        ] {
            calls.push(json!([lng, ns, key]));
        }
    }
    let read = support::real_apps::node(
        "i18next-app",
        &json!({
            "options": {"lng": "en", "ns": ["common", "settings"], "defaultNS": "common",
                        "fallbackLng": false},
            "resources": resources,
            "calls": calls,
        }),
    )
    .unwrap();
    read.as_array().unwrap().clone()
}

/// The app of the report: two namespaces with a key `title` each, in en and de. Import
/// gives a tab each (no "not carried"), generate writes `common.json` and `settings.json`
/// back as they were and nothing else, i18next reads every text as before, diff agrees;
/// an edit of the settings title in its tab changes that line of `settings.json` alone,
/// and diff names exactly it.
#[test]
fn an_i18next_app_of_two_namespaces_comes_back_file_for_file() {
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app");
    write(
        &app,
        &[
            ("locales/en/common.json", COMMON_EN),
            ("locales/en/settings.json", SETTINGS_EN),
            ("locales/de/common.json", COMMON_DE),
            ("locales/de/settings.json", SETTINGS_DE),
        ],
    );
    let said = ok(
        dir.path(),
        &[
            "import",
            "app/locales",
            "--format",
            "i18next",
            "--to",
            "sheet/",
        ],
    );
    assert!(!said.contains("not carried"), "{said}");
    for line in [
        "namespaces: common (2 key(s)), settings (2 key(s)), a tab each",
        "wrote sheet/common.csv, sheet/settings.csv: 4 key(s) in 2 tabs (common, settings), \
         locales en, de",
    ] {
        assert!(said.lines().any(|l| l == line), "{line} not in\n{said}");
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("sheet/settings.csv")).unwrap(),
        "depot: placeholders=i18next,,,,\n>>>,###,$$$,en,de\n\
         title,,,Settings,Einstellungen\ndark,,,Dark mode,Dunkelmodus\n"
    );
    assert_eq!(
        sheet_json(dir.path(), "sheet"),
        json!({
            "en": {"common": {"title": "Home", "save": "Save"},
                   "settings": {"title": "Settings", "dark": "Dark mode"}},
            "de": {"common": {"title": "Start", "save": "Speichern"},
                   "settings": {"title": "Einstellungen", "dark": "Dunkelmodus"}},
        })
    );

    copy_tree(&app, &dir.path().join("copy"));
    generate(dir.path(), "sheet", "i18next", "copy/locales");
    assert_eq!(tree(&dir.path().join("copy")), tree(&app));
    // into an empty folder: the same files, no translation.json
    generate(dir.path(), "sheet", "i18next", "new");
    assert_eq!(
        files_under(&dir.path().join("new")),
        [
            "de/common.json",
            "de/settings.json",
            "en/common.json",
            "en/settings.json"
        ]
        .map(std::path::PathBuf::from)
    );
    let want = [
        "Home",
        "Save",
        "Settings",
        "Dark mode",
        "Start",
        "Speichern",
        "Einstellungen",
        "Dunkelmodus",
    ];
    assert_eq!(i18next_reads(&app.join("locales")), want);
    let against_sheet = ["app/locales", "--format", "i18next", "--source", "sheet"];
    assert_eq!(i18next_reads(&dir.path().join("new")), want);
    assert_eq!(
        diff(dir.path(), &against_sheet),
        (
            Some(0),
            "no differences: the 4 file(s) (i18next) match the sheet\n".to_owned()
        )
    );

    // one text edited in one tab
    let tab = dir.path().join("sheet/settings.csv");
    let edited = std::fs::read_to_string(&tab)
        .unwrap()
        .replace("title,,,Settings,", "title,,,Preferences,");
    std::fs::write(&tab, edited).unwrap();
    differs_once(
        dir.path(),
        &against_sheet,
        "en",
        ("settings.title", "Settings", "Preferences"),
    );
    generate(dir.path(), "sheet", "i18next", "copy/locales");
    assert_eq!(
        changed_lines(&app, &dir.path().join("copy")),
        [(
            "locales/en/settings.json".to_owned(),
            "  \"title\": \"Settings\",".to_owned(),
            "  \"title\": \"Preferences\",".to_owned()
        )]
    );
}

/// A sheet of one tab (as import wrote one before namespaces) holds every namespace of
/// the app: each is compared with it, and a text that only one namespace's key has in
/// the sheet is a difference of that namespace's key (the report's "no differences"
/// hid it).
#[test]
fn diff_of_an_app_of_namespaces_against_a_sheet_of_one_tab_names_each_namespace_key() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("locales/en/common.json", COMMON_EN),
            ("locales/en/settings.json", SETTINGS_EN),
            (
                "one.csv",
                ">>>,en\ntitle,Home\nsave,Save\ndark,Dark mode\nlegacy,Old\n",
            ),
        ],
    );
    assert_eq!(
        diff(
            dir.path(),
            &["locales", "--format", "i18next", "--source", "one.csv"]
        ),
        (
            Some(1),
            "en: 0 only in the app, 1 only in the sheet, 1 differ\n  only in the sheet: \
             legacy = \"Old\"\n  differs:           settings.title: app \"Settings\", \
             sheet \"Home\"\n"
                .to_owned()
        )
    );
}

/// A `.csv` holds one tab: an app of several namespaces is refused there in one line that
/// names them and the targets that hold tabs, and nothing is written.
#[test]
fn a_csv_target_refuses_several_namespaces_naming_them_and_the_targets_that_hold_tabs() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("locales/en/common.json", COMMON_EN),
            ("locales/en/settings.json", SETTINGS_EN),
        ],
    );
    let out = support::run(dir.path(), &["import", "locales", "--to", "s.csv"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.lines().last().unwrap(),
        "depot: error: a .csv file holds one tab, and the sheet has 2 (common, settings), one \
         per namespace of the app's files: write --to NAME.xlsx (or .ods), or --to NAME/ (a \
         folder of .csv files, one a tab)"
    );
    assert!(!dir.path().join("s.csv").exists());
}

// ------------------------------------------------------------------ properties (JDK)

/// Three bundles of one folder as Jenkins keeps them, each with a `title` of its own.
const BUNDLES: [(&str, &str); 8] = [
    ("index.properties", "title=Dashboard\nnew=New Item\n"),
    (
        "index_de.properties",
        "title=\\u00DCbersicht\nnew=Neues Element\n",
    ),
    (
        "index_fr.properties",
        "title=Tableau de bord\nnew=Nouveau\n",
    ),
    ("sidepanel.properties", "title=Side panel\nback=Back\n"),
    (
        "sidepanel_de.properties",
        "title=Seitenleiste\nback=Zur\\u00FCck\n",
    ),
    ("sidepanel_fr.properties", "title=Panneau\nback=Retour\n"),
    ("builds.properties", "title=Builds\n"),
    ("builds_de.properties", "title=Builds (de)\n"),
];

/// What the JDK's `ResourceBundle` gives of each bundle of `root` in the root, de and fr.
fn bundles_read(root: &Path) -> Vec<support::real_apps::Texts> {
    ["index", "sidepanel", "builds"]
        .iter()
        .map(|base| support::real_apps::properties(root, base, &["", "de", "fr"]).unwrap())
        .collect()
}

/// Jenkins' bundles: a tab per bundle in the workbook, generate with `-f properties`
/// alone writes each bundle back into its own files (no `messages*.properties`, no
/// `index_en.properties`), the JDK reads every bundle as before; an edit merged into
/// the bundle's tab (`--merge-into --overwrite`) changes that line alone, and diff names
/// exactly it.
#[test]
fn java_bundles_of_one_folder_come_back_bundle_for_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app");
    write(&app, &BUNDLES);
    let said = ok(dir.path(), &["import", "app", "--to", "s.xlsx"]);
    assert!(!said.contains("not carried"), "{said}");
    assert!(
        said.lines().any(|l| l
            == "namespaces: builds (1 key(s)), index (2 key(s)), sidepanel (2 key(s)), a tab each"),
        "{said}"
    );
    assert_eq!(
        sheet_json(dir.path(), "s.xlsx")["de"],
        json!({
            "builds": {"title": "Builds (de)"},
            "index": {"title": "Übersicht", "new": "Neues Element"},
            "sidepanel": {"title": "Seitenleiste", "back": "Zurück"},
        })
    );
    copy_tree(&app, &dir.path().join("copy"));
    generate(dir.path(), "s.xlsx", "properties", "copy");
    assert_eq!(tree(&dir.path().join("copy")), tree(&app));
    generate(dir.path(), "s.xlsx", "properties", "new");
    let read = bundles_read(&app);
    assert_eq!(
        read[1]["de"]["title"],
        support::real_apps::Text::Plain("Seitenleiste".into())
    );
    assert_eq!(bundles_read(&dir.path().join("new")), read);
    agrees(dir.path(), "app", "s.xlsx", 8, "properties");

    // the sidepanel's German title edited, merged into its tab
    let edit = (
        "sidepanel_de.properties",
        "title=Seitenleiste (neu)\nback=Zur\\u00FCck\n",
    );
    let said = merge_edit(dir.path(), edit, "s.xlsx", "s2.xlsx");
    assert!(
        said.contains(
            "depot: conflict: sidepanel!E3 sidepanel.title (de): the sheet has \"Seitenleiste\", \
             the app \"Seitenleiste (neu)\"; the sheet's is replaced by the app's"
        ),
        "{said}"
    );
    differs_once(
        dir.path(),
        &["app", "--source", "s2.xlsx"],
        "de",
        ("sidepanel.title", "Seitenleiste", "Seitenleiste (neu)"),
    );
    generate(dir.path(), "s2.xlsx", "properties", "copy");
    assert_eq!(
        changed_lines(&app, &dir.path().join("copy")),
        [(
            "sidepanel_de.properties".to_owned(),
            "title=Seitenleiste".to_owned(),
            "title=Seitenleiste (neu)".to_owned()
        )]
    );
}

// ------------------------------------------------------------------ ios string tables

const LOCALIZABLE_STRINGSDICT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>files</key>
	<dict>
		<key>NSStringLocalizedFormatKey</key>
		<string>%#@files@</string>
		<key>files</key>
		<dict>
			<key>NSStringFormatSpecTypeKey</key>
			<string>NSStringPluralRuleType</string>
			<key>NSStringFormatValueTypeKey</key>
			<string>d</string>
			<key>one</key>
			<string>%d file</string>
			<key>other</key>
			<string>%d files</string>
		</dict>
	</dict>
</dict>
</plist>
"#;

/// An iOS app's tables in en and de: `Localizable` (with its plural entries beside it),
/// `InfoPlist` and the app's own `Settings`, a `title` in each.
fn ios_app(root: &Path) {
    write(
        root,
        &[
            (
                "en.lproj/Localizable.strings",
                "/* Home screen */\n\"title\" = \"Home\";\n\"save\" = \"Save\";\n",
            ),
            (
                "de.lproj/Localizable.strings",
                "/* Home screen */\n\"title\" = \"Start\";\n\"save\" = \"Speichern\";\n",
            ),
            ("en.lproj/Localizable.stringsdict", LOCALIZABLE_STRINGSDICT),
            (
                "de.lproj/Localizable.stringsdict",
                &LOCALIZABLE_STRINGSDICT
                    .replace("%d file<", "%d Datei<")
                    .replace("%d files<", "%d Dateien<"),
            ),
            (
                "en.lproj/InfoPlist.strings",
                "\"CFBundleDisplayName\" = \"Notes\";\n\"title\" = \"Notes app\";\n",
            ),
            (
                "de.lproj/InfoPlist.strings",
                "\"CFBundleDisplayName\" = \"Notizen\";\n\"title\" = \"Notizen-App\";\n",
            ),
            (
                "en.lproj/Settings.strings",
                "\"title\" = \"Settings\";\n\"dark\" = \"Dark mode\";\n",
            ),
            (
                "de.lproj/Settings.strings",
                "\"title\" = \"Einstellungen\";\n\"dark\" = \"Dunkelmodus\";\n",
            ),
        ],
    );
}

/// Apple's string tables: a tab per table in the `.ods`, generate with `-f ios` alone
/// writes every table into its own `.strings` (and `Localizable.stringsdict`, no
/// stringsdict for the tables without plurals) byte for byte, GNUstep reads every table
/// as before; an edit merged into a table's tab, written to a folder of tabs, changes
/// that line alone, and diff names exactly it.
#[test]
fn ios_string_tables_come_back_table_for_table() {
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app");
    ios_app(&app);
    let said = ok(dir.path(), &["import", "app", "--to", "s.ods"]);
    assert!(!said.contains("not carried"), "{said}");
    assert!(
        said.lines().any(|l| l
            == "namespaces: InfoPlist (2 key(s)), Localizable (3 key(s)), Settings (2 key(s)), \
                a tab each"),
        "{said}"
    );
    copy_tree(&app, &dir.path().join("copy"));
    generate(dir.path(), "s.ods", "ios", "copy");
    assert_eq!(tree(&dir.path().join("copy")), tree(&app));
    generate(dir.path(), "s.ods", "ios", "new");
    let written: Vec<String> = (files_under(&dir.path().join("new")).iter())
        .map(|f| f.display().to_string())
        .filter(|f| !f.starts_with("Base.lproj/"))
        .collect();
    assert_eq!(
        written,
        files_under(&app)
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
    );
    let read = support::real_apps::ios(&app).unwrap();
    assert_eq!(
        read["de"]["Settings/title"],
        support::real_apps::Text::Plain("Einstellungen".into())
    );
    let mut again = support::real_apps::ios(&dir.path().join("new")).unwrap();
    again.remove("Base");
    assert_eq!(again, read);
    agrees(dir.path(), "app", "s.ods", 8, "ios");

    // the English Settings title edited, merged into its tab: a folder of tabs
    let edit = (
        "en.lproj/Settings.strings",
        "\"title\" = \"Preferences\";\n\"dark\" = \"Dark mode\";\n",
    );
    merge_edit(dir.path(), edit, "s.ods", "tabs/");
    differs_once(
        dir.path(),
        &["app", "--source", "tabs"],
        "en",
        ("Settings.title", "Settings", "Preferences"),
    );
    generate(dir.path(), "tabs", "ios", "copy");
    assert_eq!(
        changed_lines(&app, &dir.path().join("copy")),
        [(
            "en.lproj/Settings.strings".to_owned(),
            "\"title\" = \"Settings\";".to_owned(),
            "\"title\" = \"Preferences\";".to_owned()
        )]
    );
}

// ------------------------------------------------------------------ Google

/// `--to google:ID` adds a tab per namespace, named by it, all or none (a title the
/// spreadsheet has already refuses every one before any is added); `google:ID/TAB`
/// names one tab and is refused for several, naming them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_google_spreadsheet_gets_a_tab_per_namespace() {
    use support::fake_google::{FakeConfig, FakeGoogle};
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    fake.grant_write_scope();
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("locales/en/common.json", COMMON_EN),
            ("locales/en/settings.json", SETTINGS_EN),
        ],
    );
    let c = fake.config();
    let env = [
        ("DEPOT_GOOGLE_TOKEN_URL", fake.token_url()),
        ("DEPOT_GOOGLE_SHEETS_URL", fake.sheets_url()),
        ("DEPOT_GOOGLE_TIMEOUT_SECS", "5".to_owned()),
        ("SERVICE_CLIENT_ID", c.client_id.clone()),
        ("SERVICE_CLIENT_SECRET", c.client_secret.clone()),
        ("SERVICE_REFRESH_TOKEN", c.refresh_token.clone()),
    ];
    let import = |to: String| {
        support::depot(dir.path())
            .args(["import", "locales", "--to", &to])
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .output()
            .unwrap()
    };
    let id = c.spreadsheet_id.clone();
    let named = import(format!("google:{id}/Imported"));
    assert_eq!(named.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&named.stderr).contains(&format!(
            "--to google:{id}/Imported names one tab, and the sheet has 2 (common, settings), \
             one per namespace of the app's files: leave /Imported out"
        )),
        "{}",
        String::from_utf8_lossy(&named.stderr)
    );
    let out = import(format!("google:{id}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!(
            "wrote the tabs 'common', 'settings' of Google spreadsheet {id}: 4 key(s), locales en"
        )),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(fake.sheet_titles(), ["Sheet1", "common", "settings"]);
    assert_eq!(
        fake.sheet_rows("settings").unwrap()[2..],
        [["title", "", "", "Settings"], ["dark", "", "", "Dark mode"]]
    );
    // again: both titles are there, nothing more is added
    let again = import(format!("google:{id}"));
    assert_eq!(again.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already has a tab named 'common'"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(fake.sheet_titles(), ["Sheet1", "common", "settings"]);
}
