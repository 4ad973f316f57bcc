//! The channels as every store keeps them (SPEC §14): one record, the book, with each
//! named channel's stack of the versions it pointed at (the last is where it points now)
//! and a short log of its moves. Publishing pushes, rolling back pops, so a rollback goes
//! back to the version before; a revision number counts the changes, for the stores'
//! compare-and-swap. Pure: no I/O here.

use chrono::{DateTime, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

use crate::naming::channel_name::{self, InvalidChannelName};

/// The channel that follows the sheet: always the current version, never published to.
pub const DRAFT: &str = "draft";
/// Moves kept in a channel's log (the stack keeps what rollbacks need).
pub const MAX_MOVES: usize = 50;
/// Rollbacks need at least the version before, whatever `translations.keep_versions` says.
pub const MIN_DEPTH: usize = 2;

/// Every named channel, and the revision of this state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelBook {
    /// Raised by one with every change; a store swaps a book only over the revision it was
    /// read at.
    pub rev: u64,
    pub channels: BTreeMap<String, Channel>,
}

/// One named channel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Channel {
    /// The versions it pointed at, oldest first; the last is where it points now. Never
    /// empty, at most the depth given to `publish`.
    pub stack: Vec<Pointing>,
    /// Its moves, newest first, at most `MAX_MOVES`.
    #[serde(default)]
    pub moves: Vec<Move>,
}

/// A version a channel pointed at, since when and on whose word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pointing {
    pub version: String,
    #[serde(with = "crate::time::millis")]
    pub at: DateTime<Utc>,
    pub by: String,
}

/// What moved a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveKind {
    Publish,
    Rollback,
}

impl MoveKind {
    /// The webhook event of this move.
    pub fn event(self) -> &'static str {
        match self {
            MoveKind::Publish => "channel.published",
            MoveKind::Rollback => "channel.rolledback",
        }
    }
}

/// One move of a channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Move {
    pub kind: MoveKind,
    /// Where it pointed before; `None` for its first publish.
    pub from: Option<String>,
    pub to: String,
    #[serde(with = "crate::time::millis")]
    pub at: DateTime<Utc>,
    pub by: String,
}

/// Why a channel cannot be named or moved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    #[error(transparent)]
    InvalidName(#[from] InvalidChannelName),
    #[error(
        "the channel 'draft' follows the sheet (always its current version): it cannot be published to or rolled back; publish to a named channel such as production"
    )]
    Draft,
    #[error("no channel named '{name}'; channels: {}", known_list(.known))]
    Unknown { name: String, known: Vec<String> },
    #[error(
        "channel '{name}' has no earlier version to roll back to (it pointed only at {version})"
    )]
    NothingToRollBack { name: String, version: String },
}

fn known_list(known: &[String]) -> String {
    let mut all = vec![DRAFT.to_owned()];
    all.extend(known.iter().cloned());
    all.join(", ")
}

/// Checks a channel's name (`naming::channel_name`).
pub fn check_name(name: &str) -> Result<(), BookError> {
    Ok(channel_name::check(name)?)
}

impl Channel {
    /// The version it points at now.
    pub fn version(&self) -> Option<&str> {
        self.stack.last().map(|p| p.version.as_str())
    }

    /// The pointing it is at now.
    pub fn current(&self) -> Option<&Pointing> {
        self.stack.last()
    }

    fn log(&mut self, moved: &Move) {
        self.moves.insert(0, moved.clone());
        self.moves.truncate(MAX_MOVES);
    }
}

impl ChannelBook {
    /// The version `name` points at, for a named channel (not `draft`).
    pub fn version(&self, name: &str) -> Option<&str> {
        self.channels.get(name).and_then(Channel::version)
    }

    /// Points `name` at `version`, keeping the `depth` newest versions it pointed at (at
    /// least `MIN_DEPTH`, so that a rollback always has the one before). `None` when the
    /// channel already points there: nothing changes.
    pub fn publish(
        &mut self,
        name: &str,
        version: &str,
        by: &str,
        at: DateTime<Utc>,
        depth: usize,
    ) -> Result<Option<Move>, BookError> {
        check_name(name)?;
        if name == DRAFT {
            return Err(BookError::Draft);
        }
        // as stored: a book read back equals the one written
        let at = at.trunc_subsecs(3);
        let channel = self.channels.entry(name.to_owned()).or_default();
        let from = channel.version().map(str::to_owned);
        if from.as_deref() == Some(version) {
            return Ok(None);
        }
        channel.stack.push(Pointing {
            version: version.to_owned(),
            at,
            by: by.to_owned(),
        });
        let depth = depth.max(MIN_DEPTH);
        if channel.stack.len() > depth {
            let over = channel.stack.len() - depth;
            channel.stack.drain(..over);
        }
        let moved = Move {
            kind: MoveKind::Publish,
            from,
            to: version.to_owned(),
            at,
            by: by.to_owned(),
        };
        channel.log(&moved);
        self.rev += 1;
        Ok(Some(moved))
    }

    /// Points `name` back at the version it pointed at before its last publish.
    pub fn rollback(&mut self, name: &str, by: &str, at: DateTime<Utc>) -> Result<Move, BookError> {
        check_name(name)?;
        if name == DRAFT {
            return Err(BookError::Draft);
        }
        let known: Vec<String> = self.channels.keys().cloned().collect();
        let channel = self
            .channels
            .get_mut(name)
            .ok_or_else(|| BookError::Unknown {
                name: name.to_owned(),
                known,
            })?;
        let at = at.trunc_subsecs(3);
        if channel.stack.len() < 2 {
            return Err(BookError::NothingToRollBack {
                name: name.to_owned(),
                version: channel.version().unwrap_or_default().to_owned(),
            });
        }
        let from = channel.stack.pop().map(|p| p.version);
        let to = channel.version().unwrap_or_default().to_owned();
        let moved = Move {
            kind: MoveKind::Rollback,
            from,
            to,
            at,
            by: by.to_owned(),
        };
        channel.log(&moved);
        self.rev += 1;
        Ok(moved)
    }

    /// Every version some channel points at or can roll back to: the stores keep these
    /// whatever `translations.keep_versions` says.
    pub fn pinned(&self) -> BTreeSet<String> {
        (self.channels.values())
            .flat_map(|c| c.stack.iter().map(|p| p.version.clone()))
            .collect()
    }

    /// The names of the named channels, in order.
    pub fn names(&self) -> Vec<String> {
        self.channels.keys().cloned().collect()
    }
}

/// The bytes every store keeps for the book.
pub fn encode(book: &ChannelBook) -> Vec<u8> {
    // A map of strings, numbers and lists: serde_json cannot fail on it.
    serde_json::to_vec(book).unwrap_or_default()
}

/// The book of stored bytes.
pub fn decode(bytes: &[u8]) -> Result<ChannelBook, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("the channels record: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn at(n: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000 + n, 0).unwrap()
    }

    #[test]
    fn names_are_checked_and_draft_is_never_moved() {
        for good in ["production", "beta", "release-2.1", "a", "0", "x_y"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "Production",
            "-beta",
            ".x",
            "a/b",
            "a b",
            "é",
            "a%2F",
            "..",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_name(&"a".repeat(65)).is_err());
        let message = check_name("a/b").unwrap_err().to_string();
        assert!(
            message.starts_with("channel 'a/b' is not a channel name: "),
            "{message}"
        );
        let mut book = ChannelBook::default();
        assert_eq!(
            book.publish(DRAFT, "v1", "cli", at(0), 10),
            Err(BookError::Draft)
        );
        assert_eq!(book.rollback(DRAFT, "cli", at(0)), Err(BookError::Draft));
        assert_eq!(book.rev, 0);
    }

    #[test]
    fn publish_pushes_rollback_pops_and_both_are_logged() {
        let mut book = ChannelBook::default();
        let first = book
            .publish("production", "v1", "cli", at(1), 10)
            .unwrap()
            .unwrap();
        assert_eq!((first.from, first.to.as_str()), (None, "v1"));
        book.publish("production", "v2", "key sha256:ab", at(2), 10)
            .unwrap();
        // the same version again changes nothing
        assert_eq!(book.publish("production", "v2", "cli", at(3), 10), Ok(None));
        assert_eq!(book.rev, 2);
        let back = book.rollback("production", "cli", at(4)).unwrap();
        assert_eq!(
            (back.kind, back.from.as_deref(), back.to.as_str()),
            (MoveKind::Rollback, Some("v2"), "v1")
        );
        assert_eq!(book.version("production"), Some("v1"));
        assert_eq!(
            book.rollback("production", "cli", at(5)),
            Err(BookError::NothingToRollBack {
                name: "production".into(),
                version: "v1".into()
            })
        );
        let kinds: Vec<MoveKind> = book.channels["production"]
            .moves
            .iter()
            .map(|m| m.kind)
            .collect();
        assert_eq!(
            kinds,
            [MoveKind::Rollback, MoveKind::Publish, MoveKind::Publish]
        );
        assert!(matches!(
            book.rollback("beta", "cli", at(6)),
            Err(BookError::Unknown { .. })
        ));
        let round = decode(&encode(&book)).unwrap();
        assert_eq!(round, book);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Publish(u8, u8),
        Rollback(u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u8..3, 0u8..6).prop_map(|(c, v)| Op::Publish(c, v)),
            (0u8..3).prop_map(Op::Rollback),
        ]
    }

    proptest! {
        /// Any sequence of publishes and rollbacks keeps the invariants: each channel's
        /// stack is never empty, at most `depth` deep, its top is where it points, a
        /// rollback returns to the version under the top (as a plain stack model says),
        /// the revision counts the changes, and the pinned versions are exactly those of
        /// the stacks.
        #[test]
        fn publish_and_rollback_sequences_keep_the_invariants(
            ops in proptest::collection::vec(op(), 0..60),
            depth in 1usize..6,
        ) {
            let names = ["production", "beta", "qa"];
            let mut book = ChannelBook::default();
            let mut model: BTreeMap<&str, Vec<String>> = BTreeMap::new();
            let mut changes = 0u64;
            for (n, op) in ops.iter().enumerate() {
                let now = at(n as i64);
                match *op {
                    Op::Publish(c, v) => {
                        let name = names[c as usize];
                        let version = format!("v{v}");
                        let moved = book.publish(name, &version, "t", now, depth).unwrap();
                        let stack = model.entry(name).or_default();
                        if stack.last() == Some(&version) {
                            prop_assert!(moved.is_none());
                        } else {
                            let moved = moved.unwrap();
                            prop_assert_eq!(moved.from.as_ref(), stack.last());
                            stack.push(version);
                            let keep = depth.max(MIN_DEPTH);
                            if stack.len() > keep {
                                stack.remove(0);
                            }
                            changes += 1;
                        }
                    }
                    Op::Rollback(c) => {
                        let name = names[c as usize];
                        let result = book.rollback(name, "t", now);
                        match model.get_mut(name) {
                            Some(stack) if stack.len() >= 2 => {
                                let moved = result.unwrap();
                                prop_assert_eq!(moved.from.as_ref(), stack.last());
                                stack.pop();
                                prop_assert_eq!(Some(&moved.to), stack.last());
                                changes += 1;
                            }
                            _ => prop_assert!(result.is_err()),
                        }
                    }
                }
                prop_assert_eq!(book.rev, changes);
                for (name, channel) in &book.channels {
                    let stack: Vec<String> =
                        channel.stack.iter().map(|p| p.version.clone()).collect();
                    prop_assert!(!stack.is_empty());
                    prop_assert!(stack.len() <= depth.max(MIN_DEPTH));
                    prop_assert_eq!(&stack, &model[name.as_str()]);
                    prop_assert_eq!(channel.version(), stack.last().map(String::as_str));
                    prop_assert!(channel.moves.len() <= MAX_MOVES);
                }
                let pinned: BTreeSet<String> = model.values().flatten().cloned().collect();
                prop_assert_eq!(book.pinned(), pinned);
            }
        }
    }
}
