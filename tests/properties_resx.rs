//! properties and resx (SPEC §11) read back by their real consumers, from the files
//! `depot generate` writes and the bodies `GET /translations` serves: the JDK
//! (`Properties.load`, `ResourceBundle` over the generated layout, `MessageFormat`) and
//! mono (`resgen` compiles every `.resx`, a `ResourceManager` reads each text back,
//! `string.Format` fills converted placeholders, and MSBuild's own way of reading a `.resx`
//! runs on mono's System.Xml). The consumers run small programs kept beside the tests
//! (tests/java/ReadBack.java, tests/dotnet/ReadBack.cs), compiled into a temporary folder
//! (tests/support/jvm_mono.rs).
//! The readers the unit tests use (tests/support/readback_properties_resx.rs) are held
//! against the same consumers here. A missing tool fails the test with the way to install
//! it (`scripts/test` installs them all).
#![cfg(test)]

mod support;

#[path = "support/readback_properties_resx.rs"]
mod readback_properties_resx;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use depot::model::placeholders::{self, Order, Syntax};
use readback_properties_resx::{csharp_name, read_properties, read_resx, read_resx_as_each_reader};
use serde_json::{Value, json};
use support::jvm_mono::{dotnet, java, resgen};
use support::run;

/// Texts that break naive writers of the two formats, in en_US and pl_PL: whitespace
/// alone (which MSBuild drops unless written as decimal references), what `Properties.load`
/// reads as separators, comment marks, escapes and continuations, controls (NUL too: Java
/// and .NET strings hold it), CR, non-characters, text beyond the BMP.
const EXTRA: [&str; 24] = [
    " ",
    "\t",
    "\n",
    "  \t \n ",
    "\r",
    "a\u{1}b\u{7}c\u{1f}",
    "nul\u{0}here",
    "cr\r\nlf\rcr",
    "\u{FFFF}\u{FFFE}\u{FEFF}",
    "=starts with equals",
    ":colon",
    "#hash",
    "!bang",
    "   three leading",
    "trailing backslash\\",
    "\\u0041 literal backslash-u",
    "zażółć 🎉 👍🏽 \u{10FFFF}",
    "\u{2028}\u{2029}\u{85}",
    "line\\\ncontinued?",
    "a=b:c d\te\u{c}f",
    "&amp; <![CDATA[x]]> ]]>",
    "\u{7f}\u{80}\u{9f}",
    "{{literal}} it's",
    "'quoted'",
];

/// A comment that breaks naive writers: marks, backslashes, line breaks, non-ASCII.
const NOTE: &str = "note: it's # not ! a \\ comment\r\nsecond line é -- <b>&</b>\\";

/// `APP.TITLE` and `APP.QUOTE`, with placeholders the translations reorder and quotes and
/// literal braces MessageFormat and string.Format read specially.
const TITLE: [&str; 4] = [
    "{name} has {n:int} files",
    "{n:int} plików ma {name}",
    "{name}: {n:int} файлов",
    "{name} لديه {n:int} ملفات",
];
const QUOTE: [&str; 4] = [
    "It's {name}'s {{x}}",
    // braces side by side, an apostrophe after one: one quoted run to MessageFormat
    "To {{{{x}}}}' od {name}",
    "'{name}' {{x}}",
    "{name}'s {{x}}",
];

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

/// One key of the sheet: its path, comment, and per locale its text ("" = none); a plural
/// entry's category in `category`.
struct Key {
    path: [String; 2],
    category: Option<&'static str>,
    comment: Option<&'static str>,
    texts: [String; 4],
}

fn keys() -> Vec<Key> {
    let hostile: Value =
        serde_json::from_str(&support::fixture_text("sheets/hostile.expected.json")).unwrap();
    let mut keys = Vec::new();
    let hostile_keys = hostile["en_US"]["HOSTILE"].as_object().unwrap();
    for (name, text) in hostile_keys {
        let pl = hostile["pl_PL"]["HOSTILE"][name].as_str().unwrap();
        keys.push(Key {
            path: ["HOSTILE".into(), name.clone()],
            category: None,
            comment: None,
            texts: [
                text.as_str().unwrap().into(),
                pl.into(),
                String::new(),
                String::new(),
            ],
        });
    }
    for (i, text) in EXTRA.iter().enumerate() {
        keys.push(Key {
            path: ["EXTRA".into(), format!("E{:02}", i + 1)],
            category: None,
            comment: (i % 5 == 0).then_some(NOTE),
            texts: [
                text.to_string(),
                format!("{text}pl"),
                String::new(),
                String::new(),
            ],
        });
    }
    for (name, texts) in [("TITLE", TITLE), ("QUOTE", QUOTE)] {
        keys.push(Key {
            path: ["APP".into(), name.into()],
            category: None,
            comment: Some(NOTE),
            texts: texts.map(String::from),
        });
    }
    for (category, texts) in FILES {
        keys.push(Key {
            path: ["APP".into(), "FILES".into()],
            category: Some(category),
            comment: None,
            texts: texts.map(String::from),
        });
    }
    keys
}

/// The sheet as a `values.get` document (it holds any character, NUL included).
fn write_sheet(dir: &Path) {
    let mut rows = vec![json!(["$$$", ">>>", ">>>", "en_US", "pl_PL", "ru", "ar"])];
    let mut section = String::new();
    for key in keys() {
        if key.path[0] != section {
            section = key.path[0].clone();
            rows.push(json!(["", section]));
        }
        let name = match key.category {
            Some(category) => format!("{}[{category}]", key.path[1]),
            None => key.path[1].clone(),
        };
        let mut row = vec![key.comment.unwrap_or("").to_owned(), String::new(), name];
        row.extend(key.texts.iter().cloned());
        rows.push(json!(row));
    }
    let sheet = json!({"range": "Sheet1!A1:G200", "majorDimension": "ROWS", "values": rows});
    std::fs::write(dir.join("sheet.json"), sheet.to_string()).unwrap();
}

/// What a file of `locale` must hold: name → text (converted with `syntax` when given).
fn expected(
    locale: usize,
    name_of: impl Fn(&[String], Option<&str>) -> String,
    syntax: Option<Syntax>,
) -> BTreeMap<String, String> {
    let keys = keys();
    let mut out = BTreeMap::new();
    for key in &keys {
        let text = &key.texts[locale];
        if text.is_empty() {
            continue;
        }
        let text = match syntax {
            None => text.clone(),
            Some(syntax) => {
                // numbered by the base locale's text(s): a plural entry's every form
                let base = (keys.iter())
                    .filter(|k| k.path == key.path && !k.texts[0].is_empty())
                    .map(|k| k.texts[0].as_str());
                let plural = key.category.is_some();
                let order = || Order::new(base, plural);
                placeholders::convert(text, syntax, order, plural).into_owned()
            }
        };
        out.insert(name_of(&key.path, key.category), text);
    }
    out
}

fn properties_name(path: &[String], category: Option<&str>) -> String {
    let mut name = path.join(".").to_lowercase();
    if let Some(category) = category {
        name = format!("{name}.{category}");
    }
    name
}

fn resx_name(path: &[String], category: Option<&str>) -> String {
    let segments = path.iter().map(String::as_str).chain(category);
    segments.map(csharp_name).collect::<Vec<_>>().join("_")
}

/// `depot generate` of the sheet into a new folder `out`; the run must succeed.
fn generate(format: &str, convert: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    write_sheet(dir.path());
    let mode = if convert { "convert" } else { "keep" };
    let args = [
        "generate",
        "--source",
        "sheet.json",
        "-f",
        format,
        "--base",
        "en",
        "--comments",
        "--placeholders",
        mode,
        "-p",
        "out",
    ];
    let output = run(dir.path(), &args);
    assert!(
        output.status.success(),
        "generate -f {format}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = dir.path().join("out");
    (dir, out)
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn as_map(value: &Value) -> BTreeMap<String, String> {
    serde_json::from_value(value.clone()).unwrap()
}

// ------------------------------------------------------------------ properties

/// Every generated `.properties` file (each locale's `messages_<locale>.properties` and the
/// base's `messages.properties`) is read by `Properties.load` as exactly the sheet's texts
/// (converted to MessageFormat with `--placeholders convert`), under the dotted names;
/// `ResourceBundle.getBundle` finds each locale's file by Java's own naming and reads the
/// same; our model of `Properties.load` reads what the JDK reads.
#[test]
fn generated_properties_are_read_back_exactly_by_properties_load_and_resource_bundle() {
    for convert in [false, true] {
        let syntax = convert.then_some(Syntax::MessageFormat);
        let (_dir, out) = generate("properties", convert);
        let files = files_in(&out);
        assert_eq!(
            files,
            [
                "messages.properties",
                "messages_ar.properties",
                "messages_en_US.properties",
                "messages_pl_PL.properties",
                "messages_ru.properties"
            ]
        );
        let loaded = java(
            &[
                &["load"],
                &files.iter().map(String::as_str).collect::<Vec<_>>()[..],
            ]
            .concat(),
            &out,
        );
        let by_file = [
            ("messages.properties", 0),
            ("messages_en_US.properties", 0),
            ("messages_pl_PL.properties", 1),
            ("messages_ru.properties", 2),
            ("messages_ar.properties", 3),
        ];
        for (file, locale) in by_file {
            let want = expected(locale, properties_name, syntax);
            let got = as_map(&loaded[file]);
            assert_eq!(got, want, "{file} convert={convert}");
            // the model the unit tests read with reads the same
            let body = std::fs::read_to_string(out.join(file)).unwrap();
            let model: BTreeMap<String, String> = (read_properties(&body).unwrap().into_iter())
                .map(|p| (p.name, p.text))
                .collect();
            assert_eq!(model, got, "{file}");
            assert!(body.is_ascii(), "{file} is not ASCII");
            // the comment, ASCII and one `#` per line (never continued by its backslash)
            let note = "# note: it's # not ! a \\ comment\n# second line \\u00E9 -- <b>&</b>\\\n";
            assert!(body.contains(note), "{file}:\n{body}");
        }
        let bundles = java(
            &["bundle", ".", "messages", "en-US", "pl-PL", "ru", "ar", ""],
            &out,
        );
        for (tag, locale, java_locale) in [
            ("en-US", 0, "en-US"),
            ("pl-PL", 1, "pl-PL"),
            ("ru", 2, "ru"),
            ("ar", 3, "ar"),
            ("", 0, "und"),
        ] {
            assert_eq!(bundles[tag]["locale"], java_locale, "{tag}");
            let want = expected(locale, properties_name, syntax);
            assert_eq!(
                as_map(&bundles[tag]["texts"]),
                want,
                "bundle {tag:?} convert={convert}"
            );
        }
    }
}

/// With `--placeholders convert`, `MessageFormat` fills each placeholder of a text with
/// the value of the same name, numbered by the base locale's text even where a translation
/// reorders them; quotes and literal braces come out as the sheet wrote them.
#[test]
fn message_format_fills_converted_placeholders_in_the_base_locales_order() {
    let (_dir, out) = generate("properties", true);
    let format = |tag: &str, key: &str, args: &[&str]| -> String {
        let mut all = vec!["format", ".", "messages", tag, key];
        all.extend_from_slice(args);
        java(&all, &out)["text"].as_str().unwrap().to_owned()
    };
    // base order: {name} is {0}, {n} is {1}
    assert_eq!(
        format("en-US", "app.title", &["Ala", "int:3"]),
        "Ala has 3 files"
    );
    assert_eq!(
        format("pl-PL", "app.title", &["Ala", "int:3"]),
        "3 plików ma Ala"
    );
    assert_eq!(
        format("ru", "app.title", &["Ala", "int:5"]),
        "Ala: 5 файлов"
    );
    assert_eq!(format("en-US", "app.quote", &["Ala"]), "It's Ala's {x}");
    assert_eq!(format("ru", "app.quote", &["Ala"]), "'Ala' {x}");
    assert_eq!(format("pl-PL", "app.quote", &["Ala"]), "To {{x}}' od Ala");
    // a plural form: the quantity is {0}, then the base order
    assert_eq!(
        format("pl-PL", "app.files.few", &["int:3", "Dokumenty"]),
        "3 pliki w Dokumenty"
    );
    assert_eq!(
        format("en-US", "app.files.one", &["int:1", "Docs"]),
        "One file in Docs & it's <new>"
    );
    assert_eq!(format("ar", "app.files.two", &["int:2", "X"]), "ملفان في X");
}

// ------------------------------------------------------------------ resx

/// Every generated `.resx` (each culture's `Strings.<culture>.resx` and the base's
/// `Strings.resx`) compiles with `resgen`, and a `ResourceManager` over the compiled files
/// reads each culture's texts as exactly the sheet's (converted to composite format with
/// `--placeholders convert`) under C# identifier names; MSBuild's way of reading a `.resx`
/// reads the same; our model of both reads what they read.
#[test]
fn generated_resx_compile_with_resgen_and_read_back_through_resource_manager() {
    for convert in [false, true] {
        let syntax = convert.then_some(Syntax::Composite);
        let (_dir, out) = generate("resx", convert);
        let files = files_in(&out);
        assert_eq!(
            files,
            [
                "Strings.ar.resx",
                "Strings.en-US.resx",
                "Strings.pl-PL.resx",
                "Strings.resx",
                "Strings.ru.resx"
            ]
        );
        for file in &files {
            resgen(&out, file.trim_end_matches(".resx"));
        }
        let read = dotnet(
            &["manager", ".", "Strings", "", "en-US", "pl-PL", "ru", "ar"],
            &out,
        );
        let msbuild = dotnet(
            &[
                &["msbuild"],
                &files.iter().map(String::as_str).collect::<Vec<_>>()[..],
            ]
            .concat(),
            &out,
        );
        for (culture, file, locale) in [
            ("", "Strings.resx", 0),
            ("en-US", "Strings.en-US.resx", 0),
            ("pl-PL", "Strings.pl-PL.resx", 1),
            ("ru", "Strings.ru.resx", 2),
            ("ar", "Strings.ar.resx", 3),
        ] {
            let want = expected(locale, resx_name, syntax);
            assert_eq!(
                as_map(&read[culture]),
                want,
                "{culture:?} convert={convert}"
            );
            assert_eq!(as_map(&msbuild[file]), want, "MSBuild {file}");
            let body = std::fs::read_to_string(out.join(file)).unwrap();
            let pairs = read_resx(&body).unwrap().pairs;
            // the comment as written, its CR LF made one line break
            let title = pairs.iter().find(|p| p.name == "App_Title").unwrap();
            assert_eq!(
                title.comment.as_deref(),
                Some(NOTE.replace("\r\n", "\n").as_str())
            );
            let model: BTreeMap<String, String> =
                pairs.into_iter().map(|p| (p.name, p.text)).collect();
            assert_eq!(model, want, "{file}");
        }
    }
}

/// With `--placeholders convert`, `string.Format` fills each placeholder with the value of
/// the same name, numbered by the base locale's text even where a translation reorders
/// them; literal braces come out as the sheet wrote them.
#[test]
fn string_format_fills_converted_placeholders_in_the_base_locales_order() {
    let (_dir, out) = generate("resx", true);
    for file in files_in(&out) {
        resgen(&out, file.trim_end_matches(".resx"));
    }
    let format = |culture: &str, name: &str, args: &[&str]| -> String {
        let mut all = vec!["format", ".", "Strings", culture, name];
        all.extend_from_slice(args);
        dotnet(&all, &out)["text"].as_str().unwrap().to_owned()
    };
    assert_eq!(
        format("en-US", "App_Title", &["Ala", "int:3"]),
        "Ala has 3 files"
    );
    assert_eq!(
        format("pl-PL", "App_Title", &["Ala", "int:3"]),
        "3 plików ma Ala"
    );
    assert_eq!(format("pl-PL", "App_Quote", &["Ala"]), "To {{x}}' od Ala");
    assert_eq!(format("en-US", "App_Quote", &["Ala"]), "It's Ala's {x}");
    assert_eq!(
        format("pl-PL", "App_Files_Few", &["int:3", "Dokumenty"]),
        "3 pliki w Dokumenty"
    );
    assert_eq!(format("ar", "App_Files_Two", &["int:2", "X"]), "ملفان في X");
}

// ------------------------------------------------------------------ the models

/// What the unit tests' readers assume of `Properties.load` and of the resx readers holds
/// for the real ones, on text no writer of ours would make: continuations, comments that
/// end in a backslash, every separator form, escapes; references to controls and to
/// whitespace in every form.
#[test]
fn the_test_readers_read_what_the_jdk_resgen_and_msbuild_read() {
    let dir = tempfile::tempdir().unwrap();
    let properties = "# a comment \\\n  ! another \\\nkey = value\\\n    continued\\\\\na\\ b:c\\:d\n\
                      e\t\tf\ng\n h=\\u0041\\t\\\\x\\q\r\nsurrogates=\\uD83C\\uDF89\\\r\n\
                      \tnext\\n line\n\u{c}j :=\\=\nk\\\n\nlast=\\ \\ kept  \\";
    std::fs::write(dir.path().join("edge.properties"), properties).unwrap();
    let model: BTreeMap<String, String> = (read_properties(properties).unwrap().into_iter())
        .map(|p| (p.name, p.text))
        .collect();
    let jdk = java(&["load", "edge.properties"], dir.path());
    assert_eq!(as_map(&jdk["edge.properties"]), model);
    assert_eq!(model.len(), 9, "{model:?}");

    let values = [
        ("Space", " "),
        ("SpaceHex", "&#x20;"),
        ("SpaceDecimal", "&#32;"),
        ("Tab", "\t"),
        ("TabDecimal", "&#9;"),
        ("Mixed", " &#32;\t"),
        ("Controls", "a&#1;b&#0;c&#x7;&#65535;"),
        ("Cr", "a&#13;b&#xD;"),
        ("Entities", "&amp;&lt;&gt;&quot;&apos; x"),
        ("Padded", "  a  b  "),
        ("Empty", ""),
    ];
    let mut resx = String::from(
        "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root>\n\
         <xsd:schema id=\"root\" xmlns=\"\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"></xsd:schema>\n",
    );
    for (name, value) in [
        ("resmimetype", "text/microsoft-resx"),
        ("version", "2.0"),
        (
            "reader",
            "System.Resources.ResXResourceReader, System.Windows.Forms, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089",
        ),
        (
            "writer",
            "System.Resources.ResXResourceWriter, System.Windows.Forms, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089",
        ),
    ] {
        resx.push_str(&format!(
            "  <resheader name=\"{name}\">\n    <value>{value}</value>\n  </resheader>\n"
        ));
    }
    for (name, value) in values {
        resx.push_str(&format!(
            "  <data name=\"{name}\" xml:space=\"preserve\">\n    <value>{value}</value>\n  </data>\n"
        ));
    }
    resx.push_str("</root>");
    std::fs::write(dir.path().join("Edge.resx"), &resx).unwrap();
    resgen(dir.path(), "Edge");
    let model = read_resx_as_each_reader(&resx).unwrap();
    let resx_reader: BTreeMap<String, String> = (model.pairs.iter())
        .map(|p| (p.name.clone(), p.text.clone()))
        .collect();
    let msbuild_reader: BTreeMap<String, String> = (model.pairs.iter())
        .zip(&model.msbuild)
        .map(|(p, text)| (p.name.clone(), text.clone()))
        .collect();
    let read = dotnet(&["manager", ".", "Edge", ""], dir.path());
    assert_eq!(as_map(&read[""]), resx_reader);
    let msbuild = dotnet(&["msbuild", "Edge.resx"], dir.path());
    assert_eq!(as_map(&msbuild["Edge.resx"]), msbuild_reader);
    // the two disagree on whitespace alone, unless it is decimal references
    assert_eq!(resx_reader["SpaceHex"], " ");
    assert_eq!(msbuild_reader["SpaceHex"], "");
    assert_eq!(msbuild_reader["SpaceDecimal"], " ");
    assert!(
        read_resx(&resx).is_err(),
        "read_resx refuses what they read differently"
    );
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

/// Over HTTP: each format's Content-Type; one locale without a prefix, several (or
/// `keepLocale=true`) with the locale's (`en_us.app.title`, `En_Us_App_Title`); comments,
/// conversion, fallback; a plural form's name that meets a key's is left out with a
/// `Depot-Warnings` header naming it, listed in `/health` and found by the checks with its
/// cell; an unknown format lists these two.
#[tokio::test]
async fn http_serves_properties_and_resx_with_names_warnings_and_options() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sheet.csv"),
        "$$$,>>>,>>>,en_US,pl_PL\n\
         ,APP,,,\n\
         A note,,TITLE,{name} has {n:int} files,{n:int} plików ma {name}\n\
         ,,ONLY_EN,English only,\n\
         ,,ITEMS[one],One item,Jeden\n\
         ,,ITEMS[other],{count} items,{count} rzeczy\n\
         ,,ITEMS_ONE,clashes in resx,koliduje\n",
    )
    .unwrap();
    let daemon = support::Daemon::start(
        dir.path(),
        &[
            "--set",
            "producer.source=sheet.csv",
            "--set",
            "translations.fallback=*=en_US",
        ],
        &[],
    )
    .await;

    let one = served(&daemon, "?format=properties&filters[]=pl_PL&comments=true").await;
    assert_eq!(
        one.headers()["content-type"],
        "text/x-java-properties; charset=iso-8859-1"
    );
    assert!(one.headers().get("depot-warnings").is_none());
    assert_eq!(
        one.text().await.unwrap(),
        "# A note\napp.title={n\\:int} plik\\u00F3w ma {name}\napp.items.one=Jeden\n\
         app.items.other={count} rzeczy\napp.items_one=koliduje\n"
    );
    let converted = served(
        &daemon,
        "?format=properties&filters[]=pl_PL&placeholders=convert&fallback=true",
    )
    .await;
    let pairs = read_properties(&converted.text().await.unwrap()).unwrap();
    let texts: Vec<(&str, &str)> = pairs
        .iter()
        .map(|p| (p.name.as_str(), p.text.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            ("app.title", "{1} plik\u{f3}w ma {0}"),
            ("app.only_en", "English only"),
            ("app.items.one", "Jeden"),
            ("app.items.other", "{0} rzeczy"),
            ("app.items_one", "koliduje")
        ]
    );
    let several = served(
        &daemon,
        "?format=properties&filters[]=en_US.APP.TITLE&filters[]=pl_PL.APP.TITLE",
    )
    .await;
    assert_eq!(
        several.text().await.unwrap(),
        "en_us.app.title={name} has {n\\:int} files\npl_pl.app.title={n\\:int} plik\\u00F3w ma {name}\n"
    );
    let kept = served(
        &daemon,
        "?format=properties&filters[]=pl_PL.APP.TITLE&keepLocale=true",
    )
    .await;
    assert_eq!(
        kept.text().await.unwrap(),
        "pl_pl.app.title={n\\:int} plik\\u00F3w ma {name}\n"
    );

    let resx = served(&daemon, "?format=resx&filters[]=en_US").await;
    assert_eq!(
        resx.headers()["content-type"],
        "application/xml; charset=utf-8"
    );
    let warnings = resx.headers()["depot-warnings"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        warnings
            .contains("keys 'APP.ITEMS' and 'APP.ITEMS_ONE' both become the name 'App_Items_One'"),
        "{warnings}"
    );
    let names: Vec<String> = (read_resx(&resx.text().await.unwrap())
        .unwrap()
        .pairs
        .into_iter())
    .map(|p| p.name)
    .collect();
    assert_eq!(
        names,
        [
            "App_Title",
            "App_Only_En",
            "App_Items_One",
            "App_Items_Other"
        ]
    );
    let both = served(
        &daemon,
        "?format=resx&filters[]=APP.TITLE&placeholders=convert",
    )
    .await;
    let pairs = read_resx(&both.text().await.unwrap()).unwrap().pairs;
    let texts: Vec<(&str, &str)> = pairs
        .iter()
        .map(|p| (p.name.as_str(), p.text.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            ("En_Us_App_Title", "{0} has {1} files"),
            ("Pl_Pl_App_Title", "{1} plik\u{f3}w ma {0}")
        ]
    );

    let bad = served(&daemon, "?format=java").await;
    assert_eq!(bad.status(), 400);
    assert!(
        bad.text()
            .await
            .unwrap()
            .contains("stringsdict, xcstrings, arb, i18next, properties, resx")
    );

    let (_, health) = daemon.get_json("/health").await;
    let render_warnings = &health["translations"]["renderWarnings"];
    assert!(
        render_warnings["resx"][0]
            .as_str()
            .unwrap()
            .contains("'App_Items_One'"),
        "{render_warnings}"
    );
    assert!(
        render_warnings.get("properties").is_none(),
        "{render_warnings}"
    );
    let findings = health["translations"]["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["cell"] == "C7"
            && f["message"]
                .as_str()
                .unwrap()
                .contains("both become the name \"App_Items_One\" in resx")),
        "{findings:?}"
    );
}
