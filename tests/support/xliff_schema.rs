//! The XLIFF 1.2 strict schema, as libxml2 checks a file against it. Debian ships the
//! OASIS schema (and the xml.xsd it imports) in php-symfony-translation; the import's
//! location is pointed at the local copy, since xmllint would otherwise fetch it from the
//! web, which the tests never do.
#![allow(
    dead_code,
    reason = "each test crate uses only some of the shared helpers"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

const SCHEMAS: &str = "/usr/share/php/Symfony/Component/Translation/Resources/schemas";
const HINT: &str = "the XLIFF 1.2 strict schema comes with Debian's php-symfony-translation \
                    (apt-get install -y php-symfony-translation libxml2-utils; scripts/test does this)";

/// The strict schema, written into `dir` with its import of xml.xsd made local.
pub fn strict_schema(dir: &Path) -> PathBuf {
    let schemas = Path::new(SCHEMAS);
    let strict = std::fs::read_to_string(schemas.join("xliff-core-1.2-strict.xsd"))
        .unwrap_or_else(|e| panic!("cannot read the XLIFF 1.2 strict schema ({e}): {HINT}"));
    let xml = schemas.join("xml.xsd");
    assert!(xml.is_file(), "{} is missing: {HINT}", xml.display());
    let local = strict.replace(
        "schemaLocation=\"http://www.w3.org/2001/xml.xsd\"",
        &format!("schemaLocation=\"{}\"", xml.display()),
    );
    assert_ne!(
        local, strict,
        "the schema no longer imports xml.xsd from the web"
    );
    let path = dir.join("xliff-core-1.2-strict.xsd");
    std::fs::write(&path, local).unwrap();
    path
}

/// Panics unless `file` is valid against the XLIFF 1.2 strict schema.
pub fn assert_strictly_valid(file: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let schema = strict_schema(dir.path());
    let xmllint = super::engines::require("xmllint", "libxml2-utils");
    let out = Command::new(xmllint)
        .arg("--noout")
        .arg("--nonet")
        .arg("--schema")
        .arg(&schema)
        .arg(file)
        .output()
        .expect("xmllint runs");
    assert!(
        out.status.success(),
        "{} is not valid XLIFF 1.2 (strict schema):\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}
