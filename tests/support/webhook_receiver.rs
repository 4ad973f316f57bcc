//! A webhook receiver on loopback (SPEC §8, §14): it records each delivery's
//! `Depot-Signature` header and body, and checks a signature as a receiver would.

use serde_json::Value;
use std::sync::{Arc, Mutex};

/// The secret the tests' daemons sign with (`webhooks.secret`).
pub const SECRET: &str = "whsec_test_secret";

/// What a receiver got: the `Depot-Signature` header and the raw body of each request.
type Seen = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// A webhook receiver on loopback that fails the first `failures` requests with 500.
pub struct Receiver {
    pub url: String,
    seen: Seen,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Receiver {
    pub async fn start(failures: usize) -> Receiver {
        use warp::Filter;
        let seen: Seen = Arc::default();
        let record = seen.clone();
        let route = warp::post()
            .and(warp::header::<String>("depot-signature"))
            .and(warp::body::bytes())
            .map(move |signature: String, body: bytes::Bytes| {
                let mut seen = record.lock().unwrap();
                seen.push((signature, body.to_vec()));
                let status = if seen.len() <= failures { 500 } else { 200 };
                let status = warp::http::StatusCode::from_u16(status).unwrap();
                warp::Reply::into_response(warp::reply::with_status("ok", status))
            })
            .boxed();
        let (addr, stop) = super::serve_on_loopback(route).await;
        let url = format!("http://{addr}/hooks/depot?token=t0k3n");
        Receiver {
            url,
            seen,
            _stop: stop,
        }
    }

    pub fn deliveries(&self) -> Vec<(String, Vec<u8>)> {
        self.seen.lock().unwrap().clone()
    }
}

/// Checks a delivery as a receiver would (the snippet in docs/http-api.md does the same) and
/// returns its body.
pub fn verified(signature: &str, body: &[u8]) -> Value {
    use hmac::{Hmac, KeyInit, Mac};
    let (t, v1) = signature
        .split_once(',')
        .and_then(|(t, v1)| Some((t.strip_prefix("t=")?, v1.strip_prefix("v1=")?)))
        .unwrap_or_else(|| panic!("malformed Depot-Signature: {signature}"));
    let age = chrono::Utc::now().timestamp() - t.parse::<i64>().unwrap();
    assert!((0..300).contains(&age), "signed {age} s ago");
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(body);
    let expected = depot::hex::encode(&mac.finalize().into_bytes());
    assert_eq!(v1, expected, "the signature does not verify");
    serde_json::from_slice(body).unwrap()
}
