//! `POST /files` multipart bodies through the router (warp's multer underneath, then
//! depot's form reading): never a 500 or a panic; an upload that answers 201 is the record
//! of the content sent: its signed URL serves exactly the last `file` part's bytes, and
//! `DELETE /file` removes it (204, then 404).
#![no_main]

use arbitrary::Arbitrary;
use depot_fuzz::app::{self, ADMIN_KEY, HOST, Request};

#[derive(Debug, Arbitrary)]
enum Name {
    File,
    Bucket,
    Permission,
    Description,
    Status,
    Other(String),
}

#[derive(Debug, Arbitrary)]
struct Part {
    name: Name,
    /// Quoted as it is into the `Content-Disposition` (quotes and backslashes included).
    file_name: Option<String>,
    content_type: Option<String>,
    /// Extra header lines of the part, written as they are.
    extra_headers: Vec<String>,
    body: Vec<u8>,
}

#[derive(Debug, Arbitrary)]
enum Boundary {
    Plain,
    Quoted,
    Raw(String),
}

#[derive(Debug, Arbitrary)]
struct Input {
    boundary: Boundary,
    parts: Vec<Part>,
    /// Bytes after the closing delimiter (or instead of it, when `close` is false).
    tail: Vec<u8>,
    close: bool,
    /// A `Content-Type` header of the fuzzer's own instead of multipart/form-data.
    content_type: Option<String>,
    admin: bool,
    range: Option<String>,
}

const BOUNDARY: &str = "----depotFuzzBoundary7MA4YWxkTrZu0gW";

libfuzzer_sys::fuzz_target!(|input: Input| {
    let app = app::app();
    let raw_boundary = matches!(input.boundary, Boundary::Raw(_));
    let (boundary, header_boundary) = match input.boundary {
        Boundary::Plain => (BOUNDARY.to_owned(), BOUNDARY.to_owned()),
        Boundary::Quoted => (BOUNDARY.to_owned(), format!("\"{BOUNDARY}\"")),
        Boundary::Raw(raw) => (raw.clone(), raw),
    };
    // Whether the parts are what they look like: no text that ends a header early or starts
    // another part, no quote that changes a name. Only then is the last `file` part's body
    // known to be the upload (the server is free to read a crafted body otherwise).
    let plain = |text: &str| !text.contains(['"', '\\', '\r', '\n']);
    let delimiter = format!("--{boundary}");
    let clean = !raw_boundary
        && input.close
        && input.content_type.is_none()
        && input.parts.iter().all(|part| {
            let name_ok = match &part.name {
                Name::Other(other) => plain(other),
                _ => true,
            };
            name_ok
                && part.file_name.as_deref().is_none_or(plain)
                && part.content_type.as_deref().is_none_or(plain)
                && part.extra_headers.iter().all(|line| {
                    plain(line)
                        && line.contains(':')
                        && !line
                            .trim_start()
                            .to_ascii_lowercase()
                            .starts_with("content-")
                })
                && !part
                    .body
                    .windows(delimiter.len())
                    .any(|w| w == delimiter.as_bytes())
        });
    let mut body = Vec::new();
    let mut last_file = None;
    for part in &input.parts {
        let name = match &part.name {
            Name::File => "file",
            Name::Bucket => "bucket",
            Name::Permission => "permission",
            Name::Description => "description",
            Name::Status => "status",
            Name::Other(other) => other.as_str(),
        };
        if name == "file" {
            last_file = Some(part.body.clone());
        }
        body.extend(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"").bytes(),
        );
        if let Some(file_name) = &part.file_name {
            body.extend(format!("; filename=\"{file_name}\"").bytes());
        }
        body.extend(b"\r\n");
        if let Some(content_type) = &part.content_type {
            body.extend(format!("Content-Type: {content_type}\r\n").bytes());
        }
        for line in &part.extra_headers {
            body.extend(format!("{line}\r\n").bytes());
        }
        body.extend(b"\r\n");
        body.extend(&part.body);
        body.extend(b"\r\n");
    }
    if input.close {
        body.extend(format!("--{boundary}--\r\n").bytes());
    }
    body.extend(&input.tail);

    let content_type = input
        .content_type
        .unwrap_or_else(|| format!("multipart/form-data; boundary={header_boundary}"));
    let mut headers = vec![
        ("host".to_owned(), HOST.as_bytes().to_vec()),
        ("content-type".to_owned(), content_type.into_bytes()),
        (
            "content-length".to_owned(),
            body.len().to_string().into_bytes(),
        ),
    ];
    if input.admin {
        headers.push(("authorization".to_owned(), app::bearer(ADMIN_KEY)));
    }
    let Some(reply) = app.send(&Request {
        method: "POST".into(),
        path_and_query: "/files".into(),
        headers,
        body,
    }) else {
        return;
    };
    if reply.status != 201 {
        let error: serde_json::Value = serde_json::from_slice(&reply.body)
            .unwrap_or_else(|e| panic!("{} body is not JSON: {e}", reply.status));
        assert_eq!(error["statusCode"], reply.status, "{error}");
        return;
    }
    let record: serde_json::Value = serde_json::from_slice(&reply.body).expect("record JSON");
    let key = record["key"].as_str().expect("a key").to_owned();
    let content = if clean {
        last_file.expect("201 without a file part")
    } else {
        Vec::new()
    };

    let url = app
        .signed_url(&key)
        .expect("the stored record has a signed URL");
    let mut headers = vec![("host".to_owned(), HOST.as_bytes().to_vec())];
    if let Some(range) = &input.range {
        headers.push(("range".to_owned(), range.clone().into_bytes()));
    }
    if let Some(object) = app.send(&Request {
        method: "GET".into(),
        path_and_query: app::path_and_query(&url).to_owned(),
        headers,
        body: Vec::new(),
    }) {
        match object.status {
            200 if clean => assert_eq!(object.body, content, "the object is not the uploaded file"),
            200 => {}
            206 if clean => assert!(
                content
                    .windows(object.body.len().max(1))
                    .any(|w| w == object.body)
                    || object.body.is_empty(),
                "a range that is not part of the upload"
            ),
            206 => {}
            416 | 400 => assert!(input.range.is_some()),
            other => panic!("GET of the signed URL answered {other}"),
        }
    }

    let deleted = app.delete(&key).expect("a DELETE request");
    assert_eq!(deleted.status, 204, "DELETE /file of {key}");
    let again = app.delete(&key).expect("a DELETE request");
    assert_eq!(again.status, 404, "a second DELETE /file of {key}");
});
