//! The memory that reading input files may take (`limits.input_memory_bytes`): an app's
//! translation files (`import`, `diff`) and local sheet files (`generate`, `serve`,
//! `produce`, `import --merge-into`, `diff`). What a file takes is estimated before it is
//! read, from its size and what its reader was measured to hold per byte of input (the
//! worst shape found, docs/design.md "Memory budget"); a file that does not fit is refused
//! with one line naming the file, the limit and how to raise it.

use std::io::Read;
use std::path::Path;

/// The configuration key, as messages name it.
pub const KEY: &str = "limits.input_memory_bytes";
/// Its default: 1 GiB. Enough for 50,000 keys × 20 locales in every format (a 222 MB
/// String Catalog being the largest single file), while an 86 MB json of 4 million keys
/// (2.1 GB when it was read) is refused before it is read.
pub const DEFAULT_BYTES: u64 = 1 << 30;

/// How much memory reading may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    bytes: u64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new(DEFAULT_BYTES)
    }
}

/// What is read, for its memory per byte of input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// An app's translation file, by its reader.
    App {
        /// The format's name, for messages.
        name: &'static str,
        /// Its reader's peak memory per byte (`formats::Descriptor`).
        per_byte: u64,
    },
    /// A `.csv` sheet.
    Csv,
    /// A Sheets API `values.get` document (`.json` sheet).
    ValuesJson,
    /// An `.xlsx` or `.ods` workbook as stored (zipped), held while it is read.
    Workbook,
    /// The inflated parts of an `.xlsx` or `.ods` workbook.
    WorkbookXml,
}

impl Input {
    /// Peak memory per byte of input, measured on the densest files of each kind (a
    /// million one-word keys: the most units per byte), release build, reading alone
    /// (measured as docs/design.md "Memory budget" describes). Rounded up.
    pub fn per_byte(self) -> u64 {
        match self {
            Input::App { per_byte, .. } => per_byte,
            Input::Csv => 6,
            Input::ValuesJson => 6,
            Input::Workbook => 1,
            Input::WorkbookXml => 4,
        }
    }

    /// How messages name what is read: `86.0 MiB of json`.
    fn describe(self, size: u64) -> String {
        let kind = match self {
            Input::App { name, .. } => name,
            Input::Csv => "csv",
            Input::ValuesJson => "sheet json",
            Input::Workbook => "workbook",
            Input::WorkbookXml => "workbook XML",
        };
        format!("{} of {kind}", human(size))
    }
}

impl Budget {
    pub const fn new(bytes: u64) -> Budget {
        Budget { bytes }
    }

    pub fn bytes(self) -> u64 {
        self.bytes
    }

    /// The most bytes of `input` that fit when nothing else is held.
    pub fn largest(self, input: Input) -> u64 {
        self.bytes / input.per_byte()
    }

    /// What reading `size` bytes of `input` takes.
    pub fn estimate(size: u64, input: Input) -> u64 {
        size.saturating_mul(input.per_byte())
    }

    /// Refuses `needs` bytes more when `held` are taken already; `what` says what needs
    /// them, for the message.
    pub fn admit(
        self,
        file: &str,
        what: impl FnOnce() -> String,
        held: u64,
        needs: u64,
    ) -> Result<(), OverBudget> {
        if held.saturating_add(needs) <= self.bytes {
            return Ok(());
        }
        Err(OverBudget {
            file: file.to_owned(),
            what: what(),
            needs: held.saturating_add(needs),
            at_least: false,
            budget: self.bytes,
        })
    }

    /// Refuses `size` bytes of `input` that would not fit beside `held`.
    pub fn admit_file(
        self,
        file: &str,
        size: u64,
        input: Input,
        held: u64,
    ) -> Result<(), OverBudget> {
        let needs = Budget::estimate(size, input);
        let what = || {
            let mut what = input.describe(size);
            if held > 0 {
                what.push_str(&format!(
                    ", beside the {} the files before it take,",
                    human(held)
                ));
            }
            what
        };
        self.admit(file, what, held, needs)
    }

    /// The whole file at `path` (`shown` in messages), refused unread when it does not
    /// fit the budget as `input` (nothing else held); read up to that size, so a file
    /// that grows meanwhile is refused too.
    pub fn read(self, path: &Path, shown: &str, input: Input) -> Result<Vec<u8>, ReadError> {
        let file = std::fs::File::open(path)?;
        let size = file.metadata()?.len();
        self.admit_file(shown, size, input, 0)?;
        let largest = self.largest(input);
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        file.take(largest.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > largest {
            return Err(self
                .admit_file(shown, bytes.len() as u64, input, 0)
                .err()
                .map_or_else(|| ReadError::Io(std::io::Error::other("grew")), Into::into));
        }
        Ok(bytes)
    }
}

/// A file that would take more memory than the budget allows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{file}: {what} takes {} ({KEY}); raise it with --max-memory SIZE (import, diff, \
     generate), --set {KEY}=BYTES or DEPOT_INPUT_MEMORY_BYTES",
    verdict(*needs, *at_least, *budget)
)]
pub struct OverBudget {
    pub file: String,
    pub what: String,
    pub needs: u64,
    /// Reading stopped at the budget: `needs` is a lower bound.
    pub at_least: bool,
    pub budget: u64,
}

/// `about 2.6 GiB of memory to read, more than the 1.0 GiB allowed`, or, when only a lower
/// bound is known, `more memory to read than the 1.0 GiB allowed`.
fn verdict(needs: u64, at_least: bool, budget: u64) -> String {
    if at_least {
        format!("more memory to read than the {} allowed", human(budget))
    } else {
        format!(
            "about {} of memory to read, more than the {} allowed",
            human(needs),
            human(budget)
        )
    }
}

/// A file not read: over the budget, or the system's error.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    OverBudget(#[from] OverBudget),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A size for people: bytes below 1 KiB, else KiB, MiB, GiB or TiB with one decimal
/// (`512 B`, `86.0 MiB`, `1.0 GiB`).
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A size as `--max-memory` takes it: bytes, or a number with K, M, G or T (powers of
/// 1024, an optional `iB` or `B` after it): `3G`, `512MiB`, `1073741824`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let digits = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(digits);
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => return Err(size_hint(text)),
    };
    let number: u64 = number.parse().map_err(|_| size_hint(text))?;
    number
        .checked_mul(1 << shift)
        .ok_or_else(|| size_hint(text))
}

fn size_hint(text: &str) -> String {
    format!("must be a size in bytes, or with K, M, G or T (3G, 512M); got '{text}'")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Format;

    #[test]
    fn sizes_read_and_print_in_powers_of_1024() {
        assert_eq!(parse_size("3G"), Ok(3 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1073741824"), Ok(1 << 30));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        for bad in ["", "G", "3X", "-1", "1.5G", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(human(512), "512 B");
        assert_eq!(human(86 << 20), "86.0 MiB");
        assert_eq!(human(1 << 30), "1.0 GiB");
    }

    #[test]
    fn a_file_that_does_not_fit_is_refused_naming_it_the_limit_and_the_way_to_raise_it() {
        let budget = Budget::new(1 << 30);
        let json = Format::Json.input();
        assert!(budget.admit_file("a.json", 4 << 20, json, 0).is_ok());
        let err = budget
            .admit_file("big.json", 86 << 20, json, 0)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "big.json: 86.0 MiB of json takes about 2.7 GiB of memory to read, more than \
             the 1.0 GiB allowed (limits.input_memory_bytes); raise it with --max-memory \
             SIZE (import, diff, generate), --set limits.input_memory_bytes=BYTES or \
             DEPOT_INPUT_MEMORY_BYTES"
        );
        let err = budget
            .admit_file("b.json", 30 << 20, json, 400 << 20)
            .unwrap_err();
        assert!(
            err.what
                .ends_with(", beside the 400.0 MiB the files before it take,"),
            "{err}"
        );
    }

    #[test]
    fn a_file_is_read_only_up_to_what_fits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.csv");
        std::fs::write(&path, vec![b'x'; 600]).unwrap();
        let budget = Budget::new(6 * 600);
        assert_eq!(budget.read(&path, "f.csv", Input::Csv).unwrap().len(), 600);
        let err = Budget::new(6 * 599)
            .read(&path, "f.csv", Input::Csv)
            .unwrap_err();
        assert!(matches!(err, ReadError::OverBudget(_)), "{err}");
    }
}
