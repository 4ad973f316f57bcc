//! Command-line manners: `--version`, shell completions, and progress that shows on a
//! terminal, stays out of pipes and logs, and is silenced, with every other line of a
//! successful run, by `--quiet`.
#![cfg(test)]

mod support;

use std::process::Command;

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn version_prints_the_name_and_version() {
    let dir = tempfile::tempdir().unwrap();
    let out = support::run(dir.path(), &["--version"]);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        format!("depot {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions_are_printed_for_bash_zsh_and_fish() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let out = support::run(dir.path(), &["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        for word in ["generate", "serve", "completions", "config"] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
    }
    // The bash script is valid bash.
    let out = support::run(dir.path(), &["completions", "bash"]);
    std::fs::write(dir.path().join("depot.bash"), &out.stdout).unwrap();
    let check = Command::new("bash")
        .args(["-n", "depot.bash"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", stderr(&check));
    let out = support::run(dir.path(), &["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("bash, zsh, fish"), "{}", stderr(&out));
}

#[test]
fn without_a_terminal_a_short_seed_prints_its_result_and_no_progress() {
    let dir = tempfile::tempdir().unwrap();
    let out = support::run(dir.path(), &["files", "seed", "2000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("seeded 2000 records in "));
    assert_eq!(stderr(&out), "");
}

/// `--quiet` prints nothing at all on success, on stdout or stderr, whatever the command
/// would say otherwise (results, warnings of the configuration, of the sheet, findings).
#[test]
fn quiet_prints_nothing_on_success() {
    let dir = tempfile::tempdir().unwrap();
    // an unknown SERVICE_* variable is a warning of the configuration
    std::fs::write(
        dir.path().join(".env.service"),
        "SERVICE_TYPO=1
",
    )
    .unwrap();
    // each import its own key: a record is imported once
    for (file, key) in [("one.jsonl", "k-1"), ("two.jsonl", "k-2")] {
        std::fs::write(
            dir.path().join(file),
            format!("{{\"fileName\":\"a.txt\",\"description\":\"\",\"bucket\":\"bucket\",\"status\":0,\"fileType\":\"txt\",\"permission\":\"public\",\"key\":\"{key}\"}}\n"),
        )
        .unwrap();
    }
    // a duplicate key (a warning and a finding), a missing text, a row without a key
    std::fs::write(
        dir.path().join("sheet.csv"),
        ">>>,en,pl\nHELLO,Hello {name},Cześć\nHELLO,Hi,\n,orphan,\nBYE,Bye,\n",
    )
    .unwrap();
    for args in [
        vec!["files", "seed", "2000"],
        vec!["files", "import", "one.jsonl"],
        vec![
            "generate",
            "--source",
            "sheet.csv",
            "-p",
            "out",
            "-f",
            "json,android",
        ],
    ] {
        let loud = support::run(dir.path(), &args);
        assert!(loud.status.success(), "{args:?}: {}", stderr(&loud));
        assert!(!(stdout(&loud) + &stderr(&loud)).is_empty(), "{args:?}");
        let mut quiet_args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        if args[1] == "import" {
            quiet_args[2] = "two.jsonl".into();
        }
        quiet_args.push("--quiet".into());
        let quiet_args: Vec<&str> = quiet_args.iter().map(String::as_str).collect();
        let quiet = support::run(dir.path(), &quiet_args);
        assert!(quiet.status.success(), "{args:?}: {}", stderr(&quiet));
        assert_eq!(
            (stdout(&quiet), stderr(&quiet)),
            (String::new(), String::new()),
            "{args:?}"
        );
    }
    assert!(dir.path().join("out/values/strings.xml").exists());
}

/// Runs `args` under `script`, which gives the command a terminal.
fn on_a_terminal(dir: &std::path::Path, args: &str) -> String {
    let out = Command::new("script")
        .args(["-qec", &format!("{} {args}", support::BIN), "/dev/null"])
        .current_dir(dir)
        .env("TERM", "xterm")
        .output()
        .expect("script (util-linux) runs");
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn on_a_terminal_seed_import_and_generate_show_progress_unless_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let shown = on_a_terminal(dir.path(), "files seed 50000");
    assert!(shown.contains("seeding records ["), "{shown}");
    assert!(shown.contains("50,000/50,000"), "{shown}");
    assert!(shown.contains("seeded 50000 records"), "{shown}");
    let quiet = on_a_terminal(dir.path(), "files seed 50000 --quiet");
    assert_eq!(quiet, "", "{quiet}");

    std::fs::write(
        dir.path().join("one.jsonl"),
        "{\"fileName\":\"a.txt\",\"description\":\"\",\"bucket\":\"bucket\",\"status\":0,\"fileType\":\"txt\",\"permission\":\"public\",\"key\":\"k-1\"}\n",
    )
    .unwrap();
    let shown = on_a_terminal(dir.path(), "files import one.jsonl");
    assert!(shown.contains("importing"), "{shown}");
    assert!(shown.contains("imported 1 records"), "{shown}");

    std::fs::write(
        dir.path().join("sheet.csv"),
        ">>>,en,pl\nHELLO,Hello,Cześć\n",
    )
    .unwrap();
    let shown = on_a_terminal(dir.path(), "generate --source sheet.csv -p out");
    assert!(shown.contains("wrote out/en.json"), "{shown}");
    let quiet = on_a_terminal(dir.path(), "generate --source sheet.csv -p out --quiet");
    assert_eq!(quiet, "", "{quiet}");
}

/// A stdout whose reader is already gone: every write fails with EPIPE at once.
fn closed_pipe() -> std::process::Stdio {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    writer.into()
}

/// `depot config check | head -1` and the like: a reader that goes away ends the output,
/// never the command with a panic or an error; the command's work is done all the same.
#[test]
fn every_command_that_prints_ends_quietly_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sheet.csv"),
        ">>>,en,pl\nHELLO,Hello,Cześć\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello").unwrap();
    std::fs::write(
        dir.path().join("one.jsonl"),
        "{\"fileName\":\"a.txt\",\"bucket\":\"bucket\",\"permission\":\"public\",\"fileType\":\"txt\",\"key\":\"k-1\"}\n",
    )
    .unwrap();
    let commands: [&[&str]; 10] = [
        &["config", "check"],
        &["completions", "bash"],
        &["--version"],
        &["--help"],
        &["generate", "--help"],
        &["files", "seed", "10", "--quiet"],
        &["files", "import", "one.jsonl", "--quiet"],
        &["files", "add", "a.txt"],
        &["produce", "--once", "--source", "sheet.csv"],
        &[
            "generate",
            "--source",
            "sheet.csv",
            "-p",
            "-",
            "--merge",
            "--quiet",
        ],
    ];
    for args in commands {
        let out = support::depot(dir.path())
            .args(args)
            .stdout(closed_pipe())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?}");
    }
    // The work was done all the same: the record is there, the sheet stored.
    let again = support::run(dir.path(), &["files", "import", "one.jsonl", "--quiet"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(stderr(&again).contains("k-1"), "{}", stderr(&again));
    let check = support::run(dir.path(), &["produce", "--once", "--source", "sheet.csv"]);
    assert!(
        stdout(&check).starts_with("unchanged: "),
        "{}",
        stdout(&check)
    );
}

/// docs/cli.md, "Exit codes": "0 success, 1 runtime error, 2 usage error, always with one
/// line on stderr". Usage: what the command line itself gets wrong (clap's errors, and a
/// setting given on it that no key takes); runtime: everything the command meets while it
/// works.
#[test]
fn exit_codes_are_2_for_usage_and_1_for_runtime_errors_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(dir.path().join("bad.toml"), "[files]\nmax_limit = \n").unwrap();
    let cases: &[(&[&str], i32, &str)] = &[
        (&[], 2, "a command is missing; see depot --help"),
        (&["frobnicate"], 2, "unrecognized subcommand 'frobnicate'"),
        (
            &["config"],
            2,
            "a command is missing; see depot config --help",
        ),
        (
            &["serve", "--nope"],
            2,
            "unexpected argument '--nope' found; see depot serve --help",
        ),
        (
            &["serve", "--listen", "here"],
            2,
            "server.listen (env DEPOT_LISTEN) = 'here' from command line",
        ),
        (
            &["--set", "files.max_limt=5", "config", "check"],
            2,
            "did you mean files.max_limit?",
        ),
        (
            &["--set", "files.max_limit=lots", "config", "check"],
            2,
            "must be an integer from 1 to 10000",
        ),
        (
            &["--set", "nokey", "config", "check"],
            2,
            "expected KEY=VALUE, got 'nokey'",
        ),
        (
            &["files", "add"],
            2,
            "the following required arguments were not provided",
        ),
        (
            &["files", "add", "a.txt", "--permission", "secret"],
            2,
            "[possible values: public, private]",
        ),
        (
            &["generate", "-p", "-"],
            2,
            "add --merge or --language LOCALE",
        ),
        (
            &["completions", "tcsh"],
            2,
            "[possible values: bash, zsh, fish]",
        ),
        (
            &["-cf", "yaml", "config", "check"],
            2,
            "invalid value 'yaml'",
        ),
        (
            &["--config", "missing.toml", "config", "check"],
            1,
            "given with --config does not exist",
        ),
        (
            &["--config", "bad.toml", "config", "check"],
            1,
            "is not valid TOML at line 2, column 13: ",
        ),
        (
            &["--set", "producer.source=gone.csv", "config", "check"],
            1,
            "producer.source (env DEPOT_PRODUCER_SOURCE) names ",
        ),
        (
            &["files", "add", "missing.txt"],
            1,
            "missing.txt is not a readable file",
        ),
        (&["files", "import", "missing.jsonl"], 1, "missing.jsonl"),
        (&["generate", "--source", "missing.csv"], 1, "missing.csv"),
        (
            &["produce", "--once", "--source", "missing.csv"],
            1,
            "missing.csv",
        ),
        (&["serve", "--listen", &taken], 1, &taken),
    ];
    for (args, code, expected) in cases {
        let out = support::run(dir.path(), args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {err}");
        assert!(err.starts_with("depot: error: "), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn config_check_says_which_files_it_read_and_which_are_missing() {
    let dir = tempfile::tempdir().unwrap();
    let out = support::run(dir.path(), &["config", "check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let config = dir.path().join("config/depot.toml");
    assert!(
        text.starts_with(&format!(
            "# no config file at {}; using the built-in defaults",
            config.display()
        )),
        "{text}"
    );
    assert!(text.contains("# no env file at "), "{text}");
    assert!(!text.contains("# config file: "), "{text}");
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(&config, "[files]\nmax_limit = 50\n").unwrap();
    std::fs::write(dir.path().join(".env.service"), "DEPOT_LOG_LEVEL=debug\n").unwrap();
    let text = stdout(&support::run(dir.path(), &["config", "check"]));
    assert!(
        text.starts_with(&format!(
            "# config file: {}\n# env file: ",
            config.display()
        )),
        "{text}"
    );
    assert!(text.contains("\n# configuration is valid\n"), "{text}");
    assert!(text.contains("files.max_limit = 50  # "), "{text}");
}

/// SPEC §7: config check shows URLs with the password masked and the rest readable.
#[test]
fn config_check_shows_database_urls_with_only_the_password_masked() {
    let dir = tempfile::tempdir().unwrap();
    let out = support::depot(dir.path())
        .args(["config", "check"])
        .env(
            "DEPOT_DATABASE_URL",
            "postgres://depot:hunter2@db:5432/depot",
        )
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("# database.url = \"postgres://depot:***@db:5432/depot\"  # environment"),
        "{text}"
    );
    assert!(!text.contains("hunter2"), "{text}");
}

#[test]
fn the_cf_alias_shows_in_generate_help_and_works() {
    let dir = tempfile::tempdir().unwrap();
    let help = stdout(&support::run(dir.path(), &["generate", "--help"]));
    let line = help
        .lines()
        .find(|l| l.contains("--config-format"))
        .expect("--config-format in generate --help");
    assert!(line.contains("-cf"), "{line}");
    let out = support::run(dir.path(), &["-cf", "json", "config", "check"]);
    assert!(
        stdout(&out).contains("google.token_store = \"json\"  # command line"),
        "{}",
        stdout(&out)
    );
}

/// A slip on the command line (a subcommand, a flag or a value close to a known one) gets
/// clap's suggestion on the one line, and the help named is the subcommand's the arguments
/// name, whichever error it is (value errors carry no usage line of clap's to read it from).
#[test]
fn a_slip_gets_a_suggestion_and_the_help_of_its_own_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["serv"],
            "unrecognized subcommand 'serv' (did you mean 'serve'?); see depot --help",
        ),
        (
            &["generate", "--fromat", "json"],
            "unexpected argument '--fromat' found (did you mean '--format'?); see depot generate --help",
        ),
        (
            &["generate", "-f", "jsonn"],
            "invalid value 'jsonn' for '--format <FORMAT>' [possible values: json, android, ios, \
             yml, xlf, po, stringsdict, xcstrings, arb, i18next, properties, resx] (did you mean \
             'json'?); see depot generate --help",
        ),
        (
            &["--config", "files", "files", "ad"],
            "unrecognized subcommand 'ad' (did you mean 'add'?); see depot files --help",
        ),
        (
            &["files", "add", "a.txt", "--permission", "privat"],
            "invalid value 'privat' for '--permission <PERMISSION>' [possible values: public, \
             private] (did you mean 'private'?); see depot files add --help",
        ),
        (
            &["config", "chek"],
            "unrecognized subcommand 'chek' (did you mean 'check'?); see depot config --help",
        ),
        (
            &["-cf", "jsn", "config", "check"],
            "invalid value 'jsn' for '--config-format <FORMAT>' [possible values: env, json] \
             (did you mean 'json'?); see depot config check --help",
        ),
        (
            &["import", "app", "--to", "s.csv", "--placeholders", "kep"],
            "invalid value 'kep' for '--placeholders <MODE>' [possible values: keep, convert] \
             (did you mean 'keep'?); see depot import --help",
        ),
        (
            &[
                "diff",
                "--source",
                "s.csv",
                "app",
                "--placeholders",
                "convrt",
            ],
            "invalid value 'convrt' for '--placeholders <MODE>' [possible values: keep, convert] \
             (did you mean 'convert'?); see depot diff --help",
        ),
        (
            &["serve", "--listen"],
            "a value is required for '--listen <IP:PORT>' but none was supplied; see depot serve --help",
        ),
        (
            &["completions", "bsh"],
            "invalid value 'bsh' for '<SHELL>' [possible values: bash, zsh, fish] (did you mean \
             'bash'?); see depot completions --help",
        ),
    ];
    for (args, expected) in cases {
        let out = support::run(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            format!("depot: error: {expected}\n"),
            "{args:?}"
        );
    }
}

/// Android strings with `count` texts not to translate (translatable="false"): each is
/// named by import's notes (as kept in the app).
fn android_app(dir: &std::path::Path, count: usize) {
    let values = dir.join("app/values");
    std::fs::create_dir_all(&values).unwrap();
    let mut xml = String::from("<resources>\n  <string name=\"hello\">Hello</string>\n");
    for i in 0..count {
        xml.push_str(&format!(
            "  <string name=\"fixed{i}\" translatable=\"false\">X</string>\n"
        ));
    }
    xml.push_str("</resources>\n");
    std::fs::write(values.join("strings.xml"), xml).unwrap();
}

/// The rule of every command (cli::output): the summary on stdout, notes on stderr.
/// `import` printed its summary on stderr; `--verbose` names every key a note shares.
#[test]
fn import_prints_its_summary_on_stdout_and_its_notes_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    android_app(dir.path(), 9);
    let out = support::run(dir.path(), &["import", "app", "--to", "sheet.csv"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "read 1 file(s): 1 android\nplaceholders: kept as the app writes them (printf); the \
         sheet's settings cell says so (depot: placeholders=printf), and generate, serve and \
         diff follow it\nen: 1 key(s) with a text\nwrote sheet.csv: 1 key(s), locales en\n"
    );
    // what generate leaves in the app's files, one line for the nine
    assert_eq!(
        stderr(&out),
        "depot: kept in the app, not the sheet's: 9 translatable=\"false\" string(s) (fixed0, \
         fixed1, fixed2, fixed3, fixed4, fixed5, fixed6, fixed7 and 1 more); generate leaves \
         them in the app's files as they are\n"
    );
    let verbose = support::run(dir.path(), &["import", "app", "--to", "sheet.csv", "-v"]);
    assert!(verbose.status.success(), "{}", stderr(&verbose));
    assert!(stderr(&verbose).contains("fixed8"), "{}", stderr(&verbose));
    assert!(!stderr(&verbose).contains(" more"), "{}", stderr(&verbose));
}

/// Every command that does work takes -q/--quiet and then prints nothing on success: the
/// ones that refused it (files add, import, diff, produce, config check).
#[test]
fn every_command_that_does_work_takes_quiet() {
    let dir = tempfile::tempdir().unwrap();
    // an unknown SERVICE_* variable is a warning of every command
    std::fs::write(dir.path().join(".env.service"), "SERVICE_TYPO=1\n").unwrap();
    android_app(dir.path(), 2);
    std::fs::write(dir.path().join("a.txt"), "hello").unwrap();
    std::fs::write(dir.path().join("sheet.csv"), ">>>,en\nhello,Hello\n").unwrap();
    std::fs::create_dir(dir.path().join("same")).unwrap();
    std::fs::write(dir.path().join("same/en.json"), "{\"hello\":\"Hello\"}\n").unwrap();
    for args in [
        vec!["files", "add", "a.txt"],
        vec!["import", "app", "--to", "imported.csv"],
        vec!["diff", "--source", "sheet.csv", "same"],
        vec!["produce", "--once", "--source", "sheet.csv"],
        vec!["config", "check"],
    ] {
        let loud = support::run(dir.path(), &args);
        assert!(loud.status.success(), "{args:?}: {}", stderr(&loud));
        assert!(!stdout(&loud).is_empty(), "{args:?}");
        assert!(!stderr(&loud).is_empty(), "{args:?}");
        for flag in ["-q", "--quiet"] {
            let quiet_args: Vec<&str> = args.iter().copied().chain([flag]).collect();
            let quiet = support::run(dir.path(), &quiet_args);
            assert!(quiet.status.success(), "{quiet_args:?}: {}", stderr(&quiet));
            assert_eq!(
                (stdout(&quiet), stderr(&quiet)),
                (String::new(), String::new()),
                "{quiet_args:?}"
            );
        }
    }
    // diff --quiet still fails on a difference, with its one line
    std::fs::write(dir.path().join("same/en.json"), "{\"hello\":\"Hi\"}\n").unwrap();
    let differs = support::run(dir.path(), &["diff", "--source", "sheet.csv", "same", "-q"]);
    assert_eq!(differs.status.code(), Some(1));
    assert_eq!(stdout(&differs), "");
    assert!(
        stderr(&differs).starts_with(
            "depot: error: 1 difference(s) between the app's files and the sheet sheet.csv"
        ),
        "{}",
        stderr(&differs)
    );
}

/// `generate --fallback` with no chain configured did nothing but warn: it is refused
/// before the sheet is read, saying how to configure a chain.
#[test]
fn generate_fallback_without_a_chain_is_refused_saying_how_to_set_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sheet.csv"), ">>>,en,pl\nhello,Hello,\n").unwrap();
    let out = support::run(
        dir.path(),
        &[
            "generate",
            "--source",
            "missing.csv",
            "--fallback",
            "-p",
            "out",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "depot: error: --fallback takes missing texts along the chains of translations.fallback, \
         and none is configured: set one under [translations] in config/depot.toml, e.g. \
         fallback = { pt_BR = \"pt_PT\", \"*\" = \"en_US\" } (or \
         DEPOT_TRANSLATIONS_FALLBACK=pt_BR=pt_PT,*=en_US), and restart depot; or leave \
         --fallback out\n"
    );
    assert!(!dir.path().join("out").exists());
    // with a chain it fills pl from en
    let out = support::run(
        dir.path(),
        &[
            "--set",
            "translations.fallback=*=en",
            "generate",
            "--source",
            "sheet.csv",
            "--fallback",
            "-p",
            "out",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/pl.json")).unwrap(),
        std::fs::read_to_string(dir.path().join("out/en.json")).unwrap()
    );
}
