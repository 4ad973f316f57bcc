//! `.xlsx` file bytes (the zip as a whole) → `read_grid` → `convert` → every format.
//! Mutated zips mostly fail their CRC checks: `sheet_xlsx_xml` fuzzes the XML inside.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    depot_fuzz::read_convert_render(data, "xlsx", None);
});
