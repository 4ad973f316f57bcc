//! `depot config check`: load, validate, print the effective values with secrets masked.

use super::{Failure, load_config};
use crate::config::{self, Sources};

pub fn check(sources: &Sources) -> Result<(), Failure> {
    let loaded = load_config(sources)?;
    println!(
        "# configuration is valid ({}, {})",
        sources.toml_path.display(),
        sources.env_file.display()
    );
    for line in config::describe(&loaded) {
        println!("{line}");
    }
    Ok(())
}
