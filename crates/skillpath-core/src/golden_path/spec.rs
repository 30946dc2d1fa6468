//! Writing a skill from structured data: a [`SkillSpec`] (what `create_skill` receives)
//! serialised to a canonical `SKILL.md` plus template files, and read back from a parsed skill.
//!
//! Canonical means: frontmatter fields in a fixed order, values quoted only when YAML needs it,
//! `# Title`, the summary paragraph, sections in the given order, phases numbered from 1 with
//! their template references at the end, one blank line between blocks. Reading a canonical
//! file gives back the same spec, and writing that spec again changes no byte.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Component, Path};

use super::GoldenSkill;
use super::args::{Arg, ArgType, Params};
use super::body::SectionKind;
use crate::skill_md::SkillMd;
use crate::yaml;

/// A skill as structured data.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SkillSpec {
    /// The skill's name (kebab-case; also its folder's name).
    pub name: String,
    /// What the skill does and when to use it.
    pub description: String,
    /// The MCP tool name, when it differs from `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// License name or bundled license file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Environment requirements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<String>,
    /// Space-separated pre-approved tools.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        alias = "allowed-tools"
    )]
    pub allowed_tools: Option<String>,
    /// String-to-string metadata.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// Typed arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<Arg>,
    /// The `# Title`; defaults to the name in Title Case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The paragraph under the title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The `##` sections in order. Without any: Prerequisites, Execution Steps, Success
    /// Criteria, each only when it has something in it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<SectionSpec>,
    /// The phases of the Execution Steps section.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<PhaseSpec>,
    /// Template files, written next to `SKILL.md`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub templates: Vec<TemplateFile>,
}

/// A `##` section.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SectionSpec {
    /// `prerequisites`, `free`, `execution-steps` or `success-criteria`.
    #[serde(rename = "type")]
    pub kind: SectionKind,
    /// The heading; defaults to the kind's usual heading (required for `free`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// Markdown. Checklists for prerequisites and success criteria (`- [ ] …`); for execution
    /// steps, the text before the phases.
    #[serde(default)]
    pub content: String,
}

/// A phase of the Execution Steps.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PhaseSpec {
    /// The phase's name (after `Phase N:`).
    pub name: String,
    /// Markdown: steps, code blocks.
    #[serde(default)]
    pub content: String,
    /// Template references, written at the end of the phase.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub templates: Vec<TemplateRefSpec>,
}

/// A template reference of a phase.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TemplateRefSpec {
    /// The template file, relative to the skill folder.
    pub template: String,
    /// Where the rendered file goes, with placeholders.
    pub target: String,
    /// When the reference applies (`Var=value`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// A file of the skill.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TemplateFile {
    /// Path relative to the skill folder.
    pub path: String,
    /// The file's text.
    pub content: String,
}

/// A written skill: the `SKILL.md` text and the other files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenSkill {
    /// The text of `SKILL.md`.
    pub skill_md: String,
    /// The template files, sorted by path.
    pub files: Vec<TemplateFile>,
}

/// Why a spec cannot be written as a skill.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

impl SkillSpec {
    /// The spec as it reads back from its own canonical file: the title filled in, headings
    /// filled in, the default sections chosen, an Execution Steps section present whenever
    /// there are phases, text trimmed, templates sorted by path.
    pub fn normalized(&self) -> SkillSpec {
        let mut spec = self.clone();
        spec.title = Some(
            spec.title
                .as_deref()
                .map_or_else(|| title_case(&spec.name), |t| t.trim().to_owned()),
        );
        spec.summary = spec
            .summary
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        if !spec.phases.is_empty()
            && !spec
                .sections
                .iter()
                .any(|s| s.kind == SectionKind::ExecutionSteps)
        {
            spec.sections.push(SectionSpec {
                kind: SectionKind::ExecutionSteps,
                heading: None,
                content: String::new(),
            });
        }
        for section in &mut spec.sections {
            let heading = section
                .heading
                .as_deref()
                .map_or(section.kind.default_heading(), str::trim);
            section.heading = Some(heading.to_owned());
            section.content = section.content.trim().to_owned();
        }
        for phase in &mut spec.phases {
            phase.name = phase.name.trim().to_owned();
            phase.content = phase.content.trim().to_owned();
        }
        spec.templates.sort_by(|a, b| a.path.cmp(&b.path));
        spec
    }

    /// Writes the canonical `SKILL.md` and the template files.
    pub fn write(&self) -> Result<WrittenSkill, SpecError> {
        let spec = self.normalized();
        spec.check_writable()?;
        let mut out = String::from("---\n");
        let _ = writeln!(out, "name: {}", scalar(&spec.name));
        let _ = writeln!(out, "description: {}", scalar(&spec.description));
        for (key, value) in [
            ("tool_name", &spec.tool_name),
            ("license", &spec.license),
            ("compatibility", &spec.compatibility),
            ("allowed-tools", &spec.allowed_tools),
        ] {
            if let Some(value) = value {
                let _ = writeln!(out, "{key}: {}", scalar(value));
            }
        }
        if !spec.metadata.is_empty() {
            out.push_str("metadata:\n");
            for (key, value) in &spec.metadata {
                let _ = writeln!(out, "  {}: {}", scalar(key), scalar(value));
            }
        }
        if !spec.args.is_empty() {
            out.push_str("args:\n");
            for arg in &spec.args {
                write_arg(&mut out, arg);
            }
        }
        out.push_str("---\n\n");
        let _ = writeln!(out, "# {}", spec.title.as_deref().unwrap_or_default());
        if let Some(summary) = &spec.summary {
            let _ = write!(out, "\n{summary}\n");
        }
        for section in &spec.sections {
            let _ = write!(
                out,
                "\n## {}\n",
                section.heading.as_deref().unwrap_or_default()
            );
            if !section.content.is_empty() {
                let _ = write!(out, "\n{}\n", section.content);
            }
            if section.kind == SectionKind::ExecutionSteps {
                for (index, phase) in spec.phases.iter().enumerate() {
                    let _ = write!(out, "\n### Phase {}: {}\n", index + 1, phase.name);
                    if !phase.content.is_empty() {
                        let _ = write!(out, "\n{}\n", phase.content);
                    }
                    for reference in &phase.templates {
                        let _ = write!(
                            out,
                            "\n**Template:** `{}`\n**Target:** `{}`\n",
                            reference.template, reference.target
                        );
                        if let Some(condition) = &reference.condition {
                            let _ = writeln!(out, "**Condition:** `{condition}`");
                        }
                    }
                }
            }
        }
        Ok(WrittenSkill {
            skill_md: out,
            files: spec.templates,
        })
    }

    /// What cannot be written so that it reads back the same.
    fn check_writable(&self) -> Result<(), SpecError> {
        let error = |message: String| Err(SpecError(message));
        let one_line = |what: &str, text: &str| -> Result<(), SpecError> {
            if text.contains(['\n', '\r']) || text.trim().is_empty() {
                return error(format!("{what} must be one non-empty line, got `{text}`"));
            }
            if super::body::heading_source_text(&format!("# {text}\n")) != text.trim() {
                return error(format!("{what} must not end with `#` marks, got `{text}`"));
            }
            Ok(())
        };
        // The name is the folder a written skill goes in; `..`, `/etc/x` or `a/../../b` would
        // put it somewhere else. (Validation reports every other bad name.)
        if let Err(problem) = crate::validate::check_folder_name(self.name.trim()) {
            return error(format!(
                "{problem}; a name is lowercase letters, digits and hyphens"
            ));
        }
        // An argument whose name breaks the grammar is dropped when the skill is read (with an
        // error), so it would not read back.
        if let Some(arg) = self
            .args
            .iter()
            .find(|arg| !super::args::is_valid_arg_name(&arg.name))
        {
            return error(format!(
                "argument name `{}` is not snake_case: use lowercase letters, digits and single underscores, starting with a letter",
                arg.name
            ));
        }
        // Allowed values or a default the reader refuses, a name declared twice or two names
        // with one placeholder drop the argument on reading too.
        let mut declared = super::args::Declared::default();
        for arg in &self.args {
            if let Err((_, message)) = declared.add(&arg.name) {
                return error(message);
            }
            let enum_problem = arg
                .allowed
                .as_deref()
                .and_then(|values| super::args::enum_problem(&arg.name, arg.arg_type, values));
            let default_problem = arg.default.as_deref().and_then(|default| {
                super::args::default_problem(
                    &arg.name,
                    arg.arg_type,
                    arg.allowed.as_deref(),
                    default,
                )
                .map(|(_, message)| message)
            });
            if let Some(message) = enum_problem.or(default_problem) {
                return error(message);
            }
        }
        one_line("`title`", self.title.as_deref().unwrap_or_default())?;
        let mut execution_steps = 0;
        for section in &self.sections {
            one_line(
                "a section heading",
                section.heading.as_deref().unwrap_or_default(),
            )?;
            if section.kind == SectionKind::ExecutionSteps {
                execution_steps += 1;
            } else if section.kind != SectionKind::Free
                && SectionKind::of_heading(section.heading.as_deref().unwrap_or_default())
                    != section.kind
            {
                return error(format!(
                    "a `{}` section must be headed `{}`",
                    serde_json::to_value(section.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                    section.kind.default_heading()
                ));
            }
            if section.kind == SectionKind::Free
                && SectionKind::of_heading(section.heading.as_deref().unwrap_or_default())
                    != SectionKind::Free
            {
                return error(format!(
                    "a free section cannot be headed `{}`",
                    section.heading.as_deref().unwrap_or_default()
                ));
            }
            if section.kind == SectionKind::ExecutionSteps
                && SectionKind::of_heading(section.heading.as_deref().unwrap_or_default())
                    != SectionKind::ExecutionSteps
            {
                return error(
                    "the execution-steps section must be headed `Execution Steps`".to_owned(),
                );
            }
            check_markdown("section content", &section.content)?;
        }
        if execution_steps > 1 {
            return error("there can be only one execution-steps section".to_owned());
        }
        for phase in &self.phases {
            one_line("a phase name", &phase.name)?;
            check_markdown("phase content", &phase.content)?;
            for reference in &phase.templates {
                for (what, value) in [
                    ("template", Some(&reference.template)),
                    ("target", Some(&reference.target)),
                    ("condition", reference.condition.as_ref()),
                ] {
                    if let Some(value) = value
                        && (value.contains('`')
                            || value.contains(['\n', '\r'])
                            || value.trim().is_empty()
                            || value.trim() != value)
                    {
                        return error(format!(
                            "a template reference's {what} must be one line without backticks, got `{value}`"
                        ));
                    }
                }
            }
        }
        let referenced: Vec<&str> = self
            .phases
            .iter()
            .flat_map(|p| &p.templates)
            .map(|r| r.template.as_str())
            .collect();
        let mut paths: Vec<&str> = Vec::new();
        for file in &self.templates {
            check_file_path(&file.path)?;
            if paths.contains(&file.path.as_str()) {
                return error(format!("template file `{}` is given twice", file.path));
            }
            if !referenced.contains(&file.path.as_str()) {
                return error(format!(
                    "template file `{}` is not referenced by any phase",
                    file.path
                ));
            }
            paths.push(&file.path);
        }
        Ok(())
    }

    /// Reads a skill back into a spec. `template` gives the text of a template file by path
    /// (the files a phase references; a missing one is left out).
    pub fn from_skill(
        skill: &SkillMd,
        golden: &GoldenSkill,
        template: impl Fn(&str) -> Option<String>,
    ) -> Result<SkillSpec, SpecError> {
        let text_field = |key: &str| -> Option<String> {
            skill
                .field(key)
                .and_then(|entry| entry.value.as_scalar())
                .map(|scalar| scalar.text.clone())
        };
        let name =
            text_field("name").ok_or_else(|| SpecError("the skill has no `name`".to_owned()))?;
        let description = text_field("description")
            .ok_or_else(|| SpecError("the skill has no `description`".to_owned()))?;
        let mut metadata = BTreeMap::new();
        if let Some(yaml::NodeKind::Mapping(entries)) =
            skill.field("metadata").map(|entry| &entry.value.kind)
        {
            for entry in entries {
                if let (Some(key), Some(value)) = (entry.key.as_scalar(), entry.value.as_scalar()) {
                    metadata.insert(key.text.clone(), value.text.clone());
                }
            }
        }
        let text = &skill.file.text;
        let body = &golden.body;
        let mut sections = Vec::new();
        let mut phases = Vec::new();
        for section in &body.sections {
            let content = if section.kind == SectionKind::ExecutionSteps {
                &section.intro
            } else {
                &section.content
            };
            sections.push(SectionSpec {
                kind: section.kind,
                heading: Some(section.heading.value.clone()),
                content: text[content.clone()].trim().to_owned(),
            });
            for phase in &section.phases {
                let mut content = String::new();
                let mut cursor = phase.content.start;
                let mut templates = Vec::new();
                for reference in &phase.templates {
                    content.push_str(&text[cursor..reference.lines.start]);
                    cursor = reference.lines.end;
                    let target = reference.target.as_ref().ok_or_else(|| {
                        SpecError(format!(
                            "template `{}` has no `**Target:**`",
                            reference.template.value
                        ))
                    })?;
                    templates.push(TemplateRefSpec {
                        template: reference.template.value.clone(),
                        target: target.value.clone(),
                        condition: reference.condition.as_ref().map(|c| c.value.clone()),
                    });
                }
                content.push_str(&text[cursor..phase.content.end]);
                phases.push(PhaseSpec {
                    name: phase.name.value.clone(),
                    content: content.trim().to_owned(),
                    templates,
                });
            }
        }
        let mut template_paths: Vec<&str> = phases
            .iter()
            .flat_map(|p| &p.templates)
            .map(|r| r.template.as_str())
            .collect();
        template_paths.sort_unstable();
        template_paths.dedup();
        let templates = template_paths
            .into_iter()
            .filter_map(|path| {
                template(path).map(|content| TemplateFile {
                    path: path.to_owned(),
                    content,
                })
            })
            .collect();
        Ok(SkillSpec {
            name,
            description,
            tool_name: text_field("tool_name"),
            license: text_field("license"),
            compatibility: text_field("compatibility"),
            allowed_tools: text_field("allowed-tools"),
            metadata,
            args: golden.args.clone(),
            title: body.title.as_ref().map(|t| t.value.clone()),
            summary: body
                .description
                .as_ref()
                .map(|range| text[range.clone()].trim().to_owned()),
            sections,
            phases,
            templates,
        })
    }
}

/// `add-caching` → `Add Caching`.
pub fn title_case(name: &str) -> String {
    name.split(['-', '_', ' '])
        .filter(|part| !part.is_empty())
        .map(super::args::capitalized)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Markdown that would change the document's structure if written verbatim: a `#`, `##` or
/// `###` heading, a block left open (an unclosed code fence swallows what follows), or a
/// template-reference label outside code.
fn check_markdown(what: &str, content: &str) -> Result<(), SpecError> {
    use pulldown_cmark::{Event, HeadingLevel, Parser, Tag};
    let probe = format!("{content}\n\n## End\n");
    let levels: Vec<HeadingLevel> = Parser::new(&probe)
        .filter_map(|event| match event {
            Event::Start(Tag::Heading { level, .. }) => Some(level),
            _ => None,
        })
        .collect();
    let closed = levels.last() == Some(&HeadingLevel::H2);
    let structural = levels[..levels.len().saturating_sub(1)]
        .iter()
        .any(|level| *level <= HeadingLevel::H3);
    if !closed || structural {
        return Err(SpecError(format!(
            "{what} must not contain `#`, `##` or `###` headings or leave a code block open; use a free section for new headings"
        )));
    }
    let phase = super::body::parse_body(
        &format!("## Execution Steps\n\n### Phase 1: probe\n\n{content}\n"),
        0,
    );
    if !phase.stray_labels.is_empty() || phase.template_refs().next().is_some() {
        return Err(SpecError(format!(
            "{what} must not contain `**Template:**`-style lines; give template references as `templates`"
        )));
    }
    Ok(())
}

/// A template path must be relative, inside the skill, portable, and a file a skill may hold
/// ([`crate::skill_files::not_a_skill_file`]).
fn check_file_path(path: &str) -> Result<(), SpecError> {
    let invalid = |why: &str| Err(SpecError(format!("template path `{path}` {why}")));
    if let Some(why) = crate::skill_files::not_a_skill_file(path) {
        return invalid(&why);
    }
    if path.is_empty() || path.contains('\\') || path.contains('\0') {
        return invalid("must be a relative path with `/` separators");
    }
    for component in Path::new(path).components() {
        let Component::Normal(part) = component else {
            return invalid("must stay inside the skill folder (no `..`, `.` or absolute paths)");
        };
        let part = part.to_string_lossy();
        if crate::validate::name::is_windows_device_name(&part)
            || part.ends_with(['.', ' '])
            || part.contains(['<', '>', ':', '"', '|', '?', '*'])
        {
            return invalid("has a name that is not allowed on Windows");
        }
    }
    Ok(())
}

fn write_arg(out: &mut String, arg: &Arg) {
    write_param(out, arg, Params::Arguments);
}

/// Writes `param` as an item of a list of `params`: an argument says whether it is required;
/// a package's option is never required and has no such field.
pub(crate) fn write_param(out: &mut String, arg: &Arg, params: Params) {
    let _ = writeln!(out, "  - name: {}", arg.name);
    if let Some(description) = &arg.description {
        let _ = writeln!(out, "    description: {}", scalar(description));
    }
    if params == Params::Arguments {
        let _ = writeln!(out, "    required: {}", arg.required);
    }
    if arg.arg_type != ArgType::String {
        let _ = writeln!(out, "    type: {}", arg.arg_type.as_str());
    }
    if let Some(values) = &arg.allowed {
        let items: Vec<String> = values.iter().map(|value| flow_scalar(value)).collect();
        let _ = writeln!(out, "    enum: [{}]", items.join(", "));
    }
    if let Some(default) = &arg.default {
        let _ = writeln!(out, "    default: {}", double_quoted(default));
    }
}

/// A YAML scalar for `value`: plain when YAML reads it back as this same string, otherwise
/// double-quoted.
pub fn scalar(value: &str) -> String {
    if is_plain_safe(value, false) {
        value.to_owned()
    } else {
        double_quoted(value)
    }
}

fn flow_scalar(value: &str) -> String {
    if is_plain_safe(value, true) {
        value.to_owned()
    } else {
        double_quoted(value)
    }
}

fn is_plain_safe(value: &str, in_flow: bool) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    let indicator = "-?:,[]{}#&*!|>'\"%@`".contains(first);
    let lead_ok = !indicator
        || (matches!(first, '-' | '?' | ':')
            && value[1..].starts_with(|c: char| !c.is_whitespace())
            && value.len() > 1);
    let typed = !matches!(yaml_reads_as_string(value), Some(true));
    lead_ok
        && !typed
        && value.trim() == value
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.ends_with(':')
        && !value.starts_with("---")
        && !value.starts_with("...")
        && !value.chars().any(|c| {
            c.is_control()
                || !is_yaml_printable(c)
                || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}')
        })
        && !(in_flow && value.contains([',', '[', ']', '{', '}']))
}

/// Whether YAML 1.2 reads the plain scalar `value` as a string.
fn yaml_reads_as_string(value: &str) -> Option<bool> {
    let document = yaml::parse(&format!("k: {value}\n"), 0, yaml::Dialect::Yaml12).ok()?;
    let root = document.root?;
    let entry = root.get("k")?;
    let scalar = entry.value.as_scalar()?;
    Some(scalar.text == value && yaml::to_json(&entry.value).is_string())
}

/// Whether YAML lets `c` stand as itself in a file (its `c-printable` set): not the C0 and C1
/// controls (but tab, line feed, carriage return and NEL), DEL, nor the noncharacters U+FFFE
/// and U+FFFF. Any other character must be written as an escape, or the file does not parse.
fn is_yaml_printable(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

fn double_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if !is_yaml_printable(c) || c == '\u{feff}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
