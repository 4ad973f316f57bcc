//! A `.csv` file as spreadsheet applications save it (SPEC §12.1): its encoding (UTF-8,
//! UTF-16 by its byte-order mark, or the Windows code page the settings name) and its
//! separator (`,`, or `;` and tab as Excel writes them), told from the file's first bytes.

use encoding_rs::Encoding;
use std::io::Read;

/// The code page a `.csv` file that is not UTF-8 is read in (`translations.sheet_encoding`,
/// `--encoding`); none: such a file is refused, saying how to save it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CodePage(Option<&'static Encoding>);

impl CodePage {
    /// The code page `translations.sheet_encoding` names (its schema lists the names:
    /// `utf-8`, and the Windows code pages Excel's "CSV (Comma delimited)" writes,
    /// `windows-1250` to `windows-1258`); `utf-8` or a name not known: none.
    pub fn named(name: &str) -> CodePage {
        CodePage(Encoding::for_label(name.as_bytes()).filter(|e| *e != encoding_rs::UTF_8))
    }

    pub(super) fn encoding(self) -> Option<&'static Encoding> {
        self.0
    }
}

/// How the file's first bytes say it is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    /// UTF-8, after this many bytes of byte-order mark (0 or 3).
    Utf8(usize),
    /// UTF-16 (little or big endian), its two-byte mark to skip.
    Utf16(&'static Encoding),
    /// Zero bytes in the text and no mark: UTF-16 whose mark was lost, or not a text file.
    Binary,
}

/// What `head` (the file's first bytes) says of its encoding.
pub(super) fn start(head: &[u8]) -> Start {
    if head.starts_with(b"\xEF\xBB\xBF") {
        Start::Utf8(3)
    } else if head.starts_with(b"\xFF\xFE") {
        Start::Utf16(encoding_rs::UTF_16LE)
    } else if head.starts_with(b"\xFE\xFF") {
        Start::Utf16(encoding_rs::UTF_16BE)
    } else if memchr::memchr(0, &head[..head.len().min(4096)]).is_some() {
        Start::Binary
    } else {
        Start::Utf8(0)
    }
}

/// The separator of a sheet whose (decoded) text starts with `head`: the one of `,`, `;`
/// and tab that the header row (the first line holding `>>>`, `###` or `$$$`, else the
/// first line that is not blank) holds most often outside quotes; `,` when it holds none.
/// Excel writes `;` where the decimal separator is `,`, and tabs for "Unicode text".
pub(super) fn separator(head: &[u8]) -> u8 {
    const MARKS: [&[u8]; 3] = [b">>>", b"###", b"$$$"];
    let lines = || head.split(|&b| b == b'\n');
    let holds_mark = |line: &&[u8]| MARKS.iter().any(|m| line.windows(3).any(|w| w == *m));
    let header = lines()
        .find(holds_mark)
        .or_else(|| lines().find(|line| !line.trim_ascii().is_empty()))
        .unwrap_or_default();
    let mut counts = [0usize; 3];
    let mut quoted = false;
    for &b in header {
        match b {
            b'"' => quoted = !quoted,
            b',' if !quoted => counts[0] += 1,
            b';' if !quoted => counts[1] += 1,
            b'\t' if !quoted => counts[2] += 1,
            _ => {}
        }
    }
    // ties go to the first: `,`, then `;`
    let mut best = 0;
    for i in 1..3 {
        if counts[i] > counts[best] {
            best = i;
        }
    }
    [b',', b';', b'\t'][best]
}

/// A reader of the UTF-8 text of bytes in `encoding`, decoded as they stream (a
/// malformed sequence reads as U+FFFD).
pub(super) struct Decoded<R> {
    inner: R,
    decoder: encoding_rs::Decoder,
    raw: Box<[u8]>,
    text: String,
    /// How much of `text` was read.
    taken: usize,
    done: bool,
}

impl<R: Read> Decoded<R> {
    /// `inner` from its first byte on; a byte-order mark of `encoding` is skipped.
    pub(super) fn new(inner: R, encoding: &'static Encoding) -> Decoded<R> {
        Decoded {
            inner,
            decoder: encoding.new_decoder_with_bom_removal(),
            raw: vec![0; 1 << 16].into_boxed_slice(),
            text: String::new(),
            taken: 0,
            done: false,
        }
    }
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.taken == self.text.len() {
            if self.done {
                return Ok(0);
            }
            let n = self.inner.read(&mut self.raw)?;
            self.done = n == 0;
            self.text.clear();
            self.taken = 0;
            let room = self
                .decoder
                .max_utf8_buffer_length(n)
                .ok_or_else(|| std::io::Error::other("a read too large to decode"))?;
            self.text.reserve(room);
            // with that room the decoder takes all of the input at once
            let _ = self
                .decoder
                .decode_to_string(&self.raw[..n], &mut self.text, self.done);
        }
        let n = out.len().min(self.text.len() - self.taken);
        out[..n].copy_from_slice(&self.text.as_bytes()[self.taken..self.taken + n]);
        self.taken += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_separator_is_the_header_rows() {
        for (text, expected) in [
            (">>>,>>>,en\nA;B;C,x\n", b','),
            (">>>;>>>;###;en_US\n", b';'),
            ("depot: placeholders=convert,,\r\n>>>;en;pl\r\n", b';'),
            ("\"a,b\";>>>;en\n", b';'),
            ("\n\n>>>\ten\tpl\n", b'\t'),
            ("key;en\nx,y,z,w\n", b';'),
            (">>>\n", b','),
            ("", b','),
        ] {
            assert_eq!(separator(text.as_bytes()), expected, "{text:?}");
        }
    }

    #[test]
    fn the_start_tells_byte_order_marks_and_zero_bytes() {
        assert_eq!(start(b"\xEF\xBB\xBF>>>"), Start::Utf8(3));
        assert_eq!(start(b">>>"), Start::Utf8(0));
        assert_eq!(start(b"\xFF\xFE>\0"), Start::Utf16(encoding_rs::UTF_16LE));
        assert_eq!(start(b"\xFE\xFF\0>"), Start::Utf16(encoding_rs::UTF_16BE));
        assert_eq!(start(b">\0>\0>\0"), Start::Binary);
    }

    #[test]
    fn code_pages_are_named_as_the_setting_names_them() {
        assert_eq!(CodePage::named("utf-8"), CodePage::default());
        assert_eq!(
            CodePage::named("windows-1250").encoding(),
            Some(encoding_rs::WINDOWS_1250)
        );
        for n in 1250..=1258 {
            let name = format!("windows-{n}");
            assert_eq!(
                CodePage::named(&name).encoding().map(|e| e.name()),
                Some(&*name)
            );
        }
    }

    #[test]
    fn decoding_streams_in_small_reads() {
        let text = "Zażółć gęślą jaźń;日本語\r\n".repeat(5000);
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        let mut reader = Decoded::new(&utf16[..], encoding_rs::UTF_16LE);
        let mut out = Vec::new();
        let mut piece = [0u8; 7];
        loop {
            let n = reader.read(&mut piece).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&piece[..n]);
        }
        assert_eq!(String::from_utf8(out).unwrap(), text);
        let (cp1250, _, _) = encoding_rs::WINDOWS_1250.encode("Zażółć „gęślą”");
        let mut decoded = String::new();
        Decoded::new(&cp1250[..], encoding_rs::WINDOWS_1250)
            .read_to_string(&mut decoded)
            .unwrap();
        assert_eq!(decoded, "Zażółć „gęślą”");
    }
}
