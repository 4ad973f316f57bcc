//! Apps that fetch their texts from depot at run time (SPEC §14) with the real client
//! libraries (tests/node/delivery.mjs, pinned in tests/node/package-lock.json), and the
//! three-tab sheet they load: `common`, `home` and `settings`, in en and de (complete) and
//! fr (a sixth of the keys, below i18next-locize-backend's 90% rule).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

pub const NODE_HINT: &str =
    "install node 20 and run `npm ci` in tests/node (scripts/test does both)";

/// The libraries, as `delivery.mjs` names them.
pub const LIBRARIES: [&str; 4] = ["i18next-http", "i18next-multi", "locize", "tolgee"];

/// Writes the three tabs as a folder of .csv files (one file a tab); `yes` is the en text
/// of `common.CORE.YES` (its de text is `yes` with `Ja` for `Yes`), so a test can change it.
pub fn write_sheet(folder: &Path, yes: &str) {
    std::fs::create_dir_all(folder).unwrap();
    let ja = yes.replace("Yes", "Ja");
    let tabs = [
        (
            "common",
            format!(
                ">>>,>>>,en,de,fr\nCORE,,,,\n,YES,{yes},{ja},Oui\n,HELLO,Hello {{name}},Hallo {{name}},\n\
                 ITEMS[one],,One item,Ein Artikel,\nITEMS[other],,{{count}} items,{{count}} Artikel,\n"
            ),
        ),
        ("home", ">>>,en,de,fr\nTITLE,Home,Start,\n".to_owned()),
        (
            "settings",
            ">>>,en,de,fr\nSAVE,Save,Speichern,\nFILES[one],One file,Eine Datei,\n\
             FILES[other],{count} files,{count} Dateien,\n"
                .to_owned(),
        ),
    ];
    for (name, text) in tabs {
        let path = folder.join(format!("{name}.csv"));
        super::save_like_an_editor(&path, &text);
    }
    // a notes tab, which is not read
    std::fs::write(folder.join("README.csv"), "How to edit these texts\n").unwrap();
}

/// Every text of the sheet in en and de, plural forms included: (lng, ns, key, options).
pub fn calls() -> Value {
    let mut calls = Vec::new();
    for lng in ["en", "de"] {
        calls.extend([
            json!([lng, "common", "CORE.YES", {}]),
            json!([lng, "common", "CORE.HELLO", {"name": "Ana"}]),
            json!([lng, "common", "ITEMS", {"count": 1}]),
            json!([lng, "common", "ITEMS", {"count": 3}]),
            json!([lng, "home", "TITLE", {}]),
            json!([lng, "settings", "SAVE", {}]),
            json!([lng, "settings", "FILES", {"count": 1}]),
            json!([lng, "settings", "FILES", {"count": 2}]),
        ]);
    }
    Value::Array(calls)
}

/// What `calls` give with `yes` as the en text of `CORE.YES`.
pub fn expected(yes: &str) -> Value {
    json!([
        yes,
        "Hello Ana",
        "One item",
        "3 items",
        "Home",
        "Save",
        "One file",
        "2 files",
        yes.replace("Yes", "Ja"),
        "Hallo Ana",
        "Ein Artikel",
        "3 Artikel",
        "Start",
        "Speichern",
        "Eine Datei",
        "2 Dateien",
    ])
}

/// One app: a node process that loaded its texts and reloads them on demand.
pub struct App {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl App {
    /// Starts `library` against `base` on `channel` (`extra` is merged into the
    /// configuration: `private`, `apiKey`) and returns what it read first.
    pub fn start(library: &str, base: &str, channel: &str, extra: Value) -> (App, Value) {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node");
        for package in [
            "i18next",
            "i18next-http-backend",
            "i18next-multiload-backend-adapter",
            "i18next-locize-backend",
            "@tolgee/web",
            "@tolgee/format-icu",
        ] {
            assert!(
                folder.join("node_modules").join(package).is_dir(),
                "tests/node/node_modules/{package} is missing: {NODE_HINT}"
            );
        }
        let mut child = Command::new("node")
            .arg("delivery.mjs")
            .current_dir(&folder)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run node ({e}): {NODE_HINT}"));
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut config = json!({
            "library": library,
            "base": base,
            "channel": channel,
            "projectId": "depot",
            "lngs": ["en", "de"],
            "ns": ["common", "home", "settings"],
            "calls": calls(),
        });
        if let (Some(config), Value::Object(extra)) = (config.as_object_mut(), extra) {
            config.extend(extra);
        }
        let mut app = App {
            child,
            stdin,
            stdout,
        };
        let first = app.say(&config.to_string());
        (app, first)
    }

    /// The app loads its texts again (i18next's reloadResources, a new Tolgee).
    pub fn reload(&mut self) -> Value {
        self.say("reload")
    }

    fn say(&mut self, line: &str) -> Value {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        let mut answer = String::new();
        self.stdout.read_line(&mut answer).unwrap();
        assert!(
            !answer.is_empty(),
            "the app stopped: {:?}",
            self.child.try_wait()
        );
        serde_json::from_str(&answer).unwrap()
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
