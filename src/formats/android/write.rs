//! android `strings.xml`, escaped for what aapt2 does to a `<string>`: XML first, then its
//! own backslash escapes, quote toggling, whitespace collapsing and `@`/`?` references.

use super::markup;
use crate::formats::shared::convert::Converter;
use crate::formats::shared::escape::{
    Specials, clean_comment, escape_into, push_char, push_hex, push_xml_char,
};
use crate::formats::shared::escape::{XML_CONTROL_REASON, push_xml_str};
use crate::formats::shared::flatten::NameStyle;
use crate::formats::shared::flatten::{Flat, FlatKey};
use crate::formats::writing::Job;
use crate::formats::{Format, RenderError, RenderOptions};
use crate::model::placeholders::Syntax;

/// The one shape of a writer (`formats::Writer`).
pub fn write(job: &Job<'_, '_>, out: &mut Vec<u8>) -> Result<Vec<String>, RenderError> {
    job.flat_body(NameStyle::Android, false, render, out)
}

pub(crate) fn render(
    flat: &Flat<'_>,
    opts: &RenderOptions,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    out.extend_from_slice(b"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources");
    // where the namespace of `<xliff:g>` goes, once a text holds one
    let root_at = out.len();
    out.extend_from_slice(b">\n");
    let mut texts = Texts {
        markup: flat.doc.settings.android_markup,
        xliff: false,
    };
    let converter = Converter::new(opts, Syntax::Android);
    for (pos, loc) in flat.locales.iter().enumerate() {
        for key in flat.keys(pos, loc) {
            if opts.comments
                && let Some(comment) = &key.entry.comment
            {
                out.extend_from_slice(b"    <!-- ");
                push_xml_comment(out, comment);
                out.extend_from_slice(b" -->\n");
            }
            // Each tag written whole (constant lengths copy without a call): this runs for
            // every text.
            match key.plural {
                None => {
                    out.extend_from_slice(b"    <string name=\"");
                    push_name(out, &key).map_err(|c| bad_name(&key, c))?;
                    (texts.push(out, &converter.text(key.entry, false, key.text)))
                        .map_err(|character| unrepresentable(&key, loc.code, character))?;
                    out.extend_from_slice(b"</string>\n");
                }
                Some(plural) => {
                    out.extend_from_slice(b"    <plurals name=\"");
                    push_name(out, &key).map_err(|c| bad_name(&key, c))?;
                    out.extend_from_slice(b">\n");
                    for (category, text) in plural.forms_in(loc.locale) {
                        out.extend_from_slice(b"        <item quantity=\"");
                        out.extend_from_slice(category.name().as_bytes());
                        out.push(b'"');
                        (texts.push(out, &converter.text(key.entry, true, text)))
                            .map_err(|character| unrepresentable(&key, loc.code, character))?;
                        out.extend_from_slice(b"</item>\n");
                    }
                    out.extend_from_slice(b"    </plurals>\n");
                }
            }
        }
    }
    out.extend_from_slice(b"</resources>\n");
    if texts.xliff {
        let declaration = format!(" xmlns:xliff=\"{}\"", markup::XLIFF_NAMESPACE);
        out.splice(root_at..root_at, declaration.into_bytes());
    }
    Ok(())
}

/// How the texts of one file are written: as markup where the sheet says its texts hold
/// Android's (`android=markup`) and a text's tags make markup.
struct Texts {
    markup: bool,
    /// A text held an `<xliff:g>` (the file's root declares its namespace).
    xliff: bool,
}

impl Texts {
    fn push(&mut self, out: &mut Vec<u8>, text: &str) -> Result<(), char> {
        match self.markup.then(|| markup::markup(text)).flatten() {
            Some(tokens) => {
                self.xliff |= markup::uses_xliff(&tokens);
                push_string(out, &markup::plain(&tokens), |out| {
                    markup::push(out, &tokens, push_escaped)
                })
            }
            // a sheet of markup writes a `<` that is text `&lt;`
            None if self.markup => {
                let text = markup::unescape(text);
                push_string(out, &text, |out| push_android_text(out, &text))
            }
            None => push_string(out, text, |out| push_android_text(out, text)),
        }
    }
}

/// The name attribute's value and its closing quote.
fn push_name(out: &mut Vec<u8>, key: &FlatKey<'_>) -> Result<(), char> {
    out.extend_from_slice(key.prefix.as_bytes());
    if key.entry.names.is_empty() {
        // [a-z0-9_] only: nothing to escape
        out.extend_from_slice(key.base.as_bytes());
    } else {
        // a name the sheet gives, as it is
        push_xml_str(out, key.base, true)?;
    }
    out.push(b'"');
    Ok(())
}

fn bad_name(key: &FlatKey<'_>, character: char) -> RenderError {
    RenderError::UnrepresentableKey {
        format: Format::Android,
        key: key.dotted_path(),
        character,
        reason: XML_CONTROL_REASON,
    }
}

/// `>` and the content `push` writes (of the text `text`) of an element whose start tag
/// is open, with `formatted="false"` added to the tag when aapt would refuse the text as
/// a format string.
fn push_string(
    out: &mut Vec<u8>,
    text: &str,
    push: impl FnOnce(&mut Vec<u8>) -> Result<(), char>,
) -> Result<(), char> {
    let tag_end = out.len();
    out.push(b'>');
    push(out)?;
    if text.contains('%') && !formats_ok(text, &out[tag_end + 1..]) {
        out.splice(tag_end..tag_end, *b" formatted=\"false\"");
    }
    Ok(())
}

fn unrepresentable(key: &FlatKey<'_>, locale: &str, character: char) -> RenderError {
    RenderError::UnrepresentableText {
        format: Format::Android,
        locale: locale.to_owned(),
        key: key.dotted_path(),
        character,
        reason: "aapt2 keeps U+0000 in the string pool, where it ends the string for C and JNI readers",
    }
}

const SPECIALS: Specials = Specials::new(b"&<>'\"\\@?", true, true);

/// The element content for `text`; `Err` names a character Android cannot carry (U+0000).
///
/// Raw whitespace left in the output is only U+0020 (tab, newline and other controls are
/// escapes), which aapt2 trims at both ends and collapses in runs unless quoted: a text
/// with a leading, trailing or doubled space is wrapped in `"…"`.
pub(crate) fn push_android_text(out: &mut Vec<u8>, text: &str) -> Result<(), char> {
    let b = text.as_bytes();
    let quoted =
        b.first() == Some(&b' ') || b.last() == Some(&b' ') || b.windows(2).any(|w| w == b"  ");
    push_escaped(out, text, quoted)
}

/// `text` escaped for aapt2, in `"…"` when `quoted` (its spaces kept as they are).
fn push_escaped(out: &mut Vec<u8>, text: &str, quoted: bool) -> Result<(), char> {
    if quoted {
        out.push(b'"');
    }
    escape_into(out, text, &SPECIALS, |out, c, at| {
        match c {
            '&' | '<' | '>' => {
                push_xml_char(out, c, false);
            }
            '\'' => out.extend_from_slice(b"\\'"),
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\t' => out.extend_from_slice(b"\\t"),
            // aapt2 reads a value starting with @ or ? as a reference
            '@' | '?' if at == 0 => {
                out.push(b'\\');
                out.push(c as u8);
            }
            '\0' => return Err(c),
            // Controls cannot be raw XML (and CR would become LF): aapt2's \uXXXX instead.
            '\u{1}'..='\u{1F}' | '\u{7F}'..='\u{9F}' | '\u{FFFE}' | '\u{FFFF}' => {
                out.extend_from_slice(b"\\u");
                push_hex(out, u32::from(c), 4);
            }
            c => push_char(out, c),
        }
        Ok(())
    })?;
    if quoted {
        out.push(b'"');
    }
    Ok(())
}

/// An XML comment may not contain `--` nor end with `-`.
pub(crate) fn push_xml_comment(out: &mut Vec<u8>, comment: &str) {
    let comment = clean_comment(comment);
    let mut prev_dash = false;
    for c in comment.chars() {
        if c == '-' && prev_dash {
            out.push(b' ');
        }
        prev_dash = c == '-';
        push_char(out, c);
    }
    if prev_dash {
        out.push(b' ');
    }
}

/// Whether aapt and aapt2 both accept `text`, written as `element` (the escaped content of
/// its `<string>`), as a formatted string. Both refuse a string with two or more format
/// arguments when one is not positional (`%s %d`, `%<s`, `%5s`) unless it carries
/// `formatted="false"`, but they count differently: aapt2 counts in the text it read back,
/// aapt in the element's text before its own escapes are undone (so the quotes and
/// backslashes depot writes count as the character after a `%`); recent aapt2 skips
/// `%n`, aapt and older aapt2 count it. A string is written as formatted only when every
/// one of these counts accepts it.
fn formats_ok(text: &str, element: &[u8]) -> bool {
    java_format_ok(text.as_bytes()) && java_format_ok(&xml_unescaped(element))
}

/// The element text as aapt's XML parser hands it over: the three entities that
/// `push_android_text` writes, decoded.
fn xml_unescaped(element: &[u8]) -> Vec<u8> {
    // what `push_android_text` writes is UTF-8, and these entities are what markup's are
    markup::unescape(&String::from_utf8_lossy(element))
        .into_owned()
        .into_bytes()
}

/// aapt's `hasSubstitutionErrors` (ResourceTable.cpp), which is aapt2's
/// `util::VerifyJavaStringFormat` counting `%n` as an argument: false when the string has
/// more than one format argument and at least one is not positional. Every `%` that is not
/// followed by `%` counts as an argument (`100%` alone does not: nothing follows it); a
/// conversion that only `Time.format` knows (`%D`, `%k`, ...) makes both stop checking.
pub(crate) fn java_format_ok(b: &[u8]) -> bool {
    if !b.contains(&b'%') {
        return true;
    }
    let end = b.len();
    let mut c = 0;
    let mut arg_count = 0;
    let mut nonpositional = false;
    while c != end {
        if b[c] == b'%' && c + 1 < end {
            c += 1;
            if b[c] == b'%' {
                c += 1;
                continue;
            }
            arg_count += 1;
            let digits = b[c..].iter().take_while(|d| d.is_ascii_digit()).count();
            if digits > 0 {
                c += digits;
                if c != end && b[c] != b'$' {
                    // the digits were a width, not a position
                    nonpositional = true;
                }
            } else if b[c] == b'<' {
                nonpositional = true;
                c += 1;
                if c != end && b[c] == b'$' {
                    c += 1;
                }
            } else {
                nonpositional = true;
            }
            while c != end && matches!(b[c], b'-' | b'#' | b'+' | b' ' | b',' | b'(' | b'0'..=b'9')
            {
                c += 1;
            }
            if c != end
                && matches!(
                    b[c],
                    b'D' | b'F' | b'K' | b'M' | b'W' | b'Z' | b'k' | b'm' | b'w' | b'y' | b'z'
                )
            {
                return true;
            }
        }
        if c != end {
            c += 1;
        }
    }
    !(arg_count > 1 && nonpositional)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        let mut out = Vec::new();
        push_android_text(&mut out, s).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_what_aapt2_interprets() {
        assert_eq!(text("Don't \"x\" a\\b"), r#"Don\'t \"x\" a\\b"#);
        assert_eq!(text("@string/x ?attr/y"), r"\@string/x ?attr/y");
        assert_eq!(text("?q@"), r"\?q@");
        assert_eq!(text("<b>&</b>"), "&lt;b&gt;&amp;&lt;/b&gt;");
        assert_eq!(text("a\nb\tc\rd\u{1}\u{85}"), r"a\nb\tc\u000Dd\u0001\u0085");
        assert_eq!(text("emoji 🎉 ünï"), "emoji 🎉 ünï");
    }

    #[test]
    fn quotes_only_texts_whose_spaces_aapt2_would_collapse() {
        assert_eq!(text("a b"), "a b");
        assert_eq!(text("  padded  "), "\"  padded  \"");
        assert_eq!(text("a  b"), "\"a  b\"");
        assert_eq!(text(" @x"), "\" @x\"");
    }

    /// The sheet's rows under a settings cell that says `cell`, rendered as android.
    fn rendered(cell: &str, rows: &[(&str, &str)]) -> String {
        let mut grid = vec![
            vec![cell.to_owned()],
            vec![">>>".to_owned(), "en".to_owned()],
        ];
        grid.extend(
            rows.iter()
                .map(|(k, v)| vec![(*k).to_owned(), (*v).to_owned()]),
        );
        let doc = crate::markup::convert(grid).unwrap();
        let selection = crate::model::Selection::all(&doc);
        let rendered =
            crate::formats::render(&doc, &selection, Format::Android, &RenderOptions::default())
                .unwrap();
        String::from_utf8(rendered.body).unwrap()
    }

    const MARKUP: [(&str, &str); 6] = [
        ("on", "Protections are <b>ON</b> for this site"),
        ("tap", "Tap <font color=\"#678fff\">Always</font> & go"),
        ("spaced", " a <b> x </b>  b "),
        ("n", "<xliff:g id=\"n\">%1$d</xliff:g> files in <i>%2$s</i>"),
        ("br", "x<br/>y"),
        (
            "literal",
            "&lt;b&gt;%1$s blocked&lt;/b&gt; &amp;lt; & &lt;tagged&gt;",
        ),
    ];

    /// `android=markup` (SPEC §12.1): a text's tags are written as markup, its text
    /// escaped and quoted where aapt2 would collapse or trim a space (a span's bounds
    /// start a new run of white space); a text whose tags do not balance is text.
    #[test]
    fn with_android_markup_tags_are_written_as_markup() {
        let body = rendered("depot: android=markup", &MARKUP);
        assert_eq!(
            body,
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
             <resources xmlns:xliff=\"urn:oasis:names:tc:xliff:document:1.2\">\n\
             \x20   <string name=\"on\">Protections are <b>ON</b> for this site</string>\n\
             \x20   <string name=\"tap\">Tap <font color=\"#678fff\">Always</font> &amp; go</string>\n\
             \x20   <string name=\"spaced\"> a <b> x </b>\"  b \"</string>\n\
             \x20   <string name=\"n\"><xliff:g id=\"n\">%1$d</xliff:g> files in <i>%2$s</i></string>\n\
             \x20   <string name=\"br\">x<br/>y</string>\n\
             \x20   <string name=\"literal\">&lt;b&gt;%1$s blocked&lt;/b&gt; &amp;lt; &amp; &lt;tagged&gt;</string>\n\
             </resources>\n"
        );
        // read back as aapt2 compiles it: the same texts
        let options = crate::import::Options {
            placeholders: crate::formats::PlaceholderMode::Keep,
            markup: crate::formats::reading::Markup::Tags,
            ..crate::import::Options::default()
        };
        let mut r = crate::formats::reading::Reading::new(&options);
        super::super::read::read(&body, &mut r).unwrap();
        let texts: Vec<(String, String)> = (r.units.iter())
            .map(|u| match &u.value {
                crate::formats::reading::Value::Text(t) => (u.key.display(), t.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        let want: Vec<(String, String)> = (MARKUP.iter())
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        assert_eq!(texts, want);
    }

    /// Tags that do not balance are text, as is any `<` that starts none.
    #[test]
    fn with_android_markup_a_text_whose_tags_do_not_balance_is_text() {
        let body = rendered(
            "depot: android=markup",
            &[("a", "<b>bold & <i>not</b></i>"), ("b", "1 < 2 &lt;3")],
        );
        assert!(
            body.contains(
                "<string name=\"a\">&lt;b&gt;bold &amp; &lt;i&gt;not&lt;/b&gt;&lt;/i&gt;</string>\n    \
                 <string name=\"b\">1 &lt; 2 &lt;3</string>"
            ),
            "{body}"
        );
    }

    /// A sheet without the setting holds text: `<b>` stays text, as before.
    #[test]
    fn without_android_markup_tags_are_text() {
        let body = rendered("depot: placeholders=printf", &MARKUP[..1]);
        assert!(
            body.contains(
                "<resources>\n    <string name=\"on\">Protections are &lt;b&gt;ON&lt;/b&gt; for this site</string>"
            ),
            "{body}"
        );
    }

    #[test]
    fn refuses_nul() {
        assert_eq!(push_android_text(&mut Vec::new(), "a\0b"), Err('\0'));
    }

    #[test]
    fn comments_never_hold_a_double_dash() {
        let mut out = Vec::new();
        push_xml_comment(&mut out, "a--b---c-");
        assert_eq!(String::from_utf8(out).unwrap(), "a- -b- - -c- ");
    }

    #[test]
    fn java_format_check_counts_as_aapt_does() {
        for ok in [
            "100% sure",
            "%s",
            "%1$s and %2$s",
            "%d%%",
            "%n",
            "50%",
            "%-5s",
            "%s %s %k",
            "Welcome back %user%, your plan renews soon",
        ] {
            assert!(java_format_ok(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "%s of %d",
            "%1$s and %s",
            "%<s %s",
            "%5s %1$s",
            "% d %d",
            "%n%s",
            "%n and %n",
            "Up to 30%, plus 5% cashback",
        ] {
            assert!(!java_format_ok(bad.as_bytes()), "{bad}");
        }
    }

    /// The cases where aapt (raw element text) and aapt2 (text read back) disagree.
    #[test]
    fn formatted_false_when_either_tool_would_refuse() {
        let element = |t: &str| text(t).into_bytes();
        // quoted for its spaces: aapt sees the closing quote after the last `%`
        let padded = "  %s 50%";
        assert!(java_format_ok(padded.as_bytes()));
        assert!(!formats_ok(padded, &element(padded)));
        // `%<D` is a Time.format argument for both once `&lt;` is decoded
        let lt = "%s & %<D";
        assert!(formats_ok(lt, &element(lt)));
        assert_eq!(xml_unescaped(b"a&amp;b&lt;c&gt;&amp;lt;"), b"a&b<c>&lt;");
        assert!(formats_ok("100%", &element("100%")));
    }
}
