//! `.ods`: an OpenDocument spreadsheet made with the zip and quick-xml crates already in
//! the tree (the ODS crates pull older copies of both): `mimetype` first and stored, the
//! manifest, and `content.xml` with a table per tab. Texts follow ODF's white-space rules: each
//! line is a `<text:p>`, tabs are `<text:tab/>`, and a space that would be collapsed or
//! dropped (at either end of a line, or after another space) is `<text:s/>`.

use std::io::{Cursor, Write};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::WriteError;

const MANIFEST: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:version="1.2" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
</manifest:manifest>
"#;

/// The workbook of `sheets` (name, rows), in order.
pub(super) fn encode(sheets: &[(&str, &[Vec<String>])]) -> Result<Vec<u8>, WriteError> {
    let failed = |e: &dyn std::fmt::Display| WriteError::Encode {
        kind: "ods",
        reason: e.to_string(),
    };
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    zip.start_file("mimetype", stored).map_err(|e| failed(&e))?;
    zip.write_all(b"application/vnd.oasis.opendocument.spreadsheet")
        .map_err(|e| failed(&e))?;
    zip.start_file("META-INF/manifest.xml", deflated)
        .map_err(|e| failed(&e))?;
    zip.write_all(MANIFEST.as_bytes()).map_err(|e| failed(&e))?;
    zip.start_file("content.xml", deflated)
        .map_err(|e| failed(&e))?;
    zip.write_all(&content(sheets)).map_err(|e| failed(&e))?;
    let cursor = zip.finish().map_err(|e| failed(&e))?;
    Ok(cursor.into_inner())
}

fn content(sheets: &[(&str, &[Vec<String>])]) -> Vec<u8> {
    let cells: usize = (sheets.iter())
        .flat_map(|(_, rows)| rows.iter().flatten())
        .map(|c| c.len() + 80)
        .sum();
    let mut out = Vec::with_capacity(cells + 1024);
    out.extend_from_slice(
        br#"<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:spreadsheet>"#,
    );
    for (name, rows) in sheets {
        out.extend_from_slice(b"<table:table table:name=\"");
        push_attribute(&mut out, name);
        out.extend_from_slice(b"\">");
        table(&mut out, rows);
        out.extend_from_slice(b"</table:table>");
    }
    out.extend_from_slice(b"</office:spreadsheet></office:body></office:document-content>\n");
    out
}

/// A tab's name in an attribute.
fn push_attribute(out: &mut Vec<u8>, name: &str) {
    for c in name.chars() {
        match c {
            '&' => out.extend_from_slice(b"&amp;"),
            '<' => out.extend_from_slice(b"&lt;"),
            '"' => out.extend_from_slice(b"&quot;"),
            c => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
}

/// The rows of one table.
fn table(out: &mut Vec<u8>, rows: &[Vec<String>]) {
    for row in rows {
        out.extend_from_slice(b"<table:table-row>");
        let used = row
            .iter()
            .rposition(|c| !c.is_empty())
            .map_or(0, |last| last + 1);
        let mut empty = 0usize;
        for cell in &row[..used] {
            if cell.is_empty() {
                empty += 1;
                continue;
            }
            push_empty(out, empty);
            empty = 0;
            out.extend_from_slice(b"<table:table-cell office:value-type=\"string\">");
            for line in cell.split('\n') {
                out.extend_from_slice(b"<text:p>");
                push_text(out, line);
                out.extend_from_slice(b"</text:p>");
            }
            out.extend_from_slice(b"</table:table-cell>");
        }
        if used == 0 {
            out.extend_from_slice(b"<table:table-cell/>");
        }
        out.extend_from_slice(b"</table:table-row>");
    }
}

fn push_empty(out: &mut Vec<u8>, count: usize) {
    match count {
        0 => {}
        1 => out.extend_from_slice(b"<table:table-cell/>"),
        n => {
            out.extend_from_slice(b"<table:table-cell table:number-columns-repeated=\"");
            out.extend_from_slice(n.to_string().as_bytes());
            out.extend_from_slice(b"\"/>");
        }
    }
}

/// One line of a cell: XML escapes, tabs, and the spaces ODF would not keep as spaces.
fn push_text(out: &mut Vec<u8>, line: &str) {
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            ' ' => {
                let run = chars[i..].iter().take_while(|&&c| c == ' ').count();
                let at_start = i == 0;
                let at_end = i + run == chars.len();
                // one space between two words is kept by ODF; every other one is text:s
                let literal = usize::from(!at_start && !at_end);
                if literal == 1 {
                    out.push(b' ');
                }
                match run - literal {
                    0 => {}
                    1 => out.extend_from_slice(b"<text:s/>"),
                    n => {
                        out.extend_from_slice(b"<text:s text:c=\"");
                        out.extend_from_slice(n.to_string().as_bytes());
                        out.extend_from_slice(b"\"/>");
                    }
                }
                i += run;
                continue;
            }
            '\t' => out.extend_from_slice(b"<text:tab/>"),
            '&' => out.extend_from_slice(b"&amp;"),
            '<' => out.extend_from_slice(b"&lt;"),
            '>' => out.extend_from_slice(b"&gt;"),
            c => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
        i += 1;
    }
}
