//! The routes of delivery to running apps (SPEC §14): the SDK layouts under a channel, the
//! hash-named bundles, and the channels' admin API. Part of the one route table
//! (`http::routes`), so `/openapi.json` and the metrics know them.

use super::{Access, Content, Param, Reply, Route, Schema, error, query, reply, route};

const CACHED: &[&str] = &["ETag", "Cache-Control", "Content-Location"];

const fn bundle(description: &'static str) -> Reply {
    Reply {
        headers: CACHED,
        ..reply(200, description, Content::Json("Bundle"))
    }
}

/// A manifest's (or a composed body's) 200: short-lived, with its ETag.
const fn manifest(description: &'static str, schema: &'static str) -> Reply {
    Reply {
        headers: &["ETag", "Cache-Control"],
        ..reply(200, description, Content::Json(schema))
    }
}

const CANNOT_CARRY: Reply = error(422, "a text i18next cannot carry");

const NOT_MODIFIED: Reply = Reply {
    headers: &["ETag", "Cache-Control"],
    ..reply(304, "If-None-Match matched", Content::Empty)
};

const IF_NONE_MATCH: Param = Param {
    name: "If-None-Match",
    location: "header",
    required: false,
    description: "the ETag of an earlier answer: 304 while it holds",
    schema: Schema::Text,
};

/// A private channel (delivery.private_channels) needs a key, sent as i18next-locize-backend
/// sends it or as a bearer token.
const AUTHORIZATION: Param = Param {
    name: "Authorization",
    location: "header",
    required: false,
    description: "for a channel of delivery.private_channels: Bearer <key>, or the bare key (as i18next-locize-backend sends its apiKey); a key of auth.api_keys or auth.admin_keys",
    schema: Schema::Text,
};

const SDK_PARAMS: &[Param] = &[IF_NONE_MATCH, AUTHORIZATION];

const BAD_CHANNEL: Reply = error(400, "a channel name that is not one");
const NO_KEY: Reply = error(
    401,
    "a private channel without a key, or a key that is not one of auth.api_keys or auth.admin_keys",
);
const NOTHING_THERE: Reply = error(
    404,
    "no such channel, namespace or locale (each message lists those there are)",
);
const NOT_LOADED: Reply = error(
    503,
    "no translations loaded yet (draft), or the store cannot be reached",
);

const fn sdk(path: &'static str, summary: &'static str, responses: &'static [Reply]) -> Route {
    Route {
        params: SDK_PARAMS,
        responses,
        access: Access::OptionalKey,
        ..route("GET", path, summary)
    }
}

pub const I18NEXT_BUNDLE: Route = sdk(
    "/i18next/{channel}/{lng}/{ns+}",
    "i18next-http-backend's loadPath /i18next/{channel}/{{lng}}/{{ns}}.json: one namespace in one locale, i18next JSON v4",
    &[
        bundle("i18next JSON v4 of the namespace in the locale"),
        NOT_MODIFIED,
        BAD_CHANNEL,
        NO_KEY,
        NOTHING_THERE,
        CANNOT_CARRY,
        NOT_LOADED,
    ],
);

pub const I18NEXT_MULTI: Route = Route {
    params: &[
        Param {
            required: true,
            ..query(
                "lng",
                "languages joined by + (i18next-multiload-backend-adapter's {{lng}})",
                Schema::Text,
            )
        },
        Param {
            required: true,
            ..query("ns", "namespaces joined by +", Schema::Text)
        },
        IF_NONE_MATCH,
        AUTHORIZATION,
    ],
    ..sdk(
        "/i18next/{channel}",
        "i18next-http-backend's multi-load form (?lng=en+de&ns=a+b): {lng: {ns: {...}}}, the pairs that exist",
        &[
            manifest("{lng: {ns: i18next JSON v4}}", "MultiBundle"),
            NOT_MODIFIED,
            error(400, "a channel name that is not one, or lng or ns missing"),
            NO_KEY,
            error(404, "no such channel"),
            CANNOT_CARRY,
            NOT_LOADED,
        ],
    )
};

pub const LOCIZE_LANGUAGES: Route = Route {
    params: &[IF_NONE_MATCH],
    access: Access::Open,
    ..sdk(
        "/locize/languages/{projectId}",
        "i18next-locize-backend's getLanguagesPath: each locale with its names, whether it is the reference language, and its share translated in each channel",
        &[
            manifest(
                "locale -> {name, nativeName, isReferenceLanguage, translated: {channel: share}}",
                "LocizeLanguages",
            ),
            NOT_MODIFIED,
            error(404, "another projectId than delivery.project_id"),
            error(503, "no translations loaded yet"),
        ],
    )
};

pub const LOCIZE_BUNDLE: Route = sdk(
    "/locize/{projectId}/{channel}/{lng}/{ns}",
    "i18next-locize-backend's loadPath (its version is the channel): one namespace in one locale, i18next JSON v4",
    &[
        bundle("i18next JSON v4 of the namespace in the locale"),
        NOT_MODIFIED,
        BAD_CHANNEL,
        NO_KEY,
        error(
            404,
            "another projectId, or no such channel, namespace or locale",
        ),
        CANNOT_CARRY,
        NOT_LOADED,
    ],
);

pub const LOCIZE_PRIVATE: Route = sdk(
    "/locize/private/{projectId}/{channel}/{lng}/{ns}",
    "i18next-locize-backend's privatePath: as its loadPath, with a key (its apiKey) always required",
    &[
        bundle("i18next JSON v4 of the namespace in the locale"),
        NOT_MODIFIED,
        BAD_CHANNEL,
        error(
            401,
            "no key, or not one of auth.api_keys or auth.admin_keys",
        ),
        error(
            404,
            "another projectId, or no such channel, namespace or locale",
        ),
        CANNOT_CARRY,
        NOT_LOADED,
    ],
);

pub const TOLGEE_MANIFEST: Route = sdk(
    "/tolgee/{channel}/manifest.json",
    "Tolgee's manifest.json under a channel: {\"locales\": [...]}, the locales as BCP 47 tags",
    &[
        Reply {
            headers: &["ETag", "Cache-Control"],
            ..reply(
                200,
                "the channel's locales",
                Content::Json("TolgeeManifest"),
            )
        },
        NOT_MODIFIED,
        BAD_CHANNEL,
        NO_KEY,
        error(404, "no such channel"),
        NOT_LOADED,
    ],
);

pub const TOLGEE_DEFAULT: Route = sdk(
    "/tolgee/{channel}/{lang}",
    "@tolgee/web BackendFetch's {prefix}/{lang}.json: the default namespace (a sheet of one tab) in one locale, nested with ICU messages",
    &[
        bundle("the namespace in the locale, ICU messages"),
        NOT_MODIFIED,
        BAD_CHANNEL,
        NO_KEY,
        NOTHING_THERE,
        error(422, "a text that cannot be written as ICU"),
        NOT_LOADED,
    ],
);

pub const TOLGEE_NAMESPACE: Route = sdk(
    "/tolgee/{channel}/{ns}/{lng}",
    "@tolgee/web BackendFetch's {prefix}/{ns}/{lang}.json: one namespace in one locale, nested with ICU messages",
    &[
        bundle("the namespace in the locale, ICU messages"),
        NOT_MODIFIED,
        BAD_CHANNEL,
        NO_KEY,
        NOTHING_THERE,
        error(422, "a text that cannot be written as ICU"),
        NOT_LOADED,
    ],
);

pub const BUNDLE: Route = Route {
    params: &[IF_NONE_MATCH],
    access: Access::Open,
    ..sdk(
        "/bundles/{bundle}",
        "A bundle by its content hash (<sha256>.json, the Content-Location of every channel URL): immutable",
        &[
            manifest(
                "the bundle; Cache-Control: public, max-age=31536000, immutable",
                "Bundle",
            ),
            NOT_MODIFIED,
            error(404, "no bundle of a version served has this hash"),
        ],
    )
};

pub const CHANNELS: Route = Route {
    responses: &[
        reply(
            200,
            "draft and every named channel (private ones with a key): its version, its history and its moves",
            Content::Json("Channels"),
        ),
        error(401, "a key that is not one of the configured keys"),
        error(503, "the translations store cannot be reached"),
    ],
    access: Access::OptionalKey,
    ..route(
        "GET",
        "/channels",
        "The channels (SPEC §14): draft follows the sheet, each named one points at a kept version",
    )
};

pub const CHANNEL_PUBLISH: Route = Route {
    responses: &[
        reply(
            200,
            "where the channel points now, and whether it moved",
            Content::Json("ChannelMove"),
        ),
        error(
            400,
            "a channel name that is not one, draft, a bad body, or a version prefix too short or shared",
        ),
        error(401, "no admin key"),
        error(403, "not an admin key, or writes are off"),
        error(404, "the version is not kept"),
        error(
            409,
            "the version has findings of the checks (version-has-findings; force publishes it anyway)",
        ),
        error(
            503,
            "no translations loaded yet, or the store cannot be reached",
        ),
    ],
    access: Access::AdminKey,
    json_body: Some("PublishRequest"),
    ..route(
        "POST",
        "/channels/{channel}/publish",
        "Point a channel at a kept version (the current one by default); admin key",
    )
};

pub const CHANNEL_ROLLBACK: Route = Route {
    responses: &[
        reply(
            200,
            "where the channel points now: the version before its last publish",
            Content::Json("ChannelMove"),
        ),
        error(400, "a channel name that is not one, or draft"),
        error(401, "no admin key"),
        error(403, "not an admin key, or writes are off"),
        error(404, "no such channel"),
        error(409, "the channel has no earlier version"),
        error(503, "the store cannot be reached"),
    ],
    access: Access::AdminKey,
    ..route(
        "POST",
        "/channels/{channel}/rollback",
        "Point a channel back at the version before its last publish; admin key",
    )
};

/// The console's page of the channels, and its form that moves one (SPEC §14).
pub const CONSOLE_CHANNELS: Route = Route {
    params: &[
        query(
            "confirm",
            "publish or rollback: the confirmation step of that move (admin session)",
            Schema::Text,
        ),
        query("channel", "the channel to move", Schema::Text),
        query(
            "version",
            "the version to publish (its id or first 8 or more characters)",
            Schema::Text,
        ),
    ],
    ..super::page(
        "GET",
        "/console/channels",
        "Console: the channels, their versions and history; publish and roll back with a confirmation",
    )
};
pub const CONSOLE_CHANNEL_MOVE: Route = super::page(
    "POST",
    "/console/channels",
    "Console: publish to or roll back a channel, as confirmed (form fields action, channel, version, force; admin session, CSRF token)",
);
