//! The MCP surface on the wire as only several processes show it: usage counted by one server
//! and read by the next names the most used skills first in the instructions. What one server
//! answers is tested in the server crate's own tests (`crates/skillpath-server/tests/it`).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use serde_json::{Value, json};

use crate::mcp_inspector::{UNUSUAL_NAMES, write_skills_with_unusual_names};
use crate::mcp_watch::all_tools;
use crate::mcp_wire::Server;
use crate::support::corpus_dir;

pub(crate) fn examples() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/skills"
    ))
}

/// With more skills than the instructions hold, they name only skills that can be called by
/// name, those the Skills extension lists first, the most used first. Over the corpus and
/// skills whose names are no tool names (`100%`, `Name With Caps`, `a%20b`: before every corpus
/// name in byte order), none of those is named, every skill named has its tool, and a skill
/// called three times (counted by one server, read by the next) is named first.
#[test]
fn the_instructions_name_callable_skills_the_most_used_first() {
    let work = tempfile::tempdir().expect("tempdir");
    let unusual = tempfile::tempdir().expect("tempdir");
    write_skills_with_unusual_names(unusual.path());
    let unusual_arg = unusual.path().display().to_string();
    let corpus = corpus_dir();
    let extra = ["--tools", "per-skill", "--skills", &unusual_arg];
    let favourite = "x-twitter-scraper";
    let mut first = Server::start_with(&corpus, work.path(), &extra);
    for _ in 0..3 {
        let called = first.request("tools/call", json!({"name": favourite, "arguments": {}}));
        assert_ne!(called["isError"], true, "{called}");
    }
    let (code, log) = first.finish();
    assert_eq!(code, Some(0), "{log}");

    let mut server = Server::start_with(&corpus, work.path(), &extra);
    let instructions = server.instructions().to_owned();
    let named: Vec<&str> = instructions
        .lines()
        .filter_map(|line| line.strip_prefix("- "))
        .map(|line| line.split_once(": ").map_or(line, |(name, _)| name))
        .collect();
    assert_eq!(named.first(), Some(&favourite), "{instructions}");
    assert!(named.len() >= 20, "{instructions}");
    assert!(instructions.chars().count() <= 4000, "{instructions}");
    for name in UNUSUAL_NAMES {
        assert!(!named.contains(&name), "{name} has no tool: {instructions}");
    }
    let tools: BTreeSet<String> = all_tools(&mut server).into_iter().collect();
    let mut tool_names: HashMap<String, String> = HashMap::new();
    let mut cursor = Value::Null;
    loop {
        let listed = server.request(
            "tools/call",
            json!({"name": "list_skills", "arguments": {"limit": 500, "cursor": cursor}}),
        );
        let page: Value =
            serde_json::from_str(listed["content"][0]["text"].as_str().expect("text"))
                .expect("JSON");
        for skill in page["skills"].as_array().expect("skills") {
            let field = |key: &str| skill[key].as_str().unwrap_or_default().to_owned();
            tool_names.insert(field("name"), field("tool_name"));
        }
        cursor = page["next_cursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    for name in &named {
        // `tool_name` is given where the frontmatter asks for one; the name is asked otherwise.
        let tool = tool_names
            .get(*name)
            .filter(|tool| !tool.is_empty())
            .map_or(*name, String::as_str);
        assert!(
            tools.contains(tool),
            "`{name}` is named but has no tool `{tool}`"
        );
    }
}
