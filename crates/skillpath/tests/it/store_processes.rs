//! The store under real processes: two `skillpath` processes writing one database at once,
//! an import killed with SIGKILL in the middle of its transaction, and a server's
//! `update_skill` after another process wrote the skill. (More kills: `crash_consistency.rs`.)

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{HttpServer, call_tool, skillpath};

/// Runs `skillpath args...` on the database `db` (named by the environment), as `tester`.
fn run_on(db: &Path, args: &[&str]) -> Output {
    skillpath(args)
        .env("SKILLPATH_DB", db)
        .env("USER", "tester")
        .output()
        .expect("run skillpath")
}

fn write_skill(dir: &Path, name: &str, extra_bytes: usize) {
    std::fs::create_dir_all(dir.join("references")).expect("mkdir");
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: Use when testing {name}.\n---\n# {name}\n"),
    )
    .expect("write");
    // Distinct bytes per skill, so the database cannot share them.
    let filler: String = (0..extra_bytes)
        .map(|i| char::from(b'a' + ((i * 7 + name.len()) % 26) as u8))
        .collect();
    std::fs::write(dir.join("references/notes.md"), format!("{name}\n{filler}")).expect("write");
}

/// `PRAGMA integrity_check` and counts of skills and revisions.
fn inspect(db: &Path) -> (String, i64, i64) {
    let connection = rusqlite::Connection::open(db).expect("the database opens");
    let integrity: String = connection
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity check");
    let skills: i64 = connection
        .query_row("SELECT count(*) FROM skills", [], |r| r.get(0))
        .expect("count skills");
    let revisions: i64 = connection
        .query_row("SELECT count(*) FROM revisions", [], |r| r.get(0))
        .expect("count revisions");
    (integrity, skills, revisions)
}

#[test]
fn two_processes_writing_one_skill_at_once_one_wins_the_other_is_refused() {
    let temp = tempfile::tempdir().expect("tempdir");
    let db = temp.path().join("store.db");
    write_skill(&temp.path().join("shared"), "shared", 10);
    let import = run_on(
        &db,
        &[
            "import",
            temp.path().join("shared").to_str().expect("utf-8"),
        ],
    );
    assert!(import.status.success(), "{import:?}");
    for round in 1..=8u64 {
        // Both expect revision `round`; both start before either finishes.
        let expect = round.to_string();
        let spawn = || {
            skillpath(&[
                "rollback",
                "shared",
                "--to",
                "1",
                "--expect",
                &expect,
                "--message",
                "race",
            ])
            .env("SKILLPATH_DB", &db)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn")
        };
        let (first, second) = (spawn(), spawn());
        let outputs = [
            first.wait_with_output().expect("wait"),
            second.wait_with_output().expect("wait"),
        ];
        let winners = outputs.iter().filter(|o| o.status.success()).count();
        assert_eq!(winners, 1, "round {round}: {outputs:?}");
        let loser = outputs
            .iter()
            .find(|o| !o.status.success())
            .expect("a refused writer");
        assert_eq!(loser.status.code(), Some(1));
        let message = String::from_utf8_lossy(&loser.stderr);
        assert!(
            message.contains(&format!("is at revision {}, not {round}", round + 1)),
            "round {round}: the refusal names both revisions: {message}"
        );
    }
    let (integrity, skills, revisions) = inspect(&db);
    assert_eq!((integrity.as_str(), skills, revisions), ("ok", 1, 9));
    let history = run_on(&db, &["history", "shared", "--format", "json"]);
    let history: serde_json::Value = serde_json::from_slice(&history.stdout).expect("JSON");
    let numbers: Vec<u64> = history
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|r| r["number"].as_u64())
        .collect();
    assert_eq!(numbers, (1..=9).collect::<Vec<_>>());
}

#[test]
fn an_import_killed_mid_transaction_leaves_the_previous_state() {
    let temp = tempfile::tempdir().expect("tempdir");
    let db = temp.path().join("store.db");
    // A first, committed import: the state a killed import must fall back to.
    write_skill(&temp.path().join("first/keep"), "keep", 10);
    assert!(
        run_on(
            &db,
            &["import", temp.path().join("first").to_str().expect("utf-8")]
        )
        .status
        .success()
    );
    let tree = temp.path().join("tree");
    let count = 1500;
    for index in 0..count {
        write_skill(
            &tree.join(format!("skill-{index}")),
            &format!("skill-{index}"),
            24_000,
        );
    }
    let wal = PathBuf::from(format!("{}-wal", db.display()));
    let mut killed_mid_transaction = 0;
    for attempt in 0..3 {
        let wal_before = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
        let mut child = skillpath(&["import", tree.to_str().expect("utf-8")])
            .env("SKILLPATH_DB", &db)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        // Wait until the import's transaction is writing pages (the WAL grows), then kill.
        let started = Instant::now();
        let mut mid = false;
        while started.elapsed() < Duration::from_secs(60) {
            if child.try_wait().expect("poll").is_some() {
                break;
            }
            let size = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
            if size > wal_before + 4 * 1024 * 1024 {
                mid = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().expect("SIGKILL");
        let status = child.wait().expect("reaped");
        let (integrity, skills, revisions) = inspect(&db);
        assert_eq!(integrity, "ok", "attempt {attempt}");
        if mid && !status.success() {
            killed_mid_transaction += 1;
            assert_eq!(
                (skills, revisions),
                (1, 1),
                "attempt {attempt}: no partial import may be visible"
            );
        } else {
            assert!(
                skills == 1 || skills == count + 1,
                "attempt {attempt}: {skills} skills"
            );
        }
        if skills == count + 1 {
            break;
        }
    }
    assert!(
        killed_mid_transaction > 0,
        "no attempt was killed inside the import's transaction"
    );
    // The database is still usable: the same import now completes.
    let import = run_on(&db, &["import", tree.to_str().expect("utf-8")]);
    assert!(import.status.success(), "{import:?}");
    let (integrity, skills, revisions) = inspect(&db);
    assert_eq!(
        (integrity.as_str(), skills, revisions),
        ("ok", count + 1, count + 1)
    );
}

/// A revision written by another process (an import; SQLite gives the server no signal of it)
/// is the base of the next `update_skill` that expects it: the update changes only the fields
/// it names and keeps everything that revision changed.
#[test]
fn an_update_through_the_server_keeps_the_revision_another_process_wrote() {
    let temp = tempfile::tempdir().expect("tempdir");
    let db = temp.path().join("store.db");
    let server = HttpServer::start(temp.path(), &["--stateless"]);
    let (is_error, text) = call_tool(
        &server.address,
        "create_skill",
        json!({
            "name": "merged",
            "description": "Use when testing merges.",
            "title": "First Title",
            "sections": [{"type": "execution-steps", "heading": "Execution Steps", "content": ""}],
            "phases": [{"name": "Write it", "content": "Write the first version."}],
        }),
    )
    .expect("create_skill");
    assert!(!is_error, "{text}");
    let incoming = temp.path().join("incoming/merged");
    std::fs::create_dir_all(&incoming).expect("mkdir");
    std::fs::write(
        incoming.join("SKILL.md"),
        "---\nname: merged\ndescription: Use when testing merges.\n---\n\n# Second Title\n\n\
         ## Execution Steps\n\n### Phase 1: Write it\n\nWrite the second version.\n",
    )
    .expect("write");
    let import = run_on(&db, &["import", incoming.to_str().expect("utf-8")]);
    assert!(import.status.success(), "{import:?}");
    let read = |revision: Option<u64>| -> Value {
        let mut arguments = json!({"name": "merged"});
        if let Some(revision) = revision {
            arguments["revision"] = json!(revision);
        }
        let (is_error, text) =
            call_tool(&server.address, "get_skill", arguments).expect("get_skill");
        assert!(!is_error, "{text}");
        serde_json::from_str(&text).expect("JSON")
    };
    assert_eq!(read(None)["revision"], 2);
    let (is_error, text) = call_tool(
        &server.address,
        "update_skill",
        json!({"name": "merged", "expected_revision": 2, "description": "Use when testing merges again."}),
    )
    .expect("update_skill");
    assert_eq!(
        (is_error, text.as_str()),
        (false, "Updated `merged` to revision 3.")
    );
    let skill_md = read(Some(3))["skill_md"].as_str().expect("text").to_owned();
    for kept in [
        "description: Use when testing merges again.\n",
        "# Second Title\n",
        "Write the second version.\n",
    ] {
        assert!(
            skill_md.contains(kept),
            "revision 3 lacks {kept:?}: {skill_md}"
        );
    }
    assert!(
        !skill_md.contains("first"),
        "revision 1 came back: {skill_md}"
    );
    // Expecting the revision the import replaced is refused as stale, with both numbers.
    let (is_error, text) = call_tool(
        &server.address,
        "update_skill",
        json!({"name": "merged", "expected_revision": 2, "description": "Use when testing merges once more."}),
    )
    .expect("update_skill");
    assert!(
        is_error && text.contains("is at revision 3, not 2"),
        "{text}"
    );
}
