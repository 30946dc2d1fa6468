//! `skillpath serve` watches its skill folders: an edit, an addition and a removal on disk reach
//! the store and connected clients (`notifications/tools/list_changed`), and `tools/list` shows
//! the change. Speaks raw JSON-RPC over stdio, so nothing stands between the test and the wire.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::mcp_wire::Server;

fn write_skill(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir).expect("mkdir");
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"),
    )
    .expect("write");
}

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
