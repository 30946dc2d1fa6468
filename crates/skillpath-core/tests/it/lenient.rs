//! `--mode lenient`: the client guide's "warn, but load" rules. A name that does not match its
//! folder or is too long, and wrongly typed optional fields, are warnings; a missing or empty
//! description and unparseable YAML still make the skill unusable. The common YAML mistake
//! (unquoted `: ` in a value) is repaired, with a warning.

use skillpath_core::{Code, Mode, skill_md};

use crate::support::{ERROR, Found, WARNING, check_in, demo, found, only, validate_in};

/// Validates `text` as the `SKILL.md` of a folder named `folder` in lenient mode, without lints.
fn check(folder: &str, text: &str) -> Vec<Found> {
    check_in(folder, text, Mode::Lenient, false)
}

#[test]
fn name_directory_mismatch_is_a_warning() {
    let text = "---\nname: pdf\ndescription: Use when testing.\n---\n";
    assert_eq!(
        check("pdf-tools", text),
        [(Code::NameDirectoryMismatch, WARNING, 2, 7)]
    );
    assert!(validate_in("pdf-tools", text, Mode::Lenient, false).is_valid());
    // The same skill is invalid in spec mode.
    assert_eq!(
        check_in("pdf-tools", text, Mode::Spec, false),
        [(Code::NameDirectoryMismatch, ERROR, 2, 7)]
    );
}

#[test]
fn name_too_long_is_a_warning() {
    let long = "a".repeat(70);
    let text = format!("---\nname: {long}\ndescription: Use when testing.\n---\n");
    assert_eq!(check(&long, &text), [(Code::NameTooLong, WARNING, 2, 7)]);
    assert!(validate_in(&long, &text, Mode::Lenient, false).is_valid());
}

#[test]
fn other_name_rules_stay_errors() {
    for (folder, name, code) in [
        ("Demo", "Demo", Code::NameNotLowercase),
        ("-demo", "-demo", Code::NameHyphenEdge),
        ("a--b", "a--b", Code::NameConsecutiveHyphens),
        ("a_b", "a_b", Code::NameInvalidCharacters),
    ] {
        let text = format!("---\nname: {name}\ndescription: Use when testing.\n---\n");
        assert_eq!(check(folder, &text), [(code, ERROR, 2, 7)], "{name}");
    }
    assert_eq!(
        check("demo", "---\ndescription: Use when testing.\n---\n"),
        [(Code::NameMissing, ERROR, 1, 1)]
    );
    assert_eq!(
        check(
            "demo",
            "---\nname: ''\ndescription: Use when testing.\n---\n"
        ),
        [(Code::NameEmpty, ERROR, 2, 7)]
    );
}

#[test]
fn missing_or_empty_description_stays_an_error() {
    assert_eq!(
        check("demo", "---\nname: demo\n---\n"),
        [(Code::DescriptionMissing, ERROR, 1, 1)]
    );
    assert_eq!(
        check("demo", "---\nname: demo\ndescription: ''\n---\n"),
        [(Code::DescriptionEmpty, ERROR, 3, 14)]
    );
    assert!(!validate_in("demo", "---\nname: demo\n---\n", Mode::Lenient, false).is_valid());
}

#[test]
fn description_too_long_is_a_warning() {
    let text = format!("---\nname: demo\ndescription: {}\n---\n", "x".repeat(2000));
    assert_eq!(
        check("demo", &text),
        [(Code::DescriptionTooLong, WARNING, 3, 14)]
    );
}

#[test]
fn typed_scalars_where_strings_belong_are_warnings_but_collections_are_errors() {
    assert_eq!(
        check(
            "123",
            "---\nname: 123\ndescription: true\nlicense: 2\ncompatibility: 3.11\n---\n"
        ),
        [
            (Code::NameNotString, WARNING, 2, 7),
            (Code::DescriptionNotString, WARNING, 3, 14),
            (Code::LicenseNotString, WARNING, 4, 10),
            (Code::CompatibilityNotString, WARNING, 5, 16),
        ]
    );
    assert_eq!(
        check("demo", "---\nname: demo\ndescription: [a, b]\n---\n"),
        [(Code::DescriptionNotString, ERROR, 3, 14)]
    );
    assert_eq!(
        check("demo", &demo("license: {a: b}\n")),
        [(Code::LicenseNotString, ERROR, 4, 10)]
    );
    assert_eq!(
        check("demo", &demo("compatibility: [a]\n")),
        [(Code::CompatibilityNotString, ERROR, 4, 16)]
    );
}

#[test]
fn optional_field_shapes_are_warnings() {
    let text = demo(concat!(
        "compatibility: ''\n",
        "metadata:\n  version: 1.0\n",
        "allowed-tools: [Read, Bash]\n",
    ));
    assert_eq!(
        check("demo", &text),
        [
            (Code::CompatibilityEmpty, WARNING, 4, 16),
            (Code::MetadataValueNotString, WARNING, 6, 12),
            (Code::AllowedToolsNotString, WARNING, 7, 16),
        ]
    );
    assert_eq!(
        check(
            "demo",
            &demo(&format!("compatibility: {}\n", "x".repeat(501)))
        ),
        [(Code::CompatibilityTooLong, WARNING, 4, 16)]
    );
    assert_eq!(
        check("demo", &demo("metadata: v1\n")),
        [(Code::MetadataNotMapping, WARNING, 4, 11)]
    );
}

#[test]
fn unknown_fields_and_extensions_stay_warnings() {
    assert_eq!(
        check("demo", &demo("foo: 1\nuser-invocable: false\n")),
        [
            (Code::FieldUnknown, WARNING, 4, 1),
            (Code::FieldExtension, WARNING, 5, 1)
        ]
    );
}

#[test]
fn unquoted_colon_is_repaired_with_a_warning() {
    let text = "---\nname: demo\ndescription: Use this skill when: the user asks about PDFs\nlicense: MIT\n---\nBody\n";
    let report = validate_in("demo", text, Mode::Lenient, false);
    assert_eq!(
        found(&report.diagnostics),
        [(Code::YamlRepaired, WARNING, 3, 14)]
    );
    assert!(report.is_valid());
    assert_eq!(
        report.description(),
        Some("Use this skill when: the user asks about PDFs")
    );
    let diagnostic = only(&report.diagnostics, Code::YamlRepaired);
    assert_eq!(
        diagnostic.message,
        "quoted a value that contains `: ` so the frontmatter parses"
    );
    let location = diagnostic.location.as_ref().expect("located");
    assert_eq!(
        &text[location.range.clone()],
        "Use this skill when: the user asks about PDFs"
    );
    // Positions after the repaired line still point at the original text.
    let skill = report.skill_md.as_ref().expect("parsed");
    let license = skill.field("license").expect("license");
    assert_eq!(&text[license.value.range.clone()], "MIT");
    // Spec mode refuses the same file.
    let spec = check_in("demo", text, Mode::Spec, false);
    assert_eq!(spec.len(), 1, "{spec:?}");
    assert_eq!(
        (spec[0].0, spec[0].1, spec[0].2),
        (Code::YamlSyntax, ERROR, 3)
    );
}

#[test]
fn repair_keeps_positions_of_later_diagnostics() {
    let text = "---\nname: demo\ndescription: Note: it's 'quoted' here\nlicense: 2\n---\n";
    assert_eq!(
        check("demo", text),
        [
            (Code::YamlRepaired, WARNING, 3, 14),
            (Code::LicenseNotString, WARNING, 4, 10),
        ]
    );
    let report = validate_in("demo", text, Mode::Lenient, false);
    assert_eq!(report.description(), Some("Note: it's 'quoted' here"));
}

#[test]
fn repair_works_with_crlf() {
    let text =
        "---\r\nname: demo\r\ndescription: Use when: asked\r\nlicense: MIT\r\n---\r\nBody\r\n";
    let report = validate_in("demo", text, Mode::Lenient, false);
    assert_eq!(
        found(&report.diagnostics),
        [(Code::YamlRepaired, WARNING, 3, 14)]
    );
    assert_eq!(report.description(), Some("Use when: asked"));
    let location = report.diagnostics[0].location.as_ref().expect("located");
    assert_eq!(&text[location.range.clone()], "Use when: asked");
}

#[test]
fn unrepairable_yaml_stays_an_error() {
    let text = "---\nname: demo\ndescription: [unclosed\n---\n";
    let report = validate_in("demo", text, Mode::Lenient, false);
    let found = found(&report.diagnostics);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0, found[0].1), (Code::YamlSyntax, ERROR));
    assert!(
        report
            .skill_md
            .as_ref()
            .is_some_and(|s| s.frontmatter.is_none())
    );
    assert!(
        report.diagnostics[0]
            .message
            .starts_with("invalid YAML in frontmatter: ")
    );
}

#[test]
fn parse_reports_the_repair_too() {
    let skill = skill_md::parse(
        "s/SKILL.md".into(),
        "---\nname: s\ndescription: When: always\n---\n".into(),
        Mode::Lenient,
    );
    assert_eq!(
        found(&skill.diagnostics),
        [(Code::YamlRepaired, WARNING, 3, 14)]
    );
    assert_eq!(
        skill.frontmatter_json(),
        serde_json::json!({"name": "s", "description": "When: always"})
    );
}

#[test]
fn repair_leaves_block_scalars_alone() {
    let text = "---\nname: s\ndescription: When: always\nlicense: |\n  Example: run: this\n---\n";
    let skill = skill_md::parse("s/SKILL.md".into(), text.into(), Mode::Lenient);
    assert_eq!(
        found(&skill.diagnostics),
        [(Code::YamlRepaired, WARNING, 3, 14)]
    );
    assert_eq!(
        skill.frontmatter_json()["license"],
        serde_json::json!("Example: run: this\n")
    );
}
