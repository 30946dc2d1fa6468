//! The lock's promise: every file of a locked skill is checked against its digest before
//! anything of it is written. [`verify`] holds content against a lock entry, file by file;
//! [`locked_skills`] gives the content of locked skills, each from what the store holds when
//! that is exactly the locked files, else from its source at the locked pin, checked. A skill
//! whose content differs from the lock has no content here, only a [`ContentError`] that
//! names the first file that differs: a caller cannot write what was not checked.

use std::collections::BTreeMap;

use skillpath_model::SkillSnapshot;

use crate::SourceError;
use crate::digest::{FileDigest, files_of, tree_digest};
use crate::lock::LockedSkill;
use crate::source::{self, Origin};
use crate::tree::{Found, SourceSkill};

/// What to do about content that differs from the lock.
pub const TAMPERED_HINT: &str = "the source's history was rewritten or the lock was changed: nothing was written; check the source, then `skillpath update` the skill to pin what it holds now";

/// What to do about a tree digest that disagrees with the lock's own files.
pub const HAND_EDITED_HINT: &str =
    "restore the lock from version control, or `skillpath update` the skill";

/// A file of a locked skill whose content is not what the lock says. `at` names where the
/// content was read: `commit <id> of `<source>``, `` `<source>` (digest checked)``, or the
/// source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// A file the lock has and the content has not.
    #[error("`{name}/{path}` is in the lock but not in {at}")]
    Missing {
        /// The skill.
        name: String,
        /// The file.
        path: String,
        /// Where the content was read.
        at: String,
    },
    /// A file whose bytes are not the locked ones.
    #[error(
        "`{name}/{}` differs from the lock: the lock says {} ({} bytes), {at} has {} ({} bytes)",
        locked.path, locked.sha256, locked.size, got.sha256, got.size
    )]
    Differs {
        /// The skill.
        name: String,
        /// What the lock says of the file.
        locked: Box<FileDigest>,
        /// What the content holds.
        got: Box<FileDigest>,
        /// Where the content was read.
        at: String,
    },
    /// A file the content has and the lock has not.
    #[error("`{name}/{path}` is in {at} but not in the lock")]
    Extra {
        /// The skill.
        name: String,
        /// The file.
        path: String,
        /// Where the content was read.
        at: String,
    },
}

/// Why a locked skill has no content to write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContentError {
    /// Its source cannot be read at the lock's pin, or holds no skill at its path.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// Its source holds other files than the lock says.
    #[error(transparent)]
    Mismatch(#[from] Mismatch),
    /// Its files agree with the source, and the lock's tree digest of them does not: the
    /// digest was edited.
    #[error(
        "the lock's tree digest of `{0}` does not agree with its files, which do agree with the source: the digest was changed by hand"
    )]
    HandEditedDigest(String),
}

impl ContentError {
    /// What to do about it, when there is something to say.
    pub fn hint(&self) -> Option<&str> {
        match self {
            ContentError::Source(error) => error.hint.as_deref(),
            ContentError::Mismatch(_) => Some(TAMPERED_HINT),
            ContentError::HandEditedDigest(_) => Some(HAND_EDITED_HINT),
        }
    }
}

/// Checks `files` against the lock's files of `name`; the first file that differs fails.
pub fn verify(name: &str, locked: &LockedSkill, files: &[FileDigest]) -> Result<(), Mismatch> {
    let at = match &locked.commit {
        Some(commit) => format!("commit {commit} of `{}`", locked.source),
        None if locked.digest.is_some() => format!("`{}` (digest checked)", locked.source),
        None => format!("`{}`", locked.source),
    };
    let given: BTreeMap<&str, &FileDigest> = files.iter().map(|f| (f.path.as_str(), f)).collect();
    for expected in &locked.files {
        match given.get(expected.path.as_str()) {
            None => {
                return Err(Mismatch::Missing {
                    name: name.to_owned(),
                    path: expected.path.clone(),
                    at,
                });
            }
            Some(got) if *got != expected => {
                return Err(Mismatch::Differs {
                    name: name.to_owned(),
                    locked: Box::new(expected.clone()),
                    got: Box::new((*got).clone()),
                    at,
                });
            }
            Some(_) => {}
        }
    }
    if let Some(extra) = files
        .iter()
        .find(|f| !locked.files.iter().any(|e| e.path == f.path))
    {
        return Err(Mismatch::Extra {
            name: name.to_owned(),
            path: extra.path.clone(),
            at,
        });
    }
    Ok(())
}

/// The locked skill as its source holds it at the lock's pin, NOT checked against the lock's
/// files: for showing what was installed (a diff's base), never for writing.
pub fn read_locked(locked: &LockedSkill) -> Result<SourceSkill, SourceError> {
    let found = source::read(
        &Origin::from_recorded(&locked.source),
        locked.pin(),
        &locked.path,
    )?;
    found.skill_at(&locked.source, &locked.path)
}

/// The locked skill `name` as its source holds it at the lock's pin, checked file by file
/// against the lock.
pub fn read_verified(name: &str, locked: &LockedSkill) -> Result<SourceSkill, ContentError> {
    let skill = read_locked(locked)?;
    verify(name, locked, &files_of(&skill.snapshot))?;
    Ok(skill)
}

/// One locked skill and its checked content.
#[derive(Debug)]
pub struct LockedContent<'a> {
    /// The skill's name.
    pub name: &'a str,
    /// Its lock entry.
    pub locked: &'a LockedSkill,
    /// Its content, checked against `locked`; `Err`: why there is none to write.
    pub content: Result<SkillSnapshot, ContentError>,
}

/// The content of each of `skills` (name and lock entry), in their order: `stored[name]`
/// (what the store holds of it now) when its files are exactly the locked ones, else read
/// from its source at the locked pin (each source read once per pin: a restore of 200 skills
/// of one repository reads its commit once) and checked file by file against the lock.
pub fn locked_skills<'a>(
    skills: impl IntoIterator<Item = (&'a str, &'a LockedSkill)>,
    stored: &BTreeMap<String, SkillSnapshot>,
) -> Vec<LockedContent<'a>> {
    let mut reads = SourceReads::default();
    skills
        .into_iter()
        .map(|(name, locked)| LockedContent {
            name,
            locked,
            content: content(&mut reads, name, locked, stored.get(name)),
        })
        .collect()
}

/// The content of the locked skill `name`: `stored` when its files are the locked ones, else
/// read from its source through `reads`, checked.
fn content(
    reads: &mut SourceReads,
    name: &str,
    locked: &LockedSkill,
    stored: Option<&SkillSnapshot>,
) -> Result<SkillSnapshot, ContentError> {
    if locked.tree_agrees()
        && let Some(stored) = stored
        && tree_digest(&files_of(stored)) == locked.tree
    {
        return Ok(stored.clone());
    }
    let skill = reads.skill(locked)?;
    verify(name, locked, &files_of(&skill.snapshot))?;
    if !locked.tree_agrees() {
        return Err(ContentError::HandEditedDigest(name.to_owned()));
    }
    Ok(skill.snapshot)
}

/// The sources read so far, each once per pin.
#[derive(Default)]
struct SourceReads {
    read: BTreeMap<PinnedSource, Result<Found, SourceError>>,
}

/// A source as a lock pins it: the source, the commit, the digest, and a registry's skill's
/// slug and version (each read on its own).
type PinnedSource = (
    String,
    Option<String>,
    Option<String>,
    Option<(String, String)>,
);

impl SourceReads {
    /// The skill at `locked.path` of the locked skill's source, as the lock pins it.
    fn skill(&mut self, locked: &LockedSkill) -> Result<SourceSkill, SourceError> {
        let origin = Origin::from_recorded(&locked.source);
        // A registry is read skill by skill (by its slug); any other source whole, once.
        let one = matches!(origin, Origin::Registry { .. });
        let key = (
            locked.source.clone(),
            locked.commit.clone(),
            locked.digest.clone(),
            one.then(|| {
                (
                    locked.path.clone(),
                    locked.version.clone().unwrap_or_default(),
                )
            }),
        );
        let found = self.read.entry(key).or_insert_with(|| {
            source::read(&origin, locked.pin(), if one { &locked.path } else { "" })
        });
        found
            .as_ref()
            .map_err(Clone::clone)?
            .skill_at(&locked.source, &locked.path)
    }
}
