//! The schema of the files database as an ordered list of migrations. `PRAGMA
//! user_version` holds the last one applied; each runs in its own transaction, so a
//! database is always at one exact version. Released migrations are never edited.

use rusqlite::{Connection, TransactionBehavior};

use super::error::RepoError;

pub struct Migration {
    pub version: u32,
    pub description: &'static str,
    pub statements: &'static [&'static str],
}

// Indexes and triggers the seeder drops during a bulk load and puts back: kept here once so both
// always agree. A later migration that changes one must change it here too.
pub(crate) const KEY_INDEX: &str = "CREATE UNIQUE INDEX files_by_key ON files (key)";
pub(crate) const CREATED_INDEX: &str =
    "CREATE INDEX files_by_created ON files (created_at DESC, id DESC)";
pub(crate) const PERMISSION_CREATED_INDEX: &str =
    "CREATE INDEX files_by_permission_created ON files (permission, created_at DESC, id DESC)";
pub(crate) const COUNT_INSERT_TRIGGER: &str =
    "CREATE TRIGGER files_count_insert AFTER INSERT ON files BEGIN
    UPDATE file_counts SET n = n + 1 WHERE permission = NEW.permission;
END";
pub(crate) const FTS_INSERT_TRIGGER: &str =
    "CREATE TRIGGER files_fts_insert AFTER INSERT ON files BEGIN
    INSERT INTO files_fts_public (rowid, file_name)
        SELECT NEW.id, NEW.file_name WHERE NEW.permission = 'public';
    INSERT INTO files_fts_private (rowid, file_name)
        SELECT NEW.id, NEW.file_name WHERE NEW.permission = 'private';
END";

pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "files table",
        statements: &[
            // created_at: milliseconds since the Unix epoch (UTC); integers sort and
            // compare exactly, and the API shows milliseconds anyway. AUTOINCREMENT so an id
            // is never handed out twice, even after the newest record is deleted.
            "CREATE TABLE files (
                id          INTEGER PRIMARY KEY AUTOINCREMENT,
                file_name   TEXT    NOT NULL,
                description TEXT    NOT NULL DEFAULT '',
                bucket      TEXT    NOT NULL,
                status      INTEGER NOT NULL DEFAULT 0,
                file_type   TEXT    NOT NULL DEFAULT '',
                permission  TEXT    NOT NULL CHECK (permission IN ('public', 'private')),
                key         TEXT    NOT NULL,
                created_at  INTEGER NOT NULL
            )",
            // A named index rather than a column constraint, so a bulk load can drop it
            // and build it once at the end.
            KEY_INDEX,
        ],
    },
    Migration {
        version: 2,
        description: "list indexes and per-permission counts",
        statements: &[
            CREATED_INDEX,
            PERMISSION_CREATED_INDEX,
            // Totals for GET /files without a name filter come from here, not COUNT(*).
            "CREATE TABLE file_counts (
                permission TEXT PRIMARY KEY,
                n          INTEGER NOT NULL
            ) WITHOUT ROWID",
            "INSERT INTO file_counts (permission, n)
                SELECT p.permission, (SELECT count(*) FROM files WHERE files.permission = p.permission)
                FROM (SELECT 'public' AS permission UNION ALL SELECT 'private') AS p",
            COUNT_INSERT_TRIGGER,
            "CREATE TRIGGER files_count_delete AFTER DELETE ON files BEGIN
                UPDATE file_counts SET n = n - 1 WHERE permission = OLD.permission;
            END",
            "CREATE TRIGGER files_count_update AFTER UPDATE OF permission ON files
             WHEN OLD.permission <> NEW.permission BEGIN
                UPDATE file_counts SET n = n - 1 WHERE permission = OLD.permission;
                UPDATE file_counts SET n = n + 1 WHERE permission = NEW.permission;
            END",
        ],
    },
    Migration {
        version: 3,
        description: "trigram indexes on file names, one per permission",
        statements: &[
            // One index per permission so that a name search within a permission (every
            // anonymous search is one) is counted from its index alone, never by joining
            // `files`. External content: the names live only in `files`, read through
            // these views when an index is rebuilt. NOT INDEXED keeps that read in rowid
            // order: FTS5 flushes its buffer at every rowid that goes backwards, and the
            // permission index would hand rows over newest first (6x slower at 1M rows).
            "CREATE VIEW files_public_names AS
                SELECT id, file_name FROM files NOT INDEXED WHERE permission = 'public'",
            "CREATE VIEW files_private_names AS
                SELECT id, file_name FROM files NOT INDEXED WHERE permission = 'private'",
            "CREATE VIRTUAL TABLE files_fts_public USING fts5(
                file_name, content = 'files_public_names', content_rowid = 'id', tokenize = 'trigram'
            )",
            "CREATE VIRTUAL TABLE files_fts_private USING fts5(
                file_name, content = 'files_private_names', content_rowid = 'id', tokenize = 'trigram'
            )",
            FTS_INSERT_TRIGGER,
            "CREATE TRIGGER files_fts_delete AFTER DELETE ON files BEGIN
                INSERT INTO files_fts_public (files_fts_public, rowid, file_name)
                    SELECT 'delete', OLD.id, OLD.file_name WHERE OLD.permission = 'public';
                INSERT INTO files_fts_private (files_fts_private, rowid, file_name)
                    SELECT 'delete', OLD.id, OLD.file_name WHERE OLD.permission = 'private';
            END",
            "CREATE TRIGGER files_fts_update AFTER UPDATE OF file_name, permission ON files BEGIN
                INSERT INTO files_fts_public (files_fts_public, rowid, file_name)
                    SELECT 'delete', OLD.id, OLD.file_name WHERE OLD.permission = 'public';
                INSERT INTO files_fts_private (files_fts_private, rowid, file_name)
                    SELECT 'delete', OLD.id, OLD.file_name WHERE OLD.permission = 'private';
                INSERT INTO files_fts_public (rowid, file_name)
                    SELECT NEW.id, NEW.file_name WHERE NEW.permission = 'public';
                INSERT INTO files_fts_private (rowid, file_name)
                    SELECT NEW.id, NEW.file_name WHERE NEW.permission = 'private';
            END",
            "INSERT INTO files_fts_public (files_fts_public) VALUES ('rebuild')",
            "INSERT INTO files_fts_private (files_fts_private) VALUES ('rebuild')",
        ],
    },
    Migration {
        version: 4,
        description: "content size and SHA-256 of records, uploads under way",
        statements: &[
            // NULL for the records of before: their size and hash are not known.
            "ALTER TABLE files ADD COLUMN size INTEGER",
            "ALTER TABLE files ADD COLUMN sha256 TEXT",
            // Direct uploads handed out and not completed: the record to be, the store's
            // multipart upload id, and when the upload expires (milliseconds, as created_at).
            "CREATE TABLE uploads (
                key          TEXT    PRIMARY KEY,
                bucket       TEXT    NOT NULL,
                file_name    TEXT    NOT NULL,
                description  TEXT    NOT NULL DEFAULT '',
                status       INTEGER NOT NULL DEFAULT 0,
                file_type    TEXT    NOT NULL DEFAULT '',
                permission   TEXT    NOT NULL CHECK (permission IN ('public', 'private')),
                size         INTEGER NOT NULL,
                sha256       TEXT,
                content_type TEXT,
                upload_id    TEXT,
                part_size    INTEGER,
                created_at   INTEGER NOT NULL,
                expires_at   INTEGER NOT NULL
            ) WITHOUT ROWID",
            "CREATE INDEX uploads_by_expiry ON uploads (expires_at)",
        ],
    },
    Migration {
        version: 5,
        description: "completed uploads kept until their URL expires",
        statements: &[
            // A completed upload leaves `uploads` for this table, where it stays until it
            // expires (milliseconds, as created_at), with the ETag of the object its
            // completion checked, so that the expiry sweep can find what a replay of its URL
            // left behind. A table of its own: a node of before, still running while another
            // migrates, reads `uploads` as uploads under way and would abort these.
            "CREATE TABLE completed_uploads (
                key          TEXT    PRIMARY KEY,
                bucket       TEXT    NOT NULL,
                etag         TEXT,
                completed_at INTEGER NOT NULL,
                expires_at   INTEGER NOT NULL
            ) WITHOUT ROWID",
            "CREATE INDEX completed_uploads_by_expiry ON completed_uploads (expires_at)",
        ],
    },
];

pub fn latest_version() -> u32 {
    MIGRATIONS.last().map_or(0, |m| m.version)
}

pub fn schema_version(conn: &Connection) -> Result<u32, RepoError> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(RepoError::db("reading the schema version"))
}

/// Brings the database to the latest version; returns the version it was at.
/// The version is read again inside each write transaction, so two processes opening
/// the same new database at once apply each migration exactly once.
pub fn migrate(conn: &mut Connection) -> Result<u32, RepoError> {
    let found = schema_version(conn)?;
    check_not_newer(found)?;
    for migration in MIGRATIONS {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(RepoError::db("starting a migration"))?;
        let current = schema_version(&tx)?;
        check_not_newer(current)?;
        if current >= migration.version {
            continue;
        }
        for sql in migration.statements {
            tx.execute_batch(sql)
                .map_err(RepoError::db(migration.description))?;
        }
        tx.pragma_update(None, "user_version", migration.version)
            .map_err(RepoError::db("recording the schema version"))?;
        tx.commit()
            .map_err(RepoError::db("committing a migration"))?;
    }
    Ok(found)
}

fn check_not_newer(found: u32) -> Result<(), RepoError> {
    let supported = latest_version();
    if found > supported {
        Err(RepoError::SchemaTooNew { found, supported })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_consecutive_from_one() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version as usize, i + 1, "{}", m.description);
        }
        assert_eq!(latest_version(), 5);
    }

    #[test]
    fn fresh_database_reaches_latest_and_migrating_again_is_a_no_op() {
        let mut conn = Connection::open_in_memory().unwrap();
        assert_eq!(migrate(&mut conn).unwrap(), 0);
        assert_eq!(schema_version(&conn).unwrap(), 5);
        assert_eq!(migrate(&mut conn).unwrap(), 5);
        assert_eq!(schema_version(&conn).unwrap(), 5);
    }

    #[test]
    fn newer_database_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", 9).unwrap();
        assert_eq!(
            migrate(&mut conn).unwrap_err().to_string(),
            "the files database has schema version 9 but this depot knows up to 5; upgrade depot"
        );
    }
}
