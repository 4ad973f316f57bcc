//! `depot import` end to end through the real binary (SPEC §12): an app's files, read by
//! their real consumers (aapt2, GNUstep, msgfmt, libxml2 with the XLIFF 1.2 schema,
//! PyYAML and js-yaml, the formatjs ICU parser), are imported into a sheet, the sheet is
//! generated back, and the same consumers read the same texts — plural forms included;
//! comments come back through the sheet (the sheet of the regenerated files is the sheet of
//! the originals, `$$$` column and all). Two real apps' files (tests/fixtures/import/) are
//! imported and regenerated with every text equal. Merging, the summary of what the sheet
//! cannot carry, the sheet written whole or not at all, and a new Google tab through the
//! fake Google. A property test: any sheet, generated in each format and imported back,
//! gives its texts back.
//!
//! A missing tool fails its test with the way to install it (`scripts/test` installs all).
#![cfg(test)]

mod support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use support::fake_google::{Endpoint, FakeConfig, FakeGoogle};
use support::gnustep::{Plist, parse_ascii_plist};

const GNUSTEP_HINT: &str =
    "install GNUstep's plist tools: apt-get install -y gnustep-base-runtime, or run scripts/test";
const GETTEXT_HINT: &str = "install gettext: apt-get install -y gettext, or run scripts/test";
const NODE_HINT: &str = "install node 20 and run `npm ci` in tests/node (scripts/test does both)";
const PYYAML_HINT: &str = "install PyYAML: python3 -m pip install pyyaml, or run scripts/test";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name)
}

/// Writes `files` (relative path, bytes) under `root`.
fn write_files(root: &Path, files: &[(&str, &[u8])]) {
    for (path, bytes) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn depot_ok(dir: &Path, args: &[&str]) -> Output {
    support::run_ok(dir, args, std::iter::empty::<(&str, &str)>())
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs a consumer; a missing one fails the test with `hint`; it must succeed.
fn tool(name: &str, args: &[&str], dir: &Path, stdin: Option<&[u8]>, hint: &str) -> String {
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
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{name} {args:?} refused it:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Imports `paths` (relative to `dir`) into `sheet`, generates `format` from it into `out`
/// with placeholders converted and comments, imports `out` again into a second sheet, and
/// checks that both sheets are the same: keys, texts, plural forms and comments survived.
fn round_trip(dir: &Path, paths: &[&str], format: &str, extra: &[&str]) -> PathBuf {
    round_trip_as(dir, paths, format, extra, "convert")
}

/// `round_trip` with `--placeholders placeholders` on both sides.
fn round_trip_as(
    dir: &Path,
    paths: &[&str],
    format: &str,
    extra: &[&str],
    placeholders: &str,
) -> PathBuf {
    let mut args = vec!["import"];
    args.extend_from_slice(paths);
    args.extend_from_slice(&["--to", "sheet.csv", "--placeholders", placeholders]);
    args.extend_from_slice(extra);
    depot_ok(dir, &args);
    depot_ok(
        dir,
        &[
            "generate",
            "--source",
            "sheet.csv",
            "-f",
            format,
            "-p",
            "out",
            "--placeholders",
            placeholders,
            "--comments",
            "--base",
            "en",
        ],
    );
    let mut again = vec![
        "import",
        "out",
        "--to",
        "again.csv",
        "--placeholders",
        placeholders,
    ];
    again.extend_from_slice(extra);
    depot_ok(dir, &again);
    let first = std::fs::read_to_string(dir.join("sheet.csv")).unwrap();
    let second = std::fs::read_to_string(dir.join("again.csv")).unwrap();
    if format == "xcstrings" {
        // flat names are lower-cased by generate (SPEC §6.3): compared without case
        let keys_lowered = |sheet: &str| -> String {
            sheet
                .lines()
                .map(|l| match l.split_once(',') {
                    Some((key, rest)) => format!("{},{rest}\n", key.to_lowercase()),
                    None => format!("{l}\n"),
                })
                .collect()
        };
        assert_eq!(
            keys_lowered(&second),
            keys_lowered(&first),
            "the same sheet"
        );
    } else {
        assert_eq!(second, first, "the regenerated files make the same sheet");
    }
    dir.join("out")
}

// ------------------------------------------------------------------ android (aapt2)

/// `aapt2 dump resources` of a built `res`: (configuration, type/name) → the text, or for
/// a plural `category="text"` lines joined.
fn aapt2_texts(res: &Path) -> BTreeMap<(String, String), String> {
    let [_, dump] = support::android::build_with_aapt_and_aapt2(res);
    let mut found = BTreeMap::new();
    let mut name = None::<String>;
    let mut current: Option<(String, String)> = None;
    for line in dump.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("type ") {
            current = None;
            name = None;
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("resource ") {
            current = None;
            name = rest.split_once(' ').map(|(_, n)| n.to_owned());
            continue;
        }
        let Some(name) = &name else { continue };
        if name.starts_with("string/")
            && let Some(rest) = trimmed.strip_prefix('(')
            && let Some((config, value)) = rest.split_once(") \"")
        {
            let key = (config.to_owned(), name.clone());
            found.insert(key.clone(), value.to_owned());
            current = Some(key);
            continue;
        }
        if name.starts_with("plurals/") {
            if let Some(rest) = trimmed.strip_prefix('(')
                && let Some((config, _)) = rest.split_once(") (plurals)")
            {
                current = Some((config.to_owned(), name.clone()));
                found.insert(current.clone().unwrap(), String::new());
                continue;
            }
            if let Some(key) = &current {
                let entry = found.get_mut(key).unwrap();
                entry.push_str(trimmed);
                entry.push('\n');
            }
            continue;
        }
        // a string's later lines, the dump's indentation removed
        if let Some(key) = &current {
            let entry = found.get_mut(key).unwrap();
            entry.push('\n');
            entry.push_str(line.strip_prefix("      ").unwrap_or(line));
        }
    }
    // a string's text ends with the dump's closing quote
    for value in found.values_mut() {
        if let Some(text) = value.strip_suffix('"') {
            *value = text.to_owned();
        }
    }
    found
}

const ANDROID_EN: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<!-- a licence header, which belongs to no string -->
<resources>
    <!-- The greeting -->
    <string name="greeting">Hello, %1$s! It\'s \"quoted\" &amp; &lt;tagged&gt;</string>
    <string name="at_start">\@home \?query</string>
    <string name="spaces">"  two  spaces "</string>
    <string name="escapes">line\nbreak\ttab \\ back \u00e9</string>
    <string name="percent">%1$d%% of %2$s</string>
    <string name="hundred">100% sure</string>
    <string name="braces">{literal} braces</string>
    <!-- Files in a folder -->
    <plurals name="files">
        <item quantity="one">%1$d file in %2$s</item>
        <item quantity="other">%1$d files in %2$s</item>
    </plurals>
</resources>
"#;

const ANDROID_PL: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="greeting">Cześć, %1$s! To \"cytat\"</string>
    <string name="percent">%2$s: %1$d%%</string>
    <plurals name="files">
        <item quantity="one">%1$d plik w %2$s</item>
        <item quantity="few">%1$d pliki w %2$s</item>
        <item quantity="many">%1$d plików w %2$s</item>
        <item quantity="other">%1$d pliku w %2$s</item>
    </plurals>
</resources>
"#;

const ANDROID_AR: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<resources>
    <plurals name="files">
        <item quantity="zero">لا ملفات في %2$s</item>
        <item quantity="one">ملف واحد في %2$s</item>
        <item quantity="two">ملفان في %2$s</item>
        <item quantity="few">%1$d ملفات في %2$s</item>
        <item quantity="many">%1$d ملفًا في %2$s</item>
        <item quantity="other">%1$d ملف في %2$s</item>
    </plurals>
</resources>
"#;

#[test]
fn android_files_round_trip_as_aapt2_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("app/res/values/strings.xml", ANDROID_EN.as_bytes()),
            ("app/res/values-pl/strings.xml", ANDROID_PL.as_bytes()),
            ("app/res/values-ar/strings.xml", ANDROID_AR.as_bytes()),
        ],
    );
    let before = aapt2_texts(&dir.path().join("app/res"));
    let out = round_trip(dir.path(), &["app/res"], "android", &[]);
    let sheet = std::fs::read_to_string(dir.path().join("sheet.csv")).unwrap();
    assert!(
        sheet.contains("Hello, {arg1}! It's \"\"quoted\"\" & <tagged>"),
        "{sheet}"
    );
    assert!(sheet.contains("{{literal}} braces"), "{sheet}");
    let after = aapt2_texts(&out);
    // generate also writes the base locale to values-en/: every original is there as read
    for (key, text) in &before {
        assert_eq!(after.get(key), Some(text), "{key:?}");
    }
    assert!(before.len() >= 12, "{before:#?}");
}

const ANDROID_MARKUP: &str = r##"<?xml version="1.0" encoding="utf-8"?>
<resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
    <string name="on">Protections are <b>ON</b> for this site</string>
    <string name="tap">Select DuckDuckGo and tap <font color='#678fff'>Always</font>.</string>
    <string name="why">That\'s why <annotation type="chart_comparison">people choose us</annotation> &amp; stay.</string>
    <string name="spaced">  a <b> x </b>  b  </string>
    <string name="quoted">It\'s <i>"quoted  </i>  here"</string>
    <string name="nested">a <b>b <i>c</i></b> d</string>
    <string name="count">Got <xliff:g id="count" example="3">%1$d</xliff:g> of <b><xliff:g id="total">%2$d</xliff:g></b></string>
    <string name="only_xliff">  Version <xliff:g id="v">%1$s</xliff:g>  </string>
    <string name="lead">  <b>lead</b> tail </string>
    <string name="br">x<br/>y</string>
    <string name="literal">&lt;b&gt;not bold&lt;/b&gt; and <b>bold</b></string>
    <plurals name="files">
        <item quantity="one"><b>%d</b> file</item>
        <item quantity="other"><b>%d</b> files</item>
    </plurals>
</resources>
"##;

const ANDROID_MARKUP_PL: &str = r##"<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="on">Ochrona jest <b>WŁĄCZONA</b> dla tej witryny</string>
    <string name="tap">Wybierz DuckDuckGo i dotknij <font color="#678fff">Zawsze</font>.</string>
</resources>
"##;

/// An Android app whose strings hold no markup, only text that looks like it (`&lt;b&gt;`
/// for Html.fromHtml, `&amp;`): the sheet holds the texts as they are (`<b>`, `&`) and says
/// nothing of markup; generate gives the files back byte for byte. (Import reads such an
/// app once, as text; the markup read is only for an app with tags.)
#[test]
fn android_text_that_looks_like_markup_is_text_in_a_sheet_without_android_markup() {
    let dir = tempfile::tempdir().unwrap();
    let app = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n    <string name=\"literal\">&lt;b&gt;not bold&lt;/b&gt; &amp; plain</string>\n    <string name=\"arrow\">a -&gt; b</string>\n</resources>\n";
    write_files(
        dir.path(),
        &[("app/res/values/strings.xml", app.as_bytes())],
    );
    let out = round_trip(dir.path(), &["app/res"], "android", &[]);
    let sheet = std::fs::read_to_string(dir.path().join("sheet.csv")).unwrap();
    assert!(!sheet.contains("android=markup"), "{sheet}");
    assert!(
        sheet.contains("\nliteral,,,<b>not bold</b> & plain\n"),
        "{sheet}"
    );
    assert!(sheet.contains("\narrow,,,a -> b\n"), "{sheet}");
    let before = support::real_apps::android(&dir.path().join("app/res")).unwrap();
    assert_eq!(support::real_apps::android(&out).unwrap()[""], before[""]);
}

/// Android's markup inside a string (SPEC §12.1, `android=markup`): import keeps the
/// tags in the sheet's texts, generate writes them back into a new tree, and aapt2 reads
/// every string with the same text and the same spans (`aapt2 dump resources`), white
/// space around and inside the spans included; text that looks like a tag stays text.
#[test]
fn android_markup_comes_back_with_the_same_text_and_spans_as_aapt2_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("app/res/values/strings.xml", ANDROID_MARKUP.as_bytes()),
            (
                "app/res/values-pl/strings.xml",
                ANDROID_MARKUP_PL.as_bytes(),
            ),
        ],
    );
    let before = support::real_apps::android(&dir.path().join("app/res")).unwrap();
    let out = round_trip(dir.path(), &["app/res"], "android", &[]);
    let sheet = std::fs::read_to_string(dir.path().join("sheet.csv")).unwrap();
    assert!(sheet.starts_with("depot: android=markup,"), "{sheet}");
    assert!(
        sheet.contains("on,,,Protections are <b>ON</b> for this site,Ochrona jest <b>WŁĄCZONA</b> dla tej witryny"),
        "{sheet}"
    );
    let after = support::real_apps::android(&out).unwrap();
    let mut compared = 0;
    for (config, strings) in &before {
        for (name, text) in strings {
            assert_eq!(
                after.get(config).and_then(|s| s.get(name)),
                Some(text),
                "{config:?} {name}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 14);
    // styled, as aapt2 reads them
    let plain = |texts: &support::real_apps::Texts, name: &str| match &texts[""][name] {
        support::real_apps::Text::Plain(t) => t.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        plain(&after, "on"),
        "Protections are ON for this site ⟨b:16,17⟩"
    );
    assert_eq!(plain(&after, "spaced"), " a  x  b  ⟨b:3,5⟩");
    // `&lt;b&gt;` (text for Html.fromHtml) stays text: `&lt;` in the sheet
    assert!(
        sheet.contains("\nliteral,,,&lt;b&gt;not bold&lt;/b&gt; and <b>bold</b>,\n"),
        "{sheet}"
    );
    let imported = depot_ok(dir.path(), &["import", "app/res", "--to", "again.csv"]);
    assert!(
        !stderr(&imported).contains("not carried"),
        "{}",
        stderr(&imported)
    );
    depot_ok(
        dir.path(),
        &[
            "diff",
            "--source",
            "sheet.csv",
            "app/res",
            "--placeholders",
            "convert",
        ],
    );
    // the sheet owns the tags: one changed is a difference
    std::fs::write(
        dir.path().join("edited.csv"),
        sheet.replace("Protections are <b>ON</b>", "Protections are <i>ON</i>"),
    )
    .unwrap();
    let out = support::run(
        dir.path(),
        &[
            "diff",
            "--source",
            "edited.csv",
            "app/res",
            "--placeholders",
            "convert",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(
        report.contains(
            "on: app \"Protections are <b>ON</b> for this site\", sheet \"Protections are \
             <i>ON</i> for this site\""
        ),
        "{report}"
    );
}

/// `--merge-into` follows the sheet merged into: one without `android=markup` holds texts
/// alone (the app's markup is named as not carried, `&lt;b&gt;` is `<b>`), one with it
/// gets the tags and `&lt;` for a `<` that is text.
#[test]
fn merging_android_markup_follows_the_sheet_merged_into() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "app/res/values/strings.xml",
                b"<resources>\n<string name=\"on\">Protections are <b>ON</b></string>\n\
                  <string name=\"lt\">&lt;b&gt;</string>\n</resources>\n",
            ),
            ("plain.csv", b">>>,en\nother,Other\n"),
            (
                "marked.csv",
                b"depot: android=markup\n>>>,en\nother,Other\n",
            ),
        ],
    );
    let merge = |into: &str| {
        let out = depot_ok(
            dir.path(),
            &["import", "app/res", "--merge-into", into, "--to", "out.csv"],
        );
        (
            std::fs::read_to_string(dir.path().join("out.csv")).unwrap(),
            stderr(&out),
        )
    };
    let (sheet, notes) = merge("plain.csv");
    assert_eq!(
        sheet,
        ">>>,en\nother,Other\non,Protections are ON\nlt,<b>\n"
    );
    assert!(
        notes.contains("on: markup <b> is not carried: the text is kept without its tags"),
        "{notes}"
    );
    let (sheet, notes) = merge("marked.csv");
    assert_eq!(
        sheet,
        "depot: android=markup,\n>>>,en\nother,Other\non,Protections are <b>ON</b>\nlt,&lt;b&gt;\n"
    );
    assert!(!notes.contains("not carried"), "{notes}");
}

#[test]
fn a_real_android_app_is_imported_and_regenerated_with_every_text_equal() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &fixture("android-lineageos-updater/res"),
        &dir.path().join("app/res"),
    );
    let before = aapt2_texts(&dir.path().join("app/res"));
    let imported = depot_ok(
        dir.path(),
        &[
            "import",
            "app/res",
            "--to",
            "sheet.csv",
            "--placeholders",
            "keep",
        ],
    );
    let summary = stderr(&imported);
    depot_ok(
        dir.path(),
        &[
            "generate",
            "--source",
            "sheet.csv",
            "-f",
            "android",
            "-p",
            "out/res",
            "--base",
            "en",
        ],
    );
    let after = aapt2_texts(&dir.path().join("out/res"));
    // what is not a text to translate stays behind, and the summary says so
    let untranslatable = untranslatable(&dir.path().join("app/res/values/strings.xml"));
    assert!(untranslatable.len() >= 4, "{untranslatable:?}");
    for name in &untranslatable {
        assert!(summary.contains(name), "{name} is listed: {summary}");
    }
    // string arrays stay in the app's files; `<xliff:g>` is carried in the texts as tags
    assert!(
        summary.contains(
            "depot: kept in the app, not the sheet's: 1 <string-array> element(s) \
             (menu_auto_updates_check_interval_entries); generate leaves them in the app's \
             files as they are"
        ),
        "{summary}"
    );
    assert!(!summary.contains("not carried"), "{summary}");
    let mut compared = 0;
    for ((config, name), text) in &before {
        let untranslatable = untranslatable
            .iter()
            .any(|u| name.ends_with(&format!("/{u}")));
        if untranslatable {
            assert!(
                !after.contains_key(&(config.clone(), name.clone())),
                "{name}"
            );
            continue;
        }
        assert_eq!(
            after.get(&(config.clone(), name.clone())),
            Some(text),
            "{config} {name}"
        );
        compared += 1;
    }
    assert!(compared > 300, "{compared} texts compared");
}

/// The names of the `<string>`s of a file marked `translatable="false"`.
fn untranslatable(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    text.split("<string ")
        .skip(1)
        .filter_map(|tag| {
            let tag = &tag[..tag.find('>')?];
            let name = tag.split_once("name=\"")?.1.split('"').next()?;
            tag.contains("translatable=\"false\"")
                .then(|| name.to_owned())
        })
        .collect()
}

// ------------------------------------------------------------------ ios (GNUstep)

/// What GNUstep reads from a `.strings` or `.stringsdict` file (UTF-16 included):
/// `plmerge` loads it as NSDictionary does and writes it as an ASCII property list.
fn gnustep_read(file: &Path) -> BTreeMap<String, Plist> {
    let dir = tempfile::tempdir().unwrap();
    let merged = dir.path().join("merged.plist");
    std::fs::write(&merged, "{}").unwrap();
    tool(
        "plmerge",
        &[merged.to_str().unwrap(), file.to_str().unwrap()],
        dir.path(),
        None,
        GNUSTEP_HINT,
    );
    match parse_ascii_plist(&std::fs::read_to_string(&merged).unwrap()) {
        Plist::Dict(d) => d,
        other => panic!("{other:?}"),
    }
}

/// The plural forms of a `.stringsdict` entry as GNUstep reads them.
fn forms(entry: &Plist) -> BTreeMap<String, Plist> {
    let Plist::Dict(entry) = entry else {
        panic!("{entry:?}")
    };
    let Some(Plist::Text(format)) = entry.get("NSStringLocalizedFormatKey") else {
        panic!()
    };
    let variable = format.trim_start_matches("%#@").trim_end_matches('@');
    let Some(Plist::Dict(rule)) = entry.get(variable) else {
        panic!("{entry:?}")
    };
    rule.iter()
        .filter(|(k, _)| !k.starts_with("NSString"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn utf16le_with_bom(text: &str) -> Vec<u8> {
    [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect()
}

const IOS_EN: &str = "/* Greeting */\n\"greeting\" = \"Hello, %1$@! \\\"quoted\\\" \\\\ back\";\n// Line comment\n\"escapes\" = \"line\\nbreak\\ttab \\U00e9 \\UD83D\\UDE00\";\nplain_key = \"unquoted key\";\n\"percent\" = \"%1$ld%% of %2$@\";\n\"braces\" = \"{literal}\";\n";
const IOS_PL: &str = "\"greeting\" = \"Cześć, %1$@!\";\n\"percent\" = \"%2$@: %1$ld%%\";\n";

fn stringsdict(forms: &[(&str, &str)]) -> String {
    let cases: String = forms
        .iter()
        .map(|(c, t)| format!("      <key>{c}</key>\n      <string>{t}</string>\n"))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n  <!-- Files in a folder -->\n  <key>files</key>\n  <dict>\n    <key>NSStringLocalizedFormatKey</key>\n    <string>%#@value@</string>\n    <key>value</key>\n    <dict>\n      <key>NSStringFormatSpecTypeKey</key>\n      <string>NSStringPluralRuleType</string>\n      <key>NSStringFormatValueTypeKey</key>\n      <string>ld</string>\n{cases}    </dict>\n  </dict>\n</dict>\n</plist>\n"
    )
}

#[test]
fn ios_files_round_trip_as_gnustep_reads_them_utf16_included() {
    let dir = tempfile::tempdir().unwrap();
    let en_dict = stringsdict(&[
        ("one", "%1$ld file in %2$@"),
        ("other", "%1$ld files in %2$@"),
    ]);
    let pl_dict = stringsdict(&[
        ("one", "%1$ld plik w %2$@"),
        ("few", "%1$ld pliki w %2$@"),
        ("many", "%1$ld plików w %2$@"),
        ("other", "%1$ld pliku w %2$@"),
    ]);
    write_files(
        dir.path(),
        &[
            ("app/en.lproj/Localizable.strings", IOS_EN.as_bytes()),
            ("app/en.lproj/Localizable.stringsdict", en_dict.as_bytes()),
            (
                "app/pl.lproj/Localizable.strings",
                &utf16le_with_bom(IOS_PL),
            ),
            ("app/pl.lproj/Localizable.stringsdict", pl_dict.as_bytes()),
        ],
    );
    let out = round_trip(dir.path(), &["app"], "ios", &[]);
    for locale in ["en", "pl"] {
        let strings =
            |root: &Path| gnustep_read(&root.join(format!("{locale}.lproj/Localizable.strings")));
        let dicts = |root: &Path| {
            gnustep_read(&root.join(format!("{locale}.lproj/Localizable.stringsdict")))
        };
        let (before, after) = (strings(&dir.path().join("app")), strings(&out));
        assert!(!before.is_empty());
        assert_eq!(after, before, "{locale}: .strings as GNUstep reads them");
        let (before, after) = (dicts(&dir.path().join("app")), dicts(&out));
        assert_eq!(
            forms(&after["files"]),
            forms(&before["files"]),
            "{locale}: plural forms"
        );
    }
    assert!(out.join("Base.lproj/Localizable.strings").exists());
}

#[test]
fn a_real_ios_app_is_imported_and_regenerated_with_every_text_equal() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("ios-deltachat"), &dir.path().join("app"));
    depot_ok(
        dir.path(),
        &[
            "import",
            "app",
            "--to",
            "sheet.xlsx",
            "--placeholders",
            "keep",
        ],
    );
    depot_ok(
        dir.path(),
        &[
            "generate",
            "--source",
            "sheet.xlsx",
            "-f",
            "ios",
            "-p",
            "out",
            "--base",
            "en",
        ],
    );
    let mut compared = 0;
    for locale in ["en", "de", "ar"] {
        let file = |root: &Path, ext: &str| root.join(format!("{locale}.lproj/Localizable.{ext}"));
        let before = gnustep_read(&file(&dir.path().join("app"), "strings"));
        let after = gnustep_read(&file(&dir.path().join("out"), "strings"));
        // the app's own keys (SPEC §12.1): the sheet's name column keeps them
        for (key, text) in &before {
            assert_eq!(after.get(key), Some(text), "{locale} {key}");
            compared += 1;
        }
        let before = gnustep_read(&file(&dir.path().join("app"), "stringsdict"));
        let after = gnustep_read(&file(&dir.path().join("out"), "stringsdict"));
        for (key, entry) in &before {
            assert_eq!(forms(&after[key]), forms(entry), "{locale} {key}");
            compared += 1;
        }
    }
    assert!(compared > 1500, "{compared} texts compared");
}

// ------------------------------------------------------------------ json (formatjs)

/// The formatjs parser's AST of every message of a depot json file, by key path.
fn formatjs(file: &Path) -> BTreeMap<String, serde_json::Value> {
    fn walk(value: &serde_json::Value, path: &str, out: &mut Vec<(String, String)>) {
        match value {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(v, &p, out);
                }
            }
            serde_json::Value::String(s) => out.push((path.to_owned(), s.clone())),
            other => panic!("{other}"),
        }
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let mut messages = Vec::new();
    walk(&json, "", &mut messages);
    let texts: Vec<&String> = messages.iter().map(|(_, t)| t).collect();
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node");
    assert!(
        folder.join("node_modules").is_dir(),
        "tests/node/node_modules is missing: {NODE_HINT}"
    );
    let input = serde_json::to_vec(&texts).unwrap();
    let asts: Vec<serde_json::Value> = serde_json::from_str(&tool(
        "node",
        &["consumers.js", "icu"],
        &folder,
        Some(&input),
        NODE_HINT,
    ))
    .unwrap();
    messages.into_iter().map(|(k, _)| k).zip(asts).collect()
}

#[test]
fn json_files_round_trip_as_the_formatjs_parser_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let en = r#"{"APP":{"TITLE":"{name} has {n, number, integer} files, it''s '{'x'}' '<'b>","RATIO":"{r, number} done","FILES":"{count, plural, one {# file in {folder}} other {# files '#' in {folder}}}"},"PLAIN":"Just text: ok"}"#;
    let pl = r#"{"APP":{"TITLE":"{n, number, integer} plików ma {name}","FILES":"{count, plural, one {# plik} few {# pliki} many {# plików} other {# pliku}}"}}"#;
    write_files(
        dir.path(),
        &[
            ("app/en.json", en.as_bytes()),
            ("app/pl.json", pl.as_bytes()),
        ],
    );
    let out = round_trip(dir.path(), &["app"], "json", &[]);
    for locale in ["en", "pl"] {
        let file = format!("{locale}.json");
        assert_eq!(
            formatjs(&out.join(&file)),
            formatjs(&dir.path().join("app").join(&file)),
            "{locale}"
        );
    }
}

// ------------------------------------------------------------------ yml (PyYAML, js-yaml)

fn pyyaml(file: &Path) -> serde_json::Value {
    let script = "import json, sys, yaml\nprint(json.dumps(yaml.safe_load(open(sys.argv[1], encoding='utf-8'))))";
    let out = tool(
        "python3",
        &["-c", script, file.to_str().unwrap()],
        Path::new("."),
        None,
        PYYAML_HINT,
    );
    serde_json::from_str(&out).unwrap()
}

fn js_yaml(file: &Path) -> serde_json::Value {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node");
    let input = std::fs::read(file).unwrap();
    serde_json::from_str(&tool(
        "node",
        &["consumers.js", "yaml"],
        &folder,
        Some(&input),
        NODE_HINT,
    ))
    .unwrap()
}

#[test]
fn yml_files_round_trip_as_pyyaml_and_js_yaml_read_them() {
    let dir = tempfile::tempdir().unwrap();
    let en = "en:\n  # A greeting\n  greeting: \"Hello %{name}, it's \\\"quoted\\\"\"\n  plain: Hello there, friend\n  block: |\n    line one\n    line two\n  files:\n    one: \"%{count} file\"\n    other: \"%{count} files\"\n  nested:\n    deep: 'single ''quoted'' {braces}'\n";
    let pl = "pl:\n  greeting: \"Cześć %{name}\"\n  files:\n    one: \"%{count} plik\"\n    few: \"%{count} pliki\"\n    many: \"%{count} plików\"\n    other: \"%{count} pliku\"\n";
    write_files(
        dir.path(),
        &[
            ("config/locales/en.yml", en.as_bytes()),
            ("config/locales/pl.yml", pl.as_bytes()),
        ],
    );
    let out = round_trip(dir.path(), &["config/locales"], "yml", &[]);
    for locale in ["en", "pl"] {
        let original = dir.path().join(format!("config/locales/{locale}.yml"));
        let generated = out.join(format!("messages.{locale}.yml"));
        // Rails keeps the locale as the top key; generate's per-locale files hold its tree
        assert_eq!(
            pyyaml(&generated),
            pyyaml(&original)[locale],
            "{locale}: PyYAML"
        );
        assert_eq!(
            js_yaml(&generated),
            js_yaml(&original)[locale],
            "{locale}: js-yaml"
        );
    }
}

// ------------------------------------------------------------------ po (msgfmt)

/// What msgfmt compiles, as msgunfmt prints it back.
fn msgfmt(file: &Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mo = dir.path().join("messages.mo");
    tool(
        "msgfmt",
        &["-c", "-o", mo.to_str().unwrap(), file.to_str().unwrap()],
        dir.path(),
        None,
        GETTEXT_HINT,
    );
    tool(
        "msgunfmt",
        &[mo.to_str().unwrap()],
        dir.path(),
        None,
        GETTEXT_HINT,
    )
}

const PO_PL: &str = r#"msgid ""
msgstr ""
"Language: pl\n"
"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"

#. The greeting
msgctxt "greeting"
msgid "greeting"
msgstr "Cześć {name}, to \"cytat\"\t\\"

msgctxt "multi"
msgid "multi"
msgstr ""
"linia 1\n"
"linia 2"

#. Files in a folder
msgctxt "files"
msgid "files"
msgid_plural "files"
msgstr[0] "{count} plik"
msgstr[1] "{count} pliki"
msgstr[2] "{count} plików"
"#;

#[test]
fn po_files_round_trip_as_msgfmt_compiles_them() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("po/messages.pl.po", PO_PL.as_bytes())]);
    let out = round_trip(dir.path(), &["po"], "po", &[]);
    assert_eq!(
        msgfmt(&out.join("messages.pl.po")),
        msgfmt(&dir.path().join("po/messages.pl.po"))
    );
}

// ------------------------------------------------------------------ xlf (libxml2)

/// Every `<trans-unit>` of an XLIFF file as Python's expat-based ElementTree reads it:
/// the file's languages, the unit's id, resname, source, target and note.
fn expat_units(file: &Path) -> serde_json::Value {
    let script = r#"
import json, sys, xml.etree.ElementTree as ET
ns = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
out = []
for f in ET.parse(sys.argv[1]).getroot().findall("x:file", ns):
    for u in f.iter("{urn:oasis:names:tc:xliff:document:1.2}trans-unit"):
        text = lambda name: (lambda e: None if e is None else "".join(e.itertext()))(u.find("x:" + name, ns))
        out.append([f.get("source-language"), f.get("target-language"), u.get("id"), u.get("resname"), text("source"), text("target"), text("note")])
print(json.dumps(out))
"#;
    serde_json::from_str(&tool(
        "python3",
        &["-c", script, file.to_str().unwrap()],
        Path::new("."),
        None,
        PYYAML_HINT,
    ))
    .unwrap()
}

const XLF_PL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
  <file original="translations" datatype="plaintext" source-language="en" target-language="pl">
    <body>
      <trans-unit id="CORE.GREETING" resname="core_greeting" xml:space="preserve">
        <source>Hello {name} &amp; &lt;friends&gt;</source>
        <target>Cześć {name} &amp; &lt;przyjaciele&gt;</target>
        <note>The greeting</note>
      </trans-unit>
      <trans-unit id="CORE.SPACES" resname="core_spaces" xml:space="preserve">
        <source>  padded  </source>
        <target>  wcięte  </target>
      </trans-unit>
      <group id="CORE.FILES" restype="x-gettext-plurals">
        <trans-unit id="CORE.FILES[one]" resname="core_files" xml:space="preserve">
          <source>{count} file</source>
          <target>{count} plik</target>
        </trans-unit>
        <trans-unit id="CORE.FILES[few]" resname="core_files" xml:space="preserve">
          <source>{count} files</source>
          <target>{count} pliki</target>
        </trans-unit>
        <trans-unit id="CORE.FILES[other]" resname="core_files" xml:space="preserve">
          <source>{count} files</source>
          <target>{count} pliku</target>
        </trans-unit>
      </group>
    </body>
  </file>
</xliff>
"#;

#[test]
fn xlf_files_round_trip_valid_against_the_xliff_schema() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("xlf/messages.pl.xlf", XLF_PL.as_bytes())]);
    support::xliff_schema::assert_strictly_valid(&dir.path().join("xlf/messages.pl.xlf"));
    let out = round_trip(dir.path(), &["xlf"], "xlf", &[]);
    let generated = out.join("messages.pl.xlf");
    support::xliff_schema::assert_strictly_valid(&generated);
    let (before, after) = (
        expat_units(&dir.path().join("xlf/messages.pl.xlf")),
        expat_units(&generated),
    );
    assert_eq!(after, before, "every unit, source, target and note");
}

// ------------------------------------------------------------------ the five new formats

/// Runs tests/node/consumers.js in `mode` on `input`; its JSON output.
fn node(mode: &str, input: &serde_json::Value) -> serde_json::Value {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node");
    assert!(
        folder.join("node_modules").is_dir(),
        "tests/node/node_modules is missing: {NODE_HINT}"
    );
    let input = serde_json::to_vec(input).unwrap();
    let out = tool(
        "node",
        &["consumers.js", mode],
        &folder,
        Some(&input),
        NODE_HINT,
    );
    serde_json::from_str(&out).unwrap()
}

fn read_json(file: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    serde_json::from_str(&text).unwrap()
}

// ------------------------------------------------------------------ i18next (i18next)

const I18NEXT_EN: &str = r#"{
  "nav": { "home": "Home", "settings": "Settings" },
  "greeting": "Hello, {{name}}!",
  "inbox": {
    "title": "Inbox of {{user}}",
    "unread_one": "You have {{count}} unread message",
    "unread_other": "You have {{count}} unread messages"
  },
  "cart": {
    "items_zero": "Your cart is empty",
    "items_one": "{{count}} item in your cart",
    "items_other": "{{count}} items in your cart"
  },
  "legal": "By signing up you accept the <1>terms</1> & \"privacy\" rules.",
  "footer": "Line one\nLine two: 100% {literal} braces"
}"#;
const I18NEXT_PL: &str = r#"{
  "nav": { "home": "Start", "settings": "Ustawienia" },
  "greeting": "Cześć, {{name}}!",
  "inbox": {
    "title": "Skrzynka {{user}}",
    "unread_one": "Masz {{count}} nieprzeczytaną wiadomość",
    "unread_few": "Masz {{count}} nieprzeczytane wiadomości",
    "unread_many": "Masz {{count}} nieprzeczytanych wiadomości",
    "unread_other": "Masz {{count}} nieprzeczytanej wiadomości"
  },
  "cart": {
    "items_zero": "Twój koszyk jest pusty",
    "items_one": "{{count}} produkt w koszyku",
    "items_few": "{{count}} produkty w koszyku",
    "items_many": "{{count}} produktów w koszyku",
    "items_other": "{{count}} produktu w koszyku"
  }
}"#;
const I18NEXT_DE: &str = r#"{"nav":{"home":"Startseite"},"greeting":"Hallo, {{name}}!","inbox":{"unread_one":"{{count}} ungelesene Nachricht","unread_other":"{{count}} ungelesene Nachrichten"}}"#;

/// What i18next's `t()` gives in each language for every key of `en`'s file (a plural's
/// key with counts that reach every category of the three languages, and 0 for `_zero`),
/// the resources being the `<lng>/translation.json` files under `root`.
fn i18next_reads(root: &Path, languages: &[&str]) -> Vec<String> {
    fn leaves(value: &serde_json::Value, path: &str, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    leaves(v, &p, out);
                }
            }
            _ => out.push(path.to_owned()),
        }
    }
    let mut keys = Vec::new();
    leaves(&serde_json::from_str(I18NEXT_EN).unwrap(), "", &mut keys);
    let mut resources = serde_json::Map::new();
    for lng in languages {
        let file = root.join(lng).join("translation.json");
        resources.insert(
            (*lng).to_owned(),
            serde_json::json!({ "translation": read_json(&file) }),
        );
    }
    let mut calls = Vec::new();
    for lng in languages {
        let mut asked = std::collections::BTreeSet::new();
        for key in &keys {
            let values = serde_json::json!({"name": "Ala", "user": "Ola"});
            match key.rsplit_once('_') {
                Some((base, _)) if asked.insert(base.to_owned()) => {
                    for count in [0, 1, 2, 3, 5, 12, 22, 25, 101] {
                        let mut options = values.clone();
                        options["count"] = count.into();
                        calls.push(serde_json::json!([lng, base, options]));
                    }
                }
                Some(_) => {}
                None => calls.push(serde_json::json!([lng, key, values])),
            }
        }
    }
    let read = node(
        "i18next",
        &serde_json::json!({ "resources": resources, "calls": calls }),
    );
    serde_json::from_value(read).unwrap()
}

/// i18next files as a web app ships them (nested keys, `{{name}}`, `_zero`/`_one`/…
/// plurals, partial translations) → import → generate → i18next's `t()` gives every text
/// and plural form as before, in every language.
#[test]
fn i18next_files_round_trip_as_i18next_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("web/locales/en/translation.json", I18NEXT_EN.as_bytes()),
            ("web/locales/pl/translation.json", I18NEXT_PL.as_bytes()),
            ("web/locales/de/translation.json", I18NEXT_DE.as_bytes()),
        ],
    );
    let sheet = |dir: &Path| std::fs::read_to_string(dir.join("sheet.csv")).unwrap();
    let out = round_trip(dir.path(), &["web"], "i18next", &[]);
    let text = sheet(dir.path());
    assert!(
        text.contains(",unread[few],,,,,Masz {count} nieprzeczytane wiadomości"),
        "{text}"
    );
    assert!(
        text.contains("greeting,,,,\"Hello, {name}!\",\"Hallo, {name}!\",\"Cześć, {name}!\""),
        "{text}"
    );
    let languages = ["en", "pl", "de"];
    let before = i18next_reads(&dir.path().join("web/locales"), &languages);
    let after = i18next_reads(&out, &languages);
    assert!(
        before
            .iter()
            .any(|t| t == "Masz 22 nieprzeczytane wiadomości"),
        "{before:?}"
    );
    assert!(
        before.iter().any(|t| t == "Twój koszyk jest pusty"),
        "{before:?}"
    );
    assert_eq!(after, before);
}

// ------------------------------------------------------------------ xcstrings (locize-xcstrings)

/// A catalog as Xcode writes one: keys extracted from Swift code are the English texts
/// (no English localization where the text is the key), a manual key with its own
/// localizations, plural variations, positional and plain printf placeholders, comments,
/// a state other than translated, and a key not to translate.
const CATALOG: &str = r#"{
  "sourceLanguage" : "en",
  "strings" : {
    "%@ of %@" : {
      "comment" : "Progress: done of total",
      "localizations" : {
        "en" : { "stringUnit" : { "state" : "new", "value" : "%1$@ of %2$@" } },
        "pl" : { "stringUnit" : { "state" : "translated", "value" : "%1$@ z %2$@" } }
      }
    },
    "%lld notes" : {
      "comment" : "Number of notes in the list",
      "localizations" : {
        "en" : { "variations" : { "plural" : {
          "one" : { "stringUnit" : { "state" : "translated", "value" : "%lld note" } },
          "other" : { "stringUnit" : { "state" : "translated", "value" : "%lld notes" } }
        } } },
        "pl" : { "variations" : { "plural" : {
          "few" : { "stringUnit" : { "state" : "translated", "value" : "%lld notatki" } },
          "many" : { "stringUnit" : { "state" : "translated", "value" : "%lld notatek" } },
          "one" : { "stringUnit" : { "state" : "translated", "value" : "%lld notatka" } },
          "other" : { "stringUnit" : { "state" : "needs_review", "value" : "%lld notatki" } }
        } } }
      }
    },
    "Cancel" : {
      "comment" : "Button title",
      "localizations" : {
        "de" : { "stringUnit" : { "state" : "translated", "value" : "Abbrechen" } },
        "pl" : { "stringUnit" : { "state" : "translated", "value" : "Anuluj" } }
      }
    },
    "NetNewsWire" : {
      "shouldTranslate" : false
    },
    "Signed in as %@" : {
      "localizations" : {
        "pl" : { "stringUnit" : { "state" : "translated", "value" : "Zalogowano jako %@" } }
      }
    },
    "welcome_message" : {
      "comment" : "Shown once, after the first launch",
      "extractionState" : "manual",
      "localizations" : {
        "en" : { "stringUnit" : { "state" : "translated", "value" : "Welcome!\nYour notes stay on this device: 100% private." } },
        "pl" : { "stringUnit" : { "state" : "translated", "value" : "Witaj!\nTwoje notatki zostają na tym urządzeniu: w 100% prywatne." } }
      }
    }
  },
  "version" : "1.0"
}"#;

/// What locize-xcstrings reads from a catalog: per language, each name (plural forms as
/// `name[variations.plural.CATEGORY]`) with its value and (source language) comment.
fn locize_reads(catalog: &str) -> serde_json::Value {
    let read = node("xcstrings", &serde_json::from_str(catalog).unwrap());
    read["resources"].clone()
}

/// A String Catalog (`CATALOG`) → import → generate → the locize-xcstrings reader reads
/// every text, plural form and comment as before, under depot's names (lower-cased, as
/// ios `.strings`). Texts are kept as written (`--placeholders keep`) so that printf
/// specifiers compare byte for byte; with the default conversion the sheet holds `{arg1}`
/// and `{count}` (`%lld` and `%1$ld` print the same 64-bit integer).
#[test]
fn xcstrings_round_trip_as_locize_xcstrings_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[("ios/Localizable.xcstrings", CATALOG.as_bytes())],
    );
    let out = round_trip_as(dir.path(), &["ios"], "xcstrings", &[], "keep");
    let after = locize_reads(&std::fs::read_to_string(out.join("Localizable.xcstrings")).unwrap());
    // Xcode's reading of an extracted key with no English localization: the key is the
    // English text (written out here, so the reader sees it); the key not to translate
    // is listed by import and left out
    let mut catalog: serde_json::Value = serde_json::from_str(CATALOG).unwrap();
    let strings = catalog["strings"].as_object_mut().unwrap();
    strings.remove("NetNewsWire");
    for (key, entry) in strings.iter_mut() {
        if entry.get("extractionState").is_none() && entry["localizations"].get("en").is_none() {
            entry["localizations"]["en"] =
                serde_json::json!({"stringUnit": {"state": "translated", "value": key}});
        }
    }
    let before = locize_reads(&catalog.to_string());
    let lowered =
        |resources: &serde_json::Value| -> BTreeMap<String, BTreeMap<String, serde_json::Value>> {
            let mut out = BTreeMap::new();
            for (language, names) in resources.as_object().unwrap() {
                let names = names.as_object().unwrap();
                out.insert(
                    language.clone(),
                    names
                        .iter()
                        .map(|(n, v)| (n.to_lowercase(), v.clone()))
                        .collect(),
                );
            }
            out
        };
    let (before, after) = (lowered(&before), lowered(&after));
    assert_eq!(before["pl"].len(), 8, "{before:#?}");
    assert_eq!(
        before["en"]["cancel"],
        serde_json::json!({"value": "Cancel", "context": {"text": "Button title"}})
    );
    assert_eq!(after, before);

    // converted: the sheet's syntax
    let out = depot_ok(
        dir.path(),
        &[
            "import",
            "ios",
            "--to",
            "converted.csv",
            "--placeholders",
            "convert",
        ],
    );
    let sheet = std::fs::read_to_string(dir.path().join("converted.csv")).unwrap();
    assert!(
        sheet.contains("%@ of %@,,,Progress: done of total,{arg1} of {arg2},{arg1} z {arg2}"),
        "{sheet}"
    );
    assert!(
        sheet.contains("%lld notes[few],,,,,{count} notatki"),
        "{sheet}"
    );
    let summary = stderr(&out);
    assert!(
        summary.contains("NetNewsWire: shouldTranslate is false: not carried"),
        "{summary}"
    );
}

// ------------------------------------------------------------------ arb (gen-l10n's rules, formatjs)

const ARB_EN: &str = r#"{
  "@@locale": "en",
  "appTitle": "Notes",
  "@appTitle": { "description": "The title in the app bar" },
  "helloUser": "Hello {userName}!",
  "@helloUser": {
    "description": "Greeting on the home screen",
    "placeholders": { "userName": { "type": "String", "example": "Ala" } }
  },
  "noteCount": "{count, plural, =0{No notes yet} =1{One note} other{{count} notes}}",
  "@noteCount": {
    "description": "Number of notes in the list",
    "placeholders": { "count": { "type": "int" } }
  },
  "storageUsed": "{percent} of {total} used",
  "@storageUsed": {
    "placeholders": { "percent": { "type": "double" }, "total": { "type": "String" } }
  },
  "editHint": "Tap '{'Edit'}' and don''t forget to save"
}"#;
const ARB_PL: &str = r#"{
  "@@locale": "pl",
  "appTitle": "Notatki",
  "helloUser": "Cześć {userName}!",
  "noteCount": "{count, plural, =0{Brak notatek} one{Jedna notatka} few{{count} notatki} many{{count} notatek} other{{count} notatki}}",
  "storageUsed": "Zajęto {percent} z {total}",
  "editHint": "Stuknij '{'Edytuj'}' i nie zapomnij zapisać"
}"#;

/// What gen-l10n's rules and its parser read from the ARB files in `dir` with or without
/// `use-escaping` (tests/node/consumers.js, `app_en.arb` the template): each file's
/// messages as parts,
/// a plural's `=0`, `=1`, `=2` cases named `zero`, `one`, `two` (gen-l10n's
/// `pluralCases`: the same argument of `Intl.pluralLogic`), and the template's
/// description and placeholder types of each message.
fn gen_l10n_reads(dir: &Path, use_escaping: bool) -> serde_json::Value {
    fn exact_cases_as_categories(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::Object(options)) = map.get_mut("o") {
                    for (exact, category) in [("=0", "zero"), ("=1", "one"), ("=2", "two")] {
                        if let Some(form) = options.remove(exact) {
                            options.entry(category).or_insert(form);
                        }
                    }
                }
                map.values_mut().for_each(exact_cases_as_categories);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(exact_cases_as_categories),
            _ => {}
        }
    }
    let mut files = serde_json::Map::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        files.insert(name, std::fs::read_to_string(&path).unwrap().into());
    }
    let mut parts = node(
        "arb",
        &serde_json::json!({"files": files, "template": "app_en.arb", "useEscaping": use_escaping}),
    );
    exact_cases_as_categories(&mut parts);
    let template = read_json(&dir.join("app_en.arb"));
    let metadata: BTreeMap<String, serde_json::Value> = template
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.starts_with('@') && !k.starts_with("@@"))
        .map(|(k, v)| {
            let types: BTreeMap<String, serde_json::Value> = v["placeholders"]
                .as_object()
                .map(|p| {
                    p.iter()
                        .map(|(n, s)| (n.clone(), s["type"].clone()))
                        .collect()
                })
                .unwrap_or_default();
            (
                k.clone(),
                serde_json::json!({"description": v["description"], "types": types}),
            )
        })
        .collect();
    serde_json::json!({"messages": parts, "metadata": metadata})
}

/// ARB files as a Flutter app ships them (template with descriptions and placeholder
/// types, ICU plurals with `=0`/`=1` cases, quoting) → import → generate → gen-l10n's
/// rules hold and every message parses to the same parts, with the same descriptions and
/// placeholder types in the template.
#[test]
fn arb_files_round_trip_as_gen_l10n_and_formatjs_read_them() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("lib/l10n/app_en.arb", ARB_EN.as_bytes()),
            ("lib/l10n/app_pl.arb", ARB_PL.as_bytes()),
            // the app quotes (`'{'Edit'}'`, `don''t`): its gen-l10n reads them so
            ("l10n.yaml", b"arb-dir: lib/l10n\nuse-escaping: true\n"),
        ],
    );
    let out = round_trip(dir.path(), &["lib/l10n"], "arb", &[]);
    let sheet = std::fs::read_to_string(dir.path().join("sheet.csv")).unwrap();
    assert!(
        sheet.contains("noteCount[zero],,Number of notes in the list,No notes yet,Brak notatek"),
        "{sheet}"
    );
    assert!(
        sheet.contains(
            "storageUsed,,,{percent:float} of {total} used,Zajęto {percent:float} z {total}"
        ),
        "{sheet}"
    );
    assert!(!sheet.contains("arb=plain"), "{sheet}");
    let before = gen_l10n_reads(&dir.path().join("lib/l10n"), true);
    let after = gen_l10n_reads(&out, true);
    assert_eq!(
        before["messages"]["app_pl.arb"]["editHint"],
        serde_json::json!([{"t": "Stuknij {Edytuj} i nie zapomnij zapisać"}])
    );
    assert_eq!(after, before);
}

// ------------------------------------------------------------------ properties (the JDK)

const PROPERTIES_BASE: &str = "# Notes, a Java desktop app\n\n# Shown in the window title\napp.title = Notes\napp.greeting=Hello, {0}!\n! {0}: the file, {1}: the folder\nfiles.moved=Moved {0} to {1}.\nfiles.count.one={0} file\nfiles.count.other={0} files\nnote.quote=It''s {0}''s note: '{'draft'}'\nnote.plain=50% off: it's free\nnote.long=A long text that goes \\\n    on the next line\\nand breaks here\npath.home=C\\:\\\\Users\\\\{0}\n";
const PROPERTIES_PL: &str = "app.title=Notatki\napp.greeting=Cze\\u015b\\u0107, {0}!\nfiles.moved=Przeniesiono {0} do {1}.\nfiles.count.one={0} plik\nfiles.count.few={0} pliki\nfiles.count.many={0} plik\\u00f3w\nfiles.count.other={0} pliku\nnote.quote=To notatka {0}: '{'szkic'}', nie ''gotowa''\n";
const PROPERTIES_DE: &str =
    "app.title=Notizen\napp.greeting=Hallo, {0}!\nnote.plain=50 % Rabatt: gratis\n";

/// `.properties` bundles as a Java app ships them (the root bundle, `_pl`, `_de`;
/// comments, `key = value` spacing, a continued line, escapes, `MessageFormat` patterns
/// with quotes, a plural as one key per category) → import → generate → `ResourceBundle`
/// reads every key of each bundle as before, and `MessageFormat` formats the patterns
/// alike.
#[test]
fn properties_round_trip_as_the_jdk_reads_them() {
    use support::jvm_mono::java;
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("java/messages.properties", PROPERTIES_BASE.as_bytes()),
            ("java/messages_pl.properties", PROPERTIES_PL.as_bytes()),
            ("java/messages_de.properties", PROPERTIES_DE.as_bytes()),
        ],
    );
    let out = round_trip(dir.path(), &["java"], "properties", &[]);
    let sheet = std::fs::read_to_string(dir.path().join("sheet.csv")).unwrap();
    assert!(sheet.contains(",count[few],,,,,{count} pliki"), "{sheet}");
    assert!(
        sheet.contains(",quote,,,It's {arg1}'s note: {{draft}},,"),
        "{sheet}"
    );
    let original = dir.path().join("java");
    let bundles = |root: &Path| java(&["bundle", ".", "messages", "", "pl", "de"], root);
    let (before, after) = (bundles(&original), bundles(&out));
    assert_eq!(before[""]["texts"]["files.count.one"], "{0} file");
    assert_eq!(after, before);
    let format = |root: &Path, tag: &str, key: &str, args: &[&str]| {
        let mut all = vec!["format", ".", "messages", tag, key];
        all.extend_from_slice(args);
        java(&all, root)["text"].as_str().unwrap().to_owned()
    };
    for (tag, key, args) in [
        ("", "note.quote", &["Ala"][..]),
        ("pl", "note.quote", &["Ala"][..]),
        ("pl", "files.count.many", &["int:5"][..]),
        ("pl", "files.moved", &["a.txt", "Dokumenty"][..]),
    ] {
        assert_eq!(
            format(&out, tag, key, args),
            format(&original, tag, key, args),
            "{tag} {key}"
        );
    }
    assert_eq!(
        format(&out, "pl", "note.quote", &["Ala"]),
        "To notatka Ala: {szkic}, nie 'gotowa'"
    );
}

// ------------------------------------------------------------------ resx (mono)

fn resx(data: &[(&str, &str, Option<&str>)]) -> String {
    let mut out = String::from(
        "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root>\n  <resheader name=\"resmimetype\">\n    <value>text/microsoft-resx</value>\n  </resheader>\n  <resheader name=\"version\">\n    <value>2.0</value>\n  </resheader>\n  <resheader name=\"reader\">\n    <value>System.Resources.ResXResourceReader, System.Windows.Forms, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089</value>\n  </resheader>\n  <resheader name=\"writer\">\n    <value>System.Resources.ResXResourceWriter, System.Windows.Forms, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089</value>\n  </resheader>\n",
    );
    for (name, value, comment) in data {
        out.push_str(&format!(
            "  <data name=\"{name}\" xml:space=\"preserve\">\n    <value>{value}</value>\n"
        ));
        if let Some(comment) = comment {
            out.push_str(&format!("    <comment>{comment}</comment>\n"));
        }
        out.push_str("  </data>\n");
    }
    out.push_str("</root>");
    out
}

/// `.resx` files as a .NET app ships them (Visual Studio's header, comments, composite
/// format `{0}` with doubled braces, escaped markup, a plural as one name per category)
/// → import → generate → resgen compiles them and a `ResourceManager` reads every name of
/// each culture as before; `string.Format` formats them alike.
#[test]
fn resx_round_trip_as_resgen_and_resource_manager_read_them() {
    use support::jvm_mono::{dotnet, resgen};
    let dir = tempfile::tempdir().unwrap();
    let base = resx(&[
        ("AppTitle", "Notes", Some("The main window's title")),
        ("Greeting", "Hello, {0}!", Some("{0} is the user's name")),
        ("FilesMoved", "Moved {0} to {1}.", None),
        ("NoteCount_One", "{0} note", Some("Notes in the list")),
        ("NoteCount_Other", "{0} notes", None),
        (
            "Template",
            "Use {{name}} for {0} &amp; &lt;b&gt;bold&lt;/b&gt;",
            None,
        ),
        ("Plain", "Tabs\tand\nlines {literal}", None),
    ]);
    let pl = resx(&[
        ("AppTitle", "Notatki", None),
        ("Greeting", "Cześć, {0}!", None),
        ("FilesMoved", "Przeniesiono {0} do {1}.", None),
        ("NoteCount_One", "{0} notatka", None),
        ("NoteCount_Few", "{0} notatki", None),
        ("NoteCount_Many", "{0} notatek", None),
        ("NoteCount_Other", "{0} notatki", None),
    ]);
    let de = resx(&[
        ("AppTitle", "Notizen", None),
        ("Greeting", "Hallo, {0}!", None),
    ]);
    write_files(
        dir.path(),
        &[
            ("dotnet/Strings.resx", base.as_bytes()),
            ("dotnet/Strings.pl.resx", pl.as_bytes()),
            ("dotnet/Strings.de.resx", de.as_bytes()),
        ],
    );
    let out = round_trip(dir.path(), &["dotnet"], "resx", &[]);
    let sheet = std::fs::read_to_string(dir.path().join("sheet.csv")).unwrap();
    assert!(
        sheet.contains("NoteCount[few],,,,,{count} notatki"),
        "{sheet}"
    );
    assert!(
        sheet.contains("Template,,,Use {{name}} for {arg1} & <b>bold</b>"),
        "{sheet}"
    );
    let original = dir.path().join("dotnet");
    for root in [&original, &out] {
        for stem in ["Strings", "Strings.pl", "Strings.de"] {
            resgen(root, stem);
        }
    }
    let managed = |root: &Path| dotnet(&["manager", ".", "Strings", "", "pl", "de"], root);
    let (before, after) = (managed(&original), managed(&out));
    assert_eq!(before["pl"]["NoteCount_Few"], "{0} notatki");
    assert_eq!(after, before);
    let format = |root: &Path, culture: &str, name: &str, args: &[&str]| {
        let mut all = vec!["format", ".", "Strings", culture, name];
        all.extend_from_slice(args);
        dotnet(&all, root)["text"].as_str().unwrap().to_owned()
    };
    for (culture, name, args) in [
        ("", "Template", &["x"][..]),
        ("pl", "NoteCount_Many", &["int:5"][..]),
        ("pl", "FilesMoved", &["a.txt", "Dokumenty"][..]),
    ] {
        assert_eq!(
            format(&out, culture, name, args),
            format(&original, culture, name, args)
        );
    }
}

/// Files of the formats whose writers come with other branches, read as their consumers
/// write them: the sheet holds their texts, plurals and comments.
#[test]
fn files_of_the_new_formats_import_with_plurals_and_comments() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = r#"{"sourceLanguage":"en","strings":{"app_files":{"comment":"Files","extractionState":"manual","localizations":{"en":{"variations":{"plural":{"one":{"stringUnit":{"state":"translated","value":"%lld file"}},"other":{"stringUnit":{"state":"translated","value":"%lld files"}}}}},"pl":{"variations":{"plural":{"one":{"stringUnit":{"state":"translated","value":"%lld plik"}},"other":{"stringUnit":{"state":"translated","value":"%lld pliku"}}}}}}},"greeting":{"localizations":{"en":{"stringUnit":{"state":"translated","value":"Hello %@"}},"pl":{"stringUnit":{"state":"translated","value":"Cześć %@"}}}}},"version":"1.0"}"#;
    write_files(
        dir.path(),
        &[
            ("ios/Localizable.xcstrings", catalog.as_bytes()),
            ("flutter/app_en.arb", br#"{"@@locale":"en","helloName":"Hello {name}","@helloName":{"description":"Greeting","placeholders":{"name":{"type":"String"}}}}"#),
            ("flutter/app_pl.arb", br#"{"@@locale":"pl","helloName":"Cze\u015b\u0107 {name}"}"#),
            ("web/locales/en-US/translation.json", br#"{"inbox":{"count_one":"{{count}} message","count_other":"{{count}} messages"}}"#),
            ("java/messages.properties", b"# Greeting\nhello=Hello {0}\n"),
            ("java/messages_pl.properties", b"hello=Cze\\u015b\\u0107 {0}\n"),
            ("dotnet/Strings.resx", br#"<?xml version="1.0" encoding="utf-8"?><root><data name="Hello" xml:space="preserve"><value>Hello {0}</value><comment>Greeting</comment></data></root>"#),
            ("dotnet/Strings.pl-PL.resx", r#"<?xml version="1.0" encoding="utf-8"?><root><data name="Hello" xml:space="preserve"><value>Cześć {0}</value></data></root>"#.as_bytes()),
        ],
    );
    for (path, expected) in [
        (
            "ios",
            vec![
                ">>>,###,$$$,en,pl",
                "app_files[one],,Files,{count} file,{count} plik",
                "app_files[other],,,{count} files,{count} pliku",
                "greeting,,,Hello {arg1},Cześć {arg1}",
            ],
        ),
        (
            "flutter",
            vec![
                // no l10n.yaml: gen-l10n's default reads apostrophes as text
                "depot: arb=plain,,,,",
                ">>>,###,$$$,en,pl",
                "helloName,,Greeting,Hello {name},Cześć {name}",
            ],
        ),
        (
            "web",
            vec![
                ">>>,>>>,###,$$$,en-US",
                "inbox,count[one],,,{count} message",
                ",count[other],,,{count} messages",
            ],
        ),
        (
            "java",
            vec![
                ">>>,###,$$$,en,pl",
                "hello,,Greeting,Hello {arg1},Cześć {arg1}",
            ],
        ),
        (
            "dotnet",
            vec![
                ">>>,###,$$$,en,pl-PL",
                "Hello,,Greeting,Hello {arg1},Cześć {arg1}",
            ],
        ),
    ] {
        let sheet = format!("{path}.csv");
        depot_ok(
            dir.path(),
            // depot's {name}: what these formats' placeholders read as
            &[
                "import",
                path,
                "--to",
                &sheet,
                "--base",
                "en",
                "--placeholders",
                "convert",
            ],
        );
        let text = std::fs::read_to_string(dir.path().join(&sheet)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines, expected, "{path}");
    }
}

/// Real files of the five formats whose writers come with other branches (from public
/// repositories, with their licences, in tests/fixtures/import/formats/): every text is
/// read, placeholders in the sheet's syntax, plurals and comments carried, and what the
/// sheet cannot hold listed.
#[test]
fn real_files_of_the_new_formats_are_read_with_their_texts() {
    let dir = tempfile::tempdir().unwrap();
    let import = |name: &str| -> (Vec<String>, String) {
        let sheet = dir.path().join(format!("{name}.csv"));
        let path = fixture(&format!("formats/{name}"));
        let out = depot_ok(
            dir.path(),
            &[
                "import",
                path.to_str().unwrap(),
                "--to",
                sheet.to_str().unwrap(),
                // what each format's placeholders read as in depot's {name}
                "--placeholders",
                "convert",
            ],
        );
        let text = std::fs::read_to_string(&sheet).unwrap();
        (text.lines().map(str::to_owned).collect(), stderr(&out))
    };
    let has = |lines: &[String], line: &str| lines.iter().any(|l| l == line);

    // ARB (Yubico Authenticator): ICU plurals with =1 cases, a quantity named `retries`,
    // markup
    // (its snake_case ids are not depot's lowerCamelCase ones: the name column keeps them)
    let (lines, summary) = import("arb-yubioath");
    // its l10n.yaml (not copied) has no use-escaping: apostrophes are text
    assert_eq!(
        lines[..2],
        ["depot: arb=plain,,,,,", ">>>,@@@,###,$$$,en,pl"]
    );
    assert!(has(
        &lines,
        "app_name,app_name,,,Yubico Authenticator,Yubico Authenticator"
    ));
    assert!(has(
        &lines,
        "l_attempts_remaining[few],,,,,Pozostały {count} próby"
    ));
    assert!(has(
        &lines,
        "l_attempts_remaining[other],,,,{count} attempts remaining,Pozostało {count} prób"
    ));
    // gen-l10n's =1 is its `one`
    assert!(has(
        &lines,
        "l_attempts_remaining[one],l_attempts_remaining,,,{count} attempt remaining,Pozostała {count} próba"
    ));
    assert!(!summary.contains("=1"), "{summary}");
    // gen-l10n knows no tags: `<b>` is text, carried as it is
    assert!(!summary.contains("rich-text"), "{summary}");
    assert!(
        summary.contains("the quantity {retries} is {count} in the sheet"),
        "{summary}"
    );
    assert!(lines.len() > 600, "{}", lines.len());

    // i18next (react-i18next's example): nested keys, two locales from the folders
    let (lines, _) = import("i18next-react-i18next");
    assert_eq!(
        lines[..2],
        [
            ">>>,>>>,###,$$$,en,de",
            "title,,,,Welcome to react using react-i18next,Willkommen zu react und react-i18next"
        ]
    );

    // properties (Spring PetClinic): dotted keys are levels, a key that is also a section
    // is listed, the base bundle is --base
    // (mixed case: the name column keeps the keys depot would lower-case)
    let (lines, summary) = import("properties-spring-petclinic");
    assert_eq!(lines[0], ">>>,>>>,@@@,###,$$$,en,de,ru");
    // (the German file holds U+FFFD where an umlaut was lost upstream: taken as it is)
    assert!(lines.iter().any(|l| {
        l.starts_with(",birthDate,typeMismatch.birthDate,,,invalid date,ung\u{fffd}ltiges")
            && l.ends_with(",неправильная дата")
    }));
    assert!(has(
        &lines,
        "welcome,,,,,Welcome,Willkommen,Добро пожаловать"
    ));
    // a key that is also a section gets a path of its own; its name stays
    assert!(has(
        &lines,
        "telephone_2,,telephone,,,Telephone,Telefon,Телефон"
    ));
    assert!(has(&lines, "error_2,,error,,,Error,Fehler,Ошибка"));
    assert!(!summary.contains("the key is also a section"), "{summary}");

    // resx (Borderless Gaming): composite {0} is {arg1}, file references are listed as
    // left in the app's files
    let (lines, summary) = import("resx-borderless-gaming");
    assert_eq!(lines[0], ">>>,###,$$$,en,de,ru");
    assert!(has(
        &lines,
        "TrayMinimized,,,{arg1} is minimized.,{arg1} wurde minimiert.,{arg1} свернут в трей."
    ));
    assert!(
        summary.contains(
            "depot: kept in the app, not the sheet's: 7 resource(s) of type \
             System.Resources.ResXFileRef, not texts (add, bordered,"
        ),
        "{summary}"
    );

    // xcstrings (NetNewsWire): keys are the English texts, comments carried, printf
    // placeholders numbered, keys with '.' levels of the sheet and their names kept; its
    // two catalogs (tables: Localizable, and a window's) are a tab each
    let path = fixture("formats/xcstrings-netnewswire");
    let out = depot_ok(
        dir.path(),
        &[
            "import",
            path.to_str().unwrap(),
            "--to",
            "netnewswire/",
            "--placeholders",
            "convert",
        ],
    );
    let summary = stderr(&out);
    let tab = |name: &str| -> Vec<String> {
        let text = std::fs::read_to_string(dir.path().join("netnewswire").join(name)).unwrap();
        text.lines().map(str::to_owned).collect()
    };
    let lines = tab("Localizable.csv");
    assert_eq!(lines[0], ">>>,>>>,>>>,>>>,@@@,###,$$$,en");
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with(",Status bar progress,{arg1} of {arg2}")),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with(",Dinosaur staleness threshold in months,{arg1:int} months"))
    );
    assert_eq!(
        tab("AccountStatsWindow.csv")[0],
        ">>>,>>>,>>>,@@@,###,$$$,en,es"
    );
    assert!(
        !summary.contains("hold '.', which the sheet reads as a level separator"),
        "{summary}"
    );
}

// ------------------------------------------------------------------ merge, summary, failures

#[test]
fn merge_into_keeps_the_sheets_texts_lists_conflicts_by_cell_and_overwrite_replaces_them() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "app/values/strings.xml",
                br#"<resources><string name="core_yes">Yes</string><string name="core_no">No</string><string name="core_new">New</string></resources>"#,
            ),
            (
                "app/values-pl/strings.xml",
                br#"<resources><string name="core_yes">Tak</string></resources>"#,
            ),
            (
                "sheet.csv",
                b"my app,,,\n>>>,>>>,###,en\ncore,,ui,\n,yes,,Yes\n,no,,Nope\nother,x,,x\n",
            ),
        ],
    );
    let out = depot_ok(
        dir.path(),
        &[
            "import",
            "app",
            "--split",
            "_",
            "--merge-into",
            "sheet.csv",
            "--to",
            "merged.csv",
        ],
    );
    // conflicts are notes (stderr), what was merged the summary (stdout)
    let notes = stderr(&out);
    assert!(
        notes.contains("depot: conflict: D5 core.no (en): the sheet has \"Nope\", the app \"No\"; the sheet's is kept"),
        "{notes}"
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        summary.contains("merged into sheet.csv: 1 new key(s)"),
        "{summary}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("merged.csv")).unwrap(),
        "my app,,,,\n>>>,>>>,###,en,pl\ncore,,ui,,\n,yes,,Yes,Tak\n,no,,Nope,\n,new,,New,\nother,x,,x,\n"
    );
    depot_ok(
        dir.path(),
        &[
            "import",
            "app",
            "--split",
            "_",
            "--merge-into",
            "sheet.csv",
            "--to",
            "sheet.csv",
            "--overwrite",
        ],
    );
    let sheet = std::fs::read_to_string(dir.path().join("sheet.csv")).unwrap();
    assert!(sheet.contains(",no,,No,"), "{sheet}");
}

#[test]
fn a_sheet_that_cannot_be_written_leaves_the_old_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("app/en.json", "{\"A\":\"bell \\u0007 here\"}".as_bytes()),
            ("sheet.ods", b"the old sheet"),
        ],
    );
    let out = support::run(dir.path(), &["import", "app", "--to", "sheet.ods"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("cell D2 holds U+0007, which an .ods file cannot store"),
        "{err}"
    );
    let last = err.trim().lines().last().unwrap();
    assert!(
        last.starts_with("depot: error: cell D2"),
        "the error is the last line: {err}"
    );
    assert!(!err.contains("wrote"), "{err}");
    assert_eq!(
        std::fs::read(dir.path().join("sheet.ods")).unwrap(),
        b"the old sheet"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "{leftovers:?}");
}

#[test]
fn usage_and_input_errors_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[(
            "strings.xml",
            b"<resources><string name=\"a\">x</string></resources>",
        )],
    );
    let usage = support::run(dir.path(), &["import", "strings.xml", "--to", "sheet.txt"]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(
        stderr(&usage).contains("--to must be a .csv, .xlsx or .ods file"),
        "{}",
        stderr(&usage)
    );
    let overwrite = support::run(
        dir.path(),
        &["import", "strings.xml", "--to", "s.csv", "--overwrite"],
    );
    assert_eq!(overwrite.status.code(), Some(2));
    let no_locale = support::run(dir.path(), &["import", "strings.xml", "--to", "s.csv"]);
    assert_eq!(no_locale.status.code(), Some(1));
    assert!(
        stderr(&no_locale).contains("strings.xml: its name and content name no locale"),
        "{}",
        stderr(&no_locale)
    );
    depot_ok(
        dir.path(),
        &["import", "strings.xml", "--to", "s.csv", "--locale", "pl"],
    );
    write_files(
        dir.path(),
        &[(
            "bad/values/strings.xml",
            b"<resources>\n<string name=\"a\">x</strin>\n</resources>",
        )],
    );
    let broken = support::run(dir.path(), &["import", "bad", "--to", "s.csv"]);
    assert_eq!(broken.status.code(), Some(1));
    assert!(
        stderr(&broken).contains("bad/values/strings.xml:2: not well-formed XML"),
        "{}",
        stderr(&broken)
    );
}

// ------------------------------------------------------------------ Google

fn google_env(fake: &FakeGoogle) -> Vec<(String, String)> {
    let c = fake.config();
    vec![
        ("DEPOT_GOOGLE_TOKEN_URL".into(), fake.token_url()),
        ("DEPOT_GOOGLE_AUTH_URL".into(), fake.auth_url()),
        ("DEPOT_GOOGLE_SHEETS_URL".into(), fake.sheets_url()),
        ("DEPOT_GOOGLE_TIMEOUT_SECS".into(), "5".into()),
        ("SERVICE_CLIENT_ID".into(), c.client_id.clone()),
        ("SERVICE_CLIENT_SECRET".into(), c.client_secret.clone()),
        ("SERVICE_REFRESH_TOKEN".into(), c.refresh_token.clone()),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_to_google_adds_a_tab_with_raw_values_and_refuses_an_existing_name() {
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    fake.grant_write_scope();
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[(
            "app/en.json",
            br#"{"A":{"FORMULA":"=1+1","QUOTE":"'x","NUMBER":"010"}}"#,
        )],
    );
    let id = fake.config().spreadsheet_id.clone();
    let to = format!("google:{id}/Imported");
    let env = google_env(&fake);
    let out = support::depot(dir.path())
        .args(["import", "app", "--to", &to])
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fake.sheet_titles(), ["Sheet1", "Imported"]);
    let rows = fake.sheet_rows("Imported").unwrap();
    assert_eq!(rows[0], [">>>", ">>>", "###", "$$$", "en"]);
    assert_eq!(rows[1], ["A", "FORMULA", "", "", "=1+1"]);
    assert_eq!(rows[2], ["", "QUOTE", "", "", "'x"]);
    assert_eq!(fake.value_input_options(), ["RAW"]);
    assert!(
        fake.last_request(Endpoint::ValuesUpdate)
            .unwrap()
            .contains("valueInputOption=RAW")
    );

    // the tab is read back as generate reads a sheet
    let back = support::depot(dir.path())
        .args([
            "generate",
            "-f",
            "json",
            "--merge",
            "-p",
            "-",
            "--spreadsheet_id",
            &id,
            "--spreadsheet_name",
            "Imported",
        ])
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    assert!(back.status.success(), "{}", stderr(&back));
    assert_eq!(
        String::from_utf8_lossy(&back.stdout),
        r#"{"en":{"A":{"FORMULA":"=1+1","QUOTE":"'x","NUMBER":"010"}}}"#
    );

    let again = support::depot(dir.path())
        .args(["import", "app", "--to", &to])
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).contains("already has a tab named 'Imported'"),
        "{}",
        stderr(&again)
    );
    assert_eq!(
        fake.sheet_titles(),
        ["Sheet1", "Imported"],
        "nothing half-written"
    );
}

/// A refresh token that may only read: Google refuses the tab (403, insufficient scopes),
/// depot asks for a consent to the `spreadsheets` scope, saves the new token and adds it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_token_leads_to_a_consent_for_writing_then_the_tab() {
    use std::io::{BufRead, BufReader};
    let fake = FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await;
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("app/en.json", br#"{"A":"a"}"#)]);
    let to = format!("google:{}/New", fake.config().spreadsheet_id);
    let mut env = google_env(&fake);
    let redirect = format!(
        "http://127.0.0.1:{}/oauth2callback",
        support::engines::free_port()
    );
    env.push(("SERVICE_REDIRECT_URI".into(), redirect));
    let mut child = support::depot(dir.path())
        .args(["import", "app", "--to", &to])
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.starts_with("http"))
        .expect("the consent URL is printed");
    std::thread::spawn(move || for _ in lines {});
    assert!(
        url.contains("scope=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fspreadsheets&"),
        "the consent asks for the spreadsheets scope: {url}"
    );
    assert_eq!(
        fake.sheet_titles(),
        ["Sheet1"],
        "nothing was added before the consent"
    );
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let consent = browser.get(&url).send().await.unwrap();
    let location = consent.headers()["location"].to_str().unwrap().to_owned();
    assert_eq!(browser.get(location).send().await.unwrap().status(), 200);
    let status = support::wait_with_limit(&mut child, std::time::Duration::from_secs(20))
        .expect("import ends");
    assert!(status.success());
    assert_eq!(fake.sheet_titles(), ["Sheet1", "New"]);
    let token = fake.issued_refresh_tokens().last().cloned().unwrap();
    let saved = std::fs::read_to_string(dir.path().join(".env.service")).unwrap();
    assert!(
        saved.contains(&format!("SERVICE_REFRESH_TOKEN={token}")),
        "{saved}"
    );
}

// ------------------------------------------------------------------ property test

mod property {
    //! Any sheet, generated in each of the eleven formats (by the renderers `generate`
    //! uses, to the paths it plans) and read back (by the readers and assembly `import`
    //! uses), gives the sheet's texts back: in the format's key names, with placeholders in
    //! the sheet's syntax (printf, MessageFormat and .NET formats number them, as
    //! documented; ARB types them by the template's metadata), plural forms (po: those its
    //! locale's gettext slots hold; the others every CLDR category the sheet has) and
    //! comments (where the format has them).

    use std::collections::BTreeMap;

    use depot::formats::Format as AppFormat;
    use depot::formats::{Format, PlaceholderMode, Prepared};
    use depot::import::assemble::Assembler;
    use depot::import::{self, Options, discover};
    use depot::layout::{self, LayoutOptions};
    use depot::model::placeholders::{self, Piece};
    use depot::model::plurals;
    use depot::model::{Document, PluralCategory, Selection};
    use proptest::prelude::*;

    const LOCALES: [&str; 3] = ["en", "pl", "ar"];

    /// Hostile texts of the shared fixture (every format's escaping), for `keep`.
    fn hostile() -> Vec<String> {
        let sheet: serde_json::Value =
            serde_json::from_str(&super::support::fixture_text("sheets/hostile.sheet.json"))
                .unwrap();
        sheet["values"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|row| row.get(3)?.as_str().map(str::to_owned))
            .filter(|t| !t.is_empty() && t != "en_US")
            .collect()
    }

    /// A text with placeholders and literal braces, for `convert`: no literal `%` before a
    /// letter (a sheet's `%s` is printf's own placeholder to android), no `%` right before
    /// a brace (Rails' `%{`).
    fn placeholder_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "[a-zA-Zżółć ,.!?'\"<>&#@\\\\\n\t-]{1,8}",
            Just("{{".to_owned()),
            Just("}}".to_owned()),
            Just("100% ".to_owned()),
            "\\{(name|n|x_1)(:int|:float)?\\}",
        ];
        proptest::collection::vec(piece, 1..5).prop_map(|p| p.concat())
    }

    fn category_text(
        text: impl Strategy<Value = String> + Clone,
    ) -> impl Strategy<Value = Vec<(PluralCategory, String)>> {
        (
            proptest::option::of(text.clone()),
            proptest::option::of(text.clone()),
            proptest::option::of(text.clone()),
            text,
        )
            .prop_map(|(zero, one, few, other)| {
                let mut forms = Vec::new();
                if let Some(t) = zero {
                    forms.push((PluralCategory::Zero, format!("{t} {{count}}")));
                }
                if let Some(t) = one {
                    forms.push((PluralCategory::One, t));
                }
                if let Some(t) = few {
                    forms.push((PluralCategory::Few, format!("{{count}} {t}")));
                }
                forms.push((PluralCategory::Other, format!("{{count}} {other}")));
                forms
            })
    }

    /// A sheet: distinct keys `S<n>.K<m>`, texts or plural forms in some locales, comments.
    fn sheet(convert: bool) -> impl Strategy<Value = Vec<Vec<String>>> {
        let pool = hostile();
        let text: BoxedStrategy<String> = if convert {
            placeholder_text().boxed()
        } else {
            proptest::sample::select(pool).boxed()
        };
        let texts = proptest::collection::vec(proptest::option::weighted(0.8, text.clone()), 3);
        let plural = proptest::collection::vec(
            proptest::option::weighted(0.8, category_text(text.clone())),
            3,
        );
        let entry = (
            any::<bool>(),
            texts,
            plural,
            proptest::option::of("[A-Za-z ]{1,12}"),
        );
        proptest::collection::vec(entry, 1..8).prop_map(|entries| {
            let mut rows = vec![
                [">>>", ">>>", "$$$"]
                    .iter()
                    .map(|s| s.to_string())
                    .chain(LOCALES.map(String::from))
                    .collect::<Vec<_>>(),
            ];
            for (n, (is_plural, texts, forms, comment)) in entries.into_iter().enumerate() {
                let section = format!("S{}", n % 3);
                let key = format!("K{n}");
                if is_plural {
                    let categories = [
                        PluralCategory::Zero,
                        PluralCategory::One,
                        PluralCategory::Few,
                        PluralCategory::Other,
                    ];
                    let mut first = true;
                    for category in categories {
                        let cells: Vec<String> = forms
                            .iter()
                            .map(|f| {
                                f.as_ref()
                                    .and_then(|f| f.iter().find(|(c, _)| *c == category))
                                    .map(|(_, t)| t.clone())
                                    .unwrap_or_default()
                            })
                            .collect();
                        if cells.iter().all(String::is_empty) {
                            continue;
                        }
                        let comment = if first {
                            comment.clone().unwrap_or_default()
                        } else {
                            String::new()
                        };
                        first = false;
                        let mut row = vec![
                            section.clone(),
                            format!("{key}[{}]", category.name()),
                            comment,
                        ];
                        row.extend(cells);
                        rows.push(row);
                    }
                } else {
                    let mut row = vec![section, key, comment.unwrap_or_default()];
                    row.extend(texts.into_iter().map(Option::unwrap_or_default));
                    rows.push(row);
                }
            }
            rows
        })
    }

    /// What `generate -f format` writes, read back as `import` reads it.
    fn generate_and_import(
        doc: &Document,
        format: Format,
        mode: PlaceholderMode,
    ) -> Option<Document> {
        let base = layout::find_base(doc, "en");
        let options = Options {
            placeholders: mode,
            ..Options::default()
        };
        let prepared = Prepared::new(doc);
        let mut assembler = Assembler::new(&options);
        let mut formats = vec![format];
        if format == Format::Ios {
            formats.push(Format::Stringsdict);
        }
        for format in formats {
            let planned = layout::plan(
                doc,
                &Selection::all(doc),
                &LayoutOptions {
                    format,
                    language: None,
                    merge: false,
                    filename: None,
                    base,
                    comments: true,
                    placeholders: mode,
                    follow: None,
                },
            )
            .unwrap();
            let read_as: AppFormat = format.name().parse().unwrap();
            for file in planned {
                // a text the format cannot carry at all is refused by generate, not imported
                let rendered = prepared
                    .render_locale_tree(&file.selection, format, &file.options)
                    .ok()?;
                let found = discover::virtual_file(&file.path, read_as);
                let named = match &found.hint {
                    import::locale::Hint::Code(c) => Some(c.clone()),
                    import::locale::Hint::Base => Some("en".to_owned()),
                    import::locale::Hint::None => None,
                };
                let read = import::read_bytes(
                    &rendered.body,
                    read_as,
                    &found.shown,
                    named.as_deref(),
                    &options,
                )
                .unwrap_or_else(|e| {
                    panic!(
                        "{format} {}: {e}\n{}",
                        found.shown,
                        String::from_utf8_lossy(&rendered.body)
                    )
                });
                assembler.add(&found, read).unwrap();
            }
        }
        Some(assembler.finish().doc)
    }

    /// The key a format names an entry by, as the imported sheet holds it (levels joined
    /// with `.`). The sheet's keys are `S<n>.K<m>`: each segment one word to gen-l10n's ids
    /// and to resx's identifiers.
    fn key(path: &[String], format: Format) -> String {
        let capitalised = |s: &str| {
            let lower = s.to_lowercase();
            let mut chars = lower.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        };
        match format {
            Format::Json | Format::Yml | Format::Xlf | Format::I18next => path.join("."),
            // a bundle's keys: the path lower-cased and dotted, dots read back as levels
            Format::Properties => path.join(".").to_lowercase(),
            // lowerCamelCase: `S0.K1` → `s0K1`
            Format::Arb => path
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    if i == 0 {
                        s.to_lowercase()
                    } else {
                        capitalised(s)
                    }
                })
                .collect(),
            // PascalCase words joined with `_`: `S0.K1` → `S0_K1`
            Format::Resx => path
                .iter()
                .map(|s| capitalised(s))
                .collect::<Vec<_>>()
                .join("_"),
            _ => path.join("_").to_lowercase(),
        }
    }

    /// A sheet text as a numbered format gives it back: placeholders numbered by the base
    /// texts' order as `{argN}` (the quantity of a plural `{count}`), typed by conversion
    /// when `typed` (printf's `%d`, `%f`; MessageFormat's `{0}` and .NET's `{0}` are
    /// written without a type, which is the argument's own).
    fn numbered_back(text: &str, base: &[&str], plural: bool, typed: bool) -> String {
        let Ok(pieces) = placeholders::parse(text) else {
            return text.to_owned();
        };
        let mut names: Vec<String> = Vec::new();
        let mut numbered = |name: &str| -> usize {
            // the same numbering as the writers' (`Order::number`)
            let base_names: Vec<&str> = {
                let mut v = Vec::new();
                if plural {
                    v.push("count");
                }
                for t in base {
                    for n in placeholders::names(t) {
                        if !v.contains(&n) {
                            v.push(n);
                        }
                    }
                }
                v
            };
            match base_names.iter().position(|n| *n == name) {
                Some(i) => i + 1,
                None => {
                    if !names.iter().any(|n| n == name) {
                        names.push(name.to_owned());
                    }
                    base_names.len() + names.iter().position(|n| n == name).unwrap() + 1
                }
            }
        };
        let mut out = String::new();
        for piece in pieces {
            match piece {
                Piece::Literal(s) => out.push_str(s),
                Piece::Brace(c) => {
                    out.push(c);
                    out.push(c);
                }
                Piece::Placeholder { name, kind } => {
                    let n = numbered(name);
                    if plural && n == 1 {
                        out.push_str("{count}");
                        continue;
                    }
                    let suffix = match kind {
                        _ if !typed => "",
                        placeholders::Kind::Int => ":int",
                        placeholders::Kind::Float => ":float",
                        placeholders::Kind::Text => "",
                    };
                    out.push_str(&format!("{{arg{n}{suffix}}}"));
                }
            }
        }
        out
    }

    /// A sheet text as ARB gives it back. ARB is ICU MessageFormat whatever the mode, and
    /// gen-l10n types placeholders in the template's metadata, not in the message: each
    /// name takes the type it first has in the base locale's text(s) (the quantity `int`),
    /// a name the base lacks none; in a plural form the quantity is `{count}` untyped. A
    /// text whose braces do not parse is written as literal text: its braces come back
    /// doubled, which the sheet reads as the same literal text.
    fn arb_back(text: &str, base: &[&str], plural: bool) -> String {
        let Ok(pieces) = placeholders::parse(text) else {
            return text.replace('{', "{{").replace('}', "}}");
        };
        let mut declared: Vec<(&str, placeholders::Kind)> = Vec::new();
        if plural {
            declared.push(("count", placeholders::Kind::Int));
        }
        for t in base {
            for piece in placeholders::parse(t).unwrap_or_default() {
                if let Piece::Placeholder { name, kind } = piece
                    && !declared.iter().any(|(n, _)| *n == name)
                {
                    declared.push((name, kind));
                }
            }
        }
        let mut out = String::new();
        for piece in pieces {
            match piece {
                Piece::Literal(s) => out.push_str(s),
                Piece::Brace(c) => {
                    out.push(c);
                    out.push(c);
                }
                Piece::Placeholder { name, .. } => {
                    let kind = declared.iter().find(|(n, _)| *n == name).map(|(_, k)| *k);
                    let suffix = match kind {
                        _ if plural && name == "count" => "",
                        Some(placeholders::Kind::Int) => ":int",
                        Some(placeholders::Kind::Float) => ":float",
                        _ => "",
                    };
                    out.push_str(&format!("{{{name}{suffix}}}"));
                }
            }
        }
        out
    }

    /// A sheet text as a format gives it back.
    fn expected_text(
        text: &str,
        format: Format,
        mode: PlaceholderMode,
        base: &[&str],
        plural: bool,
    ) -> String {
        if format == Format::Arb {
            return arb_back(text, base, plural);
        }
        if mode == PlaceholderMode::Keep {
            return text.to_owned();
        }
        match format {
            Format::Android | Format::Ios | Format::Xcstrings => {
                numbered_back(text, base, plural, true)
            }
            Format::Properties | Format::Resx => numbered_back(text, base, plural, false),
            // Rails and i18next interpolate names only: the type goes
            Format::Yml | Format::I18next => text.replace(":int}", "}").replace(":float}", "}"),
            // `#` is the quantity, untyped
            Format::Json if plural => text
                .replace("{count:int}", "{count}")
                .replace("{count:float}", "{count}"),
            _ => text.to_owned(),
        }
    }

    /// (locale, key) → text, plural forms as `key[category]`, plus comments by key.
    type Texts = BTreeMap<(String, String), String>;

    fn texts_of(doc: &Document) -> (Texts, BTreeMap<String, String>) {
        let mut texts = Texts::new();
        let mut comments = BTreeMap::new();
        for entry in &doc.entries {
            // as the imported sheet holds it: `expected` gives each format's keys so
            let key = entry.path.join(".");
            if let Some(c) = &entry.comment {
                comments.insert(key.clone(), c.clone());
            }
            for (l, locale) in doc.locales.iter().enumerate() {
                match &entry.plural {
                    None => {
                        if let Some(Some(t)) = entry.texts.get(l) {
                            texts.insert((locale.clone(), key.clone()), t.clone());
                        }
                    }
                    Some(p) => {
                        for (c, t) in p.forms_in(l) {
                            texts.insert(
                                (locale.clone(), format!("{key}[{}]", c.name())),
                                t.to_owned(),
                            );
                        }
                    }
                }
            }
        }
        (texts, comments)
    }

    /// What the sheet should give back through `format`.
    fn expected(
        doc: &Document,
        format: Format,
        mode: PlaceholderMode,
    ) -> (Texts, BTreeMap<String, String>) {
        let mut texts = Texts::new();
        let mut comments = BTreeMap::new();
        for entry in &doc.entries {
            let key = key(&entry.path, format);
            // json and i18next files have no comments; gen-l10n reads a message's
            // description from the template (the base locale's file) only, which holds
            // the messages with a base text
            let has_base = match &entry.plural {
                None => matches!(entry.texts.first(), Some(Some(_))),
                Some(p) => p.forms_in(0).next().is_some(),
            };
            if let Some(c) = &entry.comment
                && !matches!(format, Format::Json | Format::I18next)
                && (format != Format::Arb || has_base)
            {
                comments.insert(key.clone(), c.clone());
            }
            let base = entry.texts_in(0);
            for (l, locale) in doc.locales.iter().enumerate() {
                match &entry.plural {
                    None => {
                        if let Some(Some(t)) = entry.texts.get(l) {
                            texts.insert(
                                (locale.clone(), key.clone()),
                                expected_text(t, format, mode, &base, false),
                            );
                        }
                    }
                    Some(p) => {
                        let mut forms: Vec<(PluralCategory, String)> =
                            p.forms_in(l).map(|(c, t)| (c, t.to_owned())).collect();
                        if format == Format::Po && !forms.is_empty() {
                            // one msgstr per gettext slot: `other`'s text where the sheet has
                            // none, which reads back as no form of its own
                            let other = p
                                .text(PluralCategory::Other, l)
                                .unwrap_or(&forms[0].1)
                                .to_owned();
                            let slots = plurals::gettext(locale).slots;
                            let has_other = slots.contains(&PluralCategory::Other);
                            forms = slots
                                .iter()
                                .filter_map(|&c| {
                                    let t = p
                                        .text(c, l)
                                        .map(str::to_owned)
                                        .unwrap_or_else(|| other.clone());
                                    let kept =
                                        c == PluralCategory::Other || !has_other || t != other;
                                    kept.then_some((c, t))
                                })
                                .collect();
                            // a formula without an `other` slot (Polish) gives its last
                            // slot's text to `other`
                            if !has_other && let Some((_, last)) = forms.last() {
                                let last = last.clone();
                                forms.push((PluralCategory::Other, last));
                            }
                        }
                        for (c, t) in forms {
                            let text = expected_text(&t, format, mode, &base, true);
                            texts.insert((locale.clone(), format!("{key}[{}]", c.name())), text);
                        }
                    }
                }
            }
        }
        (texts, comments)
    }

    fn check(rows: Vec<Vec<String>>, mode: PlaceholderMode) -> Result<(), TestCaseError> {
        let doc = depot::markup::convert(rows).unwrap();
        prop_assume!(!doc.is_empty());
        for format in [
            Format::Android,
            Format::Ios,
            Format::Json,
            Format::Yml,
            Format::Po,
            Format::Xlf,
            Format::Xcstrings,
            Format::Arb,
            Format::I18next,
            Format::Properties,
            Format::Resx,
        ] {
            let Some(back) = generate_and_import(&doc, format, mode) else {
                continue;
            };
            let (texts, comments) = texts_of(&back);
            let (want_texts, want_comments) = expected(&doc, format, mode);
            prop_assert_eq!(&texts, &want_texts, "{} {:?}", format, mode);
            prop_assert_eq!(&comments, &want_comments, "{} comments", format);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        #[test]
        fn hostile_sheets_come_back_from_every_format(rows in sheet(false)) {
            check(rows, PlaceholderMode::Keep)?;
        }

        #[test]
        fn sheets_with_placeholders_come_back_converted_from_every_format(rows in sheet(true)) {
            check(rows, PlaceholderMode::Convert)?;
        }
    }
}

#[test]
fn a_lone_surrogate_escape_is_refused_naming_file_line_and_key_and_a_pair_is_imported() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[(
            "java/messages_en.properties",
            b"ok=fine \\uD83D\\uDE00\nbroken=x\\uD800y\n",
        )],
    );
    let out = support::run(dir.path(), &["import", "--to", "sheet.csv", "java"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "depot: error: java/messages_en.properties:2: key \"broken\": \\uD800 is the first half \
         of a UTF-16 surrogate pair, and its second half does not follow it: write the \
         character itself, or both halves (\\uD83D\\uDE00 is U+1F600)\n"
    );
    assert!(!dir.path().join("sheet.csv").exists());
    // Both halves written: one character, as Java reads them.
    write_files(
        dir.path(),
        &[(
            "java/messages_en.properties",
            b"ok=fine \\uD83D\\uDE00\nbroken=x\\uD83D\\uDE00y\n",
        )],
    );
    depot_ok(dir.path(), &["import", "--to", "sheet.csv", "java"]);
    assert_eq!(
        // the app's MessageFormat kept (`placeholders=java`), the cell above the header
        std::fs::read_to_string(dir.path().join("sheet.csv"))
            .unwrap()
            .replacen("depot: placeholders=java,,,\n", "", 1),
        ">>>,###,$$$,en\nok,,,fine 😀\nbroken,,,x😀y\n"
    );
}

#[test]
fn merge_into_reads_a_csv_as_excel_saves_it_or_says_how_to_save_it() {
    let dir = tempfile::tempdir().unwrap();
    let rows: [&[&str]; 3] = [
        &[">>>", ">>>", "en", "pl"],
        &["CORE", "", "", ""],
        &["", "GREETING", "\"Hello; friend\"", "Zażółć gęślą jaźń"],
    ];
    let sheet = |separator: &str| -> String {
        rows.iter()
            .map(|row| row.join(separator) + "\r\n")
            .collect()
    };
    // "CSV (Comma delimited)" on a Polish Windows: cp1250, ';', CRLF, a quoted cell
    let semicolons = sheet(";");
    let (cp1250, _, unmappable) = encoding_rs::WINDOWS_1250.encode(&semicolons);
    assert!(!unmappable);
    // "Unicode text": UTF-16LE with its mark, tab separated
    let mut unicode_text = vec![0xFF, 0xFE];
    unicode_text.extend(sheet("\t").encode_utf16().flat_map(u16::to_le_bytes));
    write_files(
        dir.path(),
        &[
            (
                "app/en.json",
                br#"{"CORE":{"GREETING":"Hello; friend","NEW":"New"}}"#,
            ),
            ("cp1250.csv", &cp1250),
            ("unicode.csv", &unicode_text),
        ],
    );
    let expected = ">>>,>>>,en,pl\nCORE,,,\n,GREETING,Hello; friend,Zażółć gęślą jaźń\n,NEW,New,\n";
    for (name, flags) in [
        ("cp1250.csv", &["--encoding", "windows-1250"][..]),
        ("unicode.csv", &[]),
    ] {
        let mut args = vec!["import", "app", "--merge-into", name, "--to", "merged.csv"];
        args.extend_from_slice(flags);
        depot_ok(dir.path(), &args);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("merged.csv")).unwrap(),
            expected,
            "{name}"
        );
    }
    let out = support::run(
        dir.path(),
        &[
            "import",
            "app",
            "--merge-into",
            "cp1250.csv",
            "--to",
            "merged2.csv",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "cp1250.csv line 3 is not UTF-8 text: the file was saved in another encoding"
        ) && stderr(&out).contains("Save it as \"CSV UTF-8 (Comma delimited)\" (Excel)"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("merged2.csv").exists());
}

/// The lines of `file` holding one text (`<string name=…>`, `<item quantity=…>`,
/// `"key" = "text";`), trimmed: what must come back byte for byte.
fn text_lines(file: &Path) -> Vec<String> {
    let body = std::fs::read_to_string(file).unwrap();
    (body.lines())
        .map(str::trim)
        .filter(|l| {
            (l.starts_with("<string name=") || l.starts_with("<item quantity=") || l.ends_with("\";"))
                // issue 32's "keep" part: what the sheet does not own (not asserted here)
                && !l.contains("translatable=\"false\"")
        })
        .map(str::to_owned)
        .collect()
}

/// Issue 32's new user (SPEC §12.1 "Placeholders survive the defaults"): an Android + iOS
/// app imported and generated with no flags gives every text back byte for byte, each
/// platform's placeholders its own (`Pay %1$s` on Android, `Pay %@` on iOS, one row in the
/// sheet), and diff with no flags reports exactly the one text a translator edited, once.
/// (`app_name` kept and no extra `values-en/` are the "keep" part of issue 32: not here.)
#[test]
fn an_android_and_ios_app_comes_back_byte_for_byte_with_no_flags() {
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/app"),
        &app,
    );
    let out = depot_ok(dir.path(), &["import", "app", "--to", "s.csv"]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        said.contains(
            "placeholders: kept as the app writes them (printf); the sheet's settings cell says \
             so (depot: placeholders=printf), and generate, serve and diff follow it"
        ),
        "{said}"
    );
    let sheet = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    let lines: Vec<&str> = sheet.lines().collect();
    assert_eq!(lines[0], "depot: placeholders=printf,,,,");
    assert_eq!(lines[1], ">>>,###,$$$,en,pl");
    assert!(
        lines.contains(
            &"checkout_pay,,The button under the basket; %@ is the total with its currency,Pay %1$s,Zapłać %1$s"
        ),
        "{sheet}"
    );
    assert!(!stderr(&out).contains("differs"), "{}", stderr(&out));

    for (format, to) in [("android", "out/android"), ("ios", "out/ios")] {
        depot_ok(
            dir.path(),
            &["generate", "--source", "s.csv", "-f", format, "-p", to],
        );
    }
    for (original, generated) in [
        (
            "android/res/values/strings.xml",
            "android/values/strings.xml",
        ),
        (
            "android/res/values-pl/strings.xml",
            "android/values-pl/strings.xml",
        ),
        (
            "ios/en.lproj/Localizable.strings",
            "ios/en.lproj/Localizable.strings",
        ),
        (
            "ios/pl.lproj/Localizable.strings",
            "ios/pl.lproj/Localizable.strings",
        ),
    ] {
        let written = text_lines(&dir.path().join("out").join(generated));
        let had = text_lines(&app.join(original));
        assert!(had.len() >= 4, "{original}: {had:?}");
        for line in had {
            assert!(
                written.contains(&line),
                "{generated} lacks {line}: {written:#?}"
            );
        }
    }

    // the app's files generated in place; then diff with no flags
    for (format, to) in [("android", "app/android/res"), ("ios", "app/ios")] {
        depot_ok(
            dir.path(),
            &["generate", "--source", "s.csv", "-f", format, "-p", to],
        );
    }
    // What the sheet does not own stays (app_name, translatable="false"), no base folder
    // the app does not have appears (values-en/, Base.lproj/), and every file is the
    // original byte for byte but for the keys only the other platform had (one sheet
    // holds both apps' keys): each appended where the file appends.
    assert!(!app.join("android/res/values-en").exists());
    assert!(!app.join("ios/Base.lproj").exists());
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/app");
    for (file, appended) in [
        (
            "android/res/values/strings.xml",
            "    <string name=\"settings_sign_out\">Sign out</string>\n",
        ),
        (
            "android/res/values-pl/strings.xml",
            "    <string name=\"settings_sign_out\">Wyloguj się</string>\n",
        ),
        (
            "ios/en.lproj/Localizable.strings",
            "\"checkout_greeting\" = \"Thanks, %1$@! Your order %2$d is on its way.\";\n",
        ),
        (
            "ios/pl.lproj/Localizable.strings",
            "\"checkout_greeting\" = \"Dzięki, %1$@! Zamówienie %2$d jest w drodze.\";\n",
        ),
    ] {
        let original = std::fs::read_to_string(example.join(file)).unwrap();
        let want = match original.strip_suffix("</resources>\n") {
            Some(head) => format!("{head}{appended}</resources>\n"),
            None => format!("{original}{appended}"),
        };
        assert_eq!(
            std::fs::read_to_string(app.join(file)).unwrap(),
            want,
            "{file}"
        );
    }
    assert!(
        std::fs::read_to_string(app.join("android/res/values/strings.xml"))
            .unwrap()
            .contains("<string name=\"app_name\" translatable=\"false\">Basket</string>")
    );
    // a second run finds nothing to change
    for (format, to) in [("android", "app/android/res"), ("ios", "app/ios")] {
        let out = depot_ok(
            dir.path(),
            &["generate", "--source", "s.csv", "-f", format, "-p", to],
        );
        let said = String::from_utf8(out.stdout).unwrap();
        assert!(
            (said.lines())
                .filter(|l| !l.starts_with("pl: "))
                .all(|l| l.starts_with("unchanged ")),
            "{said}"
        );
    }
    depot_ok(dir.path(), &["diff", "--source", "s.csv", "app"]);
    std::fs::write(
        dir.path().join("edited.csv"),
        sheet.replace("Zapłać %1$s", "Zapłać teraz %1$s"),
    )
    .unwrap();
    let out = support::run(dir.path(), &["diff", "--source", "edited.csv", "app"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = report.lines().map(str::trim).collect();
    assert_eq!(
        lines,
        [
            "pl: 0 only in the app, 0 only in the sheet, 1 differ",
            "differs:           checkout_pay: app \"Zapłać %1$s\", sheet \"Zapłać teraz %1$s\"",
        ],
        "{report}"
    );
}

/// Files of two placeholder syntaxes cannot share one sheet's texts as they are: an
/// Android app and a resx project are converted to depot's `{name}` as before (no
/// settings cell), and the summary says why.
#[test]
fn files_of_two_syntaxes_are_converted_and_the_summary_says_why() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "app/res/values/strings.xml",
                b"<resources><string name=\"pay\">Pay %1$s</string></resources>",
            ),
            (
                "app/Strings.resx",
                b"<?xml version=\"1.0\" encoding=\"utf-8\"?><root><data name=\"Total\" xml:space=\"preserve\"><value>Total {0}</value></data></root>",
            ),
        ],
    );
    let out = depot_ok(dir.path(), &["import", "app", "--to", "s.csv"]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        said.contains(
            "placeholders: converted to depot's {name}: the files mix syntaxes (resx \
             (dotnet), android (printf)) and one sheet holds one; --placeholders keep keeps them \
             as they are"
        ),
        "{said}"
    );
    let sheet = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    assert!(!sheet.contains("depot:"), "{sheet}");
    assert!(sheet.contains("pay,,,Pay {arg1}"), "{sheet}");
    assert!(sheet.contains("Total,,,Total {arg1}"), "{sheet}");
}

/// SPEC §12.1, found on kiwix-apple (`pt-br.lproj/`, `zh-hans.lproj/`, `skr-arab.lproj/`)
/// and on i18next apps (`locales/pt_br/`): an app's locale folders spelled in another case
/// or with `_` are the ones generate writes into. Before, generate wrote beside them a
/// second folder for the same locale in depot's spelling (`pt-BR.lproj/`).
#[test]
fn locale_folders_the_app_spells_otherwise_are_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, body: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    };
    write("ios/en.lproj/Localizable.strings", "\"a.b\" = \"Hello\";\n");
    write(
        "ios/pt-br.lproj/Localizable.strings",
        "\"a.b\" = \"Olá\";\n",
    );
    write(
        "ios/zh-hans.lproj/Localizable.strings",
        "\"a.b\" = \"你好\";\n",
    );
    write("web/en/common.json", "{\n  \"hello\": \"Hello\"\n}\n");
    write("web/pt_br/common.json", "{\n  \"hello\": \"Olá\"\n}\n");
    let before = |root: &str| {
        let mut all: Vec<(String, Vec<u8>)> = walk(&dir.path().join(root));
        all.sort();
        all
    };
    let (ios, web) = (before("ios"), before("web"));
    depot_ok(dir.path(), &["import", "ios", "--to", "ios.csv"]);
    depot_ok(
        dir.path(),
        &["import", "web", "--format", "i18next", "--to", "web.csv"],
    );
    depot_ok(
        dir.path(),
        &["generate", "--source", "ios.csv", "-f", "ios", "-p", "ios"],
    );
    depot_ok(
        dir.path(),
        &[
            "generate", "--source", "web.csv", "-f", "i18next", "-n", "common", "-p", "web",
        ],
    );
    assert_eq!(before("ios"), ios, "the ios tree changed");
    assert_eq!(before("web"), web, "the i18next tree changed");

    // a changed text goes into the app's folder
    let sheet = std::fs::read_to_string(dir.path().join("ios.csv")).unwrap();
    std::fs::write(dir.path().join("ios.csv"), sheet.replace("Olá", "Oi")).unwrap();
    depot_ok(
        dir.path(),
        &["generate", "--source", "ios.csv", "-f", "ios", "-p", "ios"],
    );
    let names: Vec<String> = before("ios").into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "en.lproj/Localizable.strings",
            "pt-br.lproj/Localizable.strings",
            "zh-hans.lproj/Localizable.strings"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ios/pt-br.lproj/Localizable.strings")).unwrap(),
        "\"a.b\" = \"Oi\";\n"
    );
}

/// Every file under `root`: its path relative to `root` and its bytes.
fn walk(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let name = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                found.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    found
}
