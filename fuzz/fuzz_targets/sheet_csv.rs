//! `.csv` sheet bytes → `read_grid` → `convert` → every format, read back.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    depot_fuzz::read_convert_render(data, "csv", None);
});
