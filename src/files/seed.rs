//! Fills a files database with realistic fake records, fast enough for a million rows in
//! seconds: one transaction, one prepared statement, and the per-row triggers (counts,
//! trigram index) replaced by one bulk step each at the end.

use std::path::Path;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rusqlite::{TransactionBehavior, params};

use super::error::RepoError;
use super::migrations::{COUNT_INSERT_TRIGGER, FTS_INSERT_TRIGGER, KEY_INDEX};
use super::repo::FilesRepo;
use super::{NewFileRecord, Permission};

/// Records are spread over this many days before now.
const SPREAD_DAYS: i64 = 3 * 365;
/// Page cache for the bulk load (negative = KiB): big enough to keep the indexes hot.
const SEED_CACHE_KIB: i64 = 256 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedReport {
    pub inserted: u64,
    pub elapsed: Duration,
}

/// Adds `n` records to the database at `path` (created and migrated if needed), with a
/// random seed taken from the clock so that seeding twice never repeats keys.
pub fn seed(path: &Path, n: u64) -> Result<SeedReport, RepoError> {
    seed_with(path, n, clock_seed())
}

/// Same records for the same `rng_seed` (and day): for benches that cache their database.
pub fn seed_with(path: &Path, n: u64, rng_seed: u64) -> Result<SeedReport, RepoError> {
    seed_with_progress(path, n, rng_seed, &|_| {})
}

/// Where a seeding is, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// This many more records were inserted.
    Inserted(u64),
    /// Every record is in; the indexes are being built.
    Indexing,
}

/// Records inserted between two progress reports.
const PROGRESS_EVERY: u64 = 10_000;

/// `seed_with`, telling `progress` how it goes.
pub fn seed_with_progress(
    path: &Path,
    n: u64,
    rng_seed: u64,
    progress: &dyn Fn(Step),
) -> Result<SeedReport, RepoError> {
    let started = Instant::now();
    let mut repo = FilesRepo::open(path)?;
    bulk_load(&mut repo, n, rng_seed, progress)?;
    Ok(SeedReport {
        inserted: n,
        elapsed: started.elapsed(),
    })
}

/// A seed taken from the clock, so that seeding twice never repeats keys.
pub fn clock_seed() -> u64 {
    let clock = Utc::now().timestamp_nanos_opt().unwrap_or(0);
    clock as u64 ^ u64::from(std::process::id())
}

/// The same generated records as `seed` writes to SQLite, as records to load through a
/// repository's `bulk_insert` (PostgreSQL's COPY), in creation order.
pub fn fake_records(n: u64, rng_seed: u64) -> impl Iterator<Item = NewFileRecord> {
    let mut fake = Faker::new(rng_seed, Utc::now().timestamp_millis(), n);
    let mut buf = FakeRecord::default();
    (0..n).map(move |_| {
        fake.next_record(&mut buf);
        NewFileRecord {
            file_name: buf.file_name.clone(),
            description: buf.description.clone(),
            bucket: buf.bucket.to_owned(),
            status: buf.status,
            file_type: buf.file_type.to_owned(),
            permission: buf.permission,
            key: buf.key.clone(),
            created_at: DateTime::from_timestamp_millis(buf.created_at),
            size: None,
            sha256: None,
        }
    })
}

fn bulk_load(
    repo: &mut FilesRepo,
    n: u64,
    rng_seed: u64,
    progress: &dyn Fn(Step),
) -> Result<(), RepoError> {
    let conn = repo.connection_mut();
    let op = "seeding file records";
    let db = RepoError::db;
    // This connection is the seeder's own and closes at the end: tune it for one big load
    // (sorting the key index in memory, with a helper thread).
    conn.pragma_update(None, "cache_size", -SEED_CACHE_KIB)
        .map_err(db(op))?;
    conn.pragma_update(None, "temp_store", "MEMORY")
        .map_err(db(op))?;
    conn.pragma_update(None, "threads", 2).map_err(db(op))?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db(op))?;
    let first_new_id: i64 = tx
        .query_row("SELECT coalesce(max(id), 0) + 1 FROM files", [], |r| {
            r.get(0)
        })
        .map_err(db(op))?;
    // Dropped and re-created inside this transaction: a failure restores them with the rest.
    // The per-row triggers become one statement each; the key index (random order) is
    // built once by sorting. The created_at indexes stay: rows arrive in time order, so
    // they only ever append.
    tx.execute_batch(
        "DROP TRIGGER files_count_insert; DROP TRIGGER files_fts_insert; DROP INDEX files_by_key;",
    )
    .map_err(db(op))?;
    {
        let mut insert = tx
            .prepare(
                "INSERT INTO files (file_name, description, bucket, status, file_type, permission, key, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .map_err(db(op))?;
        let mut fake = Faker::new(rng_seed, Utc::now().timestamp_millis(), n);
        let mut buf = FakeRecord::default();
        let mut reported = 0;
        for i in 1..=n {
            fake.next_record(&mut buf);
            insert
                .execute(params![
                    buf.file_name,
                    buf.description,
                    buf.bucket,
                    buf.status,
                    buf.file_type,
                    buf.permission.as_str(),
                    buf.key,
                    buf.created_at,
                ])
                .map_err(db(op))?;
            if i % PROGRESS_EVERY == 0 || i == n {
                progress(Step::Inserted(i - reported));
                reported = i;
            }
        }
    }
    progress(Step::Indexing);
    tx.execute(
        "UPDATE file_counts SET n = n + (SELECT count(*) FROM files
            WHERE id >= ?1 AND files.permission = file_counts.permission)",
        [first_new_id],
    )
    .map_err(db(op))?;
    tx.execute_batch(KEY_INDEX)
        .map_err(db("indexing seeded keys (a generated key already exists?)"))?;
    for (table, permission) in [
        ("files_fts_public", "public"),
        ("files_fts_private", "private"),
    ] {
        if first_new_id == 1 {
            tx.execute_batch(&format!("INSERT INTO {table} ({table}) VALUES ('rebuild')"))
                .map_err(db(op))?;
        } else {
            tx.execute(
                &format!(
                    // In rowid order (see the views in migration 3).
                    "INSERT INTO {table} (rowid, file_name)
                     SELECT id, file_name FROM files NOT INDEXED
                     WHERE id >= ?1 AND permission = ?2 ORDER BY id"
                ),
                params![first_new_id, permission],
            )
            .map_err(db(op))?;
        }
    }
    tx.execute_batch(COUNT_INSERT_TRIGGER).map_err(db(op))?;
    tx.execute_batch(FTS_INSERT_TRIGGER).map_err(db(op))?;
    tx.commit().map_err(db(op))?;
    Ok(())
}

/// SplitMix64: tiny, fast, and good enough for fake data.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "annual",
    "report",
    "invoice",
    "holiday",
    "photo",
    "scan",
    "contract",
    "draft",
    "final",
    "budget",
    "meeting",
    "notes",
    "presentation",
    "logo",
    "banner",
    "team",
    "summer",
    "winter",
    "project",
    "design",
    "receipt",
    "backup",
    "export",
    "customer",
    "product",
    "catalog",
    "résumé",
    "café",
    "übersicht",
    "straße",
    "données",
    "фото",
    "отчёт",
    "année",
    "proposal",
    "roadmap",
    "mockup",
    "screenshot",
    "recording",
    "podcast",
    "interview",
    "wedding",
    "garden",
    "kitchen",
    "office",
    "quarterly",
    "weekly",
    "minutes",
    "agenda",
    "policy",
    "manual",
    "release",
    "changelog",
    "brochure",
    "flyer",
    "poster",
    "portrait",
    "landscape",
    "sunset",
];
/// (extension, media type)
const TYPES: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("svg", "image/svg+xml"),
    ("pdf", "application/pdf"),
    (
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    (
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    ("csv", "text/csv"),
    ("txt", "text/plain"),
    ("md", "text/markdown"),
    ("mp4", "video/mp4"),
    ("mp3", "audio/mpeg"),
    ("zip", "application/zip"),
    ("json", "application/json"),
];
const BUCKETS: &[&str] = &["depot-files", "media", "archive", "uploads"];

#[derive(Default)]
struct FakeRecord {
    file_name: String,
    description: String,
    bucket: &'static str,
    status: i64,
    file_type: &'static str,
    permission: Permission,
    key: String,
    created_at: i64,
}

struct Faker {
    rng: Rng,
    /// Creation times rise through the run (as real uploads do, so ids follow time),
    /// by a random step averaging `SPREAD_DAYS / n`.
    clock_ms: i64,
    mean_step_ms: i64,
}

impl Faker {
    fn new(seed: u64, now_ms: i64, n: u64) -> Faker {
        let spread_ms = SPREAD_DAYS * 86_400_000;
        let n = i64::try_from(n.max(1)).unwrap_or(i64::MAX);
        Faker {
            rng: Rng(seed),
            clock_ms: now_ms - spread_ms,
            mean_step_ms: (spread_ms / n).max(1),
        }
    }

    fn next_record(&mut self, out: &mut FakeRecord) {
        use std::fmt::Write;
        let rng = &mut self.rng;
        self.clock_ms += rng.below(2 * self.mean_step_ms as u64 + 1) as i64;
        let (ext, media) = *rng.pick(TYPES);
        let (w1, w2, w3) = (*rng.pick(WORDS), *rng.pick(WORDS), *rng.pick(WORDS));
        out.file_name.clear();
        let _ = match rng.below(5) {
            0 => write!(out.file_name, "{w1}_{w2}_{}.{ext}", rng.below(10_000)),
            1 => write!(
                out.file_name,
                "{} {w2} {}.{ext}",
                capitalise(w1),
                2020 + rng.below(7)
            ),
            2 => write!(out.file_name, "{w1}-{w2}-v{}.{ext}", 1 + rng.below(9)),
            3 => write!(out.file_name, "IMG_{:04}.{ext}", rng.below(10_000)),
            _ => write!(out.file_name, "{w1} ({}).{ext}", 1 + rng.below(20)),
        };
        out.description.clear();
        if rng.below(4) != 0 {
            let _ = write!(out.description, "{} {w2} for the {w3} team", capitalise(w1));
        }
        out.bucket = *rng.pick(BUCKETS);
        out.status = match rng.below(10) {
            0 => 0,
            1 => 2,
            _ => 1,
        };
        out.file_type = if rng.below(2) == 0 { ext } else { media };
        out.permission = if rng.below(5) == 0 {
            Permission::Private
        } else {
            Permission::Public
        };
        let (a, b) = (rng.next_u64(), rng.next_u64());
        out.key.clear();
        // UUID v4 layout: version nibble 4, variant bits 10.
        let _ = write!(
            out.key,
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}-original",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0x0fff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff,
        );
        out.created_at = self.clock_ms;
    }
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::query::ListQuery;
    use crate::files::record::Permission;

    #[test]
    fn seeded_records_are_valid_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("files.sqlite3");
        let report = seed_with(&path, 2_000, 7).unwrap();
        assert_eq!(report.inserted, 2_000);
        let mut repo = FilesRepo::open(&path).unwrap();
        assert_eq!(repo.count(None).unwrap(), 2_000);
        let private = repo.count(Some(Permission::Private)).unwrap();
        // ~20% private.
        assert!((300..=500).contains(&private), "{private}");
        let all = repo
            .list(
                &ListQuery {
                    limit: 2_000,
                    ..ListQuery::default()
                },
                true,
            )
            .unwrap();
        assert_eq!(all.records.len(), 2_000);
        for r in &all.records {
            assert!(crate::files::is_new_key_shape(&r.key), "{}", r.key);
            assert!(crate::files::record::validate_bucket(&r.bucket).is_ok());
        }
        let span = all.records[0].created_at - all.records[1_999].created_at;
        assert!(span.num_days() > 2 * 365, "{span}");
    }

    #[test]
    fn seeding_twice_adds_and_keeps_indexes_in_step() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("files.sqlite3");
        seed_with(&path, 300, 1).unwrap();
        seed_with(&path, 200, 2).unwrap();
        let mut repo = FilesRepo::open(&path).unwrap();
        assert_eq!(repo.count(None).unwrap(), 500);
        // The trigram index covers both loads, and the triggers are back for later inserts.
        let dotted: i64 = repo
            .connection_mut()
            .query_row(
                "SELECT (SELECT count(*) FROM files_fts_public WHERE files_fts_public MATCH '\"png\"')
                      + (SELECT count(*) FROM files_fts_private WHERE files_fts_private MATCH '\"png\"')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let expected: i64 = repo
            .connection_mut()
            .query_row(
                "SELECT count(*) FROM files WHERE lower(file_name) LIKE '%png%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(dotted, expected);
        assert!(expected > 0);
        let triggers: i64 = repo
            .connection_mut()
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(triggers, 6);
        let indexes: i64 = repo
            .connection_mut()
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name LIKE 'files_by_%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(indexes, 3);
        // A record added after seeding is counted and found by name.
        let mut extra = crate::files::record::NewFileRecord {
            file_name: "zzqq-after-seed.txt".into(),
            description: String::new(),
            bucket: "depot-files".into(),
            status: 0,
            file_type: "txt".into(),
            permission: Permission::Public,
            key: "ffffffff-ffff-4fff-bfff-ffffffffffff".into(),
            created_at: None,
            size: None,
            sha256: None,
        };
        repo.insert(extra.clone()).unwrap();
        assert_eq!(repo.count(None).unwrap(), 501);
        let found = repo
            .list(
                &ListQuery {
                    file_name: Some("ZZQQ".into()),
                    ..ListQuery::default()
                },
                true,
            )
            .unwrap();
        assert_eq!(found.total, 1);
        extra.key = found.records[0].key.clone();
        assert!(matches!(
            repo.insert(extra),
            Err(RepoError::Conflict { .. })
        ));
    }

    #[test]
    fn same_seed_same_records() {
        let mut a = Faker::new(42, 1_000_000_000_000, 10);
        let mut b = Faker::new(42, 1_000_000_000_000, 10);
        let (mut ra, mut rb) = (FakeRecord::default(), FakeRecord::default());
        for _ in 0..10 {
            a.next_record(&mut ra);
            b.next_record(&mut rb);
            assert_eq!(
                (&ra.key, &ra.file_name, ra.created_at),
                (&rb.key, &rb.file_name, rb.created_at)
            );
        }
    }
}
