//! The stable `code` of every JSON error body: what went wrong, in words a client's code can
//! branch on (kebab-case). Messages may be reworded at any time; a code never changes or
//! goes away once released (tests/error_codes.rs keeps the released list), so a new case
//! gets a new code. `/openapi.json` lists them all with their meaning, from this table.

/// One table gives the enum, the list and each code's text and meaning, so none of them
/// can be missing from the others.
macro_rules! codes {
    ($($variant:ident = $text:literal, $status:literal, $meaning:literal;)*) => {
        /// What went wrong (see the module comment).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($variant,)*
        }

        impl ErrorCode {
            /// Every code, in the table's order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as it appears in a body (`invalid-parameter`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $text,)*
                }
            }

            /// The status an answer with this code has.
            pub fn status(self) -> u16 {
                match self {
                    $(ErrorCode::$variant => $status,)*
                }
            }

            /// What the code means, for the API description.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $meaning,)*
                }
            }
        }
    };
}

codes! {
    InvalidRequest = "invalid-request", 400,
        "the request is malformed (its target, a header, a form); the message says which part";
    InvalidParameter = "invalid-parameter", 400,
        "a query parameter is missing, unknown or has a value outside what is allowed; the message names it and what is allowed";
    InvalidRecord = "invalid-record", 400,
        "a file record's field (name, permission, bucket, type) is not allowed; the message names the field";
    InvalidVersion = "invalid-version", 400,
        "a version prefix is too short to name one version";
    AmbiguousVersion = "ambiguous-version", 400,
        "a version prefix names several kept versions";
    FallbackNotConfigured = "fallback-not-configured", 400,
        "fallback=true was asked for, and the server's translations.fallback names no chain to take missing texts along; the message says how to set one";
    InvalidUpload = "invalid-upload", 400,
        "a field of a direct upload (size, sha256, contentType, ...) is missing or not allowed; the message names it";
    InvalidParts = "invalid-parts", 400,
        "the parts of a multipart completion do not list every part once with the ETag its PUT answered, or the object store refused them (its code named)";
    InvalidObjectKey = "invalid-object-key", 400,
        "an object's bucket or key breaks the object store's naming rules";
    NoSuchBucket = "no-such-bucket", 400,
        "the configured bucket does not exist at the S3 endpoint";
    InvalidChannel = "invalid-channel", 400,
        "a channel's name is not one (1 to 64 of a-z, 0-9, '-', '_', '.'), or draft (which follows the sheet) was asked to move";
    MissingHeader = "missing-header", 400,
        "a header the route requires is missing";
    InvalidHeader = "invalid-header", 400,
        "a header is not valid for the route";
    LengthRequired = "length-required", 400,
        "the body needs a Content-Length header";
    UnsupportedMediaType = "unsupported-media-type", 400,
        "the body's Content-Type is not the one the route takes";
    MissingApiKey = "missing-api-key", 401,
        "no API key was sent (Authorization: Bearer <api key>) or the console session ended";
    InvalidApiKey = "invalid-api-key", 401,
        "the API key sent is not one of the configured keys, or the Authorization header is not 'Bearer <api key>'";
    Forbidden = "forbidden", 403,
        "the key or session may not do this (an admin route, another site's form, a CORS origin not allowed)";
    UnknownRoute = "unknown-route", 404,
        "no route has this path; GET /openapi.json lists them";
    UnknownFile = "unknown-file", 404,
        "no file record has this key";
    NotFound = "not-found", 404,
        "what the path or a parameter names does not exist; the message says what";
    UnknownUpload = "unknown-upload", 404,
        "no direct upload under way has this key: never begun, or expired and removed";
    UnknownObject = "unknown-object", 404,
        "the object store has no object under this key";
    UnknownVersion = "unknown-version", 404,
        "no kept version of the translations has this id";
    UnknownChannel = "unknown-channel", 404,
        "no channel has this name (GET /channels lists them; draft always exists)";
    UnknownNamespace = "unknown-namespace", 404,
        "the channel's version has no namespace (tab) of this name; the message lists them";
    UnknownLocale = "unknown-locale", 404,
        "the channel's version has no locale of this name (its sheet code or BCP 47 tag); the message lists them";
    UnknownProject = "unknown-project", 404,
        "the locize layout was asked for another projectId than delivery.project_id";
    UnknownBundle = "unknown-bundle", 404,
        "no bundle of a kept version has this hash";
    NoTranslations = "no-translations", 404,
        "the filters select no locale, section or tag of the translations";
    MethodNotAllowed = "method-not-allowed", 405,
        "the path exists but not with this method; the Allow header lists those it has";
    FileExists = "file-exists", 409,
        "a file record or an object with this key already exists";
    UploadCompleted = "upload-completed", 409,
        "the direct upload is already completed: its record exists";
    UploadNotArrived = "upload-not-arrived", 409,
        "no object has arrived for the direct upload yet: send its bytes to the upload's URL, then complete it";
    UploadsNotConfigured = "uploads-not-configured", 409,
        "this node has no object store to upload to: objects.enabled is off and no signing.endpoint is set (docs/operations.md)";
    VersionHasFindings = "version-has-findings", 409,
        "the version to publish has findings of the checks (SPEC §9); the message counts them and names the first; publish with force to publish it anyway";
    NothingToRollBack = "nothing-to-roll-back", 409,
        "the channel points at the only version it ever pointed at (or the oldest one kept)";
    Conflict = "conflict", 409,
        "the request conflicts with the current state; the message says how";
    PayloadTooLarge = "payload-too-large", 413,
        "the body is larger than server.body_limit_bytes";
    UploadMismatch = "upload-mismatch", 422,
        "the uploaded object is not what was declared (another size or SHA-256); it was deleted";
    CannotRender = "cannot-render", 422,
        "a text, key or language cannot be written in the format asked for; the message names it";
    TooManyLoginFailures = "too-many-login-failures", 429,
        "too many wrong keys from this address; Retry-After says when to try again";
    TooManyKeyFailures = "too-many-key-failures", 429,
        "too many wrong API keys from this address; every request with a key waits, the right key too; Retry-After says how long";
    TooManyStreams = "too-many-streams", 429,
        "this address, or all clients together, hold as many event streams as allowed";
    TooManyRequests = "too-many-requests", 429,
        "too many requests from this address; Retry-After says when to try again when known";
    SyncFailed = "sync-failed", 502,
        "the sheet's source failed during the sync; the last good version is still served";
    ObjectStoreRefused = "object-store-refused", 502,
        "the S3 endpoint refused the request (its code is in the message)";
    UpstreamFailed = "upstream-failed", 502,
        "a server depot depends on for this request failed";
    TranslationsNotLoaded = "translations-not-loaded", 503,
        "no version of the translations has been loaded yet (the first sync has not succeeded)";
    StoreUnreachable = "store-unreachable", 503,
        "the translations store (Redis) cannot be reached";
    DatabaseUnreachable = "database-unreachable", 503,
        "the file records' database is busy or cannot be reached";
    ObjectStoreUnreachable = "object-store-unreachable", 503,
        "the S3 endpoint cannot be reached";
    Unavailable = "unavailable", 503,
        "the service cannot answer this now; try again later";
    Internal = "internal", 500,
        "something failed on the server's side; the server's log has the details";
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case_with_an_error_status_and_a_meaning() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            let text = code.as_str();
            assert!(seen.insert(text), "{text} twice");
            assert!(
                !text.is_empty()
                    && !text.starts_with('-')
                    && !text.ends_with('-')
                    && !text.contains("--")
                    && text.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{text} is not kebab-case"
            );
            assert!((400..600).contains(&code.status()), "{text}");
            assert!(!code.meaning().is_empty(), "{text}");
        }
    }
}
