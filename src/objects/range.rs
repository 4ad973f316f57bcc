//! The `Range` header for one byte range (RFC 9110 §14): `bytes=a-b`, `bytes=a-`, `bytes=-n`.
//! A header that is malformed, of another unit, or asks for several ranges is ignored (the
//! whole object is served, which the RFC allows); an unsatisfiable one is an error (416).

/// Inclusive byte positions, both within the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    pub start: u64,
    pub end: u64,
}

impl ByteRange {
    /// Number of bytes in the range (never 0).
    pub fn length(&self) -> u64 {
        self.end - self.start + 1
    }

    /// `Content-Range` value of a 206 answer.
    pub fn content_range(&self, total_len: u64) -> String {
        format!("bytes {}-{}/{total_len}", self.start, self.end)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    #[error(
        "Range '{header}' asks for no byte of the object, which is {len} bytes long; ask for bytes=FIRST-LAST with FIRST below {len}"
    )]
    Unsatisfiable { header: String, len: u64 },
}

impl RangeError {
    /// `Content-Range` value of the 416 answer: `bytes */LEN`.
    pub fn content_range(&self) -> String {
        match self {
            RangeError::Unsatisfiable { len, .. } => format!("bytes */{len}"),
        }
    }
}

/// The single range `header` asks for in an object of `len` bytes; `Ok(None)` means serve
/// the whole object with 200.
pub fn parse_range(header: &str, len: u64) -> Result<Option<ByteRange>, RangeError> {
    let unsatisfiable = || RangeError::Unsatisfiable {
        header: header.chars().take(100).collect(),
        len,
    };
    let header = header.trim();
    let Some(spec) = header
        .get(..6)
        .filter(|unit| unit.eq_ignore_ascii_case("bytes="))
        .map(|_| header[6..].trim())
    else {
        return Ok(None);
    };
    if spec.contains(',') {
        return Ok(None);
    }
    let Some((first, last)) = spec.split_once('-') else {
        return Ok(None);
    };
    let (first, last) = (first.trim(), last.trim());
    if first.is_empty() {
        // Suffix form: the last `n` bytes.
        let Some(suffix) = position(last) else {
            return Ok(None);
        };
        if suffix == 0 {
            return Err(unsatisfiable());
        }
        if len == 0 {
            // Satisfiable per the RFC yet empty, and Content-Range cannot say so.
            return Ok(None);
        }
        return Ok(Some(ByteRange {
            start: len.saturating_sub(suffix),
            end: len - 1,
        }));
    }
    let Some(start) = position(first) else {
        return Ok(None);
    };
    let end = if last.is_empty() {
        u64::MAX
    } else {
        match position(last) {
            Some(end) if end >= start => end,
            _ => return Ok(None),
        }
    };
    if start >= len {
        return Err(unsatisfiable());
    }
    Ok(Some(ByteRange {
        start,
        end: end.min(len - 1),
    }))
}

/// Digits only; a number too large for u64 is still a position (beyond any object).
fn position(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse().unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn range(start: u64, end: u64) -> Option<ByteRange> {
        Some(ByteRange { start, end })
    }

    #[test]
    fn range_matrix() {
        let unsatisfiable = |header: &str, len| {
            Err(RangeError::Unsatisfiable {
                header: header.to_owned(),
                len,
            })
        };
        type Parsed = Result<Option<ByteRange>, RangeError>;
        let cases: &[(&str, u64, Parsed)] = &[
            ("bytes=0-0", 10, Ok(range(0, 0))),
            ("bytes=0-9", 10, Ok(range(0, 9))),
            ("bytes=2-5", 10, Ok(range(2, 5))),
            ("bytes=5-100", 10, Ok(range(5, 9))),
            ("bytes=5-", 10, Ok(range(5, 9))),
            ("bytes=9-", 10, Ok(range(9, 9))),
            ("bytes=-3", 10, Ok(range(7, 9))),
            ("bytes=-10", 10, Ok(range(0, 9))),
            ("bytes=-500", 10, Ok(range(0, 9))),
            ("BYTES = 1-2", 10, Ok(None)),
            ("Bytes=1-2", 10, Ok(range(1, 2))),
            (" bytes= 1 - 2 ", 10, Ok(range(1, 2))),
            ("bytes=0-99999999999999999999999", 10, Ok(range(0, 9))),
            ("bytes=10-", 10, unsatisfiable("bytes=10-", 10)),
            ("bytes=10-20", 10, unsatisfiable("bytes=10-20", 10)),
            (
                "bytes=99999999999999999999999-",
                10,
                unsatisfiable("bytes=99999999999999999999999-", 10),
            ),
            ("bytes=-0", 10, unsatisfiable("bytes=-0", 10)),
            ("bytes=0-", 0, unsatisfiable("bytes=0-", 0)),
            ("bytes=-0", 0, unsatisfiable("bytes=-0", 0)),
            ("bytes=-5", 0, Ok(None)),
            ("bytes=5-2", 10, Ok(None)),
            ("bytes=0-1,4-5", 10, Ok(None)),
            ("bytes=20-30,40-50", 10, Ok(None)),
            ("bytes=-", 10, Ok(None)),
            ("bytes=a-b", 10, Ok(None)),
            ("bytes=+1-2", 10, Ok(None)),
            ("bytes=1", 10, Ok(None)),
            ("items=0-1", 10, Ok(None)),
            ("", 10, Ok(None)),
            ("bytes=ü-1", 10, Ok(None)),
            ("bÿtes=0-1", 10, Ok(None)),
        ];
        for (header, len, expected) in cases {
            assert_eq!(&parse_range(header, *len), expected, "{header:?} of {len}");
        }
    }

    #[test]
    fn header_values_for_206_and_416() {
        let r = ByteRange { start: 2, end: 5 };
        assert_eq!(r.length(), 4);
        assert_eq!(r.content_range(10), "bytes 2-5/10");
        let error = parse_range("bytes=10-", 10).expect_err("416");
        assert_eq!(error.content_range(), "bytes */10");
    }

    proptest! {
        #[test]
        fn any_header_gives_a_range_inside_the_object(header in "\\PC{0,30}", len in 0u64..100) {
            if let Ok(Some(r)) = parse_range(&header, len) {
                prop_assert!(r.start <= r.end && r.end < len);
            }
        }
    }
}
