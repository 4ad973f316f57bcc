//! The translations against what broke them: texts with `%` that aapt refused, locale
//! codes that became folder names the platforms refuse, keys left out without a word,
//! and sheets deep or wide enough to take the daemon or `generate` down. Android output is
//! compiled with the real aapt and aapt2 (Debian: `apt-get install -y aapt`, which ships
//! both); a test fails with that hint when they are missing.
#![cfg(test)]

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use depot::model::{Document, Entry, MAX_KEY_DEPTH, MAX_LOCALES};
use depot::translations::store::{SledStore, StoredDocument, TranslationStore};
use support::{Daemon, TestServer, eventually, run};

// ------------------------------------------------------------------ helpers

fn csv_field(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

fn write_csv(dir: &Path, name: &str, rows: &[Vec<String>]) {
    let text: String = rows
        .iter()
        .map(|row| {
            let cells: Vec<String> = row.iter().map(|c| csv_field(c)).collect();
            cells.join(",") + "\n"
        })
        .collect();
    std::fs::write(dir.join(name), text).unwrap();
}

fn row(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| (*c).to_owned()).collect()
}

fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every `(name, value)` a resource dump of aapt (`dump --values resources`) or aapt2
/// (`dump resources`) lists for string resources, over every configuration.
fn dumped_strings(dump: &str) -> BTreeMap<String, Vec<String>> {
    let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current = None;
    for line in dump.lines() {
        let line = line.trim();
        if line.starts_with("resource ") {
            current = line
                .split_whitespace()
                .find_map(|word| word.split_once("string/"))
                .map(|(_, name)| name.trim_end_matches(':').to_owned());
        } else if let Some(name) = &current
            && line.starts_with('(')
            && let Some(start) = line.find(") \"")
        {
            let value = &line[start + 3..line.len() - 1];
            values
                .entry(name.clone())
                .or_default()
                .push(value.to_owned());
        }
    }
    values
}

/// Builds the resource folder `res` (what `depot generate --format android` wrote) with
/// aapt and with aapt2, without android.jar, and returns each tool's dump of the strings.
fn build_with_aapt_and_aapt2(res: &Path) -> [BTreeMap<String, Vec<String>>; 2] {
    support::android::build_with_aapt_and_aapt2(res).map(|dump| dumped_strings(&dump))
}

fn folders(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

// ------------------------------------------------------------------ item: % in android texts

/// Texts with `%` that aapt or aapt2 count as several non-positional arguments, and
/// some they accept; no `"`, `\` or newline, so that the dumps show them as they are.
const PERCENT_TEXTS: [&str; 14] = [
    "Welcome back %user%, your plan renews soon",
    "Up to 30%, plus 5% cashback",
    "%n",
    "%n and %s",
    "%%",
    "%1$s %2$d",
    "100%",
    "%s %d",
    "  %s 50%",
    "%s & %<D",
    "Save 20% now, 10% later",
    "%d%% off %s",
    "50%n%s",
    "It's 100% <b>free</b>",
];

#[test]
fn android_texts_with_percent_compile_with_aapt_and_aapt2_and_read_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vec![row(&[">>>", "en"])];
    for (i, text) in PERCENT_TEXTS.iter().enumerate() {
        rows.push(row(&[&format!("K{i:02}"), text]));
    }
    write_csv(dir.path(), "percent.csv", &rows);
    let out = run(
        dir.path(),
        &[
            "generate",
            "--source",
            "percent.csv",
            "-f",
            "android",
            "-p",
            "app/res",
        ],
    );
    assert_ok(&out);
    for dump in build_with_aapt_and_aapt2(&dir.path().join("app/res")) {
        for (i, text) in PERCENT_TEXTS.iter().enumerate() {
            let name = format!("k{i:02}");
            // values/ (the base) and values-en/ both hold it
            assert_eq!(
                dump.get(&name).map(Vec::as_slice),
                Some(&[text.to_string(), text.to_string()][..]),
                "{name}: {dump:?}"
            );
        }
    }
}

// ------------------------------------------------------------------ item: locale folders

#[test]
fn locale_codes_give_folders_that_aapt_aapt2_and_apple_accept() {
    let dir = tempfile::tempdir().unwrap();
    let locales = [
        "en",
        "zh_Hant",
        "uz_Cyrl",
        "es_419",
        "sr_Latn_RS",
        "pt_BR",
        "pl_PL",
        "zh_hant_TW",
        "fil",
    ];
    let mut header = vec![">>>".to_owned()];
    header.extend(locales.iter().map(|l| (*l).to_owned()));
    let mut texts = vec!["GREETING".to_owned()];
    texts.extend(locales.iter().map(|l| format!("hello {l}")));
    write_csv(dir.path(), "locales.csv", &[header, texts]);
    for format in ["android", "ios"] {
        assert_ok(&run(
            dir.path(),
            &[
                "generate",
                "--source",
                "locales.csv",
                "-f",
                format,
                "-p",
                &format!("{format}/res"),
            ],
        ));
    }
    assert_eq!(
        folders(&dir.path().join("android/res")),
        [
            "values",
            "values-b+es+419",
            "values-b+sr+Latn+RS",
            "values-b+uz+Cyrl",
            "values-b+zh+Hant",
            "values-b+zh+Hant+TW",
            "values-en",
            "values-fil",
            "values-pl",
            "values-pt-rBR",
        ]
    );
    assert_eq!(
        folders(&dir.path().join("ios/res")),
        [
            "Base.lproj",
            "en.lproj",
            "es-419.lproj",
            "fil.lproj",
            "pl.lproj",
            "pt-BR.lproj",
            "sr-Latn-RS.lproj",
            "uz-Cyrl.lproj",
            "zh-Hant-TW.lproj",
            "zh-Hant.lproj",
        ]
    );
    for dump in build_with_aapt_and_aapt2(&dir.path().join("android/res")) {
        let mut values = dump.get("greeting").cloned().unwrap_or_default();
        values.sort();
        values.dedup();
        let mut expected: Vec<String> = locales.iter().map(|l| format!("hello {l}")).collect();
        expected.sort();
        assert_eq!(
            values, expected,
            "every locale's folder is compiled: {dump:?}"
        );
    }
}

// ------------------------------------------------------------------ item: silent omissions

fn colliding_sheet() -> Vec<Vec<String>> {
    vec![
        row(&[">>>", ">>>", "en", "pl"]),
        row(&["X", "A_B", "first", "pierwszy"]),
        row(&["X_A", "B", "second", "drugi"]),
        row(&["Ün", "code", "u", "ü"]),
        row(&["_n", "code", "n", "ń"]),
        row(&["OK", "", "ok", "ok"]),
    ]
}

#[tokio::test]
async fn a_body_that_leaves_a_key_out_says_so_in_a_header_and_health_lists_it() {
    let server = TestServer::start().await;
    server.put_sheet(colliding_sheet()).await;
    let reply = server
        .get("/translations?format=android&filters[]=en", &[])
        .await;
    assert_eq!(reply.status, 200);
    assert!(!reply.text().contains("second"), "{}", reply.text());
    assert_eq!(
        reply.header("depot-warnings"),
        Some(
            "\"keys 'X.A_B' and 'X_A.B' both become the name 'x_a_b'; kept 'X.A_B', left out \
             'X_A.B'\", \"keys '%C3%9Cn.code' and '_n.code' both become the name \
             '_n_code'; kept '%C3%9Cn.code', left out '_n.code'\""
        )
    );
    // ios, xlf and po names collide too (without the android mapping of Ü)
    for format in ["ios", "xlf", "po"] {
        let reply = server
            .get(&format!("/translations?format={format}&filters[]=pl"), &[])
            .await;
        assert_eq!(
            reply.header("depot-warnings"),
            Some(
                "\"keys 'X.A_B' and 'X_A.B' both become the name 'x_a_b'; kept 'X.A_B', left \
                 out 'X_A.B'\""
            ),
            "{format}"
        );
    }
    // json keeps every key: no header
    let reply = server.get("/translations", &[]).await;
    assert!(reply.text().contains("second"));
    assert_eq!(reply.header("depot-warnings"), None);

    let health: serde_json::Value = server
        .client
        .get(server.url("/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let warnings = &health["translations"]["renderWarnings"];
    let x = "keys 'X.A_B' and 'X_A.B' both become the name 'x_a_b'; kept 'X.A_B', left out 'X_A.B'";
    let u = "keys 'Ün.code' and '_n.code' both become the name '_n_code'; kept 'Ün.code', \
             left out '_n.code'";
    // resx names fold both pairs too (properties keeps `x.a_b` and `x_a.b` apart)
    let xr = x.replace("'x_a_b'", "'X_A_B'");
    let ur = u.replace("'_n_code'", "'_N_Code'");
    // the String Catalog has ios names; ARB its own ids
    let arb_x =
        "keys 'X.A_B' and 'X_A.B' both become the name 'xAB'; kept 'X.A_B', left out 'X_A.B'";
    let arb_u = "keys 'Ün.code' and '_n.code' both become the name 'nCode'; kept 'Ün.code', \
                 left out '_n.code'";
    assert_eq!(
        *warnings,
        serde_json::json!({
            "android": [x, u], "ios": [x], "xlf": [x], "po": [x], "xcstrings": [x],
            "arb": [arb_x, arb_u], "resx": [xr, ur]
        }),
        "{health}"
    );
}

#[test]
fn generate_warns_about_each_collision_per_file() {
    let dir = tempfile::tempdir().unwrap();
    write_csv(dir.path(), "collide.csv", &colliding_sheet());
    let out = run(
        dir.path(),
        &[
            "generate",
            "--source",
            "collide.csv",
            "-f",
            "ios",
            "-p",
            "out",
        ],
    );
    assert_ok(&out);
    let err = stderr(&out);
    for file in ["en.lproj", "pl.lproj", "Base.lproj"] {
        let line = format!(
            "depot: warning: {file}/Localizable.strings (keys 'X.A_B' and 'X_A.B' both become \
             the name 'x_a_b'; kept 'X.A_B', left out 'X_A.B')"
        );
        assert!(err.lines().any(|l| l == line), "{file}: {err}");
    }
}

// ------------------------------------------------------------------ item: deep and wide sheets

/// The `n`-th of 17,576 three-letter language codes, `aaa`, `aab`, ...
fn language(n: usize) -> String {
    [n / 676 % 26, n / 26 % 26, n % 26]
        .iter()
        .map(|&d| char::from(b'a' + u8::try_from(d).unwrap()))
        .collect()
}

/// A sheet at the limits: `MAX_LOCALES` locale columns, `MAX_KEY_DEPTH + extra` key
/// columns, keys `MAX_KEY_DEPTH` levels deep, and one row whose key lies deeper.
fn wide_and_deep_sheet(keys: usize, extra_levels: usize) -> Vec<Vec<String>> {
    let levels = MAX_KEY_DEPTH + extra_levels;
    let mut header: Vec<String> = vec![">>>".to_owned(); levels];
    header.extend((0..MAX_LOCALES).map(language));
    let mut rows = vec![header];
    for k in 0..keys {
        let mut row: Vec<String> = (0..MAX_KEY_DEPTH - 1)
            .map(|level| format!("S{level}_{}", k % 2))
            .collect();
        row.push(format!("K{k}"));
        row.resize(levels, String::new());
        row.extend((0..MAX_LOCALES).map(|l| format!("t{k}.{l}")));
        rows.push(row);
    }
    let mut too_deep = vec![String::new(); levels];
    too_deep[levels - 1] = "DEEPER".to_owned();
    too_deep.push("lost".to_owned());
    rows.push(too_deep);
    rows
}

#[test]
fn a_sheet_at_the_limits_generates_and_deeper_keys_are_refused_naming_the_cell() {
    let dir = tempfile::tempdir().unwrap();
    write_csv(dir.path(), "wide.csv", &wide_and_deep_sheet(6, 3));
    let out = run(
        dir.path(),
        &[
            "generate",
            "--source",
            "wide.csv",
            "-f",
            "json,yml,android",
            "-p",
            "out",
            "--base",
            "aaa",
        ],
    );
    assert_ok(&out);
    let err = stderr(&out);
    assert!(
        err.contains(
            "depot: warning: AG1 3 key columns ('>>>') after the first 32, from this one on, \
             were ignored"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "depot: warning: AI8 key \"DEEPER\" is at level 35, deeper than the 32 levels \
             allowed: row skipped"
        ),
        "{err}"
    );
    let last = language(MAX_LOCALES - 1);
    let json = std::fs::read_to_string(dir.path().join(format!("out/{last}.json"))).unwrap();
    let mut expected = String::new();
    for level in 0..MAX_KEY_DEPTH - 1 {
        expected.push_str(&format!("{{\"S{level}_0\":"));
    }
    expected.push_str("{\"K0\":\"t0.999\",\"K2\":\"t2.999\",\"K4\":\"t4.999\"}");
    assert!(json.starts_with(&expected), "{json}");
    assert_eq!(
        folders(&dir.path().join("out")).len(),
        2 * MAX_LOCALES + MAX_LOCALES + 1,
        "a json and a yml file and an android folder per locale, and values/"
    );
}

#[test]
fn too_many_locale_columns_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let mut header = vec![">>>".to_owned()];
    header.extend((0..=MAX_LOCALES).map(|l| format!("l{l}")));
    write_csv(dir.path(), "wider.csv", &[header, row(&["K", "k"])]);
    let out = run(
        dir.path(),
        &["generate", "--source", "wider.csv", "-p", "out"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("the header row (row 1) has 1001 locale columns; at most 1000 are allowed"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn a_hundred_thousand_key_levels_in_one_row_do_not_take_generate_down() {
    let dir = tempfile::tempdir().unwrap();
    let levels = 100_000;
    let mut header = vec![">>>".to_owned(); levels];
    header.push("en".to_owned());
    let mut keys: Vec<String> = (0..levels).map(|l| format!("K{l}")).collect();
    keys.push("text".to_owned());
    write_csv(dir.path(), "deep.csv", &[header, ok_row(levels), keys]);
    for format in ["json", "yml"] {
        let out = run(
            dir.path(),
            &[
                "generate", "--source", "deep.csv", "-f", format, "-p", "out",
            ],
        );
        assert_ok(&out);
        assert!(
            stderr(&out).contains("deeper than the 32 levels allowed: row skipped"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/en.json")).unwrap(),
        r#"{"OK":"fine"}"#
    );
}

/// `OK` = `fine` in a sheet with `levels` key columns and one locale.
fn ok_row(levels: usize) -> Vec<String> {
    let mut ok = vec![String::new(); levels + 1];
    ok[0] = "OK".to_owned();
    ok[levels] = "fine".to_owned();
    ok
}

/// A document deeper than any sheet converts to now, as an older depot stored it.
fn deep_document(levels: usize) -> StoredDocument {
    StoredDocument::new(Document {
        settings: Default::default(),
        namespaces: Vec::new(),
        locales: vec!["en".into()],
        entries: vec![Entry {
            path: (0..levels).map(|l| format!("K{l}")).collect(),
            texts: vec![Some("deep".into())],
            ..Entry::default()
        }],
        warnings: Vec::new(),
        findings: Vec::new(),
    })
    .unwrap()
}

#[tokio::test]
async fn a_stored_document_that_cannot_be_served_neither_stops_serve_nor_is_served() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = SledStore::open(&dir.path().join("data/translations.sled")).unwrap();
        let deep = deep_document(100_000);
        let summary = depot::translations::versions::VersionSummary::between(None, &deep);
        store.save(&deep, &summary, 10).unwrap();
        store.flush().unwrap();
    }
    write_csv(
        dir.path(),
        "sheet.csv",
        &[row(&[">>>", "en"]), row(&["HELLO", "Hello"])],
    );
    // Started twice: every restart must come up, not only the first.
    for _ in 0..2 {
        let mut daemon = Daemon::start(dir.path(), &["--set", "producer.enabled=false"], &[]).await;
        let (status, health) = daemon.get_json("/health").await;
        assert_eq!(status, 200);
        assert_eq!(health["translations"]["loaded"], false, "{health}");
        let error = health["translations"]["loadError"]
            .as_str()
            .unwrap_or_default();
        assert!(
            error.contains("the key 'K0.K1.K2.…' has 100000 levels; at most 32 are allowed"),
            "{health}"
        );
        for path in ["/translations", "/translations?format=yml"] {
            assert_eq!(daemon.get(path).await.status(), 503, "{path}");
        }
        daemon.terminate(Duration::from_secs(10));
    }
    // A sync replaces it.
    let daemon = Daemon::start(
        dir.path(),
        &[
            "--set",
            "producer.source=sheet.csv",
            "--set",
            "producer.interval_secs=1",
        ],
        &[],
    )
    .await;
    let body = eventually(Duration::from_secs(20), || async {
        let response = daemon.get("/translations").await;
        (response.status() == 200).then_some(())?;
        response.text().await.ok()
    })
    .await;
    assert_eq!(body.as_deref(), Some(r#"{"en":{"HELLO":"Hello"}}"#));
    let (_, health) = daemon.get_json("/health").await;
    assert_eq!(health["translations"]["loadError"], serde_json::Value::Null);
}

#[tokio::test]
async fn a_document_past_the_limits_is_never_stored() {
    let server = TestServer::start().await;
    server
        .put_sheet(vec![row(&[">>>", "en"]), row(&["A", "a"])])
        .await;
    let state = server.state.clone();
    let refused = tokio::task::spawn_blocking(move || {
        state
            .translations
            .put(deep_document(MAX_KEY_DEPTH + 1).document, 10)
            .unwrap_err()
            .to_string()
    })
    .await
    .unwrap();
    assert_eq!(
        refused,
        "the document cannot be served (the key 'K0.K1.K2.…' has 33 levels; at most 32 are \
         allowed); the last good document is kept"
    );
    let reply = server.get("/translations", &[]).await;
    assert_eq!(reply.text(), r#"{"en":{"A":"a"}}"#);
}

#[test]
fn produce_once_of_a_deep_sheet_stores_what_can_be_served() {
    let dir = tempfile::tempdir().unwrap();
    let levels = 5_000;
    let mut header = vec![">>>".to_owned(); levels];
    header.push("en".to_owned());
    let mut keys: Vec<String> = (0..levels).map(|l| format!("K{l}")).collect();
    keys.push("text".to_owned());
    write_csv(dir.path(), "deep.csv", &[header, ok_row(levels), keys]);
    let out = run(dir.path(), &["produce", "--once", "--source", "deep.csv"]);
    assert_ok(&out);
    let store = SledStore::open(&dir.path().join("data/translations.sled")).unwrap();
    let stored = store.load().unwrap().expect("a stored document");
    assert_eq!(stored.document.entries.len(), 1);
    assert_eq!(stored.document.entries[0].path, ["OK"]);
}
