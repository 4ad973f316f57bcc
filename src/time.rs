//! Timestamps as the API writes them: ISO 8601 UTC with milliseconds and `Z`.

use chrono::{DateTime, SecondsFormat, Utc};

pub fn iso_millis(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn millis_and_z() {
        let t = Utc.with_ymd_and_hms(2026, 11, 21, 9, 5, 3).unwrap()
            + chrono::Duration::milliseconds(120);
        assert_eq!(iso_millis(t), "2026-11-21T09:05:03.120Z");
    }
}
