//! The Google Sheets client against the fake Google over real HTTP: the token life cycle,
//! sheet lookup and encoding, and the error (and retry advice) for every fault.
#![cfg(test)]

mod support;

use std::time::Duration;

use depot::config::settings::{Google, Service, TokenStore};
use depot::secret::Secret;
use depot::sheets::google::{GoogleError, GoogleSheets};
use support::fake_google::{Endpoint, FakeConfig, FakeGoogle, Fault, Times};

async fn fake() -> FakeGoogle {
    FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await
}

fn settings(fake: &FakeGoogle, timeout_secs: u64) -> (Google, Service) {
    let c = fake.config();
    let google = Google {
        token_url: fake.token_url(),
        auth_url: fake.auth_url(),
        sheets_url: fake.sheets_url(),
        timeout_secs,
        token_store: TokenStore::Env,
        token_file: "data.json".into(),
        credentials_file: None,
    };
    let service = Service {
        client_id: c.client_id.clone(),
        client_secret: Secret::new(c.client_secret.clone()),
        refresh_token: Secret::new(c.refresh_token.clone()),
        spreadsheet_id: c.spreadsheet_id.clone(),
        spreadsheet_name: c.sheet_name.clone(),
        redirect_uri: "http://localhost:3000/oauth2callback".into(),
    };
    (google, service)
}

fn client_with(fake: &FakeGoogle, change: impl FnOnce(&mut Google, &mut Service)) -> GoogleSheets {
    let (mut google, mut service) = settings(fake, 5);
    change(&mut google, &mut service);
    GoogleSheets::new(&google, &service).unwrap()
}

fn client(fake: &FakeGoogle) -> GoogleSheets {
    client_with(fake, |_, _| {})
}

/// No secret the client held or Google issued shows in the error, either way it prints.
fn assert_no_secret(error: &GoogleError, fake: &FakeGoogle) {
    let c = fake.config();
    let mut secrets = vec![c.client_secret.clone(), c.refresh_token.clone()];
    secrets.extend(fake.issued_access_tokens());
    let (shown, debug) = (error.to_string(), format!("{error:?}"));
    for secret in secrets {
        assert!(
            !shown.contains(&secret) && !debug.contains(&secret),
            "{debug}"
        );
    }
}

#[tokio::test]
async fn fetch_gives_the_fixture_rows() {
    let fake = fake().await;
    let grid = client(&fake).fetch_grid().await.unwrap();
    assert_eq!(grid, support::sheet_rows("basic"));
    assert_eq!(
        fake.last_request(Endpoint::Values).unwrap(),
        format!(
            "/v4/spreadsheets/{}/values/%27Sheet1%27",
            fake.config().spreadsheet_id
        )
    );
}

#[tokio::test]
async fn access_token_is_reused_across_fetches() {
    let fake = fake().await;
    let sheets = client(&fake);
    for _ in 0..3 {
        sheets.fetch_grid().await.unwrap();
    }
    let (a, b) = tokio::join!(sheets.fetch_grid(), sheets.fetch_grid());
    assert_eq!(a.unwrap(), b.unwrap());
    assert_eq!(fake.token_requests(), 1);
    assert_eq!(fake.requests(Endpoint::Values), 5);
}

#[tokio::test]
async fn a_token_within_a_minute_of_expiry_is_refreshed() {
    let fake = fake().await;
    fake.set_token_lifetime(60);
    let sheets = client(&fake);
    for _ in 0..3 {
        sheets.fetch_grid().await.unwrap();
    }
    assert_eq!(fake.token_requests(), 3);
    assert_eq!(fake.issued_access_tokens().len(), 3);
}

#[tokio::test]
async fn a_token_google_dropped_is_renewed_once() {
    let fake = fake().await;
    let sheets = client(&fake);
    sheets.fetch_grid().await.unwrap();
    fake.expire_tokens();
    assert_eq!(
        sheets.fetch_grid().await.unwrap(),
        support::sheet_rows("basic")
    );
    assert_eq!(fake.token_requests(), 2);
    assert_eq!(fake.requests(Endpoint::Values), 3);
    // The renewed token is kept.
    sheets.fetch_grid().await.unwrap();
    assert_eq!(fake.token_requests(), 2);
}

#[tokio::test]
async fn a_fresh_token_refused_twice_is_an_error() {
    let fake = fake().await;
    fake.set_token_lifetime(0);
    let error = client(&fake).fetch_grid().await.unwrap_err();
    assert!(matches!(error, GoogleError::Unauthenticated), "{error:?}");
    assert!(error.to_string().contains("run `depot auth`"), "{error}");
    assert_eq!(
        (fake.token_requests(), fake.requests(Endpoint::Values)),
        (2, 2)
    );
    assert_no_secret(&error, &fake);
}

#[tokio::test]
async fn every_fault_gives_its_error_and_retry_advice() {
    let fake = fake().await;
    // Messages name Google's hosts, never a URL's path (the spreadsheet's id is in it).
    let (token_url, values_url) = (
        format!("{}/***", fake.sheets_url()),
        format!("{}/***", fake.sheets_url()),
    );
    let cases = [
        (
            Endpoint::Token,
            Fault::InvalidGrant,
            "the refresh token was revoked or expired: run `depot auth` to grant access again and save a new SERVICE_REFRESH_TOKEN".to_owned(),
            false,
        ),
        (
            Endpoint::Token,
            Fault::ServerError,
            format!("Google answered 500 for {token_url}; will retry"),
            true,
        ),
        (
            Endpoint::Token,
            Fault::InvalidJson,
            format!("Google's answer from {token_url} is malformed: the body is not JSON (EOF while parsing a value at line 1 column 45)"),
            false,
        ),
        (
            Endpoint::Values,
            Fault::ServerError,
            format!("Google answered 500 for {values_url}; will retry"),
            true,
        ),
        (
            Endpoint::Values,
            Fault::TooManyRequests { retry_after_secs: 7 },
            format!("Google answered 429 for {values_url}; will retry"),
            true,
        ),
        (
            Endpoint::Values,
            Fault::InvalidJson,
            format!("Google's answer from {values_url} is malformed: the body is not JSON (EOF while parsing a value at line 1 column 45)"),
            false,
        ),
        (
            Endpoint::Values,
            Fault::PermissionDenied,
            format!(
                "Google refused access to spreadsheet '{}' (403: The caller does not have permission): share the sheet with the account that ran `depot auth`, or enable the Google Sheets API for the OAuth client's project",
                fake.config().spreadsheet_id
            ),
            false,
        ),
        (
            Endpoint::Values,
            Fault::NotFound,
            format!(
                "no spreadsheet with id '{}': check SERVICE_SPREADSHEET_ID (the part after /d/ in the sheet's URL)",
                fake.config().spreadsheet_id
            ),
            false,
        ),
    ];
    for (on, fault, message, retryable) in cases {
        // A new client each time, so that every case starts with a token request.
        let sheets = client(&fake);
        fake.inject(on, fault.clone(), Times::Next(1));
        let error = sheets.fetch_grid().await.unwrap_err();
        assert_eq!(error.to_string(), message, "{fault:?}");
        assert_eq!(error.retryable(), retryable, "{fault:?}");
        assert_no_secret(&error, &fake);
        let expected_wait =
            matches!(fault, Fault::TooManyRequests { .. }).then(|| Duration::from_secs(7));
        assert_eq!(error.retry_after(), expected_wait, "{fault:?}");
        assert_eq!(
            error.needs_consent(),
            fault == Fault::InvalidGrant,
            "{fault:?}"
        );
        // The fault was for one request only.
        assert_eq!(
            sheets.fetch_grid().await.unwrap(),
            support::sheet_rows("basic")
        );
    }
}

#[tokio::test]
async fn wrong_credentials_and_names_say_which_setting_to_fix() {
    let fake = fake().await;
    let id = fake.config().spreadsheet_id.clone();
    type Change = fn(&mut Google, &mut Service);
    let cases: [(Change, String); 4] = [
        (
            |_, s| s.client_secret = Secret::new("not-the-secret"),
            "Google does not accept the OAuth client (invalid_client: Unauthorized): check SERVICE_CLIENT_ID and SERVICE_CLIENT_SECRET against the Google Cloud console".to_owned(),
        ),
        (
            |_, s| s.refresh_token = Secret::new("1//0revoked"),
            "the refresh token was revoked or expired: run `depot auth` to grant access again and save a new SERVICE_REFRESH_TOKEN".to_owned(),
        ),
        (
            |_, s| s.spreadsheet_name = "Missing tab".into(),
            format!("no sheet named 'Missing tab' in spreadsheet '{id}': check SERVICE_SPREADSHEET_NAME (the tab name; leave it empty to read every tab, each a namespace)"),
        ),
        (
            |_, s| s.spreadsheet_id = "no-such-id".into(),
            "no spreadsheet with id 'no-such-id': check SERVICE_SPREADSHEET_ID (the part after /d/ in the sheet's URL)".to_owned(),
        ),
    ];
    for (change, message) in cases {
        let error = client_with(&fake, change).fetch_grid().await.unwrap_err();
        assert_eq!(error.to_string(), message);
        assert!(!error.retryable());
        assert_no_secret(&error, &fake);
    }
}

#[tokio::test]
async fn a_slow_google_hits_the_timeout() {
    let fake = fake().await;
    let (google, service) = settings(&fake, 1);
    let sheets = GoogleSheets::new(&google, &service).unwrap();
    fake.inject(
        Endpoint::Values,
        Fault::Slow(Duration::from_secs(3)),
        Times::Next(1),
    );
    let error = sheets.fetch_grid().await.unwrap_err();
    let host = fake.base_url().trim_start_matches("http://").to_owned();
    assert!(
        matches!(&error, GoogleError::Timeout { secs: 1, .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!("{host} did not answer within 1 s (google.timeout_secs); will retry")
    );
    assert!(error.retryable());
    assert_no_secret(&error, &fake);
}

#[tokio::test]
async fn an_unreachable_google_is_a_retryable_connection_error() {
    let fake = fake().await;
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let sheets = client_with(&fake, |g, _| {
        g.token_url = format!("http://127.0.0.1:{port}/token")
    });
    let error = sheets.fetch_grid().await.unwrap_err();
    assert!(
        matches!(&error, GoogleError::Connection { host, .. } if *host == format!("127.0.0.1:{port}")),
        "{error:?}"
    );
    assert!(error.retryable());
    assert_no_secret(&error, &fake);
}

#[tokio::test]
async fn sheet_names_with_spaces_and_slashes_are_encoded() {
    let fake = fake().await;
    let rows = vec![vec!["###".to_owned(), ">>>".to_owned(), "en".to_owned()]];
    fake.add_sheet("UI strings/v2", rows.clone());
    let sheets = client_with(&fake, |_, s| s.spreadsheet_name = "UI strings/v2".into());
    assert_eq!(sheets.fetch_grid().await.unwrap(), rows);
    assert_eq!(
        fake.last_request(Endpoint::Values).unwrap(),
        format!(
            "/v4/spreadsheets/{}/values/%27UI%20strings%2Fv2%27",
            fake.config().spreadsheet_id
        )
    );
    // The tab's gid (the console's links to cells) is looked up once after a read as a
    // source, not at every read.
    assert_eq!(sheets.sheet_gid(), None);
    for _ in 0..2 {
        depot::sheets::SheetSource::fetch(&sheets).await.unwrap();
    }
    assert_eq!(sheets.sheet_gid(), Some(1));
    assert_eq!(fake.requests(Endpoint::Spreadsheet), 1);
}

#[tokio::test]
async fn an_empty_sheet_name_reads_the_first_sheet() {
    let fake = fake().await;
    fake.add_sheet("Second", vec![vec!["other".to_owned()]]);
    let sheets = client_with(&fake, |_, s| s.spreadsheet_name.clear());
    assert_eq!(
        sheets.fetch_grid().await.unwrap(),
        support::sheet_rows("basic")
    );
    assert_eq!(
        fake.last_request(Endpoint::Spreadsheet).unwrap(),
        format!(
            "/v4/spreadsheets/{}?fields=sheets.properties(sheetId,title,sheetType)",
            fake.config().spreadsheet_id
        )
    );
    assert_eq!(sheets.sheet_gid(), Some(0));
    fake.inject(Endpoint::Spreadsheet, Fault::NotFound, Times::Next(1));
    let error = sheets.fetch_grid().await.unwrap_err();
    assert!(
        matches!(error, GoogleError::SpreadsheetNotFound { .. }),
        "{error:?}"
    );
    assert_eq!(fake.token_requests(), 1);
}
