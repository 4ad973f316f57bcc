//! Console sessions: a login with an API key gives a random token, kept in an HttpOnly,
//! SameSite=Strict cookie and in a server-side map with an expiry; each session carries
//! the CSRF token that every form which changes something must send back.
//!
//! A session lives only as long as its key: it holds a fingerprint of the key (HMAC-SHA256
//! under a random key of this process, never the key itself), and every lookup checks the
//! fingerprint against the keys in force, so a key removed by a config reload ends its
//! sessions at their next request (and a key moved between `api_keys` and `admin_keys`
//! changes what they may do). When the keys change, the sessions of removed keys are
//! dropped from memory at once.

use crate::access::Access;
use crate::config::settings::Auth;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;

/// The session cookie's name.
pub const COOKIE: &str = "depot_session";
/// How long a session lasts after login (a working day); then the console asks again.
pub const LIFETIME: Duration = Duration::from_secs(8 * 3600);
/// Most sessions held at once: past it the oldest goes, so endless logins cannot fill memory.
const MAX_SESSIONS: usize = 10_000;

/// Which key a session stands on: HMAC-SHA256 of the key under `Sessions::salt`.
type Fingerprint = [u8; 32];

/// One logged-in browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// What its key may do now (kept up to date with the configuration).
    pub access: Access,
    /// Sent back in a hidden field by every form that changes something.
    pub csrf: String,
    /// Who the session is in logs and the channels' history (`access::fingerprint`).
    pub who: String,
    key: Fingerprint,
    expires: Instant,
    /// What the next page of this session says first (what a form did), once.
    notice: Option<String>,
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
    /// The HMAC key of the fingerprints; made at the first login.
    salt: OnceLock<[u8; 32]>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    map: HashMap<String, Session>,
    /// The keys in force as fingerprints, and the configuration they were made from.
    keys: Option<(Auth, Vec<(Fingerprint, Access)>)>,
}

impl Sessions {
    /// Checks `key` against the configured keys (constant time) and opens a session:
    /// its token and the session.
    pub fn login(&self, key: &str, auth: &Auth) -> Result<(String, Session), SessionError> {
        let access = crate::access::key_access(key, auth).ok_or(SessionError::BadKey)?;
        let salt = self.salt()?;
        let session = Session {
            access,
            csrf: random_token()?,
            who: crate::access::fingerprint(key),
            key: crate::signing::hmac(&salt, key.as_bytes()),
            expires: Instant::now() + LIFETIME,
            notice: None,
        };
        let token = random_token()?;
        let mut state = self.lock();
        let now = Instant::now();
        state.map.retain(|_, s| s.expires > now);
        if state.map.len() >= MAX_SESSIONS
            && let Some(oldest) = state
                .map
                .iter()
                .min_by_key(|(_, s)| s.expires)
                .map(|(t, _)| t.clone())
        {
            state.map.remove(&oldest);
        }
        state.map.insert(token.clone(), session.clone());
        Ok((token, session))
    }

    /// The live session of a `Cookie` header under the keys of `auth`, if any. An expired
    /// session, or one whose key is no longer configured, is dropped.
    pub fn find(&self, cookie_header: Option<&str>, auth: &Auth) -> Option<Session> {
        let token = cookie_value(cookie_header?, COOKIE)?;
        // No login yet in this process: no session either.
        let salt = self.salt.get()?;
        let mut state = self.lock();
        state.follow(auth, salt);
        let State { map, keys } = &mut *state;
        let keys = keys.as_ref().map_or(&[][..], |(_, k)| k.as_slice());
        let session = map.get_mut(token)?;
        let access = (session.expires > Instant::now())
            .then(|| access_of(keys, &session.key))
            .flatten();
        match access {
            Some(access) => {
                session.access = access;
                Some(session.clone())
            }
            None => {
                map.remove(token);
                None
            }
        }
    }

    /// Keeps `text` for the next page the session of a `Cookie` header opens: what a form
    /// did, said on the page it leads to (`take_notice`).
    pub fn notify(&self, cookie_header: Option<&str>, text: String) {
        if let Some(token) = cookie_header.and_then(|h| cookie_value(h, COOKIE))
            && let Some(session) = self.lock().map.get_mut(token)
        {
            session.notice = Some(text);
        }
    }

    /// The notice kept for the session of a `Cookie` header, taken: a reload does not
    /// say it again.
    pub fn take_notice(&self, cookie_header: Option<&str>) -> Option<String> {
        let token = cookie_value(cookie_header?, COOKIE)?;
        self.lock().map.get_mut(token)?.notice.take()
    }

    /// Ends the session of a `Cookie` header.
    pub fn logout(&self, cookie_header: Option<&str>) {
        if let Some(token) = cookie_header.and_then(|h| cookie_value(h, COOKIE)) {
            self.lock().map.remove(token);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn salt(&self) -> Result<[u8; 32], SessionError> {
        if let Some(salt) = self.salt.get() {
            return Ok(*salt);
        }
        let mut fresh = [0u8; 32];
        getrandom::fill(&mut fresh).map_err(SessionError::Random)?;
        // Two first logins at once: one salt wins, both use it.
        Ok(*self.salt.get_or_init(|| fresh))
    }
}

impl State {
    /// Makes the fingerprints of `auth`'s keys when the keys changed, and drops the sessions
    /// of keys that are gone.
    fn follow(&mut self, auth: &Auth, salt: &[u8; 32]) {
        if self.keys.as_ref().is_some_and(|(known, _)| known == auth) {
            return;
        }
        let fingerprints: Vec<(Fingerprint, Access)> = auth
            .admin_keys
            .iter()
            .map(|k| (k, Access::Admin))
            .chain(auth.api_keys.iter().map(|k| (k, Access::Reader)))
            .map(|(k, access)| (crate::signing::hmac(salt, k.expose().as_bytes()), access))
            .collect();
        self.map
            .retain(|_, s| access_of(&fingerprints, &s.key).is_some());
        self.keys = Some((auth.clone(), fingerprints));
    }
}

/// What the key of `fingerprint` may do under `keys` (an admin key first, as at login).
fn access_of(keys: &[(Fingerprint, Access)], fingerprint: &Fingerprint) -> Option<Access> {
    keys.iter()
        .find(|(k, _)| bool::from(k.ct_eq(fingerprint)))
        .map(|(_, access)| *access)
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
        keys(&["reader"], &["admin"])
    }

    fn keys(api: &[&str], admin: &[&str]) -> Auth {
        Auth {
            api_keys: api.iter().map(|k| Secret::new(*k)).collect(),
            admin_keys: admin.iter().map(|k| Secret::new(*k)).collect(),
        }
    }

    #[test]
    fn a_login_gives_a_session_found_by_its_cookie() {
        let sessions = Sessions::default();
        let (token, session) = sessions.login("admin", &auth()).unwrap();
        assert_eq!(session.access, Access::Admin);
        assert_eq!(token.len(), 64);
        let cookie = format!("other=1; {COOKIE}={token}");
        assert_eq!(sessions.find(Some(&cookie), &auth()), Some(session.clone()));
        assert!(session.csrf_matches(&session.csrf));
        assert!(!session.csrf_matches("forged"));
        sessions.logout(Some(&cookie));
        assert_eq!(sessions.find(Some(&cookie), &auth()), None);
    }

    #[test]
    fn a_notice_is_said_once_to_its_own_session() {
        let sessions = Sessions::default();
        let cookie = |token: &str| format!("{COOKIE}={token}");
        let (mine, _) = sessions.login("admin", &auth()).unwrap();
        let (other, _) = sessions.login("admin", &auth()).unwrap();
        sessions.notify(Some(&cookie(&mine)), "Deleted a.png (key k).".into());
        assert_eq!(sessions.take_notice(Some(&cookie(&other))), None);
        assert_eq!(
            sessions.take_notice(Some(&cookie(&mine))).as_deref(),
            Some("Deleted a.png (key k).")
        );
        assert_eq!(sessions.take_notice(Some(&cookie(&mine))), None);
        // no session, no notice kept
        sessions.notify(Some(&cookie("unknown")), "lost".into());
        assert_eq!(sessions.take_notice(Some(&cookie("unknown"))), None);
        assert_eq!(sessions.take_notice(None), None);
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
        assert_eq!(sessions.find(Some(&format!("{COOKIE}=abc")), &auth()), None);
        assert_eq!(sessions.find(Some(&format!("{COOKIE}=")), &auth()), None);
        assert_eq!(sessions.find(None, &auth()), None);
    }

    #[test]
    fn expired_sessions_are_refused() {
        let sessions = Sessions::default();
        let (token, _) = sessions.login("reader", &auth()).unwrap();
        sessions.lock().map.get_mut(&token).unwrap().expires =
            Instant::now() - Duration::from_secs(1);
        assert_eq!(
            sessions.find(Some(&format!("{COOKIE}={token}")), &auth()),
            None
        );
        assert!(sessions.lock().map.is_empty());
    }

    #[test]
    fn a_session_ends_when_its_key_is_removed_and_the_others_stay() {
        let sessions = Sessions::default();
        let before = keys(&["reader"], &["admin", "other-admin"]);
        let (admin, _) = sessions.login("admin", &before).unwrap();
        let (other, _) = sessions.login("other-admin", &before).unwrap();
        let cookie = |token: &str| format!("{COOKIE}={token}");
        assert!(sessions.find(Some(&cookie(&admin)), &before).is_some());

        let after = keys(&["reader"], &["other-admin"]);
        assert_eq!(sessions.find(Some(&cookie(&admin)), &after), None);
        assert_eq!(
            sessions.find(Some(&cookie(&other)), &after).unwrap().access,
            Access::Admin
        );
        // Gone for good: putting the key back does not revive the session.
        assert_eq!(sessions.find(Some(&cookie(&admin)), &before), None);
    }

    #[test]
    fn a_reload_drops_the_sessions_of_removed_keys_from_memory_at_once() {
        let sessions = Sessions::default();
        for _ in 0..3 {
            sessions.login("admin", &auth()).unwrap();
        }
        let (kept, _) = sessions.login("reader", &auth()).unwrap();
        assert_eq!(sessions.lock().map.len(), 4);
        // Any request after the reload, even one without a session, drops them.
        let _ = sessions.find(Some(&format!("{COOKIE}=unknown")), &keys(&["reader"], &[]));
        assert_eq!(sessions.lock().map.keys().collect::<Vec<_>>(), vec![&kept]);
    }

    #[test]
    fn a_key_moved_between_lists_changes_what_its_sessions_may_do() {
        let sessions = Sessions::default();
        let (token, _) = sessions.login("admin", &auth()).unwrap();
        let cookie = format!("{COOKIE}={token}");
        let demoted = keys(&["reader", "admin"], &[]);
        assert_eq!(
            sessions.find(Some(&cookie), &demoted).unwrap().access,
            Access::Reader
        );
    }

    #[test]
    fn the_session_holds_a_fingerprint_never_the_key() {
        let sessions = Sessions::default();
        let (_, session) = sessions.login("admin", &auth()).unwrap();
        let shown = format!("{session:?}");
        assert!(!shown.contains("admin\""), "{shown}");
        assert_ne!(session.key.as_slice(), b"admin");
        // Another process (another salt) makes another fingerprint of the same key.
        let (_, elsewhere) = Sessions::default().login("admin", &auth()).unwrap();
        assert_ne!(session.key, elsewhere.key);
    }

    #[test]
    fn the_cookie_is_http_only_and_same_site_strict() {
        let cookie = set_cookie("t");
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
        assert!(cookie.contains("Max-Age=28800"));
    }
}
