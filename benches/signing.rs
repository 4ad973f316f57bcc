//! Presign and verify costs: SPEC's target is under 5 µs for one presigned URL.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench stops at its first failure and prints its figures"
)]

use std::hint::black_box;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use criterion::{Criterion, criterion_group, criterion_main};
use depot::secret::Secret;
use depot::signing::{
    Addressing, Credentials, DEFAULT_MAX_CLOCK_SKEW, PresignedRequest, Signer, SigningTarget,
    Verifier,
};

const KEY: &str = "0b7c9f0e-6a43-4f8e-9c2e-1d2f3a4b5c6d-original";

fn signer() -> Signer {
    Signer::new(
        SigningTarget {
            endpoint: "http://127.0.0.1:3000/objects".into(),
            addressing: Addressing::Path,
            region: "us-east-1".into(),
        },
        Credentials {
            access_key_id: "DEPOTABCDEFGHIJKLMNO".into(),
            secret_access_key: Secret::new("s3check/Secret+Key/EXAMPLE0123456789abcd"),
            session_token: None,
        },
    )
    .expect("signer")
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 9, 5, 3)
        .single()
        .expect("time")
}

fn presign(c: &mut Criterion) {
    let signer = signer();
    c.bench_function("presign_get warm signer", |b| {
        b.iter(|| signer.presign_get(black_box("files"), black_box(KEY), 900, black_box(now())))
    });
    // `GET /file?download=true`: the name's disposition, then a URL with one more
    // parameter, whose canonical query is sorted apart from the URL.
    c.bench_function("presign_get download name", |b| {
        b.iter(|| {
            let disposition =
                depot::files::download::attachment(black_box("Résumé 2026 (final).pdf"));
            signer.presign_get_with(
                black_box("files"),
                black_box(KEY),
                900,
                black_box(now()),
                &[("response-content-disposition", &disposition)],
            )
        })
    });
    // Alternating days misses the one-slot key cache on every call.
    let days = [now(), now() + TimeDelta::days(1)];
    let mut day = 0;
    c.bench_function("presign_get cold key cache", |b| {
        b.iter(|| {
            day ^= 1;
            signer.presign_get(black_box("files"), black_box(KEY), 900, days[day])
        })
    });
}

fn verify(c: &mut Criterion) {
    let url = signer().presign_get("files", KEY, 900, now()).expect("url");
    let (path, query) = url
        .strip_prefix("http://127.0.0.1:3000")
        .and_then(|rest| rest.split_once('?'))
        .expect("split");
    let request = PresignedRequest {
        method: "GET",
        host: "127.0.0.1:3000",
        path,
        query,
    };
    let verifier = Verifier::new(
        "DEPOTABCDEFGHIJKLMNO",
        Secret::new("s3check/Secret+Key/EXAMPLE0123456789abcd"),
        DEFAULT_MAX_CLOCK_SKEW,
    );
    let at = now() + TimeDelta::seconds(30);
    assert_eq!(verifier.verify(&request, at), Ok(()));
    c.bench_function("verify_presigned warm verifier", |b| {
        b.iter(|| verifier.verify(black_box(&request), black_box(at)))
    });
}

criterion_group!(benches, presign, verify);
criterion_main!(benches);
