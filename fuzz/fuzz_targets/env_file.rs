//! `.env.service` text → `config::env_file::parse`: values, or an error naming a line that
//! exists. Then the writer `depot auth` uses: `set_var` into that file, read back, gives
//! the value set and leaves every other variable as it was. Input: `file text \0 value`.
#![no_main]

use depot::config::env_file::{EnvFileError, parse, read, set_var};

const NAME: &str = "SERVICE_REFRESH_TOKEN";

libfuzzer_sys::fuzz_target!(|input: &str| {
    let (text, value) = input.split_once('\0').unwrap_or((input, "1//token"));
    let before = match parse(text, ".env.service") {
        Ok(vars) => vars,
        Err(
            EnvFileError::MissingEquals { line, .. }
            | EnvFileError::BadName { line, .. }
            | EnvFileError::UnclosedQuote { line, .. },
        ) => {
            assert!(line >= 1 && line <= text.lines().count(), "line {line}");
            return;
        }
        Err(e) => panic!("parse gave {e}"),
    };
    for (name, _) in &before {
        assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    }
    let path = depot_fuzz::sheet_file(text.as_bytes(), "env");
    set_var(&path, NAME, value).expect("set_var writes the file");
    let after = read(&path).unwrap_or_else(|e| panic!("set_var wrote a file parse refuses: {e}"));
    let others = |vars: &[(String, String)]| -> Vec<(String, String)> {
        vars.iter().filter(|(n, _)| n != NAME).cloned().collect()
    };
    assert_eq!(
        others(&after),
        others(&before),
        "set_var changed other variables"
    );
    let set: Vec<&String> = after
        .iter()
        .filter(|(n, _)| n == NAME)
        .map(|(_, v)| v)
        .collect();
    assert!(
        !set.is_empty() && set.iter().all(|v| *v == value),
        "{NAME} reads back as {set:?}, set {value:?}"
    );
});
