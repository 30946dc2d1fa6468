//! Skills written for Claude Code, served over MCP: real corpus skills with `argument-hint`
//! become prompts and tools with one `arguments` field described by the hint, and calling them
//! fills `$ARGUMENTS` (or appends the text) as Claude Code does.

use std::process::Command;

use serde_json::{Value, json};

use skillpath_test_support::{corpus_dir, mcp};

use crate::wire::Wire;

/// The corpus skills served: one that uses `$ARGUMENTS`, one without any placeholder, and
/// one whose PowerShell `$x` is no placeholder.
const SKILLS: [&str; 3] = [
    "getsentry__skills/skills/create-branch",
    "github__awesome-copilot/skills/generate-image",
    "github__awesome-copilot/skills/pester-should-migration",
];

/// The one text content of a prompt's first message or of a tool result.
fn text(content: &Value) -> &str {
    content["text"].as_str().expect("a text content")
}

/// The item of `list[key]` named `name`.
fn find<'a>(list: &'a Value, key: &str, name: &str) -> &'a Value {
    mcp::named(list, key, name).unwrap_or_else(|| panic!("no {name} in {list}"))
}

#[test]
fn claude_code_skills_are_slash_commands_with_their_arguments_filled() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    std::fs::create_dir(&skills).expect("mkdir");
    for skill in SKILLS {
        let copied = Command::new("cp")
            .arg("-R")
            .arg(corpus_dir().join(skill))
            .arg(&skills)
            .status()
            .expect("cp runs");
        assert!(copied.success(), "copying {skill}");
    }
    let mut server = Wire::start(&skills, work.path());

    let prompts = server.request("prompts/list", json!({}));
    for (name, hint) in [
        ("create-branch", "[optional description of the work]"),
        ("generate-image", "[description of the image to generate]"),
        (
            "pester-should-migration",
            "File, folder, or test suite to migrate",
        ),
    ] {
        let arguments = &find(&prompts, "prompts", name)["arguments"];
        assert_eq!(arguments.as_array().map(Vec::len), Some(1), "{arguments}");
        assert_eq!(arguments[0]["name"], "arguments");
        assert_eq!(arguments[0]["description"], hint);
        assert_ne!(arguments[0]["required"], true);
    }

    let prompt = server.request(
        "prompts/get",
        json!({"name": "create-branch", "arguments": {"arguments": "fix login bug"}}),
    );
    let filled = text(&prompt["messages"][0]["content"]);
    assert!(
        filled.contains("- If `fix login bug` is present, use it"),
        "{filled}"
    );
    assert!(!filled.contains("$ARGUMENTS"), "{filled}");
    assert!(
        !filled.contains("name: create-branch"),
        "no frontmatter: {filled}"
    );

    let tools = server.request("tools/list", json!({}));
    let schema = &find(&tools, "tools", "create-branch")["inputSchema"];
    assert_eq!(
        schema["properties"]["arguments"]["description"],
        "[optional description of the work]"
    );
    let called = server.request(
        "tools/call",
        json!({"name": "create-branch", "arguments": {"arguments": "fix login bug"}}),
    );
    assert_ne!(called["isError"], true, "{called}");
    assert_eq!(text(&called["content"][0]), filled);

    // Without a placeholder the text is appended; with none given, nothing is.
    for name in ["generate-image", "pester-should-migration"] {
        let prompt = server.request(
            "prompts/get",
            json!({"name": name, "arguments": {"arguments": "a red fox"}}),
        );
        let rendered = text(&prompt["messages"][0]["content"]);
        assert!(
            rendered.contains("\n\nARGUMENTS: a red fox\n"),
            "{name}: {rendered}"
        );
        let bare = server.request("prompts/get", json!({"name": name}));
        assert!(!text(&bare["messages"][0]["content"]).contains("ARGUMENTS:"));
    }
    let pester = server.request(
        "prompts/get",
        json!({"name": "pester-should-migration", "arguments": {"arguments": "tests"}}),
    );
    assert!(
        text(&pester["messages"][0]["content"]).contains("$x"),
        "an undeclared `$x` stays as written"
    );

    // Arguments the skill does not take are refused, as a Golden Path skill's are.
    let refused = server.request(
        "tools/call",
        json!({"name": "create-branch", "arguments": {"branch": "x"}}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        text(&refused["content"][0]).contains("unknown argument `branch`"),
        "{refused}"
    );
}
