//! The install commands: `add`, `sync`, `status`, `update`, `install` and `remove`. What they
//! share is here: whose skills (a project's or the user's), which agents' folders, the content
//! of a locked skill (from the store when it holds it, else from its source at the locked
//! commit, checked file by file against the lock), the import of a source's skills with their
//! provenance, and writing skills into the folders.

pub(crate) mod add;
pub(crate) mod frozen;
pub(crate) mod remove;
pub(crate) mod status;
pub(crate) mod sync;
pub(crate) mod update;
pub(crate) mod values;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use skillpath_folders::discovery;
use skillpath_model::agents::{self, Agent};
use skillpath_model::{Change, ImportItem, Provenance, SkillSnapshot};
use skillpath_sources::SourceError;
use skillpath_sources::digest::{FileDigest, files_of, tree_digest};
use skillpath_sources::folders::{self, Scope, State, Target, Written};
use skillpath_sources::git::Repository;
use skillpath_sources::lock::{LOCK_FILE, Lock, LockedSkill};
use skillpath_sources::source::{self, Origin, Pin};
use skillpath_sources::tree::{self, SourceSkill};
use skillpath_store::{ImportReport, Store, StoreError};

use crate::cli::{AgentArgs, InstallScopeArgs};
use crate::output::{self, ExitStatus};

/// What every install command starts from: whose skills, their lock, and which agents.
pub(crate) struct Setup {
    pub(crate) scope: Scope,
    pub(crate) lock: Lock,
    pub(crate) agents: Vec<&'static Agent>,
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

/// The change record of an install command's revisions: `$USER`, and `message`.
pub(crate) fn change(message: String) -> Change {
    let author = std::env::var("USER")
        .ok()
        .filter(|user| !user.is_empty())
        .unwrap_or_else(|| "cli".to_owned());
    Change { author, message }
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
pub(crate) fn fail(error: &SourceError, status: ExitStatus) -> Result<ExitStatus, StoreError> {
    let mut text = format!("error: {error}\n");
    if let Some(hint) = &error.hint {
        let _ = writeln!(text, "  = hint: {hint}");
    }
    output::stderr(&text).map_err(crate::commands::store::io)?;
    Ok(status)
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
pub(crate) struct Taken {
    pub(crate) skill: SourceSkill,
    pub(crate) source: String,
    pub(crate) reference: Option<String>,
    pub(crate) commit: Option<String>,
}

/// Imports `taken` into the store; the lock entries of those written or unchanged (refused
/// ones are left out, and reported), with the revisions the store holds them at.
pub(crate) async fn import(
    store: &dyn Store,
    taken: Vec<Taken>,
    change: Change,
) -> Result<(ImportReport, BTreeMap<String, LockedSkill>), StoreError> {
    let items = taken
        .iter()
        .map(|taken| ImportItem {
            snapshot: taken.skill.snapshot.clone(),
            provenance: provenance(&taken.source, taken.commit.as_deref(), &taken.skill.path),
        })
        .collect();
    let report = store.import(items, change).await?;
    let mut locked = BTreeMap::new();
    for taken in taken {
        let name = &taken.skill.name;
        if report.refused.iter().any(|refused| &refused.name == name) {
            continue;
        }
        let stored = store.get(name, None).await?;
        let files = files_of(&taken.skill.snapshot);
        locked.insert(
            name.clone(),
            LockedSkill {
                source: taken.source,
                reference: taken.reference,
                commit: taken.commit,
                digest: taken.skill.digest,
                path: taken.skill.path,
                revision: stored.revision,
                tree: tree_digest(&files),
                files,
            },
        );
    }
    Ok((report, locked))
}

/// Says what the audit refused or flagged of an import, on stderr.
pub(crate) fn report_audit(
    report: &ImportReport,
    policy: skillpath_audit::Policy,
) -> Result<(), StoreError> {
    let mut text = String::new();
    for refused in &report.refused {
        let _ = writeln!(text, "refused: {}", refused.refusal(policy));
    }
    for flagged in &report.flagged {
        if flagged.audit.highest() >= Some(skillpath_audit::Severity::High) {
            let _ = writeln!(text, "findings: {}", flagged.findings_line());
        }
    }
    output::stderr(&text).map_err(crate::commands::store::io)
}

/// The sources read so far by one command, each once per pin: a restore of 200 skills from
/// one repository reads its commit once, not once per skill.
#[derive(Default)]
pub(crate) struct SourceReads {
    read: BTreeMap<PinnedSource, Result<tree::Found, SourceError>>,
}

/// A source as a lock pins it: the source, the commit, the digest.
type PinnedSource = (String, Option<String>, Option<String>);

impl SourceReads {
    /// The skill at `locked.path` of the locked skill's source, as the lock pins it.
    fn skill(&mut self, locked: &LockedSkill) -> Result<SourceSkill, SourceError> {
        let key = (
            locked.source.clone(),
            locked.commit.clone(),
            locked.digest.clone(),
        );
        let found = self.read.entry(key).or_insert_with(|| {
            source::read(&Origin::from_recorded(&locked.source), locked.pin(), "")
        });
        skill_at(
            found.as_ref().map_err(Clone::clone)?,
            &locked.source,
            &locked.path,
        )
    }
}

/// The skill at `path` of what was read of `source`, or the error that it holds none there.
pub(crate) fn skill_at(
    found: &tree::Found,
    source: &str,
    path: &str,
) -> Result<SourceSkill, SourceError> {
    found
        .skills
        .iter()
        .find(|skill| skill.path == path)
        .cloned()
        .ok_or_else(|| {
            SourceError::new(format!(
                "`{source}` holds no skill at `{}` any more",
                tree::display_path(path)
            ))
        })
}

/// The content of the locked skill `name`: the store's current revision when its files are
/// the locked ones, else read from its source at the locked commit (through `reads`), every
/// file checked against the lock (a file that differs fails, named).
pub(crate) async fn locked_content(
    store: &dyn Store,
    reads: &mut SourceReads,
    name: &str,
    locked: &LockedSkill,
) -> Result<SkillSnapshot, SourceError> {
    if locked.tree_agrees()
        && let Ok(stored) = store.get(name, None).await
        && !stored.deleted
        && tree_digest(&files_of(&stored.snapshot)) == locked.tree
    {
        return Ok(stored.snapshot);
    }
    let skill = reads.skill(locked)?;
    verify(name, locked, &files_of(&skill.snapshot))?;
    if !locked.tree_agrees() {
        return Err(SourceError::new(format!(
            "the lock's tree digest of `{name}` does not agree with its files, which do agree with the source: the digest was changed by hand"
        ))
        .hint("restore the lock from version control, or `skillpath update` the skill"));
    }
    Ok(skill.snapshot)
}

/// The locked skill as its source holds it at the lock's pin (not yet checked against the
/// lock's files).
pub(crate) fn read_locked(locked: &LockedSkill) -> Result<SourceSkill, SourceError> {
    let found = source::read(
        &Origin::from_recorded(&locked.source),
        locked.pin(),
        &locked.path,
    )?;
    skill_at(&found, &locked.source, &locked.path)
}

/// The skills of a source as they are now, under `path`: a git source at the newest commit of
/// `reference` (returned), an archive as `digest` pins it (an archive has no ref to move on),
/// a folder or a discovery index as it is published.
pub(crate) fn read_newest(
    origin: &Origin,
    reference: Option<&str>,
    digest: Option<&str>,
    path: &str,
) -> Result<(Option<String>, tree::Found), SourceError> {
    let commit = match origin {
        Origin::Git { url } => Some(Repository::open(url)?.resolve(reference)?),
        _ => None,
    };
    let digest = match origin {
        Origin::Archive { .. } => digest,
        _ => None,
    };
    let pin = Pin {
        commit: commit.as_deref(),
        digest,
    };
    Ok((commit.clone(), source::read(origin, pin, path)?))
}

/// Checks `files` against the lock's files of `name`; the first file that differs fails.
pub(crate) fn verify(
    name: &str,
    locked: &LockedSkill,
    files: &[FileDigest],
) -> Result<(), SourceError> {
    let at = match &locked.commit {
        Some(commit) => format!("commit {commit} of `{}`", locked.source),
        None if locked.digest.is_some() => format!("`{}` (digest checked)", locked.source),
        None => format!("`{}`", locked.source),
    };
    let given: BTreeMap<&str, &FileDigest> = files.iter().map(|f| (f.path.as_str(), f)).collect();
    for expected in &locked.files {
        match given.get(expected.path.as_str()) {
            None => {
                return Err(SourceError::new(format!(
                    "`{name}/{}` is in the lock but not in {at}",
                    expected.path
                ))
                .hint(tampered_hint()));
            }
            Some(got) if *got != expected => {
                return Err(SourceError::new(format!(
                    "`{name}/{}` differs from the lock: the lock says {} ({} bytes), {at} has {} ({} bytes)",
                    expected.path, expected.sha256, expected.size, got.sha256, got.size
                ))
                .hint(tampered_hint()));
            }
            Some(_) => {}
        }
    }
    if let Some(extra) = files
        .iter()
        .find(|f| !locked.files.iter().any(|e| e.path == f.path))
    {
        return Err(SourceError::new(format!(
            "`{name}/{}` is in {at} but not in the lock",
            extra.path
        ))
        .hint(tampered_hint()));
    }
    Ok(())
}

/// What to do about content that differs from the lock.
fn tampered_hint() -> &'static str {
    "the source's history was rewritten or the lock was changed: nothing was written; check the source, then `skillpath update` the skill to pin what it holds now"
}

/// What happened to one skill in one folder.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Placed {
    /// The skill folder (or link).
    pub(crate) path: PathBuf,
    /// The skill.
    pub(crate) name: String,
    /// `copied`, `linked`, `unchanged`, or `skipped`.
    pub(crate) result: &'static str,
    /// Why it was skipped, or why a copy was written for a link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
}

impl Placed {
    /// What [`folders::place`] did, or why it could not.
    pub(crate) fn of(path: PathBuf, name: &str, result: Result<Written, String>) -> Placed {
        let (result, reason) = match result {
            Ok(Written::Unchanged) => ("unchanged", None),
            Ok(Written::Copied) => ("copied", None),
            Ok(Written::Linked) => ("linked", None),
            Ok(Written::CopiedForLink(why)) => ("copied", Some(why)),
            Err(why) => ("skipped", Some(why)),
        };
        Placed {
            path,
            name: name.to_owned(),
            result,
            reason,
        }
    }
}

/// A skill to write: its content, and the files its folders hold when they are untouched
/// (the lock's before this write), against which local edits are told.
pub(crate) struct ToWrite<'a> {
    pub(crate) name: &'a str,
    pub(crate) snapshot: &'a SkillSnapshot,
    pub(crate) untouched: &'a [FileDigest],
    /// Whether its `SKILL.md` is rendered with a project's values (`--values`), so differs
    /// from the lock's by design and is written again by every sync.
    pub(crate) rendered: bool,
}

/// How folders with local edits are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edits {
    /// Left as they are, named.
    Keep,
    /// Replaced.
    Replace,
}

/// Writes each skill into each target folder: the canonical one first as a copy, the others
/// as links to it (copies with `copy`, or where the canonical copy could not be written).
pub(crate) fn write_all(
    scope: &Scope,
    targets: &[Target],
    skills: &[ToWrite<'_>],
    copy: bool,
    edits: Edits,
) -> Vec<Placed> {
    let mut placed = Vec::new();
    // The skills whose canonical copy is in place, which links may point to.
    let mut linkable: Vec<&str> = Vec::new();
    for target in targets {
        let refusal = scope.refusal(&target.dir);
        for skill in skills {
            let path = match folders::skill_folder(&target.dir, skill.name) {
                Ok(path) => path,
                Err(reason) => {
                    placed.push(Placed::of(target.dir.clone(), skill.name, Err(reason)));
                    continue;
                }
            };
            let skip = |reason: String| Placed::of(path.clone(), skill.name, Err(reason));
            match &refusal {
                Err(reason) => {
                    placed.push(skip(reason.clone()));
                    continue;
                }
                Ok(Some(shared)) => {
                    placed.push(Placed {
                        path: path.clone(),
                        name: skill.name.to_owned(),
                        result: "unchanged",
                        reason: Some(format!(
                            "`{}` is a link to `{}`",
                            target.dir.display(),
                            shared.display()
                        )),
                    });
                    continue;
                }
                Ok(None) => {}
            }
            let link_to = scope
                .link_to(target, skill.name)
                .filter(|_| !copy && linkable.contains(&skill.name));
            let mut before = folders::state(&path, skill.untouched, skill.name, link_to.as_deref());
            if let State::Modified { changes } = &mut before
                && skill.rendered
            {
                changes.retain(|change| change.path() != "SKILL.md");
                if changes.is_empty() {
                    before = State::Clean;
                }
            }
            match (&before, edits) {
                (State::Conflicting { reason }, _) => {
                    placed.push(skip(format!("{reason}; it is left as it is")));
                    continue;
                }
                (State::Modified { changes }, Edits::Keep) => {
                    let files: Vec<&str> = changes.iter().map(|c| c.path()).collect();
                    placed.push(skip(format!(
                        "has local edits ({}); `skillpath status` shows them, `skillpath update --force` or `install --frozen` replaces them",
                        files.join(", ")
                    )));
                    continue;
                }
                _ => {}
            }
            // A link whose canonical copy has local edits shows them; replacing edits means
            // writing the canonical copy, which happened above.
            let written =
                folders::place(&target.dir, skill.name, skill.snapshot, link_to.as_deref());
            if target.canonical && written.is_ok() {
                linkable.push(skill.name);
            }
            placed.push(Placed::of(path, skill.name, written));
        }
    }
    placed
}

/// The text of what [`write_all`] did: a line per folder with counts, and each skipped skill.
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
            .entry(item.result)
            .or_default() += 1;
    }
    for folder in order {
        let counts: Vec<String> = by_folder[&folder]
            .iter()
            .map(|(result, count)| format!("{count} {result}"))
            .collect();
        let _ = writeln!(text, "  {folder}: {}", counts.join(", "));
    }
    for item in placed
        .iter()
        .filter(|item| item.result == "skipped" || item.reason.is_some() && item.result == "copied")
    {
        let _ = writeln!(
            text,
            "{}: `{}`: {}",
            item.result,
            shown(root, &item.path),
            item.reason.as_deref().unwrap_or_default()
        );
    }
    text
}

/// `path` relative to `root` when it is inside, for people.
pub(crate) fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .map(|relative| relative.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}
