//! A spreadsheet of several tabs → one document (SPEC §14). Each tab is converted by the
//! sheet rules of one sheet (`sheet.rs`, checks included); the tabs are then merged into
//! one namespaced document: a tab is a namespace, the first level of its keys' paths,
//! listed in `Document::namespaces` in tab order, and each warning and finding names its
//! cell in its tab (`common!B9`). A tab without a header row (`>>>`) is not translations
//! (a README or notes tab): it is skipped with a warning naming it. With a single tab of
//! translations the document is that tab's, unnamespaced, as a one-tab sheet always was.

use crate::formats::{android_name_hash, name_clashes};
use crate::markup::{self, KEY_MARK, SheetError};
use crate::model::locale::same_locale;
use crate::model::{Document, Entry, Warning};
use crate::sheets::tabs::Tab;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TabsError {
    #[error("tab '{tab}': {error}")]
    Sheet { tab: String, error: SheetError },
    #[error(
        "no tab of the spreadsheet has a header row (a cell holding '>>>'); tabs read: {}",
        .tabs.join(", ")
    )]
    NoHeader { tabs: Vec<String> },
}

/// The tabs that hold translations, and the warnings of those left out.
pub struct Split {
    pub translations: Vec<Tab>,
    pub skipped: Vec<Warning>,
}

/// Sorts the tabs: those with a header row hold translations; the others, and those
/// whose name cannot be a namespace, are left out with a warning naming them.
pub fn split(tabs: Vec<Tab>) -> Split {
    let mut translations: Vec<Tab> = Vec::new();
    let mut skipped = Vec::new();
    for tab in tabs {
        let has_header = (tab.rows.iter().flatten()).any(|cell| cell.trim() == KEY_MARK);
        let why = if !has_header {
            Some(format!(
                "tab '{}' has no header row (no cell holds '>>>'): it is not read as \
                 translations",
                tab.name
            ))
        } else if tab.name.contains('.') {
            Some(format!(
                "tab '{}' is not read: its name would be a namespace, and a namespace may \
                 not contain '.' (filters and key paths are dotted); rename the tab",
                tab.name
            ))
        } else if translations.iter().any(|t| t.name == tab.name) {
            Some(format!(
                "tab '{}' is not read: an earlier tab has the same name",
                tab.name
            ))
        } else {
            None
        };
        match why {
            Some(message) => skipped.push(Warning {
                cell: format!("{}!A1", tab.name),
                row: 1,
                message,
            }),
            None => translations.push(tab),
        }
    }
    Split {
        translations,
        skipped,
    }
}

/// Characters that i18next-http-backend, i18next-locize-backend or Tolgee refuse in the
/// namespace of a URL they request.
fn unfit_for_urls(name: &str) -> Option<char> {
    name.chars().find(|c| {
        c.is_whitespace()
            || c.is_control()
            || matches!(
                c,
                '/' | '\\' | '?' | '#' | '%' | ':' | '&' | '=' | ';' | '@'
            )
    })
}

/// Converts each tab and merges them, in tab order, into one namespaced document.
pub fn merge(tabs: Vec<Tab>, skipped: Vec<Warning>) -> Result<Document, TabsError> {
    let mut merged = Document {
        warnings: skipped,
        ..Document::default()
    };
    // the key cell of each merged entry, for the findings across tabs
    let mut key_cells: Vec<String> = Vec::new();
    for tab in tabs {
        let (doc, cells) =
            markup::convert_with_key_cells(tab.rows).map_err(|error| TabsError::Sheet {
                tab: tab.name.clone(),
                error,
            })?;
        if let Some(c) = unfit_for_urls(&tab.name) {
            merged.warnings.push(Warning {
                cell: format!("{}!A1", tab.name),
                row: 1,
                message: format!(
                    "tab '{}' is the namespace of its keys, and its name holds {c:?}, which \
                     i18next, locize and Tolgee clients refuse in a URL: apps cannot load it \
                     from depot's SDK endpoints; rename the tab",
                    tab.name
                ),
            });
        }
        // each locale of the tab, as a column of the merged document
        let columns: Vec<usize> = (doc.locales.iter())
            .map(
                |locale| match merged.locales.iter().position(|l| same_locale(l, locale)) {
                    Some(at) => at,
                    None => {
                        merged.locales.push(locale.clone());
                        merged.locales.len() - 1
                    }
                },
            )
            .collect();
        let in_tab = |w: Warning| Warning {
            cell: format!("{}!{}", tab.name, w.cell),
            ..w
        };
        // one syntax for the whole document: the first tab's settings cell, a tab that
        // names another is told so
        if merged.namespaces.is_empty() {
            merged.settings = doc.settings;
        } else if doc.settings != merged.settings {
            merged.warnings.push(Warning {
                cell: format!("{}!A1", tab.name),
                row: 1,
                message: format!(
                    "tab '{}' says another placeholder syntax than the first tab ({}): the \
                     first tab's is followed for every tab",
                    tab.name,
                    merged.settings.syntax().name()
                ),
            });
        }
        merged.warnings.extend(doc.warnings.into_iter().map(in_tab));
        merged.findings.extend(doc.findings.into_iter().map(in_tab));
        key_cells.extend(cells.into_iter().map(|c| format!("{}!{c}", tab.name)));
        for entry in doc.entries {
            let mut path = Vec::with_capacity(entry.path.len() + 1);
            path.push(tab.name.clone());
            path.extend(entry.path);
            let mut plural = entry.plural;
            if let Some(plural) = plural.as_deref_mut() {
                for form in &mut plural.forms {
                    form.texts = remap(std::mem::take(&mut form.texts), &columns);
                }
            }
            merged.entries.push(Entry {
                path,
                texts: remap(entry.texts, &columns),
                plural,
                ..entry
            });
        }
        merged.namespaces.push(tab.name);
    }
    // Texts slots of the locales later tabs brought.
    let width = merged.locales.len();
    for entry in &mut merged.entries {
        entry.texts.resize(width, None);
        for form in entry.plural.iter_mut().flat_map(|p| p.forms.iter_mut()) {
            form.texts.resize(width, None);
        }
    }
    let across = clashes_across_tabs(&merged, &key_cells);
    merged.findings.extend(across);
    Ok(merged)
}

/// `texts` of a tab's locale columns placed at their merged columns.
fn remap(texts: Vec<Option<String>>, columns: &[usize]) -> Vec<Option<String>> {
    let width = columns.iter().max().map_or(0, |m| m + 1);
    let mut out = vec![None; width];
    for (text, &column) in texts.into_iter().zip(columns) {
        out[column] = text;
    }
    out
}

/// Flat names that keys of different tabs both become (the checks of each tab found those
/// within it): a finding at the later key's cell, in the words of the checks.
fn clashes_across_tabs(doc: &Document, key_cells: &[String]) -> Vec<Warning> {
    let mut scratch = String::new();
    let hashes: Vec<u64> = (doc.entries.iter())
        .map(|e| android_name_hash(&e.path, &mut scratch))
        .collect();
    let namespace = |e: usize| doc.entries[e].path[0].as_str();
    name_clashes(doc, |e| hashes[e])
        .into_iter()
        .filter(|&(_, kept, lost, _)| namespace(kept) != namespace(lost))
        .map(|(formats, kept, lost, name)| {
            let cell = key_cells.get(lost).cloned().unwrap_or_default();
            let message = format!(
                "{:?} and {:?} ({}) both become the name {name:?} in {formats}: those formats \
                 keep the first and leave this one out; rename one of them",
                doc.entries[lost].path.join("."),
                doc.entries[kept].path.join("."),
                key_cells.get(kept).map_or("", String::as_str),
            );
            let row = cell
                .rsplit(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|digits| digits.parse().ok())
                .unwrap_or(0);
            Warning { cell, row, message }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(name: &str, text: &str) -> Tab {
        Tab {
            name: name.to_owned(),
            rows: text
                .lines()
                .map(|line| line.split(',').map(str::to_owned).collect())
                .collect(),
            gid: None,
        }
    }

    #[test]
    fn tabs_without_a_header_or_with_a_dotted_name_are_skipped_with_a_warning() {
        let Split {
            translations,
            skipped,
        } = split(vec![
            tab("README", "How to edit this sheet\n"),
            tab("common", ">>>,en\nYES,Yes\n"),
            tab("v1.2", ">>>,en\nA,a\n"),
            tab("common", ">>>,en\nB,b\n"),
        ]);
        assert_eq!(translations.len(), 1);
        let cells: Vec<&str> = skipped.iter().map(|w| w.cell.as_str()).collect();
        assert_eq!(cells, ["README!A1", "v1.2!A1", "common!A1"]);
        assert!(
            skipped[0]
                .message
                .starts_with("tab 'README' has no header row")
        );
    }

    #[test]
    fn tabs_merge_into_namespaces_with_their_cells_and_the_union_of_locales() {
        let doc = merge(
            vec![
                tab("common", ">>>,en,de\nYES,Yes,Ja\nNO,No,\n"),
                // another column order, a locale spelled otherwise, one more locale
                tab("home", ">>>,pl,DE,en\nTITLE,Dom,Start,Home\n,,\nX.Y,a,,\n"),
                tab("empty", ">>>,en\n"),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(doc.namespaces, ["common", "home", "empty"]);
        assert_eq!(doc.locales, ["en", "de", "pl"]);
        let home = &doc.entries[2];
        assert_eq!(home.path, ["home", "TITLE"]);
        assert_eq!(
            home.texts,
            [
                Some("Home".into()),
                Some("Start".into()),
                Some("Dom".into())
            ]
        );
        assert_eq!(doc.entries[1].texts, [Some("No".into()), None, None]);
        // a key refused (its dot) is a warning of its tab
        assert!(doc.warnings.iter().any(|w| w.cell.starts_with("home!")));
        // the namespace of a tab is its own document again
        let common = doc.namespace("common").unwrap();
        let paths: Vec<String> = common.entries.iter().map(|e| e.path.join(".")).collect();
        assert_eq!(paths, ["YES", "NO"]);
        assert!(doc.namespace("empty").unwrap().entries.is_empty());
    }

    #[test]
    fn findings_name_their_tab_and_names_that_meet_across_tabs_are_found() {
        let doc = merge(
            vec![
                tab("a", ">>>,>>>,en\nB_C,,x\nITEMS,,{count} item\n"),
                tab("a_b", ">>>,en\nC,y\n"),
            ],
            vec![],
        )
        .unwrap();
        let across = doc
            .findings
            .iter()
            .find(|f| f.message.contains("both become the name"))
            .unwrap_or_else(|| panic!("{:?}", doc.findings));
        assert_eq!(across.cell, "a_b!A2");
        assert_eq!(across.row, 2);
        assert!(
            across.message.contains("\"a.B_C\" (a!A2)"),
            "{}",
            across.message
        );
    }

    #[test]
    fn a_broken_tab_is_an_error_naming_it_and_names_unfit_for_urls_warn() {
        let err = merge(vec![tab("x", ">>>,.bad\nA,a\n")], vec![]).unwrap_err();
        assert!(
            err.to_string().starts_with("tab 'x': the header row"),
            "{err}"
        );
        let doc = merge(vec![tab("Sign up", ">>>,en\nA,a\n")], vec![]).unwrap();
        assert!(
            doc.warnings[0].message.contains("' '"),
            "{:?}",
            doc.warnings
        );
    }
}
