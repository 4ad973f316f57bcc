//! Configuration: one typed `Settings`, read from layered sources, validated as a whole,
//! and swapped atomically when the files change under a running daemon.

pub mod env_file;
pub mod layers;
pub mod reload;
pub mod schema;
mod secret;
pub mod settings;
pub mod token_file;

pub use layers::{Layer, Resolved, Sources};
pub use secret::Secret;
pub use settings::Settings;

use chrono::{DateTime, Utc};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::watch;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid configuration: {0}")]
    Invalid(String),
    #[error("unknown configuration key '{key}' in {place}; see config/depot.toml for every key")]
    UnknownKey { key: String, place: String },
    #[error(
        "'{key}' cannot be set in the config file; set {env} in the environment or .env.service"
    )]
    EnvOnly { key: String, env: String },
    #[error("{path} is not valid TOML: {reason}")]
    Syntax { path: String, reason: String },
    #[error("cannot read {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error(transparent)]
    EnvFile(#[from] env_file::EnvFileError),
    #[error(transparent)]
    TokenFile(#[from] token_file::TokenFileError),
}

/// A loaded configuration: the typed settings and, for `config check` and reloads, the
/// effective value and origin of every key.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub settings: Arc<Settings>,
    pub resolved: Resolved,
}

/// Loads and validates the whole configuration once.
pub fn load(sources: &Sources) -> Result<Loaded, ConfigError> {
    load_pinned(sources, &[])
}

fn load_pinned(sources: &Sources, running: &[(&str, String)]) -> Result<Loaded, ConfigError> {
    let resolved = layers::resolve(sources, running)?;
    if let (layers::Value::Integer(default), layers::Value::Integer(max)) = (
        resolved.get("files.default_limit"),
        resolved.get("files.max_limit"),
    ) && default > max
    {
        return Err(ConfigError::Invalid(format!(
            "files.default_limit ({default}) must not be larger than files.max_limit ({max})"
        )));
    }
    let mut settings = Settings::from_resolved(&resolved);
    if settings.google.token_store == settings::TokenStore::Json {
        settings.service.refresh_token = token_file::read(&settings.google.token_file)?;
    }
    Ok(Loaded {
        settings: Arc::new(settings),
        resolved,
    })
}

/// One line per key for `config check`: `name = value  # origin`, secrets as `***`.
pub fn describe(loaded: &Loaded) -> Vec<String> {
    let from_token_file = loaded.settings.google.token_store == settings::TokenStore::Json;
    schema::KEYS
        .iter()
        .zip(&loaded.resolved.values)
        .map(|(key, (value, layer))| {
            let (text, origin) = if from_token_file && key.name == "service.refresh_token" {
                (
                    loaded.settings.service.refresh_token.expose().to_owned(),
                    format!(
                        "{} (google.token_store = json)",
                        loaded.settings.google.token_file.display()
                    ),
                )
            } else {
                (value.to_env_text(), layer.to_string())
            };
            let shown = schema::shown(key, &text);
            format!(
                "{} = \"{}\"  # {} (env {})",
                key.name, shown, origin, key.env
            )
        })
        .collect()
}

/// What `/health` shows about the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigStatus {
    /// Number of successful loads, the first one included.
    pub revision: u64,
    pub loaded_at: DateTime<Utc>,
    /// Why the last reload was refused, until a later one succeeds.
    pub last_error: Option<String>,
}

/// What a reload did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReloadOutcome {
    /// The new configuration is in force; the listed keys changed but only apply after a
    /// restart, so their running values were kept.
    Applied { needs_restart: Vec<String> },
    /// The new configuration was refused as a whole; the old one stays in force.
    Rejected(String),
}

/// The daemon's live configuration. Cheap to clone; readers get an `Arc<Settings>` that
/// never changes under them, so no request sees a half-applied configuration.
#[derive(Clone)]
pub struct ConfigHandle {
    inner: Arc<Inner>,
}

struct Inner {
    sources: Sources,
    current: watch::Sender<Arc<Settings>>,
    state: Mutex<State>,
}

struct State {
    resolved: Resolved,
    status: ConfigStatus,
}

impl ConfigHandle {
    pub fn new(sources: Sources, loaded: Loaded) -> ConfigHandle {
        let (current, _) = watch::channel(loaded.settings);
        ConfigHandle {
            inner: Arc::new(Inner {
                sources,
                current,
                state: Mutex::new(State {
                    resolved: loaded.resolved,
                    status: ConfigStatus {
                        revision: 1,
                        loaded_at: Utc::now(),
                        last_error: None,
                    },
                }),
            }),
        }
    }

    pub fn settings(&self) -> Arc<Settings> {
        self.inner.current.borrow().clone()
    }

    /// A receiver that sees every applied configuration (for the log level, the producer).
    pub fn subscribe(&self) -> watch::Receiver<Arc<Settings>> {
        self.inner.current.subscribe()
    }

    pub fn sources(&self) -> &Sources {
        &self.inner.sources
    }

    pub fn status(&self) -> ConfigStatus {
        self.state().status.clone()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state is only ever replaced whole, so a poisoned lock still holds a
        // consistent value.
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads the files again, validates the whole result and swaps it in, or keeps the old
    /// configuration and records why.
    pub fn reload(&self) -> ReloadOutcome {
        let mut state = self.state();
        let fresh = match load(&self.inner.sources) {
            Ok(fresh) => fresh,
            Err(e) => {
                let message = e.to_string();
                state.status.last_error = Some(message.clone());
                return ReloadOutcome::Rejected(message);
            }
        };
        let mut needs_restart = Vec::new();
        let mut running = Vec::new();
        for (i, key) in schema::KEYS.iter().enumerate().filter(|(_, k)| !k.live) {
            let old = &state.resolved.values[i].0;
            if &fresh.resolved.values[i].0 != old {
                needs_restart.push(key.name.to_owned());
            }
            running.push((key.name, old.to_env_text()));
        }
        // Keys that cannot change live keep their running values, so what the daemon
        // reports is what it actually uses.
        let applied = match load_pinned(&self.inner.sources, &running) {
            Ok(applied) => applied,
            Err(e) => {
                let message = e.to_string();
                state.status.last_error = Some(message.clone());
                return ReloadOutcome::Rejected(message);
            }
        };
        state.resolved = applied.resolved;
        state.status = ConfigStatus {
            revision: state.status.revision + 1,
            loaded_at: Utc::now(),
            last_error: None,
        };
        self.inner.current.send_replace(applied.settings);
        ReloadOutcome::Applied { needs_restart }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use layers::tests::sources_in as sources;

    #[test]
    fn reload_swaps_keeps_old_on_error_and_pins_restart_only_keys() {
        let dir = tempfile::tempdir().unwrap();
        let s = sources(dir.path());
        let handle = ConfigHandle::new(s.clone(), load(&s).unwrap());
        assert_eq!(handle.status().revision, 1);

        std::fs::write(&s.toml_path, "[log]\nlevel = \"debug\"\n").unwrap();
        assert_eq!(
            handle.reload(),
            ReloadOutcome::Applied {
                needs_restart: vec![]
            }
        );
        assert_eq!(handle.settings().log.level, "debug");
        assert_eq!(handle.status().revision, 2);

        std::fs::write(&s.toml_path, "[log]\nlevel = \"loud\"\n").unwrap();
        assert!(matches!(handle.reload(), ReloadOutcome::Rejected(m) if m.contains("log.level")));
        assert_eq!(handle.settings().log.level, "debug");
        assert_eq!(handle.status().revision, 2);
        assert!(handle.status().last_error.is_some());

        std::fs::write(
            &s.toml_path,
            "[log]\nlevel = \"warn\"\n[server]\nlisten = \"127.0.0.1:4000\"\n",
        )
        .unwrap();
        assert_eq!(
            handle.reload(),
            ReloadOutcome::Applied {
                needs_restart: vec!["server.listen".into()]
            }
        );
        assert_eq!(handle.settings().log.level, "warn");
        assert_eq!(handle.settings().server.listen.port(), 3000);
        assert_eq!(handle.status().last_error, None);
    }

    #[test]
    fn default_limit_above_max_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let s = sources(dir.path());
        std::fs::write(
            &s.toml_path,
            "[files]\ndefault_limit = 50\nmax_limit = 10\n",
        )
        .unwrap();
        assert!(
            load(&s)
                .unwrap_err()
                .to_string()
                .contains("files.default_limit")
        );
    }

    #[test]
    fn describe_masks_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sources(dir.path());
        s.process_env = vec![
            ("SERVICE_CLIENT_SECRET".into(), "topsecret".into()),
            ("DEPOT_API_KEYS".into(), "k1,k2".into()),
        ];
        let lines = describe(&load(&s).unwrap()).join("\n");
        assert!(
            !lines.contains("topsecret") && !lines.contains("k1"),
            "{lines}"
        );
        assert!(lines.contains("service.client_secret = \"***\""), "{lines}");
    }
}
