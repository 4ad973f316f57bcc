//! The file records on PostgreSQL (`database.url`): a connection pool, the same queries
//! as the SQLite repository with the same answers (order, totals, case-folded substring
//! search with `%`/`_` literal, paging), a change counter other nodes poll and a
//! notification they listen to, COPY for bulk loads, and the uploads under way.

pub mod migrations;

use std::str::FromStr;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use futures_util::future::BoxFuture;
use std::sync::Arc;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;

use futures_util::StreamExt;
use tokio::sync::Notify;
use tokio_postgres::{AsyncMessage, IsolationLevel, NoTls, Row};

use crate::shutdown::Shutdown;

use super::error::RepoError;
use super::fold::fold;
use super::names::NameIndex;
use super::pending::{CompletedUpload, PendingUpload};
use super::query::{ListQuery, Page, effective_permission};
use super::record::{FileRecord, NewFileRecord, Permission, truncate_to_millis};
use super::record_store::RecordStore;

const COLUMNS: &str = "id, file_name, description, bucket, status, file_type, permission, key, created_at, size, sha256";
const UPLOAD_COLUMNS: &str = "key, bucket, file_name, description, status, file_type, permission, size, sha256, content_type, upload_id, part_size, created_at, expires_at";
/// How long a request waits for a pooled connection, or for a new one, before it is
/// answered 503: a database that does not answer must not hold requests for long.
const WAIT_TIMEOUT: Duration = Duration::from_secs(5);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// Wraps a PostgreSQL error with the operation that failed. Connection-level faults
/// (refused, closed, server shutting down) are `Unreachable` (503): they pass by themselves.
pub(crate) fn pg_error(op: &'static str, source: tokio_postgres::Error) -> RepoError {
    let connection_fault = source.is_closed()
        || match source.code() {
            None => true,
            Some(code) => {
                code.code().starts_with("08")
                    || [
                        SqlState::ADMIN_SHUTDOWN,
                        SqlState::CRASH_SHUTDOWN,
                        SqlState::CANNOT_CONNECT_NOW,
                        SqlState::TOO_MANY_CONNECTIONS,
                    ]
                    .contains(code)
            }
        };
    if connection_fault {
        RepoError::Unreachable {
            op,
            source: Box::new(source),
        }
    } else {
        RepoError::Postgres { op, source }
    }
}

/// Every PostgreSQL call of this backend ends in `.during(op)?`: its error named with the
/// operation that failed (`pg_error`).
pub(crate) trait During<T> {
    fn during(self, op: &'static str) -> Result<T, RepoError>;
}

impl<T> During<T> for Result<T, tokio_postgres::Error> {
    fn during(self, op: &'static str) -> Result<T, RepoError> {
        self.map_err(|source| pg_error(op, source))
    }
}

fn pool_error(op: &'static str) -> impl FnOnce(deadpool_postgres::PoolError) -> RepoError {
    move |e| match e {
        deadpool_postgres::PoolError::Backend(source) => pg_error(op, source),
        other => RepoError::Unreachable {
            op,
            source: Box::new(other),
        },
    }
}

/// The PostgreSQL backend.
pub struct PgStore {
    pool: Pool,
    /// For the listener's own connection (notifications need one outside the pool).
    config: tokio_postgres::Config,
}

/// Subscribes to the channel the change triggers notify on (`depot_files`).
const LISTEN_SQL: &str = "LISTEN depot_files";
/// Wait before the listener connects again after losing its connection.
const LISTEN_RETRY: Duration = Duration::from_secs(1);

impl PgStore {
    /// Connects and migrates (under the advisory lock).
    pub async fn connect(url: &str, pool_size: usize) -> Result<PgStore, RepoError> {
        // The URL holds a password: the parse error is not repeated.
        let mut config = tokio_postgres::Config::from_str(url).map_err(|_| RepoError::BadUrl)?;
        config.connect_timeout(CONNECT_TIMEOUT);
        config.application_name("depot");
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(pool_size.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(WAIT_TIMEOUT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(|e| RepoError::Unreachable {
                op: "creating the connection pool",
                source: Box::new(e),
            })?;
        let mut client = pool
            .get()
            .await
            .map_err(pool_error("connecting to the files database"))?;
        migrations::migrate(&mut client).await?;
        drop(client);
        Ok(PgStore { pool, config })
    }

    /// Listens on the change channel until `shutdown`, waking `wake` on every notification
    /// and on every (re)connection (a change may have been missed while disconnected).
    fn spawn_listener(&self, wake: Arc<Notify>, shutdown: Shutdown) {
        let config = self.config.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = shutdown.wait() => return,
                    () = listen_once(&config, &wake) => {}
                }
                tokio::select! {
                    _ = shutdown.wait() => return,
                    _ = tokio::time::sleep(LISTEN_RETRY) => {}
                }
            }
        });
    }

    async fn client(&self, op: &'static str) -> Result<deadpool_postgres::Client, RepoError> {
        self.pool.get().await.map_err(pool_error(op))
    }

    pub async fn schema_version(&self) -> Result<u32, RepoError> {
        let client = self.client("reading the schema version").await?;
        migrations::schema_version(&client).await
    }

    /// Loads records with COPY in one transaction (all or none): the import path for
    /// large files. Records without `created_at` get one common "now".
    pub async fn copy_in(&self, records: Vec<NewFileRecord>) -> Result<usize, RepoError> {
        use futures_util::SinkExt;
        for r in &records {
            r.validate()?;
        }
        let op = "importing file records";
        let mut client = self.client(op).await?;
        let tx = client.transaction().await.during(op)?;
        let sink = tx
            .copy_in(
                "COPY files (file_name, name_folded, description, bucket, status, file_type, permission, key, created_at, size, sha256) FROM STDIN",
            )
            .await
            .during(op)?;
        futures_util::pin_mut!(sink);
        let now = now_millis();
        let count = records.len();
        let mut buf = String::with_capacity(1 << 20);
        for r in records {
            let created = r.created_at.map_or(now, truncate_to_millis);
            for (i, field) in [
                r.file_name.as_str(),
                &fold(&r.file_name),
                &r.description,
                &r.bucket,
                &r.status.to_string(),
                &r.file_type,
                r.permission.as_str(),
                &r.key,
                &created.timestamp_millis().to_string(),
            ]
            .into_iter()
            .enumerate()
            {
                if i > 0 {
                    buf.push('\t');
                }
                copy_escape(&mut buf, field);
            }
            // COPY's NULL is `\N`.
            buf.push('\t');
            match r.size {
                Some(size) => buf.push_str(&size.to_string()),
                None => buf.push_str("\\N"),
            }
            buf.push('\t');
            match &r.sha256 {
                Some(hash) => copy_escape(&mut buf, hash),
                None => buf.push_str("\\N"),
            }
            buf.push('\n');
            if buf.len() >= 1 << 20 {
                let chunk = bytes::Bytes::from(std::mem::take(&mut buf));
                sink.send(chunk).await.map_err(|e| copy_error(e, op))?;
            }
        }
        if !buf.is_empty() {
            sink.send(bytes::Bytes::from(buf))
                .await
                .map_err(|e| copy_error(e, op))?;
        }
        sink.finish().await.map_err(|e| copy_error(e, op))?;
        tx.commit().await.during(op)?;
        Ok(count)
    }
}

/// One listening connection, until it fails.
async fn listen_once(config: &tokio_postgres::Config, wake: &Notify) {
    let Ok((client, mut connection)) = config.connect(NoTls).await else {
        return;
    };
    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
    let listen = client.batch_execute(LISTEN_SQL);
    // The connection must be driven while LISTEN runs: poll both.
    let listening = async {
        loop {
            match messages.next().await {
                Some(Ok(AsyncMessage::Notification(_))) => wake.notify_one(),
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return,
            }
        }
    };
    tokio::pin!(listening);
    tokio::select! {
        result = listen => {
            if result.is_err() {
                return;
            }
        }
        () = &mut listening => return,
    }
    wake.notify_one();
    listening.await;
}

/// A duplicate key in a COPY names no row we can point at: say which constraint failed.
fn copy_error(e: tokio_postgres::Error, op: &'static str) -> RepoError {
    if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
        let key = e
            .as_db_error()
            .and_then(|d| d.detail())
            .and_then(|d| {
                d.split_once("=(")?
                    .1
                    .rsplit_once(") already exists")
                    .map(|(k, _)| k.to_owned())
            })
            .unwrap_or_default();
        return RepoError::Conflict { key };
    }
    pg_error(op, e)
}

/// COPY's text format: backslash, tab, newline and carriage return are escaped.
fn copy_escape(buf: &mut String, field: &str) {
    for c in field.chars() {
        match c {
            '\\' => buf.push_str("\\\\"),
            '\t' => buf.push_str("\\t"),
            '\n' => buf.push_str("\\n"),
            '\r' => buf.push_str("\\r"),
            c => buf.push(c),
        }
    }
}

fn now_millis() -> chrono::DateTime<chrono::Utc> {
    truncate_to_millis(chrono::Utc::now())
}

fn row_to_record(row: &Row) -> Result<FileRecord, RepoError> {
    let permission: String = row.get(6);
    let permission = permission
        .parse::<Permission>()
        .map_err(RepoError::Invalid)?;
    Ok(FileRecord {
        id: row.get(0),
        file_name: row.get(1),
        description: row.get(2),
        bucket: row.get(3),
        status: row.get(4),
        file_type: row.get(5),
        permission,
        key: row.get(7),
        created_at: millis(row.get(8), "created_at out of range")?,
        size: row.get::<_, Option<i64>>(9).map(to_u64),
        sha256: row.get(10),
    })
}

fn millis(ms: i64, what: &'static str) -> Result<chrono::DateTime<chrono::Utc>, RepoError> {
    chrono::DateTime::from_timestamp_millis(ms).ok_or(RepoError::Corrupt { what })
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

fn row_to_upload(row: &Row) -> Result<PendingUpload, RepoError> {
    let permission = row
        .get::<_, &str>(6)
        .parse::<Permission>()
        .map_err(RepoError::Invalid)?;
    Ok(PendingUpload {
        key: row.get(0),
        bucket: row.get(1),
        file_name: row.get(2),
        description: row.get(3),
        status: row.get(4),
        file_type: row.get(5),
        permission,
        size: to_u64(row.get(7)),
        sha256: row.get(8),
        content_type: row.get(9),
        upload_id: row.get(10),
        part_size: row.get::<_, Option<i64>>(11).map(to_u64),
        created_at: millis(row.get(12), "an upload's created_at out of range")?,
        expires_at: millis(row.get(13), "an upload's expires_at out of range")?,
    })
}

/// `%needle%` for LIKE over `name_folded`: folded like the column, with `\`, `%` and `_`
/// escaped so that they match themselves.
fn like_pattern(needle: &str) -> String {
    let mut p = String::with_capacity(needle.len() + 2);
    p.push('%');
    for c in fold(needle).chars() {
        if matches!(c, '\\' | '%' | '_') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

async fn insert_with(
    client: &impl deadpool_postgres::GenericClient,
    new: NewFileRecord,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<FileRecord, RepoError> {
    let op = "inserting a file record";
    let created_at = new.created_at.map_or(now, truncate_to_millis);
    let stmt = client
        .prepare_cached(
            "INSERT INTO files (file_name, name_folded, description, bucket, status, file_type, permission, key, created_at, size, sha256)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
        )
        .await
        .during(op)?;
    let row = client
        .query_one(
            &stmt,
            &[
                &new.file_name,
                &fold(&new.file_name),
                &new.description,
                &new.bucket,
                &new.status,
                &new.file_type,
                &new.permission.as_str(),
                &new.key,
                &created_at.timestamp_millis(),
                &new.size.map(to_i64),
                &new.sha256,
            ],
        )
        .await
        .map_err(|e| unique_or(e, &new.key, op))?;
    Ok(new.stored(row.get(0), created_at))
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl PgStore {
    async fn insert_one(&self, new: NewFileRecord) -> Result<FileRecord, RepoError> {
        new.validate()?;
        let client = self.client("inserting a file record").await?;
        insert_with(&client, new, now_millis()).await
    }

    async fn insert_all(&self, records: Vec<NewFileRecord>) -> Result<usize, RepoError> {
        for r in &records {
            r.validate()?;
        }
        let op = "inserting file records";
        let mut client = self.client(op).await?;
        let tx = client.transaction().await.during(op)?;
        let now = now_millis();
        let count = records.len();
        for r in records {
            insert_with(&tx, r, now).await?;
        }
        tx.commit().await.during(op)?;
        Ok(count)
    }

    async fn get(&self, key: String) -> Result<Option<FileRecord>, RepoError> {
        let op = "looking up a file record";
        let client = self.client(op).await?;
        let stmt = client
            .prepare_cached(&format!("SELECT {COLUMNS} FROM files WHERE key = $1"))
            .await
            .during(op)?;
        let row = client.query_opt(&stmt, &[&key]).await.during(op)?;
        row.as_ref().map(row_to_record).transpose()
    }

    /// Every record's id, permission and name in list order, streamed into the index.
    async fn name_index(&self) -> Result<NameIndex, RepoError> {
        use futures_util::TryStreamExt;
        let op = "reading the file names";
        let client = self.client(op).await?;
        let stmt = client
            .prepare_cached(
                "SELECT id, permission, file_name FROM files ORDER BY created_at DESC, id DESC",
            )
            .await
            .during(op)?;
        let rows = client
            .query_raw(&stmt, std::iter::empty::<i64>())
            .await
            .during(op)?;
        futures_util::pin_mut!(rows);
        let mut index = NameIndex::default();
        while let Some(row) = rows.try_next().await.during(op)? {
            let permission = row.get::<_, &str>(1).parse().map_err(RepoError::Invalid)?;
            index.push(row.get(0), permission, row.get(2));
        }
        Ok(index)
    }

    /// The records with these ids, in this order (ids of no record are left out).
    async fn by_ids(&self, ids: Vec<i64>) -> Result<Vec<FileRecord>, RepoError> {
        let op = "reading file records by id";
        let client = self.client(op).await?;
        let stmt = client
            .prepare_cached(&format!("SELECT {COLUMNS} FROM files WHERE id = ANY($1)"))
            .await
            .during(op)?;
        let rows = client.query(&stmt, &[&ids]).await.during(op)?;
        let mut found = std::collections::HashMap::with_capacity(rows.len());
        for row in &rows {
            let record = row_to_record(row)?;
            found.insert(record.id, record);
        }
        Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
    }

    async fn delete(&self, key: String) -> Result<FileRecord, RepoError> {
        let op = "deleting a file record";
        let client = self.client(op).await?;
        let stmt = client
            .prepare_cached(&format!(
                "DELETE FROM files WHERE key = $1 RETURNING {COLUMNS}"
            ))
            .await
            .during(op)?;
        match client.query_opt(&stmt, &[&key]).await.during(op)? {
            Some(row) => row_to_record(&row),
            None => Err(RepoError::NotFound { key }),
        }
    }

    async fn count_scope(
        client: &impl deadpool_postgres::GenericClient,
        permission: Option<Permission>,
    ) -> Result<u64, RepoError> {
        let op = "counting file records";
        let row = match permission {
            Some(p) => {
                let stmt = client
                    .prepare_cached("SELECT n FROM file_counts WHERE permission = $1")
                    .await
                    .during(op)?;
                client.query_opt(&stmt, &[&p.as_str()]).await
            }
            None => {
                let stmt = client
                    .prepare_cached("SELECT coalesce(sum(n), 0)::BIGINT FROM file_counts")
                    .await
                    .during(op)?;
                client.query_opt(&stmt, &[]).await
            }
        }
        .during(op)?;
        Ok(row.map_or(0, |r| u64::try_from(r.get::<_, i64>(0)).unwrap_or(0)))
    }

    async fn page(&self, query: ListQuery, include_private: bool) -> Result<Page, RepoError> {
        let Some(permission) = effective_permission(&query, include_private) else {
            return Ok(Page {
                records: Vec::new(),
                total: 0,
            });
        };
        let op = "listing file records";
        let mut client = self.client(op).await?;
        // Records and total from one snapshot, as on SQLite.
        let tx = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
            .during(op)?;
        let pattern = query.file_name.as_deref().map(like_pattern);
        let perm = permission.map(Permission::as_str);
        let mut conds = Vec::new();
        let mut params: Vec<&(dyn ToSql + Sync)> = Vec::new();
        if let Some(p) = &perm {
            params.push(p);
            conds.push(format!("permission = ${}", params.len()));
        }
        if let Some(p) = &pattern {
            params.push(p);
            conds.push(format!("name_folded LIKE ${}", params.len()));
        }
        let where_clause = if conds.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", conds.join(" AND "))
        };
        let total = match &pattern {
            None => Self::count_scope(&tx, permission).await?,
            Some(_) => {
                let stmt = tx
                    .prepare_cached(&format!("SELECT count(*) FROM files{where_clause}"))
                    .await
                    .during(op)?;
                let row = tx.query_one(&stmt, &params).await.during(op)?;
                u64::try_from(row.get::<_, i64>(0)).unwrap_or(0)
            }
        };
        if total <= query.offset() {
            tx.commit().await.during(op)?;
            return Ok(Page {
                records: Vec::new(),
                total,
            });
        }
        let limit = to_i64(query.limit);
        let offset = to_i64(query.offset());
        params.push(&limit);
        params.push(&offset);
        let sql = format!(
            "SELECT {COLUMNS} FROM files{where_clause} ORDER BY created_at DESC, id DESC LIMIT ${} OFFSET ${}",
            params.len() - 1,
            params.len()
        );
        let stmt = tx.prepare_cached(&sql).await.during(op)?;
        let rows = tx.query(&stmt, &params).await.during(op)?;
        tx.commit().await.during(op)?;
        let records = rows.iter().map(row_to_record).collect::<Result<_, _>>()?;
        Ok(Page { records, total })
    }
}

/// The uploads under way, as `FilesRepo` keeps them on SQLite.
impl PgStore {
    async fn open_upload(&self, upload: PendingUpload) -> Result<(), RepoError> {
        let op = "keeping an upload";
        let client = self.client(op).await?;
        let stmt = client
            .prepare_cached(&format!(
                "INSERT INTO uploads ({UPLOAD_COLUMNS})
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
            ))
            .await
            .during(op)?;
        client
            .execute(
                &stmt,
                &[
                    &upload.key,
                    &upload.bucket,
                    &upload.file_name,
                    &upload.description,
                    &upload.status,
                    &upload.file_type,
                    &upload.permission.as_str(),
                    &to_i64(upload.size),
                    &upload.sha256,
                    &upload.content_type,
                    &upload.upload_id,
                    &upload.part_size.map(to_i64),
                    &upload.created_at.timestamp_millis(),
                    &upload.expires_at.timestamp_millis(),
                ],
            )
            .await
            .map_err(|e| unique_or(e, &upload.key, op))?;
        Ok(())
    }

    async fn pending_upload(&self, key: String) -> Result<Option<PendingUpload>, RepoError> {
        let op = "looking up an upload";
        let client = self.client(op).await?;
        let stmt = client
            .prepare_cached(&format!(
                "SELECT {UPLOAD_COLUMNS} FROM uploads WHERE key = $1"
            ))
            .await
            .during(op)?;
        let row = client.query_opt(&stmt, &[&key]).await.during(op)?;
        row.as_ref().map(row_to_upload).transpose()
    }

    async fn complete_upload(
        &self,
        key: String,
        record: NewFileRecord,
        etag: Option<String>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<FileRecord, RepoError> {
        record.validate()?;
        let op = "completing an upload";
        let mut client = self.client(op).await?;
        let tx = client.transaction().await.during(op)?;
        // The DELETE locks the row: a concurrent completion waits, then finds nothing.
        let ended = tx
            .query_opt(
                "DELETE FROM uploads WHERE key = $1 AND expires_at > $2 RETURNING bucket, expires_at",
                &[&key, &now.timestamp_millis()],
            )
            .await
            .during(op)?;
        let Some(ended) = ended else {
            return Err(RepoError::UploadGone { key });
        };
        let (bucket, expires_at): (String, i64) = (ended.get(0), ended.get(1));
        tx.execute(
            "INSERT INTO completed_uploads (key, bucket, etag, completed_at, expires_at)
             VALUES ($1, $2, $3, $4, $5)",
            &[&key, &bucket, &etag, &now.timestamp_millis(), &expires_at],
        )
        .await
        .during(op)?;
        let written = insert_with(&tx, record, truncate_to_millis(now)).await?;
        tx.commit().await.during(op)?;
        Ok(written)
    }

    async fn expired_uploads(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> Result<Vec<PendingUpload>, RepoError> {
        let op = "listing expired uploads";
        let client = self.client(op).await?;
        let stmt = client
            .prepare_cached(&format!(
                "SELECT {UPLOAD_COLUMNS} FROM uploads WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2"
            ))
            .await
            .during(op)?;
        let rows = client
            .query(&stmt, &[&before.timestamp_millis(), &i64::from(limit)])
            .await
            .during(op)?;
        rows.iter().map(row_to_upload).collect()
    }

    async fn expired_completions(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> Result<Vec<CompletedUpload>, RepoError> {
        let op = "listing expired completed uploads";
        let client = self.client(op).await?;
        let rows = client
            .query(
                "SELECT key, bucket, etag, completed_at, expires_at FROM completed_uploads
                 WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2",
                &[&before.timestamp_millis(), &i64::from(limit)],
            )
            .await
            .during(op)?;
        rows.iter()
            .map(|row| {
                Ok(CompletedUpload {
                    key: row.get(0),
                    bucket: row.get(1),
                    etag: row.get(2),
                    completed_at: millis(row.get(3), "a completed upload's time out of range")?,
                    expires_at: millis(row.get(4), "a completed upload's expiry out of range")?,
                })
            })
            .collect()
    }

    async fn drop_upload(&self, key: String) -> Result<bool, RepoError> {
        let op = "forgetting an upload";
        let client = self.client(op).await?;
        let mut n = 0;
        for sql in [
            "DELETE FROM uploads WHERE key = $1",
            "DELETE FROM completed_uploads WHERE key = $1",
        ] {
            n += client.execute(sql, &[&key]).await.during(op)?;
        }
        Ok(n > 0)
    }
}

/// A unique-key violation as `Conflict` on `key`, anything else as `pg_error`.
fn unique_or(e: tokio_postgres::Error, key: &str, op: &'static str) -> RepoError {
    if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
        RepoError::Conflict {
            key: key.to_owned(),
        }
    } else {
        pg_error(op, e)
    }
}

impl RecordStore for PgStore {
    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn insert(&self, new: NewFileRecord) -> BoxFuture<'_, Result<FileRecord, RepoError>> {
        Box::pin(self.insert_one(new))
    }

    fn insert_many(&self, records: Vec<NewFileRecord>) -> BoxFuture<'_, Result<usize, RepoError>> {
        Box::pin(self.insert_all(records))
    }

    fn bulk_insert(&self, records: Vec<NewFileRecord>) -> BoxFuture<'_, Result<usize, RepoError>> {
        Box::pin(self.copy_in(records))
    }

    fn get_by_key(&self, key: String) -> BoxFuture<'_, Result<Option<FileRecord>, RepoError>> {
        Box::pin(self.get(key))
    }

    fn delete_by_key(&self, key: String) -> BoxFuture<'_, Result<FileRecord, RepoError>> {
        Box::pin(self.delete(key))
    }

    fn name_index(&self) -> BoxFuture<'_, Result<NameIndex, RepoError>> {
        Box::pin(self.name_index())
    }

    fn get_by_ids(&self, ids: Vec<i64>) -> BoxFuture<'_, Result<Vec<FileRecord>, RepoError>> {
        Box::pin(self.by_ids(ids))
    }

    fn count(&self, permission: Option<Permission>) -> BoxFuture<'_, Result<u64, RepoError>> {
        Box::pin(async move {
            let client = self.client("counting file records").await?;
            Self::count_scope(&client, permission).await
        })
    }

    fn list(
        &self,
        query: ListQuery,
        include_private: bool,
    ) -> BoxFuture<'_, Result<Page, RepoError>> {
        Box::pin(self.page(query, include_private))
    }

    fn watch(&self, wake: Arc<Notify>, shutdown: Shutdown) {
        self.spawn_listener(wake, shutdown);
    }

    fn open_upload(&self, upload: PendingUpload) -> BoxFuture<'_, Result<(), RepoError>> {
        Box::pin(PgStore::open_upload(self, upload))
    }

    fn pending_upload(
        &self,
        key: String,
    ) -> BoxFuture<'_, Result<Option<PendingUpload>, RepoError>> {
        Box::pin(PgStore::pending_upload(self, key))
    }

    fn complete_upload(
        &self,
        key: String,
        record: NewFileRecord,
        etag: Option<String>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> BoxFuture<'_, Result<FileRecord, RepoError>> {
        Box::pin(PgStore::complete_upload(self, key, record, etag, now))
    }

    fn expired_uploads(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<PendingUpload>, RepoError>> {
        Box::pin(PgStore::expired_uploads(self, before, limit))
    }

    fn expired_completions(
        &self,
        before: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<CompletedUpload>, RepoError>> {
        Box::pin(PgStore::expired_completions(self, before, limit))
    }

    fn drop_upload(&self, key: String) -> BoxFuture<'_, Result<bool, RepoError>> {
        Box::pin(PgStore::drop_upload(self, key))
    }

    fn change_marker(&self) -> BoxFuture<'_, Result<i64, RepoError>> {
        Box::pin(async move {
            let op = "reading the change counter";
            let client = self.client(op).await?;
            let stmt = client
                .prepare_cached("SELECT n FROM file_changes")
                .await
                .during(op)?;
            let row = client.query_one(&stmt, &[]).await.during(op)?;
            Ok(row.get(0))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_pattern_escapes_wildcards_and_folds() {
        assert_eq!(like_pattern("A_b%C\\"), "%a\\_b\\%c\\\\%");
        assert_eq!(like_pattern("ÉTÉ"), "%été%");
    }

    #[test]
    fn copy_escape_escapes_separators() {
        let mut s = String::new();
        copy_escape(&mut s, "a\tb\nc\\d\re");
        assert_eq!(s, "a\\tb\\nc\\\\d\\re");
    }
}
