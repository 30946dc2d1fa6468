//! The official MCP conformance suite's fixtures, served next to the skills only with
//! `skillpath serve --conformance-fixtures` (for that suite, never for users).
//!
//! Many of the suite's scenarios do not test how a server behaves in general: they call tools,
//! resources and prompts that a conformance test server is expected to register
//! (`test_simple_text`, `test://static-text`, `test_simple_prompt`, ...) and compare what comes
//! back. skillpath serves skills, so without these it cannot pass them; with them, the suite
//! exercises the same handler, transport and content types a skill uses. Every definition and
//! behaviour lives here; the handler that serves them first ([`crate::conformance`]) wraps the
//! server's own, which knows nothing of them.
//!
//! Not offered, on purpose: sampling, elicitation, logging, the tasks extension and
//! input-required results, which skillpath does not implement.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock, GetPromptResult,
    JsonObject, ProgressNotificationParam, Prompt, PromptArgument, PromptMessage, Resource,
    ResourceContents, ResourceTemplate, Role, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};

use crate::state::SkillServer;

/// A 1×1 red PNG.
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/// One millisecond of silence: an 8 kHz, 8-bit mono WAV of 8 samples.
const WAV: &str = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// The tool whose input schema carries JSON Schema 2020-12 keywords (SEP-1613, SEP-2106).
const JSON_SCHEMA_TOOL: &str = "json_schema_2020_12_tool";

/// The fixture tools with no arguments, and their descriptions.
const TOOLS: &[(&str, &str)] = &[
    ("test_simple_text", "Returns a simple text response"),
    ("test_image_content", "Returns a PNG image"),
    ("test_audio_content", "Returns a WAV audio clip"),
    (
        "test_embedded_resource",
        "Returns an embedded text resource",
    ),
    (
        "test_multiple_content_types",
        "Returns text, an image and an embedded resource",
    ),
    ("test_error_handling", "Always returns a tool error"),
    (
        "test_tool_with_progress",
        "Reports progress 0, 50 and 100 of 100 when given a progress token",
    ),
    (
        "test_missing_capability",
        "Needs the client's sampling capability and refuses without it (-32021)",
    ),
    (
        "test_logging_tool",
        "Would log; sends no log message unless the request asks for a log level",
    ),
    (
        "test_trigger_tool_change",
        "Tells listening clients the tool list changed",
    ),
    (
        "test_trigger_prompt_change",
        "Tells listening clients the prompt list changed",
    ),
];

/// The fixture tools, first the ones without arguments, then the JSON Schema 2020-12 one.
pub(crate) fn tools() -> Vec<Tool> {
    let empty = Arc::new(object(serde_json::json!({"type": "object"})));
    let mut tools: Vec<Tool> = TOOLS
        .iter()
        .map(|(name, description)| Tool::new(*name, *description, Arc::clone(&empty)))
        .collect();
    tools.push(Tool::new(
        JSON_SCHEMA_TOOL,
        "A tool whose input schema uses JSON Schema 2020-12 keywords",
        Arc::new(object(json_schema_2020_12())),
    ));
    tools.push(Tool::new(
        HEADER_TOOL,
        "A tool whose arguments are mirrored in Mcp-Param-* HTTP headers (SEP-2243)",
        Arc::new(object(serde_json::json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "query": {"type": "string"}
            }
        }))),
    ));
    tools
}

/// The tool with an `x-mcp-header` argument: the SDK's HTTP layer checks its `Mcp-Param-Region`
/// header against the body, which the `http-custom-header-server-validation` scenario tests.
const HEADER_TOOL: &str = "test_custom_headers";

/// The input schema the `json-schema-2020-12` scenario expects to find intact.
fn json_schema_2020_12() -> serde_json::Value {
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

fn object(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn success(content: Vec<ContentBlock>) -> Result<CallToolResponse, McpError> {
    Ok(CallToolResult::success(content).into())
}

/// Calls the fixture tool `name`; `None` when there is no such fixture.
pub(crate) async fn call(
    server: &SkillServer,
    name: &str,
    context: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, McpError>> {
    Some(match name {
        "test_simple_text" => success(vec![ContentBlock::text(
            "This is a simple text response for testing.",
        )]),
        "test_image_content" => success(vec![ContentBlock::image(PNG, "image/png")]),
        "test_audio_content" => success(vec![ContentBlock::audio(WAV, "audio/wav")]),
        "test_embedded_resource" => success(vec![ContentBlock::resource(ResourceContents::text(
            "This is an embedded resource content.",
            "test://embedded-resource",
        ))]),
        "test_multiple_content_types" => success(vec![
            ContentBlock::text("Multiple content types test:"),
            ContentBlock::image(PNG, "image/png"),
            ContentBlock::resource(
                ResourceContents::text(
                    r#"{"test":"data","value":123}"#,
                    "test://mixed-content-resource",
                )
                .with_mime_type("application/json"),
            ),
        ]),
        "test_error_handling" => Ok(CallToolResult::error(vec![ContentBlock::text(
            "This tool intentionally returns an error for testing",
        )])
        .into()),
        "test_tool_with_progress" => progress(context).await,
        "test_missing_capability" => {
            if context
                .client_capabilities()
                .is_some_and(|caps| caps.sampling.is_some())
            {
                success(vec![ContentBlock::text("The client declared sampling.")])
            } else {
                // The builder's `enable_sampling` is deprecated (SEP-2577); the field is not.
                let mut required = ClientCapabilities::default();
                required.sampling = Some(Default::default());
                Err(McpError::missing_required_client_capability(required))
            }
        }
        "test_logging_tool" => success(vec![ContentBlock::text(
            "Done; no log level was requested, so nothing was logged.",
        )]),
        "test_trigger_tool_change" | "test_trigger_prompt_change" => {
            server.announce_every_list();
            success(vec![ContentBlock::text("Listening clients were notified.")])
        }
        JSON_SCHEMA_TOOL | HEADER_TOOL => success(vec![ContentBlock::text("ok")]),
        _ => return None,
    })
}

/// `test_tool_with_progress`: 0, 50 and 100 of 100, 50 ms apart, if the request has a token.
async fn progress(context: &RequestContext<RoleServer>) -> Result<CallToolResponse, McpError> {
    let token = context.meta.get_progress_token();
    for (step, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if let Some(token) = &token {
            context
                .peer
                .notify_progress(
                    ProgressNotificationParam::new(token.clone(), done).with_total(100.0),
                )
                .await
                .map_err(|error| McpError::internal_error(error.to_string(), None))?;
        }
    }
    success(vec![ContentBlock::text(
        "Progress reported: 0, 50, 100 of 100.",
    )])
}

const STATIC_TEXT: &str = "test://static-text";
const STATIC_BINARY: &str = "test://static-binary";
const WATCHED: &str = "test://watched-resource";

/// The fixture resources.
pub(crate) fn resources() -> Vec<Resource> {
    vec![
        Resource::new(STATIC_TEXT, "static-text")
            .with_description("A static text resource")
            .with_mime_type("text/plain"),
        Resource::new(STATIC_BINARY, "static-binary")
            .with_description("A static binary resource (a PNG image)")
            .with_mime_type("image/png"),
        Resource::new(WATCHED, "watched-resource")
            .with_description("A resource to subscribe to")
            .with_mime_type("text/plain"),
    ]
}

/// The fixture resource templates.
pub(crate) fn resource_templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("test://template/{id}/data", "template-data")
            .with_description("JSON data for any id")
            .with_mime_type("application/json"),
    ]
}

/// Whether `uri` is a fixture resource (one a client may subscribe to).
pub(crate) fn is_resource(uri: &str) -> bool {
    read(uri).is_some()
}

/// Reads the fixture resource `uri`; `None` when there is no such fixture.
pub(crate) fn read(uri: &str) -> Option<ResourceContents> {
    match uri {
        STATIC_TEXT => Some(ResourceContents::text(
            "This is the content of the static text resource.",
            uri,
        )),
        STATIC_BINARY => Some(ResourceContents::blob(PNG, uri).with_mime_type("image/png")),
        WATCHED => Some(ResourceContents::text("Watched resource content.", uri)),
        _ => {
            let id = uri
                .strip_prefix("test://template/")?
                .strip_suffix("/data")
                .filter(|id| !id.is_empty() && !id.contains('/'))?;
            let quoted = serde_json::Value::from(id).to_string();
            let data = serde_json::Value::from(format!("Data for ID: {id}")).to_string();
            Some(
                ResourceContents::text(
                    format!(r#"{{"id":{quoted},"templateTest":true,"data":{data}}}"#),
                    uri,
                )
                .with_mime_type("application/json"),
            )
        }
    }
}

/// The fixture prompts.
pub(crate) fn prompts() -> Vec<Prompt> {
    let required = |name: &str, description: &str| {
        PromptArgument::new(name)
            .with_description(description)
            .with_required(true)
    };
    vec![
        Prompt::new(
            "test_simple_prompt",
            Some("A simple prompt without arguments"),
            None,
        ),
        Prompt::new(
            "test_prompt_with_arguments",
            Some("A prompt with two required arguments"),
            Some(vec![
                required("arg1", "First test argument"),
                required("arg2", "Second test argument"),
            ]),
        ),
        Prompt::new(
            "test_prompt_with_embedded_resource",
            Some("A prompt that embeds a resource"),
            Some(vec![required(
                "resourceUri",
                "URI of the resource to embed",
            )]),
        ),
        Prompt::new(
            "test_prompt_with_image",
            Some("A prompt with an image"),
            None,
        ),
    ]
}

/// Gets the fixture prompt `name`; `None` when there is no such fixture.
pub(crate) fn get_prompt(
    name: &str,
    arguments: &JsonObject,
) -> Option<Result<GetPromptResult, McpError>> {
    let argument = |key: &str| {
        arguments
            .get(key)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| {
                McpError::invalid_params(format!("missing required argument `{key}`"), None)
            })
    };
    let messages = match name {
        "test_simple_prompt" => Ok(vec![PromptMessage::new_text(
            Role::User,
            "This is a simple prompt for testing.",
        )]),
        "test_prompt_with_arguments" => argument("arg1").and_then(|arg1| {
            let arg2 = argument("arg2")?;
            Ok(vec![PromptMessage::new_text(
                Role::User,
                format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"),
            )])
        }),
        "test_prompt_with_embedded_resource" => argument("resourceUri").map(|uri| {
            vec![
                PromptMessage::new(
                    Role::User,
                    ContentBlock::resource(ResourceContents::text(
                        "Embedded resource content for testing.",
                        uri,
                    )),
                ),
                PromptMessage::new_text(Role::User, "Please process the embedded resource above."),
            ]
        }),
        "test_prompt_with_image" => Ok(vec![
            PromptMessage::new(Role::User, ContentBlock::image(PNG, "image/png")),
            PromptMessage::new_text(Role::User, "Please analyze the image above."),
        ]),
        _ => return None,
    };
    Some(messages.map(GetPromptResult::new))
}
