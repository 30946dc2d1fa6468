//! Every diagnostic code has a working example. The `match` in [`example`] has no wildcard, so a
//! new `Code` variant does not compile until it gets one; the test then checks that each example
//! really produces its code, in the mode and with the severity given.

use std::path::PathBuf;

use skillpath_core::load::LoadOptions;
use skillpath_core::validate::{ValidateOptions, validate_dir};
use skillpath_core::{Code, Diagnostic, Mode, Severity, tool_names};

use crate::support::{ERROR, Sandbox, WARNING, demo, options};

/// How an example skill folder is laid out.
enum Layout {
    /// No folder at all.
    Nothing,
    /// A plain file where the folder should be.
    PlainFile,
    /// An empty folder.
    EmptyFolder,
    /// A folder `folder` with `SKILL.md` = `content`.
    Skill {
        folder: &'static str,
        content: Vec<u8>,
    },
    /// A folder with only `skill.md`.
    Lowercase(Vec<u8>),
    /// `SKILL.md` is a folder.
    SkillMdFolder,
    /// `SKILL.md` is a socket.
    SkillMdSocket,
    /// A `SKILL.md` larger than the limit.
    TooLarge,
    /// A valid skill `demo` with a socket among its files.
    SocketAmongFiles,
    /// A valid skill `demo` with a symlink among its files that leads out of it.
    LinkOutAmongFiles,
    /// A valid skill `demo` with a file whose name is not UTF-8.
    InvalidFileName,
    /// A folder `demo` with `SKILL.md` = `content` and one more file.
    SkillWithFile {
        content: String,
        file: (&'static str, &'static str),
    },
    /// Several skill folders `(folder, SKILL.md)`, validated together: each is validated alone,
    /// then [`tool_names::check_reports`] and `overlap::check_reports` add what only a set of
    /// skills can have (one folder cannot collide with itself, nor compete with itself).
    Tree(Vec<(&'static str, String)>),
    /// A package folder `pkg` with these files `(path, content)`, validated with its members.
    Package(Vec<(&'static str, String)>),
}

/// The example for `code`: a layout, the mode, whether lints run, and the severity expected.
fn example(code: Code) -> (Layout, Mode, bool, Severity) {
    let skill = |content: String| Layout::Skill {
        folder: "demo",
        content: content.into_bytes(),
    };
    let named = |folder: &'static str| Layout::Skill {
        folder,
        content: format!("---\nname: {folder}\ndescription: Use when testing.\n---\n").into_bytes(),
    };
    let spec = |layout| (layout, Mode::Spec, false, ERROR);
    let spec_warning = |layout| (layout, Mode::Spec, false, WARNING);
    let lint = |layout| (layout, Mode::Spec, true, WARNING);
    match code {
        Code::PathNotFound => spec(Layout::Nothing),
        Code::NotADirectory => spec(Layout::PlainFile),
        Code::SkillMdMissing => spec(Layout::EmptyFolder),
        Code::SkillMdLowercase => spec_warning(Layout::Lowercase(demo("").into_bytes())),
        Code::SkillMdNotAFile => spec(Layout::SkillMdFolder),
        Code::SkillMdUnreadable => spec(Layout::SkillMdSocket),
        Code::FileTooLarge => spec(Layout::TooLarge),
        Code::InvalidUtf8 => spec(Layout::Skill {
            folder: "demo",
            content: b"---\nname: demo\xc3\x28\ndescription: x\n---\n".to_vec(),
        }),
        Code::ByteOrderMark => spec_warning(skill(format!("\u{feff}{}", demo("")))),
        Code::NulCharacter => spec(skill(format!("{}a\0b\n", demo("")))),
        Code::FileNotRegular => spec_warning(Layout::SocketAmongFiles),
        Code::FileSymlinkLeftOut => spec_warning(Layout::LinkOutAmongFiles),
        Code::FileNameInvalid => spec_warning(Layout::InvalidFileName),
        Code::FrontmatterMissing => spec(skill("# Demo\n".into())),
        Code::FrontmatterUnclosed => spec(skill("---\nname: demo\n".into())),
        Code::FrontmatterNotMapping => spec(skill("---\n- demo\n---\n".into())),
        Code::YamlSyntax => spec(skill("---\nname: demo\ndescription: a: b\n---\n".into())),
        Code::YamlDuplicateKey => spec(skill(demo("name: demo\n"))),
        Code::YamlNonStringKey => spec(skill(demo("? [a]\n: b\n"))),
        Code::YamlTooComplex => {
            let ten = |item: &str| [item; 10].join(", ");
            spec(skill(demo(&format!(
                "a: &a [{}]\nb: &b [{}]\nc: &c [{}]\nd: [{}]\n",
                ten("x"),
                ten("*a"),
                ten("*b"),
                ten("*c")
            ))))
        }
        Code::YamlRepaired => (
            skill("---\nname: demo\ndescription: Use when: asked\n---\n".into()),
            Mode::Lenient,
            false,
            WARNING,
        ),
        Code::FieldUnknown => spec_warning(skill(demo("foo: bar\n"))),
        Code::FieldExtension => spec_warning(skill(demo("model: opus\n"))),
        Code::NameMissing => spec(skill("---\ndescription: x\n---\n".into())),
        Code::NameNotString => spec(skill("---\nname: 1\ndescription: x\n---\n".into())),
        Code::NameEmpty => spec(skill("---\nname: ''\ndescription: x\n---\n".into())),
        Code::NameTooLong => spec(named(
            "a-name-that-is-far-too-long-for-the-specification-which-allows-64",
        )),
        Code::NameNotLowercase => spec(named("Demo")),
        Code::NameHyphenEdge => spec(named("demo-")),
        Code::NameConsecutiveHyphens => spec(named("de--mo")),
        Code::NameInvalidCharacters => spec(named("de_mo")),
        Code::NameNotAscii => spec_warning(named("démo")),
        Code::NameDirectoryMismatch => spec(Layout::Skill {
            folder: "other",
            content: demo("").into_bytes(),
        }),
        Code::NameNotAFolderName => (
            skill("---\nname: .claude\ndescription: Use when testing.\n---\n".into()),
            Mode::Lenient,
            false,
            ERROR,
        ),
        Code::DescriptionMissing => spec(skill("---\nname: demo\n---\n".into())),
        Code::DescriptionNotString => spec(skill("---\nname: demo\ndescription: 1\n---\n".into())),
        Code::DescriptionEmpty => spec(skill("---\nname: demo\ndescription: ''\n---\n".into())),
        Code::DescriptionTooLong => spec(skill(format!(
            "---\nname: demo\ndescription: {}\n---\n",
            "x".repeat(1025)
        ))),
        Code::DescriptionNoTrigger => {
            lint(skill("---\nname: demo\ndescription: Demo.\n---\n".into()))
        }
        Code::LicenseNotString => spec(skill(demo("license: 1\n"))),
        Code::CompatibilityNotString => spec(skill(demo("compatibility: 1\n"))),
        Code::CompatibilityEmpty => spec(skill(demo("compatibility: ''\n"))),
        Code::CompatibilityTooLong => spec(skill(demo(&format!(
            "compatibility: {}\n",
            "x".repeat(501)
        )))),
        Code::MetadataNotMapping => spec(skill(demo("metadata: x\n"))),
        Code::MetadataKeyNotString => spec(skill(demo("metadata:\n  1: a\n"))),
        Code::MetadataValueNotString => spec(skill(demo("metadata:\n  a: 1\n"))),
        Code::AllowedToolsNotString => spec(skill(demo("allowed-tools: [Read]\n"))),
        Code::ArgsNotAList => spec(skill(demo("args: service_name\n"))),
        Code::ArgNotAMapping => spec(skill(demo("args:\n  - service_name\n"))),
        Code::ArgNameMissing => spec(skill(demo("args:\n  - description: x\n"))),
        Code::ArgNameInvalid => spec(skill(demo(
            "args:\n  - name: ServiceName\n    description: x\n",
        ))),
        Code::ArgDuplicate => spec(skill(demo(
            "args:\n  - name: a\n    description: x\n  - name: a\n    description: y\n",
        ))),
        Code::ArgPlaceholderCollision => spec(skill(demo(
            "args:\n  - name: v_2\n    description: x\n  - name: v2\n    description: y\n",
        ))),
        Code::ArgFieldUnknown => spec_warning(skill(demo(
            "args:\n  - name: a\n    description: x\n    min: 1\n",
        ))),
        Code::ArgDescriptionMissing => spec_warning(skill(demo("args:\n  - name: a\n"))),
        Code::ArgRequiredNotBoolean => spec(skill(demo(
            "args:\n  - name: a\n    description: x\n    required: yes\n",
        ))),
        Code::ArgTypeUnknown => spec(skill(demo(
            "args:\n  - name: a\n    description: x\n    type: integer\n",
        ))),
        Code::ArgEnumInvalid => spec(skill(demo(
            "args:\n  - name: a\n    description: x\n    enum: []\n",
        ))),
        Code::ArgDefaultInvalid => spec(skill(demo(
            "args:\n  - name: a\n    description: x\n    type: number\n    default: ten\n",
        ))),
        Code::ArgDefaultNotInEnum => spec(skill(demo(
            "args:\n  - name: a\n    description: x\n    enum: [b, c]\n    default: d\n",
        ))),
        Code::ArgRequiredWithDefault => spec_warning(skill(demo(
            "args:\n  - name: a\n    description: x\n    required: true\n    default: b\n",
        ))),
        Code::ToolNameInvalid => spec(skill(demo("tool_name: add caching\n"))),
        Code::PhaseOutsideExecutionSteps => spec_warning(skill(format!(
            "{}## Notes\n\n### Phase 1: Early\n\n## Execution Steps\n",
            demo("")
        ))),
        Code::PhaseNumbering => spec_warning(skill(format!(
            "{}## Execution Steps\n\n### Phase 2: Second\n",
            demo("")
        ))),
        Code::TemplateReferenceIncomplete => spec(skill(format!(
            "{}## Execution Steps\n\n### Phase 1: Write\n\n**Target:** `src/a.cs`\n",
            demo("")
        ))),
        Code::TemplateMissing => spec(skill(format!(
            "{}## Execution Steps\n\n### Phase 1: Write\n\n**Template:** `A.cs`\n**Target:** `src/A.cs`\n",
            demo("")
        ))),
        Code::TemplateOutsideSkill => spec(skill(format!(
            "{}## Execution Steps\n\n### Phase 1: Write\n\n**Template:** `../A.cs`\n**Target:** `src/A.cs`\n",
            demo("")
        ))),
        Code::TemplateIfUnbalanced => spec(Layout::SkillWithFile {
            content: format!(
                "{}## Execution Steps\n\n### Phase 1: Write\n\n**Template:** `A.cs`\n**Target:** `src/A.cs`\n",
                demo("")
            ),
            file: ("A.cs", "// {{#if redis}}\nclass A {}\n"),
        }),
        Code::ConditionMalformed => spec(Layout::SkillWithFile {
            content: format!(
                "{}## Execution Steps\n\n### Phase 1: Write\n\n**Template:** `A.cs`\n**Target:** `src/A.cs`\n**Condition:** `=redis`\n",
                demo("")
            ),
            file: ("A.cs", "class A {}\n"),
        }),
        Code::ConditionUnknownVariable => spec(Layout::SkillWithFile {
            content: format!(
                "{}## Execution Steps\n\n### Phase 1: Write\n\n**Template:** `A.cs`\n**Target:** `src/A.cs`\n**Condition:** `Style=controller`\n",
                demo("")
            ),
            file: ("A.cs", "class A {}\n"),
        }),
        Code::ConditionValueInvalid => spec(Layout::SkillWithFile {
            content: format!(
                "{}## Execution Steps\n\n### Phase 1: Write\n\n**Template:** `A.cs`\n**Target:** `src/A.cs`\n**Condition:** `Style=controllr`\n",
                demo(
                    "args:\n  - name: style\n    description: x\n    enum: [controller, minimal-api]\n"
                )
            ),
            file: ("A.cs", "class A {}\n"),
        }),
        Code::TargetOutsideProject => spec(Layout::SkillWithFile {
            content: format!(
                "{}## Execution Steps\n\n### Phase 1: Write\n\n**Template:** `A.cs`\n**Target:** `../A.cs`\n",
                demo("")
            ),
            file: ("A.cs", "class A {}\n"),
        }),
        Code::PlaceholderUnknown => spec_warning(skill(format!(
            "{}Write `{{Entity}}`.\n",
            demo("args:\n  - name: service_name\n    description: x\n")
        ))),
        Code::BodyTooLong => lint(skill(format!("{}{}", demo(""), "x\n".repeat(501)))),
        Code::BodyTooManyTokens => lint(skill(format!("{}{}", demo(""), "x".repeat(20_004)))),
        Code::LinkMissing => lint(skill(format!("{}[x](missing.md)\n", demo("")))),
        Code::LinkOutsideSkill => lint(skill(format!("{}[x](../x.md)\n", demo("")))),
        Code::ToolNameCollision => spec_warning(Layout::Tree(vec![
            (
                "cache",
                "---\nname: cache\ndescription: Use when caching.\n---\n".into(),
            ),
            (
                "add-caching",
                "---\nname: add-caching\ndescription: Use when caching.\ntool_name: cache\n---\n"
                    .into(),
            ),
        ])),
        Code::DescriptionOverlap => spec_warning(Layout::Tree(vec![
            (
                "pdf-forms",
                "---\nname: pdf-forms\ndescription: Fill in PDF forms and their fields.\n---\n".into(),
            ),
            (
                "pdf-filler",
                "---\nname: pdf-filler\ndescription: Fills PDF forms and form fields.\n---\n".into(),
            ),
            (
                "slack-gif",
                "---\nname: slack-gif\ndescription: Make animated GIFs for Slack.\n---\n".into(),
            ),
        ])),
        Code::OptionDefaultMissing => spec(package("options:\n  - name: endpointStyle\n    description: Style\n", &[])),
        Code::OptionCollidesWithArgument => spec(package(
            "options:\n  - name: endpointStyle\n    description: Style\n    default: controller\nskills: [a]\n",
            &[("a/SKILL.md", "---\nname: a\ndescription: Use when testing.\nargs:\n  - name: endpoint_style\n    description: Style\n---\n# A\n\nStyle {EndpointStyle}.\n".to_owned())],
        )),
        Code::PackageNameInvalid => spec(Layout::Package(vec![("PACKAGE.md", "---\nname: Bad_Name\ndescription: Use when testing.\n---\n".to_owned())])),
        Code::PackageFieldInvalid => spec(Layout::Package(vec![("PACKAGE.md", "---\nname: pkg\n---\n".to_owned())])),
        Code::PackageSkillDuplicate => spec(package("skills: [a, a]\n", &[("a/SKILL.md", "---\nname: a\ndescription: Use when testing.\n---\n".to_owned())])),
        Code::PackageSkillMissing => spec(package("skills: [missing]\n", &[])),
        Code::PackageDocOutside => spec(package("docs: [../outside.md]\n", &[])),
        Code::PackageDocMissing => spec(package("docs: [docs/none.md]\n", &[])),
    }
}

/// A package `pkg` whose manifest has `fields` after its name and description, with `files`.
fn package(fields: &str, files: &[(&'static str, String)]) -> Layout {
    let mut all = vec![(
        "PACKAGE.md",
        format!("---\nname: pkg\ndescription: Use when testing.\n{fields}---\n"),
    )];
    all.extend(files.iter().cloned());
    Layout::Package(all)
}

/// Builds `layout` in `sandbox` and validates it.
fn run(sandbox: &Sandbox, layout: Layout, mode: Mode, lints: bool) -> Vec<Diagnostic> {
    let mut options: ValidateOptions = options(mode, lints);
    let dir: PathBuf = match layout {
        Layout::Nothing => sandbox.path().join("nothing"),
        Layout::PlainFile => sandbox.file("plain", "text\n"),
        Layout::EmptyFolder => sandbox.dir("empty"),
        Layout::Skill { folder, content } => sandbox.skill(folder, content),
        Layout::Lowercase(content) => {
            sandbox.file("demo/skill.md", content);
            sandbox.path().join("demo")
        }
        Layout::SkillMdFolder => {
            sandbox.dir("demo/SKILL.md");
            sandbox.path().join("demo")
        }
        Layout::SocketAmongFiles => {
            let dir = sandbox.skill("demo", demo("").into_bytes());
            let listener =
                std::os::unix::net::UnixListener::bind(dir.join("agent.sock")).expect("bind");
            drop(listener);
            dir
        }
        Layout::LinkOutAmongFiles => {
            let dir = sandbox.skill("demo", demo("").into_bytes());
            let outside = sandbox.file("outside.txt", "x");
            std::os::unix::fs::symlink(outside, dir.join("notes.txt")).expect("symlink");
            dir
        }
        Layout::InvalidFileName => {
            use std::os::unix::ffi::OsStrExt;
            let dir = sandbox.skill("demo", demo("").into_bytes());
            let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
            std::fs::write(dir.join(name), "x").expect("write");
            dir
        }
        Layout::SkillMdSocket => {
            let dir = sandbox.dir("demo");
            let listener = std::os::unix::net::UnixListener::bind(dir.join("SKILL.md"))
                .expect("bind a socket");
            drop(listener);
            dir
        }
        Layout::SkillWithFile { content, file } => {
            sandbox.file(&format!("demo/{}", file.0), file.1);
            sandbox.skill("demo", content)
        }
        Layout::TooLarge => {
            options.load = LoadOptions {
                max_file_size: 16,
                ..options.load
            };
            sandbox.skill("demo", demo(""))
        }
        Layout::Package(files) => {
            for (path, content) in files {
                sandbox.file(&format!("pkg/{path}"), content);
            }
            let dir = sandbox.path().join("pkg");
            return std::iter::once(dir.clone())
                .chain(skillpath_core::package::member_dirs(&dir))
                .flat_map(|dir| validate_dir(&dir, &options).diagnostics)
                .collect();
        }
        Layout::Tree(skills) => {
            let mut reports: Vec<_> = skills
                .into_iter()
                .map(|(folder, content)| validate_dir(&sandbox.skill(folder, content), &options))
                .collect();
            tool_names::check_reports(&mut reports);
            skillpath_core::overlap::check_reports(&mut reports);
            return reports
                .into_iter()
                .flat_map(|report| report.diagnostics)
                .collect();
        }
    };
    validate_dir(&dir, &options).diagnostics
}

#[test]
fn every_code_has_an_example_that_produces_it() {
    let mut missing = Vec::new();
    for &code in Code::ALL {
        let (layout, mode, lints, severity) = example(code);
        let sandbox = Sandbox::new();
        let diagnostics = run(&sandbox, layout, mode, lints);
        let hit = diagnostics
            .iter()
            .any(|d| d.code == code && d.severity == severity && d.location.is_some());
        if !hit {
            missing.push(format!(
                "{code} ({}): got {diagnostics:#?}",
                severity.as_str()
            ));
        }
    }
    assert!(
        missing.is_empty(),
        "examples that fail:\n{}",
        missing.join("\n")
    );
}

#[test]
fn codes_are_unique_kebab_case_and_listed_once() {
    let mut seen = std::collections::BTreeSet::new();
    for code in Code::ALL {
        let text = code.as_str();
        assert!(seen.insert(text), "`{text}` is listed twice");
        assert!(
            !text.is_empty()
                && text.split('-').all(|part| !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())),
            "`{text}` is not kebab-case"
        );
        assert_eq!(code.to_string(), text);
    }
}
