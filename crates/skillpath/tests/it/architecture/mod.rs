//! The workspace's architecture invariants (`ARCHITECTURE.md`), checked on the code itself so
//! that the map stays true: which crate may depend on which, no import circle inside a crate,
//! and a map that names every crate in lines a reader can read.

mod modules;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The workspace's folder.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace folder")
}

/// Every crate under `crates/`, by package name, with its folder.
fn crates() -> BTreeMap<String, PathBuf> {
    let mut crates = BTreeMap::new();
    for entry in std::fs::read_dir(workspace().join("crates")).expect("read crates/") {
        let dir = entry.expect("a folder entry").path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let name = manifest
            .lines()
            .find_map(|line| line.strip_prefix("name = "))
            .map(|name| name.trim_matches('"').to_owned())
            .expect("a package name");
        crates.insert(name, dir);
    }
    crates
}

/// The workspace crates `dir`'s crate depends on in its `[dependencies]` (not dev or build).
fn workspace_dependencies(dir: &Path) -> Vec<String> {
    all_dependencies(dir)
        .into_iter()
        .filter(|name| name.starts_with("skillpath"))
        .collect()
}

/// The layers, bottom up (`ARCHITECTURE.md`): a crate depends only on crates of lower layers.
/// A new crate must be placed here; the binary is the top.
const LAYERS: &[(&str, u8)] = &[
    ("skillpath-core", 0),
    ("skillpath-embed", 0),
    ("skillpath-test-support", 0),
    ("skillpath-model", 1),
    ("skillpath-audit", 1),
    ("skillpath-eval", 1),
    ("skillpath-folders", 2),
    // Sources beside the store, not above it: what reads skills from disk and from sources
    // never links the store (nor, with it, a database and a runtime).
    ("skillpath-store", 3),
    ("skillpath-sources", 3),
    // Outside too: an identity provider's protocol, knowing nothing of skills.
    ("skillpath-identity", 3),
    ("skillpath-app", 4),
    ("skillpath-server", 5),
    // The registry protocol is a front end beside the MCP server, over the application alone.
    ("skillpath-registry", 5),
    ("skillpath-studio", 6),
    ("skillpath", 7),
];
#[test]
fn every_crate_depends_only_on_lower_layers() {
    let layers: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    for (name, dir) in crates() {
        let Some(&layer) = layers.get(name.as_str()) else {
            panic!("`{name}` has no layer: place it in LAYERS and in ARCHITECTURE.md");
        };
        for dependency in workspace_dependencies(&dir) {
            let below = layers.get(dependency.as_str()).copied();
            assert!(
                below.is_some_and(|below| below < layer),
                "`{name}` (layer {layer}) depends on `{dependency}` (layer {below:?}): \
                 dependencies point down only"
            );
        }
    }
}

/// Every dependency `dir`'s crate names in its `[dependencies]`, workspace crates or not.
fn all_dependencies(dir: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("read Cargo.toml");
    let Some(table) = manifest.split("\n[dependencies]\n").nth(1) else {
        return Vec::new();
    };
    let table = table.split("\n[").next().unwrap_or(table);
    table
        .lines()
        .filter_map(|line| line.split(['=', '.', ' ']).next())
        .filter(|name| !name.is_empty() && !name.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// The application layer is below every front end: the MCP server, the studio and the CLI call
/// it, never the other way round, and no protocol enters it.
#[test]
fn the_application_layer_depends_on_no_front_end_or_protocol() {
    let dependencies = all_dependencies(&crates()["skillpath-app"]);
    for forbidden in [
        "skillpath",
        "skillpath-server",
        "skillpath-studio",
        "skillpath-registry",
        "skillpath-identity",
        "rmcp",
        "axum",
        "hyper",
        "clap",
    ] {
        assert!(
            !dependencies.iter().any(|d| d == forbidden),
            "skillpath-app must not depend on `{forbidden}`"
        );
    }
}

/// The studio reads and writes only through the application layer: it cannot name the store.
#[test]
fn the_studio_does_not_depend_on_the_store() {
    let dependencies = all_dependencies(&crates()["skillpath-studio"]);
    assert!(dependencies.iter().any(|d| d == "skillpath-app"));
    assert!(
        !dependencies.iter().any(|d| d == "skillpath-store"),
        "skillpath-studio must reach the store through skillpath-app"
    );
}

/// The registry protocol is served through the application layer alone: it names neither the
/// store nor the MCP server.
#[test]
fn the_registry_protocol_reaches_only_the_application() {
    let dependencies = all_dependencies(&crates()["skillpath-registry"]);
    assert!(dependencies.iter().any(|d| d == "skillpath-app"));
    for forbidden in ["skillpath-store", "skillpath-server", "rmcp"] {
        assert!(
            !dependencies.iter().any(|d| d == forbidden),
            "skillpath-registry must not depend on `{forbidden}`"
        );
    }
}

/// The identity providers' protocol knows nothing of skills: no skillpath crate below it, so
/// what it proves reaches the application only through a front end (`Account`).
#[test]
fn the_identity_protocol_knows_nothing_of_skills() {
    let dependencies = workspace_dependencies(&crates()["skillpath-identity"]);
    assert!(dependencies.is_empty(), "{dependencies:?}");
}

/// No module of a crate imports one that imports it back, directly or around a loop.
#[test]
fn no_crate_has_an_import_circle() {
    let found: Vec<String> = crates()
        .into_iter()
        .filter_map(|(name, dir)| {
            let circles = modules::Graph::read(&dir).circles();
            (!circles.is_empty()).then(|| format!("{name}: {circles:?}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "modules that import each other around a loop:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_circle_finder_sees_a_circle_and_nothing_else() {
    let temp = tempfile::tempdir().expect("tempdir");
    let src = temp.path().join("src");
    std::fs::create_dir_all(src.join("b")).expect("mkdir");
    let files = [
        ("lib.rs", "mod a;\nmod b;\nmod c;\npub use c::Thing;\n"),
        (
            "a.rs",
            "use crate::b::inner::f;\n// crate::c::g names nothing\n",
        ),
        ("b/mod.rs", "pub mod inner;\n"),
        (
            "b/inner.rs",
            "pub fn f() { super::super::a::x(); let s = \"crate::c::y\"; }\n",
        ),
        (
            "c.rs",
            "pub struct Thing;\n#[cfg(test)]\nmod tests { use crate::a::x; }\n",
        ),
    ];
    for (path, text) in files {
        std::fs::write(src.join(path), text).expect("write");
    }
    let graph = modules::Graph::read(temp.path());
    assert_eq!(
        graph.circles(),
        vec![vec![
            PathBuf::from("src/a.rs"),
            PathBuf::from("src/b/inner.rs")
        ]]
    );
    // A name re-exported at the root is imported from the module that defines it.
    std::fs::write(src.join("c.rs"), "use crate::Thing;\npub struct Thing;\n").expect("write");
    std::fs::write(src.join("a.rs"), "use crate::Thing;\n").expect("write");
    assert!(modules::Graph::read(temp.path()).circles().is_empty());
}

#[test]
fn the_code_map_names_every_crate_and_only_those() {
    let map = std::fs::read_to_string(workspace().join("ARCHITECTURE.md")).expect("read");
    let named: Vec<&str> = map
        .lines()
        .filter_map(|line| line.strip_prefix("### `crates/"))
        .map(|rest| rest.trim_end_matches('`'))
        .collect();
    let folders: Vec<String> = crates()
        .values()
        .map(|dir| {
            dir.file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    for folder in &folders {
        assert!(
            named.contains(&folder.as_str()),
            "ARCHITECTURE.md has no section `crates/{folder}`"
        );
    }
    for name in &named {
        assert!(
            folders.iter().any(|f| f == name),
            "ARCHITECTURE.md maps `crates/{name}`, which is gone"
        );
    }
}

#[test]
fn architecture_md_has_no_line_over_120_characters() {
    let map = std::fs::read_to_string(workspace().join("ARCHITECTURE.md")).expect("read");
    let long: Vec<String> = map
        .lines()
        .enumerate()
        .filter(|(_, line)| line.chars().count() > 120)
        .map(|(number, line)| format!("line {}: {} characters", number + 1, line.chars().count()))
        .collect();
    assert!(
        long.is_empty(),
        "ARCHITECTURE.md has long lines:\n{}",
        long.join("\n")
    );
}
