//! The console (SPEC §10): HTML pages for translators and operators. Here is what the pages
//! show (`views`, computed without I/O, and the templates of `pages`), who may see them
//! (`session`: a login with an API key, its CSRF token), the login throttle (`throttle`) and
//! the folding of texts that makes the search blind to case and accents (`fold`).
//! The requests themselves are answered by `http::console`, from the one route table.

pub mod channels;
pub mod fold;
pub mod pages;
pub mod session;
pub mod throttle;
pub mod views;

use crate::translations::service::Live;
use std::sync::{Arc, Mutex, PoisonError};
use views::{Found, Index, LocaleProgress, Reported, Search, SearchError, SheetLink};

/// A view's computation stopped before it finished (its blocking thread panicked).
#[derive(Debug, thiserror::Error)]
#[error("the {task} task stopped: {reason}")]
pub struct Stopped {
    task: &'static str,
    reason: String,
}

/// The overview's completeness per locale and the findings and warnings it reports: a pass
/// over every text of the sheet, so on a blocking thread.
pub async fn overview(
    live: Arc<Live>,
    link: SheetLink,
) -> Result<(Vec<LocaleProgress>, Reported), Stopped> {
    off_thread("overview", move || {
        let doc = &live.stored.document;
        let base = crate::model::locale::base_locale(doc);
        (views::completeness(doc, base), views::reported(doc, &link))
    })
    .await
}

/// What the translations page found, and the sections and tags it offers to narrow by.
pub struct Searched {
    pub found: Result<Found, SearchError>,
    pub sections: Vec<String>,
    pub tags: Vec<String>,
}

/// The folded texts of the version searched last (`views::Index`): folded at the first
/// search of a version, then reused by every search of it.
#[derive(Default)]
pub struct SearchIndex {
    last: Mutex<Option<(String, Arc<Index>)>>,
}

impl SearchIndex {
    /// The index of `live`'s version, made now if it is not the one held (blocking: a pass
    /// over every text). Searches that arrive while it is made wait for it rather than
    /// fold the sheet again.
    fn of(&self, live: &Live) -> Arc<Index> {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        match &*last {
            Some((version, index)) if *version == live.stored.version => index.clone(),
            _ => {
                let index = Arc::new(Index::new(&live.stored.document));
                *last = Some((live.stored.version.clone(), index.clone()));
                index
            }
        }
    }
}

/// The translations page's search: a scan of every text of a big sheet, so on a blocking
/// thread.
pub async fn search(
    live: Arc<Live>,
    index: Arc<SearchIndex>,
    search: Search,
) -> Result<Searched, Stopped> {
    off_thread("search", move || {
        let doc = &live.stored.document;
        let base = crate::model::locale::base_locale(doc);
        let folded = index.of(&live);
        Searched {
            found: views::search(doc, &folded, &search, base),
            sections: views::sections(doc),
            tags: views::tags(doc),
        }
    })
    .await
}

async fn off_thread<T: Send + 'static>(
    task: &'static str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Stopped> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Stopped {
            task,
            reason: e.to_string(),
        })
}
