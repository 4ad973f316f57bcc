//! Patching an existing `strings.xml` (SPEC §12.1): each `<string>`, `<plurals>` the sheet
//! has gets its new content inside the app's own start tag (`translatable`, `tools:` and
//! other attributes stay); string arrays and every element the sheet lacks stay as they are.

use std::collections::HashSet;

use crate::formats::Format;
use crate::formats::keeping::{self, Keep, KeepError, Piece, Siblings, Split};
use crate::formats::shared::xml_spans::{self, Element};

/// How android files are patched.
pub(crate) const KEEP: Keep = Keep::Pieces {
    format: Format::Android,
    split,
    swap,
    wrap: (b"<resources>", b"</resources>"),
    siblings: Some(Siblings {
        extension: "xml",
        names,
        without_entries,
    }),
};

/// The resource names a file of the same `values*` folder defines.
pub fn names(bytes: &[u8]) -> Result<HashSet<String>, KeepError> {
    Ok((split(bytes)?.pieces.into_iter())
        .filter_map(|p| p.name)
        .collect())
}

/// `bytes` without its entries: what a new file in a folder of other resource files is
/// patched from (so that the names they define are left out).
pub fn without_entries(bytes: &[u8]) -> Result<Vec<u8>, KeepError> {
    let split = split(bytes)?;
    let (Some(first), Some(last)) = (split.pieces.first(), split.pieces.last()) else {
        return Ok(bytes.to_vec());
    };
    let mut out = bytes[..first.chunk.start].to_vec();
    out.extend_from_slice(&bytes[last.whole.end..]);
    Ok(out)
}

/// aapt2's resource type of an element: one name per type in a configuration.
fn kind(tag: &str) -> &str {
    match tag {
        "string-array" | "integer-array" | "array" => "array",
        other => other,
    }
}

fn split(bytes: &[u8]) -> Result<Split, KeepError> {
    let (elements, root_open) = xml_spans::children(bytes)?;
    let mut previous = root_open;
    let mut pieces = Vec::with_capacity(elements.len());
    for Element {
        tag,
        name,
        whole,
        inner,
        ..
    } in elements
    {
        // `<item type="string" name="x">` defines a string too
        let name = name.map(|name| format!("{}:{name}", kind(&tag)));
        let body = inner.unwrap_or_else(|| whole.clone());
        let chunk = keeping::chunk_from(bytes, previous, &whole);
        previous = whole.end;
        pieces.push(Piece {
            name,
            chunk,
            whole,
            body,
            fixed: false,
        });
    }
    Ok(Split {
        pieces,
        append_at: previous,
        separator: b"\n",
    })
}

const FORMATTED_FALSE: &[u8] = b" formatted=\"false\"";

/// The new content in the app's start tag; the new one's `formatted="false"` (aapt would
/// refuse the text as a format string without it) is added when the app's tag says nothing.
fn swap(existing: &[u8], old: &Piece, fresh: &[u8], new: &Piece, out: &mut Vec<u8>) {
    if old.body == old.whole {
        // `<string name="x"/>`: no content to swap, the new element whole
        out.extend_from_slice(&fresh[new.whole.clone()]);
        return;
    }
    let new_tag = &fresh[new.whole.start..new.body.start];
    let old_tag = &existing[old.whole.start..old.body.start];
    if contains(new_tag, FORMATTED_FALSE) && !contains(old_tag, b"formatted=") {
        // the app's start tag was copied just before: its `>` is the last byte out
        let at = out.len().saturating_sub(1);
        out.splice(at..at, FORMATTED_FALSE.iter().copied());
    }
    if new.body != new.whole {
        let body = &fresh[new.body.clone()];
        if contains(body, b"<xliff:") && !root_declares_xliff(existing) {
            // the app's root does not declare the namespace of the new text's <xliff:g>
            declare_xliff(body, out);
        } else {
            out.extend_from_slice(body);
        }
    }
}

/// Whether the `<resources>` start tag of `existing` declares the `xliff` prefix (read
/// from the file's start only: this runs for every new text with an `<xliff:g>`).
fn root_declares_xliff(existing: &[u8]) -> bool {
    let Some(root) = memchr::memmem::find(existing, b"<resources") else {
        return false;
    };
    let end = memchr::memchr(b'>', &existing[root..]).map_or(existing.len(), |e| root + e);
    contains(&existing[root..end], b"xmlns:xliff")
}

/// `body` with the namespace of `<xliff:…>` declared on each of its start tags.
fn declare_xliff(body: &[u8], out: &mut Vec<u8>) {
    let declaration = format!(" xmlns:xliff=\"{}\"", super::markup::XLIFF_NAMESPACE);
    let mut rest = body;
    while let Some(at) = memchr::memmem::find(rest, b"<xliff:") {
        let name_end = (rest[at..].iter())
            .position(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'>' | b'/'))
            .map_or(rest.len(), |end| at + end);
        out.extend_from_slice(&rest[..name_end]);
        out.extend_from_slice(declaration.as_bytes());
        rest = &rest[name_end..];
    }
    out.extend_from_slice(rest);
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    const APP: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<resources xmlns:tools="http://schemas.android.com/tools">
    <string name="app_name" translatable="false">Basket</string>
    <!-- the home screen -->
    <string name="home_title" tools:ignore="X">Your basket</string>
    <string-array name="sizes">
        <item>S</item>
    </string-array>
    <plurals name="items">
        <item quantity="one">%d item</item>
        <item quantity="other">%d items</item>
    </plurals>
</resources>
"#;

    fn patched(fresh: &str, elsewhere: &[&str]) -> (String, keeping::Counts) {
        let elsewhere = elsewhere.iter().map(|s| (*s).to_owned()).collect();
        let p = KEEP
            .patch(APP.as_bytes(), fresh.as_bytes(), &elsewhere)
            .unwrap();
        (String::from_utf8(p.body).unwrap(), p.counts)
    }

    #[test]
    fn the_sheets_strings_change_in_place_and_the_rest_stays() {
        let fresh = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n    <string name=\"home_title\">Your cart</string>\n    <plurals name=\"items\">\n        <item quantity=\"other\">%d things</item>\n    </plurals>\n    <string name=\"new_one\">100%% sure %s %s</string>\n    <string name=\"other\">x</string>\n</resources>\n";
        let (body, counts) = patched(fresh, &["string:other"]);
        let want = APP
            .replace(">Your basket<", ">Your cart<")
            .replace(
                "\n        <item quantity=\"one\">%d item</item>\n        <item quantity=\"other\">%d items</item>\n    </plurals>",
                "\n        <item quantity=\"other\">%d things</item>\n    </plurals>\n    <string name=\"new_one\">100%% sure %s %s</string>",
            );
        assert_eq!(body, want);
        assert_eq!(
            counts,
            keeping::Counts {
                changed: 2,
                added: 1,
                kept: 2,
                elsewhere: 1
            }
        );
    }

    #[test]
    fn formatted_false_of_the_new_text_is_added_to_the_apps_tag() {
        let fresh = "<resources>\n<string name=\"app_name\" formatted=\"false\">%s %s</string>\n</resources>";
        let (body, _) = patched(fresh, &[]);
        assert!(
            body.contains(
                "<string name=\"app_name\" translatable=\"false\" formatted=\"false\">%s %s</string>"
            ),
            "{body}"
        );
    }

    #[test]
    fn a_new_xliff_g_in_a_file_without_its_namespace_declares_it() {
        let fresh = "<resources xmlns:xliff=\"urn:oasis:names:tc:xliff:document:1.2\">\n<string name=\"home_title\">Hi <xliff:g id=\"n\">%1$s</xliff:g></string>\n</resources>";
        let (body, _) = patched(fresh, &[]);
        assert!(
            body.contains(
                "<string name=\"home_title\" tools:ignore=\"X\">Hi <xliff:g xmlns:xliff=\"urn:oasis:names:tc:xliff:document:1.2\" id=\"n\">%1$s</xliff:g></string>"
            ),
            "{body}"
        );
        let declared = APP.replace(
            "<resources ",
            "<resources xmlns:xliff=\"urn:oasis:names:tc:xliff:document:1.2\" ",
        );
        let p = KEEP
            .patch(declared.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        let body = String::from_utf8(p.body).unwrap();
        assert!(
            body.contains(">Hi <xliff:g id=\"n\">%1$s</xliff:g><"),
            "{body}"
        );
    }

    /// A sheet that holds Android markup (android=markup) owns a string's tags: the app's
    /// element stays where its text and tags read the same, and is replaced where only the
    /// tags changed; a sheet without it holds the text alone, and the app's tags stay.
    #[test]
    fn with_markup_a_string_whose_tags_changed_is_replaced() {
        let app = "<resources>\n    <string name=\"on\">Protections are <b>ON</b></string>\n</resources>\n";
        let patch = |fresh: &str, markup: bool| {
            let settings = crate::model::SheetSettings {
                android_markup: markup,
                ..Default::default()
            };
            let p = (KEEP.patch_as(
                app.as_bytes(),
                fresh.as_bytes(),
                &HashSet::new(),
                keeping::Gains::Appended,
                &settings,
            ))
            .unwrap();
            String::from_utf8(p.body).unwrap()
        };
        let same =
            "<resources>\n<string name=\"on\">Protections are <b>ON</b></string>\n</resources>";
        assert_eq!(patch(same, true), app);
        let italic =
            "<resources>\n<string name=\"on\">Protections are <i>ON</i></string>\n</resources>";
        assert_eq!(patch(italic, true), app.replace("<b>ON</b>", "<i>ON</i>"));
        let plain = "<resources>\n<string name=\"on\">Protections are ON</string>\n</resources>";
        assert_eq!(patch(plain, true), app.replace("<b>ON</b>", "ON"));
        assert_eq!(patch(plain, false), app);
    }

    #[test]
    fn a_file_of_the_same_folder_gives_its_names() {
        let names = names(APP.as_bytes()).unwrap();
        assert!(names.contains("string:app_name") && names.contains("array:sizes"));
        assert!(names.contains("plurals:items"));
    }
}
