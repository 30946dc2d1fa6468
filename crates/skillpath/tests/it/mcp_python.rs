//! The MCP server with a real client: the official Python MCP SDK drives `skillpath serve` over
//! stdio and Streamable HTTP, in both protocol eras, through `tests/mcp/python_client.py` (every
//! tool, resources, completion, prompts, authoring, notifications, listen streams, pagination). The script asserts; this test runs it and shows its output on failure.

use std::path::Path;
use std::process::Command;

use crate::support::{skillpath_bin, test_python};

/// Runs the Python client `script` (in `tests/mcp`) on `skills` (relative to the repository
/// root) in a fresh work folder; fails with its output unless it succeeds and ends with `ok`.
/// The client's stderr, for what a test checks beyond that.
fn run_client(script: &str, skills: &str) -> String {
    let work = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(test_python())
        .arg(root.join("tests/mcp").join(script))
        .arg(skillpath_bin())
        .arg(root.join("../..").join(skills))
        .arg(work.path())
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.trim_end().ends_with("ok"),
        "the Python MCP client failed:\n{stdout}\n{stderr}"
    );
    stderr.into_owned()
}

#[test]
fn the_python_sdk_uses_every_part_of_the_server() {
    let stderr = run_client("python_client.py", "examples/skills");
    // The SDK logs a session end it does not take as done (rmcp's `202` to `DELETE /mcp`).
    assert!(
        !stderr.contains("Session termination failed"),
        "the SDK could not end its HTTP sessions cleanly:\n{stderr}"
    );
}

/// Architecture packages with the same client, in both eras: the example package served with its
/// options, a package planned, created, chosen and joined by a skill (`tests/mcp/python_packages.py`).
#[test]
fn the_python_sdk_builds_chooses_and_calls_architecture_packages() {
    run_client("python_packages.py", "examples/packages");
}

/// Drafts and review on a team server with the same client, in both eras: authors' writes kept
/// as drafts nobody is served, each seen only by its author and the maintainers, rejected with a
/// message, published with `tools/list_changed`, a stale one refused naming both revisions, and
/// the CLI's `review`, `publish` and `reject` on the same drafts (`tests/mcp/python_review.py`).
#[test]
fn the_python_sdk_drafts_reviews_and_publishes_on_a_team_server() {
    run_client("python_review.py", "examples/skills");
}

/// Elicitation and logging with the same client, in both eras, over stdio and HTTP: a call
/// missing a required argument and with a value outside its enum answered through one form;
/// decline, cancel, an unanswered form, hostile answers and a client gone mid-form; a skipped
/// folder and a refused write told at `info`, not at `error` (`tests/mcp/python_elicitation.py`).
#[test]
fn the_python_sdk_answers_forms_and_hears_what_the_server_did() {
    run_client("python_elicitation.py", "examples/skills");
}
