//! Replicas: two `skillpath serve --http` processes on one PostgreSQL schema behave as one
//! server. A change made by a third process (`skillpath import`) or through one replica (its
//! folder sync) reaches the clients of the other as `notifications/tools/list_changed` within two
//! seconds, and its `tools/list` shows it. A write in another schema of the same database is
//! not announced. Raw HTTP/1.1 over TCP against a real PostgreSQL
//! (`$SKILLPATH_TEST_POSTGRES`, default `postgres://postgres@127.0.0.1:5432/test`, trust auth),
//! in a fresh schema dropped at the end; an unreachable server fails the test.

use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::postgres_support::Schema;
use crate::sessions::Session;
use crate::support::{HttpServer, skillpath_bin};

/// How soon a change must reach the other replica's clients.
const DEADLINE: Duration = Duration::from_secs(2);

fn write_skill(dir: &Path, name: &str) {
    std::fs::create_dir_all(dir).expect("mkdir");
    std::fs::write(
        dir.join("SKILL.md"),
        format!(
            "---\nname: {name}\ndescription: Use when testing replicas ({name}).\n---\n# {name}\n"
        ),
    )
    .expect("write");
}

/// Waits for `notifications/tools/list_changed` on `notifications`, up to the deadline after
/// `since`; the latency.
fn wait_for_list_changed(notifications: &mpsc::Receiver<String>, since: Instant) -> Duration {
    loop {
        let left = (since + DEADLINE).saturating_duration_since(Instant::now());
        match notifications.recv_timeout(left) {
            Ok(method) if method == "notifications/tools/list_changed" => return since.elapsed(),
            Ok(_) => {}
            Err(_) => panic!(
                "no tools/list_changed on the other replica within {DEADLINE:?} of the change"
            ),
        }
    }
}

/// Polls `tools/list` until `appears` says so, up to the deadline after `since`; the latency.
fn poll_tools(
    session: &mut Session,
    since: Instant,
    appears: impl Fn(&[String]) -> bool,
) -> Duration {
    loop {
        let names = session.tool_names();
        if appears(&names) {
            return since.elapsed();
        }
        assert!(
            since.elapsed() < DEADLINE,
            "the other replica's tools/list did not follow within {DEADLINE:?}: {names:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn replicas_on_one_postgres_schema_announce_each_others_changes() {
    let schema = Schema::create("replicas");
    let url = schema.url();
    let work = tempfile::tempdir().expect("tempdir");
    let a_skills = work.path().join("a-skills");
    std::fs::create_dir_all(&a_skills).expect("mkdir");
    let (a_home, b_home) = (work.path().join("a"), work.path().join("b"));
    std::fs::create_dir_all(&a_home).expect("mkdir");
    std::fs::create_dir_all(&b_home).expect("mkdir");
    let a = HttpServer::start(
        &a_home,
        &["--db", &url, "--skills", a_skills.to_str().expect("utf-8")],
    );
    let b = HttpServer::start(&b_home, &["--db", &url]);
    let mut session = Session::open(&b);
    let notifications = session.notifications();
    assert!(!session.tool_names().iter().any(|n| n == "from-import"));
    // Let the GET stream and both listeners settle before the first change.
    std::thread::sleep(Duration::from_millis(300));

    // 1. A third process imports a skill.
    let incoming = work.path().join("incoming");
    write_skill(&incoming.join("from-import"), "from-import");
    let started = Instant::now();
    let import = Command::new(skillpath_bin())
        .args(["import", incoming.to_str().expect("utf-8"), "--db", &url])
        .env("HOME", work.path())
        .output()
        .expect("run import");
    assert!(import.status.success(), "{import:?}");
    let committed = Instant::now();
    let import_notified = wait_for_list_changed(&notifications, committed);
    let import_listed = poll_tools(&mut session, committed, |names| {
        names.iter().any(|n| n == "from-import")
    });
    eprintln!(
        "replicas: `skillpath import` (process took {:?}) → replica B: list_changed {:?}, tools/list {:?} after the import exited",
        committed - started,
        import_notified,
        import_listed
    );

    // 2. Replica A writes (its folder sync imports a new skill folder).
    let written = Instant::now();
    write_skill(&a_skills.join("from-replica-a"), "from-replica-a");
    let a_notified = wait_for_list_changed(&notifications, written);
    let a_listed = poll_tools(&mut session, written, |names| {
        names.iter().any(|n| n == "from-replica-a")
    });
    eprintln!(
        "replicas: a skill folder written for replica A (150 ms settle included) → replica B: list_changed {a_notified:?}, tools/list {a_listed:?}"
    );

    // 3. A write in another schema of the same database is not announced here.
    let other = Schema::create("other");
    let other_import = Command::new(skillpath_bin())
        .args([
            "import",
            incoming.to_str().expect("utf-8"),
            "--db",
            &other.url(),
        ])
        .env("HOME", work.path())
        .output()
        .expect("run import");
    assert!(other_import.status.success(), "{other_import:?}");
    while let Ok(method) = notifications.recv_timeout(Duration::from_millis(700)) {
        assert_ne!(
            method, "notifications/tools/list_changed",
            "a write in another schema reached replica B"
        );
    }
    drop(a);
}

/// Two replicas on one schema, each with the content of the skills it served cached by
/// revision: once a skill changes through the other replica (its folder sync), this one serves
/// the new revision through every way of reading it, never the one it cached.
#[test]
fn a_skill_changed_through_another_replica_is_never_served_from_a_stale_cache() {
    let schema = Schema::create("stale_cache");
    let url = schema.url();
    let work = tempfile::tempdir().expect("tempdir");
    let folder = work.path().join("b-skills");
    let old = "Use when testing a cached skill.";
    let new = "Use when testing a cached skill, changed through the other replica.";
    // The description in the body too, which is what a call renders.
    let write = |description: &str| {
        let skill = folder.join("cached");
        std::fs::create_dir_all(&skill).expect("mkdir");
        std::fs::write(
            skill.join("SKILL.md"),
            format!(
                "---\nname: cached\ndescription: {description}\n---\n# Cached\n\n{description}\n"
            ),
        )
        .expect("write");
    };
    write(old);
    let replica = |skills: Option<&Path>| {
        let mut command = Command::new(skillpath_bin());
        command
            .args([
                "serve",
                "--no-discover",
                "--tools",
                "per-skill",
                "--db",
                &url,
            ])
            .env("HOME", work.path());
        if let Some(skills) = skills {
            command.arg("--skills").arg(skills);
        }
        crate::mcp_wire::Server::spawn(command)
    };
    let b = replica(Some(&folder));
    let mut a = replica(None);
    // Read twice: the second time from the cache.
    for _ in 0..2 {
        for text in crate::shared_sqlite::reads(&mut a, "cached") {
            assert!(text.contains(old) && !text.contains(new), "{text}");
        }
    }
    let changed = Instant::now();
    write(new);
    let latency = a.wait_for_list_changed(changed);
    assert!(latency < DEADLINE * 3, "list_changed after {latency:?}");
    for text in crate::shared_sqlite::reads(&mut a, "cached") {
        assert!(text.contains(new), "served a stale revision: {text}");
    }
    for server in [a, b] {
        let (_, log) = server.finish();
        assert!(!log.contains("failed"), "{log}");
    }
}
