//! [`App`]: the handle every front end holds: the store, the catalog it keeps current, what
//! the server allows (read-only, review), and the hook that tells the front end's clients when
//! the catalog changed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use skillpath_core::golden_path::render::RenderLimits;
use skillpath_store::{SearchHit, Store, StoreError};

use crate::caller::Caller;
use crate::catalog::{Catalog, CatalogSkill, Derived, People, View};
use crate::channel::Channel;
use crate::content::{ContentCache, DEFAULT_CONTENT_CACHE_BYTES, SkillContent};
use crate::error::AppError;
use crate::meaning::Meaning;
use crate::rules::{Operation, Permit};
use crate::sight::Sight;
use skillpath_model::release::Release;
use skillpath_model::{MemberRole, Namespace, namespace_of_key};

/// What the server allows, beside the roles.
#[derive(Debug, Clone)]
pub struct AppOptions {
    /// Refuse every operation that writes.
    pub read_only: bool,
    /// Whether what author keys create and update is saved as a draft for a maintainer to
    /// publish ([`skillpath_store::drafts`]), rather than served at once.
    pub review: bool,
    /// The namespaces the server is narrowed to (`serve --namespace`): it serves, shows and
    /// takes writes in those alone, whoever asks; `None`: all.
    pub namespaces: Option<Vec<Namespace>>,
    /// The most bytes of skill content (`SKILL.md` and files) kept in memory for the skills
    /// called, read and shown most recently ([`crate::content`]).
    pub content_cache_bytes: u64,
    /// Bounds on every render ([`App::render`]): renders run on the front end's worker
    /// threads without waiting, so at most as many run at once as there are workers, each
    /// within these bounds.
    pub render_limits: RenderLimits,
    /// Which revision of each item is served (`serve --channel`).
    pub channel: Channel,
}

impl Default for AppOptions {
    /// Writes allowed, no review, the default content cache and render limits, the `latest`
    /// channel.
    fn default() -> Self {
        AppOptions {
            read_only: false,
            review: false,
            namespaces: None,
            content_cache_bytes: DEFAULT_CONTENT_CACHE_BYTES,
            render_limits: RenderLimits::default(),
            channel: Channel::default(),
        }
    }
}

/// `hits` with the more starred first among hits the search ranked alike (equal scores): stars
/// break ties, never the search's own order.
fn by_stars(
    mut hits: Vec<SearchHit>,
    stars: &[skillpath_store::directory::Star],
) -> Vec<SearchHit> {
    if stars.is_empty() {
        return hits;
    }
    let count = |key: &str| stars.iter().filter(|star| star.key == key).count();
    let mut start = 0;
    while start < hits.len() {
        let score = hits[start].score;
        let end = hits[start..]
            .iter()
            .position(|hit| hit.score != score)
            .map_or(hits.len(), |offset| start + offset);
        hits[start..end].sort_by_cached_key(|hit| std::cmp::Reverse(count(&hit.name)));
        start = end;
    }
    hits
}

/// The most hits a search reads from the store to fill a caller's page with what they may see.
const MOST_SEARCHED: usize = 10_000;

/// Called after a reload that is to be announced: the front end tells its clients what
/// changed (the MCP server's `list_changed`).
pub type Announce = Box<dyn Fn() + Send + Sync>;

/// The most callers' views of the catalog kept at once ([`App::catalog_for`]); past it they are
/// made again as they are asked for.
const MOST_VIEWS: usize = 1024;

/// The callers' views of one catalog, by what each caller sees.
struct Views<E> {
    /// The [`Catalogs::generation`] they were cut from.
    of: u64,
    /// Each view, by channel (`None`: the server's), sight and kind.
    views: HashMap<(Option<Channel>, Sight, View), Arc<Catalog<E>>>,
}

/// The catalog at the server's channel, and one at each other channel a key's caller follows
/// ([`Caller::channel`]): replaced together, so a view is never cut from one moment's server
/// catalog and another's channel. A channel's catalog shares every skill it serves at the
/// revision the server's does, so each costs its own releases and tool table, not the skills.
struct Catalogs<E> {
    server: Arc<Catalog<E>>,
    channels: HashMap<Channel, Arc<Catalog<E>>>,
    /// Counts the replacements, so that views cut from an older one are not given out.
    generation: u64,
}

/// The catalogs of the channels followed besides the server's, by channel.
type Followed<E> = Vec<(Channel, Arc<Catalog<E>>)>;

struct Shared<E> {
    store: Arc<dyn Store>,
    catalog: RwLock<Catalogs<E>>,
    views: Mutex<Option<Views<E>>>,
    /// The content of the skills called, read and shown most recently.
    contents: ContentCache,
    /// Held while loading and replacing the catalog, so that a slow load never replaces the
    /// catalog of a later one.
    reloading: tokio::sync::Mutex<()>,
    options: AppOptions,
    announce: Announce,
    /// Whether [`App::reload`] reloads the catalog: not for one command's application
    /// ([`App::for_command`]), which ends before anyone could read a reloaded one.
    kept_current: bool,
}

/// The application: a cheap handle over the store and the catalog, cloned by every front end
/// and session. `E` is what the front end derives from each skill ([`Derived`]).
pub struct App<E = ()> {
    shared: Arc<Shared<E>>,
}

impl<E> Clone for App<E> {
    fn clone(&self) -> Self {
        App {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<E: Derived> App<E> {
    /// The application over `store`, with the catalog loaded (ranked with `meaning`);
    /// `announce` is called whenever a reload is to be told to clients.
    pub async fn new(
        store: Arc<dyn Store>,
        meaning: &Meaning,
        options: AppOptions,
        announce: Announce,
    ) -> Result<App<E>, StoreError> {
        let catalog = Catalog::load(store.as_ref(), meaning, &options.channel).await?;
        Ok(App::with(store, catalog, options, announce, true))
    }

    /// The application for one command that searches ranked by `meaning` (`skillpath search
    /// --embeddings`): with a model, the catalog is loaded, since the vectors it ranks by are
    /// the catalog's; without one, as [`App::for_command`], since the store's words need none.
    /// Never reloaded either way.
    pub async fn for_search(
        store: Arc<dyn Store>,
        meaning: &Meaning,
        options: AppOptions,
    ) -> Result<App<E>, StoreError> {
        if !meaning.ranks() {
            return Ok(App::for_command(store, options));
        }
        let catalog = Catalog::load(store.as_ref(), meaning, &options.channel).await?;
        Ok(App::with(store, catalog, options, Box::new(|| ()), false))
    }

    /// Reloads what changed in the store into the catalog; with `only_if_changed`, announces
    /// only when some skill's revision differs (one added, changed or removed). Whether the
    /// catalog changed. One command's application ([`App::for_command`]) reloads nothing and
    /// announces nothing: nobody reads its catalog after the command's own operation.
    pub async fn reload(&self, only_if_changed: bool) -> Result<bool, StoreError> {
        self.reload_then(only_if_changed, || ()).await
    }

    /// [`App::reload`], calling `loaded` once the catalog it loaded is the current one and
    /// before clients are told (whether or not it changed): what marks the front end's first
    /// load done, so that a client told of the change never reads that it is still loading.
    pub async fn reload_then(
        &self,
        only_if_changed: bool,
        loaded: impl FnOnce(),
    ) -> Result<bool, StoreError> {
        if !self.shared.kept_current {
            loaded();
            return Ok(false);
        }
        let _reloading = self.shared.reloading.lock().await;
        let (before, followed): (Arc<Catalog<E>>, Followed<E>) = match self.shared.catalog.read() {
            Ok(catalogs) => (
                Arc::clone(&catalogs.server),
                catalogs
                    .channels
                    .iter()
                    .map(|(channel, at)| (channel.clone(), Arc::clone(at)))
                    .collect(),
            ),
            Err(_) => (Arc::default(), Vec::new()),
        };
        let server = before.reloaded(self.store()).await?.map(Arc::new);
        let mut changed = server.is_some();
        let mut channels = HashMap::new();
        // Each channel's catalog changes on its own (a revision `head` serves and `latest` does
        // not): made again from the server's when that changed, so that they share its skills,
        // else reloaded itself.
        for (channel, at) in followed {
            let next = match &server {
                Some(server) => Some(self.at_channel(server, &channel).await?),
                None => at.reloaded(self.store()).await?.map(Arc::new),
            };
            changed |= next.is_some();
            channels.insert(channel, next.unwrap_or(at));
        }
        if changed && let Ok(mut current) = self.shared.catalog.write() {
            *current = Catalogs {
                server: server.unwrap_or(before),
                channels,
                generation: current.generation + 1,
            };
        }
        loaded();
        if changed || !only_if_changed {
            (self.shared.announce)();
        }
        Ok(changed)
    }

    /// Reloads the catalog from the store and announces it: what every write does last.
    pub async fn refresh(&self) -> Result<(), StoreError> {
        self.reload(false).await.map(|_| ())
    }

    /// What `caller`'s channel (their key's, else the server's) serves of the item kept under
    /// `key`: the channel, and the release it serves, if any (else the item's current revision
    /// is served).
    pub fn served_release(&self, caller: &Caller, key: &str) -> (Channel, Option<Release>) {
        let channel = self.channel_of(caller).clone();
        let release = channel
            .release_of(key, &self.catalog().people().directory)
            .cloned();
        (channel, release)
    }

    /// The channel `caller` is served: their key's, else the server's (`serve --channel`).
    pub fn channel_of<'c>(&'c self, caller: &'c Caller) -> &'c Channel {
        caller
            .channel
            .as_ref()
            .unwrap_or(&self.shared.options.channel)
    }

    /// Keeps a catalog at `channel` beside the server's, from now on, when it is another
    /// channel than the server's: what the first request of a key that follows it waits for.
    pub async fn follow_channel(&self, channel: &Channel) -> Result<(), StoreError> {
        if !self.shared.kept_current || *channel == self.shared.options.channel {
            return Ok(());
        }
        let followed = |app: &App<E>| {
            app.shared
                .catalog
                .read()
                .is_ok_and(|catalogs| catalogs.channels.contains_key(channel))
        };
        if followed(self) {
            return Ok(());
        }
        let _reloading = self.shared.reloading.lock().await;
        if followed(self) {
            return Ok(());
        }
        let server = self.catalog();
        let at = self.at_channel(&server, channel).await?;
        if let Ok(mut current) = self.shared.catalog.write()
            && Arc::ptr_eq(&current.server, &server)
        {
            current.channels.insert(channel.clone(), at);
            current.generation += 1;
        }
        Ok(())
    }

    /// The catalog at `channel`, made from `server`'s (sharing the skills served alike).
    async fn at_channel(
        &self,
        server: &Arc<Catalog<E>>,
        channel: &Channel,
    ) -> Result<Arc<Catalog<E>>, StoreError> {
        Ok(server
            .reloaded_at(self.store(), channel)
            .await?
            .map_or_else(|| Arc::clone(server), Arc::new))
    }

    /// The part of the catalog `caller` is served ([`View::Served`]).
    pub fn catalog_for(&self, caller: &Caller) -> Arc<Catalog<E>> {
        self.view_for(caller, View::Served)
    }

    /// The part of the catalog `caller` gets as `view` says ([`Catalog::view`]): the whole
    /// catalog for a caller who sees everything; kept per sight until the catalog changes.
    pub fn view_for(&self, caller: &Caller, view: View) -> Arc<Catalog<E>> {
        let (generation, channel, catalog) = match self.shared.catalog.read() {
            Ok(catalogs) => {
                let server = Arc::clone(&catalogs.server);
                let generation = catalogs.generation;
                match caller
                    .channel
                    .as_ref()
                    .filter(|c| **c != self.shared.options.channel)
                {
                    // A channel not followed yet (a caller made without `authenticate`) is
                    // served the server's catalog, and that view is not kept as the channel's.
                    Some(channel) => match catalogs.channels.get(channel) {
                        Some(at) => (generation, Some(channel.clone()), Arc::clone(at)),
                        None => {
                            let catalog = Arc::clone(&server);
                            let sight = self.sight_in(caller, &catalog);
                            return Arc::new(catalog.view(&sight, view));
                        }
                    },
                    None => (generation, None, server),
                }
            }
            Err(_) => return Arc::default(),
        };
        let sight = self.sight_in(caller, &catalog);
        if sight.is_all() {
            return catalog;
        }
        let Ok(mut views) = self.shared.views.lock() else {
            return Arc::new(catalog.view(&sight, view));
        };
        let current = views.as_ref().is_some_and(|views| views.of == generation);
        if !current || views.as_ref().is_some_and(|v| v.views.len() >= MOST_VIEWS) {
            *views = Some(Views {
                of: generation,
                views: HashMap::new(),
            });
        }
        let Some(views) = views.as_mut() else {
            return Arc::new(catalog.view(&sight, view));
        };
        Arc::clone(
            views
                .views
                .entry((channel, sight, view))
                .or_insert_with_key(|(_, sight, view)| Arc::new(catalog.view(sight, *view))),
        )
    }
}

impl<E> App<E> {
    /// The application for one command of the command line (`skillpath list`, `keys list`,
    /// `rollback`, …): its catalog is empty and never reloaded, since loading it reads every
    /// skill (slow in a store of thousands) and one command's operations need none of it: they
    /// read and write the store, and a search ranks by the store's words alone
    /// ([`Catalog::search`] of an empty catalog). Nothing is announced: no client listens.
    pub fn for_command(store: Arc<dyn Store>, options: AppOptions) -> App<E> {
        App::with(store, Catalog::default(), options, Box::new(|| ()), false)
    }

    /// The application over `store` and `catalog`, reloading it when `kept_current`.
    fn with(
        store: Arc<dyn Store>,
        catalog: Catalog<E>,
        options: AppOptions,
        announce: Announce,
        kept_current: bool,
    ) -> App<E> {
        App {
            shared: Arc::new(Shared {
                store,
                catalog: RwLock::new(Catalogs {
                    server: Arc::new(catalog),
                    channels: HashMap::new(),
                    generation: 0,
                }),
                views: Mutex::new(None),
                contents: ContentCache::new(options.content_cache_bytes),
                reloading: tokio::sync::Mutex::new(()),
                options,
                announce,
                kept_current,
            }),
        }
    }

    /// The current catalog.
    pub fn catalog(&self) -> Arc<Catalog<E>> {
        self.shared
            .catalog
            .read()
            .map(|c| Arc::clone(&c.server))
            .unwrap_or_default()
    }

    /// The store, for the front ends' own bookkeeping (the MCP server's key check, usage
    /// counts, folder sync); what a caller asks for goes through the operations.
    pub fn store(&self) -> &dyn Store {
        self.shared.store.as_ref()
    }

    /// What the server allows.
    pub fn options(&self) -> &AppOptions {
        &self.shared.options
    }

    /// Whether `caller` may ask for `operation` here: refused on a read-only server when it
    /// writes, and when the caller's role is less than the operation's. The [`Permit`] it
    /// answers with is what the operation takes, so that the rule is decided once, here,
    /// before any operation runs.
    pub fn may(&self, caller: &Caller, operation: Operation) -> Result<Permit, AppError> {
        if operation.writes() && self.shared.options.read_only {
            return Err(AppError::ReadOnly(operation));
        }
        if !caller.holds(operation) {
            return Err(AppError::Forbidden {
                operation,
                key: caller.key.clone(),
                role: caller.role,
            });
        }
        Ok(Permit {
            caller: caller.clone(),
            operation,
        })
    }

    /// The caller `permit` lets ask for `operation`: the permit's own, decided by [`App::may`];
    /// a permit for another operation (a page reading the revision it saves on) is decided
    /// again for this one, so that no permit lets through more than its rule allows.
    pub(crate) fn permitted<'p>(
        &self,
        permit: &'p Permit,
        operation: Operation,
    ) -> Result<&'p Caller, AppError> {
        if permit.operation != operation {
            self.may(&permit.caller, operation)?;
        }
        Ok(&permit.caller)
    }

    /// Whether `caller` may ask for `operation` here ([`App::may`]).
    pub fn allows(&self, caller: &Caller, operation: Operation) -> bool {
        self.may(caller, operation).is_ok()
    }

    /// The content of `skill` at its catalog revision: from the cache when it is there, else
    /// read from the store (and kept).
    pub async fn content(&self, skill: &CatalogSkill<E>) -> Result<Arc<SkillContent>, StoreError> {
        let contents = &self.shared.contents;
        if let Some(content) = contents.get(&skill.name, skill.revision) {
            return Ok(content);
        }
        let stored = self.store().get(&skill.name, Some(skill.revision)).await?;
        let content = Arc::new(SkillContent::new(stored));
        contents.insert(&content);
        Ok(content)
    }

    /// The skills and packages that match `query`, best first, at most `limit`, ranked as
    /// [`Catalog::search`] ranks every search.
    pub async fn search(
        &self,
        permit: &Permit,
        query: &str,
        limit: usize,
    ) -> Result<Vec<SearchHit>, AppError> {
        let caller = self.permitted(permit, Operation::SearchSkills)?;
        let catalog = self.catalog();
        let sight = self.sight(caller).await?;
        let people = self.people().await?;
        let starred = |hits: Vec<SearchHit>| by_stars(hits, &people.stars);
        if sight.is_all() {
            return Ok(starred(catalog.search(self.store(), query, limit).await?));
        }
        // What the caller may not see is left out of a larger pool, grown until it holds
        // `limit` hits or the store has no more.
        let mut pool = limit.max(1);
        loop {
            let hits = catalog.search(self.store(), query, pool).await?;
            let exhausted = hits.len() < pool;
            let seen: Vec<SearchHit> = hits
                .into_iter()
                .filter(|hit| sight.lists(&hit.name, &people.directory))
                .take(limit)
                .collect();
            if seen.len() >= limit || exhausted || pool >= MOST_SEARCHED {
                return Ok(starred(seen));
            }
            pool = pool.saturating_mul(4).min(MOST_SEARCHED);
        }
    }

    /// Whether what `caller` creates and updates in `@global` is drafted: it waits for review
    /// there (what a page says before anything is written; the write itself asks
    /// [`App::write_gate`]).
    pub fn drafted(&self, caller: &Caller) -> bool {
        let catalog = self.catalog();
        let global = Namespace::global();
        let review = catalog
            .people()
            .directory
            .namespace(&global)
            .and_then(|record| record.review);
        let role = self.sight_in(caller, &catalog).role_in(&global);
        self.drafts_in(caller, review, role)
    }

    /// Whether `caller` sees everything here, whatever the directory says ([`Sight::all`]): no
    /// person, no anonymous reader, on a server narrowed to no namespace. What spares them
    /// reading the directory.
    fn sees_everything(&self, caller: &Caller) -> bool {
        caller.user.is_none() && !caller.public_reader && self.shared.options.namespaces.is_none()
    }

    /// Whether what `caller`, whose role in a namespace is `held`, writes there waits for
    /// review: the namespace's `review` setting, else the server's, for a key's person less
    /// than a maintainer there.
    fn drafts_in(&self, caller: &Caller, review: Option<bool>, held: Option<MemberRole>) -> bool {
        caller.drafts(review.unwrap_or(self.shared.options.review))
            && held.is_none_or(|held| held < MemberRole::Maintainer)
    }

    /// What `caller` sees, by the directory `catalog` was read with.
    pub fn sight_in(&self, caller: &Caller, catalog: &Catalog<E>) -> Sight {
        self.sight_of(caller, catalog.people())
    }

    /// What `caller` sees by `people`, within the namespaces the server is narrowed to.
    pub(crate) fn sight_of(&self, caller: &Caller, people: &People) -> Sight {
        Sight::of(caller, &people.directory, &people.stars)
            .within(self.shared.options.namespaces.as_deref())
    }

    /// The directory and stars as they are: the catalog's, or read from the store for one
    /// command's application, whose catalog holds none.
    pub async fn people(&self) -> Result<Arc<People>, StoreError> {
        if self.shared.kept_current {
            return Ok(self.catalog().people_shared());
        }
        Ok(Arc::new(People::read(self.store()).await?))
    }

    /// What `caller` sees now ([`App::people`]).
    pub async fn sight(&self, caller: &Caller) -> Result<Sight, StoreError> {
        if self.sees_everything(caller) {
            return Ok(Sight::all());
        }
        let people = self.people().await?;
        Ok(self.sight_of(caller, &people))
    }

    /// Refuses, as if it did not exist, an item kept under `key` that `caller` may not read.
    pub async fn seen(&self, caller: &Caller, key: &str) -> Result<(), AppError> {
        if self.sees_everything(caller) {
            return Ok(());
        }
        let people = self.people().await?;
        if self.sight_of(caller, &people).reads(key, &people.directory) {
            Ok(())
        } else {
            Err(AppError::Store(StoreError::NotFound {
                name: key.to_owned(),
                revision: None,
            }))
        }
    }

    /// Whether `caller` may write in `namespace` now, and whether what they write there waits
    /// for review: refused when the namespace does not exist, is frozen or archived, or the
    /// caller's role there is less than an author's. Drafted when the namespace reviews (its
    /// setting, else the server's `--review`) and the caller, acting through a key, is less
    /// than a maintainer there.
    pub async fn write_gate(
        &self,
        caller: &Caller,
        namespace: &Namespace,
    ) -> Result<bool, AppError> {
        self.gate(caller, namespace, MemberRole::Author, "writing")
            .await
    }

    /// [`App::write_gate`] for the item kept under `key`, which the caller must read (else it
    /// does not exist for them).
    pub async fn item_gate(&self, caller: &Caller, key: &str) -> Result<bool, AppError> {
        self.seen(caller, key).await?;
        self.write_gate(caller, &namespace_of_key(key)).await
    }

    /// Refuses a review (publish, reject) of the item kept under `key` by a caller less than a
    /// maintainer of its namespace.
    pub async fn reviewer_gate(&self, caller: &Caller, key: &str) -> Result<(), AppError> {
        self.seen(caller, key).await?;
        self.gate(
            caller,
            &namespace_of_key(key),
            MemberRole::Maintainer,
            "reviewing",
        )
        .await
        .map(|_| ())
    }

    /// Refuses a release, a yank or a tag of the item kept under `key` by a caller who does
    /// not read it (it does not exist for them) or is less than a maintainer of its namespace,
    /// and in a namespace that takes no writes.
    pub(crate) async fn release_gate(&self, caller: &Caller, key: &str) -> Result<(), AppError> {
        self.seen(caller, key).await?;
        self.gate(
            caller,
            &namespace_of_key(key),
            MemberRole::Maintainer,
            "releasing",
        )
        .await
        .map(|_| ())
    }

    /// Refuses `what` in `namespace` when it does not exist, is frozen or archived, or the
    /// caller's role there is less than `needed`; whether what they write there is drafted.
    pub(crate) async fn gate(
        &self,
        caller: &Caller,
        namespace: &Namespace,
        needed: MemberRole,
        what: &'static str,
    ) -> Result<bool, AppError> {
        let people = self.people().await?;
        let sight = self.sight_of(caller, &people);
        let Some(record) = people.directory.namespace(namespace) else {
            return Err(AppError::NoNamespace(namespace.to_string()));
        };
        let held = sight.role_in(namespace);
        if record.frozen {
            return Err(AppError::Closed(format!(
                "`{namespace}` is frozen and takes no writes: an owner thaws it with `skillpath namespaces thaw {namespace}`"
            )));
        }
        if record.archived {
            return Err(AppError::Closed(format!(
                "`{namespace}` is archived and takes no writes: an owner brings it back with `skillpath namespaces unarchive {namespace}`"
            )));
        }
        if held.is_none_or(|held| held < needed) {
            return Err(AppError::NotInNamespace {
                what,
                namespace: namespace.to_string(),
                needed,
                held,
            });
        }
        Ok(self.drafts_in(caller, record.review, held))
    }
}
