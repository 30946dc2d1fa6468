//! Change signals across the servers on one database. Every committed write announces itself
//! with `pg_notify('skillpath_changes', <schema>)` in its transaction ([`announce`]: delivered
//! on commit, never for a rolled-back write); [`listen`] keeps one dedicated connection (outside
//! the pool) that `LISTEN`s on that channel and turns the notifications for this store's schema
//! into change signals, reconnecting with backoff when it drops.

use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::Transaction;
use tokio::sync::{broadcast, mpsc};
use tokio_postgres::AsyncMessage;

use super::counts::SearchCounts;
use super::sql::cached_execute;
use super::tls;
use crate::error::{StoreError, StoreResult};

/// The notification channel every write announces itself on; the payload is the schema written
/// to, so stores in other schemas of the same database ignore it.
pub(super) const CHANGES_CHANNEL: &str = "skillpath_changes";

/// How long the change listener waits before reconnecting, at first and at most.
const LISTEN_BACKOFF: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(10));

/// The database the change listener connects to, as its store does.
pub(super) struct Target {
    pub(super) config: tokio_postgres::Config,
    pub(super) tls: tls::Connector,
    /// The schema whose notifications are signalled.
    pub(super) schema: String,
    /// Where the database is, without a password, for messages.
    pub(super) database: String,
    pub(super) connect_timeout: Duration,
}

/// The change listener: `LISTEN`s on its own connection and signals `sender` for every
/// notification about `schema`, dropping the search counts kept (`counts`) first; reconnects
/// with backoff when the connection drops, and
/// signals once each time it starts listening (the first time too: a change committed before
/// then, e.g. just after the caller loaded what it shows, would otherwise go unseen). Ends
/// when the store (every clone) is gone.
pub(super) async fn listen(
    target: Target,
    listening: Arc<std::sync::atomic::AtomicBool>,
    counts: Arc<SearchCounts>,
    sender: broadcast::WeakSender<()>,
) {
    let Target {
        mut config,
        tls,
        schema,
        database,
        connect_timeout,
    } = target;
    if config.get_application_name().is_none() {
        // So that an operator (or a test) can tell the listener in `pg_stat_activity`.
        config.application_name(format!("skillpath listen {schema}"));
    }
    // An idle connection that silently went away (a network partition) is noticed within
    // about a minute rather than at the system's default of hours.
    config
        .keepalives(true)
        .keepalives_idle(Duration::from_secs(30))
        .keepalives_interval(Duration::from_secs(10))
        .keepalives_retries(3);
    let mut backoff = LISTEN_BACKOFF.0;
    let mut failed = false;
    loop {
        let result = listen_once(
            &config,
            &tls,
            &schema,
            connect_timeout,
            &counts,
            &sender,
            || {
                backoff = LISTEN_BACKOFF.0;
                // Changes may have gone unheard while not listening.
                counts.changed();
                listening.store(true, std::sync::atomic::Ordering::SeqCst);
                if failed {
                    tracing::info!("listening for changes on PostgreSQL at `{database}` again");
                }
            },
        )
        .await;
        listening.store(false, std::sync::atomic::Ordering::SeqCst);
        failed = true;
        if sender.upgrade().is_none() {
            return;
        }
        match result {
            Ok(()) => tracing::warn!(
                "the change listener's connection to PostgreSQL at `{database}` closed; reconnecting"
            ),
            Err(error) => tracing::warn!(
                "listening for changes on PostgreSQL at `{database}` failed: {error}; retrying in {} ms",
                backoff.as_millis()
            ),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(LISTEN_BACKOFF.1);
    }
}

/// One connection of the change listener, until it drops (or the store is gone).
async fn listen_once(
    config: &tokio_postgres::Config,
    tls: &tls::Connector,
    schema: &str,
    connect_timeout: Duration,
    counts: &SearchCounts,
    sender: &broadcast::WeakSender<()>,
    connected: impl FnOnce(),
) -> Result<(), StoreError> {
    let (client, mut connection) =
        tokio::time::timeout(connect_timeout, config.connect(tls.clone()))
            .await
            .map_err(|_| {
                StoreError::database(format!(
                    "no connection within {} s (`connect_timeout`)",
                    connect_timeout.as_secs()
                ))
            })??;
    let (payloads, mut received) = mpsc::unbounded_channel::<String>();
    // The connection must be polled for `LISTEN` to complete and for notifications.
    let driver = tokio::spawn(async move {
        loop {
            match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                Some(Ok(AsyncMessage::Notification(notification))) => {
                    if payloads.send(notification.payload().to_owned()).is_err() {
                        return Ok(());
                    }
                }
                Some(Ok(_)) => {} // notices
                Some(Err(error)) => return Err(error),
                None => return Ok(()),
            }
        }
    });
    client
        .batch_execute(&format!("LISTEN {CHANGES_CHANNEL}"))
        .await?;
    connected();
    let signal = || match sender.upgrade() {
        Some(sender) => {
            counts.changed();
            let _ = sender.send(());
            true
        }
        None => false,
    };
    if !signal() {
        return Ok(());
    }
    while let Some(payload) = received.recv().await {
        if payload == schema && !signal() {
            return Ok(());
        }
    }
    drop(client);
    match driver.await {
        Ok(result) => result.map_err(StoreError::from),
        Err(_) => Ok(()), // the driver panicked or was cancelled: reconnect all the same
    }
}

/// Tells every change listener, when the transaction commits, that this schema changed.
pub(super) async fn announce(transaction: &Transaction<'_>) -> StoreResult<()> {
    cached_execute(
        transaction,
        "SELECT pg_notify($1, current_schema())",
        &[&CHANGES_CHANNEL],
    )
    .await?;
    Ok(())
}
