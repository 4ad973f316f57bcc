//! The console in a real browser (headless Chromium over WebDriver): log in, search, page,
//! preview, download, upload, refuse a forged form; the checks' findings with links to
//! their Google cells, a plural entry's forms and the kept versions; a screenshot of every
//! page is kept in `target/console-screenshots/`.
#![cfg(test)]

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

/// The body the daemon answers at `path` (without a session).
async fn body(daemon: &Daemon, path: &str) -> String {
    reqwest::get(daemon.url(path))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// The texts of everything `css` finds, in page order.
async fn texts_of(browser: &Browser, css: &str) -> Vec<String> {
    let mut texts = Vec::new();
    for found in browser.driver.find_all(By::Css(css)).await.unwrap() {
        texts.push(found.text().await.unwrap());
    }
    texts
}

/// The text of what `by` finds.
async fn text_of(browser: &Browser, by: By) -> String {
    browser.driver.find(by).await.unwrap().text().await.unwrap()
}

/// The preview's answer as `/translations` serves it at `url`, checked to be what the
/// page shows.
async fn shows_what_is_served(browser: &Browser, daemon: &Daemon, url: &str) -> String {
    let shown = text_of(browser, By::Tag("pre")).await;
    let served = body(daemon, url).await;
    assert_eq!(shown.trim(), served.trim());
    served
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
    let served = shows_what_is_served(&browser, &daemon, url).await;
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
    // the first version added every key of each locale, with its text; LIST (no `other`)
    // is in none
    for locale in ["en", "pl"] {
        let keys = texts_of(&browser, &format!("#added-{locale} td[data-label=Key]")).await;
        assert_eq!(keys, ["APP.GREETING", "APP.BRACE", "APP.ITEMS"], "{locale}");
    }
    assert!(text.contains("Cześć {imie}"), "{text}");
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

/// A checkout sheet with an accented text (`Zapłać`), a comment, a placeholder and a key
/// and text long enough to push a phone's page sideways if anything let them.
const CHECKOUT_SHEET: &str = "###,>>>,>>>,$$$,en,pl,de
,CHECKOUT,,,,,
checkout,,PAY,The pay button,Pay now,Zapłać teraz,Jetzt bezahlen
checkout,,TOTAL,,Total: {amount},Razem: {amount},Summe: {amount}
,,A_VERY_LONG_KEY_NAME_THAT_GOES_ON_WITHOUT_ANY_BREAK_FOR_NARROW_SCREENS,,https://example.com/help/checkout/payments/why-was-my-card-declined-and-what-can-i-do,https://example.com/pl/pomoc/platnosci/dlaczego-moja-karta-zostala-odrzucona,
";

/// The same sheet a sync later: PAY reworded in pl, TOTAL gone from de, THANKS new.
const CHECKOUT_SHEET_V2: &str = "###,>>>,>>>,$$$,en,pl,de
,CHECKOUT,,,,,
checkout,,PAY,The pay button,Pay now,Zapłać kartą,Jetzt bezahlen
checkout,,TOTAL,,Total: {amount},Razem: {amount},
checkout,,THANKS,,Thank you,Dziękujemy,Danke
,,A_VERY_LONG_KEY_NAME_THAT_GOES_ON_WITHOUT_ANY_BREAK_FOR_NARROW_SCREENS,,https://example.com/help/checkout/payments/why-was-my-card-declined-and-what-can-i-do,https://example.com/pl/pomoc/platnosci/dlaczego-moja-karta-zostala-odrzucona,
";

/// A daemon serving `CHECKOUT_SHEET` (synced only by "Sync now") with reader and admin
/// keys, a catalogue with a long file name and one real file, `photo.png`: its record.
async fn checkout_console(dir: &Path) -> (Daemon, serde_json::Value) {
    std::fs::write(dir.join("sheet.csv"), CHECKOUT_SHEET).unwrap();
    let long = "quarterly-report-with-a-very-long-file-name-that-has-no-spaces-at-all-final-v2.pdf";
    let lines: String = (1..=3)
        .map(|i| {
            format!(
                "{{\"fileName\":\"{i}-{long}\",\"description\":\"report {i}\",\"bucket\":\"reports\",\"status\":1,\"fileType\":\"application/pdf\",\"permission\":\"public\",\"key\":\"reports/2026/{i}/{long}\",\"createdAt\":\"2026-01-0{i}T10:00:00.000Z\"}}\n"
            )
        })
        .collect();
    std::fs::write(dir.join("records.jsonl"), lines).unwrap();
    support::run_ok(dir, &["files", "import", "records.jsonl"], [("X", "")]);
    std::fs::write(dir.join("photo.png"), b"\x89PNG not really").unwrap();
    let out = support::run_ok(
        dir,
        &["files", "add", "photo.png", "--description", "a photo"],
        [("X", "")],
    );
    let photo: serde_json::Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    let daemon = Daemon::start(
        dir,
        &[
            "--set",
            "producer.source=sheet.csv",
            "--set",
            "producer.interval_secs=86400",
        ],
        &[("DEPOT_API_KEYS", READER), ("DEPOT_ADMIN_KEYS", ADMIN)],
    )
    .await;
    support::eventually(Duration::from_secs(15), || async {
        let (_, health) = daemon.get_json("/health").await;
        (health["translations"]["loaded"] == true).then_some(())
    })
    .await
    .unwrap_or_else(|| panic!("the sheet never loaded: {}", daemon.log()));
    (daemon, photo)
}

async fn log_in(browser: &Browser, daemon: &Daemon, key: &str) {
    browser
        .driver
        .goto(daemon.url("/console/login"))
        .await
        .unwrap();
    fill(browser, "key", key).await;
    submit(browser, "Log in").await;
    wait_for_text(browser, "Completeness per locale").await;
}

/// What is wrong with the layout of the page shown: a horizontal scroll (with the elements
/// that reach past the right edge), and any error or notice box that overlaps another
/// element (its bounding box meets one that is neither inside it nor around it) or is cut
/// off (past the window's edge, or by an ancestor that hides overflow).
const LAYOUT_PROBLEMS: &str = r#"
const root = document.documentElement;
const width = root.clientWidth;
const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
  (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '') +
  ' "' + (e.textContent || '').trim().slice(0, 40) + '"';
const problems = [];
if (root.scrollWidth > width) {
  const past = [...document.body.querySelectorAll('*')]
    .filter(e => e.getBoundingClientRect().right > width + 0.5)
    .slice(-5).map(name);
  problems.push('horizontal scroll: scrollWidth ' + root.scrollWidth + ' > clientWidth ' + width + '; past the edge: ' + past.join(' | '));
}
const boxes = [...document.querySelectorAll('.error, .notice')];
for (const box of boxes) {
  const r = box.getBoundingClientRect();
  if (r.left < -0.5 || r.right > width + 0.5) {
    problems.push('cut off by the window: ' + name(box) + ' spans ' + r.left + '..' + r.right + ' of ' + width);
  }
  for (let a = box.parentElement; a && a !== root; a = a.parentElement) {
    const style = getComputedStyle(a);
    if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
    const o = a.getBoundingClientRect();
    if (r.left < o.left - 0.5 || r.right > o.right + 0.5 || r.top < o.top - 0.5 || r.bottom > o.bottom + 0.5) {
      problems.push('cut off by ' + name(a) + ': ' + name(box));
    }
  }
  if (box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1) {
    problems.push('its text overflows: ' + name(box));
  }
  for (const other of document.body.querySelectorAll('*')) {
    if (other === box || other.contains(box) || box.contains(other)) continue;
    const o = other.getBoundingClientRect();
    if (o.width === 0 || o.height === 0) continue;
    const dx = Math.min(r.right, o.right) - Math.max(r.left, o.left);
    const dy = Math.min(r.bottom, o.bottom) - Math.max(r.top, o.top);
    if (dx > 0.5 && dy > 0.5) {
      problems.push('overlap: ' + name(box) + ' meets ' + name(other) + ' by ' + dx.toFixed(1) + ' x ' + dy.toFixed(1) + ' px');
    }
  }
}
return {problems: problems, boxes: boxes.length};
"#;

/// Opens the record page at `path` and presses its Delete button (which asks first).
async fn ask_to_delete(browser: &Browser, daemon: &Daemon, path: &str) {
    browser.driver.goto(daemon.url(path)).await.unwrap();
    submit(browser, "Delete this file").await;
}

/// Makes the window `width` CSS pixels wide (and 900 high).
async fn at_width(browser: &Browser, width: u32) {
    browser
        .driver
        .set_window_rect(0, 0, width, 900)
        .await
        .unwrap();
}

/// Checks the page shown for `LAYOUT_PROBLEMS` and keeps its screenshot (the whole page)
/// as `<name>-<width>.png`; how many error and notice boxes it has, and each problem
/// found, named by the page and width.
async fn fits(browser: &Browser, name: &str, width: u32) -> (usize, Vec<String>) {
    let answer = browser
        .driver
        .execute(LAYOUT_PROBLEMS, vec![])
        .await
        .unwrap()
        .json()
        .clone();
    let shots = screenshots();
    std::fs::create_dir_all(&shots).unwrap();
    // the whole page, not only what the window shows: the window grows to its height
    // (the window is taller than the page it shows by its frame)
    let height = browser
        .driver
        .execute(
            "return document.documentElement.scrollHeight + window.outerHeight - window.innerHeight;",
            vec![],
        )
        .await
        .unwrap()
        .json()
        .as_u64()
        .unwrap();
    let tall = u32::try_from(height.clamp(600, 8000)).unwrap();
    browser
        .driver
        .set_window_rect(0, 0, width, tall)
        .await
        .unwrap();
    // the window takes its new size a moment later
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        let shown = browser
            .driver
            .execute("return window.outerHeight;", vec![])
            .await
            .unwrap()
            .json()
            .as_u64()
            .unwrap_or_default();
        if shown == u64::from(tall) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    browser.screenshot(&shots, &format!("{name}-{width}")).await;
    at_width(browser, width).await;
    let problems = (answer["problems"].as_array().unwrap().iter())
        .map(|p| format!("{name} at {width} px: {}", p.as_str().unwrap()))
        .collect();
    let boxes = usize::try_from(answer["boxes"].as_u64().unwrap()).unwrap();
    (boxes, problems)
}

/// Every page of the console, and its error states, at a desktop's and a phone's width:
/// no horizontal scroll, no error box over another element or cut off, a screenshot of
/// each kept (`target/console-screenshots/<page>-<width>.png`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_fits_1280_and_390_px_and_no_error_box_overlaps() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, photo) = checkout_console(dir.path()).await;
    let key = photo["key"].as_str().unwrap().to_owned();
    let browser = Browser::start(&dir.path().join("downloads")).await;
    log_in(&browser, &daemon, ADMIN).await;
    // a second version, so that a version's page has changed texts to show
    std::fs::write(dir.path().join("sheet.csv"), CHECKOUT_SHEET_V2).unwrap();
    submit(&browser, "Sync now").await;
    wait_for_text(&browser, "Sync done").await;
    let version = daemon.get_json("/health").await.1["translations"]["version"]
        .as_str()
        .unwrap()
        .to_owned();
    let file = |k: &str| format!("/console/file?{}", support::query(&[("key", k)]));
    let long_key = "reports/2026/1/quarterly-report-with-a-very-long-file-name-that-has-no-spaces-at-all-final-v2.pdf";
    // (screenshot name, path, a text the page shows, error boxes it has)
    let pages: Vec<(&str, String, &str, usize)> = vec![
        ("overview", "/".into(), "Completeness per locale", 0),
        (
            "translations",
            "/console/translations?q=zaplac".into(),
            "1 key(s)",
            0,
        ),
        (
            "translations-all",
            "/console/translations".into(),
            "key(s)",
            0,
        ),
        (
            "preview",
            "/console/preview?filters=pl&format=android&placeholders=convert&comments=true".into(),
            "Answer",
            0,
        ),
        ("files", "/console/files".into(), "record(s)", 0),
        ("file", file(&key), "a photo", 0),
        ("file-long-name", file(long_key), "report 1", 0),
        (
            "versions",
            "/console/versions".into(),
            "Kept versions (2)",
            0,
        ),
        (
            "version-detail",
            format!("/console/versions?version={version}"),
            "Zapłać kartą",
            0,
        ),
        (
            "error-translations",
            "/console/translations?locale=xx_XX".into(),
            "is not in the sheet",
            1,
        ),
        (
            "error-preview",
            "/console/preview?filters=xx_XX.CHECKOUT".into(),
            "xx_XX",
            1,
        ),
        (
            "error-versions",
            "/console/versions?version=0123456789abcdef".into(),
            "Kept versions",
            1,
        ),
        ("error-page", file(&"no-such-key/".repeat(12)), "404", 1),
    ];
    // every problem of every page, said together at the end
    let mut problems = Vec::new();
    let mut check = |name: &str, (boxes, found): (usize, Vec<String>), expected: usize| {
        assert_eq!(boxes, expected, "error and notice boxes on {name}");
        problems.extend(found);
    };
    for width in [1280, 390] {
        at_width(&browser, width).await;
        for (name, path, shows, errors) in &pages {
            browser.driver.goto(daemon.url(path)).await.unwrap();
            wait_for_text(&browser, shows).await;
            check(name, fits(&browser, name, width).await, *errors);
        }
        // the question before a delete
        ask_to_delete(&browser, &daemon, &file(long_key)).await;
        wait_for_text(&browser, "cannot be undone").await;
        check(
            "delete-confirm",
            fits(&browser, "delete-confirm", width).await,
            0,
        );
        click(&browser, By::Id("cancel-delete")).await;
        wait_for_text(&browser, "report 1").await;
    }
    // Deleted: the notice on the files page.
    ask_to_delete(&browser, &daemon, &file(long_key)).await;
    click(&browser, By::Id("confirm-delete")).await;
    wait_for_text(&browser, "Deleted 1-quarterly").await;
    for width in [1280, 390] {
        at_width(&browser, width).await;
        check(
            "files-deleted",
            fits(&browser, "files-deleted", width).await,
            1,
        );
    }

    // A sync that fails: its error on the overview, in the notice and the sync facts.
    std::fs::write(
        dir.path().join("sheet.csv"),
        "no header row here, only text that goes on and on: a_path/without/any/break/at/all/that/a/phone/would/have/to/scroll/sideways/to/read\n",
    )
    .unwrap();
    browser.driver.goto(daemon.url("/")).await.unwrap();
    submit(&browser, "Sync now").await;
    wait_for_text(&browser, "Sync failed").await;
    let failed = current_path(&browser).await;
    for width in [1280, 390] {
        at_width(&browser, width).await;
        browser.driver.goto(daemon.url(&failed)).await.unwrap();
        wait_for_text(&browser, "Last success").await;
        // the notice says the sync failed; the facts hold the error in a box of its own
        check(
            "error-overview-sync",
            fits(&browser, "error-overview-sync", width).await,
            2,
        );
    }
    browser.quit().await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(!daemon.log().contains("panicked"), "{}", daemon.log());
}

/// Delete asks first, from the list and from a record's page: Cancel leaves the record, the
/// confirming button deletes it and the list says what it deleted. The Delete buttons are
/// not the blue of the primary buttons.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_asks_first_and_then_says_what_it_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, photo) = checkout_console(dir.path()).await;
    let key = photo["key"].as_str().unwrap().to_owned();
    let record_exists = || async {
        let response = reqwest::Client::new()
            .get(daemon.url(&format!("/file?{}", support::query(&[("key", &key)]))))
            .bearer_auth(ADMIN)
            .send()
            .await
            .unwrap();
        match response.status().as_u16() {
            200 => true,
            404 => false,
            other => panic!("GET /file answered {other}"),
        }
    };
    let browser = Browser::start(&dir.path().join("downloads")).await;
    log_in(&browser, &daemon, ADMIN).await;
    browser
        .driver
        .goto(daemon.url("/console/files"))
        .await
        .unwrap();
    wait_for_text(&browser, "photo.png").await;
    let delete = By::Css("button[aria-label='Delete photo.png']");
    let colours = browser
        .driver
        .execute(
            "const b = document.querySelector(\"button[aria-label='Delete photo.png']\"); \
             const p = document.querySelector(\"form[role=search] button\"); \
             return [getComputedStyle(b).backgroundColor, getComputedStyle(b).color, getComputedStyle(p).backgroundColor];",
            vec![],
        )
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(
        colours,
        serde_json::json!(["rgb(255, 255, 255)", "rgb(180, 35, 24)", "rgb(11, 87, 208)"]),
        "a Delete button is white with red text, unlike the primary blue"
    );

    // From the list: asked, cancelled, still there.
    click(&browser, delete.clone()).await;
    let text = wait_for_text(&browser, "Delete photo.png?").await;
    assert!(text.contains(&key), "{text}");
    assert!(text.contains("cannot be undone"), "{text}");
    assert!(record_exists().await, "asking deletes nothing");
    click(&browser, By::LinkText("Cancel")).await;
    wait_for_text(&browser, "record(s)").await;
    assert_eq!(current_path(&browser).await, "/console/files");
    assert_eq!(
        count(&browser, "button[aria-label='Delete photo.png']").await,
        1
    );
    assert!(record_exists().await);

    // From the record's page: Cancel goes back to it.
    click(&browser, By::LinkText("photo.png")).await;
    wait_for_text(&browser, "a photo").await;
    submit(&browser, "Delete this file").await;
    wait_for_text(&browser, "Delete photo.png?").await;
    click(&browser, By::LinkText("Cancel")).await;
    wait_for_text(&browser, "a photo").await;
    assert_eq!(
        current_path(&browser).await,
        format!("/console/file?{}", support::query(&[("key", &key)]))
    );
    assert!(record_exists().await);

    // Confirmed: gone, and the list says what was deleted, once.
    submit(&browser, "Delete this file").await;
    wait_for_text(&browser, "Delete photo.png?").await;
    browser.screenshot(&screenshots(), "delete-confirm").await;
    submit(&browser, "Delete photo.png").await;
    let text = wait_for_text(&browser, "Deleted photo.png").await;
    assert_eq!(current_path(&browser).await, "/console/files");
    let notice = text_of(&browser, By::Id("notice")).await;
    assert_eq!(notice, format!("Deleted photo.png (key {key})."));
    assert!(!record_exists().await, "{text}");
    assert_eq!(
        count(&browser, "button[aria-label='Delete photo.png']").await,
        0
    );
    browser.screenshot(&screenshots(), "delete-done").await;
    browser.driver.refresh().await.unwrap();
    let text = wait_for_text(&browser, "record(s)").await;
    assert!(!text.contains("Deleted photo.png"), "said once: {text}");
    browser.quit().await;
}

/// The search finds `Zapłać` by `zaplac` and `ZAPLAC` and marks it; the preview's
/// placeholders, comments and keepLocale controls change its `/translations` URL, its
/// answer and its download; a version's page shows each changed text before and after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_ignores_accents_preview_options_and_old_to_new_texts_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, _) = checkout_console(dir.path()).await;
    let downloads = dir.path().join("downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    let browser = Browser::start(&downloads).await;
    log_in(&browser, &daemon, READER).await;

    // Search: case and accents aside, on both sides.
    click(&browser, By::LinkText("Translations")).await;
    for q in ["zaplac", "ZAPLAC", "Zapłać"] {
        fill(&browser, "q", q).await;
        submit(&browser, "Search").await;
        let text = wait_for_text(&browser, "1 key(s)").await;
        assert!(text.contains("CHECKOUT.PAY"), "{q}: {text}");
        assert_eq!(texts_of(&browser, "mark").await, ["Zapłać"], "{q}");
    }
    browser
        .screenshot(&screenshots(), "translations-accents")
        .await;

    // Preview: each control changes the URL shown, the answer and the download.
    click(&browser, By::LinkText("Preview")).await;
    fill(&browser, "filters", "pl.CHECKOUT").await;
    choose(&browser, "format", "android").await;
    submit(&browser, "Preview").await;
    let plain_url = "/translations?filters[]=pl.CHECKOUT&format=android";
    let text = wait_for_text(&browser, plain_url).await;
    assert!(text.contains("Razem: {amount}"), "{text}");
    choose(&browser, "placeholders", "convert").await;
    click_in_place(&browser, By::Id("comments")).await;
    click_in_place(&browser, By::Id("keepLocale")).await;
    submit(&browser, "Preview").await;
    let url = "/translations?filters[]=pl.CHECKOUT&format=android&placeholders=convert&comments=true&keepLocale=true";
    wait_for_text(&browser, url).await;
    assert_eq!(text_of(&browser, By::Id("url")).await, url);
    let served = shows_what_is_served(&browser, &daemon, url).await;
    assert!(served.contains("Razem: %1$s"), "converted: {served}");
    assert!(served.contains("The pay button"), "the comment: {served}");
    assert!(
        served.contains("name=\"pl_checkout_pay\""),
        "keepLocale: {served}"
    );
    assert_ne!(body(&daemon, plain_url).await, served);
    // the controls keep their state, and the download is the answer shown
    assert!(
        browser
            .driver
            .find(By::Id("comments"))
            .await
            .unwrap()
            .is_selected()
            .await
            .unwrap()
    );
    assert_eq!(href(&browser, By::LinkText("Download")).await, url);
    click_in_place(&browser, By::LinkText("Download")).await;
    let saved = wait_for_file(&downloads, "translations.xml").await;
    assert_eq!(std::fs::read_to_string(saved).unwrap(), served);
    browser.screenshot(&screenshots(), "preview-options").await;

    // A version's page: each changed text before and after, per locale.
    std::fs::write(dir.path().join("sheet.csv"), CHECKOUT_SHEET_V2).unwrap();
    browser.driver.goto(daemon.url("/")).await.unwrap();
    log_in(&browser, &daemon, ADMIN).await;
    submit(&browser, "Sync now").await;
    wait_for_text(&browser, "Sync done").await;
    click(&browser, By::LinkText("Versions")).await;
    wait_for_text(&browser, "Kept versions (2)").await;
    let rows = browser
        .driver
        .find_all(By::Css("td[data-label=Version] a"))
        .await
        .unwrap();
    rows[0].click().await.unwrap();
    wait_for_text(&browser, "Before it").await;
    // a table of changes, a row a line: key | before | after
    let table = |id: &'static str| {
        let browser = &browser;
        async move {
            let cells = texts_of(browser, &format!("#{id} tbody td")).await;
            (cells.chunks(3))
                .map(|row| row.join(" | "))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        table("changed-pl").await,
        ["CHECKOUT.PAY | Zapłać teraz | Zapłać kartą"]
    );
    assert_eq!(
        table("added-pl").await,
        ["CHECKOUT.THANKS | (none) | Dziękujemy"]
    );
    assert_eq!(
        table("removed-de").await,
        ["CHECKOUT.TOTAL | Summe: {amount} | (none)"]
    );
    assert_eq!(
        count(&browser, "table.changes").await,
        5,
        "pl: changed, added; en: added; de: added, removed"
    );
    browser.screenshot(&screenshots(), "version-old-new").await;
    browser.quit().await;
}
