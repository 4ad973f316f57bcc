//! The console's pages: one askama template per page (`templates/console/`), checked
//! against these structs when the crate compiles. Every page extends `base.html`, which
//! reads `chrome`.

use super::views::{LocaleKeys, LocaleProgress, Reported, Row, VersionRow};
use askama::Template;

/// What every page's frame shows: the title, the current page, who is logged in.
#[derive(Debug, Clone, Default)]
pub struct Chrome {
    pub title: &'static str,
    /// `overview`, `translations`, `preview`, `versions`, `files` or empty.
    pub page: &'static str,
    /// The session's CSRF token (for the logout form), when logged in.
    pub csrf: Option<String>,
    /// "admin" or "reader", when logged in.
    pub role: &'static str,
    /// Whether a login exists at all (some API or admin key is configured).
    pub keys_configured: bool,
    /// The example sheet is served (first run).
    pub example: bool,
    /// What the session's last form did ("Deleted …"), said once at the top of the page.
    pub notice: Option<String>,
}

#[derive(Template)]
#[template(path = "console/overview.html")]
pub struct Overview {
    pub chrome: Chrome,
    /// What "sync now" did, after it.
    pub notice: Option<String>,
    /// The sync of that notice failed (it shows as an error).
    pub sync_failed: bool,
    pub source: String,
    pub version: Option<String>,
    pub version_age: String,
    pub last_attempt: String,
    pub last_success: String,
    pub next_run: String,
    pub last_error: Option<String>,
    /// The CSRF token of the "sync now" form, shown to admins only.
    pub sync_csrf: Option<String>,
    /// Whether any admin key exists (else the page says how to make one).
    pub admin_keys_configured: bool,
    pub bars: Vec<LocaleProgress>,
    /// The findings of the checks and the sheet's warnings, the first `views::LISTED` of each.
    pub reported: Reported,
    /// How many of each are not listed.
    pub more_findings: usize,
    pub more_warnings: usize,
}

/// One option of a select: its value, its label, whether it is chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub value: String,
    pub label: String,
    pub selected: bool,
}

impl Choice {
    /// Options whose label is their value, `chosen` selected.
    pub fn list<S: AsRef<str>>(values: &[S], chosen: &str) -> Vec<Choice> {
        values
            .iter()
            .map(|v| Choice {
                value: v.as_ref().to_owned(),
                label: v.as_ref().to_owned(),
                selected: v.as_ref() == chosen,
            })
            .collect()
    }
}

#[derive(Template)]
#[template(path = "console/translations.html")]
pub struct Translations {
    pub chrome: Chrome,
    pub q: String,
    pub shows: Vec<Choice>,
    pub locales: Vec<Choice>,
    pub section: String,
    pub sections: Vec<String>,
    pub tags: Vec<Choice>,
    pub error: Option<String>,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    pub total: usize,
    pub page: usize,
    pub pages: usize,
    pub prev: Option<String>,
    pub next: Option<String>,
}

#[derive(Template)]
#[template(path = "console/preview.html")]
pub struct Preview {
    pub chrome: Chrome,
    pub filters: String,
    pub formats: Vec<Choice>,
    /// `placeholders=`: as configured (empty), keep or convert.
    pub placeholders: Vec<Choice>,
    /// `comments=true`.
    pub comments: bool,
    /// `keepLocale=true`.
    pub keep_locale: bool,
    pub error: Option<String>,
    /// The exact `/translations` URL of this preview.
    pub url: String,
    pub download_name: String,
    pub body: Option<String>,
    pub truncated: bool,
    pub shown_kb: usize,
    pub total_kb: usize,
}

#[derive(Template)]
#[template(path = "console/versions.html")]
pub struct Versions {
    pub chrome: Chrome,
    pub versions: Vec<VersionRow>,
    /// The version asked for with `?version=`, and what it changed.
    pub detail: Option<VersionDetail>,
    pub error: Option<String>,
}

/// One version's changed keys.
pub struct VersionDetail {
    pub version: String,
    pub previous: Option<String>,
    pub updated_at: String,
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    /// Per locale with a change; `None` when the version before is no longer kept.
    pub locales: Option<Vec<LocaleKeys>>,
    /// The JSON of the same (`/translations/versions/{version}`).
    pub json_url: String,
}

/// A file record as the list shows it.
pub struct FileRow {
    pub file_name: String,
    pub file_type: String,
    pub permission: &'static str,
    pub bucket: String,
    pub created_at: String,
    pub link: String,
    /// As people read it (`1.5 MiB`), a dash when unknown.
    pub size: String,
    /// For the delete form.
    pub key: String,
}

#[derive(Template)]
#[template(path = "console/files.html")]
pub struct Files {
    pub chrome: Chrome,
    pub file_name: String,
    pub permissions: Vec<Choice>,
    pub error: Option<String>,
    pub records: Vec<FileRow>,
    pub total: u64,
    pub page: u64,
    pub pages: u64,
    pub prev: Option<String>,
    pub next: Option<String>,
    /// The CSRF token of the upload form, shown to admins only.
    pub upload_csrf: Option<String>,
}

/// One record's details.
pub struct RecordView {
    pub file_name: String,
    pub key: String,
    pub description: String,
    pub bucket: String,
    pub file_type: String,
    pub permission: &'static str,
    pub status: i64,
    pub created_at: String,
    pub size: String,
    pub sha256: Option<String>,
}

#[derive(Template)]
#[template(path = "console/file.html")]
pub struct File {
    pub chrome: Chrome,
    pub record: RecordView,
    pub download_url: String,
    pub expires_secs: u64,
    /// The CSRF token of the delete form, shown to admins only.
    pub delete_csrf: Option<String>,
}

/// The question before a file is deleted (the first step of the delete form).
#[derive(Template)]
#[template(path = "console/delete.html")]
pub struct ConfirmDelete {
    pub chrome: Chrome,
    pub file_name: String,
    pub key: String,
    pub bucket: String,
    pub size: String,
    /// The CSRF token of the confirming form.
    pub csrf: String,
    /// Where Cancel leads: the page the Delete button was on.
    pub back: String,
}

#[derive(Template)]
#[template(path = "console/login.html")]
pub struct Login {
    pub chrome: Chrome,
    pub next: String,
    pub error: Option<String>,
}

#[derive(Template)]
#[template(path = "console/error.html")]
pub struct Error {
    pub chrome: Chrome,
    pub status: String,
    pub message: String,
}
