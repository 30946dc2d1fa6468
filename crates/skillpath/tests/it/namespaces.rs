//! People, namespaces, members, visibility, stars and the governance log with real processes:
//! the commands on SQLite and on a real PostgreSQL schema, and two `serve --http --auth
//! required` replicas on one database, each key's `tools/list` holding exactly what its person
//! may be served, on both replicas, also right after a change made on the command line.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillpath_test_support::{RunExt, json};

use skillpath_test_support::http::{form, header, status};
use skillpath_test_support::studio::{get, post, token_of};

use crate::postgres_support::Schema;
use crate::sessions::Session;
use crate::support::{HttpServer, rpc, sign_in, skillpath};

/// `skillpath ARGS --db DB`, which must succeed: its stdout.
fn ok(db: &str, args: &[&str]) -> String {
    skillpath(args).args(["--db", db]).ok_stdout()
}

/// `skillpath ARGS --db DB`, which must fail with `code`: its stderr.
fn refused(db: &str, args: &[&str], code: i32) -> String {
    let run = skillpath(args).args(["--db", db]).run();
    run.exited(code);
    run.stderr
}

/// A new API key named `name` for the person `user`, with `role` (`None`: the default): the
/// key.
fn new_key(db: &str, name: &str, user: &str, role: Option<&str>) -> String {
    let mut args = vec![
        "keys", "create", "--name", name, "--user", user, "--format", "json",
    ];
    if let Some(role) = role {
        args.extend(["--role", role]);
    }
    json(&ok(db, &args))["key"]
        .as_str()
        .expect("a key")
        .to_owned()
}

/// A folder of skill folders, each `name` with a description saying what it is for.
fn skills(root: &Path, names: &[&str]) -> String {
    for name in names {
        let folder = root.join(name);
        std::fs::create_dir_all(&folder).expect("a folder");
        std::fs::write(
            folder.join("SKILL.md"),
            format!(
                "---\nname: {name}\ndescription: Use when deploying services with {name}.\n---\n\nDeploy with {name}.\n"
            ),
        )
        .expect("a SKILL.md");
    }
    root.to_str().expect("utf-8").to_owned()
}

/// Two teams, three people, items of each visibility: `@team-a` (alice its owner, bob an
/// author) holds `a-private` (alice's), `a-shared` and `a-public`; `@team-b` (carol its owner)
/// holds `b-shared` and `b-public`.
fn teams(db: &str, work: &Path) {
    for person in ["alice", "bob", "carol"] {
        ok(db, &["users", "create", person]);
    }
    ok(db, &["namespaces", "create", "@team-a", "--owner", "alice"]);
    ok(db, &["namespaces", "create", "@team-b", "--owner", "carol"]);
    ok(
        db,
        &["members", "add", "@team-a", "bob", "--role", "author"],
    );
    for (team, name, visibility, by) in [
        ("@team-a", "a-private", "private", "alice"),
        ("@team-a", "a-shared", "namespace", "alice"),
        ("@team-a", "a-public", "public", "alice"),
        ("@team-b", "b-shared", "namespace", "carol"),
        ("@team-b", "b-public", "public", "carol"),
    ] {
        let folder = skills(&work.join(name), &[name]);
        if matches!(name, "a-private" | "b-shared") {
            // A skill with a file besides its `SKILL.md` is published as an archive.
            std::fs::write(work.join(name).join(name).join("notes.md"), "notes\n").expect("a file");
        }
        ok(
            db,
            &[
                "import",
                "--namespace",
                team,
                "--visibility",
                visibility,
                "--author",
                by,
                &folder,
            ],
        );
    }
}

fn scenario(db: &str) {
    let work = tempfile::tempdir().expect("tempdir");
    teams(db, work.path());
    // Each command says what it refuses, and changes nothing.
    let twice = refused(
        db,
        &["members", "add", "@team-a", "bob", "--role", "reader"],
        1,
    );
    assert!(twice.contains("members set @team-a bob"), "{twice}");
    let last = refused(db, &["members", "remove", "@team-a", "alice"], 1);
    assert!(last.contains("last owner"), "{last}");
    let bad = refused(db, &["users", "create", "Dave"], 1);
    assert!(bad.contains("uppercase"), "{bad}");
    let not_empty = refused(db, &["namespaces", "delete", "@team-a"], 1);
    assert!(
        not_empty.contains("namespaces archive @team-a"),
        "{not_empty}"
    );

    // Every item is listed under its full name; names repeat across namespaces.
    let listed = json(&ok(db, &["list", "--format", "json"]));
    let names: BTreeSet<&str> = listed["items"]
        .as_array()
        .or_else(|| listed.as_array())
        .expect("a list")
        .iter()
        .filter_map(|item| item["name"].as_str())
        .collect();
    assert!(names.contains("@team-a/a-private") && names.contains("@team-b/b-public"));
    let shown = json(&ok(
        db,
        &["namespaces", "show", "@team-a", "--format", "json"],
    ));
    assert_eq!(
        (shown["members"].as_u64(), shown["items"].as_u64()),
        (Some(2), Some(3))
    );
    let members = json(&ok(db, &["members", "list", "@team-a", "--format", "json"]));
    assert_eq!(
        members,
        json!([
            {"namespace": "@team-a", "handle": "alice", "role": "owner"},
            {"namespace": "@team-a", "handle": "bob", "role": "author"},
        ])
    );

    // A key acts for its person, narrowed to a namespace and a role.
    let created = json(&ok(
        db,
        &[
            "keys",
            "create",
            "--name",
            "bob-ci",
            "--user",
            "bob",
            "--namespace",
            "@team-a",
            "--role",
            "reader",
            "--format",
            "json",
        ],
    ));
    assert_eq!(
        (
            created["user"].as_str(),
            created["role"].as_str(),
            created["namespaces"].clone()
        ),
        (Some("bob"), Some("reader"), json!(["@team-a"]))
    );
    let elsewhere = refused(
        db,
        &[
            "keys",
            "create",
            "--name",
            "x",
            "--user",
            "bob",
            "--namespace",
            "@team-b",
        ],
        1,
    );
    assert!(elsewhere.contains("@team-b"), "{elsewhere}");

    // Frozen, a namespace takes no import; thawed, it does again.
    ok(db, &["namespaces", "freeze", "@team-a"]);
    let folder = skills(&work.path().join("late"), &["late"]);
    let frozen = refused(db, &["import", "--namespace", "@team-a", &folder], 1);
    assert!(frozen.contains("frozen"), "{frozen}");
    ok(db, &["namespaces", "thaw", "@team-a"]);
    ok(db, &["import", "--namespace", "@team-a", &folder]);

    // A folder imported into @global is imported into @team-b too, as an item of its own:
    // that it is unchanged since @global read it says nothing of @team-b.
    let twice = skills(&work.path().join("twice"), &["twice"]);
    ok(db, &["import", &twice]);
    ok(db, &["import", "--namespace", "@team-b", &twice]);
    let listed = ok(db, &["list", "--format", "json"]);
    assert!(
        listed.contains("\"twice\"") && listed.contains("\"@team-b/twice\""),
        "{listed}"
    );
    ok(db, &["visibility", "@team-a/a-shared", "private"]);
    ok(db, &["star", "@team-b/b-public", "--user", "bob"]);
    let hidden = refused(db, &["star", "@nowhere/x", "--user", "bob"], 1);
    assert!(hidden.contains("no skill named"), "{hidden}");

    // The log: every change, with who and what, as JSON lines; its chain holds.
    let lines = ok(db, &["log", "--format", "jsonl"]);
    let entries: Vec<Value> = lines.lines().map(json).collect();
    let actions: Vec<&str> = entries
        .iter()
        .filter_map(|entry| entry["action"].as_str())
        .collect();
    for expected in [
        "user.create",
        "namespace.create",
        "member.add",
        "key.create",
        "namespace.freeze",
        "namespace.thaw",
        "item.visibility",
    ] {
        assert!(actions.contains(&expected), "{expected} in {actions:?}");
    }
    let visibility = entries
        .iter()
        .find(|entry| entry["action"] == "item.visibility")
        .expect("logged");
    assert_eq!(visibility["target"], "@team-a/a-shared");
    assert_eq!(visibility["before"], r#"{"visibility":"namespace"}"#);
    assert_eq!(visibility["after"], r#"{"visibility":"private"}"#);
    let team_b = ok(db, &["log", "--namespace", "@team-b", "--format", "json"]);
    assert!(
        json(&team_b)
            .as_array()
            .expect("entries")
            .iter()
            .all(|entry| entry["target"]
                .as_str()
                .is_some_and(|t| t.starts_with("@team-b"))),
        "{team_b}"
    );
    let verified = json(&ok(db, &["log", "verify", "--format", "json"]));
    assert_eq!(verified["ok"], true);
    assert_eq!(verified["entries"].as_u64(), Some(entries.len() as u64));
}

#[test]
fn people_namespaces_and_the_log_from_the_command_line_on_sqlite() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    scenario(db.to_str().expect("utf-8"));
}

#[test]
fn people_namespaces_and_the_log_from_the_command_line_on_postgres() {
    let schema = Schema::create("namespaces");
    scenario(&schema.url());
}

/// `skillpath upgrade --namespace @platform` on a store made before namespaces: its items and
/// its keys' people join `@platform`, said in text and JSON; once done, `--namespace` can no
/// longer apply and says so, and a plain `upgrade` says the store is up to date.
#[test]
fn upgrade_places_an_older_store_in_a_namespace() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("before-people.db");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../skillpath-store/tests/it/fixtures/made-before-people.db"),
        &db,
    )
    .expect("the fixture");
    let db = db.to_str().expect("utf-8");
    let upgraded = json(&ok(
        db,
        &["upgrade", "--namespace", "@platform", "--format", "json"],
    ));
    assert_eq!(
        (
            &upgraded["placed"],
            &upgraded["namespace"],
            &upgraded["items"],
            &upgraded["people"]
        ),
        (&json!(true), &json!("@platform"), &json!(6), &json!(4)),
        "{upgraded}"
    );
    let listed = ok(db, &["list", "--format", "json"]);
    assert!(listed.contains("@platform/add-caching"), "{listed}");
    let members = json(&ok(
        db,
        &["members", "list", "@platform", "--format", "json"],
    ));
    assert_eq!(members.as_array().map(Vec::len), Some(4), "{members}");
    let again = refused(db, &["upgrade", "--namespace", "@platform"], 1);
    assert!(again.contains("earlier upgrade"), "{again}");
    assert!(ok(db, &["upgrade"]).contains("up to date"));
    let missing = work.path().join("nothing.db");
    let none = refused(missing.to_str().expect("utf-8"), &["upgrade"], 2);
    assert!(none.contains("nothing.db"), "{none}");
    assert!(!missing.exists());
}

/// Two namespaces' skills of one name: a member of both is served one tool of that name, by
/// the collision rule among what they are served, and the instructions say the other has no
/// tool of its own and is called with `load_skill`; a member of one namespace only is served
/// that namespace's skill as the tool, with nothing said.
#[test]
fn one_name_in_two_namespaces_is_one_tool_and_the_instructions_say_so() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    let db = db.to_str().expect("utf-8");
    for person in ["dana", "erin"] {
        ok(db, &["users", "create", person]);
    }
    for (team, members) in [
        ("@team-a", &["dana"][..]),
        ("@team-b", &["dana", "erin"][..]),
    ] {
        ok(db, &["namespaces", "create", team]);
        for member in members {
            ok(db, &["members", "add", team, member, "--role", "reader"]);
        }
        let folder = work.path().join(&team[1..]);
        skills(&folder, &["deploy"]);
        std::fs::write(
            folder.join("deploy").join("SKILL.md"),
            format!("---\nname: deploy\ndescription: Use when deploying.\n---\n\nDeploy the {team} way.\n"),
        )
        .expect("a SKILL.md");
        ok(
            db,
            &[
                "import",
                "--namespace",
                team,
                folder.to_str().expect("utf-8"),
            ],
        );
    }
    let (dana, erin) = (
        new_key(db, "dana-key", "dana", None),
        new_key(db, "erin-key", "erin", None),
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let server = HttpServer::start(
        dir.path(),
        &["--db", db, "--auth", "required", "--stateless"],
    );
    let initialize = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "namespaces-test", "version": "1"}
    });
    let call = |key: &str, tool: &str, arguments: Value| {
        let (_, _, message) = rpc(
            &server,
            Some(key),
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        message["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let (_, _, hello) = rpc(&server, Some(&dana), "initialize", initialize.clone());
    let instructions = hello["result"]["instructions"].as_str().unwrap_or_default();
    assert!(
        instructions
            .contains("- @team-b/deploy: the tool name `deploy` belongs to skill `@team-a/deploy`"),
        "{instructions}"
    );
    assert!(call(&dana, "deploy", json!({})).contains("the @team-a way"));
    assert!(
        call(&dana, "load_skill", json!({"name": "@team-b/deploy"})).contains("the @team-b way")
    );
    let (_, _, hello) = rpc(&server, Some(&erin), "initialize", initialize);
    let instructions = hello["result"]["instructions"].as_str().unwrap_or_default();
    assert!(!instructions.contains("Without a tool"), "{instructions}");
    assert!(call(&erin, "deploy", json!({})).contains("the @team-b way"));
}

/// Eight processes change one namespace's members at once: six add six people, two add the
/// same person. Every distinct change is kept once, the doubled one is refused with a clear
/// error by exactly one process, and the log's chain holds.
fn members_changed_by_processes_at_once(db: &str) {
    ok(db, &["namespaces", "create", "@team-a"]);
    let people: Vec<String> = (1..=6).map(|n| format!("person-{n}")).collect();
    for person in people.iter().chain(std::iter::once(&"twin".to_owned())) {
        ok(db, &["users", "create", person]);
    }
    let adding: Vec<&str> = people
        .iter()
        .map(String::as_str)
        .chain(["twin", "twin"])
        .collect();
    let children: Vec<_> = adding
        .iter()
        .map(|person| {
            skillpath(&[
                "members", "add", "@team-a", person, "--role", "reader", "--db", db,
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("a process")
        })
        .collect();
    let mut refusals = Vec::new();
    for (person, child) in adding.iter().zip(children) {
        let output = child.wait_with_output().expect("it ends");
        if !output.status.success() {
            assert_eq!(output.status.code(), Some(1), "{person}: {output:?}");
            refusals.push((
                *person,
                String::from_utf8_lossy(&output.stderr).into_owned(),
            ));
        }
    }
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert_eq!(refusals[0].0, "twin");
    assert!(refusals[0].1.contains("already"), "{}", refusals[0].1);
    let members = json(&ok(db, &["members", "list", "@team-a", "--format", "json"]));
    let handles: BTreeSet<&str> = members
        .as_array()
        .expect("members")
        .iter()
        .filter_map(|member| member["handle"].as_str())
        .collect();
    let expected: BTreeSet<&str> = adding.iter().copied().collect();
    assert_eq!(handles, expected);
    let verified = json(&ok(db, &["log", "verify", "--format", "json"]));
    assert_eq!(verified["ok"], true, "{verified}");
}

#[test]
fn members_changed_by_processes_at_once_on_sqlite() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    members_changed_by_processes_at_once(db.to_str().expect("utf-8"));
}

#[test]
fn members_changed_by_processes_at_once_on_postgres() {
    let schema = Schema::create("namespaces_at_once");
    members_changed_by_processes_at_once(&schema.url());
}

/// `log verify` finds an entry changed in the database file, names it and exits 1.
#[test]
fn log_verify_names_a_tampered_entry() {
    let work = tempfile::tempdir().expect("tempdir");
    let path = work.path().join("store.db");
    let db = path.to_str().expect("utf-8");
    for person in ["alice", "bob", "carol"] {
        ok(db, &["users", "create", person]);
    }
    rusqlite::Connection::open(&path)
        .expect("open directly")
        .execute(
            "UPDATE governance_log SET target = 'mallory' WHERE seq = 2",
            [],
        )
        .expect("tampered");
    let run = skillpath(&["log", "verify", "--db", db]).run();
    run.exited(1);
    assert!(run.stdout.contains("entry 2"), "{run:?}");
}

/// The names of the tools `key` is listed.
fn tools(server: &HttpServer, key: &str) -> BTreeSet<String> {
    let (status, response, message) = rpc(server, Some(key), "tools/list", json!({}));
    assert_eq!(status, 200, "{response}");
    message["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {response}"))
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .filter(|name| name.starts_with("a-") || name.starts_with("b-"))
        .map(str::to_owned)
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

/// Waits until `key`'s tools on `server` are `expected` (a replica hears another's change a
/// moment later), failing after ten seconds with what it lists.
fn eventually(server: &HttpServer, key: &str, expected: &BTreeSet<String>) {
    let start = Instant::now();
    loop {
        let listed = tools(server, key);
        if &listed == expected {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "listed {listed:?}, expected {expected:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn replicas(db: &str) {
    let work = tempfile::tempdir().expect("tempdir");
    teams(db, work.path());
    let key = |user: &str| new_key(db, &format!("{user}-key"), user, Some("author"));
    let (alice, bob, carol) = (key("alice"), key("bob"), key("carol"));
    let serve =
        |dir: &Path| HttpServer::start(dir, &["--db", db, "--auth", "required", "--stateless"]);
    let (one, two) = (
        tempfile::tempdir().expect("tempdir"),
        tempfile::tempdir().expect("tempdir"),
    );
    let servers = [serve(one.path()), serve(two.path())];
    for server in &servers {
        assert_eq!(
            tools(server, &alice),
            set(&["a-private", "a-public", "a-shared"])
        );
        assert_eq!(tools(server, &bob), set(&["a-public", "a-shared"]));
        assert_eq!(tools(server, &carol), set(&["b-public", "b-shared"]));
        // A hidden item is called as a missing one.
        let (_, _, hidden) = rpc(
            server,
            Some(&carol),
            "tools/call",
            json!({"name": "load_skill", "arguments": {"name": "@team-a/a-private"}}),
        );
        let (_, _, missing) = rpc(
            server,
            Some(&carol),
            "tools/call",
            json!({"name": "load_skill", "arguments": {"name": "@team-a/nothing"}}),
        );
        let text = |message: &Value| {
            message
                .to_string()
                .replace("a-private", "X")
                .replace("nothing", "X")
        };
        assert_eq!(text(&hidden), text(&missing));
    }
    // Every other surface holds the same items: what each is served (prompts, resources,
    // `skills/list`), and what each may find (`search_skills`, the well-known index).
    for server in &servers {
        for (key, served, found) in [
            (
                &alice,
                &["a-private", "a-public", "a-shared"][..],
                &["a-private", "a-public", "a-shared", "b-public"][..],
            ),
            (
                &bob,
                &["a-public", "a-shared"][..],
                &["a-public", "a-shared", "b-public"][..],
            ),
            (
                &carol,
                &["b-public", "b-shared"][..],
                &["a-public", "b-public", "b-shared"][..],
            ),
        ] {
            for method in ["prompts/list", "resources/list", "skills/list"] {
                let (status, response, message) = rpc(server, Some(key), method, json!({}));
                assert_eq!(status, 200, "{response}");
                assert_eq!(
                    mentioned(&message["result"]),
                    set(served),
                    "{method}: {message}"
                );
            }
            let (_, _, searched) = rpc(
                server,
                Some(key),
                "tools/call",
                json!({"name": "search_skills", "arguments": {"query": "deploying services"}}),
            );
            assert_eq!(mentioned(&searched["result"]), set(found), "{searched}");
            let authorization = format!("Bearer {key}");
            let index = server.exchange(
                "GET",
                "/.well-known/agent-skills/index.json",
                &[("Authorization", &authorization)],
                b"",
            );
            // The body, whether chunked or not: its one JSON object.
            let body = match (index.find('{'), index.rfind('}')) {
                (Some(start), Some(end)) => &index[start..=end],
                _ => "",
            };
            assert_eq!(mentioned(&json(body)), set(found), "{index}");
        }
    }

    // What each may read of every item: its archive in the well-known index, `get_skill`
    // (with its usage), `skill_history`; a hidden one answers exactly as a missing one.
    let every = ["a-private", "a-shared", "a-public", "b-shared", "b-public"];
    for (key, found) in [
        (
            &alice,
            &["a-private", "a-public", "a-shared", "b-public"][..],
        ),
        (&bob, &["a-public", "a-shared", "b-public"][..]),
        (&carol, &["a-public", "b-public", "b-shared"][..]),
    ] {
        let server = &servers[1];
        let authorization = format!("Bearer {key}");
        for (archive, name) in [
            ("@team-a/a-private", "a-private"),
            ("@team-b/b-shared", "b-shared"),
        ] {
            let response = server.exchange(
                "GET",
                &format!("/.well-known/agent-skills/{archive}.tar.gz"),
                &[("Authorization", &authorization)],
                b"",
            );
            let expected = if found.contains(&name) { 200 } else { 404 };
            assert_eq!(status(&response), expected, "{archive}: {response:.300}");
        }
        for name in every {
            let full = format!("@team-{}/{name}", &name[..1]);
            let missing = format!("@team-{}/nothing", &name[..1]);
            for tool in ["get_skill", "skill_history"] {
                let call = |item: &str| {
                    let (_, _, message) = rpc(
                        server,
                        Some(key),
                        "tools/call",
                        json!({"name": tool, "arguments": {"name": item}}),
                    );
                    message["result"].clone()
                };
                let answer = call(&full);
                if found.contains(&name) {
                    assert_eq!(answer["isError"], false, "{tool} {full}: {answer}");
                    if tool == "get_skill" {
                        let text = answer["content"][0]["text"].as_str().unwrap_or_default();
                        assert!(json(text)["usage"].is_object(), "{text}");
                    }
                } else {
                    let hidden = answer.to_string().replace(name, "X");
                    let absent = call(&missing).to_string().replace("nothing", "X");
                    assert_eq!(hidden, absent, "{tool} {full}");
                }
            }
        }
    }

    // Drafts of a namespace that reviews: its maintainers and the draft's author see it;
    // nobody else (alice's author key acts as an author, less than what she is), and the
    // draft is served to no one.
    ok(db, &["namespaces", "review", "@team-a", "drafts"]);
    let reviewer = new_key(db, "alice-review", "alice", Some("maintainer"));
    let (_, _, created) = rpc(
        &servers[0],
        Some(&bob),
        "tools/call",
        json!({"name": "create_skill", "arguments": {
            "name": "a-draft",
            "namespace": "@team-a",
            "description": "Use when deploying services with a-draft.",
            "sections": [{"type": "free", "heading": "Steps", "content": "1. Deploy."}]
        }}),
    );
    assert_eq!(created["result"]["isError"], false, "{created}");
    assert!(created.to_string().contains("for review"), "{created}");
    for (key, sees) in [
        (&reviewer, true),
        (&alice, false),
        (&bob, true),
        (&carol, false),
    ] {
        let (_, _, listed) = rpc(
            &servers[1],
            Some(key),
            "tools/call",
            json!({"name": "list_drafts", "arguments": {}}),
        );
        let text = listed["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(text.contains("a-draft"), sees, "{listed}");
        assert!(!tools(&servers[1], key).contains("a-draft"));
    }
    ok(db, &["namespaces", "review", "@team-a", "server"]);

    // A namespaced skill's resource is read at `skill://<@ns>/<name>/…`, by who may see it.
    let read = |key: &str, uri: &str| {
        let (_, _, message) = rpc(
            &servers[1],
            Some(key),
            "resources/read",
            json!({"uri": uri}),
        );
        message
    };
    let shared = read(&bob, "skill://%40team-a/a-shared/SKILL.md");
    assert!(
        shared["result"]["contents"][0]["text"]
            .as_str()
            .is_some_and(|text| text.contains("name: a-shared")),
        "{shared}"
    );
    let hidden = read(&carol, "skill://%40team-a/a-shared/SKILL.md");
    let missing = read(&carol, "skill://%40team-a/nothing/SKILL.md");
    assert!(!hidden["error"].is_null(), "{hidden}");
    assert_eq!(
        hidden["error"].to_string().replace("a-shared", "X"),
        missing["error"].to_string().replace("nothing", "X")
    );

    // The studio shows each person what they may see, decided by the same rules.
    studio(db, &servers[0], &bob, &carol);
    // Sessions with an open stream, on a third replica that keeps sessions: each hears
    // `list_changed` when what it is served changes, and only then.
    let streaming = tempfile::tempdir().expect("tempdir");
    let third = HttpServer::start(streaming.path(), &["--db", db, "--auth", "required"]);
    let (mut bob_session, carol_session) = (
        Session::open_as(&third, Some(&bob)),
        Session::open_as(&third, Some(&carol)),
    );
    let (bob_hears, carol_hears) = (bob_session.notifications(), carol_session.notifications());
    // Changed on the command line: every replica serves it at once.
    ok(db, &["visibility", "@team-a/a-shared", "private"]);
    heard_list_changed(&bob_hears, Duration::from_secs(10));
    assert!(
        !bob_session
            .tool_names()
            .iter()
            .any(|name| name == "a-shared")
    );
    assert!(
        !carol_hears
            .recv_timeout(Duration::from_millis(1500))
            .is_ok_and(|method| method.ends_with("list_changed")),
        "carol is served nothing new"
    );
    ok(db, &["star", "@team-a/a-public", "--user", "carol"]);
    heard_list_changed(&carol_hears, Duration::from_secs(10));
    drop(third);
    for server in &servers {
        eventually(server, &bob, &set(&["a-public"]));
        eventually(
            server,
            &carol,
            &set(&["a-public", "b-notes", "b-public", "b-shared"]),
        );
        eventually(server, &alice, &set(&["a-private", "a-public", "a-shared"]));
    }
    // Disabled: alice's key is refused by both.
    ok(db, &["users", "disable", "alice"]);
    for server in &servers {
        let start = Instant::now();
        loop {
            let (status, _, _) = rpc(server, Some(&alice), "tools/list", json!({}));
            if status == 401 {
                break;
            }
            assert!(start.elapsed() < Duration::from_secs(10), "still {status}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Waits up to `deadline` for `notifications/tools/list_changed` among `notifications`.
fn heard_list_changed(notifications: &std::sync::mpsc::Receiver<String>, deadline: Duration) {
    let start = Instant::now();
    loop {
        let left = deadline.saturating_sub(start.elapsed());
        match notifications.recv_timeout(left) {
            Ok(method) if method == "notifications/tools/list_changed" => return,
            Ok(_) => {}
            Err(_) => panic!("no tools/list_changed within {deadline:?}"),
        }
    }
}

#[test]
fn two_replicas_serve_each_key_what_its_person_may_see_on_sqlite() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    replicas(db.to_str().expect("utf-8"));
}

#[test]
fn two_replicas_serve_each_key_what_its_person_may_see_on_postgres() {
    let schema = Schema::create("replicas_ns");
    replicas(&schema.url());
}

/// The names of the tools a request without a key is listed.
fn anonymous_tools(server: &HttpServer) -> Option<BTreeSet<String>> {
    let (status, _, message) = rpc(server, None, "tools/list", json!({}));
    (status == 200).then(|| {
        message["result"]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|tool| tool["name"].as_str())
            .filter(|name| name.starts_with("a-") || name.starts_with("b-"))
            .map(str::to_owned)
            .collect()
    })
}

/// `serve --public-read` serves the public items to a request without a key (and nothing else,
/// and no write); `serve --namespace` narrows every caller to its namespaces.
#[test]
fn public_read_and_a_narrowed_server() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    let db = db.to_str().expect("utf-8");
    teams(db, work.path());
    let alice = new_key(db, "alice-key", "alice", None);

    let closed = HttpServer::start(
        work.path(),
        &["--db", db, "--auth", "required", "--stateless"],
    );
    assert_eq!(anonymous_tools(&closed), None, "a key is required");
    drop(closed);
    let open = HttpServer::start(
        work.path(),
        &[
            "--db",
            db,
            "--auth",
            "required",
            "--public-read",
            "--stateless",
        ],
    );
    assert_eq!(anonymous_tools(&open), Some(set(&["a-public", "b-public"])));
    let (_, _, written) = rpc(
        &open,
        None,
        "tools/call",
        json!({"name": "create_skill", "arguments": {"name": "x", "description": "Use when x."}}),
    );
    assert!(
        !written["error"].is_null(),
        "a reader writes nothing: {written}"
    );
    assert_eq!(
        tools(&open, &alice),
        set(&["a-private", "a-public", "a-shared"])
    );
    // Alice makes her item public as she updates it: the reader without a key is served it.
    let (_, _, updated) = rpc(
        &open,
        Some(&alice),
        "tools/call",
        json!({"name": "update_skill", "arguments": {
            "name": "@team-a/a-shared",
            "expected_revision": 1,
            "description": "Use when deploying services, now for everyone.",
            "visibility": "public",
        }}),
    );
    assert_ne!(updated["result"]["isError"], true, "{updated}");
    let start = Instant::now();
    while anonymous_tools(&open) != Some(set(&["a-public", "a-shared", "b-public"])) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            anonymous_tools(&open)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(open);

    let narrowed = HttpServer::start(
        work.path(),
        &[
            "--db",
            db,
            "--auth",
            "required",
            "--namespace",
            "@team-b",
            "--stateless",
        ],
    );
    assert!(
        tools(&narrowed, &alice).is_empty(),
        "alice has no part in @team-b"
    );
}

/// Signs in to the studio with `key`: the session's cookie.
/// Bob's and Carol's studio: the catalog lists what each may find, a hidden item's page is
/// missing, the star button stars, and the log is an owner's.
fn studio(db: &str, server: &HttpServer, bob: &str, carol: &str) {
    let carols = sign_in(server, carol);
    let catalog = get(&server.address, "/", &carols);
    assert_eq!(status(&catalog), 200, "{catalog}");
    for shown in ["b-shared", "b-public", "a-public"] {
        assert!(catalog.contains(shown), "{shown} for carol: {catalog}");
    }
    for hidden in ["a-shared", "a-private"] {
        assert!(!catalog.contains(hidden), "{hidden} for carol: {catalog}");
    }
    let hidden = get(&server.address, "/skills/%40team-a%2Fa-private", &carols);
    let missing = get(&server.address, "/skills/%40team-a%2Fnothing", &carols);
    assert_eq!((status(&hidden), status(&missing)), (404, 404), "{hidden}");
    let page = get(&server.address, "/skills/%40team-a%2Fa-public", &carols);
    assert_eq!(status(&page), 200, "{page}");
    assert!(page.contains("@team-a · public"), "{page}");
    let starred = post(
        &server.address,
        "/skills/%40team-a%2Fa-public/star",
        Some(&carols),
        &[],
        &form(&[("csrf", &token_of(&page)), ("starred", "true")]),
    );
    assert_eq!(status(&starred), 303, "{starred}");
    assert_eq!(
        header(&starred, "location"),
        Some("/skills/%40team-a%2Fa-public")
    );
    let page = get(&server.address, "/skills/%40team-a%2Fa-public", &carols);
    assert!(page.contains("★ 1") && page.contains(">Unstar<"), "{page}");
    let unstarred = post(
        &server.address,
        "/skills/%40team-a%2Fa-public/star",
        Some(&carols),
        &[],
        &form(&[("csrf", &token_of(&page)), ("starred", "false")]),
    );
    assert_eq!(status(&unstarred), 303, "{unstarred}");
    // Carol owns @team-b, but her author key acts as an author: the log needs an owner, which
    // a key with the admin role lets her be; then @team-b's entries are hers to read.
    let refused = get(&server.address, "/log", &carols);
    assert_eq!(status(&refused), 403, "{refused}");
    let owning = new_key(db, "carol-owner", "carol", Some("admin"));
    let carols = sign_in(server, &owning);
    // She creates a private skill of @team-b from the studio's form.
    let new = get(&server.address, "/new", &carols);
    assert!(new.contains("<option>@team-b</option>"), "{new}");
    assert!(!new.contains("<option>@team-a</option>"), "{new}");
    let created = post(
        &server.address,
        "/new",
        Some(&carols),
        &[],
        &form(&[
            ("csrf", &token_of(&new)),
            ("action", "create"),
            ("name", "b-notes"),
            ("description", "Use when taking the team's notes."),
            ("namespace", "@team-b"),
            ("visibility", "private"),
        ]),
    );
    assert_eq!(status(&created), 303, "{created}");
    let location = header(&created, "location").unwrap_or_default().to_owned();
    assert!(
        location == "/skills/%40team-b%2Fb-notes" || location == "/review/%40team-b%2Fb-notes",
        "{location}"
    );
    let shown = json(&ok(
        db,
        &["namespaces", "show", "@team-b", "--format", "json"],
    ));
    assert_eq!(shown["items"].as_u64(), Some(3), "{shown}");
    // And shares it with everyone from its page.
    let page = get(&server.address, "/skills/%40team-b%2Fb-notes", &carols);
    let shared = post(
        &server.address,
        "/skills/%40team-b%2Fb-notes/visibility",
        Some(&carols),
        &[],
        &form(&[("csrf", &token_of(&page)), ("visibility", "public")]),
    );
    assert_eq!(status(&shared), 303, "{shared}");
    let page = get(&server.address, "/skills/%40team-b%2Fb-notes", &carols);
    assert!(page.contains("@team-b · public"), "{page}");
    let log = get(&server.address, "/log", &carols);
    assert_eq!(status(&log), 200, "{log}");
    assert!(
        log.contains("@team-b:carol") || log.contains("@team-b"),
        "{log}"
    );
    assert!(!log.contains("@team-a:bob"), "{log}");
    // From the editor too: saved, and seen by the namespace again.
    let stored = json(&ok(db, &["show", "@team-b/b-notes", "--format", "json"]));
    let editor = get(&server.address, "/skills/%40team-b%2Fb-notes/edit", &carols);
    assert!(
        editor.contains("<option selected>public</option>"),
        "{editor}"
    );
    let edited = post(
        &server.address,
        "/skills/%40team-b%2Fb-notes/edit",
        Some(&carols),
        &[],
        &form(&[
            ("csrf", &token_of(&editor)),
            ("file", "SKILL.md"),
            ("base", &stored["revision"].to_string()),
            (
                "text",
                &format!("{}\nEdited.\n", stored["skill_md"].as_str().expect("text")),
            ),
            ("visibility", "namespace"),
        ]),
    );
    assert_eq!(status(&edited), 303, "{edited}");
    let stored = json(&ok(db, &["show", "@team-b/b-notes", "--format", "json"]));
    assert_eq!(stored["visibility"], "namespace", "{stored}");
    assert!(
        stored["skill_md"]
            .as_str()
            .is_some_and(|text| text.ends_with("Edited.\n"))
    );
    // The namespace's page: its owner manages members and settings there.
    let team = get(&server.address, "/namespaces/%40team-b", &carols);
    assert_eq!(status(&team), 200, "{team}");
    assert!(
        team.contains("b-shared") && team.contains(">Add member<") && team.contains(">Freeze<"),
        "{team}"
    );
    let manage = |path: &str, fields: &[(&str, &str)]| {
        let page = get(&server.address, "/namespaces/%40team-b", &carols);
        let mut fields = fields.to_vec();
        let token = token_of(&page);
        fields.push(("csrf", &token));
        let answer = post(&server.address, path, Some(&carols), &[], &form(&fields));
        assert_eq!(status(&answer), 303, "{path} {fields:?}: {answer}");
    };
    let members = "/namespaces/%40team-b/members";
    manage(
        members,
        &[("action", "add"), ("handle", "bob"), ("role", "reader")],
    );
    let bobs = sign_in(server, bob);
    let theirs = get(&server.address, "/namespaces/%40team-b", &bobs);
    assert!(theirs.contains("b-shared"), "a reader of @team-b: {theirs}");
    assert!(!theirs.contains(">Add member<"), "{theirs}");
    let refused = post(
        &server.address,
        "/namespaces/%40team-b/settings",
        Some(&bobs),
        &[],
        &form(&[("csrf", &token_of(&theirs)), ("change", "freeze")]),
    );
    assert_eq!(status(&refused), 409, "{refused}");
    manage(
        members,
        &[("action", "set"), ("handle", "bob"), ("role", "author")],
    );
    let listed = json(&ok(db, &["members", "list", "@team-b", "--format", "json"]));
    assert!(
        listed
            .as_array()
            .expect("members")
            .contains(&json!({"namespace": "@team-b", "handle": "bob", "role": "author"})),
        "{listed}"
    );
    manage(members, &[("action", "remove"), ("handle", "bob")]);
    let settings = "/namespaces/%40team-b/settings";
    manage(settings, &[("change", "freeze")]);
    manage(settings, &[("change", "drafts")]);
    let shown = json(&ok(
        db,
        &["namespaces", "show", "@team-b", "--format", "json"],
    ));
    assert_eq!(
        (&shown["frozen"], &shown["review"]),
        (&json!(true), &json!(true)),
        "{shown}"
    );
    let frozen = get(&server.address, "/namespaces/%40team-b", &carols);
    assert!(
        frozen.contains(">Thaw<") && frozen.contains("value=\"drafts\" selected"),
        "{frozen}"
    );
    manage(settings, &[("change", "thaw")]);
    manage(settings, &[("change", "server")]);
    let refused = get(&server.address, "/log", &bobs);
    assert_eq!(status(&refused), 403, "{refused}");
    // Bob reads none of @team-b's items but its public one.
    let theirs = get(&server.address, "/namespaces/%40team-b", &bobs);
    assert!(
        theirs.contains("b-public") && !theirs.contains("b-shared"),
        "{theirs}"
    );
}

/// Which of the test's items `value` names (its JSON text mentions them).
fn mentioned(value: &Value) -> BTreeSet<String> {
    let text = value.to_string();
    [
        "a-private",
        "a-shared",
        "a-public",
        "b-shared",
        "b-public",
        "b-notes",
    ]
    .into_iter()
    .filter(|name| text.contains(name))
    .map(str::to_owned)
    .collect()
}
