//! Patching an existing String Catalog (SPEC §12.1): each key the sheet has gets its
//! localizations' new string units in place; a localization's substitutions (the sheet
//! holds its text with the `%#@name@` references, not the substitutions' variants) and a
//! localization with device variations (which the sheet cannot hold) stay the app's, as do
//! `extractionState`, the keys the sheet lacks and every other member; a source text that is its key is not
//! added, and a string unit whose text stays keeps its state.

use crate::formats::keeping::Keep;
use crate::formats::shared::json_spans::{JsonKeep, Object, Role};

/// How xcstrings files are patched.
pub(crate) const KEEP: Keep = Keep::Json(JsonKeep {
    rules,
    same: None,
    restyle: None,
    orders: &[super::xcode_order::compare],
});

fn rules(path: &[&str], object: Option<&Object>, bytes: &[u8]) -> Role {
    match path {
        ["strings"] => Role::Level,
        // the catalog's format version (Xcode 16 writes 1.1) and source language are Xcode's
        ["version" | "sourceLanguage"] => Role::Existing,
        ["strings", _] => Role::Entry,
        ["strings", _, "extractionState"] => Role::Existing,
        ["strings", _, "localizations", _] if object.is_some_and(by_device) => Role::Existing,
        ["strings", _, "localizations", _, "substitutions"] => Role::Existing,
        // Xcode leaves out the source language's localization while the text is the key:
        // the sheet's copy of it is not added (NetNewsWire's catalog has 390 such keys)
        ["strings", key, "localizations"]
            if object.is_some_and(|o| only_the_key_in_the_source(o, key, bytes)) =>
        {
            Role::Implied
        }
        ["strings", key, "localizations", locale]
            if object.is_some_and(|o| source_is(locale, bytes) && says(o, key, bytes)) =>
        {
            Role::Implied
        }
        // the app's review state (`new`, `needs_review`) stays while the text does
        ["strings", _, "localizations", _, "stringUnit"] => Role::Unit,
        _ => Role::Meta,
    }
}

/// Localizations that hold the source language's string unit alone, and it says `key`.
fn only_the_key_in_the_source(localizations: &Object, key: &str, bytes: &[u8]) -> bool {
    match localizations.members.as_slice() {
        [one] => {
            source_is(&one.key, bytes) && one.object.as_ref().is_some_and(|o| says(o, key, bytes))
        }
        _ => false,
    }
}

/// Whether a localization is a plain string unit whose value is `text`.
fn says(localization: &Object, text: &str, bytes: &[u8]) -> bool {
    let [unit] = localization.members.as_slice() else {
        return false;
    };
    let value = (unit.key == "stringUnit")
        .then_some(unit.object.as_ref())
        .flatten()
        .and_then(|u| u.members.iter().find(|m| m.key == "value"));
    value.is_some_and(|v| {
        serde_json::from_slice::<String>(&bytes[v.value.clone()]).is_ok_and(|v| v == text)
    })
}

/// Whether the catalog's `sourceLanguage` is `locale` (Xcode and depot write it first).
fn source_is(locale: &str, bytes: &[u8]) -> bool {
    const MEMBER: &[u8] = b"\"sourceLanguage\"";
    let head = &bytes[..bytes.len().min(4096)];
    let Some(at) = memchr::memmem::find(head, MEMBER) else {
        return false;
    };
    let rest = &head[at + MEMBER.len()..];
    let rest = rest.trim_ascii_start().strip_prefix(b":").unwrap_or(rest);
    let rest = rest.trim_ascii_start();
    rest.strip_prefix(b"\"")
        .and_then(|r| r.strip_prefix(locale.as_bytes()))
        .is_some_and(|r| r.first() == Some(&b'"'))
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

    /// NetNewsWire's catalog: keys whose source text is the key have no `en`
    /// localization, and `en` units in state `new`. generate added an `en` unit to all
    /// 390 keys and set every state to `translated` ("390 changed").
    #[test]
    fn a_source_text_that_is_the_key_is_not_added_and_states_stay_with_their_texts() {
        let app = r#"{
  "sourceLanguage" : "en",
  "strings" : {
    "(No Text)" : {
      "comment" : "No Text"
    },
    "%@ of %@" : {
      "localizations" : {
        "en" : { "stringUnit" : { "state" : "new", "value" : "%1$@ of %2$@" } },
        "de" : { "stringUnit" : { "state" : "needs_review", "value" : "%1$@ von %2$@" } }
      }
    },
    "Done" : {
      "localizations" : {
        "en" : { "stringUnit" : { "state" : "new", "value" : "Done" } }
      }
    }
  },
  "version" : "1.1"
}"#;
        let fresh = r#"{
  "sourceLanguage" : "en",
  "strings" : {
    "(No Text)" : {
      "comment" : "No Text",
      "localizations" : {
        "en" : { "stringUnit" : { "state" : "translated", "value" : "(No Text)" } }
      }
    },
    "%@ of %@" : {
      "localizations" : {
        "en" : { "stringUnit" : { "state" : "translated", "value" : "%1$@ of %2$@" } },
        "de" : { "stringUnit" : { "state" : "translated", "value" : "%1$@ aus %2$@" } }
      }
    },
    "Done" : {
      "localizations" : {
        "en" : { "stringUnit" : { "state" : "translated", "value" : "Finished" } },
        "fr" : { "stringUnit" : { "state" : "translated", "value" : "Fini" } }
      }
    }
  },
  "version" : "1.0"
}"#;
        let p = KEEP
            .patch(app.as_bytes(), fresh.as_bytes(), &HashSet::new())
            .unwrap();
        let want = app
            .replace(
                r#""state" : "needs_review", "value" : "%1$@ von %2$@""#,
                r#""state" : "translated", "value" : "%1$@ aus %2$@""#,
            )
            .replace(
                r#""state" : "new", "value" : "Done" } }"#,
                // a localization gained is laid out as the file lays out its members
                "\"state\" : \"translated\", \"value\" : \"Finished\" } },\n        \"fr\" : {\n          \"stringUnit\" : {\n            \"state\" : \"translated\",\n            \"value\" : \"Fini\"\n          }\n        }",
            );
        assert_eq!(String::from_utf8(p.body).unwrap(), want);
        assert_eq!((p.counts.changed, p.counts.added, p.counts.kept), (2, 0, 0));
    }
}
