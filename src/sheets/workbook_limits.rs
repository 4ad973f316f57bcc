//! What an `.xlsx` or `.ods` workbook may inflate to, checked before calamine reads it: a
//! zip of two megabytes can hold gigabytes of XML (2 GB of sheet XML, or one shared
//! string of 1 GB, made `import --merge-into` take 2.1 and 3.2 GB). The parts' declared
//! sizes are checked first; then every part is inflated once, streamed and counted (a
//! declared size can lie), stopping as soon as the workbook's XML passes what the memory
//! budget allows; a single text (a shared string, a cell, one XML item) is capped at
//! `MAX_TEXT`; and what calamine would expand the XML into (shared strings reserved by
//! their declared count, `.ods` cells repeated across columns and rows, runs of spaces
//! `<text:s text:c="…"/>`) is estimated and held to the budget too.

use std::io::{BufRead, BufReader, Cursor, Read};

use quick_xml::events::{BytesStart, Event};

use crate::memory_budget::{Budget, Input, OverBudget, human};

/// The longest text of one cell or shared string, and the longest single XML item (a
/// tag, a text run), in bytes of XML: far above what spreadsheets hold (Excel: 32,767
/// characters a cell; Google Sheets: 50,000), so a real sheet never meets it.
pub const MAX_TEXT: u64 = 1 << 20;

/// Memory calamine takes per cell of an `.ods` range beside its text (the value and its
/// formula, once while parsing and once in the range) and per byte of a cell's text (the
/// text cloned into the range, then into the grid).
const ODS_CELL_COST: u64 = 112;
const ODS_TEXT_COPIES: u64 = 3;
/// calamine's `.ods` bounds (it caps repeats at them).
const ODS_MAX_ROWS: u64 = 1_048_576;
const ODS_MAX_COLUMNS: u64 = 16_384;
/// Bytes of an empty `String` that calamine reserves per shared string it is told of.
const RESERVED_STRING: u64 = 24;

/// Why a workbook is not read.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error(transparent)]
    OverBudget(#[from] OverBudget),
    #[error(
        "{path}: {what} in {part} holds more than {} of text; depot reads up to that much \
         in one cell (a spreadsheet holds at most 50,000 characters in one)",
        human(MAX_TEXT)
    )]
    TooLong {
        path: String,
        part: String,
        what: String,
    },
}

/// Which workbook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Xlsx,
    Ods,
}

/// Checks the workbook `bytes` (`path` in messages) against `memory` before calamine
/// reads it. A file that is no zip at all passes: calamine says what is wrong with it.
pub fn check(bytes: &[u8], path: &str, kind: Kind, memory: Budget) -> Result<(), Refused> {
    let Ok(mut archive) = zip::ZipArchive::new(Cursor::new(bytes)) else {
        return Ok(());
    };
    let held = bytes.len() as u64;
    let per_byte = Input::WorkbookXml.per_byte();
    let over = |xml: u64, at_least: bool| -> Refused {
        Refused::from(OverBudget {
            file: path.to_owned(),
            what: format!(
                "the workbook ({} zipped, {}{} of XML once inflated)",
                human(held),
                if at_least { "more than " } else { "" },
                human(xml)
            ),
            needs: held.saturating_add(xml.saturating_mul(per_byte)),
            at_least,
            budget: memory.bytes(),
        })
    };
    let allowed = memory.bytes().saturating_sub(held) / per_byte;
    let mut declared = 0u64;
    for index in 0..archive.len() {
        if let Ok(part) = archive.by_index_raw(index) {
            declared = declared.saturating_add(part.size());
        }
    }
    if declared > allowed {
        return Err(over(declared, false));
    }
    let mut scan = Scan::new(kind);
    let mut inflated = 0u64;
    for index in 0..archive.len() {
        let Ok(part) = archive.by_index(index) else {
            continue;
        };
        let name = part.name().map(|n| n.into_owned()).unwrap_or_default();
        let mut counted = Counted {
            inner: part,
            count: 0,
            limit: allowed - inflated,
            item: 0,
        };
        let found = scan.part(&mut counted);
        if counted.count > counted.limit {
            return Err(over(allowed, true));
        }
        inflated += counted.count;
        if let Err(Stop::TooLong(what)) = found {
            return Err(Refused::TooLong {
                path: path.to_owned(),
                part: name,
                what,
            });
        }
    }
    let expands = scan.expansion();
    let what = || {
        format!(
            "the workbook ({} zipped), its cells repeated across columns and rows and its \
             shared strings reserved,",
            human(held)
        )
    };
    memory.admit(path, what, held, expands)?;
    Ok(())
}

/// A part, inflated and counted: reading stops with an error past `limit` bytes (the
/// count then says `limit + 1`) and when one XML item passes `MAX_TEXT` (`item` counts
/// the bytes since the last item ended).
struct Counted<R> {
    inner: R,
    count: u64,
    limit: u64,
    item: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.count > self.limit || self.item > MAX_TEXT + (64 << 10) {
            return Err(std::io::Error::other("stopped"));
        }
        let room = usize::try_from(self.limit - self.count + 1).unwrap_or(usize::MAX);
        let wanted = buf.len().min(room).min(64 << 10);
        let n = self.inner.read(&mut buf[..wanted])?;
        self.count += n as u64;
        self.item += n as u64;
        Ok(n)
    }
}

/// Why scanning a part stopped early.
enum Stop {
    TooLong(String),
}

/// What the XML of the parts holds, as far as memory goes.
struct Scan {
    kind: Kind,
    /// Shared strings announced (`<sst uniqueCount>`): calamine reserves room for them.
    announced: u64,
    /// `.ods`: cells of the tables' ranges (rows up to the last used one × the widest
    /// used row), and bytes of text once repeated across columns and rows.
    ods_cells: u64,
    ods_text: u64,
}

/// The shared string or cell whose text is being counted.
struct Cell {
    what: String,
    length: u64,
    /// Elements open inside it, itself included.
    depth: usize,
    /// `.ods`: columns it repeats over, and whether it has a value besides its text.
    repeat: u64,
    valued: bool,
}

/// The `.ods` table being scanned.
#[derive(Default)]
struct Table {
    /// Rows so far (repeats counted), and up to the last one with a value.
    rows: u64,
    rows_used: u64,
    /// The widest used row's columns, up to its last cell with a value.
    width: u64,
    /// The current row: its repeat, its columns so far, up to its last used one, and its
    /// text once repeated across columns.
    row_repeat: u64,
    columns: u64,
    used_to: u64,
    row_text: u64,
}

impl Scan {
    fn new(kind: Kind) -> Scan {
        Scan {
            kind,
            announced: 0,
            ods_cells: 0,
            ods_text: 0,
        }
    }

    /// What calamine expands the XML into, beyond the XML itself.
    fn expansion(&self) -> u64 {
        let strings = self.announced.saturating_mul(RESERVED_STRING);
        let ods = self
            .ods_cells
            .saturating_mul(ODS_CELL_COST)
            .saturating_add(self.ods_text.saturating_mul(ODS_TEXT_COPIES));
        strings.saturating_add(ods)
    }

    /// Reads one part through. A part that is not XML is only counted; an XML error ends
    /// the scan of the part but not its count (the rest is drained: calamine reports it).
    fn part<R: Read>(&mut self, counted: &mut Counted<R>) -> Result<(), Stop> {
        let mut input = BufReader::with_capacity(64 << 10, &mut *counted);
        let looks_xml = input.fill_buf().is_ok_and(|head| {
            let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
            head.iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|&b| b == b'<')
        });
        let result = if looks_xml {
            self.xml(&mut input)
        } else {
            Ok(())
        };
        let _ = std::io::copy(&mut input, &mut std::io::sink());
        result
    }

    fn xml<R: Read>(&mut self, input: &mut BufReader<&mut Counted<R>>) -> Result<(), Stop> {
        let mut reader = quick_xml::Reader::from_reader(input);
        // read as calamine reads it
        let config = reader.config_mut();
        config.check_end_names = false;
        config.trim_text(false);
        config.check_comments = false;
        config.expand_empty_elements = true;
        let mut buffer = Vec::new();
        let mut cell: Option<Cell> = None;
        let mut table: Option<Table> = None;
        loop {
            buffer.clear();
            reader.get_mut().get_mut().item = 0;
            let event = match reader.read_event_into(&mut buffer) {
                Ok(event) => event,
                Err(_) if reader.get_mut().get_mut().item > MAX_TEXT => {
                    let what = cell.map_or_else(|| "one XML item".to_owned(), |open| open.what);
                    return Err(Stop::TooLong(what));
                }
                Err(_) => return Ok(()),
            };
            match (event, &mut cell) {
                (Event::Eof, _) => return Ok(()),
                (Event::Start(e), Some(open)) => {
                    open.depth += 1;
                    // a run of spaces written as a count (`<text:s text:c="3"/>`)
                    if e.local_name().as_ref() == "s" {
                        open.length = open
                            .length
                            .saturating_add(attribute_number(&e, "text:c").unwrap_or(1));
                    }
                }
                (Event::Start(e), None) => cell = self.start(&e, &mut table),
                (Event::Text(t), Some(open)) => open.length += t.len() as u64,
                (Event::CData(t), Some(open)) => open.length += t.len() as u64,
                (Event::GeneralRef(_), Some(open)) => open.length += 4,
                (Event::End(_), Some(open)) => {
                    open.depth -= 1;
                    if open.depth == 0
                        && let (Some(done), Some(table)) = (cell.take(), &mut table)
                    {
                        table.cell(&done);
                    }
                }
                (Event::End(e), None) if self.kind == Kind::Ods => match e.local_name().as_ref() {
                    "table-row" => {
                        if let Some(table) = &mut table {
                            table.end_row();
                        }
                    }
                    "table" => {
                        if let Some(done) = table.take() {
                            self.ods_cells = self
                                .ods_cells
                                .saturating_add(done.rows_used.saturating_mul(done.width));
                            self.ods_text = self.ods_text.saturating_add(done.row_text);
                        }
                    }
                    _ => {}
                },
                _ => {}
            }
            if let Some(open) = &cell
                && open.length > MAX_TEXT
            {
                return Err(Stop::TooLong(open.what.clone()));
            }
        }
    }

    /// An element outside any counted text opens; returns the text it starts counting,
    /// if any.
    fn start(&mut self, e: &BytesStart<'_>, table: &mut Option<Table>) -> Option<Cell> {
        let cell = |what: String, length: u64, repeat: u64, valued: bool| Cell {
            what,
            length,
            depth: 1,
            repeat,
            valued,
        };
        match (self.kind, e.local_name().as_ref()) {
            (Kind::Xlsx, "sst") => {
                let count = attribute_number(e, "uniqueCount").unwrap_or(0);
                self.announced = self.announced.saturating_add(count);
                None
            }
            (Kind::Xlsx, "si") => Some(cell("a shared string".to_owned(), 0, 1, false)),
            (Kind::Xlsx, "c") => {
                let place = attribute(e, "r").unwrap_or_default();
                Some(cell(format!("the cell {place}"), 0, 1, false))
            }
            (Kind::Ods, "table") => {
                *table = Some(Table::default());
                None
            }
            (Kind::Ods, "table-row") => {
                if let Some(table) = table {
                    table.row_repeat = attribute_number(e, "table:number-rows-repeated")
                        .unwrap_or(1)
                        .clamp(1, ODS_MAX_ROWS);
                    table.columns = 0;
                    table.used_to = 0;
                }
                None
            }
            (Kind::Ods, "table-cell" | "covered-table-cell") => {
                let repeat = attribute_number(e, "table:number-columns-repeated")
                    .unwrap_or(1)
                    .clamp(1, ODS_MAX_COLUMNS);
                let string = attribute(e, "office:string-value").map_or(0, |v| v.len() as u64);
                let valued = e.attributes().flatten().any(|a| {
                    let key = a.key.as_ref();
                    key.starts_with("office:") && key.ends_with("value")
                        || key == "office:value-type"
                        || key == "table:formula"
                });
                if let Some(table) = table {
                    table.columns = table.columns.saturating_add(repeat).min(ODS_MAX_COLUMNS);
                }
                let what = if repeat > 1 {
                    format!("a cell repeated over {repeat} columns")
                } else {
                    "a cell".to_owned()
                };
                Some(cell(what, string, repeat, valued))
            }
            _ => None,
        }
    }
}

impl Table {
    /// A cell (of the current row) ends.
    fn cell(&mut self, cell: &Cell) {
        if cell.length > 0 || cell.valued {
            self.used_to = self.columns;
            self.row_text = self.row_text.saturating_add(
                cell.length
                    .saturating_mul(cell.repeat)
                    .saturating_mul(self.row_repeat),
            );
        }
    }

    /// The current row ends.
    fn end_row(&mut self) {
        self.rows = self.rows.saturating_add(self.row_repeat).min(ODS_MAX_ROWS);
        if self.used_to > 0 {
            self.rows_used = self.rows;
            self.width = self.width.max(self.used_to);
        }
    }
}

/// The value of attribute `name`, unescaped as far as it can be.
fn attribute(e: &BytesStart<'_>, name: &str) -> Option<String> {
    let value = e.try_get_attribute(name).ok()??;
    Some(value.value.into_owned())
}

/// The number attribute `name` holds; `None` when absent or not a number.
fn attribute_number(e: &BytesStart<'_>, name: &str) -> Option<u64> {
    attribute(e, name)?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A zip of `parts` (name, text), deflated.
    fn zip(parts: &[(&str, &str)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, text) in parts {
            zip.start_file(*name, options).unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    fn ods(table: &str) -> Vec<u8> {
        zip(&[(
            "content.xml",
            &format!(
                r#"<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="S">{table}</table:table></office:spreadsheet></office:body></office:document-content>"#
            ),
        )])
    }

    const BUDGET: Budget = Budget::new(1 << 30);

    #[test]
    fn ods_cells_repeated_across_columns_and_rows_count_as_expanded() {
        // 300 bytes of XML that calamine would expand into a billion cells
        let bomb = ods(
            r#"<table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="1000" office:value-type="string"><text:p>x</text:p></table:table-cell></table:table-row>"#,
        );
        let err = check(&bomb, "bomb.ods", Kind::Ods, BUDGET).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "bomb.ods: the workbook (338 B zipped), its cells repeated across columns \
                 and rows and its shared strings reserved, takes about 107.1 GiB of memory to \
                 read, more than the 1.0 GiB allowed"
            ),
            "{err}"
        );
        // the same shape at a sheet's size passes: 1,000 rows of 20 columns
        let fine = ods(
            r#"<table:table-row table:number-rows-repeated="1000"><table:table-cell table:number-columns-repeated="20" office:value-type="string"><text:p>a text</text:p></table:table-cell></table:table-row>"#,
        );
        check(&fine, "fine.ods", Kind::Ods, BUDGET).unwrap();
        // empty repeated cells cost nothing: calamine keeps no range for them
        let empty = ods(
            r#"<table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>"#,
        );
        check(&empty, "empty.ods", Kind::Ods, BUDGET).unwrap();
    }

    #[test]
    fn a_run_of_spaces_written_as_a_count_is_a_long_text() {
        let bomb = ods(
            r#"<table:table-row><table:table-cell office:value-type="string"><text:p>a<text:s text:c="2000000"/>b</text:p></table:table-cell></table:table-row>"#,
        );
        let err = check(&bomb, "spaces.ods", Kind::Ods, BUDGET).unwrap_err();
        assert_eq!(
            err.to_string(),
            "spaces.ods: a cell in content.xml holds more than 1.0 MiB of text; depot reads \
             up to that much in one cell (a spreadsheet holds at most 50,000 characters in one)"
        );
    }

    #[test]
    fn shared_strings_announced_by_the_billion_are_refused_and_long_cells_named() {
        let announced = zip(&[(
            "xl/sharedStrings.xml",
            r#"<sst xmlns="x" count="1" uniqueCount="4000000000"><si><t>a</t></si></sst>"#,
        )]);
        let err = check(&announced, "a.xlsx", Kind::Xlsx, BUDGET).unwrap_err();
        assert!(err.to_string().contains("takes about 89.4 GiB"), "{err}");
        let long = "y".repeat((1 << 20) + 1);
        let cell = zip(&[(
            "xl/worksheets/sheet1.xml",
            &format!(
                r#"<worksheet><sheetData><row><c r="C7" t="inlineStr"><is><t>{long}</t></is></c></row></sheetData></worksheet>"#
            ),
        )]);
        let err = check(&cell, "c.xlsx", Kind::Xlsx, BUDGET).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "c.xlsx: the cell C7 in xl/worksheets/sheet1.xml holds more than 1.0 MiB"
            ),
            "{err}"
        );
        // many runs of one shared string add up
        let runs = "<r><t>zzzzzzzzzz</t></r>".repeat(110_000);
        let rich = zip(&[(
            "xl/sharedStrings.xml",
            &format!(r#"<sst uniqueCount="1"><si>{runs}</si></sst>"#),
        )]);
        assert!(matches!(
            check(&rich, "r.xlsx", Kind::Xlsx, BUDGET),
            Err(Refused::TooLong { .. })
        ));
    }

    #[test]
    fn what_the_parts_declare_is_held_to_the_budget_before_inflating() {
        let big = format!("<a>{}</a>", "x".repeat(3 << 20));
        let parts = zip(&[("xl/worksheets/sheet1.xml", &big)]);
        // 3 MiB of XML at 4 bytes of memory a byte: within 16 MiB, not within 8 MiB
        let err = check(&parts, "p.xlsx", Kind::Xlsx, Budget::new(8 << 20)).unwrap_err();
        assert!(
            err.to_string()
                .contains("3.0 MiB of XML once inflated) takes about 12.0 MiB"),
            "{err}"
        );
        // (and its one text run is past the cell cap when there is room)
        assert!(matches!(
            check(&parts, "p.xlsx", Kind::Xlsx, Budget::new(16 << 20)),
            Err(Refused::TooLong { .. })
        ));
        // not a zip at all: calamine's to say
        check(b"not a zip", "n.xlsx", Kind::Xlsx, BUDGET).unwrap();
    }
}
