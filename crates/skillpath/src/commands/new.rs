//! `skillpath new`: scaffold a skill folder that validates in spec mode.

use std::fs;

use anyhow::{Context, bail};
use skillpath_core::golden_path::args::{Arg, ArgType};
use skillpath_core::golden_path::body::SectionKind;
use skillpath_core::golden_path::spec::{
    PhaseSpec, SectionSpec, SkillSpec, TemplateFile, TemplateRefSpec, title_case,
};

use crate::cli::NewArgs;
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: NewArgs) -> anyhow::Result<ExitStatus> {
    let name = args.name.trim();
    if !skillpath_core::package::is_valid_name(name) {
        bail!(
            "`{name}` is not a valid skill name: use lowercase letters, digits and single hyphens, like `add-caching`"
        );
    }
    // `--dir .` (the default) names the folder plainly, as the user would type it.
    let folder = if args.dir == std::path::Path::new(".") {
        name.into()
    } else {
        args.dir.join(name)
    };
    if folder.exists()
        && fs::read_dir(&folder)
            .map(|mut entries| entries.next().is_some())
            .unwrap_or(true)
    {
        bail!(
            "`{}` already exists and is not empty; choose another name or `--dir`",
            folder.display()
        );
    }
    if args.package {
        write_package(name, &folder)?;
        output::stderr(&format!(
            "created `{}`\nnext: edit `PACKAGE.md`, the page in `docs/` and the skill in `skills/`, then run `skillpath validate {}`\n",
            folder.display(),
            folder.display()
        ))?;
        return Ok(ExitStatus::Success);
    }
    let spec = if args.golden_path {
        golden_path_spec(name)
    } else {
        plain_spec(name)
    };
    write_skill(&spec, &folder)?;
    let next = if args.golden_path {
        format!(
            "skillpath render {} --arg service_name=Orders",
            folder.display()
        )
    } else {
        format!("skillpath validate {}", folder.display())
    };
    output::stderr(&format!(
        "created `{}`\nnext: edit `SKILL.md`, then run `{next}`\n",
        folder.display()
    ))?;
    Ok(ExitStatus::Success)
}

/// Writes the skill of `spec` into the new folder `folder`.
fn write_skill(spec: &SkillSpec, folder: &std::path::Path) -> anyhow::Result<()> {
    let written = spec.write().context("the scaffold cannot be written")?;
    fs::create_dir_all(folder).with_context(|| format!("cannot create `{}`", folder.display()))?;
    fs::write(folder.join("SKILL.md"), &written.skill_md)
        .with_context(|| format!("cannot write `{}`", folder.join("SKILL.md").display()))?;
    for file in &written.files {
        let path = folder.join(&file.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("cannot create `{}`", parent.display()))?;
        }
        fs::write(&path, &file.content)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    Ok(())
}

/// The member skill a new package starts with.
const FIRST_MEMBER: &str = "add-feature";

/// Writes a package `name` into the new folder `folder`: its manifest, a documentation page
/// and a first member skill, which validate together.
fn write_package(name: &str, folder: &std::path::Path) -> anyhow::Result<()> {
    let manifest = format!(
        "---
name: {name}
description: Describe the architecture and when a project should choose it. Use for …
layers:
  - name: Core
    description: What belongs in this layer.
tech-stack:
  - The language and frameworks the architecture is built on
options:
  - name: codeStyle
    description: A choice every member skill follows, as the variable {{CodeStyle}}
    type: string
    enum: [simple, layered]
    default: simple
skills:
  - skills/{FIRST_MEMBER}
docs:
  - docs/overview.md
---

# {title}

One paragraph on the architecture: its layers, how they depend on each other, and the order in
which its skills are used.
",
        title = title_case(name)
    );
    fs::create_dir_all(folder.join("docs"))
        .with_context(|| format!("cannot create `{}`", folder.display()))?;
    fs::write(folder.join("PACKAGE.md"), manifest)
        .with_context(|| format!("cannot write `{}`", folder.join("PACKAGE.md").display()))?;
    fs::write(
        folder.join("docs/overview.md"),
        "# Overview\n\nWhat an agent should know about this architecture before it uses a skill of it.\n",
    )
    .with_context(|| format!("cannot write `{}`", folder.join("docs/overview.md").display()))?;
    write_skill(
        &golden_path_spec(FIRST_MEMBER),
        &folder.join("skills").join(FIRST_MEMBER),
    )
}

fn plain_spec(name: &str) -> SkillSpec {
    SkillSpec {
        name: name.to_owned(),
        description: format!("Describe what {name} does. Use when the user asks to …"),
        tool_name: None,
        license: None,
        compatibility: None,
        allowed_tools: None,
        metadata: Default::default(),
        args: Vec::new(),
        title: Some(title_case(name)),
        summary: Some(
            "One paragraph on what this skill does and the result it produces.".to_owned(),
        ),
        sections: vec![
            SectionSpec {
                kind: SectionKind::Free,
                heading: Some("Steps".to_owned()),
                content: "1. The first thing to do.\n2. The next thing to do.".to_owned(),
            },
            SectionSpec {
                kind: SectionKind::Free,
                heading: Some("Output".to_owned()),
                content: "What the agent should produce, and how to check it.".to_owned(),
            },
        ],
        phases: Vec::new(),
        templates: Vec::new(),
    }
}

fn golden_path_spec(name: &str) -> SkillSpec {
    SkillSpec {
        args: vec![Arg {
            name: "service_name".to_owned(),
            description: Some("Name of the target service (PascalCase)".to_owned()),
            required: true,
            arg_type: ArgType::String,
            allowed: None,
            default: None,
        }],
        summary: Some("One paragraph on what this skill changes in a service.".to_owned()),
        sections: vec![
            SectionSpec {
                kind: SectionKind::Prerequisites,
                heading: None,
                content: "- [ ] `{ServiceName}` exists and builds".to_owned(),
            },
            SectionSpec {
                kind: SectionKind::ExecutionSteps,
                heading: None,
                content: String::new(),
            },
            SectionSpec {
                kind: SectionKind::SuccessCriteria,
                heading: None,
                content: "- [ ] The build passes\n- [ ] The new code is covered by a test"
                    .to_owned(),
            },
        ],
        phases: vec![PhaseSpec {
            name: "Add the file".to_owned(),
            content: "Create the file from the template and wire it into `{ServiceName}`."
                .to_owned(),
            templates: vec![TemplateRefSpec {
                template: "templates/Example.cs".to_owned(),
                target: "src/{ServiceName}/Example.cs".to_owned(),
                condition: None,
            }],
        }],
        templates: vec![TemplateFile {
            path: "templates/Example.cs".to_owned(),
            content: "namespace {ServiceName};\n\npublic sealed class Example\n{\n}\n".to_owned(),
        }],
        ..plain_spec(name)
    }
}
