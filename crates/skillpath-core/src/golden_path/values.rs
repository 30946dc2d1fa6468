//! The values of one call: each argument's value, by placeholder and by name, and the
//! conditions and `{{#if}}` expressions evaluated on them.

use std::collections::HashMap;

use super::args::Arg;
use super::condition::{Condition, find_arg, flag_arg, is_truthy};

/// An argument's value for this call.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedArg {
    /// The declared argument.
    pub arg: Arg,
    /// The value as substituted, when there is one.
    pub value: Option<String>,
    /// Whether the value is the argument's default.
    pub defaulted: bool,
}

/// The values of a call, by placeholder and by argument name.
pub(crate) struct Values {
    by_placeholder: HashMap<String, Option<String>>,
    args: Vec<Arg>,
    resolved: Vec<ResolvedArg>,
}

impl Values {
    pub(crate) fn new(resolved: Vec<ResolvedArg>) -> Values {
        let by_placeholder = resolved
            .iter()
            .map(|r| (r.arg.placeholder(), r.value.clone()))
            .collect();
        let args = resolved.iter().map(|r| r.arg.clone()).collect();
        Values {
            by_placeholder,
            args,
            resolved,
        }
    }

    /// Every argument with its value, in declaration order.
    pub(crate) fn resolved(&self) -> &[ResolvedArg] {
        &self.resolved
    }

    /// The value substituted for `{placeholder}`, when the argument has one.
    pub(crate) fn placeholder(&self, placeholder: &str) -> Option<&str> {
        self.by_placeholder
            .get(placeholder)
            .and_then(|value| value.as_deref())
    }

    fn variable(&self, variable: &str) -> Option<&str> {
        let arg = find_arg(&self.args, variable)?;
        self.placeholder(&arg.placeholder())
    }

    /// Evaluates a condition; a malformed one is false.
    pub(crate) fn condition(&self, text: &str) -> bool {
        Condition::parse(text)
            .is_ok_and(|condition| condition.evaluate(self.variable(condition.variable())))
    }

    /// Evaluates the expression of a `{{#if X}}` block: a condition when it contains `=` or
    /// names a variable, otherwise a flag: true when the argument that lists it among its
    /// allowed values has it (`{{#if redis}}` for `cache_provider` = `redis`).
    pub(crate) fn if_expression(&self, expression: &str) -> bool {
        let expression = expression.trim();
        if expression.contains('=') {
            return self.condition(expression);
        }
        if find_arg(&self.args, expression).is_some() {
            return self.variable(expression).is_some_and(is_truthy);
        }
        flag_arg(&self.args, expression).is_some_and(|arg| {
            self.placeholder(&arg.placeholder())
                .is_some_and(|value| value.trim().eq_ignore_ascii_case(expression))
        })
    }
}
