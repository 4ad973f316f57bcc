//! Ground truth for tests/real_apps.rs (issue 32): what each format's own consumer reads
//! from a real app's files, per locale key → text (a plural key → category → text):
//! aapt2 for android, GNUstep for `.strings`/`.stringsdict`, the String Catalog schema as
//! Xcode compiles it, i18next configured as the app configures it, gen-l10n's rules with
//! formatjs, the JDK's ResourceBundle, mono's ResourceManager, msgfmt with Python's gettext.
//! Never depot's own readers: these readers are what depot's output is measured against.
#![allow(
    dead_code,
    reason = "each test crate uses only some of the shared helpers"
)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::gnustep::{Plist, parse_ascii_plist};

/// What a consumer gives for one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Text {
    Plain(String),
    /// category (or variation path) → text
    Plural(BTreeMap<String, String>),
}

/// locale (as the app's files name it; "" for a base folder or file) → key → text.
pub type Texts = BTreeMap<String, BTreeMap<String, Text>>;

/// A consumer's reading, or why it refused the files (the refusal is the finding).
pub type Reading = Result<Texts, String>;

/// The plain text of `key` in `locale` of a reading (`""`: the base or neutral one).
pub fn plain_text(texts: &Texts, locale: &str, key: &str) -> String {
    match texts.get(locale).and_then(|e| e.get(key)) {
        Some(Text::Plain(t)) => t.clone(),
        other => panic!("{locale} {key:?}: {other:?} in {texts:#?}"),
    }
}

pub const GNUSTEP_HINT: &str =
    "install GNUstep's plist tools: apt-get install -y gnustep-base-runtime, or run scripts/test";
pub const NODE_HINT: &str =
    "install node 20 and run `npm ci` in tests/node (scripts/test does both)";
pub const GETTEXT_HINT: &str = "install gettext and python3: apt-get install -y gettext python3";

/// Runs `program` in `dir` with `input` on stdin; its stdout, or its stderr as the error.
/// A missing program fails the test with `hint`.
fn run(
    program: &str,
    args: &[&str],
    dir: &Path,
    input: &[u8],
    hint: &str,
) -> Result<Vec<u8>, String> {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {program} ({e}): {hint}"));
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!(
            "{program} {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Every file under `root` (sorted), as paths relative to it.
pub fn files_under(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                out.push(path.strip_prefix(root).unwrap().to_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// Copies the tree `from` to `to` (created).
pub fn copy_tree(from: &Path, to: &Path) {
    for file in files_under(from) {
        let target = to.join(&file);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(from.join(&file), target).unwrap();
    }
}

fn plain(map: BTreeMap<String, String>) -> BTreeMap<String, Text> {
    map.into_iter().map(|(k, v)| (k, Text::Plain(v))).collect()
}

// ------------------------------------------------------------------ android (aapt2)

/// A `res` folder built with aapt2 (compile, link without android.jar) and read from
/// `aapt2 dump resources`: per configuration ("" = `values/`), each string's text (a
/// styled string's spans after it as ` ⟨b:16,18⟩`, a reference as `@string/name`) and
/// each plural's category → text. Other resource types are not texts and are skipped.
pub fn android(res: &Path) -> Reading {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(res, &dir.path().join("res"));
    std::fs::write(
        dir.path().join("AndroidManifest.xml"),
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<manifest \
         xmlns:android=\"http://schemas.android.com/apk/res/android\" package=\"org.example.app\"/>\n",
    )
    .unwrap();
    let hint = super::android::INSTALL_HINT;
    run(
        "aapt2",
        &["compile", "--dir", "res", "-o", "compiled.zip"],
        dir.path(),
        b"",
        hint,
    )?;
    run(
        "aapt2",
        &[
            "link",
            "-o",
            "app.apk",
            "--manifest",
            "AndroidManifest.xml",
            "compiled.zip",
        ],
        dir.path(),
        b"",
        hint,
    )?;
    let dump = run(
        "aapt2",
        &["dump", "resources", "app.apk"],
        dir.path(),
        b"",
        hint,
    )?;
    Ok(parse_aapt2_dump(&String::from_utf8(dump).unwrap()))
}

/// `aapt2 dump resources` as texts. A string's value is `(config) "text"` or `(config)
/// (styled string) "text" spans`, running over several lines when the text holds line
/// breaks; a plural's value is `(config) (plurals) size=N` then `category="text"` lines.
fn parse_aapt2_dump(dump: &str) -> Texts {
    #[derive(PartialEq)]
    enum Kind {
        String,
        Plurals,
        Other,
    }
    let mut texts = Texts::new();
    let mut kind = Kind::Other;
    let mut name = String::new();
    // the string being read: (config, raw value so far)
    let mut pending: Option<(String, String)> = None;
    let finish = |texts: &mut Texts, name: &str, pending: &mut Option<(String, String)>| {
        if let Some((config, raw)) = pending.take() {
            let (styled, raw) = match raw.strip_prefix("(styled string) ") {
                Some(rest) => (true, rest.to_owned()),
                None => (false, raw),
            };
            let text = match raw.strip_prefix('"') {
                Some(quoted) => {
                    let end = quoted.rfind('"').unwrap_or(quoted.len());
                    let spans = quoted[end..].trim_start_matches('"').trim();
                    if styled && !spans.is_empty() {
                        format!("{} ⟨{spans}⟩", &quoted[..end])
                    } else {
                        quoted[..end].to_owned()
                    }
                }
                None => raw,
            };
            (texts.entry(config).or_default()).insert(name.to_owned(), Text::Plain(text));
        }
    };
    let mut plural: Option<(String, BTreeMap<String, String>)> = None;
    let finish_plural =
        |texts: &mut Texts, name: &str, plural: &mut Option<(String, BTreeMap<String, String>)>| {
            if let Some((config, forms)) = plural.take() {
                (texts.entry(config).or_default()).insert(name.to_owned(), Text::Plural(forms));
            }
        };
    for line in dump.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let header = trimmed.starts_with("type ") && indent == 2
            || trimmed.starts_with("resource 0x") && indent == 4;
        let value = indent == 6 && trimmed.starts_with('(');
        if header || value {
            finish(&mut texts, &name, &mut pending);
            finish_plural(&mut texts, &name, &mut plural);
        }
        if header {
            if let Some(rest) = trimmed.strip_prefix("resource ") {
                let full = rest.split_once(' ').map(|(_, n)| n).unwrap_or_default();
                let (type_, entry) = full.split_once('/').unwrap_or(("", full));
                name = entry.to_owned();
                kind = match type_ {
                    "string" => Kind::String,
                    "plurals" => Kind::Plurals,
                    _ => Kind::Other,
                };
            } else {
                kind = Kind::Other;
            }
            continue;
        }
        if value {
            let rest = &trimmed[1..];
            let (config, raw) = rest
                .split_once(") ")
                .unwrap_or((rest.trim_end_matches(')'), ""));
            match kind {
                Kind::String => pending = Some((config.to_owned(), raw.to_owned())),
                Kind::Plurals => plural = Some((config.to_owned(), BTreeMap::new())),
                Kind::Other => {}
            }
            continue;
        }
        if let Some((_, raw)) = &mut pending {
            // a string's later lines, the dump's indentation removed
            raw.push('\n');
            raw.push_str(line.strip_prefix("      ").unwrap_or(line));
            continue;
        }
        if let Some((_, forms)) = &mut plural
            && let Some((category, text)) = trimmed.split_once("=\"")
        {
            forms.insert(
                category.to_owned(),
                text.strip_suffix('"').unwrap_or(text).to_owned(),
            );
        }
    }
    finish(&mut texts, &name, &mut pending);
    finish_plural(&mut texts, &name, &mut plural);
    texts
}

// ------------------------------------------------------------------ ios (GNUstep)

/// What GNUstep reads from a property list file (`.strings`, `.stringsdict`, UTF-16 too):
/// `plmerge` loads it as NSDictionary does and writes it as an ASCII property list.
pub fn gnustep_dict(file: &Path) -> Result<BTreeMap<String, Plist>, String> {
    let dir = tempfile::tempdir().unwrap();
    let merged = dir.path().join("merged.plist");
    std::fs::write(&merged, "{}").unwrap();
    let file = std::path::absolute(file).unwrap();
    run(
        "plmerge",
        &[merged.to_str().unwrap(), file.to_str().unwrap()],
        dir.path(),
        b"",
        GNUSTEP_HINT,
    )?;
    match parse_ascii_plist(&std::fs::read_to_string(&merged).unwrap()) {
        Plist::Dict(d) => Ok(d),
        other => Err(format!("{}: not a dictionary: {other:?}", file.display())),
    }
}

/// Every `*.lproj` folder under `root` (locale: the folder's name without `.lproj`), each
/// table's `.strings` then `.stringsdict` (which wins for a key in both, as on iOS) read
/// by GNUstep. Keys of a table other than `Localizable` are `Table/key`. A stringsdict
/// entry is a plural: per variable of its format and category, the format with that
/// variable replaced by the form (`VAR:category` when the format has several variables).
pub fn ios(root: &Path) -> Reading {
    let mut texts = Texts::new();
    for file in files_under(root) {
        let Some(folder) = file.parent().and_then(|p| p.file_name()) else {
            continue;
        };
        let Some(locale) = folder.to_str().unwrap().strip_suffix(".lproj") else {
            continue;
        };
        let table = file.file_stem().unwrap().to_str().unwrap();
        let prefix = if table == "Localizable" {
            String::new()
        } else {
            format!("{table}/")
        };
        let entries = texts.entry(locale.to_owned()).or_default();
        match file.extension().and_then(|e| e.to_str()) {
            Some("strings") => {
                for (key, value) in gnustep_dict(&root.join(&file))? {
                    let Plist::Text(text) = value else {
                        return Err(format!("{}: {key} is not a string", file.display()));
                    };
                    entries.insert(format!("{prefix}{key}"), Text::Plain(text));
                }
            }
            Some("stringsdict") => {
                for (key, value) in gnustep_dict(&root.join(&file))? {
                    let forms = stringsdict_forms(&value)
                        .map_err(|e| format!("{}: {key}: {e}", file.display()))?;
                    entries.insert(format!("{prefix}{key}"), Text::Plural(forms));
                }
            }
            _ => {}
        }
    }
    // the .strings files come before the .stringsdict files of a folder in path order, so
    // a stringsdict entry replaced a .strings one above, as NSBundle prefers it
    Ok(texts)
}

/// A stringsdict entry as NSString's `localizedStringWithFormat` resolves it: for each
/// `%#@VAR@` of `NSStringLocalizedFormatKey` and each category of VAR's rule, the format
/// with that variable replaced by the form.
fn stringsdict_forms(entry: &Plist) -> Result<BTreeMap<String, String>, String> {
    let Plist::Dict(entry) = entry else {
        return Err("not a dictionary".into());
    };
    let Some(Plist::Text(format)) = entry.get("NSStringLocalizedFormatKey") else {
        return Err("no NSStringLocalizedFormatKey".into());
    };
    let mut variables = Vec::new();
    let mut rest = format.as_str();
    while let Some(start) = rest.find("%#@") {
        let after = &rest[start + 3..];
        let Some(end) = after.find('@') else { break };
        variables.push(&after[..end]);
        rest = &after[end + 1..];
    }
    let mut forms = BTreeMap::new();
    for variable in &variables {
        let Some(Plist::Dict(rule)) = entry.get(*variable) else {
            return Err(format!("no rule for the variable {variable}"));
        };
        for (category, form) in rule {
            if category.starts_with("NSString") {
                continue;
            }
            let Plist::Text(form) = form else {
                return Err(format!("{variable}.{category} is not a string"));
            };
            let text = format.replace(&format!("%#@{variable}@"), form);
            let name = if variables.len() == 1 {
                category.clone()
            } else {
                format!("{variable}:{category}")
            };
            forms.insert(name, text);
        }
    }
    Ok(forms)
}

// ------------------------------------------------------------------ xcstrings

/// A String Catalog as Xcode compiles it into each language's `.strings` and
/// `.stringsdict`: per language, a string's `stringUnit` value is its text; `variations`
/// (plural, device, nested) and `substitutions` make a plural whose entries are the
/// paths to each value (`variations.plural.one`, `variations.device.ipad`,
/// `substitutions.NAME.variations.plural.one`, the top value as `""`) and each
/// substitution's `argNum` and `formatSpecifier`. A string with no value in a language
/// has no text there (the app then shows the key itself).
pub fn xcstrings(file: &Path) -> Reading {
    let body = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let catalog: Value =
        serde_json::from_str(&body).map_err(|e| format!("{}: {e}", file.display()))?;
    let Some(strings) = catalog["strings"].as_object() else {
        return Err(format!("{}: no \"strings\" object", file.display()));
    };
    let mut texts = Texts::new();
    for (key, entry) in strings {
        let Some(localizations) = entry["localizations"].as_object() else {
            continue;
        };
        for (language, localization) in localizations {
            let mut values = BTreeMap::new();
            catalog_values(localization, "", &mut values);
            if values.is_empty() {
                continue;
            }
            let text = match values.get("") {
                Some(only) if values.len() == 1 => Text::Plain(only.clone()),
                _ => Text::Plural(values),
            };
            texts
                .entry(language.clone())
                .or_default()
                .insert(key.clone(), text);
        }
    }
    Ok(texts)
}

fn catalog_values(node: &Value, path: &str, out: &mut BTreeMap<String, String>) {
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_owned()
        } else {
            format!("{a}.{b}")
        }
    };
    if let Some(value) = node["stringUnit"]["value"].as_str() {
        out.insert(path.to_owned(), value.to_owned());
    }
    if let Some(variations) = node["variations"].as_object() {
        for (kind, cases) in variations {
            for (case, inner) in cases.as_object().into_iter().flatten() {
                catalog_values(
                    inner,
                    &join(path, &format!("variations.{kind}.{case}")),
                    out,
                );
            }
        }
    }
    if let Some(substitutions) = node["substitutions"].as_object() {
        for (name, substitution) in substitutions {
            let at = join(path, &format!("substitutions.{name}"));
            for field in ["argNum", "formatSpecifier"] {
                if !substitution[field].is_null() {
                    let value = match &substitution[field] {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    out.insert(join(&at, field), value);
                }
            }
            catalog_values(substitution, &at, out);
        }
    }
}

// ------------------------------------------------------------------ i18next

/// Runs tests/node/consumers.js `mode` on `input`; its JSON output or its refusal.
pub fn node(mode: &str, input: &Value) -> Result<Value, String> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node");
    for package in ["i18next", "@formatjs/icu-messageformat-parser"] {
        assert!(
            folder.join("node_modules").join(package).is_dir(),
            "tests/node/node_modules/{package} is missing: {NODE_HINT}"
        );
    }
    let out = run(
        "node",
        &["consumers.js", mode],
        &folder,
        input.to_string().as_bytes(),
        NODE_HINT,
    )?;
    serde_json::from_slice(&out).map_err(|e| format!("node consumers.js {mode}: {e}"))
}

/// The categories i18next's JSON v4 plural keys end in (`KEY_one`), and v3's `_plural`.
const I18NEXT_PLURAL: [&str; 7] = ["zero", "one", "two", "few", "many", "other", "plural"];

/// A folder of flat i18next resource files (`LNG.json`, one namespace `translation`) read
/// by i18next initialised with `options` (the app's own `init` options, such as
/// `{"keySeparator": false, "nsSeparator": false}`): every key of a file asked with
/// `t(key)` in its language. An interpolation without a value reads as `⟦name⟧` (so
/// `{{ name }}` and `{{name}}` read alike, as they do for i18next), `$t(…)` is resolved.
/// Plural keys (`KEY_one`, `KEY_other`, v3 `KEY_plural`) are one plural `KEY`.
pub fn i18next(folder: &Path, options: &Value) -> Reading {
    let mut resources = serde_json::Map::new();
    let mut calls = Vec::new();
    for file in files_under(folder) {
        if file.extension().is_none_or(|e| e != "json") || file.components().count() != 1 {
            continue;
        }
        let language = file.file_stem().unwrap().to_str().unwrap().to_owned();
        let body = std::fs::read_to_string(folder.join(&file)).unwrap();
        let data: Value =
            serde_json::from_str(&body).map_err(|e| format!("{}: {e}", file.display()))?;
        let Some(object) = data.as_object() else {
            return Err(format!("{}: not an object", file.display()));
        };
        for key in object.keys() {
            calls.push(json!([language, "translation", key]));
        }
        resources.insert(language, json!({ "translation": data }));
    }
    let read = node(
        "i18next-app",
        &json!({"options": options, "resources": resources, "calls": calls}),
    )?;
    let mut texts = Texts::new();
    for (call, text) in calls.iter().zip(read.as_array().unwrap()) {
        let (language, key) = (call[0].as_str().unwrap(), call[2].as_str().unwrap());
        let Some(text) = text.as_str() else {
            return Err(format!("i18next found no {key:?} in {language}"));
        };
        let entries = texts.entry(language.to_owned()).or_default();
        let plural = I18NEXT_PLURAL.iter().find_map(|category| {
            key.strip_suffix(&format!("_{category}"))
                .map(|base| (base.to_owned(), category.to_string()))
        });
        match plural {
            Some((base, category)) => {
                let entry = entries
                    .entry(base)
                    .or_insert_with(|| Text::Plural(BTreeMap::new()));
                if let Text::Plural(forms) = entry {
                    forms.insert(category, text.to_owned());
                }
            }
            None => {
                entries.insert(key.to_owned(), Text::Plain(text.to_owned()));
            }
        }
    }
    Ok(texts)
}

// ------------------------------------------------------------------ arb (gen-l10n)

/// A folder of ARB files as gen-l10n reads it with `template` as the template file and
/// the app's `use-escaping` (`l10n_use_escaping`): gen-l10n's rules checked
/// (tests/node/consumers.js `arb`, placeholder types inferred as gen-l10n infers those a
/// template leaves undeclared) and every message parsed by a port of gen-l10n's parser; a
/// message's text is its parts as compact JSON (text, arguments, plurals and selects with
/// their cases), under the file's `@@locale`.
pub fn arb(folder: &Path, template: &str) -> Reading {
    let mut files = serde_json::Map::new();
    let mut locales = BTreeMap::new();
    for file in files_under(folder) {
        if file.extension().is_none_or(|e| e != "arb") || file.components().count() != 1 {
            continue;
        }
        let name = file.to_str().unwrap().to_owned();
        let body = std::fs::read_to_string(folder.join(&file)).unwrap();
        let data: Value = serde_json::from_str(&body).map_err(|e| format!("{name}: {e}"))?;
        let locale = data["@@locale"].as_str().unwrap_or_default().to_owned();
        locales.insert(name.clone(), locale);
        files.insert(name, Value::String(body));
    }
    let use_escaping = l10n_use_escaping(folder);
    let read = node(
        "arb",
        &json!({"files": files, "template": template, "infer": true, "useEscaping": use_escaping}),
    )?;
    let mut texts = Texts::new();
    for (name, messages) in read.as_object().unwrap() {
        let entries = texts.entry(locales[name].clone()).or_default();
        for (id, parts) in messages.as_object().unwrap() {
            entries.insert(id.clone(), Text::Plain(parts.to_string()));
        }
    }
    Ok(texts)
}

/// The `use-escaping` of the app's `l10n.yaml`, the nearest above `folder` (gen-l10n reads
/// it from the project root), as YAML reads it; gen-l10n's default, false, without one
/// or without the key.
pub fn l10n_use_escaping(folder: &Path) -> bool {
    use saphyr::{LoadableYamlNode, Yaml};
    let Some(yaml) =
        (folder.ancestors()).find_map(|dir| std::fs::read_to_string(dir.join("l10n.yaml")).ok())
    else {
        return false;
    };
    let docs = Yaml::load_from_str(&yaml).unwrap_or_else(|e| panic!("l10n.yaml: {e}"));
    (docs.first())
        .and_then(|doc| doc.as_mapping_get("use-escaping"))
        .and_then(Yaml::as_bool)
        .unwrap_or(false)
}

// ------------------------------------------------------------------ properties (JDK)

/// `ResourceBundle.getBundle(base, locale)` over the `.properties` files of `root` (the
/// class path root), without fallback, for each of `tags` ("" = the root bundle): the
/// bundle's own keys, under the tag.
pub fn properties(root: &Path, base: &str, tags: &[&str]) -> Reading {
    let mut args = vec!["bundle", root.to_str().unwrap(), base];
    args.extend_from_slice(tags);
    let read = super::jvm_mono::java(&args, root);
    let mut texts = Texts::new();
    for (tag, bundle) in read.as_object().unwrap() {
        let own: BTreeMap<String, String> =
            serde_json::from_value(bundle["texts"].clone()).unwrap();
        texts.insert(tag.clone(), plain(own));
    }
    Ok(texts)
}

// ------------------------------------------------------------------ resx (mono)

/// The head of a resx file as Visual Studio writes it, up to its first `<data>`.
pub const RESX_HEAD: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<root>
  <resheader name="resmimetype">
    <value>text/microsoft-resx</value>
  </resheader>
  <resheader name="version">
    <value>2.0</value>
  </resheader>
  <resheader name="reader">
    <value>System.Resources.ResXResourceReader, System.Windows.Forms, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089</value>
  </resheader>
  <resheader name="writer">
    <value>System.Resources.ResXResourceWriter, System.Windows.Forms, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089</value>
  </resheader>
"#;

/// Each `BASE[.CULTURE].resx` of `folder` compiled by `resgen` (file references resolved
/// from the folder, as MSBuild does) and read by a ResourceManager for each of
/// `cultures` ("" = the neutral resources): strings as they are, other resources (an
/// image, an icon, a file's bytes) as `<type name>`.
pub fn resx(folder: &Path, base: &str, cultures: &[&str]) -> Reading {
    let out = tempfile::tempdir().unwrap();
    for culture in cultures {
        let stem = if culture.is_empty() {
            base.to_owned()
        } else {
            format!("{base}.{culture}")
        };
        let source = std::path::absolute(folder.join(format!("{stem}.resx"))).unwrap();
        let target = out.path().join(format!("{stem}.resources"));
        run(
            "resgen",
            &[source.to_str().unwrap(), target.to_str().unwrap()],
            folder,
            b"",
            super::jvm_mono::MONO_HINT,
        )?;
    }
    let mut args = vec!["resources", out.path().to_str().unwrap(), base];
    args.extend_from_slice(cultures);
    let read = super::jvm_mono::dotnet(&args, out.path());
    let mut texts = Texts::new();
    for (culture, own) in read.as_object().unwrap() {
        let own: BTreeMap<String, String> = serde_json::from_value(own.clone()).unwrap();
        texts.insert(culture.clone(), plain(own));
    }
    Ok(texts)
}

// ------------------------------------------------------------------ po (msgfmt)

/// Python's gettext over a compiled catalog: every message of the `.mo` file `argv[1]`
/// (the header excluded) as JSON: `msgid` (with `msgctxt` + U+0004 before it) → text, or
/// → {plural index → text}.
const READ_MO: &str = r#"
import gettext, json, sys
with open(sys.argv[1], "rb") as f:
    catalog = gettext.GNUTranslations(f)._catalog
out = {}
for key, text in catalog.items():
    if isinstance(key, tuple):
        out.setdefault(key[0], {})[str(key[1])] = text
    elif key != "":
        out[key] = text
print(json.dumps(out))
"#;

/// Each `LOCALE.po` of `folder` compiled by `msgfmt` (which leaves out fuzzy, obsolete
/// and untranslated entries, as the app's build does) and read back by Python's gettext:
/// `msgid` (`msgctxt` U+0004 `msgid` for a message with a context) → text; a plural
/// message → plural index (`0`, `1`, …) → text.
pub fn po(folder: &Path) -> Reading {
    let out = tempfile::tempdir().unwrap();
    let mut texts = Texts::new();
    for file in files_under(folder) {
        if file.extension().is_none_or(|e| e != "po") || file.components().count() != 1 {
            continue;
        }
        let locale = file.file_stem().unwrap().to_str().unwrap().to_owned();
        let source = std::path::absolute(folder.join(&file)).unwrap();
        let mo = out.path().join(format!("{locale}.mo"));
        run(
            "msgfmt",
            &["-o", mo.to_str().unwrap(), source.to_str().unwrap()],
            out.path(),
            b"",
            GETTEXT_HINT,
        )?;
        let read = run(
            "python3",
            &["-c", READ_MO, mo.to_str().unwrap()],
            out.path(),
            b"",
            GETTEXT_HINT,
        )?;
        let read: BTreeMap<String, Value> = serde_json::from_slice(&read).unwrap();
        let entries = texts.entry(locale).or_default();
        for (key, value) in read {
            let text = match value {
                Value::String(s) => Text::Plain(s),
                forms => Text::Plural(serde_json::from_value(forms).unwrap()),
            };
            entries.insert(key, text);
        }
    }
    Ok(texts)
}

// ------------------------------------------------------------------ scores

/// How many of `original`'s (locale, key) texts `again` has with the same text.
pub fn found_again(original: &Texts, again: &Texts) -> (usize, usize) {
    let mut same = 0;
    let mut all = 0;
    for (locale, entries) in original {
        for (key, text) in entries {
            all += 1;
            if again.get(locale).and_then(|e| e.get(key)) == Some(text) {
                same += 1;
            }
        }
    }
    (same, all)
}

/// The number of (locale, key) texts.
pub fn count(texts: &Texts) -> usize {
    texts.values().map(BTreeMap::len).sum()
}

// ------------------------------------------------------------------ yml

/// A YAML file as js-yaml loads it (tests/node/consumers.js `yaml`), as JSON.
pub fn js_yaml(file: &Path) -> Result<Value, String> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node");
    let input = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let out = run(
        "node",
        &["consumers.js", "yaml"],
        &folder,
        &input,
        NODE_HINT,
    )?;
    serde_json::from_slice(&out).map_err(|e| format!("node consumers.js yaml: {e}"))
}
