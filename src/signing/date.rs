//! `X-Amz-Date`: written from a time by the signer, read back and checked by the verifier.
//! Its first 8 bytes are the date of the credential scope.

use chrono::{DateTime, Datelike, NaiveDate, Timelike, Utc};

/// `YYYYMMDDTHHMMSSZ`; its first 8 bytes are the credential-scope date.
pub(super) struct AmzDate([u8; 16]);

impl AmzDate {
    pub(super) fn from_time(time: DateTime<Utc>) -> Option<AmzDate> {
        let year = u32::try_from(time.year()).ok().filter(|y| *y <= 9999)?;
        let mut out = *b"00000000T000000Z";
        let mut put = |at: usize, width: usize, mut value: u32| {
            for i in (at..at + width).rev() {
                // `value % 10` is a single digit.
                out[i] = b'0' + (value % 10) as u8;
                value /= 10;
            }
        };
        put(0, 4, year);
        put(4, 2, time.month());
        put(6, 2, time.day());
        put(9, 2, time.hour());
        put(11, 2, time.minute());
        put(13, 2, time.second());
        Some(AmzDate(out))
    }

    pub(super) fn parse(text: &str) -> Option<AmzDate> {
        let bytes: [u8; 16] = text.as_bytes().try_into().ok()?;
        let digits_ok = bytes
            .iter()
            .enumerate()
            .all(|(i, b)| matches!(i, 8 | 15) || b.is_ascii_digit());
        if !digits_ok || bytes[8] != b'T' || bytes[15] != b'Z' {
            return None;
        }
        let stamp = AmzDate(bytes);
        stamp.checked_time().map(|_| stamp)
    }

    fn number(&self, range: std::ops::Range<usize>) -> u32 {
        self.0[range]
            .iter()
            .fold(0, |n, b| n * 10 + u32::from(b.wrapping_sub(b'0')))
    }

    fn checked_time(&self) -> Option<DateTime<Utc>> {
        let year = i32::try_from(self.number(0..4)).ok()?;
        NaiveDate::from_ymd_opt(year, self.number(4..6), self.number(6..8))?
            .and_hms_opt(self.number(9..11), self.number(11..13), self.number(13..15))
            .map(|t| t.and_utc())
    }

    /// Only built from checked text, so the fallback is never taken.
    pub(super) fn time(&self) -> DateTime<Utc> {
        self.checked_time().unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    pub(super) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or_default()
    }

    pub(super) fn date(&self) -> &str {
        &self.as_str()[..8]
    }
}
