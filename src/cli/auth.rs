//! `depot auth`: the browser consent flow, which saves the refresh token where
//! `--config-format` (google.token_store) says; and `depot auth --admin-key`, which makes
//! an admin key, so that the admin actions ("Sync now", uploads) need no key invented by
//! hand.

use super::{Failure, load_config};
use crate::config::Sources;
use crate::config::env_file;
use crate::config::layers::{Layer, absolute};

/// The configuration key admin keys are read from (`DEPOT_ADMIN_KEYS`).
const ADMIN_KEYS: &str = "auth.admin_keys";
/// Random bytes of a new key: 256 bits, written as 64 hex digits.
const KEY_BYTES: usize = 32;

pub fn run(sources: Sources, open_browser: bool) -> Result<(), Failure> {
    let settings = load_config(&sources)?.settings;
    let runtime = super::runtime()?;
    runtime.block_on(super::consent_and_save(
        &settings,
        &sources,
        open_browser,
        "",
    ))?;
    Ok(())
}

/// `depot auth --admin-key`: a new random admin key, printed once on stdout (alone, so a
/// script can take it) and added to the env file beside the admin keys in force (the env
/// file wins over the config file, so keys kept there are carried along). The file is
/// replaced atomically, every other line kept; a running daemon reloads it by itself.
pub fn create_admin_key(sources: &Sources) -> Result<(), Failure> {
    let loaded = load_config(sources)?;
    let env_name =
        crate::config::schema::by_name(ADMIN_KEYS).map_or("DEPOT_ADMIN_KEYS", |key| key.env);
    let file = absolute(sources.env_file.clone());
    let layer = loaded.resolved.layer(ADMIN_KEYS);
    let mut keys: Vec<String> = match layer {
        Layer::EnvFile | Layer::Toml => (loaded.settings.auth.admin_keys.iter())
            .map(|k| k.expose().to_owned())
            .collect(),
        _ => Vec::new(),
    };
    let mut bytes = [0u8; KEY_BYTES];
    getrandom::fill(&mut bytes)
        .map_err(|e| Failure(format!("no randomness for a new key from the system: {e}")))?;
    let key = crate::hex::encode(&bytes);
    keys.push(key.clone());
    env_file::set_var(&file, env_name, &keys.join(",")).map_err(|e| {
        Failure(format!(
            "cannot save the new key to {}: {e}",
            file.display()
        ))
    })?;
    use std::io::Write;
    // The one place the key is shown; a closed stdout loses nothing (the file has it).
    let _ = writeln!(std::io::stdout().lock(), "{key}");
    eprintln!(
        "depot: a new admin key was added to {} ({env_name}); it is printed above and shown \
         nowhere else. A running daemon picks it up by itself: log in to the console with it \
         for \"Sync now\", or send it as Authorization: Bearer <key>",
        file.display()
    );
    match layer {
        Layer::Env | Layer::Flag | Layer::Running => eprintln!(
            "depot: warning: {env_name} is also set in the {layer}, which wins over {}: the new \
             key applies once it is added there too (or that setting removed)",
            file.display()
        ),
        Layer::Toml => eprintln!(
            "depot: the admin keys of {} were copied along: {} wins over it",
            absolute(sources.toml_path.clone()).display(),
            file.display()
        ),
        Layer::EnvFile | Layer::Default => {}
    }
    Ok(())
}
