//! The fake Google speaks the real protocol: every endpoint and every fault, seen from a
//! plain HTTP client, so tests that use it test depot and not the fake.
#![cfg(test)]

mod support;

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::fake_google::{Endpoint, FakeConfig, FakeGoogle, Fault, READONLY_SCOPE, Times};

async fn fake() -> FakeGoogle {
    FakeGoogle::start(FakeConfig::with_rows(support::sheet_rows("basic"))).await
}

fn client() -> reqwest::Client {
    // reqwest is built with `rustls-no-provider` in this crate: no client without a provider.
    depot::tls::install_tls_provider();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn post_form(fake: &FakeGoogle, form: &[(&str, &str)]) -> (StatusCode, Value) {
    let response = client()
        .post(fake.token_url())
        .form(form)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

fn refresh_form(fake: &FakeGoogle) -> Vec<(&'static str, String)> {
    let c = fake.config();
    vec![
        ("grant_type", "refresh_token".to_owned()),
        ("client_id", c.client_id.clone()),
        ("client_secret", c.client_secret.clone()),
        ("refresh_token", c.refresh_token.clone()),
    ]
}

fn with(form: &[(&'static str, String)], name: &str, value: &str) -> Vec<(&'static str, String)> {
    form.iter()
        .map(|(n, v)| {
            (
                *n,
                if *n == name {
                    value.to_owned()
                } else {
                    v.clone()
                },
            )
        })
        .collect()
}

fn pairs<'a>(form: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    form.iter().map(|(n, v)| (*n, v.as_str())).collect()
}

async fn access_token(fake: &FakeGoogle) -> String {
    let (status, body) = post_form(fake, &pairs(&refresh_form(fake))).await;
    assert_eq!(status, 200, "{body}");
    body["access_token"].as_str().unwrap().to_owned()
}

async fn get(url: &str, token: Option<&str>) -> (StatusCode, reqwest::header::HeaderMap, String) {
    let mut request = client().get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    (status, headers, response.text().await.unwrap())
}

fn values_url(fake: &FakeGoogle, encoded_range: &str) -> String {
    format!(
        "{}/v4/spreadsheets/{}/values/{encoded_range}",
        fake.sheets_url(),
        fake.config().spreadsheet_id
    )
}

fn google_error(code: u16, message: &str, status: &str) -> Value {
    json!({"error": {"code": code, "message": message, "status": status}})
}

#[tokio::test]
async fn refresh_grant_gives_a_bearer_token() {
    let fake = fake().await;
    let (status, body) = post_form(&fake, &pairs(&refresh_form(&fake))).await;
    assert_eq!(status, 200);
    assert!(body["access_token"].as_str().unwrap().starts_with("ya29."));
    assert_eq!(body["expires_in"], 3600);
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["scope"], READONLY_SCOPE);
    fake.set_token_lifetime(120);
    let (_, again) = post_form(&fake, &pairs(&refresh_form(&fake))).await;
    assert_eq!(again["expires_in"], 120);
    assert_ne!(again["access_token"], body["access_token"]);
    assert_eq!(fake.token_requests(), 2);
}

#[tokio::test]
async fn token_endpoint_refuses_like_google() {
    let fake = fake().await;
    let form = refresh_form(&fake);
    let cases = [
        (
            with(&form, "refresh_token", "1//0revoked"),
            400,
            json!({"error": "invalid_grant", "error_description": "Token has been expired or revoked."}),
        ),
        (
            with(&form, "refresh_token", ""),
            400,
            json!({"error": "invalid_request", "error_description": "Missing required parameter: refresh_token"}),
        ),
        (
            with(&form, "client_id", "other.apps.googleusercontent.com"),
            401,
            json!({"error": "invalid_client", "error_description": "The OAuth client was not found."}),
        ),
        (
            with(&form, "client_secret", "wrong"),
            401,
            json!({"error": "invalid_client", "error_description": "Unauthorized"}),
        ),
        (
            with(&form, "grant_type", "password"),
            400,
            json!({"error": "unsupported_grant_type", "error_description": "Invalid grant_type: password"}),
        ),
    ];
    for (form, status, expected) in cases {
        let (got_status, body) = post_form(&fake, &pairs(&form)).await;
        assert_eq!(
            (got_status.as_u16(), &body),
            (status, &expected),
            "{form:?}"
        );
    }
    let json_body = client()
        .post(fake.token_url())
        .json(&json!({"grant_type": "refresh_token"}))
        .send()
        .await
        .unwrap();
    assert_eq!(json_body.status(), 400);
}

fn consent_query(fake: &FakeGoogle, redirect_uri: &str) -> Vec<(&'static str, String)> {
    vec![
        ("client_id", fake.config().client_id.clone()),
        ("redirect_uri", redirect_uri.to_owned()),
        ("response_type", "code".to_owned()),
        ("scope", READONLY_SCOPE.to_owned()),
        ("access_type", "offline".to_owned()),
        ("prompt", "consent".to_owned()),
        ("state", "st/ate 1".to_owned()),
    ]
}

fn auth_request(fake: &FakeGoogle, query: &[(&'static str, String)]) -> reqwest::Url {
    reqwest::Url::parse_with_params(&fake.auth_url(), pairs(query)).unwrap()
}

/// The redirect of a consent request, as `(location, parsed query)`.
async fn consent(
    fake: &FakeGoogle,
    query: &[(&'static str, String)],
) -> (String, Vec<(String, String)>) {
    let response = client()
        .get(auth_request(fake, query))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 302);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let parsed = reqwest::Url::parse(&location).unwrap();
    let params = parsed.query_pairs().into_owned().collect();
    (location, params)
}

#[tokio::test]
async fn consent_redirects_with_a_code_that_exchanges_once_for_a_refresh_token() {
    let fake = fake().await;
    let redirect = "http://localhost:3000/oauth2callback";
    let (location, params) = consent(&fake, &consent_query(&fake, redirect)).await;
    assert!(
        location.starts_with("http://localhost:3000/oauth2callback?code=4%2F0A"),
        "{location}"
    );
    let code = &params[0].1;
    assert_eq!(
        params,
        vec![
            ("code".to_owned(), code.clone()),
            ("scope".to_owned(), READONLY_SCOPE.to_owned()),
            ("state".to_owned(), "st/ate 1".to_owned()),
        ]
    );
    let c = fake.config().clone();
    let exchange = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", redirect),
        ("client_id", c.client_id.as_str()),
        ("client_secret", c.client_secret.as_str()),
    ];
    let (status, body) = post_form(&fake, &exchange).await;
    assert_eq!(status, 200, "{body}");
    let refresh = body["refresh_token"].as_str().unwrap().to_owned();
    assert!(body["access_token"].as_str().unwrap().starts_with("ya29."));
    assert_eq!(fake.issued_refresh_tokens(), vec![refresh.clone()]);
    // The new refresh token works; the code does not work twice.
    let form = with(&refresh_form(&fake), "refresh_token", &refresh);
    assert_eq!(post_form(&fake, &pairs(&form)).await.0, 200);
    let (status, body) = post_form(&fake, &exchange).await;
    assert_eq!(
        (status.as_u16(), body["error"].as_str()),
        (400, Some("invalid_grant"))
    );
}

#[tokio::test]
async fn code_exchange_checks_the_redirect_uri_and_gives_no_refresh_token_online() {
    let fake = fake().await;
    let c = fake.config().clone();
    let redirect = "http://127.0.0.1:3000/cb";
    let online = with(&consent_query(&fake, redirect), "access_type", "online");
    for (query, exchange_redirect) in [
        (
            consent_query(&fake, redirect),
            "http://127.0.0.1:3000/other",
        ),
        (online, redirect),
    ] {
        let (_, params) = consent(&fake, &query).await;
        let exchange = [
            ("grant_type", "authorization_code"),
            ("code", params[0].1.as_str()),
            ("redirect_uri", exchange_redirect),
            ("client_id", c.client_id.as_str()),
            ("client_secret", c.client_secret.as_str()),
        ];
        let (status, body) = post_form(&fake, &exchange).await;
        if exchange_redirect == redirect {
            assert_eq!(status, 200);
            assert!(body.get("refresh_token").is_none(), "{body}");
        } else {
            assert_eq!(
                (status.as_u16(), body["error"].as_str()),
                (400, Some("redirect_uri_mismatch"))
            );
        }
    }
}

#[tokio::test]
async fn consent_denied_redirects_with_access_denied() {
    let fake = fake().await;
    fake.set_consent_denied(true);
    let (location, _) = consent(&fake, &consent_query(&fake, "http://localhost:3000/cb")).await;
    assert_eq!(
        location,
        "http://localhost:3000/cb?error=access_denied&state=st%2Fate%201"
    );
}

#[tokio::test]
async fn consent_rejects_missing_or_wrong_parameters() {
    let fake = fake().await;
    let good = consent_query(&fake, "http://localhost:3000/cb");
    let cases = [
        with(&good, "client_id", "other"),
        with(&good, "redirect_uri", ""),
        with(&good, "redirect_uri", "localhost:3000/cb"),
        with(&good, "response_type", "token"),
        with(&good, "scope", ""),
        with(&good, "scope", "openid email"),
        with(&good, "access_type", "forever"),
        with(&good, "prompt", "always"),
    ];
    for query in cases {
        let response = client()
            .get(auth_request(&fake, &query))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{query:?}");
    }
    assert_eq!(fake.requests(Endpoint::Auth), 8);
}

#[tokio::test]
async fn values_get_answers_what_the_fixture_holds() {
    let fake = fake().await;
    let token = access_token(&fake).await;
    let expected: Value =
        serde_json::from_str(&support::fixture_text("sheets/basic.sheet.json")).unwrap();
    for range in [
        "Sheet1",
        "%27Sheet1%27",
        "Sheet1%21A1%3AZ",
        "%27Sheet1%27%21A1%3AF8",
    ] {
        let (status, _, body) = get(&values_url(&fake, range), Some(&token)).await;
        assert_eq!(status, 200, "{range}");
        assert_eq!(
            serde_json::from_str::<Value>(&body).unwrap(),
            expected,
            "{range}"
        );
    }
    assert_eq!(fake.requests(Endpoint::Values), 4);
    assert_eq!(
        fake.last_request(Endpoint::Values).unwrap(),
        format!(
            "/v4/spreadsheets/{}/values/%27Sheet1%27%21A1%3AF8",
            fake.config().spreadsheet_id
        )
    );
}

#[tokio::test]
async fn values_get_drops_trailing_empty_cells_and_rows() {
    let fake = fake().await;
    let token = access_token(&fake).await;
    let rows = |r: &[&[&str]]| -> Vec<Vec<String>> {
        r.iter()
            .map(|row| row.iter().map(|c| c.to_string()).collect())
            .collect()
    };
    fake.set_rows(rows(&[
        &["a", "", "b", "", ""],
        &["", ""],
        &["c"],
        &[],
        &["", ""],
    ]));
    let (_, _, body) = get(&values_url(&fake, "Sheet1"), Some(&token)).await;
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"range": "Sheet1!A1:Z3", "majorDimension": "ROWS", "values": [["a", "", "b"], [], ["c"]]})
    );
    fake.set_rows(rows(&[&[""]]));
    let (_, _, body) = get(&values_url(&fake, "Sheet1"), Some(&token)).await;
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"range": "Sheet1!A1:Z1000", "majorDimension": "ROWS"})
    );
}

#[tokio::test]
async fn sheet_names_with_spaces_and_slashes_are_one_encoded_segment() {
    let fake = fake().await;
    let token = access_token(&fake).await;
    fake.add_sheet("It's UI/2", vec![vec!["x".into()]]);
    let (status, _, body) = get(&values_url(&fake, "%27It%27%27s%20UI%2F2%27"), Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["range"], "'It''s UI/2'!A1:Z1");
    assert_eq!(body["values"], json!([["x"]]));
    // A slash left unencoded splits the path: no such endpoint.
    let (status, _, _) = get(&values_url(&fake, "It's%20UI/2"), Some(&token)).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn values_get_refuses_bad_tokens_and_unknown_ids_like_google() {
    let fake = fake().await;
    let token = access_token(&fake).await;
    let url = values_url(&fake, "Sheet1");
    for bad in [None, Some("ya29.unknown")] {
        let (status, headers, body) = get(&url, bad).await;
        assert_eq!(status, 401);
        assert!(headers.contains_key("www-authenticate"));
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["error"]["status"], "UNAUTHENTICATED");
    }
    let other_id = format!("{}/v4/spreadsheets/nope/values/Sheet1", fake.sheets_url());
    let (status, _, body) = get(&other_id, Some(&token)).await;
    assert_eq!(status, 404);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        google_error(404, "Requested entity was not found.", "NOT_FOUND")
    );
    let (status, _, body) = get(&values_url(&fake, "Nope"), Some(&token)).await;
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        google_error(400, "Unable to parse range: Nope", "INVALID_ARGUMENT")
    );
    fake.expire_tokens();
    assert_eq!(get(&url, Some(&token)).await.0, 401);
    fake.set_token_lifetime(0);
    let short_lived = access_token(&fake).await;
    assert_eq!(get(&url, Some(&short_lived)).await.0, 401);
}

#[tokio::test]
async fn spreadsheet_get_lists_sheet_titles_in_tab_order() {
    let fake = fake().await;
    let token = access_token(&fake).await;
    fake.add_sheet("Second tab", vec![]);
    let base = format!(
        "{}/v4/spreadsheets/{}",
        fake.sheets_url(),
        fake.config().spreadsheet_id
    );
    let (status, _, body) = get(
        &format!("{base}?fields=sheets.properties.title"),
        Some(&token),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"sheets": [{"properties": {"title": "Sheet1"}}, {"properties": {"title": "Second tab"}}]})
    );
    let (_, _, full) = get(&base, Some(&token)).await;
    let full: Value = serde_json::from_str(&full).unwrap();
    assert_eq!(full["sheets"][1]["properties"]["index"], 1);
    assert_eq!(get(&base, None).await.0, 401);
    assert_eq!(fake.requests(Endpoint::Spreadsheet), 3);
}

#[tokio::test]
async fn each_fault_answers_once_then_the_endpoint_recovers() {
    let fake = fake().await;
    let token = access_token(&fake).await;
    let url = values_url(&fake, "Sheet1");
    let cases = [
        (
            Fault::ServerError,
            500,
            Some(google_error(500, "Internal error encountered.", "INTERNAL")),
        ),
        (
            Fault::TooManyRequests {
                retry_after_secs: 7,
            },
            429,
            None,
        ),
        (Fault::InvalidJson, 200, None),
        (
            Fault::InvalidGrant,
            400,
            Some(
                json!({"error": "invalid_grant", "error_description": "Token has been expired or revoked."}),
            ),
        ),
        (
            Fault::PermissionDenied,
            403,
            Some(google_error(
                403,
                "The caller does not have permission",
                "PERMISSION_DENIED",
            )),
        ),
        (
            Fault::NotFound,
            404,
            Some(google_error(
                404,
                "Requested entity was not found.",
                "NOT_FOUND",
            )),
        ),
    ];
    for (fault, status, body) in cases {
        fake.inject(Endpoint::Values, fault.clone(), Times::Next(1));
        let (got, headers, text) = get(&url, Some(&token)).await;
        assert_eq!(got, status, "{fault:?}");
        match fault {
            Fault::TooManyRequests { .. } => {
                assert_eq!(headers["retry-after"], "7");
                let body: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(body["error"]["status"], "RESOURCE_EXHAUSTED");
            }
            Fault::InvalidJson => assert!(serde_json::from_str::<Value>(&text).is_err()),
            _ => assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), body.unwrap()),
        }
        assert_eq!(get(&url, Some(&token)).await.0, 200, "after {fault:?}");
    }
}

#[tokio::test]
async fn faults_last_for_their_count_or_until_cleared_and_any_hits_every_endpoint() {
    let fake = fake().await;
    let form = refresh_form(&fake);
    fake.inject(Endpoint::Token, Fault::InvalidGrant, Times::Next(2));
    for _ in 0..2 {
        let (status, body) = post_form(&fake, &pairs(&form)).await;
        assert_eq!(
            (status.as_u16(), body["error"].as_str()),
            (400, Some("invalid_grant"))
        );
    }
    let token = access_token(&fake).await;
    fake.inject(Endpoint::Any, Fault::ServerError, Times::UntilCleared);
    for _ in 0..3 {
        assert_eq!(post_form(&fake, &pairs(&form)).await.0, 500);
        assert_eq!(get(&values_url(&fake, "Sheet1"), Some(&token)).await.0, 500);
    }
    fake.clear_faults();
    assert_eq!(get(&values_url(&fake, "Sheet1"), Some(&token)).await.0, 200);
    assert_eq!(fake.requests(Endpoint::Token), 6);
    assert_eq!(fake.requests(Endpoint::Values), 4);
    assert_eq!(fake.requests(Endpoint::Any), 10);
}

#[tokio::test]
async fn slow_fault_delays_the_normal_answer() {
    let fake = fake().await;
    let token = access_token(&fake).await;
    let url = values_url(&fake, "Sheet1");
    fake.inject(
        Endpoint::Values,
        Fault::Slow(Duration::from_secs(2)),
        Times::Next(1),
    );
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let error = impatient
        .get(&url)
        .bearer_auth(&token)
        .send()
        .await
        .unwrap_err();
    assert!(error.is_timeout(), "{error}");
    fake.inject(
        Endpoint::Values,
        Fault::Slow(Duration::from_millis(50)),
        Times::Next(1),
    );
    let (status, _, body) = get(&url, Some(&token)).await;
    assert_eq!(status, 200);
    assert!(body.contains("\"values\""));
}

#[tokio::test]
async fn unknown_paths_and_methods_are_not_found() {
    let fake = fake().await;
    assert_eq!(
        get(&format!("{}/token", fake.base_url()), None).await.0,
        404
    );
    assert_eq!(
        get(&format!("{}/v3/spreadsheets/x", fake.base_url()), None)
            .await
            .0,
        404
    );
    assert_eq!(fake.requests(Endpoint::Any), 0);
}

/// The writes `depot import --to google:…` makes are checked as Google checks them: the
/// token's scope, an existing title, the grid's size, the value input option, the range.
#[tokio::test]
async fn writes_need_the_spreadsheets_scope_and_stay_within_the_grid() {
    let fake = fake().await;
    let id = fake.config().spreadsheet_id.clone();
    let batch = format!("{}/v4/spreadsheets/{id}:batchUpdate", fake.sheets_url());
    let add = |title: &str, rows: u64| json!({"requests": [{"addSheet": {"properties": {"title": title, "gridProperties": {"rowCount": rows, "columnCount": 2}}}}]});
    let send = |url: String, token: String, body: Value, put: bool| async move {
        let request = if put {
            client().put(url)
        } else {
            client().post(url)
        };
        let response = request.bearer_auth(token).json(&body).send().await.unwrap();
        let status = response.status();
        (
            status,
            response.json::<Value>().await.unwrap_or(Value::Null),
        )
    };

    // a token for the read-only scope may not write
    let token = access_token(&fake).await;
    let (status, body) = send(batch.clone(), token, add("New", 3), false).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        body["error"]["message"],
        "Request had insufficient authentication scopes."
    );

    fake.grant_write_scope();
    let token = access_token(&fake).await;
    let (status, body) = send(batch.clone(), token.clone(), add("Sheet1", 3), false).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already exists"),
        "{body}"
    );
    let (status, body) = send(batch.clone(), token.clone(), add("Huge", 5_000_000), false).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("above the limit of 10000000 cells"),
        "{body}"
    );
    let (status, body) = send(batch.clone(), token.clone(), add("New", 3), false).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["replies"][0]["addSheet"]["properties"]["title"], "New");

    let values = |range: &str, option: &str| {
        let encoded: String = range.bytes().map(|b| format!("%{b:02X}")).collect();
        format!(
            "{}/v4/spreadsheets/{id}/values/{encoded}{option}",
            fake.sheets_url()
        )
    };
    let rows = |range: &str| json!({"range": range, "values": [["=1+1", "'x"], ["a"]]});
    let (status, body) = send(
        values("New!A1:B2", ""),
        token.clone(),
        rows("New!A1:B2"),
        true,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        body["error"]["message"],
        "'valueInputOption' is required but not specified"
    );
    let (status, body) = send(
        values("New!A1:B4", "?valueInputOption=RAW"),
        token.clone(),
        rows("New!A1:B4"),
        true,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exceeds grid limits. Max rows: 3, max columns: 2"),
        "{body}"
    );
    let (status, body) = send(
        values("New!A1:A2", "?valueInputOption=RAW"),
        token.clone(),
        rows("New!A1:A2"),
        true,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("but tried writing to"),
        "{body}"
    );
    let (status, body) = send(
        values("New!A1:B2", "?valueInputOption=RAW"),
        token.clone(),
        rows("New!A1:B2"),
        true,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["updatedCells"], 3);
    assert_eq!(
        fake.sheet_rows("New").unwrap(),
        [vec!["=1+1", "'x"], vec!["a"]]
    );
    // USER_ENTERED reads a leading apostrophe as "this is text" and drops it
    let (status, _) = send(
        values("New!A1:B2", "?valueInputOption=USER_ENTERED"),
        token.clone(),
        rows("New!A1:B2"),
        true,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(fake.sheet_rows("New").unwrap()[0][1], "x");

    let big = json!({"range": "New!A1", "values": [["x".repeat(11 << 20)]]});
    let (status, _) = send(values("New!A1", "?valueInputOption=RAW"), token, big, true).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
}
