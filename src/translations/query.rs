//! The query of `GET /translations`: `filters[]` (repeatable; also `filters` and
//! `filters[N]`), `format`, `keepLocale`, `comments`, `placeholders`, `fallback`. Anything
//! else is refused by name.

use crate::formats::{Format, PlaceholderMode};
use crate::model::filter::{Filter, FilterError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslationQuery {
    /// Parsed filters, sorted and deduplicated: the union does not depend on order, so
    /// permutations share one cache entry and one ETag.
    pub filters: Vec<Filter>,
    /// The same filters as text, in the same order (for the cache key and messages).
    pub filter_texts: Vec<String>,
    pub format: Format,
    pub keep_locale: bool,
    pub comments: bool,
    /// `keep` or `convert`; `None`: the daemon's `translations.placeholders`.
    pub placeholders: Option<PlaceholderMode>,
    /// Take missing texts along `translations.fallback`.
    pub fallback: bool,
    /// A kept version to serve instead of the current one (`version=`).
    pub version: Option<String>,
    /// See `cache_key`; made once per request, it is used up to four times.
    key: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error(
        "unknown parameter '{0}'; allowed: filters[] (repeatable), format, keepLocale, comments, \
         placeholders, fallback, version"
    )]
    UnknownParameter(String),
    #[error("format must be one of {names}, got '{0}'", names = Format::names())]
    Format(String),
    #[error("placeholders must be one of keep, convert, got '{0}'")]
    Placeholders(String),
    #[error("{name} must be true or false, got '{value}'")]
    Bool { name: &'static str, value: String },
    #[error(
        "version must be the id of a kept version (GET /translations/versions lists them), got an empty value"
    )]
    EmptyVersion,
    #[error("{name} is given more than once")]
    Repeated { name: &'static str },
    #[error(transparent)]
    Filter(#[from] FilterError),
}

impl TranslationQuery {
    pub fn from_params(params: &[(String, String)]) -> Result<TranslationQuery, QueryError> {
        let mut texts = Vec::new();
        let mut format = None;
        let mut keep_locale = None;
        let mut comments = None;
        let mut placeholders = None;
        let mut fallback = None;
        let mut version = None;
        for (name, value) in params {
            match name.as_str() {
                "format" => set_once(&mut format, "format", || {
                    value
                        .parse::<Format>()
                        .map_err(|_| QueryError::Format(value.clone()))
                })?,
                "keepLocale" => set_once(&mut keep_locale, "keepLocale", || {
                    boolean("keepLocale", value)
                })?,
                "comments" => set_once(&mut comments, "comments", || boolean("comments", value))?,
                "placeholders" => set_once(&mut placeholders, "placeholders", || {
                    value
                        .parse::<PlaceholderMode>()
                        .map_err(|_| QueryError::Placeholders(value.clone()))
                })?,
                "fallback" => set_once(&mut fallback, "fallback", || boolean("fallback", value))?,
                "version" => set_once(&mut version, "version", || match value.trim() {
                    "" => Err(QueryError::EmptyVersion),
                    v => Ok(v.to_owned()),
                })?,
                n if is_filter_name(n) => texts.push(value.clone()),
                other => return Err(QueryError::UnknownParameter(other.to_owned())),
            }
        }
        texts.sort();
        texts.dedup();
        let filters = texts
            .iter()
            .map(|t| Filter::parse(t))
            .collect::<Result<Vec<_>, _>>()?;
        let (format, keep_locale, comments) = (
            format.unwrap_or(Format::Json),
            keep_locale.unwrap_or(false),
            comments.unwrap_or(false),
        );
        let fallback = fallback.unwrap_or(false);
        let key = format!(
            "{format:?}|{keep_locale}|{comments}|{placeholders:?}|{fallback}|{}",
            texts.join("\u{1f}")
        );
        Ok(TranslationQuery {
            filters,
            filter_texts: texts,
            format,
            keep_locale,
            comments,
            placeholders,
            fallback,
            version,
            key,
        })
    }

    /// A stable text naming everything that shapes the body (with the document version,
    /// it keys the render cache and derives the ETag).
    pub fn cache_key(&self) -> &str {
        &self.key
    }
}

/// `filters`, `filters[]` and `filters[N]` (as PHP-style clients send arrays).
fn is_filter_name(name: &str) -> bool {
    name == "filters"
        || name
            .strip_prefix("filters[")
            .and_then(|r| r.strip_suffix(']'))
            .is_some_and(|i| i.chars().all(|c| c.is_ascii_digit()))
}

fn boolean(name: &'static str, value: &str) -> Result<bool, QueryError> {
    match value {
        "true" | "1" | "" => Ok(true),
        "false" | "0" => Ok(false),
        other => Err(QueryError::Bool {
            name,
            value: other.to_owned(),
        }),
    }
}

fn set_once<T>(
    slot: &mut Option<T>,
    name: &'static str,
    parse: impl FnOnce() -> Result<T, QueryError>,
) -> Result<(), QueryError> {
    if slot.is_some() {
        return Err(QueryError::Repeated { name });
    }
    *slot = Some(parse()?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn defaults_are_json_without_filters() {
        let q = TranslationQuery::from_params(&[]).unwrap();
        assert_eq!(q.format, Format::Json);
        assert!(q.filters.is_empty() && !q.keep_locale && !q.comments);
    }

    #[test]
    fn every_filter_spelling_counts_and_order_does_not_matter() {
        let a = TranslationQuery::from_params(&params(&[
            ("filters[]", "en.CORE"),
            ("filters", "pl"),
            ("filters[3]", "en.CORE"),
        ]))
        .unwrap();
        let b = TranslationQuery::from_params(&params(&[
            ("filters[]", "pl"),
            ("filters[]", "en.CORE"),
        ]))
        .unwrap();
        assert_eq!(a.filter_texts, vec!["en.CORE", "pl"]);
        assert_eq!(a.cache_key(), b.cache_key());
    }

    #[test]
    fn bad_parameters_are_named() {
        let err = |pairs: &[(&str, &str)]| {
            TranslationQuery::from_params(&params(pairs))
                .unwrap_err()
                .to_string()
        };
        assert!(err(&[("filter", "en")]).contains("unknown parameter 'filter'"));
        assert!(err(&[("format", "csv")]).contains("json, android, ios, yml, xlf, po"));
        assert!(err(&[("format", "csv")]).contains("'csv'"));
        assert!(err(&[("keepLocale", "maybe")]).contains("keepLocale must be true or false"));
        assert!(err(&[("format", "po"), ("format", "po")]).contains("more than once"));
        assert!(err(&[("filters[]", "en..CORE")]).contains("en..CORE"));
        assert_eq!(
            err(&[("placeholders", "printf")]),
            "placeholders must be one of keep, convert, got 'printf'"
        );
        assert!(err(&[("fallback", "yes")]).contains("fallback must be true or false"));
    }

    #[test]
    fn placeholders_and_fallback_shape_the_cache_key() {
        let q = |pairs: &[(&str, &str)]| TranslationQuery::from_params(&params(pairs)).unwrap();
        let convert = q(&[("placeholders", "convert"), ("fallback", "true")]);
        assert_eq!(convert.placeholders, Some(PlaceholderMode::Convert));
        assert!(convert.fallback);
        assert_ne!(convert.cache_key(), q(&[]).cache_key());
        assert_ne!(q(&[("fallback", "1")]).cache_key(), q(&[]).cache_key());
        assert_eq!(q(&[("format", "stringsdict")]).format, Format::Stringsdict);
    }
}
