//! What patching an existing app file works with (SPEC §12.1): its entries as byte spans
//! (`Piece`, `Split`), what a patch gives (`Patched`, `Counts`) and why it cannot be made
//! (`KeepError`). Below the driver (`formats::keeping`) and every format's `keep.rs`.

use std::ops::Range;

use thiserror::Error;

use crate::formats::Format;
use crate::formats::reading::{Key, SyntaxError, Value};

/// What patching one file did, entry by entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Entries of the sheet already in the file whose text changed.
    pub changed: usize,
    /// Entries of the sheet the file did not have, appended.
    pub added: usize,
    /// Entries of the file the sheet does not have, left as they are.
    pub kept: usize,
    /// Entries of the sheet another file of the same folder defines, not written here
    /// (android: aapt2 refuses a name defined twice in one configuration).
    pub elsewhere: usize,
}

/// The patched file and what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patched {
    pub body: Vec<u8>,
    pub counts: Counts,
}

/// The existing file cannot be read as its format: it is not patched (nor written).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{what} (byte {at})")]
pub struct KeepError {
    pub what: String,
    pub at: usize,
}

impl KeepError {
    pub fn new(at: usize, what: impl Into<String>) -> KeepError {
        KeepError {
            what: what.into(),
            at,
        }
    }
}

/// One entry of a file split for patching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// What matches it with the other file's entry; `None`: never matched (a header).
    pub name: Option<String>,
    /// The whole entry, with its comments and the line break before it: what is copied
    /// when the entry is appended to another file.
    pub chunk: Range<usize>,
    /// The entry itself, without comments or indent.
    pub whole: Range<usize>,
    /// What replacing the entry swaps (its text; the whole entry for line formats).
    pub body: Range<usize>,
    /// The file's own entry whatever the sheet says (resx file references): never replaced.
    pub fixed: bool,
}

/// A file split into entries, and where entries are appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub pieces: Vec<Piece>,
    pub append_at: usize,
    /// What goes before an appended entry whose chunk starts its file (po: a blank line).
    pub separator: &'static [u8],
}

/// Whether two snippets of `format` (each a whole file to its reader) give the same keys
/// and texts, as they are (no placeholder conversion); unreadable ones are not the same.
/// What the reader leaves out (android markup, ...) does not count: the sheet cannot hold it,
/// so an entry whose texts are the same keeps it.
pub fn read_the_same(format: Format, a: &[u8], b: &[u8]) -> bool {
    read_the_same_as(format, a, b, &crate::model::SheetSettings::default())
}

/// `read_the_same` for the files of a sheet with `settings`, read as they say: an ARB
/// file's apostrophes as text with `arb=plain`; Android's markup part of the text with
/// `android=markup` (such a sheet owns its strings' tags: one whose tags changed does not
/// read the same).
pub fn read_the_same_as(
    format: Format,
    a: &[u8],
    b: &[u8],
    settings: &crate::model::SheetSettings,
) -> bool {
    match (units_as(format, a, settings), units_as(format, b, settings)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The keys and texts `format`'s reader gives for `bytes`, as they are (no placeholder
/// conversion), read as the files of a sheet with `settings` (`read_the_same_as`), or why
/// they do not read.
pub fn units_as(
    format: Format,
    bytes: &[u8],
    settings: &crate::model::SheetSettings,
) -> Result<Vec<(Key, Value)>, SyntaxError> {
    let options = crate::formats::reading::Options {
        placeholders: crate::formats::PlaceholderMode::Keep,
        arb_plain: Some(settings.arb_plain),
        markup: crate::formats::reading::Markup::of_sheet(settings.android_markup),
        ..crate::formats::reading::Options::default()
    };
    let descriptor = format.descriptor();
    let text = (descriptor.decode)(bytes)?;
    let mut reading = crate::formats::reading::Reading::new(&options);
    (descriptor.read)(&text, &mut reading)?;
    // what the reader names as not carried (markup, annotations) is the app's: the texts
    // alone decide
    Ok((reading.units.into_iter())
        .map(|u| (u.key, u.value))
        .collect())
}

impl Split {
    /// The split of a file of lines: entries are appended after the last one, or at the
    /// end of a file without any.
    pub fn of_lines(
        pieces: Vec<Piece>,
        after_last: usize,
        len: usize,
        separator: &'static [u8],
    ) -> Split {
        let append_at = if pieces.is_empty() { len } else { after_last };
        Split {
            pieces,
            append_at,
            separator,
        }
    }
}

/// Where a file's text starts: after a UTF-8 byte-order mark.
pub fn after_bom(bytes: &[u8]) -> usize {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    }
}

/// How a format swaps one entry's text for the fresh one (default: the fresh body).
pub type Swap = fn(existing: &[u8], old: &Piece, fresh: &[u8], new: &Piece, out: &mut Vec<u8>);

/// The fresh body in place of the existing one.
pub fn swap_body(_: &[u8], _: &Piece, fresh: &[u8], new: &Piece, out: &mut Vec<u8>) {
    out.extend_from_slice(&fresh[new.body.clone()]);
}

/// The start of the line holding `at` (the byte after the previous `\n`).
pub fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1)
}

/// The chunk of an entry from `body` back to where the previous entry ended (`previous`),
/// from the line break before its first line: comments above it come along.
pub fn chunk_from(bytes: &[u8], previous: usize, body: &Range<usize>) -> Range<usize> {
    let gap = &bytes[previous..body.start];
    // the gap's first line break: what follows it is this entry's (comments, indent)
    match gap.iter().position(|&b| b == b'\n') {
        Some(p) => previous + p..body.end,
        None => line_start(bytes, body.start).max(previous)..body.end,
    }
}
