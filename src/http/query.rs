//! Query strings, decoded strictly: `+` is a space, every `%` must start a two-digit hex
//! escape and the bytes must be UTF-8. Lenient decoding would turn `%ZZ` or `%FF` into
//! some other text and answer for a parameter the client never sent.

use super::ApiError;
use super::error::ErrorCode;
use crate::percent;
use std::convert::Infallible;
use warp::{Filter, Rejection};

/// The request's query parameters, in order (repeats kept).
pub fn params() -> impl Filter<Extract = (Vec<(String, String)>,), Error = Rejection> + Clone {
    raw().and_then(|raw: String| async move { parse(&raw).map_err(warp::reject::custom) })
}

/// The raw query string (without `?`), empty when there is none.
pub fn raw() -> impl Filter<Extract = (String,), Error = Infallible> + Clone {
    warp::query::raw().or(warp::any().map(String::new)).unify()
}

pub fn parse(raw: &str) -> Result<Vec<(String, String)>, ApiError> {
    raw.split('&')
        .filter(|piece| !piece.is_empty())
        .map(|piece| {
            let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
            let name = decode(name).ok_or_else(|| {
                ApiError::BadRequest("the query string is not valid URL encoding".into())
                    .with_code(ErrorCode::InvalidParameter)
            })?;
            let value = decode(value).ok_or_else(|| {
                ApiError::BadRequest(format!(
                    "query parameter '{name}' is not valid URL encoding: a % must start a two-digit hex escape, and the text must be UTF-8"
                ))
                .with_code(ErrorCode::InvalidParameter)
            })?;
            Ok((name, value))
        })
        .collect()
}

fn decode(text: &str) -> Option<String> {
    percent::decode(&text.replace('+', " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_plus_escapes_and_repeats() {
        assert_eq!(
            parse("filters%5B%5D=en.A&filters%5B%5D=a+b%2Bc&flag&&x=").unwrap(),
            vec![
                ("filters[]".into(), "en.A".into()),
                ("filters[]".into(), "a b+c".into()),
                ("flag".into(), "".into()),
                ("x".into(), "".into()),
            ]
        );
        assert_eq!(parse("").unwrap(), vec![]);
    }

    #[test]
    fn malformed_escapes_and_non_utf8_name_the_parameter() {
        for raw in ["fileName=%ZZ", "fileName=%FF", "fileName=%4"] {
            let err = parse(raw).unwrap_err().to_string();
            assert!(err.contains("'fileName'"), "{raw}: {err}");
        }
        assert!(parse("%ZZ=1").is_err());
    }
}
