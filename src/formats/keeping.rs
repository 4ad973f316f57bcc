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
use crate::model::SheetSettings;

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
    /// A JSON object, member by member.
    Json(super::shared::json_spans::JsonKeep),
    /// A tree of maps the format patches itself (yml: block maps, key by key), given the
    /// existing file's bytes and the fresh rendering's.
    Tree(fn(&[u8], &[u8]) -> Result<Patched, KeepError>),
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

/// What a patch does with the entries only the fresh rendering has.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gains {
    /// Appended (the names in `elsewhere` left out).
    Appended,
    /// Left out: the file only gets the fresh texts of its own entries (android: a file
    /// of the target's folder that defines some of the sheet's names).
    None,
}

impl Keep {
    pub(crate) fn patch(
        &self,
        existing: &[u8],
        fresh: &[u8],
        elsewhere: &HashSet<String>,
    ) -> Result<Patched, KeepError> {
        self.patch_as(
            existing,
            fresh,
            elsewhere,
            Gains::Appended,
            &SheetSettings::default(),
        )
    }

    /// `patch` of the files of a sheet with `settings`, which say how its files read
    /// (`arb=plain`, `android=markup`: an entry then reads the same only with the same
    /// tags) when telling whether two entries read the same.
    pub(crate) fn patch_as(
        &self,
        existing: &[u8],
        fresh: &[u8],
        elsewhere: &HashSet<String>,
        gains: Gains,
        settings: &SheetSettings,
    ) -> Result<Patched, KeepError> {
        match *self {
            Keep::Json(ref json) => {
                super::shared::json_spans::patch(existing, fresh, json, settings)
            }
            Keep::Tree(patch) => patch(existing, fresh),
            Keep::Pieces { format, .. } => {
                let little = match existing {
                    [0xFF, 0xFE, ..] => true,
                    [0xFE, 0xFF, ..] => false,
                    _ => return patch_pieces(existing, fresh, elsewhere, self, gains, settings),
                };
                // a UTF-16 file (ios `.strings`) is patched as text and stays UTF-16
                let text = (format.descriptor().decode)(existing)
                    .map_err(|e| KeepError::new(0, e.message))?;
                let patched =
                    patch_pieces(text.as_bytes(), fresh, elsewhere, self, gains, settings)?;
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

/// How `format`'s files are patched (its table line); `None`: written whole.
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
    gains: Gains,
    settings: &SheetSettings,
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
            settings,
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
    for piece in new.pieces.iter().filter(|_| gains == Gains::Appended) {
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
/// (android: without the names another file of the folder defines, each of those files
/// with the fresh texts of the names it defines). `settings`: the sheet's, which say how
/// the file reads (`arb=plain`, `android=markup`).
pub fn keep_at(
    format: Format,
    path: &Path,
    fresh: Vec<u8>,
    settings: &SheetSettings,
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
        Keep::Json(_) | Keep::Tree(_) => None,
    };
    let others = match siblings {
        Some(siblings) => files_beside(path, siblings, &unreadable)?,
        None => Vec::new(),
    };
    let elsewhere: HashSet<String> = (others.iter())
        .flat_map(|other| other.names.iter().cloned())
        .collect();
    // The file is what the sheet renders (the usual case of a run after a run): a patch
    // would give the same bytes, after parsing both. Compared in pieces as it is read,
    // not read whole into new memory (the unchanged run of six formats read 700 MB so).
    if elsewhere.is_empty() && crate::atomic_file::holds(path, &fresh) {
        return Ok(Kept {
            body: fresh,
            counts: Some(Counts::default()),
            beside: Vec::new(),
            unchanged: true,
        });
    }
    // the names the sheet has that another file defines: that file gets their texts
    let mut beside = Vec::new();
    if !elsewhere.is_empty() {
        let fresh_names = siblings
            .map(|siblings| (siblings.names)(&fresh))
            .transpose()
            .map_err(|e| unreadable(path, e))?
            .unwrap_or_default();
        for other in others {
            if other.names.is_disjoint(&fresh_names) {
                continue;
            }
            let patched =
                (keep.patch_as(&other.bytes, &fresh, &HashSet::new(), Gains::None, settings))
                    .map_err(|e| unreadable(&other.path, e))?;
            beside.push(Beside {
                path: other.path,
                body: patched.body,
                counts: patched.counts,
            });
        }
    }
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
    let patched = (keep.patch_as(&existing, &fresh, &elsewhere, Gains::Appended, settings))
        .map_err(|e| unreadable(path, e))?;
    Ok(Kept {
        body: patched.body,
        counts: Some(patched.counts),
        beside,
        unchanged: false,
    })
}

/// Another file of the target's folder (android: an `.xml` file of its `values*`
/// folder), with the names it defines.
struct Sibling {
    path: std::path::PathBuf,
    bytes: Vec<u8>,
    names: HashSet<String>,
}

/// The other files of the target's folder (android: its `.xml` files), in name order.
fn files_beside(
    path: &Path,
    siblings: Siblings,
    unreadable: &dyn Fn(&Path, KeepError) -> KeepFileError,
) -> Result<Vec<Sibling>, KeepFileError> {
    let mut files = Vec::new();
    let Some(folder) = path.parent() else {
        return Ok(files);
    };
    let Ok(listing) = std::fs::read_dir(folder) else {
        return Ok(files);
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
        let names = (siblings.names)(&bytes).map_err(|e| unreadable(&other, e))?;
        files.push(Sibling {
            path: other,
            bytes,
            names,
        });
    }
    Ok(files)
}

/// What `keep_at` gives: the bytes to write, and what patching did (`None`: no file was
/// there, or the format is written whole); the other files of the folder the sheet's
/// texts go to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub body: Vec<u8>,
    pub counts: Option<Counts>,
    pub beside: Vec<Beside>,
    /// The file already holds `body`, byte for byte (seen while deciding): nothing to
    /// write, and no need to read it again to tell.
    pub unchanged: bool,
}

/// Another file of the target's folder that defines some of the sheet's names, patched
/// with their texts (nothing added to it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beside {
    pub path: std::path::PathBuf,
    pub body: Vec<u8>,
    pub counts: Counts,
}

impl Kept {
    fn whole(body: Vec<u8>) -> Kept {
        Kept {
            body,
            counts: None,
            beside: Vec::new(),
            unchanged: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_holds_the_rendering_is_said_unchanged_and_any_other_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("en.properties");
        let fresh = b"a=1\nb=2\n".to_vec();
        let settings = SheetSettings::default();
        let new = keep_at(Format::Properties, &path, fresh.clone(), &settings).unwrap();
        assert!(!new.unchanged);
        std::fs::write(&path, &fresh).unwrap();
        let same = keep_at(Format::Properties, &path, fresh.clone(), &settings).unwrap();
        assert!(same.unchanged);
        assert_eq!(
            (same.body, same.counts),
            (fresh.clone(), Some(Counts::default()))
        );
        // the app's own line is kept: patched, not unchanged
        std::fs::write(&path, b"a=0\nmine=x\nb=2\n").unwrap();
        let patched = keep_at(Format::Properties, &path, fresh, &settings).unwrap();
        assert!(!patched.unchanged);
        assert_eq!(patched.body, b"a=1\nmine=x\nb=2\n");
    }

    #[test]
    fn a_chunk_starts_at_the_line_break_before_its_comments() {
        let bytes = b"a=1\n# about b\nb=2\n";
        assert_eq!(chunk_from(bytes, 3, &(14..17)), 3..17);
        assert_eq!(&bytes[chunk_from(bytes, 3, &(14..17))], b"\n# about b\nb=2");
        assert_eq!(chunk_from(b"b=2", 0, &(0..3)), 0..3);
    }

    #[test]
    fn a_name_another_file_of_the_folder_defines_gets_its_text_there() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, strings: &str| {
            let body = format!("<resources>\n{strings}</resources>\n");
            std::fs::write(dir.path().join(name), body).unwrap();
        };
        file("strings.xml", "    <string name=\"a\">A</string>\n");
        file(
            "more.xml",
            "    <string name=\"b\">B</string>\n    <string name=\"kept\">K</string>\n",
        );
        file("other.xml", "    <string name=\"c\">C</string>\n");
        let fresh = b"<resources>\n    <string name=\"a\">A</string>\n    <string name=\"b\">B2</string>\n    <string name=\"new\">N</string>\n</resources>\n";
        let kept = keep_at(
            Format::Android,
            &dir.path().join("strings.xml"),
            fresh.to_vec(),
            &SheetSettings::default(),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(kept.body).unwrap(),
            "<resources>\n    <string name=\"a\">A</string>\n    <string name=\"new\">N</string>\n</resources>\n"
        );
        assert_eq!(kept.counts.map(|c| (c.added, c.elsewhere)), Some((1, 1)));
        // more.xml gets b's text and nothing else; other.xml has none of the sheet's names
        assert_eq!(kept.beside.len(), 1);
        assert_eq!(kept.beside[0].path, dir.path().join("more.xml"));
        assert_eq!(
            String::from_utf8(kept.beside[0].body.clone()).unwrap(),
            "<resources>\n    <string name=\"b\">B2</string>\n    <string name=\"kept\">K</string>\n</resources>\n"
        );
        assert_eq!(
            kept.beside[0].counts,
            Counts {
                changed: 1,
                added: 0,
                kept: 1,
                elsewhere: 0
            }
        );
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
            Format::Xlf => format!(
                "<trans-unit id=\"{k}\"><source>{k}</source><target>{v}</target></trans-unit>\n"
            ),
            _ => format!("  \"{k}\": \"{v}\",\n"),
        };
        match format {
            Format::Android => out.push_str("<resources>\n"),
            Format::I18next | Format::Arb => out.push_str("{\n"),
            Format::Xlf => out.push_str("<xliff version=\"1.2\"><file><body>\n"),
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
            Format::Xlf => out.push_str("</body></file></xliff>\n"),
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
            Format::Xlf,
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
            // the result is the file of every key, each with the sheet's text if it has one,
            // the sheet's new keys after the app's; a JSON object's keys kept sorted (the
            // app's are, from the map) once there are two to tell
            let text = |(k, a, b, who): &(String, String, String, u8)| (k.clone(), if *who > 0 { b.clone() } else { a.clone() });
            let sorted = matches!(format, Format::I18next | Format::Arb) && app.len() > 1;
            let mut want: Vec<_> = (entries.iter()).filter(|e| sorted || e.3 < 2).map(text).collect();
            if !sorted {
                want.extend((entries.iter()).filter(|e| e.3 == 2).map(text));
            }
            let kept = entries.iter().filter(|e| e.3 == 0).count();
            prop_assert_eq!(body, String::from_utf8(file(format, &want)).unwrap());
            prop_assert_eq!(patched.counts.kept, kept);
        }
    }
}
