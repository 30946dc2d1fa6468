//! The catalog holds metadata and reads a skill's content from the store when it is asked for
//! (through a cache bounded in bytes); the answers must be byte for byte what they were when
//! the catalog held every skill's files. The answers of the server built before that change
//! are recorded in `snapshots/catalog_answers/` (one line per request: the request, then the
//! SHA-256 of its response), for the example skills and for the shared corpus, and every
//! answer of this build is compared with them: with the default cache, and with a cache of
//! 0 MiB, which serves every skill uncached. A `get_skill` answer's `usage` and `provenance`
//! are left out ([`without_local_fields`]).
//!
//! To record again (only when an answer is meant to change): `SKILLPATH_RECORD_ANSWERS=1`,
//! with `SKILLPATH_ANSWERS_BIN` naming the binary whose answers are recorded.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use skillpath_model::sha256_hex;

use crate::mcp_wire::Server;
use crate::support::{corpus_dir, skillpath_bin};

/// Every list, read, call, prompt and fetch the server answers for the skills in `skills`,
/// one line each: the method, its parameters and the digest of the response.
fn answers(skills: &Path, binary: &Path, extra: &[&str]) -> String {
    let work = tempfile::tempdir().expect("tempdir");
    let mut command = Command::new(binary);
    command
        .args(["serve", "--no-discover", "--tools", "per-skill"])
        .args(["--page-size", "1000", "--skills"])
        .arg(skills)
        .args(extra)
        .env("SKILLPATH_DB", work.path().join("store.db"))
        .env("HOME", work.path());
    let mut server = Server::spawn(command);
    let mut out = format!(
        "instructions {}\n",
        sha256_hex(server.instructions().as_bytes())
    );
    let mut answer = |server: &mut Server, method: &str, params: Value| -> Value {
        let mut response = server.call(method, params.clone());
        if let Some(object) = response.as_object_mut() {
            object.remove("id");
        }
        let mut recorded = response.clone();
        if params["name"] == "get_skill" {
            without_local_fields(&mut recorded);
        }
        let text = serde_json::to_string(&recorded).expect("JSON");
        let digest = sha256_hex(text.as_bytes());
        let _ = writeln!(out, "{method} {params} {digest}");
        response
    };
    let mut listed = |server: &mut Server, method: &str, key: &str| -> Vec<Value> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let response = answer(server, method, params);
            let result = &response["result"];
            items.extend(result[key].as_array().cloned().unwrap_or_default());
            match result["nextCursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
        }
        items
    };
    let tools = listed(&mut server, "tools/list", "tools");
    let resources = listed(&mut server, "resources/list", "resources");
    let prompts = listed(&mut server, "prompts/list", "prompts");
    let skills_listed = listed(&mut server, "skills/list", "skills");
    for tool in &tools {
        let name = tool["name"].as_str().unwrap_or_default();
        if !is_builtin(name) {
            answer(
                &mut server,
                "tools/call",
                json!({"name": name, "arguments": {}}),
            );
        }
    }
    for resource in &resources {
        answer(
            &mut server,
            "resources/read",
            json!({"uri": resource["uri"]}),
        );
    }
    for prompt in &prompts {
        answer(
            &mut server,
            "prompts/get",
            json!({"name": prompt["name"], "arguments": {}}),
        );
    }
    for entry in &skills_listed {
        answer(&mut server, "skills/get", json!({"uri": entry["uri"]}));
    }
    let names: Vec<&str> = resources
        .iter()
        .filter(|r| r["uri"].as_str().is_some_and(|u| u.ends_with("/SKILL.md")))
        .filter_map(|r| r["name"].as_str())
        .collect();
    for name in names {
        for tool in BUILT_IN_READS {
            answer(
                &mut server,
                "tools/call",
                json!({"name": tool, "arguments": {"name": name}}),
            );
        }
    }
    let (code, log) = server.finish();
    assert_eq!(code, Some(0), "{log}");
    out
}

/// A `get_skill` answer without what depends on where and when the test runs: its `usage`,
/// which counts this test's own calls as the server writes them (every few seconds), and its
/// `provenance`, which names the folder the skill was imported from.
fn without_local_fields(response: &mut Value) {
    let text = &mut response["result"]["content"][0]["text"];
    if let Some(mut skill) = text
        .as_str()
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
    {
        if let Some(object) = skill.as_object_mut() {
            object.remove("usage");
            object.remove("provenance");
        }
        *text = Value::from(serde_json::to_string_pretty(&skill).unwrap_or_default());
    }
}

/// The built-in tools that take a skill's name and read it.
const BUILT_IN_READS: [&str; 2] = ["load_skill", "get_skill"];

/// Whether `name` is a built-in tool (those that read a skill are called with each skill's
/// name below; the others do not read the catalog's content).
fn is_builtin(name: &str) -> bool {
    skillpath_core::tool_names::BUILTIN_TOOLS.contains(&name)
}

/// Compares the answers for `skills` with the recording `name`, or records them.
fn check(name: &str, skills: &Path) {
    let recording = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/snapshots/catalog_answers")
        .join(format!("{name}.txt"));
    if std::env::var_os("SKILLPATH_RECORD_ANSWERS").is_some() {
        let binary =
            std::env::var_os("SKILLPATH_ANSWERS_BIN").map_or_else(skillpath_bin, PathBuf::from);
        let recorded = answers(skills, &binary, &[]);
        std::fs::create_dir_all(recording.parent().expect("a folder")).expect("mkdir");
        std::fs::write(&recording, recorded).expect("write the recording");
        return;
    }
    let expected = std::fs::read_to_string(&recording).expect("the recording");
    for extra in [&[][..], &["--content-cache-mb", "0"][..]] {
        let actual = answers(skills, &skillpath_bin(), extra);
        let differing: Vec<(&str, &str)> = expected
            .lines()
            .zip(actual.lines())
            .filter(|(e, a)| e != a)
            .take(5)
            .collect();
        assert!(
            differing.is_empty() && expected.lines().count() == actual.lines().count(),
            "{name} with {extra:?}: answers differ from the recording, first {differing:#?}"
        );
    }
}

#[test]
fn every_example_skill_is_answered_as_before() {
    check(
        "examples",
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills"),
    );
}

#[test]
fn every_corpus_skill_is_answered_as_before() {
    check("corpus", &corpus_dir());
}
