//! The install commands: `add`, `sync`, `status`, `update`, `install` and `remove`. What they
//! share is here: whose skills (a project's or the user's), which agents' folders, the store
//! they open, the checked content of locked skills (what the store holds of them, handed to
//! [`verify`]), the import of a source's skills with their provenance, and the text of what was
//! written. Reading sources, checking them against the lock and writing folders are
//! `skillpath_sources`'; the commands parse, call and print.

pub(crate) mod add;
pub(crate) mod frozen;
pub(crate) mod remove;
pub(crate) mod status;
pub(crate) mod sync;
pub(crate) mod update;
pub(crate) mod values;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use skillpath_app::Operation;
use skillpath_folders::discovery;
use skillpath_model::agents::{self, Agent};
use skillpath_model::{
    FolderImport, FullName, ImportItem, Namespace, Placement, Provenance, Visibility,
};
use skillpath_sources::SourceError;
use skillpath_sources::digest::{files_of, tree_digest};
pub(crate) use skillpath_sources::folders::shown;
use skillpath_sources::folders::{self, Scope};
use skillpath_sources::lock::{LOCK_FILE, Lock, LockedSkill};
use skillpath_sources::tree::{self, SourceSkill};
use skillpath_sources::verify::{self, LockedContent};
use skillpath_sources::write::{Outcome, Placed};
use skillpath_store::directory::Governance;
use skillpath_store::{ImportReport, ProjectView, Store};

use crate::cli::{AgentArgs, DbArgs, InstallScopeArgs};
use crate::commands::store::{self as store_commands, Access, AsOwner, Owner};
use crate::error::CliError;
use crate::output::{self, ExitStatus};

/// What every install command starts from: whose skills, their lock, and which agents.
pub(crate) struct Setup {
    pub(crate) scope: Scope,
    pub(crate) lock: Lock,
    pub(crate) agents: Vec<&'static Agent>,
}

/// What to say of a registry's skill read at a yanked version (a pinned one installs).
pub(crate) fn yanked_text(skill: &SourceSkill) -> String {
    match skill.release.as_ref().and_then(|release| {
        release
            .yanked
            .as_ref()
            .map(|why| (release.version.as_str(), why))
    }) {
        Some((version, why)) => format!(
            "warning: `{}` {version} was yanked ({why}); it is installed because it was asked for exactly: `skillpath update {}` with a range moves on\n",
            skill.name, skill.name
        ),
        None => String::new(),
    }
}

/// Sends the key in `args.token_file` to registries (else `$SKILLPATH_TOKEN` is sent); `Err`:
/// the exit status, the error said.
pub(crate) fn use_token(args: &crate::cli::RegistryTokenArgs) -> Result<(), ExitStatus> {
    let Some(path) = &args.token_file else {
        return Ok(());
    };
    let token = std::fs::read_to_string(path)
        .map_err(|error| usage(&SourceError::io("read", path, &error)))?;
    let token = token.trim();
    if token.is_empty() || token.contains(char::is_whitespace) {
        return Err(usage(
            &SourceError::new(format!(
                "`{}` holds no API key (one line, `sp_…`)",
                path.display()
            ))
            .hint("write the key `skillpath keys create` printed into it, alone"),
        ));
    }
    skillpath_sources::registry::use_token(token.to_owned());
    Ok(())
}

/// The [`Setup`] the arguments name; `Err`: the exit status, the error said.
pub(crate) fn setup(
    scope_args: &InstallScopeArgs,
    agent_args: &AgentArgs,
) -> Result<Setup, ExitStatus> {
    let scope = scope(scope_args).map_err(|e| usage(&e))?;
    let lock = read_lock(&scope).map_err(|e| usage(&e))?;
    let agents = chosen_agents(agent_args, &lock).map_err(|e| usage(&e))?;
    Ok(Setup {
        scope,
        lock,
        agents,
    })
}

/// Says `error`, a usage, source or lock error; exit status 2.
pub(crate) fn usage(error: &SourceError) -> ExitStatus {
    fail(error, ExitStatus::UsageOrInternal).unwrap_or(ExitStatus::UsageOrInternal)
}

/// The scope the arguments name.
pub(crate) fn scope(args: &InstallScopeArgs) -> Result<Scope, SourceError> {
    if args.user {
        let home = std::env::var_os("HOME")
            .filter(|home| !home.is_empty())
            .map(PathBuf::from)
            .ok_or_else(|| SourceError::new("`HOME` is not set, so there is no user scope"))?;
        return Ok(Scope::User(home));
    }
    let cwd = std::env::current_dir()
        .map_err(|e| SourceError::new(format!("cannot read the current folder: {e}")))?;
    Ok(Scope::Project(project_root(&cwd)))
}

/// The project of the folder `cwd`: the nearest folder up from it with a `skillpath.lock`,
/// else the repository root (the last of discovery's project folders), else `cwd`.
fn project_root(cwd: &Path) -> PathBuf {
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    if let Some(with_lock) = cwd.ancestors().find(|dir| dir.join(LOCK_FILE).is_file()) {
        return with_lock.to_path_buf();
    }
    discovery::project_dirs(&cwd).pop().unwrap_or(cwd)
}

/// The user's home folder (for which agents are installed).
fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// The agents whose folders are written: those named, else the lock's, else those installed.
pub(crate) fn chosen_agents(
    args: &AgentArgs,
    lock: &Lock,
) -> Result<Vec<&'static Agent>, SourceError> {
    let ids: Vec<String> = if !args.agents.is_empty() {
        args.agents.clone()
    } else if !lock.agents.is_empty() {
        lock.agents.clone()
    } else {
        return Ok(folders::installed_agents(&home()));
    };
    ids.iter()
        .map(|id| {
            agents::agent(id.trim()).ok_or_else(|| {
                SourceError::new(format!("`{id}` is no agent skillpath knows")).hint(format!(
                    "the agents are: {}",
                    agents::AGENTS
                        .iter()
                        .map(|agent| agent.id)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        })
        .collect()
}

/// The ids of `agents`, for the lock.
pub(crate) fn ids(agents: &[&'static Agent]) -> Vec<String> {
    agents.iter().map(|agent| agent.id.to_owned()).collect()
}

/// Prints `error` with its hint and gives the exit status of a failed command.
pub(crate) fn fail(error: &SourceError, status: ExitStatus) -> Result<ExitStatus, CliError> {
    output::stderr(&said(error, error.hint.as_deref())).map_err(store_commands::io)?;
    Ok(status)
}

/// `error` and its hint as a failed command says them.
pub(crate) fn said(error: &dyn std::fmt::Display, hint: Option<&str>) -> String {
    let mut text = format!("error: {error}\n");
    if let Some(hint) = hint {
        let _ = writeln!(text, "  = hint: {hint}");
    }
    text
}

/// Runs `work` as the store's owner, through the application, on the store the arguments
/// name (made when there is none), seen as every project's, its audit policy set to `policy`
/// when given: what every install command that imports or reads stored skills starts with.
pub(crate) fn with_owner<F, Fut>(
    db: &DbArgs,
    policy: Option<skillpath_audit::Policy>,
    work: F,
) -> anyhow::Result<ExitStatus>
where
    F: FnOnce(Owner) -> Fut,
    Fut: std::future::Future<Output = Result<ExitStatus, CliError>>,
{
    let as_owner = AsOwner {
        access: Access::Creates,
        author: None,
        audit: policy,
        meaning: None,
    };
    store_commands::run_as_owner_in(db, ProjectView::shared(), as_owner, work)
}

/// The lock of `scope`, or an empty one; `Err`: it cannot be read.
pub(crate) fn read_lock(scope: &Scope) -> Result<Lock, SourceError> {
    Ok(Lock::read(&scope.lock_path())?.unwrap_or_default())
}

/// Writes the lock of `scope`, making its folder for the user scope.
pub(crate) fn write_lock(scope: &Scope, lock: &Lock) -> Result<(), SourceError> {
    let path = scope.lock_path();
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| SourceError::io("create", parent, &e))?;
    }
    lock.write(&path)
}

/// The provenance an installed skill is imported with: the source, the commit and the path.
pub(crate) fn provenance(source: &str, commit: Option<&str>, path: &str) -> Provenance {
    Provenance::Imported {
        path: match commit {
            Some(commit) => format!("{source}#{commit}:{}", tree::display_path(path)),
            None => format!("{source}:{}", tree::display_path(path)),
        },
        root: source.to_owned(),
        scope: "installed".to_owned(),
    }
}

/// A skill read from a source, ready to import and lock.
#[derive(Clone)]
pub(crate) struct Taken {
    pub(crate) skill: SourceSkill,
    pub(crate) source: String,
    pub(crate) reference: Option<String>,
    pub(crate) commit: Option<String>,
    /// The store namespace it goes into (or is already in).
    pub(crate) namespace: Namespace,
}

/// Imports `taken` through the application, one import per namespace (each gated as any
/// caller's write there: the namespace exists and takes writes); the skills it creates get
/// `visibility`, existing ones keep theirs. The lock entries of those written or unchanged
/// (refused ones are left out, and reported), by name, with the revisions the store holds
/// them at.
pub(crate) async fn import(
    owner: &Owner,
    taken: Vec<Taken>,
    visibility: Visibility,
    message: &str,
) -> Result<(ImportReport, BTreeMap<String, LockedSkill>), CliError> {
    let mut by_namespace: BTreeMap<Namespace, Vec<&Taken>> = BTreeMap::new();
    for taken in &taken {
        by_namespace
            .entry(taken.namespace.clone())
            .or_default()
            .push(taken);
    }
    let mut report = ImportReport::default();
    for (namespace, taken) in by_namespace {
        let items = taken
            .iter()
            .map(|taken| {
                FolderImport::from(ImportItem {
                    snapshot: taken.skill.snapshot.clone(),
                    provenance: provenance(
                        &taken.source,
                        taken.commit.as_deref(),
                        &taken.skill.path,
                    ),
                })
            })
            .collect();
        let permit = owner.may(Operation::ImportSkills)?;
        let placement = Placement {
            namespace,
            visibility,
        };
        let imported = owner
            .app
            .import(&permit, items, placement, Some(message.to_owned()))
            .await?;
        report.absorb(imported.report);
    }
    let mut locked = BTreeMap::new();
    for taken in taken {
        let name = &taken.skill.name;
        let key = FullName::new(taken.namespace.clone(), name).key();
        if report.refused.iter().any(|refused| refused.name == key) {
            continue;
        }
        let stored = owner.app.store().get(&key, None).await?;
        let files = files_of(&taken.skill.snapshot);
        locked.insert(
            name.clone(),
            LockedSkill {
                source: taken.source,
                namespace: (!taken.namespace.is_global()).then_some(taken.namespace),
                reference: taken.reference,
                commit: taken.commit,
                digest: taken.skill.digest,
                version: taken.skill.release.map(|release| release.version),
                path: taken.skill.path,
                revision: stored.revision,
                tree: tree_digest(&files),
                files,
            },
        );
    }
    Ok((report, locked))
}

/// Makes each of `namespaces` that the store lacks, a team namespace that admins manage
/// until it has owners (recorded in the governance log, as `namespaces create` is), so that a
/// lock's skills are restored into the namespaces it names; the namespaces made.
pub(crate) async fn make_missing(
    owner: &Owner,
    namespaces: BTreeSet<Namespace>,
) -> Result<Vec<Namespace>, CliError> {
    let read = owner.may(Operation::ReadDirectory)?;
    let directory = owner.app.directory(&read).await?;
    let mut made = Vec::new();
    for namespace in namespaces {
        if directory.namespace(&namespace).is_some() {
            continue;
        }
        let permit = owner.may(Operation::Govern)?;
        let change = Governance::CreateNamespace {
            name: namespace.clone(),
            owner: None,
        };
        match owner.app.govern(&permit, change).await {
            Ok(_) => made.push(namespace),
            // Another install of the same lock may have made it meanwhile.
            Err(error) => {
                let again = owner.app.directory(&read).await?;
                if again.namespace(&namespace).is_none() {
                    return Err(error.into());
                }
            }
        }
    }
    Ok(made)
}

/// Says what the audit refused or flagged of an import, on stderr.
pub(crate) fn report_audit(
    report: &ImportReport,
    policy: skillpath_audit::Policy,
) -> Result<(), CliError> {
    let mut text = String::new();
    for refused in &report.refused {
        let _ = writeln!(text, "refused: {}", refused.refusal(policy));
    }
    for flagged in &report.flagged {
        if flagged.audit.highest() >= Some(skillpath_audit::Severity::High) {
            let _ = writeln!(text, "findings: {}", flagged.findings_line());
        }
    }
    output::stderr(&text).map_err(store_commands::io)
}

/// The checked content of each of `skills` (name and lock entry): the store's current
/// revision of a skill where its files are the locked ones, else its source's at the locked
/// pin, checked ([`verify::locked_skills`]).
pub(crate) async fn locked_contents<'a>(
    store: &dyn Store,
    skills: Vec<(&'a str, &'a LockedSkill)>,
) -> Vec<LockedContent<'a>> {
    let mut stored = BTreeMap::new();
    for (name, locked) in &skills {
        if let Ok(skill) = store.get(&locked.key(name), None).await
            && !skill.deleted
        {
            stored.insert((*name).to_owned(), skill.snapshot);
        }
    }
    verify::locked_skills(skills, &stored)
}

/// The text of what [`write_all`](skillpath_sources::write::write_all) did: a line per folder with counts, and each skipped skill.
pub(crate) fn placed_text(root: &Path, placed: &[Placed]) -> String {
    let mut by_folder: BTreeMap<String, BTreeMap<&str, usize>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut text = String::new();
    for item in placed {
        let folder = item
            .path
            .parent()
            .map(|dir| shown(root, dir))
            .unwrap_or_default();
        if !by_folder.contains_key(&folder) {
            order.push(folder.clone());
        }
        *by_folder
            .entry(folder)
            .or_default()
            .entry(item.result.as_str())
            .or_default() += 1;
    }
    for folder in order {
        let counts: Vec<String> = by_folder[&folder]
            .iter()
            .map(|(result, count)| format!("{count} {result}"))
            .collect();
        let _ = writeln!(text, "  {folder}: {}", counts.join(", "));
    }
    for item in placed.iter().filter(|item| {
        item.result == Outcome::Skipped || item.reason.is_some() && item.result == Outcome::Copied
    }) {
        let _ = writeln!(
            text,
            "{}: `{}`: {}",
            item.result.as_str(),
            shown(root, &item.path),
            item.reason.as_deref().unwrap_or_default()
        );
    }
    text
}
