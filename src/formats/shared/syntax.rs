//! Each format's placeholders back to the sheet's syntax (SPEC §9, §12): the inverse of
//! what `generate --placeholders convert` writes.
//!
//! Numbered arguments (printf `%1$s`, `%1$@`, Java `MessageFormat` and .NET `{0}`) become
//! `{argN}`, N being the printf position (`{0}` is `{arg1}`): the sheet's names must be
//! identifiers, and the same argument keeps one name in every format. In a plural form,
//! argument 1 is the quantity, `{count}`. Types follow the conversion: `d`, `i`, `u`, `ld`,
//! `lld` → `{argN:int}`, `f` → `{argN:float}`, others `{argN}`. Named ones keep their names
//! (`{{name}}`, `%{name}`, ICU `{name}` → `{name}`). Literal braces are doubled. What the
//! sheet cannot say (a precision, a width, a date format) is listed as a loss.

use std::fmt::Write as _;

use crate::model::placeholders::COUNT;

/// A text in the sheet's syntax, and what was changed or left out on the way.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Converted {
    pub text: String,
    pub losses: Vec<String>,
}

/// Appends `s` with `{` and `}` doubled (literal braces in the sheet).
pub fn push_literal(out: &mut String, s: &str) {
    let mut rest = s;
    while let Some(at) = memchr::memchr2(b'{', b'}', rest.as_bytes()) {
        // the brace is written twice: once with the text before it, once alone
        out.push_str(&rest[..=at]);
        out.push_str(&rest[at..=at]);
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// `s` as a sheet literal: braces doubled.
pub fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_literal(&mut out, s);
    out
}

/// The sheet name of printf argument `n` (1-based).
pub fn arg_name(n: usize, plural: bool) -> String {
    if plural && n == 1 {
        COUNT.to_owned()
    } else {
        format!("arg{n}")
    }
}

/// A placeholder's declared type in the sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Int,
    Float,
}

pub fn push_placeholder(out: &mut String, name: &str, kind: Kind) {
    let _ = match kind {
        Kind::Text => write!(out, "{{{name}}}"),
        Kind::Int => write!(out, "{{{name}:int}}"),
        Kind::Float => write!(out, "{{{name}:float}}"),
    };
}

/// Whose printf: Java's `Formatter` (android) or Apple's `NSString` (ios, xcstrings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Printf {
    Java,
    Apple,
}

/// One conversion specification of a printf format.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Spec<'t> {
    /// The whole `%…x`.
    raw: &'t str,
    position: Option<usize>,
    /// Flags, width, precision and length together (empty for the plain forms).
    modifiers: &'t str,
    length: &'t str,
    conversion: char,
}

/// Parses a conversion at the start of `s` (just after its `%`).
fn spec(s: &str) -> Option<(Spec<'_>, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        start..*i
    };
    let first = digits(&mut i);
    let mut position = None;
    if !first.is_empty() && b.get(i) == Some(&b'$') {
        position = s[first].parse().ok().filter(|&n| n > 0);
        position?;
        i += 1;
    } else {
        i = first.start;
    }
    let modifiers_start = i;
    while i < b.len() && b"-+0#,(".contains(&b[i]) {
        i += 1;
    }
    digits(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        digits(&mut i);
    }
    let length_start = i;
    for length in ["hh", "ll", "h", "l", "q", "z", "t", "j", "L"] {
        if s[i..].starts_with(length) {
            i += length.len();
            break;
        }
    }
    let length = &s[length_start..i];
    let conversion = s[i..].chars().next()?;
    if !"sS@diuoxXfFeEgGaAcCp".contains(conversion) {
        return None;
    }
    let end = i + conversion.len_utf8();
    Some((
        Spec {
            raw: &s[..end],
            position,
            modifiers: &s[modifiers_start..length_start],
            length,
            conversion,
        },
        end,
    ))
}

/// A printf-formatted text in the sheet's syntax. `plural`: a plural form (always a format
/// string; argument 1 is the quantity).
pub fn printf(text: &str, flavor: Printf, plural: bool) -> Converted {
    if memchr::memchr3(b'%', b'{', b'}', text.as_bytes()).is_none() {
        return Converted {
            text: text.to_owned(),
            losses: Vec::new(),
        };
    }
    // depot writes `%` as `%%` only in format strings: those with a placeholder
    let is_format = plural || has_printf_spec(text);
    let mut out = Converted::default();
    let mut next_ordinary = 0;
    let mut rest = text;
    while let Some(at) = rest.find(['%', '{', '}']) {
        push_literal(&mut out.text, &rest[..at]);
        let tail = &rest[at..];
        if !tail.starts_with('%') {
            push_literal(&mut out.text, &tail[..1]);
            rest = &tail[1..];
            continue;
        }
        let after = &tail[1..];
        if let Some(next) = after.strip_prefix('%') {
            out.text.push_str(if is_format { "%" } else { "%%" });
            rest = next;
            continue;
        }
        if flavor == Printf::Java && after.starts_with('n') && is_format {
            out.text.push('\n');
            out.losses
                .push("%n (a line break in Java's format) becomes a line break".to_owned());
            rest = &after[1..];
            continue;
        }
        let Some((spec, len)) = spec(after) else {
            out.text.push('%');
            if is_format {
                out.losses
                    .push("a lone '%' in a format string: generate writes it as '%%'".to_owned());
            }
            rest = after;
            continue;
        };
        let n = spec.position.unwrap_or_else(|| {
            next_ordinary += 1;
            next_ordinary
        });
        let kind = match spec.conversion {
            'd' | 'i' | 'u' => Kind::Int,
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => Kind::Float,
            _ => Kind::Text,
        };
        let name = arg_name(n, plural);
        // the quantity is an integer to every writer: written plain, as sheets write it
        let kind = if name == COUNT { Kind::Int } else { kind };
        let shown = if name == COUNT { Kind::Text } else { kind };
        push_placeholder(&mut out.text, &name, shown);
        // what generate writes back for this placeholder
        let written = match (kind, flavor) {
            (Kind::Int, Printf::Java) => "d",
            (Kind::Int, Printf::Apple) => "ld",
            (Kind::Float, _) => "f",
            (Kind::Text, Printf::Java) => "s",
            (Kind::Text, Printf::Apple) => "@",
        };
        let exact = spec.modifiers.is_empty()
            && match (kind, flavor) {
                (Kind::Text, Printf::Java) => spec.conversion == 's' && spec.length.is_empty(),
                (Kind::Text, Printf::Apple) => spec.conversion == '@' && spec.length.is_empty(),
                (Kind::Int, Printf::Java) => spec.conversion == 'd' && spec.length.is_empty(),
                (Kind::Int, Printf::Apple) => {
                    matches!(spec.conversion, 'd' | 'i')
                        && matches!(spec.length, "" | "l" | "ll" | "q")
                }
                (Kind::Float, _) => spec.conversion == 'f' && matches!(spec.length, "" | "l"),
            };
        if !exact {
            out.losses.push(format!(
                "placeholder %{} read as {{{name}{}}}: generate writes %{n}${written}",
                spec.raw,
                match shown {
                    Kind::Int => ":int",
                    Kind::Float => ":float",
                    Kind::Text => "",
                }
            ));
        }
        rest = &after[len..];
    }
    push_literal(&mut out.text, rest);
    out
}

/// A printf text of a sheet that holds printf (`placeholders=printf`) as the other
/// platform's printf writes it, nothing else changed (SPEC §12.1): for Android (`Java`)
/// Apple's `%@` is `%s` and its length modifiers go (`%ld` → `%d`, `%lu` → `%d`); for Apple
/// Android's `%s` is `%@` (Apple's `%s` reads a C string), and a text whose one
/// conversion is Android's `%1$s` gets Apple's habit `%@`. `%d`, `%1$d` and `%f` mean the
/// same to both and stay, so each platform's own texts come back byte for byte.
pub fn printf_as(text: &str, to: Printf) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    if memchr::memchr(b'%', text.as_bytes()).is_none() {
        return Cow::Borrowed(text);
    }
    let mut specs: Vec<(usize, Spec<'_>)> = Vec::new();
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'%', &text.as_bytes()[at..]) {
        let after = at + found + 1;
        if text[after..].starts_with('%') {
            at = after + 1;
            continue;
        }
        match spec(&text[after..]) {
            Some((spec, len)) => {
                specs.push((after - 1, spec));
                at = after + len;
            }
            None => at = after,
        }
    }
    let lone_android = to == Printf::Apple
        && matches!(specs.as_slice(), [(_, s)] if s.position == Some(1)
            && s.conversion == 's' && s.length.is_empty() && s.modifiers.is_empty());
    let rewrite = |spec: &Spec<'_>| -> Option<String> {
        let (position, length, conversion) = match to {
            Printf::Java => match spec.conversion {
                '@' => (spec.position, "", 's'),
                'u' => (spec.position, "", 'd'),
                c if !spec.length.is_empty() => (spec.position, "", c),
                _ => return None,
            },
            Printf::Apple => match spec.conversion {
                's' if spec.length.is_empty() && lone_android => (None, "", '@'),
                's' if spec.length.is_empty() => (spec.position, "", '@'),
                _ => return None,
            },
        };
        let mut out = String::from("%");
        if let Some(n) = position {
            let _ = write!(out, "{n}$");
        }
        out.push_str(spec.modifiers);
        out.push_str(length);
        out.push(conversion);
        Some(out)
    };
    let mut out = String::new();
    let mut last = 0;
    for (start, spec) in &specs {
        if let Some(written) = rewrite(spec) {
            out.push_str(&text[last..*start]);
            out.push_str(&written);
            last = start + 1 + spec.raw.len();
        }
    }
    if last == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// What a printf text says to its reader, as one spelling (`diff` by meaning, SPEC
/// §12.1): every conversion numbered (`%d` is `%1$d`, `%s and %d` is `%1$s and %2$d`), and
/// what the settings cell maps between Android and Apple spelt Android's way (`%@` is
/// `%s`, `%ld` and `%u` are `%d`). Two texts with the same meaning show the same.
pub fn printf_meaning(text: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    if memchr::memchr(b'%', text.as_bytes()).is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 4);
    let mut next_ordinary = 0;
    let mut rest = text;
    while let Some(at) = memchr::memchr(b'%', rest.as_bytes()) {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(next) = after.strip_prefix('%') {
            out.push_str("%%");
            rest = next;
            continue;
        }
        let Some((spec, len)) = spec(after) else {
            out.push('%');
            rest = after;
            continue;
        };
        let n = spec.position.unwrap_or_else(|| {
            next_ordinary += 1;
            next_ordinary
        });
        let conversion = match spec.conversion {
            '@' => 's',
            'u' | 'i' => 'd',
            c => c,
        };
        let _ = write!(out, "%{n}${}{conversion}", spec.modifiers);
        rest = &after[len..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// What an i18next text says to its reader, as one spelling: i18next trims the name of
/// an interpolation, so `{{ name }}` is `{{name}}`.
pub fn i18next_meaning(text: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    if !text.contains("{{") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("{{") {
        let inner = &rest[at + 2..];
        let Some(close) = inner.find("}}") else {
            break;
        };
        out.push_str(&rest[..at]);
        out.push_str("{{");
        out.push_str(inner[..close].trim());
        out.push_str("}}");
        rest = &inner[close + 2..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Whether `text` holds a printf conversion (a placeholder).
pub fn has_printf_spec(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        let after = &rest[at + 1..];
        if let Some(next) = after.strip_prefix('%') {
            rest = next;
            continue;
        }
        if spec(after).is_some() {
            return true;
        }
        rest = after;
    }
    false
}

/// i18next's `{{name}}` (also `{{- name}}`, unescaped, and `{{name, format}}`).
pub fn i18next(text: &str) -> Converted {
    let mut out = Converted::default();
    let mut rest = text;
    while let Some(at) = rest.find(['{', '}', '$']) {
        push_literal(&mut out.text, &rest[..at]);
        let tail = &rest[at..];
        // i18next finds `{{(.+?)}}`, and a JavaScript `.` is no line terminator: a `{{`
        // whose `}}` lies past the line's end is text
        if let Some(inner) = tail.strip_prefix("{{")
            && let Some(close) = inner.find("}}")
            && !inner[..close].contains(['\n', '\r', '\u{2028}', '\u{2029}'])
        {
            let body = inner[..close].trim();
            let (unescaped, body) = match body.strip_prefix('-') {
                Some(b) => (true, b.trim()),
                None => (false, body),
            };
            let (name, format) = match body.split_once(',') {
                Some((name, format)) => (name.trim(), Some(format.trim())),
                None => (body, None),
            };
            if is_identifier(name) {
                push_placeholder(&mut out.text, name, Kind::Text);
                if unescaped {
                    out.losses.push(format!(
                        "{{{{- {name}}}}} (not HTML-escaped) becomes {{{{{name}}}}}"
                    ));
                }
                if let Some(format) = format {
                    out.losses.push(format!(
                        "the format '{format}' of {{{{{name}}}}} is not carried"
                    ));
                }
                rest = &inner[close + 2..];
                continue;
            }
        }
        if tail.starts_with("$t(") {
            out.losses
                .push("nesting $t(...) is kept as text".to_owned());
        }
        push_literal(&mut out.text, &tail[..1]);
        rest = &tail[1..];
    }
    push_literal(&mut out.text, rest);
    out
}

/// Rails i18n's `%{name}` (`%%{` is a literal `%{`).
pub fn rails(text: &str) -> Converted {
    let mut out = Converted::default();
    let mut rest = text;
    while let Some(at) = rest.find(['%', '{', '}']) {
        push_literal(&mut out.text, &rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("%%{") {
            out.text.push_str("%{{");
            rest = after;
            continue;
        }
        if let Some(inner) = tail.strip_prefix("%{")
            && let Some(close) = inner.find('}')
            && is_identifier(&inner[..close])
        {
            push_placeholder(&mut out.text, &inner[..close], Kind::Text);
            rest = &inner[close + 1..];
            continue;
        }
        if tail.starts_with("%<") {
            out.losses
                .push("Ruby's %<name>… format is kept as text".to_owned());
        }
        push_literal(&mut out.text, &tail[..1]);
        rest = &tail[1..];
    }
    push_literal(&mut out.text, rest);
    out
}

/// Whether `text` holds a numbered argument `{0}`, `{1,number}` (Java `MessageFormat`,
/// .NET composite format): only such texts go through a formatter, so only their
/// quoting is undone.
fn has_numbered_argument(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr_iter(b'{', b).any(|at| {
        let digits = b[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        digits > 0 && matches!(b.get(at + 1 + digits), Some(b'}' | b',' | b':'))
    })
}

/// Java `MessageFormat` (properties): `{0}` → `{arg1}`, `{0,number,integer}` →
/// `{arg1:int}`, `{0,number}` → `{arg1:float}`; `''` is an apostrophe and `'…'` quotes.
/// A text without an argument is not a pattern and is taken as it is; a plural form
/// (`plural`) always is one (the app formats it with the count, and generate writes it
/// so), its `{0}` the quantity, `{count}`.
pub fn message_format(text: &str, plural: bool) -> Converted {
    if !plural && !has_numbered_argument(text) {
        return Converted {
            text: literal(text),
            losses: Vec::new(),
        };
    }
    let mut out = Converted::default();
    let mut chars = text.char_indices().peekable();
    let mut quoted = false;
    while let Some((at, c)) = chars.next() {
        match c {
            '\'' if chars.peek().map(|&(_, n)| n) == Some('\'') => {
                chars.next();
                out.text.push('\'');
            }
            '\'' => quoted = !quoted,
            '{' if !quoted => {
                let close = text[at..].find('}').map(|c| at + c);
                let Some(close) = close else {
                    push_literal(&mut out.text, &text[at..]);
                    out.losses
                        .push("an unclosed '{' is kept as text".to_owned());
                    break;
                };
                let inner = &text[at + 1..close];
                let mut parts = inner.split(',').map(str::trim);
                let index = parts.next().and_then(|p| p.parse::<usize>().ok());
                let kind = match (parts.next(), parts.next()) {
                    (None, _) => Some(Kind::Text),
                    (Some("number"), Some("integer")) => Some(Kind::Int),
                    (Some("number"), None) => Some(Kind::Float),
                    _ => None,
                };
                match (index, kind) {
                    (Some(index), Some(kind)) => {
                        push_placeholder(&mut out.text, &arg_name(index + 1, plural), kind)
                    }
                    (Some(index), None) => {
                        push_placeholder(&mut out.text, &arg_name(index + 1, plural), Kind::Text);
                        out.losses.push(format!(
                            "the argument {{{inner}}} keeps its number only, as {{arg{}}}",
                            index + 1
                        ));
                    }
                    _ => {
                        push_literal(&mut out.text, &text[at..=close]);
                        out.losses.push(format!(
                            "{{{inner}}} is no MessageFormat argument: kept as text"
                        ));
                    }
                }
                while chars.peek().is_some_and(|&(i, _)| i <= close) {
                    chars.next();
                }
            }
            c => push_literal(&mut out.text, c.encode_utf8(&mut [0; 4])),
        }
    }
    out
}

/// .NET composite format (resx): `{0}` → `{arg1}`, `{{`/`}}` are literal braces; a text
/// without an argument is not formatted and is taken as it is; a plural form (`plural`)
/// always is (the app formats it with the count, and generate writes it so), its `{0}`
/// the quantity, `{count}`.
pub fn composite(text: &str, plural: bool) -> Converted {
    if !plural && !has_numbered_argument(text) {
        return Converted {
            text: literal(text),
            losses: Vec::new(),
        };
    }
    let mut out = Converted::default();
    let mut rest = text;
    while let Some(at) = rest.find(['{', '}']) {
        push_literal(&mut out.text, &rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.text.push_str(&tail[..2]);
            rest = &tail[2..];
            continue;
        }
        if let Some(inner) = tail.strip_prefix('{')
            && let Some(close) = inner.find('}')
        {
            let body = &inner[..close];
            let (index, extra) = match body.find([',', ':']) {
                Some(cut) => (&body[..cut], Some(&body[cut..])),
                None => (body, None),
            };
            if let Ok(index) = index.trim().parse::<usize>() {
                let name = arg_name(index + 1, plural);
                push_placeholder(&mut out.text, &name, Kind::Text);
                if let Some(extra) = extra {
                    out.losses.push(format!(
                        "the alignment or format '{extra}' of {{{index}}} is not carried"
                    ));
                }
                rest = &inner[close + 1..];
                continue;
            }
        }
        push_literal(&mut out.text, &tail[..1]);
        rest = &tail[1..];
    }
    push_literal(&mut out.text, rest);
    out
}

/// A sheet text with the placeholders `types` names given that type (`{n}` → `{n:int}`):
/// ARB declares the types apart from the message.
pub fn retype(text: &str, types: impl Fn(&str) -> Option<Kind>) -> String {
    use crate::model::placeholders::{self, Piece};
    let mut out = String::with_capacity(text.len() + 8);
    let scanned = placeholders::scan(text, |piece| match piece {
        Piece::Literal(s) => out.push_str(s),
        Piece::Brace(c) => {
            out.push(c);
            out.push(c);
        }
        Piece::Placeholder { name, kind } => {
            let sheet_kind = match kind {
                placeholders::Kind::Text => types(name).unwrap_or(Kind::Text),
                placeholders::Kind::Int => Kind::Int,
                placeholders::Kind::Float => Kind::Float,
            };
            push_placeholder(&mut out, name, sheet_kind);
        }
    });
    if scanned.is_err() {
        return text.to_owned();
    }
    out
}

/// `[A-Za-z_][A-Za-z0-9_]*`, the names the sheet's placeholders may have.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(c: Converted) -> String {
        c.text
    }

    #[test]
    fn printf_arguments_become_numbered_names() {
        let java = |t| printf(t, Printf::Java, false);
        assert_eq!(
            text(java("%1$s has %2$d files")),
            "{arg1} has {arg2:int} files"
        );
        assert_eq!(text(java("%s and %s")), "{arg1} and {arg2}");
        assert_eq!(text(java("%2$s, %1$s")), "{arg2}, {arg1}");
        assert_eq!(text(java("100%% of %1$s {x}")), "100% of {arg1} {{x}}");
        assert_eq!(text(java("100%% done")), "100%% done");
        assert_eq!(text(java("50% off")), "50% off");
        assert!(java("%1$s").losses.is_empty());
        let lossy = java("%.2f of %1$s");
        assert_eq!(lossy.text, "{arg1:float} of {arg1}");
        assert_eq!(lossy.losses.len(), 1, "{:?}", lossy.losses);
        let apple = |t| printf(t, Printf::Apple, false);
        assert_eq!(text(apple("%1$@ has %2$ld")), "{arg1} has {arg2:int}");
        assert_eq!(text(apple("%@: %d%%")), "{arg1}: {arg2:int}%");
        assert!(apple("%1$@ %2$ld %3$lld %4$d").losses.is_empty());
    }

    #[test]
    fn in_a_plural_form_argument_one_is_the_quantity() {
        let form = printf("%d files in %2$@", Printf::Apple, true);
        assert_eq!(form.text, "{count} files in {arg2}");
        assert_eq!(printf("one file", Printf::Java, true).text, "one file");
        assert_eq!(
            printf("100%% of %1$d", Printf::Java, true).text,
            "100% of {count}"
        );
    }

    #[test]
    fn named_syntaxes_keep_their_names() {
        assert_eq!(
            text(i18next("Hi {{name}}, {{- html}} {x}")),
            "Hi {name}, {html} {{x}}"
        );
        assert_eq!(text(i18next("{{count}} items")), "{count} items");
        // i18next reads `{{(.+?)}}` within one line: the first `{{` is text
        assert_eq!(text(i18next("{{A,\n{{name}}")), "{{{{A,\n{name}");
        assert_eq!(text(i18next("{{a\u{2028}b}}")), "{{{{a\u{2028}b}}}}");
        assert_eq!(
            text(rails("Hi %{name}, 100%%{x} {y}")),
            "Hi {name}, 100%{{x}} {{y}}"
        );
    }

    #[test]
    fn numbered_formats_count_from_one() {
        assert_eq!(
            text(message_format(
                "{0} has {1,number,integer} of {2,number}; it''s '{'x'}'",
                false
            )),
            "{arg1} has {arg2:int} of {arg3:float}; it's {{x}}"
        );
        assert_eq!(text(message_format("it's {x}", false)), "it's {{x}}");
        assert_eq!(text(message_format("{0} rzeczy", true)), "{count} rzeczy");
        // a plural form is a pattern even without an argument
        assert_eq!(
            text(message_format("it''s '{'one'}'", true)),
            "it's {{one}}"
        );
        assert_eq!(text(composite("{{one}}", true)), "{{one}}");
        assert_eq!(text(composite("{{one}}", false)), "{{{{one}}}}");
        assert_eq!(
            text(composite("{1} of {0} {{literal}}", false)),
            "{arg2} of {arg1} {{literal}}"
        );
        assert_eq!(text(composite("no args {x}", false)), "no args {{x}}");
        assert_eq!(composite("{0:N2}", false).losses.len(), 1);
    }

    #[test]
    fn every_result_parses_as_sheet_syntax() {
        for t in [
            printf("{%1$s}}%%", Printf::Java, false),
            i18next("{{{a}}}"),
            rails("%{a}}{"),
            message_format("'{'{0}", false),
            composite("{{{0}}}", false),
        ] {
            crate::model::placeholders::parse(&t.text).unwrap();
        }
    }

    #[test]
    fn printf_meaning_numbers_every_conversion_and_spells_it_as_android() {
        let m = |t| printf_meaning(t).into_owned();
        for (a, b) in [
            ("%d items", "%1$d items"),
            ("Pay %@", "Pay %1$s"),
            ("Pay %s", "Pay %1$@"),
            ("%s has %d", "%1$s has %2$d"),
            ("%ld items", "%1$d items"),
            ("%5.2lf", "%1$5.2f"),
        ] {
            assert_eq!(m(a), m(b), "{a} and {b}");
        }
        for (a, b) in [
            ("%1$s has %2$d", "%2$s has %1$d"),
            ("%d items", "%f items"),
            ("%d items", "%d item"),
            ("%d%%", "%d%"),
        ] {
            assert_ne!(m(a), m(b), "{a} and {b}");
        }
        assert_eq!(m("100%% of %@"), "100%% of %1$s");
    }

    #[test]
    fn i18next_meaning_trims_interpolation_names_only() {
        let m = |t| i18next_meaning(t).into_owned();
        assert_eq!(m("Hi {{ name }}, {{amount}}"), "Hi {{name}}, {{amount}}");
        assert_eq!(m("{{ a }} {{ b"), "{{a}} {{ b");
        assert_eq!(m("{ a }"), "{ a }");
    }

    #[test]
    fn printf_as_maps_only_what_the_other_platform_writes_otherwise() {
        use std::borrow::Cow;
        let java = |t| printf_as(t, Printf::Java).into_owned();
        let apple = |t| printf_as(t, Printf::Apple).into_owned();
        assert_eq!(java("Pay %1$@"), "Pay %1$s");
        assert_eq!(
            java("%@ and %ld, %lu, %5.2lf, 100%%"),
            "%s and %d, %d, %5.2f, 100%%"
        );
        assert_eq!(apple("Pay %1$s"), "Pay %@");
        assert_eq!(apple("%1$s has %2$d, %s"), "%1$@ has %2$d, %@");
        assert_eq!(apple("%-5s"), "%-5@");
        // what both read alike stays, borrowed
        for same in [
            "%d items",
            "%1$d of %2$d",
            "%.1f",
            "50%% off",
            "no placeholder",
        ] {
            assert!(
                matches!(printf_as(same, Printf::Apple), Cow::Borrowed(_)),
                "{same}"
            );
            assert!(
                matches!(printf_as(same, Printf::Java), Cow::Borrowed(_)),
                "{same}"
            );
        }
        assert_eq!(apple("Pay %1$@"), "Pay %1$@");
        assert_eq!(java("Pay %1$s"), "Pay %1$s");
    }
}
