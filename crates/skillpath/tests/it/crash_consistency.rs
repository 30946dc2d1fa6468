//! Crash consistency with real processes, on SQLite and on PostgreSQL: processes killed with
//! SIGKILL (no shutdown code runs) in the middle of their writes.
//!
//! - An import of a few hundred skills, killed after a random delay (fixed seed) again and
//!   again on one database: after every kill the database opens (`skillpath list` exits 0), its
//!   structure is consistent (SQLite's `PRAGMA integrity_check` and FTS5 `integrity-check`;
//!   on both backends every skill's history numbered 1..n and its current revision equal to
//!   the skills row), and the import is all or nothing: every skill of the tree at the new
//!   version, or every one at the previous version; search finds exactly the skills of the
//!   version that is there. A last import, not killed, completes.
//! - `serve --http --stateless` under concurrent `create_skill` and `update_skill` calls,
//!   killed mid-load and restarted on the same database, a few rounds: every acknowledged
//!   write is there with the content sent, every stored skill is whole (history 1..n, every
//!   revision readable with content some client sent for that revision number), and a write
//!   that was not acknowledged is either absent or whole.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillpath_test_support::RunExt;

use crate::postgres_support::{Schema, query_value};
use crate::support::{HttpServer, Rng, call_tool, skillpath};

/// Skills whose history is not numbered 1..n, or whose current revision's row disagrees with
/// the skills row. Plain SQL that both backends run alike.
pub(crate) const INCONSISTENT_SKILLS: &str = "SELECT count(*) FROM skills s WHERE
    (SELECT count(*) FROM revisions r WHERE r.skill_id = s.id) <> s.revision
    OR (SELECT min(r.number) FROM revisions r WHERE r.skill_id = s.id) <> 1
    OR (SELECT max(r.number) FROM revisions r WHERE r.skill_id = s.id) <> s.revision
    OR NOT EXISTS (SELECT 1 FROM revisions r WHERE r.skill_id = s.id AND r.number = s.revision
        AND r.content_hash = s.content_hash AND r.description = s.description)";

/// Files of revisions whose bytes are missing.
const MISSING_BLOBS: &str = "SELECT count(*) FROM revision_files f
    WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.sha256 = f.sha256)";

/// A store under test: an SQLite file or a PostgreSQL schema of its own (dropped at the end).
struct Database {
    /// What `--db` gets.
    db: String,
    sqlite: Option<PathBuf>,
    _schema: Option<Schema>,
}

impl Database {
    fn sqlite(path: PathBuf) -> Database {
        Database {
            db: path.to_str().expect("utf-8").to_owned(),
            sqlite: Some(path),
            _schema: None,
        }
    }

    fn postgres(tag: &str) -> Database {
        let schema = Schema::create(tag);
        Database {
            db: schema.url(),
            sqlite: None,
            _schema: Some(schema),
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = skillpath(args);
        command.args(["--db", &self.db]).env("USER", "tester");
        command
    }

    /// Runs `skillpath ARGS --db DB --format json`, which must exit 0, and parses its output.
    fn json(&self, args: &[&str]) -> Value {
        self.command(args).args(["--format", "json"]).ok_json()
    }

    /// Every live skill: name → (revision, description). An import killed before it made the
    /// database file left no database, which holds nothing (`list` makes none and says so).
    fn listed(&self) -> BTreeMap<String, (u64, String)> {
        if let Some(path) = &self.sqlite
            && !path.exists()
        {
            return BTreeMap::new();
        }
        let listing = self.json(&["list", "--limit", "100000"]);
        assert!(listing["next_cursor"].is_null(), "one page: {listing}");
        listing["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|item| {
                (
                    item["name"].as_str().expect("name").to_owned(),
                    (
                        item["revision"].as_u64().expect("revision"),
                        item["description"]
                            .as_str()
                            .expect("description")
                            .to_owned(),
                    ),
                )
            })
            .collect()
    }

    fn count(&self, sql: &str) -> i64 {
        match &self.sqlite {
            Some(path) => {
                let connection = rusqlite::Connection::open(path).expect("the database opens");
                connection
                    .query_row(sql, [], |row| row.get(0))
                    .expect("query")
            }
            None => query_value::<i64>(&self.db, sql),
        }
    }

    /// The database's own checks (SQLite) and the store's invariants (both backends).
    fn assert_consistent(&self, when: &str) {
        if let Some(path) = &self.sqlite {
            let connection = rusqlite::Connection::open(path).expect("the database opens");
            let integrity: String = connection
                .query_row("PRAGMA integrity_check", [], |row| row.get(0))
                .expect("integrity check");
            assert_eq!(integrity, "ok", "{when}: PRAGMA integrity_check");
            // Killed before its first migration committed, an import leaves a file that holds
            // no schema yet (the next open migrates it): nothing was written, nothing to check.
            let tables: i64 = connection
                .query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))
                .expect("the schema");
            if tables == 0 {
                return;
            }
            // Every full-text index the schema has (one killed between migrations has the
            // index of the version it reached).
            let indexes: Vec<String> = connection
                .prepare(
                    "SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'",
                )
                .and_then(|mut statement| {
                    statement
                        .query_map([], |row| row.get(0))?
                        .collect::<Result<_, _>>()
                })
                .expect("the search indexes");
            assert!(!indexes.is_empty(), "{when}: no search index");
            for index in indexes {
                connection
                    .execute(
                        &format!("INSERT INTO {index}({index}) VALUES('integrity-check')"),
                        [],
                    )
                    .unwrap_or_else(|error| {
                        panic!("{when}: the search index `{index}` is corrupt: {error}")
                    });
            }
        }
        assert_eq!(
            self.count(INCONSISTENT_SKILLS),
            0,
            "{when}: a skill's history or current revision is half-written"
        );
        assert_eq!(self.count(MISSING_BLOBS), 0, "{when}: file bytes missing");
    }
}

// ---------------------------------------------------------------------------------------------
// An import killed with SIGKILL.

/// Skills in the imported tree.
const TREE_SKILLS: usize = 300;
/// Kills per backend.
const IMPORT_KILLS: usize = 10;

/// A word that is in every skill of version `version` of the tree and in no other version
/// (fixed width, so no marker is a prefix of another).
fn marker(version: u64) -> String {
    format!("zver{version:03}x")
}

/// Writes version `version` of the tree: every skill's description and body carry its marker.
fn write_tree(tree: &Path, version: u64) {
    let marker = marker(version);
    for index in 0..TREE_SKILLS {
        let name = format!("crash-{index:03}");
        let dir = tree.join(&name);
        std::fs::create_dir_all(dir.join("references")).expect("mkdir");
        std::fs::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: {name}\ndescription: Use when checking crash safety, version {marker}.\n---\n# {name}\n\nVersion {marker} of {name}.\n"
            ),
        )
        .expect("write");
        std::fs::write(
            dir.join("references/notes.md"),
            format!("{name} {marker}\n{}\n", "n".repeat(index)),
        )
        .expect("write");
    }
}

/// The version of the tree the store holds: 0 (none of it), or `previous` or `attempted` with
/// every skill of the tree at that revision and description, and search agreeing. Anything
/// else (some skills at one version and some at another, or some missing) fails.
fn stored_version(database: &Database, previous: u64, attempted: u64, when: &str) -> u64 {
    let listed = database.listed();
    let ours: Vec<(&String, &(u64, String))> = listed
        .iter()
        .filter(|(name, _)| name.starts_with("crash-"))
        .collect();
    if ours.is_empty() {
        assert_eq!(
            previous, 0,
            "{when}: version {previous} was committed and is gone"
        );
        return 0;
    }
    assert_eq!(
        ours.len(),
        TREE_SKILLS,
        "{when}: a partial import is visible"
    );
    let version = [previous, attempted]
        .into_iter()
        .find(|version| *version > 0 && ours[0].1.1.contains(&marker(*version)))
        .unwrap_or_else(|| panic!("{when}: unexpected content {:?}", ours[0]));
    for (name, (revision, description)) in &ours {
        assert!(
            *revision == version && description.contains(&marker(version)),
            "{when}: `{name}` is at revision {revision} ({description:?}) while others are at version {version}"
        );
    }
    let limit = (TREE_SKILLS + 10).to_string();
    let hits = |version: u64| -> usize {
        database
            .json(&["search", &marker(version), "--limit", &limit])
            .as_array()
            .expect("hits")
            .len()
    };
    assert_eq!(hits(version), TREE_SKILLS, "{when}: search misses skills");
    for other in [version - 1, attempted] {
        if other > 0 && other != version {
            assert_eq!(hits(other), 0, "{when}: search finds version {other}");
        }
    }
    version
}

fn import_killed_repeatedly(database: Database, scratch: Database, seed: u64) {
    let temp = tempfile::tempdir().expect("tempdir");
    let tree = temp.path().join("tree");
    let tree_arg = tree.to_str().expect("utf-8").to_owned();
    // How long a whole import takes here (on a database of its own; the slower of creating
    // the tree's skills and updating them all): kills land from the process's start to a
    // little after that.
    let mut full = Duration::ZERO;
    for version in [1, 2] {
        write_tree(&tree, version);
        let started = Instant::now();
        let calibration = scratch
            .command(&["import", &tree_arg])
            .output()
            .expect("import");
        assert!(calibration.status.success(), "{calibration:?}");
        full = full.max(started.elapsed());
    }
    drop(scratch);

    let mut rng = Rng::new(seed);
    let mut version = 0;
    let (mut kept, mut committed, mut finished_before_kill) = (0, 0, 0);
    for attempt in 0..IMPORT_KILLS {
        let attempted = version + 1;
        write_tree(&tree, attempted);
        let delay = Duration::from_micros(rng.below(full.as_micros() as u64 * 6 / 5 + 1));
        let mut child = database
            .command(&["import", &tree_arg])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(delay);
        if child.try_wait().expect("poll").is_some() {
            finished_before_kill += 1;
        }
        // SIGKILL (a no-op on a process that already exited but was not reaped).
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        let when = format!("kill {attempt} after {delay:?}");
        let now = stored_version(&database, version, attempted, &when);
        database.assert_consistent(&when);
        if now == version {
            kept += 1;
        } else {
            committed += 1;
        }
        version = now;
    }
    eprintln!(
        "import killed {IMPORT_KILLS} times (a whole import takes {full:?}): {kept} left the \
         previous version, {committed} committed, {finished_before_kill} had exited before the kill"
    );
    assert!(kept > 0, "no kill landed before the import committed");
    // The database is still usable: the next import completes.
    let attempted = version + 1;
    write_tree(&tree, attempted);
    let output = database
        .command(&["import", &tree_arg])
        .output()
        .expect("import");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        stored_version(&database, version, attempted, "last import"),
        attempted
    );
    database.assert_consistent("last import");
}

#[test]
fn import_killed_sqlite() {
    let temp = tempfile::tempdir().expect("tempdir");
    import_killed_repeatedly(
        Database::sqlite(temp.path().join("store.db")),
        Database::sqlite(temp.path().join("scratch.db")),
        0x5EED_0001,
    );
}

#[test]
fn import_killed_postgres() {
    import_killed_repeatedly(
        Database::postgres("crash_import"),
        Database::postgres("crash_import_scratch"),
        0x5EED_0002,
    );
}

// ---------------------------------------------------------------------------------------------
// `create_skill` and `update_skill` under load, the server killed with SIGKILL.

/// Client threads writing at once.
const WRITERS: usize = 6;
/// Rounds of load, kill and restart per backend.
const ROUNDS: u64 = 3;
/// The skill every writer also updates, so that some writes are refused as stale.
const SHARED: &str = "load-shared";

/// What the clients sent and what the server acknowledged.
#[derive(Default)]
struct Ledger {
    /// (name, revision) → every description some client sent to become that revision.
    sent: BTreeMap<(String, u64), Vec<String>>,
    /// Acknowledged writes: (name, revision, description).
    acknowledged: Vec<(String, u64, String)>,
    /// Answers that were neither a success nor a stale-write refusal while the server ran.
    unexpected: Vec<String>,
    stale: usize,
}

impl Ledger {
    fn send(&mut self, name: &str, revision: u64, description: &str) {
        self.sent
            .entry((name.to_owned(), revision))
            .or_default()
            .push(description.to_owned());
    }
}

/// One write; `Some(revision)` when acknowledged, `None` when refused as stale (counted), or
/// when the server is gone (`Err`, recorded as unexpected unless the server was being killed).
/// Returns `Err(())` when the writer should stop.
fn write(
    address: &str,
    ledger: &Mutex<Ledger>,
    killing: &AtomicBool,
    tool: &str,
    arguments: Value,
    (name, revision, description): (&str, u64, &str),
) -> Result<Option<u64>, ()> {
    ledger
        .lock()
        .expect("ledger")
        .send(name, revision, description);
    let answer = call_tool(address, tool, arguments);
    let mut ledger = ledger.lock().expect("ledger");
    match answer {
        Ok((false, text)) => {
            let expected = match tool {
                "create_skill" => format!("Created `{name}` at revision {revision};"),
                _ => format!("Updated `{name}` to revision {revision}."),
            };
            if text.starts_with(&expected) {
                ledger
                    .acknowledged
                    .push((name.to_owned(), revision, description.to_owned()));
                Ok(Some(revision))
            } else {
                ledger.unexpected.push(format!("{tool} {name}: {text}"));
                Err(())
            }
        }
        Ok((true, text)) if text.contains("it was changed since you read it") => {
            ledger.stale += 1;
            Ok(None)
        }
        Ok((true, text)) => {
            ledger.unexpected.push(format!("{tool} {name}: {text}"));
            Err(())
        }
        Err(error) => {
            if !killing.load(Ordering::SeqCst) {
                ledger.unexpected.push(format!("{tool} {name}: {error}"));
            }
            Err(())
        }
    }
}

/// A writer: creates `load-r<round>-t<thread>-<i>`, updates it to revision 2, and updates the
/// shared skill at the revision it last saw, until the server is gone.
fn writer(
    address: String,
    round: u64,
    thread: usize,
    ledger: Arc<Mutex<Ledger>>,
    killing: Arc<AtomicBool>,
) {
    let mut shared_revision = 1;
    for item in 0.. {
        let name = format!("load-r{round}-t{thread}-{item}");
        let created = format!("Use when checking crash round {round} thread {thread} item {item}.");
        let arguments = json!({"name": name, "description": created});
        if write(
            &address,
            &ledger,
            &killing,
            "create_skill",
            arguments,
            (&name, 1, &created),
        )
        .is_err()
        {
            return;
        }
        let updated =
            format!("Use when checking crash round {round} thread {thread} item {item} again.");
        let arguments = json!({"name": name, "expected_revision": 1, "description": updated});
        if write(
            &address,
            &ledger,
            &killing,
            "update_skill",
            arguments,
            (&name, 2, &updated),
        )
        .is_err()
        {
            return;
        }
        let shared =
            format!("Use when checking crash round {round} shared by thread {thread} item {item}.");
        let arguments =
            json!({"name": SHARED, "expected_revision": shared_revision, "description": shared});
        match write(
            &address,
            &ledger,
            &killing,
            "update_skill",
            arguments,
            (SHARED, shared_revision + 1, &shared),
        ) {
            Ok(Some(revision)) => shared_revision = revision,
            // Stale: read the current revision and use it next time.
            Ok(None) => match call_tool(&address, "get_skill", json!({"name": SHARED})) {
                Ok((false, text)) => {
                    let skill: Value = serde_json::from_str(&text).expect("get_skill JSON");
                    shared_revision = skill["revision"].as_u64().expect("revision");
                }
                _ => return,
            },
            Err(()) => return,
        }
    }
}

/// A skill's stored revision as `get_skill` returns it: its `SKILL.md`.
fn stored_skill_md(address: &str, name: &str, revision: u64) -> String {
    let (is_error, text) = call_tool(
        address,
        "get_skill",
        json!({"name": name, "revision": revision}),
    )
    .unwrap_or_else(|error| panic!("get_skill {name} {revision}: {error}"));
    assert!(!is_error, "get_skill {name} {revision}: {text}");
    let skill: Value = serde_json::from_str(&text).expect("get_skill JSON");
    assert_eq!(skill["revision"].as_u64(), Some(revision), "{text}");
    skill["skill_md"].as_str().expect("skill_md").to_owned()
}

/// After a restart: acknowledged writes are there as sent; every stored skill is whole.
fn assert_writes_whole(address: &str, database: &Database, ledger: &Ledger, when: &str) {
    database.assert_consistent(when);
    for (name, revision, description) in &ledger.acknowledged {
        let skill_md = stored_skill_md(address, name, *revision);
        assert!(
            skill_md.contains(&format!("description: {description}\n")),
            "{when}: acknowledged revision {revision} of `{name}` lost its content: {skill_md}"
        );
    }
    for (name, (current, _)) in database.listed() {
        let (is_error, text) = call_tool(address, "skill_history", json!({"name": name}))
            .unwrap_or_else(|error| panic!("skill_history {name}: {error}"));
        assert!(!is_error, "{when}: skill_history {name}: {text}");
        let history: Value = serde_json::from_str(&text).expect("history JSON");
        let numbers: Vec<u64> = history
            .as_array()
            .expect("revisions")
            .iter()
            .map(|revision| revision["number"].as_u64().expect("number"))
            .collect();
        assert_eq!(
            numbers,
            (1..=current).collect::<Vec<_>>(),
            "{when}: `{name}`'s history"
        );
        for revision in 1..=current {
            let skill_md = stored_skill_md(address, &name, revision);
            let sent = ledger
                .sent
                .get(&(name.clone(), revision))
                .unwrap_or_else(|| panic!("{when}: `{name}` revision {revision} was never sent"));
            assert!(
                sent.iter()
                    .any(|description| skill_md.contains(&format!("description: {description}\n"))),
                "{when}: revision {revision} of `{name}` is not what was sent: {skill_md}"
            );
        }
    }
}

fn create_skill_killed_under_load(database: Database, seed: u64) {
    let work = tempfile::tempdir().expect("tempdir");
    let arguments = ["--stateless", "--db", &database.db];
    let mut server = HttpServer::start(work.path(), &arguments);
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let first = "Use when checking crash rounds together.";
    let mut setup = ledger.lock().expect("ledger");
    setup.send(SHARED, 1, first);
    let created = call_tool(
        &server.address,
        "create_skill",
        json!({"name": SHARED, "description": first}),
    );
    assert!(matches!(created, Ok((false, _))), "{created:?}");
    setup
        .acknowledged
        .push((SHARED.to_owned(), 1, first.to_owned()));
    drop(setup);
    let mut rng = Rng::new(seed);
    for round in 0..ROUNDS {
        let killing = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..WRITERS)
            .map(|thread| {
                let (address, ledger, killing) = (
                    server.address.clone(),
                    Arc::clone(&ledger),
                    Arc::clone(&killing),
                );
                std::thread::spawn(move || writer(address, round, thread, ledger, killing))
            })
            .collect();
        let load = Duration::from_millis(400 + rng.below(1200));
        std::thread::sleep(load);
        killing.store(true, Ordering::SeqCst);
        server.kill();
        for writer in writers {
            writer.join().expect("writer");
        }
        let when = format!("round {round} (killed after {load:?})");
        // The database opens cleanly before anything else touches it, then the server starts.
        let _ = database.listed();
        server = HttpServer::start(work.path(), &arguments);
        let ledger = ledger.lock().expect("ledger");
        assert!(
            ledger.unexpected.is_empty(),
            "{when}: unexpected answers: {:?}\nserver log:\n{}",
            ledger.unexpected,
            server.log()
        );
        assert_writes_whole(&server.address, &database, &ledger, &when);
        eprintln!(
            "{when}: {} writes acknowledged so far, {} refused as stale",
            ledger.acknowledged.len(),
            ledger.stale
        );
    }
    let ledger = ledger.lock().expect("ledger");
    assert!(
        ledger.acknowledged.len() > (ROUNDS as usize) * WRITERS,
        "too few writes were acknowledged to test anything: {}",
        ledger.acknowledged.len()
    );
}

#[test]
fn create_skill_killed_sqlite() {
    let temp = tempfile::tempdir().expect("tempdir");
    create_skill_killed_under_load(Database::sqlite(temp.path().join("store.db")), 0x5EED_0003);
}

#[test]
fn create_skill_killed_postgres() {
    create_skill_killed_under_load(Database::postgres("crash_create"), 0x5EED_0004);
}
