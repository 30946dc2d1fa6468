//! What a call of a skill could ask its user for: the arguments it is missing or got wrong,
//! which a form can fill in, instead of the call failing with a list of problems the model
//! can only guess its way through. A server that can ask (MCP elicitation) shows these as a
//! form, merges the answers into the call's arguments with [`answered`], and renders as usual,
//! so the answers pass the same checks as arguments.
//!
//! A call whose problems a form cannot fix (an argument the skill does not take, a target
//! outside the project, a render over its limits) asks nothing: the model gets the problems.

use super::args::{Arg, coerce, is_given};
use super::render::{ArgProblem, RenderLimits, resolve_args};
use crate::skill_md::SkillMd;

/// The `metadata` key a skill sets to [`ASK_OPTIONAL`] to be asked for its optional
/// arguments too, where the server asks for them (`skillpath serve --elicit always`).
pub const ASK_KEY: &str = "elicit";

/// The value of [`ASK_KEY`] that asks for the optional arguments a call left out.
pub const ASK_OPTIONAL: &str = "optional";

/// The names of the arguments `questions` ask for.
pub fn names(questions: &[Question]) -> impl Iterator<Item = &str> {
    questions.iter().map(|question| question.arg.name.as_str())
}

/// Whether `skill` asks for its optional arguments too (`metadata: {elicit: optional}`).
pub fn asks_optional(skill: &SkillMd) -> bool {
    skill
        .field("metadata")
        .and_then(|entry| entry.value.get(ASK_KEY))
        .and_then(|entry| entry.value.as_scalar())
        .is_some_and(|scalar| scalar.text == ASK_OPTIONAL)
}

/// One argument to ask the user for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The argument.
    pub arg: Arg,
    /// What was wrong with the value the call gave, as the call's error would say it; `None`
    /// for an optional argument the call left out.
    pub problem: Option<String>,
}

/// The questions of a call of a skill taking `args` with the values `given`: the arguments
/// missing or wrong, each once and in the order the skill declares them, then (with
/// `optional_too`) the optional ones the call left out. `None` when there is nothing to ask,
/// or when the call has a problem no answer can fix.
pub fn questions(
    args: &[Arg],
    given: &serde_json::Map<String, serde_json::Value>,
    limits: &RenderLimits,
    optional_too: bool,
) -> Option<Vec<Question>> {
    let problems = match resolve_args(args, given, limits) {
        Ok(_) => Vec::new(),
        Err(error) => error.problems,
    };
    let mut by_name = Vec::with_capacity(problems.len());
    for problem in &problems {
        let name = match problem {
            ArgProblem::Missing { name, .. }
            | ArgProblem::WrongType { name, .. }
            | ArgProblem::NotAllowed { name, .. }
            | ArgProblem::TooLong { name, .. } => name,
            ArgProblem::Unknown { .. }
            | ArgProblem::TargetOutsideProject { .. }
            | ArgProblem::TooLarge { .. } => return None,
        };
        by_name.push((name.as_str(), problem.to_string()));
    }
    let questions: Vec<Question> = args
        .iter()
        .filter_map(|arg| {
            let problem = by_name
                .iter()
                .find(|(name, _)| *name == arg.name)
                .map(|(_, problem)| problem.clone());
            let left_out = optional_too && !arg.required && !is_given(given.get(&arg.name));
            (problem.is_some() || left_out).then(|| Question {
                arg: arg.clone(),
                problem,
            })
        })
        .collect();
    (!questions.is_empty()).then_some(questions)
}

/// The arguments of a call once the user answered the arguments named `asked`: `given` with
/// each asked argument's answer in its place. Only the asked arguments are taken from `answers`
/// (a form answer cannot add or change anything else); an answer left blank drops the call's
/// value, so an optional argument falls back to its default and a required one is asked again.
pub fn answered<'a>(
    given: &serde_json::Map<String, serde_json::Value>,
    asked: impl IntoIterator<Item = &'a str>,
    answers: &serde_json::Map<String, serde_json::Value>,
) -> serde_json::Map<String, serde_json::Value> {
    let mut merged = given.clone();
    for name in asked {
        match answers.get(name) {
            Some(answer) if is_given(Some(answer)) => {
                merged.insert(name.to_owned(), answer.clone());
            }
            Some(_) => {
                merged.remove(name);
            }
            None => {}
        }
    }
    merged
}

/// The value a form shows for `arg` before the user types: its default, of its type (a
/// number `30`, a boolean `true`); `None` without one.
pub fn default_value(arg: &Arg) -> Option<serde_json::Value> {
    let default = arg.default.as_ref()?;
    coerce(arg.arg_type, &serde_json::Value::String(default.clone())).map(|coerced| coerced.json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden_path::args::ArgType;
    use serde_json::json;

    fn arg(name: &str, required: bool) -> Arg {
        Arg {
            name: name.to_owned(),
            description: Some(format!("the {name}")),
            required,
            arg_type: ArgType::String,
            allowed: None,
            default: None,
        }
    }

    fn caching_args() -> Vec<Arg> {
        vec![
            arg("service_name", true),
            Arg {
                allowed: Some(vec!["redis".into(), "memory".into()]),
                default: Some("redis".into()),
                ..arg("cache_provider", false)
            },
            Arg {
                arg_type: ArgType::Number,
                default: Some("30".into()),
                ..arg("ttl_minutes", false)
            },
        ]
    }

    fn object(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    fn asked_names(questions: &[Question]) -> Vec<&str> {
        names(questions).collect()
    }

    #[test]
    fn a_call_missing_an_argument_and_with_a_value_outside_the_enum_asks_for_both() {
        let given = object(json!({"cache_provider": "memcached"}));
        let questions =
            questions(&caching_args(), &given, &RenderLimits::default(), false).expect("questions");
        assert_eq!(asked_names(&questions), ["service_name", "cache_provider"]);
        assert_eq!(
            questions[0].problem.as_deref(),
            Some("missing required argument `service_name`: the service_name")
        );
        assert_eq!(
            questions[1].problem.as_deref(),
            Some("argument `cache_provider` must be one of `redis`, `memory`, got `memcached`")
        );
    }

    #[test]
    fn a_complete_call_asks_nothing_unless_optional_arguments_are_asked_for() {
        let given = object(json!({"service_name": "Orders"}));
        let limits = RenderLimits::default();
        assert_eq!(questions(&caching_args(), &given, &limits, false), None);
        let optional = questions(&caching_args(), &given, &limits, true).expect("questions");
        assert_eq!(asked_names(&optional), ["cache_provider", "ttl_minutes"]);
        assert!(optional.iter().all(|q| q.problem.is_none()));
    }

    #[test]
    fn problems_no_answer_can_fix_ask_nothing() {
        let given = object(json!({"colour": "red"}));
        assert_eq!(
            questions(&caching_args(), &given, &RenderLimits::default(), true),
            None
        );
    }

    #[test]
    fn a_value_over_the_limit_and_a_wrong_type_are_asked_again() {
        let limits = RenderLimits {
            max_value_bytes: 5,
            ..RenderLimits::default()
        };
        let given = object(json!({"service_name": "Orders", "ttl_minutes": "soon"}));
        let questions = questions(&caching_args(), &given, &limits, false).expect("questions");
        assert_eq!(asked_names(&questions), ["service_name", "ttl_minutes"]);
        assert!(
            questions[0]
                .problem
                .as_deref()
                .is_some_and(|p| p.contains("limit is 5"))
        );
        assert!(
            questions[1]
                .problem
                .as_deref()
                .is_some_and(|p| p.contains("must be a number"))
        );
    }

    #[test]
    fn answers_replace_only_what_was_asked() {
        let given = object(json!({"cache_provider": "memcached", "ttl_minutes": 5}));
        let asked =
            questions(&caching_args(), &given, &RenderLimits::default(), false).expect("questions");
        let answers = object(json!({
            "service_name": "Orders",
            "cache_provider": "memory",
            "ttl_minutes": 999,
            "colour": "red"
        }));
        let merged = answered(&given, names(&asked), &answers);
        assert_eq!(
            serde_json::Value::Object(merged),
            json!({"cache_provider": "memory", "ttl_minutes": 5, "service_name": "Orders"})
        );
    }

    #[test]
    fn a_blank_answer_drops_the_call_s_value() {
        let given = object(json!({"service_name": "Orders", "cache_provider": "x"}));
        let asked =
            questions(&caching_args(), &given, &RenderLimits::default(), false).expect("questions");
        let merged = answered(
            &given,
            names(&asked),
            &object(json!({"cache_provider": " "})),
        );
        assert_eq!(
            serde_json::Value::Object(merged),
            json!({"service_name": "Orders"})
        );
    }

    #[test]
    fn defaults_are_of_their_type() {
        let args = caching_args();
        assert_eq!(default_value(&args[1]), Some(json!("redis")));
        assert_eq!(default_value(&args[2]), Some(json!(30)));
        assert_eq!(default_value(&args[0]), None);
    }

    #[test]
    fn the_skill_flag_is_read_from_metadata() {
        let read = |text: &str| {
            asks_optional(&crate::skill_md::parse(
                "SKILL.md".into(),
                text.to_owned(),
                crate::Mode::Lenient,
            ))
        };
        assert!(read(
            "---\nname: a\ndescription: b\nmetadata:\n  elicit: optional\n---\n"
        ));
        assert!(!read(
            "---\nname: a\ndescription: b\nmetadata:\n  elicit: never\n---\n"
        ));
        assert!(!read("---\nname: a\ndescription: b\n---\n"));
    }
}
