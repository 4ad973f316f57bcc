//! The HTTP edge shared by every route: the route table, errors to responses, metrics,
//! and the system endpoints (health, metrics, OpenAPI).

pub mod auth;
pub mod encoding;
pub mod error;
pub mod metrics;
pub mod query;
pub mod routes;
pub mod system;

pub use error::ApiError;
