//! A cold start answers complete. `serve` on a new database (or one whose folders changed since)
//! finishes its first folder sync before it answers the handshake, the lists and skill calls,
//! within `--sync-wait`: a client that asks once and never lists again (the MCP Inspector's
//! one-shot CLI, scripts, an agent that drops `list_changed`) sees every skill, the instructions
//! it reads once name them, and a skill's tool can be called at once, in both protocol eras
//! (2025-11-25 `initialize`, 2026-07-28 `server/discover`), over stdio and HTTP. Past the bound
//! the server answers from the store, says so where a model reads it, and announces
//! `list_changed` once the sync is in.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillpath_core::tool_names::BUILTIN_TOOLS;

use crate::mcp_inspector::inspector;
use crate::mcp_protocol::examples;
use crate::mcp_wire::Server;
use crate::postgres_support::{OpenTransaction, Schema};
use crate::support::{HttpServer, corpus_dir, first_sync_said, run_in, skillpath_bin, write_skill};

/// The example skills.
const EXAMPLE_SKILLS: [&str; 5] = [
    "add-caching",
    "add-endpoint",
    "add-fastapi-router",
    "add-github-workflow",
    "write-release-notes",
];

/// The example skills' tools (`add-github-workflow` names its own).
const EXAMPLE_TOOLS: [&str; 5] = [
    "add-caching",
    "add-endpoint",
    "add-fastapi-router",
    "add_ci_workflow",
    "write-release-notes",
];

/// A protocol era: as the Inspector's `--protocol-era` names it, and the version it negotiates.
type Era = (&'static str, &'static str);
const LEGACY: Era = ("legacy", "2025-11-25");
const MODERN: Era = ("modern", "2026-07-28");

/// A `--sync-wait` that no start of these tests comes near (a debug build imports the corpus in
/// about 20 s on two busy cores): a test that needs the bound sets its own.
const SYNC_WAIT: &str = "300s";

/// What the server says (at `--log-level debug`) of a request that waits for its first sync.
const WAITS: &str = "a request waits for the first sync of the skill folders";

/// Words of what the server says while its first sync is still under way.
const STILL_LOADING: &str = "still being loaded";

/// Runs the Inspector's CLI once: a client that connects to `target` in `era`, asks `method`
/// (with `args`) and leaves. The JSON it prints (`result` or `error`).
fn inspect_once(target: &[String], era: Era, method: &str, args: &[&str]) -> Value {
    inspect(target, era, method, args).0
}

/// [`inspect_once`], with what the Inspector wrote to stderr (a stdio server's stderr among it).
fn inspect(target: &[String], era: Era, method: &str, args: &[&str]) -> (Value, String) {
    let (node, cli) = inspector();
    let output = Command::new(node)
        .arg(cli)
        .arg("--cli")
        .args([
            "--protocol-era",
            era.0,
            "--method",
            method,
            "--format",
            "json",
        ])
        // The handshake waits for the first sync: a debug build's import of the corpus takes
        // longer than the Inspector's 15 s default.
        .args(["--connect-timeout", "600000"])
        .args(args)
        .args(target)
        .output()
        .expect("run the MCP Inspector");
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    let answer = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "the Inspector printed no JSON ({error}; exit {:?}):\n{}\n{log}",
            output.status.code(),
            String::from_utf8_lossy(&output.stdout),
        )
    });
    (answer, log)
}

/// The Inspector's target for a `serve` over stdio of `skills` on the database `db`.
fn stdio_target(skills: &Path, db: &Path) -> Vec<String> {
    let mut target = vec!["--".to_owned(), skillpath_bin().display().to_string()];
    target.extend(
        [
            "serve",
            "--no-discover",
            "--tools",
            "per-skill",
            "--sync-wait",
            SYNC_WAIT,
        ]
        .map(str::to_owned),
    );
    target.extend([
        "--skills".to_owned(),
        skills.display().to_string(),
        "--db".to_owned(),
        db.display().to_string(),
    ]);
    target
}

/// Makes the store at `db` (its schema, no skill, no folder stamp), as a first start would, by
/// importing an empty folder.
fn make_empty_store(work: &Path, db: &str) {
    let empty = work.join("empty");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let (code, _, stderr) = run_in(work, &["import", &empty.display().to_string(), "--db", db]);
    assert_eq!(code, 0, "{stderr}");
}

/// The names of the tools a `tools/list` printed by the Inspector holds.
fn tool_names(listed: &Value) -> BTreeSet<String> {
    listed["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {listed}"))
        .iter()
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .collect()
}

/// The text of a tool result printed by the Inspector, checked not to be an error.
fn result_text(called: &Value) -> &str {
    assert_eq!(called["result"]["isError"], false, "{called}");
    called["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {called}"))
}

/// The questions a client asks once, each the first thing it asks: the handshake (whose
/// instructions it keeps), `tools/list`, `list_skills`, and a call of a skill's tool (the
/// Inspector lists the tools first, and calls only one it found).
const FIRST_QUESTIONS: [(&str, &[&str]); 4] = [
    ("initialize", &[]),
    ("tools/list", &[]),
    ("tools/call", &["--tool-name", "list_skills"]),
    (
        "tools/call",
        &[
            "--tool-name",
            "add-caching",
            "--tool-args-json",
            r#"{"service_name": "Orders"}"#,
        ],
    ),
];

/// Checks the answers to [`FIRST_QUESTIONS`], in their order, in `era`: each holds the example
/// skills.
fn assert_complete(answers: &[Value], era: Era) {
    let [handshake, tools, listed, called] = answers else {
        panic!("four answers: {answers:?}");
    };
    assert_eq!(handshake["result"]["protocolVersion"], era.1, "{handshake}");
    let instructions = handshake["result"]["instructions"]
        .as_str()
        .unwrap_or_default();
    for skill in EXAMPLE_SKILLS {
        assert!(
            instructions.contains(&format!("- {skill}: ")),
            "the instructions name `{skill}`: {instructions}"
        );
    }
    assert!(!instructions.contains(STILL_LOADING), "{instructions}");
    let tools = tool_names(tools);
    for tool in EXAMPLE_TOOLS {
        assert!(
            tools.contains(tool),
            "the first listing has `{tool}`: {tools:?}"
        );
    }
    let listed: Value =
        serde_json::from_str(result_text(listed)).expect("`list_skills` answers JSON");
    let names: BTreeSet<&str> = listed["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .filter_map(|skill| skill["name"].as_str())
        .collect();
    assert_eq!(names, BTreeSet::from(EXAMPLE_SKILLS), "{listed}");
    assert!(listed.get("syncing").is_none(), "{listed}");
    let rendered = result_text(called);
    assert!(
        rendered.contains("cache-aside layer to the `Orders` service"),
        "{rendered}"
    );
}

/// The answers to [`FIRST_QUESTIONS`] over stdio in `era`, each from a server the Inspector
/// starts on a new database (so each question is the first that server is asked).
fn stdio_first_answers(era: Era) -> Vec<Value> {
    let work = tempfile::tempdir().expect("tempdir");
    FIRST_QUESTIONS
        .iter()
        .enumerate()
        .map(|(index, (method, args))| {
            let db = work.path().join(format!("new-{index}.db"));
            inspect_once(&stdio_target(examples(), &db), era, method, args)
        })
        .collect()
}

/// The answers to [`FIRST_QUESTIONS`] over HTTP in `era`, asked at once by four clients of one
/// server on a new database (a PostgreSQL schema with the store's tables and nothing else). A
/// cold start of five skills is over before the Inspector has started, so a writer holds the
/// `skills` table while the clients ask: the server's first sync cannot import until it lets go,
/// and everything else goes on (the store's pool has other connections; SQLite's one connection
/// would hold every request behind the import). It lets go once each client's first question
/// waits for the sync (the server says so at `--log-level debug`), or once the clients are done
/// (a server that answers without waiting).
fn http_first_answers(era: Era) -> Vec<Value> {
    let work = tempfile::tempdir().expect("tempdir");
    let schema = Schema::create("cold_http");
    let url = schema.url();
    make_empty_store(work.path(), &url);
    let writer = OpenTransaction::begin(&url, "LOCK TABLE skills IN SHARE MODE");
    let examples = examples().display().to_string();
    let server = HttpServer::start_unsynced(
        work.path(),
        &[
            "--db",
            &url,
            "--skills",
            &examples,
            "--tools",
            "per-skill",
            "--sync-wait",
            SYNC_WAIT,
            "--log-level",
            "debug",
        ],
    );
    let target = vec![format!("http://{}/mcp", server.address)];
    let clients: Vec<_> = FIRST_QUESTIONS
        .iter()
        .map(|(method, args)| {
            let target = target.clone();
            std::thread::spawn(move || inspect_once(&target, era, method, args))
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    while server.log().matches(WAITS).count() < FIRST_QUESTIONS.len()
        && !clients.iter().all(|client| client.is_finished())
    {
        assert!(Instant::now() < deadline, "{}", server.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    writer.end();
    let answers = clients
        .into_iter()
        .map(|client| client.join().expect("the Inspector ran"))
        .collect();
    assert!(first_sync_said(&server.log()), "{}", server.log());
    answers
}

#[test]
fn a_cold_start_over_stdio_answers_a_once_only_client_with_the_example_skills_2025_11_25() {
    assert_complete(&stdio_first_answers(LEGACY), LEGACY);
}

#[test]
fn a_cold_start_over_stdio_answers_a_once_only_client_with_the_example_skills_2026_07_28() {
    assert_complete(&stdio_first_answers(MODERN), MODERN);
}

#[test]
fn a_cold_start_over_http_answers_once_only_clients_with_the_example_skills_2025_11_25() {
    assert_complete(&http_first_answers(LEGACY), LEGACY);
}

#[test]
fn a_cold_start_over_http_answers_once_only_clients_with_the_example_skills_2026_07_28() {
    assert_complete(&http_first_answers(MODERN), MODERN);
}

/// The live skills the store at `db` holds.
fn stored_skills(work: &Path, db: &str) -> usize {
    let (code, stdout, stderr) = run_in(
        work,
        &["list", "--db", db, "--format", "json", "--limit", "10000"],
    );
    assert_eq!(code, 0, "{stderr}");
    let listed: Value = serde_json::from_str(&stdout).expect("JSON");
    listed["items"].as_array().expect("items").len()
}

/// Checks that `first`, the first listing of a cold start on the corpus into the store at `db`,
/// is what the server lists once the sync is in (`synced`), and holds a tool for every skill
/// the store keeps but those that have none of their own (the start's `log` says each: its tool
/// name is another's, or is no tool name).
fn assert_every_corpus_tool(
    first: &BTreeSet<String>,
    synced: &BTreeSet<String>,
    (work, db): (&Path, &str),
    log: &str,
) {
    assert_eq!(first, synced, "the first listing is the synced one");
    let stored = stored_skills(work, db);
    assert!(stored > 600, "the corpus is in the store: {stored} skills");
    let without_tool = log
        .lines()
        .filter(|line| line.contains("has no tool or prompt of its own"))
        .count();
    let skill_tools = first
        .iter()
        .filter(|name| !BUILTIN_TOOLS.contains(&name.as_str()))
        .count();
    assert_eq!(
        skill_tools + without_tool,
        stored,
        "every stored skill has its tool in the first listing, or is said to have none:\n{log}"
    );
}

#[test]
fn a_cold_start_over_stdio_lists_every_corpus_skill_at_once_2025_11_25() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    // The corpus is read in place: a sync only reads its folders.
    let target = stdio_target(&corpus_dir(), &db);
    let (first, log) = inspect(&target, LEGACY, "tools/list", &[]);
    // The same store, now in step with the corpus: a warm start lists what the sync gave.
    let synced = tool_names(&inspect_once(&target, LEGACY, "tools/list", &[]));
    assert_every_corpus_tool(
        &tool_names(&first),
        &synced,
        (work.path(), &db.display().to_string()),
        &log,
    );
}

#[test]
fn a_cold_start_over_http_lists_every_corpus_skill_at_once_2026_07_28() {
    let work = tempfile::tempdir().expect("tempdir");
    let corpus = corpus_dir().display().to_string();
    // A debug build's import of the corpus takes seconds: the Inspector asks long before the
    // sync is in.
    let server = HttpServer::start_unsynced(
        work.path(),
        &[
            "--skills",
            &corpus,
            "--tools",
            "per-skill",
            "--sync-wait",
            SYNC_WAIT,
        ],
    );
    let target = vec![format!("http://{}/mcp", server.address)];
    let first = tool_names(&inspect_once(&target, MODERN, "tools/list", &[]));
    assert!(first_sync_said(&server.log()), "{}", server.log());
    let synced = tool_names(&inspect_once(&target, MODERN, "tools/list", &[]));
    let db = work.path().join("store.db").display().to_string();
    assert_every_corpus_tool(&first, &synced, (work.path(), &db), &server.log());
}

/// Past `--sync-wait` the server answers from the store and says so where a model reads it: the
/// instructions say the catalog is still loading, `list_skills` and `search_skills` carry
/// `syncing: true` and the sentence; `list_changed` follows once the sync is in, and then every
/// answer is complete. A writer holding PostgreSQL's `skills` table keeps the sync from
/// importing for as long as the test needs (reads go on: the store's pool has other
/// connections).
#[test]
fn past_sync_wait_the_answers_say_the_catalog_is_still_loading_until_list_changed() {
    let work = tempfile::tempdir().expect("tempdir");
    let schema = Schema::create("sync_wait");
    let url = schema.url();
    make_empty_store(work.path(), &url);
    let writer = OpenTransaction::begin(&url, "LOCK TABLE skills IN SHARE MODE");
    let mut command = Command::new(skillpath_bin());
    command
        .args([
            "serve",
            "--no-discover",
            "--tools",
            "per-skill",
            "--sync-wait",
            "300ms",
            "--db",
            &url,
            "--skills",
        ])
        .arg(examples())
        .env("HOME", work.path());
    let mut server = Server::spawn_unsynced(command);
    let instructions = server.instructions().to_owned();
    assert!(instructions.contains(STILL_LOADING), "{instructions}");
    assert!(!instructions.contains("add-caching"), "{instructions}");
    let list_skills = |server: &mut Server| -> Value {
        let called = server.request(
            "tools/call",
            json!({"name": "list_skills", "arguments": {}}),
        );
        let text = called["content"][0]["text"].as_str().expect("text");
        serde_json::from_str(text).expect("JSON")
    };
    let loading = list_skills(&mut server);
    assert_eq!(loading["syncing"], true, "{loading}");
    assert!(
        loading["note"]
            .as_str()
            .is_some_and(|note| note.contains(STILL_LOADING)),
        "{loading}"
    );
    assert_eq!(loading["skills"], json!([]), "{loading}");
    let found = server.request(
        "tools/call",
        json!({"name": "search_skills", "arguments": {"query": "caching"}}),
    );
    let found = found["content"][0]["text"].as_str().expect("text");
    assert!(found.starts_with("syncing: true\n"), "{found}");
    assert!(found.contains(STILL_LOADING), "{found}");
    assert!(server.tool("add-caching").is_none());
    writer.end();
    server.notifications_until_list_changed();
    assert!(server.tool("add-caching").is_some());
    let loaded = list_skills(&mut server);
    assert!(loaded.get("syncing").is_none(), "{loaded}");
    assert_eq!(
        loaded["skills"].as_array().map(Vec::len),
        Some(EXAMPLE_SKILLS.len()),
        "{loaded}"
    );
    let found = server.request(
        "tools/call",
        json!({"name": "search_skills", "arguments": {"query": "caching"}}),
    );
    let found = found["content"][0]["text"].as_str().expect("text");
    assert!(found.starts_with("- add-caching: "), "{found}");
}

/// A warm start (a store that already holds a skill of every folder source) answers from the
/// store at once, without waiting for its first sync or saying the catalog is loading; a skill
/// edited while no server ran arrives with `list_changed`, as a later edit does. A writer
/// holding PostgreSQL's `skills` table keeps that sync from importing the edit: a server that
/// waited for it would not answer within its 300 s `--sync-wait`.
#[test]
fn a_warm_start_answers_from_the_store_at_once_and_brings_edits_with_list_changed() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    for name in ["alpha-notes", "beta-notes"] {
        write_skill(&skills.join(name), name, "Writes notes before the edit.");
    }
    let schema = Schema::create("warm_start");
    let url = schema.url();
    let serve = || {
        let mut command = Command::new(skillpath_bin());
        command
            .args(["serve", "--no-discover", "--tools", "per-skill"])
            .args(["--sync-wait", SYNC_WAIT, "--db", &url, "--skills"])
            .arg(&skills)
            .env("HOME", work.path());
        command
    };
    // The first start, whose client closes stdin at once: it syncs the folders and ends.
    let first = serve()
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run serve");
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(first_sync_said(&said), "{said}");
    write_skill(
        &skills.join("beta-notes"),
        "beta-notes",
        "Writes notes after the edit.",
    );
    let writer = OpenTransaction::begin(&url, "LOCK TABLE skills IN SHARE MODE");
    let mut server = Server::spawn_unsynced(serve());
    let instructions = server.instructions().to_owned();
    assert!(!instructions.contains(STILL_LOADING), "{instructions}");
    assert!(instructions.contains("alpha-notes"), "{instructions}");
    let listed = server.request(
        "tools/call",
        json!({"name": "list_skills", "arguments": {}}),
    );
    let listed: Value =
        serde_json::from_str(listed["content"][0]["text"].as_str().expect("text")).expect("JSON");
    assert!(listed.get("syncing").is_none(), "{listed}");
    let before = server.tool("beta-notes").expect("beta-notes is served");
    assert_eq!(before["description"], "Writes notes before the edit.");
    writer.end();
    server.notifications_until_list_changed();
    let after = server.tool("beta-notes").expect("beta-notes is served");
    assert_eq!(after["description"], "Writes notes after the edit.");
}
