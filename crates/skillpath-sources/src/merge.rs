//! A local edit merged with an update, three ways (base: what was installed; local: what the
//! folder holds now; upstream: what the update brings), file by file. A file changed on one
//! side only takes that side; a text file changed on both is merged line by line by
//! `git merge-file`, and is a conflict where the two edits overlap. Nothing is written here:
//! the caller writes the merge only when it has no conflict.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use skillpath_model::{Kind, SkillFile, SkillSnapshot};

use crate::SourceError;

/// The result of a merge.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Merged {
    /// Every file of the merge, by path.
    pub files: BTreeMap<String, Vec<u8>>,
    /// The files where the two sides' edits overlap, with what happened on each side.
    pub conflicts: Vec<String>,
}

impl Merged {
    /// The merge's files as a skill (a `SKILL.md`), or a package (a `PACKAGE.md` and no
    /// `SKILL.md`).
    pub fn into_snapshot(mut self) -> Result<SkillSnapshot, Unmerged> {
        let kind = if self.files.contains_key(Kind::Skill.manifest()) {
            Kind::Skill
        } else {
            Kind::Package
        };
        let manifest = kind.manifest();
        let skill_md = self
            .files
            .remove(manifest)
            .ok_or(Unmerged::NoManifest(manifest))?;
        let skill_md = String::from_utf8(skill_md).map_err(|_| Unmerged::NotUtf8(manifest))?;
        SkillSnapshot::of_kind(
            kind,
            skill_md,
            self.files
                .into_iter()
                .map(|(path, bytes)| SkillFile { path, bytes })
                .collect(),
        )
        .map_err(|e| Unmerged::Invalid(e.to_string()))
    }
}

/// Why a merge's files are no skill to write.
#[derive(Debug, thiserror::Error)]
pub enum Unmerged {
    /// The merge lost the manifest.
    #[error("the merge has no `{0}`")]
    NoManifest(&'static str),
    /// The merged manifest is not text.
    #[error("the merged `{0}` is not UTF-8")]
    NotUtf8(&'static str),
    /// What the skill model's rules refuse of it, in their words.
    #[error("{0}")]
    Invalid(String),
}

/// Merges `local` and `upstream`, both changed from `base`.
pub fn merge(
    base: &BTreeMap<String, Vec<u8>>,
    local: &BTreeMap<String, Vec<u8>>,
    upstream: &BTreeMap<String, Vec<u8>>,
) -> Result<Merged, SourceError> {
    let paths: BTreeSet<&String> = base
        .keys()
        .chain(local.keys())
        .chain(upstream.keys())
        .collect();
    let mut merged = Merged::default();
    for path in paths {
        let (b, l, u) = (base.get(path), local.get(path), upstream.get(path));
        let taken = if l == b {
            u
        } else if u == b || l == u {
            l
        } else {
            match (b, l, u) {
                (Some(b), Some(l), Some(u)) => {
                    let (bytes, clean) = merge_file(b, l, u)?;
                    if !clean {
                        merged
                            .conflicts
                            .push(format!("`{path}`: both sides changed the same lines"));
                    }
                    merged.files.insert(path.clone(), bytes);
                    continue;
                }
                (_, None, _) => {
                    merged
                        .conflicts
                        .push(format!("`{path}`: removed here, changed upstream"));
                    u
                }
                (_, _, None) => {
                    merged
                        .conflicts
                        .push(format!("`{path}`: changed here, removed upstream"));
                    l
                }
                (None, Some(_), Some(_)) => {
                    merged
                        .conflicts
                        .push(format!("`{path}`: added on both sides, differently"));
                    l
                }
            }
        };
        if let Some(bytes) = taken {
            merged.files.insert(path.clone(), bytes.clone());
        }
    }
    Ok(merged)
}

/// `git merge-file` of one file: the merged bytes, and whether there was no conflict.
fn merge_file(base: &[u8], local: &[u8], upstream: &[u8]) -> Result<(Vec<u8>, bool), SourceError> {
    let text = |bytes: &[u8]| std::str::from_utf8(bytes).is_ok() && !bytes.contains(&0);
    if !(text(base) && text(local) && text(upstream)) {
        return Ok((local.to_vec(), false));
    }
    let dir =
        tempfile::tempdir().map_err(|e| SourceError::new(format!("a temporary folder: {e}")))?;
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes)
            .map(|()| path)
            .map_err(|e| SourceError::new(format!("a temporary file: {e}")))
    };
    let (l, b, u) = (
        write("local", local)?,
        write("base", base)?,
        write("upstream", upstream)?,
    );
    let output = Command::new("git")
        .args([
            "merge-file",
            "-p",
            "-L",
            "local",
            "-L",
            "installed",
            "-L",
            "upstream",
        ])
        .arg(&l)
        .arg(&b)
        .arg(&u)
        .output()
        .map_err(|e| SourceError::new(format!("cannot run `git merge-file`: {e}")))?;
    match output.status.code() {
        Some(0) => Ok((output.stdout, true)),
        Some(code) if (1..=127).contains(&code) => Ok((output.stdout, false)),
        _ => Err(SourceError::new(format!(
            "`git merge-file` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(entries: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
        entries
            .iter()
            .map(|(path, text)| ((*path).to_owned(), text.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn edits_that_do_not_overlap_merge_and_those_that_do_conflict() {
        let base = files(&[("SKILL.md", "a\nb\nc\nd\ne\n"), ("x", "1\n")]);
        let local = files(&[
            ("SKILL.md", "A\nb\nc\nd\ne\n"),
            ("x", "1\n"),
            ("mine", "m\n"),
        ]);
        let upstream = files(&[("SKILL.md", "a\nb\nc\nd\nE\n"), ("x", "2\n")]);
        let merged = merge(&base, &local, &upstream).expect("merge");
        assert!(merged.conflicts.is_empty(), "{merged:?}");
        assert_eq!(
            merged.files,
            files(&[
                ("SKILL.md", "A\nb\nc\nd\nE\n"),
                ("mine", "m\n"),
                ("x", "2\n")
            ])
        );
        let clash = files(&[("SKILL.md", "a\nb\nc\nd\nmine\n"), ("x", "1\n")]);
        let merged = merge(&base, &clash, &upstream).expect("merge");
        assert_eq!(merged.conflicts.len(), 1, "{merged:?}");
        assert!(merged.conflicts[0].contains("SKILL.md"));
    }
}
