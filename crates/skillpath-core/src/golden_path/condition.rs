//! Conditions on template references (`**Condition:** \`EndpointStyle=controller\``) and on
//! `{{#if …}}` blocks in template files.
//!
//! Grammar: `Var=value`, `Var!=value`, `Var=a|b` (any of), or a bare `Var` (truthy: set, not
//! empty and not `false`, `0` or `no`). `Var` is the `PascalCase` placeholder name or the
//! snake_case argument name. Values compare case-insensitively, after trimming.

use super::args::{Arg, placeholder_name};

/// A parsed condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// `Var=a|b`: the value is one of these.
    AnyOf {
        /// The variable as written.
        variable: String,
        /// The values, any of which matches.
        values: Vec<String>,
    },
    /// `Var!=a|b`: the value is none of these.
    NoneOf {
        /// The variable as written.
        variable: String,
        /// The values, none of which may match.
        values: Vec<String>,
    },
    /// `Var`: the value is set and not false.
    Truthy {
        /// The variable as written.
        variable: String,
    },
}

/// What is malformed in a condition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConditionProblem {
    /// The part before `=` (or the whole) is not a variable name.
    #[error("`{0}` is not a variable name (`ServiceName` or `service_name`)")]
    NotAVariable(String),
    /// `Var=`, or an empty alternative in `a||b`.
    #[error("a value after `=` is empty")]
    EmptyValue,
}

impl Condition {
    /// Parses `text`; `Err` says what is malformed.
    pub fn parse(text: &str) -> Result<Condition, ConditionProblem> {
        let text = text.trim();
        let (variable, values, negated) = match text.split_once("!=") {
            Some((variable, values)) => (variable, Some(values), true),
            None => match text.split_once('=') {
                Some((variable, values)) => (variable, Some(values), false),
                None => (text, None, false),
            },
        };
        let variable = variable.trim();
        if !is_variable(variable) {
            return Err(ConditionProblem::NotAVariable(variable.to_owned()));
        }
        let variable = variable.to_owned();
        let Some(values) = values else {
            return Ok(Condition::Truthy { variable });
        };
        let values: Vec<String> = values
            .split('|')
            .map(|value| value.trim().to_owned())
            .collect();
        if values.iter().any(String::is_empty) {
            return Err(ConditionProblem::EmptyValue);
        }
        Ok(if negated {
            Condition::NoneOf { variable, values }
        } else {
            Condition::AnyOf { variable, values }
        })
    }

    /// The variable the condition tests.
    pub fn variable(&self) -> &str {
        match self {
            Condition::AnyOf { variable, .. }
            | Condition::NoneOf { variable, .. }
            | Condition::Truthy { variable } => variable,
        }
    }

    /// The values compared with (none for a truthy test).
    pub fn values(&self) -> &[String] {
        match self {
            Condition::AnyOf { values, .. } | Condition::NoneOf { values, .. } => values,
            Condition::Truthy { .. } => &[],
        }
    }

    /// Evaluates against `value`, the variable's value (`None` when not set).
    pub fn evaluate(&self, value: Option<&str>) -> bool {
        let matches = |values: &[String]| {
            value.is_some_and(|v| {
                values
                    .iter()
                    .any(|candidate| candidate.eq_ignore_ascii_case(v.trim()))
            })
        };
        match self {
            Condition::AnyOf { values, .. } => matches(values),
            Condition::NoneOf { values, .. } => !matches(values),
            Condition::Truthy { .. } => value.is_some_and(is_truthy),
        }
    }
}

/// Whether `arg` can ever have a value equal (as conditions compare) to `value`: one of its
/// allowed values, or a value of its type.
pub fn can_equal(arg: &Arg, value: &str) -> bool {
    match &arg.allowed {
        Some(allowed) => allowed
            .iter()
            .any(|candidate| candidate.eq_ignore_ascii_case(value.trim())),
        None => super::args::coerce(arg.arg_type, &serde_json::Value::String(value.to_owned()))
            .is_some(),
    }
}

/// Whether `expression` of a `{{#if X}}` block is a flag: an allowed value of some argument
/// (`{{#if redis}}` for `cache_provider` with `enum: [redis, memory]`).
pub fn is_flag(args: &[Arg], expression: &str) -> bool {
    flag_arg(args, expression).is_some()
}

/// The argument that lists `flag` among its allowed values.
pub fn flag_arg<'a>(args: &'a [Arg], flag: &str) -> Option<&'a Arg> {
    args.iter().find(|arg| {
        arg.allowed.as_ref().is_some_and(|allowed| {
            allowed
                .iter()
                .any(|value| value.eq_ignore_ascii_case(flag.trim()))
        })
    })
}

/// Set, not empty, and not `false`, `0` or `no`.
pub fn is_truthy(value: &str) -> bool {
    let value = value.trim();
    !value.is_empty()
        && !["false", "0", "no"]
            .iter()
            .any(|falsy| value.eq_ignore_ascii_case(falsy))
}

/// `ServiceName` or `service_name`.
fn is_variable(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The argument a condition variable names: by placeholder (`ServiceName`) or by name.
pub fn find_arg<'a>(args: &'a [Arg], variable: &str) -> Option<&'a Arg> {
    args.iter()
        .find(|arg| arg.name == variable || placeholder_name(&arg.name) == variable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        assert_eq!(
            Condition::parse("EndpointStyle=controller"),
            Ok(Condition::AnyOf {
                variable: "EndpointStyle".into(),
                values: vec!["controller".into()]
            })
        );
        assert_eq!(
            Condition::parse(" Style != a | b "),
            Ok(Condition::NoneOf {
                variable: "Style".into(),
                values: vec!["a".into(), "b".into()]
            })
        );
        assert_eq!(
            Condition::parse("use_cache"),
            Ok(Condition::Truthy {
                variable: "use_cache".into()
            })
        );
        assert!(Condition::parse("=x").is_err());
        assert!(Condition::parse("Style=").is_err());
        assert!(Condition::parse("Style=a||b").is_err());
        assert!(Condition::parse("my style").is_err());
    }

    #[test]
    fn evaluation() {
        let any = Condition::parse("Style=controller|fast-endpoints").expect("parses");
        assert!(any.evaluate(Some("Controller")));
        assert!(!any.evaluate(Some("minimal-api")));
        assert!(!any.evaluate(None));
        let none = Condition::parse("Style!=controller").expect("parses");
        assert!(none.evaluate(Some("minimal-api")));
        assert!(none.evaluate(None));
        let truthy = Condition::parse("UseCache").expect("parses");
        assert!(truthy.evaluate(Some("true")));
        for falsy in ["false", "0", "No", " ", ""] {
            assert!(!truthy.evaluate(Some(falsy)), "{falsy:?}");
        }
        assert!(!truthy.evaluate(None));
    }
}
