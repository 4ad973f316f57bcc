//! depot's signer against botocore, byte for byte: presigned GET URLs for keys that trip
//! encoders (spaces, `+`, `%`, `'`, `//`, `..`, a leading `/`, non-ASCII, 1024 bytes), path
//! and virtual-host style, and download URLs whose `response-content-disposition` carries
//! a file name (RFC 6266). The expected URLs were made by botocore itself:
//! `tests/fixtures/sigv4/generate_hostile_keys.py` (needs `pip install botocore`) writes
//! `hostile-keys.json`; its disposition values come from an implementation of RFC 6266 /
//! 5987 of its own, so the fixture checks `files::download::attachment` as well. The
//! presigned PUT and UploadPart URLs of direct uploads, with their signed headers
//! (`Content-Length`, `Content-Type`, `x-amz-checksum-sha256`, and `If-None-Match: *`, which
//! makes an upload URL single-use), are checked the same way against `presigned-writes.json`
//! (`generate_presigned_writes.py`).
#![cfg(test)]

use chrono::{DateTime, NaiveDateTime, Utc};
use depot::files::download::attachment;
use depot::secret::Secret;
use depot::signing::{Addressing, Credentials, Signer, SigningTarget};
use serde_json::Value;

fn vectors() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sigv4/hostile-keys.json"
    );
    let text = std::fs::read_to_string(path).expect("fixture file");
    let fixture: Value = serde_json::from_str(&text).expect("fixture JSON");
    fixture["vectors"].as_array().expect("vectors").clone()
}

fn text<'a>(v: &'a Value, name: &str) -> &'a str {
    v[name].as_str().unwrap_or_else(|| panic!("{name} in {v}"))
}

fn time(stamp: &str) -> DateTime<Utc> {
    NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%SZ")
        .expect("fixture time")
        .and_utc()
}

fn signer(v: &Value) -> Signer {
    Signer::new(
        SigningTarget {
            endpoint: text(v, "endpoint").to_owned(),
            addressing: match text(v, "style") {
                "virtual" => Addressing::VirtualHost,
                _ => Addressing::Path,
            },
            region: text(v, "region").to_owned(),
        },
        Credentials {
            access_key_id: text(v, "access_key").to_owned(),
            secret_access_key: Secret::new(text(v, "secret_key")),
            session_token: None,
        },
    )
    .expect("a valid signer")
}

#[test]
fn hostile_keys_sign_exactly_as_botocore_signs_them() {
    let plain: Vec<Value> = vectors()
        .into_iter()
        .filter(|v| v.get("file_name").is_none())
        .collect();
    assert_eq!(plain.len(), 23 * 4, "every key in every addressing");
    for v in plain {
        let url = signer(&v)
            .presign_get(
                text(&v, "bucket"),
                text(&v, "key"),
                v["expires"].as_u64().expect("expires"),
                time(text(&v, "time")),
            )
            .unwrap_or_else(|e| panic!("{:?}: {e}", text(&v, "key")));
        assert_eq!(
            url,
            text(&v, "expected_url"),
            "key {:?} ({} {})",
            text(&v, "key"),
            text(&v, "style"),
            text(&v, "bucket")
        );
    }
}

#[test]
fn download_urls_carry_the_rfc_6266_name_exactly_as_botocore_signs_it() {
    let downloads: Vec<Value> = vectors()
        .into_iter()
        .filter(|v| v.get("file_name").is_some())
        .collect();
    assert_eq!(downloads.len(), 8 * 4);
    for v in downloads {
        let disposition = attachment(text(&v, "file_name"));
        assert_eq!(
            disposition,
            text(&v, "content_disposition"),
            "{:?}",
            text(&v, "file_name")
        );
        let url = signer(&v)
            .presign_get_with(
                text(&v, "bucket"),
                text(&v, "key"),
                v["expires"].as_u64().expect("expires"),
                time(text(&v, "time")),
                &[("response-content-disposition", &disposition)],
            )
            .expect("signs");
        assert_eq!(url, text(&v, "expected_url"), "{:?}", text(&v, "file_name"));
    }
}

fn borrow(list: &[(String, String)]) -> Vec<(&str, &str)> {
    list.iter().map(|(n, x)| (n.as_str(), x.as_str())).collect()
}

#[test]
fn presigned_writes_sign_their_headers_exactly_as_botocore_does() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sigv4/presigned-writes.json"
    );
    let fixture: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture file")).expect("JSON");
    let vectors = fixture["vectors"].as_array().expect("vectors");
    assert_eq!(
        vectors.len(),
        2 * 3 * 5,
        "every target, key and call (3 without If-None-Match, 2 with)"
    );
    let conditional = vectors
        .iter()
        .filter(|v| text(v, "expected_url").contains("%3Bif-none-match"))
        .count();
    assert_eq!(conditional, 2 * 3 * 2);
    let pairs = |v: &Value| -> Vec<(String, String)> {
        v.as_array()
            .expect("pairs")
            .iter()
            .map(|p| {
                (
                    p[0].as_str().unwrap().to_owned(),
                    p[1].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    for v in vectors {
        let (params, headers) = (pairs(&v["params"]), pairs(&v["headers"]));
        let (params, headers) = (borrow(&params), borrow(&headers));
        let url = signer(v)
            .presign_with_headers(
                text(v, "method"),
                text(v, "bucket"),
                text(v, "key"),
                v["expires"].as_u64().expect("expires"),
                time(text(v, "time")),
                &params,
                &headers,
            )
            .expect("signs");
        assert_eq!(url, text(v, "expected_url"), "{v}");
    }
}
