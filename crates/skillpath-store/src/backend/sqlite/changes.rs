//! Change signals across processes on one SQLite file: every `serve` on a database follows
//! every other writer (another `serve`, `skillpath import`, `rollback`, any command).
//!
//! SQLite has no notifications, but it counts commits: `PRAGMA data_version` on a connection
//! changes whenever another connection (of this process or any other) has committed since the
//! last time it was asked. In WAL mode asking reads a counter in the shared-memory index and
//! touches no table, so one connection asks every [`POLL_INTERVAL`] and turns each change into
//! a signal. Idle, that is four cheap statements a second (the idle cost is measured in
//! `BENCHMARKS.md`).

use std::path::PathBuf;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use tokio::sync::broadcast;

/// How often the commit counter is read: a change reaches other processes' clients well within
/// a second.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(250);

/// Reads the commit counter of the database at `path` until no receiver of `sender` is left,
/// signalling once at start (changes may have been made before anyone listened) and once per
/// change seen. A database that cannot be opened or read is tried again at the next tick.
pub(crate) async fn follow(path: PathBuf, sender: broadcast::WeakSender<()>) {
    let mut interval = tokio::time::interval(POLL_INTERVAL);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut connection: Option<Connection> = None;
    let mut last: Option<i64> = None;
    loop {
        interval.tick().await;
        let Some(sender) = sender.upgrade() else {
            return;
        };
        if connection.is_none() {
            connection = Connection::open_with_flags(
                &path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .ok();
        }
        let Some(open) = &connection else {
            continue;
        };
        // Microseconds: the counter is in memory shared with the writers, so this runs on the
        // runtime's thread rather than the blocking pool.
        match open.query_row("PRAGMA data_version", [], |row| row.get::<_, i64>(0)) {
            Ok(version) => {
                if last != Some(version) {
                    last = Some(version);
                    let _ = sender.send(());
                }
            }
            // Opened again at the next tick (the file may have been replaced).
            Err(_) => connection = None,
        }
    }
}
