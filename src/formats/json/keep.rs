//! Patching an existing depot json file (SPEC §12.1): each text the sheet has gets its new value
//! in place, nested objects member by member; keys the sheet lacks stay as they are, and
//! new ones are appended at the end of their object.

use std::collections::HashSet;

use crate::formats::Format;
use crate::formats::keeping::{KeepError, Patched};
use crate::formats::shared::json_spans::{self, Object, Role};

/// `keeping::Patcher` for json.
pub fn patch(existing: &[u8], fresh: &[u8], _: &HashSet<String>) -> Result<Patched, KeepError> {
    json_spans::patch(existing, fresh, rules, Some(Format::Json))
}

/// Objects are levels, every other value an entry.
fn rules(_: &[&str], object: Option<&Object>, _: &[u8]) -> Role {
    match object {
        Some(_) => Role::Level,
        None => Role::Entry,
    }
}
