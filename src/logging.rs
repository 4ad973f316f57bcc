//! Log output through `tracing`: text or JSON lines on stderr (stdout is for command
//! output), with a level that a configuration reload can change. Text lines show decimal
//! numbers rounded to two places; JSON lines keep them whole, for machines.

use crate::config::settings::LogFormat;
use std::fmt;
use std::io::IsTerminal;
use std::sync::OnceLock;
use tracing::field::{Field, Visit};
use tracing_subscriber::field::{MakeVisitor, VisitFmt, VisitOutput};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::format::{DefaultVisitor, Writer};
use tracing_subscriber::prelude::*;
use tracing_subscriber::{Registry, reload};

/// The level handle of the installed logger; the logger is process-wide, so is this.
static LEVEL: OnceLock<reload::Handle<LevelFilter, Registry>> = OnceLock::new();

/// Changes the level of the installed logger (no-op when none is installed).
pub fn set_level(level: &str) {
    if let Some(handle) = LEVEL.get() {
        let _ = handle.modify(|filter| *filter = parse_level(level));
    }
}

pub fn parse_level(level: &str) -> LevelFilter {
    level.parse().unwrap_or(LevelFilter::INFO)
}

/// Installs the global logger; does nothing when one is already installed (tests that
/// start several servers in one process).
pub fn init(level: &str, format: LogFormat) {
    let (filter, handle) = reload::Layer::new(parse_level(level));
    let output = match format {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_writer(std::io::stderr)
            .boxed(),
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_ansi(std::io::stderr().is_terminal())
            .fmt_fields(RoundedFields)
            .with_writer(std::io::stderr)
            .boxed(),
    };
    if tracing_subscriber::registry()
        .with(filter)
        .with(output)
        .try_init()
        .is_ok()
    {
        let _ = LEVEL.set(handle);
    }
}

/// The text log's field formatter: tracing's default one, except that decimal numbers are
/// rounded to two places (`duration_ms=1.23`, not `duration_ms=1.2345678901234567`).
struct RoundedFields;

impl<'a> MakeVisitor<Writer<'a>> for RoundedFields {
    type Visitor = Rounded<DefaultVisitor<'a>>;

    fn make_visitor(&self, target: Writer<'a>) -> Self::Visitor {
        Rounded(DefaultVisitor::new(target, true))
    }
}

/// Passes every field to the inner visitor, decimal numbers rounded first.
struct Rounded<V>(V);

/// `value` rounded to two decimal places, printed without trailing zeros.
fn rounded(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

impl<V: Visit> Visit for Rounded<V> {
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0
            .record_debug(field, &format_args!("{}", rounded(value)));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.record_i64(field, value);
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.record_u64(field, value);
    }
    fn record_i128(&mut self, field: &Field, value: i128) {
        self.0.record_i128(field, value);
    }
    fn record_u128(&mut self, field: &Field, value: u128) {
        self.0.record_u128(field, value);
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.record_bool(field, value);
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.record_str(field, value);
    }
    fn record_bytes(&mut self, field: &Field, value: &[u8]) {
        self.0.record_bytes(field, value);
    }
    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.0.record_error(field, value);
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.record_debug(field, value);
    }
}

impl<V: VisitOutput<fmt::Result>> VisitOutput<fmt::Result> for Rounded<V> {
    fn finish(self) -> fmt::Result {
        self.0.finish()
    }
}

impl<V: VisitFmt> VisitFmt for Rounded<V> {
    fn writer(&mut self) -> &mut dyn fmt::Write {
        self.0.writer()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn text_lines_round_decimal_numbers_and_keep_the_other_fields() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .without_time()
            .with_target(false)
            .fmt_fields(RoundedFields)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(
                path = "/health",
                status = 200u16,
                duration_ms = 0.658044_f64,
                retry_in_secs = 4.0_f64,
                "request"
            );
        });
        let line = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            line,
            " INFO request path=\"/health\" status=200 duration_ms=0.66 retry_in_secs=4\n"
        );
    }
}
