//! The pure parts of the Google client: URLs, token lifetime, answer parsing, errors.
//! The HTTP behaviour is tested against the fake Google in tests/google_client.rs.

use super::*;
use crate::config::settings::TokenStore;
use proptest::prelude::*;

fn google() -> Google {
    Google {
        token_url: "https://oauth2.googleapis.com/token".into(),
        auth_url: "https://accounts.google.com/o/oauth2/v2/auth".into(),
        sheets_url: "https://sheets.googleapis.com".into(),
        timeout_secs: 30,
        token_store: TokenStore::Env,
        token_file: "data.json".into(),
        credentials_file: None,
    }
}

fn service() -> Service {
    Service {
        client_id: "id.apps.googleusercontent.com".into(),
        client_secret: Secret::new("client-secret-value"),
        refresh_token: Secret::new("refresh-token-value"),
        spreadsheet_id: "sheet-id".into(),
        spreadsheet_name: "Sheet1".into(),
        redirect_uri: "http://localhost:3000/oauth2callback".into(),
    }
}

fn fixture_values(name: &str) -> (Vec<u8>, Vec<Vec<String>>) {
    let path = format!(
        "{}/tests/fixtures/sheets/{name}.sheet.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let body = std::fs::read(path).unwrap();
    let json: Value = serde_json::from_slice(&body).unwrap();
    (
        body,
        serde_json::from_value(json["values"].clone()).unwrap(),
    )
}

#[test]
fn missing_credentials_name_the_first_missing_variable() {
    type Blank = fn(&mut Service);
    let cases: [(Blank, &str); 4] = [
        (|s| s.client_id.clear(), "SERVICE_CLIENT_ID"),
        (
            |s| s.client_secret = Secret::default(),
            "SERVICE_CLIENT_SECRET",
        ),
        (
            |s| s.refresh_token = Secret::default(),
            "SERVICE_REFRESH_TOKEN",
        ),
        (|s| s.spreadsheet_id.clear(), "SERVICE_SPREADSHEET_ID"),
    ];
    for (blank, expected) in cases {
        let mut s = service();
        blank(&mut s);
        match GoogleSheets::new(&google(), &s) {
            Err(GoogleError::Missing { variable }) => assert_eq!(variable, expected),
            other => panic!("{expected}: {other:?}"),
        }
    }
    let mut s = service();
    s.refresh_token = Secret::default();
    let error = GoogleSheets::new(&google(), &s).unwrap_err();
    assert_eq!(
        error.to_string(),
        "SERVICE_REFRESH_TOKEN is not set: run `depot auth` to grant access and save a refresh token"
    );
    assert!(error.needs_consent());
    assert!(!error.retryable());
}

#[test]
fn an_https_client_builds_with_the_ring_provider() {
    let sheets = GoogleSheets::new(&google(), &service()).unwrap();
    assert!(sheets.is_for(&google(), &service()));
    let mut other = service();
    other.spreadsheet_name = "Other".into();
    assert!(!sheets.is_for(&google(), &other));
    assert_eq!(
        sheets.describe(),
        "Google spreadsheet sheet-id sheet 'Sheet1'"
    );
}

#[test]
fn debug_of_the_client_shows_no_secret() {
    let sheets = GoogleSheets::new(&google(), &service()).unwrap();
    let shown = format!("{sheets:?}");
    assert!(!shown.contains("client-secret-value"), "{shown}");
    assert!(!shown.contains("refresh-token-value"), "{shown}");
}

#[test]
fn token_is_used_until_a_minute_before_it_expires() {
    let sent = Instant::now();
    assert_eq!(fresh_until(sent, 3600), sent + Duration::from_secs(3540));
    assert_eq!(fresh_until(sent, 61), sent + Duration::from_secs(1));
    // A token that lives a minute or less is never reused.
    assert_eq!(fresh_until(sent, 60), sent);
    assert_eq!(fresh_until(sent, 5), sent);
}

#[test]
fn sheet_names_are_quoted_and_encoded_as_one_path_segment() {
    assert_eq!(
        values_url(
            "https://sheets.googleapis.com",
            "abc-123_X",
            "Sheet 1/UI!'x"
        ),
        "https://sheets.googleapis.com/v4/spreadsheets/abc-123_X/values/%27Sheet%201%2FUI%21%27%27x%27"
    );
    assert_eq!(encode_segment("Łódź"), "%C5%81%C3%B3d%C5%BA");
    assert_eq!(a1_range("A1"), "'A1'");
    assert_eq!(
        tabs_url("http://127.0.0.1:9", "id"),
        "http://127.0.0.1:9/v4/spreadsheets/id?fields=sheets.properties(sheetId,title,sheetType)"
    );
    assert_eq!(
        batch_url("http://127.0.0.1:9", "id", &["common", "Sign up!"]),
        "http://127.0.0.1:9/v4/spreadsheets/id/values:batchGet?ranges=%27common%27&ranges=%27Sign%20up%21%27&majorDimension=ROWS"
    );
}

fn decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

proptest! {
    #[test]
    fn any_sheet_name_encodes_to_one_reversible_segment(name in any::<String>()) {
        let segment = encode_segment(&name);
        prop_assert!(segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~%".contains(&b)));
        prop_assert_eq!(decode(&segment), name.into_bytes());
    }
}

#[test]
fn values_answer_gives_the_rows() {
    let (body, rows) = fixture_values("basic");
    assert_eq!(parse_values(&body).unwrap(), rows);
    // An empty sheet: Google leaves `values` out.
    let empty = br#"{"range": "Sheet1!A1:Z1000", "majorDimension": "ROWS"}"#;
    assert_eq!(parse_values(empty).unwrap(), Vec::<Vec<String>>::new());
}

#[test]
fn malformed_values_answers_say_what_is_wrong() {
    let cases: [(&[u8], &str); 6] = [
        (
            b"<html>",
            "the body is not JSON (expected value at line 1 column 1)",
        ),
        (b"[]", "the body is not a JSON object"),
        (br#"{"values": {}}"#, "`values` is not a list of rows"),
        (
            br#"{"values": [["a"], "b"]}"#,
            "`values[1]` is not a list of cells",
        ),
        (br#"{"values": [["a", 1]]}"#, "`values[0][1]` is not text"),
        (
            br#"{"majorDimension": "COLUMNS", "values": []}"#,
            "`majorDimension` is 'COLUMNS', expected 'ROWS'",
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(parse_values(body).unwrap_err(), expected);
    }
}

#[test]
fn token_answer_gives_token_and_lifetime_and_never_quotes_it_back() {
    let (token, expires_in) =
        parse_token(br#"{"access_token": "ya29.abc", "expires_in": 3599, "token_type": "Bearer"}"#)
            .unwrap();
    assert_eq!((token.expose(), expires_in), ("ya29.abc", 3599));
    assert_eq!(
        parse_token(br#"{"expires_in": 3599}"#).unwrap_err(),
        "`access_token` is missing or not text"
    );
    let wrong_type =
        parse_token(br#"{"access_token": "ya29.abc", "expires_in": "ya29.abc"}"#).unwrap_err();
    assert_eq!(
        wrong_type,
        "`expires_in` is missing or not a whole number of seconds"
    );
    let cut = parse_token(br#"{"access_token": "ya29.abc"#).unwrap_err();
    assert!(!cut.contains("ya29"), "{cut}");
}

#[test]
fn tabs_are_read_with_their_sheet_ids_in_tab_order() {
    let body = br#"{"sheets": [{"properties": {"sheetId": 0, "title": "UI"}}, {"properties": {"sheetId": 1829, "title": "B"}}]}"#;
    assert_eq!(
        parse_tabs(body).unwrap(),
        [("UI".to_owned(), Some(0)), ("B".to_owned(), Some(1829))]
    );
    assert_eq!(
        parse_tabs(br#"{"sheets": [{"properties": {"title": "x"}}]}"#).unwrap(),
        [("x".to_owned(), None)]
    );
    // a chart sheet holds no cells
    let with_chart = br#"{"sheets": [{"properties": {"sheetId": 7, "title": "Chart", "sheetType": "OBJECT"}}, {"properties": {"sheetId": 8, "title": "T", "sheetType": "GRID"}}]}"#;
    assert_eq!(parse_tabs(with_chart).unwrap(), [("T".to_owned(), Some(8))]);
    assert_eq!(parse_tabs(b"{}").unwrap(), []);
    assert_eq!(parse_tabs(br#"{"sheets": []}"#).unwrap(), []);
    assert_eq!(
        parse_tabs(br#"{"sheets": [{"properties": {}}]}"#).unwrap_err(),
        "`sheets[0].properties.title` is missing or not text"
    );
}

#[test]
fn a_batch_answer_gives_each_range_in_order() {
    let body = br#"{"spreadsheetId": "id", "valueRanges": [
        {"range": "common!A1:B2", "majorDimension": "ROWS", "values": [[">>>", "en"], ["YES", "Yes"]]},
        {"range": "'Empty tab'!A1:Z1000", "majorDimension": "ROWS"}
    ]}"#;
    assert_eq!(
        parse_batch(body).unwrap(),
        [
            vec![
                vec![">>>".to_owned(), "en".to_owned()],
                vec!["YES".to_owned(), "Yes".to_owned()]
            ],
            vec![],
        ]
    );
    assert_eq!(
        parse_batch(br#"{"valueRanges": [{"values": [[1]]}]}"#).unwrap_err(),
        "`valueRanges[0].values[0][0]` is not text"
    );
    assert_eq!(
        parse_batch(br#"{"valueRanges": {}}"#).unwrap_err(),
        "`valueRanges` is not a list"
    );
    assert_eq!(
        parse_batch(br#"{"valueRanges": [3]}"#).unwrap_err(),
        "`valueRanges[0]` is not an object"
    );
}

#[test]
fn retryable_errors_are_the_passing_ones() {
    let unavailable = GoogleError::Unavailable {
        status: 429,
        url: "https://sheets.googleapis.com/v4/spreadsheets/x".into(),
        retry_after: Some(Duration::from_secs(7)),
    };
    assert!(unavailable.retryable());
    assert_eq!(unavailable.retry_after(), Some(Duration::from_secs(7)));
    assert!(
        GoogleError::Timeout {
            host: "h".into(),
            secs: 1
        }
        .retryable()
    );
    assert!(
        GoogleError::Connection {
            host: "h".into(),
            reason: "r".into()
        }
        .retryable()
    );
    for permanent in [
        GoogleError::InvalidGrant,
        GoogleError::Unauthenticated,
        GoogleError::SpreadsheetNotFound {
            spreadsheet_id: "x".into(),
        },
        GoogleError::InvalidResponse {
            url: "u".into(),
            what: "w".into(),
        },
    ] {
        assert!(!permanent.retryable(), "{permanent}");
    }
}

#[test]
fn server_texts_are_redacted_and_cut_short() {
    let sheets = GoogleSheets::new(&google(), &service()).unwrap();
    let token = Secret::new("ya29.live");
    assert_eq!(
        sheets.redact(
            "echo client-secret-value refresh-token-value ya29.live",
            Some(&token)
        ),
        "echo *** *** ***"
    );
    assert_eq!(sheets.redact(&"x".repeat(500), None).len(), QUOTE_LIMIT);
}

#[test]
fn host_names_host_and_port_only() {
    assert_eq!(
        host_of("https://oauth2.googleapis.com/token"),
        "oauth2.googleapis.com"
    );
    assert_eq!(host_of("http://127.0.0.1:8080/v4/x?y=1"), "127.0.0.1:8080");
}
