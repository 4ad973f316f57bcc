//! The embedded store's own access key: generated on first start, kept in
//! `data_dir/credentials.json` (mode 0600), read back on every later start. A damaged file
//! is an error, never silently replaced: that would break every URL already handed out.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::secret::Secret;
use crate::signing::Credentials;

const FILE_NAME: &str = "credentials.json";
const KEY_ID_PREFIX: &str = "DEPOT";
const KEY_ID_LEN: usize = 20;
const SECRET_LEN: usize = 40;
const UPPER_ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    #[error("cannot {action} '{}': {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error(
        "'{}' is not a valid credentials file ({reason}); restore it, or delete it to generate new credentials (URLs signed with the old ones then stop working)",
        path.display()
    )]
    Corrupt { path: PathBuf, reason: String },
    #[error("the system's random number generator failed: {0}")]
    Random(getrandom::Error),
}

/// Loads or creates the embedded store's credentials.
pub struct EmbeddedCredentials;

#[derive(Serialize, Deserialize)]
struct StoredCredentials {
    access_key_id: String,
    secret_access_key: String,
}

impl EmbeddedCredentials {
    /// Where the credentials of `data_dir` are kept.
    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join(FILE_NAME)
    }

    /// Reads `data_dir/credentials.json`, creating it (and `data_dir`) on first use.
    pub fn load_or_create(data_dir: &Path) -> Result<Credentials, CredentialsError> {
        let path = Self::path(data_dir);
        match fs::read(&path) {
            Ok(bytes) => return parse(&path, &bytes),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(CredentialsError::Io {
                    action: "read",
                    path,
                    source,
                });
            }
        }
        let io_error = |action, path: &Path| {
            let path = path.to_owned();
            move |source| CredentialsError::Io {
                action,
                path,
                source,
            }
        };
        fs::create_dir_all(data_dir).map_err(io_error("create folder", data_dir))?;
        let stored = StoredCredentials {
            access_key_id: format!(
                "{KEY_ID_PREFIX}{}",
                random_text(UPPER_ALNUM, KEY_ID_LEN - KEY_ID_PREFIX.len())?
            ),
            secret_access_key: random_text(ALNUM, SECRET_LEN)?,
        };
        let json = serde_json::to_vec_pretty(&stored).map_err(|e| CredentialsError::Io {
            action: "encode",
            path: path.clone(),
            source: e.into(),
        })?;

        let (temp, file) = crate::atomic_file::create_temp(data_dir, FILE_NAME, Some(0o600))
            .map_err(io_error("create a temporary file in", data_dir))?;
        let written = write_synced(file, &json).map_err(io_error("write", &temp));
        // A hard link never replaces an existing file: when two depot processes start
        // together, one wins and the other reads the winner's credentials.
        let placed = written.and_then(|()| match fs::hard_link(&temp, &path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            // File systems without hard links: a rename, atomic but last-writer-wins.
            Err(_) => fs::rename(&temp, &path)
                .map(|()| true)
                .map_err(io_error("move into place", &path)),
        });
        let _ = fs::remove_file(&temp);
        if !placed? {
            let bytes = fs::read(&path).map_err(io_error("read", &path))?;
            return parse(&path, &bytes);
        }
        if let Ok(dir) = File::open(data_dir) {
            let _ = dir.sync_all();
        }
        Ok(into_credentials(stored))
    }
}

fn write_synced(mut file: File, bytes: &[u8]) -> io::Result<()> {
    file.write_all(bytes)?;
    file.sync_all()
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Credentials, CredentialsError> {
    let corrupt = |reason: String| CredentialsError::Corrupt {
        path: path.to_owned(),
        reason,
    };
    let stored: StoredCredentials =
        serde_json::from_slice(bytes).map_err(|e| corrupt(e.to_string()))?;
    let id_ok = !stored.access_key_id.is_empty()
        && stored
            .access_key_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric());
    if !id_ok {
        return Err(corrupt(
            "access_key_id must be non-empty letters and digits".into(),
        ));
    }
    if stored.secret_access_key.is_empty() {
        return Err(corrupt("secret_access_key must not be empty".into()));
    }
    Ok(into_credentials(stored))
}

fn into_credentials(stored: StoredCredentials) -> Credentials {
    Credentials {
        access_key_id: stored.access_key_id,
        secret_access_key: Secret::new(stored.secret_access_key),
        session_token: None,
    }
}

/// `len` characters drawn uniformly from `alphabet` (bytes past the last whole multiple of
/// its size are dropped, so no character is likelier than another).
fn random_text(alphabet: &[u8], len: usize) -> Result<String, CredentialsError> {
    let limit = 256 - 256 % alphabet.len();
    let mut out = String::with_capacity(len);
    let mut buf = [0u8; 64];
    while out.len() < len {
        getrandom::fill(&mut buf).map_err(CredentialsError::Random)?;
        for &b in buf.iter().filter(|&&b| usize::from(b) < limit) {
            if out.len() == len {
                break;
            }
            out.push(char::from(alphabet[usize::from(b) % alphabet.len()]));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_once_then_stable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        let first = EmbeddedCredentials::load_or_create(&data).expect("created");
        assert_eq!(first.access_key_id.len(), 20);
        assert!(first.access_key_id.starts_with("DEPOT"));
        assert!(
            first
                .access_key_id
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        );
        let secret = first.secret_access_key.expose();
        assert_eq!(secret.len(), 40);
        assert!(secret.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_eq!(first.session_token, None);

        let again = EmbeddedCredentials::load_or_create(&data).expect("loaded");
        assert_eq!(again, first);
        let names: Vec<_> = fs::read_dir(&data)
            .expect("dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, ["credentials.json"]);
        let other = EmbeddedCredentials::load_or_create(&dir.path().join("other")).expect("new");
        assert_ne!(other.secret_access_key, first.secret_access_key);
    }

    #[cfg(unix)]
    #[test]
    fn file_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        EmbeddedCredentials::load_or_create(dir.path()).expect("created");
        let mode = fs::metadata(EmbeddedCredentials::path(dir.path()))
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn existing_file_is_read_as_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(
            EmbeddedCredentials::path(dir.path()),
            r#"{"access_key_id": "DEPOTABC", "secret_access_key": "s3cr3t"}"#,
        )
        .expect("write");
        let creds = EmbeddedCredentials::load_or_create(dir.path()).expect("loaded");
        assert_eq!(creds.access_key_id, "DEPOTABC");
        assert_eq!(creds.secret_access_key.expose(), "s3cr3t");
    }

    #[test]
    fn corrupt_file_is_an_error_naming_the_path_and_is_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = EmbeddedCredentials::path(dir.path());
        for content in [
            "{not json",
            r#"{"access_key_id": "", "secret_access_key": "x"}"#,
            r#"{"access_key_id": "DEPOTX", "secret_access_key": ""}"#,
            r#"{"access_key_id": "DEPOTX"}"#,
        ] {
            fs::write(&path, content).expect("write");
            let error = EmbeddedCredentials::load_or_create(dir.path()).expect_err(content);
            assert!(
                matches!(error, CredentialsError::Corrupt { .. }),
                "{error:?}"
            );
            assert!(error.to_string().contains(&path.display().to_string()));
            assert_eq!(fs::read_to_string(&path).expect("kept"), content);
        }
    }
}
