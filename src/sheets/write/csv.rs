//! `.csv`: RFC 4180 through the csv crate (cells quoted when they need it), UTF-8 without a
//! byte-order mark; every row as long as the longest, so that spreadsheet applications
//! open a rectangle.

use super::WriteError;

pub(super) fn encode(rows: &[Vec<String>]) -> Result<Vec<u8>, WriteError> {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut writer = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::with_capacity(
            rows.iter().flatten().map(|c| c.len() + 1).sum(),
        ));
    let empty = String::new();
    for row in rows {
        let cells = row
            .iter()
            .chain(std::iter::repeat_n(&empty, width - row.len()));
        writer.write_record(cells).map_err(|e| WriteError::Encode {
            kind: "csv",
            reason: e.to_string(),
        })?;
    }
    writer.into_inner().map_err(|e| WriteError::Encode {
        kind: "csv",
        reason: e.to_string(),
    })
}
