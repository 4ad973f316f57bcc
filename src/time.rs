//! Timestamps as the API writes them: ISO 8601 UTC with milliseconds and `Z`.

use chrono::{DateTime, SecondsFormat, Utc};

pub fn iso_millis(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// `#[serde(with = "crate::time::millis")]`: written as `iso_millis`, read as any RFC 3339.
pub mod millis {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(t: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&super::iso_millis(*t))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<DateTime<Utc>, D::Error> {
        DateTime::<Utc>::deserialize(deserializer)
    }
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
