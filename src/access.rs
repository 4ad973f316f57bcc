//! API keys (SPEC §3 "Access control") and what each may do: read public records, read
//! private ones too, or write. Keys are compared in constant time. How a request presents
//! its key is HTTP's (`http::auth`: `Authorization: Bearer <key>`); the console's sessions
//! (`console::session`) stand on the same keys.

use crate::config::settings::Auth;
use crate::secret::Secret;
use subtle::ConstantTimeEq;

/// What a request may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// May read public records (and private ones when no API keys are configured).
    Anonymous,
    /// Presented a valid API key, or reads are open.
    Reader,
    /// Presented a valid admin key (reads too).
    Admin,
}

impl Access {
    /// Reads of private records: allowed to readers and admins.
    pub fn may_read_private(self) -> bool {
        matches!(self, Access::Reader | Access::Admin)
    }
}

/// What a presented key may do: `Admin` for an admin key, `Reader` for an API key, `None`
/// for an unknown one (the API's bearer keys and the console's login).
pub fn key_access(key: &str, auth: &Auth) -> Option<Access> {
    if matches_any(key, &auth.admin_keys) {
        Some(Access::Admin)
    } else if matches_any(key, &auth.api_keys) {
        Some(Access::Reader)
    } else {
        None
    }
}

/// Compares against every key without stopping early, each comparison in constant time.
fn matches_any(presented: &str, keys: &[Secret]) -> bool {
    keys.iter().fold(false, |found, key| {
        found | bool::from(presented.as_bytes().ct_eq(key.expose().as_bytes()))
    })
}

/// How logs and the channels' history name a key without showing it: `key sha256:1a2b3c4d`,
/// the first 8 hex digits of its SHA-256 (the operator can compute it from the key).
pub fn fingerprint(key: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(key.as_bytes());
    format!("key sha256:{}", crate::hex::encode(&digest[..4]))
}
