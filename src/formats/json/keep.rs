//! Patching an existing depot json file (SPEC §12.1): each text the sheet has gets its new value
//! in place, nested objects member by member; keys the sheet lacks stay as they are, and
//! new ones are appended at the end of their object (in order when its keys are sorted),
//! laid out as the file lays out its members.

use crate::formats::Format;
use crate::formats::keeping::Keep;
use crate::formats::shared::json_spans::{JsonKeep, Object, Role, SORTED};

/// How json files are patched.
pub(crate) const KEEP: Keep = Keep::Json(JsonKeep {
    rules,
    same: Some(Format::Json),
    restyle: None,
    orders: SORTED,
});

/// Objects are levels, every other value an entry.
fn rules(_: &[&str], object: Option<&Object>, _: &[u8]) -> Role {
    match object {
        Some(_) => Role::Level,
        None => Role::Entry,
    }
}
