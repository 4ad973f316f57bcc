//! Names as the app has them (SPEC §12.1), per format family: an app's files whose keys
//! depot's own naming would change (dots, dashes, spaces at both ends, a newline, `%@`,
//! whole sentences, keys that differ only in case, non-ASCII, 1,000-character keys) go
//! through `depot import`, then `depot generate` with no flags but the format and the
//! app's paths, and the format's own consumer (aapt2, GNUstep, the JDK's ResourceBundle,
//! mono's ResourceManager, msgfmt and gettext, i18next, the ARB rules) reads every key of
//! the original again with its text.
#![cfg(test)]

mod support;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use proptest::prelude::*;
use serde_json::json;
use support::real_apps::{Reading, Text, android, arb, i18next, ios, po, properties, resx};

/// The app's two locales: the base one and a translation.
const LOCALES: [&str; 2] = ["en", "de"];

/// A key depot's naming (lower-cased, levels at `.` joined with `_`, trimmed) changes.
fn hostile_key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z][A-Za-z0-9]{0,6}(\\.[A-Za-z][A-Za-z0-9]{0,6}){1,3}",
        "[a-z]{1,5}-[A-Za-z]{1,5}",
        " [A-Za-z]{1,6} ",
        "[a-z]{1,5}\n[a-z]{1,5}",
        "[A-Za-z ]{0,6}%@[a-z ]{0,6}",
        "[A-Z][a-z]{2,8} [a-z]{2,8}\\.",
        "[żółćéü日本]{1,4}[a-zA-Z]{0,3}",
        Just(format!("K{}", "x".repeat(999))),
    ]
}

/// Distinct hostile keys, the first one also with its case swapped (a case-only pair).
fn hostile_keys() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(hostile_key(), 1..7).prop_map(with_case_pair)
}

fn with_case_pair(mut keys: Vec<String>) -> Vec<String> {
    let swapped: String = (keys[0].chars())
        .map(|c| match c.is_uppercase() {
            true => c.to_lowercase().next().unwrap_or(c),
            false => c.to_uppercase().next().unwrap_or(c),
        })
        .collect();
    keys.push(swapped);
    let mut seen = BTreeSet::new();
    keys.retain(|k| seen.insert(k.clone()));
    keys
}

/// Each key's text in `locale`.
fn text(locale: &str, n: usize) -> String {
    format!("{locale} text {n} ü")
}

/// The round trip: the app's files (written by `write` into `app/`), imported with
/// `import` (paths relative to the app), generated into `out/` by each of `generate`
/// (`-p` relative to `out/`), then every key of `keys` must be read by `read` (given the
/// root) from the generated tree with the text it has in the app; and the consumer must
/// read the app's own files alike (the test's files are valid to it).
fn round_trip(
    keys: &[String],
    write: impl Fn(&Path),
    import: &[&str],
    generate: &[&[&str]],
    read: impl Fn(&Path) -> Reading,
) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let (app, out) = (dir.path().join("app"), dir.path().join("out"));
    write(&app);
    let original = read(&app).map_err(|e| TestCaseError::fail(format!("the app: {e}")))?;
    for (l, locale) in LOCALES.iter().enumerate() {
        for (n, key) in keys.iter().enumerate() {
            let want = Text::Plain(text(locale, n));
            let got = original.get(*locale).and_then(|t| t.get(key));
            prop_assert_eq!(
                got,
                Some(&want),
                "the app's own {} {:?} ({})",
                locale,
                key,
                l
            );
        }
    }
    let mut args: Vec<String> = vec!["import".into()];
    let mut import = import.iter();
    while let Some(arg) = import.next() {
        match arg.starts_with('-') {
            // a flag and its value as they are
            true => args.extend([*arg, import.next().unwrap()].map(str::to_owned)),
            false => args.push(format!("app/{arg}")),
        }
    }
    args.extend(["--to".into(), "sheet.csv".into()]);
    depot_ok(dir.path(), &args)?;
    for run in generate {
        let mut args: Vec<String> = vec!["generate".into(), "--source".into(), "sheet.csv".into()];
        let mut run = run.iter();
        while let Some(arg) = run.next() {
            args.push((*arg).to_owned());
            if *arg == "-p" {
                args.push(format!("out/{}", run.next().unwrap()));
            }
        }
        depot_ok(dir.path(), &args)?;
    }
    let sheet = std::fs::read_to_string(dir.path().join("sheet.csv")).unwrap();
    let again = read(&out).map_err(|e| TestCaseError::fail(format!("{e}\nsheet:\n{sheet}")))?;
    for locale in LOCALES {
        for (n, key) in keys.iter().enumerate() {
            let got = again.get(locale).and_then(|t| t.get(key));
            let want = Text::Plain(text(locale, n));
            prop_assert_eq!(
                got,
                Some(&want),
                "{} {:?}; the sheet:\n{}",
                locale,
                key,
                sheet
            );
        }
    }
    Ok(())
}

fn depot_ok(dir: &Path, args: &[String]) -> Result<(), TestCaseError> {
    let out = support::depot(dir).args(args).output().unwrap();
    prop_assert!(
        out.status.success(),
        "depot {:?}: {}",
        args,
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

fn write(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
}

/// Each locale's file (at `path(locale)` in the app) of one `line(key, text)` per key.
fn write_lines(
    app: &Path,
    keys: &[String],
    path: impl Fn(&str) -> String,
    line: impl Fn(&str, &str) -> String,
) {
    for locale in LOCALES {
        let mut body = String::new();
        for (n, key) in keys.iter().enumerate() {
            body.push_str(&line(key, &text(locale, n)));
            body.push('\n');
        }
        write(&app.join(path(locale)), &body);
    }
}

fn xml_escaped(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            c => out.push(c),
        }
    }
    out
}

/// A `"…"` string of .strings, po and JSON alike: `\\`, `\"` and `\n` escaped.
fn c_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

// ------------------------------------------------------------------ the families

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// iOS `.strings` read by GNUstep.
    #[test]
    fn strings_keys_come_back_as_gnustep_reads_them(keys in hostile_keys()) {
        round_trip(
            &keys,
            |app| write_lines(app, &keys, |l| format!("{l}.lproj/Localizable.strings"), |key, text| {
                format!("{} = {};", c_quoted(key), c_quoted(text))
            }),
            &["."],
            &[&["-f", "ios", "-p", ".", "--base", "en"]],
            ios,
        )?;
    }

    /// Java `.properties` read by the JDK's ResourceBundle.
    #[test]
    fn properties_keys_come_back_as_resource_bundle_reads_them(keys in hostile_keys()) {
        round_trip(
            &keys,
            |app| write_lines(app, &keys, |l| format!("l10n/messages_{l}.properties"), |key, text| {
                format!("{}={}", properties_escaped(key, true), properties_escaped(text, false))
            }),
            &["l10n"],
            &[&["-f", "properties", "-n", "messages", "-p", "l10n"]],
            |root| properties(root, "l10n/messages", &LOCALES),
        )?;
    }

    /// gettext `.po` compiled by msgfmt and read by gettext.
    #[test]
    fn po_msgids_come_back_as_gettext_reads_them(keys in hostile_keys()) {
        let locales = ["de", "pl"];
        round_trip_po(&keys, &locales)?;
    }

    /// i18next JSON with the app's `keySeparator: false`, read by i18next.
    #[test]
    fn i18next_flat_keys_come_back_as_i18next_reads_them(keys in hostile_keys()) {
        // i18next reads `_one`, `_other`, … at a key's end as a plural suffix
        let keys: Vec<String> = keys.into_iter().filter(|k| !k.ends_with("_one")).collect();
        round_trip(
            &keys,
            |app| {
                for locale in LOCALES {
                    let object: serde_json::Map<String, serde_json::Value> = (keys.iter().enumerate())
                        .map(|(n, k)| (k.clone(), json!(text(locale, n))))
                        .collect();
                    write(&app.join(format!("locale/{locale}.json")), &serde_json::Value::Object(object).to_string());
                }
            },
            &["locale", "--format", "i18next"],
            &[
                &["-f", "i18next", "-l", "en", "-n", "en", "-p", "locale"],
                &["-f", "i18next", "-l", "de", "-n", "de", "-p", "locale"],
            ],
            |root| i18next(&root.join("locale"), &json!({"keySeparator": false, "nsSeparator": false, "fallbackLng": false})),
        )?;
    }
}

proptest! {
    // resgen and mono start slowly
    #![proptest_config(ProptestConfig::with_cases(4))]

    /// .NET `.resx` compiled by resgen and read by mono's ResourceManager. Names that
    /// differ only in case are one resource to resgen, so the pair is left out.
    #[test]
    fn resx_names_come_back_as_resource_manager_reads_them(keys in hostile_keys()) {
        let mut seen = BTreeSet::new();
        let keys: Vec<String> = keys.into_iter().filter(|k| seen.insert(k.to_lowercase())).collect();
        let header = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("src/formats/resx/header.xml"),
        )
        .unwrap();
        round_trip(
            &keys,
            |app| {
                for (locale, stem) in [("en", "Resources"), ("de", "Resources.de")] {
                    let mut body = header.clone();
                    for (n, key) in keys.iter().enumerate() {
                        let _ = write!(
                            body,
                            "  <data name=\"{}\" xml:space=\"preserve\">\n    <value>{}</value>\n  </data>\n",
                            xml_escaped(key),
                            xml_escaped(&text(locale, n))
                        );
                    }
                    body.push_str("</root>");
                    write(&app.join(format!("Properties/{stem}.resx")), &body);
                }
            },
            &["Properties", "--base", "en"],
            &[&["-f", "resx", "-n", "Resources", "-p", "Properties", "--base", "en"]],
            |root| {
                // the neutral resources are the base locale's
                base_is_en(resx(&root.join("Properties"), "Resources", &["", "de"]))
            },
        )?;
    }

    /// Android `strings.xml` built by aapt2: names aapt2 takes (a letter or `_`, then
    /// letters, digits, `_` and `.`), dotted and in mixed case, and a case-only pair.
    #[test]
    fn android_names_come_back_as_aapt2_reads_them(
        keys in proptest::collection::vec("[A-Za-z_][A-Za-z0-9_]{0,8}(\\.[A-Za-z0-9_]{1,8}){0,2}", 1..6)
            .prop_map(with_case_pair)
    ) {
        round_trip(
            &keys,
            |app| {
                for (locale, folder) in [("en", "values"), ("de", "values-de")] {
                    let mut body = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n");
                    for (n, key) in keys.iter().enumerate() {
                        let _ = writeln!(body, "    <string name=\"{key}\">{}</string>", text(locale, n));
                    }
                    body.push_str("</resources>\n");
                    write(&app.join(format!("res/{folder}/strings.xml")), &body);
                }
            },
            &["res", "--base", "en"],
            &[&["-f", "android", "-p", "res", "--base", "en"]],
            |root| {
                // `values/` is the base locale's
                base_is_en(android(&root.join("res")))
            },
        )?;
    }

    /// Flutter ARB under gen-l10n's rules: message ids are Dart identifiers, snake_case
    /// and mixed case (which depot's lowerCamelCase ids would change), a case-only pair.
    #[test]
    fn arb_ids_come_back_as_gen_l10n_reads_them(
        keys in proptest::collection::vec("[a-z][a-z0-9]{0,5}(_[a-zA-Z0-9]{1,5}){0,2}[A-Z]?", 1..6)
            .prop_map(with_case_pair)
    ) {
        // a Dart identifier starts in lower case for gen-l10n
        let keys: Vec<String> = keys.into_iter().filter(|k| k.starts_with(|c: char| c.is_ascii_lowercase())).collect();
        prop_assume!(!keys.is_empty());
        round_trip(
            &keys,
            |app| {
                for locale in LOCALES {
                    let mut object = serde_json::Map::new();
                    object.insert("@@locale".into(), json!(locale));
                    for (n, key) in keys.iter().enumerate() {
                        object.insert(key.clone(), json!(text(locale, n)));
                    }
                    write(&app.join(format!("l10n/app_{locale}.arb")), &serde_json::Value::Object(object).to_string());
                }
            },
            &["l10n"],
            &[&["-f", "arb", "-n", "app", "-p", "l10n"]],
            |root| {
                let read = arb(&root.join("l10n"), "app_en.arb")?;
                // the ARB reader gives formatjs's parts; a plain text is one text part
                Ok(read.into_iter().map(|(l, texts)| {
                    let texts = texts.into_iter().map(|(k, t)| match t {
                        Text::Plain(parts) => {
                            let parts: serde_json::Value = serde_json::from_str(&parts).unwrap();
                            let text = parts[0]["t"].as_str().unwrap_or_default().to_owned();
                            (k, Text::Plain(text))
                        }
                        other => (k, other),
                    }).collect();
                    (l, texts)
                }).collect())
            },
        )?;
    }
}

/// A reading whose base locale is named "" (the neutral resources, `values/`) with it
/// named `en`, as the app's locales are.
fn base_is_en(read: Reading) -> Reading {
    Ok((read?.into_iter())
        .map(|(locale, texts)| match locale.is_empty() {
            true => ("en".to_owned(), texts),
            false => (locale, texts),
        })
        .collect())
}

/// The po family's round trip: the msgids are the keys, in `locales`' files (gettext
/// apps' `.po` files are translations of the msgids, no base locale file).
fn round_trip_po(keys: &[String], locales: &[&str; 2]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let (app, out) = (dir.path().join("app"), dir.path().join("out"));
    for locale in locales {
        let mut body = format!(
            "msgid \"\"\nmsgstr \"\"\n\"Language: {locale}\\n\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n"
        );
        for (n, key) in keys.iter().enumerate() {
            let _ = write!(
                body,
                "\nmsgid {}\nmsgstr {}\n",
                c_quoted(key),
                c_quoted(&text(locale, n))
            );
        }
        write(&app.join(format!("po/{locale}.po")), &body);
    }
    depot_ok(
        dir.path(),
        &[
            "import".into(),
            "app/po".into(),
            "--to".into(),
            "sheet.csv".into(),
        ],
    )?;
    for locale in locales {
        let args = [
            "generate",
            "--source",
            "sheet.csv",
            "-f",
            "po",
            "-l",
            locale,
            "-n",
            locale,
            "-p",
            "out/po",
        ];
        depot_ok(dir.path(), &args.map(str::to_owned))?;
    }
    let sheet = std::fs::read_to_string(dir.path().join("sheet.csv")).unwrap();
    let again = po(&out.join("po")).map_err(|e| TestCaseError::fail(format!("{e}\n{sheet}")))?;
    for locale in locales {
        for (n, key) in keys.iter().enumerate() {
            let got = again.get(*locale).and_then(|t| t.get(key));
            prop_assert_eq!(
                got,
                Some(&Text::Plain(text(locale, n))),
                "{} {:?}; the sheet:\n{}",
                locale,
                key,
                sheet
            );
        }
    }
    Ok(())
}

/// A `.properties` key or value as a file writes it: `\` escapes, `\uXXXX` outside ASCII,
/// and in a key every space, `:` and `=`.
fn properties_escaped(s: &str, key: bool) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            ' ' if key || i == 0 => out.push_str("\\ "),
            ':' | '=' | '#' | '!' if key => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_ascii() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04X}");
                }
            }
        }
    }
    out
}

/// depot's own files carry depot's names: importing them writes no name column, the
/// sheet of today.
#[test]
fn depots_own_output_imports_without_a_name_column() {
    let dir = tempfile::tempdir().unwrap();
    for format in [
        "android",
        "ios",
        "po",
        "xlf",
        "xcstrings",
        "arb",
        "i18next",
        "properties",
        "resx",
        "json",
        "yml",
    ] {
        let run = |args: &[&str]| {
            let out = support::depot(dir.path()).args(args).output().unwrap();
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        run(&[
            "generate", "--source", "example", "-f", format, "-p", format, "-q",
        ]);
        let sheet = format!("{format}.csv");
        run(&["import", format, "--to", &sheet, "-q"]);
        let text = std::fs::read_to_string(dir.path().join(&sheet)).unwrap();
        let header = text.lines().next().unwrap();
        assert!(!header.contains("@@@"), "{format}: {header}");
    }
}

/// diff matches an app's key to its row by the name: an app imported with names it keeps
/// has no differences, and an edited text is reported under the app's own key.
#[test]
fn diff_matches_app_keys_by_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<String> = ["Export finished.", " spaced ", "Title", "title", "a.b.C"]
        .map(str::to_owned)
        .to_vec();
    let app = dir.path().join("app");
    let strings = |key: &str, text: &str| format!("{} = {};", c_quoted(key), c_quoted(text));
    write_lines(
        &app,
        &keys,
        |l| format!("{l}.lproj/Localizable.strings"),
        strings,
    );
    let run = |args: &[&str]| support::depot(dir.path()).args(args).output().unwrap();
    let import = run(&["import", "app", "--to", "sheet.csv"]);
    assert!(
        import.status.success(),
        "{}",
        String::from_utf8_lossy(&import.stderr)
    );
    let same = run(&["diff", "--source", "sheet.csv", "app"]);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    let file = app.join("de.lproj/Localizable.strings");
    let edited = std::fs::read_to_string(&file)
        .unwrap()
        .replace("\"de text 1 ü\"", "\"edited\"");
    std::fs::write(&file, edited).unwrap();
    let differs = run(&["diff", "--source", "sheet.csv", "app"]);
    assert_eq!(differs.status.code(), Some(1));
    let report = String::from_utf8_lossy(&differs.stdout);
    assert!(
        report.contains("edited") && report.contains("de text 1 ü"),
        "{report}"
    );
    let lines: Vec<&str> = report.lines().filter(|l| l.contains("edited")).collect();
    assert_eq!(lines.len(), 1, "{report}");
}
