//! The channels' admin API (SPEC §14): `GET /channels` (draft and every named channel,
//! private ones to a request with a key), `POST /channels/{channel}/publish` with an
//! optional `{"version", "force"}` body and `POST /channels/{channel}/rollback` (admin key).
//! Who moved a channel is the admin key's fingerprint (`access::fingerprint`).

use crate::access::{Access, fingerprint};
use crate::http::ApiError;
use crate::http::auth::Caller;
use crate::http::error::ErrorCode;
use crate::http::routes::PathParams;
use crate::http::state::AppState;
use crate::translations::channels::Published;
use crate::translations::channels::book::{Channel, DRAFT, Move};
use serde_json::{Value, json};
use std::sync::Arc;
use warp::Reply;
use warp::http::{HeaderMap, header};
use warp::reply::Response;

/// The channel named by a path's first parameter.
pub fn channel_of(params: &PathParams) -> Result<String, ApiError> {
    let raw = params.0.first().map(String::as_str).unwrap_or_default();
    crate::percent::decode(raw).ok_or_else(|| {
        ApiError::BadRequest("the channel in the path is not valid percent-encoded UTF-8".into())
            .with_code(ErrorCode::InvalidChannel)
    })
}

/// The JSON of a channel's move (`ChannelMove` in /openapi.json).
pub fn move_json(channel: &str, moved: &Move, changed: bool) -> Value {
    json!({
        "channel": channel,
        "version": moved.to,
        "previousVersion": moved.from,
        "changed": changed,
        "at": crate::time::iso_millis(moved.at),
        "by": moved.by,
    })
}

/// Who an admin request is: its key's fingerprint.
fn who(headers: &HeaderMap) -> String {
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().split_once(' '))
        .map(|(_, key)| key.trim())
        .unwrap_or_default();
    fingerprint(presented)
}

/// `GET /channels`.
async fn list(state: Arc<AppState>, caller: Caller) -> Result<Response, ApiError> {
    let settings = state.config.settings();
    let access = (state.keys).access(&caller, &settings.auth, &settings.limits)?;
    let headers = &caller.headers;
    let with_key = matches!(access, Access::Reader | Access::Admin)
        && headers.contains_key(header::AUTHORIZATION);
    let book = state.channels.book();
    let current = state.translations.current();
    let mut channels = vec![json!({
        "name": DRAFT,
        "version": current.as_ref().map(|l| l.stored.version.clone()),
        "followsSheet": true,
        "private": settings.delivery.is_private(DRAFT),
        "history": [],
        "moves": [],
    })];
    for (name, channel) in &book.channels {
        let private = settings.delivery.is_private(name);
        if private && !with_key {
            continue;
        }
        channels.push(channel_json(name, channel, private));
    }
    Ok(warp::reply::json(&json!({ "channels": channels })).into_response())
}

fn channel_json(name: &str, channel: &Channel, private: bool) -> Value {
    let history: Vec<Value> = (channel.stack.iter().rev())
        .map(|p| json!({"version": p.version, "at": crate::time::iso_millis(p.at), "by": p.by}))
        .collect();
    json!({
        "name": name,
        "version": channel.version(),
        "followsSheet": false,
        "private": private,
        "history": history,
        "moves": channel.moves,
    })
}

/// The fields of a publish request.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PublishRequest {
    version: Option<String>,
    #[serde(default)]
    force: bool,
}

fn publish_request(body: &[u8]) -> Result<PublishRequest, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(PublishRequest::default());
    }
    serde_json::from_slice(body).map_err(|e| {
        ApiError::BadRequest(format!(
            "the body must be JSON {{\"version\": \"<id or 8+ characters>\", \"force\": true|false}} \
             (both optional): {e}"
        ))
    })
}

async fn publish(
    state: Arc<AppState>,
    params: PathParams,
    headers: HeaderMap,
    body: Vec<u8>,
) -> Result<Response, ApiError> {
    let channel = channel_of(&params)?;
    let request = publish_request(&body)?;
    let by = who(&headers);
    let depth = state.config.settings().translations.keep_versions;
    let channels = state.channels.clone();
    let name = channel.clone();
    let published = tokio::task::spawn_blocking(move || {
        channels.publish(&name, request.version.as_deref(), request.force, &by, depth)
    })
    .await
    .map_err(|e| ApiError::Internal(e.to_string()))??;
    let body = match published {
        Published::Moved(moved) => move_json(&channel, &moved, true),
        Published::Unchanged { version } => {
            let book = state.channels.book();
            let at = book.channels.get(&channel).and_then(Channel::current);
            json!({
                "channel": channel,
                "version": version,
                "previousVersion": version,
                "changed": false,
                "at": at.map(|p| crate::time::iso_millis(p.at)),
                "by": at.map(|p| p.by.clone()),
            })
        }
    };
    Ok(warp::reply::json(&body).into_response())
}

async fn rollback(
    state: Arc<AppState>,
    params: PathParams,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let channel = channel_of(&params)?;
    let by = who(&headers);
    let channels = state.channels.clone();
    let name = channel.clone();
    let moved = tokio::task::spawn_blocking(move || channels.rollback(&name, &by))
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?
        .map_err(ApiError::from)?;
    Ok(warp::reply::json(&move_json(&channel, &moved, true)).into_response())
}

/// `GET /channels`, `POST /channels/{channel}/publish`, `POST /channels/{channel}/rollback`.
pub fn routes(state: Arc<AppState>) -> warp::filters::BoxedFilter<(Response,)> {
    use crate::http::auth;
    use crate::http::error::respond;
    use crate::http::filters::with_state;
    use crate::http::routes::{self as table, on};
    use warp::Filter;

    let list_route = on(&table::CHANNELS)
        .and(with_state(state.clone()))
        .and(auth::caller())
        .then(|_, state, caller| async move { respond(list(state, caller).await) });
    // The admin key is checked before the body is read.
    let admin = |route| {
        on(route)
            .and(with_state(state.clone()))
            .and(auth::caller())
            .and_then(
                |params: PathParams, state: Arc<AppState>, caller: Caller| async move {
                    let settings = state.config.settings();
                    match (state.keys).require_admin(&caller, &settings.auth, &settings.limits) {
                        Ok(()) => Ok((params, state, caller.headers)),
                        Err(e) => Err(warp::reject::custom(e)),
                    }
                },
            )
            .untuple_one()
    };
    let publish_route = admin(&table::CHANNEL_PUBLISH)
        .and(warp::body::stream())
        .and_then(|params, state, headers, body| async move {
            match crate::http::uploads::read_limited(body).await {
                Ok(bytes) => Ok((params, state, headers, bytes)),
                Err(e) => Err(warp::reject::custom(e)),
            }
        })
        .untuple_one()
        .then(|params, state, headers, body| async move {
            respond(publish(state, params, headers, body).await)
        });
    let rollback_route =
        admin(&table::CHANNEL_ROLLBACK).then(|params, state, headers| async move {
            respond(rollback(state, params, headers).await)
        });
    list_route
        .or(publish_route)
        .unify()
        .or(rollback_route)
        .unify()
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publish_bodies_are_optional_and_checked_field_by_field() {
        let empty = publish_request(b"").unwrap();
        assert_eq!((empty.version, empty.force), (None, false));
        let full = publish_request(br#"{"version":"1a2b3c4d","force":true}"#).unwrap();
        assert_eq!(
            (full.version.as_deref(), full.force),
            (Some("1a2b3c4d"), true)
        );
        let err = publish_request(br#"{"versoin":"x"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `versoin`"), "{err}");
        assert!(publish_request(b"{").is_err());
    }

    #[test]
    fn who_is_the_fingerprint_of_the_key_never_the_key() {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, "Bearer s3cret".parse().unwrap());
        let by = who(&headers);
        assert!(by.starts_with("key sha256:") && by.len() == 19, "{by}");
        assert!(!by.contains("s3cret"));
    }
}
