//! `Content-Type` of a served object: the record's `fileType` when it is one well-formed
//! media type, else a guess from an extension. A table of common types, not `mime_guess`:
//! depot serves app assets, and a wrong guess only costs a download instead of an inline
//! view. And which types a browser may show inline (`display`): the rest is downloaded.

const DEFAULT: &str = "application/octet-stream";

/// Sorted by extension for the binary search.
const BY_EXTENSION: &[(&str, &str)] = &[
    ("7z", "application/x-7z-compressed"),
    ("aac", "audio/aac"),
    ("apk", "application/vnd.android.package-archive"),
    ("avif", "image/avif"),
    ("bmp", "image/bmp"),
    ("css", "text/css"),
    ("csv", "text/csv"),
    ("doc", "application/msword"),
    (
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    ("epub", "application/epub+zip"),
    ("flac", "audio/flac"),
    ("gif", "image/gif"),
    ("gz", "application/gzip"),
    ("heic", "image/heic"),
    ("htm", "text/html"),
    ("html", "text/html"),
    ("ico", "image/vnd.microsoft.icon"),
    ("jpeg", "image/jpeg"),
    ("jpg", "image/jpeg"),
    ("js", "text/javascript"),
    ("json", "application/json"),
    ("m4a", "audio/mp4"),
    ("md", "text/markdown"),
    ("mjs", "text/javascript"),
    ("mov", "video/quicktime"),
    ("mp3", "audio/mpeg"),
    ("mp4", "video/mp4"),
    ("odp", "application/vnd.oasis.opendocument.presentation"),
    ("ods", "application/vnd.oasis.opendocument.spreadsheet"),
    ("odt", "application/vnd.oasis.opendocument.text"),
    ("oga", "audio/ogg"),
    ("ogg", "audio/ogg"),
    ("ogv", "video/ogg"),
    ("otf", "font/otf"),
    ("pdf", "application/pdf"),
    ("png", "image/png"),
    ("po", "text/x-gettext-translation"),
    ("ppt", "application/vnd.ms-powerpoint"),
    (
        "pptx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ),
    ("rtf", "application/rtf"),
    ("strings", "text/plain"),
    ("svg", "image/svg+xml"),
    ("tar", "application/x-tar"),
    ("tif", "image/tiff"),
    ("tiff", "image/tiff"),
    ("ttf", "font/ttf"),
    ("txt", "text/plain"),
    ("wasm", "application/wasm"),
    ("wav", "audio/wav"),
    ("webm", "video/webm"),
    ("webp", "image/webp"),
    ("woff", "font/woff"),
    ("woff2", "font/woff2"),
    ("xlf", "application/xliff+xml"),
    ("xls", "application/vnd.ms-excel"),
    (
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    ("xml", "application/xml"),
    ("yaml", "application/yaml"),
    ("yml", "application/yaml"),
    ("zip", "application/zip"),
];

/// `file_type` when it is one well-formed media type (in its canonical form: `parse`), else
/// the type of its extension (`png`, `.PNG`, `photo.png`), else of the key's extension,
/// else `application/octet-stream`.
pub fn content_type(file_type: &str, key: &str) -> String {
    if let Some(media_type) = parse(file_type) {
        return media_type.text;
    }
    let file_type = file_type.trim();
    let file_name = key.rsplit('/').next().unwrap_or(key);
    by_extension(file_type)
        .or_else(|| {
            file_name
                .contains('.')
                .then(|| by_extension(file_name))
                .flatten()
        })
        .unwrap_or(DEFAULT)
        .to_owned()
}

/// One media type, read strictly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaType {
    /// `type/subtype`, lower-cased.
    pub essence: String,
    /// The canonical text: the essence, then each parameter as `; name=value` (the name
    /// lower-cased, the value as written).
    pub text: String,
}

/// `text` read as exactly one media type (RFC 9110 §8.3.1: `type/subtype`, then
/// `; name=value` parameters whose value is a token or a quoted string), or `None`. Stricter
/// than the grammar: no comma anywhere, quoted or not. A browser reads a `Content-Type`
/// holding a comma as a list and takes its last type (`video/mp4; a=b, text/html` is HTML
/// to Chromium), so such a text is no type at all here.
pub fn parse(text: &str) -> Option<MediaType> {
    let text = text.trim_matches(is_blank);
    if text.contains(',') {
        return None;
    }
    let (essence, mut parameters) = match text.split_once(';') {
        Some((essence, parameters)) => (essence.trim_end_matches(is_blank), Some(parameters)),
        None => (text, None),
    };
    let (kind, subtype) = essence.split_once('/')?;
    if !is_token(kind) || !is_token(subtype) {
        return None;
    }
    let essence = essence.to_ascii_lowercase();
    let mut canonical = essence.clone();
    // Each round: what follows a `;`, which must be one parameter.
    while let Some(rest) = parameters {
        let (name, after) = rest.trim_start_matches(is_blank).split_once('=')?;
        let (value, next) = parameter_value(after)?;
        if !is_token(name) {
            return None;
        }
        canonical.push_str("; ");
        canonical.push_str(&name.to_ascii_lowercase());
        canonical.push('=');
        canonical.push_str(value);
        let next = next.trim_start_matches(is_blank);
        parameters = match next.strip_prefix(';') {
            Some(more) => Some(more),
            None if next.is_empty() => None,
            None => return None,
        };
    }
    Some(MediaType {
        essence,
        text: canonical,
    })
}

/// A parameter's value at the start of `text` (a token, or a quoted string with its quotes)
/// and what follows it.
fn parameter_value(text: &str) -> Option<(&str, &str)> {
    if let Some(quoted) = text.strip_prefix('"') {
        let mut escaped = false;
        for (at, c) in quoted.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => return Some((&text[..at + 2], &quoted[at + 1..])),
                '\t' | ' '..='~' => {}
                _ => return None,
            }
        }
        return None;
    }
    let end = text.find(|c: char| !is_token_char(c)).unwrap_or(text.len());
    (end > 0).then(|| text.split_at(end))
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t')
}

fn is_token(text: &str) -> bool {
    !text.is_empty() && text.chars().all(is_token_char)
}

/// RFC 9110 `tchar`.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// How a browser may show an object of some `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    /// Inline in the browser's player: audio and video (the media sandbox policy).
    Player,
    /// Inline as what it is: a raster image, plain text (the strict sandbox policy).
    Inline,
    /// Downloaded (`Content-Disposition: attachment`): every other type, and a text that is
    /// not one well-formed type.
    Download,
}

/// The types a browser shows by itself, never as a document that could hold script or
/// markup: raster images, audio and video it plays, plain text. Not SVG, HTML, XML or any
/// `+xml` type (documents that run script), and not PDF: Chromium's viewer page of a PDF
/// keeps the real origin even under `sandbox` (measured: `window.origin` is depot's), so the
/// sandbox would not hold there.
const SHOWN_INLINE: &[(&str, Display)] = &[
    ("audio/aac", Display::Player),
    ("audio/flac", Display::Player),
    ("audio/mp4", Display::Player),
    ("audio/mpeg", Display::Player),
    ("audio/ogg", Display::Player),
    ("audio/opus", Display::Player),
    ("audio/wav", Display::Player),
    ("audio/wave", Display::Player),
    ("audio/webm", Display::Player),
    ("audio/x-flac", Display::Player),
    ("audio/x-wav", Display::Player),
    ("image/apng", Display::Inline),
    ("image/avif", Display::Inline),
    ("image/bmp", Display::Inline),
    ("image/gif", Display::Inline),
    ("image/jpeg", Display::Inline),
    ("image/png", Display::Inline),
    ("image/vnd.microsoft.icon", Display::Inline),
    ("image/webp", Display::Inline),
    ("image/x-icon", Display::Inline),
    ("text/plain", Display::Inline),
    ("video/mp4", Display::Player),
    ("video/ogg", Display::Player),
    ("video/quicktime", Display::Player),
    ("video/webm", Display::Player),
];

/// How a response whose `Content-Type` is `content_type` may be shown.
pub fn display(content_type: &str) -> Display {
    parse(content_type)
        .and_then(|media_type| {
            SHOWN_INLINE
                .binary_search_by(|(essence, _)| (*essence).cmp(media_type.essence.as_str()))
                .ok()
        })
        .map_or(Display::Download, |i| SHOWN_INLINE[i].1)
}

/// The extension after the last dot, or the whole text when it has no dot (`png`).
fn by_extension(name: &str) -> Option<&'static str> {
    let extension = name.rsplit('.').next().unwrap_or(name).to_ascii_lowercase();
    BY_EXTENSION
        .binary_search_by(|(ext, _)| (*ext).cmp(extension.as_str()))
        .ok()
        .map(|i| BY_EXTENSION[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_for_binary_search() {
        assert!(BY_EXTENSION.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn inline_table_is_sorted_for_binary_search() {
        assert!(SHOWN_INLINE.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn media_type_wins_then_file_type_extension_then_key() {
        let cases = [
            ("image/png", "x.jpg", "image/png"),
            (
                " text/plain; charset=utf-8 ",
                "x",
                "text/plain; charset=utf-8",
            ),
            ("application/vnd.api+json", "x", "application/vnd.api+json"),
            ("Audio/WAV", "x", "audio/wav"),
            ("png", "x.jpg", "image/png"),
            ("PNG", "x", "image/png"),
            (".jpeg", "x", "image/jpeg"),
            ("report.PDF", "x", "application/pdf"),
            ("", "dir/photo.WebP", "image/webp"),
            ("unknownext", "dir/archive.tar.gz", "application/gzip"),
            ("", "0b7c9f0e-6a43-original", DEFAULT),
            ("", "dir.png/noext", DEFAULT),
            ("", "png", DEFAULT),
            ("image/", "a.svg", "image/svg+xml"),
            ("/png", "a", DEFAULT),
            ("image/png\r\nX-Evil: 1", "a.gif", "image/gif"),
            ("text/ plain", "a", DEFAULT),
            // Two types, or a parameter that is not one: not served as given.
            ("video/mp4; a=b, text/html", "a", DEFAULT),
            ("video/mp4; a=b, text/html", "a.wav", "audio/wav"),
            ("image/svg+xml;foo", "a", DEFAULT),
        ];
        for (file_type, key, expected) in cases {
            assert_eq!(
                content_type(file_type, key),
                expected,
                "{file_type:?} {key:?}"
            );
        }
    }

    #[test]
    fn a_media_type_is_one_type_with_well_formed_parameters_and_no_comma() {
        for (text, canonical) in [
            ("video/mp4", "video/mp4"),
            ("VIDEO/MP4", "video/mp4"),
            ("  text/plain;charset=UTF-8\t", "text/plain; charset=UTF-8"),
            (
                "text/plain ; Charset=\"utf-8\" ;format=flowed",
                "text/plain; charset=\"utf-8\"; format=flowed",
            ),
            ("a/b; q=\"x\\\"y\"", "a/b; q=\"x\\\"y\""),
        ] {
            assert_eq!(
                parse(text).map(|t| t.text),
                Some(canonical.to_owned()),
                "{text:?}"
            );
        }
        for text in [
            "video/mp4; a=b, text/html",
            "text/html, video/mp4",
            "video/mp4;x=\"a,b\", text/html",
            "video/mp4;x=\"a,b\"",
            "VIDEO/MP4; A=B, TEXT/HTML",
            "video/mp4 , text/html",
            "video/mp4 text/html",
            "video/mp4;",
            "video/mp4; ;a=b",
            "image/svg+xml;foo",
            "video/mp4; a = b",
            "video/mp4; a=\"open",
            "video/mp4; a=b c",
            "video / mp4",
            "video/mp4/x",
            "text/html\u{0}",
            "vidéo/mp4",
            "",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }

    #[test]
    fn only_raster_images_media_and_plain_text_show_inline() {
        for (content_type, shown) in [
            ("image/png", Display::Inline),
            ("IMAGE/JPEG", Display::Inline),
            ("text/plain; charset=utf-8", Display::Inline),
            ("audio/wav", Display::Player),
            ("Video/WebM; codecs=vp9", Display::Player),
            ("image/svg+xml", Display::Download),
            ("image/svg+xml;foo", Display::Download),
            ("text/html", Display::Download),
            ("application/xhtml+xml", Display::Download),
            ("application/pdf", Display::Download),
            ("application/json", Display::Download),
            ("video/x+xml", Display::Download),
            ("video/mp4; a=b, text/html", Display::Download),
            ("text/html, video/mp4", Display::Download),
            ("video/mp4;x=\"a,b\", text/html", Display::Download),
            ("text/plain, text/html", Display::Download),
            ("application/octet-stream", Display::Download),
            ("", Display::Download),
        ] {
            assert_eq!(display(content_type), shown, "{content_type:?}");
        }
    }
}
