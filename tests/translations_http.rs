//! `GET /translations` end to end through real HTTP: a server on a loopback port over
//! stores the tests fill directly (the producer does not exist yet), checked against the
//! sheet fixtures and read back with the consumers' readers.
#![cfg(test)]

mod support;

// Shared with the unit tests of `src/translations/formats`.
#[path = "support/ordered_json.rs"]
mod ordered_json;
#[path = "support/readback.rs"]
mod readback;
#[path = "support/readback_properties_resx.rs"]
mod readback_properties_resx;

use std::io::Read;

use ordered_json::Json;
use support::{HttpReply, TestServer, fixture_text, query, sheet_rows};

const FORMATS: [&str; 8] = [
    "json",
    "android",
    "ios",
    "yml",
    "xlf",
    "po",
    "properties",
    "resx",
];

fn expected(name: &str) -> Json {
    Json::parse(&fixture_text(&format!("sheets/{name}.expected.json")))
}

// ------------------------------------------------------------------ helpers

async fn server_with(sheet: &str) -> TestServer {
    let server = TestServer::start().await;
    server.put_sheet(sheet_rows(sheet)).await;
    server
}

/// `/translations?filters[]=...&...` with the filters in the given order, then `extra`.
fn translations(filters: &[&str], extra: &[(&str, &str)]) -> String {
    let mut pairs: Vec<(&str, &str)> = filters.iter().map(|f| ("filters[]", *f)).collect();
    pairs.extend_from_slice(extra);
    if pairs.is_empty() {
        "/translations".to_owned()
    } else {
        format!("/translations?{}", query(&pairs))
    }
}

/// The words of a message, so that `en` is found as a locale and not inside `sensitive`.
fn words(message: &str) -> Vec<&str> {
    message
        .split(|c: char| !(c.is_alphanumeric() || "._-*".contains(c)))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty())
        .collect()
}

fn assert_json_body(reply: &HttpReply, want: &Json, what: &str) {
    assert_eq!(reply.status, 200, "{what}: {}", reply.text());
    assert_eq!(
        reply.header("content-type"),
        Some("application/json"),
        "{what}"
    );
    let body = reply.text();
    // content and key order (a clear diff first), then the exact compact text
    assert_eq!(Json::parse(&body), *want, "{what}");
    assert_eq!(body, want.compact(), "{what}");
}

fn gunzip(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body)
        .read_to_end(&mut out)
        .expect("valid gzip");
    out
}

fn unbrotli(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(body, 4096)
        .read_to_end(&mut out)
        .expect("valid brotli");
    out
}

// ------------------------------------------------------------------ documents and filters

#[tokio::test]
async fn whole_document_is_the_expected_json_compact_in_sheet_order() {
    for sheet in ["basic", "edge"] {
        let server = server_with(sheet).await;
        let reply = server.get("/translations", &[]).await;
        assert_json_body(&reply, expected(sheet).get("all"), sheet);
    }
}

#[tokio::test]
async fn every_filter_case_of_the_fixtures_answers_its_status_and_body() {
    for sheet in ["basic", "edge"] {
        let server = server_with(sheet).await;
        let expected = expected(sheet);
        let locales = expected.get("all").keys();
        let cases = expected.get("filters").list();
        assert!(!cases.is_empty(), "{sheet} has filter cases");
        for case in cases {
            let filters: Vec<&str> = case.get("filters").list().iter().map(Json::text).collect();
            let Json::Number(status) = case.get("status") else {
                panic!("status is a number")
            };
            let what = format!("{sheet} {filters:?}");
            let reply = server.get(&translations(&filters, &[]), &[]).await;
            assert_eq!(
                u64::from(reply.status),
                status.as_u64().expect("status"),
                "{what}: {}",
                reply.text()
            );
            match reply.status {
                200 => assert_json_body(&reply, case.get("json"), &what),
                404 => {
                    let message = reply.error_message();
                    let words = words(&message);
                    for name in filters.iter().chain(&locales) {
                        assert!(words.contains(name), "{what}: {name} not in {message:?}");
                    }
                }
                400 => {
                    let message = reply.error_message();
                    assert!(message.contains("filter"), "{what}: {message:?}");
                    for f in filters.iter().filter(|f| !f.is_empty()) {
                        assert!(message.contains(f), "{what}: {message:?}");
                    }
                }
                other => panic!("{what}: unexpected status {other}"),
            }
        }
    }
}

#[tokio::test]
async fn android_names_drop_the_locale_for_one_locale_and_carry_it_for_several() {
    let server = server_with("basic").await;
    let expected = expected("basic");
    for case in ["android_single_locale_names", "android_multi_locale_names"] {
        let case = expected.get(case);
        let filters: Vec<&str> = case.get("filters").list().iter().map(Json::text).collect();
        let want: Vec<&str> = case.get("names").list().iter().map(Json::text).collect();
        let reply = server
            .get(&translations(&filters, &[("format", "android")]), &[])
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        let units = readback::read_android(&reply.text()).expect("aapt2 reads it");
        let names: Vec<&str> = units.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, want, "{filters:?}");
    }
}

// ------------------------------------------------------------------ health and comments

#[tokio::test]
async fn health_reports_edge_warnings_by_cell_key_counts_and_version() {
    let server = server_with("edge").await;
    let reply = server.get("/health", &[]).await;
    assert_eq!(reply.status, 200);
    let health: serde_json::Value = serde_json::from_slice(&reply.body).expect("JSON");
    let t = &health["translations"];
    assert_eq!(t["loaded"], true, "{t}");

    let warnings = t["warnings"].as_array().expect("warnings list");
    let mut rows: Vec<u64> = warnings
        .iter()
        .map(|w| w["row"].as_u64().expect("row number"))
        .collect();
    rows.dedup();
    assert_eq!(rows, [9, 10, 11, 13], "{t}");
    for w in warnings {
        let cell = w["cell"].as_str().expect("cell");
        let letters = cell.trim_end_matches(|c: char| c.is_ascii_digit());
        assert!(
            !letters.is_empty() && letters.chars().all(|c| c.is_ascii_uppercase()),
            "{w}"
        );
        assert_eq!(cell[letters.len()..], w["row"].to_string(), "{w}");
        assert!(!w["message"].as_str().expect("message").is_empty(), "{w}");
    }

    assert_eq!(
        t["keyCounts"],
        serde_json::json!({ "en_US": 4, "de_DE": 2 }),
        "{t}"
    );
    let version = t["version"].as_str().expect("version");
    assert_eq!(version.len(), 64, "{version}");
    assert!(
        version
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)),
        "{version}"
    );
}

#[tokio::test]
async fn comments_true_writes_the_translator_comment_in_each_formats_syntax() {
    let server = server_with("edge").await;
    let comment = expected("edge")
        .get("comments")
        .get("COMMON.OK")
        .text()
        .to_owned();
    assert_eq!(comment, "Button label");
    let filters = ["en_US.COMMON"];
    for format in ["po", "yml", "android", "ios", "xlf"] {
        let with = server
            .get(
                &translations(&filters, &[("format", format), ("comments", "true")]),
                &[],
            )
            .await;
        assert_eq!(with.status, 200, "{format}: {}", with.text());
        let body = with.text();
        // the comment in the format's own syntax, on the line before the key's line (xlf:
        // inside the key's unit, after its target)
        let (comment_line, key_line) = match format {
            "po" => ("#. Button label", "msgctxt \"common_ok\""),
            "yml" => ("# Button label", "\"OK\": \"OK\""),
            "android" => (
                "<!-- Button label -->",
                "<string name=\"common_ok\">OK</string>",
            ),
            "ios" => ("/* Button label */", "\"common_ok\" = \"OK\";"),
            _ => ("<target>OK</target>", "<note>Button label</note>"),
        };
        let lines: Vec<&str> = body.lines().map(str::trim).collect();
        assert!(
            lines.windows(2).any(|w| w == [comment_line, key_line]),
            "{format}:\n{body}"
        );
        // and the consumer's reader attaches it to that key
        let read = match format {
            "po" => readback::read_po(&body).map(|po| po.units[0].comment.clone()),
            "android" => readback::read_android(&body).map(|u| u[0].comment.clone()),
            "ios" => readback::read_strings(&body).map(|u| u[0].comment.clone()),
            "xlf" => readback::read_xlf(&body).map(|f| f[0].units[0].note.clone()),
            // a YAML comment is no data: the reader only has to accept the body
            _ => readback::read_yml(&body).map(|_| Some(comment.clone())),
        };
        let read = read.unwrap_or_else(|e| panic!("{format}: {e}\n{body}"));
        assert_eq!(
            read.as_deref().map(str::trim),
            Some(comment.as_str()),
            "{format}"
        );

        let without = server
            .get(&translations(&filters, &[("format", format)]), &[])
            .await;
        assert_eq!(without.status, 200);
        assert!(!without.text().contains("Button label"), "{format}");
    }
}

// ------------------------------------------------------------------ availability

#[tokio::test]
async fn translations_answer_503_until_a_document_is_stored() {
    let server = TestServer::start().await;
    for path in ["/translations", "/translations?format=po&filters[]=en"] {
        let reply = server.get(path, &[]).await;
        assert_eq!(reply.status, 503, "{path}");
        assert!(!reply.error_message().is_empty());
    }
    server.put_sheet(sheet_rows("basic")).await;
    let reply = server.get("/translations", &[]).await;
    assert_json_body(&reply, expected("basic").get("all"), "after the put");
}

// ------------------------------------------------------------------ headers and caching

#[tokio::test]
async fn each_format_answers_with_its_content_type_etag_and_cache_control() {
    let server = server_with("basic").await;
    let content_types = [
        ("json", "application/json"),
        ("android", "application/xml; charset=utf-8"),
        ("ios", "text/plain; charset=utf-8"),
        ("yml", "application/yaml; charset=utf-8"),
        ("xlf", "application/xliff+xml; charset=utf-8"),
        ("po", "text/x-gettext-translation; charset=utf-8"),
        ("properties", "text/x-java-properties; charset=iso-8859-1"),
        ("resx", "application/xml; charset=utf-8"),
    ];
    let mut etags = Vec::new();
    for (format, content_type) in content_types {
        let reply = server
            .get(&translations(&[], &[("format", format)]), &[])
            .await;
        assert_eq!(reply.status, 200, "{format}");
        assert_eq!(reply.header("content-type"), Some(content_type), "{format}");
        assert!(
            reply.header("cache-control").is_some_and(|v| !v.is_empty()),
            "{format}"
        );
        let etag = reply.header("etag").expect("ETag").to_owned();
        assert!(etag.len() > 2 && etag.starts_with('"') && etag.ends_with('"'));
        etags.push(etag);
    }
    etags.sort();
    etags.dedup();
    assert_eq!(etags.len(), FORMATS.len(), "one ETag per format: {etags:?}");
}

#[tokio::test]
async fn if_none_match_with_the_etag_answers_304_without_a_body() {
    let server = server_with("basic").await;
    for format in FORMATS {
        let path = translations(&["en.CORE"], &[("format", format)]);
        let first = server.get(&path, &[]).await;
        assert_eq!(first.status, 200);
        let etag = first.header("etag").expect("ETag");
        for sent in [
            etag.to_owned(),
            format!("W/{etag}"),
            format!("\"x\", {etag}"),
        ] {
            let again = server.get(&path, &[("if-none-match", &sent)]).await;
            assert_eq!(again.status, 304, "{format} {sent}");
            assert!(again.body.is_empty(), "{format}: 304 has a body");
            assert_eq!(again.header("etag"), Some(etag), "{format}");
        }
        let other = server.get(&path, &[("if-none-match", "\"x\"")]).await;
        assert_eq!(other.status, 200, "{format}");
        assert_eq!(other.body, first.body, "{format}");
    }
}

#[tokio::test]
async fn etag_depends_on_format_and_filters_but_not_on_filter_order() {
    let server = server_with("basic").await;
    let etag = |reply: HttpReply| {
        assert_eq!(reply.status, 200);
        (reply.header("etag").expect("ETag").to_owned(), reply.body)
    };
    let (json, _) = etag(server.get(&translations(&["en"], &[]), &[]).await);
    let (po, _) = etag(
        server
            .get(&translations(&["en"], &[("format", "po")]), &[])
            .await,
    );
    let (pl, _) = etag(server.get(&translations(&["pl"], &[]), &[]).await);
    let (keep, _) = etag(
        server
            .get(
                &translations(&["en"], &[("format", "po"), ("keepLocale", "true")]),
                &[],
            )
            .await,
    );
    assert_ne!(json, po, "format");
    assert_ne!(json, pl, "filters");
    assert_ne!(po, keep, "keepLocale");

    let (ab, ab_body) = etag(
        server
            .get(&translations(&["en.CORE", "pl.FRONT"], &[]), &[])
            .await,
    );
    let (ba, ba_body) = etag(
        server
            .get(&translations(&["pl.FRONT", "en.CORE"], &[]), &[])
            .await,
    );
    assert_eq!(ab, ba, "filter order");
    assert_eq!(ab_body, ba_body);
}

#[tokio::test]
async fn a_new_document_version_changes_the_etag_and_the_old_one_gets_200() {
    let server = server_with("basic").await;
    let before = server.get("/translations", &[]).await;
    let old = before.header("etag").expect("ETag").to_owned();

    let mut rows = sheet_rows("basic");
    assert_eq!(rows[3][3], "YES");
    rows[3][4] = "Yes!".to_owned();
    server.put_sheet(rows).await;

    let after = server
        .get("/translations", &[("if-none-match", &old)])
        .await;
    assert_eq!(after.status, 200, "the old ETag is stale");
    let new = after.header("etag").expect("ETag");
    assert_ne!(new, old);
    assert!(
        after.text().contains("\"YES\":\"Yes!\""),
        "{}",
        after.text()
    );
    let again = server.get("/translations", &[("if-none-match", new)]).await;
    assert_eq!(again.status, 304);
}

// ------------------------------------------------------------------ compression

#[tokio::test]
async fn gzip_and_br_bodies_decompress_to_exactly_the_identity_body() {
    let server = server_with("hostile").await;
    for format in FORMATS {
        let path = translations(&[], &[("format", format)]);
        let identity = server.get(&path, &[]).await;
        assert_eq!(identity.status, 200, "{format}");
        assert_eq!(identity.header("content-encoding"), None, "{format}");
        assert!(identity.body.len() > 1024, "{format}: the body is small");
        let etag = identity.header("etag");
        for (accept, decode) in [("gzip", gunzip as fn(&[u8]) -> Vec<u8>), ("br", unbrotli)] {
            let packed = server.get(&path, &[("accept-encoding", accept)]).await;
            assert_eq!(packed.status, 200, "{format} {accept}");
            assert_eq!(
                packed.header("content-encoding"),
                Some(accept),
                "{format} {accept}"
            );
            assert!(packed.body.len() < identity.body.len(), "{format} {accept}");
            assert_eq!(decode(&packed.body), identity.body, "{format} {accept}");
            assert_eq!(packed.header("etag"), etag, "{format} {accept}");
        }
    }
}

// ------------------------------------------------------------------ bad input

/// A bad query: its `(name, value)` pairs and what the 400 message must contain.
type Case<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str]);

#[tokio::test]
async fn bad_query_parameters_answer_400_naming_the_parameter() {
    let server = server_with("basic").await;
    let long = "a".repeat(257);
    let deep = vec!["a"; 17].join(".");
    let cases: [Case<'_>; 9] = [
        (&[("filter", "en")], &["'filter'"]),
        (&[("format", "csv")], &["format", "'csv'", "json, android"]),
        (&[("keepLocale", "maybe")], &["keepLocale", "'maybe'"]),
        (&[("comments", "yes")], &["comments", "'yes'"]),
        (&[("filters[]", "")], &["filter", "empty"]),
        (&[("filters[]", "en..CORE")], &["filter", "en..CORE"]),
        (
            &[("filters[]", "en"), ("filters[]", &long)],
            &["filter", "257"],
        ),
        (&[("filters[]", &deep)], &["filter", "17"]),
        (
            &[("format", "json"), ("format", "po")],
            &["format", "more than once"],
        ),
    ];
    for (pairs, fragments) in cases {
        let path = format!("/translations?{}", query(pairs));
        let reply = server.get(&path, &[]).await;
        assert_eq!(reply.status, 400, "{path}: {}", reply.text());
        let message = reply.error_message();
        for fragment in fragments {
            assert!(message.contains(fragment), "{path}: {message:?}");
        }
    }
}

// ------------------------------------------------------------------ hostile texts

/// A flat format's name for `path` (below the locale), with the locale prefix when given.
fn flat_name(locale: Option<&str>, path: &[String], format: &str) -> String {
    let segments = locale.into_iter().chain(path.iter().map(String::as_str));
    match format {
        "properties" => return segments.collect::<Vec<_>>().join(".").to_lowercase(),
        "resx" => {
            let names: Vec<String> = segments
                .map(readback_properties_resx::csharp_name)
                .collect();
            return names.join("_");
        }
        _ => {}
    }
    let joined = locale
        .into_iter()
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("_")
        .to_lowercase();
    if format == "android" {
        joined
            .chars()
            .map(|c| {
                if c.is_ascii_lowercase() || c.is_ascii_digit() {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    } else {
        joined
    }
}

/// Reads `body` with the format's consumer and checks it holds exactly `tree`
/// (`locale -> ... -> text`): texts, names and order.
fn assert_reads_back(format: &str, body: &str, tree: &Json) {
    let leaves: Vec<(String, Vec<String>, String)> = tree
        .leaves()
        .into_iter()
        .map(|(mut path, text)| (path.remove(0), path, text))
        .collect();
    let locales = tree.keys();
    let prefixed = locales.len() > 1;
    let flat = |format: &str| -> Vec<(String, String)> {
        leaves
            .iter()
            .map(|(locale, path, text)| {
                let locale = prefixed.then_some(locale.as_str());
                (flat_name(locale, path, format), text.clone())
            })
            .collect()
    };
    let fail = |e: String| -> ! { panic!("{format}: {e}\n{body}") };
    match format {
        "json" => assert_eq!(Json::parse(body), *tree),
        "yml" => {
            let read = readback::read_yml(body).unwrap_or_else(|e| fail(e));
            let want: Vec<(Vec<String>, String)> = tree.leaves();
            assert_eq!(read, want);
        }
        "android" | "ios" => {
            let units = if format == "android" {
                readback::read_android(body)
            } else {
                readback::read_strings(body)
            }
            .unwrap_or_else(|e| fail(e));
            let read: Vec<(String, String)> = units.into_iter().map(|u| (u.name, u.text)).collect();
            assert_eq!(read, flat(format), "{format}");
        }
        "properties" | "resx" => {
            let pairs = if format == "properties" {
                readback_properties_resx::read_properties(body)
            } else {
                readback_properties_resx::read_resx(body).map(|resx| resx.pairs)
            }
            .unwrap_or_else(|e| fail(e));
            let read: Vec<(String, String)> = pairs.into_iter().map(|p| (p.name, p.text)).collect();
            assert_eq!(read, flat(format), "{format}");
        }
        "po" => {
            let po = readback::read_po(body).unwrap_or_else(|e| fail(e));
            if let [only] = locales.as_slice() {
                assert!(po.header.starts_with(&format!("Language: {only}\n")));
            }
            let read: Vec<(String, String)> = po
                .units
                .into_iter()
                .map(|u| {
                    assert_eq!(u.msgctxt.as_deref(), Some(u.msgid.as_str()));
                    (u.msgid, u.msgstr)
                })
                .collect();
            assert_eq!(read, flat(format));
        }
        "xlf" => {
            let files = readback::read_xlf(body).unwrap_or_else(|e| fail(e));
            assert_eq!(files.len(), locales.len());
            let base = tree.get("en_US");
            let mut read = Vec::new();
            for (file, locale) in files.into_iter().zip(&locales) {
                assert_eq!(file.source_language, "en-US");
                assert_eq!(file.target_language, locale.replace('_', "-"));
                for unit in file.units {
                    let path: Vec<&str> = unit.id.split('.').collect();
                    let source = path.iter().fold(base, |node, k| node.get(k));
                    assert_eq!(unit.source, source.text(), "{}", unit.id);
                    let mut full = vec![(*locale).to_owned()];
                    full.extend(path.iter().map(|s| (*s).to_owned()));
                    read.push((full, unit.target.unwrap_or_default()));
                }
            }
            assert_eq!(read, tree.leaves());
        }
        other => panic!("unknown format {other}"),
    }
}

#[tokio::test]
async fn hostile_texts_read_back_exactly_in_every_format_for_one_and_several_locales() {
    let server = server_with("hostile").await;
    let all = expected("hostile");
    assert_eq!(all.keys(), ["en_US", "pl_PL"]);
    assert_eq!(all.leaves().len(), 90);
    for format in FORMATS {
        for (filters, tree) in [(vec!["en_US"], all.only(&["en_US"])), (vec![], all.clone())] {
            let reply = server
                .get(&translations(&filters, &[("format", format)]), &[])
                .await;
            assert_eq!(reply.status, 200, "{format} {filters:?}: {}", reply.text());
            assert_reads_back(format, &reply.text(), &tree);
        }
    }
}

// ------------------------------------------------------------------ fallback without a chain

/// `fallback=true` on a server whose `translations.fallback` names no chain was answered as
/// if it had not been asked (the missing texts silently missing): it is refused with a code
/// of its own and a message saying how to configure a chain, whatever else the query says
/// (a cached body of the same query without fallback is not served either).
#[tokio::test]
async fn fallback_without_a_configured_chain_is_refused_with_its_code() {
    let server = server_with("basic").await;
    let plain = server.get("/translations", &[]).await;
    assert_eq!(plain.status, 200);
    for path in [
        "/translations?fallback=true",
        "/translations?fallback=true&format=android&filters[]=en_US",
    ] {
        let reply = server.get(path, &[]).await;
        assert_eq!(reply.status, 400, "{path}: {}", reply.text());
        let body: serde_json::Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(body["code"], "fallback-not-configured", "{path}");
        assert_eq!(
            reply.error_message(),
            "fallback=true takes missing texts along the chains of translations.fallback, and \
             none is configured: set one under [translations] in config/depot.toml, e.g. \
             fallback = { pt_BR = \"pt_PT\", \"*\" = \"en_US\" } (or \
             DEPOT_TRANSLATIONS_FALLBACK=pt_BR=pt_PT,*=en_US), and restart depot; or leave \
             fallback=true out"
        );
    }
    assert_eq!(
        server.get("/translations?fallback=false", &[]).await.status,
        200
    );
}

/// SPEC §12.1: a sheet whose settings cell says its texts hold printf is served as it says
/// when the request names no `placeholders`: printf formats get the texts (Android's and
/// Apple's printf mapped), others their own syntax; `placeholders=keep` still wins.
#[tokio::test]
async fn a_printf_sheet_is_served_in_each_formats_syntax_unless_the_query_says_otherwise() {
    let server = TestServer::start().await;
    let rows: Vec<Vec<String>> = [
        vec!["depot: placeholders=printf"],
        vec![">>>", "en"],
        vec!["pay", "Pay %1$s"],
        vec!["left", "%1$d of %2$s left"],
    ]
    .iter()
    .map(|row| row.iter().map(|c| (*c).to_owned()).collect())
    .collect();
    server.put_sheet(rows).await;
    let body = |extra: &'static [(&'static str, &'static str)]| {
        let server = &server;
        async move {
            let reply = server.get(&translations(&[], extra), &[]).await;
            assert_eq!(reply.status, 200, "{}", reply.text());
            reply.text()
        }
    };
    let android = body(&[("format", "android")]).await;
    assert!(android.contains(">Pay %1$s<"), "{android}");
    assert!(android.contains(">%1$d of %2$s left<"), "{android}");
    let ios = body(&[("format", "ios")]).await;
    assert!(ios.contains("\"pay\" = \"Pay %@\";"), "{ios}");
    assert!(ios.contains("\"left\" = \"%1$d of %2$@ left\";"), "{ios}");
    let resx = body(&[("format", "resx")]).await;
    assert!(resx.contains("<value>Pay {0}</value>"), "{resx}");
    assert!(resx.contains("<value>{0} of {1} left</value>"), "{resx}");
    let i18next = body(&[("format", "i18next")]).await;
    assert!(i18next.contains("\"Pay {{arg1}}\""), "{i18next}");
    // the query wins over the cell: the texts as the sheet has them
    let kept = body(&[("format", "ios"), ("placeholders", "keep")]).await;
    assert!(kept.contains("\"pay\" = \"Pay %1$s\";"), "{kept}");
}
