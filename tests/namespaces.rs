//! Namespaces from tabs (SPEC §14) through the real binary: every tab of a Google
//! spreadsheet (the fake speaks `spreadsheets.get` and `values:batchGet` as Google does),
//! every worksheet of an `.xlsx` and an `.ods`, every `.csv` of a folder; a tab without a
//! header row is skipped with a warning naming it, a chart sheet is not read; a named tab
//! is read alone and unnamespaced. Then filters, versions, findings and the console's links
//! to cells work on the namespaced document, and `depot generate` writes it.
#![cfg(test)]

mod support;

use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::time::Duration;
use support::fake_google::{Endpoint, FakeConfig, FakeGoogle, Fault, Times};
use support::{Daemon, eventually};

fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|line| line.split(',').map(str::to_owned).collect())
        .collect()
}

const COMMON: &str = ">>>,>>>,en,de\nCORE,,,\n,YES,Yes,Ja\n,NO,No,Nein\n";
/// de names another placeholder than en in C3: a finding of the home tab.
const HOME: &str = ">>>,en,de\nTITLE,Home,Start\nHELLO,Hi {name},Hallo {nom}\n";

/// What /translations serves of COMMON and HOME.
fn served() -> Value {
    json!({
        "en": {"common": {"CORE": {"YES": "Yes", "NO": "No"}}, "home": {"TITLE": "Home", "HELLO": "Hi {name}"}},
        "de": {"common": {"CORE": {"YES": "Ja", "NO": "Nein"}}, "home": {"TITLE": "Start", "HELLO": "Hallo {nom}"}},
    })
}

fn google_env(fake: &FakeGoogle, tab: &str) -> Vec<(String, String)> {
    let c = fake.config();
    [
        ("DEPOT_GOOGLE_TOKEN_URL", fake.token_url()),
        ("DEPOT_GOOGLE_SHEETS_URL", fake.sheets_url()),
        ("DEPOT_GOOGLE_TIMEOUT_SECS", "2".to_owned()),
        ("DEPOT_ADMIN_KEYS", "adm".to_owned()),
        ("SERVICE_CLIENT_ID", c.client_id.clone()),
        ("SERVICE_CLIENT_SECRET", c.client_secret.clone()),
        ("SERVICE_REFRESH_TOKEN", c.refresh_token.clone()),
        ("SERVICE_SPREADSHEET_ID", c.spreadsheet_id.clone()),
        ("SERVICE_SPREADSHEET_NAME", tab.to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

fn refs(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

async fn loaded(daemon: &Daemon) -> Value {
    eventually(Duration::from_secs(20), || async {
        let (status, body) = daemon.get_json("/translations").await;
        (status == 200).then_some(body)
    })
    .await
    .unwrap_or_else(|| panic!("nothing served\n{}", daemon.log()))
}

async fn sync(daemon: &Daemon) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(daemon.url("/translations/sync"))
        .bearer_auth("adm")
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tab_of_a_google_spreadsheet_is_a_namespace_through_filters_versions_and_the_console()
{
    let mut config = FakeConfig::with_rows(rows("How to edit this spreadsheet\n"));
    config.sheet_name = "README".into();
    let fake = FakeGoogle::start(config).await;
    fake.add_sheet("common", rows(COMMON));
    fake.add_chart_sheet("Chart");
    fake.add_sheet("home", rows(HOME));
    let home_gid = fake.sheet_id("home").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let env = google_env(&fake, "");
    let daemon = Daemon::start(dir.path(), &[], &refs(&env)).await;
    assert_eq!(loaded(&daemon).await, served());
    // one list of the tabs and one read of every grid tab, in tab order
    let asked = fake.last_request(Endpoint::BatchGet).unwrap();
    assert!(
        asked.ends_with("/values:batchGet?ranges=%27README%27&ranges=%27common%27&ranges=%27home%27&majorDimension=ROWS"),
        "{asked}"
    );

    // the notes tab is skipped with a warning naming it; the finding names its tab's cell
    let (_, health) = daemon.get_json("/health").await;
    let warnings = &health["translations"]["warnings"];
    assert!(
        (warnings.as_array().unwrap().iter()).any(|w| w["cell"] == "README!A1"
            && w["message"]
                .as_str()
                .unwrap()
                .starts_with("tab 'README' has no header row")),
        "{warnings}"
    );
    // the console links each cell to its tab
    let page = daemon.get("/").await.text().await.unwrap();
    assert!(page.contains("home!C3"), "{page}");
    let link = format!("edit#gid={home_gid}&#38;range=C3");
    assert!(page.contains(&link), "{link} not in {page}");

    // filters treat a namespace as the top section
    let (status, body) = daemon
        .get_json("/translations?filters%5B%5D=de.common.CORE")
        .await;
    assert_eq!(
        (status, body),
        (
            200,
            json!({"de": {"common": {"CORE": {"YES": "Ja", "NO": "Nein"}}}})
        )
    );
    let (status, body) = daemon.get_json("/translations?filters%5B%5D=en.home").await;
    assert_eq!(
        (status, body),
        (
            200,
            json!({"en": {"home": {"TITLE": "Home", "HELLO": "Hi {name}"}}})
        )
    );

    // a changed tab: the version names its keys with their namespace
    fake.set_sheet_rows("common", rows(&COMMON.replace("Ja", "Jawohl")));
    let (status, report) = sync(&daemon).await;
    assert_eq!(
        (status, &report["changed"]),
        (200, &json!(true)),
        "{report}"
    );
    let version = report["version"].as_str().unwrap();
    let (_, changes) = daemon
        .get_json(&format!("/translations/versions/{version}"))
        .await;
    assert_eq!(
        changes["locales"]["de"]["changed"],
        json!(["common.CORE.YES"])
    );

    // a failing batchGet is a failed sync (the last version stays served), then it recovers
    fake.inject(Endpoint::BatchGet, Fault::ServerError, Times::Next(1));
    let (status, failed) = sync(&daemon).await;
    assert_eq!(status, 502, "{failed}");
    assert!(
        failed["message"].as_str().unwrap().contains("will retry"),
        "{failed}"
    );
    assert_eq!(
        loaded(&daemon).await["de"]["common"]["CORE"]["YES"],
        "Jawohl"
    );
    assert_eq!(sync(&daemon).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_tab_is_read_alone_and_unnamespaced() {
    let fake = FakeGoogle::start(FakeConfig::with_rows(rows(COMMON))).await;
    fake.add_sheet("home", rows(HOME));
    let dir = tempfile::tempdir().unwrap();
    let env = google_env(&fake, "home");
    let daemon = Daemon::start(dir.path(), &[], &refs(&env)).await;
    assert_eq!(
        loaded(&daemon).await["en"],
        json!({"TITLE": "Home", "HELLO": "Hi {name}"})
    );
    assert_eq!(fake.requests(Endpoint::BatchGet), 0);
    // its namespace is the default one
    let (status, _) = daemon.get_json("/i18next/draft/en/translation.json").await;
    assert_eq!(status, 200);
}

/// A workbook of `sheets` (name, rows) as `.xlsx`, through rust_xlsxwriter.
fn xlsx(path: &Path, sheets: &[(&str, &str)]) {
    let mut book = rust_xlsxwriter::Workbook::new();
    for (name, text) in sheets {
        let sheet = book.add_worksheet();
        sheet.set_name(*name).unwrap();
        for (r, row) in rows(text).iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                if !cell.is_empty() {
                    sheet.write_string(r as u32, c as u16, cell).unwrap();
                }
            }
        }
    }
    book.save(path).unwrap();
}

/// The same as `.ods`: one table per sheet in `content.xml`.
fn ods(path: &Path, sheets: &[(&str, &str)]) {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut tables = String::new();
    for (name, text) in sheets {
        tables.push_str(&format!("<table:table table:name=\"{}\">", escape(name)));
        for row in rows(text) {
            tables.push_str("<table:table-row>");
            for cell in row {
                tables.push_str(&format!(
                    "<table:table-cell office:value-type=\"string\"><text:p>{}</text:p></table:table-cell>",
                    escape(&cell)
                ));
            }
            tables.push_str("</table:table-row>");
        }
        tables.push_str("</table:table>");
    }
    let content = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content \
         xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
         xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
         xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" office:version=\"1.2\">\
         <office:body><office:spreadsheet>{tables}</office:spreadsheet></office:body>\
         </office:document-content>"
    );
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("mimetype", stored).unwrap();
    zip.write_all(b"application/vnd.oasis.opendocument.spreadsheet")
        .unwrap();
    zip.start_file("META-INF/manifest.xml", stored).unwrap();
    zip.write_all(
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><manifest:manifest \
          xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\" manifest:version=\"1.2\">\
          <manifest:file-entry manifest:full-path=\"/\" manifest:media-type=\"application/vnd.oasis.opendocument.spreadsheet\"/>\
          <manifest:file-entry manifest:full-path=\"content.xml\" manifest:media-type=\"text/xml\"/>\
          </manifest:manifest>",
    )
    .unwrap();
    zip.start_file("content.xml", stored).unwrap();
    zip.write_all(content.as_bytes()).unwrap();
    zip.finish().unwrap();
}

/// `.xlsx` and `.ods` workbooks and a folder of `.csv` files give the same namespaced
/// document, through `depot produce --source`, `depot generate` and the daemon; the sheet
/// named by SERVICE_SPREADSHEET_NAME is read alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workbooks_and_folders_of_csv_give_one_namespace_per_sheet() {
    let dir = tempfile::tempdir().unwrap();
    let sheets = [
        ("notes", "Read me first\n"),
        ("common", COMMON),
        ("home", HOME),
    ];
    xlsx(&dir.path().join("book.xlsx"), &sheets);
    ods(&dir.path().join("book.ods"), &sheets);
    std::fs::create_dir(dir.path().join("tabs")).unwrap();
    for (name, text) in sheets {
        std::fs::write(dir.path().join("tabs").join(format!("{name}.csv")), text).unwrap();
    }
    for source in ["book.xlsx", "book.ods", "tabs"] {
        // generate: the json of every locale, namespaces as the top level
        let out = support::run_ok(
            dir.path(),
            &[
                "generate", "--source", source, "--format", "json", "--merge", "--path", "-",
            ],
            [("DEPOT_LOG_LEVEL", "warn")],
        );
        let generated: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{source}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(generated, served(), "{source}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("notes!A1 tab 'notes' has no header row"),
            "{source}: {stderr}"
        );
    }
    // the daemon on the folder, then on one sheet of the workbook
    let daemon = Daemon::start(dir.path(), &["--set", "producer.source=book.xlsx"], &[]).await;
    assert_eq!(loaded(&daemon).await, served());
    drop(daemon);
    let daemon = Daemon::start(
        dir.path(),
        &["--set", "producer.source=book.ods", "--data-dir", "data2"],
        &[("SERVICE_SPREADSHEET_NAME", "home")],
    )
    .await;
    assert_eq!(
        loaded(&daemon).await["de"],
        json!({"TITLE": "Start", "HELLO": "Hallo {nom}"})
    );
}
