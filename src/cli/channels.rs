//! `depot publish CHANNEL [VERSION] [--force]` and `depot rollback CHANNEL` (SPEC §14).
//! They work whether or not a daemon runs on the same store:
//! - on Redis (shared by every node) the command moves the channel in Redis itself; every
//!   node follows within milliseconds, and the command sends the webhooks;
//! - on sled or file (one process's store) a running daemon holds it (sled's lock; the
//!   file store is read once at its start), so the command asks it: `POST
//!   /channels/{channel}/publish` at `server.listen` (or `--url`) with an admin key of
//!   `auth.admin_keys`; when no daemon answers there, it opens the store itself.

use super::{DataDirArg, Failure, load_config, output};
use crate::config::settings::Storage;
use crate::config::{ConfigHandle, Settings, Sources};
use crate::translations::channels::book::{DRAFT, Move, check_name};
use crate::translations::channels::{Channels, Published};
use crate::translations::service::TranslationService;
use crate::webhooks::Announcer;
use clap::Args;
use std::sync::Arc;
use std::time::Duration;

/// How long the command waits for webhook deliveries: their five tries end within a minute.
const WEBHOOK_DRAIN: Duration = Duration::from_secs(90);
/// A daemon that does not answer within this is taken as absent.
const PROBE: Duration = Duration::from_secs(2);

/// A channel's name, checked before anything is opened (exit 2 otherwise).
fn channel_name(text: &str) -> Result<String, String> {
    check_name(text).map_err(|e| e.to_string())?;
    if text == DRAFT {
        return Err(
            "draft follows the sheet (always its current version): publish to a named \
                    channel such as production"
                .into(),
        );
    }
    Ok(text.to_owned())
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The channel (production, beta, ...): a-z, 0-9, '-', '_', '.'; created by its first
    /// publish.
    #[arg(value_parser = channel_name)]
    pub channel: String,
    /// A kept version (its id or first 8 or more characters; `GET /translations/versions`
    /// lists them) [default: the current version].
    pub version: Option<String>,
    /// Publish a version that has findings of the checks.
    #[arg(long)]
    pub force: bool,
    /// The running daemon to ask [default: http://<server.listen>].
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    #[command(flatten)]
    pub data: DataDirArg,
}

#[derive(Debug, Args)]
pub struct RollbackArgs {
    /// The channel to point back at the version before its last publish.
    #[arg(value_parser = channel_name)]
    pub channel: String,
    /// The running daemon to ask [default: http://<server.listen>].
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    #[command(flatten)]
    pub data: DataDirArg,
}

/// What to do to a channel.
enum Action<'a> {
    Publish {
        version: Option<&'a str>,
        force: bool,
    },
    Rollback,
}

pub fn publish(sources: Sources, args: &PublishArgs) -> Result<(), Failure> {
    let action = Action::Publish {
        version: args.version.as_deref(),
        force: args.force,
    };
    run(sources, &args.channel, action, args.url.as_deref())
}

pub fn rollback(sources: Sources, args: &RollbackArgs) -> Result<(), Failure> {
    run(
        sources,
        &args.channel,
        Action::Rollback,
        args.url.as_deref(),
    )
}

fn run(
    sources: Sources,
    channel: &str,
    action: Action<'_>,
    url: Option<&str>,
) -> Result<(), Failure> {
    let loaded = load_config(&sources)?;
    let settings = loaded.settings.clone();
    let runtime = super::runtime()?;
    let daemon = match (url, settings.translations.storage) {
        (Some(url), _) => Some(url.trim_end_matches('/').to_owned()),
        (None, Storage::Redis) => None,
        (None, _) => {
            let base = local_url(settings.server.listen);
            runtime.block_on(answers(&base)).then_some(base)
        }
    };
    match daemon {
        Some(base) => runtime.block_on(ask(&settings, &base, channel, &action)),
        None => {
            let config = ConfigHandle::new(sources, loaded);
            runtime.block_on(move_here(config, &settings, channel, action))
        }
    }
}

/// Where a daemon listening on `listen` answers this machine (an unspecified address on
/// loopback).
fn local_url(listen: std::net::SocketAddr) -> String {
    let mut addr = listen;
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr {
            std::net::SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            std::net::SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    format!("http://{addr}")
}

/// Whether a depot daemon answers at `base`.
async fn answers(base: &str) -> bool {
    let Ok(client) = crate::sheets::http_client(PROBE) else {
        return false;
    };
    client
        .get(format!("{base}/health"))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
}

/// Asks the daemon at `base` to move the channel.
async fn ask(
    settings: &Settings,
    base: &str,
    channel: &str,
    action: &Action<'_>,
) -> Result<(), Failure> {
    let Some(key) = settings.auth.admin_keys.first() else {
        return Err(Failure(format!(
            "a daemon answers at {base} and holds the translations store; depot publish and \
             rollback ask it, which needs an admin key: set auth.admin_keys (DEPOT_ADMIN_KEYS; \
             `depot auth --admin-key` makes one)"
        )));
    };
    let client = crate::sheets::http_client(Duration::from_secs(30))
        .map_err(|e| Failure(format!("cannot set up the HTTP client: {e}")))?;
    let (verb, body) = match action {
        Action::Publish { version, force } => (
            "publish",
            serde_json::json!({ "version": version, "force": force }).to_string(),
        ),
        Action::Rollback => ("rollback", String::new()),
    };
    let url = format!("{base}/channels/{channel}/{verb}");
    let response = client
        .post(&url)
        .bearer_auth(key.expose())
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| {
            Failure(format!(
                "cannot reach the daemon at {base}: {}",
                crate::redact::http_error(e, &url)
            ))
        })?;
    let status = response.status();
    let answer: serde_json::Value = response.json().await.unwrap_or_default();
    if !status.is_success() {
        let message = answer["message"].as_str().unwrap_or("no message");
        return Err(Failure(format!(
            "the daemon at {base} refused: {message} ({status})"
        )));
    }
    let text = |name: &str| answer[name].as_str().map(str::to_owned);
    say(
        channel,
        text("previousVersion").as_deref(),
        &text("version").unwrap_or_default(),
        answer["changed"].as_bool().unwrap_or(false),
        verb,
    )
}

/// Moves the channel in the store itself (Redis, or an embedded store no daemon holds),
/// and sends the webhooks.
async fn move_here(
    config: ConfigHandle,
    settings: &Settings,
    channel: &str,
    action: Action<'_>,
) -> Result<(), Failure> {
    let translations_settings = settings.translations.clone();
    let service =
        tokio::task::spawn_blocking(move || TranslationService::open(&translations_settings))
            .await
            .map_err(|e| Failure(e.to_string()))?
            .map_err(|e| match e {
                crate::translations::store::StoreError::Open { reason, .. }
                    if reason.starts_with("it is in use by another depot process") =>
                {
                    Failure(format!(
                        "the translations store is held by a running depot serve that does not \
                     answer at {}: give its address with --url http://HOST:PORT",
                        local_url(settings.server.listen)
                    ))
                }
                e => Failure::from(e),
            })?;
    let service = Arc::new(service);
    let webhooks = Arc::new(Announcer::new(config));
    let depth = settings.translations.keep_versions;
    let name = channel.to_owned();
    let (verb, owned) = match action {
        Action::Publish { version, force } => {
            ("publish", Some((version.map(str::to_owned), force)))
        }
        Action::Rollback => ("rollback", None),
    };
    let hooks = webhooks.clone();
    let moved = tokio::task::spawn_blocking(move || {
        let channels = Channels::open(service.clone(), hooks);
        let result = match owned {
            Some((version, force)) => channels
                .publish(&name, version.as_deref(), force, "cli", depth)
                .map(|p| match p {
                    Published::Moved(m) => (m, true),
                    Published::Unchanged { version } => (unchanged(&version), false),
                }),
            None => channels.rollback(&name, "cli").map(|m| (m, true)),
        };
        let _ = service.flush();
        result
    })
    .await
    .map_err(|e| Failure(e.to_string()))?
    .map_err(Failure::from)?;
    webhooks.drain(WEBHOOK_DRAIN).await;
    let (moved, changed) = moved;
    say(channel, moved.from.as_deref(), &moved.to, changed, verb)
}

/// A move that did not happen: the channel stays at `version`.
fn unchanged(version: &str) -> Move {
    Move {
        kind: crate::translations::channels::book::MoveKind::Publish,
        from: Some(version.to_owned()),
        to: version.to_owned(),
        at: chrono::Utc::now(),
        by: "cli".to_owned(),
    }
}

fn say(
    channel: &str,
    from: Option<&str>,
    to: &str,
    changed: bool,
    verb: &str,
) -> Result<(), Failure> {
    if !changed {
        return output::line(format_args!(
            "{channel} already points at {to}; nothing changed"
        ));
    }
    let from = from.map_or_else(|| "a new channel".to_owned(), |f| format!("was {f}"));
    let done = if verb == "publish" {
        "published"
    } else {
        "rolled back to"
    };
    output::line(format_args!("{channel}: {done} {to} ({from})"))
}
