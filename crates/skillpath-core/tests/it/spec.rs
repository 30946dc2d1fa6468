//! `--mode spec`: the specification, strictly. Unknown keys and agent extensions are warnings.
//! Lints are off here, so each case shows only the rule under test.

use skillpath_core::{Code, Mode};

use crate::support::{ERROR, Found, WARNING, check_in, demo, only, validate_in};

/// Validates `text` as the `SKILL.md` of a folder named `demo` in spec mode, without lints.
fn check(text: &str) -> Vec<Found> {
    check_in("demo", text, Mode::Spec, false)
}

/// Like [`check`], with the folder named `folder` (for name rules, which compare with it).
fn check_named(folder: &str, name: &str) -> Vec<Found> {
    let text = format!("---\nname: {name}\ndescription: Use when testing.\n---\n");
    check_in(folder, &text, Mode::Spec, false)
}

#[test]
fn a_skill_with_every_standard_field_is_valid() {
    let text = demo(concat!(
        "license: Apache-2.0\n",
        "compatibility: Requires git and network access\n",
        "metadata:\n  author: example-org\n  version: \"1.0\"\n",
        "allowed-tools: Bash(git:*) Read\n",
        "tool_name: run_demo\n",
        "args:\n  - name: target\n    description: What to test\n",
    ));
    assert_eq!(check(&text), []);
    let report = validate_in("demo", &text, Mode::Spec, false);
    assert!(report.is_valid());
    assert_eq!(report.name(), Some("demo"));
    assert_eq!(
        report.description(),
        Some("Use when testing the validator.")
    );
}

#[test]
fn name_missing() {
    let cases: &[(&str, &[Found])] = &[
        (
            "---\ndescription: Use when testing.\n---\n",
            &[(Code::NameMissing, ERROR, 1, 1)],
        ),
        (
            "---\nName: demo\ndescription: Use when testing.\n---\n",
            &[
                (Code::NameMissing, ERROR, 1, 1),
                (Code::FieldUnknown, WARNING, 2, 1),
            ],
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(check(text), *expected, "{text:?}");
    }
}

#[test]
fn name_not_string() {
    for (value, kind) in [
        ("123", "a number"),
        ("true", "a boolean"),
        ("null", "null"),
        ("1.5", "a number"),
    ] {
        let text = format!("---\nname: {value}\ndescription: Use when testing.\n---\n");
        let report = validate_in("demo", &text, Mode::Spec, false);
        assert_eq!(
            crate::support::found(&report.diagnostics),
            [(Code::NameNotString, ERROR, 2, 7)],
            "{value}"
        );
        let diagnostic = only(&report.diagnostics, Code::NameNotString);
        assert_eq!(
            diagnostic.message,
            format!("`name` must be a string, but YAML reads `{value}` as {kind}")
        );
        assert_eq!(diagnostic.hint, Some(format!("quote it: \"{value}\"")));
    }
    assert_eq!(
        check("---\nname:\n  - demo\ndescription: Use when testing.\n---\n"),
        [(Code::NameNotString, ERROR, 3, 3)]
    );
    // Quoted, the same text is a string.
    assert_eq!(check_named("123", "\"123\""), []);
}

#[test]
fn name_empty() {
    assert_eq!(
        check_named("demo", "\"\""),
        [(Code::NameEmpty, ERROR, 2, 7)]
    );
    assert_eq!(
        check_named("demo", "'   '"),
        [(Code::NameEmpty, ERROR, 2, 7)]
    );
    let empty = check("---\nname:\ndescription: Use when testing.\n---\n");
    assert_eq!(empty.len(), 1, "{empty:?}");
    assert_eq!(
        (empty[0].0, empty[0].1, empty[0].2),
        (Code::NameEmpty, ERROR, 2)
    );
}

#[test]
fn name_too_long() {
    let long = "a".repeat(65);
    assert_eq!(
        check_named(&long, &long),
        [(Code::NameTooLong, ERROR, 2, 7)]
    );
    let report = validate_in(
        &long,
        &format!("---\nname: {long}\ndescription: Use when testing.\n---\n"),
        Mode::Spec,
        false,
    );
    assert_eq!(
        only(&report.diagnostics, Code::NameTooLong).message,
        "`name` is 65 characters long; the limit is 64"
    );
    let longest = "a".repeat(64);
    assert_eq!(check_named(&longest, &longest), []);
}

#[test]
fn name_not_lowercase() {
    assert_eq!(
        check_named("Demo", "Demo"),
        [(Code::NameNotLowercase, ERROR, 2, 7)]
    );
    let report = validate_in(
        "PDF",
        "---\nname: PDF\ndescription: Use when testing.\n---\n",
        Mode::Spec,
        false,
    );
    let diagnostic = only(&report.diagnostics, Code::NameNotLowercase);
    assert_eq!(diagnostic.message, "`name` `PDF` must be lowercase");
    assert_eq!(diagnostic.hint.as_deref(), Some("use `pdf`"));
}

#[test]
fn name_hyphen_edge() {
    assert_eq!(
        check_named("-demo", "-demo"),
        [(Code::NameHyphenEdge, ERROR, 2, 7)]
    );
    assert_eq!(
        check_named("demo-", "demo-"),
        [(Code::NameHyphenEdge, ERROR, 2, 7)]
    );
}

#[test]
fn name_consecutive_hyphens() {
    assert_eq!(
        check_named("pdf--tools", "pdf--tools"),
        [(Code::NameConsecutiveHyphens, ERROR, 2, 7)]
    );
}

#[test]
fn name_invalid_characters() {
    assert_eq!(
        check_named("pdf_tools", "pdf_tools"),
        [(Code::NameInvalidCharacters, ERROR, 2, 7)]
    );
    let report = validate_in(
        "pdf tools",
        "---\nname: pdf tools!\ndescription: Use when testing.\n---\n",
        Mode::Spec,
        false,
    );
    let diagnostic = only(&report.diagnostics, Code::NameInvalidCharacters);
    assert_eq!(
        diagnostic.message,
        "`name` `pdf tools!` may only contain lowercase letters, digits and hyphens"
    );
    assert_eq!(diagnostic.hint.as_deref(), Some("use `pdf-tools`"));
}

#[test]
fn name_not_ascii_is_a_warning() {
    assert_eq!(
        check_named("café", "café"),
        [(Code::NameNotAscii, WARNING, 2, 7)]
    );
    // Only when the name is otherwise valid.
    assert_eq!(
        check_named("Café", "Café"),
        [(Code::NameNotLowercase, ERROR, 2, 7)]
    );
}

#[test]
fn name_directory_mismatch() {
    let report = validate_in(
        "pdf-tools",
        "---\nname: pdf\ndescription: Use when testing.\n---\n",
        Mode::Spec,
        false,
    );
    assert_eq!(
        crate::support::found(&report.diagnostics),
        [(Code::NameDirectoryMismatch, ERROR, 2, 7)]
    );
    assert!(!report.is_valid());
    let diagnostic = only(&report.diagnostics, Code::NameDirectoryMismatch);
    assert_eq!(
        diagnostic.message,
        "`name` `pdf` does not match the skill's folder `pdf-tools`"
    );
    // Comparison after NFKC normalization: a decomposed é matches a composed one.
    assert_eq!(
        check_named("café", "cafe\u{301}"),
        [(Code::NameNotAscii, WARNING, 2, 7)]
    );
}

#[test]
fn name_directory_is_the_real_folder_name() {
    let sandbox = crate::support::Sandbox::new();
    let dir = sandbox.skill(
        "real-name",
        "---\nname: real-name\ndescription: Use when testing.\n---\n",
    );
    let options = crate::support::options(Mode::Spec, false);
    // `real-name/.` names the same folder; its last component is `.`, not the folder name.
    let report = skillpath_core::validate::validate_dir(&dir.join("."), &options);
    assert_eq!(crate::support::found(&report.diagnostics), []);
    std::os::unix::fs::symlink(&dir, sandbox.path().join("alias")).expect("symlink");
    let report = skillpath_core::validate::validate_dir(&sandbox.path().join("alias"), &options);
    assert_eq!(crate::support::found(&report.diagnostics), []);
}

#[test]
fn description_missing() {
    assert_eq!(
        check("---\nname: demo\n---\n"),
        [(Code::DescriptionMissing, ERROR, 1, 1)]
    );
}

#[test]
fn description_not_string() {
    assert_eq!(
        check("---\nname: demo\ndescription: 42\n---\n"),
        [(Code::DescriptionNotString, ERROR, 3, 14)]
    );
    assert_eq!(
        check("---\nname: demo\ndescription:\n  key: value\n---\n"),
        [(Code::DescriptionNotString, ERROR, 4, 3)]
    );
}

#[test]
fn description_empty() {
    assert_eq!(
        check("---\nname: demo\ndescription: \"\"\n---\n"),
        [(Code::DescriptionEmpty, ERROR, 3, 14)]
    );
    assert_eq!(
        check("---\nname: demo\ndescription: '  '\n---\n"),
        [(Code::DescriptionEmpty, ERROR, 3, 14)]
    );
    let bare = check("---\nname: demo\ndescription:\n---\n");
    assert_eq!(bare.len(), 1, "{bare:?}");
    assert_eq!(
        (bare[0].0, bare[0].1, bare[0].2),
        (Code::DescriptionEmpty, ERROR, 3)
    );
}

#[test]
fn description_too_long() {
    let at_limit = format!("Use when {}", "x".repeat(1024 - 9));
    assert_eq!(
        check(&format!("---\nname: demo\ndescription: {at_limit}\n---\n")),
        []
    );
    let over = format!("{at_limit}y");
    let report = validate_in(
        "demo",
        &format!("---\nname: demo\ndescription: {over}\n---\n"),
        Mode::Spec,
        false,
    );
    assert_eq!(
        crate::support::found(&report.diagnostics),
        [(Code::DescriptionTooLong, ERROR, 3, 14)]
    );
    assert_eq!(
        only(&report.diagnostics, Code::DescriptionTooLong).message,
        "`description` is 1025 characters long; the limit is 1024"
    );
    // Characters, not bytes: 1024 two-byte characters are within the limit.
    let wide = "é".repeat(1024);
    assert_eq!(
        check(&format!("---\nname: demo\ndescription: {wide}\n---\n")),
        []
    );
}

#[test]
fn license_not_string() {
    assert_eq!(
        check(&demo("license: 2\n")),
        [(Code::LicenseNotString, ERROR, 4, 10)]
    );
    assert_eq!(
        check(&demo("license:\n  - MIT\n  - Apache-2.0\n")),
        [(Code::LicenseNotString, ERROR, 5, 3)]
    );
    assert_eq!(check(&demo("license: \"2\"\n")), []);
}

#[test]
fn compatibility_not_string() {
    assert_eq!(
        check(&demo("compatibility: 3.11\n")),
        [(Code::CompatibilityNotString, ERROR, 4, 16)]
    );
    assert_eq!(
        check(&demo("compatibility: [claude, codex]\n")),
        [(Code::CompatibilityNotString, ERROR, 4, 16)]
    );
}

#[test]
fn compatibility_empty() {
    let report = validate_in("demo", &demo("compatibility: \"\"\n"), Mode::Spec, false);
    assert_eq!(
        crate::support::found(&report.diagnostics),
        [(Code::CompatibilityEmpty, ERROR, 4, 16)]
    );
    assert!(!report.is_valid());
    assert_eq!(
        check(&demo("compatibility: ' '\n")),
        [(Code::CompatibilityEmpty, ERROR, 4, 16)]
    );
    let bare = check(&demo("compatibility:\n"));
    assert_eq!(bare.len(), 1, "{bare:?}");
    assert_eq!(
        (bare[0].0, bare[0].1, bare[0].2),
        (Code::CompatibilityEmpty, ERROR, 4)
    );
}

#[test]
fn compatibility_too_long() {
    assert_eq!(
        check(&demo(&format!("compatibility: {}\n", "x".repeat(500)))),
        []
    );
    let report = validate_in(
        "demo",
        &demo(&format!("compatibility: {}\n", "x".repeat(501))),
        Mode::Spec,
        false,
    );
    assert_eq!(
        crate::support::found(&report.diagnostics),
        [(Code::CompatibilityTooLong, ERROR, 4, 16)]
    );
    assert_eq!(
        only(&report.diagnostics, Code::CompatibilityTooLong).message,
        "`compatibility` is 501 characters long; the limit is 500"
    );
}

#[test]
fn metadata_not_mapping() {
    assert_eq!(
        check(&demo("metadata: v1\n")),
        [(Code::MetadataNotMapping, ERROR, 4, 11)]
    );
    let report = validate_in(
        "demo",
        &demo("metadata:\n  - a\n  - b\n"),
        Mode::Spec,
        false,
    );
    assert_eq!(
        crate::support::found(&report.diagnostics),
        [(Code::MetadataNotMapping, ERROR, 5, 3)]
    );
    assert_eq!(
        only(&report.diagnostics, Code::MetadataNotMapping).message,
        "`metadata` must be a mapping of strings to strings, found a list"
    );
}

#[test]
fn metadata_value_not_string() {
    let text = demo(concat!(
        "metadata:\n",
        "  version: 1.0\n",
        "  quoted: \"1.0\"\n",
        "  flag: yes\n",
        "  enabled: true\n",
        "  nested:\n",
        "    a: b\n",
    ));
    let report = validate_in("demo", &text, Mode::Spec, false);
    assert_eq!(
        crate::support::found(&report.diagnostics),
        [
            (Code::MetadataValueNotString, ERROR, 5, 12),
            (Code::MetadataValueNotString, ERROR, 8, 12),
            (Code::MetadataValueNotString, ERROR, 10, 5),
        ]
    );
    let first = &report.diagnostics[0];
    assert_eq!(
        first.message,
        "`metadata.version` must be a string, but YAML reads `1.0` as a number"
    );
    assert_eq!(first.hint.as_deref(), Some("quote it: \"1.0\""));
    assert_eq!(
        report.diagnostics[2].message,
        "`metadata.nested` must be a string, found a mapping"
    );
}

#[test]
fn allowed_tools_not_string() {
    let report = validate_in(
        "demo",
        &demo("allowed-tools: [Read, Bash]\n"),
        Mode::Spec,
        false,
    );
    assert_eq!(
        crate::support::found(&report.diagnostics),
        [(Code::AllowedToolsNotString, ERROR, 4, 16)]
    );
    let diagnostic = only(&report.diagnostics, Code::AllowedToolsNotString);
    assert_eq!(
        diagnostic.message,
        "`allowed-tools` must be a string, found a list"
    );
    assert!(
        diagnostic
            .hint
            .as_deref()
            .is_some_and(|hint| hint.contains("space-separated")),
        "{diagnostic:?}"
    );
    assert_eq!(
        check(&demo("allowed-tools:\n  - Read\n")),
        [(Code::AllowedToolsNotString, ERROR, 5, 3)]
    );
}

#[test]
fn unknown_fields_are_warnings() {
    let report = validate_in(
        "demo",
        &demo("version: 1.0.0\nauthor: me\n"),
        Mode::Spec,
        false,
    );
    assert_eq!(
        crate::support::found(&report.diagnostics),
        [
            (Code::FieldUnknown, WARNING, 4, 1),
            (Code::FieldUnknown, WARNING, 5, 1)
        ]
    );
    assert!(report.is_valid());
    assert_eq!(
        report.diagnostics[1].message,
        "unknown frontmatter field `author`"
    );
    assert!(
        report.diagnostics[1]
            .hint
            .as_deref()
            .is_some_and(|hint| hint.contains("metadata")),
    );
}

#[test]
fn agent_extensions_are_warnings_naming_the_agent() {
    let report = validate_in(
        "demo",
        &demo("disable-model-invocation: true\nargument-hint: <file>\ncontext: fork\n"),
        Mode::Spec,
        false,
    );
    assert_eq!(
        crate::support::found(&report.diagnostics),
        [
            (Code::FieldExtension, WARNING, 4, 1),
            (Code::FieldExtension, WARNING, 5, 1),
            (Code::FieldExtension, WARNING, 6, 1),
        ]
    );
    assert!(report.is_valid());
    assert_eq!(
        report.diagnostics[0].message,
        "`disable-model-invocation` is an extension read by Claude Code, GitHub Copilot and Cursor, not a field of the specification"
    );
    assert!(
        report.diagnostics[1]
            .message
            .contains("Claude Code and GitHub Copilot")
    );
    assert!(
        report.diagnostics[2]
            .message
            .contains("read by Claude Code,")
    );
}

#[test]
fn golden_path_fields_are_not_unknown() {
    assert_eq!(
        check(&demo(
            "tool_name: demo_tool\nargs:\n  - name: service_name\n    description: The service\n    required: true\n"
        )),
        []
    );
}

#[test]
fn diagnostics_come_in_source_order() {
    let text = "---\nname: Demo\nfoo: 1\ndescription: 5\nlicense: [a]\n---\n";
    assert_eq!(
        check(text),
        [
            (Code::NameNotLowercase, ERROR, 2, 7),
            (Code::NameDirectoryMismatch, ERROR, 2, 7),
            (Code::FieldUnknown, WARNING, 3, 1),
            (Code::DescriptionNotString, ERROR, 4, 14),
            (Code::LicenseNotString, ERROR, 5, 10),
        ]
    );
}

#[test]
fn crlf_positions_match_lf_positions() {
    let lf = "---\nname: Demo\ndescription: Use when testing.\ncompatibility: ''\nmetadata:\n  v: 2\n---\nBody\n";
    let crlf = lf.replace('\n', "\r\n");
    let expected = [
        (Code::NameNotLowercase, ERROR, 2, 7),
        (Code::NameDirectoryMismatch, ERROR, 2, 7),
        (Code::CompatibilityEmpty, ERROR, 4, 16),
        (Code::MetadataValueNotString, ERROR, 6, 6),
    ];
    assert_eq!(check(lf), expected);
    assert_eq!(check(&crlf), expected);
    let report = validate_in("demo", &crlf, Mode::Spec, false);
    let location = report.diagnostics[0]
        .location
        .as_ref()
        .expect("a located diagnostic");
    // The range covers `Demo`, not the `\r` after it.
    assert_eq!(location.range.len(), 4);
    assert_eq!(report.description(), Some("Use when testing."));
}
