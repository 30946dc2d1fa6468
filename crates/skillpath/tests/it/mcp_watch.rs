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

/// A skill whose name and file name need percent-encoding: a client subscribes to the URI
/// `resources/list` gives (encoded), and hears `resources/updated` for that URI when the file
/// changes; a subscription to the raw form of before the encoding is heard too, by its own URI.
#[test]
fn subscriptions_to_percent_encoded_uris_hear_of_changes() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(
        &skills.join("my notes"),
        "my notes",
        "Use when testing URIs.",
    );
    std::fs::write(skills.join("my notes/notes #1.md"), "# Notes\n").expect("write");
    let mut server = Server::start(&skills, work.path());
    let encoded = "skill://my%20notes/notes%20%231.md";
    let raw = "skill://my notes/notes #1.md";
    let listed = server.request("resources/list", json!({}));
    let uris: Vec<&str> = listed["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|resource| resource["uri"].as_str())
        .collect();
    assert_eq!(uris, ["skill://my%20notes/SKILL.md", encoded], "{listed}");
    for uri in [encoded, raw] {
        let subscribed = server.call("resources/subscribe", json!({ "uri": uri }));
        assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    }
    server.notifications_for(Duration::from_millis(300));

    std::fs::write(skills.join("my notes/notes #1.md"), "# Notes, edited\n").expect("write");
    let mut notes = server.notifications_until("notifications/resources/updated");
    notes.extend(server.notifications_for(Duration::from_millis(800)));
    let mut heard = updated_uris(&notes);
    heard.sort_unstable();
    assert_eq!(heard, [raw, encoded], "{notes:?}");
}

/// The methods of `notifications`, but log messages (`notifications/message`, which say what
/// the server did, such as a folder sync, not what changed).
fn methods(notifications: &[Value]) -> Vec<&str> {
    notifications
        .iter()
        .filter_map(|n| n["method"].as_str())
        .filter(|method| *method != "notifications/message")
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

/// The names of the tools on the first page of `tools/list`, and whether there are more.
fn first_page(server: &mut Server) -> (Vec<String>, bool) {
    let listed = server.request("tools/list", json!({}));
    let names = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| tool["name"].as_str().expect("name").to_owned())
        .collect();
    (names, !listed["nextCursor"].is_null())
}

/// The names of every tool, page after page.
pub(crate) fn all_tools(server: &mut Server) -> Vec<String> {
    let mut names = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let params = if cursor.is_null() {
            json!({})
        } else {
            json!({ "cursor": cursor })
        };
        let listed = server.request("tools/list", params);
        names.extend(
            listed["tools"]
                .as_array()
                .expect("tools")
                .iter()
                .map(|tool| tool["name"].as_str().expect("name").to_owned()),
        );
        cursor = listed["nextCursor"].clone();
        if cursor.is_null() {
            return names;
        }
    }
}

/// With `--sync-wait 0`, `serve` answers from the store as soon as it is open and syncs its
/// folders in the background (what every server does past its `--sync-wait`): a client that
/// connects at once gets the store's last state, every list it asks for during the sync is that
/// state or the synced one (a sync is one transaction, never seen half done), and it hears
/// `tools/list_changed` once the sync changed the store.
#[test]
fn serve_answers_from_the_store_first_and_announces_the_folder_sync() {
    let work = tempfile::tempdir().expect("tempdir");
    // The store's last state: one skill, from an earlier import.
    let earlier = work.path().join("earlier");
    write_skill(
        &earlier.join("early-bird"),
        "early-bird",
        "Use when testing what the store held before.",
    );
    let db = work.path().join("store.db");
    let (code, _, stderr) = crate::support::run_in(
        work.path(),
        &[
            "import",
            &earlier.display().to_string(),
            "--db",
            &db.display().to_string(),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    // The corpus is large enough (669 skills) for its first sync to take a while.
    let corpus = crate::support::corpus_dir();
    let serve = |wait: bool| {
        let mut command = std::process::Command::new(crate::support::skillpath_bin());
        command
            .args([
                "serve",
                "--no-discover",
                "--tools",
                "per-skill",
                "--page-size",
                "1000",
                "--sync-wait",
                "0",
            ])
            .arg("--skills")
            .arg(&corpus)
            .env("SKILLPATH_DB", &db)
            .env("HOME", work.path());
        if wait {
            Server::spawn(command)
        } else {
            Server::spawn_unsynced(command)
        }
    };
    let mut server = serve(false);
    let before = first_page(&mut server);
    assert!(
        !crate::support::first_sync_said(&server.log()),
        "the first answer came before the sync was done:\n{}",
        server.log()
    );
    assert!(!before.1, "the store's last state is one page: {before:?}");
    assert!(
        before.0.iter().any(|name| name == "early-bird"),
        "{before:?}"
    );
    // Each list during the sync is the store's last state or the synced one (its first page).
    let mut during = Vec::new();
    while !crate::support::first_sync_said(&server.log()) {
        during.push(first_page(&mut server));
    }
    let mut heard = server.passed_over();
    if !heard
        .iter()
        .any(|m| m["method"] == "notifications/tools/list_changed")
    {
        heard.extend(server.notifications_until_list_changed());
    }
    let after = first_page(&mut server);
    let every = all_tools(&mut server);
    assert!(
        every.len() > before.0.len() + 500,
        "the corpus is served after the sync: {} tools",
        every.len()
    );
    assert!(every.iter().any(|name| name == "early-bird"));
    // What a server started after the sync serves is what this one moved to.
    let mut synced = serve(true);
    assert_eq!(all_tools(&mut synced), every);
    for page in &during {
        assert!(
            *page == before || *page == after,
            "a list during the sync is the state before or after it: {} tools",
            page.0.len()
        );
    }
    let old = during.iter().filter(|page| **page == before).count();
    eprintln!(
        "answer-first: {old} of {} lists during the sync showed the store's last state",
        during.len()
    );
}
