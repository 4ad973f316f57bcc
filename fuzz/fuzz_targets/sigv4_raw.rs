//! Any URL text → `Verifier::verify` of it as received (`METHOD url`, or a bare URL for a
//! GET), checked at its own `X-Amz-Date` so the time checks pass and the signature is what
//! decides. The verifier knows the credentials of tests/fixtures/sigv4/presign-vectors.json,
//! so the seeds are accepted and mutations explore everything in between.
#![no_main]

use std::collections::HashMap;
use std::sync::OnceLock;

use chrono::{NaiveDateTime, TimeDelta};
use depot::secret::Secret;
use depot::signing::{PresignedRequest, Verifier, verify_presigned};

fn verifiers() -> &'static HashMap<String, Verifier> {
    static VERIFIERS: OnceLock<HashMap<String, Verifier>> = OnceLock::new();
    VERIFIERS.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/sigv4/presign-vectors.json");
        let text = std::fs::read_to_string(path).expect("vectors");
        let vectors: serde_json::Value = serde_json::from_str(&text).expect("vectors json");
        let mut out = HashMap::new();
        for v in vectors["vectors"].as_array().expect("vector list") {
            let id = v["access_key"].as_str().expect("access_key").to_owned();
            let secret = v["secret_key"].as_str().expect("secret_key");
            out.entry(id.clone())
                .or_insert_with(|| Verifier::new(id, Secret::new(secret), TimeDelta::minutes(5)));
        }
        out
    })
}

libfuzzer_sys::fuzz_target!(|text: &str| {
    let (method, url) = match text.split_once(' ') {
        Some((method, url)) => (method, url),
        None => ("GET", text),
    };
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let (host, path_and_query) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    let request = PresignedRequest {
        method,
        host,
        path,
        query,
    };
    // The time the URL says it was signed at, else some fixed time.
    let date = query
        .split('&')
        .find_map(|p| p.strip_prefix("X-Amz-Date="))
        .and_then(|d| NaiveDateTime::parse_from_str(d, "%Y%m%dT%H%M%SZ").ok())
        .map(|t| t.and_utc())
        .unwrap_or_default();
    let key_id = query
        .split('&')
        .find_map(|p| p.strip_prefix("X-Amz-Credential="))
        .and_then(|c| c.split("%2F").next())
        .unwrap_or_default();
    let verifiers = verifiers();
    let verifier = verifiers
        .get(key_id)
        .or_else(|| verifiers.values().next())
        .expect("a verifier");
    for now in [
        date,
        date + TimeDelta::seconds(1),
        date + TimeDelta::days(8),
    ] {
        let outcome = verifier.verify(&request, now);
        if let Err(e) = &outcome {
            // Every refusal has an S3 code and a message that echoes at most a little.
            assert!(!e.s3_code().is_empty());
            assert!(e.message().chars().count() < 600, "{}", e.message());
        }
    }
    // The one-off form agrees with the long-lived verifier.
    let credentials = depot::signing::Credentials {
        access_key_id: "AKIAIOSFODNN7EXAMPLE".into(),
        secret_access_key: Secret::new("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        session_token: None,
    };
    let _ = verify_presigned(&request, &credentials, date, TimeDelta::minutes(5));
});
