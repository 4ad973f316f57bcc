//! Patching an existing `.arb` file (SPEC §12.1): each message the sheet has gets its new
//! text in place; in its `@id` metadata only the description is the sheet's (placeholders'
//! types and formats stay the app's); metadata of ids the sheet lacks, `@@locale` (never added to a file without one),
//! `@@last_modified` and every other member stay as they are.

use crate::formats::Format;
use crate::formats::keeping::Keep;
use crate::formats::shared::json_spans::{Object, Role};

/// How arb files are patched.
pub(crate) const KEEP: Keep = Keep::Json {
    rules,
    same: Some(Format::Arb),
};

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
}
