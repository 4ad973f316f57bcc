//! Patching an existing `.resx` (SPEC §12.1): the `<value>` of each `<data>` the sheet has
//! gets the new text; file references and other typed data (`type=`, `mimetype=`), the
//! app's comments, headers, schema and every entry the sheet lacks stay as they are.

use crate::formats::Format;
use crate::formats::keeping::{self, Keep, KeepError, Piece, Split};
use crate::formats::shared::xml_spans;

/// How resx files are patched.
pub(crate) const KEEP: Keep = Keep::Pieces {
    format: Format::Resx,
    split,
    swap: keeping::swap_body,
    wrap: (b"<root>", b"</root>"),
    siblings: None,
};

fn split(bytes: &[u8]) -> Result<Split, KeepError> {
    let (elements, root_open) = xml_spans::children(bytes)?;
    let mut previous = root_open;
    let mut pieces = Vec::new();
    for element in elements {
        let chunk = keeping::chunk_from(bytes, previous, &element.whole);
        previous = element.whole.end;
        if element.tag != "data" {
            continue;
        }
        let value = (element.children.iter())
            .find(|child| child.tag == "value")
            .and_then(|child| child.inner.clone());
        // a `<data>` without a text to swap is the app's as it is
        let fixed = element.typed || value.is_none();
        pieces.push(Piece {
            name: element.name,
            chunk,
            body: value.unwrap_or_else(|| element.whole.clone()),
            whole: element.whole,
            fixed,
        });
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

    #[test]
    fn values_change_and_file_references_stay() {
        let app = "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root>\n  <resheader name=\"resmimetype\">\n    <value>text/microsoft-resx</value>\n  </resheader>\n  <data name=\"Logo\" type=\"System.Resources.ResXFileRef, System.Windows.Forms\">\n    <value>..\\logo.png;System.Byte[]</value>\n  </data>\n  <data name=\"Title\" xml:space=\"preserve\">\n    <value>Old</value>\n    <comment>the app's</comment>\n  </data>\n</root>";
        let fresh = "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root>\n  <resheader name=\"resmimetype\">\n    <value>text/microsoft-resx</value>\n  </resheader>\n  <data name=\"Title\" xml:space=\"preserve\">\n    <value>New</value>\n  </data>\n  <data name=\"Logo\" xml:space=\"preserve\">\n    <value>text</value>\n  </data>\n  <data name=\"Added\" xml:space=\"preserve\">\n    <value>A</value>\n  </data>\n</root>";
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        let want = app.replace("<value>Old</value>", "<value>New</value>").replace(
            "</comment>\n  </data>\n",
            "</comment>\n  </data>\n  <data name=\"Added\" xml:space=\"preserve\">\n    <value>A</value>\n  </data>\n",
        );
        assert_eq!(String::from_utf8(p.body).unwrap(), want);
        assert_eq!((p.counts.changed, p.counts.added, p.counts.kept), (1, 1, 1));
    }
}
