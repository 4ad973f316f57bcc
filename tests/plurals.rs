//! Plural entries and placeholders (SPEC §9) read back by the real consumers of each
//! format, from files written by `depot generate`: aapt and aapt2 compile `<plurals>`,
//! GNUstep's property-list parser (`plget`, NSPropertyListSerialization over the file's
//! bytes, the way bundles load a `.stringsdict`) reads the `.stringsdict`, `msgfmt -c` accepts the po
//! files (with each locale's number of plural forms), the formatjs ICU MessageFormat
//! parser reads every json plural, PyYAML and js-yaml read the yml maps, libxml2 reads
//! the xlf groups. Every category's text must be the sheet's. A missing tool fails the
//! test with the way to install it (`scripts/test` installs them all).
#![cfg(test)]

mod support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use depot::model::placeholders::{self, Order, Syntax};
use support::gnustep::{Plist, parse_ascii_plist};
use support::run;

const LOCALES: [&str; 4] = ["en", "pl", "ru", "ar"];

/// `--placeholders`: whether it converts, and its value.
const MODES: [(bool, &str); 2] = [(false, "keep"), (true, "convert")];

/// The plural entry `APP.FILES`: per category, the text of each locale ("" = none).
const FILES: [(&str, [&str; 4]); 6] = [
    ("zero", ["", "", "", "لا ملفات في {folder}"]),
    (
        "one",
        [
            "One file in {folder} & it's <new>",
            "{count} plik w {folder}",
            "{count} файл в {folder}",
            "ملف واحد في {folder}",
        ],
    ),
    ("two", ["", "", "", "ملفان في {folder}"]),
    (
        "few",
        [
            "",
            "{count} pliki w {folder}",
            "{count} файла в {folder}",
            "{count} ملفات في {folder}",
        ],
    ),
    (
        "many",
        [
            "",
            "{count} plików w {folder}",
            "{count} файлов в {folder}",
            "{count} ملفًا في {folder}",
        ],
    ),
    (
        "other",
        [
            "{count} files in {folder}",
            "{count} pliku w {folder}",
            "{count} файла в {folder}",
            "{count} ملف في {folder}",
        ],
    ),
];

/// A plain key beside it, with a placeholder the translations reorder.
const TITLE: [&str; 4] = [
    "{name} has {n:int} files",
    "{n:int} plików ma {name}",
    "{name}: {n:int} файлов",
    "{name} لديه {n:int} ملفات",
];

fn csv_field(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// The sheet: a section row, the plain key, then one row per plural category.
fn write_sheet(dir: &Path) {
    let mut rows: Vec<Vec<String>> = vec![
        [">>>", ">>>", "###"]
            .iter()
            .map(|s| s.to_string())
            .chain(LOCALES.map(String::from))
            .collect(),
        vec!["APP".into()],
    ];
    let mut title = vec![String::new(), "TITLE".into(), String::new()];
    title.extend(TITLE.map(String::from));
    rows.push(title);
    for (category, texts) in FILES {
        let mut row = vec![String::new(), format!("FILES[{category}]"), "count".into()];
        row.extend(texts.map(String::from));
        rows.push(row);
    }
    let text: String = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|c| csv_field(c))
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        })
        .collect();
    std::fs::write(dir.join("sheet.csv"), text).unwrap();
}

/// The sheet's forms of `APP.FILES` in one locale: category → text.
fn sheet_forms(locale: usize) -> BTreeMap<String, String> {
    FILES
        .iter()
        .filter(|(_, texts)| !texts[locale].is_empty())
        .map(|(category, texts)| (category.to_string(), texts[locale].to_owned()))
        .collect()
}

/// What `placeholders=convert` makes of the forms in `syntax`.
fn converted_forms(locale: usize, syntax: Syntax) -> BTreeMap<String, String> {
    let base: Vec<&str> = FILES
        .iter()
        .map(|(_, t)| t[0])
        .filter(|t| !t.is_empty())
        .collect();
    sheet_forms(locale)
        .into_iter()
        .map(|(category, text)| {
            let order = || Order::new(base.iter().copied(), true);
            let converted = placeholders::convert(&text, syntax, order, true).into_owned();
            (category, converted)
        })
        .collect()
}

/// `depot generate` of the sheet into `out` with `args`; the run must succeed.
fn generate(dir: &Path, out: &str, args: &[&str]) -> PathBuf {
    let mut all = vec![
        "generate",
        "--source",
        "sheet.csv",
        "--path",
        out,
        "--base",
        "en",
    ];
    all.extend_from_slice(args);
    let output = run(dir, &all);
    assert!(
        output.status.success(),
        "generate {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    dir.join(out)
}

/// `generate -f format` into `out` once per `--placeholders` mode, each in a folder of its
/// own: (converts, mode, folder, output path).
fn generate_each_mode(
    format: &str,
    out: &str,
) -> Vec<(bool, &'static str, tempfile::TempDir, PathBuf)> {
    MODES
        .into_iter()
        .map(|(convert, mode)| {
            let dir = workdir();
            let path = generate(dir.path(), out, &["-f", format, "--placeholders", mode]);
            (convert, mode, dir, path)
        })
        .collect()
}

fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_sheet(dir.path());
    dir
}

/// Runs a consumer; a missing one fails the test with `hint`.
fn tool(name: &str, args: &[&str], dir: &Path, stdin: Option<&[u8]>, hint: &str) -> Output {
    let mut child = Command::new(name)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {name} ({e}): {hint}"));
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or_default()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn tool_ok(name: &str, args: &[&str], dir: &Path, stdin: Option<&[u8]>, hint: &str) -> String {
    let out = tool(name, args, dir, stdin, hint);
    assert!(
        out.status.success(),
        "{name} {args:?} refused it (if the tool itself is missing a part: {hint}):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const GNUSTEP_HINT: &str =
    "install GNUstep's plist tools: apt-get install -y gnustep-base-runtime, or run scripts/test";
const GETTEXT_HINT: &str = "install gettext: apt-get install -y gettext, or run scripts/test";
const NODE_HINT: &str = "install node 20 and run `npm ci` in tests/node (scripts/test does both)";
const PYYAML_HINT: &str = "install PyYAML: python3 -m pip install pyyaml, or run scripts/test";
const XMLLINT_HINT: &str =
    "install libxml2-utils: apt-get install -y libxml2-utils, or run scripts/test";

// ------------------------------------------------------------------ android

/// aapt2's `dump resources`: per configuration ("" for default), each plural's category → text.
fn aapt2_plurals(dump: &str) -> BTreeMap<(String, String), BTreeMap<String, String>> {
    let mut found = BTreeMap::new();
    let (mut name, mut config) = (None::<String>, String::new());
    for line in dump.lines().map(str::trim) {
        if line.starts_with("resource ") {
            name = line.split_once("plurals/").map(|(_, n)| n.to_owned());
        } else if let Some(n) = &name {
            if let Some(rest) = line.strip_prefix('(') {
                config = rest.split(')').next().unwrap_or_default().to_owned();
            } else if let Some((category, text)) = line.split_once("=\"") {
                found
                    .entry((n.clone(), config.clone()))
                    .or_insert_with(BTreeMap::new)
                    .insert(category.to_owned(), text.trim_end_matches('"').to_owned());
            }
        }
    }
    found
}

/// aapt's `dump --values resources`: the same, from the bag keys (Android's ATTR_OTHER
/// 0x01000004, ZERO 5, ONE 6, TWO 7, FEW 8, MANY 9).
fn aapt_plurals(dump: &str) -> BTreeMap<(String, String), BTreeMap<String, String>> {
    let mut found = BTreeMap::new();
    let (mut name, mut config) = (None::<String>, String::new());
    for line in dump.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("config ") {
            config = rest.trim_end_matches(':').replace("(default)", "");
        } else if line.starts_with("resource ") && line.ends_with("<bag>") {
            name = line
                .split_once("plurals/")
                .map(|(_, n)| n.trim_end_matches(": <bag>").to_owned());
        } else if let (Some(n), Some(key)) = (
            &name,
            line.split_once("(Key=0x0100000").map(|(_, k)| &k[..1]),
        ) {
            let category = match key {
                "4" => "other",
                "5" => "zero",
                "6" => "one",
                "7" => "two",
                "8" => "few",
                _ => "many",
            };
            let text = line
                .split_once("(string16) \"")
                .map(|(_, t)| t.trim_end_matches('"'))
                .unwrap_or_default();
            found
                .entry((n.clone(), config.clone()))
                .or_insert_with(BTreeMap::new)
                .insert(category.to_owned(), text.to_owned());
        }
    }
    found
}

#[test]
fn android_plurals_compile_with_aapt_and_aapt2_and_hold_the_sheet_texts() {
    for (convert, mode, _dir, res) in generate_each_mode("android", "app/res") {
        let [aapt, aapt2] = support::android::build_with_aapt_and_aapt2(&res);
        for (tool, plurals) in [
            ("aapt", aapt_plurals(&aapt)),
            ("aapt2", aapt2_plurals(&aapt2)),
        ] {
            for (locale, code) in LOCALES.iter().enumerate() {
                let want = if convert {
                    converted_forms(locale, Syntax::Android)
                } else {
                    sheet_forms(locale)
                };
                let got = &plurals[&("app_files".to_owned(), code.to_string())];
                // aapt2's dump shows the `&` and the apostrophe as they were read
                assert_eq!(got, &want, "{tool} {mode} {code}");
            }
            // the base locale again in values/
            assert_eq!(
                plurals[&("app_files".to_owned(), String::new())].len(),
                2,
                "{tool}"
            );
        }
    }
}

// ------------------------------------------------------------------ ios

#[test]
fn stringsdict_is_read_by_gnustep_with_the_plural_rule_structure() {
    for (convert, mode, dir, out) in generate_each_mode("ios", "ios") {
        for (locale, code) in LOCALES.iter().enumerate() {
            let folder = out.join(format!("{code}.lproj"));
            let strings = std::fs::read_to_string(folder.join("Localizable.strings")).unwrap();
            assert!(
                !strings.contains("app_files"),
                "plural entries stay out of .strings"
            );
            let file = folder.join("Localizable.stringsdict");
            let body = std::fs::read(&file).unwrap();
            let entry = parse_ascii_plist(&tool_ok(
                "plget",
                &["app_files"],
                dir.path(),
                Some(&body),
                GNUSTEP_HINT,
            ));
            let want = if convert {
                converted_forms(locale, Syntax::Ios)
            } else {
                sheet_forms(locale)
            };
            let mut rule: BTreeMap<String, Plist> =
                want.into_iter().map(|(c, t)| (c, Plist::Text(t))).collect();
            rule.insert(
                "NSStringFormatSpecTypeKey".into(),
                Plist::Text("NSStringPluralRuleType".into()),
            );
            rule.insert(
                "NSStringFormatValueTypeKey".into(),
                Plist::Text("ld".into()),
            );
            let expected = Plist::Dict(BTreeMap::from([
                (
                    "NSStringLocalizedFormatKey".to_owned(),
                    Plist::Text("%#@value@".into()),
                ),
                ("value".to_owned(), Plist::Dict(rule)),
            ]));
            assert_eq!(entry, expected, "{mode} {code}");
        }
        assert!(out.join("Base.lproj/Localizable.stringsdict").exists());
    }
}

// ------------------------------------------------------------------ po

/// `msgstr[N]` texts of the entry `name` in a po file msgunfmt wrote (one line each).
fn po_slots(po: &str, name: &str) -> Vec<String> {
    let start = po
        .find(&format!("msgid \"{name}\""))
        .expect("entry present");
    po[start..]
        .lines()
        .skip_while(|l| !l.starts_with("msgstr["))
        .take_while(|l| l.starts_with("msgstr["))
        .map(|l| {
            let quoted = l.split_once(" \"").unwrap().1.trim_end_matches('"');
            quoted.replace("\\\"", "\"").replace("\\\\", "\\")
        })
        .collect()
}

#[test]
fn po_plurals_pass_msgfmt_c_with_each_locales_plural_forms() {
    let dir = workdir();
    let out = generate(dir.path(), "po", &["-f", "po"]);
    // gettext's own formulas: the number of forms, then the CLDR category of each slot
    let slots: [&[&str]; 4] = [
        &["one", "other"],
        &["one", "few", "many"],
        &["one", "few", "many"],
        &["zero", "one", "two", "few", "many", "other"],
    ];
    for (locale, code) in LOCALES.iter().enumerate() {
        let po = out.join(format!("messages.{code}.po"));
        let mo = out.join(format!("{code}.mo"));
        tool_ok(
            "msgfmt",
            &["-c", "-o", mo.to_str().unwrap(), po.to_str().unwrap()],
            dir.path(),
            None,
            GETTEXT_HINT,
        );
        let back = tool_ok(
            "msgunfmt",
            &[mo.to_str().unwrap()],
            dir.path(),
            None,
            GETTEXT_HINT,
        );
        let header = format!("nplurals={};", slots[locale].len());
        assert!(back.contains(&header), "{code}: {back}");
        let forms = sheet_forms(locale);
        let want: Vec<String> = slots[locale]
            .iter()
            .map(|c| forms.get(*c).unwrap_or(&forms["other"]).clone())
            .collect();
        assert_eq!(po_slots(&back, "app_files"), want, "{code}");
    }
}

// ------------------------------------------------------------------ json

/// Runs tests/node/consumers.js.
fn node(mode: &str, input: &[u8]) -> serde_json::Value {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node");
    assert!(
        folder.join("node_modules").is_dir(),
        "tests/node/node_modules is missing: {NODE_HINT}"
    );
    let out = tool_ok(
        "node",
        &["consumers.js", mode],
        &folder,
        Some(input),
        NODE_HINT,
    );
    serde_json::from_str(&out).unwrap()
}

/// An ICU message element list (formatjs AST) written back in sheet syntax.
fn icu_text(elements: &serde_json::Value) -> String {
    let mut out = String::new();
    for e in elements.as_array().unwrap() {
        let value = e["value"].as_str().unwrap_or_default();
        match e["type"].as_u64().unwrap() {
            0 => out.push_str(&value.replace('{', "{{").replace('}', "}}")),
            1 => out.push_str(&format!("{{{value}}}")),
            2 if e["style"] == "integer" => out.push_str(&format!("{{{value}:int}}")),
            2 => out.push_str(&format!("{{{value}:float}}")),
            7 => out.push_str("{count}"),
            other => panic!("unexpected ICU element type {other}: {e}"),
        }
    }
    out
}

#[test]
fn json_plurals_parse_with_formatjs_and_hold_the_sheet_texts() {
    for (convert, mode, _dir, out) in generate_each_mode("json", "json") {
        for (locale, code) in LOCALES.iter().enumerate() {
            let json: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(out.join(format!("{code}.json"))).unwrap(),
            )
            .unwrap();
            let mut messages = vec![json["APP"]["FILES"].clone()];
            // with keep, plain texts are the sheet's, not ICU messages
            if convert {
                messages.push(json["APP"]["TITLE"].clone());
            }
            let asts = node("icu", serde_json::to_string(&messages).unwrap().as_bytes());
            let plural = &asts[0][0];
            assert_eq!(plural["type"], 6, "{code}: a plural");
            assert_eq!(plural["value"], "count");
            let forms: BTreeMap<String, String> = plural["options"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(category, option)| (category.clone(), icu_text(&option["value"])))
                .collect();
            // `#` reads back as {count}: the same text as the sheet's
            assert_eq!(forms, sheet_forms(locale), "{mode} {code}");
            if convert {
                assert_eq!(icu_text(&asts[1]), TITLE[locale], "{code}");
            }
        }
    }
}

// ------------------------------------------------------------------ yml

#[test]
fn yml_plural_maps_read_by_pyyaml_and_js_yaml() {
    let dir = workdir();
    let out = generate(
        dir.path(),
        "yml",
        &["-f", "yml", "--placeholders", "convert"],
    );
    for (locale, code) in LOCALES.iter().enumerate() {
        let body = std::fs::read(out.join(format!("messages.{code}.yml"))).unwrap();
        let py = tool_ok(
            "python3",
            &[
                "-c",
                "import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))",
            ],
            dir.path(),
            Some(&body),
            PYYAML_HINT,
        );
        let py: serde_json::Value = serde_json::from_str(&py).unwrap();
        let js = node("yaml", &body);
        let want = serde_json::to_value(converted_forms(locale, Syntax::Rails)).unwrap();
        assert_eq!(py["APP"]["FILES"], want, "PyYAML {code}");
        assert_eq!(js["APP"]["FILES"], want, "js-yaml {code}");
        assert_eq!(
            py["APP"]["FILES"]["other"]
                .as_str()
                .unwrap()
                .matches("%{")
                .count(),
            2
        );
    }
}

// ------------------------------------------------------------------ xlf

#[test]
fn xlf_plural_groups_are_read_by_libxml2_with_one_unit_per_category() {
    let dir = workdir();
    let out = generate(dir.path(), "xlf", &["-f", "xlf"]);
    for (locale, code) in LOCALES.iter().enumerate() {
        let path = out.join(format!("messages.{code}.xlf"));
        support::xliff_schema::assert_strictly_valid(&path);
        let file = path.to_str().unwrap();
        let ids = tool_ok(
            "xmllint",
            &[
                "--xpath",
                "//*[local-name()='group'][@restype='x-gettext-plurals']/*[local-name()='trans-unit']/@id",
                file,
            ],
            dir.path(),
            None,
            XMLLINT_HINT,
        );
        let forms = sheet_forms(locale);
        for category in forms.keys() {
            assert!(
                ids.contains(&format!("id=\"APP.FILES[{category}]\"")),
                "{code} {category}: {ids}"
            );
            let target = tool_ok(
                "xmllint",
                &[
                    "--xpath",
                    &format!("string(//*[@id='APP.FILES[{category}]']/*[local-name()='target'])"),
                    file,
                ],
                dir.path(),
                None,
                XMLLINT_HINT,
            );
            assert_eq!(
                target.strip_suffix('\n'),
                Some(forms[category].as_str()),
                "{code} {category}"
            );
        }
        assert_eq!(ids.matches("id=").count(), forms.len(), "{code}");
    }
    // One file with every locale (a <file> each), placeholders converted: still strict.
    let merged = generate(
        dir.path(),
        "xlf-merged",
        &["-f", "xlf", "--merge", "--placeholders", "convert"],
    );
    support::xliff_schema::assert_strictly_valid(&merged.join("translations.xlf"));
}

// ------------------------------------------------------------------ checks

#[test]
fn checks_name_the_cell_of_each_finding_in_the_generate_summary() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = "\
>>>,>>>,en,pl
APP,,,
,GREETING,Hello {name},Cześć {imie}
,BRACE,Open { here,Otwórz {{ tu
,ITEMS[one],One item,Jedna rzecz
,ITEMS[few],Few items,Kilka
,LIST[one],,Jeden
,DUP,a,b
,DUP,c,
X_A,,,
,B,y,y
X,,,
,A_B,z,z
";
    std::fs::write(dir.path().join("sheet.csv"), sheet).unwrap();
    let out = run(
        dir.path(),
        &[
            "generate",
            "--source",
            "sheet.csv",
            "-f",
            "json",
            "-p",
            "out",
        ],
    );
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let finding = |cell: &str, needle: &str| {
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("depot: finding: {cell} ")) && l.contains(needle)),
            "no finding {cell} {needle:?} in:\n{err}"
        );
    };
    finding("D3", "missing {name} extra {imie}");
    finding("C4", "unbalanced '{'");
    finding("C6", "does not use the category 'few'");
    finding("C5", "has no 'other' form");
    finding("D5", "has no 'other' form");
    finding("D7", "has no 'other' form");
    finding("B9", "duplicate key \"APP.DUP\"");
    finding("B13", "both become the name \"x_a_b\"");
    assert!(err.contains("finding(s) in the sheet's checks"), "{err}");
}

// ------------------------------------------------------------------ over HTTP

async fn served(daemon: &support::Daemon, query: &str) -> reqwest::Response {
    let url = daemon.url(&format!("/translations{query}"));
    support::eventually(std::time::Duration::from_secs(20), || async {
        let response = reqwest::get(&url).await.ok()?;
        (response.status() != 503).then_some(response)
    })
    .await
    .expect("translations are served")
}

#[tokio::test]
async fn http_serves_stringsdict_conversion_and_fallback_and_names_what_it_left_out() {
    let dir = workdir();
    // pl lacks TITLE here: fallback=true takes the English one
    let sheet = std::fs::read_to_string(dir.path().join("sheet.csv")).unwrap();
    let sheet = sheet.replace("\"{n:int} plików ma {name}\"", "\"\"");
    std::fs::write(dir.path().join("sheet.csv"), sheet).unwrap();
    let daemon = support::Daemon::start(
        dir.path(),
        &[
            "--set",
            "producer.source=sheet.csv",
            "--set",
            "translations.fallback=*=en",
        ],
        &[],
    )
    .await;

    let dict = served(&daemon, "?format=stringsdict&filters[]=pl").await;
    assert_eq!(dict.headers()["content-type"], "application/x-plist");
    let body = dict.text().await.unwrap();
    assert!(
        body.contains("<key>app_files</key>") && body.contains("<key>few</key>"),
        "{body}"
    );

    let ios = served(&daemon, "?format=ios&filters[]=pl").await;
    let warnings = ios.headers()["depot-warnings"].to_str().unwrap().to_owned();
    assert!(warnings.contains("format=stringsdict"), "{warnings}");
    assert!(!ios.text().await.unwrap().contains("app_files"));

    let android = served(&daemon, "?format=android&filters[]=en&placeholders=convert").await;
    let body = android.text().await.unwrap();
    assert!(body.contains(">%1$s has %2$d files</string>"), "{body}");
    assert!(
        body.contains("<item quantity=\"other\">%1$d files in %2$s</item>"),
        "{body}"
    );

    let without = served(&daemon, "?filters[]=pl").await.text().await.unwrap();
    assert!(!without.contains("TITLE"), "{without}");
    let with = served(&daemon, "?filters[]=pl&fallback=true")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        with.contains(r#""TITLE":"{name} has {n:int} files""#),
        "{with}"
    );

    for (query, message) in [
        (
            "?placeholders=printf",
            "placeholders must be one of keep, convert, got 'printf'",
        ),
        (
            "?fallback=maybe",
            "fallback must be true or false, got 'maybe'",
        ),
        ("?format=plist", "stringsdict"),
    ] {
        let response = served(&daemon, query).await;
        assert_eq!(response.status(), 400, "{query}");
        assert!(response.text().await.unwrap().contains(message), "{query}");
    }

    // the findings of the checks are in /health, each with its cell
    let (_, health) = daemon.get_json("/health").await;
    let findings = health["translations"]["findings"].as_array().unwrap();
    assert!(findings.is_empty(), "{findings:?}");
}

#[tokio::test]
async fn strict_producer_refuses_a_sheet_with_findings_and_health_says_why() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sheet.csv"),
        ">>>,en,pl\nHELLO,Hello {name},Cześć {imie}\n",
    )
    .unwrap();
    let daemon = support::Daemon::start(
        dir.path(),
        &[
            "--set",
            "producer.source=sheet.csv",
            "--set",
            "producer.strict=true",
        ],
        &[],
    )
    .await;
    let error = support::eventually(std::time::Duration::from_secs(20), || async {
        let health: serde_json::Value = reqwest::get(daemon.url("/health"))
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        health["translations"]["lastError"]
            .as_str()
            .map(str::to_owned)
    })
    .await
    .expect("the sync fails");
    assert!(
        error.contains("producer.strict refuses to publish") && error.contains("C2"),
        "{error}"
    );
    assert_eq!(
        reqwest::get(daemon.url("/translations"))
            .await
            .unwrap()
            .status(),
        503
    );
    drop(daemon);

    // without strict the same sheet is published, its finding in /health
    let daemon =
        support::Daemon::start(dir.path(), &["--set", "producer.source=sheet.csv"], &[]).await;
    served(&daemon, "").await;
    let (_, health) = daemon.get_json("/health").await;
    let findings = &health["translations"]["findings"];
    assert_eq!(findings[0]["cell"], "C2", "{findings}");
}

/// Every string leaf of a JSON value.
fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// A plural entry without `other` in a locale is a finding (with its cell) and no format
/// carries it for that locale (json would hold `{count, plural, one {…}}`, which ICU
/// parsers refuse); one that lacks a form its locale needs is a finding too. The formatjs
/// parser reads every json message of every locale.
#[tokio::test]
async fn a_plural_without_other_is_reported_and_in_no_format() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = "\
>>>,>>>,en,pl
APP,,,
,ITEMS[one],One item,{count} rzecz
,ITEMS[other],{count} items,
,LOST[one],Lost one,Zgubiony
,FILES[one],One file,{count} plik
,FILES[many],,{count} plików
,FILES[other],{count} files,{count} pliku
,OK,fine,dobrze
";
    std::fs::write(dir.path().join("sheet.csv"), sheet).unwrap();
    let daemon =
        support::Daemon::start(dir.path(), &["--set", "producer.source=sheet.csv"], &[]).await;
    served(&daemon, "").await;
    let (_, health) = daemon.get_json("/health").await;
    let findings: Vec<(String, String)> = health["translations"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["cell"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let cells: Vec<&str> = findings.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(cells, ["D3", "C5", "D5", "D6"], "{findings:?}");
    for (cell, needle) in [
        (
            "D3",
            "has no 'other' form, so every format leaves it out for pl",
        ),
        ("C5", "has no 'other' form"),
        ("D6", "(pl) has no 'few' (2, 3, 4, 22, …) form"),
    ] {
        assert!(
            findings
                .iter()
                .any(|(c, m)| c == cell && m.contains(needle)),
            "{cell} {needle}: {findings:?}"
        );
    }

    for format in ["json", "android", "ios", "stringsdict", "yml", "xlf", "po"] {
        for locale in ["en", "pl"] {
            let query = format!("?format={format}&filters[]={locale}&placeholders=convert");
            let response = served(&daemon, &query).await;
            assert_eq!(response.status(), 200, "{query}");
            let body = response.text().await.unwrap();
            // LOST had no `other` anywhere; ITEMS none in Polish
            for gone in ["Lost one", "Zgubiony", "rzecz"] {
                assert!(!body.contains(gone), "{query}: {gone} in {body}");
            }
            if format != "ios" {
                let kept = if locale == "en" { "items" } else { "plików" };
                assert!(body.contains(kept), "{query}: no {kept} in {body}");
            }
        }
    }
    // formatjs reads every json message (converted, each text is an ICU message)
    let json: serde_json::Value = served(&daemon, "?placeholders=convert")
        .await
        .json()
        .await
        .unwrap();
    let mut messages = Vec::new();
    strings(&json, &mut messages);
    assert!(messages.iter().any(|m| m.starts_with("{count, plural,")));
    let asts = node("icu", serde_json::to_string(&messages).unwrap().as_bytes());
    for (message, ast) in messages.iter().zip(asts.as_array().unwrap()) {
        if let Some(plural) = ast.as_array().unwrap().iter().find(|e| e["type"] == 6) {
            assert!(plural["options"].get("other").is_some(), "{message}");
        }
    }
    assert!(json["pl"]["APP"].get("ITEMS").is_none(), "{json}");
    assert!(json["en"]["APP"].get("LOST").is_none(), "{json}");
}
