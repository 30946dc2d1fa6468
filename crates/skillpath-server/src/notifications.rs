//! Telling clients what changed: `list_changed` for a list whose items differ and
//! `resources/updated` for a subscribed resource whose content does, to legacy sessions (from
//! `notifications/initialized` on) and to the 2026 era's `subscriptions/listen` streams. Every
//! change is one signal on the server's change channel; each listener compares the catalog it
//! last saw with the current one, so a listener that lags misses nothing.

use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{NotificationContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer};
use tokio::sync::broadcast;

use crate::catalog::Catalog;
use crate::client_log::{self, Allowance};
use crate::resources;
use crate::state::SkillServer;

/// Which of the lists a client holds changed between two catalogs.
#[derive(Debug, Clone, Copy)]
struct ListChanges {
    tools: bool,
    prompts: bool,
    resources: bool,
}

#[cfg(feature = "conformance-fixtures")]
impl ListChanges {
    /// Every list (the conformance suite's trigger tools ask for that).
    const EVERY: ListChanges = ListChanges {
        tools: true,
        prompts: true,
        resources: true,
    };
}

/// How often a session's change listener checks whether its session has ended.
const SESSION_END_CHECK: std::time::Duration = std::time::Duration::from_secs(10);

/// Sends a `subscriptions/listen` stream what changed from `before` to `after`: an update for
/// each subscribed resource that changed, then the `list_changed` notifications it accepted. An error means the stream is gone.
async fn notify_listener(
    context: &SubscriptionContext,
    before: &Catalog,
    after: &Catalog,
    changes: ListChanges,
) -> Result<(), rmcp::service::SubscriptionSendError> {
    let sink = context.sink();
    let accepted = sink.accepted().clone();
    let subscribed = accepted.resource_subscriptions.unwrap_or_default();
    for uri in resources::updated(before, after, &subscribed) {
        sink.notify_resource_updated(uri).await?;
    }
    if changes.tools && accepted.tools_list_changed == Some(true) {
        sink.notify_tool_list_changed().await?;
    }
    if changes.prompts && accepted.prompts_list_changed == Some(true) {
        sink.notify_prompt_list_changed().await?;
    }
    if changes.resources && accepted.resources_list_changed == Some(true) {
        sink.notify_resource_list_changed().await?;
    }
    Ok(())
}

/// Which lists changed from `before` to `after`, so that a client hears `list_changed` for a
/// list only when its items did: editing a skill's body changes no tool, prompt or resource
/// entry (its resources get `resources/updated` instead).
fn list_changes(server: &SkillServer, before: &Catalog, after: &Catalog) -> ListChanges {
    ListChanges {
        tools: server.tools_differ(before, after),
        prompts: server.prompts_differ(before, after),
        resources: server.resources_differ(before, after),
    }
}

/// Serves a `subscriptions/listen` stream until it ends: after each change signal, what changed
/// since the catalog it last saw.
pub(crate) async fn listen(
    server: &SkillServer,
    context: SubscriptionContext,
) -> Result<(), McpError> {
    let mut changes = server.changes();
    // What this caller is served: a change of what they may see (a visibility, a membership,
    // a star) changes their lists though the whole catalog's tools stay the same.
    let caller = crate::auth::caller_of(context.request_context());
    let mut seen = server.catalog_for(&caller);
    loop {
        tokio::select! {
            () = context.cancelled() => return Ok(()),
            change = changes.recv() => {
                if matches!(change, Err(broadcast::error::RecvError::Closed)) {
                    return Ok(());
                }
                // A lagging receiver has missed signals, not catalogs: comparing with the
                // current catalog still finds every change.
                let now = server.catalog_for(&caller);
                let changes = match change {
                    #[cfg(feature = "conformance-fixtures")]
                Ok(crate::state::Announcement::EveryList) => ListChanges::EVERY,
                    _ => list_changes(server, &seen, &now),
                };
                if notify_listener(&context, &seen, &now, changes).await.is_err() {
                    return Ok(());
                }
                seen = now;
            }
        }
    }
}

/// Follows the change channel for a legacy session from `notifications/initialized` on, in a
/// task of its own that ends with the session: resource updates for its subscriptions, then
/// the `list_changed` notifications; and the messages for clients, at the session's level
/// ([`crate::client_log`]).
pub(crate) fn follow_for_session(session: &SkillServer, context: NotificationContext<RoleServer>) {
    let session = session.clone();
    let mut changes = session.changes();
    let mut logs = session.client_logs();
    let caller = crate::auth::caller_in(&context.extensions);
    let peer = context.peer;
    tokio::spawn(async move {
        // The session's caller's part of the catalog ([`listen`] says why).
        let mut seen = session.catalog_for(&caller);
        let mut allowance = Allowance::default();
        loop {
            let signal = tokio::select! {
                signal = changes.recv() => signal,
                log = logs.recv() => {
                    let sent = match log {
                        Ok(log) => {
                            client_log::send(&peer, session.session_level().get(), &mut allowance, &log).await
                        }
                        Err(broadcast::error::RecvError::Lagged(missed)) => {
                            allowance.missed(missed);
                            Ok(())
                        }
                        Err(broadcast::error::RecvError::Closed) => return,
                    };
                    if sent.is_err() {
                        return;
                    }
                    continue;
                }
                () = tokio::time::sleep(SESSION_END_CHECK) => {
                    // Nothing says when a session ends but its closed transport; without
                    // this check every ended session would keep its task (and the server's
                    // state) until the next change, however long that takes.
                    if peer.is_transport_closed() {
                        return;
                    }
                    continue;
                }
            };
            if matches!(signal, Err(broadcast::error::RecvError::Closed)) {
                return;
            }
            let now = session.catalog_for(&caller);
            let updated = resources::updated(&seen, &now, &session.subscribed());
            let changes = match signal {
                #[cfg(feature = "conformance-fixtures")]
                Ok(crate::state::Announcement::EveryList) => ListChanges::EVERY,
                _ => list_changes(&session, &seen, &now),
            };
            seen = now;
            // Updates first, so a client that re-reads on `list_changed` already knows which
            // of its resources changed.
            let sent = async {
                for uri in updated {
                    peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                        .await?;
                }
                if changes.tools {
                    peer.notify_tool_list_changed().await?;
                }
                if changes.prompts {
                    peer.notify_prompt_list_changed().await?;
                }
                if changes.resources {
                    peer.notify_resource_list_changed().await?;
                }
                Ok::<(), rmcp::service::ServiceError>(())
            };
            if sent.await.is_err() {
                return;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rmcp::ServiceExt;
    use skillpath_store::SqliteStore;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use super::SESSION_END_CHECK;
    use crate::ServerOptions;
    use crate::state::SkillServer;

    /// Found by the `mcp_request` fuzz target (memory grew with every session): each session's
    /// change listener lived on after the session ended, until the next change, holding the
    /// server's state. Now it ends within [`SESSION_END_CHECK`] of its session.
    #[tokio::test(start_paused = true)]
    async fn a_session_s_change_listener_ends_with_the_session() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Arc::new(SqliteStore::open(&dir.path().join("store.db")).expect("open"));
        let server = SkillServer::new(store, ServerOptions::default())
            .await
            .expect("a server");
        let alone = server.handles();
        let (client, server_end) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server_end);
        let session = server.for_session();
        let running = tokio::spawn(async move {
            if let Ok(service) = session.serve((read, write)).await {
                let _ = service.waiting().await;
            }
        });
        let (client_read, mut client_write) = tokio::io::split(client);
        client_write
            .write_all(
                concat!(
                    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
                    "\n",
                    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                    "\n",
                    r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
                    "\n"
                )
                .as_bytes(),
            )
            .await
            .expect("the server reads");
        let mut lines = BufReader::new(client_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains(r#""id":2"#) {
                break;
            }
        }
        assert!(
            server.handles() > alone,
            "the session and its listener hold the server"
        );
        drop(client_write);
        drop(lines);
        running.abort();
        let _ = running.await;
        tokio::time::sleep(SESSION_END_CHECK * 2).await;
        assert_eq!(
            server.handles(),
            alone,
            "an ended session's listener still holds the server"
        );
    }
}
