//! Translations: the document model, the stores that keep it, and (as they land) the sheet
//! conversion, filters and formats. The HTTP routes are `http::translations`.

pub mod bundles;
pub mod channels;
pub mod checks;
pub mod fallback;
pub mod filter;
pub mod follow;
pub mod formats;
pub mod langtag;
pub mod language_names;
pub mod layout;
pub mod locale;
pub mod model;
pub mod placeholders;
pub mod plurals;
pub mod query;
pub mod service;
pub mod sheet;
pub mod store;
pub mod tabs;
pub mod versions;

#[cfg(test)]
pub(crate) mod test_support;
