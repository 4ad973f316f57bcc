//! Temporary files through the real binary: `generate` and `import` stage their output in
//! files created exclusively under unpredictable names, so symbolic links planted where a
//! temporary file would go never redirect a write, and a file they replace keeps its
//! permissions (a new one gets the umask's default).
#![cfg(unix)]
#![cfg(test)]

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

const SHEET: &str = ">>>,en,pl\nHELLO,Hello,Cześć\nBYE,Bye,Pa\n";
const VICTIM: &str = "the victim's own content\n";
const GENERATE: [&str; 7] = [
    "generate",
    "--source",
    "sheet.csv",
    "-f",
    "json",
    "-p",
    "out",
];

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The process ids the next processes get, as far ahead as `count` (wrapping at the
/// system's largest).
fn next_pids(count: u32) -> Vec<u32> {
    let read = |file: &str| -> u32 {
        std::fs::read_to_string(file)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    let last = read("/proc/sys/kernel/ns_last_pid");
    let max = read("/proc/sys/kernel/pid_max");
    (1..=count)
        .map(|step| {
            let pid = last + step;
            if pid >= max { pid - max + 300 } else { pid }
        })
        .collect()
}

/// Plants a link to `victim` at every name a temporary file of `target` could have had
/// (`.NAME.PID.tmp` for each of `pids`, and other guesses); returns how many.
fn plant(target: &Path, victim: &Path, pids: &[u32]) -> usize {
    let folder = target.parent().unwrap();
    let name = target.file_name().unwrap().to_str().unwrap();
    let mut names = vec![
        format!(".{name}.tmp"),
        format!("{name}.tmp"),
        format!(".{name}.swp"),
        format!("{name}~"),
    ];
    for pid in pids {
        names.push(format!(".{name}.{pid}.tmp"));
        names.push(format!(".{name}.{pid}.0000000000000000.tmp"));
    }
    for link in &names {
        std::os::unix::fs::symlink(victim, folder.join(link)).unwrap();
    }
    names.len()
}

/// Runs depot in `dir` and returns its output and process id.
fn run_with_pid(dir: &Path, args: &[&str]) -> (Output, u32) {
    let child = support::depot(dir)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    (child.wait_with_output().unwrap(), pid)
}

/// Links and files in `folder`: (links, other entries' names).
fn entries(folder: &Path) -> (usize, Vec<String>) {
    let mut links = 0;
    let mut others = Vec::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_symlink() {
            links += 1;
        } else {
            others.push(entry.file_name().into_string().unwrap());
        }
    }
    others.sort();
    (links, others)
}

#[test]
fn links_planted_at_temporary_names_never_redirect_generate_or_import() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("sheet.csv"), SHEET).unwrap();
    let victim = root.join("victim.txt");
    std::fs::write(&victim, VICTIM).unwrap();
    set_mode(&victim, 0o600);
    let out = root.join("out");
    std::fs::create_dir(&out).unwrap();
    let imported = root.join("imported");
    std::fs::create_dir(&imported).unwrap();

    // Far enough ahead for the machine's other processes meanwhile.
    let pids = next_pids(4000);
    let mut planted = 0;
    for target in [out.join("en.json"), out.join("pl.json")] {
        planted += plant(&target, &victim, &pids);
    }
    let (generated, pid) = run_with_pid(root, &GENERATE);
    assert_ok(&generated);
    assert!(pids.contains(&pid), "generate ran as {pid}, past the links");

    let pids = next_pids(4000);
    let sheet = imported.join("sheet.csv");
    let planted_import = plant(&sheet, &victim, &pids);
    let (import, pid) = run_with_pid(root, &["import", "out", "--to", "imported/sheet.csv"]);
    assert_ok(&import);
    assert!(pids.contains(&pid), "import ran as {pid}, past the links");

    assert_eq!(std::fs::read_to_string(&victim).unwrap(), VICTIM);
    assert_eq!(mode(&victim), 0o600);
    assert_eq!(
        std::fs::read_to_string(out.join("en.json")).unwrap(),
        r#"{"HELLO":"Hello","BYE":"Bye"}"#
    );
    assert_eq!(
        std::fs::read_to_string(out.join("pl.json")).unwrap(),
        r#"{"HELLO":"Cześć","BYE":"Pa"}"#
    );
    assert_eq!(
        std::fs::read_to_string(&sheet).unwrap(),
        ">>>,###,$$$,en,pl\nHELLO,,,Hello,Cześć\nBYE,,,Bye,Pa\n"
    );
    // The outputs are files of their own, every link is still there, and no temporary
    // file is left.
    assert_eq!(
        entries(&out),
        (planted, vec!["en.json".to_owned(), "pl.json".to_owned()])
    );
    assert_eq!(
        entries(&imported),
        (planted_import, vec!["sheet.csv".to_owned()])
    );
}

#[test]
fn replaced_outputs_keep_their_mode_and_new_ones_get_the_umask_default() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("sheet.csv"), SHEET).unwrap();
    let out = root.join("out");
    std::fs::create_dir(&out).unwrap();
    // the files of an older sheet (generate patches them: SPEC §12.1)
    for (name, kept, old) in [
        ("en.json", 0o600, r#"{"HELLO":"Hi","BYE":"Bye"}"#),
        ("pl.json", 0o640, r#"{"HELLO":"Hej","BYE":"Pa"}"#),
    ] {
        std::fs::write(out.join(name), old).unwrap();
        set_mode(&out.join(name), kept);
    }
    let generated = support::run(root, &GENERATE);
    assert_ok(&generated);
    assert_eq!(
        std::fs::read_to_string(out.join("en.json")).unwrap(),
        r#"{"HELLO":"Hello","BYE":"Bye"}"#
    );
    assert_eq!(mode(&out.join("en.json")), 0o600);
    assert_eq!(mode(&out.join("pl.json")), 0o640);

    // import over an existing sheet, and merged into one, in each file kind
    for (sheet, kept) in [
        ("over.csv", 0o600),
        ("over.xlsx", 0o640),
        ("merged.ods", 0o600),
        ("merged.csv", 0o640),
    ] {
        let path = root.join(sheet);
        if sheet.ends_with(".ods") {
            assert_ok(&support::run(
                root,
                &["import", "out/en.json", "--to", sheet],
            ));
        } else {
            std::fs::write(&path, ">>>,en\nOLD,Old\n").unwrap();
        }
        set_mode(&path, kept);
        let mut args = vec!["import", "out", "--to", sheet];
        if sheet.starts_with("merged") {
            args.extend(["--merge-into", sheet]);
        }
        assert_ok(&support::run(root, &args));
        assert_eq!(mode(&path), kept, "{sheet}");
    }
    assert_eq!(
        std::fs::read_to_string(root.join("merged.csv")).unwrap(),
        ">>>,en,pl\nOLD,Old,\nHELLO,Hello,Cześć\nBYE,Bye,Pa\n"
    );

    // A new file: the umask's default, as any program makes it.
    let masked = std::process::Command::new("sh")
        .current_dir(root)
        .args([
            "-c",
            &format!(
                "umask 027 && exec {} generate --source sheet.csv -f json -p masked",
                support::BIN
            ),
        ])
        .output()
        .unwrap();
    assert_ok(&masked);
    assert_eq!(mode(&root.join("masked/en.json")), 0o640);
}
