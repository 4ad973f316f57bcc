//! `.xlsx` through rust_xlsxwriter: one worksheet, every non-empty cell a string (never a
//! number or formula, whatever it looks like).

use rust_xlsxwriter::Workbook;

use super::{SHEET_NAME, WriteError};

pub(super) fn encode(rows: &[Vec<String>]) -> Result<Vec<u8>, WriteError> {
    let failed = |e: rust_xlsxwriter::XlsxError| WriteError::Encode {
        kind: "xlsx",
        reason: e.to_string(),
    };
    let mut workbook = Workbook::new();
    let sheet = workbook.add_worksheet();
    sheet.set_name(SHEET_NAME).map_err(failed)?;
    for (r, row) in rows.iter().enumerate() {
        // checked against Excel's limits before (`super::check`)
        let r = u32::try_from(r)
            .map_err(|_| failed(rust_xlsxwriter::XlsxError::RowColumnLimitError))?;
        for (c, cell) in row.iter().enumerate() {
            if cell.is_empty() {
                continue;
            }
            let c = u16::try_from(c)
                .map_err(|_| failed(rust_xlsxwriter::XlsxError::RowColumnLimitError))?;
            sheet.write_string(r, c, cell).map_err(failed)?;
        }
    }
    workbook.save_to_buffer().map_err(failed)
}
