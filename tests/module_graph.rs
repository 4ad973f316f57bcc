//! The import graph of src/ stays layered: `scripts/modgraph` finds no file import cycle
//! and no arrow up its layers, so a new one fails here with the files it joins.
#![cfg(test)]

use std::process::Command;

#[test]
fn src_has_no_new_import_cycle_or_upward_arrow() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/modgraph");
    let out = Command::new("python3")
        .arg(script)
        .output()
        .expect("python3 runs scripts/modgraph (install python3)");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "scripts/modgraph found cycles or upward arrows it does not know:\n{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("0 not known"), "{report}");
}
