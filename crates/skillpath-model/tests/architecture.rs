//! The model's place in the workspace, which a reviewer would otherwise have to remember.

/// The names of the `[dependencies]` of the crate whose manifest is `manifest`.
fn dependencies(manifest: &str) -> Vec<&str> {
    manifest
        .split("[dependencies]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("a [dependencies] table")
        .lines()
        .filter_map(|line| line.split(['=', '.', ' ']).next())
        .filter(|name| !name.is_empty() && !name.starts_with('#'))
        .collect()
}

/// The model is types and pure rules below every crate but core: no runtime, database,
/// protocol or file-system crate of skillpath's may enter it (see `ARCHITECTURE.md`).
#[test]
fn the_model_depends_on_no_runtime_storage_or_protocol_crate() {
    let dependencies = dependencies(include_str!("../Cargo.toml"));
    for forbidden in [
        "tokio",
        "async-trait",
        "rusqlite",
        "tokio-postgres",
        "rayon",
        "rmcp",
        "axum",
        "skillpath-store",
        "skillpath-folders",
        "skillpath-sources",
        "skillpath-server",
    ] {
        assert!(
            !dependencies.contains(&forbidden),
            "skillpath-model must not depend on `{forbidden}`"
        );
    }
}

/// The crates that read skills from disk and from sources take the model from here and never
/// link the store (nor, with it, a database and a runtime): the binary imports what they read.
#[test]
fn folders_and_sources_do_not_depend_on_the_store() {
    for (name, manifest) in [
        (
            "skillpath-folders",
            include_str!("../../skillpath-folders/Cargo.toml"),
        ),
        (
            "skillpath-sources",
            include_str!("../../skillpath-sources/Cargo.toml"),
        ),
    ] {
        let dependencies = dependencies(manifest);
        assert!(dependencies.contains(&"skillpath-model"), "{name}");
        assert!(
            !dependencies.contains(&"skillpath-store"),
            "{name} must not depend on skillpath-store"
        );
    }
}
