//! The console's page of the channels (SPEC §14): where each points, since when and on
//! whose word, the versions it can roll back to, its moves; for an admin session, forms to
//! publish and roll back, each shown again as a confirmation before it is sent.

use super::pages::Chrome;
use crate::translations::channels::book::{Channel, ChannelBook, MoveKind};
use crate::translations::versions::History;
use askama::Template;

#[derive(Template)]
#[template(path = "console/channels.html")]
pub struct Channels {
    pub chrome: Chrome,
    pub notice: Option<String>,
    /// draft first, then every named channel.
    pub channels: Vec<ChannelRow>,
    /// The kept versions a publish can choose, newest first.
    pub versions: Vec<VersionChoice>,
    /// The CSRF token of the forms, for an admin session.
    pub csrf: Option<String>,
    /// The move to confirm.
    pub confirm: Option<Confirmation>,
    /// `delivery.max_age_secs`: how soon apps see a move.
    pub max_age_secs: u64,
}

pub struct ChannelRow {
    pub name: String,
    pub version: Option<String>,
    pub short: String,
    pub since: String,
    pub by: String,
    pub follows_sheet: bool,
    pub private: bool,
    /// The versions it can roll back to, newest first (the current one left out).
    pub earlier: Vec<String>,
    /// Its moves, newest first: (what, from → to, when, by).
    pub moves: Vec<MoveRow>,
}

pub struct MoveRow {
    pub kind: &'static str,
    pub from: String,
    pub to: String,
    pub at: String,
    pub by: String,
}

pub struct VersionChoice {
    pub version: String,
    pub label: String,
}

/// A move shown for confirmation before it is sent.
pub struct Confirmation {
    /// `publish` or `rollback`.
    pub action: &'static str,
    pub channel: String,
    pub from: Option<String>,
    pub to: String,
    /// The findings of the checks in the version to publish, with the first.
    pub findings: usize,
    pub first_finding: String,
}

fn short(version: &str) -> String {
    version.chars().take(8).collect()
}

/// The rows of the page: draft (the current version), then each named channel.
pub fn rows(
    book: &ChannelBook,
    current: Option<&str>,
    is_private: impl Fn(&str) -> bool,
) -> Vec<ChannelRow> {
    let time = |t| crate::time::iso_millis(t);
    let mut rows = vec![ChannelRow {
        name: crate::translations::channels::book::DRAFT.to_owned(),
        version: current.map(str::to_owned),
        short: current.map(short).unwrap_or_default(),
        since: String::new(),
        by: "the sheet".to_owned(),
        follows_sheet: true,
        private: is_private("draft"),
        earlier: Vec::new(),
        moves: Vec::new(),
    }];
    for (name, channel) in &book.channels {
        rows.push(row(name, channel, is_private(name), &time));
    }
    rows
}

fn row(
    name: &str,
    channel: &Channel,
    private: bool,
    time: &dyn Fn(chrono::DateTime<chrono::Utc>) -> String,
) -> ChannelRow {
    let current = channel.current();
    ChannelRow {
        name: name.to_owned(),
        version: current.map(|p| p.version.clone()),
        short: current.map(|p| short(&p.version)).unwrap_or_default(),
        since: current.map(|p| time(p.at)).unwrap_or_default(),
        by: current.map(|p| p.by.clone()).unwrap_or_default(),
        follows_sheet: false,
        private,
        earlier: (channel.stack.iter().rev().skip(1))
            .map(|p| short(&p.version))
            .collect(),
        moves: (channel.moves.iter())
            .map(|m| MoveRow {
                kind: match m.kind {
                    MoveKind::Publish => "published",
                    MoveKind::Rollback => "rolled back",
                },
                from: m
                    .from
                    .as_deref()
                    .map(short)
                    .unwrap_or_else(|| "–".to_owned()),
                to: short(&m.to),
                at: time(m.at),
                by: m.by.clone(),
            })
            .collect(),
    }
}

/// The kept versions, newest first, as a publish form offers them.
pub fn choices(history: &History) -> Vec<VersionChoice> {
    (history.versions.iter())
        .enumerate()
        .map(|(i, v)| VersionChoice {
            version: v.version.clone(),
            label: format!(
                "{} ({}{})",
                short(&v.version),
                crate::time::iso_millis(v.updated_at),
                if i == 0 { ", current" } else { "" }
            ),
        })
        .collect()
}
