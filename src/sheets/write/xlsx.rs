//! `.xlsx` through rust_xlsxwriter: a worksheet per tab, every non-empty cell a string
//! (never a number or formula, whatever it looks like).

use rust_xlsxwriter::Workbook;

use super::WriteError;

/// The workbook of `sheets` (name, rows), in order.
pub(super) fn encode(sheets: &[(&str, &[Vec<String>])]) -> Result<Vec<u8>, WriteError> {
    let failed = |e: rust_xlsxwriter::XlsxError| WriteError::Encode {
        kind: "xlsx",
        reason: e.to_string(),
    };
    let mut workbook = Workbook::new();
    for (name, rows) in sheets {
        let sheet = workbook.add_worksheet();
        sheet.set_name(*name).map_err(failed)?;
        fill(sheet, rows).map_err(failed)?;
    }
    workbook.save_to_buffer().map_err(failed)
}

fn fill(
    sheet: &mut rust_xlsxwriter::Worksheet,
    rows: &[Vec<String>],
) -> Result<(), rust_xlsxwriter::XlsxError> {
    for (r, row) in rows.iter().enumerate() {
        // checked against Excel's limits before (`super::check`)
        let r = u32::try_from(r).map_err(|_| rust_xlsxwriter::XlsxError::RowColumnLimitError)?;
        for (c, cell) in row.iter().enumerate() {
            if cell.is_empty() {
                continue;
            }
            let c =
                u16::try_from(c).map_err(|_| rust_xlsxwriter::XlsxError::RowColumnLimitError)?;
            sheet.write_string(r, c, cell)?;
        }
    }
    Ok(())
}
