//! The JSON data file that may hold the refresh token (`--config-format json`):
//! `{"SERVICE_REFRESH_TOKEN": "..."}`, other members kept as they are when saving.

use crate::secret::Secret;
use std::path::Path;

pub const TOKEN_MEMBER: &str = "SERVICE_REFRESH_TOKEN";

#[derive(Debug, thiserror::Error)]
pub enum TokenFileError {
    #[error(
        "{path} is not a JSON object ({reason}); fix or delete it, then run `depot auth --config-format json`"
    )]
    Malformed { path: String, reason: String },
    #[error("cannot read {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("cannot write {path}: {reason}")]
    Unwritable { path: String, reason: String },
}

/// The refresh token of the file; empty when the file or the member does not exist.
pub fn read(path: &Path) -> Result<Secret, TokenFileError> {
    token_of(load(path)?)
}

/// The refresh token in the file's bytes already read (`None`: no file), so a caller that
/// also fingerprints the bytes looks at the same content.
pub fn parse(path: &Path, bytes: Option<&[u8]>) -> Result<Secret, TokenFileError> {
    match bytes {
        Some(bytes) => token_of(object_of(path, bytes)?),
        None => Ok(Secret::default()),
    }
}

fn token_of(object: serde_json::Map<String, serde_json::Value>) -> Result<Secret, TokenFileError> {
    Ok(Secret::new(
        object
            .get(TOKEN_MEMBER)
            .and_then(|v| v.as_str())
            .unwrap_or_default(),
    ))
}

/// Sets the token in the file, keeping every other member; written atomically.
pub fn save(path: &Path, token: &Secret) -> Result<(), TokenFileError> {
    let mut object = load(path)?;
    object.insert(TOKEN_MEMBER.into(), token.expose().into());
    let mut text = serde_json::to_string_pretty(&object).unwrap_or_default();
    text.push('\n');
    crate::atomic_file::write(path, text.as_bytes()).map_err(|e| TokenFileError::Unwritable {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

fn load(path: &Path) -> Result<serde_json::Map<String, serde_json::Value>, TokenFileError> {
    let shown = || path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(e) => {
            return Err(TokenFileError::Unreadable {
                path: shown(),
                reason: e.to_string(),
            });
        }
    };
    object_of(path, &bytes)
}

fn object_of(
    path: &Path,
    bytes: &[u8],
) -> Result<serde_json::Map<String, serde_json::Value>, TokenFileError> {
    let shown = || path.display().to_string();
    match serde_json::from_slice(bytes) {
        Ok(serde_json::Value::Object(object)) => Ok(object),
        Ok(_) => Err(TokenFileError::Malformed {
            path: shown(),
            reason: "the top level is not an object".into(),
        }),
        Err(e) => Err(TokenFileError::Malformed {
            path: shown(),
            reason: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_merges_and_read_returns_the_token() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.json");
        assert_eq!(read(&path).unwrap(), Secret::default());
        std::fs::write(&path, r#"{"other": {"kept": true}}"#).unwrap();
        save(&path, &Secret::new("tok-1")).unwrap();
        assert_eq!(read(&path).unwrap().expose(), "tok-1");
        let back: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back["other"]["kept"], true);
    }

    #[test]
    fn a_malformed_file_is_named_and_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.json");
        std::fs::write(&path, "[1, 2]").unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(
            err.contains("data.json") && err.contains("not an object"),
            "{err}"
        );
        assert!(save(&path, &Secret::new("t")).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[1, 2]");
    }
}
