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

#[test]
fn plural_forms_and_placeholders_are_compared_as_the_format_holds_them() {
    let dir = generated("ios");
    let dict = dir.path().join("app/pl.lproj/Localizable.stringsdict");
    let text = std::fs::read_to_string(&dict)
        .unwrap()
        .replace("%1$ld pliki", "%ld pliki");
    std::fs::write(&dict, text).unwrap();
    let out = diff(dir.path(), &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["locales"],
        serde_json::json!([{
            "locale": "pl",
            "onlyInApp": [],
            "onlyInSheet": [],
            "differ": [{"key": "core_files[few]", "app": "%ld pliki", "sheet": "%1$ld pliki"}]
        }])
    );
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
