//! Channels (SPEC §14): `draft` follows the sheet (always the current version); every
//! other channel points at one kept version, moved by `publish` and `rollback`. The book
//! (`channels/book.rs`) is kept in the translations store beside the versions, swapped
//! whole over the revision it was read at, so two writers never lose a move; this process
//! holds a copy to serve from, which a node on Redis keeps in step with the store (a
//! subscription to the announcements of new revisions, a poll every second behind it).
//! Every move is logged and announced to `webhooks.urls`.

pub mod book;

use super::service::{Live, TranslationService};
use super::store::{RedisStore, StoreError, Swap};
use super::versions::VersionError;
use crate::shutdown::Shutdown;
use crate::webhooks::Announcer;
use book::{BookError, ChannelBook, DRAFT, Move, MoveKind};
use chrono::Utc;
use futures_util::StreamExt;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

/// Tries of a move whose swap found the book changed by another writer meanwhile.
const ATTEMPTS: usize = 20;
/// The poll behind the subscription of a node on Redis.
const POLL: Duration = Duration::from_secs(1);

#[derive(Debug, thiserror::Error)]
pub enum ChannelError {
    #[error(transparent)]
    Book(#[from] BookError),
    #[error(transparent)]
    Version(#[from] VersionError),
    #[error(
        "version {version} has {count} finding(s) of the checks before publishing, the first \
         at {first}; fix them in the sheet (depot generate lists them all), or publish it \
         anyway with force (depot publish --force, or \"force\": true)"
    )]
    Findings {
        version: String,
        count: usize,
        first: String,
    },
    #[error(
        "no translations are loaded yet (the first sync has not succeeded): there is no \
         current version to publish"
    )]
    NothingLoaded,
    #[error("channel '{0}' was moved by other writers at every try of this change; try again")]
    Busy(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a publish did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Published {
    Moved(Move),
    /// The channel already pointed at this version.
    Unchanged {
        version: String,
    },
}

/// The channels this process serves from, and their moves.
pub struct Channels {
    service: Arc<TranslationService>,
    webhooks: Arc<Announcer>,
    book: RwLock<Arc<ChannelBook>>,
}

impl Channels {
    /// Reads the store's book (blocking). A book that cannot be read is logged and left
    /// out (no named channel answers) until a move or, on Redis, the follower replaces it.
    pub fn open(service: Arc<TranslationService>, webhooks: Arc<Announcer>) -> Channels {
        let book = match service.store().channels() {
            Ok(book) => book,
            Err(e) => {
                tracing::error!(error = %e, "the channels cannot be read; only draft is served");
                ChannelBook::default()
            }
        };
        Channels {
            service,
            webhooks,
            book: RwLock::new(Arc::new(book)),
        }
    }

    /// The book held.
    pub fn book(&self) -> Arc<ChannelBook> {
        self.book
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The version `name` serves: the current one for `draft`, else the one the channel
    /// points at.
    pub fn version_of(&self, name: &str) -> Result<String, ChannelError> {
        if name == DRAFT {
            return self
                .service
                .current()
                .map(|live| live.stored.version.clone())
                .ok_or(ChannelError::NothingLoaded);
        }
        book::check_name(name)?;
        let book = self.book();
        book.version(name).map(str::to_owned).ok_or_else(|| {
            ChannelError::Book(BookError::Unknown {
                name: name.to_owned(),
                known: book.names(),
            })
        })
    }

    /// Points `name` at the kept version `asked` names (its id or a prefix of 8 or more
    /// characters; the current version when `None`), refusing a version whose document
    /// has findings of the checks unless `force` (blocking). `by` says who, for the log and
    /// the webhooks; `depth` is how many versions back rollbacks may go
    /// (`translations.keep_versions`).
    pub fn publish(
        &self,
        name: &str,
        asked: Option<&str>,
        force: bool,
        by: &str,
        depth: usize,
    ) -> Result<Published, ChannelError> {
        book::check_name(name)?;
        if name == DRAFT {
            return Err(BookError::Draft.into());
        }
        let live: Arc<Live> = match asked {
            None => self.service.current().ok_or(ChannelError::NothingLoaded)?,
            Some(asked) => self.service.kept_named_now(asked)?,
        };
        let version = live.stored.version.clone();
        if let (false, Some(first)) = (force, live.stored.document.findings.first()) {
            return Err(ChannelError::Findings {
                version,
                count: live.stored.document.findings.len(),
                first: format!("{} ({})", first.cell, first.message),
            });
        }
        let moved = self.change(name, |book| {
            Ok(book.publish(name, &version, by, Utc::now(), depth)?)
        })?;
        Ok(match moved {
            Some(moved) => {
                self.announce(name, &moved);
                Published::Moved(moved)
            }
            None => Published::Unchanged { version },
        })
    }

    /// Points `name` back at the version it pointed at before its last publish (blocking).
    pub fn rollback(&self, name: &str, by: &str) -> Result<Move, ChannelError> {
        let moved = self
            .change(name, |book| {
                Ok(Some(book.rollback(name, by, Utc::now())?))
            })?
            .ok_or_else(|| ChannelError::Busy(name.to_owned()))?;
        self.announce(name, &moved);
        Ok(moved)
    }

    /// Applies `op` to the store's book and swaps the result in, again from a fresh read
    /// while other writers got there first. `None` when `op` changed nothing.
    fn change(
        &self,
        name: &str,
        op: impl Fn(&mut ChannelBook) -> Result<Option<Move>, ChannelError>,
    ) -> Result<Option<Move>, ChannelError> {
        let store = self.service.store().clone();
        for _ in 0..ATTEMPTS {
            // One writer of this process at a time: a sync's prune waits for the swap.
            let outcome = self.service.exclusive(|| {
                let current = store.channels()?;
                let mut next = current.clone();
                let Some(moved) = op(&mut next)? else {
                    return Ok(Some((None, current)));
                };
                match store.swap_channels(current.rev, &next)? {
                    Swap::Done => Ok(Some((Some(moved), next))),
                    Swap::Stale => Ok(None),
                    Swap::Missing(version) => {
                        Err(ChannelError::Version(VersionError::NotKept(version)))
                    }
                }
            })?;
            if let Some((moved, book)) = outcome {
                self.hold(book);
                return Ok(moved);
            }
        }
        Err(ChannelError::Busy(name.to_owned()))
    }

    /// Holds `book` unless a newer one is held already.
    fn hold(&self, book: ChannelBook) -> bool {
        let mut held = self.book.write().unwrap_or_else(PoisonError::into_inner);
        if book.rev < held.rev || **held == book {
            return false;
        }
        *held = Arc::new(book);
        true
    }

    /// Logs a move this process made and sends its webhook.
    fn announce(&self, name: &str, moved: &Move) {
        log_move(name, moved, "");
        self.webhooks.announce_move(name, moved);
    }

    /// Reads the store's book and holds it when it is newer, logging the moves other
    /// processes made (blocking).
    pub fn reload(&self) -> Result<bool, StoreError> {
        let fresh = self.service.store().channels()?;
        let held = self.book();
        if fresh.rev <= held.rev {
            return Ok(false);
        }
        for (name, channel) in &fresh.channels {
            let before = held.channels.get(name).and_then(|c| c.moves.first());
            let new: Vec<&Move> = (channel.moves.iter())
                .take_while(|m| Some(*m) != before)
                .collect();
            for moved in new.into_iter().rev() {
                log_move(name, moved, " (on another node or process)");
            }
        }
        Ok(self.hold(fresh))
    }

    /// Keeps the book in step with a shared store; `None` for an embedded one (only this
    /// process writes it while it runs).
    pub fn follow(self: &Arc<Self>, shutdown: Shutdown) -> Option<tokio::task::JoinHandle<()>> {
        let store = self.service.shared()?.clone();
        Some(tokio::spawn(follow(self.clone(), store, shutdown)))
    }
}

fn log_move(name: &str, moved: &Move, where_: &str) {
    let from = moved.from.as_deref().map_or("(none)", short);
    let verb = match moved.kind {
        MoveKind::Publish => "published",
        MoveKind::Rollback => "rolled back",
    };
    tracing::info!(
        channel = name, from, to = short(&moved.to), by = %moved.by,
        "channel {verb}{where_}"
    );
}

/// A version id as logs show it: its first 8 characters.
fn short(version: &str) -> &str {
    version.get(..8).unwrap_or(version)
}

async fn follow(channels: Arc<Channels>, store: Arc<RedisStore>, shutdown: Shutdown) {
    let mut subscription = None;
    let mut failures: u32 = 0;
    loop {
        if subscription.is_none() {
            match store.subscribe_channel_moves().await {
                Ok(stream) => subscription = Some(stream),
                Err(e) => tracing::debug!(error = %e, "no subscription to channel moves; polling"),
            }
        }
        let rev = store.channels_rev().await;
        let caught_up = match rev {
            Ok(rev) if rev == channels.book().rev => Ok(()),
            Ok(_) => {
                let channels = channels.clone();
                tokio::task::spawn_blocking(move || channels.reload())
                    .await
                    .map_err(|e| StoreError::Task(e.to_string()))
                    .and_then(|r| r.map(|_| ()))
            }
            Err(e) => Err(e),
        };
        match caught_up {
            Ok(()) => failures = 0,
            Err(e) => {
                failures = failures.saturating_add(1);
                if failures == 1 {
                    tracing::warn!(error = %e, "cannot follow the channels in the store; the channels held are still served");
                }
                subscription = None;
            }
        }
        let wait = match failures {
            0 => POLL,
            n => crate::retry::backoff(n, Duration::from_secs(5)),
        };
        tokio::select! {
            () = shutdown.wait() => return,
            () = tokio::time::sleep(wait) => {}
            message = async {
                match subscription.as_mut() {
                    Some(stream) => stream.next().await,
                    None => std::future::pending().await,
                }
            } => {
                if message.is_none() {
                    subscription = None;
                }
            }
        }
    }
}
