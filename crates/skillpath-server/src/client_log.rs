//! Telling clients what the server does on their behalf (MCP logging, `notifications/message`):
//! skill folders skipped or loaded again, the store's changes that failed to reload, writes
//! refused (a stale revision, the audit policy, a role), and the messages a client missed.
//! Without this a user learns of them only from a terminal they do not see.
//!
//! Two eras, two rules:
//! - 2025-11-25: a session hears what happens while it is open, from `info` until it asks for
//!   another level with `logging/setLevel`. What happens in the background (a folder sync)
//!   reaches every session through one broadcast channel; what a request does reaches its own
//!   session.
//! - 2026-07-28: a request hears only about itself, and only when its `_meta` names a log
//!   level (SEP-2577); background events have no stream to go on (a `subscriptions/listen`
//!   stream carries change notifications only).
//!
//! Messages are sentences the server writes itself: names and paths, never a key, a secret or
//! skill content. Each session takes at most [`BURST`] at once and [`PER_SECOND`] after; what it
//! was not sent is counted and said with the next message that is.
//!
//! MCP logging is deprecated by SEP-2577 (2026-07-28), which keeps it for the clients that use
//! it; so are the SDK's types for it, hence the `deprecated` allowance of this module.
#![expect(
    deprecated,
    reason = "MCP logging (SEP-2577) is what this module implements"
)]

use std::sync::{Arc, Mutex};
use std::time::Instant;

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::{Peer, RoleServer};

/// The most messages a session is sent at once.
pub(crate) const BURST: f64 = 20.0;

/// The messages a session is sent per second, past the burst.
pub(crate) const PER_SECOND: f64 = 5.0;

/// What a session hears until it asks for another level.
pub(crate) const DEFAULT_LEVEL: LoggingLevel = LoggingLevel::Info;

/// One message for clients: its level, what part of the server says it, and the sentence.
#[derive(Debug, Clone)]
pub(crate) struct ClientLog {
    pub(crate) level: LoggingLevel,
    pub(crate) logger: &'static str,
    pub(crate) text: String,
}

impl ClientLog {
    pub(crate) fn new(level: Level, logger: &'static str, text: impl Into<String>) -> ClientLog {
        ClientLog {
            level: level.into(),
            logger,
            text: text.into(),
        }
    }
}

/// The levels the server says things at, without naming the SDK's deprecated type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    Info,
    Warning,
}

impl From<Level> for LoggingLevel {
    fn from(level: Level) -> LoggingLevel {
        match level {
            Level::Info => LoggingLevel::Info,
            Level::Warning => LoggingLevel::Warning,
        }
    }
}

/// How severe `level` is, from `debug` (0) to `emergency` (7), as RFC 5424 orders them.
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// A session's level (from `logging/setLevel`), shared by its handler and its listener.
#[derive(Debug, Clone)]
pub(crate) struct SessionLevel(Arc<Mutex<LoggingLevel>>);

impl Default for SessionLevel {
    fn default() -> Self {
        SessionLevel(Arc::new(Mutex::new(DEFAULT_LEVEL)))
    }
}

impl SessionLevel {
    pub(crate) fn set(&self, level: LoggingLevel) {
        if let Ok(mut current) = self.0.lock() {
            *current = level;
        }
    }

    pub(crate) fn get(&self) -> LoggingLevel {
        self.0.lock().map_or(DEFAULT_LEVEL, |level| *level)
    }
}

/// A session's allowance of messages: a bucket of [`BURST`] refilled at [`PER_SECOND`].
#[derive(Debug)]
pub(crate) struct Allowance {
    tokens: f64,
    at: Instant,
    /// Messages not sent since the last one that was (rate or a lagging channel).
    missed: u64,
}

impl Default for Allowance {
    fn default() -> Self {
        Allowance {
            tokens: BURST,
            at: Instant::now(),
            missed: 0,
        }
    }
}

impl Allowance {
    /// Whether a message may go now; one that may not is counted as missed.
    fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * PER_SECOND;
        self.tokens = (self.tokens + refill).min(BURST);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            self.missed += 1;
            false
        }
    }

    /// Counts `count` messages that never reached the session (its channel lagged).
    pub(crate) fn missed(&mut self, count: u64) {
        self.missed = self.missed.saturating_add(count);
    }
}

/// Sends `log` to `peer` when it is at least `level` and the allowance has room, saying how
/// many messages were not sent before it. An error means the session is gone.
pub(crate) async fn send(
    peer: &Peer<RoleServer>,
    level: LoggingLevel,
    allowance: &mut Allowance,
    log: &ClientLog,
) -> Result<(), rmcp::service::ServiceError> {
    if rank(log.level) < rank(level) || !allowance.take() {
        return Ok(());
    }
    let text = match std::mem::take(&mut allowance.missed) {
        0 => log.text.clone(),
        missed => format!(
            "{} ({missed} earlier {} not sent: too many at once)",
            log.text,
            if missed == 1 {
                "message was"
            } else {
                "messages were"
            }
        ),
    };
    peer.notify_logging_message(
        LoggingMessageNotificationParam::new(log.level, text.into())
            .with_logger(log.logger.to_owned()),
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allowance_holds_a_burst_then_counts_what_it_drops() {
        let mut allowance = Allowance::default();
        let sent = (0..100).filter(|_| allowance.take()).count();
        assert_eq!(sent, BURST as usize);
        assert_eq!(allowance.missed, 100 - BURST as u64);
    }

    #[test]
    fn levels_are_ordered_as_rfc_5424_orders_them() {
        assert!(rank(LoggingLevel::Warning) > rank(LoggingLevel::Info));
        assert!(rank(LoggingLevel::Error) > rank(LoggingLevel::Warning));
        assert!(rank(LoggingLevel::Debug) < rank(LoggingLevel::Info));
    }
}
