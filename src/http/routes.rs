//! Every HTTP route in one table. The router matches requests through `on(&ROUTE)`, the
//! OpenAPI document (`http::openapi`) and the metrics labels are generated from the same
//! table, so the documentation cannot drift from what is served.

mod delivery;

pub use delivery::*;

use super::error::{ApiError, WrongMethod};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::Method;
use warp::path::FullPath;

/// The type of a parameter's value, for the OpenAPI document.
#[derive(Debug, Clone, Copy)]
pub enum Schema {
    Text,
    Boolean,
    /// An integer of at least `minimum`.
    Integer {
        minimum: i64,
    },
    /// One of the words the function lists (taken from the domain type, so they agree).
    Enum(fn() -> Vec<&'static str>),
}

/// A query, path or header parameter, for the OpenAPI document.
#[derive(Debug)]
pub struct Param {
    pub name: &'static str,
    pub location: &'static str,
    pub required: bool,
    pub description: &'static str,
    pub schema: Schema,
}

/// What a response carries, for the OpenAPI document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// No body (204, 304).
    Empty,
    /// JSON of a named schema of the document's components.
    Json(&'static str),
    /// The contract's JSON error body.
    Error,
    /// An S3-style XML error (the embedded object store).
    S3Error,
    /// Object bytes.
    Binary,
    /// Text of this media type.
    Text(&'static str),
    /// The translations in the requested format.
    Translations,
}

/// One documented answer of a route.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub description: &'static str,
    pub content: Content,
    /// Response headers worth a client's attention, documented by `http::openapi`.
    pub headers: &'static [&'static str],
}

const fn reply(status: u16, description: &'static str, content: Content) -> Reply {
    Reply {
        status,
        description,
        content,
        headers: &[],
    }
}

const fn error(status: u16, description: &'static str) -> Reply {
    reply(status, description, Content::Error)
}

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Open,
    /// Open, with more (private records) for a valid `Authorization: Bearer <api key>`.
    OptionalKey,
    /// `Authorization: Bearer <admin key>`.
    AdminKey,
    /// A SigV4 query signature (documented as query parameters).
    Signature,
    /// A console session (the `depot_session` cookie of `POST /console/login`) once API keys
    /// are configured; open without keys. A page sends a visitor without one to the login
    /// form.
    Session,
}

/// One method on one path template. Templates use `{name}` for one segment and
/// `{name+}` for the rest of the path (slashes included).
#[derive(Debug)]
pub struct Route {
    pub method: &'static str,
    pub path: &'static str,
    pub summary: &'static str,
    pub params: &'static [Param],
    pub responses: &'static [Reply],
    pub access: Access,
    /// The request body, as a schema name of the document's components (multipart form).
    pub upload: Option<&'static str>,
    /// A JSON request body, as a schema name of the document's components.
    pub json_body: Option<&'static str>,
}

const fn route(method: &'static str, path: &'static str, summary: &'static str) -> Route {
    Route {
        method,
        path,
        summary,
        params: &[],
        responses: &[],
        access: Access::Open,
        upload: None,
        json_body: None,
    }
}

pub const HEALTH: Route = Route {
    responses: &[reply(200, "status document", Content::Json("Health"))],
    ..route(
        "GET",
        "/health",
        "Liveness, version, configuration revision and translations status",
    )
};

pub const METRICS: Route = Route {
    responses: &[reply(
        200,
        "Prometheus text format 0.0.4",
        Content::Text("text/plain"),
    )],
    ..route(
        "GET",
        "/metrics",
        "Prometheus metrics: requests and latency per route and status",
    )
};

pub const OPENAPI: Route = Route {
    responses: &[reply(
        200,
        "OpenAPI 3.0 document",
        Content::Json("OpenApiDocument"),
    )],
    ..route("GET", "/openapi.json", "This API description")
};

const fn query(name: &'static str, description: &'static str, schema: Schema) -> Param {
    Param {
        name,
        location: "query",
        required: false,
        description,
        schema,
    }
}

fn format_names() -> Vec<&'static str> {
    crate::formats::Format::ALL
        .iter()
        .map(|f| f.name())
        .collect()
}

fn placeholder_modes() -> Vec<&'static str> {
    crate::formats::PlaceholderMode::NAMES.to_vec()
}

fn permission_names() -> Vec<&'static str> {
    use crate::files::Permission;
    [Permission::Public, Permission::Private]
        .iter()
        .map(|p| p.as_str())
        .collect()
}

pub const TRANSLATIONS: Route = Route {
    params: &[
        query(
            "filters[]",
            "repeatable: locale, locale.SECTION[.SUB...], locale.tag, locale.SECTION.tag, or * / no locale for every locale; the union is served",
            Schema::Text,
        ),
        query(
            "format",
            "output format, json by default",
            Schema::Enum(format_names),
        ),
        query(
            "keepLocale",
            "true: flat formats prefix names with the locale even for one locale; arb and i18next answer an object keyed by locale (as for several locales)",
            Schema::Boolean,
        ),
        query(
            "comments",
            "true: write the $$$ column as the format's comments",
            Schema::Boolean,
        ),
        query(
            "version",
            "a kept version (GET /translations/versions), by its id or its first 8 or more characters when no other kept version starts with them: served immutable, with every filter and format",
            Schema::Text,
        ),
        query(
            "placeholders",
            "keep: {name} placeholders as the sheet writes them; convert: each format's syntax (%1$s, %1$@, %{name}, ICU); default translations.placeholders",
            Schema::Enum(placeholder_modes),
        ),
        query(
            "fallback",
            "true: a missing text is taken along the chain of translations.fallback (400 fallback-not-configured when the server configures none)",
            Schema::Boolean,
        ),
        Param {
            name: "If-None-Match",
            location: "header",
            required: false,
            description: "an ETag of an earlier answer: 304 when it still holds",
            schema: Schema::Text,
        },
    ],
    responses: &[
        Reply {
            headers: &["ETag", "Depot-Warnings"],
            ..reply(
                200,
                "the translations; Cache-Control, gzip/br on request",
                Content::Translations,
            )
        },
        Reply {
            headers: &["ETag"],
            ..reply(304, "If-None-Match matched", Content::Empty)
        },
        error(
            400,
            "unknown parameter, malformed filter, unknown format, or a version prefix too short or shared by several kept versions",
        ),
        error(
            404,
            "no filter matched anything, or the version is not kept",
        ),
        error(422, "a text the chosen format cannot carry"),
        error(503, "no translations loaded yet"),
    ],
    ..route(
        "GET",
        "/translations",
        "The current translations, filtered, in one of the formats `format` names",
    )
};

/// The answer of a route that takes a key to a client address that sent too many wrong
/// ones (`http::auth::KeyGuard`).
const KEY_THROTTLED: Reply = error(
    429,
    "too many wrong API keys from this client address (limits.api_key_attempts, then one more per limits.api_key_refill_secs): every request with a key waits, the right key too; Retry-After says how long",
);

pub const TRANSLATIONS_SYNC: Route = Route {
    responses: &[
        reply(
            200,
            "the sync's result: the current version and whether it changed",
            Content::Json("SyncResult"),
        ),
        error(401, "no admin key"),
        error(
            403,
            "not an admin key, or writes are off (no auth.admin_keys)",
        ),
        KEY_THROTTLED,
        error(
            502,
            "the sheet's source failed or gave no usable sheet; the last good version is still served",
        ),
        error(503, "the translations store cannot be reached"),
    ],
    access: Access::AdminKey,
    ..route(
        "POST",
        "/translations/sync",
        "Sync the sheet now (or wait for the sync under way); admin key",
    )
};

pub const TRANSLATIONS_EVENTS: Route = Route {
    params: &[Param {
        name: "Last-Event-ID",
        location: "header",
        required: false,
        description: "the last version the client saw: the current one is sent at once only when it differs",
        schema: Schema::Text,
    }],
    responses: &[
        reply(
            200,
            "Server-Sent Events: `event: version`, `id:` the version, `data: {\"version\",\"updatedAt\"}` for every new version; a comment line every translations.events_heartbeat_secs",
            Content::Text("text/event-stream"),
        ),
        error(
            429,
            "too many streams open from this client address (limits.events_per_client) or in all (limits.events_total); the message names the cap",
        ),
    ],
    ..route(
        "GET",
        "/translations/events",
        "A stream of the new translations versions (Server-Sent Events)",
    )
};

pub const TRANSLATIONS_VERSIONS: Route = Route {
    responses: &[
        reply(
            200,
            "the kept versions, newest first",
            Content::Json("Versions"),
        ),
        error(503, "the translations store cannot be reached"),
    ],
    ..route(
        "GET",
        "/translations/versions",
        "The kept versions with their key counts and what changed against the one before",
    )
};

pub const TRANSLATIONS_VERSION: Route = Route {
    responses: &[
        reply(
            200,
            "the version's summary and, per locale, the keys whose texts it added, removed and changed against the version before (`locales` is null when that one is no longer kept)",
            Content::Json("VersionChanges"),
        ),
        error(
            400,
            "a prefix shorter than 8 characters, or one that starts several kept versions",
        ),
        error(404, "no kept version has this id or prefix"),
        error(503, "the translations store cannot be reached"),
    ],
    ..route(
        "GET",
        "/translations/versions/{version}",
        "One kept version (its id, or its first 8 or more characters when no other kept version starts with them) with the keys it added, removed and changed in each locale",
    )
};

pub const FILES_LIST: Route = Route {
    params: &[
        query(
            "permission",
            "only records of this permission (private needs an API key when keys are configured)",
            Schema::Enum(permission_names),
        ),
        query(
            "fileName",
            "case-insensitive substring of the file name; % and _ match themselves",
            Schema::Text,
        ),
        query(
            "page",
            "page number, default 1",
            Schema::Integer { minimum: 1 },
        ),
        query(
            "limit",
            "page size, default files.default_limit (25), clamped to files.max_limit (100)",
            Schema::Integer { minimum: 1 },
        ),
    ],
    responses: &[
        reply(
            200,
            "the records of the page and the paging",
            Content::Json("FileList"),
        ),
        error(400, "a bad page, limit, permission or fileName"),
        error(
            401,
            "permission=private without a valid API key, or an unknown key",
        ),
        KEY_THROTTLED,
    ],
    access: Access::OptionalKey,
    ..route("GET", "/files", "File records, newest first, paginated")
};

const KEY_PARAM: Param = Param {
    name: "key",
    location: "query",
    required: true,
    description: "the record's key, URL-encoded (any S3 key: 1 to 1024 bytes of UTF-8)",
    schema: Schema::Text,
};

pub const FILE_GET: Route = Route {
    params: &[
        KEY_PARAM,
        query(
            "download",
            "true or false (default): true signs response-content-disposition = attachment with the record's fileName (RFC 6266)",
            Schema::Boolean,
        ),
    ],
    responses: &[
        reply(
            200,
            "the record plus signedUrl",
            Content::Json("SignedFileRecord"),
        ),
        error(400, "key missing, or download neither true nor false"),
        error(401, "a private record without a valid API key"),
        error(404, "no record has this key"),
        KEY_THROTTLED,
    ],
    access: Access::OptionalKey,
    ..route(
        "GET",
        "/file",
        "One file record with a presigned GET URL (signedUrl)",
    )
};

pub const FILES_CREATE: Route = Route {
    responses: &[
        reply(201, "the new record", Content::Json("FileRecord")),
        error(400, "a bad form field"),
        error(401, "no admin key"),
        error(
            403,
            "not an admin key, or writes are off (no auth.admin_keys)",
        ),
        error(
            409,
            "uploads refused: signing.endpoint is set (content would not reach it), or objects.enabled is false",
        ),
        error(413, "body over server.body_limit_bytes"),
        KEY_THROTTLED,
    ],
    access: Access::AdminKey,
    upload: Some("Upload"),
    ..route(
        "POST",
        "/files",
        "Upload a file (multipart: file, bucket, permission, description, status); admin key",
    )
};

pub const FILES_UPLOAD: Route = Route {
    responses: &[
        reply(
            201,
            "the upload's key and how to send the bytes: one presigned PUT (upload: method, url, headers to send as given, expiresAt; the body must be exactly size bytes), or above files.single_put_max a multipart plan (uploadId, partSize, parts with a presigned URL each)",
            Content::Json("UploadPlan"),
        ),
        error(
            400,
            "a bad field (named): fileName, size (0 to 5 TiB), sha256 (64 hex digits), contentType, bucket, permission, status; an unknown field",
        ),
        error(401, "no admin key"),
        error(
            403,
            "not an admin key, or writes are off (no auth.admin_keys)",
        ),
        error(
            409,
            "no store to upload to: objects.enabled is false and no signing.endpoint is set",
        ),
        KEY_THROTTLED,
        error(
            502,
            "the S3 endpoint refused to start a multipart upload (its code named)",
        ),
        error(
            503,
            "the S3 endpoint or the records database is unreachable",
        ),
    ],
    access: Access::AdminKey,
    json_body: Some("UploadRequest"),
    ..route(
        "POST",
        "/files/uploads",
        "Start a direct upload: the bytes go straight to the object store (SPEC §13); admin key",
    )
};

pub const FILES_UPLOAD_COMPLETE: Route = Route {
    responses: &[
        reply(
            201,
            "the object was checked (size, SHA-256): the new record",
            Content::Json("FileRecord"),
        ),
        error(
            400,
            "a bad body, or parts that do not list every part once with its ETag (or that the store refused: InvalidPart, EntityTooSmall)",
        ),
        error(401, "no admin key"),
        error(403, "not an admin key, or writes are off"),
        error(
            404,
            "no upload under way has this key (never begun, or expired and removed)",
        ),
        error(
            409,
            "the upload is already completed (its record exists), or no object has arrived yet",
        ),
        error(
            422,
            "the object is not what was declared (another size or SHA-256): it was deleted",
        ),
        KEY_THROTTLED,
        error(502, "the S3 endpoint refused a request (its code named)"),
        error(
            503,
            "the S3 endpoint or the records database is unreachable",
        ),
    ],
    access: Access::AdminKey,
    json_body: Some("CompleteUpload"),
    ..route(
        "POST",
        "/files/uploads/{key}/complete",
        "Complete a direct upload: check the object and write its record; admin key",
    )
};

pub const FILE_DELETE: Route = Route {
    params: &[KEY_PARAM],
    responses: &[
        reply(204, "deleted", Content::Empty),
        error(400, "key missing"),
        error(401, "no admin key"),
        error(403, "not an admin key, or writes are off"),
        error(404, "no record has this key"),
        KEY_THROTTLED,
    ],
    access: Access::AdminKey,
    ..route(
        "DELETE",
        "/file",
        "Delete a record and its object; admin key",
    )
};

pub const OAUTH_CALLBACK: Route = Route {
    params: &[
        query("code", "authorization code", Schema::Text),
        query("state", "must match the flow under way", Schema::Text),
        query("error", "set when the consent was refused", Schema::Text),
    ],
    responses: &[
        reply(
            200,
            "consent received (HTML page)",
            Content::Text("text/html"),
        ),
        reply(
            400,
            "state mismatch, or the consent was refused (HTML page)",
            Content::Text("text/html"),
        ),
        error(404, "no consent flow is under way"),
    ],
    ..route(
        "GET",
        "/oauth2callback",
        "OAuth consent callback, answered while the producer waits for a consent (SERVICE_REDIRECT_URI on the daemon's own address)",
    )
};

const OBJECT_RESPONSES: &[Reply] = &[
    Reply {
        headers: &["ETag", "Last-Modified", "Accept-Ranges"],
        ..reply(200, "the object", Content::Binary)
    },
    Reply {
        headers: &["ETag", "Last-Modified", "Content-Range"],
        ..reply(206, "the requested byte range", Content::Binary)
    },
    reply(
        400,
        "a key that leaves the store (.., absolute, NUL), some but not all signature parameters (AuthorizationQueryParametersError), or a bad response-* override",
        Content::S3Error,
    ),
    reply(
        403,
        "SignatureDoesNotMatch, or AccessDenied for an expired URL or an anonymous request",
        Content::S3Error,
    ),
    reply(404, "NoSuchKey", Content::S3Error),
    Reply {
        headers: &["Content-Range"],
        ..reply(416, "range not satisfiable", Content::S3Error)
    },
];

const fn signature_param(name: &'static str, description: &'static str) -> Param {
    Param {
        name,
        location: "query",
        required: true,
        description,
        schema: Schema::Text,
    }
}

const OBJECT_PARAMS: &[Param] = &[
    signature_param("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
    signature_param(
        "X-Amz-Credential",
        "ACCESS_KEY_ID/YYYYMMDD/REGION/s3/aws4_request, with the embedded credentials",
    ),
    signature_param("X-Amz-Date", "signing time, e.g. 20240315T120000Z"),
    Param {
        schema: Schema::Integer { minimum: 1 },
        ..signature_param("X-Amz-Expires", "lifetime in seconds, at most 604800")
    },
    signature_param("X-Amz-SignedHeaders", "host"),
    signature_param("X-Amz-Signature", "the SigV4 query signature (hex)"),
    Param {
        required: false,
        ..signature_param(
            "response-content-disposition",
            "signed override of Content-Disposition (also response-content-type, -cache-control, -content-encoding, -content-language, -expires)",
        )
    },
    Param {
        name: "Range",
        location: "header",
        required: false,
        description: "one byte range, e.g. bytes=0-99",
        schema: Schema::Text,
    },
];

pub const OBJECT_GET: Route = Route {
    params: OBJECT_PARAMS,
    responses: OBJECT_RESPONSES,
    access: Access::Signature,
    ..route(
        "GET",
        "/objects/{bucket}/{key+}",
        "Embedded object store: download an object with a presigned URL",
    )
};

pub const OBJECT_HEAD: Route = Route {
    params: OBJECT_PARAMS,
    responses: OBJECT_RESPONSES,
    access: Access::Signature,
    ..route(
        "HEAD",
        "/objects/{bucket}/{key+}",
        "Embedded object store: an object's headers (a GET-signed URL is accepted)",
    )
};

/// The embedded store's writes are S3's calls, signed with its credentials in the query (a
/// presigned URL from `POST /files/uploads`) or in the `Authorization` header (an S3 client).
const OBJECT_WRITE_PARAMS: &[Param] = &[
    Param {
        required: false,
        ..signature_param(
            "X-Amz-Signature",
            "a presigned URL's signature (with the other X-Amz-* parameters), or none with an Authorization header (SigV4)",
        )
    },
    Param {
        name: "Authorization",
        location: "header",
        required: false,
        description: "AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=… (with x-amz-date and x-amz-content-sha256), when the query carries no signature",
        schema: Schema::Text,
    },
];

const OBJECT_WRITE_400: Reply = reply(
    400,
    "a malformed request or body: BadDigest (x-amz-checksum-sha256, x-amz-checksum-crc32 or Content-MD5 does not match the body), XAmzContentSHA256Mismatch, IncompleteBody, EntityTooLarge (over 5 GiB), InvalidPart, InvalidPartOrder, EntityTooSmall, MalformedXML, InvalidArgument",
    Content::S3Error,
);
const OBJECT_WRITE_403: Reply = reply(
    403,
    "SignatureDoesNotMatch (also a body of another length than the signed Content-Length, or another checksum than the signed one), AccessDenied (expired or anonymous), RequestTimeTooSkewed",
    Content::S3Error,
);
const OBJECT_WRITE_404: Reply = reply(404, "NoSuchUpload", Content::S3Error);
const OBJECT_WRITE_501: Reply = reply(
    501,
    "NotImplemented: aws-chunked bodies, copies, POST Object, DeleteObject (DELETE /file deletes)",
    Content::S3Error,
);

pub const OBJECT_PUT: Route = Route {
    params: OBJECT_WRITE_PARAMS,
    responses: &[
        Reply {
            headers: &["ETag"],
            ..reply(
                200,
                "stored: the object, or with uploadId and partNumber one part of a multipart upload (its ETag is the MD5 of its bytes)",
                Content::Empty,
            )
        },
        reply(411, "MissingContentLength", Content::S3Error),
        OBJECT_WRITE_400,
        OBJECT_WRITE_403,
        OBJECT_WRITE_404,
        OBJECT_WRITE_501,
    ],
    access: Access::Signature,
    ..route(
        "PUT",
        "/objects/{bucket}/{key+}",
        "Embedded object store: PutObject, or UploadPart with ?uploadId=&partNumber= (S3's calls)",
    )
};

pub const OBJECT_POST: Route = Route {
    params: OBJECT_WRITE_PARAMS,
    responses: &[
        reply(
            200,
            "InitiateMultipartUploadResult (?uploads) or CompleteMultipartUploadResult (?uploadId=)",
            Content::Text("application/xml"),
        ),
        OBJECT_WRITE_400,
        OBJECT_WRITE_403,
        OBJECT_WRITE_404,
        OBJECT_WRITE_501,
    ],
    access: Access::Signature,
    ..route(
        "POST",
        "/objects/{bucket}/{key+}",
        "Embedded object store: CreateMultipartUpload (?uploads) or CompleteMultipartUpload (?uploadId=, the part list as S3's XML)",
    )
};

pub const OBJECT_DELETE: Route = Route {
    params: OBJECT_WRITE_PARAMS,
    responses: &[
        reply(204, "the upload and its parts are gone", Content::Empty),
        OBJECT_WRITE_400,
        OBJECT_WRITE_403,
        OBJECT_WRITE_404,
        OBJECT_WRITE_501,
    ],
    access: Access::Signature,
    ..route(
        "DELETE",
        "/objects/{bucket}/{key+}",
        "Embedded object store: AbortMultipartUpload (?uploadId=)",
    )
};

const PAGE_RESPONSES: &[Reply] = &[
    reply(
        200,
        "an HTML page of the console",
        Content::Text("text/html"),
    ),
    reply(
        303,
        "a redirect: to the login form, or after a form was handled",
        Content::Empty,
    ),
    reply(
        400,
        "a bad query parameter or form field (HTML page naming it)",
        Content::Text("text/html"),
    ),
    reply(
        401,
        "no session, or a wrong key at login (HTML page)",
        Content::Text("text/html"),
    ),
    reply(
        403,
        "a missing or wrong CSRF token, not an admin session, or a form sent from another site (HTML page)",
        Content::Text("text/html"),
    ),
];

const fn page(method: &'static str, path: &'static str, summary: &'static str) -> Route {
    Route {
        responses: PAGE_RESPONSES,
        access: Access::Session,
        ..route(method, path, summary)
    }
}

/// The console (SPEC §10): HTML pages for people, behind a login when API keys exist.
pub const CONSOLE_OVERVIEW: Route = page(
    "GET",
    "/",
    "Console: sync state, completeness per locale, findings, sync now",
);
pub const CONSOLE_TRANSLATIONS: Route = Route {
    params: &[
        query(
            "q",
            "text looked for in keys and every locale's texts",
            Schema::Text,
        ),
        query(
            "locale",
            "show this locale beside the base locale",
            Schema::Text,
        ),
        query("section", "keys under this section path", Schema::Text),
        query("tag", "keys carrying this tag", Schema::Text),
        query("show", "all, missing or placeholders", Schema::Text),
        query(
            "page",
            "page number, default 1",
            Schema::Integer { minimum: 1 },
        ),
    ],
    ..page(
        "GET",
        "/console/translations",
        "Console: search the translations",
    )
};
pub const CONSOLE_PREVIEW: Route = Route {
    params: &[
        query(
            "filters",
            "filters, comma-separated (as filters[] of /translations)",
            Schema::Text,
        ),
        query(
            "format",
            "output format, json by default",
            Schema::Enum(format_names),
        ),
        query(
            "placeholders",
            "keep or convert (as placeholders of /translations); empty: translations.placeholders",
            Schema::Enum(placeholder_modes),
        ),
        query(
            "comments",
            "true: the $$$ column as comments (as comments of /translations)",
            Schema::Boolean,
        ),
        query(
            "keepLocale",
            "true: names keep their locale (as keepLocale of /translations)",
            Schema::Boolean,
        ),
    ],
    ..page(
        "GET",
        "/console/preview",
        "Console: preview a /translations answer and its URL",
    )
};
pub const CONSOLE_VERSIONS: Route = Route {
    params: &[query(
        "version",
        "a kept version (its id or first 8 or more characters): the keys it added, removed and changed",
        Schema::Text,
    )],
    ..page(
        "GET",
        "/console/versions",
        "Console: the kept versions and what each changed",
    )
};
pub const CONSOLE_FILES: Route = Route {
    params: &[
        query(
            "fileName",
            "case-insensitive substring of the file name",
            Schema::Text,
        ),
        query(
            "permission",
            "public or private",
            Schema::Enum(permission_names),
        ),
        query(
            "page",
            "page number, default 1",
            Schema::Integer { minimum: 1 },
        ),
    ],
    ..page("GET", "/console/files", "Console: the file catalogue")
};
pub const CONSOLE_FILE: Route = Route {
    params: &[KEY_PARAM],
    ..page(
        "GET",
        "/console/file",
        "Console: one file record and its download",
    )
};
pub const CONSOLE_LOGIN_FORM: Route = Route {
    access: Access::Open,
    ..page("GET", "/console/login", "Console: the login form")
};
pub const CONSOLE_LOGIN: Route = Route {
    responses: &[
        reply(
            303,
            "logged in: the session cookie, and a redirect to `next` when it is a console page, else to the overview",
            Content::Empty,
        ),
        reply(
            400,
            "a bad form field (HTML page naming it)",
            Content::Text("text/html"),
        ),
        reply(401, "a wrong key (HTML page)", Content::Text("text/html")),
        reply(
            403,
            "a form sent from another site (Origin, Referer or Sec-Fetch-Site; HTML page)",
            Content::Text("text/html"),
        ),
        Reply {
            headers: &["Retry-After"],
            ..reply(
                429,
                "too many wrong keys from this client address (limits.login_attempts, limits.login_refill_secs; HTML page)",
                Content::Text("text/html"),
            )
        },
    ],
    access: Access::Open,
    ..page(
        "POST",
        "/console/login",
        "Console: log in with an API key (form field key); sets the session cookie",
    )
};
pub const CONSOLE_LOGOUT: Route = page("POST", "/console/logout", "Console: log out (CSRF token)");
// The console's writes take the admin session's cookie, not a bearer key.
pub const CONSOLE_SYNC: Route = page(
    "POST",
    "/console/sync",
    "Console: sync the translations now (admin session, CSRF token)",
);
pub const CONSOLE_DELETE: Route = page(
    "POST",
    "/console/delete",
    "Console: delete a file record and its object (form field key; admin session, CSRF token)",
);
pub const CONSOLE_UPLOAD: Route = page(
    "POST",
    "/console/upload",
    "Console: upload a file (admin session, CSRF token, multipart)",
);

/// Every route the server answers, in the order of the OpenAPI document.
pub const ROUTES: &[&Route] = &[
    &HEALTH,
    &METRICS,
    &OPENAPI,
    &FILES_LIST,
    &FILES_CREATE,
    &FILES_UPLOAD,
    &FILES_UPLOAD_COMPLETE,
    &FILE_GET,
    &FILE_DELETE,
    &TRANSLATIONS,
    &TRANSLATIONS_SYNC,
    &TRANSLATIONS_EVENTS,
    &TRANSLATIONS_VERSIONS,
    &TRANSLATIONS_VERSION,
    &CHANNELS,
    &CHANNEL_PUBLISH,
    &CHANNEL_ROLLBACK,
    &I18NEXT_MULTI,
    &I18NEXT_BUNDLE,
    &LOCIZE_LANGUAGES,
    &LOCIZE_PRIVATE,
    &LOCIZE_BUNDLE,
    // before the default namespace's route, which the manifest's path also matches
    &TOLGEE_MANIFEST,
    &TOLGEE_DEFAULT,
    &TOLGEE_NAMESPACE,
    &BUNDLE,
    &OAUTH_CALLBACK,
    &OBJECT_GET,
    &OBJECT_HEAD,
    &OBJECT_PUT,
    &OBJECT_POST,
    &OBJECT_DELETE,
    &CONSOLE_OVERVIEW,
    &CONSOLE_TRANSLATIONS,
    &CONSOLE_PREVIEW,
    &CONSOLE_VERSIONS,
    &CONSOLE_CHANNELS,
    &CONSOLE_CHANNEL_MOVE,
    &CONSOLE_FILES,
    &CONSOLE_FILE,
    &CONSOLE_LOGIN_FORM,
    &CONSOLE_LOGIN,
    &CONSOLE_LOGOUT,
    &CONSOLE_SYNC,
    &CONSOLE_DELETE,
    &CONSOLE_UPLOAD,
];

/// Raw (still percent-encoded) values of a template's `{...}` segments, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PathParams(pub Vec<String>);

/// Matches `path` against `template`; `Some(params)` on a match.
pub fn match_template(template: &str, path: &str) -> Option<PathParams> {
    let mut params = Vec::new();
    let mut rest = path.strip_prefix('/')?;
    let mut parts = template.trim_start_matches('/').split('/').peekable();
    while let Some(part) = parts.next() {
        if part.starts_with('{') && part.ends_with("+}") {
            if rest.is_empty() || parts.peek().is_some() {
                return None;
            }
            params.push(rest.to_owned());
            return Some(PathParams(params));
        }
        let (segment, tail) = match rest.split_once('/') {
            Some((segment, tail)) => (segment, Some(tail)),
            None => (rest, None),
        };
        if part.starts_with('{') {
            if segment.is_empty() {
                return None;
            }
            params.push(segment.to_owned());
        } else if part != segment {
            return None;
        }
        match (tail, parts.peek()) {
            (Some(tail), Some(_)) => rest = tail,
            (None, None) => return Some(PathParams(params)),
            _ => return None,
        }
    }
    None
}

/// The metrics label of a request path: its route template, or `unmatched`.
pub fn label_of(path: &str) -> &'static str {
    ROUTES
        .iter()
        .find(|r| match_template(r.path, path).is_some())
        .map_or("unmatched", |r| r.path)
}

/// Whether a request with `method` is one for `route`: its own method, or HEAD on a GET
/// route that has no HEAD route of its own (HEAD answers what GET would, without the body).
fn accepts(route: &Route, method: &str) -> bool {
    method == route.method
        || (method == "HEAD"
            && route.method == "GET"
            && !ROUTES
                .iter()
                .any(|r| r.method == "HEAD" && r.path == route.path))
}

/// The methods `path` answers (HEAD wherever GET is), in table order, or none when no route
/// has this path.
pub fn allowed_methods(path: &str) -> Vec<&'static str> {
    let mut methods = Vec::new();
    for route in ROUTES
        .iter()
        .filter(|r| match_template(r.path, path).is_some())
    {
        for method in [route.method, "HEAD"] {
            if accepts(route, method) && !methods.contains(&method) {
                methods.push(method);
            }
        }
    }
    methods
}

/// A filter that accepts this route's method (and HEAD for a GET route) on its path and
/// extracts its path parameters. A known path with another method is a 405 that lists
/// the allowed methods.
pub fn on(route: &'static Route) -> BoxedFilter<(PathParams,)> {
    warp::method()
        .and(warp::path::full())
        .and_then(move |method: Method, full: FullPath| async move {
            let Some(params) = match_template(route.path, full.as_str()) else {
                return Err(warp::reject::not_found());
            };
            if accepts(route, method.as_str()) {
                return Ok(params);
            }
            Err(warp::reject::custom(WrongMethod(
                ApiError::MethodNotAllowed {
                    method: method.to_string(),
                    path: route.path.to_owned(),
                    allowed: allowed_methods(full.as_str()).join(", "),
                },
            )))
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_literals_segments_and_tails() {
        assert_eq!(
            match_template("/health", "/health"),
            Some(PathParams(vec![]))
        );
        assert_eq!(match_template("/health", "/health/"), None);
        assert_eq!(match_template("/health", "/healthz"), None);
        assert_eq!(
            match_template("/objects/{bucket}/{key+}", "/objects/b/dir/a%20b.txt"),
            Some(PathParams(vec!["b".into(), "dir/a%20b.txt".into()]))
        );
        assert_eq!(
            match_template("/objects/{bucket}/{key+}", "/objects/b/"),
            None
        );
        assert_eq!(
            match_template("/objects/{bucket}/{key+}", "/objects/b"),
            None
        );
        assert_eq!(match_template("/a/{x}", "/a/"), None);
        assert_eq!(
            match_template("/a/{x}", "/a/1"),
            Some(PathParams(vec!["1".into()]))
        );
    }

    #[test]
    fn routes_are_only_declared_in_this_table() {
        // Every route must go through `on(&ROUTE)`, so that the table (and the OpenAPI
        // document made from it) is complete: no other warp path filter anywhere.
        let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        let mut offenders = Vec::new();
        let mut stack = vec![std::path::PathBuf::from(src)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let needle = ["path!", "path("].map(|s| format!("warp::{s}"));
                    if needle.iter().any(|n| text.contains(n.as_str())) {
                        offenders.push(path.display().to_string());
                    }
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "path filters outside the route table: {offenders:?}"
        );
    }
}
