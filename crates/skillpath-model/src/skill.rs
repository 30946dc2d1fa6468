//! A skill's (or a package's) content: its manifest and files, checked and hashed one way.

use sha2::{Digest, Sha256};
use skillpath_core::bundle::SkillBundle;

use crate::digest::sha256_hex;
use crate::hex;
use crate::kind::Kind;
use crate::path::{PathError, check_relative_path};

/// Why files cannot make a snapshot. The wording is what a person is shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    /// Two files with one path.
    #[error("the file `{0}` is given twice")]
    FileTwice(String),
    /// A package's files hold a `SKILL.md`.
    #[error(
        "a package's files cannot hold a `SKILL.md`: its skills are stored as skills of their own"
    )]
    SkillMdInPackage,
    /// A file's path is not one a skill may hold.
    #[error(transparent)]
    Path(#[from] PathError),
}

/// The content of a skill (or a package): its manifest and every other file, as they are on
/// disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillSnapshot {
    /// Whether this is a skill's content or a package's.
    pub kind: Kind,
    /// The text of the manifest (`SKILL.md`, or a package's `PACKAGE.md`), byte for byte.
    pub skill_md: String,
    /// The other files, sorted by path, paths relative with `/` separators.
    pub files: Vec<SkillFile>,
}

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// Path relative to the skill folder, `/`-separated, never leaving the folder.
    pub path: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

impl SkillFile {
    /// The `sha256:<hex>` digest of the bytes.
    pub fn sha256(&self) -> String {
        sha256_hex(&self.bytes)
    }
}

impl SkillSnapshot {
    /// A skill's snapshot with files sorted by path, checking that paths are safe and unique.
    pub fn new(skill_md: String, files: Vec<SkillFile>) -> Result<SkillSnapshot, SnapshotError> {
        SkillSnapshot::of_kind(Kind::Skill, skill_md, files)
    }

    /// [`SkillSnapshot::new`] of a package: its `PACKAGE.md` and its other files.
    pub fn package(
        manifest: String,
        files: Vec<SkillFile>,
    ) -> Result<SkillSnapshot, SnapshotError> {
        SkillSnapshot::of_kind(Kind::Package, manifest, files)
    }

    /// [`SkillSnapshot::new`] of either kind.
    pub fn of_kind(
        kind: Kind,
        skill_md: String,
        mut files: Vec<SkillFile>,
    ) -> Result<SkillSnapshot, SnapshotError> {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        for pair in files.windows(2) {
            if pair[0].path == pair[1].path {
                return Err(SnapshotError::FileTwice(pair[0].path.clone()));
            }
        }
        for file in &files {
            check_relative_path(&file.path)?;
        }
        if kind == Kind::Package && files.iter().any(|file| file.path == "SKILL.md") {
            return Err(SnapshotError::SkillMdInPackage);
        }
        Ok(SkillSnapshot {
            kind,
            skill_md,
            files,
        })
    }

    /// One hash for the whole content: the manifest (by its file name, so a skill and a
    /// package never hash alike) and every file with its path. Equal content, equal hash;
    /// this is how an unchanged re-import is recognised.
    pub fn content_hash(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.kind.manifest().as_bytes());
        hasher.update(b"\0");
        hasher.update((self.skill_md.len() as u64).to_le_bytes());
        hasher.update(self.skill_md.as_bytes());
        for file in &self.files {
            hasher.update(file.path.as_bytes());
            hasher.update(b"\0");
            hasher.update((file.bytes.len() as u64).to_le_bytes());
            hasher.update(&file.bytes);
        }
        format!("sha256:{}", hex::encode(&hasher.finalize()))
    }

    /// The snapshot as core's skill in memory, in a folder named `name` (its nominal path), so
    /// that a stored revision can be validated, rendered or audited like a folder.
    pub fn to_bundle(&self, name: &str) -> SkillBundle {
        SkillBundle::named(
            name,
            self.skill_md.as_bytes(),
            self.files
                .iter()
                .map(|file| (file.path.clone(), file.bytes.clone())),
        )
    }

    /// Total size in bytes of `SKILL.md` and the files.
    pub fn size(&self) -> u64 {
        self.skill_md.len() as u64 + self.files.iter().map(|f| f.bytes.len() as u64).sum::<u64>()
    }
}

/// One file of a skill without its bytes: what listing its resources needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMetadata {
    /// Path relative to the skill folder, `/`-separated.
    pub path: String,
    /// The `sha256:<hex>` digest of the bytes ([`SkillFile::sha256`]).
    pub sha256: String,
    /// The size in bytes.
    pub size: u64,
    /// Whether the bytes are UTF-8 text ([`is_text`]).
    pub text: bool,
}

impl FileMetadata {
    /// The metadata of the manifest of a `kind` (always text) whose bytes have `sha256` and
    /// `size`.
    pub fn manifest(kind: Kind, sha256: String, size: u64) -> FileMetadata {
        FileMetadata {
            path: kind.manifest().to_owned(),
            sha256,
            size,
            text: true,
        }
    }

    /// The metadata of `file`.
    pub fn of(file: &SkillFile) -> FileMetadata {
        FileMetadata {
            path: file.path.clone(),
            sha256: file.sha256(),
            size: file.bytes.len() as u64,
            text: is_text(&file.bytes),
        }
    }
}

/// Whether `bytes` are text: valid UTF-8. The one rule for [`FileMetadata::text`], whether it
/// is read from a file in memory or computed by a backend from the stored bytes.
pub fn is_text(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `SKILL.md` with a name, a description and a body.
    fn md(name: &str, description: &str, body: &str) -> String {
        format!("---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
    }

    #[test]
    fn unsafe_file_paths_are_refused_by_the_snapshot() {
        let file = |path: &str| SkillFile {
            path: path.to_owned(),
            bytes: b"x".to_vec(),
        };
        for path in [
            "../x",
            "a/../../x",
            "a/..",
            "/abs",
            "/etc/passwd",
            "a//b",
            "a/",
            "./a",
            "a/./b",
            "",
            "SKILL.md",
            "nested/SKILL.md",
            "nested/skill.md",
            ".git/config",
            "node_modules/x/index.js",
            "a\\b",
            "..\\x",
            "a\0b",
        ] {
            let error = SkillSnapshot::new(md("s", "d", "b"), vec![file("ok.md"), file(path)])
                .expect_err(path);
            match &error {
                SnapshotError::Path(error) => {
                    let message = error.to_string();
                    assert!(
                        message.starts_with(&format!("file path `{path}` ")),
                        "{path:?}: {message}"
                    );
                }
                other => panic!("{path:?}: {other:?}"),
            }
        }
        let error = SkillSnapshot::new(
            md("s", "d", "b"),
            vec![file("a.md"), file("b.md"), file("a.md")],
        )
        .expect_err("twice");
        assert_eq!(error.to_string(), "the file `a.md` is given twice");

        // Allowed: nested paths, dots inside names, names that only look like the excluded ones.
        let ok = SkillSnapshot::new(
            md("s", "d", "b"),
            vec![
                file("z.txt"),
                file("nested/SKILL.md.orig"),
                file("a/b/c.d.e"),
                file(".hidden"),
                file(".github/x.yml"),
                file("..x"),
                file("naïve file.md"),
            ],
        )
        .expect("safe paths");
        let paths: Vec<&str> = ok.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "..x",
                ".github/x.yml",
                ".hidden",
                "a/b/c.d.e",
                "naïve file.md",
                "nested/SKILL.md.orig",
                "z.txt"
            ],
            "sorted by path"
        );
    }
}
