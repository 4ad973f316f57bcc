//! What a `producer.source` may be: a name (`google`, `example`), a local sheet's path, or
//! an `http(s)://` URL. Layering validates it by this rule and the settings read it by it.

/// Whether a `producer.source` names a sheet on the web rather than a local file.
pub fn is_web_url(source: &str) -> bool {
    let lower = source.get(..8).unwrap_or(source).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// Why `source` cannot be a `producer.source`, if it cannot. Text that looks like a URL
/// (`redact::looks_like_url`) is read as an `http(s)://` URL or not at all: a mistyped
/// `htps://user:pass@host/pub?key=...` taken as a local path would be printed whole, secrets
/// and all, wherever the path is (`/health`, logs, `config check`). A path written as one
/// (`/...`, `./...`, `../...`) is a path whatever its name holds.
pub fn source_problem(source: &str) -> Option<String> {
    let source = source.trim();
    let written_as_path = ["/", "./", "../"].iter().any(|p| source.starts_with(p));
    if is_web_url(source) || written_as_path || !crate::redact::looks_like_url(source) {
        return None;
    }
    let why = match crate::redact::scheme(source) {
        Some(scheme) => {
            let web = super::schema::nearest(scheme, ["https", "http"].into_iter());
            format!(
                "depot reads no {scheme}:// source{}",
                web.map_or_else(String::new, |w| format!(" (did you mean {w}://?)"))
            )
        }
        None => {
            "this looks like a URL (credentials or a query) without http:// or https://".to_owned()
        }
    };
    Some(format!(
        "must be \"google\", \"example\", the path of a local .csv, .xlsx or .ods sheet, or the \
         http:// or https:// URL of a CSV; {why}; a local file whose name looks like a URL is \
         written as ./NAME"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_that_looks_like_a_url_is_an_http_url_or_refused() {
        for fine in [
            "google",
            "example",
            "sheets/translations.csv",
            "https://sheets.example/pub?output=csv&token=t",
            "HTTP://sheets.example/pub.csv",
            "./a:b@c.csv",
            "/srv/sheet?v=1.csv",
        ] {
            assert_eq!(source_problem(fine), None, "{fine}");
        }
        let why = |source: &str| {
            let problem = source_problem(source).unwrap();
            problem.split("; ").nth(1).unwrap().to_owned()
        };
        assert_eq!(
            why("htps://user:pass@sheets.example/pub?key=k"),
            "depot reads no htps:// source (did you mean https://?)"
        );
        assert_eq!(
            why("HTTP:/sheets.example"),
            "depot reads no HTTP:// source (did you mean http://?)"
        );
        assert_eq!(
            why("ftp://sheets.example/a.csv"),
            "depot reads no ftp:// source"
        );
        for bare in ["user:pass@sheets.example/pub", "sheets.example/pub?key=k"] {
            assert_eq!(
                why(bare),
                "this looks like a URL (credentials or a query) without http:// or https://"
            );
        }
        assert!(source_problem("s3://b/k").unwrap().starts_with(
            "must be \"google\", \"example\", the path of a local .csv, .xlsx or .ods sheet, \
             or the http:// or https:// URL of a CSV; "
        ));
    }
}
