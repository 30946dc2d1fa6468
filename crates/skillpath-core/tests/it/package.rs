//! The example architecture package: its manifest reads without a problem, and ranking picks it
//! for a project it fits and not for one it does not.

use std::path::PathBuf;

use skillpath_core::package::{self, Package, fit};

fn example() -> Package {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/packages/dotnet-clean-architecture");
    let (_, read, diagnostics) = package::read_package(&dir).expect("the manifest reads");
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let read = read.expect("a package");
    assert_eq!(
        read.options
            .iter()
            .map(|o| o.name.as_str())
            .collect::<Vec<_>>(),
        ["endpointStyle", "idStrategy"]
    );
    assert_eq!(package::member_dirs(&dir).len(), 3);
    read
}

#[test]
fn analyze_requirements_picks_the_example_for_a_fitting_project_only() {
    let other = Package {
        name: "python-fastapi-service".to_owned(),
        description: "A Python HTTP service with FastAPI, SQLAlchemy and Alembic migrations."
            .to_owned(),
        layers: Vec::new(),
        tech_stack: vec!["Python".to_owned(), "FastAPI".to_owned()],
        options: Vec::new(),
        skills: Vec::new(),
        docs: Vec::new(),
    };
    let packages = [other, example()];
    let fits = fit::rank(
        &packages,
        "A backend team writing C# on .NET 8 with controllers, storing orders in PostgreSQL",
    );
    assert_eq!(
        fits[0].package.name, "dotnet-clean-architecture",
        "{fits:#?}"
    );
    assert!(
        fits.iter()
            .all(|f| f.package.name != "python-fastapi-service"),
        "{fits:#?}"
    );
    assert!(fit::rank(&packages, "an iOS app in Swift with SwiftUI").is_empty());
}

#[test]
fn options_are_read_by_the_argument_rules_and_named_as_options() {
    let manifest = "---
name: pkg
description: Use when testing.
options:
  - name: endpointStyle
    description: Style
    type: colour
    default: red
  - name: idStrategy
    description: Ids
    enum: [guid, typed-id]
    default: ulid
  - name: Bad-Name
    description: x
    default: y
  - name: required_one
    description: x
    required: true
    default: y
---
";
    let (_, read, diagnostics) =
        package::read_manifest("pkg/PACKAGE.md".into(), manifest.to_owned());
    let found: Vec<(String, String)> = diagnostics
        .iter()
        .map(|d| (d.code.to_string(), d.message.clone()))
        .collect();
    let has = |code: &str, words: &str| {
        found
            .iter()
            .any(|(c, message)| c == code && message.contains(words))
    };
    assert!(
        has(
            "arg-type-unknown",
            "option `endpointStyle` has an unknown type `colour`"
        ),
        "{found:#?}"
    );
    assert!(has("arg-default-not-in-enum", "idStrategy"), "{found:#?}");
    assert!(
        has(
            "arg-name-invalid",
            "option name `Bad-Name` is not camelCase or snake_case"
        ),
        "{found:#?}"
    );
    assert!(
        has("arg-field-unknown", "unknown option field `required`"),
        "{found:#?}"
    );
    // Only the option that reads whole is kept; it is never required.
    let options = read.expect("a package").options;
    assert_eq!(
        options.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(),
        ["required_one"]
    );
    assert!(!options[0].required);
}
