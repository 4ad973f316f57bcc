//! Layering: flags > process environment > `.env.service` > `config/depot.toml` > defaults.
//!
//! This is the only place that knows the precedence. Every layer is read into raw values
//! keyed by the schema; `resolve` then picks, per key, the highest layer that sets it and
//! validates that one value by the key's kind.

use super::schema::{self, KEYS, Key, Kind};
use super::{ConfigError, env_file};
use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// Where a value came from, highest precedence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    /// Values kept from the running configuration for keys that cannot change live.
    Running,
    Flag,
    Env,
    EnvFile,
    Toml,
    Default,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layer::Running => "running daemon (needs restart to change)",
            Layer::Flag => "command line",
            Layer::Env => "environment",
            Layer::EnvFile => ".env.service",
            Layer::Toml => "config file",
            Layer::Default => "default",
        })
    }
}

/// Everything the configuration is read from. Flags and the process environment are
/// captured once at start, so a reload re-reads only the two files.
#[derive(Debug, Clone)]
pub struct Sources {
    pub toml_path: PathBuf,
    pub env_file: PathBuf,
    pub process_env: Vec<(String, String)>,
    /// `(key name, value)` pairs from command-line flags.
    pub flags: Vec<(String, String)>,
}

impl Sources {
    /// Only the two files: no process environment, no flags (tests, embedding).
    pub fn files_only(toml_path: PathBuf, env_file: PathBuf) -> Sources {
        Sources {
            toml_path: absolute(toml_path),
            env_file: absolute(env_file),
            process_env: Vec::new(),
            flags: Vec::new(),
        }
    }

    /// Sources for a run from the current directory with the real process environment.
    pub fn new(toml_path: PathBuf, env_file: PathBuf, flags: Vec<(String, String)>) -> Sources {
        Sources {
            toml_path: absolute(toml_path),
            env_file: absolute(env_file),
            process_env: std::env::vars().collect(),
            flags,
        }
    }
}

/// `path` made absolute against the working directory (without touching the disk), so
/// that every message names the file unambiguously; as given if that cannot be done.
pub fn absolute(path: PathBuf) -> PathBuf {
    if path.is_absolute() {
        return path;
    }
    std::path::absolute(&path).unwrap_or(path)
}

/// A raw value before validation: text from env/flags, or a typed TOML value.
#[derive(Debug, Clone, PartialEq)]
enum Raw {
    Text(String),
    Toml(toml::Value),
}

/// A validated value of one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Text(String),
    Integer(u64),
    Bool(bool),
    List(Vec<String>),
    Addr(SocketAddr),
}

impl Value {
    /// Empty text or an empty list: nothing to hide when the key is a secret.
    pub fn is_empty(&self) -> bool {
        match self {
            Value::Text(s) => s.is_empty(),
            Value::List(items) => items.is_empty(),
            _ => false,
        }
    }

    /// The value written as it would be in the environment (used to pin running values).
    pub fn to_env_text(&self) -> String {
        match self {
            Value::Text(s) => s.clone(),
            Value::Integer(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::List(items) => items.join(","),
            Value::Addr(a) => a.to_string(),
        }
    }
}

/// The effective value of every key, in `KEYS` order, with its layer.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub values: Vec<(Value, Layer)>,
    /// Non-fatal findings (unknown `SERVICE_*` variables, ...), for the log.
    pub warnings: Vec<String>,
}

impl Resolved {
    #[expect(
        clippy::panic,
        reason = "names come from the code's own key constants, never from input: a name \
                  missing from the table is a bug, and every test that loads a config finds it"
    )]
    fn index(name: &str) -> usize {
        KEYS.iter()
            .position(|k| k.name == name)
            .unwrap_or_else(|| panic!("unknown configuration key {name} in code"))
    }

    pub fn get(&self, name: &str) -> &Value {
        &self.values[Self::index(name)].0
    }

    pub fn layer(&self, name: &str) -> Layer {
        self.values[Self::index(name)].1
    }
}

/// The bytes of the two configuration files, read once: resolving and the reload's
/// "did anything change" test both look at the same content. `None`: the file is missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSnapshot {
    pub toml: Option<Vec<u8>>,
    pub env_file: Option<Vec<u8>>,
}

impl FileSnapshot {
    /// Reads both files; a missing file is `None` (zero configuration), any other read
    /// failure an error naming the file.
    pub fn read(sources: &Sources) -> Result<FileSnapshot, ConfigError> {
        Ok(FileSnapshot {
            toml: read_optional(&sources.toml_path)?,
            env_file: read_optional(&sources.env_file)?,
        })
    }
}

/// The bytes of a file, `None` when it does not exist.
pub(super) fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, ConfigError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ConfigError::Unreadable {
            path: path.display().to_string(),
            reason: e.to_string(),
        }),
    }
}

fn utf8<'a>(bytes: &'a [u8], path: &Path) -> Result<&'a str, ConfigError> {
    std::str::from_utf8(bytes).map_err(|e| ConfigError::Unreadable {
        path: path.display().to_string(),
        reason: format!("the file is not UTF-8 text ({e})"),
    })
}

/// Reads every layer and resolves every key. `running` pins values (for keys that cannot
/// change live) above all layers.
pub fn resolve(sources: &Sources, running: &[(&str, String)]) -> Result<Resolved, ConfigError> {
    resolve_snapshot(sources, &FileSnapshot::read(sources)?, running)
}

/// Resolves every key from the files' content already read.
pub fn resolve_snapshot(
    sources: &Sources,
    files: &FileSnapshot,
    running: &[(&str, String)],
) -> Result<Resolved, ConfigError> {
    let mut warnings = Vec::new();
    let mut layers: Vec<(Layer, HashMap<&'static str, Raw>)> = Vec::new();

    let pinned = running
        .iter()
        .filter_map(|(name, v)| schema::by_name(name).map(|k| (k.name, Raw::Text(v.clone()))))
        .collect();
    layers.push((Layer::Running, pinned));
    layers.push((Layer::Flag, flag_layer(&sources.flags)?));
    layers.push((
        Layer::Env,
        env_layer(&sources.process_env, "the environment", &mut warnings),
    ));
    let env_file_vars = match &files.env_file {
        Some(bytes) => env_file::parse(
            utf8(bytes, &sources.env_file)?,
            &sources.env_file.display().to_string(),
        )?,
        None => Vec::new(),
    };
    let env_file_label = sources.env_file.display().to_string();
    layers.push((
        Layer::EnvFile,
        env_layer(&env_file_vars, &env_file_label, &mut warnings),
    ));
    let toml_text = match &files.toml {
        Some(bytes) => Some(utf8(bytes, &sources.toml_path)?),
        None => None,
    };
    layers.push((Layer::Toml, toml_layer(toml_text, &sources.toml_path)?));

    let mut values = Vec::with_capacity(KEYS.len());
    let mut errors = Vec::new();
    for key in KEYS {
        let found = layers
            .iter()
            .find_map(|(layer, map)| map.get(key.name).map(|raw| (raw.clone(), *layer)));
        let (raw, layer) = found.unwrap_or((Raw::Text(key.default.to_owned()), Layer::Default));
        match validate(key, &raw) {
            Ok(value) => values.push((value, layer)),
            Err(allowed) => {
                errors.push(invalid_message(key, &raw, layer, sources, &allowed));
                values.push((Value::Text(String::new()), layer));
            }
        }
    }
    if !errors.is_empty() {
        return Err(ConfigError::Invalid(errors.join("; ")));
    }
    let resolved = Resolved { values, warnings };
    Ok(with_deprecations(resolved))
}

/// Notes on keys set under an old name (`signing.public_url`, now `server.public_url`).
fn with_deprecations(mut resolved: Resolved) -> Resolved {
    let set = |name| !resolved.get(name).is_empty();
    if set("signing.public_url") {
        let wins = if set("server.public_url") {
            "; server.public_url is set too and wins"
        } else {
            ""
        };
        let note = format!(
            "signing.public_url (env DEPOT_SIGNING_PUBLIC_URL, set in the {}) is the old name of \
             server.public_url (env DEPOT_PUBLIC_URL), the base URL clients reach depot at: \
             it still works; rename it{wins}",
            resolved.layer("signing.public_url")
        );
        resolved.warnings.push(note);
    }
    resolved
}

/// The command line's settings checked on their own, before anything is read: an unknown
/// key or a value its key does not take is a usage error (exit 2), named as the
/// configuration names it. What only fails together with other sources stays the
/// configuration's error.
pub fn check_flags(flags: &[(String, String)]) -> Result<(), ConfigError> {
    let layer = flag_layer(flags)?;
    let sources = Sources::new(PathBuf::new(), PathBuf::new(), Vec::new());
    let errors: Vec<String> = KEYS
        .iter()
        .filter_map(|key| {
            let raw = layer.get(key.name)?;
            let allowed = validate(key, raw).err()?;
            Some(invalid_message(key, raw, Layer::Flag, &sources, &allowed))
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::Invalid(errors.join("; ")))
    }
}

fn flag_layer(flags: &[(String, String)]) -> Result<HashMap<&'static str, Raw>, ConfigError> {
    flags
        .iter()
        .map(|(name, value)| {
            schema::by_name(name)
                .map(|k| (k.name, Raw::Text(value.clone())))
                .ok_or_else(|| ConfigError::UnknownKey {
                    key: name.clone(),
                    place: "the command line".into(),
                })
        })
        .collect()
}

/// Environment-style variables; names that look like ours but are unknown get a warning
/// (a typo in `SERVICE_CLIENT_ID` would otherwise fail silently).
fn env_layer(
    vars: &[(String, String)],
    place: &str,
    warnings: &mut Vec<String>,
) -> HashMap<&'static str, Raw> {
    let mut map = HashMap::new();
    for (name, value) in vars {
        if let Some(key) = schema::by_env(name) {
            map.insert(key.name, Raw::Text(value.clone()));
        } else if schema::ENV_PREFIXES.iter().any(|p| name.starts_with(p)) {
            warnings.push(format!(
                "unknown variable {name} in {place} is ignored{}",
                match schema::nearest_env(name) {
                    Some(known) => format!("; did you mean {known}?"),
                    None => "; config/depot.toml lists every known name".to_owned(),
                }
            ));
        }
    }
    map
}

fn toml_layer(text: Option<&str>, path: &Path) -> Result<HashMap<&'static str, Raw>, ConfigError> {
    let Some(text) = text else {
        return Ok(HashMap::new());
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| ConfigError::Syntax {
            path: path.display().to_string(),
            at: e
                .span()
                .map(|span| position(text, span.start))
                .unwrap_or_default(),
            reason: e.message().trim_end().to_owned(),
        })?;
    let place = path.display().to_string();
    let mut map = HashMap::new();
    for (group, entries) in table {
        let toml::Value::Table(entries) = entries else {
            return Err(ConfigError::UnknownKey { key: group, place });
        };
        for (name, value) in entries {
            let full = format!("{group}.{name}");
            match schema::by_name(&full) {
                Some(key) if key.in_toml => {
                    map.insert(key.name, Raw::Toml(value));
                }
                Some(key) => {
                    return Err(ConfigError::EnvOnly {
                        key: full,
                        env: key.env.to_owned(),
                    });
                }
                None => return Err(ConfigError::UnknownKey { key: full, place }),
            }
        }
    }
    Ok(map)
}

/// ` at line L, column C` (both from 1, the column in characters) of a byte offset.
fn position(text: &str, offset: usize) -> String {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!(" at line {line}, column {column}")
}

/// Validates one raw value; on failure returns what is allowed.
fn validate(key: &Key, raw: &Raw) -> Result<Value, String> {
    match key.kind {
        Kind::Text => text(raw).map(Value::Text),
        Kind::NonEmpty => match text(raw)? {
            s if s.trim().is_empty() => Err("must not be empty".into()),
            s => Ok(Value::Text(s)),
        },
        Kind::Source => match text(raw)? {
            s if s.trim().is_empty() => Err("must not be empty".into()),
            s => match super::source::source_problem(&s) {
                Some(problem) => Err(problem),
                None => Ok(Value::Text(s.trim().to_owned())),
            },
        },
        Kind::Integer { min, max } => {
            let allowed = || format!("must be an integer from {min} to {max}");
            let n = match raw {
                Raw::Toml(toml::Value::Integer(n)) => u64::try_from(*n).map_err(|_| allowed())?,
                Raw::Text(s) => s.trim().parse::<u64>().map_err(|_| allowed())?,
                Raw::Toml(other) => {
                    let unquoted = other.as_str().and_then(|s| s.trim().parse::<u64>().ok());
                    return Err(wrong_type(&allowed(), other, unquoted.is_some()));
                }
            };
            if (min..=max).contains(&n) {
                Ok(Value::Integer(n))
            } else {
                Err(allowed())
            }
        }
        Kind::Bool => match raw {
            Raw::Toml(toml::Value::Boolean(b)) => Ok(Value::Bool(*b)),
            Raw::Text(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" => Ok(Value::Bool(true)),
                "false" | "0" | "no" | "off" => Ok(Value::Bool(false)),
                _ => Err("must be true or false".into()),
            },
            Raw::Toml(other) => {
                let unquoted = other.as_str().is_some_and(|s| {
                    let s = s.trim();
                    s == "true" || s == "false"
                });
                Err(wrong_type("must be true or false", other, unquoted))
            }
        },
        Kind::OneOf(choices) => {
            let s = text(raw)?;
            if choices.contains(&s.trim()) {
                Ok(Value::Text(s.trim().to_owned()))
            } else {
                Err(format!("must be one of {}", choices.join(", ")))
            }
        }
        Kind::LogLevel => {
            let s = text(raw)?.trim().to_ascii_lowercase();
            if schema::LOG_LEVELS.contains(&s.as_str()) {
                Ok(Value::Text(s))
            } else {
                Err(format!("must be one of {}", schema::LOG_LEVELS.join(", ")))
            }
        }
        Kind::SocketAddr => text(raw)?
            .trim()
            .parse::<SocketAddr>()
            .map(Value::Addr)
            .map_err(|_| "must be an IP address and port such as 127.0.0.1:3000".into()),
        Kind::Url { optional } => {
            let s = text(raw)?.trim().to_owned();
            if s.is_empty() && optional {
                return Ok(Value::Text(s));
            }
            let rest = s
                .strip_prefix("http://")
                .or_else(|| s.strip_prefix("https://"));
            match rest {
                Some(rest) if !rest.is_empty() && !rest.starts_with('/') => Ok(Value::Text(s)),
                _ => Err(format!(
                    "must be an http:// or https:// URL{}",
                    if optional { " or empty" } else { "" }
                )),
            }
        }
        Kind::RedisUrl => {
            let s = text(raw)?.trim().to_owned();
            let rest = s
                .strip_prefix("redis://")
                .or_else(|| s.strip_prefix("rediss://"));
            match rest {
                Some(rest) if !rest.is_empty() && !rest.starts_with('/') => Ok(Value::Text(s)),
                _ => Err("must be a redis:// or rediss:// URL with a host".into()),
            }
        }
        Kind::Origins => match list(raw)? {
            items if items == ["*"] => Ok(Value::List(items)),
            items => items
                .iter()
                .map(|item| web_origin(item))
                .collect::<Result<_, _>>()
                .map(Value::List),
        },
        Kind::List => list(raw).map(Value::List),
        Kind::LocaleMap => locale_map(raw).map(Value::List),
        Kind::LocaleNames => locale_names(raw).map(Value::List),
        Kind::Layouts => layouts(raw).map(Value::List),
    }
}

/// Path templates per format as `format=template` items, checked as `Layouts` reads them.
fn layouts(raw: &Raw) -> Result<Vec<String>, String> {
    let shape = "must be a table of format = path template (e.g. { i18next = \"{namespace}/{lang}.json\" })";
    let items = match raw {
        Raw::Text(s) => split_list(s),
        Raw::Toml(toml::Value::Table(entries)) => string_table(entries, shape, "")?,
        Raw::Toml(other) => return Err(wrong_type(shape, other, false)),
    };
    crate::naming::path_template::Layouts::parse(&items)?;
    Ok(items)
}

/// A TOML table of strings as `{prefix}key=value` items.
fn string_table(
    entries: &toml::map::Map<String, toml::Value>,
    shape: &str,
    prefix: &str,
) -> Result<Vec<String>, String> {
    (entries.iter())
        .map(|(key, value)| match value {
            toml::Value::String(value) => Ok(format!("{prefix}{key}={value}")),
            other => Err(wrong_type(shape, other, true)),
        })
        .collect()
}

/// Locale names per target as `target:locale=name` items, checked as `LocaleNames` reads
/// them.
fn locale_names(raw: &Raw) -> Result<Vec<String>, String> {
    let shape = "must be a table per target of locale = name (e.g. { \"*\" = { zh_Hant = \"zh-TW\" }, android = { pt_BR = \"pt-BR\" } })";
    let items = match raw {
        Raw::Text(s) => split_list(s),
        Raw::Toml(toml::Value::Table(targets)) => {
            let mut items = Vec::new();
            for (target, names) in targets {
                let toml::Value::Table(names) = names else {
                    return Err(wrong_type(shape, names, true));
                };
                items.extend(string_table(names, shape, &format!("{target}:"))?);
            }
            items
        }
        Raw::Toml(other) => return Err(wrong_type(shape, other, false)),
    };
    crate::naming::locale_names::LocaleNames::parse(&items).map_err(|e| e.to_string())?;
    Ok(items)
}

/// A locale map as `from=to` items, checked as `Fallbacks` reads them.
fn locale_map(raw: &Raw) -> Result<Vec<String>, String> {
    let items = match raw {
        Raw::Text(s) => split_list(s),
        Raw::Toml(toml::Value::Table(entries)) => entries
            .iter()
            .map(|(from, to)| match to {
                toml::Value::String(to) => Ok(format!("{from}={to}")),
                other => Err(wrong_type(
                    "must map each locale to a locale code string",
                    other,
                    true,
                )),
            })
            .collect::<Result<_, _>>()?,
        Raw::Toml(other) => {
            return Err(wrong_type(
                "must be a table of locale = locale (e.g. { pt_BR = \"pt_PT\", \"*\" = \"en_US\" })",
                other,
                false,
            ));
        }
    };
    crate::model::fallback::Fallbacks::parse(&items).map_err(|e| e.to_string())?;
    Ok(items)
}

fn list(raw: &Raw) -> Result<Vec<String>, String> {
    match raw {
        Raw::Text(s) => Ok(split_list(s)),
        Raw::Toml(toml::Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                toml::Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
                _ => Err("must be a list of non-empty strings".to_owned()),
            })
            .collect(),
        Raw::Toml(toml::Value::String(_)) => Err(
            "must be a list of non-empty strings, got a string; write it as a list: \
             [\"first\", \"second\"]"
                .into(),
        ),
        Raw::Toml(other) => Err(wrong_type(
            "must be a list of non-empty strings",
            other,
            false,
        )),
    }
}

/// `item` as the origin a browser sends (`https://app.example:8443`: host lower-cased,
/// default port dropped); anything beyond scheme, host and port is refused.
fn web_origin(item: &str) -> Result<String, String> {
    let refused = || {
        format!(
            "must be * alone or a list of origins such as https://app.example (scheme, host and optional port; no path), got '{item}'"
        )
    };
    let url = url::Url::parse(item).map_err(|_| refused())?;
    let plain = url.path() == "/"
        && url.query().is_none()
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none();
    let origin = url.origin();
    if !origin.is_tuple() || !plain {
        return Err(refused());
    }
    Ok(origin.ascii_serialization())
}

fn text(raw: &Raw) -> Result<String, String> {
    match raw {
        Raw::Text(s) | Raw::Toml(toml::Value::String(s)) => Ok(s.clone()),
        Raw::Toml(other) => Err(format!(
            "must be a string, got {}; write it in double quotes",
            type_name(other)
        )),
    }
}

/// The rule, the TOML type actually written, and, when only the quotes are wrong, how to
/// write it: `limit = "30"` gets "got a string; write it without quotes".
fn wrong_type(allowed: &str, got: &toml::Value, quotes_only: bool) -> String {
    let hint = if quotes_only {
        "; write it without quotes"
    } else {
        ""
    };
    format!("{allowed}, got {}{hint}", type_name(got))
}

fn type_name(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a decimal number",
        toml::Value::Boolean(_) => "true/false",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "a list",
        toml::Value::Table(_) => "a table",
    }
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

fn invalid_message(key: &Key, raw: &Raw, layer: Layer, sources: &Sources, allowed: &str) -> String {
    let text = match raw {
        Raw::Text(s) => s.clone(),
        Raw::Toml(v) => v.to_string().trim_matches('"').to_owned(),
    };
    let shown = schema::in_message(key, &text);
    let place = match layer {
        Layer::Toml => sources.toml_path.display().to_string(),
        Layer::EnvFile => sources.env_file.display().to_string(),
        other => other.to_string(),
    };
    format!(
        "{} (env {}) = '{}' from {}: {}",
        key.name, key.env, shown, place, allowed
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sources_in(dir: &Path) -> Sources {
        Sources::files_only(dir.join("depot.toml"), dir.join(".env.service"))
    }

    #[test]
    fn no_files_gives_every_default() {
        let dir = tempfile::tempdir().unwrap();
        let r = resolve(&sources_in(dir.path()), &[]).unwrap();
        assert_eq!(r.get("files.default_limit"), &Value::Integer(25));
        assert_eq!(r.layer("files.default_limit"), Layer::Default);
        assert_eq!(
            r.get("server.listen"),
            &Value::Addr("127.0.0.1:3000".parse().unwrap())
        );
    }

    #[test]
    fn each_layer_overrides_the_one_below() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sources_in(dir.path());
        std::fs::write(&s.toml_path, "[log]\nlevel = \"warn\"\n").unwrap();
        let level = |s: &Sources| {
            let r = resolve(s, &[]).unwrap();
            (r.get("log.level").clone(), r.layer("log.level"))
        };
        assert_eq!(level(&s), (Value::Text("warn".into()), Layer::Toml));
        std::fs::write(&s.env_file, "DEPOT_LOG_LEVEL=error\n").unwrap();
        assert_eq!(level(&s), (Value::Text("error".into()), Layer::EnvFile));
        s.process_env = vec![("DEPOT_LOG_LEVEL".into(), "debug".into())];
        assert_eq!(level(&s), (Value::Text("debug".into()), Layer::Env));
        s.flags = vec![("log.level".into(), "trace".into())];
        assert_eq!(level(&s), (Value::Text("trace".into()), Layer::Flag));
        let pinned = resolve(&s, &[("log.level", "info".into())]).unwrap();
        assert_eq!(pinned.layer("log.level"), Layer::Running);
    }

    #[test]
    fn invalid_values_name_key_value_place_and_rule() {
        let dir = tempfile::tempdir().unwrap();
        let s = sources_in(dir.path());
        std::fs::write(&s.toml_path, "[files]\nmax_limit = \"abc\"\n").unwrap();
        let err = resolve(&s, &[]).unwrap_err().to_string();
        assert!(err.contains("files.max_limit"), "{err}");
        assert!(err.contains("'abc'"), "{err}");
        assert!(err.contains("must be an integer from 1 to 10000"), "{err}");
        assert!(err.contains("depot.toml"), "{err}");
    }

    #[test]
    fn a_value_of_the_wrong_toml_type_says_what_it_got() {
        let dir = tempfile::tempdir().unwrap();
        let s = sources_in(dir.path());
        let error_of = |toml: &str| {
            std::fs::write(&s.toml_path, toml).unwrap();
            resolve(&s, &[]).unwrap_err().to_string()
        };
        let err = error_of("[files]\ndefault_limit = \"30\"\n");
        assert!(
            err.ends_with(
                "files.default_limit (env DEPOT_FILES_DEFAULT_LIMIT) = '30' from {}: must be an \
                 integer from 1 to 10000, got a string; write it without quotes"
                    .replace("{}", &s.toml_path.display().to_string())
                    .as_str()
            ),
            "{err}"
        );
        let err = error_of("[producer]\nenabled = \"false\"\n");
        assert!(
            err.ends_with("must be true or false, got a string; write it without quotes"),
            "{err}"
        );
        let err = error_of("[files]\nmax_limit = 2.5\n");
        assert!(
            err.ends_with("must be an integer from 1 to 10000, got a decimal number"),
            "{err}"
        );
        let err = error_of("[signing]\nregion = 5\n");
        assert!(
            err.ends_with("must be a string, got an integer; write it in double quotes"),
            "{err}"
        );
    }

    #[test]
    fn unknown_keys_and_variables_get_a_did_you_mean() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sources_in(dir.path());
        std::fs::write(&s.toml_path, "[files]\ndefualt_limit = 5\n").unwrap();
        let err = resolve(&s, &[]).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "unknown configuration key 'files.defualt_limit' in {}; did you mean \
                 files.default_limit?; see config/depot.toml for every key",
                s.toml_path.display()
            )
        );
        std::fs::write(&s.toml_path, "").unwrap();
        s.flags = vec![("log.levl".into(), "debug".into())];
        let err = resolve(&s, &[]).unwrap_err().to_string();
        assert!(err.contains("did you mean log.level?"), "{err}");
        s.flags.clear();
        s.process_env = vec![
            ("DEPOT_LOG_LEVL".into(), "debug".into()),
            ("DEPOT_NOTHING_LIKE_IT".into(), "x".into()),
        ];
        let r = resolve(&s, &[]).unwrap();
        assert_eq!(
            r.warnings,
            [
                "unknown variable DEPOT_LOG_LEVL in the environment is ignored; did you mean \
                 DEPOT_LOG_LEVEL?",
                "unknown variable DEPOT_NOTHING_LIKE_IT in the environment is ignored; \
                 config/depot.toml lists every known name",
            ]
        );
    }

    #[test]
    fn a_toml_error_names_its_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let s = sources_in(dir.path());
        std::fs::write(
            &s.toml_path,
            "[files]\ndefault_limit = 5\n\n[server]\nlisten = \"127.0.0.1:3000\n",
        )
        .unwrap();
        let message = resolve(&s, &[]).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!(
                "{} is not valid TOML at line 5, column 25: invalid basic string",
                s.toml_path.display()
            )),
            "{message}"
        );
        assert!(!message.contains('\n'), "{message}");
    }

    #[test]
    fn command_line_settings_are_checked_on_their_own() {
        let flags = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        assert!(check_flags(&flags(&[("files.max_limit", "200")])).is_ok());
        let unknown = check_flags(&flags(&[("files.max_limt", "200")])).unwrap_err();
        assert!(
            unknown
                .to_string()
                .contains("'files.max_limt' in the command line"),
            "{unknown}"
        );
        let invalid = check_flags(&flags(&[("server.listen", "here")])).unwrap_err();
        assert_eq!(
            invalid.to_string(),
            "invalid configuration: server.listen (env DEPOT_LISTEN) = 'here' from command \
             line: must be an IP address and port such as 127.0.0.1:3000"
        );
        // A value that is only wrong beside others (an endpoint without its credentials)
        // is the configuration's to refuse.
        assert!(check_flags(&flags(&[("signing.endpoint", "http://127.0.0.1:9000")])).is_ok());
    }

    #[test]
    fn invalid_secret_is_masked_in_the_message() {
        let dir = tempfile::tempdir().unwrap();
        let s = sources_in(dir.path());
        std::fs::write(&s.toml_path, "[auth]\napi_keys = \"s3cr3t-value\"\n").unwrap();
        let err = resolve(&s, &[]).unwrap_err().to_string();
        assert!(err.contains("auth.api_keys"), "{err}");
        assert!(!err.contains("s3cr3t"), "{err}");
    }

    #[test]
    fn unknown_toml_key_and_env_only_key_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let s = sources_in(dir.path());
        std::fs::write(&s.toml_path, "[files]\nmax_limt = 5\n").unwrap();
        assert!(matches!(
            resolve(&s, &[]),
            Err(ConfigError::UnknownKey { key, .. }) if key == "files.max_limt"
        ));
        std::fs::write(&s.toml_path, "[service]\nclient_id = \"x\"\n").unwrap();
        let err = resolve(&s, &[]).unwrap_err().to_string();
        assert!(err.contains("SERVICE_CLIENT_ID"), "{err}");
    }

    #[test]
    fn unknown_service_variable_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sources_in(dir.path());
        s.process_env = vec![
            ("SERVICE_CLIENTID".into(), "x".into()),
            ("HOME".into(), "/root".into()),
        ];
        let r = resolve(&s, &[]).unwrap();
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        assert!(r.warnings[0].contains("SERVICE_CLIENTID"));
        assert!(r.warnings[0].contains("SERVICE_CLIENT_ID"));
    }

    #[test]
    fn lists_come_from_toml_arrays_or_commas() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sources_in(dir.path());
        std::fs::write(&s.toml_path, "[auth]\napi_keys = [\"a\", \"b\"]\n").unwrap();
        let r = resolve(&s, &[]).unwrap();
        assert_eq!(
            r.get("auth.api_keys"),
            &Value::List(vec!["a".into(), "b".into()])
        );
        s.process_env = vec![("DEPOT_API_KEYS".into(), " c, ,d ".into())];
        let r = resolve(&s, &[]).unwrap();
        assert_eq!(
            r.get("auth.api_keys"),
            &Value::List(vec!["c".into(), "d".into()])
        );
    }
}
