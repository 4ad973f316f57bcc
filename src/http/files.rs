//! `GET /files`, `GET /file`, `POST /files`, `DELETE /file`: parse, check access, call
//! the repository, the signer or `writes`, answer. Every error goes through `ApiError`.

use crate::config::Settings;
use crate::content::ContentHandle;
use crate::files::query::download_from_params;
use crate::files::upload_form::{self, Part};
use crate::files::writes::{self, Uploads};
use crate::files::{FileRecord, FilesDb, ListQuery, Permission, download, key_from_params};
use crate::http::ApiError;
use crate::http::auth::{self, Caller, KeyGuard};
use crate::http::error::ErrorCode;
use crate::signing::Signer;
use bytes::Buf;
use futures_util::{Stream, TryStreamExt};
use serde::Serialize;
use std::sync::Arc;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

#[derive(Serialize)]
struct ListBody<'a> {
    data: &'a [FileRecord],
    meta: Meta,
}

#[derive(Serialize)]
struct Meta {
    /// A string of digits, as the contract says (totals may exceed what JSON numbers hold
    /// exactly in some clients).
    total: String,
    page: u64,
    limit: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SignedRecord<'a> {
    #[serde(flatten)]
    record: &'a FileRecord,
    signed_url: String,
}

pub async fn list_files(
    files: FilesDb,
    settings: Arc<Settings>,
    params: Vec<(String, String)>,
    keys: &KeyGuard,
    caller: Caller,
) -> Result<Response, ApiError> {
    let access = keys.access(&caller, &settings.auth, &settings.limits)?;
    let query = ListQuery::from_params(
        &params,
        settings.files.default_limit,
        settings.files.max_limit,
    )?;
    if query.permission == Some(Permission::Private) && !access.may_read_private() {
        return Err(ApiError::Unauthorized(
            "permission=private needs an API key: send 'Authorization: Bearer <api key>'".into(),
        ));
    }
    let (page, limit) = (query.page, query.limit);
    let found = files.list(query, access.may_read_private()).await?;
    let body = ListBody {
        data: &found.records,
        meta: Meta {
            total: found.total.to_string(),
            page,
            limit,
        },
    };
    Ok(warp::reply::json(&body).into_response())
}

pub async fn get_file(
    files: FilesDb,
    settings: Arc<Settings>,
    signer: Arc<Signer>,
    params: Vec<(String, String)>,
    keys: &KeyGuard,
    caller: Caller,
) -> Result<Response, ApiError> {
    let key = key_from_params(&params)?;
    let download = download_from_params(&params)?;
    let access = keys.access(&caller, &settings.auth, &settings.limits)?;
    let record = files.get_by_key(key.clone()).await?.ok_or_else(|| {
        ApiError::NotFound(format!("no file record has key '{key}'"))
            .with_code(ErrorCode::UnknownFile)
    })?;
    if record.permission == Permission::Private && !access.may_read_private() {
        return Err(ApiError::Unauthorized(
            "this file record is private: send 'Authorization: Bearer <api key>'".into(),
        ));
    }
    let signed_url = signed_url(&record, &settings, &signer, download)?;
    Ok(warp::reply::json(&SignedRecord {
        record: &record,
        signed_url,
    })
    .into_response())
}

/// The presigned GET URL of a record's content; with `download`, it also signs an
/// attachment disposition with the record's file name (also the console's download link).
pub fn signed_url(
    record: &FileRecord,
    settings: &Settings,
    signer: &Signer,
    download: bool,
) -> Result<String, ApiError> {
    let disposition = download.then(|| download::attachment(&record.file_name));
    let overrides: Vec<(&str, &str)> = disposition
        .iter()
        .map(|d| ("response-content-disposition", d.as_str()))
        .collect();
    Ok(signer.presign_get_with(
        &record.bucket,
        &record.key,
        settings.signing.expires_secs,
        chrono::Utc::now(),
        &overrides,
    )?)
}

/// `POST /files`, for a caller whose admin key the route checked before the body was read.
pub async fn create_file(
    files: FilesDb,
    content: &ContentHandle,
    form: warp::multipart::FormData,
) -> Result<Response, ApiError> {
    // Refused before the body is read.
    let uploads = Uploads::new(files, content.current()?)?;
    let record =
        upload_form::receive(&uploads, parts(form), &[], |_| Ok::<_, ApiError>(())).await?;
    Ok(warp::reply::with_status(warp::reply::json(&record), StatusCode::CREATED).into_response())
}

pub async fn delete_file(
    files: FilesDb,
    content: &ContentHandle,
    settings: Arc<Settings>,
    params: Vec<(String, String)>,
    keys: &KeyGuard,
    caller: Caller,
) -> Result<Response, ApiError> {
    keys.require_admin(&caller, &settings.auth, &settings.limits)?;
    let key = key_from_params(&params)?;
    writes::delete_record(&files, &*content.current()?, key).await?;
    Ok(warp::reply::with_status(warp::reply(), StatusCode::NO_CONTENT).into_response())
}

/// The parts of a multipart body, as the files domain reads an upload form
/// (`files::upload_form`).
pub(crate) fn parts(
    form: warp::multipart::FormData,
) -> impl Stream<Item = Result<Part<impl Stream<Item = Result<impl Buf, warp::Error>>>, warp::Error>>
{
    form.map_ok(|part| Part {
        name: part.name().to_owned(),
        file_name: part.filename().map(str::to_owned),
        content_type: part.content_type().map(str::to_owned),
        chunks: part.stream(),
    })
}

/// `GET /files`, `GET /file`, `POST /files` and `DELETE /file`.
pub fn routes(state: Arc<crate::http::state::AppState>) -> warp::filters::BoxedFilter<(Response,)> {
    use crate::http::error::respond;
    use crate::http::filters::with_state;
    use crate::http::query;
    use crate::http::routes::{self as table, on};
    use crate::http::state::AppState;
    use warp::Filter;

    let list = on(&table::FILES_LIST)
        .and(with_state(state.clone()))
        .and(query::params())
        .and(auth::caller())
        .then(|_, state: Arc<AppState>, params, caller| async move {
            let settings = state.config.settings();
            respond(list_files(state.files.clone(), settings, params, &state.keys, caller).await)
        });
    let get = on(&table::FILE_GET)
        .and(with_state(state.clone()))
        .and(query::params())
        .and(auth::caller())
        .and(crate::http::client::arrived_on())
        .then(
            |_, state: Arc<AppState>, params, caller, arrived_on| async move {
                let settings = state.config.settings();
                let signer = match state.signer(arrived_on) {
                    Ok(signer) => signer,
                    Err(e) => return e.into_response(),
                };
                let files = state.files.clone();
                respond(get_file(files, settings, signer, params, &state.keys, caller).await)
            },
        );
    let body_limit = state.config.settings().server.body_limit_bytes;
    let create = on(&table::FILES_CREATE)
        .and(with_state(state.clone()))
        .and(auth::caller())
        // The key is checked before the body is read.
        .and_then(|_, state: Arc<AppState>, caller: Caller| async move {
            let settings = state.config.settings();
            match state
                .keys
                .require_admin(&caller, &settings.auth, &settings.limits)
            {
                Ok(()) => Ok(state),
                Err(e) => Err(warp::reject::custom(e)),
            }
        })
        .and(warp::body::content_length_limit(body_limit))
        .and(warp::multipart::form().max_length(body_limit))
        .then(|state: Arc<AppState>, form| async move {
            respond(create_file(state.files.clone(), &state.content, form).await)
        });
    let delete = on(&table::FILE_DELETE)
        .and(with_state(state))
        .and(query::params())
        .and(auth::caller())
        .then(|_, state: Arc<AppState>, params, caller| async move {
            let settings = state.config.settings();
            let (files, content) = (state.files.clone(), &state.content);
            respond(delete_file(files, content, settings, params, &state.keys, caller).await)
        });
    list.or(get)
        .unify()
        .or(create)
        .unify()
        .or(delete)
        .unify()
        .boxed()
}
