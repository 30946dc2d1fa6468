//! Integration tests for the `skillpath` CLI.

mod api_keys;
mod architecture;
mod audit;
mod backup_restore;
mod bounded;
mod broken_folders;
mod catalog_answers;
mod clawhub_cli;
mod cli;
mod cold_start;
mod crash_consistency;
mod differential;
mod edge_cases;
mod eval;
mod examples;
mod faults;
mod hostile_inputs;
mod install;
mod load;
mod mcp_conformance;
mod mcp_inspector;
mod mcp_protocol;
mod mcp_python;
mod mcp_watch;
mod mcp_wire;
mod meaning;
mod namespaces;
mod oidc;
mod packages;
mod postgres_support;
mod project_scopes;
mod registry_installs;
mod registry_protocol;
mod releases;
mod replicas;
mod sessions;
mod shadowing;
mod shared_sqlite;
mod store_cli;
mod store_processes;
mod studio;
mod studio_browser;
mod support;
mod usage;

use std::collections::HashSet;

use edge_cases::{EDGE_CASES, Layout};

#[test]
fn edge_case_folder_names_are_unique_and_plentiful() {
    assert!(
        EDGE_CASES.len() >= 90,
        "only {} edge cases",
        EDGE_CASES.len()
    );
    let mut seen = HashSet::new();
    for case in EDGE_CASES {
        // Case-insensitive, so the set also materialises on macOS and Windows file systems.
        assert!(
            seen.insert(case.dir.to_lowercase()),
            "duplicate folder name {:?}",
            case.dir
        );
        assert!(!case.why.is_empty(), "{:?} has no `why`", case.dir);
        let files: &[&[u8]] = match &case.layout {
            Layout::File { name, content } => {
                assert!(!name.is_empty(), "{:?} has an unnamed file", case.dir);
                &[content]
            }
            Layout::Both { upper, lower } => &[upper, lower],
            Layout::PlainFile { content } => &[content],
            Layout::Empty | Layout::SkillMdIsDir => &[],
        };
        assert!(files.len() <= 2);
    }
}
