//! API keys over HTTP (SPEC §3 "Access control"): `Authorization: Bearer <key>`, the key
//! looked up by `access::key_access` (in constant time). Readers need a key only for private
//! records, and only when keys are configured; writers always need an admin key, and writes
//! are off when none is configured. Wrong keys are throttled per client address and logged,
//! as the console's login is (SPEC §10): `KeyGuard`.

use super::ApiError;
use super::client::{ClientAddr, ClientKey};
use super::error::ErrorCode;
use crate::access::{Access, key_access};
use crate::config::settings::{Auth, Limits};
use crate::console::throttle::{self, LoginThrottle, Rate};
use std::time::Instant;
use warp::Filter;
use warp::http::{HeaderMap, header};

/// Who asks: the request's headers (where its key is) and its client address.
pub struct Caller {
    pub headers: HeaderMap,
    pub client: ClientAddr,
}

/// The `Caller` of a request.
pub fn caller() -> impl Filter<Extract = (Caller,), Error = std::convert::Infallible> + Clone {
    warp::header::headers_cloned()
        .and(super::client::client())
        .map(|headers, client| Caller { headers, client })
}

/// Checks the API key of a request (once per request: each check of a wrong key counts)
/// and throttles wrong keys per client address, in buckets of their own beside the login's:
/// `limits.api_key_attempts` wrong keys in a row, then one more every
/// `limits.api_key_refill_secs`. With none left, every request of the address that carries
/// a key answers 429 with `Retry-After` before its key is compared, the right key too (an
/// answer that told a right key from a wrong one would let the guessing go on); a request
/// without a key is not concerned. A right key gives its attempt back. Each wrong key is a
/// WARN line with the address, never the key.
#[derive(Default)]
pub struct KeyGuard {
    throttle: LoginThrottle<ClientKey>,
}

impl KeyGuard {
    /// What `caller` may do. A key that is presented but unknown is refused (401), so a
    /// typo does not silently fall back to public-only answers.
    pub fn access(
        &self,
        caller: &Caller,
        auth: &Auth,
        limits: &Limits,
    ) -> Result<Access, ApiError> {
        let Some(key) = presented(&caller.headers)? else {
            return Ok(if auth.api_keys.is_empty() {
                Access::Reader
            } else {
                Access::Anonymous
            });
        };
        let client = caller.client;
        let rate = Rate::of_api_keys(limits);
        let now = Instant::now();
        let left = match self.throttle.take(client.key(), rate, now) {
            Ok(left) => left,
            Err(wait) => {
                let secs = throttle::retry_after_secs(wait);
                tracing::debug!(target: "depot::http", client = %client.0.ip(), "API key throttled");
                return Err(ApiError::TooManyRequests {
                    message: format!(
                        "too many wrong API keys from your address ({}): try again in {secs} s",
                        client.key()
                    ),
                    retry_after: Some(secs),
                }
                .with_code(ErrorCode::TooManyKeyFailures));
            }
        };
        match key_access(key, auth) {
            Some(access) => {
                self.throttle.give_back(client.key(), rate, now);
                Ok(access)
            }
            None => {
                tracing::warn!(
                    target: "depot::http",
                    client = %client.0.ip(),
                    attempts_left = left,
                    "API request refused: wrong API key"
                );
                Err(ApiError::Unauthorized("the API key is not valid".into())
                    .with_code(ErrorCode::InvalidApiKey))
            }
        }
    }

    /// Writes need an admin key; with none configured, writes are off (and no key is
    /// compared).
    pub fn require_admin(
        &self,
        caller: &Caller,
        auth: &Auth,
        limits: &Limits,
    ) -> Result<(), ApiError> {
        if auth.admin_keys.is_empty() {
            return Err(ApiError::Forbidden(
                "writes are disabled: configure auth.admin_keys (DEPOT_ADMIN_KEYS) to enable them; `depot auth --admin-key` makes a key and saves it there"
                    .into(),
            ));
        }
        match self.access(caller, auth, limits)? {
            Access::Admin => Ok(()),
            _ if caller.headers.contains_key(header::AUTHORIZATION) => Err(ApiError::Forbidden(
                "this key may read but not write: writes need an admin key".into(),
            )),
            _ => Err(ApiError::Unauthorized(
                "writes need an admin key: send 'Authorization: Bearer <admin key>'".into(),
            )),
        }
    }
}

/// The key a request presents: `None` without an `Authorization` header, an error when the
/// header is not `Bearer <key>`.
fn presented(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    bearer_token(value.to_str().unwrap_or_default())
        .map(Some)
        .ok_or_else(|| {
            ApiError::Unauthorized("the Authorization header must be 'Bearer <api key>'".into())
                .with_code(ErrorCode::InvalidApiKey)
        })
}

/// The token of `Bearer <token>`: the scheme is case-insensitive (RFC 9110 §11.1), one or
/// more spaces follow it, surrounding whitespace is ignored.
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::Secret;

    /// Keys, and three wrong API keys in a row allowed.
    struct Config {
        auth: Auth,
        limits: Limits,
    }

    fn settings(api: &[&str], admin: &[&str]) -> Config {
        Config {
            auth: Auth {
                api_keys: api.iter().map(|k| Secret::new(*k)).collect(),
                admin_keys: admin.iter().map(|k| Secret::new(*k)).collect(),
            },
            limits: Limits {
                login_attempts: 5,
                login_refill_secs: 20,
                api_key_attempts: 3,
                api_key_refill_secs: 60,
                events_per_client: 16,
                events_total: 100,
                connections: 0,
                input_memory: Default::default(),
            },
        }
    }

    impl KeyGuard {
        fn check(&self, caller: &Caller, config: &Config) -> Result<Access, ApiError> {
            self.access(caller, &config.auth, &config.limits)
        }
    }

    fn caller_from(address: &str, authorization: Option<&str>) -> Caller {
        let mut headers = HeaderMap::new();
        if let Some(value) = authorization {
            headers.insert(header::AUTHORIZATION, value.parse().unwrap());
        }
        Caller {
            headers,
            client: ClientAddr(address.parse().unwrap()),
        }
    }

    fn bearer(key: &str) -> Caller {
        caller_from("192.0.2.1:1", Some(&format!("Bearer {key}")))
    }

    fn refused(e: ApiError) -> (u16, ErrorCode) {
        (e.status().as_u16(), e.code())
    }

    #[test]
    fn reads_are_open_without_configured_keys() {
        let guard = KeyGuard::default();
        let none = caller_from("192.0.2.1:1", None);
        assert_eq!(
            guard.check(&none, &settings(&[], &[])).unwrap(),
            Access::Reader
        );
    }

    #[test]
    fn with_keys_anonymous_reads_are_public_only_and_bad_keys_refused() {
        let guard = KeyGuard::default();
        let s = settings(&["r1", "r2"], &["w1"]);
        let none = caller_from("192.0.2.1:1", None);
        assert_eq!(guard.check(&none, &s).unwrap(), Access::Anonymous);
        assert_eq!(guard.check(&bearer("r2"), &s).unwrap(), Access::Reader);
        assert_eq!(guard.check(&bearer("w1"), &s).unwrap(), Access::Admin);
        assert_eq!(
            guard.check(&bearer("nope"), &s).map_err(refused),
            Err((401, ErrorCode::InvalidApiKey))
        );
        let basic = caller_from("192.0.2.1:1", Some("Basic abc"));
        assert_eq!(
            guard.check(&basic, &s).map_err(refused),
            Err((401, ErrorCode::InvalidApiKey))
        );
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        let guard = KeyGuard::default();
        let s = settings(&["r1"], &[]);
        for value in [
            "Bearer r1",
            "bearer r1",
            "BEARER r1",
            "bEaReR   r1 ",
            " Bearer r1",
        ] {
            let caller = caller_from("192.0.2.1:1", Some(value));
            assert_eq!(
                guard.check(&caller, &s).unwrap(),
                Access::Reader,
                "{value:?}"
            );
        }
        for value in ["Bearer", "Bearer ", "Bearerr1", "Basic r1", "Token r1"] {
            let caller = caller_from("192.0.2.1:1", Some(value));
            assert!(
                matches!(guard.check(&caller, &s), Err(e) if e.code() == ErrorCode::InvalidApiKey
                    && e.to_string().contains("Bearer <api key>")),
                "{value:?}"
            );
        }
    }

    #[test]
    fn wrong_keys_are_throttled_per_address_and_then_the_right_key_waits_too() {
        let guard = KeyGuard::default();
        let s = settings(&["r1"], &["w1"]);
        // A right key costs nothing; a header that is not Bearer is no guess.
        for _ in 0..5 {
            guard.check(&bearer("r1"), &s).unwrap();
            guard
                .check(&caller_from("192.0.2.1:1", Some("Basic x")), &s)
                .unwrap_err();
        }
        for _ in 0..3 {
            assert_eq!(
                guard.check(&bearer("nope"), &s).map_err(refused),
                Err((401, ErrorCode::InvalidApiKey))
            );
        }
        for key in ["nope", "r1", "w1"] {
            let e = guard.check(&bearer(key), &s).unwrap_err();
            assert_eq!(
                refused(e.clone()),
                (429, ErrorCode::TooManyKeyFailures),
                "{key}"
            );
            assert_eq!(e.into_response().headers()["retry-after"], "60", "{key}");
        }
        // Without a key, and from another address, nothing changed.
        let none = caller_from("192.0.2.1:2", None);
        assert_eq!(guard.check(&none, &s).unwrap(), Access::Anonymous);
        let neighbour = caller_from("192.0.2.2:1", Some("Bearer r1"));
        assert_eq!(guard.check(&neighbour, &s).unwrap(), Access::Reader);
    }

    #[test]
    fn writes_need_an_admin_key_and_are_off_without_one() {
        let guard = KeyGuard::default();
        let admin = |caller: &Caller, c: &Config| guard.require_admin(caller, &c.auth, &c.limits);
        assert!(matches!(
            admin(&bearer("x"), &settings(&["x"], &[])),
            Err(ApiError::Forbidden(m)) if m.contains("auth.admin_keys")
        ));
        let s = settings(&["r"], &["w"]);
        assert!(admin(&bearer("w"), &s).is_ok());
        assert!(matches!(
            admin(&bearer("r"), &s),
            Err(ApiError::Forbidden(_))
        ));
        assert!(matches!(
            admin(&caller_from("192.0.2.1:1", None), &s),
            Err(ApiError::Unauthorized(_))
        ));
    }
}
