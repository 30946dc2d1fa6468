//! A skill as files in memory: what a folder, a stored revision, an MCP payload or an upload
//! all become, and what validation, the lints, the Golden Path checks and rendering take.
//! Relative links and template references resolve against these files, never the disk.

mod folder;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::load::{self, LoadOptions};
use crate::skill_md::SkillMd;

/// One skill's files, by relative `/`-separated path, its `SKILL.md` among them (as
/// `SKILL.md`, or `skill.md`, which the reference accepts), and what its diagnostics need to
/// name its place.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkillBundle {
    /// Where the skill is as the user named it (a folder), or a nominal path (a stored revision
    /// or an MCP payload: its name). Diagnostics name its files under it, and `skills-ref` mode
    /// compares `name` with its last part, as the reference compares with `Path(dir).name`.
    pub display_path: PathBuf,
    /// The name of the skill's own folder (symlinks resolved), which `name` must equal in
    /// `spec` and `lenient` mode; `None` when it has none that is UTF-8.
    pub folder_name: Option<String>,
    /// Every file, by path in the skill.
    pub files: BTreeMap<String, Vec<u8>>,
    /// What the skill's folder holds beside its files, that a link may still name.
    pub beside: Beside,
    /// What reading the folder left out or could not read: warnings, or errors that keep the
    /// skill from being stored. Validation reports them outside `skills-ref` mode.
    pub read_diagnostics: Vec<Diagnostic>,
    /// The configuration options of the package the skill is a member of (none for a skill
    /// of no package): its body, templates and conditions may use them as `{PascalCase}`
    /// variables, and its tool takes them as optional arguments.
    pub package_options: Vec<crate::golden_path::args::Arg>,
}

/// What a skill folder holds that is not one of the skill's files. Empty for a skill that
/// never was a folder.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Beside {
    /// Sub-folders that are skills of their own: a link into one is a link to another skill,
    /// which is there.
    pub nested_skills: BTreeSet<String>,
    /// Symlinks that lead out of the folder: a link to one leaves the skill.
    pub links_out: BTreeSet<String>,
}

/// Where a path of a skill leads, for links and template references.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// One of the skill's files, with its bytes.
    File(&'a [u8]),
    /// A folder of the skill (one with files in it, or the skill's own folder).
    Folder,
    /// Inside a sub-folder that is a skill of its own.
    NestedSkill,
    /// A symlink that leads out of the skill's folder.
    LinkOut,
    /// Nothing.
    Missing,
}

impl SkillBundle {
    /// A skill that is no folder on disk (a stored revision, an MCP payload): named `name`,
    /// which is both its display path and its folder's name, with `skill_md` and `files`.
    pub fn named(
        name: &str,
        skill_md: impl Into<Vec<u8>>,
        files: impl IntoIterator<Item = (String, Vec<u8>)>,
    ) -> SkillBundle {
        let mut files: BTreeMap<String, Vec<u8>> = files.into_iter().collect();
        files.insert("SKILL.md".to_owned(), skill_md.into());
        SkillBundle {
            display_path: PathBuf::from(name),
            folder_name: Some(name.to_owned()),
            files,
            ..SkillBundle::default()
        }
    }

    /// The `SKILL.md`: its file name (`SKILL.md`, else `skill.md`) and bytes.
    pub fn skill_md(&self) -> Option<(&str, &[u8])> {
        ["SKILL.md", "skill.md"]
            .into_iter()
            .find_map(|name| self.files.get(name).map(|bytes| (name, bytes.as_slice())))
    }

    /// Its `SKILL.md` parsed in `options`' mode within its size limit, or why it cannot be: no
    /// `SKILL.md`, too large, not UTF-8.
    pub fn parse_skill_md(&self, options: LoadOptions) -> Result<SkillMd, Diagnostic> {
        match self.skill_md() {
            Some((name, bytes)) => {
                load::parse_skill_md(&self.display_path, name, bytes.to_vec(), options)
            }
            None => Err(load::missing_skill_md(&self.display_path, options.mode)),
        }
    }

    /// Where `relative`, a `/`-separated path already inside the skill (see [`inside`]), leads.
    pub fn lookup(&self, relative: &str) -> Lookup<'_> {
        if relative.is_empty() {
            return Lookup::Folder;
        }
        if let Some(bytes) = self.files.get(relative) {
            return Lookup::File(bytes);
        }
        let folder = format!("{relative}/");
        if self
            .files
            .range(folder.clone()..)
            .next()
            .is_some_and(|(path, _)| path.starts_with(&folder))
        {
            return Lookup::Folder;
        }
        let at_or_under = |set: &BTreeSet<String>| {
            set.iter().any(|path| {
                relative == path
                    || relative
                        .strip_prefix(path.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
        };
        if at_or_under(&self.beside.nested_skills) {
            Lookup::NestedSkill
        } else if at_or_under(&self.beside.links_out) {
            Lookup::LinkOut
        } else {
            Lookup::Missing
        }
    }
}

/// `path`, relative to a skill's folder, as a `/`-separated path inside it (`.` parts dropped,
/// `..` taken back lexically), or `None` when it is absolute or climbs out of the folder.
pub fn inside(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SkillBundle {
        let mut bundle = SkillBundle::named(
            "s",
            "---\nname: s\ndescription: d\n---\n",
            [("references/a.md".to_owned(), b"A".to_vec())],
        );
        bundle.beside.nested_skills.insert("sub".to_owned());
        bundle.beside.links_out.insert("host".to_owned());
        bundle
    }

    #[test]
    fn paths_resolve_inside_the_skill_only() {
        assert_eq!(inside("refs/../x.md").as_deref(), Some("x.md"));
        assert_eq!(inside("./a//b/").as_deref(), Some("a/b"));
        assert_eq!(inside("../b/SKILL.md"), None);
        assert_eq!(inside("a/../../b"), None);
        assert_eq!(inside("/etc/passwd"), None);
    }

    #[test]
    fn lookups_know_files_folders_and_what_is_beside() {
        let bundle = sample();
        assert_eq!(bundle.lookup("references/a.md"), Lookup::File(b"A"));
        assert_eq!(bundle.lookup("references"), Lookup::Folder);
        assert_eq!(bundle.lookup(""), Lookup::Folder);
        assert!(matches!(bundle.lookup("SKILL.md"), Lookup::File(_)));
        assert_eq!(bundle.lookup("references/b.md"), Lookup::Missing);
        assert_eq!(bundle.lookup("refer"), Lookup::Missing);
        assert_eq!(bundle.lookup("sub/SKILL.md"), Lookup::NestedSkill);
        assert_eq!(bundle.lookup("subway"), Lookup::Missing);
        assert_eq!(bundle.lookup("host"), Lookup::LinkOut);
        assert_eq!(bundle.skill_md().map(|(name, _)| name), Some("SKILL.md"));
    }
}
