//! The map of the code cannot drift: the Layout of docs/design.md names every file under
//! `src/`, and names no file that is gone. A failure says which line to add (or remove) and
//! exactly where, so whoever adds a file fixes the map in a minute.
#![cfg(test)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const DESIGN: &str = "docs/design.md";
/// A line of the Layout indented this much or more continues the description above it.
const CONTINUATION_INDENT: usize = 20;

/// One file or folder line of the map.
#[derive(Debug, Clone)]
struct Line {
    /// `src/...`; a folder ends with `/`.
    path: String,
    /// 1-based line number in the design page.
    number: usize,
    /// The last line of its description (continuation lines included).
    last: usize,
}

/// The file and folder lines of the `src/` tree in the first code block after `## Layout`.
fn map_of(design: &str) -> Result<Vec<Line>, String> {
    let start = design
        .lines()
        .position(|l| l.trim() == "## Layout")
        .ok_or("docs/design.md has no `## Layout` heading")?;
    let mut lines = design.lines().enumerate().skip(start + 1);
    lines
        .by_ref()
        .find(|(_, l)| l.starts_with("```"))
        .ok_or("the Layout of docs/design.md has no code block")?;
    let mut map: Vec<Line> = Vec::new();
    // Folder names from `src` down to the folder of the line being read.
    let mut folders: Vec<String> = Vec::new();
    let mut in_src = false;
    for (index, text) in lines {
        let number = index + 1;
        if text.starts_with("```") {
            if map.is_empty() {
                return Err("the Layout of docs/design.md has no `src/` tree".to_owned());
            }
            return Ok(map);
        }
        let indent = text.len() - text.trim_start().len();
        let Some(name) = text.split_whitespace().next() else {
            continue;
        };
        if indent >= CONTINUATION_INDENT {
            if in_src && let Some(line) = map.last_mut() {
                line.last = number;
            }
            continue;
        }
        if indent == 0 {
            in_src = name == "src/";
            folders = vec!["src".to_owned()];
            if in_src {
                map.push(Line {
                    path: "src/".to_owned(),
                    number,
                    last: number,
                });
            }
            continue;
        }
        if !in_src {
            continue;
        }
        let depth = indent / 2;
        if indent % 2 != 0 || depth > folders.len() {
            return Err(format!(
                "{DESIGN} line {number}: `{name}` is indented {indent} spaces; a name goes 2 \
                 spaces deeper than its folder's line"
            ));
        }
        folders.truncate(depth);
        let path = format!("{}/{name}", folders.join("/"));
        if let Some(folder) = name.strip_suffix('/') {
            folders.push(folder.to_owned());
        } else if !name.ends_with(".rs") {
            return Err(format!(
                "{DESIGN} line {number}: `{name}` is neither a file (`name.rs`) nor a folder \
                 (`name/`); a description that goes on indents {CONTINUATION_INDENT} spaces or more"
            ));
        }
        map.push(Line {
            path,
            number,
            last: number,
        });
    }
    Err("the Layout's code block in docs/design.md has no end".to_owned())
}

/// Every `.rs` file below `dir`, as `src/...` paths.
fn files_under(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            files_under(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).expect("below the crate root");
            let parts: Vec<_> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.insert(parts.join("/"));
        }
    }
}

/// The folder a path is in: `src/a/b.rs` → `src/a/`, `src/a/` → `src/`.
fn parent(path: &str) -> &str {
    let trimmed = path.strip_suffix('/').unwrap_or(path);
    trimmed.rfind('/').map_or("", |i| &trimmed[..=i])
}

/// What is wrong between the map and the files, as one message (`Ok` when they agree).
fn check(design: &str, files: &BTreeSet<String>) -> Result<(), String> {
    let map = map_of(design)?;
    let by_path: BTreeMap<&str, &Line> = map.iter().map(|l| (l.path.as_str(), l)).collect();
    let mut problems = Vec::new();
    for line in &map {
        if !line.path.ends_with('/') && !files.contains(&line.path) {
            problems.push(format!(
                "- {DESIGN} line {} names {}, which does not exist: remove the line (or correct \
                 the name)",
                line.number, line.path
            ));
        }
    }
    // Files of a folder the map lacks are reported together, under that folder.
    let mut additions: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for file in files.iter().filter(|f| !by_path.contains_key(f.as_str())) {
        let mut top = file.as_str();
        let mut lines = vec![top];
        while !by_path.contains_key(parent(top)) {
            top = parent(top);
            lines.push(top);
        }
        additions.entry(top).or_default().extend(lines);
    }
    for (top, lines) in additions {
        let folder = parent(top);
        let folder_line = by_path[folder];
        // After the last line of the sibling just before it by name, else after the
        // folder's own line.
        let (after, what) = map
            .iter()
            .filter(|l| parent(&l.path) == folder && l.path.as_str() < top)
            .max_by(|a, b| a.path.cmp(&b.path))
            .map(|sibling| {
                let end = map
                    .iter()
                    .filter(|l| l.path.starts_with(&sibling.path))
                    .map(|l| l.last)
                    .max()
                    .unwrap_or(sibling.last);
                (
                    end,
                    format!("the lines of `{}`", &sibling.path[folder.len()..]),
                )
            })
            .unwrap_or((folder_line.last, format!("the line of `{folder}`")));
        let names: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|p| !p.ends_with('/'))
            .collect();
        let lines: Vec<String> = lines
            .iter()
            .map(|p| {
                let depth = p.trim_end_matches('/').matches('/').count();
                let name = &p[parent(p).len()..];
                let what = if p.ends_with('/') {
                    ""
                } else {
                    "  <what it does>"
                };
                format!("    {}{name}{what}", "  ".repeat(depth))
            })
            .collect();
        problems.push(format!(
            "- {} not on the map: in {DESIGN}, under `{folder}` (line {}), after {what} \
             (line {after}), add\n{}",
            if names.len() == 1 {
                format!("{} is", names[0])
            } else {
                format!("{} are", names.join(", "))
            },
            folder_line.number,
            lines.join("\n")
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the Layout of {DESIGN} and the files under src/ differ (a line is a name indented \
             2 spaces per folder, its description from column 31):\n{}",
            problems.join("\n")
        ))
    }
}

#[test]
fn every_file_under_src_is_on_the_design_map() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let design = std::fs::read_to_string(root.join(DESIGN)).expect("docs/design.md");
    let mut files = BTreeSet::new();
    files_under(root, &root.join("src"), &mut files);
    assert!(files.len() > 100, "found only {} files", files.len());
    if let Err(message) = check(&design, &files) {
        panic!("{message}");
    }
}

/// A new file, a new folder of two files and a line of a removed file are each reported
/// with the lines to add or remove and where.
#[test]
fn a_file_off_the_map_is_named_with_the_line_to_add_and_where() {
    let design = "\
# x

## Layout

```
src/
  lib.rs                      the modules
  files/
    cache.rs                  read cache, valid for one data
                              generation
    store.rs                  the trait
  old.rs                      removed since
config/depot.toml             every key
```
";
    let files: BTreeSet<String> = [
        "src/lib.rs",
        "src/files/cache.rs",
        "src/files/names.rs",
        "src/files/store.rs",
        "src/import/csv.rs",
        "src/import/json.rs",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    let message = check(design, &files).expect_err("the map differs");
    let expected = "\
- docs/design.md line 12 names src/old.rs, which does not exist: remove the line (or correct the name)
- src/files/names.rs is not on the map: in docs/design.md, under `src/files/` (line 8), after the lines of `cache.rs` (line 10), add
        names.rs  <what it does>
- src/import/csv.rs, src/import/json.rs are not on the map: in docs/design.md, under `src/` (line 6), after the lines of `files/` (line 11), add
      import/
        csv.rs  <what it does>
        json.rs  <what it does>";
    assert!(message.ends_with(expected), "{message}");

    let all_there: BTreeSet<String> = ["src/lib.rs", "src/files/cache.rs", "src/files/store.rs"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    let message = check(design, &all_there).expect_err("old.rs is still named");
    assert!(message.contains("line 12 names src/old.rs"), "{message}");
    let fixed = design.replace("  old.rs                      removed since\n", "");
    assert_eq!(check(&fixed, &all_there), Ok(()));
}
