//! The memory budget for input files (`limits.input_memory_bytes`) through the real
//! binary: the bombs that took gigabytes (an 86 MB json of 4 million keys, a 70 MB
//! `.properties`, an `.xlsx` of 2 GB of sheet XML, one holding a 1 GB shared string) are
//! refused with one line naming the file, the limit and how to raise it, and the depot
//! process peaks under 512 MB (measured by `/usr/bin/time`, which waits on it). The bombs
//! are written streamed, the workbooks as a deflate block repeated (a few megabytes on
//! disk), so the test stays cheap.
#![cfg(test)]

mod support;

use std::io::Write;
use std::path::Path;
use std::process::Output;

const TIME: &str = "/usr/bin/time";
const TIME_HINT: &str = "install GNU time: apt-get install -y time, or run scripts/test";
/// The peak the bombs must stay under.
const PEAK_LIMIT_KB: u64 = 512 * 1024;
const RAISE: &str = "raise it with --max-memory SIZE (import, diff, generate), --set \
                     limits.input_memory_bytes=BYTES or DEPOT_INPUT_MEMORY_BYTES";

/// Runs depot in `dir` under `/usr/bin/time`; its output, and its peak resident memory in
/// KiB.
fn run_measured(dir: &Path, args: &[&str]) -> (Output, u64) {
    assert!(Path::new(TIME).exists(), "{TIME} is missing: {TIME_HINT}");
    let report = dir.join("time.txt");
    let depot = support::depot(dir);
    let mut time = std::process::Command::new(TIME);
    // the environment depot gets in every test (no DEPOT_*, SERVICE_* of the machine)
    for (name, value) in depot.get_envs() {
        match value {
            Some(value) => time.env(name, value),
            None => time.env_remove(name),
        };
    }
    let output = time
        .current_dir(dir)
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&report)
        .arg(depot.get_program())
        .args(args)
        .output()
        .unwrap();
    let peak = std::fs::read_to_string(&report).unwrap();
    let peak = peak.trim().lines().last().unwrap().trim().parse().unwrap();
    // the figures of docs/performance.md: `cargo test --test memory_budget -- --nocapture`
    eprintln!("peak {peak} KiB: depot {}", args.join(" "));
    (output, peak)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts that depot refused with exit 1 and exactly `message` (after `depot: error: `),
/// peaking under 512 MB.
fn assert_refused(out: &Output, peak_kb: u64, message: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("depot: error: "))
        .unwrap_or_else(|| panic!("no error line in {err}"));
    assert_eq!(line, format!("depot: error: {message}"));
    assert!(
        peak_kb < PEAK_LIMIT_KB,
        "depot peaked at {peak_kb} KiB, over {PEAK_LIMIT_KB}"
    );
}

/// Writes `count` lines made by `line` to `path`, streamed.
fn write_lines(path: &Path, head: &str, count: usize, line: impl Fn(usize) -> String, tail: &str) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    out.write_all(head.as_bytes()).unwrap();
    for i in 0..count {
        out.write_all(line(i).as_bytes()).unwrap();
    }
    out.write_all(tail.as_bytes()).unwrap();
    out.flush().unwrap();
}

/// A json file of `keys` keys `k<prefix><number>`, each its own, one-word texts.
fn write_json_keys(path: &Path, keys: usize, prefix: &str) {
    write_lines(
        path,
        "{",
        keys,
        |i| {
            format!(
                "{}\"k{prefix}{i:07}\":\"v{i:07}\"",
                if i == 0 { "" } else { "," }
            )
        },
        "}",
    );
}

/// Asserts that depot exited with `code`, its stderr holding `fragment`.
fn assert_fails(out: &Output, code: i32, fragment: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert!(err.contains(fragment), "{err}");
}

#[test]
fn an_86_mb_json_of_4_million_keys_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let keys = 4_000_000;
    write_json_keys(&dir.path().join("en.json"), keys, "");
    let size = std::fs::metadata(dir.path().join("en.json")).unwrap().len();
    assert_eq!(size, 88_000_001);
    let (out, peak) = run_measured(dir.path(), &["import", "en.json", "--to", "sheet.csv"]);
    assert_refused(
        &out,
        peak,
        &format!(
            "en.json: 83.9 MiB of json takes about 2.6 GiB of memory to read, more than the \
             1.0 GiB allowed (limits.input_memory_bytes); {RAISE}"
        ),
    );
    assert!(!dir.path().join("sheet.csv").exists());
}

#[test]
fn a_70_mb_properties_file_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("messages_en.properties");
    write_lines(&path, "", 3_900_000, |i| format!("k{i:07}=v{i:07}\n"), "");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 70_200_000);
    let (out, peak) = run_measured(
        dir.path(),
        &["import", "messages_en.properties", "--to", "sheet.csv"],
    );
    assert_refused(
        &out,
        peak,
        &format!(
            "messages_en.properties: 66.9 MiB of properties takes about 2.6 GiB of memory to \
             read, more than the 1.0 GiB allowed (limits.input_memory_bytes); {RAISE}"
        ),
    );
}

#[test]
fn the_budget_is_raised_and_lowered_by_max_memory() {
    let dir = tempfile::tempdir().unwrap();
    write_json_keys(&dir.path().join("en.json"), 100_000, "");
    let import = ["import", "en.json", "--to", "sheet.csv"];
    let with = |size: &'static str| [&import[..], &["--max-memory", size]].concat();
    let (out, _) = run_measured(dir.path(), &with("16M"));
    assert_fails(
        &out,
        1,
        "en.json: 2.1 MiB of json takes about 67.1 MiB of memory to read, more than the 16.0 \
         MiB allowed (limits.input_memory_bytes)",
    );
    // the same file within the default budget
    let (out, _) = run_measured(dir.path(), &import);
    assert!(out.status.success(), "{}", stderr(&out));
    let (out, _) = run_measured(dir.path(), &with("lots"));
    assert_fails(
        &out,
        2,
        "must be a size in bytes, or with K, M, G or T (3G, 512M); got 'lots'",
    );
}

#[test]
fn files_that_fit_one_by_one_are_refused_once_what_they_add_up_to_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app");
    std::fs::create_dir(&app).unwrap();
    // four locales of 25,000 keys each, every key its own: each file fits the budget, the
    // document they make does not
    for (n, locale) in ["en", "pl", "de", "fr"].iter().enumerate() {
        write_json_keys(&app.join(format!("{locale}.json")), 25_000, &n.to_string());
    }
    let (out, peak) = run_measured(
        dir.path(),
        &["import", "app", "--to", "sheet.csv", "--max-memory", "24M"],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(peak < PEAK_LIMIT_KB, "{peak} KiB");
    let line = err
        .lines()
        .find(|l| l.starts_with("depot: error: "))
        .unwrap();
    // the second file read (in path order: de, en, fr, pl) is the one that does not fit
    assert!(
        line.starts_with(&format!(
            "depot: error: {}: 561.5 KiB of json, beside the ",
            Path::new("app").join("en.json").display()
        )),
        "{line}"
    );
    assert!(
        line.contains(" the files before it take, takes about ")
            && line.contains(" more than the 24.0 MiB allowed (limits.input_memory_bytes); "),
        "{line}"
    );
    assert!(!dir.path().join("sheet.csv").exists());
    // with room, the same files import
    let (out, _) = run_measured(dir.path(), &["import", "app", "--to", "sheet.csv"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_local_sheet_is_held_to_the_budget_by_generate() {
    let dir = tempfile::tempdir().unwrap();
    write_lines(
        &dir.path().join("sheet.csv"),
        ">>>,en,pl\n",
        100_000,
        |i| format!("KEY{i:07},text {i:07},tekst {i:07}\n"),
        "",
    );
    let generate = [
        "generate",
        "--source",
        "sheet.csv",
        "-f",
        "json",
        "-p",
        "out",
    ];
    let (out, _) = run_measured(
        dir.path(),
        &[&generate[..], &["--max-memory", "16M"]].concat(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "sheet.csv: 3.6 MiB of csv takes about 21.7 MiB of memory to read, more than the \
             16.0 MiB allowed (limits.input_memory_bytes); "
        ),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("out").exists());
    let (out, _) = run_measured(dir.path(), &generate);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A zip entry: its name, and its data as raw deflate (or stored when `deflated` is false)
/// with the CRC and size of what it inflates to.
struct Entry {
    name: &'static str,
    data: Vec<u8>,
    deflated: bool,
    crc: u32,
    size: u64,
}

impl Entry {
    fn stored(name: &'static str, text: &str) -> Entry {
        Entry {
            name,
            data: text.as_bytes().to_vec(),
            deflated: false,
            crc: crc32fast::hash(text.as_bytes()),
            size: text.len() as u64,
        }
    }

    /// `head`, then `block` repeated `times`, then `tail`, as one deflate stream made of
    /// the three compressed once each (a block compressed alone refers to nothing before
    /// it, so its bytes repeated inflate to the block repeated).
    fn repeated(name: &'static str, head: &str, block: &[u8], times: u64, tail: &str) -> Entry {
        let mut data = deflate(head.as_bytes(), flate2::FlushCompress::Sync);
        let block_data = deflate(block, flate2::FlushCompress::Sync);
        for _ in 0..times {
            data.extend_from_slice(&block_data);
        }
        data.extend(deflate(tail.as_bytes(), flate2::FlushCompress::Finish));
        let mut crc = crc32fast::Hasher::new();
        crc.update(head.as_bytes());
        let mut power = crc32fast::Hasher::new();
        power.update(block);
        let mut left = times;
        while left > 0 {
            if left & 1 == 1 {
                crc.combine(&power);
            }
            let twice = power.clone();
            power.combine(&twice);
            left >>= 1;
        }
        let mut tail_crc = crc32fast::Hasher::new();
        tail_crc.update(tail.as_bytes());
        crc.combine(&tail_crc);
        Entry {
            name,
            data,
            deflated: true,
            crc: crc.finalize(),
            size: head.len() as u64 + block.len() as u64 * times + tail.len() as u64,
        }
    }
}

/// `input` as raw deflate, ended by `flush`.
fn deflate(input: &[u8], flush: flate2::FlushCompress) -> Vec<u8> {
    let mut compress = flate2::Compress::new(flate2::Compression::best(), false);
    let mut out = Vec::with_capacity(input.len() / 64 + 1024);
    loop {
        let consumed = compress.total_in() as usize;
        out.reserve(64 << 10);
        let status = compress
            .compress_vec(&input[consumed..], &mut out, flush)
            .unwrap();
        let done = compress.total_in() as usize == input.len() && out.len() < out.capacity();
        if done || status == flate2::Status::StreamEnd {
            return out;
        }
    }
}

/// Writes a zip of `entries`; with `declared`, every size in its headers says that
/// instead of the truth (the CRC stays true).
fn write_zip(path: &Path, entries: &[Entry], declared: Option<u32>) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut central = Vec::new();
    let mut offset = 0u32;
    for entry in entries {
        let size = declared.unwrap_or_else(|| u32::try_from(entry.size).unwrap());
        let method: u16 = if entry.deflated { 8 } else { 0 };
        let compressed = u32::try_from(entry.data.len()).unwrap();
        let name = entry.name.as_bytes();
        let mut local = Vec::new();
        local.extend(0x0403_4b50u32.to_le_bytes());
        local.extend(20u16.to_le_bytes());
        local.extend(0u16.to_le_bytes());
        local.extend(method.to_le_bytes());
        local.extend(0u16.to_le_bytes());
        local.extend(0x21u16.to_le_bytes());
        local.extend(entry.crc.to_le_bytes());
        local.extend(compressed.to_le_bytes());
        local.extend(size.to_le_bytes());
        local.extend(u16::try_from(name.len()).unwrap().to_le_bytes());
        local.extend(0u16.to_le_bytes());
        local.extend(name);
        out.write_all(&local).unwrap();
        out.write_all(&entry.data).unwrap();
        central.extend(0x0201_4b50u32.to_le_bytes());
        central.extend(20u16.to_le_bytes());
        central.extend(local[4..30].iter());
        central.extend(0u16.to_le_bytes()); // comment
        central.extend(0u16.to_le_bytes()); // disk
        central.extend(0u16.to_le_bytes()); // internal attributes
        central.extend(0u32.to_le_bytes()); // external attributes
        central.extend(offset.to_le_bytes());
        central.extend(name);
        offset += u32::try_from(local.len()).unwrap() + compressed;
    }
    out.write_all(&central).unwrap();
    let mut end = Vec::new();
    end.extend(0x0605_4b50u32.to_le_bytes());
    end.extend(0u16.to_le_bytes());
    end.extend(0u16.to_le_bytes());
    let count = u16::try_from(entries.len()).unwrap();
    end.extend(count.to_le_bytes());
    end.extend(count.to_le_bytes());
    end.extend(u32::try_from(central.len()).unwrap().to_le_bytes());
    end.extend(offset.to_le_bytes());
    end.extend(0u16.to_le_bytes());
    out.write_all(&end).unwrap();
    out.flush().unwrap();
}

const SHEET_HEAD: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#;
const SHEET_TAIL: &str = "</sheetData></worksheet>";

/// The parts of a one-sheet workbook beside its sheet (and shared strings).
fn workbook_parts(shared_strings: bool) -> Vec<Entry> {
    let strings_type = if shared_strings {
        r#"<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>"#
    } else {
        ""
    };
    let strings_rel = if shared_strings {
        r#"<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>"#
    } else {
        ""
    };
    vec![
        Entry::stored(
            "[Content_Types].xml",
            &format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>{strings_type}</Types>"#
            ),
        ),
        Entry::stored(
            "_rels/.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#,
        ),
        Entry::stored(
            "xl/workbook.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Translations" sheetId="1" r:id="rId1"/></sheets></workbook>"#,
        ),
        Entry::stored(
            "xl/_rels/workbook.xml.rels",
            &format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>{strings_rel}</Relationships>"#
            ),
        ),
    ]
}

/// 2 GiB of sheet XML: rows of one inline-string cell.
fn rows_workbook(path: &Path, declared: Option<u32>) {
    let row = r#"<row><c t="inlineStr"><is><t>x</t></is></c></row>"#;
    let block = row.repeat((1 << 20) / row.len());
    let mut entries = workbook_parts(false);
    let times = (2u64 << 30) / block.len() as u64;
    entries.push(Entry::repeated(
        "xl/worksheets/sheet1.xml",
        SHEET_HEAD,
        block.as_bytes(),
        times,
        SHEET_TAIL,
    ));
    write_zip(path, &entries, declared);
}

/// One shared string of 1 GiB, shown by the sheet's first cells.
fn shared_string_workbook(path: &Path, declared: Option<u32>) {
    let mut entries = workbook_parts(true);
    entries.push(Entry::stored(
        "xl/worksheets/sheet1.xml",
        &format!(
            r#"{SHEET_HEAD}<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>0</v></c></row>{SHEET_TAIL}"#
        ),
    ));
    entries.push(Entry::repeated(
        "xl/sharedStrings.xml",
        r#"<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="2" uniqueCount="1"><si><t>"#,
        &[b'x'; 1 << 20],
        1 << 10,
        "</t></si></sst>",
    ));
    write_zip(path, &entries, declared);
}

/// A json file for import to merge into the workbook.
fn app(dir: &Path) {
    std::fs::write(dir.join("en.json"), r#"{"HELLO":"Hello"}"#).unwrap();
}

#[test]
fn an_xlsx_of_2_gb_of_sheet_xml_is_refused_by_its_declared_size_and_by_what_it_inflates_to() {
    let dir = tempfile::tempdir().unwrap();
    app(dir.path());
    rows_workbook(&dir.path().join("rows.xlsx"), None);
    let size = std::fs::metadata(dir.path().join("rows.xlsx"))
        .unwrap()
        .len();
    assert!(size < 8 << 20, "{size}");
    let zipped = depot_human(size);
    let (out, peak) = run_measured(
        dir.path(),
        &[
            "import",
            "en.json",
            "--to",
            "out.csv",
            "--merge-into",
            "rows.xlsx",
        ],
    );
    assert_refused(
        &out,
        peak,
        &format!(
            "rows.xlsx: the workbook ({zipped} zipped, 2.0 GiB of XML once inflated) takes \
             about 8.0 GiB of memory to read, more than the 1.0 GiB allowed \
             (limits.input_memory_bytes); {RAISE}"
        ),
    );
    // Sizes that lie: the zip reader stops at what they say (and depot's count at the
    // budget, were it to read on).
    rows_workbook(&dir.path().join("lies.xlsx"), Some(1000));
    let (out, peak) = run_measured(
        dir.path(),
        &[
            "generate",
            "--source",
            "lies.xlsx",
            "-f",
            "json",
            "-p",
            "out",
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(peak < PEAK_LIMIT_KB, "{peak} KiB");
    assert!(
        err.contains(
            "lies.xlsx is not a readable .xlsx workbook (sheet 'Translations': Xml error: I/O \
             error: File is larger than its declared uncompressed size)"
        ),
        "{err}"
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn an_xlsx_holding_a_1_gb_shared_string_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    app(dir.path());
    shared_string_workbook(&dir.path().join("string.xlsx"), None);
    let zipped = depot_human(
        std::fs::metadata(dir.path().join("string.xlsx"))
            .unwrap()
            .len(),
    );
    let merge = [
        "import",
        "en.json",
        "--to",
        "out.csv",
        "--merge-into",
        "string.xlsx",
    ];
    let (out, peak) = run_measured(dir.path(), &merge);
    assert_refused(
        &out,
        peak,
        &format!(
            "string.xlsx: the workbook ({zipped} zipped, 1.0 GiB of XML once inflated) takes \
             about 4.0 GiB of memory to read, more than the 1.0 GiB allowed \
             (limits.input_memory_bytes); {RAISE}"
        ),
    );
    // With room for the XML, the one string is still too long for a cell: found after
    // its first megabyte.
    let (out, peak) = run_measured(dir.path(), &[&merge[..], &["--max-memory", "8G"]].concat());
    assert_refused(
        &out,
        peak,
        "string.xlsx: a shared string in xl/sharedStrings.xml holds more than 1.0 MiB of \
         text; depot reads up to that much in one cell (a spreadsheet holds at most 50,000 \
         characters in one)",
    );
}

/// Sizes as depot prints them.
fn depot_human(bytes: u64) -> String {
    let mut value = bytes as f64 / 1024.0;
    let mut unit = "KiB";
    if value >= 1024.0 {
        value /= 1024.0;
        unit = "MiB";
    }
    format!("{value:.1} {unit}")
}
