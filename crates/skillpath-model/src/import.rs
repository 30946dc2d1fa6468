//! What an import is given: skills with their provenance, read from folders or known
//! unchanged by their folder's stamp.

use crate::provenance::Provenance;
use crate::skill::SkillSnapshot;

/// One skill to import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportItem {
    /// The content.
    pub snapshot: SkillSnapshot,
    /// Where it comes from.
    pub provenance: Provenance,
}

/// One skill folder to import (`skillpath-folders` reads them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderImport {
    /// Where it comes from.
    pub provenance: Provenance,
    /// What was read of it.
    pub content: FolderContent,
}

/// What an import knows of a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FolderContent {
    /// Read from disk. The stamp, when there is one, is recorded with the revision the import
    /// leaves current, so that the next import can skip reading the folder if it is unchanged.
    Read {
        /// The content.
        snapshot: SkillSnapshot,
        /// The folder's stamp, taken before reading it.
        stamp: Option<FolderStamp>,
    },
    /// Not read: its stamp equals the one recorded with its skill's current revision.
    Unchanged {
        /// The skill's name.
        name: String,
    },
}

impl From<ImportItem> for FolderImport {
    fn from(item: ImportItem) -> FolderImport {
        FolderImport {
            provenance: item.provenance,
            content: FolderContent::Read {
                snapshot: item.snapshot,
                stamp: None,
            },
        }
    }
}

/// A fingerprint of a skill folder's files, from their metadata (`skillpath-folders` takes
/// it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderStamp {
    /// The folder's canonical path.
    pub folder: String,
    /// The fingerprint.
    pub stamp: String,
}

/// A folder stamp a store keeps, for a skill whose current revision came from that folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedStamp {
    /// The folder's canonical path.
    pub folder: String,
    /// The skill imported from it.
    pub name: String,
    /// The fingerprint taken when it was read.
    pub stamp: String,
}
