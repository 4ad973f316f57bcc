//! The console's requests (SPEC §10): HTML pages for translators and operators, rendered by the server
//! from compile-time checked templates, readable without JavaScript. With API keys
//! configured it asks for one (a session cookie); forms that change something carry the
//! session's CSRF token and must come from the console's own pages (`guard`); admin actions
//! need an admin session; wrong keys are throttled per client address (`throttle`).

mod channels;
pub mod guard;

use crate::access::Access;
use crate::config::settings::SheetSource;
use crate::console::{pages, session, throttle, views};
use crate::formats::Format;
use crate::http::ApiError;
use crate::http::client::ClientAddr;
use crate::http::error::ErrorCode;
use crate::http::query;
use crate::http::routes::{self as table, Route, on};
use crate::http::state::AppState;
use crate::translations::query::TranslationQuery;
use askama::Template;
use pages::Chrome;
use session::{Session, Sessions};
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use warp::filters::BoxedFilter;
use warp::http::{HeaderValue, StatusCode, header};
use warp::reply::Response;
use warp::{Filter, Rejection};

/// The most of a preview's answer shown on the page (the download has it all).
const PREVIEW_BYTES: usize = 64 * 1024;
/// Largest url-encoded form body (login, logout, sync).
const FORM_LIMIT: u64 = 16 * 1024;

/// The console's state: the daemon's, and the sessions and login throttle of this process.
pub struct Console {
    state: Arc<AppState>,
    sessions: Sessions,
    throttle: throttle::LoginThrottle<crate::http::client::ClientKey>,
    /// The folded texts the translations search looks through, made once per version.
    search_index: Arc<crate::console::SearchIndex>,
}

/// Who is looking: the session, if any, what it may do, and the address of this machine
/// the request came in on (for the links made for it).
#[derive(Clone)]
struct Viewer {
    session: Option<Session>,
    access: Access,
    arrived_on: Option<std::net::SocketAddr>,
    /// What the last form of the session did, said once on the page after it.
    notice: Option<String>,
}

impl Console {
    pub fn new(state: Arc<AppState>) -> Console {
        Console {
            state,
            sessions: Sessions::default(),
            throttle: throttle::LoginThrottle::default(),
            search_index: Arc::default(),
        }
    }

    fn viewer(&self, cookie: Option<&str>, arrived_on: Option<std::net::SocketAddr>) -> Viewer {
        let settings = self.state.config.settings();
        // Checked against the keys in force at every request: a removed key's session ends.
        let session = self.sessions.find(cookie, &settings.auth);
        let access = match &session {
            Some(s) => s.access,
            None if settings.auth.api_keys.is_empty() => Access::Reader,
            None => Access::Anonymous,
        };
        Viewer {
            session,
            access,
            arrived_on,
            notice: None,
        }
    }

    fn chrome(&self, viewer: &Viewer, title: &'static str, page: &'static str) -> Chrome {
        let auth = &self.state.config.settings().auth;
        Chrome {
            title,
            page,
            csrf: viewer.session.as_ref().map(|s| s.csrf.clone()),
            role: match viewer.access {
                Access::Admin => "admin",
                _ => "reader",
            },
            keys_configured: !auth.api_keys.is_empty() || !auth.admin_keys.is_empty(),
            example: self.state.producer.source_kind() == "example",
            notice: viewer.notice.clone(),
        }
    }

    /// The page of an error, with the status `ApiError` picks.
    fn error_page(&self, viewer: &Viewer, error: ApiError) -> Response {
        let status = error.status();
        let page = pages::Error {
            chrome: self.chrome(viewer, "Error", ""),
            status: format!(
                "{} {}",
                status.as_u16(),
                status.canonical_reason().unwrap_or("Error")
            ),
            message: error.public_message(),
        };
        let mut response = html(status, &page).unwrap_or_else(ApiError::into_response);
        error.add_retry_after(&mut response);
        response
    }

    async fn overview(
        &self,
        viewer: &Viewer,
        params: &[(String, String)],
    ) -> Result<Response, ApiError> {
        let synced = !only(params, &["synced"])?.is_empty();
        let settings = self.state.config.settings();
        let status = self.state.producer.status();
        let live = self.state.translations.current();
        let now = chrono::Utc::now();
        let when = |t: Option<chrono::DateTime<chrono::Utc>>| {
            t.map_or_else(
                || "never".to_owned(),
                |t| {
                    format!(
                        "{} ({})",
                        crate::time::iso_millis(t),
                        views::age((now - t).num_seconds())
                    )
                },
            )
        };
        let chosen = self.state.producer.chosen_source(&settings);
        let source_label = match &chosen {
            SheetSource::Example => crate::sheets::example::EXAMPLE_NAME.to_owned(),
            SheetSource::LocalFile(path) => format!("local file {}", path.display()),
            SheetSource::Url(url) => format!("CSV at {}", crate::redact::url(url)),
            SheetSource::Google => {
                format!("Google spreadsheet {}", settings.service.spreadsheet_id)
            }
        };
        let notice = synced.then(|| match &status.last_error {
            None => {
                "Sync done: the sheet was read and the current version is shown below.".to_owned()
            }
            Some(e) => format!("Sync failed: {e}"),
        });
        let link = views::SheetLink::new(
            &chosen,
            &settings.service.spreadsheet_id,
            self.state.producer.sheet_gid(),
        )
        .with_tabs(self.state.producer.tab_gids());
        let (bars, reported) = match &live {
            Some(live) => crate::console::overview(live.clone(), link)
                .await
                .map_err(|e| ApiError::Internal(e.to_string()))?,
            None => (Vec::new(), views::Reported::default()),
        };
        let page = pages::Overview {
            chrome: self.chrome(viewer, "Overview", "overview"),
            notice,
            sync_failed: status.last_error.is_some(),
            source: source_label,
            version: live.as_ref().map(|l| l.stored.version.clone()),
            version_age: live
                .as_ref()
                .map(|l| views::age((now - l.stored.updated_at).num_seconds()))
                .unwrap_or_default(),
            last_attempt: when(status.last_sync_at),
            last_success: when(status.last_success_at),
            next_run: status
                .next_sync_at
                .map_or_else(|| "not scheduled".to_owned(), crate::time::iso_millis),
            last_error: status.last_error,
            sync_csrf: admin_csrf(viewer),
            admin_keys_configured: !settings.auth.admin_keys.is_empty(),
            bars,
            more_findings: reported.finding_count - reported.findings.len(),
            more_warnings: reported.warning_count - reported.warnings.len(),
            reported,
        };
        html(StatusCode::OK, &page)
    }

    async fn translations(
        &self,
        viewer: &Viewer,
        params: &[(String, String)],
    ) -> Result<Response, ApiError> {
        let search =
            views::Search::from_params(params).map_err(|e| ApiError::BadRequest(e.to_string()))?;
        let live = self.state.translations.serving()?;
        let crate::console::Searched {
            found,
            sections,
            tags,
        } = crate::console::search(live.clone(), self.search_index.clone(), search.clone())
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        let doc = &live.stored.document;
        let (found, error, status) = match found {
            Ok(found) => (found, None, StatusCode::OK),
            Err(e) => (
                views::Found {
                    rows: Vec::new(),
                    total: 0,
                    pages: 1,
                },
                Some(e.to_string()),
                StatusCode::BAD_REQUEST,
            ),
        };
        let columns = found
            .rows
            .first()
            .map(|r| r.cells.iter().map(|c| c.locale.clone()).collect())
            .unwrap_or_else(|| doc.locales.clone());
        let link = |page: usize| {
            let mut pairs = vec![
                ("q", search.text.clone()),
                ("locale", search.locale.clone().unwrap_or_default()),
                ("section", search.section.clone().unwrap_or_default()),
                ("tag", search.tag.clone().unwrap_or_default()),
                ("show", search.problems.name().to_owned()),
            ];
            pairs.retain(|(_, v)| !v.is_empty() && v != "all");
            pairs.push(("page", page.to_string()));
            format!(
                "{}?{}",
                table::CONSOLE_TRANSLATIONS.path,
                encode_pairs(&pairs)
            )
        };
        let page = pages::Translations {
            chrome: self.chrome(viewer, "Translations", "translations"),
            q: search.text.clone(),
            shows: [
                ("all", "every key"),
                ("missing", "missing texts"),
                ("placeholders", "placeholder mismatches"),
            ]
            .into_iter()
            .map(|(value, label)| pages::Choice {
                value: value.to_owned(),
                label: label.to_owned(),
                selected: value == search.problems.name(),
            })
            .collect(),
            locales: pages::Choice::list(
                &doc.locales,
                search.locale.as_deref().unwrap_or_default(),
            ),
            section: search.section.clone().unwrap_or_default(),
            sections,
            tags: pages::Choice::list(&tags, search.tag.as_deref().unwrap_or_default()),
            error,
            columns,
            rows: found.rows,
            total: found.total,
            page: search.page,
            pages: found.pages,
            prev: (search.page > 1).then(|| link(search.page - 1)),
            next: (search.page < found.pages).then(|| link(search.page + 1)),
        };
        html(status, &page)
    }

    async fn preview(
        &self,
        viewer: &Viewer,
        params: &[(String, String)],
    ) -> Result<Response, ApiError> {
        only(
            params,
            &[
                "filters",
                "format",
                "placeholders",
                "comments",
                "keepLocale",
            ],
        )?;
        let filters: Vec<String> = field(params, "filters")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(str::to_owned)
            .collect();
        let format = field(params, "format")
            .filter(|f| !f.is_empty())
            .unwrap_or("json")
            .to_owned();
        let mut pairs: Vec<(String, String)> = filters
            .iter()
            .map(|f| ("filters[]".to_owned(), f.clone()))
            .collect();
        pairs.push(("format".to_owned(), format.clone()));
        // The options as `/translations` takes them: an empty value (the form's "as
        // configured", an unticked box) or `false` adds nothing to the URL; anything else
        // goes as given, and `/translations` says what it allows.
        let placeholders = field(params, "placeholders").unwrap_or_default().trim();
        for name in ["placeholders", "comments", "keepLocale"] {
            let value = field(params, name).unwrap_or_default().trim();
            if !value.is_empty() && value != "false" {
                pairs.push((name.to_owned(), value.to_owned()));
            }
        }
        let ticked = |name: &str| field(params, name).is_some_and(|v| v.trim() == "true");
        let configured = self.state.config.settings().translations.placeholders;
        let url = format!("{}?{}", table::TRANSLATIONS.path, encode_pairs(&pairs));
        let answer = async {
            let query = TranslationQuery::from_params(&pairs)?;
            let live = self.state.translations.serving()?;
            let rendition = self
                .state
                .translations
                .rendition(live, query, crate::compression::Encoding::Identity)
                .await?;
            Ok::<_, ApiError>(rendition.identity.clone())
        }
        .await;
        let (body, error, status) = match answer {
            Ok(bytes) => (Some(bytes), None, StatusCode::OK),
            Err(e) => (None, Some(e.public_message()), e.status()),
        };
        let total = body.as_ref().map_or(0, |b| b.len());
        let shown =
            body.map(|b| String::from_utf8_lossy(&b[..b.len().min(PREVIEW_BYTES)]).into_owned());
        let extension = format.parse::<Format>().map_or("txt", |f| f.extension());
        let page = pages::Preview {
            chrome: self.chrome(viewer, "Preview", "preview"),
            filters: filters.join(", "),
            formats: pages::Choice::list(
                &Format::ALL.iter().map(|f| f.name()).collect::<Vec<_>>(),
                &format,
            ),
            error,
            url,
            placeholders: std::iter::once(pages::Choice {
                value: String::new(),
                label: format!("as configured ({})", configured.name()),
                selected: placeholders.is_empty(),
            })
            .chain(pages::Choice::list(
                &crate::formats::PlaceholderMode::NAMES,
                placeholders,
            ))
            .collect(),
            comments: ticked("comments"),
            keep_locale: ticked("keepLocale"),
            download_name: format!("translations.{extension}"),
            body: shown,
            truncated: total > PREVIEW_BYTES,
            shown_kb: PREVIEW_BYTES / 1024,
            total_kb: total.div_ceil(1024),
        };
        html(status, &page)
    }

    async fn versions(
        &self,
        viewer: &Viewer,
        params: &[(String, String)],
    ) -> Result<Response, ApiError> {
        only(params, &["version"])?;
        let asked = field(params, "version")
            .map(str::trim)
            .filter(|v| !v.is_empty());
        let service = &self.state.translations;
        let history = service.versions().await;
        let changes = match asked {
            Some(asked) => Some(service.text_changes(asked, views::KEYS_LISTED).await),
            None => None,
        };
        let (detail, error, status) = match changes.transpose() {
            Ok(changes) => (changes, None, StatusCode::OK),
            Err(e) => {
                let e = ApiError::from(e);
                (None, Some(e.public_message()), e.status())
            }
        };
        let detail = detail.map(|c| pages::VersionDetail {
            locales: views::version_keys(&c),
            json_url: format!(
                "{}/{}",
                table::TRANSLATIONS_VERSIONS.path,
                c.summary.version
            ),
            version: c.summary.version,
            previous: c.summary.previous_version,
            updated_at: crate::time::iso_millis(c.summary.updated_at),
            added: c.summary.added,
            removed: c.summary.removed,
            changed: c.summary.changed,
        });
        let page = pages::Versions {
            chrome: self.chrome(viewer, "Versions", "versions"),
            versions: views::version_rows(&history?),
            detail,
            error,
        };
        html(status, &page)
    }

    async fn files(
        &self,
        viewer: &Viewer,
        params: &[(String, String)],
    ) -> Result<Response, ApiError> {
        only(params, &["fileName", "permission", "page"])?;
        // The form sends "any" as an empty value.
        let given: Vec<(String, String)> = params
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .cloned()
            .collect();
        let settings = self.state.config.settings();
        let query = crate::files::ListQuery::from_params(
            &given,
            settings.files.default_limit,
            settings.files.max_limit,
        )?;
        let may_read_private = viewer.access.may_read_private();
        if query.permission == Some(crate::files::Permission::Private) && !may_read_private {
            return Err(ApiError::Unauthorized(
                "private records need a login with an API key".into(),
            ));
        }
        let (page, limit) = (query.page, query.limit);
        let file_name = query.file_name.clone().unwrap_or_default();
        let permission = query
            .permission
            .map(|p| p.as_str().to_owned())
            .unwrap_or_default();
        let found = self.state.files.list(query, may_read_private).await?;
        let pages = found.total.div_ceil(limit).max(1);
        let link = |page: u64| {
            let mut pairs = vec![
                ("fileName", file_name.clone()),
                ("permission", permission.clone()),
            ];
            pairs.retain(|(_, v)| !v.is_empty());
            pairs.push(("page", page.to_string()));
            format!("{}?{}", table::CONSOLE_FILES.path, encode_pairs(&pairs))
        };
        let records = found
            .records
            .iter()
            .map(|r| pages::FileRow {
                file_name: r.file_name.clone(),
                file_type: r.file_type.clone(),
                permission: r.permission.as_str(),
                bucket: r.bucket.clone(),
                created_at: crate::time::iso_millis(r.created_at),
                link: file_link(&r.key),
                size: views::size(r.size),
                key: r.key.clone(),
            })
            .collect();
        let page_view = pages::Files {
            chrome: self.chrome(viewer, "Files", "files"),
            file_name: file_name.clone(),
            permissions: pages::Choice::list(&["public", "private"], &permission),
            error: None,
            records,
            total: found.total,
            page,
            pages,
            prev: (page > 1).then(|| link(page - 1)),
            next: (page < pages).then(|| link(page + 1)),
            upload_csrf: admin_csrf(viewer),
        };
        html(StatusCode::OK, &page_view)
    }

    async fn file(
        &self,
        viewer: &Viewer,
        params: &[(String, String)],
    ) -> Result<Response, ApiError> {
        only(params, &["key"])?;
        let key = crate::files::key_from_params(params)?;
        let settings = self.state.config.settings();
        let record = self.record(&key).await?;
        if record.permission == crate::files::Permission::Private
            && !viewer.access.may_read_private()
        {
            return Err(ApiError::Unauthorized(
                "this file record is private: log in with an API key".into(),
            ));
        }
        let signer = self.state.signer(viewer.arrived_on)?;
        let download_url = crate::http::files::signed_url(&record, &settings, &signer, true)?;
        let page = pages::File {
            chrome: self.chrome(viewer, "File", "files"),
            record: pages::RecordView {
                file_name: record.file_name,
                key: record.key,
                description: record.description,
                bucket: record.bucket,
                file_type: record.file_type,
                permission: record.permission.as_str(),
                status: record.status,
                created_at: crate::time::iso_millis(record.created_at),
                size: views::size(record.size),
                sha256: record.sha256,
            },
            download_url,
            expires_secs: settings.signing.expires_secs,
            delete_csrf: admin_csrf(viewer),
        };
        html(StatusCode::OK, &page)
    }

    /// The file record of `key`, or a 404 page naming it.
    async fn record(&self, key: &str) -> Result<crate::files::FileRecord, ApiError> {
        self.state
            .files
            .get_by_key(key.to_owned())
            .await?
            .ok_or_else(|| {
                ApiError::NotFound(format!("no file record has key '{key}'"))
                    .with_code(ErrorCode::UnknownFile)
            })
    }

    fn login_form(
        &self,
        viewer: &Viewer,
        params: &[(String, String)],
    ) -> Result<Response, ApiError> {
        only(params, &["next"])?;
        let chrome = self.chrome(viewer, "Log in", "");
        let page = pages::Login {
            error: (!chrome.keys_configured).then(|| {
                "No API keys are configured: the console is open to everyone on this address."
                    .to_owned()
            }),
            chrome,
            next: guard::safe_next(field(params, "next")),
        };
        html(StatusCode::OK, &page)
    }

    /// A login: an attempt of the client's throttle is taken before the key is compared,
    /// and given back when the key is right (or missing: no guess was made).
    fn login(
        &self,
        viewer: &Viewer,
        form: &[(String, String)],
        client: ClientAddr,
    ) -> Result<Response, ApiError> {
        only(form, &["key", "next"])?;
        let next = guard::safe_next(field(form, "next"));
        let key = field(form, "key").unwrap_or_default();
        let settings = self.state.config.settings();
        let rate = throttle::Rate::of(&settings.limits);
        let now = std::time::Instant::now();
        let left = match self.throttle.take(client.key(), rate, now) {
            Ok(left) => left,
            Err(wait) => {
                let secs = throttle::retry_after_secs(wait);
                tracing::debug!(target: "depot::console", client = %client.0.ip(), "console login throttled");
                return Err(ApiError::TooManyRequests {
                    message: format!(
                        "too many wrong keys from your address ({}): try again in {secs} s",
                        client.key()
                    ),
                    retry_after: Some(secs),
                }
                .with_code(ErrorCode::TooManyLoginFailures));
            }
        };
        let outcome = self.sessions.login(key, &settings.auth);
        if key.is_empty() || outcome.is_ok() {
            self.throttle.give_back(client.key(), rate, now);
        } else {
            tracing::warn!(
                target: "depot::console",
                client = %client.0.ip(),
                attempts_left = left,
                "console login refused: wrong API key"
            );
        }
        match outcome {
            Ok((token, _)) => {
                let mut response = redirect(&next);
                if let Ok(value) = HeaderValue::from_str(&session::set_cookie(&token)) {
                    response.headers_mut().insert(header::SET_COOKIE, value);
                }
                Ok(response)
            }
            Err(session::SessionError::BadKey) => {
                let page = pages::Login {
                    chrome: self.chrome(viewer, "Log in", ""),
                    next,
                    error: Some(if key.is_empty() {
                        "Enter an API key.".to_owned()
                    } else {
                        "The API key is not valid.".to_owned()
                    }),
                };
                html(StatusCode::UNAUTHORIZED, &page)
            }
            Err(e) => Err(ApiError::Internal(e.to_string())),
        }
    }

    fn logout(
        &self,
        viewer: &Viewer,
        cookie: Option<&str>,
        form: &[(String, String)],
    ) -> Result<Response, ApiError> {
        checked(viewer, form)?;
        self.sessions.logout(cookie);
        let mut response = redirect(table::CONSOLE_LOGIN_FORM.path);
        if let Ok(value) = HeaderValue::from_str(&session::clear_cookie()) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
        Ok(response)
    }

    async fn sync(&self, viewer: &Viewer, form: &[(String, String)]) -> Result<Response, ApiError> {
        self.admin(viewer)?;
        checked(viewer, form)?;
        // The outcome shows on the overview (the producer's status), success or not.
        let _ = self.state.producer.sync_now().await;
        Ok(redirect(&format!(
            "{}?synced=1",
            table::CONSOLE_OVERVIEW.path
        )))
    }

    /// Refuses a form that another site made a browser send (`guard::same_origin`).
    fn same_origin(&self, headers: &warp::http::HeaderMap) -> Result<(), ApiError> {
        let settings = self.state.config.settings();
        let public_url = settings.server.public_url.as_ref().map(|p| p.url.as_str());
        guard::same_origin(headers, public_url)
    }

    /// Refuses what needs an admin session, saying what would allow it.
    fn admin(&self, viewer: &Viewer) -> Result<(), ApiError> {
        if self.state.config.settings().auth.admin_keys.is_empty() {
            return Err(ApiError::Forbidden(
                "writes are disabled: configure auth.admin_keys (DEPOT_ADMIN_KEYS) to enable them; `depot auth --admin-key` makes a key and saves it there"
                    .into(),
            ));
        }
        match (&viewer.session, viewer.access) {
            (_, Access::Admin) => Ok(()),
            (None, _) => Err(ApiError::Unauthorized(
                "this needs a login with an admin key".into(),
            )),
            (Some(_), _) => Err(ApiError::Forbidden(
                "this needs an admin key: log out and log in with one".into(),
            )),
        }
    }

    /// Deletes a record and its object in two steps, both forms of an admin session with
    /// its CSRF token: the first (the Delete button) answers a page that names the record
    /// and asks; the second (`confirm=yes`) deletes, then goes back to the list, which says
    /// what was deleted.
    async fn delete(
        &self,
        viewer: &Viewer,
        cookie: Option<&str>,
        form: &[(String, String)],
    ) -> Result<Response, ApiError> {
        self.admin(viewer)?;
        let session = checked(viewer, form)?;
        only(form, &["csrf", "key", "confirm", "from"])?;
        let key = crate::files::key_from_params(form)?;
        let confirmed = match field(form, "confirm") {
            None | Some("") => false,
            Some("yes") => true,
            Some(other) => {
                return Err(ApiError::BadRequest(format!(
                    "confirm must be yes (or absent, to be asked), got '{other}'"
                )));
            }
        };
        let record = self.record(&key).await?;
        if !confirmed {
            // Cancel leads back to the page the Delete button was on.
            let back = match field(form, "from") {
                Some("file") => file_link(&record.key),
                _ => table::CONSOLE_FILES.path.to_owned(),
            };
            let page = pages::ConfirmDelete {
                chrome: self.chrome(viewer, "Delete a file", "files"),
                file_name: record.file_name,
                key: record.key,
                bucket: record.bucket,
                size: views::size(record.size),
                csrf: session.csrf.clone(),
                back,
            };
            return html(StatusCode::OK, &page);
        }
        crate::files::writes::delete_record(&self.state.files, &*self.state.store()?, key).await?;
        self.sessions.notify(
            cookie,
            format!("Deleted {} (key {}).", record.file_name, record.key),
        );
        Ok(redirect(table::CONSOLE_FILES.path))
    }

    async fn upload(
        &self,
        viewer: &Viewer,
        form: warp::multipart::FormData,
    ) -> Result<Response, ApiError> {
        self.admin(viewer)?;
        let uploads =
            crate::files::writes::Uploads::new(self.state.files.clone(), self.state.store()?)?;
        // The CSRF token is checked before anything is stored.
        let record = crate::files::upload_form::receive(
            &uploads,
            crate::http::files::parts(form),
            &["csrf"],
            |extras| checked(viewer, extras).map(|_| ()),
        )
        .await?;
        Ok(redirect(&file_link(&record.key)))
    }
}

/// The CSRF token for admin forms, when the viewer is an admin session.
fn admin_csrf(viewer: &Viewer) -> Option<String> {
    viewer
        .session
        .as_ref()
        .filter(|s| s.access == Access::Admin)
        .map(|s| s.csrf.clone())
}

/// The session of a form that changes something, once its CSRF token is checked.
fn checked<'a>(viewer: &'a Viewer, form: &[(String, String)]) -> Result<&'a Session, ApiError> {
    let session = viewer.session.as_ref().ok_or_else(|| {
        ApiError::Unauthorized("this form needs a console session: log in first".into())
    })?;
    match field(form, "csrf") {
        None | Some("") => Err(ApiError::Forbidden(
            "the form carries no CSRF token (field csrf): reload the page and submit it again"
                .into(),
        )),
        Some(sent) if !session.csrf_matches(sent) => Err(ApiError::Forbidden(
            "the form's CSRF token is not this session's: reload the page and submit it again"
                .into(),
        )),
        Some(_) => Ok(session),
    }
}

/// The single value of `name`, if given.
fn field<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Refuses a parameter outside `allowed` or one given twice; hands back the parameters.
fn only<'a>(
    params: &'a [(String, String)],
    allowed: &[&str],
) -> Result<&'a [(String, String)], ApiError> {
    for (i, (name, _)) in params.iter().enumerate() {
        if !allowed.contains(&name.as_str()) {
            return Err(ApiError::BadRequest(format!(
                "unknown parameter '{name}'; allowed: {}",
                allowed.join(", ")
            )));
        }
        if params[..i].iter().any(|(n, _)| n == name) {
            return Err(ApiError::BadRequest(format!(
                "{name} is given more than once"
            )));
        }
    }
    Ok(params)
}

fn encode_pairs(pairs: &[(impl AsRef<str>, impl AsRef<str>)]) -> String {
    pairs
        .iter()
        .map(|(n, v)| {
            format!(
                "{}={}",
                n.as_ref(),
                crate::percent::encode(v.as_ref(), crate::percent::is_unreserved)
            )
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// A page, with the headers every console page carries: no caching (pages show live state
/// and CSRF tokens), nothing loaded from elsewhere, no framing.
fn html(status: StatusCode, page: &impl Template) -> Result<Response, ApiError> {
    let body = page
        .render()
        .map_err(|e| ApiError::Internal(format!("rendering a console page: {e}")))?;
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; \
             frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    Ok(response)
}

/// 303 See Other to `location` (a path of this site).
fn redirect(location: &str) -> Response {
    let mut response = Response::new(Default::default());
    *response.status_mut() = StatusCode::SEE_OTHER;
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The login form, then back to `path` (and its query).
fn to_login(path: &str, query: &str) -> Response {
    let next = if query.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{query}")
    };
    redirect(&format!(
        "{}?{}",
        table::CONSOLE_LOGIN_FORM.path,
        encode_pairs(&[("next", next)])
    ))
}

/// The console page of one file record.
fn file_link(key: &str) -> String {
    format!(
        "{}?{}",
        table::CONSOLE_FILE.path,
        encode_pairs(&[("key", key)])
    )
}

/// Every console route: each page and form of the route table with its handler.
pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let body_limit = state.config.settings().server.body_limit_bytes;
    let console = Arc::new(Console::new(state));
    let pages = [
        page(&console, &table::CONSOLE_OVERVIEW, |c, v, p| async move {
            c.overview(&v, &p).await
        }),
        page(
            &console,
            &table::CONSOLE_TRANSLATIONS,
            |c, v, p| async move { c.translations(&v, &p).await },
        ),
        page(&console, &table::CONSOLE_PREVIEW, |c, v, p| async move {
            c.preview(&v, &p).await
        }),
        page(&console, &table::CONSOLE_VERSIONS, |c, v, p| async move {
            c.versions(&v, &p).await
        }),
        page(&console, &table::CONSOLE_FILES, |c, v, p| async move {
            c.files(&v, &p).await
        }),
        page(&console, &table::CONSOLE_FILE, |c, v, p| async move {
            c.file(&v, &p).await
        }),
        page(&console, &table::CONSOLE_LOGIN_FORM, |c, v, p| async move {
            c.login_form(&v, &p)
        }),
    ];
    let forms = [
        form(&console, &table::CONSOLE_LOGIN, |c, v, f| async move {
            c.login(&v, &f.fields, f.client)
        }),
        form(&console, &table::CONSOLE_LOGOUT, |c, v, f| async move {
            c.logout(&v, f.cookie.as_deref(), &f.fields)
        }),
        form(&console, &table::CONSOLE_SYNC, |c, v, f| async move {
            c.sync(&v, &f.fields).await
        }),
        form(&console, &table::CONSOLE_DELETE, |c, v, f| async move {
            c.delete(&v, f.cookie.as_deref(), &f.fields).await
        }),
    ];
    pages
        .into_iter()
        .chain(forms)
        .chain(channels::routes(&console))
        .fold(upload(&console, body_limit), |all, one| {
            all.or(one).unify().boxed()
        })
}

/// The console, handed to each request.
fn with_console(
    console: Arc<Console>,
) -> impl Filter<Extract = (Arc<Console>,), Error = Infallible> + Clone {
    warp::any().map(move || console.clone())
}

fn cookie() -> impl Filter<Extract = (Option<String>,), Error = Rejection> + Clone {
    warp::header::optional::<String>("cookie")
}

/// A GET page of the table and its handler: the query parsed, an anonymous viewer sent to
/// the login form when the route needs a session (`Access::Session`: API keys are
/// configured and nobody logged in), errors rendered as pages.
fn page<H, F>(console: &Arc<Console>, route: &'static Route, handler: H) -> BoxedFilter<(Response,)>
where
    H: Fn(Arc<Console>, Viewer, Vec<(String, String)>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Result<Response, ApiError>> + Send + 'static,
{
    on(route)
        .and(with_console(console.clone()))
        .and(cookie())
        .and(crate::http::client::arrived_on())
        .and(query::raw())
        .then(
            move |_, console: Arc<Console>, cookie: Option<String>, arrived_on, raw: String| {
                let handler = handler.clone();
                async move {
                    let mut viewer = console.viewer(cookie.as_deref(), arrived_on);
                    if viewer.session.is_some() {
                        viewer.notice = console.sessions.take_notice(cookie.as_deref());
                    }
                    let params = match query::parse(&raw) {
                        Ok(params) => params,
                        Err(e) => return console.error_page(&viewer, e),
                    };
                    if viewer.access == Access::Anonymous && route.access == table::Access::Session
                    {
                        return to_login(route.path, &raw);
                    }
                    handler(console.clone(), viewer.clone(), params)
                        .await
                        .unwrap_or_else(|e| console.error_page(&viewer, e))
                }
            },
        )
        .boxed()
}

/// What a form hands its handler besides the viewer.
struct Form {
    fields: Vec<(String, String)>,
    cookie: Option<String>,
    client: ClientAddr,
}

/// A url-encoded form of the table that changes something, sent from a console page, and
/// its handler: refused from another site (`guard::same_origin`), errors rendered as pages.
fn form<H, F>(console: &Arc<Console>, route: &'static Route, handler: H) -> BoxedFilter<(Response,)>
where
    H: Fn(Arc<Console>, Viewer, Form) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Result<Response, ApiError>> + Send + 'static,
{
    on(route)
        .and(with_console(console.clone()))
        .and(cookie())
        .and(crate::http::client::client())
        .and(crate::http::client::arrived_on())
        .and(warp::header::headers_cloned())
        .and(warp::body::content_length_limit(FORM_LIMIT))
        .and(warp::body::bytes())
        .then(
            move |_,
                  console: Arc<Console>,
                  cookie: Option<String>,
                  client,
                  arrived_on,
                  headers,
                  body: bytes::Bytes| {
                let handler = handler.clone();
                async move {
                    let viewer = console.viewer(cookie.as_deref(), arrived_on);
                    let fields = console
                        .same_origin(&headers)
                        .and_then(|()| {
                            std::str::from_utf8(&body).map_err(|_| {
                                ApiError::BadRequest("the form is not UTF-8 text".into())
                            })
                        })
                        .and_then(query::parse);
                    let answer = match fields {
                        Err(e) => Err(e),
                        Ok(fields) => {
                            let form = Form {
                                fields,
                                cookie,
                                client,
                            };
                            handler(console.clone(), viewer.clone(), form).await
                        }
                    };
                    answer.unwrap_or_else(|e| console.error_page(&viewer, e))
                }
            },
        )
        .boxed()
}

/// `POST /console/upload`: the sender and the admin session are checked before the body is
/// read.
fn upload(console: &Arc<Console>, body_limit: u64) -> BoxedFilter<(Response,)> {
    on(&table::CONSOLE_UPLOAD)
        .and(with_console(console.clone()))
        .and(cookie())
        .and(crate::http::client::arrived_on())
        .and(warp::header::headers_cloned())
        .and_then(
            |_, console: Arc<Console>, cookie: Option<String>, arrived_on, headers| async move {
                let viewer = console.viewer(cookie.as_deref(), arrived_on);
                match console
                    .same_origin(&headers)
                    .and_then(|()| console.admin(&viewer))
                {
                    Ok(()) => Ok((console, viewer)),
                    Err(e) => Err(warp::reject::custom(e)),
                }
            },
        )
        .untuple_one()
        .and(warp::body::content_length_limit(body_limit))
        .and(warp::multipart::form().max_length(body_limit))
        .then(|console: Arc<Console>, viewer: Viewer, form| async move {
            console
                .upload(&viewer, form)
                .await
                .unwrap_or_else(|e| console.error_page(&viewer, e))
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_or_repeated_parameters_are_named() {
        let p = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(
            only(&p(&[("x", "1")]), &["q"]).unwrap_err().to_string(),
            "unknown parameter 'x'; allowed: q"
        );
        assert_eq!(
            only(&p(&[("q", "1"), ("q", "2")]), &["q"])
                .unwrap_err()
                .to_string(),
            "q is given more than once"
        );
    }
}
