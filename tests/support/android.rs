//! Android's real resource compilers: a `res` folder (what `depot generate --format
//! android` wrote) built with aapt and with aapt2, without android.jar, and each tool's
//! dump of the result. A missing tool fails the test with the install hint.

use std::path::Path;
use std::process::{Command, Output};

pub const INSTALL_HINT: &str = "install Debian's aapt package, which ships aapt and aapt2: \
                                apt-get install -y aapt (scripts/test does)";

/// Runs an Android build tool in `dir`.
pub fn tool(name: &str, args: &[&str], dir: &Path) -> Output {
    Command::new(name)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {name} ({e}): {INSTALL_HINT}"))
}

/// Runs an Android build tool in `dir` and returns its stdout; it must succeed.
pub fn tool_ok(name: &str, args: &[&str], dir: &Path) -> String {
    let out = tool(name, args, dir);
    assert!(
        out.status.success(),
        "{name} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Builds `res` with aapt and with aapt2 (a manifest is written beside it) and returns
/// `aapt dump --values resources` and `aapt2 dump resources` of the two packages.
pub fn build_with_aapt_and_aapt2(res: &Path) -> [String; 2] {
    let project = res.parent().unwrap();
    std::fs::write(
        project.join("AndroidManifest.xml"),
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<manifest \
         xmlns:android=\"http://schemas.android.com/apk/res/android\" package=\"com.example.depot\"/>\n",
    )
    .unwrap();
    let res_name = res.file_name().unwrap().to_str().unwrap();
    let manifest = "AndroidManifest.xml";
    tool_ok(
        "aapt",
        &[
            "package", "-f", "-M", manifest, "-S", res_name, "-F", "aapt.apk",
        ],
        project,
    );
    let aapt = tool_ok(
        "aapt",
        &["dump", "--values", "resources", "aapt.apk"],
        project,
    );
    tool_ok(
        "aapt2",
        &["compile", "--dir", res_name, "-o", "compiled.zip"],
        project,
    );
    tool_ok(
        "aapt2",
        &[
            "link",
            "-o",
            "aapt2.apk",
            "--manifest",
            manifest,
            "compiled.zip",
        ],
        project,
    );
    let aapt2 = tool_ok("aapt2", &["dump", "resources", "aapt2.apk"], project);
    [aapt, aapt2]
}
