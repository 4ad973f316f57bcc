//! i18next as apps ship it (SPEC §12.1 "The shape the runtime reads"), through the real
//! binary and read back by i18next itself: JSON v3 plurals (`KEY`, `KEY_plural`) come
//! back as v3 (the settings cell remembers: `i18next=v3`), context suffixes (`KEY_male`)
//! are keys of their own, `{{ name }}` with spaces is a placeholder, and `$t(...)`
//! nesting is kept as text and named in the summary.
#![cfg(test)]

mod support;

use std::path::Path;

use serde_json::{Value, json};

/// An app's English and German files, JSON v3, nested (i18next's default `keySeparator`).
const EN: &str = r#"{
  "cart": {
    "item": "{{count}} item",
    "item_plural": "{{count}} items",
    "total": "Total: $t(cart.item, {\"count\": {{n}} })"
  },
  "friend_male": "A boyfriend",
  "friend_female": "A girlfriend",
  "greeting": "Hello, {{ name }}!"
}"#;
const DE: &str = r#"{
  "cart": {
    "item": "{{count}} Artikel",
    "item_plural": "{{count}} Artikel (mehrere)",
    "total": "Summe: $t(cart.item, {\"count\": {{n}} })"
  },
  "friend_male": "Ein Freund",
  "friend_female": "Eine Freundin",
  "greeting": "Hallo, {{ name }}!"
}"#;

fn write_app(root: &Path) {
    for (lng, body) in [("en", EN), ("de", DE)] {
        let folder = root.join("locales").join(lng);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("translation.json"), body).unwrap();
    }
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = support::run(dir, args);
    assert!(
        out.status.success(),
        "depot {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn json_of(file: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// What i18next (JSON v3 compatibility, as the app initialises it) gives for each call
/// `[lng, key, values]` over the files under `locales`.
fn i18next_v3(locales: &Path, calls: &[Value]) -> Vec<Value> {
    let mut resources = serde_json::Map::new();
    let mut languages: Vec<String> = (std::fs::read_dir(locales).unwrap())
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    languages.sort();
    for lng in &languages {
        let data = json_of(&locales.join(lng).join("translation.json"));
        resources.insert(lng.clone(), json!({ "translation": data }));
    }
    let calls: Vec<Value> = (calls.iter())
        .map(|c| json!([c[0], "translation", c[1], c[2]]))
        .collect();
    let read = support::real_apps::node(
        "i18next-app",
        &json!({
            "release": "23",
            "options": {"lng": "en", "fallbackLng": false, "compatibilityJSON": "v3",
                        "interpolation": {"escapeValue": false}},
            "resources": resources,
            "calls": calls,
        }),
    )
    .unwrap();
    read.as_array().unwrap().clone()
}

/// Import's summary line for an app of JSON v3 with numbered plural forms.
const NUMBERED: &str = "plurals: named as i18next JSON v3 names them (KEY, KEY_plural; KEY_0, \
                        KEY_1, … in languages of one form or of more than two); the settings \
                        cell says so (i18next=v3), and generate writes them so";

/// Writes each `(lng, body)` as the app's `app/locales/LNG/translation.json`, imports
/// `app/locales` into s.csv and asserts the sheet says `i18next=v3` and holds each of
/// `rows`; what import said.
fn import_v3(dir: &Path, files: &[(&str, &str)], rows: &[&str]) -> String {
    for (lng, body) in files {
        let folder = dir.join("app/locales").join(lng);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("translation.json"), body).unwrap();
    }
    let said = ok(dir, &["import", "app/locales", "--to", "s.csv"]);
    let sheet = std::fs::read_to_string(dir.join("s.csv")).unwrap();
    let lines: Vec<&str> = sheet.lines().collect();
    assert_eq!(
        lines[0], "depot: placeholders=i18next i18next=v3,,,,,",
        "{sheet}"
    );
    for row in rows {
        assert!(lines.contains(row), "{row} not in\n{sheet}");
    }
    said
}

/// generate of s.csv into `out` gives each of `files` back (as JSON), i18next v3 reads
/// `calls` as `want` from the app's files and from those, and diff finds the app and its
/// sheet equal.
fn comes_back_as_v3(dir: &Path, files: &[(&str, &str)], calls: &[Value], want: &[&str]) {
    let generate = [
        "generate", "--source", "s.csv", "-f", "i18next", "-p", "out",
    ];
    ok(dir, &generate);
    for (lng, body) in files {
        let path = format!("{lng}/translation.json");
        assert_eq!(
            json_of(&dir.join("out").join(&path)),
            serde_json::from_str::<Value>(body).unwrap(),
            "{path}"
        );
    }
    assert_eq!(i18next_v3(&dir.join("app/locales"), calls), want);
    assert_eq!(i18next_v3(&dir.join("out"), calls), want);
    let diff = support::run(dir, &["diff", "--source", "s.csv", "app/locales"]);
    assert_eq!(
        diff.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&diff.stdout)
    );
}

#[test]
fn a_json_v3_app_comes_back_as_v3_with_its_contexts_and_nesting() {
    let dir = tempfile::tempdir().unwrap();
    write_app(&dir.path().join("app"));
    let said = ok(dir.path(), &["import", "app/locales", "--to", "s.csv"]);
    for line in [
        "plurals: named as i18next JSON v3 names them (KEY, KEY_plural); the settings cell \
         says so (i18next=v3), and generate writes them so",
        "depot: not carried: app/locales/en/translation.json cart.total: nesting $t(...) is \
         kept as text",
    ] {
        assert!(said.lines().any(|l| l == line), "{line} not in\n{said}");
    }
    let sheet = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    let lines: Vec<&str> = sheet.lines().collect();
    assert_eq!(
        lines[0], "depot: placeholders=i18next i18next=v3,,,,,",
        "{sheet}"
    );
    for row in [
        "cart,item[one],,,{{count}} item,{{count}} Artikel",
        ",item[other],,,{{count}} items,{{count}} Artikel (mehrere)",
        "friend_male,,,,A boyfriend,Ein Freund",
        "friend_female,,,,A girlfriend,Eine Freundin",
        "greeting,,,,\"Hello, {{ name }}!\",\"Hallo, {{ name }}!\"",
    ] {
        assert!(lines.contains(&row), "{row} not in\n{sheet}");
    }

    ok(
        dir.path(),
        &[
            "generate", "--source", "s.csv", "-f", "i18next", "-p", "out",
        ],
    );
    for lng in ["en", "de"] {
        let path = format!("{lng}/translation.json");
        assert_eq!(
            json_of(&dir.path().join("out").join(&path)),
            json_of(&dir.path().join("app/locales").join(&path)),
            "{path}"
        );
    }
    let calls = [
        json!(["en", "cart.item", {"count": 1}]),
        json!(["en", "cart.item", {"count": 3}]),
        json!(["de", "cart.item", {"count": 3}]),
        json!(["en", "friend", {"context": "female"}]),
        json!(["de", "friend", {"context": "male"}]),
        json!(["de", "greeting", {"name": "Ada"}]),
        json!(["en", "cart.total", {"n": 2}]),
    ];
    let want = [
        "1 item",
        "3 items",
        "3 Artikel (mehrere)",
        "A girlfriend",
        "Ein Freund",
        "Hallo, Ada!",
        "Total: 2 items",
    ];
    assert_eq!(i18next_v3(&dir.path().join("app/locales"), &calls), want);
    assert_eq!(i18next_v3(&dir.path().join("out"), &calls), want);

    let diff = support::run(dir.path(), &["diff", "--source", "s.csv", "app/locales"]);
    assert_eq!(
        diff.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&diff.stdout)
    );
}

/// JSON v3 in a language with more forms than one and other numbers them (`KEY_0`,
/// `KEY_1`, `KEY_2` for Polish): read as the CLDR categories i18next's v3 rule gives
/// them, written back numbered, read by i18next 23 with `compatibilityJSON: 'v3'`.
#[test]
fn json_v3_numbered_forms_come_back_numbered() {
    let en = r#"{
  "cart": {
    "item": "{{count}} item",
    "item_plural": "{{count}} items",
    "step_1": "First",
    "step_2": "Second",
    "step_3": "Third"
  }
}"#;
    let pl = r#"{
  "cart": {
    "item_0": "{{count}} produkt",
    "item_1": "{{count}} produkty",
    "item_2": "{{count}} produktów",
    "step_1": "Pierwszy",
    "step_2": "Drugi",
    "step_3": "Trzeci"
  }
}"#;
    let dir = tempfile::tempdir().unwrap();
    let files = [("en", en), ("pl", pl)];
    let rows = [
        "cart,item[one],,,{{count}} item,{{count}} produkt",
        ",item[few],,,,{{count}} produkty",
        ",item[many],,,,{{count}} produktów",
        ",item[other],,,{{count}} items,{{count}} produktów",
        ",step_3,,,Third,Trzeci",
    ];
    let said = import_v3(dir.path(), &files, &rows);
    assert!(
        said.lines().any(|l| l == NUMBERED),
        "{NUMBERED} not in\n{said}"
    );
    let calls: Vec<Value> = [1, 2, 5, 22, 25]
        .iter()
        .map(|n| json!(["pl", "cart.item", {"count": n}]))
        .chain([json!(["pl", "cart.step_2", {}])])
        .collect();
    let want = [
        "1 produkt",
        "2 produkty",
        "5 produktów",
        "22 produkty",
        "25 produktów",
        "Drugi",
    ];
    comes_back_as_v3(dir.path(), &files, &calls, &want);
}

/// Without the setting, plurals are written as v4 (`KEY_one`, `KEY_other`), as before;
/// `i18next=v3` writes `KEY` and `KEY_plural`.
#[test]
fn a_sheet_without_the_setting_writes_v4_plurals() {
    let dir = tempfile::tempdir().unwrap();
    // each into a folder of its own: generate patches an existing file (SPEC §12.1)
    let written = |cell: &str, out: &str| {
        let rows = ">>>,en\nitem[one],{{count}} item\nitem[other],{{count}} items\n";
        std::fs::write(dir.path().join("s.csv"), format!("{cell}\n{rows}")).unwrap();
        let generate = ["generate", "--source", "s.csv", "-f", "i18next", "-p", out];
        ok(dir.path(), &generate);
        json_of(&dir.path().join(out).join("en/translation.json"))
    };
    assert_eq!(
        written("depot: placeholders=i18next", "v4"),
        json!({"item_one": "{{count}} item", "item_other": "{{count}} items"})
    );
    assert_eq!(
        written("depot: placeholders=i18next i18next=v3", "v3"),
        json!({"item": "{{count}} item", "item_plural": "{{count}} items"})
    );
}

/// JSON v3 in a language of one plural form (ja, zh, ko, …) names its one form `KEY_0`
/// (i18next 23's v3 rule: suffix 0 at every count): import reads it as the plural's
/// `other` in an app whose files are v3 and says so, generate writes it back as `KEY_0`,
/// and i18next 23 with `compatibilityJSON: 'v3'` reads both alike.
#[test]
fn json_v3_one_form_languages_come_back_as_key_0() {
    let en = r#"{
  "cart": {
    "item": "{{count}} item",
    "item_plural": "{{count}} items"
  },
  "title": "Basket"
}"#;
    let ja = r#"{
  "cart": {
    "item_0": "{{count}} 個の商品"
  },
  "title": "かご"
}"#;
    let dir = tempfile::tempdir().unwrap();
    let files = [("en", en), ("ja", ja)];
    let rows = [
        "cart,item[one],,,{{count}} item,",
        ",item[other],,,{{count}} items,{{count}} 個の商品",
        "title,,,,Basket,かご",
    ];
    let said = import_v3(dir.path(), &files, &rows);
    assert!(
        said.lines().any(|l| l == NUMBERED),
        "{NUMBERED} not in\n{said}"
    );
    let calls: Vec<Value> = (["en", "ja"].iter())
        .flat_map(|lng| [1, 5].map(|n| json!([lng, "cart.item", {"count": n}])))
        .collect();
    let want = ["1 item", "5 items", "1 個の商品", "5 個の商品"];
    comes_back_as_v3(dir.path(), &files, &calls, &want);
}

/// A sheet that says `i18next=v3` writes a plural of a language of one form as `KEY_0`,
/// the only name i18next v3 asks for there (not `KEY_plural`, nor v4's `KEY_other`).
#[test]
fn a_v3_sheet_writes_the_one_form_of_japanese_as_key_0() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = "depot: placeholders=i18next i18next=v3\n>>>,en,ja,ko\n\
                 item[one],{{count}} item,,\nitem[other],{{count}} items,{{count}} 個,{{count}} 개\n";
    std::fs::write(dir.path().join("s.csv"), sheet).unwrap();
    let generate = [
        "generate", "--source", "s.csv", "-f", "i18next", "-p", "out",
    ];
    ok(dir.path(), &generate);
    assert_eq!(
        json_of(&dir.path().join("out/ja/translation.json")),
        json!({"item_0": "{{count}} 個"})
    );
    assert_eq!(
        json_of(&dir.path().join("out/ko/translation.json")),
        json!({"item_0": "{{count}} 개"})
    );
    let calls = [
        json!(["ja", "item", {"count": 1}]),
        json!(["ja", "item", {"count": 7}]),
    ];
    assert_eq!(
        i18next_v3(&dir.path().join("out"), &calls),
        ["1 個", "7 個"]
    );
}

/// `KEY_0` alone is a key of its own in an app of JSON v4 (`KEY_other` in Japanese): only
/// an app whose files show v3 elsewhere has it read as a plural, so a v4 app's sheet does
/// not turn to v3 (which would write its English plurals as `KEY_plural`).
#[test]
fn a_japanese_key_0_in_a_v4_app_stays_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "en",
            r#"{"item_one": "{{count}} item", "item_other": "{{count}} items", "level_0": "Ground floor"}"#,
        ),
        ("ja", r#"{"item_other": "{{count}} 個", "level_0": "1階"}"#),
    ];
    for (lng, body) in files {
        let folder = dir.path().join("app/locales").join(lng);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("translation.json"), body).unwrap();
    }
    let said = ok(dir.path(), &["import", "app/locales", "--to", "s.csv"]);
    assert!(!said.contains("JSON v3"), "{said}");
    let sheet = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    let lines: Vec<&str> = sheet.lines().collect();
    assert_eq!(lines[0], "depot: placeholders=i18next,,,,", "{sheet}");
    assert!(
        lines.contains(&"level_0,,,Ground floor,1階"),
        "level_0 not in\n{sheet}"
    );
}
