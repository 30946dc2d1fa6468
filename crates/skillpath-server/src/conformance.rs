//! The server as the official MCP conformance suite tests it: a [`SkillServer`] with the
//! suite's fixtures ([`crate::fixtures`]) served before the skills, for the hidden
//! `skillpath serve --conformance-fixtures` only. The wrapper answers what the fixtures
//! answer and hands every other request to the server's own handler, which knows nothing
//! of them.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams, GetSkillResult,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerConfig, SubscribeRequestParams,
    SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use crate::lists::ToolEntry;
use crate::pagination::{Paged, page_of};
use crate::state::SkillServer;
use crate::to_mcp::{resource_templates, skill_prompt};
use crate::{fixtures, resources};

/// A session's [`SkillServer`] with the conformance fixtures.
#[derive(Clone)]
pub(crate) struct WithFixtures(pub(crate) SkillServer);

/// The page of the fixtures, then `items`, that `request` asks for (the suite's catalogs are
/// small: every item before the page is made).
fn page<T: serde::Serialize, R: Paged<T>>(
    server: &SkillServer,
    fixtures: Vec<T>,
    items: impl Iterator<Item = T>,
    request: Option<PaginatedRequestParams>,
) -> Result<R, McpError> {
    let cursor = request.and_then(|r| r.cursor);
    page_of(
        fixtures.into_iter().chain(items),
        cursor.as_deref(),
        server.page_size(),
        |item| item,
    )
}

impl ServerHandler for WithFixtures {
    fn get_info(&self) -> ServerConfig {
        self.0.get_info()
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        fixtures::tools()
            .into_iter()
            .find(|tool| tool.name == name)
            .or_else(|| self.0.get_tool(name))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let catalog = self.0.catalog();
        let tools = self
            .0
            .tools(&catalog, crate::auth::caller_of(&context).role);
        page(
            &self.0,
            fixtures::tools(),
            tools.map(ToolEntry::tool),
            request,
        )
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if let Some(result) = fixtures::call(&self.0, &request, &context).await {
            return result;
        }
        self.0.call_tool(request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let catalog = self.0.catalog();
        let resources = self.0.resource_entries(&catalog).map(resources::resource);
        page(&self.0, fixtures::resources(), resources, request)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let mut templates = fixtures::resource_templates();
        templates.extend(resource_templates());
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        match fixtures::read(&request.uri) {
            Some(contents) => Ok(ReadResourceResult::new(vec![contents]).into()),
            None => self.0.read_resource(request, context).await,
        }
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let catalog = self.0.catalog();
        let prompts = self.0.prompt_entries(&catalog);
        let prompts = prompts.map(|(name, skill)| skill_prompt(name, skill));
        page(&self.0, fixtures::prompts(), prompts, request)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        match fixtures::get_prompt(&request) {
            Some(result) => result,
            None => self.0.get_prompt(request, context).await,
        }
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        self.0.list_skills(request, context).await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        self.0.get_skill(request, context).await
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, McpError> {
        self.0.read_resource_directory(request, context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        self.0.complete(request, context).await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.0.accepted_subscription_filter(requested)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        self.0.listen(context).await
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        self.0.initialize(request, context).await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.0.subscribe_to(request.uri, |uri| {
            fixtures::is_resource(uri) || resources::is_skill_uri(uri)
        })
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.0.unsubscribe_from(&request.uri);
        Ok(())
    }

    #[expect(
        deprecated,
        reason = "MCP logging (SEP-2577) is what `logging/setLevel` sets"
    )]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.0.set_level(request, context).await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.0.on_initialized(context).await;
    }
}
