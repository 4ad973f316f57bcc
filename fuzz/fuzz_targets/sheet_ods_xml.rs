//! The XML members of an `.ods` workbook, zipped with valid checksums around the rest of
//! tests/fixtures/sheets/types.ods, → `read_grid` → `convert` → every format.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let workbook = depot_fuzz::workbook::build(depot_fuzz::workbook::Kind::Ods, data);
    depot_fuzz::read_convert_render(&workbook, "ods", None);
});
