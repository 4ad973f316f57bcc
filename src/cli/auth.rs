//! `depot auth`: the browser consent flow; saves the refresh token where
//! `--config-format` (google.token_store) says.

use super::{Failure, load_config};
use crate::config::Sources;
use crate::sheets::consent;

pub fn run(sources: Sources, open_browser: bool) -> Result<(), Failure> {
    let settings = load_config(&sources)?.settings;
    let runtime = super::runtime()?;
    let token = runtime.block_on(consent::obtain_refresh_token(
        &settings,
        open_browser,
        |url| {
            eprintln!("Open this URL in a browser to let depot read the spreadsheet:\n{url}");
        },
    ))?;
    let place = consent::save_refresh_token(&settings, &sources, &token)?;
    eprintln!("depot: the refresh token was saved to {place}");
    Ok(())
}
