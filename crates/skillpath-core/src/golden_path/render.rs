//! Rendering a skill with arguments: the markdown an agent receives when it calls the skill.
//!
//! The steps, in order: resolve the arguments (defaults, coercion, and every problem at once);
//! drop template references whose condition is false; substitute `{PascalCase}` placeholders of
//! known arguments; inline each remaining template, its `{{#if}}` blocks and placeholders
//! processed, in a fenced block under its reference; say which defaults were applied.

use std::fmt;
use std::fmt::Write as _;

use super::GoldenSkill;
use super::args::{Arg, coerce, is_given};
use super::body::TemplateRef;
use super::budget::Budget;
pub use super::budget::{Exceeded, RenderLimits};
use super::templates::{self, TemplateSource};
pub use super::values::ResolvedArg;
use super::values::Values;
use crate::skill_md::SkillMd;

/// One thing wrong with the arguments of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgProblem {
    /// A required argument was not given (or was blank).
    Missing {
        /// The argument.
        name: String,
        /// Its description.
        description: Option<String>,
    },
    /// A value is not of the argument's type.
    WrongType {
        /// The argument.
        name: String,
        /// The declared type.
        expected: &'static str,
        /// The value given, as JSON.
        given: String,
    },
    /// A value is not one of the allowed values.
    NotAllowed {
        /// The argument.
        name: String,
        /// The value given.
        given: String,
        /// The allowed values.
        allowed: Vec<String>,
    },
    /// An argument the skill does not declare.
    Unknown {
        /// The name given.
        name: String,
        /// The declared arguments.
        known: Vec<String>,
    },
    /// A template reference's target, with the arguments filled in, is not a path inside the
    /// project (an argument such as `../../etc`, or a skill that was never validated): the
    /// agent would write outside the project it works in.
    TargetOutsideProject {
        /// Why, naming the target as filled in.
        problem: String,
    },
    /// A value is longer than [`RenderLimits::max_value_bytes`].
    TooLong {
        /// The argument.
        name: String,
        /// The value's length in bytes.
        length: usize,
        /// The limit.
        limit: usize,
    },
    /// With these values the rendered skill would pass one of the [`RenderLimits`].
    TooLarge {
        /// Which limit, and how much it allows.
        exceeded: Exceeded,
        /// The limits of the render.
        limits: RenderLimits,
    },
}

impl fmt::Display for ArgProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgProblem::Missing {
                name,
                description: Some(description),
            } => {
                write!(f, "missing required argument `{name}`: {description}")
            }
            ArgProblem::Missing {
                name,
                description: None,
            } => write!(f, "missing required argument `{name}`"),
            ArgProblem::WrongType {
                name,
                expected,
                given,
            } => {
                write!(f, "argument `{name}` must be a {expected}, got {given}")
            }
            ArgProblem::NotAllowed {
                name,
                given,
                allowed,
            } => {
                write!(
                    f,
                    "argument `{name}` must be one of {}, got `{given}`",
                    quoted_list(allowed)
                )
            }
            ArgProblem::Unknown { name, known } if known.is_empty() => {
                write!(
                    f,
                    "unknown argument `{name}`: this skill takes no arguments"
                )
            }
            ArgProblem::Unknown { name, known } => {
                write!(
                    f,
                    "unknown argument `{name}`; the arguments are {}",
                    quoted_list(known)
                )
            }
            ArgProblem::TargetOutsideProject { problem } => f.write_str(problem),
            ArgProblem::TooLong {
                name,
                length,
                limit,
            } => write!(
                f,
                "argument `{name}` is {length} bytes long; the limit is {limit} bytes"
            ),
            ArgProblem::TooLarge {
                exceeded: Exceeded::Output,
                limits,
            } => write!(
                f,
                "with these values the rendered skill would be over {} bytes, the limit of one render; give shorter values",
                limits.max_output_bytes
            ),
            ArgProblem::TooLarge {
                exceeded: Exceeded::Substitutions,
                limits,
            } => write!(
                f,
                "the skill has more than {} placeholders to fill, the limit of one render",
                limits.max_substitutions
            ),
        }
    }
}

fn quoted_list(values: &[String]) -> String {
    values
        .iter()
        .map(|value| format!("`{value}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The most problems an [`ArgumentsError`] lists; the rest are counted.
pub const MAX_LISTED_PROBLEMS: usize = 20;

/// The arguments of a call could not be used; nothing was rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentsError {
    /// Every problem found.
    pub problems: Vec<ArgProblem>,
}

impl fmt::Display for ArgumentsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        writeln!(
            f,
            "the arguments have {count} {}:",
            if count == 1 { "problem" } else { "problems" }
        )?;
        // A call with thousands of bad arguments gets the first few and a count, not a list as
        // long as the call.
        for problem in self.problems.iter().take(MAX_LISTED_PROBLEMS) {
            writeln!(f, "- {problem}")?;
        }
        if count > MAX_LISTED_PROBLEMS {
            writeln!(f, "- … and {} more problems", count - MAX_LISTED_PROBLEMS)?;
        }
        Ok(())
    }
}

impl std::error::Error for ArgumentsError {}

impl ArgumentsError {
    /// A render that would pass `limits`: its one problem.
    pub(crate) fn too_large(exceeded: Exceeded, limits: &RenderLimits) -> ArgumentsError {
        ArgumentsError {
            problems: vec![ArgProblem::TooLarge {
                exceeded,
                limits: *limits,
            }],
        }
    }
}

/// Checks and completes the arguments of a call: defaults applied, values coerced to their
/// types, each within [`RenderLimits::max_value_bytes`]. Every problem is reported, never just
/// the first.
pub fn resolve_args(
    args: &[Arg],
    given: &serde_json::Map<String, serde_json::Value>,
    limits: &RenderLimits,
) -> Result<Vec<ResolvedArg>, ArgumentsError> {
    let mut problems = Vec::new();
    let known: Vec<String> = args.iter().map(|arg| arg.name.clone()).collect();
    for name in given.keys() {
        if !known.contains(name) {
            problems.push(ArgProblem::Unknown {
                name: name.clone(),
                known: known.clone(),
            });
        }
    }
    let mut resolved = Vec::with_capacity(args.len());
    for arg in args {
        let provided = given.get(&arg.name).filter(|value| is_given(Some(value)));
        let (value, defaulted) = match (provided, &arg.default) {
            (Some(value), _) => (value.clone(), false),
            (None, Some(default)) => (serde_json::Value::String(default.clone()), true),
            (None, None) => {
                if arg.required {
                    problems.push(ArgProblem::Missing {
                        name: arg.name.clone(),
                        description: arg.description.clone(),
                    });
                }
                resolved.push(ResolvedArg {
                    arg: arg.clone(),
                    value: None,
                    defaulted: false,
                });
                continue;
            }
        };
        let Some(coerced) = coerce(arg.arg_type, &value) else {
            problems.push(ArgProblem::WrongType {
                name: arg.name.clone(),
                expected: arg.arg_type.as_str(),
                given: value.to_string(),
            });
            continue;
        };
        if coerced.text.len() > limits.max_value_bytes {
            problems.push(ArgProblem::TooLong {
                name: arg.name.clone(),
                length: coerced.text.len(),
                limit: limits.max_value_bytes,
            });
            continue;
        }
        if let Some(allowed) = &arg.allowed
            && !allowed
                .iter()
                .any(|candidate| same_value(arg, candidate, &coerced.json))
        {
            problems.push(ArgProblem::NotAllowed {
                name: arg.name.clone(),
                given: coerced.text,
                allowed: allowed.clone(),
            });
            continue;
        }
        resolved.push(ResolvedArg {
            arg: arg.clone(),
            value: Some(coerced.text),
            defaulted,
        });
    }
    if problems.is_empty() {
        Ok(resolved)
    } else {
        Err(ArgumentsError { problems })
    }
}

/// Whether the allowed value `candidate` (as written in `enum`) equals `value`: numbers by
/// value (`30` is `30.0`), everything else exactly.
fn same_value(arg: &Arg, candidate: &str, value: &serde_json::Value) -> bool {
    coerce(
        arg.arg_type,
        &serde_json::Value::String(candidate.to_owned()),
    )
    .is_some_and(|c| match (&c.json, value) {
        (serde_json::Value::Number(a), serde_json::Value::Number(b)) => a.as_f64() == b.as_f64(),
        (a, b) => a == b,
    })
}

/// What rendering produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The markdown: the body with everything applied, and a closing note of the arguments.
    pub markdown: String,
    /// Problems that did not stop rendering (a template file that is missing), also shown
    /// in the markdown.
    pub warnings: Vec<String>,
}

/// Renders `skill` with the arguments `given` within the default [`RenderLimits`]; template
/// files come from `templates` (the skill's folder, or its stored files).
pub fn render<T: TemplateSource + ?Sized>(
    skill: &SkillMd,
    golden: &GoldenSkill,
    templates: &T,
    given: &serde_json::Map<String, serde_json::Value>,
) -> Result<Rendered, ArgumentsError> {
    render_within(skill, golden, templates, given, &RenderLimits::default())
}

/// [`render`] within `limits`.
pub fn render_within<T: TemplateSource + ?Sized>(
    skill: &SkillMd,
    golden: &GoldenSkill,
    templates: &T,
    given: &serde_json::Map<String, serde_json::Value>,
    limits: &RenderLimits,
) -> Result<Rendered, ArgumentsError> {
    let values = Values::new(resolve_args(&golden.args, given, limits)?);
    let escaping: Vec<ArgProblem> = golden
        .body
        .template_refs()
        .filter(|reference| {
            reference
                .condition
                .as_ref()
                .is_none_or(|condition| values.condition(&condition.value))
        })
        .filter_map(|reference| {
            let target = templates::substitute(&reference.target.as_ref()?.value, &values);
            let problem = templates::target_outside_project(&target)?;
            Some(ArgProblem::TargetOutsideProject { problem })
        })
        .collect();
    if !escaping.is_empty() {
        return Err(ArgumentsError { problems: escaping });
    }
    let too_large = |exceeded| ArgumentsError::too_large(exceeded, limits);
    let mut budget = Budget::new(limits);
    let text = &skill.file.text;
    let mut markdown = String::new();
    let mut warnings = Vec::new();
    let mut cursor = skill.body.start;
    for reference in golden.body.template_refs() {
        templates::substitute_into(
            &mut markdown,
            &text[cursor..reference.lines.start],
            &values,
            &mut budget,
        )
        .map_err(too_large)?;
        cursor = reference.lines.end;
        if reference
            .condition
            .as_ref()
            .is_some_and(|condition| !values.condition(&condition.value))
        {
            // Dropped with its lines; also drop the blank line after it, so no gap is left.
            if markdown.ends_with("\n\n") && text[cursor..].starts_with('\n') {
                cursor += 1;
            } else if markdown.ends_with("\n\n") && text[cursor..].starts_with("\r\n") {
                cursor += 2;
            }
            continue;
        }
        render_reference(
            skill,
            reference,
            templates,
            &values,
            &mut markdown,
            &mut warnings,
            &mut budget,
        )
        .map_err(too_large)?;
    }
    templates::substitute_into(
        &mut markdown,
        &text[cursor..skill.body.end],
        &values,
        &mut budget,
    )
    .map_err(too_large)?;

    let mut markdown = markdown
        .trim_start_matches(['\n', '\r'])
        .trim_end()
        .to_owned();
    markdown.push('\n');
    if !values.resolved().is_empty() {
        budget
            .push(&mut markdown, &arguments_note(values.resolved()))
            .map_err(too_large)?;
    }
    Ok(Rendered { markdown, warnings })
}

/// The reference's lines (its condition, now true, left out), then the template inlined,
/// within `budget`.
fn render_reference<T: TemplateSource + ?Sized>(
    skill: &SkillMd,
    reference: &TemplateRef,
    templates: &T,
    values: &Values,
    out: &mut String,
    warnings: &mut Vec<String>,
    budget: &mut Budget,
) -> Result<(), Exceeded> {
    let text = &skill.file.text;
    for line in text[reference.lines.clone()].split_inclusive('\n') {
        if !line.trim_start().starts_with("**Condition:**") {
            templates::substitute_into(out, line, values, budget)?;
        }
    }
    if !out.ends_with('\n') {
        budget.push(out, "\n")?;
    }
    match templates.template(&reference.template.value) {
        Ok(content) => {
            let processed = templates::process(&content, values, budget)?;
            let fence = templates::fence_for(&processed);
            let language = templates::language(&reference.template.value);
            let newline = if processed.ends_with('\n') { "" } else { "\n" };
            // `processed` is counted already; the fences and the language are counted here.
            budget.push(out, &format!("\n{fence}{language}\n"))?;
            out.push_str(&processed);
            budget.push(out, &format!("{newline}{fence}\n"))?;
        }
        Err(problem) => {
            let warning = format!("template `{}` {problem}", reference.template.value);
            budget.push(
                out,
                &format!("\n> **Warning:** {warning}; its content is not shown.\n"),
            )?;
            warnings.push(warning);
        }
    }
    Ok(())
}

/// The closing note: every argument's value, and which ones are defaults.
fn arguments_note(resolved: &[ResolvedArg]) -> String {
    let mut note = String::from("\n---\n\n**Arguments:**\n");
    for arg in resolved {
        let _ = match (&arg.value, arg.defaulted) {
            (Some(value), true) => writeln!(note, "- `{}` = `{value}` (default)", arg.arg.name),
            (Some(value), false) => writeln!(note, "- `{}` = `{value}`", arg.arg.name),
            (None, _) => writeln!(
                note,
                "- `{}`: not given; `{{{}}}` is left as written",
                arg.arg.name,
                arg.arg.placeholder()
            ),
        };
    }
    note
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden_path::args::ArgType;

    fn arg(
        name: &str,
        arg_type: ArgType,
        required: bool,
        allowed: Option<&[&str]>,
        default: Option<&str>,
    ) -> Arg {
        Arg {
            name: name.into(),
            description: Some(format!("the {name}")),
            required,
            arg_type,
            allowed: allowed.map(|values| values.iter().map(|v| (*v).to_owned()).collect()),
            default: default.map(str::to_owned),
        }
    }

    fn seed_args() -> Vec<Arg> {
        vec![
            arg("service_name", ArgType::String, true, None, None),
            arg(
                "cache_provider",
                ArgType::String,
                false,
                Some(&["redis", "memory"]),
                Some("redis"),
            ),
            arg("ttl_minutes", ArgType::Number, false, None, Some("30")),
        ]
    }

    fn given(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn defaults_apply_and_strings_coerce() {
        let resolved = resolve_args(
            &seed_args(),
            &given(serde_json::json!({"service_name": "Orders", "ttl_minutes": "45"})),
            &RenderLimits::default(),
        )
        .expect("valid");
        let values: Vec<(&str, Option<&str>, bool)> = resolved
            .iter()
            .map(|r| (r.arg.name.as_str(), r.value.as_deref(), r.defaulted))
            .collect();
        assert_eq!(
            values,
            [
                ("service_name", Some("Orders"), false),
                ("cache_provider", Some("redis"), true),
                ("ttl_minutes", Some("45"), false)
            ]
        );
    }

    #[test]
    fn every_problem_is_reported() {
        let error = resolve_args(
            &seed_args(),
            &given(serde_json::json!({"cache_provider": "memcached", "ttl_minutes": "soon", "colour": "blue"})),
            &RenderLimits::default(),
        )
        .expect_err("invalid");
        assert_eq!(
            error.to_string(),
            "the arguments have 4 problems:\n\
             - unknown argument `colour`; the arguments are `service_name`, `cache_provider`, `ttl_minutes`\n\
             - missing required argument `service_name`: the service_name\n\
             - argument `cache_provider` must be one of `redis`, `memory`, got `memcached`\n\
             - argument `ttl_minutes` must be a number, got \"soon\"\n"
        );
    }

    #[test]
    fn blank_strings_count_as_missing_and_numbers_compare_by_value() {
        let error = resolve_args(
            &seed_args(),
            &given(serde_json::json!({"service_name": "  "})),
            &RenderLimits::default(),
        )
        .expect_err("missing");
        assert!(matches!(error.problems[0], ArgProblem::Missing { .. }));
        let numbers = [arg(
            "level",
            ArgType::Number,
            true,
            Some(&["1", "2.5"]),
            None,
        )];
        assert!(
            resolve_args(
                &numbers,
                &given(serde_json::json!({"level": 2.50})),
                &RenderLimits::default()
            )
            .is_ok()
        );
        assert!(
            resolve_args(
                &numbers,
                &given(serde_json::json!({"level": "1.0"})),
                &RenderLimits::default()
            )
            .is_ok()
        );
        assert!(
            resolve_args(
                &numbers,
                &given(serde_json::json!({"level": 3})),
                &RenderLimits::default()
            )
            .is_err()
        );
    }
}
