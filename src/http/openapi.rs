//! The OpenAPI 3.0 document served at `/openapi.json`, generated from the route table
//! (`http::routes`) plus the schemas of the bodies below: operation ids, parameters with
//! types, enums and minimums, request and response bodies, the error body, the bearer
//! scheme. Complete enough to generate a client.

use super::error::ErrorCode;
use super::routes::{Access, Content, Param, ROUTES, Reply, Route, Schema};
use crate::files::Permission;
use crate::formats::Format;
use serde_json::{Map, Value, json};

/// The document.
pub fn document() -> Value {
    let mut paths = Map::new();
    for route in ROUTES {
        let entry = paths
            .entry(route.path.replace("+}", "}"))
            .or_insert_with(|| json!({}));
        entry[route.method.to_ascii_lowercase()] = operation(route, route.method);
        // A GET route answers HEAD as well, unless a HEAD route of its own says more.
        let own_head = ROUTES
            .iter()
            .any(|r| r.method == "HEAD" && r.path == route.path);
        if route.method == "GET" && !own_head {
            entry["head"] = operation(route, "HEAD");
        }
    }
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "depot",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "File records with signed URLs, and spreadsheet translations. \
                Every error is the JSON body of the Error schema, except the embedded \
                object store's, which are S3-style XML.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas(),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "an API key (reads of private records) or an admin key (writes): Authorization: Bearer <key>",
                },
                "session": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": crate::console::session::COOKIE,
                    "description": "the console's session, set by POST /console/login with an API key; its pages need one once API keys are configured",
                },
            },
        },
    })
}

fn operation(route: &Route, method: &str) -> Value {
    let head = method == "HEAD";
    let parameters: Vec<Value> = route
        .params
        .iter()
        .map(parameter)
        .chain(path_params(route.path).map(|(name, rest)| {
            let description = if rest {
                "the rest of the path; may contain /"
            } else {
                "one path segment"
            };
            json!({
                "name": name, "in": "path", "required": true,
                "description": description, "schema": {"type": "string"},
            })
        }))
        .collect();
    let mut responses: Map<String, Value> = route
        .responses
        .iter()
        .map(|reply| (reply.status.to_string(), response(reply, head)))
        .collect();
    let mut default = json!({
        "description": "any other error: 400 for a request target that is not a path, 405 (with Allow) for another method, 500 when the server failed (the log has the details)",
    });
    if !head {
        default["content"] = json!({"application/json": {"schema": schema_ref("Error")}});
    }
    responses.insert("default".into(), default);
    let summary = if head && route.method == "GET" {
        format!("{} (headers only)", route.summary)
    } else {
        route.summary.to_owned()
    };
    let mut op = json!({
        "operationId": operation_id(method, route.path),
        "summary": summary,
        "parameters": parameters,
        "responses": responses,
    });
    match route.access {
        Access::Open | Access::Signature => {}
        Access::OptionalKey => op["security"] = json!([{}, {"bearer": []}]),
        Access::AdminKey => op["security"] = json!([{"bearer": []}]),
        // Open without API keys; with keys, a session cookie of the console's login.
        Access::Session => op["security"] = json!([{}, {"session": []}]),
    }
    if let Some(schema) = route.upload {
        op["requestBody"] = json!({
            "required": true,
            "content": {"multipart/form-data": {"schema": schema_ref(schema)}},
        });
    }
    if let Some(schema) = route.json_body {
        op["requestBody"] = json!({
            "required": true,
            "content": {"application/json": {"schema": schema_ref(schema)}},
        });
    }
    op
}

fn parameter(param: &Param) -> Value {
    let schema = match param.schema {
        Schema::Text => json!({"type": "string"}),
        Schema::Boolean => json!({"type": "boolean"}),
        Schema::Integer { minimum } => json!({"type": "integer", "minimum": minimum}),
        Schema::Enum(words) => json!({"type": "string", "enum": words()}),
    };
    json!({
        "name": param.name, "in": param.location, "required": param.required,
        "description": param.description, "schema": schema,
    })
}

fn response(reply: &Reply, head: bool) -> Value {
    let mut out = json!({ "description": reply.description });
    let mut headers: Map<String, Value> = reply
        .headers
        .iter()
        .map(|name| {
            (
                (*name).to_owned(),
                json!({"description": header_doc(name), "schema": {"type": "string"}}),
            )
        })
        .collect();
    if head && reply.content != Content::Empty {
        headers.insert(
            "Content-Length".into(),
            json!({"description": "the length of the body GET would send", "schema": {"type": "integer", "minimum": 0}}),
        );
    }
    if !headers.is_empty() {
        out["headers"] = Value::Object(headers);
    }
    if !head && let Some(content) = content(reply.content) {
        out["content"] = content;
    }
    out
}

fn content(content: Content) -> Option<Value> {
    let string = json!({"type": "string"});
    Some(match content {
        Content::Empty => return None,
        Content::Json(name) => json!({"application/json": {"schema": schema_ref(name)}}),
        Content::Error => json!({"application/json": {"schema": schema_ref("Error")}}),
        Content::S3Error => json!({"application/xml": {"schema": schema_ref("S3Error")}}),
        Content::Binary => json!({"*/*": {"schema": {"type": "string", "format": "binary"}}}),
        Content::Text(media) => json!({ media: {"schema": string} }),
        Content::Translations => {
            let mut media_types = serde_json::Map::new();
            for format in Format::ALL {
                let media = format.content_type().split(';').next().unwrap_or_default();
                let schema = match format {
                    Format::Json => schema_ref("TranslationsJson"),
                    _ => string.clone(),
                };
                // xcstrings, arb and i18next are application/json too: json's schema stays
                media_types
                    .entry(media.trim().to_owned())
                    .or_insert_with(|| json!({ "schema": schema }));
            }
            Value::Object(media_types)
        }
    })
}

fn header_doc(name: &str) -> &'static str {
    match name {
        "ETag" => "validator of this answer; send it back in If-None-Match",
        "Depot-Warnings" => {
            "present when the answer left something out (a name collision), naming it"
        }
        "Last-Modified" => "when the object was last written",
        "Accept-Ranges" => "bytes",
        "Content-Range" => "bytes FIRST-LAST/LENGTH (206), bytes */LENGTH (416)",
        "Retry-After" => "seconds until the client may try again",
        "Cache-Control" => {
            "public (private for a private channel), max-age=delivery.max_age_secs; immutable for a hash-named bundle"
        }
        "Content-Location" => {
            "the same bytes under their content hash: /bundles/<sha256>.json, immutable"
        }
        _ => "",
    }
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// `getFiles`, `deleteFile`, `headObjects`, `getOpenapiJson`: the method and the literal
/// segments of the path; a path that ends in one parameter adds it
/// (`getTranslationsVersionsByVersion`).
fn operation_id(method: &str, path: &str) -> String {
    let mut id = method.to_ascii_lowercase();
    let mut push = |word: &str| {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            id.push(first.to_ascii_uppercase());
            id.extend(chars);
        }
    };
    for segment in path
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
    {
        segment
            .split(|c: char| !c.is_ascii_alphanumeric())
            .for_each(&mut push);
    }
    // One item of a list (`/translations/versions/{version}`) beside the list itself.
    if let Some(name) = (path.rsplit('/').next())
        .and_then(|last| last.strip_prefix('{')?.strip_suffix('}'))
        .filter(|name| !name.ends_with('+'))
    {
        push("by");
        push(name);
    }
    id
}

/// The `{name}` / `{name+}` segments of a template; `true` for a rest-of-path one.
fn path_params(template: &str) -> impl Iterator<Item = (&str, bool)> {
    template.split('/').filter_map(|part| {
        let name = part.strip_prefix('{')?.strip_suffix('}')?;
        Some(match name.strip_suffix('+') {
            Some(name) => (name, true),
            None => (name, false),
        })
    })
}

/// The `code` of an error body: every code, and in `x-codes` the status and meaning of each.
fn error_code_schema() -> Value {
    let codes = ErrorCode::ALL;
    json!({
        "type": "string",
        "description": "what went wrong, for a client to branch on: kebab-case, never changed or \
                        removed once released (messages may be reworded)",
        "enum": codes.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
        "x-codes": codes
            .iter()
            .map(|c| json!({"code": c.as_str(), "status": c.status(), "meaning": c.meaning()}))
            .collect::<Vec<_>>(),
    })
}

/// The bodies of delivery to running apps (SPEC §14).
fn delivery_schemas() -> Value {
    let version = json!({"type": "string", "pattern": "^[0-9a-f]{64}$"});
    let pointing = json!({
        "type": "object",
        "required": ["version", "at", "by"],
        "properties": {
            "version": version,
            "at": {"type": "string", "format": "date-time"},
            "by": {"type": "string", "description": "who: `key sha256:<first 8 hex digits>` of the admin key, or `cli`"},
        },
    });
    json!({
        "Bundle": {
            "type": "object",
            "description": "one namespace in one locale: i18next JSON v4 (i18next, locize) or nested json with ICU messages (Tolgee)",
            "additionalProperties": schema_ref("TranslationNode"),
        },
        "MultiBundle": {
            "type": "object",
            "description": "lng -> ns -> Bundle, for the pairs that exist",
            "additionalProperties": {"type": "object", "additionalProperties": schema_ref("Bundle")},
        },
        "LocizeLanguages": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["name", "nativeName", "isReferenceLanguage", "translated"],
                "properties": {
                    "name": {"type": "string"},
                    "nativeName": {"type": "string"},
                    "isReferenceLanguage": {"type": "boolean"},
                    "translated": {"type": "object", "description": "channel -> share of the reference language's keys this locale has, 0 to 1", "additionalProperties": {"type": "number", "minimum": 0, "maximum": 1}},
                },
            },
        },
        "TolgeeManifest": {
            "type": "object",
            "required": ["locales"],
            "properties": {"locales": {"type": "array", "items": {"type": "string"}}},
        },
        "PublishRequest": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "version": {"type": "string", "description": "a kept version, its id or its first 8 or more characters; the current version when absent"},
                "force": {"type": "boolean", "description": "publish a version with findings of the checks"},
            },
        },
        "ChannelMove": {
            "type": "object",
            "required": ["channel", "version", "previousVersion", "changed", "at", "by"],
            "properties": {
                "channel": {"type": "string"},
                "version": version,
                "previousVersion": {"type": "string", "nullable": true},
                "changed": {"type": "boolean", "description": "false when the channel already pointed there"},
                "at": {"type": "string", "format": "date-time"},
                "by": {"type": "string"},
            },
        },
        "Channels": {
            "type": "object",
            "required": ["channels"],
            "properties": {"channels": {"type": "array", "items": {
                "type": "object",
                "required": ["name", "version", "followsSheet", "private", "history", "moves"],
                "properties": {
                    "name": {"type": "string"},
                    "version": {"type": "string", "nullable": true},
                    "followsSheet": {"type": "boolean", "description": "true for draft"},
                    "private": {"type": "boolean"},
                    "history": {"type": "array", "items": pointing, "description": "the versions it pointed at, newest (the current one) first: rollbacks go down this list"},
                    "moves": {"type": "array", "items": {
                        "type": "object",
                        "required": ["kind", "from", "to", "at", "by"],
                        "properties": {
                            "kind": {"type": "string", "enum": ["publish", "rollback"]},
                            "from": {"type": "string", "nullable": true},
                            "to": version,
                            "at": {"type": "string", "format": "date-time"},
                            "by": {"type": "string"},
                        },
                    }},
                },
            }}},
        },
    })
}

fn schemas() -> Value {
    let mut all = base_schemas();
    if let (Some(all), Value::Object(more)) = (all.as_object_mut(), delivery_schemas()) {
        all.extend(more);
    }
    all
}

fn base_schemas() -> Value {
    let permissions: Vec<&str> = [Permission::Public, Permission::Private]
        .iter()
        .map(|p| p.as_str())
        .collect();
    let nullable_time = json!({"type": "string", "format": "date-time", "nullable": true});
    let nullable_text = json!({"type": "string", "nullable": true});
    json!({
        "Error": {
            "type": "object",
            "description": "every error of the API (the embedded object store's are S3Error)",
            "required": ["statusCode", "error", "code", "message"],
            "additionalProperties": false,
            "properties": {
                "statusCode": {"type": "integer", "minimum": 400, "maximum": 599},
                "error": {"type": "string", "description": "the status's reason phrase"},
                "code": error_code_schema(),
                "message": {"type": "string", "description": "what was wrong, naming the parameter and the allowed values"},
            },
        },
        "FileRecord": {
            "type": "object",
            "required": ["id", "fileName", "description", "bucket", "status", "fileType", "permission", "key", "createdAt"],
            "properties": {
                "id": {"type": "integer", "format": "int64"},
                "fileName": {"type": "string"},
                "description": {"type": "string"},
                "bucket": {"type": "string", "minLength": 3, "maxLength": 63},
                "status": {"type": "integer", "format": "int64"},
                "fileType": {"type": "string", "description": "an extension (png) or a media type (image/png), as given"},
                "permission": {"type": "string", "enum": permissions},
                "key": {"type": "string", "minLength": 1, "description": "unique; the lookup value"},
                "createdAt": {"type": "string", "format": "date-time", "description": "UTC with milliseconds, e.g. 2026-11-21T09:05:03.120Z"},
                "size": {"type": "integer", "format": "int64", "minimum": 0, "nullable": true, "description": "bytes of the content; null when not known (records from before depot kept it)"},
                "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$", "nullable": true, "description": "lowercase hex SHA-256 of the content, when known"},
            },
        },
        "UploadRequest": {
            "type": "object",
            "required": ["fileName", "size"],
            "additionalProperties": false,
            "properties": {
                "fileName": {"type": "string"},
                "size": {"type": "integer", "format": "int64", "minimum": 0, "maximum": 5_497_558_138_880_u64, "description": "the exact length in bytes: the upload is bound to it"},
                "contentType": {"type": "string", "description": "the media type the PUT carries (signed)"},
                "bucket": {"type": "string", "description": "default depot"},
                "permission": {"type": "string", "enum": permissions, "default": "public"},
                "description": {"type": "string"},
                "status": {"type": "integer", "format": "int64", "default": 0},
                "fileType": {"type": "string", "description": "default: the name's extension, else contentType"},
                "sha256": {"type": "string", "pattern": "^[0-9a-fA-F]{64}$", "description": "the content's SHA-256: the PUT is bound to it (x-amz-checksum-sha256) and the completion checks it"},
            },
        },
        "UploadPlan": {
            "type": "object",
            "required": ["key", "expiresAt"],
            "description": "upload for one PUT (size up to files.single_put_max), else uploadId, partSize and parts",
            "properties": {
                "key": {"type": "string", "description": "the record's key to be; complete with POST /files/uploads/{key}/complete"},
                "upload": {
                    "type": "object",
                    "required": ["method", "url", "headers", "expiresAt"],
                    "properties": {
                        "method": {"type": "string", "enum": ["PUT"]},
                        "url": {"type": "string", "format": "uri", "description": "a presigned PUT (SigV4) bound to the size (Content-Length), to If-None-Match: * and, when given, the type and SHA-256; single-use: refused once an object is at the key or the upload is completed"},
                        "headers": {"type": "object", "additionalProperties": {"type": "string"}, "description": "headers to send exactly as given (they are signed): If-None-Match, and Content-Type, x-amz-checksum-sha256 when declared"},
                        "expiresAt": {"type": "string", "format": "date-time"},
                    },
                },
                "uploadId": {"type": "string"},
                "partSize": {"type": "integer", "format": "int64", "description": "part n is the bytes from (n - 1) * partSize, the last one shorter"},
                "parts": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["partNumber", "url"],
                        "properties": {
                            "partNumber": {"type": "integer", "minimum": 1, "maximum": 10000},
                            "url": {"type": "string", "format": "uri", "description": "a presigned UploadPart, bound to the part's length, valid until the upload is completed or aborted; its answer's ETag goes into the completion"},
                        },
                    },
                },
                "expiresAt": {"type": "string", "format": "date-time", "description": "when the URLs expire; after this an upload not completed is aborted and its object or parts deleted"},
            },
        },
        "CompleteUpload": {
            "type": "object",
            "additionalProperties": false,
            "description": "{} (or no body) for one PUT; every part with its ETag for a multipart upload",
            "properties": {
                "parts": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["partNumber", "etag"],
                        "additionalProperties": false,
                        "properties": {
                            "partNumber": {"type": "integer", "minimum": 1, "maximum": 10000},
                            "etag": {"type": "string", "description": "the ETag header the part's PUT answered"},
                        },
                    },
                },
            },
        },
        "SignedFileRecord": {
            "allOf": [
                schema_ref("FileRecord"),
                {
                    "type": "object",
                    "required": ["signedUrl"],
                    "properties": {
                        "signedUrl": {"type": "string", "format": "uri", "description": "presigned GET URL (SigV4, query-string form)"},
                    },
                },
            ],
        },
        "FileList": {
            "type": "object",
            "required": ["data", "meta"],
            "properties": {
                "data": {"type": "array", "items": schema_ref("FileRecord")},
                "meta": {
                    "type": "object",
                    "required": ["total", "page", "limit"],
                    "properties": {
                        "total": {"type": "string", "pattern": "^[0-9]+$", "description": "the number of matching records, as a string of digits"},
                        "page": {"type": "integer", "minimum": 1},
                        "limit": {"type": "integer", "minimum": 1, "description": "the page size in effect (after clamping)"},
                    },
                },
            },
        },
        "Upload": {
            "type": "object",
            "required": ["file"],
            "properties": {
                "file": {"type": "string", "format": "binary", "description": "the content, with its file name"},
                "bucket": {"type": "string", "description": "default depot"},
                "permission": {"type": "string", "enum": permissions, "default": "public"},
                "description": {"type": "string"},
                "status": {"type": "integer", "format": "int64", "default": 0},
            },
        },
        "Health": {
            "type": "object",
            "required": ["status", "version", "config", "translations"],
            "properties": {
                "status": {"type": "string", "enum": ["ok"]},
                "version": {"type": "string"},
                "config": {
                    "type": "object",
                    "required": ["revision", "loadedAt", "lastError"],
                    "properties": {
                        "revision": {"type": "integer", "minimum": 1},
                        "loadedAt": {"type": "string", "format": "date-time"},
                        "lastError": nullable_text,
                    },
                },
                "translations": {
                    "type": "object",
                    "required": ["loaded", "version"],
                    "properties": {
                        "loaded": {"type": "boolean"},
                        "version": nullable_text,
                        "updatedAt": {"type": "string", "format": "date-time"},
                        "keyCounts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
                        "warnings": {"type": "array", "items": schema_ref("Warning")},
                        "lastSyncAt": nullable_time,
                        "lastSuccessAt": nullable_time,
                        "lastError": nullable_text,
                        "consecutiveFailures": {"type": "integer", "minimum": 0},
                    },
                },
            },
        },
        "SyncResult": {
            "type": "object",
            "required": ["version", "changed", "updatedAt", "warnings"],
            "properties": {
                "version": {"type": "string", "description": "the current version after the sync"},
                "changed": {"type": "boolean", "description": "true when this sync stored a new version"},
                "updatedAt": {"type": "string", "format": "date-time"},
                "warnings": {"type": "array", "items": {"type": "string"}, "description": "the sheet's warnings, each naming its cell"},
            },
        },
        "Versions": {
            "type": "object",
            "required": ["versions"],
            "properties": {
                "versions": {"type": "array", "items": schema_ref("VersionSummary")},
            },
        },
        "VersionSummary": {
            "type": "object",
            "required": ["version", "previousVersion", "updatedAt", "keyCounts", "added", "removed", "changed"],
            "properties": {
                "version": {"type": "string"},
                "previousVersion": nullable_text,
                "updatedAt": {"type": "string", "format": "date-time"},
                "keyCounts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
                "added": {"type": "integer", "minimum": 0, "description": "(locale, key) texts new against the version before"},
                "removed": {"type": "integer", "minimum": 0},
                "changed": {"type": "integer", "minimum": 0},
            },
        },
        "VersionChanges": {
            "type": "object",
            "required": ["version", "previousVersion", "updatedAt", "keyCounts", "added", "removed", "changed", "locales"],
            "properties": {
                "version": {"type": "string"},
                "previousVersion": nullable_text,
                "updatedAt": {"type": "string", "format": "date-time"},
                "keyCounts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
                "added": {"type": "integer", "minimum": 0},
                "removed": {"type": "integer", "minimum": 0},
                "changed": {"type": "integer", "minimum": 0},
                "locales": {
                    "type": "object",
                    "nullable": true,
                    "description": "per locale, the dotted keys whose texts this version added, removed and changed; null when the version before it is no longer kept",
                    "additionalProperties": schema_ref("LocaleChanges"),
                },
            },
        },
        "LocaleChanges": {
            "type": "object",
            "required": ["added", "removed", "changed"],
            "properties": {
                "added": {"type": "array", "items": {"type": "string"}},
                "removed": {"type": "array", "items": {"type": "string"}},
                "changed": {"type": "array", "items": {"type": "string"}},
            },
        },
        "Warning": {
            "type": "object",
            "required": ["cell", "row", "message"],
            "properties": {
                "cell": {"type": "string", "description": "A1 reference, e.g. B9"},
                "row": {"type": "integer", "minimum": 1},
                "message": {"type": "string"},
            },
        },
        "TranslationsJson": {
            "type": "object",
            "description": "locale -> SECTION -> ... -> KEY -> text",
            "additionalProperties": schema_ref("TranslationNode"),
        },
        "TranslationNode": {
            "oneOf": [
                {"type": "string"},
                {"type": "object", "additionalProperties": schema_ref("TranslationNode")},
            ],
        },
        "S3Error": {
            "type": "object",
            "xml": {"name": "Error"},
            "required": ["Code", "Message"],
            "properties": {
                "Code": {"type": "string", "description": "NoSuchKey, AccessDenied, SignatureDoesNotMatch, InvalidRange, ..."},
                "Message": {"type": "string"},
                "Resource": {"type": "string"},
                "RequestId": {"type": "string"},
            },
        },
        "OpenApiDocument": {
            "type": "object",
            "required": ["openapi", "info", "paths"],
            "properties": {
                "openapi": {"type": "string"},
                "info": {"type": "object"},
                "paths": {"type": "object"},
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn operations(doc: &Value) -> Vec<(String, String, Value)> {
        let mut out = Vec::new();
        for (path, methods) in doc["paths"].as_object().unwrap() {
            for (method, op) in methods.as_object().unwrap() {
                out.push((path.clone(), method.clone(), op.clone()));
            }
        }
        out
    }

    #[test]
    fn every_route_and_a_head_for_every_get_is_listed_with_a_unique_id() {
        let doc = document();
        let ops = operations(&doc);
        for route in ROUTES {
            let path = route.path.replace("+}", "}");
            let methods = &doc["paths"][&path];
            assert!(
                methods[route.method.to_ascii_lowercase()].is_object(),
                "{} {path}",
                route.method
            );
            if route.method == "GET" {
                assert!(methods["head"].is_object(), "HEAD {path}");
            }
        }
        let ids: HashSet<_> = ops
            .iter()
            .map(|(_, _, op)| op["operationId"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ids.len(), ops.len(), "operation ids must be unique");
        assert!(
            ids.contains("getFiles")
                && ids.contains("headObjects")
                && ids.contains("getOpenapiJson")
        );
    }

    #[test]
    fn every_reference_resolves() {
        let doc = document();
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        let text = doc.to_string();
        for piece in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
            let name = piece.split('"').next().unwrap();
            assert!(schemas.contains_key(name), "dangling $ref {name}");
        }
    }

    #[test]
    fn every_error_answer_has_the_error_body_and_every_success_a_schema() {
        let doc = document();
        for (path, method, op) in operations(&doc) {
            for (status, response) in op["responses"].as_object().unwrap() {
                let code: u16 = status.parse().unwrap_or(999);
                let content = &response["content"];
                // No body: HEAD, 204, 3xx (304, the console's 303 redirects), and S3's
                // answer to a PUT (its ETag is in a header).
                let s3_put = method == "put" && path.starts_with("/objects") && code == 200;
                if method == "head" || code == 204 || (300..400).contains(&code) || s3_put {
                    assert!(content.is_null(), "{method} {path} {status} has a body");
                    continue;
                }
                let schemas: Vec<&Value> = content
                    .as_object()
                    .unwrap_or_else(|| panic!("{method} {path} {status} has no content"))
                    .values()
                    .map(|media| &media["schema"])
                    .collect();
                assert!(
                    schemas.iter().all(|s| s.is_object()),
                    "{method} {path} {status}"
                );
                // The console (`/`, `/console/...`) answers its errors with HTML pages.
                let html_pages = path == "/" || path.starts_with("/console/");
                if code >= 400
                    && !path.starts_with("/objects")
                    && path != "/oauth2callback"
                    && !html_pages
                {
                    assert_eq!(
                        content["application/json"]["schema"],
                        schema_ref("Error"),
                        "{method} {path} {status}"
                    );
                }
            }
        }
    }

    #[test]
    fn parameters_carry_types_enums_minimums_and_required_flags() {
        let doc = document();
        let params = |path: &str, method: &str| {
            doc["paths"][path][method]["parameters"]
                .as_array()
                .unwrap()
                .clone()
        };
        let find =
            |list: &[Value], name: &str| list.iter().find(|p| p["name"] == name).unwrap().clone();
        let list = params("/files", "get");
        assert_eq!(
            find(&list, "permission")["schema"]["enum"],
            json!(["public", "private"])
        );
        assert_eq!(
            find(&list, "page")["schema"],
            json!({"type": "integer", "minimum": 1})
        );
        assert_eq!(
            find(&list, "limit")["schema"],
            json!({"type": "integer", "minimum": 1})
        );
        let formats = find(&params("/translations", "get"), "format");
        assert_eq!(
            formats["schema"]["enum"],
            json!([
                "json",
                "android",
                "ios",
                "yml",
                "xlf",
                "po",
                "stringsdict",
                "xcstrings",
                "arb",
                "i18next",
                "properties",
                "resx"
            ])
        );
        assert_eq!(find(&params("/file", "get"), "key")["required"], true);
        let key = find(&params("/objects/{bucket}/{key}", "get"), "key");
        assert_eq!(
            (key["in"].as_str(), key["required"].as_bool()),
            (Some("path"), Some(true))
        );
        assert_eq!(
            doc["paths"]["/files"]["post"]["security"],
            json!([{"bearer": []}])
        );
        assert_eq!(
            doc["paths"]["/files"]["get"]["security"],
            json!([{}, {"bearer": []}])
        );
        assert_eq!(
            doc["paths"]["/files"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"],
            schema_ref("Upload")
        );
    }

    #[test]
    fn console_pages_need_the_session_cookie_but_the_login_does_not() {
        let doc = document();
        let session = json!([{}, {"session": []}]);
        for (path, method) in [
            ("/", "get"),
            ("/console/translations", "get"),
            ("/console/file", "head"),
            ("/console/logout", "post"),
            ("/console/upload", "post"),
        ] {
            assert_eq!(
                doc["paths"][path][method]["security"], session,
                "{method} {path}"
            );
        }
        for method in ["get", "post"] {
            assert!(
                doc["paths"]["/console/login"][method]["security"].is_null(),
                "{method} /console/login"
            );
        }
        assert_eq!(
            doc["components"]["securitySchemes"]["session"],
            json!({
                "type": "apiKey",
                "in": "cookie",
                "name": "depot_session",
                "description": "the console's session, set by POST /console/login with an API key; its pages need one once API keys are configured",
            })
        );
    }
}
