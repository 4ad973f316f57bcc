//! The JDK and mono as the tests run them: small programs kept in tests/java and
//! tests/dotnet (`ReadBack`), compiled once per test process into a temporary folder,
//! whose JSON output the tests compare; `resgen` compiling a `.resx`. A missing tool fails
//! the test with the way to install it (`scripts/test` installs them all).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

pub const JDK_HINT: &str =
    "install a JDK: apt-get install -y openjdk-17-jdk-headless, or run scripts/test";
pub const MONO_HINT: &str = "install mono: apt-get install -y mono-devel, or run scripts/test";

/// Runs a consumer and parses what it prints as JSON; a missing one fails with `hint`.
pub fn consumer(program: &str, args: &[&str], dir: &Path, hint: &str) -> Value {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program} ({e}): {hint}"));
    assert!(
        output.status.success(),
        "{program} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{program} {args:?}: {e}: {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// A folder holding a program compiled once per test run (kept until the process ends).
pub fn compiled(cell: &'static OnceLock<PathBuf>, compile: impl FnOnce(&Path)) -> &'static Path {
    cell.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        compile(&dir);
        dir
    })
}

pub fn source(path: &str) -> String {
    format!("{}/tests/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// `java -cp <classes> ReadBack <args>`.
pub fn java(args: &[&str], dir: &Path) -> Value {
    static CLASSES: OnceLock<PathBuf> = OnceLock::new();
    let classes = compiled(&CLASSES, |out| {
        let status = Command::new("javac")
            .args(["-d", &out.to_string_lossy(), &source("java/ReadBack.java")])
            .status()
            .unwrap_or_else(|e| panic!("cannot run javac ({e}): {JDK_HINT}"));
        assert!(status.success(), "javac failed");
    });
    let mut all = vec!["-cp", classes.to_str().unwrap(), "ReadBack"];
    all.extend_from_slice(args);
    consumer("java", &all, dir, JDK_HINT)
}

/// `mono ReadBack.exe <args>`.
pub fn dotnet(args: &[&str], dir: &Path) -> Value {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    let program = compiled(&PROGRAM, |out| {
        let exe = out.join("ReadBack.exe");
        let status = Command::new("mcs")
            .args([
                &source("dotnet/ReadBack.cs"),
                "-r:System.Xml.Linq.dll",
                &format!("-out:{}", exe.display()),
            ])
            .status()
            .unwrap_or_else(|e| panic!("cannot run mcs ({e}): {MONO_HINT}"));
        assert!(status.success(), "mcs failed");
    });
    let exe = program.join("ReadBack.exe");
    let mut all = vec![exe.to_str().unwrap()];
    all.extend_from_slice(args);
    consumer("mono", &all, dir, MONO_HINT)
}

/// `resgen` compiles `<stem>.resx` in `dir` to `<stem>.resources`.
pub fn resgen(dir: &Path, stem: &str) {
    let output = Command::new("resgen")
        .args([format!("{stem}.resx"), format!("{stem}.resources")])
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run resgen ({e}): {MONO_HINT}"));
    assert!(
        output.status.success(),
        "resgen refused {stem}.resx:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
