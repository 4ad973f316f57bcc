//! The SQLite repository of file records on one connection: opening (pragmas, migrations,
//! SQL functions), inserts, lookups, the paged list with its filters, deletes, and the
//! uploads under way that become records when completed.
//! Blocking; `SqliteStore` (sqlite.rs) runs it off the async threads.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::functions::FunctionFlags;
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::error::RepoError;
use super::fold::{contains_folded, fold};
use super::migrations;
use super::names::NameIndex;
use super::pending::{CompletedUpload, PendingUpload};
use super::query::{ListQuery, Page, effective_permission};
use super::record::{FileRecord, NewFileRecord, Permission, truncate_to_millis};

/// How long a statement waits for another connection's write lock before giving up.
const BUSY_TIMEOUT_MS: u32 = 5_000;
/// Needles shorter than this (in characters) cannot use the trigram index.
pub const TRIGRAM_MIN_CHARS: usize = 3;

const COLUMNS: &str = "id, file_name, description, bucket, status, file_type, permission, key, created_at, size, sha256";
const UPLOAD_COLUMNS: &str = "key, bucket, file_name, description, status, file_type, permission, size, sha256, content_type, upload_id, part_size, created_at, expires_at";

/// The files database on one connection.
pub struct FilesRepo {
    conn: Connection,
}

impl FilesRepo {
    /// Opens (creating the file and its folder if needed) and migrates to the latest schema.
    pub fn open(path: impl AsRef<Path>) -> Result<FilesRepo, RepoError> {
        let path = path.as_ref();
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| RepoError::Open {
                path: path.to_owned(),
                source: Box::new(e),
            })?;
        }
        let mut repo = Self::connect(path)?;
        migrations::migrate(&mut repo.conn)?;
        Ok(repo)
    }

    /// A private database in memory, migrated; for tests and tools.
    pub fn open_in_memory() -> Result<FilesRepo, RepoError> {
        let conn = Connection::open_in_memory().map_err(|e| RepoError::Open {
            path: PathBuf::from(":memory:"),
            source: Box::new(e),
        })?;
        let mut repo = Self::configure(conn)?;
        migrations::migrate(&mut repo.conn)?;
        Ok(repo)
    }

    /// A read-only connection to a database already migrated by `open`.
    /// SQLite's `data_version`: changes when another connection commits.
    pub(crate) fn data_version(&self) -> Result<i64, RepoError> {
        self.conn
            .pragma_query_value(None, "data_version", |row| row.get(0))
            .map_err(RepoError::db("reading the data version"))
    }

    pub(crate) fn open_reader(path: &Path) -> Result<FilesRepo, RepoError> {
        let repo = Self::connect(path)?;
        repo.conn
            .pragma_update(None, "query_only", true)
            .map_err(RepoError::db("configuring a reader"))?;
        let found = repo.schema_version()?;
        let expected = migrations::latest_version();
        if found != expected {
            return Err(RepoError::SchemaMismatch { found, expected });
        }
        Ok(repo)
    }

    fn connect(path: &Path) -> Result<FilesRepo, RepoError> {
        let open_error = |source: rusqlite::Error| RepoError::Open {
            path: path.to_owned(),
            source: Box::new(source),
        };
        let conn = Connection::open(path).map_err(open_error)?;
        // SQLite reads the file lazily: "not a database" shows up in the first pragma,
        // and belongs with the path as much as a missing folder does.
        Self::configure(conn).map_err(|e| match e {
            RepoError::Database { source, .. } | RepoError::Busy { source, .. } => {
                open_error(source)
            }
            other => other,
        })
    }

    fn configure(conn: Connection) -> Result<FilesRepo, RepoError> {
        let op = "configuring the connection";
        conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS.into()))
            .map_err(RepoError::db(op))?;
        // journal_mode answers with the mode in effect ("memory" for in-memory databases).
        let _mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
            .map_err(RepoError::db(op))?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(RepoError::db(op))?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(RepoError::db(op))?;
        register_functions(&conn).map_err(RepoError::db(op))?;
        Ok(FilesRepo { conn })
    }

    pub fn schema_version(&self) -> Result<u32, RepoError> {
        migrations::schema_version(&self.conn)
    }

    /// For the seeder's bulk load, which runs its own statements in one transaction.
    pub(crate) fn connection_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    pub fn insert(&mut self, new: NewFileRecord) -> Result<FileRecord, RepoError> {
        new.validate()?;
        let now = now_millis();
        insert_one(&self.conn, new, now)
    }

    /// All or nothing: one transaction; the first invalid record or duplicate key aborts it.
    /// Records without `created_at` all get the same "now" (so they list by id).
    pub fn insert_many(&mut self, records: Vec<NewFileRecord>) -> Result<usize, RepoError> {
        for r in &records {
            r.validate()?;
        }
        let now = now_millis();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(RepoError::db("starting an insert"))?;
        let count = records.len();
        for r in records {
            insert_one(&tx, r, now)?;
        }
        tx.commit().map_err(RepoError::db("committing inserts"))?;
        Ok(count)
    }

    pub fn get_by_key(&self, key: &str) -> Result<Option<FileRecord>, RepoError> {
        let op = "looking up a file record";
        self.conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM files WHERE key = ?1"))
            .map_err(RepoError::db(op))?
            .query_row([key], row_to_record)
            .optional()
            .map_err(RepoError::db(op))
    }

    /// Deletes and returns the record (its bucket and key name the object to remove).
    pub fn delete_by_key(&mut self, key: &str) -> Result<FileRecord, RepoError> {
        let op = "deleting a file record";
        self.conn
            .prepare_cached(&format!(
                "DELETE FROM files WHERE key = ?1 RETURNING {COLUMNS}"
            ))
            .map_err(RepoError::db(op))?
            .query_row([key], row_to_record)
            .optional()
            .map_err(RepoError::db(op))?
            .ok_or_else(|| RepoError::NotFound {
                key: key.to_owned(),
            })
    }

    /// Number of records, all or of one permission (from the counts table: constant time).
    pub fn count(&self, permission: Option<Permission>) -> Result<u64, RepoError> {
        let plan = ListPlan::new(
            &ListQuery {
                permission,
                ..ListQuery::default()
            },
            true,
        );
        count_with(&self.conn, plan.scope_count_sql())
    }

    /// Every record's id, permission and name in list order, into the name index.
    pub fn name_index(&self) -> Result<NameIndex, RepoError> {
        let op = "reading the file names";
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, permission, file_name FROM files INDEXED BY files_by_created
                 ORDER BY created_at DESC, id DESC",
            )
            .map_err(RepoError::db(op))?;
        let mut rows = stmt.query([]).map_err(RepoError::db(op))?;
        let mut index = NameIndex::default();
        while let Some(row) = rows.next().map_err(RepoError::db(op))? {
            let text = |i| {
                row.get_ref(i)
                    .and_then(|v| v.as_str().map_err(Into::into))
                    .map_err(RepoError::db(op))
            };
            let permission = text(1)?.parse().map_err(RepoError::Invalid)?;
            let id = row.get(0).map_err(RepoError::db(op))?;
            index.push(id, permission, text(2)?);
        }
        Ok(index)
    }

    /// The records with these ids, in this order (ids of no record are left out).
    pub fn get_by_ids(&self, ids: &[i64]) -> Result<Vec<FileRecord>, RepoError> {
        let op = "reading file records by id";
        let mut found = std::collections::HashMap::with_capacity(ids.len());
        // A bounded number of parameters per statement, whatever `files.max_limit` is.
        for chunk in ids.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(",");
            let mut stmt = self
                .conn
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM files WHERE id IN ({marks})"
                ))
                .map_err(RepoError::db(op))?;
            let rows = stmt
                .query_map(rusqlite::params_from_iter(chunk), row_to_record)
                .map_err(RepoError::db(op))?;
            for record in rows {
                let record = record.map_err(RepoError::db(op))?;
                found.insert(record.id, record);
            }
        }
        Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
    }

    /// One page, newest first. `include_private: false` restricts to public records
    /// (so `permission=private` then gives an empty page with total 0; the HTTP layer
    /// answers 401 before asking). Records and total come from one read snapshot.
    pub fn list(&mut self, query: &ListQuery, include_private: bool) -> Result<Page, RepoError> {
        let plan = ListPlan::new(query, include_private);
        if plan.nothing {
            return Ok(Page {
                records: Vec::new(),
                total: 0,
            });
        }
        // BEGIN/COMMIT through cached statements: `transaction()` would parse them again on
        // every request, a visible cost at thousands of lists per second.
        let conn = &self.conn;
        conn.prepare_cached("BEGIN DEFERRED")
            .and_then(|mut s| s.execute([]))
            .map_err(RepoError::db("starting a read"))?;
        let page = list_in(conn, &plan, query);
        let end = if page.is_ok() { "COMMIT" } else { "ROLLBACK" };
        conn.prepare_cached(end)
            .and_then(|mut s| s.execute([]))
            .map_err(RepoError::db("ending a read"))?;
        page
    }
}

/// The uploads under way (SPEC §13): kept until completed into their record or expired;
/// completed ones are kept apart until they expire.
impl FilesRepo {
    /// Keeps an upload handed out; a key already under way is a conflict.
    pub fn open_upload(&mut self, upload: &PendingUpload) -> Result<(), RepoError> {
        let op = "keeping an upload";
        self.conn
            .prepare_cached(&format!(
                "INSERT INTO uploads ({UPLOAD_COLUMNS})
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
            ))
            .map_err(RepoError::db(op))?
            .execute(params![
                upload.key,
                upload.bucket,
                upload.file_name,
                upload.description,
                upload.status,
                upload.file_type,
                upload.permission.as_str(),
                to_i64(upload.size),
                upload.sha256,
                upload.content_type,
                upload.upload_id,
                upload.part_size.map(to_i64),
                upload.created_at.timestamp_millis(),
                upload.expires_at.timestamp_millis(),
            ])
            .map_err(|e| unique_or(e, &upload.key, op))?;
        Ok(())
    }

    /// The upload of `key` not completed yet (expired or not).
    pub fn pending_upload(&self, key: &str) -> Result<Option<PendingUpload>, RepoError> {
        let op = "looking up an upload";
        self.conn
            .prepare_cached(&format!(
                "SELECT {UPLOAD_COLUMNS} FROM uploads WHERE key = ?1"
            ))
            .map_err(RepoError::db(op))?
            .query_row([key], row_to_upload)
            .optional()
            .map_err(RepoError::db(op))
    }

    /// In one transaction: ends the upload of `key` unless it expired by `now`, keeps it as
    /// completed (with the `etag` of the object checked) until it expires, and writes its
    /// record. `UploadGone` when no such upload is under way (completed, expired, or never
    /// begun), so two completions never both write.
    pub fn complete_upload(
        &mut self,
        key: &str,
        record: NewFileRecord,
        etag: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<FileRecord, RepoError> {
        record.validate()?;
        let op = "completing an upload";
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(RepoError::db(op))?;
        let ended: Option<(String, i64)> = tx
            .prepare_cached(
                "DELETE FROM uploads WHERE key = ?1 AND expires_at > ?2 RETURNING bucket, expires_at",
            )
            .map_err(RepoError::db(op))?
            .query_row(params![key, now.timestamp_millis()], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .optional()
            .map_err(RepoError::db(op))?;
        let Some((bucket, expires_at)) = ended else {
            return Err(RepoError::UploadGone {
                key: key.to_owned(),
            });
        };
        tx.prepare_cached(
            "INSERT INTO completed_uploads (key, bucket, etag, completed_at, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .map_err(RepoError::db(op))?
        .execute(params![
            key,
            bucket,
            etag,
            now.timestamp_millis(),
            expires_at
        ])
        .map_err(RepoError::db(op))?;
        let written = insert_one(&tx, record, truncate_to_millis(now))?;
        tx.commit().map_err(RepoError::db(op))?;
        Ok(written)
    }

    /// Uploads that expired at or before `before`, the oldest first, at most `limit`.
    pub fn expired_uploads(
        &self,
        before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<PendingUpload>, RepoError> {
        let op = "listing expired uploads";
        self.conn
            .prepare_cached(&format!(
                "SELECT {UPLOAD_COLUMNS} FROM uploads WHERE expires_at <= ?1 ORDER BY expires_at LIMIT ?2"
            ))
            .map_err(RepoError::db(op))?
            .query_map(params![before.timestamp_millis(), limit], row_to_upload)
            .map_err(RepoError::db(op))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(RepoError::db(op))
    }

    /// Completed uploads that expired at or before `before`, the oldest first, at most
    /// `limit`.
    pub fn expired_completions(
        &self,
        before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<CompletedUpload>, RepoError> {
        let op = "listing expired completed uploads";
        self.conn
            .prepare_cached(
                "SELECT key, bucket, etag, completed_at, expires_at FROM completed_uploads
                 WHERE expires_at <= ?1 ORDER BY expires_at LIMIT ?2",
            )
            .map_err(RepoError::db(op))?
            .query_map(params![before.timestamp_millis(), limit], |row| {
                Ok(CompletedUpload {
                    key: row.get(0)?,
                    bucket: row.get(1)?,
                    etag: row.get(2)?,
                    completed_at: millis(row.get(3)?, 3)?,
                    expires_at: millis(row.get(4)?, 4)?,
                })
            })
            .map_err(RepoError::db(op))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(RepoError::db(op))
    }

    /// Forgets an upload, under way or completed (once the sweep is done with it); whether
    /// there was one.
    pub fn drop_upload(&mut self, key: &str) -> Result<bool, RepoError> {
        let op = "forgetting an upload";
        let mut n = 0;
        for sql in [
            "DELETE FROM uploads WHERE key = ?1",
            "DELETE FROM completed_uploads WHERE key = ?1",
        ] {
            n += self
                .conn
                .prepare_cached(sql)
                .map_err(RepoError::db(op))?
                .execute([key])
                .map_err(RepoError::db(op))?;
        }
        Ok(n > 0)
    }
}

/// A unique-key violation as `Conflict` on `key`, anything else as a database error.
fn unique_or(e: rusqlite::Error, key: &str, op: &'static str) -> RepoError {
    let unique = rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE;
    let primary = rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY;
    let code = e.sqlite_error().map(|f| f.extended_code);
    if code == Some(unique) || code == Some(primary) {
        RepoError::Conflict {
            key: key.to_owned(),
        }
    } else {
        RepoError::db(op)(e)
    }
}

fn list_in(conn: &Connection, plan: &ListPlan, query: &ListQuery) -> Result<Page, RepoError> {
    let total = count_with(conn, plan.count_sql())?;
    let access = match plan.name {
        // Index or lookups: same rows, costs apart by orders of magnitude; the number of
        // matches (known now) decides.
        NameFilter::Trigram(_) if total > 0 => {
            let scope = count_with(conn, plan.scope_count_sql())?;
            let needed = query.offset().saturating_add(query.limit).min(total);
            Access::for_rows(needed, scope, total)
        }
        _ => Access::Index,
    };
    if total <= query.offset() {
        return Ok(Page {
            records: Vec::new(),
            total,
        });
    }
    let op = "listing file records";
    let (sql, values) = plan.rows_sql(query, access);
    let mut stmt = conn.prepare_cached(&sql).map_err(RepoError::db(op))?;
    let records = stmt
        .query_map(rusqlite::params_from_iter(values), row_to_record)
        .map_err(RepoError::db(op))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(RepoError::db(op))?;
    Ok(Page { records, total })
}

fn now_millis() -> DateTime<Utc> {
    truncate_to_millis(Utc::now())
}

fn insert_one(
    conn: &Connection,
    new: NewFileRecord,
    now: DateTime<Utc>,
) -> Result<FileRecord, RepoError> {
    let op = "inserting a file record";
    let created_at = new.created_at.map_or(now, truncate_to_millis);
    let mut stmt = conn
        .prepare_cached(
            "INSERT INTO files (file_name, description, bucket, status, file_type, permission, key, created_at, size, sha256)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) RETURNING id",
        )
        .map_err(RepoError::db(op))?;
    let id = stmt
        .query_row(
            params![
                new.file_name,
                new.description,
                new.bucket,
                new.status,
                new.file_type,
                new.permission.as_str(),
                new.key,
                created_at.timestamp_millis(),
                new.size.map(to_i64),
                new.sha256,
            ],
            |row| row.get::<_, i64>(0),
        )
        .map_err(|e| unique_or(e, &new.key, op))?;
    Ok(new.stored(id, created_at))
}

fn row_to_record(row: &Row<'_>) -> rusqlite::Result<FileRecord> {
    let permission: String = row.get(6)?;
    let permission = permission.parse::<Permission>().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(6, rusqlite::types::Type::Text, Box::new(e))
    })?;
    let created_at = millis(row.get(8)?, 8)?;
    Ok(FileRecord {
        id: row.get(0)?,
        file_name: row.get(1)?,
        description: row.get(2)?,
        bucket: row.get(3)?,
        status: row.get(4)?,
        file_type: row.get(5)?,
        permission,
        key: row.get(7)?,
        created_at,
        size: row.get::<_, Option<i64>>(9)?.map(to_u64),
        sha256: row.get(10)?,
    })
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

fn millis(ms: i64, column: usize) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::from_timestamp_millis(ms).ok_or(rusqlite::Error::IntegralValueOutOfRange(column, ms))
}

fn row_to_upload(row: &Row<'_>) -> rusqlite::Result<PendingUpload> {
    let permission: String = row.get(6)?;
    let permission = permission.parse::<Permission>().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(6, rusqlite::types::Type::Text, Box::new(e))
    })?;
    Ok(PendingUpload {
        key: row.get(0)?,
        bucket: row.get(1)?,
        file_name: row.get(2)?,
        description: row.get(3)?,
        status: row.get(4)?,
        file_type: row.get(5)?,
        permission,
        size: to_u64(row.get(7)?),
        sha256: row.get(8)?,
        content_type: row.get(9)?,
        upload_id: row.get(10)?,
        part_size: row.get::<_, Option<i64>>(11)?.map(to_u64),
        created_at: millis(row.get(12)?, 12)?,
        expires_at: millis(row.get(13)?, 13)?,
    })
}

/// How the name filter is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
enum NameFilter {
    None,
    /// An FTS5 phrase over the trigram index: `"needle"` with `"` doubled, so every
    /// character (`%`, `_`, `*`, `-`, `OR`) is literal.
    Trigram(String),
    /// Too short for trigrams: a scan calling the case-folding `contains` function.
    Scan(String),
}

/// How rows matching a name are found and counted. Both give the same rows; the cost
/// differs by orders of magnitude with the number of matches, so it is chosen per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Walk the ordered (permission, created_at, id) index and keep rows whose id is in
    /// the match set: cheap when matches are dense, since a page fills quickly.
    Index,
    /// Fetch every match by id, then sort: cheap when matches are few.
    Matches,
}

/// A lookup by id costs about this many steps along an index (measured at 1,000,000 rows:
/// ~1.5 us against ~0.15 us).
const LOOKUP_COST: u128 = 10;

impl Access {
    /// Walking the index to fill `needed` rows visits about `needed * scope / matches`
    /// entries (matches spread evenly); looking up visits every match.
    fn for_rows(needed: u64, scope: u64, matches: u64) -> Access {
        let walk = u128::from(needed) * u128::from(scope);
        let lookups = LOOKUP_COST * u128::from(matches) * u128::from(matches);
        if walk < lookups {
            Access::Index
        } else {
            Access::Matches
        }
    }
}

/// The SQL for one list request.
#[derive(Debug, Clone)]
pub(crate) struct ListPlan {
    permission: Option<Permission>,
    name: NameFilter,
    /// The request can match nothing (private records asked for without access).
    nothing: bool,
}

impl ListPlan {
    pub(crate) fn new(query: &ListQuery, include_private: bool) -> ListPlan {
        let (permission, nothing) = match effective_permission(query, include_private) {
            Some(p) => (p, false),
            None => (Some(Permission::Private), true),
        };
        let name = match query.file_name.as_deref() {
            None | Some("") => NameFilter::None,
            Some(n) if n.chars().count() >= TRIGRAM_MIN_CHARS => {
                NameFilter::Trigram(format!("\"{}\"", n.replace('"', "\"\"")))
            }
            Some(n) => NameFilter::Scan(n.to_owned()),
        };
        ListPlan {
            permission,
            name,
            nothing,
        }
    }

    /// `FROM files ...` forcing the access path, so a planner guess never turns a
    /// sub-millisecond request into a scan.
    fn from(&self, access: Access) -> &'static str {
        match (access, self.permission) {
            (Access::Matches, _) => "files NOT INDEXED",
            (Access::Index, None) => "files INDEXED BY files_by_created",
            (Access::Index, Some(_)) => "files INDEXED BY files_by_permission_created",
        }
    }

    fn conditions(&self) -> (Vec<&'static str>, Vec<Value>) {
        let mut conds = Vec::new();
        let mut values = Vec::new();
        if let Some(p) = self.permission {
            conds.push("permission = ?");
            values.push(Value::Text(p.as_str().to_owned()));
        }
        match &self.name {
            NameFilter::None => {}
            NameFilter::Trigram(phrase) => {
                let (set, phrases) = match self.permission {
                    Some(Permission::Public) => (
                        "id IN (SELECT rowid FROM files_fts_public WHERE files_fts_public MATCH ?)",
                        1,
                    ),
                    Some(Permission::Private) => (
                        "id IN (SELECT rowid FROM files_fts_private WHERE files_fts_private MATCH ?)",
                        1,
                    ),
                    None => (
                        "id IN (SELECT rowid FROM files_fts_public WHERE files_fts_public MATCH ?
                                UNION ALL
                                SELECT rowid FROM files_fts_private WHERE files_fts_private MATCH ?)",
                        2,
                    ),
                };
                conds.push(set);
                values.extend(std::iter::repeat_n(Value::Text(phrase.clone()), phrases));
            }
            NameFilter::Scan(needle) => {
                conds.push("depot_contains_folded(file_name, ?)");
                values.push(Value::Text(needle.clone()));
            }
        }
        (conds, values)
    }

    fn where_clause(conds: &[&str]) -> String {
        if conds.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", conds.join(" AND "))
        }
    }

    pub(crate) fn rows_sql(&self, query: &ListQuery, access: Access) -> (String, Vec<Value>) {
        let (conds, mut values) = self.conditions();
        let sql = format!(
            "SELECT {COLUMNS} FROM {}{} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
            self.from(access),
            Self::where_clause(&conds)
        );
        values.push(Value::Integer(to_i64(query.limit)));
        values.push(Value::Integer(to_i64(query.offset())));
        (sql, values)
    }

    /// Records in scope regardless of the name: the counts table, constant time.
    pub(crate) fn scope_count_sql(&self) -> (String, Vec<Value>) {
        match self.permission {
            Some(p) => (
                "SELECT n FROM file_counts WHERE permission = ?".to_owned(),
                vec![Value::Text(p.as_str().to_owned())],
            ),
            None => (
                "SELECT coalesce(sum(n), 0) FROM file_counts".to_owned(),
                Vec::new(),
            ),
        }
    }

    /// The total for the page: from the counts table without a name, from the trigram
    /// index of the permission(s) in scope with one (bounded by the matches, never
    /// touching `files`), one sequential scan for short needles.
    pub(crate) fn count_sql(&self) -> (String, Vec<Value>) {
        match &self.name {
            NameFilter::None => self.scope_count_sql(),
            NameFilter::Trigram(phrase) => {
                let one =
                    |table: &str| format!("(SELECT count(*) FROM {table} WHERE {table} MATCH ?)");
                let (sql, phrases) = match self.permission {
                    Some(Permission::Public) => (one("files_fts_public"), 1),
                    Some(Permission::Private) => (one("files_fts_private"), 1),
                    None => (
                        format!("{} + {}", one("files_fts_public"), one("files_fts_private")),
                        2,
                    ),
                };
                (
                    format!("SELECT {sql}"),
                    vec![Value::Text(phrase.clone()); phrases],
                )
            }
            NameFilter::Scan(_) => {
                let (conds, values) = self.conditions();
                let sql = format!(
                    "SELECT count(*) FROM files NOT INDEXED{}",
                    Self::where_clause(&conds)
                );
                (sql, values)
            }
        }
    }
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn count_with(conn: &Connection, (sql, values): (String, Vec<Value>)) -> Result<u64, RepoError> {
    let op = "counting file records";
    let n: i64 = conn
        .prepare_cached(&sql)
        .map_err(RepoError::db(op))?
        .query_row(rusqlite::params_from_iter(values), |row| row.get(0))
        .optional()
        .map_err(RepoError::db(op))?
        .unwrap_or(0);
    Ok(u64::try_from(n).unwrap_or(0))
}

fn register_functions(conn: &Connection) -> rusqlite::Result<()> {
    // `depot_contains_folded(haystack, needle)`: the substring test for short needles.
    conn.create_scalar_function(
        "depot_contains_folded",
        2,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        |ctx| {
            // The needle is the same on every row: fold it once per statement.
            let needle = ctx
                .get_or_create_aux(1, |v| -> Result<String, rusqlite::types::FromSqlError> {
                    Ok(fold(v.as_str()?))
                })?;
            let haystack = ctx.get_raw(0);
            Ok(match haystack.as_str() {
                Ok(h) => contains_folded(h, &needle),
                Err(_) => false,
            })
        },
    )
}

#[cfg(test)]
mod tests;
