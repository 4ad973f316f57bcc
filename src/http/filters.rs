//! Small warp filters that every module's `routes(state)` shares.

use crate::http::state::AppState;
use std::convert::Infallible;
use std::sync::Arc;
use warp::Filter;

/// Hands each request the shared state.
pub fn with_state(
    state: Arc<AppState>,
) -> impl Filter<Extract = (Arc<AppState>,), Error = Infallible> + Clone {
    warp::any().map(move || state.clone())
}
