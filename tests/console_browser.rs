//! The console in a real browser (headless Chromium over WebDriver): log in, search, page,
//! preview, download, upload, refuse a forged form; the checks' findings with links to
//! their Google cells, a plural entry's forms and the kept versions; a screenshot of every
//! page is kept in `target/console-screenshots/`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::mod_module_files,
    reason = "a test fails by panicking and may print what it saw; Cargo shares test helpers \
              only as tests/support/mod.rs"
)]

#[path = "support/browser.rs"]
mod browser;
mod support;

use browser::Browser;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::Daemon;
use thirtyfour::prelude::*;

const READER: &str = "reader-key-1";
const ADMIN: &str = "admin-key-1";

fn screenshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/console-screenshots")
}

/// 40 records (two pages of 25) plus one real file with content.
fn catalogue(dir: &Path) {
    let lines: String = (1..=40)
        .map(|i| {
            format!(
                "{{\"fileName\":\"report-{i:02}.pdf\",\"description\":\"quarterly report {i}\",\"bucket\":\"reports\",\"status\":1,\"fileType\":\"application/pdf\",\"permission\":\"{}\",\"key\":\"reports/{i:02}.pdf\",\"createdAt\":\"2026-01-{:02}T10:00:00.000Z\"}}\n",
                if i % 4 == 0 { "private" } else { "public" },
                (i % 28) + 1
            )
        })
        .collect();
    std::fs::write(dir.join("records.jsonl"), lines).unwrap();
    support::run_ok(dir, &["files", "import", "records.jsonl"], [("X", "")]);
    std::fs::write(dir.join("hello.txt"), "hello from depot\n").unwrap();
    support::run_ok(
        dir,
        &["files", "add", "hello.txt", "--description", "a first file"],
        [("X", "")],
    );
}

async fn wait_for_text(browser: &Browser, wanted: &str) -> String {
    browser.wait_for_text(wanted).await
}

async fn fill(browser: &Browser, id: &str, value: &str) {
    let input = browser.driver.find(By::Id(id)).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys(value).await.unwrap();
}

async fn choose(browser: &Browser, id: &str, value: &str) {
    let select = browser.driver.find(By::Id(id)).await.unwrap();
    select
        .find(By::XPath(format!(
            ".//option[normalize-space(.)='{value}']"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

async fn submit(browser: &Browser, label: &str) {
    click(
        browser,
        By::XPath(format!("//button[normalize-space(.)='{label}']")),
    )
    .await;
}

/// Clicks what `by` finds and waits until the page it was on is gone: the next page may
/// show the text a test waits for on the old one too ("1 key(s)" after two searches, a
/// locale's text in the preview before and after), so a wait that starts before the old
/// page has gone can pass on it.
async fn click(browser: &Browser, by: By) {
    let old_page = browser.driver.find(By::Tag("html")).await.unwrap();
    click_in_place(browser, by).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    // A reference to a page that has gone is "not present" to older chromedrivers and an
    // error ("Node ... does not belong to the document") to newer ones: both mean gone.
    while matches!(old_page.is_present().await, Ok(true)) {
        assert!(Instant::now() < deadline, "the click led to no new page");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Clicks what `by` finds where the page stays (a download).
async fn click_in_place(browser: &Browser, by: By) {
    browser
        .driver
        .find(by)
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

async fn count(browser: &Browser, css: &str) -> usize {
    browser.driver.find_all(By::Css(css)).await.unwrap().len()
}

async fn href(browser: &Browser, by: By) -> String {
    browser
        .driver
        .find(by)
        .await
        .unwrap()
        .attr("href")
        .await
        .unwrap()
        .expect("the link has an href")
}

async fn current_path(browser: &Browser) -> String {
    let url = browser.driver.current_url().await.unwrap();
    let query = url.query().map(|q| format!("?{q}")).unwrap_or_default();
    format!("{}{query}", url.path())
}

#[tokio::test]
async fn the_console_works_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    catalogue(dir.path());
    let daemon = Daemon::start(
        dir.path(),
        &[],
        &[("DEPOT_API_KEYS", READER), ("DEPOT_ADMIN_KEYS", ADMIN)],
    )
    .await;
    let downloads = dir.path().join("downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    let shots = screenshots();
    let browser = Browser::start(&downloads).await;
    let go = |path: &str| daemon.url(path);

    // Keys are configured: the console asks for one, and a wrong one is refused.
    browser
        .driver
        .goto(go("/console/files?page=2"))
        .await
        .unwrap();
    wait_for_text(&browser, "API key").await;
    assert!(
        current_path(&browser)
            .await
            .starts_with("/console/login?next=")
    );
    browser.screenshot(&shots, "login").await;
    fill(&browser, "key", "not-a-key").await;
    submit(&browser, "Log in").await;
    wait_for_text(&browser, "The API key is not valid.").await;

    // A reader sees the console but neither "sync now" nor the upload form.
    fill(&browser, "key", READER).await;
    submit(&browser, "Log in").await;
    wait_for_text(&browser, "page 2 of 2").await;
    assert_eq!(current_path(&browser).await, "/console/files?page=2");
    let text = browser.text().await;
    assert!(!text.contains("Upload"), "{text}");
    browser.driver.goto(go("/")).await.unwrap();
    let text = wait_for_text(&browser, "Completeness per locale").await;
    assert!(!text.contains("Sync now"), "{text}");
    submit(&browser, "Log out").await;
    wait_for_text(&browser, "API key").await;

    // The admin: overview with the example sheet, its bars and the sync button.
    fill(&browser, "key", ADMIN).await;
    submit(&browser, "Log in").await;
    let text = wait_for_text(&browser, "Completeness per locale").await;
    assert!(text.contains("First run"), "{text}");
    assert!(text.contains("example sheet"), "{text}");
    for locale in ["en_US", "pl_PL", "de_DE"] {
        assert!(text.contains(locale), "{locale}: {text}");
    }
    assert!(text.contains("6 / 7"), "de_DE lacks one text: {text}");
    browser.screenshot(&shots, "overview").await;
    submit(&browser, "Sync now").await;
    wait_for_text(&browser, "Sync done").await;

    // Translations: search, filter by locale and problems.
    click(&browser, By::LinkText("Translations")).await;
    wait_for_text(&browser, "key(s)").await;
    fill(&browser, "q", "zapisz").await;
    submit(&browser, "Search").await;
    let text = wait_for_text(&browser, "1 key(s)").await;
    assert!(text.contains("COMMON.BUTTONS.SAVE"), "{text}");
    browser.screenshot(&shots, "translations").await;
    fill(&browser, "q", "").await;
    choose(&browser, "locale", "de_DE").await;
    choose(&browser, "show", "missing texts").await;
    submit(&browser, "Search").await;
    let text = wait_for_text(&browser, "1 key(s)").await;
    assert!(text.contains("HOME.SUBTITLE"), "{text}");
    assert!(text.contains("missing"), "{text}");
    let missing = browser
        .driver
        .find_all(By::Css("td.missing"))
        .await
        .unwrap();
    assert_eq!(missing.len(), 1);

    // Preview: the exact /translations URL, its answer, and a download of it.
    click(&browser, By::LinkText("Preview")).await;
    fill(&browser, "filters", "pl_PL.COMMON").await;
    choose(&browser, "format", "android").await;
    submit(&browser, "Preview").await;
    let text = wait_for_text(&browser, "Zapisz").await;
    let url = "/translations?filters[]=pl_PL.COMMON&format=android";
    assert!(text.contains(url), "{text}");
    browser.screenshot(&shots, "preview").await;
    let shown = browser
        .driver
        .find(By::Tag("pre"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let served = reqwest::get(daemon.url(url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(shown.trim(), served.trim());
    click_in_place(&browser, By::LinkText("Download")).await;
    let saved = wait_for_file(&downloads, "translations.xml").await;
    assert_eq!(std::fs::read_to_string(saved).unwrap(), served);

    // A preview that selects nothing says why.
    fill(&browser, "filters", "xx_XX").await;
    submit(&browser, "Preview").await;
    wait_for_text(&browser, "xx_XX").await;

    // Files: paging, search, a record and its download through the signed URL.
    click(&browser, By::LinkText("Files")).await;
    let text = wait_for_text(&browser, "41 record(s), page 1 of 2").await;
    assert!(text.contains("Upload"), "{text}");
    assert_eq!(count(&browser, "tbody tr").await, 25);
    browser.screenshot(&shots, "files").await;
    click(&browser, By::LinkText("Next page")).await;
    wait_for_text(&browser, "page 2 of 2").await;
    assert_eq!(count(&browser, "tbody tr").await, 16);
    fill(&browser, "fileName", "hello").await;
    submit(&browser, "Find").await;
    wait_for_text(&browser, "1 record(s)").await;
    click(&browser, By::LinkText("hello.txt")).await;
    let text = wait_for_text(&browser, "a first file").await;
    assert!(text.contains("signed URL"), "{text}");
    browser.screenshot(&shots, "file").await;
    let link = href(&browser, By::Id("download")).await;
    assert!(link.contains("X-Amz-Signature="), "{link}");
    click_in_place(&browser, By::Id("download")).await;
    let saved = wait_for_file(&downloads, "hello.txt").await;
    assert_eq!(
        std::fs::read_to_string(saved).unwrap(),
        "hello from depot\n"
    );

    // Upload through the form.
    browser.driver.goto(go("/console/files")).await.unwrap();
    let upload = dir.path().join("notes.txt");
    std::fs::write(&upload, "uploaded from the console").unwrap();
    browser
        .driver
        .find(By::Id("file"))
        .await
        .unwrap()
        .send_keys(upload.display().to_string())
        .await
        .unwrap();
    fill(&browser, "description", "sent by the browser test").await;
    submit(&browser, "Upload").await;
    let text = wait_for_text(&browser, "sent by the browser test").await;
    assert!(text.contains("notes.txt"), "{text}");

    // A forged form (its CSRF token changed) is refused with a page that says why.
    browser.driver.goto(go("/")).await.unwrap();
    wait_for_text(&browser, "Sync now").await;
    browser
        .driver
        .execute(
            "document.querySelector('form[action=\"/console/sync\"] input[name=csrf]').value = 'forged';",
            vec![],
        )
        .await
        .unwrap();
    submit(&browser, "Sync now").await;
    let text = wait_for_text(&browser, "403").await;
    assert!(text.contains("CSRF token"), "{text}");
    browser.screenshot(&shots, "forged-form").await;

    // A phone-sized window: the same pages, laid out for it.
    browser
        .driver
        .set_window_rect(0, 0, 390, 844)
        .await
        .unwrap();
    browser.driver.goto(go("/")).await.unwrap();
    wait_for_text(&browser, "Completeness per locale").await;
    browser.screenshot(&shots, "overview-phone").await;
    browser
        .driver
        .goto(go("/console/translations?locale=pl_PL"))
        .await
        .unwrap();
    wait_for_text(&browser, "key(s)").await;
    browser.screenshot(&shots, "translations-phone").await;

    browser.quit().await;
    assert!(!daemon.log().contains("panicked"), "{}", daemon.log());
}

/// A Google sheet (the fake Google's second tab, so its gid is 1) with a finding of each
/// kind the checks make from texts: placeholders (D3), braces (C4), a plural entry that
/// lacks a form Polish needs (D5) and one without `other` (C8, D8).
fn sheet_with_findings() -> Vec<Vec<String>> {
    let rows: [&[&str]; 8] = [
        &[">>>", ">>>", "en", "pl"],
        &["APP"],
        &["", "GREETING", "Hello {name}", "Cześć {imie}"],
        &["", "BRACE", "Open { here", "Otwórz {{ tu"],
        &["", "ITEMS[one]", "One item", "{count} rzecz"],
        &["", "ITEMS[few]", "", "{count} rzeczy"],
        &["", "ITEMS[other]", "{count} items", "{count} rzeczy!"],
        &["", "LIST[one]", "One", "Jeden"],
    ];
    rows.iter()
        .map(|row| row.iter().map(|c| c.to_string()).collect())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn findings_plural_forms_and_versions_show_in_a_real_browser() {
    use support::fake_google::{FakeConfig, FakeGoogle};
    let fake = FakeGoogle::start(FakeConfig::with_rows(vec![vec!["unused".into()]])).await;
    fake.add_sheet("Translations", sheet_with_findings());
    let c = fake.config();
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("DEPOT_GOOGLE_TOKEN_URL", fake.token_url()),
        ("DEPOT_GOOGLE_SHEETS_URL", fake.sheets_url()),
        ("SERVICE_CLIENT_ID", c.client_id.clone()),
        ("SERVICE_CLIENT_SECRET", c.client_secret.clone()),
        ("SERVICE_REFRESH_TOKEN", c.refresh_token.clone()),
        ("SERVICE_SPREADSHEET_ID", c.spreadsheet_id.clone()),
        ("SERVICE_SPREADSHEET_NAME", "Translations".to_owned()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let daemon = Daemon::start(dir.path(), &[], &env).await;
    let health = support::eventually(Duration::from_secs(15), || async {
        let (_, health) = daemon.get_json("/health").await;
        (health["translations"]["loaded"] == true).then_some(health)
    })
    .await
    .unwrap_or_else(|| panic!("the sheet never loaded: {}", daemon.log()));
    let findings = health["translations"]["findings"]
        .as_array()
        .unwrap()
        .clone();
    let cells: Vec<&str> = findings
        .iter()
        .map(|f| f["cell"].as_str().unwrap())
        .collect();
    assert_eq!(cells, ["D3", "C4", "D5", "C8", "D8"], "{health}");

    let downloads = dir.path().join("downloads");
    let shots = screenshots();
    let browser = Browser::start(&downloads).await;
    browser.driver.goto(daemon.url("/")).await.unwrap();
    // The overview lists every finding /health lists: its cell, linked to that cell in
    // the tab read (gid 1), and its message.
    let text = wait_for_text(&browser, &format!("Findings ({})", findings.len())).await;
    let items = browser
        .driver
        .find_all(By::Css("#findings li"))
        .await
        .unwrap();
    assert_eq!(items.len(), findings.len(), "{text}");
    for (item, finding) in items.iter().zip(&findings) {
        let cell = finding["cell"].as_str().unwrap();
        let link = item.find(By::Tag("a")).await.unwrap();
        assert_eq!(link.text().await.unwrap(), cell);
        assert_eq!(
            link.attr("href").await.unwrap().unwrap(),
            format!(
                "https://docs.google.com/spreadsheets/d/{}/edit#gid=1&range={cell}",
                c.spreadsheet_id
            )
        );
        let shown = item.text().await.unwrap();
        let message = finding["message"].as_str().unwrap();
        assert_eq!(shown, format!("{cell}: {message}"));
    }
    for kind in [
        "placeholders differ",
        "unbalanced",
        "has no 'many'",
        "has no 'other' form",
    ] {
        assert!(text.contains(kind), "{kind}: {text}");
    }
    browser.screenshot(&shots, "overview-findings").await;

    // The translations page shows every form of a plural entry, each under its category.
    browser
        .driver
        .goto(daemon.url("/console/translations?q=rzecz"))
        .await
        .unwrap();
    wait_for_text(&browser, "1 key(s)").await;
    let pl = browser
        .driver
        .find(By::Css("td[data-label='pl'] dl.forms"))
        .await
        .unwrap();
    let mut forms = Vec::new();
    for (dt, dd) in pl
        .find_all(By::Tag("dt"))
        .await
        .unwrap()
        .iter()
        .zip(pl.find_all(By::Tag("dd")).await.unwrap())
    {
        forms.push((dt.text().await.unwrap(), dd.text().await.unwrap()));
    }
    let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
    assert_eq!(
        forms,
        [
            pair("one", "{count} rzecz"),
            pair("few", "{count} rzeczy"),
            pair("other", "{count} rzeczy!")
        ]
    );
    browser.screenshot(&shots, "translations-plural").await;

    // The versions page: the kept version, then its keys.
    click(&browser, By::LinkText("Versions")).await;
    wait_for_text(&browser, "Kept versions (1)").await;
    let version = health["translations"]["version"].as_str().unwrap();
    click(&browser, By::LinkText(&version[..12])).await;
    let text = wait_for_text(&browser, "Texts").await;
    assert!(text.contains(version), "{text}");
    // the first version added every key of each locale; LIST (no `other`) is in none
    assert!(
        text.contains("APP.GREETING, APP.BRACE, APP.ITEMS"),
        "{text}"
    );
    assert!(!text.contains("APP.LIST"), "{text}");
    browser.screenshot(&shots, "versions").await;
    browser.quit().await;
}

/// Waits for a finished download named `name` in `dir`.
async fn wait_for_file(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let partial = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .any(|e| e.file_name().to_string_lossy().ends_with(".crdownload"))
            })
            .unwrap_or(false);
        if path.is_file() && !partial {
            return path;
        }
        let present: Vec<String> = std::fs::read_dir(dir)
            .map(|e| {
                e.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        assert!(
            Instant::now() < deadline,
            "{name} was never downloaded into {}; it holds {present:?}",
            dir.display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
