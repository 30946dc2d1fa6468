//! Architecture invariants that a reviewer would otherwise have to remember.

/// `skillpath-core` is the pure format crate: no CLI, async runtime, database, protocol or HTTP
/// dependency may enter it (see `ARCHITECTURE.md`).
#[test]
fn core_depends_on_no_runtime_storage_or_protocol_crate() {
    let dependencies = dependencies(include_str!("../../Cargo.toml"));
    for forbidden in [
        "clap",
        "tokio",
        "rusqlite",
        "tokio-postgres",
        "rmcp",
        "axum",
        "hyper",
        "reqwest",
    ] {
        assert!(
            !depends(dependencies, forbidden),
            "skillpath-core must not depend on `{forbidden}`"
        );
    }
}

/// The `[dependencies]` table of `manifest`.
fn dependencies(manifest: &str) -> &str {
    manifest
        .split("[dependencies]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("a [dependencies] table")
}

/// Whether the `[dependencies]` table `dependencies` names the crate `name`.
fn depends(dependencies: &str, name: &str) -> bool {
    dependencies
        .lines()
        .any(|line| line.split(['=', '.', ' ']).next() == Some(name))
}
