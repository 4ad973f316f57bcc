//! Patching an existing String Catalog (SPEC §12.1): each key the sheet has gets its
//! localizations' new string units in place; a localization's substitutions (the sheet
//! holds its text with the `%#@name@` references, not the substitutions' variants) and a
//! localization with device variations (which the sheet cannot hold) stay the app's, as do
//! `extractionState`, the keys the sheet lacks and every other member.

use crate::formats::keeping::Keep;
use crate::formats::shared::json_spans::{JsonKeep, Object, Role};

/// How xcstrings files are patched.
pub(crate) const KEEP: Keep = Keep::Json(JsonKeep {
    rules,
    same: None,
    restyle: None,
    orders: &[super::xcode_order::compare],
});

fn rules(path: &[&str], object: Option<&Object>, _: &[u8]) -> Role {
    match path {
        ["strings"] => Role::Level,
        ["strings", _] => Role::Entry,
        ["strings", _, "extractionState"] => Role::Existing,
        ["strings", _, "localizations", _] if object.is_some_and(by_device) => Role::Existing,
        ["strings", _, "localizations", _, "substitutions"] => Role::Existing,
        _ => Role::Meta,
    }
}

/// A localization with device variations.
fn by_device(localization: &Object) -> bool {
    localization.members.iter().any(|m| {
        m.key == "variations"
            && (m.object.iter())
                .flat_map(|o| &o.members)
                .any(|v| v.key == "device")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn string_units_change_and_substitutions_and_device_variations_stay() {
        let app = r#"{
  "sourceLanguage" : "en",
  "strings" : {
    "a" : {
      "extractionState" : "stale",
      "localizations" : {
        "en" : { "stringUnit" : { "state" : "translated", "value" : "A" } },
        "de" : { "stringUnit" : { "state" : "translated", "value" : "%#@n@" }, "substitutions" : { "n" : {} } }
      }
    },
    "platform" : {
      "localizations" : {
        "en" : { "variations" : { "device" : { "iphone" : { "stringUnit" : { "state" : "translated", "value" : "iPhone" } } } } }
      }
    }
  },
  "version" : "1.0"
}"#;
        let fresh = r#"{
  "sourceLanguage" : "en",
  "strings" : {
    "a" : {
      "extractionState" : "manual",
      "localizations" : {
        "de" : { "stringUnit" : { "state" : "translated", "value" : "changed" } },
        "en" : { "stringUnit" : { "state" : "translated", "value" : "A2" } }
      }
    },
    "platform" : {
      "extractionState" : "manual",
      "localizations" : {
        "en" : { "stringUnit" : { "state" : "translated", "value" : "Phone" } }
      }
    }
  },
  "version" : "1.0"
}"#;
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        let want = app
            .replace("\"value\" : \"A\"", "\"value\" : \"A2\"")
            .replace("\"value\" : \"%#@n@\"", "\"value\" : \"changed\"");
        let body = String::from_utf8(p.body).unwrap();
        assert_eq!(body, want);
        assert_eq!((p.counts.changed, p.counts.added, p.counts.kept), (1, 0, 0));
    }
}
