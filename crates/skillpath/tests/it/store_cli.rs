//! The store commands as a user runs them: JSON output, pagination, export, discovery-based
//! import and `scan`, errors with hints and exit codes.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use skillpath_test_support::RunExt;

use crate::postgres_support::{Schema, query_value, server_url};
use crate::support::skillpath;

struct Env {
    temp: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            temp: tempfile::tempdir().expect("tempdir"),
        }
    }

    fn path(&self) -> &Path {
        self.temp.path()
    }

    fn skill(&self, relative: &str, name: &str, description: &str) {
        let dir = self.path().join(relative);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"),
        )
        .expect("write");
    }

    /// `skillpath args...` in the temp folder, with its own database and home.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = skillpath(args);
        command
            .current_dir(self.path())
            .env("SKILLPATH_DB", self.path().join("store.db"))
            .env("HOME", self.path().join("home"))
            .env("USER", "tester");
        command
    }

    /// Runs skillpath in the temp folder, with its own database and home.
    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run skillpath")
    }

    /// Runs skillpath as [`Env::run`] does, which must succeed: its stdout as JSON.
    fn json(&self, args: &[&str]) -> Value {
        self.command(args).ok_json()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn reimports_read_only_the_folders_that_changed() {
    let env = Env::new();
    for index in 0..6 {
        env.skill(
            &format!("tree/s{index}"),
            &format!("skill-{index}"),
            &format!("Use when testing number {index}."),
        );
    }
    std::fs::write(env.path().join("tree/s0/notes.md"), "first notes").expect("write");
    let report = env.json(&["import", "tree", "--format", "json"]);
    assert_eq!(report["created"].as_array().map(Vec::len), Some(6));
    assert_eq!(
        report["not_read"], 0,
        "files written just now are always read"
    );
    // Past the window in which a file's times cannot be trusted, a re-import reads every folder
    // once more (nothing was stamped yet) and stamps them; the next reads none.
    std::thread::sleep(std::time::Duration::from_millis(2_100));
    let stamping = env.json(&["import", "tree", "--format", "json"]);
    assert_eq!(stamping["unchanged"].as_array().map(Vec::len), Some(6));
    assert_eq!(stamping["not_read"], 0);
    let skipping = env.json(&["import", "tree", "--format", "json"]);
    assert_eq!(skipping["unchanged"].as_array().map(Vec::len), Some(6));
    assert_eq!(skipping["not_read"], 6);

    // A changed file, a new file, a change in the store: each of those skills is read again.
    std::fs::write(env.path().join("tree/s0/notes.md"), "second notes").expect("write");
    std::fs::write(env.path().join("tree/s1/extra.md"), "extra").expect("write");
    let delete = env.run(&["delete", "skill-2"]);
    assert!(delete.status.success(), "{delete:?}");
    let changed = env.json(&["import", "tree", "--format", "json"]);
    assert_eq!(
        changed["updated"],
        serde_json::json!(["skill-0", "skill-1", "skill-2"])
    );
    assert_eq!(changed["not_read"], 3);
    let shown = env.json(&["show", "skill-0", "--format", "json"]);
    assert_eq!(
        shown["files"][0]["size"],
        "second notes".len(),
        "the new notes: {shown}"
    );
    let shown = env.json(&["show", "skill-2", "--format", "json"]);
    assert_eq!(shown["revision"], 3, "the deleted skill came back: {shown}");
}

#[test]
fn import_list_show_search_and_export_with_json_output() {
    let env = Env::new();
    for index in 0..12 {
        env.skill(
            &format!("tree/s{index:02}"),
            &format!("skill-{index:02}"),
            &format!("Use when testing number {index}."),
        );
    }
    let report = env.json(&["import", "tree", "--format", "json", "--message", "first"]);
    assert_eq!(report["created"].as_array().map(Vec::len), Some(12));
    let again = env.json(&["import", "tree", "--format", "json"]);
    assert_eq!(again["unchanged"].as_array().map(Vec::len), Some(12));

    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = vec!["list", "--limit", "5", "--format", "json"];
        if let Some(cursor) = &cursor {
            args.extend(["--cursor", cursor]);
        }
        let page = env.json(&args);
        names.extend(
            page["items"]
                .as_array()
                .expect("items")
                .iter()
                .filter_map(|i| i["name"].as_str().map(str::to_owned)),
        );
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(
        names,
        (0..12).map(|i| format!("skill-{i:02}")).collect::<Vec<_>>()
    );

    let shown = env.json(&["show", "skill-03", "--format", "json"]);
    assert_eq!(shown["revision"], 1);
    assert!(
        shown["skill_md"]
            .as_str()
            .expect("text")
            .contains("Use when testing number 3.")
    );
    let hits = env.json(&["search", "number 7", "--format", "json"]);
    assert_eq!(hits[0]["name"], "skill-07");

    let exported = env.run(&["export", "--to", "out"]);
    assert!(exported.status.success(), "{exported:?}");
    assert_eq!(
        std::fs::read(env.path().join("out/skill-05/SKILL.md")).expect("exported"),
        std::fs::read(env.path().join("tree/s05/SKILL.md")).expect("source")
    );
    let refused = env.run(&["export", "--to", "out"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("pass `--force`"),
        "{}",
        text(&refused.stderr)
    );
    assert!(
        env.run(&["export", "skill-05", "--to", "out", "--force"])
            .status
            .success()
    );
}

#[test]
fn revisions_history_diff_and_rollback_from_the_command_line() {
    let env = Env::new();
    env.skill("s", "demo", "Use when testing the first version.");
    assert!(env.run(&["import", "s"]).status.success());
    env.skill("s", "demo", "Use when testing the second version.");
    assert!(env.run(&["import", "s"]).status.success());
    let diff = env.run(&["diff", "demo", "1"]);
    assert_eq!(
        text(&diff.stdout),
        "--- a/SKILL.md (revision 1)\n+++ b/SKILL.md (revision 2)\n@@ -1,5 +1,5 @@\n ---\n name: demo\n-description: Use when testing the first version.\n+description: Use when testing the second version.\n ---\n # demo\n"
    );
    let diff_json = env.json(&["diff", "demo", "1", "2", "--format", "json"]);
    assert_eq!(
        (diff_json["from"].as_u64(), diff_json["to"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(
        diff_json["diff"].as_str(),
        Some(text(&diff.stdout).as_str())
    );
    let rollback = env.json(&[
        "rollback",
        "demo",
        "--to",
        "1",
        "--message",
        "back",
        "--format",
        "json",
    ]);
    assert_eq!(rollback["revision"], 3);
    let history = env.json(&["history", "demo", "--format", "json"]);
    let rows: Vec<(u64, &str, &str, &str)> = history
        .as_array()
        .expect("array")
        .iter()
        .map(|r| {
            (
                r["number"].as_u64().unwrap_or(0),
                r["operation"].as_str().unwrap_or(""),
                r["author"].as_str().unwrap_or(""),
                r["message"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(rows[2], (3, "rollback", "tester", "back"));
    assert_eq!(rows[0].1, "create");
    assert_eq!(rows[1].1, "update");
    let diff_1_3 = env.run(&["diff", "demo", "1", "3"]);
    assert_eq!(
        text(&diff_1_3.stdout),
        "",
        "a rollback restores the content exactly"
    );

    let stale = env.run(&["delete", "demo", "--expect", "2"]);
    assert_eq!(stale.status.code(), Some(1));
    assert_eq!(
        text(&stale.stderr),
        "error: skill `demo` is at revision 3, not 2: it was changed since you read it\n  = hint: read revision 3 of `demo` (`skillpath show demo`), apply your change to it, and write again with that revision\n"
    );
    assert!(env.run(&["delete", "demo"]).status.success());
    let hidden = env.json(&["list", "--format", "json"]);
    assert_eq!(hidden["items"].as_array().map(Vec::len), Some(0));
    let listed = env.json(&["list", "--deleted", "--format", "json"]);
    assert_eq!(listed["items"][0]["deleted"], true);
    assert!(env.run(&["restore", "demo"]).status.success());
    let missing = env.run(&["show", "nope"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        text(&missing.stderr).starts_with("error: no skill named `nope`"),
        "{}",
        text(&missing.stderr)
    );
    let bad_cursor = env.run(&["list", "--cursor", "zz"]);
    assert_eq!(bad_cursor.status.code(), Some(2));
}

#[test]
fn fork_copies_a_skill_with_its_origin_and_refuses_a_taken_name() {
    let env = Env::new();
    env.skill("s", "demo", "Use when testing the first version.");
    assert!(env.run(&["import", "s"]).status.success());
    env.skill("s", "demo", "Use when testing the second version.");
    assert!(env.run(&["import", "s"]).status.success());
    let forked = env.json(&[
        "fork",
        "demo",
        "team-demo",
        "--revision",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(
        forked,
        serde_json::json!([{
            "name": "team-demo",
            "kind": "skill",
            "revision": 1,
            "provenance": {"kind": "forked", "from": "demo", "revision": 1},
        }])
    );
    let shown = env.json(&["show", "team-demo", "--format", "json"]);
    let skill_md = shown["skill_md"].as_str().unwrap_or_default();
    assert_eq!(
        skill_md,
        "---\nname: team-demo\ndescription: Use when testing the first version.\n---\n# demo\n"
    );
    let text_out = env.run(&["show", "team-demo"]);
    assert!(
        text(&text_out.stdout).contains("forked from demo at revision 1"),
        "{}",
        text(&text_out.stdout)
    );
    let taken = env.run(&["fork", "demo", "team-demo"]);
    assert_eq!(taken.status.code(), Some(1));
    assert!(
        text(&taken.stderr).starts_with("error: a skill named `team-demo` exists already"),
        "{}",
        text(&taken.stderr)
    );
    let missing = env.run(&["fork", "nope", "other"]);
    assert_eq!(missing.status.code(), Some(1));
}

#[test]
fn scan_and_import_discover_the_standard_folders_with_precedence() {
    let env = Env::new();
    std::fs::create_dir_all(env.path().join("project/.git")).expect("mkdir");
    env.skill(
        "project/.agents/skills/lint",
        "lint",
        "Use when linting (project).",
    );
    env.skill(
        "project/.claude/skills/lint",
        "lint",
        "Use when linting (claude copy).",
    );
    env.skill(
        "home/.agents/skills/lint",
        "lint",
        "Use when linting (user).",
    );
    env.skill(
        "home/.claude/skills/deploy",
        "deploy",
        "Use when deploying.",
    );
    let scan = env.run(&["scan", "--project", "project", "--format", "json"]);
    assert!(scan.status.success(), "{scan:?}");
    let scan: Value = serde_json::from_slice(&scan.stdout).expect("JSON");
    let skills: Vec<(&str, &str)> = scan["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or(""),
                s["scope"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(skills, [("lint", "project"), ("deploy", "user")]);
    assert_eq!(
        scan["shadowed"].as_array().map(Vec::len),
        Some(2),
        "both other `lint` skills are reported"
    );
    let human = env.run(&["scan", "--project", "project"]);
    let human = text(&human.stdout);
    assert!(human.contains("shadowed: `lint`"), "{human}");

    let import = skillpath(&["import", "--discover", "--format", "json"])
        .current_dir(env.path().join("project"))
        .env("SKILLPATH_DB", env.path().join("store.db"))
        .env("HOME", env.path().join("home"))
        .output()
        .expect("run");
    assert!(import.status.success(), "{import:?}");
    let report: Value = serde_json::from_slice(&import.stdout).expect("JSON");
    assert_eq!(report["created"], serde_json::json!(["lint", "deploy"]));
    assert!(
        text(&import.stderr).contains("shadowed by"),
        "{}",
        text(&import.stderr)
    );
    // A project skill is the project's: shown in it, not outside it.
    let outside = env.run(&["show", "lint"]);
    assert_eq!(outside.status.code(), Some(1), "{outside:?}");
    assert!(text(&outside.stderr).contains("no skill named `lint`"));
    let inside = skillpath(&["show", "lint", "--format", "json"])
        .current_dir(env.path().join("project"))
        .env("SKILLPATH_DB", env.path().join("store.db"))
        .output()
        .expect("run");
    assert!(inside.status.success(), "{inside:?}");
    let lint: Value = serde_json::from_slice(&inside.stdout).expect("JSON");
    assert!(
        lint["skill_md"]
            .as_str()
            .expect("text")
            .contains("(project)")
    );
    assert_eq!(lint["provenance"]["scope"], "project");
}

#[test]
fn import_skips_what_it_cannot_read_and_stores_the_rest() {
    let env = Env::new();
    env.skill("tree/good", "good", "Use when testing.");
    std::fs::create_dir_all(env.path().join("tree/bad")).expect("mkdir");
    std::fs::write(
        env.path().join("tree/bad/SKILL.md"),
        b"---\nname: bad\ndescription: \xff\n---\n",
    )
    .expect("write");
    let import = env.run(&["import", "tree"]);
    assert_eq!(import.status.code(), Some(1));
    assert!(
        text(&import.stderr).contains("error[invalid-utf8]: ")
            && text(&import.stderr).contains(" --> tree/bad/SKILL.md:3:"),
        "{}",
        text(&import.stderr)
    );
    let list = env.json(&["list", "--format", "json"]);
    assert_eq!(list["items"][0]["name"], "good");
    assert_eq!(list["items"].as_array().map(Vec::len), Some(1));
    let nothing = env.run(&["import"]);
    assert_eq!(nothing.status.code(), Some(2));
    let postgres = env.run(&["list", "--db", "postgres://localhost/x"]);
    assert_eq!(postgres.status.code(), Some(2));
    assert!(
        text(&postgres.stderr).contains("PostgreSQL"),
        "{}",
        text(&postgres.stderr)
    );
}

#[test]
fn a_postgres_certificate_that_does_not_check_out_is_refused_with_the_fix() {
    let env = Env::new();
    let schema = Schema::create("tls");
    // The test server's own certificate (self-signed, for `localhost`) as the authority.
    let certificate: String = query_value(&server_url(), "SHOW ssl_cert_file");
    let by_address = format!(
        "{}&sslmode=verify-full&sslrootcert={certificate}",
        schema.url()
    );
    let refused = env.run(&["list", "--db", &by_address]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains("not valid for name \"127.0.0.1\""),
        "{stderr}"
    );
    assert!(stderr.contains("sslmode=verify-ca"), "{stderr}");

    let by_name = by_address.replacen("127.0.0.1", "localhost", 1);
    let listed = env.json(&["list", "--db", &by_name, "--format", "json"]);
    assert_eq!(
        listed["items"].as_array().map(Vec::len),
        Some(0),
        "{listed}"
    );
}

#[test]
fn scan_reports_tool_name_collisions_among_the_skills_it_finds() {
    let env = Env::new();
    std::fs::create_dir_all(env.path().join("project/.git")).expect("mkdir");
    let write = |relative: &str, name: &str, tool_name: Option<&str>| {
        let dir = env.path().join(relative);
        std::fs::create_dir_all(&dir).expect("mkdir");
        let tool_name = tool_name.map_or(String::new(), |t| format!("tool_name: {t}\n"));
        std::fs::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: {name}\ndescription: Use when testing.\n{tool_name}---\n# {name}\n"
            ),
        )
        .expect("write");
    };
    // `add-caching` sorts first, but `cache` is named like the tool.
    write(
        "project/.agents/skills/add-caching",
        "add-caching",
        Some("cache"),
    );
    write("project/.agents/skills/cache", "cache", None);
    // Nobody is named `deploy`: the first by name keeps it.
    write("project/.claude/skills/ship", "ship", Some("deploy"));
    write("home/.agents/skills/release", "release", Some("deploy"));
    // A built-in tool keeps its name.
    write("home/.claude/skills/helper", "helper", Some("load_skill"));
    // Shadowed by the project's `cache`: not served, so it collides with nothing.
    write("home/.agents/skills/cache", "cache", Some("ship"));

    let scan = env.json(&["scan", "--project", "project", "--format", "json"]);
    assert_eq!(
        scan["collisions"],
        serde_json::json!([
            {"tool_name": "cache", "winner": "cache", "loser": "add-caching", "reason": "named-like-tool"},
            {"tool_name": "deploy", "winner": "release", "loser": "ship", "reason": "first-by-name"},
            {"tool_name": "load_skill", "winner": null, "loser": "helper", "reason": "builtin"},
        ])
    );
    assert_eq!(scan["shadowed"].as_array().map(Vec::len), Some(1));

    let human = env.run(&["scan", "--project", "project"]);
    assert!(human.status.success(), "{human:?}");
    let human = text(&human.stdout);
    let collisions: Vec<&str> = human
        .lines()
        .filter(|line| line.starts_with("collision: "))
        .collect();
    assert_eq!(
        collisions,
        [
            "collision: tool `cache` belongs to skill `cache`; `add-caching` has no tool of its own (the skill named like the tool wins)",
            "collision: tool `deploy` belongs to skill `release`; `ship` has no tool of its own (no skill is named like the tool, so the first by name wins)",
            "collision: tool `load_skill` belongs to a built-in tool; `helper` has no tool of its own (a built-in tool keeps its name)",
        ],
        "{human}"
    );

    // Without collisions the list is empty and no line is printed.
    let quiet = Env::new();
    quiet.skill("project/.agents/skills/lint", "lint", "Use when linting.");
    let scan = quiet.json(&["scan", "--project", "project", "--format", "json"]);
    assert_eq!(scan["collisions"], serde_json::json!([]));
    let human = text(&quiet.run(&["scan", "--project", "project"]).stdout);
    assert!(!human.contains("collision"), "{human}");
}
