//! The MCP handler: answers each request by dispatching to the state ([`crate::state`]), the
//! MCP views of the catalog ([`crate::to_mcp`]), the built-in tools ([`crate::builtin`]),
//! resources, pagination and notifications. It decides nothing of its own but the protocol's
//! checks on what a request may hold.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, DiscoverResult,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, GetSkillRequestParams,
    GetSkillResult, Implementation, InitializeRequestParams, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, PromptMessage, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Role, ServerCapabilities, ServerConfig, SubscribeRequestParams,
    SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use skillpath_app::{Caller, Operation};
use skillpath_store::keys::Role as KeyRole;

use skillpath_store::usage::UsageKind;

use crate::auth::caller_of;
use crate::builtin::BUILTINS;
use crate::client_log::{self, ClientLog, Level};
use crate::direct::ToolAnswer;
use crate::elicitation::{Asked, Retry};
use crate::lists::ToolEntry;
use crate::pagination::page_of;
use crate::state::STILL_SYNCING;
use crate::state::SkillServer;
use crate::to_mcp::{
    completion, error_result, instructions, resource_templates, skill_content, skill_prompt,
    text_result,
};
use crate::tool_error::app_error;
use crate::{notifications, resources};

/// The largest `initialize` parameters a session keeps (what a client says of itself, with
/// its capabilities, is a few hundred bytes).
const MAX_INITIALIZE_BYTES: usize = 16 * 1024;

/// What a tool call gets once the server is closing.
const SHUTTING_DOWN: &str =
    "the server is shutting down and takes no more calls; call again once it is back";

/// What a client is told of a call of the tool `name` answered with `answer`: a write that was
/// refused (a stale revision, the audit policy, a role, a read-only server), with why.
fn write_refusal(name: &str, answer: &Result<ToolAnswer, McpError>) -> Option<ClientLog> {
    let builtin = BUILTINS.iter().find(|b| b.name() == name && b.writes())?;
    let why = match answer {
        Ok(answer) if answer.is_error => answer.text.as_str(),
        Ok(_) => return None,
        Err(error) => &error.message,
    };
    Some(ClientLog::new(
        Level::Warning,
        "writes",
        format!("`{}` was refused: {why}", builtin.name()),
    ))
}

/// `text`, after `note` (what became of the form the user was shown) when there is one.
fn after_note(note: Option<String>, text: String) -> String {
    match note {
        Some(note) => format!("{note}\n{text}"),
        None => text,
    }
}

impl SkillServer {
    /// The server's instructions for what `caller` is served, saying so while the first
    /// folder sync is still under way (past `sync_wait`): a client reads them once.
    fn instructions(&self, caller: &Caller) -> String {
        let mut text = self
            .instructions_of(self.catalog_for(caller), instructions)
            .to_string();
        if self.syncing() {
            text.push_str("\n\n");
            text.push_str(STILL_SYNCING);
        }
        text
    }
}

impl ServerHandler for SkillServer {
    #[expect(
        deprecated,
        reason = "MCP logging (SEP-2577) is offered to the clients that use it"
    )]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_resources()
                .enable_resources_list_changed()
                .enable_resources_subscribe()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_completions()
                .enable_logging()
                .enable_skills_with_directory_read()
                .build(),
        )
        .with_server_info(Implementation::new("skillpath", env!("CARGO_PKG_VERSION")))
        .with_instructions(self.instructions(&Caller::local()))
    }

    /// Any tool by name, whoever asks (the SDK reads its schema to check requests; calling it
    /// still checks the caller's role).
    fn get_tool(&self, name: &str) -> Option<Tool> {
        let catalog = self.catalog();
        self.tools(&catalog, KeyRole::Admin)
            .find(|entry| entry.name() == name)
            .map(ToolEntry::tool)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.wait_for_first_sync().await;
        let cursor = request.and_then(|r| r.cursor);
        let catalog = self.catalog_of(&context);
        let tools = self.tools(&catalog, crate::auth::caller_of(&context).role);
        page_of(tools, cursor.as_deref(), self.page_size(), ToolEntry::tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.wait_for_first_sync().await;
        let Some(_in_flight) = self.begin_call() else {
            return Ok(error_result(SHUTTING_DOWN));
        };
        let retry = Retry {
            responses: request.input_responses,
            state: request.request_state,
        };
        let arguments = request.arguments.unwrap_or_default();
        let (arguments, note) = match self
            .ask_for_tool(&context, &request.name, arguments, retry)
            .await?
        {
            Asked::InputRequired(result) => return Ok(result.into()),
            Asked::Render { arguments, note } => (arguments, note),
        };
        let answer = self
            .answer(
                &crate::auth::caller_of(&context),
                &request.name,
                &arguments,
                true,
            )
            .await;
        if let Some(refusal) = write_refusal(&request.name, &answer) {
            self.tell_requester(&context, refusal).await;
        }
        let answer = answer?;
        Ok(match answer.is_error {
            false => text_result(answer.text),
            true => error_result(after_note(note, answer.text)),
        })
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        self.wait_for_first_sync().await;
        let cursor = request.and_then(|r| r.cursor);
        let catalog = self.catalog_of(&context);
        let all = self.resource_entries(&catalog);
        page_of(
            all,
            cursor.as_deref(),
            self.page_size(),
            resources::resource,
        )
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resource_templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.wait_for_first_sync().await;
        let key = crate::auth::caller_of(&context).key;
        let contents = resources::read(
            self,
            &self.catalog_of(&context),
            &request.uri,
            key.as_deref(),
        )
        .await?;
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        self.wait_for_first_sync().await;
        let cursor = request.and_then(|r| r.cursor);
        let catalog = self.catalog_of(&context);
        let prompts = self.prompt_entries(&catalog);
        page_of(
            prompts,
            cursor.as_deref(),
            self.page_size(),
            |(name, skill)| skill_prompt(name, skill),
        )
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        self.wait_for_first_sync().await;
        let arguments = request.arguments.unwrap_or_default();
        let catalog = self.catalog_of(&context);
        let Some(skill) = catalog.tool(&request.name) else {
            return Err(McpError::invalid_params(
                format!("unknown prompt `{}`", request.name),
                None,
            ));
        };
        let retry = Retry {
            responses: request.input_responses,
            state: request.request_state,
        };
        let method = format!("prompts/get {}", request.name);
        let (arguments, note) = match self.ask(&context, &method, skill, arguments, retry).await? {
            Asked::InputRequired(result) => return Ok(result.into()),
            Asked::Render { arguments, note } => (arguments, note),
        };
        let caller = crate::auth::caller_of(&context);
        let permit = self
            .app()
            .may(&caller, Operation::LoadSkill)
            .map_err(|refusal| McpError::invalid_params(refusal.to_string(), None))?;
        let markdown = self
            .app()
            .render(&permit, skill, &arguments)
            .await
            .map_err(|error| McpError::invalid_params(after_note(note, app_error(error)), None))?;
        self.count_use(skill, caller.key.as_deref(), UsageKind::Prompt);
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            skill_content(skill, &markdown),
        )])
        .with_description(skill.description.clone())
        .into())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        self.wait_for_first_sync().await;
        let cursor = request.and_then(|r| r.cursor);
        let caller = crate::auth::caller_of(&context);
        let catalog = self.catalog_for(&caller);
        let entries = catalog.skills().filter_map(|skill| {
            let entry = skill.entry.0.as_ref().ok()?;
            Some((skill.name.as_str(), entry))
        });
        page_of(
            entries,
            cursor.as_deref(),
            self.page_size(),
            |(name, entry)| {
                let (channel, release) = self.app().served_release(&caller, name);
                crate::skill_entry::served_entry(entry, &channel, release.as_ref())
            },
        )
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        self.wait_for_first_sync().await;
        let caller = crate::auth::caller_of(&context);
        let catalog = self.catalog_for(&caller);
        let entry = rmcp::model::skill_name_from_uri(&request.uri)
            .and_then(|name| catalog.skill(name))
            .and_then(|skill| {
                let entry = skill.entry.0.as_ref().ok()?;
                let (channel, release) = self.app().served_release(&caller, &skill.name);
                Some(crate::skill_entry::served_entry(
                    entry,
                    &channel,
                    release.as_ref(),
                ))
            })
            .filter(|entry| entry.uri == request.uri)
            .ok_or_else(|| {
                McpError::invalid_params(format!("no skill at `{}`", request.uri), None)
            })?;
        Ok(GetSkillResult::new(entry))
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, McpError> {
        self.wait_for_first_sync().await;
        let children = resources::directory(&self.catalog_of(&context), &request.uri)?;
        page_of(
            children.into_iter(),
            request.cursor.as_deref(),
            self.page_size(),
            |child| child,
        )
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        self.wait_for_first_sync().await;
        completion(&self.catalog_of(&context), &request)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        notifications::listen(self, context).await
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        // A session keeps what its client said of itself for as long as it lives.
        let size = serde_json::to_vec(&request).map_or(usize::MAX, |bytes| bytes.len());
        if size > MAX_INITIALIZE_BYTES {
            return Err(McpError::invalid_params(
                format!(
                    "the `initialize` parameters (`clientInfo`, capabilities) are {size} bytes; the limit is {MAX_INITIALIZE_BYTES}"
                ),
                None,
            ));
        }
        context.peer.set_peer_info(request.clone());
        // The instructions are read once, at the handshake: they name the synced skills.
        self.wait_for_first_sync().await;
        let mut result = self.negotiate_initialize(&request)?;
        result.instructions = Some(self.instructions(&caller_of(&context)));
        Ok(result)
    }

    /// The 2026-07-28 era's handshake: the server's information and instructions, as
    /// `initialize` gives them, once the first folder sync is in.
    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        self.wait_for_first_sync().await;
        let info = self
            .get_info()
            .with_instructions(self.instructions(&caller_of(&context)));
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            info,
        ))
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscribe_to(request.uri, resources::is_skill_uri)
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.unsubscribe_from(&request.uri);
        Ok(())
    }

    #[expect(
        deprecated,
        reason = "MCP logging (SEP-2577) is what `logging/setLevel` sets"
    )]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.session_level().set(request.level);
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        notifications::follow_for_session(self, context);
    }
}

impl SkillServer {
    /// Tells `log` to the client of `context`, about what its request did: a 2026 request
    /// that named a log level, or a legacy session at its level. Nothing when neither.
    pub(crate) async fn tell_requester(
        &self,
        context: &RequestContext<RoleServer>,
        log: ClientLog,
    ) {
        let level = if crate::elicitation::is_modern(context) {
            context.meta.log_level()
        } else {
            Some(self.session_level().get())
        };
        if let Some(level) = level {
            // A request sends a message or two; the session's own allowance is its listener's.
            let _ = client_log::send(
                &context.peer,
                level,
                &mut client_log::Allowance::default(),
                &log,
            )
            .await;
        }
    }
}
