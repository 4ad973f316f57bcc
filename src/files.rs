//! File records: the model, the `GET /files` query, the backends (SQLite with its
//! migrations, PostgreSQL) behind one trait and the handle with its read cache given to
//! the HTTP layer, the writes that pair a record with its object in the content store
//! (`content`), direct uploads (bytes straight to the store, the record once they are
//! checked), download names, bulk import and the seeder. No HTTP here: the handlers (`http::files`, `http::uploads`) call these
//! and map the error variants to statuses.

pub mod cache;
pub mod download;
pub mod error;
pub mod fold;
pub mod import;
pub mod migrations;
pub mod names;
pub mod pending;
pub mod postgres;
pub mod query;
pub mod record;
pub mod record_store;
pub mod repo;
pub mod seed;
pub mod sqlite;
pub mod store;
pub mod upload_form;
pub mod uploads;
pub mod writes;

pub use error::RepoError;
pub use pending::{CompletedUpload, PendingUpload};
pub use query::{ListQuery, Page, QueryError, key_from_params};
pub use record::{FileRecord, NewFileRecord, Permission, RecordError};
pub use repo::FilesRepo;
pub use store::{FilesDb, RecordStore};

pub use crate::content::DEFAULT_BUCKET;

/// A new record key: a random UUID v4 plus `-original` (SPEC §3).
pub fn new_key() -> Result<String, getrandom::Error> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b)?;
    b[6] = (b[6] & 0x0f) | 0x40; // version 4
    b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122 variant
    let hex = crate::hex::encode(&b);
    Ok(format!(
        "{}-{}-{}-{}-{}-original",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

/// Whether `key` has the shape of `new_key`'s keys (for tests).
#[cfg(test)]
pub(crate) fn is_new_key_shape(key: &str) -> bool {
    let Some(uuid) = key.strip_suffix("-original") else {
        return false;
    };
    uuid.len() == 36
        && uuid.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            14 => c == '4',
            19 => "89ab".contains(c),
            _ => c.is_ascii_digit() || ('a'..='f').contains(&c),
        })
}

#[cfg(test)]
mod key_tests {
    #[test]
    fn new_keys_are_uuid_v4_with_the_original_suffix_and_valid() {
        let a = super::new_key().unwrap();
        let b = super::new_key().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36 + "-original".len());
        assert_eq!(&a[14..15], "4");
        assert!("89ab".contains(&a[19..20]));
        assert!(a.ends_with("-original"));
        assert!(super::is_new_key_shape(&a), "{a}");
        assert_eq!(super::record::validate_key(&a), Ok(()));
    }
}
