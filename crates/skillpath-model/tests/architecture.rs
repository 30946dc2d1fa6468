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
