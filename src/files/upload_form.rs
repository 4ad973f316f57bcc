//! The upload form of `POST /files` and of the console's upload: a `file` part with the
//! content and the text fields `bucket`, `permission`, `description` and `status`, read part
//! by part as the body arrives (the content spooled to disk, never whole in memory), then
//! stored as one record with its object. Both uploads go through `receive`; the multipart
//! framing is HTTP's (`http::files` hands the parts in).

use super::writes::{DEFAULT_BUCKET, Upload, Uploads, WriteError};
use super::{FileRecord, Permission};
use crate::content::Content;
use crate::objects::Spooled;
use bytes::Buf;
use futures_util::{Stream, TryStreamExt};
use std::fmt::Display;
use std::pin::pin;

/// The longest text field read: past every record field's own limit (a description is at
/// most 4096 characters), so those limits give the precise error, while a huge text field
/// cannot fill memory.
pub const FIELD_LIMIT: usize = 64 * 1024;

/// One part of the form, as it arrives.
pub struct Part<S> {
    pub name: String,
    /// The file name the part carries, if any.
    pub file_name: Option<String>,
    pub content_type: Option<String>,
    /// Its bytes, chunk by chunk.
    pub chunks: S,
}

/// Why a form cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum FormError {
    #[error("the multipart body is malformed: {0}")]
    Malformed(String),
    #[error("cannot read form field '{field}': {reason}")]
    Unreadable { field: String, reason: String },
    #[error("the 'file' field must carry a file name")]
    NoFileName,
    #[error("the form has more than one 'file' field")]
    SecondFile,
    #[error("form field '{0}' is longer than {FIELD_LIMIT} bytes")]
    TooLong(String),
    #[error("form field '{0}' must be UTF-8 text")]
    NotText(String),
    #[error("permission must be public or private, got '{0}'")]
    Permission(String),
    #[error("status must be an integer, got '{0}'")]
    Status(String),
    #[error("unknown form field '{0}'; allowed: file, bucket, permission, description, status")]
    Unknown(String),
    #[error("the form needs a 'file' field with the content")]
    NoFile,
    /// The content could not be spooled.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// Reads the form from `parts` and stores its upload through `uploads`. Text fields named in
/// `extra` (the console's `csrf`) are not the upload's: `accept` receives them once the form
/// is read and may refuse it before anything is stored (the spooled content is dropped).
pub async fn receive<P, S, B, X, E>(
    uploads: &Uploads,
    parts: P,
    extra: &[&str],
    accept: impl FnOnce(&[(String, String)]) -> Result<(), E>,
) -> Result<FileRecord, E>
where
    P: Stream<Item = Result<Part<S>, X>>,
    S: Stream<Item = Result<B, X>>,
    B: Buf,
    X: Display,
    E: From<FormError> + From<WriteError>,
{
    let (upload, content, extras) = read(uploads, parts, extra).await?;
    accept(&extras)?;
    Ok(uploads
        .store(upload.into_record()?, Content::Spooled(content))
        .await?)
}

/// The upload's fields, its content spooled to disk as it arrives, and the `extra` fields.
async fn read<P, S, B, X>(
    uploads: &Uploads,
    parts: P,
    extra: &[&str],
) -> Result<(Upload, Spooled, Vec<(String, String)>), FormError>
where
    P: Stream<Item = Result<Part<S>, X>>,
    S: Stream<Item = Result<B, X>>,
    B: Buf,
    X: Display,
{
    let mut parts = pin!(parts);
    let mut file: Option<(String, Spooled, Option<String>)> = None;
    let mut bucket = None;
    let mut permission = None;
    let mut description = None;
    let mut status = None;
    let mut extras = Vec::new();
    while let Some(part) = parts
        .try_next()
        .await
        .map_err(|e| FormError::Malformed(e.to_string()))?
    {
        let Part {
            name,
            file_name,
            content_type,
            chunks,
        } = part;
        let mut chunks = pin!(chunks);
        let unreadable = |e: X| FormError::Unreadable {
            field: name.clone(),
            reason: e.to_string(),
        };
        if name == "file" {
            let file_name = file_name
                .filter(|n| !n.trim().is_empty())
                .ok_or(FormError::NoFileName)?;
            if file.is_some() {
                return Err(FormError::SecondFile);
            }
            let mut spool = uploads.spool().await?;
            while let Some(mut chunk) = chunks.try_next().await.map_err(unreadable)? {
                let bytes = chunk.copy_to_bytes(chunk.remaining());
                spool.write(&bytes).await.map_err(WriteError::from)?;
            }
            file = Some((
                file_name,
                spool.finish().await.map_err(WriteError::from)?,
                content_type,
            ));
            continue;
        }
        // A text field's bytes, at most `FIELD_LIMIT` of them (only the file part may be large).
        let mut bytes = Vec::new();
        while let Some(mut chunk) = chunks.try_next().await.map_err(unreadable)? {
            if bytes.len() + chunk.remaining() > FIELD_LIMIT {
                return Err(FormError::TooLong(name));
            }
            bytes.extend_from_slice(&chunk.copy_to_bytes(chunk.remaining()));
        }
        let text =
            || String::from_utf8(bytes.clone()).map_err(|_| FormError::NotText(name.clone()));
        match name.as_str() {
            "bucket" => bucket = Some(text()?),
            "permission" => {
                let value = text()?;
                permission = Some(
                    value
                        .parse::<Permission>()
                        .map_err(|_| FormError::Permission(value))?,
                );
            }
            "description" => description = Some(text()?),
            "status" => {
                let value = text()?;
                status = Some(
                    value
                        .trim()
                        .parse::<i64>()
                        .map_err(|_| FormError::Status(value))?,
                );
            }
            other if extra.contains(&other) => extras.push((name.clone(), text()?)),
            other => return Err(FormError::Unknown(other.to_owned())),
        }
    }
    let (file_name, content, content_type) = file.ok_or(FormError::NoFile)?;
    let upload = Upload {
        file_name,
        content_type,
        bucket: bucket.unwrap_or_else(|| DEFAULT_BUCKET.to_owned()),
        permission: permission.unwrap_or_default(),
        description: description.unwrap_or_default(),
        status: status.unwrap_or(0),
    };
    Ok((upload, content, extras))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::settings::{Addressing, Signing};
    use crate::files::FilesDb;
    use crate::objects::ObjectStore;
    use bytes::Bytes;
    use futures_util::stream;
    use std::sync::Arc;

    type Chunks = stream::Iter<std::vec::IntoIter<Result<Bytes, String>>>;

    fn part(name: &str, file_name: Option<&str>, chunks: &[&str]) -> Result<Part<Chunks>, String> {
        let chunks: Vec<Result<Bytes, String>> = chunks
            .iter()
            .map(|c| Ok(Bytes::from(c.as_bytes().to_vec())))
            .collect();
        Ok(Part {
            name: name.to_owned(),
            file_name: file_name.map(str::to_owned),
            content_type: None,
            chunks: stream::iter(chunks),
        })
    }

    fn text(name: &str, value: &str) -> Result<Part<Chunks>, String> {
        part(name, None, &[value])
    }

    struct Place {
        _dir: tempfile::TempDir,
        files: FilesDb,
        store: Arc<ObjectStore>,
        uploads: Uploads,
    }

    fn place() -> Place {
        let dir = tempfile::tempdir().unwrap();
        let files = FilesDb::open(dir.path().join("files.sqlite3")).unwrap();
        let store = Arc::new(ObjectStore::open(dir.path().join("objects")).unwrap());
        let signing = Signing {
            endpoint: None,
            region: "us-east-1".into(),
            access_key_id: String::new(),
            secret_access_key: crate::secret::Secret::new(""),
            session_token: None,
            addressing: Addressing::Path,
            expires_secs: 900,
        };
        let local = crate::content::Local {
            embedded: Some(store.clone()),
            credentials: None,
            data_dir: dir.path().to_owned(),
        };
        let content = crate::content::choose(&signing, local).unwrap();
        let uploads = Uploads::new(files.clone(), content).unwrap();
        Place {
            _dir: dir,
            files,
            store,
            uploads,
        }
    }

    async fn receive_all(
        place: &Place,
        parts: Vec<Result<Part<Chunks>, String>>,
        extra: &[&str],
    ) -> Result<FileRecord, String> {
        receive(&place.uploads, stream::iter(parts), extra, |_| Ok(()))
            .await
            .map_err(|e: Refused| e.0)
    }

    /// What the tests' callers answer with: the form's error, or their own refusal.
    #[derive(Debug)]
    struct Refused(String);

    impl From<FormError> for Refused {
        fn from(e: FormError) -> Refused {
            Refused(e.to_string())
        }
    }

    impl From<WriteError> for Refused {
        fn from(e: WriteError) -> Refused {
            Refused(e.to_string())
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_form_is_stored_as_one_record_with_its_object() {
        let place = place();
        let record = receive_all(
            &place,
            vec![
                text("bucket", "docs"),
                text("permission", "private"),
                text("description", "the manual"),
                text("status", " 2 "),
                part("file", Some("manual.txt"), &["hello ", "world"]),
            ],
            &[],
        )
        .await
        .unwrap();
        assert_eq!(
            (
                record.file_name.as_str(),
                record.bucket.as_str(),
                record.permission,
                record.description.as_str(),
                record.status,
                record.file_type.as_str(),
            ),
            (
                "manual.txt",
                "docs",
                Permission::Private,
                "the manual",
                2,
                "txt"
            )
        );
        assert_eq!(place.store.stat("docs", &record.key).unwrap().len, 11);
        assert_eq!(
            place.files.get_by_key(record.key.clone()).await.unwrap(),
            Some(record)
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn extra_fields_go_to_the_check_which_may_refuse_before_anything_is_stored() {
        let place = place();
        let mut seen = Vec::new();
        let refused = receive(
            &place.uploads,
            stream::iter(vec![
                part("file", Some("a.txt"), &["content"]),
                text("csrf", "token"),
            ]),
            &["csrf"],
            |extras| {
                seen = extras.to_vec();
                Err(Refused(
                    "the form's CSRF token is not this session's".into(),
                ))
            },
        )
        .await
        .unwrap_err();
        assert_eq!(refused.0, "the form's CSRF token is not this session's");
        assert_eq!(seen, vec![("csrf".to_owned(), "token".to_owned())]);
        assert_eq!(place.files.count(None).await.unwrap(), 0);
        // Neither an object nor the spooled content stays behind.
        let left: Vec<_> = walk(place.store.root());
        assert!(left.is_empty(), "{left:?}");
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else {
                files.push(path);
            }
        }
        files
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_bad_form_is_refused_naming_the_field() {
        let place = place();
        let file = || part("file", Some("a.txt"), &["x"]);
        let long = "x".repeat(FIELD_LIMIT + 1);
        let cases = [
            (
                vec![file(), text("colour", "red")],
                "unknown form field 'colour'; allowed: file, bucket, permission, description, status",
            ),
            (
                vec![file(), file()],
                "the form has more than one 'file' field",
            ),
            (
                vec![text("bucket", "docs")],
                "the form needs a 'file' field with the content",
            ),
            (
                vec![part("file", Some("  "), &["x"])],
                "the 'file' field must carry a file name",
            ),
            (
                vec![file(), text("permission", "secret")],
                "permission must be public or private, got 'secret'",
            ),
            (
                vec![file(), text("status", "one")],
                "status must be an integer, got 'one'",
            ),
            (
                vec![file(), text("description", &long)],
                "form field 'description' is longer than 65536 bytes",
            ),
            (
                vec![Err("boundary missing".to_owned())],
                "the multipart body is malformed: boundary missing",
            ),
            // The extra fields of one caller are unknown to another.
            (
                vec![file(), text("csrf", "token")],
                "unknown form field 'csrf'; allowed: file, bucket, permission, description, status",
            ),
        ];
        for (parts, message) in cases {
            assert_eq!(receive_all(&place, parts, &[]).await.unwrap_err(), message);
        }
        assert_eq!(place.files.count(None).await.unwrap(), 0);
    }
}
