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

/// The application layer is below every front end: the MCP server, the studio and the CLI call
/// it, never the other way round, and no protocol enters it (see `ARCHITECTURE.md`).
#[test]
fn the_application_layer_depends_on_no_front_end_or_protocol() {
    let dependencies = dependencies(include_str!("../../../skillpath-app/Cargo.toml"));
    for forbidden in [
        "skillpath",
        "skillpath-server",
        "skillpath-studio",
        "rmcp",
        "axum",
        "hyper",
        "clap",
    ] {
        assert!(
            !depends(dependencies, forbidden),
            "skillpath-app must not depend on `{forbidden}`"
        );
    }
}

/// The studio reads and writes only through the application layer: it cannot name the store.
#[test]
fn the_studio_does_not_depend_on_the_store() {
    let dependencies = dependencies(include_str!("../../../skillpath-studio/Cargo.toml"));
    assert!(depends(dependencies, "skillpath-app"));
    assert!(
        !depends(dependencies, "skillpath-store"),
        "skillpath-studio must reach the store through skillpath-app"
    );
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
