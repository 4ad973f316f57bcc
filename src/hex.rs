//! Lowercase hexadecimal of bytes: content hashes (versions, ETags), random names, UUIDs,
//! signatures. One writer, so every hex string depot makes is spelled the same way.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

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
}
