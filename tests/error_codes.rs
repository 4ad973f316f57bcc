//! Every JSON error body of the API carries a stable `code` that `/openapi.json` lists, with
//! the status the description gives it: a walk of the route table provokes errors on every
//! route (wrong method, no key, a wrong key, a reader's key on an admin route, bad values
//! for each typed parameter, an unknown parameter, names that do not exist) through the real
//! binary. And a released code never changes or goes away.
#![cfg(test)]

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use depot::http::error::ErrorCode;
use depot::http::routes::{Access, ROUTES, Route, Schema};
use support::Daemon;

const READER: &str = "reader-key-for-the-walk";
const ADMIN: &str = "admin-key-for-the-walk";

/// The codes of the first release that has them. Append when a code is added; a line that
/// has to change means a client's code breaks, which is what this list is here to stop.
const RELEASED: &[&str] = &[
    "invalid-request",
    "invalid-parameter",
    "invalid-record",
    "invalid-version",
    "ambiguous-version",
    "invalid-object-key",
    "no-such-bucket",
    "missing-header",
    "invalid-header",
    "length-required",
    "unsupported-media-type",
    "missing-api-key",
    "invalid-api-key",
    "forbidden",
    "unknown-route",
    "unknown-file",
    "not-found",
    "unknown-object",
    "unknown-version",
    "no-translations",
    "method-not-allowed",
    "file-exists",
    "uploads-not-configured",
    "conflict",
    "payload-too-large",
    "cannot-render",
    "too-many-login-failures",
    "too-many-streams",
    "too-many-requests",
    "sync-failed",
    "object-store-refused",
    "upstream-failed",
    "translations-not-loaded",
    "store-unreachable",
    "database-unreachable",
    "object-store-unreachable",
    "unavailable",
    "internal",
    "invalid-upload",
    "invalid-parts",
    "unknown-upload",
    "upload-completed",
    "upload-not-arrived",
    "upload-mismatch",
    "too-many-key-failures",
    "fallback-not-configured",
    "invalid-channel",
    "unknown-channel",
    "unknown-namespace",
    "unknown-locale",
    "unknown-project",
    "unknown-bundle",
    "version-has-findings",
    "nothing-to-roll-back",
];

#[test]
fn released_codes_never_change_or_go_away() {
    let now: BTreeSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    let gone: Vec<&&str> = RELEASED.iter().filter(|c| !now.contains(**c)).collect();
    assert!(
        gone.is_empty(),
        "released codes changed or removed: {gone:?}"
    );
    let unlisted: Vec<&&str> = now.iter().filter(|c| !RELEASED.contains(c)).collect();
    assert!(
        unlisted.is_empty(),
        "new codes to append to RELEASED: {unlisted:?}"
    );
}

/// A path of the template with names that exist nowhere.
fn fill(template: &str) -> String {
    template
        .replace("{version}", "0123456789abcdef")
        .replace("{bucket}", "nosuchbucket")
        .replace("{key+}", "no/such/key")
}

/// A value the parameter's schema refuses.
fn bad_value(schema: Schema) -> Option<&'static str> {
    match schema {
        Schema::Text => None,
        Schema::Boolean => Some("maybe"),
        Schema::Integer { .. } => Some("-1x"),
        Schema::Enum(_) => Some("no-such-value"),
    }
}

/// The requests that should fail on `route`: (what it is, method, path and query, key).
fn probes(route: &Route) -> Vec<(String, String, String, Option<&'static str>)> {
    let path = fill(route.path);
    let method = route.method.to_owned();
    let mut out = vec![
        ("wrong method".into(), "PATCH".into(), path.clone(), None),
        (
            "wrong key".into(),
            method.clone(),
            path.clone(),
            Some("wrong"),
        ),
        (
            "unknown parameter".into(),
            method.clone(),
            format!("{path}?zzz-unknown=1"),
            Some(ADMIN),
        ),
    ];
    if route.access == Access::AdminKey {
        out.push(("no key".into(), method.clone(), path.clone(), None));
        out.push((
            "reader key".into(),
            method.clone(),
            path.clone(),
            Some(READER),
        ));
    }
    for param in route.params.iter().filter(|p| p.location == "query") {
        if let Some(value) = bad_value(param.schema) {
            out.push((
                format!("bad {}", param.name),
                method.clone(),
                format!("{path}?{}={value}", param.name),
                Some(ADMIN),
            ));
        }
    }
    let named: Vec<String> = route
        .params
        .iter()
        .filter(|p| p.location == "query" && p.required && matches!(p.schema, Schema::Text))
        .map(|p| format!("{}=no-such-thing", p.name))
        .collect();
    if !named.is_empty() {
        out.push((
            "names nothing".into(),
            method.clone(),
            format!("{path}?{}", named.join("&")),
            Some(ADMIN),
        ));
    }
    out.push(("as it is".into(), method, path, Some(ADMIN)));
    out
}

#[tokio::test]
async fn every_json_error_of_every_route_has_a_listed_code_with_its_status() {
    let dir = tempfile::tempdir().unwrap();
    // The walk sends a wrong key to every route from one address: more than the throttle
    // of wrong keys takes by default.
    let daemon = Daemon::start(
        dir.path(),
        &[],
        &[
            ("DEPOT_API_KEYS", READER),
            ("DEPOT_ADMIN_KEYS", ADMIN),
            ("DEPOT_API_KEY_ATTEMPTS", "1000"),
        ],
    )
    .await;
    let (_, doc) = daemon.get_json("/openapi.json").await;
    let code_schema = &doc["components"]["schemas"]["Error"]["properties"]["code"];
    assert!(
        doc["components"]["schemas"]["Error"]["required"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("code")),
        "code is a required field of the Error schema"
    );
    let listed: BTreeMap<String, u64> = code_schema["x-codes"]
        .as_array()
        .expect("x-codes lists the codes")
        .iter()
        .map(|c| {
            (
                c["code"].as_str().unwrap().to_owned(),
                c["status"].as_u64().unwrap(),
            )
        })
        .collect();
    let enumerated: BTreeSet<String> = code_schema["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        listed.keys().cloned().collect::<BTreeSet<_>>(),
        enumerated,
        "enum and x-codes list the same codes"
    );
    assert_eq!(listed.len(), ErrorCode::ALL.len());

    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut seen_codes = BTreeSet::new();
    let mut problems = Vec::new();
    let mut json_errors_per_route = BTreeMap::new();
    for route in ROUTES {
        let mut json_errors = 0;
        for (what, method, target, key) in probes(route) {
            let mut request = client.request(method.parse().unwrap(), daemon.url(&target));
            if let Some(key) = key {
                request = request.bearer_auth(key);
            }
            if method == "POST" || method == "PUT" {
                request = request
                    .header("content-type", "application/json")
                    .body("{}");
            }
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            let json = response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("application/json"));
            if status < 400 || !json {
                // A success (its body may be a stream), an HTML page of the console or an
                // S3 XML error of the object store: not the JSON error body.
                continue;
            }
            json_errors += 1;
            let body: serde_json::Value = response.json().await.unwrap();
            let context = format!("{} {} ({what}) → {status} {body}", route.method, target);
            let Some(code) = body["code"].as_str() else {
                problems.push(format!("no code: {context}"));
                continue;
            };
            seen_codes.insert(code.to_owned());
            match listed.get(code) {
                None => problems.push(format!("code not in /openapi.json: {context}")),
                Some(&listed_status) if listed_status != u64::from(status) => problems.push(
                    format!("listed with status {listed_status}, answered: {context}"),
                ),
                Some(_) => {}
            }
            if body["statusCode"] != status || body["message"].as_str().is_none_or(str::is_empty) {
                problems.push(format!("body does not follow the contract: {context}"));
            }
        }
        json_errors_per_route.insert(format!("{} {}", route.method, route.path), json_errors);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The walk is not empty: every route of the JSON API answered some probe with an error.
    let silent: Vec<&String> = json_errors_per_route
        .iter()
        .filter(|(route, n)| **n == 0 && !route.contains("/console") && !route.ends_with(" /"))
        .map(|(route, _)| route)
        .collect();
    assert!(
        silent.is_empty(),
        "routes that gave no JSON error: {silent:?}"
    );
    // And it reached more than the catch-alls.
    for code in [
        "method-not-allowed",
        "invalid-api-key",
        "missing-api-key",
        "forbidden",
        "invalid-parameter",
        "unknown-version",
        "unknown-file",
    ] {
        assert!(
            seen_codes.contains(code),
            "no probe gave {code}; seen: {seen_codes:?}"
        );
    }
}
