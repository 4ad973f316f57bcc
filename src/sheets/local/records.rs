//! The records of CSV text, read as the csv crate reads them for `local` (RFC 4180 quotes,
//! `""` for a quote in a quoted cell, records ending at `\n`, `\r` or `\r\n`, blank lines
//! skipped, rows of any length), but a run of a cell's bytes at a time, found by a vector
//! search: the crate's automaton took a dozen instructions a byte, a third of a large
//! sheet's read.

use std::io::BufRead;

/// One record: its cells' bytes end to end, where each ends, and its line.
#[derive(Debug, Default)]
pub struct Record {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    line: u64,
}

impl Record {
    /// The cells' bytes end to end (`cells` splits them).
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes
    }

    /// Each cell's end in `as_slice`, in order: a cell ends where the next starts.
    pub fn ends(&self) -> &[usize] {
        &self.ends
    }

    /// The line it is on, as the reader before this one named it in errors: where the read
    /// of the record began (after the record before it), a line further when that was
    /// the `\n` of a line break (the `\n` of the record before's `\r\n`, a blank line).
    pub fn line(&self) -> u64 {
        self.line
    }

    #[cfg(test)]
    pub fn cells(&self) -> Vec<&[u8]> {
        let mut start = 0;
        (self.ends.iter())
            .map(|&end| {
                let cell = &self.bytes[start..end];
                start = end;
                cell
            })
            .collect()
    }
}

/// Where the reader is inside a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before a record: line breaks are skipped.
    StartRecord,
    /// At the start of a cell: a `"` opens a quoted one.
    StartField,
    /// In a cell that is not quoted (or no longer: `"a"b` is `ab`).
    InField,
    InQuoted,
    /// Just after a `"` in a quoted cell: a second one is a quote, else the quotes closed.
    AfterQuote,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The records of CSV text separated by `separator`.
pub struct Records<R> {
    input: R,
    separator: u8,
    /// The line the reader is on (1 + the `\n` read).
    line: u64,
    /// Whether a read began: a UTF-8 byte-order mark is skipped at the start only.
    started: bool,
    /// The end of the input was met.
    done: bool,
    /// The line of the `"` that opened the quoted cell read last.
    quote_line: u64,
    /// The line of the `"` of a quoted cell the input ended in, once it did.
    unterminated: Option<u64>,
}

impl<R: BufRead> Records<R> {
    pub fn new(input: R, separator: u8) -> Records<R> {
        Records {
            input,
            separator,
            line: 1,
            started: false,
            done: false,
            quote_line: 0,
            unterminated: None,
        }
    }

    /// The next record into `record` (its buffers reused); false at the end of the input.
    /// A quoted cell the input ends in ends there (`unterminated_quote` says where it
    /// opened).
    pub fn read(&mut self, record: &mut Record) -> std::io::Result<bool> {
        record.bytes.clear();
        record.ends.clear();
        record.line = self.line;
        if self.done {
            return Ok(false);
        }
        let mut state = State::StartRecord;
        let mut first = true;
        loop {
            let buffer = self.input.fill_buf()?;
            if !self.started {
                self.started = true;
                // as the csv crate does, seen whole in the first buffer only
                if buffer.starts_with(BOM) {
                    first = false;
                    self.input.consume(BOM.len());
                    continue;
                }
            }
            if buffer.is_empty() {
                self.done = true;
                return Ok(match state {
                    State::StartRecord => false,
                    State::InQuoted => {
                        self.unterminated = Some(self.quote_line);
                        record.ends.push(record.bytes.len());
                        true
                    }
                    _ => {
                        record.ends.push(record.bytes.len());
                        true
                    }
                });
            }
            if first {
                first = false;
                if buffer[0] == b'\n' {
                    record.line += 1;
                }
            }
            let lines = Lines {
                line: &mut self.line,
                quote_line: &mut self.quote_line,
            };
            let (used, ended) = step(buffer, self.separator, &mut state, record, lines);
            self.input.consume(used);
            if ended {
                return Ok(true);
            }
        }
    }

    /// Where the quoted cell the input ended in opened, if it ended in one (the csv
    /// crate ends such a cell without a word, BurntSushi/rust-csv#252).
    pub fn unterminated_quote(&self) -> Option<u64> {
        self.unterminated
    }
}

/// Where a read is: the lines met, the line of the last opening quote.
struct Lines<'a> {
    line: &'a mut u64,
    quote_line: &'a mut u64,
}

/// Reads what `buffer` holds of `record` (in `state`, cells separated by `separator`):
/// how many bytes it took, and whether the record ended. A record ends after its line
/// break's first byte (the `\n` after a `\r` is skipped as the next record starts, as the
/// csv crate does).
fn step(
    buffer: &[u8],
    separator: u8,
    state: &mut State,
    record: &mut Record,
    lines: Lines<'_>,
) -> (usize, bool) {
    let Record { bytes, ends, .. } = record;
    let mut i = 0;
    while let Some(&b) = buffer.get(i) {
        match *state {
            State::StartRecord => match b {
                b'\n' => {
                    *lines.line += 1;
                    i += 1;
                }
                b'\r' => i += 1,
                _ => *state = State::StartField,
            },
            State::StartField | State::AfterQuote => {
                if b == b'"' {
                    if *state == State::AfterQuote {
                        bytes.push(b'"');
                    } else {
                        *lines.quote_line = *lines.line;
                    }
                    *state = State::InQuoted;
                    i += 1;
                } else if b == separator {
                    ends.push(bytes.len());
                    *state = State::StartField;
                    i += 1;
                } else if b == b'\n' || b == b'\r' {
                    ends.push(bytes.len());
                    *lines.line += u64::from(b == b'\n');
                    return (i + 1, true);
                } else {
                    *state = State::InField;
                }
            }
            State::InField => {
                let rest = &buffer[i..];
                let Some(n) = memchr::memchr3(separator, b'\n', b'\r', rest) else {
                    bytes.extend_from_slice(rest);
                    return (buffer.len(), false);
                };
                bytes.extend_from_slice(&rest[..n]);
                ends.push(bytes.len());
                i += n + 1;
                if rest[n] == separator {
                    *state = State::StartField;
                } else {
                    *lines.line += u64::from(rest[n] == b'\n');
                    return (i, true);
                }
            }
            State::InQuoted => {
                let rest = &buffer[i..];
                let Some(n) = memchr::memchr2(b'"', b'\n', rest) else {
                    bytes.extend_from_slice(rest);
                    return (buffer.len(), false);
                };
                bytes.extend_from_slice(&rest[..n]);
                i += n + 1;
                if rest[n] == b'\n' {
                    bytes.push(b'\n');
                    *lines.line += 1;
                } else {
                    *state = State::AfterQuote;
                }
            }
        }
    }
    (i, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the csv crate, set up as `local` had it, reads: each record's cells and line
    /// (as `Record::line`), and the line of an unterminated quote.
    type Read = (Vec<(Vec<Vec<u8>>, u64)>, Option<u64>);

    fn by_the_csv_crate(text: &[u8], separator: u8) -> Read {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(separator)
            .from_reader(text);
        let mut records = Vec::new();
        let mut record = csv::ByteRecord::new();
        let mut last_start = None;
        while reader.read_byte_record(&mut record).unwrap() {
            let position = record.position().unwrap().clone();
            let mut line = position.line();
            if text.get(position.byte() as usize) == Some(&b'\n') {
                line += 1;
            }
            records.push((record.iter().map(<[u8]>::to_vec).collect(), line));
            last_start = Some(position);
        }
        let unterminated = last_start.and_then(|start| {
            let tail = &text[start.byte() as usize..];
            old_unterminated_quote(tail, separator).map(|newlines| start.line() + newlines)
        });
        (records, unterminated)
    }

    /// The check `local` made of the last record's bytes with the csv crate.
    fn old_unterminated_quote(record: &[u8], separator: u8) -> Option<u64> {
        let mut opened_after = None;
        let mut newlines = 0;
        let mut at_cell_start = true;
        let mut bytes = record.iter().peekable();
        while let Some(&b) = bytes.next() {
            if opened_after.is_some() {
                if b == b'"' {
                    if bytes.peek() == Some(&&b'"') {
                        bytes.next();
                    } else {
                        opened_after = None;
                    }
                }
            } else if at_cell_start && b == b'"' {
                opened_after = Some(newlines);
            }
            at_cell_start =
                opened_after.is_none() && (b == separator || matches!(b, b'\n' | b'\r'));
            if b == b'\n' {
                newlines += 1;
            }
        }
        opened_after
    }

    fn by_records(text: &[u8], separator: u8, buffer: usize) -> Read {
        let mut records = Records::new(std::io::BufReader::with_capacity(buffer, text), separator);
        let mut read = Vec::new();
        let mut record = Record::default();
        while records.read(&mut record).unwrap() {
            let cells = record.cells().into_iter().map(<[u8]>::to_vec).collect();
            read.push((cells, record.line()));
        }
        (read, records.unterminated_quote())
    }

    #[test]
    fn records_are_read_as_the_csv_crate_reads_them() {
        let texts: [&[u8]; 12] = [
            b"",
            b"\n\r\n",
            b"a,b\nc",
            b"a,\"b\"\"c\",\"d\ne\"\r\nf,\r\n\n,g\n",
            b"\"a\"b,c\"d\n\"open",
            b"\xEF\xBB\xBF\xEF\xBB\xBFa,b",
            b"\xEF\xBB\xBFa",
            b"a\r\r\n\nb",
            b"\"\"\"\",\"",
            b"k,\"x\" y,\"\"\n",
            b"\"a\nb\",\"c\nd,e",
            b",,\n,",
        ];
        for text in texts {
            for buffer in [3, 4, 64] {
                assert_eq!(
                    by_records(text, b',', buffer),
                    by_the_csv_crate(text, b','),
                    "{:?} read {buffer} bytes at a time",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }

    proptest! {
        /// Any bytes made mostly of what CSV gives a meaning to read to the csv crate's
        /// records, lines and unterminated quote, whatever the buffer's size.
        #[test]
        fn any_text_reads_as_the_csv_crate_reads_it(
            text in proptest::collection::vec(
                prop_oneof![
                    Just(b'"'), Just(b','), Just(b';'), Just(b'\n'), Just(b'\r'),
                    Just(b'a'), Just(b' '), Just(0xEF), Just(0xBB), Just(0xBF), any::<u8>(),
                ],
                0..60,
            ),
            semicolon in any::<bool>(),
            buffer in 3usize..9,
        ) {
            let separator = if semicolon { b';' } else { b',' };
            prop_assert_eq!(by_records(&text, separator, buffer), by_the_csv_crate(&text, separator));
        }
    }
}
