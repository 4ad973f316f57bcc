//! Where spreadsheets come from. Every source yields the same value grid: rows of cell
//! texts as displayed, trailing empty cells dropped, as the Sheets API `values.get` returns.

pub mod local;

/// Drops trailing empty cells of each row and trailing empty rows' cells, as the Sheets
/// API does, so every source gives the same grid for the same sheet.
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
