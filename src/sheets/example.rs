//! The example sheet shipped in `examples/translations.csv`, built into the binary so that a
//! first `depot serve` in any folder shows translations at once (SPEC §10 "First run").

use super::{FetchResult, Fetched, SheetSource, SourceError};
use std::future::Future;
use std::pin::Pin;

/// The text of `examples/translations.csv`, as built.
pub const EXAMPLE_CSV: &str = include_str!("../../examples/translations.csv");

/// What the logs, `/health` and the console call it.
pub const EXAMPLE_NAME: &str = "the example sheet built into depot (examples/translations.csv)";

/// Reads `EXAMPLE_CSV`; never touches the disk or the network.
pub struct ExampleSheet;

impl SheetSource for ExampleSheet {
    fn describe(&self) -> String {
        EXAMPLE_NAME.to_owned()
    }

    fn fetch(&self) -> Pin<Box<dyn Future<Output = FetchResult> + Send + '_>> {
        Box::pin(async {
            super::local::csv_bytes_grid(EXAMPLE_CSV.as_bytes(), "examples/translations.csv")
                .map(Fetched::Grid)
                .map_err(SourceError::from)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_example_converts_to_translations() {
        let grid = super::super::local::csv_bytes_grid(EXAMPLE_CSV.as_bytes(), "example").unwrap();
        let document = crate::producer::convert(grid).unwrap();
        assert_eq!(document.locales, ["en_US", "pl_PL", "de_DE"]);
        assert!(document.entries.len() >= 5, "{:?}", document.entries);
    }
}
