//! Writing into an existing app file (SPEC §12.1 "Nothing the sheet does not own is lost"):
//! the file already there is patched with the freshly rendered one, entry by entry, on raw
//! byte spans, so that everything the sheet does not own stays byte for byte where it was.
//! Each format with entries has its `keep.rs` (`patch` of one shape); this is the driver.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::Path;

use thiserror::Error;

use super::Format;

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
    pub(crate) fn new(at: usize, what: impl Into<String>) -> KeepError {
        KeepError {
            what: what.into(),
            at,
        }
    }
}

/// The one shape of every format's `keep::patch`: the existing file's bytes, the fresh
/// rendering's, and the names another file of the same folder defines (not written).
pub type Patcher = fn(&[u8], &[u8], &HashSet<String>) -> Result<Patched, KeepError>;

/// The patcher of `format`, for the formats whose files have named entries; the others
/// (yml, xlf, stringsdict) are written whole.
pub fn patcher(format: Format) -> Option<Patcher> {
    use super::{android, arb, i18next, json, po, properties, resx, strings, xcstrings};
    Some(match format {
        Format::Android => android::keep::patch,
        Format::Ios => strings::keep::patch,
        Format::Properties => properties::keep::patch,
        Format::Po => po::keep::patch,
        Format::Resx => resx::keep::patch,
        Format::Arb => arb::keep::patch,
        Format::I18next => i18next::keep::patch,
        Format::Json => json::keep::patch,
        Format::Xcstrings => xcstrings::keep::patch,
        Format::Stringsdict | Format::Xlf | Format::Yml => return None,
    })
}

/// One entry of a file split for patching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
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
pub(crate) struct Split {
    pub pieces: Vec<Piece>,
    pub append_at: usize,
}

/// How a format swaps one entry's text for the fresh one (default: the fresh body).
pub(crate) type Swap = fn(existing: &[u8], old: &Piece, fresh: &[u8], new: &Piece, out: &mut Vec<u8>);

/// The fresh body in place of the existing one.
pub(crate) fn swap_body(_: &[u8], _: &Piece, fresh: &[u8], new: &Piece, out: &mut Vec<u8>) {
    out.extend_from_slice(&fresh[new.body.clone()]);
}

/// Patches `existing` with `fresh` for a format of entries in sequence (XML elements,
/// lines, po blocks): entries of both get the fresh text in place, entries only in `fresh`
/// are appended (those named in `elsewhere` left out), the rest of `existing` stays.
pub(crate) fn patch_pieces(
    existing: &[u8],
    fresh: &[u8],
    elsewhere: &HashSet<String>,
    split: fn(&[u8]) -> Result<Split, KeepError>,
    swap: Swap,
) -> Result<Patched, KeepError> {
    let old = split(existing)?;
    let new = split(fresh)?;
    let mut by_name: HashMap<&str, &Piece> = HashMap::with_capacity(new.pieces.len());
    for piece in &new.pieces {
        if let Some(name) = &piece.name {
            by_name.entry(name).or_insert(piece);
        }
    }
    let mut counts = Counts::default();
    let mut out = Vec::with_capacity(existing.len() + fresh.len() / 8);
    let mut cursor = 0;
    let mut seen: HashSet<&str> = HashSet::with_capacity(old.pieces.len());
    for piece in &old.pieces {
        let Some(name) = &piece.name else { continue };
        seen.insert(name);
        match by_name.get(name.as_str()) {
            Some(new_piece) if !piece.fixed => {
                out.extend_from_slice(&existing[cursor..piece.body.start]);
                let at = out.len();
                swap(existing, piece, fresh, new_piece, &mut out);
                if out[at..] != existing[piece.body.clone()] {
                    counts.changed += 1;
                }
                cursor = piece.body.end;
            }
            Some(_) => counts.kept += 1,
            None => counts.kept += 1,
        }
    }
    out.extend_from_slice(&existing[cursor..old.append_at]);
    for piece in &new.pieces {
        let Some(name) = &piece.name else { continue };
        if seen.contains(name.as_str()) {
            continue;
        }
        if elsewhere.contains(name) {
            counts.elsewhere += 1;
            continue;
        }
        seen.insert(name);
        let chunk = &fresh[piece.chunk.clone()];
        let after_break = out.last().is_none_or(|&b| b == b'\n');
        if after_break {
            // at the start of a line: the chunk's own leading break would leave a blank one
            let start = chunk.iter().position(|&b| b != b'\n').unwrap_or(chunk.len());
            out.extend_from_slice(&chunk[start..]);
            out.push(b'\n');
        } else {
            if chunk.first() != Some(&b'\n') {
                out.push(b'\n');
            }
            out.extend_from_slice(chunk);
        }
        counts.added += 1;
    }
    out.extend_from_slice(&existing[old.append_at..]);
    Ok(Patched { body: out, counts })
}

/// The start of the line holding `at` (the byte after the previous `\n`).
pub(crate) fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1)
}

/// The chunk of an entry from `body` back to where the previous entry ended (`previous`),
/// from the line break before its first line: comments above it come along.
pub(crate) fn chunk_from(bytes: &[u8], previous: usize, body: &Range<usize>) -> Range<usize> {
    let gap = &bytes[previous..body.start];
    // the gap's first line break: what follows it is this entry's (comments, indent)
    match gap.iter().position(|&b| b == b'\n') {
        Some(p) => previous + p..body.end,
        None => line_start(bytes, body.start).max(previous)..body.end,
    }
}

/// A file that is there but cannot be patched: nothing is written.
#[derive(Debug, Error)]
pub enum KeepFileError {
    #[error(
        "cannot keep what the sheet does not own in {path}: it does not read as {format} \
         ({error}); fix the file, or pass --replace to write it whole from the sheet"
    )]
    Unreadable {
        path: String,
        format: Format,
        error: KeepError,
    },
    #[error("cannot read {path}: {error}")]
    Io {
        path: String,
        error: std::io::Error,
    },
}

/// What goes to `path` for `format` given the fresh rendering (SPEC §12.1): the file
/// there patched with it (and what patching did), or, with no file there, the rendering
/// (android: without the names another file of the folder defines).
pub fn keep_at(format: Format, path: &Path, fresh: Vec<u8>) -> Result<Kept, KeepFileError> {
    let Some(patch) = patcher(format) else {
        return Ok(Kept::whole(fresh));
    };
    let io = |error| KeepFileError::Io {
        path: path.display().to_string(),
        error,
    };
    let unreadable = |path: &Path, error| KeepFileError::Unreadable {
        path: path.display().to_string(),
        format,
        error,
    };
    let elsewhere = match format {
        Format::Android => android_names_beside(path, &unreadable)?,
        _ => HashSet::new(),
    };
    let existing = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if elsewhere.is_empty() {
                return Ok(Kept::whole(fresh));
            }
            // a new file in a folder with others: the rendering without their names
            super::android::keep::without_entries(&fresh).map_err(|e| unreadable(path, e))?
        }
        Err(e) => return Err(io(e)),
    };
    let patched = patch(&existing, &fresh, &elsewhere).map_err(|e| unreadable(path, e))?;
    Ok(Kept {
        body: patched.body,
        counts: Some(patched.counts),
    })
}

/// The resource names the other `.xml` files of an android target's folder define.
fn android_names_beside(
    path: &Path,
    unreadable: &dyn Fn(&Path, KeepError) -> KeepFileError,
) -> Result<HashSet<String>, KeepFileError> {
    let mut names = HashSet::new();
    let Some(folder) = path.parent() else {
        return Ok(names);
    };
    let Ok(listing) = std::fs::read_dir(folder) else {
        return Ok(names);
    };
    let mut others: Vec<_> = listing
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.as_path() != path && p.extension().is_some_and(|e| e == "xml"))
        .collect();
    others.sort();
    for other in others {
        let bytes = std::fs::read(&other).map_err(|error| KeepFileError::Io {
            path: other.display().to_string(),
            error,
        })?;
        names.extend(super::android::keep::names(&bytes).map_err(|e| unreadable(&other, e))?);
    }
    Ok(names)
}

/// What `keep_at` gives: the bytes to write, and what patching did (`None`: no file was
/// there, or the format is written whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub body: Vec<u8>,
    pub counts: Option<Counts>,
}

impl Kept {
    fn whole(body: Vec<u8>) -> Kept {
        Kept { body, counts: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_starts_at_the_line_break_before_its_comments() {
        let bytes = b"a=1\n# about b\nb=2\n";
        assert_eq!(chunk_from(bytes, 3, &(14..17)), 3..17);
        assert_eq!(&bytes[chunk_from(bytes, 3, &(14..17))], b"\n# about b\nb=2");
        assert_eq!(chunk_from(b"b=2", 0, &(0..3)), 0..3);
    }
}
