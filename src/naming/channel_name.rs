//! The rule for a channel's name (SPEC §14), which the channels keep and the settings'
//! `delivery.private_channels` are checked by.

/// Longest channel name.
pub const MAX_NAME_CHARS: usize = 64;

/// A name that is not a channel's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "channel '{shown}' is not a channel name: {why}; a name is 1 to {MAX_NAME_CHARS} \
     lower-case letters, digits, '-', '_' or '.', starting with a letter or a digit \
     (production, beta, release-2.1)",
    shown = shown(.name)
)]
pub struct InvalidChannelName {
    pub name: String,
    pub why: &'static str,
}

fn shown(name: &str) -> String {
    name.chars().take(80).collect()
}

/// Checks a channel's name: safe in a URL path segment, a Redis value and a log line.
pub fn check(name: &str) -> Result<(), InvalidChannelName> {
    let invalid = |why| InvalidChannelName {
        name: name.to_owned(),
        why,
    };
    if name.is_empty() {
        return Err(invalid("it is empty"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(invalid("it is too long"));
    }
    if !name
        .bytes()
        .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.'))
    {
        return Err(invalid(
            "it holds a character other than a-z, 0-9, '-', '_', '.'",
        ));
    }
    if !name.as_bytes()[0].is_ascii_alphanumeric() {
        return Err(invalid("it does not start with a letter or a digit"));
    }
    Ok(())
}
