//! Command-line manners: `--version`, shell completions, and progress that shows on a
//! terminal, stays out of pipes and logs, and is silenced, with every other line of a
//! successful run, by `--quiet`.

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
