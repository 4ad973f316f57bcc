//! ios `.stringsdict`: each key whose `NSStringLocalizedFormatKey` uses one plural
//! variable (`%#@value@`, an `NSStringPluralRuleType` dictionary) is a plural entry, its
//! forms the categories of that dictionary. Text around the variable in the format key is
//! folded into every form; several variables, or other rule types, are not carried.

use crate::formats::reading::{Key, Reading, SyntaxError, Unit, Value};
use crate::formats::shared::plist::{self, Plist};
use crate::formats::shared::syntax::{self, Printf};
use crate::model::PluralCategory;

pub(crate) fn read(text: &str, r: &mut Reading<'_>) -> Result<(), SyntaxError> {
    let Plist::Dict(entries) = plist::parse(text)? else {
        return Err(SyntaxError::new(1, "the property list is not a dictionary"));
    };
    for entry in entries {
        let (line, key) = (entry.line, entry.key.as_str());
        let Some(format) = entry
            .value
            .get("NSStringLocalizedFormatKey")
            .and_then(Plist::as_str)
        else {
            r.note(
                line,
                key,
                "no NSStringLocalizedFormatKey: not a plural rule, not carried",
            );
            continue;
        };
        let variables = variables(format);
        let [(token, variable)] = variables.as_slice() else {
            r.note(
                line,
                key,
                format!(
                    "the format key {format:?} uses {} variables; the sheet carries one plural",
                    variables.len()
                ),
            );
            continue;
        };
        let Some(rule) = entry.value.get(variable) else {
            r.note(
                line,
                key,
                format!("the variable '{variable}' has no dictionary: not carried"),
            );
            continue;
        };
        if rule
            .get("NSStringFormatSpecTypeKey")
            .and_then(Plist::as_str)
            != Some("NSStringPluralRuleType")
        {
            r.note(
                line,
                key,
                format!("the variable '{variable}' is no NSStringPluralRuleType: not carried"),
            );
            continue;
        }
        let mut losses = Vec::new();
        if format != token {
            losses.push(format!(
                "the text around {token} in the format key is repeated in every form"
            ));
        }
        let mut forms = Vec::new();
        if let Plist::Dict(cases) = rule {
            for case in cases {
                let Some(category) = PluralCategory::from_name(&case.key) else {
                    continue;
                };
                let Some(text) = case.value.as_str() else {
                    continue;
                };
                let folded = format.replacen(token.as_str(), text, 1);
                if folded.is_empty() {
                    continue;
                }
                let mut converted = r.converted(folded, |t| syntax::printf(t, Printf::Apple, true));
                losses.append(&mut converted.losses);
                forms.push((category, converted.text));
            }
        }
        if forms.is_empty() {
            r.note(
                line,
                key,
                "a plural rule without a text for any CLDR category: not carried",
            );
            continue;
        }
        r.push(
            Unit {
                key: Key::Flat(entry.key.clone()),
                value: Value::Plural(forms),
                comment: entry.comment.clone(),
                locale: None,
                line,
            },
            losses,
        );
    }
    Ok(())
}

/// The `%#@name@` tokens of a format key (also positional, `%1$#@name@`), with their names.
fn variables(format: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = format;
    while let Some(at) = rest.find('%') {
        let after = &rest[at + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let body = match after[digits..].strip_prefix('$') {
            Some(b) if digits > 0 => b,
            _ => &after[digits..],
        };
        if let Some(name_on) = body.strip_prefix("#@")
            && let Some(end) = name_on.find('@')
        {
            let token_len = 1 + (after.len() - body.len()) + 2 + end + 1;
            found.push((
                rest[at..at + token_len].to_owned(),
                name_on[..end].to_owned(),
            ));
            rest = &rest[at + token_len..];
        } else {
            rest = after;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Options;

    #[test]
    fn one_variable_plurals_become_entries() {
        let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0">
<dict>
  <!-- files in a folder -->
  <key>app_files</key>
  <dict>
    <key>NSStringLocalizedFormatKey</key>
    <string>%#@value@</string>
    <key>value</key>
    <dict>
      <key>NSStringFormatSpecTypeKey</key>
      <string>NSStringPluralRuleType</string>
      <key>NSStringFormatValueTypeKey</key>
      <string>ld</string>
      <key>one</key>
      <string>%1$ld file in %2$@</string>
      <key>other</key>
      <string>%1$ld files in %2$@</string>
    </dict>
  </dict>
  <key>two</key>
  <dict>
    <key>NSStringLocalizedFormatKey</key>
    <string>%#@a@ and %#@b@</string>
  </dict>
  <key>around</key>
  <dict>
    <key>NSStringLocalizedFormatKey</key>
    <string>Left: %#@n@</string>
    <key>n</key>
    <dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
      <key>one</key><string>%d day</string><key>other</key><string>%d days</string></dict>
  </dict>
</dict>
</plist>
"#;
        let options = Options::default();
        let mut r = Reading::new(&options);
        read(text, &mut r).unwrap();
        assert_eq!(r.units.len(), 2);
        assert_eq!(
            r.units[0].value,
            Value::Plural(vec![
                (PluralCategory::One, "{count} file in {arg2}".into()),
                (PluralCategory::Other, "{count} files in {arg2}".into()),
            ])
        );
        assert_eq!(r.units[0].comment.as_deref(), Some("files in a folder"));
        assert_eq!(
            r.units[1].value,
            Value::Plural(vec![
                (PluralCategory::One, "Left: {count} day".into()),
                (PluralCategory::Other, "Left: {count} days".into()),
            ])
        );
        assert_eq!(r.notes.len(), 2, "{:?}", r.notes);
        assert_eq!(variables("%1$#@x@ %#@y@").len(), 2);
    }
}
