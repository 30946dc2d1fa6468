//! Two projects, one user, one database: a `serve` started in each project (as an agent opened
//! in each would start it) serves its own project's skills and the user's, never the other
//! project's, and names every skill it leaves out with the one it serves; `list_skills`,
//! `tools/list`, the Skills extension's `skills/list`, the instructions' catalog and `scan`
//! agree.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillpath_core::tool_names::BUILTIN_TOOLS;

use crate::mcp_wire::Server;
use crate::support::{skillpath_bin, write_skill};

/// `skillpath serve` over stdio, started in `project` with discovery on.
fn serve_in(project: &Path, home: &Path, db: &Path) -> Server {
    let mut command = Command::new(skillpath_bin());
    command
        .args(["serve", "--tools", "per-skill"])
        .current_dir(project)
        .env("SKILLPATH_DB", db)
        .env("HOME", home);
    Server::spawn(command)
}

/// `list_skills` as JSON.
fn list_skills(server: &mut Server) -> Value {
    let result = server.request(
        "tools/call",
        json!({"name": "list_skills", "arguments": {}}),
    );
    let text = result["content"][0]["text"].as_str().expect("text");
    serde_json::from_str(text).expect("json")
}

/// Each listed skill's name and description.
fn listed(listing: &Value) -> Vec<(String, String)> {
    listing["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|skill| {
            (
                skill["name"].as_str().unwrap_or("").to_owned(),
                skill["description"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// The names every other surface gives: the skill tools, `skills/list`, the instructions'
/// catalog (as the session's `initialize` got it); each must equal `names`.
fn assert_surfaces_agree(server: &mut Server, names: &BTreeSet<String>, who: &str) {
    let tools: BTreeSet<String> = server.request("tools/list", json!({}))["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .filter(|name| !BUILTIN_TOOLS.contains(name))
        .map(str::to_owned)
        .collect();
    assert_eq!(&tools, names, "{who}: tools/list");
    let extension: BTreeSet<String> = server.request("skills/list", json!({}))["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .filter_map(|skill| skill["frontmatter"]["name"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(&extension, names, "{who}: skills/list");
    // The catalog's lines are `- name: description`.
    let catalog: BTreeSet<String> = server
        .instructions()
        .lines()
        .filter_map(|line| line.strip_prefix("- ")?.split_once(':'))
        .map(|(name, _)| name.to_owned())
        .collect();
    assert_eq!(&catalog, names, "{who}: the instructions' catalog");
}

fn names(items: &[(String, String)]) -> BTreeSet<String> {
    items.iter().map(|(name, _)| name.clone()).collect()
}

/// `list_skills`'s shadowed entries as (name, left out, kept).
fn shadowed(listing: &Value) -> BTreeSet<(String, String, String)> {
    triples(&listing["shadowed"])
}

/// Shadowed entries (`name`, `path`, `kept`) as triples.
fn triples(entries: &Value) -> BTreeSet<(String, String, String)> {
    entries
        .as_array()
        .expect("shadowed entries")
        .iter()
        .map(|entry| {
            let text = |key: &str| entry[key].as_str().unwrap_or("").to_owned();
            (text("name"), text("path"), text("kept"))
        })
        .collect()
}

fn entry(name: &str, path: &Path, kept: &Path) -> (String, String, String) {
    (
        name.to_owned(),
        path.display().to_string(),
        kept.display().to_string(),
    )
}

#[test]
fn each_server_serves_its_own_projects_skills_and_the_users_never_another_projects() {
    let work = tempfile::tempdir().expect("tempdir");
    let work = work.path().canonicalize().expect("canonical");
    let (a, b, home) = (work.join("a"), work.join("b"), work.join("home"));
    let db = work.join("store.db");
    for project in [&a, &b] {
        std::fs::create_dir_all(project.join(".git")).expect("a repository");
    }
    let user_deploy = home.join(".agents/skills/deploy");
    write_skill(
        &user_deploy,
        "deploy",
        "Use when deploying anything (user).",
    );
    write_skill(
        &home.join(".agents/skills/notes"),
        "notes",
        "Use when taking notes (user).",
    );
    let a_deploy = a.join(".agents/skills/deploy");
    write_skill(&a_deploy, "deploy", "Use when deploying project a.");
    let a_lint = a.join(".claude/skills/lint");
    write_skill(&a_lint, "lint", "Use when linting project a.");
    write_skill(
        &a.join(".agents/skills/a-only"),
        "a-only",
        "Use when working on project a.",
    );
    write_skill(
        &b.join(".agents/skills/only-b"),
        "only-b",
        "Use when working on project b.",
    );

    let mut in_a = serve_in(&a, &home, &db);
    let mut in_b = serve_in(&b, &home, &db);

    // B's agent writes a store skill with the name of one of A's project skills.
    let created = in_b.request(
        "tools/call",
        json!({"name": "create_skill", "arguments": {"name": "lint", "description": "Use when linting anything (store)."}}),
    );
    assert_ne!(created["isError"], true, "{created}");

    let b_listing = list_skills(&mut in_b);
    let expected_b = [
        ("deploy", "Use when deploying anything (user)."),
        ("lint", "Use when linting anything (store)."),
        ("notes", "Use when taking notes (user)."),
        ("only-b", "Use when working on project b."),
    ]
    .map(|(name, description)| (name.to_owned(), description.to_owned()));
    assert_eq!(listed(&b_listing), expected_b);
    assert_eq!(shadowed(&b_listing), BTreeSet::new(), "{b_listing:#}");

    // A follows the store's change (B's new `lint`), yet serves its own project's `lint`.
    let deadline = Instant::now() + Duration::from_secs(10);
    let a_listing = loop {
        let listing = list_skills(&mut in_a);
        if shadowed(&listing).iter().any(|(name, ..)| name == "lint") {
            break listing;
        }
        assert!(
            Instant::now() < deadline,
            "a never saw b's `lint`: {listing:#}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let expected_a = [
        ("a-only", "Use when working on project a."),
        ("deploy", "Use when deploying project a."),
        ("lint", "Use when linting project a."),
        ("notes", "Use when taking notes (user)."),
    ]
    .map(|(name, description)| (name.to_owned(), description.to_owned()));
    assert_eq!(listed(&a_listing), expected_a);
    assert_eq!(
        shadowed(&a_listing),
        BTreeSet::from([
            entry("deploy", &user_deploy, &a_deploy),
            (
                "lint".to_owned(),
                String::new(),
                a_lint.display().to_string()
            ),
        ]),
        "{a_listing:#}"
    );
    // Restarted, A says at start what it leaves out; its session's surfaces agree.
    let (_, log) = in_a.finish();
    assert!(
        log.contains(&format!(
            "shadowed: `deploy` at `{}` (user) by `{}` (project)",
            user_deploy.display(),
            a_deploy.display()
        )),
        "{log}"
    );
    let mut in_a = serve_in(&a, &home, &db);
    assert_surfaces_agree(&mut in_a, &names(&expected_a), "a");
    let (_, log) = in_a.finish();
    assert!(
        log.contains(&format!(
            "shadowed: `lint` created through tools (kept the one at `{}`)",
            a_lint.display()
        )),
        "{log}"
    );

    // `scan` in A says the same: discovery's shadowing and the store's.
    let scan = Command::new(skillpath_bin())
        .args(["scan", "--format", "json"])
        .current_dir(&a)
        .env("SKILLPATH_DB", &db)
        .env("HOME", &home)
        .output()
        .expect("scan");
    assert!(scan.status.success(), "{scan:?}");
    let scan: Value = serde_json::from_slice(&scan.stdout).expect("json");
    let found: BTreeSet<String> = scan["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .filter_map(|skill| skill["name"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(found, names(&expected_a));
    assert_eq!(
        triples(&scan["shadowed_in_store"]),
        BTreeSet::from([
            // B's sync stored the user's `deploy`; A's project `deploy` shadows it.
            entry("deploy", &user_deploy, &a_deploy),
            (
                "lint".to_owned(),
                String::new(),
                a_lint.display().to_string()
            ),
        ])
    );

    // B, still running, never served A's project skills.
    let b_listing = list_skills(&mut in_b);
    assert_eq!(listed(&b_listing), expected_b);
    assert!(in_b.tool("a-only").is_none());
    // A session started now gets instructions with the store skill in them.
    drop(in_b.finish());
    let mut in_b = serve_in(&b, &home, &db);
    assert_surfaces_agree(&mut in_b, &names(&expected_b), "b");
}
