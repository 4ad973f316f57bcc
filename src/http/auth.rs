//! API keys over HTTP (SPEC §3 "Access control"): `Authorization: Bearer <key>`, the key
//! looked up by `access` (in constant time). Readers need a key only for private records,
//! and only when keys are configured; writers always need an admin key, and writes are off
//! when none is configured.

use super::ApiError;
use super::error::ErrorCode;
use crate::access::{Access, key_access};
use crate::config::settings::Auth;
use warp::http::{HeaderMap, header};

/// Works out the access of a request. A key that is presented but unknown is refused
/// (401), so a typo does not silently fall back to public-only answers.
pub fn access(headers: &HeaderMap, auth: &Auth) -> Result<Access, ApiError> {
    let presented = match headers.get(header::AUTHORIZATION) {
        None => None,
        Some(value) => {
            let text = value.to_str().unwrap_or_default();
            match bearer_token(text) {
                Some(key) => Some(key),
                _ => {
                    return Err(ApiError::Unauthorized(
                        "the Authorization header must be 'Bearer <api key>'".into(),
                    )
                    .with_code(ErrorCode::InvalidApiKey));
                }
            }
        }
    };
    let Some(key) = presented else {
        return Ok(if auth.api_keys.is_empty() {
            Access::Reader
        } else {
            Access::Anonymous
        });
    };
    key_access(key, auth).ok_or_else(|| {
        ApiError::Unauthorized("the API key is not valid".into())
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

/// Writes need an admin key; with none configured, writes are off.
pub fn require_admin(headers: &HeaderMap, auth: &Auth) -> Result<(), ApiError> {
    if auth.admin_keys.is_empty() {
        return Err(ApiError::Forbidden(
            "writes are disabled: configure auth.admin_keys (DEPOT_ADMIN_KEYS) to enable them; `depot auth --admin-key` makes a key and saves it there"
                .into(),
        ));
    }
    match access(headers, auth)? {
        Access::Admin => Ok(()),
        _ if headers.contains_key(header::AUTHORIZATION) => Err(ApiError::Forbidden(
            "this key may read but not write: writes need an admin key".into(),
        )),
        _ => Err(ApiError::Unauthorized(
            "writes need an admin key: send 'Authorization: Bearer <admin key>'".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::Secret;

    fn auth(api: &[&str], admin: &[&str]) -> Auth {
        Auth {
            api_keys: api.iter().map(|k| Secret::new(*k)).collect(),
            admin_keys: admin.iter().map(|k| Secret::new(*k)).collect(),
        }
    }

    fn bearer(key: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            format!("Bearer {key}").parse().unwrap(),
        );
        h
    }

    #[test]
    fn reads_are_open_without_configured_keys() {
        assert_eq!(
            access(&HeaderMap::new(), &auth(&[], &[])).unwrap(),
            Access::Reader
        );
    }

    #[test]
    fn with_keys_anonymous_reads_are_public_only_and_bad_keys_refused() {
        let a = auth(&["r1", "r2"], &["w1"]);
        assert_eq!(access(&HeaderMap::new(), &a).unwrap(), Access::Anonymous);
        assert_eq!(access(&bearer("r2"), &a).unwrap(), Access::Reader);
        assert_eq!(access(&bearer("w1"), &a).unwrap(), Access::Admin);
        let refused = |e: ApiError| (e.status().as_u16(), e.code());
        assert_eq!(
            access(&bearer("nope"), &a).map_err(refused),
            Err((401, ErrorCode::InvalidApiKey))
        );
        let mut basic = HeaderMap::new();
        basic.insert(header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert_eq!(
            access(&basic, &a).map_err(refused),
            Err((401, ErrorCode::InvalidApiKey))
        );
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        let a = auth(&["r1"], &[]);
        for value in [
            "Bearer r1",
            "bearer r1",
            "BEARER r1",
            "bEaReR   r1 ",
            " Bearer r1",
        ] {
            let mut h = HeaderMap::new();
            h.insert(header::AUTHORIZATION, value.parse().unwrap());
            assert_eq!(access(&h, &a).unwrap(), Access::Reader, "{value:?}");
        }
        for value in ["Bearer", "Bearer ", "Bearerr1", "Basic r1", "Token r1"] {
            let mut h = HeaderMap::new();
            h.insert(header::AUTHORIZATION, value.parse().unwrap());
            assert!(
                matches!(access(&h, &a), Err(e) if e.code() == ErrorCode::InvalidApiKey
                    && e.to_string().contains("Bearer <api key>")),
                "{value:?}"
            );
        }
    }

    #[test]
    fn writes_need_an_admin_key_and_are_off_without_one() {
        assert!(matches!(
            require_admin(&bearer("x"), &auth(&["x"], &[])),
            Err(ApiError::Forbidden(m)) if m.contains("auth.admin_keys")
        ));
        let a = auth(&["r"], &["w"]);
        assert!(require_admin(&bearer("w"), &a).is_ok());
        assert!(matches!(
            require_admin(&bearer("r"), &a),
            Err(ApiError::Forbidden(_))
        ));
        assert!(matches!(
            require_admin(&HeaderMap::new(), &a),
            Err(ApiError::Unauthorized(_))
        ));
    }
}
