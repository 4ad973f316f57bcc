//! Every HTTP answer: the accept loop and the service around the routes (request-target
//! rule, CORS, HEAD, panics, nosniff and sandbox headers, request log), the route table,
//! errors to responses, metrics, and the handlers of each domain (`files`, `translations`,
//! `objects`, `console`, the system endpoints). The domains know no HTTP: the handlers here
//! parse, call them, and answer.

pub mod accept;
pub mod auth;
pub mod channels;
pub mod client;
pub mod consent_callback;
pub mod console;
pub mod cors;
pub mod error;
pub mod error_code;
pub mod files;
pub mod filters;
pub mod metrics;
pub mod object_writes;
pub mod objects;
pub mod openapi;
pub mod query;
pub mod routes;
pub mod s3_error;
pub mod s3_xml;
pub mod sandbox;
pub mod sdk;
pub mod service;
pub mod state;
pub mod system;
pub mod target;
pub mod translation_events;
pub mod translations;
pub mod uploads;

pub use error::ApiError;
