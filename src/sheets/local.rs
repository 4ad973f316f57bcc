//! Local sheets: `.csv`, `.xlsx` and `.ods` files (and `.json` files holding a Sheets API
//! `values.get` response, which is what the test fixtures are). Workbook cells become the
//! text a spreadsheet shows for them, like the Sheets API's formatted values.

mod folder;
mod records;

use super::csv_dialect::{self, CodePage, Decoded, Start};
use super::tabs::Tab;
use calamine::{Data, ExcelDateTime, Ods, Reader, SheetType, SheetVisible, Xlsx};
use std::io::{BufRead, Cursor, Read};
use std::path::Path;

use super::workbook_limits;
use crate::memory_budget::{Budget, Input, OverBudget, ReadError};

#[derive(Debug, thiserror::Error)]
pub enum LocalSheetError {
    #[error("cannot read the sheet {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{path} line {line}: {reason}")]
    Csv {
        path: String,
        line: u64,
        reason: String,
    },
    #[error(
        "{path}: unterminated quote at line {line}: the quoted cell opened there is never \
         closed, so it would swallow the rest of the file; add the closing '\"' (a '\"' inside \
         a quoted cell is written '\"\"')"
    )]
    UnterminatedQuote { path: String, line: u64 },
    #[error(
        "{path} line {line} is not UTF-8 text: the file was saved in another encoding \
         (Excel's \"CSV (Comma delimited)\" writes the computer's Windows code page, such as \
         windows-1250 or windows-1252). Save it as \"CSV UTF-8 (Comma delimited)\" (Excel) or \
         as Text CSV with the character set \"Unicode (UTF-8)\" (LibreOffice), or name its code \
         page: --encoding windows-1250 (translations.sheet_encoding)"
    )]
    NotUtf8 { path: String, line: u64 },
    #[error(
        "{path} holds zero bytes and starts with no byte-order mark, so it is not text in any \
         encoding depot can tell (UTF-16 that lost its mark?). Save it as \"CSV UTF-8 (Comma \
         delimited)\" (Excel) or as Text CSV with the character set \"Unicode (UTF-8)\" \
         (LibreOffice)"
    )]
    NotText { path: String },
    #[error("{path} is not a Sheets API values document ({{\"values\": [[...]]}}): {reason}")]
    Json { path: String, reason: String },
    #[error(
        "{path} is not a readable .{kind} workbook ({reason}); save it again as .{kind} from a spreadsheet application, or export the sheet as .csv"
    )]
    Workbook {
        path: String,
        kind: &'static str,
        reason: String,
    },
    #[error(
        "{path} has no sheet named '{name}' (SERVICE_SPREADSHEET_NAME); sheets present: {}; set SERVICE_SPREADSHEET_NAME to one of them, or leave it empty for the first sheet",
        quoted_list(.present)
    )]
    SheetNotFound {
        path: String,
        name: String,
        present: Vec<String>,
    },
    #[error("{path} holds no worksheet; add a sheet with the translations to it")]
    NoSheet { path: String },
    #[error(
        "the folder {path} holds no .csv file; put one .csv file per tab (namespace) in it, \
         or name a sheet file as the source"
    )]
    EmptyFolder { path: String },
    #[error(
        "{path}: unsupported sheet type; use a .csv, .xlsx or .ods file (or a .json values.get document)"
    )]
    Unsupported { path: String },
    #[error(transparent)]
    OverBudget(#[from] OverBudget),
    #[error(transparent)]
    Refused(#[from] workbook_limits::Refused),
}

fn quoted_list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    quoted.join(", ")
}

/// Reads the value grid of a local sheet file, chosen by its extension. `sheet_name` picks
/// a sheet of an `.xlsx`/`.ods` workbook (`None` or empty: the first visible one); `.csv`
/// and `.json` files hold a single sheet and ignore it. A file that would take more
/// memory than `memory` allows is refused, before it is read as far as can be told
/// (`workbook_limits` for workbooks). A `.csv` file that is not UTF-8 (nor UTF-16 with
/// its byte-order mark) is read in `code_page`, or refused without one.
pub fn read_grid(
    path: &Path,
    sheet_name: Option<&str>,
    memory: Budget,
    code_page: CodePage,
) -> Result<Vec<Vec<String>>, LocalSheetError> {
    let which = match sheet_name.filter(|name| !name.is_empty()) {
        Some(name) => Which::Named(name),
        None => Which::First,
    };
    let mut tabs = read(path, which, memory, code_page)?;
    Ok(tabs.pop().map(|tab| tab.rows).unwrap_or_default())
}

/// Reads every tab of a local sheet (SPEC §14): each worksheet of an `.xlsx`/`.ods`
/// workbook in order (the one `sheet_name` names alone, when set), each `.csv` file of a
/// folder (`folder`); a `.csv` or `.json` file is one tab. Each file is held to
/// `memory` as `read_grid` holds it.
pub fn read_tabs(
    path: &Path,
    sheet_name: Option<&str>,
    memory: Budget,
    code_page: CodePage,
) -> Result<Vec<Tab>, LocalSheetError> {
    if path.is_dir() {
        return folder::read_folder(path, memory, code_page);
    }
    match sheet_name.filter(|name| !name.is_empty()) {
        Some(name) => read(path, Which::Named(name), memory, code_page),
        None => read(path, Which::All, memory, code_page),
    }
}

/// The worksheets of a workbook to read.
#[derive(Clone, Copy)]
enum Which<'a> {
    Named(&'a str),
    /// The first a user sees, as the Sheets API reads a range without a sheet name.
    First,
    All,
}

fn read(
    path: &Path,
    which: Which<'_>,
    memory: Budget,
    code_page: CodePage,
) -> Result<Vec<Tab>, LocalSheetError> {
    let shown = path.display().to_string();
    let stem = || {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let unreadable = |e: std::io::Error| LocalSheetError::Read {
        path: shown.clone(),
        reason: e.to_string(),
    };
    let read = |input| {
        memory.read(path, &shown, input).map_err(|e| match e {
            ReadError::OverBudget(e) => LocalSheetError::OverBudget(e),
            ReadError::Io(e) => unreadable(e),
        })
    };
    let one = |rows| {
        vec![Tab {
            name: stem(),
            rows: super::normalise(rows),
            gid: None,
        }]
    };
    if extension == "csv" {
        return read_csv_with(path, memory, code_page, &|rows| rows.collect()).map(one);
    }
    match extension.as_str() {
        "json" => Ok(one(json_grid(&read(Input::ValuesJson)?, &shown)?)),
        "xlsx" | "ods" => {
            let bytes = read(Input::Workbook)?;
            let (kind, limits) = if extension == "xlsx" {
                ("xlsx", workbook_limits::Kind::Xlsx)
            } else {
                ("ods", workbook_limits::Kind::Ods)
            };
            workbook_limits::check(&bytes, &shown, limits, memory)?;
            // What the cells may take once read: the budget less the workbook's bytes.
            let cells = memory.bytes().saturating_sub(bytes.len() as u64);
            // calamine's own checks are debug assertions in places (a column name too long
            // for a u32 overflows a multiplication): a damaged workbook must be an error
            // naming the file, never a panic of the reading thread.
            let sheets = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                workbook_rows(bytes, &shown, kind, which, cells, memory)
            }))
            .unwrap_or_else(|_| {
                Err(LocalSheetError::Workbook {
                    path: shown.clone(),
                    kind,
                    reason: "the workbook is damaged: its reader failed on it".to_owned(),
                })
            })?;
            Ok(sheets
                .into_iter()
                .map(|(name, rows)| Tab {
                    name,
                    rows: super::normalise(rows),
                    gid: None,
                })
                .collect())
        }
        _ => Err(LocalSheetError::Unsupported { path: shown }),
    }
}

/// What takes a sheet's rows as they are read, in order, on a thread of its own: what it
/// makes of them is the result of the read.
/// `depot generate` converts them there as they come.
pub type Consume<'c, T> = dyn Fn(&mut dyn Iterator<Item = Vec<String>>) -> T + Sync + 'c;

/// The `.csv` file at `path` read into `consume` (`read_grid` collects the rows). Streamed:
/// a large sheet is not held twice, as bytes and as cells; read up to what `memory`
/// allows, so a file that grows meanwhile is refused too. A file that is not UTF-8 is
/// read in `code_page`, or refused without one.
pub fn read_csv_with<T: Send>(
    path: &Path,
    memory: Budget,
    code_page: CodePage,
    consume: &Consume<'_, T>,
) -> Result<T, LocalSheetError> {
    let shown = path.display().to_string();
    let unreadable = |e: std::io::Error| LocalSheetError::Read {
        path: shown.clone(),
        reason: e.to_string(),
    };
    let csv_file = |code_page| -> Result<T, LocalSheetError> {
        let file = std::fs::File::open(path).map_err(unreadable)?;
        let size = file.metadata().map_err(unreadable)?.len();
        memory.admit_file(&shown, size, Input::Csv, 0)?;
        let largest = memory.largest(Input::Csv);
        let mut input =
            std::io::BufReader::with_capacity(1 << 16, file.take(largest.saturating_add(1)));
        let made = csv_grid_with(&mut input, &shown, code_page, consume)?;
        if input.into_inner().limit() == 0 {
            memory.admit_file(&shown, largest.saturating_add(1), Input::Csv, 0)?;
        }
        Ok(made)
    };
    // UTF-8 whenever the bytes are UTF-8; the code page only for a file that is not
    // (read again from the start: a legacy file is the rare case).
    match (csv_file(None), code_page.encoding()) {
        (Err(LocalSheetError::NotUtf8 { .. }), Some(page)) => csv_file(Some(page)),
        (made, _) => made,
    }
}

/// The worksheets `which` names, each with its name and grid.
type Sheets = Vec<(String, Vec<Vec<String>>)>;

/// The sheets of a workbook; the cells of all of them together stay within `cells` bytes.
fn workbook_rows(
    bytes: Vec<u8>,
    shown: &str,
    kind: &'static str,
    which: Which<'_>,
    cells: u64,
    memory: Budget,
) -> Result<Sheets, LocalSheetError> {
    if kind == "xlsx" {
        let held = bytes.len() as u64;
        let mut left = cells;
        return workbook_grid::<Xlsx<_>>(bytes, shown, kind, which, |workbook, name| {
            let grid = xlsx_cells_grid(workbook, name, left).map_err(|failure| match failure {
                CellsFailure::Unreadable(reason) => GridFailure::Unreadable(reason),
                CellsFailure::Over { cell, bytes } => GridFailure::OverBudget(OverBudget {
                    file: shown.to_owned(),
                    what: format!(
                        "the workbook ({} zipped), whose sheet '{name}' holds more than {} of \
                         cells at {cell},",
                        crate::memory_budget::human(held),
                        crate::memory_budget::human(bytes)
                    ),
                    needs: held.saturating_add(cells),
                    at_least: true,
                    budget: memory.bytes(),
                }),
            })?;
            left = left.saturating_sub(grid_bytes(&grid));
            Ok(grid)
        });
    }
    ods_content_complete(&bytes).map_err(|reason| LocalSheetError::Workbook {
        path: shown.to_owned(),
        kind,
        reason,
    })?;
    workbook_grid::<Ods<_>>(bytes, shown, kind, which, |workbook, name| {
        workbook
            .worksheet_range(name)
            .map(|range| range_grid(&range))
            .map_err(|e| GridFailure::Unreadable(e.to_string()))
    })
}

/// What a grid holds in memory, as `xlsx_cells_grid` counts it.
fn grid_bytes(grid: &[Vec<String>]) -> u64 {
    let cell = std::mem::size_of::<String>() as u64;
    (grid.iter())
        .map(|row| cell + row.iter().map(|text| cell + text.len() as u64).sum::<u64>())
        .sum()
}

/// Why a sheet of a workbook gave no grid.
enum GridFailure {
    Unreadable(String),
    OverBudget(OverBudget),
}

/// The grid of CSV bytes held in memory (a sheet published to the web, the example sheet
/// built into the binary); `shown` names them in errors.
pub fn csv_bytes_grid(bytes: &[u8], shown: &str) -> Result<Vec<Vec<String>>, LocalSheetError> {
    csv_grid(bytes, shown, None).map(super::normalise)
}

/// The grid of a CSV file's bytes: UTF-8 (its byte-order mark skipped), UTF-16 by its
/// mark, else text in `code_page` when one is given.
fn csv_grid(
    input: impl BufRead + Send,
    path: &str,
    code_page: Option<&'static encoding_rs::Encoding>,
) -> Result<Vec<Vec<String>>, LocalSheetError> {
    csv_grid_with(input, path, code_page, &|rows| rows.collect())
}

/// `csv_grid`, its rows given to `consume` as they are read.
fn csv_grid_with<T: Send>(
    mut input: impl BufRead + Send,
    path: &str,
    code_page: Option<&'static encoding_rs::Encoding>,
    consume: &Consume<'_, T>,
) -> Result<T, LocalSheetError> {
    let head = input.fill_buf().map_err(|e| LocalSheetError::Read {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    let decoded =
        |input, encoding| std::io::BufReader::with_capacity(1 << 16, Decoded::new(input, encoding));
    match (csv_dialect::start(head), code_page) {
        (Start::Utf8(0), Some(page)) => csv_text(decoded(input, page), path, consume),
        (Start::Utf8(bom), _) => {
            // A UTF-8 byte-order mark (spreadsheet exports often write one) is not part of A1.
            input.consume(bom);
            csv_text(input, path, consume)
        }
        (Start::Utf16(encoding), _) => csv_text(decoded(input, encoding), path, consume),
        (Start::Binary, _) => Err(LocalSheetError::NotText {
            path: path.to_owned(),
        }),
    }
}

/// The rows of CSV text (UTF-8), its separator told by its header row, given to `consume`.
fn csv_text<T: Send>(
    mut input: impl BufRead + Send,
    path: &str,
    consume: &Consume<'_, T>,
) -> Result<T, LocalSheetError> {
    // a failed read names no line, as the csv crate's error of one did not
    let failed = |e: std::io::Error| LocalSheetError::Csv {
        path: path.to_owned(),
        line: 0,
        reason: e.to_string(),
    };
    let separator = csv_dialect::separator(input.fill_buf().map_err(failed)?);
    let mut reader = records::Records::new(input, separator);
    // Three threads in a pipeline: one parses records (into records that are reused),
    // this one makes their cells (UTF-8 checked, one allocation each), and the last gives
    // the rows to `consume`. Record batches go round between the first two, at most
    // `IN_FLIGHT` full ones at a time: the file still streams.
    const BATCH: usize = 256;
    const IN_FLIGHT: usize = 4;
    let (full, to_cells) = std::sync::mpsc::sync_channel::<Vec<records::Record>>(IN_FLIGHT);
    let (back, returned) = std::sync::mpsc::channel::<Vec<records::Record>>();
    let (made, to_consume) = std::sync::mpsc::channel::<Vec<Vec<String>>>();
    std::thread::scope(|scope| {
        let consumer = scope.spawn(move || consume(&mut to_consume.into_iter().flatten()));
        // The line of an unterminated quote in the last record, if any.
        let parser = scope.spawn(move || -> Result<Option<u64>, LocalSheetError> {
            let mut batch = Vec::new();
            let mut n = 0;
            let parsed = loop {
                if n == batch.len() {
                    batch.push(records::Record::default());
                }
                match reader.read(&mut batch[n]) {
                    Ok(true) => {}
                    Ok(false) => break Ok(()),
                    // the records before it still go to the cells: one that is not
                    // UTF-8 is the error to report
                    Err(e) => break Err(failed(e)),
                }
                n += 1;
                if n == BATCH {
                    let next = returned.try_recv().unwrap_or_default();
                    if full.send(std::mem::replace(&mut batch, next)).is_err() {
                        // the cells stopped at a record that is not UTF-8
                        return Ok(None);
                    }
                    n = 0;
                }
            };
            batch.truncate(n);
            if n > 0 {
                let _ = full.send(batch);
            }
            parsed?;
            Ok(reader.unterminated_quote())
        });
        // The cells are made on the calling thread: on the main one (`depot generate`),
        // their million allocations come from the main heap, which grows 128 KiB at a
        // time; another thread's heap grows a page at a time, a system call each (26,000
        // for 50,000 keys x 20 locales, on the busiest thread of the read).
        let mut cells = Ok(());
        'batches: for batch in to_cells {
            let mut rows = Vec::with_capacity(batch.len());
            for record in &batch {
                match utf8_cells(record) {
                    Some(row) => rows.push(row),
                    None => {
                        cells = Err(record.line());
                        break 'batches;
                    }
                }
            }
            // the parser may be done already
            let _ = back.send(batch);
            // the consumer panicked: its panic is passed on below
            let _ = made.send(rows);
        }
        drop(made);
        let parsed = match parser.join() {
            Ok(parsed) => parsed,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let made = match consumer.join() {
            Ok(made) => made,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        cells.map_err(|line| LocalSheetError::NotUtf8 {
            path: path.to_owned(),
            line,
        })?;
        if let Some(line) = parsed? {
            return Err(LocalSheetError::UnterminatedQuote {
                path: path.to_owned(),
                line,
            });
        }
        Ok(made)
    })
}

/// The record's cells as text, or none when one is not UTF-8 (each cell is checked on its
/// own: two halves of a character on both sides of a separator are no character).
fn utf8_cells(record: &records::Record) -> Option<Vec<String>> {
    // The cells lie end to end in one buffer: checked as a whole (one call, its ASCII fast
    // path over the whole row, instead of one a cell: a tenth of the read), and then each
    // cell is UTF-8 exactly when its ends are character boundaries, which `str::get` tells.
    let text = std::str::from_utf8(record.as_slice()).ok()?;
    // sized once: collected through `Option`, the row grew 4, 8, 16, 32 cells
    let mut cells = Vec::with_capacity(record.ends().len());
    let mut start = 0;
    for &end in record.ends() {
        cells.push(text.get(start..end)?.to_owned());
        start = end;
    }
    Some(cells)
}

fn json_grid(bytes: &[u8], path: &str) -> Result<Vec<Vec<String>>, LocalSheetError> {
    #[derive(serde::Deserialize)]
    struct Values {
        #[serde(default)]
        values: Vec<Vec<String>>,
    }
    serde_json::from_slice::<Values>(bytes)
        .map(|v| v.values)
        .map_err(|e| LocalSheetError::Json {
            path: path.to_owned(),
            reason: e.to_string(),
        })
}

fn workbook_grid<R>(
    bytes: Vec<u8>,
    path: &str,
    kind: &'static str,
    which: Which<'_>,
    mut grid_of: impl FnMut(&mut R, &str) -> Result<Vec<Vec<String>>, GridFailure>,
) -> Result<Sheets, LocalSheetError>
where
    R: Reader<Cursor<Vec<u8>>>,
    R::Error: std::fmt::Display,
{
    let unreadable = |reason: String| LocalSheetError::Workbook {
        path: path.to_owned(),
        kind,
        reason,
    };
    let mut workbook = R::new(Cursor::new(bytes)).map_err(|e| unreadable(e.to_string()))?;
    // Chart and macro sheets hold no cells; they are neither chosen nor listed.
    let worksheets: Vec<_> = workbook
        .sheets_metadata()
        .iter()
        .filter(|sheet| sheet.typ == SheetType::WorkSheet)
        .collect();
    let no_sheet = || LocalSheetError::NoSheet {
        path: path.to_owned(),
    };
    let chosen: Vec<String> = match which {
        Which::Named(wanted) => vec![
            worksheets
                .iter()
                .find(|sheet| sheet.name == wanted)
                .ok_or_else(|| LocalSheetError::SheetNotFound {
                    path: path.to_owned(),
                    name: wanted.to_owned(),
                    present: worksheets.iter().map(|sheet| sheet.name.clone()).collect(),
                })?
                .name
                .clone(),
        ],
        Which::First => vec![
            worksheets
                .iter()
                .find(|sheet| sheet.visible == SheetVisible::Visible)
                .or_else(|| worksheets.first())
                .ok_or_else(no_sheet)?
                .name
                .clone(),
        ],
        Which::All if worksheets.is_empty() => return Err(no_sheet()),
        Which::All => worksheets.iter().map(|sheet| sheet.name.clone()).collect(),
    };
    chosen
        .into_iter()
        .map(|name| {
            let grid = grid_of(&mut workbook, &name).map_err(|failure| match failure {
                GridFailure::Unreadable(e) => unreadable(format!("sheet '{name}': {e}")),
                GridFailure::OverBudget(e) => LocalSheetError::OverBudget(e),
            })?;
            Ok((name, grid))
        })
        .collect()
}

/// Columns an `.xlsx` sheet may use: the locale columns depot accepts plus key levels, tags
/// and room for notes. A cell further right is refused rather than placed: calamine sizes a
/// dense range by the furthest cell, and a cell named `XFD1048576` (or, in a damaged file,
/// far past it) asked for hundreds of gigabytes and aborted the process (found by fuzzing).
const MAX_XLSX_COLUMNS: u32 = (crate::model::MAX_LOCALES + 100) as u32;
/// Cells of the grid, empty ones included, that an `.xlsx` sheet may make: far beyond the
/// largest sheets depot is built for (50,000 keys x 20 locales), small enough that a sheet
/// of scattered far-away cells cannot exhaust memory.
const MAX_XLSX_GRID_CELLS: usize = 20_000_000;

/// Why the cells of an `.xlsx` sheet gave no grid.
enum CellsFailure {
    Unreadable(String),
    /// The grid took more than the bytes allowed, at `cell`.
    Over {
        cell: String,
        bytes: u64,
    },
}

/// The grid of an `.xlsx` sheet from its cells one by one (not calamine's dense range), with
/// empty cells left out, and bounded as above; the grid's bytes (its cells, empty ones
/// included, and their texts: a shared string is copied into every cell that shows it)
/// stay within `allowed`.
fn xlsx_cells_grid(
    workbook: &mut Xlsx<Cursor<Vec<u8>>>,
    name: &str,
    allowed: u64,
) -> Result<Vec<Vec<String>>, CellsFailure> {
    let unreadable = |e: calamine::XlsxError| CellsFailure::Unreadable(e.to_string());
    let mut reader = workbook.worksheet_cells_reader(name).map_err(unreadable)?;
    let mut grid: Vec<Vec<String>> = Vec::new();
    let mut cells = 0usize;
    let mut bytes = 0u64;
    while let Some(cell) = reader.next_cell().map_err(unreadable)? {
        let (row, column) = cell.get_position();
        let text = display_text(&Data::from(cell.get_value().clone()));
        if text.is_empty() {
            continue;
        }
        let place = || crate::model::cell_name(column as usize, row as usize + 1);
        if column >= MAX_XLSX_COLUMNS {
            return Err(CellsFailure::Unreadable(format!(
                "cell {} is past column {MAX_XLSX_COLUMNS}, the last one depot reads \
                 ({} locales, key levels, tags and notes)",
                place(),
                crate::model::MAX_LOCALES
            )));
        }
        let (row, column) = (row as usize, column as usize);
        let new_rows = (row + 1).saturating_sub(grid.len());
        let new_cells = if row < grid.len() {
            (column + 1).saturating_sub(grid[row].len())
        } else {
            column + 1
        };
        cells = cells.saturating_add(new_rows).saturating_add(new_cells);
        if cells > MAX_XLSX_GRID_CELLS {
            return Err(CellsFailure::Unreadable(format!(
                "the sheet spreads over more than {MAX_XLSX_GRID_CELLS} cells (cell {}); \
                 depot reads sheets up to that size",
                place()
            )));
        }
        let cell_bytes = std::mem::size_of::<String>() as u64;
        bytes = bytes
            .saturating_add((new_rows + new_cells) as u64 * cell_bytes)
            .saturating_add(text.len() as u64);
        if bytes > allowed {
            return Err(CellsFailure::Over {
                cell: place(),
                bytes: allowed,
            });
        }
        if row >= grid.len() {
            grid.resize_with(row + 1, Vec::new);
        }
        let cells_of_row = &mut grid[row];
        if column >= cells_of_row.len() {
            cells_of_row.resize_with(column + 1, String::new);
        }
        cells_of_row[column] = text;
    }
    Ok(grid)
}

/// calamine 0.38 loops forever on an `.ods` whose `content.xml` ends inside a table (a
/// truncated copy, say), so the XML is first checked to close every element it opens.
/// Other faults (no zip, no `content.xml`) are left to calamine, which reports them.
fn ods_content_complete(bytes: &[u8]) -> Result<(), String> {
    use quick_xml::events::Event;
    let Ok(mut archive) = zip::ZipArchive::new(Cursor::new(bytes)) else {
        return Ok(());
    };
    let Ok(content) = archive.by_name("content.xml") else {
        return Ok(());
    };
    let mut reader = quick_xml::Reader::from_reader(std::io::BufReader::new(content));
    let mut buffer = Vec::new();
    let mut depth = 0usize;
    loop {
        match reader.read_event_into(&mut buffer) {
            Ok(Event::Start(_)) => depth += 1,
            Ok(Event::End(_)) => depth = depth.saturating_sub(1),
            Ok(Event::Eof) if depth == 0 => return Ok(()),
            Ok(Event::Eof) => {
                return Err(
                    "content.xml ends before its elements are closed (is the file truncated?)"
                        .to_owned(),
                );
            }
            Ok(_) => {}
            Err(e) => {
                return Err(format!(
                    "content.xml at byte {}: {e}",
                    reader.error_position()
                ));
            }
        }
        buffer.clear();
    }
}

/// The grid from A1, whatever cell the workbook's used range starts at, so that row and
/// column numbers (and the A1 names in warnings) match the spreadsheet.
fn range_grid(range: &calamine::Range<Data>) -> Vec<Vec<String>> {
    let Some((first_row, first_column)) = range.start() else {
        return Vec::new();
    };
    let mut grid = vec![Vec::new(); first_row as usize];
    grid.extend(range.rows().map(|cells| {
        let mut row = vec![String::new(); first_column as usize];
        row.extend(cells.iter().map(display_text));
        row
    }));
    grid
}

/// The text a spreadsheet shows for a cell in the default format. Formulas arrive as their
/// cached values; number formats other than dates and times are not applied.
fn display_text(cell: &Data) -> String {
    match cell {
        Data::Empty => String::new(),
        Data::String(text) => text.clone(),
        Data::Int(number) => number.to_string(),
        Data::Float(number) => number_text(*number),
        Data::Bool(true) => "TRUE".to_owned(),
        Data::Bool(false) => "FALSE".to_owned(),
        Data::DateTime(moment) => excel_datetime_text(moment),
        Data::DateTimeIso(iso) => iso_datetime_text(iso),
        Data::DurationIso(iso) => iso_duration_text(iso),
        Data::Error(error) => error.to_string(),
    }
}

/// Spreadsheets keep 15 significant digits, so rounding to them hides binary noise
/// (`0.1+0.2` shows `0.3`). Plain decimals from 1E-9 up to 1E+15, scientific beyond.
fn number_text(number: f64) -> String {
    if number == 0.0 || !number.is_finite() {
        // -0 shows as 0; NaN and infinities cannot be stored in a cell.
        return if number == 0.0 {
            "0".to_owned()
        } else {
            number.to_string()
        };
    }
    let rounded: f64 = format!("{number:.14e}").parse().unwrap_or(number);
    let shortest = format!("{rounded:e}");
    let Some((mantissa, exponent)) = shortest.split_once('e') else {
        return rounded.to_string();
    };
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if (-9..15).contains(&exponent) {
        rounded.to_string()
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}E{sign}{:02}", exponent.unsigned_abs())
    }
}

/// ISO 8601 text: `2024-01-31`, `10:30:00`, `2024-01-31 10:30:00`; a duration (`[h]:mm:ss`)
/// as total hours, `36:30:00`. Serial numbers below 1 are times of day, whole ones dates.
fn excel_datetime_text(moment: &ExcelDateTime) -> String {
    let serial = moment.as_f64();
    if moment.is_duration() {
        let milliseconds = (serial.abs() * 86_400_000.0).round() as u64;
        let sign = if serial < 0.0 { "-" } else { "" };
        return format!("{sign}{}", clock_text(milliseconds));
    }
    let (year, month, day, hour, minute, second, milli) = moment.to_ymd_hms_milli();
    let date = format!("{year:04}-{month:02}-{day:02}");
    let time_of_day = ((u64::from(hour) * 60 + u64::from(minute)) * 60 + u64::from(second)) * 1000
        + u64::from(milli);
    if (0.0..1.0).contains(&serial) {
        clock_text(time_of_day)
    } else if time_of_day == 0 {
        date
    } else {
        format!("{date} {}", clock_text(time_of_day))
    }
}

/// `HH:MM:SS` (hours may exceed 24, for durations), with `.mmm` only when not whole.
fn clock_text(milliseconds: u64) -> String {
    let (seconds, milli) = (milliseconds / 1000, milliseconds % 1000);
    let text = format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    );
    if milli == 0 {
        text
    } else {
        format!("{text}.{milli:03}")
    }
}

/// ODS dates (`2024-01-31`, `2024-01-31T10:30:15`) as the xlsx ones: a space for the `T`,
/// no time at midnight.
fn iso_datetime_text(iso: &str) -> String {
    match iso.split_once('T') {
        Some((date, time)) if time.chars().all(|c| matches!(c, '0' | ':' | '.')) => date.to_owned(),
        Some((date, time)) => format!("{date} {time}"),
        None => iso.to_owned(),
    }
}

/// ODS times and durations (`PT10H30M00S`, `P1DT2H`) as `HH:MM:SS`; anything else as given.
fn iso_duration_text(iso: &str) -> String {
    let (sign, unsigned) = match iso.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", iso),
    };
    match iso_duration_milliseconds(unsigned) {
        Some(milliseconds) => format!("{sign}{}", clock_text(milliseconds)),
        None => iso.to_owned(),
    }
}

fn iso_duration_milliseconds(iso: &str) -> Option<u64> {
    let mut rest = iso.strip_prefix('P')?;
    let mut in_time = false;
    let mut total = 0.0;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('T') {
            in_time = true;
            rest = after;
            continue;
        }
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
        let amount: f64 = rest[..digits].parse().ok()?;
        let unit = match (in_time, rest[digits..].chars().next()?) {
            (false, 'D') => 86_400_000.0,
            (true, 'H') => 3_600_000.0,
            (true, 'M') => 60_000.0,
            (true, 'S') => 1000.0,
            _ => return None, // years and months have no fixed length
        };
        total += amount * unit;
        rest = &rest[digits + 1..];
    }
    Some(total.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sheets")
            .join(name)
    }

    fn grid(name: &str, sheet: Option<&str>) -> Vec<Vec<String>> {
        read_grid(
            &fixture(name),
            sheet,
            Budget::default(),
            CodePage::default(),
        )
        .unwrap()
    }

    fn rows(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|row| row.iter().map(|cell| cell.to_string()).collect())
            .collect()
    }

    /// `basic.xlsx` with its first worksheet's rows replaced by `rows` (each the `<c>`
    /// elements of one row), written to a temp file.
    fn xlsx_with_cells(dir: &Path, rows: &[&str]) -> std::path::PathBuf {
        use std::io::{Read, Write};
        let bytes = std::fs::read(fixture("basic.xlsx")).unwrap();
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let sheet_data: String = rows
            .iter()
            .map(|cells| format!("<row>{cells}</row>"))
            .collect();
        for i in 0..archive.len() {
            let mut member = archive.by_index(i).unwrap();
            let name = member.name().unwrap().into_owned();
            let mut content = Vec::new();
            member.read_to_end(&mut content).unwrap();
            if name == "xl/worksheets/sheet1.xml" {
                content = format!(
                    "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">\
                     <sheetData>{sheet_data}</sheetData></worksheet>"
                )
                .into_bytes();
            }
            out.start_file(name, zip::write::SimpleFileOptions::default())
                .unwrap();
            out.write_all(&content).unwrap();
        }
        let path = dir.join("far.xlsx");
        std::fs::write(&path, out.finish().unwrap().into_inner()).unwrap();
        path
    }

    #[test]
    fn xlsx_cells_far_away_are_refused_not_allocated() {
        let dir = tempfile::tempdir().unwrap();
        let cell = |at: &str, text: &str| {
            format!(r#"<c r="{at}" t="inlineStr"><is><t>{text}</t></is></c>"#)
        };
        let header = format!("{}{}", cell("A1", ">>>"), cell("B1", "en_US"));
        // Excel's last cell, and a damaged reference far past it (what the fuzzer found:
        // calamine sized a dense range by it and the allocation aborted the process).
        let far_refs = ["XFD1048576".to_owned(), format!("C{}7", "G".repeat(60))];
        for far in far_refs {
            let path = xlsx_with_cells(dir.path(), &[&header, &cell(&far, "x")]);
            let err = read_grid(&path, None, Budget::default(), CodePage::default())
                .unwrap_err()
                .to_string();
            assert!(err.contains("far.xlsx"), "{err}");
        }
        // A cell far down in a legal column is read, its place kept.
        let path = xlsx_with_cells(
            dir.path(),
            &[
                &header,
                &format!("{}{}", cell("A5000", "KEY"), cell("B5000", "Text")),
            ],
        );
        let grid = read_grid(&path, None, Budget::default(), CodePage::default()).unwrap();
        assert_eq!(grid.len(), 5000);
        assert_eq!(grid[4999], ["KEY", "Text"]);
    }

    fn csv_text(text: &str) -> Result<Vec<Vec<String>>, LocalSheetError> {
        csv_grid(std::io::Cursor::new(text.as_bytes()), "s.csv", None)
    }

    #[test]
    fn an_unterminated_quote_is_an_error_naming_the_line_it_opens_on() {
        let err = csv_text(">>>,en_US\nA,Yes\nB,\"Hello\nC,Bye\n").unwrap_err();
        assert!(
            matches!(&err, LocalSheetError::UnterminatedQuote { line: 3, .. }),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("s.csv: unterminated quote at line 3: "),
            "{err}"
        );
        // Opened on a later line of a record that started with a closed multi-line cell.
        let err = csv_text("\"a\nb\",\"c\nd,e").unwrap_err();
        assert!(
            matches!(err, LocalSheetError::UnterminatedQuote { line: 2, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn semicolon_sheets_check_quotes_and_name_lines_as_excel_writes_them() {
        // ';' separated, CRLF: a quote after ';' opens a cell, one inside a cell does not
        let grid = csv_text(">>>;en\r\nA;\"x;y\"\r\nB;mid\"cell\r\n").unwrap();
        assert_eq!(
            grid,
            rows(&[&[">>>", "en"], &["A", "x;y"], &["B", "mid\"cell"]])
        );
        let err = csv_text(">>>;en\r\nA;x\r\nB;\"open\r\nC;y").unwrap_err();
        assert!(
            matches!(err, LocalSheetError::UnterminatedQuote { line: 3, .. }),
            "{err:?}"
        );
        let err = csv_grid(&b">>>;en\r\nA;x\r\nB;\xE9t\xE9\r\n"[..], "s.csv", None).unwrap_err();
        assert!(
            matches!(err, LocalSheetError::NotUtf8 { line: 3, .. }),
            "{err:?}"
        );
        let grid = csv_grid(
            &b">>>;en\r\nB;\xE9t\xE9\r\n"[..],
            "s.csv",
            Some(encoding_rs::WINDOWS_1252),
        )
        .unwrap();
        assert_eq!(grid, rows(&[&[">>>", "en"], &["B", "été"]]));
    }

    #[test]
    fn quotes_that_close_are_no_error() {
        let grid =
            csv_text("k,\"a \"\"quoted\"\" word\"\nk2,mid\"cell\nk3,\"two\nlines\"\r\nk4,\"\"")
                .unwrap();
        assert_eq!(
            grid,
            rows(&[
                &["k", "a \"quoted\" word"],
                &["k2", "mid\"cell"],
                &["k3", "two\nlines"],
                &["k4", ""],
            ])
        );
    }

    #[test]
    fn a_long_sheet_keeps_only_its_tail_for_the_quote_check() {
        let mut text = String::from(">>>,en\n");
        for i in 0..20_000 {
            text.push_str(&format!("KEY_{i},\"text, number {i}\"\n"));
        }
        assert_eq!(csv_text(&text).unwrap().len(), 20_001);
        text.push_str("LAST,\"open");
        let err = csv_text(&text).unwrap_err();
        assert!(
            matches!(err, LocalSheetError::UnterminatedQuote { line: 20_002, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn every_file_type_of_the_same_sheet_gives_the_values_get_grid() {
        let expected = grid("basic.sheet.json", None);
        assert_eq!(expected[3], vec!["tag1, tag2", "", "", "YES", "Yes", "Tak"]);
        assert_eq!(expected[1], vec!["", "CORE"]);
        for name in ["basic.csv", "basic.xlsx", "basic.ods"] {
            assert_eq!(grid(name, None), expected, "{name}");
        }
    }

    #[test]
    fn workbook_cells_read_as_the_text_a_spreadsheet_shows() {
        let expected = rows(&[
            &["integer", "3"],
            &["integer-valued float", "3"],
            &["decimal", "1.5"],
            &["negative", "-2.25"],
            &["large", "1234567890"],
            &["formula", "3"],
            &["float noise", "0.3"],
            &["text formula", "ab"],
            &["true", "TRUE"],
            &["false", "FALSE"],
            &["date", "2024-01-31"],
            &["time", "10:30:00"],
            &["date and time", "2024-01-31 10:30:15"],
            &["duration", "36:30:00"],
            &["error", "#DIV/0!"],
            &["error value", "#N/A"],
            &["unicode", "Zażółć gęślą jaźń — 日本語 🙂"],
            &["spaces", "  two before, one after "],
            &["lines", "first\nsecond"],
            &["empty between", "", "after"],
        ]);
        for name in ["types.xlsx", "types.ods"] {
            assert_eq!(grid(name, None), expected, "{name}");
            assert_eq!(grid(name, Some("")), expected, "{name}: empty name");
        }
    }

    #[test]
    fn a_sheet_is_chosen_by_name_and_keeps_its_a1_positions() {
        // "Other sheet" starts at B2: the grid still starts at A1.
        let expected = rows(&[&[], &["", "second sheet"], &["", "", "42"]]);
        for name in ["types.xlsx", "types.ods"] {
            assert_eq!(grid(name, Some("Other sheet")), expected, "{name}");
        }
    }

    #[test]
    fn csv_and_json_have_one_sheet_whatever_the_name() {
        assert_eq!(grid("basic.csv", Some("Nope")), grid("basic.csv", None));
        assert_eq!(
            grid("basic.sheet.json", Some("Nope")),
            grid("basic.sheet.json", None)
        );
    }

    #[test]
    fn an_unknown_sheet_name_lists_the_sheets_present() {
        for name in ["types.xlsx", "types.ods"] {
            let path = fixture(name);
            let err = read_grid(
                &path,
                Some("Translations"),
                Budget::default(),
                CodePage::default(),
            )
            .unwrap_err();
            assert!(
                matches!(&err, LocalSheetError::SheetNotFound { present, .. }
                    if present == &["Types", "Other sheet"]),
                "{err:?}"
            );
            assert_eq!(
                err.to_string(),
                format!(
                    "{} has no sheet named 'Translations' (SERVICE_SPREADSHEET_NAME); sheets present: 'Types', 'Other sheet'; set SERVICE_SPREADSHEET_NAME to one of them, or leave it empty for the first sheet",
                    path.display()
                )
            );
        }
    }

    #[test]
    fn a_corrupt_workbook_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        for (name, kind) in [("broken.xlsx", "xlsx"), ("broken.ods", "ods")] {
            let path = dir.path().join(name);
            std::fs::write(&path, b"\x50\x4b\x03\x04 not really a zip \xff\x00\x13").unwrap();
            let err = read_grid(&path, None, Budget::default(), CodePage::default()).unwrap_err();
            assert!(
                matches!(&err, LocalSheetError::Workbook { kind: k, .. } if *k == kind),
                "{err:?}"
            );
            let message = err.to_string();
            assert!(
                message.starts_with(&path.display().to_string()),
                "{message}"
            );
            assert!(
                message.contains(&format!("save it again as .{kind}")),
                "{message}"
            );
        }
        // An ods named .xlsx is not an xlsx either.
        let disguised = dir.path().join("disguised.xlsx");
        std::fs::copy(fixture("basic.ods"), &disguised).unwrap();
        assert!(matches!(
            read_grid(&disguised, None, Budget::default(), CodePage::default()),
            Err(LocalSheetError::Workbook { .. })
        ));
    }

    #[test]
    fn an_ods_cut_short_inside_a_table_is_an_error_not_a_hang() {
        use std::io::{Read, Write};
        let source = std::fs::read(fixture("basic.ods")).unwrap();
        let mut archive = zip::ZipArchive::new(Cursor::new(source)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.ods");
        let mut writer = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        for index in 0..archive.len() {
            let mut part = archive.by_index(index).unwrap();
            let name = part.name().unwrap().into_owned();
            let mut data = Vec::new();
            part.read_to_end(&mut data).unwrap();
            if name == "content.xml" {
                let row_end = b"</table:table-row>";
                let at = data.windows(row_end.len()).position(|w| w == row_end);
                data.truncate(at.unwrap() + row_end.len());
            }
            writer
                .start_file(name, zip::write::SimpleFileOptions::default())
                .unwrap();
            writer.write_all(&data).unwrap();
        }
        writer.finish().unwrap();
        let err = read_grid(&path, None, Budget::default(), CodePage::default()).unwrap_err();
        assert!(
            matches!(&err, LocalSheetError::Workbook { kind: "ods", .. }),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!(
                "{} is not a readable .ods workbook (content.xml ends before its elements are closed (is the file truncated?)); save it again as .ods from a spreadsheet application, or export the sheet as .csv",
                path.display()
            )
        );
    }

    #[test]
    fn unsupported_and_missing_files_are_named() {
        let err = read_grid(
            Path::new("sheet.txt"),
            None,
            Budget::default(),
            CodePage::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("sheet.txt"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("odd.xyz");
        std::fs::write(&odd, "x").unwrap();
        let err = read_grid(&odd, None, Budget::default(), CodePage::default()).unwrap_err();
        assert!(
            matches!(err, LocalSheetError::Unsupported { .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains(".csv, .xlsx or .ods"), "{err}");
    }

    #[test]
    fn numbers_show_as_in_the_default_format() {
        for (number, shown) in [
            (3.0, "3"),
            (-0.0, "0"),
            (1.5, "1.5"),
            (0.1 + 0.2, "0.3"),
            (1.0 / 3.0, "0.333333333333333"),
            (123456789012345.0, "123456789012345"),
            (1e15, "1E+15"),
            (-2.5e20, "-2.5E+20"),
            (0.000000001, "0.000000001"),
            (1.25e-10, "1.25E-10"),
        ] {
            assert_eq!(number_text(number), shown, "{number:e}");
        }
        assert_eq!(display_text(&Data::Int(-7)), "-7");
    }

    #[test]
    fn excel_serials_show_as_iso_dates_and_times() {
        use calamine::ExcelDateTimeType::{DateTime, TimeDelta};
        for (serial, kind, is_1904, shown) in [
            (45322.0, DateTime, false, "2024-01-31"),
            (43860.0, DateTime, true, "2024-01-31"),
            (0.4375, DateTime, false, "10:30:00"),
            (0.0, DateTime, false, "00:00:00"),
            (
                45322.5 + 0.25 / 86_400.0,
                DateTime,
                false,
                "2024-01-31 12:00:00.250",
            ),
            (1.5, TimeDelta, false, "36:00:00"),
            (-0.25, TimeDelta, false, "-06:00:00"),
        ] {
            let moment = ExcelDateTime::new(serial, kind, is_1904);
            assert_eq!(display_text(&Data::DateTime(moment)), shown, "{serial}");
        }
    }

    #[test]
    fn ods_iso_dates_and_durations_show_like_the_xlsx_ones() {
        for (iso, shown) in [
            ("2024-01-31", "2024-01-31"),
            ("2024-01-31T00:00:00", "2024-01-31"),
            ("2024-01-31T10:30:15", "2024-01-31 10:30:15"),
        ] {
            assert_eq!(display_text(&Data::DateTimeIso(iso.into())), shown);
        }
        for (iso, shown) in [
            ("PT10H30M00S", "10:30:00"),
            ("PT36H30M00S", "36:30:00"),
            ("P1DT2H", "26:00:00"),
            ("PT0.25S", "00:00:00.250"),
            ("-PT1H", "-01:00:00"),
            ("P1Y", "P1Y"),
            ("PTxS", "PTxS"),
        ] {
            assert_eq!(display_text(&Data::DurationIso(iso.into())), shown);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Truncated or damaged workbooks give an error (or a grid), never a panic.
        #[test]
        fn damaged_workbooks_never_panic(
            xlsx in any::<bool>(),
            cut in 0usize..8000,
            flips in proptest::collection::vec((0usize..8000, any::<u8>()), 0..8),
        ) {
            let (name, extension) = if xlsx { ("types.xlsx", "xlsx") } else { ("types.ods", "ods") };
            let mut bytes = std::fs::read(fixture(name)).unwrap();
            for (at, byte) in flips {
                let at = at % bytes.len();
                bytes[at] ^= byte;
            }
            bytes.truncate(cut.max(1).min(bytes.len()));
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(format!("damaged.{extension}"));
            std::fs::write(&path, &bytes).unwrap();
            if let Err(err) = read_grid(&path, None, Budget::default(), CodePage::default()) {
                prop_assert!(err.to_string().contains("damaged."), "{}", err);
            }
        }

        /// Whatever a CSV writer quotes, the quote check finds it closed and the cells
        /// read back as written.
        #[test]
        fn any_written_csv_reads_back_without_a_quote_error(
            grid in proptest::collection::vec(
                proptest::collection::vec("[a-z\",\r\n ]{0,6}", 1..4), 1..6),
        ) {
            let mut writer = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
            for row in &grid {
                writer.write_record(row).unwrap();
            }
            let bytes = writer.into_inner().unwrap();
            let read = csv_grid(std::io::Cursor::new(bytes), "p.csv", None);
            prop_assert!(read.is_ok(), "{:?}", read);
        }

        #[test]
        fn numbers_keep_at_most_fifteen_significant_digits(number in any::<f64>()
            .prop_filter("finite", |n| n.is_finite())) {
            let shown = number_text(number);
            let digits = shown
                .split('E')
                .next()
                .unwrap_or_default()
                .trim_start_matches('-')
                .replace('.', "")
                .trim_start_matches('0')
                .len();
            prop_assert!(digits <= 15, "{} shown as {}", number, shown);
            let back: f64 = shown.parse().unwrap();
            prop_assert!((back - number).abs() <= number.abs() * 1e-14, "{} shown as {}", number, shown);
        }
    }
}
