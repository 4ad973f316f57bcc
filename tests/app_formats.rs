//! The formats apps ship today (SPEC §11: xcstrings, arb, i18next) from `depot generate`
//! and over HTTP, read back by their real consumers: i18next itself gives every key and,
//! for each plural category, the form of that category's sample number in en, pl, ru and
//! ar; every ARB file passes gen-l10n's rules (tests/node/consumers.js, from Flutter's
//! sources) and every message reads the same with the formatjs ICU parser and Flutter's
//! lexer (tests/support/app_readback.rs); every String Catalog is read by locize-xcstrings
//! and laid out exactly as Xcode writes catalogs (tests/fixtures/xcstrings holds real ones).
//! The hostile texts of the other formats' tests, in each. A missing tool fails the test
//! with the way to install it (`scripts/test` installs them all).
#![cfg(test)]

#[path = "support/app_readback.rs"]
mod app_readback;
#[path = "support/ordered_json.rs"]
mod ordered_json;
mod support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use app_readback::{
    Message, Part, XcValue, read_arb, read_arb_message, read_flutter, read_xcstrings,
};
use depot::model::placeholders::{self, Order, Piece, Syntax};
use ordered_json::Json;
use serde_json::{Value, json};
use support::{TestServer, query, run, sheet_rows};

const LOCALES: [&str; 4] = ["en", "pl", "ru", "ar"];

/// `APP.GREETING`, a plain key whose placeholders the translations reorder; its comment.
const GREETING: [&str; 4] = [
    "Welcome back, {name}! It's {n:int} o'clock",
    "{n:int}:00, witaj {name}",
    "{name}, сейчас {n:int} часов",
    "مرحبا {name}، الساعة {n:int}",
];
const GREETING_COMMENT: &str = "Shown on the \"start\" screen";

/// `APP.BRACES`: literal braces (doubled in the sheet), a tag, an apostrophe by a brace.
const BRACES: [&str; 4] = [
    "Use {{curly}} braces & <b>tags</b> for {name}'s {{x}}",
    "Użyj {{nawiasów}} dla {name}",
    "Скобки {{ и }} для {name}",
    "أقواس {{ }} لـ {name}",
];

/// The plural entry `APP.PHOTOS`: per category, each locale's text ("" = none).
const PHOTOS: [(&str, [&str; 4]); 6] = [
    ("zero", ["", "", "", "لا صور في {album}"]),
    (
        "one",
        [
            "One photo in '{album}' #1",
            "{count} zdjęcie w {album}",
            "{count} фото в «{album}»",
            "صورة واحدة في {album}",
        ],
    ),
    ("two", ["", "", "", "صورتان في {album}"]),
    (
        "few",
        [
            "",
            "{count} zdjęcia w {album}",
            "{count} фото в «{album}»",
            "{count} صور في {album}",
        ],
    ),
    (
        "many",
        [
            "",
            "{count} zdjęć w {album}",
            "{count} фотографий в «{album}»",
            "{count} صورة في {album}",
        ],
    ),
    (
        "other",
        [
            "{count} photos in '{album}' #{count}",
            "{count} zdjęcia w {album}",
            "{count} фотографии в «{album}»",
            "{count} صورة في {album}",
        ],
    ),
];

/// A number CLDR puts in each category, per locale (en, pl, ru, ar): what an app passes.
fn sample(locale: &str, category: &str) -> f64 {
    match (locale, category) {
        ("ar", "zero") => 0.0,
        (_, "one") => 1.0,
        ("ar", "two") => 2.0,
        ("ar", "few") => 3.0,
        ("ar", "many") => 11.0,
        ("ar", "other") => 100.0,
        ("en", "other") => 5.0,
        (_, "few") => 2.0,
        (_, "many") => 5.0,
        // pl and ru: fractions are `other`
        (_, "other") => 1.5,
        _ => panic!("no sample for {locale} {category}"),
    }
}

fn csv_field(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

fn write_sheet(dir: &Path) {
    let mut rows: Vec<Vec<String>> = vec![
        [">>>", ">>>", "###", "$$$"]
            .iter()
            .map(|s| s.to_string())
            .chain(LOCALES.map(String::from))
            .collect(),
        vec!["APP".into()],
    ];
    let row = |key: &str, comment: &str, texts: [&str; 4]| {
        let mut row = vec![
            String::new(),
            key.to_owned(),
            String::new(),
            comment.to_owned(),
        ];
        row.extend(texts.map(String::from));
        row
    };
    rows.push(row("GREETING", GREETING_COMMENT, GREETING));
    rows.push(row("BRACES", "", BRACES));
    for (category, texts) in PHOTOS {
        rows.push(row(&format!("PHOTOS[{category}]"), "", texts));
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

/// The sheet's forms of `APP.PHOTOS` in one locale: category → text.
fn photos(locale: usize) -> BTreeMap<String, String> {
    (PHOTOS.iter())
        .filter(|(_, texts)| !texts[locale].is_empty())
        .map(|(category, texts)| (category.to_string(), texts[locale].to_owned()))
        .collect()
}

/// `depot generate` of the sheet (`--base en`) into a new folder with `args`.
fn generate(args: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    write_sheet(dir.path());
    let mut all = vec![
        "generate",
        "--source",
        "sheet.csv",
        "--path",
        "out",
        "--base",
        "en",
    ];
    all.extend_from_slice(args);
    let output = run(dir.path(), &all);
    assert!(
        output.status.success(),
        "generate {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = dir.path().join("out");
    (dir, out)
}

const NODE_HINT: &str = "install node 20 and run `npm ci` in tests/node (scripts/test does both)";

/// Runs tests/node/consumers.js; `Err` with its message when the consumer refuses.
fn try_node(mode: &str, input: &[u8]) -> Result<Value, String> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node");
    for package in [
        "i18next",
        "locize-xcstrings",
        "@formatjs/icu-messageformat-parser",
    ] {
        assert!(
            folder.join("node_modules").join(package).is_dir(),
            "tests/node/node_modules/{package} is missing: {NODE_HINT}"
        );
    }
    let mut child = Command::new("node")
        .args(["consumers.js", mode])
        .current_dir(&folder)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run node ({e}): {NODE_HINT}"));
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(serde_json::from_slice(&out.stdout).unwrap())
}

fn node(mode: &str, input: &[u8]) -> Value {
    try_node(mode, input).unwrap_or_else(|e| panic!("node consumers.js {mode} refused it:\n{e}"))
}

// ------------------------------------------------------------------ expectations

/// What a sheet text means: literal text (a doubled brace as one) and placeholders.
fn meaning(text: &str) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    for piece in placeholders::parse(text).unwrap() {
        let literal = match piece {
            Piece::Literal(s) => s.to_owned(),
            Piece::Brace(c) => c.to_string(),
            Piece::Placeholder { name, .. } => {
                parts.push(Part::Arg(name.to_owned()));
                continue;
            }
        };
        match parts.last_mut() {
            Some(Part::Text(last)) => last.push_str(&literal),
            _ => parts.push(Part::Text(literal)),
        }
    }
    parts
}

/// The text an app shows for a sheet text with `values` filled in.
fn filled(text: &str, values: &[(&str, String)]) -> String {
    (meaning(text).into_iter())
        .map(|part| match part {
            Part::Text(t) => t,
            Part::Arg(name) => (values.iter())
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("no value for {name}")),
        })
        .collect()
}

/// formatjs's parts (consumers.js) as `Part`s.
fn formatjs_parts(parts: &Value) -> Vec<Part> {
    (parts.as_array().unwrap().iter())
        .map(|p| match (p["t"].as_str(), p["a"].as_str()) {
            (Some(t), _) => Part::Text(t.to_owned()),
            (_, Some(a)) => Part::Arg(a.to_owned()),
            _ => panic!("not a plain part: {p}"),
        })
        .collect()
}

/// What `--placeholders convert` makes of a text in `syntax`, numbered by the base (en).
fn converted(text: &str, base: &[&str], plural: bool, syntax: Syntax) -> String {
    let order = || Order::new(base.iter().copied(), plural);
    placeholders::convert(text, syntax, order, plural).into_owned()
}

// ------------------------------------------------------------------ arb

/// Every `.arb` file of `folder` by name.
fn arb_files(folder: &Path) -> BTreeMap<String, String> {
    (std::fs::read_dir(folder).unwrap())
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "arb"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn arb_files_pass_gen_l10n_rules_and_every_message_reads_back_in_formatjs_and_flutter() {
    let (_dir, out) = generate(&["-f", "arb", "--comments"]);
    let files = arb_files(&out);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["app_ar.arb", "app_en.arb", "app_pl.arb", "app_ru.arb"]
    );
    let read = node(
        "arb",
        json!({"files": files, "template": "app_en.arb", "useEscaping": true})
            .to_string()
            .as_bytes(),
    );
    for (locale, code) in LOCALES.iter().enumerate() {
        let name = format!("app_{code}.arb");
        let messages = &read[&name];
        let arb = read_arb(&Json::parse(&files[&name])).unwrap();
        assert_eq!(arb.locale, *code);
        let ids: Vec<&str> = arb.messages.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["appGreeting", "appBraces", "appPhotos"], "{code}");
        for (id, text) in [
            ("appGreeting", GREETING[locale]),
            ("appBraces", BRACES[locale]),
        ] {
            assert_eq!(
                formatjs_parts(&messages[id]),
                meaning(text),
                "formatjs {code} {id}"
            );
            let written = &arb.messages.iter().find(|(i, _)| i == id).unwrap().1;
            assert_eq!(
                read_flutter(written),
                Ok(Message::Plain(meaning(text))),
                "Flutter {code} {id}"
            );
        }
        let plural = &messages["appPhotos"][0];
        assert_eq!(plural["p"], "count", "{code}");
        let forms: BTreeMap<String, Vec<Part>> = (plural["o"].as_object().unwrap().iter())
            .map(|(category, parts)| (category.clone(), formatjs_parts(parts)))
            .collect();
        let want: BTreeMap<String, Vec<Part>> = photos(locale)
            .into_iter()
            .map(|(c, t)| (c, meaning(&t)))
            .collect();
        assert_eq!(forms, want, "formatjs {code}");
        let written = &arb.messages[2].1;
        let Ok(Message::Plural { arg, forms }) = read_arb_message(written) else {
            panic!("{written}");
        };
        assert_eq!(arg, "count");
        assert_eq!(
            forms.into_iter().collect::<BTreeMap<_, _>>(),
            want,
            "Flutter {code}"
        );
    }
    // the template describes its messages; the others hold texts only
    let template = Json::parse(&files["app_en.arb"]);
    assert_eq!(
        template.get("@appGreeting").get("description").text(),
        GREETING_COMMENT
    );
    let types = |id: &str, name: &str| {
        template
            .get(id)
            .get("placeholders")
            .get(name)
            .get("type")
            .text()
            .to_owned()
    };
    assert_eq!(types("@appGreeting", "name"), "String");
    assert_eq!(types("@appGreeting", "n"), "int");
    assert_eq!(types("@appPhotos", "count"), "int");
    assert_eq!(types("@appPhotos", "album"), "String");
    assert!(
        !files["app_pl.arb"].contains("\"@app"),
        "{}",
        files["app_pl.arb"]
    );
    // ARB is ICU whatever --placeholders says
    let (_dir, keep) = generate(&["-f", "arb", "--comments", "--placeholders", "keep"]);
    assert_eq!(arb_files(&keep), files);
}

#[test]
fn arb_of_regional_locales_gets_the_language_files_gen_l10n_falls_back_to() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sheet.csv"),
        ">>>,en_US,pl_PL,pt_BR,pt_PT,zh_Hant_TW\nHELLO,Hello,Cześć,Olá,Olá!,你好\n",
    )
    .unwrap();
    let out = run(
        dir.path(),
        &[
            "generate",
            "--source",
            "sheet.csv",
            "-f",
            "arb",
            "-p",
            "out",
            "--base",
            "pt_PT",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files = arb_files(&dir.path().join("out"));
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        [
            "app_en.arb",
            "app_en_US.arb",
            "app_pl.arb",
            "app_pt.arb",
            "app_pt_BR.arb",
            "app_zh.arb",
            "app_zh_Hant_TW.arb"
        ]
    );
    // pt_PT is Flutter's pt (its region repeats the language), the fallback of pt_BR;
    // en and zh fall back to their only locale
    assert!(
        files["app_pt.arb"].contains("\"Olá!\""),
        "{}",
        files["app_pt.arb"]
    );
    assert!(files["app_pt.arb"].starts_with("{\n  \"@@locale\": \"pt\",\n"));
    node(
        "arb",
        json!({"files": files, "template": "app_pt.arb", "useEscaping": true})
            .to_string()
            .as_bytes(),
    );
    // without the language file gen-l10n refuses the folder: the rule is checked
    let mut without = files.clone();
    without.remove("app_zh.arb");
    let refused = try_node(
        "arb",
        json!({"files": without, "template": "app_pt.arb", "useEscaping": true})
            .to_string()
            .as_bytes(),
    )
    .unwrap_err();
    assert!(
        refused.contains("Arb file for a fallback, zh, does not exist"),
        "{refused}"
    );
}

// ------------------------------------------------------------------ i18next

/// i18next's `resources` from the `<lng>/translation.json` files of `out`.
fn i18next_resources(out: &Path) -> Value {
    let mut resources = serde_json::Map::new();
    for code in LOCALES {
        let file = out.join(code).join("translation.json");
        let tree: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        resources.insert(code.to_owned(), json!({ "translation": tree }));
    }
    Value::Object(resources)
}

#[test]
fn i18next_gives_every_key_and_each_plural_category_for_its_sample_number() {
    for convert in [false, true] {
        let mode = if convert { "convert" } else { "keep" };
        let (_dir, out) = generate(&["-f", "i18next", "--placeholders", mode]);
        let mut calls = Vec::new();
        let mut want = Vec::new();
        for (locale, code) in LOCALES.iter().enumerate() {
            let values = [("name", "Ann".to_owned()), ("n", "7".to_owned())];
            for (key, text) in [
                ("APP.GREETING", GREETING[locale]),
                ("APP.BRACES", BRACES[locale]),
            ] {
                calls.push(json!([code, key, {"name": "Ann", "n": 7}]));
                want.push(if convert {
                    filled(text, &values)
                } else {
                    text.to_owned()
                });
            }
            for (category, text) in photos(locale) {
                let n = sample(code, &category);
                calls.push(json!([code, "APP.PHOTOS", {"count": n, "album": "Trip"}]));
                let values = [("count", n.to_string()), ("album", "Trip".to_owned())];
                want.push(if convert {
                    filled(&text, &values)
                } else {
                    text.clone()
                });
            }
        }
        let resources = i18next_resources(&out);
        let got = node(
            "i18next",
            json!({"resources": resources, "calls": calls})
                .to_string()
                .as_bytes(),
        );
        let got: Vec<String> = serde_json::from_value(got).unwrap();
        for ((call, got), want) in calls.iter().zip(&got).zip(&want) {
            assert_eq!(got, want, "{mode}: t{call}");
        }
        assert_eq!(
            resources["pl"]["translation"]["APP"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            [
                "GREETING",
                "BRACES",
                "PHOTOS_one",
                "PHOTOS_few",
                "PHOTOS_many",
                "PHOTOS_other"
            ]
        );
    }
}

// ------------------------------------------------------------------ xcstrings

#[test]
fn xcstrings_is_read_by_locize_xcstrings_and_laid_out_as_xcode_writes_it() {
    for convert in [false, true] {
        let mode = if convert { "convert" } else { "keep" };
        let (_dir, out) = generate(&["-f", "xcstrings", "--comments", "--placeholders", mode]);
        let files: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|f| f.unwrap().file_name())
            .collect();
        assert_eq!(files, ["Localizable.xcstrings"]);
        let body = std::fs::read_to_string(out.join("Localizable.xcstrings")).unwrap();
        let catalog = read_xcstrings(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
        assert_eq!(catalog.source_language, "en");
        let names: Vec<&str> = catalog.strings.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["app_braces", "app_greeting", "app_photos"]);
        let read = node("xcstrings", body.as_bytes());
        assert_eq!(read["sourceLng"], "en");
        let base_greeting = [GREETING[0]];
        let base_forms = photos(0);
        let base_photos: Vec<&str> = base_forms.values().map(String::as_str).collect();
        for (locale, code) in LOCALES.iter().enumerate() {
            let resources = &read["resources"][code];
            let text = |text: &str, base: &[&str], plural: bool| {
                if convert {
                    converted(text, base, plural, Syntax::Ios)
                } else {
                    text.to_owned()
                }
            };
            assert_eq!(
                resources["app_greeting"]["value"],
                text(GREETING[locale], &base_greeting, false)
            );
            assert_eq!(
                resources["app_braces"]["value"],
                text(BRACES[locale], &[BRACES[0]], false)
            );
            for (category, form) in photos(locale) {
                let key = format!("app_photos[variations.plural.{category}]");
                assert_eq!(
                    resources[&key]["value"],
                    text(&form, &base_photos, true),
                    "{code} {key}"
                );
            }
        }
        // the comment, as Xcode keeps it, read by the converter as the source's context
        assert_eq!(
            read["resources"]["en"]["app_greeting"]["context"]["text"],
            GREETING_COMMENT
        );
        let greeting = &catalog.strings[1];
        assert_eq!(greeting.comment.as_deref(), Some(GREETING_COMMENT));
        let languages: Vec<&str> = greeting
            .localizations
            .iter()
            .map(|(l, _)| l.as_str())
            .collect();
        assert_eq!(languages, ["ar", "en", "pl", "ru"]);
        let XcValue::Plural(forms) = &catalog.strings[2].localizations[0].1 else {
            panic!("a plural")
        };
        let categories: Vec<&str> = forms.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(categories, ["few", "many", "one", "other", "two", "zero"]);
    }
}

/// The reader's model of Xcode's layout (NSJSONSerialization's printing and key order,
/// which every catalog depot writes must match byte for byte) is Xcode's: the real
/// catalogs of tests/fixtures/xcstrings match it exactly too.
#[test]
fn the_layout_catalogs_are_checked_against_is_the_one_xcode_writes() {
    for fixture in ["maccy", "alare"] {
        let real = support::fixture_text(&format!("xcstrings/{fixture}.xcstrings"));
        app_readback::check_xcode_layout(&real).unwrap_or_else(|e| panic!("{fixture}: {e}"));
        // a catalog laid out otherwise is told apart
        let other = real.replacen("\" : ", "\": ", 1);
        assert!(
            app_readback::check_xcode_layout(&other).is_err(),
            "{fixture}"
        );
        assert!(
            app_readback::check_xcode_layout(&format!("{real}\n")).is_err(),
            "{fixture}"
        );
    }
}

// ------------------------------------------------------------------ over HTTP

fn translations(pairs: &[(&str, &str)]) -> String {
    format!("/translations?{}", query(pairs))
}

#[tokio::test]
async fn hostile_texts_read_back_exactly_over_http_in_xcstrings_arb_and_i18next() {
    let server = TestServer::start().await;
    server.put_sheet(sheet_rows("hostile")).await;
    let expected = Json::parse(&support::fixture_text("sheets/hostile.expected.json"));
    for (filters, locales) in [
        (vec![("filters[]", "en_US")], vec!["en_US"]),
        (vec![], vec!["en_US", "pl_PL"]),
    ] {
        for placeholders in ["keep", "convert"] {
            let ask = |format: &'static str| {
                let mut pairs = filters.clone();
                pairs.extend([("format", format), ("placeholders", placeholders)]);
                translations(&pairs)
            };
            // xcstrings: Xcode's layout, and what locize-xcstrings reads
            let reply = server.get(&ask("xcstrings"), &[]).await;
            assert_eq!(reply.status, 200, "{}", reply.text());
            assert_eq!(reply.header("content-type"), Some("application/json"));
            let catalog = read_xcstrings(&reply.text()).unwrap_or_else(|e| panic!("{e}"));
            let read = node("xcstrings", reply.body.as_slice());
            for locale in &locales {
                let language = if *locale == "pl_PL" { "pl" } else { "en-US" };
                for (path, text) in expected.get(locale).leaves() {
                    let name = format!("{}_{}", path[0], path[1]).to_lowercase();
                    let want = if placeholders == "convert" {
                        converted(
                            &text,
                            &[expected.get("en_US").get(&path[0]).get(&path[1]).text()],
                            false,
                            Syntax::Ios,
                        )
                    } else {
                        text.clone()
                    };
                    assert_eq!(read["resources"][language][&name]["value"], want, "{name}");
                    let string = catalog.strings.iter().find(|s| s.name == name).unwrap();
                    assert!(
                        string
                            .localizations
                            .contains(&(language.to_owned(), XcValue::Text(want.clone())))
                    );
                }
            }
            // arb: one file, or files keyed by locale; ICU as formatjs and Flutter read it
            let reply = server.get(&ask("arb"), &[]).await;
            assert_eq!(reply.status, 200, "{}", reply.text());
            let body = Json::parse(&reply.text());
            for locale in &locales {
                let file = if locales.len() == 1 {
                    &body
                } else {
                    body.get(&locale.replace("pl_PL", "pl"))
                };
                let arb = read_arb(file).unwrap();
                let texts = expected.get(locale).leaves();
                assert_eq!(arb.messages.len(), texts.len());
                for ((id, message), (_, text)) in arb.messages.iter().zip(&texts) {
                    let read = read_arb_message(message).unwrap_or_else(|e| panic!("{id}: {e}"));
                    assert_eq!(read, Message::Plain(meaning(text)), "{id}");
                }
                let messages: Vec<&str> = arb.messages.iter().map(|(_, m)| m.as_str()).collect();
                let asts = node("icu", serde_json::to_string(&messages).unwrap().as_bytes());
                assert_eq!(asts.as_array().unwrap().len(), texts.len());
            }
            // i18next itself gives every text (with `{braces}` filled when converted)
            let reply = server.get(&ask("i18next"), &[]).await;
            assert_eq!(reply.status, 200, "{}", reply.text());
            let body: Value = serde_json::from_slice(&reply.body).unwrap();
            let resources = if locales.len() == 1 {
                json!({"en-US": {"translation": body}})
            } else {
                body
            };
            let mut calls = Vec::new();
            let mut want = Vec::new();
            for locale in &locales {
                let lng = locale.replace('_', "-");
                for (path, text) in expected.get(locale).leaves() {
                    calls.push(json!([lng, path.join("."), {"braces": "B"}]));
                    want.push(if placeholders == "convert" {
                        filled(&text, &[("braces", "B".to_owned())])
                    } else {
                        text
                    });
                }
            }
            let got = node(
                "i18next",
                json!({"resources": resources, "calls": calls})
                    .to_string()
                    .as_bytes(),
            );
            let got: Vec<String> = serde_json::from_value(got).unwrap();
            assert_eq!(got, want, "{placeholders} {locales:?}");
        }
    }
}

#[tokio::test]
async fn app_formats_answer_json_with_their_own_etag_and_name_what_they_left_out() {
    let server = TestServer::start().await;
    let rows = |rows: &[&[&str]]| -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect()
    };
    server
        .put_sheet(rows(&[
            &[">>>", ">>>", "en", "pl"],
            &["X", "A_B", "first", "pierwszy"],
            &["X_A", "B", "second", "drugi"],
            &["LIST", "", "", ""],
            &["", "ITEMS_one", "plain", "zwykły"],
            &["", "ITEMS[one]", "one", "jeden"],
            &["", "ITEMS[other]", "other", "inne"],
        ]))
        .await;
    let mut etags = Vec::new();
    for format in ["json", "xcstrings", "arb", "i18next"] {
        let reply = server.get(&translations(&[("format", format)]), &[]).await;
        assert_eq!(reply.status, 200, "{format}: {}", reply.text());
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{format}"
        );
        etags.push(reply.header("etag").unwrap().to_owned());
        let warnings = reply
            .header("depot-warnings")
            .unwrap_or_default()
            .to_owned();
        match format {
            "arb" => assert!(
                warnings.contains("keys 'X.A_B' and 'X_A.B' both become the name 'xAB'"),
                "{warnings}"
            ),
            "i18next" => assert!(
                warnings.contains(
                    "'LIST.ITEMS_one' and 'LIST.ITEMS' both take the name 'ITEMS_one' in i18next"
                ),
                "{warnings}"
            ),
            "xcstrings" => assert!(
                warnings.contains("both become the name 'x_a_b'"),
                "{warnings}"
            ),
            _ => {}
        }
    }
    etags.sort();
    etags.dedup();
    assert_eq!(etags.len(), 4);
    // the /health list of what each format leaves out
    let health = server.get("/health", &[]).await;
    let health: Value = serde_json::from_slice(&health.body).unwrap();
    let render = &health["translations"]["renderWarnings"];
    assert_eq!(render["arb"].as_array().unwrap().len(), 1, "{render}");
    assert_eq!(render["i18next"].as_array().unwrap().len(), 1, "{render}");
    // a format that keys by language refuses a locale that is none, naming it
    server
        .put_sheet(rows(&[&[">>>", "English"], &["HELLO", "Hello"]]))
        .await;
    for format in ["xcstrings", "arb"] {
        let reply = server.get(&translations(&[("format", format)]), &[]).await;
        assert_eq!(reply.status, 422, "{format}");
        assert!(
            reply
                .error_message()
                .contains("locale 'English' is not one"),
            "{format}"
        );
    }
}

// ------------------------------------------------------------------ generate

fn files_under(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn generate_writes_each_formats_native_layout() {
    let (_dir, out) = generate(&["-f", "xcstrings,arb,i18next"]);
    assert_eq!(
        files_under(&out),
        [
            "Localizable.xcstrings",
            "app_ar.arb",
            "app_en.arb",
            "app_pl.arb",
            "app_ru.arb",
            "ar/translation.json",
            "en/translation.json",
            "pl/translation.json",
            "ru/translation.json",
        ]
    );
    let (_dir, out) = generate(&["-f", "xcstrings,arb,i18next", "-n", "Strings"]);
    assert_eq!(
        files_under(&out),
        [
            "Strings.xcstrings",
            "Strings_ar.arb",
            "Strings_en.arb",
            "Strings_pl.arb",
            "Strings_ru.arb",
            "ar/Strings.json",
            "en/Strings.json",
            "pl/Strings.json",
            "ru/Strings.json",
        ]
    );
    let (_dir, out) = generate(&["-f", "xcstrings,arb,i18next", "-l", "pl"]);
    assert_eq!(
        files_under(&out),
        [
            "translations.arb",
            "translations.json",
            "translations.xcstrings"
        ]
    );
    let pl: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("translations.json")).unwrap())
            .unwrap();
    assert_eq!(pl["APP"]["PHOTOS_few"], PHOTOS[3].1[1]);
    let (_dir, out) = generate(&["-f", "i18next,arb", "--merge"]);
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("translations.json")).unwrap())
            .unwrap();
    assert_eq!(merged["ru"]["translation"]["APP"]["BRACES"], BRACES[2]);
    let arb: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("translations.arb")).unwrap())
            .unwrap();
    assert_eq!(arb["ar"]["@@locale"], "ar");
}

#[test]
fn checks_name_arb_and_i18next_clashes_and_namespace_separators_with_their_cells() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = "\
>>>,>>>,en
X,,
,A_B,a
X_A,,
,B,b
LIST,,
,ITEMS_one,plain
,ITEMS[one],one
,ITEMS[other],other
NS:KEY,,
,K,k
";
    std::fs::write(dir.path().join("sheet.csv"), sheet).unwrap();
    let out = run(
        dir.path(),
        &[
            "generate",
            "--source",
            "sheet.csv",
            "-f",
            "arb",
            "-p",
            "out",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let finding = |cell: &str, needle: &str| {
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("depot: finding: {cell} ")) && l.contains(needle)),
            "no finding {cell} {needle:?} in:\n{err}"
        );
    };
    finding("B5", "both become the name \"xAB\" in arb");
    finding("B8", "both become the name \"ITEMS_one\" in i18next");
    finding(
        "B11",
        "i18next reads ':' in a key as its namespace separator",
    );
    finding("B5", "in android, ios, stringsdict, xcstrings, xlf and po");
}
