//! Translations: the document model, the stores that keep it, and (as they land) the sheet
//! conversion, filters, formats and the HTTP route.

pub mod filter;
pub mod model;
pub mod sheet;
pub mod store;
