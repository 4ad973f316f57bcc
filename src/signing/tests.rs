use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use proptest::prelude::*;

use super::*;

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/sigv4/presign-vectors.json"
);

fn time(stamp: &str) -> DateTime<Utc> {
    NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%SZ")
        .expect("test time")
        .and_utc()
}

fn credentials(access_key_id: &str, secret: &str, token: Option<&str>) -> Credentials {
    Credentials {
        access_key_id: access_key_id.to_owned(),
        secret_access_key: Secret::new(secret),
        session_token: token.map(Secret::new),
    }
}

fn target(endpoint: &str, addressing: Addressing, region: &str) -> SigningTarget {
    SigningTarget {
        endpoint: endpoint.to_owned(),
        addressing,
        region: region.to_owned(),
    }
}

fn local_signer(token: Option<&str>) -> Signer {
    Signer::new(
        target("http://127.0.0.1:9000", Addressing::Path, "us-east-1"),
        credentials(
            "AKIAS3CHECKEXAMPLE01",
            "s3check/Secret+Key/EXAMPLE0123456789abcd",
            token,
        ),
    )
    .expect("valid signer")
}

fn local_verifier() -> Verifier {
    Verifier::new(
        "AKIAS3CHECKEXAMPLE01",
        Secret::new("s3check/Secret+Key/EXAMPLE0123456789abcd"),
        DEFAULT_MAX_CLOCK_SKEW,
    )
}

/// (host, path, query) of a URL as an HTTP client would send them.
fn split_url(url: &str) -> (&str, &str, &str) {
    let rest = url.split_once("://").expect("scheme").1;
    let slash = rest.find('/').expect("path");
    let (host, path_and_query) = rest.split_at(slash);
    let (path, query) = path_and_query.split_once('?').expect("query");
    (host, path, query)
}

fn get<'a>(host: &'a str, path: &'a str, query: &'a str) -> PresignedRequest<'a> {
    PresignedRequest {
        method: "GET",
        host,
        path,
        query,
    }
}

fn verify_url(verifier: &Verifier, url: &str, now: DateTime<Utc>) -> Result<(), VerifyError> {
    let (host, path, query) = split_url(url);
    verifier.verify(&get(host, path, query), now)
}

fn sign_vector(v: &serde_json::Value) -> Result<String, SigningError> {
    let text = |name: &str| v[name].as_str().expect(name).to_owned();
    let addressing = match v["style"].as_str() {
        Some("virtual") => Addressing::VirtualHost,
        Some("path") => Addressing::Path,
        other => panic!("unknown style {other:?}"),
    };
    let signer = Signer::new(
        target(&text("endpoint"), addressing, &text("region")),
        credentials(
            &text("access_key"),
            &text("secret_key"),
            v["session_token"].as_str(),
        ),
    )?;
    signer.presign_get(
        &text("bucket"),
        &text("key"),
        v["expires"].as_u64().expect("expires"),
        time(&text("time")),
    )
}

#[test]
fn reproduces_every_fixture_vector_byte_for_byte() {
    let text = std::fs::read_to_string(VECTORS).expect("fixture file");
    let fixture: serde_json::Value = serde_json::from_str(&text).expect("fixture json");
    let vectors = fixture["vectors"].as_array().expect("vectors");
    assert_eq!(vectors.len(), 7);
    for v in vectors {
        let url = sign_vector(v).expect("signs");
        assert_eq!(
            url,
            v["expected_url"].as_str().expect("url"),
            "vector {}",
            v["name"]
        );
    }
}

#[test]
fn aws_documentation_signature() {
    let url = presign_get(
        &target(
            "https://s3.amazonaws.com",
            Addressing::VirtualHost,
            "us-east-1",
        ),
        &credentials(
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            None,
        ),
        "examplebucket",
        "test.txt",
        86400,
        time("20130524T000000Z"),
    )
    .expect("signs");
    assert!(url.ends_with(
        "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
    ));
}

// Expected signatures below come from boto3 1.43 `generate_presigned_url` with a fixed clock.
// botocore writes X-Amz-Security-Token after X-Amz-SignedHeaders; depot writes the query in
// canonical order, which signs the same.

#[test]
fn session_token_is_in_the_url_and_signed() {
    let signer = local_signer(Some("FQoGZXIvYXdzE+token/with=chars"));
    let url = signer
        .presign_get("test-bucket", "a.txt", 3600, time("20240315T120000Z"))
        .expect("signs");
    assert_eq!(
        url,
        "http://127.0.0.1:9000/test-bucket/a.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256\
         &X-Amz-Credential=AKIAS3CHECKEXAMPLE01%2F20240315%2Fus-east-1%2Fs3%2Faws4_request\
         &X-Amz-Date=20240315T120000Z&X-Amz-Expires=3600\
         &X-Amz-Security-Token=FQoGZXIvYXdzE%2Btoken%2Fwith%3Dchars&X-Amz-SignedHeaders=host\
         &X-Amz-Signature=0577d6dc95c09d9e0196981bc22cdf59e0d0e9b097ff93bd9c71c77acf325f46"
    );
    let now = time("20240315T120500Z");
    assert_eq!(verify_url(&local_verifier(), &url, now), Ok(()));
    let without_token = url.replace(
        "&X-Amz-Security-Token=FQoGZXIvYXdzE%2Btoken%2Fwith%3Dchars",
        "",
    );
    assert_eq!(
        verify_url(&local_verifier(), &without_token, now),
        Err(VerifyError::SignatureMismatch)
    );
}

#[test]
fn virtual_host_with_port_keeps_the_port_in_host() {
    let signer = Signer::new(
        target(
            "http://localhost:9000",
            Addressing::VirtualHost,
            "eu-central-1",
        ),
        credentials(
            "AKIAS3CHECKEXAMPLE01",
            "s3check/Secret+Key/EXAMPLE0123456789abcd",
            None,
        ),
    )
    .expect("signer");
    let url = signer
        .presign_get("my-bucket", "dir/x y.txt", 900, time("20260101T235959Z"))
        .expect("signs");
    assert_eq!(
        url,
        "http://my-bucket.localhost:9000/dir/x%20y.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256\
         &X-Amz-Credential=AKIAS3CHECKEXAMPLE01%2F20260101%2Feu-central-1%2Fs3%2Faws4_request\
         &X-Amz-Date=20260101T235959Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host\
         &X-Amz-Signature=f15a6ffbb69805653723b758d641c963320258e4ade15bd578c124cf45dd621d"
    );
}

#[test]
fn default_port_is_dropped_from_url_and_host() {
    let url = presign_get(
        &target("https://s3.example.com:443/", Addressing::Path, "garage"),
        &credentials("GK1234", "secret", None),
        "b1",
        "k",
        604800,
        time("20250607T080910Z"),
    )
    .expect("signs");
    assert_eq!(
        url,
        "https://s3.example.com/b1/k?X-Amz-Algorithm=AWS4-HMAC-SHA256\
         &X-Amz-Credential=GK1234%2F20250607%2Fgarage%2Fs3%2Faws4_request\
         &X-Amz-Date=20250607T080910Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host\
         &X-Amz-Signature=fe92e76d6263a7a05fc9408f95a3e95250771aedf318de6a15e4bbc386f2f016"
    );
}

#[test]
fn reserved_characters_in_keys_are_encoded_like_botocore() {
    let url = local_signer(None)
        .presign_get(
            "test-bucket",
            "a~b%c=d&e?f#g 'h'(i)*!$,;:@[]",
            1,
            time("20240315T120000Z"),
        )
        .expect("signs");
    assert_eq!(
        url,
        "http://127.0.0.1:9000/test-bucket/a~b%25c%3Dd%26e%3Ff%23g%20%27h%27%28i%29%2A%21%24%2C%3B%3A%40%5B%5D\
         ?X-Amz-Algorithm=AWS4-HMAC-SHA256\
         &X-Amz-Credential=AKIAS3CHECKEXAMPLE01%2F20240315%2Fus-east-1%2Fs3%2Faws4_request\
         &X-Amz-Date=20240315T120000Z&X-Amz-Expires=1&X-Amz-SignedHeaders=host\
         &X-Amz-Signature=c7dcd8397675fb7aeed7069e39a5acfd166934e074ebdb24275b73194b0ece39"
    );
}

#[test]
fn expiry_bounds_are_1_and_604800_seconds() {
    let signer = local_signer(None);
    let now = time("20240315T120000Z");
    assert_eq!(
        signer.presign_get("b", "k", 0, now),
        Err(SigningError::Expiry(0))
    );
    assert!(signer.presign_get("b", "k", 1, now).is_ok());
    assert!(signer.presign_get("b", "k", 604_800, now).is_ok());
    assert_eq!(
        signer.presign_get("b", "k", 604_801, now),
        Err(SigningError::Expiry(604_801))
    );
    assert_eq!(
        SigningError::Expiry(604_801).to_string(),
        "expiry must be from 1 to 604800 seconds (7 days), got 604801"
    );
}

#[test]
fn endpoint_forms_that_mean_the_same_sign_the_same() {
    let now = time("20240315T120000Z");
    let sign = |endpoint: &str| {
        presign_get(
            &target(endpoint, Addressing::Path, "us-east-1"),
            &credentials("AK", "SK", None),
            "bkt",
            "k",
            60,
            now,
        )
        .expect("signs")
    };
    let plain = sign("http://127.0.0.1:9000");
    assert_eq!(sign("http://127.0.0.1:9000/"), plain);
    assert_eq!(sign("HTTP://127.0.0.1:9000"), plain);
    assert_eq!(sign("http://Example.COM:80"), sign("http://example.com"));
    assert!(sign("http://example.com").starts_with("http://example.com/bkt/k?"));
}

#[test]
fn endpoint_path_prefix_is_kept_and_signed() {
    let signer = Signer::new(
        target(
            "http://127.0.0.1:3000/objects/",
            Addressing::Path,
            "us-east-1",
        ),
        credentials("AK", "SK", None),
    )
    .expect("signer");
    let now = time("20240315T120000Z");
    let url = signer.presign_get("bkt", "a b", 60, now).expect("signs");
    assert!(url.starts_with("http://127.0.0.1:3000/objects/bkt/a%20b?X-Amz-Algorithm="));
    let verifier = Verifier::new("AK", Secret::new("SK"), DEFAULT_MAX_CLOCK_SKEW);
    assert_eq!(verify_url(&verifier, &url, now), Ok(()));
    let (host, path, query) = split_url(&url);
    let without_prefix = path.strip_prefix("/objects").expect("prefix");
    assert_eq!(
        verifier.verify(&get(host, without_prefix, query), now),
        Err(VerifyError::SignatureMismatch)
    );
}

#[test]
fn ipv6_endpoint_keeps_brackets_and_port() {
    let url = presign_get(
        &target("http://[::1]:9000", Addressing::Path, "us-east-1"),
        &credentials("AK", "SK", None),
        "bkt",
        "k",
        60,
        time("20240315T120000Z"),
    )
    .expect("signs");
    assert!(url.starts_with("http://[::1]:9000/bkt/k?"));
}

#[test]
fn bad_configuration_is_refused_with_the_reason() {
    let creds = credentials("AK", "SK", None);
    let endpoint_error = |endpoint: &str, addressing| match Signer::new(
        target(endpoint, addressing, "us-east-1"),
        creds.clone(),
    ) {
        Err(SigningError::Endpoint { reason, .. }) => reason,
        other => panic!("{endpoint}: {other:?}"),
    };
    assert_eq!(
        endpoint_error("s3.amazonaws.com", Addressing::Path),
        "the scheme must be http:// or https://"
    );
    assert_eq!(
        endpoint_error("ftp://host", Addressing::Path),
        "the scheme must be http:// or https://"
    );
    assert_eq!(
        endpoint_error("http://host:99999", Addressing::Path),
        "the port must be a number from 0 to 65535"
    );
    assert_eq!(
        endpoint_error("http://user:pw@host", Addressing::Path),
        "no user name or password allowed"
    );
    assert_eq!(
        endpoint_error("http://host/?x=1", Addressing::Path),
        "no query or fragment allowed"
    );
    assert_eq!(
        endpoint_error("http://", Addressing::Path),
        "the host must be a name or an IP address"
    );
    assert_eq!(
        endpoint_error("http://127.0.0.1:9000", Addressing::VirtualHost),
        "virtual-host addressing needs a host name, not an IP address"
    );
    assert_eq!(
        Signer::new(
            target("http://h", Addressing::Path, "us east"),
            creds.clone()
        )
        .err(),
        Some(SigningError::Region("us east".into()))
    );
    assert_eq!(
        Signer::new(
            target("http://h", Addressing::Path, "r"),
            credentials("AK", "", None)
        )
        .err(),
        Some(SigningError::EmptySecret)
    );
    assert_eq!(
        Signer::new(
            target("http://h", Addressing::Path, "r"),
            credentials("A/K", "SK", None)
        )
        .err(),
        Some(SigningError::AccessKeyId("A/K".into()))
    );
}

#[test]
fn bad_bucket_or_key_is_refused() {
    let now = time("20240315T120000Z");
    let path = local_signer(None);
    assert_eq!(
        path.presign_get("", "k", 60, now),
        Err(SigningError::Bucket(String::new()))
    );
    assert_eq!(
        path.presign_get("a/b", "k", 60, now),
        Err(SigningError::Bucket("a/b".into()))
    );
    assert_eq!(
        path.presign_get("b", "", 60, now),
        Err(SigningError::EmptyKey)
    );
    let virtual_host = Signer::new(
        target(
            "https://s3.amazonaws.com",
            Addressing::VirtualHost,
            "us-east-1",
        ),
        credentials("AK", "SK", None),
    )
    .expect("signer");
    // A bucket that cannot be a host name goes in the path, as botocore does.
    let url = virtual_host
        .presign_get("My_Bucket", "k", 60, now)
        .expect("signs");
    assert!(
        url.starts_with("https://s3.amazonaws.com/My_Bucket/k?"),
        "{url}"
    );
}

/// Where botocore 1.43 (`addressing_style = virtual`, endpoint `http://minio.example.com`
/// or its `https://` form) put each bucket: in the host name or in the path.
#[test]
fn virtual_host_buckets_are_the_ones_botocore_puts_in_the_host() {
    let now = time("20240315T120000Z");
    let signer = |endpoint: &str| {
        Signer::new(
            target(endpoint, Addressing::VirtualHost, "us-east-1"),
            credentials("AK", "SK", None),
        )
        .expect("signer")
    };
    let (http, https) = (
        signer("http://minio.example.com"),
        signer("https://minio.example.com"),
    );
    let in_host = |signer: &Signer, bucket: &str| {
        let url = signer.presign_get(bucket, "k", 60, now).expect("signs");
        url.contains(&format!("://{bucket}.minio.example.com/k?"))
    };
    let long = "a".repeat(63);
    let too_long = "a".repeat(64);
    for (bucket, over_http) in [
        ("abc", true),
        ("ab-c", true),
        ("a--b", true),
        ("a.b.c", true),
        ("1.2.3.4.5", true),
        (long.as_str(), true),
        ("a-.b", false),
        ("ab-", false),
        ("-ab", false),
        ("a.-b", false),
        ("a..b", false),
        ("192.168.1.1", false),
        ("Abc", false),
        ("a_b", false),
        ("ab", false),
        (too_long.as_str(), false),
    ] {
        assert_eq!(in_host(&http, bucket), over_http, "http {bucket}");
        let over_https = over_http && !bucket.contains('.');
        assert_eq!(in_host(&https, bucket), over_https, "https {bucket}");
    }
}

#[test]
fn cached_key_follows_the_date() {
    let signer = local_signer(None);
    for stamp in [
        "20240315T235959Z",
        "20240316T000000Z",
        "20240315T120000Z",
        "20240316T000001Z",
    ] {
        let warm = signer
            .presign_get("test-bucket", "a.txt", 60, time(stamp))
            .expect("signs");
        let cold = local_signer(None)
            .presign_get("test-bucket", "a.txt", 60, time(stamp))
            .expect("signs");
        assert_eq!(warm, cold, "{stamp}");
    }
}

#[test]
fn secrets_never_print() {
    let creds = credentials("AKID", "topsecret", Some("tokentoken"));
    let shown = format!(
        "{creds:?} {:?} {:?}",
        Signer::new(target("http://h", Addressing::Path, "r"), creds.clone()).expect("signer"),
        Verifier::new("AKID", Secret::new("topsecret"), DEFAULT_MAX_CLOCK_SKEW)
    );
    assert!(shown.contains("AKID"));
    assert!(
        !shown.contains("topsecret") && !shown.contains("tokentoken"),
        "{shown}"
    );
}

#[test]
fn verifies_the_aws_documentation_url() {
    let url = "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404";
    let (host, path, query) = split_url(url);
    let creds = credentials(
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        None,
    );
    let now = time("20130524T010000Z");
    assert_eq!(
        verify_presigned(&get(host, path, query), &creds, now, DEFAULT_MAX_CLOCK_SKEW),
        Ok(())
    );
    let head = PresignedRequest {
        method: "HEAD",
        ..get(host, path, query)
    };
    assert_eq!(
        verify_presigned(&head, &creds, now, DEFAULT_MAX_CLOCK_SKEW),
        Err(VerifyError::SignatureMismatch)
    );
}

#[test]
fn equivalent_path_encodings_verify() {
    let signer = local_signer(None);
    let now = time("20240315T120000Z");
    let url = signer
        .presign_get("test-bucket", "a~b/ünï.txt", 60, now)
        .expect("signs");
    let (host, path, query) = split_url(&url);
    assert_eq!(path, "/test-bucket/a~b/%C3%BCn%C3%AF.txt");
    for variant in [
        "/test-bucket/a%7Eb/%C3%BCn%C3%AF.txt",
        "/test-bucket/a~b/%c3%bcn%c3%af.txt",
        "/test-bucket/%61~b/ünï.txt",
    ] {
        assert_eq!(
            local_verifier().verify(&get(host, variant, query), now),
            Ok(()),
            "{variant}"
        );
    }
    assert_eq!(
        local_verifier().verify(
            &get(host, "/test-bucket/a~b%2F%C3%BCn%C3%AF.txt", query),
            now
        ),
        Err(VerifyError::SignatureMismatch)
    );
    assert_eq!(
        local_verifier().verify(&get(host, "/test-bucket/a%zz", query), now),
        Err(VerifyError::InvalidUri)
    );
}

#[test]
fn expiry_and_clock_skew_boundaries() {
    let signed_at = time("20240315T120000Z");
    let url = local_signer(None)
        .presign_get("test-bucket", "k", 60, signed_at)
        .expect("signs");
    let at = |secs: i64| {
        verify_url(
            &local_verifier(),
            &url,
            signed_at + TimeDelta::seconds(secs),
        )
    };
    assert_eq!(at(0), Ok(()));
    assert_eq!(at(59), Ok(()));
    assert_eq!(at(60), Err(VerifyError::Expired));
    assert_eq!(at(-300), Ok(()));
    assert_eq!(at(-301), Err(VerifyError::NotYetValid));
    assert_eq!(VerifyError::Expired.s3_code(), "AccessDenied");
    assert_eq!(VerifyError::Expired.message(), "Request has expired");
}

#[test]
fn query_problems_map_to_their_s3_codes() {
    let now = time("20240315T120000Z");
    let url = local_signer(None)
        .presign_get("test-bucket", "k", 60, now)
        .expect("signs");
    let (host, path, query) = split_url(&url);
    let check = |query: &str| local_verifier().verify(&get(host, path, query), now);
    let code = |query: &str| check(query).expect_err(query).s3_code();

    let dropped = query.replace("&X-Amz-Date=20240315T120000Z", "");
    assert_eq!(code(&dropped), "AuthorizationQueryParametersError");
    assert!(
        check(&dropped)
            .expect_err("missing")
            .message()
            .starts_with("missing X-Amz-Date")
    );
    // No signature parameter at all is an anonymous request; some of them is malformed.
    assert_eq!(check(""), Err(VerifyError::Anonymous));
    assert_eq!(check("versionId=1&x"), Err(VerifyError::Anonymous));
    assert_eq!(code(""), "AccessDenied");
    assert_eq!(
        code("X-Amz-Algorithm=AWS4-HMAC-SHA256"),
        "AuthorizationQueryParametersError"
    );
    assert_eq!(
        code(&format!("{query}&X-Amz-Date=20240315T120000Z")),
        "AuthorizationQueryParametersError"
    );
    assert_eq!(
        code(&query.replace("X-Amz-Expires=60", "X-Amz-Expires=604801")),
        "AuthorizationQueryParametersError"
    );
    assert_eq!(
        check(&query.replace("X-Amz-Expires=60", "X-Amz-Expires=0")),
        Err(VerifyError::QueryParameters(
            "X-Amz-Expires must be an integer from 1 to 604800 (7 days), got '0'".into()
        ))
    );
    // Signed headers must be lower-case names in order, host among them; a signed header
    // the request does not carry cannot match.
    for malformed in ["range", "range%3Bhost", "Host", "host%3B%3Brange"] {
        assert_eq!(
            code(&query.replace("SignedHeaders=host", &format!("SignedHeaders={malformed}"))),
            "AuthorizationQueryParametersError",
            "{malformed}"
        );
    }
    assert_eq!(
        code(&query.replace("SignedHeaders=host", "SignedHeaders=host%3Brange")),
        "SignatureDoesNotMatch"
    );
    assert_eq!(
        code(&query.replace("%2F20240315%2F", "%2F20240316%2F")),
        "AuthorizationQueryParametersError"
    );
    assert_eq!(
        code(&query.replace("X-Amz-Date=2024", "X-Amz-Date=%zz")),
        "AuthorizationQueryParametersError"
    );
    assert_eq!(
        check(&query.replace("AKIAS3CHECKEXAMPLE01", "AKIAOTHER")),
        Err(VerifyError::UnknownAccessKey("AKIAOTHER".into()))
    );
    assert_eq!(
        code(&query.replace("AKIAS3CHECKEXAMPLE01", "AKIAOTHER")),
        "InvalidAccessKeyId"
    );
    assert_eq!(code(&format!("{query}&extra=1")), "SignatureDoesNotMatch");
    assert_eq!(
        code(&query.replace("us-east-1", "eu-west-1")),
        "SignatureDoesNotMatch"
    );
    let uppercase_signature = {
        let (head, signature) = query.split_once("X-Amz-Signature=").expect("signature");
        format!("{head}X-Amz-Signature={}", signature.to_ascii_uppercase())
    };
    assert_eq!(code(&uppercase_signature), "SignatureDoesNotMatch");
    assert_eq!(VerifyError::InvalidUri.s3_code(), "InvalidURI");
    // Parameter order and equivalent escapes do not matter.
    let mut shuffled: Vec<&str> = query.split('&').collect();
    shuffled.reverse();
    assert_eq!(check(&shuffled.join("&")), Ok(()));
    assert_eq!(check(&query.replace("%2F", "%2f")), Ok(()));
}

#[test]
fn extra_parameters_are_signed_and_come_first() {
    let now = time("20240315T120000Z");
    let disposition = "attachment; filename=\"a b.txt\"; filename*=UTF-8''a%20b.txt";
    let url = local_signer(None)
        .presign_get_with(
            "test-bucket",
            "a b.txt",
            60,
            now,
            &[("response-content-disposition", disposition)],
        )
        .expect("signs");
    let (host, path, query) = split_url(&url);
    assert!(
        query.starts_with(
            "response-content-disposition=attachment%3B%20filename%3D%22a%20b.txt%22%3B%20filename%2A%3DUTF-8%27%27a%2520b.txt&X-Amz-Algorithm="
        ),
        "{query}"
    );
    assert_eq!(
        local_verifier().verify(&get(host, path, query), now),
        Ok(())
    );
    let changed = query.replace("attachment", "inline");
    assert_eq!(
        local_verifier().verify(&get(host, path, &changed), now),
        Err(VerifyError::SignatureMismatch)
    );
    let dropped = query
        .split_once('&')
        .map(|(_, rest)| rest)
        .expect("more parameters");
    assert_eq!(
        local_verifier().verify(&get(host, path, dropped), now),
        Err(VerifyError::SignatureMismatch)
    );
    assert_eq!(
        local_signer(None).presign_get_with("b", "k", 60, now, &[("X-Amz-Expires", "1")]),
        Err(SigningError::ReservedParam("X-Amz-Expires".into()))
    );
}

#[test]
fn aws_encode_keeps_slashes_in_paths_only() {
    assert_eq!(aws_encode("a b/c~ü", true), "a%20b/c~%C3%BC");
    assert_eq!(aws_encode("a b/c~ü", false), "a%20b%2Fc~%C3%BC");
}

/// Keys mixing any Unicode with the characters that trip encoders.
fn any_key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ +%~/a-zA-Z0-9._-]{1,24}",
        any::<String>().prop_filter("non-empty", |s| !s.is_empty()),
        "\\PC{1,12}( |\\+|%|~|/)\\PC{0,12}",
    ]
}

struct Presigned {
    url: String,
    signed_at: DateTime<Utc>,
    expires: u64,
}

fn presigned(key: &str, expires: u64, token: bool, signed_secs: i64) -> Presigned {
    let signed_at = time("20240101T000000Z") + TimeDelta::seconds(signed_secs);
    let signer = local_signer(token.then_some("tok/en+=="));
    let url = signer
        .presign_get("test-bucket", key, expires, signed_at)
        .expect("signs");
    Presigned {
        url,
        signed_at,
        expires,
    }
}

/// Replaces the character at `index` (modulo the length) with a letter that differs from it
/// and is not a hex digit, so that the change cannot be an equivalent escape.
fn change_char(text: &str, index: usize) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let at = index % chars.len();
    chars[at] = if chars[at] == 'q' { 'z' } else { 'q' };
    chars.into_iter().collect()
}

proptest! {
    #[test]
    fn presign_then_verify_accepts(
        key in any_key(),
        expires in 1u64..=604_800,
        token in any::<bool>(),
        signed_secs in 0i64..10_000_000,
        into_window in 0.0f64..1.0,
    ) {
        let p = presigned(&key, expires, token, signed_secs);
        let elapsed = ((p.expires - 1) as f64 * into_window) as i64;
        let now = p.signed_at + TimeDelta::seconds(elapsed);
        prop_assert_eq!(verify_url(&local_verifier(), &p.url, now), Ok(()));
        let (_, path, _) = split_url(&p.url);
        let decoded = crate::percent::decode(path.strip_prefix("/test-bucket/").expect("bucket"));
        prop_assert_eq!(decoded.as_deref(), Some(key.as_str()));
    }

    #[test]
    fn changed_signature_is_refused(key in any_key(), index in 0usize..64) {
        let p = presigned(&key, 3600, false, 0);
        let (head, signature) = p.url.split_once("&X-Amz-Signature=").expect("signature");
        let url = format!("{head}&X-Amz-Signature={}", change_char(signature, index));
        prop_assert_eq!(
            verify_url(&local_verifier(), &url, p.signed_at),
            Err(VerifyError::SignatureMismatch)
        );
    }

    #[test]
    fn changed_key_is_refused(key in any_key(), index in any::<usize>()) {
        let p = presigned(&key, 3600, false, 0);
        let (host, _, query) = split_url(&p.url);
        let path = format!("/test-bucket/{}", aws_encode(&change_char(&key, index), true));
        prop_assert_eq!(
            local_verifier().verify(&get(host, &path, query), p.signed_at),
            Err(VerifyError::SignatureMismatch)
        );
    }

    #[test]
    fn changed_amz_value_is_refused(
        key in any_key(),
        token in any::<bool>(),
        param in 0usize..6,
        index in any::<usize>(),
    ) {
        let p = presigned(&key, 3600, token, 0);
        let (host, path, query) = split_url(&p.url);
        let names = [
            "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date",
            "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Security-Token",
        ];
        let name = names[if token { param } else { param % 5 }];
        let changed: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((n, value)) if n == name => format!("{n}={}", change_char(value, index)),
                _ => pair.to_owned(),
            })
            .collect();
        let result = local_verifier().verify(&get(host, path, &changed.join("&")), p.signed_at);
        match name {
            "X-Amz-Algorithm" | "X-Amz-SignedHeaders" => prop_assert!(
                matches!(result, Err(VerifyError::QueryParameters(_))),
                "{:?}", result
            ),
            "X-Amz-Security-Token" => prop_assert!(
                matches!(
                    result,
                    Err(VerifyError::SignatureMismatch | VerifyError::QueryParameters(_))
                ),
                "{:?}", result
            ),
            _ => prop_assert!(result.is_err()),
        }
    }

    #[test]
    fn other_secret_is_refused(key in any_key(), secret in "[A-Za-z0-9/+]{1,40}") {
        prop_assume!(secret != "s3check/Secret+Key/EXAMPLE0123456789abcd");
        let p = presigned(&key, 3600, false, 0);
        let verifier = Verifier::new("AKIAS3CHECKEXAMPLE01", Secret::new(secret), DEFAULT_MAX_CLOCK_SKEW);
        prop_assert_eq!(
            verify_url(&verifier, &p.url, p.signed_at),
            Err(VerifyError::SignatureMismatch)
        );
    }

    #[test]
    fn after_expiry_is_refused(key in any_key(), expires in 1u64..=604_800, late in 0i64..1_000_000) {
        let p = presigned(&key, expires, false, 0);
        let now = p.signed_at + TimeDelta::seconds(expires as i64 + late);
        prop_assert_eq!(verify_url(&local_verifier(), &p.url, now), Err(VerifyError::Expired));
    }
}

/// The signer of AWS's documented header-signing examples ("Signature Calculations for the
/// Authorization Header", Amazon S3 API reference).
fn aws_example_signer() -> Signer {
    Signer::new(
        target(
            "https://s3.amazonaws.com",
            Addressing::VirtualHost,
            "us-east-1",
        ),
        credentials(
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            None,
        ),
    )
    .unwrap()
}

fn header<'a>(signed: &'a SignedRequest, name: &str) -> &'a str {
    signed
        .headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
        .unwrap()
}

#[test]
fn header_signing_matches_aws_get_object_example() {
    let signed = aws_example_signer()
        .sign_headers(
            "GET",
            "examplebucket",
            "test.txt",
            time("20130524T000000Z"),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            &[("Range", "bytes=0-9")],
        )
        .unwrap();
    assert_eq!(
        signed.url,
        "https://examplebucket.s3.amazonaws.com/test.txt"
    );
    assert_eq!(
        header(&signed, "authorization"),
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,\
         SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,\
         Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
    );
    assert_eq!(header(&signed, "x-amz-date"), "20130524T000000Z");
}

#[test]
fn header_signing_matches_aws_put_object_example() {
    let signed = aws_example_signer()
        .sign_headers(
            "PUT",
            "examplebucket",
            "test$file.text",
            time("20130524T000000Z"),
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
            &[
                ("date", "Fri, 24 May 2013 00:00:00 GMT"),
                ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
            ],
        )
        .unwrap();
    assert_eq!(
        signed.url,
        "https://examplebucket.s3.amazonaws.com/test%24file.text"
    );
    assert_eq!(
        header(&signed, "authorization"),
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,\
         SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,\
         Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"
    );
}

#[test]
fn header_signing_carries_the_session_token_and_refuses_bad_targets() {
    let signer = Signer::new(
        target("http://127.0.0.1:9000", Addressing::Path, "us-east-1"),
        credentials("AKIAIOSFODNN7EXAMPLE", "secret", Some("tok/en")),
    )
    .unwrap();
    let signed = signer
        .sign_headers(
            "DELETE",
            "bkt",
            "a b/c",
            time("20260101T000000Z"),
            UNSIGNED_PAYLOAD,
            &[],
        )
        .unwrap();
    assert_eq!(signed.url, "http://127.0.0.1:9000/bkt/a%20b/c");
    assert_eq!(header(&signed, "x-amz-security-token"), "tok/en");
    assert_eq!(header(&signed, "x-amz-content-sha256"), "UNSIGNED-PAYLOAD");
    assert!(
        header(&signed, "authorization")
            .contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,")
    );
    assert!(signed.headers.iter().all(|(n, _)| n != "host"));
    assert!(matches!(
        signer.sign_headers(
            "PUT",
            "",
            "k",
            time("20260101T000000Z"),
            UNSIGNED_PAYLOAD,
            &[]
        ),
        Err(SigningError::Bucket(_))
    ));
    assert!(matches!(
        signer.sign_headers(
            "PUT",
            "b",
            "",
            time("20260101T000000Z"),
            UNSIGNED_PAYLOAD,
            &[]
        ),
        Err(SigningError::EmptyKey)
    ));
}

/// A change made to the headers of a signed request before it is verified.
type Tamper<'a> = &'a dyn Fn(&mut Vec<(String, String)>);

/// The headers of a request as the store hands them over (lower-case names).
fn incoming<'a>(
    method: &'a str,
    url: &'a str,
    headers: &'a [(&'a str, &'a str)],
) -> IncomingRequest<'a> {
    let rest = url.split_once("://").expect("scheme").1;
    let slash = rest.find('/').expect("path");
    let path_and_query = &rest[slash..];
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    IncomingRequest {
        method,
        path,
        query,
        headers,
    }
}

#[test]
fn presigned_put_binds_its_signed_headers() {
    let now = time("20240315T120000Z");
    let checksum = "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=";
    let url = local_signer(None)
        .presign_with_headers(
            "PUT",
            "test-bucket",
            "a b.txt",
            60,
            now,
            &[],
            &[("Content-Length", "5"), ("x-amz-checksum-sha256", checksum)],
        )
        .expect("signs");
    assert!(
        url.contains("&X-Amz-SignedHeaders=content-length%3Bhost%3Bx-amz-checksum-sha256&"),
        "{url}"
    );
    let verify = |headers: &[(&str, &str)]| {
        local_verifier().verify_request(&incoming("PUT", &url, headers), now)
    };
    let sent = [
        ("host", "127.0.0.1:9000"),
        ("content-length", "5"),
        ("x-amz-checksum-sha256", checksum),
    ];
    assert_eq!(verify(&sent), Ok(Payload::Unsigned));
    // More bytes than declared, another checksum, or no checksum at all: not what was signed.
    for (i, other) in [
        (1, "6"),
        (2, "AAAAul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="),
    ] {
        let mut changed = sent;
        changed[i].1 = other;
        assert_eq!(verify(&changed), Err(VerifyError::SignatureMismatch));
    }
    assert_eq!(verify(&sent[..2]), Err(VerifyError::SignatureMismatch));
    // The method is signed too: the URL of a PUT is no GET.
    assert_eq!(
        local_verifier().verify_request(&incoming("GET", &url, &sent), now),
        Err(VerifyError::SignatureMismatch)
    );
    assert_eq!(
        local_verifier()
            .verify_request(&incoming("PUT", &url, &sent), now + TimeDelta::seconds(60)),
        Err(VerifyError::Expired)
    );
}

#[test]
fn header_names_to_sign_are_checked() {
    let now = time("20240315T120000Z");
    for bad in [("host", "x"), ("", "1"), ("a b", "1"), ("x-ok", "a\nb")] {
        assert_eq!(
            local_signer(None).presign_with_headers("PUT", "b1b", "k", 60, now, &[], &[bad]),
            Err(SigningError::Header(bad.0.to_ascii_lowercase())),
            "{bad:?}"
        );
    }
}

/// A call signed in its `Authorization` header, as an S3 client makes it.
fn header_signed(
    method: &str,
    query: &[(&str, &str)],
    payload: &str,
    at: DateTime<Utc>,
) -> SignedRequest {
    local_signer(None)
        .sign_request(
            method,
            "test-bucket",
            "dir/a+b.bin",
            query,
            at,
            payload,
            &[("Content-Type", "application/octet-stream")],
        )
        .expect("signs")
}

fn verify_signed(
    signed: &SignedRequest,
    method: &str,
    tamper: impl Fn(&mut Vec<(String, String)>),
    now: DateTime<Utc>,
) -> Result<Payload, VerifyError> {
    let mut headers: Vec<(String, String)> = signed.headers.clone();
    headers.push(("host".into(), "127.0.0.1:9000".into()));
    tamper(&mut headers);
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    local_verifier().verify_request(&incoming(method, &signed.url, &pairs), now)
}

#[test]
fn header_signed_requests_verify_and_say_what_the_body_must_be() {
    let now = time("20240315T120000Z");
    let body_hash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    let upload = header_signed("POST", &[("uploads", "")], body_hash, now);
    assert_eq!(
        upload.url,
        "http://127.0.0.1:9000/test-bucket/dir/a%2Bb.bin?uploads="
    );
    let expected = crate::hex::decode(body_hash)
        .map(Payload::Sha256)
        .expect("hex");
    assert_eq!(verify_signed(&upload, "POST", |_| {}, now), Ok(expected));
    let part = header_signed(
        "PUT",
        &[("uploadId", "u/1"), ("partNumber", "2")],
        UNSIGNED_PAYLOAD,
        now,
    );
    assert!(
        part.url.ends_with("?uploadId=u%2F1&partNumber=2"),
        "{}",
        part.url
    );
    assert_eq!(
        verify_signed(&part, "PUT", |_| {}, now),
        Ok(Payload::Unsigned)
    );
    let streaming = header_signed("PUT", &[], "STREAMING-UNSIGNED-PAYLOAD-TRAILER", now);
    assert_eq!(
        verify_signed(&streaming, "PUT", |_| {}, now),
        Ok(Payload::Streaming)
    );

    let set = |name: &'static str, value: &'static str| {
        move |h: &mut Vec<(String, String)>| {
            h.retain(|(n, _)| n != name);
            h.push((name.into(), value.into()));
        }
    };
    // Any signed part changed: the signature does not match.
    assert_eq!(
        verify_signed(&part, "PUT", set("content-type", "text/html"), now),
        Err(VerifyError::SignatureMismatch)
    );
    assert_eq!(
        verify_signed(&part, "POST", |_| {}, now),
        Err(VerifyError::SignatureMismatch)
    );
    assert_eq!(
        verify_signed(
            &upload,
            "POST",
            set("x-amz-content-sha256", UNSIGNED_PAYLOAD),
            now
        ),
        Err(VerifyError::SignatureMismatch)
    );
    // Within 15 minutes either way, as S3.
    let skewed = |minutes| verify_signed(&part, "PUT", |_| {}, now + TimeDelta::minutes(minutes));
    assert_eq!(skewed(15), Ok(Payload::Unsigned));
    assert_eq!(skewed(-15), Ok(Payload::Unsigned));
    for minutes in [16, -16] {
        assert_eq!(skewed(minutes), Err(VerifyError::TimeTooSkewed));
        assert_eq!(VerifyError::TimeTooSkewed.s3_code(), "RequestTimeTooSkewed");
    }
    let malformed =
        |tamper: Tamper<'_>| verify_signed(&part, "PUT", tamper, now).expect_err("refused");
    let no_hash = malformed(&|h| h.retain(|(n, _)| n != "x-amz-content-sha256"));
    assert_eq!(no_hash, VerifyError::MissingContentSha256);
    assert_eq!(
        (no_hash.s3_code(), no_hash.is_malformed()),
        ("InvalidRequest", true)
    );
    let bad_hash = malformed(&set("x-amz-content-sha256", "abc"));
    assert_eq!(bad_hash.s3_code(), "InvalidArgument");
    for authorization in [
        "AWS4-HMAC-SHA1 Credential=x",
        "AWS4-HMAC-SHA256 Credential=AKIAS3CHECKEXAMPLE01/20240315/us-east-1/s3/aws4_request",
        "AWS4-HMAC-SHA256 Credential=AKIAS3CHECKEXAMPLE01/20240316/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00",
        "AWS4-HMAC-SHA256 Credential=AKIAS3CHECKEXAMPLE01/20240315/us-east-1/s3/aws4_request, SignedHeaders=x-amz-date, Signature=00",
        "AWS4-HMAC-SHA256 Credential=a/20240315/us-east-1/s3/aws4_request, Credential=b, SignedHeaders=host, Signature=00",
        "AWS4-HMAC-SHA256 Credential=a/20240315/us-east-1/s3/aws4_request, Extra=1",
    ] {
        let error = malformed(&set("authorization", authorization));
        assert_eq!(
            (error.s3_code(), error.is_malformed()),
            ("AuthorizationHeaderMalformed", true),
            "{authorization}: {error}"
        );
    }
    let no_date = malformed(&|h| h.retain(|(n, _)| n != "x-amz-date"));
    assert_eq!(no_date.s3_code(), "AuthorizationHeaderMalformed");
    // One way of signing per request.
    let both = {
        let mut doubled = part.clone();
        doubled.url.push_str("&X-Amz-Date=20240315T120000Z");
        verify_signed(&doubled, "PUT", |_| {}, now).expect_err("refused")
    };
    assert_eq!(both.s3_code(), "AuthorizationQueryParametersError");
    let other_key = Verifier::new(
        "AKIAOTHER",
        Secret::new("s3check/Secret+Key/EXAMPLE0123456789abcd"),
        DEFAULT_MAX_CLOCK_SKEW,
    );
    let mut headers: Vec<(String, String)> = part.headers.clone();
    headers.push(("host".into(), "127.0.0.1:9000".into()));
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        other_key.verify_request(&incoming("PUT", &part.url, &pairs), now),
        Err(VerifyError::UnknownAccessKey("AKIAS3CHECKEXAMPLE01".into()))
    );
}

#[test]
fn repeated_headers_and_inner_spaces_are_canonical() {
    let now = time("20240315T120000Z");
    let url = local_signer(None)
        .presign_with_headers(
            "PUT",
            "test-bucket",
            "k",
            60,
            now,
            &[],
            &[
                ("x-amz-meta-tags", "a,b  c"),
                ("content-type", " text/plain "),
            ],
        )
        .expect("signs");
    let sent = [
        ("host", "127.0.0.1:9000"),
        ("x-amz-meta-tags", "a"),
        ("content-type", "text/plain"),
        ("x-amz-meta-tags", "  b   c "),
    ];
    assert_eq!(
        local_verifier().verify_request(&incoming("PUT", &url, &sent), now),
        Ok(Payload::Unsigned)
    );
}
