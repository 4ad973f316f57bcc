//! Patching an existing `.arb` file (SPEC §12.1): each message the sheet has gets its new
//! text in place; in its `@id` metadata only the description is the sheet's (placeholders'
//! types and formats stay the app's); metadata of ids the sheet lacks, `@@locale` (never
//! added to a file without one), `@@last_modified` and every other member stay as they
//! are. A plural the app wrote with `=0`, `=1`, `=2` keeps those selectors.

use crate::formats::Format;
use crate::formats::json::write::push_json_str;
use crate::formats::keeping::Keep;
use crate::formats::shared::icu::{self, Dialect};
use crate::formats::shared::json_spans::{JsonKeep, Object, Role, without_case};
use std::cmp::Ordering;

/// How arb files are patched.
pub(crate) const KEEP: Keep = Keep::Json(JsonKeep {
    rules,
    same: Some(Format::Arb),
    restyle: Some(exact_selectors),
    orders: &[by_id, by_id_without_case],
});

/// The id a member is about: its own, or the one its `@id` metadata describes.
fn id(key: &str) -> &str {
    key.strip_prefix('@').unwrap_or(key)
}

/// Sorted ids, each id's `@id` metadata after it.
fn by_id(a: &str, b: &str) -> Ordering {
    (id(a).cmp(id(b))).then_with(|| a.starts_with('@').cmp(&b.starts_with('@')))
}

/// Sorted ids without ASCII case, each id's `@id` metadata after it.
fn by_id_without_case(a: &str, b: &str) -> Ordering {
    without_case(id(a), id(b)).then_with(|| a.starts_with('@').cmp(&b.starts_with('@')))
}

/// The sheet's plural message with the app's selectors: gen-l10n reads `=0`, `=1`, `=2` as
/// its `zero`, `one`, `two` cases (the sheet's categories, `icu::Dialect::GenL10n`), so
/// where the app wrote `=1` and no `one`, the sheet's `one` is written `=1` again.
fn exact_selectors(was: &[u8], is: &[u8]) -> Option<Vec<u8>> {
    let was: String = serde_json::from_slice(was).ok()?;
    let is: String = serde_json::from_slice(is).ok()?;
    if !icu::may_be_plural(&was) {
        return None;
    }
    let app: Vec<&str> = (icu::plural_selectors(&was, Dialect::GenL10n)?.into_iter())
        .map(|at| &was[at])
        .collect();
    let mut text = String::with_capacity(is.len());
    let mut cursor = 0;
    for at in icu::plural_selectors(&is, Dialect::GenL10n)? {
        let named = &is[at.clone()];
        let exact = match named {
            "zero" => "=0",
            "one" => "=1",
            "two" => "=2",
            _ => continue,
        };
        if app.contains(&exact) && !app.contains(&named) {
            text.push_str(&is[cursor..at.start]);
            text.push_str(exact);
            cursor = at.end;
        }
    }
    if cursor == 0 {
        return None;
    }
    text.push_str(&is[cursor..]);
    let mut out = Vec::with_capacity(text.len() + 2);
    push_json_str(&mut out, &text);
    Some(out)
}

fn rules(path: &[&str], _: Option<&Object>, _: &[u8]) -> Role {
    match path {
        // `@@locale` and the other file-level members are the app's: gen-l10n takes the
        // locale from the file name when `@@locale` is absent (lichess-org/mobile has none)
        [id] if id.starts_with("@@") => Role::Existing,
        [id] if id.starts_with('@') => Role::Meta,
        [_] => Role::Entry,
        [_, "description"] => Role::Meta,
        _ => Role::Existing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn messages_and_descriptions_change_and_the_apps_metadata_stays() {
        let app = "{\n  \"@@locale\": \"en\",\n  \"@@last_modified\": \"2024\",\n  \"hello\": \"Hello {name}\",\n  \"@hello\": {\n    \"description\": \"old\",\n    \"placeholders\": {\"name\": {\"type\": \"String\", \"example\": \"Bob\"}}\n  },\n  \"only\": \"x\",\n  \"@only\": {}\n}\n";
        let fresh = "{\n  \"@@locale\": \"en\",\n  \"hello\": \"Hi {name}\",\n  \"@hello\": {\n    \"description\": \"new\",\n    \"placeholders\": {\n      \"name\": {}\n    }\n  }\n}";
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        let want = app
            .replace("Hello {name}", "Hi {name}")
            .replace("\"old\"", "\"new\"");
        assert_eq!(String::from_utf8(p.body).unwrap(), want);
        assert_eq!((p.counts.changed, p.counts.added, p.counts.kept), (1, 0, 1));
    }

    /// A file without `@@locale` stays without it: generate appended one to every file of
    /// an app that had none while its summary said "0 changed, 0 added".
    #[test]
    fn a_file_without_locale_gets_none() {
        let app = "{\n  \"hello\": \"Hello\"\n}\n";
        let fresh = "{\n  \"@@locale\": \"en\",\n  \"hello\": \"Hello\"\n}";
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        assert_eq!(String::from_utf8(p.body).unwrap(), app);
        assert_eq!((p.counts.changed, p.counts.added, p.counts.kept), (0, 0, 0));
    }

    #[test]
    fn a_new_message_of_a_sorted_file_goes_in_its_place_with_its_metadata() {
        let app = "{\n  \"@@locale\": \"en\",\n  \"apple\": \"Apple\",\n  \"@apple\": {},\n  \"cherry\": \"Cherry\"\n}\n";
        let fresh = "{\n  \"@@locale\": \"en\",\n  \"apple\": \"Apple\",\n  \"cherry\": \"Cherry\",\n  \"banana\": \"banana {n}\",\n  \"@banana\": {\n    \"placeholders\": {}\n  }\n}";
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        // banana between apple's metadata and cherry
        let want = app.replace(
            "  \"cherry\"",
            "  \"banana\": \"banana {n}\",\n  \"@banana\": {\n    \"placeholders\": {}\n  },\n  \"cherry\"",
        );
        assert_eq!(String::from_utf8(p.body).unwrap(), want);
        assert_eq!(p.counts.added, 1);
    }

    #[test]
    fn a_plural_keeps_the_apps_exact_selectors() {
        let app = r#"{
  "files": "{count, plural, =0{No files} =1{One file} other{{count} files}}",
  "both": "{count, plural, =1{1 thing} one{{count} thing} other{{count} things}}",
  "same": "{count, plural, =1{One} other{Many}}"
}"#;
        let fresh = r#"{
  "files": "{count, plural, zero{No files} one{A file} other{{count} files}}",
  "both": "{count, plural, one{{count} item} other{{count} things}}",
  "same": "{count, plural, one{One} other{Many}}"
}"#;
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        let want = app
            .replace("=1{One file}", "=1{A file}")
            .replace("=1{1 thing} one{{count} thing}", "one{{count} item}");
        assert_eq!(String::from_utf8(p.body).unwrap(), want);
        assert_eq!(p.counts.changed, 2);
    }
}
