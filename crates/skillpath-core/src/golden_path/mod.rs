//! Golden Path skills: an Agent Skill plus typed arguments (`tool_name`, `args`) and a
//! structured body (Prerequisites, Execution Steps with phases and template references,
//! Success Criteria). Calling one renders it to markdown with the arguments filled in.
//!
//! Start with [`GoldenSkill::read`]; then [`schema::input_schema`], [`render::render`], and
//! [`spec::SkillSpec`] for writing a skill from structured data.

pub mod args;
pub mod ask;
pub mod body;
pub(crate) mod budget;
pub mod compat;
pub mod condition;
pub mod render;
pub mod schema;
pub mod spec;
pub mod templates;
mod values;

use crate::bundle::SkillBundle;
use crate::diagnostic::{Code, Diagnostic};
use crate::skill_md::SkillMd;
use args::Arg;
use body::Body;
use condition::{Condition, find_arg};

/// The frontmatter fields Golden Path adds.
pub const FIELDS: [&str; 2] = ["tool_name", "args"];

/// The Golden Path view of a skill: its tool name, arguments and body structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldenSkill {
    /// `tool_name`, when given and valid.
    pub tool_name: Option<String>,
    /// The arguments that could be read.
    pub args: Vec<Arg>,
    /// The body's structure.
    pub body: Body,
}

impl GoldenSkill {
    /// Reads the Golden Path parts of `skill`, with diagnostics about the arguments and
    /// `tool_name` (no file system access).
    pub fn read(skill: &SkillMd) -> (GoldenSkill, Vec<Diagnostic>) {
        let file = &skill.file;
        let (args, mut diagnostics) =
            args::parse_args(file, skill.field("args").map(|entry| &entry.value));
        let tool_name = skill.field("tool_name").and_then(|entry| {
            let name = entry.value.as_scalar().map(|scalar| scalar.text.as_str());
            match name {
                Some(name) if is_valid_tool_name(name) => Some(name.to_owned()),
                _ => {
                    diagnostics.push(
                        Diagnostic::error(
                            Code::ToolNameInvalid,
                            format!(
                                "`tool_name` `{}` is not a valid MCP tool name",
                                name.unwrap_or("?")
                            ),
                        )
                        .with_hint("use 1 to 128 letters, digits, `_`, `-` or `.`")
                        .at(file, entry.value.range.clone()),
                    );
                    None
                }
            }
        });
        let body = body::parse_body(skill.body(), skill.body.start);
        (
            GoldenSkill {
                tool_name,
                args,
                body,
            },
            diagnostics,
        )
    }

    /// [`GoldenSkill::read`] for a skill whose files are `bundle`: a member of a package also
    /// takes the package's options as optional arguments with their defaults (its tool's
    /// schema, its rendering and its conditions see them as its own), but for an option with
    /// an argument's placeholder, which is a validation error and left out.
    pub fn read_in(skill: &SkillMd, bundle: &SkillBundle) -> (GoldenSkill, Vec<Diagnostic>) {
        let (mut golden, mut diagnostics) = GoldenSkill::read(skill);
        let clashes = crate::package::add_options(&mut golden.args, &bundle.package_options);
        let range = skill
            .field("args")
            .map_or(0..0, |entry| entry.key.range.clone());
        for (argument, option, placeholder) in &clashes {
            diagnostics.push(
                Diagnostic::error(
                    Code::OptionCollidesWithArgument,
                    format!(
                        "argument `{argument}` and the package's option `{option}` are both `{{{placeholder}}}`"
                    ),
                )
                .with_hint("rename the argument, or use the package's option instead of it")
                .at(&skill.file, range.clone()),
            );
        }
        (golden, diagnostics)
    }

    /// Whether the skill uses any Golden Path feature: `args`, `tool_name`, or a structured body.
    pub fn is_golden_path(skill: &SkillMd, body: &Body) -> bool {
        FIELDS.iter().any(|field| skill.field(field).is_some()) || body.is_structured()
    }

    /// The name of the skill's MCP tool: `tool_name`, else `name`.
    pub fn tool_name_or<'a>(&'a self, name: &'a str) -> &'a str {
        self.tool_name.as_deref().unwrap_or(name)
    }
}

/// MCP tool names: `[A-Za-z0-9_.-]{1,128}`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Every Golden Path rule for `skill`, whose files are `bundle`: arguments, `tool_name`,
/// body structure, template files (found among `bundle`'s files), conditions and placeholders.
pub(crate) fn check(skill: &SkillMd, bundle: &SkillBundle) -> Vec<Diagnostic> {
    let (golden, mut out) = GoldenSkill::read_in(skill, bundle);
    if !GoldenSkill::is_golden_path(skill, &golden.body) {
        return out;
    }
    let file = &skill.file;
    let body = &golden.body;

    for range in &body.stray_phases {
        out.push(
            Diagnostic::warning(
                Code::PhaseOutsideExecutionSteps,
                "a phase heading outside `## Execution Steps`",
            )
            .with_hint("move the phase under the `## Execution Steps` section")
            .at(file, range.clone()),
        );
    }
    for section in body
        .sections
        .iter()
        .filter(|s| s.kind == body::SectionKind::ExecutionSteps)
    {
        for (index, phase) in section.phases.iter().enumerate() {
            let expected = index as u64 + 1;
            if phase.number != expected {
                out.push(
                    Diagnostic::warning(
                        Code::PhaseNumbering,
                        format!(
                            "phase {} is the {expected}. phase; number phases 1, 2, 3, … in order",
                            phase.number
                        ),
                    )
                    .at(file, phase.heading_range.clone()),
                );
            }
        }
    }
    for stray in &body.stray_labels {
        out.push(
            Diagnostic::error(
                Code::TemplateReferenceIncomplete,
                format!("a `**{}:**` line that does not follow a `**Template:**` line", stray.label),
            )
            .with_hint("a template reference is a `**Template:**` line, then `**Target:**` and an optional `**Condition:**`")
            .at(file, stray.range.clone()),
        );
    }

    for reference in body.template_refs() {
        let template = &reference.template;
        if reference.target.is_none() {
            out.push(
                Diagnostic::error(
                    Code::TemplateReferenceIncomplete,
                    format!(
                        "template `{}` has no `**Target:**` line saying where it goes",
                        template.value
                    ),
                )
                .at(file, template.range.clone()),
            );
        }
        if let Some(target) = &reference.target
            && let Some(problem) = templates::target_outside_project(&target.value)
        {
            out.push(
                Diagnostic::error(Code::TargetOutsideProject, problem)
                    .with_hint("a target is where the agent writes the file, relative to the root of the project it works in")
                    .at(file, target.range.clone()),
            );
        }
        match templates::find_in(bundle, &template.value) {
            Err(problem) => {
                let code = if problem == templates::TemplateProblem::NotFound {
                    Code::TemplateMissing
                } else {
                    Code::TemplateOutsideSkill
                };
                out.push(
                    Diagnostic::error(code, format!("template `{}` {problem}", template.value))
                        .with_hint("put the template file in the skill folder and name it relative to `SKILL.md`")
                        .at(file, template.range.clone()),
                );
            }
            Ok(bytes) => {
                if let Ok(text) = templates::text(bundle, &template.value, bytes) {
                    let blocks = templates::if_blocks(&text);
                    for line in &blocks.unbalanced {
                        out.push(
                            Diagnostic::error(
                                Code::TemplateIfUnbalanced,
                                format!("template `{}` has an unbalanced `{{{{#if}}}}` block at line {line}", template.value),
                            )
                            .with_hint("close every `// {{#if X}}` line with a `// {{/if}}` line")
                            .at(file, template.range.clone()),
                        );
                    }
                    for expression in &blocks.expressions {
                        let problem = if condition::is_flag(&golden.args, expression) {
                            None
                        } else {
                            check_condition(&golden.args, expression)
                        };
                        if let Some(diagnostic) = problem {
                            let diagnostic = Diagnostic {
                                message: format!(
                                    "in template `{}`: {}",
                                    template.value, diagnostic.message
                                ),
                                ..diagnostic
                            };
                            out.push(diagnostic.at(file, template.range.clone()));
                        }
                    }
                }
            }
        }
        if let Some(condition) = &reference.condition
            && let Some(diagnostic) = check_condition(&golden.args, &condition.value)
        {
            out.push(diagnostic.at(file, condition.range.clone()));
        }
    }

    if !golden.args.is_empty() || skill.field("args").is_some() {
        let known: Vec<String> = golden.args.iter().map(Arg::placeholder).collect();
        let body_text = skill.body();
        for (offset, name) in templates::placeholders(body_text) {
            if !known.iter().any(|k| k == name) {
                let start = skill.body.start + offset;
                out.push(
                    Diagnostic::warning(Code::PlaceholderUnknown, format!("`{{{name}}}` names no argument, so it is never filled in"))
                        .with_hint(format!("declare an argument for it, or write `\\{{{name}}}` if the braces are meant literally"))
                        .at(file, start..start + name.len() + 2),
                );
            }
        }
    }
    out
}

/// A diagnostic for a malformed condition, one on an unknown variable, or one comparing with a
/// value the argument can never have.
fn check_condition(args: &[Arg], text: &str) -> Option<Diagnostic> {
    match Condition::parse(text) {
        Err(problem) => Some(
            Diagnostic::error(
                Code::ConditionMalformed,
                format!("condition `{text}` is malformed: {problem}"),
            )
            .with_hint("write `Var=value`, `Var!=value`, `Var=a|b` or a bare `Var`"),
        ),
        Ok(condition) if find_arg(args, condition.variable()).is_none() => Some(
            Diagnostic::error(
                Code::ConditionUnknownVariable,
                format!(
                    "condition `{text}` tests `{}`, which is not an argument",
                    condition.variable()
                ),
            )
            .with_hint(format!(
                "the arguments are: {}",
                if args.is_empty() {
                    "none".to_owned()
                } else {
                    args.iter()
                        .map(|arg| format!("`{}`", arg.placeholder()))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )),
        ),
        Ok(condition) => {
            let arg = find_arg(args, condition.variable())?;
            let impossible: Vec<&String> = condition
                .values()
                .iter()
                .filter(|value| !condition::can_equal(arg, value))
                .collect();
            let first = impossible.first()?;
            let allowed = match (&arg.allowed, arg.arg_type) {
                (Some(values), _) => values
                    .iter()
                    .map(|v| format!("`{v}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                (None, args::ArgType::Boolean) => "`true`, `false`".to_owned(),
                (None, args::ArgType::Number) => "numbers".to_owned(),
                (None, args::ArgType::String) => "any text".to_owned(),
            };
            Some(
                Diagnostic::error(
                    Code::ConditionValueInvalid,
                    format!("condition `{text}` compares `{}` with `{first}`, a value it can never have", arg.name),
                )
                .with_hint(format!("`{}` takes {allowed}", arg.name)),
            )
        }
    }
}
