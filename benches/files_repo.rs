//! The files repository at 1,000,000 records: the list requests of `GET /files` and the
//! key lookup of `GET /file`. The seeded database is kept under target/ between runs
//! while the schema is unchanged (delete `target/tmp/files_repo_bench` to measure seeding
//! again).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench stops at its first failure and prints its figures"
)]

use std::hash::{DefaultHasher, Hash, Hasher};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use depot::files::migrations::MIGRATIONS;
use depot::files::seed::seed_with;
use depot::files::{FilesDb, FilesRepo, ListQuery, Permission};

const ROWS: u64 = 1_000_000;
const RNG_SEED: u64 = 20_260_101;

/// Changes whenever the schema's SQL does, so an edited migration never meets an old cache.
fn schema_fingerprint() -> String {
    let mut hasher = DefaultHasher::new();
    for m in MIGRATIONS {
        m.statements.hash(&mut hasher);
    }
    format!("{ROWS} {RNG_SEED} {:x}", hasher.finish())
}

fn database() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("files_repo_bench");
    let path = dir.join("files.sqlite3");
    let marker = dir.join("fingerprint");
    let ready = std::fs::read_to_string(&marker).ok() == Some(schema_fingerprint());
    if ready {
        eprintln!("using the cached database {}", path.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
        let report = seed_with(&path, ROWS, RNG_SEED).expect("seed the bench database");
        std::fs::write(&marker, schema_fingerprint()).expect("write the cache marker");
        eprintln!(
            "seeded {} records in {:.2} s",
            report.inserted,
            report.elapsed.as_secs_f64()
        );
    }
    path
}

fn query(file_name: Option<&str>, permission: Option<Permission>, page: u64) -> ListQuery {
    ListQuery {
        permission,
        file_name: file_name.map(str::to_owned),
        page,
        limit: 25,
    }
}

fn bench(c: &mut Criterion) {
    let path = database();
    let mut repo = FilesRepo::open(&path).expect("open");
    let cases = [
        ("list page 1", query(None, None, 1), true),
        ("list page 1, public only", query(None, None, 1), false),
        (
            "permission=private page 1",
            query(None, Some(Permission::Private), 1),
            true,
        ),
        ("list page 1000", query(None, None, 1000), true),
        (
            "fileName few matches",
            query(Some("IMG_1234"), None, 1),
            true,
        ),
        (
            "fileName few, private",
            query(Some("IMG_1234"), Some(Permission::Private), 1),
            true,
        ),
        ("fileName many matches", query(Some("png"), None, 1), true),
        (
            "fileName many, private",
            query(Some("png"), Some(Permission::Private), 1),
            true,
        ),
        (
            "fileName many, public only",
            query(Some("png"), None, 1),
            false,
        ),
        (
            "fileName many, page 1000",
            query(Some("png"), None, 1000),
            true,
        ),
        ("fileName word", query(Some("holiday"), None, 1), true),
    ];
    let mut group = c.benchmark_group("files_repo_1m");
    for (name, q, include_private) in &cases {
        let page = repo.list(q, *include_private).expect("list");
        eprintln!("{name}: total {}, {} rows", page.total, page.records.len());
        group.bench_function(*name, |b| {
            b.iter(|| black_box(repo.list(black_box(q), *include_private).expect("list")))
        });
    }
    let key = repo
        .list(&query(None, None, 500), true)
        .expect("list")
        .records[7]
        .key
        .clone();
    group.bench_function("get_by_key", |b| {
        b.iter(|| black_box(repo.get_by_key(black_box(&key)).expect("get")))
    });
    group.finish();

    // The documented fallback: needles under 3 characters scan the table.
    let mut slow = c.benchmark_group("files_repo_1m_scan");
    slow.sample_size(10);
    let short = query(Some("zq"), None, 1);
    eprintln!(
        "short needle: total {}",
        repo.list(&short, true).expect("list").total
    );
    slow.bench_function("fileName 2 characters", |b| {
        b.iter(|| black_box(repo.list(black_box(&short), true).expect("list")))
    });
    slow.finish();

    // The async handle adds a hop to the blocking pool.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let db = FilesDb::open(&path).expect("open pool");
    let mut pooled = c.benchmark_group("files_db_1m");
    pooled.bench_function("list page 1 via FilesDb", |b| {
        b.iter(|| {
            black_box(
                runtime
                    .block_on(db.list(query(None, None, 1), true))
                    .expect("list"),
            )
        })
    });
    pooled.bench_function("get_by_key via FilesDb", |b| {
        b.iter(|| black_box(runtime.block_on(db.get_by_key(key.clone())).expect("get")))
    });
    pooled.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
