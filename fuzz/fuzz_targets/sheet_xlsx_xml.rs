//! The XML members of an `.xlsx` workbook, zipped with valid checksums around the rest of
//! tests/fixtures/sheets/types.xlsx, → `read_grid` → `convert` → every format.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let workbook = depot_fuzz::workbook::build(depot_fuzz::workbook::Kind::Xlsx, data);
    depot_fuzz::read_convert_render(&workbook, "xlsx", None);
});
