//! The agents' skill folders: which ones a project's or a user's skills are written into
//! ([`targets`]), writing one skill into one of them whole or not at all ([`place`]), what is
//! there now against what the lock says ([`state`]), and taking a skill out ([`remove`]).
//!
//! By default each skill has one canonical copy in the cross-client `.agents/skills/<name>`,
//! and every other agent's folder holds a relative symlink to it, so that an edit shows up in
//! every agent and a clone of the project keeps working (where a link cannot be made, a copy
//! is, and said so). A skill folder is replaced by writing the new one beside it and
//! exchanging the two in one rename (`renameat2(RENAME_EXCHANGE)` on Linux; elsewhere two
//! renames), so an interrupted write leaves the old folder or the new one. Nothing is ever
//! written through a symlink: an agent folder that is a symlink (or a file, or in a folder
//! that is one) is skipped with the reason.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use skillpath_folders::home;
use skillpath_model::agents::{self, Agent};
use skillpath_model::{Kind, SkillSnapshot};

use crate::digest::FileDigest;
use crate::lock::LOCK_FILE;

/// Whose skills: a project's (written into its folders) or the user's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// The project at this folder.
    Project(PathBuf),
    /// The user whose home folder this is.
    User(PathBuf),
}

/// The canonical folder's agent: the cross-client `.agents/skills`.
pub const CANONICAL_AGENT: &str = "universal";

impl Scope {
    /// The project or home folder.
    pub fn root(&self) -> &Path {
        match self {
            Scope::Project(root) | Scope::User(root) => root,
        }
    }

    /// Where the scope's lock is: `skillpath.lock` in the project; for the user,
    /// `$XDG_CONFIG_HOME/skillpath/skillpath.lock` (`~/.config/…` without it).
    pub fn lock_path(&self) -> PathBuf {
        match self {
            Scope::Project(root) => root.join(LOCK_FILE),
            Scope::User(home) => home::user_folder(".config/skillpath", home).join(LOCK_FILE),
        }
    }

    /// The folder under which every part of `dir`, an agent folder of this scope, must be a
    /// real folder: the project or home folder, or, for a user folder an environment variable
    /// moved elsewhere (`CLAUDE_CONFIG_DIR`, …), the variable's folder, which the user chose.
    pub fn base_of(&self, dir: &Path) -> PathBuf {
        if dir.starts_with(self.root()) {
            return self.root().to_path_buf();
        }
        agents::MOVED_BY_ENVIRONMENT
            .iter()
            .filter_map(|(_, variable)| std::env::var_os(variable).map(PathBuf::from))
            .filter(|moved| moved.is_absolute() && dir.starts_with(moved))
            .max_by_key(|moved| moved.components().count())
            .unwrap_or_else(|| self.root().to_path_buf())
    }

    /// `agent`'s own skill folder (the first it reads) in this scope.
    pub fn folder_of(&self, agent: &Agent) -> PathBuf {
        match self {
            Scope::Project(root) => root.join(agent.project[0]),
            Scope::User(home) => home::user_folder(agent.user[0], home),
        }
    }

    /// The canonical folder of this scope (`.agents/skills`), which holds the copies the other
    /// agents' folders link to.
    pub fn canonical(&self) -> Option<PathBuf> {
        agents::agent(CANONICAL_AGENT).map(|agent| self.folder_of(agent))
    }

    /// Why nothing may be written into `dir`, an agent folder of this scope, if so (`refusal`,
    /// checked from [`Scope::base_of`]); `Ok(Some(canonical))`: it is a link to the canonical
    /// folder, which holds the skills already.
    pub fn refusal(&self, dir: &Path) -> Result<Option<PathBuf>, FolderError> {
        match self.canonical() {
            Some(canonical) => refusal(&self.base_of(dir), dir, &canonical),
            None => Ok(None),
        }
    }

    /// What the skill folder `name` of `target` should be a link to: its canonical copy, for
    /// every folder but the canonical one.
    pub fn link_to(&self, target: &Target, name: &str) -> Option<PathBuf> {
        self.canonical()
            .filter(|_| !target.canonical)
            .map(|canonical| canonical.join(name))
    }
}

/// One skill folder of agents that skills are written into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The folder (`<project>/.claude/skills`).
    pub dir: PathBuf,
    /// The ids of the agents that read it.
    pub agents: Vec<&'static str>,
    /// Whether it is the canonical folder, which holds the copies the others link to.
    pub canonical: bool,
}

/// The folders the skills of `scope` are written into for `agents`: the canonical
/// `.agents/skills` first, then each agent's own folder, each once.
pub fn targets(scope: &Scope, chosen: &[&'static Agent]) -> Vec<Target> {
    let mut targets: Vec<Target> = Vec::new();
    if let Some(dir) = scope.canonical() {
        targets.push(Target {
            dir,
            agents: vec![CANONICAL_AGENT],
            canonical: true,
        });
    }
    for agent in chosen {
        let dir = scope.folder_of(agent);
        match targets.iter_mut().find(|target| target.dir == dir) {
            Some(target) => {
                if !target.agents.contains(&agent.id) {
                    target.agents.push(agent.id);
                }
            }
            None => targets.push(Target {
                dir,
                agents: vec![agent.id],
                canonical: false,
            }),
        }
    }
    targets
}

/// The agents found installed for the user whose home folder is `home`, in the table's order.
pub fn installed_agents(home: &Path) -> Vec<&'static Agent> {
    agents::AGENTS
        .iter()
        .filter(|agent| agent.id != CANONICAL_AGENT && !agent.detect.is_empty())
        .filter(|agent| home::installed(agent, home))
        .collect()
}

/// Why nothing may be written into `dir`, an agent folder of the scope at `root`, if so: a
/// part of it below `root` is a symlink or not a folder. `Ok(Some(canonical))`: `dir` is a
/// link to the canonical folder `canonical`, which holds the skills already.
fn refusal(root: &Path, dir: &Path, canonical: &Path) -> Result<Option<PathBuf>, FolderError> {
    let relative = dir.strip_prefix(root).map_err(|_| FolderError::Outside {
        dir: dir.to_path_buf(),
        root: root.to_path_buf(),
    })?;
    let mut at = root.to_path_buf();
    for component in relative.components() {
        let Component::Normal(part) = component else {
            return Err(FolderError::NotPlain(dir.to_path_buf()));
        };
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(FolderError::Read(at, error)),
            Ok(meta) if meta.file_type().is_symlink() => {
                let real = at.canonicalize().ok();
                if at == dir && real.is_some() && real == canonical.canonicalize().ok() {
                    return Ok(Some(canonical.to_path_buf()));
                }
                let target = std::fs::read_link(&at)
                    .map(|t| t.display().to_string())
                    .unwrap_or_default();
                return Err(FolderError::Symlink { at, target });
            }
            Ok(meta) if !meta.is_dir() => {
                return Err(FolderError::NotAFolder(at));
            }
            Ok(_) => {}
        }
    }
    Ok(None)
}

/// The folder of the skill `name` in the agent folder `dir`, checked before anything reads,
/// writes or removes it: `name` must be one folder's name (core's
/// [`check_folder_name`](skillpath_core::validate::check_folder_name), which a lock, the store
/// and every source already hold names to, checked again here because this is where a name
/// becomes a path), and the path must be a child of `dir` (on Windows a name could still be
/// read as a path of its own). That `dir` itself is no symlink is [`Scope::refusal`]'s.
pub fn skill_folder(dir: &Path, name: &str) -> Result<PathBuf, FolderError> {
    skillpath_core::validate::check_folder_name(name).map_err(FolderError::Name)?;
    let path = dir.join(name);
    if path.parent() != Some(dir) || path.file_name() != Some(std::ffi::OsStr::new(name)) {
        return Err(FolderError::NotInside {
            path,
            dir: dir.to_path_buf(),
        });
    }
    Ok(path)
}

/// How a skill was written into a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// It was there already, as it should be.
    Unchanged,
    /// A copy was written.
    Copied,
    /// A symlink to the canonical copy was written.
    Linked,
    /// A link was asked for and could not be made; a copy was written, for this reason.
    CopiedForLink(String),
}

/// Writes `snapshot` as the skill folder `dir/name` ([`skill_folder`]), replacing what is
/// there whole: as a relative symlink to `link_to` when given, else as a copy.
pub fn place(
    dir: &Path,
    name: &str,
    snapshot: &SkillSnapshot,
    link_to: Option<&Path>,
) -> Result<Written, FolderError> {
    let target = skill_folder(dir, name)?;
    std::fs::create_dir_all(dir).map_err(|e| FolderError::Create(dir.to_path_buf(), e))?;
    // Staged beside the agent folder, not in it, so that no agent (and no `serve` watching
    // the folder) ever sees the half-written copy as a skill of its own.
    let beside = dir.parent().unwrap_or(dir);
    clean_leftovers(beside, name);
    let stage = beside.join(format!("{}{name}-{}", STAGING_PREFIX, std::process::id()));
    if let Some(canonical) = link_to {
        if is_link_to(&target, canonical) {
            return Ok(Written::Unchanged);
        }
        let relative = relative_path(dir, canonical);
        match symlink(&relative, &stage) {
            Ok(()) => {
                swap(&stage, &target)?;
                return Ok(Written::Linked);
            }
            Err(error) => {
                let why = format!("a symlink cannot be made in `{}`: {error}", dir.display());
                write_copy(&stage, snapshot)?;
                swap(&stage, &target)?;
                return Ok(Written::CopiedForLink(why));
            }
        }
    }
    let is_link = std::fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link && read_files(&target).is_ok_and(|files| files == files_of(snapshot)) {
        return Ok(Written::Unchanged);
    }
    write_copy(&stage, snapshot)?;
    swap(&stage, &target)?;
    Ok(Written::Copied)
}

/// What the name of a skill folder being written starts with, in the folder beside the agent
/// folder: `.skillpath-staging-<name>-<pid>`.
const STAGING_PREFIX: &str = ".skillpath-staging-";

/// Removes what is left of an interrupted write of `name` beside an agent folder.
fn clean_leftovers(dir: &Path, name: &str) {
    let prefix = format!("{STAGING_PREFIX}{name}-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let leftover = file_name
            .to_string_lossy()
            .strip_prefix(&prefix)
            .map(|rest| rest.trim_end_matches(".old"))
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        if leftover {
            let _ = remove_path(&entry.path());
        }
    }
}

/// Writes the skill as a new folder at `stage`: every file created new, in folders made here.
fn write_copy(stage: &Path, snapshot: &SkillSnapshot) -> Result<(), FolderError> {
    let fail = |path: &Path, e: std::io::Error| FolderError::Write(path.to_path_buf(), e);
    std::fs::create_dir(stage).map_err(|e| fail(stage, e))?;
    for file in &snapshot.files {
        skillpath_model::check_relative_path(&file.path)
            .map_err(|e| FolderError::FilePath(e.to_string()))?;
    }
    let files = std::iter::once((snapshot.kind.manifest(), snapshot.skill_md.as_bytes())).chain(
        snapshot
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.bytes.as_slice())),
    );
    for (relative, bytes) in files {
        let path = stage.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| fail(parent, e))?;
        }
        use std::io::Write as _;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        // A script (`#!` first) is written executable: the store keeps no file modes, and an
        // agent runs `scripts/x.sh` as the skill says.
        #[cfg(unix)]
        if bytes.starts_with(b"#!") {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o755);
        }
        let mut file = options.open(&path).map_err(|e| fail(&path, e))?;
        file.write_all(bytes).map_err(|e| fail(&path, e))?;
        file.sync_all().map_err(|e| fail(&path, e))?;
    }
    Ok(())
}

/// Puts `stage` at `target`: in one exchange when `target` exists, so that it is always the
/// old folder or the new one; then removes the old one.
fn swap(stage: &Path, target: &Path) -> Result<(), FolderError> {
    let fail = |e: std::io::Error| {
        let _ = remove_path(stage);
        FolderError::Write(target.to_path_buf(), e)
    };
    match std::fs::symlink_metadata(target) {
        Err(error) if error.kind() == ErrorKind::NotFound => {
            std::fs::rename(stage, target).map_err(fail)
        }
        Err(error) => Err(fail(error)),
        Ok(_) => {
            if exchange(stage, target).is_ok() {
                return remove_path(stage).map_err(|e| FolderError::Remove(stage.to_path_buf(), e));
            }
            let old = stage.with_extension("old");
            std::fs::rename(target, &old).map_err(fail)?;
            std::fs::rename(stage, target).map_err(|e| {
                let _ = std::fs::rename(&old, target);
                fail(e)
            })?;
            remove_path(&old).map_err(|e| FolderError::Remove(old, e))
        }
    }
}

/// Exchanges two paths atomically, where the system can.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        a,
        rustix::fs::CWD,
        b,
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .map_err(std::io::Error::from)
}

/// Exchanges two paths atomically, where the system can.
#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(ErrorKind::Unsupported))
}

/// A symlink at `link` to `target`.
#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

/// A symlink at `link` to `target`.
#[cfg(windows)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(target, link)
}

/// Removes a file, a symlink (not what it leads to) or a folder with what it holds.
fn remove_path(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// `path` relative to `root` when it is inside, for people.
pub fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .map(|relative| relative.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// Whether `path` is the relative symlink to `to` that [`place`] writes.
pub fn is_link_to(path: &Path, to: &Path) -> bool {
    let Some(dir) = path.parent() else {
        return false;
    };
    std::fs::read_link(path).is_ok_and(|link| link == relative_path(dir, to))
}

/// `to` relative to the folder `from` (both absolute, or both relative to one folder).
pub fn relative_path(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut relative = PathBuf::new();
    for _ in common..from.len() {
        relative.push("..");
    }
    for part in &to[common..] {
        relative.push(part);
    }
    relative
}

/// Most files read of one installed skill folder.
const MAX_FILES: usize = 10_000;

/// Every file of the installed skill folder `dir`, by `/`-separated path, with its bytes.
/// Symlinks inside are not followed: one is read as the text `symlink -> target`, which no
/// locked file is, so it shows up as a change.
pub fn read_files(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, FolderError> {
    let mut files = BTreeMap::new();
    let mut pending = vec![(dir.to_path_buf(), String::new())];
    while let Some((folder, prefix)) = pending.pop() {
        let entries =
            std::fs::read_dir(&folder).map_err(|e| FolderError::Read(folder.clone(), e))?;
        for entry in entries {
            let entry = entry.map_err(|e| FolderError::Read(folder.clone(), e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = format!("{prefix}{name}");
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| FolderError::Read(path.clone(), e))?;
            if kind.is_dir() {
                pending.push((path, format!("{relative}/")));
            } else if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap_or_default();
                files.insert(
                    relative,
                    format!("symlink -> {}", target.display()).into_bytes(),
                );
            } else if kind.is_file() {
                let bytes = std::fs::read(&path).map_err(|e| FolderError::Read(path.clone(), e))?;
                files.insert(relative, bytes);
            } else {
                files.insert(relative, b"special file".to_vec());
            }
            if files.len() > MAX_FILES {
                return Err(FolderError::TooManyFiles(dir.to_path_buf()));
            }
        }
    }
    Ok(files)
}

/// The files of a snapshot by path, its manifest (`SKILL.md`, or `PACKAGE.md`) among them.
pub fn files_of(snapshot: &SkillSnapshot) -> BTreeMap<String, Vec<u8>> {
    std::iter::once((
        snapshot.kind.manifest().to_owned(),
        snapshot.skill_md.as_bytes().to_vec(),
    ))
    .chain(
        snapshot
            .files
            .iter()
            .map(|file| (file.path.clone(), file.bytes.clone())),
    )
    .collect()
}

/// One way a folder's file differs from the lock.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "change", content = "path")]
pub enum FileChange {
    /// In the folder, not in the lock.
    Added(String),
    /// In the lock, not in the folder.
    Removed(String),
    /// In both, with other bytes.
    Changed(String),
}

impl FileChange {
    /// The file's path.
    pub fn path(&self) -> &str {
        match self {
            FileChange::Added(path) | FileChange::Removed(path) | FileChange::Changed(path) => path,
        }
    }
}

/// What an installed skill's folder holds, against its lock entry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "state")]
pub enum State {
    /// Exactly what the lock says.
    Clean,
    /// Not there.
    Missing,
    /// The skill, edited: these files differ.
    Modified {
        /// What differs.
        changes: Vec<FileChange>,
    },
    /// Something skillpath did not write: another skill, a file, a link elsewhere.
    Conflicting {
        /// What is there.
        reason: String,
    },
}

/// The state of the skill folder `path`, against the `locked` files; `link_to`: the
/// canonical copy it should be a link to.
pub fn state(path: &Path, locked: &[FileDigest], name: &str, link_to: Option<&Path>) -> State {
    let meta = match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == ErrorKind::NotFound => return State::Missing,
        Err(error) => {
            return State::Conflicting {
                reason: format!("cannot be read: {error}"),
            };
        }
        Ok(meta) => meta,
    };
    if meta.file_type().is_symlink() {
        return match link_to {
            Some(canonical) if is_link_to(path, canonical) => state(canonical, locked, name, None),
            _ => State::Conflicting {
                reason: format!(
                    "is a symlink to `{}`, which skillpath did not write",
                    std::fs::read_link(path).unwrap_or_default().display()
                ),
            },
        };
    }
    if !meta.is_dir() {
        return State::Conflicting {
            reason: "is a file, not a skill folder".to_owned(),
        };
    }
    let files = match read_files(path) {
        Ok(files) => files,
        Err(error) => {
            return State::Conflicting {
                reason: error.to_string(),
            };
        }
    };
    let changes = compare(&files, locked);
    if changes.is_empty() {
        return State::Clean;
    }
    // A skill's folder, or a package's (which has a `PACKAGE.md` and no `SKILL.md`).
    let manifest = [Kind::Skill, Kind::Package]
        .into_iter()
        .find_map(|kind| files.get(kind.manifest()));
    if let Some(other) = manifest
        .and_then(|bytes| frontmatter_name(bytes))
        .filter(|other| other != name)
    {
        return State::Conflicting {
            reason: format!("holds another skill, `{other}`"),
        };
    }
    if manifest.is_none() {
        return State::Conflicting {
            reason: "is a folder without a `SKILL.md` (or a package's `PACKAGE.md`)".to_owned(),
        };
    }
    State::Modified { changes }
}

/// How `files` differ from `locked`, in path order.
pub fn compare(files: &BTreeMap<String, Vec<u8>>, locked: &[FileDigest]) -> Vec<FileChange> {
    let mut changes = Vec::new();
    let locked: BTreeMap<&str, &FileDigest> = locked.iter().map(|f| (f.path.as_str(), f)).collect();
    for (path, bytes) in files {
        match locked.get(path.as_str()) {
            None => changes.push(FileChange::Added(path.clone())),
            Some(digest) if **digest != FileDigest::of(path, bytes) => {
                changes.push(FileChange::Changed(path.clone()));
            }
            Some(_) => {}
        }
    }
    for path in locked.keys() {
        if !files.contains_key(*path) {
            changes.push(FileChange::Removed((*path).to_owned()));
        }
    }
    changes.sort_by(|a, b| a.path().cmp(b.path()));
    changes
}

/// The `name` in a `SKILL.md`'s frontmatter, read leniently.
fn frontmatter_name(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8(bytes.to_vec()).ok()?;
    let skill =
        skillpath_core::skill_md::parse("SKILL.md".into(), text, skillpath_core::Mode::Lenient);
    skill.text_field("name").map(|name| name.trim().to_owned())
}

/// Takes the skill folder (or link) `dir/name` ([`skill_folder`]) away.
pub fn remove(dir: &Path, name: &str) -> Result<(), FolderError> {
    let path = skill_folder(dir, name)?;
    remove_path(&path).map_err(|e| FolderError::Remove(path, e))
}

/// Why a skill folder cannot be written, read or removed, or why nothing may be written into
/// an agent folder: the text a person reads as a skipped skill's reason.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// An agent folder outside the folder it is checked from.
    #[error("`{}` is outside `{}`", dir.display(), root.display())]
    Outside {
        /// The agent folder.
        dir: PathBuf,
        /// The project, home or moved folder it should be under.
        root: PathBuf,
    },
    /// An agent folder whose path has `..` or `.` in it.
    #[error("`{}` is not a plain path", .0.display())]
    NotPlain(PathBuf),
    /// A part of an agent folder's path is a symlink (not the one to the canonical folder).
    #[error("`{}` is a symlink to `{target}`; skillpath writes nothing through a symlink", at.display())]
    Symlink {
        /// The symlink.
        at: PathBuf,
        /// Where it leads.
        target: String,
    },
    /// A part of an agent folder's path is a file.
    #[error("`{}` is a file, not a folder", .0.display())]
    NotAFolder(PathBuf),
    /// A skill name that is no folder's name.
    #[error("{0}; nothing is written or removed for it")]
    Name(skillpath_core::validate::NotAFolderName),
    /// A skill name that, joined to its agent folder, is not a child of it.
    #[error(
        "`{}` is not a folder inside `{}`; nothing is written or removed for it",
        path.display(),
        dir.display()
    )]
    NotInside {
        /// The path the name made.
        path: PathBuf,
        /// The agent folder.
        dir: PathBuf,
    },
    /// A file of the skill whose path cannot be written anywhere (the store's path rule).
    #[error("{0}")]
    FilePath(String),
    /// A folder that cannot be read.
    #[error("cannot read `{path}`: {1}", path = .0.display())]
    Read(PathBuf, #[source] std::io::Error),
    /// A folder that cannot be made.
    #[error("cannot create `{path}`: {1}", path = .0.display())]
    Create(PathBuf, #[source] std::io::Error),
    /// A file or folder that cannot be written.
    #[error("cannot write `{path}`: {1}", path = .0.display())]
    Write(PathBuf, #[source] std::io::Error),
    /// A folder or link that cannot be taken away.
    #[error("cannot remove `{path}`: {1}", path = .0.display())]
    Remove(PathBuf, #[source] std::io::Error),
    /// An installed skill folder with more files than `MAX_FILES`.
    #[error("`{}` holds more than {max} files", .0.display(), max = MAX_FILES)]
    TooManyFiles(PathBuf),
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillpath_model::SkillFile;

    fn snapshot(body: &str) -> SkillSnapshot {
        SkillSnapshot::new(
            format!("---\nname: demo\ndescription: Demo.\n---\n{body}"),
            vec![SkillFile {
                path: "scripts/run.sh".into(),
                bytes: b"echo hi\n".to_vec(),
            }],
        )
        .expect("snapshot")
    }

    #[test]
    fn a_skill_is_copied_linked_replaced_and_compared() {
        let root = tempfile::tempdir().expect("temp");
        let canonical = root.path().join(".agents/skills");
        let claude = root.path().join(".claude/skills");
        let first = snapshot("one\n");
        assert_eq!(
            place(&canonical, "demo", &first, None).ok(),
            Some(Written::Copied)
        );
        assert_eq!(
            place(&canonical, "demo", &first, None).ok(),
            Some(Written::Unchanged)
        );
        let linked = place(&claude, "demo", &first, Some(&canonical.join("demo")));
        assert_eq!(linked.ok(), Some(Written::Linked));
        let link = std::fs::read_link(claude.join("demo")).expect("a link");
        assert_eq!(link, Path::new("../../.agents/skills/demo"));
        let locked = crate::digest::files_of(&first);
        assert_eq!(
            state(&canonical.join("demo"), &locked, "demo", None),
            State::Clean
        );
        assert_eq!(
            state(
                &claude.join("demo"),
                &locked,
                "demo",
                Some(&canonical.join("demo"))
            ),
            State::Clean
        );
        std::fs::write(canonical.join("demo/scripts/run.sh"), "echo edited\n").expect("edit");
        std::fs::write(canonical.join("demo/notes.txt"), "mine\n").expect("add");
        assert_eq!(
            state(
                &claude.join("demo"),
                &locked,
                "demo",
                Some(&canonical.join("demo"))
            ),
            State::Modified {
                changes: vec![
                    FileChange::Added("notes.txt".into()),
                    FileChange::Changed("scripts/run.sh".into())
                ]
            }
        );
        let second = snapshot("two\n");
        assert_eq!(
            place(&canonical, "demo", &second, None).ok(),
            Some(Written::Copied)
        );
        let files = read_files(&canonical.join("demo")).expect("read");
        assert_eq!(
            files,
            files_of(&second),
            "replaced whole: the added file is gone"
        );
        for dir in [&canonical, &root.path().join(".agents")] {
            let leftovers: Vec<_> = std::fs::read_dir(dir)
                .expect("list")
                .flatten()
                .map(|e| e.file_name())
                .filter(|name| name.to_string_lossy().starts_with('.'))
                .collect();
            assert!(leftovers.is_empty(), "{leftovers:?}");
        }
        assert_eq!(
            state(&root.path().join("none"), &locked, "demo", None),
            State::Missing
        );
    }

    /// A name that is no folder's is refused before anything is read, written or removed,
    /// with the reason: nothing appears anywhere, and nothing goes.
    #[test]
    fn names_that_are_paths_write_and_remove_nothing() {
        let root = tempfile::tempdir().expect("temp");
        let skills = root.path().join(".agents/skills");
        std::fs::create_dir_all(&skills).expect("mkdir");
        std::fs::write(root.path().join(".agents/keep.txt"), "kept").expect("write");
        let absolute = root.path().join("abs").display().to_string();
        for name in [
            "..",
            ".",
            "a/b",
            &absolute,
            "../../../x",
            ".claude",
            "x\\y",
            "CON",
            "a\0b",
        ] {
            let refused = place(&skills, name, &snapshot("x\n"), None)
                .expect_err(name)
                .to_string();
            assert!(refused.contains("cannot be a folder's name"), "{refused}");
            let refused = remove(&skills, name).expect_err(name).to_string();
            assert!(
                refused.contains("nothing is written or removed"),
                "{refused}"
            );
        }
        let mut left = Vec::new();
        let mut pending = vec![root.path().to_path_buf()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).expect("list").flatten() {
                left.push(
                    entry
                        .path()
                        .strip_prefix(root.path())
                        .expect("inside")
                        .to_path_buf(),
                );
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    pending.push(entry.path());
                }
            }
        }
        left.sort();
        assert_eq!(
            left,
            [
                Path::new(".agents"),
                Path::new(".agents/keep.txt"),
                Path::new(".agents/skills")
            ]
        );
        assert_eq!(
            skill_folder(&skills, "My Skill").ok(),
            Some(skills.join("My Skill"))
        );
    }

    #[test]
    fn folders_that_are_files_or_links_elsewhere_are_refused() {
        let root = tempfile::tempdir().expect("temp");
        let canonical = root.path().join(".agents/skills");
        std::fs::create_dir_all(&canonical).expect("mkdir");
        std::fs::write(root.path().join(".cursor"), "a file").expect("file");
        let elsewhere = tempfile::tempdir().expect("temp");
        std::os::unix::fs::symlink(elsewhere.path(), root.path().join(".codex")).expect("link");
        std::fs::create_dir_all(root.path().join(".claude")).expect("mkdir");
        std::os::unix::fs::symlink("../.agents/skills", root.path().join(".claude/skills"))
            .expect("link");
        let file = refusal(root.path(), &root.path().join(".cursor/skills"), &canonical);
        assert!(file.expect_err("file").to_string().contains("is a file"));
        let link = refusal(root.path(), &root.path().join(".codex/skills"), &canonical);
        assert!(
            link.expect_err("link")
                .to_string()
                .contains("writes nothing through a symlink")
        );
        let shared = refusal(root.path(), &root.path().join(".claude/skills"), &canonical);
        assert_eq!(shared.ok(), Some(Some(canonical.clone())));
        assert_eq!(
            refusal(root.path(), &root.path().join(".roo/skills"), &canonical).ok(),
            Some(None)
        );
    }
}
