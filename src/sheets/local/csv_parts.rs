//! A large `.csv` file read in parts, one per core: each part starts after a line break that
//! quote parity says lies outside quotes, and is parsed and made into cells by a thread of
//! its own. One pass (`csv_text`) is both a parse and a cell copy per record, on two threads
//! at most; in parts every core does both for its own stretch of the file.
//!
//! The rows are exactly those of one pass: a part's start is taken only when the part
//! before it ends outside a quoted cell (a stray `"` inside an unquoted cell breaks parity,
//! as the csv crate reads it as text), and anything unusual (not plain UTF-8, a parse
//! error, a text that is not UTF-8, an unterminated quote) leaves the file to one pass,
//! which says what is wrong exactly as it always did.

use std::io::Read;

use super::{csv_reader, settle_position, unterminated_quote, utf8_cells};
use crate::sheets::csv_dialect::{self, Start};

/// A part is at least this long: a thread for less costs more than it saves.
const PART_BYTES: u64 = 2 << 20;

/// Input read at any offset, from several threads at once.
pub(super) trait Source: Sync {
    /// Reads into `buf` from byte `offset`; 0 at the end.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize>;
}

#[cfg(unix)]
impl Source for std::fs::File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(self, buf, offset)
    }
}

impl Source for [u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let start = usize::try_from(offset).map_or(self.len(), |o| o.min(self.len()));
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

/// The bytes of `source` from `at` up to `end`, as a reader.
struct Stretch<'s, S: ?Sized> {
    source: &'s S,
    at: u64,
    end: u64,
}

impl<S: Source + ?Sized> Read for Stretch<'_, S> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = usize::try_from(self.end.saturating_sub(self.at)).unwrap_or(usize::MAX);
        let n = buf.len().min(left);
        if n == 0 {
            return Ok(0);
        }
        let n = self.source.read_at(&mut buf[..n], self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// The rows of a CSV text read in parts.
#[derive(Debug)]
pub(super) struct Parsed {
    pub rows: Vec<Vec<String>>,
    /// The reading stopped at `limit`: the text is longer than the budget allows.
    pub at_limit: bool,
}

/// The rows of the CSV text in `source` (`size` bytes long when looked at, read no
/// further than `limit`) read in up to `threads` parts, each on a thread of its own; `None`
/// when it is to be read in one pass: too short to split, not plain UTF-8 (the one pass
/// decodes or refuses it), or a part that does not end where the next one starts, or
/// anything one pass would report.
pub(super) fn rows<S: Source + ?Sized>(
    source: &S,
    size: u64,
    limit: u64,
    threads: usize,
) -> Option<Parsed> {
    in_parts(source, size, limit, threads, PART_BYTES)
}

/// `rows` with parts of at least `part_bytes` (the tests split small texts).
fn in_parts<S: Source + ?Sized>(
    source: &S,
    size: u64,
    limit: u64,
    threads: usize,
    part_bytes: u64,
) -> Option<Parsed> {
    let size = size.min(limit);
    // The same first bytes one pass looks at: the byte-order mark, the separator.
    let mut head = vec![0u8; 1 << 16];
    let read = fill(source, &mut head, 0).ok()?;
    head.truncate(read);
    let Start::Utf8(bom) = csv_dialect::start(&head) else {
        return None;
    };
    let separator = csv_dialect::separator(&head[bom..]);
    let bom = bom as u64;
    let parts = usize::try_from(size.saturating_sub(bom) / part_bytes.max(1))
        .unwrap_or(usize::MAX)
        .min(threads);
    if parts < 2 {
        return None;
    }
    let starts = part_starts(source, bom, size, parts).ok()?;
    if starts.len() < 2 {
        return None;
    }
    let ends: Vec<u64> = starts[1..].iter().copied().chain([limit]).collect();
    let stretch = |k: usize| Stretch {
        source,
        at: starts[k],
        end: ends[k],
    };
    let parsed: Vec<Option<Part>> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..starts.len())
            .map(|k| {
                let part = stretch(k);
                scope.spawn(move || parse_part(part, separator))
            })
            .collect();
        let mut all = vec![parse_part(stretch(0), separator)];
        // a part that panicked is read again in one pass, which fails the same way
        all.extend(others.into_iter().map(|t| t.join().ok().flatten()));
        all
    });
    let mut rows = Vec::new();
    let mut at_limit = false;
    for part in parsed {
        // every part ends outside quotes, else the next one started inside a cell (or
        // the last record is unterminated, which one pass reports)
        let part = part.filter(|p| p.ends_outside_quotes)?;
        rows.extend(part.rows);
        at_limit = part.at_end;
    }
    Some(Parsed { rows, at_limit })
}

/// Reads `buf` full from `offset`, or up to the end; how many bytes it read.
fn fill<S: Source + ?Sized>(source: &S, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut read = 0;
    while read < buf.len() {
        match source.read_at(&mut buf[read..], offset + read as u64) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(read)
}

/// Where each of up to `parts` parts of the text in `from..size` starts: `from`, then for
/// each even share of the text, just after the first line break past it that follows an
/// even number of quotes (`""` inside a quoted cell keeps the count even). A share whose
/// break lies beyond the next share's target is left out.
fn part_starts<S: Source + ?Sized>(
    source: &S,
    from: u64,
    size: u64,
    parts: usize,
) -> std::io::Result<Vec<u64>> {
    let share = (size - from) / parts as u64;
    let target = |k: usize| from + k as u64 * share;
    let mut starts = vec![from];
    let mut buf = vec![0u8; 1 << 18];
    let mut at = from;
    let mut odd = false;
    // the share whose start is looked for
    let mut k = 1;
    while k < parts {
        let n = fill(source, &mut buf, at)?;
        let chunk = &buf[..n];
        let mut i = 0;
        while i < n && k < parts {
            let here = at + i as u64;
            if here < target(k) {
                // Before the target, quotes are only counted (eight bytes at a time).
                let before = usize::try_from(target(k) - here).map_or(n, |b| (i + b).min(n));
                let quotes = chunk[i..before].iter().filter(|&&b| b == b'"').count();
                odd ^= quotes % 2 == 1;
                i = before;
                continue;
            }
            // Past it, the first line break at even parity.
            let b = chunk[i];
            i += 1;
            if b == b'"' {
                odd = !odd;
            } else if b == b'\n' && !odd {
                let start = here + 1;
                if start >= size {
                    return Ok(starts);
                }
                starts.push(start);
                // a share whose target this break passed is left out
                while k < parts && target(k) < start {
                    k += 1;
                }
            }
        }
        if n == 0 {
            break;
        }
        at += n as u64;
    }
    Ok(starts)
}

/// What one part read: its rows, whether its last record ends outside quotes, and
/// whether it read up to the end it was given.
struct Part {
    rows: Vec<Vec<String>>,
    ends_outside_quotes: bool,
    at_end: bool,
}

/// One part's rows, made as one pass makes them (`csv_text`); `None` on anything one
/// pass would report (a parse error, a text that is not UTF-8).
fn parse_part<S: Source + ?Sized>(input: Stretch<'_, S>, separator: u8) -> Option<Part> {
    let mut reader = csv_reader(std::io::BufReader::with_capacity(1 << 16, input), separator);
    let mut rows = Vec::new();
    let mut record = csv::ByteRecord::new();
    let mut last_start = csv::Position::new();
    while reader.read_byte_record(&mut record).ok()? {
        if let Some(start) = settle_position(&mut reader, &mut record) {
            last_start = start;
        }
        rows.push(utf8_cells(&record)?);
    }
    let tail = reader.get_ref().since(last_start.byte());
    let ends_outside_quotes = unterminated_quote(tail, separator).is_none();
    let stretch = reader.into_inner().inner.into_inner();
    Some(Part {
        rows,
        ends_outside_quotes,
        at_end: stretch.at >= stretch.end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What one pass reads from `bytes`.
    fn one_pass(bytes: &[u8]) -> Result<Vec<Vec<String>>, String> {
        super::super::csv_grid(bytes, "t.csv", None).map_err(|e| e.to_string())
    }

    /// A sheet as `benches/generate.sh` writes it, with a cell on two lines every so often
    /// and CRLF line ends when `crlf`.
    fn sheet(keys: usize, crlf: bool) -> Vec<u8> {
        let end = if crlf { "\r\n" } else { "\n" };
        let mut text = format!("\u{feff}###,>>>,>>>,en_US,pl_PL{end}");
        for k in 0..keys {
            let second = match k % 7 {
                0 => format!("\"two{end}lines, \"\"quoted\"\"\""),
                _ => format!("\"pl {k} with \"\"quotes\"\" & <b>tags</b>\""),
            };
            text.push_str(&format!(",,KEY{k},en {k},{second}{end}"));
        }
        text.into_bytes()
    }

    #[test]
    fn parts_give_exactly_the_rows_of_one_pass() {
        for crlf in [false, true] {
            let bytes = sheet(2_000, crlf);
            let expected = one_pass(&bytes).unwrap();
            for parts in 2..6 {
                let starts = part_starts(&bytes[..], 3, bytes.len() as u64, parts).unwrap();
                assert_eq!(starts.len(), parts, "every share found its start");
                let parsed = in_parts(&bytes[..], bytes.len() as u64, u64::MAX, parts, 1024)
                    .expect("read in parts");
                assert_eq!(parsed.rows, expected, "{parts} parts, crlf {crlf}");
                assert!(!parsed.at_limit);
            }
        }
    }

    #[test]
    fn a_start_that_parity_misplaces_leaves_the_file_to_one_pass() {
        // The stray quote in `5" screen` is text to the csv crate; after it, parity takes
        // the line break inside the quoted cell below for one between records.
        let mut bytes = b"###,>>>,en_US\n,SIZE,5\" screen\n".to_vec();
        for k in 0..200 {
            bytes.extend_from_slice(format!(",K{k},\"one\ntwo\"\n").as_bytes());
        }
        let size = bytes.len() as u64;
        let starts = part_starts(&bytes[..], 0, size, 2).unwrap();
        assert_eq!(starts.len(), 2);
        let one = one_pass(&bytes).unwrap();
        let inside = one.iter().flatten().any(|cell| cell.contains('\n'));
        assert!(inside, "the sheet has cells on two lines: {one:?}");
        assert!(in_parts(&bytes[..], size, u64::MAX, 2, 16).is_none());
    }

    #[test]
    fn what_one_pass_reports_is_left_to_it() {
        let mut bytes = sheet(500, false);
        // a text that is not UTF-8 in the second half
        let at = bytes.len() - 100;
        bytes[at] = 0xFF;
        assert!(one_pass(&bytes).is_err());
        assert!(in_parts(&bytes[..], bytes.len() as u64, u64::MAX, 2, 1024).is_none());
        // an unterminated quote at the end
        let mut bytes = sheet(500, false);
        bytes.extend_from_slice(b",,LAST,\"open\n");
        assert!(one_pass(&bytes).is_err());
        assert!(in_parts(&bytes[..], bytes.len() as u64, u64::MAX, 2, 1024).is_none());
        // UTF-16 is decoded by one pass
        let mut bytes = b"\xFF\xFE".to_vec();
        bytes.extend(sheet(500, false).iter().flat_map(|&b| [b, 0]));
        assert!(in_parts(&bytes[..], bytes.len() as u64, u64::MAX, 2, 1024).is_none());
    }

    #[test]
    fn reading_stops_at_the_limit_and_says_so() {
        let bytes = sheet(1_000, false);
        let size = bytes.len() as u64;
        // cut after a record: one pass refuses the file as over the budget
        let cut = bytes[..bytes.len() - 10]
            .iter()
            .rposition(|&b| b == b'\n')
            .unwrap()
            + 1;
        let cut = in_parts(&bytes[..], size, cut as u64, 2, 1024).map(|p| p.at_limit);
        assert_eq!(cut, Some(true));
        let whole = in_parts(&bytes[..], size, size + 1, 2, 1024).map(|p| p.at_limit);
        assert_eq!(whole, Some(false));
    }

    proptest! {
        #[test]
        fn any_text_read_in_parts_gives_the_rows_of_one_pass(
            lines in proptest::collection::vec("[a\",;\r\n\u{e9}]{0,12}", 1..40),
            parts in 2usize..5,
            part_bytes in 1u64..40,
        ) {
            let bytes = lines.concat().into_bytes();
            let size = bytes.len() as u64;
            if let Some(parsed) = in_parts(&bytes[..], size, u64::MAX, parts, part_bytes) {
                prop_assert_eq!(Ok(parsed.rows), one_pass(&bytes));
            }
        }

        #[test]
        fn written_sheets_read_in_parts_give_the_rows_of_one_pass(
            grid in proptest::collection::vec(
                proptest::collection::vec("[a-z\",\r\n ]{0,6}", 1..4), 1..30),
            parts in 2usize..5,
        ) {
            let mut writer = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
            for row in &grid {
                writer.write_record(row).unwrap();
            }
            let bytes = writer.into_inner().unwrap();
            let size = bytes.len() as u64;
            let parsed = in_parts(&bytes[..], size, u64::MAX, parts, 1);
            // written by a CSV writer, quotes are paired: every start parity finds is one
            let starts = part_starts(&bytes[..], 0, size, parts.min(bytes.len())).unwrap();
            prop_assert_eq!(parsed.is_some(), starts.len() > 1);
            if let Some(parsed) = parsed {
                prop_assert_eq!(Ok(parsed.rows), one_pass(&bytes));
            }
        }
    }
}
