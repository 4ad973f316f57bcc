//! `depot generate` through the real binary, on local sheet fixtures: the file layout of
//! every format (SPEC §6.4), --merge, --language, --filename, --base, and bad inputs that
//! must write nothing.
#![cfg(test)]

#[path = "support/readback.rs"]
mod readback;
mod support;

use std::path::{Path, PathBuf};
use std::process::Output;
use support::run;

/// A temporary working folder holding the sheet fixtures.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sheets");
    for name in ["basic.csv", "edge.sheet.json", "hostile.sheet.json"] {
        std::fs::copy(fixtures.join(name), dir.path().join(name)).unwrap();
    }
    dir
}

fn generate(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["generate"];
    all.extend_from_slice(args);
    run(dir, &all)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn assert_ok(out: &Output) {
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(out));
}

/// Every file under `root`, relative, sorted.
fn files(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, found: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, found);
            } else {
                found.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut found = Vec::new();
    walk(root, root, &mut found);
    found.sort();
    found
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One error line, exit 1, nothing written.
fn assert_clean_failure(out: &Output, dir: &Path, needle: &str) {
    assert_eq!(out.status.code(), Some(1), "{}", stderr(out));
    let err = stderr(out);
    let errors: Vec<_> = err
        .lines()
        .filter(|l| l.starts_with("depot: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains(needle), "{err}");
    assert!(files(&dir.join("out")).is_empty());
}

#[test]
fn per_language_trees_for_every_format() {
    let dir = workdir();
    let cases: [(&str, &[&str]); 6] = [
        ("json", &["de_DE.json", "en_US.json"]),
        (
            "android",
            &[
                "values-de/strings.xml",
                "values-en-rUS/strings.xml",
                "values/strings.xml",
            ],
        ),
        (
            "ios",
            &[
                "Base.lproj/Localizable.strings",
                "de.lproj/Localizable.strings",
                "en-US.lproj/Localizable.strings",
            ],
        ),
        ("yml", &["messages.de_DE.yml", "messages.en_US.yml"]),
        ("xlf", &["messages.de_DE.xlf", "messages.en_US.xlf"]),
        ("po", &["messages.de_DE.po", "messages.en_US.po"]),
    ];
    for (format, expected) in cases {
        let out_dir = format!("out-{format}/nested");
        let out = generate(
            dir.path(),
            &["--source", "edge.sheet.json", "-f", format, "-p", &out_dir],
        );
        assert_ok(&out);
        assert_eq!(files(&dir.path().join(&out_dir)), expected, "{format}");
        // the result on stdout, warnings on stderr
        let (said, err) = (stdout(&out), stderr(&out));
        assert!(
            said.contains("de_DE: 2 key(s) without a text compared with the base locale en_US"),
            "{said}"
        );
        assert!(err.contains("depot: warning: B9 duplicate key"), "{err}");
        assert!(!said.contains("depot: warning") && !err.contains("wrote "));
    }
    let root = dir.path().join("out-json/nested");
    // Each per-language file holds its one locale's tree (SPEC §6.4).
    assert_eq!(
        read(root.join("de_DE.json")),
        r#"{"COMMON":{"OK":"OK"},"HOME":{"TITLE":"Willkommen"}}"#
    );
    // Flat formats drop the locale prefix in per-language files; the base copy is the same.
    let ios = dir.path().join("out-ios/nested");
    let en = read(ios.join("en-US.lproj/Localizable.strings"));
    assert!(en.contains("\"common_ok\" = \"OK\";"), "{en}");
    assert_eq!(en, read(ios.join("Base.lproj/Localizable.strings")));
    let xlf = read(dir.path().join("out-xlf/nested/messages.de_DE.xlf"));
    assert!(xlf.contains("source-language=\"en-US\""), "{xlf}");
}

#[test]
fn language_and_region_that_match_give_a_short_folder() {
    let dir = workdir();
    for format in ["android", "ios"] {
        assert_ok(&generate(
            dir.path(),
            &["--source", "hostile.sheet.json", "-f", format, "-p", format],
        ));
    }
    assert_eq!(
        files(&dir.path().join("android")),
        [
            "values-en-rUS/strings.xml",
            "values-pl/strings.xml",
            "values/strings.xml"
        ]
    );
    assert_eq!(
        files(&dir.path().join("ios")),
        [
            "Base.lproj/Localizable.strings",
            "en-US.lproj/Localizable.strings",
            "pl.lproj/Localizable.strings"
        ]
    );
}

#[test]
fn merge_writes_one_file_with_every_locale() {
    let dir = workdir();
    assert_ok(&generate(
        dir.path(),
        &["--source", "basic.csv", "--merge", "-p", "out"],
    ));
    assert_eq!(files(&dir.path().join("out")), ["translations.json"]);
    assert_eq!(
        read(dir.path().join("out/translations.json")),
        r#"{"en":{"CORE":{"LABELS":{"YES":"Yes","NO":"No"}},"FRONT":{"HEADER":{"TITLE":"Something"}}},"pl":{"CORE":{"LABELS":{"YES":"Tak","NO":"Nie"}},"FRONT":{"HEADER":{"TITLE":"Coś"}}}}"#
    );
    assert_ok(&generate(
        dir.path(),
        &["--source", "basic.csv", "--merge", "-f", "ios", "-p", "ios"],
    ));
    let ios = read(dir.path().join("ios/translations.strings"));
    assert!(ios.contains("\"pl_core_labels_yes\" = \"Tak\";"), "{ios}");
}

/// The seed example. `--language` writes that locale's tree (SPEC §6.4), without the
/// locale level that `--merge` files and `GET /translations` keep.
#[test]
fn seed_example_writes_one_named_file_with_that_locale_only() {
    let dir = workdir();
    let out = generate(
        dir.path(),
        &[
            "--source",
            "edge.sheet.json",
            "-f",
            "json",
            "-n",
            "my-en",
            "-l",
            "en_US",
            "-p",
            "./out",
        ],
    );
    assert_ok(&out);
    assert_eq!(files(&dir.path().join("out")), ["my-en.json"]);
    assert_eq!(
        read(dir.path().join("out/my-en.json")),
        r#"{"COMMON":{"OK":"OK","CANCEL":"Cancel"},"HOME":{"TITLE":"Welcome!"},"LEAF":{"CHILD":"child text"}}"#
    );
    assert!(stdout(&out).contains("out/my-en.json"), "{}", stdout(&out));
}

#[test]
fn language_without_filename_writes_translations_and_flat_names_drop_the_locale() {
    let dir = workdir();
    assert_ok(&generate(
        dir.path(),
        &["--source", "basic.csv", "-l", "PL", "-f", "po", "-p", "out"],
    ));
    assert_eq!(files(&dir.path().join("out")), ["translations.po"]);
    let po = read(dir.path().join("out/translations.po"));
    assert!(
        po.contains("core_labels_yes") && !po.contains("pl_core"),
        "{po}"
    );
}

#[test]
fn filename_replaces_the_stem_of_every_file() {
    let dir = workdir();
    assert_ok(&generate(
        dir.path(),
        &[
            "--source",
            "basic.csv",
            "-f",
            "android",
            "-n",
            "app",
            "-p",
            "a",
        ],
    ));
    assert_eq!(
        files(&dir.path().join("a")),
        ["values-en/app.xml", "values-pl/app.xml", "values/app.xml"]
    );
    assert_ok(&generate(
        dir.path(),
        &[
            "--source",
            "basic.csv",
            "-f",
            "yml",
            "--filename",
            "app",
            "-p",
            "y",
        ],
    ));
    assert_eq!(files(&dir.path().join("y")), ["app.en.yml", "app.pl.yml"]);
}

#[test]
fn base_chooses_the_folder_and_an_unknown_base_writes_none_with_a_warning() {
    let dir = workdir();
    assert_ok(&generate(
        dir.path(),
        &[
            "--source",
            "basic.csv",
            "-f",
            "android",
            "--base",
            "pl",
            "-p",
            "a",
        ],
    ));
    assert_eq!(
        read(dir.path().join("a/values/strings.xml")),
        read(dir.path().join("a/values-pl/strings.xml"))
    );
    let out = generate(
        dir.path(),
        &[
            "--source",
            "basic.csv",
            "-f",
            "ios",
            "--base",
            "xx",
            "-p",
            "i",
        ],
    );
    assert_ok(&out);
    assert_eq!(
        files(&dir.path().join("i")),
        [
            "en.lproj/Localizable.strings",
            "pl.lproj/Localizable.strings"
        ]
    );
    assert!(
        stderr(&out).contains("no locale matches --base xx"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn filters_comments_quiet_and_stdout() {
    let dir = workdir();
    let out = generate(
        dir.path(),
        &[
            "--source",
            "edge.sheet.json",
            "--filters",
            "en_US.COMMON,de_DE.HOME",
            "--comments",
            "--merge",
            "-f",
            "yml",
            "-p",
            "-",
            "-q",
            "-cf",
            "json",
        ],
    );
    assert_ok(&out);
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
    let yml = String::from_utf8(out.stdout).unwrap();
    assert!(yml.contains("# Button label"), "{yml}");
    assert!(
        yml.contains("\"Willkommen\"") && !yml.contains("Welcome!"),
        "{yml}"
    );
    assert!(
        files(dir.path())
            .iter()
            .all(|f| !f.starts_with("translations"))
    );
}

#[test]
fn several_formats_in_one_run_write_what_separate_runs_write() {
    let dir = workdir();
    let all = "json,android,ios,yml,xlf,po";
    let out = generate(
        dir.path(),
        &["--source", "edge.sheet.json", "-f", all, "-p", "together"],
    );
    assert_ok(&out);
    let mut expected = Vec::new();
    for format in all.split(',') {
        // Repeated -f works as well as a list; -f android twice is one format.
        let out = generate(
            dir.path(),
            &[
                "--source",
                "edge.sheet.json",
                "-f",
                format,
                "-f",
                format,
                "-p",
                "apart",
            ],
        );
        assert_ok(&out);
        expected = files(&dir.path().join("apart"));
    }
    let together = files(&dir.path().join("together"));
    assert_eq!(together, expected);
    assert_eq!(together.len(), 6 * 2 + 2, "{together:?}");
    for file in &together {
        assert_eq!(
            read(dir.path().join("together").join(file)),
            read(dir.path().join("apart").join(file)),
            "{file}"
        );
    }
    // One "wrote" line per file.
    let said = stdout(&out);
    assert_eq!(
        said.lines().filter(|l| l.starts_with("wrote ")).count(),
        14,
        "{said}"
    );

    // --merge and --language give one file per format.
    let cases: [(&[&str], [&str; 2]); 2] = [
        (
            &["--merge", "-f", "json,po", "-p", "merged"],
            ["translations.json", "translations.po"],
        ),
        (
            &["-l", "de_DE", "-n", "de", "-f", "yml,json", "-p", "one"],
            ["de.json", "de.yml"],
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["--source", "edge.sheet.json"];
        all.extend_from_slice(args);
        assert_ok(&generate(dir.path(), &all));
        let folder = dir.path().join(args[args.len() - 1]);
        assert_eq!(files(&folder), expected, "{args:?}");
    }
    assert_eq!(
        read(dir.path().join("one/de.json")),
        r#"{"COMMON":{"OK":"OK"},"HOME":{"TITLE":"Willkommen"}}"#
    );
}

#[test]
fn unchanged_files_are_left_alone_and_said_so() {
    let dir = workdir();
    let args = ["--source", "edge.sheet.json", "-f", "json,ios", "-p", "out"];
    assert_ok(&generate(dir.path(), &args));
    let en = dir.path().join("out/en_US.json");
    let before = std::fs::metadata(&en).unwrap().modified().unwrap();
    // a text edited by hand: the sheet's key takes its text back in place
    std::fs::write(
        dir.path().join("out/de_DE.json"),
        r#"{"COMMON":{"OK":"OK"},"HOME":{"TITLE":"edited by hand"}}"#,
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));

    let out = generate(dir.path(), &args);
    assert_ok(&out);
    let err = stdout(&out);
    assert!(
        err.contains(&format!(
            "unchanged {}",
            Path::new("out").join("en_US.json").display()
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "wrote {}",
            Path::new("out").join("de_DE.json").display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::metadata(&en).unwrap().modified().unwrap(), before);
    assert_eq!(
        read(dir.path().join("out/de_DE.json")),
        r#"{"COMMON":{"OK":"OK"},"HOME":{"TITLE":"Willkommen"}}"#
    );
    // --sync writes the same files, forced to disk.
    let out = generate(
        dir.path(),
        &[
            "--source",
            "edge.sheet.json",
            "-f",
            "json,ios",
            "-p",
            "synced",
            "--sync",
        ],
    );
    assert_ok(&out);
    assert_eq!(
        files(&dir.path().join("synced")),
        files(&dir.path().join("out"))
    );
    assert!(
        files(dir.path()).iter().all(|f| !f.ends_with(".tmp")),
        "{:?}",
        files(dir.path())
    );
}

#[test]
fn litter_of_an_interrupted_run_is_swept_and_live_or_foreign_files_are_kept() {
    let dir = workdir();
    let mut finished = std::process::Command::new("true").spawn().unwrap();
    let dead = finished.id();
    finished.wait().unwrap();
    let live = std::process::id();
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("values-de")).unwrap();
    let litter = [
        format!("out/.en_US.json.{dead}.tmp"),
        format!("out/.some-old-locale.json.{dead}.tmp"),
        format!("out/values-de/.strings.xml.{dead}.tmp"),
    ];
    let kept = [
        format!("out/.de_DE.json.{live}.tmp"),
        format!("out/values-de/.strings.xml.{live}.tmp"),
        format!("out/notes.{dead}.tmp"),
        format!("out/.en_US.json.{dead}.tmp.orig"),
    ];
    for name in litter.iter().chain(&kept) {
        std::fs::write(dir.path().join(name), "half-written").unwrap();
    }

    let result = generate(
        dir.path(),
        &[
            "--source",
            "edge.sheet.json",
            "-f",
            "json,android",
            "-p",
            "out",
        ],
    );
    assert_ok(&result);
    assert!(
        stderr(&result).contains("removed 3 temporary file(s) left by an interrupted run"),
        "{}",
        stderr(&result)
    );
    for name in &litter {
        assert!(!dir.path().join(name).exists(), "{name} was not swept");
    }
    for name in &kept {
        assert!(dir.path().join(name).exists(), "{name} was removed");
    }
    assert_eq!(
        read(out.join("de_DE.json")),
        r#"{"COMMON":{"OK":"OK"},"HOME":{"TITLE":"Willkommen"}}"#
    );
}

#[test]
fn a_text_one_format_cannot_carry_changes_no_file_of_any_format() {
    let dir = workdir();
    // U+0001 is fine in json but XML (xlf) cannot hold it, not even as a reference.
    let sheet = ">>>,en_US,de_DE\nOK,fine,gut\nBELL,ring \u{1} ring,klingeln\n";
    std::fs::write(dir.path().join("bell.csv"), sheet).unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    std::fs::write(dir.path().join("out/en_US.json"), r#"{"OK":"old"}"#).unwrap();
    let out = generate(
        dir.path(),
        &["--source", "bell.csv", "-f", "json,xlf,po", "-p", "out"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    let errors: Vec<_> = err
        .lines()
        .filter(|l| l.starts_with("depot: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(
        errors[0].contains("xlf") && errors[0].contains("U+0001"),
        "{err}"
    );
    assert!(errors[0].contains("BELL"), "{err}");
    // The json files were rendered too, but none replaced or added a file.
    assert_eq!(files(&dir.path().join("out")), ["en_US.json"]);
    assert_eq!(read(dir.path().join("out/en_US.json")), r#"{"OK":"old"}"#);
}

#[test]
fn stdout_takes_one_format_only() {
    let dir = workdir();
    let out = generate(
        dir.path(),
        &[
            "--source",
            "basic.csv",
            "--merge",
            "-f",
            "json,po",
            "-p",
            "-",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("name one --format"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn unknown_language_names_the_locales_present_and_writes_nothing() {
    let dir = workdir();
    let out = generate(
        dir.path(),
        &["--source", "edge.sheet.json", "-l", "fr", "-p", "out"],
    );
    assert_clean_failure(&out, dir.path(), "the locales present are: en_US, de_DE");
}

#[test]
fn missing_source_file_is_one_line_and_writes_nothing() {
    let dir = workdir();
    let out = generate(dir.path(), &["--source", "absent.csv", "-p", "out"]);
    assert_clean_failure(&out, dir.path(), "absent.csv");
}

/// Sheets that give no translation, each with the reason both commands must give.
const SHEETS_WITHOUT_TRANSLATIONS: [(&str, &str, &str); 3] = [
    (
        "header-only.csv",
        ">>>,en_US,de_DE\n",
        "the sheet has a header row (row 1) but no row with a key and a text: the header is the sheet's last row",
    ),
    (
        "unterminated.csv",
        ">>>,en_US\nHELLO,Hello\nBYE,\"Bye\nTHANKS,Thanks\n",
        "unterminated.csv: unterminated quote at line 3: ",
    ),
    (
        // The keys sit one column right of the '>>>' column.
        "keys-in-wrong-column.csv",
        ">>>,,en_US\n,HELLO,Hello\n,BYE,Bye\n",
        "the sheet has a header row (row 1) but no row with a key and a text; C2 texts without a key",
    ),
];

#[test]
fn a_sheet_without_translations_fails_generate_and_produce_alike_and_creates_nothing() {
    for (name, text, reason) in SHEETS_WITHOUT_TRANSLATIONS {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();

        let out = generate(dir.path(), &["--source", name, "-p", "out"]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.starts_with("depot: error: "), "{name}: {err}");
        assert!(err.contains(reason), "{name}: {err}");
        assert!(!dir.path().join("out").exists(), "{name}: out/ was created");

        let out = run(dir.path(), &["produce", "--once", "--source", name]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{name}");
        // The same words: one rule decides for both commands.
        assert_eq!(stderr(&out), err, "{name}");
    }
}

#[test]
fn missing_spreadsheet_id_is_one_line() {
    let dir = workdir();
    let out = generate(
        dir.path(),
        &["--client_id", "id", "--client-secret", "s", "-p", "out"],
    );
    assert_clean_failure(&out, dir.path(), "SERVICE_SPREADSHEET_ID");
}

#[test]
fn usage_errors_exit_2() {
    let dir = workdir();
    let out = generate(dir.path(), &["--source", "basic.csv", "--bogus"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = generate(dir.path(), &["--source", "basic.csv", "-f", "xml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("json, android, ios, yml, xlf, po"),
        "{}",
        stderr(&out)
    );
    let out = generate(dir.path(), &["--source", "basic.csv", "-p", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--merge"), "{}", stderr(&out));
    assert!(files(dir.path()).len() == 3, "{:?}", files(dir.path()));
}

/// The texts of a generated file, in file order, as each format's own parser reads them.
fn texts_read_back(format: &str, body: &str) -> Vec<String> {
    let fail = |e: String| -> Vec<String> { panic!("{format}: {e}\n{body}") };
    match format {
        "json" => {
            let value: serde_json::Value = serde_json::from_str(body).unwrap();
            let section = value["HOSTILE"].as_object().expect("the locale's tree");
            let mut keys: Vec<_> = section.keys().cloned().collect();
            keys.sort();
            keys.iter()
                .map(|k| section[k].as_str().unwrap().to_owned())
                .collect()
        }
        "yml" => readback::read_yml(body)
            .map(|pairs| pairs.into_iter().map(|(_, text)| text).collect())
            .unwrap_or_else(fail),
        "android" => readback::read_android(body)
            .map(|units| units.into_iter().map(|u| u.text).collect())
            .unwrap_or_else(fail),
        "ios" => readback::read_strings(body)
            .map(|units| units.into_iter().map(|u| u.text).collect())
            .unwrap_or_else(fail),
        "po" => readback::read_po(body)
            .map(|po| po.units.into_iter().map(|u| u.msgstr).collect())
            .unwrap_or_else(fail),
        "xlf" => readback::read_xlf(body)
            .map(|files| {
                files
                    .into_iter()
                    .flat_map(|f| f.units)
                    .map(|u| u.target.unwrap_or_default())
                    .collect()
            })
            .unwrap_or_else(fail),
        other => panic!("unknown format {other}"),
    }
}

/// Every file `generate` writes for the hostile sheet reads back, with the format's parser,
/// as exactly the sheet's texts (K01..K45 sort in sheet order).
#[test]
fn every_generated_hostile_file_reads_back_as_the_sheet_texts() {
    let dir = workdir();
    let expected: serde_json::Value =
        serde_json::from_str(&support::fixture_text("sheets/hostile.expected.json")).unwrap();
    for format in ["json", "android", "ios", "yml", "xlf", "po"] {
        for locale in ["en_US", "pl_PL"] {
            let out = format!("out-{format}-{locale}");
            let output = generate(
                dir.path(),
                &[
                    "--source",
                    "hostile.sheet.json",
                    "-f",
                    format,
                    "-l",
                    locale,
                    "-p",
                    &out,
                ],
            );
            assert_ok(&output);
            let written = files(&dir.path().join(&out));
            assert_eq!(written.len(), 1, "{format} {locale}: {written:?}");
            let body = read(dir.path().join(&out).join(&written[0]));
            let want: Vec<String> = expected[locale]["HOSTILE"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect();
            assert_eq!(want.len(), 45);
            assert_eq!(texts_read_back(format, &body), want, "{format} {locale}");
        }
    }
}

/// A sheet whose pl column lacks twelve keys, with one finding (pl drops `{name}`).
fn sheet_with_gaps(dir: &Path, with_finding: bool) {
    let mut sheet = String::from(">>>,en,pl\n");
    let greeting = if with_finding {
        "Cześć"
    } else {
        "Cześć {name}"
    };
    sheet.push_str(&format!("HELLO,Hello {{name}},{greeting}\n"));
    for n in 1..=12 {
        sheet.push_str(&format!("K{n:02},text {n},\n"));
    }
    std::fs::write(dir.join("gaps.csv"), sheet).unwrap();
}

#[test]
fn the_summary_names_the_missing_keys_and_strict_fails_on_findings() {
    let dir = tempfile::tempdir().unwrap();
    sheet_with_gaps(dir.path(), true);
    let args = ["--source", "gaps.csv", "-p", "out", "--base", "en"];
    let out = generate(dir.path(), &args);
    assert_ok(&out);
    let said = stdout(&out);
    assert!(
        said.lines().any(|l| l
            == "pl: 12 key(s) without a text compared with the base locale en: K01, K02, K03, \
                K04, K05, K06, K07, K08, K09, K10 and 2 more (--verbose names them all)"),
        "{said}"
    );
    assert!(said.lines().any(|l| l == "wrote out/pl.json"), "{said}");
    let err = stderr(&out);
    assert!(
        err.lines()
            .any(|l| l.starts_with("depot: finding: C2 ") && l.contains("missing {name}")),
        "{err}"
    );

    let verbose = generate(dir.path(), &[&args[..], &["--verbose"]].concat());
    assert_ok(&verbose);
    let all: String = (1..=12)
        .map(|n| format!("K{n:02}"))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(
        stdout(&verbose).contains(&format!("base locale en: {all}\n")),
        "{}",
        stdout(&verbose)
    );

    // --strict: exit 1 with the findings listed (even with --quiet), and no file written
    std::fs::remove_dir_all(dir.path().join("out")).unwrap();
    for extra in [&["--strict"][..], &["--strict", "--quiet"]] {
        let strict = generate(dir.path(), &[&args[..], extra].concat());
        assert_eq!(
            strict.status.code(),
            Some(1),
            "{extra:?}: {}",
            stderr(&strict)
        );
        let err = stderr(&strict);
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 2, "{err}");
        assert!(lines[0].starts_with("depot: finding: C2 "), "{err}");
        assert!(
            lines[1].starts_with("depot: error: --strict: the sheet's checks found 1 finding(s)"),
            "{err}"
        );
        assert_eq!(stdout(&strict), "", "{extra:?}");
        assert!(!dir.path().join("out").exists(), "{extra:?}");
    }
    // a sheet without findings passes --strict
    sheet_with_gaps(dir.path(), false);
    assert_ok(&generate(
        dir.path(),
        &[&args[..], &["--strict", "-q"]].concat(),
    ));
    assert!(dir.path().join("out/pl.json").exists());
}

/// A sheet as Excel shows it: a settings line above the header (babelsheet ignores it), a
/// section, a tag, a comment, a cell with the separator, a quote and a line break, and the
/// letters a Central European (pl) and a Western (de, fr) code page hold.
const EXCEL_SHEET: [&[&str]; 5] = [
    &["my app"],
    &[">>>", ">>>", "###", "$$$", "en_US", "pl_PL", "de_DE"],
    &["CORE", "", "ui", "", "", "", ""],
    &[
        "",
        "GREETING",
        "",
        "on the start page",
        "Hello; \"friend\"\nwelcome",
        "Zażółć gęślą jaźń",
        "Grüße, Straße",
    ],
    &["", "BYE", "", "", "Bye", "Do widzenia", "Tschüß"],
];

/// The sheet's text as Excel writes a CSV: `separator` between cells, CRLF after each
/// row, a cell quoted when it holds the separator, a quote or a line break.
fn excel_csv_text(separator: char) -> String {
    let quote = |cell: &str| {
        if cell.contains([separator, '"', '\n', '\r']) {
            format!("\"{}\"", cell.replace('"', "\"\""))
        } else {
            cell.to_owned()
        }
    };
    EXCEL_SHEET
        .iter()
        .map(|row| {
            let cells: Vec<String> = row.iter().map(|c| quote(c)).collect();
            cells.join(&separator.to_string()) + "\r\n"
        })
        .collect()
}

/// Every file under `root` with its text.
fn tree(root: &Path) -> Vec<(String, String)> {
    files(root)
        .into_iter()
        .map(|name| {
            let text = read(root.join(&name));
            (name, text)
        })
        .collect()
}

#[test]
fn csv_sheets_as_excel_saves_them_generate_what_the_utf8_comma_sheet_does() {
    let dir = tempfile::tempdir().unwrap();
    let text = |separator| excel_csv_text(separator);
    let utf16 = |text: &str, little: bool| -> Vec<u8> {
        let mut bytes = if little {
            vec![0xFF, 0xFE]
        } else {
            vec![0xFE, 0xFF]
        };
        for unit in text.encode_utf16() {
            bytes.extend(if little {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            });
        }
        bytes
    };
    let mut utf8_bom = b"\xEF\xBB\xBF".to_vec();
    utf8_bom.extend(text(';').as_bytes());
    // "CSV (Comma delimited)" on a German Windows: cp1252, which has no Polish letters
    // (Excel writes '?' for them).
    let german: String = text(';').replace("Zażółć gęślą jaźń", "Za???? g???? ja??");
    let (cp1252, _, unmappable) = encoding_rs::WINDOWS_1252.encode(&german);
    assert!(!unmappable);
    let semicolons = text(';');
    let (cp1250, _, unmappable) = encoding_rs::WINDOWS_1250.encode(&semicolons);
    assert!(!unmappable);
    std::fs::write(dir.path().join("utf8.csv"), text(',')).unwrap();
    std::fs::write(dir.path().join("german.csv"), german.as_bytes()).unwrap();
    for (name, bytes, flags) in [
        // "CSV UTF-8 (Comma delimited)" where the decimal separator is ','
        ("utf8-bom-semicolon.csv", utf8_bom, &[][..]),
        // "Unicode text": UTF-16LE with its mark, tab separated
        ("unicode-text.csv", utf16(&text('\t'), true), &[]),
        ("utf16be.csv", utf16(&text(','), false), &[]),
        // "CSV (Comma delimited)" on a Polish Windows
        (
            "cp1250.csv",
            cp1250.into_owned(),
            &["--encoding", "windows-1250"],
        ),
        (
            "cp1252.csv",
            cp1252.into_owned(),
            &["--encoding", "windows-1252"],
        ),
    ] {
        std::fs::write(dir.path().join(name), bytes).unwrap();
        let like = if name == "cp1252.csv" {
            "german.csv"
        } else {
            "utf8.csv"
        };
        let expected = format!("expected-{like}");
        assert_ok(&generate(
            dir.path(),
            &["--source", like, "-f", "json,android", "-p", &expected],
        ));
        let out_dir = format!("out-{name}");
        let mut args = vec!["--source", name, "-f", "json,android", "-p", &out_dir];
        args.extend_from_slice(flags);
        let out = generate(dir.path(), &args);
        assert_ok(&out);
        assert_eq!(stderr(&out), "", "{name}");
        let got = tree(&dir.path().join(&out_dir));
        assert_eq!(got, tree(&dir.path().join(&expected)), "{name}");
        assert!(
            got.iter().any(|(_, t)| t.contains("Tschüß")),
            "{name}: {got:?}"
        );
    }
    // the code page from the settings, as the producer and serve read it too
    support::run_ok(
        dir.path(),
        &[
            "generate",
            "--source",
            "cp1250.csv",
            "-f",
            "json",
            "-p",
            "out-env",
        ],
        [("DEPOT_TRANSLATIONS_SHEET_ENCODING", "windows-1250")],
    );
    assert!(read(dir.path().join("out-env/pl_PL.json")).contains("Zażółć gęślą jaźń"));
    // a UTF-8 file stays UTF-8 whatever code page is named
    let out = generate(
        dir.path(),
        &[
            "--source",
            "utf8-bom-semicolon.csv",
            "--encoding",
            "windows-1250",
            "-f",
            "json",
            "-p",
            "out-named",
        ],
    );
    assert_ok(&out);
    assert_eq!(
        tree(&dir.path().join("out-named")),
        tree(&dir.path().join("out-utf8-bom-semicolon.csv"))
            .into_iter()
            .filter(|(n, _)| n.ends_with(".json"))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_csv_in_a_code_page_without_the_setting_is_refused_saying_how_to_save_it() {
    let dir = tempfile::tempdir().unwrap();
    let text = excel_csv_text(';');
    let (cp1250, _, _) = encoding_rs::WINDOWS_1250.encode(&text);
    std::fs::write(dir.path().join("cp1250.csv"), &cp1250).unwrap();
    let out = generate(dir.path(), &["--source", "cp1250.csv", "-p", "out"]);
    assert_clean_failure(
        &out,
        dir.path(),
        "cp1250.csv line 4 is not UTF-8 text: the file was saved in another encoding \
         (Excel's \"CSV (Comma delimited)\" writes the computer's Windows code page, such as \
         windows-1250 or windows-1252). Save it as \"CSV UTF-8 (Comma delimited)\" (Excel) or \
         as Text CSV with the character set \"Unicode (UTF-8)\" (LibreOffice), or name its code \
         page: --encoding windows-1250 (translations.sheet_encoding)",
    );
    // UTF-16 that lost its byte-order mark is no text depot can tell
    let bare: Vec<u8> = excel_csv_text('\t')
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    std::fs::write(dir.path().join("bare.csv"), bare).unwrap();
    let out = generate(dir.path(), &["--source", "bare.csv", "-p", "out"]);
    assert_clean_failure(
        &out,
        dir.path(),
        "bare.csv holds zero bytes and starts with no byte-order mark",
    );
    // a code page that is not one is a usage error naming the ones there are
    let out = generate(
        dir.path(),
        &[
            "--source",
            "cp1250.csv",
            "--encoding",
            "latin2",
            "-p",
            "out",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("translations.sheet_encoding"),
        "{}",
        stderr(&out)
    );
}

/// `translations.locales` names each format's locales: `"*"` for every format, a format's
/// own table first; file names, folders and the locale fields follow the name (as they
/// follow a sheet code), the environment form does the same, and a bad table is refused
/// naming the key.
#[test]
fn locale_names_per_target_name_files_folders_and_locale_fields() {
    let dir = workdir();
    std::fs::create_dir_all(dir.path().join("config")).unwrap();
    std::fs::write(
        dir.path().join("config/depot.toml"),
        "[translations.locales.\"*\"]\nen_US = \"en-GB\"\n[translations.locales.json]\npl_PL = \"pl\"\n",
    )
    .unwrap();
    let source = ["--source", "hostile.sheet.json"];
    for format in ["json", "android", "ios"] {
        let mut args = source.to_vec();
        args.extend(["-f", format, "-p", format]);
        assert_ok(&generate(dir.path(), &args));
    }
    assert_eq!(files(&dir.path().join("json")), ["en-GB.json", "pl.json"]);
    assert_eq!(
        files(&dir.path().join("android")),
        [
            "values-en-rGB/strings.xml",
            "values-pl/strings.xml",
            "values/strings.xml"
        ]
    );
    assert_eq!(
        files(&dir.path().join("ios")),
        [
            "Base.lproj/Localizable.strings",
            "en-GB.lproj/Localizable.strings",
            "pl.lproj/Localizable.strings"
        ]
    );
    // the locale fields: the merged json's locale keys, the xlf's target-language
    let mut args = source.to_vec();
    args.extend(["-f", "json", "--merge", "-p", "-"]);
    let merged: serde_json::Value =
        serde_json::from_str(&stdout(&generate(dir.path(), &args))).unwrap();
    let keys: Vec<&String> = merged.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["en-GB", "pl"]);
    let mut args = source.to_vec();
    args.extend(["-f", "xlf", "-l", "pl_PL", "-p", "-"]);
    let xlf = stdout(&generate(dir.path(), &args));
    assert!(
        xlf.contains("source-language=\"en-GB\" target-language=\"pl-PL\""),
        "{xlf}"
    );

    // the environment's form; a bad table is refused before anything is read
    std::fs::remove_file(dir.path().join("config/depot.toml")).unwrap();
    let mut args = source.to_vec();
    args.extend(["-f", "json", "-p", "env"]);
    support::run_ok(
        dir.path(),
        &["generate"]
            .into_iter()
            .chain(args.iter().copied())
            .collect::<Vec<_>>(),
        [("DEPOT_TRANSLATIONS_LOCALES", "*:pl_PL=pl-PL,json:en_US=en")],
    );
    assert_eq!(files(&dir.path().join("env")), ["en.json", "pl-PL.json"]);
    let out = support::depot(dir.path())
        .args(["generate", "-f", "json", "-p", "bad"])
        .args(source)
        .env("DEPOT_TRANSLATIONS_LOCALES", "web:pl_PL=pl")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("translations.locales")
            && stderr(&out).contains("unknown target 'web'"),
        "{}",
        stderr(&out)
    );
}

/// A sheet of two tabs (namespaces) in en and pt_BR, as a folder of .csv files.
fn two_tabs(dir: &Path) {
    let sheet = dir.join("sheet");
    std::fs::create_dir_all(&sheet).unwrap();
    std::fs::write(
        sheet.join("common.csv"),
        ">>>,en,pt_BR\nYES,Yes,Sim\nNO,No,Não\n",
    )
    .unwrap();
    std::fs::write(sheet.join("home.csv"), ">>>,en,pt_BR\nTITLE,Home,Início\n").unwrap();
}

/// `--layout` (and `translations.layouts` per format) places each file: one per namespace
/// and locale when the template names `{namespace}`, each holding its namespace's texts;
/// the locale placeholders follow `translations.locales`.
#[test]
fn a_layout_template_places_one_file_per_namespace_and_locale() {
    let dir = workdir();
    two_tabs(dir.path());
    let args = [
        "--source",
        "sheet",
        "-f",
        "json",
        "-p",
        "out",
        "--layout",
        "locales/{locale}/{namespace}.{ext}",
    ];
    assert_ok(&generate(dir.path(), &args));
    let out = dir.path().join("out");
    assert_eq!(
        files(&out),
        [
            "locales/en/common.json",
            "locales/en/home.json",
            "locales/pt_BR/common.json",
            "locales/pt_BR/home.json"
        ]
    );
    assert_eq!(
        read(out.join("locales/pt_BR/common.json")),
        r#"{"YES":"Sim","NO":"Não"}"#
    );
    assert_eq!(
        read(out.join("locales/en/home.json")),
        r#"{"TITLE":"Home"}"#
    );

    // per format in the configuration, with the locale names of the format
    let out = support::run_ok(
        dir.path(),
        &[
            "generate",
            "--source",
            "sheet",
            "-f",
            "i18next,android",
            "-p",
            "cfg",
        ],
        [
            (
                "DEPOT_TRANSLATIONS_LAYOUTS",
                "i18next={namespace}/{lang}-{region}.json,android=res/{android}/{namespace}.xml",
            ),
            ("DEPOT_TRANSLATIONS_LOCALES", "*:en=en-GB"),
        ],
    );
    assert!(out.status.success());
    assert_eq!(
        files(&dir.path().join("cfg")),
        [
            "common/en-GB.json",
            "common/pt-BR.json",
            "home/en-GB.json",
            "home/pt-BR.json",
            "res/values-en-rGB/common.xml",
            "res/values-en-rGB/home.xml",
            "res/values-pt-rBR/common.xml",
            "res/values-pt-rBR/home.xml"
        ]
    );
    assert_eq!(
        read(dir.path().join("cfg/home/pt-BR.json")),
        r#"{"TITLE":"Início"}"#
    );
}

/// A template without `{namespace}` on a sheet of several, unknown placeholders, and paths
/// leaving the output folder are refused, naming them; nothing is written.
#[test]
fn a_bad_layout_template_is_refused_naming_what_is_wrong() {
    let dir = workdir();
    two_tabs(dir.path());
    let layout = |template: &str| {
        generate(
            dir.path(),
            &["--source", "sheet", "-p", "out", "--layout", template],
        )
    };
    let out = layout("{locale}.json");
    assert_clean_failure(
        &out,
        dir.path(),
        "the layout '{locale}.json' does not name {namespace}, and the sheet has several \
         namespaces (common, home)",
    );
    for (template, needle) in [
        (
            "{lng}/{ns}.json",
            "has unknown placeholder(s) {lng}, {ns}: the placeholders are {namespace}, {locale}",
        ),
        (
            "../{namespace}/{locale}.json",
            "must stay inside the output folder",
        ),
        (
            "/tmp/{namespace}/{locale}.json",
            "must stay inside the output folder",
        ),
    ] {
        let out = layout(template);
        assert_eq!(out.status.code(), Some(2), "{template}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(needle),
            "{template}: {}",
            stderr(&out)
        );
        assert!(files(&dir.path().join("out")).is_empty());
    }
    // a locale name that would leave the folder is refused with the configuration
    let out = support::depot(dir.path())
        .args([
            "generate",
            "--source",
            "sheet",
            "-p",
            "out",
            "--layout",
            "{locale}/{namespace}.json",
        ])
        .env("DEPOT_TRANSLATIONS_LOCALES", "json:en=..")
        .output()
        .unwrap();
    assert_clean_failure(
        &out,
        dir.path(),
        "the name '..' of en (target json) cannot name a file",
    );
}
