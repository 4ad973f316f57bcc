//! Searches for one of a few bytes in what is mostly a short run (a cell of a sheet, the
//! rest of a text after a placeholder): eight bytes a step in a machine word first, the
//! `memchr` crate's vector search past that. Its calls cost more than a short run's scan
//! (some 50 instructions, a third of reading a large sheet's cells).

/// Bytes looked at a word at a time before the rest goes to `memchr`.
const SHORT: usize = 64;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// A high bit in each byte of `word` that is zero, and maybe in bytes above the lowest
/// such byte (a borrow): the lowest one set is exact, which is all a search needs.
fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// The index of the first byte of `haystack` for which `matches` (given a word, the high
/// bits of the bytes it looks for, `zero_bytes` style) finds one, looking at `SHORT`
/// bytes that way; else `None` with how far it looked.
fn short(haystack: &[u8], matches: impl Fn(u64) -> u64) -> Result<usize, usize> {
    let head = &haystack[..haystack.len().min(SHORT)];
    let (words, rest) = head.as_chunks::<8>();
    for (i, word) in words.iter().enumerate() {
        let found = matches(u64::from_le_bytes(*word));
        if found != 0 {
            return Ok(i * 8 + (found.trailing_zeros() / 8) as usize);
        }
    }
    let at = words.len() * 8;
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        // the padding's bytes are zero: masked off, they cannot be found
        let found = matches(u64::from_le_bytes(last)) & (HIGHS >> (8 * (8 - rest.len())));
        if found != 0 {
            return Ok(at + (found.trailing_zeros() / 8) as usize);
        }
    }
    Err(head.len())
}

/// `memchr::memchr2`, quicker on a short haystack.
pub fn find2(a: u8, b: u8, haystack: &[u8]) -> Option<usize> {
    let (wa, wb) = (ONES * u64::from(a), ONES * u64::from(b));
    match short(haystack, |w| zero_bytes(w ^ wa) | zero_bytes(w ^ wb)) {
        Ok(at) => Some(at),
        Err(looked) => memchr::memchr2(a, b, &haystack[looked..]).map(|at| looked + at),
    }
}

/// `memchr::memchr3`, quicker on a short haystack.
pub fn find3(a: u8, b: u8, c: u8, haystack: &[u8]) -> Option<usize> {
    let (wa, wb, wc) = (
        ONES * u64::from(a),
        ONES * u64::from(b),
        ONES * u64::from(c),
    );
    let matches = |w: u64| zero_bytes(w ^ wa) | zero_bytes(w ^ wb) | zero_bytes(w ^ wc);
    match short(haystack, matches) {
        Ok(at) => Some(at),
        Err(looked) => memchr::memchr3(a, b, c, &haystack[looked..]).map(|at| looked + at),
    }
}

/// `memchr::memchr`, quicker on a short haystack.
pub fn find(a: u8, haystack: &[u8]) -> Option<usize> {
    let wa = ONES * u64::from(a);
    match short(haystack, |w| zero_bytes(w ^ wa)) {
        Ok(at) => Some(at),
        Err(looked) => memchr::memchr(a, &haystack[looked..]).map(|at| looked + at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Each search finds what `memchr`'s finds, wherever the bytes fall (in a word, in
        /// the padded last one, past the short part, next to bytes one off in value).
        #[test]
        fn the_searches_find_what_memchr_finds(
            haystack in proptest::collection::vec(
                prop_oneof![Just(0u8), Just(1), Just(b'"'), Just(b'#'), Just(b'!'),
                            Just(0x80), Just(0xA2), Just(0xFF), any::<u8>()],
                0..160,
            ),
            needles in proptest::array::uniform3(
                prop_oneof![Just(0u8), Just(b'"'), Just(0x80), Just(0xFF), any::<u8>()],
            ),
            skip in 0usize..100,
        ) {
            let [a, b, c] = needles;
            let haystack = &haystack[skip.min(haystack.len())..];
            prop_assert_eq!(find(a, haystack), memchr::memchr(a, haystack));
            prop_assert_eq!(find2(a, b, haystack), memchr::memchr2(a, b, haystack));
            prop_assert_eq!(find3(a, b, c, haystack), memchr::memchr3(a, b, c, haystack));
        }
    }

    #[test]
    fn a_needle_in_the_padding_is_not_found() {
        // zero bytes pad the last word: a zero needle must not be found there
        assert_eq!(find(0, b"abc"), None);
        assert_eq!(find2(0, b'x', b"abcdefghij"), None);
        assert_eq!(find(0, b"abcdefghij\0"), Some(10));
        assert_eq!(find2(b'"', b'\n', &[b'a'; 200]), None);
        let mut long = vec![b'a'; 200];
        long[150] = b'\n';
        assert_eq!(find2(b'"', b'\n', &long), Some(150));
    }
}
