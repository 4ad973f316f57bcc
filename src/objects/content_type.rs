//! `Content-Type` of a served object: the record's `fileType` when it is a media type, else
//! a guess from an extension. A table of common types, not `mime_guess`: depot serves app
//! assets, and a wrong guess only costs a download instead of an inline view.

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

/// `file_type` as given when it looks like a media type (`type/subtype`, header-safe), else
/// the type of its extension (`png`, `.PNG`, `photo.png`), else of the key's extension, else
/// `application/octet-stream`.
pub fn content_type(file_type: &str, key: &str) -> String {
    let file_type = file_type.trim();
    if is_media_type(file_type) {
        return file_type.to_owned();
    }
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

fn is_media_type(text: &str) -> bool {
    let Some((kind, rest)) = text.split_once('/') else {
        return false;
    };
    let subtype = rest.split(';').next().unwrap_or(rest).trim_end();
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    // Parameters may hold more, but nothing that would break a header line.
    token(kind)
        && token(subtype)
        && text
            .bytes()
            .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
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
    fn media_type_wins_then_file_type_extension_then_key() {
        let cases = [
            ("image/png", "x.jpg", "image/png"),
            (
                " text/plain; charset=utf-8 ",
                "x",
                "text/plain; charset=utf-8",
            ),
            ("application/vnd.api+json", "x", "application/vnd.api+json"),
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
        ];
        for (file_type, key, expected) in cases {
            assert_eq!(
                content_type(file_type, key),
                expected,
                "{file_type:?} {key:?}"
            );
        }
    }
}
