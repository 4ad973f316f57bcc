//! The console (SPEC §10): HTML pages for translators and operators. Here is what the pages
//! show (`views`, computed without I/O, and the templates of `pages`), who may see them
//! (`session`: a login with an API key, its CSRF token) and the login throttle (`throttle`).
//! The requests themselves are answered by `http::console`, from the one route table.

pub mod pages;
pub mod session;
pub mod throttle;
pub mod views;
