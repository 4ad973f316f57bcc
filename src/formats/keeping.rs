//! Writing into an existing app file (SPEC §12.1 "Nothing the sheet does not own is lost"):
//! the file already there is patched with the freshly rendered one, entry by entry, on raw
//! byte spans, so that everything the sheet does not own stays byte for byte where it was.
//! Each format with entries has its `keep.rs` (`patch` of one shape); this is the driver.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use thiserror::Error;

use super::Format;
pub use super::shared::spans::{
    Counts, KeepError, Patched, Piece, Split, Swap, after_bom, chunk_from, line_start,
    read_the_same, read_the_same_as, swap_body,
};

/// How one format's files are patched: what every format's `keep.rs` declares (`KEEP`),
/// and its one `patch` (the existing file's bytes, the fresh rendering's, and the names
/// another file of the same folder defines, which are not written).
pub(crate) enum Keep {
    /// Entries in sequence: XML elements, lines, po messages.
    Pieces {
        format: Format,
        split: fn(&[u8]) -> Result<Split, KeepError>,
        swap: Swap,
        /// What an entry goes between to be read alone (`<resources>`…`</resources>`), to
        /// tell whether two entries read the same.
        wrap: (&'static [u8], &'static [u8]),
        /// Names other files of the target's folder define, which this one must not
        /// (android: aapt2 refuses a name twice); `None`: each file stands alone.
        siblings: Option<Siblings>,
    },
    /// A JSON object, member by member; `same`: whose reader tells two values apart.
    Json {
        rules: super::shared::json_spans::Rules,
        same: Option<Format>,
    },
}

/// A format whose files share one namespace of names with the other files of their
/// folder (android's `values*/*.xml`).
#[derive(Clone, Copy)]
pub(crate) struct Siblings {
    /// The other files taken into account: those with this extension.
    pub extension: &'static str,
    /// The names a file defines.
    pub names: fn(&[u8]) -> Result<HashSet<String>, KeepError>,
    /// A rendering with its entries taken out (what a new file is patched into).
    pub without_entries: fn(&[u8]) -> Result<Vec<u8>, KeepError>,
}

impl Keep {
    pub(crate) fn patch(
        &self,
        existing: &[u8],
        fresh: &[u8],
        elsewhere: &HashSet<String>,
    ) -> Result<Patched, KeepError> {
        self.patch_as(existing, fresh, elsewhere, false)
    }

    /// `patch`, for a sheet whose texts hold Android's markup when `markup` (an entry
    /// then reads the same only with the same tags).
    pub(crate) fn patch_as(
        &self,
        existing: &[u8],
        fresh: &[u8],
        elsewhere: &HashSet<String>,
        markup: bool,
    ) -> Result<Patched, KeepError> {
        match *self {
            Keep::Json { rules, same } => {
                super::shared::json_spans::patch(existing, fresh, rules, same)
            }
            Keep::Pieces { format, .. } => {
                let little = match existing {
                    [0xFF, 0xFE, ..] => true,
                    [0xFE, 0xFF, ..] => false,
                    _ => return patch_pieces(existing, fresh, elsewhere, self, markup),
                };
                // a UTF-16 file (ios `.strings`) is patched as text and stays UTF-16
                let text = (format.descriptor().decode)(existing)
                    .map_err(|e| KeepError::new(0, e.message))?;
                let patched = patch_pieces(text.as_bytes(), fresh, elsewhere, self, markup)?;
                let mut body = existing[..2].to_vec();
                for unit in String::from_utf8_lossy(&patched.body).encode_utf16() {
                    body.extend(match little {
                        true => unit.to_le_bytes(),
                        false => unit.to_be_bytes(),
                    });
                }
                Ok(Patched {
                    body,
                    counts: patched.counts,
                })
            }
        }
    }
}

/// How `format`'s files are patched (its table line); `None`: written whole (yml, xlf).
pub(crate) fn keep_of(format: Format) -> Option<&'static Keep> {
    format.descriptor().keep
}

/// Patches `existing` with `fresh` for a format of entries in sequence (XML elements,
/// lines, po blocks): entries of both get the fresh text in place, entries only in `fresh`
/// are appended (those named in `elsewhere` left out), the rest of `existing` stays.
fn patch_pieces(
    existing: &[u8],
    fresh: &[u8],
    elsewhere: &HashSet<String>,
    keep: &Keep,
    markup: bool,
) -> Result<Patched, KeepError> {
    let Keep::Pieces {
        format,
        split,
        swap,
        wrap: (open, close),
        ..
    } = *keep
    else {
        return Err(KeepError::new(0, "not a format of entries in sequence"));
    };
    // the app's escaping, quoting or spacing stays where an entry reads the same
    let same = |old: &Piece, new: &Piece| {
        let wrapped =
            |bytes: &[u8], piece: &Piece| [open, &bytes[piece.whole.clone()], close].concat();
        read_the_same_as(
            format,
            &wrapped(existing, old),
            &wrapped(fresh, new),
            markup,
        )
    };
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
                let as_it_is = existing[piece.whole.clone()] == fresh[new_piece.whole.clone()]
                    || same(piece, new_piece);
                if as_it_is {
                    continue;
                }
                out.extend_from_slice(&existing[cursor..piece.body.start]);
                let at = out.len();
                swap(existing, piece, fresh, new_piece, &mut out);
                if out.get(at..) != Some(&existing[piece.body.clone()]) {
                    counts.changed += 1;
                }
                cursor = piece.body.end;
            }
            Some(_) => counts.kept += 1,
            None => counts.kept += 1,
        }
    }
    out.extend_from_slice(&existing[cursor..old.append_at]);
    // the entries only the fresh file has, each with the line break and comments before it
    let mut block = Vec::new();
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
        if chunk.first() != Some(&b'\n') && !(block.is_empty() && out.is_empty()) {
            block.extend_from_slice(old.separator);
        }
        block.extend_from_slice(chunk);
        counts.added += 1;
    }
    if out.last().is_none_or(|&b| b == b'\n') && !block.is_empty() {
        // at the start of a line: the block's leading breaks would leave blank lines
        let start = block
            .iter()
            .position(|&b| b != b'\n')
            .unwrap_or(block.len());
        out.extend_from_slice(&block[start..]);
        out.push(b'\n');
    } else {
        out.extend_from_slice(&block);
    }
    out.extend_from_slice(&existing[old.append_at..]);
    Ok(Patched { body: out, counts })
}

/// `existing` patched with `fresh` for `format`: `Ok(None)` when the format is written whole.
pub fn patch(
    format: Format,
    existing: &[u8],
    fresh: &[u8],
    elsewhere: &HashSet<String>,
) -> Result<Option<Patched>, KeepError> {
    keep_of(format)
        .map(|keep| keep.patch(existing, fresh, elsewhere))
        .transpose()
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
    Io { path: String, error: std::io::Error },
}

/// What goes to `path` for `format` given the fresh rendering (SPEC §12.1): the file
/// there patched with it (and what patching did), or, with no file there, the rendering
/// (android: without the names another file of the folder defines). `markup`: the sheet
/// holds Android's markup (`android=markup`).
pub fn keep_at(
    format: Format,
    path: &Path,
    fresh: Vec<u8>,
    markup: bool,
) -> Result<Kept, KeepFileError> {
    let Some(keep) = keep_of(format) else {
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
    let siblings = match *keep {
        Keep::Pieces { siblings, .. } => siblings,
        Keep::Json { .. } => None,
    };
    let elsewhere = match siblings {
        Some(siblings) => names_beside(path, siblings, &unreadable)?,
        None => HashSet::new(),
    };
    let existing = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let Some(siblings) = siblings.filter(|_| !elsewhere.is_empty()) else {
                return Ok(Kept::whole(fresh));
            };
            // a new file in a folder with others: the rendering without their names
            (siblings.without_entries)(&fresh).map_err(|e| unreadable(path, e))?
        }
        Err(e) => return Err(io(e)),
    };
    if existing == fresh && elsewhere.is_empty() {
        // the file is what the sheet renders (the usual case of a run after a run): a
        // patch would give the same bytes, after parsing both
        return Ok(Kept {
            body: fresh,
            counts: Some(Counts::default()),
        });
    }
    let patched =
        (keep.patch_as(&existing, &fresh, &elsewhere, markup)).map_err(|e| unreadable(path, e))?;
    Ok(Kept {
        body: patched.body,
        counts: Some(patched.counts),
    })
}

/// The names the other files of the target's folder define (android: its `.xml` files).
fn names_beside(
    path: &Path,
    siblings: Siblings,
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
        .filter(|p| p.as_path() != path && p.extension().is_some_and(|e| e == siblings.extension))
        .collect();
    others.sort();
    for other in others {
        let bytes = std::fs::read(&other).map_err(|error| KeepFileError::Io {
            path: other.display().to_string(),
            error,
        })?;
        names.extend((siblings.names)(&bytes).map_err(|e| unreadable(&other, e))?);
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

    use proptest::prelude::*;

    /// A file of `format` holding `entries` (key, text) in order.
    fn file(format: Format, entries: &[(String, String)]) -> Vec<u8> {
        let mut out = String::new();
        let line = |(k, v): &(String, String)| match format {
            Format::Android => format!("    <string name=\"{k}\">{v}</string>\n"),
            Format::Ios => format!("\"{k}\" = \"{v}\";\n"),
            Format::Properties => format!("{k} = {v}\n"),
            Format::Po => format!("msgid \"{k}\"\nmsgstr \"{v}\"\n"),
            _ => format!("  \"{k}\": \"{v}\",\n"),
        };
        match format {
            Format::Android => out.push_str("<resources>\n"),
            Format::I18next | Format::Arb => out.push_str("{\n"),
            _ => {}
        }
        for (i, entry) in entries.iter().enumerate() {
            if format == Format::Po && i > 0 {
                out.push('\n');
            }
            out.push_str(&line(entry));
        }
        match format {
            Format::Android => out.push_str("</resources>\n"),
            Format::I18next | Format::Arb => {
                if out.ends_with(",\n") {
                    out.truncate(out.len() - 2);
                    out.push('\n');
                }
                out.push_str("}\n");
            }
            _ => {}
        }
        out.into_bytes()
    }

    fn formats() -> impl Strategy<Value = Format> {
        prop::sample::select(vec![
            Format::Android,
            Format::Ios,
            Format::Properties,
            Format::Po,
            Format::I18next,
            Format::Arb,
        ])
    }

    /// Distinct keys, each with an app text, a sheet text and who has it (0: the app only,
    /// 1: both, 2: the sheet only).
    fn entries() -> impl Strategy<Value = Vec<(String, String, String, u8)>> {
        prop::collection::btree_map(
            "[a-z][a-z0-9_]{0,8}",
            (
                "[A-Za-z0-9][A-Za-z0-9 ]{0,9}",
                "[A-Za-z0-9][A-Za-z0-9 ]{0,9}",
                0u8..3,
            ),
            0..12,
        )
        .prop_map(|m| {
            m.into_iter()
                .map(|(k, (a, b, who))| (k, a, b, who))
                .collect()
        })
    }

    proptest! {
        #[test]
        fn patching_with_the_same_rendering_changes_nothing(format in formats(), entries in entries()) {
            let app: Vec<_> = entries.iter().map(|(k, a, _, _)| (k.clone(), a.clone())).collect();
            let bytes = file(format, &app);
            let patched = patch(format, &bytes, &bytes, &HashSet::new()).unwrap().unwrap();
            prop_assert_eq!(&patched.body, &bytes);
            prop_assert_eq!((patched.counts.changed, patched.counts.added), (0, 0));
        }

        #[test]
        fn what_only_the_app_has_survives_and_the_sheet_wins_the_rest(format in formats(), entries in entries()) {
            let app: Vec<_> = (entries.iter()).filter(|e| e.3 < 2).map(|(k, a, _, _)| (k.clone(), a.clone())).collect();
            let sheet: Vec<_> = (entries.iter()).filter(|e| e.3 > 0).map(|(k, _, b, _)| (k.clone(), b.clone())).collect();
            let patched = patch(format, &file(format, &app), &file(format, &sheet), &HashSet::new())
                .unwrap()
                .unwrap();
            let body = String::from_utf8(patched.body).unwrap();
            // the result is the file of every key, each with the sheet's text if it has one
            let mut want: Vec<_> = (entries.iter()).filter(|e| e.3 < 2)
                .map(|(k, a, b, who)| (k.clone(), if *who == 1 { b.clone() } else { a.clone() }))
                .collect();
            want.extend((entries.iter()).filter(|e| e.3 == 2).map(|(k, _, b, _)| (k.clone(), b.clone())));
            let kept = entries.iter().filter(|e| e.3 == 0).count();
            prop_assert_eq!(body, String::from_utf8(file(format, &want)).unwrap());
            prop_assert_eq!(patched.counts.kept, kept);
        }
    }
}
