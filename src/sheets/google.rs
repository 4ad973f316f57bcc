//! The Google Sheets source: trades the stored refresh token for an access token (kept
//! until shortly before it expires), reads the named sheet with `values.get`, or every tab
//! (SPEC §14) with `spreadsheets.get` and one `values:batchGet`, and returns the grids.
//! Every call has a timeout; no secret ever reaches an error message or a log line.

use super::service_account::{JWT_BEARER, ServiceAccount, ServiceAccountError};
use super::tabs::Tab;
use crate::config::settings::{Google, Service};
use crate::error_chain::error_chain;
use crate::secret::Secret;
use serde_json::Value;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// An access token is renewed this long before Google says it expires, so that it never
/// runs out between our check and Google's.
const EXPIRY_MARGIN: Duration = Duration::from_secs(60);

/// Server texts quoted in errors are cut to this many characters (a proxy's error page
/// would otherwise fill the log).
const QUOTE_LIMIT: usize = 200;

#[derive(Debug, thiserror::Error)]
pub enum GoogleError {
    #[error("{variable} is not set: {}", missing_hint(variable))]
    Missing { variable: &'static str },
    #[error(
        "the refresh token was revoked or expired: run `depot auth` to grant access again and save a new SERVICE_REFRESH_TOKEN"
    )]
    InvalidGrant,
    #[error(
        "Google does not accept the OAuth client ({reason}): check SERVICE_CLIENT_ID and SERVICE_CLIENT_SECRET against the Google Cloud console"
    )]
    InvalidClient { reason: String },
    #[error(
        "Google refused access to spreadsheet '{spreadsheet_id}' (403: {message}): share the sheet with the account that ran `depot auth`, or enable the Google Sheets API for the OAuth client's project"
    )]
    PermissionDenied {
        spreadsheet_id: String,
        message: String,
    },
    #[error(
        "no spreadsheet with id '{spreadsheet_id}': check SERVICE_SPREADSHEET_ID (the part after /d/ in the sheet's URL)"
    )]
    SpreadsheetNotFound { spreadsheet_id: String },
    #[error(
        "no sheet named '{sheet}' in spreadsheet '{spreadsheet_id}': check SERVICE_SPREADSHEET_NAME (the tab name; leave it empty to read every tab, each a namespace)"
    )]
    SheetNotFound {
        spreadsheet_id: String,
        sheet: String,
    },
    #[error("spreadsheet '{spreadsheet_id}' has no sheets to read")]
    NoSheets { spreadsheet_id: String },
    #[error(
        "the tabs of spreadsheet '{spreadsheet_id}' changed while they were read ({message}); \
         will retry"
    )]
    TabsChanged {
        spreadsheet_id: String,
        message: String,
    },
    #[error(
        "the Sheets API refused a freshly issued access token (401): run `depot auth` to grant access again"
    )]
    Unauthenticated,
    /// `url` is shown as `redact::url` shows it (host and port), as in the errors below.
    #[error("Google answered {status} for {url}; will retry")]
    Unavailable {
        status: u16,
        url: String,
        retry_after: Option<Duration>,
    },
    #[error("Google answered {status} for {url}: {message}")]
    Rejected {
        status: u16,
        url: String,
        message: String,
    },
    #[error("Google's answer from {url} is malformed: {what}")]
    InvalidResponse { url: String, what: String },
    #[error("{host} did not answer within {secs} s (google.timeout_secs); will retry")]
    Timeout { host: String, secs: u64 },
    #[error("cannot reach {host}: {reason}; will retry")]
    Connection { host: String, reason: String },
    #[error("cannot set up the HTTPS client: {0}")]
    Client(String),
    #[error(transparent)]
    ServiceAccount(#[from] ServiceAccountError),
    #[error(
        "Google refused the service account's signed assertion ({reason}): the key in \
         google.credentials_file was deleted, disabled or altered; create a new JSON key for \
         the service account and point google.credentials_file at it"
    )]
    AssertionRefused { reason: String },
    #[error(
        "spreadsheet '{spreadsheet_id}' already has a tab named '{tab}': name a new one with \
         --to google:{spreadsheet_id}/NEW_TAB"
    )]
    TabExists { spreadsheet_id: String, tab: String },
}

fn missing_hint(variable: &str) -> &'static str {
    match variable {
        "SERVICE_REFRESH_TOKEN" => "run `depot auth` to grant access and save a refresh token",
        "SERVICE_SPREADSHEET_ID" => {
            "set it to the id in the sheet's URL (docs.google.com/spreadsheets/d/<id>/edit)"
        }
        _ => {
            "create an OAuth client in the Google Cloud console and set SERVICE_CLIENT_ID and SERVICE_CLIENT_SECRET in .env.service"
        }
    }
}

impl GoogleError {
    /// True when trying again later may succeed: 429, 5xx, timeouts, connection errors.
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            GoogleError::Unavailable { .. }
                | GoogleError::Timeout { .. }
                | GoogleError::Connection { .. }
                | GoogleError::TabsChanged { .. }
        )
    }

    /// How long Google asked us to wait (`Retry-After`), when it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            GoogleError::Unavailable { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// True when the access token may read but not write (a consent for the read-only
    /// scope): a consent for the `spreadsheets` scope fixes it.
    pub fn needs_write_scope(&self) -> bool {
        matches!(self, GoogleError::PermissionDenied { message, .. }
            if message.contains("insufficient authentication scopes"))
    }

    /// True when only a new consent (`depot auth`) can fix this.
    pub fn needs_consent(&self) -> bool {
        matches!(
            self,
            GoogleError::InvalidGrant
                | GoogleError::Missing {
                    variable: "SERVICE_REFRESH_TOKEN"
                }
        )
    }
}

/// A Google Sheets reader for one spreadsheet. Keep it across fetches: it holds the
/// access token and the HTTP connection pool.
#[derive(Debug)]
pub struct GoogleSheets {
    google: Google,
    service: Service,
    /// Set when `google.credentials_file` names a service account key: it signs an
    /// assertion for each access token instead of trading the refresh token.
    account: Option<ServiceAccount>,
    /// The scope a service account's assertion asks for (`writing` widens it).
    scope: &'static str,
    http: reqwest::Client,
    token: Mutex<Option<AccessToken>>,
    /// The sheet id (`gid`) of the tab read, once known: the console links findings to
    /// their cells in that tab.
    gid: std::sync::Mutex<Option<i64>>,
    /// With every tab read, each tab's sheet id by its name (links to `TAB!B9`).
    tab_gids: std::sync::Mutex<Vec<(String, i64)>>,
}

#[derive(Debug)]
struct AccessToken {
    value: Secret,
    fresh_until: Instant,
}

/// What a Sheets call was about, to name it in errors.
#[derive(Clone, Copy)]
enum Target<'a> {
    Spreadsheet,
    Sheet(&'a str),
    /// `values:batchGet` of every tab listed a moment before.
    Tabs,
}

/// What the token endpoint said.
enum TokenAnswer {
    Issued(Result<(Secret, u64), GoogleError>),
    /// The answer, its OAuth `error` and `error_description`.
    Refused(Reply, String, String),
}

/// A whole HTTP answer.
struct Reply {
    status: u16,
    retry_after: Option<Duration>,
    body: Vec<u8>,
}

impl GoogleSheets {
    /// Checks that the credentials are there and builds the HTTP client.
    pub fn new(google: &Google, service: &Service) -> Result<GoogleSheets, GoogleError> {
        let account = google
            .credentials_file
            .as_deref()
            .map(ServiceAccount::from_file)
            .transpose()?;
        // A service account needs no OAuth client and no refresh token.
        let oauth = account.is_none();
        let required = [
            ("SERVICE_CLIENT_ID", oauth && service.client_id.is_empty()),
            (
                "SERVICE_CLIENT_SECRET",
                oauth && service.client_secret.is_empty(),
            ),
            (
                "SERVICE_REFRESH_TOKEN",
                oauth && service.refresh_token.is_empty(),
            ),
            ("SERVICE_SPREADSHEET_ID", service.spreadsheet_id.is_empty()),
        ];
        if let Some((variable, _)) = required.iter().find(|(_, missing)| *missing) {
            return Err(GoogleError::Missing { variable });
        }
        let http = super::http_client(Duration::from_secs(google.timeout_secs))
            .map_err(|e| GoogleError::Client(error_chain(&e)))?;
        let mut google = google.clone();
        google.sheets_url = google.sheets_url.trim_end_matches('/').to_owned();
        Ok(GoogleSheets {
            google,
            service: service.clone(),
            account,
            scope: crate::sheets::consent::SCOPE,
            http,
            token: Mutex::new(None),
            gid: std::sync::Mutex::new(None),
            tab_gids: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// True when this reader was built from these settings (so a caller can keep it, and
    /// its token, across configuration reloads that changed something else).
    pub fn is_for(&self, google: &Google, service: &Service) -> bool {
        let mut google = google.clone();
        google.sheets_url = google.sheets_url.trim_end_matches('/').to_owned();
        self.google == google && &self.service == service
    }

    /// What is read, for logs and messages.
    pub fn describe(&self) -> String {
        let via = self
            .account
            .as_ref()
            .map_or_else(String::new, |a| format!(" as {}", a.client_email));
        format!("{}{via}", self.describe_sheet())
    }

    fn describe_sheet(&self) -> String {
        match self.service.spreadsheet_name.as_str() {
            "" => format!(
                "Google spreadsheet {} (every tab)",
                self.service.spreadsheet_id
            ),
            name => format!(
                "Google spreadsheet {} sheet '{name}'",
                self.service.spreadsheet_id
            ),
        }
    }

    /// Reads the configured sheet (the first one when no name is set) as displayed text.
    pub async fn fetch_grid(&self) -> Result<Vec<Vec<String>>, GoogleError> {
        let sheet = match self.service.spreadsheet_name.as_str() {
            "" => {
                let (title, gid) = self.first_sheet().await?;
                self.set_gid(gid);
                title
            }
            name => name.to_owned(),
        };
        let url = values_url(
            &self.google.sheets_url,
            &self.service.spreadsheet_id,
            &sheet,
        );
        let body = self.get_authorised(&url, Target::Sheet(&sheet)).await?;
        let rows = parse_values(&body).map_err(|what| GoogleError::InvalidResponse {
            url: crate::redact::url(&url),
            what,
        })?;
        Ok(crate::sheets::normalise(rows))
    }

    /// Whether every tab is read (SPEC §14: `SERVICE_SPREADSHEET_NAME` is empty), each a
    /// namespace, rather than the one it names.
    pub fn reads_every_tab(&self) -> bool {
        self.service.spreadsheet_name.is_empty()
    }

    /// Every tab of the spreadsheet that holds cells (chart sheets have none), in tab
    /// order: `spreadsheets.get` for the list, one `values:batchGet` for the grids, as
    /// displayed text. The gid the console links plain cells to becomes the first tab's
    /// that holds a header row (`>>>`): the tab of a sheet whose other tabs are notes.
    pub async fn fetch_tabs(&self) -> Result<Vec<Tab>, GoogleError> {
        let listed = self.tabs().await?;
        if listed.is_empty() {
            return Err(GoogleError::NoSheets {
                spreadsheet_id: self.service.spreadsheet_id.clone(),
            });
        }
        let titles: Vec<&str> = listed.iter().map(|(t, _)| t.as_str()).collect();
        let url = batch_url(
            &self.google.sheets_url,
            &self.service.spreadsheet_id,
            &titles,
        );
        let body = self.get_authorised(&url, Target::Tabs).await?;
        let grids = parse_batch(&body).map_err(|what| GoogleError::InvalidResponse {
            url: crate::redact::url(&url),
            what,
        })?;
        if grids.len() != listed.len() {
            return Err(GoogleError::InvalidResponse {
                url: crate::redact::url(&url),
                what: format!(
                    "{} value ranges for {} ranges asked",
                    grids.len(),
                    listed.len()
                ),
            });
        }
        let tabs: Vec<Tab> = (listed.into_iter().zip(grids))
            .map(|((name, gid), rows)| Tab {
                name,
                rows: crate::sheets::normalise(rows),
                gid,
            })
            .collect();
        let has_header = |tab: &&Tab| {
            (tab.rows.iter().flatten()).any(|cell| cell.trim() == crate::markup::KEY_MARK)
        };
        let main = tabs.iter().find(has_header).or(tabs.first());
        self.set_gid(main.and_then(|t| t.gid));
        *self
            .tab_gids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = (tabs.iter())
            .filter_map(|t| Some((t.name.clone(), t.gid?)))
            .collect();
        Ok(tabs)
    }

    /// Each tab's sheet id by name, after `fetch_tabs`.
    pub fn tab_gids(&self) -> Vec<(String, i64)> {
        self.tab_gids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The sheet id (`gid` in the sheet's URL) of the tab last read, when known.
    pub fn sheet_gid(&self) -> Option<i64> {
        *self
            .gid
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A named tab is read without the spreadsheet's metadata, so its gid is looked up
    /// apart, once (a tab keeps its gid when renamed), after a read: it serves the links
    /// to cells only, and a failure leaves them without it.
    pub async fn look_up_gid(&self) {
        let name = self.service.spreadsheet_name.as_str();
        if name.is_empty() || self.sheet_gid().is_some() {
            return;
        }
        match self.tabs().await {
            Ok(tabs) => self.set_gid(
                tabs.into_iter()
                    .find(|(t, _)| t == name)
                    .and_then(|(_, g)| g),
            ),
            Err(e) => tracing::debug!(error = %e, "the gid of the sheet's tab is unknown"),
        }
    }

    fn set_gid(&self, gid: Option<i64>) {
        *self
            .gid
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = gid;
    }

    /// The first tab's title and sheet id.
    async fn first_sheet(&self) -> Result<(String, Option<i64>), GoogleError> {
        match self.tabs().await?.into_iter().next() {
            Some(first) => Ok(first),
            None => Err(GoogleError::NoSheets {
                spreadsheet_id: self.service.spreadsheet_id.clone(),
            }),
        }
    }

    /// Every tab's title and sheet id, in tab order.
    async fn tabs(&self) -> Result<Vec<(String, Option<i64>)>, GoogleError> {
        let url = tabs_url(&self.google.sheets_url, &self.service.spreadsheet_id);
        let body = self.get_authorised(&url, Target::Spreadsheet).await?;
        parse_tabs(&body).map_err(|what| GoogleError::InvalidResponse {
            url: crate::redact::url(&url),
            what,
        })
    }

    /// A Sheets API GET with the access token; a 401 means Google dropped the token
    /// before we expected, so it is renewed and the call made once more.
    async fn get_authorised(&self, url: &str, target: Target<'_>) -> Result<Vec<u8>, GoogleError> {
        let mut token = self.access_token().await?;
        let mut reply = self.get(url, &token).await?;
        if reply.status == 401 {
            self.forget(&token).await;
            token = self.access_token().await?;
            reply = self.get(url, &token).await?;
        }
        if (200..300).contains(&reply.status) {
            return Ok(reply.body);
        }
        Err(self.sheets_error(&reply, url, target, &token))
    }

    async fn get(&self, url: &str, token: &Secret) -> Result<Reply, GoogleError> {
        self.send(self.http.get(url).bearer_auth(token.expose()), url)
            .await
    }

    async fn access_token(&self) -> Result<Secret, GoogleError> {
        // Held across the refresh, so concurrent fetches share one token request.
        let mut cached = self.token.lock().await;
        if let Some(token) = cached.as_ref()
            && Instant::now() < token.fresh_until
        {
            return Ok(token.value.clone());
        }
        let sent = Instant::now();
        let (value, expires_in) = self.refresh().await?;
        tracing::debug!(
            host = %host_of(&self.google.token_url),
            expires_in,
            "Google access token refreshed"
        );
        *cached = Some(AccessToken {
            value: value.clone(),
            fresh_until: fresh_until(sent, expires_in),
        });
        Ok(value)
    }

    /// Drops the cached token unless another fetch has already replaced it.
    async fn forget(&self, token: &Secret) {
        let mut cached = self.token.lock().await;
        if cached.as_ref().is_some_and(|t| &t.value == token) {
            *cached = None;
        }
    }

    async fn refresh(&self) -> Result<(Secret, u64), GoogleError> {
        if let Some(account) = &self.account {
            return self.exchange_assertion(account).await;
        }
        let url = &self.google.token_url;
        let form = [
            ("grant_type", "refresh_token"),
            ("client_id", self.service.client_id.as_str()),
            ("client_secret", self.service.client_secret.expose()),
            ("refresh_token", self.service.refresh_token.expose()),
        ];
        let (reply, error, description) = match self.request_token(&form).await? {
            TokenAnswer::Issued(token) => return token,
            TokenAnswer::Refused(reply, error, description) => (reply, error, description),
        };
        Err(match (reply.status, error.as_str()) {
            (_, "invalid_grant") => GoogleError::InvalidGrant,
            (_, "invalid_client" | "unauthorized_client") => GoogleError::InvalidClient {
                reason: self.redact(&join(&error, &description), None),
            },
            _ => self.status_error(&reply, url, &join(&error, &description), None),
        })
    }

    /// Posts `form` to the token endpoint: the token and its lifetime, or Google's refusal
    /// with its OAuth `error` and `error_description` for the grant to explain.
    async fn request_token(&self, form: &[(&str, &str)]) -> Result<TokenAnswer, GoogleError> {
        let url = &self.google.token_url;
        let reply = self.send(self.http.post(url).form(form), url).await?;
        if (200..300).contains(&reply.status) {
            return Ok(TokenAnswer::Issued(parse_token(&reply.body).map_err(
                |what| GoogleError::InvalidResponse {
                    url: crate::redact::url(url),
                    what,
                },
            )));
        }
        let (error, description) = oauth_error(&reply.body);
        Ok(TokenAnswer::Refused(reply, error, description))
    }

    /// The jwt-bearer grant: a freshly signed assertion for an access token.
    async fn exchange_assertion(
        &self,
        account: &ServiceAccount,
    ) -> Result<(Secret, u64), GoogleError> {
        let url = &self.google.token_url;
        let assertion = account.assertion(self.scope, url, chrono::Utc::now().timestamp())?;
        let form = [
            ("grant_type", JWT_BEARER),
            ("assertion", assertion.expose()),
        ];
        let (reply, error, description) = match self.request_token(&form).await? {
            TokenAnswer::Issued(token) => return token,
            TokenAnswer::Refused(reply, error, description) => (reply, error, description),
        };
        let reason = self.redact(&join(&error, &description), Some(&assertion));
        Err(match error.as_str() {
            "invalid_grant" | "invalid_client" | "unauthorized_client" => {
                GoogleError::AssertionRefused { reason }
            }
            _ => self.status_error(&reply, url, &reason, Some(&assertion)),
        })
    }

    fn sheets_error(
        &self,
        reply: &Reply,
        url: &str,
        target: Target<'_>,
        token: &Secret,
    ) -> GoogleError {
        let message = google_message(&reply.body);
        let spreadsheet_id = self.service.spreadsheet_id.clone();
        match (reply.status, target) {
            (401, _) => GoogleError::Unauthenticated,
            (403, _) => GoogleError::PermissionDenied {
                spreadsheet_id,
                message: self.redact(&message, Some(token)),
            },
            (404, _) => GoogleError::SpreadsheetNotFound { spreadsheet_id },
            // Google's answer to a range naming a sheet that does not exist.
            (400, Target::Sheet(sheet)) if message.starts_with("Unable to parse range") => {
                GoogleError::SheetNotFound {
                    spreadsheet_id,
                    sheet: sheet.to_owned(),
                }
            }
            // A tab listed a moment ago was renamed or deleted: the next sync lists again.
            (400, Target::Tabs) if message.starts_with("Unable to parse range") => {
                GoogleError::TabsChanged {
                    spreadsheet_id,
                    message: self.redact(&message, Some(token)),
                }
            }
            _ => self.status_error(reply, url, &message, Some(token)),
        }
    }

    /// 429 and 5xx are worth retrying; any other status is a refusal.
    fn status_error(
        &self,
        reply: &Reply,
        url: &str,
        message: &str,
        token: Option<&Secret>,
    ) -> GoogleError {
        if reply.status == 429 || reply.status >= 500 {
            GoogleError::Unavailable {
                status: reply.status,
                url: crate::redact::url(url),
                retry_after: reply.retry_after,
            }
        } else {
            GoogleError::Rejected {
                status: reply.status,
                url: crate::redact::url(url),
                message: self.redact(message, token),
            }
        }
    }

    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
    ) -> Result<Reply, GoogleError> {
        let response = request
            .send()
            .await
            .map_err(|e| self.transport_error(e, url))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok())
            .map(Duration::from_secs);
        let body = response
            .bytes()
            .await
            .map_err(|e| self.transport_error(e, url))?;
        Ok(Reply {
            status,
            retry_after,
            body: body.to_vec(),
        })
    }

    fn transport_error(&self, error: reqwest::Error, url: &str) -> GoogleError {
        let host = host_of(url);
        if error.is_timeout() {
            GoogleError::Timeout {
                host,
                secs: self.google.timeout_secs,
            }
        } else {
            GoogleError::Connection {
                host,
                reason: self.redact(&crate::redact::http_error(error, url), None),
            }
        }
    }

    /// Replaces every secret we hold in a server-provided text, and cuts it short.
    fn redact(&self, text: &str, token: Option<&Secret>) -> String {
        let mut text = text.to_owned();
        let secrets = [
            Some(&self.service.client_secret),
            Some(&self.service.refresh_token),
            token,
        ];
        for secret in secrets.into_iter().flatten() {
            if !secret.is_empty() {
                text = text.replace(secret.expose(), "***");
            }
        }
        // Cut after replacing, so that no part of a secret survives at the cut.
        text.chars().take(QUOTE_LIMIT).collect()
    }
}

/// When a token obtained by a request sent at `sent` stops being used.
fn fresh_until(sent: Instant, expires_in: u64) -> Instant {
    sent + Duration::from_secs(expires_in).saturating_sub(EXPIRY_MARGIN)
}

/// Percent-encodes one URL path segment: everything but RFC 3986 unreserved characters.
fn encode_segment(text: &str) -> String {
    crate::percent::encode(text, crate::percent::is_unreserved)
}

/// A sheet name as an A1 range of the whole sheet. Always quoted, so that names such as
/// `A1` or `Sheet 1!x` are read as sheet names, never as cell references.
fn a1_range(sheet: &str) -> String {
    format!("'{}'", sheet.replace('\'', "''"))
}

fn values_url(sheets_url: &str, spreadsheet_id: &str, sheet: &str) -> String {
    format!(
        "{sheets_url}/v4/spreadsheets/{}/values/{}",
        encode_segment(spreadsheet_id),
        encode_segment(&a1_range(sheet))
    )
}

fn tabs_url(sheets_url: &str, spreadsheet_id: &str) -> String {
    format!(
        "{sheets_url}/v4/spreadsheets/{}?fields=sheets.properties(sheetId,title,sheetType)",
        encode_segment(spreadsheet_id)
    )
}

/// `values:batchGet` of whole sheets, in the order given.
fn batch_url(sheets_url: &str, spreadsheet_id: &str, sheets: &[&str]) -> String {
    let ranges: Vec<String> = (sheets.iter())
        .map(|sheet| format!("ranges={}", encode_segment(&a1_range(sheet))))
        .collect();
    format!(
        "{sheets_url}/v4/spreadsheets/{}/values:batchGet?{}&majorDimension=ROWS",
        encode_segment(spreadsheet_id),
        ranges.join("&")
    )
}

/// `host:port` of a URL, for messages (the rest may be long and says nothing more); a URL
/// without a host is shown as `redact::url` shows it.
fn host_of(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(parsed) => match (parsed.host_str(), parsed.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_owned(),
            (None, _) => crate::redact::url(url),
        },
        Err(_) => crate::redact::url(url),
    }
}

fn join(error: &str, description: &str) -> String {
    match (error, description) {
        ("", "") => "no reason given".to_owned(),
        (e, "") | ("", e) => e.to_owned(),
        (e, d) => format!("{e}: {d}"),
    }
}

/// Parses JSON without ever quoting the input back: serde_json's syntax errors give only
/// a position, and every field is read by hand, so a token in a malformed answer stays out
/// of the message.
fn parse_json(body: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(body).map_err(|e| format!("the body is not JSON ({e})"))
}

/// `(access_token, expires_in)` of a token answer.
fn parse_token(body: &[u8]) -> Result<(Secret, u64), String> {
    let json = parse_json(body)?;
    let token = json
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or("`access_token` is missing or not text")?;
    let expires_in = json
        .get("expires_in")
        .and_then(Value::as_u64)
        .ok_or("`expires_in` is missing or not a whole number of seconds")?;
    Ok((Secret::new(token), expires_in))
}

/// `(error, error_description)` of an OAuth error answer; empty when absent.
fn oauth_error(body: &[u8]) -> (String, String) {
    let json = serde_json::from_slice::<Value>(body).unwrap_or(Value::Null);
    let text = |name: &str| {
        json.get(name)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    (text("error"), text("error_description"))
}

/// `error.message` of a Google APIs error answer; empty when absent.
fn google_message(body: &[u8]) -> String {
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|json| json.pointer("/error/message")?.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The rows of a `values.get` answer. An empty sheet has no `values` at all.
fn parse_values(body: &[u8]) -> Result<Vec<Vec<String>>, String> {
    value_range(&parse_json(body)?, "")
}

/// The rows of each value range of a `values:batchGet` answer, in order.
fn parse_batch(body: &[u8]) -> Result<Vec<Vec<Vec<String>>>, String> {
    let json = parse_json(body)?;
    match json.get("valueRanges") {
        // Google leaves the list out when no range was asked for.
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(ranges)) => (ranges.iter().enumerate())
            .map(|(i, range)| value_range(range, &format!("valueRanges[{i}].")))
            .collect(),
        Some(_) => Err("`valueRanges` is not a list".into()),
    }
}

/// The rows of one value range (`at` prefixes the names in messages).
fn value_range(json: &Value, at: &str) -> Result<Vec<Vec<String>>, String> {
    if !json.is_object() {
        return Err(match at {
            "" => "the body is not a JSON object".into(),
            _ => format!("`{}` is not an object", at.trim_end_matches('.')),
        });
    }
    if let Some(dimension) = json.get("majorDimension").and_then(Value::as_str)
        && dimension != "ROWS"
    {
        return Err(format!(
            "`{at}majorDimension` is '{dimension}', expected 'ROWS'"
        ));
    }
    let rows = match json.get("values") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(rows)) => rows,
        Some(_) => return Err(format!("`{at}values` is not a list of rows")),
    };
    rows.iter()
        .enumerate()
        .map(|(r, row)| {
            let cells = row
                .as_array()
                .ok_or_else(|| format!("`{at}values[{r}]` is not a list of cells"))?;
            cells
                .iter()
                .enumerate()
                .map(|(c, cell)| {
                    cell.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| format!("`{at}values[{r}][{c}]` is not text"))
                })
                .collect()
        })
        .collect()
}

/// The tabs of a `spreadsheets.get?fields=sheets.properties(sheetId,title,sheetType)`
/// answer that hold cells, in tab order: each title, and its sheet id when the answer has
/// one. Chart sheets (`OBJECT`) and data-source sheets have no grid to read.
fn parse_tabs(body: &[u8]) -> Result<Vec<(String, Option<i64>)>, String> {
    let json = parse_json(body)?;
    let sheets = match json.get("sheets") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(sheets)) => sheets,
        Some(_) => return Err("`sheets` is not a list".into()),
    };
    let mut tabs = Vec::new();
    for (i, sheet) in sheets.iter().enumerate() {
        let title = (sheet.pointer("/properties/title").and_then(Value::as_str))
            .ok_or_else(|| format!("`sheets[{i}].properties.title` is missing or not text"))?;
        let kind = sheet
            .pointer("/properties/sheetType")
            .and_then(Value::as_str);
        if kind.is_some_and(|k| k != "GRID") {
            continue;
        }
        let gid = sheet.pointer("/properties/sheetId").and_then(Value::as_i64);
        tabs.push((title.to_owned(), gid));
    }
    Ok(tabs)
}

mod write;

#[cfg(test)]
mod tests;
