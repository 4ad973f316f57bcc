//! Test-only readers for the formats apps ship today (SPEC §11), each modelled on its
//! consumer, never on depot's writers: Xcode's String Catalog layout (NSJSONSerialization
//! pretty printing with sorted keys, as swift-corelibs-foundation `JSONSerialization.swift`
//! writes it), ICU MessageFormat as formatjs reads it, Flutter gen-l10n's message lexer
//! (flutter_tools `lib/src/localizations/message_parser.dart`, `use-escaping: true`) and
//! i18next's interpolation pattern (`{{(.+?)}}`, i18next `Interpolator`).
//!
//! Shared by the unit tests of `src/translations/formats` and the tests in `tests/`; it
//! needs `ordered_json` beside it.
#![allow(
    dead_code,
    reason = "each test crate uses only some of the shared helpers"
)]

use std::cmp::Ordering;

use super::ordered_json::Json;

/// A piece of a message as its consumer reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    Text(String),
    /// A placeholder, by name.
    Arg(String),
}

/// A whole message: plain, or a plural of `arg` with each category's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Message {
    Plain(Vec<Part>),
    Plural {
        arg: String,
        forms: Vec<(String, Vec<Part>)>,
    },
}

fn push_text(parts: &mut Vec<Part>, s: &str) {
    if s.is_empty() {
        return;
    }
    if let Some(Part::Text(last)) = parts.last_mut() {
        last.push_str(s);
    } else {
        parts.push(Part::Text(s.to_owned()));
    }
}

// ---------------------------------------------------------------- String Catalog (Xcode)

/// One language's content of a catalog string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum XcValue {
    Text(String),
    /// (category, text) in the file's order.
    Plural(Vec<(String, String)>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct XcString {
    pub(super) name: String,
    pub(super) comment: Option<String>,
    pub(super) localizations: Vec<(String, XcValue)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Catalog {
    pub(super) source_language: String,
    pub(super) strings: Vec<XcString>,
}

/// Reads a `.xcstrings` body the way Xcode would leave it: the body must be exactly what
/// NSJSONSerialization writes for its own content (so Xcode rewrites nothing), every
/// object's keys in Xcode's order, and the String Catalog schema (version 1.0, strings of
/// `comment`, `extractionState`, `localizations`; a language's `stringUnit` or
/// `variations.plural`).
pub(super) fn read_xcstrings(body: &str) -> Result<Catalog, String> {
    let root = check_xcode_layout(body)?;
    let top = map(&root, "the catalog")?;
    let keys: Vec<&str> = top.iter().map(|(k, _)| k.as_str()).collect();
    if keys != ["sourceLanguage", "strings", "version"] {
        return Err(format!("top-level keys {keys:?}"));
    }
    if text(&top[2].1, "version")? != "1.0" {
        return Err("version is not 1.0".into());
    }
    let mut strings = Vec::new();
    for (name, string) in map(&top[1].1, "strings")? {
        let mut read = XcString {
            name: name.clone(),
            comment: None,
            localizations: Vec::new(),
        };
        for (key, value) in map(string, name)? {
            match key.as_str() {
                "comment" => read.comment = Some(text(value, "comment")?.to_owned()),
                "extractionState" => {
                    let state = text(value, "extractionState")?;
                    if state != "manual" {
                        return Err(format!("{name}: extractionState {state}"));
                    }
                }
                "localizations" => {
                    for (language, content) in map(value, "localizations")? {
                        read.localizations
                            .push((language.clone(), xc_value(content, name)?));
                    }
                }
                other => return Err(format!("{name}: unexpected key {other}")),
            }
        }
        strings.push(read);
    }
    Ok(Catalog {
        source_language: text(&top[0].1, "sourceLanguage")?.to_owned(),
        strings,
    })
}

/// Checks that `body` is laid out exactly as Xcode writes a catalog: what
/// NSJSONSerialization prints for its content (so Xcode rewrites nothing), every
/// object's keys in Xcode's order. Returns the content.
pub(super) fn check_xcode_layout(body: &str) -> Result<Json, String> {
    let root: Json = serde_json::from_str(body).map_err(|e| format!("not JSON: {e}"))?;
    let mut canonical = String::new();
    xcode_json(&root, 0, &mut canonical);
    if canonical != body {
        let at = (canonical.char_indices().zip(body.chars()))
            .find(|((_, a), b)| a != b)
            .map_or(canonical.len().min(body.len()), |((at, _), _)| at);
        let from = |s: &str| {
            s.get(at..)
                .unwrap_or_default()
                .chars()
                .take(40)
                .collect::<String>()
        };
        return Err(format!(
            "not laid out as Xcode writes it, from byte {at}: Xcode writes {:?}, the body has {:?}",
            from(&canonical),
            from(body)
        ));
    }
    check_xcode_order(&root)?;
    Ok(root)
}

fn xc_value(content: &Json, name: &str) -> Result<XcValue, String> {
    let entries = map(content, name)?;
    match entries.as_slice() {
        [(k, unit)] if k == "stringUnit" => Ok(XcValue::Text(string_unit(unit, name)?)),
        [(k, variations)] if k == "variations" => {
            let [(p, plural)] = map(variations, name)?.as_slice() else {
                return Err(format!("{name}: variations other than plural"));
            };
            if p != "plural" {
                return Err(format!("{name}: variations by {p}"));
            }
            let mut forms = Vec::new();
            for (category, form) in map(plural, name)? {
                if !["zero", "one", "two", "few", "many", "other"].contains(&category.as_str()) {
                    return Err(format!("{name}: plural category {category}"));
                }
                let [(k, unit)] = map(form, name)?.as_slice() else {
                    return Err(format!("{name}: a plural form of more than a stringUnit"));
                };
                if k != "stringUnit" {
                    return Err(format!("{name}: {k} in a plural form"));
                }
                forms.push((category.clone(), string_unit(unit, name)?));
            }
            Ok(XcValue::Plural(forms))
        }
        _ => Err(format!("{name}: a localization of {content:?}")),
    }
}

fn string_unit(unit: &Json, name: &str) -> Result<String, String> {
    let fields = map(unit, name)?;
    let keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
    if keys != ["state", "value"] || text(&fields[0].1, "state")? != "translated" {
        return Err(format!("{name}: stringUnit {unit:?}"));
    }
    Ok(text(&fields[1].1, "value")?.to_owned())
}

fn map<'j>(json: &'j Json, what: &str) -> Result<&'j Vec<(String, Json)>, String> {
    match json {
        Json::Map(entries) => Ok(entries),
        other => Err(format!("{what} is not an object: {other:?}")),
    }
}

fn text<'j>(json: &'j Json, what: &str) -> Result<&'j str, String> {
    match json {
        Json::Text(t) => Ok(t),
        other => Err(format!("{what} is not a string: {other:?}")),
    }
}

/// NSJSONSerialization's pretty printing (`.prettyPrinted`, `.withoutEscapingSlashes`):
/// two spaces per level, `"key" : value`, `,` then a new line between members, an empty
/// object as `{`, an empty line, `}`, and no new line at the end.
fn xcode_json(json: &Json, indent: usize, out: &mut String) {
    match json {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(&n.to_string()),
        Json::Text(t) => xcode_string(t, out),
        Json::List(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                out.push_str(&" ".repeat(indent + 2));
                xcode_json(item, indent + 2, out);
            }
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            out.push(']');
        }
        Json::Map(entries) => {
            out.push_str("{\n");
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                out.push_str(&" ".repeat(indent + 2));
                xcode_string(key, out);
                out.push_str(" : ");
                xcode_json(value, indent + 2, out);
            }
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            out.push('}');
        }
    }
}

/// JSONWriter.serializeString: `"`, `\`, the five short escapes, other C0 controls as
/// `\u00xx` (lower-case hex); everything else as it is.
fn xcode_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{0}'..='\u{1f}' => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// NSJSONSerialization's `.sortedKeys`: `compare(_:options: [.numeric, .caseInsensitive,
/// .forcedOrdering], locale: .system)`, which is ICU's root collation with numeric
/// ordering, case deciding only when nothing else does.
pub(super) fn xcode_compare(a: &str, b: &str) -> Ordering {
    use icu_collator::options::CollatorOptions;
    use icu_collator::preferences::CollationNumericOrdering;
    use icu_collator::{Collator, CollatorPreferences};
    let mut prefs = CollatorPreferences::default();
    prefs.numeric_ordering = Some(CollationNumericOrdering::True);
    let collator = Collator::try_new(prefs, CollatorOptions::default()).expect("root collator");
    collator.compare(a, b).then_with(|| a.cmp(b))
}

/// Every object's keys strictly in `xcode_compare` order.
pub(super) fn check_xcode_order(json: &Json) -> Result<(), String> {
    match json {
        Json::Map(entries) => {
            for pair in entries.windows(2) {
                if xcode_compare(&pair[0].0, &pair[1].0) != Ordering::Less {
                    return Err(format!(
                        "keys {:?} and {:?} are not in Xcode's order",
                        pair[0].0, pair[1].0
                    ));
                }
            }
            entries.iter().try_for_each(|(_, v)| check_xcode_order(v))
        }
        Json::List(items) => items.iter().try_for_each(check_xcode_order),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------- ARB (Flutter)

#[derive(Debug, Clone, PartialEq)]
pub(super) struct ArbFile {
    pub(super) locale: String,
    /// (id, message as written) in file order.
    pub(super) messages: Vec<(String, String)>,
    /// (id, `@id` object) in file order.
    pub(super) metadata: Vec<(String, Json)>,
}

/// Reads one ARB document as gen-l10n loads it (`AppResourceBundle`): a JSON object whose
/// `@@locale` is a string, messages (keys without `@`) that are strings and valid Dart
/// getter names (`_isValidGetterAndMethodName`), `@id` objects describing them.
pub(super) fn read_arb(json: &Json) -> Result<ArbFile, String> {
    let entries = map(json, "the ARB file")?;
    let Some(("@@locale", locale)) = entries.first().map(|(k, v)| (k.as_str(), v)) else {
        return Err("@@locale is not the first key".into());
    };
    let mut file = ArbFile {
        locale: text(locale, "@@locale")?.to_owned(),
        messages: Vec::new(),
        metadata: Vec::new(),
    };
    let mut seen = std::collections::HashSet::new();
    for (key, value) in &entries[1..] {
        if !seen.insert(key) {
            return Err(format!("{key} appears twice"));
        }
        match key.strip_prefix('@') {
            Some(id) => {
                if !file.messages.iter().any(|(m, _)| m == id) {
                    return Err(format!("@{id} describes no message before it"));
                }
                map(value, key)?;
                file.metadata.push((id.to_owned(), value.clone()));
            }
            None => {
                if !gen_l10n_accepts_id(key) {
                    return Err(format!("{key:?} is not a valid Dart getter name"));
                }
                file.messages
                    .push((key.clone(), text(value, key)?.to_owned()));
            }
        }
    }
    Ok(file)
}

/// flutter_tools `gen_l10n.dart`, `_isValidGetterAndMethodName`.
pub(super) fn gen_l10n_accepts_id(name: &str) -> bool {
    let Some(first) = name.chars().next() else {
        return false;
    };
    first != '_'
        && !first.is_ascii_uppercase()
        && !first.is_ascii_digit()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// What an ARB message says: read as ICU MessageFormat (formatjs, quotes as ICU's
/// DOUBLE_OPTIONAL mode) and by Flutter's gen-l10n lexer; an error when either refuses
/// it or they disagree.
pub(super) fn read_arb_message(message: &str) -> Result<Message, String> {
    let icu = read_icu(message).map_err(|e| format!("ICU: {e} in {message:?}"))?;
    let flutter = read_flutter(message).map_err(|e| format!("Flutter: {e} in {message:?}"))?;
    if icu != flutter {
        return Err(format!(
            "ICU reads {icu:?}, Flutter reads {flutter:?} in {message:?}"
        ));
    }
    Ok(icu)
}

/// ICU MessageFormat as formatjs parses it (`ignoreTag`, as Flutter has no tags): `''` is
/// an apostrophe; an apostrophe right before `{`, `}` (or `#` inside a plural) opens a
/// quoted section up to the next lone apostrophe; `{name}` an argument; `{name, plural,
/// category{…} …}` a plural, where `#` is the number.
pub(super) fn read_icu(message: &str) -> Result<Message, String> {
    let s: Vec<char> = message.chars().collect();
    let mut i = 0;
    // a whole-message plural is what the ARB writer makes of a plural entry
    if let Some(plural) = icu_plural(&s, &mut i)? {
        if i != s.len() {
            return Err("text after the plural".into());
        }
        return Ok(plural);
    }
    i = 0;
    let parts = icu_parts(&s, &mut i, false)?;
    if i != s.len() {
        return Err(format!("unmatched '}}' at {i}"));
    }
    Ok(Message::Plain(parts))
}

fn skip_ws(s: &[char], i: &mut usize) {
    while *i < s.len() && s[*i].is_whitespace() {
        *i += 1;
    }
}

fn ident(s: &[char], i: &mut usize) -> String {
    let start = *i;
    while *i < s.len() && (s[*i].is_alphanumeric() || s[*i] == '_' || s[*i] == '=') {
        *i += 1;
    }
    s[start..*i].iter().collect()
}

/// `{name, plural, …}` at `i`, when the message is one.
fn icu_plural(s: &[char], i: &mut usize) -> Result<Option<Message>, String> {
    if s.first() != Some(&'{') {
        return Ok(None);
    }
    let mut at = 1;
    skip_ws(s, &mut at);
    let arg = ident(s, &mut at);
    skip_ws(s, &mut at);
    if s.get(at) != Some(&',') {
        return Ok(None);
    }
    at += 1;
    skip_ws(s, &mut at);
    if ident(s, &mut at) != "plural" {
        return Ok(None);
    }
    skip_ws(s, &mut at);
    if s.get(at) != Some(&',') {
        return Err("no ',' after plural".into());
    }
    at += 1;
    let mut forms = Vec::new();
    loop {
        skip_ws(s, &mut at);
        match s.get(at) {
            Some('}') => {
                *i = at + 1;
                return Ok(Some(Message::Plural { arg, forms }));
            }
            None => return Err("unclosed plural".into()),
            _ => {}
        }
        let category = ident(s, &mut at);
        skip_ws(s, &mut at);
        if category.is_empty() || s.get(at) != Some(&'{') {
            return Err(format!("bad plural option at {at}"));
        }
        at += 1;
        let mut parts = icu_parts(s, &mut at, true)?;
        if s.get(at) != Some(&'}') {
            return Err("unclosed plural option".into());
        }
        at += 1;
        for part in &mut parts {
            if *part == Part::Arg("#".into()) {
                *part = Part::Arg(arg.clone());
            }
        }
        forms.push((category, parts));
    }
}

/// Literal text and arguments up to an unmatched `}` or the end.
fn icu_parts(s: &[char], i: &mut usize, in_plural: bool) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    while *i < s.len() {
        match s[*i] {
            '\'' => {
                let next = s.get(*i + 1).copied();
                if next == Some('\'') {
                    push_text(&mut parts, "'");
                    *i += 2;
                } else if matches!(next, Some('{' | '}')) || (in_plural && next == Some('#')) {
                    *i += 1;
                    let mut quoted = String::new();
                    while *i < s.len() {
                        if s[*i] == '\'' {
                            if s.get(*i + 1) == Some(&'\'') {
                                quoted.push('\'');
                                *i += 2;
                                continue;
                            }
                            *i += 1;
                            break;
                        }
                        quoted.push(s[*i]);
                        *i += 1;
                    }
                    push_text(&mut parts, &quoted);
                } else {
                    push_text(&mut parts, "'");
                    *i += 1;
                }
            }
            '{' => {
                *i += 1;
                skip_ws(s, i);
                let name = ident(s, i);
                skip_ws(s, i);
                if name.is_empty() || s.get(*i) != Some(&'}') {
                    return Err(format!("bad argument at {i}"));
                }
                *i += 1;
                parts.push(Part::Arg(name));
            }
            '}' => return Ok(parts),
            '#' if in_plural => {
                parts.push(Part::Arg("#".into()));
                *i += 1;
            }
            c => {
                push_text(&mut parts, &c.to_string());
                *i += 1;
            }
        }
    }
    Ok(parts)
}

/// A token of Flutter's lexer.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Open,
    Close,
    Comma,
    Text(String),
    Word(String),
}

/// `Parser.lexIntoTokens` with `useEscaping`, ported: in text, a quoted string
/// `'[^']*'` (`''` is an apostrophe; one that follows an apostrophe keeps its opening
/// one), else a run of `[^{}']+`, else a brace, which switches to syntax; in syntax,
/// whitespace is skipped, `[0-9]+`, `,`, `=`, `:`, `[a-zA-Z0-9|_]+` are tokens, and a
/// brace switches back to text.
fn flutter_lex(message: &str) -> Result<Vec<Token>, String> {
    let s = message.as_bytes();
    let mut tokens = Vec::new();
    let mut in_text = true;
    let mut i = 0;
    while i < s.len() {
        if in_text {
            if s[i] == b'\'' {
                if let Some(len) = s[i + 1..].iter().position(|&b| b == b'\'') {
                    let end = i + 1 + len + 1;
                    let quoted = &message[i..end];
                    let text = if quoted == "''" {
                        "'".to_owned()
                    } else if i > 1 && s[i - 1] == b'\'' {
                        quoted[..quoted.len() - 1].to_owned()
                    } else {
                        quoted[1..quoted.len() - 1].to_owned()
                    };
                    tokens.push(Token::Text(text));
                    i = end;
                    continue;
                }
                return Err(format!("unmatched single quote at {i}"));
            }
            if s[i] == b'{' || s[i] == b'}' {
                tokens.push(if s[i] == b'{' {
                    Token::Open
                } else {
                    Token::Close
                });
                in_text = false;
                i += 1;
                continue;
            }
            let len = s[i..]
                .iter()
                .position(|&b| b == b'{' || b == b'}' || b == b'\'')
                .unwrap_or(s.len() - i);
            tokens.push(Token::Text(message[i..i + len].to_owned()));
            i += len;
        } else {
            let c = s[i];
            if c.is_ascii_whitespace() {
                i += 1;
            } else if c == b',' {
                tokens.push(Token::Comma);
                i += 1;
            } else if c == b'{' || c == b'}' {
                tokens.push(if c == b'{' { Token::Open } else { Token::Close });
                in_text = true;
                i += 1;
            } else if c.is_ascii_alphanumeric() || c == b'|' || c == b'_' || c == b'=' || c == b':'
            {
                let len = s[i..]
                    .iter()
                    .position(|&b| !(b.is_ascii_alphanumeric() || b == b'|' || b == b'_'))
                    .unwrap_or(s.len() - i)
                    .max(1);
                tokens.push(Token::Word(message[i..i + len].to_owned()));
                i += len;
            } else {
                return Err(format!("unexpected character {:?} at {i}", char::from(c)));
            }
        }
    }
    Ok(tokens)
}

/// gen-l10n's reading of a message (the grammar of `message_parser.dart` for
/// placeholders and plurals).
pub(super) fn read_flutter(message: &str) -> Result<Message, String> {
    let tokens = flutter_lex(message)?;
    let mut i = 0;
    if let [
        Token::Open,
        Token::Word(arg),
        Token::Comma,
        Token::Word(kind),
        Token::Comma,
        ..,
    ] = tokens.as_slice()
        && kind == "plural"
    {
        i = 5;
        let mut forms = Vec::new();
        loop {
            match tokens.get(i) {
                Some(Token::Close) if i + 1 == tokens.len() => {
                    return Ok(Message::Plural {
                        arg: arg.clone(),
                        forms,
                    });
                }
                Some(Token::Word(category)) if tokens.get(i + 1) == Some(&Token::Open) => {
                    i += 2;
                    let parts = flutter_parts(&tokens, &mut i)?;
                    if tokens.get(i) != Some(&Token::Close) {
                        return Err("unclosed plural option".into());
                    }
                    i += 1;
                    forms.push((category.clone(), parts));
                }
                other => return Err(format!("bad plural part {other:?}")),
            }
        }
    }
    let parts = flutter_parts(&tokens, &mut i)?;
    if i != tokens.len() {
        return Err(format!("unexpected {:?}", tokens.get(i)));
    }
    Ok(Message::Plain(parts))
}

fn flutter_parts(tokens: &[Token], i: &mut usize) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    loop {
        match tokens.get(*i) {
            Some(Token::Text(t)) => {
                push_text(&mut parts, t);
                *i += 1;
            }
            Some(Token::Open) => match (tokens.get(*i + 1), tokens.get(*i + 2)) {
                (Some(Token::Word(name)), Some(Token::Close)) => {
                    parts.push(Part::Arg(name.clone()));
                    *i += 3;
                }
                other => return Err(format!("not a placeholder: {other:?}")),
            },
            _ => return Ok(parts),
        }
    }
}

// ---------------------------------------------------------------- i18next

/// Reads an i18next resource file: nested objects of strings, no key twice; the leaves
/// `(path, text)` in file order.
pub(super) fn read_i18next(body: &str) -> Result<Vec<(Vec<String>, String)>, String> {
    let root: Json = serde_json::from_str(body).map_err(|e| format!("not JSON: {e}"))?;
    fn walk(
        node: &Json,
        path: &mut Vec<String>,
        out: &mut Vec<(Vec<String>, String)>,
    ) -> Result<(), String> {
        let entries = map(node, &path.join("."))?;
        let mut seen = std::collections::HashSet::new();
        for (key, value) in entries {
            if !seen.insert(key) {
                return Err(format!("{key} appears twice under {path:?}"));
            }
            path.push(key.clone());
            match value {
                Json::Text(t) => out.push((path.clone(), t.clone())),
                other => walk(other, path, out)?,
            }
            path.pop();
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(&root, &mut Vec::new(), &mut out)?;
    Ok(out)
}

/// What i18next makes of a text: `{{…}}` (leftmost first, as short as it can be, not
/// across a line end) is an interpolation of the trimmed name; `$t(…)` would nest another
/// key, which these texts must not do.
pub(super) fn i18next_parts(text: &str) -> Result<Vec<Part>, String> {
    if let Some(at) = text.find("$t(")
        && text[at..].contains(')')
    {
        return Err(format!("i18next nests a key in {text:?}"));
    }
    let mut parts = Vec::new();
    let mut rest = text;
    let mut from = 0;
    while let Some(found) = rest[from..].find("{{") {
        let start = from + found;
        // `.+?` takes at least one character, which may be several bytes long
        let inner_from = (rest[start + 2..].chars().next()).map(|c| start + 2 + c.len_utf8());
        let close = inner_from.and_then(|at| rest[at..].find("}}").map(|end| at + end));
        match close {
            Some(end) if !rest[start + 2..end].contains(['\n', '\r', '\u{2028}', '\u{2029}']) => {
                push_text(&mut parts, &rest[..start]);
                parts.push(Part::Arg(rest[start + 2..end].trim().to_owned()));
                rest = &rest[end + 2..];
                from = 0;
            }
            Some(_) => from = start + 1,
            None => break,
        }
    }
    push_text(&mut parts, rest);
    Ok(parts)
}
