//! Typed arguments (`args` in the frontmatter): the model, its rules, and coercion of values.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::diagnostic::{Code, Diagnostic, SourceFile};
use crate::yaml::{self, Node, NodeKind};

/// The type of an argument's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ArgType {
    /// Any text (the default).
    #[default]
    String,
    /// `true` or `false`.
    Boolean,
    /// A number, kept in the text form the caller gave.
    Number,
}

impl ArgType {
    /// The name used in the frontmatter and in JSON Schema.
    pub fn as_str(self) -> &'static str {
        match self {
            ArgType::String => "string",
            ArgType::Boolean => "boolean",
            ArgType::Number => "number",
        }
    }

    fn parse(text: &str) -> Option<ArgType> {
        [ArgType::String, ArgType::Boolean, ArgType::Number]
            .into_iter()
            .find(|t| t.as_str() == text)
    }
}

/// One declared argument.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Arg {
    /// snake_case name; the tool parameter's name.
    pub name: String,
    /// What the argument is for; the parameter's description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether a caller must give it.
    #[serde(default)]
    pub required: bool,
    /// The value's type.
    #[serde(default, rename = "type")]
    pub arg_type: ArgType,
    /// The allowed values, when restricted.
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<String>>,
    /// The value used when none is given, written as a string and coerced to the type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl Arg {
    /// The `{PascalCase}` placeholder name of this argument.
    pub fn placeholder(&self) -> String {
        placeholder_name(&self.name)
    }
}

/// `service_name` → `ServiceName`: split on `_`, upper-case the first letter of each part.
pub fn placeholder_name(name: &str) -> String {
    name.split('_').map(capitalized).collect()
}

/// `part` with its first letter upper-cased (`name` → `Name`).
pub(crate) fn capitalized(part: &str) -> String {
    let mut chars = part.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Whether `name` follows the argument grammar `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`.
pub fn is_valid_arg_name(name: &str) -> bool {
    let mut parts = name.split('_');
    let first_ok = parts.next().is_some_and(|first| {
        first.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && first
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    });
    first_ok
        && parts.all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// Whether a call gave a value for an argument: a blank string or `null` is none, so the
/// default applies (clients send empty form fields as `""`).
pub fn is_given(value: Option<&serde_json::Value>) -> bool {
    match value {
        None | Some(serde_json::Value::Null) => false,
        Some(serde_json::Value::String(text)) => !text.trim().is_empty(),
        Some(_) => true,
    }
}

/// A value coerced to its argument's type: the JSON value and the text substituted for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Coerced {
    /// The typed value (for JSON Schema defaults and conditions).
    pub json: serde_json::Value,
    /// The text written into the rendered skill.
    pub text: String,
}

/// Coerces `value` to `arg_type`: strings such as `"true"` and `"30"` become the type they
/// spell, because LLM clients often send every value as a string. `None` when it is not of
/// the type.
pub fn coerce(arg_type: ArgType, value: &serde_json::Value) -> Option<Coerced> {
    use serde_json::Value;
    match (arg_type, value) {
        (ArgType::String, Value::String(s)) => Some(Coerced {
            json: value.clone(),
            text: s.clone(),
        }),
        (ArgType::String, Value::Number(n)) => Some(Coerced {
            json: Value::String(n.to_string()),
            text: n.to_string(),
        }),
        (ArgType::String, Value::Bool(b)) => Some(Coerced {
            json: Value::String(b.to_string()),
            text: b.to_string(),
        }),
        (ArgType::Boolean, Value::Bool(b)) => Some(Coerced {
            json: value.clone(),
            text: b.to_string(),
        }),
        (ArgType::Boolean, Value::String(s)) => {
            let b = match s.trim().to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => return None,
            };
            Some(Coerced {
                json: Value::Bool(b),
                text: b.to_string(),
            })
        }
        (ArgType::Number, Value::Number(n)) => Some(Coerced {
            json: value.clone(),
            text: n.to_string(),
        }),
        (ArgType::Number, Value::String(s)) => {
            let trimmed = s.trim();
            let number = trimmed
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite() && !trimmed.is_empty())?;
            // Keep integers integral in JSON (`30`, not `30.0`) and the caller's text as written.
            let json = match trimmed.parse::<i64>() {
                Ok(integer) => Value::from(integer),
                Err(_) => serde_json::Number::from_f64(number).map(Value::Number)?,
            };
            Some(Coerced {
                json,
                text: trimmed.to_owned(),
            })
        }
        _ => None,
    }
}

/// What a list of typed parameters is: a skill's `args`, or a package's configuration
/// `options` (read by the same rules; an option's name may be camelCase, as Golden Path's
/// `endpointStyle`, it is never required, and it has a default, which a member skill's call
/// that leaves it out gets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Params {
    /// A skill's arguments.
    Arguments,
    /// A package's configuration options.
    Options,
}

impl Params {
    /// What one is called in messages.
    fn noun(self) -> &'static str {
        match self {
            Params::Arguments => "argument",
            Params::Options => "option",
        }
    }

    /// The frontmatter field that lists them.
    fn field(self) -> &'static str {
        match self {
            Params::Arguments => "args",
            Params::Options => "options",
        }
    }
}

/// Whether `name` is an option name: camelCase (`endpointStyle`) or snake_case.
pub fn is_valid_option_name(name: &str) -> bool {
    is_valid_arg_name(name)
        || name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Reads and checks the `args` of a frontmatter. Returns the arguments that could be read and
/// the diagnostics; `args` that is absent gives no arguments.
pub(crate) fn parse_args(
    file: &SourceFile,
    args_node: Option<&Node>,
) -> (Vec<Arg>, Vec<Diagnostic>) {
    parse_params(file, args_node, Params::Arguments)
}

/// Reads and checks a list of typed parameters (`args`, or a package's `options`).
pub(crate) fn parse_params(
    file: &SourceFile,
    args_node: Option<&Node>,
    kind: Params,
) -> (Vec<Arg>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let Some(node) = args_node else {
        return (Vec::new(), diagnostics);
    };
    let items = match &node.kind {
        NodeKind::Sequence(items) => items,
        NodeKind::Scalar(scalar) if scalar.style == yaml::ScalarStyle::Empty => {
            return (Vec::new(), diagnostics);
        }
        _ => {
            diagnostics.push(
                Diagnostic::error(Code::ArgsNotAList, format!("`{}` must be a list of {}s, found {}", kind.field(), kind.noun(), node.kind_name()))
                    .with_hint(format!("write each {} as `- name: …` with `description`, `required`, `type`, `enum`, `default`", kind.noun()))
                    .at(file, node.range.clone()),
            );
            return (Vec::new(), diagnostics);
        }
    };
    let mut args = Vec::new();
    let mut declared = Declared::default();
    for item in items {
        let Some(arg) = parse_arg(file, item, kind, &mut diagnostics) else {
            continue;
        };
        if let Err((code, message)) = declared
            .add(&arg.name)
            .map_err(|(code, message)| (code, message.replacen("argument", kind.noun(), 1)))
        {
            let diagnostic = Diagnostic::error(code, message).at(file, name_range(item));
            diagnostics.push(if code == Code::ArgPlaceholderCollision {
                diagnostic.with_hint("rename one of them")
            } else {
                diagnostic
            });
            continue;
        }
        args.push(arg);
    }
    (args, diagnostics)
}

/// The names of the arguments declared so far and their placeholders, to refuse one that
/// clashes with them: a name declared twice, or two names with one placeholder (`a_1` and
/// `a1` are both `{A1}`). Reading drops such an argument, so the writer asks too.
#[derive(Debug, Default)]
pub(crate) struct Declared {
    /// Placeholder → the argument that has it.
    placeholders: HashMap<String, String>,
    names: HashSet<String>,
}

impl Declared {
    /// Records argument `name`, or says why it clashes with one declared before.
    pub(crate) fn add(&mut self, name: &str) -> Result<(), (Code, String)> {
        if self.names.contains(name) {
            return Err((
                Code::ArgDuplicate,
                format!("argument `{name}` is declared twice"),
            ));
        }
        let placeholder = placeholder_name(name);
        if let Some(other) = self.placeholders.get(&placeholder) {
            return Err((
                Code::ArgPlaceholderCollision,
                format!(
                    "arguments `{other}` and `{name}` both map to the placeholder `{{{placeholder}}}`"
                ),
            ));
        }
        self.names.insert(name.to_owned());
        self.placeholders.insert(placeholder, name.to_owned());
        Ok(())
    }
}

const ARG_FIELDS: [&str; 6] = ["name", "description", "required", "type", "enum", "default"];

fn name_range(item: &Node) -> Range<usize> {
    item.get("name")
        .map_or(item.range.clone(), |entry| entry.value.range.clone())
}

fn scalar_text(node: &Node) -> Option<&str> {
    node.as_scalar().map(|scalar| scalar.text.as_str())
}

fn parse_arg(
    file: &SourceFile,
    item: &Node,
    kind: Params,
    out: &mut Vec<Diagnostic>,
) -> Option<Arg> {
    let noun = kind.noun();
    let NodeKind::Mapping(entries) = &item.kind else {
        out.push(
            Diagnostic::error(
                Code::ArgNotAMapping,
                format!("each {noun} must be a mapping, found {}", item.kind_name()),
            )
            .with_hint(
                "write `- name: service_name` and the argument's other fields, indented under it",
            )
            .at(file, item.range.clone()),
        );
        return None;
    };
    for entry in entries {
        let key = scalar_text(&entry.key).unwrap_or("?");
        let known = ARG_FIELDS.contains(&key) && !(kind == Params::Options && key == "required");
        if !known {
            out.push(
                Diagnostic::warning(Code::ArgFieldUnknown, format!("unknown {noun} field `{key}`"))
                    .with_hint(match kind {
                        Params::Arguments => "argument fields are `name`, `description`, `required`, `type`, `enum` and `default`",
                        Params::Options => "option fields are `name`, `description`, `type`, `enum` and `default` (an option is never required: it has a default)",
                    })
                    .at(file, entry.key.range.clone()),
            );
        }
    }
    let Some(name_entry) = item.get("name") else {
        out.push(
            Diagnostic::error(Code::ArgNameMissing, format!("an {noun} has no `name`"))
                .at(file, item.range.clone()),
        );
        return None;
    };
    let name = match scalar_text(&name_entry.value) {
        Some(name) if kind == Params::Arguments && is_valid_arg_name(name) => name.to_owned(),
        Some(name) if kind == Params::Options && is_valid_option_name(name) => name.to_owned(),
        other => {
            let (rule, hint) = match kind {
                Params::Arguments => (
                    "snake_case",
                    "use lowercase letters, digits and single underscores, starting with a letter: `service_name`",
                ),
                Params::Options => (
                    "camelCase or snake_case",
                    "start with a lowercase letter, then letters and digits (`endpointStyle`) or snake_case (`id_strategy`)",
                ),
            };
            out.push(
                Diagnostic::error(
                    Code::ArgNameInvalid,
                    format!("{noun} name `{}` is not {rule}", other.unwrap_or_default()),
                )
                .with_hint(hint)
                .at(file, name_entry.value.range.clone()),
            );
            return None;
        }
    };
    let description = item
        .get("description")
        .and_then(|e| scalar_text(&e.value))
        .map(str::to_owned);
    if description.as_deref().is_none_or(|d| d.trim().is_empty()) {
        out.push(
            Diagnostic::warning(
                Code::ArgDescriptionMissing,
                format!("{noun} `{name}` has no description"),
            )
            .with_hint("say what the argument is for; agents see it as the parameter's description")
            .at(file, name_entry.value.range.clone()),
        );
    }
    let required = match item.get("required").filter(|_| kind == Params::Arguments) {
        None => false,
        Some(entry) => match yaml::to_json(&entry.value) {
            serde_json::Value::Bool(b) => b,
            _ => {
                out.push(
                    Diagnostic::error(
                        Code::ArgRequiredNotBoolean,
                        format!("`required` of argument `{name}` must be `true` or `false`"),
                    )
                    .at(file, entry.value.range.clone()),
                );
                false
            }
        },
    };
    let arg_type = match item.get("type") {
        None => ArgType::String,
        Some(entry) => match scalar_text(&entry.value).and_then(ArgType::parse) {
            Some(arg_type) => arg_type,
            None => {
                out.push(
                    Diagnostic::error(
                        Code::ArgTypeUnknown,
                        format!(
                            "{noun} `{name}` has an unknown type `{}`",
                            scalar_text(&entry.value).unwrap_or("?")
                        ),
                    )
                    .with_hint("use `string`, `boolean` or `number`")
                    .at(file, entry.value.range.clone()),
                );
                return None;
            }
        },
    };
    let allowed = match item.get("enum") {
        None => None,
        Some(entry) => Some(parse_enum(file, &name, noun, arg_type, &entry.value, out)?),
    };
    let default = match item.get("default") {
        None => None,
        Some(entry) => {
            let Some(text) = scalar_text(&entry.value) else {
                out.push(
                    Diagnostic::error(
                        Code::ArgDefaultInvalid,
                        format!("the default of {noun} `{name}` must be a single value"),
                    )
                    .at(file, entry.value.range.clone()),
                );
                return None;
            };
            if let Some((code, message)) =
                default_problem(&name, arg_type, allowed.as_deref(), text)
            {
                let message = message.replacen("argument", noun, 1);
                out.push(Diagnostic::error(code, message).at(file, entry.value.range.clone()));
                return None;
            }
            if required {
                out.push(
                    Diagnostic::warning(
                        Code::ArgRequiredWithDefault,
                        format!("argument `{name}` is required, so its default is never used"),
                    )
                    .with_hint("make it optional (`required: false`) or remove the default")
                    .at(file, entry.value.range.clone()),
                );
            }
            Some(text.to_owned())
        }
    };
    if kind == Params::Options && default.is_none() {
        out.push(
            Diagnostic::error(
                Code::OptionDefaultMissing,
                format!("option `{name}` has no default"),
            )
            .with_hint(
                "give it a `default`: a member skill's call that leaves the option out gets it",
            )
            .at(file, name_entry.value.range.clone()),
        );
        return None;
    }
    Some(Arg {
        name,
        description,
        required,
        arg_type,
        allowed,
        default,
    })
}

/// Why the allowed values of argument `name` are not valid (an error that drops the argument
/// on reading): none, one not of the type, or one listed twice. The writer asks too, so that
/// it never writes an argument that would not read back.
pub(crate) fn enum_problem(name: &str, arg_type: ArgType, values: &[String]) -> Option<String> {
    if values.is_empty() {
        return Some(format!("the `enum` of argument `{name}` is empty"));
    }
    for (index, text) in values.iter().enumerate() {
        if coerce(arg_type, &serde_json::Value::String(text.clone())).is_none() {
            return Some(format!(
                "the allowed value `{text}` of argument `{name}` is not a {}",
                arg_type.as_str()
            ));
        }
        if values[..index].contains(text) {
            return Some(format!(
                "the `enum` of argument `{name}` lists `{text}` twice"
            ));
        }
    }
    None
}

/// Why `default` cannot be the default of argument `name` (an error that drops the argument
/// on reading): not of the type, or not one of the allowed values. Shared with the writer.
pub(crate) fn default_problem(
    name: &str,
    arg_type: ArgType,
    allowed: Option<&[String]>,
    default: &str,
) -> Option<(Code, String)> {
    if coerce(arg_type, &serde_json::Value::String(default.to_owned())).is_none() {
        return Some((
            Code::ArgDefaultInvalid,
            format!(
                "the default `{default}` of argument `{name}` is not a {}",
                arg_type.as_str()
            ),
        ));
    }
    if let Some(values) = allowed
        && !values.iter().any(|value| value == default)
    {
        return Some((
            Code::ArgDefaultNotInEnum,
            format!(
                "the default `{default}` of argument `{name}` is not one of its allowed values: {}",
                values.join(", ")
            ),
        ));
    }
    None
}

fn parse_enum(
    file: &SourceFile,
    name: &str,
    noun: &str,
    arg_type: ArgType,
    node: &Node,
    out: &mut Vec<Diagnostic>,
) -> Option<Vec<String>> {
    let invalid = |message: String| {
        Diagnostic::error(Code::ArgEnumInvalid, message).at(file, node.range.clone())
    };
    let NodeKind::Sequence(items) = &node.kind else {
        out.push(invalid(format!(
            "the `enum` of {noun} `{name}` must be a list of values"
        )));
        return None;
    };
    let mut values: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let Some(text) = scalar_text(item) else {
            out.push(invalid(format!(
                "the `enum` of {noun} `{name}` may only hold single values"
            )));
            return None;
        };
        values.push(text.to_owned());
    }
    if let Some(message) = enum_problem(name, arg_type, &values) {
        out.push(invalid(message));
        return None;
    }
    Some(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_pascal_case() {
        assert_eq!(placeholder_name("service_name"), "ServiceName");
        assert_eq!(placeholder_name("ttl_minutes"), "TtlMinutes");
        assert_eq!(placeholder_name("oauth2_client"), "Oauth2Client");
        assert_eq!(placeholder_name("v_2"), placeholder_name("v2"));
    }

    #[test]
    fn arg_name_grammar() {
        for good in ["a", "service_name", "v2", "a_1b"] {
            assert!(is_valid_arg_name(good), "{good}");
        }
        for bad in ["", "Service", "_a", "a_", "a__b", "2a", "a-b", "ä"] {
            assert!(!is_valid_arg_name(bad), "{bad}");
        }
    }

    #[test]
    fn coercion_accepts_strings_that_spell_the_type() {
        use serde_json::json;
        assert_eq!(
            coerce(ArgType::Number, &json!("30")).map(|c| (c.json, c.text)),
            Some((json!(30), "30".into()))
        );
        assert_eq!(
            coerce(ArgType::Number, &json!(2.5)).map(|c| c.text),
            Some("2.5".into())
        );
        assert_eq!(coerce(ArgType::Number, &json!("thirty")), None);
        assert_eq!(coerce(ArgType::Number, &json!(true)), None);
        assert_eq!(
            coerce(ArgType::Boolean, &json!("TRUE")).map(|c| c.json),
            Some(json!(true))
        );
        assert_eq!(coerce(ArgType::Boolean, &json!("yes")), None);
        assert_eq!(
            coerce(ArgType::String, &json!(5)).map(|c| c.text),
            Some("5".into())
        );
        assert_eq!(coerce(ArgType::String, &json!(["a"])), None);
    }
}
