//! Patching an existing `Localizable.stringsdict` (SPEC §12.1): each plural entry the sheet
//! has (a `<key>` and its `<dict>` in the top dictionary) gets the new `<dict>` in place;
//! entries the sheet lacks (nested substitutions it cannot hold) stay as they are.

use crate::formats::Format;
use crate::formats::keeping::{self, Keep, KeepError, Piece, Split};
use crate::formats::shared::xml_spans;

/// How stringsdict files are patched.
pub(crate) const KEEP: Keep = Keep::Pieces {
    format: Format::Stringsdict,
    split,
    swap: keeping::swap_body,
    wrap: (b"<plist><dict>", b"</dict></plist>"),
    siblings: None,
};

fn split(bytes: &[u8]) -> Result<Split, KeepError> {
    let (elements, _) = xml_spans::children(bytes)?;
    let top = (elements.into_iter())
        .find(|e| e.tag == "dict")
        .ok_or_else(|| KeepError::new(0, "no <dict> in the <plist>"))?;
    let Some(inner) = top.inner else {
        return Err(KeepError::new(top.whole.start, "the top <dict> is empty"));
    };
    let mut previous = inner.start;
    let mut pieces = Vec::new();
    let mut children = top.children.into_iter();
    while let Some(key) = children.next() {
        if key.tag != "key" {
            return Err(KeepError::new(
                key.whole.start,
                "expected a <key> in the top <dict>",
            ));
        }
        let value = children
            .next()
            .ok_or_else(|| KeepError::new(key.whole.end, "a <key> without its value"))?;
        let raw = key.inner.map_or(&[][..], |inner| &bytes[inner]);
        let name = quick_xml::escape::unescape(&String::from_utf8_lossy(raw))
            .map_err(|e| KeepError::new(key.whole.start, format!("a malformed <key>: {e}")))?
            .into_owned();
        let whole = key.whole.start..value.whole.end;
        pieces.push(Piece {
            name: Some(name),
            chunk: keeping::chunk_from(bytes, previous, &whole),
            body: value.whole,
            whole,
            fixed: false,
        });
        previous = pieces.last().map_or(previous, |p| p.whole.end);
    }
    Ok(Split {
        pieces,
        append_at: previous,
        separator: b"\n",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const APP: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n\t<key>a</key>\n\t<dict>\n\t\t<key>NSStringLocalizedFormatKey</key>\n\t\t<string>%#@n@</string>\n\t</dict>\n\t<key>only &amp; app</key>\n\t<dict/>\n</dict>\n</plist>\n";

    #[test]
    fn entries_are_key_and_dict_pairs_of_the_top_dict() {
        let split = split(APP.as_bytes()).unwrap();
        let names: Vec<_> = split
            .pieces
            .iter()
            .map(|p| p.name.clone().unwrap())
            .collect();
        assert_eq!(names, ["a", "only & app"]);
        assert_eq!(&APP[split.pieces[1].body.clone()], "<dict/>");
        assert_eq!(&APP[split.append_at..], "\n</dict>\n</plist>\n");
        let p = KEEP
            .patch(APP.as_bytes(), APP.as_bytes(), &HashSet::new())
            .unwrap();
        assert_eq!(p.body, APP.as_bytes());
    }
}
