//! `skillpath.lock`: what a project (or a user) installed, pinned. Written by `skillpath add`
//! and `skillpath update` only, read by everything else.
//!
//! The format is TOML, sorted and without timestamps, so that two branches that each add a
//! skill merge without a conflict: a `version`, the `agents` whose folders `sync` writes, and
//! one `[skills.<name>]` table per skill, in name order, with its `source`, the `ref` asked
//! for (for a registry's skill, the version, range or tag), the store `namespace` it went
//! into (absent for `@global`), the resolved `commit` (a registry's `version`, or the `digest`
//! of the archive or index entry), its `path` in the source (a registry's slug), the store
//! `revision` it was imported
//! as, its `tree` digest and its `files`, one per line (path, size, SHA-256; see
//! [`crate::digest`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use skillpath_model::{FullName, Namespace};

use crate::SourceError;
use crate::digest::{FileDigest, is_sha256, tree_digest};

/// The lock's file name.
pub const LOCK_FILE: &str = "skillpath.lock";

/// The version of the format this skillpath writes and reads.
pub const VERSION: u32 = 1;

/// A lock: what was installed, pinned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lock {
    /// The ids of the agents whose folders `sync` writes (besides the cross-client
    /// `.agents/skills`, always written); empty: the agents found installed.
    pub agents: Vec<String>,
    /// The skills, by name.
    pub skills: BTreeMap<String, LockedSkill>,
}

/// One installed skill.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LockedSkill {
    /// Where it came from: a git URL, or a folder.
    pub source: String,
    /// The store namespace it was imported into (`add --namespace`); absent: `@global`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<Namespace>,
    /// The ref asked for (branch, tag or commit); absent: the source's default branch.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The commit the ref resolved to; absent for a folder source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The `sha256:` digest of the archive, or of the discovery-index entry, it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The version of a registry's skill that `ref` (the version, range or tag asked for)
    /// resolved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The skill's folder in the source, `/`-separated (for a discovery index: the entry's
    /// name); empty: the source's root.
    #[serde(default)]
    pub path: String,
    /// The store revision it was imported as.
    pub revision: u64,
    /// The tree digest of `files`.
    pub tree: String,
    /// Every file, `SKILL.md` among them, in path order.
    pub files: Vec<FileDigest>,
}

/// The lock as TOML reads it.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LockFile {
    #[serde(rename = "version")]
    _version: u32,
    #[serde(default)]
    agents: Vec<String>,
    /// By name, with where the name is in the text, so that a refusal names its line.
    #[serde(default)]
    skills: BTreeMap<toml::Spanned<String>, LockedSkill>,
}

impl Lock {
    /// The lock at `path`; `None` when there is none.
    pub fn read(path: &Path) -> Result<Option<Lock>, SourceError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(SourceError::io("read", path, &error)),
        };
        Lock::parse(&text, path).map(Some)
    }

    /// The lock in `text`, read from `path` (named in errors).
    pub fn parse(text: &str, path: &Path) -> Result<Lock, SourceError> {
        let shown = path.display();
        if let Some(line) = conflict_marker(text) {
            return Err(SourceError::new(format!(
                "`{shown}` has a merge conflict marker at line {line}"
            ))
            .hint(
                "each skill is its own `[skills.<name>]` table: keep the tables of both sides, remove the markers, then run `skillpath install --frozen` to check the result",
            ));
        }
        let version: Option<u32> = toml::from_str::<toml::Table>(text)
            .ok()
            .and_then(|table| table.get("version").and_then(toml::Value::as_integer))
            .and_then(|version| u32::try_from(version).ok());
        match version {
            Some(VERSION) => {}
            Some(other) => {
                return Err(SourceError::new(format!(
                    "`{shown}` is a lock of version {other}; this skillpath reads version {VERSION}"
                ))
                .hint(if other > VERSION {
                    "it was written by a newer skillpath: upgrade skillpath (the lock is left as it is)"
                } else {
                    "the lock is left as it is; write it again with `skillpath update`"
                }));
            }
            None => {}
        }
        let file: LockFile = toml::from_str(text).map_err(|error| {
            SourceError::new(format!("`{shown}` is not a skillpath lock: {error}"))
                .hint("restore it from version control, or remove it and `skillpath add` the skills again")
        })?;
        for (name, skill) in &file.skills {
            // `sync`, `remove` and `install` make a folder of each name; a name edited into
            // the lock by hand is judged by the rule every skill's name is loaded by.
            if let Err(problem) = skillpath_core::validate::check_folder_name(name.get_ref()) {
                let line = text[..name.span().start].matches('\n').count() + 1;
                return Err(SourceError::new(format!(
                    "`{shown}` line {line}: {problem}"
                ))
                .hint("skillpath never writes such a name into a lock: restore the lock from version control, or remove the skill's table and `skillpath add` it again"));
            }
            let name = name.get_ref();
            if let Some(file) = skill.files.iter().find(|file| !is_sha256(&file.sha256)) {
                return Err(SourceError::new(format!(
                    "`{shown}`: the digest of `{}` in skill `{name}` is not `sha256:` and 64 lowercase hex digits",
                    file.path
                )));
            }
        }
        Ok(Lock {
            agents: file.agents,
            skills: file
                .skills
                .into_iter()
                .map(|(name, skill)| (name.into_inner(), skill))
                .collect(),
        })
    }

    /// The lock as its file holds it: sorted, one line per file, no timestamps.
    pub fn to_toml(&self) -> String {
        let mut text = String::new();
        text.push_str(
            "# Written by `skillpath add` and `skillpath update`; `skillpath install --frozen` restores it.\n",
        );
        let _ = writeln!(text, "version = {VERSION}");
        let mut agents = self.agents.clone();
        agents.sort();
        agents.dedup();
        let agents: Vec<String> = agents.iter().map(|agent| quote(agent)).collect();
        let _ = writeln!(text, "agents = [{}]", agents.join(", "));
        for (name, skill) in &self.skills {
            let _ = writeln!(text, "\n[skills.{}]", quote(name));
            let _ = writeln!(text, "source = {}", quote(&skill.source));
            if let Some(namespace) = &skill.namespace {
                let _ = writeln!(text, "namespace = {}", quote(&namespace.to_string()));
            }
            if let Some(reference) = &skill.reference {
                let _ = writeln!(text, "ref = {}", quote(reference));
            }
            if let Some(commit) = &skill.commit {
                let _ = writeln!(text, "commit = {}", quote(commit));
            }
            if let Some(version) = &skill.version {
                let _ = writeln!(text, "version = {}", quote(version));
            }
            if let Some(digest) = &skill.digest {
                let _ = writeln!(text, "digest = {}", quote(digest));
            }
            let _ = writeln!(text, "path = {}", quote(&skill.path));
            let _ = writeln!(text, "revision = {}", skill.revision);
            let _ = writeln!(text, "tree = {}", quote(&skill.tree));
            text.push_str("files = [\n");
            let mut files = skill.files.clone();
            files.sort();
            for file in &files {
                let _ = writeln!(
                    text,
                    "  {{ path = {}, size = {}, sha256 = {} }},",
                    quote(&file.path),
                    file.size,
                    quote(&file.sha256)
                );
            }
            text.push_str("]\n");
        }
        text
    }

    /// Writes the lock to `path`: beside it first, then renamed over it, so that a reader
    /// sees the old lock or the new one, never half of one.
    pub fn write(&self, path: &Path) -> Result<(), SourceError> {
        let staged = path.with_extension("lock.new");
        std::fs::write(&staged, self.to_toml())
            .map_err(|error| SourceError::io("write", &staged, &error))?;
        std::fs::rename(&staged, path).map_err(|error| SourceError::io("write", path, &error))
    }
}

impl LockedSkill {
    /// The namespace the store keeps it in.
    pub fn namespace(&self) -> Namespace {
        self.namespace.clone().unwrap_or_else(Namespace::global)
    }

    /// The store key of the skill locked as `name` ([`FullName::key`]).
    pub fn key(&self, name: &str) -> String {
        FullName::new(self.namespace(), name).key()
    }

    /// What pins the skill in its source: the commit, or the digest of the archive or index
    /// entry.
    pub fn pin(&self) -> crate::source::Pin<'_> {
        crate::source::Pin {
            commit: self.commit.as_deref(),
            digest: self.digest.as_deref(),
            version: self.version.as_deref(),
        }
    }

    /// Whether the tree digest agrees with the files.
    pub fn tree_agrees(&self) -> bool {
        tree_digest(&self.files) == self.tree
    }
}

/// The line (from 1) of the first merge conflict marker in `text`.
fn conflict_marker(text: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            line.starts_with("<<<<<<<")
                || line.starts_with(">>>>>>>")
                || line.starts_with("|||||||")
                || line == "======="
        })
        .map(|index| index + 1)
}

/// `text` as a TOML basic string.
fn quote(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            '\r' => quoted.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(quoted, "\\u{:04X}", c as u32);
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock() -> Lock {
        let files = vec![
            FileDigest::of("SKILL.md", b"---\nname: b\n---\n"),
            FileDigest::of("scripts/\"odd\" name.sh", b"echo\n"),
        ];
        let skill = |source: &str, namespace: Option<&str>| LockedSkill {
            source: source.to_owned(),
            namespace: namespace.map(|ns| Namespace::parse(ns).expect("a namespace")),
            reference: Some("main".to_owned()),
            commit: Some("0123456789abcdef0123456789abcdef01234567".to_owned()),
            digest: None,
            version: None,
            path: "skills/b".to_owned(),
            revision: 3,
            tree: tree_digest(&files),
            files: files.clone(),
        };
        Lock {
            agents: vec!["codex".to_owned(), "claude-code".to_owned()],
            skills: BTreeMap::from([
                ("b".to_owned(), skill("https://example.com/b.git", None)),
                ("a".to_owned(), skill("file:///tmp/a", Some("@team-a"))),
            ]),
        }
    }

    /// What is written reads back the same, sorted, and writing it again gives the same bytes.
    #[test]
    fn a_lock_round_trips_sorted() {
        let lock = lock();
        let text = lock.to_toml();
        let read = Lock::parse(&text, Path::new("skillpath.lock")).expect("parses");
        assert_eq!(read.skills, lock.skills);
        assert_eq!(read.agents, ["claude-code", "codex"]);
        assert_eq!(read.to_toml(), text);
        assert!(text.find("[skills.\"a\"]") < text.find("[skills.\"b\"]"));
        assert!(read.skills.values().all(LockedSkill::tree_agrees));
    }

    #[test]
    fn conflict_markers_unknown_versions_and_bad_digests_are_refused() {
        let path = Path::new("skillpath.lock");
        let text = lock().to_toml();
        let conflicted = text.replacen("[skills.\"b\"]", "<<<<<<< HEAD\n[skills.\"b\"]", 1);
        let error = Lock::parse(&conflicted, path).expect_err("conflict");
        assert!(
            error.message.contains("merge conflict marker at line"),
            "{error}"
        );
        let newer = text.replacen("version = 1", "version = 7", 1);
        let error = Lock::parse(&newer, path).expect_err("version");
        assert!(error.message.contains("version 7"), "{error}");
        assert!(error.hint.expect("hint").contains("upgrade"));
        let tampered = text.replacen("sha256 = \"sha256:", "sha256 = \"sha256:zz", 1);
        let error = Lock::parse(&tampered, path).expect_err("digest");
        assert!(error.message.contains("64 lowercase hex"), "{error}");
        let error = Lock::parse("not toml [", path).expect_err("syntax");
        assert!(error.message.contains("is not a skillpath lock"), "{error}");
        let bad_namespace = text.replacen("namespace = \"@team-a\"", "namespace = \"@Team A\"", 1);
        assert_ne!(bad_namespace, text);
        let error = Lock::parse(&bad_namespace, path).expect_err("namespace");
        assert!(error.message.contains("Team A"), "{error}");
    }

    /// A skill's namespace is written only where it is not `@global`, and names its store key.
    #[test]
    fn a_namespace_is_written_where_it_is_not_global() {
        let lock = lock();
        let text = lock.to_toml();
        assert_eq!(text.matches("namespace = ").count(), 1, "{text}");
        assert_eq!(lock.skills["a"].key("a"), "@team-a/a");
        assert_eq!(lock.skills["b"].key("b"), "b");
    }

    /// A name that cannot be a folder's, edited into a lock in any TOML spelling, is refused
    /// with the line that names it.
    #[test]
    fn names_that_cannot_be_folders_are_refused_with_their_line() {
        let path = Path::new("skillpath.lock");
        let text = lock().to_toml();
        for (name, spelled) in [
            ("..", "[skills.\"..\"]"),
            ("..", "[ skills . '..' ]"),
            ("/abs/path", "[skills.\"/abs/path\"]"),
            (".claude", "[skills.'.claude']"),
            ("x\\y", "[skills.'x\\y']"),
            ("a\u{1}b", "[skills.\"a\\u0001b\"]"),
        ] {
            let edited = text.replacen("[skills.\"b\"]", spelled, 1);
            let line = edited
                .lines()
                .position(|line| line == spelled)
                .expect("the edited line")
                + 1;
            let error = Lock::parse(&edited, path).expect_err(name);
            let problem = skillpath_core::validate::check_folder_name(name).expect_err(name);
            assert_eq!(
                error.message,
                format!("`skillpath.lock` line {line}: {problem}")
            );
        }
    }
}
