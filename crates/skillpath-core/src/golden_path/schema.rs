//! The JSON Schema (draft 2020-12) of a skill's arguments: the MCP tool's `inputSchema`.

use super::args::{Arg, ArgType, coerce};

/// The input schema: one property per argument with its type, description, allowed values and
/// typed default; `required` lists the required arguments; no other properties are allowed.
pub fn input_schema(args: &[Arg]) -> serde_json::Value {
    let mut properties = serde_json::Map::new();
    for arg in args {
        let mut property = serde_json::Map::new();
        property.insert("type".into(), arg.arg_type.as_str().into());
        if let Some(description) = &arg.description {
            property.insert("description".into(), description.clone().into());
        }
        if let Some(values) = &arg.allowed {
            let typed: Vec<serde_json::Value> = values
                .iter()
                .map(|value| typed(arg.arg_type, value))
                .collect();
            property.insert("enum".into(), typed.into());
        }
        if let Some(default) = &arg.default {
            property.insert("default".into(), typed(arg.arg_type, default));
        }
        properties.insert(arg.name.clone(), property.into());
    }
    let required: Vec<&str> = args
        .iter()
        .filter(|arg| arg.required)
        .map(|arg| arg.name.as_str())
        .collect();
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// A value written as a string in the frontmatter, as its type's JSON value (validation has
/// already checked that it coerces; a value that does not stays a string).
fn typed(arg_type: ArgType, value: &str) -> serde_json::Value {
    coerce(arg_type, &serde_json::Value::String(value.to_owned())).map_or_else(
        || serde_json::Value::String(value.to_owned()),
        |coerced| coerced.json,
    )
}
