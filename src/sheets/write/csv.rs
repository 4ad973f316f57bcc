//! `.csv`: RFC 4180 as the csv crate writes it (a cell quoted when it holds `"`, `,`, a
//! line feed or a carriage return, its quotes doubled; the one empty cell of a row of one
//! column quoted), UTF-8 without a byte-order mark; every row as long as the longest, so
//! that spreadsheet applications open a rectangle. Written here rather than through the
//! csv crate, which looks at every byte of every cell: most cells need no quoting, and
//! those that do are copied a run at a time (`import` writes a million cells).

use super::WriteError;

pub(super) fn encode(rows: &[Vec<String>]) -> Result<Vec<u8>, WriteError> {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let size: usize = rows.iter().flatten().map(|c| c.len() + 3).sum();
    let mut out = Vec::with_capacity(size + rows.len() * width);
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            push_cell(&mut out, cell.as_bytes());
        }
        if row.len() < width {
            out.extend(std::iter::repeat_n(
                b',',
                width - row.len() - usize::from(row.is_empty()),
            ));
        }
        if width <= 1 && row.first().is_none_or(String::is_empty) {
            // a lone empty cell would read as an empty line
            out.extend_from_slice(b"\"\"");
        }
        out.push(b'\n');
    }
    Ok(out)
}

fn push_cell(out: &mut Vec<u8>, cell: &[u8]) {
    let special =
        memchr::memchr3(b'"', b',', b'\n', cell).is_some() || memchr::memchr(b'\r', cell).is_some();
    if !special {
        out.extend_from_slice(cell);
        return;
    }
    out.push(b'"');
    let mut rest = cell;
    while let Some(at) = memchr::memchr(b'"', rest) {
        // the quote is written twice: once with the run before it, once alone
        out.extend_from_slice(&rest[..=at]);
        out.push(b'"');
        rest = &rest[at + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the csv crate writes of the grid, padded as `encode` pads it.
    fn csv_crate(rows: &[Vec<String>]) -> Vec<u8> {
        let width = rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut writer = csv::WriterBuilder::new()
            .flexible(true)
            .from_writer(Vec::new());
        let empty = String::new();
        for row in rows {
            let cells = row
                .iter()
                .chain(std::iter::repeat_n(&empty, width - row.len()));
            writer.write_record(cells).unwrap();
        }
        writer.into_inner().unwrap()
    }

    proptest! {
        #[test]
        fn encodes_as_the_csv_crate_does(
            rows in proptest::collection::vec(
                proptest::collection::vec("[a\",\n\r é]{0,4}", 0..4),
                0..6,
            )
        ) {
            prop_assert_eq!(encode(&rows).unwrap(), csv_crate(&rows));
        }
    }

    #[test]
    fn lone_empty_cells_and_short_rows() {
        let rows = |r: &[&[&str]]| -> Vec<Vec<String>> {
            r.iter()
                .map(|c| c.iter().map(|s| s.to_string()).collect())
                .collect()
        };
        for grid in [
            rows(&[&[""], &["a"], &[]]),
            rows(&[&["a", "b"], &[], &["x"]]),
            rows(&[&["\"q\"", "a,b", "l\nf", "c\rr"]]),
        ] {
            assert_eq!(encode(&grid).unwrap(), csv_crate(&grid), "{grid:?}");
        }
    }
}
