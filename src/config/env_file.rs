//! `.env.service` files: `NAME=value` lines, `#` comments, optional quotes.
//!
//! Parsing keeps line numbers so that an error points at the line to fix.

use std::path::Path;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EnvFileError {
    #[error("{path}:{line}: expected NAME=value, got a line without '='")]
    MissingEquals { path: String, line: usize },
    #[error("{path}:{line}: '{name}' is not a valid variable name (letters, digits and _ only)")]
    BadName {
        path: String,
        line: usize,
        name: String,
    },
    #[error("{path}:{line}: the quoted value is not closed")]
    UnclosedQuote { path: String, line: usize },
    #[error("cannot read {path}: {reason}")]
    Unreadable { path: String, reason: String },
}

/// Reads an env file; a missing file is an empty one (zero configuration).
pub fn read(path: &Path) -> Result<Vec<(String, String)>, EnvFileError> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, &path.display().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(EnvFileError::Unreadable {
            path: path.display().to_string(),
            reason: e.to_string(),
        }),
    }
}

/// Parses env-file text. `export NAME=value` is accepted (shell habit). Values in double
/// quotes understand `\n`, `\"` and `\\`; single-quoted values are literal; unquoted values
/// end at ` #` (a trailing comment) and are trimmed.
pub fn parse(text: &str, path: &str) -> Result<Vec<(String, String)>, EnvFileError> {
    let mut out = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let trimmed = trimmed.strip_prefix("export ").unwrap_or(trimmed);
        let Some((name, value)) = trimmed.split_once('=') else {
            return Err(EnvFileError::MissingEquals {
                path: path.to_owned(),
                line,
            });
        };
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(EnvFileError::BadName {
                path: path.to_owned(),
                line,
                name: name.to_owned(),
            });
        }
        let value = unquote(value.trim()).ok_or_else(|| EnvFileError::UnclosedQuote {
            path: path.to_owned(),
            line,
        })?;
        out.push((name.to_owned(), value));
    }
    Ok(out)
}

fn unquote(value: &str) -> Option<String> {
    if let Some(rest) = value.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => return Some(out),
                '\\' => match chars.next()? {
                    'n' => out.push('\n'),
                    other => out.push(other),
                },
                c => out.push(c),
            }
        }
        None
    } else if let Some(rest) = value.strip_prefix('\'') {
        rest.find('\'').map(|end| rest[..end].to_owned())
    } else {
        let end = value.find(" #").unwrap_or(value.len());
        Some(value[..end].trim_end().to_owned())
    }
}

/// Sets `name` to `value` in the env file at `path`, keeping every other line and comment
/// as it was: the first line that assigns `name` is replaced, any later ones are left alone
/// (they would still win for a shell, so the value is written there too), and a missing
/// assignment is appended. The file is written to a temporary file and renamed, with
/// the permissions of the old one (owner-only for a new file).
pub fn set_var(path: &Path, name: &str, value: &str) -> std::io::Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let assignment = format!("{name}={}", quote(value));
    let mut found = false;
    let mut lines: Vec<String> = text
        .lines()
        .map(|line| {
            let body = line.trim_start();
            let body = body.strip_prefix("export ").unwrap_or(body);
            let assigns = body.split_once('=').is_some_and(|(n, _)| n.trim() == name);
            if assigns {
                found = true;
                let export = if line.trim_start().starts_with("export ") {
                    "export "
                } else {
                    ""
                };
                format!("{export}{assignment}")
            } else {
                line.to_owned()
            }
        })
        .collect();
    if !found {
        lines.push(assignment);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    // It holds secrets (keys, tokens): a save keeps it private.
    crate::atomic_file::write_secret(path, out.as_bytes())
}

/// A value as `parse` reads it back: bare when that is unambiguous, else double-quoted.
fn quote(value: &str) -> String {
    let bare = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@+,~%".contains(c));
    if bare {
        value.to_owned()
    } else {
        let escaped = value
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n");
        format!("\"{escaped}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_comments_quotes_and_export() {
        let text = "# comment\n\nSERVICE_CLIENT_ID=abc # trailing\nexport A_B=\"x \\\"y\\\"\\nz\"\nC='raw \\n'\nD=\n";
        let vars = parse(text, ".env.service").unwrap();
        assert_eq!(
            vars,
            vec![
                ("SERVICE_CLIENT_ID".into(), "abc".into()),
                ("A_B".into(), "x \"y\"\nz".into()),
                ("C".into(), "raw \\n".into()),
                ("D".into(), "".into()),
            ]
        );
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            parse("A=1\nnot a pair\n", "f").unwrap_err().to_string(),
            "f:2: expected NAME=value, got a line without '='"
        );
        assert!(matches!(
            parse("A-B=1", "f"),
            Err(EnvFileError::BadName { line: 1, .. })
        ));
        assert!(matches!(
            parse("A=\"open", "f"),
            Err(EnvFileError::UnclosedQuote { line: 1, .. })
        ));
    }

    #[test]
    fn set_var_replaces_in_place_and_keeps_every_other_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".env.service");
        let before = "# Google credentials\nSERVICE_CLIENT_ID=abc # the app\n\nexport SERVICE_REFRESH_TOKEN=old\n# end\n";
        std::fs::write(&path, before).unwrap();
        set_var(&path, "SERVICE_REFRESH_TOKEN", "1//new-token").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "# Google credentials\nSERVICE_CLIENT_ID=abc # the app\n\nexport SERVICE_REFRESH_TOKEN=1//new-token\n# end\n"
        );
        set_var(&path, "SERVICE_SPREADSHEET_ID", "with space \"q\" \\ #").unwrap();
        let vars = read(&path).unwrap();
        assert_eq!(vars.last().unwrap().1, "with space \"q\" \\ #");
        assert_eq!(
            vars[1],
            ("SERVICE_REFRESH_TOKEN".into(), "1//new-token".into())
        );
    }

    #[test]
    fn set_var_creates_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".env.service");
        set_var(&path, "SERVICE_REFRESH_TOKEN", "t").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "SERVICE_REFRESH_TOKEN=t\n"
        );
    }

    #[test]
    fn missing_file_is_empty() {
        assert_eq!(
            read(Path::new("/nonexistent/.env.service")).unwrap(),
            vec![]
        );
    }
}
