//! `depot files add|import|seed`: get records into the catalogue from the command line.
//! Works next to a running daemon: SQLite (WAL) and the object store's atomic writes allow it.

use super::progress::Progress;
use super::{Failure, load_config_with, output};
use crate::config::layers::absolute;
use crate::config::{Settings, Sources};
use crate::content::{Content, Local};
use crate::files::import::ImportError;
use crate::files::writes::{Upload, Uploads, WriteError};
use crate::files::{FilesDb, Permission, import, seed};
use crate::objects::ObjectStore;
use std::path::PathBuf;
use std::sync::Arc;

pub struct AddOptions {
    pub paths: Vec<PathBuf>,
    pub bucket: String,
    pub permission: Permission,
    pub description: String,
    /// Print nothing on success.
    pub quiet: bool,
}

/// Copies each file into the object store and records it; prints each record as a JSON
/// line (unless quiet). Every path is checked before anything is written.
pub fn add(sources: &Sources, options: AddOptions) -> Result<(), Failure> {
    let settings = load_config_with(sources, options.quiet)?.settings;
    for path in &options.paths {
        if !path.is_file() {
            return Err(Failure(format!(
                "{} is not a readable file; nothing was added",
                absolute(path.clone()).display()
            )));
        }
    }
    let runtime = super::runtime()?;
    runtime.block_on(async {
        let files = FilesDb::open_for(&settings.database).await?;
        let objects = settings
            .objects
            .enabled
            .then(|| ObjectStore::open(settings.objects.root.clone()).map(Arc::new))
            .transpose()?;
        // No signed URLs are handed out here: the embedded store's credentials stay unread.
        let local = Local {
            embedded: objects,
            credentials: None,
            data_dir: settings.server.data_dir.clone(),
        };
        let content = crate::content::choose(&settings.signing, local).map_err(WriteError::from)?;
        let uploads = Uploads::new(files, content)?;
        for path in options.paths {
            let file_name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let upload = Upload {
                file_name,
                content_type: None,
                bucket: options.bucket.clone(),
                permission: options.permission,
                description: options.description.clone(),
                status: 0,
            };
            let record = uploads
                .store(upload.into_record()?, Content::File(path))
                .await?;
            if !options.quiet {
                output::line(serde_json::to_string(&record)?)?;
            }
        }
        Ok(())
    })
}

/// Loads records (JSON lines or CSV) in one transaction: all rows or none.
pub fn import(sources: &Sources, file: PathBuf, quiet: bool) -> Result<(), Failure> {
    let settings = load_config_with(sources, quiet)?.settings;
    let path = absolute(file.clone());
    let runtime = super::runtime()?;
    let files = runtime.block_on(FilesDb::open_for(&settings.database))?;
    let progress = Progress::new(quiet, "importing", None);
    progress.step(&format!("reading {}", file.display()));
    let imported = import::read_rows(&path).and_then(|rows| {
        progress.step(&format!("inserting {} records", rows.len()));
        import::insert_rows_with(rows, |records| runtime.block_on(files.bulk_insert(records)))
    });
    progress.finish();
    let count = imported.map_err(|e| match e {
        // These name the file already.
        ImportError::Read { .. } | ImportError::NotUtf8 { .. } | ImportError::Repo(_) => {
            Failure::from(e)
        }
        e => Failure(format!("{}: {}", path.display(), Failure::from(e).0)),
    })?;
    if !quiet {
        output::line(format_args!(
            "imported {count} records from {}",
            file.display()
        ))?;
    }
    Ok(())
}

/// Adds `count` generated records (benchmarks and load tests).
pub fn seed(sources: &Sources, count: u64, quiet: bool) -> Result<(), Failure> {
    let settings = load_config_with(sources, quiet)?.settings;
    let progress = Progress::new(quiet, "seeding records", Some(count));
    if !settings.database.url.is_empty() {
        return seed_postgres(&settings, count, &progress, quiet);
    }
    let report = seed::seed_with_progress(
        &settings.database.path,
        count,
        seed::clock_seed(),
        &|step| match step {
            seed::Step::Inserted(n) => progress.add(n),
            seed::Step::Indexing => progress.step("indexing"),
        },
    );
    progress.finish();
    let report = report?;
    if !quiet {
        output::line(format_args!(
            "seeded {} records in {:.1} s into {}",
            report.inserted,
            report.elapsed.as_secs_f64(),
            settings.database.path.display()
        ))?;
    }
    Ok(())
}

/// Records per COPY: each batch is one transaction, and is held in memory while sent.
const SEED_BATCH: usize = 50_000;

/// PostgreSQL is seeded through the repository's COPY path, a batch at a time.
fn seed_postgres(
    settings: &Settings,
    count: u64,
    progress: &Progress,
    quiet: bool,
) -> Result<(), Failure> {
    let started = std::time::Instant::now();
    let runtime = super::runtime()?;
    let files = runtime.block_on(FilesDb::open_for(&settings.database))?;
    let mut records = seed::fake_records(count, seed::clock_seed()).peekable();
    let mut inserted = 0;
    while records.peek().is_some() {
        let batch: Vec<_> = records.by_ref().take(SEED_BATCH).collect();
        let n = runtime.block_on(files.bulk_insert(batch))?;
        progress.add(n as u64);
        inserted += n;
    }
    progress.finish();
    if !quiet {
        output::line(format_args!(
            "seeded {inserted} records in {:.1} s into PostgreSQL (database.url)",
            started.elapsed().as_secs_f64()
        ))?;
    }
    Ok(())
}
