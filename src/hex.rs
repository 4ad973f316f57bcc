//! Lowercase hexadecimal of bytes: content hashes (versions, ETags), random names, UUIDs,
//! signatures. One writer, so every hex string depot makes is spelled the same way. Percent
//! escapes (`crate::percent`) take their uppercase digits and the digit reader from here.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Uppercase digits, as RFC 3986 §2.1 asks of percent escapes (and SigV4 requires).
pub(crate) const UPPER_DIGITS: &[u8; 16] = b"0123456789ABCDEF";

/// The value of one hex digit of either case.
pub(crate) fn digit_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The `N` bytes that `text` spells in hex of either case; `None` for any other text.
pub fn decode<const N: usize>(text: &str) -> Option<[u8; N]> {
    let digits = text.as_bytes();
    if digits.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (slot, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        *slot = digit_value(pair[0])? << 4 | digit_value(pair[1])?;
    }
    Some(out)
}

/// `bytes` as lowercase hex.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    push(&mut out, bytes);
    out
}

/// Appends `bytes` as lowercase hex to `out`.
pub fn push(out: &mut String, bytes: &[u8]) {
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_is_two_lowercase_digits() {
        assert_eq!(encode(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        let all: Vec<u8> = (0..=255).collect();
        let expected: String = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(encode(&all), expected);
        let mut out = String::from("x");
        push(&mut out, &[0xbe, 0xef]);
        assert_eq!(out, "xbeef");
    }

    #[test]
    fn decode_reads_exactly_n_bytes_of_either_case() {
        assert_eq!(decode::<2>("BeEf"), Some([0xbe, 0xef]));
        assert_eq!(decode::<2>("beef00"), None);
        assert_eq!(decode::<2>("bee"), None);
        assert_eq!(decode::<2>("beeg"), None);
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode::<256>(&encode(&all)).map(|a| a.to_vec()), Some(all));
    }
}
