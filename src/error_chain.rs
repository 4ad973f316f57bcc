//! An error and its causes on one line ("error sending request: connection refused"), for
//! messages about calls to other servers, where the cause is what the reader needs.

pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
