//! Response compression: pick gzip or br from `Accept-Encoding`, and compress bodies.
//! Callers cache compressed bodies, so each variant is computed once per content.

use std::io::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Identity,
    Gzip,
    Br,
}

impl Encoding {
    /// The `Content-Encoding` value, `None` for identity.
    pub fn header(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Br => Some("br"),
        }
    }
}

/// Bodies smaller than this are sent as they are: compression would not pay.
pub const MIN_COMPRESS_LEN: usize = 1024;

/// The best encoding the client accepts: br, then gzip, else identity. Honours `q=0`.
pub fn negotiate(accept_encoding: Option<&str>) -> Encoding {
    let Some(header) = accept_encoding else {
        return Encoding::Identity;
    };
    let mut br = false;
    let mut gzip = false;
    for item in header.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let refused = parts.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        if refused {
            continue;
        }
        match name.as_str() {
            "br" => br = true,
            "gzip" | "x-gzip" => gzip = true,
            "*" => {
                br = true;
                gzip = true;
            }
            _ => {}
        }
    }
    if br {
        Encoding::Br
    } else if gzip {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

/// Compresses `body`. Levels favour speed: a new document is compressed on its first
/// request, while clients wait.
pub fn compress(body: &[u8], encoding: Encoding) -> Vec<u8> {
    match encoding {
        Encoding::Identity => body.to_vec(),
        Encoding::Gzip => {
            let mut out = flate2::write::GzEncoder::new(
                Vec::with_capacity(body.len() / 4),
                flate2::Compression::new(6),
            );
            // Writing to a Vec cannot fail.
            let _ = out.write_all(body);
            out.finish().unwrap_or_default()
        }
        Encoding::Br => {
            let mut out = Vec::with_capacity(body.len() / 4);
            {
                let mut writer = brotli::CompressorWriter::new(&mut out, 64 * 1024, 5, 22);
                let _ = writer.write_all(body);
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn negotiation_prefers_br_then_gzip_and_honours_q0() {
        assert_eq!(negotiate(None), Encoding::Identity);
        assert_eq!(negotiate(Some("gzip, deflate, br")), Encoding::Br);
        assert_eq!(negotiate(Some("gzip")), Encoding::Gzip);
        assert_eq!(negotiate(Some("br;q=0, gzip;q=0.5")), Encoding::Gzip);
        assert_eq!(negotiate(Some("identity")), Encoding::Identity);
        assert_eq!(negotiate(Some("*")), Encoding::Br);
    }

    #[test]
    fn compressed_bodies_decompress_to_the_original() {
        let body = "translations ".repeat(500).into_bytes();
        let gz = compress(&body, Encoding::Gzip);
        let mut back = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, body);
        let br = compress(&body, Encoding::Br);
        let mut back = Vec::new();
        brotli::Decompressor::new(&br[..], 4096)
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, body);
        assert!(br.len() < body.len() / 10);
    }
}
