//! The built-in tools' input schemas as agents read them: derived by schemars from each tool's
//! parameter type, in a plain form ([`input_schema`]), and the schema of a [`SkillSpec`], the
//! structured form of a skill that `create_skill`, `update_skill` and `validate_skill` take,
//! derived from the type itself with descriptions written for agents ([`spec_schema`]).

use rmcp::model::JsonObject;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::Value;
use skillpath_core::golden_path::spec::SkillSpec;

/// The input schema of parameter type `P`: every subschema inline (no `$defs` to follow), in
/// the plain form of [`plain`].
pub(crate) fn input_schema<P: JsonSchema>() -> JsonObject {
    let mut schema = generator().into_root_schema_for::<P>().to_value();
    each_schema(&mut schema, &mut plain);
    let Value::Object(mut root) = schema else {
        // Every parameter type is a struct, whose schema is an object.
        return JsonObject::new();
    };
    // The type's name and doc comment are the server's words, not the tool's description.
    root.remove("title");
    root.remove("description");
    for (key, empty) in [
        ("properties", Value::Object(JsonObject::new())),
        ("required", Value::Array(Vec::new())),
    ] {
        root.entry(key).or_insert(empty);
    }
    root
}

/// A schema generator that writes every subschema inline, without a meta-schema.
fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator()
}

/// `schema` in the plain form a model reads best, with the same meaning for the values a tool
/// takes: an optional value is its type alone (leaving it out is how a caller gives none),
/// whole numbers carry their bounds but not schemars' integer widths, a choice of strings is an
/// `enum` (not a `oneOf` of constants), and `additionalProperties: true` (the default) is left
/// out.
fn plain(schema: &mut JsonObject) {
    if let Some(Value::Array(types)) = schema.get("type") {
        let types: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if let [only] = types.as_slice() {
            schema.insert("type".to_owned(), only.clone());
        }
    }
    if let Some(Value::Array(allowed)) = schema.get_mut("enum") {
        allowed.retain(|value| !value.is_null());
    }
    if schema.get("type").is_some_and(|t| t == "integer") {
        schema.remove("format");
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(true)) {
        schema.remove("additionalProperties");
    }
    let constants: Option<Vec<Value>> =
        schema
            .get("oneOf")
            .and_then(Value::as_array)
            .and_then(|choices| {
                choices
                    .iter()
                    .map(|choice| choice.get("const").filter(|c| c.is_string()).cloned())
                    .collect()
            });
    if let Some(constants) = constants {
        schema.remove("oneOf");
        schema.insert("type".to_owned(), Value::from("string"));
        schema.insert("enum".to_owned(), Value::Array(constants));
    }
}

/// Calls `visit` on `schema` and on every schema within it (properties, items, additional
/// properties, alternatives), outermost first; never on a map of property names.
fn each_schema(schema: &mut Value, visit: &mut impl FnMut(&mut JsonObject)) {
    let Value::Object(object) = schema else {
        return;
    };
    visit(object);
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for property in properties.values_mut() {
            each_schema(property, visit);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(subschema) = object.get_mut(key) {
            each_schema(subschema, visit);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(subschemas)) = object.get_mut(key) {
            for subschema in subschemas {
                each_schema(subschema, visit);
            }
        }
    }
}

/// What agents read of a [`SkillSpec`]'s fields, by path (`phases.templates.template`: a field
/// of the items of a list). A field not named here has no description: the type's doc
/// comments and serde defaults are written for Rust, not for a model.
const SPEC_DESCRIPTIONS: &[(&str, &str)] = &[
    ("name", "kebab-case skill name, e.g. `add-caching`"),
    (
        "description",
        "What the skill does and when to use it (\"Use when …\")",
    ),
    (
        "tool_name",
        "MCP tool name when it should differ from `name`",
    ),
    (
        "args.name",
        "snake_case; `{PascalCase}` placeholder in the body",
    ),
    ("args.default", "Written as a string, coerced to the type"),
    ("title", "The `# Title` (default: the name in Title Case)"),
    ("summary", "The paragraph under the title"),
    ("sections", "`##` sections in order"),
    (
        "sections.content",
        "Markdown; checklists (`- [ ] …`) for prerequisites and success criteria",
    ),
    ("phases", "Phases of the Execution Steps"),
    (
        "phases.templates.template",
        "Template file, relative to the skill",
    ),
    (
        "phases.templates.target",
        "Where it goes, with placeholders",
    ),
    (
        "phases.templates.condition",
        "`Var=value`, `Var!=value`, `Var=a|b` or `Var`",
    ),
    ("templates", "Template files"),
];

/// The schema of a [`SkillSpec`], derived from the type (so every field it reads is there,
/// and nothing else), with the descriptions of [`SPEC_DESCRIPTIONS`].
pub(crate) fn spec_schema(generator: &mut SchemaGenerator) -> Schema {
    let mut schema = SkillSpec::json_schema(generator).to_value();
    undocumented(&mut schema);
    for (path, description) in SPEC_DESCRIPTIONS {
        if let Some(field) = spec_field(&mut schema, path) {
            field.insert("description".to_owned(), Value::from(*description));
        }
    }
    Schema::try_from(schema).unwrap_or_default()
}

/// `schema` without its descriptions and defaults, what it says of the values beside their
/// shape.
pub(crate) fn undocumented(schema: &mut Value) {
    each_schema(schema, &mut |subschema| {
        subschema.remove("description");
        subschema.remove("default");
    });
}

/// The schema of the field at `path` in the schema of a spec.
fn spec_field<'s>(schema: &'s mut Value, path: &str) -> Option<&'s mut JsonObject> {
    let mut at = schema;
    for (index, name) in path.split('.').enumerate() {
        if index > 0 && at.get("type").is_some_and(|t| t == "array") {
            at = at.get_mut("items")?;
        }
        at = at.get_mut("properties")?.get_mut(name)?;
    }
    at.as_object_mut()
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::{SPEC_DESCRIPTIONS, generator, spec_field, spec_schema};

    /// Every description names a field of the spec: a field renamed or removed in `SkillSpec`
    /// fails here rather than losing its description in silence.
    #[test]
    fn every_spec_description_names_a_field() {
        let mut schema = spec_schema(&mut generator()).to_value();
        for (path, description) in SPEC_DESCRIPTIONS {
            let field = spec_field(&mut schema, path).expect(path);
            assert_eq!(field["description"], Value::from(*description), "{path}");
        }
    }
}
