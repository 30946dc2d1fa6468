//! The skill model, below every other skillpath crate but core: what a skill (or a package) is
//! as content, its digests, where it came from, its revisions, the namespaces items belong to
//! and who sees them, and the agents' skill folders.
//! Types and pure rules only, no I/O and no async, so that the store, the sources and every
//! front end share one definition of each without linking a database or a runtime.

pub mod agents;
pub mod digest;
pub mod governance;
pub mod hex;
pub mod import;
pub mod kind;
pub mod namespace;
pub mod path;
pub mod provenance;
pub mod release;
pub mod revision;
pub mod skill;

pub use digest::sha256_hex;
pub use import::{FolderContent, FolderImport, FolderStamp, ImportItem, RecordedStamp};
pub use kind::Kind;
pub use namespace::{
    Access, FullName, GLOBAL, MemberRole, Namespace, NotAFullName, Placement, Visibility,
    name_of_key, namespace_of_key,
};
pub use path::{PathError, check_relative_path};
pub use provenance::{Provenance, ShadowedSkill};
pub use revision::{Change, Operation, Revision};
pub use skill::{FileMetadata, SkillFile, SkillSnapshot, SnapshotError, is_text};
