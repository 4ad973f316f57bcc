//! `depot diff --source SHEET PATH...` through the real binary (SPEC §12): an app's files
//! that `generate` wrote from the sheet agree with it (exit 0); every key only in the app,
//! only in the sheet, and every text that differs is reported per locale, as text or JSON,
//! with exit 1; usage errors exit 2.
#![cfg(test)]

mod support;

use std::path::Path;
use std::process::Output;

const SHEET: &str = "\
>>>,>>>,$$$,en,pl
CORE,YES,A button,\"Yes, {name}\",\"Tak, {name}\"
,NO,,No,Nie
,FILES[one],,{count} file,{count} plik
,FILES[few],,,{count} pliki
,FILES[other],,{count} files,{count} pliku
";

fn depot(dir: &Path, args: &[&str]) -> Output {
    support::run(dir, args)
}

fn generated(format: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sheet.csv"), SHEET).unwrap();
    let out = depot(
        dir.path(),
        &[
            "generate",
            "--source",
            "sheet.csv",
            "-f",
            format,
            "-p",
            "app",
            "--base",
            "en",
            "--placeholders",
            "convert",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn diff(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "diff",
        "--source",
        "sheet.csv",
        "app",
        "--placeholders",
        "convert",
    ];
    args.extend_from_slice(extra);
    depot(dir, &args)
}

#[test]
fn files_generated_from_the_sheet_have_no_differences_in_any_format() {
    for format in ["android", "ios", "json", "yml", "po", "xlf"] {
        let dir = generated(format);
        let out = diff(dir.path(), &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{format}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let report = String::from_utf8(out.stdout).unwrap();
        assert!(
            report.starts_with("no differences: the "),
            "{format}: {report}"
        );
    }
}

#[test]
fn every_difference_is_listed_per_locale_and_exits_1() {
    let dir = generated("android");
    let app = dir.path().join("app");
    // a text edited in the app, a key the sheet lacks, a key the app lost, a new locale
    let pl = app.join("values-pl/strings.xml");
    let text = std::fs::read_to_string(&pl).unwrap();
    let text = text.replace(">Nie<", ">Nie!<").replace(
        "</resources>",
        "    <string name=\"core_extra\">Ekstra</string>\n</resources>",
    );
    std::fs::write(&pl, text).unwrap();
    // generate wrote the base locale twice: values/ and values-en/
    for en in ["values/strings.xml", "values-en/strings.xml"] {
        let en = app.join(en);
        let text = std::fs::read_to_string(&en).unwrap();
        let without_no: String = text
            .lines()
            .filter(|l| !l.contains("core_no"))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&en, without_no).unwrap();
    }
    std::fs::create_dir_all(app.join("values-de")).unwrap();
    std::fs::write(
        app.join("values-de/strings.xml"),
        "<resources><string name=\"core_no\">Nein</string></resources>",
    )
    .unwrap();

    let out = diff(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        report,
        "en: 0 only in the app, 1 only in the sheet, 0 differ\n\
         \x20 only in the sheet: core_no = \"No\"\n\
         pl: 1 only in the app, 0 only in the sheet, 1 differ\n\
         \x20 only in the app:   core_extra = \"Ekstra\"\n\
         \x20 differs:           core_no: app \"Nie!\", sheet \"Nie\"\n\
         de: 1 only in the app, 0 only in the sheet, 0 differ\n\
         \x20 only in the app:   core_no = \"Nein\"\n"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(
            "depot: error: 4 difference(s) between the app's files and the sheet sheet.csv"
        ),
        "{stderr}"
    );

    let json = diff(dir.path(), &["--json"]);
    assert_eq!(json.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["equal"], false);
    assert_eq!(report["formats"], serde_json::json!(["android"]));
    assert_eq!(
        report["locales"][1],
        serde_json::json!({
            "locale": "pl",
            "onlyInApp": [{"key": "core_extra", "text": "Ekstra"}],
            "onlyInSheet": [],
            "differ": [{"key": "core_no", "app": "Nie!", "sheet": "Nie"}]
        })
    );
}

/// A plural form respelt as it means the same (`%ld` for `%1$ld`, one value) is no
/// difference; a form whose words changed is, as the format holds it.
#[test]
fn plural_forms_and_placeholders_are_compared_by_meaning() {
    let dir = generated("ios");
    let dict = dir.path().join("app/pl.lproj/Localizable.stringsdict");
    let text = std::fs::read_to_string(&dict).unwrap();
    std::fs::write(&dict, text.replace("%1$ld pliki", "%ld pliki")).unwrap();
    let same = diff(dir.path(), &[]);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );
    std::fs::write(&dict, text.replace("%1$ld pliki", "%ld plików")).unwrap();
    let out = diff(dir.path(), &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["locales"],
        serde_json::json!([{
            "locale": "pl",
            "onlyInApp": [],
            "onlyInSheet": [],
            "differ": [{"key": "core_files[few]", "app": "%ld plików", "sheet": "%1$ld pliki"}]
        }])
    );
}

/// Copies examples/app (issue 32's new user: Android + iOS) to `dir/app`.
fn example_app(dir: &Path) {
    support::real_apps::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/app"),
        &dir.join("app"),
    );
}

/// `out` (of diff) found no differences in `what` ("the 2 file(s) (i18next)"): exit 0.
fn assert_no_differences(out: &Output, what: &str) {
    assert_eq!(
        (out.status.code(), String::from_utf8_lossy(&out.stdout)),
        (
            Some(0),
            format!("no differences: {what} match the sheet\n").into()
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `generate` of s.csv into the app's own folders, as android and as ios.
fn generate_in_place(dir: &Path, extra: &[&str]) {
    for (format, to) in [("android", "app/android/res"), ("ios", "app/ios")] {
        let mut args = vec!["generate", "--source", "s.csv", "-f", format, "-p", to];
        args.extend_from_slice(extra);
        let out = depot(dir, &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn replace_in(file: &Path, pairs: &[(&str, &str)]) {
    let mut text = std::fs::read_to_string(file).unwrap();
    for (from, to) in pairs {
        assert!(text.contains(from), "{}: {from}", file.display());
        text = text.replace(from, to);
    }
    std::fs::write(file, text).unwrap();
}

/// Issue 32's "7 reported, 1 real" (SPEC §12.1 "Diff by meaning"): an Android + iOS app
/// imported as placeholders converted, generated and compared with the same mode, its
/// files spelling `%d` and `%@` where generate writes `%1$d` and `%1$@` (one value each,
/// the same to a reader); the one text a translator edited is the one difference,
/// reported once though both platforms show it.
#[test]
fn the_new_users_app_against_its_converted_sheet_differs_in_the_one_edited_text() {
    let dir = tempfile::tempdir().unwrap();
    example_app(dir.path());
    let import = depot(
        dir.path(),
        &[
            "import",
            "app",
            "--to",
            "s.csv",
            "--placeholders",
            "convert",
        ],
    );
    assert!(
        import.status.success(),
        "{}",
        String::from_utf8_lossy(&import.stderr)
    );
    generate_in_place(dir.path(), &["--placeholders", "convert"]);
    let app = dir.path().join("app");
    for (file, respelt) in [
        ("android/res/values/strings.xml", ("%1$d item", "%d item")),
        (
            "android/res/values-pl/strings.xml",
            ("%1$d produkt", "%d produkt"),
        ),
        ("ios/en.lproj/Localizable.strings", ("Pay %1$@", "Pay %@")),
        (
            "ios/pl.lproj/Localizable.stringsdict",
            ("%1$ld produkt", "%ld produkt"),
        ),
    ] {
        replace_in(&app.join(file), &[respelt]);
    }
    let sheet = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    let run = |source: &str| {
        depot(
            dir.path(),
            &[
                "diff",
                "--source",
                source,
                "app",
                "--placeholders",
                "convert",
            ],
        )
    };
    assert_no_differences(&run("s.csv"), "the 6 file(s) (android, ios)");
    assert!(sheet.contains("Zapłać {arg1}"), "{sheet}");
    std::fs::write(
        dir.path().join("edited.csv"),
        sheet.replace("Zapłać {arg1}", "Zapłać teraz {arg1}"),
    )
    .unwrap();
    let out = run("edited.csv");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "pl: 0 only in the app, 0 only in the sheet, 1 differ\n\
         \x20 differs:           checkout_pay: app \"Zapłać %1$s\", sheet \"Zapłać teraz %1$s\"\n"
    );
}

/// With the sheet's settings cell (depot: placeholders=printf), the app's files respelt
/// as they mean the same (sequential for positional, `%1$@` for `%@`, `%ld` for `%d`)
/// and reordered are no difference.
#[test]
fn respelt_placeholders_and_a_reordered_file_are_no_difference() {
    let dir = tempfile::tempdir().unwrap();
    example_app(dir.path());
    let import = depot(dir.path(), &["import", "app", "--to", "s.csv"]);
    assert!(
        import.status.success(),
        "{}",
        String::from_utf8_lossy(&import.stderr)
    );
    generate_in_place(dir.path(), &[]);
    let app = dir.path().join("app");
    replace_in(
        &app.join("android/res/values/strings.xml"),
        &[
            ("Thanks, %1$s! Your order %2$d", "Thanks, %s! Your order %d"),
            ("%d items", "%1$d items"),
        ],
    );
    replace_in(
        &app.join("ios/en.lproj/Localizable.strings"),
        &[("\"Pay %@\"", "\"Pay %1$@\"")],
    );
    // the Polish file upside down
    let pl = app.join("ios/pl.lproj/Localizable.strings");
    let lines: Vec<String> = std::fs::read_to_string(&pl)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with('"'))
        .rev()
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&pl, lines.concat()).unwrap();
    let out = depot(dir.path(), &["diff", "--source", "s.csv", "app"]);
    assert_no_differences(&out, "the 6 file(s) (android, ios)");
    // what does differ still does: a placeholder of another type, another order
    replace_in(
        &app.join("android/res/values/strings.xml"),
        &[("Thanks, %s! Your order %d", "Thanks, %2$s! Your order %1$d")],
    );
    let out = depot(dir.path(), &["diff", "--source", "s.csv", "app"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "en: 0 only in the app, 0 only in the sheet, 1 differ\n\
         \x20 differs:           checkout_greeting: app \"Thanks, %2$s! Your order %1$d is on its way.\", sheet \"Thanks, %1$s! Your order %2$d is on its way.\"\n"
    );
}

/// `--format` (import and diff): a folder's files are read as that format and its files
/// of other extensions (a LICENSE, a README) are skipped, which import's summary says.
#[test]
fn format_reads_a_folders_files_of_that_format_and_skips_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let locale = dir.path().join("app/locale");
    std::fs::create_dir_all(&locale).unwrap();
    for (file, body) in [
        ("en.json", r#"{"Hello, {{ name }}!": "Hello, {{ name }}!"}"#),
        ("de.json", r#"{"Hello, {{ name }}!": "Hallo, {{ name }}!"}"#),
        ("LICENSE", "MIT"),
        ("README.md", "# locales"),
    ] {
        std::fs::write(locale.join(file), body).unwrap();
    }
    let import = depot(
        dir.path(),
        &[
            "import",
            "app/locale",
            "--format",
            "i18next",
            "--to",
            "s.csv",
        ],
    );
    let said = String::from_utf8_lossy(&import.stdout);
    assert!(
        import.status.success(),
        "{}",
        String::from_utf8_lossy(&import.stderr)
    );
    assert!(
        said.starts_with(
            "read 2 file(s): 2 i18next\n\
             skipped 2 file(s) of other extensions (--format): app/locale/LICENSE, \
             app/locale/README.md\n"
        ),
        "{said}"
    );
    let out = depot(
        dir.path(),
        &[
            "diff",
            "--source",
            "s.csv",
            "app/locale",
            "--format",
            "i18next",
        ],
    );
    assert_no_differences(&out, "the 2 file(s) (i18next)");
}

#[test]
fn usage_errors_exit_2_and_unreadable_input_exits_1_with_one_line() {
    let dir = generated("json");
    let missing_source = depot(dir.path(), &["diff", "app"]);
    assert_eq!(missing_source.status.code(), Some(2));
    let no_paths = depot(dir.path(), &["diff", "--source", "sheet.csv"]);
    assert_eq!(no_paths.status.code(), Some(2));
    let no_sheet = depot(dir.path(), &["diff", "--source", "missing.csv", "app"]);
    assert_eq!(no_sheet.status.code(), Some(1));
    let stderr = String::from_utf8(no_sheet.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("missing.csv"), "{stderr}");
}
