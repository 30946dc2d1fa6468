//! Usage counting with real processes: two `skillpath serve --http` on one SQLite file count
//! tool calls, loads, prompt renders and resource reads (with the key's name where there is
//! one), write them in batches while serving and once more when stopped (a second signal, which
//! ends the server at once, too), and `skillpath usage` and `get_skill` show the sums; the
//! skills nobody used are named.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillpath_test_support::RunExt;

use crate::support::{HttpServer, rpc, skillpath};

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills")
}

/// `skillpath ARGS --format json` on the work folder's database, as JSON.
fn json_on(db: &std::path::Path, args: &[&str]) -> Value {
    skillpath(args)
        .args(["--format", "json", "--db"])
        .arg(db)
        .ok_json()
}

/// A usage row as (skill, group, calls, loads, prompts, reads).
type Sums = (String, Option<String>, u64, u64, u64, u64);

/// Each usage row as [`Sums`].
fn sums(rows: &Value) -> Vec<Sums> {
    rows.as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            let n = |field: &str| row[field].as_u64().expect("a count");
            (
                row["skill"].as_str().expect("skill").to_owned(),
                row["group"].as_str().map(str::to_owned),
                n("calls"),
                n("loads"),
                n("prompts"),
                n("reads"),
            )
        })
        .collect()
}

/// A stateless HTTP server with a tool per skill, syncing the example skills into the work
/// folder's store.
fn serve_examples(work: &std::path::Path) -> HttpServer {
    let examples = examples_dir();
    HttpServer::start(
        work,
        &[
            "--stateless",
            "--tools",
            "per-skill",
            "--skills",
            examples.to_str().expect("utf-8"),
        ],
    )
}

fn ok(server: &HttpServer, key: Option<&str>, method: &str, params: Value) -> Value {
    let (status, response, message) = rpc(server, key, method, params);
    assert_eq!(status, 200, "{response}");
    assert!(message["error"].is_null(), "{message}");
    assert_ne!(message["result"]["isError"], true, "{message}");
    message
}

#[test]
fn uses_counted_by_two_servers_on_one_database_add_up() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    let key = {
        let created = json_on(
            &db,
            &["keys", "create", "--name", "ana", "--role", "reader"],
        );
        created["key"].as_str().expect("key").to_owned()
    };
    let mut first = serve_examples(work.path());
    let mut second = HttpServer::start(work.path(), &["--stateless", "--tools", "per-skill"]);

    // Three calls with ana's key on one server; on the other, without a key, two loads, a
    // prompt and a read; and a failed call, which is no use.
    for _ in 0..3 {
        ok(
            &first,
            Some(&key),
            "tools/call",
            json!({"name": "write-release-notes", "arguments": {}}),
        );
    }
    for _ in 0..2 {
        ok(
            &second,
            None,
            "tools/call",
            json!({"name": "load_skill", "arguments": {"name": "add-caching", "arguments": {"service_name": "Orders"}}}),
        );
    }
    ok(
        &second,
        None,
        "prompts/get",
        json!({"name": "write-release-notes", "arguments": {}}),
    );
    ok(
        &second,
        None,
        "resources/read",
        json!({"uri": "skill://add-caching/SKILL.md"}),
    );
    let (_, _, failed) = rpc(
        &first,
        None,
        "tools/call",
        json!({"name": "add-caching", "arguments": {}}),
    );
    assert_eq!(failed["result"]["isError"], true, "{failed}");

    // Written in batches while serving (every 5 s), without stopping the servers.
    let deadline = Instant::now() + Duration::from_secs(20);
    let expected = vec![
        ("add-caching".to_owned(), None, 0, 2, 0, 1),
        ("write-release-notes".to_owned(), None, 3, 0, 1, 0),
    ];
    loop {
        let rows = json_on(&db, &["usage"]);
        if sums(&rows) == expected {
            break;
        }
        assert!(Instant::now() < deadline, "never written: {rows}");
        std::thread::sleep(Duration::from_millis(200));
    }

    // More uses, written when the servers stop.
    ok(
        &first,
        Some(&key),
        "tools/call",
        json!({"name": "write-release-notes", "arguments": {}}),
    );
    ok(
        &second,
        None,
        "tools/call",
        json!({"name": "load_skill", "arguments": {"name": "add-caching", "arguments": {"service_name": "Orders"}}}),
    );
    assert_eq!(first.terminate(Duration::from_secs(10)), Some(0));
    assert_eq!(second.terminate(Duration::from_secs(10)), Some(0));
    assert_eq!(
        sums(&json_on(&db, &["usage"])),
        [
            ("add-caching".to_owned(), None, 0, 3, 0, 1),
            ("write-release-notes".to_owned(), None, 4, 0, 1, 0)
        ]
    );
    assert_eq!(
        sums(&json_on(&db, &["usage", "--by", "key"])),
        [
            ("add-caching".to_owned(), Some(String::new()), 0, 3, 0, 1),
            (
                "write-release-notes".to_owned(),
                Some(String::new()),
                0,
                0,
                1,
                0
            ),
            (
                "write-release-notes".to_owned(),
                Some("ana".to_owned()),
                4,
                0,
                0,
                0
            )
        ]
    );
    assert_eq!(
        sums(&json_on(
            &db,
            &[
                "usage",
                "write-release-notes",
                "--by",
                "revision",
                "--days",
                "1"
            ]
        )),
        [(
            "write-release-notes".to_owned(),
            Some("1".to_owned()),
            4,
            0,
            1,
            0
        )]
    );

    // The skills nobody used, never used at all.
    let unused = json_on(&db, &["usage", "--unused", "30"]);
    let names: Vec<(&str, &Value)> = unused
        .as_array()
        .expect("unused")
        .iter()
        .map(|item| (item["name"].as_str().expect("name"), &item["last_used"]))
        .collect();
    assert_eq!(
        names,
        [
            ("add-endpoint", &Value::Null),
            ("add-fastapi-router", &Value::Null),
            ("add-github-workflow", &Value::Null)
        ]
    );

    // `get_skill` shows the sums too.
    let reader = HttpServer::start(work.path(), &["--stateless"]);
    let got = ok(
        &reader,
        None,
        "tools/call",
        json!({"name": "get_skill", "arguments": {"name": "write-release-notes"}}),
    );
    let text = got["result"]["content"][0]["text"].as_str().expect("text");
    let skill: Value = serde_json::from_str(text).expect("json");
    assert_eq!(
        (
            skill["usage"]["calls"].as_u64(),
            skill["usage"]["prompts"].as_u64()
        ),
        (Some(4), Some(1)),
        "{skill}"
    );
    assert!(skill["usage"]["last_used"].is_string(), "{skill}");
}

/// A second SIGTERM while an HTTP server shuts down ends it at once (status 1), and the uses
/// counted since the last write are written first: the calls just made are in the store.
#[test]
fn a_second_signal_writes_the_usage_counts_before_ending() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    let mut server = serve_examples(work.path());
    for _ in 0..2 {
        ok(
            &server,
            None,
            "tools/call",
            json!({"name": "write-release-notes", "arguments": {}}),
        );
    }
    server.signal("TERM");
    // Within the shutdown's own 50 ms pause once nothing is in flight, so it is a second signal.
    std::thread::sleep(Duration::from_millis(20));
    server.signal("TERM");
    assert_eq!(
        server.exit_within(Duration::from_secs(10)),
        Some(1),
        "{}",
        server.log()
    );
    assert!(
        server.log().contains("a second signal: ending now"),
        "{}",
        server.log()
    );
    assert_eq!(
        sums(&json_on(&db, &["usage"])),
        vec![("write-release-notes".to_owned(), None, 2, 0, 0, 0)]
    );
}
