//! The S3 XML bodies of the embedded store's answers: its error body, so that S3 clients
//! show the code and message (`<Error><Code>…</Code><Message>…</Message>…</Error>`, sent
//! by `s3_error`), and those of the multipart calls: the results of CreateMultipartUpload
//! and CompleteMultipartUpload, and the part list a completion sends.

use quick_xml::Reader;
use quick_xml::events::Event;

/// S3's namespace, on every result document.
const NAMESPACE: &str = "http://s3.amazonaws.com/doc/2006-03-01/";

/// All four values are escaped; none may break the document.
pub fn s3_error_xml(code: &str, message: &str, resource: &str, request_id: &str) -> String {
    let mut out =
        String::with_capacity(128 + code.len() + message.len() + resource.len() + request_id.len());
    out.push_str(r#"<?xml version="1.0" encoding="UTF-8"?><Error>"#);
    for (tag, value) in [
        ("Code", code),
        ("Message", message),
        ("Resource", resource),
        ("RequestId", request_id),
    ] {
        out.push('<');
        out.push_str(tag);
        out.push('>');
        escape_into(&mut out, value);
        out.push_str("</");
        out.push_str(tag);
        out.push('>');
    }
    out.push_str("</Error>");
    out
}

/// `<InitiateMultipartUploadResult>`: the upload id of CreateMultipartUpload.
pub fn initiate_result_xml(bucket: &str, key: &str, upload_id: &str) -> String {
    result_xml(
        "InitiateMultipartUploadResult",
        &[("Bucket", bucket), ("Key", key), ("UploadId", upload_id)],
    )
}

/// `<CompleteMultipartUploadResult>`: where the object now is, and its ETag (quoted).
pub fn complete_result_xml(location: &str, bucket: &str, key: &str, etag: &str) -> String {
    result_xml(
        "CompleteMultipartUploadResult",
        &[
            ("Location", location),
            ("Bucket", bucket),
            ("Key", key),
            ("ETag", etag),
        ],
    )
}

fn result_xml(root: &str, fields: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(256);
    out.push_str(r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    out.push('<');
    out.push_str(root);
    out.push_str(" xmlns=\"");
    out.push_str(NAMESPACE);
    out.push_str("\">");
    for (tag, value) in fields {
        out.push('<');
        out.push_str(tag);
        out.push('>');
        escape_into(&mut out, value);
        out.push_str("</");
        out.push_str(tag);
        out.push('>');
    }
    out.push_str("</");
    out.push_str(root);
    out.push('>');
    out
}

/// The `(PartNumber, ETag)` pairs of a `<CompleteMultipartUpload>` body, in document order
/// (other elements, such as checksums, are ignored); `None` for a body that is not one.
pub fn parse_complete_xml(xml: &str) -> Option<Vec<(u32, String)>> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = true;
    let mut parts = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let (mut number, mut etag): (Option<String>, Option<String>) = (None, None);
    let mut seen_root = false;
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) => {
                let name = e.local_name().as_ref().to_owned();
                if path.is_empty() {
                    if name != "CompleteMultipartUpload" || seen_root {
                        return None;
                    }
                    seen_root = true;
                }
                if path.len() == 1 && name == "Part" {
                    (number, etag) = (Some(String::new()), Some(String::new()));
                }
                path.push(name);
            }
            Event::Empty(e) if path.is_empty() => {
                // `<CompleteMultipartUpload/>`: a list without parts.
                let name = e.local_name();
                return (name.as_ref() == "CompleteMultipartUpload").then(Vec::new);
            }
            Event::End(_) => {
                if path.len() == 2 && path[1] == "Part" {
                    let n = number.take()?.trim().parse::<u32>().ok()?;
                    parts.push((n, etag.take()?));
                }
                path.pop();
            }
            Event::Text(t) => push_text(&path, &mut number, &mut etag, &t.xml10_content()),
            Event::GeneralRef(r) => {
                let text = quick_xml::escape::resolve_predefined_entity(&r)?;
                push_text(&path, &mut number, &mut etag, text);
            }
            Event::Eof => return (seen_root && path.is_empty()).then_some(parts),
            _ => {}
        }
    }
}

fn push_text(path: &[String], number: &mut Option<String>, etag: &mut Option<String>, text: &str) {
    let slot = match path {
        [_, part, field] if part == "Part" && field == "PartNumber" => number,
        [_, part, field] if part == "Part" && field == "ETag" => etag,
        _ => return,
    };
    if let Some(value) = slot {
        value.push_str(text);
    }
}

/// XML 1.0 cannot carry most control characters even as references, so they become U+FFFD.
fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_lists_are_read_as_botocore_writes_them() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Part><ETag>&quot;5d41402abc4b2a76b9719d911017c592&quot;</ETag><PartNumber>1</PartNumber></Part><Part><ChecksumCRC32>NhCmhg==</ChecksumCRC32><PartNumber> 2 </PartNumber><ETag>abc</ETag></Part></CompleteMultipartUpload>"#;
        assert_eq!(
            parse_complete_xml(xml),
            Some(vec![
                (1, "\"5d41402abc4b2a76b9719d911017c592\"".to_owned()),
                (2, "abc".to_owned())
            ])
        );
        assert_eq!(
            parse_complete_xml("<CompleteMultipartUpload/>"),
            Some(vec![])
        );
        for bad in [
            "",
            "not xml",
            "<Other/>",
            "<CompleteMultipartUpload><Part><PartNumber>x</PartNumber><ETag>a</ETag></Part></CompleteMultipartUpload>",
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber></Part>",
            "<CompleteMultipartUpload></Other>",
            "<CompleteMultipartUpload></CompleteMultipartUpload><CompleteMultipartUpload></CompleteMultipartUpload>",
        ] {
            assert_eq!(parse_complete_xml(bad), None, "{bad}");
        }
    }

    #[test]
    fn results_carry_s3_namespace_and_escaped_values() {
        assert_eq!(
            initiate_result_xml("bkt", "a&b", "0123"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><InitiateMultipartUploadResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Bucket>bkt</Bucket><Key>a&amp;b</Key><UploadId>0123</UploadId></InitiateMultipartUploadResult>"
        );
        assert!(
            complete_result_xml("/objects/bkt/k", "bkt", "k", "\"e\"")
                .contains("<ETag>&quot;e&quot;</ETag>")
        );
    }

    #[test]
    fn error_body_is_escaped_s3_xml() {
        assert_eq!(
            s3_error_xml(
                "SignatureDoesNotMatch",
                "a <b> & \"c\" 'd'\u{1}",
                "/objects/bkt/a&b.txt",
                "req-1",
            ),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SignatureDoesNotMatch</Code>\
             <Message>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;\u{FFFD}</Message>\
             <Resource>/objects/bkt/a&amp;b.txt</Resource><RequestId>req-1</RequestId></Error>"
        );
    }
}
