//! Command-line manners: `--version`, shell completions, and progress that shows on a
//! terminal, stays out of pipes and logs, and is silenced by `--quiet`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::mod_module_files,
    reason = "a test fails by panicking and may print what it saw; Cargo shares test helpers \
              only as tests/support/mod.rs"
)]

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
    for args in [
        vec!["files", "seed", "2000"],
        vec!["files", "seed", "2000", "--quiet"],
    ] {
        let out = support::run(dir.path(), &args);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stdout(&out).starts_with("seeded 2000 records in "),
            "{args:?}"
        );
        assert_eq!(stderr(&out), "", "{args:?}");
    }
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
    assert!(!quiet.contains("seeding records"), "{quiet}");
    assert!(quiet.contains("seeded 50000 records"), "{quiet}");

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
    assert!(!quiet.contains("writing files"), "{quiet}");
}
