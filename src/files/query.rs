//! Parses the query strings of `GET /files` and `GET /file` into typed values, with
//! errors that name the parameter, the value received and what is allowed. Pure: the HTTP
//! layer hands over the decoded `(name, value)` pairs in the order they came. Also what a
//! list answers (`Page`) and which records it may see, the same for every backend.

use super::record::{FileRecord, Permission};

/// Highest page number accepted; keeps `(page - 1) * limit` far from overflow.
pub const MAX_PAGE: u64 = 1_000_000_000;
/// Longest `fileName` filter accepted, in characters.
pub const MAX_FILE_NAME_FILTER_CHARS: usize = 255;

/// What `GET /files` asked for, after defaults and clamping.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ListQuery {
    pub permission: Option<Permission>,
    /// `None` for no filter (absent or empty `fileName`).
    pub file_name: Option<String>,
    pub page: u64,
    /// The limit in effect (clamped to the maximum): what `meta.limit` reports.
    pub limit: u64,
}

/// One page of `GET /files`: the records and the number matching the filters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub records: Vec<FileRecord>,
    pub total: u64,
}

/// The permission a list request is restricted to (`Some(None)`: both), or `None` when
/// it can match nothing (private records asked for without access). Every backend
/// applies the same rule through this.
pub(crate) fn effective_permission(
    query: &ListQuery,
    include_private: bool,
) -> Option<Option<Permission>> {
    match (include_private, query.permission) {
        (true, p) => Some(p),
        (false, None | Some(Permission::Public)) => Some(Some(Permission::Public)),
        (false, Some(Permission::Private)) => None,
    }
}

impl Default for ListQuery {
    fn default() -> Self {
        ListQuery {
            permission: None,
            file_name: None,
            page: 1,
            limit: 25,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("permission must be public or private, got '{value}'")]
    Permission { value: String },
    #[error("page must be an integer from 1 to {MAX_PAGE}, got '{value}'")]
    Page { value: String },
    #[error("limit must be an integer from 1 to {max}, got '{value}'")]
    Limit { value: String, max: u64 },
    #[error("fileName must be at most {max} characters, got {len}", max = MAX_FILE_NAME_FILTER_CHARS)]
    FileNameTooLong { len: usize },
    #[error("fileName must not contain control characters")]
    FileNameControl,
    #[error("{name} must be given once, got it {count} times")]
    Repeated { name: &'static str, count: usize },
    #[error("key is required")]
    KeyRequired,
    #[error("download must be true or false, got '{value}'")]
    Download { value: String },
}

impl ListQuery {
    /// Known parameters: `permission`, `fileName`, `page`, `limit` (names are
    /// case-sensitive, as in the contract). Unknown parameters are ignored (cache
    /// busters, tracking tags); a known one given twice is an error rather than a guess.
    /// An empty `fileName` means no filter; any other empty value is an error.
    /// `default_limit` is used when `limit` is absent; `max_limit` clamps it.
    pub fn from_params(
        params: &[(String, String)],
        default_limit: u64,
        max_limit: u64,
    ) -> Result<ListQuery, QueryError> {
        let max_limit = max_limit.max(1);
        let permission = single(params, "permission")?
            .map(|v| {
                v.parse::<Permission>().map_err(|_| QueryError::Permission {
                    value: v.to_owned(),
                })
            })
            .transpose()?;
        let file_name = match single(params, "fileName")? {
            None | Some("") => None,
            Some(v) => {
                let len = v.chars().count();
                if len > MAX_FILE_NAME_FILTER_CHARS {
                    return Err(QueryError::FileNameTooLong { len });
                }
                if v.chars().any(char::is_control) {
                    return Err(QueryError::FileNameControl);
                }
                Some(v.to_owned())
            }
        };
        let page = match single(params, "page")? {
            None => 1,
            Some(v) => match parse_positive(v) {
                Some(Positive::Value(p)) if p <= MAX_PAGE => p,
                _ => {
                    return Err(QueryError::Page {
                        value: v.to_owned(),
                    });
                }
            },
        };
        let limit = match single(params, "limit")? {
            None => default_limit.clamp(1, max_limit),
            Some(v) => match parse_positive(v) {
                Some(Positive::Value(l)) => l.min(max_limit),
                Some(Positive::TooLarge) => max_limit,
                None => {
                    return Err(QueryError::Limit {
                        value: v.to_owned(),
                        max: max_limit,
                    });
                }
            },
        };
        Ok(ListQuery {
            permission,
            file_name,
            page,
            limit,
        })
    }

    /// Rows to skip; saturates instead of overflowing (such a page is simply empty).
    pub fn offset(&self) -> u64 {
        self.page.saturating_sub(1).saturating_mul(self.limit)
    }
}

/// `key` of `GET /file` and `DELETE /file`. Only presence is checked here: a key of any
/// other shape cannot exist, so it answers "not found" like any unknown key.
pub fn key_from_params(params: &[(String, String)]) -> Result<String, QueryError> {
    match single(params, "key")? {
        None | Some("") => Err(QueryError::KeyRequired),
        Some(k) => Ok(k.to_owned()),
    }
}

/// `download` of `GET /file`: `true` or `false` (absent means false), nothing else, so a
/// typo never silently gives the other behaviour.
pub fn download_from_params(params: &[(String, String)]) -> Result<bool, QueryError> {
    match single(params, "download")? {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(other) => Err(QueryError::Download {
            value: other.to_owned(),
        }),
    }
}

fn single<'a>(
    params: &'a [(String, String)],
    name: &'static str,
) -> Result<Option<&'a str>, QueryError> {
    let mut found = params.iter().filter(|(n, _)| n == name);
    let first = found.next();
    let extra = found.count();
    if extra > 0 {
        return Err(QueryError::Repeated {
            name,
            count: extra + 1,
        });
    }
    Ok(first.map(|(_, v)| v.as_str()))
}

enum Positive {
    Value(u64),
    TooLarge,
}

/// Plain decimal digits only (no sign, no spaces, no exponent), at least 1.
fn parse_positive(v: &str) -> Option<Positive> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match v.parse::<u64>() {
        Ok(0) => None,
        Ok(n) => Some(Positive::Value(n)),
        // All digits and it did not fit: a huge positive number.
        Err(_) => Some(Positive::TooLarge),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn parse(pairs: &[(&str, &str)]) -> Result<ListQuery, QueryError> {
        ListQuery::from_params(&params(pairs), 25, 100)
    }

    fn err(pairs: &[(&str, &str)]) -> String {
        parse(pairs).unwrap_err().to_string()
    }

    #[test]
    fn no_parameters_gives_defaults() {
        assert_eq!(parse(&[]).unwrap(), ListQuery::default());
    }

    #[test]
    fn all_parameters_valid() {
        assert_eq!(
            parse(&[
                ("permission", "private"),
                ("fileName", "Report_%"),
                ("page", "3"),
                ("limit", "50"),
            ])
            .unwrap(),
            ListQuery {
                permission: Some(Permission::Private),
                file_name: Some("Report_%".into()),
                page: 3,
                limit: 50,
            }
        );
        assert_eq!(
            parse(&[("permission", "public")]).unwrap().permission,
            Some(Permission::Public)
        );
    }

    #[test]
    fn limit_above_maximum_is_clamped() {
        assert_eq!(parse(&[("limit", "101")]).unwrap().limit, 100);
        assert_eq!(parse(&[("limit", "100")]).unwrap().limit, 100);
        assert_eq!(parse(&[("limit", "1")]).unwrap().limit, 1);
        assert_eq!(
            parse(&[("limit", "99999999999999999999999999")])
                .unwrap()
                .limit,
            100
        );
        assert_eq!(parse(&[("limit", "007")]).unwrap().limit, 7);
    }

    #[test]
    fn configured_default_and_maximum_apply() {
        let q = ListQuery::from_params(&[], 10, 40).unwrap();
        assert_eq!(q.limit, 10);
        let q = ListQuery::from_params(&params(&[("limit", "41")]), 10, 40).unwrap();
        assert_eq!(q.limit, 40);
        // A default above the maximum is clamped too.
        assert_eq!(ListQuery::from_params(&[], 500, 40).unwrap().limit, 40);
        assert_eq!(
            ListQuery::from_params(&params(&[("limit", "x")]), 10, 40)
                .unwrap_err()
                .to_string(),
            "limit must be an integer from 1 to 40, got 'x'"
        );
    }

    #[test]
    fn bad_limit_values() {
        for bad in ["abc", "0", "-1", "", " 5", "5 ", "+5", "1.5", "1e3", "00"] {
            assert_eq!(
                err(&[("limit", bad)]),
                format!("limit must be an integer from 1 to 100, got '{bad}'")
            );
        }
    }

    #[test]
    fn bad_page_values() {
        for bad in [
            "abc",
            "0",
            "-2",
            "",
            "2.0",
            "1000000001",
            "99999999999999999999999",
        ] {
            assert_eq!(
                err(&[("page", bad)]),
                format!("page must be an integer from 1 to 1000000000, got '{bad}'")
            );
        }
        assert_eq!(
            parse(&[("page", "1000000000")]).unwrap().page,
            1_000_000_000
        );
    }

    #[test]
    fn bad_permission_values() {
        for bad in ["secret", "", "PUBLIC", "public "] {
            assert_eq!(
                err(&[("permission", bad)]),
                format!("permission must be public or private, got '{bad}'")
            );
        }
    }

    #[test]
    fn file_name_rules() {
        assert_eq!(parse(&[("fileName", "")]).unwrap().file_name, None);
        assert_eq!(
            parse(&[("fileName", " a ")]).unwrap().file_name.as_deref(),
            Some(" a ")
        );
        assert_eq!(
            err(&[("fileName", &"é".repeat(256))]),
            "fileName must be at most 255 characters, got 256"
        );
        assert!(parse(&[("fileName", &"é".repeat(255))]).is_ok());
        assert_eq!(
            err(&[("fileName", "a\0b")]),
            "fileName must not contain control characters"
        );
    }

    #[test]
    fn repeated_parameter_is_an_error() {
        assert_eq!(
            err(&[("page", "1"), ("limit", "5"), ("page", "2")]),
            "page must be given once, got it 2 times"
        );
        assert_eq!(
            err(&[
                ("permission", "public"),
                ("permission", "public"),
                ("permission", "x")
            ]),
            "permission must be given once, got it 3 times"
        );
    }

    #[test]
    fn unknown_parameters_are_ignored() {
        assert_eq!(
            parse(&[("_", "12345"), ("filename", "x"), ("Page", "zz")]).unwrap(),
            ListQuery::default()
        );
    }

    #[test]
    fn offset_is_page_minus_one_times_limit() {
        let q = parse(&[("page", "1000"), ("limit", "25")]).unwrap();
        assert_eq!(q.offset(), 24_975);
        assert_eq!(ListQuery::default().offset(), 0);
    }

    #[test]
    fn key_parameter() {
        assert_eq!(key_from_params(&params(&[("key", "abc")])).unwrap(), "abc");
        assert_eq!(
            key_from_params(&[]).unwrap_err().to_string(),
            "key is required"
        );
        assert_eq!(
            key_from_params(&params(&[("key", "")]))
                .unwrap_err()
                .to_string(),
            "key is required"
        );
        assert_eq!(
            key_from_params(&params(&[("key", "a"), ("key", "b")]))
                .unwrap_err()
                .to_string(),
            "key must be given once, got it 2 times"
        );
    }

    #[test]
    fn download_parameter_is_true_or_false() {
        let download = |pairs: &[(&str, &str)]| download_from_params(&params(pairs));
        assert_eq!(download(&[]), Ok(false));
        assert_eq!(download(&[("download", "false")]), Ok(false));
        assert_eq!(download(&[("download", "true")]), Ok(true));
        for value in ["", "1", "yes", "TRUE", "True", "true "] {
            assert_eq!(
                download(&[("download", value)]).unwrap_err().to_string(),
                format!("download must be true or false, got '{value}'")
            );
        }
        assert_eq!(
            download(&[("download", "true"), ("download", "true")])
                .unwrap_err()
                .to_string(),
            "download must be given once, got it 2 times"
        );
    }

    proptest! {
        #[test]
        fn any_query_parses_or_fails_cleanly(
            pairs in proptest::collection::vec(
                (prop_oneof![Just("page"), Just("limit"), Just("permission"), Just("fileName"), Just("x")],
                 ".{0,12}"),
                0..5,
            ),
            max in 1u64..500,
        ) {
            let p: Vec<(String, String)> =
                pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
            match ListQuery::from_params(&p, 25, max) {
                Ok(q) => {
                    prop_assert!(q.limit >= 1 && q.limit <= max);
                    prop_assert!(q.page >= 1 && q.page <= MAX_PAGE);
                }
                // Every message starts with the parameter it is about.
                Err(e) => {
                    let text = e.to_string();
                    prop_assert!(
                        ["page ", "limit ", "permission ", "fileName "]
                            .iter()
                            .any(|p| text.starts_with(p)),
                        "{}",
                        text
                    );
                }
            }
        }
    }
}
