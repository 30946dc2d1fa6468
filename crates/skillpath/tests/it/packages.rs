//! The example architecture package in `examples/packages`: the manifest and every member
//! validate cleanly with the package's options as variables, and its skills render and show
//! their schemas with the options' defaults and with overrides (snapshots). Runs the real
//! binary from the repository root.

use skillpath_test_support::RunExt;

use crate::support::{at_root, repo_root, skillpath};

/// The example package, relative to the repository root.
const PACKAGE: &str = "examples/packages/dotnet-clean-architecture";

#[test]
fn the_example_package_and_its_members_validate_cleanly() {
    let (code, out, err) = at_root(&["validate", PACKAGE]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("3 skills and 1 package checked")
            && out.contains("4 valid, 0 invalid; 0 errors, 0 warnings"),
        "{out}"
    );
    // A member alone knows its package's options too.
    let member = format!("{PACKAGE}/skills/add-endpoint");
    let (code, out, err) = at_root(&["validate", &member]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("0 errors, 0 warnings"), "{out}");
}

#[test]
fn members_render_with_the_options_defaults_and_with_overrides() {
    let endpoint = format!("{PACKAGE}/skills/add-endpoint");
    let base = [
        "render",
        endpoint.as_str(),
        "--arg",
        "service_name=Orders",
        "--arg",
        "entity_name=Order",
    ];
    let (code, defaults, err) = at_root(&base).parts();
    assert_eq!(code, 0, "{err}");
    assert!(
        defaults.contains("as `minimal-api` endpoints") && defaults.contains("MapOrderEndpoints"),
        "{defaults}"
    );
    assert!(!defaults.contains("ControllerBase"), "{defaults}");
    insta::assert_snapshot!("add_endpoint_defaults", defaults);
    let mut controller = base.to_vec();
    controller.extend(["--arg", "endpointStyle=controller"]);
    let (code, overridden, err) = at_root(&controller).parts();
    assert_eq!(code, 0, "{err}");
    assert!(
        overridden.contains("OrderController(IOrderRepository repository) : ControllerBase"),
        "{overridden}"
    );
    assert!(!overridden.contains("MapOrderEndpoints"), "{overridden}");
    insta::assert_snapshot!("add_endpoint_controller", overridden);

    let entity = format!("{PACKAGE}/skills/add-entity");
    let with_strategy = |strategy: &str| {
        let strategy = format!("idStrategy={strategy}");
        at_root(&[
            "render",
            &entity,
            "--arg",
            "service_name=Orders",
            "--arg",
            "entity_name=Order",
            "--arg",
            &strategy,
        ])
        .parts()
    };
    let (code, typed, err) = with_strategy("typed-id");
    assert_eq!(code, 0, "{err}");
    assert!(
        typed.contains("public readonly record struct OrderId(Guid Value)"),
        "{typed}"
    );
    assert!(
        !typed.contains("public Guid Id { get; private set; }"),
        "{typed}"
    );
    insta::assert_snapshot!("add_entity_typed_id", typed);
    let (code, _, err) = with_strategy("ulid");
    assert_eq!(code, 1);
    assert!(err.contains("idStrategy"), "{err}");
}

#[test]
fn a_members_schema_has_its_arguments_and_the_packages_options() {
    let (code, out, err) = at_root(&["schema", &format!("{PACKAGE}/skills/add-endpoint")]).parts();
    assert_eq!(code, 0, "{err}");
    let schema: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        schema["required"],
        serde_json::json!(["service_name", "entity_name"])
    );
    let style = &schema["properties"]["endpointStyle"];
    assert_eq!(style["default"], "minimal-api");
    assert_eq!(
        style["enum"],
        serde_json::json!(["minimal-api", "controller"])
    );
    assert_eq!(schema["properties"]["idStrategy"]["default"], "guid");
}

#[test]
fn a_new_package_validates_and_a_broken_manifest_is_named_with_its_line() {
    let temp = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| {
        let (code, stdout, _) = skillpath(args).current_dir(temp.path()).run().parts();
        (code, stdout)
    };
    let (code, _) = run(&["new", "my-arch", "--package"]);
    assert_eq!(code, 0);
    let (code, out) = run(&["validate", "my-arch"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("1 skill and 1 package checked") && out.contains("0 errors, 0 warnings"),
        "{out}"
    );
    let manifest = temp.path().join("my-arch/PACKAGE.md");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    std::fs::write(
        &manifest,
        text.replace("  - docs/overview.md", "  - ../../etc/passwd"),
    )
    .expect("edit");
    let (code, out) = run(&["validate", "my-arch"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("package-doc-outside") && out.contains("PACKAGE.md:"),
        "{out}"
    );
}

/// Every file under `dir`, by path relative to it, with its bytes.
fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .expect("inside")
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(relative, std::fs::read(&path).expect("read"));
            }
        }
    }
    out
}

/// `import` of the package folder stores the package and its members; `list --kind` tells them
/// apart; `export` of everything writes the package folder with its members inside it, byte
/// for byte as it was, and no member beside it; an import of the export changes nothing.
#[test]
fn the_example_package_round_trips_through_import_and_export_byte_for_byte() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("store.db");
    let db = db.to_str().expect("utf-8");
    let (code, out, err) = at_root(&["import", PACKAGE, "--db", db, "--format", "json"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("json");
    let mut created: Vec<&str> = report["created"]
        .as_array()
        .expect("created")
        .iter()
        .filter_map(|name| name.as_str())
        .collect();
    created.sort_unstable();
    assert_eq!(
        created,
        [
            "add-endpoint",
            "add-entity",
            "add-repository",
            "dotnet-clean-architecture"
        ]
    );
    let (code, out, _) = at_root(&["list", "--kind", "package", "--db", db]).parts();
    assert_eq!(code, 0);
    assert!(
        out.contains("dotnet-clean-architecture") && !out.contains("add-entity"),
        "{out}"
    );
    let (_, out, _) = at_root(&["list", "--kind", "skill", "--db", db]).parts();
    assert!(
        out.contains("add-entity") && !out.contains("dotnet-clean-architecture"),
        "{out}"
    );
    let to = work.path().join("exported");
    let (code, out, err) =
        at_root(&["export", "--to", to.to_str().expect("utf-8"), "--db", db]).parts();
    assert_eq!(code, 0, "{out}{err}");
    let folders: Vec<String> = std::fs::read_dir(&to)
        .expect("exported")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(folders, ["dotnet-clean-architecture"]);
    let root = repo_root();
    assert_eq!(
        tree(&to.join("dotnet-clean-architecture")),
        tree(&root.join(PACKAGE))
    );
    let exported = to.join("dotnet-clean-architecture");
    let (code, out, err) = at_root(&[
        "import",
        exported.to_str().expect("utf-8"),
        "--db",
        db,
        "--format",
        "json",
    ])
    .parts();
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        report["unchanged"].as_array().map(Vec::len),
        Some(4),
        "{report}"
    );
}
