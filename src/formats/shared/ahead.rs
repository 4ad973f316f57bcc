//! Reading ahead of the loops over a large document. Its strings each lie in their own
//! allocation (an entry's texts, each plural form's texts, each path segment), reached
//! through a chain of pointers, so a loop that reads them in turn waits on the memory at
//! every step of every chain. These functions start the loads of an entry a few iterations
//! before the loop reaches it, one step of its chain per call, so the loop's own work runs
//! while they are in flight. They read nothing the loop would not, and a hint for an
//! address no longer wanted does no harm; what they save is measured in
//! docs/performance.md.

use crate::model::{Document, Entry};

/// Iterations between two steps of a chain: enough for one load to arrive.
const DISTANCE: usize = 4;

/// For a loop at entry `at(0)` that reads each entry's text in `locale` and its plural
/// forms there (`at(k)`: the entry `k` iterations on), starts the loads those reads will
/// need: the farther ahead, the earlier the step of the chain.
pub(crate) fn texts(doc: &Document, locale: usize, at: impl Fn(usize) -> Option<usize>) {
    let entry = |k: usize| at(k * DISTANCE).and_then(|e| doc.entries.get(e));
    if let Some(entry) = entry(4) {
        if let Some(slot) = entry.texts.get(locale) {
            prefetch(slot);
        }
        if let Some(plural) = &entry.plural {
            prefetch(&**plural);
        }
    }
    if let Some(entry) = entry(3) {
        if let Some(Some(text)) = entry.texts.get(locale) {
            prefetch_str(text);
        }
        if let Some(plural) = &entry.plural {
            prefetch_slice(&plural.forms);
        }
    }
    if let Some(Entry {
        plural: Some(plural),
        ..
    }) = entry(2)
    {
        for form in &plural.forms {
            if let Some(slot) = form.texts.get(locale) {
                prefetch(slot);
            }
        }
    }
    if let Some(Entry {
        plural: Some(plural),
        ..
    }) = entry(1)
    {
        for form in &plural.forms {
            if let Some(Some(text)) = form.texts.get(locale) {
                prefetch_str(text);
            }
        }
    }
}

/// For a loop at entry `at(0)` that reads only where each entry's text in `locale` is
/// (not the text), starts loading that of the entries ahead.
pub(crate) fn text_slots(doc: &Document, locale: usize, at: impl Fn(usize) -> Option<usize>) {
    let entry = at(2 * DISTANCE).and_then(|e| doc.entries.get(e));
    if let Some(slot) = entry.and_then(|entry| entry.texts.get(locale)) {
        prefetch(slot);
    }
}

/// For a loop at entry `at(0)` that reads each entry's key path, starts loading the
/// paths of the entries ahead: the list of segments, then their bytes.
pub(crate) fn path(doc: &Document, at: impl Fn(usize) -> Option<usize>) {
    let entry = |k: usize| at(k * DISTANCE).and_then(|e| doc.entries.get(e));
    if let Some(entry) = entry(2) {
        prefetch_slice(&entry.path);
    }
    if let Some(entry) = entry(1) {
        for segment in &entry.path {
            prefetch_str(segment);
        }
    }
}

/// Starts loading the first bytes of `s`.
#[inline(always)]
pub(crate) fn prefetch_str(s: &str) {
    prefetch_address(s.as_ptr());
}

#[inline(always)]
fn prefetch_slice<T>(items: &[T]) {
    prefetch_address(items.as_ptr().cast());
}

#[inline(always)]
fn prefetch<T>(item: &T) {
    prefetch_address((item as *const T).cast());
}

/// The processor's prefetch hint for the cache line at `address`.
#[inline(always)]
#[allow(
    unsafe_code,
    reason = "the prefetch intrinsic is `unsafe`; the SAFETY note below says why it is sound"
)]
fn prefetch_address(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is a hint: it reads no memory into the program and cannot fault,
    // whatever the address (x86 manuals, "PREFETCHh"); SSE, which it needs, is part of
    // every x86_64 target. The call is `unsafe` only because the intrinsic carries
    // `#[target_feature(enable = "sse")]`.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Plural, PluralCategory, PluralForm};

    /// Reading ahead looks at entries the loop has not reached, or never will: past the
    /// end, rows shorter than the locales, empty strings and paths, a locale no row has.
    /// None of it may panic.
    #[test]
    fn reading_ahead_at_the_edges_of_a_document_is_harmless() {
        let doc = Document {
            locales: vec!["en".into(), "pl".into()],
            entries: vec![
                Entry {
                    path: vec![],
                    texts: vec![],
                    ..Entry::default()
                },
                Entry {
                    path: vec![String::new(), "K".into()],
                    texts: vec![Some(String::new())],
                    plural: Some(Box::new(Plural {
                        forms: vec![
                            PluralForm {
                                category: PluralCategory::One,
                                texts: vec![],
                            },
                            PluralForm {
                                category: PluralCategory::Other,
                                texts: vec![None, Some("x".into())],
                            },
                        ],
                    })),
                    ..Entry::default()
                },
            ],
            ..Document::default()
        };
        for locale in [0, 1, 2, usize::MAX] {
            for start in 0..40 {
                let at = |k: usize| Some(start + k);
                texts(&doc, locale, at);
                text_slots(&doc, locale, at);
                path(&doc, at);
                let never = |_: usize| None;
                texts(&doc, locale, never);
                path(&doc, never);
            }
        }
    }
}
