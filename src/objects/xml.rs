//! The S3 error body that the embedded store answers with, so that S3 clients show the code
//! and message: `<Error><Code>…</Code><Message>…</Message>…</Error>`.

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
