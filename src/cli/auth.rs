//! `depot auth`: the browser consent flow; saves the refresh token where
//! `--config-format` (google.token_store) says.

use super::{Failure, load_config};
use crate::config::Sources;

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
