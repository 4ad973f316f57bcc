//! `POST /files/uploads` and `POST /files/uploads/{key}/complete` (SPEC §13): parse the
//! JSON, check the admin key (before the body is read), call `files::uploads`, answer 201.

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

use super::state::AppState;
use crate::files::Permission;
use crate::files::uploads::{DirectUploads, Plan, UploadRequest};
use crate::http::ApiError;
use crate::http::error::ErrorCode;
use crate::http::routes::PathParams;

/// Largest JSON body of either route (a completion of 10,000 parts is about 600 KB).
const BODY_LIMIT: u64 = 2 * 1024 * 1024;

/// The body, at most `BODY_LIMIT` bytes. A completion may have none at all, so a missing
/// `Content-Length` is no error here (as it is for warp's length limit).
pub(crate) async fn read_limited<S, B>(body: S) -> Result<Vec<u8>, ApiError>
where
    S: futures_util::Stream<Item = Result<B, warp::Error>>,
    B: bytes::Buf,
{
    use futures_util::TryStreamExt;
    futures_util::pin_mut!(body);
    let mut out = Vec::new();
    while let Some(mut chunk) = body
        .try_next()
        .await
        .map_err(|e| ApiError::BadRequest(format!("cannot read the body: {e}")))?
    {
        if (out.len() + chunk.remaining()) as u64 > BODY_LIMIT {
            return Err(ApiError::PayloadTooLarge(format!(
                "the body is larger than {BODY_LIMIT} bytes"
            )));
        }
        out.extend_from_slice(&chunk.copy_to_bytes(chunk.remaining()));
    }
    Ok(out)
}

/// The fields of `POST /files/uploads`.
const UPLOAD_FIELDS: &[&str] = &[
    "fileName",
    "size",
    "contentType",
    "bucket",
    "permission",
    "description",
    "status",
    "fileType",
    "sha256",
];

/// The body of `POST /files/uploads`, read field by field so that an error names the field.
fn upload_request(body: &[u8]) -> Result<UploadRequest, ApiError> {
    let object = json_object(
        body,
        "a JSON object like {\"fileName\": \"a.png\", \"size\": 1234}",
    )?;
    let bad = |m: String| ApiError::BadRequest(m).with_code(ErrorCode::InvalidUpload);
    for name in object.keys() {
        if !UPLOAD_FIELDS.contains(&name.as_str()) {
            return Err(bad(format!(
                "unknown field '{name}'; allowed: {}",
                UPLOAD_FIELDS.join(", ")
            )));
        }
    }
    let text = |name: &str| -> Result<Option<String>, ApiError> {
        match object.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(bad(format!("{name} must be a string, got {other}"))),
        }
    };
    let file_name = text("fileName")?
        .ok_or_else(|| bad("fileName is required: the file's name, e.g. \"photo.png\"".into()))?;
    let size = match object.get("size") {
        Some(Value::Number(n)) => n.as_u64().ok_or_else(|| {
            bad(format!(
                "size must be a whole number of bytes (0 or more), got {n}"
            ))
        })?,
        None | Some(Value::Null) => {
            return Err(bad(
                "size is required: the file's length in bytes (the upload is bound to it)".into(),
            ));
        }
        Some(other) => {
            return Err(bad(format!(
                "size must be a whole number of bytes (0 or more), got {other}"
            )));
        }
    };
    let permission = text("permission")?
        .map(|p| {
            p.parse::<Permission>()
                .map_err(|_| bad(format!("permission must be public or private, got '{p}'")))
        })
        .transpose()?;
    let status = match object.get("status") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => Some(
            n.as_i64()
                .ok_or_else(|| bad(format!("status must be an integer, got {n}")))?,
        ),
        Some(other) => return Err(bad(format!("status must be an integer, got {other}"))),
    };
    Ok(UploadRequest {
        file_name,
        size,
        content_type: text("contentType")?,
        bucket: text("bucket")?,
        permission,
        description: text("description")?,
        status,
        file_type: text("fileType")?,
        sha256: text("sha256")?,
    })
}

/// The body of a completion: `{"parts": [{"partNumber": 1, "etag": "\"…\""}, …]}`, or
/// nothing (an empty body, `{}`) for an upload of one PUT.
fn completion_parts(body: &[u8]) -> Result<Option<Vec<(u32, String)>>, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let shape = "{\"parts\": [{\"partNumber\": 1, \"etag\": \"...\"}, ...]}";
    let object = json_object(body, shape)?;
    let bad = |m: String| ApiError::BadRequest(m).with_code(ErrorCode::InvalidParts);
    if let Some(name) = object.keys().find(|k| *k != "parts") {
        return Err(bad(format!("unknown field '{name}'; allowed: parts")));
    }
    let parts = match object.get("parts") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(parts)) => parts,
        Some(other) => {
            return Err(bad(format!(
                "parts must be a list like {shape}, got {other}"
            )));
        }
    };
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let number = part
                .get("partNumber")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok());
            let etag = part.get("etag").and_then(Value::as_str);
            match (number, etag, part.as_object().map(Map::len)) {
                (Some(number), Some(etag), Some(2)) => Ok((number, etag.to_owned())),
                _ => Err(bad(format!(
                    "parts[{i}] must be {{\"partNumber\": <1 to 10000>, \"etag\": \"<the ETag its PUT answered>\"}}, got {part}"
                ))),
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn json_object(body: &[u8], shape: &str) -> Result<Map<String, Value>, ApiError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(ApiError::BadRequest(format!("the body must be {shape}"))),
        Err(e) => Err(ApiError::BadRequest(format!(
            "the body is not valid JSON ({e}); it must be {shape}"
        ))),
    }
}

/// The answer of `POST /files/uploads`.
fn plan_json(plan: Plan) -> Value {
    match plan {
        Plan::Single {
            key,
            url,
            headers,
            expires_at,
        } => json!({
            "key": key,
            "upload": {
                "method": "PUT",
                "url": url,
                "headers": headers
                    .into_iter()
                    .map(|(name, value)| (name, Value::String(value)))
                    .collect::<Map<String, Value>>(),
                "expiresAt": crate::time::iso_millis(expires_at),
            },
        }),
        Plan::Multipart {
            key,
            upload_id,
            part_size,
            parts,
            expires_at,
        } => json!({
            "key": key,
            "uploadId": upload_id,
            "partSize": part_size,
            "parts": parts
                .into_iter()
                .map(|(number, url)| json!({"partNumber": number, "url": url}))
                .collect::<Vec<_>>(),
            "expiresAt": crate::time::iso_millis(expires_at),
        }),
    }
}

/// The uploads of the configuration in force, for a request that came in on `arrived_on`.
fn direct_uploads(
    state: &AppState,
    arrived_on: Option<SocketAddr>,
) -> Result<DirectUploads, ApiError> {
    let settings = state.config.settings();
    Ok(DirectUploads::new(
        state.files.clone(),
        state.store()?,
        state.signer(arrived_on)?,
        &settings.files,
    )?)
}

async fn begin(
    state: &AppState,
    arrived_on: Option<SocketAddr>,
    body: &[u8],
) -> Result<Response, ApiError> {
    let request = upload_request(body)?;
    let plan = direct_uploads(state, arrived_on)?
        .begin(request, chrono::Utc::now())
        .await?;
    Ok(
        warp::reply::with_status(warp::reply::json(&plan_json(plan)), StatusCode::CREATED)
            .into_response(),
    )
}

async fn complete(
    state: &AppState,
    arrived_on: Option<SocketAddr>,
    params: &PathParams,
    body: &[u8],
) -> Result<Response, ApiError> {
    let key = params
        .0
        .first()
        .and_then(|raw| crate::percent::decode(raw))
        .ok_or_else(|| {
            ApiError::BadRequest(
                "the key in the path is not valid URL encoding: a % must start a two-digit hex escape".into(),
            )
            .with_code(ErrorCode::InvalidParameter)
        })?;
    let parts = completion_parts(body)?;
    let record = direct_uploads(state, arrived_on)?
        .complete(&key, parts, chrono::Utc::now())
        .await?;
    Ok(warp::reply::with_status(warp::reply::json(&record), StatusCode::CREATED).into_response())
}

/// `POST /files/uploads` and `POST /files/uploads/{key}/complete`.
pub fn routes(state: Arc<AppState>) -> warp::filters::BoxedFilter<(Response,)> {
    use crate::http::auth;
    use crate::http::filters::with_state;
    use crate::http::routes::{self as table, on};
    use warp::Filter;

    // The admin key is checked before the body is read.
    let admin = |route| {
        on(route)
            .and(with_state(state.clone()))
            .and(auth::caller())
            .and_then(
                |params: PathParams, state: Arc<AppState>, caller: auth::Caller| async move {
                    let settings = state.config.settings();
                    match state
                        .keys
                        .require_admin(&caller, &settings.auth, &settings.limits)
                    {
                        Ok(()) => Ok((params, state)),
                        Err(e) => Err(warp::reject::custom(e)),
                    }
                },
            )
            .untuple_one()
            .and(warp::body::stream())
            .and_then(|params, state, body| async move {
                match read_limited(body).await {
                    Ok(bytes) => Ok((params, state, bytes)),
                    Err(e) => Err(warp::reject::custom(e)),
                }
            })
            .untuple_one()
    };
    let begin_route = admin(&table::FILES_UPLOAD)
        .and(crate::http::client::arrived_on())
        .then(
            |_, state: Arc<AppState>, body: Vec<u8>, arrived_on| async move {
                crate::http::error::respond(begin(&state, arrived_on, &body).await)
            },
        );
    let complete_route = admin(&table::FILES_UPLOAD_COMPLETE)
        .and(crate::http::client::arrived_on())
        .then(
            |params: PathParams, state: Arc<AppState>, body: Vec<u8>, arrived_on| async move {
                crate::http::error::respond(complete(&state, arrived_on, &params, &body).await)
            },
        );
    begin_route.or(complete_route).unify().boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_bodies_are_read_field_by_field() {
        let request = upload_request(
            br#"{"fileName":"a.png","size":5,"permission":"private","status":2,"sha256":null}"#,
        )
        .unwrap();
        assert_eq!(
            (
                request.size,
                request.permission,
                request.status,
                request.sha256
            ),
            (5, Some(Permission::Private), Some(2), None)
        );
        for (body, message) in [
            (
                &br#"{"size":5}"#[..],
                "fileName is required: the file's name, e.g. \"photo.png\"",
            ),
            (
                br#"{"fileName":"a"}"#,
                "size is required: the file's length in bytes (the upload is bound to it)",
            ),
            (
                br#"{"fileName":"a","size":-1}"#,
                "size must be a whole number of bytes (0 or more), got -1",
            ),
            (
                br#"{"fileName":"a","size":"5"}"#,
                "size must be a whole number of bytes (0 or more), got \"5\"",
            ),
            (
                br#"{"fileName":"a","size":5,"permission":"open"}"#,
                "permission must be public or private, got 'open'",
            ),
            (
                br#"{"fileName":7,"size":5}"#,
                "fileName must be a string, got 7",
            ),
            (
                br#"{"fileName":"a","size":5,"name":"x"}"#,
                "unknown field 'name'; allowed: fileName, size, contentType, bucket, permission, description, status, fileType, sha256",
            ),
            (
                br#"[1]"#,
                "the body must be a JSON object like {\"fileName\": \"a.png\", \"size\": 1234}",
            ),
        ] {
            assert_eq!(
                upload_request(body).unwrap_err().to_string(),
                message,
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        assert!(
            upload_request(b"{")
                .unwrap_err()
                .to_string()
                .starts_with("the body is not valid JSON")
        );
    }

    #[test]
    fn completion_bodies_give_the_parts() {
        assert_eq!(completion_parts(b"").unwrap(), None);
        assert_eq!(completion_parts(b"{}").unwrap(), None);
        assert_eq!(
            completion_parts(
                br#"{"parts":[{"partNumber":2,"etag":"\"b\""},{"etag":"a","partNumber":1}]}"#
            )
            .unwrap(),
            Some(vec![(2, "\"b\"".into()), (1, "a".into())])
        );
        for body in [
            &br#"{"parts":[{"partNumber":0.5,"etag":"a"}]}"#[..],
            br#"{"parts":[{"partNumber":1}]}"#,
            br#"{"parts":[{"partNumber":1,"etag":"a","x":1}]}"#,
            br#"{"parts":"all"}"#,
            br#"{"part":[]}"#,
        ] {
            assert!(
                completion_parts(body).is_err(),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
