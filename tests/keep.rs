//! `depot generate` into an existing app tree keeps what the sheet does not own (SPEC §12.1):
//! per format, an app's files with content the sheet cannot or does not hold are imported,
//! one text is edited in the sheet (and one row dropped: a key the sheet no longer has),
//! and generate with no flags but the format and the app's paths writes into the tree.
//! Every file must be the original with exactly that text replaced (bytes compared), no
//! file the app did not have may appear, and the format's own consumer must still read it.
#![cfg(test)]

mod support;

use std::path::Path;

use serde_json::json;
use support::real_apps::{
    RESX_HEAD, Text, android, arb, files_under, i18next, ios, js_yaml, plain_text as plain, po,
    properties, resx, xcstrings,
};

/// An app's files (path under the temporary folder, text).
type Files<'a> = &'a [(&'a str, &'a str)];

/// One edit of the sheet: in `file`, `old` becomes `new` (each once, in the sheet's CSV
/// and in the file); `drop`: a text whose sheet row is deleted.
struct Edit<'a> {
    file: &'a str,
    old: &'a str,
    new: &'a str,
    drop: Option<&'a str>,
}

/// Writes `files`, imports `import`, edits the sheet, runs each `generate` (after
/// `generate --source s.csv`), asserts the tree is the original with the one text
/// replaced; the summary lines of the runs.
fn trip(
    files: Files<'_>,
    import: &[&str],
    generate: &[&[&str]],
    edit: &Edit<'_>,
) -> (tempfile::TempDir, String) {
    let (dir, _) = imported(files, import);
    let sheet = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    assert_eq!(sheet.matches(edit.old).count(), 1, "{}: {sheet}", edit.old);
    let mut sheet = sheet.replace(edit.old, edit.new);
    if let Some(dropped) = edit.drop {
        let rows: Vec<&str> = sheet.lines().filter(|l| !l.contains(dropped)).collect();
        assert_eq!(rows.len() + 1, sheet.lines().count(), "{dropped}: {sheet}");
        sheet = rows.join("\n") + "\n";
    }
    std::fs::write(dir.path().join("s.csv"), &sheet).unwrap();
    let mut said = String::new();
    for args in generate {
        let mut all = vec!["generate", "--source", "s.csv"];
        all.extend_from_slice(args);
        said.push_str(&String::from_utf8(ok(dir.path(), &all).stdout).unwrap());
    }
    let mut listed: Vec<String> = (files_under(dir.path()).into_iter())
        .map(|p| p.to_str().unwrap().to_owned())
        .filter(|p| p != "s.csv")
        .collect();
    listed.sort();
    let mut want: Vec<String> = files.iter().map(|(p, _)| (*p).to_owned()).collect();
    want.sort();
    assert_eq!(listed, want, "no file the app did not have: {said}");
    for (path, text) in files {
        let written = std::fs::read_to_string(dir.path().join(path)).unwrap();
        let expected = if *path == edit.file {
            assert_eq!(text.matches(edit.old).count(), 1, "{path}: {}", edit.old);
            text.replace(edit.old, edit.new)
        } else {
            (*text).to_owned()
        };
        assert_eq!(written, expected, "{path}\n{said}");
    }
    (dir, said)
}

fn ok(dir: &Path, args: &[&str]) -> std::process::Output {
    support::run_ok(dir, args, std::iter::empty::<(&str, &str)>())
}

const VALUES: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<resources xmlns:tools="http://schemas.android.com/tools">
    <string name="app_name" translatable="false">Basket</string>
    <!-- Title of the home screen -->
    <string name="home_title">Your basket</string>
    <string name="legacy">Legacy text</string>
    <string name="quoted">It\'s &lt;b&gt;here&lt;/b&gt;</string>
    <string-array name="sizes">
        <item>Small</item>
        <item>Large</item>
    </string-array>
    <plurals name="items">
        <item quantity="one">%d item</item>
        <item quantity="other">%d items</item>
    </plurals>
</resources>
"#;

const VALUES_EXTRA: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="about">About</string>
</resources>
"#;

const VALUES_PL: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="home_title">Basket PL</string>
    <string name="legacy">Stary tekst</string>
    <string name="quoted">To jest \"tu\"</string>
    <string name="about">O aplikacji</string>
    <plurals name="items">
        <item quantity="one">%d produkt</item>
        <item quantity="few">%d produkty</item>
        <item quantity="many">%d produktów</item>
        <item quantity="other">%d produktu</item>
    </plurals>
</resources>
"#;

#[test]
fn android_keeps_app_name_arrays_and_the_keys_of_other_files() {
    let files = [
        ("res/values/strings.xml", VALUES),
        ("res/values/extra.xml", VALUES_EXTRA),
        ("res/values-pl/strings.xml", VALUES_PL),
    ];
    let edit = Edit {
        file: "res/values-pl/strings.xml",
        old: "Basket PL",
        new: "Koszyk",
        drop: Some("Legacy text"),
    };
    let (dir, said) = trip(&files, &["res"], &[&["-f", "android", "-p", "res"]], &edit);
    assert!(
        said.contains(
            "unchanged res/values/strings.xml: 0 changed, 0 added, 3 kept that the sheet does not \
             own, 1 left to the other files of res/values that define them (aapt2 refuses a name \
             defined twice)"
        ),
        "{said}"
    );
    assert!(
        said.contains(
            "wrote res/values-pl/strings.xml: 1 changed, 0 added, 1 kept that the sheet does not own"
        ),
        "{said}"
    );
    let texts = android(&dir.path().join("res")).unwrap();
    assert_eq!(plain(&texts, "", "app_name"), "Basket");
    assert_eq!(plain(&texts, "", "about"), "About");
    assert_eq!(plain(&texts, "pl", "home_title"), "Koszyk");
    assert_eq!(plain(&texts, "pl", "legacy"), "Stary tekst");
}

/// A name another file of the folder defines (`strings_settings.xml`) gets the sheet's
/// text in that file, not a second definition in `strings.xml` (aapt2 refuses one).
#[test]
fn android_updates_a_name_in_the_file_that_defines_it() {
    let settings = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n    <!-- Settings screen -->\n    <string name=\"settings_title\">Settings</string>\n    <string-array name=\"themes\">\n        <item>Light</item>\n    </string-array>\n</resources>\n";
    let settings_pl = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n    <string name=\"settings_title\">Ustawienia PL</string>\n</resources>\n";
    let files = [
        ("res/values/strings.xml", VALUES),
        ("res/values/strings_settings.xml", settings),
        ("res/values-pl/strings.xml", VALUES_PL),
        ("res/values-pl/strings_settings.xml", settings_pl),
    ];
    let edit = Edit {
        file: "res/values-pl/strings_settings.xml",
        old: "Ustawienia PL",
        new: "Ustawienia",
        drop: None,
    };
    let (dir, said) = trip(&files, &["res"], &[&["-f", "android", "-p", "res"]], &edit);
    for line in [
        "wrote res/values-pl/strings_settings.xml: 1 changed, 0 added, 0 kept that the sheet does not own",
        "unchanged res/values/strings_settings.xml: 0 changed, 0 added, 1 kept that the sheet does not own",
    ] {
        assert!(said.lines().any(|l| l == line), "{line} not in\n{said}");
    }
    let texts = android(&dir.path().join("res")).unwrap();
    assert_eq!(plain(&texts, "pl", "settings_title"), "Ustawienia");
    assert_eq!(plain(&texts, "", "settings_title"), "Settings");
}

#[test]
fn resx_keeps_file_references_and_comments() {
    let neutral = format!(
        "{RESX_HEAD}  <assembly alias=\"System.Windows.Forms\" name=\"System.Windows.Forms, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089\" />
  <data name=\"Logo\" type=\"System.Resources.ResXFileRef, System.Windows.Forms\">
    <value>logo.bin;System.Byte[], mscorlib, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089</value>
  </data>
  <data name=\"Menu_Title\" xml:space=\"preserve\">
    <value>Capture</value>
    <comment>The app's own note</comment>
  </data>
  <data name=\"Legacy\" xml:space=\"preserve\">
    <value>Legacy text</value>
  </data>
</root>"
    );
    let pl = format!(
        "{RESX_HEAD}  <data name=\"Menu_Title\" xml:space=\"preserve\">
    <value>Capture PL</value>
  </data>
  <data name=\"Legacy\" xml:space=\"preserve\">
    <value>Stary</value>
  </data>
</root>"
    );
    let files = [
        ("p/Strings.resx", neutral.as_str()),
        ("p/Strings.pl.resx", pl.as_str()),
        ("p/logo.bin", "PNG"),
    ];
    let edit = Edit {
        file: "p/Strings.pl.resx",
        old: "Capture PL",
        new: "Zrzut",
        drop: Some("Legacy text"),
    };
    let (dir, said) = trip(&files, &["p"], &[&["-f", "resx", "-p", "p"]], &edit);
    assert!(
        said.contains(
            "unchanged p/Strings.resx: 0 changed, 0 added, 2 kept that the sheet does not own"
        ),
        "{said}"
    );
    let texts = resx(&dir.path().join("p"), "Strings", &["", "pl"]).unwrap();
    assert_eq!(plain(&texts, "", "Logo"), "<System.Byte[]>");
    assert_eq!(plain(&texts, "pl", "Menu_Title"), "Zrzut");
    assert_eq!(plain(&texts, "pl", "Legacy"), "Stary");
}

const CATALOG: &str = r#"{
  "sourceLanguage" : "en",
  "strings" : {
    "account.followers %lld" : {
      "localizations" : {
        "en" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "%lld followers"
          }
        },
        "pl" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "%#@followers@"
          },
          "substitutions" : {
            "followers" : {
              "argNum" : 1,
              "formatSpecifier" : "lld",
              "variations" : {
                "plural" : {
                  "one" : {
                    "stringUnit" : {
                      "state" : "translated",
                      "value" : "%arg obserwujący"
                    }
                  },
                  "other" : {
                    "stringUnit" : {
                      "state" : "translated",
                      "value" : "%arg obserwujących"
                    }
                  }
                }
              }
            }
          }
        }
      }
    },
    "settings.platform" : {
      "extractionState" : "manual",
      "localizations" : {
        "en" : {
          "variations" : {
            "device" : {
              "iphone" : {
                "stringUnit" : {
                  "state" : "translated",
                  "value" : "iPhone"
                }
              },
              "mac" : {
                "stringUnit" : {
                  "state" : "translated",
                  "value" : "Mac"
                }
              }
            }
          }
        }
      }
    },
    "settings.title" : {
      "extractionState" : "manual",
      "localizations" : {
        "en" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Settings"
          }
        },
        "pl" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Settings PL"
          }
        }
      }
    }
  },
  "version" : "1.0"
}"#;

#[test]
fn xcstrings_keeps_substitutions_and_device_variations() {
    let files = [("cat/Localizable.xcstrings", CATALOG)];
    let edit = Edit {
        file: "cat/Localizable.xcstrings",
        old: "Settings PL",
        new: "Ustawienia",
        drop: None,
    };
    let (dir, said) = trip(
        &files,
        &["cat"],
        &[&["-f", "xcstrings", "-p", "cat"]],
        &edit,
    );
    assert!(
        said.contains("wrote cat/Localizable.xcstrings: 1 changed, 0 added"),
        "{said}"
    );
    let texts = xcstrings(&dir.path().join("cat/Localizable.xcstrings")).unwrap();
    assert_eq!(plain(&texts, "pl", "settings.title"), "Ustawienia");
    match &texts["en"]["settings.platform"] {
        Text::Plural(forms) => assert_eq!(forms["variations.device.mac"], "Mac"),
        other => panic!("{other:?}"),
    }
    match &texts["pl"]["account.followers %lld"] {
        Text::Plural(forms) => assert_eq!(
            forms["substitutions.followers.variations.plural.one"],
            "%arg obserwujący"
        ),
        other => panic!("{other:?}"),
    }
}

/// The sheet holds a localization's text with its `%#@name@` references (not the
/// substitutions' variants): an edit of it is written, the substitutions stay.
#[test]
fn xcstrings_text_beside_substitutions_changes_and_they_stay() {
    let files = [("cat/Localizable.xcstrings", CATALOG)];
    let edit = Edit {
        file: "cat/Localizable.xcstrings",
        old: "%#@followers@",
        new: "Obserwuje: %#@followers@",
        drop: None,
    };
    let (dir, said) = trip(
        &files,
        &["cat"],
        &[&["-f", "xcstrings", "-p", "cat"]],
        &edit,
    );
    assert!(
        said.contains("wrote cat/Localizable.xcstrings: 1 changed, 0 added"),
        "{said}"
    );
    let texts = xcstrings(&dir.path().join("cat/Localizable.xcstrings")).unwrap();
    match &texts["pl"]["account.followers %lld"] {
        Text::Plural(forms) => assert_eq!(
            (
                forms["substitutions.followers.variations.plural.one"].as_str(),
                forms[""].as_str()
            ),
            ("%arg obserwujący", "Obserwuje: %#@followers@")
        ),
        other => panic!("{other:?}"),
    }
}

const ARB_EN: &str = r#"{
  "@@locale": "en",
  "@@last_modified": "2024-05-01T10:00:00.000Z",
  "hello": "Hello {name}",
  "@hello": {
    "description": "Greets the user on the home screen",
    "placeholders": {
      "name": {
        "type": "String",
        "example": "Anna"
      }
    }
  },
  "legacy": "Legacy text",
  "@legacy": {
    "description": "No longer in the sheet"
  },
  "title": "Basket"
}
"#;

const ARB_PL: &str = r#"{
  "@@locale": "pl",
  "hello": "Cześć {name}",
  "legacy": "Stary",
  "title": "Basket PL"
}
"#;

#[test]
fn arb_keeps_metadata_and_the_ids_the_sheet_lacks() {
    let files = [("l10n/app_en.arb", ARB_EN), ("l10n/app_pl.arb", ARB_PL)];
    let edit = Edit {
        file: "l10n/app_pl.arb",
        old: "Basket PL",
        new: "Koszyk",
        drop: Some("Legacy text"),
    };
    let (dir, said) = trip(&files, &["l10n"], &[&["-f", "arb", "-p", "l10n"]], &edit);
    assert!(
        said.contains(
            "wrote l10n/app_pl.arb: 1 changed, 0 added, 1 kept that the sheet does not own"
        ),
        "{said}"
    );
    let texts = arb(&dir.path().join("l10n"), "app_en.arb").unwrap();
    assert_eq!(plain(&texts, "pl", "title"), r#"[{"t":"Koszyk"}]"#);
    assert_eq!(plain(&texts, "pl", "legacy"), r#"[{"t":"Stary"}]"#);
}

/// gen-l10n reads `=1` as the `one` case, so the sheet holds it as `one`; the app's own
/// selectors are written back (only the edited case's text changes).
#[test]
fn arb_plural_keeps_the_apps_exact_selectors() {
    let en = r#"{
  "@@locale": "en",
  "files": "{count, plural, =0{No files} =1{One file} other{{count} files}}",
  "@files": {
    "placeholders": {
      "count": {
        "type": "int"
      }
    }
  }
}
"#;
    let pl = r#"{
  "@@locale": "pl",
  "files": "{count, plural, =0{Brak plików} =1{Jeden plik} few{{count} pliki} many{{count} plików} other{{count} pliku}}"
}
"#;
    let files = [("l10n/app_en.arb", en), ("l10n/app_pl.arb", pl)];
    let edit = Edit {
        file: "l10n/app_pl.arb",
        old: "Jeden plik",
        new: "Dokładnie jeden plik",
        drop: None,
    };
    let (dir, said) = trip(&files, &["l10n"], &[&["-f", "arb", "-p", "l10n"]], &edit);
    assert!(
        said.contains("wrote l10n/app_pl.arb: 1 changed, 0 added, 0 kept"),
        "{said}"
    );
    let texts = arb(&dir.path().join("l10n"), "app_en.arb").unwrap();
    let read = plain(&texts, "pl", "files");
    assert!(
        read.contains(r#""=1":[{"t":"Dokładnie jeden plik"}]"#),
        "{read}"
    );
}

const PO_DE: &str = r#"# German translations of Basket.
# Anna <anna@example.org>, 2024.
#
#, fuzzy
msgid ""
msgstr ""
"Project-Id-Version: basket 1.0\n"
"Language: de\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#. The title of the home screen
#: src/home.c:12
msgid "Your basket"
msgstr "Your basket DE"

#: src/home.c:20
#, c-format
msgid "%d item"
msgid_plural "%d items"
msgstr[0] "%d Artikel"
msgstr[1] "%d Artikel"

#: src/legacy.c:3
msgid "Not translated yet"
msgstr ""

#: src/legacy.c:9
msgid "Legacy text"
msgstr "Alter Text"

#~ msgid "Removed long ago"
#~ msgstr "Längst entfernt"
"#;

#[test]
fn po_keeps_the_header_comments_and_the_messages_the_sheet_lacks() {
    let files = [("po/de.po", PO_DE)];
    let edit = Edit {
        file: "po/de.po",
        old: "Your basket DE",
        new: "Ihr Warenkorb",
        drop: Some("Alter Text"),
    };
    let (dir, said) = trip(
        &files,
        &["po"],
        &[&["-f", "po", "-l", "de", "-n", "de", "-p", "po"]],
        &edit,
    );
    assert!(
        said.contains("wrote po/de.po: 1 changed, 0 added, 2 kept that the sheet does not own"),
        "{said}"
    );
    let texts = po(&dir.path().join("po")).unwrap();
    assert_eq!(plain(&texts, "de", "Your basket"), "Ihr Warenkorb");
    assert_eq!(plain(&texts, "de", "Legacy text"), "Alter Text");
}

const PO_FUZZY: &str = r#"msgid ""
msgstr ""
"Language: de\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#: src/home.c:12
msgid "Your basket"
msgstr "Ihr Korb"

#: src/a.c:3
#, fuzzy, c-format
#| msgid "Old basket %s"
msgid "Basket %s"
msgstr "Korb %s"

#, fuzzy
msgid "Guess"
msgstr "Rate"
"#;

/// gettext's rule: a text the sheet gives a fuzzy entry is reviewed, so the flag goes (its
/// `#|` lines with it) and msgfmt compiles it; a fuzzy entry the sheet does not change stays.
#[test]
fn po_entry_given_a_new_text_by_the_sheet_is_no_longer_fuzzy() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("po")).unwrap();
    std::fs::write(dir.path().join("po/de.po"), PO_FUZZY).unwrap();
    ok(dir.path(), &["import", "po", "--to", "s.csv"]);
    // import leaves fuzzy entries out: the translator adds them to the sheet
    let mut sheet = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    sheet.push_str("\nBasket %s,Basket %s,,,Warenkorb %s\nGuess,Guess,,,Rate\n");
    std::fs::write(dir.path().join("s.csv"), sheet).unwrap();
    let said = ok(
        dir.path(),
        &[
            "generate", "--source", "s.csv", "-f", "po", "-l", "de", "-n", "de", "-p", "po",
        ],
    );
    let said = String::from_utf8(said.stdout).unwrap();
    assert!(
        said.contains("wrote po/de.po: 1 changed, 0 added"),
        "{said}"
    );
    let written = std::fs::read_to_string(dir.path().join("po/de.po")).unwrap();
    assert_eq!(
        written,
        PO_FUZZY.replace(
            "#, fuzzy, c-format\n#| msgid \"Old basket %s\"\nmsgid \"Basket %s\"\nmsgstr \"Korb %s\"",
            "#, c-format\nmsgid \"Basket %s\"\nmsgstr \"Warenkorb %s\""
        )
    );
    let stats = std::process::Command::new("msgfmt")
        .args(["--statistics", "-o", "/dev/null", "po/de.po"])
        .current_dir(dir.path())
        .output()
        .unwrap_or_else(|e| panic!("msgfmt: {e}: {}", support::real_apps::GETTEXT_HINT));
    assert_eq!(
        String::from_utf8_lossy(&stats.stderr),
        "2 translated messages, 1 fuzzy translation.\n"
    );
    let texts = po(&dir.path().join("po")).unwrap();
    assert_eq!(plain(&texts, "de", "Basket %s"), "Warenkorb %s");
    assert_eq!(texts["de"].get("Guess"), None);
}

#[test]
fn strings_keep_comments_and_the_keys_the_sheet_lacks() {
    let en = "/* Title of the home screen */\n\"home.title\" = \"Your basket\";\n\n// SwiftGen: Common.Alerts\n\"Common.Alerts.Title\" = \"Blocked %@\";\n\"legacy\" = \"Legacy text\";\n";
    let pl = "/* Title of the home screen */\n\"home.title\" = \"Basket PL\";\n\n// SwiftGen: Common.Alerts\n\"Common.Alerts.Title\" = \"Zablokowano %@\";\n\"legacy\" = \"Stary\";\n";
    let files = [
        ("ios/en.lproj/Localizable.strings", en),
        ("ios/pl.lproj/Localizable.strings", pl),
    ];
    let edit = Edit {
        file: "ios/pl.lproj/Localizable.strings",
        old: "Basket PL",
        new: "Koszyk",
        drop: Some("Legacy text"),
    };
    let (dir, said) = trip(&files, &["ios"], &[&["-f", "ios", "-p", "ios"]], &edit);
    assert!(
        said.contains(
            "wrote ios/pl.lproj/Localizable.strings: 1 changed, 0 added, 1 kept that the sheet does not own"
        ),
        "{said}"
    );
    let texts = ios(&dir.path().join("ios")).unwrap();
    assert_eq!(plain(&texts, "pl", "home.title"), "Koszyk");
    assert_eq!(plain(&texts, "pl", "legacy"), "Stary");
}

#[test]
fn properties_keep_comments_and_the_keys_the_sheet_lacks() {
    let base = "# Basket's texts\n\nhome.title = Your basket\nExport\\ finished. = Export finished.\n! old\nlegacy = Legacy text\nlong = one \\\n    two\n";
    let pl = "# Basket po polsku\nhome.title = Basket PL\nExport\\ finished. = Eksport zako\\u0144czony.\nlegacy = Stary\nlong = jeden \\\n    dwa\n";
    let files = [
        ("res/messages.properties", base),
        ("res/messages_pl.properties", pl),
    ];
    let edit = Edit {
        file: "res/messages_pl.properties",
        old: "Basket PL",
        new: "Koszyk",
        drop: Some("Legacy text"),
    };
    let (dir, said) = trip(
        &files,
        &["res"],
        &[&["-f", "properties", "-p", "res"]],
        &edit,
    );
    assert!(
        said.contains(
            "wrote res/messages_pl.properties: 1 changed, 0 added, 1 kept that the sheet does not own"
        ),
        "{said}"
    );
    let texts = properties(&dir.path().join("res"), "messages", &["", "pl"]).unwrap();
    assert_eq!(plain(&texts, "pl", "home.title"), "Koszyk");
    assert_eq!(
        plain(&texts, "pl", "Export finished."),
        "Eksport zakończony."
    );
    assert_eq!(plain(&texts, "pl", "legacy"), "Stary");
    assert_eq!(plain(&texts, "", "long"), "one two");
}

#[test]
fn i18next_keeps_the_keys_the_sheet_lacks() {
    let en = "{\n  \"Your basket\": \"Your basket\",\n  \"Legacy: old\": \"Legacy text\",\n  \"Cart\": \"Cart\"\n}\n";
    let pl = "{\n  \"Your basket\": \"Basket PL\",\n  \"Legacy: old\": \"Stary\",\n  \"Cart\": \"W\\u00f3zek\"\n}\n";
    let files = [("locale/en.json", en), ("locale/pl.json", pl)];
    let edit = Edit {
        file: "locale/pl.json",
        old: "Basket PL",
        new: "Koszyk",
        drop: Some("Legacy text"),
    };
    let generate: [&[&str]; 2] = [
        &["-f", "i18next", "-l", "en", "-n", "en", "-p", "locale"],
        &["-f", "i18next", "-l", "pl", "-n", "pl", "-p", "locale"],
    ];
    let (dir, said) = trip(&files, &["locale", "--format", "i18next"], &generate, &edit);
    assert!(
        said.contains(
            "wrote locale/pl.json: 1 changed, 0 added, 1 kept that the sheet does not own"
        ),
        "{said}"
    );
    let options =
        json!({"lng": "en", "keySeparator": false, "nsSeparator": false, "fallbackLng": false});
    let texts = i18next(&dir.path().join("locale"), &options).unwrap();
    assert_eq!(plain(&texts, "pl", "Your basket"), "Koszyk");
    assert_eq!(plain(&texts, "pl", "Legacy: old"), "Stary");
    assert_eq!(plain(&texts, "pl", "Cart"), "Wózek");
}

/// A Rails app's locale files: comments, the `de:` level, plain, quoted and block texts, a
/// plural, a list and an anchor the sheet cannot hold.
const RAILS_EN: &str = "# Basket's English texts\nen:\n  # the home screen\n  home_title: Your basket\n  greeting: \"Hello %{name}\" # shown first\n  legacy: 'Legacy text'\n  about: |\n    Two lines\n    of text\n  items:\n    one: one item\n    other: \"%{count} items\"\n  sizes:\n    - S\n    - L\n  defaults: &defaults\n    title: Basket\n";
const RAILS_DE: &str = "# Basket auf Deutsch\n\nde:\n  # the home screen\n  home_title: Basket DE\n  greeting: \"Hallo %{name}\" # shown first\n  legacy: 'Alter Text'\n  about: |\n    Zwei Zeilen\n    Text\n  items:\n    one: ein Ding\n    other: \"%{count} Dinge\"\n  sizes:\n    - S\n    - L\n  defaults: &defaults\n    title: Korb\n";

#[test]
fn yml_keeps_comments_quoting_lists_and_the_keys_the_sheet_lacks() {
    let files = [
        ("config/locales/en.yml", RAILS_EN),
        ("config/locales/de.yml", RAILS_DE),
    ];
    let edit = Edit {
        file: "config/locales/de.yml",
        old: "Basket DE",
        new: "Warenkorb",
        drop: Some("Legacy text"),
    };
    let generate: [&[&str]; 2] = [
        &["-f", "yml", "-l", "en", "-n", "en", "-p", "config/locales"],
        &["-f", "yml", "-l", "de", "-n", "de", "-p", "config/locales"],
    ];
    let (dir, said) = trip(&files, &["config/locales"], &generate, &edit);
    assert!(
        said.contains(
            "wrote config/locales/de.yml: 1 changed, 0 added, 2 kept that the sheet does not own"
        ),
        "{said}"
    );
    let de = js_yaml(&dir.path().join("config/locales/de.yml")).unwrap();
    assert_eq!(
        de,
        json!({"de": {
            "home_title": "Warenkorb",
            "greeting": "Hallo %{name}",
            "legacy": "Alter Text",
            "about": "Zwei Zeilen\nText\n",
            "items": {"one": "ein Ding", "other": "%{count} Dinge"},
            "sizes": ["S", "L"],
            "defaults": {"title": "Korb"}
        }})
    );
}

/// A changed text keeps its value's style where it can (a `|` block stays one); keys the
/// sheet adds go into their map, plain as the file's keys are, at its indent.
#[test]
fn yml_changed_and_new_keys_take_the_files_style() {
    let files = [
        ("config/locales/en.yml", RAILS_EN),
        ("config/locales/de.yml", RAILS_DE),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    ok(dir.path(), &["import", "config/locales", "--to", "s.csv"]);
    let sheet = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    let header = sheet.lines().next().unwrap().to_owned();
    let sheet = sheet
        .replace("Zwei Zeilen\nText\n", "Drei\nZeilen\n")
        .replace("Korb", "yes");
    // a new key beside `title`, and a new section
    let row = |path: &[&str], en: &str, de: &str| {
        let columns = header.split(',').count();
        let mut cells: Vec<String> = vec![String::new(); columns];
        for (i, level) in path.iter().enumerate() {
            cells[i] = (*level).to_owned();
        }
        cells[columns - 2] = en.to_owned();
        cells[columns - 1] = de.to_owned();
        cells.join(",") + "\n"
    };
    let sheet = sheet
        + &row(&["defaults", "subtitle"], "Your shop", "Dein Laden")
        + &row(&["checkout", "pay"], "Pay now", "Jetzt zahlen");
    std::fs::write(dir.path().join("s.csv"), sheet).unwrap();
    let out = ok(
        dir.path(),
        &[
            "generate",
            "--source",
            "s.csv",
            "-f",
            "yml",
            "-l",
            "de",
            "-n",
            "de",
            "-p",
            "config/locales",
        ],
    );
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(
        said.contains("wrote config/locales/de.yml: 2 changed, 2 added, 1 kept"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("config/locales/de.yml")).unwrap(),
        RAILS_DE
            .replace("Zwei Zeilen\n    Text\n", "Drei\n    Zeilen\n")
            .replace(
                "    title: Korb\n",
                "    title: \"yes\"\n    subtitle: Dein Laden\n  checkout:\n    pay: Jetzt zahlen\n"
            )
    );
    let de = js_yaml(&dir.path().join("config/locales/de.yml")).unwrap();
    assert_eq!(
        de["de"]["defaults"],
        json!({"title": "yes", "subtitle": "Dein Laden"})
    );
    assert_eq!(de["de"]["about"], json!("Drei\nZeilen\n"));
    assert_eq!(de["de"]["checkout"]["pay"], json!("Jetzt zahlen"));
}

/// An Angular `messages.de.xlf`: each unit's `state`, `<context-group>`, `<note>` and
/// inline `<x/>` stay, only the edited `<target>` changes, and the file stays valid
/// against the XLIFF 1.2 strict schema.
#[test]
fn xlf_keeps_states_notes_context_groups_and_the_units_the_sheet_lacks() {
    let de = r#"<?xml version="1.0" encoding="UTF-8" ?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" target-language="de" datatype="plaintext" original="ng2.template">
    <body>
      <trans-unit id="home.title" datatype="html">
        <source>Your basket</source>
        <target state="translated">Ihr Korb</target>
        <context-group purpose="location">
          <context context-type="sourcefile">src/app/home.component.html</context>
          <context context-type="linenumber">4</context>
        </context-group>
        <note priority="1" from="description">The home screen's title</note>
      </trans-unit>
      <trans-unit id="greeting" datatype="html">
        <source>Hello <x id="INTERPOLATION" equiv-text="{{ name }}"/></source>
        <target state="final">Hallo <x id="INTERPOLATION" equiv-text="{{ name }}"/></target>
      </trans-unit>
      <trans-unit id="legacy" datatype="html">
        <source>Legacy text</source>
        <target state="needs-review-translation">Alter Text</target>
      </trans-unit>
      <trans-unit id="untranslated" datatype="html">
        <source>Not yet</source>
      </trans-unit>
    </body>
  </file>
</xliff>
"#;
    let files = [("locale/messages.de.xlf", de)];
    let edit = Edit {
        file: "locale/messages.de.xlf",
        old: "Ihr Korb",
        new: "Ihr Warenkorb",
        drop: Some("Legacy text"),
    };
    let (dir, said) = trip(
        &files,
        &["locale"],
        &[&["-f", "xlf", "-l", "de", "-n", "messages.de", "-p", "locale"]],
        &edit,
    );
    assert!(
        said.contains(
            "wrote locale/messages.de.xlf: 1 changed, 0 added, 2 kept that the sheet does not own"
        ),
        "{said}"
    );
    support::xliff_schema::assert_strictly_valid(&dir.path().join("locale/messages.de.xlf"));
}

const XLF_STATES: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" target-language="de" datatype="plaintext" original="ng2.template">
    <body>
      <trans-unit id="home.title" datatype="html" approved="yes">
        <source>Your basket</source>
        <target state="final">Ihr Korb</target>
        <note priority="1" from="description">The home screen's title</note>
      </trans-unit>
      <trans-unit id="checkout" datatype="html">
        <source>Checkout</source>
        <target state="signed-off" state-qualifier="leveraged-tm">Zur Kasse</target>
      </trans-unit>
      <trans-unit id="greeting" datatype="html">
        <source>Hello</source>
        <target state="final">Hallo</target>
      </trans-unit>
    </body>
  </file>
</xliff>
"#;

/// A target whose text the sheet changes no longer claims a review that never saw the new
/// text: its `state` (`final`, `signed-off`) becomes `translated` and its `state-qualifier`
/// (about the old text) goes; every unit the sheet leaves as it is keeps its state, byte for
/// byte, and the file stays valid against the XLIFF 1.2 strict schema.
#[test]
fn xlf_target_given_a_new_text_by_the_sheet_is_translated_and_the_others_keep_their_state() {
    let (dir, _) = imported(&[("locale/messages.de.xlf", XLF_STATES)], &["locale"]);
    let sheet = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    let edited = sheet
        .replace("Ihr Korb", "Ihr Warenkorb")
        .replace("Zur Kasse", "Kasse");
    assert_eq!(edited.len(), sheet.len() + 5 - 4, "{sheet}");
    std::fs::write(dir.path().join("s.csv"), edited).unwrap();
    let said = ok(
        dir.path(),
        &[
            "generate",
            "--source",
            "s.csv",
            "-f",
            "xlf",
            "-l",
            "de",
            "-n",
            "messages.de",
            "-p",
            "locale",
        ],
    );
    let said = String::from_utf8(said.stdout).unwrap();
    assert!(
        said.contains("wrote locale/messages.de.xlf: 2 changed, 0 added, 0 kept"),
        "{said}"
    );
    let written = std::fs::read_to_string(dir.path().join("locale/messages.de.xlf")).unwrap();
    assert_eq!(
        written,
        XLF_STATES
            .replace(
                r#"<target state="final">Ihr Korb</target>"#,
                r#"<target state="translated">Ihr Warenkorb</target>"#
            )
            .replace(
                r#"<target state="signed-off" state-qualifier="leveraged-tm">Zur Kasse</target>"#,
                r#"<target state="translated">Kasse</target>"#
            )
    );
    support::xliff_schema::assert_strictly_valid(&dir.path().join("locale/messages.de.xlf"));
}

/// Writes `files`, imports `import`, adds `rows` to the sheet, runs each `generate`; the
/// folder and the summary lines.
fn grow(
    files: Files<'_>,
    import: &[&str],
    rows: &str,
    generate: &[&[&str]],
) -> (tempfile::TempDir, String) {
    let (dir, _) = imported(files, import);
    let mut sheet = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    sheet.push_str(rows);
    std::fs::write(dir.path().join("s.csv"), sheet).unwrap();
    let mut said = String::new();
    for args in generate {
        let mut all = vec!["generate", "--source", "s.csv"];
        all.extend_from_slice(args);
        said.push_str(&String::from_utf8(ok(dir.path(), &all).stdout).unwrap());
    }
    (dir, said)
}

/// Keys the sheet adds go into the app's file laid out as the app lays it out (4 spaces
/// here) and, since its keys are sorted, each in its place.
#[test]
fn i18next_new_keys_take_the_files_indent_and_key_order() {
    let en = "{\n    \"Cart\": \"Cart\",\n    \"Your basket\": \"Your basket\",\n    \"nested\": {\n        \"a\": \"A\"\n    }\n}\n";
    let pl = "{\n    \"Cart\": \"W\\u00f3zek\",\n    \"Your basket\": \"Koszyk\",\n    \"nested\": {\n        \"a\": \"A pl\"\n    }\n}\n";
    let files = [("locale/en.json", en), ("locale/pl.json", pl)];
    let generate: [&[&str]; 2] = [
        &["-f", "i18next", "-l", "en", "-n", "en", "-p", "locale"],
        &["-f", "i18next", "-l", "pl", "-n", "pl", "-p", "locale"],
    ];
    let rows = "Checkout,,,,Checkout,Do kasy\nnested,b,,,B,B pl\nmenu,open,,,Open,Otwórz\n";
    let (dir, said) = grow(&files, &["locale", "--format", "i18next"], rows, &generate);
    assert!(
        said.contains("wrote locale/pl.json: 0 changed, 3 added, 0 kept"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("locale/pl.json")).unwrap(),
        "{\n    \"Cart\": \"W\\u00f3zek\",\n    \"Checkout\": \"Do kasy\",\n    \"Your basket\": \"Koszyk\",\n    \"menu\": {\n        \"open\": \"Otwórz\"\n    },\n    \"nested\": {\n        \"a\": \"A pl\",\n        \"b\": \"B pl\"\n    }\n}\n"
    );
    let texts = i18next(&dir.path().join("locale"), &json!({"lng": "en"})).unwrap();
    assert_eq!(plain(&texts, "pl", "Checkout"), "Do kasy");
    assert_eq!(plain(&texts, "en", "Your basket"), "Your basket");
}

/// An ARB file indented with tabs gains a message (and its metadata) indented with tabs.
#[test]
fn arb_new_messages_take_the_files_tabs() {
    let en = "{\n\t\"@@locale\": \"en\",\n\t\"title\": \"Basket\"\n}\n";
    let pl = "{\n\t\"@@locale\": \"pl\",\n\t\"title\": \"Koszyk\"\n}\n";
    let files = [("l10n/app_en.arb", en), ("l10n/app_pl.arb", pl)];
    let rows = "greeting,,Greets the user,Hello {name},Cześć {name}\n";
    let (dir, said) = grow(
        &files,
        &["l10n"],
        rows,
        &[&["-f", "arb", "-p", "l10n", "--comments"]],
    );
    assert!(
        said.contains("wrote l10n/app_en.arb: 0 changed, 1 added, 0 kept"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("l10n/app_en.arb")).unwrap(),
        "{\n\t\"@@locale\": \"en\",\n\t\"title\": \"Basket\",\n\t\"greeting\": \"Hello {name}\",\n\t\"@greeting\": {\n\t\t\"description\": \"Greets the user\",\n\t\t\"placeholders\": {\n\t\t\t\"name\": {\n\t\t\t\t\"type\": \"String\"\n\t\t\t}\n\t\t}\n\t}\n}\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("l10n/app_pl.arb")).unwrap(),
        "{\n\t\"@@locale\": \"pl\",\n\t\"title\": \"Koszyk\",\n\t\"greeting\": \"Cześć {name}\"\n}\n"
    );
    let texts = arb(&dir.path().join("l10n"), "app_en.arb").unwrap();
    assert_eq!(
        plain(&texts, "pl", "greeting"),
        r#"[{"t":"Cześć "},{"a":"name"}]"#
    );
}

/// A file that is not its format is refused by name, and nothing is written.
#[test]
fn an_existing_file_that_does_not_read_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.csv"),
        ">>>,en,pl\nhome_title,Your basket,Koszyk\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("out/values-pl")).unwrap();
    std::fs::write(
        dir.path().join("out/values-pl/strings.xml"),
        "<resources><string name=\"a\">x</strin></resources>",
    )
    .unwrap();
    let out = support::run(
        dir.path(),
        &[
            "generate", "--source", "s.csv", "-f", "android", "-p", "out",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot keep what the sheet does not own in ")
            && err.contains(
                "out/values-pl/strings.xml: it does not read as android (not well-formed XML"
            )
            && err.contains("; fix the file, or pass --replace to write it whole from the sheet"),
        "{err}"
    );
    assert!(!dir.path().join("out/values/strings.xml").exists());
    // --replace writes it whole
    ok(
        dir.path(),
        &[
            "generate",
            "--source",
            "s.csv",
            "-f",
            "android",
            "-p",
            "out",
            "--replace",
        ],
    );
    assert!(
        std::fs::read_to_string(dir.path().join("out/values-pl/strings.xml"))
            .unwrap()
            .contains("<string name=\"home_title\">Koszyk</string>")
    );
}

/// `files` written to a folder of their own and imported (`import`) into its s.csv: the
/// folder, and what import said (stdout and stderr).
fn imported(files: Files<'_>, import: &[&str]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut args = vec!["import"];
    args.extend_from_slice(import);
    args.extend_from_slice(&["--to", "s.csv"]);
    let out = ok(dir.path(), &args);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, said)
}

/// A po file with an untranslated message and an untranslated plural.
const PO_UNTRANSLATED: &str = r#"msgid ""
msgstr ""
"Language: de\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

msgid "Your basket"
msgstr "Your basket DE"

msgid "Not translated yet"
msgstr ""

msgid "%d item"
msgid_plural "%d items"
msgstr[0] ""
msgstr[1] ""
"#;

/// An empty text (`key=`, `"key" = "";`, `"key": ""`, an empty msgstr) is the app's: the
/// sheet cannot hold one (an empty cell is no text), and generate, patching the app's
/// file, leaves it as it is. Import names it as kept in the app, not as not carried; the
/// round trip gives the files back and their consumers read the same empty texts.
#[test]
fn empty_texts_stay_in_the_app_and_import_names_them_as_kept() {
    struct Case<'a> {
        files: Files<'a>,
        import: &'a [&'a str],
        generate: &'a [&'a [&'a str]],
        edit: Edit<'a>,
        kept: &'a str,
    }
    let edit = |file| Edit {
        file,
        old: "Basket PL",
        new: "Koszyk",
        drop: None,
    };
    let cases = [
        Case {
            files: &[
                ("res/messages.properties", "title = Your basket\nhint =\n"),
                (
                    "res/messages_pl.properties",
                    "title = Basket PL\nhint=\nlater:\n",
                ),
            ],
            import: &["res"],
            generate: &[&["-f", "properties", "-p", "res"]],
            edit: edit("res/messages_pl.properties"),
            kept: "3 empty text(s) (hint, later)",
        },
        Case {
            files: &[
                (
                    "ios/en.lproj/Localizable.strings",
                    "\"title\" = \"Your basket\";\n\"hint\" = \"\";\n",
                ),
                (
                    "ios/pl.lproj/Localizable.strings",
                    "\"title\" = \"Basket PL\";\n\"hint\" = \"\";\n",
                ),
            ],
            import: &["ios"],
            generate: &[&["-f", "ios", "-p", "ios"]],
            edit: edit("ios/pl.lproj/Localizable.strings"),
            kept: "2 empty text(s) (hint)",
        },
        Case {
            files: &[
                (
                    "locale/en.json",
                    "{\n  \"title\": \"Your basket\",\n  \"hint\": \"\",\n  \"later\": \"Later\"\n}\n",
                ),
                (
                    "locale/pl.json",
                    "{\n  \"title\": \"Basket PL\",\n  \"hint\": \"\",\n  \"later\": \"\"\n}\n",
                ),
            ],
            import: &["locale", "--format", "i18next"],
            generate: &[
                &["-f", "i18next", "-l", "en", "-n", "en", "-p", "locale"],
                &["-f", "i18next", "-l", "pl", "-n", "pl", "-p", "locale"],
            ],
            edit: edit("locale/pl.json"),
            kept: "3 empty text(s) (hint, later)",
        },
        Case {
            files: &[
                (
                    "json/en.json",
                    "{\"title\": \"Your basket\", \"menu\": {\"hint\": \"\"}}\n",
                ),
                (
                    "json/pl.json",
                    "{\"title\": \"Basket PL\", \"menu\": {\"hint\": \"\"}}\n",
                ),
            ],
            import: &["json", "--format", "json"],
            generate: &[&["-f", "json", "-p", "json"]],
            edit: edit("json/pl.json"),
            kept: "2 empty text(s) (menu.hint)",
        },
        Case {
            files: &[
                (
                    "l10n/app_en.arb",
                    "{\n  \"@@locale\": \"en\",\n  \"title\": \"Your basket\",\n  \"hint\": \"\"\n}\n",
                ),
                (
                    "l10n/app_pl.arb",
                    "{\n  \"@@locale\": \"pl\",\n  \"title\": \"Basket PL\",\n  \"hint\": \"\"\n}\n",
                ),
            ],
            import: &["l10n"],
            generate: &[&["-f", "arb", "-p", "l10n"]],
            edit: edit("l10n/app_pl.arb"),
            kept: "2 empty text(s) (hint)",
        },
        Case {
            files: &[
                ("rails/en.yml", "en:\n  title: Your basket\n  hint: \"\"\n"),
                ("rails/pl.yml", "pl:\n  title: Basket PL\n  hint: ''\n"),
            ],
            import: &["rails"],
            generate: &[&["-f", "yml", "-p", "rails"]],
            edit: edit("rails/pl.yml"),
            kept: "2 empty text(s) (hint)",
        },
        Case {
            files: &[("po/de.po", PO_UNTRANSLATED)],
            import: &["po"],
            generate: &[&["-f", "po", "-l", "de", "-n", "de", "-p", "po"]],
            edit: Edit {
                file: "po/de.po",
                old: "Your basket DE",
                new: "Koszyk",
                drop: None,
            },
            kept: "2 untranslated message(s) (msgstr \"\") (Not translated yet, %d item)",
        },
    ];
    let mut named_otherwise = Vec::new();
    for case in &cases {
        let (_, said) = imported(case.files, case.import);
        let line = format!(
            "depot: kept in the app, not the sheet's: {}; generate leaves them in the app's \
             files as they are",
            case.kept
        );
        if !said.lines().any(|l| l == line) || said.contains("not carried") {
            named_otherwise.push(format!("{}: {said}", case.import[0]));
        }
        let (dir, _) = trip(case.files, case.import, case.generate, &case.edit);
        // the consumers read the empty texts as they read them in the app's files
        match case.import[0] {
            "res" => {
                let texts = properties(&dir.path().join("res"), "messages", &["", "pl"]);
                let texts = texts.unwrap();
                assert_eq!(plain(&texts, "", "hint"), "");
                assert_eq!(plain(&texts, "pl", "later"), "");
                assert_eq!(plain(&texts, "pl", "title"), "Koszyk");
            }
            "ios" => {
                let texts = ios(&dir.path().join("ios")).unwrap();
                assert_eq!(plain(&texts, "pl", "hint"), "");
                assert_eq!(plain(&texts, "pl", "title"), "Koszyk");
            }
            "locale" => {
                // i18next before v22 answered "" (returnEmptyString: true); from v22 on,
                // "" is missing and the fallback language answers: as for the app's own
                let options =
                    json!({"lng": "en", "keySeparator": false, "returnEmptyString": true});
                let texts = i18next(&dir.path().join("locale"), &options).unwrap();
                assert_eq!(plain(&texts, "pl", "hint"), "");
                assert_eq!(plain(&texts, "pl", "later"), "");
                assert_eq!(plain(&texts, "pl", "title"), "Koszyk");
            }
            "po" => {
                // untranslated: msgfmt leaves them out, gettext answers with the msgid
                let texts = po(&dir.path().join("po")).unwrap();
                assert_eq!(texts["de"].get("Not translated yet"), None);
                assert_eq!(texts["de"].get("%d item"), None);
                assert_eq!(plain(&texts, "de", "Your basket"), "Koszyk");
            }
            _ => {}
        }
    }
    assert!(named_otherwise.is_empty(), "{named_otherwise:#?}");
}
