//! The OAuth consent flow that obtains a refresh token: build the consent URL (offline
//! access, forced consent, read-only Sheets scope, a random `state`), try to open a browser
//! and always print the URL, receive the redirect on the host, port and path of
//! `SERVICE_REDIRECT_URI`, check `state`, exchange the code at the token URL, and save the
//! refresh token where `google.token_store` says.

use crate::config::settings::{Google, Service, Settings, TokenStore};
use crate::config::{Sources, env_file, token_file};
use crate::secret::Secret;
use crate::shutdown::Shutdown;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

pub const SCOPE: &str = "https://www.googleapis.com/auth/spreadsheets.readonly";
/// The scope that may also write (`depot import --to google:…` adds a tab); it reads too,
/// so its refresh token serves every other command.
pub const WRITE_SCOPE: &str = "https://www.googleapis.com/auth/spreadsheets";

/// How long the flow waits for the browser to come back.
pub const CALLBACK_TIMEOUT: Duration = Duration::from_secs(600);

#[derive(Debug, thiserror::Error)]
pub enum ConsentError {
    #[error("{0} is not set: it is needed for the consent flow (set it in .env.service)")]
    Missing(&'static str),
    #[error(
        "SERVICE_REDIRECT_URI '{0}' must be an http:// URL with a host (and port) this machine can listen on"
    )]
    RedirectUri(String),
    #[error("cannot listen on {addr} for the OAuth callback: {reason}")]
    Listen { addr: String, reason: String },
    #[error("the consent was refused or failed in the browser: {0}")]
    Denied(String),
    #[error("no answer from the browser within {0} s; run `depot auth` again")]
    TimedOut(u64),
    #[error("the token exchange failed: {0}")]
    Exchange(String),
    #[error("cannot save the refresh token: {0}")]
    Save(String),
    #[error("no randomness for the OAuth state: {0}")]
    Random(String),
}

/// Where the browser comes back to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callback {
    pub bind: SocketAddr,
    pub path: String,
}

/// Host, port and path of the redirect URI (`localhost` listens on 127.0.0.1).
pub fn callback_of(redirect_uri: &str) -> Result<Callback, ConsentError> {
    let bad = || ConsentError::RedirectUri(redirect_uri.to_owned());
    let url = reqwest::Url::parse(redirect_uri).map_err(|_| bad())?;
    if url.scheme() != "http" {
        return Err(bad());
    }
    let host = match url.host_str().ok_or_else(bad)? {
        "localhost" => "127.0.0.1".to_owned(),
        h => h.trim_matches(['[', ']']).to_owned(),
    };
    let port = url.port_or_known_default().ok_or_else(bad)?;
    let ip: std::net::IpAddr = host.parse().map_err(|_| bad())?;
    Ok(Callback {
        bind: SocketAddr::new(ip, port),
        path: url.path().to_owned(),
    })
}

/// The consent page URL.
pub fn consent_url(
    google: &Google,
    service: &Service,
    state: &str,
) -> Result<String, ConsentError> {
    consent_url_for(google, service, state, SCOPE)
}

/// The consent page URL asking for `scope`.
pub fn consent_url_for(
    google: &Google,
    service: &Service,
    state: &str,
    scope: &str,
) -> Result<String, ConsentError> {
    let mut url = reqwest::Url::parse(&google.auth_url)
        .map_err(|e| ConsentError::Exchange(format!("google.auth_url is not a URL: {e}")))?;
    url.query_pairs_mut()
        .append_pair("client_id", &service.client_id)
        .append_pair("redirect_uri", &service.redirect_uri)
        .append_pair("response_type", "code")
        .append_pair("scope", scope)
        .append_pair("access_type", "offline")
        .append_pair("prompt", "consent")
        .append_pair("state", state);
    Ok(url.into())
}

fn random_state() -> Result<String, ConsentError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| ConsentError::Random(e.to_string()))?;
    Ok(crate::hex::encode(&bytes))
}

/// What the browser brought back.
#[derive(Debug)]
pub enum Outcome {
    Code(String),
    Denied(String),
}

/// One consent under way: its URL, its `state`, where the browser comes back, and where
/// the callback handler sends what it got.
pub struct Session {
    pub url: String,
    pub state: String,
    pub callback: Callback,
    pub outcome: mpsc::UnboundedSender<Outcome>,
}

impl Session {
    /// Starts a session for the settings; the receiver gets the browser's answer.
    pub fn start(
        settings: &Settings,
    ) -> Result<(Session, mpsc::UnboundedReceiver<Outcome>), ConsentError> {
        Session::start_for(settings, SCOPE)
    }

    /// `start`, asking for `scope`.
    pub fn start_for(
        settings: &Settings,
        scope: &str,
    ) -> Result<(Session, mpsc::UnboundedReceiver<Outcome>), ConsentError> {
        let service = &settings.service;
        if service.client_id.is_empty() {
            return Err(ConsentError::Missing("SERVICE_CLIENT_ID"));
        }
        if service.client_secret.is_empty() {
            return Err(ConsentError::Missing("SERVICE_CLIENT_SECRET"));
        }
        let callback = callback_of(&service.redirect_uri)?;
        let state = random_state()?;
        let url = consent_url_for(&settings.google, service, &state, scope)?;
        let (outcome, rx) = mpsc::unbounded_channel();
        Ok((
            Session {
                url,
                state,
                callback,
                outcome,
            },
            rx,
        ))
    }

    /// Answers a request that reached the callback path (see `answer_callback`).
    pub fn answer(&self, got_path: &str, query: &[(String, String)]) -> CallbackPage {
        answer_callback(
            &self.callback.path,
            &self.state,
            got_path,
            query,
            &self.outcome,
        )
    }
}

/// Binds the callback's address.
pub async fn bind_callback(callback: &Callback) -> Result<tokio::net::TcpListener, ConsentError> {
    tokio::net::TcpListener::bind(callback.bind)
        .await
        .map_err(|e| ConsentError::Listen {
            addr: callback.bind.to_string(),
            reason: e.to_string(),
        })
}

/// Waits for the browser's answer and exchanges the code for a refresh token.
pub async fn finish(
    settings: &Settings,
    mut answers: mpsc::UnboundedReceiver<Outcome>,
) -> Result<Secret, ConsentError> {
    let code = match tokio::time::timeout(CALLBACK_TIMEOUT, answers.recv()).await {
        Ok(Some(Outcome::Code(code))) => code,
        Ok(Some(Outcome::Denied(reason))) => return Err(ConsentError::Denied(reason)),
        Ok(None) | Err(_) => return Err(ConsentError::TimedOut(CALLBACK_TIMEOUT.as_secs())),
    };
    exchange_code(&settings.google, &settings.service, &code).await
}

/// Serves the consent callback on a listener of its own until the `Shutdown` fires: the
/// HTTP side (`http::consent_callback::server`), handed to the producer so that neither it
/// nor the flow knows HTTP.
pub type CallbackServer =
    fn(Arc<Session>, TcpListener, Shutdown) -> futures_util::future::BoxFuture<'static, ()>;

/// Runs the whole flow on its own listener, asking for `scope`, and returns the refresh
/// token. `serve_callback`
/// answers the browser on that listener until its `Shutdown` fires: the HTTP side
/// (`http::consent_callback::serve`), handed in so that the flow knows no HTTP. `announce`
/// receives the consent URL (the CLI prints it; a browser is also tried when
/// `open_browser`).
pub async fn obtain_refresh_token<Serve>(
    settings: &Settings,
    scope: &str,
    open_browser: bool,
    serve_callback: impl FnOnce(Arc<Session>, TcpListener, Shutdown) -> Serve,
    announce: impl Fn(&str),
) -> Result<Secret, ConsentError>
where
    Serve: Future<Output = ()> + Send + 'static,
{
    let (session, answers) = Session::start_for(settings, scope)?;
    let listener = bind_callback(&session.callback).await?;
    announce(&session.url);
    if open_browser {
        try_open_browser(&session.url);
    }
    let stop = Shutdown::new();
    let server = tokio::spawn(serve_callback(Arc::new(session), listener, stop.clone()));
    let result = finish(settings, answers).await;
    stop.trigger();
    let _ = server.await;
    result
}

/// What the callback answers the browser: a status and a one-line HTML page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallbackPage {
    pub status: u16,
    pub html: String,
}

/// The browser's request: on the callback path with our `state`, a code or an error ends
/// the flow; anything else is refused and the flow keeps waiting (a forged or stale
/// callback must not end it).
fn answer_callback(
    path: &str,
    expected_state: &str,
    got_path: &str,
    query: &[(String, String)],
    outcome: &mpsc::UnboundedSender<Outcome>,
) -> CallbackPage {
    let get = |name: &str| {
        query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let page = |status: u16, text: &str| {
        let html = format!(
            "<!doctype html><meta charset=utf-8><title>depot</title><p>{}</p>",
            text.replace('&', "&amp;").replace('<', "&lt;")
        );
        CallbackPage { status, html }
    };
    if got_path != path {
        return page(404, "Not the depot OAuth callback.");
    }
    if get("state") != Some(expected_state) {
        return page(
            400,
            "This answer does not belong to the running `depot auth` (state mismatch); it was ignored.",
        );
    }
    if let Some(error) = get("error") {
        let _ = outcome.send(Outcome::Denied(error.to_owned()));
        return page(
            400,
            &format!("Consent was not given ({error}). You can close this tab."),
        );
    }
    match get("code") {
        Some(code) if !code.is_empty() => {
            let _ = outcome.send(Outcome::Code(code.to_owned()));
            page(200, "depot is authorised. You can close this tab.")
        }
        _ => page(
            400,
            "The answer carries neither a code nor an error; it was ignored.",
        ),
    }
}

#[derive(serde::Deserialize)]
struct TokenAnswer {
    refresh_token: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// Exchanges the authorization code for tokens at the token URL.
async fn exchange_code(
    google: &Google,
    service: &Service,
    code: &str,
) -> Result<Secret, ConsentError> {
    crate::tls::install_tls_provider();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(google.timeout_secs))
        .build()
        .map_err(|e| ConsentError::Exchange(e.to_string()))?;
    let response = client
        .post(&google.token_url)
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("client_id", &service.client_id),
            ("client_secret", service.client_secret.expose()),
            ("redirect_uri", &service.redirect_uri),
        ])
        .send()
        .await
        .map_err(|e| {
            ConsentError::Exchange(format!(
                "cannot reach the token URL: {}",
                crate::redact::http_error(e, &google.token_url)
            ))
        })?;
    let status = response.status();
    let answer: TokenAnswer = response.json().await.map_err(|_| {
        ConsentError::Exchange(format!(
            "the token URL answered {status} without a JSON token"
        ))
    })?;
    if let Some(error) = answer.error {
        let detail = answer.error_description.unwrap_or_default();
        return Err(ConsentError::Exchange(format!("{error}: {detail}")));
    }
    answer
        .refresh_token
        .filter(|t| !t.is_empty())
        .map(Secret::new)
        .ok_or_else(|| ConsentError::Exchange(format!(
            "the token URL answered {status} without a refresh token (was access_type=offline refused?)"
        )))
}

/// Saves the token: `env` rewrites `.env.service` keeping every other line; `json` merges
/// it into the token file. Returns where it went.
pub fn save_refresh_token(
    settings: &Settings,
    sources: &Sources,
    token: &Secret,
) -> Result<String, ConsentError> {
    match settings.google.token_store {
        TokenStore::Env => {
            env_file::set_var(&sources.env_file, "SERVICE_REFRESH_TOKEN", token.expose())
                .map_err(|e| ConsentError::Save(format!("{}: {e}", sources.env_file.display())))?;
            Ok(sources.env_file.display().to_string())
        }
        TokenStore::Json => {
            token_file::save(&settings.google.token_file, token)
                .map_err(|e| ConsentError::Save(e.to_string()))?;
            Ok(settings.google.token_file.display().to_string())
        }
    }
}

/// Whether a graphical session could show a browser.
pub fn display_available() -> bool {
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// Best effort: a desktop opens the URL; a server without one simply shows nothing.
pub fn try_open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let _ = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callback_comes_from_the_redirect_uri() {
        assert_eq!(
            callback_of("http://localhost:3000/oauth2callback").unwrap(),
            Callback {
                bind: "127.0.0.1:3000".parse().unwrap(),
                path: "/oauth2callback".into()
            }
        );
        assert_eq!(callback_of("http://127.0.0.1/cb").unwrap().bind.port(), 80);
        for bad in ["https://localhost/cb", "not a url", "http://example.com/cb"] {
            assert!(callback_of(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_consent_url_asks_for_offline_read_only_access() {
        let google = Google {
            token_url: "http://t".into(),
            auth_url: "https://accounts.example/o/oauth2/v2/auth".into(),
            sheets_url: "http://s".into(),
            timeout_secs: 5,
            token_store: TokenStore::Env,
            token_file: "data.json".into(),
            credentials_file: None,
        };
        let service = Service {
            client_id: "id-1".into(),
            client_secret: Secret::new("s"),
            refresh_token: Secret::default(),
            spreadsheet_id: String::new(),
            spreadsheet_name: String::new(),
            redirect_uri: "http://localhost:3000/oauth2callback".into(),
        };
        let url = consent_url(&google, &service, "st4te").unwrap();
        let parsed = reqwest::Url::parse(&url).unwrap();
        let pairs: std::collections::HashMap<_, _> = parsed.query_pairs().into_owned().collect();
        assert_eq!(pairs["access_type"], "offline");
        assert_eq!(pairs["prompt"], "consent");
        assert_eq!(pairs["scope"], SCOPE);
        assert_eq!(pairs["state"], "st4te");
        assert_eq!(pairs["client_id"], "id-1");
        assert_eq!(
            pairs["redirect_uri"],
            "http://localhost:3000/oauth2callback"
        );
        assert_eq!(pairs["response_type"], "code");
        assert!(!url.contains("client_secret"), "{url}");
    }

    #[test]
    fn callbacks_with_a_wrong_state_or_path_are_refused_and_do_not_end_the_flow() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let q = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        let r = answer_callback(
            "/cb",
            "good",
            "/cb",
            &q(&[("state", "evil"), ("code", "c")]),
            &tx,
        );
        assert_eq!(r.status, 400);
        let r = answer_callback(
            "/cb",
            "good",
            "/other",
            &q(&[("state", "good"), ("code", "c")]),
            &tx,
        );
        assert_eq!(r.status, 404);
        assert!(rx.try_recv().is_err());
        let r = answer_callback(
            "/cb",
            "good",
            "/cb",
            &q(&[("state", "good"), ("error", "access_denied")]),
            &tx,
        );
        assert_eq!(r.status, 400);
        assert!(matches!(rx.try_recv(), Ok(Outcome::Denied(e)) if e == "access_denied"));
        let r = answer_callback(
            "/cb",
            "good",
            "/cb",
            &q(&[("state", "good"), ("code", "c0de")]),
            &tx,
        );
        assert_eq!(r.status, 200);
        assert!(matches!(rx.try_recv(), Ok(Outcome::Code(c)) if c == "c0de"));
    }
}
