//! The server's shared state: the store, the catalog and its reloads (after a write, after a
//! change by another process), the change channel every listener hears, the folder report, and
//! the shutdown and readiness bookkeeping. One [`SkillServer`] handle per session shares it.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, RwLock};

use rmcp::ErrorData as McpError;
use rmcp::RoleServer;
use rmcp::service::RequestContext;
use skillpath_core::golden_path::render::RenderLimits;
use skillpath_folders::folder::FolderDiagnostics;
use skillpath_model::ShadowedSkill;
use skillpath_store::{Store, StoreError};
use tokio::sync::broadcast;

use crate::catalog::{App, Catalog, CatalogSkill};
use crate::client_log::{ClientLog, Level, SessionLevel};
use crate::elicit_state::{DEFAULT_ELICIT_TIMEOUT, ElicitMode, Elicitation};
use skillpath_app::Meaning;
use skillpath_app::{AppOptions, Caller};
use skillpath_app::{DEFAULT_CONTENT_CACHE_BYTES, SkillContent};

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
    /// Whether what author keys create and update is saved as a draft for a maintainer to
    /// publish ([`skillpath_store::drafts`]), rather than served at once.
    pub review: bool,
    /// Per-skill tools or the loader.
    pub tools: ToolsMode,
    /// Items per page of every list.
    pub page_size: usize,
    /// Also serve the MCP conformance suite's fixtures (`fixtures`); for that suite only.
    #[cfg(feature = "conformance-fixtures")]
    pub conformance_fixtures: bool,
    /// Bounds on every render (a skill's tool, `load_skill`, a prompt). Renders run on the
    /// server's worker threads without waiting, so at most as many run at once as there are
    /// workers, each within these bounds.
    pub render_limits: RenderLimits,
    /// The most bytes of skill content (`SKILL.md` and files) kept in memory for the skills
    /// called, read and fetched most recently ([`skillpath_app::content`]).
    pub content_cache_bytes: u64,
    /// When a call with missing or wrong arguments asks the user for them
    /// ([`crate::elicitation`]).
    pub elicit: ElicitMode,
    /// How long a user has to answer a form: an `elicitation/create` request waits this long,
    /// and a 2026 client's `requestState` expires after it.
    pub elicit_timeout: std::time::Duration,
    /// The key that seals `requestState` (at least [`crate::MIN_STATE_KEY_BYTES`] bytes; replicas
    /// behind one address share it). `None`, or a shorter key: a random key of this process.
    pub request_state_key: Option<Vec<u8>>,
    /// The embedding model searches rank by beside the words they match (none: the words alone).
    pub meaning: Meaning,
    /// How long the requests that read the catalog wait for the first folder sync before they
    /// are answered from the store as it is (`SkillServer::wait_for_first_sync`); zero: they
    /// never wait.
    pub sync_wait: std::time::Duration,
    /// The namespaces the server is narrowed to (`serve --namespace`): it serves, shows and
    /// takes writes in those alone, whoever asks; `None`: all.
    pub namespaces: Option<Vec<skillpath_model::Namespace>>,
    /// Which revision of each item is served (`serve --channel`): a tag's release, or `head`.
    pub channel: skillpath_app::Channel,
}

/// The default [`ServerOptions::sync_wait`]: the import of a few hundred skills into a new
/// store, with room to spare.
pub const DEFAULT_SYNC_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// What a model is told while the first folder sync is still under way past
/// [`ServerOptions::sync_wait`]: in the instructions, and beside `syncing: true` in what
/// `list_skills` and `search_skills` answer.
pub(crate) const STILL_SYNCING: &str = "The skill folders are still being loaded into this \
server's catalog, so some skills may be missing for now: list again when the server sends \
`notifications/tools/list_changed`, or in a few seconds.";

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            read_only: false,
            review: false,
            tools: ToolsMode::Auto(DEFAULT_TOOL_THRESHOLD),
            page_size: 100,
            #[cfg(feature = "conformance-fixtures")]
            conformance_fixtures: false,
            render_limits: RenderLimits::default(),
            content_cache_bytes: DEFAULT_CONTENT_CACHE_BYTES,
            elicit: ElicitMode::default(),
            elicit_timeout: DEFAULT_ELICIT_TIMEOUT,
            request_state_key: None,
            meaning: Meaning::default(),
            sync_wait: DEFAULT_SYNC_WAIT,
            namespaces: None,
            channel: skillpath_app::Channel::default(),
        }
    }
}

struct Inner {
    /// The application: the store, the catalog, the rules and the operations every tool asks
    /// for.
    app: App,
    changes: broadcast::Sender<Announcement>,
    /// What legacy sessions are told of the server's background work ([`crate::client_log`]).
    logs: broadcast::Sender<ClientLog>,
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
    /// Where the first folder sync stands, for the requests that wait for it.
    first_sync: tokio::sync::watch::Sender<FirstSync>,
    /// The uses of skills counted and not yet written.
    usage: Arc<crate::usage::Tally>,
    /// How calls ask their users for values, and the forms waiting for an answer.
    elicitation: Elicitation,
    /// The instructions of the whole catalog, and the catalog they were written for: what the
    /// server's information carries, which a stateless request asks for every time, made once
    /// per catalog rather than once per request (they name and order the skills).
    instructions: Mutex<Option<(Arc<Catalog>, Arc<str>)>>,
}

/// Where the first folder sync of a server stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FirstSync {
    /// None was begun: the server serves its store (a server without folders).
    None,
    /// Under way; requests wait for it until `until`, unless the store already held the
    /// folders' skills.
    Running {
        /// When the requests stop waiting for it.
        until: tokio::time::Instant,
        /// The store already held a skill of every folder source (a warm start): requests
        /// are answered from it at once, and the sync only brings edits made while the server
        /// was not running, announced with `list_changed` as any later edit is.
        stored: bool,
    },
    /// Its skills are in the catalog (requests go on, and nothing says the catalog is still
    /// loading); what it has to say is being said.
    Loaded,
    /// Finished, or failed (the store's last state is served and the sync is tried again).
    Done,
}

impl FirstSync {
    fn running(&self) -> bool {
        matches!(self, FirstSync::Running { .. })
    }

    /// Whether it has finished, everything it had to say said (or none was begun).
    fn finished(&self) -> bool {
        matches!(self, FirstSync::None | FirstSync::Done)
    }

    /// Whether what is served may still lack skills of the folders: a first sync under way on
    /// a store that did not hold them yet.
    fn loading(&self) -> bool {
        matches!(self, FirstSync::Running { stored: false, .. })
    }
}

/// One tool call being answered; counted in [`Inner::in_flight`] for as long as it lives.
pub(crate) struct InFlight(tokio::sync::watch::Sender<usize>);

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
    /// The level of the messages this session is sent (`logging/setLevel`).
    session_level: SessionLevel,
}

impl SkillServer {
    /// A server over `store`, with the catalog loaded.
    pub async fn new(
        store: Arc<dyn Store>,
        options: ServerOptions,
    ) -> Result<SkillServer, StoreError> {
        let (changes, _) = broadcast::channel(16);
        let announced = changes.clone();
        let announce = Box::new(move || {
            let _ = announced.send(Announcement::Changes);
        });
        let rules = AppOptions {
            read_only: options.read_only,
            review: options.review,
            namespaces: options.namespaces.clone(),
            content_cache_bytes: options.content_cache_bytes,
            render_limits: options.render_limits,
            channel: options.channel.clone(),
        };
        let app = App::new(Arc::clone(&store), &options.meaning, rules, announce).await?;
        let (logs, _) = broadcast::channel(LOG_CHANNEL);
        Ok(SkillServer {
            inner: Arc::new(Inner {
                app,
                changes,
                logs,
                folder_report: RwLock::default(),
                closing: tokio_util::sync::CancellationToken::new(),
                in_flight: tokio::sync::watch::channel(0).0,
                calls: std::sync::atomic::AtomicU64::new(0),
                sync_problem: RwLock::default(),
                first_sync: tokio::sync::watch::Sender::new(FirstSync::None),
                usage: crate::usage::Tally::start(Arc::clone(&store)),
                elicitation: Elicitation::new(
                    options.elicit,
                    options.elicit_timeout,
                    options.request_state_key.as_deref(),
                ),
                options,
                instructions: Mutex::new(None),
            }),
            subscriptions: Arc::default(),
            session_level: SessionLevel::default(),
        })
    }

    /// Counts a use of `skill` (at its catalog revision) by the key `key`, if any.
    pub(crate) fn count_use(
        &self,
        skill: &CatalogSkill,
        key: Option<&str>,
        kind: skillpath_store::usage::UsageKind,
    ) {
        self.inner
            .usage
            .count(&skill.name, skill.revision, key, kind);
    }

    /// Writes the uses counted and not written yet: what a server does last, as it stops
    /// (otherwise they are written every few seconds), on every way of stopping. Within
    /// `crate::usage::LAST_WRITE_WITHIN`, so that a database that does not answer cannot
    /// hold a stopping server; the counts are then lost, and the log says so.
    pub async fn write_usage(&self) {
        let within = crate::usage::LAST_WRITE_WITHIN;
        if tokio::time::timeout(within, self.inner.usage.write())
            .await
            .is_err()
        {
            tracing::warn!(
                "the usage counts since the last write were not written within {} s and are lost",
                within.as_secs()
            );
        }
    }

    /// A handle for a new session: the same catalog and store, no resource subscriptions yet.
    pub fn for_session(&self) -> SkillServer {
        SkillServer {
            inner: Arc::clone(&self.inner),
            subscriptions: Arc::default(),
            session_level: SessionLevel::default(),
        }
    }

    /// The level of the messages this session is sent.
    pub(crate) fn session_level(&self) -> &SessionLevel {
        &self.session_level
    }

    /// Tells every legacy session `log`, at the level each asked for.
    pub(crate) fn tell_clients(&self, log: ClientLog) {
        let _ = self.inner.logs.send(log);
    }

    /// The messages for legacy sessions, from now on.
    pub(crate) fn client_logs(&self) -> broadcast::Receiver<ClientLog> {
        self.inner.logs.subscribe()
    }

    /// This session's resource subscriptions.
    pub(crate) fn subscribed(&self) -> Vec<String> {
        self.subscriptions
            .lock()
            .map(|uris| uris.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The current catalog, whole: what the server's own work reads (folder sync, health,
    /// collisions). What a caller is given is [`SkillServer::catalog_for`].
    pub fn catalog(&self) -> Arc<Catalog> {
        self.inner.app.catalog()
    }

    /// The part of the catalog `caller` is served ([`skillpath_app::App::catalog_for`]).
    pub fn catalog_for(&self, caller: &Caller) -> Arc<Catalog> {
        self.inner.app.catalog_for(caller)
    }

    /// The instructions of `catalog`, as `write` writes them: those of the whole catalog kept
    /// while it is current; a caller's part of it (asked for once per session) written anew.
    pub(crate) fn instructions_of(
        &self,
        catalog: Arc<Catalog>,
        write: impl Fn(&Catalog) -> String,
    ) -> Arc<str> {
        if !Arc::ptr_eq(&catalog, &self.catalog()) {
            return write(&catalog).into();
        }
        let Ok(mut kept) = self.inner.instructions.lock() else {
            return write(&catalog).into();
        };
        if let Some((of, text)) = kept.as_ref()
            && Arc::ptr_eq(of, &catalog)
        {
            return Arc::clone(text);
        }
        let text: Arc<str> = write(&catalog).into();
        *kept = Some((catalog, Arc::clone(&text)));
        text
    }

    /// [`SkillServer::catalog_for`] the caller of an MCP request.
    pub(crate) fn catalog_of(&self, context: &RequestContext<RoleServer>) -> Arc<Catalog> {
        self.catalog_for(&crate::auth::caller_of(context))
    }

    /// The application every tool and page asks.
    pub fn app(&self) -> &App {
        &self.inner.app
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

    /// Records that the first folder sync has begun: from now on the requests that read the
    /// catalog wait for it ([`SkillServer::wait_for_first_sync`]), for at most
    /// [`ServerOptions::sync_wait`] from now, unless the store already holds the folders'
    /// skills (`stored`, [`crate::folders::FolderSync::stored_in`]).
    pub(crate) fn begin_first_sync(&self, stored: bool) {
        let until = tokio::time::Instant::now() + self.inner.options.sync_wait;
        self.inner
            .first_sync
            .send_replace(FirstSync::Running { until, stored });
    }

    /// Records that the first folder sync has finished (or failed).
    pub(crate) fn set_first_sync_done(&self) {
        self.inner.first_sync.send_replace(FirstSync::Done);
    }

    /// Completes once the first folder sync has finished or failed ([`crate::folders::watch`]),
    /// at once when none was begun.
    pub async fn first_sync_done(&self) {
        let mut state = self.inner.first_sync.subscribe();
        let _ = state.wait_for(FirstSync::finished).await;
    }

    /// Waits for the first folder sync, within [`ServerOptions::sync_wait`] of its start: what
    /// a request that reads the catalog does first, so that a client that lists once, on a new
    /// store, is answered from the synced catalog. A server whose first sync is done (or that has
    /// none, or whose store already held the folders' skills) goes on at once; past the bound the store's state
    /// is served, and [`SkillServer::syncing`] says so.
    pub(crate) async fn wait_for_first_sync(&self) {
        let FirstSync::Running {
            until,
            stored: false,
        } = *self.inner.first_sync.borrow()
        else {
            return;
        };
        tracing::debug!(
            "a request waits for the first sync of the skill folders (at most {} ms more)",
            until
                .saturating_duration_since(tokio::time::Instant::now())
                .as_millis()
        );
        let mut state = self.inner.first_sync.subscribe();
        let _ = tokio::time::timeout_at(until, state.wait_for(|state| !state.running())).await;
    }

    /// Whether the first folder sync is still under way on a store that did not hold the
    /// folders' skills yet: what is served may lack some of them ([`STILL_SYNCING`]).
    pub(crate) fn syncing(&self) -> bool {
        self.inner.first_sync.borrow().loading()
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
            "folders": match folders {
                Some(problem) => format!("the last sync failed: {problem}"),
                None if self.syncing() => {
                    "syncing: requests wait for the first sync (up to the sync wait), then the store's last state is served until it is done".to_owned()
                }
                None => "ok".to_owned(),
            },
            "skills": self.catalog().len(),
            "elicitations_waiting": self.elicitation().waiting(),
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
        self.inner.app.store()
    }

    pub(crate) fn read_only(&self) -> bool {
        self.inner.app.options().read_only
    }

    /// Reloads the catalog from the store and tells every connected client the lists changed.
    pub async fn refresh(&self) -> Result<(), StoreError> {
        self.reload(false).await.map(|_| ())
    }

    /// The first folder sync's reload: the catalog caught up with what the sync wrote
    /// (`changed`: announced whether or not it differs; else only if it does), and marked
    /// loaded before any client is told, so that a client that hears `list_changed` never
    /// reads that the catalog is still loading.
    pub(crate) async fn first_sync_loaded(&self, changed: bool) -> Result<(), StoreError> {
        let loaded = || {
            self.inner.first_sync.send_replace(FirstSync::Loaded);
        };
        self.inner
            .app
            .reload_then(!changed, loaded)
            .await
            .map(|_| ())
    }

    /// Reloads what changed in the store into the catalog; with `only_if_changed`, tells the
    /// clients only when some skill's revision differs (one added, changed or removed).
    /// Whether the catalog changed.
    async fn reload(&self, only_if_changed: bool) -> Result<bool, StoreError> {
        self.inner.app.reload(only_if_changed).await
    }

    /// Follows the changes anyone makes to the store (another server on the same database,
    /// `skillpath import`), when the store can tell ([`Store::watch_changes`]): after each burst
    /// of change signals, reloads the catalog and notifies clients if it differs (the server's
    /// own writes have already refreshed it, so they announce nothing twice). Whether the
    /// store offers changes to follow; the follower stops when the server is gone. Call it
    /// inside a tokio runtime.
    pub fn follow_store(&self) -> bool {
        let Some(mut changes) = self.store().watch_changes() else {
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
                // While the first sync loads a store that lacked the folders' skills, its own
                // reload reads everything the store holds (this change too) and announces it
                // once loaded: a reload here would tell clients of a change while the catalog
                // still says it is loading.
                if inner.first_sync.borrow().loading() {
                    continue;
                }
                let server = SkillServer {
                    inner,
                    subscriptions: Arc::default(),
                    session_level: SessionLevel::default(),
                };
                if let Err(error) = server.reload(true).await {
                    let text =
                        format!("reloading the skills after a change in the store failed: {error}");
                    tracing::warn!("{text}");
                    server.tell_clients(ClientLog::new(Level::Warning, "skills", text));
                }
            }
        });
        true
    }

    /// Tells every connected client that every list changed, whatever the catalog holds (the
    /// conformance suite's trigger tools ask for that).
    #[cfg(feature = "conformance-fixtures")]
    pub(crate) fn announce_every_list(&self) {
        let _ = self.inner.changes.send(Announcement::EveryList);
    }

    /// The change channel, from now on: one signal per change to announce.
    pub(crate) fn changes(&self) -> broadcast::Receiver<Announcement> {
        self.inner.changes.subscribe()
    }

    /// How calls ask their users for values.
    pub(crate) fn elicitation(&self) -> &Elicitation {
        &self.inner.elicitation
    }

    /// How the server was asked to behave.
    pub(crate) fn options(&self) -> &ServerOptions {
        &self.inner.options
    }

    /// Whether skills are served as tools of their own with `catalog` (else through the
    /// loader).
    pub(crate) fn per_skill_tools(&self, catalog: &Catalog) -> bool {
        match self.inner.options.tools {
            ToolsMode::PerSkill => true,
            ToolsMode::Loader => false,
            ToolsMode::Auto(threshold) => catalog.len() <= threshold,
        }
    }

    /// Items per page of every list (at least one).
    pub(crate) fn page_size(&self) -> usize {
        self.inner.options.page_size.max(1)
    }

    /// Starts a tool call, counted in flight for as long as the guard lives; `None` once the
    /// server is closing, when no call is taken. Counted before the check, so a shutdown that
    /// begins between the two still waits for the call.
    pub(crate) fn begin_call(&self) -> Option<InFlight> {
        let call = self.in_flight();
        (!self.inner.closing.is_cancelled()).then_some(call)
    }

    /// Subscribes this session to `uri`, a resource of this server by `known` (a skill's
    /// resource not there yet may appear later), within [`MAX_SUBSCRIPTIONS`].
    pub(crate) fn subscribe_to(
        &self,
        uri: String,
        known: impl Fn(&str) -> bool,
    ) -> Result<(), McpError> {
        if uri.len() > MAX_SUBSCRIBED_URI_BYTES {
            return Err(McpError::invalid_params(
                format!(
                    "a resource URI of {} bytes; the limit is {MAX_SUBSCRIBED_URI_BYTES}",
                    uri.len()
                ),
                None,
            ));
        }
        if !known(&uri) {
            return Err(McpError::invalid_params(
                format!(
                    "`{uri}` is not a resource of this server: skill resources are \
                     `skill://<name>/<path>`"
                ),
                None,
            ));
        }
        if let Ok(mut uris) = self.subscriptions.lock() {
            if uris.len() >= MAX_SUBSCRIPTIONS && !uris.contains(&uri) {
                return Err(McpError::invalid_params(
                    format!(
                        "this session has {MAX_SUBSCRIPTIONS} subscriptions, the limit; unsubscribe from one first"
                    ),
                    None,
                ));
            }
            uris.insert(uri);
        }
        Ok(())
    }

    /// How many handles hold the shared state (sessions, their listeners), for tests that
    /// check a session lets go of it.
    #[cfg(test)]
    pub(crate) fn handles(&self) -> usize {
        Arc::strong_count(&self.inner)
    }

    /// Ends this session's subscription to `uri`, if it had one.
    pub(crate) fn unsubscribe_from(&self, uri: &str) {
        if let Ok(mut uris) = self.subscriptions.lock() {
            uris.remove(uri);
        }
    }

    /// The content of `skill` at the catalog's revision of it: from the cache, else read from
    /// the store (and kept, when it fits the cache).
    pub async fn content(&self, skill: &CatalogSkill) -> Result<Arc<SkillContent>, StoreError> {
        self.app().content(skill).await
    }
}

/// How many messages for clients wait for a slow session before it misses the oldest (and
/// is told how many it missed).
const LOG_CHANNEL: usize = 64;

/// The most resource subscriptions one session holds.
const MAX_SUBSCRIPTIONS: usize = 1000;

/// The longest resource URI a session may subscribe to.
const MAX_SUBSCRIBED_URI_BYTES: usize = 2048;

/// What a signal on the server's change channel asks its listeners to announce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Announcement {
    /// What changed between the catalog a listener last saw and the current one.
    Changes,
    /// Every list, changed or not (the conformance suite's trigger tools ask for that).
    #[cfg(feature = "conformance-fixtures")]
    EveryList,
}
