//! What keeps the bytes depot serves from running as a page of depot's own origin (SPEC §10
//! "Safety of the console"): an uploaded `.html` or `.svg` opened through its signed URL
//! would otherwise run script next to the console, with an admin's session.
//!
//! Every answer carries `X-Content-Type-Options: nosniff` (a browser takes the declared type
//! and never guesses HTML from the bytes), and every answer without a policy of its own (only
//! console pages have one) a sandboxing `Content-Security-Policy`: objects, API bodies and
//! error bodies are shown, never run. Why these policies: docs/design.md "Objects are shown,
//! never run".

use warp::http::{HeaderValue, header};
use warp::reply::Response;

/// The policy of everything but audio and video. `sandbox` without `allow-scripts` runs no
/// script at all and gives the document an opaque origin (no cookie, no storage, no
/// same-origin request), and blocks forms, pop-ups and top navigation; `default-src 'none'`
/// blocks script and every load again for a browser that ignores `sandbox`. Images (also
/// those an SVG embeds as `data:`) and inline styles stay allowed: Chromium's page around
/// an image is styled inline, and PDF and text show without either.
pub const OBJECT_POLICY: &str =
    "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'";

/// The policy of audio and video: Chromium loads nothing into the player page of a
/// sandboxed media document unless it keeps its origin (`allow-same-origin`), so these keep
/// it. Scripts stay off (no `allow-scripts`, `default-src 'none'`), so the origin gives
/// nothing to run with; and a body that is not media is not shown as a page under a media
/// type (`nosniff`). Only a `Content-Type` that is exactly one audio or video type of the
/// inline list (`objects::display`) gets it: `video/mp4; a=b, text/html` is HTML to a
/// browser.
pub const MEDIA_POLICY: &str =
    "sandbox allow-same-origin; default-src 'none'; media-src 'self'; style-src 'unsafe-inline'";

/// Adds `nosniff` to `response`, and the policy its type calls for unless it has its own.
pub fn protect(response: &mut Response) {
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        return;
    }
    let media = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| crate::objects::display(t) == crate::objects::Display::Player);
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(if media { MEDIA_POLICY } else { OBJECT_POLICY }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected(content_type: Option<&str>, own_policy: Option<&str>) -> Response {
        let mut response = Response::new(Default::default());
        if let Some(t) = content_type {
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_str(t).unwrap());
        }
        if let Some(p) = own_policy {
            response.headers_mut().insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_str(p).unwrap(),
            );
        }
        protect(&mut response);
        response
    }

    fn policy(response: &Response) -> &str {
        response.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
    }

    #[test]
    fn every_answer_is_nosniff_and_sandboxed_whatever_its_type() {
        for t in [
            Some("text/html"),
            Some("image/svg+xml"),
            Some("application/xhtml+xml"),
            Some("application/json"),
            Some("application/xml"),
            Some("application/pdf"),
            Some("text/html; charset=video/mp4"),
            Some("video/mp4; a=b, text/html"),
            Some("video/mp4;x=\"a,b\", text/html"),
            Some("VIDEO/MP4 , TEXT/HTML"),
            Some("video/x+xml"),
            Some("audio/"),
            None,
        ] {
            let response = protected(t, None);
            assert_eq!(
                response.headers()[header::X_CONTENT_TYPE_OPTIONS],
                "nosniff"
            );
            assert_eq!(policy(&response), OBJECT_POLICY, "{t:?}");
        }
    }

    #[test]
    fn audio_and_video_keep_their_origin_but_never_scripts() {
        for t in ["video/mp4", "Audio/WAV", "video/webm; codecs=vp9"] {
            assert_eq!(policy(&protected(Some(t), None)), MEDIA_POLICY, "{t}");
        }
        for p in [OBJECT_POLICY, MEDIA_POLICY] {
            assert!(p.starts_with("sandbox") && !p.contains("allow-scripts"));
            assert!(p.contains("default-src 'none'"));
        }
    }

    #[test]
    fn a_console_page_keeps_its_own_policy() {
        let response = protected(Some("text/html"), Some("default-src 'none'"));
        assert_eq!(policy(&response), "default-src 'none'");
        assert_eq!(
            response.headers()[header::X_CONTENT_TYPE_OPTIONS],
            "nosniff"
        );
    }
}
