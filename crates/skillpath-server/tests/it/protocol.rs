//! The MCP surface on the wire: the Skills extension, completion, protocol errors, read-only
//! mode, the loader mode, the instructions' and pages' budgets, directory reads, and a skill's
//! prompt beside its tool.

use serde_json::json;
use skillpath_server::{ServerOptions, ToolsMode};
use skillpath_test_support::{corpus_dir, examples_dir};

use crate::wire::{Wire, per_skill};

/// The default options with the loader instead of one tool per skill (`--tools loader`).
fn loader() -> ServerOptions {
    ServerOptions {
        tools: ToolsMode::Loader,
        ..ServerOptions::default()
    }
}

#[test]
fn the_skills_extension_lists_and_gets_skills_with_digests() {
    let work = tempfile::tempdir().expect("tempdir");
    let mut server = Wire::start(&examples_dir(), work.path());
    let list = server.request("skills/list", json!({}));
    let skills = list["skills"].as_array().expect("skills");
    let uris: Vec<&str> = skills.iter().filter_map(|s| s["uri"].as_str()).collect();
    assert!(uris.contains(&"skill://add-caching/SKILL.md"), "{uris:?}");
    assert_eq!(uris.len(), 5, "{uris:?}");
    let caching = skills
        .iter()
        .find(|s| s["uri"] == "skill://add-caching/SKILL.md")
        .expect("add-caching");
    assert_eq!(caching["frontmatter"]["name"], "add-caching");
    assert_eq!(
        caching["frontmatter"]["args"][2]["default"], "30",
        "the frontmatter comes verbatim"
    );
    let files = caching["resources"].as_array().expect("resources");
    assert!(files.iter().all(|f| {
        f["digest"]
            .as_str()
            .is_some_and(|d| d.starts_with("sha256:") && d.len() == 71)
    }));
    assert!(
        files
            .iter()
            .any(|f| f["uri"] == "skill://add-caching/CacheService.cs")
    );

    let got = server.request("skills/get", json!({"uri": "skill://add-caching/SKILL.md"}));
    assert_eq!(got["skill"]["uri"], "skill://add-caching/SKILL.md");
    let missing = server.call("skills/get", json!({"uri": "skill://nope/SKILL.md"}));
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
}

#[test]
fn completion_offers_names_paths_and_enum_values() {
    let work = tempfile::tempdir().expect("tempdir");
    let mut server = Wire::start(&examples_dir(), work.path());
    let names = server.request(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "skill://{name}/SKILL.md"}, "argument": {"name": "name", "value": "add-"}}),
    );
    assert_eq!(
        names["completion"]["values"],
        json!([
            "add-caching",
            "add-endpoint",
            "add-fastapi-router",
            "add-github-workflow"
        ])
    );
    let paths = server.request(
        "completion/complete",
        json!({
            "ref": {"type": "ref/resource", "uri": "skill://{name}/{path}"},
            "argument": {"name": "path", "value": "Cach"},
            "context": {"arguments": {"name": "add-caching"}}
        }),
    );
    assert_eq!(
        paths["completion"]["values"],
        json!(["CacheService.cs", "CachingServiceCollectionExtensions.cs"])
    );
    let values = server.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "add-caching"}, "argument": {"name": "cache_provider", "value": "r"}}),
    );
    assert_eq!(values["completion"]["values"], json!(["redis"]));
}

#[test]
fn protocol_misuse_is_a_json_rpc_error_and_fixable_failures_are_tool_errors() {
    let work = tempfile::tempdir().expect("tempdir");
    let mut server = Wire::start(&examples_dir(), work.path());
    let unknown_tool = server.call(
        "tools/call",
        json!({"name": "no-such-tool", "arguments": {}}),
    );
    assert_eq!(unknown_tool["error"]["code"], -32602, "{unknown_tool}");
    let bad_cursor = server.call("tools/list", json!({"cursor": "not-a-cursor"}));
    assert_eq!(bad_cursor["error"]["code"], -32602, "{bad_cursor}");
    let missing = server.call(
        "resources/read",
        json!({"uri": "skill://add-caching/../../../etc/passwd"}),
    );
    assert!(missing["error"]["code"].is_i64(), "{missing}");
    let unknown_prompt = server.call("prompts/get", json!({"name": "nope"}));
    assert_eq!(unknown_prompt["error"]["code"], -32602, "{unknown_prompt}");
    let tool_error = server.request(
        "tools/call",
        json!({"name": "get_skill", "arguments": {"name": "nope"}}),
    );
    assert_eq!(tool_error["isError"], true);
    assert!(
        tool_error["content"][0]["text"]
            .as_str()
            .expect("text")
            .contains("no skill named `nope`")
    );
}

#[test]
fn read_only_hides_and_refuses_writing_tools() {
    let work = tempfile::tempdir().expect("tempdir");
    let mut server = Wire::start_with(
        &examples_dir(),
        work.path(),
        ServerOptions {
            read_only: true,
            ..per_skill()
        },
    );
    for name in [
        "create_skill",
        "update_skill",
        "delete_skill",
        "rollback_skill",
    ] {
        assert!(server.tool(name).is_none(), "{name} is listed");
    }
    assert!(server.tool("add-caching").is_some());
    let refused = server.call(
        "tools/call",
        json!({"name": "create_skill", "arguments": {"name": "x", "description": "y"}}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

#[test]
fn loader_mode_serves_search_and_load_instead_of_one_tool_per_skill() {
    let work = tempfile::tempdir().expect("tempdir");
    let mut server = Wire::start_with(&examples_dir(), work.path(), loader());
    assert!(server.tool("add-caching").is_none());
    let loaded = server.request(
        "tools/call",
        json!({"name": "load_skill", "arguments": {"name": "add-caching", "arguments": {"service_name": "Orders"}}}),
    );
    assert_eq!(loaded["isError"], false, "{loaded}");
    assert!(
        loaded["content"][0]["text"]
            .as_str()
            .expect("text")
            .contains("OrdersCacheService")
    );
    let bad = server.request(
        "tools/call",
        json!({"name": "load_skill", "arguments": {"name": "add-caching", "arguments": {}}}),
    );
    assert_eq!(bad["isError"], true, "{bad}");
}

#[test]
fn the_instructions_say_how_to_use_skills_and_list_them_within_a_budget() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = tempfile::tempdir().expect("tempdir");
    for index in 0..80 {
        let dir = skills.path().join(format!("skill-{index:02}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: skill-{index:02}\ndescription: Use when testing instructions, number {index}, with a long enough description to fill the budget quickly.\n---\n"),
        )
        .expect("write");
    }
    let many = Wire::start_with(skills.path(), work.path(), loader());
    let instructions = many.instructions().to_owned();
    assert!(
        instructions.starts_with("This server holds skills"),
        "{instructions}"
    );
    assert!(
        instructions.contains("- skill-00: Use when testing instructions, number 0,"),
        "{instructions}"
    );
    assert!(
        instructions.contains("more; find them with `search_skills`."),
        "{instructions}"
    );
    assert!(
        instructions.chars().count() <= 4000,
        "{} characters",
        instructions.chars().count()
    );
}

/// The largest JSON-RPC message of every page of `method`'s list, following the cursors.
fn largest_page(server: &mut Wire, method: &str) -> (usize, usize) {
    let mut cursor: Option<String> = None;
    let (mut largest, mut pages) = (0, 0);
    loop {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let answer = server.call(method, params);
        assert!(answer.get("result").is_some(), "{method}: {answer}");
        // As sent: the server writes compact JSON with keys in order, as `to_string` does.
        largest = largest.max(answer.to_string().len());
        pages += 1;
        match answer["result"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return (largest, pages),
        }
    }
}

#[test]
fn over_the_corpus_every_page_and_the_instructions_keep_their_budgets() {
    let work = tempfile::tempdir().expect("tempdir");
    let corpus = corpus_dir();
    let mut server = Wire::start_with(
        &corpus,
        work.path(),
        ServerOptions {
            page_size: 1000,
            ..per_skill()
        },
    );
    let instructions = server.instructions().chars().count();
    assert!(
        instructions <= 4000,
        "instructions of {instructions} characters"
    );
    for method in [
        "tools/list",
        "resources/list",
        "prompts/list",
        "skills/list",
    ] {
        let (largest, pages) = largest_page(&mut server, method);
        assert!(
            largest <= 256 * 1024,
            "{method}: a page of {largest} bytes (of {pages})"
        );
        eprintln!("{method}: {pages} pages, the largest {largest} bytes");
    }
}

#[test]
fn directory_reads_list_a_skill_folder_level_by_level() {
    let work = tempfile::tempdir().expect("tempdir");
    let mut server = Wire::start(&examples_dir(), work.path());
    // The skill's directory is its URI without `/SKILL.md`; a trailing `/` reads the same.
    let root = server.request(
        "resources/directory/read",
        json!({"uri": "skill://add-endpoint"}),
    );
    let children: Vec<(&str, &str, &str)> = root["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|r| {
            Some((
                r["uri"].as_str()?,
                r["name"].as_str()?,
                r["mimeType"].as_str()?,
            ))
        })
        .collect();
    assert_eq!(
        children,
        [
            (
                "skill://add-endpoint/SKILL.md",
                "add-endpoint",
                "text/markdown"
            ),
            (
                "skill://add-endpoint/templates",
                "add-endpoint/templates",
                "inode/directory"
            )
        ]
    );
    let with_slash = server.request(
        "resources/directory/read",
        json!({"uri": "skill://add-endpoint/"}),
    );
    assert_eq!(with_slash, root);
    let templates = server.request(
        "resources/directory/read",
        json!({"uri": "skill://add-endpoint/templates"}),
    );
    let files = templates["resources"].as_array().expect("resources");
    assert!(files.len() >= 3, "{templates}");
    assert!(files.iter().all(|f| {
        f["uri"]
            .as_str()
            .is_some_and(|u| u.starts_with("skill://add-endpoint/templates/"))
    }));
    let not_a_directory = server.call(
        "resources/directory/read",
        json!({"uri": "skill://add-endpoint/SKILL.md"}),
    );
    assert_eq!(
        not_a_directory["error"]["code"], -32602,
        "{not_a_directory}"
    );
}

#[test]
fn a_skill_s_prompt_and_tool_share_one_name() {
    let work = tempfile::tempdir().expect("tempdir");
    let mut server = Wire::start(&examples_dir(), work.path());
    // `add-github-workflow` sets `tool_name: add_ci_workflow`.
    assert!(server.tool("add_ci_workflow").is_some());
    let prompts = server.request("prompts/list", json!({}));
    let names: Vec<&str> = prompts["prompts"]
        .as_array()
        .expect("prompts")
        .iter()
        .filter_map(|prompt| prompt["name"].as_str())
        .collect();
    assert!(names.contains(&"add_ci_workflow"), "{names:?}");
    assert!(!names.contains(&"add-github-workflow"), "{names:?}");
    assert!(names.contains(&"add-caching"), "{names:?}");
    let prompt = server.call(
        "prompts/get",
        json!({"name": "add_ci_workflow", "arguments": {"project_name": "orders-api"}}),
    );
    assert!(
        prompt["result"]["messages"][0]["content"]["text"]
            .as_str()
            .is_some_and(|text| text.contains("<skill_content name=\"add-github-workflow\">")),
        "{prompt}"
    );
    let by_skill_name = server.call("prompts/get", json!({"name": "add-github-workflow"}));
    assert_eq!(by_skill_name["error"]["code"], -32602, "{by_skill_name}");
}
