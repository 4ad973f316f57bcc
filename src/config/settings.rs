//! The typed settings every part of depot reads. Built only from a validated `Resolved`,
//! so a `Settings` value is always complete and valid.

use super::layers::{Resolved, Value, absolute};
use super::source::is_web_url;
use crate::model::fallback::Fallbacks;
use crate::model::placeholders::PlaceholderMode;
use crate::naming::locale_names::LocaleNames;
use crate::naming::path_template::Layouts;
use crate::secret::Secret;
pub use crate::signing::Addressing;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub server: Server,
    pub database: Database,
    pub files: Files,
    pub signing: Signing,
    pub objects: Objects,
    pub translations: Translations,
    pub producer: Producer,
    pub google: Google,
    pub auth: Auth,
    pub limits: Limits,
    pub webhooks: Webhooks,
    pub delivery: Delivery,
    pub log: Log,
    pub service: Service,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub listen: SocketAddr,
    pub data_dir: PathBuf,
    pub body_limit_bytes: u64,
    pub shutdown_grace_secs: u64,
    /// A connection waiting for a request is closed after this long without a byte.
    pub idle_timeout_secs: u64,
    /// A request head must be complete this long after the accept (first request) or its
    /// first byte (later ones).
    pub header_timeout_secs: u64,
    /// Origins allowed to make cross-origin requests (serialized, or `*` alone); empty: off.
    pub cors_origins: Vec<String>,
    /// The base URL clients reach depot at (`server.public_url`, or its old name
    /// `signing.public_url`); `None`: see `base_url`.
    pub public_url: Option<PublicUrl>,
}

/// A configured public base URL and the key that set it (for messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl {
    /// Without a trailing `/`.
    pub url: String,
    pub key: &'static str,
}

impl Server {
    /// The base URL of every absolute link depot gives a client (signed URLs of the embedded
    /// store, upload URLs) for a request that came in on `arrived_on`, the connection's own
    /// address, while the daemon listens on `bound`: `server.public_url` when set; else the
    /// address listened on; else, on a wildcard address (0.0.0.0, [::]), the address the
    /// connection came in on: an address of this machine that the client reached, which it
    /// cannot choose the way it chooses `Host`. Loopback when no connection is known.
    pub fn base_url(&self, bound: SocketAddr, arrived_on: Option<SocketAddr>) -> String {
        if let Some(public) = &self.public_url {
            return public.url.clone();
        }
        let mut addr = match arrived_on {
            Some(local) if bound.ip().is_unspecified() => local,
            _ => bound,
        };
        addr.set_ip(addr.ip().to_canonical());
        if addr.ip().is_unspecified() {
            addr.set_ip(match addr {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        // A URL has no place for an IPv6 zone (`%eth0`).
        if let SocketAddr::V6(v6) = &mut addr {
            v6.set_scope_id(0);
        }
        format!("http://{addr}")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Database {
    pub path: PathBuf,
    /// PostgreSQL URL; empty keeps SQLite at `path`.
    pub url: Secret,
    pub pool_size: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Files {
    pub default_limit: u64,
    pub max_limit: u64,
    /// Largest direct upload sent in one PUT; larger ones are multipart.
    pub single_put_max: u64,
    /// Bytes in each part of a multipart plan (raised when 10,000 parts would not do).
    pub part_size: u64,
    /// Seconds a direct upload has to complete.
    pub upload_ttl_secs: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signing {
    /// `None`: sign for the embedded object store.
    pub endpoint: Option<String>,
    pub region: String,
    pub access_key_id: String,
    pub secret_access_key: Secret,
    pub session_token: Option<Secret>,
    pub addressing: Addressing,
    pub expires_secs: u64,
}

impl Signing {
    /// What signs for `signing.endpoint` (target and credentials), when it is set; `None`
    /// signs for the embedded store. The daemon's URL signer, the S3 writes and the check
    /// at load all take it from here.
    pub fn endpoint_signing(
        &self,
    ) -> Option<(crate::signing::SigningTarget, crate::signing::Credentials)> {
        let endpoint = self.endpoint.as_ref()?;
        Some((
            crate::signing::SigningTarget {
                endpoint: endpoint.clone(),
                addressing: self.addressing,
                region: self.region.clone(),
            },
            crate::signing::Credentials {
                access_key_id: self.access_key_id.clone(),
                secret_access_key: self.secret_access_key.clone(),
                session_token: self.session_token.clone(),
            },
        ))
    }

    /// The signing settings as a whole, checked at load (and reload) rather than at the
    /// first `GET /file`: with `signing.endpoint` set, both credentials are required, and
    /// the endpoint, region and key id must make a signer; without it, the region and
    /// the public URL (`server.public_url`) must make one for the embedded store.
    pub fn check(&self, public_url: Option<&PublicUrl>) -> Result<(), String> {
        use crate::signing::{Credentials, Signer, SigningError, SigningTarget};
        let (target, credentials) = match self.endpoint_signing() {
            Some((target, credentials)) => {
                let missing: Vec<&str> = [
                    ("signing.access_key_id", self.access_key_id.is_empty()),
                    (
                        "signing.secret_access_key",
                        self.secret_access_key.is_empty(),
                    ),
                ]
                .into_iter()
                .filter_map(|(key, empty)| empty.then_some(key))
                .collect();
                if !missing.is_empty() {
                    return Err(format!(
                        "signing.endpoint is set ({}) but {} {} empty: set {} \
                         (env DEPOT_SIGNING_ACCESS_KEY_ID, DEPOT_SIGNING_SECRET_ACCESS_KEY) to the \
                         endpoint's credentials, or leave signing.endpoint empty to sign for \
                         the embedded store",
                        crate::redact::url(&target.endpoint),
                        missing.join(" and "),
                        if missing.len() == 1 { "is" } else { "are" },
                        missing.join(" and "),
                    ));
                }
                (target, credentials)
            }
            // The embedded store's own credentials are generated at start and always valid.
            None => (
                SigningTarget {
                    endpoint: format!(
                        "{}/objects",
                        public_url.map_or("http://127.0.0.1", |p| p.url.as_str())
                    ),
                    addressing: Addressing::Path,
                    region: self.region.clone(),
                },
                Credentials {
                    access_key_id: "DEPOT".into(),
                    secret_access_key: Secret::new("embedded"),
                    session_token: None,
                },
            ),
        };
        Signer::new(target, credentials).map(drop).map_err(|e| {
            let key = match (&e, &self.endpoint) {
                (SigningError::Endpoint { .. }, Some(_)) => "signing.endpoint",
                (SigningError::Endpoint { .. }, None) => {
                    public_url.map_or("server.public_url", |p| p.key)
                }
                (SigningError::Region(_), _) => "signing.region",
                (SigningError::AccessKeyId(_), _) => "signing.access_key_id",
                _ => "signing.secret_access_key",
            };
            format!("{key}: {e}")
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Objects {
    pub enabled: bool,
    pub root: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    Sled,
    File,
    /// Shared by several nodes (SPEC §7).
    Redis,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translations {
    pub storage: Storage,
    pub sled_path: PathBuf,
    pub file_path: PathBuf,
    /// `redis://` or `rediss://`; may hold a password.
    pub redis_url: Secret,
    pub redis_prefix: String,
    /// Stored versions kept for `?version=` and `/translations/versions`.
    pub keep_versions: usize,
    /// Seconds between the comment lines that keep `/translations/events` streams open.
    pub events_heartbeat_secs: u64,
    /// `translations.fallback` (validated when the layers were read).
    pub fallbacks: Fallbacks,
    /// `translations.locales`: locale names per target.
    pub locale_names: LocaleNames,
    /// `translations.layouts`: generate's path template per format.
    pub layouts: Layouts,
    pub placeholders: PlaceholderMode,
    /// `translations.sheet_encoding`: a name of `sheets::csv_dialect::CodePage::NAMES`.
    pub sheet_encoding: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SheetSource {
    Google,
    LocalFile(PathBuf),
    /// A CSV at an `http(s)://` URL (a sheet published to the web).
    Url(String),
    /// The example sheet built into the binary (`examples/translations.csv`): chosen by
    /// `producer.source = "example"`, and by `depot serve` on a first run (SPEC §10).
    Example,
}

impl SheetSource {
    /// The source `depot serve` reads: the configured one, or the example sheet when no
    /// spreadsheet is configured at all (`google` without `SERVICE_SPREADSHEET_ID`), so the
    /// first command shows translations at once. Other commands keep the configured source
    /// (and its "set SERVICE_SPREADSHEET_ID" error).
    pub fn for_daemon(&self, service: &Service) -> SheetSource {
        match self {
            SheetSource::Google if service.spreadsheet_id.is_empty() => SheetSource::Example,
            other => other.clone(),
        }
    }

    /// How `/health` and the console name it: `google`, `local`, `url` or `example`.
    pub fn kind(&self) -> &'static str {
        match self {
            SheetSource::Google => "google",
            SheetSource::LocalFile(_) => "local",
            SheetSource::Example => "example",
            SheetSource::Url(_) => "url",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Producer {
    pub enabled: bool,
    pub interval_secs: u64,
    pub source: SheetSource,
    /// Lifetime of the producer lease in a shared store.
    pub lease_secs: u64,
    /// Refuse to publish a sheet with findings (SPEC §9).
    pub strict: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Google {
    pub token_url: String,
    pub auth_url: String,
    pub sheets_url: String,
    pub timeout_secs: u64,
    pub token_store: TokenStore,
    pub token_file: PathBuf,
    /// A service account's JSON key: used instead of the OAuth client and refresh token.
    pub credentials_file: Option<PathBuf>,
}

/// Where the refresh token lives (`--config-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenStore {
    /// `SERVICE_REFRESH_TOKEN` from the environment layers (`.env.service`).
    Env,
    /// `{"SERVICE_REFRESH_TOKEN": ...}` in `google.token_file`.
    Json,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Auth {
    pub api_keys: Vec<Secret>,
    pub admin_keys: Vec<Secret>,
}

/// How much one client address, or all together, may ask (SPEC §10 "Safety of the
/// console", §8 events). A client is its TCP peer address (`http::client`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Wrong console logins one address may try in a row.
    pub login_attempts: u64,
    /// Then one more attempt every this many seconds.
    pub login_refill_secs: u64,
    /// Wrong API keys one address may send in a row.
    pub api_key_attempts: u64,
    /// Then one more every this many seconds.
    pub api_key_refill_secs: u64,
    /// Open `/translations/events` streams per address.
    pub events_per_client: u64,
    /// Open `/translations/events` streams in all.
    pub events_total: u64,
    /// Connections open at once; 0: derived from the open-file limit
    /// (`http::accept::capacity`).
    pub connections: u64,
    /// What reading an input file (an app's translation files, a local sheet) may take.
    pub input_memory: crate::memory_budget::Budget,
}

/// Where each new translations version is announced (SPEC §8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhooks {
    /// Receivers' URLs; secret, as hook URLs often carry a token.
    pub urls: Vec<Secret>,
    pub secret: Secret,
}

impl Webhooks {
    /// Every URL is http(s) and, with any URL, a secret signs the deliveries.
    pub fn check(&self) -> Result<(), String> {
        for (i, url) in self.urls.iter().enumerate() {
            let parsed = url::Url::parse(url.expose()).ok();
            if !parsed.is_some_and(|u| matches!(u.scheme(), "http" | "https") && u.has_host()) {
                return Err(format!(
                    "webhooks.urls: item {} is not an http:// or https:// URL",
                    i + 1
                ));
            }
        }
        if !self.urls.is_empty() && self.secret.is_empty() {
            return Err(
                "webhooks.urls is set but webhooks.secret is empty: set webhooks.secret \
                 (env DEPOT_WEBHOOKS_SECRET) to a random string that receivers use to verify \
                 the Depot-Signature header"
                    .into(),
            );
        }
        Ok(())
    }
}

/// The SDK endpoints (SPEC §14).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// `Cache-Control: max-age` of channel URLs and manifests.
    pub max_age_secs: u64,
    /// The locize layout's project id.
    pub project_id: String,
    /// Channels that need a key.
    pub private_channels: Vec<String>,
}

impl Delivery {
    /// Private channels have names of channels, and keys that may read them.
    pub fn check(&self, auth: &Auth) -> Result<(), String> {
        for name in &self.private_channels {
            crate::naming::channel_name::check(name)
                .map_err(|e| format!("delivery.private_channels: {e}"))?;
        }
        if !self.private_channels.is_empty()
            && auth.api_keys.is_empty()
            && auth.admin_keys.is_empty()
        {
            return Err(
                "delivery.private_channels is set but no key could read them: set \
                 auth.api_keys (env DEPOT_API_KEYS)"
                    .into(),
            );
        }
        Ok(())
    }

    /// Whether `channel` needs a key.
    pub fn is_private(&self, channel: &str) -> bool {
        self.private_channels.iter().any(|c| c == channel)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Log {
    pub level: String,
    pub format: LogFormat,
    /// Every answered request at info (else at debug; 5xx at error either way).
    pub requests: bool,
}

/// The spreadsheet credentials (the six `SERVICE_*` variables).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    pub client_id: String,
    pub client_secret: Secret,
    pub refresh_token: Secret,
    pub spreadsheet_id: String,
    pub spreadsheet_name: String,
    pub redirect_uri: String,
}

impl Settings {
    pub(super) fn from_resolved(r: &Resolved) -> Settings {
        let text = |name: &str| match r.get(name) {
            Value::Text(s) => s.clone(),
            other => other.to_env_text(),
        };
        let int = |name: &str| match r.get(name) {
            Value::Integer(n) => *n,
            _ => unreachable!("{name} is validated as an integer"),
        };
        let flag = |name: &str| matches!(r.get(name), Value::Bool(true));
        let list = |name: &str| match r.get(name) {
            Value::List(items) => items.iter().map(Secret::new).collect(),
            _ => Vec::new(),
        };
        // Paths are made absolute once, here: every message and log line then names the
        // file unambiguously, whatever folder the reader of the message is in.
        let path = |s: String| absolute(PathBuf::from(s));
        let data_dir = path(text("server.data_dir"));
        // Empty path settings live inside the data folder, so moving it moves everything.
        let in_data = |name: &str, default: &str| match text(name) {
            s if s.is_empty() => data_dir.join(default),
            s => path(s),
        };
        let listen = match r.get("server.listen") {
            Value::Addr(a) => *a,
            _ => unreachable!("server.listen is validated as an address"),
        };
        let endpoint = text("signing.endpoint");
        let session_token = text("signing.session_token");
        // `signing.public_url` is the old name of `server.public_url`, which wins.
        let public_url = ["server.public_url", "signing.public_url"]
            .into_iter()
            .map(|key| (key, text(key)))
            .find(|(_, url)| !url.is_empty())
            .map(|(key, url)| PublicUrl {
                url: url.trim_end_matches('/').to_owned(),
                key,
            });
        Settings {
            server: Server {
                listen,
                data_dir: data_dir.clone(),
                body_limit_bytes: int("server.body_limit_bytes"),
                shutdown_grace_secs: int("server.shutdown_grace_secs"),
                idle_timeout_secs: int("server.idle_timeout_secs"),
                header_timeout_secs: int("server.header_timeout_secs"),
                cors_origins: match r.get("server.cors_origins") {
                    Value::List(items) => items.clone(),
                    _ => Vec::new(),
                },
                public_url,
            },
            database: Database {
                path: in_data("database.path", "depot.sqlite3"),
                url: Secret::new(text("database.url")),
                pool_size: int("database.pool_size"),
            },
            files: Files {
                default_limit: int("files.default_limit"),
                max_limit: int("files.max_limit"),
                single_put_max: int("files.single_put_max"),
                part_size: int("files.part_size"),
                upload_ttl_secs: int("files.upload_ttl_secs"),
            },
            signing: Signing {
                endpoint: (!endpoint.is_empty()).then_some(endpoint),
                region: text("signing.region"),
                access_key_id: text("signing.access_key_id"),
                secret_access_key: Secret::new(text("signing.secret_access_key")),
                session_token: (!session_token.is_empty()).then(|| Secret::new(session_token)),
                addressing: match text("signing.addressing").as_str() {
                    "virtual" => Addressing::VirtualHost,
                    _ => Addressing::Path,
                },
                expires_secs: int("signing.expires_secs"),
            },
            objects: Objects {
                enabled: flag("objects.enabled"),
                root: in_data("objects.root", "objects"),
            },
            translations: Translations {
                storage: match text("translations.storage").as_str() {
                    "file" => Storage::File,
                    "redis" => Storage::Redis,
                    _ => Storage::Sled,
                },
                sled_path: in_data("translations.sled_path", "translations.sled"),
                file_path: in_data("translations.file_path", "translations.json"),
                redis_url: Secret::new(text("translations.redis_url")),
                redis_prefix: text("translations.redis_prefix"),
                keep_versions: usize::try_from(int("translations.keep_versions"))
                    .unwrap_or(usize::MAX),
                events_heartbeat_secs: int("translations.events_heartbeat_secs"),
                fallbacks: match r.get("translations.fallback") {
                    Value::List(items) => Fallbacks::parse(items).unwrap_or_default(),
                    _ => Fallbacks::default(),
                },
                locale_names: match r.get("translations.locales") {
                    Value::List(items) => LocaleNames::parse(items).unwrap_or_default(),
                    _ => LocaleNames::default(),
                },
                layouts: match r.get("translations.layouts") {
                    Value::List(items) => Layouts::parse(items).unwrap_or_default(),
                    _ => Layouts::default(),
                },
                placeholders: text("translations.placeholders")
                    .parse()
                    .unwrap_or_default(),
                sheet_encoding: text("translations.sheet_encoding"),
            },
            producer: Producer {
                enabled: flag("producer.enabled"),
                interval_secs: int("producer.interval_secs"),
                source: match text("producer.source") {
                    s if s == "google" => SheetSource::Google,
                    s if is_web_url(&s) => SheetSource::Url(s),
                    s if s == "example" => SheetSource::Example,
                    s => SheetSource::LocalFile(path(s)),
                },
                lease_secs: int("producer.lease_secs"),
                strict: flag("producer.strict"),
            },
            google: Google {
                token_url: text("google.token_url"),
                auth_url: text("google.auth_url"),
                sheets_url: text("google.sheets_url").trim_end_matches('/').to_owned(),
                timeout_secs: int("google.timeout_secs"),
                token_store: match text("google.token_store").as_str() {
                    "json" => TokenStore::Json,
                    _ => TokenStore::Env,
                },
                token_file: path(text("google.token_file")),
                credentials_file: match text("google.credentials_file") {
                    s if s.is_empty() => None,
                    s => Some(path(s)),
                },
            },
            auth: Auth {
                api_keys: list("auth.api_keys"),
                admin_keys: list("auth.admin_keys"),
            },
            limits: Limits {
                login_attempts: int("limits.login_attempts"),
                login_refill_secs: int("limits.login_refill_secs"),
                api_key_attempts: int("limits.api_key_attempts"),
                api_key_refill_secs: int("limits.api_key_refill_secs"),
                events_per_client: int("limits.events_per_client"),
                events_total: int("limits.events_total"),
                connections: int("limits.connections"),
                input_memory: crate::memory_budget::Budget::new(int("limits.input_memory_bytes")),
            },
            webhooks: Webhooks {
                urls: list("webhooks.urls"),
                secret: Secret::new(text("webhooks.secret")),
            },
            delivery: Delivery {
                max_age_secs: int("delivery.max_age_secs"),
                project_id: text("delivery.project_id"),
                private_channels: match r.get("delivery.private_channels") {
                    Value::List(items) => items.clone(),
                    _ => Vec::new(),
                },
            },
            log: Log {
                level: text("log.level"),
                format: match text("log.format").as_str() {
                    "json" => LogFormat::Json,
                    _ => LogFormat::Text,
                },
                requests: flag("log.requests"),
            },
            service: Service {
                client_id: text("service.client_id"),
                client_secret: Secret::new(text("service.client_secret")),
                refresh_token: Secret::new(text("service.refresh_token")),
                spreadsheet_id: text("service.spreadsheet_id"),
                spreadsheet_name: text("service.spreadsheet_name"),
                redirect_uri: text("service.redirect_uri"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signing(endpoint: Option<&str>, key_id: &str, secret: &str) -> Signing {
        Signing {
            endpoint: endpoint.map(str::to_owned),
            region: "us-east-1".into(),
            access_key_id: key_id.into(),
            secret_access_key: Secret::new(secret),
            session_token: None,
            addressing: Addressing::Path,
            expires_secs: 900,
        }
    }

    #[test]
    fn the_daemon_reads_the_example_only_while_no_spreadsheet_is_configured() {
        let mut service = Service {
            client_id: String::new(),
            client_secret: Secret::default(),
            refresh_token: Secret::default(),
            spreadsheet_id: String::new(),
            spreadsheet_name: String::new(),
            redirect_uri: String::new(),
        };
        assert_eq!(
            SheetSource::Google.for_daemon(&service),
            SheetSource::Example
        );
        let local = SheetSource::LocalFile(PathBuf::from("/s.csv"));
        assert_eq!(local.for_daemon(&service), local);
        service.spreadsheet_id = "1abc".into();
        assert_eq!(
            SheetSource::Google.for_daemon(&service),
            SheetSource::Google
        );
        assert_eq!(SheetSource::Example.kind(), "example");
    }

    #[test]
    fn an_endpoint_needs_both_credentials_named_in_the_error() {
        let endpoint = Some("http://127.0.0.1:9000");
        assert_eq!(signing(endpoint, "AKIA1", "secret").check(None), Ok(()));
        assert_eq!(
            signing(endpoint, "", "").check(None).unwrap_err(),
            "signing.endpoint is set (http://127.0.0.1:9000) but signing.access_key_id and \
             signing.secret_access_key are empty: set signing.access_key_id and \
             signing.secret_access_key (env DEPOT_SIGNING_ACCESS_KEY_ID, \
             DEPOT_SIGNING_SECRET_ACCESS_KEY) to the endpoint's credentials, or leave \
             signing.endpoint empty to sign for the embedded store"
        );
        let only_secret = signing(endpoint, "AKIA1", "").check(None).unwrap_err();
        assert!(
            only_secret.starts_with(
                "signing.endpoint is set (http://127.0.0.1:9000) but signing.secret_access_key is empty"
            ),
            "{only_secret}"
        );
        // Without an endpoint the credentials are the embedded store's own.
        assert_eq!(signing(None, "", "").check(None), Ok(()));
    }

    #[test]
    fn settings_that_cannot_make_a_signer_name_their_key() {
        let endpoint = Some("http://127.0.0.1:9000");
        let mut bad_region = signing(endpoint, "AKIA1", "secret");
        bad_region.region = "us east".into();
        assert!(
            bad_region
                .check(None)
                .unwrap_err()
                .starts_with("signing.region: "),
            "{:?}",
            bad_region.check(None)
        );
        bad_region.endpoint = None;
        assert!(
            bad_region
                .check(None)
                .unwrap_err()
                .starts_with("signing.region: ")
        );
        assert!(
            signing(endpoint, "AK IA", "secret")
                .check(None)
                .unwrap_err()
                .starts_with("signing.access_key_id: ")
        );
        assert!(
            signing(Some("http://user:pw@host"), "AKIA1", "secret")
                .check(None)
                .unwrap_err()
                .starts_with("signing.endpoint: ")
        );
        let mut virtual_ip = signing(endpoint, "AKIA1", "secret");
        virtual_ip.addressing = Addressing::VirtualHost;
        assert!(
            virtual_ip
                .check(None)
                .unwrap_err()
                .starts_with("signing.endpoint: ")
        );
        let bad_public = |key| PublicUrl {
            url: "http://host/depot?x=1".into(),
            key,
        };
        for key in ["server.public_url", "signing.public_url"] {
            assert!(
                signing(None, "", "")
                    .check(Some(&bad_public(key)))
                    .unwrap_err()
                    .starts_with(&format!("{key}: "))
            );
        }
    }
}
