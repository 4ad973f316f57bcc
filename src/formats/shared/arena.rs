//! Many strings in one buffer, found by index. Renderers read the same strings in the
//! same order for every file; from one buffer that is a sequential read, where strings
//! allocated one by one (and in sheet row order) cost a cache miss each.

/// Strings (or their absence) by index, back to back in one buffer.
#[derive(Debug, Clone, Default)]
pub(crate) struct StrArena {
    bytes: String,
    /// `(start, end)` in `bytes`; `ABSENT` where the string is absent.
    spans: Vec<(usize, usize)>,
}

const ABSENT: (usize, usize) = (usize::MAX, usize::MAX);

impl StrArena {
    pub(crate) fn with_capacity(strings: usize, bytes: usize) -> StrArena {
        StrArena {
            bytes: String::with_capacity(bytes),
            spans: Vec::with_capacity(strings),
        }
    }

    /// Appends `s`, or an absent string.
    pub(crate) fn push(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.push_built(|bytes| bytes.push_str(s)),
            None => self.spans.push(ABSENT),
        }
    }

    /// Appends the string `build` writes at the end of the buffer.
    pub(crate) fn push_built(&mut self, build: impl FnOnce(&mut String)) {
        let start = self.bytes.len();
        build(&mut self.bytes);
        self.spans.push((start, self.bytes.len()));
    }

    /// Appends every string of `other`, in order.
    pub(crate) fn append(&mut self, other: StrArena) {
        let offset = self.bytes.len();
        self.bytes.push_str(&other.bytes);
        let moved = |(start, end): (usize, usize)| match (start, end) {
            ABSENT => ABSENT,
            _ => (start + offset, end + offset),
        };
        self.spans.extend(other.spans.into_iter().map(moved));
    }

    /// The string at `index`; `None` when absent or out of range.
    pub(crate) fn get(&self, index: usize) -> Option<&str> {
        let &(start, end) = self.spans.get(index)?;
        if (start, end) == ABSENT {
            return None;
        }
        self.bytes.get(start..end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_come_back_by_index_with_absent_and_empty_ones_apart() {
        let mut arena = StrArena::with_capacity(4, 8);
        arena.push(Some("one"));
        arena.push(None);
        arena.push(Some(""));
        arena.push_built(|b| b.push_str("fo\u{fc}r"));
        assert_eq!(
            (0..5).map(|i| arena.get(i)).collect::<Vec<_>>(),
            [Some("one"), None, Some(""), Some("foür"), None]
        );
        let mut more = StrArena::default();
        more.push(None);
        more.push(Some("five"));
        arena.append(more);
        assert_eq!(
            (3..7).map(|i| arena.get(i)).collect::<Vec<_>>(),
            [Some("foür"), None, Some("five"), None]
        );
    }
}
