//! Asking the user for what a skill call is missing (MCP elicitation): when a skill's tool,
//! `load_skill` or a prompt is called with required arguments missing or values outside their
//! `enum`, and the client can show a form, the server asks the user through it (the questions
//! are core's [`skillpath_core::golden_path::ask`]) and renders the skill with the answers,
//! which pass the same checks as arguments. A model filling a tool call otherwise guesses.
//!
//! Each protocol era has its own way to ask:
//! - 2025-11-25 and earlier: a server-to-client `elicitation/create` request, awaited within
//!   [`ServerOptions::elicit_timeout`](crate::ServerOptions), in the middle of the call;
//! - 2026-07-28: an `InputRequiredResult` (SEP-2322) with the form as its one input request
//!   and a sealed `requestState`; the client asks the user and calls again with the answer.
//!   The state holds the answers of earlier rounds and is sealed (HMAC) and bound to the
//!   call, its arguments and the caller, so a client cannot change or replay it, and it
//!   expires with the timeout. Nothing waits on the server between rounds: this works on
//!   the stateless HTTP transport and across replicas that share `--request-state-key`.
//!
//! A user who declines or cancels, a form left unanswered, a client without the capability or
//! a server started with `--elicit never`: the call is answered as it always was, with the
//! list of problems (and, for the first three, a line saying what the user did).

use std::time::Duration;

use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, JsonObject, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde::{Deserialize, Serialize};
use skillpath_core::golden_path::args::{Arg, ArgType};
use skillpath_core::golden_path::ask::{self, Question};

use crate::catalog::CatalogSkill;
use crate::elicit_state::{ElicitMode, Waiting};
use crate::state::SkillServer;

/// The most forms one call shows: answers that are still wrong after this many end in the
/// list of problems, as if nobody had been asked.
pub const MAX_ROUNDS: u32 = 3;

/// The built-in tool that renders a skill by name.
const LOAD_SKILL: &str = "load_skill";

/// The key of the one input request of an `InputRequiredResult`.
const INPUT_KEY: &str = "arguments";

/// What a call renders with once asking is over.
#[derive(Debug)]
pub(crate) enum Asked {
    /// Render with these arguments. `note` says why the user's answer did not fill them in
    /// (declined, cancelled, no answer), for the error result to say first.
    Render {
        arguments: JsonObject,
        note: Option<String>,
    },
    /// Ask the client (2026-07-28): this result, then the call again.
    InputRequired(InputRequiredResult),
}

impl Asked {
    fn render(arguments: JsonObject) -> Asked {
        Asked::Render {
            arguments,
            note: None,
        }
    }
}

/// A request's retry fields (SEP-2322): the answers to the last round's input requests and
/// the state the server handed out with them.
#[derive(Debug, Default)]
pub(crate) struct Retry {
    pub(crate) responses: Option<InputResponses>,
    pub(crate) state: Option<String>,
}

/// What a sealed `requestState` holds: the round, the arguments asked in it, and the
/// answers taken so far (the client's retry repeats only the call's own arguments).
#[derive(Debug, Serialize, Deserialize)]
struct State {
    round: u32,
    asked: Vec<String>,
    answers: JsonObject,
}

impl SkillServer {
    /// The questions a call of `skill` with `arguments` asks, by the server's mode and the
    /// skill's own flag; `None` when it asks nothing.
    fn questions(&self, skill: &CatalogSkill, arguments: &JsonObject) -> Option<Vec<Question>> {
        let optional_too = match self.elicitation().mode {
            ElicitMode::Never => return None,
            ElicitMode::Missing => false,
            ElicitMode::Always => skill.asks_optional,
        };
        ask::questions(
            &skill.args,
            arguments,
            &self.options().render_limits,
            optional_too,
        )
    }

    /// Asks the user, through the client of `context`, for what the call `method` of `skill`
    /// with `arguments` is missing, when the client can show a form; `retry` holds a 2026
    /// client's answers. A `requestState` that does not open (changed, expired, made for
    /// another call) is a protocol error.
    pub(crate) async fn ask(
        &self,
        context: &RequestContext<RoleServer>,
        method: &str,
        skill: &CatalogSkill,
        arguments: JsonObject,
        retry: Retry,
    ) -> Result<Asked, McpError> {
        if !can_show_forms(context) {
            return Ok(Asked::render(arguments));
        }
        if is_modern(context) {
            let binding = binding(context, method, skill, &arguments);
            self.ask_by_result(skill, arguments, retry, &binding)
        } else {
            Ok(self.ask_by_request(context, skill, arguments).await)
        }
    }

    /// [`SkillServer::ask`] for a `tools/call` of `name`: a skill's own tool, or `load_skill`
    /// (whose `arguments` are the skill's, and come back in their place). Any other tool
    /// asks nothing.
    pub(crate) async fn ask_for_tool(
        &self,
        context: &RequestContext<RoleServer>,
        name: &str,
        mut arguments: JsonObject,
        retry: Retry,
    ) -> Result<Asked, McpError> {
        let catalog = self.catalog_of(context);
        if name == LOAD_SKILL {
            let skill = arguments
                .get("name")
                .and_then(serde_json::Value::as_str)
                .and_then(|skill| catalog.skill(skill));
            let given = match arguments.get("arguments") {
                None | Some(serde_json::Value::Null) => Some(JsonObject::new()),
                Some(serde_json::Value::Object(given)) => Some(given.clone()),
                // Not an object: `load_skill` refuses it as it is.
                Some(_) => None,
            };
            let (Some(skill), Some(given)) = (skill, given) else {
                return Ok(Asked::render(arguments));
            };
            let method = format!("tools/call {LOAD_SKILL}");
            return Ok(
                match self.ask(context, &method, skill, given, retry).await? {
                    Asked::Render {
                        arguments: given,
                        note,
                    } => {
                        arguments.insert("arguments".to_owned(), given.into());
                        Asked::Render { arguments, note }
                    }
                    asked @ Asked::InputRequired(_) => asked,
                },
            );
        }
        // A built-in tool's name is never a skill's tool (`tool_names::resolve`).
        match catalog.tool(name) {
            Some(skill) => {
                let method = format!("tools/call {name}");
                self.ask(context, &method, skill, arguments, retry).await
            }
            None => Ok(Asked::render(arguments)),
        }
    }

    /// 2025-11-25: `elicitation/create` requests, one per round, each awaited within the
    /// timeout, the call's cancellation, or the session's end.
    async fn ask_by_request(
        &self,
        context: &RequestContext<RoleServer>,
        skill: &CatalogSkill,
        mut arguments: JsonObject,
    ) -> Asked {
        let elicitation = self.elicitation();
        for _ in 0..MAX_ROUNDS {
            let Some(questions) = self.questions(skill, &arguments) else {
                return Asked::render(arguments);
            };
            let Some(params) = form(skill, &questions) else {
                return Asked::render(arguments);
            };
            let _waiting = Waiting::start(&elicitation.waiting);
            let answer = tokio::select! {
                () = context.ct.cancelled() => return refused(arguments, "The call was cancelled while the user was asked for the values."),
                answer = context.peer.create_elicitation_with_timeout(params, Some(elicitation.timeout)) => answer,
            };
            match answer {
                Ok(result) => match taken(result) {
                    Ok(answers) => {
                        arguments = ask::answered(&arguments, ask::names(&questions), &answers)
                    }
                    Err(note) => return refused(arguments, note),
                },
                Err(rmcp::service::ServiceError::Timeout { timeout }) => {
                    return refused(arguments, &no_answer(timeout));
                }
                Err(error) => {
                    let note = format!("The user could not be asked for the values: {error}.");
                    return refused(arguments, &note);
                }
            }
        }
        Asked::render(arguments)
    }

    /// 2026-07-28: an `InputRequiredResult` per round; the answers so far travel in the
    /// sealed state.
    fn ask_by_result(
        &self,
        skill: &CatalogSkill,
        arguments: JsonObject,
        retry: Retry,
        binding: &[u8],
    ) -> Result<Asked, McpError> {
        let elicitation = self.elicitation();
        let state = match &retry.state {
            Some(sealed) => match elicitation.open::<State>(sealed, binding)? {
                Some(state) => Some(state),
                None => return Ok(refused(arguments, &no_answer(elicitation.timeout))),
            },
            None => None,
        };
        let (round, mut answers) = match state {
            Some(state) => {
                let response = retry
                    .responses
                    .as_ref()
                    .and_then(|responses| responses.get(INPUT_KEY));
                let mut answers = state.answers;
                // No answer, or not an elicitation result: the same form again.
                let result = response
                    .and_then(|value| serde_json::from_value::<ElicitResult>(value.clone()).ok());
                if let Some(result) = result {
                    let given = match taken(result) {
                        Ok(given) => given,
                        Err(note) => return Ok(refused(arguments, note)),
                    };
                    for name in &state.asked {
                        match given.get(name) {
                            Some(value) => answers.insert(name.clone(), value.clone()),
                            None => answers.remove(name),
                        };
                    }
                }
                (state.round, answers)
            }
            None => (0, JsonObject::new()),
        };
        let merged = ask::answered(&arguments, answers.keys().map(String::as_str), &answers);
        let Some(questions) = self.questions(skill, &merged) else {
            return Ok(Asked::render(merged));
        };
        if round >= MAX_ROUNDS {
            return Ok(Asked::render(merged));
        }
        let Some(params) = form(skill, &questions) else {
            return Ok(Asked::render(merged));
        };
        // Answers to questions no longer asked stay; the ones asked now are replaced.
        answers.retain(|name, _| !questions.iter().any(|q| &q.arg.name == name));
        let state = State {
            round: round + 1,
            asked: ask::names(&questions).map(str::to_owned).collect(),
            answers,
        };
        let sealed = elicitation.seal(&state, binding)?;
        let mut requests = InputRequests::new();
        requests.insert(
            INPUT_KEY.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(params)),
        );
        Ok(Asked::InputRequired(InputRequiredResult::new(
            Some(requests),
            Some(sealed),
        )))
    }
}

/// Whether the client of `context` said it shows forms (`elicitation`, form mode or none
/// named), in its handshake or, in 2026, on this request.
fn can_show_forms(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|capabilities| capabilities.elicitation)
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// Whether the request speaks 2026-07-28 or later: servers ask with results, not requests, and
/// log only to a request that names a level.
pub(crate) fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// What a sealed state is bound to: the method and the skill it was made for, the caller's
/// key (its id, not its name, which a new key can take once the first is revoked), and the
/// call's own arguments, so it opens for that call only.
fn binding(
    context: &RequestContext<RoleServer>,
    method: &str,
    skill: &CatalogSkill,
    arguments: &JsonObject,
) -> Vec<u8> {
    let caller = crate::auth::caller_of(context);
    let mut bound = format!(
        "{method}\n{}\n{}\n",
        skill.name,
        caller.key_id.as_deref().unwrap_or("")
    )
    .into_bytes();
    bound.extend(serde_json::to_vec(arguments).unwrap_or_default());
    bound
}

/// The user's answers in `result`, or why there are none.
fn taken(result: ElicitResult) -> Result<JsonObject, &'static str> {
    match result.action {
        ElicitationAction::Accept => Ok(match result.content {
            Some(serde_json::Value::Object(answers)) => answers,
            _ => JsonObject::new(),
        }),
        ElicitationAction::Decline => Err("The user declined to give the values."),
        // Cancel, and any action a later protocol adds: no answer.
        _ => Err("The user dismissed the form without an answer."),
    }
}

/// What a call says when the user did not answer within `timeout`.
fn no_answer(timeout: Duration) -> String {
    format!(
        "The user was asked for the values and did not answer within {} s.",
        timeout.as_secs()
    )
}

/// Render with `arguments` as they are, saying first what became of the form.
fn refused(arguments: JsonObject, note: &str) -> Asked {
    Asked::Render {
        arguments,
        note: Some(note.to_owned()),
    }
}

/// The form that asks `questions` of a call of `skill`: its message names the skill and every
/// problem; each field's schema follows its argument (an `enum` as a choice of its values, a
/// boolean, a number, the default filled in, the description as the field's). `None` when
/// the SDK would not take the schema.
fn form(skill: &CatalogSkill, questions: &[Question]) -> Option<ElicitRequestParams> {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for question in questions {
        properties.insert(question.arg.name.clone(), field(&question.arg));
        if question.arg.required {
            required.push(serde_json::Value::from(question.arg.name.clone()));
        }
    }
    let schema = serde_json::json!({
        "type": "object",
        "properties": properties,
        "required": required,
    });
    let requested_schema: ElicitationSchema = serde_json::from_value(schema).ok()?;
    Some(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message(skill, questions),
        requested_schema,
    })
}

/// The form's message: which skill asks, and what was wrong with each value given.
fn message(skill: &CatalogSkill, questions: &[Question]) -> String {
    let problems: Vec<&str> = questions
        .iter()
        .filter_map(|q| q.problem.as_deref())
        .collect();
    let mut text = if problems.is_empty() {
        format!(
            "`{}` can take these optional values; leave any blank for its default.",
            skill.name
        )
    } else {
        format!("`{}` needs these values to run:", skill.name)
    };
    for problem in problems {
        text.push_str("\n- ");
        text.push_str(problem);
    }
    text
}

/// One field of the form, for `arg`.
fn field(arg: &Arg) -> serde_json::Value {
    let mut field = serde_json::Map::new();
    let title = title(&arg.name);
    field.insert("title".into(), title.into());
    if let Some(description) = &arg.description {
        field.insert("description".into(), description.clone().into());
    }
    let default = ask::default_value(arg);
    match (&arg.allowed, arg.arg_type) {
        // Forms choose among strings: a number's or a boolean's allowed values are offered as
        // written, and coerced back like any argument.
        (Some(allowed), _) => {
            field.insert("type".into(), "string".into());
            field.insert("enum".into(), allowed.clone().into());
            if let Some(default) = &arg.default
                && allowed.contains(default)
            {
                field.insert("default".into(), default.clone().into());
            }
        }
        (None, ArgType::Boolean) => {
            field.insert("type".into(), "boolean".into());
            if let Some(default) = default {
                field.insert("default".into(), default);
            }
        }
        (None, ArgType::Number) => {
            field.insert("type".into(), "number".into());
            if let Some(default) = default {
                field.insert("default".into(), default);
            }
        }
        (None, ArgType::String) => {
            field.insert("type".into(), "string".into());
            if let Some(default) = default {
                field.insert("default".into(), default);
            }
        }
    }
    serde_json::Value::Object(field)
}

/// `service_name` → `Service name`: a field's label.
fn title(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => spaced,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elicit_state::Elicitation;

    fn arg(name: &str, arg_type: ArgType) -> Arg {
        Arg {
            name: name.to_owned(),
            description: Some(format!("The {name}")),
            required: true,
            arg_type,
            allowed: None,
            default: None,
        }
    }

    #[test]
    fn fields_follow_their_arguments() {
        let choice = Arg {
            allowed: Some(vec!["redis".into(), "memory".into()]),
            default: Some("redis".into()),
            ..arg("cache_provider", ArgType::String)
        };
        assert_eq!(
            field(&choice),
            serde_json::json!({"title": "Cache provider", "description": "The cache_provider",
                "type": "string", "enum": ["redis", "memory"], "default": "redis"})
        );
        let number = Arg {
            default: Some("30".into()),
            ..arg("ttl_minutes", ArgType::Number)
        };
        assert_eq!(field(&number)["default"], serde_json::json!(30));
        assert_eq!(field(&number)["type"], "number");
        let flag = Arg {
            default: Some("true".into()),
            ..arg("dry_run", ArgType::Boolean)
        };
        assert_eq!(field(&flag)["default"], serde_json::json!(true));
        let numbers = Arg {
            allowed: Some(vec!["1".into(), "2".into()]),
            ..arg("replicas", ArgType::Number)
        };
        assert_eq!(field(&numbers)["enum"], serde_json::json!(["1", "2"]));
    }

    #[test]
    fn every_field_kind_is_a_schema_the_sdk_takes() {
        let args = [
            Arg {
                allowed: Some(vec!["a".into(), "b".into()]),
                default: Some("a".into()),
                ..arg("choice", ArgType::String)
            },
            Arg {
                default: Some("2.5".into()),
                ..arg("size", ArgType::Number)
            },
            Arg {
                default: Some("false".into()),
                ..arg("flag", ArgType::Boolean)
            },
            arg("text", ArgType::String),
        ];
        let properties: serde_json::Map<_, _> = args
            .iter()
            .map(|arg| (arg.name.clone(), field(arg)))
            .collect();
        let schema =
            serde_json::json!({"type": "object", "properties": properties, "required": ["text"]});
        let parsed: Result<ElicitationSchema, _> = serde_json::from_value(schema.clone());
        let parsed = parsed.expect("the SDK reads the form");
        assert_eq!(
            serde_json::to_value(parsed).expect("serialize")["properties"],
            schema["properties"]
        );
    }

    #[test]
    fn a_sealed_state_opens_only_for_its_own_call() {
        let elicitation = Elicitation::new(ElicitMode::Missing, Duration::from_secs(60), None);
        let state = State {
            round: 1,
            asked: vec!["service_name".into()],
            answers: JsonObject::new(),
        };
        let call: &[u8] = b"tools/call a\na\n\n{}";
        let sealed = elicitation.seal(&state, call).expect("seal");
        let opened: State = elicitation
            .open(&sealed, call)
            .expect("its own call opens it")
            .expect("not expired");
        assert_eq!(opened.asked, ["service_name"]);
        assert!(
            elicitation
                .open::<State>(&sealed, b"tools/call b\nb\n\n{}")
                .is_err()
        );
        assert!(
            elicitation
                .open::<State>(&format!("{sealed}-TAMPERED"), call)
                .is_err()
        );
        let other = Elicitation::new(ElicitMode::Missing, Duration::from_secs(60), None);
        assert!(
            other.open::<State>(&sealed, call).is_err(),
            "another process's key opens nothing"
        );
        let shared = [7u8; 32];
        let one = Elicitation::new(ElicitMode::Missing, Duration::from_secs(60), Some(&shared));
        let two = Elicitation::new(ElicitMode::Missing, Duration::from_secs(60), Some(&shared));
        let sealed = one.seal(&state, call).expect("seal");
        assert!(
            two.open::<State>(&sealed, call).is_ok(),
            "replicas share a key file"
        );
    }

    #[test]
    fn an_expired_state_does_not_open() {
        let elicitation = Elicitation::new(ElicitMode::Missing, Duration::from_millis(1), None);
        let sealed = elicitation.seal(&1u32, b"call").expect("seal");
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(elicitation.open::<u32>(&sealed, b"call").ok(), Some(None));
    }
}
