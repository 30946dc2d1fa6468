//! The skills of a source: a commit's tree in memory (or a folder on disk) searched for skill
//! folders, each read into a [`SkillSnapshot`] by the rules every other way into skillpath
//! uses (core's `skill_files` decides what belongs to a skill; the store's path rule what can
//! be written anywhere). What cannot be taken is left out or skipped with the reason, never
//! followed: symlinks that leave their skill, submodules and Git LFS pointers are left out of
//! it; a skill with a file over the size limit, paths that differ only in case, or a `SKILL.md`
//! that cannot be loaded (a Git LFS pointer, a name that cannot be a folder's) is skipped.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use skillpath_core::Mode;
use skillpath_model::{Kind, SkillFile, SkillSnapshot};

/// The largest file of a skill read from a source (a repository, an archive); a larger one is
/// [`Entry::TooLarge`], and the skill that holds it is skipped.
pub const MAX_FILE_SIZE: u64 = skillpath_core::skill_files::MAX_FILE_SIZE;

/// One entry of a commit's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A file's bytes.
    File(Vec<u8>),
    /// A symlink, by its target.
    Symlink(String),
    /// A submodule (a commit of another repository), never fetched.
    Submodule,
    /// A file over [`MAX_FILE_SIZE`], by its size; never read.
    TooLarge(u64),
}

/// The entries of a tree, by `/`-separated path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceTree {
    /// Every entry.
    pub entries: BTreeMap<String, Entry>,
}

impl SourceTree {
    /// The entries under the folder `prefix` (empty: all), by path relative to it.
    pub fn under(self, prefix: &str) -> SourceTree {
        let prefix = prefix.trim_matches('/');
        if prefix.is_empty() {
            return self;
        }
        let folder = format!("{prefix}/");
        SourceTree {
            entries: self
                .entries
                .into_iter()
                .filter_map(|(path, entry)| {
                    path.strip_prefix(&folder)
                        .map(|rest| (rest.to_owned(), entry))
                })
                .collect(),
        }
    }
}

/// A skill found in a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceSkill {
    /// Its `name`.
    pub name: String,
    /// Its folder in the source, `/`-separated; empty: the source's root.
    pub path: String,
    /// Its content.
    pub snapshot: SkillSnapshot,
    /// What was left out of it, each with the reason.
    pub left_out: Vec<String>,
    /// The `sha256:` digest of the archive or discovery-index entry it came from.
    pub digest: Option<String>,
    /// The release of a registry it is (`None` for every other source).
    pub release: Option<Released>,
}

/// Which release of a registry's skill was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Released {
    /// The version, range or tag asked for (`None`: `latest`, or a pinned version).
    pub request: Option<String>,
    /// The version it resolved to.
    pub version: String,
    /// Why the version was yanked, if it was (a pinned version still installs, said so).
    pub yanked: Option<String>,
}

/// Why a skill folder of a source cannot be taken: the reason of its [`Skipped`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ItemError {
    /// No manifest (`SKILL.md`, or a package's `PACKAGE.md`) in the folder.
    #[error("it has no `{0}`")]
    NoManifest(&'static str),
    /// The manifest is a symlink, a submodule or a file over the limit.
    #[error("its `{0}` is not a file")]
    ManifestNotAFile(&'static str),
    /// The manifest is a Git LFS pointer, whose content skillpath does not fetch.
    #[error("its `{0}` {lfs}", lfs = LFS_LEFT_OUT)]
    ManifestLfs(&'static str),
    /// The manifest's bytes are not UTF-8 from the byte `at` on.
    #[error("its `{manifest}` is not UTF-8 (at byte {at})")]
    NotUtf8 {
        /// The manifest's name.
        manifest: &'static str,
        /// The first byte that is not.
        at: usize,
    },
    /// What the skill model's rules refuse of it (a file's path, the content), in their words.
    #[error("{0}")]
    Invalid(String),
    /// Two files whose paths differ only in case.
    #[error(
        "`{other}` and `{relative}` differ only in case: they cannot both be written on a case-insensitive file system (macOS, Windows)"
    )]
    CaseClash {
        /// The first one read.
        other: String,
        /// The second.
        relative: String,
    },
    /// A file over [`MAX_FILE_SIZE`].
    #[error(
        "`{relative}` is {size} bytes, over the limit of {limit} bytes for a skill's file",
        limit = MAX_FILE_SIZE
    )]
    TooLarge {
        /// Its path in the skill.
        relative: String,
        /// Its size.
        size: u64,
    },
    /// A package whose `PACKAGE.md` cannot be read; `.0`: `: [code] message` of the first
    /// error, or empty.
    #[error("its `PACKAGE.md` cannot be read{0}")]
    Package(String),
    /// A `SKILL.md` a loader refuses, by its first error.
    #[error("it cannot be loaded: [{code}] {message}")]
    NotLoadable {
        /// The diagnostic's code.
        code: String,
        /// Its message.
        message: String,
    },
    /// A `SKILL.md` without a `name`.
    #[error("its `SKILL.md` has no `name`")]
    NoName,
    /// A skill folder on disk that the folder reader refuses, in its words.
    #[error("{0}")]
    Folder(String),
}

/// A skill folder of a source that cannot be taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Its folder in the source.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// What a source holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// The skills, in path order.
    pub skills: Vec<SourceSkill>,
    /// The skill folders skipped, with why.
    pub skipped: Vec<Skipped>,
}

impl Found {
    /// The skill at `path` of what was read of `source`, or the error that it holds none there.
    pub fn skill_at(&self, source: &str, path: &str) -> Result<SourceSkill, crate::SourceError> {
        self.skills
            .iter()
            .find(|skill| skill.path == path)
            .cloned()
            .ok_or_else(|| {
                crate::SourceError::new(format!(
                    "`{source}` holds no skill at `{}` any more",
                    display_path(path)
                ))
            })
    }
}

/// The start of a Git LFS pointer file: the content is elsewhere, on an LFS server.
const LFS_POINTER: &[u8] = b"version https://git-lfs.github.com/spec/v1";

/// Why a Git LFS pointer is no file of a skill (after its path).
const LFS_LEFT_OUT: &str =
    "is a Git LFS pointer: its content is on an LFS server, which skillpath does not fetch";

/// Whether `bytes` are a Git LFS pointer (a short text file that starts with [`LFS_POINTER`])
/// rather than the content it stands for. A pointer among a skill's files is left out of the
/// skill, which is taken without it (an example image kept in LFS should not cost the skill);
/// a `SKILL.md` that is one leaves nothing to take.
fn is_lfs_pointer(bytes: &[u8]) -> bool {
    bytes.starts_with(LFS_POINTER) && bytes.len() < 1024
}

/// Finds the skills of `tree`, whose paths are relative to `prefix` in the source (the
/// `--path` asked for; recorded in each skill's path).
pub fn find_skills(tree: &SourceTree, prefix: &str) -> Found {
    let skill_dirs = manifest_dirs(tree, Kind::Skill);
    let mut collected = Collected::default();
    for dir in &skill_dirs {
        collected.add(
            join(prefix, dir),
            read_item(tree, dir, Kind::Skill, &skill_dirs),
        );
    }
    // Architecture packages: a folder with a `PACKAGE.md` and no `SKILL.md`, read without its
    // member skills (which are read above, as skills of their own).
    for dir in manifest_dirs(tree, Kind::Package) {
        if !skill_dirs.contains(&dir) {
            collected.add(
                join(prefix, &dir),
                read_item(tree, &dir, Kind::Package, &skill_dirs),
            );
        }
    }
    collected.found.skills.sort_by(|a, b| a.path.cmp(&b.path));
    collected.found
}

/// The skills of one source as they are read, one per name: of two with one name (in any
/// case), the later is skipped, naming the first.
#[derive(Default)]
struct Collected {
    found: Found,
    /// Each name taken, lowercased, with the folder of the skill that took it.
    names: HashMap<String, String>,
}

impl Collected {
    /// Adds what was read of the skill folder `path` (its content and what was left out of it,
    /// or why it cannot be taken).
    fn add(&mut self, path: String, read: Result<(SkillSnapshot, Vec<String>), ItemError>) {
        let named = read.and_then(|(snapshot, left_out)| {
            skill_name(&snapshot, &path).map(|name| (name, snapshot, left_out))
        });
        match named {
            Ok((name, snapshot, left_out)) => {
                let key = name.to_lowercase();
                if let Some(first) = self.names.get(&key) {
                    let reason = format!(
                        "its name `{name}` is taken by the skill at `{first}` of the same source"
                    );
                    self.found.skipped.push(Skipped { path, reason });
                    return;
                }
                self.names.insert(key, display_path(&path));
                self.found.skills.push(SourceSkill {
                    name,
                    path,
                    snapshot,
                    left_out,
                    digest: None,
                    release: None,
                });
            }
            Err(error) => self.found.skipped.push(Skipped {
                path,
                reason: error.to_string(),
            }),
        }
    }
}

/// The folders of `tree` that hold the manifest of `kind` (a `SKILL.md`, in any case; a
/// `PACKAGE.md`), outside `.git` and `node_modules`, in path order.
fn manifest_dirs(tree: &SourceTree, kind: Kind) -> Vec<String> {
    let mut dirs: Vec<String> = tree
        .entries
        .iter()
        .filter(|(_, entry)| matches!(entry, Entry::File(_)))
        .filter_map(|(path, _)| {
            let (dir, file) = match path.rsplit_once('/') {
                Some((dir, file)) => (dir, file),
                None => ("", path.as_str()),
            };
            let inside_never = skillpath_core::skill_files::not_a_skill_file(&format!("{dir}/x"))
                .is_some()
                && !dir.is_empty();
            let manifest = match kind {
                Kind::Skill => file.eq_ignore_ascii_case("SKILL.md"),
                Kind::Package => file == kind.manifest(),
            };
            (manifest && !inside_never).then(|| dir.to_owned())
        })
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

/// The content of the skill (or package: `kind`) folder `dir` of `tree` (the skill folders in
/// it left out), and what was left out with why; `Err`: why the item cannot be taken.
fn read_item(
    tree: &SourceTree,
    dir: &str,
    kind: Kind,
    skill_dirs: &[String],
) -> Result<(SkillSnapshot, Vec<String>), ItemError> {
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let nested: Vec<String> = skill_dirs
        .iter()
        .filter(|other| other.as_str() != dir && other.starts_with(&prefix))
        .map(|other| format!("{other}/"))
        .collect();
    let manifest = kind.manifest();
    let skill_md_path = match kind {
        Kind::Skill => ["SKILL.md", "skill.md"]
            .iter()
            .map(|name| format!("{prefix}{name}"))
            .find(|path| matches!(tree.entries.get(path), Some(Entry::File(_))))
            .or_else(|| {
                tree.entries
                    .keys()
                    .find(|path| {
                        path.strip_prefix(&prefix)
                            .is_some_and(|rest| rest.eq_ignore_ascii_case("SKILL.md"))
                    })
                    .cloned()
            }),
        Kind::Package => Some(format!("{prefix}{manifest}")),
    }
    .ok_or(ItemError::NoManifest(manifest))?;
    let Some(Entry::File(skill_md)) = tree.entries.get(&skill_md_path) else {
        return Err(ItemError::ManifestNotAFile(manifest));
    };
    if is_lfs_pointer(skill_md) {
        return Err(ItemError::ManifestLfs(manifest));
    }
    let skill_md = String::from_utf8(skill_md.clone()).map_err(|e| ItemError::NotUtf8 {
        manifest,
        at: e.utf8_error().valid_up_to(),
    })?;
    let mut files = Vec::new();
    let mut left_out = Vec::new();
    let mut lowercase: HashMap<String, String> = HashMap::new();
    for (path, entry) in tree.entries.range(prefix.clone()..) {
        let Some(relative) = path.strip_prefix(&prefix) else {
            break;
        };
        if *path == skill_md_path || nested.iter().any(|n| path.starts_with(n.as_str())) {
            continue;
        }
        if let Some(why) = skillpath_core::skill_files::not_a_skill_file(relative) {
            if !relative.eq_ignore_ascii_case("SKILL.md") {
                left_out.push(format!("`{relative}` {why}"));
            }
            continue;
        }
        if let Err(error) = skillpath_model::check_relative_path(relative) {
            return Err(ItemError::Invalid(error.to_string()));
        }
        if let Some(other) = lowercase.insert(relative.to_lowercase(), relative.to_owned()) {
            return Err(ItemError::CaseClash {
                other,
                relative: relative.to_owned(),
            });
        }
        let bytes = match entry {
            Entry::File(bytes) => bytes.clone(),
            Entry::TooLarge(size) => {
                return Err(ItemError::TooLarge {
                    relative: relative.to_owned(),
                    size: *size,
                });
            }
            Entry::Submodule => {
                left_out.push(format!(
                    "`{relative}` is a git submodule, which is not fetched"
                ));
                continue;
            }
            Entry::Symlink(target) => match resolve_link(tree, &prefix, path, target) {
                Some(bytes) => bytes,
                None => {
                    left_out.push(format!(
                        "`{relative}` is a symlink to `{target}`, outside the skill or to no file, not followed"
                    ));
                    continue;
                }
            },
        };
        if is_lfs_pointer(&bytes) {
            left_out.push(format!("`{relative}` {LFS_LEFT_OUT}"));
            continue;
        }
        files.push(SkillFile {
            path: relative.to_owned(),
            bytes,
        });
    }
    let snapshot = SkillSnapshot::of_kind(kind, skill_md, files)
        .map_err(|e| ItemError::Invalid(e.to_string()))?;
    Ok((snapshot, left_out))
}

/// The bytes a symlink at `path` (inside the skill at `prefix`) leads to, when it leads to a
/// file of the same skill (through no further link).
fn resolve_link(tree: &SourceTree, prefix: &str, path: &str, target: &str) -> Option<Vec<u8>> {
    if target.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = path.split('/').collect();
    parts.pop();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    let resolved = parts.join("/");
    if !resolved.starts_with(prefix) {
        return None;
    }
    match tree.entries.get(&resolved) {
        Some(Entry::File(bytes)) => Some(bytes.clone()),
        _ => None,
    }
}

/// The skill's `name`, read leniently as a loader reads it (a package's, as its manifest is
/// read); `Err`: why it cannot be loaded.
fn skill_name(snapshot: &SkillSnapshot, dir: &str) -> Result<String, ItemError> {
    if snapshot.kind == Kind::Package {
        let (_, package, diagnostics) = skillpath_core::package::read_manifest(
            Kind::Package.manifest().into(),
            snapshot.skill_md.clone(),
        );
        return package.map(|package| package.name).ok_or_else(|| {
            let why = diagnostics
                .iter()
                .find(|d| d.severity == skillpath_core::Severity::Error)
                .map_or_else(String::new, |d| format!(": [{}] {}", d.code, d.message));
            ItemError::Package(why)
        });
    }
    let skill = skillpath_core::skill_md::parse(
        "SKILL.md".into(),
        snapshot.skill_md.clone(),
        Mode::Lenient,
    );
    let folder = dir.rsplit('/').next().filter(|name| !name.is_empty());
    let diagnostics = skillpath_core::validate::loading(&skill, folder);
    if let Some(error) = diagnostics
        .iter()
        .find(|d| d.severity == skillpath_core::Severity::Error)
    {
        return Err(ItemError::NotLoadable {
            code: error.code.to_string(),
            message: error.message.clone(),
        });
    }
    skill
        .text_field("name")
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .ok_or(ItemError::NoName)
}

/// Reads the skills of the folder `root` (searched as `import` searches a tree), with their
/// paths relative to it.
pub fn find_folder_skills(root: &Path) -> Found {
    let walk =
        skillpath_core::walk::find_skill_dirs(root, skillpath_core::walk::WalkLimits::default());
    let mut collected = Collected::default();
    for (path, reason) in walk.skipped {
        collected.found.skipped.push(Skipped {
            path: path.display().to_string(),
            reason,
        });
    }
    // A package's folder (inside the root) is taken once, after its first member found, as
    // `import` takes it.
    let root_real = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut packages = std::collections::HashSet::new();
    let mut dirs = Vec::new();
    for skill in walk.skills {
        let package = skillpath_core::package::package_of(&skill.dir)
            .map(|(dir, _)| dir)
            .filter(|dir| dir.starts_with(&root_real) && packages.insert(dir.clone()));
        dirs.push(skill.dir);
        dirs.extend(package);
    }
    for dir in dirs {
        let relative = dir
            .strip_prefix(root)
            .or_else(|_| dir.strip_prefix(&root_real))
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let read = skillpath_folders::folder::read_skill_folder(&dir)
            .map(|snapshot| (snapshot, Vec::new()))
            .map_err(|e| ItemError::Folder(e.to_string()));
        collected.add(relative, read);
    }
    let mut found = collected.found;
    found.skills.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// `prefix/dir`, either possibly empty.
pub(crate) fn join(prefix: &str, dir: &str) -> String {
    match (prefix.trim_matches('/'), dir) {
        ("", dir) => dir.to_owned(),
        (prefix, "") => prefix.to_owned(),
        (prefix, dir) => format!("{prefix}/{dir}"),
    }
}

/// A path in a source for a person: `.` for the root.
pub fn display_path(path: &str) -> String {
    if path.is_empty() {
        ".".to_owned()
    } else {
        path.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(entries: &[(&str, Entry)]) -> SourceTree {
        SourceTree {
            entries: entries
                .iter()
                .map(|(path, entry)| ((*path).to_owned(), entry.clone()))
                .collect(),
        }
    }

    fn file(text: &str) -> Entry {
        Entry::File(text.as_bytes().to_vec())
    }

    fn skill_md(name: &str) -> Entry {
        file(&format!(
            "---\nname: {name}\ndescription: Does {name}.\n---\n# {name}\n"
        ))
    }

    #[test]
    fn skills_are_found_with_their_files_and_nested_skills_apart() {
        let tree = tree(&[
            ("README.md", file("hi")),
            ("skills/a/SKILL.md", skill_md("a")),
            ("skills/a/scripts/run.sh", file("echo")),
            ("skills/a/inner/SKILL.md", skill_md("inner")),
            ("skills/a/inner/x.txt", file("x")),
            ("skills/a/link.txt", Entry::Symlink("scripts/run.sh".into())),
            ("skills/a/out.txt", Entry::Symlink("../../README.md".into())),
            ("skills/a/vendor", Entry::Submodule),
            ("node_modules/z/SKILL.md", skill_md("z")),
        ]);
        let found = find_skills(&tree, "");
        let names: Vec<&str> = found.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "inner"]);
        let a = &found.skills[0];
        assert_eq!(a.path, "skills/a");
        let paths: Vec<&str> = a.snapshot.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["link.txt", "scripts/run.sh"]);
        assert_eq!(a.snapshot.files[0].bytes, b"echo");
        assert_eq!(a.left_out.len(), 2, "{:?}", a.left_out);
        assert!(a.left_out.iter().any(|w| w.contains("submodule")));
        assert!(
            a.left_out
                .iter()
                .any(|w| w.contains("out.txt") && w.contains("not followed"))
        );
    }

    #[test]
    fn what_cannot_be_taken_is_skipped_with_the_reason() {
        let lfs = "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n";
        let tree = tree(&[
            ("big/SKILL.md", skill_md("big")),
            ("big/data.bin", Entry::TooLarge(1 << 30)),
            ("lfs/SKILL.md", file(lfs)),
            ("lfs/model.bin", file(lfs)),
            ("case/SKILL.md", skill_md("case")),
            ("case/Notes.md", file("a")),
            ("case/notes.md", file("b")),
            ("broken/SKILL.md", file("no frontmatter")),
            ("twice/SKILL.md", skill_md("fine")),
            ("fine/SKILL.md", skill_md("fine")),
        ]);
        let found = find_skills(&tree, "skills");
        assert_eq!(found.skills.len(), 1, "{found:?}");
        assert_eq!(found.skills[0].name, "fine");
        assert_eq!(found.skills[0].path, "skills/fine");
        let skipped: HashMap<&str, &str> = found
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason.as_str()))
            .collect();
        assert_eq!(
            skipped["skills/lfs"],
            "its `SKILL.md` is a Git LFS pointer: its content is on an LFS server, which skillpath does not fetch",
        );
        assert!(skipped["skills/case"].contains("differ only in case"));
        assert!(skipped["skills/broken"].contains("cannot be loaded"));
        assert!(skipped["skills/twice"].contains("is taken by the skill at `skills/fine`"));
        assert!(skipped["skills/big"].contains("over the limit"));
    }

    /// A Git LFS pointer among a skill's files is left out of it, named with the reason; the
    /// rest of the skill is taken. A file that only mentions the pointer's first line is kept.
    #[test]
    fn an_lfs_pointer_is_left_out_of_its_skill() {
        let lfs = "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n";
        let tree = tree(&[
            ("pics/SKILL.md", skill_md("pics")),
            ("pics/assets/example.png", file(lfs)),
            ("pics/notes.md", file(&format!("{lfs}{}", "x".repeat(1024)))),
            ("pics/scripts/run.sh", file("echo")),
        ]);
        let found = find_skills(&tree, "");
        assert_eq!(found.skipped, []);
        let [pics] = found.skills.as_slice() else {
            panic!("one skill: {found:?}");
        };
        let paths: Vec<&str> = pics
            .snapshot
            .files
            .iter()
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(paths, ["notes.md", "scripts/run.sh"]);
        assert_eq!(
            pics.left_out,
            [
                "`assets/example.png` is a Git LFS pointer: its content is on an LFS server, which skillpath does not fetch"
            ]
        );
    }
}
