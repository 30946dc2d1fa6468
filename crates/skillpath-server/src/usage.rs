//! Counting how skills are used ([`skillpath_store::usage`]): every call of a skill's tool,
//! `load_skill`, prompt render and resource read adds one to a count in memory, which a task
//! writes to the store every [`FLUSH_EVERY`] (or sooner, once [`FLUSH_AT`] counts are pending)
//! and once more when the server stops, so a use costs a map update and never waits for the
//! database. Counts that cannot be written are kept for the next write, up to [`MAX_PENDING`];
//! past that, new uses are not counted until a write succeeds (said once in the log).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use skillpath_store::Store;
use skillpath_store::time::now_rfc3339;
use skillpath_store::usage::{UsageCount, UsageKind};

/// How often the counts are written.
pub(crate) const FLUSH_EVERY: Duration = Duration::from_secs(5);

/// How long a stopping server waits for its last write of the counts.
pub(crate) const LAST_WRITE_WITHIN: Duration = Duration::from_secs(2);

/// How many distinct counts (skill, revision, day, key, kind) make a write happen at once.
const FLUSH_AT: usize = 10_000;

/// The most distinct counts kept while the store cannot be written.
const MAX_PENDING: usize = 100_000;

/// What identifies a count.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Counted {
    skill: String,
    revision: u64,
    day: String,
    key: String,
    kind: UsageKind,
}

/// The uses counted and not yet written.
pub(crate) struct Tally {
    store: Arc<dyn Store>,
    pending: Mutex<HashMap<Counted, (u64, String)>>,
    /// Woken when [`FLUSH_AT`] counts are pending.
    full: tokio::sync::Notify,
    /// Whether the last write failed (said once, until one succeeds).
    failing: std::sync::atomic::AtomicBool,
    /// Held while counts are written, so that a write waits for the one under way: the last
    /// write as a server stops (a second signal's among them) returns only once every count
    /// taken before it is in the store.
    writing: tokio::sync::Mutex<()>,
}

impl Tally {
    /// A tally writing to `store`, with its writing task started (it ends with the tally).
    pub(crate) fn start(store: Arc<dyn Store>) -> Arc<Tally> {
        let tally = Arc::new(Tally {
            store,
            pending: Mutex::default(),
            full: tokio::sync::Notify::new(),
            failing: std::sync::atomic::AtomicBool::new(false),
            writing: tokio::sync::Mutex::new(()),
        });
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(write_periodically(Arc::downgrade(&tally)));
        }
        tally
    }

    /// Counts one use of revision `revision` of `skill`, with the key `key` if any.
    pub(crate) fn count(&self, skill: &str, revision: u64, key: Option<&str>, kind: UsageKind) {
        let now = now_rfc3339();
        let counted = Counted {
            skill: skill.to_owned(),
            revision,
            day: now.get(..10).unwrap_or(&now).to_owned(),
            key: key.unwrap_or_default().to_owned(),
            kind,
        };
        let Ok(mut pending) = self.pending.lock() else {
            return;
        };
        let known = pending.contains_key(&counted);
        if !known && pending.len() >= MAX_PENDING {
            return;
        }
        let entry = pending.entry(counted).or_insert((0, String::new()));
        entry.0 += 1;
        entry.1 = now;
        if pending.len() >= FLUSH_AT {
            self.full.notify_one();
        }
    }

    /// Writes the pending counts, after the write under way if there is one; on failure they
    /// are kept (within [`MAX_PENDING`]) for the next write.
    pub(crate) async fn write(&self) {
        let _writing = self.writing.lock().await;
        let taken = match self.pending.lock() {
            Ok(mut pending) => std::mem::take(&mut *pending),
            Err(_) => return,
        };
        if taken.is_empty() {
            return;
        }
        let counts: Vec<UsageCount> = taken
            .iter()
            .map(|(counted, (count, last_used))| UsageCount {
                skill: counted.skill.clone(),
                revision: counted.revision,
                day: counted.day.clone(),
                key: counted.key.clone(),
                kind: counted.kind,
                count: *count,
                last_used: last_used.clone(),
            })
            .collect();
        use std::sync::atomic::Ordering;
        match self.store.record_usage(counts).await {
            Ok(()) => {
                if self.failing.swap(false, Ordering::Relaxed) {
                    tracing::info!("usage counts are written again");
                }
            }
            Err(error) => {
                if !self.failing.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        "cannot write usage counts (kept for the next try, up to {MAX_PENDING}): {error}"
                    );
                }
                if let Ok(mut pending) = self.pending.lock() {
                    for (counted, (count, last_used)) in taken {
                        if pending.len() >= MAX_PENDING && !pending.contains_key(&counted) {
                            continue;
                        }
                        let entry = pending.entry(counted).or_insert((0, String::new()));
                        entry.0 += count;
                        entry.1 = entry.1.clone().max(last_used);
                    }
                }
            }
        }
    }
}

/// Writes `tally`'s counts every [`FLUSH_EVERY`], or when it is full, for as long as it lives.
async fn write_periodically(tally: Weak<Tally>) {
    loop {
        let Some(live) = tally.upgrade() else { return };
        tokio::select! {
            () = tokio::time::sleep(FLUSH_EVERY) => {}
            () = live.full.notified() => {}
        }
        live.write().await;
    }
}
