//! Configuration: one typed `Settings`, read from layered sources, validated as a whole,
//! and swapped atomically when the files change under a running daemon.

pub mod env_file;
pub mod layers;
pub mod reload;
pub mod schema;
pub mod settings;
pub mod source;
pub mod token_file;

pub use layers::{Layer, Resolved, Sources};
pub use settings::Settings;

use chrono::{DateTime, Utc};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::watch;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid configuration: {0}")]
    Invalid(String),
    #[error(
        "unknown configuration key '{key}' in {place}{}; see config/depot.toml for every key",
        schema::did_you_mean(schema::nearest_name(key))
    )]
    UnknownKey { key: String, place: String },
    #[error(
        "'{key}' cannot be set in the config file; set {env} in the environment or .env.service"
    )]
    EnvOnly { key: String, env: String },
    /// `at` is ` at line L, column C` when the parser said where.
    #[error("{path} is not valid TOML{at}: {reason}")]
    Syntax {
        path: String,
        at: String,
        reason: String,
    },
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
    /// The content it was read from (both files, and the token file when it is used).
    pub fingerprint: Fingerprint,
}

/// A digest of the bytes a configuration was read from. A reload that finds the same
/// fingerprint has nothing to apply: a file opened, touched or saved unchanged changes
/// nothing, so nothing is logged and the revision stays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    fn of(parts: &[Option<&[u8]>]) -> Fingerprint {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        for part in parts {
            // Length-prefixed, so a missing file, an empty one and bytes moved from one
            // file to the next all differ.
            match part {
                None => hasher.update([0]),
                Some(bytes) => {
                    hasher.update([1]);
                    hasher.update((bytes.len() as u64).to_le_bytes());
                    hasher.update(bytes);
                }
            }
        }
        Fingerprint(hasher.finalize().into())
    }
}

/// Loads and validates the whole configuration once.
pub fn load(sources: &Sources) -> Result<Loaded, ConfigError> {
    load_snapshot(sources, &layers::FileSnapshot::read(sources)?, &[])
}

/// Loads from the files' content already read; `running` pins keys above every layer.
fn load_snapshot(
    sources: &Sources,
    files: &layers::FileSnapshot,
    running: &[(&str, String)],
) -> Result<Loaded, ConfigError> {
    let resolved = layers::resolve_snapshot(sources, files, running)?;
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
    settings
        .signing
        .check(settings.server.public_url.as_ref())
        .map_err(ConfigError::Invalid)?;
    settings.webhooks.check().map_err(ConfigError::Invalid)?;
    (settings.delivery.check(&settings.auth)).map_err(ConfigError::Invalid)?;
    let token_bytes = if settings.google.token_store == settings::TokenStore::Json {
        let bytes = layers::read_optional(&settings.google.token_file)?;
        settings.service.refresh_token =
            token_file::parse(&settings.google.token_file, bytes.as_deref())?;
        Some(bytes)
    } else {
        None
    };
    let mut parts = vec![files.toml.as_deref(), files.env_file.as_deref()];
    if let Some(bytes) = &token_bytes {
        parts.push(bytes.as_deref());
    }
    Ok(Loaded {
        settings: Arc::new(settings),
        resolved,
        fingerprint: Fingerprint::of(&parts),
    })
}

/// One line per key for `config check`, in TOML that pastes back into a config file:
/// `group.key = value  # origin (env NAME)`, the value typed as the file wants it. A masked
/// secret and the settings the file may not hold (`SERVICE_*`) are shown as comments, so
/// that pasting never writes `***` as a secret. A path setting also shows the absolute path
/// it resolves to.
pub fn describe(loaded: &Loaded) -> Vec<String> {
    let settings = &loaded.settings;
    let from_token_file = settings.google.token_store == settings::TokenStore::Json;
    schema::KEYS
        .iter()
        .zip(&loaded.resolved.values)
        .map(|(key, (value, layer))| {
            let (value, origin) = if from_token_file && key.name == "service.refresh_token" {
                let token = settings.service.refresh_token.expose().to_owned();
                let origin = format!(
                    "{} (google.token_store = json)",
                    settings.google.token_file.display()
                );
                (layers::Value::Text(token), origin)
            } else {
                (value.clone(), layer.to_string())
            };
            // A URL that is no secret may still hold one (a token in the query of a
            // published sheet's link).
            let masked = (key.secret && !value.is_empty())
                || matches!(&value, layers::Value::Text(text) if schema::listed(key, text) != *text);
            // A URL keeps all but its password readable (schema::listed).
            let shown = match &value {
                layers::Value::Text(text) if masked || key.holds_urls() => {
                    toml_text(&layers::Value::Text(schema::listed(key, text)))
                }
                layers::Value::List(items) if masked && key.holds_urls() => toml_text(
                    &layers::Value::List(items.iter().map(|i| schema::listed(key, i)).collect()),
                ),
                _ if masked => "\"***\"".to_owned(),
                layers::Value::List(items)
                    if matches!(key.kind, schema::Kind::LocaleMap | schema::Kind::Layouts) =>
                {
                    locale_map_text(items)
                }
                layers::Value::List(items) if key.kind == schema::Kind::LocaleNames => {
                    locale_names_text(items)
                }
                _ => toml_text(&value),
            };
            let mut notes = format!("{origin} (env {})", key.env);
            if masked {
                notes.push_str("; secret, masked");
            }
            if !key.in_toml {
                notes.push_str("; only in the environment or .env.service");
            }
            if let Some(path) = resolved_path(settings, key.name)
                && toml_text(&layers::Value::Text(path.display().to_string())) != shown
            {
                notes.push_str(&format!("; resolves to {}", path.display()));
            }
            let comment = if masked || !key.in_toml { "# " } else { "" };
            format!("{comment}{} = {shown}  # {notes}", key.name)
        })
        .collect()
}

/// A value written as a TOML value of its kind.
fn toml_text(value: &layers::Value) -> String {
    let string = |s: &str| toml::Value::String(s.to_owned()).to_string();
    match value {
        layers::Value::Text(s) => string(s),
        layers::Value::Addr(a) => string(&a.to_string()),
        layers::Value::Integer(n) => n.to_string(),
        layers::Value::Bool(b) => b.to_string(),
        layers::Value::List(items) => {
            let items = items.iter().cloned().map(toml::Value::String).collect();
            toml::Value::Array(items).to_string()
        }
    }
}

/// `from=to` items as the TOML inline table they came from: `{ "pt_BR" = "pt_PT" }`.
fn locale_map_text(items: &[String]) -> String {
    let mut table = toml::map::Map::new();
    for (from, to) in items.iter().filter_map(|item| item.split_once('=')) {
        table.insert(from.to_owned(), toml::Value::String(to.to_owned()));
    }
    toml::Value::Table(table).to_string()
}

/// `target:locale=name` items as the TOML table of tables they were read from.
fn locale_names_text(items: &[String]) -> String {
    let mut targets = toml::map::Map::new();
    for item in items {
        let Some((target, (locale, name))) =
            (item.split_once(':')).and_then(|(t, rest)| Some((t, rest.split_once('=')?)))
        else {
            continue;
        };
        let names = (targets.entry(target.to_owned()))
            .or_insert_with(|| toml::Value::Table(toml::map::Map::new()));
        if let toml::Value::Table(names) = names {
            names.insert(locale.to_owned(), toml::Value::String(name.to_owned()));
        }
    }
    toml::Value::Table(targets).to_string()
}

/// The absolute path a path setting resolves to.
fn resolved_path<'a>(settings: &'a Settings, key: &str) -> Option<&'a std::path::Path> {
    Some(match key {
        "server.data_dir" => &settings.server.data_dir,
        "database.path" => &settings.database.path,
        "objects.root" => &settings.objects.root,
        "translations.sled_path" => &settings.translations.sled_path,
        "translations.file_path" => &settings.translations.file_path,
        "google.token_file" => &settings.google.token_file,
        "google.credentials_file" => settings.google.credentials_file.as_deref()?,
        "producer.source" => match &settings.producer.source {
            settings::SheetSource::LocalFile(path) => path,
            settings::SheetSource::Google
            | settings::SheetSource::Url(_)
            | settings::SheetSource::Example => return None,
        },
        _ => return None,
    })
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
    /// The files hold what the configuration in force was read from: nothing applied,
    /// the revision stays.
    Unchanged,
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
    fingerprint: Fingerprint,
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
                    fingerprint: loaded.fingerprint,
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
    /// configuration and records why. Content equal to what is in force applies nothing.
    pub fn reload(&self) -> ReloadOutcome {
        let mut state = self.state();
        let sources = &self.inner.sources;
        let rejected = |state: &mut State, e: ConfigError| {
            let message = e.to_string();
            state.status.last_error = Some(message.clone());
            ReloadOutcome::Rejected(message)
        };
        // One read serves both loads below, so they see the same content.
        let files = match layers::FileSnapshot::read(sources) {
            Ok(files) => files,
            Err(e) => return rejected(&mut state, e),
        };
        let fresh = match load_snapshot(sources, &files, &[]) {
            Ok(fresh) => fresh,
            Err(e) => return rejected(&mut state, e),
        };
        if fresh.fingerprint == state.fingerprint {
            // Back to the content in force (after a refused edit, say): nothing is wrong.
            state.status.last_error = None;
            return ReloadOutcome::Unchanged;
        }
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
        let applied = match load_snapshot(sources, &files, &running) {
            Ok(applied) => applied,
            Err(e) => return rejected(&mut state, e),
        };
        state.resolved = applied.resolved;
        state.fingerprint = applied.fingerprint;
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
    fn a_reload_of_the_same_content_applies_nothing_and_clears_a_refusal() {
        let dir = tempfile::tempdir().unwrap();
        let s = sources(dir.path());
        std::fs::write(&s.toml_path, "[log]\nlevel = \"debug\"\n").unwrap();
        let handle = ConfigHandle::new(s.clone(), load(&s).unwrap());
        assert_eq!(handle.reload(), ReloadOutcome::Unchanged);
        assert_eq!(handle.status().revision, 1);

        std::fs::write(&s.toml_path, "[log]\nlevel = \"loud\"\n").unwrap();
        assert!(matches!(handle.reload(), ReloadOutcome::Rejected(_)));
        std::fs::write(&s.toml_path, "[log]\nlevel = \"debug\"\n").unwrap();
        assert_eq!(handle.reload(), ReloadOutcome::Unchanged);
        assert_eq!(handle.status().last_error, None);
        assert_eq!(handle.status().revision, 1);

        // The env file counts as much as the TOML file.
        std::fs::write(&s.env_file, "SERVICE_CLIENT_ID=x\n").unwrap();
        assert!(matches!(handle.reload(), ReloadOutcome::Applied { .. }));
        assert_eq!(handle.status().revision, 2);
    }

    #[test]
    fn with_the_json_token_store_a_new_token_file_is_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let s = sources(dir.path());
        let token_file = dir.path().join("data.json");
        std::fs::write(
            &s.toml_path,
            format!(
                "[google]\ntoken_store = \"json\"\ntoken_file = {:?}\n",
                token_file.display().to_string()
            ),
        )
        .unwrap();
        let handle = ConfigHandle::new(s.clone(), load(&s).unwrap());
        assert_eq!(handle.settings().service.refresh_token.expose(), "");
        // What the consent flow does: save the token, then reload.
        token_file::save(&token_file, &crate::secret::Secret::new("tok")).unwrap();
        assert!(matches!(handle.reload(), ReloadOutcome::Applied { .. }));
        assert_eq!(handle.settings().service.refresh_token.expose(), "tok");
        assert_eq!(handle.reload(), ReloadOutcome::Unchanged);
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
