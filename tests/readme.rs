//! The README is a promise (issue 23, item 14), kept by two tests.
//!
//! **Its walkthroughs run as written.** Every fenced ```sh block of the sections in
//! `WALKTHROUGHS` is run line by line through `sh`, with the binary under test on `PATH` as
//! `depot` (what `cargo install --path .` gives the reader). "Quick start" runs in a new
//! empty folder, with nothing from the checkout but the installed binary; each later
//! section runs in a new folder of its own that holds a copy of the repository's
//! `examples/`, as when a reader runs it from the root of a clone, with `depot` installed
//! (the quick start did that). The test changes only what a test must, so that a README
//! edit that breaks a walkthrough fails here:
//! - a `depot serve` line (after `NAME=value` words, if any) runs in the background with
//!   `DEPOT_LISTEN=127.0.0.1:0` (a free port), and `127.0.0.1:3000` in the lines after it
//!   becomes the address it bound;
//! - a placeholder `<the NAME …>` becomes the field NAME of the newest JSON an earlier line
//!   printed (`<the key printed by files add>`: the `key` of the record `files add`
//!   printed), percent-encoded when it is a query value;
//! - curl also writes the HTTP status (`--write-out`), which must be 200; a curl line is
//!   tried again for up to `SETTLE` until it answers 200 and meets its expectations, as a
//!   person who runs it a moment later would see (a saved sheet is served within a second).
//!
//! Every line must exit 0, and the expectations the README writes after a command (on its
//! line, or on comment lines right below it) must hold: `# has TEXT` (what it printed, on
//! stdout or stderr, contains TEXT), `# prints TEXT` (its stdout, trimmed, is TEXT),
//! `# writes PATH, PATH, …` (each path exists afterwards; `…` stands for the rest),
//! `# exits N` (it exits N instead of 0). Every `http://127.0.0.1:3000…` URL in a section's
//! prose (the console) answers 200 from that section's daemon. `cargo install --path .` is
//! how the reader gets `depot`, so it is not run, and a `depot` line before it fails; any
//! other `cargo` line fails, since it works only inside the checkout.
//!
//! **Every repository path that README.md and docs/*.md name exists**: see
//! `repository_paths` for the rule.
#![cfg(test)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// The address the README's commands use: `server.listen`'s default.
const README_ADDRESS: &str = "127.0.0.1:3000";
/// The README's sections whose commands are run, in the README's order. The first runs in
/// an empty folder; the others from a clone, with `depot` installed.
const WALKTHROUGHS: [&str; 3] = [
    "Quick start",
    "Bringing an existing app",
    "Serving your own sheet",
];
/// How long a curl line may take to show what the README says it shows.
const SETTLE: Duration = Duration::from_secs(5);

/// One command line of a walkthrough, with what the README says it does.
#[derive(Debug)]
struct Step {
    /// Line number in README.md.
    line: usize,
    command: String,
    expects: Vec<Expect>,
}

#[derive(Debug, PartialEq)]
enum Expect {
    Has(String),
    Prints(String),
    Writes(Vec<String>),
    Exits(i32),
}

/// A walkthrough: its command lines, and the daemon URLs its prose names (line, URL).
#[derive(Debug)]
struct Walkthrough {
    steps: Vec<Step>,
    urls: Vec<(usize, String)>,
}

/// The section `## TITLE` of the README, read as the test runs it.
fn read_section(readme: &str, title: &str) -> Walkthrough {
    let mut steps: Vec<Step> = Vec::new();
    let mut urls = Vec::new();
    let mut found = false;
    let mut in_section = false;
    let mut in_block = false;
    // The step the next expectation comment belongs to (none after a blank line).
    let mut last: Option<usize> = None;
    for (index, text) in readme.lines().enumerate() {
        let line = index + 1;
        if let Some(heading) = text.strip_prefix("## ") {
            in_section = heading.trim() == title;
            found |= in_section;
            continue;
        }
        if !in_section {
            continue;
        }
        let trimmed = text.trim();
        if let Some(language) = trimmed.strip_prefix("```") {
            if !in_block {
                assert_eq!(
                    language, "sh",
                    "README.md line {line}: the code blocks of \"{title}\" are run as ```sh; \
                     mark this one sh or move it out of the section"
                );
            }
            in_block = !in_block;
            last = None;
            continue;
        }
        if !in_block {
            urls.extend(daemon_urls(text).into_iter().map(|url| (line, url)));
            continue;
        }
        if trimmed.is_empty() {
            last = None;
        } else if let Some(comment) = trimmed.strip_prefix('#') {
            if let Some(expect) = expectation(comment) {
                let step = last.unwrap_or_else(|| {
                    panic!("README.md line {line}: an expectation with no command right above it")
                });
                steps[step].expects.push(expect);
            }
        } else {
            let (command, comment) = split_comment(trimmed);
            steps.push(Step {
                line,
                command: command.trim_end().to_owned(),
                expects: comment.and_then(expectation).into_iter().collect(),
            });
            last = Some(steps.len() - 1);
        }
    }
    assert!(found, "README.md has no section \"## {title}\"");
    assert!(
        !in_block,
        "README.md: the last code block of \"{title}\" is not closed"
    );
    assert!(
        !steps.is_empty(),
        "README.md: \"{title}\" has no command to run"
    );
    Walkthrough { steps, urls }
}

/// `# has …`, `# prints …`, `# writes …`, `# exits N` (the text after `#`); other comments
/// say nothing the test checks.
fn expectation(comment: &str) -> Option<Expect> {
    let comment = comment.trim();
    if let Some(code) = comment.strip_prefix("exits ") {
        let code = code.trim();
        let code = code
            .parse()
            .unwrap_or_else(|_| panic!("`# exits {code}`: an exit code is a number"));
        return Some(Expect::Exits(code));
    }
    if let Some(text) = comment.strip_prefix("has ") {
        return Some(Expect::Has(text.trim().to_owned()));
    }
    if let Some(text) = comment.strip_prefix("prints ") {
        return Some(Expect::Prints(text.trim().to_owned()));
    }
    let list = comment.strip_prefix("writes ")?;
    let paths = list
        .split(',')
        .filter_map(|item| item.split_whitespace().next())
        .filter(|path| *path != "…")
        .map(str::to_owned)
        .collect();
    Some(Expect::Writes(paths))
}

/// A shell line and its trailing comment: a `#` outside quotes after a blank.
fn split_comment(line: &str) -> (&str, Option<&str>) {
    let mut quote = None;
    let mut previous = ' ';
    for (at, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(open), _) if c == open => quote = None,
            (None, '#') if previous.is_whitespace() => return (&line[..at], Some(&line[at + 1..])),
            _ => {}
        }
        previous = c;
    }
    (line, None)
}

/// The `http://127.0.0.1:3000…` URLs in a line of prose.
fn daemon_urls(text: &str) -> Vec<String> {
    let start = format!("http://{README_ADDRESS}");
    text.match_indices(&start)
        .map(|(at, _)| {
            let rest = &text[at..];
            let end = rest
                .find(|c: char| c == '`' || c.is_whitespace())
                .unwrap_or(rest.len());
            rest[..end].to_owned()
        })
        .collect()
}

/// A walkthrough being run: its folder, the environment of its lines, the daemon.
struct Run {
    folder: tempfile::TempDir,
    /// `HOME` of the lines: no `~/.curlrc` or other file of the machine's user applies.
    home: tempfile::TempDir,
    /// Holds `depot`, first on the lines' `PATH`.
    bin: tempfile::TempDir,
    installed: bool,
    daemon: Option<Background>,
    /// What each line printed (curl: the body), newest last.
    outputs: Vec<String>,
}

/// `depot serve` started by a walkthrough; killed when dropped.
struct Background {
    child: Child,
    address: String,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Background {
    fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }
}

/// What one run of a line showed.
struct Seen {
    code: Option<i32>,
    /// curl: the body, without the status `--write-out` added.
    stdout: String,
    stderr: String,
    /// curl: the HTTP status.
    http: Option<String>,
}

/// The words of a command after its `NAME=value` assignments: what it runs.
fn program_words(command: &str) -> Vec<&str> {
    command
        .split_whitespace()
        .skip_while(|word| {
            word.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty()
                    && !name.starts_with(|c: char| c.is_ascii_digit())
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
        .collect()
}

impl Run {
    /// An empty folder (the quick start's), or with `from_clone` a folder holding a copy of
    /// the repository's `examples/`, where `depot` is already installed.
    fn new(from_clone: bool) -> Run {
        let bin = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(support::BIN, bin.path().join("depot")).unwrap();
        let folder = tempfile::tempdir().unwrap();
        if from_clone {
            let copied = Command::new("cp")
                .arg("-R")
                .arg(Path::new(ROOT).join("examples"))
                .arg(folder.path())
                .status()
                .unwrap();
            assert!(copied.success(), "cp -R examples/: {copied}");
        }
        Run {
            folder,
            home: tempfile::tempdir().unwrap(),
            bin,
            installed: from_clone,
            daemon: None,
            outputs: Vec::new(),
        }
    }

    /// `sh -c line` in the folder, with the machine's DEPOT_*/SERVICE_* settings and
    /// proxies left out.
    fn shell(&self, line: &str) -> Command {
        let mut command = Command::new("sh");
        command.arg("-c").arg(line).current_dir(self.folder.path());
        for (name, _) in std::env::vars() {
            let lower = name.to_ascii_lowercase();
            if name.starts_with("DEPOT_")
                || name.starts_with("SERVICE_")
                || lower.ends_with("_proxy")
                || name == "CURL_HOME"
            {
                command.env_remove(name);
            }
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.bin.path().to_path_buf()];
        paths.extend(std::env::split_paths(&path));
        command
            .env("PATH", std::env::join_paths(paths).unwrap())
            .env("HOME", self.home.path())
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY");
        command
    }

    /// Runs every step of `walkthrough`, then asks each URL of its prose.
    async fn walk(&mut self, walkthrough: &Walkthrough) {
        for step in &walkthrough.steps {
            self.step(step).await;
        }
        for (line, url) in &walkthrough.urls {
            let daemon = self.daemon.as_ref().unwrap_or_else(|| {
                panic!(
                    "README.md line {line}: {url} needs a daemon, which the section does not start"
                )
            });
            let url = url.replace(README_ADDRESS, &daemon.address);
            let status = reqwest::get(&url).await.unwrap().status();
            assert_eq!(status, 200, "README.md line {line}: {url}");
        }
        if let Some(daemon) = self.daemon.as_mut() {
            let exited = daemon.child.try_wait().unwrap();
            assert!(
                exited.is_none(),
                "the daemon stopped during the walkthrough ({exited:?}):\n{}",
                daemon.log()
            );
        }
    }

    async fn step(&mut self, step: &Step) {
        let words = program_words(&step.command);
        let at = format!("README.md line {} (`{}`)", step.line, step.command);
        match words.as_slice() {
            ["cargo", "install", "--path", "."] => {
                self.installed = true;
                assert!(step.expects.is_empty(), "{at}: the test does not run it");
                return;
            }
            ["cargo", ..] => panic!(
                "{at}: cargo works only inside a checkout of the repository, and the \
                 walkthroughs run in any folder: write `depot …` (installed by `cargo install \
                 --path .`)"
            ),
            ["depot", ..] => assert!(
                self.installed,
                "{at}: depot is run before the quick start installs it (`cargo install --path .`)"
            ),
            _ => {}
        }
        let command = self.substitute(step, &at);
        if words.starts_with(&["depot", "serve"]) {
            return self.start_daemon(&command, &at).await;
        }
        let curl = words.first() == Some(&"curl");
        let line = if curl {
            command.replacen("curl", r"curl --write-out '\n%{http_code}'", 1)
        } else {
            command
        };
        let deadline = Instant::now() + SETTLE;
        loop {
            let seen = self.run_line(&line, curl);
            match self.check(step, &seen) {
                Ok(()) => return self.outputs.push(seen.stdout),
                Err(_) if curl && Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(why) => panic!("{at}: {why}"),
            }
        }
    }

    fn run_line(&self, line: &str, curl: bool) -> Seen {
        let output = self.shell(line).output().unwrap();
        let mut stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let mut http = None;
        if curl {
            let (body, status) = stdout.rsplit_once('\n').unwrap_or(("", &stdout));
            http = Some(status.to_owned());
            stdout = body.to_owned();
        }
        Seen {
            code: output.status.code(),
            stdout,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            http,
        }
    }

    /// Whether what the line showed is what the README says.
    fn check(&self, step: &Step, seen: &Seen) -> Result<(), String> {
        let Seen {
            code,
            stdout,
            stderr,
            http,
        } = seen;
        let exits = step.expects.iter().find_map(|expect| match expect {
            Expect::Exits(code) => Some(*code),
            _ => None,
        });
        if *code != Some(exits.unwrap_or(0)) {
            return Err(format!(
                "exit code {code:?}, the README expects {}\nstdout: {stdout}\nstderr: {stderr}",
                exits.unwrap_or(0)
            ));
        }
        if let Some(status) = http.as_ref().filter(|status| *status != "200") {
            return Err(format!("HTTP {status}: {stdout}"));
        }
        for expect in &step.expects {
            match expect {
                Expect::Has(text) => {
                    if !stdout.contains(text.as_str()) && !stderr.contains(text.as_str()) {
                        return Err(format!(
                            "the README says the output has `{text}`; it is:\n{stdout}{stderr}"
                        ));
                    }
                }
                Expect::Prints(text) => {
                    if stdout.trim() != text {
                        return Err(format!(
                            "the README says it prints `{text}`; it printed:\n{stdout}"
                        ));
                    }
                }
                Expect::Writes(paths) => {
                    if let Some(path) = paths
                        .iter()
                        .find(|path| !self.folder.path().join(path).exists())
                    {
                        return Err(format!(
                            "the README says it writes {path}; it printed:\n{stdout}{stderr}"
                        ));
                    }
                }
                Expect::Exits(_) => {}
            }
        }
        Ok(())
    }

    /// The line with the daemon's real address and the placeholders filled in.
    fn substitute(&self, step: &Step, at: &str) -> String {
        let mut command = step.command.clone();
        if command.contains(README_ADDRESS) {
            let daemon = self.daemon.as_ref().unwrap_or_else(|| {
                panic!("{at}: it needs the daemon, which no line above started (`depot serve`)")
            });
            command = command.replace(README_ADDRESS, &daemon.address);
        }
        while let Some(start) = command.find("<the ") {
            let end = start
                + command[start..]
                    .find('>')
                    .unwrap_or_else(|| panic!("{at}: a placeholder `<the …` is not closed"));
            let name = command[start + "<the ".len()..end]
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned();
            let value = self.field(&name).unwrap_or_else(|| {
                panic!("{at}: no line above printed JSON with a field `{name}`")
            });
            let value = if command[..start].ends_with('=') {
                depot::percent::encode(&value, depot::percent::is_unreserved)
            } else {
                value
            };
            command.replace_range(start..=end, &value);
        }
        command
    }

    /// The field `name` of the newest JSON printed (a whole output, or one of its lines).
    fn field(&self, name: &str) -> Option<String> {
        self.outputs.iter().rev().find_map(|output| {
            std::iter::once(output.as_str())
                .chain(output.lines())
                .filter_map(|text| serde_json::from_str::<serde_json::Value>(text).ok())
                .find_map(|json| match &json[name] {
                    serde_json::Value::String(s) => Some(s.clone()),
                    serde_json::Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
        })
    }

    async fn start_daemon(&mut self, command: &str, at: &str) {
        depot::tls::install_tls_provider();
        let mut child = self
            .shell(&format!("exec env {command}"))
            .env("DEPOT_LISTEN", "127.0.0.1:0")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        {
            let log = log.clone();
            std::thread::spawn(move || {
                use std::io::BufRead;
                for line in std::io::BufReader::new(stderr)
                    .lines()
                    .map_while(Result::ok)
                {
                    if let Some(address) = support::listening_address(&line) {
                        let _ = tx.send(address);
                    }
                    log.lock().unwrap().push(line);
                }
            });
        }
        let address = rx.recv_timeout(Duration::from_secs(30));
        let mut daemon = Background {
            child,
            address: address.clone().unwrap_or_default(),
            log,
        };
        assert!(
            address.is_ok(),
            "{at}: the daemon did not start:\n{}",
            daemon.log()
        );
        // The lines below come after a person has opened a second terminal: wait until the
        // daemon has its translations (it reads the built-in sheet at once).
        let health = format!("http://{}/health", daemon.address);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(response) = reqwest::get(&health).await
                && let Ok(json) = response.json::<serde_json::Value>().await
                && json["translations"]["loaded"] == true
            {
                break;
            }
            let exited = daemon.child.try_wait().unwrap();
            assert!(
                exited.is_none() && Instant::now() < deadline,
                "{at}: the daemon never served translations ({exited:?}):\n{}",
                daemon.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.daemon = Some(daemon);
    }
}

fn require_curl() {
    let found = Command::new("sh")
        .args(["-c", "command -v curl"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "the README's walkthroughs use curl: install it (apt-get install -y curl), or run \
         scripts/test, which does"
    );
}

fn readme() -> String {
    std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_quick_start_runs_as_written_in_an_empty_folder() {
    require_curl();
    let quick_start = read_section(&readme(), WALKTHROUGHS[0]);
    let mut run = Run::new(false);
    assert_eq!(std::fs::read_dir(run.folder.path()).unwrap().count(), 0);
    run.walk(&quick_start).await;
    assert!(
        run.daemon.is_some(),
        "README.md: the quick start starts no daemon (`depot serve`)"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bringing_an_existing_app_runs_as_written_from_a_clone() {
    require_curl();
    let walkthrough = read_section(&readme(), WALKTHROUGHS[1]);
    Run::new(true).walk(&walkthrough).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn serving_your_own_sheet_runs_as_written_from_a_clone() {
    require_curl();
    let walkthrough = read_section(&readme(), WALKTHROUGHS[2]);
    let mut run = Run::new(true);
    run.walk(&walkthrough).await;
    assert!(
        run.daemon.is_some(),
        "README.md: \"{}\" starts no daemon (`depot serve`)",
        WALKTHROUGHS[2]
    );
}

/// The walkthroughs are the README's first sections after the title's commands and "What
/// depot is", in this order: what a newcomer reads first.
#[test]
fn the_walkthroughs_come_first_in_the_readme() {
    let headings: Vec<String> = readme()
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .map(|title| title.trim().to_owned())
        .collect();
    let mut expected = vec!["What depot is".to_owned()];
    expected.extend(WALKTHROUGHS.map(str::to_owned));
    assert_eq!(headings[..expected.len()], expected[..], "{headings:?}");
}

/// A walkthrough as the test reads it: commands with their line numbers, expectations on
/// the command's own line and on the comment lines right below it (not after a blank line),
/// placeholders, and the console URL of the prose; only the section asked for.
#[test]
fn a_walkthrough_is_read_with_its_expectations() {
    let readme = "# x\n## Quick start\n\nOpen `http://127.0.0.1:3000/` here.\n\n```sh\n\
                  cargo install --path .\n\
                  curl -s 'http://127.0.0.1:3000/x#y'   # has \"a\":1\n\
                  # prints hello\n\
                  # an ordinary comment\n\
                  \n\
                  depot generate -p ./out\n\
                  # writes ./out/a.xml, ./out/b/c.xml, … (Android)\n\
                  ```\n## Next\n```sh\nnot read\n```\n";
    let quick_start = read_section(readme, "Quick start");
    assert_eq!(quick_start.urls, [(4, "http://127.0.0.1:3000/".to_owned())]);
    let steps: Vec<_> = quick_start
        .steps
        .iter()
        .map(|s| (s.line, s.command.as_str(), &s.expects))
        .collect();
    assert_eq!(steps.len(), 3, "{steps:?}");
    assert_eq!(steps[0], (7, "cargo install --path .", &vec![]));
    assert_eq!(
        steps[1],
        (
            8,
            "curl -s 'http://127.0.0.1:3000/x#y'",
            &vec![
                Expect::Has("\"a\":1".into()),
                Expect::Prints("hello".into())
            ]
        )
    );
    assert_eq!(
        steps[2],
        (
            12,
            "depot generate -p ./out",
            &vec![Expect::Writes(vec![
                "./out/a.xml".into(),
                "./out/b/c.xml".into()
            ])]
        )
    );
}

/// A later section is read alone, `# exits N` included, and a `depot serve` after
/// `NAME=value` words is still `depot serve`.
#[test]
fn a_later_section_is_read_alone_with_its_exit_codes() {
    let readme = "## Quick start\n```sh\nnot read\n```\n## Serving your own sheet\n\
                  Prose.\n```sh\n\
                  DEPOT_PRODUCER_SOURCE=texts.csv depot serve\n\
                  depot diff --source a.csv app   # exits 1\n\
                  # has differs\n\
                  ```\n## Reference\n```sh\nnot read either\n```\n";
    let section = read_section(readme, "Serving your own sheet");
    let steps: Vec<_> = section
        .steps
        .iter()
        .map(|s| (s.line, s.command.as_str(), &s.expects))
        .collect();
    assert_eq!(
        steps,
        [
            (8, "DEPOT_PRODUCER_SOURCE=texts.csv depot serve", &vec![]),
            (
                9,
                "depot diff --source a.csv app",
                &vec![Expect::Exits(1), Expect::Has("differs".into())]
            ),
        ]
    );
    assert_eq!(program_words(steps[0].1), ["depot", "serve"]);
    assert_eq!(program_words("A=1 B_2=x y=z curl -s"), ["curl", "-s"]);
    assert_eq!(program_words("echo a=b"), ["echo", "a=b"]);
    assert_eq!(program_words("1A=2 depot"), ["1A=2", "depot"]);
}

/// A section the test runs must be in the README: renaming one would stop its commands
/// from being run.
#[test]
#[should_panic(expected = "README.md has no section \"## Bringing an existing app\"")]
fn a_missing_walkthrough_is_refused() {
    read_section(
        "## Quick start\n```sh\ntrue\n```\n",
        "Bringing an existing app",
    );
}

/// An expectation after a blank line belongs to no command: a README slip, not a check
/// quietly dropped.
#[test]
#[should_panic(expected = "README.md line 5: an expectation with no command right above it")]
fn an_expectation_apart_from_its_command_is_refused() {
    read_section(
        "## Quick start\n```sh\ndepot serve\n\n# prints x\n# has y\n```\n",
        "Quick start",
    );
}

/// `# exits N` and `# has` on stderr hold for a line that does so, from a clone's folder.
#[tokio::test]
async fn a_line_is_held_to_its_exit_code_and_what_it_printed() {
    let section = read_section(
        "## S\n```sh\n\
         ls examples/app   # has android\n\
         echo 'no match' >&2; exit 1   # exits 1\n\
         # has no match\n\
         ```\n",
        "S",
    );
    Run::new(true).walk(&section).await;
}

/// A line that exits 0 where the README says 1 fails, naming both.
#[tokio::test]
#[should_panic(expected = "README.md line 3 (`true`): exit code Some(0), the README expects 1")]
async fn a_line_that_exits_otherwise_than_written_fails() {
    let section = read_section("## S\n```sh\ntrue   # exits 1\n```\n", "S");
    Run::new(false).walk(&section).await;
}

/// The top-level folders of the repository (what git keeps; `target/` and `data/` are made
/// by builds and runs). A new top-level folder joins this list.
const REPOSITORY_FOLDERS: &[&str] = &[
    ".ci",
    "benches",
    "config",
    "docs",
    "examples",
    "fuzz",
    "proptest-regressions",
    "scripts",
    "src",
    "templates",
    "tests",
];

/// A path a document names, and where it points in the checkout.
#[derive(Debug, PartialEq)]
struct Named {
    line: usize,
    path: String,
    /// Relative to the repository's root.
    resolved: PathBuf,
}

/// The repository paths a markdown document (at `file`, relative to the root) names. The
/// rule:
/// - a word made of path characters (letters, digits, `_ . / - +`) that starts with one of
///   `REPOSITORY_FOLDERS` and a `/` (`src/sheets/example.rs`, `docs/`, `.ci/run`), wherever
///   it stands (in backticks, in code blocks, in prose);
/// - a word ending in `.rs` that starts with a folder of `src/` (`console/session.rs`), read
///   under `src/`;
/// - the target of every relative markdown link or image (`[x](docs/design.md)`), read from
///   the document's folder; an `#anchor` is left out.
///
/// Nothing else is a repository path: the user's own files in the examples (`./out/…`,
/// `hello.txt`, `sheet.csv`, `catalogue.csv`) and what runs and builds make (`data/objects`,
/// `target/…`) do not start with a repository folder. A word cut short by a placeholder
/// (`<`, `{`, `*`, `…` right after it: `fuzz/artifacts/<target>/`, `docs/*.md`) is checked
/// up to its last `/`. Trailing `.`, `,`, `;` end a sentence, not the path.
fn repository_paths(text: &str, file: &str, src_folders: &[String]) -> Vec<Named> {
    let folder = Path::new(file).parent().unwrap_or(Path::new(""));
    let mut named = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        for (word, next) in path_words(line) {
            let word = if matches!(next, Some('<' | '{' | '*' | '…')) {
                match word.rfind('/') {
                    Some(slash) => &word[..=slash],
                    None => continue,
                }
            } else {
                word.trim_end_matches(['.', ','])
            };
            let Some((first, _)) = word.split_once('/') else {
                continue;
            };
            let resolved = if REPOSITORY_FOLDERS.contains(&first) {
                PathBuf::from(word)
            } else if word.ends_with(".rs") && src_folders.iter().any(|f| f == first) {
                Path::new("src").join(word)
            } else {
                continue;
            };
            named.push(Named {
                line: line_number,
                path: word.to_owned(),
                resolved,
            });
        }
        for (at, _) in line.match_indices("](") {
            let rest = &line[at + 2..];
            let target = &rest[..rest.find(')').unwrap_or(rest.len())];
            let target = target.split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            named.push(Named {
                line: line_number,
                path: target.to_owned(),
                resolved: folder.join(target),
            });
        }
    }
    named
}

/// The words of path characters in `line` that start a word (not preceded by a path
/// character, `~` or `/`), each with the character after it.
fn path_words(line: &str) -> Vec<(&str, Option<char>)> {
    let is_path = |c: char| c.is_ascii_alphanumeric() || "_./-+".contains(c);
    let mut words = Vec::new();
    let mut previous: Option<char> = None;
    let mut at = 0;
    while let Some(c) = line[at..].chars().next() {
        let starts = is_path(c) && !previous.is_some_and(|p| is_path(p) || p == '~');
        if !starts {
            previous = Some(c);
            at += c.len_utf8();
            continue;
        }
        let end = line[at..]
            .find(|c: char| !is_path(c))
            .map_or(line.len(), |n| at + n);
        words.push((&line[at..end], line[end..].chars().next()));
        previous = line[..end].chars().next_back();
        at = end;
    }
    words
}

fn src_folders() -> Vec<String> {
    std::fs::read_dir(Path::new(ROOT).join("src"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn the_path_rule_takes_repository_paths_and_leaves_the_users_files() {
    let src = src_folders();
    let text = "Run `scripts/test` and .ci/run; see docs/design.md. `./out/values-pl/strings.xml`,\n\
                `hello.txt`, data/objects, target/x, ~/src/a, https://x.example/src/b,\n\
                `console/session.rs` `widgets/ahead.rs` fuzz/artifacts/<target>/ docs/*.md\n\
                ![shot](console-overview.png) [a](#top) [b](https://x.example) [c](../README.md#more)";
    let named: Vec<_> = repository_paths(text, "docs/x.md", &src)
        .into_iter()
        .map(|n| (n.line, n.path, n.resolved))
        .collect();
    let expected = [
        (1, "scripts/test", "scripts/test"),
        (1, ".ci/run", ".ci/run"),
        (1, "docs/design.md", "docs/design.md"),
        (3, "console/session.rs", "src/console/session.rs"),
        (3, "fuzz/artifacts/", "fuzz/artifacts/"),
        (3, "docs/", "docs/"),
        (4, "console-overview.png", "docs/console-overview.png"),
        (4, "../README.md", "docs/../README.md"),
    ]
    .map(|(line, path, resolved)| (line, path.to_owned(), PathBuf::from(resolved)));
    assert_eq!(named, expected);
}

#[test]
fn every_repository_path_in_the_readme_and_docs_exists() {
    let root = Path::new(ROOT);
    for folder in REPOSITORY_FOLDERS {
        assert!(
            root.join(folder).is_dir(),
            "{folder}/ is gone: take it out of REPOSITORY_FOLDERS"
        );
    }
    let mut documents = vec!["README.md".to_owned()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    documents.extend(docs);
    let src = src_folders();
    let mut checked = 0;
    let mut missing = Vec::new();
    for document in &documents {
        let text = std::fs::read_to_string(root.join(document)).unwrap();
        for named in repository_paths(&text, document, &src) {
            checked += 1;
            if !root.join(&named.resolved).exists() {
                missing.push(format!(
                    "{document} line {}: {} (no {} in the repository)",
                    named.line,
                    named.path,
                    named.resolved.display()
                ));
            }
        }
    }
    // The documents name far more than this; fewer means the rule stopped reading them.
    assert!(checked > 100, "only {checked} paths found in {documents:?}");
    assert!(
        missing.is_empty(),
        "paths named in the documents that do not exist:\n{}",
        missing.join("\n")
    );
}
