//! Workbooks whose XML the fuzzer writes: the input, split at 0xFF bytes (never part of
//! UTF-8 text), replaces the members named in `members` in order; an empty piece keeps the
//! fixture's member. Zipped stored with valid checksums, so the bytes reach calamine's XML
//! readers instead of failing the zip's CRC check as a mutated file does.

use std::io::{Cursor, Read, Write};
use std::sync::OnceLock;

use zip::write::SimpleFileOptions;

#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Xlsx,
    Ods,
}

impl Kind {
    /// The members the input replaces, in order.
    pub fn members(self) -> &'static [&'static str] {
        match self {
            Kind::Xlsx => &[
                "xl/worksheets/sheet1.xml",
                "xl/sharedStrings.xml",
                "xl/workbook.xml",
                "xl/styles.xml",
                "xl/_rels/workbook.xml.rels",
                "xl/worksheets/sheet2.xml",
                "[Content_Types].xml",
            ],
            Kind::Ods => &[
                "content.xml",
                "styles.xml",
                "meta.xml",
                "META-INF/manifest.xml",
            ],
        }
    }

    fn fixture(self) -> &'static str {
        match self {
            Kind::Xlsx => "types.xlsx",
            Kind::Ods => "types.ods",
        }
    }
}

/// The members of a fixture workbook, in archive order.
pub fn fixture_members(name: &str) -> Vec<(String, Vec<u8>)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/sheets")
        .join(name);
    let bytes = std::fs::read(&path).expect("fixture workbook");
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("fixture is a zip");
    (0..archive.len())
        .map(|i| {
            let mut member = archive.by_index(i).expect("fixture member");
            let mut content = Vec::new();
            member
                .read_to_end(&mut content)
                .expect("fixture member reads");
            (member.name().expect("member name").into_owned(), content)
        })
        .collect()
}

/// The fuzz input for the fixture `name` as it is (a seed for the corpus).
pub fn seed(kind: Kind, name: &str) -> Vec<u8> {
    let members = fixture_members(name);
    let mut out = Vec::new();
    for (i, wanted) in kind.members().iter().enumerate() {
        if i > 0 {
            out.push(0xFF);
        }
        if let Some((_, content)) = members.iter().find(|(n, _)| n == wanted) {
            out.extend_from_slice(content);
        }
    }
    out
}

/// The workbook file for a fuzz input.
pub fn build(kind: Kind, data: &[u8]) -> Vec<u8> {
    static XLSX: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    static ODS: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    let cell = match kind {
        Kind::Xlsx => &XLSX,
        Kind::Ods => &ODS,
    };
    let fixture = cell.get_or_init(|| fixture_members(kind.fixture()));
    let pieces: Vec<&[u8]> = data.split(|&b| b == 0xFF).collect();
    let replaced = |name: &str| {
        let at = kind.members().iter().position(|m| *m == name)?;
        pieces.get(at).copied().filter(|p| !p.is_empty())
    };
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut written = Vec::new();
    for (name, content) in fixture {
        writer
            .start_file(name.as_str(), stored)
            .expect("zip member");
        writer
            .write_all(replaced(name).unwrap_or(content))
            .expect("zip write");
        written.push(name.as_str());
    }
    // Members the fixture lacks (xlsx shared strings) are added when the input has them.
    for name in kind.members() {
        if !written.contains(name)
            && let Some(content) = replaced(name)
        {
            writer.start_file(*name, stored).expect("zip member");
            writer.write_all(content).expect("zip write");
        }
    }
    writer.finish().expect("zip finishes").into_inner()
}
