//! The repository suite. The behaviour tests are generic over `SuiteRepo` and run
//! against every backend (`both!`): SQLite in memory and PostgreSQL on a real server
//! (tests/support/pg.rs, one server per test process, one database per test). The rest
//! pin SQLite's own mechanics (pragmas, query plans, migrations from old files).

use super::*;
use crate::files::pending::PendingUpload;
use crate::files::record::RecordError;
use chrono::TimeZone;
use proptest::prelude::*;

/// The calls the shared suite makes, as the SQLite repository spells them.
trait SuiteRepo: Sized {
    fn fresh() -> Self;
    fn insert(&mut self, new: NewFileRecord) -> Result<FileRecord, RepoError>;
    fn insert_many(&mut self, records: Vec<NewFileRecord>) -> Result<usize, RepoError>;
    fn get_by_key(&self, key: &str) -> Result<Option<FileRecord>, RepoError>;
    fn delete_by_key(&mut self, key: &str) -> Result<FileRecord, RepoError>;
    fn count(&self, permission: Option<Permission>) -> Result<u64, RepoError>;
    fn list(&mut self, query: &ListQuery, include_private: bool) -> Result<Page, RepoError>;
    fn name_index(&self) -> Result<NameIndex, RepoError>;
    fn get_by_ids(&self, ids: Vec<i64>) -> Result<Vec<FileRecord>, RepoError>;
    /// There is no update API yet; the schema must still keep counts and search right.
    fn rename_and_make_private(&mut self, id: i64, name: &str);
    fn open_upload(&mut self, upload: &PendingUpload) -> Result<(), RepoError>;
    fn pending_upload(&self, key: &str) -> Result<Option<PendingUpload>, RepoError>;
    fn complete_upload(
        &mut self,
        key: &str,
        record: NewFileRecord,
        etag: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<FileRecord, RepoError>;
    fn expired_uploads(
        &self,
        before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<PendingUpload>, RepoError>;
    fn expired_completions(
        &self,
        before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<CompletedUpload>, RepoError>;
    fn drop_upload(&mut self, key: &str) -> Result<bool, RepoError>;
}

impl SuiteRepo for FilesRepo {
    fn fresh() -> Self {
        FilesRepo::open_in_memory().unwrap()
    }
    fn insert(&mut self, new: NewFileRecord) -> Result<FileRecord, RepoError> {
        FilesRepo::insert(self, new)
    }
    fn insert_many(&mut self, records: Vec<NewFileRecord>) -> Result<usize, RepoError> {
        FilesRepo::insert_many(self, records)
    }
    fn get_by_key(&self, key: &str) -> Result<Option<FileRecord>, RepoError> {
        FilesRepo::get_by_key(self, key)
    }
    fn delete_by_key(&mut self, key: &str) -> Result<FileRecord, RepoError> {
        FilesRepo::delete_by_key(self, key)
    }
    fn count(&self, permission: Option<Permission>) -> Result<u64, RepoError> {
        FilesRepo::count(self, permission)
    }
    fn name_index(&self) -> Result<NameIndex, RepoError> {
        FilesRepo::name_index(self)
    }
    fn get_by_ids(&self, ids: Vec<i64>) -> Result<Vec<FileRecord>, RepoError> {
        FilesRepo::get_by_ids(self, &ids)
    }
    fn list(&mut self, query: &ListQuery, include_private: bool) -> Result<Page, RepoError> {
        FilesRepo::list(self, query, include_private)
    }
    fn rename_and_make_private(&mut self, id: i64, name: &str) {
        self.conn
            .execute(
                "UPDATE files SET permission = 'private', file_name = ?2 WHERE id = ?1",
                params![id, name],
            )
            .unwrap();
    }
    fn open_upload(&mut self, upload: &PendingUpload) -> Result<(), RepoError> {
        FilesRepo::open_upload(self, upload)
    }
    fn pending_upload(&self, key: &str) -> Result<Option<PendingUpload>, RepoError> {
        FilesRepo::pending_upload(self, key)
    }
    fn complete_upload(
        &mut self,
        key: &str,
        record: NewFileRecord,
        etag: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<FileRecord, RepoError> {
        FilesRepo::complete_upload(self, key, record, etag, now)
    }
    fn expired_uploads(
        &self,
        before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<PendingUpload>, RepoError> {
        FilesRepo::expired_uploads(self, before, limit)
    }
    fn expired_completions(
        &self,
        before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<CompletedUpload>, RepoError> {
        FilesRepo::expired_completions(self, before, limit)
    }
    fn drop_upload(&mut self, key: &str) -> Result<bool, RepoError> {
        FilesRepo::drop_upload(self, key)
    }
}

#[path = "../../../tests/support/pg.rs"]
mod pg_engine;

mod pg_suite {
    use super::*;
    use crate::files::postgres::PgStore;
    use crate::files::store::RecordStore;
    use std::sync::OnceLock;

    /// The PostgreSQL store driven synchronously, so the suite reads the same for both.
    pub struct PgRepo {
        runtime: tokio::runtime::Runtime,
        store: Option<PgStore>,
        name: String,
    }

    impl Drop for PgRepo {
        fn drop(&mut self) {
            drop(self.store.take());
            server().drop_database(&self.name);
        }
    }

    impl PgRepo {
        fn store(&self) -> &PgStore {
            self.store.as_ref().unwrap()
        }
    }

    pub fn server() -> &'static pg_engine::Postgres {
        static SERVER: OnceLock<pg_engine::Postgres> = OnceLock::new();
        SERVER.get_or_init(pg_engine::Postgres::start)
    }

    impl SuiteRepo for PgRepo {
        fn fresh() -> Self {
            let name = server().create_database();
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let store = runtime
                .block_on(PgStore::connect(&server().url(&name), 2))
                .unwrap();
            PgRepo {
                runtime,
                store: Some(store),
                name,
            }
        }
        fn insert(&mut self, new: NewFileRecord) -> Result<FileRecord, RepoError> {
            self.runtime.block_on(self.store().insert(new))
        }
        fn insert_many(&mut self, records: Vec<NewFileRecord>) -> Result<usize, RepoError> {
            self.runtime.block_on(self.store().insert_many(records))
        }
        fn get_by_key(&self, key: &str) -> Result<Option<FileRecord>, RepoError> {
            self.runtime
                .block_on(self.store().get_by_key(key.to_owned()))
        }
        fn delete_by_key(&mut self, key: &str) -> Result<FileRecord, RepoError> {
            self.runtime
                .block_on(self.store().delete_by_key(key.to_owned()))
        }
        fn count(&self, permission: Option<Permission>) -> Result<u64, RepoError> {
            self.runtime.block_on(self.store().count(permission))
        }
        fn name_index(&self) -> Result<NameIndex, RepoError> {
            self.runtime.block_on(self.store().name_index())
        }
        fn get_by_ids(&self, ids: Vec<i64>) -> Result<Vec<FileRecord>, RepoError> {
            self.runtime.block_on(self.store().get_by_ids(ids))
        }
        fn list(&mut self, query: &ListQuery, include_private: bool) -> Result<Page, RepoError> {
            self.runtime
                .block_on(self.store().list(query.clone(), include_private))
        }
        fn rename_and_make_private(&mut self, id: i64, name: &str) {
            let url = server().url(&self.name);
            let name = name.to_owned();
            self.runtime.block_on(async move {
                let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                tokio::spawn(conn);
                client
                    .execute(
                        "UPDATE files SET permission = 'private', file_name = $2, name_folded = $3 WHERE id = $1",
                        &[&id, &name, &fold(&name)],
                    )
                    .await
                    .unwrap();
            });
        }
        fn open_upload(&mut self, upload: &PendingUpload) -> Result<(), RepoError> {
            self.runtime
                .block_on(self.store().open_upload(upload.clone()))
        }
        fn pending_upload(&self, key: &str) -> Result<Option<PendingUpload>, RepoError> {
            self.runtime
                .block_on(self.store().pending_upload(key.to_owned()))
        }
        fn complete_upload(
            &mut self,
            key: &str,
            record: NewFileRecord,
            etag: Option<&str>,
            now: DateTime<Utc>,
        ) -> Result<FileRecord, RepoError> {
            self.runtime.block_on(self.store().complete_upload(
                key.to_owned(),
                record,
                etag.map(str::to_owned),
                now,
            ))
        }
        fn expired_uploads(
            &self,
            before: DateTime<Utc>,
            limit: u32,
        ) -> Result<Vec<PendingUpload>, RepoError> {
            self.runtime
                .block_on(self.store().expired_uploads(before, limit))
        }
        fn expired_completions(
            &self,
            before: DateTime<Utc>,
            limit: u32,
        ) -> Result<Vec<CompletedUpload>, RepoError> {
            self.runtime
                .block_on(self.store().expired_completions(before, limit))
        }
        fn drop_upload(&mut self, key: &str) -> Result<bool, RepoError> {
            self.runtime
                .block_on(self.store().drop_upload(key.to_owned()))
        }
    }
}

/// A PostgreSQL database made by the first release (migration 1 alone) keeps its records
/// through the upgrade, with size and sha256 unknown.
#[test]
fn a_version_1_postgres_database_is_migrated_on_connect() {
    use crate::files::postgres::{PgStore, migrations::MIGRATIONS};
    use crate::files::store::RecordStore;
    let name = pg_suite::server().create_database();
    let url = pg_suite::server().url(&name);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
            .batch_execute(&format!(
                "CREATE TABLE depot_schema (version INTEGER PRIMARY KEY, description TEXT NOT NULL,
                     applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
                 {}
                 INSERT INTO depot_schema (version, description) VALUES (1, 'release 1');
                 INSERT INTO files (file_name, name_folded, bucket, permission, key, created_at)
                     VALUES ('Old.pdf', 'old.pdf', 'depot-files', 'public', 'old-key', 1700000000000);",
                MIGRATIONS[0].sql
            ))
            .await
            .unwrap();
        let store = PgStore::connect(&url, 2).await.unwrap();
        assert_eq!(store.schema_version().await.unwrap(), 3);
        let old = store.get_by_key("old-key".into()).await.unwrap().unwrap();
        assert_eq!(
            (old.file_name.as_str(), old.size, old.sha256),
            ("Old.pdf", None, None)
        );
        assert_eq!(store.count(None).await.unwrap(), 1);
    });
    pg_suite::server().drop_database(&name);
}

/// One test per backend for a generic suite function.
macro_rules! both {
    ($name:ident) => {
        mod $name {
            #[test]
            fn sqlite() {
                super::$name::<super::FilesRepo>();
            }
            #[test]
            fn postgres() {
                super::$name::<super::pg_suite::PgRepo>();
            }
        }
    };
}

fn key(i: u64) -> String {
    format!("00000000-0000-4000-8000-{i:012}-original")
}

fn at(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(1_700_000_000_000 + ms).unwrap()
}

fn rec(i: u64, name: &str, permission: Permission, created_ms: i64) -> NewFileRecord {
    NewFileRecord {
        file_name: name.into(),
        description: format!("file {i}"),
        bucket: "depot-files".into(),
        status: 1,
        file_type: "txt".into(),
        permission,
        key: key(i),
        created_at: Some(at(created_ms)),
        size: None,
        sha256: None,
    }
}

fn repo_with<R: SuiteRepo>(records: Vec<NewFileRecord>) -> R {
    let mut repo = R::fresh();
    repo.insert_many(records).unwrap();
    repo
}

fn q(file_name: Option<&str>, permission: Option<Permission>, page: u64, limit: u64) -> ListQuery {
    ListQuery {
        permission,
        file_name: file_name.map(str::to_owned),
        page,
        limit,
    }
}

fn names(page: &Page) -> Vec<&str> {
    page.records.iter().map(|r| r.file_name.as_str()).collect()
}

fn ids(page: &Page) -> Vec<i64> {
    page.records.iter().map(|r| r.id).collect()
}

fn search<R: SuiteRepo>(repo: &mut R, needle: &str) -> (Vec<String>, u64) {
    let page = repo.list(&q(Some(needle), None, 1, 100), true).unwrap();
    (
        page.records.iter().map(|r| r.file_name.clone()).collect(),
        page.total,
    )
}

#[test]
fn open_creates_the_file_and_folder_with_the_pragmas() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data/nested/files.sqlite3");
    let repo = FilesRepo::open(&path).unwrap();
    assert!(path.exists());
    let pragma = |name: &str| -> String {
        repo.conn
            .pragma_query_value(None, name, |r| r.get::<_, rusqlite::types::Value>(0))
            .map(|v| match v {
                Value::Text(s) => s,
                Value::Integer(i) => i.to_string(),
                other => format!("{other:?}"),
            })
            .unwrap()
    };
    assert_eq!(pragma("journal_mode"), "wal");
    assert_eq!(pragma("synchronous"), "1");
    assert_eq!(pragma("foreign_keys"), "1");
    assert_eq!(pragma("busy_timeout"), "5000");
    assert_eq!(
        repo.schema_version().unwrap(),
        super::migrations::latest_version()
    );
}

#[test]
fn a_file_that_is_not_a_database_is_an_open_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("files.sqlite3");
    std::fs::write(
        &path,
        "hello, this is not SQLite, just some text in a file".repeat(20),
    )
    .unwrap();
    let err = FilesRepo::open(&path).err().unwrap();
    assert_eq!(
        err.to_string(),
        format!("cannot open the files database at {}", path.display())
    );
    assert_eq!(
        std::error::Error::source(&err).unwrap().to_string(),
        "file is not a database"
    );
}

fn insert_returns_the_stored_record<R: SuiteRepo>() {
    let mut repo = R::fresh();
    let mut new = rec(1, "a.txt", Permission::Private, 0);
    new.created_at = Some(at(0) + chrono::Duration::nanoseconds(123_456_789));
    let stored = repo.insert(new).unwrap();
    assert_eq!(stored.id, 1);
    assert_eq!(
        crate::time::iso_millis(stored.created_at),
        "2023-11-14T22:13:20.123Z"
    );
    assert_eq!(repo.get_by_key(&key(1)).unwrap(), Some(stored));
    assert_eq!(repo.get_by_key(&key(2)).unwrap(), None);
    assert_eq!(repo.get_by_key("anything at all").unwrap(), None);
}
both!(insert_returns_the_stored_record);

fn insert_without_created_at_uses_now<R: SuiteRepo>() {
    let mut repo = R::fresh();
    let mut new = rec(1, "a.txt", Permission::Public, 0);
    new.created_at = None;
    let before = truncate_to_millis(Utc::now());
    let stored = repo.insert(new).unwrap();
    assert!(stored.created_at >= before && stored.created_at <= Utc::now());
    assert_eq!(stored.created_at, truncate_to_millis(stored.created_at));
}
both!(insert_without_created_at_uses_now);

fn duplicate_key_is_a_conflict<R: SuiteRepo>() {
    let mut repo = repo_with::<R>(vec![rec(1, "a.txt", Permission::Public, 0)]);
    let err = repo
        .insert(rec(1, "b.txt", Permission::Public, 1))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("a file record with key '{}' already exists", key(1))
    );
    assert!(matches!(err, RepoError::Conflict { .. }));
}
both!(duplicate_key_is_a_conflict);

fn keys_of_any_s3_shape_are_stored_and_found_byte_for_byte<R: SuiteRepo>() {
    let keys = [
        "a",
        "a/",
        "a/b",
        "A/B",
        "sp ace+%25~'(!*;=&@$",
        "ünï/日本語",
        "%",
        "_",
        "100%_match",
    ];
    let mut repo = R::fresh();
    for (i, k) in keys.iter().enumerate() {
        let mut r = rec(i as u64, "f.txt", Permission::Public, i as i64);
        r.key = (*k).into();
        repo.insert(r).unwrap();
    }
    for k in keys {
        assert_eq!(
            repo.get_by_key(k).unwrap().map(|r| r.key),
            Some(k.to_owned())
        );
    }
    // Keys are exact: no case folding, and no LIKE wildcards.
    assert_eq!(repo.get_by_key("b").unwrap(), None);
    assert_eq!(repo.get_by_key("a/B").unwrap(), None);
    assert_eq!(repo.get_by_key("100%").unwrap(), None);
    assert_eq!(repo.delete_by_key("%").unwrap().key, "%");
    assert_eq!(
        repo.get_by_key("100%_match").unwrap().map(|r| r.key),
        Some("100%_match".into())
    );
}
both!(keys_of_any_s3_shape_are_stored_and_found_byte_for_byte);

fn invalid_record_is_refused_before_sql<R: SuiteRepo>() {
    let mut repo = R::fresh();
    let mut bad = rec(1, "a.txt", Permission::Public, 0);
    bad.key = "line\nbreak".into();
    assert!(matches!(
        repo.insert(bad.clone()).unwrap_err(),
        RepoError::Invalid(RecordError::ControlChar { field: "key" })
    ));
    assert!(matches!(
        repo.insert_many(vec![rec(2, "b.txt", Permission::Public, 0), bad])
            .unwrap_err(),
        RepoError::Invalid(_)
    ));
    assert_eq!(repo.count(None).unwrap(), 0);
}
both!(invalid_record_is_refused_before_sql);

fn insert_many_rolls_back_everything_on_a_duplicate<R: SuiteRepo>() {
    let mut repo = repo_with::<R>(vec![rec(1, "first.txt", Permission::Public, 0)]);
    // Against the database.
    let err = repo
        .insert_many(vec![
            rec(2, "second.txt", Permission::Private, 1),
            rec(1, "again.txt", Permission::Public, 2),
        ])
        .unwrap_err();
    assert!(matches!(err, RepoError::Conflict { key: k } if k == key(1)));
    // Inside the batch.
    let err = repo
        .insert_many(vec![
            rec(3, "third.txt", Permission::Private, 1),
            rec(3, "third-again.txt", Permission::Public, 2),
        ])
        .unwrap_err();
    assert!(matches!(err, RepoError::Conflict { key: k } if k == key(3)));
    assert_eq!(repo.count(None).unwrap(), 1);
    assert_eq!(repo.count(Some(Permission::Private)).unwrap(), 0);
    assert_eq!(search(&mut repo, "second"), (vec![], 0));
    assert_eq!(search(&mut repo, "third"), (vec![], 0));
    let all = repo.list(&ListQuery::default(), true).unwrap();
    assert_eq!(names(&all), vec!["first.txt"]);
    // The rolled-back rows did not burn the next ids in a way that breaks inserts.
    assert!(
        repo.insert(rec(4, "fourth.txt", Permission::Public, 3))
            .is_ok()
    );
}
both!(insert_many_rolls_back_everything_on_a_duplicate);

fn list_orders_newest_first_then_id_descending<R: SuiteRepo>() {
    let mut repo = repo_with::<R>(vec![
        rec(1, "old.txt", Permission::Public, 0),
        rec(2, "tie-a.txt", Permission::Public, 50),
        rec(3, "new.txt", Permission::Public, 100),
        rec(4, "tie-b.txt", Permission::Public, 50),
        rec(5, "oldest.txt", Permission::Public, -10),
    ]);
    let page = repo.list(&ListQuery::default(), true).unwrap();
    assert_eq!(
        names(&page),
        vec!["new.txt", "tie-b.txt", "tie-a.txt", "old.txt", "oldest.txt"]
    );
    assert_eq!(page.total, 5);
}
both!(list_orders_newest_first_then_id_descending);

fn pages_are_stable_and_cover_every_record_once<R: SuiteRepo>() {
    let records: Vec<_> = (1..=23)
        .map(|i| {
            rec(
                i,
                &format!("f{i}.txt"),
                Permission::Public,
                (i as i64 % 4) * 10,
            )
        })
        .collect();
    let mut repo = repo_with::<R>(records);
    let everything = ids(&repo.list(&q(None, None, 1, 100), true).unwrap());
    let mut paged = Vec::new();
    for page in 1..=5 {
        let p = repo.list(&q(None, None, page, 5), true).unwrap();
        assert_eq!(p.total, 23);
        assert_eq!(p.records.len(), if page == 5 { 3 } else { 5 });
        paged.extend(ids(&p));
    }
    assert_eq!(paged, everything);
    let past_end = repo.list(&q(None, None, 6, 5), true).unwrap();
    assert_eq!(
        past_end,
        Page {
            records: vec![],
            total: 23
        }
    );
    let far = repo.list(&q(None, None, 1_000_000_000, 100), true).unwrap();
    assert_eq!(
        far,
        Page {
            records: vec![],
            total: 23
        }
    );
}
both!(pages_are_stable_and_cover_every_record_once);

fn mixed_repo<R: SuiteRepo>() -> R {
    repo_with(vec![
        rec(1, "Holiday Photo.png", Permission::Public, 1),
        rec(2, "holiday-plan.pdf", Permission::Private, 2),
        rec(3, "invoice.pdf", Permission::Public, 3),
        rec(4, "HOLIDAY.jpg", Permission::Private, 4),
        rec(5, "notes.txt", Permission::Public, 5),
    ])
}

fn totals_follow_every_filter<R: SuiteRepo>() {
    let mut repo = mixed_repo::<R>();
    type Case<'a> = (Option<&'a str>, Option<Permission>, bool, &'a [&'a str]);
    let cases: &[Case<'_>] = &[
        (
            None,
            None,
            true,
            &[
                "notes.txt",
                "HOLIDAY.jpg",
                "invoice.pdf",
                "holiday-plan.pdf",
                "Holiday Photo.png",
            ],
        ),
        (
            None,
            Some(Permission::Public),
            true,
            &["notes.txt", "invoice.pdf", "Holiday Photo.png"],
        ),
        (
            None,
            Some(Permission::Private),
            true,
            &["HOLIDAY.jpg", "holiday-plan.pdf"],
        ),
        (
            Some("holiday"),
            None,
            true,
            &["HOLIDAY.jpg", "holiday-plan.pdf", "Holiday Photo.png"],
        ),
        (
            Some("holiday"),
            Some(Permission::Private),
            true,
            &["HOLIDAY.jpg", "holiday-plan.pdf"],
        ),
        (
            Some("pdf"),
            Some(Permission::Public),
            true,
            &["invoice.pdf"],
        ),
        (
            Some("o"),
            Some(Permission::Public),
            true,
            &["notes.txt", "invoice.pdf", "Holiday Photo.png"],
        ),
        // Without access to private records.
        (
            None,
            None,
            false,
            &["notes.txt", "invoice.pdf", "Holiday Photo.png"],
        ),
        (Some("holiday"), None, false, &["Holiday Photo.png"]),
        (Some("h"), None, false, &["Holiday Photo.png"]),
        (
            None,
            Some(Permission::Public),
            false,
            &["notes.txt", "invoice.pdf", "Holiday Photo.png"],
        ),
        (None, Some(Permission::Private), false, &[]),
        (Some("holiday"), Some(Permission::Private), false, &[]),
    ];
    for (needle, permission, include_private, expected) in cases {
        let page = repo
            .list(&q(*needle, *permission, 1, 2), *include_private)
            .unwrap();
        let label = format!("{needle:?} {permission:?} {include_private}");
        assert_eq!(page.total, expected.len() as u64, "{label}");
        let first_two: Vec<&str> = expected.iter().copied().take(2).collect();
        assert_eq!(names(&page), first_two, "{label}");
    }
}
both!(totals_follow_every_filter);

fn file_name_match_ignores_unicode_case<R: SuiteRepo>() {
    let mut repo = repo_with::<R>(vec![
        rec(1, "äbc-report.txt", Permission::Public, 1),
        rec(2, "ÄBC.txt", Permission::Public, 2),
        rec(3, "abc.txt", Permission::Public, 3),
        rec(4, "ОТЧЁТ за год.pdf", Permission::Public, 4),
    ]);
    let both = vec!["ÄBC.txt".to_string(), "äbc-report.txt".to_string()];
    assert_eq!(search(&mut repo, "ÄBC"), (both.clone(), 2));
    assert_eq!(search(&mut repo, "äbc"), (both.clone(), 2));
    // Short needles take the scan and fold the same way.
    assert_eq!(search(&mut repo, "Äb"), (both, 2));
    assert_eq!(
        search(&mut repo, "отчёт"),
        (vec!["ОТЧЁТ за год.pdf".to_string()], 1)
    );
    assert_eq!(
        search(&mut repo, "ё"),
        (vec!["ОТЧЁТ за год.pdf".to_string()], 1)
    );
    // No accent folding: a plain "a" is not "ä".
    assert_eq!(search(&mut repo, "abc."), (vec!["abc.txt".to_string()], 1));
}
both!(file_name_match_ignores_unicode_case);

fn percent_underscore_and_quotes_match_themselves<R: SuiteRepo>() {
    let mut repo = repo_with::<R>(vec![
        rec(1, "100% done.txt", Permission::Public, 1),
        rec(2, "100 done.txt", Permission::Public, 2),
        rec(3, "a_b.txt", Permission::Public, 3),
        rec(4, "axb.txt", Permission::Public, 4),
        rec(5, "say \"hi\" now.txt", Permission::Public, 5),
        rec(6, "star*.txt", Permission::Public, 6),
        rec(7, "start.txt", Permission::Public, 7),
        rec(8, "x OR y AND z.txt", Permission::Public, 8),
    ]);
    let one = |s: &str| (vec![s.to_string()], 1);
    assert_eq!(search(&mut repo, "0% d"), one("100% done.txt"));
    assert_eq!(search(&mut repo, "%"), one("100% done.txt"));
    assert_eq!(search(&mut repo, "_"), one("a_b.txt"));
    assert_eq!(search(&mut repo, "a_b"), one("a_b.txt"));
    assert_eq!(search(&mut repo, "\"hi\""), one("say \"hi\" now.txt"));
    assert_eq!(search(&mut repo, "\""), one("say \"hi\" now.txt"));
    assert_eq!(search(&mut repo, "star*"), one("star*.txt"));
    assert_eq!(search(&mut repo, "OR y AND"), one("x OR y AND z.txt"));
    assert_eq!(search(&mut repo, "NEAR("), (vec![], 0));
}
both!(percent_underscore_and_quotes_match_themselves);

fn short_needles_scan_and_still_page<R: SuiteRepo>() {
    let records: Vec<_> = (1..=12)
        .map(|i| {
            rec(
                i,
                if i % 3 == 0 { "Xy.txt" } else { "other.md" },
                Permission::Public,
                i as i64,
            )
        })
        .collect();
    let mut repo = repo_with::<R>(records);
    let page = repo.list(&q(Some("xY"), None, 2, 3), true).unwrap();
    assert_eq!(page.total, 4);
    assert_eq!(ids(&page), vec![3]);
    let page = repo.list(&q(Some("x"), None, 1, 3), true).unwrap();
    assert_eq!((page.total, ids(&page)), (4, vec![12, 9, 6]));
}
both!(short_needles_scan_and_still_page);

fn name_index_and_lookup_by_id_follow_the_list<R: SuiteRepo>() {
    let mut repo = mixed_repo::<R>();
    repo.delete_by_key(&key(3)).unwrap();
    let index = repo.name_index().unwrap();
    assert_eq!(index.len(), 4);
    let listed = repo.list(&ListQuery::default(), true).unwrap().records;
    let ids: Vec<i64> = listed.iter().map(|r| r.id).collect();
    // Newest first, as the list; a deleted record is gone from both.
    let hits = index.search("", None, 0, 25);
    assert!(
        hits.is_none(),
        "an empty needle is the list itself, not a search"
    );
    let hits = index.search(".", None, 0, 25).unwrap();
    assert_eq!(hits.ids, ids);
    let holiday = index
        .search("holiday", Some(Permission::Private), 0, 25)
        .unwrap();
    assert_eq!(holiday.total, 2);
    // By id, in the order asked; an id of no record is left out.
    let mut asked = vec![ids[2], 999_999, ids[0]];
    let found = repo.get_by_ids(asked.clone()).unwrap();
    asked.remove(1);
    assert_eq!(found.iter().map(|r| r.id).collect::<Vec<_>>(), asked);
    assert_eq!(found[1], listed[0]);
}
both!(name_index_and_lookup_by_id_follow_the_list);

fn delete_returns_the_record_and_updates_counts_and_search<R: SuiteRepo>() {
    let mut repo = mixed_repo::<R>();
    let gone = repo.delete_by_key(&key(2)).unwrap();
    assert_eq!(gone.file_name, "holiday-plan.pdf");
    assert_eq!(repo.count(None).unwrap(), 4);
    assert_eq!(repo.count(Some(Permission::Private)).unwrap(), 1);
    assert_eq!(search(&mut repo, "plan"), (vec![], 0));
    assert!(matches!(
        repo.delete_by_key(&key(2)).unwrap_err(),
        RepoError::NotFound { .. }
    ));
}
both!(delete_returns_the_record_and_updates_counts_and_search);

fn counts_follow_updates_of_name_and_permission<R: SuiteRepo>() {
    // No update API yet, but the triggers must keep counts and index right for one.
    let mut repo = mixed_repo::<R>();
    repo.rename_and_make_private(1, "renamed.txt");
    assert_eq!(repo.count(Some(Permission::Private)).unwrap(), 3);
    assert_eq!(repo.count(Some(Permission::Public)).unwrap(), 2);
    assert_eq!(
        search(&mut repo, "renamed"),
        (vec!["renamed.txt".into()], 1)
    );
    assert_eq!(search(&mut repo, "Photo"), (vec![], 0));
}
both!(counts_follow_updates_of_name_and_permission);

const HELLO_SHA256: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

fn size_and_sha256_are_kept_and_null_when_unknown<R: SuiteRepo>() {
    let mut repo = R::fresh();
    let known = NewFileRecord {
        size: Some(5),
        sha256: Some(HELLO_SHA256.into()),
        ..rec(1, "hello.txt", Permission::Public, 0)
    };
    let stored = repo.insert(known).unwrap();
    assert_eq!(
        (stored.size, stored.sha256.as_deref()),
        (Some(5), Some(HELLO_SHA256))
    );
    repo.insert_many(vec![
        rec(2, "old.txt", Permission::Public, 1),
        NewFileRecord {
            size: Some(crate::files::record::MAX_SIZE),
            ..rec(3, "huge.bin", Permission::Private, 2)
        },
    ])
    .unwrap();
    let get = |repo: &R, i| repo.get_by_key(&key(i)).unwrap().unwrap();
    assert_eq!(get(&repo, 1), stored);
    assert_eq!((get(&repo, 2).size, get(&repo, 2).sha256), (None, None));
    assert_eq!(get(&repo, 3).size, Some(crate::files::record::MAX_SIZE));
    // Lists and lookups by id carry them too.
    let page = repo.list(&q(None, None, 1, 10), true).unwrap();
    assert_eq!(page.records.last(), Some(&stored));
    assert_eq!(repo.get_by_ids(vec![stored.id]).unwrap(), vec![stored]);
    let bad = NewFileRecord {
        sha256: Some("not-a-hash".into()),
        ..rec(4, "bad.txt", Permission::Public, 3)
    };
    assert!(matches!(
        repo.insert(bad).unwrap_err(),
        RepoError::Invalid(RecordError::Sha256 { .. })
    ));
}
both!(size_and_sha256_are_kept_and_null_when_unknown);

fn upload(i: u64, expires_ms: i64) -> PendingUpload {
    PendingUpload {
        key: key(i),
        bucket: "depot-files".into(),
        file_name: format!("upload-{i}.bin"),
        description: "direct".into(),
        status: 2,
        file_type: "bin".into(),
        permission: Permission::Private,
        size: 5,
        sha256: Some(HELLO_SHA256.into()),
        content_type: Some("application/octet-stream".into()),
        upload_id: i.is_multiple_of(2).then(|| format!("upload-id-{i}")),
        part_size: i.is_multiple_of(2).then_some(5 * 1024 * 1024),
        created_at: at(0),
        expires_at: at(expires_ms),
    }
}

fn an_upload_becomes_its_record_once<R: SuiteRepo>() {
    let mut repo = R::fresh();
    let (single, multipart) = (upload(1, 60_000), upload(2, 60_000));
    repo.open_upload(&single).unwrap();
    repo.open_upload(&multipart).unwrap();
    assert!(matches!(
        repo.open_upload(&single).unwrap_err(),
        RepoError::Conflict { .. }
    ));
    assert_eq!(repo.pending_upload(&key(1)).unwrap(), Some(single.clone()));
    assert_eq!(repo.pending_upload(&key(2)).unwrap(), Some(multipart));
    assert_eq!(repo.pending_upload(&key(3)).unwrap(), None);
    // No record exists until completion.
    assert_eq!(repo.get_by_key(&key(1)).unwrap(), None);
    assert_eq!(repo.count(None).unwrap(), 0);

    let record = repo
        .complete_upload(
            &key(1),
            single.record(5, Some(HELLO_SHA256.into())),
            Some("\"5d41402abc4b2a76b9719d911017c592\""),
            at(1_000),
        )
        .unwrap();
    assert_eq!(record.created_at, at(1_000));
    assert_eq!(
        (record.size, record.sha256.as_deref(), record.status),
        (Some(5), Some(HELLO_SHA256), 2)
    );
    assert_eq!(repo.get_by_key(&key(1)).unwrap(), Some(record));
    assert_eq!(repo.pending_upload(&key(1)).unwrap(), None);
    assert_eq!(repo.count(Some(Permission::Private)).unwrap(), 1);
    // A second completion finds no upload, and writes nothing.
    assert!(matches!(
        repo.complete_upload(&key(1), single.record(5, None), None, at(2_000))
            .unwrap_err(),
        RepoError::UploadGone { .. }
    ));
    assert_eq!(repo.count(None).unwrap(), 1);
    // A record that cannot be written leaves the upload under way.
    let invalid = NewFileRecord {
        sha256: Some("zz".into()),
        ..upload(2, 0).record(5, None)
    };
    assert!(
        repo.complete_upload(&key(2), invalid, None, at(1_000))
            .is_err()
    );
    assert!(repo.pending_upload(&key(2)).unwrap().is_some());
}
both!(an_upload_becomes_its_record_once);

fn expired_uploads_are_listed_oldest_first_and_cannot_complete<R: SuiteRepo>() {
    let mut repo = R::fresh();
    for (i, expires) in [(1, 3_000), (2, 1_000), (3, 2_000), (4, 9_000)] {
        repo.open_upload(&upload(i, expires)).unwrap();
    }
    let keys = |uploads: Vec<PendingUpload>| -> Vec<String> {
        uploads.into_iter().map(|u| u.key).collect()
    };
    assert_eq!(
        keys(repo.expired_uploads(at(3_000), 10).unwrap()),
        vec![key(2), key(3), key(1)]
    );
    assert_eq!(
        keys(repo.expired_uploads(at(3_000), 2).unwrap()),
        vec![key(2), key(3)]
    );
    assert_eq!(repo.expired_uploads(at(999), 10).unwrap(), vec![]);
    // At its expiry an upload can no longer complete.
    assert!(matches!(
        repo.complete_upload(&key(2), upload(2, 0).record(5, None), None, at(1_000))
            .unwrap_err(),
        RepoError::UploadGone { .. }
    ));
    assert_eq!(repo.get_by_key(&key(2)).unwrap(), None);
    assert!(repo.drop_upload(&key(2)).unwrap());
    assert!(!repo.drop_upload(&key(2)).unwrap());
    assert_eq!(
        keys(repo.expired_uploads(at(10_000), 10).unwrap()),
        vec![key(3), key(1), key(4)]
    );
}
both!(expired_uploads_are_listed_oldest_first_and_cannot_complete);

/// A completed upload is no longer under way (its URL may not write) but is kept apart,
/// with the ETag its completion saw, until it expires: the sweep then checks its key.
fn a_completed_upload_is_kept_until_it_expires<R: SuiteRepo>() {
    let mut repo = R::fresh();
    for (i, expires) in [(1, 5_000), (3, 4_000), (5, 9_000)] {
        repo.open_upload(&upload(i, expires)).unwrap();
    }
    for (i, etag) in [(1, Some("\"e1\"")), (3, None)] {
        repo.complete_upload(&key(i), upload(i, 0).record(5, None), etag, at(1_000))
            .unwrap();
    }
    assert_eq!(repo.pending_upload(&key(1)).unwrap(), None);
    assert!(matches!(
        repo.complete_upload(&key(1), upload(1, 0).record(5, None), None, at(2_000))
            .unwrap_err(),
        RepoError::UploadGone { .. }
    ));
    // Apart from the uploads under way: only the one never completed expires as such.
    assert_eq!(
        repo.expired_uploads(at(10_000), 10).unwrap(),
        vec![upload(5, 9_000)]
    );
    assert_eq!(repo.expired_completions(at(3_999), 10).unwrap(), vec![]);
    let completed = |i: u64, etag: Option<&str>, expires_ms: i64| CompletedUpload {
        key: key(i),
        bucket: "depot-files".into(),
        etag: etag.map(str::to_owned),
        completed_at: at(1_000),
        expires_at: at(expires_ms),
    };
    assert_eq!(
        repo.expired_completions(at(9_000), 10).unwrap(),
        vec![
            completed(3, None, 4_000),
            completed(1, Some("\"e1\""), 5_000)
        ]
    );
    assert_eq!(
        repo.expired_completions(at(9_000), 1).unwrap(),
        vec![completed(3, None, 4_000)]
    );
    assert!(repo.drop_upload(&key(3)).unwrap());
    assert!(!repo.drop_upload(&key(3)).unwrap());
    assert_eq!(
        repo.expired_completions(at(9_000), 10).unwrap(),
        vec![completed(1, Some("\"e1\""), 5_000)]
    );
    assert_eq!(repo.count(None).unwrap(), 2);
}
both!(a_completed_upload_is_kept_until_it_expires);

/// The first schema exactly as release 1 created it, typed out rather than taken from
/// MIGRATIONS, so an edit there cannot hide a broken upgrade.
const V1_SCHEMA: &str = "
    CREATE TABLE files (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        file_name   TEXT    NOT NULL,
        description TEXT    NOT NULL DEFAULT '',
        bucket      TEXT    NOT NULL,
        status      INTEGER NOT NULL DEFAULT 0,
        file_type   TEXT    NOT NULL DEFAULT '',
        permission  TEXT    NOT NULL CHECK (permission IN ('public', 'private')),
        key         TEXT    NOT NULL,
        created_at  INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX files_by_key ON files (key);
    INSERT INTO files (file_name, bucket, permission, key, created_at) VALUES
        ('Alpha Report.pdf', 'depot-files', 'public',  '00000000-0000-4000-8000-000000000001', 1700000000000),
        ('beta-notes.txt',   'depot-files', 'private', '00000000-0000-4000-8000-000000000002', 1700000001000),
        ('gamma.png',        'depot-files', 'public',  '00000000-0000-4000-8000-000000000003', 1700000002000);
    PRAGMA user_version = 1;
";

#[test]
fn a_version_1_database_is_migrated_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("files.sqlite3");
    Connection::open(&path)
        .unwrap()
        .execute_batch(V1_SCHEMA)
        .unwrap();
    let mut repo = FilesRepo::open(&path).unwrap();
    assert_eq!(repo.schema_version().unwrap(), 5);
    assert_eq!(repo.count(None).unwrap(), 3);
    // Records of before know neither their size nor their hash.
    let old = repo
        .get_by_key(&key(1).replace("-original", ""))
        .unwrap()
        .unwrap();
    assert_eq!((old.size, old.sha256), (None, None));
    assert_eq!(repo.count(Some(Permission::Private)).unwrap(), 1);
    assert_eq!(
        search(&mut repo, "REPORT"),
        (vec!["Alpha Report.pdf".into()], 1)
    );
    let page = repo.list(&ListQuery::default(), false).unwrap();
    assert_eq!(names(&page), vec!["gamma.png", "Alpha Report.pdf"]);
    assert_eq!(page.total, 2);
    // New rows after the upgrade are counted and indexed by the new triggers.
    repo.insert(rec(9, "delta report.md", Permission::Public, 5))
        .unwrap();
    assert_eq!(repo.count(None).unwrap(), 4);
    assert_eq!(search(&mut repo, "report").1, 2);
}

fn plan_of(conn: &Connection, sql: &str, values: Vec<Value>) -> Vec<String> {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    stmt.query_map(rusqlite::params_from_iter(values), |r| {
        r.get::<_, String>(3)
    })
    .unwrap()
    .collect::<Result<Vec<_>, _>>()
    .unwrap()
}

#[test]
fn list_queries_use_the_indexes() {
    let repo: FilesRepo = mixed_repo();
    let plans = |query: &ListQuery, include_private, access| {
        let plan = ListPlan::new(query, include_private);
        let (rows, rows_values) = plan.rows_sql(query, access);
        let (count, count_values) = plan.count_sql();
        (
            plan_of(&repo.conn, &rows, rows_values),
            plan_of(&repo.conn, &count, count_values),
        )
    };
    let all = ListQuery::default();
    let private = q(None, Some(Permission::Private), 1000, 25);
    let named = q(Some("holiday"), None, 1, 25);
    let named_private = q(Some("holiday"), Some(Permission::Private), 1, 25);
    let short = q(Some("ho"), None, 1, 25);
    let fts_public = "SCAN files_fts_public VIRTUAL TABLE INDEX 0:M1";
    let fts_private = "SCAN files_fts_private VIRTUAL TABLE INDEX 0:M1";
    let by_permission = "SEARCH files USING INDEX files_by_permission_created (permission=?)";
    let by_id = "SEARCH files USING INTEGER PRIMARY KEY (rowid=?)";
    let one_permission = "SEARCH file_counts USING PRIMARY KEY (permission=?)";
    let both_fts_counts = vec![
        "SCAN CONSTANT ROW",
        "SCALAR SUBQUERY 1",
        fts_public,
        "SCALAR SUBQUERY 2",
        fts_private,
    ];
    let private_fts_count = vec!["SCAN CONSTANT ROW", "SCALAR SUBQUERY 1", fts_private];
    type Case<'a> = (&'a str, ListQuery, bool, Access, Vec<&'a str>, Vec<&'a str>);
    let cases: Vec<Case<'_>> = vec![
        (
            "all",
            all.clone(),
            true,
            Access::Index,
            vec!["SCAN files USING INDEX files_by_created"],
            vec!["SCAN file_counts"],
        ),
        (
            "public only",
            all,
            false,
            Access::Index,
            vec![by_permission],
            vec![one_permission],
        ),
        (
            "private page 1000",
            private,
            true,
            Access::Index,
            vec![by_permission],
            vec![one_permission],
        ),
        (
            "name, dense",
            named.clone(),
            true,
            Access::Index,
            vec![
                "SCAN files USING INDEX files_by_created",
                "LIST SUBQUERY 2",
                "COMPOUND QUERY",
                "LEFT-MOST SUBQUERY",
                fts_public,
                "CREATE BLOOM FILTER",
                "UNION ALL",
                fts_private,
                "CREATE BLOOM FILTER",
            ],
            both_fts_counts.clone(),
        ),
        (
            "name, sparse",
            named,
            true,
            Access::Matches,
            vec![
                by_id,
                "LIST SUBQUERY 2",
                "COMPOUND QUERY",
                "LEFT-MOST SUBQUERY",
                fts_public,
                "UNION ALL",
                fts_private,
                "USE TEMP B-TREE FOR ORDER BY",
            ],
            both_fts_counts,
        ),
        (
            "name and permission, dense",
            named_private.clone(),
            true,
            Access::Index,
            vec![
                by_permission,
                "LIST SUBQUERY 1",
                fts_private,
                "CREATE BLOOM FILTER",
            ],
            private_fts_count.clone(),
        ),
        (
            "name and permission, sparse",
            named_private,
            true,
            Access::Matches,
            vec![
                by_id,
                "LIST SUBQUERY 1",
                fts_private,
                "USE TEMP B-TREE FOR ORDER BY",
            ],
            private_fts_count,
        ),
        (
            "short name: the documented scan",
            short,
            true,
            Access::Index,
            vec!["SCAN files USING INDEX files_by_created"],
            vec!["SCAN files"],
        ),
    ];
    for (label, query, include_private, access, rows, count) in cases {
        let (got_rows, got_count) = plans(&query, include_private, access);
        assert_eq!(got_rows, rows, "rows: {label}");
        assert_eq!(got_count, count, "count: {label}");
    }
    let by_key = plan_of(
        &repo.conn,
        &format!("SELECT {COLUMNS} FROM files WHERE key = ?1"),
        vec![Value::Text(key(1))],
    );
    assert_eq!(by_key, ["SEARCH files USING INDEX files_by_key (key=?)"]);
}

#[test]
fn access_follows_the_cost_of_each_path() {
    // 18 matches among a million: look them up.
    assert_eq!(Access::for_rows(18, 1_000_000, 18), Access::Matches);
    // 62,000 matches: page 1 fills after ~400 index steps.
    assert_eq!(Access::for_rows(25, 1_000_000, 62_000), Access::Index);
    // Page 1000 of those needs ~400,000 steps, still under 620,000 lookups' worth.
    assert_eq!(Access::for_rows(25_000, 1_000_000, 62_000), Access::Index);
    assert_eq!(Access::for_rows(25_000, 1_000_000, 10_000), Access::Matches);
    // The crossover: 100 * 10,000 steps against 10 * 316^2 lookups.
    assert_eq!(Access::for_rows(100, 10_000, 317), Access::Index);
    assert_eq!(Access::for_rows(100, 10_000, 315), Access::Matches);
}

#[test]
fn both_access_paths_give_the_same_page() {
    let records: Vec<_> = (1..=40)
        .map(|i| {
            let name = if i % 3 == 0 {
                format!("Report {i}.pdf")
            } else {
                format!("photo {i}.png")
            };
            let p = if i % 4 == 0 {
                Permission::Private
            } else {
                Permission::Public
            };
            rec(i, &name, p, (i as i64 * 7) % 11)
        })
        .collect();
    let repo: FilesRepo = repo_with(records);
    for query in [
        q(Some("report"), None, 1, 5),
        q(Some("report"), None, 2, 5),
        q(Some("PHOTO"), Some(Permission::Public), 3, 4),
        q(Some("photo"), Some(Permission::Private), 1, 50),
    ] {
        let plan = ListPlan::new(&query, true);
        let page = |access| {
            let (sql, values) = plan.rows_sql(&query, access);
            let mut stmt = repo.conn.prepare(&sql).unwrap();
            stmt.query_map(rusqlite::params_from_iter(values), |r| r.get::<_, i64>(0))
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap()
        };
        assert!(!page(Access::Index).is_empty(), "{query:?}");
        assert_eq!(page(Access::Index), page(Access::Matches), "{query:?}");
    }
}

#[test]
fn database_errors_do_not_show_sql_to_users() {
    let repo = FilesRepo::open_in_memory().unwrap();
    let err = repo
        .conn
        .execute("SELECT * FROM secret_table_name", [])
        .map_err(RepoError::db("listing file records"))
        .unwrap_err();
    assert_eq!(err.to_string(), "database error while listing file records");
    assert!(
        err.detail().contains("secret_table_name"),
        "{}",
        err.detail()
    );
}

#[test]
fn contains_folded_cases() {
    assert!(contains_folded("Hello World", "o w"));
    assert!(contains_folded("ÄBC", &fold("äb")));
    assert!(!contains_folded("ABC", &fold("ä")));
    assert!(contains_folded("anything", ""));
    assert!(!contains_folded("ab", "abc"));
    assert!(contains_folded("straße", "ße"));
}

/// Characters whose case folding SQLite's trigram tokenizer and Rust agree on, plus the
/// ones that are special somewhere (LIKE, FTS5 syntax, quoting).
const ALPHABET: &[char] = &[
    'a', 'b', 'A', 'B', 'x', 'ä', 'Ä', 'é', 'É', 'ж', 'Ж', '%', '_', '"', '*', ' ', '.', '-',
];

fn text_from(
    alphabet: &'static [char],
    len: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(alphabet), len)
        .prop_map(|chars| chars.into_iter().collect())
}

type Files = Vec<(String, bool, i64)>;

fn search_matches_a_naive_filter<R: SuiteRepo>(
    files: Files,
    needle: String,
    permission: Option<Permission>,
    include_private: bool,
    (page_no, limit): (u64, u64),
) -> Result<(), TestCaseError> {
    let records: Vec<NewFileRecord> = files
        .iter()
        .enumerate()
        .map(|(i, (name, private, t))| {
            let p = if *private {
                Permission::Private
            } else {
                Permission::Public
            };
            rec(i as u64, name, p, *t)
        })
        .collect();
    let mut repo = repo_with::<R>(records.clone());
    let folded = fold(&needle);
    let mut expected: Vec<(i64, i64, String)> = records
        .iter()
        .enumerate()
        .filter(|(_, r)| fold(&r.file_name).contains(&folded))
        .filter(|(_, r)| permission.is_none_or(|p| r.permission == p))
        .filter(|(_, r)| include_private || r.permission == Permission::Public)
        .map(|(i, r)| {
            (
                r.created_at.unwrap().timestamp_millis(),
                i as i64 + 1,
                r.file_name.clone(),
            )
        })
        .collect();
    expected.sort_by_key(|e| std::cmp::Reverse((e.0, e.1)));
    let query = q(Some(&needle), permission, 1, 100);
    let page = repo.list(&query, include_private).unwrap();
    let got: Vec<(i64, i64, String)> = page
        .records
        .iter()
        .map(|r| (r.created_at.timestamp_millis(), r.id, r.file_name.clone()))
        .collect();
    prop_assert_eq!(page.total, expected.len() as u64);
    prop_assert_eq!(&got, &expected);
    // Any page is the same slice of that order, with the same total.
    let query = q(Some(&needle), permission, page_no, limit);
    let page = repo.list(&query, include_private).unwrap();
    let slice: Vec<i64> = expected
        .iter()
        .skip(query.offset() as usize)
        .take(limit as usize)
        .map(|e| e.1)
        .collect();
    prop_assert_eq!(page.total, expected.len() as u64);
    prop_assert_eq!(ids(&page), slice);
    Ok(())
}

fn files_strategy() -> impl Strategy<Value = Files> {
    proptest::collection::vec((text_from(ALPHABET, 1..=8), any::<bool>(), 0i64..6), 0..24)
}

fn permission_strategy() -> impl Strategy<Value = Option<Permission>> {
    proptest::option::of(prop_oneof![
        Just(Permission::Public),
        Just(Permission::Private)
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn sqlite_search_matches_a_naive_filter(
        files in files_strategy(),
        needle in text_from(ALPHABET, 1..=4),
        permission in permission_strategy(),
        include_private in any::<bool>(),
        paging in (1u64..5, 1u64..6),
    ) {
        search_matches_a_naive_filter::<FilesRepo>(files, needle, permission, include_private, paging)?;
    }
}

proptest! {
    // Each case is a new database on the server: fewer cases, the same generator.
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn postgres_search_matches_a_naive_filter(
        files in files_strategy(),
        needle in text_from(ALPHABET, 1..=4),
        permission in permission_strategy(),
        include_private in any::<bool>(),
        paging in (1u64..5, 1u64..6),
    ) {
        search_matches_a_naive_filter::<pg_suite::PgRepo>(files, needle, permission, include_private, paging)?;
    }
}
