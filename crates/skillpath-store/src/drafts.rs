//! Drafts: what an author is working on, kept apart from what is published.
//!
//! On a team server with review, a change by an author is not a revision: it is kept as the
//! author's draft of the item (a skill or a package), one per item and author, naming the
//! revision it was made on (`base`, `0` for an item that does not exist yet). Drafts live in
//! a table of their own, which no query of skills reads, so nothing a reader lists, searches
//! or calls can show one. A maintainer publishes a draft ([`crate::Store::publish_draft`]):
//! in one transaction, the draft becomes the item's next revision — or its first, or a new
//! member of the package it asked to join — and is closed; refused, and kept, when the item
//! was published meanwhile at another revision than the draft's base. Or the maintainer
//! rejects it with a message, which its author reads with it; the author's next save opens it
//! again.

use crate::answers::StoredSkill;
use crate::content::{checked, meta};
use crate::error::{StoreError, StoreResult};
use crate::time::now_rfc3339;
use skillpath_model::{Change, FullName, Kind, Namespace, SkillFile, SkillSnapshot};

/// A draft to save: its content, the revision it was made on, and who made it why.
#[derive(Debug, Clone)]
pub struct NewDraft {
    /// The content; its manifest names the item.
    pub snapshot: SkillSnapshot,
    /// The published revision the draft was made on; `0` for a new item.
    pub base: u64,
    /// For a new skill, the package it joins when published (listed by that package's
    /// manifest then, as [`crate::Store::create_member`] does).
    pub package: Option<String>,
    /// The author (a person's handle) and the message.
    pub change: Change,
    /// The item's namespace: a new item is published there (a package's member: the
    /// package's); the draft is kept under the item's key there ([`FullName::key`]).
    pub namespace: Namespace,
}

/// Where a draft is in review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DraftStatus {
    /// Waiting for a maintainer.
    Open,
    /// Rejected by a maintainer, with a message; open again when its author saves it again.
    Rejected,
}

impl DraftStatus {
    /// The lowercase name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            DraftStatus::Open => "open",
            DraftStatus::Rejected => "rejected",
        }
    }
}

/// A draft as listed: everything but its content.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DraftSummary {
    /// The item's name.
    pub name: String,
    /// A skill or a package.
    pub kind: Kind,
    /// The published revision it was made on; `0` for a new item.
    pub base: u64,
    /// The package a new skill joins when published.
    pub package: Option<String>,
    /// Who wrote it (an API key's name).
    pub author: String,
    /// Why.
    pub message: String,
    /// Waiting, or rejected.
    pub status: DraftStatus,
    /// Who rejected it.
    pub reviewer: Option<String>,
    /// Why it was rejected.
    pub review_message: Option<String>,
    /// When it was last saved or reviewed (RFC 3339, UTC).
    pub updated_at: String,
    /// The hash of its content, as a revision's ([`skillpath_model::SkillSnapshot::content_hash`]):
    /// what a review saw, so that a draft saved again meanwhile is not published unseen.
    pub content_hash: String,
}

impl DraftSummary {
    /// What names this draft as it is now, for a write that closes or reviews it.
    pub(crate) fn reference(&self) -> DraftRef {
        DraftRef {
            name: self.name.clone(),
            author: self.author.clone(),
            content_hash: self.content_hash.clone(),
        }
    }
}

/// A draft with its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// Everything listed about it.
    pub summary: DraftSummary,
    /// Its content.
    pub snapshot: SkillSnapshot,
}

/// Which drafts [`crate::Store::drafts`] lists.
#[derive(Debug, Clone, Default)]
pub struct DraftFilter {
    /// Only the drafts of this item.
    pub name: Option<String>,
    /// Only this author's drafts.
    pub author: Option<String>,
}

/// A draft as a backend writes it: the summary and the content encoded (`encode_files`).
/// Made by [`crate::Store::save_draft`] only.
#[derive(Debug)]
pub struct DraftRecord {
    pub(crate) summary: DraftSummary,
    pub(crate) manifest: String,
    pub(crate) files: Vec<u8>,
}

/// The draft a write closes when it commits: its item, author and the content hash the
/// publisher saw.
#[derive(Debug, Clone)]
pub struct DraftRef {
    pub(crate) name: String,
    pub(crate) author: String,
    pub(crate) content_hash: String,
}

/// The columns of a draft's summary and, with `manifest, files` after them, of a draft
/// ([`crate::columns::draft_summary`], [`crate::columns::draft`]), in the order both backends
/// select.
pub(crate) const DRAFT_COLUMNS: &str = "name, kind, base, package, author, message, status, reviewer, review_message, updated_at, content_hash";

/// A draft's files as one value: for each, the path's length (4 bytes, big-endian), the path,
/// the content's length (8 bytes) and the content. A draft is read and written whole, so its
/// files need no rows (nor blobs) of their own.
pub(crate) fn encode_files(files: &[SkillFile]) -> Vec<u8> {
    let size = files
        .iter()
        .map(|f| 12 + f.path.len() + f.bytes.len())
        .sum();
    let mut out = Vec::with_capacity(size);
    for file in files {
        // A path is far shorter than 4 GiB: the snapshot's paths are checked file names.
        out.extend_from_slice(&(file.path.len() as u32).to_be_bytes());
        out.extend_from_slice(file.path.as_bytes());
        out.extend_from_slice(&(file.bytes.len() as u64).to_be_bytes());
        out.extend_from_slice(&file.bytes);
    }
    out
}

/// The files [`encode_files`] wrote; a value it could not have written is an error.
pub(crate) fn decode_files(mut bytes: &[u8]) -> StoreResult<Vec<SkillFile>> {
    fn take<'a>(bytes: &mut &'a [u8], count: usize) -> StoreResult<&'a [u8]> {
        if bytes.len() < count {
            return Err(StoreError::database(
                "a stored draft's files are cut short".to_owned(),
            ));
        }
        let (head, rest) = bytes.split_at(count);
        *bytes = rest;
        Ok(head)
    }
    let mut files = Vec::new();
    while !bytes.is_empty() {
        let mut length = [0u8; 4];
        length.copy_from_slice(take(&mut bytes, 4)?);
        let path = take(&mut bytes, u32::from_be_bytes(length) as usize)?;
        let path = String::from_utf8(path.to_vec()).map_err(|_| {
            StoreError::database("a stored draft has a file path that is not UTF-8".to_owned())
        })?;
        let mut size = [0u8; 8];
        size.copy_from_slice(take(&mut bytes, 8)?);
        let size = usize::try_from(u64::from_be_bytes(size)).unwrap_or(usize::MAX);
        files.push(SkillFile {
            path,
            bytes: take(&mut bytes, size)?.to_vec(),
        });
    }
    Ok(files)
}

/// The record of `draft` to save, checked like a write's content, and against the item as
/// published now (`current`, the visible item of the draft's name, if any): a new item's name
/// must be free, a change must be made on the current revision of a live item of its kind.
pub(crate) fn record(draft: NewDraft, current: Option<&StoredSkill>) -> StoreResult<DraftRecord> {
    let snapshot = checked(draft.snapshot)?;
    let name = FullName::new(draft.namespace, meta(&snapshot)?.name).key();
    match (current, draft.base) {
        (Some(item), 0) => {
            return Err(StoreError::AlreadyExists {
                name,
                revision: item.revision,
                deleted: item.deleted,
            });
        }
        (None, 0) => {}
        (None, _) => {
            return Err(StoreError::NotFound {
                name,
                revision: None,
            });
        }
        (Some(item), base) => {
            if item.revision != base {
                return Err(StoreError::StaleRevision {
                    name,
                    expected: base,
                    actual: item.revision,
                });
            }
            if item.deleted {
                return Err(StoreError::InvalidState(format!(
                    "`{name}` is deleted: restore it before drafting a change"
                )));
            }
            crate::content::check_keeps_kind(&name, item.snapshot.kind, snapshot.kind)?;
        }
    }
    if draft.package.is_some() && (draft.base != 0 || snapshot.kind != Kind::Skill) {
        return Err(StoreError::InvalidState(format!(
            "only a new skill can join a package; `{name}` is not one"
        )));
    }
    Ok(DraftRecord {
        summary: DraftSummary {
            name,
            kind: snapshot.kind,
            base: draft.base,
            package: draft.package,
            author: draft.change.author,
            message: draft.change.message,
            status: DraftStatus::Open,
            reviewer: None,
            review_message: None,
            updated_at: now_rfc3339(),
            content_hash: snapshot.content_hash(),
        },
        files: encode_files(&snapshot.files),
        manifest: snapshot.skill_md,
    })
}

/// The change a published draft's revision records: the draft's author and message, and who
/// published it.
pub(crate) fn published_change(draft: &DraftSummary, publisher: &Change) -> Change {
    let note = if publisher.message.is_empty() {
        String::new()
    } else {
        format!(": {}", publisher.message)
    };
    Change {
        author: draft.author.clone(),
        message: format!(
            "{} (reviewed and published by {}{note})",
            draft.message, publisher.author
        ),
    }
}

/// The error of a publication refused because the item moved on from the draft's base.
pub(crate) fn stale(draft: &DraftSummary, error: StoreError) -> StoreError {
    match error {
        StoreError::StaleRevision { name, actual, .. } if name == draft.name => {
            StoreError::StaleDraft {
                name,
                author: draft.author.clone(),
                base: draft.base,
                actual,
            }
        }
        StoreError::AlreadyExists { name, revision, .. }
            if name == draft.name && draft.base == 0 =>
        {
            StoreError::StaleDraft {
                name,
                author: draft.author.clone(),
                base: 0,
                actual: revision,
            }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_decode_as_encoded() {
        let files = vec![
            SkillFile {
                path: "a.md".to_owned(),
                bytes: b"alpha".to_vec(),
            },
            SkillFile {
                path: "dir/empty".to_owned(),
                bytes: Vec::new(),
            },
            SkillFile {
                path: "bin".to_owned(),
                bytes: vec![0, 255, 10, 13],
            },
        ];
        let encoded = encode_files(&files);
        assert_eq!(decode_files(&encoded).expect("decodes"), files);
        assert!(decode_files(&[]).expect("empty").is_empty());
        // Every cut of a valid value is refused, never read as fewer or shorter files.
        for cut in 1..encoded.len() {
            let decoded = decode_files(&encoded[..cut]);
            assert!(
                decoded.map_or(true, |read| read.len() < files.len()),
                "cut at {cut}"
            );
        }
    }
}
