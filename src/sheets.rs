//! Where spreadsheets come from. Every source yields the same value grid: rows of cell
//! texts as displayed, trailing empty cells dropped, as the Sheets API `values.get` returns.

pub mod consent;
pub mod csv_dialect;
pub mod example;
pub mod google;
pub mod local;
pub mod service_account;
pub mod tabs;
pub mod url;
pub mod watch;
pub mod workbook_limits;
pub mod write;

use crate::config::settings::{Settings, SheetSource as SourceSetting};
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

/// What a fetch gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// The sheet's grid.
    Grid(Vec<Vec<String>>),
    /// Every tab of a spreadsheet with several (SPEC §14: each a namespace).
    Tabs(Vec<tabs::Tab>),
    /// The source said the sheet has not changed since the last fetch (HTTP 304).
    Unchanged,
}

impl Fetched {
    /// The tabs (one for a grid), for callers that never send validators (a first fetch).
    pub fn into_tabs(self) -> Vec<tabs::Tab> {
        match self {
            Fetched::Grid(rows) => vec![tabs::Tab {
                name: String::new(),
                rows,
                gid: None,
            }],
            Fetched::Tabs(tabs) => tabs,
            Fetched::Unchanged => Vec::new(),
        }
    }
}

/// A grid, or why there is none.
pub type FetchResult = Result<Fetched, SourceError>;

/// One kind of spreadsheet source. (Boxed futures keep the trait usable as `dyn`.)
pub trait SheetSource: Send + Sync {
    /// What is read, for logs and messages.
    fn describe(&self) -> String;
    fn fetch(&self) -> Pin<Box<dyn Future<Output = FetchResult> + Send + '_>>;
    /// Told that the last fetched grid was not stored (it did not convert, or the store
    /// failed): a source that fetches conditionally must read it whole next time.
    fn not_stored(&self) {}
    /// The sheet id (`gid`) of the Google tab read, for links to its cells; other sources
    /// have none. With several tabs, the first that holds translations.
    fn sheet_gid(&self) -> Option<i64> {
        None
    }
    /// The sheet id of each Google tab read, by tab name (links to `TAB!B9`).
    fn tab_gids(&self) -> Vec<(String, i64)> {
        Vec::new()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(transparent)]
    Local(#[from] local::LocalSheetError),
    #[error(transparent)]
    Google(#[from] google::GoogleError),
    #[error(transparent)]
    Url(#[from] url::UrlSheetError),
    #[error("reading the sheet stopped: {0}")]
    Task(String),
    #[error(transparent)]
    OverBudget(#[from] crate::memory_budget::OverBudget),
    /// Google is the default source; with none of its settings there is no sheet at all,
    /// and a newcomer needs the way to one rather than Google's first missing variable.
    #[error(
        "no spreadsheet is configured: read a sheet file with --source FILE (.csv, .xlsx, .ods; --source example reads the sheet built into depot), or set SERVICE_SPREADSHEET_ID, SERVICE_CLIENT_ID and SERVICE_CLIENT_SECRET in .env.service for Google Sheets"
    )]
    NothingConfigured,
}

/// The source the settings name (the one place that chooses it).
pub fn source_for(settings: &Settings) -> Result<Arc<dyn SheetSource>, SourceError> {
    Ok(match &settings.producer.source {
        SourceSetting::LocalFile(path) => Arc::new(LocalSource {
            path: path.clone(),
            sheet_name: settings.service.spreadsheet_name.clone(),
            memory: settings.limits.input_memory,
            code_page: csv_dialect::CodePage::named(&settings.translations.sheet_encoding),
        }),
        SourceSetting::Google
            if settings.service.spreadsheet_id.is_empty()
                && settings.service.client_id.is_empty()
                && settings.google.credentials_file.is_none() =>
        {
            return Err(SourceError::NothingConfigured);
        }
        SourceSetting::Google => Arc::new(google::GoogleSheets::new(
            &settings.google,
            &settings.service,
        )?),
        SourceSetting::Url(address) => Arc::new(url::UrlSheet::new(
            address,
            settings.google.timeout_secs,
            settings.limits.input_memory,
        )?),
        SourceSetting::Example => Arc::new(example::ExampleSheet),
    })
}

impl SheetSource for url::UrlSheet {
    fn describe(&self) -> String {
        url::UrlSheet::describe(self)
    }

    fn fetch(&self) -> Pin<Box<dyn Future<Output = FetchResult> + Send + '_>> {
        Box::pin(url::UrlSheet::fetch(self))
    }

    fn not_stored(&self) {
        self.forget();
    }
}

impl SheetSource for google::GoogleSheets {
    fn describe(&self) -> String {
        google::GoogleSheets::describe(self)
    }

    fn fetch(&self) -> Pin<Box<dyn Future<Output = FetchResult> + Send + '_>> {
        Box::pin(async move {
            if self.reads_every_tab() {
                return Ok(fetched_tabs(self.fetch_tabs().await?));
            }
            let grid = self.fetch_grid().await?;
            self.look_up_gid().await;
            Ok(Fetched::Grid(grid))
        })
    }

    fn sheet_gid(&self) -> Option<i64> {
        google::GoogleSheets::sheet_gid(self)
    }

    fn tab_gids(&self) -> Vec<(String, i64)> {
        google::GoogleSheets::tab_gids(self)
    }
}

/// A grid for a spreadsheet of one tab (converted as it always was), else the tabs.
fn fetched_tabs(mut tabs: Vec<tabs::Tab>) -> Fetched {
    match tabs.len() {
        1 => Fetched::Grid(tabs.pop().map(|t| t.rows).unwrap_or_default()),
        _ => Fetched::Tabs(tabs),
    }
}

/// A sheet file on this machine (.csv, .xlsx, .ods, or a .json values document) or a
/// folder of .csv files, read again at every fetch; for workbooks, the sheet named by
/// `SERVICE_SPREADSHEET_NAME`, else every sheet (SPEC §14: one namespace each).
pub struct LocalSource {
    pub path: PathBuf,
    pub sheet_name: String,
    /// What reading the file may take (`limits.input_memory_bytes`).
    pub memory: crate::memory_budget::Budget,
    /// What a `.csv` file that is not UTF-8 is read in (`translations.sheet_encoding`).
    pub code_page: csv_dialect::CodePage,
}

impl SheetSource for LocalSource {
    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    fn fetch(&self) -> Pin<Box<dyn Future<Output = FetchResult> + Send + '_>> {
        let (path, sheet_name, memory) = (self.path.clone(), self.sheet_name.clone(), self.memory);
        let code_page = self.code_page;
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                local::read_tabs(&path, Some(&sheet_name), memory, code_page)
            })
            .await
            .map_err(|e| SourceError::Task(e.to_string()))?
            .map(fetched_tabs)
            .map_err(SourceError::from)
        })
    }
}

/// An HTTP client for calls to other servers (Google, a sheet published on the web, webhook
/// receivers): rustls on ring, `timeout` for connecting and for each whole call, depot's
/// user agent.
pub fn http_client(timeout: std::time::Duration) -> reqwest::Result<reqwest::Client> {
    crate::tls::install_tls_provider();
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .user_agent(concat!("depot/", env!("CARGO_PKG_VERSION")))
        .build()
}

/// Drops trailing empty cells of each row and trailing empty rows, as the Sheets API does,
/// so every source gives the same grid for the same sheet.
pub fn normalise(mut rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    for row in &mut rows {
        while row.last().is_some_and(String::is_empty) {
            row.pop();
        }
    }
    while rows.last().is_some_and(Vec::is_empty) {
        rows.pop();
    }
    rows
}
