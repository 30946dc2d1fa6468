//! `skillpath serve` watches its skill folders: an edit, an addition and a removal on disk reach
//! the store and connected clients (`notifications/tools/list_changed`, and
//! `notifications/resources/updated` for subscribed resources), and `tools/list` shows the change. Speaks raw JSON-RPC over stdio, so nothing stands between the test and the wire.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mcp_wire::Server;
use crate::support::write_skill;

#[test]
fn edits_additions_and_removals_on_disk_reach_connected_clients() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(
        &skills.join("alpha"),
        "alpha",
        "Use when testing the first version.",
    );
    let mut server = Server::start(&skills, work.path());
    assert_eq!(
        server.tool("alpha").expect("alpha is a tool")["description"],
        "Use when testing the first version."
    );

    let edited = Instant::now();
    write_skill(
        &skills.join("alpha"),
        "alpha",
        "Use when testing the second version.",
    );
    let edit_latency = server.wait_for_list_changed(edited);
    assert_eq!(
        server.tool("alpha").expect("alpha")["description"],
        "Use when testing the second version."
    );

    let added = Instant::now();
    write_skill(
        &skills.join("beta"),
        "beta",
        "Use when testing an added skill.",
    );
    let add_latency = server.wait_for_list_changed(added);
    assert!(server.tool("beta").is_some(), "the added skill is a tool");

    let removed = Instant::now();
    std::fs::remove_dir_all(skills.join("alpha")).expect("remove");
    let remove_latency = server.wait_for_list_changed(removed);
    assert!(server.tool("alpha").is_none(), "the removed skill is gone");

    eprintln!(
        "watch: list_changed after an edit {edit_latency:?}, an addition {add_latency:?}, a removal {remove_latency:?}"
    );
    for latency in [edit_latency, add_latency, remove_latency] {
        assert!(latency < Duration::from_secs(3), "{latency:?}");
    }
}

/// The URIs of the `notifications/resources/updated` among `notifications`.
fn updated_uris(notifications: &[Value]) -> Vec<&str> {
    notifications
        .iter()
        .filter(|n| n["method"] == "notifications/resources/updated")
        .filter_map(|n| n["params"]["uri"].as_str())
        .collect()
}

#[test]
fn subscribers_hear_of_changes_to_the_resources_they_watch_and_no_others() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("alpha"), "alpha", "Use when testing alpha.");
    write_skill(&skills.join("beta"), "beta", "Use when testing beta.");
    let mut server = Server::start(&skills, work.path());
    for uri in [
        "skill://alpha/SKILL.md",
        "skill://beta/SKILL.md",
        // Not there yet: a subscription may wait for a file to appear.
        "skill://alpha/notes.md",
    ] {
        let subscribed = server.call("resources/subscribe", json!({ "uri": uri }));
        assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    }
    let foreign = server.call("resources/subscribe", json!({"uri": "file:///etc/passwd"}));
    assert_eq!(foreign["error"]["code"], -32602, "{foreign}");
    let unsubscribed = server.call(
        "resources/unsubscribe",
        json!({"uri": "skill://beta/SKILL.md"}),
    );
    assert_eq!(unsubscribed["result"], json!({}), "{unsubscribed}");

    write_skill(
        &skills.join("alpha"),
        "alpha",
        "Use when testing alpha, edited.",
    );
    let notes = server.notifications_until_list_changed();
    assert_eq!(
        updated_uris(&notes),
        ["skill://alpha/SKILL.md"],
        "{notes:?}"
    );

    write_skill(
        &skills.join("beta"),
        "beta",
        "Use when testing beta, edited.",
    );
    let notes = server.notifications_until_list_changed();
    assert!(updated_uris(&notes).is_empty(), "{notes:?}");

    // The prompt and resource list changes that follow the tool list's.
    server.notifications_for(Duration::from_millis(300));
    // A new file is a new resource: the resource list changed, and no tool or prompt did.
    std::fs::write(skills.join("alpha/notes.md"), "# Notes\n").expect("write");
    let notes = server.notifications_until("notifications/resources/list_changed");
    assert_eq!(
        updated_uris(&notes),
        ["skill://alpha/notes.md"],
        "{notes:?}"
    );
}

/// The methods of `notifications`.
fn methods(notifications: &[Value]) -> Vec<&str> {
    notifications
        .iter()
        .filter_map(|n| n["method"].as_str())
        .collect()
}

#[test]
fn a_list_changed_notification_comes_only_when_that_list_changed() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("alpha"), "alpha", "Use when testing alpha.");
    let mut server = Server::start(&skills, work.path());
    let subscribed = server.call(
        "resources/subscribe",
        json!({"uri": "skill://alpha/SKILL.md"}),
    );
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    server.notifications_for(Duration::from_millis(500));

    // Only the body changes: the resource is updated, and no list changed.
    std::fs::write(
        skills.join("alpha/SKILL.md"),
        "---\nname: alpha\ndescription: Use when testing alpha.\n---\n# alpha\n\nA longer body.\n",
    )
    .expect("write");
    let notes = server.notifications_until("notifications/resources/updated");
    let notes = [notes, server.notifications_for(Duration::from_millis(800))].concat();
    assert_eq!(
        methods(&notes),
        ["notifications/resources/updated"],
        "a body edit: {notes:?}"
    );

    // The description changes: tools, prompts and resources all list it.
    write_skill(
        &skills.join("alpha"),
        "alpha",
        "Use when testing a new description.",
    );
    let notes = server.notifications_until("notifications/tools/list_changed");
    let notes = [notes, server.notifications_for(Duration::from_millis(800))].concat();
    let mut got = methods(&notes);
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
            "notifications/resources/updated",
            "notifications/tools/list_changed",
        ],
        "a description edit: {notes:?}"
    );
}
