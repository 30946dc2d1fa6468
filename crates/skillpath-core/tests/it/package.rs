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
