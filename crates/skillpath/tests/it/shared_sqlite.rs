//! Many agents, one embedded store: several `skillpath serve` processes on one SQLite file (as
//! Claude Code and Cursor side by side would start them) follow every other writer. A change
//! made by a third process (`skillpath import`, `skillpath rollback`) or through the other server
//! (`create_skill`) reaches each client as `notifications/tools/list_changed` within a second,
//! with the new tool listed; two servers watching one folder import each change once.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::mcp_wire::Server;
use crate::support::{run_in as skillpath, write_skill};

/// How soon another process's change must reach a client.
const DEADLINE: Duration = Duration::from_secs(1);

/// Drops what `servers` sent so far (the echoes of earlier steps), once they are quiet.
fn drain(servers: [&mut Server; 2]) {
    for server in servers {
        while server.next_message(Duration::from_millis(300)).is_some() {}
    }
}

/// Waits for `list_changed` on `server`, which must come within [`DEADLINE`] of `since`;
/// then `tool` must be listed (or not, with `present` false).
fn hears(server: &mut Server, since: Instant, tool: &str, present: bool, what: &str) -> Duration {
    let latency = server.wait_for_list_changed(since);
    assert!(latency < DEADLINE, "{what}: list_changed after {latency:?}");
    assert_eq!(server.tool(tool).is_some(), present, "{what}: `{tool}`");
    latency
}

#[test]
fn every_server_on_one_sqlite_file_hears_every_other_writer_within_a_second() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("alpha"), "alpha", "Use when testing alpha.");
    let mut first = Server::start(&skills, work.path());
    let mut second = Server::start(&skills, work.path());
    // Let both settle (their start-up syncs and the watchers' first sync).
    drain([&mut first, &mut second]);

    // A third process imports a skill.
    write_skill(
        &work.path().join("more/imported"),
        "imported",
        "Use when testing an import by another process.",
    );
    let imported = Instant::now();
    let (code, _, stderr) = skillpath(work.path(), &["import", "more"]);
    assert_eq!(code, 0, "{stderr}");
    let mut latencies = vec![
        hears(
            &mut first,
            imported,
            "imported",
            true,
            "import, first server",
        ),
        hears(
            &mut second,
            imported,
            "imported",
            true,
            "import, second server",
        ),
    ];

    // `create_skill` through the first server reaches the second server's client.
    drain([&mut first, &mut second]);
    let created = Instant::now();
    let result = first.request(
        "tools/call",
        json!({"name": "create_skill", "arguments": {"name": "authored", "description": "Use when testing create_skill across processes."}}),
    );
    assert_ne!(result["isError"], true, "{result}");
    latencies.push(hears(
        &mut second,
        created,
        "authored",
        true,
        "create_skill through the other server",
    ));

    // A delete and a rollback by a third process.
    drain([&mut first, &mut second]);
    let (code, _, stderr) = skillpath(work.path(), &["delete", "imported"]);
    assert_eq!(code, 0, "{stderr}");
    let deleted = Instant::now();
    latencies.push(hears(
        &mut first,
        deleted,
        "imported",
        false,
        "delete, first",
    ));
    latencies.push(hears(
        &mut second,
        deleted,
        "imported",
        false,
        "delete, second",
    ));
    drain([&mut first, &mut second]);
    let (code, _, stderr) = skillpath(work.path(), &["restore", "imported"]);
    assert_eq!(code, 0, "{stderr}");
    let restored = Instant::now();
    latencies.push(hears(
        &mut first,
        restored,
        "imported",
        true,
        "restore, first",
    ));
    latencies.push(hears(
        &mut second,
        restored,
        "imported",
        true,
        "restore, second",
    ));
    // Revision 4 changes the description; a rollback to revision 3 brings the old one back.
    write_skill(
        &work.path().join("more/imported"),
        "imported",
        "Use when testing a changed import.",
    );
    let (code, _, stderr) = skillpath(work.path(), &["import", "more"]);
    assert_eq!(code, 0, "{stderr}");
    drain([&mut first, &mut second]);
    let (code, _, stderr) = skillpath(work.path(), &["rollback", "imported", "--to", "3"]);
    assert_eq!(code, 0, "{stderr}");
    let rolled_back = Instant::now();
    for (server, which) in [(&mut first, "first"), (&mut second, "second")] {
        latencies.push(hears(server, rolled_back, "imported", true, which));
        assert_eq!(
            server.tool("imported").expect("listed")["description"],
            "Use when testing an import by another process.",
            "rollback, {which} server"
        );
    }
    eprintln!("shared SQLite: list_changed after another process's change: {latencies:?}");

    for server in [first, second] {
        let (_, log) = server.finish();
        assert!(!log.contains("failed"), "{log}");
    }
}

#[test]
fn two_servers_watching_one_folder_import_each_change_once() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("alpha"), "alpha", "Use when testing alpha.");
    let mut first = Server::start(&skills, work.path());
    let mut second = Server::start(&skills, work.path());
    std::thread::sleep(Duration::from_millis(600));

    for round in 1..=5 {
        let added = Instant::now();
        let name = format!("added-{round}");
        write_skill(
            &skills.join(&name),
            &name,
            "Use when testing two watchers on one folder.",
        );
        // Both clients hear of it, whichever server imported it.
        for server in [&mut first, &mut second] {
            let deadline = added + Duration::from_secs(3);
            while server.tool(&name).is_none() {
                assert!(Instant::now() < deadline, "`{name}` never listed");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        // Both servers have synced it by now; it has one revision.
        std::thread::sleep(Duration::from_millis(400));
        let (code, history, stderr) =
            skillpath(work.path(), &["history", &name, "--format", "json"]);
        assert_eq!(code, 0, "{stderr}");
        let history: serde_json::Value = serde_json::from_str(&history).expect("json");
        let revisions = history["revisions"]
            .as_array()
            .or_else(|| history.as_array())
            .expect("revisions");
        assert_eq!(revisions.len(), 1, "{name}: {history:#}");
    }
    // An edit, once.
    write_skill(
        &skills.join("alpha"),
        "alpha",
        "Use when testing alpha, edited once.",
    );
    std::thread::sleep(Duration::from_secs(1));
    let (_, history, _) = skillpath(work.path(), &["history", "alpha", "--format", "json"]);
    let history: serde_json::Value = serde_json::from_str(&history).expect("json");
    let revisions = history["revisions"]
        .as_array()
        .or_else(|| history.as_array())
        .expect("revisions");
    assert_eq!(revisions.len(), 2, "{history:#}");

    for server in [first, second] {
        let (_, log) = server.finish();
        assert!(
            !log.contains("failed") && !log.contains("error"),
            "a server reported losing the race:\n{log}"
        );
    }
}

/// The texts of every way of reading the skill `name` (its tool, `load_skill`, its `SKILL.md`
/// resource, its prompt).
pub(crate) fn reads(server: &mut Server, name: &str) -> Vec<String> {
    let text = |result: &serde_json::Value, pointer: &str| {
        result
            .pointer(pointer)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let tool = server.request("tools/call", json!({"name": name, "arguments": {}}));
    let loaded = server.request(
        "tools/call",
        json!({"name": "load_skill", "arguments": {"name": name}}),
    );
    let uri = format!("skill://{name}/SKILL.md");
    let resource = server.request("resources/read", json!({ "uri": uri }));
    let prompt = server.request("prompts/get", json!({"name": name, "arguments": {}}));
    vec![
        text(&tool, "/content/0/text"),
        text(&loaded, "/content/0/text"),
        text(&resource, "/contents/0/text"),
        text(&prompt, "/messages/0/content/text"),
    ]
}

/// A server keeps the content of the skills it served in a cache keyed by revision: once
/// another process changes a skill the server has cached, it serves the new revision, through
/// every way of reading it (its tool, `load_skill`, its `SKILL.md` resource, its prompt).
#[test]
fn a_skill_changed_by_another_process_is_never_served_from_a_stale_cache() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("alpha"), "alpha", "Use when testing alpha.");
    let mut server = Server::start(&skills, work.path());
    let old = "Use when testing a cached skill.";
    let new = "Use when testing a cached skill, changed by another process.";
    // The description in the body too, which is what a call renders.
    let cached = work.path().join("more/cached");
    let write = |description: &str| {
        write_skill(&cached, "cached", description);
        let path = cached.join("SKILL.md");
        let text = std::fs::read_to_string(&path).expect("read");
        std::fs::write(&path, format!("{text}\n{description}\n")).expect("write");
    };
    write(old);
    let imported = Instant::now();
    let (code, _, stderr) = skillpath(work.path(), &["import", "more"]);
    assert_eq!(code, 0, "{stderr}");
    hears(&mut server, imported, "cached", true, "import");

    // Read twice: the second time from the cache.
    for _ in 0..2 {
        for text in reads(&mut server, "cached") {
            assert!(text.contains(old) && !text.contains(new), "{text}");
        }
    }

    write(new);
    let changed = Instant::now();
    let (code, _, stderr) = skillpath(work.path(), &["import", "more"]);
    assert_eq!(code, 0, "{stderr}");
    hears(&mut server, changed, "cached", true, "the change");
    for text in reads(&mut server, "cached") {
        assert!(text.contains(new), "served a stale revision: {text}");
    }
    let (_, log) = server.finish();
    assert!(!log.contains("failed"), "{log}");
}
