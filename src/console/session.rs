//! Console sessions: a login with an API key gives a random token, kept in an HttpOnly,
//! SameSite=Strict cookie and in a server-side map with an expiry; each session carries
//! the CSRF token that every form which changes something must send back.

use crate::config::settings::Auth;
use crate::http::auth::Access;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;

/// The session cookie's name.
pub const COOKIE: &str = "depot_session";
/// How long a session lasts after login (a working day); then the console asks again.
pub const LIFETIME: Duration = Duration::from_secs(8 * 3600);
/// Most sessions held at once: past it the oldest goes, so endless logins cannot fill memory.
const MAX_SESSIONS: usize = 10_000;

/// One logged-in browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub access: Access,
    /// Sent back in a hidden field by every form that changes something.
    pub csrf: String,
    expires: Instant,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("the API key is not valid")]
    BadKey,
    #[error("no randomness for a session token: {0}")]
    Random(getrandom::Error),
}

/// The sessions of this process (a restart logs everyone out).
#[derive(Default)]
pub struct Sessions {
    map: Mutex<HashMap<String, Session>>,
}

impl Sessions {
    /// Checks `key` against the configured keys (constant time) and opens a session:
    /// its token and the session.
    pub fn login(&self, key: &str, auth: &Auth) -> Result<(String, Session), SessionError> {
        let access = crate::http::auth::key_access(key, auth).ok_or(SessionError::BadKey)?;
        let session = Session {
            access,
            csrf: random_token()?,
            expires: Instant::now() + LIFETIME,
        };
        let token = random_token()?;
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        map.retain(|_, s| s.expires > now);
        if map.len() >= MAX_SESSIONS
            && let Some(oldest) = map
                .iter()
                .min_by_key(|(_, s)| s.expires)
                .map(|(t, _)| t.clone())
        {
            map.remove(&oldest);
        }
        map.insert(token.clone(), session.clone());
        Ok((token, session))
    }

    /// The live session of a `Cookie` header, if any (an expired one is dropped).
    pub fn find(&self, cookie_header: Option<&str>) -> Option<Session> {
        let token = cookie_value(cookie_header?, COOKIE)?;
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        match map.get(token) {
            Some(session) if session.expires > Instant::now() => Some(session.clone()),
            Some(_) => {
                map.remove(token);
                None
            }
            None => None,
        }
    }

    /// Ends the session of a `Cookie` header.
    pub fn logout(&self, cookie_header: Option<&str>) {
        if let Some(token) = cookie_header.and_then(|h| cookie_value(h, COOKIE)) {
            self.map
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(token);
        }
    }
}

impl Session {
    /// Whether `sent` is this session's CSRF token (constant time).
    pub fn csrf_matches(&self, sent: &str) -> bool {
        bool::from(sent.as_bytes().ct_eq(self.csrf.as_bytes()))
    }
}

/// The `Set-Cookie` value that stores `token`. `Secure` is left out because the daemon
/// speaks plain HTTP (on loopback by default); behind a TLS proxy the proxy may add it.
pub fn set_cookie(token: &str) -> String {
    format!(
        "{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}",
        LIFETIME.as_secs()
    )
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
}

/// The value of cookie `name` in a `Cookie` header (`a=1; b=2`).
fn cookie_value<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty())
}

/// 32 random bytes as hex.
fn random_token() -> Result<String, SessionError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(SessionError::Random)?;
    Ok(crate::hex::encode(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::Secret;

    fn auth() -> Auth {
        Auth {
            api_keys: vec![Secret::new("reader")],
            admin_keys: vec![Secret::new("admin")],
        }
    }

    #[test]
    fn a_login_gives_a_session_found_by_its_cookie() {
        let sessions = Sessions::default();
        let (token, session) = sessions.login("admin", &auth()).unwrap();
        assert_eq!(session.access, Access::Admin);
        assert_eq!(token.len(), 64);
        let cookie = format!("other=1; {COOKIE}={token}");
        assert_eq!(sessions.find(Some(&cookie)), Some(session.clone()));
        assert!(session.csrf_matches(&session.csrf));
        assert!(!session.csrf_matches("forged"));
        sessions.logout(Some(&cookie));
        assert_eq!(sessions.find(Some(&cookie)), None);
    }

    #[test]
    fn a_wrong_key_or_cookie_gives_no_session() {
        let sessions = Sessions::default();
        assert!(matches!(
            sessions.login("nope", &auth()),
            Err(SessionError::BadKey)
        ));
        assert_eq!(
            sessions.login("reader", &auth()).unwrap().1.access,
            Access::Reader
        );
        assert_eq!(sessions.find(Some(&format!("{COOKIE}=abc"))), None);
        assert_eq!(sessions.find(Some(&format!("{COOKIE}="))), None);
        assert_eq!(sessions.find(None), None);
    }

    #[test]
    fn expired_sessions_are_refused() {
        let sessions = Sessions::default();
        let (token, _) = sessions.login("reader", &auth()).unwrap();
        sessions
            .map
            .lock()
            .unwrap()
            .get_mut(&token)
            .unwrap()
            .expires = Instant::now() - Duration::from_secs(1);
        assert_eq!(sessions.find(Some(&format!("{COOKIE}={token}"))), None);
    }

    #[test]
    fn the_cookie_is_http_only_and_same_site_strict() {
        let cookie = set_cookie("t");
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
        assert!(cookie.contains("Max-Age=28800"));
    }
}
