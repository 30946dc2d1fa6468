//! What skillpath says on stderr about its own work: the libraries emit `tracing` events, and
//! this subscriber, set up once at start, prints them. At the default level (`info`) each line
//! is `skillpath: <message>`, the words the server has always used, and the libraries skillpath
//! runs on (rmcp, hyper, tokio-postgres) stay silent; `--log-level debug` or `trace` adds
//! skillpath's detail and those libraries' warnings, each line with its level and origin.
//! `RUST_LOG`, when set, takes precedence over the flag (standard `EnvFilter` syntax).

use std::fmt;

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

use crate::cli::LogLevel;

/// The crates whose events `--log-level` sets; everything else is held at `warn` (with
/// `debug` and `trace`) or off.
const OWN_CRATES: [&str; 4] = [
    "skillpath",
    "skillpath_core",
    "skillpath_store",
    "skillpath_server",
];

/// Installs the subscriber for the process. Called once, before any command runs; a second
/// call (none is made) would leave the first in place.
pub(crate) fn init(level: LogLevel) {
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => EnvFilter::new(directives),
        _ => EnvFilter::new(directives(level)),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .event_format(Lines)
        .try_init();
}

/// The filter directives `--log-level` means.
fn directives(level: LogLevel) -> String {
    let own = match level {
        LogLevel::Off => "off",
        LogLevel::Error => "error",
        LogLevel::Warn => "warn",
        LogLevel::Info => "info",
        LogLevel::Debug => "debug",
        LogLevel::Trace => "trace",
    };
    let others = if matches!(level, LogLevel::Debug | LogLevel::Trace) {
        "warn"
    } else {
        "off"
    };
    std::iter::once(others.to_owned())
        .chain(OWN_CRATES.iter().map(|name| format!("{name}={own}")))
        .collect::<Vec<_>>()
        .join(",")
}

/// One line per event: `skillpath: <message>` for skillpath's own events at `info` and above,
/// `skillpath: <LEVEL> <target>: <message>` for the rest, fields after the message.
struct Lines;

impl<S, N> FormatEvent<S, N> for Lines
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        context: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let metadata = event.metadata();
        let own = OWN_CRATES
            .iter()
            .any(|name| metadata.target().split("::").next() == Some(name));
        write!(writer, "skillpath: ")?;
        if !own || *metadata.level() > Level::INFO {
            write!(writer, "{} {}: ", metadata.level(), metadata.target())?;
        }
        context.format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_level_hears_only_skillpath() {
        let info = directives(LogLevel::Info);
        assert!(info.starts_with("off,"), "{info}");
        assert!(info.contains("skillpath_server=info"), "{info}");
        assert!(directives(LogLevel::Debug).starts_with("warn,"));
        assert!(directives(LogLevel::Off).contains("skillpath_store=off"));
    }
}
