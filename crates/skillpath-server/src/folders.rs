//! Skill folders the server keeps in its store: the standard skill folders (discovery) and any
//! `--skills` folders, imported at start and imported again whenever something in them changes
//! on disk, so an edit, an addition or a removal reaches the store and the clients.
//!
//! Folders are the source for the skills they hold: a changed file makes a new revision, a
//! removed skill folder deletes the skill (a revision; it can be restored). Skills created
//! through the API are never touched by a folder sync.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use skillpath_core::{Code, Diagnostic};
use skillpath_folders::discovery::{self, DiscoveryLimits};
use skillpath_folders::folder::{FolderDiagnostics, read_folders};
use skillpath_folders::sources::FolderSources;
use skillpath_model::{Change, Provenance, ShadowedSkill};
use skillpath_store::{ImportReport, Store, StoreError};

use crate::SkillServer;
use crate::catalog::Catalog;
use crate::client_log::{ClientLog, Level};

/// How long the watcher waits for a burst of file events to settle before syncing.
const SETTLE: Duration = Duration::from_millis(150);

/// What a sync did.
#[derive(Debug, Default)]
pub struct SyncReport {
    /// The import.
    pub import: ImportReport,
    /// Skills deleted because their folder is gone.
    pub deleted: Vec<String>,
    /// Skills whose folder cannot be loaded right now (it is broken, or in the middle of an
    /// editor's save): they keep their last good revision.
    pub kept: Vec<String>,
    /// The skill folders that cannot be loaded, with why.
    pub skipped: Vec<FolderDiagnostics>,
    /// The skill folders that loaded with something to say (files left out, a name that does
    /// not match its folder).
    pub warned: Vec<FolderDiagnostics>,
    /// What the search for skill folders passed over, and why.
    pub problems: Vec<String>,
    /// Skills of the folders left out for another of the same name, by discovery or by the
    /// import (see `skillpath_store::scopes`), each with the one kept.
    pub shadowed: Vec<ShadowedSkill>,
}

impl SyncReport {
    /// Whether the store changed.
    pub fn changed(&self) -> bool {
        !self.import.created.is_empty()
            || !self.import.updated.is_empty()
            || !self.deleted.is_empty()
    }
}

/// Keeps the store in step with the folder sources.
pub struct FolderSync {
    sources: FolderSources,
    store: Arc<dyn Store>,
    /// Names the last sync imported or kept, to notice skills whose folder went away.
    known: Mutex<BTreeSet<String>>,
    /// The folders to watch, as the last sync found them.
    watched: Mutex<Vec<PathBuf>>,
    /// What was last said of each folder (whether it was skipped, and the lines), so each
    /// problem is said once, not at every sync.
    said: Mutex<BTreeMap<PathBuf, (bool, Vec<String>)>>,
}

impl FolderSync {
    /// Whether the store, as `catalog` shows it, already holds skills of every folder source:
    /// each `--skills` root has a skill imported from it, and every skill folder discovery
    /// finds has its skill stored. Then the first answers need not wait for the first sync (a
    /// warm start answers at once; the sync brings what was edited while no server ran,
    /// announced as any later edit is); a new store, a new root or a new discovered skill
    /// makes them wait. It reads no skill folder of the roots (walking them and comparing
    /// every file's stamp is what a warm start would otherwise wait for), only discovery's
    /// few standard folders.
    pub fn stored_in(&self, catalog: &Catalog) -> bool {
        let mut roots = BTreeSet::new();
        let mut folders = BTreeSet::new();
        for skill in catalog.skills() {
            if let Provenance::Imported { path, root, .. } = &skill.provenance {
                roots.insert(root.as_str());
                folders.insert(path.as_str());
            }
        }
        let roots_stored = self
            .sources
            .roots
            .iter()
            .all(|root| roots.contains(root.display().to_string().as_str()));
        roots_stored
            && self
                .sources
                .discover
                .as_ref()
                .is_none_or(|(project, home)| {
                    discovery::discover(Some(project), home.as_deref(), DiscoveryLimits::default())
                        .skills
                        .iter()
                        .all(|skill| folders.contains(skill.path.display().to_string().as_str()))
                })
    }

    /// A sync of `sources` into `store`.
    pub fn new(sources: FolderSources, store: Arc<dyn Store>) -> FolderSync {
        FolderSync {
            sources,
            store,
            known: Mutex::new(BTreeSet::new()),
            watched: Mutex::new(Vec::new()),
            said: Mutex::new(BTreeMap::new()),
        }
    }

    /// What to tell the operator of `report`, a line each: every diagnostic of a folder
    /// skipped or warned about that was not said before in these words (all of them at the
    /// first sync), and each folder that was skipped before and loads now.
    pub fn news(&self, report: &SyncReport) -> Vec<News> {
        let Ok(mut said) = self.said.lock() else {
            return Vec::new();
        };
        // What is to be said of each folder now: whether it was skipped (or its skill
        // refused by the audit policy), and the lines.
        let mut now: BTreeMap<PathBuf, (bool, Vec<String>)> = BTreeMap::new();
        let mut add = |folder: &Path, skipped: bool, lines: Vec<String>| {
            let entry = now.entry(folder.to_path_buf()).or_default();
            entry.0 |= skipped;
            entry.1.extend(lines);
        };
        for folder in &report.skipped {
            add(&folder.folder, true, folder.to_lines());
        }
        for folder in &report.warned {
            add(&folder.folder, false, folder.to_lines());
        }
        let policy = self.store.audit_policy();
        for refused in &report.import.refused {
            add(
                Path::new(&refused.path),
                true,
                vec![refused.refusal(policy)],
            );
        }
        for flagged in &report.import.flagged {
            add(
                Path::new(&flagged.path),
                false,
                vec![flagged.findings_line()],
            );
        }
        let mut news = Vec::new();
        for (folder, said_now) in &now {
            if said.get(folder) != Some(said_now) {
                let (skipped, lines) = said_now;
                let what = if *skipped { "skipped" } else { "loaded" };
                news.extend(lines.iter().map(|line| News {
                    skipped: *skipped,
                    line: format!("{what}: {line}"),
                }));
            }
        }
        for (folder, (skipped, lines)) in std::mem::take(&mut *said) {
            if now.contains_key(&folder) {
                continue;
            }
            if skipped {
                news.push(News {
                    skipped: false,
                    line: format!("`{}` loads again", folder.display()),
                });
            } else {
                // An unchanged folder is not read again, so what it was warned of is not
                // said again either: it still holds.
                now.insert(folder, (false, lines));
            }
        }
        *said = now;
        news
    }

    /// The folders to watch, as the last sync found them (none before the first).
    pub fn watched(&self) -> Vec<PathBuf> {
        self.watched
            .lock()
            .map(|watched| watched.clone())
            .unwrap_or_default()
    }

    /// Imports every skill of the sources (unchanged ones get no revision) and deletes those
    /// whose folder disappeared since the last sync. A folder that cannot be loaded is
    /// skipped and reported; a skill it held keeps its last good revision, because text that
    /// cannot be read says nothing about whether the skill should go.
    pub async fn sync(&self) -> Result<SyncReport, StoreError> {
        let located = self.sources.locate();
        *self.watched.lock().map_err(|_| poisoned())? = located.watched.clone();
        let problems: Vec<String> = located
            .skipped
            .iter()
            .map(|(path, why)| format!("skipped `{}`: {why}", path.display()))
            // Discovery keeps one skill per name (project over user); the others are said.
            .chain(
                located
                    .shadowed
                    .iter()
                    .map(|shadowed| format!("shadowed: {shadowed}")),
            )
            .collect();
        let discovery_shadowed = located.shadowed_skills();
        // Folders unchanged since their skill's current revision was read from them are not
        // read again (their files' metadata says so); the sync imports into `@global`.
        let recorded = self
            .store
            .folder_stamps_in(&skillpath_model::Namespace::global())
            .await?;
        let folders = located.folders;
        let read = tokio::task::spawn_blocking(move || read_folders(folders, &recorded, &|_| {}))
            .await
            .map_err(|error| {
                StoreError::database(format!("reading skill folders failed: {error}"))
            })?;
        let change = Change {
            author: "serve".to_owned(),
            message: "sync from skill folders".to_owned(),
        };
        let import = if read.items.is_empty() {
            ImportReport::default()
        } else {
            self.store
                .import_folders(read.items, change.clone())
                .await?
        };
        // A skill left out for another of its name, or refused by the audit policy (its stored
        // revision, if any, stays as it was), is still there, not gone.
        let mut now: BTreeSet<String> = import
            .created
            .iter()
            .chain(&import.updated)
            .chain(&import.unchanged)
            .chain(import.shadowed.iter().map(|shadowed| &shadowed.name))
            .chain(import.refused.iter().map(|refused| &refused.name))
            .cloned()
            .collect();
        let before = self.known.lock().map_err(|_| poisoned())?.clone();
        let mut skipped = located.unloadable;
        skipped.extend(read.skipped);
        let skipped_folders: BTreeSet<String> = skipped
            .iter()
            .map(|skipped| skipped.folder.display().to_string())
            .collect();
        let mut deleted = Vec::new();
        let mut kept = Vec::new();
        let gone: Vec<String> = before.difference(&now).cloned().collect();
        for name in gone {
            let Ok(current) = self.store.get(&name, None).await else {
                continue;
            };
            if current.deleted || !matches!(current.provenance, Provenance::Imported { .. }) {
                continue;
            }
            let folder = current.provenance.folder();
            // A folder that is still there but cannot be loaded (broken, or without its
            // `SKILL.md` for the moment of an editor's save) keeps its skill as it was.
            if skipped_folders.contains(folder) || Path::new(folder).is_dir() {
                if !skipped_folders.contains(folder) {
                    skipped.push(without_skill_md(PathBuf::from(folder)));
                }
                now.insert(name.clone());
                kept.push(name);
                continue;
            }
            let change = Change {
                message: format!("its folder `{folder}` is gone"),
                ..change.clone()
            };
            match self.store.delete(&name, current.revision, change).await {
                Ok(_) => deleted.push(name),
                Err(StoreError::StaleRevision { .. }) => {} // changed meanwhile; the next sync decides
                Err(error) => return Err(error),
            }
        }
        *self.known.lock().map_err(|_| poisoned())? = now;
        Ok(SyncReport {
            deleted,
            kept,
            skipped,
            warned: read.warned,
            problems,
            shadowed: discovery_shadowed
                .into_iter()
                .chain(import.shadowed.iter().cloned())
                .collect(),
            import,
        })
    }
}

/// Why a skill folder that is still there but has no `SKILL.md` keeps its skill.
fn without_skill_md(folder: PathBuf) -> FolderDiagnostics {
    FolderDiagnostics {
        diagnostics: vec![
            Diagnostic::error(
                Code::SkillMdMissing,
                format!("no `SKILL.md` in `{}`", folder.display()),
            )
            .with_hint("put the `SKILL.md` back; remove the folder to delete the skill")
            .in_file(folder.join("SKILL.md")),
        ],
        folder,
    }
}

fn poisoned() -> StoreError {
    StoreError::database("the folder sync state is poisoned")
}

/// A server's first sync, begun before the server is made ([`begin`]), for [`watch`] to finish.
pub struct StartedSync(tokio::task::JoinHandle<Result<SyncReport, StoreError>>);

/// Begins the first sync of `sync` in the background, at once: as soon as the store is open,
/// before the server's catalog is loaded, so that reading the folders and loading the catalog
/// overlap, and the first answers of a cold start, which wait for that sync, come as early as
/// they can. Call it inside a tokio runtime.
pub fn begin(sync: &Arc<FolderSync>) -> StartedSync {
    let sync = Arc::clone(sync);
    StartedSync(tokio::spawn(async move { sync.sync().await }))
}

/// Keeps the store in step with the sources' folders while the server answers: the first sync
/// (`started`, [`begin`]) runs in the background, and unless the store already holds the
/// folders' skills ([`FolderSync::stored_in`]: a warm start answers at once) the requests that
/// read the catalog wait for it within the server's `sync_wait`
/// (`SkillServer::wait_for_first_sync`), but never for the watches' setup. Past that bound the server answers from the store's last state and says so, and clients hear
/// `list_changed` when the sync changed something. Then the folders are watched as that sync
/// found them, and after each burst of changes synced again, with the server's catalog
/// reloaded when the store changed (which notifies clients).
///
/// A sync is one import transaction, so a client sees the store as it was before the sync or as
/// it is after it, never half of it. Setting up the watches walks every folder under them (one
/// watch per folder); a sync once they are in place picks up whatever changed while they were
/// being set up. Watching goes on for as long as the runtime runs; if the folders cannot be
/// watched, the server goes on without and says so.
pub fn watch(sync: Arc<FolderSync>, started: StartedSync, server: SkillServer) {
    server.begin_first_sync(sync.stored_in(&server.catalog()));
    tokio::spawn(async move {
        let mut failing = Failing::default();
        first_sync(&sync, started, &server, &mut failing).await;
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<()>();
        let folders = sync.watched();
        let watcher = tokio::task::spawn_blocking(move || {
            let mut watcher =
                notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                    if event.is_ok_and(|event| !event.kind.is_access()) {
                        let _ = sender.send(());
                    }
                })?;
            for folder in folders {
                if Path::new(&folder).is_dir() {
                    watcher.watch(&folder, RecursiveMode::Recursive)?;
                }
            }
            Ok::<_, notify::Error>(watcher)
        })
        .await;
        // Kept for as long as the task runs: dropping it stops the watching.
        let _watcher = match watcher {
            Ok(Ok(watcher)) => watcher,
            Ok(Err(error)) => {
                tracing::warn!(
                    "cannot watch the skill folders, so changes on disk are not seen until a restart: {error}"
                );
                return;
            }
            Err(error) => {
                tracing::warn!("cannot watch the skill folders: {error}");
                return;
            }
        };
        sync_and_refresh(&sync, &server, &mut failing).await;
        loop {
            // While the store cannot take a sync, it is tried again with backoff, and a
            // change on disk meanwhile is no reason to wait longer: every sync reads every
            // folder whose stamp differs from what the store has, so nothing is forgotten.
            let event = match failing.retry_in() {
                Some(delay) => tokio::select! {
                    event = receiver.recv() => event.is_some(),
                    () = tokio::time::sleep(delay) => true,
                },
                None => receiver.recv().await.is_some(),
            };
            if !event {
                return;
            }
            // Let the burst settle, then drop the events it queued.
            tokio::time::sleep(SETTLE).await;
            while receiver.try_recv().is_ok() {}
            sync_and_refresh(&sync, &server, &mut failing).await;
        }
    });
}

/// The first sync of a server (`started`), and everything the operator should know once it is
/// done: what the search for skill folders passed over, the folders skipped or warned about,
/// the skills shadowed (by the sync, and by the store's view), tool-name collisions, skills the
/// Skills extension cannot list, and last a summary line (`skill folders synced: …`), said once
/// the catalog holds the sync's result, so whoever waits for that line sees it. A sync that
/// fails (the store refused the import) is said, and the watcher tries again.
async fn first_sync(
    sync: &FolderSync,
    started: StartedSync,
    server: &SkillServer,
    failing: &mut Failing,
) {
    let synced = started.0.await.unwrap_or_else(|error| {
        Err(StoreError::database(format!(
            "the first sync of the skill folders did not finish: {error}"
        )))
    });
    let report = match synced {
        Ok(report) => report,
        Err(error) => {
            let text = error.to_string();
            server.set_sync_problem(Some(text.clone()));
            tracing::warn!("syncing the skill folders failed: {text}");
            failing.attempts = 1;
            failing.said = Some(text);
            server.set_first_sync_done();
            return;
        }
    };
    for problem in &report.problems {
        tracing::info!("{problem}");
    }
    for shadowed in &report.import.shadowed {
        tracing::warn!("shadowed: {shadowed}");
    }
    tell_news(server, sync.news(&report));
    let said = report.shadowed.len();
    server.set_folder_report(report.skipped.clone(), report.shadowed.clone());
    // Skills the sync found already stored may have been stored after the catalog was loaded
    // (another `serve` starting on the same new database): the catalog catches up with them
    // too before the first answers, announcing only what differs.
    let reloaded = if report.changed() || !report.import.unchanged.is_empty() {
        server.first_sync_loaded(report.changed()).await
    } else {
        Ok(())
    };
    if let Err(error) = reloaded {
        reload_failed(server, &error);
    }
    // What the store's view hides under this project's skills (the sync said its own).
    match server.shadowed().await {
        Ok(shadowed) => {
            for hidden in shadowed.iter().skip(said) {
                tracing::warn!("shadowed: {hidden}");
            }
        }
        Err(error) => tracing::warn!("cannot tell which skills the store's view hides: {error}"),
    }
    for collision in &server.catalog().collisions {
        tracing::warn!(
            "tool name `{}` belongs to {}; skill `{}` has no tool or prompt of its own ({}; use `load_skill` or give it its own `tool_name`)",
            collision.tool_name,
            collision.holder(),
            collision.loser,
            collision.reason.rule()
        );
    }
    for (name, why) in server.unlisted_skills() {
        tracing::warn!(
            "skill `{name}` is not in the Skills extension's `skills/list`: {why}; it is still a tool, a prompt and resources"
        );
    }
    tracing::info!(
        "skill folders synced: {} created, {} updated, {} unchanged, {} shadowed, {} deleted, {} skipped (they cannot be loaded; `list_skills` names them too), {} refused by the audit policy",
        report.import.created.len(),
        report.import.updated.len(),
        report.import.unchanged.len(),
        report.import.shadowed.len(),
        report.deleted.len(),
        report.skipped.len(),
        report.import.refused.len(),
    );
    // Once everything is said (a `serve < /dev/null` that syncs and ends says it all): the
    // requests waiting for the sync go on.
    server.set_first_sync_done();
}

/// What is new about one folder: a line for the operator and the clients, and whether it
/// says the folder was skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct News {
    /// Whether the folder (or its skill) was left out.
    pub skipped: bool,
    /// The sentence.
    pub line: String,
}

impl std::fmt::Display for News {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line)
    }
}

/// Says `news` on stderr and to the clients: a folder left out is a warning.
fn tell_news(server: &SkillServer, news: Vec<News>) {
    for news in news {
        tracing::info!("{news}");
        let level = if news.skipped {
            Level::Warning
        } else {
            Level::Info
        };
        server.tell_clients(ClientLog::new(level, "folders", news.line));
    }
}

/// Says on stderr and to the clients that the catalog could not be reloaded after a sync.
fn reload_failed(server: &SkillServer, error: &StoreError) {
    let text = format!("reloading the skills after the folder sync failed: {error}");
    tracing::warn!("{text}");
    server.tell_clients(ClientLog::new(Level::Warning, "folders", text));
}

/// What a sync changed in the store, in words.
fn changes_of(report: &SyncReport) -> String {
    format!(
        "{} created, {} updated, {} deleted",
        report.import.created.len(),
        report.import.updated.len(),
        report.deleted.len()
    )
}

/// How long a failed sync waits before it is tried again, at first and at most.
const RETRY: (Duration, Duration) = (Duration::from_millis(250), Duration::from_secs(10));

/// The syncs that failed in a row, and when to try again.
#[derive(Debug, Default)]
struct Failing {
    /// How many syncs in a row failed.
    attempts: u32,
    /// What the last failure said, so a long outage is said once, not at every retry.
    said: Option<String>,
}

impl Failing {
    /// The wait before the next try, while failing: doubling from [`RETRY`]'s first to its
    /// last.
    fn retry_in(&self) -> Option<Duration> {
        (self.attempts > 0).then(|| {
            let doubled = RETRY
                .0
                .saturating_mul(2u32.saturating_pow(self.attempts - 1));
            doubled.min(RETRY.1)
        })
    }
}

/// One sync; a reload of the server's catalog if it changed the store. What is new about the
/// folders (a folder broken by an edit, one fixed) is said on stderr, as is a sync that failed
/// (once per cause) and the first one that succeeds after.
async fn sync_and_refresh(sync: &FolderSync, server: &SkillServer, failing: &mut Failing) {
    match sync.sync().await {
        Ok(report) => {
            if failing.attempts > 0 {
                tracing::info!(
                    "the skill folders are synced again (after {} failed {})",
                    failing.attempts,
                    if failing.attempts == 1 {
                        "try"
                    } else {
                        "tries"
                    }
                );
            }
            *failing = Failing::default();
            server.set_sync_problem(None);
            tell_news(server, sync.news(&report));
            server.set_folder_report(report.skipped.clone(), report.shadowed.clone());
            if report.changed() {
                server.tell_clients(ClientLog::new(
                    Level::Info,
                    "folders",
                    format!("skill folders synced: {}", changes_of(&report)),
                ));
                if let Err(error) = server.refresh().await {
                    reload_failed(server, &error);
                }
            }
        }
        Err(error) => {
            failing.attempts += 1;
            let text = error.to_string();
            server.set_sync_problem(Some(text.clone()));
            if failing.said.as_deref() != Some(text.as_str()) {
                tracing::warn!(
                    "syncing the skill folders failed: {text}; trying again until it works (every {} s at most)",
                    RETRY.1.as_secs()
                );
                failing.said = Some(text);
            }
        }
    }
}
