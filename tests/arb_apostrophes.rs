//! Flutter apps on gen-l10n's default (no `use-escaping` in l10n.yaml) read an apostrophe in
//! an ARB text as text; apps with `use-escaping: true` read ICU's quoting (`''`, `'{'`).
//! Import follows the app's l10n.yaml and says it in the settings cell (`arb=plain`);
//! generate, diff and the keep step follow the sheet. Each app goes import → generate (no
//! flags but the format and path) → the files come back byte for byte → one text edited in
//! the sheet → only that line changes → gen-l10n's parser (tests/node/consumers.js, with
//! the app's use-escaping) reads it.
#![cfg(test)]

mod support;

use std::path::Path;

use support::real_apps::{Text, arb, l10n_use_escaping};

const EN: &str = r#"{
  "@@locale": "en",
  "dontStop": "Don't stop, {name}",
  "@dontStop": {
    "placeholders": {
      "name": {
        "type": "String"
      }
    }
  },
  "teamBattle": "{count, plural, =1{Battle of {count} team} other{Battle of {count} teams}}",
  "@teamBattle": {
    "placeholders": {
      "count": {
        "type": "int"
      }
    }
  },
  "useServer": "Use '{server}' to log in",
  "@useServer": {
    "placeholders": {
      "server": {
        "type": "String"
      }
    }
  }
}
"#;

const CA: &str = r#"{
  "@@locale": "ca",
  "dontStop": "No t'aturis, {name}",
  "teamBattle": "{count, plural, =1{Batalla d'{count} equip} other{Batalla de {count} equips}}",
  "useServer": "Fes servir '{server}' per entrar"
}
"#;

fn depot(dir: &Path, args: &[&str]) -> std::process::Output {
    support::run(dir, args)
}

/// A run that succeeds: what it said (stdout, then stderr).
fn ok(dir: &Path, args: &[&str]) -> String {
    let out = support::run_ok(dir, args, std::iter::empty::<(&str, &str)>());
    String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap()
}

fn file(dir: &Path, locale: &str) -> String {
    std::fs::read_to_string(dir.join(format!("lib/l10n/app_{locale}.arb"))).unwrap()
}

const GENERATE: &[&str] = &[
    "generate", "--source", "s.csv", "-f", "arb", "-p", "lib/l10n",
];

/// What gen-l10n (with the app's l10n.yaml) reads for `id` in `locale`, as parts.
fn reads(dir: &Path, locale: &str, id: &str) -> String {
    let texts = arb(&dir.join("lib/l10n"), "app_en.arb").unwrap();
    match &texts[locale][id] {
        Text::Plain(parts) => parts.clone(),
        other => panic!("{other:?}"),
    }
}

/// The round trip of an app with `l10n_yaml` whose files are `en` and `ca` (EN and CA as
/// the app's gen-l10n writes them): import carries every text, generate with no flags but
/// the format and path gives the files back byte for byte, and `Don't stop` edited in the
/// sheet changes that line alone (to `edited_en`), which gen-l10n reads with one
/// apostrophe. The app's folder, the sheet as imported and what import said.
fn round_trip(
    l10n_yaml: &str,
    en: &str,
    ca: &str,
    edited_en: &str,
) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("lib/l10n")).unwrap();
    std::fs::write(dir.path().join("pubspec.yaml"), "name: app\n").unwrap();
    std::fs::write(dir.path().join("l10n.yaml"), l10n_yaml).unwrap();
    std::fs::write(dir.path().join("lib/l10n/app_en.arb"), en).unwrap();
    std::fs::write(dir.path().join("lib/l10n/app_ca.arb"), ca).unwrap();
    let said = ok(dir.path(), &["import", "lib/l10n", "--to", "s.csv"]);
    assert!(!said.contains("not carried"), "{said}");
    let sheet = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    for row in [
        "teamBattle[one],,,Battle of {count} team,Batalla d'{count} equip",
        "dontStop,,,\"Don't stop, {name}\",\"No t'aturis, {name}\"",
    ] {
        assert!(sheet.contains(row), "{row}: {sheet}");
    }

    // generate with no flags gives the app's files back, byte for byte
    ok(dir.path(), GENERATE);
    assert_eq!(file(dir.path(), "en"), en);
    assert_eq!(file(dir.path(), "ca"), ca);
    let diff = depot(dir.path(), &["diff", "--source", "s.csv", "lib/l10n"]);
    let report = String::from_utf8_lossy(&diff.stdout);
    assert!(diff.status.success(), "{report}");

    // one text edited in the sheet: that line alone changes
    let edited = sheet.replace("Don't stop, {name}", "Don't go, {name}");
    std::fs::write(dir.path().join("s.csv"), edited).unwrap();
    ok(dir.path(), GENERATE);
    assert_eq!(file(dir.path(), "en"), edited_en);
    assert_eq!(file(dir.path(), "ca"), ca);
    assert_eq!(
        reads(dir.path(), "en", "dontStop"),
        r#"[{"t":"Don't go, "},{"a":"name"}]"#
    );
    assert_eq!(
        reads(dir.path(), "ca", "teamBattle"),
        r#"[{"p":"count","o":{"=1":[{"t":"Batalla d'"},{"a":"count"},{"t":" equip"}],"other":[{"t":"Batalla de "},{"a":"count"},{"t":" equips"}]}}]"#
    );
    (dir, sheet, said)
}

/// lichess-org/mobile's case: no use-escaping, `d'{count}` in a plural and `Don't {name}`:
/// every text is carried, the files come back as they were, and an edited text is
/// written with one apostrophe, as gen-l10n then shows it.
#[test]
fn an_app_without_use_escaping_comes_back_and_keeps_its_apostrophes() {
    let yaml = "arb-dir: lib/l10n\ntemplate-arb-file: app_en.arb\n";
    let edited = EN.replace("Don't stop, {name}", "Don't go, {name}");
    let (dir, sheet, said) = round_trip(yaml, EN, CA, &edited);
    assert!(!l10n_use_escaping(&dir.path().join("lib/l10n")));
    assert!(
        said.contains(
            "arb: apostrophes are text, as gen-l10n reads them without use-escaping \
             (l10n.yaml); the settings cell says so (arb=plain), and generate writes them so"
        ),
        "{said}"
    );
    assert_eq!(
        sheet.lines().next(),
        Some("depot: arb=plain,,,,"),
        "{sheet}"
    );
    assert_eq!(
        reads(dir.path(), "en", "useServer"),
        r#"[{"t":"Use '"},{"a":"server"},{"t":"' to log in"}]"#
    );

    // diff reads the app as the sheet says: a doubled apostrophe is two to this app
    let doubled = edited.replace("Don't go", "Don''t go");
    std::fs::write(dir.path().join("lib/l10n/app_en.arb"), doubled).unwrap();
    let diff = depot(dir.path(), &["diff", "--source", "s.csv", "lib/l10n"]);
    let report = String::from_utf8(diff.stdout).unwrap();
    assert_eq!(diff.status.code(), Some(1), "{report}");
    assert!(report.contains("dontStop"), "{report}");
    assert!(!report.contains("teamBattle"), "{report}");
}

/// The same texts in an app with `use-escaping: true` are ICU's quoting, as before: the
/// sheet says nothing of arb, the files come back, and an edited text is quoted.
#[test]
fn an_app_with_use_escaping_keeps_icu_quoting() {
    let quote = |text: &str| {
        text.replace("Don't", "Don''t")
            .replace("t'aturis", "t''aturis")
            .replace("d'{count}", "d''{count}")
            .replace("'{server}'", "''{server}''")
    };
    let (en, ca) = (quote(EN), quote(CA));
    let yaml = "arb-dir: lib/l10n\nuse-escaping: true\n";
    let edited = en.replace("Don''t stop, {name}", "Don''t go, {name}");
    let (dir, sheet, said) = round_trip(yaml, &en, &ca, &edited);
    assert!(l10n_use_escaping(&dir.path().join("lib/l10n")));
    assert!(!said.contains("arb:"), "{said}");
    assert!(sheet.starts_with(">>>,"), "{sheet}");
}
