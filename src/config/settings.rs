//! The typed settings every part of depot reads. Built only from a validated `Resolved`,
//! so a `Settings` value is always complete and valid.

use super::Secret;
use super::layers::{Resolved, Value};
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
    pub log: Log,
    pub service: Service,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub listen: SocketAddr,
    pub data_dir: PathBuf,
    pub body_limit_bytes: u64,
    pub shutdown_grace_secs: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Database {
    pub path: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Files {
    pub default_limit: u64,
    pub max_limit: u64,
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
    /// Base URL of depot as clients see it, for URLs of the embedded store; `None`: the
    /// address the daemon actually bound (see `public_url_for`).
    pub public_url: Option<String>,
}

impl Signing {
    /// The base URL for embedded-store links: `public_url` when set, else the bound address
    /// (port 0 resolved; an unspecified IP such as 0.0.0.0 becomes loopback, the one address
    /// sure to reach this host — set `signing.public_url` for other clients).
    pub fn public_url_for(&self, bound: SocketAddr) -> String {
        if let Some(url) = &self.public_url {
            return url.clone();
        }
        let mut addr = bound;
        if addr.ip().is_unspecified() {
            addr.set_ip(match addr {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        format!("http://{addr}")
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
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SheetSource {
    Google,
    LocalFile(PathBuf),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Producer {
    pub enabled: bool,
    pub interval_secs: u64,
    pub source: SheetSource,
    /// Lifetime of the producer lease in a shared store.
    pub lease_secs: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Google {
    pub token_url: String,
    pub auth_url: String,
    pub sheets_url: String,
    pub timeout_secs: u64,
    pub token_store: TokenStore,
    pub token_file: PathBuf,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Log {
    pub level: String,
    pub format: LogFormat,
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
        let data_dir = PathBuf::from(text("server.data_dir"));
        // Empty path settings live inside the data folder, so moving it moves everything.
        let in_data = |name: &str, default: &str| match text(name) {
            s if s.is_empty() => data_dir.join(default),
            s => PathBuf::from(s),
        };
        let listen = match r.get("server.listen") {
            Value::Addr(a) => *a,
            _ => unreachable!("server.listen is validated as an address"),
        };
        let endpoint = text("signing.endpoint");
        let session_token = text("signing.session_token");
        let public_url = text("signing.public_url");
        Settings {
            server: Server {
                listen,
                data_dir: data_dir.clone(),
                body_limit_bytes: int("server.body_limit_bytes"),
                shutdown_grace_secs: int("server.shutdown_grace_secs"),
            },
            database: Database {
                path: in_data("database.path", "depot.sqlite3"),
            },
            files: Files {
                default_limit: int("files.default_limit"),
                max_limit: int("files.max_limit"),
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
                public_url: (!public_url.is_empty())
                    .then(|| public_url.trim_end_matches('/').to_owned()),
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
            },
            producer: Producer {
                enabled: flag("producer.enabled"),
                interval_secs: int("producer.interval_secs"),
                source: match text("producer.source") {
                    s if s == "google" => SheetSource::Google,
                    s => SheetSource::LocalFile(PathBuf::from(s)),
                },
                lease_secs: int("producer.lease_secs"),
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
                token_file: PathBuf::from(text("google.token_file")),
            },
            auth: Auth {
                api_keys: list("auth.api_keys"),
                admin_keys: list("auth.admin_keys"),
            },
            log: Log {
                level: text("log.level"),
                format: match text("log.format").as_str() {
                    "json" => LogFormat::Json,
                    _ => LogFormat::Text,
                },
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
