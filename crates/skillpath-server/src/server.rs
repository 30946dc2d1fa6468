//! The MCP handler: tools (one per skill, plus the built-in ones), resources, prompts, and
//! `list_changed` notifications when the catalog changes.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, RwLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    CompletionInfo, ContentBlock, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    GetSkillRequestParams, GetSkillResult, Implementation, InitializeRequestParams,
    InitializeResult, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams, Prompt,
    PromptArgument, PromptMessage, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Reference,
    ResourceContents, ResourceTemplate, ResourceUpdatedNotificationParam, Role, ServerCapabilities,
    ServerConfig, SkillFrontmatter, SkillResource, SkillResources, SubscribeRequestParams,
    SubscriptionFilter, Tool, ToolAnnotations, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use skillpath_core::golden_path::render::{self, ArgumentsError, RenderLimits};
use skillpath_core::golden_path::schema;
use skillpath_store::folder::FolderDiagnostics;
use skillpath_store::keys::Role as KeyRole;
use skillpath_store::{ShadowedSkill, Store, StoreError};
use tokio::sync::broadcast;

use crate::auth::Caller;
use crate::builtin::BUILTINS;
use crate::catalog::{Catalog, CatalogSkill};
use crate::{authoring, fixtures, resources};

/// How skills become tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolsMode {
    /// One tool per skill, plus the built-in tools.
    PerSkill,
    /// Only the built-in tools; skills are found with `search_skills` and loaded with `load_skill`.
    Loader,
    /// One tool per skill up to this many skills, the loader above (clients cap their tools).
    Auto(usize),
}

/// The default `Auto` threshold: the smallest tool cap among popular clients.
pub const DEFAULT_TOOL_THRESHOLD: usize = 40;

/// How the server behaves.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Hide and refuse every tool that writes.
    pub read_only: bool,
    /// Per-skill tools or the loader.
    pub tools: ToolsMode,
    /// Items per page of every list.
    pub page_size: usize,
    /// Also serve the MCP conformance suite's fixtures (`fixtures`); for that suite only.
    pub conformance_fixtures: bool,
    /// Bounds on every render (a skill's tool, `load_skill`, a prompt). Renders run on the
    /// server's worker threads without waiting, so at most as many run at once as there are
    /// workers, each within these bounds.
    pub render_limits: RenderLimits,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            read_only: false,
            tools: ToolsMode::Auto(DEFAULT_TOOL_THRESHOLD),
            page_size: 100,
            conformance_fixtures: false,
            render_limits: RenderLimits::default(),
        }
    }
}

struct Inner {
    store: Arc<dyn Store>,
    catalog: RwLock<Arc<Catalog>>,
    /// Held while loading and replacing the catalog, so that a slow load never replaces the
    /// catalog of a later one.
    reloading: tokio::sync::Mutex<()>,
    changes: broadcast::Sender<Announcement>,
    options: ServerOptions,
    /// What the last folder sync could not load, and what it left out for another skill of
    /// the same name, for `list_skills` to show.
    folder_report: RwLock<Arc<FolderReport>>,
    /// Cancelled when the server is asked to stop: from then on a tool call is refused, and
    /// the transports end their streams once the calls in flight are answered.
    closing: tokio_util::sync::CancellationToken,
    /// How many tool calls are being answered (every write is one).
    in_flight: tokio::sync::watch::Sender<usize>,
    /// How many tool calls were ever started, to tell when calls have stopped coming.
    calls: std::sync::atomic::AtomicU64,
    /// Why the last sync of the skill folders failed, while it keeps failing.
    sync_problem: RwLock<Option<String>>,
}

/// One tool call being answered; counted in [`Inner::in_flight`] for as long as it lives.
struct InFlight(tokio::sync::watch::Sender<usize>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.send_modify(|count| *count = count.saturating_sub(1));
    }
}

/// What the last folder sync said about the folders, for `list_skills`.
#[derive(Debug, Default)]
pub(crate) struct FolderReport {
    /// The skill folders that cannot be loaded, with why.
    pub(crate) skipped: Vec<FolderDiagnostics>,
    /// The skills left out for another of the same name, with the one kept.
    pub(crate) shadowed: Vec<ShadowedSkill>,
}

/// The skillpath MCP server: a cheap handle, cloned for every session.
#[derive(Clone)]
pub struct SkillServer {
    inner: Arc<Inner>,
    /// The resource URIs this session subscribed to with `resources/subscribe`.
    subscriptions: Arc<Mutex<BTreeSet<String>>>,
}

impl SkillServer {
    /// A server over `store`, with the catalog loaded.
    pub async fn new(
        store: Arc<dyn Store>,
        options: ServerOptions,
    ) -> Result<SkillServer, StoreError> {
        let catalog = Catalog::load(store.as_ref()).await?;
        let (changes, _) = broadcast::channel(16);
        Ok(SkillServer {
            inner: Arc::new(Inner {
                store,
                catalog: RwLock::new(Arc::new(catalog)),
                reloading: tokio::sync::Mutex::new(()),
                changes,
                options,
                folder_report: RwLock::default(),
                closing: tokio_util::sync::CancellationToken::new(),
                in_flight: tokio::sync::watch::channel(0).0,
                calls: std::sync::atomic::AtomicU64::new(0),
                sync_problem: RwLock::default(),
            }),
            subscriptions: Arc::default(),
        })
    }

    /// A handle for a new session: the same catalog and store, no resource subscriptions yet.
    pub fn for_session(&self) -> SkillServer {
        SkillServer {
            inner: Arc::clone(&self.inner),
            subscriptions: Arc::default(),
        }
    }

    /// This session's resource subscriptions.
    fn subscribed(&self) -> Vec<String> {
        self.subscriptions
            .lock()
            .map(|uris| uris.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The current catalog.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.inner
            .catalog
            .read()
            .map(|c| Arc::clone(&c))
            .unwrap_or_default()
    }

    /// The skills the Skills extension (`skills/list`, `skills/get`) leaves out, each with why.
    pub fn unlisted_skills(&self) -> Vec<(String, String)> {
        self.catalog()
            .skills()
            .filter_map(|skill| {
                skill_entry(skill)
                    .err()
                    .map(|why| (skill.stored.name.clone(), why))
            })
            .collect()
    }

    /// Records what the last folder sync could not load (`skipped`) and left out for another
    /// skill of the same name (`shadowed`).
    pub fn set_folder_report(&self, skipped: Vec<FolderDiagnostics>, shadowed: Vec<ShadowedSkill>) {
        if let Ok(mut current) = self.inner.folder_report.write() {
            *current = Arc::new(FolderReport { skipped, shadowed });
        }
    }

    /// Every skill this server leaves out for another of the same name, with the one it
    /// serves: what the folder sync left out (discovery's project over user, an import's
    /// first of two folders, the store's own over a user skill) and what the store's view
    /// hides (a shared skill under the project's), each once, the folder sync's first.
    pub async fn shadowed(&self) -> Result<Vec<ShadowedSkill>, StoreError> {
        let mut shadowed = self.folder_report().shadowed.clone();
        for hidden in self.store().shadowed().await? {
            if !shadowed
                .iter()
                .any(|known| known.name == hidden.name && known.path == hidden.path)
            {
                shadowed.push(hidden);
            }
        }
        Ok(shadowed)
    }

    /// Stops taking tool calls: every call from now on is refused with a clean error, so
    /// that a shutdown can wait for the calls in flight ([`SkillServer::drained`]).
    pub(crate) fn begin_shutdown(&self) {
        self.inner.closing.cancel();
    }

    /// Cancelled once [`SkillServer::begin_shutdown`] was called.
    pub(crate) fn closing(&self) -> tokio_util::sync::CancellationToken {
        self.inner.closing.clone()
    }

    /// Completes when no tool call is being answered.
    pub(crate) async fn drained(&self) {
        let mut count = self.inner.in_flight.subscribe();
        let _ = count.wait_for(|count| *count == 0).await;
    }

    /// Records why syncing the skill folders fails (`None` once it works again).
    pub(crate) fn set_sync_problem(&self, problem: Option<String>) {
        if let Ok(mut current) = self.inner.sync_problem.write() {
            *current = problem;
        }
    }

    /// What a readiness check reports: the store answering within `deadline`, its change
    /// signals flowing, and the folder sync working. `Ok` with what was checked, or `Err` with
    /// what is wrong, as JSON.
    pub(crate) async fn readiness(
        &self,
        deadline: std::time::Duration,
    ) -> Result<serde_json::Value, serde_json::Value> {
        let store = match tokio::time::timeout(deadline, self.store().check()).await {
            Ok(Ok(())) => None,
            Ok(Err(error)) => Some(error.to_string()),
            Err(_) => Some(format!(
                "the database did not answer within {} ms",
                deadline.as_millis()
            )),
        };
        let folders = self
            .inner
            .sync_problem
            .read()
            .ok()
            .and_then(|problem| problem.clone());
        let following = self.store().following_changes();
        let changes = match following {
            None => "not followed",
            Some(true) => "following",
            Some(false) => "reconnecting: changes by other servers are not heard meanwhile",
        };
        let ready = store.is_none() && folders.is_none() && following != Some(false);
        let report = serde_json::json!({
            "ready": ready,
            "store": store.unwrap_or_else(|| "ok".to_owned()),
            "changes": changes,
            "folders": folders.map_or_else(|| "ok".to_owned(), |problem| format!("the last sync failed: {problem}")),
            "skills": self.catalog().len(),
        });
        if ready { Ok(report) } else { Err(report) }
    }

    /// How many tool calls were ever started.
    pub(crate) fn calls_started(&self) -> u64 {
        self.inner.calls.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Counts a tool call in flight for as long as the guard lives.
    fn in_flight(&self) -> InFlight {
        self.inner
            .calls
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.in_flight.send_modify(|count| *count += 1);
        InFlight(self.inner.in_flight.clone())
    }

    /// What the last folder sync said about the folders.
    pub(crate) fn folder_report(&self) -> Arc<FolderReport> {
        self.inner
            .folder_report
            .read()
            .map(|report| Arc::clone(&report))
            .unwrap_or_default()
    }

    pub(crate) fn store(&self) -> &dyn Store {
        self.inner.store.as_ref()
    }

    /// The store, to share with the HTTP layer (which checks API keys in it).
    pub(crate) fn shared_store(&self) -> Arc<dyn Store> {
        Arc::clone(&self.inner.store)
    }

    pub(crate) fn read_only(&self) -> bool {
        self.inner.options.read_only
    }

    /// Reloads the catalog from the store and tells every connected client the lists changed.
    pub async fn refresh(&self) -> Result<(), StoreError> {
        self.reload(false).await.map(|_| ())
    }

    /// Reloads what changed in the store into the catalog; with `only_if_changed`, tells the
    /// clients only when some skill's revision differs (one added, changed or removed).
    /// Whether the catalog changed.
    async fn reload(&self, only_if_changed: bool) -> Result<bool, StoreError> {
        let _reloading = self.inner.reloading.lock().await;
        let changed = match self.catalog().reloaded(self.store()).await? {
            Some(catalog) => {
                if let Ok(mut current) = self.inner.catalog.write() {
                    *current = Arc::new(catalog);
                }
                true
            }
            None => false,
        };
        if changed || !only_if_changed {
            self.announce_changes();
        }
        Ok(changed)
    }

    /// Follows the changes anyone makes to the store (another server on the same database,
    /// `skillpath import`), when the store can tell ([`Store::watch_changes`]): after each burst
    /// of change signals, reloads the catalog and notifies clients if it differs (the server's
    /// own writes have already refreshed it, so they announce nothing twice). Whether the
    /// store offers changes to follow; the follower stops when the server is gone. Call it
    /// inside a tokio runtime.
    pub fn follow_store(&self) -> bool {
        let Some(mut changes) = self.inner.store.watch_changes() else {
            return false;
        };
        let inner = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            use broadcast::error::{RecvError, TryRecvError};
            loop {
                if let Err(RecvError::Closed) = changes.recv().await {
                    return;
                }
                // One reload for the burst: drop the signals already queued behind this one.
                while matches!(changes.try_recv(), Ok(()) | Err(TryRecvError::Lagged(_))) {}
                let Some(inner) = inner.upgrade() else {
                    return;
                };
                let server = SkillServer {
                    inner,
                    subscriptions: Arc::default(),
                };
                if let Err(error) = server.reload(true).await {
                    eprintln!(
                        "skillpath: reloading the skills after a change in the store failed: {error}"
                    );
                }
            }
        });
        true
    }

    /// Tells every connected client what changed in its lists.
    pub(crate) fn announce_changes(&self) {
        let _ = self.inner.changes.send(Announcement::Changes);
    }

    /// Tells every connected client that every list changed, whatever the catalog holds (the
    /// conformance suite's trigger tools ask for that).
    pub(crate) fn announce_every_list(&self) {
        let _ = self.inner.changes.send(Announcement::EveryList);
    }

    fn fixtures(&self) -> bool {
        self.inner.options.conformance_fixtures
    }

    /// `items`, after the conformance fixtures from `fixtures` when they are on.
    fn with_fixtures<T>(&self, fixtures: fn() -> Vec<T>, items: Vec<T>) -> Vec<T> {
        if !self.fixtures() {
            return items;
        }
        let mut all = fixtures();
        all.extend(items);
        all
    }

    fn per_skill_tools(&self, catalog: &Catalog) -> bool {
        match self.inner.options.tools {
            ToolsMode::PerSkill => true,
            ToolsMode::Loader => false,
            ToolsMode::Auto(threshold) => catalog.len() <= threshold,
        }
    }

    /// The tools `role` may see, in listing order: built-ins by their role, then the skills'
    /// tools (everyone's). Built once per catalog and role, since clients page through it.
    fn tools<'a>(&self, catalog: &'a Catalog, role: KeyRole) -> &'a [Tool] {
        catalog.lists.tools[role as usize].get_or_init(|| {
            let mut tools: Vec<Tool> = BUILTINS
                .iter()
                .filter(|builtin| !(builtin.writes && self.read_only()) && builtin.role <= role)
                .map(builtin_tool)
                .collect();
            if self.per_skill_tools(catalog) {
                tools.extend(catalog.tools().map(|(name, skill)| skill_tool(name, skill)));
            }
            self.with_fixtures(fixtures::tools, tools)
        })
    }

    /// Every resource, in listing order. Built once per catalog.
    fn resource_list<'a>(&self, catalog: &'a Catalog) -> &'a [rmcp::model::Resource] {
        catalog
            .lists
            .resources
            .get_or_init(|| self.with_fixtures(fixtures::resources, resources::list(catalog)))
    }

    /// Every prompt, in listing order. Built once per catalog. A skill's prompt is named as
    /// its tool is, by the one tool-name table (`tool_name`, else `name`; see
    /// [`skillpath_core::tool_names`]), so the slash command a user types and the tool the model
    /// calls have one name; a skill that has no tool name of its own has no prompt either (it
    /// stays reachable through `load_skill`), in every tools mode.
    fn prompt_list<'a>(&self, catalog: &'a Catalog) -> &'a [Prompt] {
        catalog.lists.prompts.get_or_init(|| {
            let prompts = catalog
                .tools()
                .map(|(name, skill)| skill_prompt(name, skill))
                .collect();
            self.with_fixtures(fixtures::prompts, prompts)
        })
    }

    /// Which lists changed from `before` to `after`, so that a client hears `list_changed`
    /// for a list only when its items did: editing a skill's body changes no tool, prompt or
    /// resource entry (its resources get `resources/updated` instead).
    fn list_changes(&self, before: &Catalog, after: &Catalog) -> ListChanges {
        // Skills' tools are everyone's and the built-ins never change between catalogs, so
        // one role's list changes exactly when every role's does.
        let role = KeyRole::Admin;
        let (resources_before, resources_after) =
            (self.resource_list(before), self.resource_list(after));
        ListChanges {
            tools: self.tools(before, role) != self.tools(after, role),
            prompts: self.prompt_list(before) != self.prompt_list(after),
            resources: resources_before.len() != resources_after.len()
                || resources_before
                    .iter()
                    .zip(resources_after)
                    .any(|(a, b)| !same_entry(a, b)),
        }
    }

    fn page_size(&self) -> usize {
        self.inner.options.page_size.max(1)
    }
}

/// Whether two resource entries list the same thing: every field but the size, which follows
/// the content (and `resources/updated` reports content changes). Runs for every session at
/// every change, so it compares in place.
fn same_entry(a: &rmcp::model::Resource, b: &rmcp::model::Resource) -> bool {
    a.uri == b.uri
        && a.name == b.name
        && a.title == b.title
        && a.description == b.description
        && a.mime_type == b.mime_type
        && a.icons == b.icons
        && a.meta == b.meta
        && a.annotations == b.annotations
}

/// A skill as MCP lists it as the prompt `name`: its arguments as the prompt's.
fn skill_prompt(name: &str, skill: &CatalogSkill) -> Prompt {
    let arguments: Vec<PromptArgument> = skill
        .golden
        .args
        .iter()
        .map(|arg| {
            let mut argument = PromptArgument::new(arg.name.clone()).with_required(arg.required);
            if let Some(description) = &arg.description {
                argument = argument.with_description(description.clone());
            }
            argument
        })
        .collect();
    Prompt::new(
        name.to_owned(),
        Some(skill.stored.description.clone()),
        Some(arguments),
    )
}

/// A built-in tool as MCP lists it.
fn builtin_tool(builtin: &crate::builtin::Builtin) -> Tool {
    let schema = (builtin.schema)();
    Tool::new(
        builtin.name,
        builtin.description,
        Arc::new(schema.as_object().cloned().unwrap_or_default()),
    )
    .with_annotations(
        ToolAnnotations::new()
            .read_only(!builtin.writes)
            .destructive(false)
            .open_world(false),
    )
}

/// A skill's tool as MCP lists it: its description, and its arguments as the input schema.
fn skill_tool(tool_name: &str, skill: &CatalogSkill) -> Tool {
    let input = schema::input_schema(&skill.golden.args);
    Tool::new(
        tool_name.to_owned(),
        skill.stored.description.clone(),
        Arc::new(input.as_object().cloned().unwrap_or_default()),
    )
    .with_annotations(
        ToolAnnotations::new()
            .read_only(true)
            .idempotent(true)
            .open_world(false),
    )
}

/// Most bytes of serialized items in one page, whatever the page size: well under the 1 MiB a
/// client may accept in one message (the official Python SDK refuses larger events), even when
/// skills have long descriptions and many arguments.
pub(crate) const PAGE_BYTES: usize = 256 * 1024;

/// What a page's message holds besides its items, at most: the JSON-RPC envelope, the list's
/// key, `nextCursor`, and the framing of an HTTP event stream. Reserved out of [`PAGE_BYTES`],
/// so the budget holds for the whole message as sent.
const PAGE_ENVELOPE_BYTES: usize = 4 * 1024;

/// One page of `items` after `cursor` (an offset this server handed out): at most `page_size`
/// items, and at most [`PAGE_BYTES`] bytes as sent (the items, their commas and the envelope),
/// but never empty while items remain.
pub(crate) fn paginate<T: serde::Serialize + Clone>(
    items: &[T],
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(Vec<T>, Option<String>), McpError> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .strip_prefix("o")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n <= items.len())
            .ok_or_else(|| McpError::invalid_params(format!("invalid cursor `{cursor}`"), None))?,
    };
    let mut end = start;
    let mut bytes = PAGE_ENVELOPE_BYTES;
    for item in items.iter().skip(start).take(page_size) {
        // The item and the comma before the next one.
        let size = serde_json::to_vec(item).map_or(0, |json| json.len()) + 1;
        if end > start && bytes + size > PAGE_BYTES {
            break;
        }
        bytes += size;
        end += 1;
    }
    let next = (end < items.len()).then(|| format!("o{end}"));
    Ok((items[start..end].to_vec(), next))
}

/// The skill's content as a loaded skill: wrapped so clients can recognise and keep it, with
/// its base URI and the list of its files (not their content).
pub(crate) fn skill_content(skill: &CatalogSkill, markdown: &str) -> String {
    let name = &skill.stored.name;
    let mut text = format!("<skill_content name=\"{name}\">\n{}", markdown.trim_end());
    text.push_str(&format!(
        "\n\nSkill directory: skill://{name}/\nRelative paths in this skill are relative to the skill directory; read them as `skill://{name}/<path>` resources.\n"
    ));
    if !skill.stored.snapshot.files.is_empty() {
        text.push_str("<skill_resources>\n");
        for file in &skill.stored.snapshot.files {
            text.push_str(&format!("<file>{}</file>\n", file.path));
        }
        text.push_str("</skill_resources>\n");
    }
    text.push_str("</skill_content>\n");
    text
}

/// The Skills-extension entry of a skill: its `SKILL.md` URI, its frontmatter verbatim, and a
/// digest of every file; or why the extension cannot carry it. The extension carries skills
/// of the Agent Skills specification, whose hard rules hosts check (a name outside its rules,
/// a description over 1,024 characters); such a skill stays reachable as a tool, a prompt and
/// resources, and `serve` says so at start.
pub(crate) fn skill_entry(skill: &CatalogSkill) -> Result<rmcp::model::Skill, String> {
    let name = &skill.stored.name;
    let uri = format!("skill://{name}/SKILL.md");
    // Verbatim, as hosts compare it field by field with the file: the store's description is
    // trimmed (a block scalar `description: |` keeps its final newline in the file).
    let serde_json::Value::Object(mut fields) = skill.skill_md.frontmatter_json() else {
        return Err("its frontmatter is not a mapping".to_owned());
    };
    let text = |value: Option<serde_json::Value>| match value {
        Some(serde_json::Value::String(text)) => Some(text),
        _ => None,
    };
    let description = text(fields.remove("description"))
        .ok_or_else(|| "its `description` is not text".to_owned())?;
    if text(fields.remove("name")).as_ref() != Some(name) {
        return Err("its `name` is not text".to_owned());
    }
    if !skillpath_core::validate::description_within_limits(&description) {
        return Err(format!(
            "its description is {} characters, over the specification's {}",
            description.chars().count(),
            skillpath_core::validate::MAX_DESCRIPTION_CHARS
        ));
    }
    let mut frontmatter = SkillFrontmatter::new(name.clone(), description);
    for (key, value) in fields {
        frontmatter = frontmatter.with_field(key, value);
    }
    let mut files = vec![SkillResource::from_bytes(
        uri.clone(),
        skill.stored.snapshot.skill_md.as_bytes(),
    )];
    files.extend(skill.stored.snapshot.files.iter().map(|file| {
        SkillResource::from_bytes(format!("skill://{name}/{}", file.path), &file.bytes)
    }));
    let entry = rmcp::model::Skill::new(uri, frontmatter, SkillResources::Files(files));
    entry
        .validate()
        .map(|()| entry)
        .map_err(|error| format!("the Skills extension refuses it: {error}"))
}

impl SkillServer {
    /// Renders `skill` with `arguments` within the server's render limits; argument problems
    /// (a limit among them) become the error text.
    pub(crate) fn render_skill(
        &self,
        skill: &CatalogSkill,
        arguments: &JsonObject,
    ) -> Result<String, ArgumentsError> {
        let files = skill.files();
        render::render_within(
            &skill.skill_md,
            &skill.golden,
            &files,
            arguments,
            &self.inner.options.render_limits,
        )
        .map(|rendered| rendered.markdown)
    }
}

pub(crate) fn text_result(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text.into())]).into()
}

pub(crate) fn error_result(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(text.into())]).into()
}

/// The largest `initialize` parameters a session keeps (what a client says of itself, with
/// its capabilities, is a few hundred bytes).
pub(crate) const MAX_INITIALIZE_BYTES: usize = 16 * 1024;

/// The most resource subscriptions one session holds.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1000;

/// The longest resource URI a session may subscribe to.
pub(crate) const MAX_SUBSCRIBED_URI_BYTES: usize = 2048;

const INSTRUCTIONS: &str = "This server holds skills: specialized instructions for specific tasks. \
When a task matches a skill's description, call the skill's tool (or `load_skill` with its name) \
before proceeding, and follow what it returns. Use `search_skills` to find a skill when you are \
not sure which applies. Skill content comes wrapped in <skill_content>; relative paths in it are \
relative to the skill directory, readable as skill://<name>/<path> resources. To author a skill, \
start with `plan_skill`.";

/// The most characters of the instructions, the skill listing included; the rest is found by
/// search.
const INSTRUCTIONS_BUDGET: usize = 4000;

/// The instructions: how to use skills, then as many `- name: description` lines as fit the
/// budget (descriptions cut to 120 characters), and how many more there are.
fn instructions(catalog: &Catalog) -> String {
    let mut text = String::from(INSTRUCTIONS);
    if catalog.is_empty() {
        return text;
    }
    text.push_str("\n\nSkills:\n");
    let more = |count: usize| format!("… and {count} more; find them with `search_skills`.\n");
    // The budget holds for the whole text: room is kept for the line that says how many more
    // there are (at its longest), unless every skill is listed.
    let reserve = more(catalog.len()).chars().count();
    let mut used = text.chars().count();
    let mut listed = 0;
    for skill in catalog.skills() {
        let description: String = skill
            .stored
            .description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let description = if description.chars().count() > 120 {
            format!("{}…", description.chars().take(119).collect::<String>())
        } else {
            description
        };
        let line = format!("- {}: {description}\n", skill.stored.name);
        let length = line.chars().count();
        let last = listed + 1 == catalog.len();
        if used + length + if last { 0 } else { reserve } > INSTRUCTIONS_BUDGET {
            break;
        }
        used += length;
        listed += 1;
        text.push_str(&line);
    }
    if listed < catalog.len() {
        text.push_str(&more(catalog.len() - listed));
    }
    text
}

impl ServerHandler for SkillServer {
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
                .enable_skills_with_directory_read()
                .build(),
        )
        .with_server_info(Implementation::new("skillpath", env!("CARGO_PKG_VERSION")))
        .with_instructions(instructions(&self.catalog()))
    }

    /// Any tool by name, whoever asks (the SDK reads its schema to check requests; calling it
    /// still checks the caller's role).
    fn get_tool(&self, name: &str) -> Option<Tool> {
        let catalog = self.catalog();
        self.tools(&catalog, KeyRole::Admin)
            .iter()
            .find(|tool| tool.name == name)
            .cloned()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        let catalog = self.catalog();
        let tools = self.tools(&catalog, Caller::of(&context).role);
        let (tools, next) = paginate(tools, cursor.as_deref(), self.page_size())?;
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = next;
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // Counted before the check, so a shutdown that begins between the two still waits.
        let _in_flight = self.in_flight();
        if self.inner.closing.is_cancelled() {
            return Ok(error_result(
                "the server is shutting down and takes no more calls; call again once it is back",
            ));
        }
        if self.fixtures()
            && let Some(result) = fixtures::call(self, &request.name, &context).await
        {
            return result;
        }
        let arguments = request.arguments.unwrap_or_default();
        if let Some(builtin) = BUILTINS.iter().find(|b| b.name == request.name) {
            if builtin.writes && self.read_only() {
                return Err(McpError::invalid_params(
                    format!("`{}` writes, and this server is read-only", builtin.name),
                    None,
                ));
            }
            let caller = Caller::of(&context);
            if let Some(refusal) = caller.refusal(&format!("`{}`", builtin.name), builtin.role) {
                return Err(McpError::invalid_params(refusal, None));
            }
            return Ok(authoring::call(self, &caller, builtin.name, &arguments).await);
        }
        let catalog = self.catalog();
        let Some(skill) = catalog.tool(&request.name) else {
            return Err(McpError::invalid_params(
                format!("unknown tool `{}`", request.name),
                None,
            ));
        };
        Ok(match self.render_skill(skill, &arguments) {
            Ok(markdown) => text_result(skill_content(skill, &markdown)),
            Err(error) => error_result(error.to_string()),
        })
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        let catalog = self.catalog();
        let all = self.resource_list(&catalog);
        let (items, next) = paginate(all, cursor.as_deref(), self.page_size())?;
        let mut result = ListResourcesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            self.with_fixtures(
                fixtures::resource_templates,
                vec![
                    ResourceTemplate::new("skill://{name}/SKILL.md", "skill")
                        .with_description("A skill's SKILL.md, as stored (not rendered)")
                        .with_mime_type("text/markdown"),
                    ResourceTemplate::new("skill://{name}/{path}", "skill-file").with_description(
                        "A file of a skill: a template, script or reference, as stored",
                    ),
                ],
            ),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let fixture = self.fixtures().then(|| fixtures::read(&request.uri));
        let contents: ResourceContents = match fixture.flatten() {
            Some(contents) => contents,
            None => resources::read(&self.catalog(), &request.uri)?,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        let catalog = self.catalog();
        let prompts = self.prompt_list(&catalog);
        let (items, next) = paginate(prompts, cursor.as_deref(), self.page_size())?;
        let mut result = ListPromptsResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        if self.fixtures()
            && let Some(result) = fixtures::get_prompt(&request.name, &arguments)
        {
            return result.map(Into::into);
        }
        let catalog = self.catalog();
        let Some(skill) = catalog.tool(&request.name) else {
            return Err(McpError::invalid_params(
                format!("unknown prompt `{}`", request.name),
                None,
            ));
        };
        let markdown = self
            .render_skill(skill, &arguments)
            .map_err(|error| McpError::invalid_params(error.to_string(), None))?;
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            skill_content(skill, &markdown),
        )])
        .with_description(skill.stored.description.clone())
        .into())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        let entries: Vec<rmcp::model::Skill> = self
            .catalog()
            .skills()
            .filter_map(|skill| skill_entry(skill).ok())
            .collect();
        let (items, next) = paginate(&entries, cursor.as_deref(), self.page_size())?;
        let mut result = ListSkillsResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        let catalog = self.catalog();
        let entry = rmcp::model::skill_name_from_uri(&request.uri)
            .and_then(|name| catalog.skill(name))
            .and_then(|skill| skill_entry(skill).ok())
            .filter(|entry| entry.uri == request.uri)
            .ok_or_else(|| {
                McpError::invalid_params(format!("no skill at `{}`", request.uri), None)
            })?;
        Ok(GetSkillResult::new(entry))
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, McpError> {
        let children = resources::directory(&self.catalog(), &request.uri)?;
        let (items, next) = paginate(&children, request.cursor.as_deref(), self.page_size())?;
        let mut result = ReadResourceDirectoryResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let catalog = self.catalog();
        let prefix = request.argument.value.as_str();
        let mut values: Vec<String> = match &request.r#ref {
            Reference::Resource(_) if request.argument.name == "name" => catalog
                .skills()
                .map(|skill| skill.stored.name.clone())
                .collect(),
            Reference::Resource(_) if request.argument.name == "path" => {
                let name = request
                    .context
                    .as_ref()
                    .and_then(|c| c.arguments.as_ref())
                    .and_then(|a| a.get("name"));
                match name.and_then(|name| catalog.skill(name)) {
                    Some(skill) => std::iter::once("SKILL.md".to_owned())
                        .chain(skill.stored.snapshot.files.iter().map(|f| f.path.clone()))
                        .collect(),
                    None => Vec::new(),
                }
            }
            Reference::Prompt(prompt) => catalog
                .tool(&prompt.name)
                .and_then(|skill| {
                    skill
                        .golden
                        .args
                        .iter()
                        .find(|arg| arg.name == request.argument.name)
                })
                .and_then(|arg| arg.allowed.clone())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        values.retain(|value| value.starts_with(prefix));
        let total = values.len();
        values.truncate(CompletionInfo::MAX_VALUES);
        let info = CompletionInfo::with_pagination(
            values,
            Some(total as u32),
            total > CompletionInfo::MAX_VALUES,
        )
        .map_err(|error| McpError::internal_error(error, None))?;
        Ok(CompleteResult::new(info))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let mut changes = self.inner.changes.subscribe();
        let mut seen = self.catalog();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                change = changes.recv() => {
                    if matches!(change, Err(broadcast::error::RecvError::Closed)) {
                        return Ok(());
                    }
                    // A lagging receiver has missed signals, not catalogs: comparing with the
                    // current catalog still finds every change.
                    let now = self.catalog();
                    let changes = match change {
                        Ok(Announcement::EveryList) => ListChanges::EVERY,
                        _ => self.list_changes(&seen, &now),
                    };
                    if notify_listener(&context, &seen, &now, changes).await.is_err() {
                        return Ok(());
                    }
                    seen = now;
                }
            }
        }
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
        self.negotiate_initialize(&request)
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if request.uri.len() > MAX_SUBSCRIBED_URI_BYTES {
            return Err(McpError::invalid_params(
                format!(
                    "a resource URI of {} bytes; the limit is {MAX_SUBSCRIBED_URI_BYTES}",
                    request.uri.len()
                ),
                None,
            ));
        }
        let fixture = self.fixtures() && fixtures::is_resource(&request.uri);
        if !fixture && !resources::is_skill_uri(&request.uri) {
            return Err(McpError::invalid_params(
                format!(
                    "`{}` is not a resource of this server: skill resources are \
                     `skill://<name>/<path>`",
                    request.uri
                ),
                None,
            ));
        }
        if let Ok(mut uris) = self.subscriptions.lock() {
            if uris.len() >= MAX_SUBSCRIPTIONS && !uris.contains(&request.uri) {
                return Err(McpError::invalid_params(
                    format!(
                        "this session has {MAX_SUBSCRIPTIONS} subscriptions, the limit; unsubscribe from one first"
                    ),
                    None,
                ));
            }
            uris.insert(request.uri);
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if let Ok(mut uris) = self.subscriptions.lock() {
            uris.remove(&request.uri);
        }
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let session = self.clone();
        let mut changes = self.inner.changes.subscribe();
        let peer = context.peer;
        tokio::spawn(async move {
            let mut seen = session.catalog();
            loop {
                let signal = tokio::select! {
                    signal = changes.recv() => signal,
                    () = tokio::time::sleep(SESSION_END_CHECK) => {
                        // Nothing says when a session ends but its closed transport; without
                        // this check every ended session would keep its task (and the server's
                        // state) until the next change, however long that takes.
                        if peer.is_transport_closed() {
                            return;
                        }
                        continue;
                    }
                };
                if matches!(signal, Err(broadcast::error::RecvError::Closed)) {
                    return;
                }
                let now = session.catalog();
                let updated = resources::updated(&seen, &now, &session.subscribed());
                let changes = match signal {
                    Ok(Announcement::EveryList) => ListChanges::EVERY,
                    _ => session.list_changes(&seen, &now),
                };
                seen = now;
                // Updates first, so a client that re-reads on `list_changed` already knows which
                // of its resources changed.
                let sent = async {
                    for uri in updated {
                        peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                            .await?;
                    }
                    if changes.tools {
                        peer.notify_tool_list_changed().await?;
                    }
                    if changes.prompts {
                        peer.notify_prompt_list_changed().await?;
                    }
                    if changes.resources {
                        peer.notify_resource_list_changed().await?;
                    }
                    Ok::<(), rmcp::service::ServiceError>(())
                };
                if sent.await.is_err() {
                    return;
                }
            }
        });
    }
}

/// What a signal on the server's change channel asks its listeners to announce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Announcement {
    /// What changed between the catalog a listener last saw and the current one.
    Changes,
    /// Every list, changed or not.
    EveryList,
}

/// Which of the lists a client holds changed between two catalogs.
#[derive(Debug, Clone, Copy)]
struct ListChanges {
    tools: bool,
    prompts: bool,
    resources: bool,
}

impl ListChanges {
    const EVERY: ListChanges = ListChanges {
        tools: true,
        prompts: true,
        resources: true,
    };
}

/// How often a session's change listener checks whether its session has ended.
const SESSION_END_CHECK: std::time::Duration = std::time::Duration::from_secs(10);

/// Sends a `subscriptions/listen` stream what changed from `before` to `after`: an update for
/// each subscribed resource that changed, then the `list_changed` notifications it accepted. An error means the stream is gone.
async fn notify_listener(
    context: &SubscriptionContext,
    before: &Catalog,
    after: &Catalog,
    changes: ListChanges,
) -> Result<(), rmcp::service::SubscriptionSendError> {
    let sink = context.sink();
    let accepted = sink.accepted().clone();
    let subscribed = accepted.resource_subscriptions.unwrap_or_default();
    for uri in resources::updated(before, after, &subscribed) {
        sink.notify_resource_updated(uri).await?;
    }
    if changes.tools && accepted.tools_list_changed == Some(true) {
        sink.notify_tool_list_changed().await?;
    }
    if changes.prompts && accepted.prompts_list_changed == Some(true) {
        sink.notify_prompt_list_changed().await?;
    }
    if changes.resources && accepted.resources_list_changed == Some(true) {
        sink.notify_resource_list_changed().await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rmcp::ServiceExt;
    use skillpath_store::SqliteStore;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use super::{PAGE_BYTES, SESSION_END_CHECK, SkillServer, paginate};
    use crate::ServerOptions;

    /// Found by the `mcp_request` fuzz target (memory grew with every session): each session's
    /// change listener lived on after the session ended, until the next change, holding the
    /// server's state. Now it ends within [`SESSION_END_CHECK`] of its session.
    #[tokio::test(start_paused = true)]
    async fn a_session_s_change_listener_ends_with_the_session() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Arc::new(SqliteStore::open(&dir.path().join("store.db")).expect("open"));
        let server = SkillServer::new(store, ServerOptions::default())
            .await
            .expect("a server");
        let alone = Arc::strong_count(&server.inner);
        let (client, server_end) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server_end);
        let session = server.for_session();
        let running = tokio::spawn(async move {
            if let Ok(service) = session.serve((read, write)).await {
                let _ = service.waiting().await;
            }
        });
        let (client_read, mut client_write) = tokio::io::split(client);
        client_write
            .write_all(
                concat!(
                    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
                    "\n",
                    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                    "\n",
                    r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
                    "\n"
                )
                .as_bytes(),
            )
            .await
            .expect("the server reads");
        let mut lines = BufReader::new(client_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains(r#""id":2"#) {
                break;
            }
        }
        assert!(
            Arc::strong_count(&server.inner) > alone,
            "the session and its listener hold the server"
        );
        drop(client_write);
        drop(lines);
        running.abort();
        let _ = running.await;
        tokio::time::sleep(SESSION_END_CHECK * 2).await;
        assert_eq!(
            Arc::strong_count(&server.inner),
            alone,
            "an ended session's listener still holds the server"
        );
    }

    /// Every page of `items`, following the cursors.
    fn pages(items: &[String], page_size: usize) -> Vec<Vec<String>> {
        let mut pages = Vec::new();
        let mut cursor = None;
        loop {
            let (page, next) =
                paginate(items, cursor.as_deref(), page_size).expect("a valid cursor");
            pages.push(page);
            match next {
                Some(next) => cursor = Some(next),
                None => return pages,
            }
        }
    }

    #[test]
    fn pages_hold_page_size_items_and_every_item_once() {
        let items: Vec<String> = (0..25).map(|i| format!("item-{i}")).collect();
        let pages = pages(&items, 10);
        assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [10, 10, 5]);
        assert_eq!(pages.concat(), items);
    }

    #[test]
    fn large_items_end_a_page_before_it_reaches_the_byte_budget() {
        let items: Vec<String> = (0..40).map(|i| format!("{i:0>20000}")).collect();
        let pages = pages(&items, 100);
        assert!(pages.len() > 1, "{} pages", pages.len());
        for page in &pages {
            let bytes: usize = page.iter().map(|item| item.len() + 2).sum();
            assert!(bytes <= PAGE_BYTES, "{bytes} bytes");
        }
        assert_eq!(pages.concat(), items);
    }

    #[test]
    fn an_item_over_the_budget_still_gets_a_page_of_its_own() {
        let items = vec!["a".to_owned(), "b".repeat(PAGE_BYTES * 2), "c".to_owned()];
        let pages = pages(&items, 100);
        assert_eq!(pages.len(), 3);
        assert_eq!(pages.concat(), items);
    }

    #[test]
    fn a_cursor_this_server_did_not_hand_out_is_invalid_params() {
        for cursor in ["x", "o99", "o-1"] {
            let error = paginate(&[1, 2, 3], Some(cursor), 2).expect_err("invalid");
            assert_eq!(
                error.code,
                rmcp::model::ErrorCode::INVALID_PARAMS,
                "{cursor}"
            );
        }
    }
}
