//! The console's channels (SPEC §14): `GET /console/channels` lists them, and with
//! `?confirm=publish|rollback&channel=&version=` shows the move to confirm (admin
//! session); `POST /console/channels` makes it (CSRF token, as every console form), logged
//! and announced with the session's key fingerprint as who.

use super::{Console, Form, Viewer, admin_csrf, checked, field, form, html, only, page, redirect};
use crate::console::channels::{self as view, Confirmation};
use crate::http::ApiError;
use crate::http::error::ErrorCode;
use crate::http::routes as table;
use crate::translations::channels::ChannelError;
use crate::translations::channels::book::{self, BookError, DRAFT};
use std::sync::Arc;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;

/// A channel a form or a link names, checked (never draft).
fn named_channel(params: &[(String, String)]) -> Result<String, ApiError> {
    let name = field(params, "channel").ok_or_else(|| {
        ApiError::BadRequest("channel is required: the channel to move".into())
            .with_code(ErrorCode::InvalidChannel)
    })?;
    book::check_name(name).map_err(ChannelError::from)?;
    if name == DRAFT {
        return Err(ChannelError::Book(BookError::Draft).into());
    }
    Ok(name.to_owned())
}

impl Console {
    pub(super) async fn channels(
        &self,
        viewer: &Viewer,
        params: &[(String, String)],
    ) -> Result<Response, ApiError> {
        let params = only(params, &["confirm", "channel", "version", "moved"])?;
        let settings = self.state.config.settings();
        let book = self.state.channels.book();
        let current = self.state.translations.current();
        let history = self.state.translations.versions().await?;
        let confirm = match field(params, "confirm") {
            None => None,
            Some(action) => Some(self.confirmation(viewer, action, params).await?),
        };
        let notice = field(params, "moved").map(|name| {
            let version = book.version(name).unwrap_or_default();
            format!(
                "{name} now points at {}; apps get it within {} s.",
                version.get(..8).unwrap_or(version),
                settings.delivery.max_age_secs
            )
        });
        let page = view::Channels {
            chrome: self.chrome(viewer, "Channels", "channels"),
            notice,
            channels: view::rows(
                &book,
                current.as_ref().map(|l| l.stored.version.as_str()),
                |name| settings.delivery.is_private(name),
            ),
            versions: view::choices(&history),
            csrf: admin_csrf(viewer),
            confirm,
            max_age_secs: settings.delivery.max_age_secs,
        };
        html(StatusCode::OK, &page)
    }

    /// What a move would do, for its confirmation.
    async fn confirmation(
        &self,
        viewer: &Viewer,
        action: &str,
        params: &[(String, String)],
    ) -> Result<Confirmation, ApiError> {
        self.admin(viewer)?;
        let channel = named_channel(params)?;
        let book = self.state.channels.book();
        let from = book.version(&channel).map(str::to_owned);
        match action {
            "publish" => {
                let live = match field(params, "version").filter(|v| !v.is_empty()) {
                    Some(asked) => self.state.translations.kept_named(asked).await?,
                    None => self.state.translations.serving()?,
                };
                let findings = &live.stored.document.findings;
                Ok(Confirmation {
                    action: "publish",
                    channel,
                    from,
                    to: live.stored.version.clone(),
                    findings: findings.len(),
                    first_finding: (findings.first())
                        .map(|f| format!("{} ({})", f.cell, f.message))
                        .unwrap_or_default(),
                })
            }
            "rollback" => {
                let stack = book.channels.get(&channel).map(|c| c.stack.as_slice());
                let to = match stack {
                    None => {
                        return Err(ChannelError::Book(BookError::Unknown {
                            name: channel,
                            known: book.names(),
                        })
                        .into());
                    }
                    Some([.., before, _]) => before.version.clone(),
                    Some(_) => {
                        return Err(ChannelError::Book(BookError::NothingToRollBack {
                            version: from.unwrap_or_default(),
                            name: channel,
                        })
                        .into());
                    }
                };
                Ok(Confirmation {
                    action: "rollback",
                    channel,
                    from,
                    to,
                    findings: 0,
                    first_finding: String::new(),
                })
            }
            other => Err(ApiError::BadRequest(format!(
                "confirm must be publish or rollback, got '{}'",
                other.chars().take(40).collect::<String>()
            ))
            .with_code(ErrorCode::InvalidParameter)),
        }
    }

    /// Makes the move a confirmation page sent, then back to the list.
    pub(super) async fn channel_move(
        &self,
        viewer: &Viewer,
        form: &[(String, String)],
    ) -> Result<Response, ApiError> {
        self.admin(viewer)?;
        let who = format!("console, {}", checked(viewer, form)?.who);
        let channel = named_channel(form)?;
        let channels = self.state.channels.clone();
        let depth = self.state.config.settings().translations.keep_versions;
        let action = field(form, "action").unwrap_or_default().to_owned();
        let version = field(form, "version").map(str::to_owned);
        let force = field(form, "force") == Some("1");
        let name = channel.clone();
        tokio::task::spawn_blocking(move || match action.as_str() {
            "publish" => channels
                .publish(&name, version.as_deref(), force, &who, depth)
                .map(|_| ())
                .map_err(ApiError::from),
            "rollback" => (channels.rollback(&name, &who).map(|_| ())).map_err(ApiError::from),
            _ => Err(ApiError::BadRequest(
                "action must be publish or rollback".into(),
            )),
        })
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))??;
        Ok(redirect(&format!(
            "{}?moved={channel}",
            table::CONSOLE_CHANNELS.path
        )))
    }
}

/// The channels' page and form.
pub(super) fn routes(console: &Arc<Console>) -> [BoxedFilter<(Response,)>; 2] {
    [
        page(console, &table::CONSOLE_CHANNELS, |c, v, p| async move {
            c.channels(&v, &p).await
        }),
        form(
            console,
            &table::CONSOLE_CHANNEL_MOVE,
            |c, v, f: Form| async move { c.channel_move(&v, &f.fields).await },
        ),
    ]
}
