//! Every configuration key in one table: its TOML name, its environment name, its default,
//! what values it allows and whether it can change under a running daemon.
//!
//! The table is the single source for layering, validation, `config check` and the
//! documentation test that keeps `config/depot.toml` complete.

/// What values a key accepts; validation turns raw text into a typed value by this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Any text (may be empty).
    Text,
    /// Text that must not be empty.
    NonEmpty,
    /// Where the sheet comes from: `google`, `example`, a local file or an `http(s)://` URL;
    /// text that looks like another URL is refused (`source::source_problem`).
    Source,
    /// An integer in `min..=max`.
    Integer {
        min: u64,
        max: u64,
    },
    Bool,
    /// One of a fixed set of words.
    OneOf(&'static [&'static str]),
    /// An `IP:port` socket address.
    SocketAddr,
    /// An `http://` or `https://` URL; empty allowed when `optional`.
    Url {
        optional: bool,
    },
    /// A `redis://` or `rediss://` (TLS) URL; a password in it is masked when shown.
    RedisUrl,
    /// A list of words (TOML array, or comma-separated in the environment).
    List,
    /// A list of web origins (`https://app.example`), or `*` alone; stored serialized as
    /// browsers send them in `Origin`.
    Origins,
    /// A log level.
    LogLevel,
    /// Locale → locale (a TOML table `{ pt_BR = "pt_PT", "*" = "en_US" }`, or
    /// `pt_BR=pt_PT,*=en_US` in the environment); kept as `from=to` items.
    LocaleMap,
    /// Target → locale → name (a TOML table of tables `{ "*" = { zh_Hant = "zh-TW" } }`,
    /// or `*:zh_Hant=zh-TW` items in the environment); kept as `target:locale=name` items.
    LocaleNames,
    /// Format → path template (a TOML table `{ i18next = "{namespace}/{lang}.json" }`, or
    /// `i18next={namespace}/{lang}.json` in the environment); kept as `format=template`.
    Layouts,
}

/// One configuration key.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// Dotted name, `group.key`, as in `config/depot.toml`.
    pub name: &'static str,
    /// Environment (and `.env.service`) name.
    pub env: &'static str,
    /// Whether the key may appear in `config/depot.toml` (the `SERVICE_*` ones may not:
    /// SPEC §2 keeps the spreadsheet credentials out of the TOML file).
    pub in_toml: bool,
    /// Default, written as it would be in the environment.
    pub default: &'static str,
    pub kind: Kind,
    /// Printed as `***` everywhere and never echoed in an error.
    pub secret: bool,
    /// Applies under a running daemon; `false` means a change is logged as "needs restart".
    pub live: bool,
    /// Its value is (or may be) a URL, shown through `redact` (besides the `Url` and
    /// `RedisUrl` kinds, which always are).
    pub url: bool,
    /// One line for `config/depot.toml` and `config check`.
    pub doc: &'static str,
}

const fn key(name: &'static str, env: &'static str, default: &'static str, kind: Kind) -> Key {
    Key {
        name,
        env,
        in_toml: true,
        default,
        kind,
        secret: false,
        live: true,
        url: false,
        doc: "",
    }
}

impl Key {
    const fn doc(mut self, doc: &'static str) -> Key {
        self.doc = doc;
        self
    }
    const fn secret(mut self) -> Key {
        self.secret = true;
        self
    }
    const fn restart(mut self) -> Key {
        self.live = false;
        self
    }
    const fn env_only(mut self) -> Key {
        self.in_toml = false;
        self
    }
    const fn url(mut self) -> Key {
        self.url = true;
        self
    }

    /// Whether the key's values are URLs (or may be: `producer.source`).
    pub fn holds_urls(&self) -> bool {
        self.url || matches!(self.kind, Kind::Url { .. } | Kind::RedisUrl)
    }
}

pub const LOG_LEVELS: &[&str] = &["error", "warn", "info", "debug", "trace"];

/// Every key depot knows, grouped as in `config/depot.toml`.
pub const KEYS: &[Key] = &[
    key("server.listen", "DEPOT_LISTEN", "127.0.0.1:3000", Kind::SocketAddr)
        .restart()
        .doc("address and port the daemon listens on"),
    key("server.public_url", "DEPOT_PUBLIC_URL", "", Kind::Url { optional: true })
        .doc("base URL clients reach depot at (https://depot.example, http://192.168.1.20:3000), for every absolute link it gives: signed URLs of the embedded store, upload URLs, the console's origin check; empty means http://<server.listen>, or on 0.0.0.0 / [::] the address each request came in on"),
    key("server.data_dir", "DEPOT_DATA_DIR", "data", Kind::NonEmpty)
        .restart()
        .doc("folder for the database, the stores and the embedded credentials (created on start)"),
    key("server.body_limit_bytes", "DEPOT_BODY_LIMIT_BYTES", "104857600", Kind::Integer { min: 1024, max: 1 << 40 })
        .restart()
        .doc("largest request body accepted (413 above it)"),
    key("server.shutdown_grace_secs", "DEPOT_SHUTDOWN_GRACE_SECS", "10", Kind::Integer { min: 0, max: 3600 })
        .doc("how long in-flight requests may run after SIGINT/SIGTERM"),
    key("server.idle_timeout_secs", "DEPOT_IDLE_TIMEOUT_SECS", "60", Kind::Integer { min: 1, max: 86_400 })
        .doc("seconds a connection may wait for its next request without sending a byte (a new one for its first); then it is closed. A response in progress (an event stream, a download, an upload) is never cut"),
    key("server.header_timeout_secs", "DEPOT_HEADER_TIMEOUT_SECS", "30", Kind::Integer { min: 1, max: 3600 })
        .doc("seconds a request head may take: from the accept for a connection's first request, from its first byte for the next ones; then the connection is closed"),
    key("server.cors_origins", "DEPOT_CORS_ORIGINS", "", Kind::Origins)
        .doc("origins whose browser scripts may call the API (https://app.example, ...), or * for any; none means CORS is off"),
    key("database.path", "DEPOT_DATABASE_PATH", "", Kind::Text)
        .restart()
        .doc("SQLite file of the file records; empty means <data_dir>/depot.sqlite3"),
    key("database.url", "DEPOT_DATABASE_URL", "", Kind::Text)
        .secret()
        .url()
        .restart()
        .doc("PostgreSQL for the file records (postgres://user:password@host:port/db), shared by every node; empty keeps SQLite at database.path"),
    key("database.pool_size", "DEPOT_DATABASE_POOL_SIZE", "16", Kind::Integer { min: 1, max: 1024 })
        .restart()
        .doc("most PostgreSQL connections one process opens (with database.url)"),
    key("files.default_limit", "DEPOT_FILES_DEFAULT_LIMIT", "25", Kind::Integer { min: 1, max: 10_000 })
        .doc("page size of GET /files when no limit is given"),
    key("files.max_limit", "DEPOT_FILES_MAX_LIMIT", "100", Kind::Integer { min: 1, max: 10_000 })
        .doc("largest page size; larger limits are clamped to it"),
    key("files.single_put_max", "DEPOT_FILES_SINGLE_PUT_MAX", "5368709120", Kind::Integer { min: 1, max: 5 << 30 })
        .doc("largest direct upload (POST /files/uploads) sent in one PUT, at most S3's 5 GiB; a larger one gets a multipart plan"),
    key("files.part_size", "DEPOT_FILES_PART_SIZE", "67108864", Kind::Integer { min: 5 << 20, max: 5 << 30 })
        .doc("bytes in each part of a multipart plan, 5 MiB to 5 GiB (raised for a file that would need more than S3's 10,000 parts)"),
    key("files.upload_ttl_secs", "DEPOT_FILES_UPLOAD_TTL_SECS", "86400", Kind::Integer { min: 1, max: 604_800 })
        .doc("seconds a direct upload has to complete; then it is aborted and its object or parts deleted (at most 7 days, a signed URL's longest life)"),
    key("signing.endpoint", "DEPOT_SIGNING_ENDPOINT", "", Kind::Url { optional: true })
        .doc("S3-compatible endpoint to sign for (https://s3.amazonaws.com, http://127.0.0.1:9000, ...); empty signs for the embedded store"),
    key("signing.region", "DEPOT_SIGNING_REGION", "us-east-1", Kind::NonEmpty)
        .doc("region in the signature scope"),
    key("signing.access_key_id", "DEPOT_SIGNING_ACCESS_KEY_ID", "", Kind::Text)
        .doc("access key id for signing.endpoint"),
    key("signing.secret_access_key", "DEPOT_SIGNING_SECRET_ACCESS_KEY", "", Kind::Text)
        .secret()
        .doc("secret access key for signing.endpoint"),
    key("signing.session_token", "DEPOT_SIGNING_SESSION_TOKEN", "", Kind::Text)
        .secret()
        .doc("optional session token (temporary credentials)"),
    key("signing.addressing", "DEPOT_SIGNING_ADDRESSING", "path", Kind::OneOf(&["path", "virtual"]))
        .doc("path style (endpoint/bucket/key) or virtual-host style (bucket.endpoint/key)"),
    key("signing.expires_secs", "DEPOT_SIGNING_EXPIRES_SECS", "900", Kind::Integer { min: 1, max: 604_800 })
        .doc("lifetime of a signed URL, 1 s to 7 days"),
    key("signing.public_url", "DEPOT_SIGNING_PUBLIC_URL", "", Kind::Url { optional: true })
        .doc("old name of server.public_url, still read when that one is empty (config check says to rename it)"),
    key("objects.enabled", "DEPOT_OBJECTS_ENABLED", "true", Kind::Bool)
        .restart()
        .doc("serve the embedded object store under /objects"),
    key("objects.root", "DEPOT_OBJECTS_ROOT", "", Kind::Text)
        .restart()
        .doc("folder of the embedded object store; empty means <data_dir>/objects"),
    key("translations.storage", "DEPOT_TRANSLATIONS_STORAGE", "sled", Kind::OneOf(&["sled", "file", "redis"]))
        .restart()
        .doc("where the converted translations are kept: sled or file on this machine, redis to share them between nodes"),
    key("translations.sled_path", "DEPOT_TRANSLATIONS_SLED_PATH", "", Kind::Text)
        .restart()
        .doc("sled folder; empty means <data_dir>/translations.sled"),
    key("translations.file_path", "DEPOT_TRANSLATIONS_FILE_PATH", "", Kind::Text)
        .restart()
        .doc("JSON document for storage \"file\"; empty means <data_dir>/translations.json"),
    key("translations.redis_url", "DEPOT_TRANSLATIONS_REDIS_URL", "redis://127.0.0.1:6379/0", Kind::RedisUrl)
        .secret()
        .restart()
        .doc("Redis for storage \"redis\": redis://[user:password@]host:port/db, rediss:// for TLS (shown by its host alone; config check masks the password)"),
    key("translations.redis_prefix", "DEPOT_TRANSLATIONS_REDIS_PREFIX", "depot:", Kind::NonEmpty)
        .restart()
        .doc("prefix of every Redis key and channel depot uses, so several deployments can share one Redis"),
    key("translations.keep_versions", "DEPOT_TRANSLATIONS_KEEP_VERSIONS", "10", Kind::Integer { min: 1, max: 1000 })
        .doc("stored versions kept for GET /translations?version= and /translations/versions (the current one included)"),
    key("translations.events_heartbeat_secs", "DEPOT_TRANSLATIONS_EVENTS_HEARTBEAT_SECS", "15", Kind::Integer { min: 1, max: 3600 })
        .doc("seconds between the comment lines that keep GET /translations/events streams open through proxies"),
    key("translations.fallback", "DEPOT_TRANSLATIONS_FALLBACK", "", Kind::LocaleMap)
        .restart()
        .doc("fallback chains for fallback=true / --fallback: a table mapping a locale to the locale it borrows missing texts from, \"*\" for every other locale, e.g. { pt_BR=\"pt_PT\", \"*\"=\"en_US\" } (environment: pt_BR=pt_PT,*=en_US)"),
    key("translations.locales", "DEPOT_TRANSLATIONS_LOCALES", "", Kind::LocaleNames)
        .restart()
        .doc("locale names per target: a table per target (\"*\" for every one, a format such as android or ios, or an SDK layout: i18next, tolgee) mapping the sheet's locale to the name that target uses in file names, locale fields and URLs, e.g. { \"*\"={ zh_Hant=\"zh-TW\" }, ios={ zh_Hant=\"zh-Hant\" } } (environment: *:zh_Hant=zh-TW,ios:zh_Hant=zh-Hant)"),
    key("translations.layouts", "DEPOT_TRANSLATIONS_LAYOUTS", "", Kind::Layouts)
        .doc("generate's file paths per format (--layout overrides): a table of format to path template with {namespace}, {locale}, {lang}, {region}, {android}, {apple}, {ext}, e.g. { i18next=\"{namespace}/{lang}.json\" } (environment: i18next={namespace}/{lang}.json)"),
    key("translations.placeholders", "DEPOT_TRANSLATIONS_PLACEHOLDERS", "keep", Kind::OneOf(&["keep", "convert"]))
        .restart()
        .doc("{name} placeholders when a request names none: keep writes texts as they are, convert writes each format's syntax (%1$s, %1$@, %{name}, ICU)"),
    key("translations.sheet_encoding", "DEPOT_TRANSLATIONS_SHEET_ENCODING", "utf-8", Kind::OneOf(&["utf-8", "windows-1250", "windows-1251", "windows-1252", "windows-1253", "windows-1254", "windows-1255", "windows-1256", "windows-1257", "windows-1258"]))
        .doc("the code page of a .csv sheet that is not UTF-8 (Excel's \"CSV (Comma delimited)\" writes the computer's, e.g. windows-1250 in Central Europe, windows-1252 in Western Europe); utf-8 refuses such a file, saying how to save it. UTF-8 and UTF-16 files (with their byte-order mark) are read whatever this says"),
    key("producer.enabled", "DEPOT_PRODUCER_ENABLED", "true", Kind::Bool)
        .doc("run the spreadsheet sync inside `depot serve` (`depot produce` syncs whatever this says)"),
    key("producer.interval_secs", "DEPOT_PRODUCER_INTERVAL_SECS", "300", Kind::Integer { min: 1, max: 86_400 })
        .doc("seconds between the end of one sync and the start of the next"),
    key("producer.source", "DEPOT_PRODUCER_SOURCE", "google", Kind::Source)
        .url()
        .doc("\"google\", \"example\" (the sheet built into depot; also what `depot serve` reads while no spreadsheet is configured), the path of a local .csv/.xlsx/.ods sheet (also read as soon as it is saved), or an http(s):// URL of a CSV (a sheet published to the web)"),
    key("producer.strict", "DEPOT_PRODUCER_STRICT", "false", Kind::Bool)
        .doc("refuse to publish a sheet with findings of the checks (placeholders, plurals, braces, duplicate keys, name collisions); the last good version stays served"),
    key("producer.lease_secs", "DEPOT_PRODUCER_LEASE_SECS", "15", Kind::Integer { min: 2, max: 3600 })
        .doc("with storage \"redis\": lifetime of the producer lease that lets one node at a time sync; a node that dies is replaced after at most this long"),
    key("google.token_url", "DEPOT_GOOGLE_TOKEN_URL", "https://oauth2.googleapis.com/token", Kind::Url { optional: false })
        .doc("OAuth token endpoint"),
    key("google.auth_url", "DEPOT_GOOGLE_AUTH_URL", "https://accounts.google.com/o/oauth2/v2/auth", Kind::Url { optional: false })
        .doc("OAuth consent page"),
    key("google.sheets_url", "DEPOT_GOOGLE_SHEETS_URL", "https://sheets.googleapis.com", Kind::Url { optional: false })
        .doc("Sheets API base URL"),
    key("google.timeout_secs", "DEPOT_GOOGLE_TIMEOUT_SECS", "30", Kind::Integer { min: 1, max: 600 })
        .doc("timeout of every call to Google"),
    key("google.token_store", "DEPOT_TOKEN_STORE", "env", Kind::OneOf(&["env", "json"]))
        .doc("where the refresh token is read and saved: env (SERVICE_REFRESH_TOKEN in .env.service) or json (the token file); --config-format sets it"),
    key("google.token_file", "DEPOT_TOKEN_FILE", "data.json", Kind::NonEmpty)
        .doc("JSON data file holding {\"SERVICE_REFRESH_TOKEN\": ...} when token_store is json"),
    key("google.credentials_file", "DEPOT_GOOGLE_CREDENTIALS_FILE", "", Kind::Text)
        .doc("a service account's JSON key; when set, the sheet is read as that account (share the sheet with its client_email) instead of with SERVICE_CLIENT_ID/SECRET and a refresh token"),
    key("auth.api_keys", "DEPOT_API_KEYS", "", Kind::List)
        .secret()
        .doc("keys that may read private file records (Authorization: Bearer <key>); none means reads are open"),
    key("auth.admin_keys", "DEPOT_ADMIN_KEYS", "", Kind::List)
        .secret()
        .doc("keys that may write (POST /files, DELETE /file, POST /translations/sync); none means writes are off"),
    key("limits.login_attempts", "DEPOT_LOGIN_ATTEMPTS", "5", Kind::Integer { min: 1, max: 1000 })
        .doc("wrong keys the console's login takes from one client address in a row; past them it answers 429 with Retry-After"),
    key("limits.login_refill_secs", "DEPOT_LOGIN_REFILL_SECS", "20", Kind::Integer { min: 1, max: 86_400 })
        .doc("seconds after which a client address that used up its login attempts gets one more (so at most one wrong key per this many seconds)"),
    key("limits.api_key_attempts", "DEPOT_API_KEY_ATTEMPTS", "10", Kind::Integer { min: 1, max: 1_000_000 })
        .doc("wrong API keys (Authorization: Bearer) the API takes from one client address in a row; past them every keyed request from it answers 429 with Retry-After, the right key too"),
    key("limits.api_key_refill_secs", "DEPOT_API_KEY_REFILL_SECS", "6", Kind::Integer { min: 1, max: 86_400 })
        .doc("seconds after which a client address that used up its API key attempts gets one more"),
    key("limits.events_per_client", "DEPOT_EVENTS_PER_CLIENT", "16", Kind::Integer { min: 1, max: 1_000_000 })
        .doc("most GET /translations/events streams open from one client address (IPv6: one /64); past it 429"),
    key("limits.events_total", "DEPOT_EVENTS_TOTAL", "10000", Kind::Integer { min: 1, max: 1_000_000 })
        .doc("most GET /translations/events streams open on this node in all; past it 429"),
    key("limits.connections", "DEPOT_CONNECTIONS", "0", Kind::Integer { min: 0, max: 10_000_000 })
        .doc("most connections open at once; past it the connection that has waited longest for a request is closed to make room, or the new one refused while every one is busy. 0 derives it from the open-file limit (ulimit -n, raised to its hard limit at start): half of what is left after 256, from 32 to 16384"),
    key("limits.input_memory_bytes", "DEPOT_INPUT_MEMORY_BYTES", "1073741824", Kind::Integer { min: 1 << 20, max: 1 << 40 })
        .doc("memory that reading input may take: an app's translation files (import, diff) or a local sheet file (.csv, .xlsx, .ods; generate, serve, produce, import --merge-into, diff), estimated from each file's size and format before it is read; a file past it is refused, naming it (import, diff and generate also take --max-memory SIZE)"),
    key("webhooks.urls", "DEPOT_WEBHOOKS_URLS", "", Kind::List)
        .secret()
        .url()
        .doc("URLs that get a signed POST for every new translations version (hook URLs often hold a token, so they are shown by their host alone)"),
    key("webhooks.secret", "DEPOT_WEBHOOKS_SECRET", "", Kind::Text)
        .secret()
        .doc("key of the HMAC-SHA256 Depot-Signature header of every webhook delivery; required with webhooks.urls"),
    key("delivery.max_age_secs", "DEPOT_DELIVERY_MAX_AGE_SECS", "60", Kind::Integer { min: 0, max: 86_400 })
        .doc("Cache-Control max-age of the SDK endpoints' channel URLs and manifests (SPEC §14): how long a CDN, a proxy or a browser may serve them without asking again; a publish is seen within it (hash-named /bundles are immutable)"),
    key("delivery.project_id", "DEPOT_DELIVERY_PROJECT_ID", "depot", Kind::NonEmpty)
        .doc("the projectId of the locize layout (/locize/{projectId}/{channel}/{lng}/{ns}, /locize/languages/{projectId}); another id answers 404"),
    key("delivery.private_channels", "DEPOT_DELIVERY_PRIVATE_CHANNELS", "", Kind::List)
        .doc("channels whose SDK URLs need a key of auth.api_keys or auth.admin_keys (Authorization: Bearer <key>, or the bare key as i18next-locize-backend sends it), served Cache-Control: private"),
    key("log.level", "DEPOT_LOG_LEVEL", "info", Kind::LogLevel)
        .doc("error, warn, info, debug or trace"),
    key("log.requests", "DEPOT_LOG_REQUESTS", "false", Kind::Bool)
        .doc("log every answered request at info (method, path, status, duration); false logs them at debug, so that info keeps start-up, syncs, reloads and refusals; 5xx answers are logged at error either way"),
    key("log.format", "DEPOT_LOG_FORMAT", "text", Kind::OneOf(&["text", "json"]))
        .restart()
        .doc("log line format"),
    key("service.client_id", "SERVICE_CLIENT_ID", "", Kind::Text)
        .env_only()
        .doc("Google OAuth client id"),
    key("service.client_secret", "SERVICE_CLIENT_SECRET", "", Kind::Text)
        .env_only()
        .secret()
        .doc("Google OAuth client secret"),
    key("service.refresh_token", "SERVICE_REFRESH_TOKEN", "", Kind::Text)
        .env_only()
        .secret()
        .doc("Google OAuth refresh token (or in the JSON data file)"),
    key("service.spreadsheet_id", "SERVICE_SPREADSHEET_ID", "", Kind::Text)
        .env_only()
        .doc("id of the Google spreadsheet"),
    key("service.spreadsheet_name", "SERVICE_SPREADSHEET_NAME", "", Kind::Text)
        .env_only()
        .doc("sheet (tab) name; empty means every tab, each a namespace (SPEC §14)"),
    key("service.redirect_uri", "SERVICE_REDIRECT_URI", "http://localhost:3000/oauth2callback", Kind::Url { optional: false })
        .env_only()
        .doc("OAuth redirect URI the consent flow listens on"),
];

/// Prefixes of environment names that belong to depot; other names are not ours.
pub const ENV_PREFIXES: &[&str] = &["SERVICE_", "DEPOT_"];

/// A value as `config check` lists it, the operator's own view of what they configured
/// (SPEC §7): a URL keeps all but its password, query values and fragment
/// (`redact::for_config`: `postgres://depot:***@db:5432/depot`); any other secret is
/// `***`. Webhook URLs are secret whole (a hook's path or query is its token): shown as
/// everywhere else (`redact::url`).
pub fn listed(key: &Key, value: &str) -> String {
    if value.is_empty() {
        return String::new();
    }
    match (key.secret, is_url(key, value)) {
        (true, true) if key.name == "webhooks.urls" => crate::redact::url(value),
        (_, true) => crate::redact::for_config(value),
        (true, false) => crate::redact::MARK.to_owned(),
        (false, false) => value.to_owned(),
    }
}

/// A value as an error message (also logged, and shown in `/health` after a refused
/// reload) names it (SPEC §10): a URL as `redact::url` shows it (`redis://host:6379/***`),
/// any other secret as `***`.
pub fn in_message(key: &Key, value: &str) -> String {
    if value.is_empty() {
        return String::new();
    }
    match (key.secret, is_url(key, value)) {
        (_, true) => crate::redact::url(value),
        (true, false) => crate::redact::MARK.to_owned(),
        (false, false) => value.to_owned(),
    }
}

/// A secret URL key's value is redacted as a URL even when it does not look like one (it
/// is then `***` whole); another key's value only when it does, whatever its scheme
/// (`redact::looks_like_url`: `htps://user:pass@...`, `user:pass@host`, `x?token=...`).
fn is_url(key: &Key, value: &str) -> bool {
    key.holds_urls() && (key.secret || crate::redact::looks_like_url(value))
}

pub fn by_name(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

pub fn by_env(env: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.env == env)
}

/// The known key closest to a misspelt `group.key` (or a bare `key` written outside its
/// `[group]`), for "did you mean"; `None` when nothing is close.
pub fn nearest_name(unknown: &str) -> Option<&'static str> {
    if !unknown.contains('.') {
        // `default_limit = 5` at the top of the file: the key exists, in a group.
        let in_group = KEYS.iter().filter(|k| k.in_toml).find(|k| {
            k.name
                .split_once('.')
                .is_some_and(|(_, name)| name == unknown)
        });
        if let Some(key) = in_group {
            return Some(key.name);
        }
    }
    nearest(unknown, KEYS.iter().map(|k| k.name))
}

/// The known environment name closest to a misspelt one.
pub fn nearest_env(unknown: &str) -> Option<&'static str> {
    nearest(unknown, KEYS.iter().map(|k| k.env))
}

/// The candidate with the fewest edits (a swap of two neighbours counts as one) from
/// `unknown`, if that is few enough to be a slip: at most a third of the name.
pub fn nearest(
    unknown: &str,
    candidates: impl Iterator<Item = &'static str>,
) -> Option<&'static str> {
    let folded = unknown.to_ascii_lowercase();
    let limit = (unknown.chars().count() / 3).max(1);
    candidates
        .map(|c| (strsim::osa_distance(&folded, &c.to_ascii_lowercase()), c))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, c)| c)
}

/// `"; did you mean X?"`, or nothing.
pub fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!("; did you mean {s}?"))
}

/// The shipped `config/depot.toml`: every key commented out with its default, its
/// environment name and whether it applies live. A test keeps the file equal to this.
pub fn commented_toml() -> String {
    let mut out = String::from(
        "# depot configuration. Every key is listed with its built-in default, commented out:\n\
         # uncomment a line to change it. Precedence, highest first: command-line flags\n\
         # (--set group.key=value, --listen, ...) > process environment > .env.service >\n\
         # this file > defaults. The daemon reloads this file when it changes; keys marked\n\
         # \"restart\" only take effect after a restart.\n",
    );
    let mut group = "";
    for key in KEYS.iter().filter(|k| k.in_toml) {
        let (g, name) = key.name.split_once('.').unwrap_or(("", key.name));
        if g != group {
            out.push_str(&format!("\n[{g}]\n"));
            group = g;
        }
        let value = match key.kind {
            Kind::Integer { .. } | Kind::Bool => key.default.to_owned(),
            Kind::List | Kind::Origins => "[]".to_owned(),
            Kind::LocaleMap | Kind::LocaleNames | Kind::Layouts => "{}".to_owned(),
            _ => format!("\"{}\"", key.default),
        };
        let mode = if key.live { "live" } else { "restart" };
        let secret = if key.secret { "; secret" } else { "" };
        out.push_str(&format!(
            "# {} (env {}; {mode}{secret})\n# {name} = {value}\n",
            key.doc, key.env
        ));
    }
    out.push_str(
        "\n# The spreadsheet credentials are not read from this file: set them in the\n\
         # environment or in .env.service (the refresh token may also live in the JSON data\n\
         # file, see `--config-format json`):\n",
    );
    for key in KEYS.iter().filter(|k| !k.in_toml) {
        let default = if key.default.is_empty() {
            String::new()
        } else {
            format!(" (default {})", key.default)
        };
        out.push_str(&format!("#   {}: {}{default}\n", key.env, key.doc));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn misspelt_names_get_the_nearest_known_one() {
        assert_eq!(
            nearest_name("files.defualt_limit"),
            Some("files.default_limit")
        );
        assert_eq!(nearest_name("flies.max_limit"), Some("files.max_limit"));
        assert_eq!(nearest_name("default_limit"), Some("files.default_limit"));
        assert_eq!(nearest_name("log.levle"), Some("log.level"));
        assert_eq!(nearest_name("something.else_entirely"), None);
        assert_eq!(nearest_env("DEPOT_LOG_LEVL"), Some("DEPOT_LOG_LEVEL"));
        assert_eq!(nearest_env("SERVICE_CLIENTID"), Some("SERVICE_CLIENT_ID"));
        assert_eq!(nearest_env("depot_listen"), Some("DEPOT_LISTEN"));
        assert_eq!(nearest_env("DEPOT_HOME"), None);
    }

    #[test]
    fn names_and_env_names_are_unique() {
        let names: HashSet<_> = KEYS.iter().map(|k| k.name).collect();
        let envs: HashSet<_> = KEYS.iter().map(|k| k.env).collect();
        assert_eq!(names.len(), KEYS.len());
        assert_eq!(envs.len(), KEYS.len());
    }

    #[test]
    fn every_env_name_has_a_known_prefix_and_every_key_a_doc() {
        for k in KEYS {
            assert!(
                ENV_PREFIXES.iter().any(|p| k.env.starts_with(p)),
                "{}",
                k.env
            );
            assert!(!k.doc.is_empty(), "{} has no doc", k.name);
            assert_eq!(
                k.name.matches('.').count(),
                1,
                "{} is not group.key",
                k.name
            );
        }
    }

    #[test]
    fn shipped_config_file_documents_every_key() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/config/depot.toml");
        let expected = commented_toml();
        if std::env::var_os("DEPOT_WRITE_CONFIG").is_some() {
            std::fs::write(path, &expected).unwrap();
        }
        let shipped = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            shipped == expected,
            "config/depot.toml is out of date; run DEPOT_WRITE_CONFIG=1 cargo test shipped_config"
        );
        // Uncommenting every key line gives a valid file that changes nothing.
        let uncommented: String = shipped
            .lines()
            .filter_map(|l| {
                if l.starts_with('[') {
                    Some(l)
                } else {
                    l.strip_prefix("# ").filter(|l| l.contains(" = "))
                }
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let sources = |toml: &str| {
            crate::config::Sources::files_only(
                dir.path().join(toml),
                dir.path().join(".env.service"),
            )
        };
        std::fs::write(dir.path().join("all.toml"), uncommented).unwrap();
        let from_file = crate::config::layers::resolve(&sources("all.toml"), &[]).unwrap();
        let defaults = crate::config::layers::resolve(&sources("none.toml"), &[]).unwrap();
        let values =
            |r: &crate::config::Resolved| r.values.iter().map(|v| v.0.clone()).collect::<Vec<_>>();
        assert_eq!(values(&from_file), values(&defaults));
        assert_eq!(
            from_file.layer("files.max_limit"),
            crate::config::Layer::Toml
        );
    }

    #[test]
    fn the_configuration_page_lists_every_key() {
        let page = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/docs/configuration.md"
        ))
        .unwrap_or_default();
        for key in KEYS {
            let row = format!("| `{}` | `{}` | `{}` |", key.name, key.env, key.default);
            assert!(
                page.contains(&row),
                "docs/configuration.md lacks the row of {}",
                key.name
            );
        }
    }

    #[test]
    fn config_check_masks_passwords_and_messages_show_hosts_only() {
        let redis = by_name("translations.redis_url").unwrap();
        assert_eq!(listed(redis, "redis://a:b@h:1/0"), "redis://a:***@h:1/0");
        assert_eq!(in_message(redis, "redis://a:bb@h:1/0"), "redis://h:1/***");
        assert_eq!(in_message(redis, "localhost:6379"), "***");
        let database = by_name("database.url").unwrap();
        assert_eq!(
            listed(database, "postgres://depot:pw@db:5432/depot"),
            "postgres://depot:***@db:5432/depot"
        );
        // libpq's key=value form is no URL: masked whole.
        assert_eq!(listed(database, "host=db password=pw"), "***");
        let hooks = by_name("webhooks.urls").unwrap();
        assert_eq!(
            listed(hooks, "https://hooks.example/services/T0/secret"),
            "https://hooks.example/***"
        );
        let source = by_name("producer.source").unwrap();
        assert_eq!(
            listed(source, "https://sheets.example/pub?output=csv&token=abc"),
            "https://sheets.example/pub?output=***&token=***"
        );
        assert_eq!(listed(source, "sheet.csv"), "sheet.csv");
        assert_eq!(
            in_message(source, "https://sheets.example/pub?t=abc"),
            "https://sheets.example/***"
        );
        let endpoint = by_name("signing.endpoint").unwrap();
        assert_eq!(in_message(endpoint, "localhost:9000"), "localhost:9000");
        // Credentials or a query without a scheme, or a scheme depot does not know: a URL.
        assert_eq!(in_message(endpoint, "user:pw@s3.example:9000"), "***");
        assert_eq!(in_message(endpoint, "s3.example/x?token=t0k"), "***");
        assert_eq!(
            in_message(source, "htps://u:pw@sheets.example/pub?key=k"),
            "htps://sheets.example/***"
        );
        let secret = by_name("auth.api_keys").unwrap();
        assert_eq!(listed(secret, "k1,k2"), "***");
        assert_eq!(in_message(secret, "k1,k2"), "***");
        assert_eq!(listed(by_name("log.level").unwrap(), "info"), "info");
    }

    #[test]
    fn the_six_service_names_are_exact() {
        for env in [
            "SERVICE_CLIENT_ID",
            "SERVICE_CLIENT_SECRET",
            "SERVICE_REFRESH_TOKEN",
            "SERVICE_SPREADSHEET_ID",
            "SERVICE_SPREADSHEET_NAME",
            "SERVICE_REDIRECT_URI",
        ] {
            assert!(by_env(env).is_some(), "{env}");
        }
    }
}
