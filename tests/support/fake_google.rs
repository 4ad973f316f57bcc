//! A fake Google for tests: the OAuth token and consent endpoints and the Sheets API
//! `spreadsheets.get`/`values.get`/`values:batchGet`, and for writes
//! `spreadsheets.batchUpdate` (addSheet,
//! updateSheetProperties, deleteSheet) and `values.update`, over real HTTP on a loopback
//! port, speaking the real protocol (bodies, statuses, error JSON, the scope a token was
//! granted, grid and cell limits), with faults a test can switch on at any time.
#![allow(
    dead_code,
    reason = "each test crate uses only some of the shared helpers"
)]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use warp::Filter;
use warp::http::{HeaderMap, Method, Response, StatusCode};

/// The scope `depot auth` asks for.
pub const READONLY_SCOPE: &str = "https://www.googleapis.com/auth/spreadsheets.readonly";
/// The full Sheets scope (also enough to read).
const SCOPE: &str = "https://www.googleapis.com/auth/spreadsheets";
/// The grant type of a service account's signed assertion (RFC 7523).
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// What the fake accepts and serves.
#[derive(Debug, Clone)]
pub struct FakeConfig {
    pub client_id: String,
    pub client_secret: String,
    pub refresh_token: String,
    pub spreadsheet_id: String,
    pub sheet_name: String,
    pub rows: Vec<Vec<String>>,
}

impl FakeConfig {
    /// Typical credentials around the given rows, served as sheet `Sheet1`.
    pub fn with_rows(rows: Vec<Vec<String>>) -> FakeConfig {
        FakeConfig {
            client_id: "1234-test.apps.googleusercontent.com".into(),
            client_secret: "GOCSPX-test-client-secret".into(),
            refresh_token: "1//0test-refresh-token".into(),
            spreadsheet_id: "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789".into(),
            sheet_name: "Sheet1".into(),
            rows,
        }
    }
}

/// The endpoints the fake serves; `Any` counts (and injects faults into) all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `POST /token`
    Token,
    /// `GET /o/oauth2/v2/auth`
    Auth,
    /// `GET /v4/spreadsheets/{id}` (sheet titles)
    Spreadsheet,
    /// `GET /v4/spreadsheets/{id}/values/{range}`
    Values,
    /// `GET /v4/spreadsheets/{id}/values:batchGet?ranges=...&ranges=...`
    BatchGet,
    /// `POST /v4/spreadsheets/{id}:batchUpdate`
    BatchUpdate,
    /// `PUT /v4/spreadsheets/{id}/values/{range}`
    ValuesUpdate,
    Any,
}

/// A failure the fake answers with instead of the normal reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// 500 `INTERNAL`.
    ServerError,
    /// 429 `RESOURCE_EXHAUSTED` with `Retry-After`.
    TooManyRequests { retry_after_secs: u64 },
    /// Waits this long, then answers normally.
    Slow(Duration),
    /// 200 with a body that is not JSON.
    InvalidJson,
    /// 400 `invalid_grant`, as the token endpoint says for a revoked refresh token.
    InvalidGrant,
    /// 403 `PERMISSION_DENIED`.
    PermissionDenied,
    /// 404 `NOT_FOUND`.
    NotFound,
}

/// How long an injected fault lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Times {
    Next(usize),
    UntilCleared,
}

/// A running fake; the server stops when the handle is dropped.
pub struct FakeGoogle {
    state: Arc<State>,
    base: String,
    stop: Option<oneshot::Sender<()>>,
}

struct State {
    config: FakeConfig,
    inner: Mutex<Inner>,
}

struct Inner {
    /// Sheets in tab order; the first is the configured one.
    sheets: Vec<(String, Vec<Vec<String>>)>,
    /// Each sheet's id and grid size (rows, columns), in the same order as `sheets`.
    grids: Vec<Grid>,
    /// The scope each refresh and access token was granted.
    scopes: HashMap<String, String>,
    /// What each `values.update` sent as `valueInputOption`, oldest first.
    value_input_options: Vec<String>,
    access_tokens: HashMap<String, Instant>,
    issued_access_tokens: Vec<String>,
    refresh_tokens: HashSet<String>,
    issued_refresh_tokens: Vec<String>,
    codes: HashMap<String, Grant>,
    /// Service accounts by client_email: the PKCS#1 DER of the public key Google keeps.
    service_accounts: HashMap<String, Vec<u8>>,
    token_lifetime_secs: u64,
    deny_consent: bool,
    faults: Vec<(Endpoint, Fault, Times)>,
    counts: HashMap<Endpoint, usize>,
    last: HashMap<Endpoint, String>,
}

/// A sheet's id and size, as `addSheet` makes it (a new tab of the web UI is 1000 × 26).
#[derive(Debug, Clone, Copy)]
struct Grid {
    sheet_id: u64,
    rows: usize,
    columns: usize,
    /// A chart sheet (`sheetType: OBJECT`): no cells.
    chart: bool,
}

/// Most cells in a spreadsheet, all tabs together (Google's limit).
const MAX_CELLS: usize = 10_000_000;
/// Most characters in one cell.
const MAX_CELL_CHARS: usize = 50_000;
/// Larger request bodies are refused before they are read as JSON.
const MAX_BODY_BYTES: usize = 10 << 20;

/// What a consent granted, for the code exchange.
struct Grant {
    redirect_uri: String,
    offline: bool,
    scope: String,
}

impl FakeGoogle {
    /// Binds 127.0.0.1 on a free port and serves until dropped.
    pub async fn start(config: FakeConfig) -> FakeGoogle {
        depot::tls::install_tls_provider();
        let inner = Inner {
            sheets: vec![(config.sheet_name.clone(), config.rows.clone())],
            grids: vec![Grid {
                sheet_id: 0,
                rows: 1000,
                columns: 26,
                chart: false,
            }],
            scopes: HashMap::from([(config.refresh_token.clone(), READONLY_SCOPE.to_owned())]),
            value_input_options: Vec::new(),
            access_tokens: HashMap::new(),
            issued_access_tokens: Vec::new(),
            refresh_tokens: HashSet::from([config.refresh_token.clone()]),
            issued_refresh_tokens: Vec::new(),
            codes: HashMap::new(),
            service_accounts: HashMap::new(),
            token_lifetime_secs: 3600,
            deny_consent: false,
            faults: Vec::new(),
            counts: HashMap::new(),
            last: HashMap::new(),
        };
        let state = Arc::new(State {
            config,
            inner: Mutex::new(inner),
        });
        let for_routes = state.clone();
        let routes = warp::method()
            .and(warp::path::full())
            .and(warp::query::raw().or(warp::any().map(String::new)).unify())
            .and(warp::header::headers_cloned())
            .and(warp::body::bytes())
            .then(
                move |method, path: warp::path::FullPath, query, headers, body: bytes::Bytes| {
                    let state = for_routes.clone();
                    async move {
                        let request = Request {
                            method,
                            path: path.as_str().to_owned(),
                            query,
                            headers,
                            body: body.to_vec(),
                        };
                        warp::Reply::into_response(state.handle(request).await)
                    }
                },
            )
            .boxed();
        let (addr, stop) = super::serve_on_loopback(routes).await;
        let base = format!("http://{addr}");
        FakeGoogle {
            state,
            base,
            stop: Some(stop),
        }
    }

    pub fn base_url(&self) -> String {
        self.base.clone()
    }

    /// For `google.token_url`.
    pub fn token_url(&self) -> String {
        format!("{}/token", self.base)
    }

    /// For `google.auth_url`.
    pub fn auth_url(&self) -> String {
        format!("{}/o/oauth2/v2/auth", self.base)
    }

    /// For `google.sheets_url`.
    pub fn sheets_url(&self) -> String {
        self.base.clone()
    }

    pub fn config(&self) -> &FakeConfig {
        &self.state.config
    }

    /// Answers requests to `on` with `fault` for `times`; faults injected earlier win.
    pub fn inject(&self, on: Endpoint, fault: Fault, times: Times) {
        self.state.lock().faults.push((on, fault, times));
    }

    pub fn clear_faults(&self) {
        self.state.lock().faults.clear();
    }

    /// Replaces the rows of the configured sheet.
    pub fn set_rows(&self, rows: Vec<Vec<String>>) {
        self.state.lock().sheets[0].1 = rows;
    }

    /// Adds a sheet after the existing ones.
    pub fn add_sheet(&self, name: &str, rows: Vec<Vec<String>>) {
        self.push_sheet(name, rows, false);
    }

    /// Adds a chart sheet (`sheetType: OBJECT`, no cells) after the existing ones.
    pub fn add_chart_sheet(&self, name: &str) {
        self.push_sheet(name, Vec::new(), true);
    }

    fn push_sheet(&self, name: &str, rows: Vec<Vec<String>>, chart: bool) {
        let mut inner = self.state.lock();
        let sheet_id = inner.next_sheet_id();
        inner.sheets.push((name.to_owned(), rows));
        inner.grids.push(Grid {
            sheet_id,
            rows: 1000,
            columns: 26,
            chart,
        });
    }

    /// Renames the tab `from` (as the web UI does; its sheet id stays).
    pub fn rename_sheet(&self, from: &str, to: &str) {
        let mut inner = self.state.lock();
        if let Some(sheet) = inner.sheets.iter_mut().find(|(t, _)| t == from) {
            sheet.0 = to.to_owned();
        }
    }

    /// The sheet id of the tab `name`.
    pub fn sheet_id(&self, name: &str) -> Option<u64> {
        let inner = self.state.lock();
        let at = inner.sheets.iter().position(|(t, _)| t == name)?;
        Some(inner.grids[at].sheet_id)
    }

    /// Replaces the rows of the tab `name`.
    pub fn set_sheet_rows(&self, name: &str, rows: Vec<Vec<String>>) {
        let mut inner = self.state.lock();
        if let Some(sheet) = inner.sheets.iter_mut().find(|(t, _)| t == name) {
            sheet.1 = rows;
        }
    }

    /// The configured refresh token grants the full `spreadsheets` scope (as after a
    /// consent that asked for it); by default it may only read.
    pub fn grant_write_scope(&self) {
        let token = self.state.config.refresh_token.clone();
        self.state.lock().scopes.insert(token, SCOPE.to_owned());
    }

    /// The rows of the sheet titled `name`, as stored (`None`: no such tab).
    pub fn sheet_rows(&self, name: &str) -> Option<Vec<Vec<String>>> {
        let inner = self.state.lock();
        inner
            .sheets
            .iter()
            .find(|(t, _)| t == name)
            .map(|(_, r)| r.clone())
    }

    /// The titles of every tab, in order.
    pub fn sheet_titles(&self) -> Vec<String> {
        self.state
            .lock()
            .sheets
            .iter()
            .map(|(t, _)| t.clone())
            .collect()
    }

    /// Every `valueInputOption` that `values.update` received, oldest first.
    pub fn value_input_options(&self) -> Vec<String> {
        self.state.lock().value_input_options.clone()
    }

    /// Lifetime (`expires_in`) of access tokens issued from now on.
    /// Registers a service account: assertions signed by the private key whose public half
    /// is `public_key_der` (PKCS#1) and issued by `client_email` are accepted.
    pub fn add_service_account(&self, client_email: &str, public_key_der: Vec<u8>) {
        self.state
            .lock()
            .service_accounts
            .insert(client_email.to_owned(), public_key_der);
    }

    pub fn set_token_lifetime(&self, secs: u64) {
        self.state.lock().token_lifetime_secs = secs;
    }

    /// Makes every access token issued so far invalid, as if they had expired.
    pub fn expire_tokens(&self) {
        self.state.lock().access_tokens.clear();
    }

    /// The consent screen answers `error=access_denied` while this is on.
    pub fn set_consent_denied(&self, deny: bool) {
        self.state.lock().deny_consent = deny;
    }

    /// Requests received by `on` (faulty ones included).
    pub fn requests(&self, on: Endpoint) -> usize {
        self.state.lock().counts.get(&on).copied().unwrap_or(0)
    }

    pub fn token_requests(&self) -> usize {
        self.requests(Endpoint::Token)
    }

    /// The last request to `on`: path and query exactly as received (still encoded).
    pub fn last_request(&self, on: Endpoint) -> Option<String> {
        self.state.lock().last.get(&on).cloned()
    }

    /// Every access token handed out, oldest first (to check that none leaks).
    pub fn issued_access_tokens(&self) -> Vec<String> {
        self.state.lock().issued_access_tokens.clone()
    }

    /// Refresh tokens handed out by code exchanges, oldest first.
    pub fn issued_refresh_tokens(&self) -> Vec<String> {
        self.state.lock().issued_refresh_tokens.clone()
    }
}

impl Drop for FakeGoogle {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

struct Request {
    method: Method,
    path: String,
    query: String,
    headers: HeaderMap,
    body: Vec<u8>,
}

type Reply = Response<String>;

impl State {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    async fn handle(&self, request: Request) -> Reply {
        let segments: Vec<&str> = request.path.split('/').skip(1).collect();
        let endpoint = match (&request.method, segments.as_slice()) {
            (&Method::POST, ["token"]) => Endpoint::Token,
            (&Method::GET, ["o", "oauth2", "v2", "auth"]) => Endpoint::Auth,
            (&Method::POST, ["v4", "spreadsheets", id]) if id.ends_with(":batchUpdate") => {
                Endpoint::BatchUpdate
            }
            (&Method::GET, ["v4", "spreadsheets", _]) => Endpoint::Spreadsheet,
            (&Method::GET, ["v4", "spreadsheets", _, "values:batchGet"]) => Endpoint::BatchGet,
            (&Method::GET, ["v4", "spreadsheets", _, "values", _]) => Endpoint::Values,
            (&Method::PUT, ["v4", "spreadsheets", _, "values", _]) => Endpoint::ValuesUpdate,
            _ => return google_error(StatusCode::NOT_FOUND, "Requested entity was not found."),
        };
        let fault = {
            let mut inner = self.lock();
            let seen = if request.query.is_empty() {
                request.path.clone()
            } else {
                format!("{}?{}", request.path, request.query)
            };
            for on in [endpoint, Endpoint::Any] {
                *inner.counts.entry(on).or_default() += 1;
                inner.last.insert(on, seen.clone());
            }
            take_fault(&mut inner.faults, endpoint)
        };
        match fault {
            Some(Fault::Slow(delay)) => tokio::time::sleep(delay).await,
            Some(fault) => return fault_reply(&fault),
            None => {}
        }
        match endpoint {
            Endpoint::Token => self.token(&request),
            Endpoint::Auth => self.consent(&request.query),
            Endpoint::Spreadsheet => self.spreadsheet(&request, segments[2]),
            Endpoint::BatchUpdate => {
                let id = segments[2].trim_end_matches(":batchUpdate");
                self.batch_update(&request, id)
            }
            Endpoint::ValuesUpdate => self.values_update(&request, segments[2], segments[4]),
            Endpoint::BatchGet => self.batch_get(&request, segments[2]),
            _ => self.values(&request, segments[2], segments[4]),
        }
    }

    fn token(&self, request: &Request) -> Reply {
        let form_type = request
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
        if !form_type {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "Bad Request: expected a form-encoded body",
            );
        }
        let form = parse_form(&String::from_utf8_lossy(&request.body));
        let field = |name: &str| form.get(name).map(String::as_str).unwrap_or("");
        let grant_type = field("grant_type");
        if grant_type == JWT_BEARER {
            let host = request
                .headers
                .get("host")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            return self.jwt_bearer(field("assertion"), host);
        }
        if grant_type != "refresh_token" && grant_type != "authorization_code" {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                &format!("Invalid grant_type: {grant_type}"),
            );
        }
        let config = &self.config;
        if field("client_id").is_empty() {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "Could not determine client ID from request.",
            );
        }
        if field("client_id") != config.client_id {
            return oauth_error(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                "The OAuth client was not found.",
            );
        }
        if field("client_secret") != config.client_secret {
            return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "Unauthorized");
        }
        let mut inner = self.lock();
        if grant_type == "refresh_token" {
            if field("refresh_token").is_empty() {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_request",
                    "Missing required parameter: refresh_token",
                );
            }
            if !inner.refresh_tokens.contains(field("refresh_token")) {
                return invalid_grant();
            }
            let scope = (inner.scopes.get(field("refresh_token")).cloned())
                .unwrap_or_else(|| READONLY_SCOPE.to_owned());
            let mut body = inner.issue_access_token();
            inner.grant(&body, &scope);
            body["scope"] = json!(scope);
            return json_reply(StatusCode::OK, &body);
        }
        for name in ["code", "redirect_uri"] {
            if field(name).is_empty() {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_request",
                    &format!("Missing required parameter: {name}"),
                );
            }
        }
        // A code is good for one exchange, whatever its outcome.
        let Some(grant) = inner.codes.remove(field("code")) else {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_grant",
                "Malformed auth code.",
            );
        };
        if grant.redirect_uri != field("redirect_uri") {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "redirect_uri_mismatch",
                "Bad Request",
            );
        }
        let mut body = inner.issue_access_token();
        inner.grant(&body, &grant.scope);
        body["scope"] = json!(grant.scope);
        if grant.offline {
            let refresh = format!("1//0{}", random_hex());
            inner.refresh_tokens.insert(refresh.clone());
            inner.scopes.insert(refresh.clone(), grant.scope.clone());
            inner.issued_refresh_tokens.push(refresh.clone());
            body["refresh_token"] = json!(refresh);
        }
        json_reply(StatusCode::OK, &body)
    }

    /// The jwt-bearer grant as Google checks it: an RS256 JWT whose signature verifies with
    /// the registered key of its issuer, addressed to this token URL, for the Sheets scope,
    /// issued now and valid for at most an hour.
    fn jwt_bearer(&self, assertion: &str, host: &str) -> Reply {
        let refuse =
            |description: &str| oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", description);
        let parts: Vec<&str> = assertion.split('.').collect();
        let [header, claims, signature] = parts.as_slice() else {
            return refuse(
                "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe",
            );
        };
        let decode = |part: &str| {
            URL_SAFE_NO_PAD
                .decode(part)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        };
        let (Some(header), Some(claims), Ok(signature)) = (
            decode(header),
            decode(claims),
            URL_SAFE_NO_PAD.decode(signature),
        ) else {
            return refuse("Invalid JWT: the assertion is not base64url JSON");
        };
        if header["alg"] != "RS256" {
            return refuse("Invalid JWT: alg must be RS256");
        }
        let issuer = claims["iss"].as_str().unwrap_or("");
        let Some(public_key) = self.lock().service_accounts.get(issuer).cloned() else {
            return refuse("Invalid JWT Signature.");
        };
        let signed = format!("{}.{}", parts[0], parts[1]);
        let verified = ring::signature::UnparsedPublicKey::new(
            &ring::signature::RSA_PKCS1_2048_8192_SHA256,
            public_key,
        )
        .verify(signed.as_bytes(), &signature);
        if verified.is_err() {
            return refuse("Invalid JWT Signature.");
        }
        let expected_audience = format!("http://{host}/token");
        if claims["aud"].as_str() != Some(expected_audience.as_str()) {
            return refuse(&format!(
                "Invalid JWT: aud must be {expected_audience}, got {}",
                claims["aud"]
            ));
        }
        let scopes = claims["scope"].as_str().unwrap_or("");
        if !scopes.split(' ').any(|s| s == READONLY_SCOPE || s == SCOPE) {
            return refuse("Invalid JWT: no scope the Sheets API accepts");
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let (Some(iat), Some(exp)) = (claims["iat"].as_i64(), claims["exp"].as_i64()) else {
            return refuse("Invalid JWT: iat and exp are required");
        };
        if iat > now + 60 || exp < now || exp - iat > 3600 {
            return refuse(
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.",
            );
        }
        let mut inner = self.lock();
        let body = inner.issue_access_token();
        inner.grant(&body, scopes);
        json_reply(StatusCode::OK, &body)
    }

    fn consent(&self, query: &str) -> Reply {
        let params = parse_form(query);
        let param = |name: &str| params.get(name).map(String::as_str).unwrap_or("");
        let bad = |what: &str| plain(StatusCode::BAD_REQUEST, what);
        if param("client_id") != self.config.client_id {
            return bad("Error 401: invalid_client. The OAuth client was not found.");
        }
        let redirect_uri = param("redirect_uri");
        if !(redirect_uri.starts_with("http://") || redirect_uri.starts_with("https://")) {
            return bad("Error 400: invalid_request. Missing or invalid redirect_uri.");
        }
        if param("response_type") != "code" {
            return bad("Error 400: unsupported_response_type. response_type must be code.");
        }
        let scopes: Vec<&str> = param("scope")
            .split(' ')
            .filter(|s| !s.is_empty())
            .collect();
        let sheets_scope = scopes
            .iter()
            .any(|s| *s == READONLY_SCOPE || *s == "https://www.googleapis.com/auth/spreadsheets");
        if !sheets_scope {
            return bad("Error 400: invalid_scope. A Google Sheets scope is required.");
        }
        let access_type = param("access_type");
        if !["", "online", "offline"].contains(&access_type) {
            return bad("Error 400: invalid_request. Invalid access_type.");
        }
        let prompt_ok = param("prompt")
            .split(' ')
            .filter(|p| !p.is_empty())
            .all(|p| ["none", "consent", "select_account"].contains(&p));
        if !prompt_ok {
            return bad("Error 400: invalid_request. Invalid prompt.");
        }
        let mut pairs = Vec::new();
        let mut inner = self.lock();
        if inner.deny_consent {
            pairs.push(("error", "access_denied".to_owned()));
        } else {
            let code = format!("4/0A{}", random_hex());
            inner.codes.insert(
                code.clone(),
                Grant {
                    redirect_uri: redirect_uri.to_owned(),
                    offline: access_type == "offline",
                    scope: scopes.join(" "),
                },
            );
            pairs.push(("code", code));
            pairs.push(("scope", scopes.join(" ")));
        }
        if !param("state").is_empty() {
            pairs.push(("state", param("state").to_owned()));
        }
        let query: Vec<String> = pairs
            .iter()
            .map(|(name, value)| format!("{name}={}", encode(value)))
            .collect();
        let separator = if redirect_uri.contains('?') { '&' } else { '?' };
        let location = format!("{redirect_uri}{separator}{}", query.join("&"));
        Response::builder()
            .status(StatusCode::FOUND)
            .header("location", location)
            .body(String::new())
            .expect("a valid redirect")
    }

    /// `spreadsheets.get`: the sheets' properties, in tab order, with the fields a
    /// `fields=sheets.properties(a,b)` or `fields=sheets.properties.title` mask keeps.
    fn spreadsheet(&self, request: &Request, id: &str) -> Reply {
        if let Some(reply) = self.refusal(&request.headers, id) {
            return reply;
        }
        let fields = parse_form(&request.query).get("fields").cloned();
        let wanted: Option<Vec<String>> = fields.as_deref().and_then(|f| {
            if f == "sheets.properties.title" {
                return Some(vec!["title".to_owned()]);
            }
            let inner = f.strip_prefix("sheets.properties(")?.strip_suffix(')')?;
            Some(inner.split(',').map(|n| n.trim().to_owned()).collect())
        });
        let inner = self.lock();
        let sheets: Vec<Value> = (inner.sheets.iter().zip(&inner.grids))
            .enumerate()
            .map(|(index, ((title, _), grid))| {
                let all = json!({
                    "sheetId": grid.sheet_id, "title": title, "index": index,
                    "sheetType": if grid.chart { "OBJECT" } else { "GRID" },
                });
                let properties = match &wanted {
                    None => all,
                    Some(names) => Value::Object(
                        (all.as_object().expect("an object").iter())
                            .filter(|(k, _)| names.contains(k))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                    ),
                };
                json!({ "properties": properties })
            })
            .collect();
        json_reply(StatusCode::OK, &json!({"sheets": sheets}))
    }

    /// `values:batchGet` of whole sheets: one value range per `ranges` parameter, in the
    /// order asked; a range naming no sheet fails the whole call, as Google's does.
    fn batch_get(&self, request: &Request, id: &str) -> Reply {
        if let Some(reply) = self.refusal(&request.headers, id) {
            return reply;
        }
        let ranges: Vec<String> = (request.query.split('&'))
            .filter_map(|pair| pair.split_once('='))
            .filter(|(name, _)| *name == "ranges")
            .map(|(_, value)| decode(&value.replace('+', " ")))
            .collect();
        let inner = self.lock();
        let mut value_ranges = Vec::new();
        for range in &ranges {
            let found = sheet_of_range(range).and_then(|name| {
                (inner.sheets.iter().zip(&inner.grids))
                    .find(|((title, _), grid)| *title == name && !grid.chart)
            });
            let Some(((title, rows), _)) = found else {
                return google_error(
                    StatusCode::BAD_REQUEST,
                    &format!("Unable to parse range: {range}"),
                );
            };
            value_ranges.push(value_range(title, rows));
        }
        let mut body = json!({ "spreadsheetId": id });
        if !ranges.is_empty() {
            body["valueRanges"] = json!(value_ranges);
        }
        json_reply(StatusCode::OK, &body)
    }

    /// `values.get` of a whole sheet, as displayed text.
    fn values(&self, request: &Request, id: &str, raw_range: &str) -> Reply {
        if let Some(reply) = self.refusal(&request.headers, id) {
            return reply;
        }
        let range = decode(raw_range);
        let inner = self.lock();
        let found = sheet_of_range(&range)
            .and_then(|name| inner.sheets.iter().find(|(title, _)| *title == name));
        let Some((title, rows)) = found else {
            // What Google says for a sheet name that does not exist.
            return google_error(
                StatusCode::BAD_REQUEST,
                &format!("Unable to parse range: {range}"),
            );
        };
        json_reply(StatusCode::OK, &value_range(title, rows))
    }

    /// `refusal`, and then that the token may write (its scope is `spreadsheets`).
    fn write_refusal(&self, headers: &HeaderMap, id: &str) -> Option<Reply> {
        if let Some(reply) = self.refusal(headers, id) {
            return Some(reply);
        }
        let token = bearer(headers).unwrap_or_default();
        let scope = self.lock().scopes.get(token).cloned().unwrap_or_default();
        if !scope.split(' ').any(|s| s == SCOPE) {
            return Some(google_error(
                StatusCode::FORBIDDEN,
                "Request had insufficient authentication scopes.",
            ));
        }
        None
    }

    /// `spreadsheets.batchUpdate`: every request applied, or none (the first that fails
    /// is named, as Google names it).
    fn batch_update(&self, request: &Request, id: &str) -> Reply {
        if request.body.len() > MAX_BODY_BYTES {
            return too_large();
        }
        if let Some(reply) = self.write_refusal(&request.headers, id) {
            return reply;
        }
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return google_error(StatusCode::BAD_REQUEST, "Invalid JSON payload received.");
        };
        let Some(requests) = body["requests"].as_array() else {
            return google_error(
                StatusCode::BAD_REQUEST,
                "Invalid JSON payload: requests is required.",
            );
        };
        let mut inner = self.lock();
        let mut sheets = inner.sheets.clone();
        let mut grids = inner.grids.clone();
        let mut replies = Vec::new();
        for (i, r) in requests.iter().enumerate() {
            let invalid = |kind: &str, message: &str| {
                google_error(
                    StatusCode::BAD_REQUEST,
                    &format!("Invalid requests[{i}].{kind}: {message}"),
                )
            };
            if let Some(add) = r.get("addSheet") {
                let properties = &add["properties"];
                let Some(title) = properties["title"].as_str() else {
                    return invalid("addSheet", "a sheet title is required");
                };
                if sheets.iter().any(|(t, _)| t == title) {
                    return invalid(
                        "addSheet",
                        &format!(
                            "A sheet with the name \"{title}\" already exists. Please enter another name."
                        ),
                    );
                }
                let rows = properties["gridProperties"]["rowCount"]
                    .as_u64()
                    .unwrap_or(1000) as usize;
                let columns = properties["gridProperties"]["columnCount"]
                    .as_u64()
                    .unwrap_or(26) as usize;
                let used: usize = grids.iter().map(|g| g.rows * g.columns).sum();
                if used + rows * columns > MAX_CELLS {
                    return invalid(
                        "addSheet",
                        &format!(
                            "This action would increase the number of cells in the workbook above the limit of {MAX_CELLS} cells."
                        ),
                    );
                }
                let sheet_id = grids.iter().map(|g| g.sheet_id).max().map_or(0, |m| m + 1);
                sheets.push((title.to_owned(), Vec::new()));
                grids.push(Grid {
                    sheet_id,
                    rows,
                    columns,
                    chart: false,
                });
                replies.push(json!({"addSheet": {"properties": {
                    "sheetId": sheet_id, "title": title, "index": sheets.len() - 1, "sheetType": "GRID",
                    "gridProperties": {"rowCount": rows, "columnCount": columns}
                }}}));
            } else if let Some(update) = r.get("updateSheetProperties") {
                let properties = &update["properties"];
                let sheet_id = properties["sheetId"].as_u64().unwrap_or(0);
                let Some(at) = grids.iter().position(|g| g.sheet_id == sheet_id) else {
                    return invalid(
                        "updateSheetProperties",
                        &format!("No grid with id: {sheet_id}"),
                    );
                };
                if update["fields"].as_str().is_none_or(str::is_empty) {
                    return invalid("updateSheetProperties", "fields is required");
                }
                if let Some(title) = properties["title"].as_str() {
                    if sheets
                        .iter()
                        .enumerate()
                        .any(|(n, (t, _))| n != at && t == title)
                    {
                        return invalid(
                            "updateSheetProperties",
                            &format!(
                                "A sheet with the name \"{title}\" already exists. Please enter another name."
                            ),
                        );
                    }
                    sheets[at].0 = title.to_owned();
                }
                replies.push(json!({}));
            } else if let Some(delete) = r.get("deleteSheet") {
                let sheet_id = delete["sheetId"].as_u64().unwrap_or(0);
                let Some(at) = grids.iter().position(|g| g.sheet_id == sheet_id) else {
                    return invalid("deleteSheet", &format!("No grid with id: {sheet_id}"));
                };
                if sheets.len() == 1 {
                    return invalid(
                        "deleteSheet",
                        "You can't remove all the sheets in a document.",
                    );
                }
                sheets.remove(at);
                grids.remove(at);
                replies.push(json!({}));
            } else {
                return invalid(
                    "request",
                    "this fake models addSheet, updateSheetProperties and deleteSheet only",
                );
            }
        }
        inner.sheets = sheets;
        inner.grids = grids;
        json_reply(
            StatusCode::OK,
            &json!({"spreadsheetId": decode(id), "replies": replies}),
        )
    }

    /// `values.update` of a range, as Google checks it: the input option, the range within
    /// the sheet's grid, the values within the range, the cell size.
    fn values_update(&self, request: &Request, id: &str, raw_range: &str) -> Reply {
        if request.body.len() > MAX_BODY_BYTES {
            return too_large();
        }
        if let Some(reply) = self.write_refusal(&request.headers, id) {
            return reply;
        }
        let query = parse_form(&request.query);
        let option = query.get("valueInputOption").cloned().unwrap_or_default();
        if option.is_empty() {
            return google_error(
                StatusCode::BAD_REQUEST,
                "'valueInputOption' is required but not specified",
            );
        }
        if option != "RAW" && option != "USER_ENTERED" {
            return google_error(
                StatusCode::BAD_REQUEST,
                &format!(
                    "Invalid value at 'value_input_option' (type.googleapis.com/google.apps.sheets.v4.ValueInputOption), \"{option}\""
                ),
            );
        }
        let range = decode(raw_range);
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return google_error(StatusCode::BAD_REQUEST, "Invalid JSON payload received.");
        };
        if let Some(body_range) = body["range"].as_str()
            && body_range != range
        {
            return google_error(
                StatusCode::BAD_REQUEST,
                &format!(
                    "Requested writing within range [{range}], but the request body had range [{body_range}]"
                ),
            );
        }
        let mut inner = self.lock();
        inner.value_input_options.push(option.clone());
        let Some((name, cells)) = sheet_of_range(&range).map(|name| (name, cells_of_range(&range)))
        else {
            return google_error(
                StatusCode::BAD_REQUEST,
                &format!("Unable to parse range: {range}"),
            );
        };
        let Some(at) = inner.sheets.iter().position(|(t, _)| *t == name) else {
            return google_error(
                StatusCode::BAD_REQUEST,
                &format!("Unable to parse range: {range}"),
            );
        };
        let Some(((row0, col0), end)) = cells else {
            return google_error(
                StatusCode::BAD_REQUEST,
                &format!("Unable to parse range: {range}"),
            );
        };
        let grid = inner.grids[at];
        let (last_row, last_col) = end.unwrap_or((row0, col0));
        if last_row >= grid.rows || last_col >= grid.columns {
            return google_error(
                StatusCode::BAD_REQUEST,
                &format!(
                    "Range ({range}) exceeds grid limits. Max rows: {}, max columns: {}",
                    grid.rows, grid.columns
                ),
            );
        }
        let values = body["values"].as_array().cloned().unwrap_or_default();
        let mut texts: Vec<Vec<String>> = Vec::with_capacity(values.len());
        for (r, row) in values.iter().enumerate() {
            let cells: Vec<String> = row
                .as_array()
                .map(|c| {
                    c.iter()
                        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(long) = cells.iter().find(|c| c.chars().count() > MAX_CELL_CHARS) {
                let _ = long;
                return google_error(
                    StatusCode::BAD_REQUEST,
                    &format!(
                        "Your input contains more than the maximum of {MAX_CELL_CHARS} characters in a single cell."
                    ),
                );
            }
            if end.is_some() && (row0 + r > last_row || col0 + cells.len() > last_col + 1) {
                return google_error(
                    StatusCode::BAD_REQUEST,
                    &format!(
                        "Requested writing within range [{range}], but tried writing to row [{}]",
                        row0 + r + 1
                    ),
                );
            }
            texts.push(cells);
        }
        if end.is_none()
            && (row0 + texts.len() > grid.rows
                || col0 + texts.iter().map(Vec::len).max().unwrap_or(0) > grid.columns)
        {
            return google_error(
                StatusCode::BAD_REQUEST,
                &format!(
                    "Range ({range}) exceeds grid limits. Max rows: {}, max columns: {}",
                    grid.rows, grid.columns
                ),
            );
        }
        let stored = &mut inner.sheets[at].1;
        let (mut rows_written, mut cols_written) = (0, 0);
        for (r, row) in texts.iter().enumerate() {
            let target_row = row0 + r;
            if stored.len() <= target_row {
                stored.resize(target_row + 1, Vec::new());
            }
            for (c, cell) in row.iter().enumerate() {
                let target = &mut stored[target_row];
                if target.len() <= col0 + c {
                    target.resize(col0 + c + 1, String::new());
                }
                // USER_ENTERED reads what a person types: a leading apostrophe only marks a text
                target[col0 + c] = match (option.as_str(), cell.strip_prefix('\'')) {
                    ("USER_ENTERED", Some(text)) => text.to_owned(),
                    _ => cell.clone(),
                };
            }
            rows_written += 1;
            cols_written = cols_written.max(row.len());
        }
        json_reply(
            StatusCode::OK,
            &json!({
                "spreadsheetId": decode(id),
                "updatedRange": range,
                "updatedRows": rows_written,
                "updatedColumns": cols_written,
                "updatedCells": texts.iter().map(Vec::len).sum::<usize>(),
            }),
        )
    }

    /// Checks the bearer token, then the spreadsheet id, in Google's order; the answer
    /// when one is wrong.
    fn refusal(&self, headers: &HeaderMap, id: &str) -> Option<Reply> {
        let token = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let Some(token) = token else {
            return Some(unauthenticated(
                "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
            ));
        };
        let valid = self
            .lock()
            .access_tokens
            .get(token)
            .is_some_and(|until| Instant::now() < *until);
        if !valid {
            return Some(unauthenticated(
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
            ));
        }
        if decode(id) != self.config.spreadsheet_id {
            return Some(google_error(
                StatusCode::NOT_FOUND,
                "Requested entity was not found.",
            ));
        }
        None
    }
}

impl Inner {
    /// Records the scope of the access token in a token answer.
    fn grant(&mut self, body: &Value, scope: &str) {
        if let Some(token) = body["access_token"].as_str() {
            self.scopes.insert(token.to_owned(), scope.to_owned());
        }
    }

    fn next_sheet_id(&self) -> u64 {
        // Google picks random ids; distinct ones are all a client may rely on
        self.grids
            .iter()
            .map(|g| g.sheet_id)
            .max()
            .map_or(0, |m| m + 1)
    }

    fn cells(&self) -> usize {
        self.grids.iter().map(|g| g.rows * g.columns).sum()
    }

    fn issue_access_token(&mut self) -> Value {
        let token = format!("ya29.{}", random_hex());
        let lifetime = self.token_lifetime_secs;
        self.access_tokens.insert(
            token.clone(),
            Instant::now() + Duration::from_secs(lifetime),
        );
        self.issued_access_tokens.push(token.clone());
        json!({"access_token": token, "expires_in": lifetime, "token_type": "Bearer"})
    }
}

fn take_fault(faults: &mut Vec<(Endpoint, Fault, Times)>, endpoint: Endpoint) -> Option<Fault> {
    let index = faults
        .iter()
        .position(|(on, _, _)| *on == endpoint || *on == Endpoint::Any)?;
    let fault = faults[index].1.clone();
    match &mut faults[index].2 {
        Times::Next(left) if *left <= 1 => {
            faults.remove(index);
        }
        Times::Next(left) => *left -= 1,
        Times::UntilCleared => {}
    }
    Some(fault)
}

fn fault_reply(fault: &Fault) -> Reply {
    match fault {
        Fault::ServerError => google_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal error encountered.",
        ),
        Fault::TooManyRequests { retry_after_secs } => {
            let mut reply = google_error(
                StatusCode::TOO_MANY_REQUESTS,
                "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' of service 'sheets.googleapis.com'.",
            );
            reply.headers_mut().insert(
                "retry-after",
                retry_after_secs.to_string().parse().expect("digits"),
            );
            reply
        }
        Fault::InvalidJson => Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "application/json; charset=UTF-8")
            .body("{\"range\": \"Sheet1!A1:Z8\", \"values\": [[\"###\", ".to_owned())
            .expect("a valid response"),
        Fault::InvalidGrant => invalid_grant(),
        Fault::PermissionDenied => {
            google_error(StatusCode::FORBIDDEN, "The caller does not have permission")
        }
        Fault::NotFound => google_error(StatusCode::NOT_FOUND, "Requested entity was not found."),
        Fault::Slow(_) => unreachable!("a slow fault delays the normal answer"),
    }
}

fn json_reply(status: StatusCode, body: &Value) -> Reply {
    Response::builder()
        .status(status)
        .header("content-type", "application/json; charset=UTF-8")
        .body(serde_json::to_string_pretty(body).expect("JSON serialises"))
        .expect("a valid response")
}

fn plain(status: StatusCode, text: &str) -> Reply {
    Response::builder()
        .status(status)
        .header("content-type", "text/plain; charset=UTF-8")
        .body(text.to_owned())
        .expect("a valid response")
}

/// The Google APIs error body: `{"error": {"code", "message", "status"}}`.
fn google_error(status: StatusCode, message: &str) -> Reply {
    let name = match status.as_u16() {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        _ => "INTERNAL",
    };
    json_reply(
        status,
        &json!({"error": {"code": status.as_u16(), "message": message, "status": name}}),
    )
}

fn unauthenticated(message: &str) -> Reply {
    let mut reply = google_error(StatusCode::UNAUTHORIZED, message);
    reply.headers_mut().insert(
        "www-authenticate",
        "Bearer realm=\"https://accounts.google.com/\""
            .parse()
            .expect("ASCII"),
    );
    reply
}

/// The OAuth error body: `{"error", "error_description"}`.
fn oauth_error(status: StatusCode, error: &str, description: &str) -> Reply {
    json_reply(
        status,
        &json!({"error": error, "error_description": description}),
    )
}

fn invalid_grant() -> Reply {
    oauth_error(
        StatusCode::BAD_REQUEST,
        "invalid_grant",
        "Token has been expired or revoked.",
    )
}

/// The bearer token of a request.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
}

/// 413, as Google's front end answers a body it will not read.
fn too_large() -> Reply {
    plain(StatusCode::PAYLOAD_TOO_LARGE, "Request Entity Too Large")
}

/// A cell as (row, column), 0-based.
type Cell = (usize, usize);

/// The cells of an A1 range after its sheet name: `A1` → ((0, 0), None), `B2:D9` →
/// ((1, 1), Some((8, 3))) as (row, column), 0-based; `None` inside when there is no cell part.
fn cells_of_range(range: &str) -> Option<(Cell, Option<Cell>)> {
    let cells = range.rsplit_once('!')?.1;
    let cell = |a1: &str| -> Option<Cell> {
        let letters: String = a1.chars().take_while(char::is_ascii_uppercase).collect();
        let digits = &a1[letters.len()..];
        let column = letters
            .bytes()
            .try_fold(0usize, |n, b| Some(n * 26 + usize::from(b - b'A') + 1))?
            .checked_sub(1)?;
        let row = digits.parse::<usize>().ok()?.checked_sub(1)?;
        Some((row, column))
    };
    match cells.split_once(':') {
        Some((first, last)) => Some((cell(first)?, Some(cell(last)?))),
        None => Some((cell(cells)?, None)),
    }
}

/// The sheet an A1-notation range names: `Name`, `Name!A1:B2`, `'It''s'!A1`.
fn sheet_of_range(range: &str) -> Option<String> {
    let Some(quoted) = range.strip_prefix('\'') else {
        return Some(range.split('!').next().unwrap_or("").to_owned());
    };
    let mut name = String::new();
    let mut chars = quoted.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\'' {
            name.push(c);
        } else if chars.peek() == Some(&'\'') {
            chars.next();
            name.push('\'');
        } else {
            let rest: String = chars.collect();
            return (rest.is_empty() || rest.starts_with('!')).then_some(name);
        }
    }
    None
}

/// A sheet name as Google writes it in a range: quoted unless plain letters and digits.
fn a1_sheet_name(name: &str) -> String {
    if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        name.to_owned()
    } else {
        format!("'{}'", name.replace('\'', "''"))
    }
}

/// A sheet's value range as `values.get` and `values:batchGet` give it. An empty sheet has
/// no `values` at all, and its range is the whole grid.
fn value_range(title: &str, rows: &[Vec<String>]) -> Value {
    let values = trimmed(rows);
    let last_row = if values.is_empty() {
        1000
    } else {
        values.len()
    };
    let mut range = json!({
        "range": format!("{}!A1:Z{last_row}", a1_sheet_name(title)),
        "majorDimension": "ROWS",
    });
    if !values.is_empty() {
        range["values"] = json!(values);
    }
    range
}

/// Rows as `values.get` returns them: trailing empty cells and trailing empty rows dropped.
fn trimmed(rows: &[Vec<String>]) -> Vec<Vec<String>> {
    let mut rows = rows.to_vec();
    for row in &mut rows {
        while row.last().is_some_and(String::is_empty) {
            row.pop();
        }
    }
    while rows.last().is_some_and(Vec::is_empty) {
        rows.pop();
    }
    rows
}

/// `a=b&c=d` with `+` and `%XX` decoded (query strings and form bodies).
fn parse_form(text: &str) -> HashMap<String, String> {
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (
                decode(&name.replace('+', " ")),
                decode(&value.replace('+', " ")),
            )
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn random_hex() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS gives random bytes");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
