//! Semver for tool schemas: a skill's arguments are the API its callers (agents) depend on, so a
//! release that breaks a call that worked must be a new major version. What breaks a call: an
//! argument removed, one newly required (without a default to fall back on), a type changed, an
//! enum that no longer takes a value it took.

use super::args::Arg;

/// What `new` breaks for callers of `old`, one sentence each, in the order of `old`'s arguments
/// then `new`'s; empty when every call that `old` took, `new` takes too.
pub fn incompatible(old: &[Arg], new: &[Arg]) -> Vec<String> {
    let mut broken = Vec::new();
    for before in old {
        let Some(after) = new.iter().find(|arg| arg.name == before.name) else {
            broken.push(format!("the argument `{}` was removed", before.name));
            continue;
        };
        if after.arg_type != before.arg_type {
            broken.push(format!(
                "the argument `{}` was a {} and is a {}",
                before.name,
                before.arg_type.as_str(),
                after.arg_type.as_str()
            ));
        }
        if needs_a_value(after) && !needs_a_value(before) {
            broken.push(format!("the argument `{}` is required now", before.name));
        }
        let dropped: Vec<&String> = match (&before.allowed, &after.allowed) {
            (None, Some(_)) => {
                broken.push(format!(
                    "the argument `{}` took any value and takes only some now",
                    before.name
                ));
                Vec::new()
            }
            (Some(before_values), Some(after_values)) => before_values
                .iter()
                .filter(|value| !after_values.contains(value))
                .collect(),
            _ => Vec::new(),
        };
        if !dropped.is_empty() {
            let dropped: Vec<String> = dropped.iter().map(|value| format!("`{value}`")).collect();
            broken.push(format!(
                "the argument `{}` no longer takes {}",
                before.name,
                dropped.join(", ")
            ));
        }
    }
    for added in new {
        if needs_a_value(added) && !old.iter().any(|arg| arg.name == added.name) {
            broken.push(format!("the new argument `{}` is required", added.name));
        }
    }
    broken
}

/// Whether a call must give `arg` a value: required, with no default to fall back on.
fn needs_a_value(arg: &Arg) -> bool {
    arg.required && arg.default.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden_path::args::ArgType;

    fn arg(name: &str, required: bool, arg_type: ArgType, allowed: Option<&[&str]>) -> Arg {
        Arg {
            name: name.to_owned(),
            description: None,
            required,
            arg_type,
            allowed: allowed.map(|values| values.iter().map(|v| (*v).to_owned()).collect()),
            default: None,
        }
    }

    #[test]
    fn what_breaks_a_call_is_named_and_what_does_not_is_not() {
        let old = [
            arg("service", true, ArgType::String, None),
            arg("region", false, ArgType::String, Some(&["eu", "us", "ap"])),
            arg("dry_run", false, ArgType::Boolean, None),
            arg("replicas", false, ArgType::Number, None),
            arg("mode", false, ArgType::String, None),
        ];
        let compatible = [
            arg("service", false, ArgType::String, None),
            arg(
                "region",
                false,
                ArgType::String,
                Some(&["eu", "us", "ap", "sa"]),
            ),
            arg("dry_run", false, ArgType::Boolean, None),
            arg("replicas", false, ArgType::Number, None),
            arg("mode", false, ArgType::String, None),
            arg("notes", false, ArgType::String, None),
        ];
        assert!(incompatible(&old, &compatible).is_empty());
        let breaking = [
            arg("service", true, ArgType::String, None),
            arg("region", false, ArgType::String, Some(&["eu"])),
            arg("dry_run", true, ArgType::Boolean, None),
            arg("replicas", false, ArgType::String, None),
            arg("mode", false, ArgType::String, Some(&["fast"])),
            arg("team", true, ArgType::String, None),
        ];
        assert_eq!(
            incompatible(&old, &breaking),
            [
                "the argument `region` no longer takes `us`, `ap`",
                "the argument `dry_run` is required now",
                "the argument `replicas` was a number and is a string",
                "the argument `mode` took any value and takes only some now",
                "the new argument `team` is required",
            ]
        );
        assert_eq!(
            incompatible(&old[..1], &[]),
            ["the argument `service` was removed"]
        );
    }
}
