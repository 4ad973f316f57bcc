//! Translations: the document model, the stores that keep it, and (as they land) the sheet
//! conversion, filters and formats. The HTTP routes are `http::translations`.

pub mod bundles;
pub mod channels;
pub mod follow;
pub mod language_names;
pub mod query;
pub mod service;
pub mod store;
pub mod tabs;
pub mod versions;
