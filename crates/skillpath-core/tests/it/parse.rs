//! Reading a skill: finding and loading its `SKILL.md`, splitting the frontmatter from the
//! body, and parsing the YAML. Each failure is a clean diagnostic, never a panic.

use std::path::{Path, PathBuf};

use skillpath_core::load::{DEFAULT_MAX_FILE_SIZE, LoadOptions};
use skillpath_core::validate::{ValidateOptions, validate_dir};
use skillpath_core::{Code, Mode, skill_md};

use crate::support::{ERROR, Found, Sandbox, WARNING, demo, found, only, options};

/// Parses `text` as a `SKILL.md` in spec mode.
fn check(text: &str) -> Vec<Found> {
    found(&skill_md::parse(PathBuf::from("demo/SKILL.md"), text.to_owned(), Mode::Spec).diagnostics)
}

/// Validates the folder `dir` in spec mode, without lints.
fn check_dir(dir: &Path) -> Vec<Found> {
    found(&validate_dir(dir, &options(Mode::Spec, false)).diagnostics)
}

#[test]
fn path_not_found() {
    let sandbox = Sandbox::new();
    let missing = sandbox.path().join("nope");
    let report = validate_dir(&missing, &options(Mode::Spec, true));
    assert_eq!(
        found(&report.diagnostics),
        [(Code::PathNotFound, ERROR, 1, 1)]
    );
    assert!(!report.is_valid());
    assert!(report.skill_md.is_none());
    assert_eq!(
        report.diagnostics[0].message,
        format!("`{}` does not exist", missing.display())
    );
}

#[test]
fn not_a_directory() {
    let sandbox = Sandbox::new();
    let file = sandbox.file("notes.txt", "hello\n");
    let report = validate_dir(&file, &options(Mode::Spec, true));
    assert_eq!(
        found(&report.diagnostics),
        [(Code::NotADirectory, ERROR, 1, 1)]
    );
    assert_eq!(
        report.diagnostics[0].message,
        format!("`{}` is not a folder", file.display())
    );
}

#[test]
fn skill_md_missing() {
    let sandbox = Sandbox::new();
    let dir = sandbox.dir("empty");
    let report = validate_dir(&dir, &options(Mode::Spec, true));
    assert_eq!(
        found(&report.diagnostics),
        [(Code::SkillMdMissing, ERROR, 1, 1)]
    );
    let location = report.diagnostics[0].location.as_ref().expect("located");
    assert_eq!(location.file, dir.join("SKILL.md"));
    // A dangling symlink named SKILL.md is not a SKILL.md.
    std::os::unix::fs::symlink(dir.join("gone"), dir.join("SKILL.md")).expect("symlink");
    assert_eq!(check_dir(&dir), [(Code::SkillMdMissing, ERROR, 1, 1)]);
}

#[test]
fn skill_md_lowercase_is_accepted_with_a_warning() {
    let sandbox = Sandbox::new();
    let dir = sandbox.file("demo/skill.md", demo(""));
    let dir = dir.parent().expect("folder").to_path_buf();
    let report = validate_dir(&dir, &options(Mode::Spec, true));
    assert_eq!(
        found(&report.diagnostics),
        [(Code::SkillMdLowercase, WARNING, 1, 1)]
    );
    assert!(report.is_valid());
    assert_eq!(report.name(), Some("demo"));
    let location = report.diagnostics[0].location.as_ref().expect("located");
    assert_eq!(location.file, dir.join("skill.md"));
    // With both present, `SKILL.md` wins and there is nothing to say.
    sandbox.file("demo/SKILL.md", demo(""));
    assert_eq!(check_dir(&dir), []);
}

#[test]
fn skill_md_not_a_file() {
    let sandbox = Sandbox::new();
    let dir = sandbox.dir("demo");
    sandbox.dir("demo/SKILL.md");
    let report = validate_dir(&dir, &options(Mode::Spec, true));
    assert_eq!(
        found(&report.diagnostics),
        [(Code::SkillMdNotAFile, ERROR, 1, 1)]
    );
    assert!(
        report.diagnostics[0]
            .message
            .ends_with("is a folder, not a file")
    );
}

#[test]
fn skill_md_unreadable() {
    // A socket exists and is not a folder, but cannot be opened as a file (even by root).
    let sandbox = Sandbox::new();
    let dir = sandbox.dir("demo");
    let _listener =
        std::os::unix::net::UnixListener::bind(dir.join("SKILL.md")).expect("bind a socket");
    let report = validate_dir(&dir, &options(Mode::Spec, true));
    assert_eq!(
        found(&report.diagnostics),
        [(Code::SkillMdUnreadable, ERROR, 1, 1)]
    );
    assert!(report.diagnostics[0].message.starts_with("cannot read `"));
}

#[test]
fn file_too_large() {
    let sandbox = Sandbox::new();
    let text = demo(&format!("license: {}\n", "x".repeat(100)));
    let dir = sandbox.skill("demo", &text);
    let small = ValidateOptions {
        load: LoadOptions {
            mode: Mode::Spec,
            max_file_size: 64,
        },
        lints: true,
    };
    let report = validate_dir(&dir, &small);
    assert_eq!(
        found(&report.diagnostics),
        [(Code::FileTooLarge, ERROR, 1, 1)]
    );
    assert!(
        report.diagnostics[0].message.ends_with(&format!(
            "is {} bytes, over the limit of 64 bytes",
            text.len()
        )),
        "{}",
        report.diagnostics[0].message
    );
    let exact = ValidateOptions {
        load: LoadOptions {
            mode: Mode::Spec,
            max_file_size: text.len() as u64,
        },
        lints: false,
    };
    assert_eq!(found(&validate_dir(&dir, &exact).diagnostics), []);
}

#[test]
fn file_too_large_by_default_over_4_mib() {
    assert_eq!(DEFAULT_MAX_FILE_SIZE, 4 * 1024 * 1024);
    let sandbox = Sandbox::new();
    let head = demo("");
    let padding = "x".repeat(DEFAULT_MAX_FILE_SIZE as usize + 1 - head.len());
    let dir = sandbox.skill("demo", format!("{head}{padding}"));
    assert_eq!(check_dir(&dir), [(Code::FileTooLarge, ERROR, 1, 1)]);
    // One byte less is read.
    sandbox.skill("demo", format!("{head}{}", &padding[1..]));
    assert_eq!(check_dir(&dir), []);
}

#[test]
fn invalid_utf8() {
    let sandbox = Sandbox::new();
    let dir = sandbox.skill("demo", b"---\nname: d\xffmo\ndescription: x\n---\n");
    let report = validate_dir(&dir, &options(Mode::Spec, true));
    assert_eq!(
        found(&report.diagnostics),
        [(Code::InvalidUtf8, ERROR, 2, 8)]
    );
    assert!(
        report.diagnostics[0]
            .message
            .ends_with("is not valid UTF-8: byte 0xff at line 2, column 8"),
        "{}",
        report.diagnostics[0].message
    );
    assert_eq!(
        report.diagnostics[0].hint.as_deref(),
        Some("save the file as UTF-8")
    );
}

#[test]
fn byte_order_mark_is_tolerated_with_a_warning() {
    let text = format!("\u{feff}{}", demo("license: 2\n"));
    let skill = skill_md::parse("demo/SKILL.md".into(), text, Mode::Spec);
    assert_eq!(
        found(&skill.diagnostics),
        [(Code::ByteOrderMark, WARNING, 1, 1)]
    );
    assert_eq!(
        skill
            .field("name")
            .and_then(|e| e.value.as_scalar())
            .map(|s| s.text.as_str()),
        Some("demo")
    );
    let sandbox = Sandbox::new();
    let dir = sandbox.skill("demo", format!("\u{feff}{}", demo("license: 2\n")));
    assert_eq!(
        check_dir(&dir),
        [
            (Code::ByteOrderMark, WARNING, 1, 1),
            (Code::LicenseNotString, ERROR, 4, 10),
        ]
    );
}

#[test]
fn frontmatter_missing() {
    for text in [
        "# Demo\n",
        "",
        "\n---\nname: demo\n---\n",
        "--- \nname: demo\ndescription: x\n---\n",
        "name: demo\ndescription: x\n",
    ] {
        assert_eq!(
            check(text),
            [(Code::FrontmatterMissing, ERROR, 1, 1)],
            "{text:?}"
        );
    }
    let skill = skill_md::parse("demo/SKILL.md".into(), "# Demo\n".into(), Mode::Spec);
    assert!(skill.frontmatter.is_none());
    assert_eq!(skill.body(), "# Demo\n");
}

#[test]
fn frontmatter_unclosed() {
    for text in [
        "---\nname: demo\ndescription: x\n",
        "---\nname: demo\ndescription: x\n--- \n",
        "---\nname: demo\ndescription: a --- b\n",
        "---",
    ] {
        assert_eq!(
            check(text),
            [(Code::FrontmatterUnclosed, ERROR, 1, 1)],
            "{text:?}"
        );
    }
}

#[test]
fn frontmatter_not_mapping() {
    for (text, line, found_kind) in [
        ("---\n- name\n- description\n---\n", 2, "a list"),
        ("---\njust text\n---\n", 2, "a string"),
        ("---\n---\n", 2, "nothing"),
        ("---\n# only a comment\n---\n", 2, "nothing"),
    ] {
        let skill = skill_md::parse("demo/SKILL.md".into(), text.into(), Mode::Spec);
        assert_eq!(
            found(&skill.diagnostics),
            [(Code::FrontmatterNotMapping, ERROR, line, 1)],
            "{text:?}"
        );
        assert_eq!(
            skill.diagnostics[0].message,
            format!("frontmatter must be a mapping of fields, found {found_kind}")
        );
    }
}

#[test]
fn yaml_syntax() {
    let text = "---\nname: demo\ndescription: Use when: the user asks\n---\n";
    let skill = skill_md::parse("demo/SKILL.md".into(), text.into(), Mode::Spec);
    let diagnostic = only(&skill.diagnostics, Code::YamlSyntax);
    // At the second `: `, the one YAML refuses.
    assert_eq!(
        found(&skill.diagnostics),
        [(Code::YamlSyntax, ERROR, 3, 22)]
    );
    assert!(
        diagnostic
            .message
            .starts_with("invalid YAML in frontmatter: ")
    );
    assert!(
        diagnostic
            .hint
            .as_deref()
            .is_some_and(|h| h.contains("--mode lenient")),
        "{diagnostic:?}"
    );
    assert!(skill.frontmatter.is_none());
    let unclosed = check("---\nname: demo\ndescription: \"open\n---\n");
    assert_eq!(unclosed.len(), 1, "{unclosed:?}");
    assert_eq!((unclosed[0].0, unclosed[0].1), (Code::YamlSyntax, ERROR));
}

#[test]
fn yaml_duplicate_key() {
    let text = "---\nname: demo\ndescription: Use when x.\nname: other\n---\n";
    let skill = skill_md::parse("demo/SKILL.md".into(), text.into(), Mode::Spec);
    assert_eq!(
        found(&skill.diagnostics),
        [(Code::YamlDuplicateKey, ERROR, 4, 1)]
    );
    assert_eq!(
        skill.diagnostics[0].message,
        "invalid YAML in frontmatter: duplicate key 'name'"
    );
    assert_eq!(
        skill.diagnostics[0].hint.as_deref(),
        Some("remove one of the two keys")
    );
    // Nested mappings too, in lenient mode as well.
    let nested = "---\nname: demo\ndescription: x\nmetadata:\n  a: '1'\n  a: '2'\n---\n";
    let skill = skill_md::parse("demo/SKILL.md".into(), nested.into(), Mode::Lenient);
    assert_eq!(
        found(&skill.diagnostics),
        [(Code::YamlDuplicateKey, ERROR, 6, 3)]
    );
}

#[test]
fn yaml_too_complex_alias_bomb() {
    let ten = |alias: &str| [alias; 10].join(", ");
    let text = format!(
        "---\nname: demo\ndescription: x\na: &a [{}]\nb: &b [{}]\nc: &c [{}]\nd: &d [{}]\n---\n",
        ten("x"),
        ten("*a"),
        ten("*b"),
        ten("*c"),
    );
    let skill = skill_md::parse("demo/SKILL.md".into(), text, Mode::Spec);
    let found = found(&skill.diagnostics);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].0, found[0].1, found[0].2),
        (Code::YamlTooComplex, ERROR, 7)
    );
    assert!(
        skill.diagnostics[0]
            .message
            .contains("more than 10000 YAML nodes"),
        "{}",
        skill.diagnostics[0].message
    );
    // A few aliases are fine.
    let small = "---\nname: demo\ndescription: &d Use when x.\nmetadata:\n  copy: *d\n---\n";
    assert_eq!(check(small), []);
}

#[test]
fn yaml_non_string_key() {
    let text = "---\nname: demo\ndescription: x\n? [a, b]\n: c\n---\n";
    assert_eq!(check(text), [(Code::YamlNonStringKey, ERROR, 4, 3)]);
}

#[test]
fn crlf_line_endings_work() {
    let text = "---\r\nname: demo\r\ndescription: Use when x.\r\n---\r\n# Body\r\nline\r\n";
    let skill = skill_md::parse("demo/SKILL.md".into(), text.into(), Mode::Spec);
    assert_eq!(found(&skill.diagnostics), []);
    assert_eq!(skill.body(), "# Body\r\nline\r\n");
    assert_eq!(
        skill.frontmatter_json(),
        serde_json::json!({"name": "demo", "description": "Use when x."})
    );
    let name = skill.field("name").expect("name");
    assert_eq!(
        skill
            .file
            .index
            .line_column(&skill.file.text, name.value.range.start),
        skillpath_core::source::LineColumn { line: 2, column: 7 }
    );
    assert_eq!(&text[name.value.range.clone()], "demo");
    // Errors point at the same line and column as with LF.
    let bad = "---\r\nname: demo\r\ndescription: x\r\nname: again\r\n---\r\n";
    assert_eq!(check(bad), [(Code::YamlDuplicateKey, ERROR, 4, 1)]);
}

#[test]
fn body_is_kept_as_written() {
    let text = "---\nname: demo\ndescription: x\n---\n\n  # Title  \n\n---\ntail";
    let skill = skill_md::parse("demo/SKILL.md".into(), text.into(), Mode::Spec);
    assert_eq!(skill.body(), "\n  # Title  \n\n---\ntail");
    let at_eof = skill_md::parse(
        "demo/SKILL.md".into(),
        "---\nname: demo\ndescription: x\n---".into(),
        Mode::Spec,
    );
    assert_eq!(found(&at_eof.diagnostics), []);
    assert_eq!(at_eof.body(), "");
}

#[test]
fn frontmatter_json_is_typed_by_yaml_1_2() {
    let text = "---\nname: demo\ndescription: x\nversion: 1.0\nflag: yes\non: true\ncount: 0x10\nquoted: '1.0'\nnothing:\n---\n";
    let skill = skill_md::parse("demo/SKILL.md".into(), text.into(), Mode::Spec);
    assert_eq!(
        skill.frontmatter_json(),
        serde_json::json!({
            "name": "demo",
            "description": "x",
            "version": 1.0,
            "flag": "yes",
            "on": true,
            "count": 16,
            "quoted": "1.0",
            "nothing": null,
        })
    );
}

#[test]
fn a_second_yaml_document_is_a_syntax_error() {
    assert_eq!(
        check("---\nname: demo\ndescription: Use when testing.\n...\n--- b\nc: d\n---\n"),
        [(Code::YamlSyntax, ERROR, 5, 1)]
    );
}
